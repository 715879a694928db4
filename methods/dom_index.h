/* methods/dom_index.h — an array view of a page's cleaned DOM for the
 * DOM-based baselines (correlation, wiehf): every element in pre-order with
 * its parent, subtree end, depth, index among same-name siblings and the
 * page-model leaf it owns; every non-blank text node with the element it
 * sits in.  Built by one iterative walk (no recursion: a 100 000-deep page
 * is fine), so per-node work in the methods is plain array loops.
 *
 * Also: character counts as the page model makes them, and the punctuation
 * test the DOM baselines share. */
#ifndef PS_DOM_INDEX_H
#define PS_DOM_INDEX_H

#include <stdint.h>

#include "extract/page_internal.h"

typedef struct ps_dnode {
    xmlNodePtr node;
    int32_t parent;     /**< index of the parent element, -1 for the root */
    uint32_t end;       /**< one past the last descendant (pre-order) */
    int32_t owner;      /**< element whose leaf holds text sitting directly in
                             this one: itself, or for formatting tags (b, font,
                             ...) the nearest ancestor that is not one */
    int32_t leaf;       /**< page-model leaf of this element, or -1 */
    uint32_t depth;     /**< steps from the root: html = 1, body = 2 */
    uint32_t sib_index; /**< 1-based index among same-name element siblings */
    uint32_t sib_group; /**< id of (parent, name): same-name siblings share it */
    uint8_t is_anchor;  /**< the element is an <a> */
    uint8_t in_link;    /**< the element is an <a> or inside one */
} ps_dnode;

typedef struct ps_dtext {
    const char *s;  /**< UTF-8 content of the text node (not collapsed) */
    uint32_t len;   /**< bytes */
    int32_t elem;   /**< element it sits in */
} ps_dtext;

typedef struct ps_dom_index {
    ps_dnode *n;
    size_t count;
    ps_dtext *t;
    size_t n_text;
    size_t n_groups;    /**< distinct sib_group values (0 .. n_groups-1) */
    uint32_t *group_size; /**< elements per sib_group */
    int32_t body;       /**< index of body, or 0 */
} ps_dom_index;

/** Index the page's DOM from its root element.  Returns 0 or -1 (err). */
int ps_dom_index_build(ps_dom_index *ix, const ps_page *page, ps_error *err);
void ps_dom_index_free(ps_dom_index *ix);

/** Mark the leaves to keep from a per-element choice: a leaf is kept when
 *  keep_elem[its element] != 0; an element that is a formatting tag keeps the
 *  leaf of its owner.  @p keep_leaf has page->n_leaves entries (zeroed by the
 *  caller).  Returns the number of leaves kept. */
size_t ps_dom_keep_leaves(const ps_dom_index *ix, const uint8_t *keep_elem, uint8_t *keep_leaf);

/** Expand a choice of elements to their whole subtrees (in place, linear). */
void ps_dom_expand_subtrees(const ps_dom_index *ix, uint8_t *keep_elem);

/** Characters of @p n bytes of UTF-8 as the page model counts them:
 *  white space runs collapsed to one space, trimmed. */
uint32_t ps_collapsed_chars(const char *s, size_t n);

/** 1 when code point @p c is a punctuation mark for the baselines: ASCII
 *  , . ! ? ; : and the CJK / full-width marks ，。！？；：、 “”‘’《》（）… */
int ps_is_punct(uint32_t c);

#endif
