/* extract/dataset.c — read a data set folder in the ../shared/datasets
 * format: index.tsv with html/<id>.html and either gold/<id>.txt (a gold
 * set) or evaldata.json (a snippet set: per page the text that must and
 * must not be in the main text, the trafilatura-eval layout); and the site
 * folds that filter a set's pages for cross-validation grouped by site. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/dataset.h"

static char *join3(const char *a, const char *b, const char *c, const char *d)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s%s", a, b, c, d);
    return s;
}

/* <dir>/html/<id>.html, or <dir>/html/<id>.html.gz where only that exists
 * (a set kept compressed, as wcxb-dev is; every reader of html_path takes
 * both: ps_read_page_file). */
static char *page_path(const char *dir, const char *id)
{
    char *plain = join3(dir, "/html/", id, ".html");
    struct stat st;
    if (!plain || stat(plain, &st) == 0)
        return plain;
    char *gz = join3(dir, "/html/", id, ".html.gz");
    if (gz && stat(gz, &st) == 0) {
        free(plain);
        return gz;
    }
    free(gz);
    return plain; /* neither: the error names the plain name */
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void snippets_free(ps_snippets *s)
{
    if (!s)
        return;
    strv_free(s->with, s->n_with);
    strv_free(s->without, s->n_without);
    free(s);
}

/* The strings of a JSON array into *v / *n; -1 when it is not an array of
 * strings (or out of memory: *oom set). */
static int strv_from_json(json_t *a, char ***v, size_t *n, int *oom)
{
    if (!json_is_array(a))
        return -1;
    size_t k = json_array_size(a);
    *v = calloc(k + 1, sizeof **v);
    if (!*v)
        return *oom = 1, -1;
    for (size_t i = 0; i < k; i++) {
        const char *t = json_string_value(json_array_get(a, i));
        if (!t)
            return -1;
        if (!((*v)[i] = strdup(t)))
            return *oom = 1, -1;
        *n = i + 1;
    }
    return 0;
}

/* <dir>/evaldata.json: the snippets of every page of the index. */
static int load_snippets(ps_dataset *ds, const char *path, ps_error *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return ps_set_error(err, PS_ERR_FORMAT, "%s:%d: %s", path, je.line, je.text);
    int rc = -1, oom = 0;
    if (!json_is_object(root)) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: not a JSON object {id: {url, with, without}}", path);
        goto done;
    }
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_dataset_page *p = &ds->pages[i];
        json_t *e = json_object_get(root, p->id);
        if (!json_is_object(e)) {
            ps_set_error(err, PS_ERR_FORMAT, "%s: no entry for page '%s' of the index", path, p->id);
            goto done;
        }
        if (!(p->snippets = calloc(1, sizeof *p->snippets))) {
            oom = 1;
            goto done;
        }
        if (strv_from_json(json_object_get(e, "with"), &p->snippets->with, &p->snippets->n_with,
                           &oom) < 0 ||
            strv_from_json(json_object_get(e, "without"), &p->snippets->without,
                           &p->snippets->n_without, &oom) < 0) {
            if (!oom)
                ps_set_error(err, PS_ERR_FORMAT,
                             "%s: page '%s': \"with\" and \"without\" must be arrays of strings",
                             path, p->id);
            goto done;
        }
    }
    ds->snippet_set = 1;
    rc = 0;
done:
    if (oom)
        ps_set_error(err, PS_ERR_NOMEM, "out of memory reading %s", path);
    json_decref(root);
    return rc;
}

/* What one page row owns. */
static void page_free_fields(ps_dataset_page *p)
{
    free(p->id);
    free(p->url);
    free(p->site);
    free(p->lang);
    free(p->page_type);
    free(p->html_path);
    free(p->gold_path);
    snippets_free(p->snippets);
}

void ps_dataset_free(ps_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_dataset_page *p = &ds->pages[i];
        page_free_fields(p);
    }
    free(ds->pages);
    free(ds->dir);
    free(ds->name);
    free(ds);
}

ps_dataset *ps_dataset_load(const char *dir, ps_error *err)
{
    char *path = join3(dir, "/index.tsv", "", "");
    size_t len;
    char *data = path ? ps_read_regular_file(path, 0, NULL, &len, err) : NULL;
    ps_dataset *ds = data ? calloc(1, sizeof *ds) : NULL;
    if (!ds) {
        if (data || !path)
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        free(path);
        free(data);
        return NULL;
    }
    ds->dir = strdup(dir);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    size_t b = dl;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    ds->name = strndup(dir + b, dl - b);
    int col_id = -1, col_url = -1, col_site = -1, col_lang = -1, col_type = -1;
    size_t cap = 0, lineno = 0;
    /* a UTF-8 byte order mark (a table saved by a spreadsheet) is not part
     * of the first column's name; blank lines count in the line numbers */
    char *end = data + len, *next = data + (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0);
    while (next < end) {
        char *line = next, *nl = memchr(line, '\n', (size_t)(end - line));
        next = nl ? nl + 1 : end;
        if (nl)
            *nl = '\0';
        lineno++;
        size_t ll = strlen(line);
        if (ll && line[ll - 1] == '\r')
            line[--ll] = '\0';
        char *fields[32];
        int nf = 0;
        for (char *p = line;;) {
            char *tab = strchr(p, '\t');
            if (nf < 32)
                fields[nf++] = p;
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        if (lineno == 1) {
            for (int i = 0; i < nf; i++) {
                if (!strcmp(fields[i], "id")) col_id = i;
                else if (!strcmp(fields[i], "url")) col_url = i;
                else if (!strcmp(fields[i], "site")) col_site = i;
                else if (!strcmp(fields[i], "lang")) col_lang = i;
                else if (!strcmp(fields[i], "page_type")) col_type = i;
            }
            if (col_id < 0) {
                ps_set_error(err, PS_ERR_FORMAT, "%s:1: no 'id' column in the header", path);
                goto fail;
            }
            continue;
        }
        if (ll == 0)
            continue;
        if (col_id >= nf || !*fields[col_id]) {
            ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: row without an id", path, lineno);
            goto fail;
        }
        if (ds->n_pages == cap) {
            cap = cap ? cap * 2 : 256;
            ps_dataset_page *np = realloc(ds->pages, cap * sizeof *np);
            if (!np)
                goto nomem;
            ds->pages = np;
        }
        ps_dataset_page *pg = &ds->pages[ds->n_pages];
        memset(pg, 0, sizeof *pg);
        ds->n_pages++;
        const char *id = fields[col_id];
        pg->id = strdup(id);
        pg->url = strdup(col_url >= 0 && col_url < nf ? fields[col_url] : "");
        pg->site = strdup(col_site >= 0 && col_site < nf ? fields[col_site] : "");
        pg->lang = strdup(col_lang >= 0 && col_lang < nf ? fields[col_lang] : "");
        pg->page_type = strdup(col_type >= 0 && col_type < nf ? fields[col_type] : "");
        pg->html_path = page_path(dir, id);
        pg->gold_path = join3(dir, "/gold/", id, ".txt");
        if (!pg->id || !pg->url || !pg->site || !pg->lang || !pg->page_type || !pg->html_path ||
            !pg->gold_path)
            goto nomem;
    }
    if (lineno == 0) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: empty file, no header", path);
        goto fail;
    }
    {
        char *ev = join3(dir, "/evaldata.json", "", "");
        struct stat st;
        if (!ev)
            goto nomem;
        int have = stat(ev, &st) == 0;
        int r = have ? load_snippets(ds, ev, err) : 0;
        free(ev);
        if (r < 0)
            goto fail_quiet;
    }
    free(path);
    free(data);
    return ds;
nomem:
    ps_set_error(err, PS_ERR_NOMEM, "out of memory reading %s", path);
fail:
fail_quiet:
    free(path);
    free(data);
    ps_dataset_free(ds);
    return NULL;
}

/* ---- site folds ---------------------------------------------------------- */

int ps_fold_parse(const char *spec, ps_fold *f, ps_error *err)
{
    char *end;
    errno = 0;
    long k = strtol(spec, &end, 10);
    long n = 0;
    if (!errno && end != spec && *end == '/') {
        const char *s2 = end + 1;
        n = strtol(s2, &end, 10);
        if (end == s2 || *end)
            n = 0;
    }
    if (errno || n < 1 || n > 1000 || k < 1 || k > n)
        return ps_set_error(err, PS_ERR_USAGE, "'%s' is not a fold K/N (1 <= K <= N <= 1000)", spec);
    f->k = (unsigned)k;
    f->n = (unsigned)n;
    return 0;
}

unsigned ps_dataset_page_fold(const ps_dataset_page *p, unsigned n)
{
    const char *key = p->site && *p->site ? p->site : p->id;
    /* FNV-1a, 64 bits, the standard offset basis (0xcbf29ce484222325; docs/INPUTS.md
     * gives it: other tools may recompute it) */
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 1099511628211ULL;
    return n ? (unsigned)(h % n) + 1 : 1;
}

size_t ps_dataset_filter(ps_dataset *ds, const ps_fold *f)
{
    if (!f || f->n == 0)
        return ds->n_pages;
    size_t kept = 0;
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_dataset_page *p = &ds->pages[i];
        int in = ps_dataset_page_fold(p, f->n) == f->k;
        if (in != !!f->complement) {
            ds->pages[kept++] = *p;
            continue;
        }
        page_free_fields(p);
    }
    ds->n_pages = kept;
    return kept;
}
