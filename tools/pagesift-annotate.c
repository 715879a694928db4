/* pagesift-annotate — make an annotation workspace of pages (label blocks by
 * clicking the page in a browser) and optionally serve it on 127.0.0.1 so
 * that labels are saved straight to disk.  docs/ANNOTATE.md. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift.h"
#include "pagesift/annotate.h"
#include "pagesift/inputs.h"
#include "pagesift/util.h"

#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-annotate [OPTION]... -o DIR INPUT...\n"
          "       pagesift-annotate --serve PORT -o DIR [INPUT...]\n"
          "Make an annotation workspace in DIR: open DIR/index.html in a browser\n"
          "(file:// works), click blocks of each page to label them content or noise,\n"
          "export a CSV in pagesift-features' format with the label column filled\n"
          "(pagesift-train takes it as it is) and a labels JSON for --resume.\n"
          "\n"
          "INPUT is an HTML file, a WARC file, a directory, '-' or a data set folder,\n"
          "as for pagesift-features (docs/INPUTS.md).\n"
          "\n"
          "  -o, --output DIR         the workspace folder (created; an existing one\n"
          "                           must be empty or a workspace, which is rewritten)\n"
          "  -l, --list FILE          pages listed in FILE (PATH<TAB>URL per line;\n"
          "                           '-': standard input)\n"
          "  -m, --model FILE         pre-label the blocks with this model (shown as\n"
          "                           pre-labels until a person confirms them) and show\n"
          "                           its scores; pages are parsed with its block tags\n"
          "  -T, --templates DIR      remove the leaves that match the site's template\n"
          "                           library first (as pagesift-features --templates)\n"
          "  -b, --block-tags LIST    block tags (default body,section,div; with\n"
          "                           --model the model's); the CSV's rows record them\n"
          "                           (block_tags), pagesift-train puts them in the bundle\n"
          "  -x, --extended           the CSV carries the extended features (x_*)\n"
          "  -n, --preview N          characters of the text column (default 200)\n"
          "  -r, --resume FILE        labels JSON of an earlier export: its labels are\n"
          "                           confirmed labels of the new workspace\n"
          "  -s, --serve PORT         serve DIR on http://127.0.0.1:PORT/ (0: a free\n"
          "                           port) until interrupted; the workspace saves\n"
          "                           labels.json and labels.csv into DIR, one save\n"
          "                           after the other, each merged into the file\n"
          "                           (several browsers keep each other's labels; of a\n"
          "                           block two labelled differently the label saved\n"
          "                           first stays and the other browser is told).\n"
          "                           Without INPUT an existing workspace is served.\n"
          "                           16 connections at once, more wait; a request\n"
          "                           must arrive whole within 10 s of its connection\n"
          "                           (else 408)\n"
          "  -q, --quiet              no progress and no summary on standard error\n"
          "  -h, --help               this help\n"
          "  -V, --version            version\n"
          "\n"
          "In the browser: click toggles a block (unlabelled -> content -> noise ->\n"
          "content), shift-click labels the block and every block inside it, alt-click\n"
          "clears; keys: j/k or arrows next/previous page, u next unlabelled block,\n"
          "z undo, a accept the model's pre-labels, n the rest of the page noise,\n"
          "p hide the panel, i the index (progress, export).\n"
          "\n"
          "Exit status: 0 ok, 1 some page could not be read (the others are in the\n"
          "workspace), 2 usage error, 3 the model, templates, resume file or folder\n"
          "cannot be used, or the server cannot listen.\n",
          f);
}

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void ready(int port, void *ctx)
{
    const char *dir = ctx;
    printf("serving %s at http://127.0.0.1:%d/ (Ctrl-C stops)\n", dir, port);
    fflush(stdout);
}

/* Pages into the workspace @p dir: annotated, pre-labelled with --model,
 * resumed labels kept; the summary on standard error.  The exit status so
 * far; *stop set when the run ends here (the workspace could not be made). */
static int build_workspace(const char *dir, const ps_annotate_options *ao, const char *const *inputs, size_t n_inputs,
                           const char *list, int quiet, int *stop)
{
    ps_error err = {0};
    ps_annotate *a = ps_annotate_new(dir, ao, &err);
    if (!a) {
        fprintf(stderr, "pagesift-annotate: %s\n", err.msg);
        *stop = 1;
        return err.code == PS_ERR_USAGE ? 2 : 3;
    }
    ps_source *src = ps_source_open(inputs, n_inputs, list, NULL, &err);
    if (!src) {
        fprintf(stderr, "pagesift-annotate: %s\n", err.msg);
        ps_annotate_free(a);
        *stop = 1;
        return 3;
    }
    ps_progress *prog = ps_progress_new("pages", ps_source_total_hint(src), quiet);
    ps_input in = {0};
    size_t failed = 0, skipped = 0, seen = 0;
    int r, fatal = 0;
    while (!fatal && (r = ps_source_next(src, &in, &err)) == 1) {
        if (in.skipped) {
            skipped++;
            continue;
        }
        if (in.status != PS_OK) {
            fprintf(stderr, "pagesift-annotate: %s (page skipped)\n", in.msg);
            failed++;
        } else if (ps_annotate_add(a, &in, &err)) {
            fprintf(stderr, "pagesift-annotate: %s%s\n", err.msg,
                    err.code == PS_ERR_IO ? "" : " (page skipped)");
            failed++;
            fatal = err.code == PS_ERR_IO;
        }
        ps_progress_update(prog, ++seen, NULL);
    }
    ps_input_clear(&in);
    ps_progress_done(prog);
    if (!fatal && r < 0) {
        fprintf(stderr, "pagesift-annotate: %s\n", err.msg);
        fatal = 1;
    }
    ps_source_free(src);
    if (!fatal && ps_annotate_finish(a, &err)) {
        fprintf(stderr, "pagesift-annotate: %s\n", err.msg);
        fatal = 1;
    }
    size_t pages, blocks, pre, resumed;
    ps_annotate_counts(a, &pages, &blocks, &pre, &resumed);
    ps_annotate_free(a);
    if (fatal) {
        *stop = 1;
        return 3;
    }
    if (!quiet) {
        fprintf(stderr, "pagesift-annotate: %zu pages, %zu blocks", pages, blocks);
        if (ao->model_path)
            fprintf(stderr, ", %zu pre-labelled", pre);
        if (ao->resume_path)
            fprintf(stderr, ", %zu labels resumed", resumed);
        if (failed)
            fprintf(stderr, ", %zu pages failed", failed);
        if (skipped)
            fprintf(stderr, ", %zu WARC records skipped", skipped);
        fprintf(stderr, "; open %s/index.html\n", dir);
    }
    if (pages == 0) {
        fprintf(stderr, "pagesift-annotate: no page could be read\n");
        *stop = 1;
        return 1;
    }
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},    {"list", required_argument, 0, 'l'},
        {"model", required_argument, 0, 'm'},     {"templates", required_argument, 0, 'T'},
        {"block-tags", required_argument, 0, 'b'}, {"extended", no_argument, 0, 'x'},
        {"preview", required_argument, 0, 'n'},   {"resume", required_argument, 0, 'r'},
        {"serve", required_argument, 0, 's'},     {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},            {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    ps_annotate_options ao = {0};
    const char *dir = NULL, *list = NULL;
    const char **tags = NULL;
    int quiet = 0, port = -1, c, rc = 0;
    char *end;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:l:m:T:b:xn:r:s:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case 'l': list = optarg; break;
        case 'm': ao.model_path = optarg; break;
        case 'T': ao.templates_dir = optarg; break;
        case 'b':
            free(tags);
            tags = ps_split_list(optarg);
            if (!tags || !tags[0]) {
                fprintf(stderr, "pagesift-annotate: --block-tags: empty list\n");
                rc = 2;
                goto out;
            }
            ao.block_tags = tags;
            break;
        case 'x': ao.extended = 1; break;
        case 'n': {
            errno = 0;
            unsigned long v = strtoul(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 1 || v > 1000000) {
                fprintf(stderr, "pagesift-annotate: --preview: '%s' is not a count >= 1\n", optarg);
                rc = 2;
                goto out;
            }
            ao.preview_chars = v;
            break;
        }
        case 'r': ao.resume_path = optarg; break;
        case 's': {
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 0 || v > 65535) {
                fprintf(stderr, "pagesift-annotate: --serve: '%s' is not a port (0..65535)\n", optarg);
                rc = 2;
                goto out;
            }
            port = (int)v;
            break;
        }
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); goto out;
        case 'V': printf("pagesift-annotate %s\n", ps_version()); goto out;
        default: rc = ps_cli_bad_option("pagesift-annotate", c, argv); goto out;
        }
    }
    if (!dir) {
        fprintf(stderr, "pagesift-annotate: no workspace folder (give -o DIR); try --help\n");
        rc = 2;
        goto out;
    }
    int have_input = optind < argc || list;
    if (!have_input && port < 0) {
        fprintf(stderr, "pagesift-annotate: no input (give files, folders or --list FILE); try --help\n");
        rc = 2;
        goto out;
    }
    ps_init();
    ps_error err = {0};
    if (have_input) {
        int stop = 0;
        rc = build_workspace(dir, &ao, (const char *const *)argv + optind, (size_t)(argc - optind), list, quiet,
                             &stop);
        if (stop)
            goto out;
    }
    if (port >= 0) {
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        if (ps_annotate_serve(dir, port, &stop_flag, ready, (void *)dir, quiet ? NULL : stderr, &err)) {
            fprintf(stderr, "pagesift-annotate: %s\n", err.msg);
            rc = err.code == PS_ERR_USAGE ? 2 : 3;
            goto out;
        }
    }
out:
    free(tags);
    return rc;
}
