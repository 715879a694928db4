/* common/util.h — small helpers shared by every part of libpagesift:
 * error reports, a growable byte buffer, whole-file reads, atomic writes. */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "pagesift.h"
#include "pagesift/util.h" /* errors, buffers, files, atomic writes, progress */

/** A message of the library (a line without newline; printf's format) to
 *  the function of ps_set_print_function, else to standard error. */
void ps_print(const char *fmt, ...) PS_PRINTF(1, 2);

/** Code points in a UTF-8 string of n bytes. */
size_t ps_utf8_chars(const char *s, size_t n);

/** Case-insensitive ASCII comparison helpers. */
int ps_ascii_casecmp(const char *a, const char *b);
int ps_ascii_ncasecmp(const char *a, const char *b, size_t n);

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

/** 64-bit FNV-1a hash: the one hash of the library's tables. */
uint64_t ps_hash64(const void *data, size_t n);
/** FNV-1a continued from @p h over @p n more bytes (ps_hash64 starts from
 *  the offset basis), to hash several pieces without joining them. */
uint64_t ps_hash64_update(uint64_t h, const void *data, size_t n);

#endif
