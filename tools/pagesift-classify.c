/* pagesift-classify — apply a model bundle to block CSVs (the format of
 * pagesift-features, docs/BLOCK_CSV.md): one output row per input row with
 * the SVM's decision value and class.  Used to measure a model on held-out
 * blocks (scripts/quality-*) and by annotators to see what a model says about
 * the blocks they label. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift.h"
#include "cli.h"
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "pagesift/model.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-classify -m MODEL [OPTION]... CSV...\n"
          "Classify every row of block CSVs written by pagesift-features with the\n"
          "model bundle MODEL (pagesift-train).  The model's feature columns must be\n"
          "in the CSV.  Writes a CSV: dataset,page_id,block_id,label,score,pred\n"
          "(label copied from the input, may be empty; score = SVM decision value,\n"
          "> 0 leaning to content; pred = 1 content / 0 noise), rows in input order.\n"
          "A stacked bundle (two stages, docs/MODEL_FORMAT.md) gives the second\n"
          "stage's scores; the context features it reads need block_path and\n"
          "inner_len, and a page's rows together in document order, as\n"
          "pagesift-features writes them.\n"
          "\n"
          "  -m, --model MODEL   model bundle (required)\n"
          "  -c, --context       write the input rows with the context features\n"
          "                      (c_*) of MODEL's first stage added: the training\n"
          "                      rows of a second stage (scripts/train-default-model)\n"
          "  -g, --gate SCORE    with --context: rows the first stage scores below\n"
          "                      SCORE get an empty label (the second stage neither\n"
          "                      trains on nor judges such blocks: its gate)\n"
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

/* The rows of one page (consecutive rows of one dataset and page_id): the
 * first stage's features, each row's nearest enclosing row (by block_path:
 * rows come in document order, so an ancestor's row comes first) and own
 * characters, and with --context the row's fields to copy. */
typedef struct page_rows {
    size_t n, cap, nf;
    double *x;       /* n * nf */
    int32_t *parent;
    uint32_t *chars;
    char **fields;   /* n * n_cols (--context), or the four output fields */
    size_t n_cols;
    char **paths;
} page_rows;

static void page_clear(page_rows *pg)
{
    for (size_t i = 0; i < pg->n * pg->n_cols; i++)
        free(pg->fields[i]);
    for (size_t i = 0; i < pg->n; i++)
        free(pg->paths[i]);
    pg->n = 0;
}

static void page_free(page_rows *pg)
{
    page_clear(pg);
    free(pg->x);
    free(pg->parent);
    free(pg->chars);
    free(pg->fields);
    free(pg->paths);
}

static int page_grow(page_rows *pg)
{
    if (pg->n < pg->cap)
        return 0;
    size_t cap = pg->cap ? 2 * pg->cap : 256;
    double *x = realloc(pg->x, cap * pg->nf * sizeof *x);
    if (x)
        pg->x = x;
    int32_t *par = realloc(pg->parent, cap * sizeof *par);
    if (par)
        pg->parent = par;
    uint32_t *ch = realloc(pg->chars, cap * sizeof *ch);
    if (ch)
        pg->chars = ch;
    char **f = realloc(pg->fields, cap * pg->n_cols * sizeof *f);
    if (f)
        pg->fields = f;
    char **pa = realloc(pg->paths, cap * sizeof *pa);
    if (pa)
        pg->paths = pa;
    if (!x || !par || !ch || !f || !pa)
        return -1;
    pg->cap = cap;
    return 0;
}

typedef struct classify_run {
    const ps_model *m, *second; /* second: a stacked bundle's second stage */
    int context;                /* --context: the rows with c_* columns */
    FILE *out;
    size_t counts[4], rows;     /* [label*2 + pred] */
    char **header;              /* --context: the first file's columns */
    size_t n_header;
    int src2[PS_MODEL_MAX_FEATURES]; /* the second stage's features (ps_context_sources) */
    double gate;                /* the second stage's gate (ps_model_stack_gate) */
    double train_gate;          /* --gate: rows below it get an empty label */
    int label_col;              /* --context: the label column, -1 none */
} classify_run;

static const char *fld(const char *s)
{
    return s ? s : "";
}

/* Score one page's rows and write them. */
static int flush_page(classify_run *run, page_rows *pg)
{
    size_t n = pg->n, nf = pg->nf;
    if (n == 0)
        return 0;
    double *s = malloc(n * sizeof *s), *ctx = malloc(n * PS_CONTEXT_FEATURES * sizeof *ctx);
    uint8_t *pred = malloc(n);
    int rc = 0;
    if (!s || !ctx || !pred) {
        rc = -1;
        goto out;
    }
    ps_model_predict_many(run->m, pg->x, nf, NULL, n, pred, s);
    if (run->context || run->second) {
        if (ps_context_features(n, pg->parent, pg->chars, s, ctx) != 0) {
            rc = -1;
            goto out;
        }
    }
    if (run->second) { /* the stacked bundle's final scores */
        size_t n2 = ps_model_n_features(run->second);
        double *rows = malloc(n * n2 * sizeof *rows);
        if (!rows) {
            rc = -1;
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            ps_context_row(run->src2, n2, pg->x + i * nf, ctx + i * PS_CONTEXT_FEATURES, rows + i * n2);
        double *s2 = malloc(n * sizeof *s2);
        uint8_t *pred2 = malloc(n);
        if (!s2 || !pred2) {
            free(rows);
            free(s2);
            free(pred2);
            rc = -1;
            goto out;
        }
        ps_model_predict_many(run->second, rows, n2, NULL, n, pred2, s2);
        for (size_t i = 0; i < n; i++) /* below the gate: the first stage's word */
            if (!ps_stack_gated(s[i], run->gate)) {
                s[i] = s2[i];
                pred[i] = pred2[i];
            }
        free(rows);
        free(s2);
        free(pred2);
    }
    for (size_t i = 0; i < n; i++) {
        char **f = pg->fields + i * pg->n_cols;
        if (run->context) {
            int gated = run->train_gate > -1e300 && ps_stack_gated(s[i], run->train_gate);
            for (size_t c = 0; c < pg->n_cols; c++) {
                if (c)
                    fputc(',', run->out);
                if (gated && (int)c == run->label_col)
                    continue; /* not a training row of the second stage */
                ps_csv_write_field(run->out, fld(f[c]), strlen(fld(f[c])));
            }
            for (size_t k = 0; k < PS_CONTEXT_FEATURES; k++)
                fprintf(run->out, ",%.6g", ctx[i * PS_CONTEXT_FEATURES + k]);
            fputs("\r\n", run->out);
        } else { /* dataset, page_id, block_id, label */
            ps_csv_write_field(run->out, fld(f[0]), strlen(fld(f[0])));
            fputc(',', run->out);
            ps_csv_write_field(run->out, fld(f[1]), strlen(fld(f[1])));
            fprintf(run->out, ",%s,%s,%.6g,%d\r\n", fld(f[2]), fld(f[3]), s[i], pred[i]);
        }
        const char *label = run->context ? "" : fld(f[3]);
        if (label[0] == '0' || label[0] == '1')
            run->counts[(label[0] == '1') * 2 + pred[i]]++;
        run->rows++;
    }
out:
    free(s);
    free(ctx);
    free(pred);
    page_clear(pg);
    return rc;
}

static int classify_file(classify_run *run, const char *path)
{
    const ps_model *m = run->m;
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
    int c_path = ps_csv_column(csv, "block_path"), c_len = ps_csv_column(csv, "inner_len");
    int stacked = run->context || run->second;
    if (!bad && (c_id < 0 || c_block < 0)) {
        fprintf(stderr, "pagesift-classify: %s: line 1: the header needs page_id and block_id\n",
                path);
        bad = 1;
    }
    if (!bad && stacked && (c_path < 0 || c_len < 0)) {
        fprintf(stderr, "pagesift-classify: %s: line 1: context features need the block_path and "
                        "inner_len columns (pagesift-features writes them)\n", path);
        bad = 1;
    }
    size_t ncol = ps_csv_columns(csv);
    if (!bad && run->context) { /* one header for the output: the first file's */
        if (!run->header) {
            run->label_col = c_label;
            run->header = calloc(ncol + 1, sizeof *run->header);
            for (size_t c = 0; run->header && c < ncol; c++)
                run->header[c] = strdup(ps_csv_column_name(csv, c));
            run->n_header = ncol;
            for (size_t c = 0; c < ncol; c++) {
                if (c)
                    fputc(',', run->out);
                fputs(ps_csv_column_name(csv, c), run->out);
            }
            for (size_t j = 0; j < PS_CONTEXT_FEATURES; j++)
                fprintf(run->out, ",%s", ps_context_feature_name(j));
            fputs("\r\n", run->out);
        } else {
            int same = ncol == run->n_header;
            for (size_t c = 0; same && c < ncol; c++)
                same = strcmp(run->header[c], ps_csv_column_name(csv, c)) == 0;
            if (!same) {
                fprintf(stderr, "pagesift-classify: %s: line 1: --context wants every CSV with the "
                                "first one's columns\n", path);
                bad = 1;
            }
        }
    }
    if (bad) {
        ps_csv_close(csv);
        return 1;
    }
    page_rows pg = {.nf = nf, .n_cols = run->context ? ncol : 4};
    char *cur_ds = strdup(""), *cur_id = strdup("");
    int r, rc = 0;
    while ((r = ps_csv_next(csv, &err)) == 1) {
        const char *ds = c_ds >= 0 ? ps_csv_field(csv, (size_t)c_ds) : "";
        const char *id = ps_csv_field(csv, (size_t)c_id);
        if (!cur_ds || !cur_id || strcmp(ds, cur_ds) != 0 || strcmp(id, cur_id) != 0) {
            if (flush_page(run, &pg) != 0) {
                rc = 1;
                break;
            }
            free(cur_ds);
            free(cur_id);
            cur_ds = strdup(ds);
            cur_id = strdup(id);
        }
        if (page_grow(&pg) != 0) {
            rc = 1;
            break;
        }
        size_t i = pg.n;
        for (size_t j = 0; j < nf; j++)
            if (ps_csv_number(csv, (size_t)cols[j], &pg.x[i * nf + j], &err) < 0) {
                rc = -1;
                break;
            }
        uint32_t len = 0;
        if (rc == 0 && stacked && ps_csv_count(csv, (size_t)c_len, &len, &err) < 0)
            rc = -1;
        if (rc) {
            fprintf(stderr, "pagesift-classify: %s\n", err.msg);
            break;
        }
        const char *bp = stacked ? ps_csv_field(csv, (size_t)c_path) : "";
        pg.chars[i] = len;
        pg.paths[i] = strdup(bp);
        pg.parent[i] = ps_csv_row_parent((const char *const *)pg.paths, pg.parent, 0, i, bp);
        char **f = pg.fields + i * pg.n_cols;
        if (run->context) {
            for (size_t c = 0; c < ncol; c++)
                f[c] = strdup(ps_csv_field(csv, c));
        } else {
            f[0] = strdup(ds);
            f[1] = strdup(id);
            f[2] = strdup(ps_csv_field(csv, (size_t)c_block));
            f[3] = strdup(c_label >= 0 ? ps_csv_field(csv, (size_t)c_label) : "");
        }
        pg.n++;
    }
    if (r < 0) {
        fprintf(stderr, "pagesift-classify: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0 && flush_page(run, &pg) != 0)
        rc = 1;
    if (rc > 0 && r >= 0)
        fprintf(stderr, "pagesift-classify: %s: out of memory\n", path);
    page_free(&pg);
    free(cur_ds);
    free(cur_id);
    ps_csv_close(csv);
    return rc != 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"output", required_argument, 0, 'o'},
        {"context", no_argument, 0, 'c'},     {"gate", required_argument, 0, 'g'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    const char *model_path = NULL, *out_path = NULL;
    int quiet = 0, context = 0, c;
    double gate = -1e308;
    char *end;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:o:cg:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'c': context = 1; break;
        case 'g':
            gate = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(gate)) {
                fprintf(stderr, "pagesift-classify: --gate wants a number, not '%s'\n", optarg);
                return 2;
            }
            break;
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
    ps_model *second = m ? ps_model_next_stage(m, &err) : NULL;
    if (!m || (!second && err.code)) {
        fprintf(stderr, "pagesift-classify: %s\n", err.msg);
        ps_model_free(m);
        return 3;
    }
    if (gate > -1e300 && !context) {
        fprintf(stderr, "pagesift-classify: --gate goes with --context\n");
        ps_model_free(m);
        ps_model_free(second);
        return 2;
    }
    classify_run run = {.m = m, .second = context ? NULL : second, .context = context,
                        .gate = second ? ps_model_stack_gate(second) : 0, .train_gate = gate, .label_col = -1};
    /* the second stage's features: the first's columns, or context */
    if (run.second && ps_context_sources(second, ps_model_feature_ids(m), ps_model_n_features(m),
                                         run.src2) != 0) {
        fprintf(stderr, "pagesift-classify: %s: the second stage reads features the first does not\n",
                model_path);
        ps_model_free(m);
        ps_model_free(second);
        return 3;
    }
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "pagesift-classify: %s: cannot write\n", out_path);
        ps_model_free(m);
        ps_model_free(second);
        return 3;
    }
    run.out = out;
    if (!context)
        fputs("dataset,page_id,block_id,label,score,pred\r\n", out);
    int rc = 0;
    for (int i = optind; i < argc; i++)
        rc |= classify_file(&run, argv[i]);
    if (fflush(out) != 0 || (out != stdout && fclose(out) != 0)) {
        fprintf(stderr, "pagesift-classify: %s: write error\n", out_path ? out_path : "stdout");
        rc = 3;
    }
    if (!quiet && !context) {
        double tp = (double)run.counts[3], fp = (double)run.counts[1], fn = (double)run.counts[2];
        double p = tp + fp > 0 ? tp / (tp + fp) : 0, rr = tp + fn > 0 ? tp / (tp + fn) : 0;
        fprintf(stderr, "pagesift-classify: %zu rows; labelled content: P %.4f R %.4f F1 %.4f\n",
                run.rows, p, rr, p + rr > 0 ? 2 * p * rr / (p + rr) : 0);
    } else if (!quiet) {
        fprintf(stderr, "pagesift-classify: %zu rows with context features\n", run.rows);
    }
    for (size_t i = 0; run.header && i < run.n_header; i++)
        free(run.header[i]);
    free(run.header);
    ps_model_free(m);
    ps_model_free(second);
    return rc;
}
