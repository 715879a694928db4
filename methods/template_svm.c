/* methods/template_svm.c — "template-svm" and "svm": the core method of
 * pagesift, after "Web page denoising with templates and an SVM"
 * (template-svm-denoising.txt; METHODS.md §1.4).
 *
 * tsvm_extract runs one page through five steps, each a function below:
 *   1. apply templates: find the page's site library by its URL site key
 *      and, when it applies, remove every leaf that matches a template tag
 *      of the library (same tag name, similar text: ps_template_apply,
 *      METHODS.md §1.1; template-svm only);
 *   2. features: compute, for every block, the features the model bundle
 *      lists (R1-R5 for the paper's model; extended x_* for later models);
 *   3. classify: the classifier's decision value for every block with text
 *      of its own left, all blocks at once (methods/block_classifier.h: the
 *      model bundle's RBF SVM today); content above the threshold;
 *   4. passes: the second passes of methods/block_passes.c (a table, one
 *      option key per pass) over those classes;
 *   5. collect: the text of the blocks kept is the result;
 *   6. the JSON-LD fallback: the page's articleBody instead, when the
 *      blocks kept hold less than half of it (option article_body).
 * The steps share one struct of per-page arrays, freed in one place.
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
 * Which site libraries apply: the one rule training uses too,
 * ps_template_applies (a library learnt from >= PS_TEMPLATE_MIN_PAGES = 5
 * pages; with very few pages every leaf the pages share, content included,
 * reaches N2, so a smaller site gets the SVM alone).  5 measured: the
 * guarded rule then removes 0.78 % of the gold leaf text over the 100 sites
 * with >= 5 pages (0.99 % over the 39 with >= 10; docs/TEMPLATES.md), and
 * held out dragnet scores 0.909 against 0.900 with 10, l3s-gn1 equal
 * (docs/research/QUALITY.md).
 * Options (--options): min_pages=N — for experiments only, apply a library
 * built from at least N pages instead (0 = the library's own N1, one full
 * batch); the model was trained with the rule above, so another N is a
 * train/serve skew.
 * focus=X (default 0 = off since issue 14's stacked model; on pages whose site library was applied
 * focus_templated=X instead, default 0: the templates already took the
 * site's chrome away, and focus then cut article-side text the gold keeps,
 * e.g. netease's related-news lists: held out netease 0.922 -> 0.929,
 * dragnet +0.001, cleanportaleval -0.002), fill=X (default 1.0, 0 = off),
 * fill_chars=N (default 0: the fill takes blocks of at least N characters),
 * fill_lead=N (default 100: a block shorter than N characters, without
 * sub-blocks, only when the next block with text is content),
 * grid_shift=X (default 0.75, 0 = off) and grid_gate=P (default 0.5): on
 * a page the page-type classifier (pagesift/page_types.h) calls a listing,
 * collection or service page with probability g >= P, every block's score
 * goes up by X * g, which the passes after see too (no page type: no
 * change); grid_model=0|1 (default 1), grid_model_gate=P (default 0.7)
 * and grid_rescue=S (default 0.15, 0 = off): the model's companion
 * NAME.grid.model, when there, averaged in on pages with g + the forum
 * probability >= P, and allowed to add blocks on pages whose content
 * would hold less than S of the text (methods/classifier_grid.c);
 * typed_model=0|1 (default 1): the companion NAME.typed.model, when there,
 * scores pages typed documentation, forum or product in the model's place
 * (methods/classifier_typed.c).
 * headline=0|1, fallback=0|1 and comments=0|1 (default 1): the second
 * passes of methods/block_passes.c over the SVM's classes (keep content
 * only inside the block holding >= X of it; inside the block holding the
 * content, keep blocks scored above -X that are not mostly links; keep the
 * title-like heading before the first content block; keep the best-scored
 * block of a page that would come out empty; drop content inside comment
 * containers), measured leave-one-set-out in docs/research/QUALITY.md.  Every row of
 * ps_block_pass_table is an option of its key, with the row's default.
 *
 * The model's block_tags key (when present; body, section, div otherwise)
 * says which elements are blocks: the pipeline parses pages with those tags
 * (ps_extractor_block_tags), and a page built with others is refused.
 *
 * Thread safety: the model and the template store are read-only after
 * create(); extract() keeps its scratch on the stack or in per-call
 * allocations, so workers share one instance. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extract/meta_internal.h"
#include "methods/block_classifier.h"
#include "extract/page_signals.h"
#include "methods/block_passes.h"
#include "methods/method.h"
#include "methods/method_options.h"
#include "pagesift/features.h"
#include "pagesift/templates.h"

/* --favor precision / recall (option favor=): the decision threshold on the
 * SVM's score and the fill pass's margin, chosen on held-out figures
 * (docs/research/QUALITY.md). */
#define FAVOR_PRECISION_THRESHOLD 0.3
#define FAVOR_PRECISION_FILL 0.5
#define FAVOR_RECALL_THRESHOLD -0.3
#define FAVOR_RECALL_FILL 1.5
/* The JSON-LD fallback's share (option article_body; article_body_fallback
 * below), set before it was measured: held out (docs/research/QUALITY.md section
 * 000) it left the gold sets unchanged and gave trafilatura-eval +0.001
 * (held out and under 5-fold cross-validation). */
#define ARTICLE_BODY_SHARE 0.5
/* The grid rule (options grid_shift, grid_gate; classify() below): chosen
 * on wcxb-dev under site-grouped 5-fold CV and the seven other sets held
 * out (docs/research/QUALITY.md, "Page types", second and third rounds): wcxb-dev
 * 0.835 -> 0.846, every other set within its seed spread; on the scores
 * rather than the threshold, 0.851 -> 0.853. */
#define GRID_SHIFT 0.75
#define GRID_GATE 0.5
/* The grid model (option grid_model, methods/classifier_grid.c): the
 * companion bundle NAME.grid.model of a model NAME.model, averaged in on
 * pages whose grid-kind probability is at least GRID_MODEL_GATE; chosen on
 * wcxb-dev under site-grouped CV and the seven other sets held out among
 * the gates 0.5, 0.6, 0.7, 0.8 (docs/research/QUALITY.md, "Page types, third
 * round"): wcxb-dev 0.855 -> 0.861 (listing 0.603 -> 0.662, collection
 * 0.663 -> 0.693), every other set within its seed spread.  Forum threads
 * joined the grid kinds in the fourth round (forum 0.739 -> 0.752); the
 * rescue (GRID_RESCUE: a page whose content-scored blocks hold less than
 * 5 % of its text gets the grid model's additions) then 0.862 -> 0.865,
 * listing 0.667 -> 0.704, no page type lower (shares 0.1 and 0.2 raised
 * listings more but cost products 0.003 and 0.006, whose gold is often a
 * small part of the page).  Seventh round, after the sixth round's passes:
 * 0.05 / 0.1 / 0.15 / 0.25 on wcxb-dev's folds 1-3 0.8738 / 0.8739 / 0.8745 /
 * 0.8745, 0.15 taken (the smaller of the two) and read once on folds 4-5:
 * 0.8744 -> 0.8772 (service 0.822 -> 0.835); the seven other sets within
 * their seed spreads (docs/research/QUALITY.md, "Page types, seventh round"). */
#define GRID_MODEL_GATE 0.7
#define GRID_RESCUE 0.15
/* The typed model (option typed_model, methods/classifier_typed.c): the
 * companion bundle NAME.typed.model, trained with the page-type features
 * x_type_*, scores the pages whose most probable type is one of these in
 * place of the model (docs/research/QUALITY.md, "Page types, twelfth
 * round"). */
#define TYPED_KINDS (1u << PS_PTYPE_DOCUMENTATION | 1u << PS_PTYPE_FORUM | 1u << PS_PTYPE_PRODUCT)

typedef struct tsvm {
    ps_block_classifier *clf;           /* the model (methods/block_classifier.h) */
    ps_template_store *store;           /* opened from templates_dir, owned */
    const ps_template_store *templates; /* the one used: store or a given one */
    int min_pages;                      /* -1: ps_template_applies; else the
                                           experiment's N (0: the library's n1) */
    ps_block_passes passes;             /* second passes after the SVM */
    double focus_templated;             /* focus share on pages whose site
                                           library was applied (0: off) */
    double threshold;                   /* content: SVM score above it */
    double article_body;                /* JSON-LD fallback share (0: off) */
    double grid_shift;                  /* scores raised by this times the
                                           page's probability of being a listing,
                                           collection or service page ... */
    double grid_gate;                   /* ... when that is at least this */
    double grid_model;                  /* 1: the model's companion grid model
                                           when there is one, 0: never */
    double grid_model_gate;             /* its gate (GRID_MODEL_GATE) */
    double grid_rescue;                 /* its rescue share (GRID_RESCUE) */
    double typed_model;                 /* 1: the model's companion typed
                                           model when there is one, 0: never */
    double description;                 /* 1: the description fallback */
} tsvm;

static void tsvm_destroy(void *self)
{
    tsvm *t = self;
    if (!t)
        return;
    ps_block_classifier_free(t->clf);
    ps_template_store_free(t->store);
    free(t);
}

/* The options of svm and template-svm (--options key=value), then one a
 * second pass (PS_METHOD_PASSES: ps_block_pass_table's rows); checked in
 * methods/method_options.c, read in create_common.  Defaults above. */
enum { O_FAVOR, O_THRESHOLD, O_MIN_PAGES, O_FOCUS_TEMPLATED, O_ARTICLE_BODY, O_GRID_SHIFT, O_GRID_GATE,
       O_GRID_MODEL, O_GRID_MODEL_GATE, O_GRID_RESCUE, O_TYPED_MODEL, O_DESCRIPTION, O_OWN };
static const char *const favors[] = {"balanced", "precision", "recall", NULL};
static const ps_option tsvm_options[O_OWN + 1] = {
    [O_FAVOR] = {"favor", PS_OPT_CHOICE, 0, 0, 0, favors,
                 "precision keeps less, recall more: sets threshold and fill unless given (--favor)"},
    [O_THRESHOLD] = {"threshold", PS_OPT_DOUBLE, 0, -10, 10, NULL,
                     "a block scored above X is content (favor: 0, precision 0.3, recall -0.3)"},
    [O_MIN_PAGES] = {"min_pages", PS_OPT_INT, -1, 0, 1e9, NULL,
                     "experiments: apply libraries of >= N pages (0: their N1), not the rule's 5"},
    [O_FOCUS_TEMPLATED] = {"focus_templated", PS_OPT_DOUBLE, 0, 0, 1, NULL,
                           "focus instead, on pages whose site library was applied (0 = off)"},
    [O_ARTICLE_BODY] = {"article_body", PS_OPT_DOUBLE, ARTICLE_BODY_SHARE, 0, 1, NULL,
                        "the JSON-LD articleBody instead when the text kept is under X of it (0 = off)"},
    [O_GRID_SHIFT] = {"grid_shift", PS_OPT_DOUBLE, GRID_SHIFT, 0, 5, NULL,
                      "on a listing, collection or service page (p >= grid_gate) scores go up by X*p"},
    [O_GRID_GATE] = {"grid_gate", PS_OPT_DOUBLE, GRID_GATE, 0, 1, NULL, "grid_shift's gate"},
    [O_GRID_MODEL] = {"grid_model", PS_OPT_SWITCH, 1, 0, 1, NULL,
                      "the model's companion NAME.grid.model, when there, on grid-kind pages"},
    [O_GRID_MODEL_GATE] = {"grid_model_gate", PS_OPT_DOUBLE, GRID_MODEL_GATE, 0, 3, NULL,
                           "the grid model's gate (listing + collection + service + forum)"},
    [O_GRID_RESCUE] = {"grid_rescue", PS_OPT_DOUBLE, GRID_RESCUE, 0, 1, NULL,
                       "the grid model may add blocks where content holds under S of the text"},
    [O_TYPED_MODEL] = {"typed_model", PS_OPT_SWITCH, 1, 0, 1, NULL,
                       "the companion NAME.typed.model, when there, on documentation, forum, product pages"},
    [O_DESCRIPTION] = {"description", PS_OPT_SWITCH, 1, 0, 1, NULL,
                       "a page with no word kept gives its <meta> description (og:description, ...)"},
    [O_OWN] = {NULL, PS_OPT_DOUBLE, 0, 0, 0, NULL, NULL},
};

/* The options' values into t (favor: the SVM's threshold and the fill's
 * margin together, unless given one by one; values: docs/research/QUALITY.md,
 * the favor table). */
static int read_options(tsvm *t, const ps_method *m, const ps_options *given, ps_error *err)
{
    ps_options o;
    if (ps_options_resolve(&o, given, m, err) != 0)
        return -1;
    const double *v = o.value;
    t->min_pages = (int)v[O_MIN_PAGES];
    t->focus_templated = v[O_FOCUS_TEMPLATED];
    t->article_body = v[O_ARTICLE_BODY];
    t->grid_shift = v[O_GRID_SHIFT];
    t->grid_gate = v[O_GRID_GATE];
    t->grid_model = v[O_GRID_MODEL];
    t->grid_model_gate = v[O_GRID_MODEL_GATE];
    t->grid_rescue = v[O_GRID_RESCUE];
    t->typed_model = v[O_TYPED_MODEL];
    t->description = v[O_DESCRIPTION];
    for (size_t i = 0; ps_block_pass_table[i].key; i++)
        t->passes.value[i] = v[O_OWN + i];
    static const double favor_threshold[] = {0.0, FAVOR_PRECISION_THRESHOLD, FAVOR_RECALL_THRESHOLD};
    static const double favor_fill[] = {NAN, FAVOR_PRECISION_FILL, FAVOR_RECALL_FILL};
    const int favor = (int)v[O_FAVOR];
    t->threshold = o.given[O_THRESHOLD] ? v[O_THRESHOLD] : favor_threshold[favor];
    const size_t fill = O_OWN + (size_t)ps_block_pass_find("fill");
    if (favor && !o.given[fill])
        t->passes.value[fill - O_OWN] = favor_fill[favor];
    return 0;
}

static const char *const *tsvm_block_tags(void *self)
{
    return ((tsvm *)self)->clf->block_tags;
}

/* The companion NAME<suffix> of the model at @p path (NAME.model; another
 * name: NAME<suffix> too), malloc'd, or NULL when out of memory. */
static char *companion_path(const char *path, const char *suffix)
{
    size_t n = strlen(path), ls = strlen(suffix);
    if (n >= 6 && strcmp(path + n - 6, ".model") == 0)
        n -= 6;
    char *p = malloc(n + ls + 1);
    if (p) {
        memcpy(p, path, n);
        memcpy(p + n, suffix, ls + 1);
    }
    return p;
}

/* The companions beside the model at @p path, each when its file exists
 * and its option is on: NAME.typed.model (t->clf becomes the typed kind,
 * serving TYPED_KINDS), then NAME.grid.model (t->clf becomes the grid kind
 * over that, so the grid model is averaged in with whichever scored).  No
 * file: nothing changes.  -1 + err when one cannot be used (t->clf may then
 * be NULL: the kinds free what they were given). */
static int open_companions(tsvm *t, const char *path, ps_error *err)
{
    static const char *const suffix[2] = {".typed.model", ".grid.model"};
    const int on[2] = {t->typed_model != 0, t->grid_model != 0};
    for (int i = 0; i < 2; i++) {
        if (!on[i])
            continue;
        char *cpath = companion_path(path, suffix[i]);
        if (!cpath)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        int rc = 0;
        if (access(cpath, F_OK) == 0) {
            ps_block_classifier *c = ps_block_classifier_open(cpath, err);
            if (c && i == 0)
                t->clf = ps_block_classifier_typed(t->clf, c, TYPED_KINDS, cpath, err);
            else if (c)
                t->clf = ps_block_classifier_grid(t->clf, c, t->grid_model_gate, t->grid_rescue, cpath, err);
            rc = c && t->clf ? 0 : -1;
        }
        free(cpath);
        if (rc != 0)
            return -1;
    }
    return 0;
}

extern const ps_method ps_method_template_svm, ps_method_svm;

static void *create_common(const ps_method_config *cfg, int use_templates, ps_error *err)
{
    tsvm *t = calloc(1, sizeof *t);
    if (!t) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    const char *path = cfg->model_path ? cfg->model_path : ps_model_default_path();
    t->clf = ps_block_classifier_open(path, err);
    if (t->clf && cfg->site_models_dir)
        t->clf = ps_block_classifier_open_sites(t->clf, path, cfg->site_models_dir, cfg->site_models_cap,
                                                cfg->site_base_path, err);
    if (!t->clf) {
        tsvm_destroy(t);
        return NULL;
    }
    if (read_options(t, use_templates ? &ps_method_template_svm : &ps_method_svm, cfg->options, err) != 0 ||
        open_companions(t, path, err) != 0) {
        tsvm_destroy(t);
        return NULL;
    }
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
                         "template-svm needs template libraries (ps_extractor_config "
                         "templates_dir or templates); the svm method is the SVM alone");
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

/* ---- one page: the steps of tsvm_extract ---- */

/* What the steps of one page share; every array is freed by work_free, the
 * one cleanup path. */
typedef struct work {
    ps_page *page;
    size_t nb, nl;
    const ps_block *blocks;
    const ps_leaf *leaves;
    ps_block_passes passes; /* this page's: focus changes when templates applied */
    ps_block_rows *rows;    /* feature rows on demand (n_feat a block) */
    double *score;          /* per block: the SVM's decision value, NaN: not scored */
    uint8_t *mask;          /* per block: 1 content (what ps_page_text reads) */
    char model[320];        /* the classifier's name of the model it used */
} work;

static void work_free(work *w)
{
    ps_block_rows_free(w->rows);
    free(w->score);
    free(w->mask);
}

/* A page parsed with other block tags than the model's is refused: its
 * blocks are not the ones the model was trained on. */
static int check_block_tags(const tsvm *t, const ps_page *page, ps_error *err)
{
    const char *const *tags = t->clf->block_tags;
    if (ps_page_has_block_tags(page, tags))
        return 0;
    const char *const *want = tags ? tags : ps_default_block_tags;
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

/* Step 1, apply templates: remove the leaves matching the site library's
 * templates when there is one and it applies (template-svm only). */
static int apply_templates(const tsvm *t, work *w, const char *site, ps_error *err)
{
    if (!t->templates || !site || !*site)
        return 0;
    const ps_template_lib *lib = ps_template_store_get(t->templates, site);
    if (!lib)
        return 0;
    if (t->min_pages < 0) {
        if (!ps_template_applies(lib))
            return 0;
    } else {
        ps_template_lib_info info;
        ps_template_lib_get_info(lib, &info);
        if (info.pages < (t->min_pages ? (uint64_t)t->min_pages : info.params.n1))
            return 0;
    }
    size_t k = ps_template_apply(lib, w->page);
    if (k == PS_TEMPLATE_TIMEOUT)
        return ps_set_error(err, PS_ERR_TIMEOUT, "the page took longer than its time limit (site templates)");
    if (k == (size_t)-1)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory applying the templates");
    *ps_block_passes_at(&w->passes, "focus") = t->focus_templated; /* templates took the chrome away */
    return 0;
}

/* Step 2, features: what the model's features of every block are made
 * of, on the page as the template step left it; the classifier and the
 * passes make the rows from it a chunk at a time (a whole matrix was the
 * most memory a block cost: 51 doubles with the shipped model). */
static int features(const tsvm *t, work *w, ps_error *err)
{
    w->blocks = ps_page_blocks(w->page, &w->nb);
    w->leaves = ps_page_leaves(w->page, &w->nl);
    const ps_block_classifier *c = t->clf;
    if (!(w->rows = ps_block_rows_new(w->page, c->feat_ids, c->n_feat)))
        return ps_set_error(err, PS_ERR_NOMEM, "cannot compute the block features");
    return 0;
}

/* Step 3, classify: the classifier's decision value of every block with
 * text of its own, all at once (w->score; NaN for the others, which nothing
 * of could reach the output). */
static int classify(const tsvm *t, work *w, const char *site, ps_error *err)
{
    size_t nb = w->nb, n = 0;
    uint32_t *list = malloc((nb + 1) * sizeof *list);
    w->score = malloc((nb + 1) * sizeof *w->score);
    if (!list || !w->score) {
        free(list);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    for (size_t b = 0; b < nb; b++) {
        w->score[b] = NAN;
        if (w->blocks[b].own.text_chars)
            list[n++] = (uint32_t)b;
    }
    ps_classify_in in = {.page = w->page, .site = site ? site : "", .rows = w->rows, .blocks = list, .n = n,
                         .model = w->model, .model_cap = sizeof w->model};
    int rc = t->clf->score(t->clf, &in, w->score, err);
    free(list);
    /* the grid rule: on a page the page-type classifier calls a listing, a
     * collection or a service page, whose items and sections the SVM scores
     * low one by one, every score goes up by grid_shift times that
     * probability when it is at least grid_gate (docs/PAGE_TYPES.md; a page
     * not classified: probabilities 0).  The scores, not the threshold, so
     * that the passes after (fill, groups: scores against 0) draw the same
     * line as the threshold. */
    double g = ps_page_type_prob(w->page, PS_PTYPE_LISTING) + ps_page_type_prob(w->page, PS_PTYPE_COLLECTION) +
               ps_page_type_prob(w->page, PS_PTYPE_SERVICE);
    if (rc == 0 && t->grid_shift > 0 && g > 0 && g >= t->grid_gate)
        for (size_t b = 0; b < nb; b++)
            w->score[b] += t->grid_shift * g; /* NaN (no text of its own) stays NaN */
    return rc;
}

/* The classes the scores give (content above the threshold; a block without
 * text is template when the template step removed all its leaves, else
 * noise) and their counts, into out; w->mask: 1 for content. */
static int classes(const tsvm *t, work *w, ps_method_output *out, ps_error *err)
{
    size_t nb = w->nb;
    uint32_t *removed = calloc(nb + 1, sizeof *removed); /* leaves removed per block */
    out->block_class = malloc(nb + 1);
    w->mask = malloc(nb + 1);
    if (!removed || !out->block_class || !w->mask) {
        free(removed);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < w->nl; i++)
        removed[w->leaves[i].block] += w->leaves[i].removed;
    const double threshold = t->threshold;
    for (size_t b = 0; b < nb; b++) {
        const ps_block *bl = &w->blocks[b];
        int cls;
        if (bl->own.text_chars == 0) {
            cls = bl->n_leaves && removed[b] == bl->n_leaves ? PS_BLOCK_TEMPLATE : PS_BLOCK_NOISE;
            if (bl->n_leaves)
                out->blocks_removed++;
        } else {
            cls = w->score[b] > threshold ? PS_BLOCK_CONTENT : PS_BLOCK_NOISE;
            if (cls == PS_BLOCK_CONTENT)
                out->blocks_kept++;
            else
                out->blocks_removed++;
        }
        out->block_class[b] = (uint8_t)cls;
        w->mask[b] = cls == PS_BLOCK_CONTENT;
    }
    free(removed);
    return 0;
}

/* Step 4, passes: the second passes (methods/block_passes.c) over the mask,
 * their changes carried into the classes and counts.  They read the page's
 * features from w->rows (the page has not changed since): headline would
 * otherwise compute them all a second time. */
static int passes(const tsvm *t, work *w, ps_method_output *out, ps_error *err)
{
    if (ps_block_passes_run_rows(w->page, &w->passes, w->mask, w->score, w->rows, t->clf->n_feat,
                                 t->clf->feat_ids) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    uint8_t *cls = out->block_class;
    for (size_t b = 0; b < w->nb; b++)
        if (w->mask[b] != (cls[b] == PS_BLOCK_CONTENT)) {
            cls[b] = w->mask[b] ? PS_BLOCK_CONTENT : PS_BLOCK_NOISE;
            if (w->mask[b]) {
                out->blocks_kept++;
                out->blocks_removed--;
            } else {
                out->blocks_kept--;
                out->blocks_removed++;
            }
        }
    return 0;
}

/* Step 5, collect: the leaves kept, the text of the content blocks, the
 * page's title. */
static int collect(work *w, ps_method_output *out, ps_error *err)
{
    if (!(out->leaf_kept = malloc(w->nl + 1)))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < w->nl; i++)
        out->leaf_kept[i] = !w->leaves[i].removed && w->mask[w->leaves[i].block];
    if (!(out->text = ps_page_text(w->page, w->mask, &out->len)))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    const char *title = ps_page_title(w->page);
    if (title && *title && !(out->title = strdup(title)))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

/* A fallback's @p text (malloc'd, taken) in place of the blocks' text.  No
 * leaf is the result's any more: leaf_kept goes, so that Markdown, XML and
 * clean HTML render the text's lines as the plain text has them rather than
 * the blocks' (the block classes stay the classifier's, for --format html). */
static void take_text(ps_method_output *out, char *text)
{
    free(out->text);
    out->text = text;
    out->len = strlen(text);
    free(out->leaf_kept);
    out->leaf_kept = NULL;
}

/* Step 6, the JSON-LD fallback (option article_body=X, default 0.5, 0 =
 * off): when the text kept holds fewer than X times the characters of the
 * page's JSON-LD articleBody (ps_page_article_body), the result is that
 * articleBody: a page whose article a script renders from its data has
 * little of it in the markup.  The block classes stay the classifier's. */
static int article_body_fallback(const tsvm *t, work *w, ps_method_output *out, ps_error *err)
{
    (void)err;
    if (t->article_body <= 0)
        return 0;
    char *ab = ps_page_article_body(w->page);
    if (!ab)
        return 0;
    size_t na = ps_utf8_chars(ab, strlen(ab)), nt = ps_utf8_chars(out->text, out->len);
    if ((double)nt < t->article_body * (double)na)
        take_text(out, ab);
    else
        free(ab);
    return 0;
}

/* Step 7, the description fallback (option description=1, the default):
 * when nothing kept has a word in it, the result is the page's description
 * (ps_page_description: its og:description or description <meta>, ...).
 * A page whose text a script fetches (a forum thread served as an empty
 * shell) says what it is about there and nowhere else in its markup.  The
 * block classes stay the classifier's. */
static int has_word(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isalnum((unsigned char)s[i]) || (unsigned char)s[i] >= 0x80)
            return 1;
    return 0;
}

static int description_fallback(const tsvm *t, work *w, ps_method_output *out, ps_error *err)
{
    if (!t->description || (out->text && has_word(out->text, out->len)))
        return 0;
    char *d = ps_page_description(w->page);
    if (!d || !has_word(d, strlen(d))) {
        free(d);
        return 0;
    }
    size_t n = strlen(d); /* one line, as the text's lines end */
    char *line = realloc(d, n + 2);
    if (!line) {
        free(d);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    memcpy(line + n, "\n", 2);
    take_text(out, line);
    return 0;
}

static int tsvm_extract(void *self, ps_page *page, const char *site, ps_method_output *out,
                        ps_error *err)
{
    const tsvm *t = self;
    if (check_block_tags(t, page, err) != 0)
        return -1;
    work w = {.page = page, .passes = t->passes};
    int rc = apply_templates(t, &w, site, err);
    if (rc == 0)
        rc = features(t, &w, err);
    if (rc == 0)
        rc = classify(t, &w, site, err);
    if (rc == 0)
        rc = classes(t, &w, out, err);
    if (rc == 0)
        rc = passes(t, &w, out, err);
    if (rc == 0)
        rc = collect(&w, out, err);
    if (rc == 0)
        rc = article_body_fallback(t, &w, out, err);
    if (rc == 0)
        rc = description_fallback(t, &w, out, err);
    if (rc == 0 && w.model[0] && !(out->model = strdup(w.model)))
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (rc == 0) { /* the scores go out with the classes */
        out->block_score = w.score;
        w.score = NULL;
    }
    work_free(&w);
    return rc;
}

const ps_method ps_method_template_svm = {
    .name = "template-svm",
    .summary = "the paper's pipeline: site templates removed, then the SVM keeps content blocks",
    .flags = PS_METHOD_NEEDS_MODEL | PS_METHOD_PASSES | PS_METHOD_NO_TREE,
    .create = tsvm_create,
    .extract = tsvm_extract,
    .destroy = tsvm_destroy,
    .block_tags = tsvm_block_tags,
    .options = tsvm_options,
};

const ps_method ps_method_svm = {
    .name = "svm",
    .summary = "the SVM over block features alone, no templates",
    .flags = PS_METHOD_NEEDS_MODEL | PS_METHOD_PASSES | PS_METHOD_NO_TREE,
    .create = svm_create,
    .extract = tsvm_extract,
    .destroy = tsvm_destroy,
    .block_tags = tsvm_block_tags,
    .options = tsvm_options,
};
