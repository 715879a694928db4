/* batch/batch.h — batch extraction (declared in the public
 * include/pagesift/batch.h) and its internal piece: the one-pass entry over
 * a reader callback (the learning pass over one is pagesift/pipeline.h's).
 * The records it writes are made by the output formats (output/output.h). */
#ifndef PS_BATCH_H
#define PS_BATCH_H

#include <stdio.h>

#include "common/util.h"
#include "output/output.h"
#include "pagesift.h"
#include "pagesift/batch.h"
#include "pagesift/pipeline.h"
#include "pagesift/templates.h"

/** ps_batch_run's one pass over a reader (cfg->extractor set; learn_templates
 *  is not looked at). */
int ps_batch_run_pass(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                      ps_batch_counts *counts, ps_error *err);

#endif
