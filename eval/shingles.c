/* eval/shingles.c — token-level matching of the public article-extraction
 * benchmark (scrapinghub/article-extraction-benchmark, evaluate.py):
 * n-gram shingles of consecutive tokens compared as multisets, per page.
 * Its string_shingle_matching gives tp = sum of min(count_out, count_gold),
 * fp = extra in the output, fn = missing; a text with fewer than n tokens
 * has one shingle of all of them (range(0, max(1, len - n + 1))), a text
 * without tokens has none.  Shingles are compared by a 64-bit hash of their
 * tokens' bytes (FNV-1a per token, combined in order), so a collision could
 * only ever merge two distinct shingles with probability ~2^-64 per pair.
 *
 * Its metrics_from_tp_fp_fns averages precision over pages whose output has
 * shingles and recall over pages whose gold has shingles
 * (PS_EMPTY_BENCHMARK); the default here (PS_EMPTY_STRICT) counts every page
 * in both averages, see ps_match_pr. */
#include <stdlib.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/eval.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

/* Sorted shingle hashes of a text; NULL on failure. */
static uint64_t *shingles(const char *s, size_t len, unsigned n, ps_tokens_kind kind, size_t *count)
{
    ps_token *t;
    size_t k = kind == PS_TOKENS_ICU      ? ps_tokenize_icu(s, len, &t)
               : kind == PS_TOKENS_PYTHON ? ps_tokenize_python(s, len, &t)
                                          : ps_tokenize(s, len, &t);
    if (k == (size_t)-1)
        return NULL;
    size_t m = k == 0 ? 0 : k < n ? 1 : k - n + 1;
    uint64_t *h = malloc((m + 1) * sizeof *h);
    if (h) {
        for (size_t i = 0; i < m; i++) {
            size_t w = k < n ? k : n;
            uint64_t x = (uint64_t)w;
            for (size_t j = 0; j < w; j++)
                x = mix(x, t[i + j].hash);
            h[i] = x;
        }
        qsort(h, m, sizeof *h, cmp_u64);
    }
    free(t);
    *count = m;
    return h;
}

int ps_shingle_match(const char *output, size_t output_len, const char *gold, size_t gold_len,
                     unsigned n, ps_tokens_kind kind, ps_match *m)
{
    m->tp = m->fp = m->fn = 0;
    if (n == 0)
        return -1;
    size_t no, ng;
    uint64_t *ho = shingles(output ? output : "", output ? output_len : 0, n, kind, &no);
    uint64_t *hg = ho ? shingles(gold ? gold : "", gold ? gold_len : 0, n, kind, &ng) : NULL;
    if (!ho || !hg) {
        free(ho);
        free(hg);
        return -1;
    }
    size_t i = 0, j = 0, shared = 0;
    while (i < no && j < ng) {
        if (ho[i] == hg[j]) {
            shared++;
            i++;
            j++;
        } else if (ho[i] < hg[j]) {
            i++;
        } else {
            j++;
        }
    }
    m->tp = shared;
    m->fp = no - shared;
    m->fn = ng - shared;
    free(ho);
    free(hg);
    return 0;
}

void ps_match_pr(const ps_match *m, ps_empty_rule rule, double *p, int *p_counts, double *r,
                 int *r_counts)
{
    uint64_t out = m->tp + m->fp, gold = m->tp + m->fn;
    int pc = 1, rc = 1;
    double pp, rr;
    if (out == 0 && gold == 0) {
        pp = rr = 1.0; /* nothing to find, nothing found */
        if (rule == PS_EMPTY_BENCHMARK)
            pc = rc = 0;
    } else {
        pp = out ? (double)m->tp / (double)out : 0.0;
        rr = gold ? (double)m->tp / (double)gold : 0.0;
        if (rule == PS_EMPTY_BENCHMARK) {
            pc = out > 0;
            rc = gold > 0;
        }
    }
    if (p)
        *p = pp;
    if (r)
        *r = rr;
    if (p_counts)
        *p_counts = pc;
    if (r_counts)
        *r_counts = rc;
}
