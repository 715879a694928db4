/* templates/rules.c — the content guards of PS_TEMPLATE_RULES_GUARDED.
 *
 * A leaf whose text recurs in a batch is not always common noise: a page's
 * headline recurs as a related-article link on its neighbours, a byline or a
 * standard sentence recurs inside articles.  A leaf that matched an entry is
 * kept when:
 *   - headline: it is a heading (h1-h3) or its text is contained in the
 *     page's <title> (the page's own headline, also when the site repeats
 *     it in a breadcrumb);
 *   - main text: it lies in the block holding most of the page's non-link
 *     text, is not a link, and reads like a sentence (>= 40 characters with
 *     sentence punctuation).
 * Measured effect: docs/TEMPLATE_FORMAT.md links to the table made by
 * `pagesift-template eval`. */
#include <stdlib.h>
#include <string.h>

#include "templates/rules.h"

static char *lower_dup(const char *s, size_t *len)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        d[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    *len = n;
    return d;
}

int tpl_guard_init(tpl_guard *g, const ps_page *page)
{
    memset(g, 0, sizeof *g);
    size_t nb;
    const ps_block *b = ps_page_blocks(page, &nb);
    uint32_t best = 0;
    g->main_block = -1;
    for (size_t i = 0; i < nb; i++) {
        uint32_t t = b[i].own.text_chars - b[i].own.link_chars;
        if (t > best) {
            best = t;
            g->main_block = (int32_t)i;
        }
    }
    const char *title = ps_page_title(page);
    if (title && *title && !(g->title_norm = lower_dup(title, &g->title_len)))
        return -1;
    return 0;
}

void tpl_guard_free(tpl_guard *g)
{
    free(g->title_norm);
    g->title_norm = NULL;
}

static int has_sentence_punct(const char *s)
{
    static const char *const marks[] = {". ", "! ", "? ", "\xE3\x80\x82", "\xEF\xBC\x81", "\xEF\xBC\x9F",
                                        "\xEF\xBC\x8C", ", ", NULL};
    for (int i = 0; marks[i]; i++)
        if (strstr(s, marks[i]))
            return 1;
    size_t n = strlen(s);
    return n && (s[n - 1] == '.' || s[n - 1] == '!' || s[n - 1] == '?');
}

static int in_title(const tpl_guard *g, const ps_leaf *l)
{
    if (!g->title_norm || l->chars < 12 || l->bytes > g->title_len)
        return 0;
    size_t n;
    char *t = lower_dup(l->text, &n);
    int r = t && strstr(g->title_norm, t) != NULL;
    free(t);
    return r;
}

ps_template_verdict tpl_guard_verdict(const tpl_guard *g, const ps_page *page, size_t i)
{
    size_t n;
    const ps_leaf *l = &ps_page_leaves(page, &n)[i];
    if ((l->heading >= 1 && l->heading <= 3 && !l->in_link) || in_title(g, l))
        return PS_TPL_KEEP_HEADLINE;
    if (l->block == g->main_block && !l->in_link && l->chars >= 40 && has_sentence_punct(l->text))
        return PS_TPL_KEEP_MAIN;
    return PS_TPL_REMOVE;
}
