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
#include "templates/measure.h"

char *tpl_normalise(const char *s, size_t n, size_t *out_len)
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

static int occurs(const char *s, size_t n, const char *gold, size_t gold_len, int *found)
{
    size_t nl;
    char *t = tpl_normalise(s, n, &nl);
    if (!t)
        return -1;
    *found = nl == 0 || memmem(gold, gold_len, t, nl) != NULL;
    free(t);
    return 0;
}

int tpl_gold_leaves(const ps_page *page, const char *gold, size_t gold_len, tpl_gold_test test,
                    uint8_t *is_gold)
{
    size_t n;
    const ps_leaf *l = ps_page_leaves(page, &n);
    if (test == TPL_GOLD_LEAF_TEXT) {
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

void tpl_tally_page(tpl_tally *t, const ps_page *page, const uint8_t *is_gold,
                    const ps_template_match *m, FILE *lost, FILE *residue, const char *site, const char *id)
{
    size_t n;
    const ps_leaf *l = ps_page_leaves(page, &n);
    for (size_t i = 0; i < n; i++) {
        int rm = m[i].verdict == PS_TPL_REMOVE;
        if (is_gold[i]) {
            t->gold += l[i].chars;
            t->gold_removed += rm ? l[i].chars : 0;
            if (rm && lost)
                fprintf(lost, "%s\t%s\t%s\t%u\t%s\tlink=%d h=%d block=%d\t%s\n", site, id, l[i].tag, l[i].chars,
                        l[i].text, l[i].in_link, l[i].heading, l[i].block, ps_page_title(page));
        } else {
            t->other += l[i].chars;
            t->other_removed += rm ? l[i].chars : 0;
            if (!rm && residue)
                fprintf(residue, "%s\t%s\t%s\t%u\t%.200s\tlink=%d h=%d block=%d\n", site, id, l[i].tag,
                        l[i].chars, l[i].text, l[i].in_link, l[i].heading, l[i].block);
        }
    }
}
