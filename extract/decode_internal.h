/* extract/decode_internal.h — helpers of decode.c that tests and other
 * parts of the library use. */
#ifndef PS_DECODE_INTERNAL_H
#define PS_DECODE_INTERNAL_H
#include <stddef.h>

/** Canonical ICU name of a declared charset (browser supersets applied), or
 *  NULL when unknown.  May return buf. */
const char *ps_charset_canonical(const char *name, char *buf, size_t cap);

/** The charset named by a <meta> tag in the first 16 KiB; 1 if found. */
int ps_meta_charset(const char *s, size_t len, char *out, size_t cap);

#endif
