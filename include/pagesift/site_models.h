/* pagesift/site_models.h — per-site models (train/site_models.c): a
 * site's few labelled pages added to the general model, one bundle per
 * site in a model folder, picked by the page's site key at inference.
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
 * docs/SITE_MODELS.md, docs/MODEL_FORMAT.md ("Per-site bundles").  This
 * header: the model folder as inference reads it (train/site_models.c);
 * training a site's bundle and writing it: pagesift/train.h. */
#ifndef PAGESIFT_SITE_MODELS_H
#define PAGESIFT_SITE_MODELS_H
#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"
#include "pagesift/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The score of a block a site model's paths decide (ps_site_model_path_label):
 *  at least this for content, at most its negative for noise. */
#define PS_SITE_PATH_SCORE 1.0

/** A path decides only blocks of the size its labelled blocks had: at most
 *  this many times the characters of the longest (a photo credit's path
 *  does not decide the long caption another page puts there). */
#define PS_SITE_PATH_GROWTH 2

/** A site model scores only pages of the layout it learnt: a page with
 *  less than this share of its text at block paths its labelled pages had
 *  (ps_site_model_layout_share) gets the base model's scores (a redesign,
 *  or a section of the site the labelled pages did not cover). */
#define PS_SITE_LAYOUT_MIN 0.1

/** Default memory cap of the loaded site models (MB). */
#define PS_SITE_MODELS_CAP_MB 256


/** File name of @p site's bundle in a model folder: the template library's
 *  name (ps_template_file_name) with ".model" for ".tpl".  0 or -1. */
PS_EXPORT int ps_site_model_file_name(const char *site, char *out, size_t cap);


/** A model folder opened for inference: which sites have a bundle (read
 *  once), the bundles loaded on first use and kept in an LRU bounded by a
 *  memory cap.  Thread-safe. */
typedef struct ps_site_models ps_site_models;

/** Open @p dir for pages classified with @p base (borrowed; a site bundle
 *  that is a delta against another base — its base_checksum is not @p
 *  base's checksum — is refused at load, like a damaged one, and so is a
 *  whole bundle written before deltas whose features or block tags differ
 *  from base's; a reduced @p base: see ps_site_models_set_unreduced).  @p cap_bytes bounds the loaded bundles (0 = 256 MB; one
 *  bundle is always allowed).  NULL + err when @p dir is not a readable
 *  folder. */
PS_EXPORT ps_site_models *ps_site_models_open(const char *dir, const ps_model *base, size_t cap_bytes,
                                              ps_error *err);

/** A reduced base (issue 33; pagesift-train --reduce, its reduced_from
 *  key) and the site bundles made against the model it was reduced from:
 *  that model's first stage (a whole model, not a delta, borrowed: it must
 *  outlive the store), or NULL + err when it cannot be had. */
typedef const ps_model *(*ps_site_unreduced_fn)(void *ctx, ps_error *err);

/** When @p s's base is a reduced bundle, a delta whose base_checksum is
 *  the checksum its reduced_from names is read against the model @p fn
 *  gives (the caller's to check: ps_model_check_reduction; the delta's own
 *  base checks apply as against any base).  @p fn is called once, on the
 *  first such bundle (from the ps_site_models_get that loads it; the
 *  others wait for its answer), never when no bundle needs it; when it
 *  fails, those bundles are refused (one warning a run, with its error).
 *  Without it they are refused as today.  Call before any
 *  ps_site_models_get. */
PS_EXPORT void ps_site_models_set_unreduced(ps_site_models *s, ps_site_unreduced_fn fn, void *ctx);

/** 0 when @p reduced's reduced_from key ("<checksum> <support vectors>")
 *  names @p unreduced (its checksum key and support vector count: the
 *  same stage of the bundle it was reduced from), else -1 + err. */
PS_EXPORT int ps_model_check_reduction(const ps_model *reduced, const ps_model *unreduced, ps_error *err);

/** Number of site bundles in the folder. */
PS_EXPORT size_t ps_site_models_count(const ps_site_models *s);
/** 1 when the folder holds a bundle for @p site (it may still be refused
 *  when loaded), else 0.  Loads nothing. */
PS_EXPORT int ps_site_models_has(const ps_site_models *s, const char *site);

/** The model of @p site, loaded if needed, held until ps_site_models_release;
 *  NULL when the site has no bundle or its bundle cannot be used (damaged,
 *  another format, a delta against another base: a warning on stderr once
 *  per site, then the caller uses the base; made against the model a
 *  reduced base was reduced from, that model not at hand: one warning for
 *  all of them).  A delta shares the base's
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

/** A site model's label of a block by its DOM path (ps_block.path, the
 *  block CSV's block_path) and its own text characters @p chars
 *  (ps_block.own.text_chars, the CSV's inner_len): 1 content, 0 noise,
 *  when the site's labelled pages agree on the block at that path (at
 *  least two pages, 99 % of its labelled characters one way; pagesift-train
 *  keeps such paths only where its cross-validation says they help) and
 *  the block has at most PS_SITE_PATH_GROWTH times the characters of the
 *  longest labelled one there; else -1 (also for a model without paths: a
 *  whole model, or a bundle made before them).  The per-site classifier
 *  gives such a block a score of at least 1 / at most -1 after both stages
 *  (docs/SITE_MODELS.md, "Block paths"). */
PS_EXPORT int ps_site_model_path_label(const ps_model *m, const char *path, uint32_t chars);

/** How much of a page is in the layout of site model @p m's labelled
 *  pages: the share of the own text characters of @p page's blocks @p
 *  blocks (@p n indices; NULL: every block) that sit at a block path some
 *  block with text had on those pages.  1 for a page without text; NAN
 *  when @p m carries no layout (a whole model, or a bundle made before
 *  it).  Below PS_SITE_LAYOUT_MIN the per-site classifier leaves the page
 *  to the base model. */
PS_EXPORT double ps_site_model_layout_share(const ps_model *m, const ps_page *page, const uint32_t *blocks,
                                            size_t n);

/** 1 when the site model @p m leaves its base's SVM as it is (a delta with
 *  no coefficient of its own: block paths alone, or a site without
 *  labelled rows), so that the base's own scores are its scores; else 0. */
PS_EXPORT int ps_site_model_is_base(const ps_model *m);

PS_EXPORT void ps_site_models_free(ps_site_models *s);

/** A per-site bundle in memory (a delta, or a whole bundle) read against
 *  its base @p base as inference reads it (training reads back each bundle
 *  it writes with it); @p name is used in messages.  NULL with err. */
PS_EXPORT ps_model *ps_site_model_parse(const char *text, size_t len, const char *name, const ps_model *base,
                                        ps_error *err);

#ifdef __cplusplus
}
#endif
#endif
