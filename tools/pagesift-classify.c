/* pagesift-classify — apply a model bundle to block CSVs (the format of
 * pagesift-features, docs/BLOCK_CSV.md): one output row per input row with
 * the SVM's decision value and class.  Used to measure a model on held-out
 * blocks (scripts/quality-*) and by annotators to see what a model says about
 * the blocks they label. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-classify -m MODEL [OPTION]... CSV...\n"
          "Classify every row of block CSVs written by pagesift-features with the\n"
          "model bundle MODEL (pagesift-train).  The model's feature columns must be\n"
          "in the CSV.  Writes a CSV: dataset,page_id,block_id,label,score,pred\n"
          "(label copied from the input, may be empty; score = SVM decision value,\n"
          "> 0 leaning to content; pred = 1 content / 0 noise), rows in input order.\n"
          "\n"
          "  -m, --model MODEL   model bundle (required)\n"
          "  -o, --output FILE   write to FILE instead of standard output\n"
          "  -q, --quiet         no summary on standard error\n"
          "  -h, --help          this help\n"
          "  -V, --version       version\n"
          "\n"
          "Summary on standard error: rows, and for labelled rows precision, recall\n"
          "and F1 of the content class.\n"
          "\n"
          "Exit status: 0 ok; 1 a CSV is unreadable or malformed (file and line\n"
          "named); 2 usage error; 3 the model cannot be loaded or the output cannot\n"
          "be written.\n",
          f);
}

static int classify_file(const ps_model *m, const char *path, FILE *out, size_t counts[4],
                         size_t *rows)
{
    ps_error err = {0};
    ps_csv *csv = ps_csv_open(path, &err);
    if (!csv) {
        fprintf(stderr, "pagesift-classify: %s\n", err.msg);
        return 1;
    }
    size_t nf = ps_model_n_features(m);
    int cols[PS_MODEL_MAX_FEATURES];
    char *names = strdup(ps_model_feature_names(m));
    if (!names) {
        ps_csv_close(csv);
        fprintf(stderr, "pagesift-classify: out of memory\n");
        return 1;
    }
    size_t k = 0;
    int bad = 0;
    char *save = NULL;
    for (char *t = strtok_r(names, ",", &save); t && k < nf; t = strtok_r(NULL, ",", &save)) {
        cols[k] = ps_csv_require(csv, t, &err);
        if (cols[k] < 0) {
            fprintf(stderr, "pagesift-classify: %s (the model needs it)\n", err.msg);
            bad = 1;
            break;
        }
        k++;
    }
    free(names);
    int c_ds = ps_csv_column(csv, "dataset"), c_id = ps_csv_column(csv, "page_id");
    int c_block = ps_csv_column(csv, "block_id"), c_label = ps_csv_column(csv, "label");
    if (!bad && (c_id < 0 || c_block < 0)) {
        fprintf(stderr, "pagesift-classify: %s: line 1: the header needs page_id and block_id\n",
                path);
        bad = 1;
    }
    if (bad) {
        ps_csv_close(csv);
        return 1;
    }
    double x[PS_MODEL_MAX_FEATURES];
    int r;
    while ((r = ps_csv_next(csv, &err)) == 1) {
        for (size_t i = 0; i < nf; i++)
            if (ps_csv_number(csv, (size_t)cols[i], &x[i], &err) < 0) {
                fprintf(stderr, "pagesift-classify: %s\n", err.msg);
                ps_csv_close(csv);
                return 1;
            }
        double score = 0;
        int pred = ps_model_predict(m, x, &score);
        const char *label = c_label >= 0 ? ps_csv_field(csv, (size_t)c_label) : "";
        const char *ds = c_ds >= 0 ? ps_csv_field(csv, (size_t)c_ds) : "";
        const char *id = ps_csv_field(csv, (size_t)c_id);
        ps_csv_write_field(out, ds, strlen(ds));
        fputc(',', out);
        ps_csv_write_field(out, id, strlen(id));
        fprintf(out, ",%s,%s,%.6g,%d\r\n", ps_csv_field(csv, (size_t)c_block), label, score, pred);
        if (label[0] == '0' || label[0] == '1')
            counts[(label[0] == '1') * 2 + pred]++;
        (*rows)++;
    }
    if (r < 0)
        fprintf(stderr, "pagesift-classify: %s\n", err.msg);
    ps_csv_close(csv);
    return r < 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},       {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},     {0, 0, 0, 0},
    };
    const char *model_path = NULL, *out_path = NULL;
    int quiet = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:o:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-classify %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-classify", c, argv);
        }
    }
    if (!model_path || optind >= argc) {
        fprintf(stderr, "pagesift-classify: %s\n",
                !model_path ? "a model is required (-m MODEL)" : "no CSV given");
        usage(stderr);
        return 2;
    }
    ps_init();
    ps_error err = {0};
    ps_model *m = ps_model_load(model_path, &err);
    if (!m) {
        fprintf(stderr, "pagesift-classify: %s\n", err.msg);
        return 3;
    }
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "pagesift-classify: %s: cannot write\n", out_path);
        ps_model_free(m);
        return 3;
    }
    fputs("dataset,page_id,block_id,label,score,pred\r\n", out);
    size_t counts[4] = {0}, rows = 0; /* [label*2 + pred] */
    int rc = 0;
    for (int i = optind; i < argc; i++)
        rc |= classify_file(m, argv[i], out, counts, &rows);
    if (fflush(out) != 0 || (out != stdout && fclose(out) != 0)) {
        fprintf(stderr, "pagesift-classify: %s: write error\n", out_path ? out_path : "stdout");
        rc = 3;
    }
    if (!quiet) {
        double tp = (double)counts[3], fp = (double)counts[1], fn = (double)counts[2];
        double p = tp + fp > 0 ? tp / (tp + fp) : 0, rr = tp + fn > 0 ? tp / (tp + fn) : 0;
        fprintf(stderr, "pagesift-classify: %zu rows; labelled content: P %.4f R %.4f F1 %.4f\n",
                rows, p, rr, p + rr > 0 ? 2 * p * rr / (p + rr) : 0);
    }
    ps_model_free(m);
    return rc;
}
