/* methods/batch.h — batch extraction (declared in the public
 * include/pagesift/batch.h) and its internal pieces: JSON records and the
 * HTML view. */
#ifndef PS_BATCH_H
#define PS_BATCH_H

#include <stdio.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/batch.h"

/* ---- records (methods/records.c) --------------------------------------- */

/** Append @p n bytes of @p s as a JSON string (quoted, escaped; invalid
 *  UTF-8 becomes U+FFFD). */
int ps_json_string(ps_buf *b, const char *s, size_t n);

/** What a record says about a page. */
typedef struct ps_record {
    const char *id, *url, *site, *origin, *title, *charset;
    const char *text;
    size_t text_len;
    uint32_t blocks_kept, blocks_removed;
    const char *status;   /**< "ok", "empty", "failed" */
    const char *error;    /**< message when failed, else NULL */
} ps_record;

/** Append @p r as one JSON line ('\n'-ended). */
int ps_record_jsonl(ps_buf *b, const ps_record *r);

/* ---- HTML view (methods/html_view.c) ----------------------------------- */

/** The page's DOM with every block marked by class (block_class per block,
 *  NULL = all content): a data-pagesift attribute and an inline outline and
 *  tint, a legend at the top; serialised as UTF-8 HTML into @p out.
 *  Modifies the page's DOM.  Returns 0 or -1 with err. */
int ps_html_view(ps_page *page, const uint8_t *block_class, const char *method,
                 ps_buf *out, ps_error *err);

#endif
