/* features/gold_align.h — alignment of a page's leaf text with its gold text
 * (the automatic labels of the block CSV, features/export.c, and the leaf-level figures of
 * the evaluation). */
#ifndef PS_GOLD_ALIGN_H
#define PS_GOLD_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

/** Per-leaf result of an alignment, in characters of word tokens (the
 *  tokens of ps_tokenize; punctuation and spaces count in neither). */
typedef struct ps_leaf_align {
    uint32_t matched;  /**< characters of the leaf's tokens aligned with gold */
    uint32_t total;    /**< characters of all the leaf's tokens */
} ps_leaf_align;

/** Align the tokens of every leaf (removed ones included, in reading
 *  order: the page's text runs as ps_page_text joins them) with the tokens of @p gold: an LCS of the two token sequences,
 *  tokens compared case-insensitively (ASCII).  Fills out[leaf] for every
 *  leaf; *gold_total / *gold_matched (may be NULL) receive the characters
 *  of gold tokens and of those aligned with the page.  Returns 0 or -1 (out
 *  of memory). */
int ps_gold_align_leaves(const ps_page *page, const char *gold, size_t gold_len,
                         ps_leaf_align *out, uint64_t *gold_total, uint64_t *gold_matched);

/** The LCS core, exposed for tests: sets ma[i] = 1 and mb[j] = 1 for the
 *  tokens a[i], b[j] aligned with each other (both arrays zeroed first by
 *  the caller).  Exact LCS (dynamic programming) on ranges of
 *  up to 64K cells; larger ranges are split at tokens unique in both ranges
 *  (patience anchors, longest increasing chain) first. */
int ps_lcs_mark(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint8_t *ma,
                uint8_t *mb);

#endif
