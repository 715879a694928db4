/* methods/block_passes.c — second passes over the SVM's block classes
 * (issue 9: "a second pass that smooths labels of neighbouring blocks",
 * "title detection, so the headline is kept").  The SVM judges each block
 * alone; these passes use the page around it.
 *
 * focus (parameter: share, default 0.7): the content characters of every
 *   block are summed up the block tree; from the root (body) the pass walks
 *   down to a child block as long as one holds at least `share` of all the
 *   page's content characters, and drops content outside the block where it
 *   stops.  Comment threads, "related" teasers and footers that the SVM
 *   takes for text sit outside the article's container.  0.85 is the share
 *   no set lost with (0.7 cost netease and dragnet 0.01).
 * headline (on/off): among the blocks before the first content block, the
 *   last one with an h1..h6 leaf whose word tokens are at least half words of
 *   the page's <title> (feature x_title_words >= 0.5) becomes content: the
 *   article's headline, which the SVM often drops as a short block.
 *
 * fallback (on/off): when the SVM keeps no block of a page that has text,
 *   the block it scored highest is kept (run first, so the other passes see
 *   it): CleanEval's table pages otherwise come out empty (12 of 730 pages
 *   with the p/td/table blocks), each scoring P = R = 0.
 *
 * focus + headline, template-svm held out (docs/QUALITY.md): token F1 +0.004
 * dragnet, +0.015 l3s-gn1, +0.001 cleaneval, +0.005 cleanportaleval, +0.004
 * netease.  Both run in O(blocks) with one array per page. */
#include <math.h>
#include <stdlib.h>

#include "methods/block_passes.h"

static void focus(const ps_page *page, const ps_block *b, size_t n, double share, uint8_t *keep,
                  double *mass)
{
    for (size_t i = 0; i < n; i++)
        mass[i] = keep[i] ? (double)b[i].own.text_chars : 0.0;
    for (size_t i = n; i-- > 1;) /* pre-order: children after their parent */
        if (b[i].parent >= 0)
            mass[b[i].parent] += mass[i];
    double total = mass[0];
    if (total <= 0)
        return;
    size_t cur = 0;
    for (;;) {
        size_t end = ps_block_subtree_end(page, cur), next = 0;
        for (size_t c = cur + 1; c < end; c = ps_block_subtree_end(page, c))
            if (mass[c] >= share * total) {
                next = c;
                break;
            }
        if (!next)
            break;
        cur = next;
    }
    size_t end = ps_block_subtree_end(page, cur);
    for (size_t i = 0; i < n; i++)
        if (i < cur || i >= end)
            keep[i] = 0;
}

/* The headline pass reads x_heading and x_title_words of the blocks before
 * the first content block: from the caller's feature rows (cols[] say
 * where) when it has them, else computed here into tmp. */
static void headline(const ps_page *page, size_t n, uint8_t *keep, double *tmp, const double *feat,
                     size_t n_feat, const int cols[2])
{
    size_t first = 0;
    while (first < n && !keep[first])
        first++;
    if (first == 0)
        return; /* no block before the first content block */
    size_t stride = n_feat, c0 = (size_t)cols[0], c1 = (size_t)cols[1];
    if (!feat || cols[0] < 0 || cols[1] < 0) {
        int ids[2] = {ps_feature_lookup("x_heading"), ps_feature_lookup("x_title_words")};
        if (ids[0] < 0 || ids[1] < 0 || ps_page_block_features(page, ids, 2, tmp) < 0)
            return;
        feat = tmp;
        stride = 2;
        c0 = 0;
        c1 = 1;
    }
    for (size_t i = first; i-- > 0;)
        if (feat[stride * i + c0] >= 1.0 && feat[stride * i + c1] >= 0.5) {
            keep[i] = 1;
            break;
        }
}

/* Keep the best-scored block when nothing is kept. */
static void fallback(size_t n, uint8_t *keep, const double *score)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (keep[i])
            return;
        if (!isnan(score[i]) && (best == n || score[i] > score[best]))
            best = i;
    }
    if (best < n)
        keep[best] = 1;
}

int ps_block_passes_run_feat(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                             const double *score, const double *feat, size_t n_feat,
                             const int *ids)
{
    size_t n = 0;
    const ps_block *b = ps_page_blocks(page, &n);
    if (n && p->fallback && score)
        fallback(n, keep, score); /* before focus/headline: they then see it */
    if (n == 0 || (p->focus <= 0 && !p->headline))
        return 0;
    double *tmp = malloc(2 * n * sizeof *tmp);
    if (!tmp)
        return -1;
    if (p->focus > 0)
        focus(page, b, n, p->focus, keep, tmp);
    if (p->headline) {
        int cols[2] = {-1, -1};
        int want[2] = {ps_feature_lookup("x_heading"), ps_feature_lookup("x_title_words")};
        for (size_t k = 0; feat && ids && k < n_feat; k++)
            for (int w = 0; w < 2; w++)
                if (want[w] >= 0 && ids[k] == want[w] && cols[w] < 0)
                    cols[w] = (int)k;
        headline(page, n, keep, tmp, feat, n_feat, cols);
    }
    free(tmp);
    return 0;
}

int ps_block_passes_run(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                        const double *score)
{
    return ps_block_passes_run_feat(page, p, keep, score, NULL, 0, NULL);
}
