/* extract/page.c — a page: decode, skip junk, parse with libxml2 into the
 * page's compact tree (extract/tree.c: SAX events, no DOM), repair it where
 * libxml2 reads markup otherwise than a browser, remove what never holds
 * content, and build the block tree (blocks, leaves, runs).
 *
 * One iterative pre-order walk over the tree does the cleaning and the
 * block tree at once; no recursion, so deeply nested junk cannot blow the
 * stack.  Removing is unlinking (the nodes stay in the tree's array); a DOM
 * is made from the cleaned tree only when a tool asks (ps_page_dom). */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLtree.h>
#include <libxml/parser.h>

#include "extract/class_words.h"
#include "extract/decode_internal.h"
#include "extract/meta_internal.h"
#include "extract/page_internal.h"
#include "pagesift/dataset.h"

const char *const ps_default_block_tags[] = {"body", "section", "div", NULL};

const char *ps_version(void)
{
    return PS_VERSION;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_libs(void)
{
    ps_xml_alloc_setup(); /* before libxml2 allocates anything */
    xmlInitParser();
}

void ps_init(void)
{
    pthread_once(&init_once, init_libs);
}

/* ---- junk before the markup --------------------------------------------- */

/* Skip what stands before <!doctype or <html when it is not part of the page:
 * only tags and white space (CleanEval's "<text id=...>" line), or plain
 * header lines without markup. */
static size_t junk_prefix(const char *s, size_t len)
{
    size_t lim = len < 65536 ? len : 65536;
    size_t pos = (size_t)-1;
    for (size_t i = 0; i + 5 < lim; i++) {
        if (s[i] == '<' && (ps_ascii_ncasecmp(s + i + 1, "!doctype", 8) == 0 ||
                            ps_ascii_ncasecmp(s + i + 1, "html", 4) == 0)) {
            pos = i;
            break;
        }
    }
    if (pos == (size_t)-1 || pos == 0)
        return 0;
    int in_tag = 0, text = 0, tags = 0;
    for (size_t i = 0; i < pos; i++) {
        char c = s[i];
        if (in_tag) {
            if (c == '>')
                in_tag = 0;
        } else if (c == '<') {
            in_tag = 1;
            tags++;
            if (ps_ascii_ncasecmp(s + i + 1, "body", 4) == 0 || ps_ascii_ncasecmp(s + i + 1, "p>", 2) == 0 ||
                ps_ascii_ncasecmp(s + i + 1, "div", 3) == 0)
                return 0; /* real content before <html>: keep everything */
        } else if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            text = 1;
        }
    }
    if (text && tags)
        return 0;
    if (text && pos > 4096)
        return 0;
    return pos;
}

/* A <title> that is never closed makes the rest of the page its text (it is
 * RCDATA), so the page would have no body at all.  Close it at the end of its
 * line or at the next '<', whichever comes first.  Returns a fixed copy, or
 * NULL when nothing needs fixing. */
static char *close_unclosed_title(const char *s, size_t len)
{
    size_t lim = len < 65536 ? len : 65536, i;
    for (i = 0; i + 6 < lim; i++)
        if (s[i] == '<' && ps_ascii_ncasecmp(s + i + 1, "title", 5) == 0 &&
            (s[i + 6] == '>' || s[i + 6] == ' ' || s[i + 6] == '\t' || s[i + 6] == '\n'))
            break;
    if (i + 6 >= lim)
        return NULL;
    const char *gt = memchr(s + i, '>', len - i);
    if (!gt)
        return NULL;
    size_t body = (size_t)(gt + 1 - s);
    for (size_t j = body; j + 7 < len; j++)
        if (s[j] == '<' && s[j + 1] == '/' && ps_ascii_ncasecmp(s + j + 2, "title", 5) == 0)
            return NULL; /* closed somewhere: libxml2 copes */
    size_t end = body;
    while (end < len && s[end] != '\n' && s[end] != '<')
        end++;
    static const char CLOSE[] = "</title>";
    char *out = malloc(len + sizeof CLOSE);
    if (!out)
        return NULL;
    memcpy(out, s, end);
    memcpy(out + end, CLOSE, sizeof CLOSE - 1);
    memcpy(out + end + sizeof CLOSE - 1, s + end, len - end);
    out[len + sizeof CLOSE - 1] = '\0';
    return out;
}

/* Bytes that are not text, in the first 4 KB: more than 5 % NULs and C0
 * controls other than white space, together, NULs not counted when they sit
 * on every other byte as in UTF-16 without a byte-order mark.  Compressed or
 * random data (an image or gzip body) has about 11 % (28 of 256 byte values;
 * 5 % is 6 standard deviations below that over 1 KB).  A few NULs in a page are text
 * damage, not a sign of binary data: the decoder makes each one U+FFFD (64
 * NULs in a page were "binary data" when any 1 % of NULs was; issue 32). */
static int looks_binary(const char *s, size_t len)
{
    size_t n = len < 4096 ? len : 4096, ctl = 0, nul[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0)
            nul[i & 1]++;
        else if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1B)
            ctl++;
    }
    if (n < 16)
        return 0;
    size_t half = n / 2, lo = nul[0] < nul[1] ? nul[0] : nul[1], hi = nul[0] + nul[1] - lo;
    int utf16 = hi * 10 > half * 3 && lo * 20 <= half; /* one parity mostly NUL, the other not */
    return (ctl + (utf16 ? 0 : nul[0] + nul[1])) * 20 > n;
}

/* ---- scripts that end where libxml2 does not see it ------------------- */

static int script_delim(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>';
}

/* "<script" or "</script" (@p close) followed by a delimiter at s[i]. */
static int script_tag_at(const char *s, size_t i, size_t len, int close)
{
    size_t k = i + 1 + (size_t)close;
    return k + 7 <= len && s[i] == '<' && (!close || s[i + 1] == '/') &&
           ps_ascii_ncasecmp(s + k, "script", 6) == 0 && (k + 6 == len || script_delim(s[k + 6]));
}

/* Where a browser ends the script whose content starts at @p i (HTML's
 * script data states: "<!--" enters the escaped state, in which "<script"
 * enters the double-escaped state, where "</script" only leaves double
 * escaping; "-->" leaves escaping), and where libxml2 ends it (the first
 * "</script"): both as the offset of the end tag, len when there is none. */
static void script_ends(const char *s, size_t i, size_t len, size_t *browser, size_t *naive)
{
    enum { DATA, ESC, DESC } st = DATA;
    *naive = *browser = len;
    for (; i < len; i++) {
        if (s[i] == '-' && st != DATA && i + 2 < len && s[i + 1] == '-' && s[i + 2] == '>') {
            st = DATA;
            i += 2;
            continue;
        }
        if (s[i] != '<')
            continue;
        if (script_tag_at(s, i, len, 1)) {
            if (*naive == len)
                *naive = i;
            if (st != DESC) {
                *browser = i;
                return;
            }
            st = ESC;
        } else if (st == DATA && i + 3 < len && s[i + 1] == '!' && s[i + 2] == '-' && s[i + 3] == '-') {
            st = ESC;
            i += 3;
        } else if (st == ESC && script_tag_at(s, i, len, 0)) {
            st = DESC;
        }
    }
}

/* libxml2 ends every script at its first "</script", so a script that opens
 * an HTML comment and writes "<script ...></script>" as a string ends early
 * and the rest of its code (150 kB of JSON on one page) becomes body text.
 * Scripts are removed anyway: cut the content of each such script, so that
 * libxml2 ends it where a browser does.  Returns the repaired copy (its
 * length in *out_len), or NULL when no script needs it. */
static char *repair_script_ends(const char *s, size_t len, size_t *out_len)
{
    ps_buf out = {0};
    size_t copied = 0;
    for (const char *p = s; (p = memchr(p, '<', len - (size_t)(p - s))) != NULL;) {
        size_t i = (size_t)(p - s);
        if (!script_tag_at(s, i, len, 0)) {
            p++;
            continue;
        }
        const char *gt = memchr(s + i, '>', len - i);
        if (!gt)
            break;
        size_t start = (size_t)(gt + 1 - s), browser, naive;
        script_ends(s, start, len, &browser, &naive);
        if (browser != naive && browser < len) {
            if (ps_buf_append(&out, s + copied, start - copied)) {
                ps_buf_free(&out);
                return NULL;
            }
            copied = browser;
        }
        if (browser >= len)
            break;
        p = s + browser + 1;
    }
    if (!copied)
        return NULL;
    if (ps_buf_append(&out, s + copied, len - copied)) {
        ps_buf_free(&out);
        return NULL;
    }
    return ps_buf_take(&out, out_len);
}

/* A <noscript> never closed swallows the rest of the page in libxml2 (it
 * parses it as markup): one with much text is kept as ordinary content. */
static int unclosed_noscript(const ps_tree *t, uint32_t n)
{
    if (strcmp((const char *)t->nodes[n].name, "noscript") != 0)
        return 0;
    size_t text = 0;
    for (uint32_t c = t->nodes[n].first; c;) {
        const ps_tnode *cn = &t->nodes[c];
        if (cn->type == PS_TN_TEXT)
            text += cn->len;
        if (text > 2000)
            return 1;
        if (cn->first && cn->type == PS_TN_ELEMENT) {
            c = cn->first;
            continue;
        }
        while (c && !t->nodes[c].next && c != n)
            c = t->nodes[c].parent;
        if (!c || c == n)
            break;
        c = t->nodes[c].next;
    }
    return 0;
}

/* ---- the walk ----------------------------------------------------------- */

/* Element names: most compares fail on the first byte, so test it inline
 * before calling strcmp. */
static inline int name_eq(const char *a, const char *b)
{
    return a[0] == b[0] && strcmp(a, b) == 0;
}

#define NAME_SLOTS 6

/* What the markup says around an element (ps_block's cls, section and
 * in_figure; see pagesift.h). */
typedef struct marks {
    float cls[4];      /* class/id word hits, halved per level up */
    uint16_t words;    /* the element's own class/id word groups (PS_CW_*) */
    uint8_t section;   /* PS_SECTION_* of the nearest sectioning element */
    uint8_t in_figure;
    uint8_t in_data_table; /* inside a table with a header row (data_table) */
} marks;

typedef struct frame {
    uint32_t node;    /* the element (a node of the page's tree) */
    int32_t block;    /* current block inside this element */
    int32_t leaf;     /* leaf owning text directly inside, -1 if none yet */
    int32_t owner;    /* frame index whose element owns text here */
    uint32_t path_len;/* length of the DOM path up to this element */
    uint64_t path_hash;/* hash of that path (FNV-1a, extended segment by segment) */
    marks m;
    uint8_t in_link;
    uint8_t heading;
    uint16_t kind;    /* ps_tag_kind of the element */
    uint8_t n_names;  /* child element names counted so far (for path indices) */
    struct {
        const xmlChar *name;
        uint32_t count;
    } names[NAME_SLOTS];
} frame;

typedef struct builder {
    ps_page *pg;
    ps_tree *t;       /* pg->tree */
    const char *const *block_tags;
    /* the block tags as rows of the tag table (ps_tag_lookup), and whether
     * one is outside it (then looked for by name) */
    uint64_t block_rows[PS_TAG_TABLE_MAX / 64];
    int block_tags_outside;
    ps_buf runtext, strs;
    ps_buf path;      /* DOM path of the element being visited */
    uint64_t path_hash;/* its hash */
    size_t cap_blocks, cap_leaves, cap_runs;
    uint32_t *block_path_off, *block_id_off, *block_class_off;
    int pending_break;
    int pending_space;
    int pending_image; /* an image since the last text (ps_leaf.after_image) */
    uint32_t *to_remove;
    size_t n_remove, cap_remove;
    int keep_hidden;     /* 1: hidden elements are walked like the others */
    size_t hidden_bytes; /* non-space text bytes of the hidden elements left out */
    double deadline;  /* CLOCK_MONOTONIC seconds, 0 = none */
    size_t steps;
    int over;         /* a bound was passed: PS_ERR_TOO_LARGE / PS_ERR_TIMEOUT */
    char over_msg[160];
} builder;

/* Fail the walk on a bound of the page (the message says which). */
static int over_bound(builder *b, ps_status code, const char *msg)
{
    b->over = (int)code;
    snprintf(b->over_msg, sizeof b->over_msg, "%s", msg);
    return -1;
}

/* 1-based index of @p node among its same-name element siblings, counted
 * in the parent's frame as the walk meets the children in order. */
static uint32_t sibling_index(const ps_tree *t, frame *parent, uint32_t node)
{
    const xmlChar *name = t->nodes[node].name;
    for (uint8_t i = 0; i < parent->n_names; i++)
        if (parent->names[i].name == name || name_eq((const char *)parent->names[i].name, (const char *)name))
            return ++parent->names[i].count;
    if (parent->n_names < NAME_SLOTS) {
        parent->names[parent->n_names].name = name;
        parent->names[parent->n_names].count = 1;
        parent->n_names++;
        return 1;
    }
    uint32_t idx = 1; /* many distinct names: count the siblings */
    for (uint32_t s = t->nodes[node].prev; s; s = t->nodes[s].prev)
        if (t->nodes[s].type == PS_TN_ELEMENT && name_eq((const char *)t->nodes[s].name, (const char *)name))
            idx++;
    return idx;
}

/* Set the path buffer to the parent's path + "/name[idx]". */
static int path_enter(builder *b, const frame *parent, uint32_t node, uint32_t idx)
{
    char num[16];
    int n = 0;
    char tmp[12];
    do {
        tmp[n++] = (char)('0' + idx % 10);
        idx /= 10;
    } while (idx && n < 11);
    num[0] = '[';
    for (int i = 0; i < n; i++)
        num[1 + i] = tmp[n - 1 - i];
    num[n + 1] = ']';
    b->path.len = parent->path_len;
    const xmlChar *name = b->t->nodes[node].name;
    size_t nl = strlen((const char *)name);
    if (ps_buf_reserve(&b->path, nl + (size_t)n + 4))
        return -1;
    char *d = b->path.data + b->path.len;
    *d++ = '/';
    memcpy(d, name, nl);
    d += nl;
    memcpy(d, num, (size_t)n + 2);
    size_t seg = 1 + nl + (size_t)n + 2;
    uint64_t h = parent->path_hash;
    for (size_t i = 0; i < seg; i++) {
        h ^= (unsigned char)b->path.data[b->path.len + i];
        h *= 1099511628211ULL;
    }
    b->path_hash = h;
    b->path.len += seg;
    b->path.data[b->path.len] = '\0';
    return 0;
}

/* Order-free: the sum of the tags' hashes (a repeated tag counts once). */
uint64_t ps_block_tags_key(const char *const *tags)
{
    uint64_t key = 0;
    if (!tags)
        tags = ps_default_block_tags;
    for (size_t i = 0; tags[i]; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(tags[i], tags[j]) == 0;
        if (!seen)
            key += ps_hash64(tags[i], strlen(tags[i]));
    }
    return key;
}

int ps_page_has_block_tags(const ps_page *page, const char *const *tags)
{
    return page && page->block_tags_key == ps_block_tags_key(tags);
}

/* b->block_rows and b->block_tags_outside from b->block_tags. */
static void index_block_tags(builder *b)
{
    memset(b->block_rows, 0, sizeof b->block_rows);
    b->block_tags_outside = 0;
    for (const char *const *t = b->block_tags; *t; t++) {
        unsigned kind;
        int row = ps_tag_lookup(*t, &kind);
        if (row >= 0)
            b->block_rows[row / 64] |= UINT64_C(1) << (row % 64);
        else
            b->block_tags_outside = 1;
    }
}

/* Is the element of name @p name, row @p row of the tag table
 * (ps_tag_lookup), a block tag?  A bit test for a name the table holds (a
 * loop of 23 name comparisons per element before, with the shipped model's
 * tags); the rest by name, when a block tag is outside the table. */
static int is_block_tag(const builder *b, int row, const char *name)
{
    if (row >= 0)
        return (b->block_rows[row / 64] >> (row % 64)) & 1;
    if (!b->block_tags_outside)
        return 0;
    for (const char *const *t = b->block_tags; *t; t++)
        if (name_eq(*t, name))
            return 1;
    return 0;
}

/* An element opens a block when its tag is a block tag, except inside a
 * data table (its cells and what they hold are the table's block). */
static int opens_block(const builder *b, int row, const char *name, const marks *parent)
{
    return !parent->in_data_table && is_block_tag(b, row, name);
}

/* DOM path with 1-based indices among same-name element siblings. */
static int append_path(ps_buf *out, const ps_tree *t, uint32_t node)
{
    uint32_t chain[512];
    size_t n = 0;
    for (uint32_t p = node; t->nodes[p].type == PS_TN_ELEMENT && n < 512; p = t->nodes[p].parent)
        chain[n++] = p;
    for (size_t k = n; k-- > 0;) {
        const ps_tnode *e = &t->nodes[chain[k]];
        if (k != n - 1 && ps_buf_putc(out, '/'))
            return -1;
        if (ps_buf_append(out, e->name, strlen((const char *)e->name)))
            return -1;
        if (k == n - 1 || strcmp((const char *)e->name, "body") == 0)
            continue; /* the root element and body are unique: no index */
        unsigned idx = 1;
        for (uint32_t s = e->prev; s; s = t->nodes[s].prev)
            if (t->nodes[s].type == PS_TN_ELEMENT && strcmp((const char *)t->nodes[s].name, (const char *)e->name) == 0)
                idx++;
        if (ps_buf_printf(out, "[%u]", idx))
            return -1;
    }
    return ps_buf_putc(out, '\0');
}

static int append_attr(ps_buf *out, const ps_tree *t, uint32_t node, const char *attr, uint32_t *off)
{
    *off = (uint32_t)out->len;
    int lead, trail;
    const ps_tnode *e = &t->nodes[node];
    for (uint32_t k = 0; k < e->len; k++) {
        const ps_tattr *a = &t->attrs[e->off + k];
        if (!name_eq((const char *)a->name, attr))
            continue;
        if (ps_buf_reserve(out, a->len)) /* else dropped as if whitespace */
            return -1;
        ps_collapse_ws(out, t->text + a->off, a->len, &lead, &trail);
        break;
    }
    return ps_buf_putc(out, '\0');
}

/* The block's path; a very deep one (broken pages nest thousands of
 * elements) is stored as '#' + the hash of the whole path + its last part,
 * so that memory stays linear and the id stays unique and stable. */
#define PATH_MAX_STORED 512
static int append_block_path(builder *b)
{
    if (b->path.len <= PATH_MAX_STORED)
        return ps_buf_append(&b->strs, b->path.data, b->path.len);
    const char *tail = b->path.data + b->path.len - 200;
    while (*tail != '/')
        tail++;
    return ps_buf_printf(&b->strs, "#%016llx...", (unsigned long long)b->path_hash) ||
           ps_buf_append(&b->strs, tail, (size_t)(b->path.data + b->path.len - tail));
}

/* @p dom_depth: the element's depth in the DOM (html = 0), known to the
 * walk from its stack (walking to the root for every block made deeply
 * nested pages quadratic); @p m: the marks around it. */
static int new_block(builder *b, uint32_t node, int32_t parent, int32_t dom_depth, const marks *m)
{
    ps_page *pg = b->pg;
    size_t i = pg->n_blocks;
    if (i >= PS_PAGE_MAX_BLOCKS)
        return over_bound(b, PS_ERR_TOO_LARGE, "more than " PS_STR(PS_PAGE_MAX_BLOCKS) " blocks");
    if (i >= b->cap_blocks) {
        size_t nc = b->cap_blocks ? b->cap_blocks * 2 : 32;
        ps_block *nb = realloc(pg->blocks, nc * sizeof *nb);
        if (!nb)
            return -1;
        pg->blocks = nb;
        uint32_t *nn = realloc(pg->block_nodes, nc * sizeof *nn);
        if (!nn)
            return -1;
        pg->block_nodes = nn;
        uint32_t *a = realloc(b->block_path_off, nc * sizeof *a);
        if (!a)
            return -1;
        b->block_path_off = a;
        a = realloc(b->block_id_off, nc * sizeof *a);
        if (!a)
            return -1;
        b->block_id_off = a;
        a = realloc(b->block_class_off, nc * sizeof *a);
        if (!a)
            return -1;
        b->block_class_off = a;
        uint32_t *e = realloc(pg->block_end, nc * sizeof *e);
        if (!e)
            return -1;
        pg->block_end = e;
        b->cap_blocks = nc;
    }
    ps_block *bl = &pg->blocks[i];
    memset(bl, 0, sizeof *bl);
    bl->tag = (const char *)b->t->nodes[node].name;
    bl->parent = parent;
    memcpy(bl->cls, m->cls, sizeof bl->cls);
    bl->words = m->words;
    bl->section = m->section;
    bl->in_figure = m->in_figure;
    bl->depth = parent < 0 ? 0 : pg->blocks[parent].depth + 1;
    bl->dom_depth = dom_depth;
    if (parent >= 0)
        pg->blocks[parent].n_children++;
    pg->block_nodes[i] = node;
    b->block_path_off[i] = (uint32_t)b->strs.len;
    if (append_block_path(b) || ps_buf_putc(&b->strs, '\0') ||
        append_attr(&b->strs, b->t, node, "id", &b->block_id_off[i]) ||
        append_attr(&b->strs, b->t, node, "class", &b->block_class_off[i]))
        return -1;
    pg->n_blocks++;
    return (int)i;
}

static int new_leaf(builder *b, uint32_t node, const frame *f)
{
    ps_page *pg = b->pg;
    if (pg->n_leaves >= PS_PAGE_MAX_LEAVES)
        return over_bound(b, PS_ERR_TOO_LARGE, "more than " PS_STR(PS_PAGE_MAX_LEAVES) " leaves");
    if (pg->n_leaves >= b->cap_leaves) {
        size_t nc = b->cap_leaves ? b->cap_leaves * 2 : 128;
        ps_leaf *nl = realloc(pg->leaves, nc * sizeof *nl);
        if (!nl)
            return -1;
        pg->leaves = nl;
        uint32_t *nn = realloc(pg->leaf_nodes, nc * sizeof *nn);
        if (!nn)
            return -1;
        pg->leaf_nodes = nn;
        b->cap_leaves = nc;
    }
    size_t i = pg->n_leaves++;
    ps_leaf *l = &pg->leaves[i];
    memset(l, 0, sizeof *l);
    const xmlChar *name = b->t->nodes[node].name;
    l->tag = (const char *)name;
    l->block = f->block;
    l->in_link = f->in_link;
    l->is_anchor = name[0] == 'a' && name[1] == '\0';
    l->heading = f->heading;
    pg->leaf_nodes[i] = node;
    pg->blocks[f->block].n_leaves++;
    return (int)i;
}

static int add_text(builder *b, frame *stack, size_t top, uint32_t text)
{
    const char *s = ps_tree_text(b->t, text);
    size_t n = b->t->nodes[text].len;
    size_t before = b->runtext.len;
    int lead, trail;
    /* the room first: ps_collapse_ws returns 0 both for whitespace only and
     * when it could not get room, and the text was dropped as whitespace
     * (a page came back cut with status ok when memory ran short) */
    if (n && ps_buf_reserve(&b->runtext, n))
        return -1;
    size_t got = ps_collapse_ws(&b->runtext, s, n, &lead, &trail);
    if (got == 0) {
        if (n && b->runtext.len == before)
            b->pending_space = 1;
        return b->runtext.len == before ? 0 : -1;
    }
    frame *of = &stack[stack[top].owner];
    if (of->leaf < 0) {
        int li = new_leaf(b, of->node, of);
        if (li < 0)
            return -1;
        of->leaf = li;
        b->pg->leaves[li].after_image = (uint8_t)b->pending_image;
    }
    b->pending_image = 0;
    ps_page *pg = b->pg;
    if (pg->n_runs >= b->cap_runs) {
        size_t nc = b->cap_runs ? b->cap_runs * 2 : 256;
        ps_run *nr = realloc(pg->runs, nc * sizeof *nr);
        if (!nr)
            return -1;
        pg->runs = nr;
        b->cap_runs = nc;
    }
    ps_run *r = &pg->runs[pg->n_runs++];
    r->leaf = (uint32_t)of->leaf;
    r->off = (uint32_t)before;
    r->len = (uint32_t)got;
    r->brk = (uint8_t)b->pending_break;
    r->space_before = (uint8_t)(lead || b->pending_space);
    r->space_after = (uint8_t)trail;
    b->pending_break = 0;
    b->pending_space = trail;
    return 0;
}

/* Note a node to remove after the walk (removing it now would cut the walk's
 * path through the tree). */
static int remember_removal(builder *b, uint32_t node)
{
    if (b->n_remove >= b->cap_remove) {
        size_t nc = b->cap_remove ? b->cap_remove * 2 : 64;
        uint32_t *nr = realloc(b->to_remove, nc * sizeof *nr);
        if (!nr)
            return -1;
        b->to_remove = nr;
        b->cap_remove = nc;
    }
    b->to_remove[b->n_remove++] = node;
    return 0;
}

/* An <a> that holds another <a> is a link left open: libxml2 nests the
 * rest of the page under it (browsers would close it), so its text is not
 * taken for link text (CleanEval has such pages: every block at link density
 * 1).  The search stops at the first <a>; an <a> without one inside is
 * searched to its end, and such subtrees are disjoint, so a page costs
 * O(nodes) whatever it holds. */
static int holds_anchor(const ps_tree *t, uint32_t a)
{
    uint32_t n = t->nodes[a].first;
    while (n) {
        const ps_tnode *e = &t->nodes[n];
        if (e->type == PS_TN_ELEMENT) {
            if (e->name[0] == 'a' && e->name[1] == '\0')
                return 1;
            if (e->first) {
                n = e->first;
                continue;
            }
        }
        while (n && !t->nodes[n].next) {
            n = t->nodes[n].parent;
            if (n == a)
                return 0;
        }
        if (n)
            n = t->nodes[n].next;
    }
    return 0;
}

/* display:none or visibility:hidden in a style attribute (any case and
 * spacing, as CSS allows). */
static int style_hides(const char *v)
{
    for (const char *p = v; (p = strpbrk(p, "dDvV")) != NULL; p++) {
        int disp = ps_ascii_ncasecmp(p, "display", 7) == 0;
        if (!disp && ps_ascii_ncasecmp(p, "visibility", 10) != 0)
            continue;
        const char *q = p + (disp ? 7 : 10);
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (*q != ':')
            continue;
        q++;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (disp ? ps_ascii_ncasecmp(q, "none", 4) == 0 : ps_ascii_ncasecmp(q, "hidden", 6) == 0) {
            char c = q[disp ? 4 : 6];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
                return 1;
        }
    }
    return 0;
}

static int value_is(const char *v, const char *word)
{
    while (*v == ' ' || *v == '\t' || *v == '\n')
        v++;
    size_t n = strlen(word);
    if (ps_ascii_ncasecmp(v, word, n) != 0)
        return 0;
    for (v += n; *v == ' ' || *v == '\t' || *v == '\n'; v++)
        ;
    return *v == '\0';
}

/* How an element is hidden (read_attrs, element_marks). */
enum {
    HID_NONE,   /* shown, or a closed tab, accordion or FAQ panel (role tabpanel, or
                   its class/id words): content a person opens with one click */
    HID_HIDDEN, /* left out, and walked again when the hidden text outweighs the
                   shown (a page whose content a script reveals) */
    HID_CLOSED  /* a dialog by its role (dialog, alertdialog, aria-modal), shown or
                   not; a hidden element with modal / lightbox / popup words; a
                   <dialog> without open; or a hidden
                   schema.org copy (itemscope: the article again, for machines):
                   never walked, not counted as hidden text */
};

/* A class token that hides its element (CSS frameworks' utility classes:
 * Bootstrap's d-none, visually-hidden; desktop-hidden copies of
 * responsive layouts; consent tools' hidden banners). */
static int class_hides(const char *v)
{
    /* with their lengths: a token is compared only with words of its length
     * (a strlen per word and token was 0.2 % of a page's instructions) */
    static const struct {
        const char *w;
        size_t n;
    } HIDING[] = {{"cmplz-hidden", 12}, {"d-none", 6},          {"hidden", 6},
                  {"hidden-desktop", 14}, {"hidden-lg", 9},      {"hide", 4},
                  {"hide-on-desktop", 15}, {"is-hidden", 9},     {"screen-reader-text", 18},
                  {"sr-only", 7},         {"u-hidden", 8},       {"visually-hidden", 15},
                  {"visuallyhidden", 14}};
    for (const char *p = v; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f')
            p++;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r' && *e != '\f')
            e++;
        size_t n = (size_t)(e - p);
        for (size_t i = 0; n >= 4 && n <= 18 && i < sizeof HIDING / sizeof *HIDING; i++)
            if (HIDING[i].n == n && ps_ascii_ncasecmp(p, HIDING[i].w, n) == 0)
                return 1;
        p = e;
    }
    return 0;
}

/* The element's attributes: how it is hidden (HID_*), its class/id word
 * groups (*words) and the section its role or itemprop makes it. */
static int read_attrs(const ps_tree *t, uint32_t node, unsigned *words, uint8_t *section)
{
    int hidden = 0, dialog = 0, reveal = 0, machine = 0;
    const ps_tnode *e = &t->nodes[node];
    for (uint32_t k = 0; k < e->len; k++) {
        const ps_tattr *a = &t->attrs[e->off + k];
        const char *n = (const char *)a->name;
        const char *v = t->text + a->off;
        switch (n[0]) {
        case 'c':
            if (strcmp(n, "class") == 0) {
                *words |= ps_class_words(v, a->len);
                hidden |= class_hides(v);
            }
            break;
        case 'i':
            if (n[1] == 'd' && n[2] == '\0')
                *words |= ps_class_words(v, a->len);
            else if (strcmp(n, "itemprop") == 0 && value_is(v, "articleBody"))
                *section = PS_SECTION_MAIN;
            else
                machine |= strcmp(n, "itemscope") == 0;
            break;
        case 'h':
            hidden |= strcmp(n, "hidden") == 0;
            break;
        case 'a':
            hidden |= strcmp(n, "aria-hidden") == 0 && value_is(v, "true");
            dialog |= strcmp(n, "aria-modal") == 0 && value_is(v, "true");
            break;
        case 's':
            hidden |= strcmp(n, "style") == 0 && style_hides(v);
            break;
        case 'r':
            if (strcmp(n, "role") != 0)
                break;
            if (value_is(v, "main") || value_is(v, "article"))
                *section = PS_SECTION_MAIN;
            else if (value_is(v, "navigation") || value_is(v, "complementary") || value_is(v, "banner") ||
                     value_is(v, "contentinfo") || value_is(v, "search"))
                *section = PS_SECTION_ASIDE;
            dialog |= value_is(v, "dialog") || value_is(v, "alertdialog");
            reveal |= value_is(v, "tabpanel");
            break;
        default:
            break;
        }
    }
    /* a dialog by its role is a layer over the page (terms, cart, consent,
     * quick view), open or not: a script shows it on a click, and pages ship
     * several at once (allbirds' product page: 15 000 words of policies in
     * aria-modal layers without a hiding attribute) */
    if (dialog)
        return HID_CLOSED;
    if (!hidden)
        return HID_NONE;
    if (machine || (*words & PS_CW_DIALOG))
        return HID_CLOSED;
    return reveal || (*words & PS_CW_REVEAL) ? HID_NONE : HID_HIDDEN;
}

/* A data table: a <table> with a header (a <thead>, or <th> cells in its
 * first row).  Its cells are read together, as one block: a spec sheet, a
 * price list or a timetable is kept or dropped whole, not cell by cell
 * (layout tables, the older web's page grids, have no header row). */
static int data_table(const ps_tree *t, uint32_t table)
{
    for (uint32_t c = t->nodes[table].first; c; c = t->nodes[c].next) {
        if (t->nodes[c].type != PS_TN_ELEMENT)
            continue;
        const char *n = (const char *)t->nodes[c].name;
        if (strcmp(n, "thead") == 0)
            return 1;
        uint32_t row = c;
        if (strcmp(n, "tbody") == 0) {
            for (row = t->nodes[c].first; row && t->nodes[row].type != PS_TN_ELEMENT; row = t->nodes[row].next)
                ;
            if (!row)
                continue;
        }
        if (strcmp((const char *)t->nodes[row].name, "tr") != 0)
            continue;
        for (uint32_t cell = t->nodes[row].first; cell; cell = t->nodes[cell].next)
            if (t->nodes[cell].type == PS_TN_ELEMENT && strcmp((const char *)t->nodes[cell].name, "th") == 0)
                return 1;
        return 0; /* the first row has no header cell */
    }
    return 0;
}

/* An element's marks from its parent's (NULL for the root), its tag kind
 * and attributes; returns how it is hidden from view (HID_*). */
static int element_marks(const ps_tree *t, uint32_t node, unsigned kind, const marks *parent, marks *m)
{
    unsigned words = 0;
    uint8_t section = 0;
    const ps_tnode *e = &t->nodes[node];
    int hidden = e->len ? read_attrs(t, node, &words, &section) : HID_NONE;
    size_t vl;
    if (e->name[0] == 'd' && strcmp((const char *)e->name, "dialog") == 0 &&
        !ps_tree_attr(t, node, ps_tree_name(t, "open"), &vl))
        hidden = HID_CLOSED;
    if (kind & PS_TAG_SEC_MAIN)
        section = PS_SECTION_MAIN;
    else if (kind & PS_TAG_SEC_ASIDE)
        section = PS_SECTION_ASIDE;
    static const unsigned group[4] = {PS_CW_NOISE, PS_CW_CONTENT, PS_CW_COMMENT, PS_CW_CAPTION};
    for (int g = 0; g < 4; g++)
        m->cls[g] = (parent ? 0.5f * parent->cls[g] : 0.0f) + ((words & group[g]) ? 1.0f : 0.0f);
    m->words = (uint16_t)words;
    m->section = section ? section : parent ? parent->section : PS_SECTION_NONE;
    m->in_figure = (kind & PS_TAG_FIGURE) || (parent && parent->in_figure);
    m->in_data_table = (parent && parent->in_data_table) ||
                       (e->name[0] == 't' && strcmp((const char *)e->name, "table") == 0 && data_table(t, node));
    return hidden;
}

/* Non-space text bytes under @p node, scripts and the like not counted. */
static size_t text_bytes(const ps_tree *t, uint32_t node)
{
    size_t n = 0;
    uint32_t c = t->nodes[node].first;
    while (c) {
        const ps_tnode *e = &t->nodes[c];
        if (e->type == PS_TN_TEXT) {
            for (const unsigned char *s = (const unsigned char *)t->text + e->off; *s; s++)
                n += *s > ' ';
        } else if (e->type == PS_TN_ELEMENT && e->first &&
                   (ps_tag_kind((const char *)e->name) & (PS_TAG_REMOVE | PS_TAG_VOID)) != PS_TAG_REMOVE) {
            c = e->first; /* a void element's children are what follows it (hoist_void_children) */
            continue;
        }
        while (c && !t->nodes[c].next && c != node)
            c = t->nodes[c].parent;
        if (!c || c == node)
            break;
        c = t->nodes[c].next;
    }
    return n;
}

/* A void element of HTML holds nothing, but libxml2 2.9.14 does not know
 * that an <embed>, <source>, <track>, <wbr>, <keygen> or <bgsound> without an
 * end tag ends at once: it nests everything after it, up to its parent's end,
 * inside it.  Removing an embed then removed the rest of the article (issue
 * 32).  Its children become its following siblings, in order, as a browser
 * builds them.  O(children): each node is moved at most once, since the walk
 * reaches a void element after its parent and the moved nodes' new parent is
 * that parent. */
static void hoist_void_children(ps_tree *t, uint32_t v)
{
    ps_tnode *vn = &t->nodes[v];
    uint32_t first = vn->first, last = vn->last;
    for (uint32_t c = first; c; c = t->nodes[c].next)
        t->nodes[c].parent = vn->parent;
    t->nodes[last].next = vn->next;
    if (vn->next)
        t->nodes[vn->next].prev = last;
    else
        t->nodes[vn->parent].last = last;
    t->nodes[first].prev = v;
    vn->next = first;
    vn->first = vn->last = 0;
}

static int walk(builder *b, uint32_t root)
{
    ps_page *pg = b->pg;
    ps_tree *t = b->t;
    ps_tnode *nodes = t->nodes; /* the walk adds no node: the array stays */
    size_t cap = 64, top = 0;
    frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return -1;
    if (append_path(&b->path, t, root))
        goto fail;
    b->path.len--; /* append_path ends with a NUL separator */
    b->path_hash = ps_hash64(b->path.data, b->path.len);
    marks rootm;
    element_marks(t, root, ps_tag_kind((const char *)nodes[root].name), NULL, &rootm);
    int32_t root_depth = 0;
    for (uint32_t p = nodes[root].parent; nodes[p].type == PS_TN_ELEMENT; p = nodes[p].parent)
        root_depth++;
    int rootblock = new_block(b, root, -1, root_depth, &rootm);
    if (rootblock < 0)
        goto fail;
    memset(&stack[0], 0, sizeof stack[0]);
    stack[0].m = rootm;
    stack[0].node = root;
    stack[0].block = rootblock;
    stack[0].leaf = -1;
    stack[0].path_len = (uint32_t)b->path.len;
    stack[0].path_hash = b->path_hash;
    uint32_t cur = nodes[root].first;
    while (cur || top > 0) {
        if (!cur) { /* leave the element on top */
            frame *f = &stack[top];
            if (f->kind & PS_TAG_BREAK)
                b->pending_break = 1;
            if (f->block != stack[top - 1].block) {
                pg->block_end[f->block] = (uint32_t)pg->n_blocks;
                b->pending_break = 1;
            }
            cur = nodes[f->node].next;
            top--;
            continue;
        }
        if (b->deadline > 0 && (++b->steps & 4095) == 0 && ps_now() > b->deadline) {
            over_bound(b, PS_ERR_TIMEOUT, "the page took longer than its time limit");
            goto fail;
        }
        uint32_t next = nodes[cur].next;
        uint32_t type = nodes[cur].type;
        if (type == PS_TN_TEXT || type == PS_TN_CDATA) {
            if (add_text(b, stack, top, cur))
                goto fail;
            cur = next;
            continue;
        }
        if (type != PS_TN_ELEMENT) {
            if (type == PS_TN_COMMENT || type == PS_TN_PI) {
                if (remember_removal(b, cur))
                    goto fail;
            }
            cur = next;
            continue;
        }
        const char *name = (const char *)nodes[cur].name;
        unsigned kind;
        int row = ps_tag_lookup(name, &kind);
        if ((kind & PS_TAG_VOID) && nodes[cur].first) {
            hoist_void_children(t, cur);
            next = nodes[cur].next;
        }
        uint32_t idx = sibling_index(t, &stack[top], cur);
        if ((kind & PS_TAG_REMOVE) && !unclosed_noscript(t, cur)) {
            if (remember_removal(b, cur))
                goto fail;
            cur = next;
            continue;
        }
        frame *parent = &stack[top];
        marks m;
        int hid = element_marks(t, cur, kind, &parent->m, &m);
        if (hid == HID_CLOSED || (hid == HID_HIDDEN && !b->keep_hidden)) {
            if (hid == HID_HIDDEN)
                b->hidden_bytes += text_bytes(t, cur);
            if (remember_removal(b, cur))
                goto fail;
            cur = next;
            continue;
        }
        if (kind & PS_TAG_BREAK)
            b->pending_break = 1;
        if (kind & PS_TAG_ANCHOR)
            pg->blocks[parent->block].own.links++;
        if (kind & PS_TAG_IMAGE) {
            pg->blocks[parent->block].own.images++;
            b->pending_image = 1;
        }
        if (!nodes[cur].first) { /* empty element: nothing to enter */
            if ((name[0] == 'b' || name[0] == 'h') && name[1] == 'r' && name[2] == '\0')
                b->pending_break = 1;
            else if (opens_block(b, row, name, &parent->m)) {
                if (path_enter(b, parent, cur, idx) ||
                    new_block(b, cur, parent->block, root_depth + (int32_t)top + 1, &m) < 0)
                    goto fail;
                pg->block_end[pg->n_blocks - 1] = (uint32_t)pg->n_blocks;
            }
            cur = next;
            continue;
        }
        if (top + 1 >= cap) {
            if (root_depth + top + 1 > PS_PAGE_MAX_DEPTH) {
                over_bound(b, PS_ERR_TOO_LARGE,
                           "elements nested more than " PS_STR(PS_PAGE_MAX_DEPTH) " deep");
                goto fail;
            }
            cap *= 2;
            frame *ns = realloc(stack, cap * sizeof *ns);
            if (!ns)
                goto fail;
            stack = ns;
            parent = &stack[top];
        }
        if (path_enter(b, parent, cur, idx))
            goto fail;
        frame *f = &stack[++top];
        f->node = cur;
        f->path_len = (uint32_t)b->path.len;
        f->path_hash = b->path_hash;
        f->n_names = 0;
        f->block = parent->block;
        f->leaf = -1;
        f->in_link = parent->in_link || ((kind & PS_TAG_ANCHOR) && !holds_anchor(t, cur));
        f->heading = parent->heading;
        f->kind = (uint16_t)kind;
        f->m = m;
        if (kind & PS_TAG_HEADING)
            f->heading = (uint8_t)(name[1] - '0');
        f->owner = (kind & PS_TAG_TRANSPARENT) ? parent->owner : (int32_t)top;
        if (opens_block(b, row, name, &parent->m)) {
            int bi = new_block(b, cur, parent->block, root_depth + (int32_t)top, &m);
            if (bi < 0)
                goto fail;
            f->block = bi;
            f->owner = (int32_t)top;
        }
        cur = nodes[cur].first;
    }
    pg->block_end[rootblock] = (uint32_t)pg->n_blocks;
    free(stack);
    return 0;
fail:
    free(stack);
    return -1;
}

/* After the walk: leaf texts from their runs, counts, string pointers. */
static int finish_tree(builder *b)
{
    ps_page *pg = b->pg;
    /* Leaf text = its runs joined, a space where white space separated them. */
    size_t *need = calloc(pg->n_leaves + 1, sizeof *need);
    if (!need)
        return -1;
    for (size_t i = 0; i < pg->n_runs; i++)
        need[pg->runs[i].leaf] += pg->runs[i].len + 1;
    size_t total = 0;
    for (size_t i = 0; i < pg->n_leaves; i++) {
        size_t n = need[i];
        need[i] = total;
        total += n + 1;
    }
    pg->leaftext = malloc(total + 1);
    uint32_t *fill = calloc(pg->n_leaves + 1, sizeof *fill);
    uint8_t *last_trail = calloc(pg->n_leaves + 1, 1);
    if (!pg->leaftext || !fill || !last_trail) {
        free(need);
        free(fill);
        free(last_trail);
        return -1;
    }
    for (size_t i = 0; i < pg->n_runs; i++) {
        const ps_run *r = &pg->runs[i];
        char *dst = pg->leaftext + need[r->leaf];
        uint32_t *at = &fill[r->leaf];
        if (*at && (r->space_before || last_trail[r->leaf] || r->brk))
            dst[(*at)++] = ' ';
        memcpy(dst + *at, b->runtext.data + r->off, r->len);
        *at += r->len;
        last_trail[r->leaf] = r->space_after;
    }
    for (size_t i = 0; i < pg->n_leaves; i++) {
        ps_leaf *l = &pg->leaves[i];
        char *t = pg->leaftext + need[i];
        t[fill[i]] = '\0';
        l->text = t;
        l->bytes = fill[i];
        l->chars = (uint32_t)ps_utf8_chars(t, fill[i]);
        ps_counts *c = &pg->blocks[l->block].own;
        c->text_chars += l->chars;
        if (l->in_link)
            c->link_chars += l->chars;
    }
    free(need);
    free(fill);
    free(last_trail);
    pg->runtext = ps_buf_take(&b->runtext, NULL);
    pg->strs = ps_buf_take(&b->strs, NULL);
    memset(&pg->totals, 0, sizeof pg->totals);
    for (size_t i = 0; i < pg->n_blocks; i++) {
        ps_block *bl = &pg->blocks[i];
        bl->path = pg->strs + b->block_path_off[i];
        bl->id_attr = pg->strs + b->block_id_off[i];
        bl->class_attr = pg->strs + b->block_class_off[i];
        bl->shape = ps_block_shape(bl);
        pg->totals.text_chars += bl->own.text_chars;
        pg->totals.link_chars += bl->own.link_chars;
        pg->totals.links += bl->own.links;
        pg->totals.images += bl->own.images;
    }
    return 0;
}

static char *title_of(const ps_tree *t)
{
    uint32_t cur = ps_tree_root(t);
    while (cur) {
        const ps_tnode *n = &t->nodes[cur];
        if (n->type == PS_TN_ELEMENT && strcmp((const char *)n->name, "title") == 0) {
            ps_buf b = {0}; /* its text and CDATA, as xmlNodeGetContent */
            if (ps_tree_content(t, cur, &b)) {
                ps_buf_free(&b);
                return NULL;
            }
            ps_buf c = {0};
            int lead, trail;
            if (b.len && ps_buf_reserve(&c, b.len)) { /* else dropped as if whitespace */
                ps_buf_free(&b);
                return NULL;
            }
            if (b.len)
                ps_collapse_ws(&c, b.data, b.len, &lead, &trail);
            ps_buf_free(&b);
            char *s = ps_buf_take(&c, NULL);
            return s ? s : strdup("");
        }
        if (n->type == PS_TN_ELEMENT && strcmp((const char *)n->name, "body") == 0) {
            cur = n->next; /* the title is in head; do not search the body */
            continue;
        }
        if (n->first && n->type == PS_TN_ELEMENT) {
            cur = n->first;
            continue;
        }
        while (cur && !t->nodes[cur].next)
            cur = t->nodes[cur].parent; /* 0 at the document: done */
        if (cur)
            cur = t->nodes[cur].next;
    }
    return strdup("");
}

static int is_named(const ps_tree *t, uint32_t i, const char *name)
{
    return t->nodes[i].type == PS_TN_ELEMENT && strcmp((const char *)t->nodes[i].name, name) == 0;
}

/* libxml2 puts what follows </body> (and stray content between head and
 * body) beside the body, under html; browsers render it as body content, and
 * so do we: move it into the body, in order.  (Texts moved next to texts
 * merge, as libxml2's calls that did this on the DOM merged them.) */
static int adopt_strays(ps_tree *t, uint32_t root, uint32_t body)
{
    /* A mangled <html ...> start tag can make libxml2 start a second root
     * element: its content belongs to the page too. */
    for (uint32_t extra = t->nodes[root].next, nx; extra; extra = nx) {
        nx = t->nodes[extra].next;
        if (t->nodes[extra].type != PS_TN_ELEMENT)
            continue;
        for (uint32_t c = t->nodes[extra].first, cn; c; c = cn) {
            cn = t->nodes[c].next;
            if (ps_tree_add_child(t, root, c))
                return -1;
        }
        ps_tree_unlink(t, extra);
    }
    uint32_t first = t->nodes[body].first;
    for (uint32_t c = t->nodes[root].first, next; c; c = next) {
        next = t->nodes[c].next;
        uint32_t type = t->nodes[c].type;
        if (c == body || is_named(t, c, "head"))
            continue;
        if (type != PS_TN_ELEMENT && type != PS_TN_TEXT && type != PS_TN_CDATA)
            continue;
        int before = 1;
        for (uint32_t s = t->nodes[body].next; s; s = t->nodes[s].next)
            if (s == c)
                before = 0;
        ps_tree_unlink(t, c);
        if (is_named(t, c, "body")) {
            /* a second body: its children join the first */
            for (uint32_t k = t->nodes[c].first, kn; k; k = kn) {
                kn = t->nodes[k].next;
                if (ps_tree_add_child(t, body, k))
                    return -1;
            }
        } else if (before && first) {
            if (ps_tree_add_prev_sibling(t, first, c))
                return -1;
        } else if (ps_tree_add_child(t, body, c)) {
            return -1;
        }
    }
    return 0;
}

/* Content that libxml2 left inside the head (tags of the body written
 * before <body>, or no body at all) belongs to the body: move every element
 * of the head that is not a head-only one to the front of the body, in
 * order.  Without a body, make one first.  The body, 0 when out of memory. */
static uint32_t drain_head(ps_tree *t, uint32_t root, uint32_t body)
{
    static const char *const head_only[] = {"title", "meta", "link", "style", "script", "base",
                                            "noscript", "template", NULL};
    if (!body && !(body = ps_tree_new_element(t, root, "body")))
        return 0;
    uint32_t first = t->nodes[body].first;
    for (uint32_t c = t->nodes[root].first; c; c = t->nodes[c].next) {
        if (!is_named(t, c, "head"))
            continue;
        for (uint32_t h = t->nodes[c].first, hn; h; h = hn) {
            hn = t->nodes[h].next;
            int keep = t->nodes[h].type != PS_TN_ELEMENT;
            for (size_t i = 0; head_only[i] && !keep; i++)
                keep = strcmp((const char *)t->nodes[h].name, head_only[i]) == 0;
            if (keep)
                continue;
            if (first)
                ps_tree_insert_before(t, first, h); /* an element: nothing merges */
            else
                ps_tree_append(t, body, h);
        }
    }
    return body;
}

static uint32_t find_body(const ps_tree *t, uint32_t root)
{
    if (!root)
        return 0;
    for (uint32_t c = t->nodes[root].first; c; c = t->nodes[c].next)
        if (is_named(t, c, "body"))
            return c;
    return 0;
}

/* Whether libxml2 may read the markup where it is, with no UTF-8
 * copy (ps_tree_parse_utf8): when it is the decoded text (valid UTF-8, no
 * NUL: extract/decode.c) and a NUL follows it.  The decoder's own copy has
 * one; the caller's bytes, when the decoder took them as they are
 * (@p direct), only when the page owns them (@p owned: ps_page_parse_taking)
 * and their allocation has room for one after their @p len bytes, written
 * here.  A repaired copy (@p fixed: tag names mended, which may split a
 * character) is read as before. */
static int in_place_utf8(const char *direct, void **owned, size_t len, const char *fixed)
{
    if (fixed)
        return 0;
    if (!direct)
        return 1;
    if (!owned || !*owned || malloc_usable_size(*owned) <= len)
        return 0;
    ((char *)*owned)[len] = '\0';
    return 1;
}

/* ps_page_parse; when @p owned is not NULL, *owned (the caller's copy of
 * @p bytes, malloc'd) is freed as soon as the markup is parsed, before the
 * block tree is built, and set to NULL. */
static ps_page *parse(const void *bytes, size_t len, void **owned, const ps_page_options *opt, ps_error *err)
{
    static const ps_page_options defaults = {0};
    if (!opt)
        opt = &defaults;
    size_t max = opt->max_bytes ? opt->max_bytes : PS_DEFAULT_MAX_BYTES;
    if (len > max) {
        ps_set_error(err, PS_ERR_TOO_LARGE, "page of %zu bytes is larger than the limit of %zu bytes", len, max);
        return NULL;
    }
    if (looks_binary(bytes, len)) {
        ps_set_error(err, PS_ERR_FORMAT, "binary data, not a web page");
        return NULL;
    }
    ps_xml_failed_reset();
    ps_page *pg = calloc(1, sizeof *pg);
    if (!pg) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pg->url = strdup(opt->url ? opt->url : "");
    const char *direct = NULL;
    size_t direct_len = 0;
    if (!pg->url || ps_decode_ex(bytes, len, opt->charset, &pg->dec, &direct, &direct_len, err)) {
        ps_page_free(pg);
        return NULL;
    }
    const char *text = direct ? direct : pg->dec.utf8;
    size_t text_len = direct ? direct_len : pg->dec.len;
    size_t skip = junk_prefix(text, text_len);
    const char *html = text + skip;
    size_t hlen = text_len - skip;
    char *fixed = close_unclosed_title(html, hlen);
    if (fixed) {
        html = fixed;
        hlen = strlen(fixed);
    }
    /* Before libxml2 sees the markup: refuse what would make its parser
     * quadratic (extract/page_guard.c). */
    ps_page_guard_stats gs;
    if (ps_page_guard(html, hlen, &gs, err) != 0) {
        free(fixed);
        ps_page_free(pg);
        return NULL;
    }
    if (gs.n_fixes) { /* markup libxml2 reads otherwise than a browser, in a copy */
        if (!fixed) {
            fixed = malloc(hlen + 1);
            if (fixed) {
                memcpy(fixed, html, hlen);
                fixed[hlen] = '\0';
                html = fixed;
            }
        }
        if (!fixed) {
            free(gs.fixes);
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            ps_page_free(pg);
            return NULL;
        }
        ps_page_fix_markup(fixed, &gs);
        free(gs.fixes);
    }
    size_t rlen;
    char *rescripted = repair_script_ends(html, hlen, &rlen);
    if (rescripted) {
        free(fixed);
        html = fixed = rescripted;
        hlen = rlen;
    }
    size_t k = 0;
    while (k < hlen && (html[k] == ' ' || html[k] == '\n' || html[k] == '\r' || html[k] == '\t'))
        k++;
    if (k < hlen) {
        /* libxml2's HTML parser, its SAX events into the page's compact
         * tree (extract/tree.c): no DOM is built */
        pg->tree = in_place_utf8(direct, owned, len, fixed)
                       ? ps_tree_parse_utf8(html, hlen, opt->url, PS_PAGE_PARSE_OPTIONS)
                       : ps_tree_parse(html, hlen, opt->url, PS_PAGE_PARSE_OPTIONS);
        if (!pg->tree) {
            free(fixed);
            if (ps_xml_failed())
                ps_set_error(err, PS_ERR_NOMEM, "out of memory while libxml2 parsed the page");
            else
                ps_set_error(err, PS_ERR_PARSE, "libxml2 could not make a document of the page");
            ps_page_free(pg);
            return NULL;
        }
    }
    free(fixed);
    /* The UTF-8 text was only needed for parsing, and so were the bytes. */
    free(pg->dec.utf8);
    pg->dec.utf8 = NULL;
    pg->dec.len = 0;
    if (owned) {
        free(*owned);
        *owned = NULL;
    }
    if (!pg->tree || !ps_tree_root(pg->tree)) { /* empty page: html/body */
        ps_tree_free(pg->tree);
        uint32_t h = 0;
        if (!(pg->tree = ps_tree_empty()) || !(h = ps_tree_new_element(pg->tree, 0, "html")) ||
            !ps_tree_new_element(pg->tree, h, "body")) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            ps_page_free(pg);
            return NULL;
        }
    }
    ps_tree *t = pg->tree;
    if (!(pg->title = title_of(t))) { /* NULL: out of memory */
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ps_page_free(pg);
        return NULL;
    }
    /* before cleaning removes head and scripts; of it, extraction reads the
     * JSON-LD only (PS_PAGE_NO_METADATA: the rest is not collected) */
    pg->flags = opt->flags;
    pg->meta = ps_meta_collect(t, (pg->flags & PS_PAGE_NO_METADATA) != 0);
    pg->schema = ps_meta_schema_kinds(pg->meta);
    uint32_t root = ps_tree_root(t);
    uint32_t body = find_body(t, root);
    if (!body && t->nodes[root].next) { /* the body may be in a second root element */
        for (uint32_t extra = t->nodes[root].next; extra && !body; extra = t->nodes[extra].next)
            if (t->nodes[extra].type == PS_TN_ELEMENT && (body = find_body(t, extra)))
                ps_tree_append(t, root, body);
    }
    body = drain_head(t, root, body);
    if (body && adopt_strays(t, root, body)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ps_page_free(pg);
        return NULL;
    }
    builder b = {0};
    b.pg = pg;
    b.t = t;
    /* Size the buffers from the page size once instead of growing them
     * step by step (fewer reallocations on the hot path). */
    if (ps_buf_reserve(&b.runtext, hlen / 3 + 256) || ps_buf_reserve(&b.strs, hlen / 32 + 256) ||
        ps_buf_reserve(&b.path, 1024)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ps_buf_free(&b.runtext);
        ps_buf_free(&b.strs);
        ps_buf_free(&b.path);
        ps_page_free(pg);
        return NULL;
    }
    b.block_tags = opt->block_tags ? opt->block_tags : ps_default_block_tags;
    index_block_tags(&b);
    b.deadline = opt->deadline;
    pg->block_tags_key = ps_block_tags_key(b.block_tags);
    pg->deadline = opt->deadline;
    int rc = walk(&b, body ? body : root);
    if (rc == 0 && b.hidden_bytes > b.runtext.len) {
        /* More hidden text than shown: the content is what a script reveals
         * (or the page is all hidden); walk again, hidden elements included. */
        pg->n_blocks = pg->n_leaves = pg->n_runs = 0;
        b.runtext.len = b.strs.len = b.path.len = 0;
        b.n_remove = 0;
        b.pending_break = b.pending_space = b.pending_image = 0;
        b.keep_hidden = 1;
        rc = walk(&b, body ? body : root);
    }
    /* Remove the head as well (the title was taken above); without a body
     * the walk started at the root and listed the head already. */
    for (uint32_t c = t->nodes[root].first; rc == 0 && body && c; c = t->nodes[c].next)
        if (is_named(t, c, "head")) {
            ps_tree_unlink(t, c);
            break;
        }
    for (size_t i = 0; i < b.n_remove; i++)
        ps_tree_unlink(t, b.to_remove[i]);
    free(b.to_remove);
    if (rc == 0)
        rc = finish_tree(&b);
    free(b.block_path_off);
    free(b.block_id_off);
    free(b.block_class_off);
    ps_buf_free(&b.runtext);
    ps_buf_free(&b.strs);
    ps_buf_free(&b.path);

    if (rc && b.over) {
        ps_set_error(err, (ps_status)b.over, "%s: refused", b.over_msg);
        ps_page_free(pg);
        return NULL;
    }
    if (rc) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory building the block tree");
        ps_page_free(pg);
        return NULL;
    }
    return pg;
}

ps_page *ps_page_parse(const void *bytes, size_t len, const ps_page_options *opt, ps_error *err)
{
    return parse(bytes, len, NULL, opt, err);
}

ps_page *ps_page_parse_taking(void *bytes, size_t len, const ps_page_options *opt, ps_error *err)
{
    ps_page *pg = parse(bytes ? bytes : "", bytes ? len : 0, &bytes, opt, err);
    free(bytes); /* not freed yet when the page failed before its parse */
    return pg;
}

struct _xmlDoc *ps_page_dom(const ps_page *page)
{
    ps_page *pg = (ps_page *)page; /* the DOM is a cache of the tree */
    if (pg->doc || !pg->tree)
        return pg->doc;
    if (!(pg->dom_map = calloc(pg->tree->n_nodes, sizeof *pg->dom_map)))
        return NULL;
    pg->doc = ps_tree_dom(pg->tree, pg->url && pg->url[0] ? pg->url : NULL, pg->dom_map);
    if (!pg->doc) {
        free(pg->dom_map);
        pg->dom_map = NULL;
    }
    return pg->doc;
}

ps_page *ps_page_load_file(const char *path, const ps_page_options *opt, ps_error *err)
{
    size_t max = opt && opt->max_bytes ? opt->max_bytes : PS_DEFAULT_MAX_BYTES;
    size_t len;
    char *data = ps_read_page_file(path, max, &len, err);
    if (!data)
        return NULL;
    ps_page *pg = ps_page_parse_taking(data, len, opt, err);
    if (!pg && err) {
        char msg[sizeof err->msg];
        memcpy(msg, err->msg, sizeof msg);
        ps_set_error(err, err->code, "%.200s: %.300s", path, msg);
    }
    return pg;
}

void ps_page_drop_tree(ps_page *pg)
{
    if (!pg || !pg->tree)
        return;
    const ps_tree *t = pg->tree;
    size_t freed = t->cap_nodes * sizeof *t->nodes + t->cap_attrs * sizeof *t->attrs + t->cap_text +
                   (pg->n_blocks + pg->n_leaves) * sizeof(uint32_t);
    if (pg->doc)
        xmlFreeDoc(pg->doc);
    free(pg->dom_map);
    pg->names = pg->tree->dict; /* the blocks' and leaves' tags are its names */
    pg->tree->dict = NULL;
    ps_tree_free(pg->tree);
    free(pg->block_nodes);
    free(pg->leaf_nodes);
    pg->doc = NULL;
    pg->dom_map = NULL;
    pg->tree = NULL;
    pg->block_nodes = pg->leaf_nodes = NULL;
    ps_give_back(freed);
}

void ps_page_free(ps_page *pg)
{
    if (!pg)
        return;
    free(pg->dec.utf8);
    free(pg->url);
    free(pg->title);
    ps_meta_raw_free(pg->meta);
    if (pg->doc)
        xmlFreeDoc(pg->doc);
    free(pg->dom_map);
    ps_tree_free(pg->tree);
    if (pg->names)
        xmlDictFree(pg->names);
    free(pg->blocks);
    free(pg->block_nodes);
    free(pg->block_end);
    free(pg->leaves);
    free(pg->leaf_nodes);
    free(pg->runs);
    free(pg->runtext);
    free(pg->leaftext);
    free(pg->strs);
    free(pg);
}

const char *ps_page_url(const ps_page *pg) { return pg->url; }
const char *ps_page_title(const ps_page *pg) { return pg->title; }
const ps_decoded *ps_page_decoding(const ps_page *pg) { return &pg->dec; }

const ps_block *ps_page_blocks(const ps_page *pg, size_t *n)
{
    *n = pg->n_blocks;
    return pg->blocks;
}

const ps_leaf *ps_page_leaves(const ps_page *pg, size_t *n)
{
    *n = pg->n_leaves;
    return pg->leaves;
}

ps_counts ps_page_totals(const ps_page *pg) { return pg->totals; }

size_t ps_block_subtree_end(const ps_page *pg, size_t block)
{
    return block < pg->n_blocks ? pg->block_end[block] : block;
}

ps_counts ps_block_subtree_counts(const ps_page *pg, size_t block)
{
    ps_counts c = {0};
    size_t end = ps_block_subtree_end(pg, block);
    for (size_t i = block; i < end; i++) {
        c.text_chars += pg->blocks[i].own.text_chars;
        c.link_chars += pg->blocks[i].own.link_chars;
        c.links += pg->blocks[i].own.links;
        c.images += pg->blocks[i].own.images;
    }
    return c;
}

void ps_page_remove_leaf(ps_page *pg, size_t i)
{
    if (i >= pg->n_leaves || pg->leaves[i].removed)
        return;
    ps_leaf *l = &pg->leaves[i];
    l->removed = 1;
    ps_counts *c = &pg->blocks[l->block].own;
    c->text_chars -= l->chars;
    pg->totals.text_chars -= l->chars;
    if (l->in_link) {
        c->link_chars -= l->chars;
        pg->totals.link_chars -= l->chars;
    }
    if (l->is_anchor && c->links > 0) {
        c->links--;
        pg->totals.links--;
    }
}
