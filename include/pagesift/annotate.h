/*
 * pagesift/annotate.h — the annotation workspace: label a site's blocks by
 * clicking its pages in a browser (annotate/, pagesift-annotate,
 * docs/ANNOTATE.md).  A workspace is a folder of sanitised pages, their
 * blocks' features and an index page; ps_annotate_serve serves it and
 * saves the labels.
 */
#ifndef PAGESIFT_ANNOTATE_H
#define PAGESIFT_ANNOTATE_H

#include <signal.h> /* sig_atomic_t, for ps_annotate_serve */
#include <stdio.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of an annotation workspace.  Zero-initialise, then set what you
 *  need. */
typedef struct ps_annotate_options {
    const char *model_path;    /**< pre-label blocks with this model bundle
                                    (the svm method, second passes included)
                                    and show its scores; NULL: no pre-labels */
    const char *templates_dir; /**< per-site template libraries: matching
                                    leaves are removed first, as
                                    pagesift-features --templates does */
    const char *const *block_tags; /**< NULL: the model's, else the default */
    int extended;              /**< the CSV carries the x_* features */
    size_t preview_chars;      /**< text column; 0 = 200 */
    const char *resume_path;   /**< labels JSON of an earlier export (its
                                    labels become confirmed labels), or NULL */
} ps_annotate_options;

typedef struct ps_annotate ps_annotate;

/** Start a workspace in folder @p dir (created; an existing folder must be
 *  empty or a workspace).  Loads the model, template libraries and resume
 *  file.  NULL with err set (PS_ERR_IO for the folder, the loaders' codes). */
PS_LAB_EXPORT ps_annotate *ps_annotate_new(const char *dir, const ps_annotate_options *opt, ps_error *err);
/** Add one page (@p in as ps_source_next filled it, status PS_OK): its HTML
 *  file (sanitised, every CSV block marked, CSP), its block data and CSV
 *  rows.  Returns 0, or -1 with err set: PS_ERR_IO means the workspace
 *  cannot be written (stop), any other code concerns this page only. */
PS_LAB_EXPORT int ps_annotate_add(ps_annotate *a, const ps_input *in, ps_error *err);
/** Write index.html, data/workspace.js, data/rows.js, data/blocks.json and
 *  the scripts.  Returns 0 or -1 (err set). */
PS_LAB_EXPORT int ps_annotate_finish(ps_annotate *a, ps_error *err);
/** Pages and blocks added, blocks pre-labelled, labels taken from resume. */
PS_LAB_EXPORT void ps_annotate_counts(const ps_annotate *a, size_t *pages, size_t *blocks, size_t *prelabelled,
                        size_t *resumed);
PS_LAB_EXPORT void ps_annotate_free(ps_annotate *a);

/** Serve workspace @p dir on 127.0.0.1:@p port (0: any free port) until
 *  *@p stop becomes non-zero (a signal handler sets it; checked every 0.2 s):
 *  GET of the workspace's files (paths checked, no listing), POST /save with
 *  {"labels": {...}, "csv": "..."} writes labels.json and labels.csv
 *  atomically into @p dir, one save after the other.  16 connections at
 *  once (a fixed pool of threads, which take no signal; more wait in the
 *  accept queue), each request read within 10 s of its accept and answered
 *  within 10 s more, requests bounded in size, Host and a custom header
 *  checked (no other web site can post to it).  @p on_ready (may be NULL) is
 *  called with the port once listening; @p log (may be NULL) gets one line
 *  per request.  Returns 0 on a clean stop, -1 with err set when the socket
 *  or the threads cannot be set up. */
PS_LAB_EXPORT int ps_annotate_serve(const char *dir, int port, volatile sig_atomic_t *stop,
                      void (*on_ready)(int port, void *ctx), void *ctx, FILE *log, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_ANNOTATE_H */
