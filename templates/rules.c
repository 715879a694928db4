/* templates/rules.c — the content guards of PS_TEMPLATE_RULES_GUARDED.
 *
 * A leaf whose text recurs in a batch is not always common noise.  What the
 * paper's rule loses on the per-site sets of ../shared/datasets (see
 * docs/TEMPLATES.md for the table): the page's own headline, repeated as a
 * related-article or "most read" link on its neighbours (and so on the page
 * itself); dates and bylines, which recur because several pages of a batch
 * were published the same day; sentences of the article that the site
 * repeats (disclaimers, series intros).  A leaf that matched an entry is
 * kept when:
 *   - headline: its text (letters and digits only, ASCII lower-cased, at
 *     least 10 of them) is part of the page's <title>, covering at least 40 %
 *     of it (so the site name in the title does not count), or part of the
 *     page's first h1 — the page's own headline, wherever the site repeats
 *     it (heading tags as such are not protected: most are chrome);
 *   - date: it is short (<= 40 characters), not a link, and holds a date
 *     (2012-11-05, 11/5/2012, Nov. 5, 2012, 5 November, 2012年11月5日);
 *   - main text: it lies in the block that holds most of the page's non-link
 *     text, is not a link, and reads like a sentence (>= 40 characters with
 *     sentence punctuation);
 *   - inline: it is a short link (<= 40 characters) in a block whose own
 *     text is running text (>= 40 characters that are not links, at least
 *     as many as are, with sentence punctuation): a keyword link in the
 *     middle of a sentence ("... the <a>smartphone</a> browser ..."), which
 *     a site repeats on many pages, so it is a template entry; removing it
 *     cut a word out of the sentence (netease's 163.com links keywords
 *     to topic pages in every article).
 * Everything else that matches is removed, as in the paper. */
#include <stdlib.h>
#include <string.h>

#include "pagesift/page.h"
#include "templates/rules.h"
#include "templates/tpl_internal.h"

/* Letters and digits of a UTF-8 text, ASCII lower-cased; ASCII punctuation
 * and spaces, general punctuation (U+2000-U+206F), CJK punctuation
 * (U+3000-U+303F) and full-width punctuation are left out, so that
 * "Don't" == "Don’t" and "Title - Site" contains "Title". */
static size_t text_key_into(const char *s, size_t n, char *k)
{
    size_t w = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c < 0x80) {
            if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))
                k[w++] = (char)c;
            else if (c >= 'A' && c <= 'Z')
                k[w++] = (char)(c + 32);
            i++;
            continue;
        }
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (i + len > n)
            len = n - i;
        uint32_t cp;
        tpl_utf8_decode(s + i, len, &cp, 1);
        int punct = (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F) ||
                    (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) || cp == 0xA0 ||
                    cp == 0xB7;
        if (!punct) {
            memcpy(k + w, s + i, len);
            w += len;
        }
        i += len;
    }
    k[w] = '\0';
    return w;
}

static char *text_key(const char *s, size_t n, size_t *out_len)
{
    char *k = malloc(n + 1);
    if (k)
        *out_len = text_key_into(s, n, k);
    return k;
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

int tpl_guard_init(tpl_guard *g, const ps_page *page)
{
    memset(g, 0, sizeof *g);
    size_t nb, nl;
    const ps_block *b = ps_page_blocks(page, &nb);
    const ps_leaf *l = ps_page_leaves(page, &nl);
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
    if (title && *title && !(g->title_key = text_key(title, strlen(title), &g->title_len)))
        return -1;
    for (size_t i = 0; i < nl; i++)
        if (l[i].heading == 1 && !l[i].in_link && l[i].chars >= 10) {
            if (!(g->h1_key = text_key(l[i].text, l[i].bytes, &g->h1_len))) {
                tpl_guard_free(g);
                return -1;
            }
            break;
        }
    /* inline guard: the blocks whose own text reads as running text (>= 40
     * characters that are not links, no fewer than those that are, a
     * sentence mark in a leaf that is not a link) */
    if (!(g->prose = calloc(nb ? nb : 1, 1))) {
        tpl_guard_free(g);
        return -1;
    }
    for (size_t i = 0; i < nl; i++) {
        int32_t k = l[i].block;
        if (k < 0 || l[i].removed || l[i].in_link || g->prose[k])
            continue;
        uint32_t words = b[k].own.text_chars - b[k].own.link_chars;
        g->prose[k] = words >= 40 && words >= b[k].own.link_chars && has_sentence_punct(l[i].text);
    }
    return 0;
}

void tpl_guard_free(tpl_guard *g)
{
    free(g->title_key);
    free(g->h1_key);
    free(g->prose);
    g->title_key = g->h1_key = NULL;
    g->prose = NULL;
}



/* Part of the page's title or first h1 (at least 10 letters/digits). */
static int is_headline(const tpl_guard *g, const ps_leaf *l)
{
    size_t longest = g->title_len > g->h1_len ? g->title_len : g->h1_len;
    if ((!g->title_key && !g->h1_key) || l->chars < 10 || l->bytes > 4 * longest + 64)
        return 0; /* a key is never longer than its text: too long to fit */
    char stackbuf[1024];
    char *k = l->bytes < sizeof stackbuf ? stackbuf : malloc(l->bytes + 1);
    if (!k)
        return 0;
    size_t n = text_key_into(l->text, l->bytes, k);
    int r = n >= 10 &&
            ((g->title_key && n <= g->title_len && n * 5 >= g->title_len * 2 && strstr(g->title_key, k)) ||
             (g->h1_key && n <= g->h1_len && strstr(g->h1_key, k)));
    if (k != stackbuf)
        free(k);
    return r;
}

static int digits_at(const char *s, size_t i, size_t n, int min, int max)
{
    int k = 0;
    while (i + (size_t)k < n && s[i + k] >= '0' && s[i + k] <= '9')
        k++;
    return k >= min && k <= max ? k : 0;
}

/* A calendar date: Y-M-D / D-M-Y / M-D-Y with - / . separators, a month
 * name next to a day number, or 年 月 日. */
static int has_date(const char *s, size_t n)
{
    static const char *const months[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                         "aug", "sep", "oct", "nov", "dec", NULL};
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
            continue;
        int a = digits_at(s, i, n, 1, 4);
        if (a) {
            size_t j = i + (size_t)a;
            char sep = j < n ? s[j] : 0;
            if (sep == '-' || sep == '/' || sep == '.') {
                int b = digits_at(s, j + 1, n, 1, 2);
                size_t k = j + 1 + (size_t)b;
                if (b && k < n && s[k] == sep && digits_at(s, k + 1, n, 2, 4))
                    return 1;
            }
            /* 2012年11月5日 */
            if (j + 3 <= n && memcmp(s + j, "\xE5\xB9\xB4", 3) == 0) {
                int b = digits_at(s, j + 3, n, 1, 2);
                if (b && j + 3 + (size_t)b + 3 <= n && memcmp(s + j + 3 + b, "\xE6\x9C\x88", 3) == 0)
                    return 1;
            }
            /* "5 November" */
            if (a <= 2 && j + 4 <= n && s[j] == ' ') {
                for (int m = 0; months[m]; m++)
                    if (ps_ascii_ncasecmp(s + j + 1, months[m], 3) == 0)
                        return 1;
            }
            i = j - 1;
            continue;
        }
        /* "Nov. 5" / "November 5" */
        if (i + 3 <= n && (i == 0 || !((s[i - 1] | 32) >= 'a' && (s[i - 1] | 32) <= 'z'))) {
            for (int m = 0; months[m]; m++) {
                if (ps_ascii_ncasecmp(s + i, months[m], 3) != 0)
                    continue;
                size_t j = i + 3;
                while (j < n && (s[j] | 32) >= 'a' && (s[j] | 32) <= 'z')
                    j++;
                if (j < n && s[j] == '.')
                    j++;
                if (j < n && s[j] == ' ' && digits_at(s, j + 1, n, 1, 2))
                    return 1;
            }
        }
    }
    return 0;
}

ps_template_verdict tpl_guard_verdict(const tpl_guard *g, const ps_page *page, size_t i)
{
    size_t n;
    const ps_leaf *l = &ps_page_leaves(page, &n)[i];
    if (is_headline(g, l))
        return PS_TPL_KEEP_HEADLINE;
    if (l->in_link && l->chars <= 40 && l->block >= 0 && g->prose && g->prose[l->block])
        return PS_TPL_KEEP_INLINE;
    if (!l->in_link && l->chars <= 40 && has_date(l->text, l->bytes))
        return PS_TPL_KEEP_DATE;
    if (l->block == g->main_block && !l->in_link && l->chars >= 40 && has_sentence_punct(l->text))
        return PS_TPL_KEEP_MAIN;
    return PS_TPL_REMOVE;
}
