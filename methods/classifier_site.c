/* methods/classifier_site.c — the per-site block classifier
 * (methods/block_classifier.h, docs/SITE_MODELS.md): a folder of site
 * bundles (pagesift-train --per-site) beside the default model.  A page
 * whose site key (ps_input_site, the key the template libraries use) has a
 * bundle is scored with it, any other page with the default.  Bundles are
 * loaded on a site's first page and kept in an LRU bounded by a memory cap
 * (train/site_models.c: ps_site_models); a bundle that cannot be used
 * (damaged, another format, features or block tags other than the
 * default's) is reported once on stderr and its site falls back to the
 * default, the run goes on.  Site bundles keep the default's features,
 * scaling and block tags, so the page's feature rows serve either model;
 * they are deltas against the default (its first stage when it is a stack)
 * and share its support vectors; a delta against another base is refused
 * like a damaged bundle.  When the default is a stack, a site model takes
 * the place of its first stage only: its scores feed the default's second
 * stage (context features of parent, siblings, neighbours; the gate), so a
 * page of a site with a model gets both stages (issue 30).  And it decides
 * only where the base is unsure: a block the base's first stage scores at
 * least the bundle's site_gate away from 0 keeps the base's first-stage
 * score (ps_site_gate_scores; bundles without the key, made before it, are
 * used whole).  A page of another layout than the labelled pages' (less
 * than PS_SITE_LAYOUT_MIN of its text at their block paths:
 * ps_site_model_layout_share) is the base's.
 *
 * A reduced default (issue 33: pagesift-train --reduce, e.g.
 * models/default.fast.model; its reduced_from key) is no base for site
 * models, which are made against the model it was reduced from: their
 * bundles name that one's checksum.  Such a bundle is read against that
 * unreduced model, found here and loaded once, on the first bundle that
 * needs it (ps_site_models_set_unreduced): the file the open_sites caller
 * names (pagesift --site-base), else the reduced bundle's
 * reduced_from_file key (a base name) in the reduced bundle's folder.  Its
 * checksum and support vectors must be what the reduced bundle's
 * reduced_from says, stage by stage, and its block tags the reduced one's;
 * then a page of such a site is scored by the site model and the
 * unreduced model's second stage: the decisions the unreduced default
 * with the same folder gives it.  Every other page keeps the reduced
 * model.  When it is missing or not that model, the bundles made against
 * it are left out with one warning (train/site_models.c) and the run goes
 * on. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_classifier.h"
#include "pagesift/page.h"
#include "pagesift/site_models.h"
#include "pagesift/util.h"

typedef struct site_classifier {
    ps_block_classifier c; /* first: the interface */
    ps_block_classifier *base;
    ps_site_models *sites;
    int stacked; /* base is a stack: a site model is its first stage */
    /* base a reduced bundle: the checksum of the model it was reduced from
     * (reduced_from's first word), its file (NULL: not known), the reduced
     * bundle's file, and that model as a classifier once a bundle needed it
     * (unreduced_open, called by the store once) */
    char *red_sum;
    char *unreduced_path;
    char *base_path;
    ps_block_classifier *unreduced;
} site_classifier;

static void site_free(ps_block_classifier *c)
{
    site_classifier *s = (site_classifier *)c;
    ps_site_models_free(s->sites); /* its bundles borrow the base's and the unreduced's */
    ps_block_classifier_free(s->unreduced);
    ps_block_classifier_free(s->base);
    free(s->red_sum);
    free(s->unreduced_path);
    free(s->base_path);
    free(s);
}

/* The blocks at the paths the site's labelled pages agree on
 * (ps_site_model_path_label) take that label, after both stages: a score
 * of at least PS_SITE_PATH_SCORE for content, at most its negative for
 * noise; the passes after the classifier read it like any score. */
static void site_paths(const ps_model *m, const ps_classify_in *in, double *score)
{
    size_t nb;
    const ps_block *blocks = ps_page_blocks(in->page, &nb);
    for (size_t i = 0; i < in->n; i++) {
        const uint32_t b = in->blocks[i];
        const int l = b < nb ? ps_site_model_path_label(m, blocks[b].path, blocks[b].own.text_chars) : -1;
        if (l == 1 && score[b] < PS_SITE_PATH_SCORE)
            score[b] = PS_SITE_PATH_SCORE;
        else if (l == 0 && score[b] > -PS_SITE_PATH_SCORE)
            score[b] = -PS_SITE_PATH_SCORE;
    }
}

static int site_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    const site_classifier *s = (const site_classifier *)c;
    const ps_model *m = in->site && *in->site ? ps_site_models_get(s->sites, in->site) : NULL;
    if (m && ps_site_model_layout_share(m, in->page, in->blocks, in->n) < PS_SITE_LAYOUT_MIN) {
        ps_site_models_release(s->sites, m); /* not the layout it learnt */
        m = NULL;
    }
    if (!m)
        return s->base->score(s->base, in, score, err);
    if (in->model && in->model_cap)
        snprintf(in->model, in->model_cap, "site:%s", in->site);
    /* a bundle made against the model the base was reduced from was read
     * against it (the store accepts no other base): that model's second
     * stage follows (s->unreduced was set before the store handed out
     * such a bundle) */
    const char *bsum = ps_model_info(m, "base_checksum");
    const ps_block_classifier *stack =
        s->red_sum && bsum && strcmp(bsum, s->red_sum) == 0 && s->unreduced ? s->unreduced : s->base;
    /* a site model that leaves the SVM as it is (its block paths alone):
     * the default's own scores, computed once (not a second time as the
     * gate would) */
    const int same = ps_site_model_is_base(m);
    ps_classify_in quiet = *in;
    quiet.model = NULL; /* the record names the site model, not "default" */
    int rc = same ? stack->score(stack, &quiet, score, err)
             : s->stacked ? ps_block_classifier_stack_score(stack, m, in, score, err) /* gated inside */
                          : ps_block_classifier_svm_score(m, in, score, err);
    if (rc == 0 && !s->stacked && !same)
        rc = ps_site_gate_scores(m, ps_block_classifier_svm_model(stack), in, score, err);
    if (rc == 0)
        site_paths(m, in, score);
    ps_site_models_release(s->sites, m);
    return rc;
}

int ps_block_classifier_has_site_model(const ps_block_classifier *c, const char *site)
{
    return c && c->score == site_score && site && *site &&
           ps_site_models_has(((const site_classifier *)c)->sites, site);
}

/* Same value or both absent. */
static int same_key(const ps_model *a, const ps_model *b, const char *key)
{
    const char *x = ps_model_info(a, key), *y = ps_model_info(b, key);
    return x == y || (x && y && strcmp(x, y) == 0);
}

/* The model the base was reduced from, opened as a classifier of the base's
 * kind (ps_block_classifier_open's steps, with each stage checked against
 * the reduced bundle's reduced_from before it is kept): its first stage for
 * the store (ps_site_unreduced_fn), or NULL + err. */
static const ps_model *unreduced_open(void *ctx, ps_error *err)
{
    site_classifier *s = ctx;
    const ps_model *r1 = ps_block_classifier_svm_model(s->base);
    if (!s->unreduced_path) {
        ps_set_error(err, PS_ERR_USAGE,
                     "%s names no file it was reduced from (no reduced_from_file key: it was reduced "
                     "before reductions wrote one)",
                     s->base_path ? s->base_path : "the model");
        return NULL;
    }
    ps_block_classifier *c = ps_svm_classifier_open(s->unreduced_path, err);
    if (!c)
        return NULL;
    const ps_model *u1 = ps_svm_classifier_model(c);
    ps_model *u2 = NULL, *rf = NULL, *r2 = NULL;
    ps_error e2 = {0};
    if (ps_model_check_reduction(r1, u1, err) != 0)
        goto fail;
    if (!same_key(r1, u1, "block_tags")) { /* not under the checksum */
        ps_set_error(err, PS_ERR_FORMAT, "%s: its block_tags are not those of %s", s->unreduced_path,
                     s->base_path ? s->base_path : "the model loaded");
        goto fail;
    }
    u2 = ps_model_next_stage(u1, &e2);
    if (!u2 && e2.code) {
        *err = e2;
        goto fail;
    }
    if (s->stacked) {
        /* the reduced second stage's reduced_from: read again from its file
         * (the classifier keeps no text), which must still be the one loaded */
        if (!(rf = ps_model_load(s->base_path, err)))
            goto fail;
        if (!same_key(rf, r1, "checksum")) {
            ps_set_error(err, PS_ERR_FORMAT, "%s changed since it was loaded", s->base_path);
            goto fail;
        }
        e2 = (ps_error){0};
        if (!(r2 = ps_model_next_stage(rf, &e2)) && e2.code) {
            *err = e2;
            goto fail;
        }
    }
    if (!u2 != !r2) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: %s stage(s), %s has %s", s->unreduced_path, u2 ? "two" : "one",
                     s->base_path ? s->base_path : "the model loaded", r2 ? "two" : "one");
        goto fail;
    }
    if (r2 && ps_model_check_reduction(r2, u2, err) != 0)
        goto fail;
    ps_model_free(r2);
    ps_model_free(rf);
    ps_svm_classifier_drop_text(c); /* prediction only, as ps_block_classifier_open */
    if (u2) {
        ps_model_drop_text(u2);
        if (!(c = ps_block_classifier_stack(c, u2, s->unreduced_path, err)))
            return NULL;
    }
    s->unreduced = c;
    return ps_block_classifier_svm_model(c);
fail:
    ps_model_free(r2);
    ps_model_free(rf);
    ps_model_free(u2);
    ps_block_classifier_free(c);
    return NULL;
}

/* Where the model a reduced base was reduced from is: @p given, else its
 * reduced_from_file key (a base name) in @p base_path's folder; NULL when
 * neither (or out of memory: then the load says it is not known). */
static char *unreduced_where(const ps_model *bm, const char *base_path, const char *given)
{
    if (given)
        return strdup(given);
    const char *f = ps_model_info(bm, "reduced_from_file");
    if (!f || !*f || strchr(f, '/') || strcmp(f, ".") == 0 || strcmp(f, "..") == 0 || !base_path)
        return NULL;
    const char *slash = strrchr(base_path, '/');
    size_t dl = slash ? (size_t)(slash - base_path) + 1 : 0;
    char *p = malloc(dl + strlen(f) + 1);
    if (p) {
        memcpy(p, base_path, dl);
        strcpy(p + dl, f);
    }
    return p;
}

ps_block_classifier *ps_block_classifier_open_sites(ps_block_classifier *base, const char *base_path,
                                                    const char *dir, size_t cap_bytes,
                                                    const char *unreduced_path, ps_error *err)
{
    const ps_model *bm = ps_block_classifier_svm_model(base);
    if (!bm) {
        ps_set_error(err, PS_ERR_USAGE, "site models need an SVM default model");
        ps_block_classifier_free(base);
        return NULL;
    }
    site_classifier *s = calloc(1, sizeof *s);
    if (!s) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ps_block_classifier_free(base);
        return NULL;
    }
    s->base = base;
    s->stacked = ps_block_classifier_stack_first(base) != NULL;
    if (!(s->sites = ps_site_models_open(dir, bm, cap_bytes, err))) {
        site_free(&s->c);
        return NULL;
    }
    if (!ps_site_models_count(s->sites)) /* a mistyped or not yet filled folder */
        ps_print("warning: %s holds no site models (SITE.model files): every page gets the default model", dir);
    const char *red = ps_model_info(bm, "reduced_from"); /* "<checksum> <n_sv>" */
    if (red && *red) {
        if (!(s->red_sum = strndup(red, strcspn(red, " "))) || (base_path && !(s->base_path = strdup(base_path)))) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            site_free(&s->c);
            return NULL;
        }
        s->unreduced_path = unreduced_where(bm, base_path, unreduced_path);
        ps_site_models_set_unreduced(s->sites, unreduced_open, s);
    }
    s->c.kind = "site";
    s->c.n_feat = base->n_feat;
    s->c.feat_ids = base->feat_ids;
    s->c.block_tags = base->block_tags;
    s->c.score = site_score;
    s->c.free = site_free;
    return &s->c;
}
