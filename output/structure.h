/* output/structure.h — the kept content of a page as a small tree of blocks
 * and inlines (output/structure.c builds it), and the writers that serialise
 * it: Markdown (output/markdown.c), XML (output/xml.c), clean HTML
 * (output/clean_html.c).  A new format made from the tree is one writer and
 * one row of the format table. */
#ifndef PS_OUTPUT_STRUCTURE_H
#define PS_OUTPUT_STRUCTURE_H

#include "output/output.h"

typedef enum ntype {
    N_DOC, N_H, N_P, N_UL, N_OL, N_LI, N_QUOTE, N_PRE, N_TABLE, N_TR, N_TD, N_TH,
    N_TEXT, N_LINK, N_IMG, N_BR, N_B, N_I, N_CODE
} ntype;

typedef struct snode {
    ntype t;
    int level;          /* heading level */
    char *text;         /* N_TEXT, N_PRE */
    char *href;         /* N_LINK, N_IMG (src) */
    char *alt;          /* N_IMG */
    struct snode *kids, *last, *next;
} snode;

/** What a writer gets: the tree and the page it was made of. */
typedef struct ps_tree_doc {
    const snode *blocks;      /**< the tree's top-level blocks */
    const ps_page *page;
    const ps_extraction *x;
    const ps_metadata *meta;  /**< may be NULL */
    const char *title;        /**< meta's title, else the page's */
    unsigned flags;           /**< PS_RENDER_* */
} ps_tree_doc;

/** Appends the document to @p out (ps_buf errors are caught after it). */
typedef void (*ps_tree_writer)(const ps_tree_doc *doc, ps_buf *out);

/** Does a subtree (@p n and its siblings) hold any text or image? */
int ps_tree_has_content(const snode *n);

/** Build the tree of what @p x keeps of @p page and hand it to @p write,
 *  appending to @p out: 0, or -1 with err (out of memory). */
int ps_tree_render(const ps_page *page, const ps_extraction *x, const ps_metadata *meta, unsigned flags,
                   ps_tree_writer write, ps_buf *out, ps_error *err);

/** ps_tree_render_page's flags: an empty line after each page with headers
 *  (Markdown's separation); the YAML front matter with --with-metadata
 *  (Markdown). */
#define PS_TREE_BLANK_AFTER 1u
#define PS_TREE_FRONT_MATTER 2u

/** A page in a tree format, as the batch writes it: a failed page as an
 *  HTML comment naming it ("<!-- pagesift: ID failed: MESSAGE -->", then an
 *  empty line with PS_TREE_BLANK_AFTER); else "<!-- pagesift: ID -->" first
 *  with headers, the front matter (PS_TREE_FRONT_MATTER), the page's tree
 *  written by @p write, and with headers an empty line after it when
 *  PS_TREE_BLANK_AFTER. */
int ps_tree_render_page(const ps_out_page *p, ps_tree_writer write, unsigned page_flags, ps_buf *out,
                        ps_error *err);

/* The writers (the public ps_render's three formats). */
void ps_write_markdown(const ps_tree_doc *doc, ps_buf *out);
void ps_write_xml(const ps_tree_doc *doc, ps_buf *out);
void ps_write_clean_html(const ps_tree_doc *doc, ps_buf *out);

/* ---- markup shared by XML and clean HTML (output/xml.c) ----------------- */

/** @p s escaped for XML/HTML text (attr_value: for an attribute value). */
void ps_markup_escape(ps_buf *o, const char *s, int attr_value);
/** ' name="value"' when @p v is set and not empty. */
void ps_markup_attr(ps_buf *o, const char *name, const char *v);
/** The blocks @p n (and siblings) as XML (html = 0) or HTML (html = 1),
 *  indented by @p ind spaces. */
void ps_markup_blocks(const snode *n, ps_buf *o, int html, int ind);

#endif
