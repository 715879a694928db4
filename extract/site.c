/* extract/site.c — URLs: whether a name is one (http or https), and the
 * site key of a URL: its host (lower case, without user info and port),
 * optionally with the first path segment. */
#include <string.h>

#include "common/util.h"
#include "extract/inputs_internal.h"
#include "pagesift.h"
#include "pagesift/page.h"

int ps_is_url(const char *s)
{
    return s && (!ps_ascii_ncasecmp(s, "http://", 7) || !ps_ascii_ncasecmp(s, "https://", 8));
}

int ps_site_key(const char *url, ps_site_rule rule, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    if (!url || cap < 2)
        return -1;
    const char *p = strstr(url, "://");
    p = p ? p + 3 : (url[0] == '/' && url[1] == '/' ? url + 2 : NULL);
    if (!p)
        return -1;
    const char *end = p + strcspn(p, "/?#");
    const char *at = memchr(p, '@', (size_t)(end - p));
    if (at)
        p = at + 1;
    const char *hend = p;
    if (*p == '[') { /* IPv6 literal */
        const char *rb = memchr(p, ']', (size_t)(end - p));
        hend = rb ? rb + 1 : end;
    } else {
        while (hend < end && *hend != ':')
            hend++;
    }
    size_t n = 0;
    for (const char *q = p; q < hend && n + 1 < cap; q++)
        out[n++] = (char)(*q >= 'A' && *q <= 'Z' ? *q + 32 : *q);
    while (n && out[n - 1] == '.')
        n--; /* "example.com." is "example.com" */
    out[n] = '\0';
    if (!n)
        return -1;
    if (rule == PS_SITE_HOST_PATH1 && *end == '/') {
        const char *seg = end + 1;
        size_t sl = strcspn(seg, "/?#");
        if (sl && n + 1 + sl + 1 <= cap) {
            out[n++] = '/';
            memcpy(out + n, seg, sl);
            n += sl;
            out[n] = '\0';
        }
    }
    return 0;
}
