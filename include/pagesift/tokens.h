/*
 * pagesift/tokens.h — the tokenizers the metrics and the gold labels cut
 * texts with (common/tokens.c): the benchmark-compatible one (ps_tokenize),
 * Python's \w+ runs exactly and ICU's word breaks.
 */
#ifndef PAGESIFT_TOKENS_H
#define PAGESIFT_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A token of a text: runs of word characters as Python's re \w matches
 *  them (letters L*, numbers N*, underscore; combining marks are not word
 *  characters there), except that each CJK ideograph, hiragana and katakana
 *  character is a token of its own. */
typedef struct ps_token {
    uint32_t off, len;   /**< bytes in the text */
    uint64_t hash;       /**< hash of the token's bytes */
} ps_token;

/** Tokenize @p len bytes of UTF-8.  Returns the number of tokens and a
 *  malloc'ed array in *out (free()), or (size_t)-1 when out of memory. */
PS_LAB_EXPORT size_t ps_tokenize(const char *text, size_t len, ps_token **out);

/** Multiset recall of @p gold's tokens in @p text: shared / gold tokens
 *  (1.0 when gold has no tokens). */
PS_LAB_EXPORT double ps_token_recall(const char *text, size_t text_len, const char *gold, size_t gold_len);

/** Which tokens a metric compares. */
typedef enum ps_tokens_kind {
    /** ps_tokenize: Python's \w+ runs (the benchmark's tokenizer), except
     *  that each CJK ideograph and kana is a token of its own */
    PS_TOKENS_WORD = 0,
    /** ICU word-break words (ubrk word iterator, root locale: dictionary
     *  segmentation of Chinese/Japanese/Thai); punctuation and spaces are
     *  not tokens */
    PS_TOKENS_ICU = 1,
    /** ps_tokenize_python: Python's \\w+ runs exactly, CJK runs too (the
     *  WCXB rule's re.findall(r'\\w+')) */
    PS_TOKENS_PYTHON = 2
} ps_tokens_kind;

/** Python's \\w+ runs exactly, a CJK run one token (PS_TOKENS_PYTHON).
 *  Same contract as ps_tokenize. */
PS_LAB_EXPORT size_t ps_tokenize_python(const char *text, size_t len, ps_token **out);
/** ICU word-break tokens of @p len bytes of UTF-8 (PS_TOKENS_ICU).  Same
 *  contract as ps_tokenize. */
PS_LAB_EXPORT size_t ps_tokenize_icu(const char *text, size_t len, ps_token **out);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_TOKENS_H */
