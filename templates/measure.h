/* templates/measure.h — the template measurement (templates/measure.c),
 * declared in the public include/pagesift/template_eval.h. */
#ifndef PS_TPL_MEASURE_H
#define PS_TPL_MEASURE_H
#include "pagesift/template_eval.h"
#endif
