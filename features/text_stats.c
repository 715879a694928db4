/* features/text_stats.c — text statistics and class/id word lists for the
 * extended block features (see text_stats.h).  Scans UTF-8 once, no
 * allocation; ICU only for non-ASCII character classes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "common/util.h"
#include "extract/class_words.h"
#include "features/text_stats.h"

/* Small English function-word list (sorted, lower case, for bsearch). */
static const char *const EN_STOP[] = {
    "a",     "about", "after", "all",   "also",  "an",    "and",   "any",   "are",   "as",
    "at",    "be",    "been",  "before","but",   "by",    "can",   "could", "did",   "do",
    "does",  "for",   "from",  "had",   "has",   "have",  "he",    "her",   "his",   "how",
    "i",     "if",    "in",    "into",  "is",    "it",    "its",   "may",   "more",  "most",
    "no",    "not",   "of",    "on",    "one",   "only",  "or",    "other", "our",   "out",
    "over",  "said",  "she",   "so",    "some",  "such",  "than",  "that",  "the",   "their",
    "them",  "then",  "there", "these", "they",  "this",  "those", "to",    "up",    "was",
    "we",    "were",  "what",  "when",  "which", "while", "who",   "will",  "with",  "would",
    "you",   "your",
};

/* Chinese function characters (sorted code points): 的 了 是 在 和 也 有 就
 * 不 都 而 及 与 这 那 之 其 为 被 把 等 着 从 对 但 并 或 又 所 以 于 将 我
 * 你 他 她 它 们 个 上 中 到 说 要 会 能 可 还 很 地 得 吗 呢 吧 啊. */
static const uint32_t ZH_STOP[] = {
    0x4E0A, 0x4E0D, 0x4E0E, 0x4E2A, 0x4E2D, 0x4E3A, 0x4E4B, 0x4E5F, 0x4E86, 0x4E8E, 0x4ECE,
    0x4ED6, 0x4EE5, 0x4EEC, 0x4F1A, 0x4F46, 0x4F60, 0x5176, 0x5230, 0x53C8, 0x53CA, 0x53EF,
    0x5417, 0x5427, 0x5462, 0x548C, 0x554A, 0x5728, 0x5730, 0x5979, 0x5B83, 0x5BF9, 0x5C06,
    0x5C31, 0x5E76, 0x5F88, 0x5F97, 0x6211, 0x6216, 0x6240, 0x628A, 0x662F, 0x6709, 0x7684,
    0x7740, 0x7B49, 0x800C, 0x80FD, 0x88AB, 0x8981, 0x8BF4, 0x8FD8, 0x8FD9, 0x90A3, 0x90FD,
};


/* The stop words as FNV-1a hashes of their (lower-case ASCII) bytes, sorted:
 * scan() has each word's hash already, so a lookup is a binary search over
 * integers instead of string comparisons (built once, thread-safely). */
#define N_EN_STOP (sizeof EN_STOP / sizeof *EN_STOP)
static uint64_t en_stop_hash[N_EN_STOP];
static pthread_once_t en_stop_once = PTHREAD_ONCE_INIT;

static int cmp_hash(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void build_en_stop(void)
{
    for (size_t i = 0; i < N_EN_STOP; i++)
        en_stop_hash[i] = ps_hash64(EN_STOP[i], strlen(EN_STOP[i]));
    qsort(en_stop_hash, N_EN_STOP, sizeof *en_stop_hash, cmp_hash);
}

static int is_en_stop_hash(uint64_t h)
{
    pthread_once(&en_stop_once, build_en_stop);
    size_t lo = 0, hi = N_EN_STOP;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (en_stop_hash[mid] == h)
            return 1;
        if (en_stop_hash[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int is_zh_stop(uint32_t c)
{
    size_t lo = 0, hi = sizeof ZH_STOP / sizeof *ZH_STOP;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ZH_STOP[mid] == c)
            return 1;
        if (ZH_STOP[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int is_cjk(UChar32 c)
{
    return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0x20000 && c <= 0x2FA1F);
}

static int is_sentence_end(UChar32 c)
{
    return c == '.' || c == '!' || c == '?' || c == ';' || c == 0x3002 || c == 0xFF01 ||
           c == 0xFF1F || c == 0xFF1B || c == 0xFF0E;
}

typedef struct hash_vec {
    uint64_t *v;
    size_t n, cap;
    int oom;
} hash_vec;

static void hv_push(hash_vec *h, uint64_t x)
{
    if (h->n == h->cap) {
        size_t c = h->cap ? 2 * h->cap : 32;
        uint64_t *v = realloc(h->v, c * sizeof *v);
        if (!v) {
            h->oom = 1;
            return;
        }
        h->v = v;
        h->cap = c;
    }
    h->v[h->n++] = x;
}

static int in_set(const ps_word_set *set, uint64_t h)
{
    size_t lo = 0, hi = set->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (set->hashes[mid] == h)
            return 1;
        if (set->hashes[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

/* The end of a (non-CJK) word: count it, test it against the stop words and
 * the title, hand its hash out. */
static inline void end_word(ps_text_stats *s, const ps_word_set *title, hash_vec *out, size_t wchars,
                            int wascii, uint64_t wh)
{
    s->words++;
    s->word_chars += (uint32_t)wchars;
    if (wascii && is_en_stop_hash(wh))
        s->stopwords++;
    if (title && in_set(title, wh))
        s->title_words++;
    if (out)
        hv_push(out, wh);
}

/* Classes of the ASCII characters for scan()'s fast path. */
enum { A_ALNUM = 1, A_DIGIT = 2, A_PUNCT = 4, A_SENT = 8 };

static unsigned ascii_class(int c)
{
    unsigned f = 0;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        f |= A_ALNUM;
    if (c >= '0' && c <= '9')
        f |= A_DIGIT;
    else if (c > ' ' && c < 0x7F && !(f & A_ALNUM))
        f |= A_PUNCT;
    if (is_sentence_end(c))
        f |= A_SENT;
    return f;
}

static unsigned char ascii_table[128];
static pthread_once_t ascii_once = PTHREAD_ONCE_INIT;

static void build_ascii_table(void)
{
    for (int c = 0; c < 128; c++)
        ascii_table[c] = (unsigned char)ascii_class(c);
}

#define MAX_ASCII_WORD 23 /* longer words are not tested as stop words */

/* One pass over the text: statistics into s (may be NULL), each word's hash
 * (ASCII lower-cased) into out (may be NULL).  ASCII characters take a
 * table-driven fast path; the rest is decoded with ICU. */
static void scan(ps_text_stats *s, const char *text, size_t n, const ps_word_set *title,
                 hash_vec *out)
{
    ps_text_stats discard = {0};
    if (!s)
        s = &discard;
    pthread_once(&ascii_once, build_ascii_table);
    const uint8_t *p = (const uint8_t *)text;
    int32_t i = 0, end = (int32_t)n;
    size_t wlen = 0, wchars = 0; /* current non-CJK word */
    int wascii = 1;
    uint64_t wh = FNV_OFFSET;
    while (i <= end) {
        if (i < end && p[i] < 0x80) { /* ASCII */
            unsigned c = p[i++];
            unsigned f = ascii_table[c];
            s->chars++;
            if (f & A_DIGIT)
                s->digits++;
            else if (f & A_PUNCT)
                s->punct++;
            if (f & A_SENT)
                s->sentence_ends++;
            if (f & A_ALNUM) {
                unsigned lc = c >= 'A' && c <= 'Z' ? c + 32 : c;
                if (wlen < MAX_ASCII_WORD)
                    wlen++;
                else
                    wascii = 0;
                wh = (wh ^ lc) * FNV_PRIME;
                wchars++;
                continue;
            }
            if (wchars) {
                end_word(s, title, out, wchars, wascii, wh);
                wlen = wchars = 0;
                wascii = 1;
                wh = FNV_OFFSET;
            }
            continue;
        }
        int32_t at = i;
        UChar32 c = -1;
        if (i < end)
            U8_NEXT(p, i, end, c);
        else
            i++;
        int alnum, cjk = 0;
        if (c < 0) {
            alnum = 0;
        } else {
            cjk = is_cjk(c);
            alnum = !cjk && (u_isalnum(c) || u_charType(c) == U_NON_SPACING_MARK);
        }
        if (c >= 0 && i <= end) {
            s->chars++;
            if (u_isdigit(c))
                s->digits++;
            else if (u_ispunct(c))
                s->punct++;
            if (is_sentence_end(c))
                s->sentence_ends++;
            if (c == 0xA9 || c == 0x2117)
                s->copyright++;
        }
        if (alnum) {
            wascii = 0;
            for (int32_t k = at; k < i; k++)
                wh = (wh ^ p[k]) * FNV_PRIME;
            wchars++;
            continue;
        }
        if (wchars) { /* a word ended */
            end_word(s, title, out, wchars, wascii, wh);
            wlen = wchars = 0;
            wascii = 1;
            wh = FNV_OFFSET;
        }
        if (cjk) {
            uint64_t ch = FNV_OFFSET;
            for (int32_t k = at; k < i; k++)
                ch = (ch ^ p[k]) * FNV_PRIME;
            s->words++;
            s->word_chars++;
            s->stopwords += is_zh_stop((uint32_t)c);
            if (title && in_set(title, ch))
                s->title_words++;
            if (out)
                hv_push(out, ch);
        }
    }
}

void ps_text_stats_add(ps_text_stats *s, const char *text, size_t n, const ps_word_set *title)
{
    scan(s, text, n, title, NULL);
}

int ps_word_set_init(ps_word_set *set, const char *text, size_t n)
{
    hash_vec h = {0};
    scan(NULL, text, n, NULL, &h);
    if (h.oom) {
        free(h.v);
        set->hashes = NULL;
        set->n = 0;
        return -1;
    }
    if (h.n)
        qsort(h.v, h.n, sizeof *h.v, ps_cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < h.n; i++)
        if (!k || h.v[k - 1] != h.v[i])
            h.v[k++] = h.v[i];
    set->hashes = h.v;
    set->n = k;
    return 0;
}

void ps_word_set_free(ps_word_set *set)
{
    free(set->hashes);
    set->hashes = NULL;
    set->n = 0;
}

/* Class/id words: the one table of extract/class_words.c (whole tokens). */
unsigned ps_attr_words(const char *attr)
{
    return ps_attr_of_class_words(ps_class_words(attr ? attr : "", attr ? strlen(attr) : 0));
}

unsigned ps_attr_of_class_words(unsigned w)
{
    return (w & PS_CW_NOISE ? PS_ATTR_NOISE : 0) | (w & PS_CW_CONTENT ? PS_ATTR_CONTENT : 0) |
           (w & PS_CW_COMMENT ? PS_ATTR_COMMENT : 0);
}
