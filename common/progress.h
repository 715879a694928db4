/* common/progress.h — progress of long jobs on stderr, only when stderr is
 * a terminal and not quiet; declared in the public include/pagesift/util.h
 * (the tools use it).  One line, redrawn:
 *   total known:   1234/5000 pages 24.7%, 85.3/s, 0m44s left, 3 failed
 *   by bytes:      1234 pages, 85.3/s, 120/500 MB 24.0%, 1m20s left, 3 failed
 *   unknown:       1234 pages, 85.3/s, 3 failed */
#ifndef PS_PROGRESS_H
#define PS_PROGRESS_H
#include "pagesift/util.h"
#endif
