/* extract/page_signals.c — what kind of page this is, as numbers: the
 * signals the page-type classifier (train/page_types.c) reads.
 *
 * Each signal is of the whole page, cheap and language-neutral: what its
 * JSON-LD and URL say, how many of a few telling elements it has (article,
 * pre, form, th, time, ...), class and id words of shops, threads, cards
 * and docs, how its text is spread (one main block, or a group of repeated
 * siblings holding most of it), and prices in its text.  Counts are given
 * as log(1 + n) so an RBF kernel sees comparable scales.  One walk over the
 * cleaned DOM plus one over the blocks and one over the leaves: a page costs
 * O(nodes + text).  The list, with what each measures, is SIGNALS[] below;
 * a model names the signals it was trained on, so the list may grow at the
 * end but an entry is never renamed or given another meaning.
 *
 * After those come the hashed token signals (HBLOCKS[] below): bags of the
 * page's class and id words, URL words, element names and structure words,
 * each hashed into a block of fixed size.  They are computed only for the
 * blocks asked for (ps_page_signals_select: a bundle asks for the blocks it
 * names), so a bundle without them costs no more than before. */
#define _GNU_SOURCE /* memrchr */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "extract/meta_internal.h"
#include "extract/page_internal.h"
#include "extract/page_signals.h"

enum {
    S_LD_ARTICLE, S_LD_PRODUCT, S_LD_FORUM, S_LD_LIST, S_LD_QA,
    S_URL_DEPTH, S_URL_DATE, S_URL_QUERY, S_URL_PRODUCT, S_URL_FORUM, S_URL_DOCS, S_URL_LIST,
    S_URL_ARTICLE, S_URL_SERVICE,
    S_ARTICLE, S_PRE, S_CODE, S_FORM, S_INPUT, S_TH, S_LI, S_H2, S_H3, S_TIME, S_IMG,
    S_PROP_PRICE, S_PROP_COMMENT,
    S_CLS_PRODUCT, S_CLS_POST, S_CLS_COMMENT, S_CLS_CARD, S_CLS_DOCS,
    S_TEXT, S_TEXT_DENSITY, S_LINK, S_MAIN, S_PRICES,
    S_REP_SHARE, S_REP_ITEMS, S_REP_GROUPS,
    N_SIGNALS
};

static const char *const SIGNALS[N_SIGNALS] = {
    /* the page's JSON-LD names (ps_page_schema_kinds), 0/1 */
    [S_LD_ARTICLE] = "p_ld_article", [S_LD_PRODUCT] = "p_ld_product", [S_LD_FORUM] = "p_ld_forum",
    [S_LD_LIST] = "p_ld_list", [S_LD_QA] = "p_ld_qa",
    /* its URL: log(1 + path segments), a date in the path, a query, and
     * words of the path (whole tokens, any case): product, p, dp, item,
     * shop ...; forum, thread, topic, t, community, questions ...; docs,
     * api, reference, guide, manual, wiki ...; category, tag, search,
     * collections, archive ...; blog, news, article, story, post ...;
     * services, pricing, about, solutions, contact ... (0/1 each) */
    [S_URL_DEPTH] = "p_url_depth", [S_URL_DATE] = "p_url_date", [S_URL_QUERY] = "p_url_query",
    [S_URL_PRODUCT] = "p_url_product", [S_URL_FORUM] = "p_url_forum", [S_URL_DOCS] = "p_url_docs",
    [S_URL_LIST] = "p_url_list", [S_URL_ARTICLE] = "p_url_article", [S_URL_SERVICE] = "p_url_service",
    /* elements, log(1 + count): article, pre, code, form, input and button,
     * th, li, h2, h3, time, img */
    [S_ARTICLE] = "p_article", [S_PRE] = "p_pre", [S_CODE] = "p_code", [S_FORM] = "p_form",
    [S_INPUT] = "p_input", [S_TH] = "p_th", [S_LI] = "p_li", [S_H2] = "p_h2", [S_H3] = "p_h3",
    [S_TIME] = "p_time", [S_IMG] = "p_img",
    /* microdata, log(1 + elements): itemprop price/offers/priceCurrency;
     * itemprop or itemtype of a comment, answer or post */
    [S_PROP_PRICE] = "p_prop_price", [S_PROP_COMMENT] = "p_prop_comment",
    /* elements whose class or id holds a word of: a shop (product, price,
     * cart, sku, offer), a thread (post, thread, reply, topic, forum,
     * message), comments, cards (card, tile, item, grid, teaser, result),
     * docs (docs, toc, api, highlight, markdown, sphinx); log(1 + count) */
    [S_CLS_PRODUCT] = "p_cls_product", [S_CLS_POST] = "p_cls_post", [S_CLS_COMMENT] = "p_cls_comment",
    [S_CLS_CARD] = "p_cls_card", [S_CLS_DOCS] = "p_cls_docs",
    /* its text: log(1 + characters), log(1 + characters per leaf), link
     * characters / characters, the largest block's own non-link characters
     * / characters (an article's body holds most of its page), log(1 +
     * prices) (a currency sign or code beside a number) */
    [S_TEXT] = "p_text", [S_TEXT_DENSITY] = "p_text_density", [S_LINK] = "p_link", [S_MAIN] = "p_main",
    [S_PRICES] = "p_prices",
    /* repeated siblings (blocks of one parent and shape, ps_block_shape, at
     * least 3): the share of the page's text in the group holding most,
     * log(1 + its members), log(1 + such groups) */
    [S_REP_SHARE] = "p_rep_share", [S_REP_ITEMS] = "p_rep_items", [S_REP_GROUPS] = "p_rep_groups",
};

/* The node after @p n in pre-order within @p root's subtree (an element's
 * children first), 0 past its end: an iterative walk, as pages nest deeper
 * than a C stack likes. */
static uint32_t next_in_order(const ps_tree *t, uint32_t root, uint32_t n)
{
    const ps_tnode *e = &t->nodes[n];
    if (e->type == PS_TN_ELEMENT && e->first)
        return e->first;
    while (n && n != root && !t->nodes[n].next)
        n = t->nodes[n].parent;
    return !n || n == root ? 0 : t->nodes[n].next;
}

/* ---- hashed tokens (issue 34, sixteenth round; docs/PAGE_TYPES.md) ------
 * Four families of tokens, each hashed (FNV-1a of a prefix and the token,
 * then x ^= x >> 15) into blocks of fixed sizes, bucket x % size; a
 * block's vector of log(1 + count) is scaled to unit length, so every value
 * is in [0, 1] and a block adds at most 2 to a squared distance however
 * many tokens the page has:
 *   c  class and id words of every element of the cleaned page (a-z runs of
 *      at least 2 letters, lower-cased: digits and punctuation separate);
 *   u  URL words: the path's letter runs ("u:"), the query's keys ("q:"),
 *      the host's labels but the last two and www ("h:"), 1 letter and up;
 *   t  element names of the cleaned page;
 *   x  structure words: JSON-LD @type names ("j:"), itemtype's last segment
 *      ("i:"), rel ("r:"), role ("o:") and <input type> ("y:") values.
 * Signal j of a block is called its prefix then j in 3 digits.  Blocks are
 * only ever added (at the end of HBLOCKS); each keeps its meaning. */
enum { HF_CLASS, HF_URL, HF_TAG, HF_STRUCT, N_HFAM };

static const struct hblock {
    unsigned char fam;
    unsigned short size;
    const char *name; /* the spec's name of the block (ps_page_hash_blocks) */
    const char *prefix;
} HBLOCKS[] = {
    /* the sixteenth round's 512 */
    {HF_CLASS, 256, "c", "p_hc"},
    {HF_URL, 96, "u", "p_hu"},
    {HF_TAG, 64, "t", "p_ht"},
    {HF_STRUCT, 96, "x", "p_hx"},
    /* the same tokens in smaller blocks (256 in all) */
    {HF_CLASS, 128, "c128", "p_hc128_"},
    {HF_URL, 64, "u64", "p_hu64_"},
    {HF_TAG, 32, "t32", "p_ht32_"},
    {HF_STRUCT, 32, "x32", "p_hx32_"},
};
#define N_HBLOCKS (sizeof HBLOCKS / sizeof *HBLOCKS)
#define N_HASH (256 + 96 + 64 + 96 + 128 + 64 + 32 + 32)

/* where each block starts among the signals, and the hashed signals' names
 * (made once) */
static size_t hblock_at[N_HBLOCKS + 1];
static char hash_names[N_HASH][16];
static pthread_once_t hash_once = PTHREAD_ONCE_INIT;

static void name_hashes(void)
{
    size_t at = N_SIGNALS;
    for (size_t b = 0; b < N_HBLOCKS; b++) {
        hblock_at[b] = at;
        for (unsigned j = 0; j < HBLOCKS[b].size; j++)
            snprintf(hash_names[at - N_SIGNALS + j], sizeof *hash_names, "%s%03u", HBLOCKS[b].prefix, j);
        at += HBLOCKS[b].size;
    }
    hblock_at[N_HBLOCKS] = at;
}

size_t ps_page_signal_count(void)
{
    return N_SIGNALS + N_HASH;
}

size_t ps_page_signal_base_count(void)
{
    return N_SIGNALS;
}

int ps_page_signal_block(size_t i)
{
    if (i < N_SIGNALS || i >= N_SIGNALS + N_HASH)
        return -1;
    pthread_once(&hash_once, name_hashes);
    int b = 0;
    while (i >= hblock_at[b + 1])
        b++;
    return b;
}

const char *ps_page_signal_name(size_t i)
{
    if (i < N_SIGNALS)
        return SIGNALS[i];
    if (i >= N_SIGNALS + N_HASH)
        return NULL;
    pthread_once(&hash_once, name_hashes);
    return hash_names[i - N_SIGNALS];
}

int ps_page_signal_lookup(const char *name)
{
    for (size_t i = 0; name && i < N_SIGNALS; i++)
        if (strcmp(SIGNALS[i], name) == 0)
            return (int)i;
    if (!name || strncmp(name, "p_h", 3) != 0)
        return -1;
    pthread_once(&hash_once, name_hashes);
    for (size_t i = 0; i < N_HASH; i++)
        if (strcmp(hash_names[i], name) == 0)
            return (int)(N_SIGNALS + i);
    return -1;
}

int ps_page_hash_blocks(const char *spec, unsigned *blocks)
{
    unsigned m = 0;
    for (const char *p = spec ? spec : ""; *p;) {
        if (*p == ',' || *p == ' ') {
            p++;
            continue;
        }
        size_t l = 1 + strspn(p + 1, "0123456789");
        size_t b = 0;
        while (b < N_HBLOCKS && (strlen(HBLOCKS[b].name) != l || strncmp(HBLOCKS[b].name, p, l) != 0))
            b++;
        if (b == N_HBLOCKS)
            return -1;
        m |= 1u << b;
        p += l;
    }
    *blocks = m;
    return 0;
}

/* The selected blocks' counts, per family: where each adds (raw counts in
 * the output, made log(1 + n) and unit length at the end). */
typedef struct hsink {
    double *h[N_HFAM][N_HBLOCKS];
    unsigned size[N_HFAM][N_HBLOCKS];
    unsigned n[N_HFAM];
} hsink;

/* FNV-1a of prefix @p pre and @p n bytes of @p t, into family @p f's blocks */
static void hash_add(hsink *k, int f, const char *pre, const char *t, size_t n)
{
    uint32_t x = 2166136261u;
    for (const char *c = pre; *c; c++)
        x = (x ^ (unsigned char)*c) * 16777619u;
    for (size_t i = 0; i < n; i++)
        x = (x ^ (unsigned char)t[i]) * 16777619u;
    x ^= x >> 15;
    for (unsigned b = 0; b < k->n[f]; b++)
        k->h[f][b][x % k->size[f][b]] += 1;
}

/* the a-z runs of @p v (at most @p maxlen bytes, up to a NUL) of at least
 * @p minlen letters, case folded, at most 24 letters of each hashed */
static void hash_words(hsink *k, int f, const char *pre, const char *v, size_t maxlen, size_t minlen)
{
    char tok[24];
    size_t tl = 0, full = 0;
    for (size_t i = 0;; i++) {
        unsigned char c = i < maxlen ? (unsigned char)v[i] : 0;
        if (c && c < 128 && isalpha(c)) {
            if (tl < sizeof tok)
                tok[tl++] = (char)tolower(c);
            full++;
            continue;
        }
        if (full >= minlen)
            hash_add(k, f, pre, tok, tl);
        tl = full = 0;
        if (!c)
            break;
    }
}

static void url_hashes(hsink *k, const char *url)
{
    if (!url || !*url)
        return;
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t hl = strcspn(p, "/?#:");
    /* the host's labels but the last two */
    size_t dots = 0;
    for (size_t i = 0; i < hl; i++)
        dots += p[i] == '.';
    size_t at = 0, label = 0;
    for (size_t i = 0; i <= hl && dots >= 2; i++)
        if (i == hl || p[i] == '.') {
            if (label + 2 <= dots && !(i - at == 3 && strncasecmp(p + at, "www", 3) == 0))
                hash_words(k, HF_URL, "h:", p + at, i - at, 1);
            label++;
            at = i + 1;
        }
    p += strcspn(p, "/?#");
    size_t pl = strcspn(p, "?#");
    hash_words(k, HF_URL, "u:", p, pl, 1);
    if (p[pl] == '?') {
        const char *q = p + pl + 1;
        size_t ql = strcspn(q, "#");
        for (size_t i = 0; i < ql;) { /* the keys */
            size_t kl = strcspn(q + i, "=&#");
            if (kl > ql - i)
                kl = ql - i;
            hash_words(k, HF_URL, "q:", q + i, kl, 1);
            i += kl;
            i += strcspn(q + i, "&#");
            if (i < ql)
                i++;
        }
    }
}

/* "@type": "X" or ["X", "Y"] in a JSON-LD text ("http://schema.org/X": X) */
static void jsonld_hashes(hsink *k, const char *j)
{
    for (const char *p = j; (p = strstr(p, "\"@type\"")) != NULL;) {
        p += 7;
        while (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t' || *p == '\r')
            p++;
        int arr = *p == '[';
        if (arr)
            p++;
        for (;;) {
            while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t' || *p == '\r')
                p++;
            if (*p != '"')
                break;
            const char *e = strchr(p + 1, '"');
            if (!e)
                return;
            const char *t = p + 1;
            const char *sl = memrchr(t, '/', (size_t)(e - t));
            if (sl)
                t = sl + 1;
            hash_words(k, HF_STRUCT, "j:", t, (size_t)(e - t), 2);
            p = e + 1;
            if (!arr)
                break;
        }
    }
}

/* class and id words (c); rel, role, itemtype, <input type> (x) */
static void attr_hashes(hsink *k, const ps_tree *t, uint32_t el)
{
    const ps_tnode *e = &t->nodes[el];
    for (uint32_t ai = 0; ai < e->len; ai++) {
        const ps_tattr *a = &t->attrs[e->off + ai];
        const char *n = (const char *)a->name;
        /* the name's first letter before any comparison: most attributes
         * are none of the six */
        int f = -1;
        const char *pre = "";
        switch (n[0]) {
        case 'c':
            if (strcmp(n + 1, "lass") == 0)
                f = HF_CLASS;
            break;
        case 'i':
            if (n[1] == 'd' && !n[2])
                f = HF_CLASS;
            else if (strcmp(n + 1, "temtype") == 0)
                f = HF_STRUCT, pre = "i:";
            break;
        case 'r':
            if (strcmp(n + 1, "el") == 0)
                f = HF_STRUCT, pre = "r:";
            else if (strcmp(n + 1, "ole") == 0)
                f = HF_STRUCT, pre = "o:";
            break;
        case 't':
            if (strcmp(n + 1, "ype") == 0 && strcmp((const char *)e->name, "input") == 0)
                f = HF_STRUCT, pre = "y:";
            break;
        default: break;
        }
        if (f < 0 || !k->n[f] || ps_tree_valueless(t, e->off + ai))
            continue;
        const char *v = t->text + a->off;
        if (pre[0] == 'i') { /* itemtype: its last segment */
            const char *sl = strrchr(v, '/');
            if (sl)
                v = sl + 1;
        }
        hash_words(k, f, pre, v, strlen(v), 2);
    }
}

/* The hashed signals of the blocks in @p blocks into @p s (all signals; the
 * other blocks' values are left alone). */
static void hash_signals(const ps_page *pg, double *s, unsigned blocks)
{
    pthread_once(&hash_once, name_hashes);
    hsink k = {0};
    for (size_t b = 0; b < N_HBLOCKS; b++)
        if (blocks & (1u << b)) {
            int f = HBLOCKS[b].fam;
            k.h[f][k.n[f]] = s + hblock_at[b];
            k.size[f][k.n[f]++] = HBLOCKS[b].size;
            memset(s + hblock_at[b], 0, HBLOCKS[b].size * sizeof *s);
        }
    if (k.n[HF_URL])
        url_hashes(&k, pg->url);
    if (k.n[HF_STRUCT])
        for (size_t i = 0; pg->meta && i < pg->meta->n; i++)
            if (strcmp(pg->meta->kv[i].key, "jsonld") == 0 && pg->meta->kv[i].val)
                jsonld_hashes(&k, pg->meta->kv[i].val);
    const ps_tree *t = pg->tree;
    uint32_t root = t && (k.n[HF_CLASS] || k.n[HF_TAG] || k.n[HF_STRUCT]) ? ps_tree_root(t) : 0;
    for (uint32_t n = root; n; n = next_in_order(t, root, n)) {
        const ps_tnode *e = &t->nodes[n];
        if (e->type == PS_TN_ELEMENT) {
            if (k.n[HF_TAG])
                hash_add(&k, HF_TAG, "", (const char *)e->name, strlen((const char *)e->name));
            if (e->len && (k.n[HF_CLASS] || k.n[HF_STRUCT]))
                attr_hashes(&k, t, n);
        }
    }
    for (size_t b = 0; b < N_HBLOCKS; b++) {
        if (!(blocks & (1u << b)))
            continue;
        double *h = s + hblock_at[b], ss = 0;
        for (unsigned j = 0; j < HBLOCKS[b].size; j++) {
            h[j] = log1p(h[j]);
            ss += h[j] * h[j];
        }
        double nrm = ss > 0 ? 1.0 / sqrt(ss) : 0;
        for (unsigned j = 0; j < HBLOCKS[b].size; j++)
            h[j] *= nrm;
    }
}

/* ---- the URL ---------------------------------------------------------- */

static int in_list(const char *tok, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(tok, *list) == 0)
            return 1;
    return 0;
}

static void url_signals(const char *url, double *s)
{
    static const char *const PRODUCT[] = {"product", "products", "p", "dp", "item", "items", "shop", "store",
                                          "buy", "sku", "produkt", "produit", "producto", NULL};
    static const char *const FORUM[] = {"forum", "forums", "thread", "threads", "topic", "topics", "t",
                                        "community", "discussion", "discussions", "questions", "question",
                                        "q", "board", "boards", "viewtopic", "showthread", NULL};
    static const char *const DOCS[] = {"doc", "docs", "documentation", "api", "reference", "guide", "guides",
                                       "manual", "wiki", "learn", "help", "kb", "tutorial", "tutorials",
                                       "howto", "sdk", NULL};
    static const char *const LIST[] = {"category", "categories", "tag", "tags", "search", "collections",
                                       "collection", "archive", "archives", "list", "c", "browse", "page",
                                       "catalog", "shop-all", "all", "results", NULL};
    static const char *const ARTICLE[] = {"blog", "news", "article", "articles", "story", "stories", "post",
                                          "posts", "insights", "press", "magazine", NULL};
    static const char *const SERVICE[] = {"services", "service", "pricing", "about", "solutions", "features",
                                          "contact", "plans", "company", "careers", "team", "industries",
                                          NULL};
    if (!url || !*url)
        return;
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    p += strcspn(p, "/?#"); /* past the host */
    int segs = 0, date = 0;
    char tok[32];
    size_t tl = 0;
    for (const char *c = p;; c++) {
        if (*c == '?')
            s[S_URL_QUERY] = 1;
        if (*c == '/' && c[1] && c[1] != '?' && c[1] != '#')
            segs += 1;
        if (*c && isalnum((unsigned char)*c)) {
            if (tl < sizeof tok - 1)
                tok[tl++] = (char)tolower((unsigned char)*c);
            continue;
        }
        if (tl) {
            tok[tl] = 0;
            if (tl == 4 && (memcmp(tok, "19", 2) == 0 || memcmp(tok, "20", 2) == 0) &&
                isdigit((unsigned char)tok[2]) && isdigit((unsigned char)tok[3]))
                date = 1;
            s[S_URL_PRODUCT] = s[S_URL_PRODUCT] || in_list(tok, PRODUCT);
            s[S_URL_FORUM] = s[S_URL_FORUM] || in_list(tok, FORUM);
            s[S_URL_DOCS] = s[S_URL_DOCS] || in_list(tok, DOCS);
            s[S_URL_LIST] = s[S_URL_LIST] || in_list(tok, LIST);
            s[S_URL_ARTICLE] = s[S_URL_ARTICLE] || in_list(tok, ARTICLE);
            s[S_URL_SERVICE] = s[S_URL_SERVICE] || in_list(tok, SERVICE);
            tl = 0;
        }
        if (!*c || *c == '#')
            break;
    }
    s[S_URL_DEPTH] = log1p(segs);
    s[S_URL_DATE] = date;
}

/* ---- the DOM ---------------------------------------------------------- */

/* Words looked for inside class and id values (cls) and itemprop and
 * itemtype values (!cls), lower case, anywhere in the value; bit = the
 * signal's bit in attr_signals. */
static const struct stem {
    const char *s; /* first: ps_first_letter_runs reads it */
    unsigned char len, cls, bit;
} STEMS[] = { /* by first letter */
    {"answer", 6, 0, 64},   {"api", 3, 1, 16},       {"cart", 4, 1, 1},      {"comment", 7, 1, 4},
    {"comment", 7, 0, 64},  {"card", 4, 1, 8},       {"docs", 4, 1, 16},     {"forum", 5, 1, 2},
    {"forumposting", 12, 0, 64}, {"grid", 4, 1, 8},  {"highlight", 9, 1, 16}, {"item", 4, 1, 8},
    {"message", 7, 1, 2},   {"markdown", 8, 1, 16},  {"offer", 5, 1, 1},     {"offers", 6, 0, 32},
    {"product", 7, 1, 1},   {"price", 5, 1, 1},      {"post", 4, 1, 2},      {"price", 5, 0, 32},
    {"reply", 5, 1, 2},     {"result", 6, 1, 8},     {"sku", 3, 1, 1},       {"sphinx", 6, 1, 16},
    {"socialmediaposting", 18, 0, 64}, {"thread", 6, 1, 2}, {"topic", 5, 1, 2}, {"tile", 4, 1, 8},
    {"teaser", 6, 1, 8},    {"toc", 3, 1, 16},
};

/* first_at[c] .. first_at[c + 1]: the stems starting with 'a' + c (made once) */
static unsigned char first_at[27];
static pthread_once_t first_once = PTHREAD_ONCE_INIT;

static void index_stems(void)
{
    ps_first_letter_runs(STEMS, sizeof STEMS / sizeof *STEMS, sizeof *STEMS, first_at);
}

/* The bits of the stems of kind @p cls found in the lower-cased value @p v
 * (@p n bytes): one pass, each position tried only against the stems
 * starting with its letter. */
static unsigned stem_bits(const char *v, size_t n, int cls)
{
    pthread_once(&first_once, index_stems);
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 'a' || c > 'z')
            continue;
        for (unsigned k = first_at[c - 'a']; k < first_at[c - 'a' + 1]; k++) {
            const struct stem *st = &STEMS[k];
            /* the second letter before the call (every stem has one) */
            if (st->cls == cls && n - i >= st->len && v[i + 1] == st->s[1] &&
                memcmp(v + i + 2, st->s + 2, st->len - 2u) == 0)
                bits |= st->bit;
        }
    }
    return bits;
}

static void attr_signals(const ps_tree *t, uint32_t el, double *cnt)
{
    unsigned hit = 0;
    const ps_tnode *e = &t->nodes[el];
    for (uint32_t ai = 0; ai < e->len; ai++) {
        const ps_tattr *a = &t->attrs[e->off + ai];
        const char *n = (const char *)a->name;
        /* the name's first letter before any comparison: most attributes
         * are none of the four */
        int cls = (n[0] == 'c' && strcmp(n, "class") == 0) || (n[0] == 'i' && n[1] == 'd' && !n[2]);
        int prop = n[0] == 'i' && n[1] == 't' && (strcmp(n, "itemprop") == 0 || strcmp(n, "itemtype") == 0);
        if ((!cls && !prop) || ps_tree_valueless(t, e->off + ai))
            continue;
        char v[256];
        size_t k = 0;
        for (const char *c = t->text + a->off; *c && k < sizeof v - 1; c++)
            v[k++] = (char)tolower((unsigned char)*c);
        hit |= stem_bits(v, k, cls);
    }
    cnt[S_CLS_PRODUCT] += (hit & 1) != 0;
    cnt[S_CLS_POST] += (hit & 2) != 0;
    cnt[S_CLS_COMMENT] += (hit & 4) != 0;
    cnt[S_CLS_CARD] += (hit & 8) != 0;
    cnt[S_CLS_DOCS] += (hit & 16) != 0;
    cnt[S_PROP_PRICE] += (hit & 32) != 0;
    cnt[S_PROP_COMMENT] += (hit & 64) != 0;
}

/* The counted signal of an element name (article, pre, code, form, input
 * and button, th, li, h2, h3, time, img), or -1: one switch on the first
 * letter, then one comparison (a loop of twelve first-letter tests before). */
static int tag_signal(const char *name)
{
    switch (name[0]) {
    case 'a': return strcmp(name + 1, "rticle") == 0 ? S_ARTICLE : -1;
    case 'b': return strcmp(name + 1, "utton") == 0 ? S_INPUT : -1;
    case 'c': return strcmp(name + 1, "ode") == 0 ? S_CODE : -1;
    case 'f': return strcmp(name + 1, "orm") == 0 ? S_FORM : -1;
    case 'h': return name[1] == '2' && !name[2] ? S_H2 : name[1] == '3' && !name[2] ? S_H3 : -1;
    case 'i':
        return name[1] == 'm' && name[2] == 'g' && !name[3] ? S_IMG
               : strcmp(name + 1, "nput") == 0             ? S_INPUT
                                                           : -1;
    case 'l': return name[1] == 'i' && !name[2] ? S_LI : -1;
    case 'p': return name[1] == 'r' && name[2] == 'e' && !name[3] ? S_PRE : -1;
    case 't':
        return name[1] == 'h' && !name[2] ? S_TH : strcmp(name + 1, "ime") == 0 ? S_TIME : -1;
    default: return -1;
    }
}

static void tree_signals(const ps_tree *t, uint32_t root, double *cnt)
{
    for (uint32_t n = root; n; n = next_in_order(t, root, n)) {
        const ps_tnode *e = &t->nodes[n];
        if (e->type == PS_TN_ELEMENT) {
            int sig = tag_signal((const char *)e->name);
            if (sig >= 0)
                cnt[sig] += 1;
            if (e->len)
                attr_signals(t, n, cnt);
        }
    }
}

/* ---- the text ---------------------------------------------------------- */

/* Prices in @p s: a currency sign or code next to a digit (spaces between
 * allowed): "$19.99", "19,99 €", "USD 5".  One pass. */
static unsigned count_prices(const char *s)
{
    static const char *const SIGNS[] = {"$", "\xe2\x82\xac" /* € */, "\xc2\xa3" /* £ */,
                                        "\xc2\xa5" /* ¥ */, "\xe2\x82\xb9" /* ₹ */, "USD", "EUR",
                                        "GBP", NULL};
    unsigned n = 0;
    for (const char *p = s; (p = strpbrk(p, "$\xe2\xc2UEG")) != NULL;) {
        size_t l = 0;
        for (const char *const *sg = SIGNS; *sg && !l; sg++)
            if (strncmp(p, *sg, strlen(*sg)) == 0)
                l = strlen(*sg);
        if (!l) {
            p++;
            continue;
        }
        const char *a = p + l;
        while (*a == ' ')
            a++;
        const char *b = p;
        while (b > s && b[-1] == ' ')
            b--;
        n += isdigit((unsigned char)*a) || (b > s && isdigit((unsigned char)b[-1]));
        p += l;
    }
    return n;
}

typedef struct group_row {
    uint64_t key;   /* parent and shape */
    uint32_t chars; /* text of the member's subtree */
} group_row;

static int cmp_group(const void *a, const void *b)
{
    uint64_t x = ((const group_row *)a)->key, y = ((const group_row *)b)->key;
    return x < y ? -1 : x > y;
}

static int text_signals(const ps_page *pg, double *s)
{
    double chars = pg->totals.text_chars;
    s[S_TEXT] = log1p(chars);
    size_t leaves = 0;
    unsigned prices = 0;
    for (size_t i = 0; i < pg->n_leaves; i++) {
        if (pg->leaves[i].removed || !pg->leaves[i].chars)
            continue;
        leaves++;
        prices += count_prices(pg->leaves[i].text);
    }
    s[S_TEXT_DENSITY] = log1p(chars / (double)(leaves + 1));
    s[S_LINK] = pg->totals.link_chars / (chars + 1);
    s[S_PRICES] = log1p(prices);
    size_t nb = pg->n_blocks;
    if (!nb)
        return 0;
    double main = 0;
    uint32_t *sub = malloc(nb * sizeof *sub);
    group_row *rows = malloc(nb * sizeof *rows);
    if (!sub || !rows) {
        free(sub);
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < nb; i++) {
        const ps_counts *c = &pg->blocks[i].own;
        sub[i] = c->text_chars;
        double own = (double)c->text_chars - c->link_chars;
        if (own > main)
            main = own;
    }
    for (size_t i = nb; i-- > 1;) /* blocks are in document order: children after parents */
        if (pg->blocks[i].parent >= 0)
            sub[pg->blocks[i].parent] += sub[i];
    size_t nr = 0;
    for (size_t i = 0; i < nb; i++)
        if (pg->blocks[i].parent >= 0)
            rows[nr++] = (group_row){pg->blocks[i].shape * 0x9e3779b97f4a7c15ull +
                                         (uint64_t)pg->blocks[i].parent,
                                     sub[i]};
    free(sub); /* before the sort, which takes as much again as rows */
    sub = NULL;
    qsort(rows, nr, sizeof *rows, cmp_group);
    double best = 0, best_items = 0, groups = 0;
    for (size_t i = 0; i < nr;) {
        size_t j = i;
        double t = 0;
        for (; j < nr && rows[j].key == rows[i].key; j++)
            t += rows[j].chars;
        if (j - i >= 3) {
            groups += 1;
            if (t > best) {
                best = t;
                best_items = (double)(j - i);
            }
        }
        i = j;
    }
    free(sub);
    free(rows);
    s[S_MAIN] = main / (chars + 1);
    s[S_REP_SHARE] = best / (chars + 1);
    s[S_REP_ITEMS] = log1p(best_items);
    s[S_REP_GROUPS] = log1p(groups);
    return 0;
}

int ps_page_signals(const ps_page *pg, double *s)
{
    return ps_page_signals_select(pg, s, (1u << N_HBLOCKS) - 1);
}

int ps_page_signals_select(const ps_page *pg, double *s, unsigned blocks)
{
    memset(s, 0, N_SIGNALS * sizeof *s);
    if (blocks)
        hash_signals(pg, s, blocks);
    unsigned k = pg->schema;
    s[S_LD_ARTICLE] = (k & PS_SCHEMA_ARTICLE) != 0;
    s[S_LD_PRODUCT] = (k & PS_SCHEMA_PRODUCT) != 0;
    s[S_LD_FORUM] = (k & PS_SCHEMA_FORUM) != 0;
    s[S_LD_LIST] = (k & PS_SCHEMA_LIST) != 0;
    s[S_LD_QA] = (k & PS_SCHEMA_QA) != 0;
    url_signals(pg->url, s);
    uint32_t root = pg->tree ? ps_tree_root(pg->tree) : 0;
    if (root)
        tree_signals(pg->tree, root, s);
    static const int COUNTS[] = {S_ARTICLE, S_PRE, S_CODE, S_FORM, S_INPUT, S_TH, S_LI, S_H2, S_H3,
                                 S_TIME, S_IMG, S_PROP_PRICE, S_PROP_COMMENT, S_CLS_PRODUCT,
                                 S_CLS_POST, S_CLS_COMMENT, S_CLS_CARD, S_CLS_DOCS};
    for (size_t i = 0; i < sizeof COUNTS / sizeof *COUNTS; i++)
        s[COUNTS[i]] = log1p(s[COUNTS[i]]);
    return text_signals(pg, s);
}

/* ---- the page type, once classified (train/page_types.c) ----------------- */

void ps_page_set_type_probs(ps_page *pg, const char *const *labels, const double *prob, size_t n)
{
    static const char *const SLOTS[PS_PTYPE_SLOTS] = {"article", "collection", "documentation", "forum",
                                                      "listing", "product", "service"};
    memset(pg->type_prob, 0, sizeof pg->type_prob);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < PS_PTYPE_SLOTS; k++)
            if (strcmp(labels[i], SLOTS[k]) == 0)
                pg->type_prob[k] = (float)prob[i];
}

double ps_page_type_prob(const ps_page *pg, int slot)
{
    return slot >= 0 && slot < PS_PTYPE_SLOTS ? pg->type_prob[slot] : 0;
}
