/* templates/measure.h — how much gold and non-gold leaf text a library
 * removes (the measurement of issue 3), for pagesift-template eval. */
#ifndef PS_TPL_MEASURE_H
#define PS_TPL_MEASURE_H
#include <stdio.h>

#include "pagesift.h"

/** Text normalised for the gold test: NFKC case-folded, whitespace
 *  collapsed to single spaces.  malloc'ed, NULL when out of memory. */
char *tpl_normalise(const char *s, size_t n, size_t *out_len);

/** How a leaf is found to be gold. */
typedef enum tpl_gold_test {
    /** the page's tokens (ps_tokenize, after normalisation) are aligned with
     *  the gold's tokens (longest common subsequence, in order); a leaf is
     *  gold when at least half of its tokens are aligned — the default: a
     *  navigation link "News" is not gold because the word occurs somewhere
     *  in the article */
    TPL_GOLD_ALIGN = 2,
    /** every text node of the leaf occurs in the normalised gold (a
     *  paragraph with an inline link has its own text cut around the link;
     *  its pieces are tested one by one) — the default */
    TPL_GOLD_RUNS = 0,
    /** the leaf's own text (pieces joined) occurs in the normalised gold */
    TPL_GOLD_LEAF_TEXT = 1
} tpl_gold_test;

/** Per leaf of @p page: 1 when it is gold by @p test. */
int tpl_gold_leaves(const ps_page *page, const char *gold_norm, size_t gold_len, tpl_gold_test test,
                    uint8_t *is_gold);

/** Character tallies. */
typedef struct tpl_tally {
    uint64_t gold, gold_removed, other, other_removed;
    uint64_t gold_by[8], other_by[8]; /**< characters by ps_template_verdict */
} tpl_tally;

/** Add a page's leaves to @p t: m = the matcher's verdicts; @p lost, if not
 *  NULL, gets one line per removed gold leaf (site, tag, text); @p residue
 *  one per non-gold leaf left in place. */
void tpl_tally_page(tpl_tally *t, const ps_page *page, const uint8_t *is_gold,
                    const ps_template_match *m, FILE *lost, FILE *residue, const char *site, const char *id);
#endif
