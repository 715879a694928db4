/* templates/rules.h — content guards of the guarded template rule. */
#ifndef PS_TPL_RULES_H
#define PS_TPL_RULES_H
#include "pagesift.h"
#include "pagesift/templates.h"

/** What the guards know about one page (computed once per page). */
typedef struct tpl_guard {
    int32_t main_block;     /**< block with the most non-link text of its own */
    char *title_key;        /**< letters and digits of the <title>, or NULL */
    size_t title_len;
    char *h1_key;           /**< letters and digits of the first h1, or NULL */
    size_t h1_len;
    uint8_t *prose;         /**< per block: its own text reads as running
                                 text (inline guard), or NULL */
} tpl_guard;

int tpl_guard_init(tpl_guard *g, const ps_page *page);
void tpl_guard_free(tpl_guard *g);
/** Verdict for leaf @p i that matched an entry: PS_TPL_REMOVE or a KEEP_*. */
ps_template_verdict tpl_guard_verdict(const tpl_guard *g, const ps_page *page, size_t i);
#endif
