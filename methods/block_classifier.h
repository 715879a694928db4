/* methods/block_classifier.h — what template-svm and svm ask of a model:
 * score the blocks of one page.  Internal to methods/.
 *
 * A block classifier kind is a struct of three things and two calls:
 *
 *   feat_ids, n_feat  the features (ps_feature_lookup ids) it reads, in the
 *                     order its rows hold them; the method makes exactly
 *                     these rows on demand (ps_block_rows_new) and the
 *                     second passes read them too;
 *   block_tags        the elements that are blocks for it (the ones its
 *                     training pages were parsed with), NULL-terminated;
 *                     NULL = ps_default_block_tags;
 *   score()           the decision value of many blocks of one page at once,
 *                     > 0 leaning to content (the method's threshold, 0 by
 *                     default, --favor moves it; the fill and fallback
 *                     passes read the values too, so keep them on the SVM's
 *                     scale: about -1 .. 1 at the margin);
 *   free()            release it.
 *
 * score() sees the whole page (after the template step) and its site, not
 * only the rows: a per-site kind picks its model by in->site, a second-stage
 * kind scores with a first-stage classifier and then reads the page's tree
 * (neighbours, parents) around each block.  The method gives it the blocks
 * with text of their own; blocks without text are never scored (nothing of
 * theirs reaches the output).  It must be thread-safe (workers share one
 * instance) and allocate per call only.
 *
 * Adding a kind: a file methods/classifier_<kind>.c with its constructor,
 * and a line in ps_block_classifier_open (methods/block_classifier.c) that
 * picks it from the model bundle (e.g. by a header key); the passes and
 * template_svm.c do not change. */
#ifndef PS_BLOCK_CLASSIFIER_H
#define PS_BLOCK_CLASSIFIER_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/features.h"
#include "pagesift/model.h"

/** Rows a classifier makes at once (methods/classifier_*.c): a page's
 *  whole feature matrix was the most memory a block cost. */
#define PS_ROWS_CHUNK 256

/** One page's blocks to score. */
typedef struct ps_classify_in {
    const ps_page *page;     /**< the page as the template step left it */
    const char *site;        /**< its site key, "" when it has none */
    /** The feature rows of the page's blocks, made on demand
     *  (ps_block_rows_get: n_feat values per block, the classifier's
     *  feat_ids order); a classifier reads the page's matrix in place when
     *  it was made (ps_block_rows_all), else asks for PS_ROWS_CHUNK rows at
     *  a time. */
    const ps_block_rows *rows;
    const uint32_t *blocks;  /**< the blocks to score (indices, ascending) */
    size_t n;                /**< how many */
    /** When not NULL, the classifier writes here (model_cap bytes) the
     *  name of the model that scored the page: "default" for the bundle it
     *  was opened with, "site:KEY" for a site model (methods/classifier_site.c). */
    char *model;
    size_t model_cap;
} ps_classify_in;

typedef struct ps_block_classifier ps_block_classifier;

struct ps_block_classifier {
    const char *kind;              /**< "svm", ... (for messages) */
    size_t n_feat;
    const int *feat_ids;
    const char *const *block_tags; /**< NULL-terminated; NULL = default tags */
    /** Write score[b] for every block b of in->blocks (score has one slot per
     *  block of the page; the others are left alone).  Returns 0, or -1 with
     *  err set (out of memory). */
    int (*score)(const ps_block_classifier *c, const ps_classify_in *in, double *score,
                 ps_error *err);
    void (*free)(ps_block_classifier *c);
};

/** Open the model bundle at @p path as a classifier of the kind it holds
 *  (today every bundle is an SVM: ps_model_load, its block_tags key).
 *  NULL + err (the bundle's load error, or a bad block_tags key). */
ps_block_classifier *ps_block_classifier_open(const char *path, ps_error *err);

/** 1 when the block tag lists @p a and @p b hold the same names in the
 *  same order (NULL = ps_default_block_tags), else 0. */
int ps_block_tags_same(const char *const *a, const char *const *b);

/** Free @p c (may be NULL). */
static inline void ps_block_classifier_free(ps_block_classifier *c)
{
    if (c)
        c->free(c);
}

/** The bundle of an "svm" classifier, or of a stack's first stage (NULL
 *  for another kind; methods/classifier_stack.c). */
const ps_model *ps_block_classifier_svm_model(const ps_block_classifier *c);

/** The "svm" kind (methods/classifier_svm.c): the bundle at @p path,
 *  scored by its SVM alone (ps_block_classifier_open makes the kind the
 *  bundle holds).  NULL + err. */
ps_block_classifier *ps_svm_classifier_open(const char *path, ps_error *err);
/** @p c's bundle when it is an "svm" classifier, else NULL. */
const ps_model *ps_svm_classifier_model(const ps_block_classifier *c);
/* Its model's bundle text freed (ps_model_drop_text): prediction only. */
void ps_svm_classifier_drop_text(ps_block_classifier *c);

/** Score in->blocks with the SVM @p m (raw rows in its feature order), as
 *  the "svm" kind does: identical rows of the page scored once. */
int ps_block_classifier_svm_score(const ps_model *m, const ps_classify_in *in, double *score,
                                  ps_error *err);

/** The stacked kind (methods/classifier_stack.c): @p first (an "svm"
 *  classifier) scores every block alone, @p second decides again from
 *  those features and the context features (features/context.c).  Both
 *  are owned from now on (freed on failure too); @p path is for messages.
 *  ps_block_classifier_open makes one when a bundle file holds two. */
ps_block_classifier *ps_block_classifier_stack(ps_block_classifier *first, ps_model *second,
                                               const char *path, ps_error *err);
/** Score in->blocks with the stack @p c, @p first (an SVM with the
 *  stack's first-stage features and scaling: its own first stage, or a site
 *  model that is a delta against it) as the first stage: its scores feed
 *  the stack's second stage (context features, gate) as the first stage's
 *  do.  in->model is left alone.  -1 + err when @p c is not a stack. */
int ps_block_classifier_stack_score(const ps_block_classifier *c, const ps_model *first,
                                    const ps_classify_in *in, double *score, ps_error *err);
/** A site model's gate (its bundle's site_gate, issue 30): after
 *  score[] got @p site's first-stage scores of in->blocks, the blocks whose
 *  score by @p base (the model the site bundle is a delta against) is at
 *  least site_gate away from 0 get the base's score back.  Nothing for a
 *  bundle without the key (made before the gate).  0, or -1 + err. */
int ps_site_gate_scores(const ps_model *site, const ps_model *base, const ps_classify_in *in, double *score,
                        ps_error *err);
/** The second stage's rows a stack classifies at a time (0: the default,
 *  1 024); decision values do not depend on it (tests). */
void ps_block_classifier_stack_set_chunk(ps_block_classifier *c, size_t rows);
/** A stack's first stage (NULL for another kind). */
const ps_block_classifier *ps_block_classifier_stack_first(const ps_block_classifier *c);

/** The grid kind (methods/classifier_grid.c): on a page whose probability
 *  of the grid kinds (listing + collection + service + forum, the
 *  page-type classifier's) is at least @p gate, the mean of @p base's and
 *  @p grid's scores; on a page where @p base's blocks above 0 hold less
 *  than @p rescue of the text (0: never), the larger of @p base's score and
 *  that mean; elsewhere @p base's.  Both owned from now on (freed on
 *  failure too); NULL + err (PS_ERR_FORMAT) when their features or block
 *  tags differ; @p path is for messages. */
ps_block_classifier *ps_block_classifier_grid(ps_block_classifier *base, ps_block_classifier *grid,
                                              double gate, double rescue, const char *path, ps_error *err);

/** The per-site kind (methods/classifier_site.c): @p base (an "svm"
 *  classifier, owned from now on, freed on failure too), opened from
 *  @p base_path, for pages whose site has no usable bundle in @p dir, the
 *  site's bundle for the others; @p cap_bytes bounds the site bundles kept
 *  loaded (0 = default).  @p base a reduced bundle: bundles made against
 *  the model it was reduced from are read against that model, loaded when
 *  first needed from @p unreduced_path, NULL = the reduced bundle's
 *  reduced_from_file in @p base_path's folder. */
ps_block_classifier *ps_block_classifier_open_sites(ps_block_classifier *base, const char *base_path,
                                                    const char *dir, size_t cap_bytes,
                                                    const char *unreduced_path, ps_error *err);

/** 1 when @p c is the per-site kind and @p site has a bundle in its folder
 *  (a page of that site is the site model's), else 0. */
int ps_block_classifier_has_site_model(const ps_block_classifier *c, const char *site);

/** The typed kind (methods/classifier_typed.c): on a page whose most
 *  probable type (pagesift/page_types.h) is one of @p kinds (a bit per
 *  PS_PTYPE_* slot, extract/page_signals.h), and that no site model
 *  scores, @p typed (a model trained with the x_type_* features) scores
 *  the blocks in place of @p base; @p typed's rows are made from the
 *  base's (its other columns computed).  Both are owned from now on (freed
 *  on failure too); @p path is for messages.  NULL + err when their block
 *  tags differ. */
ps_block_classifier *ps_block_classifier_typed(ps_block_classifier *base, ps_block_classifier *typed,
                                               unsigned kinds, const char *path, ps_error *err);
#endif
