/* eval/per_site.c — the --per-site protocol of pagesift-eval: before a
 * method runs over a data set, template libraries are learnt from its pages
 * (unlabelled: only the pages, never the gold, as a batch run over a crawl
 * would) by the learn pass of `pagesift --learn-templates`
 * (batch/learn_pass.c: the pages in index order, the builder's default
 * parameters), written to a temporary folder and given to
 * the method as its templates_dir.  Which libraries are applied is the one
 * rule of training and inference, ps_template_applies (sites of >=
 * PS_TEMPLATE_MIN_PAGES pages); the pages of smaller sites are not parsed
 * for it, as their libraries would not apply.  An N of --per-site N above
 * that is an experiment override, like template-svm's min_pages: the pages
 * of sites with fewer than N pages are left out of the learning, so those
 * sites get no library.  N <= PS_TEMPLATE_MIN_PAGES is the rule itself. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eval/per_site.h"
#include "batch/batch.h"

void ps_eval_site_of(const ps_dataset_page *p, char *out, size_t cap)
{
    ps_input in = {0};
    in.url = p->url;
    in.site = p->site;
    ps_input_site(&in, PS_SITE_HOST, out, cap); /* the rule of every tool */
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The data set's pages as the learn pass's inputs, in index order; pages
 * left out (learn[i] == 0) are not handed out. */
typedef struct learn_src {
    const ps_dataset *ds;
    const uint8_t *learn;
    size_t next;
} learn_src;

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

static int learn_read(void *ctx, ps_input *in, ps_error *err)
{
    learn_src *s = ctx;
    while (s->next < s->ds->n_pages && !s->learn[s->next])
        s->next++;
    if (s->next >= s->ds->n_pages)
        return 0;
    const ps_dataset_page *p = &s->ds->pages[s->next++];
    memset(in, 0, sizeof *in);
    in->id = strdup(p->id);
    in->url = strdup(p->url ? p->url : "");
    in->site = dup_or_null(p->site);
    if (!in->id || !in->url || (p->site && *p->site && !in->site)) {
        ps_input_clear(in);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    ps_error e = {0};
    if (!(in->data = ps_read_page_file(p->html_path, 0, &in->len, &e)))
        in->status = e.code ? e.code : PS_ERR_IO; /* left out; the extraction run reports it */
    return 1;
}

int ps_eval_learn_templates(const ps_dataset *ds, unsigned min_pages, unsigned jobs, char *dir,
                            size_t cap, size_t *n_sites, double *seconds, ps_error *err)
{
    double t0 = ps_clock(PS_CLOCK_WALL);
    *n_sites = 0;
    size_t n = ds->n_pages;
    unsigned applies = min_pages > PS_TEMPLATE_MIN_PAGES ? min_pages : PS_TEMPLATE_MIN_PAGES;
    char (*key)[512] = calloc(n + 1, sizeof *key);
    char **sorted = calloc(n + 1, sizeof *sorted);
    uint8_t *learn = calloc(n + 1, 1);
    ps_template_builder *b = ps_template_builder_new(NULL);
    if (!key || !sorted || !learn || !b) {
        free(key);
        free(sorted);
        free(learn);
        ps_template_builder_free(b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    /* pages per site: the sites whose library will apply, and the pages the
     * override leaves out */
    for (size_t i = 0; i < n; i++) {
        ps_eval_site_of(&ds->pages[i], key[i], sizeof key[i]);
        sorted[i] = key[i];
    }
    qsort(sorted, n, sizeof *sorted, cmp_key);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(sorted[j], sorted[i]) == 0)
            j++;
        *n_sites += sorted[i][0] && j - i >= applies;
        i = j;
    }
    for (size_t i = 0; i < n; i++) {
        if (!key[i][0])
            continue;
        char *k = key[i], **hit = bsearch(&k, sorted, n, sizeof *sorted, cmp_key);
        size_t cnt = 0;
        while (hit > sorted && strcmp(hit[-1], k) == 0)
            hit--;
        while (hit + cnt < sorted + n && strcmp(hit[cnt], k) == 0)
            cnt++;
        learn[i] = cnt >= applies; /* a smaller site's library would not apply */
    }
    learn_src src = {.ds = ds, .learn = learn};
    ps_batch_config bc = {0};
    bc.site_rule = PS_SITE_HOST;
    bc.workers = jobs ? jobs : 1;
    bc.quiet = 1;
    int rc = ps_batch_learn_templates(&bc, learn_read, &src, b, NULL, err);
    if (rc == 0) {
        snprintf(dir, cap, "%s/pagesift-eval-templates-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(dir))
            rc = ps_set_error(err, PS_ERR_IO, "cannot create a temporary folder %s", dir);
    }
    if (rc == 0)
        rc = ps_template_builder_write_dir(b, dir, err);
    ps_template_builder_free(b);
    free(key);
    free(sorted);
    free(learn);
    *seconds = ps_clock(PS_CLOCK_WALL) - t0;
    return rc == 0 ? 0 : -1;
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
