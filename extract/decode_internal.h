/* extract/decode_internal.h — helpers of decode.c that tests and other
 * parts of the library use. */
#ifndef PS_DECODE_INTERNAL_H
#define PS_DECODE_INTERNAL_H
#include <stddef.h>

#include "pagesift.h"
#include "pagesift/page.h"

/** ps_decode that, when the bytes can be parsed as they are (valid UTF-8
 *  without NUL), sets *direct / *direct_len to them and leaves out->utf8
 *  NULL instead of copying.  direct may be NULL (then it always converts). */
int ps_decode_ex(const void *bytes, size_t len, const char *declared, ps_decoded *out,
                 const char **direct, size_t *direct_len, ps_error *err);

#endif
