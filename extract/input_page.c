/* extract/input_page.c — from an input (ps_input) to a parsed page and its
 * site key: the first half of the page step (pagesift.h, ps_extract_input)
 * that the batch, the learning pass, the evaluation and the tools share, so
 * that there is one rule for a page's site. */
#include <stdio.h>

#include "pagesift.h"

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
