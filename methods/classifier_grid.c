/* methods/classifier_grid.c — the grid kind (issue 34): a block model
 * trained on pages of every type in equal shares (WCXB's development split,
 * scripts/train-grid-model) beside the shipped one, for the pages the
 * page-type classifier calls a listing, a collection or a service page.
 *
 * The shipped model learnt from articles mostly; on a page of 40 product
 * tiles or 30 result rows it scores each short item as noise.  The grid
 * model has seen as many listings and collections as articles.  On a page
 * whose probability of the grid kinds (listing + collection + service) is
 * at least the gate, a block's score is the mean of the two models' scores;
 * on every other page the base model alone decides, and the grid model
 * costs nothing.  The mean and not the grid model alone: articles the
 * classifier takes for grids lose less (wcxb-dev under CV: articles 0.952
 * with the mean, 0.947 with the grid model alone; docs/QUALITY.md, "Page
 * types, third round").
 *
 * A page a per-site model scored (--models DIR) is left to that model.
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
} grid_classifier;

static void grid_free(ps_block_classifier *c)
{
    grid_classifier *g = (grid_classifier *)c;
    ps_block_classifier_free(g->base);
    ps_block_classifier_free(g->grid);
    free(g);
}

static int grid_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    const grid_classifier *g = (const grid_classifier *)c;
    if (g->base->score(g->base, in, score, err) != 0)
        return -1;
    double p = ps_page_type_prob(in->page, PS_PTYPE_LISTING) + ps_page_type_prob(in->page, PS_PTYPE_COLLECTION) +
               ps_page_type_prob(in->page, PS_PTYPE_SERVICE);
    if (in->n == 0 || !(p > 0 && p >= g->gate))
        return 0;
    if (in->model && strncmp(in->model, "site:", 5) == 0)
        return 0; /* a site's own model (methods/classifier_site.c) knows its pages better */
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
            score[b] = 0.5 * (score[b] + s2[b]);
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

/* Same names in the same order (NULL = the default tags). */
static int same_tags(const char *const *a, const char *const *b)
{
    if (!a)
        a = ps_default_block_tags;
    if (!b)
        b = ps_default_block_tags;
    for (; *a && *b; a++, b++)
        if (strcmp(*a, *b) != 0)
            return 0;
    return !*a && !*b;
}

ps_block_classifier *ps_block_classifier_grid(ps_block_classifier *base, ps_block_classifier *grid,
                                              double gate, const char *path, ps_error *err)
{
    if (base->n_feat != grid->n_feat ||
        memcmp(base->feat_ids, grid->feat_ids, base->n_feat * sizeof *base->feat_ids) != 0 ||
        !same_tags(base->block_tags, grid->block_tags)) {
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
    return &g->c;
}
