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
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"
#include "pagesift/page_types.h"
#include "pagesift/site_models.h"
#include "pagesift/templates.h"
#include "pagesift/train.h"
#include "pagesift/util.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-train [OPTION]... CSV... -o MODEL\n"
          "  or:  pagesift-train --upgrade OLD.model -o MODEL\n"
          "  or:  pagesift-train --reduce SIZE -m MODEL [--reduce-rows N] [--reduce-refine N] CSV...\n"
          "        -o NEW\n"
          "  or:  pagesift-train --per-site [-m BASE] [--site-of HOST] CSV... -o DIR\n"
          "  or:  pagesift-train --update DIR [-m BASE] [--site-of HOST] CSV...\n"
          "  or:  pagesift-train --page-types [-k N] [-s N] DATASET[=TYPE]... -o MODEL\n"
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
          "      --block-tags LIST    the block tags the bundle records (its block_tags\n"
          "                           key, what pagesift parses pages with), whatever the\n"
          "                           rows' block_tags column says.  Without it: the\n"
          "                           rows' own (every row records the block tags its\n"
          "                           page was cut with); labelled rows cut with\n"
          "                           different block tags are refused (exit 1), rows of\n"
          "                           a CSV without the column count as body,section,div\n"
          "                           (a note on stderr says so)\n"
          "      --stamp              record the creation date in the bundle (without it\n"
          "                           the same inputs and seed give a byte-identical file)\n"
          "      --upgrade OLD.model  no training: re-save a format 1 bundle (no checksum)\n"
          "                           in the current format, the model unchanged byte for\n"
          "                           byte, with the checksum of its body (-o may name\n"
          "                           OLD.model itself)\n"
          "      --reduce SIZE        no training: a reduced-set approximation of the\n"
          "                           bundle -m MODEL (both stages of a stacked one):\n"
          "                           each stage's support vectors replaced by fewer\n"
          "                           centres (k-means of them), coefficients and rho\n"
          "                           fitted by least squares to MODEL's decision values\n"
          "                           on every row of the block CSVs (labelled or not;\n"
          "                           pagesift-features' columns, block_path and\n"
          "                           inner_len for a second stage).  SIZE: a share of\n"
          "                           each stage's support vectors (0.5, 50%), or\n"
          "                           centres N1[,N2] per stage (N2 left out: the share\n"
          "                           of N1).  Prints per stage the RMSE, largest error\n"
          "                           and sign flips against MODEL on every row; the\n"
          "                           bundle records them (reduce_*, docs/MODEL_FORMAT.md)\n"
          "      --reduce-rows N      rows the least squares fits on, a seeded sample\n"
          "                           (-s) of the CSVs' rows (default 20000; 0 = all)\n"
          "      --reduce-refine N    then N gradient steps on the centres (the\n"
          "                           coefficients re-fitted every 10; default 0)\n"
          "\n"
          "Per-site models (docs/SITE_MODELS.md): one bundle per site of the CSVs'\n"
          "labelled rows, DIR/<site key>.model (the template libraries' names), each the\n"
          "base model retrained on its support vectors plus the site's rows counted W\n"
          "times, W chosen by cross-validation over the site's pages; the base's\n"
          "features, scaling and block tags are kept (labelled rows whose block_tags\n"
          "column names other tags than the base's are refused).  With 3 or more\n"
          "labelled pages and a block_path column, the block paths the site's pages\n"
          "agree on (labelled on 2 or more pages, 99 % of their characters one way;\n"
          "not a content path of one text on every page) decide the blocks at those\n"
          "paths on its other pages with at most twice the characters of the longest\n"
          "labelled there, when the same CV says they help (with a weight, or alone:\n"
          "weight 0).  With a block_path column the bundle keeps the site's layout (the\n"
          "paths with text of its labelled pages): pagesift leaves a page with less than\n"
          "a tenth of its text at them to the base.  A site model is\n"
          "written only where it beats the base: its CV F1 (characters of the content\n"
          "class, each held-out page scored through the base's second stage as\n"
          "pagesift scores it) above the base's on the same folds; with one labelled\n"
          "page, where it keeps at least as much of that page's content and drops at\n"
          "least as much of its noise, and more of one.  Otherwise no bundle\n"
          "(--update: the site's old one is removed) and the line says why.  One line\n"
          "per site on stdout.\n"
          "      --per-site           train site models into a new folder -o DIR (refused,\n"
          "                           exit 2, when it holds models, also when another\n"
          "                           run wrote them meanwhile: DIR/.lock)\n"
          "      --update DIR         add or replace the sites of the CSVs in DIR, the\n"
          "                           others untouched (each bundle atomic, its\n"
          "                           site_revision one more; DIR/.lock serialises runs)\n"
          "  -m, --model BASE         the general model site models extend (default: the\n"
          "                           shipped one, or $PAGESIFT_MODEL)\n"
          "      --site-of URL_OR_HOST  every row is this site's (for CSVs without site\n"
          "                           or url values); default: each row's url host, else\n"
          "                           its site column (ps_input_site: pagesift's key)\n"
          "      --site-weights LIST  candidate weights of a site's rows (default\n"
          "                           1,3,10,30; a site with one labelled page gets 3)\n"
          "      --keep-worse         write a site's bundle even when it does not beat\n"
          "                           the base (the numbers still in its line and keys)\n"
          "      --site-gate M        a site model decides only the blocks the base's\n"
          "                           first stage scores within -M..M, where it is unsure\n"
          "                           (default 1, the base's margin; 0: every block, as\n"
          "                           bundles made before the gate)\n"
          "\n"
          "Page types (docs/PAGE_TYPES.md): the page-type classifier from data sets\n"
          "(folders with an index.tsv) whose index has a page_type column; pages\n"
          "without one are left out.  A multi-class RBF SVM over the page signals,\n"
          "C and gamma chosen by k-fold CV grouped by site (-k, default 5) on\n"
          "accuracy, the final model with probabilities (-s seeds them).  stdout: the\n"
          "CV accuracy, per type precision, recall and the confusion matrix.\n"
          "      --page-types         train it into -o MODEL (models/page-types.model is\n"
          "                           the shipped one: scripts/train-page-types); pages\n"
          "                           are parsed with the block tags of -m BASE (default:\n"
          "                           the shipped model), as extraction parses them\n"
          "      DATASET=TYPE         every page of that set is a TYPE (a set without the\n"
          "                           column, e.g. dragnet=article)\n"
          "      --max-pages N        at most N pages of each DATASET=TYPE set, evenly\n"
          "                           spread over its index\n"
          "      --fold K/N, --not-fold K/N  only the pages of site fold K of N, or those\n"
          "                           not in it (docs/INPUTS.md), of every data set;\n"
          "                           given twice, the pages both select (e.g.\n"
          "                           --not-fold 1/5 --not-fold 3/5: a nested CV's\n"
          "                           inner training pages)\n"
          "      --page-hash BLOCKS   hashed token signals beside the 40 hand-made ones\n"
          "                           (docs/PAGE_TYPES.md): c, u, t, x (class and id\n"
          "                           words 256, URL words 96, element names 64,\n"
          "                           structure words 96) or c128, u64, t32, x32 (the\n"
          "                           same in 256 in all), e.g. cutx or c128,u64,t32,x32\n"
          "      --c-range, --gamma-range  with --page-types: the grid (log2; default\n"
          "                           C -1:11:2, gamma -9:1:2), e.g. to explore faster\n"
          "\n"
          "  -v, --verbose            a line on stderr per finished grid point (also\n"
          "                           when stderr is not a terminal)\n"
          "  -q, --quiet              no progress or notes on stderr\n"
          "  -h, --help               this help\n"
          "  -V, --version            version\n"
          "\n"
          "Exit status: 0 ok; 1 bad input (unreadable or malformed CSV, a column the\n"
          "--features ask for is missing, non-numeric or NaN value, no labelled rows,\n"
          "one class only; messages name the file and line; --reduce: a bundle that\n"
          "cannot be read, or the fit failed) or training failed (per\n"
          "site: the other sites are still written);\n"
          "2 usage error; 3 the model or grid files could not be written.\n",
          f);
}

/* ---- per-site models (--per-site, --update DIR, --site-of) ------------- */

/* The site key of @p url_or_host by the one rule (ps_input_site): a URL's
 * host, a bare host lower-cased the same way. */
static int site_of_arg(const char *arg, char *out, size_t cap)
{
    char url[2048];
    if (strstr(arg, "://"))
        snprintf(url, sizeof url, "%s", arg);
    else
        snprintf(url, sizeof url, "http://%s/", arg);
    ps_input in = {0};
    in.url = url;
    ps_input_site(&in, PS_SITE_HOST, out, cap);
    return out[0] ? 0 : -1;
}

static int parse_weights(const char *s, double *w, size_t *n)
{
    char *copy = strdup(s), *save = NULL, *e;
    *n = 0;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        double v = strtod(t, &e);
        if (e == t || *e || !(v >= 1 && v <= 1000) || v != floor(v) || *n == 16) {
            free(copy);
            return -1;
        }
        w[(*n)++] = v;
    }
    free(copy);
    return *n ? 0 : -1;
}

/* A new folder (--per-site -o DIR) must not hold bundles already: replacing
 * some sites of it is --update's job.  1 (said on stderr) when it does. */
static int holds_sites(const char *dir, const ps_model *base)
{
    ps_error err = {0};
    ps_site_models *old = ps_site_models_open(dir, base, 0, &err);
    size_t n_old = ps_site_models_count(old);
    ps_site_models_free(old);
    if (n_old)
        fprintf(stderr, "pagesift-train: %s already holds %zu site model%s: use --update %s to add or "
                        "replace sites\n", dir, n_old, n_old == 1 ? "" : "s", dir);
    return n_old != 0;
}

/* The line of a site model written: its rows, weight, the CV (or the one
 * page's check), support vectors, paths, layout and where it went. */
static void print_site_report(const char *site, const ps_site_train_report *rep, const ps_model *sm,
                              const char *dir, const char *name)
{
    printf("site %s: %zu pages, %zu content + %zu noise rows, weight %g", site, rep->pages, rep->content, rep->noise,
           rep->weight);
    if (rep->folds) {
        printf(" (CV F1 over %d page folds:", rep->folds);
        for (size_t k = 0; k < rep->n_cv; k++)
            printf(" w%g %.4f", rep->cv_w[k], rep->cv_f1[k]);
        printf("; default model %.4f", rep->cv_f1_base);
        if (rep->paths_judged) {
            printf("; with paths:");
            for (size_t k = 0; k < rep->n_cv; k++)
                printf(" w%g %.4f", rep->cv_w[k], rep->cv_f1_paths[k]);
            printf(", paths alone %.4f", rep->cv_f1_paths_only);
        }
        printf(")");
    } else {
        printf(" (one page: no CV; on it, content kept %.1f %% and noise dropped %.1f %%, default "
               "model %.1f %% and %.1f %%)",
               100 * rep->kept[0], 100 * rep->dropped[0], 100 * rep->kept[1], 100 * rep->dropped[1]);
    }
    const char *lay = ps_model_info(sm, "site_layout_paths");
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') /* "-o site-models/" names site-models/X.model */
        dl--;
    printf(", %s support vectors, %zu block paths, a layout of %s paths, %.1f s -> %.*s/%s\n",
           ps_model_info(sm, "support_vectors"), rep->paths, lay ? lay : "0", rep->seconds, (int)dl, dir, name);
    fflush(stdout);
}

static int train_sites(char **paths, int n_paths, const char *base_path, const char *dir, int update,
                       const char *site_of_arg_s, const char *weights_s, int keep_worse, const char *gate_s,
                       uint64_t seed, int quiet)
{
    ps_init();
    ps_error err = {0};
    const char *bp = base_path ? base_path : ps_model_default_path();
    ps_model *base = ps_model_load(bp, &err);
    if (!base) {
        fprintf(stderr, "pagesift-train: base model: %s\n", err.msg);
        ps_cli_model_hint("pagesift-train", base_path);
        return 3;
    }
    /* a stacked base: site models are judged (CV, the one-page check)
     * through its second stage, as pagesift uses them */
    ps_model *second = ps_model_next_stage(base, &err);
    if (!second && err.code) {
        fprintf(stderr, "pagesift-train: base model: %s\n", err.msg);
        ps_model_free(base);
        return 3;
    }
    char site_of[1024] = "";
    if (site_of_arg_s && site_of_arg(site_of_arg_s, site_of, sizeof site_of) != 0) {
        fprintf(stderr, "pagesift-train: --site-of: '%s' is neither a URL nor a host name\n", site_of_arg_s);
        ps_model_free(second);
        ps_model_free(base);
        return 2;
    }
    double w[16];
    ps_site_train_options so = {0};
    so.seed = seed;
    so.keep_worse = keep_worse;
    if (gate_s) {
        char *end;
        double g = strtod(gate_s, &end);
        if (end == gate_s || *end || !(g >= 0 && g <= 100)) {
            fprintf(stderr, "pagesift-train: --site-gate: '%s' is not a number from 0 to 100\n", gate_s);
            ps_model_free(second);
            ps_model_free(base);
            return 2;
        }
        so.gate = g > 0 ? g : -1; /* 0: no gate */
    }
    if (weights_s) {
        if (parse_weights(weights_s, w, &so.n_weights) != 0) {
            fprintf(stderr, "pagesift-train: --site-weights: '%s' is not a comma list of 1 to 16 whole "
                            "numbers from 1 to 1000\n", weights_s);
            ps_model_free(second);
        ps_model_free(base);
            return 2;
        }
        so.weights = w;
    }
    if (!update && holds_sites(dir, base)) { /* at once, before the rows are read */
        ps_model_free(second);
        ps_model_free(base);
        return 2;
    }
    ps_site_rows *rows = ps_site_rows_read(paths, (size_t)n_paths, base, site_of[0] ? site_of : NULL, &err);
    int rc = 0;
    if (!rows) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 1;
    }
    int lock = -1;
    if (!rc) {
        int waited = 0;
        lock = ps_template_dir_lock(dir, &waited, &err);
        if (lock < 0) {
            fprintf(stderr, "pagesift-train: %s\n", err.msg);
            rc = 3;
        }
    }
    /* and again under the folder's lock, which decides: looked at only
     * before it, two runs at once both found the folder empty, both wrote,
     * and their sites merged (issue 32) */
    if (!rc && !update && holds_sites(dir, base))
        rc = 2;
    size_t written = 0, failed = 0, n_sites = 0, declined = 0;
    so.second = second;
    for (size_t s = 0; !rc && s < ps_site_rows_sites(rows); s++) {
        ps_site_rows_view v;
        const char *site = ps_site_rows_site(rows, s, &v, &so);
        if (!v.labelled) /* unlabelled rows only */
            continue;
        n_sites++;
        ps_site_train_report rep;
        char name[1024];
        ps_site_model_file_name(site, name, sizeof name);
        ps_model *sm = ps_site_model_train(base, bp, site, v.x, v.y, v.page, v.n, &so, &rep, &err);
        if (!sm && rep.declined) {
            /* never worse: no bundle; and under --update the site's old one
             * goes too, its new labels say the default does at least as well */
            char old[4096];
            snprintf(old, sizeof old, "%s/%s", dir, name);
            int removed = update && unlink(old) == 0;
            printf("%s%s\n", err.msg, removed ? "; its old bundle removed" : "");
            fflush(stdout);
            declined++;
        } else if (!sm || ps_site_model_save(sm, dir, &err) != 0) {
            fprintf(stderr, "pagesift-train: %s\n", err.msg);
            failed++;
            if (sm && err.code == PS_ERR_IO)
                rc = 3;
        } else {
            print_site_report(site, &rep, sm, dir, name);
            written++;
        }
        memset(&err, 0, sizeof err);
        ps_model_free(sm);
    }
    ps_template_dir_unlock(lock);
    size_t n_lab = 0, unlabelled = 0;
    ps_site_rows_counts(rows, &n_lab, &unlabelled);
    if (!quiet && !rc)
        fprintf(stderr, "pagesift-train: %zu of %zu site model%s written to %s, %zu declined (not better than "
                        "the default model) (%zu labelled rows; %zu unlabelled rows, read for the context "
                        "features only)\n",
                written, n_sites, n_sites == 1 ? "" : "s", dir, declined, n_lab, unlabelled);
    ps_site_rows_free(rows);
    ps_model_free(second);
    ps_model_free(base);
    return rc ? rc : failed ? 1 : 0;
}

/* --page-types: the page-type classifier from data sets with a page_type
 * column (library: ps_page_types_train). */
static int train_page_types(const char *out, char *const *dirs, size_t n, const ps_train_options *o,
                            int folds_given, const char *base_model, const ps_fold *pages, size_t max_pages,
                            const char *hash, int range_given)
{
    if (!out || n == 0) {
        fprintf(stderr, "pagesift-train: --page-types takes data set folders and -o MODEL\n");
        return 2;
    }
    /* pages are parsed as extraction parses them: with the block model's tags */
    ps_error err = {0};
    const char *bp = base_model ? base_model : ps_model_default_path();
    ps_model *base = ps_model_load(bp, &err);
    if (!base) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        return 1;
    }
    const char *bt = ps_model_info(base, "block_tags");
    char *tags_text = bt ? strdup(bt) : NULL;
    const char **tags = tags_text ? ps_split_list(tags_text) : NULL;
    ps_model_free(base);
    ps_page_types_train_options po = {.folds = folds_given ? (unsigned)o->folds : 5,
                                      .seed = (unsigned)o->seed,
                                      .verbose = o->verbose,
                                      .block_tags = tags,
                                      .pages = pages[0],
                                      .pages2 = pages[1],
                                      .max_per_set = max_pages,
                                      .hash = hash};
    if (range_given) {
        po.grid_given = 1;
        po.c_lo = (int)o->c_start, po.c_hi = (int)o->c_stop, po.c_step = (int)o->c_step;
        po.g_lo = (int)o->g_start, po.g_hi = (int)o->g_stop, po.g_step = (int)o->g_step;
        if (po.c_lo != o->c_start || po.c_hi != o->c_stop || po.c_step != o->c_step || po.c_step < 1 ||
            po.g_lo != o->g_start || po.g_hi != o->g_stop || po.g_step != o->g_step || po.g_step < 1) {
            fprintf(stderr, "pagesift-train: --page-types: --c-range and --gamma-range take whole numbers\n");
            free(tags);
            free(tags_text);
            return 2;
        }
    }
    ps_buf b = {0};
    ps_page_types_cv cv = {0};
    if (!o->quiet)
        fprintf(stderr, "pagesift-train: page types: reading %zu data set%s, then a %u-fold grid by site\n", n,
                n == 1 ? "" : "s", po.folds);
    int trc = ps_page_types_train((const char *const *)dirs, n, &po, &b, &cv, &err) != 0 ||
              ps_write_file_atomic(out, b.data, b.len, &err) != 0;
    free(tags);
    free(tags_text);
    if (trc) {
        ps_buf_free(&b);
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        return err.code == PS_ERR_IO ? 3 : 1;
    }
    ps_page_types *m = ps_page_types_parse(b.data, b.len, out, &err);
    ps_buf_free(&b);
    if (!m) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        return 1;
    }
    /* the CV, per type: recall and precision from the confusion matrix */
    char conf[4096];
    size_t k = ps_page_types_count(m);
    unsigned *c = calloc(k * k + 1, sizeof *c);
    const char *p = ps_page_types_info(m, "cv_confusion", conf, sizeof conf);
    for (size_t i = 0; p && c && i < k * k; i++) {
        char *e;
        c[i] = (unsigned)strtoul(p, &e, 10);
        p = *e ? e + 1 : e;
    }
    printf("page types: %zu pages, %u-fold CV by site: accuracy %.4f (log2 C %d, log2 gamma %d)\n", cv.pages,
           po.folds, cv.accuracy, cv.log2_c, cv.log2_gamma);
    printf("%-14s %6s %9s %6s  predicted as:", "type", "pages", "precision", "recall");
    for (size_t j = 0; j < k; j++)
        printf(" %.4s", ps_page_types_label(m, j));
    printf("\n");
    for (size_t i = 0; c && i < k; i++) {
        unsigned row = 0, col = 0;
        for (size_t j = 0; j < k; j++) {
            row += c[i * k + j];
            col += c[j * k + i];
        }
        printf("%-14s %6u %9.3f %6.3f  %*s", ps_page_types_label(m, i), row,
               col ? (double)c[i * k + i] / col : 0.0, row ? (double)c[i * k + i] / row : 0.0, 13, "");
        for (size_t j = 0; j < k; j++)
            printf(" %4u", c[i * k + j]);
        printf("\n");
    }
    free(c);
    ps_page_types_free(m);
    return 0;
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

/* The long options without a short one. */
enum { O_SELECT = 256, O_CRANGE, O_GRANGE, O_SEARCH, O_CVROWS, O_CACHE, O_GCSV, O_GSVG, O_STAMP, O_UPGRADE,
       O_PERSITE, O_UPDATE, O_SITEOF, O_SITEW, O_KEEPWORSE, O_SITEGATE, O_PAGETYPES, O_FOLD, O_NOTFOLD, O_MAXPAGES,
       O_BLOCKTAGS, O_REDUCE, O_REDUCEROWS, O_REDUCEREFINE, O_PAGEHASH };

/* What the command line asks for. */
typedef struct train_cli {
    ps_train_options o;
    const char *out, *features, *grid_csv, *grid_svg, *upgrade;
    const char *block_tags;         /* --block-tags: the bundle's, no check of the rows */
    const char *update, *base_model, *site_of, *site_weights, *site_gate; /* site models */
    int keep_worse, per_site, page_types, folds_given;
    const char *page_hash;          /* --page-hash SPEC */
    int range_given;                /* --c-range or --gamma-range given */
    ps_fold page_fold[2];           /* --fold / --not-fold, at most twice */
    int n_page_folds;
    unsigned long long max_pages;
    ps_train_group group;
    int stamp;
    const char *reduce;             /* --reduce SIZE */
    int reduce_opts;                /* --reduce-rows or --reduce-refine given */
    ps_reduce_options ro;
} train_cli;

/* parse_option, parse_options: GO_ON to carry on, else the exit status */
enum { GO_ON = -1 };

/* One option @p c of the command line (its argument in optarg). */
static int parse_option(train_cli *t, int c, char **argv)
{
    char *e;
    switch (c) {
    case 'o': t->out = optarg; break;
    case 'f': t->features = optarg; break;
    case 'b':
        if (strcmp(optarg, "none") == 0) t->o.balance = PS_BALANCE_NONE;
        else if (strcmp(optarg, "undersample") == 0) t->o.balance = PS_BALANCE_UNDERSAMPLE;
        else if (strcmp(optarg, "weight") == 0) t->o.balance = PS_BALANCE_WEIGHT;
        else {
            fprintf(stderr, "pagesift-train: --balance: '%s' is not none, undersample or weight\n", optarg);
            return 2;
        }
        break;
    case 's':
        t->o.seed = strtoull(optarg, &e, 10);
        if (e == optarg || *e) {
            fprintf(stderr, "pagesift-train: --seed: '%s' is not a number\n", optarg);
            return 2;
        }
        break;
    case 'k':
        t->folds_given = 1;
        t->o.folds = (int)strtol(optarg, &e, 10);
        if (e == optarg || *e || t->o.folds < 2 || t->o.folds > 1000) {
            fprintf(stderr, "pagesift-train: --folds: '%s' is not a number from 2 to 1000\n", optarg);
            return 2;
        }
        break;
    case 'g':
        if (strcmp(optarg, "page") == 0) t->group = PS_GROUP_PAGE;
        else if (strcmp(optarg, "site") == 0) t->group = PS_GROUP_SITE;
        else {
            fprintf(stderr, "pagesift-train: --group-by: '%s' is not page or site\n", optarg);
            return 2;
        }
        break;
    case O_SELECT:
        if (strcmp(optarg, "f1") == 0) t->o.select_accuracy = 0;
        else if (strcmp(optarg, "accuracy") == 0) t->o.select_accuracy = 1;
        else {
            fprintf(stderr, "pagesift-train: --select: '%s' is not f1 or accuracy\n", optarg);
            return 2;
        }
        break;
    case O_CRANGE:
    case O_GRANGE:
        t->range_given = 1;
        if (parse_range(optarg, c == O_CRANGE ? &t->o.c_start : &t->o.g_start,
                        c == O_CRANGE ? &t->o.c_stop : &t->o.g_stop, c == O_CRANGE ? &t->o.c_step : &t->o.g_step)) {
            fprintf(stderr, "pagesift-train: %s: '%s' is not START:STOP:STEP (log2, STEP > 0)\n",
                    c == O_CRANGE ? "--c-range" : "--gamma-range", optarg);
            return 2;
        }
        break;
    case O_SEARCH:
        if (strcmp(optarg, "full") == 0) t->o.coarse_fine = 0;
        else if (strcmp(optarg, "coarse-fine") == 0) t->o.coarse_fine = 1;
        else {
            fprintf(stderr, "pagesift-train: --search: '%s' is not full or coarse-fine\n", optarg);
            return 2;
        }
        break;
    case O_CVROWS:
        t->o.cv_max_rows = strtoull(optarg, &e, 10);
        if (e == optarg || *e) {
            fprintf(stderr, "pagesift-train: --cv-rows: '%s' is not a number\n", optarg);
            return 2;
        }
        break;
    case O_CACHE:
        t->o.cache_mb = strtod(optarg, &e);
        if (e == optarg || *e || !(t->o.cache_mb >= 1)) {
            fprintf(stderr, "pagesift-train: --cache: '%s' is not a size in MB (>= 1)\n", optarg);
            return 2;
        }
        break;
    case 'j':
        t->o.threads = (int)strtol(optarg, &e, 10);
        if (e == optarg || *e || t->o.threads < 1) {
            fprintf(stderr, "pagesift-train: --threads: '%s' is not a positive number\n", optarg);
            return 2;
        }
        break;
    case O_GCSV: t->grid_csv = optarg; break;
    case O_GSVG: t->grid_svg = optarg; break;
    case O_STAMP: t->stamp = 1; break;
    case O_BLOCKTAGS: t->block_tags = optarg; break;
    case O_PAGEHASH: t->page_hash = optarg; break;
    case O_UPGRADE: t->upgrade = optarg; break;
    case O_REDUCE: t->reduce = optarg; break;
    case O_REDUCEREFINE: {
        long v = strtol(optarg, &e, 10);
        if (e == optarg || *e || v < 0 || v > 100000) {
            fprintf(stderr, "pagesift-train: --reduce-refine: '%s' is not a number of steps\n", optarg);
            return 2;
        }
        t->ro.refine_iters = (int)v;
        t->reduce_opts = 1;
        break;
    }
    case O_REDUCEROWS:
        t->reduce_opts = 1;
        t->ro.fit_rows = strtoull(optarg, &e, 10);
        if (e == optarg || *e || optarg[0] == '-') {
            fprintf(stderr, "pagesift-train: --reduce-rows: '%s' is not a number\n", optarg);
            return 2;
        }
        break;
    case O_PERSITE: t->per_site = 1; break;
    case O_PAGETYPES: t->page_types = 1; break;
    case O_MAXPAGES:
        t->max_pages = strtoull(optarg, &e, 10);
        if (e == optarg || *e) {
            fprintf(stderr, "pagesift-train: --max-pages: '%s' is not a number\n", optarg);
            return 2;
        }
        break;
    case O_FOLD:
    case O_NOTFOLD: {
        ps_error fe = {0};
        if (t->n_page_folds == 2) {
            fprintf(stderr, "pagesift-train: --fold and --not-fold: at most two\n");
            return 2;
        }
        ps_fold *pf = &t->page_fold[t->n_page_folds++];
        if (ps_fold_parse(optarg, pf, &fe) != 0) {
            fprintf(stderr, "pagesift-train: --%s: %s\n", c == O_FOLD ? "fold" : "not-fold", fe.msg);
            return 2;
        }
        pf->complement = c == O_NOTFOLD;
        break;
    }
    case O_UPDATE: t->update = optarg; break;
    case 'm': t->base_model = optarg; break;
    case O_SITEOF: t->site_of = optarg; break;
    case O_SITEW: t->site_weights = optarg; break;
    case O_KEEPWORSE: t->keep_worse = 1; break;
    case O_SITEGATE: t->site_gate = optarg; break;
    case 'q': t->o.quiet = 1; break;
    case 'v': t->o.verbose = 1; break;
    case 'h': usage(stdout); return 0;
    case 'V': printf("pagesift-train %s\n", ps_version()); return 0;
    default: return ps_cli_bad_option("pagesift-train", c, argv);
    }
    return GO_ON;
}

static int parse_options(train_cli *t, int argc, char **argv)
{
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
        {"reduce", required_argument, 0, O_REDUCE}, {"reduce-rows", required_argument, 0, O_REDUCEROWS},
        {"reduce-refine", required_argument, 0, O_REDUCEREFINE},
        {"per-site", no_argument, 0, O_PERSITE}, {"update", required_argument, 0, O_UPDATE},
        {"model", required_argument, 0, 'm'}, {"site-of", required_argument, 0, O_SITEOF},
        {"site-weights", required_argument, 0, O_SITEW}, {"keep-worse", no_argument, 0, O_KEEPWORSE},
        {"site-gate", required_argument, 0, O_SITEGATE}, {"page-types", no_argument, 0, O_PAGETYPES},
        {"page-hash", required_argument, 0, O_PAGEHASH},
        {"fold", required_argument, 0, O_FOLD}, {"not-fold", required_argument, 0, O_NOTFOLD},
        {"max-pages", required_argument, 0, O_MAXPAGES}, {"block-tags", required_argument, 0, O_BLOCKTAGS},
        {"quiet", no_argument, 0, 'q'}, {"verbose", no_argument, 0, 'v'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
    int c;
    ps_train_options_init(&t->o);
    ps_reduce_options_init(&t->ro);
    t->features = "paper";
    t->group = PS_GROUP_PAGE;
    ps_cli_report_as("pagesift-train"); /* the library's messages: "pagesift-train: ..." */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:f:b:s:k:g:j:m:qvhV", opts, NULL)) != -1) {
        int rc = parse_option(t, c, argv);
        if (rc != GO_ON)
            return rc;
    }
    return GO_ON;
}

/* --upgrade BUNDLE -o MODEL: re-save a bundle in the current format. */
static int run_upgrade(const train_cli *t, int argc)
{
    if (!t->out || optind < argc) {
        fprintf(stderr, "pagesift-train: --upgrade takes one bundle and -o MODEL, no CSV\n");
        return 2;
    }
    ps_error uerr = {0};
    if (ps_model_upgrade(t->upgrade, t->out, &uerr) != 0) {
        fprintf(stderr, "pagesift-train: %s\n", uerr.msg);
        return uerr.code == PS_ERR_IO ? 3 : 1;
    }
    if (!t->o.quiet)
        fprintf(stderr, "pagesift-train: %s: re-saved as format %d with its checksum\n", t->out,
                PS_MODEL_FORMAT_VERSION);
    return 0;
}

/* --reduce SIZE: a share ("0.5", "50%") or counts "N1[,N2]" into @p o.
 * 0, or -1 when it is neither. */
static int parse_reduce_size(const char *s, ps_reduce_options *o)
{
    char *e;
    if (strchr(s, '.') || strchr(s, '%')) {
        double v = strtod(s, &e);
        if (e == s)
            return -1;
        if (*e == '%') {
            v /= 100;
            e++;
        }
        if (*e || !(v > 0 && v < 1))
            return -1;
        o->share = v;
        return 0;
    }
    for (int k = 0; k < 2; k++) {
        if (!(*s >= '0' && *s <= '9'))
            return -1;
        unsigned long long v = strtoull(s, &e, 10);
        if (e == s || v < 2 || v > 100000000)
            return -1;
        o->n_sv[k] = (size_t)v;
        if (!*e)
            return 0;
        if (*e != ',' || k == 1)
            return -1;
        s = e + 1;
    }
    return -1;
}

/* --reduce SIZE -m MODEL CSV... -o NEW: a reduced-set approximation. */
static int run_reduce(train_cli *t, int argc, char **argv)
{
    if (!t->out || !t->base_model || optind >= argc) {
        fprintf(stderr, "pagesift-train: --reduce takes the bundle to reduce (-m MODEL), the block CSVs to fit "
                        "on and -o NEW\n");
        return 2;
    }
    if (parse_reduce_size(t->reduce, &t->ro) != 0) {
        fprintf(stderr, "pagesift-train: --reduce: '%s' is neither a share between 0 and 1 (0.5, 50%%) nor "
                        "centres per stage N1[,N2] (each at least 2)\n", t->reduce);
        return 2;
    }
    if (t->per_site || t->update || t->site_of || t->site_weights || t->keep_worse || t->site_gate || t->page_types ||
        t->upgrade) {
        fprintf(stderr, "pagesift-train: --reduce goes with -m, -s, --reduce-rows, -q and -o only\n");
        return 2;
    }
    t->ro.seed = t->o.seed;
    ps_buf b = {0};
    ps_reduce_report rep;
    ps_error rerr = {0};
    if (ps_model_reduce(t->base_model, (const char *const *)argv + optind, (size_t)(argc - optind), &t->ro, &b, &rep,
                        &rerr) != 0) {
        fprintf(stderr, "pagesift-train: %s\n", rerr.msg);
        return rerr.code == PS_ERR_USAGE ? 2 : 1;
    }
    int rc = ps_write_file_atomic(t->out, b.data, b.len, &rerr) == 0 ? 0 : 3;
    ps_buf_free(&b);
    if (rc) {
        fprintf(stderr, "pagesift-train: %s\n", rerr.msg);
        return rc;
    }
    printf("reduce: %s: %zu rows of %zu pages, %.1f s\n", t->base_model, rep.rows, rep.pages, rep.seconds);
    for (size_t k = 0; k < rep.n_stages; k++) {
        const ps_reduce_stage_report *st = &rep.stage[k];
        printf("stage %zu: %zu -> %zu support vectors, fitted on %zu rows; %s on %zu rows: RMSE %.4f, "
               "largest error %.3f, sign flips %zu (%.3f %%)\n",
               k + 1, st->sv_before, st->sv_after, st->fit_rows, k ? "the stack's final scores" : "decision values",
               st->rows, st->rmse, st->max_error, st->sign_flips,
               st->rows ? 100.0 * (double)st->sign_flips / (double)st->rows : 0.0);
    }
    if (rep.n_stages == 2)
        printf("(the first stage reduced, the second not: RMSE %.4f, largest error %.3f, sign flips %zu of the "
               "final scores)\n", rep.first_only.rmse, rep.first_only.max_error, rep.first_only.sign_flips);
    printf("model: %s\n", t->out);
    return 0;
}

/* --per-site / --update: site models from the CSV files. */
static int run_sites(const train_cli *t, int argc, char **argv)
{
    if (!t->per_site && !t->update) {
        fprintf(stderr, "pagesift-train: -m, --site-of, --site-weights, --keep-worse and --site-gate are for site "
                        "models: add --per-site -o DIR or --update DIR\n");
        return 2;
    }
    if ((t->per_site && t->update) || (t->per_site && !t->out) || (t->update && t->out) || optind >= argc) {
        fprintf(stderr, "pagesift-train: %s\n",
                optind >= argc ? "no CSV files"
                               : "site models go to one folder: --per-site -o DIR (new) or --update DIR");
        return 2;
    }
    return train_sites(argv + optind, argc - optind, t->base_model, t->update ? t->update : t->out, t->update != NULL,
                       t->site_of, t->site_weights, t->keep_worse, t->site_gate, t->o.seed, t->o.quiet);
}

/* The grid search's table, its choice and a warning when the choice is on
 * the grid's edge. */
static void print_grid(const train_cli *t, const ps_train_grid *gp)
{
    const ps_train_grid g = *gp;
    printf("# grid: %d-fold CV grouped by %s on %zu rows (%zu groups), balance %s, seed %llu, "
           "%zu of %zu points (%s search), %.1f s wall\n",
           g.folds, t->group == PS_GROUP_SITE ? "site" : "page", g.cv_rows, g.cv_groups,
           t->o.balance == PS_BALANCE_NONE ? "none" : t->o.balance == PS_BALANCE_WEIGHT ? "weight" : "undersample",
           (unsigned long long)t->o.seed, g.evaluated, g.n_c * g.n_g, t->o.coarse_fine ? "coarse-fine" : "full",
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
           best->f1, best->accuracy, t->o.select_accuracy ? "accuracy" : "F1");
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
}

/* The block classifier: the rows of the CSV files, the grid search, the
 * final model. */
static int run_grid(train_cli *t, int argc, char **argv)
{
    ps_init();
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_error err = {0};
    ps_train_data *d = ps_train_data_load_tags((const char *const *)argv + optind, (size_t)(argc - optind),
                                               t->features, t->group, t->block_tags, &err);
    if (!d) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        return err.code == PS_ERR_USAGE ? 2 : 1;
    }
    ps_train_data_info info;
    ps_train_data_get_info(d, &info);
    if (info.untagged && !t->o.quiet)
        fprintf(stderr,
                "pagesift-train: note: %zu labelled rows (%s) record no block tags (no block_tags "
                "column: a CSV of before it, or empty cells); taken as cut with %s%s\n",
                info.untagged, info.untagged_files, t->block_tags ? t->block_tags : "body,section,div",
                t->block_tags ? " (--block-tags)" : ", the default (if they were cut with others, "
                "say which with --block-tags LIST)");
    /* names inference cannot compute: allowed for experiments, but say so */
    {
        char *list = strdup(info.features), *unknown = calloc(1, strlen(info.features) + 1);
        for (char *t = strtok(list, ","); list && unknown && t; t = strtok(NULL, ","))
            if (ps_feature_lookup(t) < 0)
                strcat(strcat(unknown, *unknown ? "," : ""), t);
        if (unknown && *unknown && !t->o.quiet)
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
           t->group == PS_GROUP_SITE ? "groups (sites)" : "pages", info.features,
           (unsigned long long)info.checksum);
    fflush(stdout);
    ps_train_grid g;
    if (ps_train_grid_search(d, &t->o, &g, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        ps_train_data_free(d);
        return err.code == PS_ERR_USAGE ? 2 : 1;
    }
    print_grid(t, &g);
    const ps_train_point *best = &g.points[g.best];
    int rc = 0;
    if (t->grid_csv && ps_train_write_grid_csv(&g, t->grid_csv, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 3;
    }
    char title[256];
    snprintf(title, sizeof title, "pagesift-train: CV F1 of the content class (%s)", info.features);
    if (!rc && t->grid_svg && ps_train_write_grid_svg(&g, title, t->grid_svg, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 3;
    }
    double t1 = ps_clock(PS_CLOCK_WALL);
    if (!t->o.quiet)
        fprintf(stderr, "pagesift-train: training the final model on all %zu rows...\n", info.rows);
    ps_model *m = rc ? NULL : ps_train_final(d, &t->o, best->log2c, best->log2g, &g, t->stamp, &err);
    if (!rc && !m) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 1;
    }
    if (m && ps_model_save(m, t->out, &err)) {
        fprintf(stderr, "pagesift-train: %s\n", err.msg);
        rc = 3;
    }
    if (m && !rc) {
        struct stat st;
        long long size = stat(t->out, &st) == 0 ? (long long)st.st_size : -1;
        printf("model: %s (%s support vectors, %s+%s training rows, %lld bytes)\n", t->out,
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

int main(int argc, char **argv)
{
    train_cli t = {0};
    int rc = parse_options(&t, argc, argv);
    if (rc != GO_ON)
        return rc;
    if (t.page_hash && !t.page_types) {
        fprintf(stderr, "pagesift-train: --page-hash goes with --page-types\n");
        return 2;
    }
    if (t.n_page_folds && !t.page_types) {
        fprintf(stderr, "pagesift-train: --fold and --not-fold go with --page-types\n");
        return 2;
    }
    if (t.page_types)
        return train_page_types(t.out, argv + optind, (size_t)(argc - optind), &t.o, t.folds_given, t.base_model,
                                t.page_fold, (size_t)t.max_pages, t.page_hash, t.range_given);
    if (t.upgrade)
        return run_upgrade(&t, argc);
    if (t.reduce)
        return run_reduce(&t, argc, argv);
    if (t.reduce_opts) {
        fprintf(stderr, "pagesift-train: --reduce-rows and --reduce-refine go with --reduce\n");
        return 2;
    }
    if (t.per_site || t.update || t.site_of || t.site_weights || t.base_model || t.keep_worse || t.site_gate)
        return run_sites(&t, argc, argv);
    if (!t.out || optind >= argc) {
        fprintf(stderr, "pagesift-train: %s\n", !t.out ? "no output model (-o MODEL)" : "no CSV files");
        usage(stderr);
        return 2;
    }
    return run_grid(&t, argc, argv);
}
