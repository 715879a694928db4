/* train/site_models.c — per-site models (include/pagesift/site_models.h,
 * docs/SITE_MODELS.md) as inference uses them: a site's bundle read against
 * the base model, the model folder (one bundle per site key), and the
 * folder opened for inference (lazy loading, an LRU bounded by a memory
 * cap).  Training a site's bundle, writing it into the folder and the
 * uncertainty that says which page to label next are
 * train/site_train.c.
 *
 * The bundle is a delta against the base (docs/MODEL_FORMAT.md, "Per-site
 * bundles"): libsvm's sv_indices say which training row each support
 * vector of the site model is, so the bundle holds the site's coefficient
 * of each base support vector where it differs from the base's (the bounded
 * ones, +-C in both, mostly do not), the site's own support vectors (the W
 * copies of a row as one vector, their coefficients summed), rho and the
 * site keys, and names the base by its checksum.  Read against the loaded
 * default (delta_parse), it shares the base's support vectors and holds
 * only its coefficients for them and its own vectors; predict.c's
 * predict_many_delta evaluates it.  A delta whose base_checksum is
 * not the default's is refused like a damaged bundle, but for one: when the
 * default is a reduction (issue 33, its reduced_from key) and the delta was
 * made against the model it was reduced from, it is read against that model
 * as the store's owner gives it (ps_site_models_set_unreduced: asked once,
 * on the first such bundle); when it cannot be had, those bundles are
 * refused with one warning. */
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
#include "pagesift/page.h"
#include "pagesift/site_models.h"
#include "pagesift/templates.h"
#include "train/model_internal.h"

/* ---- a delta bundle read against its base ------------------------------ */

/* The text of a line of [p, end): its end (the '\n') or NULL. */
static const char *line_end(const char *p, const char *end)
{
    return p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
}

/* A number of the payload at *p, before the line end @p le; *p moves on. */
static int take_double(const char **p, const char *le, double *v)
{
    char *e;
    while (*p < le && **p == ' ')
        (*p)++;
    if (*p >= le)
        return -1;
    *v = strtod(*p, &e);
    if (e == *p || e > le || !isfinite(*v))
        return -1;
    *p = e;
    return 0;
}
static int take_size(const char **p, const char *le, size_t max, size_t *v)
{
    char *e;
    while (*p < le && **p == ' ')
        (*p)++;
    if (*p >= le || **p < '0' || **p > '9')
        return -1;
    unsigned long long u = strtoull(*p, &e, 10);
    if (e > le || u > max)
        return -1;
    *v = (size_t)u;
    *p = e;
    return 0;
}
/* "word " at p: p moved past it */
static int take_word(const char **p, const char *le, const char *w)
{
    size_t l = strlen(w);
    if ((size_t)(le - *p) < l || memcmp(*p, w, l) != 0)
        return -1;
    *p += l;
    return 0;
}

int ps_site_model_is_base(const ps_model *m)
{
    return m && m->delta_unchanged;
}

static int cmp_site_path(const void *a, const void *b)
{
    return ps_cmp_u64(&((const ps_site_path *)a)->key, &((const ps_site_path *)b)->key);
}

int ps_site_model_path_label(const ps_model *m, const char *path, uint32_t chars)
{
    if (!m || !m->n_site_paths || !path)
        return -1;
    return ps_site_path_decide(m->site_paths, m->n_site_paths, ps_site_path_key(path, strlen(path), 0), chars);
}

/* The first line of a delta's section, "WORD N", at *@p pp (*@p pp then
 * after it): N (of @p what) at most what the bytes after it hold at @p
 * line_min bytes a line.  0, or -1 + err (@p before: what the line before
 * it says, for the message). */
static int section_head(const char **pp, const char *pe, const char *word, const char *what, size_t line_min,
                        const char *before, const char *nm, size_t *n, ps_error *err)
{
    const char *p = *pp, *le;
    if (!(le = line_end(p, pe)) || take_word(&p, le, word) != 0 || take_size(&p, le, 10000000, n) != 0 ||
        p != le)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: more lines than %s", nm, before);
    p = le + 1;
    if (*n > (size_t)(pe - p) / line_min)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: %zu %s in %zu bytes", nm, *n, what,
                            (size_t)(pe - p));
    *pp = p;
    return 0;
}

double ps_site_model_layout_share(const ps_model *m, const ps_page *page, const uint32_t *blocks, size_t n)
{
    if (!m || !m->n_site_layout || !page)
        return NAN;
    size_t nb;
    const ps_block *b = ps_page_blocks(page, &nb);
    double in = 0, all = 0;
    for (size_t i = 0; i < (blocks ? n : nb); i++) {
        const size_t k = blocks ? blocks[i] : i;
        if (k >= nb || !b[k].own.text_chars)
            continue;
        all += b[k].own.text_chars;
        const uint64_t h = ps_hash64(b[k].path, strlen(b[k].path));
        if (bsearch(&h, m->site_layout, m->n_site_layout, sizeof *m->site_layout, ps_cmp_u64))
            in += b[k].own.text_chars;
    }
    return all > 0 ? in / all : 1;
}

/* Parse a delta bundle (docs/MODEL_FORMAT.md, "Per-site bundles") of the
 * text @p text against @p base: the envelope and checksum as any bundle,
 * then its base_checksum must be the base's checksum; the model shares the
 * base's support vectors (delta_base) and holds the site's coefficients
 * for them and its own new support vectors. */
static ps_model *delta_parse(const char *text, size_t len, const char *name, const ps_model *base, ps_error *err)
{
    ps_model *m = calloc(1, sizeof *m);
    ps_buf kb = {0};
    double *row = NULL;
    int rc = 0;
    if (!m || !(m->name = strdup(name ? name : "site model")) || !(m->bundle = malloc(len + 1))) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(m->bundle, text, len);
    m->bundle[len] = 0;
    m->bundle_len = len;
    const char *nm = m->name, *t = m->bundle, *end = t + len;
    char head[32];
    snprintf(head, sizeof head, "pagesift-model %d\n", PS_MODEL_FORMAT_VERSION);
    if (len < strlen(head) || memcmp(t, head, strlen(head)) != 0) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: not a format %d bundle (no '%.*s' line)", nm,
                          PS_MODEL_FORMAT_VERSION, (int)strlen(head) - 1, head);
        goto out;
    }
    /* the header's key lines up to the payload line */
    const char *p = t + strlen(head), *le;
    size_t nk = 0, pay = 0;
    int have_pay = 0;
    const char *cks = NULL;
    size_t cks_len = 0;
    size_t dk = strlen(PS_SITE_DELTA_BYTES_KEY);
    while ((le = line_end(p, end))) {
        size_t ll = (size_t)(le - p);
        if (ll > dk && memcmp(p, PS_SITE_DELTA_BYTES_KEY " ", dk + 1) == 0) {
            const char *q = p + dk + 1;
            have_pay = take_size(&q, le, (size_t)1 << 30, &pay) == 0 && q == le;
            p = le + 1;
            break;
        }
        if (ll > 9 && memcmp(p, "checksum ", 9) == 0)
            cks = p + 9, cks_len = ll - 9;
        ps_buf_append(&kb, p, ll);
        ps_buf_putc(&kb, 0);
        nk++;
        p = le + 1;
    }
    if (!have_pay) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: truncated or damaged (no good '%s' line)", nm,
                          PS_SITE_DELTA_BYTES_KEY);
        goto out;
    }
    static const char end_line[] = "end pagesift-model\n";
    if ((size_t)(end - p) < pay + strlen(end_line) || memcmp(p + pay, end_line, strlen(end_line)) != 0) {
        rc = ps_set_error(err, PS_ERR_FORMAT,
                          "%s: truncated or damaged: the delta should be %zu bytes followed by 'end "
                          "pagesift-model' (file has %zu bytes after the header)",
                          nm, pay, (size_t)(end - p));
        goto out;
    }
    m->end_off = (size_t)(p - t) + pay + strlen(end_line);
    {
        uint32_t crc;
        char want[24];
        if (ps_model_bundle_crc(t, len, &crc) != 0) {
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: truncated or damaged (the bundle's structure is broken)", nm);
            goto out;
        }
        snprintf(want, sizeof want, "crc32:%08x", (unsigned)crc);
        if (!cks) {
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: no 'checksum' line (format %d bundles have one)", nm,
                              PS_MODEL_FORMAT_VERSION);
            goto out;
        }
        if (cks_len != strlen(want) || strncasecmp(cks, want, cks_len) != 0) {
            rc = ps_set_error(err, PS_ERR_FORMAT,
                              "%s: damaged: checksum mismatch (the file says %.*s, its contents give %s): it "
                              "was changed after it was written; use a good copy or retrain",
                              nm, (int)(cks_len < 40 ? cks_len : 40), cks, want);
            goto out;
        }
    }
    /* the keys (ps_model_info) */
    if (ps_model_take_keys(m, &kb, nk) != 0) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* its base: the one loaded, by checksum */
    const char *bsum = ps_model_info(m, "base_checksum"), *have = ps_model_info(base, "checksum");
    const char *bname = ps_model_info(m, "base_model");
    const char *red = ps_model_info(base, "reduced_from"); /* "<checksum> <n_sv>" */
    if (bsum && red && strncmp(red, bsum, strlen(bsum)) == 0 && red[strlen(bsum)] == ' ') {
        /* its unreduced base could not be had (ps_site_models_set_unreduced) */
        rc = ps_set_error(err, PS_ERR_FORMAT,
                          "%s: made against %s (base_checksum %s), the model that the one loaded (%s) "
                          "was reduced from; a reduced model is no base for site models "
                          "(docs/SITE_MODELS.md) and that model is not at hand: put it beside the one "
                          "loaded or name it with --site-base, or run with --model %s",
                          nm, bname ? bname : "?", bsum, base->name, bname ? bname : "that model");
        goto out;
    }
    if (!bsum || !have || strcmp(bsum, have) != 0) {
        rc = ps_set_error(err, PS_ERR_FORMAT,
                          "%s: a delta against another base model (%s, base_checksum %s), not the default "
                          "model loaded (%s, checksum %s); retrain it on this one (pagesift-train "
                          "--update DIR -m MODEL)",
                          nm, bname ? bname : "?", bsum ? bsum : "none", base->name, have ? have : "none");
        goto out;
    }
    const char *bnsv = ps_model_info(m, "base_support_vectors");
    if (base->delta_base || !bnsv || strtoull(bnsv, NULL, 10) != base->n_sv) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: base_support_vectors %s, its base has %zu", nm,
                          bnsv ? bnsv : "missing", base->n_sv);
        goto out;
    }
    /* the base's features, scaling and layout */
    size_t nf = base->n_features, n = base->n_active;
    m->delta_base = base;
    m->n_features = nf;
    m->features = strdup(base->features);
    m->ids = malloc(nf * sizeof *m->ids);
    m->shift = malloc(nf * sizeof *m->shift);
    m->factor = malloc(nf * sizeof *m->factor);
    row = malloc((nf + 1) * sizeof *row);
    if (!m->features || !m->ids || !m->shift || !m->factor || !row) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(m->ids, base->ids, nf * sizeof *m->ids);
    memcpy(m->shift, base->shift, nf * sizeof *m->shift);
    memcpy(m->factor, base->factor, nf * sizeof *m->factor);
    memcpy(m->active, base->active, sizeof m->active);
    m->n_active = n;
    m->gamma = base->gamma;
    /* the payload */
    const char *pe = p + pay;
    long l0, l1;
    char *e;
    if (!(le = line_end(p, pe)) || take_word(&p, le, "label ") != 0 || (l0 = strtol(p, &e, 10), e == p) ||
        (p = e, l1 = strtol(p, &e, 10), e != le) || !((l0 == 1 && l1 == 0) || (l0 == 0 && l1 == 1))) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: bad 'label' line (1 0 or 0 1)", nm);
        goto out;
    }
    m->content_first = l0 == 1;
    p = le + 1;
    if (!(le = line_end(p, pe)) || take_word(&p, le, "rho") != 0 || take_double(&p, le, &m->rho) != 0 || p != le) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: bad 'rho' line", nm);
        goto out;
    }
    p = le + 1;
    size_t n_changed;
    if (!(le = line_end(p, pe)) || take_word(&p, le, "base_coef") != 0 ||
        take_size(&p, le, base->n_sv, &n_changed) != 0 || p != le) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: bad 'base_coef' line", nm);
        goto out;
    }
    p = le + 1;
    size_t nbp = base->n_chunks * PS_SV_CHUNK;
    if (!(m->base_coefp = malloc((nbp + 1) * sizeof *m->base_coefp))) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the base's coefficients in the site's label order, then the changes */
    int same = m->content_first == base->content_first;
    for (size_t i = 0; i < nbp; i++)
        m->base_coefp[i] = same ? base->coefp[i] : -base->coefp[i];
    m->base_coefp[nbp] = 0;
    for (size_t i = 0, prev = 0; i < n_changed; i++) {
        size_t idx;
        double c;
        if (!(le = line_end(p, pe)) || take_size(&p, le, base->n_sv, &idx) != 0 || idx <= prev ||
            take_double(&p, le, &c) != 0 || p != le) {
            rc = ps_set_error(err, PS_ERR_FORMAT,
                              "%s: damaged delta: base coefficient line %zu (index 1..%zu, ascending, and a "
                              "number)",
                              nm, i + 1, base->n_sv);
            goto out;
        }
        m->base_coefp[idx - 1] = c;
        prev = idx;
        p = le + 1;
    }
    size_t n_new;
    if (!(le = line_end(p, pe)) || take_word(&p, le, "new_sv") != 0 || take_size(&p, le, 10000000, &n_new) != 0 ||
        p != le) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: bad 'new_sv' line", nm);
        goto out;
    }
    p = le + 1;
    m->n_sv = n_new;
    m->n_chunks = (n_new + PS_SV_CHUNK - 1) / PS_SV_CHUNK;
    m->coef = calloc(n_new + 1, sizeof *m->coef);
    m->coefp = calloc(m->n_chunks * PS_SV_CHUNK + 1, sizeof *m->coefp);
    m->svt = calloc(m->n_chunks * PS_SV_CHUNK * (n ? n : 1) + 1, sizeof *m->svt);
    if (!m->coef || !m->coefp || !m->svt) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_new; i++) {
        if (!(le = line_end(p, pe)) || take_double(&p, le, &m->coef[i]) != 0) {
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: support vector line %zu", nm, i + 1);
            goto out;
        }
        for (size_t k = 0; k < nf; k++)
            row[k] = 0;
        while (p < le) {
            size_t idx;
            double v;
            if (take_size(&p, le, nf, &idx) != 0 || idx < 1 || p >= le || *p++ != ':' ||
                take_double(&p, le, &v) != 0) {
                rc = ps_set_error(err, PS_ERR_FORMAT,
                                  "%s: damaged delta: support vector %zu: bad 'index:value' (model has %zu "
                                  "features)",
                                  nm, i + 1, nf);
                goto out;
            }
            row[idx - 1] = v;
            while (p < le && *p == ' ')
                p++;
        }
        /* a value off the base's active features would be left out of
         * the distance: only a damaged file has one (those features scale
         * to 0 on every page) */
        size_t used = 0;
        for (size_t a = 0; a < n; a++)
            used += row[m->active[a]] != 0;
        size_t nonzero = 0;
        for (size_t k = 0; k < nf; k++)
            nonzero += row[k] != 0;
        if (used != nonzero) {
            rc = ps_set_error(err, PS_ERR_FORMAT,
                              "%s: damaged delta: support vector %zu has a value in a feature the base's "
                              "scaling makes 0",
                              nm, i + 1);
            goto out;
        }
        size_t c = i / PS_SV_CHUNK, j = i % PS_SV_CHUNK;
        for (size_t a = 0; a < n; a++)
            m->svt[(c * n + a) * PS_SV_CHUNK + j] = (float)row[m->active[a]];
        m->coefp[i] = m->coef[i];
        p = le + 1;
    }
    /* the block paths its labelled pages agree on (issue 30; bundles made
     * before them have none): "paths N", then N lines "L MAX PATH" (MAX:
     * the longest labelled block's characters; "L PATH" in bundles made
     * before it, read as no bound: a path never starts with a digit) */
    if (p != pe) {
        size_t n_paths; /* a line is at least "L X\n" */
        if ((rc = section_head(&p, pe, "paths", "paths", 4, "new_sv says", nm, &n_paths, err)) != 0)
            goto out;
        if (!(m->site_paths = malloc((n_paths + 1) * sizeof *m->site_paths))) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n_paths; i++) {
            const char *q = p + 2;
            size_t most = 0;
            int ok = (le = line_end(p, pe)) && le - p >= 3 && (p[0] == '0' || p[0] == '1') && p[1] == ' ';
            if (ok && *q >= '0' && *q <= '9')
                ok = take_size(&q, le, UINT32_MAX, &most) == 0 && q < le && *q++ == ' ' && q < le;
            if (!ok) {
                rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: path line %zu (a label 0 or 1, a "
                                                      "space, the characters of its longest block, a space "
                                                      "and a block path)", nm, i + 1);
                goto out;
            }
            m->site_paths[i] = (ps_site_path){ps_site_path_key(q, (size_t)(le - q), p[0] == '1'), (uint32_t)most};
            p = le + 1;
        }
        qsort(m->site_paths, n_paths, sizeof *m->site_paths, cmp_site_path);
        m->n_site_paths = n_paths;
    }
    /* the layout of its labelled pages (bundles made before it have
     * none): "layout N", then N lines of a path's ps_hash64 in 16 hex
     * digits, ascending */
    if (p != pe) {
        size_t n_lay; /* a line is 16 hex digits and a newline */
        if ((rc = section_head(&p, pe, "layout", "layout paths", 17, "the paths say", nm, &n_lay, err)) != 0)
            goto out;
        if (!(m->site_layout = malloc((n_lay + 1) * sizeof *m->site_layout))) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n_lay; i++) {
            uint64_t h = 0;
            int ok = (le = line_end(p, pe)) && le - p == 16;
            for (const char *q = p; ok && q < le; q++) {
                const int d = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;
                ok = d >= 0;
                h = h << 4 | (uint64_t)(d & 15);
            }
            if (!ok || (i && h <= m->site_layout[i - 1])) {
                rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: layout line %zu (16 lower-case hex "
                                                      "digits, ascending)", nm, i + 1);
                goto out;
            }
            m->site_layout[i] = h;
            p = le + 1;
        }
        m->n_site_layout = n_lay;
    }
    if (p != pe) {
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s: damaged delta: more lines than the layout says", nm);
        goto out;
    }
    m->delta_unchanged = n_changed == 0 && n_new == 0 && m->rho == base->rho && same;
out:
    ps_buf_free(&kb);
    free(row);
    if (rc) {
        ps_model_free(m);
        return NULL;
    }
    return m;
}


/* The reader of a delta bundle (delta_parse) for training
 * (train/site_train.c), which reads back every bundle it writes. */
ps_model *ps_site_model_parse(const char *text, size_t len, const char *name, const ps_model *base,
                              ps_error *err)
{
    return delta_parse(text, len, name, base, err);
}

/* ---- a reduced base ---------------------------------------------------- */

int ps_model_check_reduction(const ps_model *reduced, const ps_model *unreduced, ps_error *err)
{
    const char *red = ps_model_info(reduced, "reduced_from"), *cks = ps_model_info(unreduced, "checksum");
    if (!red)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: not a reduced bundle (no reduced_from key)", reduced->name);
    char have[96];
    snprintf(have, sizeof have, "%s %zu", cks ? cks : "none", unreduced->n_sv);
    if (unreduced->delta_base || strcmp(red, have) != 0)
        return ps_set_error(err, PS_ERR_FORMAT,
                            "%s: checksum %s, %zu support vectors, not the model %s was reduced from "
                            "(reduced_from %s)",
                            unreduced->name, cks ? cks : "none", unreduced->n_sv, reduced->name, red);
    return 0;
}

/* ---- the folder --------------------------------------------------------- */

int ps_site_model_file_name(const char *site, char *out, size_t cap)
{
    if (!site || !*site || ps_template_file_name(site, out, cap) != 0)
        return -1;
    size_t n = strlen(out);
    if (n < 4 || n + 3 > cap) /* ".tpl" -> ".model" */
        return -1;
    memcpy(out + n - 4, ".model", 7);
    return 0;
}

/* Is @p text a delta bundle: its header section ends with the delta's
 * payload line, not libsvm-model-bytes. */
static int is_delta(const char *text, size_t len)
{
    for (const char *p = text, *end = text + len, *le; (le = line_end(p, end)); p = le + 1) {
        size_t ll = (size_t)(le - p), dk = strlen(PS_SITE_DELTA_BYTES_KEY);
        if (ll > dk && memcmp(p, PS_SITE_DELTA_BYTES_KEY " ", dk + 1) == 0)
            return 1;
        if (ll > 18 && memcmp(p, "libsvm-model-bytes ", 19) == 0)
            return 0;
    }
    return 0;
}

/* The value of the key line "@p key VALUE" of @p text's header section (up
 * to its payload line): its start, *n its length; NULL when none. */
static const char *header_value(const char *text, size_t len, const char *key, size_t *n)
{
    size_t kl = strlen(key);
    for (const char *p = text, *end = text + len, *le; (le = line_end(p, end)); p = le + 1) {
        size_t ll = (size_t)(le - p);
        if ((ll > 18 && memcmp(p, "libsvm-model-bytes ", 19) == 0) ||
            (ll > strlen(PS_SITE_DELTA_BYTES_KEY) &&
             memcmp(p, PS_SITE_DELTA_BYTES_KEY " ", strlen(PS_SITE_DELTA_BYTES_KEY) + 1) == 0))
            return NULL;
        if (ll > kl && memcmp(p, key, kl) == 0 && p[kl] == ' ') {
            *n = ll - kl - 1;
            return p + kl + 1;
        }
    }
    return NULL;
}

struct ps_site_models;
static const ps_model *unreduced_base(struct ps_site_models *s);

/* A site bundle's file, as ps_model_load reads a bundle (a regular file of
 * at most SITE_MODEL_MAX_BYTES): a delta against the store's base, or
 * against the model the base was reduced from (unreduced_base) when that is
 * its base_checksum (*@p unreduced 1, and 2 when that model could not be
 * had), or a whole bundle (written before deltas; checked against the base
 * by compatible()). */
static ps_model *site_model_load(struct ps_site_models *s, const char *path, const ps_model *base,
                                 const char *red_sum, int *unreduced, ps_error *err)
{
    size_t len, bl;
    *unreduced = 0;
    char *text = ps_read_regular_file(path, SITE_MODEL_MAX_BYTES, "a model bundle", &len, err);
    if (!text)
        return NULL;
    int delta = is_delta(text, len);
    const char *bsum = delta && red_sum ? header_value(text, len, "base_checksum", &bl) : NULL;
    if (bsum && bl == strlen(red_sum) && memcmp(bsum, red_sum, bl) == 0) {
        const ps_model *u = unreduced_base(s);
        *unreduced = u ? 1 : 2;
        if (u) /* else: parsed against the reduced base, which refuses it */
            base = u;
    }
    ps_model *m = delta ? delta_parse(text, len, path, base, err) : ps_model_parse(text, len, path, err);
    free(text);
    if (m && m->delta_base) {
        /* held for prediction only: its text is not needed (the keys are
         * kept apart), and it would be most of what the model holds */
        free(m->bundle);
        m->bundle = NULL;
        m->bundle_len = m->end_off = 0;
    }
    return m;
}


/* ---- the folder for inference: lazy, LRU, capped ------------------------ */

typedef struct site_entry {
    char *file;        /* file name in the folder (sorted) */
    ps_model *m;       /* loaded, or NULL */
    size_t bytes;
    int refs;
    int refused;       /* could not be used: the base serves the site */
    int loading;       /* a thread is loading it (outside the lock) */
    uint64_t used;     /* LRU clock */
} site_entry;

struct ps_site_models {
    char *dir;
    const ps_model *base;
    /* the base a reduction (issue 33): the checksum of the model it was
     * reduced from (its reduced_from's first word), and that model as
     * ps_site_models_set_unreduced's callback gives it, asked once */
    char *red_sum;
    ps_site_unreduced_fn unreduced_fn;
    void *unreduced_ctx;
    pthread_mutex_t ulock;   /* held while the callback runs */
    int unreduced_asked;
    const ps_model *unreduced;
    ps_error unreduced_err;  /* why it could not be had */
    int unreduced_warned;    /* the one warning of bundles left out for it */
    size_t cap;
    site_entry *e;
    size_t n;
    uint64_t clock;
    ps_site_models_stats st;
    pthread_mutex_t lock;
    pthread_cond_t loaded; /* a load finished (the entry's loading went 0) */
};

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const site_entry *)a)->file, ((const site_entry *)b)->file);
}

ps_site_models *ps_site_models_open(const char *dir, const ps_model *base, size_t cap_bytes, ps_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        ps_set_error(err, PS_ERR_IO, "%s: cannot open the site model folder: %s", dir, strerror(errno));
        return NULL;
    }
    ps_site_models *s = calloc(1, sizeof *s);
    size_t cap = 0;
    if (!s || !(s->dir = strdup(dir)))
        goto oom;
    s->base = base;
    s->cap = cap_bytes ? cap_bytes : (size_t)PS_SITE_MODELS_CAP_MB << 20;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->ulock, NULL);
    pthread_cond_init(&s->loaded, NULL);
    const char *red = ps_model_info(base, "reduced_from"); /* "<checksum> <n_sv>" */
    if (red && *red && !(s->red_sum = strndup(red, strcspn(red, " "))))
        goto oom;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] == '.' || l < 7 || strcmp(de->d_name + l - 6, ".model") != 0)
            continue;
        if (s->n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            site_entry *ne = realloc(s->e, nc * sizeof *ne);
            if (!ne)
                goto oom;
            s->e = ne;
            cap = nc;
        }
        memset(&s->e[s->n], 0, sizeof *s->e);
        if (!(s->e[s->n].file = strdup(de->d_name)))
            goto oom;
        s->n++;
    }
    closedir(d);
    if (s->n)
        qsort(s->e, s->n, sizeof *s->e, cmp_entry);
    return s;
oom:
    closedir(d);
    ps_site_models_free(s);
    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return NULL;
}

void ps_site_models_set_unreduced(ps_site_models *s, ps_site_unreduced_fn fn, void *ctx)
{
    s->unreduced_fn = fn;
    s->unreduced_ctx = ctx;
}

/* The model the base was reduced from, asked of the callback once (the
 * first bundle made against it; the others wait here for that answer). */
static const ps_model *unreduced_base(ps_site_models *s)
{
    pthread_mutex_lock(&s->ulock);
    if (!s->unreduced_asked) {
        s->unreduced_asked = 1;
        if (!s->unreduced_fn)
            ps_set_error(&s->unreduced_err, PS_ERR_USAGE, "no unreduced model given");
        else if (!(s->unreduced = s->unreduced_fn(s->unreduced_ctx, &s->unreduced_err)) && !s->unreduced_err.code)
            ps_set_error(&s->unreduced_err, PS_ERR_FORMAT, "the unreduced model could not be loaded");
    }
    const ps_model *u = s->unreduced;
    pthread_mutex_unlock(&s->ulock);
    return u;
}

size_t ps_site_models_count(const ps_site_models *s)
{
    return s ? s->n : 0;
}

static site_entry *find(const ps_site_models *s, const char *site)
{
    char name[1024];
    if (!s || !s->n || !site || !*site || ps_site_model_file_name(site, name, sizeof name) != 0)
        return NULL;
    site_entry key = {.file = name};
    return bsearch(&key, s->e, s->n, sizeof *s->e, cmp_entry);
}

int ps_site_models_has(const ps_site_models *s, const char *site)
{
    return find(s, site) != NULL;
}

/* Bytes a loaded bundle holds (its text, the header copy, the support
 * vectors in both layouts; a delta: its coefficients of the base's support
 * vectors and its own vectors, the base's not counted). */
static size_t model_bytes(const ps_model *m)
{
    size_t kb = 0;
    for (size_t i = 0; i < m->n_keys; i++)
        kb += strlen(m->keys[i]) + strlen(m->vals[i]) + 2;
    if (m->delta_base) /* the base's support vectors are not its own */
        return sizeof *m + m->bundle_len + kb + strlen(m->features) + 1 +
               (m->delta_base->n_chunks * PS_SV_CHUNK + 1) * sizeof(double) + m->n_sv * sizeof(double) +
               m->n_chunks * PS_SV_CHUNK * (m->n_active * sizeof(float) + sizeof(double)) +
               m->n_features * (2 * sizeof(double) + sizeof(int)) + (m->n_keys + 1) * 2 * sizeof(char *) +
               m->n_site_paths * sizeof *m->site_paths + m->n_site_layout * sizeof *m->site_layout;
    return sizeof *m + 2 * m->bundle_len + m->n_sv * m->n_features * sizeof(double) +
           m->n_sv * sizeof(double) + m->n_chunks * PS_SV_CHUNK * (m->n_active * sizeof(float) + sizeof(double)) +
           m->n_features * (2 * sizeof(double) + sizeof(int)) + m->n_keys * 2 * sizeof(char *);
}

/* A site bundle serves pages classified with the base only when it reads
 * the same features and blocks. */
static int compatible(const ps_site_models *s, const ps_model *m, const char *site, ps_error *err)
{
    const char *bt = ps_model_info(s->base, "block_tags"), *mt = ps_model_info(m, "block_tags");
    const char *ms = ps_model_info(m, "site");
    if (m->delta_base) /* a delta: the base's own features and tags (its checksum was checked) */
        bt = mt = NULL;
    if (strcmp(s->base->features, m->features) != 0)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: its features differ from the default model's", m->name);
    if ((bt == NULL) != (mt == NULL) || (bt && strcmp(bt, mt) != 0))
        return ps_set_error(err, PS_ERR_FORMAT, "%s: its block_tags differ from the default model's", m->name);
    if (!ms || strcmp(ms, site) != 0)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: it is the model of site '%s', not of '%s'", m->name,
                            ms ? ms : "(none)", site);
    return 0;
}

static void evict(ps_site_models *s, size_t need)
{
    while (s->st.bytes + need > s->cap) {
        site_entry *victim = NULL;
        for (size_t i = 0; i < s->n; i++)
            if (s->e[i].m && !s->e[i].refs && (!victim || s->e[i].used < victim->used))
                victim = &s->e[i];
        if (!victim)
            return;
        ps_model_free(victim->m);
        victim->m = NULL;
        s->st.bytes -= victim->bytes;
        s->st.loaded--;
        s->st.evictions++;
    }
}

const ps_model *ps_site_models_get(ps_site_models *s, const char *site)
{
    site_entry *e = find(s, site);
    if (!e)
        return NULL;
    pthread_mutex_lock(&s->lock);
    while (e->loading) /* another worker loads it: wait for that load */
        pthread_cond_wait(&s->loaded, &s->lock);
    const ps_model *r = NULL;
    if (e->refused) {
        r = NULL;
    } else if (e->m) {
        r = e->m;
        s->st.hits++;
    } else {
        /* load outside the lock: the other workers go on with their pages
         * (other sites, hits) while the bundle is parsed */
        e->loading = 1;
        pthread_mutex_unlock(&s->lock);
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", s->dir, e->file);
        ps_error err = {0};
        int unreduced;
        ps_model *m = site_model_load(s, path, s->base, s->red_sum, &unreduced, &err);
        if (m && compatible(s, m, site, &err) != 0) {
            ps_model_free(m);
            m = NULL;
        }
        pthread_mutex_lock(&s->lock);
        if (!m && unreduced == 2) {
            /* made against the model the base was reduced from, which is
             * not at hand: one warning a run, every such bundle left out */
            if (!s->unreduced_warned)
                ps_print("warning: site model of %s not used, its pages get the default model: %s (%s); "
                         "the same for every site model made against it (not repeated)",
                         site, err.msg, s->unreduced_err.msg);
            s->unreduced_warned = 1;
        } else if (!m) {
            ps_print("warning: site model of %s not used, its pages get the default model: %s", site, err.msg);
        }
        e->loading = 0;
        if (!m) {
            e->refused = 1;
            s->st.refused++;
        } else {
            e->bytes = model_bytes(m);
            evict(s, e->bytes);
            e->m = m;
            s->st.bytes += e->bytes;
            s->st.loaded++;
            s->st.loads++;
            if (s->st.bytes > s->st.peak_bytes)
                s->st.peak_bytes = s->st.bytes;
            r = m;
        }
        pthread_cond_broadcast(&s->loaded);
    }
    if (r) {
        e->refs++;
        e->used = ++s->clock;
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

void ps_site_models_release(ps_site_models *s, const ps_model *m)
{
    if (!s || !m)
        return;
    site_entry *e = find(s, ps_model_info(m, "site"));
    if (!e)
        return;
    pthread_mutex_lock(&s->lock);
    if (e->m == m && e->refs > 0)
        e->refs--;
    pthread_mutex_unlock(&s->lock);
}

void ps_site_models_get_stats(ps_site_models *s, ps_site_models_stats *st)
{
    pthread_mutex_lock(&s->lock);
    *st = s->st;
    pthread_mutex_unlock(&s->lock);
}

void ps_site_models_free(ps_site_models *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        ps_model_free(s->e[i].m);
        free(s->e[i].file);
    }
    free(s->e);
    free(s->dir);
    free(s->red_sum);
    if (s->dir || s->e) {
        pthread_mutex_destroy(&s->lock);
        pthread_mutex_destroy(&s->ulock);
        pthread_cond_destroy(&s->loaded);
    }
    free(s);
}
