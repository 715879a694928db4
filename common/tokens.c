/* common/tokens.c — the tokenizers of the metrics.  ps_tokenize is the
 * benchmark-compatible one: \w+ runs as Python's re module finds them (the
 * article-extraction benchmark's _tokenize), with each CJK ideograph and
 * kana as a token of its own, so that a Chinese sentence is many tokens and
 * not one (the benchmark would make a whole unspaced Chinese line one
 * token).  ps_tokenize_icu uses ICU's word-break iterator instead. */
#include <stdlib.h>
#include <string.h>

#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/tokens.h"

static int is_cjk(UChar32 c)
{
    if (c < 0x2E80)
        return 0;
    UErrorCode st = U_ZERO_ERROR;
    UScriptCode sc = uscript_getScript(c, &st);
    return U_SUCCESS(st) && (sc == USCRIPT_HAN || sc == USCRIPT_HIRAGANA || sc == USCRIPT_KATAKANA);
}

/* Python's \w (sre's SRE_UNI_IS_WORD): str.isalnum() or '_', i.e. general
 * categories L* (isalpha) and N* (isdecimal/isdigit/isnumeric).  Combining
 * marks are not word characters in Python, so neither are they here: the
 * point is to count tokens exactly as the benchmark's evaluate.py does. */
static int is_word(UChar32 c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    return (U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_N_MASK)) != 0;
}

/* Append the token text[from, to); frees the array when out of memory. */
static int push_token(ps_token **t, size_t *n, size_t *cap, const char *text, int32_t from, int32_t to)
{
    if (*n + 2 > *cap) {
        *cap *= 2;
        ps_token *nt = realloc(*t, *cap * sizeof *nt);
        if (!nt) {
            free(*t);
            return -1;
        }
        *t = nt;
    }
    (*t)[*n].off = (uint32_t)from;
    (*t)[*n].len = (uint32_t)(to - from);
    (*t)[*n].hash = ps_hash64(text + from, (size_t)(to - from));
    (*n)++;
    return 0;
}

/* \w+ runs; split_cjk: each CJK ideograph and kana a token of its own. */
static size_t word_runs(const char *text, size_t len, int split_cjk, ps_token **out)
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
        int cjk = split_cjk && word && is_cjk(c);
        if (start >= 0 && (!word || cjk)) { /* close the current run */
            if (push_token(&t, &n, &cap, text, start, at))
                return (size_t)-1;
            start = -1;
        }
        if (cjk) {
            if (push_token(&t, &n, &cap, text, at, i))
                return (size_t)-1;
        } else if (word && start < 0) {
            start = at;
        }
    }
    *out = t;
    return n;
}

size_t ps_tokenize(const char *text, size_t len, ps_token **out)
{
    return word_runs(text, len, 1, out);
}

size_t ps_tokenize_python(const char *text, size_t len, ps_token **out)
{
    return word_runs(text, len, 0, out);
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
        qsort(h, k, sizeof *h, ps_cmp_u64);
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

size_t ps_tokenize_icu(const char *text, size_t len, ps_token **out)
{
    size_t cap = len / 4 + 16, n = 0;
    ps_token *t = malloc(cap * sizeof *t);
    if (!t)
        return (size_t)-1;
    if (len == 0) {
        *out = t;
        return 0;
    }
    UErrorCode st = U_ZERO_ERROR;
    UText *ut = utext_openUTF8(NULL, text, (int64_t)len, &st);
    UBreakIterator *bi = U_SUCCESS(st) ? ubrk_open(UBRK_WORD, "", NULL, 0, &st) : NULL;
    if (U_SUCCESS(st))
        ubrk_setUText(bi, ut, &st);
    if (U_FAILURE(st)) {
        ubrk_close(bi);
        utext_close(ut);
        free(t);
        return (size_t)-1;
    }
    int32_t start = ubrk_first(bi);
    for (int32_t end = ubrk_next(bi); end != UBRK_DONE; start = end, end = ubrk_next(bi)) {
        /* rule status >= UBRK_WORD_NONE_LIMIT: a word, number, kana or
         * ideographic word; below it: spaces and punctuation */
        if (ubrk_getRuleStatus(bi) < UBRK_WORD_NONE_LIMIT)
            continue;
        if (n == cap) {
            cap *= 2;
            ps_token *nt = realloc(t, cap * sizeof *nt);
            if (!nt) {
                free(t);
                t = NULL;
                break;
            }
            t = nt;
        }
        t[n].off = (uint32_t)start;
        t[n].len = (uint32_t)(end - start);
        t[n].hash = ps_hash64(text + start, (size_t)(end - start));
        n++;
    }
    ubrk_close(bi);
    utext_close(ut);
    if (!t)
        return (size_t)-1;
    *out = t;
    return n;
}
