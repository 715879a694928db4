/* output/output.h — the renderer contract: what every output format is and
 * gets.  Each format is one file of output/ that defines one
 * ps_output_format (its name, file extension, flags and render function)
 * and one row of the format table (output/formats.c).  The batch
 * (batch/batch.c), the CLI, the completion and Python read that table
 * through ps_format_name / ps_format_find (include/pagesift/batch.h); none
 * of them names a format. */
#ifndef PS_OUTPUT_H
#define PS_OUTPUT_H

#include <stdint.h>

#include "common/util.h"
#include "extract/meta_fields.h"
#include "pagesift.h"

/** What a record says about a page: the fields of a JSON Lines record
 *  (docs/JSONL.md) that do not come from the page's metadata. */
typedef struct ps_record {
    const char *id, *url, *site, *origin, *title, *charset;
    const char *text;
    size_t text_len;
    uint32_t blocks_kept, blocks_removed;
    const char *status;   /**< "ok", "empty", "failed" */
    const char *error;    /**< message when failed, else NULL */
    const ps_metadata *meta; /**< the page's metadata (title, author, ...);
                                  NULL: every field null, title from `title` */
    const char *model;    /**< "default", "site:KEY", or NULL (no model) */
    const char *page_type; /**< ps_extraction.page_type, NULL when none */
    double page_type_prob;
    int http_status;      /**< a fetched page: the HTTP status, else 0 (null) */
    const char *final_url; /**< a fetched page: the URL after redirects */
    /** status "duplicate" (--dedup): the kept page's id and URL (NULL:
     *  none), and how near it is (SimHash bits apart); else NULL, -1 */
    const char *duplicate_of, *duplicate_of_url;
    int duplicate_distance;
} ps_record;

/** One page as a renderer gets it. */
typedef struct ps_out_page {
    const ps_record *rec; /**< what the record says; rec->error is set when
                               the page failed */
    ps_page *page;        /**< the parsed page, NULL when it could not be
                               parsed (the HTML view modifies its DOM) */
    const ps_extraction *x; /**< its extraction (all zero when it failed) */
    const char *method;   /**< the extractor's method name */
    unsigned render_flags; /**< PS_RENDER_LINKS | PS_RENDER_IMAGES */
    int headers;          /**< several pages on one stream (not an output
                               folder): each page is announced by its id
                               (text: "==> ID <=="), a failed one with its
                               message */
    const ps_metadata *meta; /**< the page's metadata whatever rec->meta
                               is: set for a parsed page when the format
                               needs it or render_flags has
                               PS_RENDER_METADATA; else NULL */
} ps_out_page;

/** The YAML front matter of a page (output/front_matter.c): id, url, the
 *  metadata fields that are there and page_type between "---" lines.
 *  Returns 0, or -1 when out of memory. */
int ps_front_matter(const ps_out_page *p, ps_buf *out);

enum {
    /** The format needs the page's metadata: rec->meta is set for every
     *  page that was parsed (NULL when ps_page_metadata failed: out of
     *  memory). */
    PS_OUT_METADATA = 1,
    /** A failed page is a record of the format itself (a status and an
     *  error), in a file with the format's extension.  Without: a failed
     *  page's file is ID.error holding its message, and on a stream the
     *  renderer says it failed in its own way. */
    PS_OUT_RECORDS = 2,
    /** The format reads the page's tree or DOM (the structured formats, the
     *  HTML view); without it the page is parsed with PS_PAGE_NO_TREE and
     *  its tree freed once its type is known. */
    PS_OUT_TREE = 4
};

/** An output format: one row of the format table. */
typedef struct ps_output_format {
    const char *name;      /**< --format NAME */
    const char *alias;     /**< another name --format takes, or NULL */
    const char *extension; /**< of a page's file with --output-dir, ".txt" */
    const char *summary;   /**< one line for `pagesift --format help` */
    unsigned flags;        /**< PS_OUT_* */
    /** Append page @p p to @p out.  Returns 0, or -1 with err: the page then
     *  fails with err's message and its failed record is rendered instead
     *  (when that fails too: "out of memory formatting the record" and
     *  last_resort). */
    int (*render)(const ps_out_page *p, ps_buf *out, ps_error *err);
    /** NULL, or append what comes once before the records: at the start of
     *  a stream and of each page's file (CSV's header row). */
    int (*head)(ps_buf *out);
    /** NULL, or a failed page's record written into @p buf (@p cap bytes)
     *  without allocating, when rendering it ran out of memory.  NULL: a
     *  "==> ID <== failed: MESSAGE" line with headers, else an HTML comment
     *  "<!-- pagesift: failed: MESSAGE -->". */
    void (*last_resort)(const ps_out_page *p, char *buf, size_t cap);
} ps_output_format;

/** The ps_page_options.flags a page rendered in format @p f with
 *  @p render_flags (PS_RENDER_*) needs: PS_PAGE_NO_METADATA unless the
 *  format or the flags print the metadata or @p lang_filter (a language
 *  filter reads the page's language from its metadata) says otherwise,
 *  and PS_PAGE_NO_TREE unless the format reads the tree (PS_OUT_TREE). */
unsigned ps_out_page_flags(const ps_output_format *f, unsigned render_flags, int lang_filter);

/** Row @p i of the format table (output/formats.c), NULL past the last.
 *  The row's index is the format's number (ps_batch_config.format). */
const ps_output_format *ps_output_format_at(size_t i);

/** The record of page @p page (NULL when not parsed) read from @p in (output/record.c),
 *  extracted as @p x, of site @p site ("" none), into @p r.  Status "ok" or
 *  "empty"; the caller sets status and error of a failed page and meta. */
void ps_record_of(ps_record *r, const ps_input *in, const ps_page *page, const ps_extraction *x,
                  const char *site);

/* ---- helpers shared by renderers --------------------------------------- */

/** The record's value of metadata text field @p f (extract/meta_fields.h):
 *  the metadata's; without metadata, the record's title for `title`, else
 *  NULL (output/record.c). */
const char *ps_record_meta_text(const ps_record *r, const ps_meta_field *f);

/** Append @p n bytes of @p s as a JSON string (quoted, escaped; invalid
 *  UTF-8 becomes U+FFFD) (output/jsonl.c). */
int ps_json_string(ps_buf *b, const char *s, size_t n);

/** The page's DOM with every block marked by class (block_class per block,
 *  NULL = all content): data-pagesift (class), data-pagesift-block (block_id
 *  of @p page_id and the path, as in the block CSV), data-pagesift-path, a
 *  tooltip, an inline outline and tint; a summary bar at the top; link lists
 *  collapsed; made safe to open (no script, event handler, javascript:/data:
 *  URL, object/embed/applet; a Content-Security-Policy forbidding scripts
 *  and remote loads); serialised as UTF-8 HTML into @p out.  Modifies the
 *  page's DOM (use the page only to free it afterwards).  Returns 0 or -1
 *  with err (output/html_view.c). */
int ps_html_view(ps_page *page, const uint8_t *block_class, const char *method,
                 const char *page_id, ps_buf *out, ps_error *err);

#endif
