/* pagesift-eval — score extraction methods, or any extractor's output
 * folder, against the gold texts of data sets in the ../shared/datasets
 * format; print a table, breakdowns, JSON and an SVG chart.  The work is
 * done in eval/ (run.c, score.c, report.c, chart.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pagesift.h"
#include "pagesift/eval.h"

#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-eval --dataset DIR [--dataset DIR]... (--method LIST | --pred DIR)...\n"
          "Run extraction methods over data sets (index.tsv, html/, gold/) and score\n"
          "their output against the gold text, or score an existing output folder.\n"
          "A snippet set (index.tsv, html/, evaldata.json: per page text that must and\n"
          "must not be in the output, e.g. trafilatura-eval) is scored by its own rule.\n"
          "\n"
          "  -d, --dataset DIR        a data set folder (repeatable)\n"
          "  -m, --method LIST        methods, comma-separated (see --list-methods);\n"
          "                           repeatable\n"
          "  -p, --pred [LABEL=]DIR   score the folder DIR of <id>.txt outputs (DIR/<set>/\n"
          "                           when that exists); a missing file is an empty output\n"
          "                           counted as a failure; repeatable\n"
          "      --model FILE         model bundle for methods that need one\n"
          "      --per-site N         before a method runs over a set, learn the sites'\n"
          "                           template libraries from its pages (not the gold), as\n"
          "                           pagesift --learn-templates does, and give them to the\n"
          "                           method: applied for sites of >= 5 pages (the rule of\n"
          "                           training and inference); N > 5 is an experiment\n"
          "                           override: sites of fewer than N pages get none\n"
          "      --per-site-models K  the per-site model curve (docs/SITE_MODELS.md): per\n"
          "                           site with enough pages, its first K pages labelled\n"
          "                           from the gold train a site model (pagesift-train\n"
          "                           --per-site), scored on the site's pages after its\n"
          "                           first Kmax (never labelled); K a comma list (default\n"
          "                           when given one number: 0,1,3,5,10 up to it); 0 = the\n"
          "                           --model alone; a table per set and site (svm,\n"
          "                           template-svm: templates learnt from the set's pages),\n"
          "                           per K the mean gain, the sites hurt, the worst\n"
          "                           site's loss and the site models declined (not\n"
          "                           better than --model in CV: that site keeps it);\n"
          "                           --json: the same as JSON\n"
          "      --site-min-pages N   sites measured by --per-site-models: >= N pages\n"
          "                           (default 10; at least 6)\n"
          "      --label-order ORDER  which of a site's first Kmax pages --per-site-models\n"
          "                           labels first: index (default: as they come) or\n"
          "                           uncertainty (the pages the --model is least sure\n"
          "                           about first, pagesift-annotate's \"label next\")\n"
          "      --options STR        method options \"key=value,...\" for every method\n"
          "      --icu                also score 4-gram shingles of ICU word-break tokens\n"
          "      --by site|lang|page_type\n"
          "                           per-site, per-language or per-page-type breakdown\n"
          "                           (page_type: the index's page_type column, e.g.\n"
          "                           wcxb-dev's seven types)\n"
          "      --json               print JSON on stdout instead of the table\n"
          "      --chart FILE         write an SVG chart of token F1 per method per set\n"
          "      --write DIR          also write each output to DIR/<set>/<method>/<id>.txt\n"
          "      --fold K/N           only the pages of site fold K of N (every data set;\n"
          "                           docs/INPUTS.md: a fixed hash of the site column, or\n"
          "                           of the id when the site is empty)\n"
          "      --not-fold K/N       only the pages NOT in site fold K of N\n"
          "      --snippets FILE      snippet sets: write a per-page report, TSV ('-' =\n"
          "                           stdout): set, method, id, site, output (ok, empty,\n"
          "                           failed), with present/total, without present/total,\n"
          "                           the with snippets missing, the without present\n"
          "      --protocol TEXT      a note appended to the protocol of every figure\n"
          "      --tag TEXT           appended to every method's label (e.g. +loso)\n"
          "      --train-protocol     for methods with a model, say in each figure's\n"
          "                           protocol whether the model was trained on that set\n"
          "                           (from the bundle's data_sets / data_files; the\n"
          "                           shipped model saw every set); held-out figures come\n"
          "                           from scripts/eval-all --loso\n"
          "      --merge-json FILE    instead of running: merge earlier --json outputs\n"
          "                           (repeatable), print the merged JSON, draw --chart\n"
          "  -j, --jobs N             worker threads for stateless methods (default 1)\n"
          "      --list-methods       print the methods (name, \"model\" when it needs one,\n"
          "                           summary) and exit\n"
          "  -q, --quiet              no progress, no per-page warnings\n"
          "  -h, --help               this help\n"
          "  -V, --version            version\n"
          "\n"
          "Metrics: 4-gram shingles of tokens (\\w+ runs; each CJK ideograph or kana is\n"
          "a token) compared as multisets per page, P and R averaged over pages, F1 of\n"
          "the averages (the public article-extraction benchmark's metric; empty output\n"
          "scores P = R = 0, the F1b column uses the benchmark's rule that leaves such\n"
          "pages out of P); single tokens; F1w, the WCXB rule (single tokens of the\n"
          "lower-cased texts; P, R and F1 of each page averaged over pages, empty\n"
          "output 0); characters in common (LCS); page level\n"
          "qualified/excellent; empty outputs, failures, pages/s (CPU, per core).\n"
          "Snippet sets: white space collapsed in output and snippets, a snippet is\n"
          "present when it is a substring of the output; tp/fn = with present/missing,\n"
          "fp/tn = without present/absent, summed over pages; P = tp/(tp+fp),\n"
          "R = tp/(tp+fn), F1 = 2tp/(2tp+fp+fn); a failed page counts every with as\n"
          "missing and every without as absent (docs/EVALUATION.md).\n"
          "\n"
          "Exit status: 0 ok (pages a method failed on are counted in the table), 1 a\n"
          "gold file could not be read (page skipped), 2 usage error, 3 a data set,\n"
          "method, model or output folder could not be set up (the other methods and\n"
          "folders are still run and reported).\n",
          f);
}

/* The registered name of method @p name, or NULL when there is none. */
static const char *method_name(const char *name)
{
    for (size_t i = 0; ps_method_name(i); i++)
        if (strcmp(ps_method_name(i), name) == 0)
            return ps_method_name(i);
    return NULL;
}

typedef struct source {
    const char *m; /* method name, or NULL: pred */
    char *label;
    char *dir;
} source;

/* --merge-json: concatenate the runs and errors of earlier --json outputs,
 * print the result, draw the chart of all of them. */
static int merge_json(const char *const *files, size_t n, const char *chart)
{
    json_t *root = json_object(), *runs = json_array(), *errors = json_array();
    json_object_set_new(root, "version", json_string(ps_version()));
    for (size_t i = 0; i < n; i++) {
        json_error_t je;
        json_t *j = json_load_file(files[i], 0, &je);
        json_t *r = j ? json_object_get(j, "runs") : NULL;
        if (!j || !json_is_array(r)) {
            fprintf(stderr, "pagesift-eval: %s:%d: %s\n", files[i], j ? 0 : je.line,
                    j ? "no \"runs\" array: not a pagesift-eval --json output" : je.text);
            json_decref(j);
            json_decref(root);
            json_decref(runs);
            json_decref(errors);
            return 3;
        }
        json_array_extend(runs, r);
        json_t *e = json_object_get(j, "errors");
        if (json_is_array(e))
            json_array_extend(errors, e);
        json_decref(j);
    }
    int rc = 0;
    if (chart) {
        size_t k = json_array_size(runs);
        ps_eval_point *pts = calloc(k + 1, sizeof *pts);
        size_t np = 0;
        for (size_t i = 0; pts && i < k; i++) {
            json_t *r = json_array_get(runs, i);
            const char *set = json_string_value(json_object_get(r, "set"));
            const char *label = json_string_value(json_object_get(r, "label"));
            json_t *tok = json_object_get(r, "token");
            if (!json_object_get(tok, "f1")) /* a snippet set */
                tok = json_object_get(r, "snippets");
            json_t *f1 = json_object_get(tok, "f1"), *p = json_object_get(tok, "p"),
                   *rc = json_object_get(tok, "r");
            if (set && label && json_is_number(f1))
                pts[np++] = (ps_eval_point){set, label, json_number_value(f1),
                                            json_is_number(p) ? json_number_value(p) : -1,
                                            json_is_number(rc) ? json_number_value(rc) : -1};
        }
        ps_error err = {0};
        if (!pts || ps_eval_chart_svg_points(chart, pts, np, &err) < 0) {
            fprintf(stderr, "pagesift-eval: %s\n", pts ? err.msg : "out of memory");
            rc = 3;
        }
        free(pts);
    }
    json_object_set_new(root, "runs", runs);
    json_object_set_new(root, "errors", errors);
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(root);
    return rc;
}

/* The long options without a short one. */
enum { O_MODEL = 256, O_OPTIONS, O_ICU, O_BY, O_JSON, O_CHART, O_WRITE, O_PROTOCOL, O_LIST,
       O_TAG, O_MERGE, O_TRAINP, O_PERSITE, O_FOLD, O_NOTFOLD, O_SNIPPETS,
       O_SITEMODELS, O_SITEMIN, O_LABELORDER };

/* What the command line asks for. */
typedef struct eval_cli {
    ps_eval_config cfg;
    unsigned curve_k[16], site_min; /* --per-site-models, --site-min-pages */
    int label_order;                /* --label-order */
    size_t n_curve;
    const char *sets[64];           /* --dataset */
    size_t nsets, nsrc;
    source src[64];                 /* --method, --pred */
    int json, by;
    const char *chart;
    const char *merge[64];          /* --merge-json */
    size_t nmerge;
    ps_fold fold;                   /* --fold / --not-fold */
    const char *snip_report;        /* --snippets */
    char protocol[1200];
    ps_error err;
    ps_dataset *ds[64];             /* the data sets, loaded */
} eval_cli;

/* parse_option, parse_options: GO_ON to carry on, else the exit status */
enum { GO_ON = -1 };

/* One option @p c of the command line (its argument in optarg). */
static int parse_option(eval_cli *o, int c, char **argv)
{
    switch (c) {
    case 'd':
        if (o->nsets == 64) {
            fprintf(stderr, "pagesift-eval: at most 64 data sets\n");
            return 2;
        }
        o->sets[o->nsets++] = optarg;
        break;
    case 'm':
        for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
            const char *m = method_name(tok);
            if (!m) {
                fprintf(stderr, "pagesift-eval: unknown method '%s' (see --list-methods)\n", tok);
                return 2;
            }
            if (o->nsrc == 64) {
                fprintf(stderr, "pagesift-eval: at most 64 methods and folders\n");
                return 2;
            }
            o->src[o->nsrc++] = (source){m, tok, NULL};
        }
        break;
    case 'p': {
        if (o->nsrc == 64) {
            fprintf(stderr, "pagesift-eval: at most 64 methods and folders\n");
            return 2;
        }
        char *eq = strchr(optarg, '=');
        char *label, *dir = optarg;
        if (eq) {
            *eq = '\0';
            label = optarg;
            dir = eq + 1;
        } else {
            size_t l = strlen(optarg);
            while (l > 1 && optarg[l - 1] == '/')
                optarg[--l] = '\0';
            char *slash = strrchr(optarg, '/');
            label = slash ? slash + 1 : optarg;
        }
        if (!*label || !*dir) {
            fprintf(stderr, "pagesift-eval: --pred wants [LABEL=]DIR\n");
            return 2;
        }
        o->src[o->nsrc++] = (source){NULL, label, dir};
        break;
    }
    case O_MODEL: o->cfg.model_path = optarg; break;
    case O_OPTIONS: o->cfg.method_options = optarg; break;
    case O_ICU: o->cfg.icu = 1; break;
    case O_BY:
        if (strcmp(optarg, "site") == 0)
            o->by = PS_BY_SITE;
        else if (strcmp(optarg, "lang") == 0)
            o->by = PS_BY_LANG;
        else if (strcmp(optarg, "page_type") == 0 || strcmp(optarg, "type") == 0)
            o->by = PS_BY_TYPE;
        else {
            fprintf(stderr, "pagesift-eval: --by wants site, lang or page_type, not '%s'\n", optarg);
            return 2;
        }
        break;
    case O_JSON: o->json = 1; break;
    case O_CHART: o->chart = optarg; break;
    case O_WRITE: o->cfg.write_dir = optarg; break;
    case O_PROTOCOL: o->cfg.protocol = optarg; break;
    case O_TAG: o->cfg.tag = optarg; break;
    case O_TRAINP: o->cfg.train_protocol = 1; break;
    case O_PERSITE: {
        char *end;
        long v = strtol(optarg, &end, 10);
        if (*end || v < 1 || v > 1000000) {
            fprintf(stderr, "pagesift-eval: --per-site wants a number of pages >= 1\n");
            return 2;
        }
        o->cfg.per_site = (unsigned)v;
        break;
    }
    case O_SITEMODELS: {
        static const unsigned std_k[] = {0, 1, 3, 5, 10};
        char *end, *p = optarg;
        o->n_curve = 0;
        for (;;) {
            long v = strtol(p, &end, 10);
            if (end == p || v < 0 || v > 1000 || o->n_curve == 16 || (*end && *end != ',')) {
                fprintf(stderr, "pagesift-eval: --per-site-models: '%s' is not a number or a comma list of "
                                "up to 16 numbers from 0 to 1000\n", optarg);
                return 2;
            }
            o->curve_k[o->n_curve++] = (unsigned)v;
            if (!*end)
                break;
            p = end + 1;
        }
        if (o->n_curve == 1) { /* one K: the standard curve up to it */
            unsigned top = o->curve_k[0];
            o->n_curve = 0;
            for (size_t i = 0; i < 5 && std_k[i] <= top; i++)
                o->curve_k[o->n_curve++] = std_k[i];
            if (o->curve_k[o->n_curve - 1] != top)
                o->curve_k[o->n_curve++] = top;
        }
        break;
    }
    case O_LABELORDER:
        if (strcmp(optarg, "index") == 0)
            o->label_order = PS_LABEL_ORDER_INDEX;
        else if (strcmp(optarg, "uncertainty") == 0)
            o->label_order = PS_LABEL_ORDER_UNCERTAINTY;
        else {
            fprintf(stderr, "pagesift-eval: --label-order is index or uncertainty, not '%s'\n", optarg);
            return 2;
        }
        break;
    case O_SITEMIN: {
        char *end;
        long v = strtol(optarg, &end, 10);
        if (*end || v < 6 || v > 1000000) {
            fprintf(stderr, "pagesift-eval: --site-min-pages wants a number of pages >= 6\n");
            return 2;
        }
        o->site_min = (unsigned)v;
        break;
    }
    case O_FOLD:
    case O_NOTFOLD: {
        ps_error fe = {0};
        if (o->fold.n) {
            fprintf(stderr, "pagesift-eval: one --fold or --not-fold only\n");
            return 2;
        }
        if (ps_fold_parse(optarg, &o->fold, &fe) < 0) {
            fprintf(stderr, "pagesift-eval: --%s: %s\n", c == O_FOLD ? "fold" : "not-fold", fe.msg);
            return 2;
        }
        o->fold.complement = c == O_NOTFOLD;
        break;
    }
    case O_SNIPPETS: o->snip_report = optarg; break;
    case O_MERGE:
        if (o->nmerge == 64) {
            fprintf(stderr, "pagesift-eval: at most 64 --merge-json files\n");
            return 2;
        }
        o->merge[o->nmerge++] = optarg;
        break;
    case 'j': {
        char *end;
        long v = strtol(optarg, &end, 10);
        if (*end || v < 1 || v > 64) {
            fprintf(stderr, "pagesift-eval: --jobs wants a number from 1 to 64\n");
            return 2;
        }
        o->cfg.jobs = (int)v;
        break;
    }
    case O_LIST:
        for (size_t i = 0; ps_method_name(i); i++)
            printf("%-16s %-5s %s\n", ps_method_name(i),
                   ps_method_needs_model(i) ? "model" : "-", ps_method_summary(i));
        return 0;
    case 'q': o->cfg.quiet = 1; break;
    case 'h': usage(stdout); return 0;
    case 'V': printf("pagesift-eval %s\n", ps_version()); return 0;
    default: return ps_cli_bad_option("pagesift-eval", c, argv);
    }
    return GO_ON;
}

static int parse_options(eval_cli *o, int argc, char **argv)
{
    static const struct option opts[] = {
        {"dataset", required_argument, 0, 'd'}, {"method", required_argument, 0, 'm'},
        {"pred", required_argument, 0, 'p'},     {"model", required_argument, 0, O_MODEL},
        {"options", required_argument, 0, O_OPTIONS}, {"icu", no_argument, 0, O_ICU},
        {"by", required_argument, 0, O_BY},      {"json", no_argument, 0, O_JSON},
        {"chart", required_argument, 0, O_CHART}, {"write", required_argument, 0, O_WRITE},
        {"protocol", required_argument, 0, O_PROTOCOL}, {"jobs", required_argument, 0, 'j'},
        {"list-methods", no_argument, 0, O_LIST}, {"quiet", no_argument, 0, 'q'},
        {"per-site", required_argument, 0, O_PERSITE},
        {"per-site-models", required_argument, 0, O_SITEMODELS},
        {"site-min-pages", required_argument, 0, O_SITEMIN},
        {"label-order", required_argument, 0, O_LABELORDER},
        {"fold", required_argument, 0, O_FOLD}, {"not-fold", required_argument, 0, O_NOTFOLD},
        {"snippets", required_argument, 0, O_SNIPPETS},
        {"tag", required_argument, 0, O_TAG},    {"train-protocol", no_argument, 0, O_TRAINP},    {"merge-json", required_argument, 0, O_MERGE},
        {"help", no_argument, 0, 'h'},           {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    int c;
    o->cfg.jobs = 1;
    o->site_min = 10;
    o->label_order = PS_LABEL_ORDER_INDEX;
    ps_cli_report_as("pagesift-eval"); /* the library's messages: "pagesift-eval: ..." */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":d:m:p:j:qhV", opts, NULL)) != -1) {
        int rc = parse_option(o, c, argv);
        if (rc != GO_ON)
            return rc;
    }
    if (optind < argc) {
        fprintf(stderr, "pagesift-eval: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return GO_ON;
}

/* Load the data sets (--fold / --not-fold applied): 0, or 3 when one
 * cannot be read. */
static int load_sets(eval_cli *o)
{
    for (size_t i = 0; i < o->nsets; i++) {
        o->ds[i] = ps_dataset_load(o->sets[i], &o->err);
        if (!o->ds[i]) {
            fprintf(stderr, "pagesift-eval: %s\n", o->err.msg);
            for (size_t j = 0; j < i; j++)
                ps_dataset_free(o->ds[j]);
            return 3;
        }
        ps_dataset_filter(o->ds[i], &o->fold); /* --fold / --not-fold */
    }
    if (o->fold.n) { /* the protocol of every figure names the fold */
        snprintf(o->protocol, sizeof o->protocol, ", pages %sin site fold %u/%u%s",
                 o->fold.complement ? "not " : "", o->fold.k, o->fold.n,
                 o->cfg.protocol ? o->cfg.protocol : "");
        o->cfg.protocol = o->protocol;
    }
    return 0;
}

/* --per-site-models: the curve of each method on each set instead of the
 * runs. */
static int run_curve(eval_cli *o)
{
    int crc = 0;
    json_t *curves = o->json ? json_array() : NULL;
    for (size_t s = 0; s < o->nsets; s++)
        for (size_t k = 0; k < o->nsrc; k++) {
            if (!o->src[k].m) {
                fprintf(stderr, "pagesift-eval: --per-site-models runs methods, not --pred folders\n");
                crc = 2;
                continue;
            }
            if (ps_eval_site_curve(&o->cfg, o->src[k].m, o->ds[s], o->curve_k, o->n_curve, o->site_min,
                                   o->label_order, stdout, curves, &o->err) < 0) {
                fprintf(stderr, "pagesift-eval: %s / %s: %s\n", o->ds[s]->name, o->src[k].m, o->err.msg);
                crc = o->err.code == PS_ERR_USAGE ? 2 : 3;
                memset(&o->err, 0, sizeof o->err);
            }
        }
    if (curves) {
        json_t *root = json_pack("{s:s,s:o}", "version", ps_version(), "per_site_models", curves);
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        fputc('\n', stdout);
        json_decref(root);
    }
    for (size_t i = 0; i < o->nsets; i++)
        ps_dataset_free(o->ds[i]);
    return crc;
}

/* The tables, breakdowns, JSON, chart and snippet report of @p nruns runs
 * (@p errors: the runs that could not be set up, for the JSON). */
static int report_runs(eval_cli *o, ps_eval_run *runs, size_t nruns, json_t *errors, int rc)
{
    if (o->json) {
        json_t *j = ps_eval_json(runs, nruns, o->by);
        json_object_set_new(j, "errors", errors);
        errors = NULL;
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(j);
    }
    json_decref(errors);
    if (nruns) {
        if (!o->json) {
            ps_eval_print_table(stdout, runs, nruns);
            if (o->by != PS_BY_NONE)
                ps_eval_print_breakdown(stdout, runs, nruns, o->by);
        }
        if (o->chart && ps_eval_chart_svg(o->chart, runs, nruns, &o->err) < 0) {
            fprintf(stderr, "pagesift-eval: %s\n", o->err.msg);
            rc = 3;
        }
        if (o->snip_report && ps_eval_snip_report(o->snip_report, runs, nruns, &o->err) < 0) {
            fprintf(stderr, "pagesift-eval: %s\n", o->err.msg);
            rc = 3;
        }
    }
    for (size_t i = 0; i < nruns; i++)
        ps_eval_run_clear(&runs[i]);
    free(runs);
    for (size_t i = 0; i < o->nsets; i++)
        ps_dataset_free(o->ds[i]);
    return rc;
}

/* Every method or folder on every set, then the report. */
static int run_all(eval_cli *o)
{
    /* A method or folder that cannot be set up is reported and skipped; the
     * others still run (exit status 3 at the end). */
    ps_eval_run *runs = calloc(o->nsets * o->nsrc, sizeof *runs);
    json_t *errors = json_array();
    size_t nruns = 0;
    int rc = runs ? 0 : 3;
    for (size_t s = 0; runs && s < o->nsets; s++) {
        for (size_t k = 0; k < o->nsrc; k++) {
            int r = o->src[k].m ? ps_eval_run_method(&o->cfg, o->src[k].m, o->ds[s], &runs[nruns], &o->err)
                                : ps_eval_run_pred(&o->cfg, o->src[k].label, o->src[k].dir, o->ds[s],
                                                   &runs[nruns], &o->err);
            if (r < 0) {
                fprintf(stderr, "pagesift-eval: %s / %s: %s\n", o->ds[s]->name, o->src[k].label, o->err.msg);
                static int hinted;
                if (o->src[k].m && !hinted++)
                    ps_cli_model_hint("pagesift-eval", o->cfg.model_path);
                json_array_append_new(errors, json_pack("{s:s,s:s,s:s}", "set", o->ds[s]->name, "label",
                                                        o->src[k].label, "error", o->err.msg));
                rc = 3;
                continue;
            }
            if (runs[nruns].n_skipped && rc == 0)
                rc = 1;
            nruns++;
        }
    }
    return report_runs(o, runs, nruns, errors, rc);
}

int main(int argc, char **argv)
{
    eval_cli o = {0};
    int rc = parse_options(&o, argc, argv);
    if (rc != GO_ON)
        return rc;
    if (o.nmerge) {
        if (o.nsets || o.nsrc) {
            fprintf(stderr, "pagesift-eval: --merge-json does not run anything: no --dataset, "
                            "--method or --pred with it\n");
            return 2;
        }
        return merge_json(o.merge, o.nmerge, o.chart);
    }
    if (o.nsets == 0 || o.nsrc == 0) {
        fprintf(stderr, "pagesift-eval: give --dataset and at least one --method or --pred "
                        "(--help for more)\n");
        return 2;
    }
    ps_init();
    if ((rc = load_sets(&o)) != 0)
        return rc;
    return o.n_curve ? run_curve(&o) : run_all(&o);
}
