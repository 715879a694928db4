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
 * page of a site with a model gets both stages (issue 30). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "methods/block_classifier.h"
#include "pagesift/site_models.h"

typedef struct site_classifier {
    ps_block_classifier c; /* first: the interface */
    ps_block_classifier *base;
    ps_site_models *sites;
    int stacked; /* base is a stack: a site model is its first stage */
} site_classifier;

static void site_free(ps_block_classifier *c)
{
    site_classifier *s = (site_classifier *)c;
    ps_site_models_free(s->sites);
    ps_block_classifier_free(s->base);
    free(s);
}

static int site_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    const site_classifier *s = (const site_classifier *)c;
    const ps_model *m = in->site && *in->site ? ps_site_models_get(s->sites, in->site) : NULL;
    if (!m)
        return s->base->score(s->base, in, score, err);
    if (in->model && in->model_cap)
        snprintf(in->model, in->model_cap, "site:%s", in->site);
    int rc = s->stacked ? ps_block_classifier_stack_score(s->base, m, in, score, err)
                        : ps_block_classifier_svm_score(m, in, score, err);
    ps_site_models_release(s->sites, m);
    return rc;
}

ps_block_classifier *ps_block_classifier_open_sites(ps_block_classifier *base, const char *dir,
                                                    size_t cap_bytes, ps_error *err)
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
    s->c.kind = "site";
    s->c.n_feat = base->n_feat;
    s->c.feat_ids = base->feat_ids;
    s->c.block_tags = base->block_tags;
    s->c.score = site_score;
    s->c.free = site_free;
    return &s->c;
}
