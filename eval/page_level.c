/* eval/page_level.c — the page-level grades of the text-block paper
 * (METHODS.md §5): a page is "qualified" when all its text was found and
 * noise is at most 5 % of the output, "excellent" when noise is below 2 %.
 * Reading used: "all text found" = single-token multiset recall >= 0.98
 * (tokens of ps_tokenize; 0.98 rather than 1.0 so that a stray token of
 * markup difference does not fail a page); noise = output tokens not matched
 * in the gold's token multiset / output tokens, i.e. 1 - token precision. */
#include "pagesift.h"
#include "pagesift/eval.h"

ps_page_grade ps_page_grade_of(const ps_match *m1)
{
    ps_page_grade g;
    uint64_t out = m1->tp + m1->fp, gold = m1->tp + m1->fn;
    g.recall = gold ? (double)m1->tp / (double)gold : 1.0;
    g.noise = out ? (double)m1->fp / (double)out : 0.0;
    g.qualified = g.recall >= PS_QUALIFIED_RECALL && g.noise <= PS_QUALIFIED_NOISE;
    g.excellent = g.qualified && g.noise < PS_EXCELLENT_NOISE;
    return g;
}
