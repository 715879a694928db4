/* features/snippets.h — snippet sets (the trafilatura-eval layout): the
 * corpus's scoring rule (white space collapsed, substring test) and block
 * labels from snippets (partial labels for training).  Used by the block CSV
 * (features/export.c) and the evaluation (eval/snippets.c). */
#ifndef PS_FEATURES_SNIPPETS_H
#define PS_FEATURES_SNIPPETS_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"
#include "pagesift/dataset.h"

/** @p s with every run of white space (Python's str.isspace: ASCII space,
 *  \t \n \v \f \r, U+001C-001F, U+0085, U+00A0, U+1680, U+2000-200A,
 *  U+2028, U+2029, U+202F, U+205F, U+3000) replaced by one space, and none
 *  at the start or the end (Python's ' '.join(s.split())).  malloc'ed,
 *  NUL-terminated, length in *out_len; NULL when out of memory. */
char *ps_ws_collapse(const char *s, size_t n, size_t *out_len);

/* ps_snippet_counts (snippet counts of a page, or summed) is in pagesift.h. */

/** Score @p text (NULL = the extractor failed: every with missing, every
 *  without absent) against @p sn by the corpus's rule: both sides collapsed
 *  (ps_ws_collapse), a snippet is present when it is a substring of the
 *  output (case-sensitive, bytes).  Fills with_hit[i] / without_hit[i]
 *  (may be NULL) with 1 when present.  Returns 0, -1 when out of memory. */
int ps_snippet_score(const char *text, size_t len, const ps_snippets *sn, uint8_t *with_hit,
                     uint8_t *without_hit, ps_snippet_counts *c);

/** P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2tp/(2tp+fp+fn) (0 when the
 *  denominator is 0). */
void ps_snippet_prf(const ps_snippet_counts *c, double *p, double *r, double *f1);

/** Block labels of @p pg from @p sn (docs/BLOCK_CSV.md): label[b] = 1
 *  content, 0 noise, 2 unlabelled, for every block.  The page's text (the
 *  leaves not removed, as ps_page_text joins them) is collapsed; each
 *  occurrence of a collapsed 'with' snippet votes content for every block
 *  it touches; each occurrence of a 'without' snippet votes noise for every
 *  block holding at least half of the block's own characters or half of the
 *  snippet's; a block with content votes only is content, with noise votes
 *  only noise, with both or none unlabelled.  Per-page figures in *st (may be NULL).
 *  Returns 0, -1 when out of memory. */
typedef struct ps_snippet_label_info {
    uint32_t with_found, without_found; /**< snippets found on the page */
    uint32_t conflicts;                 /**< blocks with votes of both kinds */
} ps_snippet_label_info;

int ps_snippet_block_labels(const ps_page *pg, const ps_snippets *sn, uint8_t *label,
                            ps_snippet_label_info *info);

#endif
