/* tests/fuzz/fuzz_fetch_text.c — libFuzzer target: arbitrary bytes as the
 * documents the fetcher parses itself: a robots.txt (extract/robots.c; its
 * rules then asked about a few paths, also with '*' and '$') and a sitemap,
 * sitemap index or feed (extract/sitemap.c, plain or gzip, with and without
 * a lastmod filter).  Each must parse or fail with a message, never crash,
 * leak or read out of bounds.  Built by scripts/fuzz. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/inputs_internal.h"

static int count(void *ctx, const char *url, ps_sitemap_kind kind)
{
    (void)kind;
    if (!ps_is_url(url))
        abort(); /* only http(s) URLs come out */
    ++*(size_t *)ctx;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const paths[] = {"/", "/a", "/private/x.html", "/doc/f.pdf", "/x?y=1$", "",
                                        "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"};
    ps_robots *r = ps_robots_parse((const char *)data, size, "pagesift");
    if (r) {
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
            ps_robots_allowed(r, paths[i]);
        ps_robots_crawl_delay(r);
        ps_robots_free(r);
    }
    char msg[256];
    size_t n = 0, seen = 0;
    ps_sitemap_parse((const char *)data, size, "http://example.org/dir/sitemap.xml", NULL, count, &seen, &n, msg,
                     sizeof msg);
    if (n != seen)
        abort();
    seen = 0;
    ps_sitemap_parse((const char *)data, size, NULL, "2024-01-01", count, &seen, &n, msg, sizeof msg);
    return 0;
}
