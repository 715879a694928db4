/* extract/block_id.c — a block's id, the same across runs, versions and
 * options: "b" and 16 hex digits of an FNV-1a hash of the page's id and the
 * block's DOM path.  The block CSV's block_id column (features/export.c) and
 * the HTML view's data-pagesift-block attributes (output/html_view.c) carry
 * it, so a label given in the one finds its block in the other. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pagesift/page.h"

void ps_block_id(const char *page_id, const char *path, char out[18])
{
    size_t a = strlen(page_id), b = strlen(path);
    /* FNV-1a over page_id, a NUL, path — no allocation */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i <= a; i++)
        h = (h ^ (unsigned char)page_id[i]) * 1099511628211ULL;
    for (size_t i = 0; i < b; i++)
        h = (h ^ (unsigned char)path[i]) * 1099511628211ULL;
    snprintf(out, 18, "b%016" PRIx64, h);
}
