/* tests/test_baselines_a.c — the punct-lines (METHODS.md §2) and blockstat
 * (§5) baselines: each method's defining rules on small hand-made pages. */
#include <stdlib.h>

#include "methods/blockstat.h"
#include "methods/method.h"
#include "methods/punct_lines.h"
#include "pagesift/dataset.h"
#include "tests/test_util.h"
#include "pagesift/page.h"

static void *make(const char *name, const char *options)
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
        fprintf(stderr, "%s\n", err.msg);
    assert_non_null(self);
    return self;
}

/* Run method @p name (object @p self) on @p html for @p site. */
static void run(const char *name, void *self, const char *html, const char *site, ps_method_output *out)
{
    const ps_method *m = ps_method_find(name);
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    ps_error err = {0};
    memset(out, 0, sizeof *out);
    assert_int_equal(m->extract(self, pg, site, out, &err), 0);
    assert_non_null(out->text);
    ps_page_free(pg);
}

static int has(const ps_method_output *o, const char *s)
{
    return strstr(o->text, s) != NULL;
}

/* ---- punct-lines ---------------------------------------------------------- */

static const char *NEWS_PAGE = "<html><body><ul><li><a href=/>Home</a></li><li><a href=/w>World News</a></li></ul>"
                               "<div><p>The storm reached the coast on Monday, the agency said. "
                               "Schools were <b>closed</b> and <a href=/x>roads</a> flooded.</p>"
                               "<p>\xE4\xBB\x8A\xE5\xA4\xA9\xE4\xB8\x8B\xE9\x9B\xA8\xEF\xBC\x8C"
                               "\xE5\xAD\xA6\xE6\xA0\xA1\xE5\x85\xB3\xE9\x97\xAD\xE3\x80\x82</p></div>"
                               "<div>!!! ??? !!!</div></body></html>";

static void test_punct_keeps_sentences_drops_navigation(void **state)
{
    (void)state;
    void *m = make("punct-lines", NULL);
    ps_method_output o;
    run("punct-lines", m, NEWS_PAGE, "a.example", &o);
    /* the sentence paragraph, inline b and a joined into it */
    assert_true(has(&o, "The storm reached the coast on Monday, the agency said. Schools were closed and roads "
                        "flooded.\n"));
    /* 今天下雨，学校关闭。: 2 marks / 10 characters = 0.2 */
    assert_true(has(&o, "\xE4\xBB\x8A\xE5\xA4\xA9"));
    assert_false(has(&o, "Home"));       /* no punctuation: ratio 0 */
    assert_false(has(&o, "World News")); /* no punctuation: ratio 0 */
    assert_false(has(&o, "!!!"));        /* ratio 1 > p */
    ps_method_output_free(&o);
    ps_method_find("punct-lines")->destroy(m);
}

static void test_punct_interval_reading(void **state)
{
    (void)state;
    /* (0, p]: the default reading; [0, p]: the paper's literal interval */
    assert_false(ps_punct_ratio_ok(0, 10, 0.3, 0));
    assert_true(ps_punct_ratio_ok(0, 10, 0.3, 1));
    assert_true(ps_punct_ratio_ok(3, 10, 0.3, 0));  /* exactly p is in */
    assert_false(ps_punct_ratio_ok(4, 10, 0.3, 0)); /* above p is out, in both readings */
    assert_false(ps_punct_ratio_ok(4, 10, 0.3, 1));
    assert_false(ps_punct_ratio_ok(0, 0, 0.3, 1)); /* no characters, nothing to keep */
    assert_true(ps_punct_is_mark(0x3002) && ps_punct_is_mark(0xFF0C) && ps_punct_is_mark('"'));
    assert_false(ps_punct_is_mark('|') || ps_punct_is_mark('-') || ps_punct_is_mark('a'));

    void *m = make("punct-lines", "closed=1");
    ps_method_output o;
    run("punct-lines", m, NEWS_PAGE, "", &o);
    assert_true(has(&o, "Home"));  /* ratio 0 is in [0, p] */
    assert_false(has(&o, "!!!")); /* still above p */
    assert_true(has(&o, "The storm"));
    ps_method_output_free(&o);
    ps_method_find("punct-lines")->destroy(m);
}

static void test_punct_options_rejected(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_options *o = ps_options_new("punct-lines", &err);
    assert_non_null(o);
    assert_int_equal(ps_options_parse(o, "p=2", &err), -1);
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "p=2"));
    assert_non_null(strstr(err.msg, "[0, 1]")); /* the accepted range */
    assert_int_equal(ps_options_parse(o, "colour=red", &err), -1);
    assert_non_null(strstr(err.msg, "unknown option 'colour'"));
    assert_non_null(strstr(err.msg, "closed"));
    assert_int_equal(ps_options_parse(o, "scope=planet", &err), -1);
    assert_non_null(strstr(err.msg, "site, global"));
    ps_options_free(o);
    /* through the extractor, the same check */
    ps_extractor_config cfg = {.options = "p=2"};
    assert_null(ps_extractor_new("punct-lines", &cfg, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "p=2"));
}

/* With every paragraph let through (p = 1, [0, p], no line statistics)
 * punct-lines must give back exactly the page text: its units and lines are
 * the paragraphs of ps_page_text.  Checked on the repository's sample pages. */
static void test_punct_units_are_page_paragraphs(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(PS_SOURCE_DIR "/datasets/sample", &err);
    assert_non_null(ds);
    assert_true(ds->n_pages > 5);
    void *m = make("punct-lines", "p=1,closed=1,lines=0");
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_page_options po = {0};
        po.url = ds->pages[i].url;
        ps_page *pg = ps_page_load_file(ds->pages[i].html_path, &po, &err);
        assert_non_null(pg);
        size_t len;
        char *all = ps_page_text(pg, NULL, &len);
        ps_method_output o = {0};
        assert_int_equal(ps_method_find("punct-lines")->extract(m, pg, ds->pages[i].site, &o, &err), 0);
        assert_string_equal(o.text, all);
        free(all);
        ps_method_output_free(&o);
        ps_page_free(pg);
    }
    ps_method_find("punct-lines")->destroy(m);
    ps_dataset_free(ds);
}

/* A page of a site: a unique sentence, plus @p extra lines (each a <p>). */
static char *site_page(int k, const char *extra1, const char *extra2)
{
    char *s = malloc(1024);
    snprintf(s, 1024,
             "<html><body><p>Story number %d tells, at length, what happened.</p>%s%s%s%s%s%s</body></html>", k,
             extra1 ? "<p>" : "", extra1 ? extra1 : "", extra1 ? "</p>" : "", extra2 ? "<p>" : "",
             extra2 ? extra2 : "", extra2 ? "</p>" : "");
    return s;
}

#define NOISE "Copyright 2011 Example Corp., all rights reserved."
#define SOMETIMES "Follow us on the radio, daily."

static void test_line_table_threshold(void **state)
{
    (void)state;
    /* L = 50.  A line on every page: page k (RC = k-1 pages before it) has
     * LC = k; kept while k <= int(1 + (k-1)/50), i.e. on page 1 only.
     * A line on pages 1, 50 and 101: on page 50 RC = 49, int(1 + 49/50) = 1
     * < LC = 2: dropped; on page 101 RC = 100, int(1 + 100/50) = 3 >= LC = 3:
     * kept again.  Pruning (LC <= RC/100) cannot hit it: 3 > 1.01. */
    void *m = make("punct-lines", NULL);
    const ps_method *pm = ps_method_find("punct-lines");
    for (int k = 1; k <= 101; k++) {
        int sometimes = k == 1 || k == 50 || k == 101;
        char *html = site_page(k, NOISE, sometimes ? SOMETIMES : NULL);
        ps_method_output o;
        run("punct-lines", m, html, "news.example", &o);
        char story[64];
        snprintf(story, sizeof story, "Story number %d tells", k);
        assert_true(has(&o, story)); /* seen once: always kept */
        if (k == 1)
            assert_true(has(&o, NOISE));
        else
            assert_false(has(&o, NOISE));
        if (k == 1 || k == 101)
            assert_true(has(&o, SOMETIMES));
        if (k == 50)
            assert_false(has(&o, SOMETIMES));
        ps_method_output_free(&o);
        free(html);
    }
    /* the table is per site: another site's first page keeps the line */
    ps_method_output o;
    char *html = site_page(1, NOISE, NULL);
    run("punct-lines", m, html, "other.example", &o);
    assert_true(has(&o, NOISE));
    ps_method_output_free(&o);
    /* pages without a site learn nothing from each other */
    for (int k = 0; k < 3; k++) {
        run("punct-lines", m, html, "", &o);
        assert_true(has(&o, NOISE));
        ps_method_output_free(&o);
    }
    pm->destroy(m);
    /* scope=global: one table for every site */
    m = make("punct-lines", "scope=global");
    run("punct-lines", m, html, "a.example", &o);
    assert_true(has(&o, NOISE));
    ps_method_output_free(&o);
    run("punct-lines", m, html, "b.example", &o);
    assert_false(has(&o, NOISE));
    ps_method_output_free(&o);
    free(html);
    pm->destroy(m);
}

static void test_line_table_pruning(void **state)
{
    (void)state;
    /* L = 1000 makes the keep threshold int(1 + RC/1000) = 1 over these
     * pages: a line is kept only while its row says LC = 1.  Line Z is on
     * page 1 and again on page P.  After page 100 (RC = 100) rows with
     * LC <= 100/100 are deleted, so Z's row is gone: on page 101 Z counts as
     * new (LC = 1, kept).  On page 100 the row is still there (after page 99,
     * 1 <= 0.99 is false): LC = 2, dropped.  Without pruning, dropped too. */
    const ps_method *pm = ps_method_find("punct-lines");
    const char *Z = "Remember: the line Z, once more.";
    struct {
        const char *opts;
        int again, kept;
    } cases[] = {{"L=1000", 101, 1}, {"L=1000", 100, 0}, {"L=1000,prune=0", 101, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        void *m = make("punct-lines", cases[c].opts);
        for (int k = 1; k <= cases[c].again; k++) {
            char *html = site_page(k, k == 1 || k == cases[c].again ? Z : NULL, NULL);
            ps_method_output o;
            run("punct-lines", m, html, "s", &o);
            if (k == cases[c].again)
                assert_int_equal(has(&o, Z), cases[c].kept);
            ps_method_output_free(&o);
            free(html);
        }
        pm->destroy(m);
    }
}

static void test_line_table_bounded(void **state)
{
    (void)state;
    /* 600 pages, each with its own story line and the same noise line.
     * With pruning a unique line's row (LC = 1) is deleted at the end of its
     * page once RC >= 100, so the table ends with the noise row alone;
     * without pruning it holds every line ever seen. */
    const ps_method *pm = ps_method_find("punct-lines");
    void *pruned = make("punct-lines", NULL), *unpruned = make("punct-lines", "prune=0");
    for (int k = 1; k <= 600; k++) {
        char *html = site_page(k, NOISE, NULL);
        ps_method_output o;
        run("punct-lines", pruned, html, "s", &o);
        ps_method_output_free(&o);
        run("punct-lines", unpruned, html, "s", &o);
        ps_method_output_free(&o);
        free(html);
        if (k == 99)
            assert_int_equal(ps_punct_lines_table_rows(pruned, "s"), 100); /* not yet pruned */
    }
    assert_int_equal(ps_punct_lines_table_rows(pruned, "s"), 1);
    assert_int_equal(ps_punct_lines_table_rows(unpruned, "s"), 601);
    assert_int_equal(ps_punct_lines_table_rows(pruned, "elsewhere"), 0);
    pm->destroy(pruned);
    pm->destroy(unpruned);
}

/* ---- blockstat ------------------------------------------------------------ */

static void test_blockstat_thresholds(void **state)
{
    (void)state;
    /* blocknum  b = 4 0 0 40 48 36 0 0 12 16 0 0 44 52 0 0 12 0   (n = 18)
     * s[i] = (b[i-1] + 2 b[i] + b[i+1]) / 4, zero outside:
     *   i:  0 1  2  3  4  5 6 7  8  9 10 11 12 13 14 15 16 17
     *   s:  2 1 10 32 43 30 9 3 10 11  4 11 35 37 13  3  6  3
     * sum s = 263, Navg = 263/18 = 14.611, Nmin = 1 (s[1]),
     * N'min = (2*1 + 14.611)/3 = 5.537;
     * 9 largest: 43+37+35+32+30+13+11+11+10 = 222, Ncal = (222 + 14.611)/10 = 23.661.
     * Runs with every s >= N'min: [2..6] (has 32, 43, 30 >= Ncal: rule 1),
     * [8..9] (max 11: fails Ncal), [11..14] (35, 37: rule 1), [16] (6: fails).
     * Rule 2 keeps what lies between the rule-1 runs [2..6] and [11..14]:
     * between=all every block 7..10, between=runs only the run [8..9].
     * Blocks 0, 1, 15, 16, 17 are noise either way. */
    const uint32_t b[18] = {4, 0, 0, 40, 48, 36, 0, 0, 12, 16, 0, 0, 44, 52, 0, 0, 12, 0};
    uint8_t keep[18];
    ps_blockstat_stats st;
    ps_blockstat_select(b, 18, 9, 0, keep, &st);
    assert_float_equal(st.navg, 263.0 / 18, 1e-9);
    assert_float_equal(st.nmin, 1.0, 1e-9);
    assert_float_equal(st.nmin_prime, (2.0 + 263.0 / 18) / 3, 1e-9);
    assert_float_equal(st.ncal, (222.0 + 263.0 / 18) / 10, 1e-9);
    assert_int_equal(st.first, 2);
    assert_int_equal(st.last, 14);
    const uint8_t want_all[18] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
    assert_memory_equal(keep, want_all, 18);
    ps_blockstat_select(b, 18, 9, 1, keep, &st);
    const uint8_t want_runs[18] = {0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0};
    assert_memory_equal(keep, want_runs, 18);
    /* nothing but empty blocks: no main text */
    const uint32_t zeros[4] = {0, 0, 0, 0};
    ps_blockstat_select(zeros, 4, 9, 0, keep, &st);
    assert_int_equal(st.first, -1);
    assert_int_equal(keep[0] | keep[1] | keep[2] | keep[3], 0);
}

#define PARA(x) "<p>" x " The council met on Tuesday to discuss the damage and the repairs needed in the town.</p>"

static const char *ARTICLE =
    "<html><head><title>Storm hits the coast - Example News</title></head><body>"
    "<div><a href=/>Home</a><a href=/w>World</a><a href=/s>Sport</a></div>"
    "<div>Menu</div><form><input name=q> Search the site</form>"
    "<div class=art><h2>World</h2><h1>Storm <a href=/t>hits</a> the coast</h1>"
    "<div>Published 2011\xE5\xB9\xB4" "4\xE6\x9C\x88" "12\xE6\x97\xA5 by staff</div>"
    PARA("First.") PARA("Second.") PARA("Third.") PARA("Fourth.") "</div>"
    "<div>Copyright 2011</div></body></html>";

static void test_blockstat_page(void **state)
{
    (void)state;
    void *m = make("blockstat", NULL);
    ps_method_output o;
    run("blockstat", m, ARTICLE, "", &o);
    assert_true(has(&o, "First. The council met"));
    assert_true(has(&o, "Fourth. The council met"));
    assert_false(has(&o, "Menu"));
    assert_false(has(&o, "Copyright"));
    assert_false(has(&o, "Search the site")); /* form: type I, deleted with its content */
    assert_false(has(&o, "Home"));            /* a: type I */
    /* title: the h1 (highest level near the first main block), its link
     * text deleted with the a element; date from the block before it */
    assert_non_null(o.title);
    assert_string_equal(o.title, "Storm the coast");
    assert_non_null(o.date);
    assert_string_equal(o.date, "2011-04-12");
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);
    /* links=keep: <a> is transparent, the heading keeps its link text */
    m = make("blockstat", "links=keep");
    run("blockstat", m, ARTICLE, "", &o);
    assert_string_equal(o.title, "Storm hits the coast");
    assert_true(has(&o, "Fourth. The council met"));
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);
}

static void test_blockstat_title_fallback_and_date(void **state)
{
    (void)state;
    /* no heading near the main text: the <title>, site name split off */
    void *m = make("blockstat", NULL);
    ps_method_output o;
    run("blockstat", m,
        "<html><head><title>Storm hits the coast - Example News</title></head><body><div>Menu</div>"
        "<div>" PARA("First.") PARA("Second.") PARA("Third.") "</div><div>Posted 2011/4/9</div></body></html>",
        "", &o);
    assert_string_equal(o.title, "Storm hits the coast");
    assert_string_equal(o.date, "2011-04-09"); /* within 2 blocks of the last main block */
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);
    m = make("blockstat", "title_split=0");
    run("blockstat", m, "<html><head><title>A - B</title></head><body><p>x</p></body></html>", "", &o);
    assert_string_equal(o.title, "A - B");
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);

    char *t = ps_blockstat_clean_title("COVID-19 cases rise again | Site");
    assert_string_equal(t, "COVID-19 cases rise again");
    free(t);
    /* 曝范斌曾错过执教江苏队_网易CBA官网 -> the longer part */
    t = ps_blockstat_clean_title("\xE6\x9B\x9D\xE8\x8C\x83\xE6\x96\x8C\xE6\x9B\xBE\xE9\x94\x99\xE8\xBF\x87"
                                 "\xE6\x89\xA7\xE6\x95\x99\xE6\xB1\x9F\xE8\x8B\x8F\xE9\x98\x9F_"
                                 "\xE7\xBD\x91\xE6\x98\x93" "CBA\xE5\xAE\x98\xE7\xBD\x91");
    assert_string_equal(t, "\xE6\x9B\x9D\xE8\x8C\x83\xE6\x96\x8C\xE6\x9B\xBE\xE9\x94\x99\xE8\xBF\x87"
                           "\xE6\x89\xA7\xE6\x95\x99\xE6\xB1\x9F\xE8\x8B\x8F\xE9\x98\x9F");
    free(t);

    char d[11];
    const char *cn = "\xE6\x97\xB6\xE9\x97\xB4\xEF\xBC\x9A" "2010\xE5\xB9\xB4" "12\xE6\x9C\x88"
                     "15\xE6\x97\xA5"; /* 时间：2010年12月15日 */
    assert_true(ps_blockstat_find_date(cn, strlen(cn), d));
    assert_string_equal(d, "2010-12-15");
    assert_true(ps_blockstat_find_date("on 2011.3.14 at", 15, d));
    assert_string_equal(d, "2011-03-14");
    assert_false(ps_blockstat_find_date("id 12011-04-05", 14, d)); /* year inside a longer number */
    assert_false(ps_blockstat_find_date("2010-13-01", 10, d));     /* no month 13 */
    assert_false(ps_blockstat_find_date("1024x768", 8, d));
}

static void test_blockstat_windows_and_forms(void **state)
{
    (void)state;
    /* a share list between the date line and the story: each empty li makes
     * empty blocks ("<li>" and "</li>" are both marks), so the date block is
     * 2 blocks from the first main block only when empty blocks are not
     * counted (window=text, the default), not in the literal sequence */
    const char *html = "<html><body><div>Menu</div><div>Posted 2015-07-04 11:41 by staff</div>"
                       "<ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li><li><a href=/c>C</a></li></ul>"
                       "<div>" PARA("First.") PARA("Second.") PARA("Third.") "</div></body></html>";
    void *m = make("blockstat", NULL);
    ps_method_output o;
    run("blockstat", m, html, "", &o);
    assert_true(has(&o, "Third. The council"));
    assert_non_null(o.date);
    assert_string_equal(o.date, "2015-07-04");
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);
    m = make("blockstat", "window=all");
    run("blockstat", m, html, "", &o);
    assert_true(has(&o, "Third. The council"));
    assert_null(o.date);
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);

    /* a page that is one ASP.NET form: the paper's type I form deletes it */
    const char *aspx = "<html><body><form action=x.aspx><div>Menu</div><div>" PARA("First.") PARA("Second.")
                       PARA("Third.") "</div><input name=q><label>Search</label></form></body></html>";
    m = make("blockstat", NULL);
    run("blockstat", m, aspx, "", &o);
    assert_int_equal(o.len, 0);
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);
    m = make("blockstat", "form=keep");
    run("blockstat", m, aspx, "", &o);
    assert_true(has(&o, "Second. The council"));
    assert_false(has(&o, "Search")); /* label: still type I */
    ps_method_output_free(&o);
    ps_method_find("blockstat")->destroy(m);
}

static void test_blockstat_leaves_and_dom_untouched(void **state)
{
    (void)state;
    void *m = make("blockstat", NULL);
    ps_page *pg = parse_str(ARTICLE);
    assert_non_null(pg);
    size_t len0, nl;
    char *before = ps_page_text(pg, NULL, &len0);
    ps_method_output o = {0};
    ps_error err = {0};
    assert_int_equal(ps_method_find("blockstat")->extract(m, pg, "", &o, &err), 0);
    size_t len1;
    char *after = ps_page_text(pg, NULL, &len1);
    assert_string_equal(before, after); /* the page is read, not changed */
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    assert_non_null(o.leaf_kept);
    for (size_t i = 0; i < nl; i++) {
        if (strstr(l[i].text, "The council met"))
            assert_int_equal(o.leaf_kept[i], 1);
        if (!strcmp(l[i].text, "Menu") || !strcmp(l[i].text, "Home"))
            assert_int_equal(o.leaf_kept[i], 0);
    }
    free(before);
    free(after);
    ps_method_output_free(&o);
    ps_page_free(pg);
    ps_method_find("blockstat")->destroy(m);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_punct_keeps_sentences_drops_navigation),
        cmocka_unit_test(test_punct_interval_reading),
        cmocka_unit_test(test_punct_options_rejected),
        cmocka_unit_test(test_punct_units_are_page_paragraphs),
        cmocka_unit_test(test_line_table_threshold),
        cmocka_unit_test(test_line_table_pruning),
        cmocka_unit_test(test_line_table_bounded),
        cmocka_unit_test(test_blockstat_thresholds),
        cmocka_unit_test(test_blockstat_page),
        cmocka_unit_test(test_blockstat_title_fallback_and_date),
        cmocka_unit_test(test_blockstat_windows_and_forms),
        cmocka_unit_test(test_blockstat_leaves_and_dom_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
