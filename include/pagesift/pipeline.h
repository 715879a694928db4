/* pagesift/pipeline.h — a bounded, threaded producer/consumer pipeline
 * (batch/pipeline.c): one reader thread, N worker threads, one writer
 * (the calling thread), output in input order or as finished.  The batch
 * runs on it, and so do programs that drive runs of their own (the
 * evaluation); and the batch's template learning over a reader of inputs.
 *
 * Memory is bounded: at most `in_flight` jobs exist at any time (the reader
 * waits for the writer to hand one back), so a collection of any size runs
 * in the memory of `in_flight` pages. */
#ifndef PAGESIFT_PIPELINE_H
#define PAGESIFT_PIPELINE_H

#include <signal.h>
#include <stddef.h>

#include "pagesift.h"
#include "pagesift/batch.h"
#include "pagesift/templates.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Callbacks.  A job is an opaque, caller-sized block of memory
 *  (job_size bytes, zeroed before its first use); the callbacks own its
 *  contents and `write` must leave it ready for reuse (free what read and
 *  work put into it). */
typedef struct ps_pipeline_ops {
    void *ctx;
    size_t job_size;
    /** Reader thread: fill @p job with the next input.  1 got one, 0 end of
     *  input, -1 fatal (err set): the run stops. */
    int (*read)(void *ctx, void *job, ps_error *err);
    /** Worker threads, concurrently on distinct jobs; @p worker is
     *  0..workers-1 (for per-worker scratch). */
    void (*work)(void *ctx, unsigned worker, void *job);
    /** The calling thread, one job at a time; in read order when ordered.
     *  0 ok, -1 fatal (err set): the run stops. */
    int (*write)(void *ctx, void *job, ps_error *err);
    /** NULL, or the bytes a job read holds until a worker takes it (its
     *  input): with opts->queued_bytes, what the reader may read ahead. */
    size_t (*job_bytes)(void *ctx, const void *job);
} ps_pipeline_ops;

typedef struct ps_pipeline_opts {
    unsigned workers;  /**< worker threads, >= 1 */
    int ordered;       /**< 1: write in read order; 0: as jobs finish */
    size_t in_flight;  /**< jobs in existence at once; 0 = 4 * workers + 2 */
    /** NULL, or a flag a signal handler sets: once it is non-zero the reader
     *  reads nothing more, workers start no new job, jobs being worked
     *  finish, finished jobs are written (ordered: up to the first one that
     *  was never worked) and the run returns 1; the rest are discarded.  The
     *  writer looks at it at least every 100 ms. */
    const volatile sig_atomic_t *interrupt;
    /** With ops->job_bytes: the reader reads no further while the jobs
     *  waiting for a worker hold this many bytes or more (0: no bound but
     *  in_flight), so a run of large pages is not read far ahead of the
     *  workers; one job may always wait. */
    size_t queued_bytes;
    /** With ops->job_bytes: a worker takes the next job only while the jobs
     *  being worked hold at most this many bytes with it, or when no other
     *  is being worked (0: no bound): two large pages are not worked at
     *  once, whose memory is a multiple of their bytes. */
    size_t working_bytes;
} ps_pipeline_opts;

/** Run until the reader reports the end and every job is written.  Returns
 *  0; 1 when stopped by opts->interrupt; or -1 with err set (a fatal
 *  read/write error, or threads/memory could not be had).  After a stop,
 *  jobs read but not written are dropped (write is not called for them,
 *  their contents are passed to write-less cleanup by calling @p discard if
 *  not NULL).  The threads it starts block every signal, so a process-wide
 *  signal is handled by the calling thread (or another of the caller's). */
PS_EXPORT int ps_pipeline_run(const ps_pipeline_ops *ops, const ps_pipeline_opts *opts,
                              void (*discard)(void *ctx, void *job), ps_error *err);

/* ---- template learning over a reader (batch/learn_pass.c) --------------- */

/** A reader of inputs: fill @p in with the next one.  1 got one, 0 end, -1
 *  fatal (the run stops, err set).  Called from one thread (not the
 *  caller's).  ps_batch_run reads a ps_source through one. */
typedef int (*ps_batch_read_fn)(void *ctx, ps_input *in, ps_error *err);

/** The first pass of a batch's learn_templates, over any reader (the
 *  evaluation learns a data set's templates with it): read every input,
 *  parse it on the workers and add it to @p builder under its site key
 *  (ps_input_site) in input order (pages without a site are left out).
 *  Uses cfg's workers, site_rule and max_bytes.  *pages_added (may be NULL)
 *  counts the pages added.  Returns 0, 1 when cfg->interrupt stopped it,
 *  or -1 with err on a fatal read or builder error. */
PS_EXPORT int ps_batch_learn_templates(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                                       ps_template_builder *builder, size_t *pages_added, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_PIPELINE_H */
