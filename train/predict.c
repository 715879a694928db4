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
 * 4 % with AVX2 (docs/research/SPEED.md), for the same bits of every distance
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
 * With AVX-512, four rows at a time (chunk_rows4): each support vector of
 * the chunk is loaded into a register once for the four rows, where the
 * compiler made a load for every row and vector (a memory operand of each
 * subtraction), and the loads rather than the multiply-adds bounded the
 * loop (what the experiments of docs/research/SPEED.md point to): 16
 * independent multiply-add chains instead of 4.  Each row's distances are the same
 * subtractions and fused multiply-adds in the same order, and its
 * exponentials and weighted sum the same code (chunk_sum), so the bits are
 * the ones the one-row loop gives (tests/test_train.c compares tiles with
 * rows one at a time, bit for bit).  The 9 606 rows of 60 dragnet pages
 * (both stages), AMD EPYC: about a quarter less CPU in the kernel
 * (docs/research/SPEED.md, the kernels).  AVX2 has 16 registers, as many as one
 * row's chunk takes: one row at a time there.
 *
 * CMake compiles this one file with -O3 -ffast-math for that.  fast-math
 * assumes finite numbers: no NaN/Inf test may live
 * in this file (features are finite ratios of counts; the model's numbers
 * are checked finite when it is parsed, in model.c). */
#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PS_PREDICT_X86 1
#include <immintrin.h>
#endif

#include "train/model_internal.h"

#define PS_PREDICT_TILE 32

/* A chunk's 64 squared distances d2 (overwritten) exponentiated and
 * weighted, added to *sum: the one code for every row, so the same bits. */
static inline __attribute__((always_inline)) void chunk_sum(float *d2, const double *coef, float g,
                                                            double *sum)
{
    for (size_t j = 0; j < PS_SV_CHUNK; j++)
        d2[j] = expf(g * d2[j]);
    double s = *sum;
    for (size_t j = 0; j < PS_SV_CHUNK; j++)
        s += coef[j] * d2[j];
    *sum = s;
}

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
    chunk_sum(d2, coef, g, sum);
}

#ifdef PS_PREDICT_X86
/* Four rows (xs: 4 rows of n) against one chunk with AVX-512: what
 * chunk_row does for each, bit for bit (d2 += d * d is the fused
 * multiply-add the AVX-512 version of chunk_row is compiled to), with each
 * support vector loaded once for the four rows.  The empty asm keeps the
 * four loads in registers: without it gcc folds them into the 16
 * subtractions again. */
__attribute__((target("avx512f"))) static inline void chunk_rows4(const float *sv, const double *coef,
                                                                  const float *xs, size_t n, float g,
                                                                  double *sum)
{
    __m512 acc[4][4];
    for (int r = 0; r < 4; r++)
        for (int v = 0; v < 4; v++)
            acc[r][v] = _mm512_setzero_ps();
    for (size_t k = 0; k < n; k++, sv += PS_SV_CHUNK) {
        __m512 s0 = _mm512_loadu_ps(sv), s1 = _mm512_loadu_ps(sv + 16), s2 = _mm512_loadu_ps(sv + 32),
               s3 = _mm512_loadu_ps(sv + 48);
        __asm__("" : "+v"(s0), "+v"(s1), "+v"(s2), "+v"(s3));
        for (int r = 0; r < 4; r++) {
            const __m512 xk = _mm512_set1_ps(xs[(size_t)r * n + k]);
            __m512 d;
            d = _mm512_sub_ps(xk, s0);
            acc[r][0] = _mm512_fmadd_ps(d, d, acc[r][0]);
            d = _mm512_sub_ps(xk, s1);
            acc[r][1] = _mm512_fmadd_ps(d, d, acc[r][1]);
            d = _mm512_sub_ps(xk, s2);
            acc[r][2] = _mm512_fmadd_ps(d, d, acc[r][2]);
            d = _mm512_sub_ps(xk, s3);
            acc[r][3] = _mm512_fmadd_ps(d, d, acc[r][3]);
        }
    }
    for (int r = 0; r < 4; r++) {
        float d2[PS_SV_CHUNK];
        for (int v = 0; v < 4; v++)
            _mm512_storeu_ps(d2 + 16 * v, acc[r][v]);
        chunk_sum(d2, coef, g, &sum[r]);
    }
}
#endif

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
__attribute__((target_clones("avx512f", "arch=x86-64-v3", "avx2", "default")))
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

/* The tiles of a whole model; rows4: four rows at a time (AVX-512 only). */
static inline __attribute__((always_inline)) void predict_tiles(const ps_model *m, const double *x, size_t stride,
                                                                const uint32_t *rows, size_t n_rows,
                                                                uint8_t *content, double *score, int rows4)
{
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
            size_t r = 0;
#ifdef PS_PREDICT_X86
            for (; rows4 && r + 4 <= nr; r += 4)
                chunk_rows4(sv, coef, xs + r * n, n, g, &sum[r]);
#else
            (void)rows4;
#endif
            for (; r < nr; r++)
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

/* One build runs everywhere: four versions, one picked by the CPU at run
 * time.  AVX-512 (16 floats a step, fused multiply-add, glibc's AVX-512
 * expf, four rows at a time) where the CPU has it: on an Intel Xeon with it,
 * -j 1 over dragnet took 8 % less CPU than with AVX2 (docs/research/SPEED.md,
 * the kernels); AVX2 with fused multiply-add (x86-64-v3: AVX2 with FMA,
 * BMI and F16C, nearly every AVX2 CPU, the AMD EPYC machines here among
 * them) otherwise: d2 +=
 * d * d one instruction instead of two, 8.0 % fewer instructions over 60
 * dragnet pages under callgrind (2 323 M -> 2 137 M; docs/research/SPEED.md,
 * "AVX2 with fused multiply-add"); AVX2 alone on the CPUs without FMA; SSE2
 * everywhere else.  The versions round differently in the last bits (the
 * fused multiply-add): the shipped models of issue 14's eighth and ninth
 * rounds gave the same texts with AVX2 and AVX-512 on all seven data sets,
 * and the FMA version gives the same outputs as AVX2 alone on all eight
 * (scripts/compare-outputs).  The AVX-512 version is a function of its own
 * (target "avx512f", chosen by __builtin_cpu_supports, as the
 * target_clones resolver chooses: the CPU and the OS's saving of its
 * registers), the other three gcc's clones. */
#ifdef PS_PREDICT_X86
__attribute__((target("avx512f"))) static void predict_avx512(const ps_model *m, const double *x, size_t stride,
                                                               const uint32_t *rows, size_t n_rows,
                                                               uint8_t *content, double *score)
{
    predict_tiles(m, x, stride, rows, n_rows, content, score, 1);
}

__attribute__((target_clones("arch=x86-64-v3", "avx2", "default"))) static void
predict_other(const ps_model *m, const double *x, size_t stride, const uint32_t *rows, size_t n_rows,
              uint8_t *content, double *score)
{
    predict_tiles(m, x, stride, rows, n_rows, content, score, 0);
}
#endif

void ps_model_predict_many(const ps_model *m, const double *x, size_t stride, const uint32_t *rows,
                           size_t n_rows, uint8_t *content, double *score)
{
    if (m->delta_base) { /* a site model sharing its base's support vectors */
        predict_many_delta(m, x, stride, rows, n_rows, content, score);
        return;
    }
#ifdef PS_PREDICT_X86
    if (__builtin_cpu_supports("avx512f"))
        predict_avx512(m, x, stride, rows, n_rows, content, score);
    else
        predict_other(m, x, stride, rows, n_rows, content, score);
#else
    predict_tiles(m, x, stride, rows, n_rows, content, score, 0);
#endif
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
