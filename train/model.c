/* train/model.c — model bundles (docs/MODEL_FORMAT.md): parse, load, save,
 * and prediction (the default path: train/model_path.c).
 *
 * Prediction (train/predict.c) evaluates the RBF decision function itself
 * from a dense copy of the support vectors made here at load. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <libsvm/svm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util.h"
#include "pagesift/features.h"
#include "train/model_internal.h"

#define MAGIC "pagesift-model "
#define SVM_BYTES_KEY "libsvm-model-bytes"
/* a per-site delta bundle's payload line instead (train/site_models.c) */
#define DELTA_BYTES_KEY PS_SITE_DELTA_BYTES_KEY
#define END_LINE "end pagesift-model\n"
#define CHECKSUM_KEY "checksum"
#define CHECKSUM_PREFIX "crc32:"

/* ---- the body checksum (format 2) ---------------------------------------
 * CRC-32 (zlib's crc32: the gzip/PNG polynomial) of every byte of the
 * bundle from its header line through its end line, leaving out the header
 * section's "checksum ..." line and its "block_tags ..." and "data_fold ..."
 * lines (set after training: scripts/train-default-model, annotators' sed).
 * A header-section line is one before the libsvm-model-bytes line. */

static int line_is_key(const char *l, size_t len, const char *key)
{
    size_t kl = strlen(key);
    return len > kl && memcmp(l, key, kl) == 0 && l[kl] == ' ';
}

/* The CRC of the bundle @p text (len bytes) into *crc_out: 0, or -1 when
 * its structure is not whole (no libsvm-model-bytes line, fewer bytes than
 * it says, no room for the end line). */
static int body_crc(const char *text, size_t len, uint32_t *crc_out)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *le = memchr(p, '\n', (size_t)(end - p));
        if (!le)
            return -1;
        size_t ll = (size_t)(le - p);
        const char *pk = line_is_key(p, ll, SVM_BYTES_KEY)     ? SVM_BYTES_KEY
                         : line_is_key(p, ll, DELTA_BYTES_KEY) ? DELTA_BYTES_KEY
                                                               : NULL;
        if (pk) {
            char nb[32] = "";
            size_t l = ll - strlen(pk) - 1;
            memcpy(nb, p + strlen(pk) + 1, l < 31 ? l : 31);
            char *e;
            unsigned long long b = strtoull(nb, &e, 10);
            if (e == nb || *e)
                return -1;
            crc = crc32(crc, (const Bytef *)p, (uInt)(ll + 1));
            p = le + 1;
            size_t rest = (size_t)(end - p);
            if (b > rest || rest - b < strlen(END_LINE))
                return -1;
            size_t n = (size_t)b + strlen(END_LINE);
            crc = crc32(crc, (const Bytef *)p, (uInt)n);
            *crc_out = (uint32_t)crc;
            return 0;
        }
        if (p == text || !(line_is_key(p, ll, CHECKSUM_KEY) || line_is_key(p, ll, "block_tags") ||
                           line_is_key(p, ll, "data_fold")))
            crc = crc32(crc, (const Bytef *)p, (uInt)(ll + 1));
        p = le + 1;
    }
    return -1;
}

/* Insert "checksum crc32:XXXXXXXX" before the libsvm-model-bytes line of
 * a bundle that has none; 0, or -1 (structure not whole, no memory). */
static int seal_bundle(ps_buf *b)
{
    uint32_t crc;
    if (body_crc(b->data, b->len, &crc) != 0)
        return -1;
    char line[64];
    int n = snprintf(line, sizeof line, "%s %s%08x\n", CHECKSUM_KEY, CHECKSUM_PREFIX, (unsigned)crc);
    const char *at = NULL;
    for (const char *p = b->data; p < b->data + b->len;) {
        const char *le = memchr(p, '\n', (size_t)(b->data + b->len - p));
        if (!le)
            return -1;
        if (line_is_key(p, (size_t)(le - p), SVM_BYTES_KEY) || line_is_key(p, (size_t)(le - p), DELTA_BYTES_KEY)) {
            at = p;
            break;
        }
        p = le + 1;
    }
    if (!at)
        return -1;
    size_t off = (size_t)(at - b->data);
    if (ps_buf_reserve(b, (size_t)n) != 0)
        return -1;
    memmove(b->data + off + n, b->data + off, b->len - off);
    memcpy(b->data + off, line, (size_t)n);
    b->len += (size_t)n;
    b->data[b->len] = 0;
    return 0;
}

int ps_model_bundle_seal(ps_buf *b)
{
    return seal_bundle(b);
}

int ps_model_bundle_crc(const char *text, size_t len, uint32_t *crc)
{
    return body_crc(text, len, crc);
}

/* ps_model_default_path: train/model_path.c */

void ps_model_free(ps_model *m)
{
    if (!m)
        return;
    if (m->libsvm)
        svm_free_and_destroy_model((struct svm_model **)&m->libsvm);
    free(m->bundle);
    free(m->name);
    free(m->keys_buf);
    free(m->keys);
    free(m->vals);
    free(m->ids);
    free(m->features);
    free(m->shift);
    free(m->factor);
    free(m->sv);
    free(m->svt);
    free(m->coefp);
    free(m->coef);
    free(m->base_coefp);
    free(m->site_paths);
    free(m->site_layout);
    free(m);
}

size_t ps_model_n_features(const ps_model *m)
{
    return m->n_features;
}
const int *ps_model_feature_ids(const ps_model *m)
{
    return m->ids;
}
const char *ps_model_feature_names(const ps_model *m)
{
    return m->features;
}

const char *ps_model_info(const ps_model *m, const char *key)
{
    for (size_t i = 0; i < m->n_keys; i++)
        if (strcmp(m->keys[i], key) == 0)
            return m->vals[i];
    return NULL;
}

/* ---- parsing ---------------------------------------------------------- */

static int parse_doubles(const char *s, double *out, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char *end;
        out[k] = ps_strtod(s, &end);
        if (end == s || !isfinite(out[k]))
            return -1;
        s = end;
    }
    while (*s == ' ')
        s++;
    return *s ? -1 : 0;
}

/* strtok_r(text, "\n", save): the next line, empty lines skipped, its
 * newline overwritten; the end found by strchr (strtok_r's strcspn cost 2.9 M
 * instructions more over the shipped bundle's two stages). */
static char *next_line(char *text, char **save)
{
    char *p = text ? text : *save;
    while (*p == '\n')
        p++;
    if (!*p) {
        *save = p;
        return NULL;
    }
    char *e = strchr(p, '\n');
    if (e) {
        *e = '\0';
        *save = e + 1;
    } else {
        *save = p + strlen(p);
    }
    return p;
}

/* strtol(p, end, 10) for a feature index: up to 8 digits read here, the
 * rest (a sign, more digits) by strtol. */
static long index_at(const char *p, char **end)
{
    long v = 0;
    const char *q = p;
    while (*q >= '0' && *q <= '9' && q - p < 8)
        v = v * 10 + (*q++ - '0');
    if (q == p || (*q >= '0' && *q <= '9'))
        return strtol(p, end, 10);
    *end = (char *)q;
    return v;
}

/* Parse the libsvm model text (svm_save_model's format) into the dense
 * decision function.  Its numbers are read with ps_strtod, strtod's bits
 * (a model's load was 60 % strtod: 232 M of 362 M instructions for the
 * shipped bundle and its page-type model). */
static int parse_svm(ps_model *m, char *text, ps_error *err)
{
    const char *nm = m->name;
    char *save = NULL;
    int nr_class = 0, have_gamma = 0, have_rho = 0, have_label = 0, in_sv = 0;
    long labels[2] = {-1, -1};
    size_t total = 0, row = 0;
    for (char *line = next_line(text, &save); line; line = next_line(NULL, &save)) {
        if (in_sv) {
            if (row >= total)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: more support vectors than total_sv %zu",
                                    nm, total);
            char *end;
            m->coef[row] = ps_strtod(line, &end);
            if (end == line)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: bad support vector line %zu", nm, row + 1);
            char *p = end;
            while (*p) {
                while (*p == ' ')
                    p++;
                if (!*p)
                    break;
                long idx = index_at(p, &end);
                if (end == p || *end != ':' || idx < 1 || (size_t)idx > m->n_features)
                    return ps_set_error(err, PS_ERR_FORMAT,
                                        "%s: support vector %zu: bad feature index (model has %zu features)",
                                        nm, row + 1, m->n_features);
                p = end + 1;
                double v = ps_strtod(p, &end);
                if (end == p || !isfinite(v))
                    return ps_set_error(err, PS_ERR_FORMAT, "%s: support vector %zu: bad value", nm, row + 1);
                m->sv[row * m->n_features + (size_t)(idx - 1)] = v;
                p = end;
            }
            row++;
            continue;
        }
        char *sp = strchr(line, ' ');
        const char *val = sp ? sp + 1 : "";
        if (sp)
            *sp = 0;
        if (strcmp(line, "svm_type") == 0) {
            if (strcmp(val, "c_svc") != 0)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: svm_type %s, expected c_svc", nm, val);
        } else if (strcmp(line, "kernel_type") == 0) {
            if (strcmp(val, "rbf") != 0)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: kernel_type %s, expected rbf", nm, val);
        } else if (strcmp(line, "gamma") == 0) {
            have_gamma = parse_doubles(val, &m->gamma, 1) == 0 && m->gamma > 0;
            if (!have_gamma)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: gamma '%.40s' is not a positive finite number",
                                    nm, val);
        } else if (strcmp(line, "nr_class") == 0) {
            nr_class = atoi(val);
        } else if (strcmp(line, "total_sv") == 0) {
            char *end;
            long t = strtol(val, &end, 10);
            if (t < 1 || *end || t > 100000000)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: bad total_sv '%s'", nm, val);
            total = (size_t)t;
        } else if (strcmp(line, "rho") == 0) {
            have_rho = parse_doubles(val, &m->rho, 1) == 0;
            if (!have_rho)
                return ps_set_error(err, PS_ERR_FORMAT, "%s: rho '%.40s' is not a finite number", nm, val);
        } else if (strcmp(line, "label") == 0) {
            have_label = sscanf(val, "%ld %ld", &labels[0], &labels[1]) == 2;
        } else if (strcmp(line, "SV") == 0) {
            if (nr_class != 2 || !have_gamma || !have_rho || !have_label || !total)
                return ps_set_error(err, PS_ERR_FORMAT,
                                    "%s: libsvm header incomplete (needs 2 classes, gamma, rho, label, total_sv)",
                                    nm);
            if (!((labels[0] == 1 && labels[1] == 0) || (labels[0] == 0 && labels[1] == 1)))
                return ps_set_error(err, PS_ERR_FORMAT, "%s: labels %ld %ld, expected 1 and 0", nm,
                                    labels[0], labels[1]);
            m->content_first = labels[0] == 1;
            m->n_sv = total;
            m->sv = calloc(total * m->n_features, sizeof *m->sv);
            m->coef = calloc(total, sizeof *m->coef);
            if (!m->sv || !m->coef)
                return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", nm);
            in_sv = 1;
        }
        /* other keys (nr_sv, probA, ...) are not needed */
    }
    if (!in_sv || row != total)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: %zu support vectors, total_sv says %zu", nm, row,
                            total);
    /* the prediction layout */
    m->n_active = 0;
    for (size_t k = 0; k < m->n_features; k++) {
        int used = m->factor[k] != 0.0;
        for (size_t i = 0; i < total && !used; i++)
            used = m->sv[i * m->n_features + k] != 0.0;
        if (used)
            m->active[m->n_active++] = (uint8_t)k;
    }
    size_t n = m->n_active;
    m->n_chunks = (total + PS_SV_CHUNK - 1) / PS_SV_CHUNK;
    m->svt = calloc(m->n_chunks * PS_SV_CHUNK * (n ? n : 1), sizeof *m->svt);
    m->coefp = calloc(m->n_chunks * PS_SV_CHUNK + 1, sizeof *m->coefp);
    if (!m->svt || !m->coefp)
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", nm);
    for (size_t i = 0; i < total; i++) {
        size_t c = i / PS_SV_CHUNK, j = i % PS_SV_CHUNK;
        for (size_t a = 0; a < n; a++)
            m->svt[(c * n + a) * PS_SV_CHUNK + j] = (float)m->sv[i * m->n_features + m->active[a]];
        m->coefp[i] = m->coef[i];
    }
    return 0;
}

int ps_model_take_keys(ps_model *m, ps_buf *kb, size_t nk)
{
    m->keys_buf = ps_buf_take(kb, NULL);
    m->keys = calloc(nk + 1, sizeof *m->keys);
    m->vals = calloc(nk + 1, sizeof *m->vals);
    if (!m->keys || !m->vals || (nk && !m->keys_buf))
        return -1;
    char *q = m->keys_buf;
    for (size_t i = 0; i < nk; i++) {
        size_t l = strlen(q);
        char *sp = strchr(q, ' ');
        m->keys[m->n_keys] = q;
        m->vals[m->n_keys] = "";
        if (sp) {
            *sp = 0;
            m->vals[m->n_keys] = sp + 1;
        }
        if (*q)
            m->n_keys++;
        q += l + 1;
    }
    return 0;
}

/* ps_model_parse_ex on @p bundle (@p len bytes and a NUL), which the model
 * keeps as its text: the caller's buffer taken over, not copied (freed on
 * failure too). */
static ps_model *parse_bundle(char *bundle, size_t len, const char *name, int check_features, ps_error *err)
{
    ps_model *m = calloc(1, sizeof *m);
    if (!m || !(m->name = strdup(name ? name : "model"))) {
        free(bundle);
        ps_model_free(m);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    m->bundle = bundle;
    m->bundle_len = len;
    const char *text = bundle;
    const char *nm = m->name;
    char *svm_copy = NULL;
    int rc = 0;

    /* header line */
    size_t ml = strlen(MAGIC);
    if (len < ml || memcmp(text, MAGIC, ml) != 0) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: not a pagesift model (no 'pagesift-model' header line)",
                          nm);
        goto out;
    }
    const char *eol = memchr(text, '\n', len);
    if (!eol) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: truncated (header line only)", nm);
        goto out;
    }
    {
        char vbuf[32] = "";
        size_t vl = (size_t)(eol - text) - ml;
        memcpy(vbuf, text + ml, vl < sizeof vbuf - 1 ? vl : sizeof vbuf - 1);
        char *end;
        long v = strtol(vbuf, &end, 10);
        if (end == vbuf || *end) {
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: bad format version '%s'", nm, vbuf);
            goto out;
        }
        if (v == 1) {
            rc = ps_set_error(err, PS_ERR_VERSION,
                              "%s: model format version 1, which has no checksum; this pagesift (%s) "
                              "reads version %d: 'pagesift-train --upgrade %s -o NEW.model' re-saves "
                              "it unchanged with one (or retrain it with pagesift-train)",
                              nm, ps_version(), PS_MODEL_FORMAT_VERSION, nm);
            goto out;
        }
        if (v != PS_MODEL_FORMAT_VERSION) {
            rc = ps_set_error(err, PS_ERR_VERSION,
                              "%s: model format version %ld; this pagesift (%s) reads version %d — "
                              "retrain it with this pagesift-train",
                              nm, v, ps_version(), PS_MODEL_FORMAT_VERSION);
            goto out;
        }
    }

    /* key-value lines up to libsvm-model-bytes */
    const char *p = eol + 1, *end = text + len;
    size_t svm_bytes = 0;
    int have_svm = 0;
    size_t cap = 0;
    ps_buf kb = {0};
    size_t nk = 0;
    while (p < end) {
        const char *le = memchr(p, '\n', (size_t)(end - p));
        if (!le)
            break;
        if ((size_t)(le - p) > strlen(SVM_BYTES_KEY) && memcmp(p, SVM_BYTES_KEY " ", strlen(SVM_BYTES_KEY) + 1) == 0) {
            char nb[32] = "";
            size_t l = (size_t)(le - p) - strlen(SVM_BYTES_KEY) - 1;
            memcpy(nb, p + strlen(SVM_BYTES_KEY) + 1, l < 31 ? l : 31);
            char *e;
            unsigned long long b = strtoull(nb, &e, 10);
            if (e == nb || *e) {
                ps_buf_free(&kb);
                rc = ps_set_error(err, PS_ERR_FORMAT, "%s: bad %s line", nm, SVM_BYTES_KEY);
                goto out;
            }
            svm_bytes = (size_t)b;
            have_svm = 1;
            p = le + 1;
            break;
        }
        if (line_is_key(p, (size_t)(le - p), DELTA_BYTES_KEY)) {
            ps_buf_free(&kb);
            rc = ps_set_error(err, PS_ERR_FORMAT,
                              "%s: a per-site model stored as a delta against its base model: it is "
                              "read with that base, by 'pagesift --models DIR' beside it "
                              "(docs/SITE_MODELS.md), not as a model of its own",
                              nm);
            goto out;
        }
        ps_buf_append(&kb, p, (size_t)(le - p));
        ps_buf_putc(&kb, 0);
        nk++;
        p = le + 1;
    }
    (void)cap;
    if (!have_svm) {
        ps_buf_free(&kb);
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: truncated (no %s line)", nm, SVM_BYTES_KEY);
        goto out;
    }
    /* svm_bytes is the file's word: compared with what is left without an
     * addition that could wrap (a damaged "libsvm-model-bytes -1" reads as
     * SIZE_MAX: strtoull takes the sign) */
    if (svm_bytes > (size_t)(end - p) || (size_t)(end - p) - svm_bytes < strlen(END_LINE) ||
        memcmp(p + svm_bytes, END_LINE, strlen(END_LINE)) != 0) {
        ps_buf_free(&kb);
        rc = ps_set_error(err, PS_ERR_FORMAT,
                          "%s: truncated or damaged: the embedded libsvm model should be %zu bytes "
                          "followed by '%s' (file has %zu bytes after the header)",
                          nm, svm_bytes, "end pagesift-model", (size_t)(end - p));
        goto out;
    }
    m->end_off = (size_t)(p - text) + svm_bytes + strlen(END_LINE);
    {
        /* the checksum, before anything else is believed */
        const char *cv = NULL;
        size_t cl = 0;
        for (const char *q = eol + 1; q < p;) {
            const char *le = memchr(q, '\n', (size_t)(p - q));
            if (line_is_key(q, (size_t)(le - q), CHECKSUM_KEY)) {
                cv = q + strlen(CHECKSUM_KEY) + 1;
                cl = (size_t)(le - cv);
            }
            q = le + 1;
        }
        uint32_t crc = 0;
        char want[16];
        if (body_crc(text, len, &crc) != 0) {
            ps_buf_free(&kb);
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: truncated or damaged (the bundle's structure is broken)", nm);
            goto out;
        }
        snprintf(want, sizeof want, "%08x", (unsigned)crc);
        size_t pl = strlen(CHECKSUM_PREFIX);
        if (!cv) {
            ps_buf_free(&kb);
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: no '%s' line (format %d bundles have one)", nm,
                              CHECKSUM_KEY, PS_MODEL_FORMAT_VERSION);
            goto out;
        }
        if (cl != pl + 8 || memcmp(cv, CHECKSUM_PREFIX, pl) != 0) {
            ps_buf_free(&kb);
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: bad checksum line '%s %.*s' (want %s<8 hex digits>)",
                              nm, CHECKSUM_KEY, (int)(cl < 40 ? cl : 40), cv, CHECKSUM_PREFIX);
            goto out;
        }
        if (strncasecmp(cv + pl, want, 8) != 0) {
            ps_buf_free(&kb);
            rc = ps_set_error(err, PS_ERR_FORMAT,
                              "%s: damaged: checksum mismatch (the file says %s%.8s, its contents give "
                              "%s%s): it was changed after it was written; use a good copy or retrain",
                              nm, CHECKSUM_PREFIX, cv + pl, CHECKSUM_PREFIX, want);
            goto out;
        }
    }
    m->svm_text = m->bundle + (p - text);
    m->svm_len = svm_bytes;
    if (ps_model_take_keys(m, &kb, nk) != 0) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }

    /* the training parameters the header states (libsvm's gamma is the one
     * used; these must be numbers too) */
    {
        static const char *const pos_keys[] = {"C", "gamma"};
        for (size_t i = 0; i < 2; i++) {
            const char *v = ps_model_info(m, pos_keys[i]);
            double d;
            if (v && (parse_doubles(v, &d, 1) != 0 || !(d > 0))) {
                rc = ps_set_error(err, PS_ERR_FORMAT, "%s: %s '%.40s' is not a positive finite number", nm,
                                  pos_keys[i], v);
                goto out;
            }
        }
    }

    /* features */
    const char *feats = ps_model_info(m, "features");
    if (!feats || !*feats) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: no 'features' line", nm);
        goto out;
    }
    m->features = strdup(feats);
    size_t nf = 1;
    for (const char *c = feats; *c; c++)
        nf += *c == ',';
    if (nf > PS_MODEL_MAX_FEATURES) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: %zu features (at most %d)", nm, nf, PS_MODEL_MAX_FEATURES);
        goto out;
    }
    m->n_features = nf;
    m->ids = calloc(nf, sizeof *m->ids);
    m->shift = calloc(nf, sizeof *m->shift);
    m->factor = calloc(nf, sizeof *m->factor);
    double *mn = calloc(nf, sizeof *mn), *mx = calloc(nf, sizeof *mx);
    char *fl = strdup(feats);
    if (!m->features || !m->ids || !m->shift || !m->factor || !mn || !mx || !fl) {
        free(mn);
        free(mx);
        free(fl);
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    {
        size_t k = 0;
        char *save = NULL;
        for (char *t = strtok_r(fl, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save), k++) {
            m->ids[k] = ps_feature_lookup(t);
            if (m->ids[k] < 0 && check_features)
                rc = ps_set_error(err, PS_ERR_FORMAT,
                                  "%s: feature '%s' is not computed by this pagesift (%s); the model "
                                  "needs %s",
                                  nm, t, ps_version(), feats);
        }
        if (!rc && k != nf)
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: empty name in features '%s'", nm, feats);
    }
    free(fl);
    const char *smin = ps_model_info(m, "scale_min"), *smax = ps_model_info(m, "scale_max");
    if (!rc && (!smin || !smax || parse_doubles(smin, mn, nf) || parse_doubles(smax, mx, nf)))
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: scale_min/scale_max missing or not %zu numbers", nm, nf);
    for (size_t k = 0; !rc && k < nf; k++) {
        m->shift[k] = mn[k];
        m->factor[k] = mx[k] > mn[k] ? 1.0 / (mx[k] - mn[k]) : 0.0;
    }
    free(mn);
    free(mx);
    if (rc)
        goto out;

    svm_copy = malloc(svm_bytes + 1);
    if (!svm_copy) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(svm_copy, m->svm_text, svm_bytes);
    svm_copy[svm_bytes] = 0;
    rc = parse_svm(m, svm_copy, err);
out:
    free(svm_copy);
    if (rc) {
        ps_model_free(m);
        return NULL;
    }
    return m;
}

ps_model *ps_model_parse_ex(const char *text, size_t len, const char *name, int check_features,
                            ps_error *err)
{
    char *bundle = malloc(len + 1);
    if (!bundle) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(bundle, text, len);
    bundle[len] = 0;
    return parse_bundle(bundle, len, name, check_features, err);
}

ps_model *ps_model_parse(const char *text, size_t len, const char *name, ps_error *err)
{
    return ps_model_parse_ex(text, len, name, 1, err);
}

/* A bundle is a regular file of at most this size (the shipped one is
 * 0.6 MB): checked before reading, so that `-M /dev/zero` or a huge file is
 * refused at once instead of read up to 1 GiB. */
#define MODEL_MAX_BYTES ((size_t)256 << 20)

ps_model *ps_model_next_stage(const ps_model *m, ps_error *err)
{
    if (!m || m->end_off >= m->bundle_len)
        return NULL;
    const char *rest = m->bundle + m->end_off;
    size_t n = m->bundle_len - m->end_off;
    if (n < strlen(MAGIC) || memcmp(rest, MAGIC, strlen(MAGIC)) != 0)
        return NULL; /* not a bundle: trailing bytes are not read (docs/MODEL_FORMAT.md) */
    char name[512];
    snprintf(name, sizeof name, "%s (second stage)", m->name);
    ps_model *next = ps_model_parse(rest, n, name, err);
    if (!next && err && err->code == 0)
        ps_set_error(err, PS_ERR_FORMAT, "%s: cannot be read", name);
    return next;
}

void ps_model_drop_text(ps_model *m)
{
    if (!m)
        return;
    free(m->bundle);
    m->bundle = NULL;
    m->bundle_len = m->end_off = 0;
    m->svm_text = NULL;
    m->svm_len = 0;
    /* the support vectors as read (doubles, every feature): what site
     * models and reductions train from; prediction reads svt and coefp */
    free(m->sv);
    m->sv = NULL;
    free(m->coef);
    m->coef = NULL;
}

ps_model *ps_model_load(const char *path, ps_error *err)
{
    size_t len;
    char *text = ps_read_regular_file(path, MODEL_MAX_BYTES, "a model bundle", &len, err);
    if (!text)
        return NULL;
    return parse_bundle(text, len, path, 1, err); /* the text read is the model's: no copy */
}

int ps_model_save(const ps_model *m, const char *path, ps_error *err)
{
    if (!m->bundle)
        return ps_set_error(err, PS_ERR_USAGE, "%s: its text was dropped (ps_model_drop_text): cannot be saved",
                            m->name);
    return ps_write_file_atomic(path, m->bundle, m->bundle_len, err);
}

int ps_model_upgrade(const char *in_path, const char *out_path, ps_error *err)
{
    size_t len;
    char *text = ps_read_regular_file(in_path, MODEL_MAX_BYTES, "a model bundle", &len, err);
    if (!text)
        return -1;
    static const char v1[] = MAGIC "1\n";
    if (len < sizeof v1 - 1 || memcmp(text, v1, sizeof v1 - 1) != 0) {
        int two = len > strlen(MAGIC) && memcmp(text, MAGIC, strlen(MAGIC)) == 0;
        free(text);
        return ps_set_error(err, PS_ERR_FORMAT, "%s: %s", in_path,
                            two ? "not a format 1 bundle (only format 1 is upgraded; a damaged newer "
                                  "bundle is not repaired)"
                                : "not a pagesift model (no 'pagesift-model' header line)");
    }
    ps_buf b = {0};
    char head[32];
    snprintf(head, sizeof head, MAGIC "%d\n", PS_MODEL_FORMAT_VERSION);
    int rc = ps_buf_append(&b, head, strlen(head)) != 0 ||
             ps_buf_append(&b, text + sizeof v1 - 1, len - (sizeof v1 - 1)) != 0;
    free(text);
    if (rc) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    /* a format 1 bundle could already carry a checksum key by hand: refuse */
    if (strstr(b.data, "\n" CHECKSUM_KEY " ")) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_FORMAT, "%s: a format 1 bundle with a '%s' line", in_path, CHECKSUM_KEY);
    }
    if (seal_bundle(&b) != 0) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_FORMAT, "%s: truncated or damaged (the bundle's structure is broken)",
                            in_path);
    }
    /* everything a load checks, before it is written */
    ps_model *m = ps_model_parse(b.data, b.len, in_path, err);
    if (!m) {
        ps_buf_free(&b);
        return -1;
    }
    rc = ps_model_save(m, out_path, err);
    ps_model_free(m);
    ps_buf_free(&b);
    return rc;
}

/* ---- libsvm text in and out (temporary files: libsvm only reads and
 * writes named files) ---------------------------------------------------- */

static int temp_path(char *buf, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/pagesift-svm-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(buf);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

char *ps_svm_model_to_text(const void *svm_model, size_t *len, ps_error *err)
{
    char tmp[4096];
    if (temp_path(tmp, sizeof tmp)) {
        ps_set_error(err, PS_ERR_IO, "cannot create a temporary file in %s: %s", tmp, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    if (svm_save_model(tmp, svm_model) != 0)
        ps_set_error(err, PS_ERR_IO, "%s: libsvm could not write the model", tmp);
    else
        text = ps_read_file(tmp, 0, len, err);
    unlink(tmp);
    return text;
}

int ps_model_libsvm_decision(ps_model *m, const double *x, double *dec)
{
    if (!m->libsvm && !m->svm_text)
        return -1;
    if (!m->libsvm) {
        char tmp[4096];
        if (temp_path(tmp, sizeof tmp))
            return -1;
        if (ps_write_file_atomic(tmp, m->svm_text, m->svm_len, NULL) == 0)
            m->libsvm = svm_load_model(tmp);
        unlink(tmp);
        if (!m->libsvm)
            return -1;
    }
    struct svm_node nodes[PS_MODEL_MAX_FEATURES + 1];
    for (size_t k = 0; k < m->n_features; k++) {
        nodes[k].index = (int)k + 1;
        nodes[k].value = (x[k] - m->shift[k]) * m->factor[k];
    }
    nodes[m->n_features].index = -1;
    double d;
    double label = svm_predict_values(m->libsvm, nodes, &d);
    if (dec)
        *dec = d;
    return (int)label;
}
