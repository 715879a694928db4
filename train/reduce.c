/* train/reduce.c — a reduced-set approximation of a model bundle's RBF
 * decision function (issue 33, `pagesift-train --reduce`): per stage, M
 * centres in place of the support vectors and M coefficients and rho
 * re-fitted so that the decision values match the original's on real blocks.
 *
 * Method (docs/research/SPEED.md, "Issue 33: a reduced-set classifier"):
 *  - gamma is kept; the centres are a k-means (k-means++ seeding, Lloyd
 *    steps) of the scaled support vectors, each weighted by |coefficient|,
 *    separately for the positive and the negative coefficients (M shared
 *    in proportion to the vectors of each sign);
 *  - the coefficients and rho are a ridge least-squares fit of the
 *    original decision values on a seeded sample of the rows of the block
 *    CSVs given (labelled and unlabelled: every block the classifier
 *    scores), solved by a Cholesky factorisation written here (no LAPACK
 *    in the stack);
 *  - a stacked bundle: the first stage is reduced first; the second stage
 *    is then fitted on the rows its context features get from the REDUCED
 *    first stage's scores, to the original stack's final scores, so it
 *    learns to make up for the first stage's error where it can.
 * The result is an ordinary bundle (docs/MODEL_FORMAT.md) with the keys
 * reduced_from, reduce_* added: extraction reads it as any other. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift.h"
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "pagesift/model.h"
#include "pagesift/train.h"
#include "train/train_internal.h"

void ps_reduce_options_init(ps_reduce_options *o)
{
    memset(o, 0, sizeof *o);
    o->share = 0.5;
    o->fit_rows = 20000;
    o->ridge = 1e-10;
    o->kmeans_iters = 25;
    o->boundary_width = 0.5;
    o->boundary_weight = 10;
    o->seed = 1;
}

/* ---- the rows of the block CSVs ---------------------------------------- */

typedef struct rows {
    size_t n, cap, nf;
    double *x;        /* n * nf raw features, the first stage's order */
    int32_t *parent;  /* page-local index of the nearest enclosing row, -1 */
    uint32_t *chars;
    size_t *page_start; /* n_pages + 1 */
    size_t n_pages, page_cap;
} rows;

static void rows_free(rows *r)
{
    free(r->x);
    free(r->parent);
    free(r->chars);
    free(r->page_start);
}

static int rows_grow(rows *r)
{
    if (r->n < r->cap)
        return 0;
    size_t cap = r->cap ? 2 * r->cap : 4096;
    double *x = realloc(r->x, cap * r->nf * sizeof *x);
    if (!x)
        return -1;
    r->x = x;
    int32_t *p = realloc(r->parent, cap * sizeof *p);
    if (!p)
        return -1;
    r->parent = p;
    uint32_t *c = realloc(r->chars, cap * sizeof *c);
    if (!c)
        return -1;
    r->chars = c;
    r->cap = cap;
    return 0;
}

static int rows_new_page(rows *r)
{
    if (r->n_pages + 2 > r->page_cap) {
        size_t cap = r->page_cap ? 2 * r->page_cap : 1024;
        size_t *p = realloc(r->page_start, cap * sizeof *p);
        if (!p)
            return -1;
        r->page_start = p;
        r->page_cap = cap;
    }
    r->page_start[r->n_pages++] = r->n;
    r->page_start[r->n_pages] = r->n;
    return 0;
}

/* Every row of @p path: the features of @p m, and with @p context the
 * block_path (for each row's parent) and inner_len. */
static int read_csv(rows *r, const ps_model *m, int context, const char *path, ps_error *err)
{
    ps_csv *csv = ps_csv_open(path, err);
    if (!csv)
        return -1;
    size_t nf = ps_model_n_features(m);
    int cols[PS_MODEL_MAX_FEATURES];
    int rc = 0;
    char *names = strdup(ps_model_feature_names(m)), *save = NULL;
    char **paths = NULL, *cur = NULL;
    size_t n_paths = 0, cap_paths = 0;
    if (!names) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t k = 0;
    for (char *t = strtok_r(names, ",", &save); t && k < nf; t = strtok_r(NULL, ",", &save)) {
        if ((cols[k++] = ps_csv_require(csv, t, err)) < 0) {
            rc = -1;
            goto out;
        }
    }
    int c_ds = ps_csv_column(csv, "dataset"), c_id = ps_csv_require(csv, "page_id", err);
    if (c_id < 0) {
        rc = -1;
        goto out;
    }
    int c_path = -1, c_len = -1;
    if (context && ((c_path = ps_csv_require(csv, "block_path", err)) < 0 ||
                    (c_len = ps_csv_require(csv, "inner_len", err)) < 0)) {
        rc = -1;
        goto out;
    }
    int got;
    while ((got = ps_csv_next(csv, err)) == 1) {
        const char *ds = c_ds >= 0 ? ps_csv_field(csv, (size_t)c_ds) : "";
        const char *id = ps_csv_field(csv, (size_t)c_id);
        size_t kl = strlen(ds) + strlen(id) + 2;
        char key[1024];
        snprintf(key, sizeof key, "%s%c%s", ds, 1, id);
        if (!cur || strcmp(cur, key) != 0 || kl >= sizeof key) {
            free(cur);
            cur = strdup(key);
            for (size_t i = 0; i < n_paths; i++)
                free(paths[i]);
            n_paths = 0;
            if (!cur || rows_new_page(r) != 0) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                goto out;
            }
        }
        if (rows_grow(r) != 0) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        size_t i = r->n;
        for (size_t j = 0; j < nf; j++)
            if (ps_csv_number(csv, (size_t)cols[j], &r->x[i * nf + j], err) < 0) {
                rc = -1;
                goto out;
            }
        size_t local = i - r->page_start[r->n_pages - 1];
        int32_t par = -1;
        uint32_t chars = 0;
        if (context) {
            if (ps_csv_count(csv, (size_t)c_len, &chars, err) < 0) {
                rc = -1;
                goto out;
            }
            const char *bp = ps_csv_field(csv, (size_t)c_path);
            par = ps_csv_row_parent((const char *const *)paths, r->parent + r->page_start[r->n_pages - 1], 0,
                                    local, bp);
            if (n_paths == cap_paths) {
                size_t cap = cap_paths ? 2 * cap_paths : 256;
                char **p = realloc(paths, cap * sizeof *p);
                if (!p) {
                    rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                    goto out;
                }
                paths = p;
                cap_paths = cap;
            }
            if (!(paths[n_paths++] = strdup(bp))) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                goto out;
            }
        }
        r->parent[i] = par;
        r->chars[i] = chars;
        r->n++;
        r->page_start[r->n_pages] = r->n;
    }
    if (got < 0)
        rc = -1;
out:
    for (size_t i = 0; i < n_paths; i++)
        free(paths[i]);
    free(paths);
    free(cur);
    free(names);
    ps_csv_close(csv);
    return rc;
}

/* ---- k-means of the support vectors ------------------------------------ */

static double dist2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t k = 0; k < d; k++) {
        double t = a[k] - b[k];
        s += t * t;
    }
    return s;
}

/* @p k centres of the @p n points @p pts (n * d), point i weighing w[i]:
 * k-means++ seeding, then @p iters Lloyd steps of the weighted means.
 * k >= n: the points themselves. */
static int kmeans(const double *pts, const double *w, size_t n, size_t d, size_t k, int iters,
                  uint64_t *rng, double *ctr)
{
    if (k == 0)
        return 0;
    if (k >= n) {
        memcpy(ctr, pts, n * d * sizeof *ctr);
        return 0;
    }
    double *best = malloc(n * sizeof *best), *sumw = malloc(k * sizeof *sumw);
    size_t *of = malloc(n * sizeof *of);
    if (!best || !sumw || !of) {
        free(best);
        free(sumw);
        free(of);
        return -1;
    }
    /* k-means++: each next centre a point drawn by w * D^2 */
    double tot = 0;
    for (size_t i = 0; i < n; i++)
        tot += w[i];
    double u = (double)(ps_rng_next(rng) >> 11) / 9007199254740992.0 * tot;
    size_t pick = 0;
    for (; pick + 1 < n && (u -= w[pick]) > 0; pick++)
        ;
    memcpy(ctr, pts + pick * d, d * sizeof *ctr);
    for (size_t i = 0; i < n; i++)
        best[i] = dist2(pts + i * d, ctr, d);
    for (size_t c = 1; c < k; c++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += w[i] * best[i];
        u = (double)(ps_rng_next(rng) >> 11) / 9007199254740992.0 * s;
        pick = 0;
        for (; pick + 1 < n && (u -= w[pick] * best[pick]) > 0; pick++)
            ;
        memcpy(ctr + c * d, pts + pick * d, d * sizeof *ctr);
        for (size_t i = 0; i < n; i++) {
            double t = dist2(pts + i * d, ctr + c * d, d);
            if (t < best[i])
                best[i] = t;
        }
    }
    /* Lloyd */
    for (int it = 0; it < iters; it++) {
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) {
            size_t bc = 0;
            double bd = INFINITY;
            for (size_t c = 0; c < k; c++) {
                double t = dist2(pts + i * d, ctr + c * d, d);
                if (t < bd) {
                    bd = t;
                    bc = c;
                }
            }
            if (it == 0 || of[i] != bc)
                moved++;
            of[i] = bc;
            best[i] = bd;
        }
        if (it > 0 && moved == 0)
            break;
        memset(ctr, 0, k * d * sizeof *ctr);
        memset(sumw, 0, k * sizeof *sumw);
        for (size_t i = 0; i < n; i++) {
            sumw[of[i]] += w[i];
            for (size_t j = 0; j < d; j++)
                ctr[of[i] * d + j] += w[i] * pts[i * d + j];
        }
        for (size_t c = 0; c < k; c++) {
            if (sumw[c] > 0) {
                for (size_t j = 0; j < d; j++)
                    ctr[c * d + j] /= sumw[c];
                continue;
            }
            /* an empty cluster: the point farthest from its centre */
            size_t far = 0;
            for (size_t i = 1; i < n; i++)
                if (w[i] * best[i] > w[far] * best[far])
                    far = i;
            memcpy(ctr + c * d, pts + far * d, d * sizeof *ctr);
            best[far] = 0;
        }
    }
    free(best);
    free(sumw);
    free(of);
    return 0;
}

/* ---- ridge least squares by Cholesky ----------------------------------- */

/* Solve A z = b in place (A n x n symmetric positive definite, upper
 * triangle read; b gets z).  0, or -1 when A is not positive definite. */
static int cholesky_solve(double *a, double *b, size_t n)
{
    /* A = L L^T, L stored in the lower triangle (row-major a[i * n + j], j <= i),
     * read from the upper one: a[j * n + i] */
    for (size_t j = 0; j < n; j++) {
        double s = a[j * n + j];
        for (size_t k = 0; k < j; k++)
            s -= a[j * n + k] * a[j * n + k];
        if (!(s > 0))
            return -1;
        double l = sqrt(s);
        a[j * n + j] = l;
        for (size_t i = j + 1; i < n; i++) {
            double t = a[j * n + i]; /* A[j][i] == A[i][j] */
            const double *ri = a + i * n, *rj = a + j * n;
            for (size_t k = 0; k < j; k++)
                t -= ri[k] * rj[k];
            a[i * n + j] = t / l;
        }
    }
    for (size_t i = 0; i < n; i++) { /* L y = b */
        double t = b[i];
        for (size_t k = 0; k < i; k++)
            t -= a[i * n + k] * b[k];
        b[i] = t / a[i * n + i];
    }
    for (size_t i = n; i-- > 0;) { /* L^T z = y */
        double t = b[i];
        for (size_t k = i + 1; k < n; k++)
            t -= a[k * n + i] * b[k];
        b[i] = t / a[i * n + i];
    }
    return 0;
}

#define TILE 128

/* beta (m + 1: m coefficients, then rho) minimising
 * sum_i w_i (sum_j beta_j K(x_i, c_j) - rho - t_i)^2 + lambda |beta|^2 over
 * the rows @p xs (n * d, scaled), w_i = 1 + boundary_weight *
 * exp(-t_i^2 / (2 boundary_width^2)): a row near the boundary, where a small
 * error changes the class, weighs more.  0, or -1 with err. */
static int fit_coefs(const double *xs, const double *t, size_t n, const double *ctr, size_t m, size_t d,
                     double gamma, const ps_reduce_options *o, double *beta, ps_error *err)
{
    size_t p = m + 1;
    double bw = o->boundary_width, bw_alpha = o->boundary_weight, ridge = o->ridge;
    double *a = calloc(p * p, sizeof *a), *tile = malloc(p * TILE * sizeof *tile);
    double *a2 = malloc(p * p * sizeof *a2);
    if (!a || !tile || !a2) {
        free(a);
        free(tile);
        free(a2);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    memset(beta, 0, p * sizeof *beta);
    for (size_t r0 = 0; r0 < n; r0 += TILE) {
        size_t nr = n - r0 < TILE ? n - r0 : TILE;
        /* tile[j * TILE + r]: feature j of row r0 + r (j == m: the -1 of rho) */
        for (size_t r = 0; r < nr; r++) {
            const double *x = xs + (r0 + r) * d;
            double sw = 1.0;
            if (bw > 0) { /* rows near the boundary weigh more */
                double z = t[r0 + r] / bw;
                sw = sqrt(1.0 + bw_alpha * exp(-0.5 * z * z));
            }
            for (size_t j = 0; j < m; j++)
                tile[j * TILE + r] = sw * exp(-gamma * dist2(x, ctr + j * d, d));
            tile[m * TILE + r] = -sw;
            for (size_t j = 0; j < p; j++)
                beta[j] += tile[j * TILE + r] * sw * t[r0 + r];
        }
        for (size_t j = 0; j < p; j++) {
            const double *tj = tile + j * TILE;
            for (size_t k = j; k < p; k++) {
                const double *tk = tile + k * TILE;
                double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                size_t r = 0;
                for (; r + 4 <= nr; r += 4) {
                    s0 += tj[r] * tk[r];
                    s1 += tj[r + 1] * tk[r + 1];
                    s2 += tj[r + 2] * tk[r + 2];
                    s3 += tj[r + 3] * tk[r + 3];
                }
                for (; r < nr; r++)
                    s0 += tj[r] * tk[r];
                a[j * p + k] += (s0 + s1) + (s2 + s3);
            }
        }
    }
    double diag = 0;
    for (size_t j = 0; j < m; j++)
        diag += a[j * p + j];
    diag = m ? diag / (double)m : 1;
    double *b = tile; /* room enough: p <= p * TILE */
    int ok = -1;
    for (double lambda = ridge * diag; ok != 0 && lambda < diag; lambda = lambda > 0 ? lambda * 10 : 1e-12 * diag) {
        memcpy(a2, a, p * p * sizeof *a2);
        for (size_t j = 0; j < m; j++)
            a2[j * p + j] += lambda;
        a2[m * p + m] += 1e-12 * (double)n;
        memcpy(b, beta, p * sizeof *b);
        ok = cholesky_solve(a2, b, p);
    }
    if (ok == 0)
        memcpy(beta, b, p * sizeof *beta);
    free(a);
    free(a2);
    free(tile);
    return ok == 0 ? 0 : ps_set_error(err, PS_ERR_USAGE, "the least-squares system is singular");
}

/* The weighted squared error of the fit (as fit_coefs weighs rows) and, when
 * @p grad is not NULL, its gradient with respect to the centres (m * d). */
static double fit_loss(const double *xs, const double *t, size_t n, const double *ctr, size_t m, size_t d,
                       double gamma, const ps_reduce_options *o, const double *beta, double *grad)
{
    double loss = 0, *k = malloc(m * sizeof *k);
    if (!k)
        return INFINITY;
    if (grad)
        memset(grad, 0, m * d * sizeof *grad);
    for (size_t i = 0; i < n; i++) {
        const double *x = xs + i * d;
        double f = -beta[m];
        for (size_t j = 0; j < m; j++) {
            k[j] = exp(-gamma * dist2(x, ctr + j * d, d));
            f += beta[j] * k[j];
        }
        double w = 1.0;
        if (o->boundary_width > 0) {
            double z = t[i] / o->boundary_width;
            w = 1.0 + o->boundary_weight * exp(-0.5 * z * z);
        }
        double r = f - t[i];
        loss += w * r * r;
        if (!grad)
            continue;
        /* d/dc_j of w r^2 = 2 w r beta_j K_ij 2 gamma (x_i - c_j) */
        for (size_t j = 0; j < m; j++) {
            double g = 4.0 * gamma * w * r * beta[j] * k[j];
            if (g == 0)
                continue;
            double *gj = grad + j * d;
            const double *cj = ctr + j * d;
            for (size_t q = 0; q < d; q++)
                gj[q] += g * (x[q] - cj[q]);
        }
    }
    free(k);
    return loss;
}

/* Move the centres down the gradient of the fit's error (Adam steps, the
 * coefficients re-fitted every 10), o->refine_iters steps; a round that
 * does not lower the error is undone.  0, or -1 with err. */
static int refine_centres(const double *xs, const double *t, size_t n, double *ctr, size_t m, size_t d,
                          double gamma, const ps_reduce_options *o, double *beta, ps_error *err)
{
    size_t md = m * d;
    double *g = malloc(md * sizeof *g), *m1 = calloc(md, sizeof *m1), *v1 = calloc(md, sizeof *v1);
    double *keep_c = malloc(md * sizeof *keep_c), *keep_b = malloc((m + 1) * sizeof *keep_b);
    int rc = 0;
    if (!g || !m1 || !v1 || !keep_c || !keep_b) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    double best = fit_loss(xs, t, n, ctr, m, d, gamma, o, beta, NULL);
    const double lr = 0.0005, b1 = 0.9, b2 = 0.999; /* lr: in scaled feature units (0..1); 0.002 and more raised the error */
    int step = 0;
    for (int round = 0; round * 10 < o->refine_iters; round++) {
        memcpy(keep_c, ctr, md * sizeof *ctr);
        memcpy(keep_b, beta, (m + 1) * sizeof *beta);
        for (int it = 0; it < 10 && round * 10 + it < o->refine_iters; it++) {
            fit_loss(xs, t, n, ctr, m, d, gamma, o, beta, g);
            step++;
            double c1 = 1 - pow(b1, step), c2 = 1 - pow(b2, step);
            for (size_t q = 0; q < md; q++) {
                m1[q] = b1 * m1[q] + (1 - b1) * g[q];
                v1[q] = b2 * v1[q] + (1 - b2) * g[q] * g[q];
                if (g[q] != 0 || m1[q] != 0)
                    ctr[q] -= lr * (m1[q] / c1) / (sqrt(v1[q] / c2) + 1e-12);
            }
        }
        if (fit_coefs(xs, t, n, ctr, m, d, gamma, o, beta, err) != 0) {
            rc = -1;
            goto out;
        }
        double loss = fit_loss(xs, t, n, ctr, m, d, gamma, o, beta, NULL);
        if (!(loss < best)) { /* no better: back to the round's start, and stop */
            memcpy(ctr, keep_c, md * sizeof *ctr);
            memcpy(beta, keep_b, (m + 1) * sizeof *beta);
            break;
        }
        best = loss;
    }
out:
    free(g);
    free(m1);
    free(v1);
    free(keep_c);
    free(keep_b);
    return rc;
}

/* ---- one stage ---------------------------------------------------------- */

/* The bundle of @p m with centres @p ctr (m_new * nf, scaled) and @p beta
 * (coefficients in libsvm's sign, then rho) into @p out, the keys
 * reduced_from, reduced_from_file (@p from_file, the base name of m's file;
 * NULL: none) and reduce_* added.  @p n_pos: the first n_pos centres are
 * the positive group's (libsvm's nr_sv). */
static int write_bundle(const ps_model *m, const double *ctr, const double *beta, size_t m_new, size_t n_pos,
                        const ps_reduce_stage_report *st, const char *from_file, ps_buf *out, ps_error *err)
{
    size_t nf = m->n_features;
    const char *crc = ps_model_info(m, "checksum");
    ps_buf svm = {0}, b = {0};
    const char *lab = m->content_first ? "1 0" : "0 1";
    ps_buf_printf(&svm, "svm_type c_svc\nkernel_type rbf\ngamma %.17g\nnr_class 2\ntotal_sv %zu\nrho %.17g\n"
                        "label %s\nnr_sv %zu %zu\nSV\n",
                  m->gamma, m_new, beta[m_new], lab, n_pos, m_new - n_pos);
    for (size_t i = 0; i < m_new; i++) {
        ps_buf_printf(&svm, "%.17g ", beta[i]);
        for (size_t k = 0; k < nf; k++) {
            double v = ctr[i * nf + k];
            if (v != 0)
                ps_buf_printf(&svm, "%zu:%.9g ", k + 1, v);
        }
        ps_buf_putc(&svm, '\n');
    }
    /* the header's key lines, less checksum, support_vectors and an earlier
     * reduction's keys */
    const char *p = m->bundle, *end = m->bundle + m->end_off;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (len >= 19 && memcmp(p, "libsvm-model-bytes ", 19) == 0)
            break;
        if (!((len >= 9 && memcmp(p, "checksum ", 9) == 0) ||
              (len >= 16 && memcmp(p, "support_vectors ", 16) == 0) ||
              (len >= 13 && memcmp(p, "reduced_from ", 13) == 0) ||
              (len >= 18 && memcmp(p, "reduced_from_file ", 18) == 0) || (len >= 7 && memcmp(p, "reduce_", 7) == 0)))
            ps_buf_append(&b, p, len);
        p += len;
    }
    ps_buf_printf(&b, "support_vectors %zu\nreduced_from %s %zu\n", m_new, crc ? crc : "none", st->sv_before);
    if (from_file)
        ps_buf_printf(&b, "reduced_from_file %s\n", from_file);
    ps_buf_printf(&b, "reduce_method kmeans-ls\nreduce_fit_rows %zu\nreduce_rows %zu\nreduce_rmse %.6g\n"
                      "reduce_max_error %.6g\nreduce_sign_flips %zu\n",
                  st->fit_rows, st->rows, st->rmse, st->max_error, st->sign_flips);
    ps_buf_printf(&b, "libsvm-model-bytes %zu\n", svm.len);
    ps_buf_append(&b, svm.data, svm.len);
    ps_buf_printf(&b, "end pagesift-model\n");
    int rc = 0;
    if (!svm.data || !b.data || ps_model_bundle_seal(&b) != 0 || ps_buf_append(out, b.data, b.len) != 0)
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    ps_buf_free(&svm);
    ps_buf_free(&b);
    return rc;
}

/* Reduce @p m to @p m_new centres, fitted to the scores @p target (score
 * sign: > 0 content) on rows @p x (raw, n * nf, @p fit: the indices of the
 * fit sample, n_fit of them): the reduced model into *reduced. */
static int reduce_stage(const ps_model *m, const double *x, const double *target, const size_t *fit, size_t n_fit,
                        size_t m_new, const ps_reduce_options *o, uint64_t *rng, ps_reduce_stage_report *st,
                        ps_model **reduced, ps_error *err)
{
    size_t nf = m->n_features, nsv = m->n_sv;
    double sign = m->content_first ? 1.0 : -1.0;
    int rc = -1;
    double *pts = malloc(nsv * nf * sizeof *pts), *w = malloc(nsv * sizeof *w);
    double *ctr = malloc((m_new ? m_new : 1) * nf * sizeof *ctr), *beta = malloc((m_new + 1) * sizeof *beta);
    double *xs = malloc(n_fit * nf * sizeof *xs), *t = malloc(n_fit * sizeof *t);
    if (!pts || !w || !ctr || !beta || !xs || !t) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the two groups by the sign of the coefficient, each given its share of M */
    size_t n_pos = 0;
    for (size_t i = 0; i < nsv; i++)
        if (m->coef[i] > 0) {
            memcpy(pts + n_pos * nf, m->sv + i * nf, nf * sizeof *pts);
            w[n_pos++] = m->coef[i];
        }
    size_t n_neg = 0;
    for (size_t i = 0; i < nsv; i++)
        if (!(m->coef[i] > 0)) {
            memcpy(pts + (n_pos + n_neg) * nf, m->sv + i * nf, nf * sizeof *pts);
            w[n_pos + n_neg++] = fabs(m->coef[i]) > 0 ? fabs(m->coef[i]) : 1e-12;
        }
    size_t k_pos = (size_t)llround((double)m_new * (double)n_pos / (double)nsv);
    if (k_pos > n_pos)
        k_pos = n_pos;
    if (m_new - k_pos > n_neg)
        k_pos = m_new - n_neg;
    size_t k_neg = m_new - k_pos;
    if (kmeans(pts, w, n_pos, nf, k_pos, o->kmeans_iters, rng, ctr) != 0 ||
        kmeans(pts + n_pos * nf, w + n_pos, n_neg, nf, k_neg, o->kmeans_iters, rng, ctr + k_pos * nf) != 0) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the fit sample, scaled, and its targets in libsvm's sign */
    for (size_t i = 0; i < n_fit; i++) {
        const double *r = x + fit[i] * nf;
        for (size_t k = 0; k < nf; k++)
            xs[i * nf + k] = (r[k] - m->shift[k]) * m->factor[k];
        t[i] = sign * target[fit[i]];
    }
    if (fit_coefs(xs, t, n_fit, ctr, m_new, nf, m->gamma, o, beta, err) != 0)
        goto out;
    if (o->refine_iters > 0 && refine_centres(xs, t, n_fit, ctr, m_new, nf, m->gamma, o, beta, err) != 0)
        goto out;
    for (size_t i = 0; i <= m_new; i++)
        if (!isfinite(beta[i])) {
            ps_set_error(err, PS_ERR_USAGE, "the fit gave a coefficient that is not finite");
            goto out;
        }
    /* the fit error on the sample (the report's other figures: the caller's) */
    st->sv_before = nsv;
    st->sv_after = m_new;
    st->fit_rows = n_fit;
    ps_buf tmp = {0};
    if (write_bundle(m, ctr, beta, m_new, k_pos, st, NULL, &tmp, err) != 0) {
        ps_buf_free(&tmp);
        goto out;
    }
    *reduced = ps_model_parse(tmp.data, tmp.len, m->name, err);
    ps_buf_free(&tmp);
    if (!*reduced)
        goto out;
    /* its centres and coefficients are written again, with the figures the
     * caller measures on every row (rewrite_with_figures) */
    rc = 0;
out:
    free(pts);
    free(w);
    free(ctr);
    free(beta);
    free(xs);
    free(t);
    return rc;
}

/* The reduced model's bundle again, with the measured figures in its keys. */
static int rewrite_with_figures(const ps_model *orig, const ps_model *red, const ps_reduce_stage_report *st,
                                const char *from_file, ps_buf *out, ps_error *err)
{
    size_t m_new = red->n_sv, n_pos = 0;
    double *beta = malloc((m_new + 1) * sizeof *beta);
    if (!beta)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    /* nr_sv: the reduced bundle's own first count, read back from its text */
    const char *nr = strstr(red->svm_text, "\nnr_sv ");
    if (nr)
        n_pos = (size_t)strtoull(nr + 7, NULL, 10);
    memcpy(beta, red->coef, m_new * sizeof *beta);
    beta[m_new] = red->rho;
    int rc = write_bundle(orig, red->sv, beta, m_new, n_pos, st, from_file, out, err);
    free(beta);
    return rc;
}

/* ---- the whole bundle --------------------------------------------------- */

static void measure(const double *a, const double *b, const uint8_t *use, size_t n, ps_reduce_stage_report *st)
{
    double s = 0, mx = 0;
    size_t k = 0, flips = 0;
    for (size_t i = 0; i < n; i++) {
        if (use && !use[i])
            continue;
        double d = a[i] - b[i];
        s += d * d;
        if (fabs(d) > mx)
            mx = fabs(d);
        flips += (a[i] > 0) != (b[i] > 0);
        k++;
    }
    st->rows = k;
    st->rmse = k ? sqrt(s / (double)k) : 0;
    st->max_error = mx;
    st->sign_flips = flips;
}

/* A seeded sample of at most @p want of the rows where @p use (NULL: all). */
static size_t sample_rows(const uint8_t *use, size_t n, size_t want, uint64_t *rng, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!use || use[i])
            idx[k++] = i;
    if (want == 0 || want > k)
        want = k;
    for (size_t i = 0; i < want; i++) {
        size_t j = i + ps_rng_below(rng, k - i);
        size_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    return want;
}

/* The second-stage rows of every page from first-stage scores @p s1. */
static int stage2_rows(const rows *r, const ps_model *second, const int *src, const double *s1, double *x2)
{
    size_t n2 = ps_model_n_features(second), nf = r->nf;
    double *ctx = NULL;
    size_t cap = 0;
    for (size_t p = 0; p < r->n_pages; p++) {
        size_t a = r->page_start[p], n = r->page_start[p + 1] - a;
        if (n > cap) {
            free(ctx);
            cap = n;
            if (!(ctx = malloc(cap * PS_CONTEXT_FEATURES * sizeof *ctx)))
                return -1;
        }
        if (n == 0)
            continue;
        if (ps_context_features(n, r->parent + a, r->chars + a, s1 + a, ctx) != 0) {
            free(ctx);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            ps_context_row(src, n2, r->x + (a + i) * nf, ctx + i * PS_CONTEXT_FEATURES, x2 + (a + i) * n2);
    }
    free(ctx);
    return 0;
}

/* The score a stack gives a block: the first stage's below the gate, else
 * the second's (methods/classifier_stack.c). */
static double stacked_score(double s1, double s2, double gate)
{
    return ps_stack_gated(s1, gate) ? s1 : s2;
}

static size_t target_size(size_t nsv, size_t given, double share)
{
    size_t m = given ? given : (size_t)llround(share * (double)nsv);
    if (m < 2)
        m = 2;
    return m;
}

int ps_model_reduce(const char *model_path, const char *const *csvs, size_t n_csvs, const ps_reduce_options *o,
                    ps_buf *out, ps_reduce_report *rep, ps_error *err)
{
    ps_reduce_options def;
    if (!o) {
        ps_reduce_options_init(&def);
        o = &def;
    }
    memset(rep, 0, sizeof *rep);
    if (!(o->share > 0 && o->share < 1) && !o->n_sv[0])
        return ps_set_error(err, PS_ERR_USAGE, "--reduce: the share %g is not between 0 and 1", o->share);
    if (n_csvs == 0)
        return ps_set_error(err, PS_ERR_USAGE, "--reduce: no block CSV to fit on");
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_model *m1 = ps_model_load(model_path, err), *m2 = NULL, *r1 = NULL, *r2 = NULL;
    if (!m1)
        return -1;
    /* reduced_from_file: MODEL's base name, where per-site models made
     * against it are looked for (methods/classifier_site.c); a name no key
     * line can hold (a control character) is not written */
    const char *from_file = strrchr(model_path, '/');
    from_file = from_file ? from_file + 1 : model_path;
    for (const char *c = from_file; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            from_file = NULL;
            break;
        }
    if (from_file && !*from_file)
        from_file = NULL;
    int rc = -1;
    rows r = {0};
    double *s1 = NULL, *s1r = NULL, *x2 = NULL, *x2r = NULL, *fin = NULL, *finr = NULL, *s2 = NULL;
    size_t *idx = NULL;
    uint8_t *pred = NULL, *use = NULL;
    int src[PS_MODEL_MAX_FEATURES];
    uint64_t rng = o->seed ? o->seed : 1;
    if (m1->delta_base) {
        ps_set_error(err, PS_ERR_USAGE, "%s: a per-site delta cannot be reduced", model_path);
        goto out;
    }
    m2 = ps_model_next_stage(m1, err);
    if (!m2 && err->code) /* a second stage that cannot be read */
        goto out;
    if (m2 && ps_context_sources(m2, ps_model_feature_ids(m1), ps_model_n_features(m1), src) != 0) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: its second stage reads a feature the first does not", model_path);
        goto out;
    }
    r.nf = ps_model_n_features(m1);
    for (size_t i = 0; i < n_csvs; i++)
        if (read_csv(&r, m1, m2 != NULL, csvs[i], err) != 0)
            goto out;
    if (r.n < 10) {
        ps_set_error(err, PS_ERR_USAGE, "--reduce: %zu rows in the CSVs, too few to fit on", r.n);
        goto out;
    }
    rep->rows = r.n;
    rep->pages = r.n_pages;
    size_t n = r.n;
    s1 = malloc(n * sizeof *s1);
    s1r = malloc(n * sizeof *s1r);
    pred = malloc(n);
    idx = malloc(n * sizeof *idx);
    use = malloc(n);
    if (!s1 || !s1r || !pred || !idx || !use) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* stage 1 */
    ps_model_predict_many(m1, r.x, r.nf, NULL, n, pred, s1);
    size_t n_fit = sample_rows(NULL, n, o->fit_rows, &rng, idx);
    size_t k1 = target_size(m1->n_sv, o->n_sv[0], o->share);
    if (k1 >= m1->n_sv) {
        ps_set_error(err, PS_ERR_USAGE, "--reduce: %zu centres is not fewer than the first stage's %zu support vectors",
                     k1, m1->n_sv);
        goto out;
    }
    ps_reduce_stage_report *st1 = &rep->stage[0];
    if (reduce_stage(m1, r.x, s1, idx, n_fit, k1, o, &rng, st1, &r1, err) != 0)
        goto out;
    ps_model_predict_many(r1, r.x, r.nf, NULL, n, pred, s1r);
    measure(s1r, s1, NULL, n, st1);
    rep->n_stages = 1;
    ps_buf_free(out);
    if (rewrite_with_figures(m1, r1, st1, from_file, out, err) != 0)
        goto out;
    if (m2) {
        size_t n2 = ps_model_n_features(m2);
        double gate = ps_model_stack_gate(m2);
        x2 = malloc(n * n2 * sizeof *x2);
        x2r = malloc(n * n2 * sizeof *x2r);
        fin = malloc(n * sizeof *fin);
        finr = malloc(n * sizeof *finr);
        s2 = malloc(n * sizeof *s2);
        if (!x2 || !x2r || !fin || !finr || !s2 || stage2_rows(&r, m2, src, s1, x2) != 0 ||
            stage2_rows(&r, m2, src, s1r, x2r) != 0) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        /* the original stack's final scores: the targets */
        ps_model_predict_many(m2, x2, n2, NULL, n, pred, s2);
        for (size_t i = 0; i < n; i++)
            fin[i] = stacked_score(s1[i], s2[i], gate);
        /* the first stage alone reduced: the original second stage on the
         * reduced first stage's context */
        ps_model_predict_many(m2, x2r, n2, NULL, n, pred, s2);
        for (size_t i = 0; i < n; i++)
            finr[i] = stacked_score(s1r[i], s2[i], gate);
        measure(finr, fin, NULL, n, &rep->first_only);
        /* the second stage judges the rows the reduced first one passes */
        for (size_t i = 0; i < n; i++)
            use[i] = !ps_stack_gated(s1r[i], gate);
        size_t n_fit2 = sample_rows(use, n, o->fit_rows, &rng, idx);
        /* counts given for the first stage only: the second at the same share */
        size_t k2 = o->n_sv[0] && !o->n_sv[1] ? target_size(m2->n_sv, 0, (double)k1 / (double)m1->n_sv)
                                               : target_size(m2->n_sv, o->n_sv[1], o->share);
        if (k2 >= m2->n_sv) {
            ps_set_error(err, PS_ERR_USAGE,
                         "--reduce: %zu centres is not fewer than the second stage's %zu support vectors", k2,
                         m2->n_sv);
            goto out;
        }
        ps_reduce_stage_report *st2 = &rep->stage[1];
        if (n_fit2 < 10) {
            ps_set_error(err, PS_ERR_USAGE, "--reduce: %zu rows above the second stage's gate, too few", n_fit2);
            goto out;
        }
        if (reduce_stage(m2, x2r, fin, idx, n_fit2, k2, o, &rng, st2, &r2, err) != 0)
            goto out;
        ps_model_predict_many(r2, x2r, n2, NULL, n, pred, s2);
        for (size_t i = 0; i < n; i++)
            finr[i] = stacked_score(s1r[i], s2[i], gate);
        measure(finr, fin, NULL, n, st2); /* the stack's output, every row */
        if (rewrite_with_figures(m2, r2, st2, from_file, out, err) != 0)
            goto out;
        rep->n_stages = 2;
    }
    rep->seconds = ps_clock(PS_CLOCK_WALL) - t0;
    rc = 0;
out:
    if (rc)
        ps_buf_free(out);
    ps_model_free(r2);
    ps_model_free(r1);
    ps_model_free(m2);
    ps_model_free(m1);
    rows_free(&r);
    free(s1);
    free(s1r);
    free(x2);
    free(x2r);
    free(fin);
    free(finr);
    free(s2);
    free(idx);
    free(pred);
    free(use);
    return rc;
}
