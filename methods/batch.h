/* methods/batch.h — batch extraction (declared in the public
 * include/pagesift/batch.h) and its internal pieces: JSON records and the
 * HTML view. */
#ifndef PS_BATCH_H
#define PS_BATCH_H

#include <stdio.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/batch.h"

/** Reader of the internal entry points: fill @p in with the next input.
 *  1 got one, 0 end, -1 fatal (the run stops, err set).  Called from one
 *  thread (not the caller's).  ps_batch_run reads a ps_source through it. */
typedef int (*ps_batch_read_fn)(void *ctx, ps_input *in, ps_error *err);

/** ps_batch_run's one pass over a reader (cfg->extractor set; learn_templates
 *  is not looked at). */
int ps_batch_run_pass(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                      ps_batch_counts *counts, ps_error *err);

/** The first pass of learn_templates (methods/learn_pass.c): read every
 *  input, parse it on the workers and add it to @p builder under its site
 *  key (ps_input_site) in input order (pages without a site are left out).
 *  Uses cfg's workers, site_rule and max_bytes.  *pages_added (may be NULL)
 *  counts the pages added.  Returns 0, or -1 with err on a fatal read or
 *  builder error. */
int ps_batch_learn_templates(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                             ps_template_builder *builder, size_t *pages_added, ps_error *err);

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
