/* tests/test_page.c — the block tree: nested-block exclusion, counts in
 * characters (a CJK character is one), leaves, paths, class/id words, text
 * output, bad input. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "extract/class_words.h"
#include "extract/page_internal.h"
#include "pagesift/page.h"
#include "pagesift/util.h"
#include "tests/test_util.h"

static void test_nested_blocks_excluded(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body>Top <a href=x>link</a>"
                            "<div id=main class='c1  c2'>Inner text <img src=a><div>Deep</div> tail</div>"
                            "<section><p>Sect</p></section></body></html>");
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 4); /* body, div, div, section */
    assert_string_equal(b[0].tag, "body");
    assert_int_equal(b[0].parent, -1);
    /* body's own: "Top" (3) + "link" (4); the div's text is excluded */
    assert_int_equal(b[0].own.text_chars, 7);
    assert_int_equal(b[0].own.link_chars, 4);
    assert_int_equal(b[0].own.links, 1);
    assert_int_equal(b[0].own.images, 0);
    assert_string_equal(b[1].tag, "div");
    assert_string_equal(b[1].id_attr, "main");
    assert_string_equal(b[1].class_attr, "c1 c2");
    assert_string_equal(b[1].path, "html/body/div[1]");
    /* "Inner text tail" = 15 characters, Deep excluded */
    assert_int_equal(b[1].own.text_chars, 15);
    assert_int_equal(b[1].own.images, 1);
    assert_int_equal(b[2].parent, 1);
    assert_int_equal(b[2].depth, 2);
    assert_string_equal(b[2].path, "html/body/div[1]/div[1]");
    assert_int_equal(b[2].own.text_chars, 4);
    assert_string_equal(b[3].tag, "section");
    assert_int_equal(ps_block_subtree_end(pg, 1), 3);
    ps_counts sub = ps_block_subtree_counts(pg, 1);
    assert_int_equal(sub.text_chars, 19);
    ps_counts tot = ps_page_totals(pg);
    assert_int_equal(tot.text_chars, 7 + 15 + 4 + 4);
    assert_int_equal(tot.links, 1);
    assert_int_equal(tot.images, 1);
    ps_page_free(pg);
}

static void test_cjk_counts_characters(void **state)
{
    (void)state;
    /* 来源：新华社 is 6 characters (18 bytes) */
    ps_page *pg = parse_str("<html><meta charset=utf-8><body><div><span>"
                            "\xE6\x9D\xA5\xE6\xBA\x90\xEF\xBC\x9A\xE6\x96\xB0\xE5\x8D\x8E\xE7\xA4\xBE"
                            "</span><a href=/>\xE4\xB8\xAD\xE5\x9B\xBD</a></div></body></html>");
    assert_non_null(pg);
    size_t nb, nl;
    const ps_block *b = ps_page_blocks(pg, &nb);
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    assert_int_equal(nl, 2);
    assert_string_equal(l[0].tag, "span");
    assert_int_equal(l[0].chars, 6);
    assert_int_equal(l[0].bytes, 18);
    assert_string_equal(l[1].tag, "a");
    assert_int_equal(l[1].in_link, 1);
    assert_int_equal(b[1].own.text_chars, 8);
    assert_int_equal(b[1].own.link_chars, 2);
    ps_page_free(pg);
}

static void test_whitespace_collapsed_and_formatting_transparent(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<body><p>  Hello \n\t <b>bold</b>&nbsp; world  </p><p>Two</p></body>");
    assert_non_null(pg);
    size_t nl;
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    assert_int_equal(nl, 2);
    assert_string_equal(l[0].tag, "p");
    assert_string_equal(l[0].text, "Hello bold world");
    assert_int_equal(l[0].chars, 16);
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "Hello bold world\nTwo\n");
    free(t);
    ps_page_free(pg);
}

static void test_text_keeps_document_order_around_links(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<body><div><p>Read <a href=x>more</a> here.</p></div><div>Nav</div></body>");
    size_t nb;
    ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 3);
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "Read more here.\nNav\n");
    free(t);
    uint8_t keep[3] = {1, 1, 0};
    t = ps_page_text(pg, keep, &len);
    assert_string_equal(t, "Read more here.\n");
    free(t);
    ps_page_free(pg);
}

static void test_remove_leaf_updates_counts(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<body><div><a href=/>Home</a> <a href=/n>News</a> Story text</div></body>");
    size_t nl, nb;
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    const ps_block *b = ps_page_blocks(pg, &nb);
    assert_int_equal(nl, 3);
    assert_int_equal(b[1].own.links, 2);
    ps_page_remove_leaf(pg, 0);
    ps_page_remove_leaf(pg, 0); /* idempotent */
    assert_int_equal(b[1].own.links, 1);
    assert_int_equal(b[1].own.link_chars, 4);
    assert_int_equal(b[1].own.text_chars, 4 + 10);
    assert_int_equal(ps_page_totals(pg).text_chars, 14);
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "News Story text\n");
    free(t);
    (void)l;
    ps_page_free(pg);
}

static void test_scripts_styles_comments_removed(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><head><style>p{}</style><script>var x='head';</script></head><body>"
                            "<script>var y = 1;</script><!-- a comment --><noscript>Enable JS</noscript>"
                            "<p>Kept</p><template><p>Never</p></template><iframe>x</iframe></body></html>");
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "Kept\n");
    free(t);
    ps_page_free(pg);
}

/* Form controls are not text: a drop-down's options (a jump menu of a
 * thousand characters was CleanEval it.jhu.edu's main block) and a text
 * box's default value (netease keeps its photo captions as HTML in a hidden
 * textarea). */
static void test_form_controls_are_not_text(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div><form><select><option>- Select A Link -</option>"
                            "<option>Account Inquiry</option><optgroup label=\"g\"><option>Payroll"
                            "</option></optgroup></select> Go</form></div><div>Article text."
                            "<textarea class=hidden>&lt;p&gt;caption&lt;/p&gt;</textarea></div>"
                            "</body></html>");
    size_t len, n;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "Go\nArticle text.\n");
    free(t);
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_int_equal(n, 3);
    assert_int_equal(b[1].own.text_chars, 2);
    ps_page_free(pg);
}

static void test_paths_stable_across_block_tags(void **state)
{
    (void)state;
    const char *html = "<body><div><table><tr><td><div>A</div></td></tr></table></div></body>";
    ps_page *a = parse_str(html);
    const char *tags[] = {"body", "div", "td", NULL};
    ps_page_options o = {0};
    o.block_tags = tags;
    ps_error err;
    ps_page *b = ps_page_parse(html, strlen(html), &o, &err);
    size_t na, nb;
    const ps_block *ba = ps_page_blocks(a, &na);
    const ps_block *bb = ps_page_blocks(b, &nb);
    assert_int_equal(na, 3);
    assert_int_equal(nb, 4);
    assert_string_equal(ba[2].path, "html/body/div[1]/table[1]/tr[1]/td[1]/div[1]");
    assert_string_equal(bb[3].path, ba[2].path);
    assert_string_equal(bb[2].tag, "td");
    ps_page_free(a);
    ps_page_free(b);
}

/* A data table (a header row of <th>, or a <thead>) is one block: its
 * cells, and what they hold, are read together, so a spec sheet is kept or
 * dropped whole; a layout table (no header) keeps a block per cell. */
/* A block's words are those of its own class and id, read once by the walk
 * for the features and the passes: what ps_class_words says of each; and
 * its shape is made once too: what ps_block_shape says. */
static void test_block_words(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div class='share-bar'>Share</div>"
                            "<div id=comments class='thread'><p>A comment</p></div>"
                            "<div class='productReviews'>Five stars</div>"
                            "<div class='article-body' id=main>Text <div>inner</div></div>"
                            "<div CLASS='  nav  ' data-x=1>Menu</div><div>plain</div></body></html>");
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 8); /* body, the six divs and the inner one (p is no block here) */
    unsigned want[8] = {0, PS_CW_NOISE, PS_CW_COMMENT | PS_CW_NOISE, PS_CW_REVIEW, PS_CW_CONTENT, 0,
                        PS_CW_NOISE, 0};
    for (size_t i = 0; i < nb; i++) {
        unsigned from_attrs = ps_class_words(b[i].class_attr, strlen(b[i].class_attr)) |
                              ps_class_words(b[i].id_attr, strlen(b[i].id_attr));
        assert_int_equal(b[i].words, from_attrs);
        assert_int_equal(b[i].words, want[i]);
        assert_true(b[i].shape == ps_block_shape(&b[i]));
    }
    ps_page_free(pg);
    /* a forum's posts: one shape whatever the digits of their class */
    pg = parse_str("<body><div class='post p36159838'>One</div><div class='post p36159840'>Two</div>"
                   "<div class='post-x'>Other</div></body>");
    assert_non_null(pg);
    b = ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 4);
    assert_true(b[1].shape == b[2].shape);
    assert_true(b[1].shape != b[3].shape);
    assert_true(b[1].shape != 0 && b[1].shape == ps_block_shape(&b[1]));
    ps_page_free(pg);
}

static void test_data_table_is_one_block(void **state)
{
    (void)state;
    const char *html = "<body><div><p>Intro</p>"
                       "<table><tbody><tr><th>Size</th><th>cm</th></tr>"
                       "<tr><td>40</td><td>25</td></tr><tr><td><div>41</div></td><td>26</td></tr></tbody></table>"
                       "<table><thead><tr><td>Head</td></tr></thead><tr><td>x</td></tr></table>"
                       "<table><tr><td>Layout cell</td><td>Other cell</td></tr></table></div></body>";
    const char *tags[] = {"body", "div", "p", "td", "table", NULL};
    ps_page_options o = {0};
    o.block_tags = tags;
    ps_error err;
    ps_page *pg = ps_page_parse(html, strlen(html), &o, &err);
    assert_non_null(pg);
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    /* body, div, p, table (data), table (thead), table (layout), td, td */
    assert_int_equal(nb, 8);
    assert_string_equal(b[3].tag, "table");
    assert_int_equal(b[3].own.text_chars, strlen("Size") + strlen("cm") + 2 + 2 + 2 + 2);
    assert_string_equal(b[4].tag, "table");
    assert_int_equal(b[4].own.text_chars, strlen("Head") + 1);
    assert_string_equal(b[5].tag, "table");
    assert_int_equal(b[5].own.text_chars, 0);
    assert_string_equal(b[6].tag, "td");
    assert_int_equal(b[6].own.text_chars, strlen("Layout cell"));
    assert_int_equal(b[6].parent, 5);
    ps_page_free(pg);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    ps_error err = {0};
    /* empty: a valid empty page */
    ps_page *pg = ps_page_parse("", 0, NULL, &err);
    assert_non_null(pg);
    size_t n;
    ps_page_blocks(pg, &n);
    assert_int_equal(n, 1);
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_int_equal(len, 0);
    free(t);
    ps_page_free(pg);
    /* binary: a clear error */
    char bin[1024];
    for (size_t i = 0; i < sizeof bin; i++)
        bin[i] = (char)(i * 7 % 256);
    pg = ps_page_parse(bin, sizeof bin, NULL, &err);
    assert_null(pg);
    assert_int_equal(err.code, PS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "binary"));
    /* compressed-looking bytes (a gzip or image body): seeded pseudo-random,
     * about 10 % controls and a few NULs; refused as well */
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < sizeof bin; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bin[i] = (char)(x >> 56);
    }
    pg = ps_page_parse(bin, sizeof bin, NULL, &err);
    assert_null(pg);
    assert_non_null(strstr(err.msg, "binary"));
    /* UTF-16 without a byte-order mark (NUL on every other byte) is text,
     * decoded as such */
    static const char u16[] = "<\0h\0t\0m\0l\0>\0<\0b\0o\0d\0y\0>\0H\0i\0 \0t\0h\0e\0r\0e\0<\0/\0b\0>\0";
    pg = ps_page_parse(u16, sizeof u16 - 1, NULL, &err);
    assert_non_null(pg);
    t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "Hi there\n");
    free(t);
    ps_page_free(pg);
    /* truncated in the middle of a tag: still a page */
    pg = parse_str("<html><body><div><p>Start of the text</p><p>cut <a hr");
    assert_non_null(pg);
    t = ps_page_text(pg, NULL, &len);
    assert_non_null(strstr(t, "Start of the text"));
    free(t);
    ps_page_free(pg);
    /* over the size limit: a clear error */
    ps_page_options o = {0};
    o.max_bytes = 10;
    pg = ps_page_parse("<p>01234567890</p>", 18, &o, &err);
    assert_null(pg);
    assert_int_equal(err.code, PS_ERR_TOO_LARGE);
    /* a missing file names the file */
    pg = ps_page_load_file("/nonexistent/page.html", NULL, &err);
    assert_null(pg);
    assert_non_null(strstr(err.msg, "/nonexistent/page.html"));
}

/* Issue 32 defect 11: NUL bytes in a page are text damage, each one
 * U+FFFD (README, "The page model"), not "binary data": a generated article
 * of 64 paragraphs with a NUL in each (64 NULs in its first 4 KB, 1.6 %)
 * was refused when any 1 % of NULs made a page binary.  Also through a
 * legacy charset (ICU's path) and with NULs packed together. */
static void test_nul_bytes_are_text(void **state)
{
    (void)state;
    static const char *const heads[] = {"<html><head><meta charset=utf-8><title>t</title></head><body>",
                                        "<html><head><meta charset=windows-1252><title>t</title></head><body>"};
    for (int h = 0; h < 2; h++) {
        for (int packed = 0; packed < 2; packed++) {
            ps_buf b = {0};
            assert_int_equal(ps_buf_append(&b, heads[h], strlen(heads[h])), 0);
            if (packed) /* 64 NULs in one run at the top of the body */
                for (int i = 0; i < 64; i++)
                    assert_int_equal(ps_buf_putc(&b, '\0'), 0);
            for (int i = 0; i < 64; i++) {
                assert_int_equal(ps_buf_printf(&b, "<p>Paragraph %d of the article, with a damaged byte", i), 0);
                if (!packed)
                    assert_int_equal(ps_buf_putc(&b, '\0'), 0);
                assert_int_equal(ps_buf_printf(&b, " here.</p>\n"), 0);
            }
            assert_int_equal(ps_buf_printf(&b, "<p>The last paragraph.</p></body></html>"), 0);
            ps_error err = {0};
            ps_page *pg = ps_page_parse(b.data, b.len, NULL, &err);
            if (!pg)
                fail_msg("charset %d packed %d: %s", h, packed, err.msg);
            size_t len;
            char *t = ps_page_text(pg, NULL, &len);
            assert_non_null(strstr(t, "Paragraph 0 of the article"));
            assert_non_null(strstr(t, "The last paragraph."));
            size_t fffd = 0;
            for (const char *p = t; (p = strstr(p, "\xEF\xBF\xBD")); p += 3)
                fffd++;
            assert_int_equal(fffd, 64);
            if (!packed)
                assert_non_null(strstr(t, "Paragraph 63 of the article, with a damaged byte\xEF\xBF\xBD here."));
            free(t);
            ps_page_free(pg);
            ps_buf_free(&b);
        }
    }
    /* a page that is mostly NULs, or a NUL-padded binary header, is still
     * binary data */
    char z[2048] = "<html><body>";
    ps_error err = {0};
    assert_null(ps_page_parse(z, sizeof z, NULL, &err));
    assert_non_null(strstr(err.msg, "binary"));
}

/* Issue 32 defect 6: libxml2 nests what follows an <embed> (<source>,
 * <track>, <wbr>, ...) without an end tag inside it, and the clean step
 * removed the embed with the rest of the article, status ok.  A void
 * element holds nothing: its wrongly nested children are its following
 * siblings.  A generated article of 40 paragraphs with the void element
 * after the second, bare, hidden, inside a paragraph, nested in itself. */
static void test_void_elements_hold_nothing(void **state)
{
    (void)state;
    static const char *const voids[] = {"<embed src=movie.swf type=application/x-shockwave-flash>",
                                        "<embed src=a.swf hidden>",
                                        "<embed style='display:none'>",
                                        "<source src=a.mp4>",
                                        "<track src=a.vtt>",
                                        "<wbr>",
                                        "<keygen>",
                                        "<bgsound src=a.wav>",
                                        "<embed><embed><source><embed>"};
    for (size_t k = 0; k < sizeof voids / sizeof *voids; k++) {
        for (int inside = 0; inside < 2; inside++) {
            ps_buf b = {0};
            assert_int_equal(ps_buf_printf(&b, "<html><head><meta charset=utf-8><title>t</title></head><body>"
                                               "<div id=article><h1>The headline</h1>"), 0);
            for (int i = 0; i < 40; i++) {
                if (i == 2 && !inside)
                    assert_int_equal(ps_buf_printf(&b, "%s", voids[k]), 0);
                assert_int_equal(ps_buf_printf(&b, "<p>Paragraph %d of the article, long enough to be text "
                                                   "a reader wants to keep.</p>\n", i), 0);
                if (i == 2 && inside) { /* inside a paragraph: the next <p> nests too */
                    b.len -= strlen("</p>\n");
                    assert_int_equal(ps_buf_printf(&b, " Then %s the rest.</p>\n", voids[k]), 0);
                }
            }
            assert_int_equal(ps_buf_printf(&b, "</div><p>After the article.</p></body></html>"), 0);
            ps_error err = {0};
            ps_page *pg = ps_page_parse(b.data, b.len, NULL, &err);
            if (!pg)
                fail_msg("%s: %s", voids[k], err.msg);
            size_t len;
            char *t = ps_page_text(pg, NULL, &len);
            for (int i = 0; i < 40; i++) {
                char want[64];
                snprintf(want, sizeof want, "Paragraph %d of the article", i);
                if (!strstr(t, want))
                    fail_msg("%s (inside %d): '%s' lost; text:\n%s", voids[k], inside, want, t);
            }
            assert_non_null(strstr(t, "After the article."));
            if (inside)
                assert_non_null(strstr(t, "the rest."));
            free(t);
            ps_page_free(pg);
            ps_buf_free(&b);
        }
    }
    /* what libxml2 put in a void element is never its own: a hidden embed
     * does not hide it */
    ps_page *pg = parse_str("<html><body><p>Shown.<embed hidden><p>Also shown.</p></body></html>");
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_non_null(strstr(t, "Also shown."));
    free(t);
    ps_page_free(pg);
}

/* Attribute names a browser's HTML5 parser reads and libxml2 2.9.14 does
 * not (Alpine's and Vue's "@click", Angular's "(click)", "[value]" and
 * "#ref", a digit or a non-ASCII letter first, an '@' inside): libxml2 ended
 * the tag at the next '>', even inside the quoted value, so the rest of the
 * tag became text ("() => menu.focus()) ...") and the attributes after the
 * name were lost (a "hidden" showed its element).  Neither now. */
static void test_framework_attribute_names(void **state)
{
    (void)state;
    static const char *const names[] = {"@click.prevent", "(click)", "[value]", "#ref", "1st", "\xc3\xa9t\xc3\xa9",
                                        "x@y"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        ps_buf b = {0};
        assert_int_equal(ps_buf_printf(&b,
                                       "<html><body><p>First paragraph of the page.</p>"
                                       "<button %s=\"open = !open; $nextTick(() => menu.focus())\" class=m>Menu</button>"
                                       "<div %s=\"a > b\" hidden>Hidden text.</div>"
                                       "<p>Last paragraph of the page.</p></body></html>",
                                       names[k], names[k]),
                         0);
        ps_error err = {0};
        ps_page *pg = ps_page_parse(b.data, b.len, NULL, &err);
        if (!pg)
            fail_msg("%s: %s", names[k], err.msg);
        size_t len;
        char *t = ps_page_text(pg, NULL, &len);
        if (!strstr(t, "First paragraph") || !strstr(t, "Menu") || !strstr(t, "Last paragraph"))
            fail_msg("%s: text lost:\n%s", names[k], t);
        if (strstr(t, "focus") || strstr(t, "class=") || strstr(t, "Hidden text"))
            fail_msg("%s: the tag leaked into the text or its hidden was lost:\n%s", names[k], t);
        free(t);
        ps_page_free(pg);
        ps_buf_free(&b);
    }
}

/* "<script .../>" and "<style/>": HTML5 ignores the '/' and reads what
 * follows, up to the end tag, as the script's; libxml2 2.9.14 closed the
 * element and the code became page text (a recipe page: 7 KB of
 * JavaScript among its text).  Inside SVG and MathML "/>" closes: an
 * icon's "<style/>" holds nothing of the page after it. */
static void test_self_closed_script_holds_its_code(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><p>First paragraph of the page.</p>"
                            "<SCRIPT language=JavaScript type=\"text/javascript\" />InitWizard(\"a64\");</SCRIPT>"
                            "<p>Second paragraph.</p><style/>p { color: red }</style><p>Third paragraph.</p>"
                            "<script src=a.js />var shown = 1;</script>"
                            "<svg viewBox=\"0 0 1 1\"><style/><path d=M0 /></svg><p>Last paragraph.</p>"
                            "</body></html>");
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_non_null(strstr(t, "First paragraph"));
    assert_non_null(strstr(t, "Second paragraph."));
    assert_non_null(strstr(t, "Third paragraph."));
    assert_non_null(strstr(t, "Last paragraph."));
    if (strstr(t, "InitWizard") || strstr(t, "color") || strstr(t, "shown"))
        fail_msg("a self-closed script's or style's content is page text:\n%s", t);
    free(t);
    ps_page_free(pg);
}

static void test_deep_nesting_does_not_crash(void **state)
{
    (void)state;
    /* under the depth bound (PS_PAGE_MAX_DEPTH); deeper pages are refused
     * (tests/test_page_bounds.c) */
    size_t depth = PS_PAGE_MAX_DEPTH - 10;
    char *s = malloc(depth * 5 + 64);
    size_t k = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(s + k, "<div>", 5);
        k += 5;
    }
    strcpy(s + k, "deep text");
    ps_error err;
    ps_page *pg = ps_page_parse(s, strlen(s), NULL, &err);
    assert_non_null(pg);
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "deep text\n");
    free(t);
    ps_page_free(pg);
    free(s);
}

/* ps_page_parse_taking (what the batch parses with): the page of bytes it
 * took is the page ps_page_parse makes of a copy, and the bytes are freed
 * on every path — parsed, refused before parsing, none at all (the leak
 * checker of the sanitizer build sees the rest). */
static void test_parse_taking_frees_the_bytes(void **state)
{
    (void)state;
    static const char html[] = "<html><head><title>T</title></head><body><div><p>One paragraph of text "
                               "here.</p></div><div><a href=/x>a link</a></div></body></html>";
    ps_error err = {0};
    ps_page *ref = ps_page_parse(html, sizeof html - 1, NULL, &err);
    ps_page *pg = ps_page_parse_taking(strdup(html), sizeof html - 1, NULL, &err);
    assert_non_null(ref);
    assert_non_null(pg);
    size_t na, nb;
    char *a = ps_page_text(ref, NULL, &na), *b = ps_page_text(pg, NULL, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
    assert_int_equal(ps_page_blocks(ref, &na) != NULL, ps_page_blocks(pg, &nb) != NULL);
    assert_int_equal(na, nb);
    ps_page_free(ref);
    ps_page_free(pg);
    char *bin = malloc(512);
    for (size_t i = 0; i < 512; i++)
        bin[i] = (char)(i * 7 % 256);
    assert_null(ps_page_parse_taking(bin, 512, NULL, &err));
    assert_non_null(strstr(err.msg, "binary"));
    ps_page_options small = {.max_bytes = 10};
    assert_null(ps_page_parse_taking(strdup(html), sizeof html - 1, &small, &err));
    assert_int_equal(err.code, PS_ERR_TOO_LARGE);
    pg = ps_page_parse_taking(NULL, 0, NULL, &err);
    assert_non_null(pg);
    ps_page_free(pg);
}

static void test_large_page(void **state)
{
    (void)state;
    /* 50 MB page: parses (or is refused by a limit) without crashing;
     * 80 000 paragraphs, under PS_PAGE_MAX_ELEMENTS */
    const char *para = "<p>Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times. "
                       "Some paragraph text of a very long page, repeated many times.</p>\n";
    size_t pl = strlen(para), n = (50u << 20) / pl;
    char *s = malloc(n * pl + 32);
    char *p = s;
    p += sprintf(p, "<html><body>");
    for (size_t i = 0; i < n; i++, p += pl)
        memcpy(p, para, pl);
    *p = '\0';
    ps_error err;
    ps_page *pg = ps_page_parse(s, (size_t)(p - s), NULL, &err);
    assert_non_null(pg);
    assert_true(ps_page_totals(pg).text_chars > 40u * 1000 * 1000);
    ps_page_free(pg);
    ps_page_options o = {0};
    o.max_bytes = 1 << 20;
    pg = ps_page_parse(s, (size_t)(p - s), &o, &err);
    assert_null(pg);
    assert_int_equal(err.code, PS_ERR_TOO_LARGE);
    free(s);
}

static void test_site_key(void **state)
{
    (void)state;
    char k[256];
    assert_int_equal(ps_site_key("http://User@WWW.Example.com:8080/a/b?x", PS_SITE_HOST, k, sizeof k), 0);
    assert_string_equal(k, "www.example.com");
    assert_int_equal(ps_site_key("https://blogs.wsj.com/economics/2012/x", PS_SITE_HOST_PATH1, k, sizeof k), 0);
    assert_string_equal(k, "blogs.wsj.com/economics");
    assert_int_equal(ps_site_key("no-scheme.html", PS_SITE_HOST, k, sizeof k), -1);
    assert_string_equal(k, "");
    assert_int_equal(ps_site_key("", PS_SITE_HOST, k, sizeof k), -1);
}

/* A link left open: libxml2 nests the page under it; its text is not link
 * text (the inner, real links still are), so the article keeps link
 * density 0 as a browser would show it. */
static void test_unclosed_link_is_not_link_text(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><a href=/top><img src=logo.gif>"
                            "<div><a href=/x>Home</a> <a href=/y>About</a></div>"
                            "<div><p>The article text, long enough to matter, with no link in "
                            "it at all.</p></div></body></html>");
    assert_non_null(pg);
    size_t nl;
    const ps_leaf *l = ps_page_leaves(pg, &nl);
    int seen = 0;
    for (size_t i = 0; i < nl; i++) {
        if (strstr(l[i].text, "article text")) {
            assert_int_equal(l[i].in_link, 0);
            seen |= 1;
        }
        if (strcmp(l[i].text, "Home") == 0) {
            assert_int_equal(l[i].in_link, 1);
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    ps_counts t = ps_page_totals(pg);
    assert_int_equal(t.link_chars, 9); /* Home, About */
    assert_int_equal(t.links, 3);      /* the open one counts as a link element */
    ps_page_free(pg);

    /* a link around a block (a teaser card) stays a link */
    pg = parse_str("<html><body><a href=/story><div><h3>A teaser headline</h3></div></a>"
                   "</body></html>");
    assert_non_null(pg);
    l = ps_page_leaves(pg, &nl);
    assert_int_equal(nl, 1);
    assert_int_equal(l[0].in_link, 1);
    ps_page_free(pg);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_blocks_excluded),
        cmocka_unit_test(test_block_words),
        cmocka_unit_test(test_cjk_counts_characters),
        cmocka_unit_test(test_whitespace_collapsed_and_formatting_transparent),
        cmocka_unit_test(test_text_keeps_document_order_around_links),
        cmocka_unit_test(test_remove_leaf_updates_counts),
        cmocka_unit_test(test_scripts_styles_comments_removed),
        cmocka_unit_test(test_form_controls_are_not_text),
        cmocka_unit_test(test_paths_stable_across_block_tags),
        cmocka_unit_test(test_data_table_is_one_block),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_nul_bytes_are_text),
        cmocka_unit_test(test_void_elements_hold_nothing),
        cmocka_unit_test(test_deep_nesting_does_not_crash),
        cmocka_unit_test(test_parse_taking_frees_the_bytes),
        cmocka_unit_test(test_large_page),
        cmocka_unit_test(test_site_key),
        cmocka_unit_test(test_unclosed_link_is_not_link_text),
        cmocka_unit_test(test_framework_attribute_names),
        cmocka_unit_test(test_self_closed_script_holds_its_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
