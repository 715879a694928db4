/* extract/inputs_internal.h — the pieces behind ps_source (pagesift.h,
 * [INPUTS]): a buffered byte stream that inflates gzip transparently
 * (instream.c), the WARC record reader (warc.c), the HTTP payload of a WARC
 * response (http_payload.c), the sorted recursive directory walk (dirwalk.c),
 * JSON Lines records (jsonl_input.c) and small ps_input helpers (input.c). */
#ifndef PS_INPUTS_INTERNAL_H
#define PS_INPUTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/inputs.h"

/* ---- instream.c: plain or gzip bytes from a file descriptor ------------- */

/** A buffered reader of a file or stdin.  gzip input (one member or many
 *  concatenated members) is detected by its magic bytes and inflated; the
 *  caller sees the uncompressed bytes.  Memory is bounded by the buffers
 *  (a few hundred KB) whatever the size of the file. */
typedef struct ps_instream ps_instream;

/** Open @p path ("-" = stdin, not closed at the end; "stdin" in messages).  Returns NULL with err set (PS_ERR_IO) when it cannot be opened. */
ps_instream *ps_instream_open(const char *path, ps_error *err);
void ps_instream_free(ps_instream *s);

/** 1 when the input is gzip. */
int ps_instream_is_gzip(const ps_instream *s);
/** Uncompressed offset of the next byte to be read. */
uint64_t ps_instream_offset(const ps_instream *s);
/** Bytes of the file consumed so far (compressed ones for gzip): progress. */
uint64_t ps_instream_file_offset(const ps_instream *s);
/** When a gzip member begins at uncompressed offset @p off (among the
 *  recent ones), its offset in the compressed file; else -1. */
int64_t ps_instream_member_offset(const ps_instream *s, uint64_t off);

/** Make at least @p n bytes available without consuming them (fewer at the
 *  end of input or before an error, which the next read then reports).
 *  *avail gets the count; returns a pointer to them, or NULL on a read/gzip
 *  error with nothing available (see ps_instream_error). */
const unsigned char *ps_instream_peek(ps_instream *s, size_t n, size_t *avail);
/** Read up to @p n bytes into @p dst (NULL: discard them).  Returns the
 *  count (less than n only at the end of input or on error).  When @p last is
 *  not NULL it gets the last byte read (unchanged when none). */
size_t ps_instream_read(ps_instream *s, void *dst, size_t n, int *last);
/** Append one line (up to and including '\n', or up to the end of input) to
 *  @p line.  Lines longer than @p max are consumed but not stored.  Returns
 *  1 (a line), 0 (end of input, nothing read), -1 (error or out of memory),
 *  -2 (line longer than max, consumed). */
int ps_instream_getline(ps_instream *s, ps_buf *line, size_t max);
/** Push @p n bytes back in front of the unread input (they are read next). */
int ps_instream_unread(ps_instream *s, const void *data, size_t n);

/** After a NULL/short read: the error message ("" when the input simply
 *  ended), and whether the gzip data ended inside a member (truncated). */
const char *ps_instream_error(const ps_instream *s);
int ps_instream_truncated(const ps_instream *s);

/** The whole of a file through ps_instream (gzip inflated, several members
 *  allowed) into *out, at most @p max bytes once inflated.  Returns 0; -1
 *  out of memory; 1 a failure of the file (code and message in *e).  What
 *  ps_read_page_file (pagesift/dataset.h) and a gzip'ed page file read. */
int ps_read_inflated(const char *path, size_t max, ps_buf *out, ps_error *e);

/** Corrupt gzip data met in resync mode. */
typedef struct ps_instream_damage {
    int pending;
    int not_member;        /**< bytes that do not start a gzip member (no data of one lost) */
    uint64_t out_from;     /**< uncompressed offset where the damaged member began */
    uint64_t out_at;       /**< uncompressed offset where the damage was found */
    uint64_t suspect_from; /**< bytes from here may be wrong (out_from for a CRC or length
                                mismatch, found after the member's data; else out_at) */
    uint64_t raw_from, raw_to; /**< compressed: the damaged member, the next one (or the end) */
    char msg[200];
} ps_instream_damage;
/** Resync mode (the WARC reader's): corrupt gzip data, or bytes between
 *  members that are not a member, no longer end the input with an error:
 *  the stream ends there (reads return no more bytes, as at the end of the
 *  input) until the caller takes the damage, then goes on at the next gzip
 *  member (magic 1f 8b 08, searched from the damaged member's start; the
 *  last HIST_CAP compressed bytes of a member are kept for that). */
void ps_instream_set_resync(ps_instream *s, int on);
/** The damage the stream stopped at, or NULL. */
const ps_instream_damage *ps_instream_damage_pending(const ps_instream *s);
/** Forget the pending damage: reading goes on at the next member. */
void ps_instream_damage_take(ps_instream *s);

/* ---- warc.c: WARC records -------------------------------------------- */

typedef struct ps_warc ps_warc;

/** Read WARC records from @p s (taken over: freed with the reader); @p name
 *  names the file in messages and origins. */
ps_warc *ps_warc_new(ps_instream *s, const char *name, size_t max_bytes);
/** 1: *in filled (a page, a skipped record or a failed one), 0: end of the
 *  file, -1: out of memory (err set). */
int ps_warc_next(ps_warc *w, ps_input *in, ps_error *err);
void ps_warc_free(ps_warc *w);
/** Bytes of the WARC file read so far (compressed ones for gzip). */
uint64_t ps_warc_file_offset(const ps_warc *w);

/** 1 when the name ends in .warc or .warc.gz (any case). */
int ps_warc_name(const char *path);

/* ---- http_payload.c: the HTTP response inside a WARC response record --- */

/** Turn a response record's block (not taken over) into in->data: parse the
 *  status line and headers, decide whether it is an HTML page (else
 *  in->skipped with the reason in in->msg), set in->charset, decode chunked
 *  transfer coding and gzip/deflate content coding.  @p complete is 0 when
 *  only the first @p len of @p block_len bytes were read (the page is then
 *  too large).  in->origin must be set.  Failures go into in->status/msg;
 *  returns -1 only when out of memory. */
int ps_http_payload(const char *block, size_t len, int complete, uint64_t block_len,
                    size_t max_bytes, ps_input *in);

/** The media type of a Content-Type value is text/html or
 *  application/xhtml+xml. */
int ps_http_is_html_type(const char *content_type);
/** The charset parameter of a Content-Type value, malloc'ed, or NULL. */
char *ps_http_charset_param(const char *content_type);
/** The bytes look like an HTML document (for a missing Content-Type). */
int ps_http_looks_like_html(const char *data, size_t len);

/* ---- dirwalk.c: recursive, sorted directory walk ---------------------- */

typedef enum ps_walk_kind {
    PS_WALK_END = 0,
    PS_WALK_PAGE,     /**< .html, .htm, .xhtml, .html.gz, .htm.gz, or HTML
                           by its first bytes */
    PS_WALK_WARC,     /**< .warc, .warc.gz, or starting "WARC/" */
    PS_WALK_DATASET,  /**< a folder holding index.tsv */
    PS_WALK_ERROR,    /**< a folder that could not be read (message set) */
    PS_WALK_SKIPPED   /**< any other file (msg: why it is not a page) */
} ps_walk_kind;

typedef struct ps_dirwalk ps_dirwalk;

ps_dirwalk *ps_dirwalk_new(const char *root);
/** Next entry: *path (full path) and *rel (relative to the root) stay
 *  valid until the next call.  On PS_WALK_ERROR, msg names the folder; on
 *  PS_WALK_SKIPPED it says why the file is not read. */
ps_walk_kind ps_dirwalk_next(ps_dirwalk *w, const char **path, const char **rel,
                             char *msg, size_t cap);
void ps_dirwalk_free(ps_dirwalk *w);
/** 1 when <dir>/index.tsv exists (a data set folder). */
int ps_is_dataset_dir(const char *dir);

/* ---- jsonl_input.c: JSON Lines records on a stream -------------------- */

typedef struct ps_jsonl ps_jsonl;
/** Records of @p s (taken over), named "@p name line N" in messages; a
 *  record without an id is "<file_id>-line-N" (file_id NULL: "line-N"). */
ps_jsonl *ps_jsonl_new(ps_instream *s, const char *name, const char *file_id, size_t max_bytes);
/** 1: *in filled (a page or a failed line), 0: end, -1: out of memory. */
int ps_jsonl_next(ps_jsonl *j, ps_input *in, ps_error *err);
void ps_jsonl_free(ps_jsonl *j);

/* ---- input.c: ps_input helpers --------------------------------------- */

/** Mark @p in failed with a formatted message. */
void ps_input_fail(ps_input *in, ps_status st, const char *fmt, ...) PS_PRINTF(3, 4);
/** A filename-safe copy of @p s: bytes outside [A-Za-z0-9._-] become '_';
 *  "" becomes "_"; beyond 200 bytes the first 183 are kept with '-' and a
 *  64-bit hash of the whole in hex. */
char *ps_safe_id(const char *s, size_t n);

/* ---- robots.c: robots.txt rules (RFC 9309) ----------------------------- */

typedef struct ps_robots ps_robots;
/** The rules of @p text (@p len bytes) that apply to the product token
 *  @p token (its groups, else the '*' groups).  NULL: out of memory. */
ps_robots *ps_robots_parse(const char *text, size_t len, const char *token);
/** No rules (allow = 1: everything allowed) or every path disallowed. */
ps_robots *ps_robots_new_all(int allow);
/** 1 when @p path (path and query of a URL, "/" when empty) may be fetched. */
int ps_robots_allowed(const ps_robots *r, const char *path);
/** The group's Crawl-delay in seconds, or -1 when none. */
double ps_robots_crawl_delay(const ps_robots *r);
void ps_robots_free(ps_robots *r);

/* ---- fetch.c: pages fetched over HTTP(S) with libcurl ----------------- */

typedef struct ps_fetcher ps_fetcher;
/** A fetcher of @p urls (n of them, copied) and whatever @p fo names (a
 *  URL list file, sitemaps, feeds).  NULL with err set on a setup error
 *  (libcurl, an unreadable list, the WARC output, no memory). */
ps_fetcher *ps_fetcher_new(const char *const *urls, size_t n, const ps_fetch_options *fo,
                           size_t max_bytes, ps_error *err);
/** 1: *in filled (a fetched page, a failed fetch or a skipped response),
 *  0: every URL done, -1: fatal (err set). */
int ps_fetcher_next(ps_fetcher *f, ps_input *in, ps_error *err);
/** The HTTP status and final URL of the input last returned. */
const ps_fetch_info *ps_fetcher_info(const ps_fetcher *f);
void ps_fetcher_free(ps_fetcher *f);
/* ---- warc_out.c: the WARC file of a fetching run (--warc-out) -------- */

typedef struct ps_warc_writer ps_warc_writer;
/** Open @p path for appending (created when missing) and write a warcinfo
 *  record.  NULL with err set. */
ps_warc_writer *ps_warc_writer_open(const char *path, const char *user_agent, ps_error *err);
/** Append a request record (when @p req_len) and a response record for
 *  @p uri, each a gzip member, both or neither.  @p ip may be NULL.
 *  0, or -1 with err set (a write error: the run stops). */
int ps_warc_writer_add(ps_warc_writer *w, const char *uri, const char *ip, const char *request, size_t req_len,
                       const char *response, size_t resp_len, ps_error *err);
void ps_warc_writer_close(ps_warc_writer *w);

/* ---- sitemap.c: URLs of sitemaps and feeds ---------------------------- */

typedef enum ps_sitemap_kind {
    PS_SITEMAP_PAGE,   /* emitted: a page URL */
    PS_SITEMAP_CHILD,  /* emitted: a sitemap of a sitemap index */
    PS_SITEMAP_URLSET = 10, PS_SITEMAP_INDEX, PS_SITEMAP_FEED /* documents */
} ps_sitemap_kind;
/** Receives each URL (absolute, http or https); non-zero stops (no memory). */
typedef int (*ps_sitemap_emit)(void *ctx, const char *url, ps_sitemap_kind kind);
/** The URLs of a sitemap, sitemap index, RSS or Atom document (gzip'ed or
 *  not), relative ones resolved against @p base (may be NULL); entries with
 *  a lastmod before @p since ("YYYY-MM-DD", NULL: all) are left out.
 *  Returns the document's kind (PS_SITEMAP_URLSET/INDEX/FEED), -1 when it is
 *  none of them or cannot be read (msg says why), -2 when emit stopped. */
int ps_sitemap_parse(const char *data, size_t len, const char *base, const char *since, ps_sitemap_emit emit,
                     void *ctx, size_t *n_urls, char *msg, size_t cap);

/** 1 when @p s starts with http:// or https:// (any case; extract/site.c). */
int ps_is_url(const char *s);

#endif
