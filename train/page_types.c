/* train/page_types.c — the page-type classifier: which of a few kinds of
 * page (wcxb-dev's seven: article, collection, documentation, forum,
 * listing, product, service) a page is, with a probability.
 *
 * The page's signals (extract/page_signals.c) are scaled to [0, 1] and
 * given to a multi-class RBF SVM (libsvm: one-against-one, probabilities by
 * its pairwise coupling); training is train/page_types_train.c.  The
 * bundle is a text file (docs/MODEL_FORMAT.md, "Page-type bundles"): key
 * lines, a CRC-32 of them, libsvm's own model text, an end line
 * (train/page_types_format.h).
 *
 * The kernel values are computed here (rbf_values), libsvm does the rest:
 * libsvm's sparse kernel walked both node lists for each of the 777
 * support vectors of the shipped model, 31.6 M of the 34.5 M instructions
 * the classifier took on 60 dragnet pages.  The same sums in double, the
 * same terms in the same order over dense support vectors (a feature absent
 * from both lists adds (0 - 0)^2 = +0, which changes no sum; absent from
 * one, (x - 0)^2 is libsvm's x * x), exp of the same product: the same
 * bits.  They go to libsvm as a precomputed kernel (a shallow copy of the
 * model whose support vector i says "my value is x[i + 1]"), so its
 * decision values, pairwise probabilities and coupling are its own code.
 * The model is checked when it is read: a few inputs through both, and if
 * any decision value differs in a bit (a libsvm built otherwise), libsvm's
 * kernel stays. */
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
#include "train/page_types_format.h"
#include "train/model_internal.h"

#define BUNDLE_MAX_BYTES ((size_t)64 << 20)

struct ps_page_types {
    char *name;
    size_t n_labels;
    char **labels;
    size_t n_signals;
    int *ids;               /* signal index of each model input */
    unsigned hash_blocks;   /* the hashed signals' blocks it names (0: none,
                               and none is computed) */
    double *shift, *factor; /* scaled = (x - shift) * factor */
    struct svm_model *svm;
    int *label_of;          /* libsvm's class k -> our label index */
    char *info;             /* the header lines, for ps_page_types_info */
    /* the kernel computed here (see the top): svm's support vectors dense,
     * in chunks of RBF_CHUNK, feature-major inside a chunk
     * (svd[(c * nd + k) * RBF_CHUNK + j], zero vectors past svm->l); pre, a
     * shallow copy of *svm with kernel_type PRECOMPUTED whose SV[i] is
     * pre_nodes[2 i] (index 0, value i + 1); use_pre 0: libsvm's kernel */
    int use_pre;
    size_t nd;
    double *svd;
    struct svm_model pre;
    struct svm_node *pre_nodes;
    struct svm_node **pre_sv;
};

#define RBF_CHUNK 8

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
    free(m->svd);
    free(m->pre_nodes);
    free(m->pre_sv);
    free(m);
}

typedef double rbf_v2 __attribute__((vector_size(16))); /* two lanes: two support vectors */

/* The RBF kernel values K(x, sv_i) of the l support vectors into
 * out[1 + i].value (x: nd values).  Per support vector libsvm's sum: the
 * squared differences in feature order, in double, then exp(-gamma * sum). */

static void rbf_values(const ps_page_types *m, const double *x, struct svm_node *out)
{
    const size_t nd = m->nd, l = (size_t)m->svm->l;
    const double gamma = m->svm->param.gamma;
    for (size_t c = 0; c * RBF_CHUNK < l; c++) {
        const double *sv = m->svd + c * nd * RBF_CHUNK;
        /* the chunk's 8 sums in registers, lane by lane the scalar
         * d = x - y; sum += d * d (no fused multiply-add: -ffp-contract is
         * off in ISO C, and the baseline x86-64 has none) */
        rbf_v2 s0 = {0, 0}, s1 = s0, s2 = s0, s3 = s0;
        for (size_t k = 0; k < nd; k++, sv += RBF_CHUNK) {
            const rbf_v2 xk = {x[k], x[k]};
            rbf_v2 v0, v1, v2, v3, d;
            memcpy(&v0, sv, sizeof v0);
            memcpy(&v1, sv + 2, sizeof v1);
            memcpy(&v2, sv + 4, sizeof v2);
            memcpy(&v3, sv + 6, sizeof v3);
            d = xk - v0;
            s0 += d * d;
            d = xk - v1;
            s1 += d * d;
            d = xk - v2;
            s2 += d * d;
            d = xk - v3;
            s3 += d * d;
        }
        double sum[RBF_CHUNK];
        memcpy(sum, &s0, sizeof s0);
        memcpy(sum + 2, &s1, sizeof s1);
        memcpy(sum + 4, &s2, sizeof s2);
        memcpy(sum + 6, &s3, sizeof s3);
        for (size_t j = 0; j < RBF_CHUNK && c * RBF_CHUNK + j < l; j++)
            out[1 + c * RBF_CHUNK + j].value = exp(-gamma * sum[j]);
    }
}

/* The precomputed copy of m->svm (see the struct), checked against libsvm's
 * own kernel on a few inputs: m->use_pre 1 when every decision value is
 * the same to the bit.  -1 out of memory. */
static int pre_kernel(ps_page_types *m)
{
    const struct svm_model *sm = m->svm;
    if (sm->param.kernel_type != RBF || sm->l < 1 || !sm->SV)
        return 0; /* libsvm's kernel */
    const size_t l = (size_t)sm->l, nc = (l + RBF_CHUNK - 1) / RBF_CHUNK;
    size_t nd = m->n_signals;
    for (size_t i = 0; i < l; i++)
        for (const struct svm_node *p = sm->SV[i]; p->index != -1; p++) {
            if (p->index < 1 || (p > sm->SV[i] && p->index <= p[-1].index) || !isfinite(p->value))
                return 0; /* not the sorted lists the dense sum needs: libsvm's kernel */
            if ((size_t)p->index > nd)
                nd = (size_t)p->index;
        }
    if (nd > 1024)
        return 0;
    m->nd = nd;
    m->svd = calloc(nc * nd * RBF_CHUNK + 1, sizeof *m->svd);
    m->pre_nodes = malloc((2 * l + 1) * sizeof *m->pre_nodes);
    m->pre_sv = malloc((l + 1) * sizeof *m->pre_sv);
    double *x = calloc(nd + 1, sizeof *x);
    struct svm_node *xn = malloc((l + 2) * sizeof *xn), *sn = malloc((nd + 1) * sizeof *sn);
    size_t npair = (size_t)sm->nr_class * (size_t)(sm->nr_class - 1) / 2;
    double *da = malloc((npair + 1) * sizeof *da), *db = malloc((npair + 1) * sizeof *db);
    int rc = 0;
    if (!m->svd || !m->pre_nodes || !m->pre_sv || !x || !xn || !sn || !da || !db) {
        rc = -1;
        goto out;
    }
    for (size_t i = 0; i < l; i++) {
        for (const struct svm_node *p = sm->SV[i]; p->index != -1; p++)
            m->svd[((i / RBF_CHUNK) * nd + (size_t)p->index - 1) * RBF_CHUNK + i % RBF_CHUNK] = p->value;
        m->pre_nodes[2 * i] = (struct svm_node){.index = 0, .value = (double)(i + 1)};
        m->pre_nodes[2 * i + 1] = (struct svm_node){.index = -1, .value = 0};
        m->pre_sv[i] = &m->pre_nodes[2 * i];
    }
    m->pre = *sm;
    m->pre.param.kernel_type = PRECOMPUTED;
    m->pre.SV = m->pre_sv;
    m->pre.free_sv = 0;
    xn[0] = (struct svm_node){.index = 0, .value = 0};
    xn[l + 1] = (struct svm_node){.index = -1, .value = 0};
    /* the check: all 0, all 1, a ramp, the first support vector and the
     * last (each at distance 0 from itself: exp(-0) = 1) */
    int same = 1;
    for (size_t t = 0; t < 3 + 2 && same; t++) {
        const struct svm_node *v = t == 3 ? sm->SV[0] : t == 4 ? sm->SV[l - 1] : NULL;
        for (size_t k = 0; k < nd; k++)
            x[k] = t == 0 ? 0 : t == 1 ? 1 : t == 2 ? (double)(k % 7) / 6.0 - 0.25 : 0;
        for (; v && v->index != -1; v++)
            x[v->index - 1] = v->value;
        for (size_t k = 0; k < nd; k++)
            sn[k] = (struct svm_node){.index = (int)k + 1, .value = x[k]};
        sn[nd].index = -1;
        rbf_values(m, x, xn);
        double la = svm_predict_values(sm, sn, da), lb = svm_predict_values(&m->pre, xn, db);
        same = la == lb && memcmp(da, db, npair * sizeof *da) == 0;
    }
    m->use_pre = same;
out:
    free(x);
    free(xn);
    free(sn);
    free(da);
    free(db);
    return rc;
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
            else if (ps_page_signal_block((size_t)m->ids[i]) >= 0)
                m->hash_blocks |= 1u << ps_page_signal_block((size_t)m->ids[i]);
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
    if (!rc && m->n_signals > 0 && pre_kernel(m) != 0)
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
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
    double s[PS_PAGE_SIGNALS_MAX], pk[64];
    struct svm_node nodes[PS_PAGE_SIGNALS_MAX + 1];
    if (ns > PS_PAGE_SIGNALS_MAX || m->n_signals > PS_PAGE_SIGNALS_MAX || m->n_labels > 64)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: too many signals or labels", m->name);
    /* the hashed signals only of the blocks the bundle names */
    if (ps_page_signals_select(page, s, m->hash_blocks) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->n_signals; i++) {
        nodes[i].index = (int)i + 1;
        nodes[i].value = (s[m->ids[i]] - m->shift[i]) * m->factor[i];
    }
    nodes[m->n_signals].index = -1;
    if (m->use_pre) {
        double x[1024];
        struct svm_node *kn = malloc(((size_t)m->svm->l + 2) * sizeof *kn);
        if (!kn)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        for (size_t k = 0; k < m->nd; k++)
            x[k] = k < m->n_signals ? nodes[k].value : 0;
        kn[0] = (struct svm_node){.index = 0, .value = 0};
        kn[m->svm->l + 1] = (struct svm_node){.index = -1, .value = 0};
        rbf_values(m, x, kn);
        svm_predict_probability(&m->pre, kn, pk);
        free(kn);
    } else {
        svm_predict_probability(m->svm, nodes, pk);
    }
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
