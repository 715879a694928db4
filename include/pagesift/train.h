/*
 * pagesift/train.h — training (train/, pagesift-train): the block
 * classifier from labelled rows of block CSVs (pagesift/labels.h's format)
 * -> grouped k-fold grid search over C and gamma -> the final model bundle
 * (docs/MODEL_FORMAT.md); the page-type classifier from data sets; per-site
 * models from a site's labelled rows (docs/SITE_MODELS.md).
 */
#ifndef PAGESIFT_TRAIN_H
#define PAGESIFT_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"
#include "pagesift/model.h"
#include "pagesift/util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What keeps rows together in cross-validation folds. */
typedef enum ps_train_group {
    PS_GROUP_PAGE = 0, /**< dataset + page_id: no page on both sides */
    PS_GROUP_SITE = 1  /**< site (a row with an empty site: its page) */
} ps_train_group;

/** How the class imbalance (noise outnumbers content) is handled. */
typedef enum ps_train_balance {
    PS_BALANCE_NONE = 0,
    PS_BALANCE_UNDERSAMPLE = 1, /**< seeded subsample of the majority class
                                     down to the minority's size */
    PS_BALANCE_WEIGHT = 2       /**< libsvm class weights n/(2 n_class) */
} ps_train_balance;

/** Labelled rows of one or more feature CSVs. */
typedef struct ps_train_data ps_train_data;

/** Read feature CSVs.  @p features: "paper" (R1..R5), "extended" (R1..R5
 *  and every x_* column of the first file's header, in header order) or a
 *  comma-separated list of column names.  Rows with an empty label are
 *  counted and skipped.  Errors name the file and line: missing column,
 *  non-numeric/NaN/infinite value, label other than 0/1, malformed CSV, no
 *  labelled rows, a single class. */
PS_LAB_EXPORT ps_train_data *ps_train_data_load(const char *const *paths, size_t n_paths,
                                  const char *features, ps_train_group group,
                                  ps_error *err);
/** ps_train_data_load, and the block tags of the rows: every CSV row
 *  records the block tags its page was cut with (the block_tags column,
 *  pagesift/labels.h); a row without a record (a CSV of before the column,
 *  an empty cell) counts as cut with ps_default_block_tags.  With
 *  @p block_tags NULL, labelled rows cut with different block tags (as sets:
 *  order and repeats do not matter) are refused (PS_ERR_FORMAT, naming the
 *  row and the first row of the other set) and the bundle of
 *  ps_train_final records the rows' tags; a comma list instead is what the
 *  bundle records, whatever the rows say (no check).  Tags must be
 *  lower-case names with body among them, as a bundle's block_tags key. */
PS_LAB_EXPORT ps_train_data *ps_train_data_load_tags(const char *const *paths, size_t n_paths,
                                                     const char *features, ps_train_group group,
                                                     const char *block_tags, ps_error *err);
PS_LAB_EXPORT void ps_train_data_free(ps_train_data *d);

/** Counts of a loaded data set. */
typedef struct ps_train_data_info {
    size_t rows;          /**< labelled rows */
    size_t content;       /**< rows labelled 1 */
    size_t noise;         /**< rows labelled 0 */
    size_t unlabelled;    /**< rows skipped for an empty label */
    size_t groups;        /**< pages (or sites) */
    size_t n_features;
    const char *features; /**< names, comma-separated */
    uint64_t checksum;    /**< FNV-1a 64 of the labelled rows (group key,
                               features as %.17g, label), in file order */
    const char *block_tags; /**< the block tags the bundle records (the
                               rows', or the ones given to
                               ps_train_data_load_tags) */
    size_t untagged;      /**< labelled rows that record no block tags */
    const char *untagged_files; /**< their CSVs' base names, space-separated */
} ps_train_data_info;
PS_LAB_EXPORT void ps_train_data_get_info(const ps_train_data *d, ps_train_data_info *info);

/** Training options; start from ps_train_options_init(). */
typedef struct ps_train_options {
    ps_train_balance balance; /**< default PS_BALANCE_UNDERSAMPLE */
    uint64_t seed;            /**< default 1 */
    int folds;                /**< default 10 */
    int select_accuracy;      /**< 0: best F1 of the content class (default) */
    double c_start, c_stop, c_step; /**< log2 C grid, default -5:15:2 */
    double g_start, g_stop, g_step; /**< log2 gamma grid, default -15:3:2 */
    int coarse_fine;          /**< 1: every other grid point, then the full
                                   step around the best (default 0) */
    int threads;              /**< 0 = all cores */
    size_t cv_max_rows;       /**< grid CV on a seeded sample of whole groups
                                   of about this many rows; 0 = all rows
                                   (default 20000) */
    double cache_mb;          /**< libsvm kernel cache per training (200) */
    int quiet;                /**< 1: no progress on stderr */
    int verbose;              /**< 1: a line on stderr per finished grid
                                   point (with time left), even when stderr
                                   is not a terminal */
} ps_train_options;
PS_LAB_EXPORT void ps_train_options_init(ps_train_options *o);

/** Cross-validated scores of one (C, gamma) point, content = positive. */
typedef struct ps_train_point {
    double log2c, log2g;
    size_t tp, fp, fn, tn;
    double precision, recall, f1, accuracy;
    int done;             /**< 0: not evaluated (coarse-fine skipped it) */
    double seconds;       /**< CPU time of its folds */
} ps_train_point;

/** Result of a grid search. */
typedef struct ps_train_grid {
    ps_train_point *points; /**< n_c x n_g, C-major: points[i * n_g + j] */
    size_t n_c, n_g;
    size_t best;            /**< index of the chosen point */
    size_t cv_rows, cv_groups; /**< rows and groups the CV ran on */
    int folds;              /**< folds used (fewer when fewer groups) */
    size_t evaluated;       /**< points evaluated */
    double wall_seconds;
} ps_train_grid;

/** Grid search with grouped k-fold CV: each training fold is balanced as
 *  asked, each test fold is scored as it is.  Grid points run in parallel.
 *  Returns 0, or -1 with err set. Free with ps_train_grid_free. */
PS_LAB_EXPORT int ps_train_grid_search(const ps_train_data *d, const ps_train_options *o,
                         ps_train_grid *out, ps_error *err);
PS_LAB_EXPORT void ps_train_grid_free(ps_train_grid *g);

/** Fold of every row (0..folds-1) as the CV uses it: groups shuffled with
 *  the seed, each given to the fold with the fewest rows so far.  Returns
 *  the number of folds used (min(folds, groups)); @p fold_of has one entry
 *  per labelled row. */
PS_LAB_EXPORT int ps_train_assign_folds(const ps_train_data *d, int folds, uint64_t seed, int *fold_of);

/** Train on all rows (balanced as asked) with 2^log2c, 2^log2g and build the
 *  bundle; @p cv (may be NULL) is recorded as the CV scores, @p grid (may be
 *  NULL) for folds/grouping facts; @p stamp 1 adds a "created" date line
 *  (otherwise the same inputs give a byte-identical bundle). */
PS_LAB_EXPORT ps_model *ps_train_final(const ps_train_data *d, const ps_train_options *o,
                         double log2c, double log2g, const ps_train_grid *grid,
                         int stamp, ps_error *err);

/** Write the grid as CSV (one row per evaluated point) or as an SVG heat
 *  map of CV F1 over log2 C x log2 gamma, best point marked; atomically. */
PS_LAB_EXPORT int ps_train_write_grid_csv(const ps_train_grid *g, const char *path, ps_error *err);
PS_LAB_EXPORT int ps_train_write_grid_svg(const ps_train_grid *g, const char *title,
                            const char *path, ps_error *err);

/* ---- a reduced-set approximation of a bundle (train/reduce.c, issue 33) */

/** Options of ps_model_reduce; start from ps_reduce_options_init(). */
typedef struct ps_reduce_options {
    double share;         /**< centres per stage as a share of its support
                               vectors, 0 < share < 1 (default 0.5) */
    size_t n_sv[2];       /**< centres of the first and second stage (0: by
                               share; only n_sv[0]: the second at the same
                               share as the first) */
    size_t fit_rows;      /**< rows the least squares fits on, a seeded
                               sample (default 20000; 0 = all) */
    double ridge;         /**< ridge term relative to the mean diagonal
                               (default 1e-10; raised when singular) */
    int kmeans_iters;     /**< Lloyd steps (default 25) */
    int refine_iters;     /**< gradient steps on the centres after the
                               first fit (Adam, coefficients re-fitted every
                               10; default 0: the k-means centres as they are) */
    double boundary_width, boundary_weight; /**< a fit row of decision value
                               t weighs 1 + weight * exp(-t^2 / (2 width^2)):
                               rows near the boundary, where an error flips
                               the class, count more (default 0.5 and 10;
                               width 0: every row alike) */
    uint64_t seed;        /**< default 1 */
} ps_reduce_options;
PS_LAB_EXPORT void ps_reduce_options_init(ps_reduce_options *o);

/** How close one reduced stage comes to the original. */
typedef struct ps_reduce_stage_report {
    size_t sv_before, sv_after;
    size_t fit_rows;      /**< rows the coefficients were fitted on */
    size_t rows;          /**< rows measured: every row of the CSVs */
    double rmse, max_error; /**< of the decision values (the second stage:
                               the stack's final scores) against the original's */
    size_t sign_flips;    /**< rows whose class changed */
} ps_reduce_stage_report;

typedef struct ps_reduce_report {
    size_t n_stages, rows, pages;
    ps_reduce_stage_report stage[2];
    ps_reduce_stage_report first_only; /**< a stack: its final scores with
                               the first stage reduced and the second not */
    double seconds;
} ps_reduce_report;

/** A reduced-set approximation of the bundle at @p model_path (one stage
 *  or a stacked pair, docs/MODEL_FORMAT.md): per stage, the support vectors
 *  replaced by fewer centres (a k-means of them, by sign of coefficient,
 *  weighted by |coefficient|) with the same gamma, and coefficients and rho
 *  re-fitted by ridge least squares to the original decision values on the
 *  rows of the block CSVs @p csvs (every row, labelled or not, scaled as the
 *  model scales them); a second stage is fitted on the context its rows get
 *  from the reduced first stage, to the original stack's final scores.  The
 *  result, an ordinary bundle with the keys reduced_from and reduce_*, into
 *  @p out (replaced); @p rep the figures.  0, or -1 with err. */
PS_LAB_EXPORT int ps_model_reduce(const char *model_path, const char *const *csvs, size_t n_csvs,
                                  const ps_reduce_options *o, ps_buf *out, ps_reduce_report *rep,
                                  ps_error *err);

/* ---- page types (train/page_types_train.c; the classifier:
 * pagesift/page_types.h) */

/** Training options.  Zero-initialise. */
typedef struct ps_page_types_train_options {
    unsigned folds;                /**< CV folds grouped by site (ps_dataset_page_fold), 0 = 5 */
    unsigned seed;                 /**< libsvm's probability CV (srand), 0 is a seed too */
    const char *const *block_tags; /**< to parse pages with, NULL = ps_default_block_tags */
    int verbose;                   /**< print the grid and skipped pages to stderr */
    ps_fold pages;                 /**< only these pages of every set (n = 0: all), e.g.
                                        the other folds' for a fold's own model */
    size_t max_per_set;            /**< at most this many pages of a "DIR=TYPE" set,
                                        evenly spread over its order (0 = all) */
    const char *hash;              /**< hashed token blocks beside the hand-made
                                        signals ("cutx", "c128,u64,t32,x32":
                                        docs/PAGE_TYPES.md); NULL or "" = none */
    int grid_given;                /**< 1: the grid is log2 C c_lo..c_hi step c_step
                                        and log2 gamma g_lo..g_hi step g_step; 0:
                                        the recipe's (C -1..11, gamma -9..1, step 2) */
    int c_lo, c_hi, c_step, g_lo, g_hi, g_step;
    ps_fold pages2;                /**< a second filter, after pages (n = 0: none):
                                        with both complements the pages outside two
                                        folds, a nested CV's inner training pages */
} ps_page_types_train_options;

/** What the cross-validation found at the chosen grid point. */
typedef struct ps_page_types_cv {
    double accuracy; /**< pages right / pages, pooled over the folds */
    size_t pages;    /**< labelled pages read */
    int log2_c, log2_gamma;
} ps_page_types_cv;

/** Train on the pages of the data sets @p dirs with a page_type column
 *  (pages without one are left out; "DIR=TYPE" makes every page of DIR a
 *  TYPE, for a set without the column, e.g. "dragnet=article"): choose C and gamma on a grid by CV
 *  accuracy, train on every page with probabilities, write the bundle text
 *  into @p bundle (replaced).  @p cv (may be NULL) gets the CV figures;
 *  the bundle's cv_confusion line has the confusion matrix. */
PS_LAB_EXPORT int ps_page_types_train(const char *const *dirs, size_t n_dirs,
                                  const ps_page_types_train_options *opt, ps_buf *bundle,
                                  ps_page_types_cv *cv, ps_error *err);

/* ---- per-site models (train/site_train.c; the folder at inference:
 * pagesift/site_models.h) */

/** Candidate weights of a site's rows when none are given. */
#define PS_SITE_WEIGHTS_DEFAULT "1,3,10,30"
/** Weight of a site with one labelled page (no cross-validation possible). */
#define PS_SITE_WEIGHT_ONE_PAGE 3
/** Where a site model decides: blocks whose base first-stage score is
 *  inside (-PS_SITE_GATE, PS_SITE_GATE), the base's margin (issue 30). */
#define PS_SITE_GATE 1.0
/** Block paths (issue 30; ps_site_model_path_label): a block path labelled
 *  on at least PS_SITE_PATH_PAGES of a site's pages, at least
 *  PS_SITE_PATH_PURITY of its labelled characters one way, decides the
 *  block at that path on the site's other pages; a bundle holds them only
 *  when the site has at least PS_SITE_PATH_MIN_PAGES labelled pages (so
 *  that the CV over its pages judged them) and they raise its CV F1. */
#define PS_SITE_PATH_PAGES 2
#define PS_SITE_PATH_PURITY 0.99
#define PS_SITE_PATH_MIN_PAGES 3

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
    /** The site model decides only the blocks whose base first-stage score
     *  is inside (-gate, gate), where the base is unsure; elsewhere the
     *  base's first-stage score stays (site models had made sites worse
     *  by overriding what the base was sure of, docs/SITE_MODELS.md).  0 =
     *  PS_SITE_GATE; negative: no gate, every block the site model's (the
     *  bundles before it).  The CV and the one-page check judge the gated
     *  model, and the bundle says it (site_gate) for inference. */
    double gate;
    /** Per row: the block's DOM path (the block CSV's block_path), or NULL
     *  (no paths: the site model is an SVM alone).  With it and at least
     *  PS_SITE_PATH_MIN_PAGES labelled pages, the paths the site's pages
     *  agree on are judged by the same CV, with each candidate weight and
     *  alone (the base's SVM with them), and kept where they raise it. */
    const char *const *path;
    /** Per row: a hash of the block's own text as the block CSV's text
     *  column gives it (leaves joined by spaces, its first 200 characters;
     *  ps_site_text_hash), 0 for none; or NULL.  With it, a path labelled
     *  content whose labelled blocks have the same text (and length) on
     *  every page is no path: a line the same on every page is the
     *  site's, whatever the labels say. */
    const uint64_t *text_hash;
} ps_site_train_options;

/** The hash of a block's text that ps_site_train_options.text_hash holds:
 *  of the block CSV's text column (@p len bytes). */
PS_LAB_EXPORT uint64_t ps_site_text_hash(const char *text, size_t len);

/** What training one site found (filled by ps_site_model_train). */
typedef struct ps_site_train_report {
    size_t pages, content, noise; /**< the site's labelled pages and rows */
    double weight;                /**< the weight chosen */
    int folds;                    /**< CV folds run (0: one page, no CV) */
    double cv_w[16];              /**< the candidate weights */
    double cv_f1[16];             /**< CV F1 of the content class per candidate */
    size_t n_cv;
    double cv_f1_base;            /**< the base model's F1 on the same folds */
    /** With paths (ps_site_train_options.path): CV F1 of each candidate
     *  weight with the paths of its training folds (cv_f1_paths[i]) and of
     *  the base with them alone (cv_f1_paths_only); paths_judged 0 when
     *  the site has too few pages. */
    double cv_f1_paths[16], cv_f1_paths_only;
    int paths_judged;
    size_t paths;                 /**< block paths in the bundle */
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
 *  the base's, exactly).
 *
 *  The order of the pages does not matter: the same labelled pages (rows
 *  of a page in document order) in any order and under any page numbers
 *  give the same bundle, byte for byte (the undersampling draw and the CV's
 *  folds follow an order of the pages' own, by a hash of their rows). */
PS_LAB_EXPORT ps_model *ps_site_model_train(const ps_model *base, const char *base_name, const char *site,
                                        const double *x, const int8_t *y, const uint32_t *page,
                                        size_t n_rows, const ps_site_train_options *o,
                                        ps_site_train_report *rep, ps_error *err);

/** The rows of block CSVs (pagesift-features' columns, labels filled) for
 *  per-site training (train/site_rows.c; pagesift-train --per-site): read
 *  against @p base's features, labelled rows and, where the CSV has
 *  block_path and inner_len, unlabelled ones (the second stage's context
 *  reads every scored block of a page), grouped by site — @p site_of for
 *  every row when given, else each row's (ps_input_site: its url's host,
 *  else its site column) — and by page (dataset + page_id). */
typedef struct ps_site_rows ps_site_rows;

/** One site's rows as ps_site_model_train takes them (valid until the next
 *  ps_site_rows_site or ps_site_rows_free). */
typedef struct ps_site_rows_view {
    const double *x;       /**< n rows of the base's features */
    const int8_t *y;       /**< 1 content, 0 noise, -1 unlabelled */
    const uint32_t *page;  /**< page number per row */
    size_t n, labelled;    /**< rows, and of them labelled (0: nothing to train) */
} ps_site_rows_view;

/** Read @p n_files CSVs ("-" standard input).  NULL with err (the file and
 *  line where it applies): unreadable or malformed, a base feature's column
 *  missing, a label not 1, 0 or empty, a labelled row cut with other block
 *  tags than @p base's (a site model keeps them), a labelled row with no
 *  site (no url and site, and no @p site_of; an unlabelled one is left
 *  out), no labelled row at all. */
PS_LAB_EXPORT ps_site_rows *ps_site_rows_read(char *const *files, size_t n_files, const ps_model *base,
                                              const char *site_of, ps_error *err);
/** Number of sites (in ascending order of their keys). */
PS_LAB_EXPORT size_t ps_site_rows_sites(const ps_site_rows *r);
/** Rows read: labelled, and unlabelled (kept or not). */
PS_LAB_EXPORT void ps_site_rows_counts(const ps_site_rows *r, size_t *labelled, size_t *unlabelled);
/** Site @p s: its key, its rows into @p v, and @p o's parent, chars, path
 *  and text_hash set for them (a page's rows in CSV order; a row's parent
 *  by ps_csv_row_parent).  NULL when @p s is out of range. */
PS_LAB_EXPORT const char *ps_site_rows_site(ps_site_rows *r, size_t s, ps_site_rows_view *v,
                                            ps_site_train_options *o);
PS_LAB_EXPORT void ps_site_rows_free(ps_site_rows *r);

/** Write @p m into @p dir as its site's bundle, atomically; the bundle's
 *  `site_revision` is one more than the one it replaces (1 for a new site).
 *  Call with the folder locked (ps_template_dir_lock).  0 or -1 with err. */
PS_LAB_EXPORT int ps_site_model_save(ps_model *m, const char *dir, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_TRAIN_H */
