/* eval/lcs.c — characters in common between an extracted text and its gold
 * (the metric of the text-correlation paper, METHODS.md §3): length of the
 * longest common subsequence of their code points, white space left out.
 *
 * Exact LCS by the bit-parallel algorithm of Hyyro (2004) / Crochemore et
 * al. (2001): one row of the DP table is a bit vector V over the shorter
 * text, updated per character c of the longer one as
 *     U = V & Peq[c];  V = (V + U) | (V - U)
 * (LCS = zero bits of V), i.e. len_a * ceil(len_b / 64) word operations.
 * The common prefix and suffix are matched first (exact: they belong to
 * some LCS), and characters of one text that never occur in the other are
 * dropped (they change no row).
 *
 * When the exact computation would exceed the budget of word operations, the
 * texts are first aligned on anchors — white-space-separated words that occur
 * exactly once in each text — taking the longest run of anchors in the same
 * order in both (patience diff), and the LCS is computed between consecutive
 * anchors (recursively, with anchors unique within each gap).  An anchored
 * alignment is one common subsequence, so the result is a lower bound of the
 * LCS; it is flagged exact = 0.  Gaps without anchors are computed exactly
 * whatever their cost. */
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "common/lis.h"
#include "common/util.h"
#include "pagesift.h"
#include "pagesift/eval.h"

#define DEFAULT_BUDGET 300000000ULL

/* A text as code points without white space, with its words (the runs
 * between white space) for anchoring. */
typedef struct cps {
    uint32_t *c;
    size_t n;
    uint32_t *wstart; /* index in c of each word's first character */
    uint64_t *whash;
    size_t nw;
} cps;

static void cps_free(cps *t)
{
    free(t->c);
    free(t->wstart);
    free(t->whash);
}

static int is_space(UChar32 c)
{
    if (c < 0x80)
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    return u_isUWhiteSpace(c);
}

static int cps_make(const char *s, size_t len, cps *t)
{
    memset(t, 0, sizeof *t);
    t->c = malloc((len + 1) * sizeof *t->c);
    t->wstart = malloc((len / 2 + 2) * sizeof *t->wstart);
    t->whash = malloc((len / 2 + 2) * sizeof *t->whash);
    if (!t->c || !t->wstart || !t->whash)
        return -1;
    const uint8_t *u = (const uint8_t *)s;
    size_t i = 0;
    int in_word = 0;
    uint64_t h = 0;
    while (i < len) {
        UChar32 c;
        int32_t ii = 0, rem = (int32_t)(len - i < 16 ? len - i : 16);
        U8_NEXT(u + i, ii, rem, c);
        i += (size_t)ii;
        if (c < 0)
            c = 0xFFFD;
        if (is_space(c)) {
            if (in_word)
                t->whash[t->nw++] = h;
            in_word = 0;
            continue;
        }
        if (!in_word) {
            t->wstart[t->nw] = (uint32_t)t->n;
            h = 1469598103934665603ULL;
            in_word = 1;
        }
        h = (h ^ (uint64_t)c) * 1099511628211ULL;
        t->c[t->n++] = (uint32_t)c;
    }
    if (in_word)
        t->whash[t->nw++] = h;
    return 0;
}

/* Open-addressing map code point -> row of the Peq table. */
typedef struct cmap {
    uint32_t *key;
    int32_t *val;
    size_t mask;
} cmap;

static int cmap_init(cmap *m, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap <<= 1;
    m->key = malloc(cap * sizeof *m->key);
    m->val = malloc(cap * sizeof *m->val);
    m->mask = cap - 1;
    if (!m->key || !m->val)
        return -1;
    for (size_t i = 0; i < cap; i++)
        m->val[i] = -1;
    return 0;
}

static int32_t *cmap_slot(cmap *m, uint32_t k)
{
    size_t i = (k * 2654435761u) & m->mask;
    while (m->val[i] >= 0 && m->key[i] != k)
        i = (i + 1) & m->mask;
    m->key[i] = k;
    return &m->val[i];
}

static int32_t cmap_get(const cmap *m, uint32_t k)
{
    size_t i = (k * 2654435761u) & m->mask;
    while (m->val[i] >= 0) {
        if (m->key[i] == k)
            return m->val[i];
        i = (i + 1) & m->mask;
    }
    return -1;
}

/* Exact LCS of a[0..na) and b[0..nb) (no prefix/suffix stripping). */
static int lcs_bits(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint64_t *out)
{
    if (na < nb) { /* bit vector over the shorter text */
        const uint32_t *t = a; a = b; b = t;
        size_t tn = na; na = nb; nb = tn;
    }
    *out = 0;
    if (nb == 0)
        return 0;
    cmap m;
    if (cmap_init(&m, nb) < 0) {
        free(m.key);
        free(m.val);
        return -1;
    }
    size_t rows = 0;
    for (size_t j = 0; j < nb; j++) {
        int32_t *v = cmap_slot(&m, b[j]);
        if (*v < 0)
            *v = (int32_t)rows++;
    }
    size_t words = (nb + 63) / 64;
    uint64_t *peq = calloc(rows * words, sizeof *peq);
    uint64_t *V = malloc(words * sizeof *V);
    if (!peq || !V) {
        free(peq);
        free(V);
        free(m.key);
        free(m.val);
        return -1;
    }
    for (size_t j = 0; j < nb; j++) {
        int32_t r = cmap_get(&m, b[j]);
        peq[(size_t)r * words + j / 64] |= 1ULL << (j % 64);
    }
    memset(V, 0xff, words * sizeof *V);
    for (size_t i = 0; i < na; i++) {
        int32_t r = cmap_get(&m, a[i]);
        if (r < 0)
            continue;
        const uint64_t *M = peq + (size_t)r * words;
        uint64_t carry = 0;
        for (size_t k = 0; k < words; k++) {
            uint64_t v = V[k], u = v & M[k];
            uint64_t t = v + u;
            uint64_t c1 = t < v;
            uint64_t x = t + carry;
            carry = c1 | (x < t);
            V[k] = x | (v & ~M[k]);
        }
    }
    uint64_t zeros = 0;
    for (size_t k = 0; k < words; k++) {
        uint64_t v = V[k];
        if (k == words - 1 && nb % 64)
            v |= ~0ULL << (nb % 64);
        zeros += (uint64_t)__builtin_popcountll(~v);
    }
    *out = zeros;
    free(peq);
    free(V);
    free(m.key);
    free(m.val);
    return 0;
}

/* Characters of x[0..nx) that occur in y: those are all the LCS can use. */
static size_t keep_shared(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny, uint32_t *buf)
{
    cmap m;
    if (cmap_init(&m, ny) < 0) {
        free(m.key);
        free(m.val);
        return (size_t)-1;
    }
    for (size_t j = 0; j < ny; j++)
        *cmap_slot(&m, y[j]) = 0;
    size_t k = 0;
    for (size_t i = 0; i < nx; i++)
        if (cmap_get(&m, x[i]) >= 0)
            buf[k++] = x[i];
    free(m.key);
    free(m.val);
    return k;
}

typedef struct span {
    size_t c0, c1; /* characters [c0, c1) */
    size_t w0, w1; /* words [w0, w1) wholly inside */
} span;

static int solve(const cps *A, span sa, const cps *B, span sb, uint64_t budget, uint64_t *out,
                 int *exact, int depth);

/* Exact LCS of two spans, prefix/suffix stripped, foreign characters dropped. */
static int exact_spans(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint64_t *out)
{
    size_t pre = 0;
    while (pre < na && pre < nb && a[pre] == b[pre])
        pre++;
    a += pre; na -= pre; b += pre; nb -= pre;
    size_t suf = 0;
    while (suf < na && suf < nb && a[na - 1 - suf] == b[nb - 1 - suf])
        suf++;
    na -= suf;
    nb -= suf;
    *out = pre + suf;
    if (na == 0 || nb == 0)
        return 0;
    uint32_t *ka = malloc(na * sizeof *ka), *kb = malloc(nb * sizeof *kb);
    if (!ka || !kb) {
        free(ka);
        free(kb);
        return -1;
    }
    size_t ma = keep_shared(a, na, b, nb, ka);
    size_t mb = ma == (size_t)-1 ? ma : keep_shared(b, nb, a, na, kb);
    uint64_t l = 0;
    int rc = (ma == (size_t)-1 || mb == (size_t)-1) ? -1 : lcs_bits(ka, ma, kb, mb, &l);
    free(ka);
    free(kb);
    *out += l;
    return rc;
}

static int cmp_u64_local(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

typedef struct wrec {
    uint64_t h;
    uint32_t side, idx;
} wrec;

static int cmp_wrec(const void *x, const void *y)
{
    const wrec *a = x, *b = y;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    if (a->side != b->side)
        return a->side < b->side ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Anchors: words unique in both spans, longest increasing subsequence of
 * their positions (common/lis.c).  Fills ia/ib (word indices) and returns their number. */
static size_t anchors(const cps *A, span sa, const cps *B, span sb, uint32_t **ia, uint32_t **ib)
{
    size_t na = sa.w1 - sa.w0, nb = sb.w1 - sb.w0, n = na + nb;
    *ia = *ib = NULL;
    wrec *r = malloc((n + 1) * sizeof *r);
    if (!r)
        return (size_t)-1;
    for (size_t i = 0; i < na; i++)
        r[i] = (wrec){A->whash[sa.w0 + i], 0, (uint32_t)(sa.w0 + i)};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (wrec){B->whash[sb.w0 + i], 1, (uint32_t)(sb.w0 + i)};
    qsort(r, n, sizeof *r, cmp_wrec);
    /* pairs (a index, b index) of words occurring once on each side, in
     * order of a index */
    uint32_t *pa = malloc((n + 1) * sizeof *pa), *pb = malloc((n + 1) * sizeof *pb);
    size_t np = 0;
    if (!pa || !pb)
        goto nomem;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].h == r[i].h)
            j++;
        if (j - i == 2 && r[i].side == 0 && r[i + 1].side == 1) {
            pa[np] = r[i].idx;
            pb[np] = r[i + 1].idx;
            np++;
        }
        i = j;
    }
    free(r);
    r = NULL;
    /* sort pairs by a index (insertion into a permutation array) */
    {
        uint32_t *order = malloc((np + 1) * sizeof *order);
        uint32_t *vb = malloc((np + 1) * sizeof *vb), *sel = malloc((np + 1) * sizeof *sel);
        uint64_t *key = malloc((np + 1) * sizeof *key);
        if (!order || !vb || !sel || !key) {
            free(order); free(vb); free(sel); free(key);
            goto nomem;
        }
        for (size_t i = 0; i < np; i++)
            key[i] = ((uint64_t)pa[i] << 32) | i;
        qsort(key, np, sizeof *key, cmp_u64_local);
        for (size_t i = 0; i < np; i++)
            order[i] = (uint32_t)(key[i] & 0xffffffffu);
        /* the longest increasing run of pb in a order */
        for (size_t k = 0; k < np; k++)
            vb[k] = pb[order[k]];
        size_t len = ps_lis(vb, np, sel);
        uint32_t *oa = len != (size_t)-1 ? malloc((len + 1) * sizeof *oa) : NULL;
        uint32_t *ob = len != (size_t)-1 ? malloc((len + 1) * sizeof *ob) : NULL;
        if (!oa || !ob) {
            free(oa); free(ob); free(order); free(vb); free(sel); free(key);
            goto nomem;
        }
        for (size_t i = 0; i < len; i++) {
            oa[i] = pa[order[sel[i]]];
            ob[i] = pb[order[sel[i]]];
        }
        free(order); free(vb); free(sel); free(key);
        free(pa);
        free(pb);
        *ia = oa;
        *ib = ob;
        return len;
    }
nomem:
    free(r);
    free(pa);
    free(pb);
    return (size_t)-1;
}

static size_t wend(const cps *t, size_t w)
{
    return w + 1 < t->nw ? t->wstart[w + 1] : t->n;
}

static int solve(const cps *A, span sa, const cps *B, span sb, uint64_t budget, uint64_t *out,
                 int *exact, int depth)
{
    size_t na = sa.c1 - sa.c0, nb = sb.c1 - sb.c0;
    size_t lo = na < nb ? na : nb, hi = na < nb ? nb : na;
    uint64_t cost = (uint64_t)hi * ((lo + 63) / 64);
    *out = 0;
    if (lo == 0)
        return 0;
    uint32_t *ia = NULL, *ib = NULL;
    size_t k = 0;
    if (cost > budget && depth < 8) {
        k = anchors(A, sa, B, sb, &ia, &ib);
        if (k == (size_t)-1)
            return -1;
    }
    if (k == 0) {
        free(ia);
        free(ib);
        return exact_spans(A->c + sa.c0, na, B->c + sb.c0, nb, out);
    }
    *exact = 0;
    span ga = {sa.c0, 0, sa.w0, 0}, gb = {sb.c0, 0, sb.w0, 0};
    int rc = 0;
    for (size_t i = 0; i <= k && rc == 0; i++) {
        size_t wa = i < k ? ia[i] : sa.w1, wb = i < k ? ib[i] : sb.w1;
        ga.c1 = i < k ? A->wstart[wa] : sa.c1;
        ga.w1 = wa;
        gb.c1 = i < k ? B->wstart[wb] : sb.c1;
        gb.w1 = wb;
        uint64_t g = 0;
        rc = solve(A, ga, B, gb, budget, &g, exact, depth + 1);
        *out += g;
        if (i < k) {
            size_t ea = wend(A, wa), eb = wend(B, wb);
            size_t la = ea - A->wstart[wa], lb = eb - B->wstart[wb];
            if (la == lb && memcmp(A->c + A->wstart[wa], B->c + B->wstart[wb], la * sizeof(uint32_t)) == 0)
                *out += la;
            ga = (span){ea, 0, wa + 1, 0};
            gb = (span){eb, 0, wb + 1, 0};
        }
    }
    free(ia);
    free(ib);
    return rc;
}

int ps_char_lcs(const char *output, size_t output_len, const char *gold, size_t gold_len,
                uint64_t budget, ps_lcs_result *r)
{
    memset(r, 0, sizeof *r);
    r->exact = 1;
    cps A = {0}, B = {0};
    int rc = -1;
    if (cps_make(output ? output : "", output ? output_len : 0, &A) == 0 &&
        cps_make(gold ? gold : "", gold ? gold_len : 0, &B) == 0) {
        r->output_chars = A.n;
        r->gold_chars = B.n;
        span sa = {0, A.n, 0, A.nw}, sb = {0, B.n, 0, B.nw};
        rc = solve(&A, sa, &B, sb, budget ? budget : DEFAULT_BUDGET, &r->common, &r->exact, 0);
    }
    cps_free(&A);
    cps_free(&B);
    return rc;
}
