/* templates/builder.c — the batch algorithm of METHODS.md §1.1 for many
 * sites at once, streaming.
 *
 * Per site: a cache S of the current batch's leaves (tpl_set), the number of
 * pages in the batch, and the site's library.  For every leaf of a page: if
 * S holds an item with the same tag name and a similar text its frequency
 * goes up (once per page by default — the "reading" of METHODS.md; every
 * occurrence with count_occurrences, the paper's literal rule), else the
 * leaf becomes a new item with frequency 1.  After N1 pages every item with
 * frequency >= N2 is merged into the library (an entry similar to it gets
 * the frequency added, else it becomes a new entry) and S is emptied.
 * End of input ends the last batch the same way (flush_batch), so a site of
 * fewer than N1 pages still gets a library.
 * Memory: the batch caches and the entries; pages are not kept.
 * Time: ps_template_builder_set_time_limit bounds one add (issue 32: eight
 * thousand leaves of a dozen recurring words took 59 s to learn); the
 * leaves read before the limit count, the page is not (pages, batches). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "pagesift/page.h"
#include "templates/tpl_internal.h"

typedef struct site_state {
    tpl_set cache;
    ps_template_lib *lib;
    unsigned count;     /**< pages in the current batch */
    uint32_t stamp;     /**< id of the page being added (page frequency) */
} site_state;

struct ps_template_builder {
    ps_template_params p;
    site_state *sites;
    size_t n_sites, cap_sites;
    size_t *tab;        /**< open addressing: site index + 1, 0 empty */
    size_t tab_cap;
    uint64_t pages;
    uint32_t *cpbuf;    /**< scratch: code points, 3-grams, sort space (3 * cpcap) */
    size_t cpcap;
    double time_limit;  /**< seconds an add may take, 0: no limit */
};

void ps_template_builder_set_time_limit(ps_template_builder *b, double seconds)
{
    b->time_limit = seconds > 0 ? seconds : 0;
}

ps_template_builder *ps_template_builder_new(const ps_template_params *p)
{
    ps_template_params def;
    if (!p) {
        ps_template_params_default(&def);
        p = &def;
    }
    if (p->n1 == 0 || p->n2 == 0)
        return NULL;
    ps_template_builder *b = calloc(1, sizeof *b);
    if (b)
        b->p = *p;
    return b;
}

static uint64_t str_hash(const char *s)
{
    return ps_hash64(s, strlen(s));
}

static int tab_insert(ps_template_builder *b, size_t idx)
{
    if ((b->n_sites + 1) * 2 > b->tab_cap) {
        size_t ncap = b->tab_cap ? b->tab_cap * 2 : 64;
        size_t *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return -1;
        for (size_t i = 0; i < b->n_sites; i++) {
            size_t j = (size_t)str_hash(b->sites[i].lib->site) & (ncap - 1);
            while (nt[j])
                j = (j + 1) & (ncap - 1);
            nt[j] = i + 1;
        }
        free(b->tab);
        b->tab = nt;
        b->tab_cap = ncap;
    }
    size_t j = (size_t)str_hash(b->sites[idx].lib->site) & (b->tab_cap - 1);
    while (b->tab[j])
        j = (j + 1) & (b->tab_cap - 1);
    b->tab[j] = idx + 1;
    return 0;
}

static site_state *find_site(const ps_template_builder *b, const char *site)
{
    if (!b->tab_cap)
        return NULL;
    for (size_t j = (size_t)str_hash(site) & (b->tab_cap - 1); b->tab[j]; j = (j + 1) & (b->tab_cap - 1))
        if (strcmp(b->sites[b->tab[j] - 1].lib->site, site) == 0)
            return &b->sites[b->tab[j] - 1];
    return NULL;
}

/* Add a site with library @p lib (taken over). */
static site_state *add_site(ps_template_builder *b, ps_template_lib *lib)
{
    if (b->n_sites == b->cap_sites) {
        size_t ncap = b->cap_sites ? b->cap_sites * 2 : 16;
        site_state *ns = realloc(b->sites, ncap * sizeof *ns);
        if (!ns)
            return NULL;
        b->sites = ns;
        b->cap_sites = ncap;
    }
    site_state *st = &b->sites[b->n_sites];
    memset(st, 0, sizeof *st);
    tpl_set_init(&st->cache);
    st->lib = lib;
    if (tab_insert(b, b->n_sites) < 0)
        return NULL;
    b->n_sites++;
    return st;
}

static ps_template_lib *lib_new(const char *site, const ps_template_params *p)
{
    ps_template_lib *lib = calloc(1, sizeof *lib);
    if (!lib || !(lib->site = strdup(site))) {
        free(lib);
        return NULL;
    }
    lib->params = *p;
    tpl_set_init(&lib->set);
    return lib;
}

/* Merge a flushed batch item into a library (exact or similar entry gets
 *  the frequency, else a new entry). */
static int tpl_lib_merge(ps_template_lib *lib, tpl_query *q, uint32_t freq, uint32_t batches)
{
    unsigned d;
    long e = tpl_set_find(&lib->set, q, &d);
    if (e < 0) {
        e = tpl_set_add(&lib->set, q, freq);
        if (e < 0)
            return -1;
        lib->set.items[e].batches = batches;
        return 0;
    }
    lib->set.items[e].freq += freq;
    lib->set.items[e].batches += batches;
    return 0;
}

/* End the current batch of a site: items with frequency >= n2 become
 * entries; the cache is emptied. */
static int flush_batch(const ps_template_builder *b, site_state *st)
{
    if (st->count == 0)
        return 0;
    for (size_t i = 0; i < st->cache.n; i++) {
        if (st->cache.items[i].freq < b->p.n2)
            continue;
        tpl_query q;
        tpl_query_from_item(&st->cache, i, &q);
        if (tpl_lib_merge(st->lib, &q, st->cache.items[i].freq, 1) < 0)
            return -1;
    }
    st->lib->batches++;
    st->count = 0;
    /* give the memory back: with many sites, idle caches would otherwise
     * keep their largest size until the end */
    tpl_set_free(&st->cache);
    return 0;
}

int ps_template_builder_add(ps_template_builder *b, const char *site, const ps_page *page, ps_error *err)
{
    if (!site || !*site)
        return ps_set_error(err, PS_ERR_USAGE, "page without a site key (no URL host, no site given)");
    site_state *st = find_site(b, site);
    if (!st) {
        ps_template_lib *lib = lib_new(site, &b->p);
        if (!lib || !(st = add_site(b, lib))) {
            ps_template_lib_free(lib);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
    }
    size_t n;
    const ps_leaf *leaves = ps_page_leaves(page, &n);
    st->stamp++;
    const double deadline = b->time_limit > 0 ? ps_now() + b->time_limit : 0;
    for (size_t i = 0; i < n; i++) {
        const ps_leaf *l = &leaves[i];
        if (deadline > 0 && (i & 15) == 15 && ps_now() > deadline)
            return ps_set_error(err, PS_ERR_TIMEOUT,
                                "learning site templates from the page took longer than %g s "
                                "(%zu of its %zu leaves read)",
                                b->time_limit, i, n);
        if (l->chars == 0)
            continue;
        if (l->chars > b->cpcap) {
            size_t ncap = l->chars + 1024;
            uint32_t *nb = realloc(b->cpbuf, 3 * ncap * sizeof *nb);
            if (!nb)
                return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            b->cpbuf = nb;
            b->cpcap = ncap;
        }
        tpl_query q;
        tpl_query_init(&q, l->tag, l->text, l->bytes, l->chars, b->cpbuf);
        unsigned d;
        long k = tpl_set_find(&st->cache, &q, &d);
        if (k >= 0) {
            tpl_item *it = &st->cache.items[k];
            if (b->p.count_occurrences || it->stamp != st->stamp) {
                it->freq++;
                it->stamp = st->stamp;
            }
        } else {
            k = tpl_set_add(&st->cache, &q, 1);
            if (k < 0)
                return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            st->cache.items[k].stamp = st->stamp;
        }
    }
    st->lib->pages++;
    b->pages++;
    if (++st->count >= b->p.n1 && flush_batch(b, st) < 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

size_t ps_template_builder_sites(const ps_template_builder *b)
{
    return b->n_sites;
}

uint64_t ps_template_builder_pages(const ps_template_builder *b)
{
    return b->pages;
}

int ps_template_builder_load_dir(ps_template_builder *b, const char *dir, ps_error *err)
{
    ps_template_store *s = ps_template_store_open(dir, err);
    if (!s)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < ps_template_store_count(s); i++) {
        ps_template_lib *lib = (ps_template_lib *)ps_template_store_lib(s, i);
        if (lib->params.n1 != b->p.n1 || lib->params.n2 != b->p.n2 ||
            lib->params.count_occurrences != b->p.count_occurrences) {
            char fn[1024];
            ps_template_file_name(lib->site, fn, sizeof fn);
            rc = ps_set_error(err, PS_ERR_USAGE,
                              "%s/%s: built with n1=%u n2=%u count=%s; --update needs the same parameters",
                              dir, fn, lib->params.n1, lib->params.n2,
                              lib->params.count_occurrences ? "occurrences" : "pages");
            break;
        }
        if (find_site(b, lib->site))
            continue; /* pages already added for it: keep the builder's */
        ps_template_lib *copy = lib_new(lib->site, &b->p);
        site_state *st = copy ? add_site(b, copy) : NULL;
        if (!st) {
            ps_template_lib_free(copy);
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        copy->pages = lib->pages;
        copy->batches = lib->batches;
        for (size_t e = 0; e < lib->set.n; e++) {
            tpl_query q;
            tpl_query_from_item(&lib->set, e, &q);
            long k = tpl_set_add(&copy->set, &q, lib->set.items[e].freq);
            if (k < 0) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            copy->set.items[k].batches = lib->set.items[e].batches;
        }
        if (rc)
            break;
    }
    ps_template_store_free(s);
    return rc;
}

int ps_template_builder_write_dir(ps_template_builder *b, const char *dir, ps_error *err)
{
    if (tpl_mkdir_p(dir, err) < 0)
        return -1;
    for (size_t i = 0; i < b->n_sites; i++) {
        site_state *st = &b->sites[i];
        if (flush_batch(b, st) < 0)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        char fn[1024], path[4096];
        if (ps_template_file_name(st->lib->site, fn, sizeof fn) < 0)
            return ps_set_error(err, PS_ERR_USAGE, "site name too long: %.200s", st->lib->site);
        snprintf(path, sizeof path, "%s/%s", dir, fn);
        if (tpl_lib_write(st->lib, path, err) < 0)
            return -1;
    }
    return 0;
}

ps_template_store *ps_template_builder_finish(ps_template_builder *b)
{
    if (!b)
        return NULL;
    ps_template_lib **libs = malloc((b->n_sites + 1) * sizeof *libs);
    int ok = libs != NULL;
    for (size_t i = 0; ok && i < b->n_sites; i++)
        ok = flush_batch(b, &b->sites[i]) == 0;
    ps_template_store *s = NULL;
    if (ok) {
        for (size_t i = 0; i < b->n_sites; i++) {
            libs[i] = b->sites[i].lib;
            b->sites[i].lib = NULL;
        }
        s = tpl_store_from(libs, b->n_sites);
        if (!s) /* tpl_store_from frees the libraries on failure */
            for (size_t i = 0; i < b->n_sites; i++)
                b->sites[i].lib = NULL;
    }
    free(libs);
    ps_template_builder_free(b);
    return s;
}

void ps_template_builder_free(ps_template_builder *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n_sites; i++) {
        tpl_set_free(&b->sites[i].cache);
        ps_template_lib_free(b->sites[i].lib);
    }
    free(b->sites);
    free(b->tab);
    free(b->cpbuf);
    free(b);
}
