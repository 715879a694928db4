/* extract/metadata.c — what a page says about itself: title, author, dates,
 * site name, description, language, canonical URL, categories, tags, image
 * (ps_page_metadata, include/pagesift.h).
 *
 * Two steps.  ps_meta_collect runs inside ps_page_parse on the DOM before
 * cleaning (which removes the head and the scripts): one walk copies the
 * <meta> and <link> tags, JSON-LD scripts, <time> elements, itemprop
 * elements, rel=author/tag/category links, bylines (class or id naming a
 * byline or author), elements whose class names a date, and the h1 texts,
 * as key/value pairs.  ps_page_metadata then decides each field from them
 * in a fixed order of sources (docs/JSONL.md), parses JSON-LD with jansson
 * (malformed JSON-LD is ignored), normalises dates to YYYY-MM-DD and checks
 * the declared language against the extracted text (CLD2, langid.cc). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/uri.h>

#include "extract/meta_fields.h"
#include "extract/meta_internal.h"
#include "extract/page_internal.h"

/* ---- collection (before cleaning) -------------------------------------- */

static int raw_add(ps_meta_raw *m, const char *key, const char *val, size_t vlen)
{
    if (!val || vlen == 0)
        return 0;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        ps_meta_kv *kv = realloc(m->kv, cap * sizeof *kv);
        if (!kv)
            return -1;
        m->kv = kv;
        m->cap = cap;
    }
    char *k = strdup(key), *v = strndup(val, vlen);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    m->kv[m->n].key = k;
    m->kv[m->n].val = v;
    m->n++;
    return 0;
}

/* A value with its whitespace collapsed; "" stays out. */
static int raw_add_ws(ps_meta_raw *m, const char *key, const char *val)
{
    if (!val)
        return 0;
    ps_buf b = {0};
    int lead, trail;
    size_t n = ps_collapse_ws(&b, val, strlen(val), &lead, &trail);
    int rc = n ? raw_add(m, key, b.data, n) : 0;
    ps_buf_free(&b);
    return rc;
}

/* The value of element @p n's first attribute named @p name (ASCII case). */
static const char *attr(const ps_tree *t, uint32_t n, const char *name)
{
    const ps_tnode *e = &t->nodes[n];
    for (uint32_t k = 0; k < e->len; k++) {
        const ps_tattr *a = &t->attrs[e->off + k];
        if (ps_ascii_casecmp((const char *)a->name, name) == 0)
            return t->text + a->off;
    }
    return NULL;
}

/* Is @p word one of the space-separated tokens of @p list (ASCII case)? */
static int has_token(const char *list, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n')
            e++;
        if ((size_t)(e - p) == w && ps_ascii_ncasecmp(p, word, w) == 0)
            return 1;
        p = e;
    }
    return 0;
}

static int contains_ci(const char *s, const char *needle)
{
    return s && strcasestr(s, needle) != NULL;
}

/* The text under @p n (script and style left out), whitespace collapsed;
 * NULL when there is none or it is longer than @p cap bytes. */
static char *node_text(const ps_tree *t, uint32_t n, size_t cap)
{
    ps_buf raw = {0};
    uint32_t cur = t->nodes[n].first;
    int too_long = 0;
    while (cur && cur != n) {
        const ps_tnode *c = &t->nodes[cur];
        if (c->type == PS_TN_TEXT || c->type == PS_TN_CDATA) {
            size_t l = c->len;
            if (raw.len + l > cap * 4 + 64) {
                too_long = 1;
                break;
            }
            if (ps_buf_append(&raw, t->text + c->off, l) || ps_buf_putc(&raw, ' ')) {
                too_long = 1;
                break;
            }
        }
        int enter = c->type == PS_TN_ELEMENT && c->first && strcmp((const char *)c->name, "script") != 0 &&
                    strcmp((const char *)c->name, "style") != 0;
        if (enter) {
            cur = c->first;
            continue;
        }
        while (cur && cur != n && !t->nodes[cur].next)
            cur = t->nodes[cur].parent;
        if (cur && cur != n)
            cur = t->nodes[cur].next;
    }
    char *out = NULL;
    if (!too_long && raw.len) {
        ps_buf b = {0};
        int lead, trail;
        size_t l = ps_collapse_ws(&b, raw.data, raw.len, &lead, &trail);
        if (l && l <= cap)
            out = ps_buf_take(&b, NULL);
        ps_buf_free(&b);
    }
    ps_buf_free(&raw);
    return out;
}

static int raw_add_text(ps_meta_raw *m, const char *key, const ps_tree *t, uint32_t n, size_t cap)
{
    char *s = node_text(t, n, cap);
    int rc = s ? raw_add(m, key, s, strlen(s)) : 0;
    free(s);
    return rc;
}

/* Raw text of a script element (its text and CDATA children). */
static int raw_add_script(ps_meta_raw *m, const ps_tree *t, uint32_t n)
{
    ps_buf b = {0};
    for (uint32_t c = t->nodes[n].first; c; c = t->nodes[c].next) {
        const ps_tnode *e = &t->nodes[c];
        if ((e->type == PS_TN_TEXT || e->type == PS_TN_CDATA) && ps_buf_append(&b, t->text + e->off, e->len)) {
            ps_buf_free(&b);
            return -1;
        }
    }
    int rc = b.len && b.len < (4u << 20) ? raw_add(m, "jsonld", b.data, b.len) : 0;
    ps_buf_free(&b);
    return rc;
}

typedef struct collect_counts {
    unsigned h1, h2, byline, datetext, time, rel;
} collect_counts;

/* Words of a class or id attribute that matter here, as bits; one pass
 * (strcasestr per word was the collection's main cost). */
enum { KW_COMMENT = 1, KW_BYLINE = 2, KW_AUTHOR = 4, KW_AUTHORI = 8, KW_DATE = 16,
       KW_PUBLISH = 32, KW_TIME = 64, KW_META = 128 };

static unsigned kw_flags(const char *s)
{
    static const struct {
        const char *w;
        size_t n;
        unsigned bit;
    } kw[] = {{"comment", 7, KW_COMMENT}, {"byline", 6, KW_BYLINE}, {"authori", 7, KW_AUTHORI},
              {"author", 6, KW_AUTHOR},   {"date", 4, KW_DATE},     {"publish", 7, KW_PUBLISH},
              {"time", 4, KW_TIME},       {"meta", 4, KW_META}};
    unsigned f = 0;
    for (; s && *s; s++) {
        size_t i;
        switch (*s | 0x20) {
        case 'c': i = 0; break;
        case 'b': i = 1; break;
        case 'a': i = 2; break; /* authori, then author */
        case 'd': i = 4; break;
        case 'p': i = 5; break;
        case 't': i = 6; break;
        case 'm': i = 7; break;
        default: continue;
        }
        /* the second letter (any case) before the call: s[1] is there,
         * at worst the NUL, which no word has */
        if ((s[1] | 0x20) != kw[i].w[1])
            continue;
        for (size_t e = i == 2 ? 4 : i + 1; i < e; i++)
            if (ps_ascii_ncasecmp(s, kw[i].w, kw[i].n) == 0)
                f |= kw[i].bit;
    }
    return f;
}

/* Is @p n inside a comment thread (an ancestor's class or id says so)? */
static int in_comments(const ps_tree *t, uint32_t n)
{
    int d = 0;
    for (uint32_t p = t->nodes[n].parent; t->nodes[p].type == PS_TN_ELEMENT && d < 12; p = t->nodes[p].parent, d++) {
        const char *c = attr(t, p, "class"), *i = attr(t, p, "id");
        if (((c || i) && (kw_flags(c) | kw_flags(i)) & KW_COMMENT))
            return 1;
    }
    return 0;
}

/* The meta names and properties ps_page_metadata reads (sorted, lower case):
 * only these are kept. */
static const char *const wanted_meta[] = {
    "application-name", "article.published", "article:author", "article:author_name",
    "article:modified_time", "article:published_time", "article:section", "article:tag",
    "article_date_original", "author", "byl", "citation_author", "citation_date",
    "citation_publication_date", "content-language", "created", "cxenseparse:author", "date",
    "datemodified", "datepublished", "dc.creator", "dc.date", "dc.date.created", "dc.date.issued",
    "dc.date.modified", "dc.description", "dc.language", "dcterms.created", "dcterms.creator",
    "dcterms.date", "dcterms.issued", "dcterms.modified", "description", "displaydate",
    "language", "last-modified", "nrbi:authors", "og:article:published_time", "og:description",
    "og:image", "og:image:secure_url", "og:image:url", "og:locale", "og:published_time",
    "og:site_name", "og:title", "og:updated_time", "og:url", "parsely-author", "parsely-pub-date",
    "pdate", "pubdate", "publication_date", "publish-date", "publishdate", "release_date",
    "sailthru.author", "sailthru.date", "twitter:description", "twitter:image",
    "twitter:image:src", "twitter:title",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The element names visit() acts on, told apart once per element (a chain
 * of strcmp per element before). */
enum { MT_OTHER, MT_META, MT_LINK, MT_SCRIPT, MT_STYLE, MT_HTML, MT_TIME, MT_H1, MT_H23, MT_A, MT_BODY };

static int meta_tag(const char *name)
{
    switch (name[0]) {
    case 'a': return !name[1] ? MT_A : MT_OTHER;
    case 'b': return strcmp(name + 1, "ody") == 0 ? MT_BODY : MT_OTHER;
    case 'h':
        if (name[1] && !name[2])
            return name[1] == '1' ? MT_H1 : name[1] == '2' || name[1] == '3' ? MT_H23 : MT_OTHER;
        return strcmp(name + 1, "tml") == 0 ? MT_HTML : MT_OTHER;
    case 'l': return strcmp(name + 1, "ink") == 0 ? MT_LINK : MT_OTHER;
    case 'm': return strcmp(name + 1, "eta") == 0 ? MT_META : MT_OTHER;
    case 's':
        return strcmp(name + 1, "cript") == 0 ? MT_SCRIPT : strcmp(name + 1, "tyle") == 0 ? MT_STYLE : MT_OTHER;
    case 't': return strcmp(name + 1, "ime") == 0 ? MT_TIME : MT_OTHER;
    default: return MT_OTHER;
    }
}

/* A <meta> tag's content under "meta:NAME" for each of its name, property,
 * itemprop and http-equiv (lower-cased) found in @p wanted (sorted). */
static int add_meta(ps_meta_raw *m, const ps_tree *tr, uint32_t n, const char *const *wanted, size_t n_wanted)
{
    char key[96];
    const char *content = attr(tr, n, "content");
    if (!content)
        return 0;
    static const char *const keys[] = {"name", "property", "itemprop", "http-equiv"};
    for (size_t i = 0; i < 4; i++) {
        const char *v = attr(tr, n, keys[i]);
        if (!v || !*v || strlen(v) > 80)
            continue;
        size_t l = (size_t)snprintf(key, sizeof key, "meta:%s", v);
        for (size_t j = 5; j < l && j < sizeof key; j++)
            key[j] = (char)tolower((unsigned char)key[j]);
        const char *name5 = key + 5;
        if (!bsearch(&name5, wanted, n_wanted, sizeof wanted[0], cmp_str))
            continue;
        if (raw_add_ws(m, key, content))
            return -1;
    }
    return 0;
}

static int visit(ps_meta_raw *m, const ps_tree *tr, uint32_t n, collect_counts *k, int *enter)
{
    const ps_tnode *e = &tr->nodes[n];
    const char *name = (const char *)e->name;
    *enter = 1;
    /* the common case first: an element without the attributes and names
     * looked at below (one pass over its attributes, names are lower case
     * from libxml2's HTML parser) */
    const char *a_class = NULL, *a_id = NULL, *a_itemprop = NULL, *a_rel = NULL;
    for (uint32_t ai = 0; ai < e->len; ai++) {
        const ps_tattr *a = &tr->attrs[e->off + ai];
        const char *an = (const char *)a->name;
        const char *av = tr->text + a->off;
        if (an[0] == 'c' && strcmp(an, "class") == 0)
            a_class = av;
        else if (an[0] == 'i' && an[1] == 'd' && !an[2])
            a_id = av;
        else if (an[0] == 'i' && strcmp(an, "itemprop") == 0)
            a_itemprop = av;
        else if (an[0] == 'r' && strcmp(an, "rel") == 0)
            a_rel = av;
    }
    int t = meta_tag(name);
    int named = t != MT_OTHER && t != MT_BODY;
    if (!named && !a_class && !a_id && !a_itemprop)
        return 0;
    if (t == MT_META)
        return add_meta(m, tr, n, wanted_meta, sizeof wanted_meta / sizeof wanted_meta[0]);
    if (t == MT_LINK) {
        const char *rel = attr(tr, n, "rel"), *href = attr(tr, n, "href");
        if (rel && href && *href && has_token(rel, "canonical"))
            return raw_add_ws(m, "link:canonical", href);
        return 0;
    }
    if (t == MT_SCRIPT) {
        *enter = 0;
        const char *type = attr(tr, n, "type");
        return type && contains_ci(type, "ld+json") ? raw_add_script(m, tr, n) : 0;
    }
    if (t == MT_STYLE) {
        *enter = 0;
        return 0;
    }
    if (t == MT_HTML) {
        const char *lang = attr(tr, n, "lang");
        if (!lang)
            lang = attr(tr, n, "xml:lang");
        return lang ? raw_add_ws(m, "html:lang", lang) : 0;
    }
    if (t == MT_TIME && k->time < 8) {
        k->time++;
        const char *dt = attr(tr, n, "datetime");
        const char *ip = attr(tr, n, "itemprop");
        int pub = attr(tr, n, "pubdate") || (ip && ps_ascii_casecmp(ip, "datePublished") == 0);
        if (dt && *dt)
            return raw_add_ws(m, pub ? "time:pub" : "time", dt);
        return raw_add_text(m, "timetext", tr, n, 100);
    }
    /* headings: their text, and on to the class checks (a date header) */
    if (t == MT_H1 && k->h1 < 5) {
        k->h1++;
        if (raw_add_text(m, "h1", tr, n, 400))
            return -1;
    } else if (t == MT_H23 && k->h2 < 10) {
        k->h2++;
        if (raw_add_text(m, "h2", tr, n, 400))
            return -1;
    }
    const char *ip = a_itemprop;
    if (ip) {
        if (has_token(ip, "datePublished") || has_token(ip, "dateModified")) {
            const char *v = attr(tr, n, "content");
            if (!v)
                v = attr(tr, n, "datetime");
            const char *kk = has_token(ip, "datePublished") ? "itemprop:datepublished"
                                                            : "itemprop:datemodified";
            if (v && *v)
                return raw_add_ws(m, kk, v);
            return raw_add_text(m, kk, tr, n, 100);
        }
        if (has_token(ip, "author") || has_token(ip, "creator"))
            return raw_add_text(m, "itemprop:author", tr, n, 200);
    }
    if (t == MT_A && k->rel < 40) {
        const char *rel = a_rel;
        if (rel) {
            const char *kk = has_token(rel, "author") ? "rel:author"
                             : has_token(rel, "tag")  ? "rel:tag"
                             : has_token(rel, "category") ? "rel:category"
                                                          : NULL;
            if (kk) {
                k->rel++;
                if (raw_add_text(m, kk, tr, n, 100))
                    return -1;
                /* the line around an author link often holds the date */
                if (kk[4] == 'a' && tr->nodes[e->parent].type == PS_TN_ELEMENT)
                    return raw_add_text(m, "byline", tr, e->parent, 200);
                return 0;
            }
        }
    }
    if (t == MT_BODY)
        return 0;
    const char *cls = a_class, *id = a_id;
    if (!cls && !id)
        return 0;
    unsigned fc = kw_flags(cls), fi = kw_flags(id), f = fc | fi;
    if (k->byline < 8 && !(f & KW_COMMENT) &&
        ((f & KW_BYLINE) || ((f & KW_AUTHOR) && !(f & KW_AUTHORI))) && !in_comments(tr, n)) {
        char *t = node_text(tr, n, 120);
        if (t) {
            k->byline++;
            int rc = raw_add(m, "byline", t, strlen(t));
            free(t);
            if (rc)
                return -1;
        }
    }
    if (k->datetext < 8 && ((fc & (KW_DATE | KW_PUBLISH | KW_TIME | KW_META)) ||
                            (fi & (KW_DATE | KW_PUBLISH)))) {
        char *t = node_text(tr, n, 160);
        if (t) {
            k->datetext++;
            int rc = raw_add(m, "datetext", t, strlen(t));
            free(t);
            if (rc)
                return -1;
        }
    }
    return 0;
}

/* The <meta> names of the page's description (ps_page_description), sorted. */
static const char *const description_meta[] = {"dc.description", "description", "og:description",
                                               "twitter:description"};

/* The JSON-LD alone (PS_PAGE_NO_METADATA): the "jsonld" items visit()
 * makes, in the same order, and the description's <meta> tags (the
 * extraction's fallback reads them); script and style are not entered, as
 * there. */
static int visit_jsonld(ps_meta_raw *m, const ps_tree *t, uint32_t n, int *enter)
{
    const char *name = (const char *)t->nodes[n].name;
    *enter = 1;
    if (name[0] == 'm' && strcmp(name, "meta") == 0)
        return add_meta(m, t, n, description_meta, sizeof description_meta / sizeof description_meta[0]);
    if (name[0] != 's')
        return 0;
    if (strcmp(name, "script") == 0) {
        *enter = 0;
        const char *type = attr(t, n, "type");
        return type && contains_ci(type, "ld+json") ? raw_add_script(m, t, n) : 0;
    }
    if (strcmp(name, "style") == 0)
        *enter = 0;
    return 0;
}

ps_meta_raw *ps_meta_collect(const ps_tree *t, int jsonld_only)
{
    ps_meta_raw *m = calloc(1, sizeof *m);
    if (!m || !t)
        return m;
    collect_counts k = {0};
    uint32_t cur = t->nodes[0].first; /* 0, the document, is the top */
    while (cur) {
        int enter = 1;
        if (t->nodes[cur].type == PS_TN_ELEMENT) {
            if ((jsonld_only ? visit_jsonld(m, t, cur, &enter) : visit(m, t, cur, &k, &enter)) != 0) {
                ps_meta_raw_free(m);
                return NULL;
            }
        } else {
            enter = 0;
        }
        if (enter && t->nodes[cur].first) {
            cur = t->nodes[cur].first;
            continue;
        }
        while (cur && !t->nodes[cur].next)
            cur = t->nodes[cur].parent;
        if (cur)
            cur = t->nodes[cur].next;
    }
    return m;
}

void ps_meta_raw_free(ps_meta_raw *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->kv[i].key);
        free(m->kv[i].val);
    }
    free(m->kv);
    free(m);
}

/* First value of @p key, or NULL. */
static const char *get(const ps_meta_raw *m, const char *key)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (strcmp(m->kv[i].key, key) == 0)
            return m->kv[i].val;
    return NULL;
}

/* ---- dates ------------------------------------------------------------- */

static const struct {
    const char *name;
    int month;
} month_names[] = {
    {"january", 1}, {"february", 2}, {"march", 3}, {"april", 4}, {"may", 5}, {"june", 6},
    {"july", 7}, {"august", 8}, {"september", 9}, {"october", 10}, {"november", 11},
    {"december", 12}, {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4}, {"jun", 6}, {"jul", 7},
    {"aug", 8}, {"sep", 9}, {"sept", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12},
    /* German */
    {"januar", 1}, {"jänner", 1}, {"februar", 2}, {"märz", 3}, {"maerz", 3}, {"mär", 3},
    {"mai", 5}, {"juni", 6}, {"juli", 7}, {"oktober", 10}, {"okt", 10}, {"dezember", 12},
    {"dez", 12},
    /* French */
    {"janvier", 1}, {"février", 2}, {"fevrier", 2}, {"mars", 3}, {"avril", 4}, {"juin", 6},
    {"juillet", 7}, {"août", 8}, {"aout", 8}, {"septembre", 9}, {"octobre", 10},
    {"novembre", 11}, {"décembre", 12}, {"decembre", 12},
    /* Spanish */
    {"enero", 1}, {"febrero", 2}, {"marzo", 3}, {"abril", 4}, {"mayo", 5}, {"junio", 6},
    {"julio", 7}, {"agosto", 8}, {"septiembre", 9}, {"setiembre", 9}, {"octubre", 10},
    {"noviembre", 11}, {"diciembre", 12},
    /* Italian, Dutch, Polish (genitive) */
    {"gennaio", 1}, {"febbraio", 2}, {"aprile", 4}, {"maggio", 5}, {"giugno", 6},
    {"luglio", 7}, {"settembre", 9}, {"ottobre", 10}, {"dicembre", 12}, {"januari", 1},
    {"februari", 2}, {"maart", 3}, {"mei", 5}, {"augustus", 8}, {"stycznia", 1},
    {"lutego", 2}, {"marca", 3}, {"kwietnia", 4}, {"maja", 5}, {"czerwca", 6}, {"lipca", 7},
    {"sierpnia", 8}, {"września", 9}, {"października", 10}, {"listopada", 11},
    {"grudnia", 12},
};

static int is_alpha_byte(unsigned char c)
{
    return isalpha(c) || c >= 0x80;
}

/* Month of the word at s (n bytes): its length in *wl, 0 when none. */
static int month_at(const char *s, size_t n, size_t *wl)
{
    size_t l = 0;
    char w[32];
    while (l < n && l < sizeof w - 1 && is_alpha_byte((unsigned char)s[l])) {
        w[l] = (char)tolower((unsigned char)s[l]);
        l++;
    }
    if (l < 3 || (l < n && is_alpha_byte((unsigned char)s[l])))
        return 0;
    w[l] = '\0';
    for (size_t i = 0; i < sizeof month_names / sizeof month_names[0]; i++)
        if (strcmp(w, month_names[i].name) == 0) {
            *wl = l;
            if (l < n && s[l] == '.')
                (*wl)++;
            return month_names[i].month;
        }
    return 0;
}

static size_t digits(const char *s, size_t n, size_t max, int *v)
{
    size_t i = 0;
    *v = 0;
    while (i < n && i < max && isdigit((unsigned char)s[i]))
        *v = *v * 10 + (s[i++] - '0');
    if (i < n && isdigit((unsigned char)s[i]))
        return 0; /* longer than max */
    return i;
}

static int valid_ymd(int y, int m, int d)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return y >= 1994 && y <= 2035 && m >= 1 && m <= 12 && d >= 1 && d <= mdays[m - 1];
}

static int put_ymd(int y, int m, int d, char out[11])
{
    if (!valid_ymd(y, m, d))
        return 0;
    snprintf(out, 11, "%04d-%02d-%02d", y % 10000, (m % 100 + 100) % 100, (d % 100 + 100) % 100);
    return 1;
}

static size_t skip_sp(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == ','))
        i++;
    return i;
}

/* A date starting at s[i]: numeric (2019-05-03, 2019/5/3, 2019年5月3日,
 * 03.05.2019, 5/3/2019, and with @p compact 20190503), "3 May 2019",
 * "3. Mai 2019", "3 de mayo de 2019", "May 3, 2019".  1 with out set. */
static int date_at(const char *s, size_t n, size_t i, int compact, char out[11])
{
    int a, b, c;
    size_t la, lb, lc, j;
    if (isdigit((unsigned char)s[i])) {
        if (i > 0 && isdigit((unsigned char)s[i - 1]))
            return 0;
        la = digits(s + i, n - i, 8, &a);
        if (la == 8 && compact)
            return put_ymd(a / 10000, a / 100 % 100, a % 100, out);
        j = i + la;
        if (la == 4 && j < n) {
            /* Y sep M sep D */
            size_t sl = (unsigned char)s[j] == 0xE5 ? 3 : 1; /* 年 */
            char sep = s[j];
            if (sep != '-' && sep != '/' && sep != '.' && sl != 3)
                return 0;
            j += sl;
            if (j >= n || !(lb = digits(s + j, n - j, 2, &b)))
                return 0;
            j += lb;
            if (j >= n)
                return 0;
            if (sl == 3) {
                if ((unsigned char)s[j] != 0xE6) /* 月 */
                    return 0;
                j += 3;
            } else if (s[j] != sep) {
                return 0;
            } else {
                j++;
            }
            if (j >= n || !(lc = digits(s + j, n - j, 2, &c)))
                return 0;
            return put_ymd(a, b, c, out);
        }
        if (la >= 1 && la <= 2 && j < n) {
            char sep = s[j];
            if ((sep == '.' || sep == '/') && j + 1 < n && isdigit((unsigned char)s[j + 1])) {
                /* D.M.Y or M/D/Y */
                j++;
                if (!(lb = digits(s + j, n - j, 2, &b)))
                    return 0;
                j += lb;
                if (j >= n || s[j] != sep)
                    return 0;
                j++;
                if (!(lc = digits(s + j, n - j, 4, &c)) || lc != 4)
                    return 0;
                if (sep == '.')
                    return put_ymd(c, b, a, out);
                return a > 12 ? put_ymd(c, b, a, out) : put_ymd(c, a, b, out);
            }
            /* D[.] Month[,] Y, D de Month de Y */
            if (s[j] == '.')
                j++;
            if (j + 1 < n && ps_ascii_ncasecmp(s + j, "st", 2) == 0)
                j += 2;
            else if (j + 1 < n && (ps_ascii_ncasecmp(s + j, "nd", 2) == 0 ||
                                   ps_ascii_ncasecmp(s + j, "rd", 2) == 0 ||
                                   ps_ascii_ncasecmp(s + j, "th", 2) == 0))
                j += 2;
            j = skip_sp(s, n, j);
            if (j + 3 < n && ps_ascii_ncasecmp(s + j, "de ", 3) == 0)
                j += 3;
            size_t wl;
            int mo = month_at(s + j, n - j, &wl);
            if (!mo)
                return 0;
            j = skip_sp(s, n, j + wl);
            if (j + 3 < n && ps_ascii_ncasecmp(s + j, "de ", 3) == 0)
                j += 3;
            if (j >= n || !(lc = digits(s + j, n - j, 4, &c)) || lc != 4)
                return 0;
            return put_ymd(c, mo, a, out);
        }
        return 0;
    }
    if (is_alpha_byte((unsigned char)s[i]) && (i == 0 || !is_alpha_byte((unsigned char)s[i - 1]))) {
        size_t wl;
        int mo = month_at(s + i, n - i, &wl);
        if (!mo)
            return 0;
        j = skip_sp(s, n, i + wl);
        if (j >= n || !(lb = digits(s + j, n - j, 2, &b)))
            return 0;
        j += lb;
        if (j + 1 < n && (ps_ascii_ncasecmp(s + j, "st", 2) == 0 || ps_ascii_ncasecmp(s + j, "nd", 2) == 0 ||
                          ps_ascii_ncasecmp(s + j, "rd", 2) == 0 || ps_ascii_ncasecmp(s + j, "th", 2) == 0))
            j += 2;
        j = skip_sp(s, n, j);
        if (j >= n || !(lc = digits(s + j, n - j, 4, &c)) || lc != 4)
            return 0;
        return put_ymd(c, mo, b, out);
    }
    return 0;
}

/* The first date in @p n bytes of @p s. */
static int find_date(const char *s, size_t n, int compact, char out[11])
{
    for (size_t i = 0; s && i < n; i++)
        if (date_at(s, n, i, compact, out))
            return 1;
    return 0;
}

/* A date in a URL's path: /2019/05/03/, /2019-05-03, /20190503/. */
static int url_date(const char *url, char out[11])
{
    if (!url)
        return 0;
    const char *p = strstr(url, "://");
    p = p ? strchr(p + 3, '/') : url;
    if (!p)
        return 0;
    size_t n = strlen(p);
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] == '/' || p[i] == '-' || p[i] == '_'))
            continue;
        if (i + 1 < n && isdigit((unsigned char)p[i + 1])) {
            char tmp[11];
            int y, m, d;
            size_t l = digits(p + i + 1, n - i - 1, 8, &y);
            if (l == 8 && date_at(p, n, i + 1, 1, tmp)) {
                memcpy(out, tmp, 11);
                return 1;
            }
            if (l == 4 && i + 5 < n && (p[i + 5] == '/' || p[i + 5] == '-')) {
                size_t j = i + 6;
                size_t lm = digits(p + j, n - j, 2, &m);
                if (lm && j + lm < n && p[j + lm] == p[i + 5]) {
                    size_t ld = digits(p + j + lm + 1, n - j - lm - 1, 2, &d);
                    if (ld && put_ymd(y, m, d, out))
                        return 1;
                }
            }
        }
    }
    return 0;
}

/* ---- JSON-LD ------------------------------------------------------------ */

enum { JL_HEADLINE, JL_NAME, JL_DATE, JL_MODIFIED, JL_AUTHOR, JL_DESC, JL_IMAGE, JL_SECTION,
       JL_KEYWORDS, JL_PUBLISHER, JL_SITE, JL_N };

typedef struct jsonld {
    char *v[JL_N];
    int rank[JL_N];
} jsonld;

/* Rank of an object by its @type: 3 an article, 2 a web page, 1 other. */
static int type_rank(json_t *o)
{
    json_t *t = json_object_get(o, "@type");
    int best = 1;
    size_t n = json_is_array(t) ? json_array_size(t) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_is_array(t) ? json_array_get(t, i) : t;
        const char *s = json_string_value(e);
        if (!s)
            continue;
        if (strstr(s, "Article") || strstr(s, "Posting") || strstr(s, "Report") ||
            strcmp(s, "Review") == 0 || strcmp(s, "Recipe") == 0)
            best = 3;
        else if (strstr(s, "WebPage") && best < 2)
            best = 2;
    }
    return best;
}

static int is_type(json_t *o, const char *name)
{
    json_t *t = json_object_get(o, "@type");
    if (json_is_string(t))
        return strcmp(json_string_value(t), name) == 0;
    for (size_t i = 0; json_is_array(t) && i < json_array_size(t); i++)
        if (json_is_string(json_array_get(t, i)) &&
            strcmp(json_string_value(json_array_get(t, i)), name) == 0)
            return 1;
    return 0;
}

/* Names of a value: a string, {"name": ...} or an array of those, joined
 * with @p sep. */
static void names_of(json_t *v, ps_buf *b, const char *sep, int depth)
{
    if (depth > 4)
        return;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (*s) {
            if (b->len)
                ps_buf_append(b, sep, strlen(sep));
            ps_buf_append(b, s, strlen(s));
        }
    } else if (json_is_object(v)) {
        json_t *nm = json_object_get(v, "name");
        if (nm && !(sep[0] == ';' && is_type(v, "Organization"))) /* an author is a person */
            names_of(nm, b, sep, depth + 1);
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            names_of(json_array_get(v, i), b, sep, depth + 1);
    }
}

static void jl_set(jsonld *j, int slot, int rank, const char *val)
{
    if (!val || !*val || (j->v[slot] && j->rank[slot] >= rank))
        return;
    char *s = strdup(val);
    if (!s)
        return;
    free(j->v[slot]);
    j->v[slot] = s;
    j->rank[slot] = rank;
}

static void jl_set_names(jsonld *j, int slot, int rank, json_t *v, const char *sep)
{
    if (!v)
        return;
    ps_buf b = {0};
    names_of(v, &b, sep, 0);
    if (b.len)
        jl_set(j, slot, rank, b.data);
    ps_buf_free(&b);
}

static void jl_visit(jsonld *j, json_t *v, int depth)
{
    if (depth > 12)
        return;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            jl_visit(j, json_array_get(v, i), depth + 1);
        return;
    }
    if (!json_is_object(v))
        return;
    int r = type_rank(v);
    if (json_object_get(v, "headline") || json_object_get(v, "datePublished")) {
        jl_set(j, JL_HEADLINE, r, json_string_value(json_object_get(v, "headline")));
        if (r == 3)
            jl_set(j, JL_NAME, r, json_string_value(json_object_get(v, "name")));
        jl_set(j, JL_DATE, r, json_string_value(json_object_get(v, "datePublished")));
        if (!json_object_get(v, "datePublished"))
            jl_set(j, JL_DATE, r - 1, json_string_value(json_object_get(v, "dateCreated")));
        jl_set(j, JL_MODIFIED, r, json_string_value(json_object_get(v, "dateModified")));
        jl_set_names(j, JL_AUTHOR, r, json_object_get(v, "author"), "; ");
        jl_set(j, JL_DESC, r, json_string_value(json_object_get(v, "description")));
        json_t *img = json_object_get(v, "image");
        if (json_is_array(img))
            img = json_array_get(img, 0);
        if (json_is_object(img))
            img = json_object_get(img, "url");
        jl_set(j, JL_IMAGE, r, json_string_value(img));
        jl_set_names(j, JL_SECTION, r, json_object_get(v, "articleSection"), "\x1f");
        jl_set_names(j, JL_KEYWORDS, r, json_object_get(v, "keywords"), "\x1f");
        json_t *pub = json_object_get(v, "publisher");
        if (json_is_array(pub))
            pub = json_array_get(pub, 0);
        if (json_is_object(pub))
            jl_set(j, JL_PUBLISHER, r, json_string_value(json_object_get(pub, "name")));
    }
    if (is_type(v, "WebSite"))
        jl_set(j, JL_SITE, 1, json_string_value(json_object_get(v, "name")));
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val)
    {
        if (json_is_object(val) || json_is_array(val))
            jl_visit(j, val, depth + 1);
    }
}

/* One collected JSON-LD script as JSON, NULL when malformed (ignored). */
static json_t *jl_load(const char *s)
{
    size_t n = strlen(s);
    /* <!--//--><![CDATA[ wrappers and trailing ';' are common */
    while (n && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
        s++, n--;
    if (n >= 9 && strncmp(s, "<![CDATA[", 9) == 0)
        s += 9, n -= 9;
    while (n && strchr(" \t\r\n;>]", s[n - 1]) && !(s[n - 1] == ']' && n > 1 && s[n - 2] != ']'))
        n--;
    json_error_t e;
    return json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
}

/* The next JSON-LD script of @p m from *i on, parsed (the caller
 * json_decrefs it); NULL after the last.  Scripts that do not parse are
 * passed over. */
static json_t *jl_next(const ps_meta_raw *m, size_t *i)
{
    while (m && *i < m->n) {
        const char *key = m->kv[*i].key, *val = m->kv[*i].val;
        (*i)++;
        json_t *v = strcmp(key, "jsonld") == 0 ? jl_load(val) : NULL;
        if (v)
            return v;
    }
    return NULL;
}

static void jl_parse(jsonld *j, const ps_meta_raw *m)
{
    size_t i = 0;
    for (json_t *v; (v = jl_next(m, &i));) {
        jl_visit(j, v, 0);
        json_decref(v);
    }
}

/* ---- JSON-LD articleBody (methods/template_svm.c's fallback) -------------- */

static void ab_visit(json_t *v, int depth, const char **best, size_t *best_len, int *best_rank)
{
    if (depth > 12)
        return;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            ab_visit(json_array_get(v, i), depth + 1, best, best_len, best_rank);
        return;
    }
    if (!json_is_object(v))
        return;
    json_t *ab = json_object_get(v, "articleBody");
    if (json_is_string(ab)) {
        int r = type_rank(v);
        size_t n = json_string_length(ab);
        if (r > *best_rank || (r == *best_rank && n > *best_len)) {
            *best = json_string_value(ab);
            *best_len = n;
            *best_rank = r;
        }
    }
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val)
    {
        if (json_is_object(val) || json_is_array(val))
            ab_visit(val, depth + 1, best, best_len, best_rank);
    }
}

/* A tag (its text between < and >) that ends a line: p, br, div, li, tr,
 * blockquote and h1-h6, opening or closing. */
static int ab_breaks(const char *t, size_t n)
{
    static const char *const names[] = {"p", "br", "div", "li", "tr", "blockquote", "h1", "h2",
                                        "h3", "h4", "h5", "h6", NULL};
    if (n && *t == '/')
        t++, n--;
    size_t k = 0;
    while (k < n && ((t[k] >= 'a' && t[k] <= 'z') || (t[k] >= 'A' && t[k] <= 'Z') ||
                     (t[k] >= '0' && t[k] <= '9')))
        k++;
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == k && ps_ascii_ncasecmp(t, names[i], k) == 0)
            return 1;
    return 0;
}

/* Plain text of an articleBody: HTML tags out (p, br, div, li, headings end
 * a line; inline tags join), whitespace collapsed inside a line, empty
 * lines dropped. */
static char *ab_text(const char *s, size_t n)
{
    ps_buf b = {0};
    int space = 0, line_start = 1, bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<') {
            const char *e = memchr(s + i, '>', n - i);
            if (e) {
                size_t tl = (size_t)(e - (s + i));
                i += tl;
                if (ab_breaks(s + i - tl + 1, tl - 1) && !line_start) {
                    bad |= ps_buf_putc(&b, '\n') != 0;
                    line_start = 1;
                    space = 0;
                }
                continue; /* an inline tag (b, a, span) joins what is around it */
            }
        }
        if (c == '\n' || c == '\r') {
            if (!line_start) {
                bad |= ps_buf_putc(&b, '\n') != 0;
                line_start = 1;
            }
            space = 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
            space = !line_start;
            continue;
        }
        if (space)
            bad |= ps_buf_putc(&b, ' ') != 0;
        space = 0;
        line_start = 0;
        bad |= ps_buf_putc(&b, (char)c) != 0;
    }
    if (!line_start)
        bad |= ps_buf_putc(&b, '\n') != 0;
    if (bad || !b.len) {
        ps_buf_free(&b);
        return NULL;
    }
    if (ps_buf_putc(&b, 0) != 0) {
        ps_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* The page's JSON-LD articleBody (the longest one of an article-typed
 *  object, else of any object), as plain text: tags of an HTML body
 *  removed, a paragraph a line, whitespace collapsed inside a line; NULL
 *  when there is none (or out of memory).  Free it. */
static char *ps_meta_article_body(const ps_meta_raw *m)
{
    char *out = NULL;
    size_t out_len = 0;
    size_t i = 0;
    for (json_t *v; (v = jl_next(m, &i));) {
        const char *best = NULL;
        size_t best_len = 0;
        int best_rank = 0;
        ab_visit(v, 0, &best, &best_len, &best_rank);
        if (best && best_len > out_len) {
            char *t = ab_text(best, best_len);
            if (t) {
                free(out);
                out = t;
                out_len = best_len;
            }
        }
        json_decref(v);
    }
    return out;
}

char *ps_page_article_body(const ps_page *page)
{
    return page ? ps_meta_article_body(page->meta) : NULL;
}

/* ---- fields ------------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

static const char *first_of(const ps_meta_raw *m, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++) {
        const char *v = get(m, keys[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* The description field: og:description, description, twitter:description,
 * the JSON-LD's (@p jsonld_desc), dc.description; a copy, or NULL. */
static char *description_of(const ps_meta_raw *m, const char *jsonld_desc)
{
    static const char *const keys[] = {"meta:og:description", "meta:description", "meta:twitter:description",
                                       NULL};
    const char *ds = first_of(m, keys);
    if (!ds)
        ds = jsonld_desc;
    if (!ds)
        ds = get(m, "meta:dc.description");
    return dup_or_null(ds);
}

char *ps_page_description(const ps_page *page)
{
    if (!page)
        return NULL;
    jsonld j = {0};
    jl_parse(&j, page->meta);
    char *d = description_of(page->meta, j.v[JL_DESC]);
    for (int i = 0; i < JL_N; i++)
        free(j.v[i]);
    return d;
}

static int looks_url(const char *s)
{
    return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 || s[0] == '/';
}

/* Separators between a headline and a site name in a <title>; the last
 * two only split off a site name, never the longest part. */
static const char *const title_seps[] = {" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " « ",
                                         " / ", " • ", " ~ ", "_", ": ", NULL};
enum { N_LOOSE_SEPS = 11 };

static int same_text(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && ps_ascii_ncasecmp(a, b, na) == 0;
}

static int in_list(const char *p, size_t l, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (same_text(p, l, list[i], strlen(list[i])))
            return 1;
    return 0;
}

/* @p t without its site name.  Split on the first separator it holds:
 * a part equal to the site name is dropped; a part that is an h2/h3 (a
 * post's title under a logo h1) wins, then a part that is an h1 unless it
 * is the last one (then it is the site's logo and the rest is kept); for a
 * <title> (@p loose) the longest part when it is most of the title. */
static char *strip_site(const char *t, const char *site, const char *const *h1s, size_t n_h1,
                        const char *const *h2s, size_t n_h2, int loose)
{
    size_t n = strlen(t);
    for (size_t k = 0; title_seps[k]; k++) {
        const char *sep = title_seps[k];
        size_t sl = strlen(sep);
        if (!strstr(t, sep))
            continue;
        const char *part[16];
        size_t plen[16], np = 0;
        for (const char *p = t; p && np < 16;) {
            const char *e = strstr(p, sep);
            part[np] = p;
            plen[np++] = e ? (size_t)(e - p) : strlen(p);
            p = e ? e + sl : NULL;
        }
        if (site && *site) {
            size_t ns = strlen(site);
            if (same_text(part[np - 1], plen[np - 1], site, ns))
                return strndup(t, (size_t)(part[np - 1] - sl - t));
            if (same_text(part[0], plen[0], site, ns))
                return strdup(part[1]);
        }
        for (size_t i = 0; i < np; i++)
            if (plen[i] >= 4 && in_list(part[i], plen[i], h2s, n_h2) &&
                !in_list(part[i], plen[i], h1s, n_h1))
                for (size_t j = 0; j < np; j++)
                    if (j != i && in_list(part[j], plen[j], h1s, n_h1))
                        return strndup(part[i], plen[i]); /* h1 = logo, h2 = post */
        for (size_t i = 0; i < np; i++)
            if (plen[i] >= 4 && in_list(part[i], plen[i], h1s, n_h1)) {
                if (i + 1 < np || np == 1)
                    return strndup(part[i], plen[i]);
                /* the last part is the h1: the site's name as a logo */
                return strndup(t, (size_t)(part[i] - sl - t));
            }
        if (loose && k < N_LOOSE_SEPS) {
            size_t best = 0;
            for (size_t i = 1; i < np; i++)
                if (plen[i] > plen[best])
                    best = i;
            if (plen[best] * 10 >= (n - plen[best]) * 12 && plen[best] >= 10)
                return strndup(part[best], plen[best]);
        }
        if (loose && sep[0] == '_' && np >= 2 && plen[np - 1] <= 24 &&
            (size_t)(part[np - 1] - t) >= 2 * plen[np - 1])
            return strndup(t, (size_t)(part[np - 1] - sl - t)); /* "标题_网易财经" */
        if (k >= N_LOOSE_SEPS)
            continue; /* "_" and ": " split only a known site name */
        break;
    }
    return strdup(t);
}

/* Word overlap of two titles (Jaccard over lower-case ASCII-folded words),
 * 0..1. */
static double title_overlap(const char *a, const char *b)
{
    char wa[64][32], wb[64][32];
    size_t na = 0, nb = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *s = pass ? b : a;
        char(*w)[32] = pass ? wb : wa;
        size_t *nw = pass ? &nb : &na;
        while (*s && *nw < 64) {
            while (*s && !is_alpha_byte((unsigned char)*s) && !isdigit((unsigned char)*s))
                s++;
            size_t l = 0;
            while (*s && (is_alpha_byte((unsigned char)*s) || isdigit((unsigned char)*s))) {
                if (l < 31)
                    w[*nw][l++] = (char)tolower((unsigned char)*s);
                s++;
            }
            if (l) {
                w[*nw][l] = '\0';
                (*nw)++;
            }
        }
    }
    if (!na || !nb)
        return 0;
    size_t common = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (strcmp(wa[i], wb[j]) == 0) {
                common++;
                break;
            }
    return (double)common / (double)(na + nb - common);
}

static const char *const not_names[] = {"name", "author", "autor", "admin", "administrator",
                                        "unknown", "no author", "null", "anonymous", "none",
                                        "by", "von", "staff", NULL};

/* An author's name from a meta value or (@p byline) a line of the page:
 * what follows "by", "von", "par", "por" ... up to a date, a '|' or an
 * "@handle"; none when it is a URL, an e-mail address, a placeholder or
 * longer than a name. */
static char *clean_author(const char *a, int byline)
{
    if (!a)
        return NULL;
    static const char *const pre[] = {"by ", "von ", "par ", "por ", "di ", "door ", "av ",
                                      "author: ", "autor: ", "text: ", "written by ",
                                      "posted by ", NULL};
    if (byline) {
        const char *best = NULL;
        size_t bl = 0;
        for (size_t i = 0; pre[i]; i++) {
            size_t l = strlen(pre[i]);
            for (const char *p = a; (p = strcasestr(p, pre[i])); p++)
                if (p == a || p[-1] == ' ') {
                    if (!best || p < best)
                        best = p, bl = l;
                    break;
                }
        }
        if (best)
            a = best + bl;
    }
    while (*a == ' ')
        a++;
    for (size_t i = 0; pre[i]; i++)
        if (ps_ascii_ncasecmp(a, pre[i], strlen(pre[i])) == 0) {
            a += strlen(pre[i]);
            break;
        }
    size_t n = strlen(a);
    if (byline) { /* cut at what follows a name */
        static const char *const stops[] = {" | ", "|", " @", " on ", " am ", " le ", " el ",
                                            " - ", " – ", " — ", " (", "\xc2\xb7", NULL};
        for (size_t i = 0; stops[i]; i++) {
            const char *p = strstr(a, stops[i]);
            if (p && (size_t)(p - a) < n)
                n = (size_t)(p - a);
        }
        for (size_t i = 1; i < n; i++)
            if (a[i - 1] == ' ' && isdigit((unsigned char)a[i])) {
                n = i - 1;
                break;
            }
    }
    while (n && (a[n - 1] == ' ' || a[n - 1] == ',' || a[n - 1] == '|' || a[n - 1] == ':'))
        n--;
    if (n < 2 || n > 100 || looks_url(a) || memchr(a, '@', n))
        return NULL;
    for (size_t i = 0; not_names[i]; i++)
        if (same_text(a, n, not_names[i], strlen(not_names[i])))
            return NULL;
    static const char *const label_end[] = {" am", " on", " le", " el", " at", " um", " den", NULL};
    for (size_t i = 0; byline && label_end[i]; i++) { /* "Publiziert am": a label */
        size_t l = strlen(label_end[i]);
        if (n > l && ps_ascii_ncasecmp(a + n - l, label_end[i], l) == 0)
            return NULL;
    }
    size_t words = 1;
    for (size_t i = 0; i < n; i++)
        words += a[i] == ' ';
    if (words > (byline ? 8u : 12u))
        return NULL;
    return strndup(a, n);
}

/* The site's name from the <title> when it holds the headline: the rest,
 * without separators, when it is short. */
static char *site_from_title(const char *page_title, const char *title)
{
    if (!page_title || !title || strlen(title) < 4)
        return NULL;
    const char *p = strstr(page_title, title);
    if (!p)
        return NULL;
    size_t before = (size_t)(p - page_title), tl = strlen(title);
    const char *rest = before ? page_title : p + tl;
    size_t n = before ? before : strlen(p + tl);
    if (before && strlen(p + tl) > 3)
        return NULL; /* text on both sides: not a plain "site | title" */
    /* the part next to the headline: after the last separator of the rest */
    static const char *const seps[] = {" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " « ",
                                       " / ", " • ", "_", ": ", NULL};
    ps_buf b = {0};
    ps_buf_append(&b, rest, n);
    char *s = b.data;
    if (!s)
        return NULL;
    /* trim separators and spaces at both ends */
    int changed = 1;
    while (changed) {
        changed = 0;
        size_t l = strlen(s);
        while (l && strchr(" |:-_/~", s[l - 1]))
            s[--l] = '\0', changed = 1;
        for (size_t i = 0; seps[i]; i++) {
            size_t sl = strlen(seps[i]);
            if (l >= sl && strcmp(s + l - sl, seps[i]) == 0)
                s[l - sl] = '\0', l -= sl, changed = 1;
        }
        while (*s && strchr(" |:-_/~", *s))
            s++, changed = 1;
    }
    if (!before) { /* "headline | section | site": the last part */
        for (size_t i = 0; seps[i]; i++) {
            char *q = NULL;
            for (char *r = s; (r = strstr(r, seps[i])); r++)
                q = r;
            if (q) {
                s = q + strlen(seps[i]);
                break;
            }
        }
    }
    char *out = NULL;
    size_t l = strlen(s);
    if (l >= 2 && l <= 60)
        out = strdup(s);
    ps_buf_free(&b);
    return out;
}

/* Split @p s on @p sep into a new list appended to *list (duplicates out). */
static int add_list(char ***list, size_t *n, const char *s, char sep)
{
    while (s && *s) {
        const char *e = strchr(s, sep);
        size_t l = e ? (size_t)(e - s) : strlen(s);
        while (l && *s == ' ')
            s++, l--;
        while (l && s[l - 1] == ' ')
            l--;
        int dup = 0;
        for (size_t i = 0; i < *n && !dup; i++)
            dup = strlen((*list)[i]) == l && ps_ascii_ncasecmp((*list)[i], s, l) == 0;
        if (l && l < 200 && !dup && *n < 64) {
            char **nl = realloc(*list, (*n + 1) * sizeof *nl);
            if (!nl)
                return -1;
            *list = nl;
            if (!(nl[*n] = strndup(s, l)))
                return -1;
            (*n)++;
        }
        s = e ? e + 1 : NULL;
    }
    return 0;
}

static char *resolve_url(const char *href, const char *base)
{
    if (!href || !*href)
        return NULL;
    if (base && *base && strncmp(href, "http", 4) != 0) {
        xmlChar *u = xmlBuildURI((const xmlChar *)href, (const xmlChar *)base);
        if (u) {
            char *s = strdup((const char *)u);
            xmlFree(u);
            return s;
        }
    }
    return strdup(href);
}

/* "en-US", "de_DE" -> "en", "de"; NULL when it is not a language tag. */
static char *primary_lang(const char *s)
{
    if (!s)
        return NULL;
    while (*s == ' ')
        s++;
    size_t n = 0;
    while (isalpha((unsigned char)s[n]))
        n++;
    if (n < 2 || n > 3)
        return NULL;
    char *out = strndup(s, n);
    for (size_t i = 0; out && i < n; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
    return out;
}

static char *norm_date_dup(const char *s, int compact)
{
    char d[11];
    return s && find_date(s, strlen(s), compact, d) ? strdup(d) : NULL;
}

int ps_page_metadata(const ps_page *page, const ps_extraction *x, ps_metadata *out, ps_error *err)
{
    memset(out, 0, sizeof *out);
    out->lang_confidence = -1;
    if (page->flags & PS_PAGE_NO_METADATA)
        return ps_set_error(err, PS_ERR_USAGE,
                            "ps_page_metadata: the page was parsed without its metadata (PS_PAGE_NO_METADATA)");
    const ps_meta_raw *m = page->meta;
    jsonld j = {0};
    jl_parse(&j, m);
    const char *url = page->url && *page->url ? page->url : NULL;

    /* site name first: the title's cleaning needs it */
    static const char *const site_keys[] = {"meta:og:site_name", NULL};
    const char *site = first_of(m, site_keys);
    if (!site)
        site = j.v[JL_PUBLISHER] ? j.v[JL_PUBLISHER] : j.v[JL_SITE];
    if (!site)
        site = get(m, "meta:application-name");
    out->site_name = dup_or_null(site);

    /* title */
    const char *h1s[5], *h2s[10];
    size_t n_h1 = 0, n_h2 = 0;
    for (size_t i = 0; m && i < m->n; i++) {
        if (strcmp(m->kv[i].key, "h1") == 0 && n_h1 < 5)
            h1s[n_h1++] = m->kv[i].val;
        else if (strcmp(m->kv[i].key, "h2") == 0 && n_h2 < 10)
            h2s[n_h2++] = m->kv[i].val;
    }
    out->page_title = dup_or_null(page->title);
    const char *t = get(m, "meta:og:title");
    if (!t || !*t)
        t = j.v[JL_HEADLINE];
    if (!t || !*t)
        t = get(m, "meta:twitter:title");
    if (!t || !*t)
        t = get(m, "itemprop:headline");
    if (t && *t) {
        out->title = strip_site(t, site, h1s, n_h1, h2s, n_h2, 0);
        /* the headline as the page shows it: an h1 that says nearly the same */
        for (size_t h = 0; out->title && h < n_h1; h++)
            if (strcmp(h1s[h], out->title) != 0 && !strcasestr(h1s[h], out->title) &&
                title_overlap(h1s[h], out->title) >= 0.5) {
                char *x = strdup(h1s[h]);
                if (x) {
                    free(out->title);
                    out->title = x;
                }
                break;
            }
    } else if (page->title && *page->title) {
        out->title = strip_site(page->title, site, h1s, n_h1, h2s, n_h2, 1);
    } else if (n_h1) {
        out->title = strdup(h1s[0]);
    }
    if (!out->site_name && out->title)
        out->site_name = site_from_title(page->title, out->title);

    /* author */
    char *au = NULL;
    if (j.v[JL_AUTHOR])
        au = clean_author(j.v[JL_AUTHOR], 0);
    static const char *const author_keys[] = {
        "meta:author", "meta:article:author", "meta:byl", "meta:dc.creator", "meta:dcterms.creator",
        "meta:parsely-author", "meta:sailthru.author", "meta:citation_author", "meta:cxenseparse:author",
        "meta:article:author_name", "meta:nrbi:authors", "itemprop:author", "rel:author", "byline",
        NULL};
    for (size_t i = 0; !au && author_keys[i]; i++)
        for (size_t k = 0; m && k < m->n && !au; k++)
            if (strcmp(m->kv[k].key, author_keys[i]) == 0)
                au = clean_author(m->kv[k].val, author_keys[i][0] != 'm');
    out->author = au;

    /* dates */
    static const char *const date_keys[] = {
        "meta:article:published_time", "meta:og:article:published_time",
        "meta:article.published", "meta:datepublished", "itemprop:datepublished", "time:pub",
        "meta:date", "meta:pubdate", "meta:publishdate", "meta:publish-date",
        "meta:publication_date", "meta:dc.date", "meta:dc.date.issued", "meta:dcterms.date",
        "meta:dcterms.issued", "meta:dc.date.created", "meta:dcterms.created",
        "meta:sailthru.date", "meta:parsely-pub-date", "meta:article_date_original",
        "meta:og:published_time", "meta:citation_publication_date", "meta:citation_date",
        "meta:release_date", "meta:created", "meta:pdate", "meta:displaydate", "time", NULL};
    out->date = norm_date_dup(j.v[JL_DATE], 0);
    for (size_t i = 0; !out->date && date_keys[i]; i++)
        out->date = norm_date_dup(get(m, date_keys[i]), 0);
    char d[11];
    if (!out->date && url_date(url, d))
        out->date = strdup(d);
    static const char *const text_date_keys[] = {"byline", "datetext", "timetext", NULL};
    for (size_t i = 0; !out->date && text_date_keys[i]; i++)
        for (size_t k = 0; m && k < m->n && !out->date; k++)
            if (strcmp(m->kv[k].key, text_date_keys[i]) == 0)
                out->date = norm_date_dup(m->kv[k].val, 0);
    if (!out->date && x && x->date)
        out->date = norm_date_dup(x->date, 0);
    if (!out->date && x && x->text && find_date(x->text, x->len < 2000 ? x->len : 2000, 0, d))
        out->date = strdup(d);
    static const char *const mod_keys[] = {
        "meta:article:modified_time", "meta:og:updated_time", "meta:datemodified",
        "itemprop:datemodified", "meta:dcterms.modified", "meta:last-modified",
        "meta:dc.date.modified", NULL};
    out->date_modified = norm_date_dup(j.v[JL_MODIFIED], 0);
    for (size_t i = 0; !out->date_modified && mod_keys[i]; i++)
        out->date_modified = norm_date_dup(get(m, mod_keys[i]), 0);

    out->description = description_of(m, j.v[JL_DESC]);

    /* canonical URL, image */
    const char *can = get(m, "link:canonical");
    if (!can)
        can = get(m, "meta:og:url");
    out->canonical_url = resolve_url(can, url);
    static const char *const img_keys[] = {"meta:og:image", "meta:og:image:url",
                                           "meta:og:image:secure_url", "meta:twitter:image",
                                           "meta:twitter:image:src", NULL};
    const char *img = first_of(m, img_keys);
    if (!img)
        img = j.v[JL_IMAGE];
    out->image = resolve_url(img, url);

    /* categories, tags */
    int rc = 0;
    for (size_t k = 0; m && k < m->n && rc == 0; k++) {
        const char *key = m->kv[k].key;
        if (strcmp(key, "meta:article:section") == 0 || strcmp(key, "rel:category") == 0)
            rc = add_list(&out->categories, &out->n_categories, m->kv[k].val, '\x1f');
        else if (strcmp(key, "meta:article:tag") == 0 || strcmp(key, "rel:tag") == 0)
            rc = add_list(&out->tags, &out->n_tags, m->kv[k].val, '\x1f');
    }
    if (rc == 0 && j.v[JL_SECTION])
        rc = add_list(&out->categories, &out->n_categories, j.v[JL_SECTION], '\x1f');
    if (rc == 0 && j.v[JL_KEYWORDS]) {
        /* a keywords string is comma-separated */
        const char *kw = j.v[JL_KEYWORDS];
        rc = add_list(&out->tags, &out->n_tags, kw, strchr(kw, '\x1f') ? '\x1f' : ',');
    }

    /* language: the declared one checked against the text */
    static const char *const lang_keys[] = {"html:lang", "meta:content-language", "meta:language",
                                            "meta:dc.language", "meta:og:locale", NULL};
    const char *decl = first_of(m, lang_keys);
    out->lang_declared = primary_lang(decl);
    char code[16];
    int pct = 0, rel = 0;
    int found = x && x->text && x->len >= 40 && ps_langid(x->text, x->len, code, &pct, &rel);
    if (found && (rel || !out->lang_declared)) {
        out->lang = strdup(code);
        out->lang_confidence = pct / 100.0;
    } else if (out->lang_declared) {
        out->lang = strdup(out->lang_declared);
    }

    for (int i = 0; i < JL_N; i++)
        free(j.v[i]);
    if (rc != 0) {
        ps_metadata_free(out);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    return 0;
}

/* ---- the field table (extract/meta_fields.h) ----------------------------- */

#define TEXT(name, xml, rank) {#name, PS_META_TEXT, offsetof(ps_metadata, name), 0, xml, rank}
#define LIST(name, xml, rank) \
    {#name, PS_META_LIST, offsetof(ps_metadata, name), offsetof(ps_metadata, n_##name), xml, rank}
const ps_meta_field ps_meta_fields[] = {
    TEXT(title, "title", 1),
    TEXT(page_title, NULL, 0),
    TEXT(author, "author", 2),
    TEXT(date, "date", 3),
    TEXT(date_modified, "date_modified", 4),
    TEXT(site_name, "sitename", 6),
    TEXT(description, "description", 7),
    TEXT(lang, "lang", 11),
    TEXT(lang_declared, NULL, 0),
    {"lang_confidence", PS_META_SHARE, offsetof(ps_metadata, lang_confidence), 0, NULL, 0},
    TEXT(canonical_url, "url", 5),
    TEXT(image, "image", 10),
    LIST(categories, "categories", 8),
    LIST(tags, "tags", 9),
};
#undef TEXT
#undef LIST
const size_t ps_meta_n_fields = sizeof ps_meta_fields / sizeof *ps_meta_fields;

const char *ps_meta_text(const ps_metadata *m, const ps_meta_field *f)
{
    return *(char *const *)((const char *)m + f->offset);
}

char *const *ps_meta_list(const ps_metadata *m, const ps_meta_field *f, size_t *n)
{
    *n = *(const size_t *)((const char *)m + f->count_offset);
    return *(char **const *)((const char *)m + f->offset);
}

const char *ps_meta_share(const ps_metadata *m, const ps_meta_field *f, char *buf, size_t cap)
{
    double v = *(const double *)((const char *)m + f->offset);
    if (!m->lang || !(v >= 0))
        return NULL;
    snprintf(buf, cap, "%.2f", v);
    return buf;
}

void ps_metadata_free(ps_metadata *md)
{
    if (!md)
        return;
    for (size_t i = 0; i < ps_meta_n_fields; i++) {
        const ps_meta_field *f = &ps_meta_fields[i];
        void *at = (char *)md + f->offset;
        if (f->kind == PS_META_TEXT) {
            free(*(char **)at);
        } else if (f->kind == PS_META_LIST) {
            char **items = *(char ***)at;
            size_t n = *(size_t *)((char *)md + f->count_offset);
            for (size_t k = 0; k < n; k++)
                free(items[k]);
            free(items);
        }
    }
    memset(md, 0, sizeof *md);
}

unsigned ps_meta_schema_kinds(const ps_meta_raw *m)
{
    static const struct {
        const char *name; /* quoted, as a JSON string value */
        unsigned bit;
    } TYPES[] = {
        {"\"Article\"", PS_SCHEMA_ARTICLE},
        {"\"NewsArticle\"", PS_SCHEMA_ARTICLE},
        {"\"BlogPosting\"", PS_SCHEMA_ARTICLE},
        {"\"Recipe\"", PS_SCHEMA_ARTICLE},
        {"\"Product\"", PS_SCHEMA_PRODUCT},
        {"\"Offer\"", PS_SCHEMA_PRODUCT},
        {"\"AggregateOffer\"", PS_SCHEMA_PRODUCT},
        {"\"DiscussionForumPosting\"", PS_SCHEMA_FORUM},
        {"\"QAPage\"", PS_SCHEMA_QA},
        {"\"Question\"", PS_SCHEMA_QA},
        {"\"ItemList\"", PS_SCHEMA_LIST},
        {"\"CollectionPage\"", PS_SCHEMA_LIST},
        {"\"SearchResultsPage\"", PS_SCHEMA_LIST},
        {"\"OfferCatalog\"", PS_SCHEMA_LIST},
    };
    unsigned bits = 0;
    for (size_t i = 0; m && i < m->n; i++) {
        if (strcmp(m->kv[i].key, "jsonld") != 0)
            continue;
        for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++)
            if (!(bits & TYPES[t].bit) && strstr(m->kv[i].val, TYPES[t].name))
                bits |= TYPES[t].bit;
    }
    return bits;
}

unsigned ps_page_schema_kinds(const ps_page *page)
{
    return page ? page->schema : 0;
}
