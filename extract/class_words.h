/* extract/class_words.h — the word groups of class and id attributes
 * (extract/class_words.c). */
#ifndef PS_CLASS_WORDS_H
#define PS_CLASS_WORDS_H

#include <stddef.h>

enum {
    PS_CW_NOISE = 1,   /**< nav, menu, footer, share, ad, teaser, cookie, ... */
    PS_CW_CONTENT = 2, /**< article, content, main, post, entry, story, text, ... */
    PS_CW_COMMENT = 4, /**< comment(s), reply, respond, discuss, disqus, kommentar */
    PS_CW_CAPTION = 8, /**< caption, figcaption, credit, photo, copyright, bildunterschrift */
    PS_CW_DIALOG = 16, /**< modal, dialog, lightbox, popup: a closed one is never content */
    PS_CW_REVEAL = 32, /**< tab, accordion, collapse, faq, answer: a closed one is content
                            a person opens with one click */
    PS_CW_REVIEW = 64, /**< review(s), rating(s), testimonial(s), review widgets (yotpo,
                            okendo, judgeme, trustpilot, bazaarvoice): customer reviews */
    PS_CW_FACET = 128, /**< facet(s), filter(s), refine, refinement(s): a grid's filter
                            controls (brands, prices, sizes with their counts) */
    PS_CW_PROFILE = 256 /**< signature(s), postprofile, user-info, userDetails, author-pane,
                             ...: a post's author panel or signature in a thread (also
                             matched across two tokens: "user-info" is userinfo) */
};

/** The PS_CW_* bits of the whole tokens of @p n bytes of a class or id
 *  attribute value (split at non-alphanumerics and camelCase). */
unsigned ps_class_words(const char *s, size_t n);

#endif
