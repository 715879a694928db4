/* tests/test_tree.c — the compact tree (extract/tree.c) is the DOM libxml2
 * builds from the same bytes with the page model's options, node for node:
 * on hand-written pages of what the parser decides from the tree (white
 * space kept or dropped by the open element's last child, texts joined or
 * split by comments, script content, valueless and boolean attributes,
 * misplaced tags, a second root, prefixed names, text outside every
 * element), on every page of the bundled sample and, with ../shared, on
 * every page of every data set.  So is the DOM made back from the tree
 * (ps_tree_dom), serialised byte for byte as the parsed one. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

#include "common/util.h"
#include "extract/page_internal.h"
#include "extract/tree.h"
#include "pagesift/dataset.h"
#include "pagesift/page.h"
#include "tests/test_util.h"

/* the options of ps_page_parse (extract/page.c) */
#define OPTIONS                                                                                               \
    (HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | \
     HTML_PARSE_COMPACT | XML_PARSE_HUGE | HTML_PARSE_NOBLANKS)

/* The document's nodes serialised as HTML (its DTD left out). */
static xmlChar *dump(htmlDocPtr doc)
{
    xmlBufferPtr b = xmlBufferCreate();
    assert_non_null(b);
    /* grown by doubling: the default (exact) scheme copies the whole buffer
     * on each append, quadratic on a 5 MB page (minutes under ASan) */
    xmlBufferSetAllocationScheme(b, XML_BUFFER_ALLOC_DOUBLEIT);
    for (xmlNodePtr c = doc->children; c; c = c->next)
        if (c->type != XML_DTD_NODE)
            htmlNodeDump(b, doc, c);
    xmlChar *s = xmlStrdup(xmlBufferContent(b));
    xmlBufferFree(b);
    return s;
}

/* Parse @p html both ways; the difference, or NULL.  The DOM made from the
 * tree (ps_tree_dom, for the tools that need one) is the tree again and
 * serialises as the parsed DOM does, byte for byte. */
static char *compare(const char *html, size_t len)
{
    static char why[512];
    ps_xml_failed_reset();
    htmlDocPtr doc = ps_xml_read(html, len, NULL, OPTIONS);
    ps_tree *t = ps_tree_parse(html, len, NULL, OPTIONS);
    htmlDocPtr made = t ? ps_tree_dom(t, NULL, NULL) : NULL;
    char *r = NULL;
    if (!doc || !t || !made) {
        snprintf(why, sizeof why, "parse failed: DOM %s, tree %s, made %s", doc ? "ok" : "NULL", t ? "ok" : "NULL",
                 made ? "ok" : "NULL");
        r = why;
    } else if (ps_tree_differs(t, doc, why, sizeof why)) {
        r = why;
    } else if (ps_tree_differs(t, made, why, sizeof why)) {
        r = why;
    } else {
        xmlChar *a = dump(doc), *b = dump(made);
        if (!a || !b || strcmp((char *)a, (char *)b) != 0) {
            size_t k = 0;
            while (a && b && a[k] && a[k] == b[k])
                k++;
            snprintf(why, sizeof why, "the DOM made from the tree serialises otherwise at byte %zu: \"%.40s\" / \"%.40s\"",
                     k, a ? (char *)a + k : "", b ? (char *)b + k : "");
            r = why;
        }
        xmlFree(a);
        xmlFree(b);
    }
    if (doc)
        xmlFreeDoc(doc);
    if (made)
        xmlFreeDoc(made);
    ps_tree_free(t);
    return r;
}

/* The page decoded as the page model decodes it (valid UTF-8, no NUL, a NUL
 * after it), parsed in place (ps_tree_parse_utf8) and through libxml2's
 * UTF-8 copy (the DOM of ps_xml_read): the difference, or NULL. */
static char *compare_in_place(const char *html, size_t len)
{
    static char why[512];
    ps_decoded dec;
    ps_error err;
    if (ps_decode(html, len, NULL, &dec, &err) != 0) {
        snprintf(why, sizeof why, "decode failed: %.400s", err.msg);
        return why;
    }
    ps_xml_failed_reset();
    htmlDocPtr doc = ps_xml_read(dec.utf8, dec.len, NULL, OPTIONS);
    ps_tree *t = ps_tree_parse_utf8(dec.utf8, dec.len, NULL, OPTIONS);
    char *r = NULL;
    if (!doc != !t) {
        snprintf(why, sizeof why, "DOM %s, tree in place %s", doc ? "parsed" : "failed", t ? "parsed" : "failed");
        r = why;
    } else if (doc && ps_tree_differs(t, doc, why, sizeof why)) {
        r = why;
    }
    if (doc)
        xmlFreeDoc(doc);
    ps_tree_free(t);
    free(dec.utf8);
    return r;
}

static void same(const char *html)
{
    char *why = compare(html, strlen(html));
    if (!why)
        why = compare_in_place(html, strlen(html));
    if (why)
        fail_msg("%s\n  page: %s", why, html);
}

/* libxml2 reading a decoded page where it is (ps_tree_parse_utf8, what the
 * page model does) makes the tree its UTF-8 copy makes: non-ASCII text
 * under a <meta charset> that names another charset (not switched to), a
 * byte-order mark, entities, and a page far larger than libxml2's input
 * chunks (its reads past the chunks' ends). */
static void test_in_place(void **state)
{
    (void)state;
    same("<html><head><meta charset=\"iso-8859-1\"><title>Caf\xc3\xa9</title></head>"
         "<body><p>na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80 &eacute;&amp;&#x4e2d;</p></body></html>");
    same("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">"
         "</head><body>\xe2\x80\x9cquoted\xe2\x80\x9d</body></html>");
    same("\xef\xbb\xbf<p>after a byte-order mark</p>");
    same("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><html><body><p>\xc3\xbc</p></body></html>");
    ps_buf b = {0};
    for (int i = 0; i < 6000; i++)
        assert_int_equal(ps_buf_printf(&b, "<div class=\"c%d\"><p>Zeile %d: gr\xc3\xbc\xc3\x9f" "e "
                                           "<!-- %d --><script>var x = \"</p>\";</script></p></div>\n", i, i, i), 0);
    same(b.data);
    ps_buf_free(&b);
}

/* White space: kept or dropped by what the open element's last child is. */
static void test_blanks(void **state)
{
    (void)state;
    same("<html><body><p><b>x</b> <i>y</i></p>  <div> <span>a</span> </div>\n<p> </p></body></html>");
    same("<div>\n  <ul>\n    <li> one </li>\n    <li><a href=x>two</a> </li>\n  </ul>\n</div>");
    same("<table> <tr> <td> a </td> <td><b>b</b> </td> </tr> </table>");
    same("<p>text<!-- c --> <!-- d --> more</p><div><b>x</b><!-- c --> y</div><div><span>s</span><!--c--> </div>");
    same("<div><!-- first --> <p>x</p></div><body> <b>  </b> </body>");
    same("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><html><body> <p>x</p> text </body></html>");
    same("  \n <html> <head> <title> t </title> </head> <body> </body> </html> ");
}

/* Texts joined as SAX2 joins them, split by comments and PIs. */
static void test_texts(void **state)
{
    (void)state;
    same("<p>a &amp; b &lt;c&gt; &nbsp;&copy; &#233;&#x4e2d; &bogus; d</p>");
    same("<p>one<!-- c -->two<?pi x?>three</p>");
    same("<p>x<script>var a = '<b>'; </script>y<style>p { color: red }</style>z</p>");
    same("<head><script>a</script><script>b</script><style></style></head><textarea>a <b> c</textarea>");
    same("text before<html>and after</html> tail <!-- end -->");
}

/* Attributes in order, entities decoded, valueless ones as SAX2 makes them. */
static void test_attributes(void **state)
{
    (void)state;
    same("<input type=checkbox checked disabled data-x hidden value=\"a&amp;b\" id='q'>");
    same("<option selected>x</option><div class=\"a  b\" style=\"display: none\" aria-hidden=true>y</div>");
    same("<a href=\"/x?a=1&b=2\" title=\"&quot;q&quot;\" onclick=\"f('x')\">l</a><img src=x alt>");
    same("<div id=a id=b class=c CLASS=d>duplicate names</div>");
    same("<td nowrap data-empty=\"\" data-none>valueless and empty</td><p title=''>q</p>");
}

/* What the parser repairs: implied, misplaced and unclosed tags. */
static void test_repairs(void **state)
{
    (void)state;
    same("<p>one<p>two<div>three</p>four</div><li>five<li>six");
    same("<html lang=en><body class=a><div>x</div><html class=late><body id=late><p>y</p></body></html>");
    same("<table><tr><td>a<td>b<tr><td>c</table><b><i>x</b>y</i>");
    same("<title>t</title><meta charset=utf-8><p>after head</p><head><title>late</title></head>");
    same("<frameset><frame src=a></frameset><noscript><p>n</p></noscript><embed src=x><p>after embed</p>");
    same("<svg><path d=M0/><text>t</text></svg><math><mi>x</mi></math><br/><hr><p/>");
    same("</p></div>stray end tags<p>x</b></p>");
    /* a second root after </html>: inside the first, unless a doctype or
     * a comment is the document's first child */
    same("<html><body>x</body></html><html><body>y</body></html> <p>z</p>");
    same("<!DOCTYPE html><html><body>x</body></html><html><p>y</p></html>");
    same("<!-- c --><html>x</html><html>y</html><?pi?>");
    /* prefixed names: SAX2 keeps the part after the first ':' */
    same("<div><fb:like href=x></fb:like><o:p>p</o:p><a:>t</a:><:b>u</:b><x:y:z>v</x:y:z><g:plusone/></div>");
    same("");
    same("   \n");
}

/* The n-th element named @p name in document order (1-based), both ways. */
static xmlNodePtr dom_nth(xmlNodePtr n, const char *name, int *k)
{
    for (; n; n = n->next) {
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0 && --*k == 0)
            return n;
        xmlNodePtr f = dom_nth(n->children, name, k);
        if (f)
            return f;
    }
    return NULL;
}

static uint32_t tree_nth(const ps_tree *t, uint32_t n, const char *name, int *k)
{
    for (; n; n = t->nodes[n].next) {
        if (t->nodes[n].type == PS_TN_ELEMENT && strcmp((const char *)t->nodes[n].name, name) == 0 && --*k == 0)
            return n;
        uint32_t f = tree_nth(t, t->nodes[n].first, name, k);
        if (f)
            return f;
    }
    return 0;
}

/* The reshaping calls the page model repairs with do to the tree what
 * libxml2's xmlAddChild / xmlAddPrevSibling do to the DOM, text merges
 * included: the first child of <p> (a text) moved as the last child of
 * <div> or before <div>'s first child / its <b>. */
static void reshape(const char *html, int op)
{
    htmlDocPtr doc = ps_xml_read(html, strlen(html), NULL, OPTIONS);
    ps_tree *t = ps_tree_parse(html, strlen(html), NULL, OPTIONS);
    assert_non_null(doc);
    assert_non_null(t);
    int k;
    xmlNodePtr dd = (k = 1, dom_nth(doc->children, "div", &k)), dp = (k = 1, dom_nth(doc->children, "p", &k));
    xmlNodePtr db = (k = 1, dom_nth(doc->children, "b", &k));
    uint32_t td = (k = 1, tree_nth(t, t->nodes[0].first, "div", &k)), tp = (k = 1, tree_nth(t, t->nodes[0].first, "p", &k));
    uint32_t tb = (k = 1, tree_nth(t, t->nodes[0].first, "b", &k));
    assert_non_null(dd);
    assert_non_null(dp);
    assert_true(td && tp);
    xmlNodePtr dm = dp->children;
    uint32_t tm = t->nodes[tp].first;
    xmlUnlinkNode(dm);
    if (op == 0) {
        xmlAddChild(dd, dm); /* a merged text is freed by it */
        assert_int_equal(ps_tree_add_child(t, td, tm), 0);
    } else {
        xmlNodePtr dref = op == 1 ? dd->children : db;
        uint32_t tref = op == 1 ? t->nodes[td].first : tb;
        xmlAddPrevSibling(dref, dm);
        assert_int_equal(ps_tree_add_prev_sibling(t, tref, tm), 0);
    }
    char why[512];
    if (ps_tree_differs(t, doc, why, sizeof why))
        fail_msg("%s (op %d)\n  page: %s", why, op, html);
    xmlFreeDoc(doc);
    ps_tree_free(t);
}

/* A comment unlinked between two texts (as the page model cleans): the
 * DOM made from the tree keeps the two texts apart, as the DOM the page
 * model cleaned did (the DOM baselines index its texts one by one). */
static void test_dom_of_cleaned(void **state)
{
    (void)state;
    const char *html = "<p>one<!-- c -->two<?pi?>three</p>";
    ps_tree *t = ps_tree_parse(html, strlen(html), NULL, OPTIONS);
    assert_non_null(t);
    int k = 1;
    uint32_t p = tree_nth(t, t->nodes[0].first, "p", &k);
    assert_true(p);
    for (uint32_t c = t->nodes[p].first, next; c; c = next) {
        next = t->nodes[c].next;
        if (t->nodes[c].type == PS_TN_COMMENT || t->nodes[c].type == PS_TN_PI)
            ps_tree_unlink(t, c);
    }
    htmlDocPtr made = ps_tree_dom(t, NULL, NULL);
    assert_non_null(made);
    char why[512];
    if (ps_tree_differs(t, made, why, sizeof why))
        fail_msg("%s", why);
    k = 1;
    xmlNodePtr dp = dom_nth(made->children, "p", &k);
    assert_non_null(dp);
    int texts = 0;
    for (xmlNodePtr c = dp->children; c; c = c->next)
        texts += c->type == XML_TEXT_NODE;
    assert_int_equal(texts, 3);
    xmlFreeDoc(made);
    ps_tree_free(t);
}

static void test_reshape(void **state)
{
    (void)state;
    reshape("<div>a<b>x</b>c</div><p>moved</p>", 0);     /* after a text: merged into it */
    reshape("<div>a<b>x</b></div><p>moved</p>", 0);      /* after an element: linked */
    reshape("<div>first<b>x</b></div><p>moved</p>", 1);  /* before a text: merged in front */
    reshape("<div><b>x</b>c</div><p>moved</p>", 1);      /* before an element, nothing before */
    reshape("<div>a<b>x</b>c</div><p>moved</p>", 2);     /* before <b>, after a text: not merged */
    reshape("<div><i>i</i><b>x</b></div><p>moved</p>", 2); /* before <b>, after an element */
}

static int each_page(const char *dir, int (*fn)(const char *path, void *), void *user)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int n = 0;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 256;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (fn(path, user))
            n++;
        free(names[i]);
    }
    free(names);
    return n;
}

typedef struct {
    size_t pages, bytes, differ;
} tally;

static int check_file(const char *path, void *user)
{
    tally *y = user;
    ps_error err;
    size_t len;
    char *html = ps_read_page_file(path, 0, &len, &err);
    if (!html)
        return 0;
    char *why = compare(html, len);
    if (!why)
        why = compare_in_place(html, len);
    y->pages++;
    y->bytes += len;
    if (why) {
        if (y->differ++ < 5)
            print_message("%s: %s\n", path, why);
    }
    free(html);
    return why != NULL;
}

static void test_sample(void **state)
{
    (void)state;
    tally y = {0};
    each_page(PS_SOURCE_DIR "/datasets/sample/html", check_file, &y);
    print_message("sample: %zu pages, %zu bytes, %zu differ\n", y.pages, y.bytes, y.differ);
    assert_true(y.pages >= 10);
    assert_int_equal(y.differ, 0);
}

static void test_shared_sets(void **state)
{
    (void)state;
    static const char *sets[] = {"cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "netease",
                                 "readability", "trafilatura-eval", "wcxb-dev"};
    char dir[4096];
    if (!shared_dataset("dragnet", dir, sizeof dir))
        skip();
    tally all = {0};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        tally y = {0};
        snprintf(dir, sizeof dir, "%s/datasets/%s/html", PS_SHARED_DIR, sets[i]);
        each_page(dir, check_file, &y);
        print_message("%s: %zu pages, %zu bytes, %zu differ\n", sets[i], y.pages, y.bytes, y.differ);
        all.pages += y.pages, all.bytes += y.bytes, all.differ += y.differ;
    }
    assert_true(all.pages > 4000);
    assert_int_equal(all.differ, 0);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blanks),     cmocka_unit_test(test_texts),  cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_repairs),    cmocka_unit_test(test_reshape), cmocka_unit_test(test_dom_of_cleaned),
        cmocka_unit_test(test_in_place), cmocka_unit_test(test_sample), cmocka_unit_test(test_shared_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
