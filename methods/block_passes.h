/* methods/block_passes.h — second passes over a page's block classes, run
 * after the classifier has scored every block (issue 9; methods/block_passes.c
 * says what each does and what it was measured to give).
 *
 * The passes are a chain, like boilerpipe's filters: one ordered table,
 * ps_block_pass_table, of rows (option key, function, option type, default,
 * range, one line of doc).  Every pass has the one signature ps_block_pass_fn: it reads the
 * page, the scores and the features in a ps_pass_ctx and rewrites the 0/1
 * content mask keep[] in place.  A pass runs when its value in
 * ps_block_passes is non-zero; the value is its parameter (a share, a margin)
 * or 1 for an on/off pass.  The methods that run the chain (template-svm,
 * svm) take every row's key as a method option (--options key=value), so
 * adding a pass is one function and one row of the table. */
#ifndef PS_BLOCK_PASSES_H
#define PS_BLOCK_PASSES_H

#include <stdint.h>

#include "methods/method_options.h"
#include "pagesift.h"
#include "pagesift/features.h"
#include "pagesift/page.h"

typedef struct ps_block_passes ps_block_passes;

/** What a pass sees of one page.  Passes run in table order; each sees the
 *  mask as the ones before it left it. */
typedef struct ps_pass_ctx {
    const ps_page *page;
    const ps_block *blocks; /**< ps_page_blocks(page) */
    size_t n;               /**< blocks */
    uint8_t *keep;          /**< per block, non-zero = content: the pass rewrites it */
    /** The classifier's decision value per block, NaN for a block it did not
     *  score (no text); NULL = none (passes that need scores do nothing). */
    const double *score;
    /** Feature rows the caller computed for the page in its current state:
     *  n_feat values per block, the features ids (ps_page_block_features
     *  order); NULL = none, a pass then computes the ones it needs. */
    const double *feat;
    /** Or the same rows made on demand (ps_block_rows_new with @p ids);
     *  NULL = none. */
    const ps_block_rows *rows;
    size_t n_feat;
    const int *ids;
    double *scratch;        /**< 3 * n doubles, for any pass to use */
    /** Per block, 1 inside a comment container, set by the comments pass
     *  for the passes after it; NULL when it did not run. */
    uint8_t *in_comments;
    /** Every row's value (a pass reads its parameter rows from here). */
    const ps_block_passes *values;
} ps_pass_ctx;

/** A pass: @p value is its non-zero value in ps_block_passes (1 for an
 *  on/off pass).  Returns 0, or -1 when out of memory (the run stops). */
typedef int (*ps_block_pass_fn)(ps_pass_ctx *c, double value);

/** One row of the chain. */
typedef struct ps_block_pass {
    const char *key;      /**< name and method option key */
    ps_block_pass_fn run; /**< NULL: a parameter of the pass above, which reads it */
    ps_opt_type type;     /**< PS_OPT_SWITCH (on/off) or PS_OPT_DOUBLE */
    double def;           /**< default value, 0 = off */
    double min, max;      /**< PS_OPT_DOUBLE: the option's range */
    const char *doc;      /**< one line for the option's listing (pagesift --options help) */
} ps_block_pass;

/** Capacity of ps_block_passes (rows of the table, at most). */
#define PS_BLOCK_PASSES_MAX 16

/** The chain in run order, ended by a row whose key is NULL. */
extern const ps_block_pass ps_block_pass_table[];

/** Which passes run and with what value: one per table row, 0 = off. */
struct ps_block_passes {
    double value[PS_BLOCK_PASSES_MAX];
};

/** The table's defaults (what template-svm runs unless told otherwise). */
ps_block_passes ps_block_passes_default(void);

/** All passes off. */
ps_block_passes ps_block_passes_none(void);

/** The table row of the pass named @p key, or -1. */
int ps_block_pass_find(const char *key);

/** The value slot of the pass @p key in @p p (for option tables and for
 *  setting one pass); NULL when no pass has that name. */
double *ps_block_passes_at(ps_block_passes *p, const char *key);

/** Run the chain on @p keep (one byte per block of @p page, ps_page_blocks
 *  order, non-zero = content); rewrites it in place.  @p score: the
 *  classifier's decision value per block, NaN for a block it did not score
 *  (no text); NULL = none (no fallback, no fill).  Returns 0, or -1 (out of
 *  memory). */
int ps_block_passes_run(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                        const double *score);

/** The same, given the block features the caller has already computed for
 *  the page in its current state: @p feat holds @p n_feat values per block
 *  (ps_page_block_features order), the features @p ids.  A pass that needs
 *  features reads them from there when they are among them (headline:
 *  x_heading and x_title_words; comments: x_cls_comment and x_head_dist),
 *  else computes them. */
int ps_block_passes_run_feat(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                             const double *score, const double *feat, size_t n_feat,
                             const int *ids);

/** The same, given the rows on demand (@p rows, made with the features
 *  @p ids, @p n_feat of them): a pass reads the columns it needs from
 *  them (template-svm: the page's xstats are computed once). */
int ps_block_passes_run_rows(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                             const double *score, const ps_block_rows *rows, size_t n_feat,
                             const int *ids);

#endif
