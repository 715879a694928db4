/* extract/text.c — the text of a page: kept leaves' runs in document order,
 * a new line at each paragraph boundary; and the whitespace collapsing the
 * parse (extract/page.c) and the metadata (extract/metadata.c) apply to
 * text nodes and values. */
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"

static int is_ws(const unsigned char *s, size_t i, size_t n, size_t *w)
{
    unsigned char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        *w = 1;
        return 1;
    }
    if (c == 0xC2 && i + 1 < n && s[i + 1] == 0xA0) { /* U+00A0 no-break space */
        *w = 2;
        return 1;
    }
    if (c == 0xE3 && i + 2 < n && s[i + 1] == 0x80 && s[i + 2] == 0x80) { /* U+3000 */
        *w = 3;
        return 1;
    }
    return 0;
}

size_t ps_collapse_ws(ps_buf *b, const char *str, size_t n, int *lead, int *trail)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, w;
    int pending = 0;
    *lead = *trail = 0;
    /* the result is never longer than the input: room for it once, then
     * bytes are copied as they are scanned (no call per word) */
    if (n == 0 || ps_buf_reserve(b, n))
        return 0;
    unsigned char *out = (unsigned char *)b->data + b->len, *d = out;
    while (i < n && is_ws(s, i, n, &w)) {
        *lead = 1;
        i += w;
    }
    while (i < n) {
        if (is_ws(s, i, n, &w)) {
            pending = 1;
            i += w;
            continue;
        }
        if (pending) {
            *d++ = ' ';
            pending = 0;
        }
        *d++ = s[i++];
        while (i < n && s[i] > ' ' && s[i] != 0xC2 && s[i] != 0xE3)
            *d++ = s[i++];
    }
    *trail = pending;
    b->len += (size_t)(d - out);
    b->data[b->len] = '\0';
    return (size_t)(d - out);
}


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
