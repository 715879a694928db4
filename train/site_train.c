/* train/site_train.c — training per-site models (include/pagesift/site_models.h,
 * docs/SITE_MODELS.md): one site's bundle from the base model and the
 * site's labelled rows, written into the model folder (atomic, versioned
 * by site_revision); and which pages to label next.  The bundle written is
 * a delta against the base, read back as inference reads it
 * (train/site_models.c).
 *
 * Training.  The general training set enters as the base model's support
 * vectors, labelled by the sign of their coefficients and already scaled:
 * an SVM retrained on its own support vectors with the same C and gamma is
 * the same SVM (the dual optimum restricted to them is still optimal), so
 * the site model starts from exactly what the base learnt, and training
 * takes the base's ~1 600 rows instead of its ~14 000.  The site's rows are
 * scaled with the base's scale (features and scaling stay the base's, so
 * the same feature rows serve the base and every site model of a page), the
 * majority class of them undersampled (seeded, as the default recipe does),
 * and each kept row counted W times (libsvm has no per-row weight; W copies
 * of a row are one row of cost W*C).  W is chosen from the candidates by
 * cross-validation over the site's pages, grouped by page (at most 5 folds;
 * F1 of the content class pooled over the held-out pages' rows, ties to
 * the smaller W); the base model is scored on the same folds, for the
 * record.  The site's rows may be of one class only (its template library
 * took every noise block away): the base's support vectors bring the other,
 * and nothing is undersampled then.  A site with one labelled page gets W = 3 without CV.
 * The site's pages are put in an order of their own first (by a hash of
 * their rows: ps_site_model_train_ex), so that the draw and the folds, and
 * so the bundle, do not depend on the order the pages came in.
 *
 * Judged as inference uses it (issue 30): with a stacked base, the CV's
 * held-out pages (and the base) are scored through the base's second stage
 * (stack_page: context features from the rows' tree, the gate), F1 by
 * characters; the site model is returned only where the best W's CV F1
 * beats the base's on the same folds, or, with one labelled page, where on
 * that page it keeps at least as much labelled content and drops at least
 * as much labelled noise as the base, and more of one.  Otherwise NULL,
 * rep->declined.  No labelled row: the base itself (an empty delta).
 *
 * Block paths (issue 30): with the rows' DOM paths and >= 3 labelled pages,
 * the paths the pages agree on (agreed_paths: labelled on >= 2 pages, 99 %
 * of their characters one way; not a content path of one text on every
 * page) set the final scores of the blocks at those paths of at most
 * PS_SITE_PATH_GROWTH times the path's longest labelled block
 * (apply_paths, as methods/classifier_site.c does at inference).  The
 * same CV judges them, with each W and alone (the base's SVM: weight 0);
 * they go into the bundle (after the delta, "paths N") only when that
 * raises the CV F1. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libsvm/svm.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/util.h"
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"
#include "pagesift/site_models.h"
#include "pagesift/templates.h"
#include "train/train_internal.h"

static void svm_quiet(const char *s)
{
    (void)s;
}
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
static void quiet(void)
{
    svm_set_print_string_function(svm_quiet);
}

/* The end of the line starting at @p p (as train/site_models.c reads bundles). */
static const char *line_end(const char *p, const char *end)
{
    return p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
}

/* A delta bundle read against its base, as inference reads it. */
static ps_model *delta_parse(const char *text, size_t len, const char *name, const ps_model *base, ps_error *err)
{
    return ps_site_model_parse(text, len, name, base, err);
}

/* ---- scoring as inference does: the first stage, then the second ------ */

/* The base's second stage as the CV and the one-page check use it (the
 * stack of methods/classifier_stack.c on CSV-like rows): its sources, gate
 * and the rows' tree. */
typedef struct stack_ctx {
    const ps_model *second; /* NULL: the first stage alone */
    const int32_t *parent;
    const uint32_t *chars;
    int src[PS_MODEL_MAX_FEATURES];
    size_t n2;
    double gate;
} stack_ctx;

/* The final scores out[lo..hi) of the rows of one page from their
 * first-stage scores s1: the second stage's where it judges (blocks at or
 * above its gate), s1 elsewhere; s1 itself without a second stage. */
static int stack_page(const stack_ctx *sc, const double *x, size_t nf, size_t lo, size_t hi, const double *s1,
                      double *out)
{
    size_t n = hi - lo;
    for (size_t i = lo; i < hi; i++)
        out[i] = s1[i];
    if (!sc->second || n == 0)
        return 0;
    size_t n2 = sc->n2;
    int32_t *par = malloc(n * sizeof *par);
    double *ctx = malloc(n * PS_CONTEXT_FEATURES * sizeof *ctx), *rows = malloc(n * n2 * sizeof *rows);
    double *dec = malloc(n * sizeof *dec);
    uint8_t *pred = malloc(n);
    size_t *judged = malloc(n * sizeof *judged);
    int rc = -1;
    if (par && ctx && rows && dec && pred && judged) {
        for (size_t i = 0; i < n; i++) {
            int32_t p = sc->parent[lo + i];
            par[i] = p >= 0 && (size_t)p >= lo && (size_t)p < lo + i ? (int32_t)((size_t)p - lo) : -1;
        }
        if (ps_context_features(n, par, sc->chars + lo, s1 + lo, ctx) == 0) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++) {
                if (ps_stack_gated(s1[lo + i], sc->gate))
                    continue;
                ps_context_row(sc->src, n2, x + (lo + i) * nf, ctx + i * PS_CONTEXT_FEATURES, rows + m * n2);
                judged[m++] = i;
            }
            ps_model_predict_many(sc->second, rows, n2, NULL, m, pred, dec);
            for (size_t r = 0; r < m; r++)
                out[lo + judged[r]] = dec[r];
            rc = 0;
        }
    }
    free(par);
    free(ctx);
    free(rows);
    free(dec);
    free(pred);
    free(judged);
    return rc;
}

/* stack_page over the pages of the rows with want[r] (whole pages: rows of
 * a page are consecutive and share page[r]). */
static int stack_rows(const stack_ctx *sc, const double *x, size_t nf, const uint32_t *page, size_t n_rows,
                      const uint8_t *want, const double *s1, double *out)
{
    for (size_t lo = 0, hi; lo < n_rows; lo = hi) {
        for (hi = lo + 1; hi < n_rows && page[hi] == page[lo]; hi++)
            ;
        if (want && !want[lo])
            continue;
        if (stack_page(sc, x, nf, lo, hi, s1, out) != 0)
            return -1;
    }
    return 0;
}

/* Characters (or 1 a row without chars) of the labelled rows with want[r]:
 * content kept (tp), noise kept (fp), content dropped (fn), noise dropped
 * (tn), by the final scores. */
typedef struct tally {
    double tp, fp, fn, tn;
} tally;

static void tally_rows(const uint32_t *chars, const int8_t *y, size_t n_rows, const uint8_t *want,
                       const double *score, tally *t)
{
    for (size_t r = 0; r < n_rows; r++) {
        if ((want && !want[r]) || y[r] < 0)
            continue;
        double w = chars ? (chars[r] ? chars[r] : 1) : 1;
        int keep = score[r] > 0;
        if (y[r])
            *(keep ? &t->tp : &t->fn) += w;
        else
            *(keep ? &t->fp : &t->tn) += w;
    }
}

static double tally_f1(const tally *t)
{
    double p = t->tp + t->fp > 0 ? t->tp / (t->tp + t->fp) : 0, r = t->tp + t->fn > 0 ? t->tp / (t->tp + t->fn) : 0;
    return p + r > 0 ? 2 * p * r / (p + r) : 0;
}

/* The first-stage scores (content > 0) of a libsvm model on the rows of
 * @p want (all when NULL). */
static void svm_first_scores(const struct svm_model *sm, const struct svm_node *nodes, size_t nf, size_t n_rows,
                             const uint8_t *want, double *s1)
{
    for (size_t r = 0; r < n_rows; r++) {
        if (want && !want[r])
            continue;
        double dec;
        svm_predict_values(sm, nodes + r * (nf + 1), &dec);
        s1[r] = sm->label[0] == 1 ? dec : -dec;
    }
}

/* The gate (ps_site_train_options.gate): the rows of @p want (all when
 * NULL) where the base's first-stage score @p bs1 is at least @p gate away
 * from 0 keep it (no gate: @p bs1 NULL). */
static void gate_scores(const double *bs1, double gate, const uint8_t *want, size_t n_rows, double *s1)
{
    if (!bs1)
        return;
    for (size_t r = 0; r < n_rows; r++)
        if ((!want || want[r]) && (bs1[r] >= gate || bs1[r] <= -gate))
            s1[r] = bs1[r];
}

/* ---- block paths (issue 30) -------------------------------------------- */

/* A labelled row's path: its entry key without the label, its text's hash
 * (0 unknown), its page and label, its characters (and as the weight). */
typedef struct path_row {
    uint64_t h, text;
    uint32_t page;
    uint32_t chars;
    int8_t y;
    double w;
} path_row;

uint64_t ps_site_text_hash(const char *text, size_t len)
{
    const uint64_t h = ps_hash64(text, len);
    return h ? h : 1; /* 0 is "no text known" */
}

static int path_row_cmp(const void *a, const void *b)
{
    const path_row *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->page < y->page ? -1 : x->page > y->page;
}

/* The paths the labelled rows of @p use agree on: a path labelled on at
 * least PS_SITE_PATH_PAGES pages, with at least PS_SITE_PATH_PURITY of its
 * labelled characters one way, as entries (ascending by ps_site_path_key,
 * as the rows' sort leaves them, with the characters of the longest labelled block) in @p out (room for
 * n_rows); their number.  With @p text_hash, a content path whose
 * labelled blocks have one text on every page is left out: a line the same
 * on every page is the site's (a share bar, a fixed line), whatever the
 * labels say.  With @p text (the final paths of the bundle) each entry's
 * line "L MAX PATH" is added to it too, in the rows' order. */
static size_t agreed_paths(const char *const *path, const int8_t *y, const uint32_t *chars,
                           const uint64_t *text_hash, const uint32_t *page, const uint8_t *use, size_t n_rows,
                           path_row *tmp, ps_site_path *out, ps_buf *text)
{
    size_t n = 0, k = 0;
    for (size_t r = 0; r < n_rows; r++)
        if (use[r] && y[r] >= 0 && path[r] && *path[r])
            tmp[n++] = (path_row){.h = ps_site_path_key(path[r], strlen(path[r]), 0), .page = page[r], .y = y[r],
                                  .text = text_hash ? text_hash[r] : 0, .chars = chars ? chars[r] : 0,
                                  .w = chars ? (chars[r] ? chars[r] : 1) : 1};
    qsort(tmp, n, sizeof *tmp, path_row_cmp);
    for (size_t i = 0, j; i < n; i = j) {
        double c = 0, all = 0;
        size_t pages = 0;
        uint32_t most = 0;
        int same_text = tmp[i].text != 0;
        for (j = i; j < n && tmp[j].h == tmp[i].h; j++) {
            pages += j == i || tmp[j].page != tmp[j - 1].page;
            all += tmp[j].w;
            if (tmp[j].y)
                c += tmp[j].w;
            if (tmp[j].chars > most)
                most = tmp[j].chars;
            same_text &= tmp[j].text == tmp[i].text && tmp[j].chars == tmp[i].chars;
        }
        if (pages < PS_SITE_PATH_PAGES)
            continue;
        if (c >= PS_SITE_PATH_PURITY * all && !same_text)
            out[k++] = (ps_site_path){tmp[i].h | 1, most};
        else if (all - c >= PS_SITE_PATH_PURITY * all)
            out[k++] = (ps_site_path){tmp[i].h, most};
    }
    /* the lines, each path once, in the rows' order (tmp[].page marks an
     * entry written: the entries' rows are no longer needed) */
    for (size_t i = 0; text && i < k; i++)
        tmp[i].page = 0;
    for (size_t r = 0; text && r < n_rows; r++) {
        if (!use[r] || y[r] < 0 || !path[r] || !*path[r])
            continue;
        const size_t i = ps_site_path_find(out, k, ps_site_path_key(path[r], strlen(path[r]), 0));
        if (i == k || tmp[i].page)
            continue;
        const ps_site_path *e = &out[i];
        tmp[i].page = 1;
        ps_buf_printf(text, "%d %u %s\n", (int)(e->key & 1), (unsigned)e->max_chars, path[r]);
    }
    return k;
}

/* The final scores of the rows of @p want whose path is among @p paths
 * take its label, as the per-site classifier does at inference
 * (methods/classifier_site.c, ps_site_model_path_label): rows of at most
 * PS_SITE_PATH_GROWTH times the path's longest labelled block. */
static void apply_paths(const ps_site_path *paths, size_t n_paths, const char *const *path, const uint32_t *chars,
                        const uint8_t *want, size_t n_rows, double *score)
{
    for (size_t r = 0; r < n_rows && n_paths; r++) {
        if ((want && !want[r]) || !path[r] || !*path[r])
            continue;
        const int l = ps_site_path_decide(paths, n_paths, ps_site_path_key(path[r], strlen(path[r]), 0),
                                          chars ? chars[r] : 0);
        if (l == 1 && score[r] < PS_SITE_PATH_SCORE)
            score[r] = PS_SITE_PATH_SCORE;
        else if (l == 0 && score[r] > -PS_SITE_PATH_SCORE)
            score[r] = -PS_SITE_PATH_SCORE;
    }
}

/* ---- training ----------------------------------------------------------- */

typedef struct site_train {
    const ps_model *base;
    size_t nf, n_rows;
    struct svm_node *base_nodes; /* n_sv rows of nf + 1 nodes */
    double *base_y;
    struct svm_node *site_nodes; /* n_rows rows of nf + 1 nodes, scaled */
    const int8_t *y;
    const uint32_t *page;
    double C, gamma;
    uint64_t seed;
} site_train;

/* The rows of @p use (1 per row) after undersampling the majority class:
 * indices into keep (ascending), their count returned. */
static size_t balanced_rows(const site_train *t, const uint8_t *use, uint64_t seed, size_t *keep)
{
    size_t n1 = 0, n0 = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        if (use[r])
        {
            if (t->y[r])
                n1++;
            else
                n0++;
        }
    int major = n1 > n0 ? 1 : 0;
    size_t n_major = major ? n1 : n0, n_minor = major ? n0 : n1;
    if (n_minor == 0) /* one class only (templates took the site's noise): keep all */
        n_minor = n_major;
    size_t *maj = malloc((n_major + 1) * sizeof *maj);
    if (!maj)
        return (size_t)-1;
    size_t k = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        if (use[r] && t->y[r] == major)
            maj[k++] = r;
    /* partial Fisher-Yates: the first n_minor of maj become the sample */
    uint64_t s = seed;
    size_t take = n_minor < n_major ? n_minor : n_major;
    for (size_t i = 0; i < take; i++) {
        size_t j = i + ps_rng_below(&s, n_major - i);
        size_t tmp = maj[i];
        maj[i] = maj[j];
        maj[j] = tmp;
    }
    uint8_t *chosen = calloc(t->n_rows + 1, 1);
    if (!chosen) {
        free(maj);
        return (size_t)-1;
    }
    for (size_t i = 0; i < take; i++)
        chosen[maj[i]] = 1;
    size_t n = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        if (use[r] && (t->y[r] != major || chosen[r]))
            keep[n++] = r;
    free(maj);
    free(chosen);
    return n;
}

/* Train base support vectors + the site rows of @p use (balanced), each
 * counted @p w times.  NULL when out of memory or libsvm refuses. */
static struct svm_model *train_one(const site_train *t, const uint8_t *use, int w, uint64_t seed,
                                   size_t *n_content, size_t *n_noise, size_t **src_out)
{
    size_t *keep = malloc((t->n_rows + 1) * sizeof *keep);
    if (!keep)
        return NULL;
    size_t nk = balanced_rows(t, use, seed, keep);
    if (nk == (size_t)-1) {
        free(keep);
        return NULL;
    }
    size_t nsv = t->base->n_sv, l = nsv + nk * (size_t)w;
    struct svm_problem prob = {.l = (int)l};
    prob.y = malloc((l + 1) * sizeof *prob.y);
    prob.x = malloc((l + 1) * sizeof *prob.x);
    struct svm_model *model = NULL;
    /* the source of each training row: i < nsv the base's support vector
     * i, else nsv + the site row */
    size_t *src = src_out ? malloc((l + 1) * sizeof *src) : NULL;
    if (prob.y && prob.x && (src || !src_out)) {
        size_t i = 0, c1 = 0;
        for (size_t r = 0; r < nsv; r++, i++) {
            prob.y[i] = t->base_y[r];
            prob.x[i] = t->base_nodes + r * (t->nf + 1);
            c1 += t->base_y[r] > 0.5;
            if (src)
                src[i] = r;
        }
        for (size_t k = 0; k < nk; k++)
            for (int c = 0; c < w; c++, i++) {
                prob.y[i] = t->y[keep[k]];
                prob.x[i] = t->site_nodes + keep[k] * (t->nf + 1);
                c1 += t->y[keep[k]] == 1;
                if (src)
                    src[i] = nsv + keep[k];
            }
        if (n_content)
            *n_content = c1;
        if (n_noise)
            *n_noise = l - c1;
        struct svm_parameter p = {0};
        p.svm_type = C_SVC;
        p.kernel_type = RBF;
        p.gamma = t->gamma;
        p.C = t->C;
        p.cache_size = 100;
        p.eps = 1e-3;
        p.shrinking = 1;
        if (!svm_check_parameter(&prob, &p))
            model = svm_train(&prob, &p);
    }
    free(prob.y);
    free(prob.x);
    free(keep);
    if (src_out) {
        if (model)
            *src_out = src;
        else
            free(src);
    }
    return model;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

ps_model *ps_site_model_train(const ps_model *base, const char *base_name, const char *site,
                              const double *x, const int8_t *y, const uint32_t *page, size_t n_rows,
                              const ps_site_train_options *o, ps_site_train_report *rep, ps_error *err)
{
    return ps_site_model_train_ex(base, base_name, site, x, y, page, n_rows, o, rep, NULL, err);
}

static ps_model *train_rows(const ps_model *base, const char *base_name, const char *site, const double *x,
                            const int8_t *y, const uint32_t *page, size_t n_rows, const ps_site_train_options *o,
                            ps_site_train_report *rep, ps_model **full, ps_error *err);

/* A page of the site's rows: its number, its key (a hash of its rows; then
 * its number in the canonical order) and how many rows it has. */
typedef struct canon_page {
    uint64_t key;
    uint32_t number;
    size_t rows;
} canon_page;

static int canon_page_cmp(const void *a, const void *b)
{
    const canon_page *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->number > q->number) - (p->number < q->number);
}

static int canon_number_cmp(const void *a, const void *b)
{
    const canon_page *p = a, *q = b;
    return (p->number > q->number) - (p->number < q->number);
}

/* The same site model whatever order the site's pages come in (issue 30):
 * the undersampling draw and the CV's folds follow the rows' order, so the
 * same labelled pages given in another order made another model (one
 * site's five pages: +0.0005 or -0.057 on its other pages, by their order
 * alone; docs/SITE_MODELS.md).  The pages are put in an order of their
 * own first — by a hash of each page's rows (features and labels), rows of
 * a page together in their order — and numbered 0, 1, ... in it; parent
 * indices follow their rows.  Two pages with the same rows keep their
 * given order between them (they are the same page twice). */
ps_model *ps_site_model_train_ex(const ps_model *base, const char *base_name, const char *site,
                                 const double *x, const int8_t *y, const uint32_t *page, size_t n_rows,
                                 const ps_site_train_options *o, ps_site_train_report *rep, ps_model **full,
                                 ps_error *err)
{
    if (!base || !x || !y || !page || n_rows == 0)
        return train_rows(base, base_name, site, x, y, page, n_rows, o, rep, full, err);
    const size_t nf = base->n_features;
    const int32_t *parent = o ? o->parent : NULL;
    const uint32_t *chars = o ? o->chars : NULL;
    canon_page *pg = malloc((n_rows + 1) * sizeof *pg);
    size_t *pos = malloc((n_rows + 1) * sizeof *pos), *fill = NULL;
    double *cx = malloc((n_rows * nf + 1) * sizeof *cx);
    int8_t *cy = malloc(n_rows + 1);
    uint32_t *cpage = malloc((n_rows + 1) * sizeof *cpage), *cchars = chars ? malloc((n_rows + 1) * sizeof *cchars) : NULL;
    int32_t *cparent = parent ? malloc((n_rows + 1) * sizeof *cparent) : NULL;
    const char *const *path = o ? o->path : NULL;
    const char **cpath = path ? malloc((n_rows + 1) * sizeof *cpath) : NULL;
    const uint64_t *text = o ? o->text_hash : NULL;
    uint64_t *ctext = text ? malloc((n_rows + 1) * sizeof *ctext) : NULL;
    ps_model *m = NULL;
    if (!pg || !pos || !cx || !cy || !cpage || (chars && !cchars) || (parent && !cparent) || (path && !cpath) ||
        (text && !ctext)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the distinct pages (sorted by number), each row's page index */
    size_t np = 0;
    for (size_t r = 0; r < n_rows; r++)
        pg[np++] = (canon_page){.number = page[r]};
    qsort(pg, np, sizeof *pg, canon_number_cmp);
    size_t k = 0;
    for (size_t i = 0; i < np; i++)
        if (i == 0 || pg[i].number != pg[k - 1].number)
            pg[k++] = (canon_page){.key = 14695981039346656037ULL, .number = pg[i].number};
    np = k;
    for (size_t r = 0; r < n_rows; r++) {
        canon_page key = {.number = page[r]};
        canon_page *c = bsearch(&key, pg, np, sizeof *pg, canon_number_cmp);
        c->key = ps_hash64_update(ps_hash64_update(c->key, &y[r], 1), x + r * nf, nf * sizeof *x);
        c->rows++;
        pos[r] = (size_t)(c - pg);
    }
    /* pos[r]: the row's page index (by number); order the pages by key */
    if (!(fill = malloc((np + 1) * sizeof *fill))) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    canon_page *by_key = malloc((np + 1) * sizeof *by_key);
    if (!by_key) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(by_key, pg, np * sizeof *pg);
    qsort(by_key, np, sizeof *by_key, canon_page_cmp);
    for (size_t i = 0, at = 0; i < np; i++) {
        canon_page key = {.number = by_key[i].number};
        canon_page *c = bsearch(&key, pg, np, sizeof *pg, canon_number_cmp);
        fill[(size_t)(c - pg)] = at;
        at += c->rows;
        c->key = i;
    }
    free(by_key);
    for (size_t r = 0; r < n_rows; r++) {
        const size_t pi = pos[r], to = fill[pi]++;
        pos[r] = to;
        memcpy(cx + to * nf, x + r * nf, nf * sizeof *x);
        cy[to] = y[r];
        cpage[to] = (uint32_t)pg[pi].key;
        if (cchars)
            cchars[to] = chars[r];
        if (cpath)
            cpath[to] = path[r];
        if (ctext)
            ctext[to] = text[r];
    }
    for (size_t r = 0; cparent && r < n_rows; r++)
        cparent[pos[r]] = parent[r] >= 0 && (size_t)parent[r] < n_rows ? (int32_t)pos[parent[r]] : -1;
    ps_site_train_options co = o ? *o : (ps_site_train_options){0};
    co.parent = cparent;
    co.chars = cchars;
    co.path = cpath;
    co.text_hash = ctext;
    m = train_rows(base, base_name, site, cx, cy, cpage, n_rows, &co, rep, full, err);
out:
    free(pg);
    free(pos);
    free(fill);
    free(cx);
    free(cy);
    free(cpage);
    free(cchars);
    free(ctext);
    free(cparent);
    free(cpath);
    return m;
}

/* The layout of a site's labelled pages (ps_site_model_layout_share):
 * the distinct ps_hash64 of the paths of its @p n_rows rows with text
 * (@p chars > 0; every row without @p chars), ascending, as the bundle's
 * lines of 16 hex digits into @p out.  Returns how many, or (size_t)-1
 * out of memory. */
static size_t layout_lines(const char *const *path, const uint32_t *chars, size_t n_rows, ps_buf *out)
{
    uint64_t *h = malloc((n_rows + 1) * sizeof *h);
    if (!h)
        return (size_t)-1;
    size_t n = 0, k = 0;
    for (size_t r = 0; r < n_rows; r++)
        if (path[r] && (!chars || chars[r] > 0))
            h[n++] = ps_hash64(path[r], strlen(path[r]));
    qsort(h, n, sizeof *h, ps_cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || h[i] != h[i - 1]) {
            ps_buf_printf(out, "%016llx\n", (unsigned long long)h[i]);
            k++;
        }
    free(h);
    return k && !out->data ? (size_t)-1 : k;
}

/* The payload's last sections: "paths N" and its lines when @p paths is
 * given (or "paths 0" before a layout), then "layout N" and its lines
 * when there is a layout. */
static void paths_and_layout(ps_buf *pl, const ps_buf *paths, size_t n_paths, const ps_buf *layout,
                             size_t n_layout)
{
    if (paths || n_layout) {
        ps_buf_printf(pl, "paths %zu\n", paths ? n_paths : 0);
        if (paths && paths->data)
            ps_buf_append(pl, paths->data, paths->len);
    }
    if (n_layout) {
        ps_buf_printf(pl, "layout %zu\n", n_layout);
        ps_buf_append(pl, layout->data, layout->len);
    }
}

/* A delta that leaves the base's SVM as it is (its label order and rho,
 * no coefficient changed, no support vector of its own) with the header
 * keys @p keys and, when @p paths is given, its @p n_paths block path
 * lines, and its layout: the site model of a site with no labelled row,
 * or of one whose block paths alone beat the base. */
static ps_model *unchanged_delta(const ps_model *base, const char *site, const ps_buf *keys, const ps_buf *paths,
                                 size_t n_paths, const ps_buf *layout, size_t n_layout, ps_error *err)
{
    ps_buf pl = {0}, b = {0};
    ps_buf_printf(&pl, "label %d %d\nrho %.17g\nbase_coef 0\nnew_sv 0\n", base->content_first ? 1 : 0,
                  base->content_first ? 0 : 1, base->rho);
    paths_and_layout(&pl, paths, n_paths, layout, n_layout);
    ps_buf_printf(&b, "pagesift-model %d\ntool pagesift-train %s\n", PS_MODEL_FORMAT_VERSION, ps_version());
    if (keys->data)
        ps_buf_append(&b, keys->data, keys->len);
    ps_buf_printf(&b, "%s %zu\n", PS_SITE_DELTA_BYTES_KEY, pl.len);
    if (pl.data)
        ps_buf_append(&b, pl.data, pl.len);
    ps_buf_printf(&b, "end pagesift-model\n");
    ps_model *m = NULL;
    if (!keys->data || !pl.data || !b.data || ps_model_bundle_seal(&b) != 0)
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    else
        m = delta_parse(b.data, b.len, site, base, err);
    ps_buf_free(&pl);
    ps_buf_free(&b);
    return m;
}

static ps_model *train_rows(const ps_model *base, const char *base_name, const char *site, const double *x,
                            const int8_t *y, const uint32_t *page, size_t n_rows, const ps_site_train_options *o,
                            ps_site_train_report *rep, ps_model **full, ps_error *err)
{
    pthread_once(&quiet_once, quiet);
    if (full)
        *full = NULL;
    if (!base || base->delta_base) {
        ps_set_error(err, PS_ERR_USAGE, "the base of a site model is a whole model, not a site model");
        return NULL;
    }
    if (!base->sv) {
        ps_set_error(err, PS_ERR_USAGE,
                     "%s: loaded for prediction only (ps_model_drop_text): load it with ps_model_load to train "
                     "a site model against it", base->name);
        return NULL;
    }
    double t0 = ps_clock(PS_CLOCK_WALL);
    static const double def_w[] = {1, 3, 10, 30};
    const double *wts = o && o->weights ? o->weights : def_w;
    size_t n_w = o && o->weights ? o->n_weights : sizeof def_w / sizeof *def_w;
    if (n_w < 1 || n_w > 16) {
        ps_set_error(err, PS_ERR_USAGE, "1 to 16 candidate weights, not %zu", n_w);
        return NULL;
    }
    for (size_t i = 0; i < n_w; i++)
        if (!(wts[i] >= 1 && wts[i] <= 1000 && wts[i] == floor(wts[i]))) {
            ps_set_error(err, PS_ERR_USAGE, "a site weight is a whole number from 1 to 1000, not %g", wts[i]);
            return NULL;
        }
    if (!site || !*site) {
        ps_set_error(err, PS_ERR_USAGE, "rows without a site key (no site or url column value, and no site given)");
        return NULL;
    }
    ps_site_train_report r0;
    if (!rep)
        rep = &r0;
    memset(rep, 0, sizeof *rep);
    site_train t = {.base = base, .nf = base->n_features, .n_rows = n_rows, .y = y, .page = page,
                    .gamma = base->gamma, .seed = o && o->seed ? o->seed : 1};
    const char *cs = ps_model_info(base, "C");
    t.C = cs ? strtod(cs, NULL) : NAN;
    if (!(t.C > 0) || !isfinite(t.C)) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: the base model has no usable C", base_name);
        return NULL;
    }
    /* pages and classes of the site: the pages with labelled rows */
    uint32_t *pages = malloc((n_rows + 1) * sizeof *pages);
    if (!pages) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    size_t n_lab = 0;
    for (size_t i = 0; i < n_rows; i++) {
        if (y[i] < 0)
            continue;
        pages[n_lab++] = page[i];
        if (y[i])
            rep->content++;
        else
            rep->noise++;
    }
    qsort(pages, n_lab, sizeof *pages, cmp_u32);
    size_t n_pages = 0;
    for (size_t i = 0; i < n_lab; i++)
        if (i == 0 || pages[i] != pages[i - 1])
            pages[n_pages++] = pages[i];
    rep->pages = n_pages;
    stack_ctx sc = {.second = o ? o->second : NULL, .parent = o ? o->parent : NULL, .chars = o ? o->chars : NULL};
    if (sc.second) {
        if (!sc.parent || !sc.chars) {
            free(pages);
            ps_set_error(err, PS_ERR_USAGE, "site %s: scoring through a second stage needs each row's parent and "
                                            "characters", site);
            return NULL;
        }
        if (ps_context_sources(sc.second, base->ids, base->n_features, sc.src) != 0) {
            free(pages);
            ps_set_error(err, PS_ERR_FORMAT, "site %s: the second stage reads features its base does not have",
                         site);
            return NULL;
        }
        sc.n2 = ps_model_n_features(sc.second);
        sc.gate = ps_model_stack_gate(sc.second);
        rep->stacked = 1;
    }
    const stack_ctx *scp = &sc;
    /* block paths: judged by the CV, so only with enough pages for its
     * training folds to agree on some */
    const char *const *path = o ? o->path : NULL;
    const int with_paths = path && n_pages >= PS_SITE_PATH_MIN_PAGES;
    path_row *ptmp = NULL;
    ps_site_path *pk = NULL;
    size_t n_pk = 0;
    int use_paths = 0;
    ps_buf ptext = {0}, ltext = {0};
    size_t n_layout = 0;
    ps_model *m = NULL;
    struct svm_model *final = NULL;
    uint8_t *use = calloc(n_rows + 1, 1), *want = calloc(n_rows + 1, 1);
    int *fold = malloc((n_rows + 1) * sizeof *fold);
    double *s1 = malloc((n_rows + 1) * sizeof *s1), *sb = malloc((n_rows + 1) * sizeof *sb),
           *sf = malloc((n_rows + 1) * sizeof *sf), *bs1 = NULL;
    t.base_nodes = malloc(base->n_sv * (t.nf + 1) * sizeof *t.base_nodes + 1);
    t.base_y = malloc((base->n_sv + 1) * sizeof *t.base_y);
    t.site_nodes = malloc((n_rows * (t.nf + 1) + 1) * sizeof *t.site_nodes);
    uint8_t *pred = malloc(n_rows + 1);
    char *svm_text = NULL;
    size_t *src = NULL;
    ps_buf b = {0};
    if (with_paths) {
        ptmp = malloc((n_rows + 1) * sizeof *ptmp);
        pk = malloc((n_rows + 1) * sizeof *pk);
    }
    if (!use || !want || !fold || !s1 || !sb || !sf || !pred || !t.base_nodes || !t.base_y || !t.site_nodes ||
        (with_paths && (!ptmp || !pk))) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    if (n_lab == 0) {
        /* no labelled row: the site model is the base (a delta that
         * changes nothing, its decision values the base's exactly) */
        const char *bsum = ps_model_info(base, "checksum");
        const char *bn = base_name ? strrchr(base_name, '/') : NULL;
        bn = bn ? bn + 1 : base_name ? base_name : "-";
        ps_buf keys = {0};
        ps_buf_printf(&keys, "seed %llu\nsite %s\nsite_revision 1\nsite_weight 0\nsite_pages 0\n",
                      (unsigned long long)t.seed, site);
        ps_buf_printf(&keys, "site_rows_content 0\nsite_rows_noise 0\nsite_cv_folds 0\n");
        ps_buf_printf(&keys, "base_model %s\nbase_checksum %s\nbase_support_vectors %zu\n", bn, bsum ? bsum : "-",
                      base->n_sv);
        ps_buf_printf(&keys, "train_rows_content 0\ntrain_rows_noise 0\nsupport_vectors %zu\n", base->n_sv);
        m = unchanged_delta(base, site, &keys, NULL, 0, NULL, 0, err);
        ps_buf_free(&keys);
        goto out;
    }
    /* the layout its pages had: pages of another it leaves to the base */
    if (path && (n_layout = layout_lines(path, sc.chars, n_rows, &ltext)) == (size_t)-1) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* rows as sparse libsvm nodes: a zero is left out (libsvm's kernel
     * reads a missing index as 0, so the SVM is the same), which keeps the
     * bundle's support vector lines short: 30 % of the values are 0, and
     * parsing them is most of a load's time */
    for (size_t r = 0; r < base->n_sv; r++) {
        struct svm_node *row = t.base_nodes + r * (t.nf + 1);
        for (size_t k = 0; k < t.nf; k++)
            if (base->sv[r * t.nf + k] != 0)
                *row++ = (struct svm_node){.index = (int)k + 1, .value = base->sv[r * t.nf + k]};
        row->index = -1;
        /* coef = y alpha, y = +1 for libsvm's first label */
        t.base_y[r] = (base->coef[r] > 0) == (base->content_first != 0) ? 1 : 0;
    }
    for (size_t r = 0; r < n_rows; r++) {
        struct svm_node *row = t.site_nodes + r * (t.nf + 1);
        for (size_t k = 0; k < t.nf; k++) {
            double v = (x[r * t.nf + k] - base->shift[k]) * base->factor[k];
            if (v != 0)
                *row++ = (struct svm_node){.index = (int)k + 1, .value = v};
        }
        row->index = -1;
    }
    /* the base as inference uses it (both stages), on every row */
    ps_model_predict_many(base, x, t.nf, NULL, n_rows, pred, s1);
    /* the base's first-stage scores, for the gate: where the base is sure
     * (|score| >= gate) a site model's first-stage score is the base's */
    double gate = o && o->gate != 0 ? o->gate : PS_SITE_GATE;
    if (gate > 0) {
        if (!(bs1 = malloc((n_rows + 1) * sizeof *bs1))) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        memcpy(bs1, s1, n_rows * sizeof *bs1);
    }
    if (stack_rows(scp, x, t.nf, page, n_rows, NULL, s1, sb) != 0) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* cross-validation over the site's pages: F1 of the content class by
     * characters, each held-out page scored as inference scores it */
    int folds = o && o->folds > 0 ? o->folds : 5;
    if ((size_t)folds > n_pages)
        folds = (int)n_pages;
    size_t best = 0;
    double weight = o && o->one_page_weight > 0 ? o->one_page_weight : PS_SITE_WEIGHT_ONE_PAGE;
    double margin = o && o->margin > 0 ? o->margin : 0;
    if (n_pages >= 2) {
        rep->folds = folds;
        rep->n_cv = n_w;
        for (size_t r = 0; r < n_rows; r++) {
            uint32_t *at = bsearch(&page[r], pages, n_pages, sizeof *pages, cmp_u32);
            fold[r] = at ? (int)((size_t)(at - pages) % (size_t)folds) : -1; /* -1: a page without labels */
        }
        tally tb = {0};
        for (size_t r = 0; r < n_rows; r++)
            want[r] = fold[r] >= 0;
        tally_rows(sc.chars, y, n_rows, want, sb, &tb);
        rep->cv_f1_base = tally_f1(&tb);
        for (size_t wi = 0; wi < n_w; wi++) {
            tally tw = {0}, twp = {0};
            for (int f = 0; f < folds; f++) {
                for (size_t r = 0; r < n_rows; r++) {
                    use[r] = fold[r] >= 0 && fold[r] != f && y[r] >= 0;
                    want[r] = fold[r] == f;
                }
                struct svm_model *sm = train_one(&t, use, (int)wts[wi], t.seed + (uint64_t)f, NULL, NULL, NULL);
                if (!sm) {
                    ps_set_error(err, PS_ERR_NOMEM, "site %s: training failed (out of memory)", site);
                    goto out;
                }
                svm_first_scores(sm, t.site_nodes, t.nf, n_rows, want, s1);
                gate_scores(bs1, gate, want, n_rows, s1);
                svm_free_and_destroy_model(&sm);
                if (stack_rows(scp, x, t.nf, page, n_rows, want, s1, sf) != 0) {
                    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                    goto out;
                }
                tally_rows(sc.chars, y, n_rows, want, sf, &tw);
                if (with_paths) { /* the same with the training folds' paths */
                    n_pk = agreed_paths(path, y, sc.chars, o ? o->text_hash : NULL, page, use, n_rows, ptmp, pk, NULL);
                    apply_paths(pk, n_pk, path, sc.chars, want, n_rows, sf);
                    tally_rows(sc.chars, y, n_rows, want, sf, &twp);
                }
            }
            rep->cv_w[wi] = wts[wi];
            rep->cv_f1[wi] = tally_f1(&tw);
            rep->cv_f1_paths[wi] = tally_f1(&twp);
            if (rep->cv_f1[wi] > rep->cv_f1[best] + 1e-12)
                best = wi;
        }
        weight = wts[best];
        double best_f1 = rep->cv_f1[best];
        if (with_paths) {
            /* the paths with the base's SVM (no site rows), then the best of
             * all: a weight without paths, with them, the paths alone */
            tally tp = {0};
            for (int f = 0; f < folds; f++) {
                for (size_t r = 0; r < n_rows; r++) {
                    use[r] = fold[r] >= 0 && fold[r] != f && y[r] >= 0;
                    want[r] = fold[r] == f;
                    sf[r] = sb[r];
                }
                n_pk = agreed_paths(path, y, sc.chars, o ? o->text_hash : NULL, page, use, n_rows, ptmp, pk, NULL);
                apply_paths(pk, n_pk, path, sc.chars, want, n_rows, sf);
                tally_rows(sc.chars, y, n_rows, want, sf, &tp);
            }
            rep->paths_judged = 1;
            rep->cv_f1_paths_only = tally_f1(&tp);
            size_t bp = 0;
            for (size_t wi = 1; wi < n_w; wi++)
                if (rep->cv_f1_paths[wi] > rep->cv_f1_paths[bp] + 1e-12)
                    bp = wi;
            /* ties to the simpler: the paths alone over a weight with them */
            if (rep->cv_f1_paths_only > best_f1 + 1e-12 && rep->cv_f1_paths_only >= rep->cv_f1_paths[bp] - 1e-12)
                use_paths = 1, weight = 0, best_f1 = rep->cv_f1_paths_only;
            else if (rep->cv_f1_paths[bp] > best_f1 + 1e-12)
                use_paths = 1, weight = wts[bp], best_f1 = rep->cv_f1_paths[bp];
        }
        if (!(best_f1 > rep->cv_f1_base + margin) && !(o && o->keep_worse)) {
            rep->declined = 1;
            rep->weight = weight;
            ps_set_error(err, PS_ERR_USAGE,
                         "site %s: no site model: its CV F1 over %d page folds (%.4f, weight %g%s) does not beat "
                         "the default model's on the same folds (%.4f)%s",
                         site, folds, best_f1, weight, use_paths ? ", with paths" : "", rep->cv_f1_base,
                         margin > 0 ? " by the margin asked" : "");
            goto out;
        }
    }
    rep->weight = weight;
    for (size_t r = 0; r < n_rows; r++)
        use[r] = y[r] >= 0;
    size_t tc = 0, tn = 0;
    if (use_paths) { /* the paths of every labelled page */
        n_pk = agreed_paths(path, y, sc.chars, o ? o->text_hash : NULL, page, use, n_rows, ptmp, pk, &ptext);
        if (n_pk && !ptext.data) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
    }
    rep->paths = use_paths ? n_pk : 0;
    if (weight > 0 && !(final = train_one(&t, use, (int)weight, t.seed ^ 0x66696e616cull, &tc, &tn, &src))) {
        ps_set_error(err, PS_ERR_NOMEM, "site %s: training failed (out of memory)", site);
        goto out;
    }
    if (n_pages == 1) {
        /* one page, no CV: the site model must keep the page's labelled
         * content and drop its labelled noise at least as well as the
         * base, and one of them better */
        svm_first_scores(final, t.site_nodes, t.nf, n_rows, NULL, s1);
        gate_scores(bs1, gate, NULL, n_rows, s1);
        if (stack_rows(scp, x, t.nf, page, n_rows, NULL, s1, sf) != 0) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        tally ts = {0}, tb = {0};
        tally_rows(sc.chars, y, n_rows, NULL, sf, &ts);
        tally_rows(sc.chars, y, n_rows, NULL, sb, &tb);
        double c = ts.tp + ts.fn, nz = ts.fp + ts.tn;
        rep->kept[0] = c > 0 ? ts.tp / c : 1, rep->kept[1] = c > 0 ? tb.tp / c : 1;
        rep->dropped[0] = nz > 0 ? ts.tn / nz : 1, rep->dropped[1] = nz > 0 ? tb.tn / nz : 1;
        if (!(ts.tp >= tb.tp && ts.tn >= tb.tn && (ts.tp > tb.tp || ts.tn > tb.tn)) && !(o && o->keep_worse)) {
            rep->declined = 1;
            ps_set_error(err, PS_ERR_USAGE,
                         "site %s: no site model: on its one labelled page it keeps %.1f %% of the content and "
                         "drops %.1f %% of the noise (characters), the default model %.1f %% and %.1f %%: not "
                         "better",
                         site, 100 * rep->kept[0], 100 * rep->dropped[0], 100 * rep->kept[1], 100 * rep->dropped[1]);
            goto out;
        }
    }
    /* the site keys, the same in the delta and (tests) the whole bundle */
    const char *bsum = ps_model_info(base, "checksum");
    const char *bn = base_name ? strrchr(base_name, '/') : NULL;
    bn = bn ? bn + 1 : base_name ? base_name : "-";
    ps_buf keys = {0};
    ps_buf_printf(&keys, "seed %llu\n", (unsigned long long)t.seed);
    ps_buf_printf(&keys, "site %s\nsite_revision 1\nsite_weight %g\nsite_pages %zu\n", site, weight, n_pages);
    ps_buf_printf(&keys, "site_rows_content %zu\nsite_rows_noise %zu\nsite_cv_folds %d\n", rep->content,
                  rep->noise, rep->folds);
    if (rep->folds) {
        ps_buf_printf(&keys, "site_cv_f1");
        for (size_t wi = 0; wi < n_w; wi++)
            ps_buf_printf(&keys, "%s%g:%.4f", wi ? "," : " ", wts[wi], rep->cv_f1[wi]);
        ps_buf_printf(&keys, "\nsite_cv_f1_base %.4f\n", rep->cv_f1_base);
        if (rep->paths_judged) {
            ps_buf_printf(&keys, "site_cv_f1_paths");
            for (size_t wi = 0; wi < n_w; wi++)
                ps_buf_printf(&keys, "%s%g:%.4f", wi ? "," : " ", wts[wi], rep->cv_f1_paths[wi]);
            ps_buf_printf(&keys, ",0:%.4f\n", rep->cv_f1_paths_only);
        }
    } else {
        ps_buf_printf(&keys, "site_check_kept %.4f\nsite_check_kept_base %.4f\n", rep->kept[0], rep->kept[1]);
        ps_buf_printf(&keys, "site_check_dropped %.4f\nsite_check_dropped_base %.4f\n", rep->dropped[0],
                      rep->dropped[1]);
    }
    ps_buf_printf(&keys, "site_scored %s\n", rep->stacked ? "stacked" : "first-stage");
    if (gate > 0)
        ps_buf_printf(&keys, "site_gate %g\n", gate);
    ps_buf_printf(&keys, "base_model %s\nbase_checksum %s\nbase_support_vectors %zu\n", bn, bsum ? bsum : "-",
                  base->n_sv);
    ps_buf_printf(&keys, "site_paths %zu\n", rep->paths);
    if (n_layout)
        ps_buf_printf(&keys, "site_layout_paths %zu\n", n_layout);
    ps_buf_printf(&keys, "train_rows_content %zu\ntrain_rows_noise %zu\nsupport_vectors %zu\n", tc, tn,
                  final ? (size_t)final->l : base->n_sv);
    if (!keys.data) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the delta: the site's coefficients of the base's support vectors
     * where they differ from the base's (libsvm's sv_indices say which
     * training row each support vector is), and the site's own support
     * vectors, the W copies of a row as one with their summed coefficient */
    if (!final) {
        /* weight 0, the paths alone: the base's SVM unchanged */
        m = unchanged_delta(base, site, &keys, &ptext, rep->paths, &ltext, n_layout, err);
        ps_buf_free(&keys);
        goto out;
    }
    {
        size_t nsv = base->n_sv, nl = (size_t)final->l;
        int *svi = malloc((nl + 1) * sizeof *svi);
        double *bc = calloc(nsv + 1, sizeof *bc), *nc = calloc(n_rows + 1, sizeof *nc);
        size_t *first = malloc((n_rows + 1) * sizeof *first), *order = malloc((n_rows + 1) * sizeof *order);
        ps_buf pl = {0};
        int ok = svi && bc && nc && first && order;
        if (ok) {
            svm_get_sv_indices(final, svi);
            for (size_t r = 0; r < n_rows; r++)
                first[r] = (size_t)-1;
            size_t n_new = 0;
            for (size_t j = 0; j < nl; j++) {
                size_t from = src[svi[j] - 1];
                double c = final->sv_coef[0][j];
                if (from < nsv) {
                    bc[from] = c;
                } else {
                    size_t r = from - nsv;
                    if (first[r] == (size_t)-1)
                        first[r] = j, order[n_new++] = r;
                    nc[r] += c;
                }
            }
            /* "the same as the base's": in the site's label order */
            int same = (final->label[0] == 1) == (base->content_first != 0);
            size_t n_changed = 0;
            for (size_t r = 0; r < nsv; r++)
                n_changed += bc[r] != (same ? base->coef[r] : -base->coef[r]);
            ps_buf_printf(&pl, "label %d %d\nrho %.17g\nbase_coef %zu\n", final->label[0], final->label[1],
                          final->rho[0], n_changed);
            for (size_t r = 0; r < nsv; r++)
                if (bc[r] != (same ? base->coef[r] : -base->coef[r]))
                    ps_buf_printf(&pl, "%zu %.17g\n", r + 1, bc[r]);
            ps_buf_printf(&pl, "new_sv %zu\n", n_new);
            for (size_t q = 0; q < n_new; q++) {
                size_t r = order[q];
                ps_buf_printf(&pl, "%.17g", nc[r]);
                /* the values as libsvm's svm_save_model writes them */
                for (const struct svm_node *nd = final->SV[first[r]]; nd->index != -1; nd++)
                    ps_buf_printf(&pl, " %d:%.8g", nd->index, nd->value);
                ps_buf_putc(&pl, '\n');
            }
            paths_and_layout(&pl, use_paths ? &ptext : NULL, rep->paths, &ltext, n_layout);
            ok = pl.data != NULL;
        }
        if (ok) {
            ps_buf_printf(&b, "pagesift-model %d\ntool pagesift-train %s\n", PS_MODEL_FORMAT_VERSION, ps_version());
            ps_buf_append(&b, keys.data, keys.len);
            ps_buf_printf(&b, "%s %zu\n", PS_SITE_DELTA_BYTES_KEY, pl.len);
            ps_buf_append(&b, pl.data, pl.len);
            ps_buf_printf(&b, "end pagesift-model\n");
            ok = b.data && ps_model_bundle_seal(&b) == 0;
        }
        free(svi);
        free(bc);
        free(nc);
        free(first);
        free(order);
        ps_buf_free(&pl);
        if (!ok) {
            ps_buf_free(&keys);
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
    }
    if (full) {
        /* the whole bundle, as site models were written before deltas
         * (tests compare the two) */
        size_t svm_len;
        ps_buf w = {0};
        if (!(svm_text = ps_svm_model_to_text(final, &svm_len, err))) {
            ps_buf_free(&keys);
            goto out;
        }
        const char *smin = ps_model_info(base, "scale_min"), *smax = ps_model_info(base, "scale_max");
        const char *tags = ps_model_info(base, "block_tags");
        ps_buf_printf(&w, "pagesift-model %d\ntool pagesift-train %s\n", PS_MODEL_FORMAT_VERSION, ps_version());
        ps_buf_printf(&w, "features %s\nscale_min %s\nscale_max %s\n", base->features, smin ? smin : "",
                      smax ? smax : "");
        ps_buf_printf(&w, "C %.17g\ngamma %.17g\n", t.C, t.gamma);
        ps_buf_append(&w, keys.data, keys.len);
        if (tags)
            ps_buf_printf(&w, "block_tags %s\n", tags);
        ps_buf_printf(&w, "libsvm-model-bytes %zu\n", svm_len);
        ps_buf_append(&w, svm_text, svm_len);
        ps_buf_printf(&w, "end pagesift-model\n");
        if (!w.data || ps_model_bundle_seal(&w) != 0 || !(*full = ps_model_parse(w.data, w.len, site, err))) {
            ps_buf_free(&w);
            ps_buf_free(&keys);
            goto out;
        }
        ps_buf_free(&w);
    }
    ps_buf_free(&keys);
    m = delta_parse(b.data, b.len, site, base, err);
out:
    rep->seconds = ps_clock(PS_CLOCK_WALL) - t0;
    if (final)
        svm_free_and_destroy_model(&final);
    free(svm_text);
    ps_buf_free(&b);
    free(use);
    free(want);
    free(fold);
    free(s1);
    free(sb);
    free(sf);
    free(bs1);
    free(pred);
    free(pages);
    free(t.base_nodes);
    free(t.base_y);
    free(t.site_nodes);
    free(src);
    free(ptmp);
    free(pk);
    ps_buf_free(&ptext);
    ps_buf_free(&ltext);
    if (!m && full && *full) {
        ps_model_free(*full);
        *full = NULL;
    }
    return m;
}

/* ---- the folder --------------------------------------------------------- */

/* The site_revision of the bundle at @p path, 0 when there is none or it
 * cannot be read (a damaged bundle is replaced as revision 1): the header
 * key of a bundle whose checksum is right. */
static long old_revision(const char *path)
{
    size_t len;
    ps_error e = {0};
    char *text = ps_read_regular_file(path, SITE_MODEL_MAX_BYTES, "a model bundle", &len, &e);
    if (!text)
        return 0;
    uint32_t crc;
    long r = 0, ok = 0;
    char want[32];
    if (ps_model_bundle_crc(text, len, &crc) == 0) {
        snprintf(want, sizeof want, "checksum crc32:%08x", (unsigned)crc);
        for (const char *p = text, *end = text + len, *le; (le = line_end(p, end)); p = le + 1) {
            size_t ll = (size_t)(le - p);
            if ((ll > 18 && memcmp(p, "libsvm-model-bytes ", 19) == 0) ||
                (ll > strlen(PS_SITE_DELTA_BYTES_KEY) &&
                 memcmp(p, PS_SITE_DELTA_BYTES_KEY " ", strlen(PS_SITE_DELTA_BYTES_KEY) + 1) == 0))
                break;
            if (ll == strlen(want) && strncasecmp(p, want, ll) == 0)
                ok = 1;
            if (ll > 14 && memcmp(p, "site_revision ", 14) == 0)
                r = strtol(p + 14, NULL, 10);
        }
    }
    free(text);
    return ok && r > 0 ? r : 0;
}

int ps_site_model_save(ps_model *m, const char *dir, ps_error *err)
{
    const char *site = ps_model_info(m, "site");
    char name[1024], path[4096 + 1024];
    if (!site || ps_site_model_file_name(site, name, sizeof name) != 0)
        return ps_set_error(err, PS_ERR_USAGE, "%s: not a site model (no usable site key)", m->name);
    if (!m->bundle || !m->bundle_len) /* one of a folder held for inference: no text */
        return ps_set_error(err, PS_ERR_USAGE, "%s: a site model loaded for inference has no bundle text to save",
                            m->name);
    if (ps_mkdir_p(dir) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot create folder: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    long rev = old_revision(path) + 1;
    /* the bundle with its site_revision line set and the checksum redone */
    ps_buf b = {0};
    const char *p = m->bundle, *end = m->bundle + m->bundle_len;
    int in_header = 1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (in_header && ((len >= 18 && strncmp(p, "libsvm-model-bytes", 18) == 0) ||
                          (len > strlen(PS_SITE_DELTA_BYTES_KEY) &&
                           strncmp(p, PS_SITE_DELTA_BYTES_KEY " ", strlen(PS_SITE_DELTA_BYTES_KEY) + 1) == 0)))
            in_header = 0;
        if (in_header && len >= 9 && strncmp(p, "checksum ", 9) == 0)
            ; /* dropped: sealed again below */
        else if (in_header && len >= 14 && strncmp(p, "site_revision ", 14) == 0)
            ps_buf_printf(&b, "site_revision %ld\n", rev);
        else
            ps_buf_append(&b, p, len);
        p += len;
    }
    if (!b.data || ps_model_bundle_seal(&b) != 0) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    int rc = ps_write_file_atomic(path, b.data, b.len, err);
    ps_buf_free(&b);
    return rc;
}


/* ---- which pages to label next ------------------------------------------ */

double ps_extraction_uncertainty(const ps_page *page, const ps_extraction *x)
{
    if (!page || !x || !x->block_score)
        return NAN;
    size_t nb;
    const ps_block *b = ps_page_blocks(page, &nb);
    double near = 0, all = 0;
    for (size_t i = 0; i < nb; i++) {
        double s = x->block_score[i];
        if (isnan(s) || !b[i].own.text_chars)
            continue;
        all += b[i].own.text_chars;
        if (fabs(s) < 1)
            near += b[i].own.text_chars * (1 - fabs(s));
    }
    return all > 0 ? near / all : 0;
}

