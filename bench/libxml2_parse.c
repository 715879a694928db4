/* bench/libxml2_parse.c — the reference of scripts/bench-extract: bare
 * libxml2 HTML parsing of the same files pagesift extracts (read the file,
 * htmlReadMemory with the options of extract/page.c, xmlFreeDoc), timed the
 * same way, so the ratio pagesift / libxml2 measures what pagesift adds.
 * Built by CMake as build/libxml2_parse (benchmarks are not installed).
 *
 * Usage: libxml2_parse FILE...   (or file names on stdin, one a line, when
 * no FILE is given).  Prints "pages N bytes B seconds S". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/HTMLparser.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t pages, bytes;

static void one(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: read failed\n", path);
        free(buf);
        fclose(f);
        return;
    }
    fclose(f);
    htmlDocPtr doc = htmlReadMemory(buf, (int)n, NULL, NULL,
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                        HTML_PARSE_NONET | HTML_PARSE_COMPACT | XML_PARSE_HUGE);
    if (doc)
        xmlFreeDoc(doc);
    free(buf);
    pages++;
    bytes += (size_t)n;
}

int main(int argc, char **argv)
{
    xmlInitParser();
    double t0 = now();
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            one(argv[i]);
    } else {
        char line[8192];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\n")] = '\0';
            if (*line)
                one(line);
        }
    }
    double dt = now() - t0;
    printf("pages %zu bytes %zu seconds %.4f\n", pages, bytes, dt);
    return 0;
}
