/* tests/fuzz/fuzz_annotate_save.c — libFuzzer target: arbitrary bytes as
 * the body of a served workspace's save (pagesift-annotate --serve, POST
 * /save: annotate/serve.c, ps_annotate_save_merge) merged into a labels
 * file.  The bytes before the first NUL, when there is one, are the
 * workspace's labels.json (so the reader of that file is fuzzed too), the
 * rest the body; without a NUL the body goes into a fixed labels.json of
 * two pages.  Each save must merge, or be refused (400) or answered 500 with
 * a clear error, never crash, leak or read out of bounds; a refused save
 * or a damaged labels.json must leave the file as it was.  Built by
 * scripts/fuzz. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate/annotate_internal.h"
#include "common/util.h"
#include "pagesift.h"

static char dir[64];

static const char LABELS[] =
    "{\"format\": \"pagesift-annotate-labels\", \"version\": 1, \"revision\": 3, \"pages\": ["
    "{\"n\": 1, \"page_id\": \"a\", \"labels\": {\"b0123456789abcdef\": 1, \"b1111111111111111\": 0}},"
    "{\"n\": 4, \"page_id\": \"d\", \"labels\": {}}]}\n";

static void put(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
}

static char *get(const char *path, size_t *n)
{
    ps_error err = {0};
    return ps_read_file(path, (size_t)1 << 30, n, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/pagesift-fuzz-save-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    char lj[128], csv[128];
    snprintf(lj, sizeof lj, "%s/labels.json", dir);
    snprintf(csv, sizeof csv, "%s/labels.csv", dir);
    const uint8_t *nul = memchr(data, 0, size);
    const char *body = (const char *)data;
    size_t blen = size;
    if (nul) {
        put(lj, data, (size_t)(nul - data));
        body = (const char *)nul + 1;
        blen = size - (size_t)(nul - data) - 1;
    } else {
        put(lj, LABELS, sizeof LABELS - 1);
    }
    size_t before_len = 0;
    char *before = get(lj, &before_len);
    char *answer = NULL;
    ps_error err = {0};
    int code = ps_annotate_save_merge(dir, body, blen, &answer, &err);
    if (code == 200) {
        if (!answer)
            abort();
    } else {
        if (answer || !err.msg[0] || (code != 400 && code != 500))
            abort();
        /* refused or failed: labels.json as it was */
        size_t after_len = 0;
        char *after = get(lj, &after_len);
        if (!before || !after || after_len != before_len || memcmp(before, after, after_len) != 0)
            abort();
        free(after);
    }
    free(answer);
    free(before);
    unlink(csv);
    return 0;
}
