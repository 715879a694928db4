/* output/formats.c — the format table: every output format, one row each.
 * The batch, the pagesift tool (--format, its help, the output file names),
 * the bash completion and Python all read this table (ps_format_name,
 * ps_format_find, include/pagesift/batch.h); a new format is a file of
 * output/ defining its ps_output_format (output/output.h) and a row here.
 * A row's index is the format's number (ps_batch_config.format): the first
 * six are ps_out_format's values, so rows are only ever added at the end. */
#include <stddef.h>
#include <string.h>

#include "output/output.h"
#include "pagesift/batch.h"
#include "pagesift/page.h"

#define PS_OUTPUT_FORMATS(ROW) \
    ROW(text)                  \
    ROW(jsonl)                 \
    ROW(html)                  \
    ROW(markdown)              \
    ROW(xml)                   \
    ROW(clean_html)            \
    ROW(csv)

#define DECLARE(f) extern const ps_output_format ps_output_##f;
PS_OUTPUT_FORMATS(DECLARE)
#define ADDRESS(f) &ps_output_##f,
static const ps_output_format *const table[] = {PS_OUTPUT_FORMATS(ADDRESS)};

const ps_output_format *ps_output_format_at(size_t i)
{
    return i < sizeof table / sizeof *table ? table[i] : NULL;
}

const char *ps_format_name(size_t i)
{
    return i < sizeof table / sizeof *table ? table[i]->name : NULL;
}

const char *ps_format_extension(size_t i)
{
    return i < sizeof table / sizeof *table ? table[i]->extension : NULL;
}

const char *ps_format_summary(size_t i)
{
    return i < sizeof table / sizeof *table ? table[i]->summary : NULL;
}

int ps_format_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof table / sizeof *table; i++)
        if (!strcmp(table[i]->name, name) || (table[i]->alias && !strcmp(table[i]->alias, name)))
            return (int)i;
    return -1;
}

unsigned ps_out_page_flags(const ps_output_format *f, unsigned render_flags, int lang_filter)
{
    int meta = (f && (f->flags & PS_OUT_METADATA)) || (render_flags & PS_RENDER_METADATA) || lang_filter;
    int tree = !f || (f->flags & PS_OUT_TREE);
    return (meta ? 0 : PS_PAGE_NO_METADATA) | (tree ? 0 : PS_PAGE_NO_TREE);
}

char *ps_format_page(int format, ps_page *page, const ps_extraction *x, const ps_input *in,
                     const char *site, const char *method, unsigned render_flags, size_t *len,
                     ps_error *err)
{
    const ps_output_format *f = format >= 0 ? ps_output_format_at((size_t)format) : NULL;
    if (!f) {
        ps_set_error(err, PS_ERR_USAGE, "ps_format_page: no output format %d", format);
        return NULL;
    }
    ps_record r;
    ps_record_of(&r, in, page, x, site);
    ps_metadata meta;
    int have_meta = (f->flags & PS_OUT_METADATA) && ps_page_metadata(page, x, &meta, err) == 0;
    if ((f->flags & PS_OUT_METADATA) && !have_meta)
        return NULL;
    r.meta = have_meta ? &meta : NULL;
    ps_out_page p = {.rec = &r, .page = page, .x = x, .method = method, .render_flags = render_flags};
    ps_buf out = {0};
    int rc = (f->head && f->head(&out) != 0) ? ps_set_error(err, PS_ERR_NOMEM, "out of memory")
                                             : f->render(&p, &out, err);
    if (rc == 0 && !out.data && ps_buf_append(&out, "", 0) != 0)
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (have_meta)
        ps_metadata_free(&meta);
    if (rc != 0) {
        ps_buf_free(&out);
        return NULL;
    }
    return ps_buf_take(&out, len);
}
