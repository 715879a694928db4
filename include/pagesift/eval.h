/*
 * pagesift/eval.h — the evaluation driver behind pagesift-eval: run
 * extraction methods (or read an existing output folder) over a data set,
 * score every page against its gold (the metrics of pagesift.h), and report
 * (table, breakdowns, JSON, SVG chart).  Researchers' API.
 */
#ifndef PAGESIFT_EVAL_H
#define PAGESIFT_EVAL_H

#include <stdio.h>

#include "pagesift.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;       /* jansson's json_t (ps_eval_json) */
struct ps_eval_snip; /* a snippet set's page scores (eval/snippets.h) */

/** How a run is set up. */
typedef struct ps_eval_config {
    const char *model_path;     /**< --model, NULL = the method's default */
    const char *method_options; /**< --options "k=v,..." for every method */
    unsigned per_site;          /**< --per-site N: templates learnt from the
                                     set (0 = off), applied by
                                     ps_template_applies; N > 5 also leaves
                                     sites of < N pages out (an experiment
                                     override) */
    int icu;                    /**< also score ICU word-break shingles */
    int jobs;                   /**< worker threads (stateless methods) */
    int quiet;                  /**< no progress */
    const char *write_dir;      /**< --write DIR: outputs as DIR/<set>/<label>/<id>.txt */
    const char *protocol;       /**< extra protocol note for every figure */
    const char *tag;            /**< appended to method labels, e.g. "+loso" */
    int train_protocol;         /**< mark figures of models measured on their
                                     training data (eval/train_protocol.c) */
    const char *templates_dir;  /**< template libraries given (instead of
                                     learning them with per_site), or NULL */
    const char *site_models_dir;/**< per-site models (docs/SITE_MODELS.md), or NULL */
} ps_eval_config;

/** One method (or output folder) on one data set. */
typedef struct ps_eval_run {
    char *label;              /**< method name, pred label, "+templates" ... */
    char *protocol;           /**< how the figure was obtained, one line */
    const ps_dataset *ds;
    ps_page_score *scores;    /**< per page of ds (skipped pages: failed) */
    uint8_t *skipped;         /**< per page: gold unreadable, not scored */
    size_t n_skipped;
    ps_eval_summary sum;
    double wall_seconds;      /**< the whole run, elapsed */
    int templates_sites;      /**< sites given templates (--per-site) */
    /* snippet sets (ds->snippet_set): scored by eval/snippets.c instead of
     * the gold metrics (scores[] then hold only failed/empty/seconds) */
    struct ps_eval_snip *snip;     /**< per page, NULL for a gold set */
    ps_snippet_counts snip_sum;
} ps_eval_run;

/** Run method @p method (a name of ps_method_name) over @p ds.  Page
 *  failures are recorded in the scores (and named on stderr unless quiet);
 *  returns -1 with err only when the method is unknown (PS_ERR_USAGE) or
 *  cannot be set up, or memory runs out. */
PS_EXPORT int ps_eval_run_method(const ps_eval_config *cfg, const char *method, const ps_dataset *ds,
                       ps_eval_run *run, ps_error *err);

/** Score the folder @p dir of <id>.txt outputs (DIR/<set name>/<id>.txt
 *  when that folder exists, else DIR/<id>.txt); a missing file is an empty
 *  output and counts as a failure. */
PS_EXPORT int ps_eval_run_pred(const ps_eval_config *cfg, const char *label, const char *dir,
                     const ps_dataset *ds, ps_eval_run *run, ps_error *err);

PS_EXPORT void ps_eval_run_clear(ps_eval_run *run);

/** pagesift-eval --per-site-models: the curve of per-site models over
 *  @p ds (a gold set) for each K of @p ks (0 = the base model, cfg's
 *  model_path): per site with >= @p min_pages pages, K of its first Kmax
 *  pages (in @p label_order) labelled from the gold train a site model (ps_site_model_train), scored
 *  on the site's pages after its first Kmax (the largest K leaving >= 5
 *  pages), never labelled; token F1 per site and K, the mean and the mean
 *  gain over K = 0, as a table on @p out (eval/site_curve.c); with @p json
 *  not NULL, appended there instead as an object {set, method, model, ks,
 *  sites: [{site, pages, scored, f1: [per K, null = n/a], labelled: [the
 *  page ids K counts from, in label order]}], mean, gain, hurt, measured,
 *  label_order}.  0 or -1. */
PS_EXPORT int ps_eval_site_curve(const ps_eval_config *cfg, const char *method, const ps_dataset *ds,
                                 const unsigned *ks, size_t n_k, unsigned min_pages, int label_order,
                                 FILE *out, struct json_t *json, ps_error *err);
/** ps_eval_site_curve's label orders: a site's first Kmax pages labelled
 *  in index order, or most uncertain first by the base model
 *  (ps_extraction_uncertainty, pagesift/site_models.h). */
enum { PS_LABEL_ORDER_INDEX = 0, PS_LABEL_ORDER_UNCERTAINTY = 1 };

/** The per-page report of every snippet run, TSV, to @p path ("-" =
 *  stdout), written atomically.  0 or -1 with err. */
PS_EXPORT int ps_eval_snip_report(const char *path, const ps_eval_run *runs, size_t n, ps_error *err);

/** Breakdown keys. */
enum { PS_BY_NONE = 0, PS_BY_SITE = 1, PS_BY_LANG = 2, PS_BY_TYPE = 3 };

/** The readable table of all runs on @p f. */
PS_EXPORT void ps_eval_print_table(FILE *f, const ps_eval_run *runs, size_t n);
/** Per-site or per-language figures of every run. */
PS_EXPORT void ps_eval_print_breakdown(FILE *f, const ps_eval_run *runs, size_t n, int by);
/** Everything as JSON (breakdown included when by != PS_BY_NONE). */
PS_EXPORT struct json_t *ps_eval_json(const ps_eval_run *runs, size_t n, int by);
/** Grouped bar chart of token F1 per run per data set, SVG, written atomically. */
PS_EXPORT int ps_eval_chart_svg(const char *path, const ps_eval_run *runs, size_t n, ps_error *err);

/** One bar of the chart. */
typedef struct ps_eval_point {
    const char *set, *label;
    double f1;
    double p, r;        /**< precision and recall, drawn beside F1; < 0 unknown */
} ps_eval_point;
/** The same chart from bars (e.g. read back from --json outputs). */
PS_EXPORT int ps_eval_chart_svg_points(const char *path, const ps_eval_point *pts, size_t n, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_EVAL_H */
