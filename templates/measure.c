/* templates/measure.c — normalisation and the gold / non-gold tallies used
 * to measure template removal against a data set's gold text.  A leaf is
 * gold when its normalised text occurs in the page's normalised gold
 * (NFKC_Casefold, whitespace collapsed; gold lines joined by spaces). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/uchar.h>

#include "common/util.h"
#include "extract/page_internal.h"
#include "pagesift/tokens.h"
#include "templates/measure.h"

char *ps_template_normalise(const char *s, size_t n, size_t *out_len)
{
    UErrorCode st = U_ZERO_ERROR;
    const UNormalizer2 *nf = unorm2_getNFKCCasefoldInstance(&st);
    if (U_FAILURE(st))
        return NULL;
    int32_t ulen = 0;
    st = U_ZERO_ERROR;
    u_strFromUTF8WithSub(NULL, 0, &ulen, s, (int32_t)n, 0xFFFD, NULL, &st);
    UChar *u = malloc(((size_t)ulen + 1) * sizeof *u);
    if (!u)
        return NULL;
    st = U_ZERO_ERROR;
    u_strFromUTF8WithSub(u, ulen + 1, NULL, s, (int32_t)n, 0xFFFD, NULL, &st);
    int32_t cap = ulen * 3 + 16;
    UChar *v = malloc((size_t)cap * sizeof *v);
    st = U_ZERO_ERROR;
    int32_t vlen = v ? unorm2_normalize(nf, u, ulen, v, cap, &st) : 0;
    free(u);
    if (!v || U_FAILURE(st)) {
        free(v);
        return NULL;
    }
    /* collapse whitespace */
    int32_t w = 0;
    int space = 1;
    for (int32_t i = 0; i < vlen; i++) {
        if (u_isUWhiteSpace(v[i]) || v[i] == 0xA0) {
            if (!space)
                v[w++] = ' ';
            space = 1;
        } else {
            v[w++] = v[i];
            space = 0;
        }
    }
    if (w && v[w - 1] == ' ')
        w--;
    int32_t blen = 0;
    st = U_ZERO_ERROR;
    u_strToUTF8(NULL, 0, &blen, v, w, &st);
    char *out = malloc((size_t)blen + 1);
    st = U_ZERO_ERROR;
    if (out)
        u_strToUTF8(out, blen + 1, NULL, v, w, &st);
    free(v);
    if (out && U_FAILURE(st)) {
        free(out);
        return NULL;
    }
    if (out)
        *out_len = (size_t)blen;
    return out;
}

static int gold_align(const ps_page *page, const char *gold, size_t gold_len, uint8_t *is_gold);

static int occurs(const char *s, size_t n, const char *gold, size_t gold_len, int *found)
{
    size_t nl;
    char *t = ps_template_normalise(s, n, &nl);
    if (!t)
        return -1;
    *found = nl == 0 || memmem(gold, gold_len, t, nl) != NULL;
    free(t);
    return 0;
}

int ps_template_gold_leaves(const ps_page *page, const char *gold, size_t gold_len, ps_template_gold_test test,
                    uint8_t *is_gold)
{
    size_t n;
    const ps_leaf *l = ps_page_leaves(page, &n);
    if (test == PS_TPL_GOLD_ALIGN)
        return gold_align(page, gold, gold_len, is_gold);
    if (test == PS_TPL_GOLD_LEAF_TEXT) {
        for (size_t i = 0; i < n; i++) {
            int f;
            if (occurs(l[i].text, l[i].bytes, gold, gold_len, &f) < 0)
                return -1;
            is_gold[i] = l[i].bytes > 0 && f;
        }
        return 0;
    }
    /* runs: every text node of the leaf must occur (the pieces between its
     * child elements, e.g. around an inline link, are tested one by one) */
    memset(is_gold, 1, n);
    for (size_t i = 0; i < page->n_runs; i++) {
        const ps_run *r = &page->runs[i];
        if (!is_gold[r->leaf])
            continue;
        int f;
        if (occurs(page->runtext + r->off, r->len, gold, gold_len, &f) < 0)
            return -1;
        is_gold[r->leaf] = (uint8_t)f;
    }
    for (size_t i = 0; i < n; i++)
        if (l[i].bytes == 0)
            is_gold[i] = 0;
    return 0;
}

/* Alignment: the page's tokens (leaves in document order) against the
 * gold's tokens, longest common subsequence; a leaf is gold when at least
 * half of its tokens are aligned.  Page tokens that never occur in the gold
 * are dropped before the DP (they cannot align), which keeps it small. */
static int gold_align(const ps_page *page, const char *gold, size_t gold_len, uint8_t *is_gold)
{
    size_t n;
    const ps_leaf *l = ps_page_leaves(page, &n);
    memset(is_gold, 0, n);
    ps_token *gt = NULL;
    size_t m = ps_tokenize(gold, gold_len, &gt);
    if (m == (size_t)-1)
        return -1;
    /* set of gold token hashes */
    size_t cap = 64;
    while (cap < 2 * m + 2)
        cap *= 2;
    uint64_t *set = calloc(cap, sizeof *set);
    uint64_t *ph = NULL;
    uint32_t *pl = NULL, *ntok = calloc(n + 1, sizeof *ntok), *nhit = calloc(n + 1, sizeof *nhit);
    uint64_t *bits = NULL;
    uint32_t *prev = NULL, *cur = NULL;
    size_t np = 0, pcap = 0;
    int rc = -1;
    if (!set || !ntok || !nhit)
        goto out;
    for (size_t j = 0; j < m; j++) {
        uint64_t h = gt[j].hash | 1;
        size_t k = (size_t)(h * 0x9E3779B97F4A7C15ULL) & (cap - 1);
        while (set[k] && set[k] != h)
            k = (k + 1) & (cap - 1);
        set[k] = h;
    }
    for (size_t i = 0; i < n; i++) {
        size_t nl;
        char *t = ps_template_normalise(l[i].text, l[i].bytes, &nl);
        if (!t)
            goto out;
        ps_token *tk = NULL;
        size_t nt = ps_tokenize(t, nl, &tk);
        free(t);
        if (nt == (size_t)-1)
            goto out;
        ntok[i] = (uint32_t)nt;
        for (size_t k = 0; k < nt; k++) {
            uint64_t h = tk[k].hash | 1;
            size_t q = (size_t)(h * 0x9E3779B97F4A7C15ULL) & (cap - 1);
            while (set[q] && set[q] != h)
                q = (q + 1) & (cap - 1);
            if (!set[q])
                continue;
            if (np == pcap) {
                pcap = pcap ? pcap * 2 : 1024;
                uint64_t *nh = realloc(ph, pcap * sizeof *nh);
                uint32_t *nlf = nh ? realloc(pl, pcap * sizeof *nlf) : NULL;
                if (nh)
                    ph = nh;
                if (!nlf) {
                    free(tk);
                    goto out;
                }
                pl = nlf;
            }
            ph[np] = h;
            pl[np] = (uint32_t)i;
            np++;
        }
        free(tk);
    }
    /* LCS over np x m, one bit per cell: 1 = came from above, 0 = from
     * the left (a match always takes the diagonal). */
    size_t words = (m + 64) / 64;
    if (np && m) {
        bits = malloc(np * words * sizeof *bits);
        prev = calloc(m + 1, sizeof *prev);
        cur = calloc(m + 1, sizeof *cur);
        if (!bits || !prev || !cur)
            goto out;
        for (size_t i = 0; i < np; i++) {
            uint64_t *row = bits + i * words;
            memset(row, 0, words * sizeof *row);
            cur[0] = 0;
            for (size_t j = 1; j <= m; j++) {
                if (ph[i] == (gt[j - 1].hash | 1)) {
                    cur[j] = prev[j - 1] + 1;
                } else if (prev[j] >= cur[j - 1]) {
                    cur[j] = prev[j];
                    row[j / 64] |= 1ULL << (j % 64);
                } else {
                    cur[j] = cur[j - 1];
                }
            }
            uint32_t *t = prev; prev = cur; cur = t;
        }
        size_t i = np, j = m;
        while (i > 0 && j > 0) {
            if (ph[i - 1] == (gt[j - 1].hash | 1)) {
                nhit[pl[i - 1]]++;
                i--, j--;
            } else if (bits[(i - 1) * words + j / 64] >> (j % 64) & 1) {
                i--;
            } else {
                j--;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        is_gold[i] = ntok[i] > 0 && 2 * nhit[i] >= ntok[i];
    rc = 0;
out:
    free(gt);
    free(set);
    free(ph);
    free(pl);
    free(ntok);
    free(nhit);
    free(bits);
    free(prev);
    free(cur);
    return rc;
}

void ps_template_tally_page(ps_template_tally *t, const ps_page *page, const uint8_t *is_gold,
                    const ps_template_match *m, FILE *lost, FILE *residue, const char *site, const char *id)
{
    size_t n, nb;
    const ps_leaf *l = ps_page_leaves(page, &n);
    const ps_block *b = ps_page_blocks(page, &nb);
    uint32_t best = 0;
    int32_t main_block = -1;
    for (size_t i = 0; i < nb; i++)
        if (b[i].own.text_chars - b[i].own.link_chars > best) {
            best = b[i].own.text_chars - b[i].own.link_chars;
            main_block = (int32_t)i;
        }
    for (size_t i = 0; i < n; i++) {
        int rm = m[i].verdict == PS_TPL_REMOVE;
        if (m[i].verdict < 8)
            (is_gold[i] ? t->gold_by : t->other_by)[m[i].verdict] += l[i].chars;
        if (is_gold[i]) {
            t->gold += l[i].chars;
            t->gold_removed += rm ? l[i].chars : 0;
            if (rm && lost)
                fprintf(lost, "%s\t%s\t%s\t%u\t%s\tlink=%d h=%d block=%d main=%d par=%d\t%s\n", site, id, l[i].tag,
                        l[i].chars, l[i].text, l[i].in_link, l[i].heading, l[i].block, l[i].block == main_block,
                        main_block >= 0 && b[l[i].block].parent == b[main_block].parent, ps_page_title(page));
        } else {
            t->other += l[i].chars;
            t->other_removed += rm ? l[i].chars : 0;
            if (!rm && residue)
                fprintf(residue, "%s\t%s\t%s\t%u\t%.200s\tlink=%d h=%d block=%d v=%d main=%d par=%d\n", site, id, l[i].tag,
                        l[i].chars, l[i].text, l[i].in_link, l[i].heading, l[i].block, m[i].verdict,
                        l[i].block == main_block, main_block >= 0 && b[l[i].block].parent == b[main_block].parent);
        }
    }
}
