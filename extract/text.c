/* extract/text.c — the text of a page: kept leaves' runs in document order,
 * a new line at each paragraph boundary. */
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"

static char *runs_text(const ps_page *pg, const uint8_t *keep_block, const uint8_t *keep_leaf,
                       size_t *len)
{
    ps_buf out = {0};
    int brk = 0, space = 0;
    int32_t last_block = -1;
    if (ps_buf_reserve(&out, 256))
        return NULL;
    out.data[0] = '\0';
    for (size_t i = 0; i < pg->n_runs; i++) {
        const ps_run *r = &pg->runs[i];
        const ps_leaf *l = &pg->leaves[r->leaf];
        brk |= r->brk;
        space |= r->space_before;
        int keep = !l->removed && (!keep_block || keep_block[l->block]) && (!keep_leaf || keep_leaf[r->leaf]);
        if (!keep) {
            space |= r->space_after;
            continue;
        }
        if (out.len) {
            if (brk || l->block != last_block) {
                if (ps_buf_putc(&out, '\n'))
                    goto nomem;
            } else if (space && ps_buf_putc(&out, ' ')) {
                goto nomem;
            }
        }
        if (ps_buf_append(&out, pg->runtext + r->off, r->len))
            goto nomem;
        last_block = l->block;
        brk = 0;
        space = r->space_after;
    }
    if (out.len && ps_buf_putc(&out, '\n'))
        goto nomem;
    return ps_buf_take(&out, len);
nomem:
    ps_buf_free(&out);
    return NULL;
}

char *ps_page_text(const ps_page *pg, const uint8_t *keep_block, size_t *len)
{
    return runs_text(pg, keep_block, NULL, len);
}

char *ps_page_text_leaves(const ps_page *pg, const uint8_t *keep_leaf, size_t *len)
{
    return runs_text(pg, NULL, keep_leaf, len);
}
