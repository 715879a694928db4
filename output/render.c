/* output/render.c — ps_render (include/pagesift.h): one page in a
 * structured format for a program, the tree of output/structure.c handed to
 * the format's writer (output/markdown.c, xml.c, clean_html.c).  Above the
 * writers and the tree, which do not call it. */
#include "output/structure.h"

char *ps_render(const ps_page *page, const ps_extraction *x, const ps_metadata *meta,
                ps_struct_format fmt, unsigned flags, size_t *len, ps_error *err)
{
    static const ps_tree_writer writers[] = {
        [PS_STRUCT_MARKDOWN] = ps_write_markdown,
        [PS_STRUCT_XML] = ps_write_xml,
        [PS_STRUCT_HTML] = ps_write_clean_html,
    };
    if ((unsigned)fmt >= sizeof writers / sizeof *writers) {
        ps_set_error(err, PS_ERR_USAGE, "ps_render: no structured format %d", (int)fmt);
        return NULL;
    }
    ps_buf o = {0};
    if (ps_tree_render(page, x, meta, flags, writers[fmt], &o, err) != 0) {
        ps_buf_free(&o);
        return NULL;
    }
    return ps_buf_take(&o, len);
}
