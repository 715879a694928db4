/* tests/test_block_classifier.c — the block classifier interface
 * (methods/block_classifier.h) over the shipped model: its features and
 * block tags are the bundle's; scoring many blocks of a real page at once
 * (rows made on demand a chunk at a time, identical rows scored once) gives
 * every block of every sample page and of a page of 3 000 blocks exactly the
 * decision value ps_model_predict gives it alone, and leaves the blocks not
 * asked for alone; the stack's second stage gives the same bits
 * whatever the number of rows it classifies at a time; a missing bundle is
 * an error naming it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdlib.h>

#include "methods/block_classifier.h"
#include "pagesift/features.h"
#include "tests/test_util.h"
#include "pagesift/page.h"

#define MODEL PS_SOURCE_DIR "/models/default.model"

/* Score the blocks of @p pg with text but every third one (a sample page's
 * matrix read in place, identical rows once): each gets exactly
 * ps_model_predict's value of its row as ps_page_block_features computes
 * it, the others stay untouched.  Returns the blocks scored. */
static size_t score_page(const ps_block_classifier *c, const ps_model *m, const ps_page *pg)
{
    ps_error err = {0};
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    double *x = malloc((nb * c->n_feat + 1) * sizeof *x), *score = malloc((nb + 1) * sizeof *score);
    uint32_t *list = malloc((nb + 1) * sizeof *list);
    assert_true(x && score && list);
    assert_int_equal(ps_page_block_features(pg, c->feat_ids, c->n_feat, x), 0);
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        score[i] = 1234.5;
        if (b[i].own.text_chars && i % 3 != 1)
            list[n++] = (uint32_t)i;
    }
    ps_block_rows *rows = ps_block_rows_new(pg, c->feat_ids, c->n_feat);
    assert_non_null(rows);
    ps_classify_in in = {.page = pg, .site = "", .rows = rows, .blocks = list, .n = n};
    assert_int_equal(c->score(c, &in, score, &err), 0);
    size_t listed = 0;
    for (size_t i = 0; i < nb; i++) {
        if (listed < n && list[listed] == i) {
            double alone;
            ps_model_predict(m, x + i * c->n_feat, &alone);
            assert_true(score[i] == alone); /* exactly, not nearly */
            listed++;
        } else {
            assert_true(score[i] == 1234.5); /* not asked for: untouched */
        }
    }
    ps_block_rows_free(rows);
    free(x);
    free(score);
    free(list);
    return n;
}

static void test_scores_match_the_model_block_by_block(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_block_classifier *stack = ps_block_classifier_open(MODEL, &err);
    assert_non_null(stack);
    /* the shipped bundle is stacked (issue 14): its first stage is an
     * "svm" classifier over the bundle ps_model_load reads */
    assert_string_equal(stack->kind, "stack");
    const ps_block_classifier *c = ps_block_classifier_stack_first(stack);
    assert_non_null(c);
    ps_model *m = ps_model_load(MODEL, &err);
    assert_non_null(m);
    assert_string_equal(c->kind, "svm");
    assert_ptr_equal(ps_block_classifier_svm_model(stack), ps_block_classifier_svm_model(c));
    assert_int_equal(stack->n_feat, c->n_feat);
    assert_ptr_equal(stack->block_tags, c->block_tags);
    assert_int_equal(c->n_feat, ps_model_n_features(m));
    assert_memory_equal(c->feat_ids, ps_model_feature_ids(m), c->n_feat * sizeof *c->feat_ids);
    assert_non_null(c->block_tags); /* the shipped model names its block tags */
    int has_p = 0;
    for (size_t i = 0; c->block_tags[i]; i++)
        has_p |= strcmp(c->block_tags[i], "p") == 0;
    assert_true(has_p);

    /* every page of the sample, parsed with the classifier's tags */
    DIR *d = opendir(PS_SOURCE_DIR "/datasets/sample/html");
    assert_non_null(d);
    size_t pages = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/datasets/sample/html/%s", PS_SOURCE_DIR, e->d_name);
        ps_page_options po = {.block_tags = c->block_tags};
        ps_page *pg = ps_page_load_file(path, &po, &err);
        assert_non_null(pg);
        score_page(c, m, pg);
        ps_page_free(pg);
        pages++;
    }
    closedir(d);
    assert_true(pages >= 20);
    ps_model_free(m);
    ps_block_classifier_free(stack);
}

/* The second stage classifies its rows a chunk at a time (256), so that a
 * page of 100 000 blocks does not hold all their rows at once: a page of
 * 3 000 scored blocks gets the same decision values, bit for bit, in chunks
 * of 256, of 7 and in one. */
static void test_stack_chunks_give_the_same_scores(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_block_classifier *stack = ps_block_classifier_open(MODEL, &err);
    assert_non_null(stack);
    ps_buf page = {0};
    assert_int_equal(ps_buf_append(&page, "<html><body><main><h1>Notes</h1>", 32), 0);
    for (int i = 0; i < 3000; i++) {
        char item[256];
        int len = i % 5 == 4 ? snprintf(item, sizeof item, "<div><a href=\"/p/%d\">Item %d</a></div>", i, i)
                             : snprintf(item, sizeof item,
                                        "<p>Paragraph %d says a few words about item %d, and then %d more.</p>",
                                        i, i * 7, i % 13);
        assert_int_equal(ps_buf_append(&page, item, (size_t)len), 0);
    }
    assert_int_equal(ps_buf_append(&page, "</main></body></html>", 21), 0);
    ps_page_options po = {.block_tags = stack->block_tags};
    ps_page *pg = ps_page_parse(page.data, page.len, &po, &err);
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    double *x = malloc(nb * stack->n_feat * sizeof *x);
    uint32_t *list = malloc(nb * sizeof *list);
    double *score[3];
    assert_true(x && list);
    assert_int_equal(ps_page_block_features(pg, stack->feat_ids, stack->n_feat, x), 0);
    size_t n = 0;
    for (size_t i = 0; i < nb; i++)
        if (b[i].own.text_chars)
            list[n++] = (uint32_t)i;
    assert_true(n > 3000);
    static const size_t chunks[] = {0, 7, 1000000};
    ps_block_rows *rows = ps_block_rows_new(pg, stack->feat_ids, stack->n_feat);
    assert_non_null(rows);
    ps_classify_in in = {.page = pg, .site = "", .rows = rows, .blocks = list, .n = n};
    /* the first stage alone, its rows made PS_ROWS_CHUNK at a time: each
     * block exactly ps_model_predict's value of its row */
    const ps_block_classifier *first = ps_block_classifier_stack_first(stack);
    double *s1 = malloc(nb * sizeof *s1);
    assert_non_null(s1);
    assert_int_equal(first->score(first, &in, s1, &err), 0);
    const ps_model *m1 = ps_block_classifier_svm_model(first);
    for (size_t i = 0; i < n; i++) {
        double alone;
        ps_model_predict(m1, x + (size_t)list[i] * stack->n_feat, &alone);
        assert_true(s1[list[i]] == alone);
    }
    free(s1);
    for (int k = 0; k < 3; k++) {
        score[k] = malloc(nb * sizeof *score[k]);
        assert_non_null(score[k]);
        ps_block_classifier_stack_set_chunk(stack, chunks[k]);
        assert_int_equal(stack->score(stack, &in, score[k], &err), 0);
    }
    for (size_t i = 0; i < n; i++) {
        assert_true(score[1][list[i]] == score[0][list[i]]); /* exactly, not nearly */
        assert_true(score[2][list[i]] == score[0][list[i]]);
    }
    for (int k = 0; k < 3; k++)
        free(score[k]);
    ps_block_rows_free(rows);
    free(x);
    free(list);
    ps_page_free(pg);
    ps_buf_free(&page);
    ps_block_classifier_free(stack);
}

static void test_missing_bundle_is_an_error(void **state)
{
    (void)state;
    ps_error err = {0};
    assert_null(ps_block_classifier_open("/nonexistent/x.model", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/x.model"));
    ps_block_classifier_free(NULL);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_match_the_model_block_by_block),
        cmocka_unit_test(test_stack_chunks_give_the_same_scores),
        cmocka_unit_test(test_missing_bundle_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
