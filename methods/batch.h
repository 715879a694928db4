/* methods/batch.h — batch extraction: pages from a reader callback through
 * an extractor on N threads (methods/pipeline.h) into records on a stream or
 * one file per page in a folder, with the counts of what happened. */
#ifndef PS_BATCH_H
#define PS_BATCH_H

#include <stdio.h>

#include "common/util.h"
#include "pagesift.h"

/** Output formats of a batch run. */
typedef enum ps_out_format {
    PS_FORMAT_TEXT = 0,  /**< the main text */
    PS_FORMAT_JSONL = 1, /**< one JSON object per page and line */
    PS_FORMAT_HTML = 2,  /**< the page with its blocks marked, for a person */
    PS_FORMAT_MARKDOWN = 3, /**< the kept content as Markdown (ps_render) */
    PS_FORMAT_XML = 4,      /**< ... as XML, <doc> with metadata (docs/XML.md) */
    PS_FORMAT_CLEAN_HTML = 5 /**< ... as a clean HTML document */
} ps_out_format;

/** One input page as a reader hands it over; every pointer malloc'ed (or
 *  NULL) and taken over by the batch. */
typedef struct ps_batch_input {
    char *id;       /**< record name: file stem, WARC-Record-ID, ... */
    char *url;      /**< page URL or NULL */
    char *charset;  /**< charset from HTTP/WARC headers or NULL */
    char *origin;   /**< where it came from, for messages: path, path@offset */
    char *site;     /**< site given with the page (a data set's index), or
                         NULL; see ps_batch_site */
    char *data;     /**< raw bytes */
    size_t len;
    ps_status status; /**< not PS_OK: the page could not be read; msg says why */
    char msg[512];
    int skipped;    /**< a record that is not a page (WARC request, ...):
                         counted, no output record */
    uint64_t pos;   /**< input bytes read when this record was (progress by
                         bytes, with total_bytes; 0 if unknown) */
} ps_batch_input;

/** Reader: fill @p in with the next page.  1 got one, 0 end, -1 fatal (the
 *  run stops, err set).  Called from one thread (not the caller's). */
typedef int (*ps_batch_read_fn)(void *ctx, ps_batch_input *in, ps_error *err);

typedef struct ps_batch_config {
    ps_extractor *extractor;
    ps_out_format format;
    const char *output_dir; /**< one file per page here (created), or NULL */
    FILE *out;              /**< else records go to this stream */
    int text_headers;       /**< text on a stream: a "==> id <==" line before
                                 each page (several pages) */
    ps_site_rule site_rule;
    size_t max_bytes;       /**< page size cap, 0 = PS_DEFAULT_MAX_BYTES */
    unsigned workers;       /**< >= 1; forced to 1 for a stateful method */
    int unordered;          /**< write records as they finish */
    int quiet;              /**< no progress line, no per-page messages */
    size_t total_hint;      /**< pages expected (progress), 0 unknown */
    uint64_t total_bytes;   /**< when total_hint is 0: input bytes expected
                                 (progress by the inputs' pos), 0 unknown */
    unsigned render_flags;  /**< PS_RENDER_LINKS | PS_RENDER_IMAGES for the
                                 structured formats */
    double page_timeout;    /**< seconds a page may take (it fails past
                                 them), 0 = no limit */
    int skip_existing;      /**< output_dir: a page whose output file exists
                                 is skipped (resume a run) */
    int fail_fast;          /**< stop at the first record that cannot be
                                 written (else it fails and the run goes on) */
} ps_batch_config;

/** What a run did: read = extracted + empty + failed + skipped. */
typedef struct ps_batch_counts {
    size_t read, extracted, empty, failed, skipped;
    size_t bytes;           /**< raw bytes of the pages read */
} ps_batch_counts;

/** Run the batch.  Per-page failures are records with status "failed" (and
 *  a line on stderr unless quiet), never a stop; a record that cannot be
 *  written is counted failed and the run goes on (fail_fast: stops); returns
 *  -1 with err only on a fatal error (reader fatal, fail_fast write). */
int ps_batch_run(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                 ps_batch_counts *counts, ps_error *err);

/** The site key of a page, as pagesift-template makes it: from the URL by
 *  @p rule; else, under the host rule, the site given with the page; else ""
 *  (no template step). */
void ps_batch_site(const ps_batch_input *in, ps_site_rule rule, char *out, size_t cap);

/** Create @p dir if missing and check it is a writable folder: 0, or -1
 *  with err naming it.  ps_batch_run does it too; tools call it first to
 *  tell a setup error from a page error. */
int ps_batch_prepare_output_dir(const char *dir, ps_error *err);

/** Free the contents of @p in and zero it. */
void ps_batch_input_clear(ps_batch_input *in);

/** The first pass of --learn-templates (methods/learn_pass.c): read every
 *  page, parse it on the workers and add it to @p builder under its site key
 *  in input order (pages without a site are left out).  Uses cfg's workers,
 *  site_rule and max_bytes.  *pages_added (may be NULL) counts the pages
 *  added.  Returns 0, or -1 with err on a fatal read or builder error. */
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
