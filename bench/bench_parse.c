/* bench/bench_parse.c — throughput of the page model (load + decode + parse
 * + block tree) beside bare libxml2 (htmlReadMemory + xmlFreeDoc) on the same
 * bytes, in the same run; and of a parse alone three ways: a DOM with the
 * page model's options (ps_xml_read), the compact tree the page model
 * builds from SAX events (extract/tree.c) and bare SAX parsing (no
 * callbacks: the floor).
 * Pages are read into memory first, so disk speed does not count.
 * Usage: bench_parse [-r ROUNDS] [-o bare|model|dom|tree|sax] [-m] FILE|DIR...
 * (-o runs one side only, for perf stat cycle counts of each; -m adds, in
 * an untimed pass, the heap bytes the DOM and the tree hold once parsed). */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <malloc.h>

#include <libxml/HTMLparser.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/dataset.h"
#include "pagesift/page.h"
#include "extract/page_internal.h"
#include "extract/tree.h"

/* the page model's options (extract/page.c) */
#define PAGE_OPTIONS                                                                                          \
    (HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | \
     HTML_PARSE_COMPACT | XML_PARSE_HUGE | HTML_PARSE_NOBLANKS)

typedef struct {
    char *data;
    size_t len;
} page;

static page *pages;
static size_t n_pages, cap_pages, total_bytes;

static void add_file(const char *path)
{
    ps_error err;
    size_t len;
    char *d = ps_read_page_file(path, 0, &len, &err); /* a .gz page too */
    if (!d) {
        fprintf(stderr, "bench_parse: %s\n", err.msg);
        return;
    }
    if (n_pages == cap_pages) {
        cap_pages = cap_pages ? cap_pages * 2 : 1024;
        pages = realloc(pages, cap_pages * sizeof *pages);
    }
    pages[n_pages++] = (page){d, len};
    total_bytes += len;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_path(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        add_file(path);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            names = realloc(names, cap * sizeof *names);
        }
        size_t l = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        snprintf(names[n++], l, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    for (size_t i = 0; i < n; i++) {
        add_path(names[i]);
        free(names[i]);
    }
    free(names);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: robust on a shared machine */
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double run_bare(void)
{
    double t = now();
    for (size_t i = 0; i < n_pages; i++) {
        htmlDocPtr doc = htmlReadMemory(pages[i].data, (int)pages[i].len, NULL, NULL,
                                        HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                            HTML_PARSE_NONET);
        if (doc)
            xmlFreeDoc(doc);
    }
    return now() - t;
}

static double run_model(size_t *failed)
{
    double t = now();
    *failed = 0;
    for (size_t i = 0; i < n_pages; i++) {
        ps_error err;
        ps_page *pg = ps_page_parse(pages[i].data, pages[i].len, NULL, &err);
        if (!pg)
            (*failed)++;
        ps_page_free(pg);
    }
    return now() - t;
}

/* A DOM with the page model's options, the bytes read in place
 * (ps_xml_read: what the tree's parse does, with libxml2's own callbacks). */
static double run_dom(void)
{
    double t = now();
    for (size_t i = 0; i < n_pages; i++) {
        htmlDocPtr doc = ps_xml_read(pages[i].data, pages[i].len, NULL, PAGE_OPTIONS);
        if (doc)
            xmlFreeDoc(doc);
    }
    return now() - t;
}

static double run_tree(size_t *failed)
{
    double t = now();
    *failed = 0;
    for (size_t i = 0; i < n_pages; i++) {
        ps_tree *tr = ps_tree_parse(pages[i].data, pages[i].len, NULL, PAGE_OPTIONS);
        if (!tr)
            (*failed)++;
        ps_tree_free(tr);
    }
    return now() - t;
}

/* SAX with no callbacks at all: the tokenizer and the parser's own state. */
static double run_sax(void)
{
    htmlSAXHandler none;
    memset(&none, 0, sizeof none);
    double t = now();
    for (size_t i = 0; i < n_pages; i++) {
        htmlParserCtxtPtr c = htmlCreateMemoryParserCtxt(pages[i].data, (int)pages[i].len);
        if (!c)
            continue;
        htmlCtxtUseOptions(c, PAGE_OPTIONS);
        memcpy(c->sax, &none, sizeof none);
        c->sax->initialized = 1;
        htmlParseDocument(c);
        if (c->myDoc)
            xmlFreeDoc(c->myDoc);
        htmlFreeParserCtxt(c);
    }
    return now() - t;
}

/* Heap bytes held by each page's DOM and tree once
 * parsed: their sums and the largest per byte of its page. */
static void held_bytes(void)
{
    double dom = 0, tree = 0, worst_dom = 0, worst_tree = 0, nodes = 0, attrs = 0, text = 0, arrays = 0;
    for (size_t i = 0; i < n_pages; i++) {
        size_t b0 = mallinfo2().uordblks;
        ps_xml_failed_reset();
        htmlDocPtr doc = ps_xml_read(pages[i].data, pages[i].len, NULL, PAGE_OPTIONS);
        double d = (double)mallinfo2().uordblks - (double)b0;
        if (doc)
            xmlFreeDoc(doc);
        b0 = mallinfo2().uordblks;
        ps_tree *tr = ps_tree_parse(pages[i].data, pages[i].len, NULL, PAGE_OPTIONS);
        double t = (double)mallinfo2().uordblks - (double)b0;
        if (tr) {
            nodes += tr->n_nodes, attrs += tr->n_attrs, text += tr->text_len;
            arrays += (double)ps_tree_bytes(tr);
        }
        ps_tree_free(tr);
        dom += d, tree += t;
        double len = pages[i].len ? (double)pages[i].len : 1;
        if (d / len > worst_dom)
            worst_dom = d / len;
        if (t / len > worst_tree)
            worst_tree = t / len;
    }
    printf("held after the parse, all pages: DOM %.1f MB, tree %.1f MB (%.3f of the DOM); per byte of a page: "
           "DOM %.2f, tree %.2f (mean), DOM %.2f, tree %.2f (the worst page)\n",
           dom / 1048576, tree / 1048576, tree / dom, dom / (double)total_bytes, tree / (double)total_bytes,
           worst_dom, worst_tree);
    printf("the trees: %.0f nodes, %.0f attributes, %.1f MB of text and values; their arrays %.1f MB, the rest "
           "(libxml2's dictionary of names) %.1f MB\n",
           nodes, attrs, text / 1048576, arrays / 1048576, (tree - arrays) / 1048576);
}

int main(int argc, char **argv)
{
    static const char *const sides[] = {"bare", "model", "dom", "tree", "sax"};
    int rounds = 3, c, only = -1, held = 0; /* only: one of sides */
    while ((c = getopt(argc, argv, "r:o:m")) != -1) {
        if (c == 'r')
            rounds = atoi(optarg);
        else if (c == 'm')
            held = 1;
        else if (c == 'o') {
            for (int k = 0; k < 5; k++)
                if (strcmp(optarg, sides[k]) == 0)
                    only = k;
            if (only < 0) {
                fprintf(stderr, "bench_parse: -o takes bare, model, dom, tree or sax\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: bench_parse [-r ROUNDS] [-o bare|model|dom|tree|sax] [-m] FILE|DIR...\n");
            return 2;
        }
    }
    ps_init();
    for (int i = optind; i < argc; i++)
        add_path(argv[i]);
    if (!n_pages) {
        fprintf(stderr, "bench_parse: no pages\n");
        return 1;
    }
    double mb = (double)total_bytes / 1e6, best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
    size_t failed = 0, tree_failed = 0;
    /* Interleave the sides so that machine noise hits all alike; keep the best round. */
    for (int r = 0; r < rounds; r++) {
        double t[5] = {only < 0 || only == 0 ? run_bare() : 1e9, only < 0 || only == 1 ? run_model(&failed) : 1e9,
                       only < 0 || only == 2 ? run_dom() : 1e9, only < 0 || only == 3 ? run_tree(&tree_failed) : 1e9,
                       only < 0 || only == 4 ? run_sax() : 1e9};
        for (int k = 0; k < 5; k++)
            if (t[k] < best[k])
                best[k] = t[k];
    }
    double best_bare = best[0], best_model = best[1];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("pages %zu, %.1f MB, best of %d rounds\n", n_pages, mb, rounds);
    printf("bare libxml2 htmlReadMemory   %8.1f pages/s %7.2f MB/s\n", n_pages / best_bare, mb / best_bare);
    printf("pagesift page model           %8.1f pages/s %7.2f MB/s  (%zu failed)\n", n_pages / best_model,
           mb / best_model, failed);
    printf("ratio page model / bare       %8.3f\n", best_bare / best_model);
    printf("parse: DOM, page options      %8.1f pages/s %7.2f MB/s\n", n_pages / best[2], mb / best[2]);
    printf("parse: compact tree (SAX)     %8.1f pages/s %7.2f MB/s  (%zu failed)\n", n_pages / best[3], mb / best[3],
           tree_failed);
    printf("parse: SAX, no callbacks      %8.1f pages/s %7.2f MB/s\n", n_pages / best[4], mb / best[4]);
    printf("ratio DOM / tree (CPU)        %8.3f\n", best[3] / best[2]);
    if (held)
        held_bytes();
    printf("peak RSS                      %8.1f MB (pages held in memory: %.1f MB)\n", ru.ru_maxrss / 1024.0, mb);
    return 0;
}
