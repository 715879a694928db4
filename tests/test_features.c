/* tests/test_features.c — block features (the paper's worked example, nested
 * exclusion, extended features), gold alignment, the block CSV and the CSV
 * reader (quoting round trip, errors naming file and line). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/util.h"
#include "features/gold_align.h"
#include "features/text_stats.h"
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "tests/test_util.h"
#include "pagesift/page.h"

static char *repeat(char *dst, char c, int n)
{
    memset(dst, c, (size_t)n);
    dst[n] = '\0';
    return dst;
}

static int fid(const char *name)
{
    int id = ps_feature_lookup(name);
    if (id < 0)
        fail_msg("unknown feature %s", name);
    return id;
}

/* METHODS.md §1.2, the paper's Tables 3 and 4: body and five divs, page
 * totals 192 characters, 16 link characters, 7 links, 1 image. */
static void test_paper_worked_example(void **state)
{
    (void)state;
    char t83[84], t13[14], t15[16], t65[66], html[1024];
    snprintf(html, sizeof html,
             "<html><body><a href=1>abc</a><a href=2>def</a>"
             "<div><a href=3>aa</a><a href=4>bb</a><a href=5>cc</a><a href=6>dd</a><a href=7>ee</a></div>"
             "<div><p>%s</p></div><div><p>%s</p></div><div><img src=x.png><p>%s</p></div>"
             "<div><p>%s</p></div></body></html>",
             repeat(t83, 'x', 83), repeat(t13, 'y', 13), repeat(t15, 'z', 15), repeat(t65, 'w', 65));
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    size_t nb;
    ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 6);
    ps_counts tot = ps_page_totals(pg);
    assert_int_equal(tot.text_chars, 192);
    assert_int_equal(tot.link_chars, 16);
    assert_int_equal(tot.links, 7);
    assert_int_equal(tot.images, 1);
    int ids[5];
    for (int k = 0; k < 5; k++) {
        char n[3] = {'R', (char)('1' + k), 0};
        ids[k] = fid(n);
    }
    double f[6 * 5];
    assert_int_equal(ps_page_block_features(pg, ids, 5, f), 0);
    /* The paper's Table 4, to three decimals.  Its 0.336 for the last div is
     * 65/193 = 0.3368 truncated (every other value is rounded): checked
     * against the exact value, and within 0.001 of the printed one. */
    static const double want[6][5] = {
        {0.031, 0.353, 0.25, 0, 0.857}, {0.052, 0.588, 0.625, 0, 0.909}, {0.430, 0, 0, 0, 0},
        {0.067, 0, 0, 0, 0},            {0.078, 0, 0, 0.5, 0},           {0.336, 0, 0, 0, 0},
    };
    for (int b = 0; b < 6; b++)
        for (int k = 0; k < 5; k++) {
            double tol = (b == 5 && k == 0) ? 0.001 : 0.0005;
            if (fabs(f[b * 5 + k] - want[b][k]) > tol)
                fail_msg("block %d R%d = %.4f, paper %.3f", b, k + 1, f[b * 5 + k], want[b][k]);
        }
    assert_true(fabs(f[5 * 5] - 65.0 / 193.0) < 1e-12);
    ps_page_free(pg);
}

static void test_nested_blocks_excluded(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<body><div>outer text<div><a href=x>inner link</a></div>"
                            "more</div></body>");
    assert_non_null(pg);
    int ids[] = {fid("R1"), fid("R5"), fid("x_subtree_text"), fid("x_own_share")};
    double f[3 * 4];
    assert_int_equal(ps_page_block_features(pg, ids, 4, f), 0);
    /* page: the outer div's leaf "outer text more" 15 + "inner link" 10 = 25 */
    /* outer div: own 15 characters, no link text (the inner div's excluded) */
    assert_true(fabs(f[1 * 4 + 0] - 15.0 / 26.0) < 1e-12);
    assert_true(fabs(f[1 * 4 + 1] - 0.0) < 1e-12);
    /* its subtree holds all 25, its own share is 15 / 26 */
    assert_true(fabs(f[1 * 4 + 2] - 25.0 / 26.0) < 1e-12);
    assert_true(fabs(f[1 * 4 + 3] - 15.0 / 26.0) < 1e-12);
    /* inner div: 10 link characters of 10 */
    assert_true(fabs(f[2 * 4 + 0] - 10.0 / 26.0) < 1e-12);
    assert_true(fabs(f[2 * 4 + 1] - 10.0 / 11.0) < 1e-12);
    ps_page_free(pg);
}

static void test_feature_names(void **state)
{
    (void)state;
    assert_int_equal(ps_feature_lookup("R1"), 0);
    assert_int_equal(ps_feature_lookup("R5"), 4);
    assert_int_equal(ps_feature_lookup("x_no_such_feature"), -1);
    assert_int_equal(ps_feature_lookup(NULL), -1);
    for (size_t i = 5; i < ps_feature_count(); i++) {
        assert_memory_equal(ps_feature_name(i), "x_", 2);
        assert_int_equal(ps_feature_lookup(ps_feature_name(i)), (int)i);
    }
    assert_null(ps_feature_name(ps_feature_count()));
    ps_page *pg = parse_str("<body>x</body>");
    int bad[] = {0, (int)ps_feature_count()};
    double f[2];
    assert_int_equal(ps_page_block_features(pg, bad, 2, f), -1);
    ps_page_free(pg);
}

static void test_extended_features(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body>"
                            "<div class='nav-menu'><a href=/>Home</a><a href=/n>News</a>"
                            "<div><a href=/s>Sport</a></div></div>"
                            "<div id='mainContent'><h1>Title</h1><p>The cat sat on the mat. It was "
                            "happy!</p><img src=a.png></div>"
                            "<section><p>2024-01-02</p></section></body></html>");
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 5); /* body, nav div, its div, main div, section */
    const char *names[] = {"x_attr_noise", "x_attr_content", "x_anc_noise", "x_heading",
                           "x_heading_sub", "x_position", "x_punct", "x_stopwords", "x_tag_div",
                           "x_tag_section", "x_tag_other", "x_depth", "x_leaves_log",
                           "x_link_leaf_share", "x_p_share", "x_digits", "x_sentence_len",
                           "x_subtree_text", "x_subtree_link_density"};
    enum { N = sizeof names / sizeof *names };
    int ids[N];
    for (int k = 0; k < N; k++)
        ids[k] = fid(names[k]);
    double f[5 * N];
    assert_int_equal(ps_page_block_features(pg, ids, N, f), 0);
    ps_counts tot = ps_page_totals(pg);
    /* page: Home 4 + News 4 + Sport 5 + Title 5 + sentence 37 + date 10 = 65 */
    assert_int_equal(tot.text_chars, 65);
    double v[5][N];
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < N; k++)
            v[i][k] = f[i * N + k];
    assert_string_equal(b[1].class_attr, "nav-menu");
    assert_true(v[1][0] == 1 && v[1][1] == 0); /* nav-menu: noise word */
    assert_true(v[3][0] == 0 && v[3][1] == 1); /* mainContent: content word (camel case) */
    assert_true(v[2][2] == 1 && v[2][0] == 0); /* inside the nav, no word of its own */
    assert_true(v[3][2] == 0);
    assert_true(v[3][3] == 1 && v[1][3] == 0);   /* h1 in the main div */
    assert_true(v[0][4] == 1 && v[0][3] == 0);   /* body: heading below it only */
    assert_true(v[1][5] == 0);                   /* nav at the top */
    assert_true(fabs(v[2][5] - 8.0 / 66) < 1e-12);  /* Sport after Home, News */
    assert_true(fabs(v[3][5] - 13.0 / 66) < 1e-12);
    assert_true(fabs(v[0][5] - 0.0) < 1e-12);    /* body starts where the page does */
    /* main div: "Title" + "The cat sat on the mat. It was happy!" = 42 chars,
     * 2 punctuation marks, 10 words of which 5 function words (the, on, the,
     * it, was), 2 sentence ends */
    assert_true(fabs(v[3][6] - 2.0 / 43) < 1e-12);
    assert_true(fabs(v[3][7] - 5.0 / 11) < 1e-12);
    assert_true(fabs(v[3][16] - log1p(42.0 / 3)) < 1e-12);
    assert_true(v[3][8] == 1 && v[3][9] == 0 && v[3][10] == 0);
    assert_true(v[4][8] == 0 && v[4][9] == 1);
    assert_true(v[0][10] == 0 && v[1][10] == 0);  /* body and div are in the one-hot list */
    assert_true(v[2][11] == 2);                  /* depth among blocks */
    assert_true(fabs(v[1][12] - log1p(2)) < 1e-12);
    assert_true(fabs(v[1][13] - 2.0 / 3) < 1e-12);
    assert_true(fabs(v[3][14] - 37.0 / 43) < 1e-12);
    /* section: "2024-01-02" 8 digits, 2 hyphens of 10 characters */
    assert_true(fabs(v[4][15] - 8.0 / 11) < 1e-12);
    assert_true(fabs(v[4][6] - 2.0 / 11) < 1e-12);
    /* nav subtree: 13 characters, all link text */
    assert_true(fabs(v[1][17] - 13.0 / 66) < 1e-12);
    assert_true(fabs(v[1][18] - 13.0 / 14) < 1e-12);
    assert_true(fabs(v[0][17] - 65.0 / 66) < 1e-12);
    ps_page_free(pg);
}

/* The page-context features: against the main block, the headline, and the
 * repeated block shapes of a comment thread. */
static void test_context_features(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><head><title>Big storm hits town</title></head><body>"
                            "<div class=nav><a href=/>Home</a><a href=/n>News</a></div>"
                            "<div id=story><h2>Other</h2><h1>Big storm hits town</h1>"
                            "<p>The storm came in the night and left the town without power for "
                            "two days.</p></div>"
                            "<div id=comments>"
                            "<div class=comment><p>First comment text</p></div>"
                            "<div class=comment><p>Second one</p></div>"
                            "<div class=comment><p>Third</p></div></div></body></html>");
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 7); /* body, nav, story, comments, 3 x comment */
    assert_string_equal(b[2].id_attr, "story");
    const char *names[] = {"x_main_share", "x_main_dist",      "x_main_sibling", "x_main_ancestor",
                           "x_main_offset", "x_repeat_siblings", "x_repeat_page", "x_head_offset",
                           "x_head_dist",  "x_attr_comment",    "x_anc_comment"};
    enum { N = sizeof names / sizeof *names };
    int ids[N];
    for (int k = 0; k < N; k++)
        ids[k] = fid(names[k]);
    double f[7 * N];
    assert_int_equal(ps_page_block_features(pg, ids, N, f), 0);
    double v[7][N];
    for (int i = 0; i < 7; i++)
        for (int k = 0; k < N; k++)
            v[i][k] = f[i * N + k];
    double tot = ps_page_totals(pg).text_chars;
    double best = b[2].own.text_chars; /* the story: no link text */
    assert_true(fabs(v[2][0] - best / (best + 1)) < 1e-12);
    assert_true(v[1][0] == 0); /* the nav is all links */
    /* hops: story 0, body 1, nav and comments 2 (via body), a comment 3 */
    const double hops[7] = {1, 2, 0, 2, 3, 3, 3};
    for (int i = 0; i < 7; i++) {
        assert_true(fabs(v[i][1] - log1p(hops[i])) < 1e-12);
        assert_true(fabs(v[i][8] - log1p(hops[i])) < 1e-12); /* the h1 is in the story */
    }
    /* every block but body lies inside main's parent (body), which encloses it */
    assert_true(v[0][2] == 0 && v[0][3] == 1);
    for (int i = 1; i < 7; i++)
        assert_true(v[i][2] == 1 && v[i][3] == 0);
    /* story starts after Home, News (8 characters); the comments later */
    assert_true(v[2][4] == 0 && v[1][4] < 0 && v[4][4] > 0);
    /* the three comments repeat one shape (tag and class) among siblings and
     * on the page; so do story and comments (divs without a class: ids are
     * not part of the shape, as comments have one id each) */
    for (int i = 0; i < 7; i++) {
        double want = i >= 4 ? log1p(2) : (i == 2 || i == 3) ? log1p(1) : 0;
        assert_true(fabs(v[i][5] - want) < 1e-12);
        assert_true(fabs(v[i][6] - want) < 1e-12);
    }
    /* headline: the h1 (title words), not the h2 before it: 13 characters in */
    assert_true(fabs(v[2][7] - (8.0 - 13.0) / (tot + 1)) < 1e-12);
    assert_true(v[4][7] > 0);
    /* comment words: the thread and each comment; only the comments inside */
    assert_true(v[3][9] == 1 && v[3][10] == 0);
    assert_true(v[4][9] == 1 && v[4][10] == 1);
    assert_true(v[2][9] == 0 && v[2][10] == 0 && v[1][9] == 0);
    ps_page_free(pg);
}

/* The rows extraction makes on demand (ps_block_rows_*: the whole matrix
 * was the most memory a block cost) are, bit for bit, the rows and columns
 * of ps_page_block_features, on a page small enough that they are made
 * once and on one of 3 000 blocks whose rows are made when asked; and the
 * context features item by item are ps_context_features'. */
static void test_rows_on_demand(void **state)
{
    (void)state;
    size_t nf = ps_feature_count();
    int *ids = malloc(nf * sizeof *ids);
    assert_non_null(ids);
    for (size_t k = 0; k < nf; k++)
        ids[k] = (int)(nf - 1 - k); /* any order */
    const int sizes[] = {40, 3000};
    for (int z = 0; z < 2; z++) {
        ps_buf page = {0};
        const char *head = "<html><head><title>Notes on items</title></head><body><h1>Items</h1>";
        assert_int_equal(ps_buf_append(&page, head, strlen(head)), 0);
        for (int i = 0; i < sizes[z]; i++) {
            char item[200];
            int len = snprintf(item, sizeof item,
                               i % 4 == 3 ? "<div class=\"nav n%d\"><a href=\"/%d\">Item %d</a></div>"
                                          : "<div class=c%d><p>Notes %d on items, said %d times.</p></div>",
                               i % 7, i, i * 3);
            assert_int_equal(ps_buf_append(&page, item, (size_t)len), 0);
        }
        assert_int_equal(ps_buf_append(&page, "</body></html>", 14), 0);
        ps_error err = {0};
        ps_page *pg = ps_page_parse(page.data, page.len, NULL, &err);
        assert_non_null(pg);
        size_t nb;
        ps_page_blocks(pg, &nb);
        assert_true(nb > (size_t)sizes[z]);
        double *all = malloc(nb * nf * sizeof *all), *rows = malloc(nb * nf * sizeof *rows);
        double *cols = malloc(nb * 3 * sizeof *cols);
        uint32_t *list = malloc(nb * sizeof *list);
        assert_true(all && rows && cols && list);
        assert_int_equal(ps_page_block_features(pg, ids, nf, all), 0);
        ps_block_rows *r = ps_block_rows_new(pg, ids, nf);
        assert_non_null(r);
        assert_int_equal(ps_block_rows_width(r), nf);
        size_t n = 0;
        for (size_t b = 0; b < nb; b += 1 + b % 3)
            list[n++] = (uint32_t)b;
        ps_block_rows_get(r, list, n, rows);
        for (size_t i = 0; i < n; i++)
            assert_memory_equal(rows + i * nf, all + list[i] * nf, nf * sizeof *rows);
        const size_t want[3] = {0, nf / 2, nf - 1};
        ps_block_rows_columns(r, want, 3, cols);
        for (size_t b = 0; b < nb; b++)
            for (size_t j = 0; j < 3; j++)
                assert_memory_equal(&cols[b * 3 + j], &all[b * nf + want[j]], sizeof *cols);
        ps_block_rows_free(r);
        free(all);
        free(rows);
        free(cols);
        free(list);
        ps_page_free(pg);
        ps_buf_free(&page);
    }
    free(ids);
    /* the context, item by item */
    enum { M = 500 };
    int32_t parent[M];
    uint32_t chars[M];
    double score[M], whole[M * PS_CONTEXT_FEATURES], one[PS_CONTEXT_FEATURES];
    for (int i = 0; i < M; i++) {
        parent[i] = i == 0 ? -1 : (int32_t)((i * 7) % i);
        chars[i] = (uint32_t)(i * 37 % 101);
        score[i] = sin(i * 0.37) * 2.5 + (i % 11 == 0 ? 9 : 0);
    }
    assert_int_equal(ps_context_features(M, parent, chars, score, whole), 0);
    ps_context *cx = ps_context_new(M, parent, chars, score);
    assert_non_null(cx);
    for (int i = 0; i < M; i++) {
        ps_context_item(cx, (size_t)i, one);
        assert_memory_equal(one, whole + i * PS_CONTEXT_FEATURES, sizeof one);
    }
    ps_context_free(cx);
    /* the character sums are kept in 32 bits: more than a page can have is
     * refused, not wrapped */
    for (int i = 0; i < M; i++)
        chars[i] = UINT32_MAX / 256;
    assert_null(ps_context_new(M, parent, chars, score));
    assert_int_equal(ps_context_features(M, parent, chars, score, whole), -1);
    chars[0] = 1;
    assert_non_null(cx = ps_context_new(1, parent, chars, score));
    ps_context_free(cx);
}

static void test_title_words(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><head><title>Big News Today | \xE6\x96\xB0\xE9\x97\xBB</title></head>"
                            "<body><div><h1>Big news today</h1></div><div><p>Other words, "
                            "not big.</p></div><div><p>\xE6\x96\xB0\xE9\x97\xBB\xE7\xBD\x91</p></div></body></html>");
    assert_non_null(pg);
    int id = fid("x_title_words");
    double f[4];
    assert_int_equal(ps_page_block_features(pg, &id, 1, f), 0);
    assert_true(fabs(f[1] - 3.0 / 4) < 1e-12);  /* every word, case ignored */
    assert_true(fabs(f[2] - 1.0 / 5) < 1e-12);  /* "big" of 4 words */
    assert_true(fabs(f[3] - 2.0 / 4) < 1e-12);  /* 新闻 of 新闻网 */
    ps_page_free(pg);
}

static void test_text_stats_cjk(void **state)
{
    (void)state;
    ps_text_stats s = {0};
    /* 我的书。 : 3 word tokens (one per ideograph), 2 function characters
     * (我, 的), 1 punctuation mark, 1 sentence end */
    const char *t = "\xE6\x88\x91\xE7\x9A\x84\xE4\xB9\xA6\xE3\x80\x82";
    ps_text_stats_add(&s, t, strlen(t), NULL);
    assert_int_equal(s.chars, 4);
    assert_int_equal(s.words, 3);
    assert_int_equal(s.stopwords, 2);
    assert_int_equal(s.punct, 1);
    assert_int_equal(s.sentence_ends, 1);
    assert_int_equal(ps_attr_words("header"), PS_ATTR_NOISE);
    assert_int_equal(ps_attr_words("shadow"), 0);          /* "ad" only as a word */
    assert_int_equal(ps_attr_words("top-ad"), PS_ATTR_NOISE);
    assert_int_equal(ps_attr_words("post_body"), PS_ATTR_CONTENT);
    assert_int_equal(ps_attr_words(""), 0);
}

static void test_gold_alignment(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><meta charset=utf-8><body>"
                            "<div id=nav><a href=/>Home</a> <a href=/t>The</a> <a href=/n>News</a></div>"
                            "<div id=art><p>The quick brown fox jumps over the lazy dog.</p></div>"
                            "<div id=zh><p>\xE4\xB8\xAD\xE6\x96\x87\xE5\x86\x85\xE5\xAE\xB9</p>"
                            "<p>\xE6\xB5\x8B\xE8\xAF\x95\xE5\xB9\xBF\xE5\x91\x8A</p></div>"
                            "<div id=empty><img src=x></div></body></html>");
    assert_non_null(pg);
    /* gold: the article (different case, other punctuation), the first
     * Chinese line (中文内容) and only the first two characters of the second
     * (测试, not 广告) */
    const char *gold = "the quick brown fox jumps over the lazy dog\n"
                       "\xE4\xB8\xAD\xE6\x96\x87\xE5\x86\x85\xE5\xAE\xB9 \xE6\xB5\x8B\xE8\xAF\x95\n";
    size_t nb, nl;
    ps_page_blocks(pg, &nb);
    ps_page_leaves(pg, &nl);
    assert_int_equal(nb, 5);
    double *ls = malloc(nl * sizeof *ls), *bs = malloc(nb * sizeof *bs);
    assert_int_equal(ps_page_gold_alignment(pg, gold, strlen(gold), ls, bs), 0);
    assert_true(bs[0] == -1.0);               /* body: no text of its own */
    assert_true(bs[1] == 0.0);                /* nav: "The" there is not the gold's */
    assert_true(bs[2] == 1.0);                /* article */
    assert_true(fabs(bs[3] - 6.0 / 8) < 1e-12); /* 6 of 8 ideographs */
    assert_true(bs[4] == -1.0);
    assert_true(ls[nl - 2] == 1.0 && fabs(ls[nl - 1] - 0.5) < 1e-12);
    assert_int_equal(ps_page_gold_alignment(pg, gold, strlen(gold), NULL, NULL), 0);
    /* no gold at all: nothing aligned */
    assert_int_equal(ps_page_gold_alignment(pg, "", 0, ls, bs), 0);
    assert_true(bs[2] == 0.0);
    free(ls);
    free(bs);
    ps_page_free(pg);
}

/* The anchored LCS on ranges too large for the DP table: when b is a
 * subsequence of a, every token of b must be aligned. */
static void test_lcs_large(void **state)
{
    (void)state;
    size_t na = 60000, nb = 0;
    uint64_t *a = malloc(na * sizeof *a), *b = malloc(na * sizeof *b);
    uint8_t *ma = calloc(na, 1), *mb = calloc(na, 1);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < na; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i] = x % 5000; /* a small vocabulary: many repeated tokens */
        if ((i / 700) % 3 == 1)
            b[nb++] = a[i]; /* runs of the page are gold */
    }
    assert_int_equal(ps_lcs_mark(a, na, b, nb, ma, mb), 0);
    size_t matched = 0, ma_n = 0;
    for (size_t j = 0; j < nb; j++)
        matched += mb[j];
    for (size_t i = 0; i < na; i++)
        ma_n += ma[i];
    assert_int_equal(ma_n, matched);
    assert_true(matched >= nb * 99 / 100);
    free(a);
    free(b);
    free(ma);
    free(mb);
}

static char *tmpfile_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "/tmp/test_features_%d_%s", (int)getpid(), name);
    return buf;
}

static void write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(s, f);
    fclose(f);
}

static void test_csv_quoting_round_trip(void **state)
{
    (void)state;
    const char *fields[] = {"plain", "comma, inside", "quote \"here\"", "line\nbreak\r\nCRLF",
                            "\xE4\xB8\xAD\xE6\x96\x87\xEF\xBC\x8C\xE9\x80\x97\xE5\x8F\xB7", "",
                            " spaces kept "};
    enum { N = sizeof fields / sizeof *fields };
    char path[512];
    tmpfile_path(path, sizeof path, "quote.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    /* a BOM and CRLF, as a spreadsheet saves it */
    fputs("\xEF\xBB\xBF" "a,b,c,d,e,f,g\r\n", f);
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < N; i++) {
            if (i)
                fputc(',', f);
            assert_int_equal(ps_csv_write_field(f, fields[i], strlen(fields[i])), 0);
        }
        fputs("\r\n", f);
    }
    fclose(f);
    ps_error err = {0};
    ps_csv *c = ps_csv_open(path, &err);
    assert_non_null(c);
    assert_int_equal(ps_csv_columns(c), N);
    assert_int_equal(ps_csv_column(c, "a"), 0);
    assert_int_equal(ps_csv_column(c, "g"), 6);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(ps_csv_next(c, &err), 1);
        for (int i = 0; i < N; i++)
            assert_string_equal(ps_csv_field(c, (size_t)i), fields[i]);
    }
    /* the second row starts on line 5: the first spans lines 2-4 */
    assert_int_equal(ps_csv_line(c), 5);
    assert_int_equal(ps_csv_next(c, &err), 0);
    ps_csv_close(c);
    unlink(path);
}

/* A count column (inner_len) of a damaged or hand-edited CSV: beyond
 * uint32_t it was converted with undefined behaviour (the fuzzer's find,
 * train/site_rows.c); now clamped, negative ones 0. */
static void test_csv_count_clamped(void **state)
{
    (void)state;
    char path[512];
    ps_error err = {0};
    tmpfile_path(path, sizeof path, "count.csv");
    write_file(path, "inner_len\n1e30\n-5\n4294967295.9\n12.7\nx\n");
    ps_csv *c = ps_csv_open(path, &err);
    assert_non_null(c);
    int col = ps_csv_require(c, "inner_len", &err);
    const uint32_t want[] = {UINT32_MAX, 0, UINT32_MAX, 12};
    for (size_t k = 0; k < 4; k++) {
        uint32_t v = 7;
        assert_int_equal(ps_csv_next(c, &err), 1);
        assert_int_equal(ps_csv_count(c, (size_t)col, &v, &err), 0);
        assert_true(v == want[k]);
    }
    uint32_t v;
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_int_equal(ps_csv_count(c, (size_t)col, &v, &err), -1);
    assert_non_null(strstr(err.msg, "is not a number"));
    ps_csv_close(c);
    unlink(path);
}

static void test_csv_errors_name_file_and_line(void **state)
{
    (void)state;
    char path[512], want[600];
    ps_error err = {0};
    tmpfile_path(path, sizeof path, "bad.csv");
    write_file(path, "R1,R2,label\n0.5,0.25,1\n\"0.1\",abc,0\n");
    ps_csv *c = ps_csv_open(path, &err);
    assert_non_null(c);
    assert_int_equal(ps_csv_require(c, "R3", &err), -1);
    snprintf(want, sizeof want, "%s: line 1: the header has no column 'R3'", path);
    assert_string_equal(err.msg, want);
    int r1 = ps_csv_require(c, "R1", &err), r2 = ps_csv_require(c, "R2", &err);
    double v;
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_int_equal(ps_csv_number(c, (size_t)r1, &v, &err), 0);
    assert_true(v == 0.5);
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_int_equal(ps_csv_number(c, (size_t)r1, &v, &err), 0);
    assert_true(fabs(v - 0.1) < 1e-15);
    assert_int_equal(ps_csv_number(c, (size_t)r2, &v, &err), -1);
    snprintf(want, sizeof want, "%s: line 3: column 'R2': 'abc' is not a number", path);
    assert_string_equal(err.msg, want);
    ps_csv_close(c);

    /* a row with a field missing */
    write_file(path, "a,b,c\n1,2,3\n\"x\ny\",2,3\n4,5\n");
    c = ps_csv_open(path, &err);
    assert_non_null(c);
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_int_equal(ps_csv_next(c, &err), -1);
    snprintf(want, sizeof want, "%s: line 5: 2 fields, the header has 3", path);
    assert_string_equal(err.msg, want);
    ps_csv_close(c);

    /* malformed quoting, an empty file, a missing file */
    write_file(path, "a,b\n1,\"open\n");
    c = ps_csv_open(path, &err);
    assert_non_null(c);
    assert_int_equal(ps_csv_next(c, &err), -1);
    assert_non_null(strstr(err.msg, "line 2"));
    assert_non_null(strstr(err.msg, path));
    ps_csv_close(c);
    write_file(path, "");
    assert_null(ps_csv_open(path, &err));
    assert_non_null(strstr(err.msg, "empty file"));
    unlink(path);
    assert_null(ps_csv_open(path, &err));
    assert_non_null(strstr(err.msg, path));
}

/* --for-annotation output read back with the CSV reader: every column by
 * name, the label empty, the text and numbers intact, stable ids. */
static void test_block_csv_for_annotation_read_back(void **state)
{
    (void)state;
    const char *html = "<html><meta charset=utf-8><body><div class=nav><a href=/>Home</a></div>"
                       "<div><p>Quote \"this\", and that,</p><p>\xE4\xB8\xAD\xE6\x96\x87</p></div>"
                       "<div><img src=x></div></body></html>";
    ps_page_options po = {.url = "http://www.example.com/a/b.html"};
    ps_error err = {0};
    ps_page *pg = ps_page_parse(html, strlen(html), &po, &err);
    assert_non_null(pg);
    char path[512];
    tmpfile_path(path, sizeof path, "annot.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    ps_block_csv_options o = {.extended = 1, .for_annotation = 1, .min_text = 1};
    ps_block_csv *w = ps_block_csv_new(f, &o, &err);
    assert_non_null(w);
    const char *gold = "Quote this and that";
    assert_int_equal(ps_block_csv_page(w, "set,1", "page \"1\"", NULL, pg, gold, strlen(gold), NULL, &err), 0);
    assert_int_equal(ps_block_csv_finish(w, &err), 0);
    fclose(f);

    ps_csv *c = ps_csv_open(path, &err);
    assert_non_null(c);
    const char *cols[] = {"dataset", "page_id", "url", "site", "block_id", "block_path", "tag",
                          "inner_len", "inner_link_len", "inner_link_num", "inner_pic_num",
                          "outer_len", "outer_link_len", "outer_link_num", "outer_pic_num",
                          "R1", "R2", "R3", "R4", "R5", "x_punct", "x_tag_other", "label",
                          "gold_share", "text", "block_tags"};
    int ix[sizeof cols / sizeof *cols];
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        assert_true((ix[i] = ps_csv_require(c, cols[i], &err)) >= 0);
    assert_int_equal(ps_csv_columns(c), 20 + ps_feature_count() - 5 + 4);
    assert_string_equal(ps_csv_column_name(c, ps_csv_columns(c) - 1), "block_tags");
    /* two rows: the img-only div has no text and is skipped */
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_string_equal(ps_csv_field(c, (size_t)ix[0]), "set,1");
    assert_string_equal(ps_csv_field(c, (size_t)ix[1]), "page \"1\"");
    assert_string_equal(ps_csv_field(c, (size_t)ix[3]), "www.example.com");
    assert_string_equal(ps_csv_field(c, (size_t)ix[5]), "html/body/div[1]");
    char id[18];
    ps_block_id("page \"1\"", "html/body/div[1]", id);
    assert_string_equal(ps_csv_field(c, (size_t)ix[4]), id);
    assert_string_equal(ps_csv_field(c, (size_t)ix[22]), "");
    assert_string_equal(ps_csv_field(c, (size_t)ix[23]), "0.0000");
    assert_string_equal(ps_csv_field(c, (size_t)ix[24]), "Home");
    assert_string_equal(ps_csv_field(c, (size_t)ix[25]), "body,section,div"); /* the default */
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_string_equal(ps_csv_field(c, (size_t)ix[24]), "Quote \"this\", and that, \xE4\xB8\xAD\xE6\x96\x87");
    assert_string_equal(ps_csv_field(c, (size_t)ix[22]), "");
    double v;
    assert_int_equal(ps_csv_number(c, (size_t)ix[7], &v, &err), 0);
    assert_true(v == 25); /* 23 + 2 characters */
    assert_int_equal(ps_csv_number(c, (size_t)ix[15], &v, &err), 0);
    assert_true(fabs(v - 25.0 / 30) < 1e-6); /* R1: page total 29 with "Home" */
    assert_int_equal(ps_csv_number(c, (size_t)ix[23], &v, &err), 0);
    assert_true(fabs(v - 16.0 / 18) < 1e-4); /* 16 of 18 token chars: not 中文 */
    assert_int_equal(ps_csv_next(c, &err), 0);
    ps_csv_close(c);
    unlink(path);

    /* ids depend on the path, not on the block tags or traversal order */
    ps_page_options po2 = po;
    static const char *const tags[] = {"body", "div", "p", NULL};
    po2.block_tags = tags;
    ps_page *pg2 = ps_page_parse(html, strlen(html), &po2, &err);
    size_t nb2;
    const ps_block *b2 = ps_page_blocks(pg2, &nb2);
    assert_true(nb2 > 4);
    char id2[18];
    ps_block_id("page \"1\"", b2[1].path, id2);
    assert_string_equal(b2[1].path, "html/body/div[1]");
    assert_string_equal(id2, id);

    /* the block_tags column records the tags the page was cut with (a
     * repeat once); a page cut with others than the CSV records is refused */
    static const char *const tags_rep[] = {"body", "div", "p", "p", NULL};
    char *mem = NULL;
    size_t memlen = 0;
    FILE *ms = open_memstream(&mem, &memlen);
    ps_block_csv_options o2 = {.min_text = 1, .block_tags = tags_rep};
    ps_block_csv *w2 = ps_block_csv_new(ms, &o2, &err);
    assert_non_null(w2);
    assert_int_equal(ps_block_csv_page(w2, "", "p", "", pg2, NULL, 0, NULL, &err), 0);
    ps_error e2 = {0};
    assert_int_equal(ps_block_csv_page(w2, "", "q", "", pg, NULL, 0, NULL, &e2), -1);
    assert_int_equal(e2.code, PS_ERR_USAGE);
    assert_non_null(strstr(e2.msg, "other block tags"));
    assert_int_equal(ps_block_csv_finish(w2, &err), 0);
    fclose(ms);
    assert_non_null(strstr(mem, ",text,block_tags\r\n"));
    assert_non_null(strstr(mem, ",\"body,div,p\"\r\n"));
    assert_null(strstr(mem, "section"));
    free(mem);
    ps_page_free(pg2);
    ps_page_free(pg);
}

/* Labels on the sample: a labelled CSV, with the figures the tool prints. */
static void test_block_csv_labels(void **state)
{
    (void)state;
    const char *html = "<body><div class=nav><a href=/>Home</a> <a href=/>World news</a></div>"
                       "<div><p>The quick brown fox jumps over the lazy dog.</p></div></body>";
    ps_page *pg = parse_str(html);
    char path[512];
    tmpfile_path(path, sizeof path, "labels.csv");
    FILE *f = fopen(path, "wb");
    ps_error err = {0};
    ps_block_csv_options o = {.min_text = 1};
    ps_block_csv *w = ps_block_csv_new(f, &o, &err);
    ps_label_stats st = {0};
    const char *gold = "The quick brown fox jumps over the lazy dog.";
    assert_int_equal(ps_block_csv_page(w, "d", "p", "", pg, gold, strlen(gold), &st, &err), 0);
    assert_int_equal(ps_block_csv_finish(w, &err), 0);
    fclose(f);
    assert_int_equal(st.blocks[0], 1);
    assert_int_equal(st.blocks[1], 1);
    assert_int_equal(st.gold_chars, 35);
    assert_int_equal(st.gold_in_content, 35);
    assert_int_equal(st.other_chars, 13);
    assert_int_equal(st.other_in_noise, 13);
    ps_csv *c = ps_csv_open(path, &err);
    int lab = ps_csv_require(c, "label", &err);
    assert_int_equal(ps_csv_column(c, "x_punct"), -1); /* not extended */
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_string_equal(ps_csv_field(c, (size_t)lab), "0");
    assert_int_equal(ps_csv_next(c, &err), 1);
    assert_string_equal(ps_csv_field(c, (size_t)lab), "1");
    ps_csv_close(c);
    unlink(path);
    ps_page_free(pg);
}

/* The text column is cut on a character boundary (CJK: 3 bytes each). */
static void test_block_csv_preview_cut(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><meta charset=utf-8><body><div><p>ab</p><p>"
                            "\xE4\xB8\xAD\xE6\x96\x87\xE5\x86\x85\xE5\xAE\xB9</p></div></body></html>");
    char path[512];
    tmpfile_path(path, sizeof path, "cut.csv");
    ps_error err = {0};
    const char *want[] = {"ab \xE4\xB8\xAD", "ab", "ab \xE4\xB8\xAD\xE6\x96\x87\xE5\x86\x85\xE5\xAE\xB9"};
    size_t cut[] = {4, 3, 200};
    for (int t = 0; t < 3; t++) {
        FILE *f = fopen(path, "wb");
        ps_block_csv_options o = {.min_text = 1, .preview_chars = cut[t]};
        ps_block_csv *w = ps_block_csv_new(f, &o, &err);
        assert_int_equal(ps_block_csv_page(w, "", "p", "", pg, NULL, 0, NULL, &err), 0);
        assert_int_equal(ps_block_csv_finish(w, &err), 0);
        fclose(f);
        ps_csv *c = ps_csv_open(path, &err);
        int tx = ps_csv_require(c, "text", &err), lab = ps_csv_require(c, "label", &err);
        assert_int_equal(ps_csv_next(c, &err), 1);
        assert_string_equal(ps_csv_field(c, (size_t)tx), want[t]);
        assert_string_equal(ps_csv_field(c, (size_t)lab), ""); /* no gold */
        ps_csv_close(c);
    }
    unlink(path);
    ps_page_free(pg);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_worked_example),
        cmocka_unit_test(test_nested_blocks_excluded),
        cmocka_unit_test(test_feature_names),
        cmocka_unit_test(test_extended_features),
        cmocka_unit_test(test_context_features),
        cmocka_unit_test(test_rows_on_demand),
        cmocka_unit_test(test_title_words),
        cmocka_unit_test(test_text_stats_cjk),
        cmocka_unit_test(test_gold_alignment),
        cmocka_unit_test(test_lcs_large),
        cmocka_unit_test(test_csv_quoting_round_trip),
        cmocka_unit_test(test_csv_errors_name_file_and_line),
        cmocka_unit_test(test_csv_count_clamped),
        cmocka_unit_test(test_block_csv_for_annotation_read_back),
        cmocka_unit_test(test_block_csv_labels),
        cmocka_unit_test(test_block_csv_preview_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
