/* common/lis.c — the longest increasing subsequence (common/lis.h). */
#include <stdlib.h>

#include "common/lis.h"

size_t ps_lis(const uint32_t *v, size_t n, uint32_t *idx)
{
    if (n == 0)
        return 0;
    /* tail[j]: the position of the smallest last value of an increasing run
     * of length j + 1 so far; prev[k]: the element before k in its run */
    uint32_t *tail = malloc(n * sizeof *tail), *prev = malloc(n * sizeof *prev);
    if (!tail || !prev) {
        free(tail);
        free(prev);
        return (size_t)-1;
    }
    size_t len = 0;
    for (size_t k = 0; k < n; k++) {
        size_t lo = 0, hi = len;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (v[tail[mid]] < v[k])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[k] = lo ? tail[lo - 1] : UINT32_MAX;
        tail[lo] = (uint32_t)k;
        if (lo == len)
            len++;
    }
    uint32_t k = tail[len - 1];
    for (size_t i = len; i-- > 0; k = prev[k])
        idx[i] = k;
    free(tail);
    free(prev);
    return len;
}
