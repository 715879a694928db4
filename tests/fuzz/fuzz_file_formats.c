/* tests/fuzz/fuzz_file_formats.c — libFuzzer target: arbitrary bytes as each
 * file pagesift reads: a WARC file (plain or gzip), a template library and
 * a model bundle (as it is, carried over from format 1, and with its
 * checksum made right so that the parser behind the check is reached).  Each must load or fail with a clear error, never crash,
 * leak or read out of bounds.  The bytes go through a file because the
 * readers take paths.  Built by scripts/fuzz. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "pagesift.h"
#include "train/train_internal.h"

static char dir[64];

static const char *write_as(const char *name, const uint8_t *data, size_t size)
{
    static char path[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/pagesift-fuzz-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_error err = {0};
    /* a WARC file: every record read until the end or a fatal error */
    const char *path = write_as("in.warc", data, size);
    ps_source *src = ps_source_open(&path, 1, NULL, NULL, &err);
    if (src) {
        ps_input in;
        memset(&in, 0, sizeof in);
        for (int i = 0; i < 10000 && ps_source_next(src, &in, &err) == 1; i++)
            ;
        ps_input_clear(&in);
        ps_source_free(src);
    }
    /* a template library */
    path = write_as("fuzz.example.tpl", data, size);
    ps_template_lib *lib = ps_template_lib_load(path, &err);
    ps_template_lib_free(lib);
    /* a model bundle */
    path = write_as("fuzz.model", data, size);
    ps_model *m = ps_model_load(path, &err);
    ps_model_free(m);
    /* ... carried over from format 1 (to a file of its own) */
    char up[128];
    snprintf(up, sizeof up, "%s/up.model", dir);
    if (ps_model_upgrade(path, up, &err) == 0) {
        m = ps_model_load(up, &err);
        if (!m) /* what the upgrade wrote must load */
            abort();
        ps_model_free(m);
        unlink(up);
    }
    unlink(path);
    /* ... and the same bytes with their checksum made right, so that
     * mutations get past it into the parser behind it */
    ps_buf b = {0};
    if (size > 15 && memcmp(data, "pagesift-model ", 15) == 0 && ps_buf_append(&b, data, size) == 0 &&
        ps_model_bundle_seal(&b) == 0) {
        m = ps_model_parse(b.data, b.len, "sealed.model", &err);
        ps_model_free(m);
    }
    ps_buf_free(&b);
    return 0;
}
