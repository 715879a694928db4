/* methods/batch.h — batch extraction (declared in the public
 * include/pagesift/batch.h) and its internal pieces: the one-pass entry over
 * a reader callback and the learning pass.  The records it writes are made
 * by the output formats (output/output.h). */
#ifndef PS_BATCH_H
#define PS_BATCH_H

#include <stdio.h>

#include "common/util.h"
#include "output/output.h"
#include "pagesift.h"
#include "pagesift/batch.h"
#include "pagesift/templates.h"

/** Reader of the internal entry points: fill @p in with the next input.
 *  1 got one, 0 end, -1 fatal (the run stops, err set).  Called from one
 *  thread (not the caller's).  ps_batch_run reads a ps_source through it. */
typedef int (*ps_batch_read_fn)(void *ctx, ps_input *in, ps_error *err);

/** ps_batch_run's one pass over a reader (cfg->extractor set; learn_templates
 *  is not looked at). */
int ps_batch_run_pass(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                      ps_batch_counts *counts, ps_error *err);

/** The first pass of learn_templates (methods/learn_pass.c): read every
 *  input, parse it on the workers and add it to @p builder under its site
 *  key (ps_input_site) in input order (pages without a site are left out).
 *  Uses cfg's workers, site_rule and max_bytes.  *pages_added (may be NULL)
 *  counts the pages added.  Returns 0, 1 when cfg->interrupt stopped it,
 *  or -1 with err on a fatal read or builder error. */
int ps_batch_learn_templates(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                             ps_template_builder *builder, size_t *pages_added, ps_error *err);

#endif
