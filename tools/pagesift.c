/* pagesift — extract the main text of web pages: one page, or a collection
 * (files, folders, stdin) on all cores, in any output format of the
 * library's format table (--format help).  The work is in the library (ps_batch_run, batch/batch.c);
 * this is option parsing, setup errors and the summary. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pagesift.h"
#include "pagesift/batch.h"
#include "pagesift/inputs.h"
#include "pagesift/model.h"
#include "pagesift/options.h"
#include "pagesift/util.h"

#include "cli.h"

/* allocations of this many bytes and more are mapped for themselves, and
 * a worker's heap keeps at most this much free memory at its top (main) */
#define PS_MMAP_THRESHOLD (256 << 10)
#define PS_TRIM_THRESHOLD (4 << 20)

/* @p text after a name that ends at column @p indent, wrapped at 79
 * columns, the next lines indented as far. */
static void print_wrapped(FILE *f, const char *text, int indent)
{
    int col = indent;
    for (const char *s = text; *s;) {
        size_t w = strcspn(s, " ");
        if (col > indent && col + 1 + (int)w > 79) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        }
        fprintf(f, " %.*s", (int)w, s);
        col += 1 + (int)w;
        s += w;
        s += strspn(s, " ");
    }
    fputc('\n', f);
}

/* The format table (ps_format_name, output/formats.c): each format's name,
 * what it writes and its file with --output-dir, wrapped at 79 columns. */
static void list_formats(FILE *f)
{
    fputs("Formats (--format NAME):\n", f);
    for (size_t i = 0; ps_format_name(i); i++) {
        char line[512];
        snprintf(line, sizeof line, "%s (ID%s)", ps_format_summary(i), ps_format_extension(i));
        fprintf(f, "  %-11s", ps_format_name(i));
        print_wrapped(f, line, 13);
    }
}

/* The option table of @p method (ps_method_option, pagesift/options.h): each
 * option's key, what it accepts, its default and its doc line. */
static void list_options(FILE *f, const char *method)
{
    ps_option_info o;
    fprintf(f, "Options of %s (--options KEY=VALUE,...):\n", method);
    for (size_t i = 0; ps_method_option(method, i, &o) == 0; i++) {
        char line[600];
        snprintf(line, sizeof line, "%s%s%s%s: %s", o.accepts, o.default_value[0] ? " (default " : "", o.default_value,
                 o.default_value[0] ? ")" : "", o.doc);
        fprintf(f, "  %-16s", o.key);
        print_wrapped(f, line, 18);
    }
    if (ps_method_option(method, 0, &o) != 0)
        fputs("  (none)\n", f);
}

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
        "other records are counted as skipped); a JSON Lines file (.jsonl or\n"
        ".ndjson, plain or .gz: one page per line, as --jsonl below; a line\n"
        "without an id is FILE-line-N); or '-', standard input (the default\n"
        "when no INPUT is given, unless it is a terminal): one page, a WARC stream,\n"
        "or JSON Lines with --jsonl (a named pipe or a shell's <(zcat ...) is\n"
        "read the same way, once, JSON Lines by its name); or a URL (http://,\n"
        "https://: fetched, see below).  In a folder, other files are read when\n"
        "their content is HTML (article.php, index.html?p=2, no extension: wget\n"
        "and httrack mirrors), .html.gz/.htm.gz are unpacked, and the rest is\n"
        "counted as skipped (-v names each).  No page at all in the inputs is an\n"
        "error.\n"
        "  -l, --list FILE         also the inputs listed in FILE, one per line:\n"
        "                          PATH<TAB>URL for a page, PATH for a WARC file\n"
        "                          (.warc, .warc.gz), a JSON Lines file or a folder\n"
        "                          (paths relative to FILE's folder; '-': standard\n"
        "                          input, paths relative to the current folder); a\n"
        "                          pipe is read as it comes\n"
        "      --jsonl             standard input is JSON Lines, one page per line:\n"
        "                          {\"url\": ..., \"html\": ...[, \"id\": ...]}\n"
        "\n"
        "Fetching (docs/FETCH.md): an INPUT starting with http:// or https:// is a\n"
        "URL, fetched with every other URL, many hosts at once; records come in\n"
        "the order fetches finish, with http_status and final_url in JSON Lines.\n"
        "robots.txt is obeyed, a host gets at most --per-host connections and one\n"
        "request start per --delay; a fetch that fails (network, timeout, size,\n"
        "HTTP status, robots.txt) is a failed record, a response that is not HTML\n"
        "is skipped.\n"
        "      --urls FILE         also fetch the URLs in FILE, one a line ('-':\n"
        "                          standard input; '#' lines ignored)\n"
        "      --user-agent S      the User-Agent (default pagesift/VERSION); its\n"
        "                          first word is the token robots.txt is read for\n"
        "      --contact C         a way to reach you (mail or URL), added to the\n"
        "                          User-Agent as (+C): please give one\n"
        "      --per-host N        connections to one host at once (default 2)\n"
        "      --delay S           seconds between two request starts on one host\n"
        "                          (default 1; robots.txt Crawl-delay raises it)\n"
        "      --max-connections N connections at once in all (default 64)\n"
        "      --connect-timeout S seconds to connect (default 10)\n"
        "      --timeout S         seconds for a whole response (default 30)\n"
        "      --retries N         retries of HTTP 5xx, 429 and connection errors,\n"
        "                          after 1, 2, 4 ... s or Retry-After (default 2)\n"
        "      --ignore-robots     do not fetch nor obey robots.txt\n"
        "      --sitemap URL       also fetch the pages a sitemap lists (a sitemap\n"
        "                          index: its sitemaps; .xml or .xml.gz); repeatable\n"
        "      --lastmod-since D   with --sitemap: leave out entries (and sitemaps)\n"
        "                          whose lastmod is before the date D (YYYY-MM-DD)\n"
        "      --feed URL          also fetch the pages an RSS or Atom feed links to;\n"
        "                          repeatable\n"
        "      --warc-out FILE     append every response fetched (and its request)\n"
        "                          to FILE as WARC records, one gzip member each\n"
        "                          (name it .warc.gz): the run can be extracted\n"
        "                          again from it, offline\n"
        "A page's site (for its template library) is derived from its URL; pages\n"
        "without a URL get no template step, only the SVM.\n"
        "\n"
        "Output:\n"
        "  -f, --format FMT        the output format: one of the Formats below\n"
        "                          (--format help lists them).\n"
        "                          Default: text when the input is one page, when\n"
        "                          standard output is a terminal or with\n"
        "                          --output-dir; jsonl otherwise (several pages\n"
        "                          into a pipe or a file).\n"
        "      --links             markdown, xml, clean-html: keep links\n"
        "      --images            markdown, xml, clean-html: keep images (with alt)\n"
        "      --with-metadata     text, markdown: YAML front matter before each\n"
        "                          page (id, url, title, author, date, ...,\n"
        "                          page_type)\n"
        "  -o, --output-dir DIR    one file per page in DIR (created with its\n"
        "                          parents): ID and the format's extension (below:\n"
        "                          ID.txt, ...);\n"
        "                          ID.error (the message) for a page that failed in a\n"
        "                          format whose records do not carry failures.  ID is\n"
        "                          the file name without extension; characters other\n"
        "                          than letters, digits, . - _ become _, and a repeated\n"
        "                          ID gets -2, -3, ... in input order.\n"
        "                          DIR/manifest.tsv gets a line per record read:\n"
        "                          file, status, url, id, origin, note (appended;\n"
        "                          the last line of an id is its page's)\n"
        "      --no-manifest       with --output-dir: no DIR/manifest.tsv\n"
        "\n",
        f);
    list_formats(f);
    fputs("\n"
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
        "      --options LIST      method options, key=value,key=value (--options\n"
        "                          help lists the method's: what each accepts, its\n"
        "                          default and what it does)\n"
        "      --no-comments       drop comment threads under the article (default;\n"
        "                          svm and template-svm: --options comments=1)\n"
        "      --with-comments     keep them (--options comments=0)\n"
        "      --no-tables         leave data tables (tables with a header row)\n"
        "                          out of the result (--options no_tables=1)\n"
        "      --favor WHAT        precision (keep less: fewer wrong lines, more\n"
        "                          text missed), recall (keep more) or balanced\n"
        "                          (default); svm and template-svm: --options\n"
        "                          favor=WHAT (the SVM's threshold and the fill)\n"
        "      --page-types BUNDLE the page-type classifier whose page_type (and its\n"
        "                          probability) JSON Lines and XML report (default:\n"
        "                          $PAGESIFT_PAGE_TYPES, else page-types.model beside\n"
        "                          the shipped model when there); none: no page types\n"
        "                          (about 4 % faster, docs/PAGE_TYPES.md)\n"
        "      --site-rule RULE    site key of a URL: host (default) or host+path1\n"
        "      --models DIR        per-site models (pagesift-train --per-site): a page\n"
        "                          whose site has a bundle in DIR is classified with\n"
        "                          it (a stacked --model: in place of its first stage,\n"
        "                          then its second stage), others with --model's; a\n"
        "                          bundle that cannot be used is a warning, its site\n"
        "                          gets the default (a DIR with no bundle: one warning);\n"
        "                          the JSON record's \"model\" says which (svm,\n"
        "                          template-svm)\n"
        "      --models-cap MB     memory for loaded site models, least recently used\n"
        "                          unloaded first (default 256)\n"
        "      --site-base MODEL   with a reduced --model (default.fast.model): the\n"
        "                          model it was reduced from, the site models' base,\n"
        "                          for their sites' pages (default: the file its\n"
        "                          reduced_from_file key names, beside it; loaded\n"
        "                          when a site bundle first needs it)\n"
        "\n"
        "Running:\n"
        "  -j, --jobs N            worker threads (default: all cores); methods that\n"
        "                          keep state across pages run on one\n"
        "      --unordered         write records as they finish, not in input order\n"
        "      --max-bytes N       pages larger than N bytes fail (default 64 MiB;\n"
        "                          suffix k, M, G; from 1 to 1 GiB); also the cap of\n"
        "                          a fetched response as sent\n"
        "      --lang LIST         keep only pages in these languages (ISO 639-1\n"
        "                          codes, comma-separated, e.g. de,en; detected\n"
        "                          with CLD2, else declared): others, and pages\n"
        "                          of unknown language, get no record and are\n"
        "                          counted as filtered\n"
        "      --dedup             drop duplicate pages: a page whose main text has\n"
        "                          the same words as a page's written before it, or\n"
        "                          nearly (SimHash of word 3-shingles), is a record\n"
        "                          of status duplicate naming the kept page (no\n"
        "                          text; -o: ID.duplicate), counted as duplicates;\n"
        "                          in input order (not with --unordered)\n"
        "      --dedup-distance N  with --dedup (implied): SimHash bits that near\n"
        "                          duplicates may differ in, 0 (same words only) to\n"
        "                          8 (default 6)\n"
        "      --page-timeout S    a page taking longer than S seconds fails\n"
        "                          (default 30; 0 = no limit); with\n"
        "                          --learn-templates, a page taking longer to\n"
        "                          learn from is left out of learning\n"
        "      --skip-existing     with --output-dir: pages whose output file is\n"
        "                          there are skipped (resume a killed run); the\n"
        "                          temporary files of a run killed while writing\n"
        "                          (ID.txt.tmp.RUN.XXXXXX) are removed first, not\n"
        "                          those of a run still writing (DIR/.pagesift-run.RUN)\n"
        "                          (a run with every page done says so, exit 0)\n"
        "      --fail-fast         stop at the first record that cannot be written\n"
        "                          (default: that record fails, the run goes on)\n"
        "  -q, --quiet             no progress, no per-page error lines, no summary\n"
        "  -v, --verbose           name each skipped file or record and why\n"
        "  -h, --help              this help\n"
        "  -V, --version           version\n"
        "\n"
        "Every input page yields one output record, also when it fails.  At the end\n"
        "a summary goes to standard error (not for a single page): records read =\n"
        "extracted + empty + failed + skipped (+ filtered, with --lang;\n"
        "+ duplicates, with --dedup).  On a terminal, progress shows pages\n"
        "done of the total (when known), rate, time left and failures so far.\n"
        "A single page that fails writes nothing on standard output (the message\n"
        "is on standard error); one whose result is empty says so on standard\n"
        "error.\n"
        "\n"
        "SIGINT (Ctrl-C) or SIGTERM stops a run cleanly: no more input is read,\n"
        "pages being extracted finish, every finished record is written whole\n"
        "(no temporary file is left), pages read but not started are abandoned\n"
        "without a record, and the summary says how many; with --output-dir,\n"
        "--skip-existing completes the run later.  A second signal ends it at once.\n"
        "\n"
        "Exit status: 0 every page extracted (or empty), 1 some page failed or the\n"
        "output could not be written, 2 usage error (also: no input at a terminal,\n"
        "no page in the inputs), 3 setup error (missing or\n"
        "corrupt model or template library, output folder not writable),\n"
        "130 stopped by SIGINT, 143 stopped by SIGTERM.\n",
        f);
}

/* ---- inputs ----------------------------------------------------------- */

static ps_source *open_source(char **args, size_t n, const char *list, const ps_source_options *so,
                              const ps_fetch_options *fo, int fetch_inputs, ps_error *err)
{
    static const char *const dash[] = {"-"};
    if (n == 0 && !list && !fetch_inputs)
        return ps_source_open_fetch(dash, 1, NULL, so, fo, err);
    return ps_source_open_fetch((const char *const *)args, n, list, so, fo, err);
}

static int ps_is_url_arg(const char *s)
{
    return !strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8);
}

/* ---- signals --------------------------------------------------------------- */

/* SIGINT/SIGTERM set a flag the batch looks at between pages (and every
 * 100 ms while waiting); the handler does nothing else but write(2) a line.
 * SA_RESETHAND: a second signal takes the default action (ends the run at
 * once).  SA_RESTART: a read or write interrupted by it goes on. */
static volatile sig_atomic_t got_signal;
static int signal_quiet, signal_tty;

static volatile int fetch_stop; /* the fetcher's copy of the flag (ps_fetch_options.interrupt) */

static void on_signal(int sig)
{
    got_signal = sig;
    fetch_stop = 1;
    if (!signal_quiet) {
        static const char msg[] = "\npagesift: stopping after the pages in flight (signal again: "
                                  "stop at once)\n";
        /* on a terminal, the newline ends the progress line */
        ssize_t w = write(STDERR_FILENO, msg + !signal_tty, sizeof msg - 1 - !signal_tty);
        (void)w;
    }
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa, old;
        /* an ignored SIGINT (a background job of a script, nohup) stays so */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART | SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- main ---------------------------------------------------------------- */

/* A size from 1 byte to 1 GiB (libxml2 takes a page's length as an int),
 * digits only (strtoull would take "-1" as 2^64 - 1), suffix k, M or G. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || v == 0)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v > (1ULL << 30) >> shift)
        return -1;
    *out = (size_t)(v << shift);
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
    OPT_OPTIONS = 256, OPT_SITE_RULE, OPT_UNORDERED, OPT_MAX_BYTES, OPT_JSONL, OPT_LEARN,
    OPT_WITH_COMMENTS, OPT_NO_COMMENTS, OPT_LINKS, OPT_IMAGES, OPT_FAVOR, OPT_MODELS, OPT_MODELS_CAP, OPT_SITE_BASE, OPT_PAGE_TYPES,
    OPT_PAGE_TIMEOUT, OPT_SKIP_EXISTING, OPT_FAIL_FAST,
    OPT_URLS, OPT_USER_AGENT, OPT_CONTACT, OPT_PER_HOST, OPT_DELAY, OPT_MAX_CONN, OPT_CONNECT_TIMEOUT,
    OPT_TIMEOUT, OPT_RETRIES, OPT_IGNORE_ROBOTS, OPT_WARC_OUT, OPT_SITEMAP, OPT_FEED, OPT_LASTMOD_SINCE,
    OPT_LANG, OPT_WITH_METADATA, OPT_NO_TABLES, OPT_DEDUP, OPT_DEDUP_DISTANCE, OPT_NO_MANIFEST
};

/* --skip-existing with fetching: a URL whose output is there is not fetched */
static int have_output(void *ctx, const char *id)
{
    return ps_batch_output_exists(ctx, id);
}

/* Seconds from 0 to max; -1 when not a number. */
static double parse_seconds(const char *s, double max)
{
    char *end;
    errno = 0;
    double t = strtod(s, &end);
    return errno || end == s || *end || !(t >= 0 && t <= max) ? -1 : t;
}

/* Does the argument name something ps_source reads as several pages? */
static int is_collection(const char *arg)
{
    struct stat st;
    if (strcmp(arg, "-") == 0 || ps_is_url_arg(arg))
        return 0;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    size_t n = strlen(arg);
    return (n >= 5 && strcmp(arg + n - 5, ".warc") == 0) ||
           (n >= 8 && strcmp(arg + n - 8, ".warc.gz") == 0);
}

/* Does the output folder hold a page's output (a file not starting with
 * '.', not a temporary one, not the manifest)?  A resumed run that skipped
 * every input and finds outputs there is complete. */
static int has_outputs(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)))
        found = e->d_name[0] != '.' && !strstr(e->d_name, ".tmp.") &&
                strcmp(e->d_name, PS_BATCH_MANIFEST) != 0;
    if (d)
        closedir(d);
    return found;
}

/* What the command line asks for: the options as parsed and checked, then
 * the extractor and the source set up from them. */
typedef struct cli_run {
    const char *format, *method, *list, *favor;
    ps_extractor_config xc;
    ps_batch_config bc;
    ps_source_options so;
    ps_fetch_options fo;
    int learn, verbose, comments, no_tables;
    long jobs;
    char **args;      /* the inputs named on the command line */
    size_t n_args;
    int fetch_inputs; /* URLs to fetch: --urls, --sitemap, --feed */
    int n_stdin;      /* inputs read from standard input */
    int single;       /* one page in: its text out, no headers */
    ps_error err;
    ps_extractor *ex;
    ps_source *src;
} cli_run;

/* parse_option, parse_options, check_options, prepare: GO_ON to carry on,
 * else the exit status of the run */
enum { GO_ON = -1 };

/* --sitemap and --feed URLs; static: reachable until exit (the leak
 * checker of the sanitizer build) */
static const char **sitemaps, **feeds;

/* One option @p c of the command line (its argument in optarg). */
static int parse_option(cli_run *r, int c, char **argv)
{
    switch (c) {
    case 'f': r->format = optarg; break;
    case 'o': r->bc.output_dir = optarg; break;
    case 'm': r->method = optarg; break;
    case 'M': r->xc.model_path = optarg; break;
    case 'T': r->xc.templates_dir = optarg; break;
    case OPT_LEARN: r->learn = 1; break;
    case OPT_OPTIONS: r->xc.options = optarg; break;
    case OPT_SITE_RULE:
        if (strcmp(optarg, "host") == 0)
            r->bc.site_rule = PS_SITE_HOST;
        else if (strcmp(optarg, "host+path1") == 0)
            r->bc.site_rule = PS_SITE_HOST_PATH1;
        else {
            fprintf(stderr, "pagesift: --site-rule: '%s' is not host or host+path1\n", optarg);
            return 2;
        }
        break;
    case 'l': r->list = optarg; break;
    case OPT_JSONL: r->so.jsonl_stdin = 1; break;
    case 'j': {
        char *end;
        r->jobs = strtol(optarg, &end, 10);
        if (*end || r->jobs < 1 || r->jobs > 1024) {
            fprintf(stderr, "pagesift: --jobs: '%s' is not a number from 1 to 1024\n", optarg);
            return 2;
        }
        break;
    }
    case OPT_UNORDERED: r->bc.unordered = 1; break;
    case OPT_LINKS: r->bc.render_flags |= PS_RENDER_LINKS; break;
    case OPT_IMAGES: r->bc.render_flags |= PS_RENDER_IMAGES; break;
    case OPT_WITH_METADATA: r->bc.render_flags |= PS_RENDER_METADATA; break;
    case OPT_MAX_BYTES:
        if (parse_size(optarg, &r->bc.max_bytes) != 0) {
            fprintf(stderr, "pagesift: --max-bytes: '%s' is not a size (e.g. 8M)\n", optarg);
            return 2;
        }
        break;
    case OPT_PAGE_TIMEOUT: {
        char *end;
        errno = 0;
        double t = strtod(optarg, &end);
        if (errno || end == optarg || *end || !(t >= 0 && t <= 86400)) {
            fprintf(stderr, "pagesift: --page-timeout: '%s' is not a number of seconds from 0 to 86400\n",
                    optarg);
            return 2;
        }
        r->bc.page_timeout = t;
        break;
    }
    case OPT_LANG: {
        /* comma-separated language codes: letters, 2 to 3 of them */
        int ok = *optarg != '\0';
        for (const char *p = optarg; ok && *p;) {
            size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
            ok = k >= 2 && k <= 3 && (p[k] == '\0' || (p[k] == ',' && p[k + 1]));
            p += k + (p[k] == ',');
        }
        if (!ok) {
            fprintf(stderr, "pagesift: --lang: '%s' is not a comma-separated list of language codes "
                            "(e.g. de,en)\n", optarg);
            return 2;
        }
        r->bc.langs = optarg;
        break;
    }
    case OPT_DEDUP: r->bc.dedup = 1; break;
    case OPT_DEDUP_DISTANCE: {
        char *end;
        long d = strtol(optarg, &end, 10);
        if (!*optarg || *end || d < 0 || d > 8) {
            fprintf(stderr, "pagesift: --dedup-distance: '%s' is not a number from 0 to 8\n", optarg);
            return 2;
        }
        r->bc.dedup = 1;
        r->bc.dedup_distance = d ? (int)d : PS_DEDUP_EXACT;
        break;
    }
    case OPT_SKIP_EXISTING: r->bc.skip_existing = 1; break;
    case OPT_NO_MANIFEST: r->bc.no_manifest = 1; break;
    case OPT_FAIL_FAST: r->bc.fail_fast = 1; break;
    case OPT_URLS: r->fo.urls_file = optarg; break;
    case OPT_USER_AGENT: r->fo.user_agent = optarg; break;
    case OPT_CONTACT: r->fo.contact = optarg; break;
    case OPT_IGNORE_ROBOTS: r->fo.ignore_robots = 1; break;
    case OPT_WARC_OUT: r->fo.warc_out = optarg; break;
    case OPT_SITEMAP:
    case OPT_FEED:
        if (!ps_is_url_arg(optarg)) {
            fprintf(stderr, "pagesift: %s: '%s' is not an http:// or https:// URL\n",
                    c == OPT_SITEMAP ? "--sitemap" : "--feed", optarg);
            return 2;
        }
        if (c == OPT_SITEMAP)
            sitemaps[r->fo.n_sitemaps++] = optarg;
        else
            feeds[r->fo.n_feeds++] = optarg;
        break;
    case OPT_LASTMOD_SINCE: {
        int y, m, d;
        char tail;
        if (sscanf(optarg, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 || strlen(optarg) != 10 || m < 1 ||
            m > 12 || d < 1 || d > 31) {
            fprintf(stderr, "pagesift: --lastmod-since: '%s' is not a date YYYY-MM-DD\n", optarg);
            return 2;
        }
        r->fo.lastmod_since = optarg;
        break;
    }
    case OPT_PER_HOST:
    case OPT_MAX_CONN:
    case OPT_RETRIES: {
        char *end;
        long v = strtol(optarg, &end, 10);
        long lo = c == OPT_RETRIES ? 0 : 1, hi = c == OPT_RETRIES ? 20 : c == OPT_PER_HOST ? 64 : 4096;
        const char *name = c == OPT_RETRIES ? "--retries" : c == OPT_PER_HOST ? "--per-host" : "--max-connections";
        if (*end || end == optarg || v < lo || v > hi) {
            fprintf(stderr, "pagesift: %s: '%s' is not a number from %ld to %ld\n", name, optarg, lo, hi);
            return 2;
        }
        if (c == OPT_RETRIES)
            r->fo.retries = v ? (int)v : -1;
        else if (c == OPT_PER_HOST)
            r->fo.per_host = (unsigned)v;
        else
            r->fo.max_connections = (unsigned)v;
        break;
    }
    case OPT_DELAY:
    case OPT_CONNECT_TIMEOUT:
    case OPT_TIMEOUT: {
        double t = parse_seconds(optarg, 3600);
        const char *name = c == OPT_DELAY ? "--delay" : c == OPT_TIMEOUT ? "--timeout" : "--connect-timeout";
        if (t < 0 || (c != OPT_DELAY && t == 0)) {
            fprintf(stderr, "pagesift: %s: '%s' is not a number of seconds from %s to 3600\n", name, optarg,
                    c == OPT_DELAY ? "0" : "more than 0");
            return 2;
        }
        if (c == OPT_DELAY)
            r->fo.delay = t > 0 ? t : -1;
        else if (c == OPT_TIMEOUT)
            r->fo.timeout = t;
        else
            r->fo.connect_timeout = t;
        break;
    }
    case 'q': r->bc.quiet = 1; break;
    case 'v': r->verbose = 1; break;
    case OPT_WITH_COMMENTS: r->comments = 0; break;
    case OPT_NO_TABLES: r->no_tables = 1; break;
    case OPT_NO_COMMENTS: r->comments = 1; break;
    case OPT_FAVOR: r->favor = optarg; break;
    case OPT_MODELS: r->xc.site_models_dir = optarg; break;
    case OPT_SITE_BASE: r->xc.site_base_path = optarg; break;
    case OPT_PAGE_TYPES: r->xc.page_types_path = strcmp(optarg, "none") == 0 ? "" : optarg; break;
    case OPT_MODELS_CAP: {
        char *end;
        double mb = strtod(optarg, &end);
        if (*end || !(mb >= 1 && mb <= 1e6)) {
            fprintf(stderr, "pagesift: --models-cap: '%s' is not a size in MB from 1 to 1000000\n", optarg);
            return 2;
        }
        r->xc.site_models_cap = (size_t)(mb * 1048576.0);
        break;
    }
    case 'h': usage(stdout); return 0;
    case 'V': printf("pagesift %s\n", ps_version()); return 0;
    default: return ps_cli_bad_option("pagesift", c, argv);
    }
    return GO_ON;
}

static int parse_options(cli_run *r, int argc, char **argv)
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
        {"page-timeout", required_argument, 0, OPT_PAGE_TIMEOUT},
        {"lang", required_argument, 0, OPT_LANG},
        {"dedup", no_argument, 0, OPT_DEDUP},
        {"dedup-distance", required_argument, 0, OPT_DEDUP_DISTANCE},
        {"skip-existing", no_argument, 0, OPT_SKIP_EXISTING},
        {"no-manifest", no_argument, 0, OPT_NO_MANIFEST},
        {"fail-fast", no_argument, 0, OPT_FAIL_FAST},
        {"urls", required_argument, 0, OPT_URLS},
        {"user-agent", required_argument, 0, OPT_USER_AGENT},
        {"contact", required_argument, 0, OPT_CONTACT},
        {"per-host", required_argument, 0, OPT_PER_HOST},
        {"delay", required_argument, 0, OPT_DELAY},
        {"max-connections", required_argument, 0, OPT_MAX_CONN},
        {"connect-timeout", required_argument, 0, OPT_CONNECT_TIMEOUT},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"retries", required_argument, 0, OPT_RETRIES},
        {"ignore-robots", no_argument, 0, OPT_IGNORE_ROBOTS},
        {"warc-out", required_argument, 0, OPT_WARC_OUT},
        {"sitemap", required_argument, 0, OPT_SITEMAP},
        {"feed", required_argument, 0, OPT_FEED},
        {"lastmod-since", required_argument, 0, OPT_LASTMOD_SINCE},
        {"with-comments", no_argument, 0, OPT_WITH_COMMENTS},
        {"no-comments", no_argument, 0, OPT_NO_COMMENTS},
        {"favor", required_argument, 0, OPT_FAVOR},
        {"models", required_argument, 0, OPT_MODELS},
        {"models-cap", required_argument, 0, OPT_MODELS_CAP},
        {"site-base", required_argument, 0, OPT_SITE_BASE},
        {"page-types", required_argument, 0, OPT_PAGE_TYPES},
        {"verbose", no_argument, 0, 'v'},
        {"links", no_argument, 0, OPT_LINKS},    {"images", no_argument, 0, OPT_IMAGES},
        {"with-metadata", no_argument, 0, OPT_WITH_METADATA},
        {"no-tables", no_argument, 0, OPT_NO_TABLES},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
    r->bc.page_timeout = 30;
    sitemaps = calloc((size_t)argc + 1, sizeof *sitemaps);
    feeds = calloc((size_t)argc + 1, sizeof *feeds);
    if (!sitemaps || !feeds) {
        fprintf(stderr, "pagesift: out of memory\n");
        return 3;
    }
    r->fo.sitemaps = sitemaps;
    r->fo.feeds = feeds;
    r->comments = -1;
    int c;
    ps_cli_report_as("pagesift"); /* the library's messages: "pagesift: ..." */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:m:M:T:l:j:qvhV", opts, NULL)) != -1) {
        int rc = parse_option(r, c, argv);
        if (rc != GO_ON)
            return rc;
    }
    return GO_ON;
}

/* The options together: what goes with what, the inputs, the method. */
static int check_options(cli_run *r, int argc, char **argv)
{
    if (r->method && strcmp(r->method, "help") == 0) {
        list_methods(stdout);
        return 0;
    }
    if (r->format && strcmp(r->format, "help") == 0) {
        list_formats(stdout);
        return 0;
    }
    r->bc.format = r->format ? ps_format_find(r->format) : ps_format_find("text");
    if (r->bc.format < 0) {
        fprintf(stderr, "pagesift: --format: '%s' is not an output format\n", r->format);
        list_formats(stderr);
        return 2;
    }
    if (r->xc.options && strcmp(r->xc.options, "help") == 0) {
        const char *m = r->method ? r->method : r->xc.templates_dir || r->learn ? "template-svm" : "svm";
        if (!method_known(m)) {
            fprintf(stderr, "pagesift: unknown method '%s'\n", m);
            list_methods(stderr);
            return 2;
        }
        list_options(stdout, m);
        return 0;
    }
    r->args = argv + optind;
    r->n_args = (size_t)(argc - optind);
    r->fetch_inputs = r->fo.urls_file || r->fo.n_sitemaps || r->fo.n_feeds;
    if (r->fo.lastmod_since && !r->fo.n_sitemaps) {
        fprintf(stderr, "pagesift: --lastmod-since goes with --sitemap\n");
        return 2;
    }
    r->n_stdin = r->n_args == 0 && !r->list && !r->fetch_inputs;
    for (size_t i = 0; i < r->n_args; i++)
        r->n_stdin += strcmp(r->args[i], "-") == 0;
    r->n_stdin += r->fo.urls_file && strcmp(r->fo.urls_file, "-") == 0;
    r->n_stdin += r->list && strcmp(r->list, "-") == 0;
    if (r->n_args == 0 && !r->list && !r->fetch_inputs && isatty(STDIN_FILENO)) {
        fprintf(stderr, "pagesift: no input: give a page, a folder or a WARC file, or pipe one "
                        "in; try --help\n");
        return 2;
    }
    if (r->n_stdin > 1) {
        fprintf(stderr, "pagesift: standard input ('-', also --urls - and --list -) can be given once\n");
        return 2;
    }
    int n_urls = 0;
    for (size_t i = 0; i < r->n_args; i++)
        n_urls += ps_is_url_arg(r->args[i]);
    if (r->fo.warc_out && !n_urls && !r->fetch_inputs) {
        fprintf(stderr, "pagesift: --warc-out keeps what is fetched: give URLs (or --urls)\n");
        return 2;
    }
    if (r->bc.dedup && r->bc.unordered) {
        fprintf(stderr, "pagesift: --dedup keeps the first copy of a page in input order: not with "
                        "--unordered\n");
        return 2;
    }
    if (r->bc.skip_existing && !r->bc.output_dir) {
        fprintf(stderr, "pagesift: --skip-existing goes with --output-dir\n");
        return 2;
    }
    if (r->bc.no_manifest && !r->bc.output_dir) {
        fprintf(stderr, "pagesift: --no-manifest goes with --output-dir\n");
        return 2;
    }
    if (r->learn && r->xc.templates_dir) {
        fprintf(stderr, "pagesift: --learn-templates and --templates exclude each other\n");
        return 2;
    }
    if (r->learn && r->n_stdin) {
        fprintf(stderr, "pagesift: --learn-templates reads the inputs twice: give files, "
                        "folders, WARC files or --list, not standard input\n");
        return 2;
    }
    if (r->learn && ps_cli_read_twice("pagesift", "--list ", r->list))
        return 2;
    for (size_t i = 0; r->learn && i < r->n_args; i++)
        if (ps_cli_read_twice("pagesift", "", r->args[i]))
            return 2;
    if (!r->method)
        r->method = r->xc.templates_dir || r->learn ? "template-svm" : "svm";
    if (r->learn && strcmp(r->method, "template-svm") != 0) {
        fprintf(stderr, "pagesift: --learn-templates goes with --method template-svm\n");
        return 2;
    }
    r->so.max_bytes = r->bc.max_bytes;
    r->bc.workers = r->jobs ? (unsigned)r->jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (r->bc.workers < 1)
        r->bc.workers = 1;
    return GO_ON;
}

/* The method's options, typed, checked against its table (pagesift/options.h):
 * --options's, then the ones the flags set; static: reachable until exit. */
static ps_options *method_opts;

/* method_opts from --options and the flags that set an option: -1 with
 * r->err and *flag the flag whose value was refused (NULL: --options). */
static int set_method_options(cli_run *r, const char **flag)
{
    *flag = NULL;
    if (!(method_opts = ps_options_new(r->method, &r->err)) ||
        ps_options_parse(method_opts, r->xc.options, &r->err) != 0)
        return -1;
    *flag = r->comments ? "--no-comments" : "--with-comments";
    if (r->comments >= 0 && ps_options_set(method_opts, "comments", r->comments ? "1" : "0", &r->err) != 0)
        return -1;
    *flag = "--no-tables";
    if (r->no_tables && ps_options_set(method_opts, "no_tables", "1", &r->err) != 0)
        return -1;
    *flag = "--favor";
    if (r->favor && ps_options_set(method_opts, "favor", r->favor, &r->err) != 0)
        return -1;
    r->xc.options = NULL;
    r->xc.method_options = method_opts;
    return 0;
}

/* Every setup error comes before any page is read: the library, the
 * method's options, the extractor (or the model, to learn templates
 * first), the output folder, the source, the batch's settings and the
 * signals. */
static int prepare(cli_run *r)
{
    const char *flag;
    if (set_method_options(r, &flag) != 0) {
        fprintf(stderr, "pagesift: %s%s%s\n", flag ? flag : "", flag ? ": " : "", r->err.msg);
        if (r->err.code == PS_ERR_USAGE && !method_known(r->method))
            list_methods(stderr);
        return r->err.code == PS_ERR_USAGE ? 2 : 3;
    }
    if (r->xc.site_base_path && !r->xc.site_models_dir) {
        fprintf(stderr, "pagesift: --site-base: the base of site models, given with --models DIR\n");
        return 2;
    }
    if (r->xc.site_models_dir) {
        if (strcmp(r->method, "svm") != 0 && strcmp(r->method, "template-svm") != 0) {
            fprintf(stderr, "pagesift: --models: site models are for the svm and template-svm methods, not %s\n", r->method);
            return 2;
        }
        struct stat mst;
        if (stat(r->xc.site_models_dir, &mst) != 0 || !S_ISDIR(mst.st_mode)) {
            fprintf(stderr, "pagesift: --models: %s is not a folder of site models\n", r->xc.site_models_dir);
            return 3;
        }
        if (r->xc.site_base_path && (stat(r->xc.site_base_path, &mst) != 0 || !S_ISREG(mst.st_mode))) {
            fprintf(stderr, "pagesift: --site-base: %s is not a model file\n", r->xc.site_base_path);
            return 3;
        }
    }
    /* Every setup error comes before any page is read. */
    if (r->learn) {
        /* the extractor needs the learnt libraries: check the model now */
        ps_model *m = ps_model_load(r->xc.model_path ? r->xc.model_path : ps_model_default_path(), &r->err);
        if (!m) {
            fprintf(stderr, "pagesift: %s\n", r->err.msg);
            ps_cli_model_hint("pagesift", r->xc.model_path);
            return 3;
        }
        ps_model_free(m);
        r->bc.learn_templates = 1;
        r->bc.method = r->method;
        r->bc.extractor_config = &r->xc;
    } else {
        if (strcmp(r->method, "template-svm") == 0 && !r->xc.templates_dir) {
            fprintf(stderr, "pagesift: template-svm needs template libraries (--templates DIR or "
                            "--learn-templates); use --method svm for the SVM alone\n");
            return 2;
        }
        r->ex = ps_extractor_new(r->method, &r->xc, &r->err);
        if (!r->ex) {
            fprintf(stderr, "pagesift: %s\n", r->err.msg);
            if (r->err.code == PS_ERR_USAGE && !method_known(r->method))
                list_methods(stderr);
            if (r->err.code != PS_ERR_USAGE)
                ps_cli_model_hint("pagesift", r->xc.model_path);
            return r->err.code == PS_ERR_USAGE ? 2 : 3;
        }
    }
    if (r->bc.output_dir && ps_batch_prepare_output_dir(r->bc.output_dir, &r->err) != 0) {
        fprintf(stderr, "pagesift: %s\n", r->err.msg);
        ps_extractor_free(r->ex);
        return 3;
    }
    r->fo.interrupt = &fetch_stop;
    if (r->bc.skip_existing) {
        r->fo.have_output = have_output;
        r->fo.have_output_ctx = &r->bc;
    }
    r->src = open_source(r->args, r->n_args, r->list, &r->so, &r->fo, r->fetch_inputs, &r->err);
    if (!r->src) {
        fprintf(stderr, "pagesift: %s\n", r->err.msg);
        ps_extractor_free(r->ex);
        return 3;
    }
    r->single = !r->list && !r->so.jsonl_stdin && !r->fetch_inputs && r->n_args <= 1 &&
                 (r->n_args == 0 || !is_collection(r->args[0]));
    if (!r->format && !r->single && !r->bc.output_dir && !isatty(STDOUT_FILENO))
        r->bc.format = ps_format_find("jsonl");
    r->bc.out = stdout;
    r->bc.text_headers = !r->single;
    r->bc.total_hint = ps_source_total_hint(r->src);
    r->bc.total_bytes = ps_source_total_bytes(r->src);
    r->bc.verbose = r->verbose;
    r->bc.extractor = r->ex;
    r->bc.interrupt = &got_signal;
    signal_quiet = r->bc.quiet;
    signal_tty = isatty(STDERR_FILENO);
    catch_signals();
    return GO_ON;
}

/* The summary on standard error and the exit status of a run that gave
 * @p rc and the counts @p counts in @p dt seconds. */
static int report(const cli_run *r, int rc, const ps_batch_counts *counts, double dt)
{
    ps_batch_counts n = *counts;
    if (rc != 0) {
        fprintf(stderr, "pagesift: %s\n", r->err.msg);
        if (n.setup_failed)
            return 3;
    }
    char filtered[96] = "";
    if (r->bc.langs)
        snprintf(filtered, sizeof filtered, ", %zu filtered", n.filtered);
    if (r->bc.dedup)
        snprintf(filtered + strlen(filtered), sizeof filtered - strlen(filtered), ", %zu duplicates",
                 n.duplicates);
    if (r->bc.dedup && r->verbose && !r->bc.quiet)
        fprintf(stderr, "pagesift: --dedup: %zu pages kept in the index, %.1f MB of memory\n", n.dedup_kept,
                n.dedup_memory / 1e6);
    if (!r->bc.quiet && !(r->single && n.read == 1))
        fprintf(stderr,
                "pagesift: %zu records read: %zu extracted, %zu empty, %zu failed, %zu skipped%s "
                "(%.2f s, %.1f pages/s, %.2f MB/s, %s, %u thread%s)\n",
                n.read, n.extracted, n.empty, n.failed, n.skipped, filtered, dt,
                dt > 0 ? (double)n.read / dt : 0.0, dt > 0 ? (double)n.bytes / dt / 1e6 : 0.0,
                r->method, r->bc.workers, r->bc.workers == 1 ? "" : "s");
    if (got_signal) {
        if (!r->bc.quiet) {
            const char *name = got_signal == SIGINT ? "SIGINT" : "SIGTERM";
            if (!n.interrupted)
                fprintf(stderr, "pagesift: %s came after the last page: the run is complete\n", name);
            else if (n.interrupted_learning)
                fprintf(stderr, "pagesift: interrupted by %s while learning the templates (the first "
                                "pass): no page extracted\n", name);
            else if (n.abandoned)
                fprintf(stderr, "pagesift: interrupted by %s: %zu page%s read but not extracted "
                                "abandoned (no record)%s\n", name, n.abandoned,
                        n.abandoned == 1 ? "" : "s",
                        r->bc.output_dir ? "; the same command with --skip-existing completes the run"
                                      : "");
            else
                fprintf(stderr, "pagesift: interrupted by %s: no page in flight was abandoned%s\n", name,
                        r->bc.output_dir ? "; the same command with --skip-existing completes the run"
                                      : "");
        }
        return 128 + got_signal;
    }
    if (rc == 0 && r->single && n.read == 1 && n.empty == 1 && !r->bc.quiet)
        fprintf(stderr, "pagesift: %s: no main text found (the result is empty)\n",
                r->n_args ? r->args[0] : "standard input");
    if (rc == 0 && r->single && n.read == 1 && n.filtered == 1 && !r->bc.quiet)
        fprintf(stderr, "pagesift: %s: not in a language of --lang %s (filtered)\n",
                r->n_args ? r->args[0] : "standard input", r->bc.langs);
    if (rc == 0 && n.read == n.skipped && n.skipped && r->bc.skip_existing &&
        has_outputs(r->bc.output_dir)) { /* a finished run, resumed: nothing left */
        if (!r->bc.quiet)
            fprintf(stderr, "pagesift: nothing left to do: every page's output is in %s already "
                            "(--skip-existing; %zu record%s skipped)\n", r->bc.output_dir, n.skipped,
                    n.skipped == 1 ? "" : "s");
        return 0;
    }
    /* a stream on standard input may hold no page (a pipeline's empty
     * WARC); a list, from a file or from standard input, must name one */
    int stdin_stream = r->n_stdin - (r->list && strcmp(r->list, "-") == 0);
    if (rc == 0 && n.read == n.skipped && !stdin_stream) { /* no page at all */
        if (n.skipped)
            fprintf(stderr, "pagesift: no page in the input: %zu file%s or record%s skipped as "
                            "not HTML%s\n", n.skipped, n.skipped == 1 ? "" : "s",
                    n.skipped == 1 ? "" : "s", r->verbose ? "" : " (-v names them)");
        else
            fprintf(stderr, "pagesift: no page in the input (an empty folder?)\n");
        return 2;
    }
    return rc != 0 || n.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    cli_run r = {0};
    int rc = parse_options(&r, argc, argv);
    if (rc == GO_ON)
        rc = check_options(&r, argc, argv);
    if (rc == GO_ON) {
#ifdef __GLIBC__
        /* A large page's arrays (its tree, blocks, paths, features: 256 KiB
         * and more) are mapped for themselves and unmapped when freed,
         * instead of glibc's threshold that rises to the largest freed (the
         * models' loading): in the heap they stay resident once freed (each
         * array grown by doubling leaves its last size behind) and add up
         * to the page's peak.  At 1 MiB a 331 KB page of 5 298 blocks added
         * 14 x its bytes, at 256 KiB 9 x (docs/EXTRACTION.md, "Bounds").
         * Setting it fixes the trim threshold too: at glibc's 128 KiB every
         * page would give its heap back and fault it in again (twice the
         * system time on wcxb-dev); 4 MiB costs 1 %. */
        mallopt(M_MMAP_THRESHOLD, PS_MMAP_THRESHOLD);
        mallopt(M_TRIM_THRESHOLD, PS_TRIM_THRESHOLD);
#endif
        ps_init();
        rc = prepare(&r);
    }
    if (rc != GO_ON)
        return rc;
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_batch_counts n = {0};
    rc = ps_batch_run(&r.bc, r.src, &n, &r.err);
    double dt = ps_clock(PS_CLOCK_WALL) - t0;
    ps_source_free(r.src);
    ps_extractor_free(r.ex);
    return report(&r, rc, &n, dt);
}
