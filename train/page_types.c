/* train/page_types.c — the page-type classifier: which of a few kinds of
 * page (wcxb-dev's seven: article, collection, documentation, forum,
 * listing, product, service) a page is, with a probability.
 *
 * The page's signals (extract/page_signals.c) are scaled to [0, 1] and
 * given to a multi-class RBF SVM (libsvm: one-against-one, probabilities by
 * its pairwise coupling); training is train/page_types_train.c.  The
 * bundle is a text file (docs/MODEL_FORMAT.md, "Page-type bundles"): key
 * lines, a CRC-32 of them, libsvm's own model text, an end line
 * (train/page_types_format.h). */
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
