/* tests/test_context.c — the context features of a second stage
 * (features/context.c) on a hand-made page of six blocks with text:
 *
 *   0 body text "Menu"            score -2   (no parent)
 *   1 article intro, 100 chars    score  1.5 (no parent)
 *   2   p in the article, 300     score  2   (parent 1)
 *   3   figcaption, 50            score  0.5 (parent 1)
 *   4   p, 200                    score  1   (parent 1)
 *   5 footer, 40                  score -5   (no parent; clipped to -3)
 *
 * Each value is worked out by hand below; names and lookups are checked
 * too, and a caption among content paragraphs gets neighbours that look
 * like content while a menu at the page's edge does not. */
#include <math.h>

#include "pagesift/features.h"
#include "tests/test_util.h"

static const int32_t PARENT[] = {-1, -1, 1, 1, 1, -1};
static const uint32_t CHARS[] = {4, 100, 300, 50, 200, 40};
static const double SCORE[] = {-2, 1.5, 2, 0.5, 1, -5};
#define N 6

static double f(const double *out, size_t i, const char *name)
{
    int k = ps_context_feature_index(name);
    assert_true(k >= 0);
    return out[i * PS_CONTEXT_FEATURES + (size_t)k];
}

static void test_values_by_hand(void **state)
{
    (void)state;
    double out[N * PS_CONTEXT_FEATURES];
    assert_int_equal(ps_context_features(N, PARENT, CHARS, SCORE, out), 0);
    /* own score, clipped at -3 */
    assert_true(f(out, 3, "c_self") == 0.5);
    assert_true(f(out, 5, "c_self") == -3);
    /* parent: the article's score; none: -1 */
    assert_true(f(out, 3, "c_parent") == 1.5);
    assert_true(f(out, 0, "c_parent") == -1);
    /* siblings of the caption: the two p, by characters: (300*2 + 200*1) / 500 */
    assert_float_equal(f(out, 3, "c_siblings"), 1.6, 1e-12);
    /* siblings of the menu (no parent): article and footer, (100*1.5 + 40*-3) / 140 */
    assert_float_equal(f(out, 0, "c_siblings"), (150.0 - 120.0) / 140.0, 1e-12);
    /* reading order */
    assert_true(f(out, 3, "c_prev") == 2 && f(out, 3, "c_next") == 1);
    assert_true(f(out, 0, "c_prev") == -1 && f(out, 5, "c_next") == -1);
    /* window of 3 before and after the caption: items 0,1,2 and 4,5 */
    assert_float_equal(f(out, 3, "c_window"), (4 * -2.0 + 150 + 600 + 200 - 120) / (4.0 + 100 + 300 + 200 + 40),
                       1e-12);
    /* the page's best and the gap to it */
    assert_true(f(out, 0, "c_page_max") == 2);
    assert_true(f(out, 4, "c_gap") == -1);
    /* content-scored characters: 100 + 300 + 50 + 200 = 650 of 694; all of
     * them under the article, the caption's parent */
    assert_float_equal(f(out, 3, "c_core"), 1.0, 1e-12);
    assert_float_equal(f(out, 0, "c_core"), 1.0, 1e-12); /* no parent: the page */
    assert_float_equal(f(out, 2, "c_pos_share"), 650.0 / 694.0, 1e-12);
    /* the article's subtree is all content; the footer's is not */
    assert_float_equal(f(out, 1, "c_sub_pos"), 1.0, 1e-12);
    assert_float_equal(f(out, 5, "c_sub_pos"), 0.0, 1e-12);
}

static void test_names_and_lookup(void **state)
{
    (void)state;
    for (size_t k = 0; k < PS_CONTEXT_FEATURES; k++) {
        const char *n = ps_context_feature_name(k);
        assert_non_null(n);
        assert_memory_equal(n, "c_", 2);
        assert_int_equal(ps_context_feature_index(n), (int)k);
        assert_int_equal(ps_feature_lookup(n), PS_CONTEXT_FEATURE_ID + (int)k);
    }
    assert_null(ps_context_feature_name(PS_CONTEXT_FEATURES));
    assert_int_equal(ps_context_feature_index("c_nope"), -1);
    assert_int_equal(ps_feature_lookup("c_nope"), -1);
}

static void test_edge_cases(void **state)
{
    (void)state;
    double out[PS_CONTEXT_FEATURES];
    assert_int_equal(ps_context_features(0, NULL, NULL, NULL, NULL), 0);
    /* one block, a NaN score (never scored): finite values, not content */
    const int32_t p = -1;
    const uint32_t c = 0;
    const double s = NAN;
    assert_int_equal(ps_context_features(1, &p, &c, &s, out), 0);
    for (size_t k = 0; k < PS_CONTEXT_FEATURES; k++)
        assert_true(isfinite(out[k]));
    assert_true(out[0] == -3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_by_hand),
        cmocka_unit_test(test_names_and_lookup),
        cmocka_unit_test(test_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
