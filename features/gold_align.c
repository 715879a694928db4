/* features/gold_align.c — align a page's leaf text with its gold text.
 *
 * Both texts are cut into the tokens of the benchmark metric (ps_tokenize:
 * \w runs, one token per CJK character), compared case-insensitively, and
 * aligned as sequences (longest common subsequence), so a word of the gold
 * counts for the page only where it sits in the same order as in the gold —
 * not wherever the same word occurs (a bag of words would credit "the" in
 * the navigation).  Pages run to ~100k tokens, so the LCS is computed the
 * way diff tools do it: strip the common prefix and suffix; a range small
 * enough (<= 64K cells: smaller tables were as accurate on the data sets
 * and 35 % faster than 4M) gets the exact dynamic-programming LCS; a larger one
 * is cut at the tokens that occur exactly once in both halves, keeping the
 * longest chain of them that is increasing in both (patience diff), and each
 * gap between two anchors is aligned the same way; when no single token is
 * unique in both, runs of 2, 3, 5 or 8 tokens are tried, then tokens unique
 * in the gold but repeated (up to 8 times) on the page.  A range without
 * any such anchor gets the DP when it has at most 4M cells, else is left
 * unaligned (it would need a quadratic table).  Among alignments of equal length the DP prefers matched runs to
 * scattered single words. */
#include <stdlib.h>
#include <string.h>

#include "common/lis.h"
#include "common/util.h"
#include "extract/page_internal.h"
#include "features/gold_align.h"
#include "pagesift/labels.h"
#include "pagesift/tokens.h"

#define DP_MAX_CELLS ((size_t)1 << 16)
#define DP_FALLBACK_CELLS ((size_t)4 << 20)
#define MAX_DEPTH 256

typedef struct aligner {
    const uint64_t *a, *b;
    uint8_t *ma, *mb;
    uint16_t *dp;   /* scratch for the DP table, grown on demand */
    size_t dp_cap;
    int oom;
} aligner;

/* Exact LCS of a[alo..ahi) and b[blo..bhi) (na * nb <= DP_MAX_CELLS, so both
 * are < 65536 or the other is tiny: lengths fit in uint16_t). */
static void dp_lcs(aligner *al, size_t alo, size_t ahi, size_t blo, size_t bhi)
{
    size_t na = ahi - alo, nb = bhi - blo, w = nb + 1;
    size_t cells = (na + 1) * w;
    if (cells > al->dp_cap) {
        uint16_t *d = realloc(al->dp, cells * sizeof *d);
        if (!d) {
            al->oom = 1;
            return;
        }
        al->dp = d;
        al->dp_cap = cells;
    }
    uint16_t *d = al->dp;
    /* d[i*w + j] = LCS of the suffixes a[alo+i..], b[blo+j..] */
    for (size_t j = 0; j <= nb; j++)
        d[na * w + j] = 0;
    for (size_t i = na; i-- > 0;) {
        uint16_t *row = d + i * w, *next = row + w;
        row[nb] = 0;
        uint64_t ai = al->a[alo + i];
        for (size_t j = nb; j-- > 0;) {
            if (ai == al->b[blo + j])
                row[j] = (uint16_t)(next[j + 1] + 1);
            else
                row[j] = next[j] >= row[j + 1] ? next[j] : row[j + 1];
        }
    }
    /* Walk the table from the start.  Where a[i] == b[j] but skipping a[i]
     * loses nothing, a[i] is matched only when the next tokens match too:
     * among equally long alignments this prefers runs to scattered words
     * (the "the" of a link line before the article is left alone). */
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int eq = al->a[alo + i] == al->b[blo + j];
        if (eq && d[(i + 1) * w + j] == d[i * w + j] &&
            !(i + 1 < na && j + 1 < nb && al->a[alo + i + 1] == al->b[blo + j + 1]))
            eq = 0;
        if (eq) {
            al->ma[alo + i] = 1;
            al->mb[blo + j] = 1;
            i++;
            j++;
        } else if (d[(i + 1) * w + j] >= d[i * w + j + 1]) {
            i++;
        } else {
            j++;
        }
    }
}

typedef struct slot {
    uint64_t h;
    uint32_t ca, cb; /* occurrences in the a and b ranges */
    uint32_t pa, pb; /* position of the (last) occurrence */
} slot;

typedef struct pair {
    uint32_t ia, ib;
} pair;

static slot *find_slot(slot *t, size_t mask, uint64_t h)
{
    size_t k = (size_t)(h ^ (h >> 29)) & mask;
    while (t[k].ca + t[k].cb && t[k].h != h)
        k = (k + 1) & mask;
    t[k].h = h;
    return &t[k];
}

/* Hash of the n tokens from s[i]. */
static uint64_t gram(const uint64_t *s, size_t i, int n)
{
    uint64_t h = s[i];
    for (int k = 1; k < n; k++)
        h = (h * 0x9E3779B97F4A7C15ULL) ^ s[i + (size_t)k];
    return h;
}

/* Anchors of a range: runs of n tokens occurring once in b and at most
 * max_ca times in a (every occurrence is a candidate), the longest chain
 * increasing in both, overlaps dropped.  Returns their number
 * (in *out, malloc'ed) or 0. */
static size_t anchors(aligner *al, size_t alo, size_t ahi, size_t blo, size_t bhi, int n,
                      uint32_t max_ca, pair **out)
{
    if (ahi - alo < (size_t)n || bhi - blo < (size_t)n)
        return 0;
    size_t ea = ahi - (size_t)n + 1, eb = bhi - (size_t)n + 1;
    size_t cnt = (ea - alo) + (eb - blo), cap = 16;
    while (cap < 2 * cnt)
        cap <<= 1;
    slot *t = calloc(cap, sizeof *t);
    pair *p = malloc((ea - alo) * sizeof *p);
    if (!t || !p) {
        free(t);
        free(p);
        al->oom = 1;
        return 0;
    }
    for (size_t i = alo; i < ea; i++) {
        slot *s = find_slot(t, cap - 1, gram(al->a, i, n));
        s->ca++;
        s->pa = (uint32_t)i;
    }
    for (size_t j = blo; j < eb; j++) {
        slot *s = find_slot(t, cap - 1, gram(al->b, j, n));
        s->cb++;
        s->pb = (uint32_t)j;
    }
    size_t k = 0;
    for (size_t i = alo; i < ea; i++) { /* in a's order */
        slot *s = find_slot(t, cap - 1, gram(al->a, i, n));
        if (s->ca > max_ca || s->cb != 1)
            continue;
        int same = 1; /* the hashes agree; make sure the tokens do */
        for (int q = 0; q < n && same; q++)
            same = al->a[i + (size_t)q] == al->b[s->pb + (size_t)q];
        if (same)
            p[k++] = (pair){(uint32_t)i, s->pb};
    }
    free(t);
    if (k == 0) {
        free(p);
        return 0;
    }
    /* longest increasing subsequence of ib (common/lis.c) */
    uint32_t *vb = malloc(k * sizeof *vb), *sel = malloc(k * sizeof *sel);
    size_t len = (size_t)-1;
    if (vb && sel) {
        for (size_t x = 0; x < k; x++)
            vb[x] = p[x].ib;
        len = ps_lis(vb, k, sel);
    }
    if (len == (size_t)-1) {
        free(vb);
        free(sel);
        free(p);
        al->oom = 1;
        return 0;
    }
    pair *chain = malloc(len * sizeof *chain);
    size_t kept = 0;
    if (chain) {
        for (size_t r = 0; r < len; r++)
            chain[r] = p[sel[r]];
        /* n-grams may overlap: keep those that start after the last kept */
        for (size_t r = 0; r < len; r++)
            if (!kept || (chain[r].ia >= chain[kept - 1].ia + (uint32_t)n &&
                          chain[r].ib >= chain[kept - 1].ib + (uint32_t)n))
                chain[kept++] = chain[r];
    } else {
        al->oom = 1;
    }
    free(vb);
    free(sel);
    free(p);
    *out = chain;
    return kept;
}

static void align(aligner *al, size_t alo, size_t ahi, size_t blo, size_t bhi, int depth)
{
    while (alo < ahi && blo < bhi && al->a[alo] == al->b[blo]) {
        al->ma[alo++] = 1;
        al->mb[blo++] = 1;
    }
    while (alo < ahi && blo < bhi && al->a[ahi - 1] == al->b[bhi - 1]) {
        al->ma[--ahi] = 1;
        al->mb[--bhi] = 1;
    }
    if (alo == ahi || blo == bhi || al->oom)
        return;
    size_t na = ahi - alo, nb = bhi - blo;
    if ((na + 1) * (nb + 1) <= DP_MAX_CELLS) {
        dp_lcs(al, alo, ahi, blo, bhi);
        return;
    }
    if (depth >= MAX_DEPTH)
        return;
    /* single tokens unique in both first; failing that, runs of 2, 3, 5, 8
     * tokens (a small vocabulary repeats words, rarely their sequences);
     * failing that, tokens unique in the gold that the page repeats up to 8
     * times (pages that carry the article twice, e.g. a print copy) */
    static const struct {
        int n;
        uint32_t max_ca;
    } stages[] = {{1, 1}, {2, 1}, {3, 1}, {5, 1}, {8, 1}, {1, 8}, {3, 8}};
    pair *ch = NULL;
    size_t k = 0;
    int n = 1;
    for (size_t g = 0; g < sizeof stages / sizeof *stages && !k && !al->oom; g++) {
        n = stages[g].n;
        k = anchors(al, alo, ahi, blo, bhi, n, stages[g].max_ca, &ch);
        if (!k) {
            free(ch);
            ch = NULL;
        }
    }
    if (!k && !al->oom && (na + 1) * (nb + 1) <= DP_FALLBACK_CELLS) {
        dp_lcs(al, alo, ahi, blo, bhi); /* no anchor at all: exact, if affordable */
        return;
    }
    size_t pa = alo, pb = blo;
    for (size_t r = 0; r < k; r++) {
        align(al, pa, ch[r].ia, pb, ch[r].ib, depth + 1);
        for (int q = 0; q < n; q++) {
            al->ma[ch[r].ia + (size_t)q] = 1;
            al->mb[ch[r].ib + (size_t)q] = 1;
        }
        pa = ch[r].ia + (size_t)n;
        pb = ch[r].ib + (size_t)n;
    }
    if (k)
        align(al, pa, ahi, pb, bhi, depth + 1);
    free(ch);
}

int ps_lcs_mark(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint8_t *ma,
                uint8_t *mb)
{
    aligner al = {.a = a, .b = b, .ma = ma, .mb = mb};
    align(&al, 0, na, 0, nb, 0);
    free(al.dp);
    return al.oom ? -1 : 0;
}

/* Hash of a token with ASCII letters lower-cased (FNV-1a, as ps_hash64). */
static uint64_t token_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        h = (h ^ c) * 1099511628211ULL;
    }
    return h;
}

static uint32_t token_chars(const char *s, size_t n)
{
    uint32_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

int ps_gold_align_leaves(const ps_page *pg, const char *gold, size_t gold_len,
                         ps_leaf_align *out, uint64_t *gold_total, uint64_t *gold_matched)
{
    memset(out, 0, pg->n_leaves * sizeof *out);
    /* The page's text in reading order: the text runs (DOM text nodes) of
     * every leaf, joined as ps_page_text joins them — a leaf's own text may
     * be split around the leaves nested in it, so leaf by leaf is not the
     * reading order.  Runs not separated by space stay glued ("e<b>x</b>am"
     * is one word); a token is credited to the leaf of the run it starts in. */
    ps_buf text = {0};
    uint32_t *start = malloc((pg->n_runs + 1) * sizeof *start);
    int rc = -1;
    ps_token *pt = NULL, *gt = NULL;
    uint64_t *ha = NULL, *hb = NULL;
    uint8_t *ma = NULL, *mb = NULL;
    size_t np = 0, ng = 0;
    if (!start)
        goto done;
    int brk = 0, space = 0;
    int32_t last_block = -1;
    for (size_t i = 0; i < pg->n_runs; i++) {
        const ps_run *r = &pg->runs[i];
        int32_t blk = pg->leaves[r->leaf].block;
        brk |= r->brk;
        space |= r->space_before;
        if (text.len && (brk || blk != last_block || space) && ps_buf_putc(&text, '\n'))
            goto done;
        start[i] = (uint32_t)text.len;
        if (ps_buf_append(&text, pg->runtext + r->off, r->len))
            goto done;
        last_block = blk;
        brk = 0;
        space = r->space_after;
    }
    start[pg->n_runs] = (uint32_t)text.len;
    np = ps_tokenize(text.data ? text.data : "", text.len, &pt);
    ng = ps_tokenize(gold ? gold : "", gold ? gold_len : 0, &gt);
    if (np == (size_t)-1 || ng == (size_t)-1) {
        if (np != (size_t)-1)
            free(pt);
        if (ng != (size_t)-1)
            free(gt);
        pt = gt = NULL;
        goto done;
    }
    ha = malloc((np + 1) * sizeof *ha);
    hb = malloc((ng + 1) * sizeof *hb);
    ma = calloc(np + 1, 1);
    mb = calloc(ng + 1, 1);
    if (!ha || !hb || !ma || !mb)
        goto done;
    for (size_t i = 0; i < np; i++)
        ha[i] = token_hash(text.data + pt[i].off, pt[i].len);
    for (size_t j = 0; j < ng; j++)
        hb[j] = token_hash(gold + gt[j].off, gt[j].len);
    if (ps_lcs_mark(ha, np, hb, ng, ma, mb))
        goto done;
    size_t run = 0;
    for (size_t i = 0; i < np; i++) {
        while (run + 1 < pg->n_runs && pt[i].off >= start[run + 1])
            run++;
        uint32_t leaf = pg->runs[run].leaf;
        uint32_t c = token_chars(text.data + pt[i].off, pt[i].len);
        out[leaf].total += c;
        if (ma[i])
            out[leaf].matched += c;
    }
    uint64_t gt_all = 0, gt_m = 0;
    for (size_t j = 0; j < ng; j++) {
        uint32_t c = token_chars(gold + gt[j].off, gt[j].len);
        gt_all += c;
        if (mb[j])
            gt_m += c;
    }
    if (gold_total)
        *gold_total = gt_all;
    if (gold_matched)
        *gold_matched = gt_m;
    rc = 0;
done:
    ps_buf_free(&text);
    free(start);
    free(pt);
    free(gt);
    free(ha);
    free(hb);
    free(ma);
    free(mb);
    return rc;
}

int ps_page_gold_alignment(const ps_page *pg, const char *gold, size_t gold_len,
                           double *leaf_share, double *block_share)
{
    if (!pg)
        return -1;
    size_t nl, nb;
    const ps_leaf *leaves = ps_page_leaves(pg, &nl);
    ps_page_blocks(pg, &nb);
    ps_leaf_align *al = malloc((nl ? nl : 1) * sizeof *al);
    if (!al || ps_gold_align_leaves(pg, gold, gold_len, al, NULL, NULL)) {
        free(al);
        return -1;
    }
    if (leaf_share)
        for (size_t i = 0; i < nl; i++)
            leaf_share[i] = al[i].total ? (double)al[i].matched / al[i].total : 0.0;
    if (block_share) {
        uint64_t *m = calloc(2 * (nb ? nb : 1), sizeof *m);
        if (!m) {
            free(al);
            return -1;
        }
        for (size_t i = 0; i < nl; i++) {
            int32_t b = leaves[i].block;
            if (leaves[i].removed || b < 0 || (size_t)b >= nb)
                continue;
            m[2 * b] += al[i].matched;
            m[2 * b + 1] += al[i].total;
        }
        for (size_t b = 0; b < nb; b++)
            block_share[b] = m[2 * b + 1] ? (double)m[2 * b] / (double)m[2 * b + 1] : -1.0;
        free(m);
    }
    free(al);
    return 0;
}
