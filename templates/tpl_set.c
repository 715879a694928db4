/* templates/tpl_set.c — an indexed set of (tag name, text) items: the batch
 * cache S of METHODS.md §1.1 and the entries of a library are both one.
 *
 * Finding the item similar to a leaf never scans the set:
 *   1. exact index: hash of (tag, text) -> chain of items;
 *   2. texts of more than 8 code points may differ by k = floor(min(L, M)/8)
 *      edits, so only lengths M with |L - M| <= k can match; the length
 *      index maps (tag, M) -> chain of the items of that length, with its
 *      size;
 *   3. a length with more items than a segment search costs is searched
 *      through the segment index instead of scanned (issue 32, defect 3:
 *      10 pages of N distinct leaves of one length took 7 / 30 / 130 s to
 *      learn for N = 2k / 4k / 8k, every leaf walking every item).  Each
 *      item of M code points is cut into floor(M/8) + 1 segments (of 4 to
 *      8 code points) and indexed by (tag, M, i, the segment's code
 *      points).  Within k <= floor(M/8) edits at least one segment is left
 *      whole (pigeonhole), and an edit before it shifts it by one, so it
 *      occurs in the query at p_i + a with |a| + |L - M - a| <= k: looking
 *      up the query's substrings at those places finds every item that can
 *      match (PassJoin, Li et al. 2011).  When those chains hold more items
 *      than the length (texts made of a few recurring words), the length
 *      is scanned instead: never more work than step 2 alone;
 *   4. each candidate passes a character-histogram lower bound and a
 *      3-gram count bound before the banded edit distance (edit_distance.c)
 *      runs with early exit.
 * The closest candidate wins (ties: the oldest item), so the result does
 * not depend on which candidates are found or in which order. */
#include <stdlib.h>
#include <string.h>

#include "templates/tpl_internal.h"

#define NONE UINT32_MAX

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t band_key(uint64_t tag_hash, uint32_t chars)
{
    return mix(tag_hash ^ ((uint64_t)chars * 0x9E3779B97F4A7C15ULL));
}

/* ---- segments (step 3 above) --------------------------------------------- */

#define SEG_BASE 0x100000001B3ULL /* polynomial hash of code points, mod 2^64 */

/* Segments of an M-code-point text: floor(M/8) + 1, so that within
 * k <= floor(M/8) edits at least one is left whole. */
static uint32_t seg_count(uint32_t M)
{
    return M / 8 + 1;
}

/* Segment @p i of an M-code-point text: start and length (the first ones
 * floor(M / n) long, the last M % n one more). */
static void seg_span(uint32_t M, uint32_t i, uint32_t *start, uint32_t *len)
{
    uint32_t n = seg_count(M), base = M / n, longer = M % n, shorter = n - longer;
    if (i < shorter) {
        *start = i * base;
        *len = base;
    } else {
        *start = shorter * base + (i - shorter) * (base + 1);
        *len = base + 1;
    }
}

static uint64_t seg_hash(const uint32_t *cps, uint32_t len)
{
    uint64_t h = 0;
    for (uint32_t j = 0; j < len; j++)
        h = h * SEG_BASE + cps[j] + 1;
    return h;
}

static uint64_t seg_key(uint64_t tag_hash, uint32_t M, uint32_t i, uint64_t h)
{
    return mix(mix(tag_hash ^ ((uint64_t)M << 32 | i)) ^ h);
}

static unsigned hist_bucket(uint32_t cp)
{
    return (unsigned)((cp * 2654435761u) >> 27) & (TPL_HIST - 1);
}

/* ---- open-addressing table: key -> head of a chain ---------------------- */

static uint32_t *table_slot(const tpl_table *t, uint64_t key)
{
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)mix(key) & mask;; i = (i + 1) & mask) {
        if (t->heads[i] == NONE || t->keys[i] == key)
            return &t->heads[i];
    }
}

static int table_grow(tpl_table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    uint64_t *nk = malloc(ncap * sizeof *nk);
    uint32_t *nh = malloc(ncap * sizeof *nh);
    uint32_t *nc = malloc(ncap * sizeof *nc);
    if (!nk || !nh || !nc) {
        free(nk);
        free(nh);
        free(nc);
        return -1;
    }
    memset(nh, 0xFF, ncap * sizeof *nh);
    for (size_t i = 0; i < t->cap; i++) {
        if (t->heads[i] == NONE)
            continue;
        size_t j = (size_t)mix(t->keys[i]) & (ncap - 1);
        while (nh[j] != NONE)
            j = (j + 1) & (ncap - 1);
        nk[j] = t->keys[i];
        nh[j] = t->heads[i];
        nc[j] = t->counts[i];
    }
    free(t->keys);
    free(t->heads);
    free(t->counts);
    t->keys = nk;
    t->heads = nh;
    t->counts = nc;
    t->cap = ncap;
    return 0;
}

/* Insert item @p idx at the head of the chain of @p key; *next gets the old
 * head. */
static int table_push(tpl_table *t, uint64_t key, uint32_t idx, uint32_t *next)
{
    if ((t->used + 1) * 4 > t->cap * 3 && table_grow(t) < 0)
        return -1;
    uint32_t *slot = table_slot(t, key);
    if (*slot == NONE) {
        t->keys[slot - t->heads] = key;
        t->counts[slot - t->heads] = 0;
        t->used++;
    }
    t->counts[slot - t->heads]++;
    *next = *slot;
    *slot = idx;
    return 0;
}

static uint32_t table_get(const tpl_table *t, uint64_t key)
{
    uint32_t *slot = table_slot(t, key);
    return slot ? *slot : NONE;
}

/* The head of @p key's chain, *count its length. */
static uint32_t table_get_count(const tpl_table *t, uint64_t key, uint32_t *count)
{
    uint32_t *slot = table_slot(t, key);
    *count = slot && *slot != NONE ? t->counts[slot - t->heads] : 0;
    return slot ? *slot : NONE;
}

static void table_free(tpl_table *t)
{
    free(t->keys);
    free(t->heads);
    free(t->counts);
}

/* ---- the set ------------------------------------------------------------- */

void tpl_set_init(tpl_set *s)
{
    memset(s, 0, sizeof *s);
}

void tpl_set_free(tpl_set *s)
{
    free(s->items);
    ps_buf_free(&s->str);
    free(s->cps);
    free(s->hist);
    free(s->grams);
    table_free(&s->exact);
    table_free(&s->band);
    table_free(&s->seg);
    free(s->seg_item);
    free(s->seg_next);
    memset(s, 0, sizeof *s);
}

void tpl_query_init(tpl_query *q, const char *tag, const char *text, uint32_t bytes,
                    uint32_t chars, uint32_t *cpbuf)
{
    q->tag = tag;
    q->text = text;
    q->bytes = bytes;
    q->chars = chars;
    q->tag_hash = ps_hash64(tag, strlen(tag));
    q->hash = ps_hash64_update(ps_hash64_update(q->tag_hash, "", 1), text, bytes);
    q->cps = NULL;
    q->grams = NULL;
    q->grams_ready = 0;
    if (chars > TPL_EXACT_ONLY_CHARS && cpbuf) {
        q->grams = cpbuf + chars;
        size_t n = tpl_utf8_decode(text, bytes, cpbuf, chars);
        q->chars = (uint32_t)n;
        q->cps = cpbuf;
        memset(q->hist, 0, sizeof q->hist);
        for (size_t i = 0; i < n; i++)
            if (q->hist[hist_bucket(cpbuf[i])] < UINT16_MAX)
                q->hist[hist_bucket(cpbuf[i])]++;
    }
}

/* The sorted 3-gram hashes of a query of TPL_GRAM_MIN+ characters: hashed,
 * then LSD radix-sorted (4 passes of 8 bits) through the scratch space
 * after them. */
static void query_grams(tpl_query *q)
{
    if (q->grams_ready || !q->grams || q->chars < TPL_GRAM_MIN)
        return;
    size_t n = q->chars - 2;
    uint32_t *a = q->grams, *tmp = q->grams + q->chars;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = ((uint64_t)q->cps[i] * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)q->cps[i + 1] * 0xC2B2AE3D27D4EB4FULL) ^
                     ((uint64_t)q->cps[i + 2] * 0x165667B19E3779F9ULL);
        a[i] = (uint32_t)(mix(h) >> 32);
    }
    for (int shift = 0; shift < 32; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((a[i] >> shift) & 0xFF) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            tmp[count[(a[i] >> shift) & 0xFF]++] = a[i];
        uint32_t *t = a; a = tmp; tmp = t;
    }
    /* after 4 passes the sorted values are back in q->grams */
    q->grams_ready = 1;
}

/* Whether two sorted gram arrays share at least @p need values (multiset);
 * stops as soon as the rest cannot make it up. */
static int grams_share(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, size_t need)
{
    size_t i = 0, j = 0, common = 0;
    while (i < na && j < nb) {
        size_t left = (na - i < nb - j ? na - i : nb - j);
        if (common + left < need)
            return 0;
        if (common >= need)
            return 1;
        if (a[i] == b[j])
            common++, i++, j++;
        else if (a[i] < b[j])
            i++;
        else
            j++;
    }
    return common >= need;
}

static int same_tag(const tpl_set *s, const tpl_item *it, const tpl_query *q)
{
    return it->tag_hash == q->tag_hash && strcmp(tpl_item_tag(s, it), q->tag) == 0;
}

/* Lower bound of the edit distance from the histograms: L1 / 2.  Saturated
 * counts (texts of 65535+ characters in one bucket) make the bound unsafe,
 * so such texts skip the filter. */
static unsigned hist_bound(const uint16_t *a, const uint16_t *b)
{
    unsigned l1 = 0;
    for (int i = 0; i < TPL_HIST; i++) {
        if (a[i] == UINT16_MAX || b[i] == UINT16_MAX)
            return 0;
        l1 += (unsigned)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
    }
    return (l1 + 1) / 2;
}

/* Whether item @p i (of the query's tag, M code points) is within the
 * threshold of @p q and closer than the best so far: then it becomes the
 * best (ties: the oldest). */
static void consider(const tpl_set *s, tpl_query *q, uint32_t i, long *best, unsigned *best_d)
{
    const tpl_item *it = &s->items[i];
    const uint32_t L = q->chars, M = it->chars;
    if ((long)i == *best)
        return; /* found again through another segment */
    unsigned k = (M < L ? M : L) / 8;
    if (*best >= 0 && *best_d < k)
        k = *best_d; /* only as close or closer can win */
    if ((M < L ? L - M : M - L) > k)
        return;
    if (hist_bound(q->hist, s->hist + it->hist_off) > k)
        return;
    if (M >= TPL_GRAM_MIN && L >= TPL_GRAM_MIN) {
        size_t longest = M > L ? M : L;
        if (longest > 2 + 3 * (size_t)k) {
            query_grams(q);
            if (q->grams_ready &&
                !grams_share(q->grams, L - 2, s->grams + it->gram_off, M - 2, longest - 2 - 3 * (size_t)k))
                return;
        }
    }
    unsigned d = tpl_edit_distance(q->cps, L, s->cps + it->cp_off, M, k);
    if (d <= k && (*best < 0 || d < *best_d || (d == *best_d && (long)i < *best))) {
        *best = (long)i;
        *best_d = d;
    }
}

/* Step 3: the items of length @p M that hold one of their segments whole
 * in the query where an alignment within the threshold would put it.
 * @p pre is the query's prefix hashes (pre[x] of cps[0..x)), @p pw the
 * powers of SEG_BASE.  When the chains of the segments looked up hold more
 * than @p scan items (texts made of a few recurring words share most
 * segments), nothing is done and 0 returned: scanning the length is
 * cheaper.  Else 1. */
static int find_by_segments(const tpl_set *s, tpl_query *q, uint32_t M, const uint64_t *pre,
                            const uint64_t *pw, uint32_t scan, long *best, unsigned *best_d)
{
    const uint32_t L = q->chars, n = seg_count(M);
    const long k = (long)((M < L ? M : L) / 8), delta = (long)L - (long)M;
    /* shift a of a segment left whole: |a| + |delta - a| <= k */
    const long amin = (delta - k) >= 0 ? (delta - k + 1) / 2 : -((k - delta) / 2);
    const long amax = (delta + k) >= 0 ? (delta + k) / 2 : -((-(delta + k) + 1) / 2);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t start, len;
            seg_span(M, i, &start, &len);
            for (long a = amin; a <= amax; a++) {
                long x = (long)start + a;
                if (x < 0 || x + (long)len > (long)L)
                    continue;
                uint64_t h = pre[x + len] - pre[x] * pw[len];
                uint32_t count;
                uint32_t nd = table_get_count(&s->seg, seg_key(q->tag_hash, M, i, h), &count);
                if (pass == 0) {
                    if ((total += count) > scan)
                        return 0;
                    continue;
                }
                for (; nd != NONE; nd = s->seg_next[nd]) {
                    uint32_t it = s->seg_item[nd];
                    if (s->items[it].chars == M && same_tag(s, &s->items[it], q))
                        consider(s, q, it, best, best_d);
                }
            }
        }
    }
    return 1;
}

long tpl_set_find(const tpl_set *s, tpl_query *q, unsigned *dist)
{
    *dist = 0;
    for (uint32_t i = table_get(&s->exact, q->hash); i != NONE; i = s->items[i].next_exact) {
        const tpl_item *it = &s->items[i];
        if (it->hash == q->hash && it->bytes == q->bytes && same_tag(s, it, q) &&
            memcmp(tpl_item_text(s, it), q->text, q->bytes) == 0)
            return (long)i;
    }
    if (q->chars <= TPL_EXACT_ONLY_CHARS || !q->cps)
        return -1;
    const uint32_t L = q->chars;
    /* lengths M that can match: M <= L needs L - M <= M/8, M > L needs
     * M - L <= L/8; both sides above 8 characters */
    uint32_t lo = L;
    while (lo - 1 > TPL_EXACT_ONLY_CHARS && L - (lo - 1) <= (lo - 1) / 8)
        lo--;
    uint32_t hi = L + L / 8;
    long best = -1;
    unsigned best_d = 0;
    uint64_t stackpre[513], pw[64];
    uint64_t *pre = NULL;
    for (uint32_t M = lo; M <= hi; M++) {
        uint32_t count;
        uint32_t head = table_get_count(&s->band, band_key(q->tag_hash, M), &count);
        if (!count)
            continue;
        /* a segment search looks up seg_count(M) segments at k + 1 places */
        uint64_t k = (M < L ? M : L) / 8;
        if ((uint64_t)count > 4 * (uint64_t)seg_count(M) * (k + 1)) {
            if (!pre) {
                pre = L + 1 <= 513 ? stackpre : malloc((L + 1) * sizeof *pre);
                if (pre) {
                    pre[0] = 0;
                    for (uint32_t x = 0; x < L; x++)
                        pre[x + 1] = pre[x] * SEG_BASE + q->cps[x] + 1;
                    pw[0] = 1;
                    for (int j = 1; j < 64; j++)
                        pw[j] = pw[j - 1] * SEG_BASE;
                }
            }
            /* segments are at most 8 code points long (M / seg_count(M) < 8) */
            if (pre && find_by_segments(s, q, M, pre, pw, count, &best, &best_d))
                continue;
        }
        for (uint32_t i = head; i != NONE; i = s->items[i].next_band) {
            const tpl_item *it = &s->items[i];
            if (it->chars == M && same_tag(s, it, q))
                consider(s, q, i, &best, &best_d);
        }
    }
    if (pre && pre != stackpre)
        free(pre);
    if (best >= 0) {
        *dist = best_d;
        return best;
    }
    return -1;
}

/* Index the segments of item @p idx (chars > 8, code points stored). */
static int add_segments(tpl_set *s, uint32_t idx)
{
    const tpl_item *it = &s->items[idx];
    uint32_t M = it->chars, n = seg_count(M);
    if (s->n_seg + n > s->cap_seg) {
        size_t ncap = s->cap_seg ? s->cap_seg * 2 : 1024;
        while (ncap < s->n_seg + n)
            ncap *= 2;
        if (ncap >= NONE)
            return -1;
        uint32_t *ni = realloc(s->seg_item, ncap * sizeof *ni);
        if (!ni)
            return -1;
        s->seg_item = ni;
        uint32_t *nn = realloc(s->seg_next, ncap * sizeof *nn);
        if (!nn)
            return -1;
        s->seg_next = nn;
        s->cap_seg = ncap;
    }
    const uint32_t *cps = s->cps + it->cp_off;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t start, len;
        seg_span(M, i, &start, &len);
        uint32_t node = (uint32_t)s->n_seg;
        s->seg_item[node] = idx;
        if (table_push(&s->seg, seg_key(it->tag_hash, M, i, seg_hash(cps + start, len)), node, &s->seg_next[node]) < 0)
            return -1;
        s->n_seg++;
    }
    return 0;
}

long tpl_set_add(tpl_set *s, tpl_query *q, uint32_t freq)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 256;
        tpl_item *ni = realloc(s->items, ncap * sizeof *ni);
        if (!ni)
            return -1;
        s->items = ni;
        s->cap = ncap;
    }
    if (s->n >= NONE - 1 || s->str.len + q->bytes + strlen(q->tag) + 2 >= NONE)
        return -1; /* offsets are 32-bit: a library is far smaller */
    tpl_item *it = &s->items[s->n];
    memset(it, 0, sizeof *it);
    it->hash = q->hash;
    it->tag_hash = q->tag_hash;
    it->bytes = q->bytes;
    it->chars = q->chars;
    it->freq = freq;
    it->hist_off = NONE;
    it->tag_off = (uint32_t)s->str.len;
    if (ps_buf_append(&s->str, q->tag, strlen(q->tag) + 1) < 0)
        return -1;
    it->text_off = (uint32_t)s->str.len;
    if (ps_buf_append(&s->str, q->text, q->bytes) < 0 || ps_buf_putc(&s->str, '\0') < 0)
        return -1;
    if (q->chars > TPL_EXACT_ONLY_CHARS && q->cps) {
        if (s->n_cps + q->chars > s->cap_cps) {
            size_t ncap = s->cap_cps ? s->cap_cps * 2 : 4096;
            while (ncap < s->n_cps + q->chars)
                ncap *= 2;
            uint32_t *nc = realloc(s->cps, ncap * sizeof *nc);
            if (!nc)
                return -1;
            s->cps = nc;
            s->cap_cps = ncap;
        }
        if (s->n_hist + TPL_HIST > s->cap_hist) {
            size_t ncap = s->cap_hist ? s->cap_hist * 2 : 64 * TPL_HIST;
            uint16_t *nh = realloc(s->hist, ncap * sizeof *nh);
            if (!nh)
                return -1;
            s->hist = nh;
            s->cap_hist = ncap;
        }
        it->cp_off = (uint32_t)s->n_cps;
        memcpy(s->cps + s->n_cps, q->cps, q->chars * sizeof *q->cps);
        s->n_cps += q->chars;
        it->hist_off = (uint32_t)s->n_hist;
        memcpy(s->hist + s->n_hist, q->hist, sizeof q->hist);
        s->n_hist += TPL_HIST;
        if (q->chars >= TPL_GRAM_MIN) {
            query_grams(q);
            if (!q->grams_ready)
                return -1;
            size_t ng = q->chars - 2;
            if (s->n_grams + ng > s->cap_grams) {
                size_t ncap = s->cap_grams ? s->cap_grams * 2 : 4096;
                while (ncap < s->n_grams + ng)
                    ncap *= 2;
                uint32_t *nb = realloc(s->grams, ncap * sizeof *nb);
                if (!nb)
                    return -1;
                s->grams = nb;
                s->cap_grams = ncap;
            }
            it->gram_off = (uint32_t)s->n_grams;
            memcpy(s->grams + s->n_grams, q->grams, ng * sizeof *q->grams);
            s->n_grams += ng;
        }
        if (table_push(&s->band, band_key(q->tag_hash, q->chars), (uint32_t)s->n, &it->next_band) < 0 ||
            add_segments(s, (uint32_t)s->n) < 0)
            return -1;
    } else {
        it->next_band = NONE;
    }
    if (table_push(&s->exact, q->hash, (uint32_t)s->n, &it->next_exact) < 0)
        return -1;
    return (long)s->n++;
}

void tpl_query_from_item(const tpl_set *s, size_t i, tpl_query *q)
{
    const tpl_item *it = &s->items[i];
    q->tag = tpl_item_tag(s, it);
    q->text = tpl_item_text(s, it);
    q->bytes = it->bytes;
    q->chars = it->chars;
    q->hash = it->hash;
    q->tag_hash = it->tag_hash;
    q->cps = NULL;
    q->grams = NULL;
    q->grams_ready = 0;
    if (it->hist_off != NONE) {
        q->cps = s->cps + it->cp_off;
        memcpy(q->hist, s->hist + it->hist_off, sizeof q->hist);
        if (it->chars >= TPL_GRAM_MIN) {
            q->grams = s->grams + it->gram_off; /* read only: already computed */
            q->grams_ready = 1;
        }
    }
}
