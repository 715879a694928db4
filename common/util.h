/* common/util.h — small helpers shared by every part of libpagesift:
 * error reports, a growable byte buffer, whole-file reads, atomic writes. */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "pagesift.h"

#if defined(__GNUC__)
#define PS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PS_PRINTF(a, b)
#endif

/** Fill err (if not NULL) with code and a formatted message; returns -1. */
int ps_set_error(ps_error *err, ps_status code, const char *fmt, ...) PS_PRINTF(3, 4);

/** Growable byte buffer, always NUL-terminated once anything was appended. */
typedef struct ps_buf {
    char *data;
    size_t len;
    size_t cap;
} ps_buf;

/** Ensure room for @p extra more bytes plus a NUL; returns 0 or -1 (ENOMEM). */
int ps_buf_reserve(ps_buf *b, size_t extra);
int ps_buf_append(ps_buf *b, const void *data, size_t n);
int ps_buf_putc(ps_buf *b, char c);
int ps_buf_printf(ps_buf *b, const char *fmt, ...) PS_PRINTF(2, 3);
/** Hand the data to the caller (NUL-terminated, possibly NULL if empty). */
char *ps_buf_take(ps_buf *b, size_t *len);
void ps_buf_free(ps_buf *b);

/** Read a whole file (NUL appended, not counted).  Refuses files larger
 *  than max_bytes (0 = no limit) with PS_ERR_TOO_LARGE. */
char *ps_read_file(const char *path, size_t max_bytes, size_t *len, ps_error *err);

/** Write @p len bytes to @p path atomically: a temporary file in the same
 *  folder, fsync, rename. */
int ps_write_file_atomic(const char *path, const void *data, size_t len, ps_error *err);

/** Open a temporary file beside @p path for an atomic write; fill tmp_path
 *  (cap bytes).  Finish with ps_atomic_commit or ps_atomic_abort. */
FILE *ps_atomic_open(const char *path, char *tmp_path, size_t cap, ps_error *err);
int ps_atomic_commit(FILE *f, const char *tmp_path, const char *path, ps_error *err);
void ps_atomic_abort(FILE *f, const char *tmp_path);

/** Code points in a UTF-8 string of n bytes. */
size_t ps_utf8_chars(const char *s, size_t n);

/** Case-insensitive ASCII comparison helpers. */
int ps_ascii_casecmp(const char *a, const char *b);
int ps_ascii_ncasecmp(const char *a, const char *b, size_t n);

/** Split a list separated by commas (and spaces) in place into a
 *  NULL-terminated array of its items (free() the array, not the items);
 *  NULL when out of memory.  For options such as --block-tags. */
const char **ps_split_list(char *list);

/** A macro's value as a string literal. */
#define PS_STR_(x) #x
#define PS_STR(x) PS_STR_(x)

/** 64-bit FNV-1a hash. */
uint64_t ps_hash64(const void *data, size_t n);

#endif
