/* methods/block_passes.c — second passes over the SVM's block classes
 * (issue 9: "a second pass that smooths labels of neighbouring blocks",
 * "title detection, so the headline is kept").  The SVM judges each block
 * alone; these passes use the page around it.
 *
 * focus (parameter: share, default 0.85): the content characters of every
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
 * comments (on/off): content blocks whose class/id, or that of an element
 *   at most two levels above, holds a comment word (comment(s), reply,
 *   respond, discuss, disqus, kommentar: feature x_cls_comment >= 0.25)
 *   become noise, unless the headline is theirs (x_head_dist 0).  Until
 *   issue 14 any enclosing block counted, and a site-wide word on <body>
 *   ("use-disqus") dropped whole articles (held out: readability +0.013).  Comments are noise by pagesift's
 *   definition, but CleanEval's and Readability's gold keep them (96 % and
 *   63 % of the characters in such blocks), so a model trained on those
 *   keeps dragnet's comment threads (551 000 characters wrongly kept, held
 *   out): dragnet +0.020 token F1 at block level, other sets +-0.000.
 * fallback (on/off): when the SVM keeps no block of a page that has text,
 *   the block it scored highest is kept (run after comments, before the
 *   others, so they see it): CleanEval's table pages otherwise come out
 *   empty (12 of 730 pages with the p/td/table blocks), each scoring P = R = 0.
 * fill (margin, default 1.0): inside the container of the content (the
 *   deepest block holding >= 0.85 of the content characters, body when none
 *   does), blocks the SVM scored above -margin become content when at most
 *   half their own text is link text and the comments pass would not drop
 *   them.  The SVM judges each block alone, and the paragraphs of pages
 *   unlike its training pages (a list of applications with descriptions, a
 *   statistics bulletin in one long div) hover just below zero while the
 *   page's best paragraphs are kept; link lists and text outside the
 *   article's block stay out.  Held out, mean of five training seeds
 *   (docs/QUALITY.md): cleaneval +0.019, readability +0.016,
 *   cleanportaleval +0.005, dragnet +0.002, l3s-gn1 and netease -0.003.
 *
 * focus + headline, template-svm held out (docs/QUALITY.md): token F1 +0.004
 * dragnet, +0.015 l3s-gn1, +0.001 cleaneval, +0.005 cleanportaleval, +0.004
 * netease.  Order: comments, fallback, fill, focus, headline; all run in
 * O(blocks) with one array per page. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "methods/block_passes.h"

/* The deepest block holding at least @p share of the page's content
 * characters (the root, body, when no block below it does, or when nothing is
 * content); @p mass: scratch, one per block. */
static size_t container(const ps_page *page, const ps_block *b, size_t n, double share,
                        const uint8_t *keep, double *mass)
{
    for (size_t i = 0; i < n; i++)
        mass[i] = keep[i] ? (double)b[i].own.text_chars : 0.0;
    for (size_t i = n; i-- > 1;) /* pre-order: children after their parent */
        if (b[i].parent >= 0)
            mass[b[i].parent] += mass[i];
    double total = mass[0];
    size_t cur = 0;
    if (total <= 0)
        return cur;
    for (;;) {
        size_t end = ps_block_subtree_end(page, cur), next = 0;
        for (size_t c = cur + 1; c < end; c = ps_block_subtree_end(page, c))
            if (mass[c] >= share * total) {
                next = c;
                break;
            }
        if (!next)
            return cur;
        cur = next;
    }
}

static void focus(const ps_page *page, const ps_block *b, size_t n, double share, uint8_t *keep,
                  double *mass)
{
    size_t cur = container(page, b, n, share, keep, mass);
    if (cur == 0)
        return; /* the root holds everything */
    size_t end = ps_block_subtree_end(page, cur);
    for (size_t i = 0; i < n; i++)
        if (i < cur || i >= end)
            keep[i] = 0;
}

/* The fill pass: inside the container of the content (FILL_SHARE), blocks
 * scored above -margin whose own text is at most FILL_LINKS link text become
 * content. */
#define FILL_SHARE 0.85
#define FILL_LINKS 0.5
static void fill(const ps_page *page, const ps_block *b, size_t n, double margin, uint8_t *keep,
                 const double *score, const uint8_t *in_comments, double *mass)
{
    size_t cur = container(page, b, n, FILL_SHARE, keep, mass);
    size_t end = ps_block_subtree_end(page, cur);
    for (size_t i = cur; i < end; i++)
        if (!keep[i] && !(in_comments && in_comments[i]) && !isnan(score[i]) && score[i] > -margin &&
            b[i].own.link_chars <= FILL_LINKS * b[i].own.text_chars)
            keep[i] = 1;
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

/* A comment word on the block counts 1 in x_cls_comment, on its parent 0.5,
 * two levels up 0.25: the reach of the comments pass.  A comment word
 * anywhere above (the first rule) dropped whole articles on pages whose
 * <body> or outer wrapper carries one site-wide ("comments_on",
 * "use-disqus"); comment markup repeats its word at every level. */
#define COMMENT_REACH 0.25

/* The blocks in comment containers: a comment word in their class/id or
 * within two elements above, the headline's block excepted; @p in_comments gets one
 * flag per block.  Returns 0, or -1 when the features cannot be had. */
static int comment_blocks(const ps_page *page, size_t n, double *tmp, const double *feat,
                          size_t n_feat, const int *ids, uint8_t *in_comments)
{
    static const char *const names[2] = {"x_cls_comment", "x_head_dist"};
    size_t stride, c[2];
    const double *f = rows_with(page, feat, n_feat, ids, names, 2, tmp, &stride, c);
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++)
        in_comments[i] = f[stride * i + c[0]] >= COMMENT_REACH && f[stride * i + c[1]] > 0;
    return 0;
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
    uint8_t *in_comments = NULL;
    if ((p->comments || p->focus > 0 || p->headline || p->fill > 0) &&
        !(tmp = malloc(3 * n * sizeof *tmp + n)))
        return -1;
    if (p->comments) {
        in_comments = (uint8_t *)(tmp + 3 * n);
        if (comment_blocks(page, n, tmp, feat, n_feat, ids, in_comments) == 0) {
            for (size_t i = 0; i < n; i++)
                if (in_comments[i])
                    keep[i] = 0;
        } else {
            in_comments = NULL;
        }
    }
    if (p->fallback && score)
        fallback(n, keep, score); /* before the others: they then see it */
    if (p->fill > 0 && score)
        fill(page, b, n, p->fill, keep, score, in_comments, tmp);
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
