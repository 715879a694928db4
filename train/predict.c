/* train/predict.c — the RBF decision function at inference, the hot path of
 * extraction (every block with text, on every page).
 *
 * dec = sum_i coef[i] * exp(-gamma * |x - sv_i|^2) - rho, evaluated from the
 * support vectors as ps_model_load laid them out: the features that can
 * differ from 0 only (a feature constant in training scales to 0 on every
 * page; where every support vector has 0 too it adds (0 - 0)^2 = 0 to each
 * distance, so leaving it out changes no bit), in chunks of PS_SV_CHUNK,
 * feature-major inside a chunk, so that the distances of a chunk are summed
 * lane by lane, then exponentiated in one loop and weighted: the compiler
 * vectorises all three loops and calls glibc's vector exp (libmvec).  No
 * allocation per call, no shared mutable state.  CMake compiles this one file with -O3 -ffast-math for that;
 * the result agrees with libsvm's svm_predict_values to about 1e-12
 * (tests/test_train.c checks 1e-9).  fast-math assumes finite numbers: no
 * NaN/Inf test may live in this file (features are finite ratios of counts;
 * the model's numbers are checked finite when it is parsed, in model.c). */
#include <math.h>

#include "train/train_internal.h"

/* One build runs everywhere, and uses AVX2 (4 doubles a step, and glibc's
 * AVX2 exp) where the CPU has it: gcc makes both versions and picks one at
 * load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
int ps_model_predict(const ps_model *m, const double *x, double *score)
{
    double xs[PS_MODEL_MAX_FEATURES];
    double d2[PS_SV_CHUNK];
    const size_t n = m->n_active; /* the features left out add 0 exactly */
    for (size_t a = 0; a < n; a++) {
        const size_t k = m->active[a];
        xs[a] = (x[k] - m->shift[k]) * m->factor[k];
    }
    const double g = -m->gamma;
    double sum = 0;
    const double *sv = m->svt;
    for (size_t c = 0; c < m->n_chunks; c++) {
        for (size_t j = 0; j < PS_SV_CHUNK; j++)
            d2[j] = 0;
        for (size_t k = 0; k < n; k++, sv += PS_SV_CHUNK) {
            const double xk = xs[k];
            for (size_t j = 0; j < PS_SV_CHUNK; j++) {
                double d = xk - sv[j];
                d2[j] += d * d;
            }
        }
        for (size_t j = 0; j < PS_SV_CHUNK; j++)
            d2[j] = exp(g * d2[j]);
        const double *coef = m->coefp + c * PS_SV_CHUNK;
        for (size_t j = 0; j < PS_SV_CHUNK; j++)
            sum += coef[j] * d2[j];
    }
    double dec = sum - m->rho;
    /* libsvm: dec > 0 means its first label */
    int content = m->content_first ? dec > 0 : !(dec > 0);
    if (score)
        *score = m->content_first ? dec : -dec;
    return content;
}
