/* methods/classifier_svm.c — the SVM block classifier (methods/block_classifier.h):
 * a model bundle (train/, docs/MODEL_FORMAT.md) whose RBF SVM scores every
 * block alone from its feature row.  Identical rows on a page (a quarter of
 * dragnet's blocks: empty link bars, repeated widgets) are scored once: an
 * open-addressing table from the row's bytes to its first block, then
 * ps_model_predict_many over the distinct rows at once (the support vectors
 * read from cache). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_classifier.h"
#include "pagesift/page.h"

typedef struct svm_classifier {
    ps_block_classifier c; /* first: the interface */
    ps_model *model;
    char *tags_buf;        /* the model's block_tags, split */
    const char **tags;     /* NULL-terminated, or NULL: default */
} svm_classifier;

static void svm_free(ps_block_classifier *c)
{
    svm_classifier *s = (svm_classifier *)c;
    ps_model_free(s->model);
    free(s->tags);
    free(s->tags_buf);
    free(s);
}

/* Hash of a feature row's bytes for the page's duplicate table, 8 bytes a
 * step (ps_hash64, FNV-1a, takes one byte a step: 328 multiplies for 41
 * features).  It only finds candidates; equality is memcmp. */
static size_t row_hash(const double *row, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < n; k++) {
        uint64_t u;
        memcpy(&u, &row[k], sizeof u);
        h = (h ^ u) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    return (size_t)h;
}

int ps_block_classifier_svm_score(const ps_model *m, const ps_classify_in *in, double *score,
                                  ps_error *err)
{
    size_t n = in->n, nf = ps_model_n_features(m), cap = 16;
    if (nf != ps_block_rows_width(in->rows))
        return ps_set_error(err, PS_ERR_USAGE, "the model reads %zu features, the rows hold %zu", nf,
                            ps_block_rows_width(in->rows));
    /* each distinct row once: over the whole page when its matrix was made
     * (read in place), else PS_ROWS_CHUNK rows at a time made on demand */
    const double *all = ps_block_rows_all(in->rows);
    size_t chunk = all || n < PS_ROWS_CHUNK ? n : PS_ROWS_CHUNK;
    while (cap < 2 * chunk)
        cap *= 2;
    int32_t *seen = malloc(cap * sizeof *seen);             /* hash slot -> distinct row */
    uint32_t *src = malloc((2 * chunk + 1) * sizeof *src);  /* listed block -> row; rows */
    double *buf = all ? NULL : malloc((chunk * nf + 1) * sizeof *buf); /* the chunk's rows */
    double *dec = malloc((chunk + 1) * sizeof *dec);        /* per distinct row */
    uint8_t *pred = malloc(chunk + 1);
    int rc = 0;
    if (!seen || !src || (!all && !buf) || !dec || !pred) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    size_t row_bytes = nf * sizeof *dec;
    uint32_t *rows = src + chunk;
    for (size_t i0 = 0; i0 < n; i0 += chunk) {
        size_t m_ = n - i0 < chunk ? n - i0 : chunk, n_rows = 0;
        const double *x = all ? all : buf; /* row r of the chunk: x + at(r) * nf */
        if (!all)
            ps_block_rows_get(in->rows, in->blocks + i0, m_, buf);
        memset(seen, 0xFF, cap * sizeof *seen);
        for (size_t i = 0; i < m_; i++) {
            uint32_t at = all ? in->blocks[i0 + i] : (uint32_t)i;
            const double *row = x + (size_t)at * nf;
            size_t h = row_hash(row, nf) & (cap - 1);
            while (seen[h] >= 0 && memcmp(x + (size_t)rows[seen[h]] * nf, row, row_bytes) != 0)
                h = (h + 1) & (cap - 1);
            if (seen[h] < 0) {
                seen[h] = (int32_t)n_rows;
                rows[n_rows++] = at;
            }
            src[i] = (uint32_t)seen[h];
        }
        ps_model_predict_many(m, x, nf, rows, n_rows, pred, dec);
        for (size_t i = 0; i < m_; i++)
            score[in->blocks[i0 + i]] = dec[src[i]];
    }
done:
    free(seen);
    free(src);
    free(buf);
    free(dec);
    free(pred);
    return rc;
}

static int svm_score(const ps_block_classifier *c, const ps_classify_in *in, double *score,
                     ps_error *err)
{
    if (in->model && in->model_cap)
        snprintf(in->model, in->model_cap, "default");
    return ps_block_classifier_svm_score(((const svm_classifier *)c)->model, in, score, err);
}

const ps_model *ps_svm_classifier_model(const ps_block_classifier *c)
{
    return c && c->score == svm_score ? ((const svm_classifier *)c)->model : NULL;
}

void ps_svm_classifier_drop_text(ps_block_classifier *c)
{
    if (c && c->score == svm_score)
        ps_model_drop_text(((svm_classifier *)c)->model);
}

/* The model's block_tags key ("body,section,div,p"), when it has one: lower-
 * case tag names, body among them (the root block is always body). */
static int model_block_tags(svm_classifier *s, const char *path, ps_error *err)
{
    const char *tags = ps_model_info(s->model, "block_tags");
    if (!tags)
        return 0;
    int body = 0;
    for (const char *p = tags; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ','))
            return ps_set_error(err, PS_ERR_FORMAT,
                                "%s: block_tags '%s' is not a comma list of lower-case tag names",
                                path, tags);
    if (!(s->tags_buf = strdup(tags)) || !(s->tags = ps_split_list(s->tags_buf)))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; s->tags[i]; i++) /* ps_split_list skips empty names */
        body |= strcmp(s->tags[i], "body") == 0;
    if (!body)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: block_tags '%s' lacks body (the root block)",
                            path, tags);
    return 0;
}

ps_block_classifier *ps_svm_classifier_open(const char *path, ps_error *err)
{
    svm_classifier *s = calloc(1, sizeof *s);
    if (!s) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->c.kind = "svm";
    s->c.score = svm_score;
    s->c.free = svm_free;
    if (!(s->model = ps_model_load(path, err)) || model_block_tags(s, path, err) != 0) {
        svm_free(&s->c);
        return NULL;
    }
    s->c.n_feat = ps_model_n_features(s->model);
    s->c.feat_ids = ps_model_feature_ids(s->model);
    s->c.block_tags = s->tags;
    return &s->c;
}

/* A site model's gate (methods/block_classifier.h): here, below both the
 * stack and the site classifier that call it. */
int ps_site_gate_scores(const ps_model *site, const ps_model *base, const ps_classify_in *in, double *score,
                        ps_error *err)
{
    const char *g = ps_model_info(site, "site_gate");
    double gate = g ? strtod(g, NULL) : 0;
    if (!(gate > 0) || !base || site == base || in->n == 0)
        return 0;
    size_t nb;
    ps_page_blocks(in->page, &nb);
    double *bs = malloc((nb + 1) * sizeof *bs);
    if (!bs)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = ps_block_classifier_svm_score(base, in, bs, err);
    for (size_t k = 0; rc == 0 && k < in->n; k++) {
        uint32_t b = in->blocks[k];
        if (bs[b] >= gate || bs[b] <= -gate)
            score[b] = bs[b];
    }
    free(bs);
    return rc;
}
