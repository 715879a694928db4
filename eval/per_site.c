/* eval/per_site.c — the --per-site protocol of pagesift-eval: before a
 * method runs over a data set, template libraries are learnt from the pages
 * of every site with at least N pages in the set (unlabelled: only the
 * pages, never the gold, as a real batch run over a crawl would), with the
 * templates developer's builder and its default parameters (n1 = 10, n2 = 3,
 * guarded rules), written to a temporary folder and given to the method as
 * its templates_dir.  Sites with fewer pages get no library. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eval/per_site.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void ps_eval_site_of(const ps_dataset_page *p, char *out, size_t cap)
{
    ps_input in = {0};
    in.url = p->url;
    in.site = p->site;
    ps_input_site(&in, PS_SITE_HOST, out, cap); /* the rule of every tool */
}

int ps_eval_learn_templates(const ps_dataset *ds, unsigned min_pages, char *dir, size_t cap,
                            size_t *n_sites, double *seconds, ps_error *err)
{
    double t0 = ps_clock(PS_CLOCK_WALL);
    *n_sites = 0;
    size_t n = ds->n_pages;
    char **site = calloc(n + 1, sizeof *site), **sorted = calloc(n + 1, sizeof *sorted);
    ps_template_builder *b = ps_template_builder_new(NULL);
    if (!site || !sorted || !b) {
        free(site);
        free(sorted);
        ps_template_builder_free(b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char key[512];
        ps_eval_site_of(&ds->pages[i], key, sizeof key);
        site[i] = strdup(key);
        sorted[i] = site[i];
        if (!site[i])
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    if (rc == 0)
        qsort(sorted, n, sizeof *sorted, cmp_str);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!*site[i])
            continue;
        /* pages of this site: the run of equal keys in sorted */
        char **lo = bsearch(&site[i], sorted, n, sizeof *sorted, cmp_str);
        while (lo > sorted && strcmp(lo[-1], site[i]) == 0)
            lo--;
        size_t cnt = 0;
        while (lo + cnt < sorted + n && strcmp(lo[cnt], site[i]) == 0)
            cnt++;
        if (cnt < min_pages)
            continue;
        ps_page_options po = {0};
        po.url = ds->pages[i].url;
        ps_error e2 = {0};
        ps_page *pg = ps_page_load_file(ds->pages[i].html_path, &po, &e2);
        if (!pg)
            continue; /* the extraction run reports it */
        rc = ps_template_builder_add(b, site[i], pg, err);
        ps_page_free(pg);
    }
    *n_sites = ps_template_builder_sites(b);
    if (rc == 0) {
        snprintf(dir, cap, "%s/pagesift-eval-templates-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(dir))
            rc = ps_set_error(err, PS_ERR_IO, "cannot create a temporary folder %s", dir);
    }
    if (rc == 0)
        rc = ps_template_builder_write_dir(b, dir, err);
    ps_template_builder_free(b);
    for (size_t i = 0; i < n; i++)
        free(site[i]);
    free(site);
    free(sorted);
    *seconds = ps_clock(PS_CLOCK_WALL) - t0;
    return rc;
}

void ps_eval_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
