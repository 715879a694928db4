/* methods/utf8_scan.h — decoding UTF-8 one code point at a time, and the
 * white-space test the character-counting baselines share (punct-lines,
 * blockstat).  Internal to methods/. */
#ifndef PS_UTF8_SCAN_H
#define PS_UTF8_SCAN_H

#include <stddef.h>
#include <stdint.h>

/** The code point at s[*i] (n bytes in all); advances *i.  A malformed
 *  sequence yields U+FFFD and advances one byte. */
static inline uint32_t ps_utf8_next(const char *str, size_t n, size_t *i)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned char c = s[*i];
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    size_t need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    uint32_t cp = need == 3 ? (c & 0x07u) : need == 2 ? (c & 0x0Fu) : (c & 0x1Fu);
    if (need == 0 || *i + need >= n) {
        (*i)++;
        return 0xFFFD;
    }
    for (size_t k = 1; k <= need; k++) {
        if ((s[*i + k] & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[*i + k] & 0x3Fu);
    }
    *i += need + 1;
    return cp;
}

/** White space for character counts: ASCII white space, no-break space,
 *  the Unicode spaces U+2000..U+200B, ideographic space, BOM. */
static inline int ps_cp_is_space(uint32_t c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0 || (c >= 0x2000 && c <= 0x200B) || c == 0x202F ||
           c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

#endif
