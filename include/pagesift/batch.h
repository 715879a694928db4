/*
 * pagesift/batch.h — batch extraction, what the pagesift tool runs: pages
 * from a reader through an extractor on N threads into records on a stream
 * or one file per page in a folder, with the counts of what happened, and
 * the first pass of --learn-templates.
 */
#ifndef PAGESIFT_BATCH_H
#define PAGESIFT_BATCH_H

#include <stdio.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output formats of a batch run. */
typedef enum ps_out_format {
    PS_FORMAT_TEXT = 0,  /**< the main text */
    PS_FORMAT_JSONL = 1, /**< one JSON object per page and line */
    PS_FORMAT_HTML = 2   /**< the page with its blocks marked, for a person */
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
} ps_batch_config;

/** What a run did: read = extracted + empty + failed + skipped. */
typedef struct ps_batch_counts {
    size_t read, extracted, empty, failed, skipped;
    size_t bytes;           /**< raw bytes of the pages read */
} ps_batch_counts;

/** Run the batch.  Per-page failures are records with status "failed" (and
 *  a line on stderr unless quiet), never a stop; returns -1 with err only on
 *  a fatal error (reader fatal, output not writable). */
PS_EXPORT int ps_batch_run(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                 ps_batch_counts *counts, ps_error *err);

/** The site key of a page, as pagesift-template makes it: from the URL by
 *  @p rule; else, under the host rule, the site given with the page; else ""
 *  (no template step). */
PS_EXPORT void ps_batch_site(const ps_batch_input *in, ps_site_rule rule, char *out, size_t cap);

/** Create @p dir if missing and check it is a writable folder: 0, or -1
 *  with err naming it.  ps_batch_run does it too; tools call it first to
 *  tell a setup error from a page error. */
PS_EXPORT int ps_batch_prepare_output_dir(const char *dir, ps_error *err);

/** Free the contents of @p in and zero it. */
PS_EXPORT void ps_batch_input_clear(ps_batch_input *in);

/** The first pass of --learn-templates (methods/learn_pass.c): read every
 *  page, parse it on the workers and add it to @p builder under its site key
 *  in input order (pages without a site are left out).  Uses cfg's workers,
 *  site_rule and max_bytes.  *pages_added (may be NULL) counts the pages
 *  added.  Returns 0, or -1 with err on a fatal read or builder error. */
PS_EXPORT int ps_batch_learn_templates(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                             ps_template_builder *builder, size_t *pages_added, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_BATCH_H */
