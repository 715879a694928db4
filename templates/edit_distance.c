/* templates/edit_distance.c — Levenshtein distance in code points, banded
 * (Ukkonen): only cells within k of the diagonal are computed and the
 * computation stops as soon as a whole row exceeds k.  Used to decide
 * whether two leaf texts are "similar" (METHODS.md §1.1: distance <=
 * floor(min(len) / 8)), where texts of up to 8 characters must be identical
 * — the paper's words, which the formula alone would contradict at exactly 8
 * characters (floor(8/8) = 1): "texts of no more than 8 characters: distance
 * 0; beyond 8, one more edit per 8 characters". */
#include <stdlib.h>
#include <string.h>

#include "templates/tpl_internal.h"

size_t tpl_utf8_decode(const char *str, size_t n, uint32_t *out, size_t cap)
{
    /* Every byte that is not a continuation byte starts a code point and the
     * continuation bytes after it are folded in, so the count always equals
     * ps_utf8_chars (also for invalid UTF-8, which the page model never
     * produces anyway). */
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, k = 0;
    while (i < n && (s[i] & 0xC0) == 0x80)
        i++;
    while (i < n && k < cap) {
        unsigned c = s[i++];
        uint32_t cp = c < 0x80 ? c : c < 0xE0 ? c & 0x1F : c < 0xF0 ? c & 0x0F : c & 0x07;
        while (i < n && (s[i] & 0xC0) == 0x80)
            cp = (cp << 6) | (s[i++] & 0x3F);
        out[k++] = cp;
    }
    return k;
}

unsigned tpl_edit_distance(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, unsigned k)
{
    const unsigned inf = k + 1;
    if (na > nb) { /* make a the shorter: rows are over b */
        const uint32_t *t = a; a = b; b = t;
        size_t tn = na; na = nb; nb = tn;
    }
    if (nb - na > k)
        return inf;
    if (na == 0)
        return (unsigned)nb;
    unsigned stackrows[2 * 1024];
    unsigned *rows = nb + 1 <= 1024 ? stackrows : malloc(2 * (nb + 1) * sizeof *rows);
    if (!rows)
        return inf; /* out of memory: treat as not similar */
    unsigned *prev = rows, *cur = rows + nb + 1;
    for (size_t j = 0; j <= nb; j++)
        prev[j] = j <= k ? (unsigned)j : inf;
    unsigned result = inf;
    for (size_t i = 1; i <= na; i++) {
        size_t lo = i > k ? i - k : 1;
        size_t hi = i + k < nb ? i + k : nb;
        unsigned rowmin = inf;
        cur[lo - 1] = lo == 1 ? (i < inf ? (unsigned)i : inf) : inf;
        if (lo == 1 && cur[0] < rowmin)
            rowmin = cur[0];
        const uint32_t ai = a[i - 1];
        for (size_t j = lo; j <= hi; j++) {
            unsigned v = prev[j - 1] + (ai != b[j - 1]);
            if (j + 1 <= i + k) { /* prev[j] lies in the previous row's band */
                unsigned up = prev[j] + 1;
                if (up < v)
                    v = up;
            }
            unsigned left = cur[j - 1] + 1;
            if (left < v)
                v = left;
            if (v > inf)
                v = inf;
            cur[j] = v;
            if (v < rowmin)
                rowmin = v;
        }
        if (hi < nb)
            cur[hi + 1] = inf;
        if (rowmin > k)
            goto done; /* every path already costs more than k */
        unsigned *t = prev; prev = cur; cur = t;
    }
    result = prev[nb] <= k ? prev[nb] : inf;
done:
    if (rows != stackrows)
        free(rows);
    return result;
}

unsigned ps_edit_distance_within(const char *a, const char *b, unsigned k)
{
    size_t la = strlen(a), lb = strlen(b);
    uint32_t *ca = malloc((la + lb + 2) * sizeof *ca);
    if (!ca)
        return k + 1;
    uint32_t *cb = ca + la + 1;
    size_t na = tpl_utf8_decode(a, la, ca, la + 1);
    size_t nb = tpl_utf8_decode(b, lb, cb, lb + 1);
    unsigned d = tpl_edit_distance(ca, na, cb, nb, k);
    free(ca);
    return d;
}

int ps_template_text_similar(const char *a, const char *b)
{
    size_t ca = ps_utf8_chars(a, strlen(a)), cb = ps_utf8_chars(b, strlen(b));
    size_t m = ca < cb ? ca : cb;
    unsigned k = m <= TPL_EXACT_ONLY_CHARS ? 0 : (unsigned)(m / 8);
    return ps_edit_distance_within(a, b, k) <= k;
}
