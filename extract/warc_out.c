/* extract/warc_out.c — the WARC file of a fetching run (--warc-out,
 * docs/FETCH.md): a warcinfo record when the file is opened, then per
 * response a request and a response record (WARC/1.1, application/http),
 * each record one gzip member, the pair written with one write loop and cut
 * back (ftruncate) when that fails, so that the file never ends inside a
 * record of this run.  The file is appended to: a resumed run adds what it
 * fetches.  Read back by warc.c like any crawl. */
#define _POSIX_C_SOURCE 200809L
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "extract/inputs_internal.h"

struct ps_warc_writer {
    int fd;
    char *path;
};

static void uuid4(char out[37])
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) { /* no entropy source: time and address */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)out;
        for (int i = 0; i < 16; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void warc_date(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* One record (header fields, then the block and "\r\n\r\n") as a gzip member
 * appended to @p out.  0 or -1 (no memory). */
static int add_record(ps_buf *out, const char *fields, const char *block, size_t len)
{
    ps_buf rec = {0};
    int rc = -1;
    if (ps_buf_printf(&rec, "WARC/1.1\r\n%sContent-Length: %zu\r\n\r\n", fields, len) ||
        (len && ps_buf_append(&rec, block, len)) || ps_buf_append(&rec, "\r\n\r\n", 4))
        goto done;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        goto done;
    size_t bound = deflateBound(&z, rec.len) + 64;
    if (ps_buf_reserve(out, bound)) {
        deflateEnd(&z);
        goto done;
    }
    z.next_in = (Bytef *)rec.data;
    z.avail_in = (uInt)rec.len;
    z.next_out = (Bytef *)out->data + out->len;
    z.avail_out = (uInt)bound;
    int zr = deflate(&z, Z_FINISH);
    if (zr == Z_STREAM_END) {
        out->len += bound - z.avail_out;
        rc = 0;
    }
    deflateEnd(&z);
done:
    ps_buf_free(&rec);
    return rc;
}

/* Append @p data to the file whole, or not at all. */
static int write_all(ps_warc_writer *w, const char *data, size_t len, ps_error *err)
{
    struct stat st;
    off_t start = fstat(w->fd, &st) == 0 ? st.st_size : -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(w->fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            if (start >= 0 && ftruncate(w->fd, start) != 0) {
                /* nothing more to do: the reader reports a cut record */
            }
            return ps_set_error(err, PS_ERR_IO, "%s: %s (--warc-out)", w->path, strerror(e));
        }
        done += (size_t)n;
    }
    return 0;
}

ps_warc_writer *ps_warc_writer_open(const char *path, const char *user_agent, ps_error *err)
{
    ps_warc_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (w->fd < 0) {
        ps_set_error(err, PS_ERR_IO, "%s: %s (--warc-out)", path, strerror(errno));
        free(w->path);
        free(w);
        return NULL;
    }
    char id[37], date[32], fields[512];
    uuid4(id);
    warc_date(date);
    ps_buf info = {0}, out = {0};
    const char *slash = strrchr(path, '/');
    int rc = ps_buf_printf(&info, "software: pagesift/%s (libcurl %s)\r\nformat: WARC File Format 1.1\r\n"
                                  "http-header-user-agent: %s\r\nrobots: obey\r\n",
                           ps_version(), curl_version_info(CURLVERSION_NOW)->version, user_agent);
    snprintf(fields, sizeof fields,
             "WARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: %s\r\nWARC-Filename: %s\r\n"
             "Content-Type: application/warc-fields\r\n",
             id, date, slash ? slash + 1 : path);
    if (rc || add_record(&out, fields, info.data, info.len)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        rc = -1;
    } else {
        rc = write_all(w, out.data, out.len, err);
    }
    ps_buf_free(&info);
    ps_buf_free(&out);
    if (rc) {
        ps_warc_writer_close(w);
        return NULL;
    }
    return w;
}

int ps_warc_writer_add(ps_warc_writer *w, const char *uri, const char *ip, const char *request, size_t req_len,
                       const char *response, size_t resp_len, ps_error *err)
{
    char rid[37], qid[37], date[32];
    uuid4(rid);
    uuid4(qid);
    warc_date(date);
    /* the URI goes into a header line: no line breaks (curl gives none) */
    if (strpbrk(uri, "\r\n") || (ip && strpbrk(ip, "\r\n")))
        return 0;
    size_t fn = strlen(uri) + 512;
    char *fields = malloc(fn);
    ps_buf out = {0};
    int rc = -1;
    if (!fields)
        goto nomem;
    char ipf[128] = "";
    if (ip && *ip)
        snprintf(ipf, sizeof ipf, "WARC-IP-Address: %.64s\r\n", ip);
    if (req_len) {
        snprintf(fields, fn,
                 "WARC-Type: request\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: %s\r\n"
                 "WARC-Target-URI: %s\r\nWARC-Concurrent-To: <urn:uuid:%s>\r\n%s"
                 "Content-Type: application/http; msgtype=request\r\n",
                 qid, date, uri, rid, ipf);
        if (add_record(&out, fields, request, req_len))
            goto nomem;
    }
    snprintf(fields, fn,
             "WARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: %s\r\n"
             "WARC-Target-URI: %s\r\n%sContent-Type: application/http; msgtype=response\r\n",
             rid, date, uri, ipf);
    if (add_record(&out, fields, response, resp_len))
        goto nomem;
    rc = write_all(w, out.data, out.len, err);
    free(fields);
    ps_buf_free(&out);
    return rc;
nomem:
    free(fields);
    ps_buf_free(&out);
    return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
}

void ps_warc_writer_close(ps_warc_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    free(w->path);
    free(w);
}
