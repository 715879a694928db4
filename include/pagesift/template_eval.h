/*
 * pagesift/template_eval.h — how much gold and non-gold leaf text a
 * template library removes: the measurement behind `pagesift-template eval`
 * (docs/TEMPLATES.md).  Researchers' API; extraction needs only pagesift.h.
 */
#ifndef PAGESIFT_TEMPLATE_EVAL_H
#define PAGESIFT_TEMPLATE_EVAL_H
#include <stdio.h>

#include "pagesift.h"
#include "pagesift/templates.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Text normalised for the gold test: NFKC case-folded, whitespace
 *  collapsed to single spaces.  malloc'ed, NULL when out of memory. */
PS_LAB_EXPORT char *ps_template_normalise(const char *s, size_t n, size_t *out_len);

/** How a leaf is found to be gold. */
typedef enum ps_template_gold_test {
    /** the page's tokens (ps_tokenize, after normalisation) are aligned with
     *  the gold's tokens (longest common subsequence, in order); a leaf is
     *  gold when at least half of its tokens are aligned — the default: a
     *  navigation link "News" is not gold because the word occurs somewhere
     *  in the article */
    PS_TPL_GOLD_ALIGN = 2,
    /** every text node of the leaf occurs in the normalised gold (a
     *  paragraph with an inline link has its own text cut around the link;
     *  its pieces are tested one by one) — the default */
    PS_TPL_GOLD_RUNS = 0,
    /** the leaf's own text (pieces joined) occurs in the normalised gold */
    PS_TPL_GOLD_LEAF_TEXT = 1
} ps_template_gold_test;

/** Per leaf of @p page: 1 when it is gold by @p test. */
PS_LAB_EXPORT int ps_template_gold_leaves(const ps_page *page, const char *gold_norm, size_t gold_len, ps_template_gold_test test,
                    uint8_t *is_gold);

/** Character tallies. */
typedef struct ps_template_tally {
    uint64_t gold, gold_removed, other, other_removed;
    uint64_t gold_by[8], other_by[8]; /**< characters by ps_template_verdict */
} ps_template_tally;

/** Add a page's leaves to @p t: m = the matcher's verdicts; @p lost, if not
 *  NULL, gets one line per removed gold leaf (site, tag, text); @p residue
 *  one per non-gold leaf left in place. */
PS_LAB_EXPORT void ps_template_tally_page(ps_template_tally *t, const ps_page *page, const uint8_t *is_gold,
                    const ps_template_match *m, FILE *lost, FILE *residue, const char *site, const char *id);
#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_TEMPLATE_EVAL_H */
