/* extract/decode.c — bytes of a page in any charset to UTF-8.
 *
 * The decision order is documented at ps_decode() in pagesift.h.  ICU does
 * the detection (ucsdet) and the conversion (ucnv); UTF-8 is validated with
 * ICU's U8_NEXT so that invalid sequences become U+FFFD one by one instead of
 * truncating the page, which is what libxml2 would do with them. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <unicode/ucnv.h>
#include <unicode/ucsdet.h>
#include <unicode/utf8.h>

#include "common/util.h"
#include "extract/decode_internal.h"
#include "pagesift/page.h"

#define META_SCAN_BYTES 16384      /* how far to look for <meta charset> */
#define DETECT_MAX_BYTES (256 * 1024)
#define DETECT_MIN_CONFIDENCE 10   /* ICU confidence, 0..100 */
#define DETECT_OVERRIDE_CONFIDENCE 50

static const char REPLACEMENT[3] = {(char)0xEF, (char)0xBF, (char)0xBD};

const char *ps_charset_source_name(ps_charset_source s)
{
    switch (s) {
    case PS_CHARSET_BOM: return "bom";
    case PS_CHARSET_CALLER: return "caller";
    case PS_CHARSET_META: return "meta";
    case PS_CHARSET_DETECTED: return "detected";
    case PS_CHARSET_UTF8_VALID: return "utf8-valid";
    case PS_CHARSET_FALLBACK: return "fallback";
    }
    return "?";
}

/* Canonical name of a declared charset, or NULL when ICU does not know it.
 * Applies the browser supersets: latin-1/ascii -> windows-1252, gb2312/gbk
 * -> gb18030; a declared UTF-16 in an ASCII-compatible page is UTF-8. */
static const char *ps_charset_canonical(const char *name, char *buf, size_t cap)
{
    if (!name || !*name || cap < 2)
        return NULL;
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < cap; p++) {
        char c = *p;
        if (c == ' ' || c == '"' || c == '\'' || c == ';')
            break;
        buf[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    buf[n] = '\0';
    if (!n)
        return NULL;
    static const struct { const char *alias, *canon; } map[] = {
        {"utf-8", "UTF-8"}, {"utf8", "UTF-8"}, {"unicode-1-1-utf-8", "UTF-8"},
        {"utf-16", "UTF-8"}, {"utf-16le", "UTF-8"}, {"utf-16be", "UTF-8"},
        {"iso-8859-1", "windows-1252"}, {"iso8859-1", "windows-1252"},
        {"iso8859_1", "windows-1252"}, {"iso_8859-1", "windows-1252"},
        {"latin1", "windows-1252"}, {"latin-1", "windows-1252"}, {"l1", "windows-1252"},
        {"us-ascii", "windows-1252"}, {"ascii", "windows-1252"},
        {"iso-1252", "windows-1252"}, {"cp1252", "windows-1252"},
        {"windows-1252", "windows-1252"}, {"x-cp1252", "windows-1252"},
        {"gb2312", "GB18030"}, {"gbk", "GB18030"}, {"x-gbk", "GB18030"},
        {"gb_2312-80", "GB18030"}, {"cp936", "GB18030"}, {"euc-cn", "GB18030"},
        {"gb18030", "GB18030"}, {"x-euc-cn", "GB18030"},
        {"big5", "Big5"}, {"shift_jis", "Shift_JIS"}, {"sjis", "Shift_JIS"},
        {"euc-jp", "EUC-JP"}, {"euc-kr", "EUC-KR"}, {"iso-8859-15", "ISO-8859-15"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(buf, map[i].alias) == 0)
            return map[i].canon;
    UErrorCode st = U_ZERO_ERROR;
    const char *canon = ucnv_getCanonicalName(buf, "", &st);
    if (U_FAILURE(st) || !canon) {
        st = U_ZERO_ERROR;
        canon = ucnv_getCanonicalName(buf, "IANA", &st);
    }
    if (U_FAILURE(st) || !canon)
        return NULL;
    /* ICU knows it: use the name as written, which ucnv_open accepts. */
    return buf;
}

/* Find the charset declared by a <meta> tag in the first bytes. */
static int ps_meta_charset(const char *s, size_t len, char *out, size_t cap)
{
    if (len > META_SCAN_BYTES)
        len = META_SCAN_BYTES;
    for (size_t i = 0; i + 5 < len; i++) {
        if (s[i] != '<' || ps_ascii_ncasecmp(s + i + 1, "meta", 4) != 0)
            continue;
        size_t end = i + 5;
        while (end < len && s[end] != '>')
            end++;
        for (size_t j = i + 5; j + 7 < end; j++) {
            if (ps_ascii_ncasecmp(s + j, "charset", 7) != 0)
                continue;
            size_t k = j + 7;
            while (k < end && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r'))
                k++;
            if (k >= end || s[k] != '=')
                continue;
            k++;
            while (k < end && (s[k] == ' ' || s[k] == '"' || s[k] == '\'' || s[k] == '\t'))
                k++;
            size_t n = 0;
            while (k < end && n + 1 < cap) {
                char c = s[k];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == ':'))
                    break;
                out[n++] = c;
                k++;
            }
            out[n] = '\0';
            if (n)
                return 1;
        }
        i = end;
    }
    return 0;
}

/* Count valid non-ASCII UTF-8 sequences and invalid bytes. */
static void utf8_survey(const char *s, size_t len, size_t *multibyte, size_t *invalid)
{
    size_t mb = 0, bad = 0;
    const uint8_t *u = (const uint8_t *)s;
    int32_t i = 0, n = len > INT32_MAX ? INT32_MAX : (int32_t)len;
    while (i < n) {
        /* ASCII eight bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, u + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        UChar32 c;
        U8_NEXT(u, i, n, c);
        if (c < 0)
            bad++;
        else
            mb++;
    }
    *multibyte = mb;
    *invalid = bad;
}

/* Copy UTF-8, replacing each invalid sequence and each NUL by U+FFFD. */
static int copy_utf8(const char *s, size_t len, ps_decoded *out)
{
    ps_buf b = {0};
    if (ps_buf_reserve(&b, len + len / 8 + 16))
        return -1;
    const uint8_t *u = (const uint8_t *)s;
    int32_t i = 0, n = (int32_t)len;
    size_t replaced = 0;
    while (i < n) {
        int32_t start = i;
        while (i < n && u[i] < 0x80 && u[i] != 0)
            i++;
        if (i > start && ps_buf_append(&b, s + start, (size_t)(i - start)))
            goto nomem;
        if (i >= n)
            break;
        start = i;
        UChar32 c;
        U8_NEXT(u, i, n, c);
        if (c <= 0) {
            replaced++;
            if (ps_buf_append(&b, REPLACEMENT, 3))
                goto nomem;
        } else if (ps_buf_append(&b, s + start, (size_t)(i - start))) {
            goto nomem;
        }
    }
    if (ps_buf_reserve(&b, 0))
        goto nomem;
    b.data[b.len] = '\0';
    out->utf8 = ps_buf_take(&b, &out->len);
    out->replaced = replaced;
    return 0;
nomem:
    ps_buf_free(&b);
    return -1;
}

/* Convert with ICU; substitution gives U+FFFD for invalid input. */
static int convert_icu(const char *charset, const char *s, size_t len, ps_decoded *out)
{
    UErrorCode st = U_ZERO_ERROR;
    UConverter *from = ucnv_open(charset, &st);
    if (U_FAILURE(st))
        return 1; /* unknown to ICU: caller falls back */
    st = U_ZERO_ERROR;
    UConverter *to = ucnv_open("UTF-8", &st);
    if (U_FAILURE(st)) {
        ucnv_close(from);
        return 1;
    }
    size_t cap = len * 3 + 16;
    char *dst = malloc(cap);
    if (!dst) {
        ucnv_close(from);
        ucnv_close(to);
        return -1;
    }
    char *t = dst;
    const char *src = s;
    st = U_ZERO_ERROR;
    ucnv_convertEx(to, from, &t, dst + cap - 1, &src, s + len, NULL, NULL, NULL, NULL,
                   1, 1, &st);
    ucnv_close(from);
    ucnv_close(to);
    if (U_FAILURE(st)) {
        free(dst);
        return 1;
    }
    size_t n = (size_t)(t - dst);
    dst[n] = '\0';
    /* NULs (from the source or from UTF-16 conversion) would end the text
     * for libxml2: re-copy through the UTF-8 cleaner, which replaces them. */
    if (memchr(dst, 0, n)) {
        ps_decoded tmp = {0};
        if (copy_utf8(dst, n, &tmp)) {
            free(dst);
            return -1;
        }
        free(dst);
        dst = tmp.utf8;
        n = tmp.len;
    }
    size_t replaced = 0;
    for (char *p = dst; (p = memmem(p, (size_t)(dst + n - p), REPLACEMENT, 3)); p += 3)
        replaced++;
    out->utf8 = dst;
    out->len = n;
    out->replaced = replaced;
    return 0;
}

/* ICU's guess, or NULL.  Markup is filtered out before detection. */
static const char *detect(const char *s, size_t len, int32_t *confidence)
{
    UErrorCode st = U_ZERO_ERROR;
    UCharsetDetector *csd = ucsdet_open(&st);
    if (U_FAILURE(st))
        return NULL;
    ucsdet_enableInputFilter(csd, 1);
    ucsdet_setText(csd, s, (int32_t)(len > DETECT_MAX_BYTES ? DETECT_MAX_BYTES : len), &st);
    const UCharsetMatch *m = ucsdet_detect(csd, &st);
    const char *name = NULL;
    *confidence = 0;
    if (U_SUCCESS(st) && m) {
        const char *n = ucsdet_getName(m, &st);
        *confidence = ucsdet_getConfidence(m, &st);
        if (U_SUCCESS(st) && n) {
            /* ICU's names are static strings of the converter table. */
            static const char *const known[] = {
                "UTF-8", "UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE", "Shift_JIS",
                "ISO-2022-JP", "ISO-2022-CN", "ISO-2022-KR", "GB18030", "EUC-JP",
                "EUC-KR", "Big5", "ISO-8859-1", "ISO-8859-2", "ISO-8859-5", "ISO-8859-6",
                "ISO-8859-7", "ISO-8859-8", "ISO-8859-8-I", "ISO-8859-9", "windows-1250",
                "windows-1251", "windows-1252", "windows-1253", "windows-1254",
                "windows-1255", "windows-1256", "KOI8-R", "IBM420_rtl", "IBM420_ltr",
                "IBM424_rtl", "IBM424_ltr"};
            for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
                if (strcmp(n, known[i]) == 0) {
                    name = known[i];
                    break;
                }
        }
    }
    ucsdet_close(csd);
    if (name && strcmp(name, "ISO-8859-1") == 0)
        name = "windows-1252";
    if (name && strncmp(name, "IBM42", 5) == 0)
        name = NULL; /* EBCDIC guesses on HTML are always wrong */
    return name;
}

/* Can @p charset be the encoding of bytes in which the <meta> that names it
 * (or HTTP's ASCII) reads as ASCII?  Its converter must give the same
 * characters for an ASCII sample: UTF-16/32, UCS-2/4, EBCDIC (cp037,
 * ibm1047, ...), BOCU-1 and the like do not, so a declaration of one of them
 * on ASCII-compatible bytes (step 2/3; a real UTF-16/32 page has a byte-order
 * mark or NULs, found in step 1) cannot apply: it is ignored. */
static int ascii_compatible(const char *charset)
{
    static const char sample[] = "<html><meta charset=\"x\"> Az09-_.:/=;'&#?!";
    UErrorCode st = U_ZERO_ERROR;
    UConverter *c = ucnv_open(charset, &st);
    if (U_FAILURE(st) || !c)
        return 0;
    UChar u[64];
    int32_t n = ucnv_toUChars(c, u, 64, sample, (int32_t)sizeof sample - 1, &st);
    ucnv_close(c);
    if (U_FAILURE(st) || n != (int32_t)sizeof sample - 1)
        return 0;
    for (int32_t i = 0; i < n; i++)
        if (u[i] != (UChar)(unsigned char)sample[i])
            return 0;
    return 1;
}

/* A detector's UTF-16/32 guess is plausible only on bytes with many NULs
 * (text in UTF-16 or UTF-32 without a byte-order mark). */
static int plausible_guess(const char *guess, const char *s, size_t len)
{
    if (!guess || (strncmp(guess, "UTF-16", 6) != 0 && strncmp(guess, "UTF-32", 6) != 0))
        return guess != NULL;
    size_t n = len < 4096 ? len : 4096, nul = 0;
    for (size_t i = 0; i < n; i++)
        nul += s[i] == 0;
    return nul * 4 >= n && n > 0;
}

static int is_cjk_multibyte(const char *cs)
{
    return strcmp(cs, "GB18030") == 0 || strcmp(cs, "Big5") == 0 || strcmp(cs, "Shift_JIS") == 0 ||
           strcmp(cs, "EUC-JP") == 0 || strcmp(cs, "EUC-KR") == 0;
}

/* When the caller can take the bytes as they are (valid UTF-8, no NUL),
 * point it at them instead of copying. */
static int finish_direct(ps_decoded *out, const char *charset, ps_charset_source src, const char *s,
                         size_t len, int clean, const char **direct, size_t *direct_len)
{
    if (!direct || !clean || strcmp(charset, "UTF-8") != 0 || memchr(s, 0, len))
        return 1;
    *direct = s;
    *direct_len = len;
    snprintf(out->charset, sizeof out->charset, "%s", charset);
    out->source = src;
    return 0;
}

static int finish(ps_decoded *out, const char *charset, ps_charset_source src,
                  const char *s, size_t len, ps_error *err);

static int finish_utf8(ps_decoded *out, ps_charset_source src, const char *s, size_t len, int clean,
                       const char **direct, size_t *direct_len, ps_error *err)
{
    if (finish_direct(out, "UTF-8", src, s, len, clean, direct, direct_len) == 0)
        return 0;
    return finish(out, "UTF-8", src, s, len, err);
}

static int finish(ps_decoded *out, const char *charset, ps_charset_source src,
                  const char *s, size_t len, ps_error *err)
{
    int r;
    if (strcmp(charset, "UTF-8") == 0)
        r = copy_utf8(s, len, out);
    else
        r = convert_icu(charset, s, len, out);
    if (r > 0) { /* ICU cannot convert it: last resort */
        charset = "windows-1252";
        src = PS_CHARSET_FALLBACK;
        r = convert_icu(charset, s, len, out);
    }
    if (r != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory decoding %zu bytes", len);
    snprintf(out->charset, sizeof out->charset, "%s", charset);
    out->source = src;
    return 0;
}

/* UTF-16 without a byte-order mark: in the first 4 KB one byte of each pair
 * is mostly NUL (markup and Latin text in UTF-16) and the other seldom is.
 * NULs on the odd bytes mean little-endian, on the even bytes big-endian.
 * The thresholds are those under which extract/page.c does not call the
 * bytes binary.  NULL when the bytes do not look so. */
static const char *utf16_without_bom(const char *s, size_t len)
{
    size_t n = len < 4096 ? len : 4096, nul[2] = {0, 0};
    if (n < 16)
        return NULL;
    for (size_t i = 0; i < n; i++)
        nul[i & 1] += s[i] == 0;
    size_t half = n / 2;
    if (nul[1] * 10 > half * 3 && nul[0] * 20 <= half)
        return "UTF-16LE";
    if (nul[0] * 10 > half * 3 && nul[1] * 20 <= half)
        return "UTF-16BE";
    return NULL;
}

int ps_decode(const void *bytes, size_t len, const char *declared, ps_decoded *out, ps_error *err)
{
    return ps_decode_ex(bytes, len, declared, out, NULL, NULL, err);
}

int ps_decode_ex(const void *bytes, size_t len, const char *declared, ps_decoded *out,
                 const char **direct, size_t *direct_len, ps_error *err)
{
    const char *s = bytes;
    memset(out, 0, sizeof *out);
    if (direct)
        *direct = NULL;
    if (len > (size_t)INT32_MAX - 16)
        return ps_set_error(err, PS_ERR_TOO_LARGE, "page of %zu bytes is too large to decode", len);

    /* 1. Byte-order mark. */
    if (len >= 3 && (uint8_t)s[0] == 0xEF && (uint8_t)s[1] == 0xBB && (uint8_t)s[2] == 0xBF)
        return finish(out, "UTF-8", PS_CHARSET_BOM, s + 3, len - 3, err);
    if (len >= 2 && (uint8_t)s[0] == 0xFF && (uint8_t)s[1] == 0xFE)
        return finish(out, "UTF-16LE", PS_CHARSET_BOM, s + 2, len - 2, err);
    if (len >= 2 && (uint8_t)s[0] == 0xFE && (uint8_t)s[1] == 0xFF)
        return finish(out, "UTF-16BE", PS_CHARSET_BOM, s + 2, len - 2, err);
    const char *u16 = utf16_without_bom(s, len);
    if (u16)
        return finish(out, u16, PS_CHARSET_DETECTED, s, len, err);

    /* 2./3. A declaration: the caller's, else the page's own. */
    char buf[64], meta[64];
    const char *decl = NULL;
    ps_charset_source decl_src = PS_CHARSET_CALLER;
    if (declared)
        decl = ps_charset_canonical(declared, buf, sizeof buf);
    if (decl && strcmp(decl, "UTF-8") != 0 && !ascii_compatible(decl))
        decl = NULL; /* cannot apply to these bytes: as if not given */
    if (!decl && ps_meta_charset(s, len, meta, sizeof meta)) {
        decl = ps_charset_canonical(meta, buf, sizeof buf);
        decl_src = PS_CHARSET_META;
        if (decl && strcmp(decl, "UTF-8") != 0 && !ascii_compatible(decl))
            decl = NULL;
    }

    size_t mb, bad;
    utf8_survey(s, len, &mb, &bad);
    int32_t conf = 0;

    if (decl && strcmp(decl, "UTF-8") == 0) {
        if (bad == 0 || mb >= bad)
            return finish_utf8(out, decl_src, s, len, bad == 0, direct, direct_len, err);
        const char *guess = detect(s, len, &conf);
        if (!plausible_guess(guess, s, len))
            guess = NULL;
        if (guess && conf >= DETECT_MIN_CONFIDENCE && strcmp(guess, "UTF-8") != 0)
            return finish(out, guess, PS_CHARSET_DETECTED, s, len, err);
        return finish_utf8(out, decl_src, s, len, bad == 0, direct, direct_len, err);
    }
    if (decl) {
        if (bad == 0 && mb > 0) /* valid UTF-8 with non-ASCII text wins */
            return finish_utf8(out, PS_CHARSET_UTF8_VALID, s, len, bad == 0, direct, direct_len, err);
        if (bad > 0 && !is_cjk_multibyte(decl)) {
            /* A single-byte declaration over bytes that are really a CJK
             * multi-byte charset: trust a confident detector. */
            const char *guess = detect(s, len, &conf);
            if (guess && conf >= DETECT_OVERRIDE_CONFIDENCE && is_cjk_multibyte(guess))
                return finish(out, guess, PS_CHARSET_DETECTED, s, len, err);
        }
        return finish(out, decl, decl_src, s, len, err);
    }

    /* 4. No declaration. */
    if (bad == 0 || mb >= bad)
        return finish_utf8(out, PS_CHARSET_UTF8_VALID, s, len, bad == 0, direct, direct_len, err);
    const char *guess = detect(s, len, &conf);
    if (!plausible_guess(guess, s, len))
        guess = NULL; /* e.g. UTF-16BE for two Latin-1 bytes */
    if (guess && conf >= DETECT_MIN_CONFIDENCE)
        return finish(out, guess, PS_CHARSET_DETECTED, s, len, err);
    /* 5. Last resort. */
    return finish(out, "windows-1252", PS_CHARSET_FALLBACK, s, len, err);
}
