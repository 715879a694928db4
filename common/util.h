/* common/util.h — small helpers shared by every part of libpagesift:
 * error reports, a growable byte buffer, whole-file reads, atomic writes. */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pagesift.h"
#include "pagesift/util.h" /* errors, buffers, files, atomic writes, progress */

/** Give the memory a page step has just freed back to the system when it is
 *  at least PS_GIVE_BACK_BYTES (glibc's malloc_trim; elsewhere nothing).
 *  A large page's arrays, freed between its steps, would otherwise stay
 *  resident in the worker's heap and add to the peak of the steps after
 *  (docs/EXTRACTION.md, "Bounds"); small pages never pay for the call. */
#define PS_GIVE_BACK_BYTES (1u << 20)
void ps_give_back(size_t freed);

/** Code points in a UTF-8 string of n bytes. */
size_t ps_utf8_chars(const char *s, size_t n);

/** Case-insensitive ASCII comparison helpers (inline: the research library
 *  uses them too, and libpagesift exports only its public calls). */
static inline int ps_ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}
static inline int ps_ascii_casecmp(const char *a, const char *b)
{
    while (*a && ps_ascii_lower((unsigned char)*a) == ps_ascii_lower((unsigned char)*b))
        a++, b++;
    return ps_ascii_lower((unsigned char)*a) - ps_ascii_lower((unsigned char)*b);
}
static inline int ps_ascii_ncasecmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int d = ps_ascii_lower((unsigned char)a[i]) - ps_ascii_lower((unsigned char)b[i]);
        if (d || !a[i])
            return d;
    }
    return 0;
}

/** Room in the array *p (of *cap elements of @p size bytes) for @p need
 *  elements: grown by doubling from @p first; 0, or -1 (out of memory, the
 *  array as it was).  Inline: the research library uses it too. */
#include <stdlib.h>
static inline int ps_grow_array(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : first;
    while (nc < need)
        nc *= 2;
    if (nc > SIZE_MAX / size)
        return -1;
    void *q = realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/** A macro's value as a string literal. */
#define PS_STR_(x) #x
#define PS_STR(x) PS_STR_(x)

/** For a table of @p n entries of @p size bytes, sorted by a lower-case
 *  name that is each entry's first member (const char *): the entries whose
 *  name starts with 'a' + c are first[c] .. first[c + 1] - 1 (c < 26), so a
 *  lookup compares a name with the few entries of its first letter only
 *  (the tag kinds, the pre-parse guard's tags, the class words).  At most
 *  255 entries. */
void ps_first_letter_runs(const void *table, size_t n, size_t size, unsigned char first[27]);

/** strtod(s, end), the same bits and the same *end, faster for the
 *  plain decimals a model bundle holds ("0.0030197844", "-1.5e-05"): a
 *  number of at most 15 or so digits whose power of ten lies within 22 is
 *  one exactly rounded IEEE operation on two exact doubles (Clinger's fast
 *  path, the value strtod rounds to); anything else goes to strtod. */
double ps_strtod(const char *s, char **end);

/** FNV-1a continued from @p h over @p n more bytes (ps_hash64 starts from
 *  the offset basis), to hash several pieces without joining them.  Inline,
 *  as the comparisons above. */
static inline uint64_t ps_hash64_update(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
/** 64-bit FNV-1a hash: the one hash of the library's tables. */
static inline uint64_t ps_hash64(const void *data, size_t n)
{
    return ps_hash64_update(1469598103934665603ULL, data, n);
}

/** qsort / bsearch comparison of two uint64_t, ascending. */
static inline int ps_cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#endif
