/* tests/test_metadata.c — ps_page_metadata on small hand-written pages:
 * the order of sources, dates in the formats people write them, the site
 * name taken off a title, authors cleaned, malformed JSON-LD ignored, the
 * declared language checked against the text; and ps_render of a page whose
 * method keeps no leaves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pagesift.h"
#include "pagesift/page.h"

static ps_page *parse(const char *html, const char *url)
{
    ps_page_options po = {0};
    po.url = url;
    ps_error err = {0};
    ps_page *p = ps_page_parse(html, strlen(html), &po, &err);
    assert_non_null(p);
    return p;
}

/* metadata of @p html with @p text as the extracted text */
static void meta_of(const char *html, const char *url, const char *text, ps_metadata *m)
{
    ps_page *p = parse(html, url);
    ps_extraction x = {0};
    x.text = (char *)text;
    x.len = text ? strlen(text) : 0;
    ps_error err = {0};
    assert_int_equal(ps_page_metadata(p, text ? &x : NULL, m, &err), 0);
    ps_page_free(p);
}

static const char *EN =
    "The harbour master opened the locks for the evening tide after the fog had lifted over "
    "the bay, and the ferries that had waited since the morning left one after the other.\n";

static void test_sources_in_order(void **state)
{
    (void)state;
    ps_metadata m;
    meta_of("<html lang='de-AT'><head><title>Die Flut kommt | Hafenblatt</title>"
            "<meta name='description' content='Kurz gesagt.'>"
            "<meta property='og:site_name' content='Hafenblatt'>"
            "<meta property='article:published_time' content='2020-03-01T08:00:00Z'>"
            "<meta property='article:modified_time' content='2020-03-02'>"
            "<script type='application/ld+json'>{\"@type\":\"NewsArticle\",\"datePublished\":"
            "\"2019-12-31T23:00:00+01:00\",\"author\":{\"@type\":\"Person\",\"name\":\"Eva Moser\"}}"
            "</script></head><body><h1>Die Flut kommt</h1><p>x</p></body></html>",
            "http://h.example.at/a/b", NULL, &m);
    assert_string_equal(m.title, "Die Flut kommt");
    assert_string_equal(m.page_title, "Die Flut kommt | Hafenblatt");
    assert_string_equal(m.site_name, "Hafenblatt");
    assert_string_equal(m.date, "2019-12-31"); /* JSON-LD before article:published_time */
    assert_string_equal(m.date_modified, "2020-03-02");
    assert_string_equal(m.author, "Eva Moser");
    assert_string_equal(m.description, "Kurz gesagt.");
    assert_string_equal(m.lang, "de"); /* declared, no text to check it against */
    assert_true(m.lang_confidence < 0);
    assert_null(m.canonical_url);
    assert_null(m.categories);
    ps_metadata_free(&m);
}

static void test_date_formats(void **state)
{
    (void)state;
    static const struct {
        const char *where, *want;
    } cases[] = {
        {"<time datetime='2021-08-14T09:30:00+02:00'>x</time>", "2021-08-14"},
        {"<p class='date'>Published 14.08.2021</p>", "2021-08-14"},
        {"<p class='date'>am 3. März 2019 um 10 Uhr</p>", "2019-03-03"},
        {"<p class='date'>Posted on March 3rd, 2019</p>", "2019-03-03"},
        {"<p class='date'>3 de mayo de 2018</p>", "2018-05-03"},
        {"<p class='date'>le 2 août 2017</p>", "2017-08-02"},
        {"<p class='date'>2015年7月3日</p>", "2015-07-03"},
        {"<p class='date'>12/25/2016</p>", "2016-12-25"},
        {"<p class='date'>31.02.2016</p>", NULL}, /* no such day */
        {"<p class='date'>version 1.2.3</p>", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char html[512];
        snprintf(html, sizeof html, "<html><body>%s<p>text</p></body></html>", cases[i].where);
        ps_metadata m;
        meta_of(html, NULL, NULL, &m);
        if (cases[i].want)
            assert_string_equal(m.date, cases[i].want);
        else
            assert_null(m.date);
        ps_metadata_free(&m);
    }
    /* the URL, when the page says nothing */
    ps_metadata m;
    meta_of("<html><body><p>text</p></body></html>", "http://x.example.com/2012/07/24/story", NULL,
            &m);
    assert_string_equal(m.date, "2012-07-24");
    ps_metadata_free(&m);
}

static void test_title_site_author(void **state)
{
    (void)state;
    ps_metadata m;
    /* no og:title: the <title>'s site part goes, and becomes the site name */
    meta_of("<html><head><title>Four short links: 6 November 2012 - O'Reilly Radar</title></head>"
            "<body><h1>Four short links: 6 November 2012</h1>"
            "<div class='byline'>Posted by Nat Torkington | 6 November 2012</div></body></html>",
            NULL, NULL, &m);
    assert_string_equal(m.title, "Four short links: 6 November 2012");
    assert_string_equal(m.site_name, "O'Reilly Radar");
    assert_string_equal(m.author, "Nat Torkington");
    assert_string_equal(m.date, "2012-11-06");
    ps_metadata_free(&m);
    /* a logo h1 at the end of the <title>: the rest is the headline */
    meta_of("<html><head><title>Rogier Wieland and Suus Hessling | David Airey</title></head>"
            "<body><h1>David Airey</h1><h2>Rogier Wieland and Suus Hessling</h2></body></html>",
            NULL, NULL, &m);
    assert_string_equal(m.title, "Rogier Wieland and Suus Hessling");
    ps_metadata_free(&m);
    /* placeholders, URLs and organisations are not authors */
    meta_of("<html><head><meta name='author' content='https://example.com/me'>"
            "<script type='application/ld+json'>{\"@type\":\"Article\",\"headline\":\"H\","
            "\"author\":{\"@type\":\"Organization\",\"name\":\"Example Media\"}}</script></head>"
            "<body><p class='comment-author'>Name</p></body></html>",
            NULL, NULL, &m);
    assert_null(m.author);
    assert_string_equal(m.title, "H");
    ps_metadata_free(&m);
}

static void test_malformed_jsonld(void **state)
{
    (void)state;
    ps_metadata m;
    meta_of("<html><head><title>T</title>"
            "<script type='application/ld+json'>{\"@type\": \"Article\", \"headline\": </script>"
            "<script type='application/ld+json'>[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[</script>"
            "<script type='application/ld+json'>{\"@graph\":[{\"@type\":\"WebSite\",\"name\":\"Site\"},"
            "{\"@type\":\"BlogPosting\",\"headline\":\"Post\",\"keywords\":\"a, b ,c\","
            "\"articleSection\":[\"News\",\"Local\"],\"image\":{\"url\":\"/i.png\"}}]}</script>"
            "</head><body><p>x</p></body></html>",
            "https://s.example.org/p/1", NULL, &m);
    assert_string_equal(m.title, "Post");
    assert_string_equal(m.site_name, "Site");
    assert_int_equal(m.n_tags, 3);
    assert_string_equal(m.tags[1], "b");
    assert_int_equal(m.n_categories, 2);
    assert_string_equal(m.categories[1], "Local");
    assert_string_equal(m.image, "https://s.example.org/i.png"); /* resolved */
    ps_metadata_free(&m);
}

static void test_lang_checked_against_text(void **state)
{
    (void)state;
    ps_metadata m;
    /* declared German, written in English: the text wins */
    meta_of("<html lang='de'><body><p>x</p></body></html>", NULL, EN, &m);
    assert_string_equal(m.lang, "en");
    assert_string_equal(m.lang_declared, "de");
    assert_true(m.lang_confidence > 0.5 && m.lang_confidence <= 1.0);
    ps_metadata_free(&m);
    /* too little text to tell: the declaration */
    meta_of("<html lang='fr-CA'><body><p>x</p></body></html>", NULL, "ok\n", &m);
    assert_string_equal(m.lang, "fr");
    assert_true(m.lang_confidence < 0);
    ps_metadata_free(&m);
}

static void test_render_without_leaves(void **state)
{
    (void)state;
    ps_page *p = parse("<html><body><p>a</p></body></html>", NULL);
    ps_extraction x = {0};
    x.text = (char *)"first line *\nsecond # line\n";
    x.len = strlen(x.text);
    ps_error err = {0};
    size_t len;
    char *md = ps_render(p, &x, NULL, PS_STRUCT_MARKDOWN, 0, &len, &err);
    assert_non_null(md);
    assert_string_equal(md, "first line \\*\n\nsecond # line\n");
    assert_int_equal(len, strlen(md));
    free(md);
    char *xml = ps_render(p, &x, NULL, PS_STRUCT_XML, 0, &len, &err);
    assert_non_null(strstr(xml, "<p>first line *</p>"));
    free(xml);
    ps_page_free(p);
}

/* PS_PAGE_NO_METADATA: the JSON-LD extraction reads is still collected
 * (its types), the rest not, and ps_page_metadata says so. */
static void test_no_metadata_flag(void **state)
{
    (void)state;
    static const char html[] =
        "<html lang='en'><head><title>T</title><meta name='author' content='A. Writer'>"
        "<script type='application/ld+json'>{\"@type\":\"Product\",\"name\":\"P\"}</script>"
        "<style>p{}</style></head><body><h1>T</h1><p class='byline'>By A. Writer</p>"
        "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script><p>x</p></body></html>";
    ps_page_options po = {0};
    ps_error err = {0};
    ps_page *full = ps_page_parse(html, strlen(html), &po, &err);
    po.flags = PS_PAGE_NO_METADATA;
    ps_page *lean = ps_page_parse(html, strlen(html), &po, &err);
    assert_non_null(full);
    assert_non_null(lean);
    assert_int_not_equal(ps_page_schema_kinds(full), 0);
    assert_int_equal(ps_page_schema_kinds(lean), ps_page_schema_kinds(full));
    ps_metadata m;
    assert_int_equal(ps_page_metadata(full, NULL, &m, &err), 0);
    assert_string_equal(m.author, "A. Writer");
    ps_metadata_free(&m);
    assert_int_equal(ps_page_metadata(lean, NULL, &m, &err), -1);
    assert_int_equal(err.code, PS_ERR_USAGE);
    ps_page_free(full);
    ps_page_free(lean);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources_in_order),  cmocka_unit_test(test_date_formats),
        cmocka_unit_test(test_title_site_author), cmocka_unit_test(test_malformed_jsonld),
        cmocka_unit_test(test_lang_checked_against_text), cmocka_unit_test(test_render_without_leaves),
        cmocka_unit_test(test_no_metadata_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
