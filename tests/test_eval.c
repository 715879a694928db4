/* tests/test_eval.c — the metrics against hand-computed cases: tokens (the
 * benchmark's \w+, CJK one token per character), 4-gram shingles as
 * multisets (repeats, short texts, empty sides, both empty-page rules),
 * character LCS (small cases, random cases against the textbook DP, the
 * anchored approximation, a 100 kB pair), page-level grades, averaging. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "eval/train_protocol.h"
#include "pagesift/eval.h"
#include "tests/test_util.h"
#include "pagesift/page.h"

static size_t ntok(const char *s)
{
    ps_token *t;
    size_t n = ps_tokenize(s, strlen(s), &t);
    free(t);
    return n;
}

static ps_match sh(const char *out, const char *gold, unsigned n)
{
    ps_match m;
    assert_int_equal(ps_shingle_match(out, strlen(out), gold, strlen(gold), n, PS_TOKENS_WORD, &m), 0);
    return m;
}

#define assert_match(m, a, b, c)                                                                  \
    do {                                                                                          \
        assert_int_equal((m).tp, (a));                                                            \
        assert_int_equal((m).fp, (b));                                                            \
        assert_int_equal((m).fn, (c));                                                            \
    } while (0)

static void test_tokens_like_python(void **state)
{
    (void)state;
    /* re.findall(r'\w+', ...) gives cafe, s, Hello, world, x_y, 3, 14, ² :
     * a combining accent is not \w in Python, so it splits the word */
    const char *s = "cafe\xCC\x81s Hello, world! x_y 3.14 \xC2\xB2";
    ps_token *t;
    size_t n = ps_tokenize(s, strlen(s), &t);
    assert_int_equal(n, 8);
    assert_int_equal(t[0].len, 4);
    assert_memory_equal(s + t[4].off, "x_y", 3);
    free(t);
    assert_int_equal(ntok(""), 0);
    assert_int_equal(ntok(" ,.;!\n"), 0);
}

static void test_tokens_cjk_per_character(void **state)
{
    (void)state;
    /* 我们在北京。今天很好 : nine ideographs, nine tokens (the benchmark's
     * \w+ would make two); kana too; latin inside stays a word */
    assert_int_equal(ntok("\xE6\x88\x91\xE4\xBB\xAC\xE5\x9C\xA8\xE5\x8C\x97\xE4\xBA\xAC\xE3\x80\x82"
                          "\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xBE\x88\xE5\xA5\xBD"),
                     9);
    /* 東京abcカナ : 東, 京, abc, カ, ナ */
    assert_int_equal(ntok("\xE6\x9D\xB1\xE4\xBA\xAC" "abc" "\xE3\x82\xAB\xE3\x83\x8A"), 5);
    /* a Chinese line of a gold file: one token per character, not per line */
    ps_match m = sh("\xE6\x88\x91\xE4\xBB\xAC\xE5\x9C\xA8\xE5\x8C\x97\xE4\xBA\xAC",
                    "\xE6\x88\x91\xE4\xBB\xAC\xE5\x9C\xA8\xE5\x8C\x97", 1);
    assert_match(m, 4, 1, 0);
}

static void test_tokens_icu(void **state)
{
    (void)state;
    /* ICU's dictionary segments 我们在北京 into words (我们 / 在 / 北京),
     * punctuation is no token */
    const char *s = "\xE6\x88\x91\xE4\xBB\xAC\xE5\x9C\xA8\xE5\x8C\x97\xE4\xBA\xAC\xE3\x80\x82 Hello, world";
    ps_token *t;
    size_t n = ps_tokenize_icu(s, strlen(s), &t);
    assert_int_equal(n, 5);
    assert_int_equal(t[0].len, 6); /* 我们 */
    assert_memory_equal(s + t[4].off, "world", 5);
    free(t);
    n = ps_tokenize_icu("", 0, &t);
    assert_int_equal(n, 0);
    free(t);
}

static void test_shingles_multiset(void **state)
{
    (void)state;
    /* gold a b c d a b c d : shingles abcd, bcda, cdab, dabc, abcd (abcd twice) */
    assert_match(sh("a b c d", "a b c d a b c d", 4), 1, 0, 4);
    assert_match(sh("a b c d a b c d", "a b c d a b c d", 4), 5, 0, 0);
    /* 12 tokens: abcd x3, bcda x2, cdab x2, dabc x2 against the gold's abcd
     * x2, bcda, cdab, dabc: shared min(3,2) + 1 + 1 + 1 = 5, extra 4 */
    assert_match(sh("a b c d. a b c d; a b c d", "a b c d a b c d", 4), 5, 4, 0);
    /* single tokens with repeats: min(3,1) + min(1,2) = 2 shared */
    assert_match(sh("a a a b", "a b b", 1), 2, 2, 1);
    /* case matters, punctuation does not */
    assert_match(sh("The cat, sat on", "the cat sat on", 4), 0, 1, 1);
    assert_match(sh("The cat, sat on!", "The cat sat on", 4), 1, 0, 0);
}

static void test_shingles_short_texts(void **state)
{
    (void)state;
    /* fewer than 4 tokens: one shingle of all of them */
    assert_match(sh("a b", "a b", 4), 1, 0, 0);
    assert_match(sh("a b", "a b c", 4), 0, 1, 1);
    /* 5 tokens: two shingles */
    assert_match(sh("a b c d e", "b c d e", 4), 1, 1, 0);
}

static void test_empty_rules(void **state)
{
    (void)state;
    double p, r;
    int pc, rc;
    ps_match m = sh("", "one two three four", 4);
    assert_match(m, 0, 0, 1);
    ps_match_pr(&m, PS_EMPTY_STRICT, &p, &pc, &r, &rc);
    assert_true(p == 0.0 && r == 0.0 && pc && rc);
    /* evaluate.py leaves pages without output shingles out of precision */
    ps_match_pr(&m, PS_EMPTY_BENCHMARK, &p, &pc, &r, &rc);
    assert_true(r == 0.0 && !pc && rc);
    m = sh("", "", 4);
    assert_match(m, 0, 0, 0);
    ps_match_pr(&m, PS_EMPTY_STRICT, &p, &pc, &r, &rc);
    assert_true(p == 1.0 && r == 1.0 && pc && rc);
    ps_match_pr(&m, PS_EMPTY_BENCHMARK, &p, &pc, &r, &rc);
    assert_true(!pc && !rc);
    m = sh("some output here now", "...", 4);
    ps_match_pr(&m, PS_EMPTY_STRICT, &p, &pc, &r, &rc);
    assert_true(p == 0.0 && r == 0.0);
    ps_match_pr(&m, PS_EMPTY_BENCHMARK, &p, &pc, &r, &rc);
    assert_true(p == 0.0 && pc && !rc);
}

static uint64_t lcs(const char *a, const char *b, uint64_t budget, int *exact)
{
    ps_lcs_result r;
    assert_int_equal(ps_char_lcs(a, strlen(a), b, strlen(b), budget, &r), 0);
    if (exact)
        *exact = r.exact;
    return r.common;
}

static void test_lcs_small(void **state)
{
    (void)state;
    assert_int_equal(lcs("ABCBDAB", "BDCABA", 0, NULL), 4);
    assert_int_equal(lcs("", "abc", 0, NULL), 0);
    assert_int_equal(lcs("", "", 0, NULL), 0);
    /* white space is layout: "a b c" and "abc" have 3 characters in common */
    ps_lcs_result r;
    assert_int_equal(ps_char_lcs("a b\nc", 5, "abc", 3, 0, &r), 0);
    assert_int_equal(r.common, 3);
    assert_int_equal(r.output_chars, 3);
    assert_int_equal(r.gold_chars, 3);
    assert_int_equal(r.exact, 1);
    /* code points, not bytes: 中国人民 vs 中人民国 share 中人民 */
    assert_int_equal(lcs("\xE4\xB8\xAD\xE5\x9B\xBD\xE4\xBA\xBA\xE6\xB0\x91",
                         "\xE4\xB8\xAD\xE4\xBA\xBA\xE6\xB0\x91\xE5\x9B\xBD", 0, NULL),
                     3);
}

static size_t dp_lcs(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    size_t *row = calloc(nb + 1, sizeof *row);
    for (size_t i = 1; i <= na; i++) {
        size_t diag = 0;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            row[j] = a[i - 1] == b[j - 1] ? diag + 1 : (row[j] > row[j - 1] ? row[j] : row[j - 1]);
            diag = up;
        }
    }
    size_t r = row[nb];
    free(row);
    return r;
}

static void test_lcs_random_against_dp(void **state)
{
    (void)state;
    srand(7);
    char a[400], b[400];
    for (int trial = 0; trial < 40; trial++) {
        size_t na = (size_t)(rand() % 399), nb = (size_t)(rand() % 399);
        int sigma = 2 + trial % 6;
        for (size_t i = 0; i < na; i++)
            a[i] = (char)('a' + rand() % sigma);
        for (size_t i = 0; i < nb; i++)
            b[i] = (char)('a' + rand() % sigma);
        a[na] = b[nb] = 0;
        int ex;
        assert_int_equal(lcs(a, b, 0, &ex), dp_lcs(a, b));
        assert_int_equal(ex, 1);
    }
}

static void test_lcs_anchored(void **state)
{
    (void)state;
    /* gold: unique words; output: the same with words dropped and noise
     * words inserted.  With a budget of 1 the anchored path is taken; here
     * the anchors are right, so the bound is the exact value */
    const char *gold = "alpha bravo charlie delta echo foxtrot golf hotel india juliet";
    const char *out = "zzz alpha charlie qqq delta echo golf hotel xx india juliet";
    int ex;
    uint64_t exact = lcs(out, gold, 0, &ex);
    assert_int_equal(ex, 1);
    uint64_t approx = lcs(out, gold, 1, &ex);
    assert_int_equal(ex, 0);
    assert_true(approx <= exact);
    assert_int_equal(exact, strlen("alphacharliedeltaechogolfhotelindiajuliet"));
    assert_int_equal(approx, exact);
}

/* Builds a ~100 kB gold of lowercase words and an output that drops every
 * 7th word and inserts digit words (characters the gold has none of), so the
 * LCS is exactly the characters of the kept words. */
static void test_lcs_100k(void **state)
{
    (void)state;
    size_t cap = 120000;
    char *gold = malloc(cap), *out = malloc(cap * 2);
    size_t gl = 0, ol = 0, kept = 0;
    srand(11);
    for (int w = 0; gl < 100000; w++) {
        char word[16];
        int len = 2 + rand() % 8;
        for (int i = 0; i < len; i++)
            word[i] = (char)('a' + rand() % 26);
        memcpy(gold + gl, word, (size_t)len);
        gl += (size_t)len;
        gold[gl++] = ' ';
        if (w % 7 != 3) {
            memcpy(out + ol, word, (size_t)len);
            ol += (size_t)len;
            out[ol++] = ' ';
            kept += (size_t)len;
        }
        if (w % 11 == 5)
            ol += (size_t)sprintf(out + ol, "%d ", w);
    }
    gold[gl] = out[ol] = 0;
    ps_lcs_result r;
    assert_int_equal(ps_char_lcs(out, ol, gold, gl, 0, &r), 0);
    assert_int_equal(r.common, kept);
    assert_int_equal(r.exact, 1);
    /* the anchored approximation on the same pair: a lower bound, and close */
    assert_int_equal(ps_char_lcs(out, ol, gold, gl, 1000000, &r), 0);
    assert_int_equal(r.exact, 0);
    assert_true(r.common <= kept);
    assert_true((double)r.common >= 0.99 * (double)kept);
    free(gold);
    free(out);
}

/* gold: w0 .. w99; output: the gold minus @p drop words plus @p noise ones */
static ps_page_grade grade(int drop, int noise)
{
    char gold[2000], out[2400];
    size_t gl = 0, ol = 0;
    for (int i = 0; i < 100; i++) {
        gl += (size_t)sprintf(gold + gl, "w%d ", i);
        if (i >= drop)
            ol += (size_t)sprintf(out + ol, "w%d ", i);
    }
    for (int i = 0; i < noise; i++)
        ol += (size_t)sprintf(out + ol, "noise%d ", i);
    ps_page_score s;
    assert_int_equal(ps_score_page(out, ol, gold, gl, 0, &s), 0);
    return s.grade;
}

static void test_page_level(void **state)
{
    (void)state;
    ps_page_grade g = grade(0, 5); /* noise 5/105 = 4.8 % */
    assert_true(g.qualified && !g.excellent);
    g = grade(0, 2); /* 2/102 = 1.96 % */
    assert_true(g.qualified && g.excellent);
    g = grade(0, 6); /* 6/106 = 5.7 % */
    assert_false(g.qualified);
    g = grade(2, 0); /* recall 0.98 */
    assert_true(g.qualified && g.excellent);
    assert_true(g.recall > 0.979 && g.recall < 0.981);
    g = grade(3, 0); /* recall 0.97 */
    assert_false(g.qualified);
    g = grade(100, 0); /* empty output */
    assert_false(g.qualified);
    assert_true(g.noise == 0.0);
}

static void test_accumulator(void **state)
{
    (void)state;
    ps_eval_acc *a = ps_eval_acc_new();
    ps_page_score s;
    /* page 1: perfect; page 2: empty output; page 3: half the shingles */
    assert_int_equal(ps_score_page("a b c d e", 9, "a b c d e", 9, 0, &s), 0);
    ps_eval_acc_add(a, &s);
    assert_int_equal(ps_score_page("", 0, "a b c d e", 9, 0, &s), 0);
    assert_int_equal(s.empty_output, 1);
    ps_eval_acc_add(a, &s);
    /* output abcd x y z w: shingles abcd, bcdx, ..: 1 of 5 shared; gold
     * a b c d e has abcd, bcde */
    const char *o3 = "a b c d x y z w";
    assert_int_equal(ps_score_page(o3, strlen(o3), "a b c d e", 9, 0, &s), 0);
    ps_eval_acc_add(a, &s);
    ps_eval_summary sum;
    ps_eval_acc_summary(a, &sum);
    assert_int_equal(sum.pages, 3);
    assert_int_equal(sum.empty_outputs, 1);
    /* strict: P = (1 + 0 + 1/5) / 3, R = (1 + 0 + 1/2) / 3 */
    assert_true(fabs(sum.sh4.p - 1.2 / 3) < 1e-12);
    assert_true(fabs(sum.sh4.r - 1.5 / 3) < 1e-12);
    double f = 2 * (1.2 / 3) * (1.5 / 3) / (1.2 / 3 + 1.5 / 3);
    assert_true(fabs(sum.sh4.f1 - f) < 1e-12);
    /* benchmark rule: the empty output is left out of precision */
    assert_true(fabs(sum.sh4_bench.p - 1.2 / 2) < 1e-12);
    assert_true(fabs(sum.sh4_bench.r - 1.5 / 3) < 1e-12);
    /* pooled: tp 2+0+1, fp 0+0+4, fn 0+2+1 */
    assert_true(fabs(sum.sh4_pooled.p - 3.0 / 7) < 1e-12);
    assert_true(fabs(sum.sh4_pooled.r - 3.0 / 6) < 1e-12);
    ps_eval_acc_free(a);
}

/* The WCXB rule: lower-cased \\w+ words as bags, P, R and F1 of each page
 * averaged over pages (F1 the mean of the pages' F1), empty output 0. */
static void test_words_rule(void **state)
{
    (void)state;
    ps_eval_acc *a = ps_eval_acc_new();
    ps_page_score s;
    /* case does not matter, order does not matter, counts do */
    const char *o1 = "Sat the CAT, the", *g1 = "the cat sat on the mat";
    assert_int_equal(ps_score_page(o1, strlen(o1), g1, strlen(g1), 0, &s), 0);
    assert_int_equal(s.words.tp, 4);
    assert_int_equal(s.words.fp, 0);
    assert_int_equal(s.words.fn, 2);
    ps_eval_acc_add(a, &s);
    /* \u00c4 lower-cases to \u00e4 as Python's str.lower() does */
    const char *o2 = "\xc3\x84PFEL x", *g2 = "\xc3\xa4pfel";
    assert_int_equal(ps_score_page(o2, strlen(o2), g2, strlen(g2), 0, &s), 0);
    assert_int_equal(s.words.tp, 1);
    assert_int_equal(s.words.fp, 1);
    ps_eval_acc_add(a, &s);
    assert_int_equal(ps_score_page("", 0, g1, strlen(g1), 0, &s), 0);
    ps_eval_acc_add(a, &s);
    ps_eval_summary sum;
    ps_eval_acc_summary(a, &sum);
    /* pages: P 1, 1/2, 0; R 4/6, 1, 0; F1 0.8, 2/3, 0 */
    assert_true(fabs(sum.words.p - 1.5 / 3) < 1e-12);
    assert_true(fabs(sum.words.r - (4.0 / 6 + 1) / 3) < 1e-12);
    assert_true(fabs(sum.words.f1 - (0.8 + 2.0 / 3) / 3) < 1e-12);
    ps_eval_acc_free(a);
}

static void test_leaf_match(void **state)
{
    (void)state;
    /* body (block 0): "Home" link; div 1: two paragraphs; div 2: "| ©" and
     * a related link */
    ps_page *pg = parse_str("<html><body><a href=/>Home</a>"
                            "<div><p>First paragraph of text</p><p>Second one here</p></div>"
                            "<div><span>| \xC2\xA9</span><a href=/r>Related story</a></div></body></html>");
    assert_non_null(pg);
    size_t nl, nb;
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    ps_page_blocks(pg, &nb);
    assert_int_equal(nl, 5);
    assert_int_equal(nb, 3);
    /* gold: the two paragraphs, and the related link counted as gold too */
    double share[5] = {0.0, 1.0, 0.6, 0.0, 0.5};
    uint8_t cls[3] = {0, 1, 0};
    ps_match m;
    assert_int_equal(ps_leaf_match(pg, share, cls, NULL, &m), 0);
    /* the "| ©" leaf has no token and is left out */
    assert_match(m, 2, 0, 1);
    uint8_t all[3] = {1, 1, 1};
    assert_int_equal(ps_leaf_match(pg, share, all, NULL, &m), 0);
    assert_match(m, 3, 1, 0);
    /* a leaf removed by a template is noise even in a content block */
    ps_page_remove_leaf(pg, 2);
    assert_int_equal(ps_leaf_match(pg, share, cls, NULL, &m), 0);
    assert_match(m, 1, 0, 2);
    /* a per-leaf mask wins over the blocks */
    uint8_t kept[5] = {1, 1, 1, 1, 1};
    assert_int_equal(ps_leaf_match(pg, share, cls, kept, &m), 0);
    assert_match(m, 3, 1, 0);
    assert_int_equal(ps_leaf_match(pg, share, NULL, NULL, &m), -1);
    (void)l;
    ps_page_free(pg);
}

static ps_train_overlap overlap(const char *bundle, const char *set)
{
    char path[] = "/tmp/test_eval_model_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(bundle, f);
    fclose(f);
    char note[256];
    ps_train_overlap r = ps_eval_train_overlap(path, set, note, sizeof note);
    remove(path);
    return r;
}

static void test_train_protocol(void **state)
{
    (void)state;
    const char *b1 = "pagesift-model 1\nfeatures R1,R2\ndata_sets dragnet,l3s-gn1\n"
                     "libsvm-model-bytes 3\ndata_sets netease\nend pagesift-model\n";
    assert_int_equal(overlap(b1, "dragnet"), PS_TRAIN_SEEN);
    assert_int_equal(overlap(b1, "l3s-gn1"), PS_TRAIN_SEEN);
    assert_int_equal(overlap(b1, "cleaneval"), PS_TRAIN_UNSEEN);
    /* a prefix of a name is not the name; keys after the header are not read */
    assert_int_equal(overlap(b1, "l3s"), PS_TRAIN_UNSEEN);
    assert_int_equal(overlap(b1, "netease"), PS_TRAIN_UNSEEN);
    const char *b2 = "pagesift-model 1\ndata_files dragnet.csv cleaneval-dev.csv\nlibsvm-model-bytes 0\n";
    assert_int_equal(overlap(b2, "dragnet"), PS_TRAIN_SEEN);
    assert_int_equal(overlap(b2, "netease"), PS_TRAIN_UNKNOWN);
    char note[256];
    assert_int_equal(ps_eval_train_overlap(NULL, "netease", note, sizeof note), PS_TRAIN_SEEN);
    assert_non_null(strstr(note, "TRAINING-SET"));
    assert_int_equal(ps_eval_train_overlap("/nonexistent/model", "x", note, sizeof note), PS_TRAIN_UNKNOWN);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens_like_python),
        cmocka_unit_test(test_tokens_cjk_per_character),
        cmocka_unit_test(test_tokens_icu),
        cmocka_unit_test(test_shingles_multiset),
        cmocka_unit_test(test_shingles_short_texts),
        cmocka_unit_test(test_empty_rules),
        cmocka_unit_test(test_lcs_small),
        cmocka_unit_test(test_lcs_random_against_dp),
        cmocka_unit_test(test_lcs_anchored),
        cmocka_unit_test(test_lcs_100k),
        cmocka_unit_test(test_page_level),
        cmocka_unit_test(test_accumulator),
        cmocka_unit_test(test_words_rule),
        cmocka_unit_test(test_leaf_match),
        cmocka_unit_test(test_train_protocol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
