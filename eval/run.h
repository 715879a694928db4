/* eval/run.h — the evaluation driver (eval/run.c, eval/report.c,
 * eval/chart.c), declared in the public include/pagesift/eval.h. */
#ifndef PS_EVAL_RUN_H
#define PS_EVAL_RUN_H

#include <jansson.h>

#include "common/util.h"
#include "features/snippets.h"
#include "methods/method.h"
#include "pagesift/eval.h"

#endif
