/*
 * pagesift.h — libpagesift, the runtime: the main text of web pages.
 *
 * pagesift strips the noise from web pages (navigation, copyright lines, ads,
 * related links, comments) and keeps the main text.  This header has what a
 * program that extracts needs, most used first: ps_sift (HTML in, text out),
 * extractors, inputs, metadata and rendering.  Every other step has a
 * header under pagesift/, batch.h first (batch runs, output formats);
 * training, evaluation, labels and annotation are the research library's,
 * libpagesift-lab (pagesift/lab.h).  The map: docs/ARCHITECTURE.md.
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

/** Mark the calls and data a shared library exports: libpagesift's
 *  (PS_EXPORT) and libpagesift-lab's (PS_LAB_EXPORT, in the research
 *  headers).  Both are built with -fvisibility=hidden: what a public header
 *  declares without them stays internal. */
#ifndef PS_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define PS_EXPORT __attribute__((visibility("default")))
#else
#define PS_EXPORT
#endif
#endif
#ifndef PS_LAB_EXPORT
#define PS_LAB_EXPORT PS_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Errors, and the objects the calls below pass around. */

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

/* A parsed page, one input, a page's metadata (defined below), template
 * libraries by site (templates.h), a snippet set's page (dataset.h). */
typedef struct ps_page ps_page;
typedef struct ps_input ps_input;
typedef struct ps_metadata ps_metadata;
typedef struct ps_template_store ps_template_store;
typedef struct ps_snippets ps_snippets;

/* ------------------------------------------------------------------------ */
/* Main text in one call (batch/sift.c)                                      */
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
 */

/** What was extracted from one page (opaque: the ps_result_* calls read it). */
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

/** The shipped model's path, which ps_sift and ps_sifter_new(NULL) load
 *  (where it is looked for: pagesift/model.h). */
PS_EXPORT const char *ps_model_default_path(void);

/** The main text: UTF-8, one paragraph per line, '\n'-ended unless empty;
 *  never NULL.  *len (may be NULL) gets its length in bytes. */
PS_EXPORT const char *ps_result_text(const ps_result *r, size_t *len);
/** The article's headline (ps_metadata.title: og:title, JSON-LD headline,
 *  the h1 the <title> holds, the <title>), "" when none. */
PS_EXPORT const char *ps_result_title(const ps_result *r);
/** Everything known about the page (author, dates, site name, language,
 *  ...: ps_metadata, below); owned by @p r. */
PS_EXPORT const ps_metadata *ps_result_metadata(const ps_result *r);
/** The charset the page was decoded from, e.g. "utf-8". */
PS_EXPORT const char *ps_result_charset(const ps_result *r);
PS_EXPORT void ps_result_free(ps_result *r);

/* ------------------------------------------------------------------------ */
/* The library: version, initialisation, messages                            */
/* ------------------------------------------------------------------------ */

/** Version of the library, e.g. "0.1.0". */
PS_EXPORT const char *ps_version(void);
/** Initialise libxml2 for use from several threads.  Call it before the
 *  other calls (ps_sift and ps_sifter_new call it themselves); further calls
 *  do nothing; thread-safe. */
PS_EXPORT void ps_init(void);

/** Where the library's messages go: the notes and warnings of a run (a page
 *  of a batch that failed, a skipped file with verbose, temporary files
 *  removed, a training grid's points), one line each, without a newline and
 *  without a program's name.  @p fn NULL (the default): each line on
 *  standard error.  As libsvm's svm_set_print_string_function: set it
 *  before a run, not during one; @p fn may be called from several threads
 *  at once.  The pagesift tools print each line after their name. */
PS_EXPORT void ps_set_print_function(void (*fn)(const char *line));

/* ------------------------------------------------------------------------ */
/* Extractors (methods/): template-svm, svm and the baselines                */
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
typedef struct ps_options ps_options; /**< a method's option values (pagesift/options.h) */

/** Set-up of an extractor.  Zero-initialise, then set what you need. */
typedef struct ps_extractor_config {
    const char *model_path;    /**< SVM model bundle; NULL = the shipped model */
    const char *templates_dir; /**< per-site template libraries, or NULL */
    const char *options;       /**< "key=value,...", or NULL: set after method_options */
    /** template libraries in memory (e.g. learnt from the collection by
     *  ps_template_builder_finish), used instead of templates_dir; borrowed:
     *  it must outlive the extractor */
    const ps_template_store *templates;
    /** per-site models (pagesift-train --per-site, docs/SITE_MODELS.md):
     *  a page whose site key has a bundle in this folder is classified with
     *  it, others with model_path's; svm and template-svm; NULL = none */
    const char *site_models_dir;
    size_t site_models_cap;    /**< bytes of loaded site models (LRU), 0 = PS_SITE_MODELS_CAP_MB */
    /** page-type bundle (pagesift/page_types.h, docs/PAGE_TYPES.md): NULL =
     *  the shipped one when installed (none without it), "" = none, else
     *  this file, which must load */
    const char *page_types_path;
    const ps_options *method_options; /**< typed option values, or NULL (copied) */
    const char *site_base_path; /**< site models' base if model_path is reduced; NULL: reduced_from_file */
} ps_extractor_config;

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
                                  NULL without page types or page text */
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
PS_EXPORT ps_extractor *ps_extractor_new(const char *method, const ps_extractor_config *cfg, ps_error *err);
PS_EXPORT void ps_extractor_free(ps_extractor *ex);

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

/* ------------------------------------------------------------------------ */
/* Inputs and their sites (extract/inputs.c, extract/site.c)                 */
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
 * Arguments are files, folders (searched for pages and WARC files, or read
 * as a data set when they hold an index.tsv), WARC files, "-" (standard
 * input: a page, a WARC stream or JSON Lines) and URLs, read in order and
 * lazily; a list file adds more.  Nothing about one input is fatal: it
 * becomes a failed ps_input whose msg says why, and reading goes on.
 * Every kind of argument, how WARC records are read, fetching, progress
 * hints and a second pass over the same inputs: pagesift/inputs.h.
 */

/** How a page's site key is derived from its URL. */
typedef enum ps_site_rule {
    PS_SITE_HOST = 0,        /**< host name, lower case, "www." kept */
    PS_SITE_HOST_PATH1 = 1   /**< host + "/" + first path segment */
} ps_site_rule;

/** A filter of data set pages by site fold (pagesift/dataset.h). */
typedef struct ps_fold {
    unsigned k, n;   /**< fold k of n, 1 <= k <= n */
    int complement;  /**< 1: keep the pages NOT in fold k */
} ps_fold;

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
struct ps_input {
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
};

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

/** The site key of an input, the one rule of every tool, training and
 *  inference alike: the key of its URL by @p rule; else, under the host
 *  rule, the site given with the page (a data set's site column); else ""
 *  (no template step). */
PS_EXPORT void ps_input_site(const ps_input *in, ps_site_rule rule, char *out, size_t cap);

/* ------------------------------------------------------------------------ */
/* An input parsed and extracted: the page step (batch/extractor.c)          */
/* ------------------------------------------------------------------------ */

/** How the page step reads an input.  Zero-initialise. */
typedef struct ps_step_options {
    ps_site_rule site_rule;  /**< the site key's rule (default: host) */
    size_t max_bytes;        /**< page size cap, 0 = PS_DEFAULT_MAX_BYTES */
    double deadline;         /**< ps_page_options.deadline (ps_now() past
                                  which the page fails), 0 = none */
    unsigned page_flags;     /**< ps_page_options.flags (PS_PAGE_*), 0 = none */
} ps_step_options;

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

/** The URL of a page (ps_extract_input's *page), as given, or "". */
PS_EXPORT const char *ps_page_url(const ps_page *page);
/** The <title> text, whitespace collapsed, or "". */
PS_EXPORT const char *ps_page_title(const ps_page *page);
PS_EXPORT void ps_page_free(ps_page *page);

/** Pages larger than this are refused unless a max_bytes says otherwise. */
#define PS_DEFAULT_MAX_BYTES ((size_t)64 << 20)
/** Seconds of a monotonic clock (CLOCK_MONOTONIC), for deadlines. */
PS_EXPORT double ps_now(void);

/* ------------------------------------------------------------------------ */
/* Metadata and rendering (extract/metadata.c, output/structure.c)           */
/* ------------------------------------------------------------------------ */

/** What a page says about itself.  Every string is UTF-8, malloc'ed, NULL
 *  when absent; docs/JSONL.md gives each field's sources in order.  Each
 *  member is a row of the field table (extract/meta_fields.h), which the
 *  output formats and ps_metadata_free read: a new member needs its row. */
struct ps_metadata {
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
};

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

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_H */
