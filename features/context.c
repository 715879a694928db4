/* features/context.c — context features for a second stage (stacking,
 * issue 14): what the first stage said about a block's neighbours.
 *
 * The first-stage SVM judges every block alone from its own row.  A caption
 * inside an article, a teaser list after it, a promo line between two
 * paragraphs look, alone, much like content; next to their neighbours'
 * scores they do not.  A second model reads the first one's decision values
 * of the blocks around each block (its parent, its siblings, the blocks
 * before and after it in reading order, the page's best) and decides again.
 *
 * One definition for training and inference: the items are the blocks that
 * have text of their own (the rows of pagesift-features, the blocks the
 * classifier scores), in document order; each item's parent is its nearest
 * enclosing item.  Training computes them from a block CSV (pagesift-classify
 * --context: parent from block_path, characters from inner_len), inference
 * from the page (methods/classifier_stack.c: parent from ps_block.parent);
 * both call ps_context_features with the same arrays.
 *
 * Every value is finite; scores are clipped to [-3, 3] first (beyond the
 * margin a decision value says nothing more), a missing neighbour counts
 * as CTX_NONE (a clear "noise" value, as the page's edges mostly are). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift.h"
#include "pagesift/features.h"

#define CTX_CLIP PS_CONTEXT_CLIP
#define CTX_NONE (-1.0)
#define CTX_WINDOW 3 /* items before and after for c_window */

static const char *const NAMES[PS_CONTEXT_FEATURES] = {
    "c_self",      /* the block's own first-stage score */
    "c_parent",    /* its parent item's score */
    "c_siblings",  /* mean score of the other items of its parent, weighed by characters */
    "c_prev",      /* the item before it in reading order */
    "c_next",      /* the item after it */
    "c_window",    /* mean score of the 3 items before and the 3 after, by characters */
    "c_page_max",  /* the page's best score */
    "c_gap",       /* its score minus the page's best */
    "c_core",      /* share of the page's content-scored characters inside its parent's subtree */
    "c_pos_share", /* share of the page's characters scored content */
    "c_sub_pos",   /* share of its own subtree's characters scored content */
};

const char *ps_context_feature_name(size_t k)
{
    return k < PS_CONTEXT_FEATURES ? NAMES[k] : NULL;
}

int ps_context_feature_index(const char *name)
{
    if (!name)
        return -1;
    for (size_t k = 0; k < PS_CONTEXT_FEATURES; k++)
        if (strcmp(NAMES[k], name) == 0)
            return (int)k;
    return -1;
}

static double clip(double s)
{
    if (!isfinite(s))
        return s > 0 ? CTX_CLIP : -CTX_CLIP; /* NaN too: not content */
    return s < -CTX_CLIP ? -CTX_CLIP : s > CTX_CLIP ? CTX_CLIP : s;
}

/* 12 bytes an item beside the caller's arrays: the character sums are
 * whole numbers below 2^32 (a page's characters, each item at least 1),
 * kept as such and read as doubles, which is exactly what summing them as
 * doubles gave; the scores are clipped when read. */
struct ps_context {
    size_t n;
    const int32_t *parent; /* the caller's */
    const uint32_t *chars;
    const double *score;
    uint32_t *sub_chars; /* subtree characters */
    uint32_t *sub_pos;   /* of which scored content */
    uint32_t *sib_w;     /* per parent: children's chars */
    double *sib_ws;      /* and chars * score */
    double root_w, root_ws; /* the same for items without a parent */
    double page_max, page_chars, page_pos;
};

void ps_context_free(ps_context *cx)
{
    if (!cx)
        return;
    free(cx->sub_chars);
    free(cx->sub_pos);
    free(cx->sib_w);
    free(cx->sib_ws);
    free(cx);
}

ps_context *ps_context_new(size_t n, const int32_t *parent, const uint32_t *chars, const double *score)
{
    if (n && (!parent || !chars || !score))
        return NULL;
    ps_context *cx = calloc(1, sizeof *cx);
    if (!cx)
        return NULL;
    cx->n = n, cx->parent = parent, cx->chars = chars, cx->score = score;
    size_t m = n ? n : 1;
    cx->sub_chars = calloc(m, sizeof *cx->sub_chars);
    cx->sub_pos = calloc(m, sizeof *cx->sub_pos);
    cx->sib_w = calloc(m, sizeof *cx->sib_w);
    cx->sib_ws = calloc(m, sizeof *cx->sib_ws);
    if (!cx->sub_chars || !cx->sub_pos || !cx->sib_w || !cx->sib_ws) {
        ps_context_free(cx);
        return NULL;
    }
    uint32_t *sub_chars = cx->sub_chars, *sub_pos = cx->sub_pos;
    double page_max = -CTX_CLIP, page_chars = 0, page_pos = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        double si = clip(score[i]);
        uint32_t c = chars[i] ? chars[i] : 1;
        if ((total += c) > UINT32_MAX) { /* more characters than a page has */
            ps_context_free(cx);
            return NULL;
        }
        page_max = si > page_max ? si : page_max;
        page_chars += c;
        page_pos += si > 0 ? c : 0;
        sub_chars[i] = c;
        sub_pos[i] = si > 0 ? c : 0;
        int32_t p = parent[i];
        if (p >= 0 && (size_t)p < i) {
            cx->sib_w[p] += c;
            cx->sib_ws[p] += c * si;
        } else {
            cx->root_w += c;
            cx->root_ws += c * si;
        }
    }
    /* subtree sums: children come after their parent in document order */
    for (size_t i = n; i-- > 0;) {
        int32_t p = parent[i];
        if (p >= 0 && (size_t)p < i) {
            sub_chars[p] += sub_chars[i];
            sub_pos[p] += sub_pos[i];
        }
    }
    cx->page_max = page_max, cx->page_chars = page_chars, cx->page_pos = page_pos;
    return cx;
}

void ps_context_item(const ps_context *cx, size_t i, double *o)
{
    const double *score = cx->score;
    const uint32_t *chars = cx->chars;
    size_t n = cx->n;
    double c = chars[i] ? chars[i] : 1, si = clip(score[i]);
    int32_t p = cx->parent[i];
    int has_p = p >= 0 && (size_t)p < i;
    double w = (has_p ? (double)cx->sib_w[p] : cx->root_w) - c, ws = (has_p ? cx->sib_ws[p] : cx->root_ws) - c * si;
    double win_w = 0, win_ws = 0;
    for (size_t j = i >= CTX_WINDOW ? i - CTX_WINDOW : 0; j <= i + CTX_WINDOW && j < n; j++)
        if (j != i) {
            double cj = chars[j] ? chars[j] : 1;
            win_w += cj;
            win_ws += cj * clip(score[j]);
        }
    o[0] = si;
    o[1] = has_p ? clip(score[p]) : CTX_NONE;
    o[2] = w > 0.5 ? ws / w : si;
    o[3] = i > 0 ? clip(score[i - 1]) : CTX_NONE;
    o[4] = i + 1 < n ? clip(score[i + 1]) : CTX_NONE;
    o[5] = win_w > 0 ? win_ws / win_w : CTX_NONE;
    o[6] = cx->page_max;
    o[7] = si - cx->page_max;
    o[8] = cx->page_pos > 0 ? (has_p ? (double)cx->sub_pos[p] : cx->page_pos) / cx->page_pos : 0;
    o[9] = cx->page_pos / cx->page_chars;
    o[10] = (double)cx->sub_pos[i] / (double)cx->sub_chars[i];
}

int ps_context_features(size_t n, const int32_t *parent, const uint32_t *chars, const double *score,
                        double *out)
{
    if (n == 0)
        return 0;
    if (!parent || !chars || !score || !out)
        return -1;
    ps_context *cx = ps_context_new(n, parent, chars, score);
    if (!cx)
        return -1;
    for (size_t i = 0; i < n; i++)
        ps_context_item(cx, i, out + i * PS_CONTEXT_FEATURES);
    ps_context_free(cx);
    return 0;
}
