/* pagesift-train — train the RBF SVM block classifier from feature CSVs:
 * grouped k-fold grid search over C and gamma, then the final model bundle
 * (METHODS.md §1.3; library side in train/). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pagesift.h"
#include "pagesift/util.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-train [OPTION]... CSV... -o MODEL\n"
          "  or:  pagesift-train --upgrade OLD.model -o MODEL\n"
          "Train the block classifier (RBF SVM) from feature CSVs written by\n"
          "pagesift-features (annotator-filled ones too): pick C and gamma by grouped\n"
          "k-fold cross-validation over a grid, train on all rows, write the model\n"
          "bundle MODEL atomically.  Rows with an empty label are skipped (counted).\n"
          "stdout: one line per grid point (CV precision, recall, F1 of the content\n"
          "class, accuracy) and the chosen point.  stderr: progress, time left.\n"
          "\n"
          "  -o, --output MODEL       model bundle to write (required)\n"
          "  -f, --features SET       paper (R1..R5, default), extended (R1..R5 and every\n"
          "                           x_* column of the first CSV), or a comma list of\n"
          "                           those sets and column names, where -PREFIX drops\n"
          "                           the names chosen so far that start with PREFIX\n"
          "                           (extended,-x_tag_: the shipped model's)\n"
          "  -b, --balance MODE       undersample (default: seeded subsample of the\n"
          "                           majority class), weight (libsvm class weights),\n"
          "                           none\n"
          "  -s, --seed N             seed of every random choice (default 1)\n"
          "  -k, --folds N            cross-validation folds (default 10)\n"
          "  -g, --group-by KEY       page (default: dataset+page_id) or site; no group\n"
          "                           has rows on both sides of a fold\n"
          "      --select METRIC      f1 (of the content class, default) or accuracy\n"
          "      --c-range A:B:S      log2 C from A to B step S (default -5:15:2)\n"
          "      --gamma-range A:B:S  log2 gamma (default -15:3:2).  A warning says when\n"
          "                           the chosen point is on the edge of the grid\n"
          "      --search MODE        full (default) or coarse-fine: every other grid\n"
          "                           point, then the full step around the best\n"
          "      --cv-rows N          run the grid CV on a seeded sample of whole groups\n"
          "                           of about N rows (default 20000; 0 = all rows); the\n"
          "                           final model always uses all rows\n"
          "      --cache MB           libsvm kernel cache per training (default 200)\n"
          "  -j, --threads N          grid points in parallel (default: all cores)\n"
          "      --grid-csv FILE      write the grid's CV scores as CSV\n"
          "      --grid-svg FILE      write a heat map of CV F1 (SVG)\n"
          "      --stamp              record the creation date in the bundle (without it\n"
          "                           the same inputs and seed give a byte-identical file)\n"
          "      --upgrade OLD.model  no training: re-save a format 1 bundle (no checksum)\n"
          "                           in the current format, the model unchanged byte for\n"
          "                           byte, with the checksum of its body (-o may name\n"
          "                           OLD.model itself)\n"
          "  -v, --verbose            a line on stderr per finished grid point (also\n"
          "                           when stderr is not a terminal)\n"
          "  -q, --quiet              no progress or notes on stderr\n"
          "  -h, --help               this help\n"
          "  -V, --version            version\n"
          "\n"
          "Exit status: 0 ok; 1 bad input (unreadable or malformed CSV, a column the\n"
          "--features ask for is missing, non-numeric or NaN value, no labelled rows,\n"
          "one class only; messages name the file and line) or training failed;\n"
          "2 usage error; 3 the model or grid files could not be written.\n",
          f);
}

static int parse_range(const char *s, double *a, double *b, double *step)
{
    char *e;
    *a = strtod(s, &e);
    if (e == s || *e != ':')
        return -1;
    s = e + 1;
    *b = strtod(s, &e);
    if (e == s || *e != ':')
        return -1;
    s = e + 1;
    *step = strtod(s, &e);
    if (e == s || *e || !(*step > 0) || *b < *a || (*b - *a) / *step > 1000)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    enum { O_SELECT = 256, O_CRANGE, O_GRANGE, O_SEARCH, O_CVROWS, O_CACHE, O_GCSV, O_GSVG, O_STAMP, O_UPGRADE };
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},   {"features", required_argument, 0, 'f'},
        {"balance", required_argument, 0, 'b'},  {"seed", required_argument, 0, 's'},
        {"folds", required_argument, 0, 'k'},    {"group-by", required_argument, 0, 'g'},
        {"select", required_argument, 0, O_SELECT}, {"c-range", required_argument, 0, O_CRANGE},
        {"gamma-range", required_argument, 0, O_GRANGE}, {"search", required_argument, 0, O_SEARCH},
        {"cv-rows", required_argument, 0, O_CVROWS}, {"cache", required_argument, 0, O_CACHE},
        {"threads", required_argument, 0, 'j'},  {"grid-csv", required_argument, 0, O_GCSV},
        {"grid-svg", required_argument, 0, O_GSVG}, {"stamp", no_argument, 0, O_STAMP},
        {"upgrade", required_argument, 0, O_UPGRADE},
        {"quiet", no_argument, 0, 'q'}, {"verbose", no_argument, 0, 'v'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
    ps_train_options o;
    ps_train_options_init(&o);
    const char *out = NULL, *features = "paper", *grid_csv = NULL, *grid_svg = NULL, *upgrade = NULL;
    ps_train_group group = PS_GROUP_PAGE;
    int stamp = 0, c;
    char *e;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:f:b:s:k:g:j:qvhV", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': features = optarg; break;
        case 'b':
            if (strcmp(optarg, "none") == 0) o.balance = PS_BALANCE_NONE;
            else if (strcmp(optarg, "undersample") == 0) o.balance = PS_BALANCE_UNDERSAMPLE;
            else if (strcmp(optarg, "weight") == 0) o.balance = PS_BALANCE_WEIGHT;
            else {
                fprintf(stderr, "pagesift-train: --balance: '%s' is not none, undersample or weight\n", optarg);
                return 2;
            }
            break;
        case 's':
            o.seed = strtoull(optarg, &e, 10);
            if (e == optarg || *e) {
                fprintf(stderr, "pagesift-train: --seed: '%s' is not a number\n", optarg);
                return 2;
            }
            break;
        case 'k':
            o.folds = (int)strtol(optarg, &e, 10);
            if (e == optarg || *e || o.folds < 2 || o.folds > 1000) {
                fprintf(stderr, "pagesift-train: --folds: '%s' is not a number from 2 to 1000\n", optarg);
                return 2;
            }
            break;
        case 'g':
            if (strcmp(optarg, "page") == 0) group = PS_GROUP_PAGE;
            else if (strcmp(optarg, "site") == 0) group = PS_GROUP_SITE;
            else {
                fprintf(stderr, "pagesift-train: --group-by: '%s' is not page or site\n", optarg);
                return 2;
            }
            break;
        case O_SELECT:
            if (strcmp(optarg, "f1") == 0) o.select_accuracy = 0;
            else if (strcmp(optarg, "accuracy") == 0) o.select_accuracy = 1;
            else {
                fprintf(stderr, "pagesift-train: --select: '%s' is not f1 or accuracy\n", optarg);
                return 2;
            }
            break;
        case O_CRANGE:
        case O_GRANGE:
            if (parse_range(optarg, c == O_CRANGE ? &o.c_start : &o.g_start,
                            c == O_CRANGE ? &o.c_stop : &o.g_stop, c == O_CRANGE ? &o.c_step : &o.g_step)) {
                fprintf(stderr, "pagesift-train: %s: '%s' is not START:STOP:STEP (log2, STEP > 0)\n",
                        c == O_CRANGE ? "--c-range" : "--gamma-range", optarg);
                return 2;
            }
            break;
        case O_SEARCH:
            if (strcmp(optarg, "full") == 0) o.coarse_fine = 0;
            else if (strcmp(optarg, "coarse-fine") == 0) o.coarse_fine = 1;
            else {
                fprintf(stderr, "pagesift-train: --search: '%s' is not full or coarse-fine\n", optarg);
                return 2;
            }
            break;
        case O_CVROWS:
            o.cv_max_rows = strtoull(optarg, &e, 10);
            if (e == optarg || *e) {
                fprintf(stderr, "pagesift-train: --cv-rows: '%s' is not a number\n", optarg);
                return 2;
            }
            break;
        case O_CACHE:
            o.cache_mb = strtod(optarg, &e);
            if (e == optarg || *e || !(o.cache_mb >= 1)) {
                fprintf(stderr, "pagesift-train: --cache: '%s' is not a size in MB (>= 1)\n", optarg);
                return 2;
            }
            break;
        case 'j':
            o.threads = (int)strtol(optarg, &e, 10);
            if (e == optarg || *e || o.threads < 1) {
                fprintf(stderr, "pagesift-train: --threads: '%s' is not a positive number\n", optarg);
                return 2;
            }
            break;
        case O_GCSV: grid_csv = optarg; break;
        case O_GSVG: grid_svg = optarg; break;
        case O_STAMP: stamp = 1; break;
        case O_UPGRADE: upgrade = optarg; break;
        case 'q': o.quiet = 1; break;
        case 'v': o.verbose = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-train %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-train", c, argv);
        }
    }
    if (upgrade) {
        if (!out || optind < argc) {
            fprintf(stderr, "pagesift-train: --upgrade takes one bundle and -o MODEL, no CSV\n");
            return 2;
        }
        ps_error uerr = {0};
        if (ps_model_upgrade(upgrade, out, &uerr) != 0) {
            fprintf(stderr, "pagesift-train: %s\n", uerr.msg);
            return uerr.code == PS_ERR_IO ? 3 : 1;
        }
        if (!o.quiet)
            fprintf(stderr, "pagesift-train: %s: re-saved as format %d with its checksum\n", out,
                    PS_MODEL_FORMAT_VERSION);
        return 0;
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "pagesift-train: %s\n", !out ? "no output model (-o MODEL)" : "no CSV files");
        usage(stderr);
        return 2;
    }
    ps_init();
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_error err = {0};
    ps_train_data *d = ps_train_data_load((const char *const *)argv + optind, (size_t)(argc - optind),
                                          features, group, &err);
    if (!d) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        return err.code == PS_ERR_USAGE ? 2 : 1;
    }
    ps_train_data_info info;
    ps_train_data_get_info(d, &info);
    /* names inference cannot compute: allowed for experiments, but say so */
    {
        char *list = strdup(info.features), *unknown = calloc(1, strlen(info.features) + 1);
        for (char *t = strtok(list, ","); list && unknown && t; t = strtok(NULL, ","))
            if (ps_feature_lookup(t) < 0)
                strcat(strcat(unknown, *unknown ? "," : ""), t);
        if (unknown && *unknown && !o.quiet)
            fprintf(stderr,
                    "pagesift-train: warning: this pagesift does not compute %s; pagesift will "
                    "refuse the model until it does\n",
                    unknown);
        free(list);
        free(unknown);
    }
    printf("# data: %zu labelled rows (%zu content, %zu noise), %zu unlabelled skipped, %zu %s; "
           "features %s; checksum fnv1a64:%016llx\n",
           info.rows, info.content, info.noise, info.unlabelled, info.groups,
           group == PS_GROUP_SITE ? "groups (sites)" : "pages", info.features,
           (unsigned long long)info.checksum);
    fflush(stdout);
    ps_train_grid g;
    if (ps_train_grid_search(d, &o, &g, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        ps_train_data_free(d);
        return err.code == PS_ERR_USAGE ? 2 : 1;
    }
    printf("# grid: %d-fold CV grouped by %s on %zu rows (%zu groups), balance %s, seed %llu, "
           "%zu of %zu points (%s search), %.1f s wall\n",
           g.folds, group == PS_GROUP_SITE ? "site" : "page", g.cv_rows, g.cv_groups,
           o.balance == PS_BALANCE_NONE ? "none" : o.balance == PS_BALANCE_WEIGHT ? "weight" : "undersample",
           (unsigned long long)o.seed, g.evaluated, g.n_c * g.n_g, o.coarse_fine ? "coarse-fine" : "full",
           g.wall_seconds);
    printf("%8s %10s %9s %9s %9s %9s %8s\n", "log2_C", "log2_gamma", "precision", "recall", "F1",
           "accuracy", "cpu_s");
    for (size_t i = 0; i < g.n_c * g.n_g; i++) {
        const ps_train_point *p = &g.points[i];
        if (p->done)
            printf("%8g %10g %9.4f %9.4f %9.4f %9.4f %8.2f%s\n", p->log2c, p->log2g, p->precision,
                   p->recall, p->f1, p->accuracy, p->seconds, i == g.best ? "  <- chosen" : "");
    }
    const ps_train_point *best = &g.points[g.best];
    printf("chosen: log2 C=%g, log2 gamma=%g (C=%g, gamma=%g): CV precision %.4f, recall %.4f, F1 %.4f, "
           "accuracy %.4f (content class, by %s)\n",
           best->log2c, best->log2g, exp2(best->log2c), exp2(best->log2g), best->precision, best->recall,
           best->f1, best->accuracy, o.select_accuracy ? "accuracy" : "F1");
    fflush(stdout);
    /* A point on the edge of the grid: the best may lie beyond what was tried. */
    size_t bi = g.best / g.n_g, bj = g.best % g.n_g;
    const char *c_edge = g.n_c < 2 ? NULL : bi == 0 ? "smallest" : bi == g.n_c - 1 ? "largest" : NULL;
    const char *g_edge = g.n_g < 2 ? NULL : bj == 0 ? "smallest" : bj == g.n_g - 1 ? "largest" : NULL;
    if (c_edge)
        fprintf(stderr, "pagesift-train: warning: the chosen log2 C=%g is the %s of the grid: "
                        "the best may lie beyond it; widen --c-range\n", best->log2c, c_edge);
    if (g_edge)
        fprintf(stderr, "pagesift-train: warning: the chosen log2 gamma=%g is the %s of the grid: "
                        "the best may lie beyond it; widen --gamma-range\n", best->log2g, g_edge);
    int rc = 0;
    if (grid_csv && ps_train_write_grid_csv(&g, grid_csv, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 3;
    }
    char title[256];
    snprintf(title, sizeof title, "pagesift-train: CV F1 of the content class (%s)", info.features);
    if (!rc && grid_svg && ps_train_write_grid_svg(&g, title, grid_svg, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 3;
    }
    double t1 = ps_clock(PS_CLOCK_WALL);
    if (!o.quiet)
        fprintf(stderr, "pagesift-train: training the final model on all %zu rows...\n", info.rows);
    ps_model *m = rc ? NULL : ps_train_final(d, &o, best->log2c, best->log2g, &g, stamp, &err);
    if (!rc && !m) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 1;
    }
    if (m && ps_model_save(m, out, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 3;
    }
    if (m && !rc) {
        struct stat st;
        long long size = stat(out, &st) == 0 ? (long long)st.st_size : -1;
        printf("model: %s (%s support vectors, %s+%s training rows, %lld bytes)\n", out,
               ps_model_info(m, "support_vectors"), ps_model_info(m, "train_rows_content"),
               ps_model_info(m, "train_rows_noise"), size);
        printf("time: grid %.1f s, final model %.1f s, total %.1f s wall\n", g.wall_seconds, ps_clock(PS_CLOCK_WALL) - t1,
               ps_clock(PS_CLOCK_WALL) - t0);
    }
    ps_model_free(m);
    ps_train_grid_free(&g);
    ps_train_data_free(d);
    return rc;
}
