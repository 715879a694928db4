/* train/train_internal.h — the inside of ps_train_data and the seeded
 * generator, shared by the CSV reader (data.c), the grid search (grid.c),
 * the reports (report.c) and the trainers of page types and site models;
 * the inside of ps_model is train/model_internal.h.  Not a public
 * interface. */
#ifndef PS_TRAIN_INTERNAL_H
#define PS_TRAIN_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/model.h"
#include "pagesift/train.h"
#include "train/model_internal.h"

struct ps_train_data {
    size_t n_rows, n_features;
    double *x;          /* n_rows * n_features, raw values, row-major */
    int8_t *y;          /* 1 content, 0 noise */
    uint32_t *group;    /* group id of each row, 0..n_groups-1 */
    size_t n_groups;
    size_t n_content, n_noise, unlabelled;
    char *features;     /* comma-separated names */
    char *files;        /* base names of the CSVs, space-separated */
    char *block_tags;   /* the rows' block tags (the bundle's block_tags) */
    size_t untagged;    /* labelled rows without a block_tags record */
    char *untagged_files; /* their CSVs' base names, space-separated */
    ps_train_group grouping;
    uint64_t checksum;
};

/* splitmix64: the seeded generator behind every random choice in training
 * (balancing, fold assignment, CV sampling), so results are reproducible on
 * every platform. */
static inline uint64_t ps_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in 0..n-1 (n > 0). */
static inline size_t ps_rng_below(uint64_t *s, size_t n)
{
    return (size_t)(ps_rng_next(s) % n);
}

/* ps_site_model_train (include/pagesift/site_models.h) that also gives,
 * when @p full is not NULL, the same site model as a whole bundle (every
 * support vector written out, as site models were before deltas): tests
 * check that both give the same decision values. */
struct ps_site_train_options;
struct ps_site_train_report;
ps_model *ps_site_model_train_ex(const ps_model *base, const char *base_name, const char *site,
                                 const double *x, const int8_t *y, const uint32_t *page, size_t n_rows,
                                 const struct ps_site_train_options *o, struct ps_site_train_report *rep,
                                 ps_model **full, ps_error *err);

#endif
