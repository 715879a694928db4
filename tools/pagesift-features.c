/* pagesift-features — write the block CSV (counts, R1..R5, extended features,
 * labels from gold text, text preview) of pages, for training and for
 * annotators; report per data set how well block labels capture the gold. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift/dataset.h"
#include "pagesift/inputs.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"
#include "pagesift/page_types.h"
#include "pagesift/templates.h"
#include "pagesift/util.h"
#include "pagesift.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-features [OPTION]... INPUT...\n"
          "Write one CSV row per block of every page: raw counts, R1..R5 (and the\n"
          "extended x_* features), the label derived from the page's gold text and\n"
          "a preview of the block's own text.  Then print on standard error, per data\n"
          "set, blocks per class and how well block labels capture the gold.\n"
          "\n"
          "INPUT is an HTML file, a WARC file (.warc, .warc.gz: one page per HTML\n"
          "response), a directory (searched for pages and WARC files, sorted), '-'\n"
          "(standard input: a page or a WARC stream), or a data set folder with\n"
          "index.tsv (gold from gold/<id>.txt; the data set name is the folder name).\n"
          "Several data set folders may be given at once (docs/INPUTS.md).  A snippet\n"
          "set (evaldata.json instead of gold/, e.g. trafilatura-eval) gives partial\n"
          "labels: a block holding a 'with' snippet (or part of one) is 1, one holding\n"
          "a 'without' snippet (or much of one) 0, one holding both kinds or none\n"
          "empty (docs/BLOCK_CSV.md).\n"
          "\n"
          "  -l, --list FILE          inputs listed in FILE, one per line: a page,\n"
          "                           PATH<TAB>URL[<TAB>GOLD_PATH] (gold labels the\n"
          "                           blocks), or a WARC file, a data set or a folder;\n"
          "                           may be repeated; '-': standard input\n"
          "  -x, --extended           add the extended features (x_*) after R1..R5\n"
          "  -b, --block-tags LIST    block tags, comma-separated (default\n"
          "                           body,section,div; body is always the root);\n"
          "                           every row records them (block_tags column), and\n"
          "                           pagesift-train writes them into the bundle\n"
          "  -T, --templates DIR      remove the leaves that match the site's template\n"
          "                           library in DIR (pagesift-template build) first,\n"
          "                           as inference does; pages of a site without a\n"
          "                           library are written as they are\n"
          "  -L, --learn-templates    learn the libraries from the input itself first\n"
          "                           (a first pass over all inputs, per site, default\n"
          "                           parameters), then remove them; not with '-'\n"
          "  -P, --page-types BUNDLE  classify each page (pagesift-train --page-types)\n"
          "                           first, for the x_type_* columns (0 without it)\n"
          "      --page-types-fold K/N=BUNDLE  the pages of site fold K of N are\n"
          "                           classified by BUNDLE instead (--page-types's for\n"
          "                           the folds not given); may be repeated, one N:\n"
          "                           out-of-fold x_type_* for a typed companion's\n"
          "                           training pages (docs/PAGE_TYPES.md)\n"
          "  -a, --for-annotation     leave the label column empty for an annotator;\n"
          "                           the filled CSV is training input as is\n"
          "  -m, --min-text N         skip blocks with fewer than N own characters\n"
          "                           (default 1: blocks without text are skipped;\n"
          "                           0 writes every block)\n"
          "  -t, --threshold X        label a block content when at least this share\n"
          "                           of its own text is aligned with the gold\n"
          "                           (default 0.5)\n"
          "  -n, --preview N          characters of the text column (default 200)\n"
          "      --fold K/N           data set folders: only the pages of site fold K of\n"
          "                           N (docs/INPUTS.md: a fixed hash of the site column,\n"
          "                           or of the id when the site is empty)\n"
          "      --not-fold K/N       data set folders: only the pages NOT in that fold\n"
          "  -o, --output FILE        write the CSV to FILE (atomically) instead of\n"
          "                           standard output\n"
          "  -q, --quiet              no progress and no summary on standard error\n"
          "  -h, --help               this help\n"
          "  -V, --version            version\n"
          "\n"
          "Columns: dataset,page_id,url,site,block_id,block_path,tag,inner_len,\n"
          "inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,\n"
          "outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,[x_*],label,gold_share,text,\n"
          "block_tags.\n"
          "label is 1 (content), 0 (noise) or empty (no gold, or --for-annotation, or\n"
          "a block of a snippet set that no snippet labels).\n"
          "\n"
          "Summary: 'gold in content' is the share of page characters aligned with\n"
          "the gold that lie in blocks labelled content; 'other in noise' the share\n"
          "of the other characters in blocks labelled noise; 'gold found' the share\n"
          "of the gold's characters found on the page at all (characters of word\n"
          "tokens).  Snippet sets get a second table: snippets found in the page text,\n"
          "blocks with votes of both kinds (left unlabelled), and P/R/F1 of the text of\n"
          "the blocks labelled 1 by the corpus's own rule (how well the labels fit).\n"
          "\n"
          "Exit status: 0 ok, 1 some page could not be read (the others are written),\n"
          "2 usage error, 3 the output cannot be written.\n",
          f);
}

typedef struct set_stats {
    char name[128];
    ps_label_stats st;
    size_t failed;
} set_stats;

typedef struct run {
    ps_block_csv *csv;
    ps_page_options po;
    set_stats *sets;
    size_t n_sets;
    size_t done, failed, skipped;
    ps_progress *prog;
    int quiet;
    FILE *out;          /* the atomic output file, or NULL for stdout */
    const char *tmp;
    ps_template_store *store;     /* --templates / --learn-templates */
    ps_template_builder *builder; /* --learn-templates, first pass */
    ps_source_options sopt;       /* --fold / --not-fold */
    size_t templated, removed;    /* pages with a library, leaves removed */
    ps_page_types *types;         /* --page-types: x_type_* from it */
    ps_page_types **fold_types;   /* --page-types-fold: [K-1] for fold K of fold_n */
    unsigned fold_n;
} run;

/* The page-type bundle of one input: --page-types-fold's for its site fold
 * (the fold of ps_dataset_page_fold: the site, or the id when there is none),
 * else --page-types's. */
static const ps_page_types *types_for(const run *r, const ps_input *in)
{
    if (!r->fold_n)
        return r->types;
    ps_dataset_page dp = {.id = in->id, .site = in->site ? in->site : (char *)""};
    const ps_page_types *t = r->fold_types[ps_dataset_page_fold(&dp, r->fold_n) - 1];
    return t ? t : r->types;
}

static set_stats *set_for(run *r, const char *name)
{
    for (size_t i = 0; i < r->n_sets; i++)
        if (strcmp(r->sets[i].name, name) == 0)
            return &r->sets[i];
    set_stats *s = realloc(r->sets, (r->n_sets + 1) * sizeof *s);
    if (!s) {
        fputs("pagesift-features: out of memory\n", stderr);
        exit(3);
    }
    r->sets = s;
    s = &r->sets[r->n_sets++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

/* One input: parse, read gold (if any), write its rows.  A page that
 * cannot be read is reported and counted; the run goes on. */
static void do_input(run *r, const ps_input *in)
{
    ps_error err = {0};
    set_stats *set = set_for(r, in->dataset && *in->dataset ? in->dataset : "(files)");
    if (in->skipped) {
        r->skipped++;
        return;
    }
    char *gold = NULL;
    size_t gold_len = 0;
    ps_page *pg = NULL;
    if (in->status != PS_OK) {
        snprintf(err.msg, sizeof err.msg, "%s", in->msg);
        goto fail;
    }
    if (!r->builder && in->gold_path && *in->gold_path &&
        !(gold = ps_read_regular_file(in->gold_path, 0, NULL, &gold_len, &err)))
        goto fail;
    /* the page step up to the method: the one site rule, and the site's
     * library when it applies, as inference applies it (--learn-templates'
     * first pass: no store yet, only learn) */
    char site[512];
    ps_step_options so = {.max_bytes = r->po.max_bytes};
    size_t k = 0;
    /* --page-types: classified before templates are removed, as ps_extract
     * classifies before template-svm removes them */
    int applied = ps_prepare_input(in, r->po.block_tags, r->types ? NULL : r->store, &so, site, sizeof site, &pg,
                                   &k, &err);
    if (applied >= 0 && r->types) {
        if (ps_page_types_attach(types_for(r, in), pg, NULL, &err) < 0) {
            ps_page_free(pg);
            pg = NULL;
            applied = -1;
        } else {
            const ps_template_lib *lib = r->store && *site ? ps_template_store_get(r->store, site) : NULL;
            if (ps_template_applies(lib)) {
                k = ps_template_apply(lib, pg);
                applied = 1;
                if (k == (size_t)-1) {
                    ps_page_free(pg);
                    pg = NULL;
                    applied = ps_set_error(&err, PS_ERR_NOMEM, "out of memory removing templates");
                }
            }
        }
    }
    if (applied < 0) {
        char m[sizeof err.msg];
        memcpy(m, err.msg, sizeof m);
        snprintf(err.msg, sizeof err.msg, "%.200s: %.300s", in->origin ? in->origin : in->id, m);
        goto fail;
    }
    if (r->builder) { /* --learn-templates, first pass: only learn */
        if (*site && ps_template_builder_add(r->builder, site, pg, &err))
            fprintf(stderr, "pagesift-features: %s: %s\n", in->origin ? in->origin : in->id, err.msg);
        ps_page_free(pg);
        free(gold);
        ps_progress_update(r->prog, ++r->done, "learning templates");
        return;
    }
    r->templated += applied;
    r->removed += k;
    if (in->snippets ? ps_block_csv_page_snippets(r->csv, in->dataset, in->id, site, pg,
                                                  in->snippets, &set->st, &err)
                     : ps_block_csv_page(r->csv, in->dataset, in->id, site, pg, gold, gold_len,
                                         &set->st, &err)) {
        if (err.code != PS_ERR_IO) { /* this page only */
            ps_page_free(pg);
            goto fail;
        }
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        if (r->out)
            ps_atomic_abort(r->out, r->tmp);
        exit(3); /* the output is broken: nothing more can be written */
    }
    ps_page_free(pg);
    free(gold);
    r->done++;
    ps_progress_update(r->prog, r->done + r->failed, NULL);
    return;
fail:
    free(gold);
    if (r->builder) /* reported by the writing pass */
        return;
    fprintf(stderr, "pagesift-features: %s (page skipped)\n", err.msg);
    r->failed++;
    set->failed++;
    ps_progress_update(r->prog, r->done + r->failed, NULL);
}

/* Every input of one source.  0, or -1 on a fatal error (reported). */
static int do_source(run *r, const char *const *args, size_t n_args, const char *list)
{
    ps_error err = {0};
    ps_source *src = ps_source_open(args, n_args, list, &r->sopt, &err);
    if (!src) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        return -1;
    }
    if (!r->prog)
        r->prog = ps_progress_new("pages", ps_source_total_hint(src), r->quiet);
    ps_input in = {0};
    int rc;
    while ((rc = ps_source_next(src, &in, &err)) == 1) {
        do_input(r, &in);
        ps_input_clear(&in);
    }
    ps_input_clear(&in);
    ps_source_free(src);
    if (rc < 0) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void summary(const run *r)
{
    fprintf(stderr, "%-16s %6s %6s %8s %8s %8s %9s %9s %7s\n", "set", "pages", "failed", "noise",
            "content", "unlab.", "gold in", "other in", "gold");
    fprintf(stderr, "%-16s %6s %6s %8s %8s %8s %9s %9s %7s\n", "", "", "", "blocks", "blocks",
            "blocks", "content", "noise", "found");
    ps_label_stats all = {0};
    size_t failed = 0;
    for (size_t i = 0; i < r->n_sets; i++) {
        const set_stats *s = &r->sets[i];
        const ps_label_stats *t = &s->st;
        char gin[16] = "-", oin[16] = "-", gf[16] = "-";
        if (t->pages_gold) {
            snprintf(gin, sizeof gin, "%.2f%%", pct(t->gold_in_content, t->gold_chars));
            snprintf(oin, sizeof oin, "%.2f%%", pct(t->other_in_noise, t->other_chars));
            snprintf(gf, sizeof gf, "%.1f%%", pct(t->gold_text_found, t->gold_text_chars));
        }
        fprintf(stderr, "%-16s %6llu %6zu %8llu %8llu %8llu %9s %9s %7s\n", s->name,
                (unsigned long long)t->pages, s->failed, (unsigned long long)t->blocks[0],
                (unsigned long long)t->blocks[1], (unsigned long long)t->blocks[2], gin, oin, gf);
        all.pages += t->pages;
        all.pages_gold += t->pages_gold;
        for (int k = 0; k < 3; k++)
            all.blocks[k] += t->blocks[k];
        all.gold_chars += t->gold_chars;
        all.gold_in_content += t->gold_in_content;
        all.other_chars += t->other_chars;
        all.other_in_noise += t->other_in_noise;
        all.gold_text_chars += t->gold_text_chars;
        all.gold_text_found += t->gold_text_found;
        failed += s->failed;
    }
    if (r->n_sets > 1)
        fprintf(stderr, "%-16s %6llu %6zu %8llu %8llu %8llu %8.2f%% %8.2f%% %6.1f%%\n", "all",
                (unsigned long long)all.pages, failed, (unsigned long long)all.blocks[0],
                (unsigned long long)all.blocks[1], (unsigned long long)all.blocks[2],
                pct(all.gold_in_content, all.gold_chars), pct(all.other_in_noise, all.other_chars),
                pct(all.gold_text_found, all.gold_text_chars));
    int head = 0;
    for (size_t i = 0; i < r->n_sets; i++) { /* snippet sets */
        const ps_label_stats *t = &r->sets[i].st;
        if (!t->pages_snippets)
            continue;
        if (!head++)
            fprintf(stderr, "\n%-16s %6s %11s %11s %9s   %s\n", "snippet set", "pages",
                    "with found", "w/o found", "conflict", "blocks labelled 1 as output: P R F1 "
                    "(tp fp fn)");
        double tp = (double)t->oracle_tp, fp = (double)t->oracle_fp, fn = (double)t->oracle_fn;
        fprintf(stderr, "%-16s %6llu %10.1f%% %10.1f%% %9llu   %.3f %.3f %.3f (%llu %llu %llu)\n",
                r->sets[i].name, (unsigned long long)t->pages_snippets,
                pct(t->with_found, t->with_snippets), pct(t->without_found, t->without_snippets),
                (unsigned long long)t->conflict_blocks, tp + fp > 0 ? tp / (tp + fp) : 0.0,
                tp + fn > 0 ? tp / (tp + fn) : 0.0,
                2 * tp + fp + fn > 0 ? 2 * tp / (2 * tp + fp + fn) : 0.0,
                (unsigned long long)t->oracle_tp, (unsigned long long)t->oracle_fp,
                (unsigned long long)t->oracle_fn);
    }
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* --learn-templates: a first pass over the input learns the template
 * libraries the second one removes.  0, or 3 (out of memory). */
static int learn_templates(run *r, const char *const *inputs, size_t n_inputs, const char **lists, size_t n_lists)
{
    if (!(r->builder = ps_template_builder_new(NULL))) {
        fprintf(stderr, "pagesift-features: out of memory\n");
        return 3;
    }
    if (n_inputs || n_lists)
        do_source(r, inputs, n_inputs, n_lists ? lists[0] : NULL);
    for (size_t i = 1; i < n_lists; i++)
        do_source(r, NULL, 0, lists[i]);
    size_t sites = ps_template_builder_sites(r->builder);
    r->store = ps_template_builder_finish(r->builder);
    r->builder = NULL;
    if (!r->store) {
        fprintf(stderr, "pagesift-features: out of memory learning templates\n");
        return 3;
    }
    if (!r->quiet)
        fprintf(stderr, "pagesift-features: learnt template libraries of %zu sites\n", sites);
    ps_progress_done(r->prog);
    r->prog = NULL;
    r->done = 0;
    r->n_sets = 0;
    return 0;
}

/* The block CSV of every page of the input, to standard output or to
 * @p out_path (atomically); the summary.  The exit status. */
static int write_csv(run *r, const ps_block_csv_options *co, const char *out_path, const char *const *inputs,
                     size_t n_inputs, const char **lists, size_t n_lists)
{
    ps_error err = {0};
    FILE *out = stdout;
    char tmp[4096];
    if (out_path && !(out = ps_atomic_open(out_path, tmp, sizeof tmp, &err))) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        return 3;
    }
    if (out_path) {
        r->out = out;
        r->tmp = tmp;
    }
    if (!(r->csv = ps_block_csv_new(out, co, &err))) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        if (out_path)
            ps_atomic_abort(out, tmp);
        return 3;
    }
    int bad = 0;
    /* the arguments with the first list file, then any further list files */
    if (n_inputs || n_lists)
        bad |= do_source(r, inputs, n_inputs, n_lists ? lists[0] : NULL) != 0;
    for (size_t i = 1; i < n_lists; i++)
        bad |= do_source(r, NULL, 0, lists[i]) != 0;
    ps_progress_done(r->prog);
    if (!r->quiet && r->skipped)
        fprintf(stderr, "pagesift-features: %zu WARC records skipped (not HTML pages)\n", r->skipped);
    if (ps_block_csv_finish(r->csv, &err)) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        if (out_path)
            ps_atomic_abort(out, tmp);
        return 3;
    }
    if (out_path && ps_atomic_commit(out, tmp, out_path, &err)) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        return 3;
    }
    if (!r->quiet)
        summary(r);
    if (!r->quiet && r->store)
        fprintf(stderr, "templates: %zu pages had a library, %zu leaves removed\n", r->templated,
                r->removed);
    return bad || r->failed ? 1 : 0;
}

/* --page-types-fold K/N=BUNDLE: fold K's bundle.  0, or the exit status
 * (2 usage, 3 a file that cannot be read, 1 a damaged bundle). */
static int add_page_types_fold(run *r, const char *arg)
{
    ps_error pe = {0};
    ps_fold f = {0};
    const char *eq = strchr(arg, '=');
    char spec[32];
    if (!eq || (size_t)(eq - arg) >= sizeof spec || !eq[1]) {
        fprintf(stderr, "pagesift-features: --page-types-fold: '%s' is not K/N=BUNDLE\n", arg);
        return 2;
    }
    memcpy(spec, arg, (size_t)(eq - arg));
    spec[eq - arg] = '\0';
    if (ps_fold_parse(spec, &f, &pe) < 0) {
        fprintf(stderr, "pagesift-features: --page-types-fold: %s\n", pe.msg);
        return 2;
    }
    if (r->fold_n && f.n != r->fold_n) {
        fprintf(stderr, "pagesift-features: --page-types-fold: folds of %u and of %u: one N only\n", r->fold_n,
                f.n);
        return 2;
    }
    if (!r->fold_n) {
        if (!(r->fold_types = calloc(f.n, sizeof *r->fold_types))) {
            fputs("pagesift-features: out of memory\n", stderr);
            return 3;
        }
        r->fold_n = f.n;
    }
    if (r->fold_types[f.k - 1]) {
        fprintf(stderr, "pagesift-features: --page-types-fold: fold %u/%u given twice\n", f.k, f.n);
        return 2;
    }
    if (!(r->fold_types[f.k - 1] = ps_page_types_load(eq + 1, &pe))) {
        fprintf(stderr, "pagesift-features: --page-types-fold: %s\n", pe.msg);
        return pe.code == PS_ERR_IO ? 3 : 1;
    }
    return 0;
}

/* Standard input ('-' or --list -) once; --learn-templates reads the input
 * twice, so neither standard input nor a list through a pipe: 0 or -1. */
static int check_stdin(char **args, size_t n_args, const char **lists, size_t n_lists, int learn)
{
    int n_stdin = 0;
    for (size_t i = 0; i < n_args; i++)
        n_stdin += strcmp(args[i], "-") == 0;
    for (size_t i = 0; i < n_lists; i++)
        n_stdin += strcmp(lists[i], "-") == 0;
    if (n_stdin > 1) {
        fprintf(stderr, "pagesift-features: standard input ('-', also --list -) can be given once\n");
        return -1;
    }
    if (learn && n_stdin) {
        fprintf(stderr, "pagesift-features: --learn-templates reads the input twice: not "
                        "with standard input\n");
        return -1;
    }
    for (size_t i = 0; learn && i < n_lists; i++)
        if (ps_cli_read_twice("pagesift-features", "--list ", lists[i]))
            return -1;
    for (size_t i = 0; learn && i < n_args; i++)
        if (ps_cli_read_twice("pagesift-features", "", args[i]))
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"list", required_argument, 0, 'l'},    {"extended", no_argument, 0, 'x'},
        {"block-tags", required_argument, 0, 'b'}, {"for-annotation", no_argument, 0, 'a'},
        {"min-text", required_argument, 0, 'm'}, {"threshold", required_argument, 0, 't'},
        {"preview", required_argument, 0, 'n'}, {"output", required_argument, 0, 'o'},
        {"templates", required_argument, 0, 'T'}, {"learn-templates", no_argument, 0, 'L'},
        {"quiet", no_argument, 0, 'q'},         {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},       {"fold", required_argument, 0, 'F'},
        {"not-fold", required_argument, 0, 'N'}, {"page-types", required_argument, 0, 'P'},
        {"page-types-fold", required_argument, 0, 'Y'}, {0, 0, 0, 0}};
    run r = {0};
    ps_block_csv_options co = {.min_text = 1};
    const char **tags = NULL;
    const char *out_path = NULL, *tpl_dir = NULL;
    int learn = 0;
    const char **lists = calloc((size_t)argc + 1, sizeof *lists);
    size_t n_lists = 0;
    double v;
    int c;
    if (!lists)
        return 3;
    int rc = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":l:xb:am:t:n:o:T:P:LqhV", opts, NULL)) != -1) {
        switch (c) {
        case 'l': lists[n_lists++] = optarg; break;
        case 'x': co.extended = 1; break;
        case 'b':
            free(tags);
            tags = ps_split_list(optarg);
            if (!tags || !tags[0]) {
                fprintf(stderr, "pagesift-features: --block-tags: empty list\n");
                { rc = 2; goto out; }
            }
            r.po.block_tags = tags;
            co.block_tags = tags;
            break;
        case 'a': co.for_annotation = 1; break;
        case 'm':
            if (parse_num(optarg, 0, 1e9, &v) || v != (double)(uint32_t)v) {
                fprintf(stderr, "pagesift-features: --min-text: '%s' is not a count\n", optarg);
                { rc = 2; goto out; }
            }
            co.min_text = (uint32_t)v;
            break;
        case 't':
            if (parse_num(optarg, 1e-9, 1, &v)) {
                fprintf(stderr, "pagesift-features: --threshold: '%s' is not in (0, 1]\n", optarg);
                { rc = 2; goto out; }
            }
            co.label_threshold = v;
            break;
        case 'n':
            if (parse_num(optarg, 1, 1e6, &v) || v != (double)(size_t)v) {
                fprintf(stderr, "pagesift-features: --preview: '%s' is not a count >= 1\n", optarg);
                { rc = 2; goto out; }
            }
            co.preview_chars = (size_t)v;
            break;
        case 'o': out_path = optarg; break;
        case 'q': r.quiet = 1; break;
        case 'T': tpl_dir = optarg; break;
        case 'P': {
            ps_error pe = {0};
            ps_page_types_free(r.types);
            if (!(r.types = ps_page_types_load(optarg, &pe))) {
                fprintf(stderr, "pagesift-features: --page-types: %s\n", pe.msg);
                rc = pe.code == PS_ERR_IO ? 3 : 1;
                goto out;
            }
            break;
        }
        case 'Y':
            if ((rc = add_page_types_fold(&r, optarg)) != 0)
                goto out;
            break;
        case 'L': learn = 1; break;
        case 'F':
        case 'N': {
            ps_error fe = {0};
            if (r.sopt.fold.n) {
                fprintf(stderr, "pagesift-features: one --fold or --not-fold only\n");
                { rc = 2; goto out; }
            }
            if (ps_fold_parse(optarg, &r.sopt.fold, &fe) < 0) {
                fprintf(stderr, "pagesift-features: --%s: %s\n", c == 'F' ? "fold" : "not-fold", fe.msg);
                { rc = 2; goto out; }
            }
            r.sopt.fold.complement = c == 'N';
            break;
        }
        case 'h': usage(stdout); { rc = 0; goto out; }
        case 'V': printf("pagesift-features %s\n", ps_version()); { rc = 0; goto out; }
        default: rc = ps_cli_bad_option("pagesift-features", c, argv); goto out;
        }
    }
    if (optind == argc && n_lists == 0) {
        fprintf(stderr, "pagesift-features: no input (give files, folders or --list FILE)\n");
        usage(stderr);
        { rc = 2; goto out; }
    }
    if (r.fold_n && !r.types) {
        fprintf(stderr, "pagesift-features: --page-types-fold goes with --page-types (the other folds' bundle)\n");
        { rc = 2; goto out; }
    }
    if (tpl_dir && learn) {
        fprintf(stderr, "pagesift-features: --templates and --learn-templates exclude each other\n");
        { rc = 2; goto out; }
    }
    if (check_stdin(argv + optind, (size_t)(argc - optind), lists, n_lists, learn) != 0)
        { rc = 2; goto out; }
    ps_init();
    ps_error err = {0};
    if (tpl_dir && !(r.store = ps_template_store_open(tpl_dir, &err))) {
        fprintf(stderr, "pagesift-features: %s\n", err.msg);
        { rc = 3; goto out; }
    }
    if (learn && (rc = learn_templates(&r, (const char *const *)argv + optind, (size_t)(argc - optind), lists,
                                       n_lists)) != 0)
        goto out;
    rc = write_csv(&r, &co, out_path, (const char *const *)argv + optind, (size_t)(argc - optind), lists, n_lists);
out:
    ps_page_types_free(r.types);
    for (unsigned i = 0; i < r.fold_n; i++)
        ps_page_types_free(r.fold_types[i]);
    free(r.fold_types);
    ps_template_store_free(r.store);
    free(r.sets);
    free(tags);
    free(lists);
    return rc;
}
