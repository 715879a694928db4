/* methods/classifier_grid.c — the grid kind (issue 34): a block model
 * trained on pages of every type in equal shares (WCXB's development split,
 * scripts/train-grid-model) beside the shipped one, for the pages the
 * page-type classifier calls a listing, a collection, a service page or a
 * forum thread, and for pages the shipped model would leave nearly empty.
 *
 * The shipped model learnt from articles mostly; on a page of 40 product
 * tiles, 30 result rows or 20 posts of a thread it scores each short item
 * as noise.  The grid model has seen as many listings and threads as
 * articles.  Two rules:
 *
 *  - the gate: on a page whose probability of the grid kinds (listing +
 *    collection + service + forum) is at least the gate, a block's score
 *    is the mean of the two models' scores.  The mean and not the grid
 *    model alone: articles the classifier takes for grids lose less
 *    (wcxb-dev under CV: articles 0.952 with the mean, 0.947 with the grid
 *    model alone; docs/research/QUALITY.md, "Page types, third round").
 *  - the rescue: on any other page where the blocks the base scores above
 *    0 hold less than the rescue share of the page's text (after the
 *    template step), a block's score is the larger of the base's and that
 *    mean: the grid model may add what the base left out, never drop what
 *    it kept.  A listing the classifier took for an article (a news
 *    section front, a Wikipedia list) comes out as a headline otherwise.
 *
 * On every other page the base model alone decides, and the grid model
 * costs nothing.  A page a per-site model scored (--models DIR) is left to
 * that model.
 *
 * Both models read the same features of the same blocks (the method
 * computes one row per block), so a grid model must have the base's
 * feature list and block tags; ps_block_classifier_grid refuses another. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_signals.h"
#include "methods/block_classifier.h"
#include "pagesift/page.h"

typedef struct grid_classifier {
    ps_block_classifier c;     /* first: the interface (the base's features and tags) */
    ps_block_classifier *base; /* the shipped model (or its per-site wrapper) */
    ps_block_classifier *grid; /* the grid model */
    double gate;               /* grid-kind probability from which the mean is taken */
    double rescue;             /* share of the text kept below which the rescue adds (0: off) */
} grid_classifier;

static void grid_free(ps_block_classifier *c)
{
    grid_classifier *g = (grid_classifier *)c;
    ps_block_classifier_free(g->base);
    ps_block_classifier_free(g->grid);
    free(g);
}

/* The page's probability of the grid kinds: pages of many short items or
 * posts that the base model scores one by one. */
static double grid_kinds_prob(const ps_page *page)
{
    return ps_page_type_prob(page, PS_PTYPE_LISTING) + ps_page_type_prob(page, PS_PTYPE_COLLECTION) +
           ps_page_type_prob(page, PS_PTYPE_SERVICE) + ps_page_type_prob(page, PS_PTYPE_FORUM);
}

/* 1 when the blocks @p score puts above 0 hold less than @p share of the
 * text of the blocks scored. */
static int keeps_little(const ps_classify_in *in, const double *score, double share)
{
    size_t nb;
    const ps_block *bk = ps_page_blocks(in->page, &nb);
    double kept = 0, all = 0;
    for (size_t i = 0; i < in->n; i++) {
        uint32_t b = in->blocks[i];
        all += bk[b].own.text_chars;
        if (score[b] > 0)
            kept += bk[b].own.text_chars;
    }
    return all > 0 && kept < share * all;
}

static int grid_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    const grid_classifier *g = (const grid_classifier *)c;
    if (g->base->score(g->base, in, score, err) != 0)
        return -1;
    if (in->n == 0 || (in->model && strncmp(in->model, "site:", 5) == 0))
        return 0; /* a site's own model (methods/classifier_site.c) knows its pages better */
    double p = grid_kinds_prob(in->page);
    int gated = p > 0 && p >= g->gate;
    if (!gated && !(g->rescue > 0 && keeps_little(in, score, g->rescue)))
        return 0;
    size_t nb;
    ps_page_blocks(in->page, &nb);
    double *s2 = malloc((nb + 1) * sizeof *s2);
    if (!s2)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    ps_classify_in in2 = *in;
    in2.model = NULL; /* the page's model name stays the base's, with "+grid" */
    in2.model_cap = 0;
    int rc = g->grid->score(g->grid, &in2, s2, err);
    if (rc == 0) {
        for (size_t i = 0; i < in->n; i++) {
            uint32_t b = in->blocks[i];
            double mean = 0.5 * (score[b] + s2[b]);
            score[b] = gated || mean > score[b] ? mean : score[b];
        }
        if (in->model && in->model_cap) {
            size_t len = strlen(in->model);
            if (len + sizeof "+grid" <= in->model_cap)
                memcpy(in->model + len, "+grid", sizeof "+grid");
        }
    }
    free(s2);
    return rc;
}

ps_block_classifier *ps_block_classifier_grid(ps_block_classifier *base, ps_block_classifier *grid,
                                              double gate, double rescue, const char *path, ps_error *err)
{
    if (base->n_feat != grid->n_feat ||
        (base->n_feat && memcmp(base->feat_ids, grid->feat_ids, base->n_feat * sizeof *base->feat_ids) != 0) ||
        !ps_block_tags_same(base->block_tags, grid->block_tags)) {
        ps_set_error(err, PS_ERR_FORMAT,
                     "%s: the grid model's features or block tags are not the model's "
                     "(train both by one recipe: scripts/train-grid-model)",
                     path);
        ps_block_classifier_free(base);
        ps_block_classifier_free(grid);
        return NULL;
    }
    grid_classifier *g = calloc(1, sizeof *g);
    if (!g) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ps_block_classifier_free(base);
        ps_block_classifier_free(grid);
        return NULL;
    }
    g->c = (ps_block_classifier){.kind = "grid",
                                 .n_feat = base->n_feat,
                                 .feat_ids = base->feat_ids,
                                 .block_tags = base->block_tags,
                                 .score = grid_score,
                                 .free = grid_free};
    g->base = base;
    g->grid = grid;
    g->gate = gate;
    g->rescue = rescue;
    return &g->c;
}
