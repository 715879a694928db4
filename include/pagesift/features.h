/*
 * pagesift/features.h — block features (features/features.c): the paper's
 * R1-R5 and the extended x_* set, computed by name for every block of a
 * page, and the context features a stacked model's second stage reads
 * (features/context.c).  The SVM methods compute them for the model they
 * load; this header is for programs that look at blocks themselves.
 * Labelled rows of them (the block CSV): pagesift/labels.h.
 */
#ifndef PAGESIFT_FEATURES_H
#define PAGESIFT_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Features are named: "R1".."R5" are the paper's (METHODS.md §1.2);
 *  extended features are named "x_<name>".  A model bundle records the
 *  names it was trained on; inference computes them by name. */
#define PS_FEATURES_PAPER "R1,R2,R3,R4,R5"

/** The extended features (features/features.c says what each measures):
 *  x_punct, x_digits, x_text_density, x_text_log, x_leaves_log,
 *  x_children_log, x_depth, x_dom_depth, x_position, x_subtree_text,
 *  x_subtree_link_density, x_own_share, x_stopwords, x_sentence_len,
 *  x_word_len, x_heading, x_heading_sub, x_p_share, x_link_leaf_share,
 *  x_images_per_char, x_title_words, x_attr_noise, x_attr_content, x_anc_noise,
 *  x_anc_content, the one-hot tag x_tag_body, _section, _div, _article,
 *  _main, _td, _table, _ul, _li, _p, _other, and the page context:
 *  x_main_share, x_main_dist, x_main_offset, x_main_sibling,
 *  x_main_ancestor, x_repeat_siblings, x_repeat_page, x_head_offset,
 *  x_head_dist, x_attr_comment, x_anc_comment, x_cls_noise, x_cls_content,
 *  x_cls_comment, x_cls_caption, x_sec_main, x_sec_aside, x_in_figure,
 *  x_after_image, x_copyright (docs/BLOCK_CSV.md).  Ids
 *  0..4 are R1..R5, the extended ones follow in this order. */

/** Number of features the library can compute. */
PS_EXPORT size_t ps_feature_count(void);
/** Name of feature @p id (0 <= id < ps_feature_count()). */
PS_EXPORT const char *ps_feature_name(size_t id);
/** Id of a feature name, or -1 when the library does not know it (a
 *  context feature "c_*" has id PS_CONTEXT_FEATURE_ID + k, below). */
PS_EXPORT int ps_feature_lookup(const char *name);

/** Compute features @p ids (n_ids of them) for every block of the page:
 *  out[b * n_ids + k] is feature ids[k] of block b.  Uses the page's current
 *  counts, so removed (template) leaves do not count.  Returns 0 or -1. */
PS_EXPORT int ps_page_block_features(const ps_page *page, const int *ids, size_t n_ids, double *out);

/** The same rows made on demand: ps_block_rows_new computes what the
 *  features @p ids of the page's blocks are made from (about 110 bytes a
 *  block; NULL when out of memory or an id is unknown), ps_block_rows_get
 *  writes the rows of @p n blocks (@p blocks; NULL: blocks 0..n-1) into
 *  @p out (n_ids values each, the same values ps_page_block_features
 *  gives), ps_block_rows_columns the columns @p cols (indices into @p ids)
 *  of every block (k values each).  The page must not change while they
 *  are used.  A page's whole feature matrix took 51 doubles a block with
 *  the shipped model, the most memory a block cost. */
typedef struct ps_block_rows ps_block_rows;
PS_EXPORT ps_block_rows *ps_block_rows_new(const ps_page *page, const int *ids, size_t n_ids);
PS_EXPORT size_t ps_block_rows_width(const ps_block_rows *r);
PS_EXPORT void ps_block_rows_get(const ps_block_rows *r, const uint32_t *blocks, size_t n, double *out);
PS_EXPORT void ps_block_rows_columns(const ps_block_rows *r, const size_t *cols, size_t k, double *out);
PS_EXPORT void ps_block_rows_free(ps_block_rows *r);
/** The whole matrix (nb rows of n_ids values), when ps_block_rows_new made
 *  it (a page whose matrix is at most 512 KB: then the per-block figures
 *  are let go and rows are read in place); NULL when rows are made on
 *  demand. */
PS_EXPORT const double *ps_block_rows_all(const ps_block_rows *r);

/* --- Context features for a second stage (features/context.c) --- */

/** Number of context features: what a first-stage model said about a
 *  block's neighbours (c_self, c_parent, c_siblings, c_prev, c_next,
 *  c_window, c_page_max, c_gap, c_core, c_pos_share, c_sub_pos; docs/BLOCK_CSV.md). */
#define PS_CONTEXT_FEATURES 11
/** ps_feature_lookup's id of context feature k is PS_CONTEXT_FEATURE_ID + k
 *  (ps_page_block_features does not compute them: they need first-stage
 *  scores, ps_context_features does). */
#define PS_CONTEXT_FEATURE_ID 1000
/** Context features read first-stage scores clipped to [-PS_CONTEXT_CLIP,
 *  PS_CONTEXT_CLIP]: beyond the margin a decision value says nothing more. */
#define PS_CONTEXT_CLIP 3.0
/** Name of context feature @p k ("c_self", ...), NULL past the last. */
PS_EXPORT const char *ps_context_feature_name(size_t k);
/** Index of a context feature's name, or -1. */
PS_EXPORT int ps_context_feature_index(const char *name);
/** The context features of @p n items — the blocks with text of their own,
 *  in document order — from their first-stage decision values @p score:
 *  @p parent[i] is the index (< i) of the nearest enclosing item or -1,
 *  @p chars[i] its own characters.  out[i * PS_CONTEXT_FEATURES + k] gets
 *  feature k of item i; every value is finite.  0, or -1 (out of memory). */
PS_EXPORT int ps_context_features(size_t n, const int32_t *parent, const uint32_t *chars,
                                  const double *score, double *out);
/** The same one item at a time: ps_context_new keeps what the items'
 *  features are made of (20 bytes an item; @p parent, @p chars and
 *  @p score are read, not copied: they must outlive it; NULL when out of
 *  memory, or when the characters add up to 2^32 or more),
 *  ps_context_item writes item @p i's PS_CONTEXT_FEATURES values into
 *  @p out, the values ps_context_features gives. */
typedef struct ps_context ps_context;
PS_EXPORT ps_context *ps_context_new(size_t n, const int32_t *parent, const uint32_t *chars,
                                     const double *score);
PS_EXPORT void ps_context_item(const ps_context *cx, size_t i, double *out);
PS_EXPORT void ps_context_free(ps_context *cx);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_FEATURES_H */
