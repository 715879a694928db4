/* tests/test_inputs.c — ps_source: WARC (plain, gzip one member per record
 * and one for the file, truncated, wrong Content-Length, corrupt gzip,
 * skipped record types, chunked and gzip bodies, charset from the HTTP
 * header), folder recursion order, list files, JSON Lines on stdin, the page
 * size cap and data set folders.  WARC files are built here with zlib in a
 * temporary folder. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <brotli/encode.h>
#include <zlib.h>
#include <zstd.h>

#include "common/util.h"
#include "pagesift/dataset.h"
#include "tests/test_tmpdir.h"
#include "tests/test_util.h"
#include "pagesift/inputs.h"

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[256];

static int setup_tmp(void **state)
{
    (void)state;
    return test_tmpdir_make(tmpdir, sizeof tmpdir, "ps_test_inputs");
}

static int teardown_tmp(void **state)
{
    (void)state;
    return test_tmpdir_remove(tmpdir);
}

static const char *tpath(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A WARC record; length_delta != 0 writes a wrong Content-Length. */
static void warc_record(ps_buf *out, const char *type, const char *uuid, const char *uri,
                        const char *ctype, const char *block, size_t blen, long length_delta)
{
    ps_buf_printf(out, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\n", type, uuid);
    if (uri)
        ps_buf_printf(out, "WARC-Target-URI: %s\r\n", uri);
    if (ctype)
        ps_buf_printf(out, "Content-Type: %s\r\n", ctype);
    ps_buf_printf(out, "Content-Length: %ld\r\n\r\n", (long)blen + length_delta);
    ps_buf_append(out, block, blen);
    ps_buf_append(out, "\r\n\r\n", 4);
}

/* A response record holding an HTTP response with @p headers and @p body. */
static void warc_response(ps_buf *out, const char *uuid, const char *uri, const char *headers,
                          const char *body, size_t blen, long length_delta)
{
    ps_buf http = {0};
    ps_buf_printf(&http, "%s\r\n\r\n", headers);
    ps_buf_append(&http, body, blen);
    warc_record(out, "response", uuid, uri, "application/http; msgtype=response", http.data, http.len,
                length_delta);
    ps_buf_free(&http);
}

static void gzip_append(ps_buf *out, const void *data, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t bound = deflateBound(&z, (uLong)len);
    assert_int_equal(ps_buf_reserve(out, bound), 0);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out->data + out->len;
    z.avail_out = (uInt)bound;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    out->len += bound - z.avail_out;
    deflateEnd(&z);
}

#define MAX_INPUTS 64
typedef struct inputs {
    ps_input in[MAX_INPUTS];
    size_t n;
    int end; /* last ps_source_next result */
} inputs;

static void read_all_opts(inputs *r, const char *const *args, size_t n, const char *list,
                          const ps_source_options *opt)
{
    memset(r, 0, sizeof *r);
    ps_error err = {0};
    ps_source *src = ps_source_open(args, n, list, opt, &err);
    if (!src)
        fprintf(stderr, "open: %s\n", err.msg);
    assert_non_null(src);
    while (r->n < MAX_INPUTS && (r->end = ps_source_next(src, &r->in[r->n], &err)) == 1)
        r->n++;
    if (r->end < 0)
        fprintf(stderr, "fatal: %s\n", err.msg);
    ps_source_free(src);
}

static void read_all(inputs *r, const char *path)
{
    const char *args[] = {path};
    read_all_opts(r, args, 1, NULL, NULL);
}

static void free_all(inputs *r)
{
    for (size_t i = 0; i < MAX_INPUTS; i++)
        ps_input_clear(&r->in[i]);
}

static void assert_page(const ps_input *in, const char *id, const char *url, const char *body)
{
    if (in->status != PS_OK || in->skipped)
        fprintf(stderr, "not a page: %s (%s)\n", in->msg, in->origin);
    assert_int_equal(in->status, PS_OK);
    assert_int_equal(in->skipped, 0);
    assert_string_equal(in->id, id);
    assert_string_equal(in->url, url);
    assert_non_null(in->data);
    assert_int_equal(in->len, strlen(body));
    assert_memory_equal(in->data, body, in->len);
}

static const char *const PAGE1 = "<html><head><title>One</title></head><body><p>caf\xe9 one</p></body></html>";
static const char *const PAGE2 = "<!DOCTYPE html><html><body><div>Two</div></body></html>";
static const char *const PAGE3 = "<html><body>Three</body></html>";

/* warcinfo, request, an HTML page with a charset, a PNG, a 404, an HTML
 * resource, a DNS response (Heritrix), a response without Content-Type but
 * HTML. */
static void build_mixed(ps_buf *recs[8])
{
    const char *info = "software: test\r\n";
    warc_record(recs[0], "warcinfo", "00000000-0000-0000-0000-000000000000", NULL, "application/warc-fields",
                info, strlen(info), 0);
    const char *req = "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n";
    warc_record(recs[1], "request", "11111111-1111-1111-1111-111111111111", "http://a.example/",
                "application/http; msgtype=request", req, strlen(req), 0);
    warc_response(recs[2], "22222222-2222-2222-2222-222222222222", "http://a.example/",
                  "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\"ISO-8859-1\"\r\nServer: x",
                  PAGE1, strlen(PAGE1), 0);
    warc_response(recs[3], "33333333-3333-3333-3333-333333333333", "http://a.example/logo.png",
                  "HTTP/1.1 200 OK\r\nContent-Type: image/png", "\x89PNG\r\n", 6, 0);
    warc_response(recs[4], "44444444-4444-4444-4444-444444444444", "http://a.example/gone",
                  "HTTP/1.1 404 Not Found\r\nContent-Type: text/html", PAGE3, strlen(PAGE3), 0);
    warc_record(recs[5], "resource", "55555555-5555-5555-5555-555555555555", "file:///b.html",
                "text/html; charset=utf-8", PAGE2, strlen(PAGE2), 0);
    warc_record(recs[6], "response", "66666666-6666-6666-6666-666666666666", "dns:a.example",
                "text/dns", "20240101000000\na.example. 300 IN A 10.0.0.1\n", 44, 0);
    warc_response(recs[7], "77777777-7777-7777-7777-777777777777", "http://a.example/c",
                  "HTTP/1.0 200 OK\r\nServer: old", PAGE3, strlen(PAGE3), 0);
}

static void check_mixed(const inputs *r, const char *file)
{
    assert_int_equal(r->end, 0);
    assert_int_equal(r->n, 8);
    int skipped[8] = {1, 1, 0, 1, 1, 0, 1, 0};
    for (int i = 0; i < 8; i++) {
        assert_int_equal(r->in[i].skipped, skipped[i]);
        assert_int_equal(r->in[i].status, PS_OK);
        assert_non_null(strstr(r->in[i].origin, file));
        if (skipped[i])
            assert_null(r->in[i].data);
    }
    assert_non_null(strstr(r->in[0].msg, "warcinfo"));
    assert_non_null(strstr(r->in[1].msg, "request"));
    assert_non_null(strstr(r->in[3].msg, "image/png"));
    assert_non_null(strstr(r->in[4].msg, "404"));
    assert_non_null(strstr(r->in[6].msg, "text/dns"));
    assert_page(&r->in[2], "22222222-2222-2222-2222-222222222222", "http://a.example/", PAGE1);
    assert_string_equal(r->in[2].charset, "ISO-8859-1");
    assert_page(&r->in[5], "55555555-5555-5555-5555-555555555555", "file:///b.html", PAGE2);
    assert_string_equal(r->in[5].charset, "utf-8");
    assert_page(&r->in[7], "77777777-7777-7777-7777-777777777777", "http://a.example/c", PAGE3);
    assert_null(r->in[7].charset);
}

static ps_buf *new_bufs(ps_buf store[8], ps_buf *ptrs[8])
{
    memset(store, 0, 8 * sizeof *store);
    for (int i = 0; i < 8; i++)
        ptrs[i] = &store[i];
    return store;
}

static void free_bufs(ps_buf store[8])
{
    for (int i = 0; i < 8; i++)
        ps_buf_free(&store[i]);
}

/* ---- WARC --------------------------------------------------------------- */

static void test_warc_plain(void **state)
{
    (void)state;
    ps_buf store[8], *recs[8], file = {0};
    new_bufs(store, recs);
    build_mixed(recs);
    for (int i = 0; i < 8; i++)
        ps_buf_append(&file, store[i].data, store[i].len);
    write_bytes(tpath("mixed.warc"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("mixed.warc"));
    check_mixed(&r, "mixed.warc@offset ");
    /* origin offsets are byte offsets of the records */
    char want[64];
    snprintf(want, sizeof want, "@offset %zu", store[0].len + store[1].len);
    assert_non_null(strstr(r.in[2].origin, want));
    free_all(&r);
    ps_buf_free(&file);
    free_bufs(store);
}

static void test_warc_gzip_members(void **state)
{
    (void)state;
    ps_buf store[8], *recs[8], file = {0};
    new_bufs(store, recs);
    build_mixed(recs);
    size_t member2 = 0;
    for (int i = 0; i < 8; i++) {
        if (i == 2)
            member2 = file.len;
        gzip_append(&file, store[i].data, store[i].len);
    }
    write_bytes(tpath("mixed.warc.gz"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("mixed.warc.gz"));
    check_mixed(&r, "mixed.warc.gz@offset ");
    char want[64]; /* the compressed offset of the record's member, as CDX gives it */
    snprintf(want, sizeof want, "@offset %zu", member2);
    assert_non_null(strstr(r.in[2].origin, want));
    free_all(&r);
    ps_buf_free(&file);
    free_bufs(store);
}

static void test_warc_gzip_whole_file(void **state)
{
    (void)state;
    ps_buf store[8], *recs[8], plain = {0}, file = {0};
    new_bufs(store, recs);
    build_mixed(recs);
    for (int i = 0; i < 8; i++)
        ps_buf_append(&plain, store[i].data, store[i].len);
    gzip_append(&file, plain.data, plain.len);
    /* no .warc name: recognised by its magic bytes and its "WARC/" start */
    write_bytes(tpath("crawl-dump"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("crawl-dump"));
    check_mixed(&r, "crawl-dump@");
    free_all(&r);
    ps_buf_free(&plain);
    ps_buf_free(&file);
    free_bufs(store);
}

/* Three pages, the file cut inside the third record's block. */
static void test_warc_truncated(void **state)
{
    (void)state;
    for (int gz = 0; gz < 2; gz++) {
        ps_buf rec[3] = {{0}}, file = {0};
        warc_response(&rec[0], "a1", "http://t/1", "HTTP/1.1 200 OK\r\nContent-Type: text/html", PAGE1, strlen(PAGE1), 0);
        warc_response(&rec[1], "a2", "http://t/2", "HTTP/1.1 200 OK\r\nContent-Type: text/html", PAGE2, strlen(PAGE2), 0);
        warc_response(&rec[2], "a3", "http://t/3", "HTTP/1.1 200 OK\r\nContent-Type: text/html", PAGE3, strlen(PAGE3), 0);
        for (int i = 0; i < 3; i++) {
            if (gz)
                gzip_append(&file, rec[i].data, rec[i].len);
            else
                ps_buf_append(&file, rec[i].data, rec[i].len);
        }
        /* cut: plain inside the 3rd block; gzip halfway through the 3rd member */
        size_t cut = gz ? file.len - 40 : rec[0].len + rec[1].len + rec[2].len - 20;
        const char *name = gz ? "cut.warc.gz" : "cut.warc";
        write_bytes(tpath(name), file.data, cut);
        inputs r;
        read_all(&r, tpath(name));
        assert_int_equal(r.end, 0);
        assert_int_equal(r.n, 3);
        assert_page(&r.in[0], "a1", "http://t/1", PAGE1);
        assert_page(&r.in[1], "a2", "http://t/2", PAGE2);
        assert_int_equal(r.in[2].status, PS_ERR_FORMAT);
        assert_null(r.in[2].data);
        assert_string_equal(r.in[2].id, "a3");
        assert_non_null(strstr(r.in[2].msg, name));
        assert_non_null(strstr(r.in[2].msg, "truncated"));
        char off[64];
        snprintf(off, sizeof off, "@offset %zu", rec[0].len + rec[1].len);
        if (!gz)
            assert_non_null(strstr(r.in[2].msg, off));
        free_all(&r);
        for (int i = 0; i < 3; i++)
            ps_buf_free(&rec[i]);
        ps_buf_free(&file);
    }
}

/* A file that ends right after the version line, inside the first header
 * field (found by scripts/fuzz: the empty header was read through a NULL
 * pointer): one failed input saying so. */
static void test_warc_ends_after_version_line(void **state)
{
    (void)state;
    static const char bytes[] = "WARC/1.0\r\nWARC-Type";
    write_bytes(tpath("short.warc"), bytes, sizeof bytes - 1);
    inputs r;
    read_all(&r, tpath("short.warc"));
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.in[0].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[0].msg, "ends inside the record header"));
    free_all(&r);
}

/* A record with a Content-Length too small, then one too large: both are
 * reported, and the records after them are still read. */
static void test_warc_wrong_length(void **state)
{
    (void)state;
    for (int gz = 0; gz < 2; gz++) {
        ps_buf rec[5] = {{0}}, file = {0};
        const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
        warc_response(&rec[0], "b1", "http://w/1", h, PAGE1, strlen(PAGE1), 0);
        warc_response(&rec[1], "b2", "http://w/2", h, PAGE2, strlen(PAGE2), -10);
        warc_response(&rec[2], "b3", "http://w/3", h, PAGE3, strlen(PAGE3), 0);
        warc_response(&rec[3], "b4", "http://w/4", h, PAGE2, strlen(PAGE2), +40);
        warc_response(&rec[4], "b5", "http://w/5", h, PAGE1, strlen(PAGE1), 0);
        for (int i = 0; i < 5; i++) {
            if (gz)
                gzip_append(&file, rec[i].data, rec[i].len);
            else
                ps_buf_append(&file, rec[i].data, rec[i].len);
        }
        const char *name = gz ? "len.warc.gz" : "len.warc";
        write_bytes(tpath(name), file.data, file.len);
        inputs r;
        read_all(&r, tpath(name));
        assert_int_equal(r.end, 0);
        assert_int_equal(r.n, 5);
        assert_page(&r.in[0], "b1", "http://w/1", PAGE1);
        assert_int_equal(r.in[1].status, PS_ERR_FORMAT);
        assert_string_equal(r.in[1].id, "b2");
        assert_non_null(strstr(r.in[1].msg, "Content-Length"));
        assert_non_null(strstr(r.in[1].msg, name));
        assert_page(&r.in[2], "b3", "http://w/3", PAGE3);
        assert_int_equal(r.in[3].status, PS_ERR_FORMAT);
        assert_string_equal(r.in[3].id, "b4");
        assert_non_null(strstr(r.in[3].msg, "Content-Length"));
        assert_page(&r.in[4], "b5", "http://w/5", PAGE1);
        free_all(&r);
        for (int i = 0; i < 5; i++)
            ps_buf_free(&rec[i]);
        ps_buf_free(&file);
    }
}

/* Garbage between records (without a newline before the next record), a
 * gzip member of blank lines and one of zeros: every intact record comes
 * out, the garbage is one skipped input that counts its bytes.  Before: the
 * record before the garbage failed as "Content-Length does not match" and
 * the record after it vanished; a padding member made the record before it
 * fail. */
static void test_warc_garbage_between_records(void **state)
{
    (void)state;
    for (int gz = 0; gz < 2; gz++) {
        ps_buf rec[4] = {{0}}, file = {0};
        const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
        warc_response(&rec[0], "g1", "http://g/1", h, PAGE1, strlen(PAGE1), 0);
        warc_response(&rec[1], "g2", "http://g/2", h, PAGE2, strlen(PAGE2), 0);
        warc_response(&rec[2], "g3", "http://g/3", h, PAGE3, strlen(PAGE3), 0);
        warc_response(&rec[3], "g4", "http://g/4", h, PAGE1, strlen(PAGE1), 0);
        static const char junk[] = "garbage: no newline before the next record ->"; /* 45 bytes */
        char blank[200], zeros[300];
        for (size_t i = 0; i < sizeof blank; i += 2)
            memcpy(blank + i, "\r\n", 2);
        memset(zeros, 0, sizeof zeros);
        /* g1, junk + g2 (one member when gzip), g3, blank lines, zeros, g4 */
        ps_buf two = {0};
        ps_buf_append(&two, junk, sizeof junk - 1);
        ps_buf_append(&two, rec[1].data, rec[1].len);
        const void *parts[] = {rec[0].data, two.data, rec[2].data, blank, zeros, rec[3].data};
        size_t lens[] = {rec[0].len, two.len, rec[2].len, sizeof blank, sizeof zeros, rec[3].len};
        for (int i = 0; i < 6; i++) {
            if (gz)
                gzip_append(&file, parts[i], lens[i]);
            else
                ps_buf_append(&file, parts[i], lens[i]);
        }
        const char *name = gz ? "junk.warc.gz" : "junk.warc";
        write_bytes(tpath(name), file.data, file.len);
        inputs r;
        read_all(&r, tpath(name));
        assert_int_equal(r.end, 0);
        assert_int_equal(r.n, 6);
        assert_page(&r.in[0], "g1", "http://g/1", PAGE1);
        assert_int_equal(r.in[1].skipped, 1);
        if (!strstr(r.in[1].msg, "45 bytes"))
            fail_msg("skipped garbage: '%s'", r.in[1].msg);
        assert_page(&r.in[2], "g2", "http://g/2", PAGE2);
        assert_page(&r.in[3], "g3", "http://g/3", PAGE3);
        assert_int_equal(r.in[4].skipped, 1); /* the zeros (blank lines are separators) */
        if (!strstr(r.in[4].msg, "300 bytes"))
            fail_msg("skipped zeros: '%s'", r.in[4].msg);
        assert_page(&r.in[5], "g4", "http://g/4", PAGE1);
        free_all(&r);
        for (int i = 0; i < 4; i++)
            ps_buf_free(&rec[i]);
        ps_buf_free(&two);
        ps_buf_free(&file);
    }
}

/* The last record's Content-Length runs past the end of the file: it is
 * reported as truncated, the records before it come out. */
static void test_warc_length_past_end(void **state)
{
    (void)state;
    ps_buf file = {0};
    const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
    warc_response(&file, "e1", "http://e/1", h, PAGE1, strlen(PAGE1), 0);
    warc_response(&file, "e2", "http://e/2", h, PAGE2, strlen(PAGE2), +100);
    write_bytes(tpath("past.warc"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("past.warc"));
    assert_int_equal(r.n, 2);
    assert_page(&r.in[0], "e1", "http://e/1", PAGE1);
    assert_int_equal(r.in[1].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[1].msg, "truncated"));
    free_all(&r);
    ps_buf_free(&file);
}

/* Scrambled deflate data in member 2: that record fails with zlib's
 * message and reading goes on at member 3 (before: the file ended there). */
static void test_warc_corrupt_gzip(void **state)
{
    (void)state;
    ps_buf rec[3] = {{0}}, file = {0};
    const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
    warc_response(&rec[0], "c1", "http://c/1", h, PAGE1, strlen(PAGE1), 0);
    warc_response(&rec[1], "c2", "http://c/2", h, PAGE2, strlen(PAGE2), 0);
    warc_response(&rec[2], "c3", "http://c/3", h, PAGE3, strlen(PAGE3), 0);
    gzip_append(&file, rec[0].data, rec[0].len);
    size_t m2 = file.len;
    gzip_append(&file, rec[1].data, rec[1].len);
    gzip_append(&file, rec[2].data, rec[2].len);
    for (size_t i = m2 + 12; i < m2 + 40; i++) /* scramble the deflate data of member 2 */
        file.data[i] = (char)(file.data[i] ^ 0x5a);
    write_bytes(tpath("bad.warc.gz"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("bad.warc.gz"));
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 3);
    assert_page(&r.in[0], "c1", "http://c/1", PAGE1);
    assert_int_equal(r.in[1].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[1].msg, "bad.warc.gz"));
    assert_non_null(strstr(r.in[1].msg, "gzip"));
    assert_page(&r.in[2], "c3", "http://c/3", PAGE3);
    free_all(&r);
    for (int i = 0; i < 3; i++)
        ps_buf_free(&rec[i]);
    ps_buf_free(&file);
}

/* Issue 32, defect 4: one bad record lost the rest of the file.  Six
 * records, one fault each time; every record the fault does not touch must
 * come out, and the damage is one input (failed, or skipped for bytes
 * between records):
 *   - Content-Length: 999999999999999 in record 2 (plain and gzip; before:
 *     "truncated", records 3..5 lost), also with a block of 1.1 MB so that
 *     the next header is found while streaming, across the 1 MiB chunk;
 *   - 5 000 garbage bytes between gzip members 2 and 3 (before: "incorrect
 *     header check", the rest lost);
 *   - gzip member 2 cut in half (the next member follows the cut). */
static void test_warc_resync_every_damage(void **state)
{
    (void)state;
    const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
    const char *pages[6] = {PAGE1, PAGE2, PAGE3, PAGE1, PAGE2, PAGE3};
    /* a body that puts the next record's "WARC/1.1" 3 bytes before the end
     * of the kept 64 KiB plus the first streamed chunk of 1 MiB */
    size_t hl = strlen(h) + 4, at = 65536 + 1048576 - 3;
    size_t blen = at - 4 - hl;
    char *bigbody = malloc(blen + 1);
    assert_non_null(bigbody);
    memset(bigbody, 'x', blen);
    memcpy(bigbody, "<html><body><p>", 15);
    bigbody[blen] = '\0';
    for (int variant = 0; variant < 6; variant++) {
        int gz = variant != 0 && variant != 4;
        ps_buf rec[6] = {{0}}, file = {0};
        for (int i = 0; i < 6; i++) {
            char uuid[8], uri[32];
            snprintf(uuid, sizeof uuid, "r%d", i);
            snprintf(uri, sizeof uri, "http://r/%d", i);
            const char *body = (variant >= 4 && i == 2) ? bigbody : pages[i];
            warc_response(&rec[i], uuid, uri, h, body, strlen(body), 0);
        }
        if (variant <= 1 || variant >= 4) { /* the absurd length */
            ps_buf b = {0};
            char *cl = strstr(rec[2].data, "Content-Length: ");
            assert_non_null(cl);
            ps_buf_append(&b, rec[2].data, (size_t)(cl - rec[2].data));
            ps_buf_printf(&b, "Content-Length: 999999999999999");
            char *eol = strstr(cl, "\r\n");
            ps_buf_append(&b, eol, rec[2].len - (size_t)(eol - rec[2].data));
            ps_buf_free(&rec[2]);
            rec[2] = b;
        }
        for (int i = 0; i < 6; i++) {
            if (!gz) {
                ps_buf_append(&file, rec[i].data, rec[i].len);
                continue;
            }
            size_t m = file.len;
            gzip_append(&file, rec[i].data, rec[i].len);
            if (variant == 2 && i == 2) { /* garbage after member 2 */
                for (int k = 0; k < 5000; k++)
                    ps_buf_append(&file, (const char[]){(char)(k * 37 + 11)}, 1);
            }
            if (variant == 3 && i == 2) /* member 2 cut in half */
                file.len = m + (file.len - m) / 2;
        }
        static const char *names[] = {"huge.warc", "huge.warc.gz", "junk2.warc.gz", "cutm.warc.gz",
                                      "hugebig.warc", "hugebig.warc.gz"};
        const char *name = names[variant];
        write_bytes(tpath(name), file.data, file.len);
        inputs r;
        read_all(&r, tpath(name));
        assert_int_equal(r.end, 0);
        size_t want = variant == 2 ? 7 : 6;
        if (r.n != want) {
            for (size_t i = 0; i < r.n; i++)
                fprintf(stderr, "  %zu: %s %d %s\n", i, r.in[i].id, r.in[i].status, r.in[i].msg);
            fail_msg("%s: %zu inputs, want %zu", name, r.n, want);
        }
        size_t j = 0;
        for (int i = 0; i < 6; i++, j++) {
            char uuid[8], uri[32];
            snprintf(uuid, sizeof uuid, "r%d", i);
            snprintf(uri, sizeof uri, "http://r/%d", i);
            if (i == 2 && variant != 2) {
                assert_int_equal(r.in[j].status, PS_ERR_FORMAT);
                assert_non_null(strstr(r.in[j].msg, variant == 3 ? "gzip" : "Content-Length 999999999999999"));
                continue;
            }
            assert_page(&r.in[j], uuid, uri, pages[i]);
            if (variant == 2 && i == 2) {
                j++;
                assert_int_equal(r.in[j].skipped, 1);
                if (!strstr(r.in[j].msg, "not a gzip member"))
                    fail_msg("garbage between members: '%s'", r.in[j].msg);
            }
        }
        free_all(&r);
        for (int i = 0; i < 6; i++)
            ps_buf_free(&rec[i]);
        ps_buf_free(&file);
    }
    free(bigbody);
}

/* Chunked transfer coding, gzip and deflate content coding. */
static void test_warc_http_codings(void **state)
{
    (void)state;
    ps_buf file = {0}, chunked = {0}, gz = {0};
    /* PAGE2 in three chunks, with a chunk extension and a trailer */
    size_t l = strlen(PAGE2);
    ps_buf_printf(&chunked, "%zx;ext=1\r\n", (size_t)10);
    ps_buf_append(&chunked, PAGE2, 10);
    ps_buf_printf(&chunked, "\r\n%zx\r\n", (size_t)20);
    ps_buf_append(&chunked, PAGE2 + 10, 20);
    ps_buf_printf(&chunked, "\r\n%zX\r\n", l - 30);
    ps_buf_append(&chunked, PAGE2 + 30, l - 30);
    ps_buf_printf(&chunked, "\r\n0\r\nX-Trailer: y\r\n\r\n");
    warc_response(&file, "d1", "http://d/1",
                  "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1251\r\nTransfer-Encoding: chunked",
                  chunked.data, chunked.len, 0);
    gzip_append(&gz, PAGE1, strlen(PAGE1));
    warc_response(&file, "d2", "http://d/2", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip",
                  gz.data, gz.len, 0);
    /* already decoded by the crawler, header kept: taken as it is */
    warc_response(&file, "d3", "http://d/3", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip",
                  PAGE3, strlen(PAGE3), 0);
    warc_response(&file, "d4", "http://d/4", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: compress",
                  "xxxx", 4, 0);
    /* "chunked" in the header but stored decoded; then chunks that break off */
    warc_response(&file, "d6", "http://d/6", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked",
                  PAGE1, strlen(PAGE1), 0);
    const char *broken = "5\r\n<html\r\nzz\r\nmore\r\n";
    warc_response(&file, "d7", "http://d/7", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked",
                  broken, strlen(broken), 0);
    warc_record(&file, "metadata", "d8", "http://d/1", "application/warc-fields", "via: x\r\n", 8, 0);
    /* an interim "100 Continue" response before the real one */
    warc_response(&file, "d5", "http://d/5", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html",
                  PAGE3, strlen(PAGE3), 0);
    write_bytes(tpath("codings.warc"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("codings.warc"));
    assert_int_equal(r.n, 8);
    assert_page(&r.in[0], "d1", "http://d/1", PAGE2);
    assert_string_equal(r.in[0].charset, "windows-1251");
    assert_page(&r.in[1], "d2", "http://d/2", PAGE1);
    assert_page(&r.in[2], "d3", "http://d/3", PAGE3);
    assert_int_equal(r.in[3].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[3].msg, "Content-Encoding"));
    assert_page(&r.in[4], "d6", "http://d/6", PAGE1);
    assert_int_equal(r.in[5].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[5].msg, "chunked"));
    assert_int_equal(r.in[6].skipped, 1);
    assert_non_null(strstr(r.in[6].msg, "metadata"));
    assert_page(&r.in[7], "d5", "http://d/5", PAGE3);
    free_all(&r);
    ps_buf_free(&file);
    ps_buf_free(&chunked);
    ps_buf_free(&gz);
}

/* "br" and "zstd" content coding: what browsers accept, and so what WARC
 * files written through a browser hold (they were failed records, an
 * unsupported Content-Encoding).  A body that does not decode is a failed
 * record naming the coding; one stored decoded under the header is taken
 * as it is; one that decodes past --max-bytes fails as too large. */
static void test_warc_br_zstd(void **state)
{
    (void)state;
    size_t l = strlen(PAGE2), cap = BrotliEncoderMaxCompressedSize(l);
    uint8_t *br = malloc(cap);
    size_t brlen = cap;
    assert_int_equal(BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, l,
                                           (const uint8_t *)PAGE2, &brlen, br), BROTLI_TRUE);
    size_t zcap = ZSTD_compressBound(l);
    char *zs = malloc(2 * zcap);
    size_t z1 = ZSTD_compress(zs, zcap, PAGE2, 40, 3); /* two frames: the page in two parts */
    assert_false(ZSTD_isError(z1));
    size_t z2 = ZSTD_compress(zs + z1, zcap, PAGE2 + 40, l - 40, 3);
    assert_false(ZSTD_isError(z2));
    const char *html = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: ";
    char head[200];
    ps_buf file = {0};
    snprintf(head, sizeof head, "%sbr", html);
    warc_response(&file, "b1", "http://b/1", head, (const char *)br, brlen, 0);
    warc_response(&file, "b2", "http://b/2", head, PAGE1, strlen(PAGE1), 0);      /* stored decoded */
    warc_response(&file, "b3", "http://b/3", head, "\x1b\xff\xff\xff", 4, 0);  /* not brotli */
    warc_response(&file, "b4", "http://b/4", head, (const char *)br, brlen / 2, 0); /* cut short */
    snprintf(head, sizeof head, "%szstd", html);
    warc_response(&file, "z1", "http://z/1", head, zs, z1 + z2, 0);
    warc_response(&file, "z2", "http://z/2", head, PAGE3, strlen(PAGE3), 0);      /* stored decoded */
    warc_response(&file, "z3", "http://z/3", head, "\x28\xb5\x2f\xfd\xff\xff", 6, 0);
    /* a frame that asks for a 16 MiB window (no content size: no single segment) */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, 24);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    char *wide = malloc(zcap + 64);
    ZSTD_outBuffer wo = {wide, zcap + 64, 0};
    ZSTD_inBuffer wi = {PAGE2, l, 0};
    assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &wo, &wi, ZSTD_e_continue))); /* size unknown */
    ZSTD_inBuffer none = {NULL, 0, 0};
    assert_int_equal(ZSTD_compressStream2(cc, &wo, &none, ZSTD_e_end), 0);
    ZSTD_freeCCtx(cc);
    warc_response(&file, "z4", "http://z/4", head, wide, wo.pos, 0);
    free(wide);
    write_bytes(tpath("brzstd.warc"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("brzstd.warc"));
    assert_int_equal(r.n, 8);
    assert_page(&r.in[0], "b1", "http://b/1", PAGE2);
    assert_page(&r.in[1], "b2", "http://b/2", PAGE1);
    assert_int_equal(r.in[2].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[2].msg, "bad br body"));
    assert_int_equal(r.in[3].status, PS_ERR_FORMAT); /* one meta-block: nothing before its end */
    assert_non_null(strstr(r.in[3].msg, "ends early"));
    assert_page(&r.in[4], "z1", "http://z/1", PAGE2);
    assert_page(&r.in[5], "z2", "http://z/2", PAGE3);
    assert_int_equal(r.in[6].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[6].msg, "bad zstd body"));
    assert_int_equal(r.in[7].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[7].msg, "too much memory"));
    free_all(&r);
    /* decoded beyond the page limit */
    ps_source_options so = {.max_bytes = l / 2};
    const char *args[] = {tpath("brzstd.warc")};
    read_all_opts(&r, args, 1, NULL, &so);
    assert_int_equal(r.in[0].status, PS_ERR_TOO_LARGE);
    assert_int_equal(r.in[4].status, PS_ERR_TOO_LARGE);
    free_all(&r);
    ps_buf_free(&file);
    free(br);
    free(zs);
}

static void test_warc_not_a_warc(void **state)
{
    (void)state;
    write_bytes(tpath("page.warc"), PAGE1, strlen(PAGE1));
    inputs r;
    read_all(&r, tpath("page.warc"));
    assert_int_equal(r.n, 1);
    assert_int_equal(r.in[0].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[0].msg, "not a WARC file"));
    assert_non_null(strstr(r.in[0].msg, "page.warc"));
    free_all(&r);
}

/* ---- size cap ----------------------------------------------------------- */

static void test_max_bytes(void **state)
{
    (void)state;
    char big[3000];
    memset(big, 'x', sizeof big);
    memcpy(big, "<html><body>", 12);
    write_bytes(tpath("big.html"), big, sizeof big);
    ps_buf file = {0};
    const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
    warc_response(&file, "f1", "http://f/1", h, big, sizeof big, 0);
    warc_response(&file, "f2", "http://f/2", h, PAGE1, strlen(PAGE1), 0);
    write_bytes(tpath("big.warc"), file.data, file.len);
    const char *args[] = {tpath("big.html"), tpath("big.warc")};
    ps_source_options opt = {.max_bytes = 1000};
    inputs r;
    read_all_opts(&r, args, 2, NULL, &opt);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.in[0].status, PS_ERR_TOO_LARGE);
    assert_non_null(strstr(r.in[0].msg, "big.html"));
    assert_null(r.in[0].data);
    assert_int_equal(r.in[1].status, PS_ERR_TOO_LARGE);
    assert_non_null(strstr(r.in[1].msg, "big.warc@offset 0"));
    assert_page(&r.in[2], "f2", "http://f/2", PAGE1);
    free_all(&r);
    ps_buf_free(&file);
}

/* ---- folders, list files, missing files ---------------------------------- */

static void test_dir_recursion_order(void **state)
{
    (void)state;
    const char *dir = tpath("site");
    char p[600];
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(p, sizeof p, "%s/a", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/a/deeper", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    const char *files[] = {"b.html", "a/z.html", "a/b.htm", "c.txt", ".hidden.html", "A.html",
                           "a/deeper/x.xhtml", "a0.HTML"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        write_bytes(p, files[i], strlen(files[i]));
    }
    inputs r;
    read_all(&r, dir);
    /* byte-wise order of the names at each level; .hidden ignored; c.txt
     * (not HTML by name or content) a skipped record saying why */
    const char *ids[] = {"A", "a_b", "a_deeper_x", "a_z", "a0", "b"};
    const char *content[] = {"A.html", "a/b.htm", "a/deeper/x.xhtml", "a/z.html", "a0.HTML", "b.html"};
    assert_int_equal(r.n, 7);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(r.in[i].skipped, 0);
        assert_string_equal(r.in[i].id, ids[i]);
        assert_int_equal(r.in[i].len, strlen(content[i]));
        assert_memory_equal(r.in[i].data, content[i], r.in[i].len);
    }
    assert_int_equal(r.in[6].skipped, 1);
    assert_non_null(strstr(r.in[6].origin, "c.txt"));
    assert_non_null(strstr(r.in[6].msg, "not an HTML page"));
    ps_error err = {0};
    const char *args[] = {dir};
    ps_source *src = ps_source_open(args, 1, NULL, NULL, &err);
    assert_int_equal(ps_source_total_hint(src), 7);
    ps_source_free(src);
    free_all(&r);
}

/* An empty folder: no record, no error (UBSan: no qsort of a NULL list). */
static void test_dir_empty(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tpath("void"), 0755), 0);
    inputs r;
    read_all(&r, tpath("void"));
    assert_int_equal(r.n, 0);
    assert_int_equal(r.end, 0);
    free_all(&r);
}

/* A mirror's folder (wget, httrack): pages named without .html are read by
 * their content, .html.gz unpacked, the rest skipped with a reason. */
static void test_dir_sniff(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tpath("mirror"), 0755), 0);
    write_bytes(tpath("mirror/article.php"), PAGE1, strlen(PAGE1));
    write_bytes(tpath("mirror/index.html?p=2"), PAGE2, strlen(PAGE2));
    static const char noext[] = "\xEF\xBB\xBF  <!DOCTYPE html><p>x</p>";
    write_bytes(tpath("mirror/noext"), noext, sizeof noext - 1);
    write_bytes(tpath("mirror/style.css"), "body{color:red}", 15);
    write_bytes(tpath("mirror/empty"), "", 0);
    ps_buf gz = {0};
    gzip_append(&gz, PAGE3, strlen(PAGE3));
    write_bytes(tpath("mirror/z.html.gz"), gz.data, gz.len);
    ps_buf_free(&gz);
    inputs r;
    read_all(&r, tpath("mirror"));
    assert_int_equal(r.n, 6);
    /* sorted: article.php empty index.html?p=2 noext style.css z.html.gz */
    assert_int_equal(r.in[0].skipped, 0);
    assert_memory_equal(r.in[0].data, PAGE1, strlen(PAGE1));
    assert_int_equal(r.in[1].skipped, 1);
    assert_non_null(strstr(r.in[1].msg, "empty"));
    assert_int_equal(r.in[2].skipped, 0);
    assert_memory_equal(r.in[2].data, PAGE2, strlen(PAGE2));
    assert_int_equal(r.in[3].skipped, 0);
    assert_int_equal(r.in[4].skipped, 1);
    assert_int_equal(r.in[5].skipped, 0);
    assert_int_equal(r.in[5].status, PS_OK);
    assert_string_equal(r.in[5].id, "z");
    assert_int_equal(r.in[5].len, strlen(PAGE3));
    assert_memory_equal(r.in[5].data, PAGE3, strlen(PAGE3));
    free_all(&r);
}

/* A folder holding a WARC file and pages: the WARC's records come out in
 * its place in the sorted order; the total is then unknown (0). */
static void test_dir_with_warc(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tpath("mix"), 0755), 0);
    write_bytes(tpath("mix/a.html"), PAGE1, strlen(PAGE1));
    write_bytes(tpath("mix/z.html"), PAGE3, strlen(PAGE3));
    ps_buf rec = {0}, gz = {0};
    warc_response(&rec, "m1", "http://m/1", "HTTP/1.1 200 OK\r\nContent-Type: text/html", PAGE2, strlen(PAGE2), 0);
    gzip_append(&gz, rec.data, rec.len);
    write_bytes(tpath("mix/m.warc.gz"), gz.data, gz.len);
    inputs r;
    read_all(&r, tpath("mix"));
    assert_int_equal(r.n, 3);
    assert_page(&r.in[0], "a", "", PAGE1);
    assert_page(&r.in[1], "m1", "http://m/1", PAGE2);
    assert_page(&r.in[2], "z", "", PAGE3);
    ps_error err = {0};
    const char *args[] = {tpath("mix")};
    ps_source *src = ps_source_open(args, 1, NULL, NULL, &err);
    assert_int_equal(ps_source_total_hint(src), 0);
    ps_source_free(src);
    free_all(&r);
    ps_buf_free(&rec);
    ps_buf_free(&gz);
}

/* A link back to a parent folder is reported, not followed for ever. */
static void test_dir_symlink_loop(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tpath("loop"), 0755), 0);
    write_bytes(tpath("loop/p.html"), PAGE1, strlen(PAGE1));
    assert_int_equal(mkdir(tpath("loop/sub"), 0755), 0);
    write_bytes(tpath("loop/sub/q.html"), PAGE2, strlen(PAGE2));
    assert_int_equal(symlink("..", tpath("loop/sub/up")), 0);
    inputs r;
    read_all(&r, tpath("loop"));
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 3);
    assert_page(&r.in[0], "p", "", PAGE1);
    assert_page(&r.in[1], "sub_q", "", PAGE2);
    assert_int_equal(r.in[2].status, PS_ERR_IO);
    assert_non_null(strstr(r.in[2].msg, "loop/sub/up"));
    assert_non_null(strstr(r.in[2].msg, "loop"));
    free_all(&r);
}

/* WARC record ids become file names: unsafe bytes replaced, long ones cut
 * with a hash so that they stay distinct. */
static void test_warc_ids(void **state)
{
    (void)state;
    char longid[400];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    ps_buf file = {0};
    const char *h = "HTTP/1.1 200 OK\r\nContent-Type: text/html";
    ps_buf_printf(&file, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:x:a/b?c>\r\n"
                         "Content-Length: %zu\r\n\r\n%s\r\n\r\n%s\r\n\r\n",
                  strlen(h) + 4 + strlen(PAGE3), h, PAGE3);
    warc_response(&file, longid, NULL, h, PAGE3, strlen(PAGE3), 0);
    longid[100] = 'y';
    warc_response(&file, longid, NULL, h, PAGE3, strlen(PAGE3), 0);
    write_bytes(tpath("ids.warc"), file.data, file.len);
    inputs r;
    read_all(&r, tpath("ids.warc"));
    assert_int_equal(r.n, 3);
    assert_page(&r.in[0], "urn_x_a_b_c", "", PAGE3);
    assert_true(strlen(r.in[1].id) <= 200);
    assert_true(strlen(r.in[2].id) <= 200);
    assert_string_not_equal(r.in[1].id, r.in[2].id);
    free_all(&r);
    ps_buf_free(&file);
}

static void test_list_file(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tpath("lst"), 0755), 0);
    write_bytes(tpath("lst/p1.html"), PAGE1, strlen(PAGE1));
    write_bytes(tpath("lst/p2.html"), PAGE2, strlen(PAGE2));
    ps_buf list = {0};
    ps_buf_printf(&list, "# pages\np1.html\thttp://x.example/1\tgold/p1.txt\n\n"
                         "missing.html\thttp://x.example/2\r\n%s\n", tpath("lst/p2.html"));
    write_bytes(tpath("lst/pages.tsv"), list.data, list.len);
    inputs r;
    read_all_opts(&r, NULL, 0, tpath("lst/pages.tsv"), NULL);
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 3);
    assert_page(&r.in[0], "p1", "http://x.example/1", PAGE1);
    assert_string_equal(r.in[0].gold_path, tpath("lst/gold/p1.txt"));
    assert_int_equal(r.in[1].status, PS_ERR_IO);
    assert_string_equal(r.in[1].url, "http://x.example/2");
    assert_non_null(strstr(r.in[1].msg, "pages.tsv:4"));
    assert_non_null(strstr(r.in[1].msg, "missing.html"));
    assert_page(&r.in[2], "p2", "", PAGE2);
    assert_null(r.in[2].gold_path);
    free_all(&r);
    ps_buf_free(&list);

    ps_error err = {0};
    assert_null(ps_source_open(NULL, 0, tpath("lst/nope.tsv"), NULL, &err));
    assert_int_equal(err.code, PS_ERR_IO);
    assert_non_null(strstr(err.msg, "nope.tsv"));
}

/* build_mixed's eight records, one gzip member each, into @p file */
static void mixed_warc_gz(ps_buf *file)
{
    ps_buf store[8], *recs[8];
    new_bufs(store, recs);
    build_mixed(recs);
    for (int i = 0; i < 8; i++)
        gzip_append(file, store[i].data, store[i].len);
    free_bufs(store);
}

/* A list's lines name what an argument can name: a WARC file or a folder
 * of pages is read as that (it was read as one page: a whole crawl came out
 * as one record of its first page's text); a URL is said to be one. */
static void test_list_entries(void **state)
{
    (void)state;
    ps_buf file = {0};
    mixed_warc_gz(&file);
    assert_int_equal(mkdir(tpath("le"), 0755), 0);
    assert_int_equal(mkdir(tpath("le/pages"), 0755), 0);
    write_bytes(tpath("le/crawl.warc.gz"), file.data, file.len);
    write_bytes(tpath("le/pages/a.html"), PAGE1, strlen(PAGE1));
    write_bytes(tpath("le/pages/b.html"), PAGE2, strlen(PAGE2));
    write_bytes(tpath("le/p3.html"), PAGE3, strlen(PAGE3));
    static const char list[] = "crawl.warc.gz\npages\np3.html\thttp://x.example/3\nhttp://x.example/4\n";
    write_bytes(tpath("le/list.tsv"), list, strlen(list));
    ps_error err = {0};
    ps_source *src = ps_source_open(NULL, 0, tpath("le/list.tsv"), NULL, &err);
    assert_non_null(src);
    assert_int_equal(ps_source_total_hint(src), 0); /* a WARC among them */
    ps_source_free(src);
    inputs r;
    read_all_opts(&r, NULL, 0, tpath("le/list.tsv"), NULL);
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 12);
    static inputs first; /* the WARC's 8 records (a view: not freed) */
    memcpy(&first, &r, sizeof first);
    first.n = 8;
    check_mixed(&first, "crawl.warc.gz@offset ");
    assert_page(&r.in[8], "a", "", PAGE1);
    assert_page(&r.in[9], "b", "", PAGE2);
    assert_page(&r.in[10], "p3", "http://x.example/3", PAGE3);
    assert_int_equal(r.in[11].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[11].msg, "is a URL"));
    free_all(&r);
    ps_buf_free(&file);
}

/* A path that is a pipe (a shell's <(zcat crawl.warc.gz), a named pipe,
 * /dev/stdin) is read once, as it comes, like "-": its first bytes were
 * read ahead to see whether it was a WARC, then lost (a gzip WARC came out
 * as one failed "binary data" page). */
static void pipe_path(int fd[2], const void *bytes, size_t n, char *path, size_t cap)
{
    assert_int_equal(pipe(fd), 0);
    assert_int_equal(write(fd[1], bytes, n), (ssize_t)n);
    close(fd[1]);
    snprintf(path, cap, "/dev/fd/%d", fd[0]);
}

static void test_stream_args(void **state)
{
    (void)state;
    ps_buf file = {0};
    mixed_warc_gz(&file);
    int fd[2];
    char path[64];
    pipe_path(fd, file.data, file.len, path, sizeof path);
    inputs r;
    read_all(&r, path);
    check_mixed(&r, "@offset ");
    free_all(&r);
    close(fd[0]);
    ps_buf_free(&file);

    /* a gzip page through a pipe: unpacked, its id from the path's name */
    ps_buf gz = {0};
    gzip_append(&gz, PAGE1, strlen(PAGE1));
    pipe_path(fd, gz.data, gz.len, path, sizeof path);
    read_all(&r, path);
    assert_int_equal(r.n, 1);
    assert_page(&r.in[0], strrchr(path, '/') + 1, "", PAGE1);
    free_all(&r);
    close(fd[0]);
    ps_buf_free(&gz);

    /* its total is not known ahead, and a second pass is refused */
    pipe_path(fd, PAGE2, strlen(PAGE2), path, sizeof path);
    const char *args[] = {path};
    ps_error err = {0};
    ps_source *src = ps_source_open(args, 1, NULL, NULL, &err);
    assert_non_null(src);
    assert_int_equal(ps_source_total_hint(src), 0);
    assert_null(ps_source_reopen(src, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "read once"));
    ps_source_free(src);
    close(fd[0]);
}

/* A list that comes through a pipe (a shell's <(find ...), /dev/stdin) is
 * read as it comes: every page of it, none lost to counting the lines ahead
 * (it was read to its end for the progress total, then read again from
 * there: no page); its total is unknown, and a second pass is refused. */
static void test_list_pipe(void **state)
{
    (void)state;
    assert_int_equal(mkdir(tpath("lp"), 0755), 0);
    write_bytes(tpath("lp/p1.html"), PAGE1, strlen(PAGE1));
    write_bytes(tpath("lp/p2.html"), PAGE2, strlen(PAGE2));
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    ps_buf list = {0};
    ps_buf_printf(&list, "%s\thttp://x.example/1\n# a comment\n%s\n", tpath("lp/p1.html"), tpath("lp/p2.html"));
    assert_int_equal(write(fd[1], list.data, list.len), (ssize_t)list.len);
    close(fd[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
    ps_error err = {0};
    ps_source *src = ps_source_open(NULL, 0, path, NULL, &err);
    assert_non_null(src);
    assert_int_equal(ps_source_total_hint(src), 0);
    ps_input in = {0};
    assert_int_equal(ps_source_next(src, &in, &err), 1);
    assert_page(&in, "p1", "http://x.example/1", PAGE1);
    assert_int_equal(ps_source_next(src, &in, &err), 1);
    assert_page(&in, "p2", "", PAGE2);
    assert_int_equal(ps_source_next(src, &in, &err), 0);
    ps_input_clear(&in);
    assert_null(ps_source_reopen(src, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "read once"));
    ps_source_free(src);
    close(fd[0]);
    ps_buf_free(&list);

    /* standard input as the list and as a page at once: refused at open */
    const char *dash[] = {"-"};
    assert_null(ps_source_open(dash, 1, "-", NULL, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "standard input given twice"));
}

static void test_missing_argument(void **state)
{
    (void)state;
    write_bytes(tpath("ok.html"), PAGE3, strlen(PAGE3));
    const char *args[] = {tpath("no-such.html"), tpath("ok.html")};
    inputs r;
    read_all_opts(&r, args, 2, NULL, NULL);
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.in[0].status, PS_ERR_IO);
    assert_string_equal(r.in[0].id, "no-such");
    assert_non_null(strstr(r.in[0].msg, "no-such.html"));
    assert_page(&r.in[1], "ok", "", PAGE3);
    free_all(&r);
}

/* ---- JSON Lines on stdin ------------------------------------------------- */

static void test_jsonl_stdin(void **state)
{
    (void)state;
    const char *lines =
        "{\"url\": \"http://j/1\", \"html\": \"<p>caf\\u00e9</p>\"}\n"
        "{\"url\": \"http://j/2\", \"html\": \n"
        "\n"
        "{\"url\": \"http://j/3\"}\n"
        "[1, 2]\n"
        "{\"id\": \"page/7\", \"url\": \"http://j/7\", \"html\": \"<b>x</b>\", \"charset\": \"latin1\"}\n"
        "{\"id\": 42, \"html\": \"<i>y</i>\"}\n";
    write_bytes(tpath("in.jsonl"), lines, strlen(lines));
    int saved = dup(STDIN_FILENO), fd = open(tpath("in.jsonl"), O_RDONLY);
    assert_true(fd >= 0 && saved >= 0);
    dup2(fd, STDIN_FILENO);
    close(fd);
    const char *args[] = {"-"};
    ps_source_options opt = {.jsonl_stdin = 1};
    inputs r;
    read_all_opts(&r, args, 1, NULL, &opt);
    dup2(saved, STDIN_FILENO);
    close(saved);
    assert_int_equal(r.end, 0);
    assert_int_equal(r.n, 6);
    assert_page(&r.in[0], "line-1", "http://j/1", "<p>caf\xc3\xa9</p>");
    assert_string_equal(r.in[0].charset, "utf-8");
    assert_int_equal(r.in[1].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[1].msg, "stdin line 2"));
    assert_int_equal(r.in[2].status, PS_ERR_FORMAT); /* line 3 is blank: skipped */
    assert_non_null(strstr(r.in[2].msg, "stdin line 4"));
    assert_non_null(strstr(r.in[2].msg, "html"));
    assert_int_equal(r.in[3].status, PS_ERR_FORMAT);
    assert_non_null(strstr(r.in[3].msg, "stdin line 5"));
    assert_page(&r.in[4], "page_7", "http://j/7", "<b>x</b>");
    assert_string_equal(r.in[4].charset, "latin1");
    assert_page(&r.in[5], "42", "", "<i>y</i>");
    free_all(&r);
}

/* ---- data set folders ----------------------------------------------------- */

/* A set kept compressed (wcxb-dev's layout): html/<id>.html.gz where no
 * html/<id>.html exists, and a page_type column.  The reader points at the
 * .gz, ps_read_page_file and the source inflate it, a page with both forms
 * keeps the plain one. */
static void test_dataset_gzipped_pages(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/gzset/html' '%s/gzset/gold'", tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    const char *page = "<html><body><p>A forum thread, gzipped.</p></body></html>";
    ps_buf gz = {0};
    gzip_append(&gz, page, strlen(page));
    write_bytes(tpath("gzset/html/0001.html.gz"), gz.data, gz.len);
    write_bytes(tpath("gzset/html/0002.html"), page, strlen(page));
    write_bytes(tpath("gzset/html/0002.html.gz"), "not gzip", 8);
    write_bytes(tpath("gzset/gold/0001.txt"), "x\n", 2);
    write_bytes(tpath("gzset/gold/0002.txt"), "x\n", 2);
    const char *index = "id\turl\tsite\tlang\tpage_type\n0001\thttp://a/1\ta\ten\tforum\n"
                        "0002\thttp://b/2\tb\ten\tproduct\n";
    write_bytes(tpath("gzset/index.tsv"), index, strlen(index));
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(tpath("gzset"), &err);
    assert_non_null(ds);
    assert_int_equal(ds->n_pages, 2);
    assert_string_equal(ds->pages[0].page_type, "forum");
    assert_string_equal(ds->pages[1].page_type, "product");
    assert_non_null(strstr(ds->pages[0].html_path, "/html/0001.html.gz"));
    assert_non_null(strstr(ds->pages[1].html_path, "/html/0002.html"));
    assert_null(strstr(ds->pages[1].html_path, ".gz"));
    size_t len;
    char *got = ps_read_page_file(ds->pages[0].html_path, 0, &len, &err);
    assert_non_null(got);
    assert_int_equal(len, strlen(page));
    assert_memory_equal(got, page, len);
    free(got);
    /* the cap holds on the inflated bytes */
    assert_null(ps_read_page_file(ds->pages[0].html_path, 10, &len, &err));
    assert_int_equal(err.code, PS_ERR_TOO_LARGE);
    const char *args[] = {tpath("gzset")};
    inputs r;
    read_all_opts(&r, args, 1, NULL, NULL);
    assert_int_equal(r.n, 2);
    assert_page(&r.in[0], "0001", "http://a/1", page);
    assert_page(&r.in[1], "0002", "http://b/2", page);
    free_all(&r);
    ps_dataset_free(ds);
    ps_buf_free(&gz);
}

/* Tables saved by a spreadsheet: a UTF-8 byte order mark before the header
 * (it made the header's first name "\xEF\xBB\xBFid": "no 'id' column") and
 * CRLF line ends; a list file with a byte order mark; the line number of an
 * error counts blank lines. */
static void test_bom_tables(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/bomset/html' '%s/bomset/gold'", tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    write_bytes(tpath("bomset/html/a.html"), PAGE1, strlen(PAGE1));
    write_bytes(tpath("bomset/html/b.html"), PAGE2, strlen(PAGE2));
    const char *index = "\xEF\xBB\xBFid\turl\r\na\thttp://x.example/a\r\n\r\nb\t\r\n";
    write_bytes(tpath("bomset/index.tsv"), index, strlen(index));
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(tpath("bomset"), &err);
    assert_non_null(ds);
    assert_int_equal(ds->n_pages, 2);
    assert_string_equal(ds->pages[0].id, "a");
    assert_string_equal(ds->pages[0].url, "http://x.example/a");
    assert_string_equal(ds->pages[1].id, "b");
    assert_string_equal(ds->pages[1].url, "");
    ps_dataset_free(ds);
    const char *bad = "id\turl\n\n\n\thttp://x.example/c\n";
    write_bytes(tpath("bomset/index.tsv"), bad, strlen(bad));
    assert_null(ps_dataset_load(tpath("bomset"), &err));
    assert_non_null(strstr(err.msg, "index.tsv:4: row without an id"));
    char list[600];
    snprintf(list, sizeof list, "\xEF\xBB\xBF%s\thttp://x.example/a\r\n", tpath("bomset/html/a.html"));
    write_bytes(tpath("bomset/list.tsv"), list, strlen(list));
    inputs r;
    read_all_opts(&r, NULL, 0, tpath("bomset/list.tsv"), NULL);
    assert_int_equal(r.n, 1);
    assert_page(&r.in[0], "a", "http://x.example/a", PAGE1);
    free_all(&r);
}

static void test_dataset_folder(void **state)
{
    (void)state;
    const char *dir = PS_SOURCE_DIR "/datasets/sample";
    ps_error err = {0};
    ps_dataset *ds = ps_dataset_load(dir, &err);
    assert_non_null(ds);
    const char *args[] = {dir};
    ps_source *src = ps_source_open(args, 1, NULL, NULL, &err);
    assert_non_null(src);
    assert_int_equal(ps_source_total_hint(src), ds->n_pages);
    ps_input in = {0};
    size_t n = 0;
    while (ps_source_next(src, &in, &err) == 1) {
        assert_true(n < ds->n_pages);
        const ps_dataset_page *p = &ds->pages[n++];
        assert_int_equal(in.status, PS_OK);
        assert_string_equal(in.id, p->id);
        assert_string_equal(in.url, p->url);
        assert_string_equal(in.gold_path, p->gold_path);
        assert_string_equal(in.dataset, "sample");
        if (*p->site)
            assert_string_equal(in.site, p->site);
        size_t len;
        char *want = ps_read_page_file(p->html_path, 0, &len, &err);
        assert_non_null(want);
        assert_int_equal(in.len, len);
        assert_memory_equal(in.data, want, len);
        free(want);
    }
    assert_int_equal(n, ds->n_pages);
    ps_input_clear(&in);
    ps_source_free(src);
    /* a folder holding data set folders: each read as a data set */
    const char *parent[] = {PS_SOURCE_DIR "/datasets"};
    inputs r;
    read_all_opts(&r, parent, 1, NULL, NULL);
    assert_int_equal(r.n, ds->n_pages);
    assert_string_equal(r.in[0].id, ds->pages[0].id);
    free_all(&r);
    ps_dataset_free(ds);
}

/* The one site rule of every tool: the URL's key by the rule, else (host
 * rule only) the data set's site column, else none. */
static void test_input_site_rule(void **state)
{
    (void)state;
    char site[64];
    ps_input in = {0};
    in.url = "http://www.Example.com:8080/news/a.html";
    in.site = "example.com";
    ps_input_site(&in, PS_SITE_HOST, site, sizeof site);
    assert_string_equal(site, "www.example.com"); /* the URL wins over the column */
    ps_input_site(&in, PS_SITE_HOST_PATH1, site, sizeof site);
    assert_string_equal(site, "www.example.com/news");
    in.url = "";
    ps_input_site(&in, PS_SITE_HOST, site, sizeof site);
    assert_string_equal(site, "example.com"); /* no URL: the column */
    ps_input_site(&in, PS_SITE_HOST_PATH1, site, sizeof site);
    assert_string_equal(site, ""); /* the column has no path */
    in.site = NULL;
    ps_input_site(&in, PS_SITE_HOST, site, sizeof site);
    assert_string_equal(site, "");
}

/* A second pass (pagesift --learn-templates) reads the same inputs again,
 * list file included; standard input cannot be read twice. */
static void test_source_reopen(void **state)
{
    (void)state;
    write_bytes(tpath("r1.html"), "<p>one</p>", 10);
    write_bytes(tpath("r2.html"), "<p>two</p>", 10);
    char list[600];
    snprintf(list, sizeof list, "%s\thttp://a.example/x\n", tpath("r2.html"));
    write_bytes(tpath("r.list"), list, strlen(list));
    const char *args[] = {tpath("r1.html")};
    ps_error err = {0};
    ps_source *a = ps_source_open(args, 1, tpath("r.list"), NULL, &err);
    assert_non_null(a);
    ps_input in = {0};
    char ids[2][64] = {{0}};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(ps_source_next(a, &in, &err), 1);
        snprintf(ids[k], sizeof ids[k], "%s|%s", in.id, in.url);
    }
    assert_int_equal(ps_source_next(a, &in, &err), 0);
    ps_source *b = ps_source_reopen(a, &err);
    assert_non_null(b);
    for (int k = 0; k < 2; k++) {
        char got[64];
        assert_int_equal(ps_source_next(b, &in, &err), 1);
        snprintf(got, sizeof got, "%s|%s", in.id, in.url);
        assert_string_equal(got, ids[k]);
    }
    assert_int_equal(ps_source_next(b, &in, &err), 0);
    ps_input_clear(&in);
    ps_source_free(a);
    ps_source_free(b);
    const char *dash[] = {"-"};
    ps_source *c = ps_source_open(dash, 1, NULL, NULL, &err);
    assert_non_null(c);
    assert_null(ps_source_reopen(c, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    ps_source_free(c);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warc_plain),
        cmocka_unit_test(test_warc_gzip_members),
        cmocka_unit_test(test_warc_gzip_whole_file),
        cmocka_unit_test(test_warc_truncated),
        cmocka_unit_test(test_warc_ends_after_version_line),
        cmocka_unit_test(test_warc_wrong_length),
        cmocka_unit_test(test_warc_length_past_end),
        cmocka_unit_test(test_warc_corrupt_gzip),
        cmocka_unit_test(test_warc_resync_every_damage),
        cmocka_unit_test(test_warc_http_codings),
        cmocka_unit_test(test_warc_br_zstd),
        cmocka_unit_test(test_warc_not_a_warc),
        cmocka_unit_test(test_max_bytes),
        cmocka_unit_test(test_dir_recursion_order),
        cmocka_unit_test(test_dir_empty),
        cmocka_unit_test(test_dir_sniff),
        cmocka_unit_test(test_dir_with_warc),
        cmocka_unit_test(test_dir_symlink_loop),
        cmocka_unit_test(test_warc_ids),
        cmocka_unit_test(test_warc_garbage_between_records),
        cmocka_unit_test(test_list_file),
        cmocka_unit_test(test_list_pipe),
        cmocka_unit_test(test_list_entries),
        cmocka_unit_test(test_bom_tables),
        cmocka_unit_test(test_stream_args),
        cmocka_unit_test(test_missing_argument),
        cmocka_unit_test(test_jsonl_stdin),
        cmocka_unit_test(test_dataset_folder),
        cmocka_unit_test(test_dataset_gzipped_pages),
        cmocka_unit_test(test_input_site_rule),
        cmocka_unit_test(test_source_reopen),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
