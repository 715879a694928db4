/* pagesift — extract the main text of web pages: one page, or a collection
 * (files, folders, stdin) on all cores, as text, JSON Lines or a marked-up
 * HTML view.  The work is in methods/batch.c; this is option parsing, the
 * input reader and the summary. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "methods/batch.h"
#include "pagesift.h"

static void usage(FILE *f)
{
    fputs(
        "Usage: pagesift [OPTION]... [INPUT]...\n"
        "Extract the main text of web pages, removing navigation, copyright lines,\n"
        "ads, related links and comments.  INPUT is an HTML file, a folder (read\n"
        "recursively, in name order) or '-' for one page on standard input (the\n"
        "default when no INPUT is given).\n"
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
        "  -o, --output-dir DIR    one file per page in DIR (created): ID.txt, ID.json\n"
        "                          or ID.html by format; ID.error (the message) for a\n"
        "                          page that failed in text/html format.  ID is the\n"
        "                          file name without extension; characters other than\n"
        "                          letters, digits, . - _ become _, and a repeated ID\n"
        "                          gets -2, -3, ... in input order.\n"
        "\n"
        "Method:\n"
        "  -m, --method NAME       extraction method (--method help lists them);\n"
        "                          default template-svm when templates are given,\n"
        "                          else svm\n"
        "  -M, --model BUNDLE      SVM model bundle (default: the shipped model)\n"
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

/* ---- inputs: files, folders, stdin ---------------------------------------
 * TEMPORARY: replaced by ps_source (extract/inputs.c) when it lands. */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static int push_path(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    return (l->v[l->n++] = strdup(p)) ? 0 : -1;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(path_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return push_path(l, dir); /* reported as a failed page */
    path_list sub = {0};
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && push_path(&sub, e->d_name) != 0)
            break;
    closedir(d);
    qsort(sub.v, sub.n, sizeof *sub.v, name_cmp);
    int rc = 0;
    for (size_t i = 0; i < sub.n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, sub.v[i]);
        struct stat st;
        if (rc == 0)
            rc = stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? walk(l, p) : push_path(l, p);
        free(sub.v[i]);
    }
    free(sub.v);
    return rc;
}

typedef struct reader {
    path_list paths;
    size_t next;
    size_t max_bytes;
} reader;

static char *stem_of(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
    return strndup(b, n);
}

static int read_next(void *vctx, ps_batch_input *in, ps_error *err)
{
    reader *r = vctx;
    if (r->next == r->paths.n)
        return 0;
    const char *p = r->paths.v[r->next++];
    int is_stdin = strcmp(p, "-") == 0;
    in->id = strdup(is_stdin ? "stdin" : "");
    if (!is_stdin) {
        free(in->id);
        in->id = stem_of(p);
    }
    in->origin = strdup(is_stdin ? "standard input" : p);
    if (!in->id || !in->origin)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    ps_error e = {0};
    in->data = ps_read_file(is_stdin ? "/dev/stdin" : p, r->max_bytes, &in->len, &e);
    if (!in->data) {
        in->status = e.code ? e.code : PS_ERR_IO;
        snprintf(in->msg, sizeof in->msg, "%s", e.msg);
    }
    return 1;
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum { OPT_OPTIONS = 256, OPT_SITE_RULE, OPT_UNORDERED, OPT_MAX_BYTES };

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},   {"output-dir", required_argument, 0, 'o'},
        {"method", required_argument, 0, 'm'},   {"model", required_argument, 0, 'M'},
        {"options", required_argument, 0, OPT_OPTIONS},
        {"site-rule", required_argument, 0, OPT_SITE_RULE},
        {"jobs", required_argument, 0, 'j'},     {"unordered", no_argument, 0, OPT_UNORDERED},
        {"max-bytes", required_argument, 0, OPT_MAX_BYTES},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
    const char *format = NULL, *method = NULL;
    ps_extractor_config xc = {0};
    ps_batch_config bc = {0};
    long jobs = 0;
    int c;
    while ((c = getopt_long(argc, argv, "f:o:m:M:j:qhV", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': bc.output_dir = optarg; break;
        case 'm': method = optarg; break;
        case 'M': xc.model_path = optarg; break;
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
    int n_stdin = 0;
    for (int i = optind; i < argc; i++)
        n_stdin += strcmp(argv[i], "-") == 0;
    if (n_stdin > 1) {
        fprintf(stderr, "pagesift: standard input ('-') can be given once\n");
        return 2;
    }
    if (!method)
        method = xc.templates_dir ? "template-svm" : "svm";

    ps_init();
    ps_error err = {0};
    /* Set-up errors come before any page is read. */
    ps_extractor *ex = ps_extractor_new(method, &xc, &err);
    if (!ex) {
        fprintf(stderr, "pagesift: %s\n", err.msg);
        if (err.code == PS_ERR_USAGE && !method_known(method))
            list_methods(stderr);
        return err.code == PS_ERR_USAGE ? 2 : 3;
    }
    if (bc.output_dir && ps_batch_prepare_output_dir(bc.output_dir, &err) != 0) {
        fprintf(stderr, "pagesift: %s\n", err.msg);
        ps_extractor_free(ex);
        return 3;
    }

    reader rd = {0};
    rd.max_bytes = bc.max_bytes ? bc.max_bytes : PS_DEFAULT_MAX_BYTES;
    int single = 0, rc_walk = 0;
    if (optind == argc) {
        rc_walk = push_path(&rd.paths, "-");
        single = 1;
    } else {
        for (int i = optind; i < argc && rc_walk == 0; i++) {
            struct stat st;
            if (strcmp(argv[i], "-") != 0 && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                rc_walk = walk(&rd.paths, argv[i]);
            else
                rc_walk = push_path(&rd.paths, argv[i]);
        }
        struct stat st;
        single = argc - optind == 1 &&
                 !(stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode));
    }
    if (rc_walk != 0) {
        fprintf(stderr, "pagesift: out of memory listing the inputs\n");
        return 3;
    }
    if (!format && !single && !bc.output_dir)
        bc.format = PS_FORMAT_JSONL;
    bc.extractor = ex;
    bc.out = stdout;
    bc.text_headers = !single;
    bc.workers = jobs ? (unsigned)jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (bc.workers < 1)
        bc.workers = 1;
    bc.total_hint = rd.paths.n;

    double t0 = now();
    ps_batch_counts n = {0};
    int rc = ps_batch_run(&bc, read_next, &rd, &n, &err);
    double dt = now() - t0;
    if (rc != 0)
        fprintf(stderr, "pagesift: %s\n", err.msg);
    if (!bc.quiet && !(single && n.read == 1))
        fprintf(stderr,
                "pagesift: %zu records read: %zu extracted, %zu empty, %zu failed, %zu skipped "
                "(%.2f s, %.1f pages/s, %.2f MB/s, %s, %u thread%s)\n",
                n.read, n.extracted, n.empty, n.failed, n.skipped, dt,
                dt > 0 ? (double)n.read / dt : 0.0, dt > 0 ? (double)n.bytes / dt / 1e6 : 0.0,
                ps_extractor_method(ex), bc.workers, bc.workers == 1 ? "" : "s");
    for (size_t i = 0; i < rd.paths.n; i++)
        free(rd.paths.v[i]);
    free(rd.paths.v);
    ps_extractor_free(ex);
    return rc != 0 || n.failed ? 1 : 0;
}
