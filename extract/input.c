/* extract/input.c — one input (ps_input): the helpers every reader uses
 * (clear, fail, a filename-safe id; here, not in inputs.c, so the readers
 * and the source that dispatches to them do not include each other), and
 * from an input to a parsed page and its site key: the first half of the
 * page step (pagesift.h, ps_extract_input) that the batch, the learning
 * pass, the evaluation and the tools share, so that there is one rule for a
 * page's site. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/inputs_internal.h"
#include "pagesift/page.h"

void ps_input_clear(ps_input *in)
{
    if (!in)
        return;
    free(in->id);
    free(in->url);
    free(in->charset);
    free(in->origin);
    free(in->gold_path);
    free(in->site);
    free(in->dataset);
    free(in->data);
    memset(in, 0, sizeof *in);
}

void ps_input_fail(ps_input *in, ps_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    in->status = st;
    vsnprintf(in->msg, sizeof in->msg, fmt, ap);
    va_end(ap);
    free(in->data);
    in->data = NULL;
    in->len = 0;
}

char *ps_safe_id(const char *s, size_t n)
{
    enum { MAX_ID = 200, KEEP = MAX_ID - 17 };
    if (n > MAX_ID) { /* file names have a limit: keep the start and a hash of the whole */
        char *id = ps_safe_id(s, KEEP);
        if (id)
            snprintf(id + KEEP, 18, "-%016llx", (unsigned long long)ps_hash64(s, n));
        return id;
    }
    char *id = malloc(n > MAX_ID - 18 ? MAX_ID + 1 : n + 2);
    if (!id)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        id[i] = ok ? c : '_';
    }
    if (!n)
        id[n++] = '_';
    id[n] = '\0';
    return id;
}


void ps_input_site(const ps_input *in, ps_site_rule rule, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (in->url && *in->url && ps_site_key(in->url, rule, out, cap) == 0 && out[0])
        return;
    out[0] = '\0';
    if (in->site && *in->site && rule == PS_SITE_HOST)
        snprintf(out, cap, "%s", in->site);
}

ps_page *ps_input_page(const ps_input *in, const char *const *block_tags, size_t max_bytes,
                       ps_error *err)
{
    ps_page_options po = {0};
    po.charset = in->charset;
    po.url = in->url && *in->url ? in->url : NULL;
    po.block_tags = block_tags;
    po.max_bytes = max_bytes;
    return ps_page_parse(in->data ? in->data : "", in->data ? in->len : 0, &po, err);
}
