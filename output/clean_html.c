/* output/clean_html.c — `pagesift --format clean-html`: the kept content with
 * its structure (output/structure.c's tree) as a clean HTML document, with
 * the page's title, author, description, date and canonical URL in its
 * head. */
#include <stdio.h>
#include <string.h>

#include "output/structure.h"

void ps_write_clean_html(const ps_tree_doc *doc, ps_buf *o)
{
    const ps_metadata *meta = doc->meta;
    ps_buf_append(o, "<!DOCTYPE html>\n<html", 21);
    ps_markup_attr(o, "lang", meta ? meta->lang : NULL);
    ps_buf_append(o, ">\n<head>\n<meta charset=\"utf-8\">\n", 32);
    if (doc->title) {
        ps_buf_append(o, "<title>", 7);
        ps_markup_escape(o, doc->title, 0);
        ps_buf_append(o, "</title>\n", 9);
    }
    if (meta) {
        static const char *const names[] = {"author", "description", "date"};
        const char *vals[] = {meta->author, meta->description, meta->date};
        for (int i = 0; i < 3; i++)
            if (vals[i]) {
                ps_buf_printf(o, "<meta name=\"%s\" content=\"", names[i]);
                ps_markup_escape(o, vals[i], 1);
                ps_buf_append(o, "\">\n", 3);
            }
        if (meta->canonical_url) {
            ps_buf_append(o, "<link rel=\"canonical\" href=\"", 28);
            ps_markup_escape(o, meta->canonical_url, 1);
            ps_buf_append(o, "\">\n", 3);
        }
    }
    ps_buf_append(o, "</head>\n<body>\n<article>\n", 25);
    ps_markup_blocks(doc->blocks, o, 1, 0);
    ps_buf_append(o, "</article>\n</body>\n</html>\n", 27);
}

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    if (!p->rec->error && !p->rec->duplicate_of && !p->rec->meta) /* ps_page_metadata failed */
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return ps_tree_render_page(p, ps_write_clean_html, 0, out, err);
}

const ps_output_format ps_output_clean_html = {
    .name = "clean-html",
    .extension = ".html",
    .summary = "the kept content with its structure as a clean HTML document",
    .flags = PS_OUT_METADATA | PS_OUT_TREE,
    .render = render,
};
