/* common/lis.h — the longest increasing subsequence, the anchor step of the
 * two text alignments (eval/lcs.c, features/gold_align.c).  Internal to the
 * workshop library (libpagesift-lab). */
#ifndef PS_COMMON_LIS_H
#define PS_COMMON_LIS_H

#include <stddef.h>
#include <stdint.h>

/** A longest strictly increasing subsequence of @p v[0..n) by patience
 *  sorting (O(n log n)): its positions in @p v, ascending, written to @p idx
 *  (room for n), and its length returned; (size_t)-1 when out of memory.
 *  Of several equally long ones, the one patience sorting leaves: each
 *  value replaces the first pile top not below it. */
size_t ps_lis(const uint32_t *v, size_t n, uint32_t *idx);

#endif /* PS_COMMON_LIS_H */
