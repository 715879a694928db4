/* methods/template_svm.c — "template-svm" and "svm": the core method of
 * pagesift, after "Web page denoising with templates and an SVM"
 * (template-svm-denoising.txt; METHODS.md §1.4).
 *
 *   1. find the page's site library by its URL site key (template-svm only);
 *   2. remove every leaf that matches a template tag of the library (same
 *      tag name, similar text: ps_template_apply, METHODS.md §1.1);
 *   3. compute, for every block with text of its own left, the features the
 *      model bundle lists (R1-R5 for the paper's model; extended x_* for
 *      later models) and classify it with the RBF SVM;
 *   4. keep the blocks labelled 1 (content); their text is the result.
 *
 * Blocks without text of their own are not classified (nothing of theirs
 * could reach the output): they count as noise, or as template when every
 * leaf they had was removed by the template step.
 *
 * Parameters: the model bundle (--model, default the shipped one), the
 * template libraries (--templates DIR, or learnt from the collection), the
 * site rule that makes the site key (the caller's, see ps_site_key).  The
 * template-matching parameters (N1, N2, edit-distance rule) belong to the
 * library and are read from it.
 *
 * Option (--options): min_pages=N — a site's library is applied only when it
 * was built from at least N pages (default 5; 0 = the library's own N1, one
 * full batch); a site with fewer pages in the collection gets the SVM alone
 * (with very few pages every leaf the pages share, content included, reaches
 * N2).  5 measured: the guarded rule then removes 0.78 % of the gold leaf
 * text over the 100 sites with >= 5 pages (0.99 % over the 39 with >= 10;
 * docs/TEMPLATES.md), and held out dragnet scores 0.909 against 0.900 with
 * 10, l3s-gn1 equal (docs/QUALITY.md).
 * focus=X (default 0.85, 0 = off; on pages whose site library was applied
 * focus_templated=X instead, default 0: the templates already took the
 * site's chrome away, and focus then cut article-side text the gold keeps,
 * e.g. netease's related-news lists: held out netease 0.922 -> 0.929,
 * dragnet +0.001, cleanportaleval -0.002), fill=X (default 1.0, 0 = off),
 * headline=0|1, fallback=0|1 and comments=0|1 (default 1): the second
 * passes of methods/block_passes.c over the SVM's classes (keep content
 * only inside the block holding >= X of it; inside the block holding the
 * content, keep blocks scored above -X that are not mostly links; keep the
 * title-like heading before the first content block; keep the best-scored
 * block of a page that would come out empty; drop content inside comment
 * containers), measured leave-one-set-out in docs/QUALITY.md.
 *
 * The model's block_tags key (when present; body, section, div otherwise)
 * says which elements are blocks: the pipeline parses pages with those tags
 * (ps_extractor_block_tags), and a page built with others is refused.
 *
 * Thread safety: the model and the template store are read-only after
 * create(); extract() keeps its scratch on the stack or in per-call
 * allocations, so workers share one instance. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_passes.h"
#include "methods/method.h"
#include "methods/method_options.h"

/* --favor precision / recall (option favor=): the decision threshold on the
 * SVM's score and the fill pass's margin, chosen on held-out figures
 * (docs/QUALITY.md). */
#define FAVOR_PRECISION_THRESHOLD 0.3
#define FAVOR_PRECISION_FILL 0.5
#define FAVOR_RECALL_THRESHOLD -0.3
#define FAVOR_RECALL_FILL 1.5

typedef struct tsvm {
    ps_model *model;
    ps_template_store *store;           /* opened from templates_dir, owned */
    const ps_template_store *templates; /* the one used: store or a given one */
    size_t n_feat;
    const int *feat_ids;
    unsigned long min_pages;            /* default 5; 0: the library's n1 */
    ps_block_passes passes;             /* second passes after the SVM */
    double focus_templated;             /* focus share on pages whose site
                                           library was applied (0: off) */
    double threshold;                   /* content: SVM score above it */
    char *tags_buf;                     /* the model's block_tags, split */
    const char **tags;                  /* NULL-terminated, or NULL: default */
} tsvm;

static void tsvm_destroy(void *self)
{
    tsvm *t = self;
    if (!t)
        return;
    ps_model_free(t->model);
    ps_template_store_free(t->store);
    free(t->tags);
    free(t->tags_buf);
    free(t);
}

/* "key=value,..." against the table below; unknown keys and values out of
 * range are errors naming the method and the key (a typo must not pass). */
static int parse_options(tsvm *t, const char *method, const char *opts, ps_error *err)
{
    int min_pages = (int)t->min_pages;
    static const char *const favors[] = {"balanced", "precision", "recall", NULL};
    int favor = 0;
    double threshold = NAN, fill = NAN;
    const ps_method_opt table[] = {
        {"favor", PS_OPT_CHOICE, &favor, 0, 0, favors},
        {"threshold", PS_OPT_DOUBLE, &threshold, -10, 10, NULL},
        {"min_pages", PS_OPT_INT, &min_pages, 0, 1e9, NULL},
        {"focus", PS_OPT_DOUBLE, &t->passes.focus, 0, 1, NULL},
        {"focus_templated", PS_OPT_DOUBLE, &t->focus_templated, 0, 1, NULL},
        {"fill", PS_OPT_DOUBLE, &fill, 0, 100, NULL},
        {"headline", PS_OPT_BOOL, &t->passes.headline, 0, 0, NULL},
        {"fallback", PS_OPT_BOOL, &t->passes.fallback, 0, 0, NULL},
        {"comments", PS_OPT_BOOL, &t->passes.comments, 0, 0, NULL},
    };
    if (ps_method_parse_options(method, opts, table, sizeof table / sizeof table[0], err) != 0)
        return -1;
    t->min_pages = (unsigned long)min_pages;
    /* favor: the SVM's threshold and the fill's margin together, unless
     * given one by one (values: docs/QUALITY.md, the favor table) */
    static const double favor_threshold[] = {0.0, FAVOR_PRECISION_THRESHOLD, FAVOR_RECALL_THRESHOLD};
    static const double favor_fill[] = {PS_BLOCK_PASSES_FILL, FAVOR_PRECISION_FILL, FAVOR_RECALL_FILL};
    t->threshold = isnan(threshold) ? favor_threshold[favor] : threshold;
    t->passes.fill = isnan(fill) ? favor_fill[favor] : fill;
    return 0;
}

/* The model's block_tags key ("body,section,div,p"), when it has one: lower-
 * case tag names, body among them (the root block is always body). */
static int model_block_tags(tsvm *t, const char *path, ps_error *err)
{
    const char *tags = ps_model_info(t->model, "block_tags");
    if (!tags)
        return 0;
    int body = 0;
    for (const char *p = tags; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ','))
            return ps_set_error(err, PS_ERR_FORMAT,
                                "%s: block_tags '%s' is not a comma list of lower-case tag names",
                                path, tags);
    if (!(t->tags_buf = strdup(tags)) || !(t->tags = ps_split_list(t->tags_buf)))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; t->tags[i]; i++) /* ps_split_list skips empty names */
        body |= strcmp(t->tags[i], "body") == 0;
    if (!body)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: block_tags '%s' lacks body (the root block)",
                            path, tags);
    return 0;
}

static const char *const *tsvm_block_tags(void *self)
{
    return ((tsvm *)self)->tags;
}

static void *create_common(const ps_method_config *cfg, int use_templates, ps_error *err)
{
    tsvm *t = calloc(1, sizeof *t);
    if (!t) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    const char *path = cfg->model_path ? cfg->model_path : ps_model_default_path();
    t->model = ps_model_load(path, err);
    if (!t->model) {
        tsvm_destroy(t);
        return NULL;
    }
    t->passes = PS_BLOCK_PASSES_DEFAULT;
    t->min_pages = 5;
    if (parse_options(t, use_templates ? "template-svm" : "svm", cfg->options, err) != 0) {
        tsvm_destroy(t);
        return NULL;
    }
    if (model_block_tags(t, path, err) != 0) {
        tsvm_destroy(t);
        return NULL;
    }
    t->n_feat = ps_model_n_features(t->model);
    t->feat_ids = ps_model_feature_ids(t->model);
    if (use_templates) {
        if (cfg->templates) {
            t->templates = cfg->templates;
        } else if (cfg->templates_dir) {
            t->store = ps_template_store_open(cfg->templates_dir, err);
            if (!t->store) {
                tsvm_destroy(t);
                return NULL;
            }
            t->templates = t->store;
        } else {
            ps_set_error(err, PS_ERR_USAGE,
                         "template-svm needs template libraries (--templates DIR or "
                         "--learn-templates); use --method svm for the SVM alone");
            tsvm_destroy(t);
            return NULL;
        }
    }
    return t;
}

static void *tsvm_create(const ps_method_config *cfg, ps_error *err)
{
    return create_common(cfg, 1, err);
}

static void *svm_create(const ps_method_config *cfg, ps_error *err)
{
    return create_common(cfg, 0, err);
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

static int tsvm_extract(void *self, ps_page *page, const char *site, ps_method_output *out,
                        ps_error *err)
{
    tsvm *t = self;
    if (!ps_page_has_block_tags(page, t->tags)) {
        const char *const *want = t->tags ? t->tags : ps_default_block_tags;
        char list[256];
        size_t n = 0;
        list[0] = '\0';
        for (size_t i = 0; want[i] && n < sizeof list; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? "," : "", want[i]);
        return ps_set_error(err, PS_ERR_USAGE,
                            "the page was built with other block tags than the model's (%s): "
                            "parse it with ps_extractor_block_tags()",
                            list);
    }
    ps_block_passes passes = t->passes;
    if (t->templates && site && *site) {
        const ps_template_lib *lib = ps_template_store_get(t->templates, site);
        if (lib) {
            ps_template_lib_info info;
            ps_template_lib_get_info(lib, &info);
            if (info.pages >= (t->min_pages ? t->min_pages : info.params.n1)) {
                if (ps_template_apply(lib, page) == (size_t)-1)
                    return ps_set_error(err, PS_ERR_NOMEM, "out of memory applying the templates");
                passes.focus = t->focus_templated; /* templates took the chrome away */
            }
        }
    }
    size_t nb, nl;
    const ps_block *blocks = ps_page_blocks(page, &nb);
    const ps_leaf *leaves = ps_page_leaves(page, &nl);

    double *x = malloc((nb * t->n_feat + 2 * nb + 1) * sizeof *x);
    double *score = x ? x + nb * t->n_feat : NULL; /* per block, NaN: not scored */
    double *dec = score ? score + nb : NULL;        /* per row classified */
    uint32_t *removed = calloc(nb + 1, sizeof *removed);
    out->block_class = malloc(nb + 1);
    out->leaf_kept = malloc(nl + 1);
    if (!x || !removed || !out->block_class || !out->leaf_kept) {
        free(x);
        free(removed);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    if (ps_page_block_features(page, t->feat_ids, t->n_feat, x) != 0) {
        free(x);
        free(removed);
        return ps_set_error(err, PS_ERR_NOMEM, "cannot compute the block features");
    }
    for (size_t i = 0; i < nl; i++)
        removed[leaves[i].block] += leaves[i].removed;

    /* Identical feature vectors on a page (a quarter of dragnet's blocks:
     * empty link bars, repeated widgets) get one prediction: an
     * open-addressing table from the vector's bytes to its first block. */
    size_t cap = 16;
    while (cap < 2 * nb)
        cap *= 2;
    int32_t *seen = malloc(cap * sizeof *seen);
    if (!seen) {
        free(x);
        free(removed);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    memset(seen, 0xFF, cap * sizeof *seen);
    size_t row_bytes = t->n_feat * sizeof *x;

    /* Pass 1: which blocks the SVM must classify (rows), and for every
     * block with text the row whose class it takes (src). */
    uint32_t *src = malloc((2 * nb + 1) * sizeof *src);
    uint8_t *pred = malloc(nb + 1);
    if (!src || !pred) {
        free(src);
        free(pred);
        free(seen);
        free(x);
        free(removed);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    uint32_t *rows = src + nb;
    size_t n_rows = 0;
    for (size_t b = 0; b < nb; b++) {
        if (blocks[b].own.text_chars == 0)
            continue;
        const double *row = x + b * t->n_feat;
        size_t h = row_hash(row, t->n_feat) & (cap - 1);
        while (seen[h] >= 0 && memcmp(x + (size_t)rows[seen[h]] * t->n_feat, row, row_bytes) != 0)
            h = (h + 1) & (cap - 1);
        if (seen[h] < 0) {
            seen[h] = (int32_t)n_rows;
            rows[n_rows++] = (uint32_t)b;
        }
        src[b] = (uint32_t)seen[h];
    }
    /* the SVM over all of them at once (support vectors read from cache) */
    ps_model_predict_many(t->model, x, t->n_feat, rows, n_rows, pred, dec);

    uint8_t *keep = out->block_class; /* reused below: content == 1 == keep */
    for (size_t b = 0; b < nb; b++) {
        int cls;
        score[b] = NAN;
        if (blocks[b].own.text_chars == 0) {
            cls = blocks[b].n_leaves && removed[b] == blocks[b].n_leaves ? PS_BLOCK_TEMPLATE
                                                                         : PS_BLOCK_NOISE;
            if (blocks[b].n_leaves)
                out->blocks_removed++;
        } else {
            score[b] = dec[src[b]];
            cls = score[b] > t->threshold ? PS_BLOCK_CONTENT : PS_BLOCK_NOISE;
            if (cls == PS_BLOCK_CONTENT)
                out->blocks_kept++;
            else
                out->blocks_removed++;
        }
        out->block_class[b] = (uint8_t)cls;
    }
    free(src);
    free(pred);
    free(seen);
    free(removed);

    /* ps_page_text keeps blocks whose mask byte is non-zero: make a 0/1 mask */
    uint8_t *mask = malloc(nb + 1);
    if (!mask) {
        free(x);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    for (size_t b = 0; b < nb; b++)
        mask[b] = keep[b] == PS_BLOCK_CONTENT;
    /* the passes read the page's features from x (the page has not changed
     * since): headline would otherwise compute them all a second time */
    if (ps_block_passes_run_feat(page, &passes, mask, score, x, t->n_feat, t->feat_ids) != 0) {
        free(x);
        free(mask);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    free(x);
    for (size_t b = 0; b < nb; b++) /* the passes' changes, in the classes and counts */
        if (mask[b] != (keep[b] == PS_BLOCK_CONTENT)) {
            keep[b] = mask[b] ? PS_BLOCK_CONTENT : PS_BLOCK_NOISE;
            if (mask[b]) {
                out->blocks_kept++;
                out->blocks_removed--;
            } else {
                out->blocks_kept--;
                out->blocks_removed++;
            }
        }
    for (size_t i = 0; i < nl; i++)
        out->leaf_kept[i] = !leaves[i].removed && mask[leaves[i].block];
    out->text = ps_page_text(page, mask, &out->len);
    free(mask);
    const char *title = ps_page_title(page);
    if (title && *title)
        out->title = strdup(title);
    if (!out->text)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

const ps_method ps_method_template_svm = {
    .name = "template-svm",
    .summary = "the paper's pipeline: site templates removed, then the SVM keeps content blocks",
    .flags = PS_METHOD_NEEDS_MODEL,
    .create = tsvm_create,
    .extract = tsvm_extract,
    .destroy = tsvm_destroy,
    .block_tags = tsvm_block_tags,
};

const ps_method ps_method_svm = {
    .name = "svm",
    .summary = "the SVM over block features alone, no templates",
    .flags = PS_METHOD_NEEDS_MODEL,
    .create = svm_create,
    .extract = tsvm_extract,
    .destroy = tsvm_destroy,
    .block_tags = tsvm_block_tags,
};
