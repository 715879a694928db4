/*
 * pagesift/page.h — the page model (extract/, docs/ARCHITECTURE.md "The page
 * model"): how bytes are decoded to UTF-8, the bounds of one page, and the
 * block tree a parsed page holds — blocks with their own content's counts,
 * leaves with their text — which templates, features, methods and the
 * output formats read, and the page step that makes a page ready for
 * features (ps_prepare_input).  pagesift.h has what an extracting program
 * needs of a page (the opaque ps_page, its URL and title, free); this
 * header is for programs that parse bytes themselves or look inside a page
 * (pagesift-dump, features, training, annotation).
 */
#ifndef PAGESIFT_PAGE_H
#define PAGESIFT_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- charset decoding (extract/decode.c) --------------------------------- */

/** Where the charset of a page was decided. */
typedef enum ps_charset_source {
    PS_CHARSET_BOM,       /**< byte-order mark */
    PS_CHARSET_CALLER,    /**< given by the caller (HTTP header, WARC record) */
    PS_CHARSET_META,      /**< <meta charset> / http-equiv in the page */
    PS_CHARSET_DETECTED,  /**< ICU's detector (no declaration, or the bytes
                               contradicted it), or UTF-16 known by its
                               NULs without a byte-order mark */
    PS_CHARSET_UTF8_VALID,/**< the bytes are valid UTF-8 and won over a
                               declaration that said otherwise */
    PS_CHARSET_FALLBACK   /**< nothing better: windows-1252 */
} ps_charset_source;

/** Result of decoding bytes to UTF-8. */
typedef struct ps_decoded {
    char *utf8;               /**< NUL-terminated UTF-8, owned (free()) */
    size_t len;               /**< bytes of utf8, without the NUL */
    char charset[32];         /**< the charset used, canonical name */
    ps_charset_source source; /**< why that charset */
    size_t replaced;          /**< invalid sequences replaced by U+FFFD */
} ps_decoded;

/**
 * Decide the charset of a page and convert it to UTF-8.
 *
 * Order: byte-order mark; UTF-16 without one (one byte of each pair mostly
 * NUL in the first 4 KB: source PS_CHARSET_DETECTED); @p declared (from
 * the caller, may be NULL); the
 * page's <meta charset>/http-equiv; ICU's detector when there is no
 * declaration or the bytes contradict it (valid UTF-8 with non-ASCII text
 * wins over a legacy declaration); windows-1252 as the last resort.
 * iso-8859-1 and us-ascii are decoded as windows-1252, gb2312 and gbk as
 * gb18030 (supersets, as browsers do).  UTF-8 bytes that are invalid inside
 * an otherwise UTF-8 page are read as windows-1252 when that yields a
 * printable character, else U+FFFD.  NUL bytes become U+FFFD.  Never
 * truncates.  Returns 0, or -1 with @p err set (out of memory only).
 */
PS_EXPORT int ps_decode(const void *bytes, size_t len, const char *declared,
              ps_decoded *out, ps_error *err);

/** Name of a charset source, e.g. "meta". */
PS_EXPORT const char *ps_charset_source_name(ps_charset_source s);

/* ---- parsing a page (extract/page.c) -------------------------------------- */

/** Options for loading a page.  Zero-initialise, then set what you need. */
typedef struct ps_page_options {
    const char *charset;   /**< charset from HTTP/WARC headers, or NULL */
    const char *url;       /**< the page's URL, or NULL */
    /** Block tags, NULL-terminated, lower case; NULL = ps_default_block_tags
     *  (body, section, div).  The body element is always the root block. */
    const char *const *block_tags;
    size_t max_bytes;      /**< refuse larger inputs; 0 = PS_DEFAULT_MAX_BYTES */
    /** Fail with PS_ERR_TIMEOUT once ps_now() passes this (checked while
     *  the block tree is built, not inside libxml2's parse); 0 = none. */
    double deadline;
    unsigned flags;        /**< PS_PAGE_* bits, 0 = everything */
} ps_page_options;

/** ps_page_options.flags: collect of the page's metadata only what
 *  extraction reads (its JSON-LD: the types the features and page types
 *  read, the articleBody fallback), not the meta tags, bylines, dates and
 *  headings that ps_page_metadata reads.  For a caller that never asks for
 *  the metadata (a text-only output): the outputs are the same, the
 *  collection's walk is cheaper (1.6 % of a page's instructions,
 *  docs/research/SPEED.md).  ps_page_metadata then fails with
 *  PS_ERR_USAGE. */
#define PS_PAGE_NO_METADATA 1u
/** ps_page_options.flags: the caller reads no DOM, tree or structure of the
 *  page after extraction (text, JSON Lines and CSV outputs): ps_extract
 *  frees the page's tree once the page type is known, when the method reads
 *  the block tree only (template-svm, svm), so that a page's tree and its
 *  classification never take memory at the same time.  The outputs are the
 *  same; ps_page_dom then returns NULL and the structured renderers fail
 *  with PS_ERR_USAGE. */
#define PS_PAGE_NO_TREE 2u

/** Decode, parse and build the block tree of a page held in memory.  Junk
 *  before the markup (e.g. CleanEval's "<text id=...>" line) is skipped;
 *  script, style, noscript, template, iframe, embed, svg, math, canvas,
 *  head, select and textarea (form controls: a drop-down's options and a
 *  text box's default value are not page text), ruby readings (rt, rp:
 *  furigana above the text, not running text) and comments are removed,
 *  and so are hidden elements (the hidden attribute, aria-hidden="true",
 *  display:none or visibility:hidden in a style attribute) unless they hold
 *  more text than the rest of the page (content a script reveals).  A
 *  script whose end libxml2 would misplace (HTML's escaped "<!--" script
 *  holding a "</script>" string) is cut where a browser ends it.  Returns NULL with err set when the
 *  input is larger than max_bytes or no document can be made of it; an empty
 *  page or one without text yields a valid page with an empty body. */
PS_EXPORT ps_page *ps_page_parse(const void *bytes, size_t len,
                       const ps_page_options *opt, ps_error *err);

/** ps_page_parse on the contents of a file; err names the file. */
PS_EXPORT ps_page *ps_page_load_file(const char *path, const ps_page_options *opt,
                           ps_error *err);

/** How the page was decoded: charset, source and replacements (the UTF-8
 *  text itself is released after parsing: utf8 is NULL, len 0). */
PS_EXPORT const ps_decoded *ps_page_decoding(const ps_page *page);

/** Parse an input (pagesift.h; in->status PS_OK, not skipped): its bytes with its
 *  charset and URL, @p block_tags (NULL = the default) and @p max_bytes
 *  (0 = PS_DEFAULT_MAX_BYTES).  NULL with err set (the parser's message). */
PS_EXPORT ps_page *ps_input_page(const ps_input *in, const char *const *block_tags, size_t max_bytes,
                                 ps_error *err);

/** Write the site key (pagesift.h: ps_site_rule) of @p url into @p out (size @p cap).  Returns 0, or -1
 *  when the URL has no host (out is then ""). */
PS_EXPORT int ps_site_key(const char *url, ps_site_rule rule, char *out, size_t cap);

/* ---- the block tree (extract/page.c, extract/text.c) ---------------------- */

/* Bounds of one page (docs/EXTRACTION.md, "Bounds"): past each,
 * ps_page_parse fails the page with PS_ERR_TOO_LARGE and a message naming
 * the bound.  The first five are checked on the markup before libxml2 sees
 * it (libxml2's DOM takes about 500 bytes per element, its parser is
 * quadratic in the next three); the last two while the block tree is
 * built. */
#define PS_PAGE_MAX_ELEMENTS 250000    /**< start tags of elements */
#define PS_PAGE_MAX_NODES 500000       /**< nodes: start tags, attributes, runs of text, comments,
                                            processing instructions, <!...>; at most this many
                                            on any page, and on a page of B bytes (UTF-8) at
                                            most the node budget below */
#define PS_PAGE_NODES_BASE 32768       /**< node budget of a page of B bytes: this many nodes */
#define PS_PAGE_BYTES_PER_NODE 32      /**< plus one per this many bytes (B / 32), up to
                                            PS_PAGE_MAX_NODES: a DOM node costs 150-800 bytes,
                                            its markup may take 4, so a budget growing with the
                                            bytes keeps a page's memory proportional to them */
#define PS_PAGE_MAX_DEPTH 10000        /**< elements open inside each other */
#define PS_PAGE_MAX_ATTRS 1000         /**< attributes of one element */
#define PS_PAGE_MAX_ATTR_WORK 50000000ULL   /**< sum over elements of attributes^2 */
#define PS_PAGE_MAX_CLOSE_WORK 100000000ULL /**< sum of open elements at end tags closing none */
#define PS_PAGE_MAX_BLOCKS 100000      /**< blocks of the block tree */
#define PS_PAGE_MAX_LEAVES 250000      /**< leaves of the block tree */

/** body, section, div — the paper's block tags. */
extern PS_EXPORT const char *const ps_default_block_tags[];

/** A key of a set of block tags (NULL = the default), the same whatever
 *  their order: two lists give equal keys when they hold the same tags. */
PS_EXPORT uint64_t ps_block_tags_key(const char *const *tags);

/** Counts the features are made of, for a block's own content or a page. */
typedef struct ps_counts {
    uint32_t text_chars;  /**< characters of text (innerLen / outerLen) */
    uint32_t link_chars;  /**< characters of text inside <a> (innerLinkLen) */
    uint32_t links;       /**< number of <a> elements (innerLinkNum) */
    uint32_t images;      /**< number of <img> elements (innerPicNum) */
} ps_counts;

/** A leaf: an element with text of its own (text nodes that are its direct
 *  children, or children of the formatting tags b, i, em, strong, font, u,
 *  small, big, sub, sup, tt, s, strike, abbr, acronym, cite, code, dfn, kbd,
 *  mark, q, samp, var, nobr, time inside it, which do not make leaves of
 *  their own).  Whitespace is collapsed to single spaces and trimmed. */
typedef struct ps_leaf {
    const char *tag;      /**< element name, lower case */
    const char *text;     /**< its own text, UTF-8 */
    uint32_t bytes;       /**< strlen(text) */
    uint32_t chars;       /**< code points of text */
    int32_t block;        /**< index of the block that owns it */
    uint8_t in_link;      /**< 1 when the leaf is an <a> or inside one */
    uint8_t is_anchor;    /**< 1 when the leaf element itself is an <a> */
    uint8_t removed;      /**< set by ps_page_remove_leaf (templates) */
    uint8_t heading;      /**< 1..6 for h1..h6 (or inside one), else 0 */
    uint8_t after_image;  /**< 1 when an image comes after the previous text
                               and before this leaf's first text: where a
                               caption or a photo credit sits */
} ps_leaf;

/** A block: an element whose tag is a block tag, with its own content — the
 *  content of blocks nested in it is excluded. */
typedef struct ps_block {
    const char *tag;        /**< "body", "div", ... */
    const char *path;       /**< DOM path from the root element with 1-based
                                 indices among same-name siblings, e.g.
                                 "html/body/div[2]/div[1]"; stable across
                                 runs, versions and block-tag options */
    const char *id_attr;    /**< id attribute, "" if none */
    const char *class_attr; /**< class attribute, "" if none */
    int32_t parent;         /**< enclosing block, -1 for the root (body) */
    int32_t depth;          /**< nesting depth among blocks, root = 0 */
    int32_t dom_depth;      /**< depth of the element in the DOM, html = 0 */
    ps_counts own;          /**< counts of its own content (leaves not removed) */
    uint32_t n_leaves;      /**< own leaves, removed ones included */
    uint32_t n_children;    /**< blocks directly nested in it */
    /** What the markup says around the block, for the features: per class/id
     *  word group (PS_CLS_*: whole tokens of the class and id attributes, see
     *  extract/class_words.c) the hits of the block's element and of every
     *  element above it, halved at each DOM level up — a word on the block
     *  counts 1, on its parent 0.5, on <body> ten levels up 0.001. */
    float cls[4];
    uint8_t section;        /**< nearest sectioning element around (or being)
                                 the block: PS_SECTION_* */
    uint8_t in_figure;      /**< 1 inside (or being) figure / figcaption */
    uint16_t words;         /**< the word groups (PS_CW_*, extract/class_words.h)
                                 of its own class and id, read once by the walk
                                 for the features and the passes */
    uint64_t shape;         /**< ps_block_shape of the block, made once when
                                 the page is built: what the features, the
                                 passes and the page signals compare */
} ps_block;

/** A block's shape: a hash of its tag and its class attribute with the
 *  digits left out (a forum's "post bg2 p36159838" and "post bg1 p36159840"
 *  are one shape).  Siblings of one shape are a repeated structure: the
 *  x_repeat_* features and the groups pass read them.  A page's blocks
 *  carry it already (ps_block.shape). */
PS_EXPORT uint64_t ps_block_shape(const ps_block *block);

/** Word groups of ps_block.cls. */
enum { PS_CLS_NOISE, PS_CLS_CONTENT, PS_CLS_COMMENT, PS_CLS_CAPTION };
/** ps_block.section: none; article or main (or role main/article, itemprop
 *  articleBody); aside, nav, header, footer (or role navigation,
 *  complementary, banner, contentinfo, search). */
enum { PS_SECTION_NONE, PS_SECTION_MAIN, PS_SECTION_ASIDE };

/** What the page's JSON-LD says it is (schema.org @type names anywhere in
 *  its ld+json scripts): PS_SCHEMA_* bits, 0 when it says nothing. */
PS_EXPORT unsigned ps_page_schema_kinds(const ps_page *page);
enum {
    PS_SCHEMA_ARTICLE = 1, /**< Article, NewsArticle, BlogPosting, Recipe, ... */
    PS_SCHEMA_PRODUCT = 2, /**< Product, Offer, AggregateOffer */
    PS_SCHEMA_FORUM = 4,   /**< DiscussionForumPosting: a thread, whose posts are its content */
    PS_SCHEMA_LIST = 8,    /**< ItemList, CollectionPage, SearchResultsPage, OfferCatalog */
    PS_SCHEMA_QA = 16      /**< QAPage, Question: answers are content, comments under them not */
};

/** A libxml2 DOM (`htmlDocPtr`) of @p page as the page model cleaned and
 *  repaired it.  Extraction builds no DOM: libxml2's parser fills a compact
 *  tree of the page's own (extract/tree.h); this makes a DOM of it at the
 *  first call and keeps it with the page (ps_page_free frees it), for what
 *  edits, serialises or walks markup (the HTML view, annotation, the DOM
 *  baselines).  Changes to it do not reach the page's blocks.  NULL when
 *  out of memory. */
PS_EXPORT struct _xmlDoc *ps_page_dom(const ps_page *page);

/** 1 when @p page was parsed with the block tags @p tags (NULL = the
 *  default), in any order; else 0.  A model trained on other blocks would
 *  see other features, so extractors check it. */
PS_EXPORT int ps_page_has_block_tags(const ps_page *page, const char *const *tags);

/** How a block was classified, in ps_extraction.block_class. */
typedef enum ps_block_class {
    PS_CLASS_NOISE = 0,    /**< removed by the classifier */
    PS_CLASS_CONTENT = 1,  /**< kept */
    PS_CLASS_TEMPLATE = 2  /**< every leaf of it removed as site template */
} ps_block_class;

/** Blocks in document order (pre-order); block 0 is the root (body). */
PS_EXPORT const ps_block *ps_page_blocks(const ps_page *page, size_t *n);
/** Leaves in document order. */
PS_EXPORT const ps_leaf *ps_page_leaves(const ps_page *page, size_t *n);
/** Page totals (outerLen, outerLinkLen, outerLinkNum, outerPicNum), leaves
 *  not removed. */
PS_EXPORT ps_counts ps_page_totals(const ps_page *page);
/** Counts of a block and all blocks nested in it (leaves not removed). */
PS_EXPORT ps_counts ps_block_subtree_counts(const ps_page *page, size_t block);
/** Index one past the last block nested in @p block (blocks are pre-order,
 *  so a block's descendants are block+1 .. end-1). */
PS_EXPORT size_t ps_block_subtree_end(const ps_page *page, size_t block);
/** A block's id, stable across runs, versions and options: "b" and 16 hex
 *  digits of a hash of @p page_id and the block's DOM path @p path (17
 *  characters + NUL into @p out).  The block CSV's block_id and the HTML
 *  view's data-pagesift-block attributes. */
PS_EXPORT void ps_block_id(const char *page_id, const char *path, char out[18]);

/** Remove a leaf (template match): its text no longer counts in its block's
 *  and the page's counts and is left out of the text.  Idempotent. */
PS_EXPORT void ps_page_remove_leaf(ps_page *page, size_t leaf);

/** Text of the page: the text of every leaf that is not removed and whose
 *  block is kept (keep_block[i] != 0; NULL keeps every block), in document
 *  order, one block or paragraph per line, no empty lines, ending with '\n'
 *  unless empty.  Returns a malloc'ed string (free()), *len its length. */
PS_EXPORT char *ps_page_text(const ps_page *page, const uint8_t *keep_block, size_t *len);

/** The same with a per-leaf mask instead (keep_leaf[i] != 0). */
PS_EXPORT char *ps_page_text_leaves(const ps_page *page, const uint8_t *keep_leaf,
                          size_t *len);

/* ---- the page step up to the method (batch/extractor.c) ------------------ */

/** The page step up to the method, a page ready for features (the block
 *  CSV, annotation, per-site rows): work out the input's site (ps_input_site
 *  by @p opt's rule, NULL = defaults; @p site gets it, @p cap bytes), parse
 *  it with @p block_tags (NULL = ps_default_block_tags) and, when
 *  @p templates has the site's library and it applies (ps_template_applies),
 *  remove that library's template leaves (ps_template_apply).  The input is
 *  not changed.  Returns 1 with *page set when a library was applied
 *  (*removed, may be NULL, gets the leaves it removed), 0 with *page set
 *  when none was, or -1 with err set and *page NULL (parse failed, or out
 *  of memory removing templates); *site is set either way. */
PS_EXPORT int ps_prepare_input(const ps_input *in, const char *const *block_tags,
                               const ps_template_store *templates, const ps_step_options *opt,
                               char *site, size_t cap, ps_page **page, size_t *removed,
                               ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_PAGE_H */
