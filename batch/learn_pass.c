/* batch/learn_pass.c — the first pass of `pagesift --learn-templates`:
 * the paper's setting, where a site's template library comes from the
 * collection being cleaned (METHODS.md §1.1).  Pages are read and parsed on
 * the worker threads; the calling thread adds them to the template builder
 * in input order (the batch algorithm depends on page order, so the
 * libraries do not depend on thread timing).  Pages without a site key (no
 * URL) and pages that fail are left out; the second pass reports them.  A
 * page that takes longer than --page-timeout to learn from is left out with
 * a message (its leaves read until then count); the run goes on. */
#include <stdlib.h>
#include <string.h>

#include "common/progress.h"
#include "batch/batch.h"
#include "pagesift/pipeline.h"
#include "pagesift/page.h"

typedef struct learn_job {
    ps_input in;
    char site[512];
    ps_page *page;
} learn_job;

typedef struct learn_ctx {
    const ps_batch_config *cfg;
    ps_batch_read_fn read;
    void *read_ctx;
    ps_template_builder *builder;
    size_t pages_added, pages_read;
    ps_progress *prog;
} learn_ctx;

static int learn_read(void *vctx, void *vjob, ps_error *err)
{
    learn_ctx *c = vctx;
    learn_job *j = vjob;
    return c->read(c->read_ctx, &j->in, err);
}

static void learn_work(void *vctx, unsigned worker, void *vjob)
{
    (void)worker;
    learn_ctx *c = vctx;
    learn_job *j = vjob;
    if (j->in.skipped || j->in.status != PS_OK)
        return;
    ps_input_site(&j->in, c->cfg->site_rule, j->site, sizeof j->site);
    if (!j->site[0])
        return;
    /* ps_input_page's parse, without the metadata learning never reads */
    ps_page_options po = {.charset = j->in.charset,
                          .url = j->in.url && *j->in.url ? j->in.url : NULL,
                          .max_bytes = c->cfg->max_bytes,
                          .flags = PS_PAGE_NO_METADATA};
    j->page = ps_page_parse(j->in.data ? j->in.data : "", j->in.data ? j->in.len : 0, &po, NULL);
    free(j->in.data);
    j->in.data = NULL;
}

static void learn_release(void *vctx, void *vjob)
{
    (void)vctx;
    learn_job *j = vjob;
    ps_page_free(j->page);
    ps_input_clear(&j->in);
}

static int learn_write(void *vctx, void *vjob, ps_error *err)
{
    learn_ctx *c = vctx;
    learn_job *j = vjob;
    int rc = 0;
    if (j->page) {
        rc = ps_template_builder_add(c->builder, j->site, j->page, err);
        c->pages_added += rc == 0;
        if (rc != 0 && err && err->code == PS_ERR_TIMEOUT) {
            /* left out of learning, as a page that fails; the run goes on */
            if (!c->cfg->quiet)
                ps_print("%s: %s", j->in.origin ? j->in.origin : j->in.id, err->msg);
            *err = (ps_error){0};
            rc = 0;
        }
    }
    ps_progress_update(c->prog, ++c->pages_read, "(learning templates)");
    learn_release(vctx, vjob);
    return rc;
}

int ps_batch_learn_templates(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                             ps_template_builder *builder, size_t *pages_added, ps_error *err)
{
    learn_ctx c = {.cfg = cfg, .read = read, .read_ctx = read_ctx, .builder = builder};
    ps_pipeline_ops ops = {
        .ctx = &c,
        .job_size = sizeof(learn_job),
        .read = learn_read,
        .work = learn_work,
        .write = learn_write,
    };
    ps_template_builder_set_time_limit(builder, cfg->page_timeout); /* --page-timeout bounds learning too */
    ps_pipeline_opts po = {0};
    po.workers = cfg->workers ? cfg->workers : 1;
    po.ordered = 1;
    po.interrupt = cfg->interrupt;
    c.prog = ps_progress_new("pages", cfg->total_hint, cfg->quiet);
    int rc = ps_pipeline_run(&ops, &po, learn_release, err);
    ps_progress_done(c.prog);
    if (pages_added)
        *pages_added = c.pages_added;
    return rc;
}
