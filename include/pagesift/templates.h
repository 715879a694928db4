/*
 * pagesift/templates.h — per-site template libraries (templates/,
 * docs/TEMPLATES.md, docs/TEMPLATE_FORMAT.md): learnt from a site's pages,
 * written to and opened from a folder, matched against a page to remove
 * the leaves its site repeats.  Extraction opens them through
 * ps_extractor_config (templates_dir, or a ps_template_store learnt in
 * memory); pagesift-template builds them.
 */
#ifndef PAGESIFT_TEMPLATES_H
#define PAGESIFT_TEMPLATES_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Template libraries (templates/) — per-site common noise */

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
/* Libraries by site: ps_template_store, declared in pagesift.h. */

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

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_TEMPLATES_H */
