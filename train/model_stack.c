/* train/model_stack.c — a stacked model's second stage read from its
 * bundle: its gate and where each of its features comes from (the first
 * stage's row or the context features of features/context.c), and a
 * second-stage row made by that map.  Inference (methods/classifier_stack.c)
 * and per-site training (train/site_train.c) both go through here. */
#include <math.h>
#include <stdlib.h>

#include "pagesift.h"
#include "pagesift/features.h"
#include "pagesift/model.h"

double ps_model_stack_gate(const ps_model *second)
{
    /* the scale_min of c_self: the lowest (clipped) first-stage score among
     * the second stage's labelled training rows */
    const int *ids = ps_model_feature_ids(second);
    const char *mins = ps_model_info(second, "scale_min");
    size_t n = ps_model_n_features(second);
    for (size_t k = 0; mins && k < n; k++) {
        if (ids[k] == PS_CONTEXT_FEATURE_ID + 0) {
            const char *p = mins; /* numbers separated by spaces */
            char *end;
            double v = -PS_CONTEXT_CLIP;
            for (size_t j = 0; j <= k; j++, p = end) {
                v = strtod(p, &end);
                if (end == p)
                    return -PS_CONTEXT_CLIP;
            }
            return v;
        }
    }
    return -PS_CONTEXT_CLIP;
}

int ps_stack_gated(double first_score, double gate)
{
    /* the score clipped as the context features clip it (NaN: not content) */
    double s = first_score;
    if (!isfinite(s))
        s = s > 0 ? PS_CONTEXT_CLIP : -PS_CONTEXT_CLIP;
    else
        s = s < -PS_CONTEXT_CLIP ? -PS_CONTEXT_CLIP : s > PS_CONTEXT_CLIP ? PS_CONTEXT_CLIP : s;
    return s < gate;
}

int ps_context_sources(const ps_model *second, const int *first_ids, size_t n_first, int *src)
{
    const int *ids = ps_model_feature_ids(second);
    for (size_t k = 0; k < ps_model_n_features(second); k++) {
        if (ids[k] >= PS_CONTEXT_FEATURE_ID) {
            src[k] = -1 - (ids[k] - PS_CONTEXT_FEATURE_ID);
            continue;
        }
        size_t j = 0;
        while (j < n_first && first_ids[j] != ids[k])
            j++;
        if (j == n_first)
            return -1;
        src[k] = (int)j;
    }
    return 0;
}

void ps_context_row(const int *src, size_t n, const double *first_row, const double *context,
                    double *row)
{
    for (size_t k = 0; k < n; k++)
        row[k] = src[k] >= 0 ? first_row[src[k]] : context[-1 - src[k]];
}
