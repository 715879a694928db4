/* tools/pagesift-bench-methods.c — speed (and a quick token score) of
 * extraction methods over data sets in the ../shared/datasets format.
 *
 * For each method and data set: load every page (read + decode + parse +
 * block tree) and extract, one at a time on one thread; report pages/s
 * including the load, and the load alone, in wall and CPU time.  With
 * --score, also the mean token precision / recall / F1 against the gold
 * (ps_token_recall both ways; scoring is not timed).  The full evaluation
 * is pagesift-eval's job; this is the developer's quick check. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "methods/method.h"

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: pagesift-bench-methods [OPTIONS] DATASET_DIR...\n"
            "Time extraction methods over data sets (load + extract, one thread).\n\n"
            "  -m, --method NAME     method to run (repeatable; default: every registered method\n"
            "                        that needs no model)\n"
            "  -o, --options STR     method options \"key=value,...\" (for every -m given)\n"
            "  -r, --repeat N        run each data set N times (default 1)\n"
            "  -s, --score           also report mean token precision/recall/F1 against gold\n"
            "  -n, --limit N         at most N pages per data set\n"
            "  -q, --quiet           no per-page error lines\n"
            "  -h, --help            this help\n"
            "  -V, --version         version\n\n"
            "Output: one tab-separated line per method and data set:\n"
            "method dataset pages failed wall_s pages_per_s cpu_pages_per_s load_only_pages_per_s [P R F1]\n"
            "Exit: 0 ok, 1 some page failed, 2 usage error, 3 a data set or method could not be set up.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"method", required_argument, 0, 'm'}, {"options", required_argument, 0, 'o'},
        {"repeat", required_argument, 0, 'r'}, {"score", no_argument, 0, 's'},
        {"limit", required_argument, 0, 'n'},  {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},         {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *names[32];
    size_t n_names = 0;
    const char *options = NULL;
    long repeat = 1, limit = -1;
    int score = 0, quiet = 0, c;
    while ((c = getopt_long(argc, argv, "m:o:r:sn:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (n_names == 32) {
                fprintf(stderr, "pagesift-bench-methods: too many --method\n");
                return 2;
            }
            names[n_names++] = optarg;
            break;
        case 'o': options = optarg; break;
        case 'r': repeat = strtol(optarg, NULL, 10); break;
        case 'n': limit = strtol(optarg, NULL, 10); break;
        case 's': score = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-bench-methods %s\n", ps_version()); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc || repeat < 1) {
        usage(stderr);
        return 2;
    }
    ps_init();
    if (n_names == 0)
        for (size_t i = 0; ps_methods[i] && n_names < 32; i++)
            if (!(ps_methods[i]->flags & PS_METHOD_NEEDS_MODEL))
                names[n_names++] = ps_methods[i]->name;
    int status = 0;
    for (int a = optind; a < argc; a++) {
        ps_error err = {0};
        ps_dataset *ds = ps_dataset_load(argv[a], &err);
        if (!ds) {
            fprintf(stderr, "pagesift-bench-methods: %s\n", err.msg);
            return 3;
        }
        size_t np = limit >= 0 && (size_t)limit < ds->n_pages ? (size_t)limit : ds->n_pages;
        for (size_t k = 0; k < n_names; k++) {
            const ps_method *m = ps_method_find(names[k]);
            if (!m) {
                fprintf(stderr, "pagesift-bench-methods: unknown method '%s'\n", names[k]);
                ps_dataset_free(ds);
                return 2;
            }
            ps_method_config cfg = {.options = options};
            void *self = m->create(&cfg, &err);
            if (!self) {
                fprintf(stderr, "pagesift-bench-methods: %s: %s\n", m->name, err.msg);
                ps_dataset_free(ds);
                return 3;
            }
            double wall = 0, cpu = 0, load_wall = 0, sp = 0, sr = 0, sf = 0;
            size_t done = 0, failed = 0;
            for (long rep = 0; rep < repeat; rep++)
                for (size_t i = 0; i < np; i++) {
                    const ps_dataset_page *pgi = &ds->pages[i];
                    ps_page_options po = {.url = pgi->url};
                    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
                    ps_page *pg = ps_page_load_file(pgi->html_path, &po, &err);
                    double w1 = now(CLOCK_MONOTONIC);
                    ps_method_output out = {0};
                    int ok = pg && m->extract(self, pg, "", &out, &err) == 0;
                    double w2 = now(CLOCK_MONOTONIC), c2 = now(CLOCK_PROCESS_CPUTIME_ID);
                    wall += w2 - w0;
                    cpu += c2 - c0;
                    load_wall += w1 - w0;
                    if (!ok) {
                        failed++;
                        if (!quiet)
                            fprintf(stderr, "pagesift-bench-methods: %s: %s: %s\n", m->name, pgi->html_path,
                                    err.msg);
                    } else if (score && rep == 0) {
                        size_t gl;
                        char *gold = ps_read_file(pgi->gold_path, 0, &gl, &err);
                        if (gold) {
                            double r = ps_token_recall(out.text, out.len, gold, gl);
                            double p = ps_token_recall(gold, gl, out.text, out.len);
                            sp += p;
                            sr += r;
                            sf += p + r > 0 ? 2 * p * r / (p + r) : 0;
                            free(gold);
                        } else if (!quiet) {
                            fprintf(stderr, "pagesift-bench-methods: %s\n", err.msg);
                        }
                    }
                    done++;
                    ps_method_output_free(&out);
                    ps_page_free(pg);
                }
            m->destroy(self);
            printf("%s\t%s\t%zu\t%zu\t%.3f\t%.1f\t%.1f\t%.1f", m->name, ds->name, done, failed, wall,
                   wall > 0 ? done / wall : 0, cpu > 0 ? done / cpu : 0, load_wall > 0 ? done / load_wall : 0);
            if (score) {
                double ns = np > 0 ? (double)np : 1;
                printf("\t%.3f\t%.3f\t%.3f", sp / ns, sr / ns, sf / ns);
            }
            printf("\n");
            fflush(stdout);
            if (failed)
                status = 1;
        }
        ps_dataset_free(ds);
    }
    return status;
}
