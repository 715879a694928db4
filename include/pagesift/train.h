/*
 * pagesift/train.h — training the block classifier (train/): labelled
 * rows of block CSVs (pagesift/labels.h's format) -> grouped k-fold grid
 * search over C and gamma -> the final model bundle (pagesift-train,
 * docs/MODEL_FORMAT.md).
 */
#ifndef PAGESIFT_TRAIN_H
#define PAGESIFT_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"
#include "pagesift/model.h"

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
PS_EXPORT ps_train_data *ps_train_data_load(const char *const *paths, size_t n_paths,
                                  const char *features, ps_train_group group,
                                  ps_error *err);
PS_EXPORT void ps_train_data_free(ps_train_data *d);

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
} ps_train_data_info;
PS_EXPORT void ps_train_data_get_info(const ps_train_data *d, ps_train_data_info *info);

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
PS_EXPORT void ps_train_options_init(ps_train_options *o);

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
PS_EXPORT int ps_train_grid_search(const ps_train_data *d, const ps_train_options *o,
                         ps_train_grid *out, ps_error *err);
PS_EXPORT void ps_train_grid_free(ps_train_grid *g);

/** Fold of every row (0..folds-1) as the CV uses it: groups shuffled with
 *  the seed, each given to the fold with the fewest rows so far.  Returns
 *  the number of folds used (min(folds, groups)); @p fold_of has one entry
 *  per labelled row. */
PS_EXPORT int ps_train_assign_folds(const ps_train_data *d, int folds, uint64_t seed, int *fold_of);

/** Train on all rows (balanced as asked) with 2^log2c, 2^log2g and build the
 *  bundle; @p cv (may be NULL) is recorded as the CV scores, @p grid (may be
 *  NULL) for folds/grouping facts; @p stamp 1 adds a "created" date line
 *  (otherwise the same inputs give a byte-identical bundle). */
PS_EXPORT ps_model *ps_train_final(const ps_train_data *d, const ps_train_options *o,
                         double log2c, double log2g, const ps_train_grid *grid,
                         int stamp, ps_error *err);

/** Write the grid as CSV (one row per evaluated point) or as an SVG heat
 *  map of CV F1 over log2 C x log2 gamma, best point marked; atomically. */
PS_EXPORT int ps_train_write_grid_csv(const ps_train_grid *g, const char *path, ps_error *err);
PS_EXPORT int ps_train_write_grid_svg(const ps_train_grid *g, const char *title,
                            const char *path, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_TRAIN_H */
