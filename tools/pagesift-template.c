/* pagesift-template — build, inspect and apply per-site template libraries
 * (METHODS.md §1.1), and measure what they remove against gold text. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pagesift/dataset.h"
#include "pagesift/inputs.h"
#include "pagesift/page.h"
#include "pagesift/util.h"
#include "pagesift.h"
#include "pagesift/template_eval.h"

#include "cli.h"

static const char *prog = "pagesift-template";

static void usage(FILE *f)
{
    fputs("Usage: pagesift-template build [OPTION]... -o DIR INPUT...\n"
          "       pagesift-template show LIBRARY\n"
          "       pagesift-template match [OPTION]... LIBRARY PAGE\n"
          "       pagesift-template eval [OPTION]... DATASET...\n"
          "       pagesift-template bench [--pages N] INPUT...\n"
          "Per-site template libraries: the leaves (tag name + text) that recur on the\n"
          "pages of a site, found in batches of N1 pages (an entry when a leaf occurs on\n"
          "N2 pages of a batch; texts match when the edit distance is at most\n"
          "floor(min length / 8) characters).\n"
          "\n"
          "build: read pages and write one library file per site into DIR.\n"
          "  INPUT is an HTML file, a folder (searched for pages and WARC files), a\n"
          "  WARC file (.warc, .warc.gz), a data set folder (with index.tsv: its url\n"
          "  and site columns are used) or '-' (stdin); --list adds a file of\n"
          "  PATH<TAB>URL lines.  Pages of a site are taken in input order.\n"
          "  -o, --output DIR        folder of the libraries (created if missing)\n"
          "      --site NAME         all pages belong to site NAME\n"
          "      --site-rule RULE    host (default) or host+path1: the site of a URL\n"
          "  -l, --list FILE         also read PATH<TAB>URL lines from FILE ('-':\n"
          "                          standard input)\n"
          "      --update            extend the libraries already in DIR\n"
          "      --n1 N              pages per batch (default 10)\n"
          "      --n2 N              frequency that makes an entry (default 3)\n"
          "      --count WHAT        pages (default: a leaf counts once per page) or\n"
          "                          occurrences (the paper's literal rule)\n"
          "      --rules RULES       rules recorded for applying the library: guarded\n"
          "                          (default: keep headlines and main-text sentences)\n"
          "                          or paper (remove every match)\n"
          "  -q, --quiet             no progress line\n"
          "\n"
          "show: print a library's parameters and entries (LIBRARY a .tpl file), or\n"
          "  the sites of a folder of libraries.\n"
          "\n"
          "match: print which leaves of PAGE the library removes and why (entry,\n"
          "  edit distance, or the guard that keeps it).  LIBRARY is a .tpl file or a\n"
          "  folder (then the site comes from --site or --url).\n"
          "  -u, --url URL           the page's URL\n"
          "      --site NAME         its site (with a LIBRARY folder)\n"
          "      --rules RULES       paper or guarded (default: the library's)\n"
          "  -a, --all               also list leaves that match nothing\n"
          "\n"
          "eval: for every site with at least --min-pages pages in the DATASET folders\n"
          "  (site = index.tsv column), build its library from its pages, apply it to\n"
          "  the same pages and print, in characters, the share of non-gold and of gold\n"
          "  leaf text removed, for the paper's rule and the guarded rule.\n"
          "      --min-pages N       default 10\n"
          "      --lost FILE         write the gold leaves each rule removes (TSV)\n"
          "      --residue FILE      write the non-gold leaves the guarded rule leaves\n"
          "      --gold-test TEST    align (default): a leaf is gold when at least half\n"
          "                          of its words align with the gold's words (longest\n"
          "                          common subsequence, in order); runs: when each of\n"
          "                          its text nodes occurs in the normalised gold; leaf:\n"
          "                          when its whole own text does\n"
          "      --n1, --n2, --count as for build\n"
          "\n"
          "bench: parse the pages of INPUT (one site) once, add them cyclically to a\n"
          "  builder until --pages N were added, match them against the library, and\n"
          "  print the CPU time per page of each step (scripts/bench-templates).\n"
          "\n"
          "  -h, --help              this help\n"
          "  -V, --version           version\n"
          "\n"
          "Exit status: 0 ok, 1 some pages could not be read (skipped, counted) or a\n"
          "runtime error, 2 usage error, 3 a library or the output folder is unusable.\n",
          f);
}

enum { OPT_SITE = 256, OPT_SITE_RULE, OPT_UPDATE, OPT_N1, OPT_N2, OPT_COUNT, OPT_RULES, OPT_MIN_PAGES, OPT_LOST, OPT_RESIDUE, OPT_GOLD_TEST, OPT_PAGES };

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"site", required_argument, NULL, OPT_SITE},
    {"site-rule", required_argument, NULL, OPT_SITE_RULE},
    {"list", required_argument, NULL, 'l'},
    {"update", no_argument, NULL, OPT_UPDATE},
    {"n1", required_argument, NULL, OPT_N1},
    {"n2", required_argument, NULL, OPT_N2},
    {"count", required_argument, NULL, OPT_COUNT},
    {"rules", required_argument, NULL, OPT_RULES},
    {"quiet", no_argument, NULL, 'q'},
    {"url", required_argument, NULL, 'u'},
    {"all", no_argument, NULL, 'a'},
    {"min-pages", required_argument, NULL, OPT_MIN_PAGES},
    {"lost", required_argument, NULL, OPT_LOST},
    {"residue", required_argument, NULL, OPT_RESIDUE},
    {"gold-test", required_argument, NULL, OPT_GOLD_TEST},
    {"pages", required_argument, NULL, OPT_PAGES},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

typedef struct options {
    ps_template_params params;
    int rules_given;
    const char *out, *site, *list, *url, *lost, *residue;
    ps_site_rule site_rule;
    int update, quiet, all;
    unsigned min_pages;
    unsigned bench_pages;
    ps_template_gold_test gold_test;
} options;

static int parse_uint(const char *s, unsigned *v)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (!*s || *end || errno || x == 0 || x > 1000000)
        return -1;
    *v = (unsigned)x;
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    return 2;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The site of an input: --site, else the URL's key by --site-rule, else
 * the data set's site column (host rule only); NULL when none. */
static const char *input_site(const options *o, const ps_input *in, char *buf, size_t cap)
{
    if (o->site)
        return o->site;
    ps_input_site(in, o->site_rule, buf, cap); /* the one rule of every tool */
    return buf[0] ? buf : NULL;
}

static ps_page *input_page(const ps_input *in, ps_error *err)
{
    ps_page *pg = ps_input_page(in, NULL, 0, err);
    if (!pg) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        ps_set_error(err, err->code, "%s: %s", in->origin ? in->origin : "?", msg);
    }
    return pg;
}

/* ---- build ---------------------------------------------------------------- */

static int cmd_build(const options *o, int argc, char **argv)
{
    if (!o->out)
        return usage_error("%s", "build needs -o DIR");
    if (argc == 0 && !o->list)
        return usage_error("%s", "build needs at least one INPUT (or --list FILE)");
    ps_error err = {0};
    ps_template_builder *b = ps_template_builder_new(&o->params);
    if (!b) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    /* one writer at a time on the folder, from reading it to writing it */
    int waited = 0;
    int lock = ps_template_dir_lock(o->out, &waited, &err);
    if (lock < 0) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        ps_template_builder_free(b);
        return 3;
    }
    if (waited && !o->quiet)
        fprintf(stderr, "%s: %s: waited for another pagesift-template writing it\n", prog, o->out);
    if (o->update && is_dir(o->out) && ps_template_builder_load_dir(b, o->out, &err) < 0) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        ps_template_builder_free(b);
        ps_template_dir_unlock(lock);
        return 3;
    }
    ps_source *src = ps_source_open((const char *const *)argv, (size_t)argc, o->list, NULL, &err);
    if (!src) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        ps_template_builder_free(b);
        ps_template_dir_unlock(lock);
        return 1;
    }
    ps_progress *pr = ps_progress_new("pages", ps_source_total_hint(src), o->quiet);
    size_t failed = 0, nosite = 0, skipped = 0, seen = 0;
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_input in = {0};
    int r, rc = 0;
    while ((r = ps_source_next(src, &in, &err)) == 1) {
        seen++;
        if (in.skipped) {
            skipped++; /* a WARC record that is not an HTML page */
            continue;
        }
        if (in.status != PS_OK) {
            fprintf(stderr, "%s: %s; skipped\n", prog, in.msg);
            failed++;
            continue;
        }
        char sbuf[1024];
        const char *site = input_site(o, &in, sbuf, sizeof sbuf);
        if (!site) {
            fprintf(stderr, "%s: %s: no site (no URL host; give --site or a list file with URLs); skipped\n",
                    prog, in.origin);
            nosite++;
            continue;
        }
        ps_page *pg = input_page(&in, &err);
        if (!pg) {
            fprintf(stderr, "%s: %s; skipped\n", prog, err.msg);
            failed++;
            continue;
        }
        if (ps_template_builder_add(b, site, pg, &err) < 0) {
            fprintf(stderr, "%s: %s: %s\n", prog, in.origin, err.msg);
            ps_page_free(pg);
            rc = -1;
            break;
        }
        ps_page_free(pg);
        char extra[64];
        snprintf(extra, sizeof extra, "%zu sites", ps_template_builder_sites(b));
        ps_progress_update(pr, seen, extra);
    }
    ps_input_clear(&in);
    ps_source_free(src);
    ps_progress_done(pr);
    if (r < 0 || rc < 0) {
        if (r < 0)
            fprintf(stderr, "%s: %s\n", prog, err.msg);
        ps_template_builder_free(b);
        ps_template_dir_unlock(lock);
        return 1;
    }
    size_t sites = ps_template_builder_sites(b);
    uint64_t pages = ps_template_builder_pages(b);
    rc = ps_template_builder_write_dir(b, o->out, &err);
    double dt = ps_clock(PS_CLOCK_WALL) - t0;
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", prog, err.msg);
    else if (!o->quiet)
        fprintf(stderr,
                "%s: %llu pages, %zu sites -> %s (%.1f s, %.0f pages/s); %zu failed, %zu without a site, "
                "%zu records not HTML pages\n",
                prog, (unsigned long long)pages, sites, o->out, dt, dt > 0 ? (double)pages / dt : 0.0, failed,
                nosite, skipped);
    ps_template_builder_free(b);
    ps_template_dir_unlock(lock);
    if (rc < 0)
        return 3;
    return failed || nosite ? 1 : 0;
}

/* ---- show ----------------------------------------------------------------- */

static void print_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\t')
            fputs("\\t", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

static int cmd_show(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("%s", "show takes one LIBRARY");
    ps_error err = {0};
    if (is_dir(argv[0])) {
        ps_template_store *s = ps_template_store_open(argv[0], &err);
        if (!s) {
            fprintf(stderr, "%s: %s\n", prog, err.msg);
            return 3;
        }
        printf("%-40s %8s %8s\n", "site", "pages", "entries");
        for (size_t i = 0; i < ps_template_store_count(s); i++) {
            ps_template_lib_info info;
            ps_template_lib_get_info(ps_template_store_lib(s, i), &info);
            printf("%-40s %8llu %8zu\n", info.site, (unsigned long long)info.pages, info.n_entries);
        }
        ps_template_store_free(s);
        return 0;
    }
    ps_template_lib *lib = ps_template_lib_load(argv[0], &err);
    if (!lib) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 3;
    }
    ps_template_lib_info info;
    ps_template_lib_get_info(lib, &info);
    printf("site %s: %llu pages in %llu batches, n1=%u n2=%u count=%s rules=%s, %zu entries\n", info.site,
           (unsigned long long)info.pages, (unsigned long long)info.batches, info.params.n1, info.params.n2,
           info.params.count_occurrences ? "occurrences" : "pages",
           info.params.rules == PS_TEMPLATE_RULES_PAPER ? "paper" : "guarded", info.n_entries);
    printf("%6s %7s  %-8s %s\n", "freq", "batches", "tag", "text");
    for (size_t i = 0; i < info.n_entries; i++) {
        ps_template_entry e;
        ps_template_lib_entry(lib, i, &e);
        printf("%6u %7u  %-8s ", e.freq, e.batches, e.tag);
        print_escaped(stdout, e.text);
        putchar('\n');
    }
    ps_template_lib_free(lib);
    return 0;
}

/* ---- match ---------------------------------------------------------------- */

static const char *verdict_name(int v)
{
    switch (v) {
    case PS_TPL_REMOVE: return "remove";
    case PS_TPL_KEEP_HEADLINE: return "keep:headline";
    case PS_TPL_KEEP_MAIN: return "keep:main-text";
    case PS_TPL_ALREADY_REMOVED: return "removed-before";
    case PS_TPL_KEEP_DATE: return "keep:date";
    case PS_TPL_KEEP_INLINE: return "keep:inline";
    default: return "no-match";
    }
}

static int cmd_match(const options *o, int argc, char **argv)
{
    if (argc != 2)
        return usage_error("%s", "match takes LIBRARY and PAGE");
    ps_error err = {0};
    ps_template_store *store = NULL;
    ps_template_lib *own = NULL;
    const ps_template_lib *lib = NULL;
    if (is_dir(argv[0])) {
        char sbuf[1024];
        const char *site = o->site;
        if (!site && o->url && ps_site_key(o->url, o->site_rule, sbuf, sizeof sbuf) == 0)
            site = sbuf;
        if (!site)
            return usage_error("%s", "match with a LIBRARY folder needs --site or --url");
        if (!(store = ps_template_store_open(argv[0], &err))) {
            fprintf(stderr, "%s: %s\n", prog, err.msg);
            return 3;
        }
        if (!(lib = ps_template_store_get(store, site))) {
            fprintf(stderr, "%s: %s: no library for site '%s'\n", prog, argv[0], site);
            ps_template_store_free(store);
            return 3;
        }
    } else if (!(lib = own = ps_template_lib_load(argv[0], &err))) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 3;
    }
    ps_page_options po = {0};
    po.url = o->url;
    ps_page *pg = strcmp(argv[1], "-") == 0 ? NULL : ps_page_load_file(argv[1], &po, &err);
    if (!pg && strcmp(argv[1], "-") == 0) {
        ps_buf b = {0};
        char chunk[65536];
        size_t r;
        while ((r = fread(chunk, 1, sizeof chunk, stdin)) > 0)
            ps_buf_append(&b, chunk, r);
        pg = ps_page_parse(b.data ? b.data : "", b.len, &po, &err);
        ps_buf_free(&b);
    }
    int rc = 0;
    if (!pg) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        rc = 1;
    } else {
        ps_template_lib_info info;
        ps_template_lib_get_info(lib, &info);
        ps_template_rules rules = o->rules_given ? o->params.rules : info.params.rules;
        size_t n;
        const ps_leaf *l = ps_page_leaves(pg, &n);
        ps_template_match *m = malloc((n ? n : 1) * sizeof *m);
        size_t removed = m ? ps_template_match_page(lib, pg, rules, m) : (size_t)-1;
        if (removed == (size_t)-1) {
            fprintf(stderr, "%s: out of memory\n", prog);
            rc = 1;
        } else {
            size_t chars = 0, total = 0;
            printf("leaf\tverdict\ttag\tdistance\tentry_freq\tentry_text\tleaf_text\n");
            for (size_t i = 0; i < n; i++) {
                total += l[i].chars;
                if (m[i].verdict == PS_TPL_REMOVE)
                    chars += l[i].chars;
                if (m[i].verdict == PS_TPL_NO_MATCH && !o->all)
                    continue;
                ps_template_entry e = {0};
                if (m[i].entry >= 0)
                    ps_template_lib_entry(lib, (size_t)m[i].entry, &e);
                printf("%zu\t%s\t%s\t", i, verdict_name(m[i].verdict), l[i].tag);
                if (m[i].entry >= 0) {
                    printf("%u\t%u\t", m[i].distance, e.freq);
                    print_escaped(stdout, e.text);
                } else {
                    printf("-\t-\t-");
                }
                putchar('\t');
                print_escaped(stdout, l[i].text);
                putchar('\n');
            }
            fprintf(stderr, "%s: %zu of %zu leaves removed (%zu of %zu characters), rules %s\n", prog, removed, n,
                    chars, total, rules == PS_TEMPLATE_RULES_PAPER ? "paper" : "guarded");
        }
        free(m);
        ps_page_free(pg);
    }
    ps_template_lib_free(own);
    ps_template_store_free(store);
    return rc;
}

/* ---- eval ----------------------------------------------------------------- */

typedef struct eval_page {
    ps_page *page;
    uint8_t *is_gold;
    const char *id;
} eval_page;

static void print_row(const char *name, size_t pages, size_t entries, const ps_template_tally *t)
{
    printf("%-34s %5zu %7zu", name, pages, entries);
    for (int r = 0; r < 2; r++)
        printf("   %6.1f %6.2f", t[r].other ? 100.0 * (double)t[r].other_removed / (double)t[r].other : 0.0,
               t[r].gold ? 100.0 * (double)t[r].gold_removed / (double)t[r].gold : 0.0);
    printf("   %9llu %8llu\n", (unsigned long long)t[0].other, (unsigned long long)t[0].gold);
}

static int eval_site(const options *o, const ps_dataset *ds, const char *site, ps_template_tally *total,
                     double *mean, size_t *pages_total, FILE *lost, FILE *residue)
{
    ps_error err = {0};
    size_t n = 0;
    for (size_t i = 0; i < ds->n_pages; i++)
        n += strcmp(ds->pages[i].site, site) == 0;
    eval_page *ep = calloc(n, sizeof *ep);
    ps_template_builder *b = ps_template_builder_new(&o->params);
    if (!ep || !b) {
        free(ep);
        ps_template_builder_free(b);
        return -1;
    }
    size_t k = 0, bad = 0;
    for (size_t i = 0; i < ds->n_pages; i++) {
        const ps_dataset_page *dp = &ds->pages[i];
        if (strcmp(dp->site, site) != 0)
            continue;
        ps_page_options po = {0};
        po.url = dp->url[0] ? dp->url : NULL;
        ps_page *pg = ps_page_load_file(dp->html_path, &po, &err);
        size_t glen, nlen;
        char *gold = pg ? ps_read_regular_file(dp->gold_path, 0, NULL, &glen, &err) : NULL;
        char *norm = gold ? ps_template_normalise(gold, glen, &nlen) : NULL;
        size_t nl;
        if (pg)
            ps_page_leaves(pg, &nl);
        uint8_t *g = norm ? malloc(nl + 1) : NULL;
        if (!g || ps_template_gold_leaves(pg, norm, nlen, o->gold_test, g) < 0 || ps_template_builder_add(b, site, pg, &err) < 0) {
            fprintf(stderr, "%s: %s: %s; skipped\n", prog, dp->html_path, err.msg[0] ? err.msg : "out of memory");
            ps_page_free(pg);
            free(g);
            bad++;
        } else {
            ep[k].page = pg;
            ep[k].is_gold = g;
            ep[k].id = dp->id;
            k++;
        }
        free(gold);
        free(norm);
    }
    ps_template_store *store = ps_template_builder_finish(b);
    const ps_template_lib *lib = ps_template_store_get(store, site);
    ps_template_tally t[2] = {{0}};
    ps_template_lib_info info = {0};
    if (lib)
        ps_template_lib_get_info(lib, &info);
    for (size_t i = 0; i < k && lib; i++) {
        size_t nl;
        ps_page_leaves(ep[i].page, &nl);
        ps_template_match *m = malloc((nl + 1) * sizeof *m);
        for (int r = 0; r < 2 && m; r++) {
            ps_template_match_page(lib, ep[i].page, r == 0 ? PS_TEMPLATE_RULES_PAPER : PS_TEMPLATE_RULES_GUARDED, m);
            ps_template_tally_page(&t[r], ep[i].page, ep[i].is_gold, m, lost, r == 1 ? residue : NULL,
                           r == 0 ? "paper" : "guarded", ep[i].id);
        }
        free(m);
    }
    char name[300];
    snprintf(name, sizeof name, "%s/%s", ds->name, site);
    print_row(name, k, info.n_entries, t);
    for (int r = 0; r < 2; r++) {
        mean[2 * r] += t[r].other ? 100.0 * (double)t[r].other_removed / (double)t[r].other : 0.0;
        mean[2 * r + 1] += t[r].gold ? 100.0 * (double)t[r].gold_removed / (double)t[r].gold : 0.0;
        total[r].gold += t[r].gold;
        total[r].gold_removed += t[r].gold_removed;
        total[r].other += t[r].other;
        total[r].other_removed += t[r].other_removed;
        for (int v = 0; v < 8; v++) {
            total[r].gold_by[v] += t[r].gold_by[v];
            total[r].other_by[v] += t[r].other_by[v];
        }
    }
    *pages_total += k;
    for (size_t i = 0; i < k; i++) {
        ps_page_free(ep[i].page);
        free(ep[i].is_gold);
    }
    free(ep);
    ps_template_store_free(store);
    return bad ? 1 : 0;
}

static int cmd_eval(const options *o, int argc, char **argv)
{
    if (argc == 0)
        return usage_error("%s", "eval needs at least one DATASET folder");
    FILE *lost = NULL;
    if (o->lost && !(lost = fopen(o->lost, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", prog, o->lost, strerror(errno));
        return 3;
    }
    if (lost)
        fprintf(lost, "rules\tpage\ttag\tchars\ttext\tflags\ttitle\n");
    FILE *residue = o->residue ? fopen(o->residue, "w") : NULL;
    if (o->residue && !residue) {
        fprintf(stderr, "%s: %s: %s\n", prog, o->residue, strerror(errno));
        if (lost)
            fclose(lost);
        return 3;
    }
    printf("n1=%u n2=%u count=%s; %% of non-gold / gold leaf characters removed\n", o->params.n1, o->params.n2,
           o->params.count_occurrences ? "occurrences" : "pages");
    printf("%-34s %5s %7s   %13s   %13s   %9s %8s\n", "site", "pages", "entries", "paper rule", "guarded rule",
           "non-gold", "gold");
    printf("%-34s %5s %7s   %6s %6s   %6s %6s   %9s %8s\n", "", "", "", "noise", "gold", "noise", "gold", "chars",
           "chars");
    ps_template_tally total[2] = {{0}};
    double mean[4] = {0, 0, 0, 0};
    size_t pages = 0, sites = 0;
    int rc = 0;
    for (int a = 0; a < argc; a++) {
        ps_error err = {0};
        ps_dataset *ds = ps_dataset_load(argv[a], &err);
        if (!ds) {
            fprintf(stderr, "%s: %s\n", prog, err.msg);
            rc = 1;
            continue;
        }
        /* sites in order of first appearance */
        for (size_t i = 0; i < ds->n_pages; i++) {
            const char *s = ds->pages[i].site;
            if (!s[0])
                continue;
            size_t cnt = 0, first = i;
            for (size_t j = 0; j < ds->n_pages; j++)
                if (strcmp(ds->pages[j].site, s) == 0) {
                    if (!cnt)
                        first = j;
                    cnt++;
                }
            if (first != i || cnt < o->min_pages)
                continue;
            int r = eval_site(o, ds, s, total, mean, &pages, lost, residue);
            if (r < 0) {
                fprintf(stderr, "%s: out of memory\n", prog);
                ps_dataset_free(ds);
                if (lost)
                    fclose(lost);
                if (residue)
                    fclose(residue);
                return 1;
            }
            rc |= r;
            sites++;
        }
        ps_dataset_free(ds);
    }
    char name[64];
    snprintf(name, sizeof name, "overall (%zu sites)", sites);
    print_row(name, pages, 0, total);
    if (sites)
        printf("%-34s %5s %7s   %6.1f %6.2f   %6.1f %6.2f\n", "mean of the sites", "", "", mean[0] / (double)sites,
               mean[1] / (double)sites, mean[2] / (double)sites, mean[3] / (double)sites);
    printf("\nguarded rule, leaves that match an entry, by verdict (characters):\n");
    printf("  %-16s %10s %10s\n", "verdict", "non-gold", "gold");
    for (int v = 1; v < 8; v++)
        if (total[1].gold_by[v] || total[1].other_by[v])
            printf("  %-16s %10llu %10llu\n", verdict_name(v), (unsigned long long)total[1].other_by[v],
                   (unsigned long long)total[1].gold_by[v]);
    if (lost)
        fclose(lost);
    if (residue)
        fclose(residue);
    return rc;
}

/* ---- bench ---------------------------------------------------------------- */

/* Parse the input pages once, then feed them cyclically to a builder until
 * -n pages were added (one site), and match every page against the result:
 * the template work per page, apart from parsing. */
static int cmd_bench(const options *o, int argc, char **argv)
{
    ps_error err = {0};
    ps_source *src = ps_source_open((const char *const *)argv, (size_t)argc, o->list, NULL, &err);
    if (!src) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 1;
    }
    ps_page **pages = NULL;
    size_t np = 0, cap = 0;
    double parsing = 0;
    ps_input in = {0};
    while (ps_source_next(src, &in, &err) == 1) {
        if (in.skipped || in.status != PS_OK)
            continue;
        if (np == cap) {
            cap = cap ? cap * 2 : 64;
            ps_page **nv = realloc(pages, cap * sizeof *nv);
            if (!nv)
                break;
            pages = nv;
        }
        double t0 = ps_clock(PS_CLOCK_PROCESS_CPU);
        ps_page *pg = input_page(&in, &err);
        parsing += ps_clock(PS_CLOCK_PROCESS_CPU) - t0;
        if (pg)
            pages[np++] = pg;
        else
            fprintf(stderr, "%s: %s; skipped\n", prog, err.msg);
    }
    ps_input_clear(&in);
    ps_source_free(src);
    if (!np) {
        free(pages);
        fprintf(stderr, "%s: bench: no page could be read\n", prog);
        return 1;
    }
    double t0;
    double parse = parsing / (double)np;
    size_t total = o->bench_pages ? o->bench_pages : np;
    ps_template_builder *b = ps_template_builder_new(&o->params);
    t0 = ps_clock(PS_CLOCK_PROCESS_CPU);
    for (size_t i = 0; i < total && np; i++)
        if (ps_template_builder_add(b, "bench", pages[i % np], &err) < 0) {
            fprintf(stderr, "%s: %s\n", prog, err.msg);
            break;
        }
    ps_template_store *s = ps_template_builder_finish(b);
    double build = ps_clock(PS_CLOCK_PROCESS_CPU) - t0;
    const ps_template_lib *lib = ps_template_store_get(s, "bench");
    ps_template_lib_info info = {0};
    if (lib)
        ps_template_lib_get_info(lib, &info);
    double match[2] = {0, 0};
    size_t leaves = 0, removed[2] = {0, 0};
    for (int r = 0; r < 2 && lib; r++) {
        t0 = ps_clock(PS_CLOCK_PROCESS_CPU);
        for (size_t i = 0; i < total && np; i++) {
            size_t n;
            ps_page_leaves(pages[i % np], &n);
            ps_template_match *m = malloc((n + 1) * sizeof *m);
            size_t k = ps_template_match_page(lib, pages[i % np], r ? PS_TEMPLATE_RULES_GUARDED : PS_TEMPLATE_RULES_PAPER, m);
            removed[r] += k == (size_t)-1 ? 0 : k;
            if (r == 0)
                leaves += n;
            free(m);
        }
        match[r] = (ps_clock(PS_CLOCK_PROCESS_CPU) - t0) / (double)(total ? total : 1);
    }
    printf("pages %zu (%zu distinct, cycled)  leaves/page %.0f  entries %zu\n", total, np,
           total ? (double)leaves / (double)total : 0.0, info.n_entries);
    printf("(CPU time of one thread)\n");
    printf("parse            %9.3f ms/page\n", parse * 1e3);
    printf("build (template) %9.3f ms/page  %7.2f s for %zu pages  (%.0f pages/s)\n",
           build / (double)(total ? total : 1) * 1e3, build, total, build > 0 ? (double)total / build : 0.0);
    printf("match paper      %9.3f ms/page  %5.1f %% of parse  (%.1f leaves removed/page)\n", match[0] * 1e3,
           parse > 0 ? 100.0 * match[0] / parse : 0.0, total ? (double)removed[0] / (double)total : 0.0);
    printf("match guarded    %9.3f ms/page  %5.1f %% of parse  (%.1f leaves removed/page)\n", match[1] * 1e3,
           parse > 0 ? 100.0 * match[1] / parse : 0.0, total ? (double)removed[1] / (double)total : 0.0);
    for (size_t i = 0; i < np; i++)
        ps_page_free(pages[i]);
    free(pages);
    ps_template_store_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    options o = {0};
    ps_template_params_default(&o.params);
    o.min_pages = 10;
    o.gold_test = PS_TPL_GOLD_ALIGN;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:o:l:qu:ahV", long_opts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-template %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-template", c, argv);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "missing command (build, show, match or eval)");
    const char *cmd = argv[optind];
    optind++;
    int sub_argc = argc - optind + 1;
    char **sub_argv = argv + optind - 1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(sub_argc, sub_argv, ":o:l:qu:ahV", long_opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.out = optarg; break;
        case 'l': o.list = optarg; break;
        case 'q': o.quiet = 1; break;
        case 'u': o.url = optarg; break;
        case 'a': o.all = 1; break;
        case OPT_SITE: o.site = optarg; break;
        case OPT_SITE_RULE:
            if (!strcmp(optarg, "host")) o.site_rule = PS_SITE_HOST;
            else if (!strcmp(optarg, "host+path1")) o.site_rule = PS_SITE_HOST_PATH1;
            else return usage_error("--site-rule: '%s' (host or host+path1)", optarg);
            break;
        case OPT_UPDATE: o.update = 1; break;
        case OPT_N1: if (parse_uint(optarg, &o.params.n1) < 0) return usage_error("--n1: '%s' is not a positive number", optarg); break;
        case OPT_N2: if (parse_uint(optarg, &o.params.n2) < 0) return usage_error("--n2: '%s' is not a positive number", optarg); break;
        case OPT_MIN_PAGES: if (parse_uint(optarg, &o.min_pages) < 0) return usage_error("--min-pages: '%s' is not a positive number", optarg); break;
        case OPT_COUNT:
            if (!strcmp(optarg, "pages")) o.params.count_occurrences = 0;
            else if (!strcmp(optarg, "occurrences")) o.params.count_occurrences = 1;
            else return usage_error("--count: '%s' (pages or occurrences)", optarg);
            break;
        case OPT_RULES:
            if (!strcmp(optarg, "paper")) o.params.rules = PS_TEMPLATE_RULES_PAPER;
            else if (!strcmp(optarg, "guarded")) o.params.rules = PS_TEMPLATE_RULES_GUARDED;
            else return usage_error("--rules: '%s' (paper or guarded)", optarg);
            o.rules_given = 1;
            break;
        case OPT_LOST: o.lost = optarg; break;
        case OPT_RESIDUE: o.residue = optarg; break;
        case OPT_PAGES: if (parse_uint(optarg, &o.bench_pages) < 0) return usage_error("--pages: '%s' is not a positive number", optarg); break;
        case OPT_GOLD_TEST:
            if (!strcmp(optarg, "align")) o.gold_test = PS_TPL_GOLD_ALIGN;
            else if (!strcmp(optarg, "runs")) o.gold_test = PS_TPL_GOLD_RUNS;
            else if (!strcmp(optarg, "leaf")) o.gold_test = PS_TPL_GOLD_LEAF_TEXT;
            else return usage_error("--gold-test: '%s' (align, runs or leaf)", optarg);
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-template %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-template", c, sub_argv);
        }
    }
    ps_init();
    int nargs = sub_argc - optind;
    char **args = sub_argv + optind;
    if (!strcmp(cmd, "build"))
        return cmd_build(&o, nargs, args);
    if (!strcmp(cmd, "show"))
        return cmd_show(nargs, args);
    if (!strcmp(cmd, "match"))
        return cmd_match(&o, nargs, args);
    if (!strcmp(cmd, "eval"))
        return cmd_eval(&o, nargs, args);
    if (!strcmp(cmd, "bench"))
        return cmd_bench(&o, nargs, args);
    return usage_error("unknown command '%s' (build, show, match or eval)", cmd);
}
