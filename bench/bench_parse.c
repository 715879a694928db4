/* bench/bench_parse.c — throughput of the page model (load + decode + parse
 * + block tree) beside bare libxml2 (htmlReadMemory + xmlFreeDoc) on the same
 * bytes, in the same run.  Pages are read into memory first, so disk speed
 * does not count.  Usage: bench_parse [-r ROUNDS] [-o bare|model] FILE|DIR...
 * (-o runs one side only, for perf stat cycle counts of each). */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/page.h"

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
    char *d = ps_read_file(path, 0, &len, &err);
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

int main(int argc, char **argv)
{
    int rounds = 3, c, only = 0; /* 1 bare only, 2 model only */
    while ((c = getopt(argc, argv, "r:o:")) != -1) {
        if (c == 'r')
            rounds = atoi(optarg);
        else if (c == 'o')
            only = strcmp(optarg, "bare") == 0 ? 1 : strcmp(optarg, "model") == 0 ? 2 : 0;
        else {
            fprintf(stderr, "usage: bench_parse [-r ROUNDS] [-o bare|model] FILE|DIR...\n");
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
    double mb = (double)total_bytes / 1e6, best_bare = 1e9, best_model = 1e9;
    size_t failed = 0;
    /* Interleave the two so that machine noise hits both alike; keep the best round. */
    for (int r = 0; r < rounds; r++) {
        double b = only == 2 ? 1e9 : run_bare(), m = only == 1 ? 1e9 : run_model(&failed);
        if (b < best_bare)
            best_bare = b;
        if (m < best_model)
            best_model = m;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("pages %zu, %.1f MB, best of %d rounds\n", n_pages, mb, rounds);
    printf("bare libxml2 htmlReadMemory   %8.1f pages/s %7.2f MB/s\n", n_pages / best_bare, mb / best_bare);
    printf("pagesift page model           %8.1f pages/s %7.2f MB/s  (%zu failed)\n", n_pages / best_model,
           mb / best_model, failed);
    printf("ratio page model / bare       %8.3f\n", best_bare / best_model);
    printf("peak RSS                      %8.1f MB (pages held in memory: %.1f MB)\n", ru.ru_maxrss / 1024.0, mb);
    return 0;
}
