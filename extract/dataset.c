/* extract/dataset.c — read a data set folder in the ../shared/datasets
 * format: index.tsv with html/<id>.html and gold/<id>.txt. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "pagesift.h"

static char *join3(const char *a, const char *b, const char *c, const char *d)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s%s", a, b, c, d);
    return s;
}

void ps_dataset_free(ps_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_dataset_page *p = &ds->pages[i];
        free(p->id);
        free(p->url);
        free(p->site);
        free(p->lang);
        free(p->html_path);
        free(p->gold_path);
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
    char *data = path ? ps_read_file(path, 0, &len, err) : NULL;
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
    int col_id = -1, col_url = -1, col_site = -1, col_lang = -1;
    size_t cap = 0, lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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
        pg->html_path = join3(dir, "/html/", id, ".html");
        pg->gold_path = join3(dir, "/gold/", id, ".txt");
        if (!pg->id || !pg->url || !pg->site || !pg->lang || !pg->html_path || !pg->gold_path)
            goto nomem;
    }
    if (lineno == 0) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: empty file, no header", path);
        goto fail;
    }
    free(path);
    free(data);
    return ds;
nomem:
    ps_set_error(err, PS_ERR_NOMEM, "out of memory reading %s", path);
fail:
    free(path);
    free(data);
    ps_dataset_free(ds);
    return NULL;
}
