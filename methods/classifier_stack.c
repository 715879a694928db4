/* methods/classifier_stack.c — the stacked block classifier (issue 14): a
 * first-stage SVM scores every block alone, then a second-stage SVM decides
 * again from each block's own features and the context features of
 * features/context.c (the first stage's scores of its parent, siblings,
 * neighbours in reading order and the page's best).
 *
 * A stacked bundle is two bundles in one file (docs/MODEL_FORMAT.md): the
 * first stage's, then the second stage's right after its end line.  A
 * reader that knows one stage only (ps_model_load) sees the first, which is
 * a complete model on its own.  The second stage's features are the first's
 * (a subset, any order) and context features (c_*); its decision values are
 * on the SVM's scale too, so the threshold, --favor and the passes read
 * them as they read the first stage's.  A block the first stage scores
 * below the second stage's gate (ps_model_stack_gate: the lowest first-stage
 * score it was trained on) keeps its first-stage score: the second stage
 * never learnt about such blocks, and scoring only the others saves time. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_classifier.h"
#include "pagesift/features.h"
#include "pagesift/page.h"

typedef struct stack_classifier {
    ps_block_classifier c;      /* first: the interface */
    ps_block_classifier *first; /* the "svm" kind over the first bundle */
    ps_model *second;
    size_t n2;
    double gate;                /* blocks the first stage scores below: not
                                   judged again (ps_model_stack_gate) */
    size_t chunk;               /* second-stage rows classified at a time */
    /* per second-stage feature (ps_context_sources): >= 0 its column in the first stage's row,
     * < 0 context feature -1 - src */
    int src[PS_MODEL_MAX_FEATURES];
} stack_classifier;

/* rows of the second stage classified at a time (a row is as wide as the
 * first stage's plus the context, about 500 bytes, and the first stage's
 * row is made again beside it, 400 more; a page may have 100 000 blocks,
 * whose rows all at once would take 90 MB; 1 024 at a time took 0.9 MB of
 * heap, a sixth of a 331 KB page's own peak: 256) */
#define STACK_CHUNK 256

static void stack_free(ps_block_classifier *c)
{
    stack_classifier *s = (stack_classifier *)c;
    ps_block_classifier_free(s->first);
    ps_model_free(s->second);
    free(s);
}

/* The two stages with @p first as the first stage: the stack's own, or a
 * site model that is a delta against it (methods/classifier_site.c), whose
 * scores then feed the same second stage. */
static int stack_score_with(const stack_classifier *s, const ps_model *first, const ps_classify_in *in,
                            double *score, ps_error *err)
{
    size_t n = in->n, nf = s->c.n_feat, n2 = s->n2;
    if (n == 0)
        return 0;
    if (ps_block_classifier_svm_score(first, in, score, err) != 0)
        return -1;
    /* a site model decides where the base's own first stage is unsure */
    const ps_model *own = ps_block_classifier_svm_model(s->first);
    if (first != own && ps_site_gate_scores(first, own, in, score, err) != 0)
        return -1;
    size_t nb;
    const ps_block *blocks = ps_page_blocks(in->page, &nb);
    int32_t *parent = malloc(n * sizeof *parent);
    int32_t *item = malloc((nb + 1) * sizeof *item); /* block -> item, -1 */
    uint32_t *chars = malloc(n * sizeof *chars);
    double *s1 = malloc(n * sizeof *s1);
    size_t chunk = n < s->chunk ? n : s->chunk;
    double *rows = malloc(chunk * n2 * sizeof *rows);
    const double *all = ps_block_rows_all(in->rows); /* the page's matrix, when it was made */
    double *x = all ? NULL : malloc((chunk * nf + 1) * sizeof *x); /* else their first-stage rows */
    uint32_t *which = malloc((chunk + 1) * sizeof *which); /* and blocks */
    double *dec = malloc(chunk * sizeof *dec);
    uint8_t *pred = malloc(chunk);
    uint32_t *judged = malloc(chunk * sizeof *judged); /* second-stage row -> item */
    int rc = 0;
    ps_context *cx = NULL;
    if (!parent || !item || !chars || !s1 || !rows || (!all && !x) || !which || !dec || !pred || !judged) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t b = 0; b < nb; b++)
        item[b] = -1;
    for (size_t i = 0; i < n; i++)
        item[in->blocks[i]] = (int32_t)i;
    for (size_t i = 0; i < n; i++) {
        uint32_t b = in->blocks[i];
        int32_t p = blocks[b].parent;
        while (p >= 0 && item[p] < 0) /* the nearest enclosing scored block */
            p = blocks[p].parent;
        parent[i] = p >= 0 ? item[p] : -1;
        chars[i] = blocks[b].own.text_chars;
        s1[i] = score[b];
    }
    if (!(cx = ps_context_new(n, parent, chars, s1))) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the second stage's rows, of the blocks above the gate only (the
     * others keep the first stage's score); a row's decision value does not
     * depend on the rows classified with it (train/predict.c) */
    for (size_t i = 0; i < n;) {
        size_t m = 0;
        for (; i < n && m < chunk; i++) {
            if (ps_stack_gated(s1[i], s->gate))
                continue;
            which[m] = in->blocks[i];
            judged[m++] = (uint32_t)i;
        }
        if (!all)
            ps_block_rows_get(in->rows, which, m, x);
        for (size_t r = 0; r < m; r++) {
            double ctx[PS_CONTEXT_FEATURES];
            ps_context_item(cx, judged[r], ctx);
            ps_context_row(s->src, n2, all ? all + (size_t)which[r] * nf : x + r * nf, ctx, rows + r * n2);
        }
        ps_model_predict_many(s->second, rows, n2, NULL, m, pred, dec);
        for (size_t r = 0; r < m; r++)
            score[in->blocks[judged[r]]] = dec[r];
    }
done:
    ps_context_free(cx); /* reads parent, chars and s1 */
    free(parent);
    free(item);
    free(chars);
    free(s1);
    free(rows);
    free(x);
    free(which);
    free(dec);
    free(pred);
    free(judged);
    return rc;
}

static int stack_score(const ps_block_classifier *c, const ps_classify_in *in, double *score,
                       ps_error *err)
{
    const stack_classifier *s = (const stack_classifier *)c;
    if (in->model && in->model_cap)
        snprintf(in->model, in->model_cap, "default");
    return stack_score_with(s, ps_block_classifier_svm_model(s->first), in, score, err);
}

int ps_block_classifier_stack_score(const ps_block_classifier *c, const ps_model *first,
                                    const ps_classify_in *in, double *score, ps_error *err)
{
    if (!c || c->score != stack_score)
        return ps_set_error(err, PS_ERR_USAGE, "not a stacked classifier");
    return stack_score_with((const stack_classifier *)c, first, in, score, err);
}

ps_block_classifier *ps_block_classifier_stack(ps_block_classifier *first, ps_model *second,
                                               const char *path, ps_error *err)
{
    stack_classifier *s = calloc(1, sizeof *s);
    if (!s) {
        ps_block_classifier_free(first);
        ps_model_free(second);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->first = first;
    s->second = second;
    s->c.kind = "stack";
    s->c.score = stack_score;
    s->c.free = stack_free;
    s->c.n_feat = first->n_feat;
    s->c.feat_ids = first->feat_ids;
    s->c.block_tags = first->block_tags;
    s->n2 = ps_model_n_features(second);
    s->gate = ps_model_stack_gate(second);
    s->chunk = STACK_CHUNK;
    if (ps_context_sources(second, first->feat_ids, first->n_feat, s->src) != 0) {
        ps_set_error(err, PS_ERR_FORMAT,
                     "%s: the second stage reads features the first does not compute (%s; first: %s)",
                     path, ps_model_feature_names(second), ps_model_feature_names(ps_block_classifier_svm_model(first)));
        stack_free(&s->c);
        return NULL;
    }
    return &s->c;
}

void ps_block_classifier_stack_set_chunk(ps_block_classifier *c, size_t rows)
{
    if (c && c->score == stack_score)
        ((stack_classifier *)c)->chunk = rows ? rows : STACK_CHUNK;
}

const ps_block_classifier *ps_block_classifier_stack_first(const ps_block_classifier *c)
{
    return c && c->score == stack_score ? ((const stack_classifier *)c)->first : NULL;
}

const ps_model *ps_block_classifier_svm_model(const ps_block_classifier *c)
{
    const ps_block_classifier *first = ps_block_classifier_stack_first(c); /* a stack: its first stage's */
    return ps_svm_classifier_model(first ? first : c);
}
