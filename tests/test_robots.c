/* tests/test_robots.c — robots.txt rules (extract/robots.c, RFC 9309): the
 * group naming our token wins over '*', groups naming it are merged, the
 * longest match decides and Allow wins a tie, '*' and '$' in patterns, an
 * empty Disallow allows, comments and CRLF, Crawl-delay, the all-allow and
 * all-disallow rule sets, and odd input (no groups, rules before any group,
 * a line without a colon, a NUL byte). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "extract/inputs_internal.h"
#include "tests/test_util.h"

static int allowed(const char *txt, const char *token, const char *path)
{
    ps_robots *r = ps_robots_parse(txt, strlen(txt), token);
    assert_non_null(r);
    int a = ps_robots_allowed(r, path);
    ps_robots_free(r);
    return a;
}

static void test_groups(void **state)
{
    (void)state;
    const char *t = "User-agent: *\nDisallow: /private/\n\n"
                    "User-agent: PageSift\nUser-agent: other\nDisallow: /only-us/\n\n"
                    "User-agent: pagesift/2.0\nDisallow: /also-us\n";
    assert_true(allowed(t, "pagesift", "/private/x"));  /* our group, not '*' */
    assert_false(allowed(t, "pagesift", "/only-us/x"));
    assert_false(allowed(t, "pagesift", "/also-us/y")); /* groups merged */
    assert_false(allowed(t, "somebot", "/private/x"));
    assert_true(allowed(t, "somebot", "/only-us/x"));
    assert_true(allowed("", "pagesift", "/x"));
    assert_true(allowed("Disallow: /\n", "pagesift", "/x")); /* a rule before any group */
}

static void test_matching(void **state)
{
    (void)state;
    const char *t = "user-agent: *  # all\r\n"
                    "disallow: /a\r\n"
                    "allow: /a/b\r\n"
                    "disallow: /*.pdf$\r\n"
                    "disallow: /x*y/z\r\n"
                    "allow: /same\r\n"
                    "disallow: /same\r\n"
                    "disallow:\r\n"
                    "no colon here\r\n"
                    "crawl-delay: 2.5\r\n";
    assert_false(allowed(t, "pagesift", "/a"));
    assert_false(allowed(t, "pagesift", "/abc"));
    assert_true(allowed(t, "pagesift", "/a/b/c"));        /* longer Allow */
    assert_false(allowed(t, "pagesift", "/doc/f.pdf"));
    assert_true(allowed(t, "pagesift", "/doc/f.pdf?x=1")); /* '$': the end */
    assert_false(allowed(t, "pagesift", "/x-and-y/z/w"));
    assert_true(allowed(t, "pagesift", "/x-and-y/q"));
    assert_true(allowed(t, "pagesift", "/same"));          /* a tie: Allow */
    assert_true(allowed(t, "pagesift", "/robots.txt"));
    assert_true(allowed(t, "pagesift", ""));
    ps_robots *r = ps_robots_parse(t, strlen(t), "pagesift");
    assert_true(ps_robots_crawl_delay(r) > 2.4 && ps_robots_crawl_delay(r) < 2.6);
    ps_robots_free(r);
}

static void test_all_and_odd(void **state)
{
    (void)state;
    ps_robots *r = ps_robots_new_all(0);
    assert_false(ps_robots_allowed(r, "/"));
    assert_true(ps_robots_crawl_delay(r) < 0);
    ps_robots_free(r);
    r = ps_robots_new_all(1);
    assert_true(ps_robots_allowed(r, "/anything"));
    ps_robots_free(r);
    const char nul[] = "User-agent: *\nDisallow: /a\0b\nDisallow: /c\n";
    r = ps_robots_parse(nul, sizeof nul - 1, "pagesift");
    assert_non_null(r);
    assert_false(ps_robots_allowed(r, "/c"));
    ps_robots_free(r);
    /* many stars: no blow-up */
    char pat[400] = "User-agent: *\nDisallow: /";
    for (int i = 0; i < 150; i++)
        strcat(pat, "*a");
    strcat(pat, "$\n");
    char path[300];
    memset(path, 'a', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 2] = 'b';
    path[sizeof path - 1] = '\0';
    assert_true(allowed(pat, "pagesift", path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_all_and_odd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
