/* tests/test_template_svm.c — the template-svm and svm methods on a made-up
 * site: twelve pages share a navigation bar and a copyright line, each has
 * its own article.  A model is trained here (train/ API) from the blocks of
 * those pages; the site library is built from them (templates/ API).  Then a
 * new page of the site: template-svm removes the shared leaves (their block
 * is classed "template"), keeps the article and not the chrome; svm alone
 * classifies the same blocks itself; per-leaf and per-block outputs agree
 * with the text; a page of another site gets no template step. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/util.h"
#include "pagesift/features.h"
#include "pagesift/page.h"
#include "pagesift/templates.h"
#include "pagesift/train.h"
#include "tests/test_util.h"

static const char *const WORDS[] = {"river", "council", "budget", "school", "winter", "market",
                                    "harbour", "festival", "railway", "library", "garden", "bridge"};

/* Page k of the site: shared chrome, an article of its own. */
static char *site_page(int k)
{
    ps_buf b = {0};
    ps_buf_printf(&b, "<html><head><title>News %d</title></head><body>"
                      "<div id=nav><a href=/>Home</a> <a href=/world>World</a> "
                      "<a href=/sport>Sport</a> <a href=/about>About us</a></div>"
                      "<div id=article><h1>Story %d about the %s</h1>", k, k, WORDS[k % 12]);
    for (int p = 0; p < 4; p++)
        ps_buf_printf(&b, "<p>Paragraph %d of story %d: the %s and the %s were discussed at "
                          "length by the people of the town, who met on %s evening to hear "
                          "what the %s would mean for them.</p>",
                      p, k, WORDS[(k + p) % 12], WORDS[(k + 3 * p + 1) % 12],
                      p % 2 ? "Tuesday" : "Friday", WORDS[(k + 5) % 12]);
    ps_buf_printf(&b, "</div><div id=foot><span>Copyright 2024 Example News Ltd</span> "
                      "<a href=/privacy>Privacy</a> <a href=/terms>Terms</a></div></body></html>");
    return ps_buf_take(&b, NULL);
}

/* An extractor of @p method, or the test fails with the library's message. */
static ps_extractor *new_extractor(const char *method, const ps_extractor_config *cfg)
{
    ps_error err = {0};
    ps_extractor *ex = ps_extractor_new(method, cfg, &err);
    if (!ex)
        fail_msg("%s", err.msg);
    return ex;
}

static ps_page *load_with(int k, const char *url, unsigned flags)
{
    char *html = site_page(k);
    ps_page_options o = {0};
    o.url = url;
    o.flags = flags;
    ps_error err = {0};
    ps_page *pg = ps_page_parse(html, strlen(html), &o, &err);
    free(html);
    return pg;
}

static ps_page *load(int k, const char *url)
{
    return load_with(k, url, 0);
}

static char model_path[320], tpl_dir[64];

/* Train a model on the twelve pages' blocks (article = 1, the rest 0). */
static int setup(void **state)
{
    (void)state;
    ps_init();
    snprintf(tpl_dir, sizeof tpl_dir, "/tmp/ps_tsvm_XXXXXX");
    if (!mkdtemp(tpl_dir))
        return -1;
    char csv[300];
    snprintf(csv, sizeof csv, "%s/f.csv", tpl_dir);
    snprintf(model_path, sizeof model_path, "%s/m.model", tpl_dir);
    FILE *f = fopen(csv, "w");
    fprintf(f, "dataset,page_id,site,R1,R2,R3,R4,R5,label\n");
    int ids[5];
    static const char *const names[5] = {"R1", "R2", "R3", "R4", "R5"};
    for (int i = 0; i < 5; i++)
        ids[i] = ps_feature_lookup(names[i]);
    for (int k = 0; k < 12; k++) {
        ps_page *pg = load(k, NULL);
        size_t nb;
        const ps_block *bl = ps_page_blocks(pg, &nb);
        double *x = calloc(nb * 5, sizeof *x);
        ps_page_block_features(pg, ids, 5, x);
        for (size_t b = 0; b < nb; b++) {
            if (!bl[b].own.text_chars)
                continue;
            fprintf(f, "t,p%d,ex.com", k);
            for (int i = 0; i < 5; i++)
                fprintf(f, ",%.6f", x[b * 5 + i]);
            fprintf(f, ",%d\n", strcmp(bl[b].id_attr, "article") == 0);
        }
        free(x);
        ps_page_free(pg);
    }
    fclose(f);
    ps_error err = {0};
    const char *paths[] = {csv};
    ps_train_data *d = ps_train_data_load(paths, 1, "paper", PS_GROUP_PAGE, &err);
    if (!d) {
        fprintf(stderr, "train data: %s\n", err.msg);
        return -1;
    }
    ps_train_options o;
    ps_train_options_init(&o);
    o.quiet = 1;
    o.balance = PS_BALANCE_NONE;
    ps_model *m = ps_train_final(d, &o, 5, 1, NULL, 0, &err);
    ps_train_data_free(d);
    if (!m || ps_model_save(m, model_path, &err) != 0) {
        fprintf(stderr, "train: %s\n", err.msg);
        return -1;
    }
    ps_model_free(m);
    unlink(csv);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(model_path);
    rmdir(tpl_dir);
    return 0;
}

static ps_template_store *site_store(void)
{
    ps_template_params p;
    ps_template_params_default(&p);
    ps_template_builder *b = ps_template_builder_new(&p);
    for (int k = 0; k < 12; k++) {
        ps_page *pg = load(k, "http://ex.com/x");
        assert_int_equal(ps_template_builder_add(b, "ex.com", pg, NULL), 0);
        ps_page_free(pg);
    }
    return ps_template_builder_finish(b);
}

static size_t block_by_id(const ps_page *pg, const char *id)
{
    size_t nb;
    const ps_block *bl = ps_page_blocks(pg, &nb);
    for (size_t b = 0; b < nb; b++)
        if (strcmp(bl[b].id_attr, id) == 0)
            return b;
    fail_msg("no block %s", id);
    return 0;
}

/* Output consistency: the text is exactly the kept leaves' text. */
static void check_consistent(ps_page *pg, const ps_extraction *x)
{
    size_t nb, nl;
    ps_page_blocks(pg, &nb);
    const ps_leaf *lv = ps_page_leaves(pg, &nl);
    assert_non_null(x->block_class);
    assert_non_null(x->leaf_kept);
    for (size_t i = 0; i < nl; i++)
        assert_int_equal(x->leaf_kept[i],
                         !lv[i].removed && x->block_class[lv[i].block] == PS_CLASS_CONTENT);
    size_t len;
    char *t = ps_page_text_leaves(pg, x->leaf_kept, &len);
    assert_int_equal(len, x->len);
    assert_memory_equal(t, x->text, len);
    free(t);
}

static void test_template_svm_removes_chrome_keeps_article(void **state)
{
    (void)state;
    ps_template_store *store = site_store();
    assert_non_null(store);
    ps_extractor_config cfg = {.model_path = model_path, .templates = store};
    ps_error err = {0};
    ps_extractor *ex = new_extractor("template-svm", &cfg);
    ps_page *pg = load(20, "http://ex.com/new");
    ps_extraction x;
    assert_int_equal(ps_extract(ex, pg, "ex.com", &x, &err), 0);
    assert_non_null(strstr(x.text, "Paragraph 2 of story 20"));
    assert_non_null(strstr(x.text, "Story 20 about"));
    assert_null(strstr(x.text, "Copyright"));
    assert_null(strstr(x.text, "About us"));
    assert_int_equal(x.block_class[block_by_id(pg, "nav")], PS_CLASS_TEMPLATE);
    assert_int_equal(x.block_class[block_by_id(pg, "foot")], PS_CLASS_TEMPLATE);
    assert_int_equal(x.block_class[block_by_id(pg, "article")], PS_CLASS_CONTENT);
    assert_int_equal(x.blocks_kept, 1);
    assert_string_equal(x.title, "News 20");
    check_consistent(pg, &x);
    ps_extraction_free(&x);
    ps_page_free(pg);

    /* another site: no library, no template step, the SVM decides */
    pg = load(21, "http://other.org/a");
    assert_int_equal(ps_extract(ex, pg, "other.org", &x, &err), 0);
    size_t nl;
    const ps_leaf *lv = ps_page_leaves(pg, &nl);
    for (size_t i = 0; i < nl; i++)
        assert_int_equal(lv[i].removed, 0);
    assert_int_not_equal(x.block_class[block_by_id(pg, "foot")], PS_CLASS_TEMPLATE);
    assert_non_null(strstr(x.text, "Paragraph 1 of story 21"));
    check_consistent(pg, &x);
    ps_extraction_free(&x);
    ps_page_free(pg);
    ps_extractor_free(ex);
    ps_template_store_free(store);
}

static void test_svm_alone_classifies_every_block(void **state)
{
    (void)state;
    ps_extractor_config cfg = {.model_path = model_path};
    ps_error err = {0};
    ps_extractor *ex = new_extractor("svm", &cfg);
    ps_page *pg = load(20, "http://ex.com/new");
    ps_extraction x;
    assert_int_equal(ps_extract(ex, pg, "ex.com", &x, &err), 0);
    assert_non_null(strstr(x.text, "Paragraph 3 of story 20"));
    assert_null(strstr(x.text, "Copyright"));
    assert_int_equal(x.block_class[block_by_id(pg, "foot")], PS_CLASS_NOISE);
    assert_int_equal(x.block_class[block_by_id(pg, "nav")], PS_CLASS_NOISE);
    check_consistent(pg, &x);
    /* with text in body, nav, article, foot: kept + removed covers them */
    assert_int_equal(x.blocks_kept + x.blocks_removed, 3);
    ps_extraction_free(&x);
    ps_page_free(pg);
    ps_extractor_free(ex);
}

/* The extraction carries the classifier's score of every block (a stacked
 * model's second stage's; here the test's SVM): with the passes off, a
 * block with text is content exactly when its score is above 0, and a
 * block without text has none (NaN). */
static void test_block_scores_are_the_classes(void **state)
{
    (void)state;
    ps_extractor_config cfg = {.model_path = model_path,
                               .options = "focus=0,fill=0,headline=0,fallback=0,comments=0"};
    ps_error err = {0};
    ps_extractor *ex = new_extractor("svm", &cfg);
    ps_page *pg = load(20, "http://ex.com/new");
    ps_extraction x;
    assert_int_equal(ps_extract(ex, pg, "ex.com", &x, &err), 0);
    assert_non_null(x.block_score);
    size_t nb, scored = 0;
    const ps_block *b = ps_page_blocks(pg, &nb);
    for (size_t i = 0; i < nb; i++) {
        if (b[i].own.text_chars == 0) {
            assert_true(isnan(x.block_score[i]));
            continue;
        }
        scored++;
        assert_true(isfinite(x.block_score[i]));
        assert_int_equal(x.block_class[i] == PS_CLASS_CONTENT, x.block_score[i] > 0);
    }
    assert_true(scored >= 3);
    ps_extraction_free(&x);
    ps_page_free(pg);
    ps_extractor_free(ex);
}

/* A page whose article is in its JSON-LD only (a script renders it): with
 * article_body=0.5 the result is the articleBody as plain text (its HTML
 * tags gone, a paragraph a line, inline tags joining their words); off,
 * the blocks' text stays. */
static void test_article_body_fallback(void **state)
{
    (void)state;
    static const char html[] =
        "<html><head><script type=\"application/ld+json\">{\"@type\": \"NewsArticle\", "
        "\"headline\": \"Dam\", \"articleBody\": \"<p>The council approved the new dam on "
        "Tuesday after a long debate.</p><p>Work starts in <b>spring</b>, the mayor said.</p>\"}"
        "</script></head><body><div id=\"nav\"><a href=\"/\">Home</a> <a href=\"/n\">News</a>"
        "</div><div id=\"app\">Loading</div></body></html>";
    const char *opts[] = {"article_body=0.5", "article_body=0", "article_body=0.01"};
    for (int k = 0; k < 3; k++) {
        ps_extractor_config cfg = {.model_path = model_path, .options = opts[k]};
        ps_error err = {0};
        ps_extractor *ex = new_extractor("svm", &cfg);
        ps_page *pg = parse_str(html);
        assert_non_null(pg);
        ps_extraction x;
        assert_int_equal(ps_extract(ex, pg, "", &x, &err), 0);
        int body = strcmp(x.text, "The council approved the new dam on Tuesday after a long debate.\n"
                                  "Work starts in spring, the mayor said.\n") == 0;
        if (k == 0) /* no leaf is the result's: structured outputs render the lines */
            assert_true(body && !x.leaf_kept);
        else if (k == 1)
            assert_false(body);
        else /* the fallback pass keeps a block: more than 1 % of it */
            assert_true(!body && x.len > 0);
        ps_extraction_free(&x);
        ps_page_free(pg);
        ps_extractor_free(ex);
    }
}

/* A page whose text a script fetches (an empty shell, as some forums serve
 * their threads): with nothing kept the result is its description <meta>,
 * one line, also when the page is parsed without its metadata (as text
 * output does); no leaf is kept, so the structured outputs render that
 * line.  description=0: empty as before.  A page with text keeps its own;
 * a shell without a description stays empty. */
static void test_description_fallback(void **state)
{
    (void)state;
    static const char shell[] =
        "<html><head><title>First telescope - Forum</title>"
        "<meta name=\"description\" content=\"Hello everyone,   I am new to astronomy and would like "
        "advice on my first telescope.\"><script src=\"/app.js\"></script></head>"
        "<body><div id=\"main-outlet\"></div><script>boot()</script></body></html>";
    static const char bare[] = "<html><head><title>App</title><meta name=\"description\" content=\" \">"
                               "</head><body><div id=\"app\"></div></body></html>";
    static const char want[] = "Hello everyone, I am new to astronomy and would like advice on my first telescope.\n";
    const char *opts[] = {NULL, "description=0"};
    for (int k = 0; k < 2; k++)
        for (unsigned flags = 0; flags <= PS_PAGE_NO_METADATA; flags += PS_PAGE_NO_METADATA) {
            ps_extractor_config cfg = {.model_path = model_path, .options = opts[k]};
            ps_error err = {0};
            ps_extractor *ex = new_extractor("svm", &cfg);
            ps_page_options po = {.flags = flags};
            ps_page *pg = ps_page_parse(shell, strlen(shell), &po, &err);
            assert_non_null(pg);
            ps_extraction x;
            assert_int_equal(ps_extract(ex, pg, "", &x, &err), 0);
            if (k == 0) {
                assert_string_equal(x.text, want);
                assert_null(x.leaf_kept);
                assert_non_null(x.block_class);
            } else {
                assert_int_equal(x.len, 0);
            }
            ps_extraction_free(&x);
            ps_page_free(pg);
            pg = parse_str(bare);
            assert_non_null(pg);
            assert_int_equal(ps_extract(ex, pg, "", &x, &err), 0);
            assert_int_equal(x.len, 0);
            ps_extraction_free(&x);
            ps_page_free(pg);
            ps_extractor_free(ex);
        }
}

static void test_template_svm_without_templates_is_an_error(void **state)
{
    (void)state;
    ps_extractor_config cfg = {.model_path = model_path};
    ps_error err = {0};
    assert_null(ps_extractor_new("template-svm", &cfg, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    /* in the library's terms: no command-line flag (pagesift names its own) */
    assert_non_null(strstr(err.msg, "templates_dir"));
    assert_null(strstr(err.msg, "--"));
    cfg.templates_dir = "/nonexistent/templates";
    assert_null(ps_extractor_new("template-svm", &cfg, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/templates"));
    /* options are checked: a share out of range is a usage error */
    ps_template_store *store = site_store();
    ps_extractor_config opt = {.model_path = model_path, .templates = store,
                               .options = "focus_templated=1.5"};
    assert_null(ps_extractor_new("template-svm", &opt, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "focus_templated"));
    opt.options = "fill=-1";
    assert_null(ps_extractor_new("template-svm", &opt, &err));
    assert_non_null(strstr(err.msg, "fill"));
    opt.options = "focus_templated=0.9,focus=0,fill=0,comments=0,fallback=0,headline=0";
    ps_extractor *ex = new_extractor("template-svm", &opt);
    ps_extractor_free(ex);
    ps_template_store_free(store);
    ps_extractor_config bad = {.model_path = "/nonexistent/x.model"};
    assert_null(ps_extractor_new("svm", &bad, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/x.model"));
}

/* A copy of the test model with a block_tags key line after its header. */
static void model_with_tags(const char *tags, char *out, size_t cap)
{
    snprintf(out, cap, "%s/tags.model", tpl_dir);
    FILE *in = fopen(model_path, "rb"), *o = fopen(out, "wb");
    assert_non_null(in);
    assert_non_null(o);
    char line[4096];
    int first = 1;
    while (fgets(line, sizeof line, in)) {
        fputs(line, o);
        if (first)
            fprintf(o, "block_tags %s\n", tags);
        first = 0;
    }
    fclose(in);
    assert_int_equal(fclose(o), 0);
}

/* A model trained on finer blocks makes pages be parsed with its tags, and
 * refuses a page built with others rather than classify wrong blocks. */
static void test_model_block_tags(void **state)
{
    (void)state;
    char path[400];
    model_with_tags("body,div,p", path, sizeof path);
    ps_extractor_config cfg = {.model_path = path};
    ps_error err = {0};
    ps_extractor *ex = new_extractor("svm", &cfg);
    const char *const *tags = ps_extractor_block_tags(ex);
    assert_string_equal(tags[0], "body");
    assert_string_equal(tags[1], "div");
    assert_string_equal(tags[2], "p");
    assert_null(tags[3]);

    ps_page *pg = load(20, "http://ex.com/new"); /* default tags */
    ps_extraction x;
    assert_int_equal(ps_extract(ex, pg, "ex.com", &x, &err), -1);
    assert_non_null(strstr(err.msg, "body,div,p"));
    ps_page_free(pg);

    char *html = site_page(20);
    ps_page_options o = {.url = "http://ex.com/new", .block_tags = tags};
    pg = ps_page_parse(html, strlen(html), &o, &err);
    free(html);
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    size_t n_p = 0;
    for (size_t i = 0; i < nb; i++)
        n_p += strcmp(b[i].tag, "p") == 0;
    assert_true(n_p >= 3); /* the story's paragraphs are blocks now */
    assert_int_equal(ps_extract(ex, pg, "ex.com", &x, &err), 0);
    check_consistent(pg, &x);
    ps_extraction_free(&x);
    ps_page_free(pg);

    /* the order of the tags does not matter; a list without body is refused */
    const char *const reordered[] = {"p", "body", "div", NULL};
    assert_int_equal(ps_block_tags_key(reordered), ps_block_tags_key(tags));
    assert_true(ps_block_tags_key(NULL) != ps_block_tags_key(tags));
    ps_extractor_free(ex); /* owns tags */
    model_with_tags("div,p", path, sizeof path);
    assert_null(ps_extractor_new("svm", &cfg, &err));
    assert_int_equal(err.code, PS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "body"));
    unlink(path);
}

/* A page parsed with PS_PAGE_NO_TREE (what the batch does for text, JSON
 * Lines and CSV) loses its tree before template-svm runs: the same text,
 * classes and scores as with the tree, its blocks' tags still readable
 * (the templates compare them), and asking for its structure afterwards
 * is a usage error, not a crash.  A method that reads the tree keeps it. */
static void test_tree_dropped_for_text_outputs(void **state)
{
    (void)state;
    ps_template_store *store = site_store();
    assert_non_null(store);
    ps_extractor_config cfg = {.model_path = model_path, .templates = store};
    ps_extractor *ex = new_extractor("template-svm", &cfg);
    ps_page *kept = load(20, "http://ex.com/new"), *dropped = load_with(20, "http://ex.com/new", PS_PAGE_NO_TREE);
    assert_non_null(kept);
    assert_non_null(dropped);
    ps_extraction a, b;
    ps_error err = {0};
    assert_int_equal(ps_extract(ex, kept, "ex.com", &a, &err), 0);
    assert_int_equal(ps_extract(ex, dropped, "ex.com", &b, &err), 0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.text, b.text, a.len);
    size_t nb;
    ps_page_blocks(kept, &nb);
    assert_memory_equal(a.block_class, b.block_class, nb);
    assert_memory_equal(a.block_score, b.block_score, nb * sizeof *a.block_score);
    assert_int_equal(b.block_class[block_by_id(dropped, "nav")], PS_CLASS_TEMPLATE);
    assert_string_equal(ps_page_blocks(dropped, &nb)[block_by_id(dropped, "article")].tag, "div");
    check_consistent(dropped, &b);

    assert_non_null(ps_page_dom(kept));
    assert_null(ps_page_dom(dropped));
    size_t len;
    char *md = ps_render(kept, &a, NULL, PS_STRUCT_MARKDOWN, 0, &len, &err);
    assert_non_null(md);
    assert_non_null(strstr(md, "Story 20 about"));
    free(md);
    assert_null(ps_render(dropped, &b, NULL, PS_STRUCT_MARKDOWN, 0, &len, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "PS_PAGE_NO_TREE"));
    ps_extraction_free(&a);
    ps_extraction_free(&b);
    ps_page_free(kept);
    ps_page_free(dropped);
    ps_extractor_free(ex);

    /* "all" reads no model and keeps every leaf; it does not say it never
     * reads the tree, so the page keeps it and renders */
    ex = new_extractor("all", NULL);
    dropped = load_with(21, "http://ex.com/b", PS_PAGE_NO_TREE);
    assert_int_equal(ps_extract(ex, dropped, "ex.com", &b, &err), 0);
    assert_non_null(ps_page_dom(dropped));
    assert_non_null(md = ps_render(dropped, &b, NULL, PS_STRUCT_MARKDOWN, 0, &len, &err));
    free(md);
    ps_extraction_free(&b);
    ps_page_free(dropped);
    ps_extractor_free(ex);
    ps_template_store_free(store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template_svm_removes_chrome_keeps_article),
        cmocka_unit_test(test_svm_alone_classifies_every_block),
        cmocka_unit_test(test_block_scores_are_the_classes),
        cmocka_unit_test(test_article_body_fallback),
        cmocka_unit_test(test_description_fallback),
        cmocka_unit_test(test_template_svm_without_templates_is_an_error),
        cmocka_unit_test(test_model_block_tags),
        cmocka_unit_test(test_tree_dropped_for_text_outputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
