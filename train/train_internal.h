/* train/train_internal.h — the inside of ps_train_data and ps_model, shared
 * by the CSV reader (data.c), the bundle code (model.c), the grid search
 * (grid.c) and the reports (report.c).  Not a public interface. */
#ifndef PS_TRAIN_INTERNAL_H
#define PS_TRAIN_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/model.h"
#include "pagesift/train.h"

struct ps_train_data {
    size_t n_rows, n_features;
    double *x;          /* n_rows * n_features, raw values, row-major */
    int8_t *y;          /* 1 content, 0 noise */
    uint32_t *group;    /* group id of each row, 0..n_groups-1 */
    size_t n_groups;
    size_t n_content, n_noise, unlabelled;
    char *features;     /* comma-separated names */
    char *files;        /* base names of the CSVs, space-separated */
    ps_train_group grouping;
    uint64_t checksum;
};

#define PS_SV_CHUNK 64 /* support vectors a chunk: see train/predict.c */

struct ps_model {
    char *bundle;       /* the file's text, as saved */
    size_t bundle_len;
    size_t end_off;     /* where its end line ends: a second stage's bundle
                           may follow (ps_model_next_stage) */
    char *name;         /* file name for messages */
    /* header key-value pairs (pointers into keys_buf) */
    char *keys_buf;
    const char **keys, **vals;
    size_t n_keys;
    /* features */
    size_t n_features;
    int *ids;
    char *features;
    double *shift, *factor; /* scaled = (x - shift) * factor */
    /* the RBF decision function:
     * dec = sum_i coef[i] * exp(-gamma * |x - sv_i|^2) - rho, content when
     * sign * dec > 0 (libsvm's label order decides sign) */
    double gamma, rho;
    int content_first;  /* libsvm's label[0] == 1 */
    size_t n_sv;
    double *sv;         /* n_sv * n_features, dense */
    double *coef;
    /* the same, laid out for prediction (train/predict.c): chunks of
     * PS_SV_CHUNK support vectors, feature-major inside a chunk
     * (svt[(c * n_active + a) * PS_SV_CHUNK + j]), the last chunk padded
     * with zero vectors of coefficient 0 */
    float *svt;         /* single precision: see train/predict.c */
    double *coefp;
    size_t n_chunks;
    /* the features svt holds, in model order: all but those whose scaled
     * value is 0 on every page (factor 0: min == max in training) and 0 in
     * every support vector, whose (0 - 0)^2 adds exactly nothing */
    size_t n_active;
    uint8_t active[PS_MODEL_MAX_FEATURES];
    /* the embedded libsvm text (for ps_model_libsvm_decision) */
    const char *svm_text;
    size_t svm_len;
    void *libsvm;       /* lazily loaded struct svm_model * (tests only) */
    /* a per-site model read from a delta bundle (train/site_models.c): the
     * base model (borrowed: it must outlive this one) whose support vectors
     * it shares (the base's svt and n_chunks, never copied), weighted with
     * base_coefp (the site's coefficients for them, laid out like coefp, 0
     * where one is no support vector of the site's); sv, coef, svt, coefp,
     * n_sv and n_chunks above hold the site's own new support vectors only
     * (sv NULL), in the base's active features; ps_model_predict_many
     * evaluates it with a loop of its own (train/predict.c).  NULL for a
     * whole model. */
    const struct ps_model *delta_base;
    double *base_coefp;
};

/* The payload line of a per-site delta bundle (docs/MODEL_FORMAT.md), in
 * place of libsvm-model-bytes. */
#define PS_SITE_DELTA_BYTES_KEY "site-delta-bytes"
/* The largest per-site bundle read (train/site_models.c, site_train.c):
 * 256 MiB, as ps_model_load reads a bundle. */
#define SITE_MODEL_MAX_BYTES ((size_t)256 << 20)

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

/* Decision value and label of libsvm's own svm_predict_values on the
 * embedded model (loaded on first use; not thread-safe; for tests that
 * check ps_model_predict against libsvm). Returns the label or -1. */
int ps_model_libsvm_decision(ps_model *m, const double *x, double *dec);

/* The header's "key value" lines, @p nk of them NUL-separated in @p kb
 * (taken), as m's keys and values (ps_model_info): whole bundles and site
 * deltas read them alike.  0, or -1 out of memory. */
int ps_model_take_keys(ps_model *m, ps_buf *kb, size_t nk);

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
