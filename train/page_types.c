/* train/page_types.c — the page-type classifier: which of a few kinds of
 * page (wcxb-dev's seven: article, collection, documentation, forum,
 * listing, product, service) a page is, with a probability.
 *
 * The page's signals (extract/page_signals.c) are scaled to [0, 1] and
 * given to a multi-class RBF SVM (libsvm: one-against-one, probabilities by
 * its pairwise coupling).  Training (ps_page_types_train) reads data sets
 * whose index has a page_type column, chooses C and gamma by
 * cross-validation grouped by site (the folds of ps_dataset_page_fold, the
 * ones scripts/eval-wcxb-folds uses) on accuracy, and trains the final
 * model on every page.  The bundle is a text file (docs/MODEL_FORMAT.md,
 * "Page-type bundles"): key lines, a CRC-32 of them, libsvm's own model
 * text, an end line. */
#define _GNU_SOURCE
#include <errno.h>
#include <libsvm/svm.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util.h"
#include "extract/page_signals.h"
#include "pagesift/dataset.h"
#include "pagesift/page.h"
#include "pagesift/page_types.h"
#include "train/train_internal.h"

#define MAGIC "pagesift-page-types 1\n"
#define END_LINE "end pagesift-page-types\n"
#define SVM_BYTES_KEY "libsvm-model-bytes "
#define CHECKSUM_KEY "checksum crc32:"
#define BUNDLE_MAX_BYTES ((size_t)64 << 20)

struct ps_page_types {
    char *name;
    size_t n_labels;
    char **labels;
    size_t n_signals;
    int *ids;               /* signal index of each model input */
    double *shift, *factor; /* scaled = (x - shift) * factor */
    struct svm_model *svm;
    int *label_of;          /* libsvm's class k -> our label index */
    char *info;             /* the header lines, for ps_page_types_info */
};

void ps_page_types_free(ps_page_types *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_labels; i++)
        free(m->labels[i]);
    free(m->labels);
    free(m->ids);
    free(m->shift);
    free(m->factor);
    if (m->svm)
        svm_free_and_destroy_model(&m->svm);
    free(m->label_of);
    free(m->info);
    free(m->name);
    free(m);
}

size_t ps_page_types_count(const ps_page_types *m)
{
    return m ? m->n_labels : 0;
}

const char *ps_page_types_label(const ps_page_types *m, size_t i)
{
    return m && i < m->n_labels ? m->labels[i] : NULL;
}

/* The value of header key @p key (a copy), or NULL. */
static char *header_value(const char *head, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = head; *p;) {
        const char *le = strchr(p, '\n');
        size_t ll = le ? (size_t)(le - p) : strlen(p);
        if (ll > kl && memcmp(p, key, kl) == 0 && p[kl] == ' ')
            return strndup(p + kl + 1, ll - kl - 1);
        if (!le)
            break;
        p = le + 1;
    }
    return NULL;
}

const char *ps_page_types_info(const ps_page_types *m, const char *key, char *out, size_t cap)
{
    char *v = m ? header_value(m->info, key) : NULL;
    if (!v)
        return NULL;
    snprintf(out, cap, "%s", v);
    free(v);
    return out;
}

/* Split a comma list into *out (n items), each a copy. */
static int split_list(const char *s, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!s || !*s)
        return -1;
    size_t k = 1;
    for (const char *c = s; *c; c++)
        k += *c == ',';
    char **v = calloc(k, sizeof *v);
    if (!v)
        return -1;
    const char *p = s;
    for (size_t i = 0; i < k; i++) {
        size_t l = strcspn(p, ",");
        v[i] = strndup(p, l);
        if (!v[i] || !l) {
            for (size_t j = 0; j <= i; j++)
                free(v[j]);
            free(v);
            return -1;
        }
        p += l + (p[l] == ',');
    }
    *out = v;
    *n = k;
    return 0;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int parse_numbers(const char *s, double *v, size_t n)
{
    const char *p = s;
    for (size_t i = 0; i < n; i++) {
        char *e;
        v[i] = strtod(p, &e);
        if (e == p || !isfinite(v[i]))
            return -1;
        p = e;
    }
    while (*p == ' ')
        p++;
    return *p ? -1 : 0;
}

/* libsvm reads models from named files only: hand it the text through an
 * anonymous memory file (no disk, nothing to clean up).  svm_load_model is
 * not thread-safe (strtok, setlocale): one load at a time. */
static pthread_mutex_t svm_load_lock = PTHREAD_MUTEX_INITIALIZER;

static struct svm_model *svm_from_text(const char *text, size_t len)
{
    int fd = memfd_create("pagesift-page-types", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct svm_model *m = NULL;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    if (off == len) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        pthread_mutex_lock(&svm_load_lock);
        m = svm_load_model(path);
        pthread_mutex_unlock(&svm_load_lock);
    }
    close(fd);
    return m;
}

ps_page_types *ps_page_types_parse(const char *text, size_t len, const char *name, ps_error *err)
{
    const char *nm = name ? name : "page-type bundle";
    if (len < strlen(MAGIC) || memcmp(text, MAGIC, strlen(MAGIC)) != 0) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: not a page-type bundle (no '%.*s' line)", nm,
                     (int)strlen(MAGIC) - 1, MAGIC);
        return NULL;
    }
    /* the header: lines up to the libsvm-model-bytes line */
    const char *sv = NULL, *p = text;
    const char *end = text + len;
    while (p < end) {
        const char *le = memchr(p, '\n', (size_t)(end - p));
        if (!le)
            break;
        if ((size_t)(le - p) > strlen(SVM_BYTES_KEY) && memcmp(p, SVM_BYTES_KEY, strlen(SVM_BYTES_KEY)) == 0) {
            sv = p;
            break;
        }
        p = le + 1;
    }
    char *e = NULL;
    unsigned long long nbytes = sv ? strtoull(sv + strlen(SVM_BYTES_KEY), &e, 10) : 0;
    const char *body = sv && e && *e == '\n' ? e + 1 : NULL;
    if (!body || nbytes > (unsigned long long)(end - body) ||
        (size_t)(end - body) - nbytes < strlen(END_LINE) ||
        memcmp(body + nbytes, END_LINE, strlen(END_LINE)) != 0) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: truncated or damaged (the bundle's structure is broken)", nm);
        return NULL;
    }
    /* the checksum: CRC-32 of every byte through the end line but its own line */
    size_t total = (size_t)(body - text) + nbytes + strlen(END_LINE);
    const char *ck = strstr(text, "\n" CHECKSUM_KEY);
    if (!ck || ck > sv) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: no 'checksum' line", nm);
        return NULL;
    }
    ck++;
    const char *ck_end = memchr(ck, '\n', (size_t)(end - ck));
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)text, (uInt)(ck - text));
    crc = crc32(crc, (const Bytef *)ck_end + 1, (uInt)(text + total - (ck_end + 1)));
    char want[16];
    snprintf(want, sizeof want, "%08lx", (unsigned long)crc);
    if ((size_t)(ck_end - ck) != strlen(CHECKSUM_KEY) + 8 || memcmp(ck + strlen(CHECKSUM_KEY), want, 8) != 0) {
        ps_set_error(err, PS_ERR_FORMAT,
                     "%s: damaged: checksum mismatch (its contents give crc32:%s): it was changed after "
                     "it was written; use a good copy or retrain",
                     nm, want);
        return NULL;
    }

    ps_page_types *m = calloc(1, sizeof *m);
    if (!m || !(m->name = strdup(nm)) || !(m->info = strndup(text, (size_t)(sv - text)))) {
        ps_page_types_free(m);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    char *labels = header_value(m->info, "labels"), *signals = header_value(m->info, "signals");
    char *smin = header_value(m->info, "scale_min"), *smax = header_value(m->info, "scale_max");
    char **names = NULL;
    size_t nn = 0;
    int rc = 0;
    if (split_list(labels, &m->labels, &m->n_labels) != 0 || m->n_labels < 2)
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: 'labels' missing or fewer than two", nm);
    else if (split_list(signals, &names, &nn) != 0)
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: 'signals' missing", nm);
    if (!rc) {
        m->n_signals = nn;
        m->ids = calloc(nn, sizeof *m->ids);
        m->shift = calloc(nn, sizeof *m->shift);
        m->factor = calloc(nn, sizeof *m->factor);
        double *mx = calloc(nn, sizeof *mx);
        if (!m->ids || !m->shift || !m->factor || !mx)
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        for (size_t i = 0; !rc && i < nn; i++)
            if ((m->ids[i] = ps_page_signal_lookup(names[i])) < 0)
                rc = ps_set_error(err, PS_ERR_FORMAT, "%s: signal '%s' is not computed by this pagesift (%s)",
                                  nm, names[i], ps_version());
        if (!rc && (!smin || !smax || parse_numbers(smin, m->shift, nn) || parse_numbers(smax, mx, nn)))
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: scale_min/scale_max missing or not %zu numbers", nm, nn);
        for (size_t i = 0; !rc && i < nn; i++)
            m->factor[i] = mx[i] > m->shift[i] ? 1.0 / (mx[i] - m->shift[i]) : 0.0;
        free(mx);
    }
    free(labels);
    free(signals);
    free(smin);
    free(smax);
    free_list(names, nn);
    if (!rc && !(m->svm = svm_from_text(body, (size_t)nbytes)))
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: libsvm cannot read the embedded model", nm);
    if (!rc && (svm_get_nr_class(m->svm) != (int)m->n_labels || !svm_check_probability_model(m->svm)))
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: the embedded model has %d classes for %zu labels%s", nm,
                          svm_get_nr_class(m->svm), m->n_labels,
                          svm_check_probability_model(m->svm) ? "" : ", or no probabilities");
    if (!rc) {
        int k = (int)m->n_labels, *lab = calloc((size_t)k, sizeof *lab);
        m->label_of = calloc((size_t)k, sizeof *m->label_of);
        if (!lab || !m->label_of)
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        else
            svm_get_labels(m->svm, lab);
        for (int i = 0; !rc && i < k; i++) {
            if (lab[i] < 0 || lab[i] >= k)
                rc = ps_set_error(err, PS_ERR_FORMAT, "%s: class %d of the embedded model has no label", nm,
                                  lab[i]);
            else
                m->label_of[i] = lab[i];
        }
        free(lab);
    }
    if (rc) {
        ps_page_types_free(m);
        return NULL;
    }
    return m;
}

ps_page_types *ps_page_types_load(const char *path, ps_error *err)
{
    size_t len;
    char *text = ps_read_regular_file(path, BUNDLE_MAX_BYTES, "a page-type bundle", &len, err);
    if (!text)
        return NULL;
    ps_page_types *m = ps_page_types_parse(text, len, path, err);
    free(text);
    return m;
}

int ps_page_types_classify(const ps_page_types *m, const ps_page *page, double *prob, ps_error *err)
{
    size_t ns = ps_page_signal_count();
    double s[64], pk[64];
    struct svm_node nodes[65];
    if (ns > 64 || m->n_signals > 64 || m->n_labels > 64)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: too many signals or labels", m->name);
    if (ps_page_signals(page, s) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->n_signals; i++) {
        nodes[i].index = (int)i + 1;
        nodes[i].value = (s[m->ids[i]] - m->shift[i]) * m->factor[i];
    }
    nodes[m->n_signals].index = -1;
    svm_predict_probability(m->svm, nodes, pk);
    int best = 0;
    for (size_t k = 0; k < m->n_labels; k++) {
        int l = m->label_of[k];
        if (prob)
            prob[l] = pk[k];
        if (pk[k] > pk[best])
            best = (int)k;
    }
    return m->label_of[best];
}

int ps_page_types_attach(const ps_page_types *m, ps_page *page, double *prob, ps_error *err)
{
    double pr[64];
    int t = ps_page_types_classify(m, page, pr, err);
    if (t < 0)
        return -1;
    ps_page_set_type_probs(page, (const char *const *)m->labels, pr, m->n_labels);
    if (prob)
        memcpy(prob, pr, m->n_labels * sizeof *prob);
    return t;
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
    size_t nf = ps_page_signal_count();
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
                    fprintf(stderr, "%s: skipped: %s\n", dp->html_path, pe.msg);
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
            if (!t->x || ps_page_signals(page, t->x) != 0) {
                free(t->x);
                ps_page_free(page);
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
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
    for (size_t i = 0; !rc && i < n; i++) {
        for (size_t j = 0; j < nf; j++) {
            nodes[i * (nf + 1) + j].index = (int)j + 1;
            nodes[i * (nf + 1) + j].value = mx[j] > mn[j] ? (pg[i].x[j] - mn[j]) / (mx[j] - mn[j]) : 0;
        }
        nodes[i * (nf + 1) + nf].index = -1;
    }

    /* the grid, chosen on CV accuracy (ties: the smaller C, then gamma) */
    svm_set_print_string_function(svm_quiet);
    unsigned *conf = calloc(nl * nl + 1, sizeof *conf), *best_conf = calloc(nl * nl + 1, sizeof *conf);
    double best_acc = -1, best_c = 1, best_g = 1;
    if (!rc && (!conf || !best_conf))
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (int lc = -1; !rc && lc <= 11; lc += 2)
        for (int lg = -9; !rc && lg <= 1; lg += 2) {
            if (cv_point(pg, n, nf, nl, folds, ldexp(1, lc), ldexp(1, lg), nodes, conf) != 0) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            size_t right = 0;
            for (size_t k = 0; k < nl; k++)
                right += conf[k * nl + k];
            double acc = (double)right / (double)n;
            if (opt && opt->verbose)
                fprintf(stderr, "page types: log2 C %d, log2 gamma %d: CV accuracy %.4f\n", lc, lg, acc);
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
            ps_buf_printf(&h, "%s%s", j ? "," : "", ps_page_signal_name(j));
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
    free_list(labels, nl);
    return rc;
}
