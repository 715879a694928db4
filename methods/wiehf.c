/* methods/wiehf.c — "wiehf": WIEHF, web-page information extraction based on
 * heterogeneous features.
 *
 * Paper: 刘利 et al., 基于多特征融合的网页正文信息抽取 (2014), restated in
 * docs/METHODS.md §4 (wiehf-multifeature.txt).
 *
 * Containers: div, table, tbody.  Path of a node: html/body/div[1]/div[2]
 * (1-based index among same-name siblings, as ps_block.path).
 *   SD  = DSD x (TSD + PSD) for every container, over its whole text;
 *   DSD = 1 / sum_i rd_i * q^-(i-1), rd_i the indices along the path below
 *         body (div[1]/div[1] -> 1 / (1 + 0.1));
 *   TSD = alpha * FW + beta * SW: occurrences in the container of the two
 *         title words that occur most often in the page's text.  Title words
 *         (reading, the paper keeps entity words from its own segmenter): the
 *         <title> and h1..h6 text segmented by ICU's word break iterator,
 *         letter / kana / ideograph words of 2+ characters, lower-cased, that
 *         are not stop words.  Occurrences are counted in each text node
 *         (ASCII case folded; a word that starts or ends with an ASCII letter
 *         or digit must stand between non-alphanumerics);
 *   PSD = FP * NC / HC, NC non-link characters, HC link characters
 *         (hc=plus1: NC / (HC + 1), the reading, default; hc=max1: the
 *         paper's NC / HC with HC = 0 taken as 1); FP = 0.001 for fewer than 3
 *         punctuation marks, 0.1 for 3-5, 0.5 for 6 or more;
 *   juli(i,j) = (len(i) - pre) + (len(j) - pre) - 1, len = steps from the
 *         root (html/body/div[1] has 3), pre = steps shared; siblings: 1.
 * Steps: merge sibling containers (juli = 1, same tag) whose class attributes
 * are equal (when neither has a class: style; when neither has a style: all
 * other attributes), adding their SD; take the 7 best; JULI = 2 when the
 * best one's text is >= 0.5 of the text of those 7, else 4; keep those of
 * the 7 within juli <= JULI of the best; when more than one is kept, drop
 * those with 3+ copyright-lexicon words and no punctuation.  Output: the
 * text of the kept containers in document order, each leaf once (nested
 * kept containers do not repeat text).
 *
 * Parameters (options "key=value,..."):
 *   q=10, alpha=0.5, beta=1, top=7 (at most 64), share=0.5, near=2 (JULI when the best
 *   dominates), far=4 (JULI otherwise), hc=plus1|max1,
 *   merge_bare=1 (siblings with no attributes at all have equal attributes
 *   and merge, as the paper's rule says; 0: never merge those),
 *   cr_words=3 (lexicon words that make a copyright container),
 *   cr_punct=0 (at most this many punctuation marks counts as "none"),
 *   scope=subtree|own: a container's text (for NC, HC, punctuation, title
 *   words, the JULI share, the copyright test and the output) is everything
 *   in it (subtree: the paper's "content of the container tag", default) or
 *   only what is not inside a nested container (own: the reading that keeps
 *   a wrapper that is an ancestor of the best one from bringing the whole
 *   page along — nested wrappers otherwise fill the top 7, push JULI to 4
 *   and are all within juli <= 4 of the best).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/ubrk.h>
#include <unicode/ustring.h>

#include "methods/dom_index.h"
#include "methods/method.h"
#include "methods/method_options.h"
#include "methods/utf8_scan.h"
#include "methods/wiehf_internal.h"

enum { HC_PLUS1, HC_MAX1 };

typedef struct wiehf {
    double q, alpha, beta, share, near, far;
    int top, hc, merge_bare, cr_words, cr_punct, own;
    UBreakIterator *words; /* template, cloned per page (thread safety) */
} wiehf;

/* The options (--options key=value; above, what each does). */
enum { W_Q, W_ALPHA, W_BETA, W_TOP, W_SHARE, W_NEAR, W_FAR, W_HC, W_MERGE_BARE, W_CR_WORDS, W_CR_PUNCT, W_SCOPE, W_N };
static const char *const hcs[] = {"plus1", "max1", NULL};
static const char *const scopes[] = {"subtree", "own", NULL};
static const ps_option w_options[W_N + 1] = {
    [W_Q] = {"q", PS_OPT_DOUBLE, 10, 1, 1e6, NULL, "DSD's base: index i along the path weighs q^-(i-1)"},
    [W_ALPHA] = {"alpha", PS_OPT_DOUBLE, 0.5, 0, 1e6, NULL, "TSD's weight of the first words (FW)"},
    [W_BETA] = {"beta", PS_OPT_DOUBLE, 1, 0, 1e6, NULL, "TSD's weight of the second words (SW)"},
    [W_TOP] = {"top", PS_OPT_INT, 7, 1, 64, NULL, "the containers of best SD taken"},
    [W_SHARE] = {"share", PS_OPT_DOUBLE, 0.5, 0, 1, NULL, "JULI = near when the best holds >= share of their text"},
    [W_NEAR] = {"near", PS_OPT_DOUBLE, 2, -1, 1e6, NULL, "JULI when the best container dominates"},
    [W_FAR] = {"far", PS_OPT_DOUBLE, 4, -1, 1e6, NULL, "JULI otherwise"},
    [W_HC] = {"hc", PS_OPT_CHOICE, HC_PLUS1, 0, 0, hcs, "PSD's NC / (HC + 1) (plus1) or NC / HC, 0 taken as 1"},
    [W_MERGE_BARE] = {"merge_bare", PS_OPT_BOOL, 1, 0, 1, NULL,
                      "siblings with no attributes at all have equal attributes (merged)"},
    [W_CR_WORDS] = {"cr_words", PS_OPT_INT, 3, 1, 1000, NULL, "lexicon words that make a copyright container"},
    [W_CR_PUNCT] = {"cr_punct", PS_OPT_INT, 0, 0, 1000, NULL, "at most this many punctuation marks count as none"},
    [W_SCOPE] = {"scope", PS_OPT_CHOICE, 0, 0, 0, scopes, "a container's text: its whole subtree, or its own"},
    [W_N] = {NULL, PS_OPT_DOUBLE, 0, 0, 0, NULL, NULL},
};

extern const ps_method ps_method_wiehf;

static void *wiehf_create(const ps_method_config *cfg, ps_error *err)
{
    wiehf *m = calloc(1, sizeof *m);
    if (!m) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ps_options o;
    if (ps_options_resolve(&o, cfg ? cfg->options : NULL, &ps_method_wiehf, err)) {
        free(m);
        return NULL;
    }
    const double *v = o.value;
    *m = (wiehf){.q = v[W_Q], .alpha = v[W_ALPHA], .beta = v[W_BETA], .share = v[W_SHARE], .near = v[W_NEAR],
                 .far = v[W_FAR], .top = (int)v[W_TOP], .hc = (int)v[W_HC], .merge_bare = (int)v[W_MERGE_BARE],
                 .cr_words = (int)v[W_CR_WORDS], .cr_punct = (int)v[W_CR_PUNCT], .own = (int)v[W_SCOPE]};
    UErrorCode st = U_ZERO_ERROR;
    m->words = ubrk_open(UBRK_WORD, "", NULL, 0, &st);
    if (U_FAILURE(st)) {
        ps_set_error(err, PS_ERR_IO, "wiehf: ICU word break iterator unavailable: %s", u_errorName(st));
        free(m);
        return NULL;
    }
    return m;
}

static void wiehf_destroy(void *self)
{
    wiehf *m = self;
    if (m)
        ubrk_close(m->words);
    free(m);
}

/* ---- title words ---------------------------------------------------------- */

static const char *const STOP_WORDS[] = {
    "the", "and", "for", "with", "from", "that", "this", "are", "was", "were", "has", "have", "had", "not",
    "but", "you", "your", "our", "its", "his", "her", "their", "they", "will", "can", "all", "any", "how",
    "what", "when", "where", "who", "why", "which", "about", "into", "over", "after", "more", "than", "new",
    "news", "home", "page", "www", "com", "html", "index", "of", "to", "in", "on", "at", "by", "an", "as",
    "is", "be", "it", "or", "we", "us", "my", "me", "he", "she", "so", "up", "no", "do", "if",
    "我们", "你们", "他们", "这个", "那个", "一个", "没有", "什么", "以及", "关于", "通过", "进行", "可以",
    "就是", "还是", "已经", "因为", "所以", "但是", "如果", "首页", "新闻", "网站", "频道", "正文", NULL};

static int stop_word(const char *w)
{
    for (size_t i = 0; STOP_WORDS[i]; i++)
        if (strcmp(STOP_WORDS[i], w) == 0)
            return 1;
    return 0;
}

static int ascii_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Occurrences of w (lower case) in s (ASCII-folded on the fly). */
static uint32_t count_word(const char *s, size_t n, const char *w, size_t wl)
{
    if (wl == 0 || wl > n)
        return 0;
    int bound_l = ascii_alnum((unsigned char)w[0]), bound_r = ascii_alnum((unsigned char)w[wl - 1]);
    unsigned char first = (unsigned char)w[0];
    unsigned char first_up = (first >= 'a' && first <= 'z') ? (unsigned char)(first - 32) : first;
    uint32_t c = 0;
    for (size_t i = 0; i + wl <= n; i++) {
        unsigned char x = (unsigned char)s[i];
        if (x != first && x != first_up)
            continue;
        size_t k = 1;
        for (; k < wl; k++) {
            unsigned char y = (unsigned char)s[i + k];
            if (y >= 'A' && y <= 'Z')
                y = (unsigned char)(y + 32);
            if (y != (unsigned char)w[k])
                break;
        }
        if (k < wl)
            continue;
        if (bound_l && i > 0 && ascii_alnum((unsigned char)s[i - 1]))
            continue;
        if (bound_r && i + wl < n && ascii_alnum((unsigned char)s[i + wl]))
            continue;
        c++;
        i += wl - 1;
    }
    return c;
}

typedef struct cand {
    char w[64];
    size_t wl;
    uint32_t count;
} cand;

enum { MAX_CANDS = 48 };

/* Segment the title and heading text into candidate words. */
static size_t title_words(const wiehf *m, const char *text, size_t len, cand *out, ps_error *err)
{
    if (len == 0 || len > (1u << 24))
        return 0;
    UChar *u = malloc((len + 1) * sizeof *u);
    UChar lower[64];
    if (!u) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return (size_t)-1;
    }
    UErrorCode st = U_ZERO_ERROR;
    int32_t ul = 0;
    u_strFromUTF8WithSub(u, (int32_t)len + 1, &ul, text, (int32_t)len, 0xFFFD, NULL, &st);
    UBreakIterator *bi = U_SUCCESS(st) ? ubrk_clone(m->words, &st) : NULL;
    size_t n = 0;
    if (bi && U_SUCCESS(st)) {
        ubrk_setText(bi, u, ul, &st);
        int32_t start = ubrk_first(bi);
        for (int32_t end = ubrk_next(bi); end != UBRK_DONE && n < MAX_CANDS; start = end, end = ubrk_next(bi)) {
            if (ubrk_getRuleStatus(bi) < UBRK_WORD_LETTER)
                continue;
            if (u_countChar32(u + start, end - start) < 2 || end - start > 60)
                continue;
            UErrorCode st2 = U_ZERO_ERROR;
            int32_t ll = u_strToLower(lower, 64, u + start, end - start, "", &st2);
            cand c = {0};
            int32_t wl = 0;
            if (U_FAILURE(st2) || ll > 60)
                continue;
            u_strToUTF8(c.w, (int32_t)sizeof c.w - 1, &wl, lower, ll, &st2);
            if (U_FAILURE(st2) || wl <= 0 || wl >= (int32_t)sizeof c.w)
                continue;
            c.w[wl] = '\0';
            c.wl = (size_t)wl;
            if (stop_word(c.w))
                continue;
            size_t k = 0;
            while (k < n && strcmp(out[k].w, c.w) != 0)
                k++;
            if (k == n)
                out[n++] = c;
        }
    }
    if (bi)
        ubrk_close(bi);
    free(u);
    return n;
}

/* ---- the method --------------------------------------------------------- */

static int is_container(const char *name)
{
    return strcmp(name, "div") == 0 || strcmp(name, "table") == 0 || strcmp(name, "tbody") == 0;
}

static const char *attr_value(xmlAttrPtr a)
{
    return a->children && a->children->content ? (const char *)a->children->content : "";
}

/* The merge key of a container: tag, then class, else style, else all other
 * attributes; a NUL-terminated string appended to b.  Returns 1 when the
 * element has no attributes at all. */
static int merge_key(ps_buf *b, xmlNodePtr node)
{
    xmlAttrPtr cls = NULL, sty = NULL;
    int any = 0;
    for (xmlAttrPtr a = node->properties; a; a = a->next) {
        any = 1;
        if (strcmp((const char *)a->name, "class") == 0)
            cls = a;
        else if (strcmp((const char *)a->name, "style") == 0)
            sty = a;
    }
    ps_buf_printf(b, "%s|", (const char *)node->name);
    if (cls)
        ps_buf_printf(b, "c:%s", attr_value(cls));
    else if (sty)
        ps_buf_printf(b, "s:%s", attr_value(sty));
    else
        for (xmlAttrPtr a = node->properties; a; a = a->next)
            ps_buf_printf(b, "a:%s=%s;", (const char *)a->name, attr_value(a));
    ps_buf_putc(b, '\0');
    return !any;
}

typedef struct group {
    double sd;
    uint64_t text;   /* characters of its containers' text */
    uint32_t punct;
    int32_t first;   /* first member (element index), document order */
    int32_t last;    /* last member: members are chained by next_member[] */
    int32_t parent;
    uint32_t n_members;
} group;

double ps_wiehf_juli_formula(uint32_t len_a, uint32_t len_b, uint32_t pre)
{
    return ((double)len_a - pre) + ((double)len_b - pre) - 1;
}

double ps_wiehf_fp(uint32_t punct)
{
    return punct < 3 ? 0.001 : punct < 6 ? 0.1 : 0.5;
}

double ps_wiehf_psd(uint32_t nc, uint32_t hc, uint32_t punct, int hc_plus1)
{
    double den = hc_plus1 ? hc + 1.0 : (hc ? (double)hc : 1.0);
    return ps_wiehf_fp(punct) * nc / den;
}

/* One path step "name[k]": its name length and index (0 when none). */
static const char *path_step(const char *s, size_t *name_len, uint32_t *index)
{
    const char *e = s;
    while (*e && *e != '/' && *e != '[')
        e++;
    *name_len = (size_t)(e - s);
    *index = 0;
    if (*e == '[') {
        *index = (uint32_t)strtoul(e + 1, (char **)&e, 10);
        while (*e && *e != '/')
            e++;
    }
    return *e == '/' ? e + 1 : e;
}

double ps_wiehf_path_juli(const char *a, const char *b)
{
    uint32_t la = 0, lb = 0, pre = 0;
    int same = 1;
    while (*a || *b) {
        const char *sa = a, *sb = b;
        size_t na = 0, nb = 0;
        uint32_t ia = 0, ib = 0;
        if (*a) {
            a = path_step(a, &na, &ia);
            la++;
        }
        if (*b) {
            b = path_step(b, &nb, &ib);
            lb++;
        }
        if (same && na && nb && na == nb && memcmp(sa, sb, na) == 0 && ia == ib)
            pre++;
        else
            same = 0;
    }
    return ps_wiehf_juli_formula(la, lb, pre);
}

double ps_wiehf_path_dsd(const char *path, double q)
{
    double sum = 0, step = 1;
    uint32_t k = 0;
    while (*path) {
        size_t nl;
        uint32_t idx;
        path = path_step(path, &nl, &idx);
        if (++k <= 2) /* html, body */
            continue;
        sum += idx * step;
        step /= q;
    }
    return sum > 0 ? 1.0 / sum : 1.0;
}

/* Steps shared by the paths of a and b (the depth of their lowest common
 * ancestor). */
static uint32_t shared_steps(const ps_dom_index *ix, int32_t a, int32_t b)
{
    while (a != b) {
        if (ix->n[a].depth > ix->n[b].depth)
            a = ix->n[a].parent;
        else if (ix->n[b].depth > ix->n[a].depth)
            b = ix->n[b].parent;
        else {
            a = ix->n[a].parent;
            b = ix->n[b].parent;
        }
        if (a < 0 || b < 0)
            return 0;
    }
    return ix->n[a].depth;
}

/* Path distance of the paper's formula (6). */
static double juli(const ps_dom_index *ix, int32_t a, int32_t b)
{
    return ps_wiehf_juli_formula(ix->n[a].depth, ix->n[b].depth, shared_steps(ix, a, b));
}

/* Extend a choice of containers to what they hold: whole subtrees
 * (scope=subtree), or the elements whose nearest container is chosen
 * (scope=own). */
static void expand(const ps_dom_index *ix, int own, const int32_t *cowner, uint8_t *mark)
{
    if (!own) {
        ps_dom_expand_subtrees(ix, mark);
        return;
    }
    for (size_t i = 0; i < ix->count; i++) /* pre-order: cowner[i] <= i */
        if (cowner[i] >= 0 && (size_t)cowner[i] != i && mark[cowner[i]])
            mark[i] = 1;
}

static const char *const COPYRIGHT_WORDS[] = {
    "\xC2\xA9", "copyright", "(c)", "all rights reserved", "版权", "所有", "icp", "备案", "公网安备",
    "许可证", "免责", "隐私", "privacy", "terms of use", "terms of service", "联系我们", "关于我们",
    "about us", "contact us", "网站地图", "sitemap", "powered by", NULL};

static int wiehf_extract(void *self, ps_page *page, const char *site, ps_method_output *out, ps_error *err)
{
    (void)site;
    const wiehf *m = self;
    ps_dom_index ix;
    if (ps_dom_index_build(&ix, page, err))
        return -1;
    size_t n = ix.count;
    int rc = -1;
    uint32_t *nc = calloc(n + 1, sizeof *nc), *hc = calloc(n + 1, sizeof *hc);
    uint32_t *punct = calloc(n + 1, sizeof *punct);
    uint32_t *fw = calloc(n + 1, sizeof *fw), *sw = calloc(n + 1, sizeof *sw);
    double *path = calloc(n + 1, sizeof *path), *step = calloc(n + 1, sizeof *step);
    int32_t *gid = malloc((n + 1) * sizeof *gid), *next_member = malloc((n + 1) * sizeof *next_member);
    uint8_t *heading = calloc(n + 1, 1), *keep = calloc(n + 1, 1);
    int32_t *cowner = malloc((n + 1) * sizeof *cowner);
    uint8_t *keep_leaf = calloc(page->n_leaves + 1, 1);
    group *groups = NULL;
    ps_buf keys = {0}, titles = {0};
    uint32_t *key_off = malloc((n + 1) * sizeof *key_off);
    int32_t *table = NULL;
    cand cands[MAX_CANDS];
    if (!nc || !hc || !punct || !fw || !sw || !path || !step || !gid || !next_member || !heading || !keep ||
        !keep_leaf || !key_off || !cowner)
        goto nomem;

    /* Per-node counts, paths (DSD sums) and heading flags, in pre-order. */
    for (size_t i = 0; i < n; i++) {
        int32_t p = ix.n[i].parent;
        const char *name = (const char *)ix.n[i].node->name;
        heading[i] = (p >= 0 && heading[p]) || (ps_tag_kind(name) & PS_TAG_HEADING);
        cowner[i] = is_container(name) ? (int32_t)i : p >= 0 ? cowner[p] : -1;
        if (p < 0 || ix.n[i].depth <= 2) /* html, body: no index on the path */
            continue;
        step[i] = ix.n[i].depth == 3 ? 1.0 : step[p] / m->q;
        path[i] = path[p] + ix.n[i].sib_index * step[i];
    }
    if (ps_buf_append(&titles, page->title, strlen(page->title)))
        goto nomem;
    for (size_t t = 0; t < ix.n_text; t++) {
        const ps_dtext *x = &ix.t[t];
        uint32_t chars = 0, pm = 0;
        for (size_t k = 0; k < x->len;) {
            unsigned char c = (unsigned char)x->s[k];
            if (c < 0x80) {
                pm += ps_is_punct(c);
                k++;
            } else {
                pm += ps_is_punct(ps_utf8_next(x->s, x->len, &k));
            }
        }
        chars = ps_collapsed_chars(x->s, x->len);
        if (ix.n[x->elem].in_link)
            hc[x->elem] += chars;
        else
            nc[x->elem] += chars;
        punct[x->elem] += pm;
        if (heading[x->elem] && (ps_buf_putc(&titles, '\n') || ps_buf_append(&titles, x->s, x->len)))
            goto nomem;
    }

    /* Title words: the two that occur most often in the page's text. */
    size_t n_cands = title_words(m, titles.data ? titles.data : "", titles.len, cands, err);
    if (n_cands == (size_t)-1)
        goto done;
    for (size_t t = 0; t < ix.n_text && n_cands; t++)
        for (size_t k = 0; k < n_cands; k++)
            cands[k].count += count_word(ix.t[t].s, ix.t[t].len, cands[k].w, cands[k].wl);
    int first = -1, second = -1;
    for (size_t k = 0; k < n_cands; k++) {
        if (cands[k].count == 0)
            continue;
        if (first < 0 || cands[k].count > cands[first].count) {
            second = first;
            first = (int)k;
        } else if (second < 0 || cands[k].count > cands[second].count) {
            second = (int)k;
        }
    }
    for (size_t t = 0; t < ix.n_text && first >= 0; t++) {
        fw[ix.t[t].elem] += count_word(ix.t[t].s, ix.t[t].len, cands[first].w, cands[first].wl);
        if (second >= 0)
            sw[ix.t[t].elem] += count_word(ix.t[t].s, ix.t[t].len, cands[second].w, cands[second].wl);
    }
    for (size_t i = n; i-- > 1;) {
        int32_t p = ix.n[i].parent;
        if (p < 0 || (m->own && is_container((const char *)ix.n[i].node->name)))
            continue; /* scope=own: a container's text stops at nested ones */
        nc[p] += nc[i];
        hc[p] += hc[i];
        punct[p] += punct[i];
        fw[p] += fw[i];
        sw[p] += sw[i];
    }

    /* SD of each container; merge equal siblings into groups. */
    size_t n_cont = 0;
    for (size_t i = 0; i < n; i++)
        n_cont += is_container((const char *)ix.n[i].node->name);
    groups = malloc((n_cont + 1) * sizeof *groups);
    size_t tcap = 16;
    while (tcap < n_cont * 2)
        tcap *= 2;
    table = malloc(tcap * sizeof *table);
    if (!groups || !table)
        goto nomem;
    for (size_t k = 0; k < tcap; k++)
        table[k] = -1;
    size_t n_groups = 0;
    for (size_t i = 0; i < n; i++) {
        gid[i] = -1;
        next_member[i] = -1;
        if (!is_container((const char *)ix.n[i].node->name))
            continue;
        double dsd = path[i] > 0 ? 1.0 / path[i] : 1.0;
        double tsd = m->alpha * fw[i] + m->beta * sw[i];
        double sd = dsd * (tsd + ps_wiehf_psd(nc[i], hc[i], punct[i], m->hc == HC_PLUS1));
        key_off[i] = (uint32_t)keys.len;
        size_t before = keys.len;
        int bare = merge_key(&keys, ix.n[i].node);
        if (keys.len == before || !keys.data)
            goto nomem;
        const char *key = keys.data + key_off[i];
        int32_t g = -1;
        size_t slot = 0;
        if (!bare || m->merge_bare) {
            uint64_t h = ps_hash64(key, strlen(key)) ^ ((uint64_t)(uint32_t)ix.n[i].parent * 0x9E3779B97F4A7C15ULL);
            slot = (size_t)(h ^ (h >> 31)) & (tcap - 1);
            while (table[slot] >= 0) {
                const group *o = &groups[table[slot]];
                if (o->parent == ix.n[i].parent && strcmp(keys.data + key_off[o->first], key) == 0) {
                    g = table[slot];
                    break;
                }
                slot = (slot + 1) & (tcap - 1);
            }
        }
        if (g < 0) {
            g = (int32_t)n_groups++;
            groups[g] = (group){0, 0, 0, (int32_t)i, (int32_t)i, ix.n[i].parent, 0};
            if (!bare || m->merge_bare)
                table[slot] = g;
        } else { /* append to the member list */
            next_member[groups[g].last] = (int32_t)i;
            groups[g].last = (int32_t)i;
        }
        gid[i] = g;
        groups[g].sd += sd;
        groups[g].text += (uint64_t)nc[i] + hc[i];
        groups[g].punct += punct[i];
        groups[g].n_members++;
    }

    /* The best groups, the JULI threshold, the distance filter. */
    int32_t best[64];
    size_t n_best = 0, want = (size_t)m->top < 64 ? (size_t)m->top : 64;
    for (size_t g = 0; g < n_groups; g++) {
        size_t k = n_best < want ? n_best++ : want;
        if (k == want && !(groups[g].sd > groups[best[want - 1]].sd))
            continue;
        if (k == want)
            k = want - 1;
        while (k > 0 && groups[g].sd > groups[best[k - 1]].sd) {
            best[k] = best[k - 1];
            k--;
        }
        best[k] = (int32_t)g;
    }
    size_t kept_units = 0;
    if (n_best > 0) {
        uint64_t total = 0;
        for (size_t k = 0; k < n_best; k++)
            total += groups[best[k]].text;
        double limit = (total && (double)groups[best[0]].text >= m->share * (double)total) ? m->near : m->far;
        int32_t b0 = groups[best[0]].first;
        uint8_t chosen[64] = {0};
        size_t n_chosen = 0;
        for (size_t k = 0; k < n_best; k++) {
            double d = INFINITY;
            for (int32_t e = groups[best[k]].first; e >= 0; e = next_member[e]) {
                double j = juli(&ix, b0, e);
                if (j < d)
                    d = j;
            }
            if (d <= limit) {
                chosen[k] = 1;
                n_chosen++;
            }
        }
        /* Copyright filter when several remain. */
        if (n_chosen > 1) {
            uint8_t *in = calloc(n + 1, 1);
            if (!in)
                goto nomem;
            for (size_t k = 0; k < n_best; k++) {
                if (!chosen[k] || groups[best[k]].punct > (uint32_t)m->cr_punct)
                    continue;
                memset(in, 0, n);
                for (int32_t e = groups[best[k]].first; e >= 0; e = next_member[e])
                    in[e] = 1;
                expand(&ix, m->own, cowner, in);
                uint32_t words = 0;
                for (size_t t = 0; t < ix.n_text; t++)
                    if (in[ix.t[t].elem])
                        for (size_t w = 0; COPYRIGHT_WORDS[w]; w++)
                            words += count_word(ix.t[t].s, ix.t[t].len, COPYRIGHT_WORDS[w],
                                                strlen(COPYRIGHT_WORDS[w]));
                if (words >= (uint32_t)m->cr_words)
                    chosen[k] = 0;
            }
            free(in);
        }
        for (size_t k = 0; k < n_best; k++)
            if (chosen[k])
                for (int32_t e = groups[best[k]].first; e >= 0; e = next_member[e]) {
                    keep[e] = 1;
                    kept_units++;
                }
    }
    expand(&ix, m->own, cowner, keep);
    ps_dom_keep_leaves(&ix, keep, keep_leaf);
    out->text = ps_page_text_leaves(page, keep_leaf, &out->len);
    if (!out->text)
        goto nomem;
    out->leaf_kept = keep_leaf;
    keep_leaf = NULL;
    out->blocks_kept = (uint32_t)kept_units;
    out->blocks_removed = (uint32_t)(n_cont - kept_units);
    rc = 0;
    goto done;
nomem:
    rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
done:
    free(nc);
    free(hc);
    free(punct);
    free(fw);
    free(sw);
    free(path);
    free(step);
    free(gid);
    free(next_member);
    free(heading);
    free(keep);
    free(cowner);
    free(keep_leaf);
    free(groups);
    free(table);
    free(key_off);
    ps_buf_free(&keys);
    ps_buf_free(&titles);
    ps_dom_index_free(&ix);
    return rc;
}

const ps_method ps_method_wiehf = {
    .name = "wiehf",
    .summary = "WIEHF: container support SD = DSD x (TSD + PSD), top 7, path distance (METHODS.md §4)",
    .flags = 0,
    .create = wiehf_create,
    .extract = wiehf_extract,
    .destroy = wiehf_destroy,
    .options = w_options,
};
