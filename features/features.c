/* features/features.c — block features by name.
 *
 * R1-R5 are the paper's (template-svm-denoising, METHODS.md §1.2): for a
 * block's own content (nested blocks excluded) against the page totals, with
 * add-one smoothing in every denominator:
 *   R1 = innerLen / (outerLen + 1)           outer text ratio
 *   R2 = innerLinkLen / (outerLinkLen + 1)   link-text ratio
 *   R3 = innerLinkNum / (outerLinkNum + 1)   link-count ratio
 *   R4 = innerPicNum / (outerPicNum + 1)     image-count ratio
 *   R5 = innerLinkLen / (innerLen + 1)       inner link density */
#include <string.h>

#include "pagesift.h"

typedef double (*feature_fn)(const ps_page *pg, const ps_block *b, ps_counts tot);

static double r1(const ps_page *pg, const ps_block *b, ps_counts t)
{
    (void)pg;
    return (double)b->own.text_chars / ((double)t.text_chars + 1);
}
static double r2(const ps_page *pg, const ps_block *b, ps_counts t)
{
    (void)pg;
    return (double)b->own.link_chars / ((double)t.link_chars + 1);
}
static double r3(const ps_page *pg, const ps_block *b, ps_counts t)
{
    (void)pg;
    return (double)b->own.links / ((double)t.links + 1);
}
static double r4(const ps_page *pg, const ps_block *b, ps_counts t)
{
    (void)pg;
    return (double)b->own.images / ((double)t.images + 1);
}
static double r5(const ps_page *pg, const ps_block *b, ps_counts t)
{
    (void)pg;
    (void)t;
    return (double)b->own.link_chars / ((double)b->own.text_chars + 1);
}

static const struct {
    const char *name;
    feature_fn fn;
} FEATURES[] = {
    {"R1", r1}, {"R2", r2}, {"R3", r3}, {"R4", r4}, {"R5", r5},
};
#define N_FEATURES (sizeof FEATURES / sizeof FEATURES[0])

size_t ps_feature_count(void)
{
    return N_FEATURES;
}

const char *ps_feature_name(size_t id)
{
    return id < N_FEATURES ? FEATURES[id].name : NULL;
}

int ps_feature_lookup(const char *name)
{
    for (size_t i = 0; i < N_FEATURES; i++)
        if (strcmp(FEATURES[i].name, name) == 0)
            return (int)i;
    return -1;
}

int ps_page_block_features(const ps_page *pg, const int *ids, size_t n_ids, double *out)
{
    size_t nb;
    const ps_block *blocks = ps_page_blocks(pg, &nb);
    ps_counts tot = ps_page_totals(pg);
    for (size_t k = 0; k < n_ids; k++)
        if (ids[k] < 0 || (size_t)ids[k] >= N_FEATURES)
            return -1;
    for (size_t b = 0; b < nb; b++)
        for (size_t k = 0; k < n_ids; k++)
            out[b * n_ids + k] = FEATURES[ids[k]].fn(pg, &blocks[b], tot);
    return 0;
}
