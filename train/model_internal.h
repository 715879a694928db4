/* train/model_internal.h — the inside of ps_model, shared by the bundle
 * code (model.c), prediction (predict.c), per-site bundles (site_models.c)
 * and training (train_internal.h includes it).  Not a public interface. */
#ifndef PS_MODEL_INTERNAL_H
#define PS_MODEL_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/model.h"
#include "pagesift/site_models.h"

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
    /* a per-site model's block paths (issue 30; ps_site_model_path_label):
     * paths its labelled pages agree on, ascending by key; NULL, 0 for
     * none */
    struct ps_site_path *site_paths;
    size_t n_site_paths;
    /* a per-site model's layout (ps_site_model_layout_share): the
     * ps_hash64 of every block path with text on its labelled pages,
     * ascending, distinct; NULL, 0 for none (bundles made before it) */
    uint64_t *site_layout;
    size_t n_site_layout;
    /* a delta that changes none of its base's coefficients, adds no
     * support vector and keeps its rho and label order: the base's SVM */
    int delta_unchanged;
};

/* A site model's path (site_paths above): its key (ps_site_path_key) and
 * the most characters a labelled block at the path had, 0 for no bound
 * (bundles made before the bound); ps_site_model_path_label. */
typedef struct ps_site_path {
    uint64_t key;
    uint32_t max_chars;
} ps_site_path;

/* A site model's path key: the path's ps_hash64 with its lowest bit the
 * label. */
static inline uint64_t ps_site_path_key(const char *path, size_t len, int content)
{
    return (ps_hash64(path, len) & ~(uint64_t)1) | (content ? 1u : 0u);
}

/* The entry of a site's paths (@p n, ascending by key) for the path of key
 * @p h, whichever its label bit; n for none. */
static inline size_t ps_site_path_find(const ps_site_path *paths, size_t n, uint64_t h)
{
    size_t lo = 0, hi = n;
    h &= ~(uint64_t)1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (paths[mid].key < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && (paths[lo].key & ~(uint64_t)1) == h ? lo : n;
}

/* The label those paths give a block at the path of key @p h with @p chars
 * characters of its own: 1 content, 0 noise, -1 none — no entry, or a
 * block more than PS_SITE_PATH_GROWTH times the longest labelled there
 * (the one rule of training's CV and of inference). */
static inline int ps_site_path_decide(const ps_site_path *paths, size_t n, uint64_t h, uint32_t chars)
{
    const size_t i = ps_site_path_find(paths, n, h);
    if (i == n)
        return -1;
    if (paths[i].max_chars && (uint64_t)chars > (uint64_t)PS_SITE_PATH_GROWTH * paths[i].max_chars)
        return -1; /* unlike the blocks it was labelled from */
    return (int)(paths[i].key & 1);
}

/* The payload line of a per-site delta bundle (docs/MODEL_FORMAT.md), in
 * place of libsvm-model-bytes. */
#define PS_SITE_DELTA_BYTES_KEY "site-delta-bytes"
/* The largest per-site bundle read (train/site_models.c, site_train.c):
 * 256 MiB, as ps_model_load reads a bundle. */
#define SITE_MODEL_MAX_BYTES ((size_t)256 << 20)

/* Decision value and label of libsvm's own svm_predict_values on the
 * embedded model (loaded on first use; not thread-safe; for tests that
 * check ps_model_predict against libsvm). Returns the label or -1. */
int ps_model_libsvm_decision(ps_model *m, const double *x, double *dec);

/* The header's "key value" lines, @p nk of them NUL-separated in @p kb
 * (taken), as m's keys and values (ps_model_info): whole bundles and site
 * deltas read them alike.  0, or -1 out of memory. */
int ps_model_take_keys(ps_model *m, ps_buf *kb, size_t nk);

#endif
