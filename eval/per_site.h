/* eval/per_site.h — templates learnt per site before a method runs
 * (pagesift-eval --per-site). */
#ifndef PS_EVAL_PER_SITE_H
#define PS_EVAL_PER_SITE_H
#include <stddef.h>

#include "common/util.h"
#include "pagesift/dataset.h"

/** The site key a page is grouped by: ps_input_site's rule (the URL's host,
 *  else the data set's site column; "" when neither), as pagesift does. */
void ps_eval_site_of(const ps_dataset_page *p, char *out, size_t cap);

/** Learn the template libraries of @p ds's sites (pages only, never the
 *  gold) by the batch's learn pass on @p jobs threads, write them to a new
 *  temporary folder (its path into @p dir) and report the sites whose
 *  library applies and the seconds it took.  The libraries applied are
 *  those ps_template_applies accepts (sites of fewer pages are not learnt:
 *  theirs would not apply); @p min_pages above PS_TEMPLATE_MIN_PAGES is an
 *  experiment override that leaves the pages of smaller sites out of the
 *  learning.  Pages that do not parse are left out.  0 or -1 + err. */
int ps_eval_learn_templates(const ps_dataset *ds, unsigned min_pages, unsigned jobs, char *dir,
                            size_t cap, size_t *n_sites, double *seconds, ps_error *err);

/** Remove the temporary folder and its files. */
void ps_eval_remove_dir(const char *dir);
#endif
