/* output/xml.c — `pagesift --format xml`: the kept content with its
 * structure (output/structure.c's tree) in a <doc> with the page's metadata
 * as attributes (docs/XML.md); and the markup writer XML shares with clean
 * HTML (output/clean_html.c). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "extract/page_internal.h"
#include "output/structure.h"

void ps_markup_escape(ps_buf *o, const char *s, int attr_value)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': ps_buf_append(o, "&amp;", 5); break;
        case '<': ps_buf_append(o, "&lt;", 4); break;
        case '>': ps_buf_append(o, "&gt;", 4); break;
        case '"':
            if (attr_value)
                ps_buf_append(o, "&quot;", 6);
            else
                ps_buf_putc(o, '"');
            break;
        default:
            /* control characters are not allowed in XML 1.0 */
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                ps_buf_putc(o, ' ');
            else
                ps_buf_putc(o, *s);
        }
    }
}

/* Inline content: XML (html = 0: <hi rend>, <ref target>, <lb/>, <graphic>,
 * <code>) or HTML (html = 1). */
static void x_inline(const snode *n, ps_buf *o, int html)
{
    for (; n; n = n->next) {
        switch (n->t) {
        case N_TEXT: ps_markup_escape(o, n->text, 0); break;
        case N_BR: ps_buf_append(o, html ? "<br>" : "<lb/>", html ? 4 : 5); break;
        case N_B:
        case N_I:
            ps_buf_append(o, html ? (n->t == N_B ? "<strong>" : "<em>") : (n->t == N_B ? "<hi rend=\"#b\">" : "<hi rend=\"#i\">"),
                          html ? (n->t == N_B ? 8 : 4) : 14);
            x_inline(n->kids, o, html);
            ps_buf_append(o, html ? (n->t == N_B ? "</strong>" : "</em>") : "</hi>",
                          html ? (n->t == N_B ? 9 : 5) : 5);
            break;
        case N_CODE:
            ps_buf_append(o, "<code>", 6);
            x_inline(n->kids, o, html);
            ps_buf_append(o, "</code>", 7);
            break;
        case N_LINK:
            ps_buf_append(o, html ? "<a href=\"" : "<ref target=\"", html ? 9 : 13);
            ps_markup_escape(o, n->href, 1);
            ps_buf_append(o, "\">", 2);
            x_inline(n->kids, o, html);
            ps_buf_append(o, html ? "</a>" : "</ref>", html ? 4 : 6);
            break;
        case N_IMG:
            ps_buf_append(o, html ? "<img src=\"" : "<graphic src=\"", html ? 10 : 14);
            ps_markup_escape(o, n->href, 1);
            ps_buf_append(o, "\" alt=\"", 7);
            ps_markup_escape(o, n->alt, 1);
            ps_buf_append(o, html ? "\">" : "\"/>", html ? 2 : 3);
            break;
        default: break;
        }
    }
}

/* Trimmed inline content of a block element. */
static void x_inline_trim(const snode *kids, ps_buf *o, int html)
{
    ps_buf in = {0};
    x_inline(kids, &in, html);
    size_t a = 0, e = in.len;
    while (a < e && in.data[a] == ' ')
        a++;
    while (e > a && in.data[e - 1] == ' ')
        e--;
    ps_buf_append(o, in.data ? in.data + a : "", e - a);
    ps_buf_free(&in);
}


static void x_block(const snode *n, ps_buf *o, int html, int ind)
{
    if (n->t != N_PRE && !ps_tree_has_content(n->kids))
        return;
    char pad[64];
    int k = ind < 60 ? ind : 60;
    memset(pad, ' ', (size_t)k);
    pad[k] = '\0';
    switch (n->t) {
    case N_H:
        if (html)
            ps_buf_printf(o, "%s<h%d>", pad, n->level);
        else
            ps_buf_printf(o, "%s<head rend=\"h%d\">", pad, n->level);
        x_inline_trim(n->kids, o, html);
        if (html)
            ps_buf_printf(o, "</h%d>\n", n->level);
        else
            ps_buf_append(o, "</head>\n", 8);
        break;
    case N_P:
        ps_buf_printf(o, "%s<p>", pad);
        x_inline_trim(n->kids, o, html);
        ps_buf_append(o, "</p>\n", 5);
        break;
    case N_PRE:
        if (!n->text || !*n->text)
            return;
        ps_buf_printf(o, "%s%s", pad, html ? "<pre><code>" : "<code>");
        ps_markup_escape(o, n->text, 0);
        ps_buf_append(o, html ? "</code></pre>\n" : "</code>\n", html ? 14 : 8);
        break;
    case N_UL:
    case N_OL:
        if (html)
            ps_buf_printf(o, "%s<%s>\n", pad, n->t == N_UL ? "ul" : "ol");
        else
            ps_buf_printf(o, "%s<list rend=\"%s\">\n", pad, n->t == N_UL ? "ul" : "ol");
        for (const snode *li = n->kids; li; li = li->next) {
            if (!ps_tree_has_content(li->kids))
                continue;
            /* an item that is one paragraph: inline; else its blocks */
            int simple = li->kids && !li->kids->next && li->kids->t == N_P;
            ps_buf_printf(o, "%s  <%s>", pad, html ? "li" : "item");
            if (simple) {
                x_inline_trim(li->kids->kids, o, html);
            } else {
                ps_buf_putc(o, '\n');
                ps_markup_blocks(li->kids, o, html, ind + 4);
                ps_buf_append(o, pad, strlen(pad));
                ps_buf_append(o, "  ", 2);
            }
            ps_buf_printf(o, "</%s>\n", html ? "li" : "item");
        }
        ps_buf_printf(o, "%s</%s>\n", pad, html ? (n->t == N_UL ? "ul" : "ol") : "list");
        break;
    case N_QUOTE:
        ps_buf_printf(o, "%s<%s>\n", pad, html ? "blockquote" : "quote");
        ps_markup_blocks(n->kids, o, html, ind + 2);
        ps_buf_printf(o, "%s</%s>\n", pad, html ? "blockquote" : "quote");
        break;
    case N_TABLE:
        ps_buf_printf(o, "%s<table>\n", pad);
        for (const snode *r = n->kids; r; r = r->next) {
            if (r->t != N_TR || !ps_tree_has_content(r->kids))
                continue;
            ps_buf_printf(o, "%s  <%s>", pad, html ? "tr" : "row");
            for (const snode *d = r->kids; d; d = d->next) {
                if (d->t != N_TD && d->t != N_TH)
                    continue;
                if (html)
                    ps_buf_append(o, d->t == N_TH ? "<th>" : "<td>", 4);
                else
                    ps_buf_append(o, d->t == N_TH ? "<cell role=\"head\">" : "<cell>",
                                  d->t == N_TH ? 18 : 6);
                x_inline_trim(d->kids, o, html);
                if (html)
                    ps_buf_append(o, d->t == N_TH ? "</th>" : "</td>", 5);
                else
                    ps_buf_append(o, "</cell>", 7);
            }
            ps_buf_printf(o, "</%s>\n", html ? "tr" : "row");
        }
        ps_buf_printf(o, "%s</table>\n", pad);
        break;
    case N_LI:
    case N_DOC: ps_markup_blocks(n->kids, o, html, ind); break;
    default: break;
    }
}

void ps_markup_blocks(const snode *n, ps_buf *o, int html, int ind)
{
    for (; n; n = n->next)
        x_block(n, o, html, ind);
}

void ps_markup_attr(ps_buf *o, const char *name, const char *v)
{
    if (!v || !*v)
        return;
    ps_buf_printf(o, " %s=\"", name);
    ps_markup_escape(o, v, 1);
    ps_buf_putc(o, '"');
}

static void x_list_attr(ps_buf *o, const char *name, char *const *v, size_t n)
{
    if (!n)
        return;
    ps_buf_printf(o, " %s=\"", name);
    for (size_t i = 0; i < n; i++) {
        if (i)
            ps_buf_putc(o, ',');
        ps_markup_escape(o, v[i], 1);
    }
    ps_buf_putc(o, '"');
}

void ps_write_xml(const ps_tree_doc *doc, ps_buf *o)
{
    const ps_metadata *meta = doc->meta;
    const ps_extraction *x = doc->x;
    ps_buf_append(o, "<doc", 4);
    /* the metadata fields that have an attribute (extract/meta_fields.h), in
     * <doc>'s order; the title falls back to the page's <title>, the URL
     * (canonical_url) to the page's own */
    for (int rank = 1;; rank++) {
        const ps_meta_field *f = NULL;
        for (size_t i = 0; i < ps_meta_n_fields && !f; i++)
            if (ps_meta_fields[i].xml_rank == rank)
                f = &ps_meta_fields[i];
        if (!f)
            break;
        int is_title = f->offset == offsetof(ps_metadata, title);
        int is_url = f->offset == offsetof(ps_metadata, canonical_url);
        if (!meta && !is_title && !is_url)
            continue;
        if (f->kind == PS_META_LIST) {
            size_t n;
            char *const *items = ps_meta_list(meta, f, &n);
            x_list_attr(o, f->xml, items, n);
        } else if (f->kind == PS_META_SHARE) {
            char num[32];
            ps_markup_attr(o, f->xml, ps_meta_share(meta, f, num, sizeof num));
        } else {
            const char *v = is_title ? doc->title : meta ? ps_meta_text(meta, f) : NULL;
            ps_markup_attr(o, f->xml, is_url && !v ? doc->page->url : v);
        }
    }
    if (x && x->page_type) {
        char pr[16];
        snprintf(pr, sizeof pr, "%.3f", x->page_type_prob);
        ps_markup_attr(o, "page_type", x->page_type);
        ps_markup_attr(o, "page_type_prob", pr);
    }
    ps_buf_append(o, ">\n  <main>\n", 11);
    ps_markup_blocks(doc->blocks, o, 0, 4);
    ps_buf_append(o, "  </main>\n  <comments/>\n</doc>\n", 31);
}

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    if (!p->rec->error && !p->rec->duplicate_of && !p->rec->meta) /* ps_page_metadata failed */
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return ps_tree_render_page(p, ps_write_xml, 0, out, err);
}

const ps_output_format ps_output_xml = {
    .name = "xml",
    .extension = ".xml",
    .summary = "the kept content with its structure in a <doc> with the metadata as attributes "
               "(docs/XML.md)",
    .flags = PS_OUT_METADATA | PS_OUT_TREE,
    .render = render,
};
