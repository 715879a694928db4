/*
 * pagesift/eval.h — evaluation: the metrics of an extracted text against its
 * gold text (eval/: shingles, tokens, characters, page grades, leaves), and
 * the driver behind pagesift-eval: run extraction methods (or read an
 * existing output folder) over a data set, score every page against its
 * gold, and report (table, breakdowns, JSON, SVG chart).  Researchers' API.
 */
#ifndef PAGESIFT_EVAL_H
#define PAGESIFT_EVAL_H

#include <stdio.h>

#include "pagesift.h"
#include "pagesift/dataset.h"
#include "pagesift/tokens.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- metrics ------------------------------------------------------------ */

/* Metrics of an extracted text against its gold text (eval/).  Every
 * metric is computed per page; ps_eval_acc averages pages and pools counts.
 * Conventions and readings are stated here and in docs/RESULTS.md; the
 * tokens they compare are pagesift/tokens.h's. */

/** Matched items of one comparison: tp shared, fp extra in the output, fn
 *  missing from the output. */
typedef struct ps_match {
    uint64_t tp, fp, fn;
} ps_match;

/**
 * Shingle matching of the article-extraction benchmark: the items of a text
 * are its n-grams of consecutive tokens (n = 4 for the benchmark, 1 for
 * single tokens), compared as multisets.  A text with fewer than @p n tokens
 * (but at least one) has one item, the sequence of all its tokens (as the
 * benchmark's _ngrams does); a text without tokens has none.  Tokens are
 * compared byte for byte (case matters, as in the benchmark).
 * Returns 0, or -1 when out of memory or n == 0.
 */
PS_LAB_EXPORT int ps_shingle_match(const char *output, size_t output_len,
                     const char *gold, size_t gold_len,
                     unsigned n, ps_tokens_kind kind, ps_match *m);

/** How a page with no items on one side counts in the page averages. */
typedef enum ps_empty_rule {
    /** (default) every page counts in both averages: empty output and empty
     *  gold is perfect (P = R = 1); items on one side only gives P = R = 0 */
    PS_EMPTY_STRICT = 0,
    /** the benchmark's evaluate.py: precision is averaged only over pages
     *  whose output has items, recall only over pages whose gold has items;
     *  so an empty output costs recall but is left out of precision */
    PS_EMPTY_BENCHMARK = 1
} ps_empty_rule;

/** Precision and recall of one page under @p rule.  *p_counts / *r_counts
 *  are set to 0 when the page is left out of that average (benchmark rule
 *  only), else 1. */
PS_LAB_EXPORT void ps_match_pr(const ps_match *m, ps_empty_rule rule, double *p, int *p_counts,
                 double *r, int *r_counts);

/** Result of the character-level comparison. */
typedef struct ps_lcs_result {
    uint64_t common;       /**< characters in common (length of the LCS) */
    uint64_t output_chars; /**< characters of the output */
    uint64_t gold_chars;   /**< characters of the gold */
    int exact;             /**< 1: exact LCS; 0: the anchored approximation
                                (a lower bound) was used */
} ps_lcs_result;

/**
 * Characters in common between an output and its gold (METHODS.md §3):
 * the longest common subsequence of their code points, white space left out
 * of both (line breaks and spaces are layout).  Exact by a bit-parallel LCS
 * (Hyyro's algorithm, n*m/64 word operations) after the common prefix and
 * suffix are removed; when that would exceed @p budget word operations
 * (0 = default, 3e8 — a pair of 100 kB texts fits), the texts are first
 * aligned on words that occur exactly once in each (patience diff: longest
 * increasing run of such anchors) and the LCS is computed between anchors;
 * the result is then a lower bound and exact = 0.  Returns 0 or -1 (memory).
 */
PS_LAB_EXPORT int ps_char_lcs(const char *output, size_t output_len, const char *gold, size_t gold_len,
                uint64_t budget, ps_lcs_result *r);

/** Thresholds of the page-level grades (METHODS.md §5). */
#define PS_QUALIFIED_RECALL 0.98
#define PS_QUALIFIED_NOISE 0.05
#define PS_EXCELLENT_NOISE 0.02

/** Page-level grade of the text-block paper (§5), on single tokens
 *  (PS_TOKENS_WORD, n = 1): recall = shared tokens / gold tokens; noise =
 *  output tokens not matched in the gold (multiset) / output tokens.
 *  Qualified: recall >= 0.98 and noise <= 0.05; excellent: qualified and
 *  noise < 0.02.  Empty output: noise 0, recall 0 (1 if the gold is empty). */
typedef struct ps_page_grade {
    double recall, noise;
    int qualified, excellent;
} ps_page_grade;

/** Grade from the single-token match @p m1 (n = 1). */
PS_LAB_EXPORT ps_page_grade ps_page_grade_of(const ps_match *m1);

/** Leaf-level match of the template-SVM paper (METHODS.md §1.5), content
 *  the positive class.  A leaf is gold content when @p leaf_share (the share
 *  of its text aligned with the gold, from ps_page_gold_alignment) is >=
 *  0.5.  It is predicted content when @p leaf_kept says so, or else (NULL)
 *  when its block's class in @p block_class is content (1) and the leaf was
 *  not removed by a template.  Leaves without any word token are left out
 *  (nothing tells whether they are content).  Returns 0, or -1 when both
 *  @p leaf_kept and @p block_class are NULL. */
PS_LAB_EXPORT int ps_leaf_match(const ps_page *page, const double *leaf_share, const uint8_t *block_class,
                  const uint8_t *leaf_kept, ps_match *m);

/** Everything measured for one page. */
typedef struct ps_page_score {
    ps_match sh4;          /**< 4-gram shingles (the benchmark's items) */
    ps_match tok1;         /**< single tokens */
    ps_match words;        /**< single tokens of the lower-cased texts (the
                                WCXB rule: bags of lower-cased \\w+ words) */
    ps_match icu4;         /**< 4-gram shingles of ICU words (if asked) */
    ps_lcs_result chars;   /**< character level */
    ps_page_grade grade;   /**< page level */
    ps_match leaves;       /**< leaf level, content positive (if known) */
    int has_leaves;        /**< 1 when leaves was measured */
    int has_icu;           /**< 1 when icu4 was measured */
    int empty_output;      /**< output without tokens */
    int failed;            /**< the method failed on the page (output empty) */
    double seconds;        /**< time the method took (parse + extract) */
} ps_page_score;

/** Score one page's @p output against @p gold (text metrics only; set
 *  leaves, failed and seconds yourself).  @p with_icu adds icu4.
 *  Returns 0 or -1 (memory). */
PS_LAB_EXPORT int ps_score_page(const char *output, size_t output_len, const char *gold, size_t gold_len,
                  int with_icu, ps_page_score *s);

/** Precision, recall and F1 of one metric. */
typedef struct ps_prf {
    double p, r, f1;
} ps_prf;

/** Averages over the pages added to an accumulator. */
typedef struct ps_eval_summary {
    size_t pages, failed, empty_outputs;
    ps_prf sh4;            /**< page-averaged P and R, F1 of the averages
                                (strict empty rule) */
    ps_prf sh4_bench;      /**< the same under the benchmark's empty rule */
    ps_prf sh4_pooled;     /**< counts summed over pages, then P, R, F1 */
    ps_prf tok1, tok1_pooled;
    ps_prf words;          /**< the WCXB rule: P, R and F1 of the lower-cased
                                word bags of each page (empty output: all
                                0), each averaged over pages (F1 is the mean
                                of the pages' F1, not the F1 of the means) */
    ps_prf icu4;           /**< page-averaged, pages with has_icu only */
    ps_prf chars;          /**< page-averaged character P, R; F1 of averages */
    ps_prf chars_pooled;
    ps_prf leaves;         /**< leaf P, R pooled over all leaves of the pages
                                with has_leaves */
    ps_prf leaves_page;    /**< leaf P, R averaged over those pages */
    size_t leaf_pages;     /**< pages with has_leaves */
    size_t icu_pages;
    size_t qualified, excellent;
    double seconds;        /**< sum of the pages' seconds */
    double pages_per_s;    /**< pages / seconds (0 when no time was taken) */
} ps_eval_summary;

/** Accumulates page scores. */
typedef struct ps_eval_acc ps_eval_acc;
PS_LAB_EXPORT ps_eval_acc *ps_eval_acc_new(void);
/** Add a page; returns 0 or -1 (memory). */
PS_LAB_EXPORT int ps_eval_acc_add(ps_eval_acc *a, const ps_page_score *s);
/** The averages of the pages added so far. */
PS_LAB_EXPORT void ps_eval_acc_summary(const ps_eval_acc *a, ps_eval_summary *out);
PS_LAB_EXPORT void ps_eval_acc_free(ps_eval_acc *a);

/* ---- evaluation runs ------------------------------------------------------ */

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
PS_LAB_EXPORT int ps_eval_run_method(const ps_eval_config *cfg, const char *method, const ps_dataset *ds,
                       ps_eval_run *run, ps_error *err);

/** Score the folder @p dir of <id>.txt outputs (DIR/<set name>/<id>.txt
 *  when that folder exists, else DIR/<id>.txt); a missing file is an empty
 *  output and counts as a failure. */
PS_LAB_EXPORT int ps_eval_run_pred(const ps_eval_config *cfg, const char *label, const char *dir,
                     const ps_dataset *ds, ps_eval_run *run, ps_error *err);

PS_LAB_EXPORT void ps_eval_run_clear(ps_eval_run *run);

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
PS_LAB_EXPORT int ps_eval_site_curve(const ps_eval_config *cfg, const char *method, const ps_dataset *ds,
                                 const unsigned *ks, size_t n_k, unsigned min_pages, int label_order,
                                 FILE *out, struct json_t *json, ps_error *err);
/** ps_eval_site_curve's label orders: a site's first Kmax pages labelled
 *  in index order, or most uncertain first by the base model
 *  (ps_extraction_uncertainty, pagesift/labels.h). */
enum { PS_LABEL_ORDER_INDEX = 0, PS_LABEL_ORDER_UNCERTAINTY = 1 };

/** The per-page report of every snippet run, TSV, to @p path ("-" =
 *  stdout), written atomically.  0 or -1 with err. */
PS_LAB_EXPORT int ps_eval_snip_report(const char *path, const ps_eval_run *runs, size_t n, ps_error *err);

/** Breakdown keys. */
enum { PS_BY_NONE = 0, PS_BY_SITE = 1, PS_BY_LANG = 2, PS_BY_TYPE = 3 };

/** The readable table of all runs on @p f. */
PS_LAB_EXPORT void ps_eval_print_table(FILE *f, const ps_eval_run *runs, size_t n);
/** Per-site or per-language figures of every run. */
PS_LAB_EXPORT void ps_eval_print_breakdown(FILE *f, const ps_eval_run *runs, size_t n, int by);
/** Everything as JSON (breakdown included when by != PS_BY_NONE). */
PS_LAB_EXPORT struct json_t *ps_eval_json(const ps_eval_run *runs, size_t n, int by);
/** Grouped bar chart of token F1 per run per data set, SVG, written atomically. */
PS_LAB_EXPORT int ps_eval_chart_svg(const char *path, const ps_eval_run *runs, size_t n, ps_error *err);

/** One bar of the chart. */
typedef struct ps_eval_point {
    const char *set, *label;
    double f1;
    double p, r;        /**< precision and recall, drawn beside F1; < 0 unknown */
} ps_eval_point;
/** The same chart from bars (e.g. read back from --json outputs). */
PS_LAB_EXPORT int ps_eval_chart_svg_points(const char *path, const ps_eval_point *pts, size_t n, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_EVAL_H */
