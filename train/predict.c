/* train/predict.c — the RBF decision function at inference, the hot path of
 * extraction (every block with text, on every page).
 *
 * dec = sum_i coef[i] * exp(-gamma * |x - sv_i|^2) - rho, evaluated from the
 * support vectors as ps_model_load laid them out: the features that can
 * differ from 0 only (a feature constant in training scales to 0 on every
 * page; where every support vector has 0 too it adds (0 - 0)^2 = 0 to each
 * distance), in chunks of PS_SV_CHUNK, feature-major inside a chunk, so that
 * the distances of a chunk are summed lane by lane, then exponentiated in one
 * loop and weighted: the compiler vectorises all three loops and calls
 * glibc's vector expf (libmvec).
 *
 * Single precision for the support vectors, the scaled row, the distances
 * and exp (8 lanes per AVX2 step instead of 4); the weighted sum and rho in
 * double.  Scaled features lie in [0, 1] (about [-1, 2] off the training
 * range), so a distance over 41 features keeps ~6 significant digits: the
 * decision values agree with libsvm's double-precision ones to 1.5e-5 in
 * tests/test_train.c (checked to 1e-4), and on all 188 000 blocks of the six
 * data sets (p/td/table blocks, the shipped model) no class changed and every
 * output was byte-identical to the double kernel's, which took 0.3 s more CPU
 * on dragnet (3.1 s against 2.8 s).
 *
 * A chunk is 64 support vectors (train/train_internal.h): a row's sums of
 * squares are then 4 independent chains of 16 lanes with AVX-512 (8 chains
 * of 8 with AVX2), enough to keep the multiply-add units busy; with 32
 * there were 2 (4), and each multiply-add waited for the one before it.
 * pagesift-classify over dragnet's 102 682 rows: 9 % less CPU with AVX-512,
 * 4 % with AVX2 (docs/EXTRACTION.md), for the same bits of every distance
 * (only the chunk's weighted sum is added in another order).
 *
 * Rows are classified in tiles of PS_PREDICT_TILE: each chunk of support
 * vectors (n_active * PS_SV_CHUNK floats, 11 KB for the shipped model) is
 * used for every row of the tile while it is in the L1 cache, instead of
 * streaming all support vectors (400 KB) from L2/L3 once per row.  Every row
 * goes through the same per-chunk code in the same order whether it is
 * classified alone (ps_model_predict) or in a tile, so both give the same
 * bits.  No allocation per call, no shared mutable state.
 *
 * CMake compiles this one file with -O3 -ffast-math for that.  fast-math
 * assumes finite numbers: no NaN/Inf test may live
 * in this file (features are finite ratios of counts; the model's numbers
 * are checked finite when it is parsed, in model.c). */
#include <math.h>

#include "train/model_internal.h"

#define PS_PREDICT_TILE 32

/* One row against one chunk: the chunk's weighted kernel values added to
 * *sum.  Inlined into each clone below. */
static inline __attribute__((always_inline)) void chunk_row(const float *sv, const double *coef,
                                                            const float *xs, size_t n, float g,
                                                            double *sum)
{
    float d2[PS_SV_CHUNK];
    for (size_t j = 0; j < PS_SV_CHUNK; j++)
        d2[j] = 0;
    for (size_t k = 0; k < n; k++, sv += PS_SV_CHUNK) {
        const float xk = xs[k];
        for (size_t j = 0; j < PS_SV_CHUNK; j++) {
            float d = xk - sv[j];
            d2[j] += d * d;
        }
    }
    for (size_t j = 0; j < PS_SV_CHUNK; j++)
        d2[j] = expf(g * d2[j]);
    double s = *sum;
    for (size_t j = 0; j < PS_SV_CHUNK; j++)
        s += coef[j] * d2[j];
    *sum = s;
}

/* A per-site model read from a delta bundle (train/site_models.c): the
 * tiles of ps_model_predict_many below and the same per-chunk code
 * (chunk_row), over the base's chunks weighted with the site's
 * coefficients (m->base_coefp), then the site's own chunks (m->svt,
 * m->coefp, laid out in the base's active features).  Each kernel value is
 * the one the whole site model computes for that support vector, bit for
 * bit (the same floats, the same code); only the order of the double sum
 * differs (the whole model has libsvm's order, by class), and the W copies
 * of a site row are one vector with their summed coefficient: on the
 * sample's 3 219 blocks the decision values differ by 6e-12 at most
 * (tests/test_site_models.c checks 1e-9).  A separate function, so the
 * default model's loop below is the one it always was (one test at its
 * entry sends a delta here). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void predict_many_delta(const ps_model *m, const double *x, size_t stride, const uint32_t *rows,
                               size_t n_rows, uint8_t *content, double *score)
{
    float xs[PS_PREDICT_TILE * PS_MODEL_MAX_FEATURES];
    double sum[PS_PREDICT_TILE];
    const ps_model *b = m->delta_base;
    const size_t n = m->n_active; /* the base's */
    const float g = (float)-m->gamma;
    for (size_t r0 = 0; r0 < n_rows; r0 += PS_PREDICT_TILE) {
        const size_t nr = n_rows - r0 < PS_PREDICT_TILE ? n_rows - r0 : PS_PREDICT_TILE;
        for (size_t r = 0; r < nr; r++) {
            const double *row = x + (rows ? rows[r0 + r] : r0 + r) * stride;
            for (size_t a = 0; a < n; a++) {
                const size_t k = m->active[a];
                xs[r * n + a] = (float)((row[k] - m->shift[k]) * m->factor[k]);
            }
            sum[r] = 0;
        }
        const float *sv = b->svt;
        for (size_t c = 0; c < b->n_chunks; c++, sv += n * PS_SV_CHUNK) {
            const double *coef = m->base_coefp + c * PS_SV_CHUNK;
            for (size_t r = 0; r < nr; r++)
                chunk_row(sv, coef, xs + r * n, n, g, &sum[r]);
        }
        sv = m->svt;
        for (size_t c = 0; c < m->n_chunks; c++, sv += n * PS_SV_CHUNK) {
            const double *coef = m->coefp + c * PS_SV_CHUNK;
            for (size_t r = 0; r < nr; r++)
                chunk_row(sv, coef, xs + r * n, n, g, &sum[r]);
        }
        for (size_t r = 0; r < nr; r++) {
            double dec = sum[r] - m->rho;
            content[r0 + r] = (uint8_t)(m->content_first ? dec > 0 : !(dec > 0));
            if (score)
                score[r0 + r] = m->content_first ? dec : -dec;
        }
    }
}

/* One build runs everywhere: gcc makes three versions and picks one at load
 * time by the CPU.  AVX-512 (16 floats a step, fused multiply-add, glibc's
 * AVX-512 expf) where the CPU has it: on an Intel Xeon with it, -j 1 over
 * dragnet takes 8 % less CPU (docs/EXTRACTION.md, Speed); AVX2 (8 floats a
 * step, glibc's AVX2 expf) otherwise where it can; SSE2 everywhere else.
 * The versions round differently in the last bits (the fused
 * multiply-add): the shipped models of issue 14's eighth and ninth rounds
 * gave the same texts with AVX2 and AVX-512 on all seven data sets. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void ps_model_predict_many(const ps_model *m, const double *x, size_t stride, const uint32_t *rows,
                           size_t n_rows, uint8_t *content, double *score)
{
    if (m->delta_base) { /* a site model sharing its base's support vectors */
        predict_many_delta(m, x, stride, rows, n_rows, content, score);
        return;
    }
    float xs[PS_PREDICT_TILE * PS_MODEL_MAX_FEATURES];
    double sum[PS_PREDICT_TILE];
    const size_t n = m->n_active; /* the features left out add 0 */
    const float g = (float)-m->gamma;
    for (size_t r0 = 0; r0 < n_rows; r0 += PS_PREDICT_TILE) {
        const size_t nr = n_rows - r0 < PS_PREDICT_TILE ? n_rows - r0 : PS_PREDICT_TILE;
        for (size_t r = 0; r < nr; r++) {
            const double *row = x + (rows ? rows[r0 + r] : r0 + r) * stride;
            for (size_t a = 0; a < n; a++) {
                const size_t k = m->active[a];
                xs[r * n + a] = (float)((row[k] - m->shift[k]) * m->factor[k]);
            }
            sum[r] = 0;
        }
        const float *sv = m->svt;
        for (size_t c = 0; c < m->n_chunks; c++, sv += n * PS_SV_CHUNK) {
            const double *coef = m->coefp + c * PS_SV_CHUNK;
            for (size_t r = 0; r < nr; r++)
                chunk_row(sv, coef, xs + r * n, n, g, &sum[r]);
        }
        for (size_t r = 0; r < nr; r++) {
            double dec = sum[r] - m->rho;
            /* libsvm: dec > 0 means its first label */
            content[r0 + r] = (uint8_t)(m->content_first ? dec > 0 : !(dec > 0));
            if (score)
                score[r0 + r] = m->content_first ? dec : -dec;
        }
    }
}

int ps_model_predict(const ps_model *m, const double *x, double *score)
{
    uint8_t content;
    double s;
    ps_model_predict_many(m, x, 0, NULL, 1, &content, &s);
    if (score)
        *score = s;
    return content;
}
