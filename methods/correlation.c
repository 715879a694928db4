/* methods/correlation.c — "correlation": text correlation with smoothing.
 *
 * Paper: 基于正文相关度的维吾尔网页正文提取算法 (content extraction of
 * Uyghur web pages based on text correlation), restated in
 * docs/METHODS.md §3 (text-correlation-uyghur.txt).
 *
 * For every element i of the cleaned DOM (post-order, here: one pre-order
 * array summed backwards — no recursion):
 *   TA_i  non-link characters of i and its descendants (text NFKC-normalised
 *         first, white space collapsed as the page model does; text inside an
 *         <a> is link text and does not count);
 *   LA_i  <a> elements among i and its descendants;
 *   CC_i  = TA_i / LA_i (LA = 0 counts as 1); content when CC_i > C.
 * Smoothing, from the CC values above:
 *   TD_i  = TA(parent of i) / LA_i (LA = 0 counts as 1);
 *   CS_i  = share of i's same-tag siblings (i included) with CC >= C.
 *   A node with CC < C, CS > S and TD > D becomes content (CC := C).
 *   A node with CC >= C that stands apart from the content structure gets
 *   CC := 0 (not content).  Which nodes stand apart is a reading:
 *     apart=parent  CS < 1 - S and the parent is not content (CC <= C)
 *                   (METHODS.md's reading, default);
 *     apart=td      CS < 1 - S and TD <= D (the paper's sentence says the
 *                   two formulas, TD and CS, locate the content structure);
 *     apart=off     no demotion.
 * Output: each selected node's text once, in document order.
 *     text=subtree  a selected node gives its whole text; a parent's text
 *                   that repeats a selected child's is dropped (METHODS.md
 *                   §3.5, default);
 *     text=own      a selected node gives only its own text (text directly in
 *                   it or in its formatting tags), so text under a
 *                   non-selected child is not output (reading: the paper's
 *                   smoothing is about short nodes that would otherwise be
 *                   lost, which only happens when nodes give their own text).
 * The unit of output is the page model's leaf (ps_page_leaves); the text is
 * the page's own (NFKC only changes the counts, so the output compares with
 * gold text as written).
 *
 * Parameters (options "key=value,..."):
 *   c=29      C, the CC threshold
 *   s=0.57    S, the CS threshold (a share, 57 %)
 *   d=63      D, the TD threshold
 *   apart=parent|td|off, text=subtree|own (above)
 *   nfkc=1    NFKC-normalise text before counting (0: count raw text)
 */
#include <stdlib.h>
#include <string.h>

#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include "methods/dom_index.h"
#include "methods/method.h"
#include "methods/method_options.h"

enum { APART_PARENT, APART_TD, APART_OFF };
enum { TEXT_SUBTREE, TEXT_OWN };

typedef struct correlation {
    double c, s, d;
    int apart, text, nfkc;
    const UNormalizer2 *norm;
} correlation;

/* The options (--options key=value; above, what each does). */
enum { COR_C, COR_S, COR_D, COR_APART, COR_TEXT, COR_NFKC, COR_N };
static const char *const aparts[] = {"parent", "td", "off", NULL};
static const char *const texts[] = {"subtree", "own", NULL};
static const ps_option cor_options[COR_N + 1] = {
    [COR_C] = {"c", PS_OPT_DOUBLE, 29, 0, 1e9, NULL, "C: a node is content when CC = TA / LA is above C"},
    [COR_S] = {"s", PS_OPT_DOUBLE, 0.57, 0, 1, NULL, "S: the share of same-tag siblings with CC >= C (CS)"},
    [COR_D] = {"d", PS_OPT_DOUBLE, 63, 0, 1e9, NULL, "D: the TD threshold"},
    [COR_APART] = {"apart", PS_OPT_CHOICE, APART_PARENT, 0, 0, aparts,
                   "which content nodes standing apart are demoted (parent, td) or none (off)"},
    [COR_TEXT] = {"text", PS_OPT_CHOICE, TEXT_SUBTREE, 0, 0, texts,
                  "a selected node gives its whole text (subtree) or its own text"},
    [COR_NFKC] = {"nfkc", PS_OPT_BOOL, 1, 0, 1, NULL, "NFKC-normalise text before counting"},
    [COR_N] = {NULL, PS_OPT_DOUBLE, 0, 0, 0, NULL, NULL},
};

extern const ps_method ps_method_correlation;

static void *cor_create(const ps_method_config *cfg, ps_error *err)
{
    correlation *m = calloc(1, sizeof *m);
    if (!m) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ps_options o;
    if (ps_options_resolve(&o, cfg ? cfg->options : NULL, &ps_method_correlation, err)) {
        free(m);
        return NULL;
    }
    m->c = o.value[COR_C];
    m->s = o.value[COR_S];
    m->d = o.value[COR_D];
    m->apart = (int)o.value[COR_APART];
    m->text = (int)o.value[COR_TEXT];
    m->nfkc = (int)o.value[COR_NFKC];
    UErrorCode st = U_ZERO_ERROR;
    m->norm = unorm2_getNFKCInstance(&st);
    if (U_FAILURE(st)) {
        ps_set_error(err, PS_ERR_IO, "correlation: ICU NFKC data unavailable: %s", u_errorName(st));
        free(m);
        return NULL;
    }
    return m;
}

/* Reusable UTF-16 buffers for the normalisation of one page. */
typedef struct u16buf {
    UChar *a, *b;
    int32_t cap;
} u16buf;

static int u16_reserve(u16buf *u, int32_t need)
{
    if (need <= u->cap)
        return 0;
    int32_t nc = u->cap ? u->cap : 1024;
    while (nc < need)
        nc *= 2;
    UChar *a = realloc(u->a, (size_t)nc * sizeof *a);
    if (!a)
        return -1;
    u->a = a;
    UChar *b = realloc(u->b, (size_t)nc * sizeof *b);
    if (!b)
        return -1;
    u->b = b;
    u->cap = nc;
    return 0;
}

static uint32_t collapsed_chars16(const UChar *s, int32_t n)
{
    uint32_t chars = 0;
    int gap = 0, any = 0;
    for (int32_t i = 0; i < n;) {
        UChar32 c;
        U16_NEXT(s, i, n, c);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0xA0 || c == 0x3000) {
            gap = any;
            continue;
        }
        if (gap) {
            chars++;
            gap = 0;
        }
        any = 1;
        chars++;
    }
    return chars;
}

/* Characters of a text node after NFKC (the paper's encoding normalisation:
 * presentation forms folded to base letters), white space collapsed. */
static int nfkc_chars(const correlation *m, u16buf *u, const char *s, size_t n, uint32_t *out)
{
    size_t k = 0;
    while (k < n && (unsigned char)s[k] < 0x80)
        k++;
    if (k == n || !m->nfkc) { /* ASCII is NFKC already */
        *out = ps_collapsed_chars(s, n);
        return 0;
    }
    if (n > INT32_MAX / 4 || u16_reserve(u, (int32_t)n + 1))
        return -1;
    UErrorCode st = U_ZERO_ERROR;
    int32_t len16 = 0;
    u_strFromUTF8WithSub(u->a, u->cap, &len16, s, (int32_t)n, 0xFFFD, NULL, &st);
    if (U_FAILURE(st)) {
        *out = ps_collapsed_chars(s, n);
        return 0;
    }
    int32_t span = unorm2_spanQuickCheckYes(m->norm, u->a, len16, &st);
    if (U_SUCCESS(st) && span == len16) {
        *out = ps_collapsed_chars(s, n);
        return 0;
    }
    st = U_ZERO_ERROR;
    int32_t nl = unorm2_normalize(m->norm, u->a, len16, u->b, u->cap, &st);
    if (st == U_BUFFER_OVERFLOW_ERROR) { /* expansion (ligatures): grow, redo */
        UChar *keep = malloc((size_t)len16 * sizeof *keep);
        if (!keep)
            return -1;
        memcpy(keep, u->a, (size_t)len16 * sizeof *keep);
        if (u16_reserve(u, nl + 1)) {
            free(keep);
            return -1;
        }
        st = U_ZERO_ERROR;
        nl = unorm2_normalize(m->norm, keep, len16, u->b, u->cap, &st);
        free(keep);
    }
    if (U_FAILURE(st)) {
        *out = ps_collapsed_chars(s, n);
        return 0;
    }
    *out = collapsed_chars16(u->b, nl);
    return 0;
}

/* One page: counts per element, CC, smoothing, then the kept leaves and
 * their text.  blocks_kept counts the selected elements. */
static int cor_extract(void *self, ps_page *page, const char *site, ps_method_output *out, ps_error *err)
{
    (void)site;
    const correlation *m = self;
    ps_dom_index ix;
    if (ps_dom_index_build(&ix, page, err))
        return -1;
    size_t n = ix.count;
    uint32_t *ta = calloc(n + 1, sizeof *ta);
    uint32_t *la = calloc(n + 1, sizeof *la);
    double *cc = malloc((n + 1) * sizeof *cc);
    uint32_t *ge = calloc(ix.n_groups + 1, sizeof *ge);
    uint8_t *content = calloc(n + 1, 1);
    uint8_t *keep_leaf = calloc(page->n_leaves + 1, 1);
    u16buf u = {0};
    int rc = -1;
    if (!ta || !la || !cc || !ge || !content || !keep_leaf) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t t = 0; t < ix.n_text; t++) {
        const ps_dtext *x = &ix.t[t];
        if (ix.n[x->elem].in_link)
            continue;
        uint32_t c;
        if (nfkc_chars(m, &u, x->s, x->len, &c)) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto done;
        }
        ta[x->elem] += c;
    }
    for (size_t i = 0; i < n; i++)
        la[i] = ix.n[i].is_anchor;
    for (size_t i = n; i-- > 1;) { /* children follow parents: sum backwards */
        int32_t p = ix.n[i].parent;
        if (p >= 0) {
            ta[p] += ta[i];
            la[p] += la[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        cc[i] = (double)ta[i] / (la[i] ? la[i] : 1);
        content[i] = cc[i] > m->c;
        if (cc[i] >= m->c)
            ge[ix.n[i].sib_group]++;
    }
    /* Smoothing from the unsmoothed values; decisions go to content[]. */
    for (size_t i = 0; i < n; i++) {
        int32_t p = ix.n[i].parent;
        if (p < 0)
            continue;
        double cs = (double)ge[ix.n[i].sib_group] / ix.group_size[ix.n[i].sib_group];
        double td = (double)ta[p] / (la[i] ? la[i] : 1);
        if (cc[i] < m->c) {
            if (cs > m->s && td > m->d)
                content[i] = 1; /* CC := C */
        } else if (m->apart != APART_OFF && cs < 1 - m->s) {
            int apart = m->apart == APART_PARENT ? !(cc[p] > m->c) : !(td > m->d);
            if (apart)
                content[i] = 0; /* CC := 0 */
        }
    }
    size_t selected = 0;
    for (size_t i = 0; i < n; i++)
        selected += content[i];
    if (m->text == TEXT_SUBTREE)
        ps_dom_expand_subtrees(&ix, content);
    ps_dom_keep_leaves(&ix, content, keep_leaf);
    out->text = ps_page_text_leaves(page, keep_leaf, &out->len);
    if (!out->text) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    out->leaf_kept = keep_leaf;
    keep_leaf = NULL;
    out->blocks_kept = (uint32_t)selected;
    out->blocks_removed = (uint32_t)(n - selected);
    rc = 0;
done:
    free(ta);
    free(la);
    free(cc);
    free(ge);
    free(content);
    free(keep_leaf);
    free(u.a);
    free(u.b);
    ps_dom_index_free(&ix);
    return rc;
}

static void cor_destroy(void *self)
{
    free(self);
}

const ps_method ps_method_correlation = {
    .name = "correlation",
    .summary = "text correlation CC = TA/LA > 29 with TD/CS smoothing (METHODS.md §3)",
    .flags = 0,
    .create = cor_create,
    .extract = cor_extract,
    .destroy = cor_destroy,
    .options = cor_options,
};
