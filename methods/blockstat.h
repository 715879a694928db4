/* methods/blockstat.h — internals of the blockstat method shared with its
 * tests (methods/blockstat.c). */
#ifndef PS_BLOCKSTAT_H
#define PS_BLOCKSTAT_H

#include <stddef.h>
#include <stdint.h>

/** The thresholds of one page (METHODS.md §5 step 3) and the main span. */
typedef struct ps_blockstat_stats {
    double navg;       /**< mean of the smoothed counts s */
    double nmin;       /**< smallest non-zero s (0 if none) */
    double nmin_prime; /**< N'min = (2 Nmin + Navg) / 3 */
    double ncal;       /**< Ncal = (sum of the `top` largest s + Navg) / 10 */
    ptrdiff_t first;   /**< first main block, -1 if none */
    ptrdiff_t last;    /**< last main block, -1 if none */
} ps_blockstat_stats;

/** Steps 2-4 on the character counts @p b of @p n blocks: smooth, compute
 *  the thresholds, and set keep[i] = 1 for the main blocks (rule 1 runs,
 *  and between them every block when @p between is 0, only the runs of
 *  blocks >= N'min when 1).  @p top = 9 in the paper.  @p st may be NULL. */
void ps_blockstat_select(const uint32_t *b, size_t n, int top, int between, uint8_t *keep,
                         ps_blockstat_stats *st);

/** First date \d{4}[-./年]\d{1,2}[-./月]\d{1,2}日? in @p n bytes, month 1-12,
 *  day 1-31, year not preceded by a digit; writes "YYYY-MM-DD" and returns
 *  1, or returns 0. */
int ps_blockstat_find_date(const char *s, size_t n, char out[11]);

/** The longest part of a <title> split on | ｜ _ - — – (malloc'ed). */
char *ps_blockstat_clean_title(const char *title);

#endif
