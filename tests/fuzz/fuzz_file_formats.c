/* tests/fuzz/fuzz_file_formats.c — libFuzzer target: arbitrary bytes as each
 * file pagesift reads: a WARC file (plain or gzip), a JSON Lines file, a
 * template library and a model bundle (as it is, carried over from format 1, and with its
 * checksum made right so that the parser behind the check is reached; so
 * made right, also as a per-site delta bundle against scripts/fuzz's
 * small.model seed, block paths and all), and a block CSV as per-site
 * training reads it against that seed (ps_site_rows_read, each site's rows
 * laid out).  A
 * bundle's following stages (a stacked model: ps_model_next_stage) are
 * read too, and the block classifier is opened over it (the "stack" kind
 * when a second stage follows).  Each must load or fail with a clear error,
 * never crash, leak or read out of bounds.  The bytes go through a file
 * because the readers take paths.  Built by scripts/fuzz. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "methods/block_classifier.h"
#include "pagesift.h"
#include "train/train_internal.h"
#include "pagesift/site_models.h"
#include "pagesift/templates.h"
#include "pagesift/train.h"

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

/* The stages that follow @p m in its file (at most a few), each parsed as
 * a load would and freed; one that follows but cannot be read must say so. */
static void next_stages(const ps_model *m)
{
    const ps_model *cur = m;
    for (int i = 0; cur && i < 4; i++) {
        ps_error e = {0};
        ps_model *next = ps_model_next_stage(cur, &e);
        int follows = cur->end_off < cur->bundle_len &&
                      cur->bundle_len - cur->end_off >= 15 &&
                      memcmp(cur->bundle + cur->end_off, "pagesift-model ", 15) == 0;
        if (!next && follows != (e.code != 0))
            abort(); /* NULL with err set exactly when a bundle follows */
        if (cur != m)
            ps_model_free((ps_model *)cur);
        cur = next;
    }
    if (cur != m)
        ps_model_free((ps_model *)cur);
}

/* The block classifier over the bundle file at @p path (svm, or stack) */
static void classifier(const char *path)
{
    ps_error err = {0};
    ps_block_classifier_free(ps_block_classifier_open(path, &err));
}

/* @p b (a bundle whose first stage is sealed) with the stage after the
 * first sealed as well, so that mutations reach the second stage's parser;
 * 0, or -1 when there is no such stage */
static int seal_second(ps_buf *b, const ps_model *m)
{
    size_t off = m->end_off;
    if (off >= b->len || b->len - off < 15 || memcmp(b->data + off, "pagesift-model ", 15) != 0)
        return -1;
    ps_buf rest = {0};
    int rc = -1;
    if (ps_buf_append(&rest, b->data + off, b->len - off) == 0 && ps_model_bundle_seal(&rest) == 0) {
        b->len = off;
        rc = ps_buf_append(b, rest.data, rest.len);
    }
    ps_buf_free(&rest);
    return rc;
}

/* Every record of the input @p path read, until the end or a fatal error. */
static void drain(const char *path)
{
    ps_error err = {0};
    ps_source *src = ps_source_open(&path, 1, NULL, NULL, &err);
    if (src) {
        ps_input in;
        memset(&in, 0, sizeof in);
        for (int i = 0; i < 10000 && ps_source_next(src, &in, &err) == 1; i++)
            ;
        ps_input_clear(&in);
        ps_source_free(src);
    }
}

/* The bytes as an input file named @p name. */
static void read_all(const char *name, const uint8_t *data, size_t size)
{
    drain(write_as(name, data, size));
}

/* The bytes through a pipe (a shell's <(...)): read once as they come, a
 * WARC stream or one page by their first bytes.  Only what fits in the
 * pipe's buffer (64 KiB on Linux), which is written before it is read. */
static void read_pipe(const uint8_t *data, size_t size)
{
    int fd[2];
    if (size > 65536 || pipe(fd) != 0)
        return;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd[1], data + done, size - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(fd[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
    drain(path);
    close(fd[0]);
}

/* The base a per-site delta is read against: scripts/fuzz's small.model
 * seed (its site.model seed is a delta against it, with block paths), NULL
 * when it is not there (run from another folder). */
static const ps_model *site_base(void)
{
    static int tried;
    static ps_model *base;
    if (!tried) {
        ps_error e = {0};
        tried = 1;
        base = ps_model_load("out/fuzz/seeds/files/small.model", &e);
    }
    return base;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_error err = {0};
    read_all("in.warc", data, size);  /* a WARC file */
    read_all("in.jsonl", data, size); /* JSON Lines (plain or gzip) */
    read_pipe(data, size);            /* a WARC stream or a page through a pipe */
    const char *path;
    /* a template library */
    path = write_as("fuzz.example.tpl", data, size);
    ps_template_lib *lib = ps_template_lib_load(path, &err);
    ps_template_lib_free(lib);
    /* a model bundle */
    path = write_as("fuzz.model", data, size);
    ps_model *m = ps_model_load(path, &err);
    next_stages(m);
    if (m)
        classifier(path);
    ps_model_free(m);
    /* ... carried over from format 1 (to a file of its own) */
    char up[128];
    snprintf(up, sizeof up, "%s/up.model", dir);
    if (ps_model_upgrade(path, up, &err) == 0) {
        m = ps_model_load(up, &err);
        if (!m) /* what the upgrade wrote must load */
            abort();
        next_stages(m);
        ps_model_free(m);
        unlink(up);
    }
    unlink(path);
    /* ... and the same bytes with their checksum made right, so that
     * mutations get past it into the parser behind it */
    ps_buf b = {0};
    if (size > 15 && memcmp(data, "pagesift-model ", 15) == 0 && ps_buf_append(&b, data, size) == 0 &&
        ps_model_bundle_seal(&b) == 0) {
        /* a per-site delta bundle, read against its base */
        if (site_base())
            ps_model_free(ps_site_model_parse(b.data, b.len, "sealed.site", site_base(), &err));
        m = ps_model_parse(b.data, b.len, "sealed.model", &err);
        next_stages(m);
        if (m && seal_second(&b, m) == 0) {
            ps_model_free(m);
            m = ps_model_parse(b.data, b.len, "sealed2.model", &err);
            next_stages(m);
        }
        if (m) {
            path = write_as("sealed.model", (const uint8_t *)b.data, b.len);
            classifier(path);
            unlink(path);
        }
        ps_model_free(m);
    }
    ps_buf_free(&b);
    /* a block CSV, its rows by site as pagesift-train --per-site reads them */
    if (site_base()) {
        path = write_as("rows.csv", data, size);
        char *files[] = {(char *)path};
        ps_site_rows *rows = ps_site_rows_read(files, 1, site_base(), NULL, &err);
        for (size_t s = 0; rows && s < ps_site_rows_sites(rows); s++) {
            ps_site_rows_view v;
            ps_site_train_options o = {0};
            if (!ps_site_rows_site(rows, s, &v, &o) || (v.n && (o.parent[v.n - 1] >= (int32_t)v.n)))
                abort(); /* a site in range has a key; a parent is an earlier row */
        }
        ps_site_rows_free(rows);
        unlink(path);
    }
    return 0;
}
