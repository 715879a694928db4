/* methods/classifier_typed.c — the typed kind (issue 34): a second block
 * model trained with the page-type probabilities among its features
 * (x_type_*, docs/PAGE_TYPES.md) beside the shipped one, for the pages the
 * page-type classifier calls documentation, a forum thread or a product
 * page (its most probable type).
 *
 * One rule: on such a page the typed model scores the blocks in place of
 * the base; on any other page the base alone does and the typed model
 * costs nothing.  Why only there: trained on the same pages, a model that
 * sees the type learns what a block is worth on each kind of page — the
 * reference of a documentation page, the posts of a thread, the
 * description of a product — and gains on those three kinds, but loses on
 * collections and a little on articles, which the base serves better
 * (wcxb-dev under site-grouped CV; docs/research/QUALITY.md, "Page types,
 * twelfth round").  A page a per-site model scores (--models DIR) is left
 * to that model, like the grid kind does.
 *
 * The typed model reads features the base does not compute (its x_type_*
 * columns, maybe others): the kind keeps the base's feature list for the
 * page's rows (the passes and the grid model read those) and makes the
 * typed model's own rows on demand on a typed page (ps_block_rows_new; a
 * column they share has the same value in both).  Both models must parse
 * pages into the same blocks (same block tags); ps_block_classifier_typed
 * refuses another. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_signals.h"
#include "methods/block_classifier.h"
#include "pagesift/features.h"
#include "pagesift/page.h"

typedef struct typed_classifier {
    ps_block_classifier c;      /* first: the interface (the base's features and tags) */
    ps_block_classifier *base;  /* the shipped model (or its per-site wrapper) */
    ps_block_classifier *typed; /* the model with the page-type features */
    unsigned kinds; /* bit per PS_PTYPE_* slot: the page types it serves */
} typed_classifier;

static void typed_free(ps_block_classifier *c)
{
    typed_classifier *t = (typed_classifier *)c;
    ps_block_classifier_free(t->base);
    ps_block_classifier_free(t->typed);
    free(t);
}

/* The page's most probable type (PS_PTYPE_*), -1 without page types. */
static int top_type(const ps_page *page)
{
    int best = -1;
    double p = 0;
    for (int s = 0; s < PS_PTYPE_SLOTS; s++) {
        double q = ps_page_type_prob(page, s);
        if (q > p)
            p = q, best = s;
    }
    return best;
}

static int typed_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    const typed_classifier *t = (const typed_classifier *)c;
    int type = in->n ? top_type(in->page) : -1;
    if (type < 0 || !(t->kinds & 1u << type) || ps_block_classifier_has_site_model(t->base, in->site))
        return t->base->score(t->base, in, score, err);
    ps_block_rows *rows = ps_block_rows_new(in->page, t->typed->feat_ids, t->typed->n_feat);
    if (!rows)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    ps_classify_in in2 = *in;
    in2.rows = rows;
    int rc = t->typed->score(t->typed, &in2, score, err);
    ps_block_rows_free(rows);
    if (rc == 0 && in->model && in->model_cap) {
        size_t len = strlen(in->model);
        if (len + sizeof "+typed" <= in->model_cap)
            memcpy(in->model + len, "+typed", sizeof "+typed");
    }
    return rc;
}

ps_block_classifier *ps_block_classifier_typed(ps_block_classifier *base, ps_block_classifier *typed,
                                               unsigned kinds, const char *path, ps_error *err)
{
    typed_classifier *t = NULL;
    if (!ps_block_tags_same(base->block_tags, typed->block_tags)) {
        ps_set_error(err, PS_ERR_FORMAT,
                     "%s: the typed model's block tags are not the model's "
                     "(train both by one recipe: scripts/train-default-model)",
                     path);
        goto fail;
    }
    if (!(t = calloc(1, sizeof *t))) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    t->c = (ps_block_classifier){.kind = "typed",
                                 .n_feat = base->n_feat,
                                 .feat_ids = base->feat_ids,
                                 .block_tags = base->block_tags,
                                 .score = typed_score,
                                 .free = typed_free};
    t->base = base;
    t->typed = typed;
    t->kinds = kinds;
    return &t->c;
fail:
    free(t);
    ps_block_classifier_free(base);
    ps_block_classifier_free(typed);
    return NULL;
}
