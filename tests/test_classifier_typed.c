/* tests/test_classifier_typed.c — the typed kind (methods/classifier_typed.c)
 * on a hand-written page, with two stand-in block models (what is under
 * test is which model scores and what rows it reads, not an SVM): on a page
 * whose most probable type is a product page the typed model scores it,
 * reading rows of its own features made on demand — the columns it shares
 * with the base as the base's, its x_type_* columns from the page's types — and
 * the page's model name says so; on an article, or a page without types,
 * the base scores it and the typed model is not asked; a typed model that
 * parses pages into other blocks is refused by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_signals.h"
#include "methods/block_classifier.h"
#include "pagesift/features.h"
#include "tests/test_util.h"

static ps_page *product_page(void)
{
    ps_page *pg = parse_str("<html><head><title>Kettle</title></head><body>"
                            "<div id=head><h1>A steel kettle</h1></div>"
                            "<div class=desc>Boils a litre of water in three minutes and keeps it warm.</div>"
                            "<div class=spec>Weight 1.2 kg, height 24 cm, cable 75 cm long.</div>"
                            "</body></html>");
    assert_non_null(pg);
    return pg;
}

/* A stand-in model over two features: a block's score is 10 * its row's
 * first value + its second (the rows it was given), or a constant
 * (NAN: from the rows); counts its calls. */
typedef struct stand_in {
    ps_block_classifier c;
    int ids[2];
    double constant;
    int calls;
} stand_in;

static int stand_in_score(const ps_block_classifier *c, const ps_classify_in *in, double *score, ps_error *err)
{
    (void)err;
    stand_in *s = (stand_in *)c;
    for (size_t i = 0; i < in->n; i++) {
        uint32_t b = in->blocks[i];
        double row[2];
        ps_block_rows_get(in->rows, &b, 1, row);
        score[b] = isnan(s->constant) ? 10 * row[0] + row[1] : s->constant;
    }
    if (in->model && in->model_cap)
        snprintf(in->model, in->model_cap, "default");
    s->calls++;
    return 0;
}

static void stand_in_free(ps_block_classifier *c)
{
    free(c);
}

static stand_in *stand_in_new(const char *f1, const char *f2, double constant, const char *const *tags)
{
    stand_in *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->c = (ps_block_classifier){.kind = "stand-in", .n_feat = 2, .feat_ids = s->ids, .block_tags = tags,
                                 .score = stand_in_score, .free = stand_in_free};
    s->ids[0] = ps_feature_lookup(f1);
    s->ids[1] = ps_feature_lookup(f2);
    assert_true(s->ids[0] >= 0 && s->ids[1] >= 0);
    s->constant = constant;
    return s;
}

static void set_type(ps_page *pg, const char *top, double p)
{
    const char *const labels[2] = {top, "article"};
    const double prob[2] = {p, 1 - p};
    ps_page_set_type_probs(pg, labels, prob, 2);
}

/* The typed kind over a base reading R1 and x_text_density (scores: -3)
 * and a typed model reading x_type_product and R1 (scores from its rows),
 * serving product pages and threads; scores @p pg's blocks with text into
 * @p score, the model name into @p name. */
static void run(ps_page *pg, double *score, char *name, size_t cap, int *base_calls, int *typed_calls)
{
    stand_in *base = stand_in_new("R1", "x_text_density", -3, NULL);
    stand_in *typed = stand_in_new("x_type_product", "R1", NAN, NULL);
    const int *ids = base->ids;
    ps_error err = {0};
    ps_block_classifier *t = ps_block_classifier_typed(&base->c, &typed->c,
                                                       1u << PS_PTYPE_PRODUCT | 1u << PS_PTYPE_FORUM,
                                                       "test.typed.model", &err);
    assert_non_null(t);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    ps_block_rows *rows = ps_block_rows_new(pg, ids, 2); /* the base's rows, as the method makes them */
    assert_non_null(rows);
    uint32_t list[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 64; i++)
        if (b[i].own.text_chars)
            list[m++] = (uint32_t)i;
    assert_true(m >= 3);
    name[0] = 0;
    ps_classify_in in = {.page = pg, .site = "example.org", .rows = rows, .blocks = list, .n = m, .model = name,
                         .model_cap = cap};
    assert_int_equal(t->score(t, &in, score, &err), 0);
    *base_calls = base->calls;
    *typed_calls = typed->calls;
    ps_block_classifier_free(t);
    ps_block_rows_free(rows);
}

/* The R1 value of every block of @p pg. */
static double *r1_of(ps_page *pg)
{
    size_t n;
    ps_page_blocks(pg, &n);
    double *r1 = malloc((n + 1) * sizeof *r1);
    assert_non_null(r1);
    int id = ps_feature_lookup("R1");
    assert_int_equal(ps_page_block_features(pg, &id, 1, r1), 0);
    return r1;
}

/* A product page: the typed model scores every block from rows of its own
 * features (x_type_product = the page's 0.8, R1 the base's column). */
static void test_typed_page_gets_the_typed_model(void **state)
{
    (void)state;
    ps_page *pg = product_page();
    set_type(pg, "product", 0.8);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    double score[64];
    for (size_t i = 0; i < n; i++)
        score[i] = NAN;
    char name[32];
    int base_calls, typed_calls;
    run(pg, score, name, sizeof name, &base_calls, &typed_calls);
    assert_int_equal(base_calls, 0);
    assert_int_equal(typed_calls, 1);
    assert_string_equal(name, "default+typed");
    double *r1 = r1_of(pg);
    size_t scored = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].own.text_chars) {
            assert_true(fabs(score[i] - (10 * ps_page_type_prob(pg, PS_PTYPE_PRODUCT) + r1[i])) < 1e-9);
            scored++;
        }
    assert_true(scored >= 3);
    free(r1);
    ps_page_free(pg);
}

/* An article (its most probable type), and a page without types: the base
 * scores it, the typed model is not asked. */
static void test_other_pages_keep_the_base(void **state)
{
    (void)state;
    ps_page *pg = product_page();
    set_type(pg, "product", 0.4); /* article 0.6 */
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    double score[64];
    char name[32];
    int base_calls, typed_calls;
    run(pg, score, name, sizeof name, &base_calls, &typed_calls);
    assert_int_equal(base_calls, 1);
    assert_int_equal(typed_calls, 0);
    assert_string_equal(name, "default");
    for (size_t i = 0; i < n; i++)
        if (b[i].own.text_chars)
            assert_true(score[i] == -3.0);
    ps_page_free(pg);

    pg = product_page(); /* no page-type classifier ran */
    run(pg, score, name, sizeof name, &base_calls, &typed_calls);
    assert_int_equal(base_calls, 1);
    assert_int_equal(typed_calls, 0);
    ps_page_free(pg);
}

/* A typed model with other block tags would score other blocks: refused,
 * its file named; both models freed (ASan's leak check). */
static void test_other_block_tags_refused(void **state)
{
    (void)state;
    static const char *const tags[] = {"body", "div", NULL};
    stand_in *base = stand_in_new("R1", "x_text_density", 0, NULL);
    stand_in *typed = stand_in_new("x_type_product", "R1", NAN, tags);
    ps_error err = {0};
    assert_null(ps_block_classifier_typed(&base->c, &typed->c, 1u << PS_PTYPE_PRODUCT, "x.typed.model", &err));
    assert_int_equal(err.code, PS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "x.typed.model"));
    assert_non_null(strstr(err.msg, "block tags"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_page_gets_the_typed_model),
        cmocka_unit_test(test_other_pages_keep_the_base),
        cmocka_unit_test(test_other_block_tags_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
