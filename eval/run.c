/* eval/run.c — runs an extraction method (methods/method.h) over a data set
 * or reads an output folder, and scores every page against its gold
 * (eval/score.c).  Stateless methods run on --jobs threads, each with its
 * own instance; stateful ones (PS_METHOD_STATEFUL) on one, in index order.
 * Time per page is the CPU time of the thread for parse + extract, so the
 * pages/s figure is per core and little affected by other load. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/progress.h"
#include "common/util.h"
#include "eval/per_site.h"
#include "pagesift/pipeline.h"
#include "eval/run.h"
#include "eval/snippets.h"
#include "eval/train_protocol.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"
#include "pagesift/templates.h"

static char *xasprintf(const char *fmt, const char *a, const char *b, const char *c)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b, c);
    return s;
}

typedef struct shared {
    const ps_eval_config *cfg;
    ps_extractor *ex;
    const ps_dataset *ds;
    ps_eval_run *run;
    char *outdir;          /* where outputs are written, or NULL */
    size_t next, done;     /* reader thread / writer (calling) thread */
    ps_progress *prog;
    pthread_mutex_t lock;  /* stderr messages */
} shared;

static void warn_page(shared *sh, const char *id, const char *msg)
{
    if (sh->cfg->quiet)
        return;
    pthread_mutex_lock(&sh->lock);
    ps_print("%s/%s: %s", sh->ds->name, id, msg);
    pthread_mutex_unlock(&sh->lock);
}

/* Reads the gold of page i; NULL (page skipped) when it cannot be read. */
static char *read_gold(shared *sh, size_t i, size_t *len)
{
    ps_error err = {0};
    char *gold = ps_read_regular_file(sh->ds->pages[i].gold_path, 0, NULL, len, &err);
    if (!gold) {
        sh->run->skipped[i] = 1;
        warn_page(sh, sh->ds->pages[i].id, err.msg);
    }
    return gold;
}

static void write_output(shared *sh, size_t i, const char *text, size_t len)
{
    if (!sh->outdir)
        return;
    char *path = xasprintf("%s/%s.txt", sh->outdir, sh->ds->pages[i].id, "");
    ps_error err = {0};
    if (!path || ps_write_file_atomic(path, text ? text : "", text ? len : 0, &err) < 0)
        warn_page(sh, sh->ds->pages[i].id, path ? err.msg : "out of memory");
    free(path);
}

/* Leaf level (METHODS.md §1.5): leaves labelled from the gold by the
 * features' alignment, predicted from the method's block classes or leaf
 * mask.  Not part of the method's time. */
static void leaf_score(const ps_page *pg, const char *gold, size_t glen, const ps_extraction *out,
                       ps_page_score *sc)
{
    size_t nl;
    ps_page_leaves(pg, &nl);
    double *share = malloc((nl + 1) * sizeof *share);
    if (share && ps_page_gold_alignment(pg, gold, glen, share, NULL) == 0 &&
        ps_leaf_match(pg, share, out->block_class, out->leaf_kept, &sc->leaves) == 0)
        sc->has_leaves = 1;
    free(share);
}

/* One page: the page step of every tool (ps_extract_input: parse with the
 * extractor's block tags, the site by the one rule, extract), timed, then
 * scored against the gold. */
static void do_page(shared *sh, size_t i)
{
    const ps_dataset_page *dp = &sh->ds->pages[i];
    ps_page_score *sc = &sh->run->scores[i];
    size_t glen = 0;
    int snip = sh->ds->snippet_set; /* snippet set: eval/snippets.c scores it */
    char *gold = snip ? NULL : read_gold(sh, i, &glen);
    if (!gold && !snip) {
        memset(sc, 0, sizeof *sc);
        sc->failed = 1;
        return;
    }
    ps_error err = {0};
    ps_extraction out = {0};
    int failed = 0;
    ps_input in = {0};
    in.data = ps_read_page_file(dp->html_path, 0, &in.len, &err);
    in.url = dp->url;
    in.site = dp->site;
    in.id = dp->id;
    in.origin = dp->html_path;
    double t0 = ps_clock(PS_CLOCK_THREAD_CPU);
    ps_page *pg = NULL;
    char site[512];
    if (!in.data ||
        ps_extract_input(sh->ex, &in, NULL, site, sizeof site, &pg, &out, &err) != 0) {
        failed = 1;
        warn_page(sh, dp->id, err.msg[0] ? err.msg : "the method failed");
    }
    free(in.data); /* NULL unless it was not read; the other fields are the index's */
    double secs = ps_clock(PS_CLOCK_THREAD_CPU) - t0;
    if (ps_score_page(out.text, out.len, snip ? "" : gold, glen, sh->cfg->icu, sc) < 0 ||
        (snip && ps_eval_snip_page(sh->run, i, failed ? NULL : out.text ? out.text : "", out.len) < 0)) {
        memset(sc, 0, sizeof *sc);
        warn_page(sh, dp->id, "out of memory while scoring");
        failed = 1;
    }
    sc->failed = failed;
    sc->seconds = secs;
    if (!failed && gold && (out.block_class || out.leaf_kept))
        leaf_score(pg, gold, glen, &out, sc);
    write_output(sh, i, out.text, out.len);
    ps_extraction_free(&out);
    ps_page_free(pg);
    free(gold);
}

/* The pages run on the engine of the batch (batch/pipeline.c): the reader
 * hands out page indices in index order, the workers do the page step and
 * the scoring, the writer counts.  One extractor is shared by the workers,
 * as in a pagesift run; a stateful method gets one worker. */
typedef struct eval_job {
    size_t i;
} eval_job;

static int eval_read(void *ctx, void *job, ps_error *err)
{
    (void)err;
    shared *sh = ctx;
    if (sh->next >= sh->ds->n_pages)
        return 0;
    ((eval_job *)job)->i = sh->next++;
    return 1;
}

static void eval_work(void *ctx, unsigned worker, void *job)
{
    (void)worker;
    do_page(ctx, ((eval_job *)job)->i);
}

static int eval_write(void *ctx, void *job, ps_error *err)
{
    (void)job;
    (void)err;
    shared *sh = ctx;
    ps_progress_update(sh->prog, ++sh->done, NULL);
    return 0;
}

static int run_init(ps_eval_run *run, const ps_dataset *ds, const char *label, ps_error *err)
{
    memset(run, 0, sizeof *run);
    run->ds = ds;
    run->label = strdup(label);
    run->scores = calloc(ds->n_pages ? ds->n_pages : 1, sizeof *run->scores);
    run->skipped = calloc(ds->n_pages ? ds->n_pages : 1, 1);
    if (!run->label || !run->scores || !run->skipped || ps_eval_snip_init(run) < 0) {
        ps_eval_run_clear(run);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    return 0;
}

static void run_summarise(ps_eval_run *run)
{
    ps_eval_acc *a = ps_eval_acc_new();
    run->n_skipped = 0;
    for (size_t i = 0; i < run->ds->n_pages; i++) {
        if (run->skipped[i]) {
            run->n_skipped++;
            continue;
        }
        if (a)
            ps_eval_acc_add(a, &run->scores[i]);
    }
    if (a)
        ps_eval_acc_summary(a, &run->sum);
    ps_eval_acc_free(a);
    ps_eval_snip_summarise(run);
}

static char *make_outdir(const ps_eval_config *cfg, const ps_dataset *ds, const char *label,
                         ps_error *err)
{
    if (!cfg->write_dir)
        return NULL;
    char *d = xasprintf("%s/%s/%s", cfg->write_dir, ds->name, label);
    if (!d || ps_mkdir_p(d) < 0) {
        ps_set_error(err, PS_ERR_IO, "cannot create the output folder %s: %s", d ? d : cfg->write_dir,
                     strerror(errno));
        free(d);
        return (char *)-1;
    }
    return d;
}

/* The registry's method called @p name, as pagesift.h lists them: its
 * index, or -1. */
static long method_index(const char *name)
{
    for (size_t i = 0; i < ps_method_count(); i++)
        if (strcmp(ps_method_name(i), name) == 0)
            return (long)i;
    return -1;
}

int ps_eval_run_method(const ps_eval_config *cfg, const char *method, const ps_dataset *ds,
                       ps_eval_run *run, ps_error *err)
{
    long mi = method ? method_index(method) : -1;
    if (mi < 0)
        return ps_set_error(err, PS_ERR_USAGE, "unknown method '%s'", method ? method : "(null)");
    const char *name = ps_method_name((size_t)mi);
    int needs_model = ps_method_needs_model((size_t)mi);
    char label[256];
    snprintf(label, sizeof label, "%s%s", name, cfg->tag ? cfg->tag : "");
    if (run_init(run, ds, label, err) < 0)
        return -1;
    ps_extractor_config xc = {.model_path = cfg->model_path, .options = cfg->method_options,
                              .templates_dir = cfg->templates_dir, .site_models_dir = cfg->site_models_dir};
    char tdir[1024] = "";
    size_t t_sites = 0;
    double t_secs = 0;
    if (cfg->per_site) {
        if (ps_eval_learn_templates(ds, cfg->per_site, cfg->jobs > 0 ? (unsigned)cfg->jobs : 1, tdir,
                                    sizeof tdir, &t_sites, &t_secs, err) < 0) {
            ps_eval_run_clear(run);
            return -1;
        }
        xc.templates_dir = tdir;
        run->templates_sites = (int)t_sites;
    }
    shared sh = {.cfg = cfg, .ds = ds, .run = run};
    sh.ex = ps_extractor_new(name, &xc, err);
    if (!sh.ex) {
        if (*tdir)
            ps_eval_remove_dir(tdir);
        ps_eval_run_clear(run);
        return -1;
    }
    sh.outdir = make_outdir(cfg, ds, run->label, err);
    if (sh.outdir == (char *)-1) {
        ps_extractor_free(sh.ex);
        if (*tdir)
            ps_eval_remove_dir(tdir);
        ps_eval_run_clear(run);
        return -1;
    }
    pthread_mutex_init(&sh.lock, NULL);
    int jobs = cfg->jobs > 0 ? cfg->jobs : 1;
    if (ps_extractor_is_stateful(sh.ex) || (size_t)jobs > ds->n_pages)
        jobs = ps_extractor_is_stateful(sh.ex) || ds->n_pages == 0 ? 1 : (int)ds->n_pages;
    if (jobs > 64)
        jobs = 64;
    char what[128];
    snprintf(what, sizeof what, "%s %s pages", ds->name, name);
    sh.prog = ps_progress_new(what, ds->n_pages, cfg->quiet);
    double w0 = ps_clock(PS_CLOCK_WALL);
    ps_pipeline_ops ops = {
        .ctx = &sh, .job_size = sizeof(eval_job), .read = eval_read, .work = eval_work, .write = eval_write};
    ps_pipeline_opts po = {.workers = (unsigned)jobs, .ordered = 1};
    int prc = ps_pipeline_run(&ops, &po, NULL, err);
    run->wall_seconds = ps_clock(PS_CLOCK_WALL) - w0;
    ps_progress_done(sh.prog);
    pthread_mutex_destroy(&sh.lock);
    ps_extractor_free(sh.ex);
    free(sh.outdir);
    if (*tdir)
        ps_eval_remove_dir(tdir);
    if (prc != 0) {
        ps_eval_run_clear(run);
        return -1;
    }
    char note[600] = "";
    if (cfg->train_protocol && needs_model) {
        note[0] = ',';
        note[1] = ' ';
        ps_eval_train_overlap(cfg->model_path, ds->name, note + 2, sizeof note - 2);
    }
    char tnote[256] = "";
    if (cfg->per_site)
        snprintf(tnote, sizeof tnote,
                 ", templates learnt before extraction from the set's own pages (unlabelled), "
                 "per site, for the sites with >= %u pages (%zu sites, %.1f s)",
                 cfg->per_site > PS_TEMPLATE_MIN_PAGES ? cfg->per_site : PS_TEMPLATE_MIN_PAGES, t_sites,
                 t_secs);
    char prot[1700];
    snprintf(prot, sizeof prot, "method %s%s%s%s%s%s%s%s", name,
             needs_model ? ", model " : "",
             needs_model ? (cfg->model_path ? cfg->model_path : "shipped") : "",
             cfg->method_options ? ", options " : "", cfg->method_options ? cfg->method_options : "",
             tnote, note, cfg->protocol ? cfg->protocol : "");
    run->protocol = strdup(prot);
    run_summarise(run);
    return 0;
}

int ps_eval_run_pred(const ps_eval_config *cfg, const char *label, const char *dir,
                     const ps_dataset *ds, ps_eval_run *run, ps_error *err)
{
    if (run_init(run, ds, label, err) < 0)
        return -1;
    char *sub = xasprintf("%s/%s", dir, ds->name, "");
    struct stat st;
    const char *base = sub && stat(sub, &st) == 0 && S_ISDIR(st.st_mode) ? sub : dir;
    if (stat(base, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ps_set_error(err, PS_ERR_IO, "%s: not a readable folder of <id>.txt outputs", dir);
        free(sub);
        ps_eval_run_clear(run);
        return -1;
    }
    shared sh = {.cfg = cfg, .ds = ds, .run = run};
    pthread_mutex_init(&sh.lock, NULL);
    for (size_t i = 0; i < ds->n_pages; i++) {
        size_t glen = 0, olen = 0;
        int snip = ds->snippet_set; /* snippet set: eval/snippets.c scores it */
        char *gold = snip ? NULL : read_gold(&sh, i, &glen);
        ps_page_score *sc = &run->scores[i];
        if (!gold && !snip) {
            sc->failed = 1;
            continue;
        }
        char *path = xasprintf("%s/%s.txt", base, ds->pages[i].id, "");
        ps_error e2 = {0};
        char *out = path ? ps_read_file(path, 0, &olen, &e2) : NULL;
        if (ps_score_page(out, out ? olen : 0, snip ? "" : gold, glen, cfg->icu, sc) < 0 ||
            (snip && ps_eval_snip_page(run, i, out, olen) < 0)) {
            free(path);
            free(out);
            free(gold);
            free(sub);
            pthread_mutex_destroy(&sh.lock);
            ps_eval_run_clear(run);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        sc->failed = out == NULL; /* no file: the extractor gave nothing */
        free(path);
        free(out);
        free(gold);
    }
    pthread_mutex_destroy(&sh.lock);
    char prot[1024];
    snprintf(prot, sizeof prot, "outputs read from %s%s", base, cfg->protocol ? cfg->protocol : "");
    run->protocol = strdup(prot);
    free(sub);
    run_summarise(run);
    return 0;
}

void ps_eval_run_clear(ps_eval_run *run)
{
    if (!run)
        return;
    ps_eval_snip_clear(run);
    free(run->label);
    free(run->protocol);
    free(run->scores);
    free(run->skipped);
    memset(run, 0, sizeof *run);
}
