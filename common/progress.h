/* common/progress.h — progress of long jobs on stderr (pages done, rate,
 * time left), only when stderr is a terminal and not quiet. */
#ifndef PS_PROGRESS_H
#define PS_PROGRESS_H
#include <stddef.h>

typedef struct ps_progress ps_progress;

/** @p what names the unit ("pages", "grid points"); @p total 0 if unknown;
 *  @p quiet 1 silences it (--quiet).  Thread-safe updates. */
ps_progress *ps_progress_new(const char *what, size_t total, int quiet);
/** Report @p done units so far; @p extra (may be NULL) is appended to the
 *  line.  Redraws at most 5 times a second. */
void ps_progress_update(ps_progress *p, size_t done, const char *extra);
/** Clear the line and free. */
void ps_progress_done(ps_progress *p);
#endif
