/* methods/blockstat.c — "blockstat": text-block character counts, with the
 * news title and date.
 *
 * Paper: 邹永强, 钟志农, 一种高效的新闻网页噪声过滤方法 (Zou Yongqiang,
 * Zhong Zhinong, "An efficient approach to reduce noise in news webpages",
 * 微型机与应用 2011(16)); ../shared/papers/textblock-charcount.txt, restated
 * in METHODS.md §5.
 *
 * 1. Blocks.  The paper rewrites the repaired HTML source: type I tags are
 *    deleted with their content — a, script, noscript, style, meta,
 *    comments, param, button, select, optgroup, option, label, textarea,
 *    fieldset, legend, input, image, map, area, form, iframe, embed, object;
 *    every type II tag — p, div, li, ul, dl, dt, dd, hr, br, table, tr, td,
 *    tbody, head, body — becomes a block mark; white space is removed; the
 *    text between two marks is a block.  We do the same on a read-only walk
 *    of the page's DOM (page->doc, repaired by libxml2, which has already
 *    dropped script/style/comments/...): a type I element is skipped with
 *    its subtree; a type II element puts a mark at its start and one at its
 *    end (br and hr: one mark, they have no end tag), so "</p><p>" leaves an
 *    empty block between two paragraphs as the source rewrite does.  The
 *    head, removed from the DOM, is stood in for by its marks around the
 *    <title> text, so the block sequence starts "", title, "".  Other tags
 *    (span, h1, strong, ...) are transparent.  blocknum[i] = code points of
 *    block i, white space not counted.  The output text keeps single spaces
 *    between words (and one where another block-level tag such as h1 or
 *    section ends), which changes no count.
 *      form = drop: <form> is type I as in the paper, which deletes whole
 *        pages built as one ASP.NET form; form=keep makes it transparent
 *        (its controls input, select, textarea, button, label... stay type I).
 *      links = drop: <a> is type I as in the paper (link text inside a
 *        paragraph goes too); links=keep makes it transparent.
 *      empty = keep: empty blocks (zero characters) stay in the sequence:
 *        they take part in the smoothing and the mean, and split runs (the
 *        paper's Nmin "the smallest value other than 0" implies they exist).
 *        empty=drop: only non-empty blocks form the sequence.
 * 2. s[i] = (b[i-1] + 2 b[i] + b[i+1]) / 4, the [1 2 1]/4 operator, with
 *    b[-1] = b[n] = 0.
 * 3. N'min = (2 Nmin + Navg) / 3, Nmin = the smallest non-zero s[i], Navg =
 *    the mean of s; Ncal = (sum of the 9 largest s[i] + Navg) / 10 (the sum
 *    of all of them when there are fewer than 9).
 *      top = 9                        option top=
 * 4. Main text: every maximal run of consecutive blocks with s >= N'min
 *    that holds at least one s >= Ncal (rule 1), plus the blocks between two
 *    such runs (rule 2).
 *      between = all: every block between the first and the last rule-1 run
 *        (METHODS.md: "the blocks lying between two such runs");
 *        between=runs: only the runs of blocks all >= N'min lying between
 *        two rule-1 runs (the paper's figure 2, where the kept BSet fails
 *        only the Ncal condition), not the low blocks around them.
 * 5. Title: among blocks i-2 .. i+2 of the first main block i, the text of
 *    the highest-level h1..h6 (the first of that level), type I content
 *    excluded, empty headings ignored; else the page's <title> cleaned of
 *    site-name parts.  The paper filters <title> with a stop-word list it
 *    does not give; our reading: split it on | ｜ _ - — – ('-' and '_' only
 *    when not between two ASCII letters or digits, so "COVID-19" stays
 *    whole) and keep the longest part (code points).
 *      title_split = 1 (0: the whole <title>)
 *    The windows i-2 .. i+2 count the blocks that hold text (i: the first
 *    main block holding text), so that the empty blocks between tags do not
 *    shrink them to nothing; window=all counts every block of the sequence
 *    (the literal reading; with empty=drop both are the same).
 *      window = text
 *    Date: the first match of \d{4}[-./年]\d{1,2}[-./月]\d{1,2}日? (ASCII or
 *    full-width digits) in blocks i-2 .. i+2, else in j-2 .. j+2, j the last
 *    main block.  Tightenings: the year is not preceded by a digit, month
 *    1-12, day 1-31.  Reported as YYYY-MM-DD.  (The paper's regex has \w
 *    where METHODS.md has \d; \w would also match letters.)
 *
 * The page is not modified.  Per page: one walk, O(blocks) arithmetic (the
 * 9 largest by insertion), no per-node allocation. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"
#include "methods/blockstat.h"
#include "methods/method.h"
#include "methods/method_options.h"
#include "methods/utf8_scan.h"

enum { EMPTY_KEEP = 0, EMPTY_DROP = 1 };
enum { BETWEEN_ALL = 0, BETWEEN_RUNS = 1 };
enum { WINDOW_TEXT = 0, WINDOW_ALL = 1 };

typedef struct blockstat {
    int empty, between, top, title_split, window, form, links;
} blockstat;

/* ---- tag classes -------------------------------------------------------- */

enum { TAG_OTHER = 0, TAG_TYPE1 = 1, TAG_TYPE2 = 2, TAG_TYPE2_VOID = 3 };

typedef struct {
    const char *name;
    int cls;
} tag_class;

static const tag_class CLASSES[] = { /* sorted for bsearch */
    {"a", TAG_TYPE1},        {"area", TAG_TYPE1},      {"body", TAG_TYPE2},     {"br", TAG_TYPE2_VOID},
    {"button", TAG_TYPE1},   {"dd", TAG_TYPE2},        {"div", TAG_TYPE2},      {"dl", TAG_TYPE2},
    {"dt", TAG_TYPE2},       {"embed", TAG_TYPE1},     {"fieldset", TAG_TYPE1}, {"form", TAG_TYPE1},
    {"head", TAG_TYPE2},     {"hr", TAG_TYPE2_VOID},   {"iframe", TAG_TYPE1},   {"image", TAG_TYPE1},
    {"input", TAG_TYPE1},    {"label", TAG_TYPE1},     {"legend", TAG_TYPE1},   {"li", TAG_TYPE2},
    {"map", TAG_TYPE1},      {"meta", TAG_TYPE1},      {"noscript", TAG_TYPE1}, {"object", TAG_TYPE1},
    {"optgroup", TAG_TYPE1}, {"option", TAG_TYPE1},    {"p", TAG_TYPE2},        {"param", TAG_TYPE1},
    {"script", TAG_TYPE1},   {"select", TAG_TYPE1},    {"style", TAG_TYPE1},    {"table", TAG_TYPE2},
    {"tbody", TAG_TYPE2},    {"td", TAG_TYPE2},        {"textarea", TAG_TYPE1}, {"tr", TAG_TYPE2},
    {"ul", TAG_TYPE2},
};

static int cmp_class(const void *key, const void *e)
{
    return strcmp(key, ((const tag_class *)e)->name);
}

static int tag_class_of(const char *name)
{
    const tag_class *t =
        bsearch(name, CLASSES, sizeof CLASSES / sizeof CLASSES[0], sizeof CLASSES[0], cmp_class);
    return t ? t->cls : TAG_OTHER;
}

/* ---- the walk ----------------------------------------------------------- */

typedef struct bs_block {
    uint32_t chars;
    uint32_t off, len; /* bytes in walk.text */
} bs_block;

typedef struct bs_piece {
    uint32_t block, leaf, chars;
} bs_piece;

typedef struct bs_heading {
    uint32_t block, off, len; /* bytes in walk.htext */
    uint8_t level;
} bs_heading;

typedef struct bs_frame {
    xmlNodePtr node;
    int32_t leaf;    /* leaf owning text directly inside, -1 none */
    int32_t heading; /* index of the heading being collected, -1 none */
    uint8_t deleted; /* inside a type I element */
    uint8_t cls;
    uint8_t brk;     /* a block-level tag that is not type II */
} bs_frame;

typedef struct walk {
    const ps_page *pg;
    int keep_form;     /* form=keep: <form> is transparent, not type I */
    int keep_links;    /* links=keep: <a> is transparent, not type I */
    bs_block *blocks;
    size_t n_blocks, cap_blocks;
    bs_piece *pieces;
    size_t n_pieces, cap_pieces;
    bs_heading *heads;
    size_t n_heads, cap_heads;
    ps_buf text, htext, tmp;
    uint32_t cur_off, cur_chars;
    int pending_space, hpending_space;
    uint32_t *leaf_tot; /* per leaf: characters in all, kept */
    uint32_t *leaf_keep;
    xmlNodePtr *map_keys; /* element -> leaf, open addressing */
    uint32_t *map_vals;
    size_t map_cap;
} walk;

static size_t ptr_hash(const void *p, size_t cap)
{
    return (size_t)(((uint64_t)(uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ULL >> 20) & (cap - 1);
}

static int build_leaf_map(walk *w)
{
    const ps_page *pg = w->pg;
    size_t cap = 16;
    while (cap < pg->n_leaves * 2 + 2)
        cap *= 2;
    w->map_keys = calloc(cap, sizeof *w->map_keys);
    w->map_vals = malloc(cap * sizeof *w->map_vals);
    if (!w->map_keys || !w->map_vals)
        return -1;
    w->map_cap = cap;
    for (size_t i = 0; i < pg->n_leaves; i++) {
        xmlNodePtr node = pg->dom_map[pg->leaf_nodes[i]];
        size_t j = ptr_hash(node, cap);
        while (w->map_keys[j])
            j = (j + 1) & (cap - 1);
        w->map_keys[j] = node;
        w->map_vals[j] = (uint32_t)i;
    }
    return 0;
}

static int32_t leaf_of(const walk *w, xmlNodePtr node)
{
    size_t j = ptr_hash(node, w->map_cap);
    while (w->map_keys[j]) {
        if (w->map_keys[j] == node)
            return (int32_t)w->map_vals[j];
        j = (j + 1) & (w->map_cap - 1);
    }
    return -1;
}

#define GROW(arr, n, cap)                                                                                    \
    do {                                                                                                     \
        if ((n) >= (cap)) {                                                                                  \
            size_t nc_ = (cap) ? (cap) * 2 : 64;                                                             \
            void *na_ = realloc((arr), nc_ * sizeof *(arr));                                                 \
            if (!na_)                                                                                        \
                return -1;                                                                                   \
            (arr) = na_;                                                                                     \
            (cap) = nc_;                                                                                     \
        }                                                                                                    \
    } while (0)

/* A block mark: close the current block, open the next. */
static int mark(walk *w)
{
    GROW(w->blocks, w->n_blocks, w->cap_blocks);
    w->blocks[w->n_blocks++] = (bs_block){w->cur_chars, w->cur_off, (uint32_t)(w->text.len - w->cur_off)};
    w->cur_off = (uint32_t)w->text.len;
    w->cur_chars = 0;
    w->pending_space = 0;
    return 0;
}

static uint32_t count_chars(const char *s, size_t n)
{
    uint32_t c = 0;
    size_t i = 0;
    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        if (b < 0x80) {
            i++;
            c += !(b == ' ' || (b >= '\t' && b <= '\r'));
            continue;
        }
        c += !ps_cp_is_space(ps_utf8_next(s, n, &i));
    }
    return c;
}

/* Append collapsed text to a buffer, a space before it when white space
 * separated it from what the buffer's current unit (from @p unit_off) holds. */
static int append_spaced(ps_buf *b, size_t unit_off, int *pending, const char *s, size_t n, int lead, int trail)
{
    if (b->len > unit_off && (*pending || lead) && ps_buf_putc(b, ' '))
        return -1;
    if (ps_buf_append(b, s, n))
        return -1;
    *pending = trail;
    return 0;
}

static int add_text(walk *w, const bs_frame *f, xmlNodePtr node)
{
    const char *s = (const char *)node->content;
    if (!s || !*s)
        return 0;
    w->tmp.len = 0;
    int lead, trail;
    size_t n = ps_collapse_ws(&w->tmp, s, strlen(s), &lead, &trail);
    if (n == 0) { /* white space only */
        w->pending_space = 1;
        w->hpending_space = 1;
        return 0;
    }
    uint32_t chars = count_chars(w->tmp.data, n);
    if (f->leaf >= 0) {
        if (w->pg->leaves[f->leaf].removed)
            return 0; /* a template leaf: its text is gone */
        w->leaf_tot[f->leaf] += chars;
    }
    if (f->deleted)
        return 0;
    if (append_spaced(&w->text, w->cur_off, &w->pending_space, w->tmp.data, n, lead, trail))
        return -1;
    w->cur_chars += chars;
    if (f->leaf >= 0) {
        GROW(w->pieces, w->n_pieces, w->cap_pieces);
        w->pieces[w->n_pieces++] = (bs_piece){(uint32_t)w->n_blocks, (uint32_t)f->leaf, chars};
    }
    if (f->heading >= 0) {
        bs_heading *h = &w->heads[f->heading];
        if (append_spaced(&w->htext, h->off, &w->hpending_space, w->tmp.data, n, lead, trail))
            return -1;
        h->len = (uint32_t)(w->htext.len - h->off);
    }
    return 0;
}

static int walk_page(walk *w, xmlNodePtr root)
{
    size_t cap = 64, top = 0;
    bs_frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return -1;
    int rc = -1;
    /* The head's stand-in: "" <head> title </head> "" <body> ... */
    const char *title = w->pg->title ? w->pg->title : "";
    if (mark(w))
        goto out;
    if (*title) {
        if (ps_buf_append(&w->text, title, strlen(title)))
            goto out;
        w->cur_chars = count_chars(title, strlen(title));
    }
    if (mark(w))
        goto out;
    int root_cls = tag_class_of((const char *)root->name);
    if (root_cls >= TAG_TYPE2 && mark(w))
        goto out;
    stack[0] = (bs_frame){root, leaf_of(w, root), -1, 0, (uint8_t)root_cls, 0};
    xmlNodePtr cur = root->children;
    while (cur || top > 0) {
        if (!cur) { /* leave the element on top */
            bs_frame *f = &stack[top];
            if (!f->deleted && f->cls == TAG_TYPE2 && mark(w))
                goto out;
            if (f->brk) {
                w->pending_space = 1;
                w->hpending_space = 1;
            }
            cur = f->node->next;
            top--;
            continue;
        }
        if (cur->type == XML_TEXT_NODE || cur->type == XML_CDATA_SECTION_NODE) {
            if (add_text(w, &stack[top], cur))
                goto out;
            cur = cur->next;
            continue;
        }
        if (cur->type != XML_ELEMENT_NODE) {
            cur = cur->next;
            continue;
        }
        const char *name = (const char *)cur->name;
        const bs_frame *parent = &stack[top];
        int cls = tag_class_of(name);
        if (cls == TAG_TYPE1 && ((w->keep_form && !strcmp(name, "form")) || (w->keep_links && !strcmp(name, "a"))))
            cls = TAG_OTHER;
        int deleted = parent->deleted || cls == TAG_TYPE1;
        unsigned kind = ps_tag_kind(name);
        int brk = (kind & PS_TAG_BREAK) && cls < TAG_TYPE2;
        if (!deleted && cls >= TAG_TYPE2 && mark(w))
            goto out;
        if (brk)
            w->pending_space = 1;
        if (!cur->children) {
            if (!deleted && cls == TAG_TYPE2 && mark(w)) /* <p></p>: its end mark */
                goto out;
            cur = cur->next;
            continue;
        }
        if (top + 1 >= cap) {
            cap *= 2;
            bs_frame *ns = realloc(stack, cap * sizeof *ns);
            if (!ns)
                goto out;
            stack = ns;
            parent = &stack[top];
        }
        bs_frame *f = &stack[++top];
        f->node = cur;
        f->deleted = (uint8_t)deleted;
        f->cls = (uint8_t)cls;
        f->brk = (uint8_t)brk;
        f->leaf = leaf_of(w, cur);
        if (f->leaf < 0 && (kind & PS_TAG_TRANSPARENT))
            f->leaf = parent->leaf;
        f->heading = parent->heading;
        if (!deleted && (kind & PS_TAG_HEADING) && f->heading < 0) {
            GROW(w->heads, w->n_heads, w->cap_heads);
            w->heads[w->n_heads] = (bs_heading){(uint32_t)w->n_blocks, (uint32_t)w->htext.len, 0,
                                                (uint8_t)(name[1] - '0')};
            f->heading = (int32_t)w->n_heads++;
            w->hpending_space = 0;
        }
        cur = cur->children;
    }
    if (root_cls >= TAG_TYPE2 && mark(w)) /* </body> */
        goto out;
    if (mark(w)) /* what follows the last mark */
        goto out;
    rc = 0;
out:
    free(stack);
    return rc;
}

/* ---- the statistics ----------------------------------------------------- */

void ps_blockstat_select(const uint32_t *b, size_t n, int top, int between, uint8_t *keep, ps_blockstat_stats *st)
{
    memset(keep, 0, n);
    ps_blockstat_stats z = {0};
    if (st)
        *st = z;
    if (!n)
        return;
    double *s = malloc(n * sizeof *s);
    double best[64];
    if (!s)
        return;
    if (top > 64)
        top = 64;
    double sum = 0, nmin = 0;
    int have_min = 0, n_best = 0;
    for (size_t i = 0; i < n; i++) {
        double prev = i ? b[i - 1] : 0, next = i + 1 < n ? b[i + 1] : 0;
        s[i] = (prev + 2.0 * b[i] + next) / 4.0;
        sum += s[i];
        if (s[i] > 0 && (!have_min || s[i] < nmin)) {
            nmin = s[i];
            have_min = 1;
        }
        /* the `top` largest, sorted descending */
        int k = -1;
        if (n_best < top)
            k = n_best++;
        else if (s[i] > best[top - 1])
            k = top - 1;
        if (k >= 0) {
            while (k > 0 && best[k - 1] < s[i]) {
                best[k] = best[k - 1];
                k--;
            }
            best[k] = s[i];
        }
    }
    double navg = sum / (double)n, topsum = 0;
    for (int k = 0; k < n_best; k++)
        topsum += best[k];
    ps_blockstat_stats r = {navg, nmin, (2.0 * nmin + navg) / 3.0, (topsum + navg) / 10.0, -1, -1};
    if (!have_min) {
        free(s);
        if (st)
            *st = r;
        return;
    }
    /* rule 1 */
    ptrdiff_t first = -1, last = -1;
    for (size_t i = 0; i < n;) {
        if (s[i] < r.nmin_prime) {
            i++;
            continue;
        }
        size_t j = i;
        int cal = 0;
        while (j < n && s[j] >= r.nmin_prime)
            cal |= s[j++] >= r.ncal;
        if (cal) {
            memset(keep + i, 1, j - i);
            if (first < 0)
                first = (ptrdiff_t)i;
            last = (ptrdiff_t)j - 1;
        }
        i = j;
    }
    /* rule 2 */
    if (first >= 0) {
        for (ptrdiff_t i = first; i <= last; i++)
            if (between == BETWEEN_ALL || s[i] >= r.nmin_prime)
                keep[i] = 1;
    }
    r.first = first;
    r.last = last;
    if (st)
        *st = r;
    free(s);
}

/* ---- title and date ----------------------------------------------------- */

static int is_digit_at(const char *s, size_t n, size_t i, int *val, size_t *adv)
{
    if (i < n && s[i] >= '0' && s[i] <= '9') {
        *val = s[i] - '0';
        *adv = 1;
        return 1;
    }
    /* full-width ０..９: EF BC 90..99 */
    if (i + 2 < n && (unsigned char)s[i] == 0xEF && (unsigned char)s[i + 1] == 0xBC &&
        (unsigned char)s[i + 2] >= 0x90 && (unsigned char)s[i + 2] <= 0x99) {
        *val = (unsigned char)s[i + 2] - 0x90;
        *adv = 3;
        return 1;
    }
    return 0;
}

static size_t match_sep(const char *s, size_t n, size_t i, const char *cjk)
{
    if (i < n && (s[i] == '-' || s[i] == '.' || s[i] == '/'))
        return 1;
    size_t l = strlen(cjk);
    if (i + l <= n && memcmp(s + i, cjk, l) == 0)
        return l;
    return 0;
}

/* Digits at i: up to @p max of them (at least one); the value and the end. */
static int digits(const char *s, size_t n, size_t *i, int max, int *val)
{
    int v = 0, d, got = 0;
    size_t adv;
    while (got < max && is_digit_at(s, n, *i, &d, &adv)) {
        v = v * 10 + d;
        *i += adv;
        got++;
    }
    *val = v;
    return got;
}

int ps_blockstat_find_date(const char *s, size_t n, char out[11])
{
    int prev_digit = 0;
    for (size_t i = 0; i < n;) {
        int d;
        size_t adv;
        if (!is_digit_at(s, n, i, &d, &adv)) {
            prev_digit = 0;
            i++;
            continue;
        }
        if (!prev_digit) {
            size_t j = i;
            int y, mo, da;
            size_t k;
            if (digits(s, n, &j, 4, &y) == 4 && (k = match_sep(s, n, j, "\xE5\xB9\xB4" /* 年 */))) {
                j += k;
                if (digits(s, n, &j, 2, &mo) >= 1 && (k = match_sep(s, n, j, "\xE6\x9C\x88" /* 月 */))) {
                    j += k;
                    if (digits(s, n, &j, 2, &da) >= 1 && mo >= 1 && mo <= 12 && da >= 1 && da <= 31) {
                        const int v[8] = {y / 1000, y / 100 % 10, y / 10 % 10, y % 10, mo / 10, mo % 10, da / 10, da % 10};
                        const char *shape = "dddd-dd-dd";
                        for (int c = 0, q = 0; c < 10; c++)
                            out[c] = shape[c] == 'd' ? (char)('0' + v[q++]) : '-';
                        out[10] = '\0';
                        return 1;
                    }
                }
            }
        }
        prev_digit = 1;
        i += adv;
    }
    return 0;
}

/* Is byte i of s (a '-' or '_') between two ASCII letters or digits? */
static int inside_word(const char *s, size_t n, size_t i)
{
#define ALNUM(c) (((c) >= '0' && (c) <= '9') || ((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
    return i > 0 && i + 1 < n && ALNUM(s[i - 1]) && ALNUM(s[i + 1]);
#undef ALNUM
}

char *ps_blockstat_clean_title(const char *t)
{
    size_t n = strlen(t), best_off = 0, best_len = 0, best_chars = 0, start = 0;
    for (size_t i = 0; i <= n;) {
        size_t sep = 0;
        if (i == n)
            sep = 1;
        else if (t[i] == '|')
            sep = 1;
        else if ((t[i] == '-' || t[i] == '_') && !inside_word(t, n, i))
            sep = 1;
        else if (i + 3 <= n &&
                 (!memcmp(t + i, "\xE2\x80\x94", 3) || !memcmp(t + i, "\xE2\x80\x93", 3) || /* — – */
                  !memcmp(t + i, "\xEF\xBD\x9C", 3)))                                       /* ｜ */
            sep = 3;
        if (!sep) {
            i++;
            continue;
        }
        size_t a = start, b = i;
        while (a < b && t[a] == ' ')
            a++;
        while (b > a && t[b - 1] == ' ')
            b--;
        size_t chars = ps_utf8_chars(t + a, b - a);
        if (chars > best_chars) {
            best_chars = chars;
            best_off = a;
            best_len = b - a;
        }
        i += sep;
        start = i;
    }
    char *r = malloc(best_len + 1);
    if (r) {
        memcpy(r, t + best_off, best_len);
        r[best_len] = '\0';
    }
    return r;
}

/* ---- the method --------------------------------------------------------- */

/* The options (--options key=value; above, what each does). */
enum { BS_EMPTY, BS_BETWEEN, BS_TOP, BS_TITLE_SPLIT, BS_WINDOW, BS_FORM, BS_LINKS, BS_N };
static const char *const empties[] = {"keep", "drop", NULL};
static const char *const betweens[] = {"all", "runs", NULL};
static const char *const windows[] = {"text", "all", NULL};
static const char *const forms[] = {"drop", "keep", NULL};
static const ps_option bs_options[BS_N + 1] = {
    [BS_EMPTY] = {"empty", PS_OPT_CHOICE, 0, 0, 0, empties, "empty blocks stay in the sequence (keep) or not"},
    [BS_BETWEEN] = {"between", PS_OPT_CHOICE, 0, 0, 0, betweens,
                    "every block between the first and last rule-1 run, or only the runs"},
    [BS_TOP] = {"top", PS_OPT_INT, 9, 1, 64, NULL, "Ncal: the mean of the top largest smoothed counts and Navg"},
    [BS_TITLE_SPLIT] = {"title_split", PS_OPT_BOOL, 1, 0, 1, NULL, "the title: <title>'s best part (0: all of it)"},
    [BS_WINDOW] = {"window", PS_OPT_CHOICE, 0, 0, 0, windows, "the blocks the statistics count: with text, or all"},
    [BS_FORM] = {"form", PS_OPT_CHOICE, 0, 0, 0, forms, "<form> deletes its content (drop) or is transparent"},
    [BS_LINKS] = {"links", PS_OPT_CHOICE, 0, 0, 0, forms, "<a> deletes its text (drop) or is transparent"},
    [BS_N] = {NULL, PS_OPT_DOUBLE, 0, 0, 0, NULL, NULL},
};

extern const ps_method ps_method_blockstat;

static void *bs_create(const ps_method_config *cfg, ps_error *err)
{
    blockstat *m = calloc(1, sizeof *m);
    if (!m) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ps_options o;
    if (ps_options_resolve(&o, cfg ? cfg->options : NULL, &ps_method_blockstat, err)) {
        free(m);
        return NULL;
    }
    m->empty = (int)o.value[BS_EMPTY];
    m->between = (int)o.value[BS_BETWEEN];
    m->top = (int)o.value[BS_TOP];
    m->title_split = (int)o.value[BS_TITLE_SPLIT];
    m->window = (int)o.value[BS_WINDOW];
    m->form = (int)o.value[BS_FORM];
    m->links = (int)o.value[BS_LINKS];
    return m;
}

static void bs_destroy(void *self)
{
    free(self);
}

static void walk_free(walk *w)
{
    free(w->blocks);
    free(w->pieces);
    free(w->heads);
    ps_buf_free(&w->text);
    ps_buf_free(&w->htext);
    ps_buf_free(&w->tmp);
    free(w->leaf_tot);
    free(w->leaf_keep);
    free(w->map_keys);
    free(w->map_vals);
}

static xmlNodePtr body_of(htmlDocPtr doc)
{
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root)
        return NULL;
    for (xmlNodePtr c = root->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "body") == 0)
            return c;
    return root;
}

static int bs_extract(void *self, ps_page *pg, const char *site, ps_method_output *out, ps_error *err)
{
    (void)site;
    blockstat *m = self;
    walk w = {0};
    w.pg = pg;
    w.keep_form = m->form == 1;
    w.keep_links = m->links == 1;
    uint32_t *seq = NULL;
    int32_t *pos = NULL;
    uint8_t *keep = NULL, *kept = NULL;
    ps_buf o = {0};
    w.leaf_tot = calloc(pg->n_leaves + 1, sizeof *w.leaf_tot);
    w.leaf_keep = calloc(pg->n_leaves + 1, sizeof *w.leaf_keep);
    if (!ps_page_dom(pg) || !w.leaf_tot || !w.leaf_keep || build_leaf_map(&w) || ps_buf_reserve(&w.text, 4096) ||
        ps_buf_reserve(&w.htext, 256) || ps_buf_reserve(&w.tmp, 256))
        goto nomem;
    xmlNodePtr root = body_of(pg->doc);
    if (root && walk_page(&w, root))
        goto nomem;
    size_t nb = w.n_blocks, n = 0;
    seq = calloc(nb + 1, sizeof *seq); /* calloc: GCC cannot see that only seq[0..n) is read */
    pos = malloc((nb + 1) * sizeof *pos);
    uint32_t *idx = malloc((nb + 1) * sizeof *idx);
    keep = malloc(nb + 1);
    kept = calloc(nb + 1, 1);
    if (!seq || !pos || !idx || !keep || !kept) {
        free(idx);
        goto nomem;
    }
    for (size_t i = 0; i < nb; i++) {
        pos[i] = -1;
        if (m->empty == EMPTY_DROP && w.blocks[i].chars == 0)
            continue;
        pos[i] = (int32_t)n;
        idx[n] = (uint32_t)i;
        seq[n++] = w.blocks[i].chars;
    }
    ps_blockstat_stats st;
    ps_blockstat_select(seq, n, m->top, m->between, keep, &st);
    for (size_t k = 0; k < n; k++)
        kept[idx[k]] = keep[k];

    /* text: kept blocks, one per line */
    if (ps_buf_reserve(&o, w.text.len + 2)) {
        free(idx);
        goto nomem;
    }
    o.data[0] = '\0';
    uint32_t n_kept = 0, n_removed = 0;
    for (size_t i = 0; i < nb; i++) {
        const bs_block *b = &w.blocks[i];
        if (!b->len)
            continue;
        if (!kept[i]) {
            n_removed++;
            continue;
        }
        n_kept++;
        if (ps_buf_append(&o, w.text.data + b->off, b->len) || ps_buf_putc(&o, '\n')) {
            free(idx);
            goto nomem;
        }
    }
    /* title and date around the first (i) and last (j) main blocks, the
     * windows counted in the sequence (window=all) or among the blocks that
     * hold text (window=text) */
    ptrdiff_t wfirst = st.first, wlast = st.last;
    size_t wn = n;
    if (m->window == WINDOW_TEXT && m->empty == EMPTY_KEEP) {
        wn = 0;
        wfirst = wlast = -1;
        for (size_t i = 0; i < nb; i++) {
            pos[i] = -1;
            if (!w.blocks[i].chars)
                continue;
            if (kept[i]) {
                if (wfirst < 0)
                    wfirst = (ptrdiff_t)wn;
                wlast = (ptrdiff_t)wn;
            }
            pos[i] = (int32_t)wn;
            idx[wn++] = (uint32_t)i;
        }
    }
    char *title = NULL, *date = NULL;
    if (wfirst >= 0) {
        const bs_heading *best = NULL;
        for (size_t h = 0; h < w.n_heads; h++) {
            const bs_heading *hd = &w.heads[h];
            int32_t p = hd->block < nb ? pos[hd->block] : -1;
            if (!hd->len || p < 0 || p < wfirst - 2 || p > wfirst + 2)
                continue;
            if (!best || hd->level < best->level)
                best = hd;
        }
        if (best)
            title = strndup(w.htext.data + best->off, best->len);
        char d[11];
        ptrdiff_t wins[2][2] = {{wfirst - 2, wfirst + 2}, {wlast - 2, wlast + 2}};
        for (int k = 0; k < 2 && !date; k++)
            for (ptrdiff_t q = wins[k][0] < 0 ? 0 : wins[k][0]; q <= wins[k][1] && q < (ptrdiff_t)wn && !date; q++) {
                const bs_block *b = &w.blocks[idx[q]];
                if (ps_blockstat_find_date(w.text.data + b->off, b->len, d))
                    date = strdup(d);
            }
    }
    free(idx);
    if (!title && pg->title && *pg->title)
        title = m->title_split ? ps_blockstat_clean_title(pg->title) : strdup(pg->title);
    if (title && !*title) {
        free(title);
        title = NULL;
    }
    /* leaves: kept when most of their characters are in kept blocks */
    out->leaf_kept = malloc(pg->n_leaves + 1);
    if (!out->leaf_kept) {
        free(title);
        free(date);
        goto nomem;
    }
    for (size_t k = 0; k < w.n_pieces; k++)
        if (kept[w.pieces[k].block])
            w.leaf_keep[w.pieces[k].leaf] += w.pieces[k].chars;
    for (size_t l = 0; l < pg->n_leaves; l++)
        out->leaf_kept[l] = w.leaf_tot[l] && 2 * (uint64_t)w.leaf_keep[l] >= w.leaf_tot[l];
    out->text = ps_buf_take(&o, &out->len);
    out->title = title;
    out->date = date;
    out->blocks_kept = n_kept;
    out->blocks_removed = n_removed;
    free(seq);
    free(pos);
    free(keep);
    free(kept);
    walk_free(&w);
    return 0;
nomem:
    free(seq);
    free(pos);
    free(keep);
    free(kept);
    ps_buf_free(&o);
    walk_free(&w);
    return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
}

const ps_method ps_method_blockstat = {
    .name = "blockstat",
    .summary = "text-block character counts: [1 2 1]/4 smoothing, N'min and Ncal thresholds; title and date",
    .flags = 0,
    .create = bs_create,
    .extract = bs_extract,
    .destroy = bs_destroy,
    .options = bs_options,
};
