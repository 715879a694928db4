/* extract/page_internal.h — the inside of ps_page, for the parts of the
 * library that work on the DOM itself (the baseline methods) or on the text
 * runs (text output, labels). */
#ifndef PS_PAGE_INTERNAL_H
#define PS_PAGE_INTERNAL_H

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "common/util.h"
#include "extract/tree.h"
#include "pagesift.h"
#include "pagesift/page.h"

/** A run: the text of one DOM text node, whitespace collapsed and trimmed,
 *  owned by a leaf.  Runs are in document order. */
typedef struct ps_run {
    uint32_t leaf;       /**< owning leaf */
    uint32_t off, len;   /**< bytes in page->runtext */
    uint8_t brk;         /**< a paragraph boundary lies before it */
    uint8_t space_before;/**< whitespace separated it from what came before */
    uint8_t space_after; /**< it ended with whitespace */
} ps_run;

struct ps_page {
    ps_decoded dec;
    char *url;
    char *title;
    struct ps_meta_raw *meta; /**< metadata items collected before cleaning
                                   (extract/metadata.c), NULL if none */
    unsigned flags;           /**< ps_page_options.flags of the parse
                                   (PS_PAGE_NO_METADATA: meta holds the
                                   JSON-LD only) */
    unsigned schema;          /**< PS_SCHEMA_* bits of its JSON-LD, read once
                                   from meta (ps_meta_schema_kinds) */
    float type_prob[8];       /**< page-type probabilities by PS_PTYPE_* slot
                                   (ps_page_set_type_probs), all 0 until set */
    ps_tree *tree;            /**< the page's markup, cleaned (script, style,
                                   hidden, ... unlinked) and repaired */
    htmlDocPtr doc;           /**< a DOM of the cleaned tree, made on demand
                                   (ps_page_dom), else NULL */
    xmlNodePtr *dom_map;      /**< with it: the DOM node of each tree node */
    xmlDictPtr names;         /**< the tree's names once the tree is dropped
                                   (ps_page_drop_tree): the tags of the
                                   blocks and leaves point into them */

    ps_block *blocks;
    uint32_t *block_nodes;    /**< element of each block (a tree node) */
    uint32_t *block_end;      /**< one past the last descendant block */
    size_t n_blocks;

    ps_leaf *leaves;
    uint32_t *leaf_nodes;     /**< element of each leaf (a tree node) */
    size_t n_leaves;

    ps_run *runs;
    size_t n_runs;
    char *runtext;            /**< texts of runs, not NUL-separated */
    char *leaftext;           /**< NUL-terminated leaf texts */
    char *strs;               /**< block paths and attributes */

    ps_counts totals;
    uint64_t block_tags_key;  /**< ps_block_tags_key of the tags it was built with */
    double deadline;          /**< ps_page_options.deadline of the parse: later
                                   steps on the page (templates) check it too */
};

/** libxml2's parser options for a page. */
#define PS_PAGE_PARSE_OPTIONS                                                                                     \
    (HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | \
     HTML_PARSE_COMPACT | XML_PARSE_HUGE | HTML_PARSE_NOBLANKS)

/** ps_page_parse of @p len bytes at @p bytes (malloc'd, or NULL for none),
 *  which it takes: they are freed as soon as libxml2 has parsed them,
 *  before the block tree is built (whose peak they would add to), and in
 *  any case before it returns. */
ps_page *ps_page_parse_taking(void *bytes, size_t len, const ps_page_options *opt, ps_error *err);

/** Free @p pg's tree, its DOM and the maps into them (block_nodes,
 *  leaf_nodes): what nothing after the page type reads when the
 *  page was parsed with PS_PAGE_NO_TREE (ps_extract).  The block tree,
 *  its texts, its tag names (pg->names) and the metadata stay. */
void ps_page_drop_tree(ps_page *pg);

/* ps_page_dom (pagesift/page.h) makes pg->doc and pg->dom_map on demand:
 * pg->dom_map[pg->block_nodes[i]] is block i's element in it, and so for
 * leaves. */

/** Kind of an HTML element for the page model, a bit set. */
enum {
    PS_TAG_BREAK = 1,        /**< starts a new line of text (block-level, br) */
    PS_TAG_TRANSPARENT = 2,  /**< formatting: its text belongs to its parent */
    PS_TAG_REMOVE = 4,       /**< never holds content: removed with subtree */
    PS_TAG_ANCHOR = 8,       /**< a */
    PS_TAG_IMAGE = 16,       /**< img */
    PS_TAG_HEADING = 32,     /**< h1..h6 */
    PS_TAG_SEC_MAIN = 64,    /**< article, main: sectioning of the content */
    PS_TAG_SEC_ASIDE = 128,  /**< aside, nav, header, footer */
    PS_TAG_FIGURE = 256,     /**< figure, figcaption */
    PS_TAG_VOID = 512        /**< a void element of HTML (br, img, embed, source, wbr, ...): holds
                                  nothing, though libxml2 nests what follows an embed, source,
                                  track, wbr, keygen or bgsound inside it (page.c hoists it out) */
};

/** The PS_TAG_* bits of an element name (lower case). */
unsigned ps_tag_kind(const char *name);
/** The same into *kind, and the name's row in the tag table
 *  (extract/tags.c, 0 .. PS_TAG_TABLE_MAX - 1), or -1 for a name the
 *  table does not hold: two names have the same row only when they are the
 *  same, so a set of names is a bit set over the rows (the page model's
 *  block tags) plus the names outside the table. */
int ps_tag_lookup(const char *name, unsigned *kind);
#define PS_TAG_TABLE_MAX 256

/** Whitespace-collapse @p n bytes of UTF-8 into @p b (single spaces, trimmed);
 *  sets *lead / *trail when whitespace was dropped at either end.  Returns
 *  the bytes appended: 0 for whitespace only and also when room for @p n
 *  bytes could not be had, so a caller that must not lose text reserves
 *  them first (ps_buf_reserve). */
size_t ps_collapse_ws(ps_buf *b, const char *s, size_t n, int *lead, int *trail);

/** libxml2 out of memory (extract/xml_alloc.c): ps_xml_alloc_setup routes
 *  libxml2's allocations through wrappers that note a failure for the
 *  thread and stop the parse running on it (call before xmlInitParser);
 *  ps_xml_read parses like htmlReadMemory and returns NULL when an
 *  allocation failed; ps_xml_failed says whether any libxml2 allocation
 *  failed on this thread since ps_xml_failed_reset. */
void ps_xml_alloc_setup(void);
htmlDocPtr ps_xml_read(const char *html, size_t len, const char *url, int options);
/** ps_xml_read with @p setup(ctxt, @p user) called once the parser's options
 *  are set and before it parses: it may replace the parser's SAX callbacks
 *  (extract/tree.c builds its own tree from them).  @p utf8_terminated: the
 *  bytes are valid UTF-8 without a NUL and html[len] is a NUL, so libxml2
 *  reads them where they are, with no conversion (a copy) to UTF-8.
 *  Returns the document libxml2's callbacks left in the context (what
 *  SAX2's startDocument made when it was kept), or NULL. */
htmlDocPtr ps_xml_read_sax(const char *html, size_t len, const char *url, int options, int utf8_terminated,
                           void (*setup)(htmlParserCtxtPtr, void *), void *user);
void ps_xml_failed_reset(void);
int ps_xml_failed(void);
/** Note a failed allocation as ps_xml_failed reports it (the tree's own). */
void ps_xml_failed_note(void);

/** One repair of the markup before libxml2 parses it (ps_page_fix_markup):
 *  - an attribute name of a start tag with bytes libxml2 cannot read in a
 *    name (an ASCII letter, '_', ':' or '.' first, then those, digits or
 *    '-'; Vue's and Alpine's "@click", Angular's "(click)", a non-ASCII
 *    name): each such byte of s[from..to) becomes '_';
 *  - the '/' of "<script .../>" or "<style .../>" at s[from] (to = from + 1):
 *    HTML5 ignores it and reads the content up to the end tag as the
 *    element's, libxml2 closed the element and the content became text;
 *    it becomes ' '. */
typedef struct ps_markup_fix {
    size_t from, to;
    int slash; /**< 1: the self-closing '/' of a script or style */
} ps_markup_fix;

/** What the pre-parse guard (extract/page_guard.c) saw of a page. */
typedef struct ps_page_guard_stats {
    size_t elements;      /**< start tags */
    size_t nodes;         /**< start tags, attributes, runs of text, comments, <?...?>, <!...> */
    size_t node_budget;   /**< the most nodes the page may have (ps_page_node_budget) */
    size_t max_depth;     /**< deepest simulated stack of open elements */
    size_t max_attrs;     /**< most attributes on one element */
    size_t unmatched;     /**< end tags that matched no open element */
    uint64_t attr_work;   /**< sum of squared attribute counts */
    uint64_t close_work;  /**< sum of stack depths at unmatched end tags */
    /** Markup that libxml2 2.9.14 reads otherwise than an HTML5 parser (a
     *  browser), for ps_page_fix_markup; malloc'd, the caller frees it
     *  (NULL when none). */
    struct ps_markup_fix *fixes;
    size_t n_fixes;       /**< entries in fixes */
} ps_page_guard_stats;

/** The most nodes a page of @p bytes (UTF-8 markup) may have:
 *  PS_PAGE_NODES_BASE + bytes / PS_PAGE_BYTES_PER_NODE, at most
 *  PS_PAGE_MAX_NODES (docs/EXTRACTION.md, "Bounds"). */
size_t ps_page_node_budget(size_t bytes);

/** Scan the markup (UTF-8, before parsing) and refuse, with
 *  PS_ERR_TOO_LARGE and a message naming the limit and the byte, a page
 *  past one of the PS_PAGE_MAX_* limits of the guard.  @p st may be NULL. */
int ps_page_guard(const char *s, size_t n, ps_page_guard_stats *st, ps_error *err);

/** Apply the guard's @p st->fixes to @p s, the markup it scanned (same
 *  length: every fix replaces bytes).  libxml2 2.9.14 ends a tag at the next
 *  '>' after an attribute name it cannot read, even inside a quoted value,
 *  so the rest of the tag became text and its later attributes were lost;
 *  and it closed "<script/>", so the script became text. */
void ps_page_fix_markup(char *s, const ps_page_guard_stats *st);

#endif
