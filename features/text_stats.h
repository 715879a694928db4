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
} ps_text_stats;

/** Add @p n bytes of UTF-8 text to @p s.  No allocation. */
void ps_text_stats_add(ps_text_stats *s, const char *text, size_t n);

enum {
    PS_ATTR_NOISE = 1,   /**< nav, menu, footer, header, comment, share, ... */
    PS_ATTR_CONTENT = 2  /**< article, content, main, post, entry, story, ... */
};

/** PS_ATTR_* bits for a class or id attribute value: its words (split at
 *  anything but letters, and at lower-to-upper case changes) matched against
 *  the noise and content word lists. */
unsigned ps_attr_words(const char *attr);

#endif
