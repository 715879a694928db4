/* extract/tree.h — a page's markup as a compact tree, built straight from
 * libxml2's SAX events with no DOM (issue 33's streaming page model, its
 * first step: the tree and its proof of equality to the DOM; the page
 * model's walk, metadata and views still read the DOM).
 *
 * Nodes live in one array and point at each other by index (0: none; node
 * 0 is the document), 40 bytes a node where libxml2's DOM takes 120 for
 * the node, 96 more for each attribute and 120 more for the attribute's
 * text node.  Names are interned strings (a libxml2 dictionary of the
 * tree's own): two names are equal when their pointers are, and
 * ps_tree_name finds a name of the caller's once to compare by pointer
 * after.  libxml2 parses into a page arena (extract/xml_alloc.c), freed
 * with everything the parse left in it once the tree is built.  Text, CDATA and attribute values are bytes
 * in one buffer (not NUL-terminated; a length with each).
 *
 * The tree is the DOM libxml2 builds from the same bytes with the same
 * options, node for node (tests/test_tree.c compares the two on every page
 * of the sample and, with ../shared, of every data set): the same
 * elements, attributes in order, texts joined where the DOM joins them,
 * CDATA (script and style content), comments and processing instructions
 * (kept as nodes without their text: they split texts as in the DOM). */
#ifndef PS_EXTRACT_TREE_H
#define PS_EXTRACT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/HTMLparser.h>

typedef enum {
    PS_TN_DOCUMENT = 0,
    PS_TN_ELEMENT,
    PS_TN_TEXT,
    PS_TN_CDATA,
    PS_TN_COMMENT,
    PS_TN_PI
} ps_tnode_type;

typedef struct ps_tnode {
    uint32_t parent, prev, next, first, last; /**< node indices, 0: none */
    uint32_t type;                            /**< ps_tnode_type */
    uint32_t off, len; /**< text, CDATA: bytes at tree->text + off; element:
                            attributes tree->attrs[off .. off + len) */
    const xmlChar *name; /**< element, PI: interned name; else NULL */
} ps_tnode;

typedef struct ps_tattr {
    const xmlChar *name; /**< interned */
    uint32_t off, len;   /**< value: bytes at tree->text + off */
} ps_tattr;

typedef struct ps_tree {
    ps_tnode *nodes; /**< nodes[0] is the document */
    size_t n_nodes;
    ps_tattr *attrs;
    size_t n_attrs;
    char *text;
    size_t text_len;
    xmlDictPtr dict; /**< the names (the tree's own, see extract/tree.c) */
    struct ps_xml_arena *arena; /**< while parsing: where libxml2 allocates */
    size_t cap_nodes, cap_attrs, cap_text; /**< the arrays' room */
} ps_tree;

/** Parse @p len bytes of UTF-8 markup as ps_xml_read (extract/xml_alloc.c)
 *  would with @p options, into a tree.  NULL when memory ran out or libxml2
 *  could not parse; a page of white space only gives the document alone. */
ps_tree *ps_tree_parse(const char *html, size_t len, const char *url, int options);
void ps_tree_free(ps_tree *t);

/** The interned form of @p name in @p t's dictionary (NULL when no node of
 *  the tree has it, which no element's name then equals). */
const xmlChar *ps_tree_name(const ps_tree *t, const char *name);

/** The value of @p t's element @p i's attribute interned as @p name, its
 *  length in *len; NULL when it has none. */
const char *ps_tree_attr(const ps_tree *t, uint32_t i, const xmlChar *name, size_t *len);

/** 1 when @p t is not the DOM @p doc node for node (as the top says),
 *  with the first difference in @p why; 0 when it is. */
int ps_tree_differs(const ps_tree *t, htmlDocPtr doc, char *why, size_t n);

/** Bytes the tree holds (its arrays as allocated), for the benchmarks. */
size_t ps_tree_bytes(const ps_tree *t);

#endif
