/* common/progress.h — progress of long jobs on stderr, only when stderr is
 * a terminal and not quiet.  One line, redrawn:
 *   total known:   1234/5000 pages 24.7%, 85.3/s, 0m44s left, 3 failed
 *   by bytes:      1234 pages, 85.3/s, 120/500 MB 24.0%, 1m20s left, 3 failed
 *   unknown:       1234 pages, 85.3/s, 3 failed */
#ifndef PS_PROGRESS_H
#define PS_PROGRESS_H
#include <stddef.h>
#include <stdint.h>

typedef struct ps_progress ps_progress;

/** @p what names the unit ("pages", "grid points"); @p total 0 if unknown;
 *  @p quiet 1 silences it (--quiet).  Thread-safe updates. */
ps_progress *ps_progress_new(const char *what, size_t total, int quiet);
/** When the count total is unknown but the input's size is (a WARC file):
 *  percentage and time left from bytes (ps_progress_report's bytes_done). */
void ps_progress_set_bytes(ps_progress *p, uint64_t total_bytes);
/** Report @p done units so far; @p extra (may be NULL) is appended to the
 *  line.  Redraws at most 5 times a second. */
void ps_progress_update(ps_progress *p, size_t done, const char *extra);
/** The same with the failures so far (shown when the count or the size is
 *  known, or when not 0) and the input bytes read (by-bytes mode). */
void ps_progress_report(ps_progress *p, size_t done, size_t failed, uint64_t bytes_done);
/** Clear the line and free. */
void ps_progress_done(ps_progress *p);
#endif
