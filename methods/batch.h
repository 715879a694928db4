/* methods/batch.h — batch extraction (declared in the public
 * include/pagesift/batch.h) and its internal pieces: the one-pass entry over
 * a reader callback, the learning pass, JSON records, structured output and
 * the HTML view. */
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
 *  counts the pages added.  Returns 0, 1 when cfg->interrupt stopped it,
 *  or -1 with err on a fatal read or builder error. */
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
    const ps_metadata *meta; /**< the page's metadata (title, author, ...);
                                  NULL: every field null, title from `title` */
    const char *model;    /**< "default", "site:KEY", or NULL (no model) */
    const char *page_type; /**< ps_extraction.page_type, NULL when none */
    double page_type_prob;
    int http_status;      /**< a fetched page: the HTTP status, else 0 (null) */
    const char *final_url; /**< a fetched page: the URL after redirects */
} ps_record;

/** Append @p r as one JSON line ('\n'-ended): the schema of docs/JSONL.md,
 *  absent values null. */
int ps_record_jsonl(ps_buf *b, const ps_record *r);

/* ---- structured output (methods/structure.c) -------------------------- */

/** ps_render appending to @p out. */
int ps_render_into(const ps_page *page, const ps_extraction *x, const ps_metadata *meta,
                   ps_struct_format fmt, unsigned flags, ps_buf *out, ps_error *err);

/* ---- HTML view (methods/html_view.c) ----------------------------------- */

/** The page's DOM with every block marked by class (block_class per block,
 *  NULL = all content): data-pagesift (class), data-pagesift-block (block_id
 *  of @p page_id and the path, as in the block CSV), data-pagesift-path, a
 *  tooltip, an inline outline and tint; a summary bar at the top; link lists
 *  collapsed; made safe to open (no script, event handler, javascript:/data:
 *  URL, object/embed/applet; a Content-Security-Policy forbidding scripts
 *  and remote loads); serialised as UTF-8 HTML into @p out.  Modifies the
 *  page's DOM (use the page only to free it afterwards).  Returns 0 or -1
 *  with err. */
int ps_html_view(ps_page *page, const uint8_t *block_class, const char *method,
                 const char *page_id, ps_buf *out, ps_error *err);

#endif
