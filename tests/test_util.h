/* tests/test_util.h — helpers shared by the cmocka tests. */
#ifndef PS_TEST_UTIL_H
#define PS_TEST_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "pagesift.h"
#include "pagesift/page.h"

/* Path of a data set under ../shared/datasets, or skip the test with a
 * message saying why (cmocka reports it as SKIPPED). */
static inline const char *shared_dataset(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/datasets/%s", PS_SHARED_DIR, name);
    struct stat st;
    if (stat(buf, &st) != 0) {
        fprintf(stderr, "SKIP: %s not found (../shared is absent; CI has it)\n", buf);
        return NULL;
    }
    return buf;
}

static inline ps_page *parse_str(const char *html)
{
    ps_error err = {0};
    ps_page *pg = ps_page_parse(html, strlen(html), NULL, &err);
    if (!pg)
        fprintf(stderr, "parse failed: %s\n", err.msg);
    return pg;
}
#endif
