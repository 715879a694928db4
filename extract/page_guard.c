/* extract/page_guard.c — the pre-parse guard: a linear scan of a page's
 * markup, before libxml2 sees it, that refuses what would make libxml2's
 * HTML parser quadratic.
 *
 * libxml2 (2.9.14) checks every attribute of an element against the ones
 * before it (n^2 / 2 compares per element), and an end tag that matches no
 * open element is looked for down the whole stack of open elements, twice
 * (htmlAutoCloseOnClose, htmlParseEndTag): 50 000 "<b>" then 50 000 "</i>"
 * take 5 s, 200 000 of each 80 s, where a normal page of that size takes
 * milliseconds.  The scan simulates libxml2's stack of open elements well
 * enough to bound both costs:
 *
 * - tags as libxml2 reads them: comments, <!...> and <?...> skipped; the
 *   content of script and style is text; void elements (br, img, ...) and
 *   "<x/>" open nothing; html, head and body are not counted;
 * - a start tag of p, li, dt/dd, td/th, tr, option (...) closes an open
 *   sibling on top of the stack (as libxml2 does), so unclosed <p>, <li>
 *   and table cells do not count as nesting;
 * - an end tag pops up to the matching open element, or, matching none,
 *   costs the depth of the stack.
 *
 * Limits (PS_PAGE_MAX_*, include/pagesift.h): elements, and nodes of every
 * kind libxml2 makes (start tags, attributes, runs of text, comments,
 * <?...?> and <!...>: each costs its DOM, 64 MB of "<?x?>" took 4.8 GB when
 * only start tags were counted) within a budget that grows with the page's
 * bytes (ps_page_node_budget: a node costs 150-800 bytes of memory where its
 * markup may take 4, so a fixed count let 1 MB pages of tiny nodes grow to
 * 75 times their bytes), depth of the simulated stack,
 * attributes per element, the sum of the squared attribute counts and the
 * sum of the depths at unmatched end tags.  The simulation errs towards
 * more depth than libxml2 builds (libxml2 closes more elements implicitly
 * than the rules above), never towards less; the limits are far above what
 * real pages reach (docs/EXTRACTION.md, "Bounds").
 *
 * The same pass notes the markup libxml2 reads otherwise than a browser's
 * HTML5 parser (ps_markup_fix): attribute names it cannot read, which made
 * it end the tag at a '>' inside a quoted value, and the '/' of
 * "<script/>" and "<style/>", which made their code page text; page.c
 * parses a copy with them repaired (docs/EXTRACTION.md, "Markup a browser
 * reads differently"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"

typedef struct name_tab {
    uint64_t *key;   /* hash of the name, 0 = empty slot */
    uint32_t *open;  /* elements of that name on the stack */
    size_t cap, n;
} name_tab;

static size_t tab_slot(name_tab *t, uint64_t h)
{
    size_t i = (size_t)h & (t->cap - 1);
    while (t->key[i] && t->key[i] != h)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Slot of @p h, inserted if new; (size_t)-1 when out of memory. */
static size_t tab_get(name_tab *t, uint64_t h)
{
    if ((t->n + 1) * 2 > t->cap) {
        name_tab nt = {0};
        nt.cap = t->cap ? t->cap * 2 : 256;
        nt.key = calloc(nt.cap, sizeof *nt.key);
        nt.open = calloc(nt.cap, sizeof *nt.open);
        if (!nt.key || !nt.open) {
            free(nt.key);
            free(nt.open);
            return (size_t)-1;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->key[i]) {
                size_t j = tab_slot(&nt, t->key[i]);
                nt.key[j] = t->key[i];
                nt.open[j] = t->open[i];
            }
        nt.n = t->n;
        free(t->key);
        free(t->open);
        *t = nt;
    }
    size_t i = tab_slot(t, h);
    if (!t->key[i]) {
        t->key[i] = h;
        t->n++;
    }
    return i;
}

static int is_alpha(unsigned char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* An attribute name, as the guard reads it, ends at white space, '>', '='
 * or '/' (NAME_END).  libxml2 2.9.14 (htmlParseHTMLName) reads an ASCII
 * letter, '_', ':' or '.' first and then those, digits and '-': any other
 * byte is NOT_FIRST, and NOT_AFTER too unless a digit or '-'. */
enum { NAME_END = 1, NOT_AFTER = 2, NOT_FIRST = 4 };
static unsigned char name_class[256];
static pthread_once_t name_once = PTHREAD_ONCE_INIT;

static void build_name_class(void)
{
    for (int c = 0; c < 256; c++) {
        int start = ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' || c == ':' || c == '.';
        int after = start || (c >= '0' && c <= '9') || c == '-';
        int end = is_space((unsigned char)c) || c == '>' || c == '=' || c == '/';
        name_class[c] = (unsigned char)((end ? NAME_END : 0) | (after ? 0 : NOT_AFTER) | (start ? 0 : NOT_FIRST));
    }
}

/* note a fix of s[from..to) in st->fixes; 0, or -1 out of memory */
static int note_fix(ps_page_guard_stats *st, size_t *cap, size_t from, size_t to, int slash)
{
    if (st->n_fixes == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        ps_markup_fix *nf = realloc(st->fixes, nc * sizeof *nf);
        if (!nf)
            return -1;
        st->fixes = nf;
        *cap = nc;
    }
    st->fixes[st->n_fixes++] = (ps_markup_fix){from, to, slash};
    return 0;
}

void ps_page_fix_markup(char *s, const ps_page_guard_stats *st)
{
    pthread_once(&name_once, build_name_class);
    for (size_t k = 0; k < st->n_fixes; k++) {
        const ps_markup_fix *f = &st->fixes[k];
        if (f->slash) {
            s[f->from] = ' ';
            continue;
        }
        for (size_t i = f->from; i < f->to; i++)
            if (name_class[(unsigned char)s[i]] & (i == f->from ? NOT_FIRST : NOT_AFTER))
                s[i] = '_';
    }
}


/* The tag name at s[i..]: lower-cased into @p name (at most 31 bytes kept,
 * their count in *len), returns the index after it. */
static size_t read_name(const char *s, size_t i, size_t n, char *name, size_t *len)
{
    size_t k = 0;
    while (i < n && !is_space((unsigned char)s[i]) && s[i] != '>' && s[i] != '/') {
        if (k < 31)
            name[k++] = (char)((unsigned char)s[i] >= 'A' && (unsigned char)s[i] <= 'Z' ? s[i] | 0x20 : s[i]);
        i++;
    }
    name[k] = '\0';
    *len = k;
    return i;
}

/* What the guard does with an element name (guard_tag).  Roots are not
 * counted; raw-text elements take their content as text; void elements
 * open nothing (not embed, source, track, wbr, keygen, bgsound: libxml2
 * 2.9.14 does not know they are void and nests what follows inside them, so
 * they count as open elements here, and page.c hoists their content out); a sibling code (group << 4 | rank) says which open elements
 * a start tag closes: a start tag of the group closes the open elements of
 * its group and of a rank up to its own on top of the stack (a <tr> closes
 * an open <td> and <tr>, an <li> an open <p> and <li>). */
enum { GUARD_ROOT = 1, GUARD_RAW = 2, GUARD_VOID = 4 };

typedef struct {
    const char *name;
    uint8_t role;    /* GUARD_* */
    uint8_t sibling; /* group << 4 | rank, 0 for none */
} guard_tag;

/* Sorted by name: the names of one first letter are a run (first_at). */
static const guard_tag GUARD_TAGS[] = {
    {"area", GUARD_VOID, 0},    {"base", GUARD_VOID, 0},      {"basefont", GUARD_VOID, 0},
    {"body", GUARD_ROOT, 0},    {"br", GUARD_VOID, 0},        {"col", GUARD_VOID, 0},
    {"colgroup", 0, 0x33},      {"dd", 0, 0x22},              {"dt", 0, 0x22},
    {"frame", GUARD_VOID, 0},   {"head", GUARD_ROOT, 0},      {"hr", GUARD_VOID, 0},
    {"html", GUARD_ROOT, 0},    {"img", GUARD_VOID, 0},       {"input", GUARD_VOID, 0},
    {"isindex", GUARD_VOID, 0}, {"li", 0, 0x22},              {"link", GUARD_VOID, 0},
    {"meta", GUARD_VOID, 0},    {"optgroup", 0, 0x42},        {"option", 0, 0x41},
    {"p", 0, 0x21},             {"param", GUARD_VOID, 0},     {"rp", 0, 0x51},
    {"rt", 0, 0x51},            {"script", GUARD_RAW, 0},     {"style", GUARD_RAW, 0},
    {"tbody", 0, 0x33},         {"td", 0, 0x31},              {"tfoot", 0, 0x33},
    {"th", 0, 0x31},            {"thead", 0, 0x33},           {"tr", 0, 0x32},
};
#define N_GUARD_TAGS (sizeof GUARD_TAGS / sizeof GUARD_TAGS[0])

/* first_at[c] .. first_at[c + 1]: the run of GUARD_TAGS starting with 'a' + c
 * (built once, thread-safely, on first use) */
static unsigned char first_at[27];
static pthread_once_t first_once = PTHREAD_ONCE_INIT;

static void build_first_at(void)
{
    ps_first_letter_runs(GUARD_TAGS, N_GUARD_TAGS, sizeof *GUARD_TAGS, first_at);
}

/* The "-->" ending a comment in @p n bytes from @p p, or NULL.  memchr, not
 * memmem: a sanitizer checks memmem's whole haystack on every call (a page
 * of 2 million comments took 34 s under ASan), memchr's only up to what it
 * finds. */
static const char *comment_end(const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *d = memchr(p, '-', (size_t)(end - p));
        if (!d || end - d < 3)
            return NULL;
        if (d[1] == '-' && d[2] == '>')
            return d;
        p = d + 1;
    }
    return NULL;
}

/* The entry of a lower-cased name, NULL for an element the guard treats
 * like any other.  Through the first letter, as ps_tag_kind does: about one
 * string compare per tag instead of up to 40 (three scans of lists with
 * strcmp): the guard took 103.4 M instructions on 60 dragnet pages, now
 * 51.4 M. */
static const guard_tag *guard_tag_of(const char *name)
{
    unsigned c = (unsigned char)name[0] - 'a';
    if (c >= 26)
        return NULL;
    pthread_once(&first_once, build_first_at);
    for (size_t i = first_at[c]; i < first_at[c + 1]; i++)
        if (GUARD_TAGS[i].name[1] == name[1] &&
            (name[1] == '\0' || strcmp(GUARD_TAGS[i].name + 2, name + 2) == 0))
            return &GUARD_TAGS[i];
    return NULL;
}

size_t ps_page_node_budget(size_t bytes)
{
    size_t budget = PS_PAGE_NODES_BASE + bytes / PS_PAGE_BYTES_PER_NODE;
    return budget < PS_PAGE_MAX_NODES ? budget : PS_PAGE_MAX_NODES;
}

/* The refusal of a page whose nodes passed @p budget at byte @p at. */
static int refuse_nodes(size_t budget, size_t n, size_t at, ps_error *err)
{
    return ps_set_error(err, PS_ERR_TOO_LARGE,
                        "more than %zu nodes (elements, attributes, text, comments, processing "
                        "instructions) in %zu bytes, the node budget of %d + one per %d bytes "
                        "(at most %d; at byte %zu): refused before parsing",
                        budget, n, PS_PAGE_NODES_BASE, PS_PAGE_BYTES_PER_NODE, PS_PAGE_MAX_NODES, at);
}

int ps_page_guard(const char *s, size_t n, ps_page_guard_stats *st, ps_error *err)
{
    ps_page_guard_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    name_tab tab = {0};
    uint64_t *stack = NULL;   /* name hashes of the open elements */
    uint8_t *kind = NULL;     /* their sibling_kind() */
    size_t depth = 0, cap = 0;
    int rc = 0;
    uint64_t attr_work = 0, close_work = 0;
    size_t fix_cap = 0;
    size_t foreign = 0; /* open <svg> and <math>: HTML5 honours "/>" inside them */
    size_t text_from = 0; /* where the text after the last markup begins */
    const size_t budget = ps_page_node_budget(n);
    st->node_budget = budget;
    pthread_once(&name_once, build_name_class);
    for (size_t i = 0; i < n && rc == 0;) {
        const char *lt = memchr(s + i, '<', n - i);
        if (!lt)
            break;
        i = (size_t)(lt - s) + 1;
        if (i >= n)
            break;
        unsigned char c = (unsigned char)s[i];
        int closing = c == '/';
        if (c != '!' && c != '?' && !(closing ? i + 1 < n && is_alpha((unsigned char)s[i + 1]) : is_alpha(c)))
            continue; /* a '<' in text */
        /* a node of text before this markup, then the markup's own:
         * every node libxml2 will make costs its DOM (a comment, a
         * processing instruction about 370 bytes, as an element), so all
         * are counted, not start tags only */
        size_t at = (size_t)(lt - s);
        st->nodes += (at > text_from) + !closing;
        text_from = at;
        if (st->nodes > budget) {
            rc = refuse_nodes(budget, n, at, err);
            break;
        }
        if (c == '!' || c == '?') {
            const char *end;
            if (c == '!' && i + 2 < n && s[i + 1] == '-' && s[i + 2] == '-') {
                end = comment_end(s + i + 3, n - i - 3);
                i = end ? (size_t)(end - s) + 3 : n;
            } else {
                end = memchr(s + i, '>', n - i);
                i = end ? (size_t)(end - s) + 1 : n;
            }
            text_from = i;
            continue;
        }
        if (closing)
            i++;
        char name[32];
        size_t tag_at = i - 1 - (size_t)closing;
        size_t name_len;
        i = read_name(s, i, n, name, &name_len);
        /* attributes: names, '=', values quoted or not; up to '>' */
        size_t attrs = 0;
        int self_close = 0;
        size_t slash_at = 0;
        while (i < n && s[i] != '>') {
            unsigned char a = (unsigned char)s[i];
            if (is_space(a)) {
                i++;
                continue;
            }
            if (a == '/') {
                self_close = i + 1 < n && s[i + 1] == '>';
                slash_at = i;
                i++;
                continue;
            }
            if (a == '=') { /* a value */
                i++;
                while (i < n && is_space((unsigned char)s[i]))
                    i++;
                if (i < n && (s[i] == '"' || s[i] == '\'')) {
                    const char *q = memchr(s + i + 1, s[i], n - i - 1);
                    i = q ? (size_t)(q - s) + 1 : n;
                } else {
                    while (i < n && !is_space((unsigned char)s[i]) && s[i] != '>')
                        i++;
                }
                continue;
            }
            attrs++;
            size_t name_at = i;
            unsigned bad = name_class[a] & NOT_FIRST;
            for (unsigned cl; i < n && !((cl = name_class[(unsigned char)s[i]]) & NAME_END); i++)
                bad |= cl & NOT_AFTER;
            if (bad && !closing && note_fix(st, &fix_cap, name_at, i, 0) != 0) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
        }
        if (rc != 0)
            break;
        if (i < n)
            i++; /* '>' */
        text_from = i;
        if (!closing && (st->nodes += attrs) > budget) { /* an attribute is a node and its value */
            rc = refuse_nodes(budget, n, tag_at, err);
            break;
        }
        if (attrs > st->max_attrs)
            st->max_attrs = attrs;
        if (attrs > PS_PAGE_MAX_ATTRS) {
            rc = ps_set_error(err, PS_ERR_TOO_LARGE,
                              "an element with more than %d attributes (<%s> at byte %zu): refused "
                              "before parsing",
                              PS_PAGE_MAX_ATTRS, name, tag_at);
            break;
        }
        attr_work += (uint64_t)attrs * attrs;
        if (attr_work > PS_PAGE_MAX_ATTR_WORK) {
            rc = ps_set_error(err, PS_ERR_TOO_LARGE,
                              "too many attributes on too many elements (sum of squared counts over "
                              "%llu at byte %zu): refused before parsing",
                              (unsigned long long)PS_PAGE_MAX_ATTR_WORK, tag_at);
            break;
        }
        if (!closing && ++st->elements > PS_PAGE_MAX_ELEMENTS) {
            rc = ps_set_error(err, PS_ERR_TOO_LARGE,
                              "more than %d elements (at byte %zu): refused before parsing",
                              PS_PAGE_MAX_ELEMENTS, tag_at);
            break;
        }
        const guard_tag *tag = guard_tag_of(name);
        const uint8_t role = tag ? tag->role : 0;
        if (role & GUARD_ROOT)
            continue;
        uint64_t h = ps_hash64(name, name_len) | 1;
        int svg_or_math = (name_len == 3 && memcmp(name, "svg", 3) == 0) ||
                          (name_len == 4 && memcmp(name, "math", 4) == 0);
        if (svg_or_math && (closing ? foreign > 0 : !self_close))
            foreign += closing ? (size_t)-1 : 1;
        if (closing) {
            size_t slot = tab_get(&tab, h);
            if (slot == (size_t)-1) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            if (tab.open[slot]) {
                while (depth > 0) {
                    uint64_t top = stack[--depth];
                    tab.open[tab_slot(&tab, top)]--;
                    if (top == h)
                        break;
                }
            } else {
                st->unmatched++;
                close_work += depth;
                if (close_work > PS_PAGE_MAX_CLOSE_WORK) {
                    rc = ps_set_error(err, PS_ERR_TOO_LARGE,
                                      "end tags that close nothing under %zu open elements "
                                      "(sum of depths over %llu at byte %zu): refused before parsing",
                                      depth, (unsigned long long)PS_PAGE_MAX_CLOSE_WORK, tag_at);
                    break;
                }
            }
            continue;
        }
        if ((role & GUARD_RAW) && !(self_close && foreign)) {
            /* raw text up to the end tag, "<script/>" too: outside SVG and
             * MathML HTML5 ignores the '/', and so will libxml2 once the fix
             * has replaced it */
            if (self_close && note_fix(st, &fix_cap, slash_at, slash_at + 1, 1) != 0) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            size_t k = i;
            for (; k + 1 < n; k++) {
                const char *p = memchr(s + k, '<', n - k);
                if (!p)
                    break;
                k = (size_t)(p - s);
                if (k + 2 + name_len <= n && s[k + 1] == '/' &&
                    ps_ascii_ncasecmp(s + k + 2, name, name_len) == 0)
                    break;
            }
            i = k;
            continue;
        }
        if (self_close || (role & GUARD_VOID))
            continue;
        uint8_t code = tag ? tag->sibling : 0;
        while (code && depth > 0 && (kind[depth - 1] >> 4) == (code >> 4) &&
               (kind[depth - 1] & 15) <= (code & 15)) {
            uint64_t top = stack[--depth];
            tab.open[tab_slot(&tab, top)]--;
        }
        size_t slot = tab_get(&tab, h);
        if (slot == (size_t)-1) {
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            break;
        }
        if (depth >= cap) {
            size_t nc = cap ? cap * 2 : 256;
            uint64_t *ns = realloc(stack, nc * sizeof *ns);
            uint8_t *nk = ns ? realloc(kind, nc) : NULL;
            if (ns)
                stack = ns;
            if (!nk) {
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                break;
            }
            kind = nk;
            cap = nc;
        }
        stack[depth] = h;
        kind[depth] = code;
        depth++;
        tab.open[slot]++;
        if (depth > st->max_depth)
            st->max_depth = depth;
        if (depth > PS_PAGE_MAX_DEPTH) {
            rc = ps_set_error(err, PS_ERR_TOO_LARGE,
                              "elements nested more than %d deep (<%s> at byte %zu): refused before "
                              "parsing",
                              PS_PAGE_MAX_DEPTH, name, tag_at);
            break;
        }
    }
    if (rc == 0 && n > text_from && ++st->nodes > budget) /* the text at the end */
        rc = refuse_nodes(budget, n, text_from, err);
    st->attr_work = attr_work;
    st->close_work = close_work;
    if (rc != 0 || st == &local) {
        free(st->fixes);
        st->fixes = NULL;
        st->n_fixes = 0;
    }
    free(tab.key);
    free(tab.open);
    free(stack);
    free(kind);
    return rc;
}
