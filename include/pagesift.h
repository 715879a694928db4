/*
 * pagesift.h — the public interface of libpagesift.
 *
 * pagesift strips the noise from web pages (navigation, copyright lines, ads,
 * related links, comments) and keeps the main text.  The pipeline, each step
 * in its own folder of the source tree:
 *
 *   extract/    bytes -> UTF-8 -> libxml2 DOM -> block tree (ps_page)
 *   templates/  per-site template libraries: build, store, match, remove
 *   features/   R1-R5 (and extended) block features, gold labels, CSV
 *   train/      RBF SVM training with cross-validation, model bundles
 *   methods/    extraction pipelines: template-svm, svm and the baselines
 *   eval/       metrics and the evaluation driver
 *
 * Conventions used throughout:
 *   - every name starts with ps_ / PS_;
 *   - strings are UTF-8 and NUL-terminated;
 *   - lengths called "chars" count Unicode code points, "bytes" count bytes;
 *   - a function that can fail takes a ps_error * (may be NULL) and returns
 *     NULL or a negative number on failure, with the message in err->msg;
 *   - objects are created by ps_X_new/ps_X_load/ps_X_parse and released by
 *     ps_X_free; ps_X_free(NULL) is a no-op;
 *   - objects are not shared between threads unless documented; distinct
 *     objects may be used from distinct threads at the same time after
 *     ps_init() has run once.
 */
#ifndef PAGESIFT_H
#define PAGESIFT_H

#include <stddef.h>
#include <stdint.h>

/** Marks the calls and data the shared library exports: libpagesift is
 *  built with -fvisibility=hidden, so whatever a public header declares
 *  without it stays internal.  Every public declaration takes it. */
#ifndef PS_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define PS_EXPORT __attribute__((visibility("default")))
#else
#define PS_EXPORT
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Library                                                                   */
/* ------------------------------------------------------------------------ */

/** Version of the library, e.g. "0.1.0". */
PS_EXPORT const char *ps_version(void);

/** Initialise libxml2 for use from several threads.  Call it before the
 *  other calls (ps_sift and ps_sifter_new call it themselves); further calls
 *  do nothing; thread-safe. */
PS_EXPORT void ps_init(void);

/** Error codes.  Tools map them to exit codes (see README). */
typedef enum ps_status {
    PS_OK = 0,
    PS_ERR_IO = 1,       /**< a file could not be read or written */
    PS_ERR_FORMAT = 2,   /**< input is malformed (corrupt file, bad CSV, ...) */
    PS_ERR_TOO_LARGE = 3,/**< input exceeds a configured limit */
    PS_ERR_NOMEM = 4,    /**< out of memory */
    PS_ERR_PARSE = 5,    /**< a page could not be parsed into a document */
    PS_ERR_USAGE = 6,    /**< a caller passed invalid arguments */
    PS_ERR_VERSION = 7,  /**< a file is of another format version */
    PS_ERR_TIMEOUT = 8   /**< a page took longer than its time limit */
} ps_status;

/** Error report: a status and a message that names the input and the problem. */
typedef struct ps_error {
    ps_status code;
    char msg[512];
} ps_error;

/** Where the library's messages go: the notes and warnings of a run (a page
 *  of a batch that failed, a skipped file with verbose, temporary files
 *  removed, a training grid's points), one line each, without a newline and
 *  without a program's name.  @p fn NULL (the default): each line on
 *  standard error.  As libsvm's svm_set_print_string_function: set it
 *  before a run, not during one; @p fn may be called from several threads
 *  at once.  The pagesift tools print each line after their name. */
PS_EXPORT void ps_set_print_function(void (*fn)(const char *line));

/* ------------------------------------------------------------------------ */
/* Main text in one call (methods/sift.c)                                    */
/* ------------------------------------------------------------------------ */

/**
 * HTML bytes in, main text out, with the shipped model:
 *
 *     ps_error err;
 *     ps_result *r = ps_sift(html, len, url, NULL, &err);
 *     if (!r) { fprintf(stderr, "%s\n", err.msg); ... }
 *     fputs(ps_result_text(r, NULL), stdout);
 *     ps_result_free(r);
 *
 * The page is decoded (charset from @p charset, the page or detection),
 * parsed with the block tags the model wants and extracted by the default
 * pipeline of the pagesift tool for one page (the SVM; no site templates).
 * Everything below in this header is for those who need the steps.
 */

/** What was extracted from one page (opaque: read it with the
 *  ps_result_* calls, which will grow as more is extracted). */
typedef struct ps_result ps_result;

/** Extract the main text of @p len bytes of HTML with the shipped model
 *  (the one ps_model_default_path names: $PAGESIFT_MODEL, else the
 *  installed one), loaded on the first call and shared by every thread
 *  afterwards: ps_sift may be called from several threads at once.
 *  @p url (the page's address, for the site; may be NULL) and @p charset
 *  (from an HTTP header; may be NULL) are optional.  ps_init is not needed.
 *  Returns NULL with err set: the model cannot be loaded (every call then
 *  fails the same way), the page is larger than PS_DEFAULT_MAX_BYTES or no
 *  document can be made of it, out of memory.  A page without main text
 *  gives a result with an empty text. */
PS_EXPORT ps_result *ps_sift(const void *html, size_t len, const char *url, const char *charset,
                             ps_error *err);

/** An extractor for ps_sifter_extract: method and model set up once, then
 *  used for many pages from any number of threads at once. */
typedef struct ps_sifter ps_sifter;

/** Set up a sifter with the model bundle @p model_path (NULL: the shipped
 *  model, as ps_sift).  NULL with err set when the model is missing,
 *  truncated or foreign. */
PS_EXPORT ps_sifter *ps_sifter_new(const char *model_path, ps_error *err);
/** ps_sift with this sifter's model.  Thread-safe. */
PS_EXPORT ps_result *ps_sifter_extract(ps_sifter *s, const void *html, size_t len, const char *url,
                                       const char *charset, ps_error *err);
PS_EXPORT void ps_sifter_free(ps_sifter *s);

/** The main text: UTF-8, one paragraph per line, '\n'-ended unless empty;
 *  never NULL.  *len (may be NULL) gets its length in bytes. */
PS_EXPORT const char *ps_result_text(const ps_result *r, size_t *len);
/** The article's headline (ps_metadata.title: og:title, JSON-LD headline,
 *  the h1 the <title> holds, the <title>), "" when none. */
PS_EXPORT const char *ps_result_title(const ps_result *r);
/** Everything known about the page (author, dates, site name, language,
 *  ...: struct ps_metadata, the "Metadata and structured output" section below); owned by @p r. */
PS_EXPORT const struct ps_metadata *ps_result_metadata(const ps_result *r);
/** The charset the page was decoded from, e.g. "utf-8". */
PS_EXPORT const char *ps_result_charset(const ps_result *r);
/** Free the result.  NULL is a no-op. */
PS_EXPORT void ps_result_free(ps_result *r);

/* ------------------------------------------------------------------------ */
/* Charset decoding (extract/decode.c)                                       */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* Page model (extract/page.c, extract/text.c)                              */
/* ------------------------------------------------------------------------ */

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
 *  docs/EXTRACTION.md, Speed).  ps_page_metadata then fails with
 *  PS_ERR_USAGE. */
#define PS_PAGE_NO_METADATA 1u

/** Seconds of a monotonic clock (CLOCK_MONOTONIC), for deadlines. */
PS_EXPORT double ps_now(void);

#define PS_DEFAULT_MAX_BYTES ((size_t)64 << 20)

/* Bounds of one page (docs/EXTRACTION.md, "Bounds"): past each,
 * ps_page_parse fails the page with PS_ERR_TOO_LARGE and a message naming
 * the bound.  The first five are checked on the markup before libxml2 sees
 * it (libxml2's DOM takes about 500 bytes per element, its parser is
 * quadratic in the next three); the last two while the block tree is
 * built. */
#define PS_PAGE_MAX_ELEMENTS 250000    /**< start tags of elements */
#define PS_PAGE_MAX_NODES 500000       /**< nodes: start tags, attributes, runs of text, comments,
                                            processing instructions, <!...> */
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
} ps_block;

/** A block's shape: a hash of its tag and its class attribute with the
 *  digits left out (a forum's "post bg2 p36159838" and "post bg1 p36159840"
 *  are one shape).  Siblings of one shape are a repeated structure: the
 *  x_repeat_* features and the groups pass read them. */
PS_EXPORT uint64_t ps_block_shape(const ps_block *block);

/** Word groups of ps_block.cls. */
enum { PS_CLS_NOISE, PS_CLS_CONTENT, PS_CLS_COMMENT, PS_CLS_CAPTION };
/** ps_block.section: none; article or main (or role main/article, itemprop
 *  articleBody); aside, nav, header, footer (or role navigation,
 *  complementary, banner, contentinfo, search). */
enum { PS_SECTION_NONE, PS_SECTION_MAIN, PS_SECTION_ASIDE };

typedef struct ps_page ps_page;

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

PS_EXPORT void ps_page_free(ps_page *page);

/** The page's URL as given in the options, or "" */
PS_EXPORT const char *ps_page_url(const ps_page *page);
/** The <title> text, whitespace collapsed, or "". */
PS_EXPORT const char *ps_page_title(const ps_page *page);
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

/** 1 when @p page was parsed with the block tags @p tags (NULL = the
 *  default), in any order; else 0.  A model trained on other blocks would
 *  see other features, so extractors check it. */
PS_EXPORT int ps_page_has_block_tags(const ps_page *page, const char *const *tags);
/** How the page was decoded: charset, source and replacements (the UTF-8
 *  text itself is released after parsing: utf8 is NULL, len 0). */
PS_EXPORT const ps_decoded *ps_page_decoding(const ps_page *page);

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

/* ------------------------------------------------------------------------ */
/* Sites (extract/site.c)                                                    */
/* ------------------------------------------------------------------------ */

/** How a page's site key is derived from its URL. */
typedef enum ps_site_rule {
    PS_SITE_HOST = 0,        /**< host name, lower case, "www." kept */
    PS_SITE_HOST_PATH1 = 1   /**< host + "/" + first path segment */
} ps_site_rule;

/** Write the site key of @p url into @p out (size @p cap).  Returns 0, or -1
 *  when the URL has no host (out is then ""). */
PS_EXPORT int ps_site_key(const char *url, ps_site_rule rule, char *out, size_t cap);


/* ------------------------------------------------------------------------ */
/* Tokens (eval/tokens.c) — the benchmark-compatible tokenizer               */
/* ------------------------------------------------------------------------ */

/** A token of a text: runs of word characters as Python's re \w matches
 *  them (letters L*, numbers N*, underscore; combining marks are not word
 *  characters there), except that each CJK ideograph, hiragana and katakana
 *  character is a token of its own. */
typedef struct ps_token {
    uint32_t off, len;   /**< bytes in the text */
    uint64_t hash;       /**< hash of the token's bytes */
} ps_token;

/** Tokenize @p len bytes of UTF-8.  Returns the number of tokens and a
 *  malloc'ed array in *out (free()), or (size_t)-1 when out of memory. */
PS_EXPORT size_t ps_tokenize(const char *text, size_t len, ps_token **out);

/** Multiset recall of @p gold's tokens in @p text: shared / gold tokens
 *  (1.0 when gold has no tokens). */
PS_EXPORT double ps_token_recall(const char *text, size_t text_len, const char *gold, size_t gold_len);


/* ------------------------------------------------------------------------ */
/* Data sets (extract/dataset.c) — folders in the ../shared/datasets format  */
/* ------------------------------------------------------------------------ */

/** The snippets of one page of a snippet set (docs/INPUTS.md): text that
 *  must be in the page's main text and text that must not be. */
typedef struct ps_snippets {
    char **with;      /**< UTF-8, as in evaldata.json */
    size_t n_with;
    char **without;
    size_t n_without;
} ps_snippets;

/** Snippet counts of one page (or summed). */
typedef struct ps_snippet_counts {
    uint64_t tp;  /**< with snippets present */
    uint64_t fn;  /**< with snippets missing */
    uint64_t fp;  /**< without snippets present */
    uint64_t tn;  /**< without snippets absent */
} ps_snippet_counts;

/** One row of a data set's index.tsv. */
typedef struct ps_dataset_page {
    char *id;         /**< file stem: html/<id>.html, gold/<id>.txt */
    char *url;        /**< "" if unknown */
    char *site;       /**< "" if unknown */
    char *lang;       /**< ISO 639-1, "" if unknown */
    char *page_type;  /**< the page_type column (wcxb-dev: article, forum,
                           product, ...), "" if absent */
    char *html_path;  /**< <dir>/html/<id>.html, or html/<id>.html.gz when
                           only that exists (read it with ps_read_page_file) */
    char *gold_path;  /**< <dir>/gold/<id>.txt (a snippet set has none) */
    ps_snippets *snippets; /**< snippet set: the page's entry of
                                evaldata.json; NULL in a gold set */
} ps_dataset_page;

/** A data set: <dir>/index.tsv (header row naming the columns id, url,
 *  site, lang, ...; tab-separated, no quoting) with html/ and either gold/
 *  (a gold set) or evaldata.json (a snippet set: {id: {"url", "with":
 *  [...], "without": [...]}}, the trafilatura-eval layout). */
typedef struct ps_dataset {
    char *dir;
    char *name;             /**< last component of dir */
    ps_dataset_page *pages; /**< rows in file order */
    size_t n_pages;
    int snippet_set;        /**< 1: <dir>/evaldata.json exists and every
                                 page has its snippets */
} ps_dataset;

/** Read <dir>/index.tsv (and <dir>/evaldata.json when it exists: every row
 *  of the index must have an entry there).  Errors name the file and line
 *  (or id). */
PS_EXPORT ps_dataset *ps_dataset_load(const char *dir, ps_error *err);
/** Read a page file whole, inflated when it is gzip (html/<id>.html.gz, a
 *  mirror's .html.gz): at most max_bytes once inflated (0 = no limit;
 *  PS_ERR_TOO_LARGE beyond).  NUL appended, not counted. */
PS_EXPORT char *ps_read_page_file(const char *path, size_t max_bytes, size_t *len, ps_error *err);
PS_EXPORT void ps_dataset_free(ps_dataset *ds);

/** A page filter by site folds, for cross-validation grouped by site: fold
 *  of a page = FNV-1a 64-bit hash of the bytes of its site key (the site column,
 *  or the id when the site is empty) mod n, plus 1.  n == 0: no filter. */
typedef struct ps_fold {
    unsigned k, n;   /**< fold k of n, 1 <= k <= n */
    int complement;  /**< 1: keep the pages NOT in fold k */
} ps_fold;

/** Parse "K/N" (1 <= K <= N <= 1000) into @p f (complement left as is).
 *  Returns 0, or -1 with err set (a message naming the text). */
PS_EXPORT int ps_fold_parse(const char *spec, ps_fold *f, ps_error *err);
/** The fold (1..n) of a page among n folds. */
PS_EXPORT unsigned ps_dataset_page_fold(const ps_dataset_page *p, unsigned n);
/** Keep only the pages the filter selects (order kept); returns how many
 *  remain.  A filter with n == 0 keeps every page. */
PS_EXPORT size_t ps_dataset_filter(ps_dataset *ds, const ps_fold *f);


/* ------------------------------------------------------------------------ */
/* Inputs (extract/inputs.c, extract/warc.c) — pages from files, folders, list files, WARC, JSON Lines, data sets */
/* ------------------------------------------------------------------------ */

/**
 * Every tool reads its pages through one streaming source:
 *
 *     ps_source *src = ps_source_open(args, n, list_file, &opt, &err);
 *     ps_input in = {0};
 *     int r;
 *     while ((r = ps_source_next(src, &in, &err)) == 1) {
 *         if (in.skipped)               count it as skipped (no output record)
 *         else if (in.status != PS_OK)  a failed page: report in.msg, go on
 *         else                          a page: in.data, in.len, in.charset, in.url
 *         ps_input_clear(&in);
 *     }
 *     if (r < 0) fatal: err.msg
 *     ps_source_free(src);
 *
 * Arguments are read in order, lazily (memory does not grow with the
 * collection):
 *   - a file: one page; WARC files (.warc, .warc.gz, or a file starting with
 *     "WARC/" plain or gzipped) give one ps_input per record;
 *   - a directory: searched recursively in byte-wise sorted order for
 *     .html/.htm/.xhtml pages and .warc/.warc.gz files; a folder holding an
 *     index.tsv is a data set (../shared/datasets format) and is read in the
 *     order of its index, not searched;
 *   - "-": stdin: JSON Lines when opt->jsonl_stdin, else a WARC stream (when
 *     it starts with "WARC/" or the gzip magic) or one page;
 *   - "http://..." or "https://...": a URL, fetched (ps_fetch_options below,
 *     docs/FETCH.md);
 *   - list_file (may be combined with args, read after them): lines
 *     PATH<TAB>URL[<TAB>GOLD_PATH]; relative paths are relative to the list
 *     file's folder; empty lines and lines starting with '#' are ignored.
 * List file entries are page files.  Folder entries other than pages, WARC
 * files and data sets are ignored, as are names starting with '.'.
 *
 * Nothing about one input is fatal: a missing or unreadable file, folder or
 * link loop (PS_ERR_IO), a malformed record or line (PS_ERR_FORMAT), a page
 * over max_bytes (PS_ERR_TOO_LARGE) yields a failed ps_input whose msg names
 * the file (and line or offset) and the problem; reading goes on with the
 * next record, line or argument.
 *
 * WARC: WARC/1.0 and 1.1, plain or gzip (one member per record or one for the
 * whole file).  'response' records with an application/http payload are
 * pages when the HTTP status is 2xx and the Content-Type is text/html or
 * application/xhtml+xml (or absent and the body looks like HTML); chunked
 * transfer coding and gzip/deflate content coding are decoded.  'resource'
 * records of type text/html or application/xhtml+xml are pages.  Every other
 * record is returned with skipped = 1 (msg says why).  A record whose
 * Content-Length is wrong is reported as failed and the reader resynchronises
 * at the next "WARC/1." line; a truncated file ends with the cut record
 * reported as failed ("truncated"); corrupt gzip data ends that file with a
 * failed input.  Memory stays bounded (about 1 MB plus the page being read)
 * however large the file.
 */

/** Options of a source.  Zero-initialise, then set what you need. */
typedef struct ps_source_options {
    size_t max_bytes;   /**< per-page cap, 0 = PS_DEFAULT_MAX_BYTES; larger
                             pages become a failed ps_input (PS_ERR_TOO_LARGE) */
    int jsonl_stdin;    /**< "-" is JSON Lines: one record per line,
                             {"url":..,"html":..[,"id":..][,"charset":..]};
                             blank lines are ignored */
    ps_fold fold;       /**< data set folders: only the pages of this site
                             fold (ps_dataset_filter); other inputs are not
                             filtered.  n == 0: every page */
} ps_source_options;

/** One input: a page, a failed page, or a skipped WARC record.
 *  Zero-initialise before the first ps_source_next; ps_source_next clears
 *  it before filling it again, ps_input_clear frees it. */
typedef struct ps_input {
    char *id;          /**< output id, filename-safe ([A-Za-z0-9._-], others
                            become '_'): a file's name without its extension
                            (inside a searched directory: its path relative
                            to that directory, '/' as '_'); WARC: the uuid of
                            WARC-Record-ID; JSONL: "id" field or "line-<n>";
                            data set: the index id; stdin page: "stdin" */
    char *url;         /**< "" if unknown: WARC-Target-URI, list column 2,
                            JSONL "url", data set url */
    char *charset;     /**< charset from the HTTP Content-Type (WARC), the
                            WARC Content-Type (resource records) or JSONL
                            "charset" ("utf-8" when absent: JSON text is
                            Unicode); NULL if none.  Pass it to
                            ps_page_options.charset */
    char *origin;      /**< where it came from, for messages: "dir/a.html",
                            "crawl.warc.gz@offset 12345", "stdin line 17" */
    char *gold_path;   /**< list file 3rd column or data set gold/<id>.txt;
                            NULL if none */
    char *site;        /**< data set index 'site' column when present and not
                            empty, else NULL (derive it with ps_site_key) */
    char *dataset;     /**< data set name (folder name) for data set pages,
                            else NULL */
    const ps_snippets *snippets; /**< a snippet set's page: its snippets
                            (owned by the source, valid until the next
                            ps_source_next; gold_path is then NULL), else
                            NULL */
    char *data;        /**< raw page bytes (the HTTP body for WARC),
                            NUL-terminated (not counted in len); NULL unless
                            status == PS_OK and skipped == 0 */
    size_t len;        /**< bytes of data */
    ps_status status;  /**< PS_OK, or why this input failed */
    char msg[512];     /**< when status != PS_OK: the error, naming origin and
                            problem; when skipped: why it was skipped */
    int skipped;       /**< 1: a record that is not an HTML page (WARC
                            request/metadata/warcinfo/revisit, non-HTML or
                            non-2xx response): tools count it as skipped and
                            write no output record */
} ps_input;

/** A stream of inputs (opaque).  Used from one thread. */
typedef struct ps_source ps_source;

/** Open a source over @p args (n_args of them; may be 0 with a list file)
 *  and @p list_file (NULL for none).  @p opt may be NULL (defaults).
 *  Returns NULL with err set only for a setup error: an unreadable list file,
 *  no inputs at all, out of memory. */
PS_EXPORT ps_source *ps_source_open(const char *const *args, size_t n_args,
                          const char *list_file,
                          const ps_source_options *opt, ps_error *err);

/** Read the next input into @p in (its previous contents are freed).
 *  Returns 1 when *in was filled (check in->skipped and in->status), 0 at
 *  the end of all inputs, -1 on a fatal error (err set; out of memory).
 *  A missing or unreadable argument is not fatal: it yields a failed input. */
PS_EXPORT int ps_source_next(ps_source *src, ps_input *in, ps_error *err);

/** Free the fields of @p in and zero it; the struct can be reused. */
PS_EXPORT void ps_input_clear(ps_input *in);

/** Close the source and free it.  NULL is a no-op. */
PS_EXPORT void ps_source_free(ps_source *src);

/** Fetching (extract/fetch.c, docs/FETCH.md): an argument starting with
 *  http:// or https:// is a URL, fetched with libcurl together with every
 *  other URL argument, a URL list, sitemaps and feeds, many hosts at once;
 *  their inputs come (in the order they finish) where the first URL
 *  argument stands, or after the other arguments.  Politeness by default:
 *  robots.txt obeyed (per host, cached), at most per_host connections to a
 *  host and `delay` seconds between two request starts on it.  A fetch that
 *  fails (network, timeout, size cap, HTTP status other than 2xx, robots.txt)
 *  is a failed ps_input; a 2xx response that is not HTML is skipped.
 *  Zero-initialise, then set what you need. */
typedef struct ps_fetch_options {
    const char *urls_file;   /**< one URL a line ('#' lines and blank lines
                                  ignored); "-" = stdin; NULL: none */
    const char *const *sitemaps; /**< sitemap (or sitemap index) URLs whose
                                  pages are fetched; n_sitemaps of them */
    size_t n_sitemaps;
    const char *const *feeds; /**< RSS or Atom feed URLs, likewise */
    size_t n_feeds;
    const char *lastmod_since; /**< "YYYY-MM-DD[...]": sitemap entries whose
                                  lastmod is older are left out; NULL: all */
    const char *user_agent;  /**< NULL: "pagesift/VERSION"; its first word
                                  (up to '/') is the robots.txt token */
    const char *contact;     /**< added to the User-Agent as "(+CONTACT)" */
    double connect_timeout;  /**< seconds; 0: 10 */
    double timeout;          /**< seconds for a whole response; 0: 30 */
    int retries;             /**< retries of a transient failure (HTTP 5xx,
                                  429, connection error); 0: 2, < 0: none */
    unsigned per_host;       /**< connections to one host at once; 0: 2 */
    double delay;            /**< seconds between request starts on one host
                                  (robots.txt Crawl-delay raises it, up to
                                  60 s); 0: 1, < 0: none */
    unsigned max_connections;/**< connections at once in all; 0: 64 */
    int ignore_robots;       /**< 1: robots.txt is not fetched nor obeyed */
    const char *warc_out;    /**< append every response (and its request) to
                                  this WARC file (gzip members); NULL: none */
    /** When set: called with a URL's id before it is fetched; non-zero
     *  makes it a skipped input without fetching (resume with
     *  --skip-existing).  Called from the thread reading the source. */
    int (*have_output)(void *ctx, const char *id);
    void *have_output_ctx;
    /** When set and non-zero: no more URLs are started and the source ends
     *  (ps_source_next returns 0) within a second, transfers in flight
     *  dropped (a run stopped by a signal). */
    const volatile int *interrupt;
} ps_fetch_options;

/** ps_source_open with fetch options (NULL: the defaults; they apply to
 *  URL arguments of ps_source_open too).  With @p fetch naming a URL list,
 *  sitemaps or feeds, args may be empty. */
PS_EXPORT ps_source *ps_source_open_fetch(const char *const *args, size_t n_args,
                                          const char *list_file, const ps_source_options *opt,
                                          const ps_fetch_options *fetch, ps_error *err);

/** What the fetch of the input last returned by ps_source_next gave. */
typedef struct ps_fetch_info {
    int http_status;         /**< of the final response; 0: none (robots.txt,
                                  a network error, a timeout) */
    const char *final_url;   /**< after redirects; NULL when none */
    double fetch_seconds;    /**< the whole transfer, retries not counted */
} ps_fetch_info;
/** NULL when that input was not fetched; valid until the next
 *  ps_source_next. */
PS_EXPORT const ps_fetch_info *ps_source_fetch_info(const ps_source *src);

/** Number of inputs the source will yield when that is cheaply known (only
 *  files, folders without WARC files, list files and data sets), else 0
 *  (a WARC file or stdin among the inputs).  Computed at open, which walks
 *  the folders once for it. */
PS_EXPORT size_t ps_source_total_hint(const ps_source *src);
/** Progress by bytes, for when the page count is not known ahead (WARC
 *  files): the summed size of the arguments when every one is a file (0
 *  otherwise: stdin, a folder, a list), and how many of those bytes have
 *  been read so far (compressed bytes of a gzip file).  Call from the thread
 *  that calls ps_source_next. */
PS_EXPORT uint64_t ps_source_total_bytes(const ps_source *src);
PS_EXPORT uint64_t ps_source_bytes_done(const ps_source *src);

/** A new source over the same arguments, list file and options as @p src,
 *  from the first input (a second pass, e.g. after learning templates).
 *  NULL with err set when "-" (standard input, read once) is among them,
 *  or the list file cannot be opened again. */
PS_EXPORT ps_source *ps_source_reopen(const ps_source *src, ps_error *err);

/** The site key of an input, the one rule of every tool, training and
 *  inference alike: the key of its URL by @p rule; else, under the host
 *  rule, the site given with the page (a data set's site column); else ""
 *  (no template step). */
PS_EXPORT void ps_input_site(const ps_input *in, ps_site_rule rule, char *out, size_t cap);

/** Parse an input (in->status PS_OK, not skipped): its bytes with its
 *  charset and URL, @p block_tags (NULL = the default) and @p max_bytes
 *  (0 = PS_DEFAULT_MAX_BYTES).  NULL with err set (the parser's message). */
PS_EXPORT ps_page *ps_input_page(const ps_input *in, const char *const *block_tags, size_t max_bytes,
                                 ps_error *err);


/* ------------------------------------------------------------------------ */
/* Template libraries (templates/) — per-site common noise */
/* ------------------------------------------------------------------------ */

/* Per-site template libraries (METHODS.md §1.1).  A site's pages are read in
 * batches of n1 pages; every leaf (tag name + own text) is compared with a
 * cache of the batch's leaves: same tag name and similar text (edit distance
 * in code points <= floor(min(len)/8), texts of up to 8 characters must be
 * identical) counts as the same leaf.  At the end of a batch every cached
 * leaf whose frequency reached n2 becomes an entry of the site's library (the
 * union over batches).  ps_template_apply removes the leaves of a page that
 * match an entry. */

/** Which rules decide that a matching leaf is removed. */
typedef enum ps_template_rules {
    /** the paper's literal rule: every leaf with the same tag name and a
     *  similar text is removed */
    PS_TEMPLATE_RULES_PAPER = 0,
    /** the paper's rule with content guards (default): a matching leaf is
     *  kept when it is the page's own headline (part of its <title> or first
     *  h1), a short date line, or a sentence in the block holding most of
     *  the page's text; templates/rules.c has the exact guards,
     *  docs/TEMPLATES.md their measured effect */
    PS_TEMPLATE_RULES_GUARDED = 1
} ps_template_rules;

/** Parameters of the batch algorithm. */
typedef struct ps_template_params {
    unsigned n1;            /**< pages per batch (default 10) */
    unsigned n2;            /**< frequency that makes an entry (default 3) */
    /** 0 (default): frequency counts pages, a leaf repeated within one page
     *  counts once (METHODS.md's reading); 1: every occurrence counts (the
     *  paper's literal rule) */
    int count_occurrences;
    ps_template_rules rules;/**< rules used by ps_template_apply (default
                                 PS_TEMPLATE_RULES_GUARDED) */
} ps_template_params;

/** Fill @p p with the defaults: n1 10, n2 3, pages, guarded rules. */
PS_EXPORT void ps_template_params_default(ps_template_params *p);

/** One site's library. */
typedef struct ps_template_lib ps_template_lib;
/** Builds libraries for many sites at once, streaming: it keeps one batch
 *  cache per site plus the entries, never the pages. */
typedef struct ps_template_builder ps_template_builder;
/** Libraries by site. */
typedef struct ps_template_store ps_template_store;

/** A new builder (NULL @p p = defaults).  NULL when out of memory or when the
 *  parameters are invalid (n1 or n2 of 0). */
PS_EXPORT ps_template_builder *ps_template_builder_new(const ps_template_params *p);

/** Add a page of site @p site (a key from ps_site_key, or any name; must not
 *  be empty).  Pages of one site are taken in the order they are added.
 *  Returns 0, or -1 with err set (out of memory, empty site; PS_ERR_TIMEOUT
 *  past the time limit below, the page's leaves read until then counted). */
PS_EXPORT int ps_template_builder_add(ps_template_builder *b, const char *site,
                            const ps_page *page, ps_error *err);

/** Seconds one ps_template_builder_add may take (0, the default: no limit;
 *  checked every 16 leaves): a page of thousands of leaves that all resemble
 *  each other makes the batch cache's similarity search slow. */
PS_EXPORT void ps_template_builder_set_time_limit(ps_template_builder *b, double seconds);

/** Seed the builder with the libraries of @p dir (as written by
 *  ps_template_builder_write_dir) so that pages added afterwards extend them
 *  (build --update).  Sites must use the same n1, n2 and count rule; a
 *  library written with other parameters is an error naming the file.
 *  Returns 0 or -1 with err set. */
PS_EXPORT int ps_template_builder_load_dir(ps_template_builder *b, const char *dir, ps_error *err);

/** Lock the library folder @p dir (created if missing) for a read-update-
 *  write: an exclusive flock on DIR/.lock, waited for when another process
 *  holds it (*waited set, may be NULL).  Returns a descriptor for
 *  ps_template_dir_unlock, or -1 with err. */
PS_EXPORT int ps_template_dir_lock(const char *dir, int *waited, ps_error *err);
PS_EXPORT void ps_template_dir_unlock(int fd);

/** Number of sites and pages the builder has seen. */
PS_EXPORT size_t ps_template_builder_sites(const ps_template_builder *b);
PS_EXPORT uint64_t ps_template_builder_pages(const ps_template_builder *b);

/** Write one library file per site into @p dir (created if missing), each
 *  atomically (temporary file + rename).  The incomplete last batch of every
 *  site is flushed first, as the end of the input ends the paper's batch:
 *  its cached leaves with frequency >= n2 become entries (a last batch of
 *  fewer than n2 pages can therefore only add entries under
 *  count_occurrences).  A site whose pages share nothing gets a library
 *  without entries.  Returns 0 or -1 with err naming the file. */
PS_EXPORT int ps_template_builder_write_dir(ps_template_builder *b, const char *dir, ps_error *err);

/** Flush every site's last batch (as write_dir does) and turn the builder
 *  into an in-memory store; consumes @p b (also on failure; NULL then). */
PS_EXPORT ps_template_store *ps_template_builder_finish(ps_template_builder *b);

PS_EXPORT void ps_template_builder_free(ps_template_builder *b);

/** Pages a site needs for its library to be applied: a library learnt from
 *  fewer pages is left out, by training (the block CSV) and inference
 *  alike (METHODS.md §1.1; template-svm's min_pages option defaults to it). */
#define PS_TEMPLATE_MIN_PAGES 5

/** 1 when @p lib (may be NULL: 0) was learnt from at least
 *  PS_TEMPLATE_MIN_PAGES pages, so it is applied; else 0. */
PS_EXPORT int ps_template_applies(const ps_template_lib *lib);

/** Load every library file (*.tpl) of @p dir.  A corrupt, truncated or
 *  other-version file is an error naming the file (PS_ERR_FORMAT,
 *  PS_ERR_VERSION); a missing directory is PS_ERR_IO. */
PS_EXPORT ps_template_store *ps_template_store_open(const char *dir, ps_error *err);

/** The library of @p site, or NULL when there is none. */
PS_EXPORT const ps_template_lib *ps_template_store_get(const ps_template_store *s, const char *site);

/** Number of libraries in the store, and the i-th (sorted by site). */
PS_EXPORT size_t ps_template_store_count(const ps_template_store *s);
PS_EXPORT const ps_template_lib *ps_template_store_lib(const ps_template_store *s, size_t i);

PS_EXPORT void ps_template_store_free(ps_template_store *s);

/** Load one library file; errors name the file. */
PS_EXPORT ps_template_lib *ps_template_lib_load(const char *path, ps_error *err);
PS_EXPORT void ps_template_lib_free(ps_template_lib *lib);

/** Facts about a library. */
typedef struct ps_template_lib_info {
    const char *site;
    ps_template_params params;
    uint64_t pages;       /**< pages the library was built from */
    uint64_t batches;     /**< batches those pages made (the last may be partial) */
    size_t n_entries;
} ps_template_lib_info;

PS_EXPORT void ps_template_lib_get_info(const ps_template_lib *lib, ps_template_lib_info *info);

/** Entry @p i of a library (0 <= i < n_entries), in the order entries were
 *  made: tag name, text (UTF-8) and frequency (summed over the batches where
 *  it reached n2) and the number of such batches. */
typedef struct ps_template_entry {
    const char *tag;
    const char *text;
    uint32_t chars;
    uint32_t freq;
    uint32_t batches;
} ps_template_entry;

PS_EXPORT int ps_template_lib_entry(const ps_template_lib *lib, size_t i, ps_template_entry *e);

/** Why a leaf matched (or was kept despite matching): one per leaf. */
typedef enum ps_template_verdict {
    PS_TPL_NO_MATCH = 0,     /**< no entry has its tag and a similar text */
    PS_TPL_REMOVE = 1,       /**< matches an entry: removed */
    PS_TPL_KEEP_HEADLINE = 2,/**< matches, kept: the page's own headline */
    PS_TPL_KEEP_MAIN = 3,    /**< matches, kept: sentence in the main text block */
    PS_TPL_ALREADY_REMOVED = 4,/**< the leaf was removed before */
    PS_TPL_KEEP_DATE = 5,    /**< matches, kept: a short date line */
    PS_TPL_KEEP_INLINE = 6   /**< matches, kept: a short link inside running text */
} ps_template_verdict;

/** Per-leaf result of matching a page against a library. */
typedef struct ps_template_match {
    uint8_t verdict;         /**< ps_template_verdict */
    int32_t entry;           /**< matching entry, -1 if none */
    uint32_t distance;       /**< edit distance to it */
} ps_template_match;

/** Returned by the template matching calls below when the page's deadline
 *  (ps_page_options.deadline of its parse) passed while its leaves were
 *  matched: nothing is removed then, and the page should fail with
 *  PS_ERR_TIMEOUT. */
#define PS_TEMPLATE_TIMEOUT ((size_t)-2)

/** Match every leaf of @p page against @p lib under @p rules without
 *  changing the page; out[i] describes leaf i (ps_page_leaves order, n
 *  leaves).  Returns the number of leaves with verdict PS_TPL_REMOVE,
 *  (size_t)-1 when out of memory, or PS_TEMPLATE_TIMEOUT.  Thread-safe for
 *  distinct pages. */
PS_EXPORT size_t ps_template_match_page(const ps_template_lib *lib, const ps_page *page,
                              ps_template_rules rules, ps_template_match *out);

/** Remove (ps_page_remove_leaf) every leaf of @p page that the library's
 *  rules (ps_template_lib_info.params.rules) say to remove; returns how many
 *  were removed ((size_t)-1 when out of memory, PS_TEMPLATE_TIMEOUT when the
 *  page's deadline passed: nothing is removed then).
 *  Does not modify @p lib: thread-safe for distinct pages. */
PS_EXPORT size_t ps_template_apply(const ps_template_lib *lib, ps_page *page);

/** The same with the rules given explicitly. */
PS_EXPORT size_t ps_template_apply_rules(const ps_template_lib *lib, ps_page *page, ps_template_rules rules);

/** Edit distance (Levenshtein, in code points) between two UTF-8 strings if
 *  it is at most @p k, else k + 1.  Banded (Ukkonen), exits early. */
PS_EXPORT unsigned ps_edit_distance_within(const char *a, const char *b, unsigned k);

/** Whether two leaf texts are similar by the paper's rule: edit distance in
 *  code points <= floor(min(len a, len b) / 8), and 0 when the shorter has
 *  at most 8 code points (so "12345678" and "12345679" differ; 9-15
 *  characters allow one edit, 16-23 two, ...). */
PS_EXPORT int ps_template_text_similar(const char *a, const char *b);

/** File name (without folder) of @p site's library: bytes other than
 *  [a-z0-9._-] are written %XX, a leading '.' too, then ".tpl"; the names of
 *  distinct sites differ.  Returns 0, or -1 when it does not fit in @p cap. */
PS_EXPORT int ps_template_file_name(const char *site, char *out, size_t cap);


/* ------------------------------------------------------------------------ */
/* Block features and labels (features/) */
/* ------------------------------------------------------------------------ */
#include <stdio.h> /* FILE, for the block CSV writer */

/** Features are named: "R1".."R5" are the paper's (METHODS.md §1.2);
 *  extended features are named "x_<name>".  A model bundle records the
 *  names it was trained on; inference computes them by name. */
#define PS_FEATURES_PAPER "R1,R2,R3,R4,R5"

/** The extended features (features/features.c says what each measures):
 *  x_punct, x_digits, x_text_density, x_text_log, x_leaves_log,
 *  x_children_log, x_depth, x_dom_depth, x_position, x_subtree_text,
 *  x_subtree_link_density, x_own_share, x_stopwords, x_sentence_len,
 *  x_word_len, x_heading, x_heading_sub, x_p_share, x_link_leaf_share,
 *  x_images_per_char, x_title_words, x_attr_noise, x_attr_content, x_anc_noise,
 *  x_anc_content, the one-hot tag x_tag_body, _section, _div, _article,
 *  _main, _td, _table, _ul, _li, _p, _other, and the page context:
 *  x_main_share, x_main_dist, x_main_offset, x_main_sibling,
 *  x_main_ancestor, x_repeat_siblings, x_repeat_page, x_head_offset,
 *  x_head_dist, x_attr_comment, x_anc_comment, x_cls_noise, x_cls_content,
 *  x_cls_comment, x_cls_caption, x_sec_main, x_sec_aside, x_in_figure,
 *  x_after_image, x_copyright (docs/BLOCK_CSV.md).  Ids
 *  0..4 are R1..R5, the extended ones follow in this order. */

/** Number of features the library can compute. */
PS_EXPORT size_t ps_feature_count(void);
/** Name of feature @p id (0 <= id < ps_feature_count()). */
PS_EXPORT const char *ps_feature_name(size_t id);
/** Id of a feature name, or -1 when the library does not know it (a
 *  context feature "c_*" has id PS_CONTEXT_FEATURE_ID + k, below). */
PS_EXPORT int ps_feature_lookup(const char *name);

/** Compute features @p ids (n_ids of them) for every block of the page:
 *  out[b * n_ids + k] is feature ids[k] of block b.  Uses the page's current
 *  counts, so removed (template) leaves do not count.  Returns 0 or -1. */
PS_EXPORT int ps_page_block_features(const ps_page *page, const int *ids, size_t n_ids, double *out);

/* --- Context features for a second stage (features/context.c) --- */

/** Number of context features: what a first-stage model said about a
 *  block's neighbours (c_self, c_parent, c_siblings, c_prev, c_next,
 *  c_window, c_page_max, c_gap, c_core, c_pos_share, c_sub_pos; docs/BLOCK_CSV.md). */
#define PS_CONTEXT_FEATURES 11
/** ps_feature_lookup's id of context feature k is PS_CONTEXT_FEATURE_ID + k
 *  (ps_page_block_features does not compute them: they need first-stage
 *  scores, ps_context_features does). */
#define PS_CONTEXT_FEATURE_ID 1000
/** Name of context feature @p k ("c_self", ...), NULL past the last. */
PS_EXPORT const char *ps_context_feature_name(size_t k);
/** Index of a context feature's name, or -1. */
PS_EXPORT int ps_context_feature_index(const char *name);
/** The context features of @p n items — the blocks with text of their own,
 *  in document order — from their first-stage decision values @p score:
 *  @p parent[i] is the index (< i) of the nearest enclosing item or -1,
 *  @p chars[i] its own characters.  out[i * PS_CONTEXT_FEATURES + k] gets
 *  feature k of item i; every value is finite.  0, or -1 (out of memory). */
PS_EXPORT int ps_context_features(size_t n, const int32_t *parent, const uint32_t *chars,
                                  const double *score, double *out);

/* --- Labels from gold text (features/gold_align.c) --- */

/** Default gold share from which a block is labelled content. */
#define PS_DEFAULT_LABEL_THRESHOLD 0.5

/**
 * Align the page's text with its gold text and report, per leaf, the share
 * of its text aligned with the gold (0..1) and, per block, the share over its
 * own leaves that are not removed (-1 for a block without word tokens).
 *
 * Both texts are cut into ps_tokenize tokens (words; one token per CJK
 * character), compared ignoring ASCII case, and aligned as sequences
 * (longest common subsequence, patience-anchored for large pages), so a
 * gold word counts only where it stands in the gold's order — a "the" in the
 * navigation is not credited.  Shares are in characters of tokens;
 * punctuation and spaces count in neither part.  Every leaf is aligned,
 * removed ones included (so template removal of gold text shows as lost
 * recall); a leaf without tokens gets 0.  @p leaf_share has one value per
 * leaf (ps_page_leaves order), @p block_share one per block; either may be
 * NULL.  Returns 0, or -1 when out of memory.
 */
PS_EXPORT int ps_page_gold_alignment(const ps_page *page, const char *gold, size_t gold_len,
                           double *leaf_share, double *block_share);

/* --- Block CSV (features/export.c): the table annotators and training use --- */

/** Options of a block CSV.  Zero-initialise, then set what you need. */
typedef struct ps_block_csv_options {
    int extended;          /**< add every x_* feature after R1..R5 */
    int for_annotation;    /**< leave the label column empty (an annotator
                                fills it); gold_share is still given when
                                there is gold */
    size_t preview_chars;  /**< characters of the text column; 0 = 200 */
    uint32_t min_text;     /**< skip blocks with fewer own characters;
                                0 = write every block (the tool's default is
                                1: blocks without text are skipped) */
    double label_threshold;/**< label 1 from this gold share; 0 = 0.5 */
} ps_block_csv_options;

/** Per-set figures of the gold labels, added up by ps_block_csv_page. */
typedef struct ps_label_stats {
    uint64_t pages;            /**< pages written */
    uint64_t pages_gold;       /**< of which had gold */
    uint64_t blocks[3];        /**< blocks written labelled noise (0), content
                                    (1), unlabelled (2: no gold, no text, or
                                    for annotation) */
    uint64_t gold_chars;       /**< token characters of the pages aligned with
                                    the gold (all blocks, skipped ones too) */
    uint64_t gold_in_content;  /**< of which in blocks labelled content */
    uint64_t other_chars;      /**< token characters not aligned */
    uint64_t other_in_noise;   /**< of which in blocks labelled noise or in
                                    removed leaves */
    uint64_t gold_text_chars;  /**< token characters of the gold texts */
    uint64_t gold_text_found;  /**< of which aligned with the page */
    /* pages labelled from snippets (ps_block_csv_page_snippets) */
    uint64_t pages_snippets;   /**< pages written with snippets */
    uint64_t with_snippets, with_found;       /**< 'with' snippets, of which
                                                   found in the page text */
    uint64_t without_snippets, without_found; /**< the same for 'without' */
    uint64_t conflict_blocks;  /**< blocks with votes of both kinds (left
                                    unlabelled; counted in blocks[2]) */
    uint64_t oracle_tp, oracle_fp, oracle_fn, oracle_tn; /**< the snippet rule
                                    on the text of the blocks labelled 1:
                                    how well the labels fit the snippets */
} ps_label_stats;

typedef struct ps_block_csv ps_block_csv;

/** Start a block CSV on @p out (not closed by the writer) and write the
 *  header row:
 *  dataset,page_id,url,site,block_id,block_path,tag,inner_len,
 *  inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,
 *  outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,[x_* with extended],label,
 *  gold_share,text.
 *  block_id is "b" and 16 hex digits of a 64-bit hash of page_id and the
 *  block's DOM path: stable across runs, versions and options (the "b" keeps
 *  spreadsheets from reading it as a number). */
PS_EXPORT ps_block_csv *ps_block_csv_new(FILE *out, const ps_block_csv_options *opt, ps_error *err);

/** Write one row per block of @p page (blocks with fewer than min_text own
 *  characters skipped).  @p gold (may be NULL: label and gold_share empty)
 *  labels the blocks (ps_page_gold_alignment, label 1 when the share >=
 *  label_threshold).  @p site NULL or "" derives the site from the page's
 *  URL (host).  Adds to @p stats when not NULL.  Returns 0, or -1 on a write
 *  error or out of memory. */
PS_EXPORT int ps_block_csv_page(ps_block_csv *w, const char *dataset, const char *page_id,
                      const char *site, const ps_page *page, const char *gold, size_t gold_len,
                      ps_label_stats *stats, ps_error *err);

/** The same for a page of a snippet set: labels from its snippets
 *  (docs/BLOCK_CSV.md: in the page's white-space-collapsed text, every
 *  occurrence of a 'with' snippet votes content for each block it touches,
 *  every occurrence of a 'without' snippet votes noise for the blocks holding
 *  at least half of their own characters or half of the snippet's; 1 =
 *  content votes only, 0 = noise votes only, empty otherwise); gold_share is
 *  empty. */
PS_EXPORT int ps_block_csv_page_snippets(ps_block_csv *w, const char *dataset, const char *page_id,
                               const char *site, const ps_page *page, const ps_snippets *sn,
                               ps_label_stats *stats, ps_error *err);

/** Flush; returns 0 or -1 when a write failed.  Frees the writer. */
PS_EXPORT int ps_block_csv_finish(ps_block_csv *w, ps_error *err);

/** The block id of a path on a page (17 characters + NUL into @p out). */
PS_EXPORT void ps_block_id(const char *page_id, const char *path, char out[18]);

/* --- Reading CSV (features/csv.c) — for block CSVs and any other --- */

/** A CSV file read row by row (libcsv, RFC 4180 quoting; a UTF-8 BOM and
 *  CRLF line ends, as spreadsheets write them, are accepted).  The first row
 *  is the header; columns are found by name. */
typedef struct ps_csv ps_csv;

/** Open @p path ("-" = standard input) and read its header row.  Errors
 *  (unreadable, empty, duplicate column names) name the file and line. */
PS_EXPORT ps_csv *ps_csv_open(const char *path, ps_error *err);
PS_EXPORT void ps_csv_close(ps_csv *csv);
/** Number of header columns and the name of column @p i. */
PS_EXPORT size_t ps_csv_columns(const ps_csv *csv);
PS_EXPORT const char *ps_csv_column_name(const ps_csv *csv, size_t i);
/** Index of the column named @p name, or -1. */
PS_EXPORT int ps_csv_column(const ps_csv *csv, const char *name);
/** The same, with an error "FILE: line 1: the header has no column 'NAME'"
 *  when it is missing. */
PS_EXPORT int ps_csv_require(const ps_csv *csv, const char *name, ps_error *err);
/** Read the next row: 1 a row, 0 end of file, -1 error (malformed quoting,
 *  a row whose field count differs from the header's: FILE: line N: ...). */
PS_EXPORT int ps_csv_next(ps_csv *csv, ps_error *err);
/** Field @p col of the current row ("" when out of range). */
PS_EXPORT const char *ps_csv_field(const ps_csv *csv, size_t col);
/** Line of the file where the current row starts (1 = header). */
PS_EXPORT size_t ps_csv_line(const ps_csv *csv);
/** The file's name as used in errors. */
PS_EXPORT const char *ps_csv_path(const ps_csv *csv);
/** Write @p n bytes as one quoted CSV field (libcsv's csv_fwrite: the field
 *  in double quotes, quotes doubled; commas, newlines and any UTF-8 kept).
 *  Returns 0 or -1 on a write error. */
PS_EXPORT int ps_csv_write_field(FILE *f, const char *s, size_t n);
/** Parse field @p col as a finite number (C locale; surrounding spaces
 *  allowed); else -1 with "FILE: line N: column 'C': 'X' is not a number". */
PS_EXPORT int ps_csv_number(const ps_csv *csv, size_t col, double *out, ps_error *err);


/* ------------------------------------------------------------------------ */
/* Models (train/) — RBF SVM bundles: train, save, load, predict */
/* ------------------------------------------------------------------------ */

/* A model bundle (docs/MODEL_FORMAT.md) is one text file: a header line
 * "pagesift-model 2", key-value lines (features, scaling, C, gamma, CV
 * scores, training data checksum, the body's CRC-32, ...), the embedded
 * libsvm model and an end line.  ps_model is the loaded, read-only form: one model may be used
 * by many threads at once. */

/** Format version written and read by this library. */
#define PS_MODEL_FORMAT_VERSION 2
/** Most features a model may use (prediction keeps them on the stack). */
#define PS_MODEL_MAX_FEATURES 96

typedef struct ps_model ps_model;

/** Load a bundle.  Refuses (NULL, err naming the file) a missing or
 *  truncated file (PS_ERR_IO / PS_ERR_FORMAT), a body whose checksum does
 *  not match (a changed digit: PS_ERR_FORMAT, "checksum mismatch"), a number
 *  that is not finite, another format version (PS_ERR_VERSION; version 1,
 *  without a checksum, with a message naming ps_model_upgrade's command),
 *  and a feature this library cannot compute (names it). */
PS_EXPORT ps_model *ps_model_load(const char *path, ps_error *err);
/** Re-save a format 1 bundle (no checksum) at @p in_path as the current
 *  format at @p out_path (may be the same file; atomic): the same model,
 *  byte for byte, with the new header line and its checksum line; checked
 *  as a load would before it is written.  0, or -1 with err (not format 1,
 *  damaged, unknown feature, write error). */
PS_EXPORT int ps_model_upgrade(const char *in_path, const char *out_path, ps_error *err);
/** The same from bytes in memory; @p name is used in messages. */
PS_EXPORT ps_model *ps_model_parse(const char *text, size_t len, const char *name, ps_error *err);
/** The second-stage bundle that follows @p m's end line in its file (a
 *  stacked model, docs/MODEL_FORMAT.md), parsed and checked as a load
 *  would; NULL with err->code 0 when none follows, NULL with err set when
 *  one follows but cannot be read. */
PS_EXPORT ps_model *ps_model_next_stage(const ps_model *m, ps_error *err);
/** The gate of a stacked model's second stage @p second (features/context.c): the lowest
 *  first-stage score (c_self) among its labelled training rows.  A block the
 *  first stage scores lower is not judged again (it keeps its first-stage
 *  score); -3 (no gate) when it was trained on every row. */
PS_EXPORT double ps_model_stack_gate(const ps_model *second);
/** 1 when a block of first-stage score @p first_score lies below @p gate. */
PS_EXPORT int ps_stack_gated(double first_score, double gate);
/** Where each feature of a stacked model's second stage @p second comes
 *  from: src[k] >= 0 is its column in a first-stage row (of the features
 *  @p first_ids, n_first of them), src[k] = -1 - j context feature j.
 *  0, or -1 when the second stage reads a feature the first does not. */
PS_EXPORT int ps_context_sources(const ps_model *second, const int *first_ids, size_t n_first,
                                 int *src);
/** A second-stage row (@p n features, by @p src) from a block's
 *  first-stage row and its PS_CONTEXT_FEATURES context values. */
PS_EXPORT void ps_context_row(const int *src, size_t n, const double *first_row,
                              const double *context, double *row);
/** Write the bundle atomically (temporary file, fsync, rename). */
PS_EXPORT int ps_model_save(const ps_model *m, const char *path, ps_error *err);
/** $PAGESIFT_MODEL if set; else the first readable of: default.model in
 *  the models folder installed beside libpagesift (lib/../share/pagesift/
 *  models), the same beside the program (bin/../share/...), and, for the
 *  library of a build folder, the source tree's models/default.model.  When
 *  none is there, the first place (a load then fails naming it). */
PS_EXPORT const char *ps_model_default_path(void);
/** The places ps_model_default_path() looked at, for a message
 *  ("PATH (beside libpagesift), PATH (beside the program)"). */
PS_EXPORT const char *ps_model_default_searched(void);
/** Number of features, their ps_feature_lookup ids in model order, and
 *  their names comma-separated ("R1,R2,R3,R4,R5"). */
PS_EXPORT size_t ps_model_n_features(const ps_model *m);
PS_EXPORT const int *ps_model_feature_ids(const ps_model *m);
PS_EXPORT const char *ps_model_feature_names(const ps_model *m);
/** Value of a key of the bundle header ("C", "cv_f1", ...), or NULL. */
PS_EXPORT const char *ps_model_info(const ps_model *m, const char *key);
/** Classify one block: @p x holds the raw (unscaled) features in model
 *  order.  Returns 1 content / 0 noise; *score (may be NULL) is the decision
 *  value, > 0 leaning to content.  Thread-safe, allocates nothing. */
PS_EXPORT int ps_model_predict(const ps_model *m, const double *x, double *score);
/** Classify many blocks at once, each exactly as ps_model_predict would:
 *  row i is @p x + @p rows[i] * @p stride (raw features in model order;
 *  @p rows NULL: row i is x + i * stride).  content[i] gets 1 / 0 and
 *  score[i] (may be NULL) the decision value.  Faster than one call per row
 *  (the support vectors are read once per group of rows, from cache, instead
 *  of once per row).  Thread-safe, allocates nothing. */
PS_EXPORT void ps_model_predict_many(const ps_model *m, const double *x, size_t stride, const uint32_t *rows,
                           size_t n, uint8_t *content, double *score);
PS_EXPORT void ps_model_free(ps_model *m);

/* Training (train/): feature CSVs (the features section's format) ->
 * grouped k-fold grid search over C and gamma -> final model. */

/** What keeps rows together in cross-validation folds. */
typedef enum ps_train_group {
    PS_GROUP_PAGE = 0, /**< dataset + page_id: no page on both sides */
    PS_GROUP_SITE = 1  /**< site (a row with an empty site: its page) */
} ps_train_group;

/** How the class imbalance (noise outnumbers content) is handled. */
typedef enum ps_train_balance {
    PS_BALANCE_NONE = 0,
    PS_BALANCE_UNDERSAMPLE = 1, /**< seeded subsample of the majority class
                                     down to the minority's size */
    PS_BALANCE_WEIGHT = 2       /**< libsvm class weights n/(2 n_class) */
} ps_train_balance;

/** Labelled rows of one or more feature CSVs. */
typedef struct ps_train_data ps_train_data;

/** Read feature CSVs.  @p features: "paper" (R1..R5), "extended" (R1..R5
 *  and every x_* column of the first file's header, in header order) or a
 *  comma-separated list of column names.  Rows with an empty label are
 *  counted and skipped.  Errors name the file and line: missing column,
 *  non-numeric/NaN/infinite value, label other than 0/1, malformed CSV, no
 *  labelled rows, a single class. */
PS_EXPORT ps_train_data *ps_train_data_load(const char *const *paths, size_t n_paths,
                                  const char *features, ps_train_group group,
                                  ps_error *err);
PS_EXPORT void ps_train_data_free(ps_train_data *d);

/** Counts of a loaded data set. */
typedef struct ps_train_data_info {
    size_t rows;          /**< labelled rows */
    size_t content;       /**< rows labelled 1 */
    size_t noise;         /**< rows labelled 0 */
    size_t unlabelled;    /**< rows skipped for an empty label */
    size_t groups;        /**< pages (or sites) */
    size_t n_features;
    const char *features; /**< names, comma-separated */
    uint64_t checksum;    /**< FNV-1a 64 of the labelled rows (group key,
                               features as %.17g, label), in file order */
} ps_train_data_info;
PS_EXPORT void ps_train_data_get_info(const ps_train_data *d, ps_train_data_info *info);

/** Training options; start from ps_train_options_init(). */
typedef struct ps_train_options {
    ps_train_balance balance; /**< default PS_BALANCE_UNDERSAMPLE */
    uint64_t seed;            /**< default 1 */
    int folds;                /**< default 10 */
    int select_accuracy;      /**< 0: best F1 of the content class (default) */
    double c_start, c_stop, c_step; /**< log2 C grid, default -5:15:2 */
    double g_start, g_stop, g_step; /**< log2 gamma grid, default -15:3:2 */
    int coarse_fine;          /**< 1: every other grid point, then the full
                                   step around the best (default 0) */
    int threads;              /**< 0 = all cores */
    size_t cv_max_rows;       /**< grid CV on a seeded sample of whole groups
                                   of about this many rows; 0 = all rows
                                   (default 20000) */
    double cache_mb;          /**< libsvm kernel cache per training (200) */
    int quiet;                /**< 1: no progress on stderr */
    int verbose;              /**< 1: a line on stderr per finished grid
                                   point (with time left), even when stderr
                                   is not a terminal */
} ps_train_options;
PS_EXPORT void ps_train_options_init(ps_train_options *o);

/** Cross-validated scores of one (C, gamma) point, content = positive. */
typedef struct ps_train_point {
    double log2c, log2g;
    size_t tp, fp, fn, tn;
    double precision, recall, f1, accuracy;
    int done;             /**< 0: not evaluated (coarse-fine skipped it) */
    double seconds;       /**< CPU time of its folds */
} ps_train_point;

/** Result of a grid search. */
typedef struct ps_train_grid {
    ps_train_point *points; /**< n_c x n_g, C-major: points[i * n_g + j] */
    size_t n_c, n_g;
    size_t best;            /**< index of the chosen point */
    size_t cv_rows, cv_groups; /**< rows and groups the CV ran on */
    int folds;              /**< folds used (fewer when fewer groups) */
    size_t evaluated;       /**< points evaluated */
    double wall_seconds;
} ps_train_grid;

/** Grid search with grouped k-fold CV: each training fold is balanced as
 *  asked, each test fold is scored as it is.  Grid points run in parallel.
 *  Returns 0, or -1 with err set. Free with ps_train_grid_free. */
PS_EXPORT int ps_train_grid_search(const ps_train_data *d, const ps_train_options *o,
                         ps_train_grid *out, ps_error *err);
PS_EXPORT void ps_train_grid_free(ps_train_grid *g);

/** Fold of every row (0..folds-1) as the CV uses it: groups shuffled with
 *  the seed, each given to the fold with the fewest rows so far.  Returns
 *  the number of folds used (min(folds, groups)); @p fold_of has one entry
 *  per labelled row. */
PS_EXPORT int ps_train_assign_folds(const ps_train_data *d, int folds, uint64_t seed, int *fold_of);

/** Train on all rows (balanced as asked) with 2^log2c, 2^log2g and build the
 *  bundle; @p cv (may be NULL) is recorded as the CV scores, @p grid (may be
 *  NULL) for folds/grouping facts; @p stamp 1 adds a "created" date line
 *  (otherwise the same inputs give a byte-identical bundle). */
PS_EXPORT ps_model *ps_train_final(const ps_train_data *d, const ps_train_options *o,
                         double log2c, double log2g, const ps_train_grid *grid,
                         int stamp, ps_error *err);

/** Write the grid as CSV (one row per evaluated point) or as an SVG heat
 *  map of CV F1 over log2 C x log2 gamma, best point marked; atomically. */
PS_EXPORT int ps_train_write_grid_csv(const ps_train_grid *g, const char *path, ps_error *err);
PS_EXPORT int ps_train_write_grid_svg(const ps_train_grid *g, const char *title,
                            const char *path, ps_error *err);


/* ------------------------------------------------------------------------ */
/* Extraction methods (methods/) — template-svm, svm and the baselines */
/* ------------------------------------------------------------------------ */

/** An extractor: one extraction method set up once (model loaded, template
 *  libraries opened) and then applied to many pages.
 *
 *  Methods (ps_method_count() / ps_method_name()): "template-svm" (the
 *  paper's pipeline, METHODS.md §1.4: site templates removed, then the SVM
 *  keeps the content blocks), "svm" (the SVM alone), "all" (every block: a
 *  reference) and the baselines.
 *
 *  Thread safety: ps_extract may be called on the same extractor from
 *  several threads at once (each with its own page) unless
 *  ps_extractor_is_stateful() says otherwise; a stateful method must be
 *  called from one thread at a time, pages in input order. */
typedef struct ps_extractor ps_extractor;

/** Set-up of an extractor.  Zero-initialise, then set what you need. */
typedef struct ps_extractor_config {
    const char *model_path;    /**< SVM model bundle; NULL = the shipped model */
    const char *templates_dir; /**< per-site template libraries, or NULL */
    const char *options;       /**< method-specific "key=value,key=value", or NULL */
    /** template libraries in memory (e.g. learnt from the collection by
     *  ps_template_builder_finish), used instead of templates_dir; borrowed:
     *  it must outlive the extractor */
    const ps_template_store *templates;
    /** per-site models (pagesift-train --per-site, docs/SITE_MODELS.md):
     *  a page whose site key has a bundle in this folder is classified with
     *  it, others with model_path's; svm and template-svm; NULL = none */
    const char *site_models_dir;
    size_t site_models_cap;    /**< bytes of site models kept loaded (LRU),
                                    0 = PS_SITE_MODELS_CAP_MB (256 MB) */
    /** page-type bundle (pagesift/page_types.h, docs/PAGE_TYPES.md): NULL =
     *  the shipped one when installed (no page types without it), "" =
     *  none, else this file, which must load */
    const char *page_types_path;
} ps_extractor_config;

/** How a block was classified, in ps_extraction.block_class. */
typedef enum ps_block_class {
    PS_CLASS_NOISE = 0,    /**< removed by the classifier */
    PS_CLASS_CONTENT = 1,  /**< kept */
    PS_CLASS_TEMPLATE = 2  /**< every leaf of it removed as site template */
} ps_block_class;

/** The result of extracting one page.  Release with ps_extraction_free. */
typedef struct ps_extraction {
    char *text;              /**< main text, one paragraph per line, '\n'-ended
                                  unless empty; never NULL after success */
    size_t len;              /**< bytes of text */
    char *title;             /**< headline/title, or NULL when none */
    char *date;              /**< publication date if the method finds one,
                                  else NULL */
    uint32_t blocks_kept;    /**< units kept (the method's own: blocks, lines) */
    uint32_t blocks_removed; /**< units removed */
    uint8_t *block_class;    /**< per block (ps_page_blocks order): a
                                  ps_block_class; NULL when the method does
                                  not work on blocks */
    uint8_t *leaf_kept;      /**< per leaf: 1 kept, 0 not; NULL if unknown */
    char *model;             /**< the model that classified the blocks:
                                  "default", or "site:KEY" for a site model
                                  (site_models_dir); NULL for methods
                                  without a model */
    double *block_score;     /**< per block (ps_page_blocks order): the
                                  classifier's final decision value (the
                                  second stage's for a stacked model), NaN
                                  for a block it did not score (no text of
                                  its own); NULL for methods without a model */
    char *page_type;         /**< the kind of page (article, collection,
                                  documentation, forum, listing, product,
                                  service: the page-type bundle's labels),
                                  NULL when the extractor has no page types */
    double page_type_prob;   /**< its probability, 0..1 (0 when NULL) */
} ps_extraction;

/** Number of registered methods. */
PS_EXPORT size_t ps_method_count(void);
/** Name of method @p i (as --method takes it), or NULL past the end. */
PS_EXPORT const char *ps_method_name(size_t i);
/** One-line description of method @p i, or NULL past the end. */
PS_EXPORT const char *ps_method_summary(size_t i);
/** 1 when method @p i needs an SVM model bundle, else 0. */
PS_EXPORT int ps_method_needs_model(size_t i);

/** Set up method @p method (a name of ps_method_name) with @p cfg (may be
 *  NULL: defaults).  Loads the model and template libraries the method
 *  needs; returns NULL with err set (PS_ERR_USAGE for an unknown method,
 *  the loader's code for a missing, truncated or foreign model or library). */
PS_EXPORT ps_extractor *ps_extractor_new(const char *method, const ps_extractor_config *cfg,
                               ps_error *err);

/** Name of the extractor's method. */
PS_EXPORT const char *ps_extractor_method(const ps_extractor *ex);
/** 1 when the method keeps state across pages (see above), else 0. */
PS_EXPORT int ps_extractor_is_stateful(const ps_extractor *ex);
/** The block tags pages must be parsed with for this extractor
 *  (ps_page_options.block_tags): the model's for svm and template-svm (its
 *  block_tags key), ps_default_block_tags otherwise.  Never NULL; owned by
 *  the extractor.  ps_extract refuses a page built with other tags. */
PS_EXPORT const char *const *ps_extractor_block_tags(const ps_extractor *ex);

/** Extract the main text of @p page into @p out (overwritten, zeroed
 *  first).  @p site is the page's site key (ps_site_key) or NULL/"" when it
 *  has none: no template step then.  The page may be modified (template
 *  leaves removed).  Returns 0, or -1 with err set and @p out empty. */
PS_EXPORT int ps_extract(ps_extractor *ex, ps_page *page, const char *site,
               ps_extraction *out, ps_error *err);

/** Free the contents of @p out (not @p out itself) and zero it. */
PS_EXPORT void ps_extraction_free(ps_extraction *out);

/** How the page step reads an input.  Zero-initialise. */
typedef struct ps_step_options {
    ps_site_rule site_rule;  /**< the site key's rule (default: host) */
    size_t max_bytes;        /**< page size cap, 0 = PS_DEFAULT_MAX_BYTES */
    double deadline;         /**< ps_page_options.deadline (ps_now() past
                                  which the page fails), 0 = none */
    unsigned page_flags;     /**< ps_page_options.flags (PS_PAGE_*), 0 = none */
} ps_step_options;

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

/** The whole page step every tool, the batch and the evaluation share:
 *  ps_prepare_input with the extractor's block tags and no templates (the
 *  method applies its own: the site's library when the method uses
 *  templates and it applies, ps_template_applies), then ps_extract.  *page
 *  gets the parsed page (NULL when it could not be parsed), which the
 *  caller frees: its title, charset, the HTML view, leaf scores.  The
 *  input's bytes are freed once parsed (in->data is then NULL; in->len is
 *  kept), so a batch holds DOMs, not bytes and DOMs.  Returns 0 with @p out
 *  filled, or -1 with err set and @p out empty (parse or method failed;
 *  *site is set either way). */
PS_EXPORT int ps_extract_input(ps_extractor *ex, ps_input *in, const ps_step_options *opt,
                               char *site, size_t cap, ps_page **page, ps_extraction *out,
                               ps_error *err);

PS_EXPORT void ps_extractor_free(ps_extractor *ex);


/* ------------------------------------------------------------------------ */
/* Metadata and structured output (extract/metadata.c, output/structure.c)  */
/* ------------------------------------------------------------------------ */
/* [METADATA] declarations of this section go between these markers. */

/** What a page says about itself.  Every string is UTF-8, malloc'ed, NULL
 *  when absent; docs/JSONL.md gives each field's sources in order.  Each
 *  member is a row of the field table (extract/meta_fields.h), which the
 *  output formats and ps_metadata_free read: a new member needs its row. */
typedef struct ps_metadata {
    char *title;          /**< the article's headline (og:title, JSON-LD
                               headline, the h1 that the <title> holds, the
                               <title>), site-name part removed */
    char *page_title;     /**< the <title> as written (whitespace collapsed) */
    char *author;         /**< authors, "; "-separated */
    char *date;           /**< publication date, YYYY-MM-DD */
    char *date_modified;  /**< last modification date, YYYY-MM-DD */
    char *site_name;      /**< og:site_name, JSON-LD publisher name */
    char *description;    /**< og:description, meta description */
    char *lang;           /**< language: the text's (CLD2) when reliable, else
                               the declared one */
    char *lang_declared;  /**< the page's declared language (html lang,
                               Content-Language, og:locale), lower case */
    double lang_confidence; /**< 0..1: share of the text in `lang` when it was
                               identified from the text; -1 when `lang` is
                               the declared one or absent */
    char *canonical_url;  /**< rel=canonical (resolved), og:url */
    char *image;          /**< og:image, JSON-LD image */
    char **categories;    /**< article:section, JSON-LD articleSection,
                               rel=category links */
    size_t n_categories;
    char **tags;          /**< article:tag, JSON-LD keywords, rel=tag links */
    size_t n_tags;
} ps_metadata;

/** The metadata of @p page into @p out (overwritten).  @p x (may be NULL)
 *  is the page's extraction: its text is what the language is identified
 *  on and the last place a date is looked for.  Malformed JSON-LD is
 *  ignored.  Returns 0, or -1 with err (out of memory; PS_ERR_USAGE for a
 *  page parsed with PS_PAGE_NO_METADATA). */
PS_EXPORT int ps_page_metadata(const ps_page *page, const ps_extraction *x, ps_metadata *out,
                     ps_error *err);

/** Free the contents of @p m (not @p m itself) and zero it. */
PS_EXPORT void ps_metadata_free(ps_metadata *m);

/** Structured output formats of the kept content. */
typedef enum ps_struct_format {
    PS_STRUCT_MARKDOWN = 0, /**< CommonMark with GitHub tables */
    PS_STRUCT_XML = 1,      /**< <doc> with <main> and <comments> (docs/XML.md) */
    PS_STRUCT_HTML = 2      /**< a clean HTML document of the kept content */
} ps_struct_format;

/** Options of ps_render. */
enum {
    PS_RENDER_LINKS = 1,  /**< keep links (Markdown [text](url), <ref>, <a>) */
    PS_RENDER_IMAGES = 2, /**< keep images inside the kept content, with alt */
    PS_RENDER_METADATA = 4 /**< batch text and Markdown: YAML front matter
                                (id, url, the metadata, page_type) first */
};

/** The kept content of @p page (the leaves @p x keeps: its leaf_kept) with
 *  its structure — headings, paragraphs, lists, quotes, code, tables — as
 *  @p fmt.  @p meta (may be NULL) gives XML's attributes and the HTML head.
 *  Returns a malloc'ed NUL-terminated string (*len its bytes), or NULL with
 *  err. */
PS_EXPORT char *ps_render(const ps_page *page, const ps_extraction *x, const ps_metadata *meta,
                ps_struct_format fmt, unsigned flags, size_t *len, ps_error *err);

/* [/METADATA] */

/* ------------------------------------------------------------------------ */
/* Evaluation (eval/) — metrics against gold text */
/* ------------------------------------------------------------------------ */

/* Metrics of an extracted text against its gold text (eval/).  Every
 * metric is computed per page; ps_eval_acc averages pages and pools counts.
 * Conventions and readings are stated here and in docs/RESULTS.md. */

/** Which tokens a metric compares. */
typedef enum ps_tokens_kind {
    /** ps_tokenize: Python's \w+ runs (the benchmark's tokenizer), except
     *  that each CJK ideograph and kana is a token of its own */
    PS_TOKENS_WORD = 0,
    /** ICU word-break words (ubrk word iterator, root locale: dictionary
     *  segmentation of Chinese/Japanese/Thai); punctuation and spaces are
     *  not tokens */
    PS_TOKENS_ICU = 1,
    /** ps_tokenize_python: Python's \\w+ runs exactly, CJK runs too (the
     *  WCXB rule's re.findall(r'\\w+')) */
    PS_TOKENS_PYTHON = 2
} ps_tokens_kind;

/** Python's \\w+ runs exactly, a CJK run one token (PS_TOKENS_PYTHON).
 *  Same contract as ps_tokenize. */
PS_EXPORT size_t ps_tokenize_python(const char *text, size_t len, ps_token **out);
/** ICU word-break tokens of @p len bytes of UTF-8 (PS_TOKENS_ICU).  Same
 *  contract as ps_tokenize. */
PS_EXPORT size_t ps_tokenize_icu(const char *text, size_t len, ps_token **out);

/** Matched items of one comparison: tp shared, fp extra in the output, fn
 *  missing from the output. */
typedef struct ps_match {
    uint64_t tp, fp, fn;
} ps_match;

/**
 * Shingle matching of the article-extraction benchmark: the items of a text
 * are its n-grams of consecutive tokens (n = 4 for the benchmark, 1 for
 * single tokens), compared as multisets.  A text with fewer than @p n tokens
 * (but at least one) has one item, the sequence of all its tokens (as the
 * benchmark's _ngrams does); a text without tokens has none.  Tokens are
 * compared byte for byte (case matters, as in the benchmark).
 * Returns 0, or -1 when out of memory or n == 0.
 */
PS_EXPORT int ps_shingle_match(const char *output, size_t output_len,
                     const char *gold, size_t gold_len,
                     unsigned n, ps_tokens_kind kind, ps_match *m);

/** How a page with no items on one side counts in the page averages. */
typedef enum ps_empty_rule {
    /** (default) every page counts in both averages: empty output and empty
     *  gold is perfect (P = R = 1); items on one side only gives P = R = 0 */
    PS_EMPTY_STRICT = 0,
    /** the benchmark's evaluate.py: precision is averaged only over pages
     *  whose output has items, recall only over pages whose gold has items;
     *  so an empty output costs recall but is left out of precision */
    PS_EMPTY_BENCHMARK = 1
} ps_empty_rule;

/** Precision and recall of one page under @p rule.  *p_counts / *r_counts
 *  are set to 0 when the page is left out of that average (benchmark rule
 *  only), else 1. */
PS_EXPORT void ps_match_pr(const ps_match *m, ps_empty_rule rule, double *p, int *p_counts,
                 double *r, int *r_counts);

/** Result of the character-level comparison. */
typedef struct ps_lcs_result {
    uint64_t common;       /**< characters in common (length of the LCS) */
    uint64_t output_chars; /**< characters of the output */
    uint64_t gold_chars;   /**< characters of the gold */
    int exact;             /**< 1: exact LCS; 0: the anchored approximation
                                (a lower bound) was used */
} ps_lcs_result;

/**
 * Characters in common between an output and its gold (METHODS.md §3):
 * the longest common subsequence of their code points, white space left out
 * of both (line breaks and spaces are layout).  Exact by a bit-parallel LCS
 * (Hyyro's algorithm, n*m/64 word operations) after the common prefix and
 * suffix are removed; when that would exceed @p budget word operations
 * (0 = default, 3e8 — a pair of 100 kB texts fits), the texts are first
 * aligned on words that occur exactly once in each (patience diff: longest
 * increasing run of such anchors) and the LCS is computed between anchors;
 * the result is then a lower bound and exact = 0.  Returns 0 or -1 (memory).
 */
PS_EXPORT int ps_char_lcs(const char *output, size_t output_len, const char *gold, size_t gold_len,
                uint64_t budget, ps_lcs_result *r);

/** Thresholds of the page-level grades (METHODS.md §5). */
#define PS_QUALIFIED_RECALL 0.98
#define PS_QUALIFIED_NOISE 0.05
#define PS_EXCELLENT_NOISE 0.02

/** Page-level grade of the text-block paper (§5), on single tokens
 *  (PS_TOKENS_WORD, n = 1): recall = shared tokens / gold tokens; noise =
 *  output tokens not matched in the gold (multiset) / output tokens.
 *  Qualified: recall >= 0.98 and noise <= 0.05; excellent: qualified and
 *  noise < 0.02.  Empty output: noise 0, recall 0 (1 if the gold is empty). */
typedef struct ps_page_grade {
    double recall, noise;
    int qualified, excellent;
} ps_page_grade;

/** Grade from the single-token match @p m1 (n = 1). */
PS_EXPORT ps_page_grade ps_page_grade_of(const ps_match *m1);

/** Leaf-level match of the template-SVM paper (METHODS.md §1.5), content
 *  the positive class.  A leaf is gold content when @p leaf_share (the share
 *  of its text aligned with the gold, from ps_page_gold_alignment) is >=
 *  0.5.  It is predicted content when @p leaf_kept says so, or else (NULL)
 *  when its block's class in @p block_class is content (1) and the leaf was
 *  not removed by a template.  Leaves without any word token are left out
 *  (nothing tells whether they are content).  Returns 0, or -1 when both
 *  @p leaf_kept and @p block_class are NULL. */
PS_EXPORT int ps_leaf_match(const ps_page *page, const double *leaf_share, const uint8_t *block_class,
                  const uint8_t *leaf_kept, ps_match *m);

/** Everything measured for one page. */
typedef struct ps_page_score {
    ps_match sh4;          /**< 4-gram shingles (the benchmark's items) */
    ps_match tok1;         /**< single tokens */
    ps_match words;        /**< single tokens of the lower-cased texts (the
                                WCXB rule: bags of lower-cased \\w+ words) */
    ps_match icu4;         /**< 4-gram shingles of ICU words (if asked) */
    ps_lcs_result chars;   /**< character level */
    ps_page_grade grade;   /**< page level */
    ps_match leaves;       /**< leaf level, content positive (if known) */
    int has_leaves;        /**< 1 when leaves was measured */
    int has_icu;           /**< 1 when icu4 was measured */
    int empty_output;      /**< output without tokens */
    int failed;            /**< the method failed on the page (output empty) */
    double seconds;        /**< time the method took (parse + extract) */
} ps_page_score;

/** Score one page's @p output against @p gold (text metrics only; set
 *  leaves, failed and seconds yourself).  @p with_icu adds icu4.
 *  Returns 0 or -1 (memory). */
PS_EXPORT int ps_score_page(const char *output, size_t output_len, const char *gold, size_t gold_len,
                  int with_icu, ps_page_score *s);

/** Precision, recall and F1 of one metric. */
typedef struct ps_prf {
    double p, r, f1;
} ps_prf;

/** Averages over the pages added to an accumulator. */
typedef struct ps_eval_summary {
    size_t pages, failed, empty_outputs;
    ps_prf sh4;            /**< page-averaged P and R, F1 of the averages
                                (strict empty rule) */
    ps_prf sh4_bench;      /**< the same under the benchmark's empty rule */
    ps_prf sh4_pooled;     /**< counts summed over pages, then P, R, F1 */
    ps_prf tok1, tok1_pooled;
    ps_prf words;          /**< the WCXB rule: P, R and F1 of the lower-cased
                                word bags of each page (empty output: all
                                0), each averaged over pages (F1 is the mean
                                of the pages' F1, not the F1 of the means) */
    ps_prf icu4;           /**< page-averaged, pages with has_icu only */
    ps_prf chars;          /**< page-averaged character P, R; F1 of averages */
    ps_prf chars_pooled;
    ps_prf leaves;         /**< leaf P, R pooled over all leaves of the pages
                                with has_leaves */
    ps_prf leaves_page;    /**< leaf P, R averaged over those pages */
    size_t leaf_pages;     /**< pages with has_leaves */
    size_t icu_pages;
    size_t qualified, excellent;
    double seconds;        /**< sum of the pages' seconds */
    double pages_per_s;    /**< pages / seconds (0 when no time was taken) */
} ps_eval_summary;

/** Accumulates page scores. */
typedef struct ps_eval_acc ps_eval_acc;
PS_EXPORT ps_eval_acc *ps_eval_acc_new(void);
/** Add a page; returns 0 or -1 (memory). */
PS_EXPORT int ps_eval_acc_add(ps_eval_acc *a, const ps_page_score *s);
/** The averages of the pages added so far. */
PS_EXPORT void ps_eval_acc_summary(const ps_eval_acc *a, ps_eval_summary *out);
PS_EXPORT void ps_eval_acc_free(ps_eval_acc *a);


/* ------------------------------------------------------------------------ */
/* Annotation workspace (annotate/) — label blocks by clicking the page      */
/* ------------------------------------------------------------------------ */
/* [ANNOTATE] declarations of this section go between these markers. */
#include <signal.h> /* sig_atomic_t, for ps_annotate_serve */

/** Options of an annotation workspace.  Zero-initialise, then set what you
 *  need. */
typedef struct ps_annotate_options {
    const char *model_path;    /**< pre-label blocks with this model bundle
                                    (the svm method, second passes included)
                                    and show its scores; NULL: no pre-labels */
    const char *templates_dir; /**< per-site template libraries: matching
                                    leaves are removed first, as
                                    pagesift-features --templates does */
    const char *const *block_tags; /**< NULL: the model's, else the default */
    int extended;              /**< the CSV carries the x_* features */
    size_t preview_chars;      /**< text column; 0 = 200 */
    const char *resume_path;   /**< labels JSON of an earlier export (its
                                    labels become confirmed labels), or NULL */
} ps_annotate_options;

typedef struct ps_annotate ps_annotate;

/** Start a workspace in folder @p dir (created; an existing folder must be
 *  empty or a workspace).  Loads the model, template libraries and resume
 *  file.  NULL with err set (PS_ERR_IO for the folder, the loaders' codes). */
PS_EXPORT ps_annotate *ps_annotate_new(const char *dir, const ps_annotate_options *opt, ps_error *err);
/** The block tags pages are parsed with (the model's when it has some). */
PS_EXPORT const char *const *ps_annotate_block_tags(const ps_annotate *a);
/** Add one page (@p in as ps_source_next filled it, status PS_OK): its HTML
 *  file (sanitised, every CSV block marked, CSP), its block data and CSV
 *  rows.  Returns 0, or -1 with err set: PS_ERR_IO means the workspace
 *  cannot be written (stop), any other code concerns this page only. */
PS_EXPORT int ps_annotate_add(ps_annotate *a, const ps_input *in, ps_error *err);
/** Write index.html, data/workspace.js, data/rows.js, data/blocks.json and
 *  the scripts.  Returns 0 or -1 (err set). */
PS_EXPORT int ps_annotate_finish(ps_annotate *a, ps_error *err);
/** Pages and blocks added, blocks pre-labelled, labels taken from resume. */
PS_EXPORT void ps_annotate_counts(const ps_annotate *a, size_t *pages, size_t *blocks, size_t *prelabelled,
                        size_t *resumed);
PS_EXPORT void ps_annotate_free(ps_annotate *a);

/** Serve workspace @p dir on 127.0.0.1:@p port (0: any free port) until
 *  *@p stop becomes non-zero (a signal handler sets it): GET of the
 *  workspace's files (paths checked, no listing), POST /save with
 *  {"labels": {...}, "csv": "..."} writes labels.json and labels.csv
 *  atomically into @p dir.  One connection at a time, requests bounded in
 *  size and time, Host and a custom header checked (no other web site can
 *  post to it).  @p on_ready (may be NULL) is called with the port once
 *  listening; @p log (may be NULL) gets one line per request.  Returns 0 on
 *  a clean stop, -1 with err set when the socket cannot be set up. */
PS_EXPORT int ps_annotate_serve(const char *dir, int port, volatile sig_atomic_t *stop,
                      void (*on_ready)(int port, void *ctx), void *ctx, FILE *log, ps_error *err);

/* [/ANNOTATE] */

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_H */
