/* tests/test_method_options.c — the methods' option tables and the typed
 * values checked against them (methods/method_options.c,
 * pagesift/options.h): every row is whole (a doc line, a default it
 * accepts), a value is checked once and an error names the option and what
 * it accepts, and the values reach the method typed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_passes.h"
#include "methods/method.h"
#include "methods/method_options.h"
#include "tests/test_util.h"

/* Every method's table: rows with a key, a doc line, what they accept
 * (never cut), and a default that the row itself accepts back. */
static void test_tables_whole(void **state)
{
    (void)state;
    size_t total = 0;
    for (size_t k = 0; ps_method_name(k); k++) {
        const char *name = ps_method_name(k);
        ps_error err = {0};
        ps_options *o = ps_options_new(name, &err);
        assert_non_null(o);
        ps_option_info info;
        size_t i = 0;
        for (; ps_method_option(name, i, &info) == 0; i++) {
            assert_non_null(info.key);
            assert_true(strlen(info.doc) > 10);
            assert_true(strlen(info.accepts) > 0);
            assert_null(strstr(info.accepts, "..."));
            if (info.default_value[0]) /* a default given back as a value is the default */
                assert_int_equal(ps_options_set(o, info.key, info.default_value, &err), 0);
            for (size_t j = 0; j < i; j++) { /* keys unique */
                ps_option_info other;
                assert_int_equal(ps_method_option(name, j, &other), 0);
                assert_string_not_equal(other.key, info.key);
            }
        }
        assert_true(i <= PS_OPTIONS_MAX);
        total += i;
        ps_options_free(o);
    }
    assert_true(total > 40);
    ps_option_info info;
    assert_int_equal(ps_method_option("no-such-method", 0, &info), -1);
}

/* svm's table: its own rows, then one a pass, in ps_block_pass_table's order. */
static void test_passes_are_options(void **state)
{
    (void)state;
    size_t own = 0;
    ps_option_info info;
    while (ps_method_option("svm", own, &info) == 0 && strcmp(info.key, ps_block_pass_table[0].key) != 0)
        own++;
    for (size_t i = 0; ps_block_pass_table[i].key; i++) {
        assert_int_equal(ps_method_option("svm", own + i, &info), 0);
        assert_string_equal(info.key, ps_block_pass_table[i].key);
        assert_string_equal(info.doc, ps_block_pass_table[i].doc);
    }
    assert_int_equal(ps_method_option("punct-lines", 7, &info), -1); /* baselines: no passes */
}

/* Errors name the method, the option, the value and what is accepted; the
 * values stay as they were. */
static void test_errors_name_the_range(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_options *o = ps_options_new("svm", &err);
    assert_non_null(o);
    const struct {
        const char *key, *value, *says;
    } bad[] = {
        {"favor", "more", "svm: option favor=more: expected one of balanced, precision, recall"},
        {"threshold", "11", "svm: option threshold=11: expected a number in [-10, 10]"},
        {"min_pages", "2.5", "svm: option min_pages=2.5: expected an integer in [0, 1000000000]"},
        {"comments", "maybe", "svm: option comments=maybe: expected 0 or 1"},
        {"fill", "nan", "expected a number in [0, 100]"},
        {"colour", "red", "svm: unknown option 'colour' (known: favor, threshold,"},
    };
    ps_options before = *o;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ps_options_set(o, bad[i].key, bad[i].value, &err), -1);
        assert_int_equal(err.code, PS_ERR_USAGE);
        assert_non_null(strstr(err.msg, bad[i].says));
    }
    assert_memory_equal(&before, o, sizeof before);
    assert_int_equal(ps_options_parse(o, "fill=0.5,threshold", &err), -1);
    assert_non_null(strstr(err.msg, "option 'threshold' is not of the form key=value"));
    ps_options_free(o);
    assert_null(ps_options_new("no-such-method", &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
}

/* The values a method reads: typed, the given ones marked, later ones
 * winning; svm's values serve template-svm (one table), not punct-lines. */
static void test_values_typed(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_options *o = ps_options_new("svm", &err);
    assert_non_null(o);
    assert_int_equal(ps_options_parse(o, "favor=recall,fill=2,comments=no,fill=3", &err), 0);
    assert_int_equal(ps_options_set(o, "favor", "precision", &err), 0);
    ps_options v;
    assert_int_equal(ps_options_resolve(&v, o, ps_method_find("template-svm"), &err), 0);
    ps_option row;
    for (size_t i = 0; ps_method_option_row(ps_method_find("svm"), i, &row) == 0; i++) {
        if (!strcmp(row.key, "favor"))
            assert_true(v.given[i] && v.value[i] == 1); /* balanced, precision, recall */
        else if (!strcmp(row.key, "fill"))
            assert_true(v.given[i] && v.value[i] == 3);
        else if (!strcmp(row.key, "comments"))
            assert_true(v.given[i] && v.value[i] == 0);
        else
            assert_false(v.given[i]);
    }
    assert_int_equal(ps_options_resolve(&v, o, ps_method_find("punct-lines"), &err), -1);
    assert_non_null(strstr(err.msg, "options made for the svm method given to punct-lines"));
    /* NULL: the table's defaults */
    assert_int_equal(ps_options_resolve(&v, NULL, ps_method_find("punct-lines"), &err), 0);
    assert_true(v.value[0] == 0.3 && !v.given[0]);
    ps_options_free(o);
}

/* The extractor takes the typed values, and the string over them. */
static void test_extractor_takes_them(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_options *o = ps_options_new("punct-lines", &err);
    assert_non_null(o);
    assert_int_equal(ps_options_set(o, "p", "0.5", &err), 0);
    ps_extractor_config cfg = {.method_options = o};
    ps_extractor *ex = ps_extractor_new("punct-lines", &cfg, &err);
    assert_non_null(ex);
    ps_extractor_free(ex);
    cfg.options = "p=2"; /* the string is checked against the same table */
    assert_null(ps_extractor_new("punct-lines", &cfg, &err));
    assert_non_null(strstr(err.msg, "punct-lines: option p=2: expected a number in [0, 1]"));
    cfg.options = NULL;
    assert_null(ps_extractor_new("correlation", &cfg, &err)); /* another table */
    assert_int_equal(err.code, PS_ERR_USAGE);
    ps_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_whole),
        cmocka_unit_test(test_passes_are_options),
        cmocka_unit_test(test_errors_name_the_range),
        cmocka_unit_test(test_values_typed),
        cmocka_unit_test(test_extractor_takes_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
