/* tests/test_page_types.c — the page signals (extract/page_signals.c) on
 * small hand-written pages, and the page-type classifier (train/
 * page_types.c): trained on a generated data set of product and article
 * pages, it tells new ones apart; a damaged bundle is refused; the
 * probabilities reach the block features x_type_*; the shipped model's
 * probabilities are libsvm's own, to the bit (its kernel is computed in
 * train/page_types.c). */
#define _GNU_SOURCE
#include <libsvm/svm.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"

#include "extract/page_signals.h"
#include "pagesift/dataset.h"
#include "pagesift/features.h"
#include "pagesift/page.h"
#include "pagesift/page_types.h"
#include "pagesift/train.h"

static double sig(const ps_page *pg, const char *name)
{
    double s[PS_PAGE_SIGNALS_MAX];
    assert_true(ps_page_signal_count() <= PS_PAGE_SIGNALS_MAX);
    assert_int_equal(ps_page_signals(pg, s), 0);
    int i = ps_page_signal_lookup(name);
    assert_true(i >= 0);
    return s[i];
}

static ps_page *parse_url(const char *html, const char *url)
{
    ps_page_options po = {.url = url};
    ps_error err = {0};
    ps_page *pg = ps_page_parse(html, strlen(html), &po, &err);
    assert_non_null(pg);
    return pg;
}

/* The type @p m gives page @p n made by @p make, at @p url (-1: an error). */
static int type_of(const ps_page_types *m, void (*make)(char *, size_t, int), int n, const char *url)
{
    char html[4096];
    make(html, sizeof html, n);
    ps_page *pg = parse_url(html, url);
    ps_error err = {0};
    int t = ps_page_types_classify(m, pg, NULL, &err);
    ps_page_free(pg);
    return t;
}

/* FNV-1a of prefix + token, then x ^= x >> 15: the bucket rule of the hashed
 * signals (docs/PAGE_TYPES.md), written again here to pin their meaning */
static uint32_t fnv(const char *pre, const char *tok)
{
    uint32_t x = 2166136261u;
    for (const char *c = pre; *c; c++)
        x = (x ^ (unsigned char)*c) * 16777619u;
    for (const char *c = tok; *c; c++)
        x = (x ^ (unsigned char)*c) * 16777619u;
    return x ^ (x >> 15);
}

/* The hashed token signals: names, blocks, the spec, fixed buckets, unit
 * length, and only the blocks asked for computed. */
static void test_signals_hashed(void **state)
{
    (void)state;
    size_t base = ps_page_signal_base_count();
    assert_int_equal(base, 40);
    assert_int_equal(ps_page_signal_count(), base + 512 + 256);
    assert_true(ps_page_signal_count() <= PS_PAGE_SIGNALS_MAX);
    assert_int_equal(ps_page_signal_lookup("p_hc000"), (int)base);
    assert_int_equal(ps_page_signal_lookup("p_hu000"), (int)base + 256);
    assert_int_equal(ps_page_signal_lookup("p_hx095"), (int)base + 511);
    assert_int_equal(ps_page_signal_lookup("p_hc128_000"), (int)base + 512);
    assert_int_equal(ps_page_signal_lookup("p_hx32_031"), (int)base + 767);
    assert_true(ps_page_signal_lookup("p_hc256") < 0 && ps_page_signal_lookup("p_hx32_032") < 0);
    assert_string_equal(ps_page_signal_name(base + 300), "p_hu044");
    assert_null(ps_page_signal_name(ps_page_signal_count()));
    assert_int_equal(ps_page_signal_block(0), -1);
    assert_int_equal(ps_page_signal_block(base - 1), -1);
    assert_int_equal(ps_page_signal_block(base), 0);
    assert_int_equal(ps_page_signal_block(base + 511), 3);
    assert_int_equal(ps_page_signal_block(base + 512), 4);
    assert_int_equal(ps_page_signal_block(base + 767), 7);
    assert_int_equal(ps_page_signal_block(base + 768), -1);
    unsigned bl = 99;
    assert_int_equal(ps_page_hash_blocks("cutx", &bl), 0);
    assert_int_equal(bl, 0x0f);
    assert_int_equal(ps_page_hash_blocks("c128,u64, t32,x32", &bl), 0);
    assert_int_equal(bl, 0xf0);
    assert_int_equal(ps_page_hash_blocks("ux32", &bl), 0);
    assert_int_equal(bl, 0x82);
    assert_int_equal(ps_page_hash_blocks("", &bl), 0);
    assert_int_equal(bl, 0);
    assert_int_equal(ps_page_hash_blocks(NULL, &bl), 0);
    assert_int_equal(bl, 0);
    assert_int_equal(ps_page_hash_blocks("c12", &bl), -1);
    assert_int_equal(ps_page_hash_blocks("cz", &bl), -1);

    ps_page *pg = parse_url("<html><head><script type=\"application/ld+json\">"
                            "{\"@type\": [\"Product\", \"http://schema.org/Thing\"], \"name\": \"Shoe\"}"
                            "</script></head><body><div class=\"product-card x1\" id=\"Main_Box\">"
                            "<p>A red shoe.</p><a rel=\"next\" href=\"/2\">more</a>"
                            "<form role=\"search\"><input type=\"search\" name=\"q\"></form></div>"
                            "</body></html>",
                            "https://docs.shop.example.com/guide/install?lang=en&v=2");
    static double all[PS_PAGE_SIGNALS_MAX], one[PS_PAGE_SIGNALS_MAX];
    assert_int_equal(ps_page_signals(pg, all), 0);
    /* each block: values in [0, 1], unit length */
    for (int b = 0; b < 8; b++) {
        double ss = 0;
        for (size_t i = base; i < ps_page_signal_count(); i++)
            if (ps_page_signal_block(i) == b) {
                assert_true(all[i] >= 0 && all[i] <= 1);
                ss += all[i] * all[i];
            }
        assert_true(fabs(ss - 1) < 1e-9);
    }
    /* the fixed buckets: class and id words (2 letters and up, lower case,
     * split on digits and punctuation), URL words, element names, structure words */
    const struct {
        const char *pre, *tok, *b256, *b128;
        unsigned n256, n128;
    } hits[] = {
        {"", "product", "p_hc", "p_hc128_", 256, 128}, {"", "card", "p_hc", "p_hc128_", 256, 128},
        {"", "main", "p_hc", "p_hc128_", 256, 128},     {"", "box", "p_hc", "p_hc128_", 256, 128},
        {"h:", "docs", "p_hu", "p_hu64_", 96, 64},      {"u:", "install", "p_hu", "p_hu64_", 96, 64},
        {"q:", "lang", "p_hu", "p_hu64_", 96, 64},      {"", "input", "p_ht", "p_ht32_", 64, 32},
        {"j:", "product", "p_hx", "p_hx32_", 96, 32},   {"j:", "thing", "p_hx", "p_hx32_", 96, 32},
        {"r:", "next", "p_hx", "p_hx32_", 96, 32},      {"o:", "search", "p_hx", "p_hx32_", 96, 32},
        {"y:", "search", "p_hx", "p_hx32_", 96, 32},
    };
    for (size_t h = 0; h < sizeof hits / sizeof *hits; h++) {
        uint32_t x = fnv(hits[h].pre, hits[h].tok);
        char nm[32];
        snprintf(nm, sizeof nm, "%s%03u", hits[h].b256, x % hits[h].n256);
        assert_true(all[ps_page_signal_lookup(nm)] > 0);
        snprintf(nm, sizeof nm, "%s%03u", hits[h].b128, x % hits[h].n128);
        assert_true(all[ps_page_signal_lookup(nm)] > 0);
    }
    /* only the blocks asked for are written; the hand-made signals the same */
    for (size_t i = 0; i < PS_PAGE_SIGNALS_MAX; i++)
        one[i] = -7;
    assert_int_equal(ps_page_signals_select(pg, one, 0), 0);
    assert_memory_equal(one, all, base * sizeof *one);
    for (size_t i = base; i < ps_page_signal_count(); i++)
        assert_true(one[i] == -7);
    assert_int_equal(ps_page_hash_blocks("t32,c", &bl), 0);
    assert_int_equal(ps_page_signals_select(pg, one, bl), 0);
    assert_memory_equal(one, all, base * sizeof *one);
    for (size_t i = base; i < ps_page_signal_count(); i++) {
        int b = ps_page_signal_block(i);
        if (b == 0 || b == 6)
            assert_true(one[i] == all[i]);
        else
            assert_true(one[i] == -7);
    }
    ps_page_free(pg);
}

static void test_signals_json_ld_and_url(void **state)
{
    (void)state;
    ps_page *pg = parse_url("<html><head><script type=\"application/ld+json\">"
                            "{\"@type\": \"DiscussionForumPosting\", \"headline\": \"Help\"}</script></head>"
                            "<body><p>My printer does not print.</p></body></html>",
                            "https://example.org/community/thread/12345?page=2");
    assert_true(sig(pg, "p_ld_forum") == 1);
    assert_true(sig(pg, "p_ld_product") == 0);
    assert_true(sig(pg, "p_url_forum") == 1);   /* "community", "thread" */
    assert_true(sig(pg, "p_url_query") == 1);
    assert_true(sig(pg, "p_url_product") == 0);
    assert_true(fabs(sig(pg, "p_url_depth") - log1p(3)) < 1e-9);
    ps_page_free(pg);

    /* whole words of the path only: "/products/" yes, "/productivity-tips/" no */
    pg = parse_url("<html><body><p>x</p></body></html>", "https://shop.example/products/red-shoe");
    assert_true(sig(pg, "p_url_product") == 1);
    ps_page_free(pg);
    pg = parse_url("<html><body><p>x</p></body></html>", "https://blog.example/2024/05/productivity-tips");
    assert_true(sig(pg, "p_url_product") == 0);
    assert_true(sig(pg, "p_url_date") == 1);
    ps_page_free(pg);
}

static void test_signals_elements_and_text(void **state)
{
    (void)state;
    /* a docs page: code blocks; a price and shop classes */
    ps_page *pg = parse_str("<html><body><div class=\"docs-content\"><h2>Install</h2>"
                            "<pre>pip install x</pre><pre>x --help</pre><pre>x run</pre>"
                            "<p>Costs $19.99 or 18,50 \xe2\x82\xac a year; 2024 was cheaper.</p>"
                            "<div class=\"product-price\">USD 5</div></div></body></html>");
    assert_true(fabs(sig(pg, "p_pre") - log1p(3)) < 1e-9);
    assert_true(fabs(sig(pg, "p_h2") - log1p(1)) < 1e-9);
    assert_true(fabs(sig(pg, "p_prices") - log1p(3)) < 1e-9); /* $19.99, 18,50 €, USD 5; not 2024 */
    assert_true(fabs(sig(pg, "p_cls_docs") - log1p(1)) < 1e-9);
    assert_true(fabs(sig(pg, "p_cls_product") - log1p(1)) < 1e-9);
    ps_page_free(pg);
}

static void test_signals_repeated_group(void **state)
{
    (void)state;
    /* ten cards of one shape (digits in the class do not count) hold
     * nearly all the text: a listing's shape */
    char html[8192] = "<html><body><div class=\"grid\">";
    for (int i = 0; i < 10; i++) {
        char card[256];
        snprintf(card, sizeof card,
                 "<div class=\"card card-%d\"><h3>Item number %d</h3><p>A short teaser of item %d.</p></div>", i, i,
                 i);
        strcat(html, card);
    }
    strcat(html, "</div><p>Footer.</p></body></html>");
    ps_page *pg = parse_str(html);
    assert_true(sig(pg, "p_rep_share") > 0.9);
    assert_true(fabs(sig(pg, "p_rep_items") - log1p(10)) < 1e-9);
    assert_true(sig(pg, "p_main") < 0.2); /* no single block holds the page */
    ps_page_free(pg);

    /* an article: one body holds it */
    pg = parse_str("<html><body><article><p>One long paragraph of an article body, with many words in it, "
                   "telling a story from its beginning to its end, as articles do.</p></article>"
                   "<p>Footer.</p></body></html>");
    assert_true(sig(pg, "p_rep_share") == 0);
    assert_true(sig(pg, "p_main") > 0.8);
    ps_page_free(pg);
}

/* ---- a classifier trained on generated pages ------------------------------ */

static void product_page(char *buf, size_t cap, int i)
{
    snprintf(buf, cap,
             "<html><head><title>Gadget %d</title><script type=\"application/ld+json\">"
             "{\"@type\": \"Product\", \"name\": \"Gadget %d\", \"offers\": {\"@type\": \"Offer\"}}</script>"
             "</head><body><nav><a href=\"/\">Home</a> <a href=\"/shop\">Shop</a></nav>"
             "<div class=\"product-detail\"><h1>Gadget %d</h1><span class=\"price\">$%d.99</span>"
             "<form><button class=\"add-to-cart\">Add to cart</button><input name=\"qty\"></form>"
             "<ul><li>Colour: red</li><li>Weight: %d g</li><li>Size: M</li></ul></div></body></html>",
             i, i, i, 10 + i, 100 + i);
}

static void article_page(char *buf, size_t cap, int i)
{
    snprintf(buf, cap,
             "<html><head><title>Story %d</title><script type=\"application/ld+json\">"
             "{\"@type\": \"NewsArticle\", \"headline\": \"Story %d\"}</script></head>"
             "<body><nav><a href=\"/\">Home</a></nav><article><h1>Story %d</h1><time>2024-05-0%d</time>"
             "<p>The council met on Tuesday to discuss the new plans for the river bank, which residents have "
             "asked about for years. Many spoke, and most agreed that something had to change soon.</p>"
             "<p>A decision is expected next month, after a second round of talks with the %d groups that "
             "asked to be heard, the chair said.</p></article></body></html>",
             i, i, i, 1 + i % 9, i);
}

/* A data set of n product and n article pages, one site each, in @p dir. */
static void make_dataset(const char *dir, int n)
{
    char path[512], html[4096];
    snprintf(path, sizeof path, "%s/html", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/gold", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/index.tsv", dir);
    FILE *idx = fopen(path, "w");
    assert_non_null(idx);
    fprintf(idx, "id\turl\tsite\tlang\tpage_type\n");
    for (int i = 0; i < 2 * n; i++) {
        int product = i % 2 == 0;
        char id[32];
        snprintf(id, sizeof id, "p%03d", i);
        if (product)
            product_page(html, sizeof html, i);
        else
            article_page(html, sizeof html, i);
        fprintf(idx, "%s\thttps://site%d.example/%s/%d\tsite%d.example\ten\t%s\n", id, i,
                product ? "products" : "news/2024", i, i, product ? "product" : "article");
        snprintf(path, sizeof path, "%s/html/%s.html", dir, id);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(html, f);
        fclose(f);
        snprintf(path, sizeof path, "%s/gold/%s.txt", dir, id);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("gold\n", f);
        fclose(f);
    }
    fclose(idx);
}

/* A classifier trained by @p opt on a data set of 15 articles and 15
 * products made in a new directory (@p dir: a mkdtemp template, which the
 * caller removes), into @p b; the two kinds are far apart, so its
 * cross-validated accuracy is at least 0.9. */
static void train_on_sample(char *dir, const ps_page_types_train_options *opt, ps_buf *b, ps_page_types_cv *cv)
{
    assert_non_null(mkdtemp(dir));
    make_dataset(dir, 15);
    const char *dirs[] = {dir};
    ps_error err = {0};
    assert_int_equal(ps_page_types_train(dirs, 1, opt, b, cv, &err), 0);
    assert_int_equal(cv->pages, 30);
    assert_true(cv->accuracy >= 0.9);
}

static void test_train_classify_refuse(void **state)
{
    (void)state;
    char dir[] = "/tmp/pagesift-test-page-types-XXXXXX";
    ps_page_types_train_options opt = {.folds = 3, .seed = 1};
    ps_buf b = {0};
    ps_page_types_cv cv = {0};
    ps_error err = {0};
    train_on_sample(dir, &opt, &b, &cv);

    ps_page_types *m = ps_page_types_parse(b.data, b.len, "test bundle", &err);
    assert_non_null(m);
    assert_int_equal(ps_page_types_count(m), 2);
    assert_string_equal(ps_page_types_label(m, 0), "article");
    assert_string_equal(ps_page_types_label(m, 1), "product");
    char v[64];
    assert_non_null(ps_page_types_info(m, "cv_group_by", v, sizeof v));
    assert_string_equal(v, "site");

    /* new pages, of sites it never saw */
    char html[4096];
    double prob[2];
    product_page(html, sizeof html, 77);
    ps_page *pg = parse_url(html, "https://elsewhere.example/products/77");
    assert_int_equal(ps_page_types_classify(m, pg, prob, &err), 1);
    assert_true(prob[1] > 0.5 && fabs(prob[0] + prob[1] - 1) < 1e-6);
    /* attached, the probabilities are the x_type_* block features */
    assert_int_equal(ps_page_types_attach(m, pg, NULL, &err), 1);
    int ids[2] = {ps_feature_lookup("x_type_product"), ps_feature_lookup("x_type_article")};
    assert_true(ids[0] >= 0 && ids[1] >= 0);
    size_t nb;
    ps_page_blocks(pg, &nb);
    double *f = calloc(nb * 2, sizeof *f);
    assert_int_equal(ps_page_block_features(pg, ids, 2, f), 0);
    for (size_t i = 0; i < nb; i++) {
        assert_true(fabs(f[i * 2] - prob[1]) < 1e-6);
        assert_true(fabs(f[i * 2 + 1] - prob[0]) < 1e-6);
    }
    free(f);
    ps_page_free(pg);
    assert_int_equal(type_of(m, article_page, 78, "https://elsewhere.example/news/2024/78"), 0);
    ps_page_types_free(m);

    /* a changed digit is refused by the checksum; a cut bundle by its structure */
    char *bad = malloc(b.len);
    memcpy(bad, b.data, b.len);
    char *g = strstr(bad, "\ngamma ");
    assert_non_null(g);
    g[7] = g[7] == '1' ? '2' : '1';
    assert_null(ps_page_types_parse(bad, b.len, "bad", &err));
    assert_non_null(strstr(err.msg, "checksum"));
    assert_null(ps_page_types_parse(b.data, b.len / 2, "cut", &err));
    assert_non_null(strstr(err.msg, "truncated"));
    /* a block model bundle is not a page-type bundle */
    assert_null(ps_page_types_parse("pagesift-model 2\n", 17, "block", &err));
    assert_non_null(strstr(err.msg, "not a page-type bundle"));
    free(bad);
    ps_buf_free(&b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The value of bundle header line @p key (a copy), or NULL. */
static char *bundle_value(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
            return strndup(p + kl + 1, strcspn(p + kl + 1, "\n"));
    return NULL;
}

/* The shipped page-type model on the test pages and generated ones: the
 * probabilities ps_page_types_classify gives (the kernel values computed
 * in train/page_types.c, the rest by libsvm) are the bits of libsvm's own
 * svm_predict_probability on the embedded model with its sparse kernel. */
static void test_shipped_model_is_libsvm(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/models/page-types.model", PS_SOURCE_DIR);
    ps_error err = {0};
    ps_page_types *m = ps_page_types_load(path, &err);
    if (!m)
        fail_msg("%s", err.msg);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(len > 0 && len < sizeof text - 1);
    text[len] = 0;
    /* libsvm's model from the bundle's embedded text */
    char *nb = bundle_value(text, "libsvm-model-bytes");
    assert_non_null(nb);
    const char *body = strstr(text, "\nlibsvm-model-bytes ");
    body = strchr(body + 1, '\n') + 1;
    char tmp[] = "/tmp/pagesift-test-libsvm-XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    size_t n = strtoul(nb, NULL, 10);
    assert_int_equal(write(fd, body, n), (ssize_t)n);
    close(fd);
    struct svm_model *sm = svm_load_model(tmp);
    unlink(tmp);
    assert_non_null(sm);
    int k = svm_get_nr_class(sm), lab[64];
    assert_true(k == (int)ps_page_types_count(m) && k <= 64);
    svm_get_labels(sm, lab);
    /* the scaling of train/page_types.c */
    char *sig_list = bundle_value(text, "signals"), *smin = bundle_value(text, "scale_min"),
         *smax = bundle_value(text, "scale_max");
    assert_true(sig_list && smin && smax);
    int ids[64];
    double shift[64], factor[64];
    size_t ns = 0;
    char *sp = smin, *xp = smax;
    for (char *tok = strtok(sig_list, ","); tok; tok = strtok(NULL, ","), ns++) {
        assert_true(ns < 64);
        assert_true((ids[ns] = ps_page_signal_lookup(tok)) >= 0);
        shift[ns] = strtod(sp, &sp);
        double mx = strtod(xp, &xp);
        factor[ns] = mx > shift[ns] ? 1.0 / (mx - shift[ns]) : 0.0;
    }
    const char *files[] = {"article", "forum", "listing", "product"};
    size_t checked = 0;
    for (int i = 0; i < 4 + 2 * 12; i++) {
        ps_page *pg;
        if (i < 4) {
            snprintf(path, sizeof path, "%s/page_types/%s.html", PS_TEST_DATA, files[i]);
            pg = ps_page_load_file(path, NULL, &err);
        } else {
            static char html[4096];
            if (i % 2)
                product_page(html, sizeof html, i);
            else
                article_page(html, sizeof html, i);
            pg = parse_url(html, i % 2 ? "https://shop.example/p/1" : "https://news.example/2024/05/story");
        }
        assert_non_null(pg);
        double s[PS_PAGE_SIGNALS_MAX], p[64], q[64];
        struct svm_node nodes[65];
        assert_true(ps_page_signal_count() <= PS_PAGE_SIGNALS_MAX);
        assert_int_equal(ps_page_signals(pg, s), 0);
        for (size_t j = 0; j < ns; j++)
            nodes[j] = (struct svm_node){.index = (int)j + 1, .value = (s[ids[j]] - shift[j]) * factor[j]};
        nodes[ns].index = -1;
        svm_predict_probability(sm, nodes, q);
        assert_true(ps_page_types_classify(m, pg, p, &err) >= 0);
        for (int c = 0; c < k; c++)
            assert_memory_equal(&p[lab[c]], &q[c], sizeof(double));
        checked++;
        ps_page_free(pg);
    }
    assert_int_equal(checked, 28);
    free(nb);
    free(sig_list);
    free(smin);
    free(smax);
    svm_free_and_destroy_model(&sm);
    ps_page_types_free(m);
}

/* Trained with hashed blocks: the bundle names them (and no other block),
 * its scale for them is [0, 1], it classifies; an unknown block is refused. */
static void test_train_hashed(void **state)
{
    (void)state;
    char dir[] = "/tmp/pagesift-test-page-types-XXXXXX";
    ps_page_types_train_options opt = {.folds = 3, .seed = 1, .hash = "u,t32",
                                       .grid_given = 1, .c_lo = 1, .c_hi = 3, .c_step = 2,
                                       .g_lo = -3, .g_hi = -3, .g_step = 2};
    ps_buf b = {0};
    ps_page_types_cv cv = {0};
    ps_error err = {0};
    train_on_sample(dir, &opt, &b, &cv);
    assert_true(cv.log2_gamma == -3 && (cv.log2_c == 1 || cv.log2_c == 3));
    char *text = strndup(b.data, b.len);
    char *sl = bundle_value(text, "signals");
    assert_non_null(sl);
    assert_non_null(strstr(sl, "p_rep_groups,p_hu000,"));
    assert_non_null(strstr(sl, ",p_hu095,p_ht32_000,"));
    assert_true(strlen(strstr(sl, "p_ht32_031")) == strlen("p_ht32_031"));
    assert_null(strstr(sl, "p_hc"));
    assert_null(strstr(sl, "p_ht0"));
    char *mx = bundle_value(text, "scale_max");
    assert_non_null(mx);
    assert_non_null(strstr(mx, " 1 1 1 1"));
    ps_page_types *m = ps_page_types_parse(b.data, b.len, "hashed bundle", &err);
    if (!m)
        fail_msg("%s", err.msg);
    assert_int_equal(type_of(m, product_page, 77, "https://elsewhere.example/products/77"), 1);
    assert_int_equal(type_of(m, article_page, 78, "https://elsewhere.example/news/2024/78"), 0);
    ps_page_types_free(m);
    free(sl);
    free(mx);
    free(text);
    opt.hash = "cq";
    const char *dirs[] = {dir};
    assert_int_equal(ps_page_types_train(dirs, 1, &opt, &b, &cv, &err), -1);
    assert_non_null(strstr(err.msg, "'cq'"));
    ps_buf_free(&b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Two fold filters (pages, pages2: pagesift-train --not-fold twice, the
 * inner classifiers of a nested CV) train on the pages both select: with
 * --not-fold 1/3 and --not-fold 2/3, the pages of site fold 3 alone. */
static void test_train_two_folds(void **state)
{
    (void)state;
    char dir[] = "/tmp/pagesift-test-page-types-XXXXXX";
    assert_non_null(mkdtemp(dir));
    make_dataset(dir, 15);
    /* the pages of fold 3 of 3, by the documented hash of their sites */
    size_t in3 = 0, in1 = 0;
    for (int i = 0; i < 30; i++) {
        char site[32], id[32];
        snprintf(site, sizeof site, "site%d.example", i);
        snprintf(id, sizeof id, "p%03d", i);
        ps_dataset_page dp = {.id = id, .site = site};
        in3 += ps_dataset_page_fold(&dp, 3) == 3;
        in1 += ps_dataset_page_fold(&dp, 3) == 1;
    }
    assert_true(in3 >= 4 && in3 < 30 && in1 > 0);
    ps_page_types_train_options opt = {.folds = 2, .seed = 1,
                                       .pages = {.k = 1, .n = 3, .complement = 1},
                                       .pages2 = {.k = 2, .n = 3, .complement = 1},
                                       .grid_given = 1, .c_lo = 1, .c_hi = 1, .c_step = 1,
                                       .g_lo = -3, .g_hi = -3, .g_step = 1};
    ps_buf b = {0};
    ps_page_types_cv cv = {0};
    ps_error err = {0};
    const char *dirs[] = {dir};
    if (ps_page_types_train(dirs, 1, &opt, &b, &cv, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cv.pages, in3);
    /* one filter: the two other folds */
    opt.pages2.n = 0;
    ps_buf_free(&b);
    assert_int_equal(ps_page_types_train(dirs, 1, &opt, &b, &cv, &err), 0);
    assert_int_equal(cv.pages, 30 - in1);
    ps_buf_free(&b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signals_json_ld_and_url),
        cmocka_unit_test(test_signals_elements_and_text),
        cmocka_unit_test(test_signals_repeated_group),
        cmocka_unit_test(test_signals_hashed),
        cmocka_unit_test(test_train_classify_refuse),
        cmocka_unit_test(test_shipped_model_is_libsvm),
        cmocka_unit_test(test_train_hashed),
        cmocka_unit_test(test_train_two_folds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
