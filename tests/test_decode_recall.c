/* tests/test_decode_recall.c — decoding is right on real data: the token
 * recall of each page's whole text (all leaves) against its gold text,
 * averaged over the pages of each set in ../shared/datasets.  Low recall
 * means text was lost or garbled between the bytes and the block tree.
 * Bars (issue 2): >= 0.995 on netease (GBK) and l3s-gn1 (wrong declarations),
 * dragnet and cleanportaleval; >= 0.99 on cleaneval. */
#include <stdlib.h>

#include "common/util.h"
#include "pagesift/dataset.h"
#include "pagesift/page.h"
#include "pagesift/tokens.h"
#include "tests/test_util.h"

static double set_recall(const char *name, size_t *pages, size_t *failed)
{
    char dir[1024];
    if (!shared_dataset(name, dir, sizeof dir))
        return -1;
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(dir, &err);
    assert_non_null(ds);
    double sum = 0;
    *pages = ds->n_pages;
    *failed = 0;
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_page_options o = {0};
        o.url = ds->pages[i].url;
        ps_page *pg = ps_page_load_file(ds->pages[i].html_path, &o, &err);
        size_t glen;
        char *gold = ps_read_file(ds->pages[i].gold_path, 0, &glen, &err);
        assert_non_null(gold);
        if (!pg) {
            fprintf(stderr, "  %s: %s\n", ds->pages[i].id, err.msg);
            (*failed)++;
            free(gold);
            continue;
        }
        size_t tlen;
        char *text = ps_page_text(pg, NULL, &tlen);
        double r = ps_token_recall(text, tlen, gold, glen);
        if (r < 0.9)
            fprintf(stderr, "  low recall %.3f: %s/%s (%s, %s)\n", r, name, ds->pages[i].id,
                    ps_page_decoding(pg)->charset, ps_charset_source_name(ps_page_decoding(pg)->source));
        sum += r;
        free(text);
        free(gold);
        ps_page_free(pg);
    }
    ps_dataset_free(ds);
    return *pages ? sum / (double)*pages : 1.0;
}

static void check(const char *name, double bar)
{
    size_t pages, failed;
    double r = set_recall(name, &pages, &failed);
    if (r < 0) {
        skip();
        return;
    }
    printf("decoding recall %-16s %.4f over %zu pages (%zu failed), bar %.3f\n", name, r, pages, failed, bar);
    assert_int_equal(failed, 0);
    assert_true(r >= bar);
}

static void test_netease(void **s) { (void)s; check("netease", 0.995); }
static void test_l3s_gn1(void **s) { (void)s; check("l3s-gn1", 0.995); }
static void test_dragnet(void **s) { (void)s; check("dragnet", 0.995); }
static void test_cleanportaleval(void **s) { (void)s; check("cleanportaleval", 0.995); }
static void test_cleaneval(void **s) { (void)s; check("cleaneval", 0.99); }
static void test_readability(void **s) { (void)s; check("readability", 0.97); }

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_netease),    cmocka_unit_test(test_l3s_gn1),
        cmocka_unit_test(test_dragnet),    cmocka_unit_test(test_cleanportaleval),
        cmocka_unit_test(test_cleaneval),  cmocka_unit_test(test_readability),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
