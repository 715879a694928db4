/* methods/punct_lines.c — "punct-lines": punctuation ratio per text unit,
 * then cross-page line-text statistics.
 *
 * Paper: 李霞, 蒋盛益, 基于 DOM 树及行文本统计去噪的网页文本抽取技术
 * (Li Xia, Jiang Sheng-yi, "Content extraction from web page based on the
 * DOM tree and line-text statistical noise-elimination", 2012);
 * ../shared/papers/dom-punctuation-linetext.txt, restated in METHODS.md §2.
 *
 * Steps, mapped onto the page model:
 *  1. UTF-8, tidy, drop &nbsp;, unwrap <strong>/<font>/<p>: ps_page has done
 *     the decoding and the repair (libxml2); &nbsp; is white space there and
 *     never counts as a character here (the paper deletes it: same counts).
 *     Unwrapping the formatting tags means the text nodes of one paragraph
 *     form one unit: our unit is a paragraph of the page text (the runs
 *     between two paragraph boundaries, as in ps_page_text: inline tags such
 *     as strong, font, span, a are joined, block-level tags and br split).
 *     A <p> is a paragraph boundary here, as it is a line of the output; the
 *     paper's unwrapping of <p> could merge paragraphs into their parent's
 *     text node.  Option unit=node uses the page model's leaves instead (an
 *     element's own text, formatting tags joined, but a, span... separate),
 *     which is closer to a TinyXML text node.
 *  2. Delete style, script, img, comments, iframe, object, meta, applet,
 *     link, doctype: the page model has removed them (img has no text).
 *  3. Punctuation ratio = punctuation marks / characters of the unit, both
 *     in code points, white space not counted.  Marks: ASCII . , ! ? ; : ( )
 *     [ ] { } " ' and the CJK/full-width 。 ， 、 ！ ？ ； ： （ ） 【 】
 *     《 》 〈 〉 「 」 『 』 〔 〕 ［ ］ ｛ ｝ ＂ ＇ ． ｡, the quotes “ ” ‘ ’
 *     „ « » and the ellipsis ….  Keep units with ratio in (0, p].
 *       p = 0.3                       option p=
 *       closed = 0 (interval (0, p]: a unit must hold punctuation — the
 *         METHODS.md reading); closed=1 is the paper's literal [0, p]
 *  4. Line-text statistics: the kept text of each paragraph is a line; a
 *     table key(line) -> LC counts the times a line was seen.  After
 *     counting a line, keep it when LC <= int(1 + RC / L), else drop it as
 *     noise; RC = pages of the site processed before this one.  After each
 *     page RC grows by one and rows with LC <= RC / prune are deleted.
 *       L = 50                        option L=
 *       prune = 100 (rows with LC <= RC/100; 0 = never prune)  option prune=
 *       lines = 1 (0 = skip step 4, the punctuation filter alone)
 *       scope = site: one table per site (the extract() site argument);
 *         a page without a site ("") has no other pages of its site, so its
 *         table starts empty (RC = 0: only a line repeated within the page
 *         is dropped); scope=global: one table for all pages, sites or
 *         not, as the paper's single database
 *     Key: the paper uses MD5 of the line.  We use a 64-bit FNV-1a hash
 *     (ps_hash64) mixed with the line's length: the table only needs a key
 *     that identifies the line, and with the pruned table holding at most a
 *     few thousand rows per site the chance that two distinct lines share a
 *     64-bit key is below 1e-12 per site, so the results equal MD5's, with
 *     no extra dependency (libmd) and a 12-byte row instead of 20.
 *
 * State and order: the tables persist across the pages given to one method
 * object (PS_METHOD_STATEFUL: the pipeline feeds pages one at a time, in
 * input order).  Results depend on that order: the first pages of a site
 * keep its boilerplate lines (the paper notes the same), a line seen on
 * every page is dropped from the second page on.
 *
 * Memory: a row lives while LC > RC / prune, i.e. only lines seen on more
 * than 1 % of a site's pages survive once the site has had 100 pages, so a
 * site's table holds at most about prune x (lines per page) rows, plus the
 * lines of its last page.  Sites with fewer than `prune` pages are never
 * pruned: a batch of many small sites keeps all their lines (12 bytes
 * each, about 50 per page). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"
#include "methods/method.h"
#include "methods/method_options.h"
#include "methods/punct_lines.h"
#include "methods/utf8_scan.h"

enum { SCOPE_SITE = 0, SCOPE_GLOBAL = 1 };
enum { UNIT_PARA = 0, UNIT_NODE = 1 };

typedef struct line_row {
    uint64_t key; /* 0 = empty slot */
    uint32_t lc;
} line_row;

typedef struct line_table {
    line_row *rows;
    size_t cap, n; /* cap: power of two, or 0 */
    uint64_t rc;   /* pages processed */
} line_table;

typedef struct site_slot {
    char *name; /* NULL = empty slot */
    uint64_t hash;
    line_table table;
} site_slot;

typedef struct punct_lines {
    double p;
    int closed, L, prune, lines, scope, unit;
    site_slot *sites;
    size_t cap_sites, n_sites;
    line_table global;
    line_table lone; /* a page without a site: its own table, emptied per page */
} punct_lines;

/* ---- punctuation ------------------------------------------------------- */

int ps_punct_is_mark(uint32_t c)
{
    switch (c) {
    case '.': case ',': case '!': case '?': case ';': case ':': case '(': case ')':
    case '[': case ']': case '{': case '}': case '"': case '\'':
    case 0x3002: case 0xFF0C: case 0x3001: case 0xFF01: case 0xFF1F: case 0xFF1B: case 0xFF1A:
    case 0xFF08: case 0xFF09: case 0x3010: case 0x3011: case 0x300A: case 0x300B: case 0x3008:
    case 0x3009: case 0x300C: case 0x300D: case 0x300E: case 0x300F: case 0x3014: case 0x3015:
    case 0xFF3B: case 0xFF3D: case 0xFF5B: case 0xFF5D: case 0xFF02: case 0xFF07: case 0xFF0E:
    case 0xFF61: case 0x201C: case 0x201D: case 0x2018: case 0x2019: case 0x201E: case 0xAB:
    case 0xBB: case 0x2026:
        return 1;
    default:
        return 0;
    }
}

/* Punctuation marks and characters (white space excluded) of n bytes. */
static void count_marks(const char *s, size_t n, uint32_t *marks, uint32_t *chars)
{
    size_t i = 0;
    uint32_t m = 0, c = 0;
    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        if (b < 0x80) { /* ASCII fast path */
            i++;
            if (b == ' ' || (b >= '\t' && b <= '\r'))
                continue;
            c++;
            m += (uint32_t)ps_punct_is_mark(b);
            continue;
        }
        uint32_t cp = ps_utf8_next(s, n, &i);
        if (ps_cp_is_space(cp))
            continue;
        c++;
        m += (uint32_t)ps_punct_is_mark(cp);
    }
    *marks = m;
    *chars = c;
}

int ps_punct_ratio_ok(uint32_t marks, uint32_t chars, double p, int closed)
{
    if (chars == 0)
        return 0; /* nothing to keep */
    if (marks == 0)
        return closed; /* ratio 0: only in [0, p] */
    return (double)marks <= p * (double)chars;
}

/* ---- the line table ----------------------------------------------------- */

static uint64_t line_key(const char *s, size_t n)
{
    uint64_t h = ps_hash64(s, n) ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL);
    return h ? h : 1;
}

static int table_grow(line_table *t, size_t want_cap)
{
    line_row *rows = calloc(want_cap, sizeof *rows);
    if (!rows)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->rows[i].key)
            continue;
        size_t j = (size_t)t->rows[i].key & (want_cap - 1);
        while (rows[j].key)
            j = (j + 1) & (want_cap - 1);
        rows[j] = t->rows[i];
    }
    free(t->rows);
    t->rows = rows;
    t->cap = want_cap;
    return 0;
}

/* Count one more sighting of the line; returns its LC, or 0 out of memory. */
static uint32_t table_count(line_table *t, uint64_t key)
{
    if ((t->n + 1) * 2 > t->cap && table_grow(t, t->cap ? t->cap * 2 : 64))
        return 0;
    size_t j = (size_t)key & (t->cap - 1);
    while (t->rows[j].key && t->rows[j].key != key)
        j = (j + 1) & (t->cap - 1);
    if (!t->rows[j].key) {
        t->rows[j].key = key;
        t->rows[j].lc = 0;
        t->n++;
    }
    return ++t->rows[j].lc;
}

/* Delete rows with LC <= RC / prune (LC * prune <= RC).  Rebuilds the table
 * at a size fitting the survivors. */
static int table_prune(line_table *t, int prune)
{
    if (prune <= 0 || t->rc < (uint64_t)prune || !t->n)
        return 0; /* every LC >= 1 > RC / prune */
    size_t keep = 0;
    for (size_t i = 0; i < t->cap; i++)
        keep += t->rows[i].key && (uint64_t)t->rows[i].lc * (uint64_t)prune > t->rc;
    if (keep == t->n)
        return 0;
    size_t cap = 64;
    while (cap < (keep + 1) * 2)
        cap *= 2;
    line_row *rows = calloc(cap, sizeof *rows);
    if (!rows)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        const line_row *r = &t->rows[i];
        if (!r->key || (uint64_t)r->lc * (uint64_t)prune <= t->rc)
            continue;
        size_t j = (size_t)r->key & (cap - 1);
        while (rows[j].key)
            j = (j + 1) & (cap - 1);
        rows[j] = *r;
    }
    free(t->rows);
    t->rows = rows;
    t->cap = cap;
    t->n = keep;
    return 0;
}

static line_table *site_table(punct_lines *m, const char *site, int create)
{
    if (m->scope == SCOPE_GLOBAL)
        return &m->global;
    uint64_t h = ps_hash64(site, strlen(site));
    if (create && (m->n_sites + 1) * 2 > m->cap_sites) {
        size_t nc = m->cap_sites ? m->cap_sites * 2 : 16;
        site_slot *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return NULL;
        for (size_t i = 0; i < m->cap_sites; i++) {
            if (!m->sites[i].name)
                continue;
            size_t j = (size_t)m->sites[i].hash & (nc - 1);
            while (ns[j].name)
                j = (j + 1) & (nc - 1);
            ns[j] = m->sites[i];
        }
        free(m->sites);
        m->sites = ns;
        m->cap_sites = nc;
    }
    if (!m->cap_sites)
        return NULL;
    size_t j = (size_t)h & (m->cap_sites - 1);
    while (m->sites[j].name) {
        if (m->sites[j].hash == h && !strcmp(m->sites[j].name, site))
            return &m->sites[j].table;
        j = (j + 1) & (m->cap_sites - 1);
    }
    if (!create)
        return NULL;
    m->sites[j].name = strdup(site);
    if (!m->sites[j].name)
        return NULL;
    m->sites[j].hash = h;
    m->n_sites++;
    return &m->sites[j].table;
}

size_t ps_punct_lines_table_rows(void *self, const char *site)
{
    const line_table *t = site_table(self, site ? site : "", 0);
    return t ? t->n : 0;
}

/* ---- the method --------------------------------------------------------- */

/* The options (--options key=value; above, what each does). */
enum { PL_P, PL_CLOSED, PL_L, PL_PRUNE, PL_LINES, PL_SCOPE, PL_UNIT, PL_N };
static const char *const scopes[] = {"site", "global", NULL};
static const char *const units[] = {"para", "node", NULL};
static const ps_option pl_options[PL_N + 1] = {
    [PL_P] = {"p", PS_OPT_DOUBLE, 0.3, 0.0, 1.0, NULL, "a unit is content when its punctuation ratio is at most p"},
    [PL_CLOSED] = {"closed", PS_OPT_BOOL, 0, 0, 1, NULL, "1: the interval [0, p] (a unit without punctuation too)"},
    [PL_L] = {"L", PS_OPT_INT, 50, 1, 1e9, NULL, "a line seen LC times is kept when LC <= 1 + RC / L"},
    [PL_PRUNE] = {"prune", PS_OPT_INT, 100, 0, 1e9, NULL, "rows with LC <= RC / prune are deleted (0 = never)"},
    [PL_LINES] = {"lines", PS_OPT_BOOL, 1, 0, 1, NULL, "0: the punctuation filter alone, no line statistics"},
    [PL_SCOPE] = {"scope", PS_OPT_CHOICE, 0, 0, 0, scopes, "one line table per site, or one for all pages"},
    [PL_UNIT] = {"unit", PS_OPT_CHOICE, 0, 0, 0, units, "paragraphs, or the page model's leaves"},
    [PL_N] = {NULL, PS_OPT_DOUBLE, 0, 0, 0, NULL, NULL},
};

extern const ps_method ps_method_punct_lines;

static void *pl_create(const ps_method_config *cfg, ps_error *err)
{
    punct_lines *m = calloc(1, sizeof *m);
    if (!m) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ps_options o;
    if (ps_options_resolve(&o, cfg ? cfg->options : NULL, &ps_method_punct_lines, err)) {
        free(m);
        return NULL;
    }
    m->p = o.value[PL_P];
    m->closed = (int)o.value[PL_CLOSED];
    m->L = (int)o.value[PL_L];
    m->prune = (int)o.value[PL_PRUNE];
    m->lines = (int)o.value[PL_LINES];
    m->scope = (int)o.value[PL_SCOPE];
    m->unit = (int)o.value[PL_UNIT];
    return m;
}

static void pl_destroy(void *self)
{
    punct_lines *m = self;
    if (!m)
        return;
    for (size_t i = 0; i < m->cap_sites; i++) {
        free(m->sites[i].name);
        free(m->sites[i].table.rows);
    }
    free(m->sites);
    free(m->global.rows);
    free(m->lone.rows);
    free(m);
}

static int pl_extract(void *self, ps_page *pg, const char *site, ps_method_output *out, ps_error *err)
{
    punct_lines *m = self;
    size_t nr = pg->n_runs, nl = pg->n_leaves;
    line_table *t = NULL;
    if (m->lines && m->scope == SCOPE_SITE && (!site || !*site)) {
        t = &m->lone; /* no site: no other pages to learn from */
        if (t->cap)
            memset(t->rows, 0, t->cap * sizeof *t->rows);
        t->n = 0;
        t->rc = 0;
    } else if (m->lines && !(t = site_table(m, site ? site : "", 1))) {
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    /* per run: marks, chars; per leaf: marks, chars, kept chars */
    uint32_t *run_mc = malloc((2 * nr + 1) * sizeof *run_mc);
    uint8_t *run_keep = malloc(nr + 1);
    uint32_t *leaf_acc = calloc(3 * nl + 1, sizeof *leaf_acc);
    ps_buf text = {0};
    uint8_t *leaf_kept = malloc(nl + 1);
    if (!run_mc || !run_keep || !leaf_acc || !leaf_kept || ps_buf_reserve(&text, 4096))
        goto nomem;
    text.data[0] = '\0';

    for (size_t i = 0; i < nr; i++) {
        const ps_run *r = &pg->runs[i];
        count_marks(pg->runtext + r->off, r->len, &run_mc[2 * i], &run_mc[2 * i + 1]);
        leaf_acc[3 * r->leaf] += run_mc[2 * i];
        leaf_acc[3 * r->leaf + 1] += run_mc[2 * i + 1];
    }

    uint32_t units_dropped = 0, lines_kept = 0, lines_dropped = 0;
    /* Paragraphs: runs between two boundaries (a break, or a change of
     * block), as ps_page_text makes lines; removed (template) leaves skipped. */
    size_t i = 0;
    while (i < nr) {
        while (i < nr && pg->leaves[pg->runs[i].leaf].removed)
            i++;
        if (i >= nr)
            break;
        size_t start = i, end = i + 1;
        int32_t block = pg->leaves[pg->runs[i].leaf].block;
        int brk = 0;
        uint32_t marks = run_mc[2 * i], chars = run_mc[2 * i + 1];
        for (; end < nr; end++) {
            const ps_run *r = &pg->runs[end];
            const ps_leaf *l = &pg->leaves[r->leaf];
            brk |= r->brk;
            if (l->removed)
                continue;
            if (brk || l->block != block)
                break;
            marks += run_mc[2 * end];
            chars += run_mc[2 * end + 1];
        }
        /* step 3: punctuation */
        if (m->unit == UNIT_PARA) {
            int ok = ps_punct_ratio_ok(marks, chars, m->p, m->closed);
            for (size_t k = start; k < end; k++)
                run_keep[k] = (uint8_t)ok;
            units_dropped += !ok && chars;
        } else {
            for (size_t k = start; k < end; k++) {
                uint32_t lf = pg->runs[k].leaf;
                run_keep[k] = (uint8_t)ps_punct_ratio_ok(leaf_acc[3 * lf], leaf_acc[3 * lf + 1], m->p, m->closed);
            }
        }
        /* the line: kept runs of the paragraph, spaced as ps_page_text */
        size_t line_start = text.len;
        int space = 0;
        for (size_t k = start; k < end; k++) {
            const ps_run *r = &pg->runs[k];
            if (pg->leaves[r->leaf].removed)
                continue;
            space |= r->space_before;
            if (!run_keep[k]) {
                space |= r->space_after;
                continue;
            }
            if (text.len > line_start && space && ps_buf_putc(&text, ' '))
                goto nomem;
            if (ps_buf_append(&text, pg->runtext + r->off, r->len))
                goto nomem;
            space = r->space_after;
        }
        if (text.len > line_start) {
            int keep = 1;
            if (t) { /* step 4: line-text statistics */
                uint32_t lc = table_count(t, line_key(text.data + line_start, text.len - line_start));
                if (!lc)
                    goto nomem;
                keep = (uint64_t)lc <= 1 + t->rc / (uint64_t)m->L; /* int(1 + RC/L) */
            }
            if (keep) {
                if (ps_buf_putc(&text, '\n'))
                    goto nomem;
                lines_kept++;
                for (size_t k = start; k < end; k++)
                    if (run_keep[k] && !pg->leaves[pg->runs[k].leaf].removed)
                        leaf_acc[3 * pg->runs[k].leaf + 2] += run_mc[2 * k + 1];
            } else {
                text.len = line_start;
                text.data[text.len] = '\0';
                lines_dropped++;
            }
        }
        i = end;
    }
    if (m->unit == UNIT_NODE)
        for (size_t k = 0; k < nl; k++)
            units_dropped += leaf_acc[3 * k + 1] && !pg->leaves[k].removed &&
                             !ps_punct_ratio_ok(leaf_acc[3 * k], leaf_acc[3 * k + 1], m->p, m->closed);
    if (t) {
        t->rc++;
        if (table_prune(t, m->prune))
            goto nomem;
    }
    for (size_t k = 0; k < nl; k++)
        leaf_kept[k] = leaf_acc[3 * k + 1] && !pg->leaves[k].removed &&
                       2 * (uint64_t)leaf_acc[3 * k + 2] >= leaf_acc[3 * k + 1];
    free(run_mc);
    free(run_keep);
    free(leaf_acc);
    out->text = ps_buf_take(&text, &out->len);
    out->leaf_kept = leaf_kept;
    out->blocks_kept = lines_kept;
    out->blocks_removed = units_dropped + lines_dropped;
    return 0;
nomem:
    free(run_mc);
    free(run_keep);
    free(leaf_acc);
    free(leaf_kept);
    ps_buf_free(&text);
    return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
}

const ps_method ps_method_punct_lines = {
    .name = "punct-lines",
    .summary = "punctuation ratio per paragraph (p=0.3) + per-site line statistics (L=50); depends on page order",
    .flags = PS_METHOD_STATEFUL,
    .create = pl_create,
    .extract = pl_extract,
    .destroy = pl_destroy,
    .options = pl_options,
};
