/* tests/test_page_view.c — the page as a browser shows it (issue 14):
 * hidden elements left out, scripts ended where a browser ends them, ruby
 * readings left out, and
 * the marks the features read around each block (class/id words as whole
 * tokens, halved per level up; HTML5 sections; figures; captions by their
 * place after an image and by a copyright sign). */
#include <stdlib.h>

#include "pagesift/features.h"
#include "tests/test_util.h"
#include "pagesift/page.h"

static char *page_text(ps_page *pg)
{
    size_t nb, len;
    ps_page_blocks(pg, &nb);
    uint8_t *all = malloc(nb + 1);
    assert_non_null(all);
    memset(all, 1, nb + 1);
    char *t = ps_page_text(pg, all, &len);
    free(all);
    assert_non_null(t);
    return t;
}

/* The block whose class attribute is @p cls. */
static const ps_block *block_of_class(const ps_page *pg, const char *cls)
{
    size_t nb;
    const ps_block *b = ps_page_blocks(pg, &nb);
    for (size_t i = 0; i < nb; i++)
        if (strcmp(b[i].class_attr, cls) == 0)
            return &b[i];
    fail_msg("no block of class '%s'", cls);
    return NULL;
}

static void test_hidden_elements_left_out(void **state)
{
    (void)state;
    ps_page *pg = parse_str(
        "<html><body><div><p>Shown paragraph of the article, long enough to be the page.</p>"
        "<div style='display: none'>Hidden metadata copy</div>"
        "<span hidden>Hidden by attribute</span>"
        "<div aria-hidden=\"true\">Screen readers skip this</div>"
        "<p style='color:red;VISIBILITY : hidden'>Invisible line</p>"
        "<div style='display:none-ish'>Not a real none</div>"
        "<div style='display:block'>Block shown</div>"
        "<div aria-hidden='false'>Shown to all</div></div></body></html>");
    assert_non_null(pg);
    char *t = page_text(pg);
    assert_non_null(strstr(t, "Shown paragraph"));
    assert_non_null(strstr(t, "Block shown"));
    assert_non_null(strstr(t, "Shown to all"));
    assert_non_null(strstr(t, "Not a real none"));
    assert_null(strstr(t, "Hidden metadata"));
    assert_null(strstr(t, "Hidden by attribute"));
    assert_null(strstr(t, "Screen readers"));
    assert_null(strstr(t, "Invisible line"));
    /* hidden text counts nowhere: no link or text totals from it */
    ps_counts tot = ps_page_totals(pg);
    assert_int_equal(tot.text_chars, strlen("Shown paragraph of the article, long enough to be the page.") +
                                         strlen("Not a real none") + strlen("Block shown") +
                                         strlen("Shown to all"));
    free(t);
    ps_page_free(pg);
}

/* A page whose article a script reveals (display:none until loaded) keeps
 * it: more hidden text than shown means the hidden part is the content. */
static void test_mostly_hidden_page_kept(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div>Menu</div><div style='display:none'><p>The whole "
                            "article, which a script shows once the page has loaded.</p></div>"
                            "</body></html>");
    assert_non_null(pg);
    char *t = page_text(pg);
    assert_non_null(strstr(t, "The whole article"));
    assert_non_null(strstr(t, "Menu"));
    free(t);
    ps_page_free(pg);
}

/* Hidden content by its role: a closed tab, accordion or FAQ panel is
 * content a person opens with one click (kept); a closed dialog, modal or
 * lightbox is not, not even when the page's hidden text outweighs its shown
 * text (no re-walk lets it in); an element whose role says dialog
 * (role=dialog/alertdialog, aria-modal) is a layer over the page even
 * without a hiding attribute (a script toggles it), while <dialog open>
 * is shown; a class that hides (d-none, a desktop-hidden
 * copy of a responsive layout) is hidden like display:none. */
static void test_hidden_panels_kept_dialogs_dropped(void **state)
{
    (void)state;
    ps_page *pg = parse_str(
        "<html><body><div><p>Product description shown on the page, the visible part.</p>"
        "<div role='tabpanel' hidden><p>Specifications in a closed tab</p></div>"
        "<div class='faq-answer' style='display:none'><p>Answer behind the FAQ question</p></div>"
        "<div class='c-accordion__panel' aria-hidden='true'>Accordion body text</div>"
        "<div role='dialog' aria-modal='true' style='display:none'><p>Terms of the shop in a modal</p></div>"
        "<div class='lightbox-dialog' hidden>Image viewer caption</div>"
        "<dialog><p>A dialog element without open</p></dialog>"
        "<dialog open><p>An open dialog</p></dialog>"
        "<div id='modal-privacy-policy' aria-modal='true' class='fixed inset-0'><p>Privacy policy layer "
        "a script opens</p></div>"
        "<div role='alertdialog'><p>Cookie choices shown over the page</p></div>"
        "<div class='d-none'>Bootstrap hidden copy</div>"
        "<div class='menu hide-on-desktop'>Mobile menu copy</div>"
        "<div class='hide-on-mobile'>Desktop layout text</div>"
        "</div></body></html>");
    assert_non_null(pg);
    char *t = page_text(pg);
    assert_non_null(strstr(t, "Product description"));
    assert_non_null(strstr(t, "Specifications in a closed tab"));
    assert_non_null(strstr(t, "Answer behind the FAQ"));
    assert_non_null(strstr(t, "Accordion body text"));
    assert_non_null(strstr(t, "An open dialog"));
    assert_non_null(strstr(t, "Desktop layout text"));
    assert_null(strstr(t, "Terms of the shop"));
    assert_null(strstr(t, "Image viewer"));
    assert_null(strstr(t, "without open"));
    assert_null(strstr(t, "Privacy policy layer"));
    assert_null(strstr(t, "Cookie choices"));
    assert_null(strstr(t, "Bootstrap hidden"));
    assert_null(strstr(t, "Mobile menu copy"));
    free(t);
    ps_page_free(pg);
    /* a closed terms modal far longer than the page: the page is not
     * walked again with its hidden parts (the modal would double it) */
    char big[4096] = "<html><body><p>Short shown product page.</p><div role='dialog' "
                     "aria-modal='true' hidden><p>";
    for (int i = 0; i < 60; i++)
        strcat(big, "Terms and conditions. ");
    strcat(big, "</p></div><div class='accordion' hidden>Hidden accordion answer</div></body></html>");
    pg = parse_str(big);
    assert_non_null(pg);
    t = page_text(pg);
    assert_non_null(strstr(t, "Short shown product page."));
    assert_non_null(strstr(t, "Hidden accordion answer"));
    assert_null(strstr(t, "Terms and conditions"));
    free(t);
    ps_page_free(pg);
}

/* A hidden schema.org microdata copy of the article (display:none with
 * itemscope, holding itemprop=articleBody) is for machines: it neither
 * shows nor makes the page walk again with its hidden parts (which would
 * double the article's text). */
static void test_hidden_microdata_copy_dropped(void **state)
{
    (void)state;
    char html[8192] = "<html><body><article><h1>Headline</h1><p>The article as the reader sees it.</p>"
                      "</article><div style='display:none' itemscope itemtype='https://schema.org/NewsArticle'>"
                      "<div itemprop='articleBody'>";
    for (int i = 0; i < 40; i++)
        strcat(html, "The article again, for search engines. ");
    strcat(html, "</div></div></body></html>");
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    char *t = page_text(pg);
    assert_non_null(strstr(t, "The article as the reader sees it."));
    assert_null(strstr(t, "for search engines"));
    free(t);
    ps_page_free(pg);
}

/* libxml2 ends a script at its first "</script"; a browser does not when
 * the script opened an HTML comment and writes a script tag as a string. */
static void test_script_ends_where_a_browser_ends_it(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><script><!--\n"
                            "document.write(\"<script src='x.js'></script>\");\n"
                            "var data = {\"text\": \"JSON that is not page text\"};\n"
                            "//--></script><p>Visible text</p>"
                            "<script>var s = '</scr' + 'ipt>';</script><p>After</p></body></html>");
    assert_non_null(pg);
    char *t = page_text(pg);
    assert_null(strstr(t, "JSON"));
    assert_null(strstr(t, "document.write"));
    assert_non_null(strstr(t, "Visible text"));
    assert_non_null(strstr(t, "After"));
    free(t);
    ps_page_free(pg);
}

/* Ruby annotations (furigana readings above Japanese text, <rt>, and the
 * fallback parentheses <rp>) are not running text: 子どもの体罰 stays one
 * word run, not 子こどもの体罰たいばつ. */
static void test_ruby_readings_left_out(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><p><ruby>子<rp>(</rp><rt>こ</rt></ruby>どもの"
                            "<ruby>体罰<rt>たいばつ</rt></ruby>を禁止する</p></body></html>");
    assert_non_null(pg);
    char *t = page_text(pg);
    assert_non_null(strstr(t, "子どもの体罰を禁止する"));
    assert_null(strstr(t, "たいばつ"));
    assert_null(strstr(t, "("));
    free(t);
    ps_page_free(pg);
}

/* Whole tokens, split at - _ and camelCase: "subscriber" is not
 * "subscribe", "canvas" holds no "nav", "header" no "ad". */
static void test_class_words_are_whole_tokens(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body>"
                            "<div class='subscriber-premium'>a</div>"
                            "<div class='canvas-wrap'>b</div>"
                            "<div class='post-sharing'>c</div>"
                            "<div class='adBox'>d</div>"
                            "<div class='wp-caption-text'>e</div>"
                            "<div class='articleBody'>f</div>"
                            "<div class='user-comments'>g</div>"
                            "</body></html>");
    assert_non_null(pg);
    assert_true(block_of_class(pg, "subscriber-premium")->cls[PS_CLS_NOISE] == 0.0f);
    assert_true(block_of_class(pg, "canvas-wrap")->cls[PS_CLS_NOISE] == 0.0f);
    assert_true(block_of_class(pg, "post-sharing")->cls[PS_CLS_NOISE] == 1.0f);
    assert_true(block_of_class(pg, "post-sharing")->cls[PS_CLS_CONTENT] == 1.0f);
    assert_true(block_of_class(pg, "adBox")->cls[PS_CLS_NOISE] == 1.0f);
    assert_true(block_of_class(pg, "wp-caption-text")->cls[PS_CLS_CAPTION] == 1.0f);
    assert_true(block_of_class(pg, "articleBody")->cls[PS_CLS_CONTENT] == 1.0f);
    assert_true(block_of_class(pg, "user-comments")->cls[PS_CLS_COMMENT] == 1.0f);
    ps_page_free(pg);
}

/* A site-wide word on <body> or an outer wrapper barely marks the blocks
 * far below it; one just above a block marks it. */
static void test_body_class_words_fade_with_distance(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body class='page comments_on use-disqus'>"
                            "<div class='wrap'><div class='inner'><main><article><div class='x'>"
                            "<section class='story'><p>Article text.</p></section></div></article></main>"
                            "</div></div>"
                            "<div id='comments'><ol><li><div class='said'>A reader's comment.</div>"
                            "</li></ol></div></body></html>");
    assert_non_null(pg);
    const ps_block *story = block_of_class(pg, "story");
    const ps_block *said = block_of_class(pg, "said");
    assert_true(story->cls[PS_CLS_COMMENT] < 0.05f);
    assert_true(story->cls[PS_CLS_CONTENT] == 1.0f);
    assert_true(said->cls[PS_CLS_COMMENT] >= 0.125f);
    assert_int_equal(story->section, PS_SECTION_MAIN);
    assert_int_equal(said->section, PS_SECTION_NONE);
    ps_page_free(pg);
}

static void test_sections_and_figures(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><header><div class='h'>Site name</div></header>"
                            "<div role='main'><div class='a'>Text</div>"
                            "<figure><img src=x><div class='c'>Photo: somebody</div></figure>"
                            "<aside><div class='r'>Related</div></aside></div>"
                            "<div role='navigation'><div class='n'>Home</div></div></body></html>");
    assert_non_null(pg);
    assert_int_equal(block_of_class(pg, "h")->section, PS_SECTION_ASIDE);
    assert_int_equal(block_of_class(pg, "a")->section, PS_SECTION_MAIN);
    assert_int_equal(block_of_class(pg, "a")->in_figure, 0);
    assert_int_equal(block_of_class(pg, "c")->in_figure, 1);
    assert_int_equal(block_of_class(pg, "c")->section, PS_SECTION_MAIN);
    assert_int_equal(block_of_class(pg, "r")->section, PS_SECTION_ASIDE);
    assert_int_equal(block_of_class(pg, "n")->section, PS_SECTION_ASIDE);
    ps_page_free(pg);
}

/* Captions and credits by their place and their sign, whatever the markup:
 * x_after_image is 1 for a block whose first own text comes right after an
 * image (sportnews.bz's <p class="imagedescription"> after a <div><img>; divs
 * here, the default block tags),
 * not for the paragraph after it nor for one with text before its image;
 * x_copyright is 1 for text with a copyright sign. */
static void test_captions_by_place_and_sign(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div class='story'>"
                            "<div class='pic'><a href='big.jpg'><img src='a.jpg'></a></div>"
                            "<div class='cap'>Marco Odermatt, Ski-Star aus der Schweiz. \u00a9 AFP</div>"
                            "<div class='body'>Der Schweizer ist auf dem besten Weg zum Gewinn.</div>"
                            "<div class='mixed'>Vorher <img src='b.jpg'> nachher.</div>"
                            "</div></body></html>");
    assert_non_null(pg);
    int ids[2] = {ps_feature_lookup("x_after_image"), ps_feature_lookup("x_copyright")};
    assert_true(ids[0] >= 0 && ids[1] >= 0);
    size_t nb;
    const ps_block *blocks = ps_page_blocks(pg, &nb);
    double *f = calloc(nb * 2, sizeof *f);
    assert_non_null(f);
    assert_int_equal(ps_page_block_features(pg, ids, 2, f), 0);
    const char *want[][3] = {{"cap", "1", "1"}, {"body", "0", "0"}, {"mixed", "0", "0"}};
    for (size_t w = 0; w < 3; w++) {
        size_t i = (size_t)(block_of_class(pg, want[w][0]) - blocks);
        assert_true(f[i * 2] == atof(want[w][1]));
        assert_true(f[i * 2 + 1] == atof(want[w][2]));
    }
    free(f);
    ps_page_free(pg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hidden_elements_left_out),
        cmocka_unit_test(test_mostly_hidden_page_kept),
        cmocka_unit_test(test_hidden_panels_kept_dialogs_dropped),
        cmocka_unit_test(test_hidden_microdata_copy_dropped),
        cmocka_unit_test(test_script_ends_where_a_browser_ends_it),
        cmocka_unit_test(test_ruby_readings_left_out),
        cmocka_unit_test(test_class_words_are_whole_tokens),
        cmocka_unit_test(test_body_class_words_fade_with_distance),
        cmocka_unit_test(test_sections_and_figures),
        cmocka_unit_test(test_captions_by_place_and_sign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
