/* output/text.c — `pagesift --format text`: the main text; with several
 * pages on one stream, a line "==> ID <==" before each page's text (and
 * "==> ID <== failed: MESSAGE" for a page that failed, "==> ID <==
 * duplicate of KEPT-ID" for a duplicate of --dedup).  A single page that
 * failed writes nothing (its message is on standard error). */
#include <stdio.h>

#include "output/output.h"

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    const ps_record *r = p->rec;
    int rc = 0;
    if (r->duplicate_of) /* --dedup: no text, on a stream of pages a line */
        rc = p->headers ? ps_buf_printf(out, "==> %s <== duplicate of %s\n", r->id, r->duplicate_of) : 0;
    else if (p->headers)
        rc = r->error ? ps_buf_printf(out, "==> %s <== failed: %s\n", r->id, r->error)
                      : ps_buf_printf(out, "==> %s <==\n", r->id);
    if (rc == 0 && !r->error && !r->duplicate_of && (p->render_flags & PS_RENDER_METADATA))
        rc = ps_front_matter(p, out);
    if (rc == 0 && !r->error && !r->duplicate_of)
        rc = ps_buf_append(out, r->text, r->text_len);
    return rc ? ps_set_error(err, PS_ERR_NOMEM, "out of memory") : 0;
}

static void last_resort(const ps_out_page *p, char *buf, size_t cap)
{
    if (p->headers)
        snprintf(buf, cap, "==> %s <== failed: %s\n", p->rec->id, p->rec->error);
    else
        buf[0] = '\0';
}

const ps_output_format ps_output_text = {
    .name = "text",
    .extension = ".txt",
    .summary = "the main text; with several pages on one stream, a line '==> ID <==' before "
               "each page's text",
    .render = render,
    .last_resort = last_resort,
};
