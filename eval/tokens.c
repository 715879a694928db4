/* eval/tokens.c — the tokenizer of the benchmark-compatible metric: \w+
 * runs, with each CJK ideograph and kana as a token of its own, so that a
 * Chinese sentence is many tokens and not one. */
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include "common/util.h"
#include "pagesift.h"

static int is_cjk(UChar32 c)
{
    if (c < 0x2E80)
        return 0;
    UErrorCode st = U_ZERO_ERROR;
    UScriptCode sc = uscript_getScript(c, &st);
    return U_SUCCESS(st) && (sc == USCRIPT_HAN || sc == USCRIPT_HIRAGANA || sc == USCRIPT_KATAKANA);
}

static int is_word(UChar32 c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    return u_isalnum(c) || u_charType(c) == U_NON_SPACING_MARK ||
           u_charType(c) == U_COMBINING_SPACING_MARK || u_charType(c) == U_ENCLOSING_MARK ||
           u_charType(c) == U_CONNECTOR_PUNCTUATION;
}

size_t ps_tokenize(const char *text, size_t len, ps_token **out)
{
    size_t cap = len / 4 + 16, n = 0;
    ps_token *t = malloc(cap * sizeof *t);
    if (!t)
        return (size_t)-1;
    const uint8_t *s = (const uint8_t *)text;
    int32_t i = 0, end = (int32_t)len, start = -1;
    while (i <= end) {
        int32_t at = i;
        UChar32 c = -1;
        if (i < end)
            U8_NEXT(s, i, end, c);
        else
            i++;
        int word = c >= 0 && is_word(c);
        int cjk = word && is_cjk(c);
        if (start >= 0 && (!word || cjk)) { /* close the current run */
            if (n + 2 > cap) {
                cap *= 2;
                ps_token *nt = realloc(t, cap * sizeof *nt);
                if (!nt) {
                    free(t);
                    return (size_t)-1;
                }
                t = nt;
            }
            t[n].off = (uint32_t)start;
            t[n].len = (uint32_t)(at - start);
            t[n].hash = ps_hash64(text + start, (size_t)(at - start));
            n++;
            start = -1;
        }
        if (cjk) {
            if (n + 2 > cap) {
                cap *= 2;
                ps_token *nt = realloc(t, cap * sizeof *nt);
                if (!nt) {
                    free(t);
                    return (size_t)-1;
                }
                t = nt;
            }
            t[n].off = (uint32_t)at;
            t[n].len = (uint32_t)(i - at);
            t[n].hash = ps_hash64(text + at, (size_t)(i - at));
            n++;
        } else if (word && start < 0) {
            start = at;
        }
    }
    *out = t;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t *sorted_hashes(const char *s, size_t len, size_t *n)
{
    ps_token *t;
    size_t k = ps_tokenize(s, len, &t);
    if (k == (size_t)-1)
        return NULL;
    uint64_t *h = malloc((k + 1) * sizeof *h);
    if (h) {
        for (size_t i = 0; i < k; i++)
            h[i] = t[i].hash;
        qsort(h, k, sizeof *h, cmp_u64);
    }
    free(t);
    *n = k;
    return h;
}

double ps_token_recall(const char *text, size_t text_len, const char *gold, size_t gold_len)
{
    size_t nt, ng;
    uint64_t *ht = sorted_hashes(text, text_len, &nt);
    uint64_t *hg = sorted_hashes(gold, gold_len, &ng);
    double r = 0;
    if (ht && hg) {
        size_t i = 0, j = 0, shared = 0;
        while (i < nt && j < ng) {
            if (ht[i] == hg[j]) {
                shared++;
                i++;
                j++;
            } else if (ht[i] < hg[j]) {
                i++;
            } else {
                j++;
            }
        }
        r = ng ? (double)shared / (double)ng : 1.0;
    }
    free(ht);
    free(hg);
    return r;
}
