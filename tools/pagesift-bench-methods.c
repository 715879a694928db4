/* pagesift-bench-methods — speed and a quick score of extraction methods on
 * data sets: pages/s on one core including page loading (read, decode,
 * parse, block tree) and token precision / recall / F1 against the gold.
 * Pages are fed one at a time in index order (what stateful methods need). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pagesift.h"
#include "pagesift/dataset.h"
#include "pagesift/page.h"
#include "pagesift/tokens.h"
#include "pagesift/util.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-bench-methods [OPTION]... DATASET_DIR...\n"
          "Run extraction methods over data sets (folders with index.tsv, html/, gold/),\n"
          "one core, pages in index order, and print per method and data set: pages,\n"
          "failures, pages/s (load only, and load + extract; CPU time of this process),\n"
          "mean token precision, recall and F1 against the gold, and the share of pages\n"
          "with recall >= 0.95 and precision >= 0.95 / >= 0.98.\n"
          "\n"
          "  -m, --method NAME       method to run (repeatable; default: every method\n"
          "                          that needs no model)\n"
          "  -o, --options STR       method options key=value,... (for every -m)\n"
          "  -n, --limit N           first N pages of each data set only\n"
          "  -r, --repeat N          run the timing N times, report the best (default 1)\n"
          "  -p, --per-page FILE     write a TSV row per page and method: dataset, id,\n"
          "                          method, precision, recall, f1, title, date\n"
          "  -O, --out-dir DIR       write each output text to DIR/<dataset>.<method>.<id>.txt\n"
          "  -q, --quiet             no progress line\n"
          "  -h, --help              this help\n"
          "  -V, --version           version\n"
          "\n"
          "Exit status: 0 ok, 1 a data set could not be read or a page failed,\n"
          "2 usage error, 3 a method could not be set up.\n",
          f);
}

static void tsv_field(FILE *f, const char *s)
{
    for (; s && *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

typedef struct result {
    size_t pages, failed, qual, excel;
    double p, r, f1, t_load, t_all;
} result;

/* One pass over the data set: load every page, extract (when m != NULL).
 * Returns the CPU seconds of the pass; fills scores when res != NULL. */
static const char *out_dir;

static double pass(const ps_dataset *ds, size_t limit, const char *m, const char *options, result *res,
                   FILE *per_page, int quiet, int *setup_failed)
{
    ps_error err = {0};
    ps_extractor_config cfg = {.options = options};
    ps_extractor *ex = NULL;
    if (m && !(ex = ps_extractor_new(m, &cfg, &err))) {
        fprintf(stderr, "pagesift-bench-methods: %s: %s\n", m, err.msg);
        *setup_failed = 1;
        return 0;
    }
    size_t n = limit && limit < ds->n_pages ? limit : ds->n_pages;
    ps_progress *prog = ps_progress_new("pages", n, quiet);
    double t0 = ps_clock(PS_CLOCK_PROCESS_CPU);
    double scoring = 0;
    for (size_t i = 0; i < n; i++) {
        const ps_dataset_page *dp = &ds->pages[i];
        ps_input in = {0};
        in.url = dp->url;
        in.site = dp->site;
        in.data = ps_read_page_file(dp->html_path, 0, &in.len, &err);
        ps_page *pg = NULL;
        ps_extraction out = {0};
        char site[512];
        int failed = !in.data;
        if (in.data && ex) /* the page step of every tool: parse, site, extract */
            failed = ps_extract_input(ex, &in, NULL, site, sizeof site, &pg, &out, &err) != 0;
        else if (in.data) /* load only */
            failed = !(pg = ps_input_page(&in, NULL, 0, &err));
        free(in.data);
        if (failed && (!ex || !pg)) { /* not read or not parsed */
            if (res) {
                res->failed++;
                fprintf(stderr, "pagesift-bench-methods: %s: %s\n", dp->html_path, err.msg);
            }
            ps_page_free(pg);
            continue;
        }
        if (m) {
            if (failed) {
                if (res) {
                    res->failed++;
                    fprintf(stderr, "pagesift-bench-methods: %s: %s: %s\n", dp->html_path, m, err.msg);
                }
            } else if (res) {
                double ts = ps_clock(PS_CLOCK_PROCESS_CPU);
                size_t glen;
                char *gold = ps_read_file(dp->gold_path, 0, &glen, &err);
                if (!gold) {
                    res->failed++;
                    fprintf(stderr, "pagesift-bench-methods: %s\n", err.msg);
                } else {
                    const char *text = out.text ? out.text : "";
                    double r = ps_token_recall(text, out.len, gold, glen);
                    double p = ps_token_recall(gold, glen, text, out.len);
                    double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
                    res->pages++;
                    res->p += p;
                    res->r += r;
                    res->f1 += f1;
                    res->qual += r >= 0.95 && p >= 0.95;
                    res->excel += r >= 0.95 && p >= 0.98;
                    if (out_dir) {
                        char path[4096];
                        snprintf(path, sizeof path, "%s/%s.%s.%s.txt", out_dir, ds->name, m, dp->id);
                        if (ps_write_file_atomic(path, text, out.len, &err))
                            fprintf(stderr, "pagesift-bench-methods: %s\n", err.msg);
                    }
                    if (per_page) {
                        fprintf(per_page, "%s\t%s\t%s\t%.4f\t%.4f\t%.4f\t", ds->name, dp->id, m, p, r, f1);
                        tsv_field(per_page, out.title);
                        fputc('\t', per_page);
                        tsv_field(per_page, out.date);
                        fputc('\n', per_page);
                    }
                    free(gold);
                }
                scoring += ps_clock(PS_CLOCK_PROCESS_CPU) - ts;
            }
            ps_extraction_free(&out);
        }
        ps_page_free(pg);
        ps_progress_update(prog, i + 1, m ? m : "load");
    }
    ps_progress_done(prog);
    double t = ps_clock(PS_CLOCK_PROCESS_CPU) - t0 - scoring;
    ps_extractor_free(ex);
    return t;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"method", required_argument, NULL, 'm'}, {"options", required_argument, NULL, 'o'},
        {"limit", required_argument, NULL, 'n'},  {"repeat", required_argument, NULL, 'r'},
        {"per-page", required_argument, NULL, 'p'}, {"quiet", no_argument, NULL, 'q'},
        {"out-dir", required_argument, NULL, 'O'},
        {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *methods[64];
    size_t n_methods = 0, limit = 0;
    int repeat = 1, quiet = 0, c;
    const char *options = NULL, *per_page_path = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:o:n:r:p:O:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': {
            const char *m = NULL;
            for (size_t i = 0; ps_method_name(i); i++)
                if (strcmp(ps_method_name(i), optarg) == 0)
                    m = ps_method_name(i);
            if (!m) {
                fprintf(stderr, "pagesift-bench-methods: unknown method '%s'\n", optarg);
                return 2;
            }
            if (n_methods < 64)
                methods[n_methods++] = m;
            break;
        }
        case 'o': options = optarg; break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 1) {
                fprintf(stderr, "pagesift-bench-methods: --limit must be a positive integer\n");
                return 2;
            }
            limit = (size_t)v;
            break;
        }
        case 'r':
            repeat = atoi(optarg);
            if (repeat < 1) {
                fprintf(stderr, "pagesift-bench-methods: --repeat must be >= 1\n");
                return 2;
            }
            break;
        case 'p': per_page_path = optarg; break;
        case 'O': out_dir = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-bench-methods %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-bench-methods", c, argv);
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (!n_methods)
        for (size_t i = 0; ps_method_name(i) && n_methods < 64; i++)
            if (!ps_method_needs_model(i))
                methods[n_methods++] = ps_method_name(i);
    ps_init();
    FILE *per_page = NULL;
    if (per_page_path && !(per_page = fopen(per_page_path, "w"))) {
        fprintf(stderr, "pagesift-bench-methods: %s: cannot write\n", per_page_path);
        return 3;
    }
    if (per_page)
        fputs("dataset\tid\tmethod\tprecision\trecall\tf1\ttitle\tdate\n", per_page);
    int status = 0;
    printf("%-16s %-14s %6s %4s %9s %9s %7s %7s %7s %7s %7s\n", "dataset", "method", "pages", "fail", "load/s",
           "pages/s", "P", "R", "F1", "q95", "q95/98");
    for (int a = optind; a < argc; a++) {
        ps_error err = {0};
        ps_dataset *ds = ps_dataset_load(argv[a], &err);
        if (!ds) {
            fprintf(stderr, "pagesift-bench-methods: %s\n", err.msg);
            status = 1;
            continue;
        }
        size_t n = limit && limit < ds->n_pages ? limit : ds->n_pages;
        int load_only_failed = 0; /* no method is set up in the load-only pass */
        double t_load = 1e300;
        for (int k = 0; k < repeat; k++) {
            double t = pass(ds, limit, NULL, NULL, NULL, NULL, quiet, &load_only_failed);
            if (t < t_load)
                t_load = t;
        }
        for (size_t mi = 0; mi < n_methods; mi++) {
            result res = {0};
            int setup_failed = 0;
            double t_all = pass(ds, limit, methods[mi], options, &res, per_page, quiet, &setup_failed);
            if (setup_failed) {
                ps_dataset_free(ds);
                if (per_page)
                    fclose(per_page);
                return 3;
            }
            for (int k = 1; k < repeat; k++) { /* timing only */
                double t = pass(ds, limit, methods[mi], options, NULL, NULL, quiet, &setup_failed);
                if (t < t_all)
                    t_all = t;
            }
            if (res.failed)
                status = 1;
            double np = res.pages ? (double)res.pages : 1;
            printf("%-16s %-14s %6zu %4zu %9.1f %9.1f %7.4f %7.4f %7.4f %6.1f%% %6.1f%%\n", ds->name,
                   methods[mi], res.pages, res.failed, (double)n / t_load, (double)n / t_all, res.p / np,
                   res.r / np, res.f1 / np, 100.0 * (double)res.qual / np, 100.0 * (double)res.excel / np);
            fflush(stdout);
        }
        ps_dataset_free(ds);
    }
    if (per_page && fclose(per_page)) {
        fprintf(stderr, "pagesift-bench-methods: %s: write failed\n", per_page_path);
        status = 1;
    }
    return status;
}
