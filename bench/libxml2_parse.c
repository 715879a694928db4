/* bench/libxml2_parse.c — the reference of scripts/bench-extract: bare
 * libxml2 HTML parsing of the same files pagesift extracts (read the file,
 * htmlReadMemory with the options of extract/page.c, xmlFreeDoc), timed the
 * same way, so the ratio pagesift / libxml2 measures what pagesift adds.
 * Built by CMake as build/libxml2_parse (benchmarks are not installed).
 *
 * With --sax, the same bytes go through libxml2's HTML SAX interface
 * instead (htmlCreateMemoryParserCtxt, htmlParseDocument) with callbacks
 * that only count elements, attributes and text bytes: the tokenising
 * without a tree, the floor a streaming page model builds on (issue 33).
 *
 * Usage: libxml2_parse [--sax] FILE...   (or file names on stdin, one a
 * line, when no FILE is given).  Prints "pages N bytes B seconds S"
 * (--sax: also "elements E attributes A text T"). */
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
static int sax_mode;
static size_t n_elements, n_attributes, n_text;

#define PARSE_OPTIONS \
    (HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | \
     HTML_PARSE_COMPACT | XML_PARSE_HUGE)

static void sax_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
    (void)ctx;
    (void)name;
    n_elements++;
    for (size_t i = 0; atts && atts[i]; i += 2)
        n_attributes++;
}

static void sax_end(void *ctx, const xmlChar *name)
{
    (void)ctx;
    (void)name;
}

static void sax_text(void *ctx, const xmlChar *ch, int len)
{
    (void)ctx;
    (void)ch;
    n_text += (size_t)len;
}

/* libxml2's SAX parse of @p buf with counting callbacks, no tree */
static void sax_parse(const char *buf, int n)
{
    htmlParserCtxtPtr c = htmlCreateMemoryParserCtxt(buf, n);
    if (!c)
        return;
    xmlSAXHandler *h = (xmlSAXHandler *)c->sax;
    memset(h, 0, sizeof *h);
    h->startElement = sax_start;
    h->endElement = sax_end;
    h->characters = sax_text;
    h->cdataBlock = sax_text;
    c->userData = NULL;
    htmlCtxtUseOptions(c, PARSE_OPTIONS);
    htmlParseDocument(c);
    if (c->myDoc) /* none is built: no SAX callback makes one */
        xmlFreeDoc(c->myDoc);
    htmlFreeParserCtxt(c);
}

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
    if (sax_mode) {
        sax_parse(buf, (int)n);
    } else {
        htmlDocPtr doc = htmlReadMemory(buf, (int)n, NULL, NULL, PARSE_OPTIONS);
        if (doc)
            xmlFreeDoc(doc);
    }
    free(buf);
    pages++;
    bytes += (size_t)n;
}

int main(int argc, char **argv)
{
    xmlInitParser();
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--sax") == 0) {
        sax_mode = 1;
        first = 2;
    }
    double t0 = now();
    if (argc > first) {
        for (int i = first; i < argc; i++)
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
    printf("pages %zu bytes %zu seconds %.4f", pages, bytes, dt);
    if (sax_mode)
        printf(" elements %zu attributes %zu text %zu", n_elements, n_attributes, n_text);
    printf("\n");
    return 0;
}
