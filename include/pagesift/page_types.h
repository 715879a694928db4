/*
 * pagesift/page_types.h — the page-type classifier: which kind of page a
 * page is (wcxb-dev's seven: article, collection, documentation, forum,
 * listing, product, service), with a probability (train/page_types.c,
 * docs/PAGE_TYPES.md).  Extraction uses it through ps_extractor_config's
 * page_types_path and reports ps_extraction.page_type; this header is for
 * programs that classify (training: pagesift/train.h).
 */
#ifndef PAGESIFT_PAGE_TYPES_H
#define PAGESIFT_PAGE_TYPES_H

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_page_types ps_page_types;

/** Load a page-type bundle (docs/MODEL_FORMAT.md, "Page-type bundles"),
 *  checking its checksum and that this pagesift computes its signals. */
PS_EXPORT ps_page_types *ps_page_types_load(const char *path, ps_error *err);
/** The same from @p len bytes in memory; @p name names it in errors. */
PS_EXPORT ps_page_types *ps_page_types_parse(const char *text, size_t len, const char *name, ps_error *err);
PS_EXPORT void ps_page_types_free(ps_page_types *m);
/** Number of page types, and the name of type @p i (NULL past the end). */
PS_EXPORT size_t ps_page_types_count(const ps_page_types *m);
PS_EXPORT const char *ps_page_types_label(const ps_page_types *m, size_t i);
/** A header value of the bundle (cv_accuracy, cv_confusion, ...) copied
 *  into @p out (cap bytes); NULL when it has no such key. */
PS_EXPORT const char *ps_page_types_info(const ps_page_types *m, const char *key, char *out, size_t cap);
/** Classify @p page: @p prob (may be NULL) gets ps_page_types_count()
 *  probabilities in label order, summing to 1.  Returns the most likely
 *  type's index, or -1 with err set.  Thread-safe on a shared model. */
PS_EXPORT int ps_page_types_classify(const ps_page_types *m, const ps_page *page, double *prob,
                                     ps_error *err);
/** ps_page_types_classify, and note the probabilities in @p page for the
 *  block features x_type_* (a model trained with them reads them):
 *  ps_extract does it before the method runs, pagesift-features
 *  --page-types before the features are computed. */
PS_EXPORT int ps_page_types_attach(const ps_page_types *m, ps_page *page, double *prob, ps_error *err);
/** The shipped page-type bundle: page-types.model beside the shipped model
 *  (ps_model_default_path's folder; PAGESIFT_PAGE_TYPES when set). */
PS_EXPORT const char *ps_page_types_default_path(void);

/* ---- the signals it reads (extract/page_signals.c) ------------------------ */

/** Number of page signals (what the classifier reads of a whole page:
 *  docs/PAGE_TYPES.md), and the name of signal @p i (NULL past the end). */
PS_EXPORT size_t ps_page_signal_count(void);
PS_EXPORT const char *ps_page_signal_name(size_t i);
/** The signals of @p page into @p out (ps_page_signal_count() values, every
 *  hashed block too).  Returns 0, or -1 when out of memory. */
PS_EXPORT int ps_page_signals(const ps_page *page, double *out);
/** An upper bound of ps_page_signal_count() (for buffers). */
#define PS_PAGE_SIGNALS_MAX 1024
/** The hashed token signals come after the hand-made ones, in blocks
 *  (docs/PAGE_TYPES.md, "Hashed token signals").  The hand-made ones'
 *  count; the block of signal @p i (0, 1, ...), -1 for a hand-made one. */
PS_EXPORT size_t ps_page_signal_base_count(void);
PS_EXPORT int ps_page_signal_block(size_t i);
/** The blocks named in @p spec as a bit set (bit b: block b) into @p blocks:
 *  "c", "u", "t", "x" (class and id words 256, URL words 96, element names
 *  64, structure words 96: the 512 of the sixteenth round), "c128", "u64",
 *  "t32", "x32" (the same tokens in 256 in all), run together or separated
 *  by commas ("cutx", "c128,u64,t32,x32").  NULL or "" is no block.
 *  Returns 0, or -1 for an unknown name. */
PS_EXPORT int ps_page_hash_blocks(const char *spec, unsigned *blocks);
/** ps_page_signals with the hashed signals of the blocks in @p blocks only
 *  (0: the hand-made ones only, at their cost alone): @p out has room for
 *  ps_page_signal_count() values; the other blocks' are not written.  A
 *  page-type bundle computes the blocks it names, and only those. */
PS_EXPORT int ps_page_signals_select(const ps_page *page, double *out, unsigned blocks);

#ifdef __cplusplus
}
#endif
#endif
