/* tests/test_classifier_grid.c — the grid kind's two rules
 * (methods/classifier_grid.c) on a hand-written listing page, with two
 * stand-in block models of fixed scores (the combination is what is under
 * test, not an SVM): on a page typed a grid kind (here a forum thread) the
 * scores are the mean of the two models'; on a page the base model would
 * leave nearly empty (a headline out of a list of items) the grid model may
 * add blocks but never drop one the base kept; on a page whose content the
 * base finds, and on a page a site model scored, the grid model is not even
 * asked. */
#include <stdlib.h>
#include <string.h>

#include "extract/page_signals.h"
#include "methods/block_classifier.h"
#include "tests/test_util.h"

/* A headline, then ten result items of about 60 characters each. */
static ps_page *listing_page(void)
{
    char html[4096] = "<html><head><title>Results</title></head><body><div id=head><h1>Results</h1></div>";
    for (int i = 0; i < 10; i++) {
        char item[200];
        snprintf(item, sizeof item,
                 "<div class=item>Result number %d: a short description of one item here</div>", i);
        strcat(html, item);
    }
    strcat(html, "</body></html>");
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    return pg;
}

/* A stand-in model: @c head for the block with id "head", @c item for the
 * others; counts its calls. */
typedef struct fixed {
    ps_block_classifier c;
    double head, item;
    int *calls;
} fixed;

static int fixed_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    (void)err;
    const fixed *f = (const fixed *)c;
    size_t n;
    const ps_block *b = ps_page_blocks(in->page, &n);
    for (size_t i = 0; i < in->n; i++)
        score[in->blocks[i]] = strcmp(b[in->blocks[i]].id_attr, "head") == 0 ? f->head : f->item;
    (*f->calls)++;
    return 0;
}

static void fixed_free(ps_block_classifier *c)
{
    free(c);
}

static ps_block_classifier *fixed_new(double head, double item, int *calls)
{
    fixed *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->c = (ps_block_classifier){.kind = "fixed", .score = fixed_score, .free = fixed_free};
    f->head = head;
    f->item = item;
    f->calls = calls;
    return &f->c;
}

/* Score every block with text of @p pg by the grid kind over a base that
 * keeps only the headline (items -1, headline 1) and a grid model that
 * keeps the items (2) and drops the headline (-5). */
static void run(ps_page *pg, double gate, double rescue, const char *model, double *score, int *grid_calls)
{
    int base_calls = 0;
    *grid_calls = 0;
    ps_error err = {0};
    ps_block_classifier *g = ps_block_classifier_grid(fixed_new(1, -1, &base_calls), fixed_new(-5, 2, grid_calls),
                                                      gate, rescue, "test.grid.model", &err);
    assert_non_null(g);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint32_t list[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 64; i++)
        if (b[i].own.text_chars)
            list[m++] = (uint32_t)i;
    char name[32] = "";
    if (model)
        snprintf(name, sizeof name, "%s", model);
    ps_classify_in in = {.page = pg, .site = "", .blocks = list, .n = m, .model = name, .model_cap = sizeof name};
    assert_int_equal(g->score(g, &in, score, &err), 0);
    assert_int_equal(base_calls, 1);
    ps_block_classifier_free(g);
}

/* The score of the first block whose id (by_id) or class is @p name. */
static double score_of(ps_page *pg, const double *score, int by_id, const char *name)
{
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(by_id ? b[i].id_attr : b[i].class_attr, name) == 0)
            return score[i];
    fail_msg("no block %s", name);
    return 0;
}

static double head_score(ps_page *pg, const double *score)
{
    return score_of(pg, score, 1, "head");
}

static double first_item_score(ps_page *pg, const double *score)
{
    return score_of(pg, score, 0, "item");
}

static void set_type(ps_page *pg, const char *label)
{
    const char *const labels[1] = {label};
    const double prob[1] = {1.0};
    ps_page_set_type_probs(pg, labels, prob, 1);
}

/* The base keeps the headline only (under 5 % of the text): the items come
 * in at the mean (0.5), the headline stays at the base's 1. */
static void test_rescue_adds_never_drops(void **state)
{
    (void)state;
    ps_page *pg = listing_page();
    set_type(pg, "article");
    double score[64];
    int calls;
    run(pg, 0.7, 0.05, NULL, score, &calls);
    assert_int_equal(calls, 1);
    assert_true(first_item_score(pg, score) > 0);
    assert_true(head_score(pg, score) == 1.0);
    /* rescue off: the base's scores as they were */
    run(pg, 0.7, 0, NULL, score, &calls);
    assert_int_equal(calls, 0);
    assert_true(first_item_score(pg, score) == -1.0);
    ps_page_free(pg);
}

/* A thread (a grid kind) passes the gate: the mean everywhere, so the grid
 * model may drop what the base kept too. */
static void test_gate_takes_the_mean(void **state)
{
    (void)state;
    ps_page *pg = listing_page();
    set_type(pg, "forum");
    double score[64];
    int calls;
    run(pg, 0.7, 0.05, NULL, score, &calls);
    assert_int_equal(calls, 1);
    assert_true(first_item_score(pg, score) == 0.5);
    assert_true(head_score(pg, score) == -2.0);
    ps_page_free(pg);
}

/* A base that keeps the items keeps more than 5 % of the text: no rescue,
 * the grid model is not asked.  A page a site model scored is left to it. */
static void test_left_alone(void **state)
{
    (void)state;
    ps_page *pg = listing_page();
    set_type(pg, "article");
    int base_calls = 0, grid_calls = 0;
    ps_error err = {0};
    ps_block_classifier *g = ps_block_classifier_grid(fixed_new(-1, 1, &base_calls), fixed_new(-5, 2, &grid_calls),
                                                      0.7, 0.05, "test.grid.model", &err);
    assert_non_null(g);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint32_t list[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 64; i++)
        if (b[i].own.text_chars)
            list[m++] = (uint32_t)i;
    double score[64];
    ps_classify_in in = {.page = pg, .site = "", .blocks = list, .n = m};
    assert_int_equal(g->score(g, &in, score, &err), 0);
    assert_int_equal(grid_calls, 0);
    ps_block_classifier_free(g);

    set_type(pg, "forum");
    run(pg, 0.7, 0.05, "site:example.org", score, &grid_calls);
    assert_int_equal(grid_calls, 0);
    assert_true(first_item_score(pg, score) == -1.0);
    ps_page_free(pg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rescue_adds_never_drops),
        cmocka_unit_test(test_gate_takes_the_mean),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
