/* methods/wiehf_internal.h — WIEHF's formulas (methods/wiehf.c), exposed for
 * the unit tests: the same functions the method computes with. */
#ifndef PS_WIEHF_INTERNAL_H
#define PS_WIEHF_INTERNAL_H

#include <stdint.h>

/** Path distance, formula (6): (len_a - pre) + (len_b - pre) - 1. */
double ps_wiehf_juli_formula(uint32_t len_a, uint32_t len_b, uint32_t pre);
/** juli of two path strings "html/body/div[1]/div[2]" (steps compared by
 *  name and index). */
double ps_wiehf_path_juli(const char *a, const char *b);
/** DSD of a path string: 1 / sum rd_i q^-(i-1) over the steps below body. */
double ps_wiehf_path_dsd(const char *path, double q);
/** Punctuation support FP: 0.001 (< 3 marks), 0.1 (3-5), 0.5 (6+). */
double ps_wiehf_fp(uint32_t punct);
/** PSD = FP * NC / (HC + 1) (hc_plus1) or FP * NC / max(HC, 1). */
double ps_wiehf_psd(uint32_t nc, uint32_t hc, uint32_t punct, int hc_plus1);

#endif
