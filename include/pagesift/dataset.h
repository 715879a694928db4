/*
 * pagesift/dataset.h — data sets in the ../shared/datasets format
 * (extract/dataset.c, docs/INPUTS.md): a folder with index.tsv, html/ and
 * either gold/ (gold text) or evaldata.json (snippets).  The inputs read a
 * data set folder as pages (ps_source_open); this header is for programs
 * that want its index, gold and snippets: evaluation, labels, training.
 */
#ifndef PAGESIFT_DATASET_H
#define PAGESIFT_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The snippets of one page of a snippet set (docs/INPUTS.md): text that
 *  must be in the page's main text and text that must not be (the
 *  typedef ps_snippets is in pagesift.h, for ps_input). */
struct ps_snippets {
    char **with;      /**< UTF-8, as in evaldata.json */
    size_t n_with;
    char **without;
    size_t n_without;
};

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

/* ps_fold (pagesift.h) filters pages by site folds, for cross-validation
 * grouped by site: the fold of a page = FNV-1a 64-bit hash of the bytes of
 * its site key (the site column, or the id when the site is empty) mod n,
 * plus 1.  n == 0: no filter. */

/** Parse "K/N" (1 <= K <= N <= 1000) into @p f (complement left as is).
 *  Returns 0, or -1 with err set (a message naming the text). */
PS_EXPORT int ps_fold_parse(const char *spec, ps_fold *f, ps_error *err);
/** The fold (1..n) of a page among n folds (ps_fold, pagesift.h). */
PS_EXPORT unsigned ps_dataset_page_fold(const ps_dataset_page *p, unsigned n);
/** Keep only the pages the filter selects (order kept); returns how many
 *  remain.  A filter with n == 0 keeps every page. */
PS_EXPORT size_t ps_dataset_filter(ps_dataset *ds, const ps_fold *f);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_DATASET_H */
