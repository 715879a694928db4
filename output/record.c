/* output/record.c — a page's record (ps_record: id, url, site, status, the
 * text, the metadata ...) as the batch and ps_format_page fill it, and the
 * text of its metadata fields, which the JSON Lines and CSV renderers read.
 * Below the format table and the renderers: it calls neither. */
#include <stddef.h>
#include <string.h>

#include "output/output.h"
#include "pagesift/page.h"

void ps_record_of(ps_record *r, const ps_input *in, const ps_page *page, const ps_extraction *x,
                  const char *site)
{
    memset(r, 0, sizeof *r);
    r->id = in->id ? in->id : "";
    r->url = in->url;
    r->site = site && site[0] ? site : NULL;
    r->origin = in->origin;
    r->title = page ? (x->title ? x->title : ps_page_title(page)) : NULL;
    r->charset = page ? ps_page_decoding(page)->charset : in->charset;
    r->text = x->text;
    r->text_len = x->len;
    r->blocks_kept = x->blocks_kept;
    r->blocks_removed = x->blocks_removed;
    r->model = x->model;
    r->page_type = x->page_type;
    r->page_type_prob = x->page_type_prob;
    r->status = x->len ? "ok" : "empty";
    r->duplicate_distance = -1;
}

const char *ps_record_meta_text(const ps_record *r, const ps_meta_field *f)
{
    if (r->meta)
        return ps_meta_text(r->meta, f);
    return f->offset == offsetof(ps_metadata, title) ? r->title : NULL;
}
