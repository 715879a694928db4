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
 * comments (on/off): content blocks whose class/id, or an enclosing block's,
 *   holds a comment word (comment, repl..., respond, discuss, disqus:
 *   features x_attr_comment, x_anc_comment) become noise, unless the
 *   headline is theirs (x_head_dist 0).  Comments are noise by pagesift's
 *   definition, but CleanEval's and Readability's gold keep them (96 % and
 *   63 % of the characters in such blocks), so a model trained on those
 *   keeps dragnet's comment threads (551 000 characters wrongly kept, held
 *   out): dragnet +0.020 token F1 at block level, other sets +-0.000.
 * fallback (on/off): when the SVM keeps no block of a page that has text,
 *   the block it scored highest is kept (run first, so the other passes see
 *   it): CleanEval's table pages otherwise come out empty (12 of 730 pages
 *   with the p/td/table blocks), each scoring P = R = 0.
 *
 * focus + headline, template-svm held out (docs/QUALITY.md): token F1 +0.004
 * dragnet, +0.015 l3s-gn1, +0.001 cleaneval, +0.005 cleanportaleval, +0.004
 * netease.  Both run in O(blocks) with one array per page. */
#include <math.h>
#include <stdint.h>
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

/* Feature rows with the @p k features @p names: the caller's (@p feat,
 * n_feat values a block, features @p ids) when they hold all of them, else
 * computed into @p tmp (k * blocks doubles).  Sets the row stride and each
 * name's column; returns NULL when they cannot be had. */
static const double *rows_with(const ps_page *page, const double *feat, size_t n_feat,
                               const int *ids, const char *const *names, size_t k, double *tmp,
                               size_t *stride, size_t *col)
{
    int want[4];
    size_t found = 0;
    for (size_t w = 0; w < k; w++) {
        want[w] = ps_feature_lookup(names[w]);
        if (want[w] < 0)
            return NULL;
        col[w] = SIZE_MAX;
        for (size_t c = 0; feat && ids && c < n_feat && col[w] == SIZE_MAX; c++)
            if (ids[c] == want[w])
                col[w] = c;
        found += col[w] != SIZE_MAX;
    }
    if (found == k) {
        *stride = n_feat;
        return feat;
    }
    if (ps_page_block_features(page, want, k, tmp) < 0)
        return NULL;
    for (size_t w = 0; w < k; w++)
        col[w] = w;
    *stride = k;
    return tmp;
}

/* The headline pass reads x_heading and x_title_words of the blocks before
 * the first content block. */
static void headline(const ps_page *page, size_t n, uint8_t *keep, double *tmp, const double *feat,
                     size_t n_feat, const int *ids)
{
    size_t first = 0;
    while (first < n && !keep[first])
        first++;
    if (first == 0)
        return; /* no block before the first content block */
    static const char *const names[2] = {"x_heading", "x_title_words"};
    size_t stride, c[2];
    const double *f = rows_with(page, feat, n_feat, ids, names, 2, tmp, &stride, c);
    if (!f)
        return;
    for (size_t i = first; i-- > 0;)
        if (f[stride * i + c[0]] >= 1.0 && f[stride * i + c[1]] >= 0.5) {
            keep[i] = 1;
            break;
        }
}

/* The comments pass: content blocks with a comment word in their class/id
 * or an enclosing block's, other than the headline's block, become noise. */
static void comments(const ps_page *page, size_t n, uint8_t *keep, double *tmp, const double *feat,
                     size_t n_feat, const int *ids)
{
    size_t i = 0;
    while (i < n && !keep[i])
        i++;
    if (i == n)
        return;
    static const char *const names[3] = {"x_attr_comment", "x_anc_comment", "x_head_dist"};
    size_t stride, c[3];
    const double *f = rows_with(page, feat, n_feat, ids, names, 3, tmp, &stride, c);
    if (!f)
        return;
    for (; i < n; i++)
        if (keep[i] && (f[stride * i + c[0]] != 0 || f[stride * i + c[1]] != 0) &&
            f[stride * i + c[2]] > 0)
            keep[i] = 0;
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
    if (n == 0)
        return 0;
    double *tmp = NULL;
    if ((p->comments || p->focus > 0 || p->headline) && !(tmp = malloc(3 * n * sizeof *tmp)))
        return -1;
    if (p->comments)
        comments(page, n, keep, tmp, feat, n_feat, ids);
    if (p->fallback && score)
        fallback(n, keep, score); /* before focus/headline: they then see it */
    if (p->focus > 0)
        focus(page, b, n, p->focus, keep, tmp);
    if (p->headline)
        headline(page, n, keep, tmp, feat, n_feat, ids);
    free(tmp);
    return 0;
}

int ps_block_passes_run(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                        const double *score)
{
    return ps_block_passes_run_feat(page, p, keep, score, NULL, 0, NULL);
}
