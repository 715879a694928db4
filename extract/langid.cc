// extract/langid.cc — the language of a text, by Google's Compact Language
// Detector 2 (Debian: libcld2-dev).  CLD2's only interface is C++; this is
// the one C++ file of the library, a C function around it.
#include <cstdio>
#include <cstring>

#include <cld2/public/compact_lang_det.h>

#include "extract/meta_internal.h"

extern "C" int ps_langid(const char *text, size_t len, char code[16], int *percent, int *reliable)
{
    code[0] = '\0';
    *percent = 0;
    *reliable = 0;
    if (!text || len == 0)
        return 0;
    // The first 3 KB are plenty for a language; cut on a UTF-8 boundary.
    if (len > 3072) {
        len = 3072;
        while (len > 0 && (static_cast<unsigned char>(text[len]) & 0xC0) == 0x80)
            len--;
    }
    CLD2::Language l3[3];
    int p3[3];
    double s3[3];
    int text_bytes = 0, valid = 0;
    bool rel = false;
    CLD2::Language l = CLD2::ExtDetectLanguageSummaryCheckUTF8(
        text, static_cast<int>(len), true, nullptr, 0, l3, p3, s3, nullptr, &text_bytes, &rel, &valid);
    if (l == CLD2::UNKNOWN_LANGUAGE || l == CLD2::TG_UNKNOWN_LANGUAGE)
        return 0;
    const char *c = CLD2::LanguageCode(l);
    if (!c || !*c || std::strcmp(c, "un") == 0)
        return 0;
    std::snprintf(code, 16, "%s", c);
    *percent = l3[0] == l ? p3[0] : 0;
    *reliable = rel ? 1 : 0;
    return 1;
}
