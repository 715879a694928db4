/* pagesift/site_models.h — per-site models (train/site_train.c,
 * train/site_models.c): a site's few labelled pages added to the general
 * model, one bundle per site in a model folder, picked by the page's site
 * key at inference.
 *
 * A site model extends a base model (the default one): it keeps the base's
 * features, scaling (scale_min / scale_max) and block_tags, and is trained
 * on the base's support vectors (the whole of what the base learnt: an SVM
 * retrained on its own support vectors with the same C and gamma is the same
 * SVM) plus the site's labelled rows, each counted W times (W chosen by
 * cross-validation over the site's pages, grouped by page).  It is stored
 * and held as a delta against the base: the site's coefficients of the
 * base's support vectors where they differ, its own new support vectors,
 * rho and the site keys, the base named by its checksum; in memory it
 * shares the base's support vectors (so it must not outlive the base).
 * docs/SITE_MODELS.md, docs/MODEL_FORMAT.md ("Per-site bundles"). */
#ifndef PAGESIFT_SITE_MODELS_H
#define PAGESIFT_SITE_MODELS_H
#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"
#include "pagesift/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Candidate weights of a site's rows when none are given. */
#define PS_SITE_WEIGHTS_DEFAULT "1,3,10,30"
/** Weight of a site with one labelled page (no cross-validation possible). */
#define PS_SITE_WEIGHT_ONE_PAGE 3
/** Default memory cap of the loaded site models (MB). */
#define PS_SITE_MODELS_CAP_MB 256

typedef struct ps_site_train_options {
    const double *weights;  /**< candidate weights (integers >= 1), NULL = PS_SITE_WEIGHTS_DEFAULT */
    size_t n_weights;
    double one_page_weight; /**< weight when the site has 1 labelled page (0 = PS_SITE_WEIGHT_ONE_PAGE) */
    int folds;              /**< at most this many CV folds over the site's pages (0 = 5) */
    uint64_t seed;          /**< undersampling seed (0 = 1) */
    /** The base's second stage (a stacked default: ps_model_next_stage of
     *  the base), NULL when the base is used alone.  With it, the site
     *  model is judged as inference uses it: its first-stage scores feed
     *  this second stage (context features), for the CV and the one-page
     *  check alike, and so is the base.  Needs parent and chars. */
    const ps_model *second;
    /** Per row: the row of its nearest enclosing block on the same page
     *  (an index into the rows, smaller than the row's own), -1 for none.
     *  The rows of a page are consecutive and in document order, and hold
     *  every block of the page the classifier scores (labelled or not). */
    const int32_t *parent;
    /** Per row: the block's own text characters (the context features'
     *  weights and the F1's: characters, not rows, are what a page keeps). */
    const uint32_t *chars;
    /** A site model is kept when its CV F1 exceeds the base's on the same
     *  folds by more than this (default 0: any gain). */
    double margin;
    /** 1: keep the site model even when it does not beat the base (the
     *  numbers are still measured and written into the bundle): the
     *  previous rounds' behaviour, to study site models; never the
     *  default. */
    int keep_worse;
} ps_site_train_options;

/** What training one site found (filled by ps_site_model_train). */
typedef struct ps_site_train_report {
    size_t pages, content, noise; /**< the site's labelled pages and rows */
    double weight;                /**< the weight chosen */
    int folds;                    /**< CV folds run (0: one page, no CV) */
    double cv_w[16];              /**< the candidate weights */
    double cv_f1[16];             /**< CV F1 of the content class per candidate */
    size_t n_cv;
    double cv_f1_base;            /**< the base model's F1 on the same folds */
    double seconds;
    int stacked;                  /**< CV and check scored through the second stage */
    /** One labelled page (no CV): share of the page's labelled content
     *  characters kept and of its noise characters dropped, by the site
     *  model [0] and the base [1] (trained and checked on that page). */
    double kept[2], dropped[2];
    /** 1: no site model, it does not beat the base (err says why); the
     *  site's pages are best left to the base. */
    int declined;
} ps_site_train_report;

/** Train the model of @p site from the base model @p base and the site's
 *  labelled rows: @p x holds n_rows rows of the base's features in its order
 *  (raw, unscaled: ps_model_feature_names), y 1 content / 0 noise / -1 not
 *  labelled (a row only the context features read), page a page number per
 *  row (rows of a page share it).  Returns the bundle in memory (save with
 *  ps_site_model_save) or NULL with err: a delta against @p base that
 *  borrows base's support vectors (free it before the base);
 *  ps_model_predict and ps_model_predict_many classify with it.
 *
 *  Never worse by construction: with >= 2 labelled pages the site model is
 *  kept only when its cross-validated F1 (grouped by page, the best weight)
 *  beats the base's on the same folds (by more than o->margin); with one
 *  page, only when on that page it keeps at least as much of the labelled
 *  content and drops at least as much of the labelled noise as the base,
 *  and more of one of them.  Otherwise NULL, rep->declined = 1 and err
 *  says why (PS_ERR_USAGE).  With no labelled row at all the site model is
 *  the base itself (a delta that changes nothing: its decision values are
 *  the base's, exactly). */
PS_EXPORT ps_model *ps_site_model_train(const ps_model *base, const char *base_name, const char *site,
                                        const double *x, const int8_t *y, const uint32_t *page,
                                        size_t n_rows, const ps_site_train_options *o,
                                        ps_site_train_report *rep, ps_error *err);

/** File name of @p site's bundle in a model folder: the template library's
 *  name (ps_template_file_name) with ".model" for ".tpl".  0 or -1. */
PS_EXPORT int ps_site_model_file_name(const char *site, char *out, size_t cap);

/** Write @p m into @p dir as its site's bundle, atomically; the bundle's
 *  `site_revision` is one more than the one it replaces (1 for a new site).
 *  Call with the folder locked (ps_template_dir_lock).  0 or -1 with err. */
PS_EXPORT int ps_site_model_save(ps_model *m, const char *dir, ps_error *err);

/** A model folder opened for inference: which sites have a bundle (read
 *  once), the bundles loaded on first use and kept in an LRU bounded by a
 *  memory cap.  Thread-safe. */
typedef struct ps_site_models ps_site_models;

/** Open @p dir for pages classified with @p base (borrowed; a site bundle
 *  that is a delta against another base — its base_checksum is not @p
 *  base's checksum — is refused at load, like a damaged one, and so is a
 *  whole bundle written before deltas whose features or block tags differ
 *  from base's).  @p cap_bytes bounds the loaded bundles (0 = 256 MB; one
 *  bundle is always allowed).  NULL + err when @p dir is not a readable
 *  folder. */
PS_EXPORT ps_site_models *ps_site_models_open(const char *dir, const ps_model *base, size_t cap_bytes,
                                              ps_error *err);

/** Number of site bundles in the folder. */
PS_EXPORT size_t ps_site_models_count(const ps_site_models *s);

/** The model of @p site, loaded if needed, held until ps_site_models_release;
 *  NULL when the site has no bundle or its bundle cannot be used (damaged,
 *  another format, a delta against another base: a warning on stderr once
 *  per site, then the caller uses the base).  A delta shares the base's
 *  support vectors: a loaded model holds a few tens of KB. */
PS_EXPORT const ps_model *ps_site_models_get(ps_site_models *s, const char *site);
PS_EXPORT void ps_site_models_release(ps_site_models *s, const ps_model *m);

/** Counters: loads (including reloads after eviction), evictions, bundles
 *  refused, bytes held now and at most. */
typedef struct ps_site_models_stats {
    uint64_t loads, evictions, refused, hits;
    size_t bytes, peak_bytes, loaded;
} ps_site_models_stats;
PS_EXPORT void ps_site_models_get_stats(ps_site_models *s, ps_site_models_stats *st);

PS_EXPORT void ps_site_models_free(ps_site_models *s);

/* ---- which pages to label next ------------------------------------------ */

/** How unsure the model was about @p page, from the extraction @p x made of
 *  it (the svm or template-svm method: x->block_score set): the share of
 *  the page's text in blocks scored near the decision boundary, each
 *  block's characters counted by how near (1 - |score|, 0 from a score of
 *  +-1 on: outside the SVM's margin).  0 when every block was scored
 *  clearly (or the page has no scored text), up to 1 when all its text
 *  sits on the boundary.  A site's pages labelled in descending order of
 *  it teach a site model more per page than pages taken as they come
 *  (pagesift-annotate's "label next" order; pagesift-eval
 *  --per-site-models --label-order uncertainty measures it:
 *  docs/SITE_MODELS.md).  NAN when @p x has no block scores. */
PS_EXPORT double ps_extraction_uncertainty(const ps_page *page, const ps_extraction *x);

/** A per-site bundle in memory (a delta, or a whole bundle) read against
 *  its base @p base as inference reads it (training reads back each bundle
 *  it writes with it); @p name is used in messages.  NULL with err. */
PS_EXPORT ps_model *ps_site_model_parse(const char *text, size_t len, const char *name, const ps_model *base,
                                        ps_error *err);

#ifdef __cplusplus
}
#endif
#endif
