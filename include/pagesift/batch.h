/*
 * pagesift/batch.h — batch extraction, what the pagesift tool runs: pages
 * from a source (ps_source) through the page step on N threads into records
 * on a stream or one file per page in a folder, with the counts of what
 * happened; optionally the site templates learnt from the inputs first.
 */
#ifndef PAGESIFT_BATCH_H
#define PAGESIFT_BATCH_H

#include <signal.h>
#include <stdio.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output formats (output/: one file each; output/formats.c: the table) */

/** The output formats are the rows of one table (output/formats.c); a
 *  format's number is its row: ps_format_name(i) for i from 0 until NULL
 *  lists them, ps_format_find gives a name's number.  These constants name
 *  the first six rows (later formats are found by name). */
typedef enum ps_out_format {
    PS_FORMAT_TEXT = 0,  /**< the main text */
    PS_FORMAT_JSONL = 1, /**< one JSON object per page and line */
    PS_FORMAT_HTML = 2,  /**< the page with its blocks marked, for a person */
    PS_FORMAT_MARKDOWN = 3, /**< the kept content as Markdown (ps_render) */
    PS_FORMAT_XML = 4,      /**< ... as XML, <doc> with metadata (docs/XML.md) */
    PS_FORMAT_CLEAN_HTML = 5 /**< ... as a clean HTML document */
} ps_out_format;

/** The name of format @p i (what --format takes), NULL past the last. */
PS_EXPORT const char *ps_format_name(size_t i);
/** The extension of a page's file in format @p i with an output folder
 *  (".txt"), NULL past the last. */
PS_EXPORT const char *ps_format_extension(size_t i);
/** One line saying what format @p i writes, NULL past the last. */
PS_EXPORT const char *ps_format_summary(size_t i);
/** The number of the format named @p name (or one of its other names, such
 *  as "md" for markdown), -1 when there is none. */
PS_EXPORT int ps_format_find(const char *name);

/** One page in format @p format, as `pagesift --format NAME` writes it for
 *  a single page (with the format's header, CSV's header row, first):
 *  @p page read from @p in and extracted as @p x (ps_extract_input), of
 *  site @p site (may be NULL), by method @p method (the HTML view names
 *  it); @p render_flags PS_RENDER_* for the structured formats.  The HTML
 *  view modifies the page's DOM.  Returns a malloc'ed NUL-terminated
 *  string (*len its bytes), or NULL with err (no such format: PS_ERR_USAGE;
 *  the page has no body to mark: PS_ERR_PARSE; out of memory). */
PS_EXPORT char *ps_format_page(int format, ps_page *page, const ps_extraction *x, const ps_input *in,
                               const char *site, const char *method, unsigned render_flags,
                               size_t *len, ps_error *err);

/* ---- batch runs ----------------------------------------------------------- */

typedef struct ps_batch_config {
    /** The extractor.  With learn_templates it is NULL: the run makes it
     *  after the first pass, from method and extractor_config with the
     *  learnt libraries. */
    ps_extractor *extractor;
    /** Learn the site template libraries from the inputs first (the paper's
     *  setting: a first pass over every input, default parameters), then
     *  extract in a second pass (ps_source_reopen: not standard input). */
    int learn_templates;
    const char *method;     /**< learn_templates: the method, template-svm */
    const ps_extractor_config *extractor_config; /**< learn_templates: its
                                 set-up (model, options; may be NULL) */
    int format;             /**< a format number: ps_format_find(NAME) or
                                 a PS_FORMAT_* */
    const char *output_dir; /**< one file per page here (created), or NULL */
    FILE *out;              /**< else records go to this stream */
    int text_headers;       /**< text on a stream: a "==> id <==" line before
                                 each page (several pages) */
    ps_site_rule site_rule;
    size_t max_bytes;       /**< page size cap, 0 = PS_DEFAULT_MAX_BYTES */
    unsigned workers;       /**< >= 1; forced to 1 for a stateful method */
    int unordered;          /**< write records as they finish */
    int quiet;              /**< no progress line, no per-page messages */
    size_t total_hint;      /**< pages expected (progress), 0 unknown */
    uint64_t total_bytes;   /**< when total_hint is 0: input bytes expected
                                 (progress by ps_source_bytes_done), 0 unknown */
    unsigned render_flags;  /**< PS_RENDER_LINKS | PS_RENDER_IMAGES for the
                                 structured formats */
    int verbose;            /**< name each skipped record and why on stderr */
    double page_timeout;    /**< seconds a page may take (it fails past
                                 them), 0 = no limit */
    int skip_existing;      /**< output_dir: a page whose output file exists
                                 is skipped (resume a run); temporary files
                                 of a run killed while writing
                                 (ID.EXT.tmp.XXXXXX) are removed first */
    int fail_fast;          /**< stop at the first record that cannot be
                                 written (else it fails and the run goes on) */
    /** NULL, or a flag that a signal handler sets to stop the run early
     *  (pagesift: SIGINT, SIGTERM): no more input is read, pages not yet
     *  started are abandoned (no record, counted in `abandoned`), pages being
     *  extracted finish and every finished record is written whole (in
     *  order: up to the first abandoned page); then the run returns 0 with
     *  counts->interrupted set.  Looked at between pages and at least every
     *  100 ms while waiting. */
    const volatile sig_atomic_t *interrupt;
    /** NULL, or languages to keep, comma-separated ISO 639-1 codes ("de,en"):
     *  a page whose language (ps_metadata.lang: CLD2's when reliable, else
     *  the declared one; "zh-Hant" matches "zh") is not among them, or is
     *  unknown, gets no record and is counted as filtered. */
    const char *langs;
    /** Drop duplicate pages (docs/EXTRACTION.md, "Duplicates"): a page
     *  whose main text has the same words as that of a page written before
     *  it (in input order), or, with a dedup_distance, a 64-bit SimHash of
     *  its word 3-shingles at most that many bits from one, is a record of
     *  status "duplicate" naming the kept page (no text), counted in
     *  duplicates.  Not with unordered (PS_ERR_USAGE).  With output_dir the
     *  kept pages are listed in its .pagesift-dedup, which skip_existing
     *  reads back. */
    int dedup;
    /** dedup: 0 for PS_DEDUP_DISTANCE (6), PS_DEDUP_EXACT for exact
     *  duplicates only, or 1 to 8 bits. */
    int dedup_distance;
    /** output_dir: do not write the folder's manifest.  By default every
     *  record read gets a line in output_dir/PS_BATCH_MANIFEST (its file,
     *  status, URL, id, origin, a note; docs/EXTRACTION.md, "The
     *  manifest"), appended, each line in one write, before the page's
     *  file is renamed into place. */
    int no_manifest;
} ps_batch_config;

/** The manifest's name in an output folder (ps_batch_config.no_manifest). */
#define PS_BATCH_MANIFEST "manifest.tsv"

#define PS_DEDUP_DISTANCE 6 /**< ps_batch_config.dedup_distance's default */
#define PS_DEDUP_EXACT (-1) /**< ... for exact duplicates only */

/** What a run did: read = extracted + empty + failed + skipped + filtered
 *  + duplicates. */
typedef struct ps_batch_counts {
    size_t read, extracted, empty, failed, skipped;
    size_t bytes;           /**< raw bytes of the pages read */
    size_t learnt_pages, learnt_sites; /**< learn_templates: pages the
                                 libraries were learnt from, sites */
    int setup_failed;       /**< the run stopped before its second pass: the
                                 extractor or the source could not be made
                                 again; or before its first page: the
                                 output folder's manifest could not be
                                 opened (err says why) */
    int interrupted;        /**< the run was stopped by *cfg->interrupt */
    int interrupted_learning; /**< ... in learn_templates' first pass: no
                                 page extracted, nothing written (a signal
                                 just after it stops the second pass with
                                 read 0 and this 0) */
    size_t abandoned;       /**< pages read from the input but dropped
                                 without a record by the interrupt or a
                                 fatal error (not in read) */
    size_t filtered;        /**< langs: pages of another or no language */
    size_t duplicates;      /**< dedup: pages dropped as duplicates */
    size_t dedup_kept;      /**< dedup: pages in the index at the end (with
                                 skip_existing, those of earlier runs too) */
    size_t dedup_memory;    /**< dedup: bytes of memory the index held */
} ps_batch_counts;

/** Run the batch over @p src (from its current position; with
 *  learn_templates the second pass reads a ps_source_reopen of it).  Every
 *  page goes through the page step (ps_extract_input) on the workers.
 *  Per-page failures are records with status "failed" (and a line on stderr
 *  unless quiet), never a stop; a record that cannot be written is counted
 *  failed and the run goes on (fail_fast: stops); returns -1 with err only
 *  on a fatal error (reader fatal, fail_fast write, second pass not set
 *  up).  An interrupt (cfg->interrupt) is not an error: 0, with
 *  counts->interrupted.  Output files are written through a temporary file
 *  and a rename, so a stopped run leaves none half-written. */
PS_EXPORT int ps_batch_run(const ps_batch_config *cfg, ps_source *src, ps_batch_counts *counts,
                           ps_error *err);

/** Create @p dir if missing and check it is a writable folder: 0, or -1
 *  with err naming it.  ps_batch_run does it too; tools call it first to
 *  tell a setup error from a page error. */
PS_EXPORT int ps_batch_prepare_output_dir(const char *dir, ps_error *err);

/** 1 when the output file of the page with id @p id is in cfg->output_dir
 *  (what --skip-existing looks for; 0 without an output folder).  The id as
 *  the source gives it (a repeated id's -2, -3 are not tried). */
PS_EXPORT int ps_batch_output_exists(const ps_batch_config *cfg, const char *id);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_BATCH_H */
