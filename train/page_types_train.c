/* train/page_types_train.c — training the page-type classifier
 * (ps_page_types_train, train/page_types.c is the classifier): reads data
 * sets whose index has a page_type column, chooses C and gamma by
 * cross-validation grouped by site (the folds of ps_dataset_page_fold, the
 * ones scripts/eval-wcxb-folds uses) on accuracy, and trains the final
 * model on every page; the bundle's lines are train/page_types_format.h's. */
#define _GNU_SOURCE
#include <libsvm/svm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/util.h"
#include "extract/page_signals.h"
#include "pagesift/dataset.h"
#include "pagesift/page.h"
#include "pagesift/page_types.h"
#include "train/page_types_format.h"
#include "train/train_internal.h"

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* ---- training ------------------------------------------------------------ */

typedef struct tpage {
    double *x;      /* signals, raw */
    int y;          /* label index */
    unsigned fold;  /* 1..folds */
} tpage;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* libsvm prints its progress to stdout: silence it */
static void svm_quiet(const char *s)
{
    (void)s;
}

/* CV of one grid point: the pooled confusion (n_labels^2, true-major). */
static int cv_point(const tpage *pg, size_t n, size_t nf, size_t nl, unsigned folds, double C, double gamma,
                    struct svm_node *nodes, unsigned *conf)
{
    memset(conf, 0, nl * nl * sizeof *conf);
    struct svm_node **xs = malloc(n * sizeof *xs);
    double *ys = malloc(n * sizeof *ys);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return -1;
    }
    for (unsigned f = 1; f <= folds; f++) {
        struct svm_problem prob = {0, ys, xs};
        for (size_t i = 0; i < n; i++)
            if (pg[i].fold != f) {
                xs[prob.l] = nodes + i * (nf + 1);
                ys[prob.l++] = pg[i].y;
            }
        if (prob.l == 0 || (size_t)prob.l == n)
            continue;
        struct svm_parameter par = {.svm_type = C_SVC, .kernel_type = RBF, .gamma = gamma, .C = C,
                                    .cache_size = 200, .eps = 1e-3, .shrinking = 1};
        struct svm_model *sm = svm_train(&prob, &par);
        for (size_t i = 0; i < n; i++)
            if (pg[i].fold == f) {
                int p = (int)svm_predict(sm, nodes + i * (nf + 1));
                if (p >= 0 && (size_t)p < nl)
                    conf[(size_t)pg[i].y * nl + (size_t)p]++;
            }
        svm_free_and_destroy_model(&sm);
    }
    free(xs);
    free(ys);
    return 0;
}

int ps_page_types_train(const char *const *dirs, size_t n_dirs, const ps_page_types_train_options *opt,
                        ps_buf *bundle, ps_page_types_cv *cv, ps_error *err)
{
    unsigned folds = opt && opt->folds ? opt->folds : 5;
    unsigned seed = opt ? opt->seed : 1;
    /* the signals used: the hand-made ones and the hashed blocks asked for */
    unsigned blocks = 0;
    if (opt && opt->hash && ps_page_hash_blocks(opt->hash, &blocks) != 0)
        return ps_set_error(err, PS_ERR_USAGE, "hashed signals: '%s' names no known block (c, u, t, x, c128, "
                                               "u64, t32, x32)", opt->hash);
    size_t nf_all = ps_page_signal_count(), nf = 0;
    size_t *cols = calloc(nf_all, sizeof *cols);
    double *xall = malloc(nf_all * sizeof *xall);
    if (!cols || !xall) {
        free(cols);
        free(xall);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    for (size_t j = 0; j < nf_all; j++) {
        int b = ps_page_signal_block(j);
        if (b < 0 || (blocks & (1u << b)))
            cols[nf++] = j;
    }
    tpage *pg = NULL;
    size_t n = 0, cap = 0;
    char **labels = NULL;
    size_t nl = 0;
    int rc = 0;
    ps_dataset **sets = calloc(n_dirs ? n_dirs : 1, sizeof *sets);
    if (!sets)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    /* the labels: every page_type value, sorted */
    for (size_t d = 0; !rc && d < n_dirs; d++) {
        /* "DIR=TYPE": every page of that set is of TYPE */
        const char *eq = strrchr(dirs[d], '=');
        const char *slash = strrchr(dirs[d], '/');
        char *path = eq && (!slash || eq > slash) ? strndup(dirs[d], (size_t)(eq - dirs[d])) : strdup(dirs[d]);
        if (!path) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        sets[d] = ps_dataset_load(path, err);
        free(path);
        if (!sets[d]) {
            rc = -1;
            break;
        }
        if (opt && opt->pages.n)
            ps_dataset_filter(sets[d], &opt->pages);
        if (opt && opt->pages2.n)
            ps_dataset_filter(sets[d], &opt->pages2);
        if (eq && (!slash || eq > slash) && eq[1])
            for (size_t i = 0; !rc && i < sets[d]->n_pages; i++) {
                char *t = strdup(eq + 1);
                if (!t) {
                    rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                    break;
                }
                free(sets[d]->pages[i].page_type);
                sets[d]->pages[i].page_type = t;
            }
        /* a DIR=TYPE set: at most max_per_set pages, evenly spread over its order */
        size_t np = sets[d]->n_pages, mx = opt ? opt->max_per_set : 0;
        if (eq && (!slash || eq > slash) && mx && np > mx)
            for (size_t i = 0; i < np; i++)
                if (((i + 1) * mx) / np == (i * mx) / np) {
                    free(sets[d]->pages[i].page_type);
                    sets[d]->pages[i].page_type = NULL; /* not picked: left out */
                }
        for (size_t i = 0; i < sets[d]->n_pages; i++) {
            const char *t = sets[d]->pages[i].page_type;
            if (!t || !*t)
                continue;
            size_t k = 0;
            while (k < nl && strcmp(labels[k], t) != 0)
                k++;
            if (k == nl) {
                char **nlab = realloc(labels, (nl + 1) * sizeof *labels);
                if (!nlab || !(nlab[nl] = strdup(t))) {
                    labels = nlab ? nlab : labels;
                    rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                    break;
                }
                labels = nlab;
                nl++;
            }
        }
    }
    if (!rc && nl < 2)
        rc = ps_set_error(err, PS_ERR_USAGE, "fewer than two page types in the page_type column of the data sets");
    if (!rc)
        qsort(labels, nl, sizeof *labels, cmp_str);
    /* the signals of every labelled page */
    for (size_t d = 0; !rc && d < n_dirs; d++) {
        ps_dataset *ds = sets[d];
        for (size_t i = 0; !rc && i < ds->n_pages; i++) {
            const ps_dataset_page *dp = &ds->pages[i];
            if (!dp->page_type || !*dp->page_type)
                continue;
            ps_error pe = {0};
            size_t len;
            char *html = ps_read_page_file(dp->html_path, 0, &len, &pe);
            ps_page_options po = {.url = dp->url && *dp->url ? dp->url : NULL,
                                  .block_tags = opt ? opt->block_tags : NULL};
            ps_page *page = html ? ps_page_parse(html, len, &po, &pe) : NULL;
            free(html);
            if (!page) {
                if (opt && opt->verbose)
                    ps_print("%s: skipped: %s", dp->html_path, pe.msg);
                continue;
            }
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                tpage *np = realloc(pg, nc * sizeof *np);
                if (!np) {
                    ps_page_free(page);
                    rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                    break;
                }
                pg = np;
                cap = nc;
            }
            tpage *t = &pg[n];
            t->x = malloc(nf * sizeof *t->x);
            if (!t->x || ps_page_signals_select(page, xall, blocks) != 0) {
                free(t->x);
                ps_page_free(page);
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            for (size_t j = 0; j < nf; j++)
                t->x[j] = xall[cols[j]];
            ps_page_free(page);
            size_t k = 0;
            while (strcmp(labels[k], dp->page_type) != 0)
                k++;
            t->y = (int)k;
            t->fold = ps_dataset_page_fold(dp, folds);
            n++;
        }
    }
    for (size_t d = 0; d < n_dirs; d++)
        ps_dataset_free(sets[d]);
    free(sets);
    if (!rc && n < 2 * folds)
        rc = ps_set_error(err, PS_ERR_USAGE, "%zu labelled pages: too few for %u folds", n, folds);

    /* scale to [0, 1] over all pages */
    double *mn = calloc(nf, sizeof *mn), *mx = calloc(nf, sizeof *mx);
    struct svm_node *nodes = calloc(n * (nf + 1) + 1, sizeof *nodes);
    if (!rc && (!mn || !mx || !nodes))
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t j = 0; !rc && j < nf; j++) {
        mn[j] = mx[j] = pg[0].x[j];
        for (size_t i = 1; i < n; i++) {
            mn[j] = pg[i].x[j] < mn[j] ? pg[i].x[j] : mn[j];
            mx[j] = pg[i].x[j] > mx[j] ? pg[i].x[j] : mx[j];
        }
    }
    /* hashed signals: already in [0, 1], their scale fixed to it (not the
     * pages' range: a bucket no training page has stays readable) */
    for (size_t j = 0; !rc && j < nf; j++)
        if (ps_page_signal_block(cols[j]) >= 0) {
            mn[j] = 0;
            mx[j] = 1;
        }
    for (size_t i = 0; !rc && i < n; i++) {
        size_t k = 0; /* hashed signals sparse: their zeros left out */
        for (size_t j = 0; j < nf; j++) {
            double v = mx[j] > mn[j] ? (pg[i].x[j] - mn[j]) / (mx[j] - mn[j]) : 0;
            if (v == 0 && ps_page_signal_block(cols[j]) >= 0)
                continue;
            nodes[i * (nf + 1) + k].index = (int)j + 1;
            nodes[i * (nf + 1) + k].value = v;
            k++;
        }
        nodes[i * (nf + 1) + k].index = -1;
    }

    /* the grid, chosen on CV accuracy (ties: the smaller C, then gamma) */
    svm_set_print_string_function(svm_quiet);
    unsigned *conf = calloc(nl * nl + 1, sizeof *conf), *best_conf = calloc(nl * nl + 1, sizeof *conf);
    double best_acc = -1, best_c = 1, best_g = 1;
    if (!rc && (!conf || !best_conf))
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int c_lo = -1, c_hi = 11, c_step = 2, g_lo = -9, g_hi = 1, g_step = 2;
    if (opt && opt->grid_given && opt->c_step > 0 && opt->g_step > 0) {
        c_lo = opt->c_lo, c_hi = opt->c_hi, c_step = opt->c_step;
        g_lo = opt->g_lo, g_hi = opt->g_hi, g_step = opt->g_step;
    }
    for (int lc = c_lo; !rc && lc <= c_hi; lc += c_step)
        for (int lg = g_lo; !rc && lg <= g_hi; lg += g_step) {
            if (cv_point(pg, n, nf, nl, folds, ldexp(1, lc), ldexp(1, lg), nodes, conf) != 0) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            size_t right = 0;
            for (size_t k = 0; k < nl; k++)
                right += conf[k * nl + k];
            double acc = (double)right / (double)n;
            if (opt && opt->verbose)
                ps_print("page types: log2 C %d, log2 gamma %d: CV accuracy %.4f", lc, lg, acc);
            if (acc > best_acc) {
                best_acc = acc;
                best_c = lc;
                best_g = lg;
                memcpy(best_conf, conf, nl * nl * sizeof *conf);
            }
        }

    /* the final model, with probabilities (libsvm's inner CV draws with rand()) */
    struct svm_model *sm = NULL;
    struct svm_node **xs = calloc(n + 1, sizeof *xs);
    double *ys = calloc(n + 1, sizeof *ys);
    if (!rc && (!xs || !ys))
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (!rc) {
        for (size_t i = 0; i < n; i++) {
            xs[i] = nodes + i * (nf + 1);
            ys[i] = pg[i].y;
        }
        struct svm_problem prob = {(int)n, ys, xs};
        struct svm_parameter par = {.svm_type = C_SVC, .kernel_type = RBF, .gamma = ldexp(1, (int)best_g),
                                    .C = ldexp(1, (int)best_c), .cache_size = 200, .eps = 1e-3,
                                    .shrinking = 1, .probability = 1};
        srand(seed);
        sm = svm_train(&prob, &par);
    }
    char *svm_text = NULL;
    size_t svm_len = 0;
    if (!rc && !(svm_text = ps_svm_model_to_text(sm, &svm_len, err)))
        rc = -1;
    if (!rc) {
        ps_buf h = {0};
        ps_buf_printf(&h, "%stool pagesift-train %s\nlabels ", MAGIC, ps_version());
        for (size_t k = 0; k < nl; k++)
            ps_buf_printf(&h, "%s%s", k ? "," : "", labels[k]);
        ps_buf_printf(&h, "\nblock_tags ");
        const char *const *bt = opt && opt->block_tags ? opt->block_tags : ps_default_block_tags;
        for (size_t j = 0; bt[j]; j++)
            ps_buf_printf(&h, "%s%s", j ? "," : "", bt[j]);
        ps_buf_printf(&h, "\nsignals ");
        for (size_t j = 0; j < nf; j++)
            ps_buf_printf(&h, "%s%s", j ? "," : "", ps_page_signal_name(cols[j]));
        ps_buf_printf(&h, "\nscale_min");
        for (size_t j = 0; j < nf; j++)
            ps_buf_printf(&h, " %.17g", mn[j]);
        ps_buf_printf(&h, "\nscale_max");
        for (size_t j = 0; j < nf; j++)
            ps_buf_printf(&h, " %.17g", mx[j]);
        ps_buf_printf(&h, "\nC %.17g\ngamma %.17g\nlog2_C %d\nlog2_gamma %d\nseed %u\n", ldexp(1, (int)best_c),
                      ldexp(1, (int)best_g), (int)best_c, (int)best_g, seed);
        ps_buf_printf(&h, "cv_folds %u\ncv_group_by site\ncv_pages %zu\ncv_accuracy %.6f\ncv_confusion ", folds, n,
                      best_acc);
        for (size_t a = 0; a < nl; a++)
            for (size_t b = 0; b < nl; b++)
                ps_buf_printf(&h, "%u%s", best_conf[a * nl + b], b + 1 < nl ? "," : a + 1 < nl ? ";" : "\n");
        ps_buf_printf(&h, "data_sets ");
        for (size_t d = 0; d < n_dirs; d++) {
            const char *b = strrchr(dirs[d], '/');
            b = b && b[1] ? b + 1 : dirs[d];
            ps_buf_printf(&h, "%s%s", d ? " " : "", b);
        }
        ps_buf_printf(&h, "\n");
        size_t ck_at = h.len;
        ps_buf_printf(&h, SVM_BYTES_KEY "%zu\n", svm_len);
        ps_buf_append(&h, svm_text, svm_len);
        ps_buf_printf(&h, END_LINE);
        if (!h.data) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        } else {
            uLong crc = crc32(0L, Z_NULL, 0);
            crc = crc32(crc, (const Bytef *)h.data, (uInt)h.len);
            ps_buf_free(bundle);
            ps_buf_append(bundle, h.data, ck_at);
            ps_buf_printf(bundle, CHECKSUM_KEY "%08lx\n", (unsigned long)crc);
            ps_buf_append(bundle, h.data + ck_at, h.len - ck_at);
        }
        ps_buf_free(&h);
    }
    if (!rc && cv) {
        cv->accuracy = best_acc;
        cv->pages = n;
        cv->log2_c = (int)best_c;
        cv->log2_gamma = (int)best_g;
    }
    free(svm_text);
    if (sm)
        svm_free_and_destroy_model(&sm);
    free(xs);
    free(ys);
    free(conf);
    free(best_conf);
    free(nodes);
    free(mn);
    free(mx);
    for (size_t i = 0; i < n; i++)
        free(pg[i].x);
    free(pg);
    free(cols);
    free(xall);
    free_list(labels, nl);
    return rc;
}
