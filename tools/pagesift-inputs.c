/* pagesift-inputs — list (or extract) the pages pagesift's tools would read
 * from files, folders, list files, WARC files, data sets or JSON Lines: the
 * ps_source of pagesift.h on the command line.  Also the reader's
 * benchmark: --count prints only the summary with the read rate. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pagesift/inputs.h"
#include "pagesift/util.h"
#include "pagesift.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-inputs [OPTION]... [INPUT]...\n"
          "List the pages pagesift's tools read from INPUTs, one line each:\n"
          "  STATUS<TAB>ID<TAB>BYTES<TAB>URL<TAB>CHARSET<TAB>ORIGIN<TAB>MESSAGE\n"
          "STATUS is ok, failed or skipped (a WARC record that is not an HTML page).\n"
          "INPUTs: page files, folders (searched recursively, sorted), WARC files\n"
          "(.warc, .warc.gz, plain or gzip), JSON Lines files (.jsonl, .ndjson, plain\n"
          "or .gz), data set folders (with index.tsv), '-' for standard input (a page\n"
          "or a WARC stream; JSON Lines with --jsonl); a named pipe or a shell's\n"
          "<(zcat ...) is read as '-' is.\n"
          "\n"
          "  -l, --list FILE        also read the inputs listed in FILE, one a line:\n"
          "                         PATH<TAB>URL[<TAB>GOLD] for a page, PATH for a WARC\n"
          "                         file, a JSON Lines file or a folder (relative paths\n"
          "                         relative to FILE's folder; '-': standard input,\n"
          "                         relative to the current folder)\n"
          "      --jsonl            '-' is JSON Lines, one page a line:\n"
          "                         {\"url\":..,\"html\":..[,\"id\":..][,\"charset\":..]}\n"
          "      --max-bytes N      per-page limit in bytes (default 64 MiB); larger\n"
          "                         pages fail\n"
          "  -x, --extract DIR      write each page's bytes (the HTTP body for WARC) to\n"
          "                         DIR/ID.html\n"
          "  -c, --count            print no lines, only the summary (with the read rate)\n"
          "  -q, --quiet            no summary, no progress\n"
          "  -h, --help             this help\n"
          "  -V, --version          version\n"
          "\n"
          "The summary (stderr) counts records read, pages, failed and skipped records.\n"
          "Exit status: 0 ok, 1 some input failed, 2 usage error, 3 fatal setup error\n"
          "(unreadable list file or output folder, out of memory).\n",
          f);
}

/* Write a page to dir/id.html.  Returns 0 or -1 (message printed). */
static int extract(const char *dir, const ps_input *in)
{
    size_t n = strlen(dir) + strlen(in->id) + 8;
    char *path = malloc(n);
    if (!path)
        return -1;
    snprintf(path, n, "%s/%s.html", dir, in->id);
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(in->data, 1, in->len, f) != in->len;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        fprintf(stderr, "pagesift-inputs: %s: %s\n", path, strerror(errno));
    free(path);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    enum { OPT_JSONL = 256, OPT_MAX };
    static const struct option opts[] = {
        {"list", required_argument, 0, 'l'}, {"jsonl", no_argument, 0, OPT_JSONL},
        {"max-bytes", required_argument, 0, OPT_MAX}, {"extract", required_argument, 0, 'x'},
        {"count", no_argument, 0, 'c'},      {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},       {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    ps_source_options so = {0};
    const char *list = NULL, *xdir = NULL;
    int count_only = 0, quiet = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":l:x:cqhV", opts, NULL)) != -1) {
        switch (c) {
        case 'l': list = optarg; break;
        case OPT_JSONL: so.jsonl_stdin = 1; break;
        case OPT_MAX: {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || *end || !v || optarg[0] == '-') {
                fprintf(stderr, "pagesift-inputs: --max-bytes: not a positive number: %s\n", optarg);
                return 2;
            }
            so.max_bytes = (size_t)v;
            break;
        }
        case 'x': xdir = optarg; break;
        case 'c': count_only = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-inputs %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-inputs", c, argv);
        }
    }
    if (optind == argc && !list) {
        usage(stderr);
        return 2;
    }
    struct stat st;
    if (xdir && (stat(xdir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "pagesift-inputs: %s: not a folder\n", xdir);
        return 3;
    }
    ps_error err = {0};
    ps_source *src = ps_source_open((const char *const *)argv + optind, (size_t)(argc - optind), list, &so, &err);
    if (!src) {
        fprintf(stderr, "pagesift-inputs: %s\n", err.msg);
        return err.code == PS_ERR_USAGE ? 2 : 3;
    }
    ps_progress *pr = ps_progress_new("records", ps_source_total_hint(src), quiet);
    size_t records = 0, pages = 0, failed = 0, skipped = 0;
    unsigned long long bytes = 0;
    int rc = 0, r;
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_input in = {0};
    while ((r = ps_source_next(src, &in, &err)) == 1) {
        records++;
        const char *status = in.skipped ? "skipped" : in.status != PS_OK ? "failed" : "ok";
        if (in.skipped)
            skipped++;
        else if (in.status != PS_OK)
            failed++;
        else {
            pages++;
            bytes += in.len;
            if (xdir && extract(xdir, &in))
                rc = 3;
        }
        if (!count_only)
            printf("%s\t%s\t%zu\t%s\t%s\t%s\t%s\n", status, in.id ? in.id : "", in.len, in.url ? in.url : "",
                   in.charset ? in.charset : "-", in.origin ? in.origin : "",
                   in.status != PS_OK || in.skipped ? in.msg : "");
        if (in.status != PS_OK && !quiet)
            fprintf(stderr, "pagesift-inputs: %s\n", in.msg);
        ps_progress_update(pr, records, NULL);
        if (rc == 3)
            break;
    }
    double secs = ps_clock(PS_CLOCK_WALL) - t0;
    ps_progress_done(pr);
    ps_input_clear(&in);
    ps_source_free(src);
    if (r < 0) {
        fprintf(stderr, "pagesift-inputs: %s\n", err.msg);
        return 3;
    }
    if (!quiet)
        fprintf(stderr, "pagesift-inputs: %zu records: %zu pages (%.1f MB), %zu failed, %zu skipped; "
                        "%.2f s, %.1f MB/s of pages\n",
                records, pages, bytes / 1e6, failed, skipped, secs, secs > 0 ? bytes / 1e6 / secs : 0.0);
    if (rc)
        return rc;
    return failed ? 1 : 0;
}
