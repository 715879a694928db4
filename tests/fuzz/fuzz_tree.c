/* tests/fuzz/fuzz_tree.c — libFuzzer target: arbitrary bytes parsed twice,
 * into libxml2's DOM (ps_xml_read, the page model's options) and into the
 * compact tree built from SAX events (extract/tree.c); the two must be the
 * same node for node (ps_tree_differs), so must the DOM made back from the
 * tree (ps_tree_dom), and neither may crash, leak or
 * read out of bounds.  Then the bytes decoded as the page model decodes
 * them, read in place (ps_tree_parse_utf8: no UTF-8 copy), against the DOM
 * of the same text read through libxml2's copy.  A difference aborts with both parses' first
 * divergence on stderr.  Built by scripts/fuzz. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <libxml/tree.h>

#include "extract/page_internal.h"
#include "extract/tree.h"
#include "pagesift.h"
#include "pagesift/page.h"

#define OPTIONS                                                                                               \
    (HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | \
     HTML_PARSE_COMPACT | XML_PARSE_HUGE | HTML_PARSE_NOBLANKS)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        ps_init();
        ready = 1;
    }
    /* the page guard's bounds (depth above all: ps_tree_differs recurses)
     * hold for what the page model parses; pages past them are refused */
    ps_page_guard_stats gs;
    ps_error err;
    if (ps_page_guard((const char *)data, size, &gs, &err) != 0)
        return 0;
    free(gs.fixes);
    ps_xml_failed_reset();
    htmlDocPtr doc = ps_xml_read((const char *)data, size, NULL, OPTIONS);
    ps_tree *t = ps_tree_parse((const char *)data, size, NULL, OPTIONS);
    char why[512];
    if (doc && t && ps_tree_differs(t, doc, why, sizeof why)) {
        fprintf(stderr, "fuzz_tree: the tree is not the DOM: %s\n", why);
        abort();
    }
    htmlDocPtr made = t ? ps_tree_dom(t, NULL, NULL) : NULL;
    if (made && ps_tree_differs(t, made, why, sizeof why)) {
        fprintf(stderr, "fuzz_tree: the DOM made from the tree is not the tree: %s\n", why);
        abort();
    }
    if (made)
        xmlFreeDoc(made);
    if (!doc != !t) {
        fprintf(stderr, "fuzz_tree: DOM %s, tree %s\n", doc ? "parsed" : "failed", t ? "parsed" : "failed");
        abort();
    }
    if (doc)
        xmlFreeDoc(doc);
    ps_tree_free(t);
    /* the bytes decoded as the page model decodes them, read in place by
     * libxml2 (ps_tree_parse_utf8): the tree its UTF-8 copy makes */
    ps_decoded dec;
    if (ps_decode(data, size, NULL, &dec, &err) != 0)
        return 0;
    if (ps_page_guard(dec.utf8, dec.len, &gs, &err) == 0) {
        free(gs.fixes);
        ps_xml_failed_reset();
        doc = ps_xml_read(dec.utf8, dec.len, NULL, OPTIONS);
        t = ps_tree_parse_utf8(dec.utf8, dec.len, NULL, OPTIONS);
        if (!doc != !t || (doc && ps_tree_differs(t, doc, why, sizeof why))) {
            fprintf(stderr, "fuzz_tree: the tree read in place is not the DOM: %s\n", doc && t ? why : "one failed");
            abort();
        }
        if (doc)
            xmlFreeDoc(doc);
        ps_tree_free(t);
    }
    free(dec.utf8);
    return 0;
}
