/*
 * pagesift/model.h — block classifier bundles (train/model.c,
 * train/predict.c, docs/MODEL_FORMAT.md): load, check, predict, the second
 * stage of a stacked model, save.  Extraction loads them through
 * ps_extractor_config.model_path; this header is for programs that classify
 * blocks themselves.  The shipped model's path is in pagesift.h
 * (ps_model_default_path); training is pagesift/train.h.
 */
#ifndef PAGESIFT_MODEL_H
#define PAGESIFT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"
#include "pagesift/util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where ps_model_default_path() (pagesift.h) looks for the shipped model:
 * $PAGESIFT_MODEL if set; else the first readable of: default.model in the
 * models folder installed beside libpagesift (lib/../share/pagesift/
 * models), the same beside the program (bin/../share/...), and, for the
 * library of a build folder, the source tree's models/default.model.  When
 * none is there, the first place (a load then fails naming it). */

/** The places ps_model_default_path() looked at, for a message
 *  ("PATH (beside libpagesift), PATH (beside the program)"). */
PS_EXPORT const char *ps_model_default_searched(void);

/* A model bundle (docs/MODEL_FORMAT.md) is one text file: a header line
 * "pagesift-model 2", key-value lines (features, scaling, C, gamma, CV
 * scores, training data checksum, the body's CRC-32, ...), the embedded
 * libsvm model and an end line.  ps_model is the loaded, read-only form: one model may be used
 * by many threads at once. */

/** Format version written and read by this library. */
#define PS_MODEL_FORMAT_VERSION 2
/** Most features a model may use (prediction keeps them on the stack). */
#define PS_MODEL_MAX_FEATURES 96

typedef struct ps_model ps_model;

/** Load a bundle.  Refuses (NULL, err naming the file) a missing or
 *  truncated file (PS_ERR_IO / PS_ERR_FORMAT), a body whose checksum does
 *  not match (a changed digit: PS_ERR_FORMAT, "checksum mismatch"), a number
 *  that is not finite, another format version (PS_ERR_VERSION; version 1,
 *  without a checksum, with a message naming ps_model_upgrade's command),
 *  and a feature this library cannot compute (names it). */
PS_EXPORT ps_model *ps_model_load(const char *path, ps_error *err);
/** Re-save a format 1 bundle (no checksum) at @p in_path as the current
 *  format at @p out_path (may be the same file; atomic): the same model,
 *  byte for byte, with the new header line and its checksum line; checked
 *  as a load would before it is written.  0, or -1 with err (not format 1,
 *  damaged, unknown feature, write error). */
PS_EXPORT int ps_model_upgrade(const char *in_path, const char *out_path, ps_error *err);
/** The same from bytes in memory; @p name is used in messages. */
PS_EXPORT ps_model *ps_model_parse(const char *text, size_t len, const char *name, ps_error *err);
/** The second-stage bundle that follows @p m's end line in its file (a
 *  stacked model, docs/MODEL_FORMAT.md), parsed and checked as a load
 *  would; NULL with err->code 0 when none follows, NULL with err set when
 *  one follows but cannot be read. */
PS_EXPORT ps_model *ps_model_next_stage(const ps_model *m, ps_error *err);
/** Free what @p m keeps beyond prediction, once prediction is all that is
 *  asked of it: the bundle's text, for ps_model_save and
 *  ps_model_next_stage (as large as the file: 2 MB for the shipped model
 *  and as much again for its second stage), and its support vectors as
 *  read, in double precision, for training a site model or a reduction
 *  against it (prediction reads its own single-precision copy): 5.5 MB
 *  over the shipped model, its grid and typed companions.  After it,
 *  ps_model_save fails (PS_ERR_USAGE), ps_model_next_stage finds no stage
 *  and a site model cannot be trained against it (PS_ERR_USAGE).
 *  Prediction, the features and ps_model_info are unchanged. */
PS_EXPORT void ps_model_drop_text(ps_model *m);
/** The gate of a stacked model's second stage @p second (train/model_stack.c): the lowest
 *  first-stage score (c_self) among its labelled training rows.  A block the
 *  first stage scores lower is not judged again (it keeps its first-stage
 *  score); -3 (no gate) when it was trained on every row. */
PS_EXPORT double ps_model_stack_gate(const ps_model *second);
/** 1 when a block of first-stage score @p first_score lies below @p gate. */
PS_EXPORT int ps_stack_gated(double first_score, double gate);
/** Where each feature of a stacked model's second stage @p second comes
 *  from: src[k] >= 0 is its column in a first-stage row (of the features
 *  @p first_ids, n_first of them), src[k] = -1 - j context feature j.
 *  0, or -1 when the second stage reads a feature the first does not. */
PS_EXPORT int ps_context_sources(const ps_model *second, const int *first_ids, size_t n_first,
                                 int *src);
/** A second-stage row (@p n features, by @p src) from a block's
 *  first-stage row and its PS_CONTEXT_FEATURES context values. */
PS_EXPORT void ps_context_row(const int *src, size_t n, const double *first_row,
                              const double *context, double *row);
/** Write the bundle atomically (temporary file, fsync, rename). */
PS_EXPORT int ps_model_save(const ps_model *m, const char *path, ps_error *err);
/** Number of features, their ps_feature_lookup ids in model order, and
 *  their names comma-separated ("R1,R2,R3,R4,R5"). */
PS_EXPORT size_t ps_model_n_features(const ps_model *m);
PS_EXPORT const int *ps_model_feature_ids(const ps_model *m);
PS_EXPORT const char *ps_model_feature_names(const ps_model *m);
/** Value of a key of the bundle header ("C", "cv_f1", ...), or NULL. */
PS_EXPORT const char *ps_model_info(const ps_model *m, const char *key);
/** Classify one block: @p x holds the raw (unscaled) features in model
 *  order.  Returns 1 content / 0 noise; *score (may be NULL) is the decision
 *  value, > 0 leaning to content.  Thread-safe, allocates nothing. */
PS_EXPORT int ps_model_predict(const ps_model *m, const double *x, double *score);
/** Classify many blocks at once, each exactly as ps_model_predict would:
 *  row i is @p x + @p rows[i] * @p stride (raw features in model order;
 *  @p rows NULL: row i is x + i * stride).  content[i] gets 1 / 0 and
 *  score[i] (may be NULL) the decision value.  Faster than one call per row
 *  (the support vectors are read once per group of rows, from cache, instead
 *  of once per row).  Thread-safe, allocates nothing. */
PS_EXPORT void ps_model_predict_many(const ps_model *m, const double *x, size_t stride, const uint32_t *rows,
                           size_t n, uint8_t *content, double *score);
PS_EXPORT void ps_model_free(ps_model *m);

/* ---- writing bundles, for training (libpagesift-lab's train/) ---------- */

/** ps_model_parse, but @p check_features 0 keeps a model whose features
 *  this library cannot compute (ids -1): training writes such a bundle
 *  (with a warning), loading for use refuses it. */
PS_EXPORT ps_model *ps_model_parse_ex(const char *text, size_t len, const char *name,
                                      int check_features, ps_error *err);

/** Add the body checksum line (docs/MODEL_FORMAT.md) to a bundle written
 *  without one, before its libsvm-model-bytes line: 0, or -1 when the
 *  bundle's structure is not whole or memory ran out. */
PS_EXPORT int ps_model_bundle_seal(ps_buf *b);

/** The body checksum of a bundle (docs/MODEL_FORMAT.md): 0, or -1 when its
 *  structure is not whole. */
PS_EXPORT int ps_model_bundle_crc(const char *text, size_t len, uint32_t *crc);

/** A libsvm model (struct svm_model *) as libsvm's text (svm_save_model via
 *  a temporary file): malloc'ed, *len its bytes; NULL with err. */
PS_EXPORT char *ps_svm_model_to_text(const void *svm_model, size_t *len, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_MODEL_H */
