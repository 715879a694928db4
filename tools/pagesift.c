/* pagesift — extract the main text of web pages: one page, or a collection
 * (files, folders, stdin) on all cores, as text, JSON Lines or a marked-up
 * HTML view.  The work is in the library (ps_batch_run, methods/batch.c);
 * this is option parsing, setup errors and the summary. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pagesift.h"
#include "pagesift/batch.h"
#include "pagesift/util.h"

static void usage(FILE *f)
{
    fputs(
        "Usage: pagesift [OPTION]... [INPUT]...\n"
        "Extract the main text of web pages, removing navigation, copyright lines,\n"
        "ads, related links and comments.\n"
        "\n"
        "INPUT is an HTML file; a folder (searched recursively, in name order, for\n"
        ".html/.htm/.xhtml pages and WARC files; a folder with an index.tsv is a\n"
        "data set, read in index order with its URLs); a WARC file (.warc or\n"
        ".warc.gz, WARC 1.0/1.1, plain or gzip: HTML response records are pages,\n"
        "other records are counted as skipped); or '-', standard input (the default\n"
        "when no INPUT is given): one page, a WARC stream, or JSON Lines with --jsonl.\n"
        "  -l, --list FILE         also the pages listed in FILE, one per line:\n"
        "                          PATH<TAB>URL (paths relative to FILE's folder)\n"
        "      --jsonl             standard input is JSON Lines, one page per line:\n"
        "                          {\"url\": ..., \"html\": ...[, \"id\": ...]}\n"
        "A page's site (for its template library) is derived from its URL; pages\n"
        "without a URL get no template step, only the SVM.\n"
        "\n"
        "Output:\n"
        "  -f, --format FMT        text, jsonl or html.  Default: text for one page\n"
        "                          (the main text on standard output) or with\n"
        "                          --output-dir, jsonl otherwise.\n"
        "                          text with several pages: a line '==> ID <==' before\n"
        "                          each page's text.  jsonl: one object per page with\n"
        "                          id, url, site, title, text, blocks_kept,\n"
        "                          blocks_removed, status (ok, empty, failed), error\n"
        "                          (when failed), charset, origin.  html: the page with\n"
        "                          each block outlined content (green), noise (red) or\n"
        "                          template (purple, dashed), to check in a browser.\n"
        "  -o, --output-dir DIR    one file per page in DIR (created with\n"
           "                          its parents): ID.txt, ID.json\n"
        "                          or ID.html by format; ID.error (the message) for a\n"
        "                          page that failed in text/html format.  ID is the\n"
        "                          file name without extension; characters other than\n"
        "                          letters, digits, . - _ become _, and a repeated ID\n"
        "                          gets -2, -3, ... in input order.\n"
        "\n"
        "Method:\n"
        "  -m, --method NAME       extraction method (--method help lists them);\n"
        "                          default template-svm when templates are given\n"
        "                          or learnt, else svm\n"
        "  -M, --model BUNDLE      SVM model bundle (default: $PAGESIFT_MODEL, else\n"
        "                          the shipped model)\n"
        "  -T, --templates DIR     per-site template libraries (pagesift-template)\n"
        "      --learn-templates   learn the site libraries from the inputs first\n"
        "                          (the paper's setting), then extract: reads the\n"
        "                          inputs twice, so not standard input\n"
        "      --options LIST      method options, key=value,key=value\n"
        "      --site-rule RULE    site key of a URL: host (default) or host+path1\n"
        "\n"
        "Running:\n"
        "  -j, --jobs N            worker threads (default: all cores); methods that\n"
        "                          keep state across pages run on one\n"
        "      --unordered         write records as they finish, not in input order\n"
        "      --max-bytes N       pages larger than N bytes fail (default 64 MiB)\n"
        "  -q, --quiet             no progress, no per-page error lines, no summary\n"
        "  -h, --help              this help\n"
        "  -V, --version           version\n"
        "\n"
        "Every input page yields one output record, also when it fails.  At the end\n"
        "a summary goes to standard error (not for a single page): records read =\n"
        "extracted + empty + failed + skipped.\n"
        "\n"
        "Exit status: 0 every page extracted (or empty), 1 some page failed or the\n"
        "output could not be written, 2 usage error, 3 setup error (missing or\n"
        "corrupt model or template library, output folder not writable).\n",
        f);
}

/* ---- inputs ----------------------------------------------------------- */

static ps_source *open_source(char **args, size_t n, const char *list, const ps_source_options *so,
                              ps_error *err)
{
    static const char *const dash[] = {"-"};
    if (n == 0 && !list)
        return ps_source_open(dash, 1, NULL, so, err);
    return ps_source_open((const char *const *)args, n, list, so, err);
}

/* ---- main ---------------------------------------------------------------- */

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || v == 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = (size_t)v;
    return 0;
}

static void list_methods(FILE *f)
{
    fputs("Methods:\n", f);
    for (size_t i = 0; ps_method_name(i); i++)
        fprintf(f, "  %-14s %s\n", ps_method_name(i), ps_method_summary(i));
}

static int method_known(const char *name)
{
    for (size_t i = 0; ps_method_name(i); i++)
        if (strcmp(ps_method_name(i), name) == 0)
            return 1;
    return 0;
}

enum {
    OPT_OPTIONS = 256, OPT_SITE_RULE, OPT_UNORDERED, OPT_MAX_BYTES, OPT_JSONL, OPT_LEARN
};

/* Does the argument name something ps_source reads as several pages? */
static int is_collection(const char *arg)
{
    struct stat st;
    if (strcmp(arg, "-") == 0)
        return 0;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    size_t n = strlen(arg);
    return (n >= 5 && strcmp(arg + n - 5, ".warc") == 0) ||
           (n >= 8 && strcmp(arg + n - 8, ".warc.gz") == 0);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},   {"output-dir", required_argument, 0, 'o'},
        {"method", required_argument, 0, 'm'},   {"model", required_argument, 0, 'M'},
        {"templates", required_argument, 0, 'T'},
        {"learn-templates", no_argument, 0, OPT_LEARN},
        {"options", required_argument, 0, OPT_OPTIONS},
        {"site-rule", required_argument, 0, OPT_SITE_RULE},
        {"list", required_argument, 0, 'l'},     {"jsonl", no_argument, 0, OPT_JSONL},
        {"jobs", required_argument, 0, 'j'},     {"unordered", no_argument, 0, OPT_UNORDERED},
        {"max-bytes", required_argument, 0, OPT_MAX_BYTES},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
    const char *format = NULL, *method = NULL, *list = NULL;
    ps_extractor_config xc = {0};
    ps_batch_config bc = {0};
    ps_source_options so = {0};
    int learn = 0;
    long jobs = 0;
    int c;
    while ((c = getopt_long(argc, argv, "f:o:m:M:T:l:j:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': bc.output_dir = optarg; break;
        case 'm': method = optarg; break;
        case 'M': xc.model_path = optarg; break;
        case 'T': xc.templates_dir = optarg; break;
        case OPT_LEARN: learn = 1; break;
        case OPT_OPTIONS: xc.options = optarg; break;
        case OPT_SITE_RULE:
            if (strcmp(optarg, "host") == 0)
                bc.site_rule = PS_SITE_HOST;
            else if (strcmp(optarg, "host+path1") == 0)
                bc.site_rule = PS_SITE_HOST_PATH1;
            else {
                fprintf(stderr, "pagesift: --site-rule: '%s' is not host or host+path1\n", optarg);
                return 2;
            }
            break;
        case 'l': list = optarg; break;
        case OPT_JSONL: so.jsonl_stdin = 1; break;
        case 'j': {
            char *end;
            jobs = strtol(optarg, &end, 10);
            if (*end || jobs < 1 || jobs > 1024) {
                fprintf(stderr, "pagesift: --jobs: '%s' is not a number from 1 to 1024\n", optarg);
                return 2;
            }
            break;
        }
        case OPT_UNORDERED: bc.unordered = 1; break;
        case OPT_MAX_BYTES:
            if (parse_size(optarg, &bc.max_bytes) != 0) {
                fprintf(stderr, "pagesift: --max-bytes: '%s' is not a size (e.g. 8M)\n", optarg);
                return 2;
            }
            break;
        case 'q': bc.quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift %s\n", ps_version()); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (method && strcmp(method, "help") == 0) {
        list_methods(stdout);
        return 0;
    }
    if (!format)
        bc.format = PS_FORMAT_TEXT;
    else if (strcmp(format, "text") == 0)
        bc.format = PS_FORMAT_TEXT;
    else if (strcmp(format, "jsonl") == 0)
        bc.format = PS_FORMAT_JSONL;
    else if (strcmp(format, "html") == 0)
        bc.format = PS_FORMAT_HTML;
    else {
        fprintf(stderr, "pagesift: --format: '%s' is not text, jsonl or html\n", format);
        return 2;
    }
    char **args = argv + optind;
    size_t n_args = (size_t)(argc - optind);
    int n_stdin = n_args == 0 && !list;
    for (size_t i = 0; i < n_args; i++)
        n_stdin += strcmp(args[i], "-") == 0;
    if (n_stdin > 1) {
        fprintf(stderr, "pagesift: standard input ('-') can be given once\n");
        return 2;
    }
    if (learn && xc.templates_dir) {
        fprintf(stderr, "pagesift: --learn-templates and --templates exclude each other\n");
        return 2;
    }
    if (learn && n_stdin) {
        fprintf(stderr, "pagesift: --learn-templates reads the inputs twice: give files, "
                        "folders, WARC files or --list, not standard input\n");
        return 2;
    }
    if (!method)
        method = xc.templates_dir || learn ? "template-svm" : "svm";
    if (learn && strcmp(method, "template-svm") != 0) {
        fprintf(stderr, "pagesift: --learn-templates goes with --method template-svm\n");
        return 2;
    }
    so.max_bytes = bc.max_bytes;
    bc.workers = jobs ? (unsigned)jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (bc.workers < 1)
        bc.workers = 1;

    ps_init();
    ps_error err = {0};
    /* Every setup error comes before any page is read. */
    ps_extractor *ex = NULL;
    if (learn) {
        /* the extractor needs the learnt libraries (the batch makes it after
         * its first pass): check the model now */
        ps_model *m = ps_model_load(xc.model_path ? xc.model_path : ps_model_default_path(), &err);
        if (!m) {
            fprintf(stderr, "pagesift: %s\n", err.msg);
            return 3;
        }
        ps_model_free(m);
        bc.learn_templates = 1;
        bc.method = method;
        bc.extractor_config = &xc;
    } else {
        ex = ps_extractor_new(method, &xc, &err);
        if (!ex) {
            fprintf(stderr, "pagesift: %s\n", err.msg);
            if (err.code == PS_ERR_USAGE && !method_known(method))
                list_methods(stderr);
            return err.code == PS_ERR_USAGE ? 2 : 3;
        }
    }
    if (bc.output_dir && ps_batch_prepare_output_dir(bc.output_dir, &err) != 0) {
        fprintf(stderr, "pagesift: %s\n", err.msg);
        ps_extractor_free(ex);
        return 3;
    }
    ps_source *src = open_source(args, n_args, list, &so, &err);
    if (!src) {
        fprintf(stderr, "pagesift: %s\n", err.msg);
        ps_extractor_free(ex);
        return 3;
    }
    int single = !list && !so.jsonl_stdin && n_args <= 1 && (n_args == 0 || !is_collection(args[0]));
    if (!format && !single && !bc.output_dir)
        bc.format = PS_FORMAT_JSONL;
    bc.out = stdout;
    bc.text_headers = !single;
    bc.total_hint = ps_source_total_hint(src);
    bc.extractor = ex;

    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_batch_counts n = {0};
    int rc = ps_batch_run(&bc, src, &n, &err);
    double dt = ps_clock(PS_CLOCK_WALL) - t0;
    ps_source_free(src);
    ps_extractor_free(ex);
    if (rc != 0) {
        fprintf(stderr, "pagesift: %s\n", err.msg);
        if (n.setup_failed)
            return 3;
    }
    if (!bc.quiet && !(single && n.read == 1))
        fprintf(stderr,
                "pagesift: %zu records read: %zu extracted, %zu empty, %zu failed, %zu skipped "
                "(%.2f s, %.1f pages/s, %.2f MB/s, %s, %u thread%s)\n",
                n.read, n.extracted, n.empty, n.failed, n.skipped, dt,
                dt > 0 ? (double)n.read / dt : 0.0, dt > 0 ? (double)n.bytes / dt / 1e6 : 0.0,
                method, bc.workers, bc.workers == 1 ? "" : "s");
    return rc != 0 || n.failed ? 1 : 0;
}
