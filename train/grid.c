/* train/grid.c — RBF SVM training (METHODS.md §1.3): min-max scaling,
 * class balancing, grouped k-fold cross-validation over a (C, gamma) grid
 * run on a pool of threads, and the final model.
 *
 * Parameters (all in ps_train_options, defaults as libsvm's guide):
 *   C = 2^-5 .. 2^15, gamma = 2^-15 .. 2^3, step 2^2; 10 folds grouped by
 *   page; selection by F1 of the content class; undersampling of the
 *   majority class; eps 1e-3, shrinking on, kernel cache 200 MB.
 *
 * Protocol: rows are scaled to [0, 1] with the min/max of all labelled rows
 * (recorded in the bundle).  Each CV training fold is balanced on its own
 * (seeded), each test fold is scored on all its rows as they come, so the
 * CV precision reflects the real class mix.  For speed the grid may run on
 * a seeded sample of whole groups (cv_max_rows); the final model always
 * uses all rows.  Every random choice uses splitmix64 streams derived from
 * the seed, so the same inputs and seed give the same model. */
#define _POSIX_C_SOURCE 200809L
#include <libsvm/svm.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/progress.h"
#include "common/util.h"
#include "train/train_internal.h"

void ps_train_options_init(ps_train_options *o)
{
    memset(o, 0, sizeof *o);
    o->balance = PS_BALANCE_UNDERSAMPLE;
    o->seed = 1;
    o->folds = 10;
    o->c_start = -5, o->c_stop = 15, o->c_step = 2;
    o->g_start = -15, o->g_stop = 3, o->g_step = 2;
    o->cv_max_rows = 20000;
    o->cache_mb = 200;
}

static void svm_silent(const char *s)
{
    (void)s;
}
static pthread_once_t silence_once = PTHREAD_ONCE_INIT;
static void silence(void)
{
    svm_set_print_string_function(svm_silent);
}

/* ---- scaling ---------------------------------------------------------- */

static void scale_range(const ps_train_data *d, double *mn, double *mx)
{
    size_t nf = d->n_features;
    for (size_t k = 0; k < nf; k++)
        mn[k] = INFINITY, mx[k] = -INFINITY;
    for (size_t r = 0; r < d->n_rows; r++)
        for (size_t k = 0; k < nf; k++) {
            double v = d->x[r * nf + k];
            if (v < mn[k])
                mn[k] = v;
            if (v > mx[k])
                mx[k] = v;
        }
}

/* Scaled rows as libsvm nodes, one row = n_features + 1 nodes.  The formula
 * is the one ps_model_predict applies. */
static struct svm_node *make_nodes(const ps_train_data *d, const double *mn, const double *mx)
{
    size_t nf = d->n_features;
    struct svm_node *nodes = malloc(d->n_rows * (nf + 1) * sizeof *nodes);
    if (!nodes)
        return NULL;
    for (size_t r = 0; r < d->n_rows; r++) {
        struct svm_node *row = nodes + r * (nf + 1);
        for (size_t k = 0; k < nf; k++) {
            double factor = mx[k] > mn[k] ? 1.0 / (mx[k] - mn[k]) : 0.0;
            row[k].index = (int)k + 1;
            row[k].value = (d->x[r * nf + k] - mn[k]) * factor;
        }
        row[nf].index = -1;
        row[nf].value = 0;
    }
    return nodes;
}

/* ---- balancing -------------------------------------------------------- */

/* Keep, of the rows idx[0..n) (ascending), all of the minority class and a
 * seeded sample of the majority class of the same size; the result stays in
 * ascending order.  Returns the new count. */
static size_t undersample(const ps_train_data *d, size_t *idx, size_t n, uint64_t seed)
{
    size_t n1 = 0;
    for (size_t i = 0; i < n; i++)
        n1 += d->y[idx[i]] == 1;
    size_t n0 = n - n1;
    if (n0 == n1 || n0 == 0 || n1 == 0)
        return n;
    int8_t major = n0 > n1 ? 0 : 1;
    size_t nmaj = major ? n1 : n0, keep = major ? n0 : n1;
    size_t *pos = malloc(nmaj * sizeof *pos);
    char *chosen = calloc(n, 1);
    if (!pos || !chosen) {
        free(pos);
        free(chosen);
        return (size_t)-1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d->y[idx[i]] == major)
            pos[m++] = i;
    uint64_t s = seed;
    for (size_t i = 0; i < keep; i++) { /* partial Fisher-Yates */
        size_t j = i + ps_rng_below(&s, nmaj - i);
        size_t t = pos[i];
        pos[i] = pos[j];
        pos[j] = t;
        chosen[pos[i]] = 1;
    }
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
        if (d->y[idx[i]] != major || chosen[i])
            idx[out++] = idx[i];
    free(pos);
    free(chosen);
    return out;
}

/* ---- folds ------------------------------------------------------------ */

/* Assign the groups of the rows in @p use (NULL = all) to folds; rows not
 * used get -1.  Returns the number of folds used, or -1 (out of memory). */
static int assign_folds(const ps_train_data *d, const char *use, int folds, uint64_t seed,
                        int *fold_of)
{
    size_t ng = d->n_groups;
    size_t *rows = calloc(ng, sizeof *rows);
    uint32_t *order = malloc(ng * sizeof *order);
    int *gfold = malloc(ng * sizeof *gfold);
    size_t *fold_rows = NULL;
    if (!rows || !order || !gfold) {
        free(rows), free(order), free(gfold);
        return -1;
    }
    for (size_t r = 0; r < d->n_rows; r++)
        if (!use || use[r])
            rows[d->group[r]]++;
    size_t used = 0;
    for (size_t g = 0; g < ng; g++)
        if (rows[g])
            order[used++] = (uint32_t)g;
    if (folds > (int)used)
        folds = (int)used;
    if (folds < 1)
        folds = 1;
    fold_rows = calloc((size_t)folds, sizeof *fold_rows);
    if (!fold_rows) {
        free(rows), free(order), free(gfold);
        return -1;
    }
    uint64_t s = seed ^ 0x666f6c6473ull; /* "folds" stream */
    for (size_t i = used; i > 1; i--) {
        size_t j = ps_rng_below(&s, i);
        uint32_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < used; i++) {
        int best = 0;
        for (int f = 1; f < folds; f++)
            if (fold_rows[f] < fold_rows[best])
                best = f;
        gfold[order[i]] = best;
        fold_rows[best] += rows[order[i]];
    }
    for (size_t r = 0; r < d->n_rows; r++)
        fold_of[r] = (!use || use[r]) ? gfold[d->group[r]] : -1;
    free(rows), free(order), free(gfold), free(fold_rows);
    return folds;
}

int ps_train_assign_folds(const ps_train_data *d, int folds, uint64_t seed, int *fold_of)
{
    return assign_folds(d, NULL, folds, seed, fold_of);
}

/* A seeded sample of whole groups with about max_rows rows (all when the
 * data is smaller).  Returns a row mask or NULL (out of memory). */
static char *cv_sample(const ps_train_data *d, size_t max_rows, uint64_t seed, size_t *rows_out,
                       size_t *groups_out)
{
    char *use = malloc(d->n_rows ? d->n_rows : 1);
    if (!use)
        return NULL;
    if (!max_rows || d->n_rows <= max_rows) {
        memset(use, 1, d->n_rows);
        *rows_out = d->n_rows;
        *groups_out = d->n_groups;
        return use;
    }
    size_t ng = d->n_groups;
    size_t *rows = calloc(ng, sizeof *rows);
    uint32_t *order = malloc(ng * sizeof *order);
    char *gin = calloc(ng, 1);
    if (!rows || !order || !gin) {
        free(rows), free(order), free(gin), free(use);
        return NULL;
    }
    for (size_t r = 0; r < d->n_rows; r++)
        rows[d->group[r]]++;
    for (size_t g = 0; g < ng; g++)
        order[g] = (uint32_t)g;
    uint64_t s = seed ^ 0x73616d706c65ull; /* "sample" stream */
    for (size_t i = ng; i > 1; i--) {
        size_t j = ps_rng_below(&s, i);
        uint32_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    size_t total = 0, groups = 0;
    for (size_t i = 0; i < ng && total < max_rows; i++) {
        gin[order[i]] = 1;
        total += rows[order[i]];
        groups++;
    }
    for (size_t r = 0; r < d->n_rows; r++)
        use[r] = gin[d->group[r]];
    *rows_out = total;
    *groups_out = groups;
    free(rows), free(order), free(gin);
    return use;
}

/* ---- the grid --------------------------------------------------------- */

typedef struct {
    struct svm_problem prob; /* balanced training rows of the fold */
    size_t *test;            /* rows of the fold */
    size_t n_test;
    double w[2];             /* class weights (weight mode) */
} fold_set;

typedef struct {
    const ps_train_data *d;
    const ps_train_options *o;
    struct svm_node *nodes;
    fold_set *fs;
    int folds;
    ps_train_grid *g;
    /* job queue */
    size_t *jobs; /* point * folds + fold */
    size_t n_jobs, next;
    size_t *fold_counts; /* per point: tp fp fn tn, summed */
    int *folds_done;
    double *cpu;
    size_t points_done, points_total;
    ps_progress *progress;
    double t0;
    pthread_mutex_t lock;
    int failed;
} grid_ctx;

static void fill_param(struct svm_parameter *p, double C, double gamma, const ps_train_options *o,
                       const double *w, int *wl)
{
    memset(p, 0, sizeof *p);
    p->svm_type = C_SVC;
    p->kernel_type = RBF;
    p->gamma = gamma;
    p->C = C;
    p->cache_size = o->cache_mb > 1 ? o->cache_mb : 1;
    p->eps = 1e-3;
    p->shrinking = 1;
    p->probability = 0;
    if (o->balance == PS_BALANCE_WEIGHT) {
        wl[0] = 0, wl[1] = 1;
        p->nr_weight = 2;
        p->weight_label = wl;
        p->weight = (double *)w;
    }
}

static int better(const ps_train_point *a, const ps_train_point *b, int by_accuracy)
{
    double sa = by_accuracy ? a->accuracy : a->f1, sb = by_accuracy ? b->accuracy : b->f1;
    return sa > sb;
}

static void score_point(ps_train_point *p)
{
    double tp = (double)p->tp, fp = (double)p->fp, fn = (double)p->fn, tn = (double)p->tn;
    p->precision = tp + fp > 0 ? tp / (tp + fp) : 0;
    p->recall = tp + fn > 0 ? tp / (tp + fn) : 0;
    p->f1 = p->precision + p->recall > 0 ? 2 * p->precision * p->recall / (p->precision + p->recall) : 0;
    p->accuracy = tp + fp + fn + tn > 0 ? (tp + tn) / (tp + fp + fn + tn) : 0;
}

static void *worker(void *arg)
{
    grid_ctx *c = arg;
    size_t nf1 = c->d->n_features + 1;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        if (c->next >= c->n_jobs || c->failed) {
            pthread_mutex_unlock(&c->lock);
            return NULL;
        }
        size_t job = c->jobs[c->next++];
        pthread_mutex_unlock(&c->lock);
        size_t pi = job / (size_t)c->folds;
        int f = (int)(job % (size_t)c->folds);
        ps_train_point *pt = &c->g->points[pi];
        fold_set *fs = &c->fs[f];
        double t0 = ps_clock(PS_CLOCK_THREAD_CPU);
        struct svm_parameter param;
        int wl[2];
        fill_param(&param, exp2(pt->log2c), exp2(pt->log2g), c->o, fs->w, wl);
        struct svm_model *model = svm_train(&fs->prob, &param);
        size_t cnt[4] = {0}; /* tp fp fn tn */
        if (model) {
            for (size_t i = 0; i < fs->n_test; i++) {
                size_t r = fs->test[i];
                int pred = svm_predict(model, c->nodes + r * nf1) > 0.5;
                int y = c->d->y[r];
                cnt[pred ? (y ? 0 : 1) : (y ? 2 : 3)]++;
            }
            svm_free_and_destroy_model(&model);
        }
        double t1 = ps_clock(PS_CLOCK_THREAD_CPU);
        pthread_mutex_lock(&c->lock);
        for (int k = 0; k < 4; k++)
            c->fold_counts[pi * 4 + k] += cnt[k];
        c->cpu[pi] += t1 - t0;
        if (++c->folds_done[pi] == c->folds) {
            pt->tp = c->fold_counts[pi * 4];
            pt->fp = c->fold_counts[pi * 4 + 1];
            pt->fn = c->fold_counts[pi * 4 + 2];
            pt->tn = c->fold_counts[pi * 4 + 3];
            pt->seconds = c->cpu[pi];
            score_point(pt);
            pt->done = 1;
            c->points_done++;
            ps_train_point *b = NULL;
            for (size_t i = 0; i < c->g->n_c * c->g->n_g; i++)
                if (c->g->points[i].done && (!b || better(&c->g->points[i], b, c->o->select_accuracy)))
                    b = &c->g->points[i];
            char extra[128];
            snprintf(extra, sizeof extra, "best %s %.4f at log2 C=%g, log2 gamma=%g",
                     c->o->select_accuracy ? "accuracy" : "F1",
                     c->o->select_accuracy ? b->accuracy : b->f1, b->log2c, b->log2g);
            ps_progress_update(c->progress, c->points_done, extra);
            if (c->o->verbose && !c->o->quiet) {
                double el = ps_clock(PS_CLOCK_WALL) - c->t0;
                double left = c->points_total > c->points_done
                                  ? el / (double)c->points_done * (double)(c->points_total - c->points_done)
                                  : 0;
                ps_print("point %zu/%zu log2 C=%g log2 gamma=%g: P %.4f R %.4f F1 %.4f "
                         "(%.1f s cpu); %.0f s elapsed, ~%.0f s left; %s",
                         c->points_done, c->points_total, pt->log2c, pt->log2g, pt->precision, pt->recall,
                         pt->f1, pt->seconds, el, left, extra);
            }
        }
        pthread_mutex_unlock(&c->lock);
    }
}

/* Evaluate the listed points (all folds), in parallel. */
static int run_points(grid_ctx *c, const size_t *pts, size_t n)
{
    if (!n)
        return 0;
    /* slowest first (large C, then large gamma) so threads finish together */
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return -1;
    memcpy(order, pts, n * sizeof *order);
    for (size_t i = 1; i < n; i++) { /* insertion sort, n is small */
        size_t v = order[i], j = i;
        while (j > 0) {
            const ps_train_point *a = &c->g->points[order[j - 1]], *b = &c->g->points[v];
            if (a->log2c > b->log2c || (a->log2c == b->log2c && a->log2g >= b->log2g))
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    c->n_jobs = n * (size_t)c->folds;
    c->next = 0;
    c->jobs = malloc(c->n_jobs * sizeof *c->jobs);
    if (!c->jobs) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        for (int f = 0; f < c->folds; f++)
            c->jobs[i * (size_t)c->folds + (size_t)f] = order[i] * (size_t)c->folds + (size_t)f;
    free(order);
    int nt = c->o->threads > 0 ? c->o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1)
        nt = 1;
    if ((size_t)nt > c->n_jobs)
        nt = (int)c->n_jobs;
    pthread_t *th = malloc((size_t)nt * sizeof *th);
    int started = 0;
    for (int t = 0; th && t < nt; t++)
        if (pthread_create(&th[t], NULL, worker, c) == 0)
            started++;
    if (!started)
        worker(c);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(th);
    free(c->jobs);
    c->jobs = NULL;
    return c->failed ? -1 : 0;
}

static size_t grid_len(double a, double b, double step)
{
    if (step <= 0 || b < a)
        return 1;
    return (size_t)floor((b - a) / step + 1e-9) + 1;
}

void ps_train_grid_free(ps_train_grid *g)
{
    if (!g)
        return;
    free(g->points);
    memset(g, 0, sizeof *g);
}

static size_t best_index(const ps_train_grid *g, int by_acc)
{
    size_t b = (size_t)-1;
    for (size_t i = 0; i < g->n_c * g->n_g; i++)
        if (g->points[i].done && (b == (size_t)-1 || better(&g->points[i], &g->points[b], by_acc)))
            b = i;
    return b;
}

int ps_train_grid_search(const ps_train_data *d, const ps_train_options *o, ps_train_grid *out,
                         ps_error *err)
{
    pthread_once(&silence_once, silence);
    memset(out, 0, sizeof *out);
    double t_start = ps_clock(PS_CLOCK_WALL);
    size_t nf = d->n_features;
    if (o->folds < 2)
        return ps_set_error(err, PS_ERR_USAGE, "folds must be at least 2 (got %d)", o->folds);
    out->n_c = grid_len(o->c_start, o->c_stop, o->c_step);
    out->n_g = grid_len(o->g_start, o->g_stop, o->g_step);
    size_t np = out->n_c * out->n_g;
    out->points = calloc(np, sizeof *out->points);
    double *mn = malloc(nf * sizeof *mn), *mx = malloc(nf * sizeof *mx);
    int *fold_of = malloc((d->n_rows ? d->n_rows : 1) * sizeof *fold_of);
    char *use = NULL;
    struct svm_node *nodes = NULL;
    fold_set *fs = NULL;
    grid_ctx c = {0};
    int rc = 0, folds = 0;
    if (!out->points || !mn || !mx || !fold_of) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < out->n_c; i++)
        for (size_t j = 0; j < out->n_g; j++) {
            out->points[i * out->n_g + j].log2c = o->c_start + (double)i * o->c_step;
            out->points[i * out->n_g + j].log2g = o->g_start + (double)j * o->g_step;
        }
    scale_range(d, mn, mx);
    nodes = make_nodes(d, mn, mx);
    use = cv_sample(d, o->cv_max_rows, o->seed, &out->cv_rows, &out->cv_groups);
    if (!nodes || !use) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    folds = assign_folds(d, use, o->folds, o->seed, fold_of);
    if (folds < 2) {
        rc = ps_set_error(err, PS_ERR_FORMAT,
                          "cross-validation needs at least 2 groups (%s); the data has %zu",
                          d->grouping == PS_GROUP_SITE ? "sites" : "pages", out->cv_groups);
        goto done;
    }
    out->folds = folds;
    fs = calloc((size_t)folds, sizeof *fs);
    if (!fs) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int f = 0; f < folds && !rc; f++) {
        size_t ntr = 0, nte = 0;
        for (size_t r = 0; r < d->n_rows; r++)
            if (fold_of[r] >= 0)
                *(fold_of[r] == f ? &nte : &ntr) += 1;
        size_t *tr = malloc((ntr ? ntr : 1) * sizeof *tr);
        fs[f].test = malloc((nte ? nte : 1) * sizeof *fs[f].test);
        if (!tr || !fs[f].test) {
            free(tr);
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        ntr = nte = 0;
        for (size_t r = 0; r < d->n_rows; r++)
            if (fold_of[r] >= 0) {
                if (fold_of[r] == f)
                    fs[f].test[nte++] = r;
                else
                    tr[ntr++] = r;
            }
        fs[f].n_test = nte;
        if (o->balance == PS_BALANCE_UNDERSAMPLE)
            ntr = undersample(d, tr, ntr, o->seed ^ (0x62616c616e6365ull + (uint64_t)f));
        if (ntr == (size_t)-1) {
            free(tr);
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        size_t n1 = 0;
        fs[f].prob.l = (int)ntr;
        fs[f].prob.y = malloc((ntr ? ntr : 1) * sizeof(double));
        fs[f].prob.x = malloc((ntr ? ntr : 1) * sizeof(struct svm_node *));
        if (!fs[f].prob.y || !fs[f].prob.x) {
            free(tr);
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < ntr; i++) {
            fs[f].prob.y[i] = d->y[tr[i]];
            fs[f].prob.x[i] = nodes + tr[i] * (nf + 1);
            n1 += d->y[tr[i]] == 1;
        }
        size_t n0 = ntr - n1;
        fs[f].w[0] = n0 ? (double)ntr / (2.0 * (double)n0) : 1;
        fs[f].w[1] = n1 ? (double)ntr / (2.0 * (double)n1) : 1;
        free(tr);
        if (n0 == 0 || n1 == 0)
            rc = ps_set_error(err, PS_ERR_FORMAT,
                              "cross-validation fold %d has one class only in its training part "
                              "(%zu content, %zu noise rows); use fewer folds or more data",
                              f + 1, n1, n0);
    }
    if (rc)
        goto done;

    c.d = d, c.o = o, c.nodes = nodes, c.fs = fs, c.folds = folds, c.g = out;
    c.t0 = ps_clock(PS_CLOCK_WALL);
    c.points_total = o->coarse_fine ? 0 : np;
    c.fold_counts = calloc(np * 4, sizeof *c.fold_counts);
    c.folds_done = calloc(np, sizeof *c.folds_done);
    c.cpu = calloc(np, sizeof *c.cpu);
    size_t *pts = malloc(np * sizeof *pts);
    if (!c.fold_counts || !c.folds_done || !c.cpu || !pts) {
        free(pts);
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    pthread_mutex_init(&c.lock, NULL);
    size_t n = 0;
    if (!o->coarse_fine) {
        for (size_t i = 0; i < np; i++)
            pts[n++] = i;
        c.progress = ps_progress_new("grid points", np, o->quiet);
        rc = run_points(&c, pts, n);
    } else {
        /* every other point of the grid, then the full step around the best
         * until the best no longer moves */
        for (size_t i = 0; i < out->n_c; i += 2)
            for (size_t j = 0; j < out->n_g; j += 2)
                pts[n++] = i * out->n_g + j;
        c.progress = ps_progress_new("grid points", 0, o->quiet);
        rc = run_points(&c, pts, n);
        size_t prev = (size_t)-1;
        while (!rc) {
            size_t b = best_index(out, o->select_accuracy);
            if (b == prev)
                break;
            prev = b;
            size_t bi = b / out->n_g, bj = b % out->n_g;
            n = 0;
            for (size_t i = bi ? bi - 1 : 0; i <= bi + 1 && i < out->n_c; i++)
                for (size_t j = bj ? bj - 1 : 0; j <= bj + 1 && j < out->n_g; j++)
                    if (!out->points[i * out->n_g + j].done)
                        pts[n++] = i * out->n_g + j;
            if (!n)
                break;
            rc = run_points(&c, pts, n);
        }
    }
    ps_progress_done(c.progress);
    pthread_mutex_destroy(&c.lock);
    free(pts);
    if (rc) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "grid search failed (out of memory)");
        goto done;
    }
    out->evaluated = c.points_done;
    out->best = best_index(out, o->select_accuracy);
    out->wall_seconds = ps_clock(PS_CLOCK_WALL) - t_start;
done:
    if (fs)
        for (int f = 0; f < folds; f++) {
            free(fs[f].prob.y);
            free(fs[f].prob.x);
            free(fs[f].test);
        }
    free(fs);
    free(c.fold_counts);
    free(c.folds_done);
    free(c.cpu);
    free(nodes);
    free(use);
    free(fold_of);
    free(mn);
    free(mx);
    if (rc)
        ps_train_grid_free(out);
    return rc;
}

/* ---- the final model -------------------------------------------------- */

static const char *balance_name(ps_train_balance b)
{
    return b == PS_BALANCE_NONE ? "none" : b == PS_BALANCE_WEIGHT ? "weight" : "undersample";
}

ps_model *ps_train_final(const ps_train_data *d, const ps_train_options *o, double log2c,
                         double log2g, const ps_train_grid *grid, int stamp, ps_error *err)
{
    pthread_once(&silence_once, silence);
    size_t nf = d->n_features;
    double *mn = malloc(nf * sizeof *mn), *mx = malloc(nf * sizeof *mx);
    size_t *idx = malloc((d->n_rows ? d->n_rows : 1) * sizeof *idx);
    struct svm_node *nodes = NULL;
    struct svm_problem prob = {0};
    struct svm_model *model = NULL;
    char *svm_text = NULL;
    ps_buf b = {0};
    ps_model *m = NULL;
    if (!mn || !mx || !idx)
        goto oom;
    scale_range(d, mn, mx);
    if (!(nodes = make_nodes(d, mn, mx)))
        goto oom;
    size_t n = d->n_rows;
    for (size_t r = 0; r < n; r++)
        idx[r] = r;
    if (o->balance == PS_BALANCE_UNDERSAMPLE)
        n = undersample(d, idx, n, o->seed ^ 0x66696e616cull); /* "final" stream */
    if (n == (size_t)-1)
        goto oom;
    prob.l = (int)n;
    prob.y = malloc(n * sizeof *prob.y);
    prob.x = malloc(n * sizeof *prob.x);
    if (!prob.y || !prob.x)
        goto oom;
    size_t n1 = 0;
    for (size_t i = 0; i < n; i++) {
        prob.y[i] = d->y[idx[i]];
        prob.x[i] = nodes + idx[i] * (nf + 1);
        n1 += d->y[idx[i]] == 1;
    }
    double w[2] = {(double)n / (2.0 * (double)(n - n1)), (double)n / (2.0 * (double)n1)};
    struct svm_parameter param;
    int wl[2];
    fill_param(&param, exp2(log2c), exp2(log2g), o, w, wl);
    const char *why = svm_check_parameter(&prob, &param);
    if (why) {
        ps_set_error(err, PS_ERR_USAGE, "libsvm refuses the parameters: %s", why);
        goto fail;
    }
    model = svm_train(&prob, &param);
    if (!model)
        goto oom;
    size_t svm_len;
    svm_text = ps_svm_model_to_text(model, &svm_len, err);
    if (!svm_text)
        goto fail;

    ps_buf_printf(&b, "pagesift-model %d\n", PS_MODEL_FORMAT_VERSION);
    ps_buf_printf(&b, "tool pagesift-train %s\n", ps_version());
    ps_buf_printf(&b, "features %s\n", d->features);
    if (d->block_tags)
        ps_buf_printf(&b, "block_tags %s\n", d->block_tags);
    ps_buf_printf(&b, "scale_min");
    for (size_t k = 0; k < nf; k++)
        ps_buf_printf(&b, " %.17g", mn[k]);
    ps_buf_printf(&b, "\nscale_max");
    for (size_t k = 0; k < nf; k++)
        ps_buf_printf(&b, " %.17g", mx[k]);
    ps_buf_printf(&b, "\nC %.17g\ngamma %.17g\nlog2_C %g\nlog2_gamma %g\n", exp2(log2c), exp2(log2g),
                  log2c, log2g);
    ps_buf_printf(&b, "balance %s\nselect %s\nseed %llu\n", balance_name(o->balance),
                  o->select_accuracy ? "accuracy" : "f1", (unsigned long long)o->seed);
    if (grid && grid->points && grid->best != (size_t)-1) {
        const ps_train_point *p = &grid->points[grid->best];
        ps_buf_printf(&b, "cv_folds %d\ncv_group_by %s\ncv_groups %zu\ncv_rows %zu\n", grid->folds,
                      d->grouping == PS_GROUP_SITE ? "site" : "page", grid->cv_groups, grid->cv_rows);
        ps_buf_printf(&b, "cv_grid_points %zu\ncv_search %s\n", grid->evaluated,
                      o->coarse_fine ? "coarse-fine" : "full");
        ps_buf_printf(&b, "cv_precision %.6f\ncv_recall %.6f\ncv_f1 %.6f\ncv_accuracy %.6f\n",
                      p->precision, p->recall, p->f1, p->accuracy);
    }
    ps_buf_printf(&b, "rows_content %zu\nrows_noise %zu\nrows_unlabelled %zu\n", d->n_content,
                  d->n_noise, d->unlabelled);
    ps_buf_printf(&b, "train_rows_content %zu\ntrain_rows_noise %zu\nsupport_vectors %d\n", n1, n - n1,
                  model->l);
    ps_buf_printf(&b, "data_checksum fnv1a64:%016llx\ndata_files %s\n",
                  (unsigned long long)d->checksum, d->files);
    if (stamp) {
        char date[64];
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        ps_buf_printf(&b, "created %s\n", date);
    }
    ps_buf_printf(&b, "libsvm-model-bytes %zu\n", svm_len);
    ps_buf_append(&b, svm_text, svm_len);
    ps_buf_printf(&b, "end pagesift-model\n");
    if (!b.data || ps_model_bundle_seal(&b) != 0)
        goto oom;
    m = ps_model_parse_ex(b.data, b.len, "trained model", 0, err);
    goto fail;
oom:
    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
fail:
    if (model)
        svm_free_and_destroy_model(&model);
    free(svm_text);
    ps_buf_free(&b);
    free(prob.y);
    free(prob.x);
    free(nodes);
    free(idx);
    free(mn);
    free(mx);
    return m;
}
