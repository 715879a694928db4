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
 * after.  Text, CDATA, comments, PIs' data and attribute values are bytes
 * in one buffer, each NUL-terminated, with its length.
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

#include "pagesift/util.h"

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
    uint32_t off, len; /**< text, CDATA, comment, PI (its data): bytes at
                            tree->text + off, NUL-terminated; element:
                            attributes tree->attrs[off .. off + len) */
    const xmlChar *name; /**< element, PI: interned name; else NULL */
} ps_tnode;

typedef struct ps_tattr {
    const xmlChar *name; /**< interned */
    uint32_t off, len;   /**< value: bytes at tree->text + off, NUL-terminated */
} ps_tattr;

typedef struct ps_tree {
    ps_tnode *nodes; /**< nodes[0] is the document */
    size_t n_nodes;
    ps_tattr *attrs;
    size_t n_attrs;
    char *text;
    size_t text_len;
    uint32_t *valueless; /**< attributes (indices into attrs, ascending) written
                              without a value (`<td nowrap>`), which the DOM
                              keeps without a text node; a boolean one has its
                              name for value and is not among them */
    size_t n_valueless, cap_valueless;
    xmlDictPtr dict; /**< the names (the tree's own, see extract/tree.c) */
    size_t cap_nodes, cap_attrs, cap_text; /**< the arrays' room */
} ps_tree;

/** Parse @p len bytes of UTF-8 markup as ps_xml_read (extract/xml_alloc.c)
 *  would with @p options, into a tree.  NULL when memory ran out or libxml2
 *  could not parse; a page of white space only gives the document alone. */
ps_tree *ps_tree_parse(const char *html, size_t len, const char *url, int options);
/** ps_tree_parse of bytes that are valid UTF-8 without a NUL and followed
 *  by a NUL (html[len] == 0: a decoded page): libxml2 reads them where they
 *  are, without converting them into a copy; the same tree. */
ps_tree *ps_tree_parse_utf8(const char *html, size_t len, const char *url, int options);
void ps_tree_free(ps_tree *t);

/** The root element (xmlDocGetRootElement: the document's first element
 *  child), 0 when none. */
uint32_t ps_tree_root(const ps_tree *t);

/** Append the texts and CDATA under node @p i, in order, to @p out (what
 *  xmlNodeGetContent gives of an element); -1 when out of memory. */
int ps_tree_content(const ps_tree *t, uint32_t i, ps_buf *out);

/** The interned form of @p name in @p t's dictionary (NULL when no node of
 *  the tree has it, which no element's name then equals). */
const xmlChar *ps_tree_name(const ps_tree *t, const char *name);

/** The value of @p t's element @p i's attribute interned as @p name, its
 *  length in *len; NULL when it has none. */
const char *ps_tree_attr(const ps_tree *t, uint32_t i, const xmlChar *name, size_t *len);

/** The text of node @p i (text, CDATA, comment, a PI's data), NUL-terminated. */
static inline const char *ps_tree_text(const ps_tree *t, uint32_t i)
{
    return t->text + t->nodes[i].off;
}

/** 1 when attribute @p k (an index into t->attrs) was written without a value. */
int ps_tree_valueless(const ps_tree *t, size_t k);

/** Reshaping, as the page model repairs and cleans the tree (the nodes stay
 *  in the array, out of the tree when unlinked: walk the tree by its links,
 *  never the array in index order).  ps_tree_unlink takes @p i (with what
 *  it holds) out of its parent; ps_tree_append makes it the last child of
 *  @p parent, ps_tree_insert_before the sibling before @p ref (unlinked
 *  first in both).  ps_tree_new_element appends a new element named
 *  @p name to @p parent; its index, 0 when out of memory. */
void ps_tree_unlink(ps_tree *t, uint32_t i);
void ps_tree_append(ps_tree *t, uint32_t parent, uint32_t i);
void ps_tree_insert_before(ps_tree *t, uint32_t ref, uint32_t i);
uint32_t ps_tree_new_element(ps_tree *t, uint32_t parent, const char *name);

/** As libxml2's xmlAddChild and xmlAddPrevSibling, whose repairs of the DOM
 *  the page model mirrors: @p i becomes @p parent's last child / the sibling
 *  before @p ref, except that a text next to a text is merged into it
 *  (xmlAddChild: into the parent's last child when that is a text;
 *  xmlAddPrevSibling: in front of @p ref when @p ref is a text, and not
 *  into a text before an element @p ref) and @p i left out of the tree.  -1 when out of memory (the text buffer could not grow). */
int ps_tree_add_child(ps_tree *t, uint32_t parent, uint32_t i);
int ps_tree_add_prev_sibling(ps_tree *t, uint32_t ref, uint32_t i);

/** A tree of the document node alone (the page model's empty page); NULL
 *  when out of memory. */
ps_tree *ps_tree_empty(void);

/** A libxml2 DOM of the tree as it is now (reshaped or not), for what
 *  edits or serialises one (the HTML view, annotation) or walks one (the
 *  DOM baselines): the same nodes, names, attributes (valueless ones
 *  without a text node), texts, comments and PIs, no DTD; doc->URL is
 *  @p url.  When @p map is not NULL (t->n_nodes entries) map[i] is the DOM
 *  node of tree node i for every node in the tree (map[0] the document);
 *  others are left as they were.  NULL when out of memory; free with
 *  xmlFreeDoc. */
htmlDocPtr ps_tree_dom(const ps_tree *t, const char *url, xmlNodePtr *map);

/** 1 when @p t is not the DOM @p doc node for node (as the top says),
 *  with the first difference in @p why; 0 when it is. */
int ps_tree_differs(const ps_tree *t, htmlDocPtr doc, char *why, size_t n);

/** Bytes the tree holds (its arrays as allocated), for the benchmarks. */
size_t ps_tree_bytes(const ps_tree *t);

#endif
