/*
 * pagesift/inputs.h — the inputs beyond ps_source_open / ps_source_next
 * (pagesift.h): how WARC records are read, fetching URLs, sitemaps and feeds
 * (extract/fetch.c, docs/FETCH.md), progress hints, and a second pass over
 * the same inputs (extract/inputs.c, docs/INPUTS.md).
 */
#ifndef PAGESIFT_INPUTS_H
#define PAGESIFT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The arguments of ps_source_open (pagesift.h).
 *
 * Arguments are read in order, lazily (memory does not grow with the
 * collection):
 *   - a file: one page; WARC files (.warc, .warc.gz, or a file starting with
 *     "WARC/" plain or gzipped) give one ps_input per record;
 *   - a directory: searched recursively in byte-wise sorted order for
 *     .html/.htm/.xhtml pages and .warc/.warc.gz files; a folder holding an
 *     index.tsv is a data set (../shared/datasets format) and is read in the
 *     order of its index, not searched;
 *   - a JSON Lines file (.jsonl, .ndjson, plain or .gz, by name): one
 *     ps_input per line, as "-" with jsonl_stdin; ids "<file id>-line-N"
 *     for lines without one;
 *   - "-": stdin: JSON Lines when opt->jsonl_stdin, else a WARC stream (when
 *     it starts with "WARC/" or the gzip magic) or one page;
 *   - "http://..." or "https://...": a URL, fetched (ps_fetch_options below,
 *     docs/FETCH.md);
 *   - list_file (may be combined with args, read after them): lines
 *     PATH<TAB>URL[<TAB>GOLD_PATH]; relative paths are relative to the list
 *     file's folder; empty lines and lines starting with '#' are ignored.
 *     "-" is stdin (relative paths relative to the current folder; "-"
 *     among args too is refused, PS_ERR_USAGE); a list that is not a
 *     regular file (stdin, a pipe) is read once, as it comes.
 * A list file's PATH is a page file, or what else an argument can be when
 * its name or kind says so without reading it: a WARC file (.warc,
 * .warc.gz), a JSON Lines file, a folder, a data set, a pipe — read as that
 * (its line's URL and GOLD_PATH are a page's only); a PATH that is a URL is
 * a failed input (PS_ERR_FORMAT).  Folder entries other than pages, WARC
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
 *  (a WARC file or stdin among the inputs, a list that is not a regular
 *  file).  Computed at open, which walks
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
 *  the list file is not a regular file (stdin, a pipe: read once) or it
 *  cannot be opened again. */
PS_EXPORT ps_source *ps_source_reopen(const ps_source *src, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_INPUTS_H */
