/*
 * pagesift/util.h — helpers for programs built over libpagesift, the ones
 * its own tools and the research library use: error reports, the
 * library's messages, a growable buffer, whole-file reads, atomic writes, a
 * progress line, comma lists.  Not needed to extract text
 * (include/pagesift.h is); here so that a tool needs no internal header.
 */
#ifndef PAGESIFT_UTIL_H
#define PAGESIFT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PS_PRINTF(a, b)
#endif

/** Fill err (if not NULL) with code and a formatted message; returns -1. */
PS_EXPORT int ps_set_error(ps_error *err, ps_status code, const char *fmt, ...) PS_PRINTF(3, 4);

/** A message of the library (a line without newline; printf's format) to
 *  the function of ps_set_print_function (pagesift.h), else to standard
 *  error: how the library and the research library report a run's notes
 *  and warnings. */
PS_EXPORT void ps_print(const char *fmt, ...) PS_PRINTF(1, 2);

/** Growable byte buffer, always NUL-terminated once anything was appended.
 *  Zero-initialise; release with ps_buf_free. */
typedef struct ps_buf {
    char *data;
    size_t len;
    size_t cap;
} ps_buf;

/** Ensure room for @p extra more bytes plus a NUL; returns 0 or -1 (ENOMEM). */
PS_EXPORT int ps_buf_reserve(ps_buf *b, size_t extra);
PS_EXPORT int ps_buf_append(ps_buf *b, const void *data, size_t n);
PS_EXPORT int ps_buf_putc(ps_buf *b, char c);
PS_EXPORT int ps_buf_printf(ps_buf *b, const char *fmt, ...) PS_PRINTF(2, 3);
/** Hand the data to the caller (NUL-terminated, possibly NULL if empty). */
PS_EXPORT char *ps_buf_take(ps_buf *b, size_t *len);
PS_EXPORT void ps_buf_free(ps_buf *b);

/** Read a whole file (NUL appended, not counted).  Refuses files larger
 *  than max_bytes (0 = no limit) with PS_ERR_TOO_LARGE. */
PS_EXPORT char *ps_read_file(const char *path, size_t max_bytes, size_t *len, ps_error *err);

/** ps_read_file for the files the tools read as data (model bundles, site
 *  bundles, template libraries, a data set's index and gold texts): refuses,
 *  before reading a byte, anything that is not a regular file (a device such
 *  as /dev/zero would be read for ever, a FIFO would hang) with
 *  PS_ERR_FORMAT, "PATH: not a regular file, not WHAT" (@p what may be
 *  NULL).  Pages are read with ps_read_file: a pipe is a page's source too. */
PS_EXPORT char *ps_read_regular_file(const char *path, size_t max_bytes, const char *what, size_t *len,
                                     ps_error *err);

/** Write @p len bytes to @p path atomically: a temporary file in the same
 *  folder, fsync, rename. */
PS_EXPORT int ps_write_file_atomic(const char *path, const void *data, size_t len, ps_error *err);

/** Open a temporary file beside @p path for an atomic write; fill tmp_path
 *  (cap bytes).  Finish with ps_atomic_commit or ps_atomic_abort. */
PS_EXPORT FILE *ps_atomic_open(const char *path, char *tmp_path, size_t cap, ps_error *err);
PS_EXPORT int ps_atomic_commit(FILE *f, const char *tmp_path, const char *path, ps_error *err);
PS_EXPORT void ps_atomic_abort(FILE *f, const char *tmp_path);

/** Create @p dir and any missing parents (mkdir -p): 0, or -1 with errno
 *  set. */
PS_EXPORT int ps_mkdir_p(const char *dir);

/** Which clock ps_clock reads. */
typedef enum ps_clock_kind {
    PS_CLOCK_WALL = 0,        /**< monotonic wall clock: elapsed time */
    PS_CLOCK_PROCESS_CPU = 1, /**< CPU time of the process, all threads */
    PS_CLOCK_THREAD_CPU = 2   /**< CPU time of the calling thread */
} ps_clock_kind;

/** Seconds on clock @p k (differences of two readings are what matter). */
PS_EXPORT double ps_clock(ps_clock_kind k);

/** Split a list separated by commas (and spaces) in place into a
 *  NULL-terminated array of its items (free() the array, not the items);
 *  NULL when out of memory.  For options such as --block-tags. */
PS_EXPORT const char **ps_split_list(char *list);

/** Progress of a long job on stderr (units done, rate, time left), drawn
 *  only when stderr is a terminal and not quiet. */
typedef struct ps_progress ps_progress;

/** @p what names the unit ("pages", "grid points"); @p total 0 if unknown;
 *  @p quiet 1 silences it (--quiet).  Thread-safe updates. */
PS_EXPORT ps_progress *ps_progress_new(const char *what, size_t total, int quiet);
/** When the count total is unknown but the input's size is (a WARC file):
 *  percentage and time left from bytes (ps_progress_report's bytes_done). */
PS_EXPORT void ps_progress_set_bytes(ps_progress *p, uint64_t total_bytes);
/** Report @p done units so far; @p extra (may be NULL) is appended to the
 *  line.  Redraws at most 5 times a second. */
PS_EXPORT void ps_progress_update(ps_progress *p, size_t done, const char *extra);
/** The same with the failures so far (shown when the count or the size is
 *  known, or when not 0) and the input bytes read (by-bytes mode). */
PS_EXPORT void ps_progress_report(ps_progress *p, size_t done, size_t failed, uint64_t bytes_done);
/** Clear the line and free. */
PS_EXPORT void ps_progress_done(ps_progress *p);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_UTIL_H */
