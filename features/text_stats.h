/* features/text_stats.h — cheap statistics of a text (punctuation, digits,
 * words, function words, sentence ends) and the noise/content words of
 * class/id attributes, for the extended block features. */
#ifndef PS_TEXT_STATS_H
#define PS_TEXT_STATS_H

#include <stddef.h>
#include <stdint.h>

/** Running totals over one or more texts; zero-initialise. */
typedef struct ps_text_stats {
    uint32_t chars;         /**< code points */
    uint32_t punct;         /**< punctuation marks (Unicode P* categories) */
    uint32_t digits;        /**< decimal digits */
    uint32_t words;         /**< word tokens (a CJK character is one) */
    uint32_t word_chars;    /**< code points in word tokens */
    uint32_t stopwords;     /**< English function words, Chinese function
                                 characters */
    uint32_t sentence_ends; /**< . ! ? ; and their CJK forms */
    uint32_t title_words;   /**< word tokens found in the title set */
    uint32_t copyright;     /**< copyright signs (U+00A9 ©, U+2117 ℗) */
} ps_text_stats;

/** The distinct words of a text (ASCII lower-cased; a CJK character is a
 *  word), as sorted hashes: e.g. the page title's. */
typedef struct ps_word_set {
    uint64_t *hashes;
    size_t n;
} ps_word_set;

/** Fill @p set with the words of @p n bytes of UTF-8.  0, or -1 out of memory. */
int ps_word_set_init(ps_word_set *set, const char *text, size_t n);
void ps_word_set_free(ps_word_set *set);

/** Add @p n bytes of UTF-8 text to @p s; words found in @p title (may be
 *  NULL) count in title_words.  No allocation. */
void ps_text_stats_add(ps_text_stats *s, const char *text, size_t n, const ps_word_set *title);

enum {
    PS_ATTR_NOISE = 1,   /**< nav, menu, footer, header, comment, share, ... */
    PS_ATTR_CONTENT = 2, /**< article, content, main, post, entry, story, ... */
    PS_ATTR_COMMENT = 4  /**< comment (also noise), reply, respond, discuss, disqus */
};

/** PS_ATTR_* bits for a class or id attribute value: its words (split at
 *  anything but letters, and at lower-to-upper case changes) matched against
 *  the noise and content word lists. */
unsigned ps_attr_words(const char *attr);

/** The PS_ATTR_* bits of the word groups @p cw (PS_CW_*) that
 *  ps_class_words found: what ps_attr_words gives for the same words. */
unsigned ps_attr_of_class_words(unsigned cw);

#endif
