/* tests/test_snippets.c — snippet sets and site folds: white space collapsed
 * as Python's ' '.join(s.split()) does (Unicode spaces included), the
 * corpus's substring rule with hand-counted tp/fn/fp/tn (a failed page, an
 * empty output), block labels from snippets on a hand-written page (a
 * snippet inside a block, one spanning two blocks, a 'without' line, a block
 * holding both kinds, unlabelled blocks), the snippet set reader, and the
 * folds: the documented hash, a partition of the pages with no site in two
 * folds, the complement; on trafilatura-eval too when ../shared is there. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "features/snippets.h"
#include "pagesift/labels.h"
#include "tests/test_util.h"
#include "pagesift/page.h"

static void collapse_is(const char *in, const char *want)
{
    size_t n;
    char *c = ps_ws_collapse(in, strlen(in), &n);
    assert_non_null(c);
    assert_string_equal(c, want);
    assert_int_equal(n, strlen(want));
    free(c);
}

static void test_collapse(void **state)
{
    (void)state;
    collapse_is("  a  b\t\nc  ", "a b c");
    collapse_is("", "");
    collapse_is(" \n\t ", "");
    /* NBSP, U+2009 thin space, U+3000 ideographic space, U+0085 NEL */
    collapse_is("x\xC2\xA0y\xE2\x80\x89z\xE3\x80\x80w\xC2\x85v", "x y z w v");
    /* not white space for Python: U+200B zero width space, an é */
    collapse_is("a\xE2\x80\x8B" "b \xC3\xA9", "a\xE2\x80\x8B" "b \xC3\xA9");
}

static void test_score_rule(void **state)
{
    (void)state;
    char *with[] = {"the  main\ntext", "missing sentence", " last words "};
    char *without[] = {"Impressum", "Home | News", "absent"};
    ps_snippets sn = {with, 3, without, 3};
    const char *out = "Home | News\nThe headline\nthe main text goes on\xC2\xA0here, last words\n";
    uint8_t wh[3], oh[3];
    ps_snippet_counts c;
    assert_int_equal(ps_snippet_score(out, strlen(out), &sn, wh, oh, &c), 0);
    assert_int_equal(c.tp, 2);
    assert_int_equal(c.fn, 1);
    assert_int_equal(c.fp, 1);
    assert_int_equal(c.tn, 2);
    assert_int_equal(wh[0], 1);
    assert_int_equal(wh[1], 0);
    assert_int_equal(wh[2], 1);
    assert_int_equal(oh[0], 0);
    assert_int_equal(oh[1], 1);
    /* case matters, as in Python's 'in' */
    char *w2[] = {"THE MAIN TEXT"};
    ps_snippets s2 = {w2, 1, NULL, 0};
    assert_int_equal(ps_snippet_score(out, strlen(out), &s2, NULL, NULL, &c), 0);
    assert_int_equal(c.tp, 0);
    /* a failed page: every with missing, every without absent */
    assert_int_equal(ps_snippet_score(NULL, 0, &sn, wh, oh, &c), 0);
    assert_int_equal(c.tp, 0);
    assert_int_equal(c.fn, 3);
    assert_int_equal(c.fp, 0);
    assert_int_equal(c.tn, 3);
    /* an empty output scores the same */
    assert_int_equal(ps_snippet_score("", 0, &sn, NULL, NULL, &c), 0);
    assert_int_equal(c.fn, 3);
    assert_int_equal(c.tn, 3);
    /* P, R, F1 = 2tp/(2tp+fp+fn) */
    ps_snippet_counts k = {.tp = 6, .fn = 2, .fp = 3, .tn = 1};
    double p, r, f1;
    ps_snippet_prf(&k, &p, &r, &f1);
    assert_true(fabs(p - 6.0 / 9) < 1e-12);
    assert_true(fabs(r - 6.0 / 8) < 1e-12);
    assert_true(fabs(f1 - 12.0 / 17) < 1e-12);
}

static int block_of(const ps_page *pg, const char *path)
{
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    for (size_t i = 0; i < nb; i++)
        if (strcmp(b[i].path, path) == 0)
            return (int)i;
    fail_msg("no block %s", path);
    return -1;
}

static void test_block_labels(void **state)
{
    (void)state;
    const char *html =
        "<html><body>"
        "<div id='nav'><a href='/'>Home</a> <a href='/i'>Impressum</a> <a href='/c'>Kontakt</a></div>"
        "<div id='art'>"
        "<div>Der erste Satz des Artikels steht hier.</div>"
        "<div>Zweiter Absatz beginnt so und endet mit einem Punkt.</div>"
        "<div>Dritter Absatz ohne Schnipsel, lang genug um nicht markiert zu werden.</div>"
        "<div>Ein Satz im Text. Teilen auf Facebook</div>"
        "</div>"
        "<div id='foot'>Copyright 2021 Beispiel GmbH</div>"
        "</body></html>";
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    char *with[] = {"Der erste Satz des Artikels", "hier. Zweiter Absatz beginnt",
                    "Ein Satz im Text.", "nicht auf der Seite"};
    char *without[] = {"Impressum", "Copyright 2021", "Teilen auf Facebook"};
    ps_snippets sn = {with, 4, without, 3};
    size_t nb;
    ps_page_blocks(pg, &nb);
    uint8_t *lab = malloc(nb);
    ps_snippet_label_info info;
    assert_int_equal(ps_snippet_block_labels(pg, &sn, lab, &info), 0);
    assert_int_equal(info.with_found, 3);
    assert_int_equal(info.without_found, 3);
    assert_int_equal(info.conflicts, 1);
    /* a snippet inside a block; one spanning two blocks labels both */
    assert_int_equal(lab[block_of(pg, "html/body/div[2]/div[1]")], 1);
    assert_int_equal(lab[block_of(pg, "html/body/div[2]/div[2]")], 1);
    /* no snippet: unlabelled */
    assert_int_equal(lab[block_of(pg, "html/body/div[2]/div[3]")], 2);
    /* a with and a without in one block: unlabelled */
    assert_int_equal(lab[block_of(pg, "html/body/div[2]/div[4]")], 2);
    /* 'Impressum' in the link line, the copyright line: noise */
    assert_int_equal(lab[block_of(pg, "html/body/div[1]")], 0);
    assert_int_equal(lab[block_of(pg, "html/body/div[3]")], 0);
    free(lab);

    /* the block CSV writes those labels, gold_share empty */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ps_error err = {0};
    ps_block_csv *w = ps_block_csv_new(f, NULL, &err);
    assert_non_null(w);
    ps_label_stats st = {0};
    assert_int_equal(ps_block_csv_page_snippets(w, "set", "p1", "", pg, &sn, &st, &err), 0);
    assert_int_equal(ps_block_csv_finish(w, &err), 0);
    fclose(f);
    assert_int_equal(st.blocks[1], 2);
    assert_int_equal(st.blocks[0], 2);
    assert_int_equal(st.with_snippets, 4);
    assert_int_equal(st.with_found, 3);
    assert_int_equal(st.conflict_blocks, 1);
    /* the text of the content blocks holds the 2 snippets of them, no without */
    assert_int_equal(st.oracle_tp, 2);
    assert_int_equal(st.oracle_fp, 0);
    assert_non_null(strstr(buf, ",1,,\"Der erste Satz"));
    assert_non_null(strstr(buf, ",0,,\"Copyright 2021"));
    assert_non_null(strstr(buf, ",,,\"Dritter Absatz"));
    free(buf);
    ps_page_free(pg);
}

/* FNV-1a 64 as docs/INPUTS.md gives it */
static unsigned fold_of(const char *key, unsigned n)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 1099511628211ULL;
    return (unsigned)(h % n) + 1;
}

static void test_fold_parse(void **state)
{
    (void)state;
    ps_fold f = {0};
    ps_error err = {0};
    assert_int_equal(ps_fold_parse("2/5", &f, &err), 0);
    assert_int_equal(f.k, 2);
    assert_int_equal(f.n, 5);
    const char *bad[] = {"0/5", "6/5", "5", "a/5", "2/", "2/5x", "/5", "1/0", "-1/5", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ps_fold_parse(bad[i], &f, &err), -1);
        assert_int_equal(err.code, PS_ERR_USAGE);
    }
    ps_dataset_page p = {.id = "page-1", .site = "www.example.org"};
    assert_int_equal(ps_dataset_page_fold(&p, 5), fold_of("www.example.org", 5));
    p.site = "";
    assert_int_equal(ps_dataset_page_fold(&p, 7), fold_of("page-1", 7));
}

/* The folds of @p dir partition its pages; no site is in two folds. */
static void check_folds(const char *dir, unsigned n)
{
    ps_error err = {0};
    ps_dataset *all = ps_dataset_load(dir, &err);
    assert_non_null(all);
    size_t total = all->n_pages, sum = 0;
    int *fold_of_page = calloc(total + 1, sizeof *fold_of_page);
    for (unsigned k = 1; k <= n; k++) {
        ps_dataset *in = ps_dataset_load(dir, &err), *out = ps_dataset_load(dir, &err);
        ps_fold f = {k, n, 0}, g = {k, n, 1};
        size_t a = ps_dataset_filter(in, &f), b = ps_dataset_filter(out, &g);
        assert_int_equal(a + b, total);
        assert_true(a > 0);
        sum += a;
        for (size_t i = 0; i < in->n_pages; i++) {
            size_t j = 0;
            while (j < total && strcmp(all->pages[j].id, in->pages[i].id))
                j++;
            assert_true(j < total);
            assert_int_equal(fold_of_page[j], 0); /* in one fold only */
            fold_of_page[j] = (int)k;
        }
        for (size_t i = 0; i < out->n_pages; i++)
            assert_int_not_equal(ps_dataset_page_fold(&out->pages[i], n), k);
        ps_dataset_free(in);
        ps_dataset_free(out);
    }
    assert_int_equal(sum, total);
    for (size_t i = 0; i < total; i++)
        for (size_t j = i + 1; j < total; j++)
            if (*all->pages[i].site && strcmp(all->pages[i].site, all->pages[j].site) == 0)
                assert_int_equal(fold_of_page[i], fold_of_page[j]);
    ps_fold none = {0};
    assert_int_equal(ps_dataset_filter(all, &none), total);
    free(fold_of_page);
    ps_dataset_free(all);
}

static void test_folds_sample(void **state)
{
    (void)state;
    check_folds(PS_SOURCE_DIR "/datasets/sample", 3);
}

static void test_trafilatura_eval(void **state)
{
    (void)state;
    char buf[1024];
    const char *dir = shared_dataset("trafilatura-eval", buf, sizeof buf);
    if (!dir)
        skip();
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(dir, &err);
    assert_non_null(ds);
    assert_int_equal(ds->snippet_set, 1);
    assert_int_equal(ds->n_pages, 493);
    size_t nw = 0, no = 0;
    for (size_t i = 0; i < ds->n_pages; i++) {
        assert_non_null(ds->pages[i].snippets);
        nw += ds->pages[i].snippets->n_with;
        no += ds->pages[i].snippets->n_without;
    }
    assert_int_equal(nw, 1468); /* the README's counts */
    assert_int_equal(no, 1474);
    ps_dataset_free(ds);
    check_folds(dir, 5);
    /* a gold set is not a snippet set */
    ds = ps_dataset_load(PS_SOURCE_DIR "/datasets/sample", &err);
    assert_non_null(ds);
    assert_int_equal(ds->snippet_set, 0);
    assert_null(ds->pages[0].snippets);
    ps_dataset_free(ds);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collapse),
        cmocka_unit_test(test_score_rule),
        cmocka_unit_test(test_block_labels),
        cmocka_unit_test(test_fold_parse),
        cmocka_unit_test(test_folds_sample),
        cmocka_unit_test(test_trafilatura_eval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
