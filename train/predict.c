/* train/predict.c — the RBF decision function at inference, the hot path of
 * extraction (every block with text, on every page).
 *
 * dec = sum_i coef[i] * exp(-gamma * |x - sv_i|^2) - rho, evaluated from the
 * dense support vectors ps_model_load made: no allocation per call, no shared
 * mutable state.  The support vectors are taken in chunks: first the
 * distances of a chunk, then their exponentials in one loop, then the sum, so
 * that the compiler vectorises both loops and calls glibc's vector exp
 * (libmvec).  CMake compiles this one file with -O3 -ffast-math for that;
 * the result agrees with libsvm's svm_predict_values to about 1e-12
 * (tests/test_train.c checks 1e-9).  fast-math assumes finite numbers: no
 * NaN/Inf test may live in this file (features are finite ratios of counts;
 * the model's numbers are checked finite when it is parsed, in model.c). */
#include <math.h>

#include "train/train_internal.h"

#define CHUNK 64

int ps_model_predict(const ps_model *m, const double *x, double *score)
{
    double xs[PS_MODEL_MAX_FEATURES];
    double e[CHUNK];
    const size_t n = m->n_features;
    for (size_t k = 0; k < n; k++)
        xs[k] = (x[k] - m->shift[k]) * m->factor[k];
    const double g = m->gamma;
    double sum = 0;
    for (size_t i0 = 0; i0 < m->n_sv; i0 += CHUNK) {
        size_t c = m->n_sv - i0 < CHUNK ? m->n_sv - i0 : CHUNK;
        const double *sv = m->sv + i0 * n;
        for (size_t j = 0; j < c; j++, sv += n) {
            double d2 = 0;
            for (size_t k = 0; k < n; k++) {
                double d = xs[k] - sv[k];
                d2 += d * d;
            }
            e[j] = -g * d2;
        }
        for (size_t j = 0; j < c; j++)
            e[j] = exp(e[j]);
        const double *coef = m->coef + i0;
        for (size_t j = 0; j < c; j++)
            sum += coef[j] * e[j];
    }
    double dec = sum - m->rho;
    /* libsvm: dec > 0 means its first label */
    int content = m->content_first ? dec > 0 : !(dec > 0);
    if (score)
        *score = m->content_first ? dec : -dec;
    return content;
}
