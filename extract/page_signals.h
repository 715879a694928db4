/* extract/page_signals.h — signals of the whole page, for the page-type
 * classifier (extract/page_signals.c, train/page_types.c,
 * train/page_types_train.c). */
#ifndef PS_PAGE_SIGNALS_H
#define PS_PAGE_SIGNALS_H

#include <stddef.h>

#include "pagesift.h"
#include "pagesift/page_types.h"

/* The signals themselves, their count and names: pagesift/page_types.h. */
/** Index of the signal called @p name, or -1. */
int ps_page_signal_lookup(const char *name);

/** The page types block features can see (x_type_*), wcxb-dev's seven. */
enum { PS_PTYPE_ARTICLE, PS_PTYPE_COLLECTION, PS_PTYPE_DOCUMENTATION, PS_PTYPE_FORUM, PS_PTYPE_LISTING,
       PS_PTYPE_PRODUCT, PS_PTYPE_SERVICE, PS_PTYPE_SLOTS };
/** Note the page-type probabilities of @p page: @p n labels and their
 *  probabilities; labels that are not one of the PS_PTYPE_* names are left
 *  out.  Until called, every slot is 0. */
void ps_page_set_type_probs(ps_page *page, const char *const *labels, const double *prob, size_t n);
/** The probability of slot @p slot (PS_PTYPE_*), 0 when not set. */
double ps_page_type_prob(const ps_page *page, int slot);

#endif
