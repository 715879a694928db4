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

int ps_context_features(size_t n, const int32_t *parent, const uint32_t *chars, const double *score,
                        double *out)
{
    if (n == 0)
        return 0;
    if (!parent || !chars || !score || !out)
        return -1;
    double *s = malloc(n * sizeof *s);
    double *sub_chars = calloc(n, sizeof *sub_chars); /* subtree characters */
    double *sub_pos = calloc(n, sizeof *sub_pos);     /* of which scored content */
    double *sib_w = calloc(n, sizeof *sib_w);         /* per parent: children's chars */
    double *sib_ws = calloc(n, sizeof *sib_ws);       /* and chars * score */
    double root_w = 0, root_ws = 0;                   /* the same for items without a parent */
    if (!s || !sub_chars || !sub_pos || !sib_w || !sib_ws) {
        free(s);
        free(sub_chars);
        free(sub_pos);
        free(sib_w);
        free(sib_ws);
        return -1;
    }
    double page_max = -CTX_CLIP, page_chars = 0, page_pos = 0;
    for (size_t i = 0; i < n; i++) {
        s[i] = clip(score[i]);
        double c = chars[i] ? chars[i] : 1;
        page_max = s[i] > page_max ? s[i] : page_max;
        page_chars += c;
        page_pos += s[i] > 0 ? c : 0;
        sub_chars[i] = c;
        sub_pos[i] = s[i] > 0 ? c : 0;
        int32_t p = parent[i];
        if (p >= 0 && (size_t)p < i) {
            sib_w[p] += c;
            sib_ws[p] += c * s[i];
        } else {
            root_w += c;
            root_ws += c * s[i];
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
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * PS_CONTEXT_FEATURES;
        double c = chars[i] ? chars[i] : 1;
        int32_t p = parent[i];
        int has_p = p >= 0 && (size_t)p < i;
        double w = (has_p ? sib_w[p] : root_w) - c, ws = (has_p ? sib_ws[p] : root_ws) - c * s[i];
        double win_w = 0, win_ws = 0;
        for (size_t j = i >= CTX_WINDOW ? i - CTX_WINDOW : 0; j <= i + CTX_WINDOW && j < n; j++)
            if (j != i) {
                double cj = chars[j] ? chars[j] : 1;
                win_w += cj;
                win_ws += cj * s[j];
            }
        o[0] = s[i];
        o[1] = has_p ? s[p] : CTX_NONE;
        o[2] = w > 0.5 ? ws / w : s[i];
        o[3] = i > 0 ? s[i - 1] : CTX_NONE;
        o[4] = i + 1 < n ? s[i + 1] : CTX_NONE;
        o[5] = win_w > 0 ? win_ws / win_w : CTX_NONE;
        o[6] = page_max;
        o[7] = s[i] - page_max;
        o[8] = page_pos > 0 ? (has_p ? sub_pos[p] : page_pos) / page_pos : 0;
        o[9] = page_pos / page_chars;
        o[10] = sub_pos[i] / sub_chars[i];
    }
    free(s);
    free(sub_chars);
    free(sub_pos);
    free(sib_w);
    free(sib_ws);
    return 0;
}
