/* tests/test_baselines_b.c — the correlation (METHODS.md §3) and wiehf (§4)
 * baselines on small hand-made pages, one test per defining rule, plus the
 * 100 000-deep page (no recursion) and option errors. */
#include <math.h>
#include <stdlib.h>

#include "methods/method.h"
#include "methods/wiehf_internal.h"
#include "pagesift/page.h"
#include "tests/test_util.h"

/* Run method @p name with @p options on @p html; returns the text (free()). */
static char *run(const char *name, const char *options, const char *html)
{
    const ps_method *m = ps_method_find(name);
    assert_non_null(m);
    ps_error err = {0};
    ps_options *o = ps_options_new(name, &err); /* the values checked, as the extractor does */
    assert_non_null(o);
    assert_int_equal(ps_options_parse(o, options, &err), 0);
    ps_method_config cfg = {.options = o};
    void *self = m->create(&cfg, &err);
    ps_options_free(o);
    if (!self)
        fprintf(stderr, "create: %s\n", err.msg);
    assert_non_null(self);
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    ps_method_output out = {0};
    int rc = m->extract(self, pg, "", &out, &err);
    if (rc)
        fprintf(stderr, "extract: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(out.text);
    assert_non_null(out.leaf_kept);
    char *t = out.text;
    out.text = NULL;
    ps_method_output_free(&out);
    ps_page_free(pg);
    m->destroy(self);
    return t;
}

static int count(const char *hay, const char *needle)
{
    int c = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        c++;
    return c;
}

/* ---- correlation -------------------------------------------------------- */

/* 65-66 characters each. */
#define LONG1 "The first long reply explains the problem in detail for everyone."
#define LONG2 "The second long reply adds a workaround that worked on my machine."
#define LONG3 "The third long reply links the bug report and thanks the authors."
#define LONG4 "The fourth long reply confirms the fix in the nightly build today."
#define COPYRIGHT "Copyright 2012 Example Corporation All rights reserved worldwide"

/* A forum page: a nav of 12 links; 5 posts with 2 links each (user, reply),
 * 4 long ones (CC >= 65/2 > 29) and a short one ("ok thanks", CC = 4.5);
 * the posts container has CC = (262 + 9)/10 = 27.1 (not content), the
 * short post has CS = 4/5 = 80 % > 57 % and TD = 271/2 = 135.5 > 63.  A
 * footer of link lines and a copyright line (CC = 64 > 29, CS = 1/4 among its
 * <p> siblings, footer CC = 67/6 < 29).  Body CC = 338/28: not content. */
static const char FORUM[] =
    "<html><body><ul>"
    "<li><a href=/1>Home</a></li><li><a href=/2>Forum</a></li><li><a href=/3>News</a></li>"
    "<li><a href=/4>Blogs</a></li><li><a href=/5>Music</a></li><li><a href=/6>Video</a></li>"
    "<li><a href=/7>Games</a></li><li><a href=/8>Books</a></li><li><a href=/9>Sport</a></li>"
    "<li><a href=/a>Faith</a></li><li><a href=/b>Help</a></li><li><a href=/c>Login</a></li></ul>"
    "<div id=posts>"
    "<div class=post><a href=/u1>ali</a>" LONG1 "<a href=/r1>reply</a></div>"
    "<div class=post><a href=/u2>bob</a>" LONG2 "<a href=/r2>reply</a></div>"
    "<div class=post><a href=/u3>can</a>" LONG3 "<a href=/r3>reply</a></div>"
    "<div class=post><a href=/u4>dil</a>" LONG4 "<a href=/r4>reply</a></div>"
    "<div class=post><a href=/u5>eli</a>ok thanks<a href=/r5>reply</a></div>"
    "</div><div id=footer>"
    "<p><a href=/x1>About</a>|<a href=/x2>Contact</a></p>"
    "<p><a href=/x3>Jobs</a>|<a href=/x4>Press</a></p>"
    "<p><a href=/x5>Terms</a>|<a href=/x6>Privacy</a></p>"
    "<p>" COPYRIGHT "</p>"
    "</div></body></html>";

static void test_correlation_smoothing_keeps_short_reply(void **state)
{
    (void)state;
    char *t = run("correlation", NULL, FORUM);
    assert_int_equal(count(t, LONG1), 1);
    assert_int_equal(count(t, LONG4), 1);
    /* CC 4.5 < 29, but CS 80 % > 57 % and TD 135.5 > 63: content */
    assert_int_equal(count(t, "ok thanks"), 1);
    assert_null(strstr(t, "Login")); /* navigation stays out */
    free(t);
    /* The same page with S = 90 %: CS no longer exceeds S, the reply is lost. */
    t = run("correlation", "s=0.9", FORUM);
    assert_null(strstr(t, "ok thanks"));
    assert_int_equal(count(t, LONG2), 1);
    free(t);
    /* ... and with D = 200: TD 135.5 no longer exceeds D. */
    t = run("correlation", "d=200", FORUM);
    assert_null(strstr(t, "ok thanks"));
    free(t);
}

static void test_correlation_copyright_among_noise_set_to_zero(void **state)
{
    (void)state;
    /* CC 64 > 29, but CS = 25 % < 1 - S and the footer is not content. */
    char *t = run("correlation", NULL, FORUM);
    assert_null(strstr(t, "Copyright"));
    free(t);
    t = run("correlation", "text=own", FORUM);
    assert_null(strstr(t, "Copyright"));
    free(t);
    /* Without the demotion the copyright line is content by CC alone. */
    t = run("correlation", "apart=off", FORUM);
    assert_int_equal(count(t, COPYRIGHT), 1);
    free(t);
    /* The other reading (CS < 1 - S and TD <= D): the line's TD is
     * TA(footer) / 1 = 67 > 63, so it stays. */
    t = run("correlation", "apart=td", FORUM);
    assert_int_equal(count(t, COPYRIGHT), 1);
    free(t);
}

static void test_correlation_parent_child_text_once(void **state)
{
    (void)state;
    /* div (CC = 90) and its p (CC = 45) are both content: each text once. */
    static const char page[] =
        "<html><body><ul><li><a href=/1>a</a></li><li><a href=/2>b</a></li><li><a href=/3>c</a></li>"
        "<li><a href=/4>d</a></li><li><a href=/5>e</a></li><li><a href=/6>f</a></li></ul>"
        "<div>The parent's own sentence about the event."
        "<p>The child's paragraph that repeats nothing else.</p></div></body></html>";
    const char *modes[] = {NULL, "text=own"};
    for (size_t k = 0; k < 2; k++) {
        char *t = run("correlation", modes[k], page);
        assert_int_equal(count(t, "The child's paragraph that repeats nothing else."), 1);
        assert_int_equal(count(t, "The parent's own sentence about the event."), 1);
        assert_null(strstr(t, "\nd\n"));
        free(t);
    }
}

static void test_correlation_no_links_counts_as_one(void **state)
{
    (void)state;
    /* A <p> without links: CC = TA / 1.  29 characters is not > C = 29; 30 is.
     * (Dividing by LA = 0 would make both content.)  The parent has 5 links
     * and is not content. */
    static const char fmt[] = "<html><body><div><p>%s</p><ul><li><a href=/1>a</a></li><li><a href=/2>b</a></li>"
                              "<li><a href=/3>c</a></li><li><a href=/4>d</a></li><li><a href=/5>e</a></li>"
                              "</ul></div></body></html>";
    char page[1024];
    snprintf(page, sizeof page, fmt, "twenty-nine characters here.."); /* 29 */
    char *t = run("correlation", NULL, page);
    assert_string_equal(t, "");
    free(t);
    snprintf(page, sizeof page, fmt, "thirty characters are here now"); /* 30 */
    t = run("correlation", NULL, page);
    assert_string_equal(t, "thirty characters are here now\n");
    free(t);
}

static void test_correlation_nfkc_counts(void **state)
{
    (void)state;
    /* U+FDFA (one code point) is 18 letters under NFKC: 12 x U+FDFA counts
     * 216 characters > 29 with NFKC, 12 without. */
    char body[256] = "";
    for (int i = 0; i < 12; i++)
        strcat(body, "\xEF\xB7\xBA");
    char page[1024];
    snprintf(page, sizeof page,
             "<html><meta charset=utf-8><body><div><p>%s</p><ul><li><a href=/1>a</a></li>"
             "<li><a href=/2>b</a></li><li><a href=/3>c</a></li></ul></div></body></html>",
             body);
    char *t = run("correlation", NULL, page);
    assert_non_null(strstr(t, "\xEF\xB7\xBA"));
    free(t);
    t = run("correlation", "nfkc=0", page);
    assert_null(strstr(t, "\xEF\xB7\xBA"));
    free(t);
}

/* ---- wiehf -------------------------------------------------------------- */

static void test_wiehf_path_distance_examples(void **state)
{
    (void)state;
    /* The paper's examples: siblings, and the two paths 3 apart. */
    assert_true(ps_wiehf_path_juli("html/body/div[1]/div[2]/div[2]", "html/body/div[1]/div[2]/div[3]") == 1);
    assert_true(ps_wiehf_path_juli("html/body/div[1]/div[1]/div[1]/div[0]",
                                   "html/body/div[1]/div[1]/div[2]/div[1]") == 3);
    assert_true(ps_wiehf_juli_formula(5, 5, 4) == 1);
    assert_true(ps_wiehf_path_juli("html/body/div[1]", "html/body/div[1]/div[3]") == 0);
}

static void test_wiehf_dsd_and_psd(void **state)
{
    (void)state;
    assert_true(fabs(ps_wiehf_path_dsd("html/body/div[1]/div[1]", 10) - 1 / 1.1) < 1e-12);
    assert_true(fabs(ps_wiehf_path_dsd("html/body/div[2]/table[1]/tbody[1]", 10) - 1 / 2.11) < 1e-12);
    assert_true(ps_wiehf_fp(0) == 0.001 && ps_wiehf_fp(2) == 0.001);
    assert_true(ps_wiehf_fp(3) == 0.1 && ps_wiehf_fp(5) == 0.1);
    assert_true(ps_wiehf_fp(6) == 0.5 && ps_wiehf_fp(60) == 0.5);
    assert_true(fabs(ps_wiehf_psd(100, 4, 6, 1) - 10) < 1e-12); /* 0.5 * 100 / (4 + 1) */
    assert_true(fabs(ps_wiehf_psd(100, 4, 6, 0) - 12.5) < 1e-12); /* 0.5 * 100 / 4 */
    assert_true(fabs(ps_wiehf_psd(100, 0, 6, 0) - 50) < 1e-12);   /* HC = 0 taken as 1 */
}

/* 100 characters, 6 punctuation marks each. */
#define PARA1 "Alpha one, two, three. Four five six, seven eight nine; ten eleven twelve thirteen fourteen go home."
#define PARA2 "Beta one, two, three. Four five six, seven eight nine; ten eleven twelve thirteen fourteen go homes."
/* 139 characters, 6 punctuation marks. */
#define COMP "Gamma text of the competitor block, with a few marks. It has more words than one paragraph; it has less than the two of them together, ok?!"


static void test_wiehf_dsd_decides_between_equal_blocks(void **state)
{
    (void)state;
    /* html/body/section[1]/div[1]: DSD 1/1.1; html/body/section[2]/section/
     * section/div: DSD 1/2.011, with 4 more characters (PSD 52 against 50).
     * 5 steps apart.  DSD makes the first win; without it the second would. */
    static const char page[] = "<html><body><section><div>" PARA1 "</div></section>"
                               "<section><section><section><div>" PARA2 " Yes.</div></section></section></section>"
                               "</body></html>";
    char *t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "Alpha"));
    assert_null(strstr(t, "Beta"));
    free(t);
}

/* Two sibling paragraphs under body (DSD 1 and 1/2, PSD 0.5 x 100 each: SD 50
 * and 25) and a competitor at html/body/section/section/section/article/div
 * (DSD 1/1.1111, PSD 0.5 x 139: SD 62.6), 5 steps away from them. */
static char *merge_page(char *buf, size_t cap, const char *class1, const char *class2)
{
    snprintf(buf, cap,
             "<html><body><div class=%s>" PARA1 "</div><div class=%s>" PARA2 "</div>"
             "<section><section><section><article><div>" COMP "</div></article></section></section></section>"
             "</body></html>",
             class1, class2);
    return buf;
}

static void test_wiehf_sibling_merge_equal_class(void **state)
{
    (void)state;
    char page[2048];
    /* Equal class: merged SD 75 > 62.6, the paragraphs win; JULI = 2 (200 of
     * 339 characters) and the competitor (juli 5) is out. */
    char *t = run("wiehf", NULL, merge_page(page, sizeof page, "para", "para"));
    assert_int_equal(count(t, PARA1), 1);
    assert_int_equal(count(t, PARA2), 1);
    assert_null(strstr(t, "Gamma"));
    free(t);
    /* Different classes: no merge, the competitor (62.6) beats 50; JULI = 4
     * (139 of 339) and the paragraphs (juli 5) are out. */
    t = run("wiehf", NULL, merge_page(page, sizeof page, "para", "note"));
    assert_int_equal(count(t, COMP), 1);
    assert_null(strstr(t, "Alpha"));
    assert_null(strstr(t, "Beta"));
    free(t);
}

static void test_wiehf_juli_two_or_four(void **state)
{
    (void)state;
    char page[4096];
    /* Competitor 3 steps from the paragraphs: html/body/section/article/div. */
    static const char fmt[] = "<html><body><div class=p>" PARA1 "</div><div class=p>" PARA2 "</div>"
                              "<section><article><div>" COMP "%s</div></article></section></body></html>";
    /* The paragraphs hold 200 of 339 characters (>= 0.5): JULI = 2, the
     * competitor at juli 3 is dropped. */
    snprintf(page, sizeof page, fmt, "");
    char *t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "Alpha"));
    assert_null(strstr(t, "Gamma"));
    free(t);
    /* Give the competitor 270 characters of links: the paragraphs' share
     * falls to 200 / 609 < 0.5, JULI = 4, and the competitor (juli 3) stays. */
    char links[600] = "";
    for (int i = 0; i < 10; i++)
        strcat(links, "<a href=/x>twenty-five link characters</a>");
    snprintf(page, sizeof page, fmt, links);
    t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "Alpha"));
    assert_non_null(strstr(t, "Gamma"));
    free(t);
}

static void test_wiehf_copyright_lexicon_filter(void **state)
{
    (void)state;
    char page[2048];
    static const char fmt[] = "<html><body><div class=p>" PARA1 "</div><div class=p>" PARA2 "</div>"
                              "<div id=foot>%s</div></body></html>";
    /* Footer (juli 1 from the paragraphs, so kept by distance) with 3 lexicon
     * words and no punctuation: dropped. */
    snprintf(page, sizeof page, fmt, "Copyright \xC2\xA9 2012 Example ICP 12345");
    char *t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "Alpha"));
    assert_null(strstr(t, "Example"));
    free(t);
    /* The same footer with punctuation is not a bare copyright line: kept. */
    snprintf(page, sizeof page, fmt, "Copyright \xC2\xA9 2012 Example, ICP 12345.");
    t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "Example"));
    free(t);
    /* Two lexicon words only: kept. */
    snprintf(page, sizeof page, fmt, "Copyright \xC2\xA9 2012 Example 12345");
    t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "Example"));
    free(t);
}

static void test_wiehf_title_words_count(void **state)
{
    (void)state;
    /* Two containers 6 steps apart.  Without title support the Berlin one
     * wins (longer, DSD 1/1.1 against 1/1.1111); the Naples one repeats the
     * title words "volcano" (3) and "naples" (1): TSD = 0.5 x 3 + 1 x 1. */
    static const char page[] =
        "<html><head><title>Volcano erupts near Naples</title></head><body>"
        "<main><section><section><section><div>Residents watched the volcano as ashes fell over Naples, "
        "volcano, volcano.</div></section></section></section></main>"
        "<aside><div>Residents watched the weather as heavy rain fell over Berlin, weather, weather.</div></aside>"
        "</body></html>";
    char *t = run("wiehf", NULL, page);
    assert_non_null(strstr(t, "ashes fell"));
    assert_null(strstr(t, "Berlin"));
    free(t);
    t = run("wiehf", "alpha=0,beta=0", page);
    assert_null(strstr(t, "ashes fell"));
    assert_non_null(strstr(t, "Berlin"));
    free(t);
}

static void test_wiehf_scope_subtree_or_own(void **state)
{
    (void)state;
    /* html/body/div[1] holds a short line and html/body/div[1]/div[1], the
     * paragraph.  scope=subtree (default): the outer container's text is
     * everything in it, its DSD is higher (1 against 1/1.1), it is the best.
     * scope=own: the outer's own text is the short line; the inner wins. */
    static const char page[] = "<html><body><div>Outer line<div>" PARA1 "</div></div></body></html>";
    char *t = run("wiehf", "top=1", page);
    assert_non_null(strstr(t, "Outer line"));
    assert_non_null(strstr(t, "Alpha"));
    free(t);
    t = run("wiehf", "top=1,scope=own", page);
    assert_null(strstr(t, "Outer line"));
    assert_non_null(strstr(t, "Alpha"));
    free(t);
}

/* ---- both --------------------------------------------------------------- */

static void test_deep_page_and_empty_page(void **state)
{
    (void)state;
    size_t depth = PS_PAGE_MAX_DEPTH - 10; /* the deepest page accepted */
    char *s = malloc(depth * 5 + 64);
    size_t k = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(s + k, "<div>", 5);
        k += 5;
    }
    strcpy(s + k, "deep text of a page that is nested one hundred thousand times");
    const char *names[] = {"correlation", "wiehf"};
    for (size_t i = 0; i < 2; i++) {
        char *t = run(names[i], NULL, s);
        assert_non_null(strstr(t, "deep text"));
        free(t);
        t = run(names[i], NULL, "");
        assert_string_equal(t, "");
        free(t);
    }
    free(s);
}

static void test_bad_options_are_usage_errors(void **state)
{
    (void)state;
    const char *bad[][2] = {{"correlation", "c=abc"}, {"correlation", "apart=maybe"}, {"correlation", "nokey"},
                            {"wiehf", "q=0"},         {"wiehf", "hc=zero"},          {"wiehf", "colour=red"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ps_extractor_config cfg = {.options = bad[i][1]};
        ps_error err = {0};
        assert_null(ps_extractor_new(bad[i][0], &cfg, &err));
        assert_int_equal(err.code, PS_ERR_USAGE);
        assert_true(strlen(err.msg) > 0);
    }
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correlation_smoothing_keeps_short_reply),
        cmocka_unit_test(test_correlation_copyright_among_noise_set_to_zero),
        cmocka_unit_test(test_correlation_parent_child_text_once),
        cmocka_unit_test(test_correlation_no_links_counts_as_one),
        cmocka_unit_test(test_correlation_nfkc_counts),
        cmocka_unit_test(test_wiehf_path_distance_examples),
        cmocka_unit_test(test_wiehf_dsd_and_psd),
        cmocka_unit_test(test_wiehf_dsd_decides_between_equal_blocks),
        cmocka_unit_test(test_wiehf_sibling_merge_equal_class),
        cmocka_unit_test(test_wiehf_juli_two_or_four),
        cmocka_unit_test(test_wiehf_copyright_lexicon_filter),
        cmocka_unit_test(test_wiehf_title_words_count),
        cmocka_unit_test(test_wiehf_scope_subtree_or_own),
        cmocka_unit_test(test_deep_page_and_empty_page),
        cmocka_unit_test(test_bad_options_are_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
