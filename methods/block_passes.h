/* methods/block_passes.h — second passes over a page's block classes, run
 * after the SVM has classified every block (issue 9; methods/block_passes.c
 * says what each does and what it was measured to give). */
#ifndef PS_BLOCK_PASSES_H
#define PS_BLOCK_PASSES_H

#include <stdint.h>

#include "pagesift.h"

/** Which passes run; zero = none. */
typedef struct ps_block_passes {
    /** Focus: keep content only inside the deepest block that holds at least
     *  this share of the page's content characters (0 = off; 0.85 measured best). */
    double focus;
    /** Headline: keep the heading block whose words are the page title's,
     *  the last such block before the first content block (0 = off). */
    int headline;
    /** Fallback: when no block is content after the other passes but the
     *  SVM scored blocks with text, keep the one it scored highest, so a
     *  page with text never comes out empty (0 = off). */
    int fallback;
    /** Comments: content blocks inside comment containers (class/id words
     *  comment, reply, respond, discuss, disqus) become noise, the
     *  headline's block excepted (0 = off). */
    int comments;
    /** Fill: inside the block holding >= 0.85 of the content characters,
     *  blocks the SVM scored above -fill whose own text is at most half link
     *  text become content (0 = off; 1.0 measured, docs/QUALITY.md). */
    double fill;
} ps_block_passes;

/** Default passes of the template-svm method. */
/** The fill pass's default margin. */
#define PS_BLOCK_PASSES_FILL 1.0
#define PS_BLOCK_PASSES_DEFAULT                                                                    \
    ((ps_block_passes){.focus = 0.85, .headline = 1, .fallback = 1, .comments = 1, .fill = PS_BLOCK_PASSES_FILL})

/** Run the passes on @p keep (one byte per block of @p page, ps_page_blocks
 *  order, non-zero = content); rewrites it in place.  @p score: the SVM's
 *  decision value per block, NaN for a block it did not score (no text);
 *  NULL = none (no fallback).  Returns 0, or -1 (out of memory; @p keep
 *  unchanged). */
int ps_block_passes_run(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                        const double *score);

/** The same, given the block features the caller has already computed for
 *  the page in its current state: @p feat holds @p n_feat values per block
 *  (ps_page_block_features order), the features @p ids.  When they include
 *  x_heading and x_title_words, headline reads them from there instead of
 *  computing the features of the page a second time; otherwise (or with
 *  @p feat NULL) this is ps_block_passes_run. */
int ps_block_passes_run_feat(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                             const double *score, const double *feat, size_t n_feat,
                             const int *ids);

#endif
