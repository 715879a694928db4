/* templates/apply.c — match a page's leaves against a site's library and
 * remove the template leaves (METHODS.md §1.4 step 2).
 *
 * Paper rule (PS_TEMPLATE_RULES_PAPER): a leaf is removed when an entry has
 * the same tag name and a similar text.  Guarded rule (default): the same,
 * except for the content guards of templates/rules.c, which keep leaves that
 * are the page's own content even though their text recurred in a batch.
 *
 * The page's deadline (ps_page_options.deadline of its parse) is checked
 * every 16 leaves: past it, matching stops and PS_TEMPLATE_TIMEOUT is
 * returned (issue 32, defect 3: applying a library of 16 000 entries to a
 * page of 16 000 leaves took 9.3 s, past --page-timeout 3). */
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"
#include "templates/rules.h"
#include "templates/tpl_internal.h"

size_t ps_template_match_page(const ps_template_lib *lib, const ps_page *page,
                              ps_template_rules rules, ps_template_match *out)
{
    size_t n;
    const ps_leaf *leaves = ps_page_leaves(page, &n);
    uint32_t stackbuf[3 * 512]; /* code points, 3-grams, sort space: leaves up to 512 characters */
    uint32_t *cpbuf = stackbuf;
    size_t cpcap = 512, removed = 0;
    tpl_guard guard;
    int guarded = rules == PS_TEMPLATE_RULES_GUARDED && lib->set.n > 0;
    if (guarded && tpl_guard_init(&guard, page) < 0)
        return (size_t)-1;
    const double deadline = page->deadline;
    for (size_t i = 0; i < n; i++) {
        const ps_leaf *l = &leaves[i];
        if (deadline > 0 && (i & 15) == 15 && ps_now() > deadline) {
            removed = PS_TEMPLATE_TIMEOUT;
            break;
        }
        out[i].verdict = PS_TPL_NO_MATCH;
        out[i].entry = -1;
        out[i].distance = 0;
        if (l->removed) {
            out[i].verdict = PS_TPL_ALREADY_REMOVED;
            continue;
        }
        if (l->chars == 0 || lib->set.n == 0)
            continue;
        if (l->chars > cpcap) {
            uint32_t *nb = malloc(3 * (size_t)l->chars * sizeof *nb);
            if (!nb) {
                if (cpbuf != stackbuf)
                    free(cpbuf);
                if (guarded)
                    tpl_guard_free(&guard);
                return (size_t)-1;
            }
            if (cpbuf != stackbuf)
                free(cpbuf);
            cpbuf = nb;
            cpcap = l->chars;
        }
        tpl_query q;
        tpl_query_init(&q, l->tag, l->text, l->bytes, l->chars, cpbuf);
        unsigned d;
        long e = tpl_set_find(&lib->set, &q, &d);
        if (e < 0)
            continue;
        out[i].entry = (int32_t)e;
        out[i].distance = d;
        out[i].verdict = guarded ? tpl_guard_verdict(&guard, page, i) : PS_TPL_REMOVE;
        removed += out[i].verdict == PS_TPL_REMOVE;
    }
    if (cpbuf != stackbuf)
        free(cpbuf);
    if (guarded)
        tpl_guard_free(&guard);
    return removed;
}

size_t ps_template_apply_rules(const ps_template_lib *lib, ps_page *page, ps_template_rules rules)
{
    size_t n;
    ps_page_leaves(page, &n);
    if (!lib || n == 0)
        return 0;
    ps_template_match *m = malloc(n * sizeof *m);
    if (!m)
        return (size_t)-1;
    size_t r = ps_template_match_page(lib, page, rules, m);
    if (r != (size_t)-1 && r != PS_TEMPLATE_TIMEOUT)
        for (size_t i = 0; i < n; i++)
            if (m[i].verdict == PS_TPL_REMOVE)
                ps_page_remove_leaf(page, i);
    free(m);
    return r;
}

size_t ps_template_apply(const ps_template_lib *lib, ps_page *page)
{
    return lib ? ps_template_apply_rules(lib, page, lib->params.rules) : 0;
}
