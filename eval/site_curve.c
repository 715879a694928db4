/* eval/site_curve.c — pagesift-eval --per-site-models: how much a site
 * gains per labelled page with a per-site model (docs/SITE_MODELS.md).
 *
 * Protocol, per data set (a gold set):
 *  - sites: the pages grouped by site key (ps_input_site's rule), in index
 *    order; a site is measured when it has >= min_pages pages (default 10);
 *  - labelled pages: the first K pages of the site's pool, its first Kmax
 *    pages in index order, taken in index order or (label order
 *    uncertainty) most uncertain first by the base model
 *    (ps_extraction_uncertainty: what pagesift-annotate offers to label
 *    next); blocks
 *    labelled from their gold as pagesift-features does (own text >= 1
 *    character, gold share >= 0.5 = content), after the site's template
 *    library when the method uses templates;
 *  - scored pages: the site's pages after its first Kmax, Kmax the largest K
 *    of the curve that leaves >= 5 pages: the same pages for every K of a
 *    site, never among any K's labelled pages; a K above Kmax is not
 *    measured for that site (n/a);
 *  - K = 0 is the base model alone (--model, or the shipped one), K > 0 the
 *    site model trained from the base and the K pages (ps_site_model_train,
 *    default weights and CV), saved into a temporary folder given to the
 *    method as its site models;
 *  - templates (template-svm): learnt per site from all the set's pages
 *    (pages only, never the gold), the --per-site protocol, once, for the
 *    labelled rows and every run.
 * Site models are trained as pagesift-train --per-site trains them: judged
 * through the base's second stage when the base is stacked, and declined
 * (the site keeps the base) where they do not beat it in CV over the K
 * pages or, with K = 1, on the page itself.
 * Figures: token F1 (4-gram shingles, page-averaged, the eval's main
 * figure) per site and K, the mean over the sites measured at K, the mean
 * gain over K = 0 at each K on the same sites, how many sites it hurts (by
 * more than 0.0005), the worst site's loss and the site models declined. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "eval/per_site.h"
#include "eval/run.h"
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"
#include "pagesift/site_models.h"
#include "pagesift/templates.h"
#include "pagesift/train.h"

#define SCORED_MIN 5

typedef struct site_info {
    char key[512];
    size_t *pages; /* indices into ds, index order */
    size_t n;
    unsigned kmax; /* largest K measured */
    /* labelled rows of the first kmax pages */
    double *x;
    int8_t *y;
    uint32_t *page; /* 0..kmax-1 */
    int32_t *parent; /* each row's nearest enclosing row (the context features') */
    char **path;     /* each row's block path (the site model's block paths) */
    uint32_t *chars; /* its own characters */
    uint64_t *text;  /* ps_site_text_hash of its own text (leaves joined by spaces) */
    size_t rows;
    size_t *rows_upto; /* rows of the first k pages: rows_upto[k] */
    double f1[16];     /* per K, NAN when not measured */
} site_info;

typedef struct key_idx {
    const char *key;
    size_t i;
} key_idx;

static int cmp_key_idx(const void *a, const void *b)
{
    const key_idx *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* One page of the set through the page step up to the method (the one
 * site rule, the site's library when it applies), as pagesift-features
 * made the rows; its site key into key.  NULL with err. */
static ps_page *prepared_page(const ps_dataset_page *dp, const char *const *tags, const ps_template_store *tpl,
                              char *key, size_t key_cap, ps_error *err)
{
    size_t len = 0;
    char *html = ps_read_page_file(dp->html_path, 0, &len, err);
    if (!html)
        return NULL;
    ps_input in = {.data = html, .len = len, .url = dp->url, .site = dp->site};
    ps_page *pg = NULL;
    int ready = ps_prepare_input(&in, tags, tpl, NULL, key, key_cap, &pg, NULL, err);
    free(html);
    return ready < 0 ? NULL : pg;
}

/* Labelled rows of one page into s (page number p). */
static int page_rows(const ps_dataset_page *dp, const ps_model *base, const char *const *tags,
                     const ps_template_store *tpl, uint32_t p, site_info *s, ps_error *err)
{
    size_t glen = 0;
    char *gold = ps_read_regular_file(dp->gold_path, 0, NULL, &glen, err);
    if (!gold)
        return -1;
    char key[512];
    ps_page *pg = prepared_page(dp, tags, tpl, key, sizeof key, err);
    if (!pg) {
        free(gold);
        return -1;
    }
    size_t nb, nf = ps_model_n_features(base);
    const ps_block *blocks = ps_page_blocks(pg, &nb);
    double *x = malloc((nb * nf + 1) * sizeof *x), *share = malloc((nb + 1) * sizeof *share);
    int rc = 0;
    if (!x || !share || ps_page_block_features(pg, ps_model_feature_ids(base), nf, x) != 0 ||
        ps_page_gold_alignment(pg, gold, glen, NULL, share) != 0) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    size_t add = 0;
    for (size_t b = 0; b < nb; b++)
        add += blocks[b].own.text_chars >= 1;
    double *nx = realloc(s->x, (s->rows + add + 1) * nf * sizeof *nx);
    if (nx)
        s->x = nx;
    int8_t *ny = realloc(s->y, s->rows + add + 1);
    if (ny)
        s->y = ny;
    uint32_t *np = realloc(s->page, (s->rows + add + 1) * sizeof *np);
    if (np)
        s->page = np;
    int32_t *npar = realloc(s->parent, (s->rows + add + 1) * sizeof *npar);
    if (npar)
        s->parent = npar;
    uint32_t *nc = realloc(s->chars, (s->rows + add + 1) * sizeof *nc);
    if (nc)
        s->chars = nc;
    uint64_t *nt = realloc(s->text, (s->rows + add + 1) * sizeof *nt);
    if (nt)
        s->text = nt;
    char **npath = realloc(s->path, (s->rows + add + 1) * sizeof *npath);
    if (npath)
        s->path = npath;
    int32_t *item = malloc((nb + 1) * sizeof *item); /* block -> row, -1 */
    /* each block's own text hashed as pagesift-train hashes the block CSV's
     * text column (ps_site_text_hash: the leaves not removed, joined by
     * spaces; the CSV cuts it at 200 characters, which the paths' check,
     * comparing the lengths too, does not need for the short lines it is
     * for) */
    uint64_t *text = calloc(nb + 1, sizeof *text);
    if (!nx || !ny || !np || !npar || !nc || !nt || !npath || !item || !text) {
        free(item);
        free(text);
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    size_t nl;
    const ps_leaf *leaves = ps_page_leaves(pg, &nl);
    for (size_t i = 0; i < nl; i++) {
        const ps_leaf *l = &leaves[i];
        if (l->removed || l->block < 0 || (size_t)l->block >= nb)
            continue;
        uint64_t *h = &text[l->block];
        *h = *h ? ps_hash64_update(ps_hash64_update(*h, " ", 1), l->text, l->bytes) : ps_hash64(l->text, l->bytes);
    }
    /* rows = the blocks the classifier scores, in document order; a row's
     * parent is its nearest enclosing row (methods/classifier_stack.c) */
    for (size_t b = 0; b < nb; b++) {
        item[b] = -1;
        if (blocks[b].own.text_chars < 1)
            continue;
        int32_t pb = blocks[b].parent;
        while (pb >= 0 && item[pb] < 0)
            pb = blocks[pb].parent;
        item[b] = (int32_t)s->rows;
        s->parent[s->rows] = pb >= 0 ? item[pb] : -1;
        s->chars[s->rows] = blocks[b].own.text_chars;
        s->text[s->rows] = text[b] ? text[b] : 1;
        if (!(s->path[s->rows] = strdup(blocks[b].path))) {
            free(item);
            free(text);
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto done;
        }
        memcpy(s->x + s->rows * nf, x + b * nf, nf * sizeof *x);
        s->y[s->rows] = share[b] >= PS_DEFAULT_LABEL_THRESHOLD;
        s->page[s->rows] = p;
        s->rows++;
    }
    free(item);
    free(text);
done:
    free(x);
    free(share);
    free(gold);
    ps_page_free(pg);
    return rc;
}

/* How unsure @p ex (the base, as the svm method) is about one page, after
 * the site's template library as page_rows prepares it. */
static int page_uncertainty(const ps_dataset_page *dp, const char *const *tags, const ps_template_store *tpl,
                            ps_extractor *ex, double *u, ps_error *err)
{
    char key[512];
    ps_page *pg = prepared_page(dp, tags, tpl, key, sizeof key, err);
    if (!pg)
        return -1;
    ps_extraction x = {0};
    int rc = ps_extract(ex, pg, key, &x, err);
    if (rc == 0)
        *u = ps_extraction_uncertainty(pg, &x);
    ps_extraction_free(&x);
    ps_page_free(pg);
    return rc;
}

typedef struct page_u {
    size_t page;
    double u;
} page_u;

static int cmp_page_u(const void *a, const void *b)
{
    const page_u *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? 1 : -1; /* most uncertain first */
    return (x->page > y->page) - (x->page < y->page);
}

/* Reorder the pool (the first kmax pages) of every site most uncertain
 * first; the scored pages after it stay as they are. */
static int order_by_uncertainty(const ps_dataset *ds, site_info *sites, size_t n_sites, const char *model_path,
                                const char *const *tags, const ps_template_store *tpl, ps_error *err)
{
    ps_extractor_config ec = {.model_path = model_path};
    ps_extractor *ex = ps_extractor_new("svm", &ec, err);
    if (!ex)
        return -1;
    int rc = 0;
    for (size_t si = 0; si < n_sites && rc == 0; si++) {
        site_info *s = &sites[si];
        page_u *pu = malloc((s->kmax + 1) * sizeof *pu);
        if (!pu) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        for (unsigned p = 0; p < s->kmax; p++) {
            pu[p].page = s->pages[p];
            pu[p].u = -1; /* a page that cannot be read goes last */
            ps_error e = {0};
            if (page_uncertainty(&ds->pages[s->pages[p]], tags, tpl, ex, &pu[p].u, &e) != 0) {
                if (e.code == PS_ERR_NOMEM) {
                    *err = e;
                    rc = -1;
                    break;
                }
                pu[p].u = -1;
            }
        }
        if (rc == 0) {
            qsort(pu, s->kmax, sizeof *pu, cmp_page_u);
            for (unsigned p = 0; p < s->kmax; p++)
                s->pages[p] = pu[p].page;
        }
        free(pu);
    }
    ps_extractor_free(ex);
    return rc;
}

static void print_f1(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " %7s", "n/a");
    else
        fprintf(f, " %7.3f", v);
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(round(v * 10000) / 10000);
}

int ps_eval_site_curve(const ps_eval_config *cfg0, const char *method, const ps_dataset *ds,
                       const unsigned *ks, size_t n_k, unsigned min_pages, int label_order, FILE *out,
                       json_t *json, ps_error *err)
{
    if (ds->snippet_set)
        return ps_set_error(err, PS_ERR_USAGE, "%s: --per-site-models needs a gold set (labels come from gold/)",
                            ds->name);
    if (n_k < 1 || n_k > 16)
        return ps_set_error(err, PS_ERR_USAGE, "1 to 16 values of K");
    int templates = strcmp(method, "template-svm") == 0;
    if (!templates && strcmp(method, "svm") != 0)
        return ps_set_error(err, PS_ERR_USAGE, "--per-site-models is for svm and template-svm, not %s", method);
    ps_eval_config cfg = *cfg0;
    const char *bp = cfg.model_path ? cfg.model_path : ps_model_default_path();
    ps_model *base = ps_model_load(bp, err);
    if (!base)
        return -1;
    /* a stacked base: site models are judged through its second stage, as
     * inference uses them (methods/classifier_site.c) */
    ps_model *second = ps_model_next_stage(base, err);
    if (!second && err->code) {
        ps_model_free(base);
        return -1;
    }
    /* the base's block tags, as the method parses pages */
    char *tags_buf = NULL;
    const char **tags = NULL;
    const char *bt = ps_model_info(base, "block_tags");
    if (bt && (!(tags_buf = strdup(bt)) || !(tags = ps_split_list(tags_buf)))) {
        free(tags_buf);
        ps_model_free(base);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    size_t n = ds->n_pages, n_sites = 0;
    key_idx *ki = calloc(n + 1, sizeof *ki);
    char (*keys)[512] = calloc(n + 1, sizeof *keys);
    site_info *sites = calloc(n + 1, sizeof *sites);
    ps_dataset sub = {.dir = ds->dir, .name = ds->name};
    sub.pages = calloc(n + 1, sizeof *sub.pages);
    int *site_of_sub = calloc(n + 1, sizeof *site_of_sub);
    char tdir[1024] = "", mdir[1024] = "";
    ps_template_store *tpl = NULL;
    ps_eval_run *runs = calloc(n_k, sizeof *runs);
    int rc = 0;
    if (!ki || !keys || !sites || !sub.pages || !site_of_sub || !runs) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        ps_eval_site_of(&ds->pages[i], keys[i], sizeof keys[i]);
        ki[i].key = keys[i];
        ki[i].i = i;
    }
    qsort(ki, n, sizeof *ki, cmp_key_idx);
    unsigned kbig = 0;
    for (size_t k = 0; k < n_k; k++)
        kbig = ks[k] > kbig ? ks[k] : kbig;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(ki[j].key, ki[i].key) == 0)
            j++;
        if (ki[i].key[0] && j - i >= min_pages && j - i >= SCORED_MIN + 1) {
            site_info *s = &sites[n_sites++];
            snprintf(s->key, sizeof s->key, "%s", ki[i].key);
            s->n = j - i;
            s->pages = malloc(s->n * sizeof *s->pages);
            if (!s->pages) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                goto out;
            }
            for (size_t t = i; t < j; t++)
                s->pages[t - i] = ki[t].i;
            for (size_t k = 0; k < n_k; k++)
                if (ks[k] <= s->n - SCORED_MIN && ks[k] > s->kmax)
                    s->kmax = ks[k];
            for (size_t t = s->kmax; t < s->n; t++) {
                site_of_sub[sub.n_pages] = (int)(s - sites);
                sub.pages[sub.n_pages++] = ds->pages[s->pages[t]];
            }
        }
        i = j;
    }
    if (!n_sites) {
        rc = ps_set_error(err, PS_ERR_USAGE, "%s: no site with >= %u pages (and >= %d to score)", ds->name,
                          min_pages, SCORED_MIN + 1);
        goto out;
    }
    /* templates once, from every page of the set */
    if (templates) {
        size_t t_sites;
        double t_secs;
        if (ps_eval_learn_templates(ds, cfg.per_site, cfg.jobs > 0 ? (unsigned)cfg.jobs : 1, tdir, sizeof tdir,
                                    &t_sites, &t_secs, err) < 0 ||
            !(tpl = ps_template_store_open(tdir, err))) {
            rc = -1;
            goto out;
        }
        cfg.templates_dir = tdir;
        cfg.per_site = 0;
    }
    if (label_order == PS_LABEL_ORDER_UNCERTAINTY &&
        order_by_uncertainty(ds, sites, n_sites, bp, tags, tpl, err) != 0) {
        rc = -1;
        goto out;
    }
    const char *order_name = label_order == PS_LABEL_ORDER_UNCERTAINTY ? "most uncertain first" : "index order";
    /* labelled rows of each site's first kmax pages (its pool, in label order) */
    for (size_t si = 0; si < n_sites; si++) {
        site_info *s = &sites[si];
        if (!(s->rows_upto = calloc(s->kmax + 1, sizeof *s->rows_upto))) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (unsigned p = 0; p < s->kmax; p++) {
            if (page_rows(&ds->pages[s->pages[p]], base, tags, tpl, p, s, err) != 0) {
                ps_print("%s/%s: labelled page left out: %s", ds->name,
                        ds->pages[s->pages[p]].id, err->msg);
                if (err->code == PS_ERR_NOMEM) {
                    rc = -1;
                    goto out;
                }
                memset(err, 0, sizeof *err);
            }
            s->rows_upto[p + 1] = s->rows;
        }
    }
    double train_secs = 0;
    size_t trained = 0, declined[16] = {0};
    for (size_t k = 0; k < n_k; k++) {
        ps_eval_config rcfg = cfg;
        char tag[64];
        snprintf(tag, sizeof tag, "%s+site-K%u", cfg.tag ? cfg.tag : "", ks[k]);
        rcfg.tag = tag;
        rcfg.quiet = 1;
        mdir[0] = '\0';
        if (ks[k] > 0) {
            const char *tmp = getenv("TMPDIR");
            snprintf(mdir, sizeof mdir, "%s/pagesift-site-models-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (!mkdtemp(mdir)) {
                rc = ps_set_error(err, PS_ERR_IO, "cannot create a temporary folder %s", mdir);
                mdir[0] = '\0';
                goto out;
            }
            const size_t trained_before = trained;
            for (size_t si = 0; si < n_sites; si++) {
                site_info *s = &sites[si];
                if (ks[k] > s->kmax)
                    continue;
                size_t r = s->rows_upto[ks[k]];
                ps_site_train_report rep = {0};
                ps_error e = {0};
                ps_site_train_options so = {.second = second, .parent = s->parent, .chars = s->chars,
                                            .path = (const char *const *)s->path, .text_hash = s->text};
                ps_model *sm = r ? ps_site_model_train(base, bp, s->key, s->x, s->y, s->page, r, &so, &rep, &e)
                                 : NULL;
                if (sm || rep.declined)
                    train_secs += rep.seconds;
                if (!sm && r && rep.declined)
                    declined[k]++;
                if (!sm && rep.declined) {
                    if (!cfg.quiet)
                        ps_print("K=%u: %s; the default scores it", ks[k], e.msg);
                } else if (!sm || ps_site_model_save(sm, mdir, &e) != 0)
                    ps_print("%s: K=%u: no site model (%s); the default scores it",
                            s->key, ks[k], r ? e.msg : "no labelled rows");
                else
                    trained++;
                ps_model_free(sm);
            }
            if (trained > trained_before) /* else every site keeps the base: no folder to read */
                rcfg.site_models_dir = mdir;
        }
        if (!cfg.quiet)
            ps_print("%s: per-site models K=%u: scoring %zu pages of %zu sites",
                    ds->name, ks[k], sub.n_pages, n_sites);
        if (ps_eval_run_method(&rcfg, method, &sub, &runs[k], err) < 0) {
            rc = -1;
            goto out;
        }
        if (mdir[0]) {
            ps_eval_remove_dir(mdir);
            mdir[0] = '\0';
        }
        for (size_t si = 0; si < n_sites; si++) {
            site_info *s = &sites[si];
            if (ks[k] > s->kmax) {
                s->f1[k] = NAN;
                continue;
            }
            ps_eval_acc *a = ps_eval_acc_new();
            for (size_t i = 0; a && i < sub.n_pages; i++)
                if (site_of_sub[i] == (int)si && !runs[k].skipped[i])
                    ps_eval_acc_add(a, &runs[k].scores[i]);
            ps_eval_summary sum = {0};
            if (a)
                ps_eval_acc_summary(a, &sum);
            ps_eval_acc_free(a);
            s->f1[k] = sum.sh4.f1;
        }
    }
    /* the figures: per site and K, the mean and the gain over K = 0 */
    double sum_f1[16] = {0}, sum_gain[16] = {0}, worst[16] = {0}; /* worst: the largest loss, >= 0 */
    size_t cnt[16] = {0}, hurt[16] = {0};
    size_t k0 = n_k;
    for (size_t k = 0; k < n_k; k++)
        if (ks[k] == 0)
            k0 = k;
    for (size_t si = 0; si < n_sites; si++)
        for (size_t k = 0; k < n_k; k++)
            if (!isnan(sites[si].f1[k])) {
                sum_f1[k] += sites[si].f1[k];
                cnt[k]++;
                if (k0 < n_k) {
                    double g = sites[si].f1[k] - sites[si].f1[k0];
                    sum_gain[k] += g;
                    hurt[k] += g < -0.0005;
                    worst[k] = -g > worst[k] ? -g : worst[k];
                }
            }
    if (json) {
        json_t *o = json_object(), *jk = json_array(), *js = json_array(), *jm = json_array(),
               *jg = json_array(), *jh = json_array(), *jn = json_array(), *jw = json_array(),
               *jd = json_array();
        json_object_set_new(o, "set", json_string(ds->name));
        json_object_set_new(o, "method", json_string(method));
        json_object_set_new(o, "model", json_string(bp));
        json_object_set_new(o, "protocol",
                            json_string("token F1 (4-gram shingles, page-averaged) on each site's pages after its "
                                        "first Kmax (the largest K leaving >= 5 pages); K = K pages of those "
                                        "first Kmax labelled from the gold, in label_order"));
        json_object_set_new(o, "label_order",
                            json_string(label_order == PS_LABEL_ORDER_UNCERTAINTY ? "uncertainty" : "index"));
        for (size_t k = 0; k < n_k; k++) {
            json_array_append_new(jk, json_integer(ks[k]));
            json_array_append_new(jm, num_or_null(cnt[k] ? sum_f1[k] / (double)cnt[k] : NAN));
            json_array_append_new(jg, num_or_null(cnt[k] && k0 < n_k ? sum_gain[k] / (double)cnt[k] : NAN));
            json_array_append_new(jh, json_integer((json_int_t)hurt[k]));
            json_array_append_new(jw, num_or_null(cnt[k] && k0 < n_k ? worst[k] : NAN));
            json_array_append_new(jd, json_integer((json_int_t)declined[k]));
            json_array_append_new(jn, json_integer((json_int_t)cnt[k]));
        }
        for (size_t si = 0; si < n_sites; si++) {
            json_t *f = json_array();
            for (size_t k = 0; k < n_k; k++)
                json_array_append_new(f, num_or_null(sites[si].f1[k]));
            json_t *pool = json_array(); /* the pages K counts from, in label order */
            for (unsigned p = 0; p < sites[si].kmax; p++)
                json_array_append_new(pool, json_string(ds->pages[sites[si].pages[p]].id));
            json_array_append_new(js, json_pack("{s:s,s:I,s:I,s:o,s:o}", "site", sites[si].key, "pages",
                                                (json_int_t)sites[si].n, "scored",
                                                (json_int_t)(sites[si].n - sites[si].kmax), "f1", f, "labelled",
                                                pool));
        }
        json_object_set_new(o, "ks", jk);
        json_object_set_new(o, "sites", js);
        json_object_set_new(o, "mean", jm);
        json_object_set_new(o, "gain", jg);
        json_object_set_new(o, "hurt", jh);
        json_object_set_new(o, "worst_loss", jw);
        json_object_set_new(o, "declined", jd);
        json_object_set_new(o, "measured", jn);
        json_object_set_new(o, "site_models_trained", json_integer((json_int_t)trained));
        json_object_set_new(o, "training_seconds", json_real(round(train_secs * 10) / 10));
        json_array_append_new(json, o);
        goto out;
    }
    fprintf(out, "# per-site models, %s, method %s, base model %s: token F1 (4-gram shingles, page-averaged) "
                 "on each site's pages after its first Kmax (the largest K leaving >= %d pages), K = K of those "
                 "first Kmax pages labelled from the gold, %s; %zu site models trained in %.1f s\n",
            ds->name, method, bp, SCORED_MIN, order_name, trained, train_secs);
    fprintf(out, "%-34s %5s %6s", "site", "pages", "scored");
    for (size_t k = 0; k < n_k; k++) {
        char h[16];
        snprintf(h, sizeof h, "K=%u", ks[k]);
        fprintf(out, " %7s", h);
    }
    fputc('\n', out);
    for (size_t si = 0; si < n_sites; si++) {
        site_info *s = &sites[si];
        char name[600];
        snprintf(name, sizeof name, "%s/%s", ds->name, s->key);
        fprintf(out, "%-34s %5zu %6zu", name, s->n, s->n - s->kmax);
        for (size_t k = 0; k < n_k; k++)
            print_f1(out, s->f1[k]);
        fputc('\n', out);
    }
    fprintf(out, "%-34s %5s %6s", "mean of the sites measured", "", "");
    for (size_t k = 0; k < n_k; k++)
        print_f1(out, cnt[k] ? sum_f1[k] / (double)cnt[k] : NAN);
    fputc('\n', out);
    if (k0 < n_k) {
        fprintf(out, "%-34s %5s %6s", "mean gain over K=0, same sites", "", "");
        for (size_t k = 0; k < n_k; k++) {
            if (cnt[k])
                fprintf(out, " %+7.3f", sum_gain[k] / (double)cnt[k]);
            else
                fprintf(out, " %7s", "n/a");
        }
        fputc('\n', out);
        fprintf(out, "%-34s %5s %6s", "sites measured / where it hurts", "", "");
        for (size_t k = 0; k < n_k; k++) {
            char c[32];
            snprintf(c, sizeof c, "%zu/%zu", cnt[k], hurt[k]);
            fprintf(out, " %7s", c);
        }
        fputc('\n', out);
        fprintf(out, "%-34s %5s %6s", "worst site's loss", "", "");
        for (size_t k = 0; k < n_k; k++)
            print_f1(out, cnt[k] ? worst[k] : NAN);
        fputc('\n', out);
        fprintf(out, "%-34s %5s %6s", "site models declined", "", "");
        for (size_t k = 0; k < n_k; k++)
            fprintf(out, " %7zu", declined[k]);
        fputc('\n', out);
    }
    fflush(out);
out:
    if (mdir[0])
        ps_eval_remove_dir(mdir);
    if (tdir[0])
        ps_eval_remove_dir(tdir);
    ps_template_store_free(tpl);
    for (size_t k = 0; runs && k < n_k; k++)
        ps_eval_run_clear(&runs[k]);
    free(runs);
    for (size_t si = 0; sites && si < n_sites; si++) {
        free(sites[si].pages);
        free(sites[si].x);
        free(sites[si].y);
        free(sites[si].page);
        free(sites[si].parent);
        for (size_t r = 0; sites[si].path && r < sites[si].rows; r++)
            free(sites[si].path[r]);
        free(sites[si].path);
        free(sites[si].chars);
        free(sites[si].text);
        free(sites[si].rows_upto);
    }
    free(sites);
    free(ki);
    free(keys);
    free(sub.pages);
    free(site_of_sub);
    free(tags);
    free(tags_buf);
    ps_model_free(second);
    ps_model_free(base);
    return rc;
}
