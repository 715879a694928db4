/* extract/block_id.c — a block's shape (ps_block_shape: its tag and class,
 * what the repeated-structure features and the groups pass compare) and its
 * id, the same across runs, versions and options: "b" and 16 hex digits of an FNV-1a hash of the page's id and the
 * block's DOM path.  The block CSV's block_id column (features/export.c) and
 * the HTML view's data-pagesift-block attributes (output/html_view.c) carry
 * it, so a label given in the one finds its block in the other. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
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

uint64_t ps_block_shape(const ps_block *block)
{
    char buf[256];
    size_t n = 0;
    for (const char *c = block->class_attr; *c && n < sizeof buf; c++)
        if (*c < '0' || *c > '9')
            buf[n++] = *c;
    return ps_hash64(block->tag, strlen(block->tag)) * 31 ^ ps_hash64(buf, n);
}
