/* eval/snippets.h — scoring a snippet set (trafilatura-eval layout) in
 * pagesift-eval: per page which snippets are present, summed tp/fn/fp/tn,
 * P, R, F1 (features/snippets.h has the rule), the table rows, the JSON and
 * the per-page report.  Hooked into eval/run.c and eval/report.c. */
#ifndef PS_EVAL_SNIPPETS_H
#define PS_EVAL_SNIPPETS_H

#include <stdio.h>

#include <jansson.h>

#include "eval/run.h"
#include "features/snippets.h"
#include "pagesift/dataset.h"

/** One page of a snippet set. */
typedef struct ps_eval_snip {
    ps_snippet_counts c;
    uint8_t *with_hit, *without_hit; /**< per snippet: 1 present */
    int failed;                      /**< no output (method failed, no file) */
} ps_eval_snip;

/** Allocate run->snip when run->ds is a snippet set.  0 or -1 (memory). */
int ps_eval_snip_init(ps_eval_run *run);
/** Score page @p i's output (NULL: failed).  0 or -1 (memory). */
int ps_eval_snip_page(ps_eval_run *run, size_t i, const char *text, size_t len);
/** Sum the pages into run->snip_sum. */
void ps_eval_snip_summarise(ps_eval_run *run);
void ps_eval_snip_clear(ps_eval_run *run);

/** The table row of a snippet run (and the legend after the table). */
void ps_eval_snip_print_row(FILE *f, const ps_eval_run *r);
void ps_eval_snip_legend(FILE *f);
/** The JSON object of a snippet run: pages, failed, empty_outputs,
 *  snippets {p, r, f1, tp, fn, fp, tn}, cpu_seconds, pages_per_s. */
json_t *ps_eval_snip_json(const ps_eval_run *r);
/* ps_eval_snip_report (the per-page report) is in the public pagesift/eval.h. */

#endif
