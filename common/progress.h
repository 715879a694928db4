/* common/progress.h — progress of long jobs on stderr: declared in the
 * public include/pagesift/util.h (tools use it). */
#ifndef PS_PROGRESS_H
#define PS_PROGRESS_H
#include "pagesift/util.h"
#endif
