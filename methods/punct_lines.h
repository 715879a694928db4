/* methods/punct_lines.h — internals of the punct-lines method shared with
 * its tests (methods/punct_lines.c). */
#ifndef PS_PUNCT_LINES_H
#define PS_PUNCT_LINES_H

#include <stddef.h>
#include <stdint.h>

/** 1 when code point @p c is one of the punctuation marks counted. */
int ps_punct_is_mark(uint32_t c);

/** The paragraph test: ratio marks/chars in (0, p], or [0, p] when
 *  @p closed; a unit without characters is never kept. */
int ps_punct_ratio_ok(uint32_t marks, uint32_t chars, double p, int closed);

/** Rows of the line table of @p site in a punct-lines method object (the
 *  one table when scope=global); 0 if the site has none. */
size_t ps_punct_lines_table_rows(void *self, const char *site);

#endif
