/* tests/test_decode.c — charset decisions: BOM, declared vs detected, junk
 * prefix, invalid bytes, NULs. */
#include <stdlib.h>

#include "pagesift/page.h"
#include "tests/test_util.h"

static void decode(const char *bytes, size_t len, const char *declared, ps_decoded *d)
{
    ps_error err = {0};
    assert_int_equal(ps_decode(bytes, len, declared, d, &err), 0);
}

static void test_bom_wins_over_meta(void **state)
{
    (void)state;
    const char s[] = "\xEF\xBB\xBF<meta charset=iso-8859-1><p>caf\xC3\xA9</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, "windows-1251", &d);
    assert_string_equal(d.charset, "UTF-8");
    assert_int_equal(d.source, PS_CHARSET_BOM);
    assert_non_null(strstr(d.utf8, "caf\xC3\xA9"));
    assert_int_equal((unsigned char)d.utf8[0], '<'); /* BOM removed */
    free(d.utf8);
}

static void test_utf16_bom(void **state)
{
    (void)state;
    const char s[] = "\xFF\xFE<\0p\0>\0h\0\xE9\0<\0/\0p\0>\0";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    assert_string_equal(d.charset, "UTF-16LE");
    assert_string_equal(d.utf8, "<p>h\xC3\xA9</p>");
    free(d.utf8);
}

/* Without a byte-order mark, UTF-16 is known by its NULs on every other
 * byte: little-endian on the odd bytes, big-endian on the even ones. */
static void test_utf16_without_bom(void **state)
{
    (void)state;
    const char le[] = "<\0p\0>\0h\0\xE9\0 \0t\0h\0e\0r\0e\0<\0/\0p\0>\0";
    const char be[] = "\0<\0p\0>\0h\0\xE9\0 \0t\0h\0e\0r\0e\0<\0/\0p\0>";
    ps_decoded d;
    decode(le, sizeof le - 1, NULL, &d);
    assert_string_equal(d.charset, "UTF-16LE");
    assert_int_equal(d.source, PS_CHARSET_DETECTED);
    assert_string_equal(d.utf8, "<p>h\xC3\xA9 there</p>");
    free(d.utf8);
    decode(be, sizeof be - 1, NULL, &d);
    assert_string_equal(d.charset, "UTF-16BE");
    assert_string_equal(d.utf8, "<p>h\xC3\xA9 there</p>");
    free(d.utf8);
}

static void test_caller_charset_used(void **state)
{
    (void)state;
    const char s[] = "<p>\xE9t\xE9</p>"; /* latin-1 bytes, no meta */
    ps_decoded d;
    decode(s, sizeof s - 1, "ISO-8859-1", &d);
    assert_int_equal(d.source, PS_CHARSET_CALLER);
    assert_string_equal(d.charset, "windows-1252");
    assert_string_equal(d.utf8, "<p>\xC3\xA9t\xC3\xA9</p>");
    free(d.utf8);
}

static void test_meta_legacy_declaration(void **state)
{
    (void)state;
    const char s[] = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; "
                     "charset=iso-8859-1\"></head><body>\x93quoted\x94 caf\xE9</body></html>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    assert_int_equal(d.source, PS_CHARSET_META);
    /* iso-8859-1 is read as windows-1252: 0x93/0x94 are curly quotes */
    assert_non_null(strstr(d.utf8, "\xE2\x80\x9Cquoted\xE2\x80\x9D caf\xC3\xA9"));
    free(d.utf8);
}

static void test_valid_utf8_beats_legacy_declaration(void **state)
{
    (void)state;
    const char s[] = "<meta charset=\"iso-8859-1\"><p>na\xC3\xAFve caf\xC3\xA9 \xE2\x80\x94 ok</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    assert_string_equal(d.charset, "UTF-8");
    assert_int_equal(d.source, PS_CHARSET_UTF8_VALID);
    assert_non_null(strstr(d.utf8, "na\xC3\xAFve caf\xC3\xA9"));
    free(d.utf8);
}

static void test_gb2312_declared_decoded_as_gb18030(void **state)
{
    (void)state;
    /* "中文" in GBK is D6 D0 CE C4; 0x80 0x81.. are GBK-only but valid GB18030 */
    const char s[] = "<meta charset=gb2312><p>\xD6\xD0\xCE\xC4</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    assert_string_equal(d.charset, "GB18030");
    assert_non_null(strstr(d.utf8, "\xE4\xB8\xAD\xE6\x96\x87"));
    free(d.utf8);
}

static void test_gbk_detected_without_declaration(void **state)
{
    (void)state;
    /* A longer undeclared GBK text: ICU must detect a CJK charset. */
    const char *zh = "\xD6\xD0\xB9\xFA\xC8\xCB\xC3\xF1\xD2\xF8\xD0\xD0\xBD\xF1\xCC\xEC\xB7\xA2\xB2\xBC"
                     "\xC1\xCB\xD0\xC2\xB5\xC4\xBE\xAD\xBC\xC3\xCA\xFD\xBE\xDD\xA3\xAC\xB1\xED\xC3\xF7"
                     "\xCE\xD2\xB9\xFA\xBE\xAD\xBC\xC3\xD4\xF6\xB3\xA4\xCE\xC8\xB6\xA8\xA1\xA3";
    char s[4096] = "<html><body><p>";
    for (int i = 0; i < 20; i++)
        strcat(s, zh);
    strcat(s, "</p></body></html>");
    ps_decoded d;
    decode(s, strlen(s), NULL, &d);
    assert_int_equal(d.source, PS_CHARSET_DETECTED);
    assert_string_equal(d.charset, "GB18030");
    assert_non_null(strstr(d.utf8, "\xE4\xB8\xAD\xE5\x9B\xBD")); /* 中国 */
    free(d.utf8);
}

static void test_invalid_utf8_replaced_not_truncated(void **state)
{
    (void)state;
    const char s[] = "<meta charset=utf-8><p>caf\xC3\xA9 it\x92s \xE2\x80\x99 ok \xFF end</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    assert_string_equal(d.charset, "UTF-8");
    assert_int_equal(d.replaced, 2);
    assert_non_null(strstr(d.utf8, "it\xEF\xBF\xBDs \xE2\x80\x99 ok \xEF\xBF\xBD end</p>"));
    free(d.utf8);
}

static void test_nul_bytes_replaced(void **state)
{
    (void)state;
    const char s[] = "<p>a\0b</p><p>after</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    assert_int_equal(d.len, sizeof s - 1 + 2);
    assert_non_null(strstr(d.utf8, "after"));
    free(d.utf8);
}

static void test_no_declaration_windows1252_fallback_or_detect(void **state)
{
    (void)state;
    const char s[] = "<p>Caf\xE9 au lait, cr\xE8me br\xFBl\xE9\x65, na\xEFve fa\xE7\x61\x64\x65.</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    /* Latin text: detected as a Latin charset, never lost */
    assert_non_null(strstr(d.utf8, "Caf\xC3\xA9"));
    assert_non_null(strstr(d.utf8, "fa\xC3\xA7\x61\x64\x65"));
    free(d.utf8);
}

static void test_junk_prefix_skipped(void **state)
{
    (void)state;
    const char *s = "<text id=\"http://x.org/a\" title=\"T\" encoding=\"utf-8\">\n"
                    "<!DOCTYPE html><html><head><title>Real title</title></head>"
                    "<body><p>Body text.</p></body></html>\n</text>";
    ps_page *pg = parse_str(s);
    assert_non_null(pg);
    assert_string_equal(ps_page_title(pg), "Real title");
    size_t len;
    char *t = ps_page_text(pg, NULL, &len);
    assert_string_equal(t, "Body text.\n"); /* the title is not body text */
    free(t);
    ps_page_free(pg);
}

/* A declaration of a charset in which the page's own ASCII could not be
 * read (UTF-32, UCS-2, EBCDIC, BOCU-1) on ASCII-compatible bytes cannot
 * apply: ignored.  Before: obeyed, garbage with status ok. */
static void test_declarations_that_cannot_apply(void **state)
{
    (void)state;
    static const char *const names[] = {"utf-32", "utf-32le", "ucs-2", "ucs-4", "cp037", "ibm1047",
                                        "ebcdic-cp-us", "bocu-1"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char s[256];
        snprintf(s, sizeof s, "<html><head><meta charset=\"%s\"></head><body><p>Hello world, caf\xC3\xA9</p>",
                 names[i]);
        for (int caller = 0; caller < 2; caller++) {
            ps_decoded d;
            decode(s, strlen(s), caller ? names[i] : NULL, &d);
            if (!strstr(d.utf8, "Hello world, caf\xC3\xA9"))
                fail_msg("declared %s (%s): decoded as %s: '%.60s'", names[i], caller ? "caller" : "meta",
                         d.charset, d.utf8);
            free(d.utf8);
        }
    }
}

/* An unknown name plus two Latin-1 bytes: the detector's UTF-16BE guess is
 * implausible without NULs.  Before: decoded as UTF-16BE (CJK garbage). */
static void test_detector_guess_checked(void **state)
{
    (void)state;
    const char s[] = "<html><meta charset=\"x-no-such-charset\"><p>caf\xE9 na\xEFve</p>";
    ps_decoded d;
    decode(s, sizeof s - 1, NULL, &d);
    if (strncmp(d.charset, "UTF-16", 6) == 0 || strncmp(d.charset, "UTF-32", 6) == 0)
        fail_msg("decoded as %s", d.charset);
    assert_non_null(strstr(d.utf8, "<p>caf"));
    free(d.utf8);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bom_wins_over_meta),
        cmocka_unit_test(test_utf16_bom),
        cmocka_unit_test(test_utf16_without_bom),
        cmocka_unit_test(test_caller_charset_used),
        cmocka_unit_test(test_meta_legacy_declaration),
        cmocka_unit_test(test_valid_utf8_beats_legacy_declaration),
        cmocka_unit_test(test_gb2312_declared_decoded_as_gb18030),
        cmocka_unit_test(test_gbk_detected_without_declaration),
        cmocka_unit_test(test_invalid_utf8_replaced_not_truncated),
        cmocka_unit_test(test_nul_bytes_replaced),
        cmocka_unit_test(test_no_declaration_windows1252_fallback_or_detect),
        cmocka_unit_test(test_junk_prefix_skipped),
        cmocka_unit_test(test_declarations_that_cannot_apply),
        cmocka_unit_test(test_detector_guess_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
