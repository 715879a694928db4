/* methods/all_text.c — "all": every block kept, the page's whole text.  Not
 * a cleaner: the reference point of the evaluation (the recall ceiling of
 * the page model, the precision floor of any method). */
#include <stdlib.h>
#include <string.h>

#include "methods/method.h"
#include "pagesift/page.h"

static void *all_create(const ps_method_config *cfg, ps_error *err)
{
    (void)cfg;
    (void)err;
    static int token;
    return &token;
}

static int all_extract(void *self, ps_page *page, const char *site, ps_method_output *out, ps_error *err)
{
    (void)self;
    (void)site;
    size_t nb;
    ps_page_blocks(page, &nb);
    out->text = ps_page_text(page, NULL, &out->len);
    out->block_class = malloc(nb ? nb : 1);
    if (!out->text || !out->block_class)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    memset(out->block_class, PS_BLOCK_CONTENT, nb);
    out->blocks_kept = (uint32_t)nb;
    return 0;
}

static void all_destroy(void *self)
{
    (void)self;
}

const ps_method ps_method_all = {
    .name = "all",
    .summary = "keep every block: the whole page text (a reference, not a cleaner)",
    .flags = 0,
    .create = all_create,
    .extract = all_extract,
    .destroy = all_destroy,
};
