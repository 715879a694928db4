/* features/snippets.c — snippet sets: the corpus's scoring rule and block
 * labels from snippets (features/snippets.h).
 *
 * The rule of trafilatura's evaluation (../shared/datasets/trafilatura-eval
 * README): white space collapsed in the output and in each snippet, a
 * snippet is present when it is a substring of the output.  Collapsing here
 * is Python's ' '.join(s.split()): runs of Unicode white space become one
 * space, none at either end.
 *
 * Labels: the page's text is built from its runs as ps_page_text joins them
 * (a separator at paragraph and block boundaries and where the source had
 * white space), with the leaf of every byte remembered, then collapsed.
 * Each occurrence of a 'with' snippet votes content for every block it
 * touches (the snippet is in the output only when all of them are kept);
 * each occurrence of a 'without' snippet votes noise for the blocks it
 * covers enough of (half of the block's own characters, or half of the
 * snippet's: dropping those removes it). */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "extract/page_internal.h"
#include "features/snippets.h"

/* Bytes of the white-space character at s[i] (Python's str.isspace), or 0. */
static size_t ws_len(const unsigned char *s, size_t i, size_t n)
{
    unsigned char c = s[i];
    if (c < 0x80)
        return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) ? 1 : 0;
    if (c == 0xC2 && i + 1 < n)
        return s[i + 1] == 0x85 || s[i + 1] == 0xA0 ? 2 : 0;
    if (i + 2 >= n)
        return 0;
    unsigned char d = s[i + 1], e = s[i + 2];
    if (c == 0xE1)
        return d == 0x9A && e == 0x80 ? 3 : 0;
    if (c == 0xE2 && d == 0x80)
        return (e >= 0x80 && e <= 0x8A) || e == 0xA8 || e == 0xA9 || e == 0xAF ? 3 : 0;
    if (c == 0xE2 && d == 0x81)
        return e == 0x9F ? 3 : 0;
    if (c == 0xE3)
        return d == 0x80 && e == 0x80 ? 3 : 0;
    return 0;
}

/* Collapse s[0..n) into out (room for n + 1 bytes); map_in/map_out (both
 * NULL or both set) carry a tag per byte, a collapsed space gets -1.
 * Returns the length written (NUL-terminated). */
static size_t collapse(const char *s, size_t n, const int32_t *map_in, char *out, int32_t *map_out)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0;
    int pending = 0;
    for (size_t i = 0; i < n;) {
        size_t w = ws_len(u, i, n);
        if (w) {
            pending = o > 0;
            i += w;
            continue;
        }
        if (pending) {
            if (map_out)
                map_out[o] = -1;
            out[o++] = ' ';
            pending = 0;
        }
        if (map_out)
            map_out[o] = map_in[i];
        out[o++] = s[i++];
    }
    out[o] = '\0';
    return o;
}

char *ps_ws_collapse(const char *s, size_t n, size_t *out_len)
{
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t k = collapse(s ? s : "", s ? n : 0, NULL, out, NULL);
    if (out_len)
        *out_len = k;
    return out;
}

static int present(const char *hay, size_t hn, const char *snippet)
{
    size_t sl;
    char *c = ps_ws_collapse(snippet, strlen(snippet), &sl);
    if (!c)
        return -1;
    int r = sl == 0 || (sl <= hn && memmem(hay, hn, c, sl) != NULL);
    free(c);
    return r;
}

int ps_snippet_score(const char *text, size_t len, const ps_snippets *sn, uint8_t *with_hit,
                     uint8_t *without_hit, ps_snippet_counts *c)
{
    memset(c, 0, sizeof *c);
    char *t = NULL;
    size_t tl = 0;
    if (text && !(t = ps_ws_collapse(text, len, &tl)))
        return -1;
    for (size_t i = 0; i < sn->n_with; i++) {
        int r = t ? present(t, tl, sn->with[i]) : 0;
        if (r < 0)
            goto nomem;
        r ? c->tp++ : c->fn++;
        if (with_hit)
            with_hit[i] = (uint8_t)r;
    }
    for (size_t i = 0; i < sn->n_without; i++) {
        int r = t ? present(t, tl, sn->without[i]) : 0;
        if (r < 0)
            goto nomem;
        r ? c->fp++ : c->tn++;
        if (without_hit)
            without_hit[i] = (uint8_t)r;
    }
    free(t);
    return 0;
nomem:
    free(t);
    return -1;
}

void ps_snippet_prf(const ps_snippet_counts *c, double *p, double *r, double *f1)
{
    double tp = (double)c->tp, fp = (double)c->fp, fn = (double)c->fn;
    *p = tp + fp > 0 ? tp / (tp + fp) : 0.0;
    *r = tp + fn > 0 ? tp / (tp + fn) : 0.0;
    *f1 = 2 * tp + fp + fn > 0 ? 2 * tp / (2 * tp + fp + fn) : 0.0;
}

/* ---- block labels ---------------------------------------------------------- */

typedef struct labeller {
    const ps_page *pg;
    char *text;        /* collapsed page text */
    int32_t *leaf;     /* leaf of each byte of text, -1 for a separator */
    size_t len;
    uint32_t *own;     /* per block: characters of text in its leaves */
    uint32_t *ov;      /* per block: characters of the current occurrence */
    int32_t *touched;  /* blocks with ov > 0 */
    uint8_t *votes;    /* per block: 1 with, 2 without (bits) */
} labeller;

/* The page text of every leaf not removed, with the leaf of each byte. */
static int build_text(labeller *L)
{
    const ps_page *pg = L->pg;
    size_t cap = 1;
    for (size_t i = 0; i < pg->n_runs; i++)
        cap += pg->runs[i].len + 1;
    char *raw = malloc(cap);
    int32_t *map = malloc(cap * sizeof *map);
    L->text = malloc(cap);
    L->leaf = malloc(cap * sizeof *L->leaf);
    if (!raw || !map || !L->text || !L->leaf) {
        free(raw);
        free(map);
        return -1;
    }
    size_t n = 0;
    int brk = 0, space = 0;
    int32_t last_block = -1;
    for (size_t i = 0; i < pg->n_runs; i++) {
        const ps_run *r = &pg->runs[i];
        const ps_leaf *l = &pg->leaves[r->leaf];
        brk |= r->brk;
        space |= r->space_before;
        if (l->removed) {
            space |= r->space_after;
            continue;
        }
        if (n && (brk || space || l->block != last_block)) {
            map[n] = -1;
            raw[n++] = ' ';
        }
        memcpy(raw + n, pg->runtext + r->off, r->len);
        for (uint32_t k = 0; k < r->len; k++)
            map[n + k] = (int32_t)r->leaf;
        n += r->len;
        last_block = l->block;
        brk = 0;
        space = r->space_after;
    }
    L->len = collapse(raw, n, map, L->text, L->leaf);
    free(raw);
    free(map);
    return 0;
}

static inline int lead_byte(char c)
{
    return ((unsigned char)c & 0xC0) != 0x80;
}

/* Every occurrence of snippet s votes with bit @p bit; returns 1 when the
 * snippet occurs on the page. */
static int vote(labeller *L, const char *s, size_t sl, uint8_t bit)
{
    int found = 0;
    const ps_leaf *leaves = L->pg->leaves;
    for (size_t from = 0; sl && from + sl <= L->len;) {
        const char *hit = memmem(L->text + from, L->len - from, s, sl);
        if (!hit)
            break;
        found = 1;
        size_t a = (size_t)(hit - L->text), e = a + sl, nt = 0;
        uint32_t chars = 0;
        for (size_t i = a; i < e; i++) {
            if (L->leaf[i] < 0 || !lead_byte(L->text[i]))
                continue;
            int32_t b = leaves[L->leaf[i]].block;
            if (L->ov[b]++ == 0)
                L->touched[nt++] = b;
            chars++;
        }
        for (size_t k = 0; k < nt; k++) {
            int32_t b = L->touched[k];
            /* a 'with' snippet is in the output only when every block it
             * touches is kept: each is content; a 'without' snippet is gone
             * when one is dropped: the blocks holding much of it are noise */
            if (bit == 1 || 2 * (uint64_t)L->ov[b] >= L->own[b] || 2 * (uint64_t)L->ov[b] >= chars)
                L->votes[b] |= bit;
            L->ov[b] = 0;
        }
        from = e;
    }
    return found;
}

int ps_snippet_block_labels(const ps_page *pg, const ps_snippets *sn, uint8_t *label,
                            ps_snippet_label_info *info)
{
    labeller L = {.pg = pg};
    size_t nb = pg->n_blocks;
    int rc = -1;
    ps_snippet_label_info inf = {0};
    L.own = calloc(nb + 1, sizeof *L.own);
    L.ov = calloc(nb + 1, sizeof *L.ov);
    L.touched = malloc((nb + 1) * sizeof *L.touched);
    L.votes = calloc(nb + 1, 1);
    if (!L.own || !L.ov || !L.touched || !L.votes || build_text(&L) < 0)
        goto done;
    for (size_t i = 0; i < L.len; i++) /* a leaf outside every block: as a separator */
        if (L.leaf[i] >= 0 && (pg->leaves[L.leaf[i]].block < 0 ||
                               (size_t)pg->leaves[L.leaf[i]].block >= nb))
            L.leaf[i] = -1;
    for (size_t i = 0; i < L.len; i++)
        if (L.leaf[i] >= 0 && lead_byte(L.text[i]))
            L.own[pg->leaves[L.leaf[i]].block]++;
    for (int kind = 0; kind < 2; kind++) {
        char **v = kind ? sn->without : sn->with;
        size_t n = kind ? sn->n_without : sn->n_with;
        for (size_t i = 0; i < n; i++) {
            size_t sl;
            char *c = ps_ws_collapse(v[i], strlen(v[i]), &sl);
            if (!c)
                goto done;
            int f = vote(&L, c, sl, (uint8_t)(kind ? 2 : 1));
            free(c);
            if (kind)
                inf.without_found += (uint32_t)f;
            else
                inf.with_found += (uint32_t)f;
        }
    }
    for (size_t b = 0; b < nb; b++) {
        label[b] = L.votes[b] == 1 ? 1 : L.votes[b] == 2 ? 0 : 2;
        inf.conflicts += L.votes[b] == 3;
    }
    if (info)
        *info = inf;
    rc = 0;
done:
    free(L.text);
    free(L.leaf);
    free(L.own);
    free(L.ov);
    free(L.touched);
    free(L.votes);
    return rc;
}
