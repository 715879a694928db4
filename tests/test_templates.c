/* tests/test_templates.c — template libraries (METHODS.md §1.1): the paper's
 * Table 2, the similarity threshold in characters, page vs occurrence
 * counting, the library file (round trip, damaged files), apply, and a bar
 * on cleanportaleval. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pagesift/dataset.h"
#include "tests/test_tmpdir.h"
#include "tests/test_util.h"
#include "common/util.h"
#include "extract/page_internal.h"
#include "templates/measure.h"

static ps_page *page_of(const char *body)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "<html><head><meta charset=utf-8><title>t</title></head><body>%s</body></html>", body);
    return parse_str(buf);
}

/* Entry (tag, text) of a library, or -1. */
static long find_entry(const ps_template_lib *lib, const char *tag, const char *text)
{
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    for (size_t i = 0; i < info.n_entries; i++) {
        ps_template_entry e;
        ps_template_lib_entry(lib, i, &e);
        if (!strcmp(e.tag, tag) && !strcmp(e.text, text))
            return (long)i;
    }
    return -1;
}

static uint32_t entry_freq(const ps_template_lib *lib, const char *tag, const char *text)
{
    long i = find_entry(lib, tag, text);
    assert_true(i >= 0);
    ps_template_entry e;
    ps_template_lib_entry(lib, (size_t)i, &e);
    return e.freq;
}

/* The paper's Table 2: two pages of site X; the cache after both.  With
 * n1 = 2 and n2 = 1 every cached leaf becomes an entry carrying its cache
 * frequency, so the library is the table. */
static void test_paper_table2(void **state)
{
    (void)state;
    const char *nav = "<div><a href=/1>中国</a><a href=/2>国际</a><a href=/3>军事</a><a href=/4>观点</a>"
                      "<a href=/5>专题</a></div>";
    char p1[4096], p2[4096];
    snprintf(p1, sizeof p1,
             "%s<div>本文系转载，不代表参考消息网的观点，参考消息…</div><span>来源：新华社</span>"
             "<p>责任编辑：张越</p><p>正文部分 A</p><p>正文部分 B</p>"
             "<p>国新网备 2012001 互联网出版许可证…</p><a href=/ad>广告 A</a>",
             nav);
    snprintf(p2, sizeof p2,
             "%s<span>来源：新华社</span><p>正文部分 C</p><a href=/ad>广告 B</a><div>有消息称…</div>"
             "<span>责任编辑：王兵</span><p>国新网备 2012001 互联网出版许可证…</p>",
             nav);
    ps_template_params p;
    ps_template_params_default(&p);
    p.n1 = 2;
    p.n2 = 1;
    ps_template_builder *b = ps_template_builder_new(&p);
    ps_page *a = page_of(p1), *c = page_of(p2);
    ps_error err = {0};
    assert_int_equal(ps_template_builder_add(b, "X", a, &err), 0);
    assert_int_equal(ps_template_builder_add(b, "X", c, &err), 0);
    ps_template_store *s = ps_template_builder_finish(b);
    const ps_template_lib *lib = ps_template_store_get(s, "X");
    assert_non_null(lib);
    static const struct { const char *tag, *text; unsigned f; } table2[] = {
        {"a", "中国", 2}, {"a", "国际", 2}, {"a", "军事", 2}, {"a", "观点", 2}, {"a", "专题", 2},
        {"div", "本文系转载，不代表参考消息网的观点，参考消息…", 1}, {"span", "来源：新华社", 2},
        {"p", "责任编辑：张越", 1}, {"p", "正文部分 A", 1}, {"p", "正文部分 B", 1}, {"p", "正文部分 C", 1},
        {"p", "国新网备 2012001 互联网出版许可证…", 2}, {"a", "广告 A", 1}, {"a", "广告 B", 1},
        {"div", "有消息称…", 1}, {"span", "责任编辑：王兵", 1},
    };
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    assert_int_equal(info.n_entries, 16);
    assert_int_equal(info.pages, 2);
    for (size_t i = 0; i < sizeof table2 / sizeof *table2; i++)
        assert_int_equal(entry_freq(lib, table2[i].tag, table2[i].text), table2[i].f);
    ps_template_store_free(s);

    /* with the defaults (n2 = 3) two pages make no entry at all */
    b = ps_template_builder_new(NULL);
    assert_int_equal(ps_template_builder_add(b, "X", a, &err), 0);
    assert_int_equal(ps_template_builder_add(b, "X", c, &err), 0);
    s = ps_template_builder_finish(b);
    ps_template_lib_get_info(ps_template_store_get(s, "X"), &info);
    assert_int_equal(info.n_entries, 0);
    ps_template_store_free(s);
    ps_page_free(a);
    ps_page_free(c);
}

static void test_similarity_threshold(void **state)
{
    (void)state;
    /* up to 8 characters: identical only */
    assert_true(ps_template_text_similar("12345678", "12345678"));
    assert_false(ps_template_text_similar("12345678", "12345679"));
    assert_false(ps_template_text_similar("Home", "Homes"));
    /* 9..15 characters: one edit */
    assert_true(ps_template_text_similar("123456789", "123456780"));
    assert_false(ps_template_text_similar("123456789", "123456700"));
    /* 16 characters: two edits, not three */
    assert_true(ps_template_text_similar("Copyright 2012 X", "Copyright 2013 Y"));
    assert_true(ps_template_text_similar("Copyright 2012 X", "Copyright 201 X"));
    assert_false(ps_template_text_similar("Copyright 2012 X", "Copyright 2099 Y"));
    /* the shorter text decides: 16 vs 18 characters -> 2 edits allowed */
    assert_true(ps_template_text_similar("abcdefghijklmnop", "abcdefghijklmnopqr"));
    assert_false(ps_template_text_similar("abcdefghijklmno", "abcdefghijklmnopq"));
    /* CJK counts characters, not bytes: 8 characters, 1 edit -> different
     * (in bytes it would be 24 and allow 3) */
    assert_false(ps_template_text_similar("责任编辑：张越越", "责任编辑：王兵越"));
    assert_false(ps_template_text_similar("新闻网版权所有者", "新闻网版权所有人"));
    assert_true(ps_template_text_similar("中国新闻网版权所有", "中国新闻网版权所无有"));
    /* 16 CJK characters, 2 substitutions -> similar; 3 -> not */
    assert_true(ps_template_text_similar("本文系转载不代表参考消息网的观点", "本文系转载不代表参考新闻网的观点"));
    assert_false(ps_template_text_similar("本文系转载不代表参考消息网的观点", "本文是转载不代表参考新闻网的观点"));
}

/* The banded distance equals the plain DP whenever it is <= k. */
static unsigned naive_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    unsigned d[64][64];
    for (size_t i = 0; i <= na; i++)
        for (size_t j = 0; j <= nb; j++) {
            if (!i || !j) {
                d[i][j] = (unsigned)(i + j);
                continue;
            }
            unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

static void test_banded_distance_matches_plain(void **state)
{
    (void)state;
    srand(7);
    char a[40], b[40];
    for (int it = 0; it < 20000; it++) {
        size_t na = (size_t)(rand() % 30), nb = (size_t)(rand() % 30);
        for (size_t i = 0; i < na; i++) a[i] = (char)('a' + rand() % 3);
        for (size_t i = 0; i < nb; i++) b[i] = (char)('a' + rand() % 3);
        a[na] = b[nb] = '\0';
        unsigned k = (unsigned)(rand() % 8);
        unsigned want = naive_distance(a, b);
        unsigned got = ps_edit_distance_within(a, b, k);
        if (want <= k)
            assert_int_equal(got, want);
        else
            assert_int_equal(got, k + 1);
    }
}

static void test_page_vs_occurrence_count(void **state)
{
    (void)state;
    /* one page that repeats a link three times */
    ps_page *pg = page_of("<a href=/>Home</a><a href=/>Home</a><a href=/>Home</a><p>Once only here</p>");
    ps_error err = {0};
    for (int occ = 0; occ < 2; occ++) {
        ps_template_params p;
        ps_template_params_default(&p);
        p.count_occurrences = occ;
        ps_template_builder *b = ps_template_builder_new(&p);
        assert_int_equal(ps_template_builder_add(b, "s", pg, &err), 0);
        ps_template_store *s = ps_template_builder_finish(b);
        const ps_template_lib *lib = ps_template_store_get(s, "s");
        if (occ)
            assert_int_equal(entry_freq(lib, "a", "Home"), 3);
        else
            assert_int_equal(find_entry(lib, "a", "Home"), -1);
        assert_int_equal(find_entry(lib, "p", "Once only here"), -1);
        ps_template_store_free(s);
    }
    ps_page_free(pg);
}

/* Batches: an entry needs n2 pages within one batch of n1. */
static void test_batches(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_template_params p;
    ps_template_params_default(&p);
    p.n1 = 3;
    p.n2 = 2;
    ps_template_builder *b = ps_template_builder_new(&p);
    ps_page *with = page_of("<p>Footer line of the site</p><p>x1</p>");
    ps_page *without = page_of("<p>Other text entirely</p>");
    ps_page *without2 = page_of("<p>Quite another story</p>");
    /* batch 1: with, without, without2 -> freq 1; batch 2: with, with -> 2 */
    ps_page *seq[] = {with, without, without2, with, with};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(ps_template_builder_add(b, "s", seq[i], &err), 0);
    ps_template_store *s = ps_template_builder_finish(b);
    const ps_template_lib *lib = ps_template_store_get(s, "s");
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    assert_int_equal(info.pages, 5);
    assert_int_equal(info.batches, 2); /* the last, partial batch is flushed */
    assert_int_equal(entry_freq(lib, "p", "Footer line of the site"), 2);
    assert_int_equal(find_entry(lib, "p", "Other text entirely"), -1);
    ps_template_store_free(s);
    ps_page_free(with);
    ps_page_free(without);
    ps_page_free(without2);
}

static char tmpdir[256];

static void make_tmpdir(void)
{
    assert_int_equal(test_tmpdir_make(tmpdir, sizeof tmpdir, "tpl_test"), 0);
}

static void rm_tmpdir(void)
{
    assert_int_equal(test_tmpdir_remove(tmpdir), 0);
}

/* Sentences that differ far beyond the similarity threshold. */
static const char *const distinct[] = {
    "Rain fell on the harbour all morning.", "Markets rallied after the central bank spoke.",
    "A new bridge opens to traffic next week.", "Scientists mapped the coral reef in detail.",
    "The orchestra announced its winter programme.", "Local farmers report an early harvest.",
    "Voters queued for hours at city polling stations.", "An old lighthouse was restored by volunteers.",
    "The football club signed a young goalkeeper.", "Museum visitors doubled during the festival.",
    "Engineers tested the prototype train at night.", "A rare comet will be visible on Sunday.",
};

static ps_template_builder *three_sites(void)
{
    ps_error err = {0};
    ps_template_builder *b = ps_template_builder_new(NULL);
    const char *sites[] = {"www.example.com", "example.org/news", ".hidden\tsite%"};
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < 4; i++) {
            char body[512];
            snprintf(body, sizeof body,
                     "<div><a href=/>Home</a><a href=/n>News \\ tab</a></div><p>%s</p>"
                     "<p>© 2012 Site %d. All rights reserved.</p>",
                     distinct[s * 4 + i], s);
            ps_page *pg = page_of(body);
            assert_int_equal(ps_template_builder_add(b, sites[s], pg, &err), 0);
            ps_page_free(pg);
        }
    return b;
}

static void test_store_round_trip(void **state)
{
    (void)state;
    make_tmpdir();
    ps_error err = {0};
    ps_template_builder *b = three_sites();
    assert_int_equal(ps_template_builder_write_dir(b, tmpdir, &err), 0);
    ps_template_store *mem = ps_template_builder_finish(b);
    ps_template_store *disk = ps_template_store_open(tmpdir, &err);
    assert_non_null(disk);
    assert_int_equal(ps_template_store_count(disk), 3);
    for (size_t i = 0; i < 3; i++) {
        const ps_template_lib *m = ps_template_store_lib(mem, i);
        ps_template_lib_info im, id;
        ps_template_lib_get_info(m, &im);
        const ps_template_lib *d = ps_template_store_get(disk, im.site);
        assert_non_null(d);
        ps_template_lib_get_info(d, &id);
        assert_int_equal(im.n_entries, 3); /* Home, News, the copyright line */
        assert_int_equal(id.n_entries, im.n_entries);
        assert_int_equal(id.pages, 4);
        assert_int_equal(id.params.n1, 10);
        for (size_t e = 0; e < im.n_entries; e++) {
            ps_template_entry a, c;
            ps_template_lib_entry(m, e, &a);
            ps_template_lib_entry(d, e, &c);
            assert_string_equal(a.tag, c.tag);
            assert_string_equal(a.text, c.text);
            assert_int_equal(a.freq, c.freq);
        }
    }
    assert_null(ps_template_store_get(disk, "nosuch.site"));
    /* file names are safe: no '/' or leading '.' from the site */
    char fn[256];
    assert_int_equal(ps_template_file_name("example.org/news", fn, sizeof fn), 0);
    assert_string_equal(fn, "example.org%2Fnews.tpl");
    assert_int_equal(ps_template_file_name(".hidden\tsite%", fn, sizeof fn), 0);
    assert_string_equal(fn, "%2Ehidden%09site%25.tpl");

    /* --update: pages added to the loaded libraries */
    ps_template_builder *u = ps_template_builder_new(NULL);
    assert_int_equal(ps_template_builder_load_dir(u, tmpdir, &err), 0);
    ps_page *pg = page_of("<p>More</p>");
    assert_int_equal(ps_template_builder_add(u, "www.example.com", pg, &err), 0);
    ps_page_free(pg);
    ps_template_store *up = ps_template_builder_finish(u);
    ps_template_lib_info iu;
    ps_template_lib_get_info(ps_template_store_get(up, "www.example.com"), &iu);
    assert_int_equal(iu.pages, 5);
    assert_int_equal(iu.n_entries, 3);
    ps_template_store_free(up);

    /* --update with other parameters is refused, naming the file */
    ps_template_params p;
    ps_template_params_default(&p);
    p.n1 = 5;
    u = ps_template_builder_new(&p);
    assert_int_equal(ps_template_builder_load_dir(u, tmpdir, &err), -1);
    assert_non_null(strstr(err.msg, ".tpl"));
    ps_template_builder_free(u);

    ps_template_store_free(mem);
    ps_template_store_free(disk);
    rm_tmpdir();
}

static void write_str(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(s, 1, n, f), n);
    fclose(f);
}

static void test_damaged_files(void **state)
{
    (void)state;
    make_tmpdir();
    ps_error err = {0};
    ps_template_builder *b = three_sites();
    assert_int_equal(ps_template_builder_write_dir(b, tmpdir, &err), 0);
    ps_template_builder_free(b);
    char path[512];
    snprintf(path, sizeof path, "%s/www.example.com.tpl", tmpdir);
    size_t len;
    char *good = ps_read_file(path, 0, &len, &err);
    assert_non_null(good);

    /* truncated: the end line is missing */
    const char *end = strstr(good, "end\t");
    assert_non_null(end);
    write_str(path, good, (size_t)(end - good));
    assert_null(ps_template_lib_load(path, &err));
    assert_int_equal(err.code, PS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "truncated"));
    /* the store names the file too */
    assert_null(ps_template_store_open(tmpdir, &err));
    assert_non_null(strstr(err.msg, "www.example.com.tpl"));

    /* cut in the middle of a line */
    write_str(path, good, len / 2);
    assert_null(ps_template_lib_load(path, &err));
    assert_non_null(strstr(err.msg, path));

    /* another format version */
    char *v2 = strdup(good);
    char *tab = strchr(v2, '\t');
    tab[1] = '2';
    write_str(path, v2, len);
    assert_null(ps_template_lib_load(path, &err));
    assert_int_equal(err.code, PS_ERR_VERSION);
    assert_non_null(strstr(err.msg, path));
    free(v2);

    /* corrupt: a damaged entry line, wrong entry count, garbage */
    char *bad = strdup(good);
    char *e = strstr(bad, "\ne\t");
    e[1] = 'x';
    write_str(path, bad, len);
    assert_null(ps_template_lib_load(path, &err));
    assert_int_equal(err.code, PS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, path));
    free(bad);
    bad = strdup(good);
    char *cnt = strstr(bad, "end\t") + 4;
    *cnt = (char)(*cnt + 1);
    write_str(path, bad, len);
    assert_null(ps_template_lib_load(path, &err));
    assert_non_null(strstr(err.msg, "end line"));
    free(bad);
    write_str(path, "\x89PNG\r\n\x1a\n", 8);
    assert_null(ps_template_lib_load(path, &err));
    assert_non_null(strstr(err.msg, path));
    write_str(path, "", 0);
    assert_null(ps_template_lib_load(path, &err));
    assert_non_null(strstr(err.msg, path));

    /* intact again: loads */
    write_str(path, good, len);
    ps_template_lib *lib = ps_template_lib_load(path, &err);
    assert_non_null(lib);
    ps_template_lib_free(lib);
    free(good);

    /* missing folder */
    assert_null(ps_template_store_open("/nonexistent/pagesift-templates", &err));
    assert_int_equal(err.code, PS_ERR_IO);
    rm_tmpdir();
}

/* Issue 32 defect 8: a library that is not a regular file is refused
 * before a byte is read, as a model bundle is: a .tpl linked to /dev/zero
 * was read until the OOM killer, a FIFO without a writer hung for ever
 * (alarm: a hang fails the test instead of the whole ctest run). */
static void test_not_regular_files(void **state)
{
    (void)state;
    make_tmpdir();
    ps_error err = {0};
    ps_template_builder *b = three_sites();
    assert_int_equal(ps_template_builder_write_dir(b, tmpdir, &err), 0);
    ps_template_builder_free(b);
    char path[512];
    snprintf(path, sizeof path, "%s/zero.site.tpl", tmpdir);
    assert_int_equal(symlink("/dev/zero", path), 0);
    alarm(20);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_null(ps_template_lib_load(path, &err));
    assert_int_equal(err.code, PS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "not a regular file"));
    /* the store names the file */
    assert_null(ps_template_store_open(tmpdir, &err));
    assert_non_null(strstr(err.msg, "zero.site.tpl"));
    assert_non_null(strstr(err.msg, "not a regular file"));
    ps_template_builder *u = ps_template_builder_new(NULL);
    assert_int_equal(ps_template_builder_load_dir(u, tmpdir, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
    ps_template_builder_free(u);
    unlink(path);

    snprintf(path, sizeof path, "%s/fifo.site.tpl", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(ps_template_lib_load(path, &err));
    assert_non_null(strstr(err.msg, "not a regular file"));
    assert_null(ps_template_store_open(tmpdir, &err));
    assert_non_null(strstr(err.msg, "fifo.site.tpl"));
    /* the same check for every data file: a model bundle, a data set */
    assert_null(ps_read_regular_file(path, 0, "a model bundle", NULL, &err));
    assert_non_null(strstr(err.msg, "not a regular file, not a model bundle"));
    unlink(path);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    alarm(0);
    assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9 < 5.0);

    /* the regular libraries left load */
    ps_template_store *s = ps_template_store_open(tmpdir, &err);
    assert_non_null(s);
    assert_int_equal(ps_template_store_count(s), 3);
    ps_template_store_free(s);
    rm_tmpdir();
}

static void test_all_different_site(void **state)
{
    (void)state;
    make_tmpdir();
    ps_error err = {0};
    ps_template_builder *b = ps_template_builder_new(NULL);
    for (int i = 0; i < 12; i++) {
        char body[256];
        snprintf(body, sizeof body, "<p>%s</p><a href=/%d>link %d</a>", distinct[i], i, i * 7919);
        ps_page *pg = page_of(body);
        assert_int_equal(ps_template_builder_add(b, "unique.example", pg, &err), 0);
        ps_page_free(pg);
    }
    assert_int_equal(ps_template_builder_write_dir(b, tmpdir, &err), 0);
    ps_template_builder_free(b);
    ps_template_store *s = ps_template_store_open(tmpdir, &err);
    assert_non_null(s);
    const ps_template_lib *lib = ps_template_store_get(s, "unique.example");
    assert_non_null(lib);
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    assert_int_equal(info.n_entries, 0);
    assert_int_equal(info.pages, 12);
    ps_page *pg = page_of("<p>anything</p>");
    assert_int_equal(ps_template_apply(lib, pg), 0);
    ps_page_free(pg);
    ps_template_store_free(s);
    rm_tmpdir();
}

/* The library of site "ex" from three pages, each the body @p fmt with the
 * page's number for its two %d. */
static ps_template_store *store_of(const char *fmt)
{
    ps_error err = {0};
    ps_template_builder *b = ps_template_builder_new(NULL);
    for (int i = 0; i < 3; i++) {
        char body[1024];
        snprintf(body, sizeof body, fmt, i, i);
        ps_page *pg = page_of(body);
        assert_int_equal(ps_template_builder_add(b, "ex", pg, &err), 0);
        ps_page_free(pg);
    }
    return ps_template_builder_finish(b);
}

static void test_apply(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_template_store *s = store_of("<div><a href=/>Home</a> <a href=/w>World news</a></div>"
                                    "<div><h1>Headline number %d</h1><p>Body %d of the article, with its "
                                    "own words.</p></div>"
                                    "<p>Copyright 2012 Example Media Group. All rights reserved.</p>");
    const ps_template_lib *lib = ps_template_store_get(s, "ex");
    /* a new page: the year in the copyright line differs (2 of 56 chars) */
    ps_page *pg = page_of("<div><a href=/>Home</a> <a href=/w>World news</a> <a href=/x>Homes</a></div>"
                          "<div><h1>Fresh headline</h1><p>New body text.</p></div>"
                          "<p>Copyright 2013 Example Media Group. All rights reserved.</p>");
    size_t n;
    const ps_leaf *l = ps_page_leaves(pg, &n);
    ps_template_match *m = calloc(n, sizeof *m);
    assert_int_equal(ps_template_match_page(lib, pg, PS_TEMPLATE_RULES_PAPER, m), 3);
    for (size_t i = 0; i < n; i++) {
        int want = !strcmp(l[i].text, "Home") || !strcmp(l[i].text, "World news") ||
                   !strncmp(l[i].text, "Copyright", 9);
        assert_int_equal(m[i].verdict == PS_TPL_REMOVE, want);
        if (!strncmp(l[i].text, "Copyright", 9))
            assert_int_equal(m[i].distance, 1);
    }
    free(m);
    /* the library records the guarded rule: in this tiny page the copyright
     * sentence sits in the block with the most text, which the main-text
     * guard protects */
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    assert_int_equal(info.params.rules, PS_TEMPLATE_RULES_GUARDED);
    ps_page *g = parse_str("<html><body><div><a href=/>Home</a></div>"
                           "<p>Copyright 2013 Example Media Group. All rights reserved.</p></body></html>");
    assert_int_equal(ps_template_apply(lib, g), 1);
    ps_page_free(g);
    assert_int_equal(ps_template_apply_rules(lib, pg, PS_TEMPLATE_RULES_PAPER), 3);
    size_t len;
    char *text = ps_page_text(pg, NULL, &len);
    assert_string_equal(text, "Homes\nFresh headline\nNew body text.\n");
    free(text);
    /* applying again removes nothing more */
    assert_int_equal(ps_template_apply_rules(lib, pg, PS_TEMPLATE_RULES_PAPER), 0);
    ps_page_free(pg);

    /* guarded rule: the page's own headline survives even when it recurs as
     * a link on the site's pages; the paper's rule removes it */
    ps_template_builder *b2 = ps_template_builder_new(NULL);
    for (int i = 0; i < 3; i++) {
        char body[512];
        snprintf(body, sizeof body, "<div><a href=/top>Storm closes every school in the county</a></div><p>Story %d</p>", i);
        ps_page *p2 = page_of(body);
        assert_int_equal(ps_template_builder_add(b2, "ex", p2, &err), 0);
        ps_page_free(p2);
    }
    ps_template_store *s2 = ps_template_builder_finish(b2);
    const ps_template_lib *lib2 = ps_template_store_get(s2, "ex");
    const char *own = "<html><head><title>Storm closes every school in the county - Example News</title></head>"
                      "<body><div><a href=/top>Storm closes every school in the county</a></div>"
                      "<h2>Storm closes every school in the county</h2><p>Text.</p></body></html>";
    ps_page *p3 = parse_str(own);
    assert_int_equal(ps_template_apply_rules(lib2, p3, PS_TEMPLATE_RULES_GUARDED), 0);
    ps_page_free(p3);
    p3 = parse_str(own);
    assert_int_equal(ps_template_apply_rules(lib2, p3, PS_TEMPLATE_RULES_PAPER), 1);
    ps_page_free(p3);
    ps_template_store_free(s2);
    ps_template_store_free(s);
}

/* Guarded rule, inline guard: a site links a keyword in the running text of
 * every article and in its navigation.  Both are one entry of the library;
 * the navigation link is removed, the link inside the sentence stays, so
 * the sentence keeps its word. */
static void test_inline_link_kept(void **state)
{
    (void)state;
    ps_template_store *s = store_of("<div><a href=/k/phones>Smartphones</a> <a href=/k/tablets>Tablets</a></div>"
                                    "<p>Story %d: the new <a href=/k/phones>Smartphones</a> of the year 200%d "
                                    "sold well, the shops say.</p>");
    const ps_template_lib *lib = ps_template_store_get(s, "ex");
    ps_page *pg = page_of("<div><a href=/k/phones>Smartphones</a> <a href=/k/tablets>Tablets</a></div>"
                          "<p>Prices of <a href=/k/phones>Smartphones</a> fell again this winter, "
                          "as every shop in town knows.</p>");
    size_t n;
    const ps_leaf *l = ps_page_leaves(pg, &n);
    ps_template_match *m = calloc(n, sizeof *m);
    assert_non_null(m);
    assert_int_equal(ps_template_match_page(lib, pg, PS_TEMPLATE_RULES_GUARDED, m), 2);
    int inline_seen = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i].text, "Smartphones") && m[i].verdict == PS_TPL_KEEP_INLINE)
            inline_seen++;
    assert_int_equal(inline_seen, 1);
    free(m);
    assert_int_equal(ps_template_apply(lib, pg), 2);
    size_t len;
    char *text = ps_page_text(pg, NULL, &len);
    assert_non_null(strstr(text, "Prices of Smartphones fell again"));
    assert_null(strstr(text, "Tablets"));
    free(text);
    ps_page_free(pg);
    /* the paper's rule removes all three */
    pg = page_of("<div><a href=/k/phones>Smartphones</a> <a href=/k/tablets>Tablets</a></div>"
                 "<p>Prices of <a href=/k/phones>Smartphones</a> fell again this winter, "
                 "as every shop in town knows.</p>");
    assert_int_equal(ps_template_apply_rules(lib, pg, PS_TEMPLATE_RULES_PAPER), 3);
    ps_page_free(pg);
    ps_template_store_free(s);
}

/* ps_template_apply from several threads on distinct pages gives what it
 * gives sequentially (the library is only read). */
typedef struct apply_job {
    const ps_template_lib *lib;
    const char *html;
    size_t removed[50];
} apply_job;

static void *apply_thread(void *arg)
{
    apply_job *j = arg;
    for (int i = 0; i < 50; i++) {
        ps_page *pg = parse_str(j->html);
        j->removed[i] = ps_template_apply(j->lib, pg);
        ps_page_free(pg);
    }
    return NULL;
}

static void test_apply_threads(void **state)
{
    (void)state;
    ps_error err = {0};
    ps_template_builder *b = ps_template_builder_new(NULL);
    for (int i = 0; i < 6; i++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "<div><a href=/>Home</a><a href=/w>World news and more</a></div><p>%s</p>"
                 "<p>Copyright 2012 Example Media Group. All rights reserved.</p>",
                 distinct[i]);
        ps_page *pg = page_of(body);
        assert_int_equal(ps_template_builder_add(b, "ex", pg, &err), 0);
        ps_page_free(pg);
    }
    ps_template_store *s = ps_template_builder_finish(b);
    const ps_template_lib *lib = ps_template_store_get(s, "ex");
    const char *html[2] = {
        "<html><body><div><a href=/>Home</a><a href=/w>World news and more!</a></div>"
        "<div><p>A long article paragraph that is not in the library at all, with words.</p></div>"
        "<p>Copyright 2013 Example Media Group. All rights reserved.</p></body></html>",
        "<html><body><div><a href=/>Home</a></div><p>Short.</p></body></html>",
    };
    size_t want[2];
    for (int k = 0; k < 2; k++) {
        ps_page *pg = parse_str(html[k]);
        want[k] = ps_template_apply(lib, pg);
        ps_page_free(pg);
    }
    assert_int_equal(want[0], 3);
    assert_int_equal(want[1], 1);
    apply_job jobs[4];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        jobs[t].lib = lib;
        jobs[t].html = html[t % 2];
        assert_int_equal(pthread_create(&th[t], NULL, apply_thread, &jobs[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        for (int i = 0; i < 50; i++)
            assert_int_equal(jobs[t].removed[i], want[t % 2]);
    }
    ps_template_store_free(s);
}

/* The bar of issue 3 on cleanportaleval: every site's library built from its
 * pages and applied to them removes >= 60 % of the non-gold leaf text and
 * <= 1.5 % of the gold leaf text (gold by token alignment). */
static void test_cleanportaleval_bar(void **state)
{
    (void)state;
    char dir[512];
    if (!shared_dataset("cleanportaleval", dir, sizeof dir)) {
        skip();
        return;
    }
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(dir, &err);
    assert_non_null(ds);
    ps_page **pages = calloc(ds->n_pages, sizeof *pages);
    uint8_t **gold = calloc(ds->n_pages, sizeof *gold);
    ps_template_builder *b = ps_template_builder_new(NULL);
    for (size_t i = 0; i < ds->n_pages; i++) {
        ps_page_options po = {0};
        po.url = ds->pages[i].url;
        pages[i] = ps_page_load_file(ds->pages[i].html_path, &po, &err);
        assert_non_null(pages[i]);
        size_t glen, nlen, nl;
        char *g = ps_read_file(ds->pages[i].gold_path, 0, &glen, &err);
        char *norm = ps_template_normalise(g, glen, &nlen);
        ps_page_leaves(pages[i], &nl);
        gold[i] = malloc(nl + 1);
        assert_int_equal(ps_template_gold_leaves(pages[i], norm, nlen, PS_TPL_GOLD_ALIGN, gold[i]), 0);
        free(g);
        free(norm);
        assert_int_equal(ps_template_builder_add(b, ds->pages[i].site, pages[i], &err), 0);
    }
    ps_template_store *s = ps_template_builder_finish(b);
    assert_int_equal(ps_template_store_count(s), 4);
    ps_template_tally t = {0};
    for (size_t i = 0; i < ds->n_pages; i++) {
        size_t nl;
        ps_page_leaves(pages[i], &nl);
        ps_template_match *m = calloc(nl + 1, sizeof *m);
        const ps_template_lib *lib = ps_template_store_get(s, ds->pages[i].site);
        assert_non_null(lib);
        ps_template_match_page(lib, pages[i], PS_TEMPLATE_RULES_GUARDED, m);
        ps_template_tally_page(&t, pages[i], gold[i], m, NULL, NULL, "", "");
        free(m);
        ps_page_free(pages[i]);
        free(gold[i]);
    }
    double noise = 100.0 * (double)t.other_removed / (double)t.other;
    double lost = 100.0 * (double)t.gold_removed / (double)t.gold;
    fprintf(stderr, "cleanportaleval: %.1f %% of non-gold removed, %.2f %% of gold removed\n", noise, lost);
    assert_true(noise >= 60.0);
    assert_true(lost <= 1.5);
    free(pages);
    free(gold);
    ps_template_store_free(s);
    ps_dataset_free(ds);
}

/* ---- issue 32, defect 3: near-linear matching, the page deadline -------- */

static unsigned long rng_state = 1;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned)((rng_state >> 33) % n);
}

static void random_text(char *t, size_t len, unsigned alphabet)
{
    for (size_t i = 0; i < len; i++)
        t[i] = (char)('a' + rnd(alphabet));
    t[len] = '\0';
}

/* A page of <p> leaves, the texts given. */
static ps_page *page_of_texts(char (*texts)[64], size_t n)
{
    ps_buf b = {0};
    ps_buf_printf(&b, "<html><head><meta charset=utf-8></head><body>");
    for (size_t i = 0; i < n; i++)
        ps_buf_printf(&b, "<p>%s</p>", texts[i]);
    ps_buf_printf(&b, "</body></html>");
    ps_error err = {0};
    ps_page *pg = ps_page_parse(b.data, b.len, NULL, &err);
    ps_buf_free(&b);
    assert_non_null(pg);
    return pg;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A library of the @p n texts (3 pages holding them all). */
static ps_template_store *store_of_texts(char (*texts)[64], size_t n)
{
    ps_error err = {0};
    ps_template_builder *b = ps_template_builder_new(NULL);
    ps_page *pg = page_of_texts(texts, n);
    for (int i = 0; i < 3; i++)
        assert_int_equal(ps_template_builder_add(b, "big", pg, &err), 0);
    ps_page_free(pg);
    return ps_template_builder_finish(b);
}

/* Learning 10 pages of N distinct leaves of one length, and applying a
 * library of N such entries to a page of N other leaves, at N and 4N: CPU
 * time must grow less than 8x (near-linear; the old length-band scan took
 * 16x: learning 7 / 30 / 130 s at N = 2k / 4k / 8k, applying 0.17 / 0.58 /
 * 2.3 / 9.3 s at N = 2k .. 16k). */
static void test_scaling(void **state)
{
    (void)state;
    const size_t sizes[2] = {1000, 4000};
    double learn[2], apply[2];
    for (int s = 0; s < 2; s++) {
        size_t n = sizes[s];
        char (*t)[64] = malloc(n * sizeof *t);
        assert_non_null(t);
        ps_page *pages[10];
        for (int p = 0; p < 10; p++) {
            for (size_t i = 0; i < n; i++)
                random_text(t[i], 30, 26);
            pages[p] = page_of_texts(t, n);
        }
        ps_error err = {0};
        ps_template_builder *b = ps_template_builder_new(NULL);
        double t0 = cpu_seconds();
        for (int p = 0; p < 10; p++)
            assert_int_equal(ps_template_builder_add(b, "s", pages[p], &err), 0);
        learn[s] = cpu_seconds() - t0;
        ps_template_builder_free(b);
        for (int p = 0; p < 10; p++)
            ps_page_free(pages[p]);
        /* applying */
        ps_template_store *st = store_of_texts(t, n);
        const ps_template_lib *lib = ps_template_store_get(st, "big");
        assert_non_null(lib);
        for (size_t i = 0; i < n; i++)
            random_text(t[i], 30, 26);
        ps_page *pg = page_of_texts(t, n);
        size_t nl;
        ps_page_leaves(pg, &nl);
        ps_template_match *m = calloc(nl, sizeof *m);
        t0 = cpu_seconds();
        assert_int_equal(ps_template_match_page(lib, pg, PS_TEMPLATE_RULES_PAPER, m), 0);
        apply[s] = cpu_seconds() - t0;
        free(m);
        ps_page_free(pg);
        ps_template_store_free(st);
        free(t);
    }
    fprintf(stderr, "learning 10 pages: N=%zu %.3f s, N=%zu %.3f s; applying: %.3f s, %.3f s\n", sizes[0],
            learn[0], sizes[1], learn[1], apply[0], apply[1]);
    if (learn[1] > 8 * learn[0] + 0.05)
        fail_msg("learning grows %.1fx for 4x the leaves", learn[1] / learn[0]);
    if (apply[1] > 8 * apply[0] + 0.05)
        fail_msg("applying grows %.1fx for 4x the leaves", apply[1] / apply[0]);
}

/* The segment index finds exactly what a scan finds: pages of leaves that
 * are library entries with 0..7 random edits (a small alphabet, 600
 * entries per length so that lengths are searched by segments), matched
 * and checked against the plain distance to every entry (the closest
 * within floor(min / 8), ties the oldest). */
static void test_segment_index_exact(void **state)
{
    (void)state;
    rng_state = 32;
    const size_t n = 1800, q = 600;
    char (*t)[64] = malloc((n + q) * sizeof *t);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++)
        random_text(t[i], 38 + rnd(5), 4);
    ps_template_store *st = store_of_texts(t, n);
    const ps_template_lib *lib = ps_template_store_get(st, "big");
    assert_non_null(lib);
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    char (*qt)[64] = t + n;
    for (size_t j = 0; j < q; j++) {
        char *x = qt[j];
        strcpy(x, t[rnd((unsigned)n)]);
        unsigned edits = rnd(8);
        for (unsigned e = 0; e < edits; e++) {
            size_t len = strlen(x), at = rnd((unsigned)len);
            unsigned op = rnd(3);
            if (op == 0)
                x[at] = (char)('a' + rnd(4));
            else if (op == 1 && len > 30)
                memmove(x + at, x + at + 1, len - at);
            else if (len < 60) {
                memmove(x + at + 1, x + at, len - at + 1);
                x[at] = (char)('a' + rnd(4));
            }
        }
    }
    ps_page *pg = page_of_texts(qt, q);
    size_t nl;
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    assert_int_equal(nl, q);
    ps_template_match *m = calloc(nl, sizeof *m);
    ps_template_match_page(lib, pg, PS_TEMPLATE_RULES_PAPER, m);
    size_t matched = 0;
    for (size_t j = 0; j < nl; j++) {
        size_t lj = strlen(l[j].text);
        long best = -1;
        unsigned best_d = 0;
        for (size_t e = 0; e < info.n_entries; e++) {
            ps_template_entry en;
            ps_template_lib_entry(lib, e, &en);
            size_t le = strlen(en.text), mn = le < lj ? le : lj;
            unsigned k = mn <= 8 ? 0 : (unsigned)(mn / 8);
            unsigned d = naive_distance(l[j].text, en.text);
            if (d <= k && (best < 0 || d < best_d)) {
                best = (long)e;
                best_d = d;
            }
        }
        if (best < 0) {
            assert_int_equal(m[j].entry, -1);
            continue;
        }
        matched++;
        if (m[j].entry != best || m[j].distance != best_d)
            fail_msg("leaf %zu '%s': entry %d at %u, the scan finds %ld at %u", j, l[j].text, m[j].entry,
                     m[j].distance, best, best_d);
    }
    fprintf(stderr, "%zu of %zu leaves matched, as the scan\n", matched, nl);
    assert_true(matched > q / 4 && matched < q);
    free(m);
    ps_page_free(pg);
    ps_template_store_free(st);
    free(t);
}

/* Applying is under the page's deadline: past it, PS_TEMPLATE_TIMEOUT and
 * nothing removed (before: applying ran to its end, 9.3 s with
 * --page-timeout 3). */
static void test_apply_deadline(void **state)
{
    (void)state;
    ps_template_store *s = store_of("<div><a href=/>Home</a> <a href=/w>World news</a></div>"
                                    "<div><h1>Headline number %d</h1><p>Body %d of the article.</p></div>");
    const ps_template_lib *lib = ps_template_store_get(s, "ex");
    char body[8192] = "";
    for (int i = 0; i < 40; i++)
        strcat(body, "<div><a href=/>Home</a> <a href=/w>World news</a></div>");
    ps_page *pg = page_of(body);
    pg->deadline = ps_now() - 1; /* parsed with a deadline that has passed since */
    size_t n;
    ps_page_leaves(pg, &n);
    ps_template_match *m = calloc(n, sizeof *m);
    assert_true(ps_template_match_page(lib, pg, PS_TEMPLATE_RULES_PAPER, m) == PS_TEMPLATE_TIMEOUT);
    assert_true(ps_template_apply_rules(lib, pg, PS_TEMPLATE_RULES_PAPER) == PS_TEMPLATE_TIMEOUT);
    size_t len;
    char *text = ps_page_text(pg, NULL, &len);
    assert_non_null(strstr(text, "World news")); /* nothing removed */
    free(text);
    pg->deadline = ps_now() + 60;
    assert_int_equal(ps_template_apply_rules(lib, pg, PS_TEMPLATE_RULES_PAPER), 80);
    free(m);
    ps_page_free(pg);
    ps_template_store_free(s);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_table2),
        cmocka_unit_test(test_similarity_threshold),
        cmocka_unit_test(test_banded_distance_matches_plain),
        cmocka_unit_test(test_page_vs_occurrence_count),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_store_round_trip),
        cmocka_unit_test(test_damaged_files),
        cmocka_unit_test(test_not_regular_files),
        cmocka_unit_test(test_all_different_site),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_inline_link_kept),
        cmocka_unit_test(test_apply_threads),
        cmocka_unit_test(test_cleanportaleval_bar),
        cmocka_unit_test(test_scaling),
        cmocka_unit_test(test_segment_index_exact),
        cmocka_unit_test(test_apply_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
