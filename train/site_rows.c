/* train/site_rows.c — the rows of block CSVs for per-site training
 * (pagesift-train --per-site, docs/SITE_MODELS.md): read against the base
 * model's features, grouped by site and page, each site's rows laid out as
 * ps_site_model_train takes them (include/pagesift/train.h).
 *
 * A row is kept when it is labelled (1 content, 0 noise), and an unlabelled
 * one too when the CSV has block_path and inner_len: the context features
 * of a stacked base's second stage read every scored block of a page.  Its
 * site is --site-of's, else the row's by ps_input_site (the url column's
 * host, else the site column); its page is dataset + page_id.  A labelled
 * row of no site is refused; an unlabelled one is left out (an annotation
 * workspace's pages nobody labelled may have no URL).  A labelled
 * row cut with other block tags than the base parses pages with is refused
 * (a site model keeps the base's tags).  Within a site the rows keep their
 * CSV order page by page, so a row's parent (ps_csv_row_parent) is the one
 * the second stage sees at inference. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"
#include "pagesift/train.h"
#include "pagesift/util.h"

typedef struct site_row {
    char *site, *page; /* site key; dataset + US + page_id */
    char *path;        /* block_path ("" when the CSV has none) */
    uint32_t chars;    /* inner_len: the block's own characters */
    uint64_t text;     /* ps_site_text_hash of its text column, 0 without */
    size_t at;         /* row number in x / y */
} site_row;

struct ps_site_rows {
    size_t nf, n, cap, unlabelled, labelled;
    site_row *rows; /* by site, page, then CSV order once read */
    double *x;      /* n rows of nf, by site_row.at */
    int8_t *y;
    size_t *start;  /* the first row of each site, n_sites + 1 entries */
    size_t n_sites;
    /* one site's rows as ps_site_model_train takes them (ps_site_rows_site) */
    double *sx;
    int8_t *sy;
    uint32_t *sp, *sch;
    int32_t *spar;
    const char **spath;
    uint64_t *stext;
};

static int cmp_site_row(const void *a, const void *b)
{
    const site_row *x = a, *y = b;
    int c = strcmp(x->site, y->site);
    if (!c)
        c = strcmp(x->page, y->page);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The order-free key of a comma list of block tags (ps_block_tags_key). */
static uint64_t tags_key(const char *list)
{
    char *copy = strdup(list);
    const char **names = copy ? ps_split_list(copy) : NULL;
    uint64_t key = names ? ps_block_tags_key(names) : 0;
    free(names);
    free(copy);
    return key;
}

static int grow(ps_site_rows *r, ps_error *err)
{
    if (r->n < r->cap)
        return 0;
    size_t cap = r->cap ? r->cap * 2 : 1024;
    site_row *nr = realloc(r->rows, cap * sizeof *nr);
    if (nr)
        r->rows = nr;
    double *nx = realloc(r->x, cap * r->nf * sizeof *nx + 1);
    if (nx)
        r->x = nx;
    int8_t *ny = realloc(r->y, cap);
    if (ny)
        r->y = ny;
    if (!nr || !nx || !ny)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    r->cap = cap;
    return 0;
}

/* The rows of one CSV appended; 0 or -1 with err. */
static int read_csv(ps_site_rows *r, const char *file, const char **fn, const char *base_tags, uint64_t base_key,
                    const char *site_of, ps_error *err)
{
    ps_csv *csv = ps_csv_open(file, err);
    if (!csv)
        return -1;
    const size_t nf = r->nf;
    int rc = 0;
    int c_label = ps_csv_require(csv, "label", err), c_page = ps_csv_require(csv, "page_id", err);
    int c_set = ps_csv_column(csv, "dataset"), c_site = ps_csv_column(csv, "site"), c_url = ps_csv_column(csv, "url"),
        c_path = ps_csv_column(csv, "block_path"), c_len = ps_csv_column(csv, "inner_len"),
        c_tags = ps_csv_column(csv, "block_tags"), c_text = ps_csv_column(csv, "text");
    int *cols = malloc(nf * sizeof *cols + 1);
    size_t k = 0;
    while (cols && c_label >= 0 && c_page >= 0 && k < nf && (cols[k] = ps_csv_require(csv, fn[k], err)) >= 0)
        k++;
    if (k < nf || c_label < 0 || c_page < 0) { /* err says which column, but when out of memory */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", cols ? err->msg : "out of memory");
        rc = ps_set_error(err, cols ? PS_ERR_USAGE : PS_ERR_NOMEM,
                          "%s (a site model takes the base model's %zu features: write the rows with "
                          "pagesift-features -x or pagesift-annotate -x)",
                          why, nf);
        goto out;
    }
    if (!site_of && c_site < 0 && c_url < 0) {
        rc = ps_set_error(err, PS_ERR_USAGE, "%s: no 'site' or 'url' column: say the site with --site-of URL_OR_HOST",
                          ps_csv_path(csv));
        goto out;
    }
    int more;
    while ((more = ps_csv_next(csv, err)) == 1) {
        const char *label = ps_csv_field(csv, (size_t)c_label);
        if (!*label) {
            r->unlabelled++;
            if (c_path < 0 || c_len < 0)
                continue;
        }
        if (*label && strcmp(label, "0") != 0 && strcmp(label, "1") != 0) {
            rc = ps_set_error(err, PS_ERR_USAGE, "%s:%zu: label '%.40s' is not 1, 0 or empty", ps_csv_path(csv),
                              ps_csv_line(csv), label);
            goto out;
        }
        /* a site model keeps the base's block tags: rows cut with others
         * would teach it blocks pagesift never makes for it */
        const char *rt = c_tags >= 0 ? ps_csv_field(csv, (size_t)c_tags) : "";
        if (*label && *rt && tags_key(rt) != base_key) {
            /* the base's tags whole, once: the advice is a command to run
             * (the shipped model's list alone is 121 characters) */
            rc = ps_set_error(err, PS_ERR_USAGE,
                              "%.60s:%zu: the row was cut with block tags '%.40s', not the base model's "
                              "(a site model keeps them): cut the rows with -b %.240s (pagesift-features, "
                              "pagesift-annotate)",
                              ps_csv_path(csv), ps_csv_line(csv), rt, base_tags);
            goto out;
        }
        if ((rc = grow(r, err)) != 0)
            goto out;
        const size_t n = r->n;
        for (size_t k = 0; k < nf; k++)
            if ((rc = ps_csv_number(csv, (size_t)cols[k], &r->x[n * nf + k], err)) < 0)
                goto out;
        char key[1024];
        if (site_of) {
            snprintf(key, sizeof key, "%s", site_of);
        } else {
            ps_input in = {0};
            in.url = c_url >= 0 ? (char *)ps_csv_field(csv, (size_t)c_url) : NULL;
            in.site = c_site >= 0 ? (char *)ps_csv_field(csv, (size_t)c_site) : NULL;
            ps_input_site(&in, PS_SITE_HOST, key, sizeof key);
            if (!key[0] && !*label)
                continue; /* an unlabelled row of a page of no site (a workspace's
                           * page nobody labelled): no site's context, not kept */
            if (!key[0]) {
                rc = ps_set_error(err, PS_ERR_USAGE,
                                  "%s:%zu: the row has no site (empty url and site): say it with --site-of "
                                  "URL_OR_HOST",
                                  ps_csv_path(csv), ps_csv_line(csv));
                goto out;
            }
        }
        uint32_t len = 0;
        if (c_len >= 0 && (rc = ps_csv_count(csv, (size_t)c_len, &len, err)) < 0)
            goto out;
        ps_buf pk = {0};
        ps_buf_printf(&pk, "%s\x1f%s", c_set >= 0 ? ps_csv_field(csv, (size_t)c_set) : "",
                      ps_csv_field(csv, (size_t)c_page));
        site_row *row = &r->rows[n];
        row->site = strdup(key);
        row->page = ps_buf_take(&pk, NULL);
        row->path = strdup(c_path >= 0 ? ps_csv_field(csv, (size_t)c_path) : "");
        row->chars = len;
        row->text = 0;
        if (c_text >= 0) {
            const char *tx = ps_csv_field(csv, (size_t)c_text);
            row->text = ps_site_text_hash(tx, strlen(tx));
        }
        row->at = n;
        r->y[n] = !*label ? -1 : label[0] == '1';
        r->n++;
        if (!row->site || !row->page || !row->path) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        r->labelled += r->y[n] >= 0;
    }
    if (more < 0)
        rc = -1;
out:
    free(cols);
    ps_csv_close(csv);
    return rc;
}

ps_site_rows *ps_site_rows_read(char *const *files, size_t n_files, const ps_model *base, const char *site_of,
                                ps_error *err)
{
    ps_site_rows *r = calloc(1, sizeof *r);
    const char *base_tags = ps_model_info(base, "block_tags") ? ps_model_info(base, "block_tags") : "body,section,div";
    const uint64_t base_key = tags_key(base_tags);
    char *names = strdup(ps_model_feature_names(base));
    const char **fn = names ? ps_split_list(names) : NULL;
    size_t n = 0;
    int rc = 0;
    if (!r || !fn) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    r->nf = ps_model_n_features(base);
    for (size_t f = 0; !rc && f < n_files; f++)
        rc = read_csv(r, files[f], fn, base_tags, base_key, site_of, err);
    if (!rc && r->labelled == 0)
        rc = ps_set_error(err, PS_ERR_USAGE, "no labelled rows (%zu unlabelled)", r->unlabelled);
    if (rc)
        goto out;
    /* by site, then page, rows of a page in CSV order; each site's first row */
    qsort(r->rows, r->n, sizeof *r->rows, cmp_site_row);
    r->start = malloc((r->n + 1) * sizeof *r->start);
    n = r->n + 1;
    r->sx = malloc(n * r->nf * sizeof *r->sx);
    r->sy = malloc(n);
    r->sp = malloc(n * sizeof *r->sp);
    r->sch = malloc(n * sizeof *r->sch);
    r->spar = malloc(n * sizeof *r->spar);
    r->spath = malloc(n * sizeof *r->spath);
    r->stext = malloc(n * sizeof *r->stext);
    if (!r->start || !r->sx || !r->sy || !r->sp || !r->sch || !r->spar || !r->spath || !r->stext) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < r->n; i++)
        if (i == 0 || strcmp(r->rows[i].site, r->rows[i - 1].site) != 0)
            r->start[r->n_sites++] = i;
    r->start[r->n_sites] = r->n;
out:
    free(fn);
    free(names);
    if (rc) {
        ps_site_rows_free(r);
        return NULL;
    }
    return r;
}

size_t ps_site_rows_sites(const ps_site_rows *r)
{
    return r ? r->n_sites : 0;
}

void ps_site_rows_counts(const ps_site_rows *r, size_t *labelled, size_t *unlabelled)
{
    if (labelled)
        *labelled = r ? r->labelled : 0;
    if (unlabelled)
        *unlabelled = r ? r->unlabelled : 0;
}

const char *ps_site_rows_site(ps_site_rows *r, size_t s, ps_site_rows_view *v, ps_site_train_options *o)
{
    if (!r || s >= r->n_sites)
        return NULL;
    const size_t i = r->start[s], end = r->start[s + 1], nf = r->nf;
    const site_row *rows = r->rows;
    size_t m = 0, lab = 0, page_start = 0;
    uint32_t pg = 0;
    for (size_t j = i; j < end; j++, m++) {
        if (j > i && strcmp(rows[j].page, rows[j - 1].page) != 0)
            pg++, page_start = m;
        memcpy(r->sx + m * nf, r->x + rows[j].at * nf, nf * sizeof *r->sx);
        r->sy[m] = r->y[rows[j].at];
        r->sp[m] = pg;
        r->sch[m] = rows[j].chars;
        r->spath[m] = rows[j].path;
        r->stext[m] = rows[j].text;
        lab += r->sy[m] >= 0;
        /* the nearest enclosing row of the page, as pagesift-classify */
        r->spar[m] = ps_csv_row_parent(r->spath, r->spar, page_start, m, rows[j].path);
    }
    v->x = r->sx;
    v->y = r->sy;
    v->page = r->sp;
    v->n = m;
    v->labelled = lab;
    if (o) {
        o->parent = r->spar;
        o->chars = r->sch;
        o->path = r->spath;
        o->text_hash = r->stext;
    }
    return rows[i].site;
}

void ps_site_rows_free(ps_site_rows *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].site);
        free(r->rows[i].page);
        free(r->rows[i].path);
    }
    free(r->rows);
    free(r->x);
    free(r->y);
    free(r->start);
    free(r->sx);
    free(r->sy);
    free(r->sp);
    free(r->sch);
    free(r->spar);
    free(r->spath);
    free(r->stext);
    free(r);
}
