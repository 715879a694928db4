/* extract/http_payload.c — the HTTP response stored in a WARC response
 * record (RFC 9112 message syntax): status line, header fields, and the body
 * with its transfer coding (chunked) and content coding (gzip, deflate, br
 * with libbrotli, zstd with libzstd) undone, so the page gets the bytes the
 * server meant.  Decides whether the
 * response is an HTML page (2xx status; Content-Type text/html or
 * application/xhtml+xml, or no Content-Type and a body that looks like HTML).
 * Crawlers that store bodies already decoded but keep the headers are
 * tolerated: a "chunked" body that does not start with a chunk size, a
 * "gzip" or "zstd" body without its magic, or a "br" body that looks like
 * HTML, is taken as it is; a body cut by the
 * crawler's size limit (WARC-Truncated) keeps the part that was stored. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include "extract/inputs_internal.h"

/* Header fields the decision needs (pointers into the block, not
 * NUL-terminated: ptr and len). */
typedef struct span {
    const char *p;
    size_t n;
} span;

typedef struct http_head {
    int status;
    span content_type, transfer_encoding, content_encoding;
    size_t body_off;
} http_head;

static span trim(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    return (span){p, (size_t)(end - p)};
}

static int span_is(span s, const char *word)
{
    size_t n = strlen(word);
    return s.n == n && !ps_ascii_ncasecmp(s.p, word, n);
}

/* Offset just past the empty line that ends the headers, or 0. */
static size_t header_end(const char *b, size_t len)
{
    for (const char *p = b; (p = memchr(p, '\n', len - (size_t)(p - b))); p++) {
        if ((size_t)(p - b) + 1 < len && p[1] == '\n')
            return (size_t)(p - b) + 2;
        if ((size_t)(p - b) + 2 < len && p[1] == '\r' && p[2] == '\n')
            return (size_t)(p - b) + 3;
    }
    return 0;
}

/* Parse "HTTP/x.y NNN ..." and the fields.  Returns 0, or -1 when there is
 * no status line. */
static int parse_head(const char *b, size_t len, http_head *h)
{
    memset(h, 0, sizeof *h);
    if (len < 12 || memcmp(b, "HTTP/", 5))
        return -1;
    const char *sp = memchr(b, ' ', len < 64 ? len : 64);
    if (!sp || (size_t)(sp - b) + 4 > len)
        return -1;
    for (int i = 1; i <= 3; i++) {
        if (sp[i] < '0' || sp[i] > '9')
            return -1;
        h->status = h->status * 10 + (sp[i] - '0');
    }
    h->body_off = header_end(b, len);
    const char *end = b + (h->body_off ? h->body_off : len);
    const char *p = memchr(b, '\n', (size_t)(end - b));
    while (p && ++p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if (colon) {
            span name = trim(p, colon), value = trim(colon + 1, eol);
            if (span_is(name, "content-type"))
                h->content_type = value;
            else if (span_is(name, "transfer-encoding"))
                h->transfer_encoding = value;
            else if (span_is(name, "content-encoding"))
                h->content_encoding = value;
        }
        p = eol;
    }
    return 0;
}

static int media_type_is_html(const char *p, size_t n)
{
    const char *semi = memchr(p, ';', n);
    span t = trim(p, semi ? semi : p + n);
    return span_is(t, "text/html") || span_is(t, "application/xhtml+xml");
}

int ps_http_is_html_type(const char *content_type)
{
    return media_type_is_html(content_type, strlen(content_type));
}

static char *charset_of(const char *p, size_t n)
{
    const char *end = p + n;
    for (const char *q = p; q + 8 <= end; q++) {
        if (ps_ascii_ncasecmp(q, "charset=", 8) || (q > p && q[-1] != ';' && q[-1] != ' ' && q[-1] != '\t'))
            continue;
        const char *v = q + 8, *e;
        if (v < end && (*v == '"' || *v == '\'')) {
            char quote = *v++;
            e = memchr(v, quote, (size_t)(end - v));
            if (!e)
                e = end;
        } else {
            e = v;
            while (e < end && *e != ';' && *e != ' ' && *e != '\t' && *e != '\r')
                e++;
        }
        if (e == v || e - v > 40)
            return NULL;
        char *cs = malloc((size_t)(e - v) + 1);
        if (cs) {
            memcpy(cs, v, (size_t)(e - v));
            cs[e - v] = '\0';
        }
        return cs;
    }
    return NULL;
}

char *ps_http_charset_param(const char *content_type)
{
    return charset_of(content_type, strlen(content_type));
}

int ps_http_looks_like_html(const char *data, size_t len)
{
    size_t n = len < 1024 ? len : 1024, i = 0;
    if (n >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < n && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    if (i == n || data[i] != '<')
        return 0;
    static const char *const marks[] = {"<!doctype html", "<html", "<head", "<body", "<title"};
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
        size_t ml = strlen(marks[m]);
        for (size_t k = i; k + ml <= n; k++)
            if (data[k] == '<' && !ps_ascii_ncasecmp(data + k, marks[m], ml))
                return 1;
    }
    return 0;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Undo chunked transfer coding in place.  Returns the decoded length, or
 * (size_t)-1 when the chunks are malformed.  A body that does not start
 * with a chunk-size line was stored decoded: its length is returned as is. */
static size_t dechunk(char *b, size_t len)
{
    size_t in = 0, out = 0;
    for (int first = 1;; first = 0) {
        size_t size = 0, digits = 0;
        for (int v; in < len && (v = hex_value(b[in])) >= 0; in++, digits++) {
            if (size > (SIZE_MAX >> 4))
                return (size_t)-1;
            size = size * 16 + (size_t)v;
        }
        const char *nl = digits ? memchr(b + in, '\n', len - in) : NULL;
        int line_end = in < len && (b[in] == ';' || b[in] == '\r' || b[in] == '\n' || b[in] == ' ' || b[in] == '\t');
        if (!nl || !line_end) {
            if (first)
                return len;                        /* not chunked after all */
            return in >= len ? out : (size_t)-1;  /* the last chunk may be cut */
        }
        in = (size_t)(nl - b) + 1;                 /* past chunk extensions */
        if (size == 0)
            return out;                            /* trailers ignored */
        if (size > len - in)
            size = len - in; /* cut by the crawler's size limit: keep what there is */
        memmove(b + out, b + in, size);
        out += size;
        in += size;
        if (in < len && b[in] == '\r')
            in++;
        if (in < len && b[in] == '\n')
            in++;
    }
}

/* Inflate gzip (several members allowed), zlib or raw deflate into *out,
 * at most max bytes.  Returns 0, -1 corrupt (msg set), -2 too large,
 * -3 out of memory. */
static int inflate_body(const char *b, size_t len, int window, size_t max, ps_buf *out,
                        char *msg, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, window) != Z_OK)
        return -3;
    z.next_in = (Bytef *)(uintptr_t)b;
    z.avail_in = (uInt)len;
    int rc = 0;
    for (;;) {
        if (ps_buf_reserve(out, 64 * 1024)) {
            rc = -3;
            break;
        }
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = (uInt)(out->cap - out->len - 1);
        int zr = inflate(&z, Z_NO_FLUSH);
        out->len = (size_t)((char *)z.next_out - out->data);
        out->data[out->len] = '\0';
        if (out->len > max) {
            rc = -2;
            break;
        }
        if (zr == Z_STREAM_END) {
            if (z.avail_in == 0 || window != 15 + 32 || ((unsigned char)z.next_in[0] != 0x1f))
                break;
            inflateReset(&z); /* another gzip member */
            continue;
        }
        if (zr == Z_BUF_ERROR && z.avail_in == 0) {
            if (out->len == 0) { /* else: cut by the crawler's limit, keep it */
                snprintf(msg, cap, "compressed body ends early");
                rc = -1;
            }
            break;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            snprintf(msg, cap, "%s", z.msg ? z.msg : "corrupt compressed data");
            rc = -1;
            break;
        }
    }
    inflateEnd(&z);
    return rc;
}

/* Brotli (RFC 7932) into *out, at most max bytes; as inflate_body. */
static int unbrotli_body(const char *b, size_t len, size_t max, ps_buf *out, char *msg, size_t cap)
{
    BrotliDecoderState *d = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!d)
        return -3;
    const uint8_t *next_in = (const uint8_t *)b;
    size_t avail_in = len;
    int rc = 0;
    for (;;) {
        if (ps_buf_reserve(out, 64 * 1024)) {
            rc = -3;
            break;
        }
        uint8_t *next_out = (uint8_t *)out->data + out->len;
        size_t avail_out = out->cap - out->len - 1;
        BrotliDecoderResult r = BrotliDecoderDecompressStream(d, &avail_in, &next_in, &avail_out, &next_out, NULL);
        out->len = (size_t)((char *)next_out - out->data);
        out->data[out->len] = '\0';
        if (out->len > max) {
            rc = -2;
            break;
        }
        if (r == BROTLI_DECODER_RESULT_SUCCESS)
            break;
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
            if (out->len == 0) { /* else: cut by the crawler's limit, keep it */
                snprintf(msg, cap, "compressed body ends early");
                rc = -1;
            }
            break;
        }
        if (r == BROTLI_DECODER_RESULT_ERROR) {
            snprintf(msg, cap, "%s", BrotliDecoderErrorString(BrotliDecoderGetErrorCode(d)));
            rc = -1;
            break;
        }
    }
    BrotliDecoderDestroyInstance(d);
    return rc;
}

/* The largest window a zstd frame may ask for: 8 MiB, what HTTP's "zstd"
 * coding allows (RFC 9659); a frame asking for more is refused instead of
 * taking that much memory. */
#define ZSTD_WINDOW_LOG_MAX 23

/* Zstandard (RFC 8878; several frames allowed) into *out, at most max
 * bytes; as inflate_body. */
static int unzstd_body(const char *b, size_t len, size_t max, ps_buf *out, char *msg, size_t cap)
{
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d)
        return -3;
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX);
    ZSTD_inBuffer in = {b, len, 0};
    int rc = 0;
    size_t left = 1; /* 0: a frame ended exactly */
    for (;;) {
        if (ps_buf_reserve(out, 64 * 1024)) {
            rc = -3;
            break;
        }
        ZSTD_outBuffer o = {out->data + out->len, out->cap - out->len - 1, 0};
        left = ZSTD_decompressStream(d, &o, &in);
        out->len += o.pos;
        out->data[out->len] = '\0';
        if (ZSTD_isError(left)) {
            snprintf(msg, cap, "%s", ZSTD_getErrorName(left));
            rc = -1;
            break;
        }
        if (out->len > max) {
            rc = -2;
            break;
        }
        if (in.pos == in.size && o.pos < o.size) { /* all input read, all output flushed */
            if (left != 0 && out->len == 0) { /* else: cut by the crawler's limit, keep it */
                snprintf(msg, cap, "compressed body ends early");
                rc = -1;
            }
            break;
        }
    }
    ZSTD_freeDCtx(d);
    return rc;
}

/* Undo the content coding into *out (or leave it empty for identity).
 * Returns 0 or the failure already written into in. -1: out of memory. */
static int decode_content(const char *b, size_t len, span coding, size_t max_bytes, ps_buf *out,
                          ps_input *in)
{
    if (!coding.n || span_is(coding, "identity"))
        return 0;
    int window = 0;
    const unsigned char *u = (const unsigned char *)b;
    enum { ZLIB, BROTLI, ZSTD } codec = ZLIB;
    if (span_is(coding, "gzip") || span_is(coding, "x-gzip")) {
        if (len < 2 || u[0] != 0x1f || u[1] != 0x8b)
            return 0; /* stored decoded */
        window = 15 + 32;
    } else if (span_is(coding, "deflate")) {
        window = len >= 2 && (u[0] & 0x0f) == 8 && ((u[0] << 8) | u[1]) % 31 == 0 ? 15 : -15;
    } else if (span_is(coding, "br")) {
        if (ps_http_looks_like_html(b, len))
            return 0; /* stored decoded (brotli has no magic to tell) */
        codec = BROTLI;
    } else if (span_is(coding, "zstd")) {
        if (len < 4 || u[0] != 0x28 || u[1] != 0xB5 || u[2] != 0x2F || u[3] != 0xFD)
            return 0; /* stored decoded */
        codec = ZSTD;
    } else {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: unsupported Content-Encoding \"%.*s\"", in->origin,
                      (int)(coding.n > 40 ? 40 : coding.n), coding.p);
        return 0;
    }
    char msg[200];
    int r = codec == BROTLI ? unbrotli_body(b, len, max_bytes, out, msg, sizeof msg)
            : codec == ZSTD ? unzstd_body(b, len, max_bytes, out, msg, sizeof msg)
                            : inflate_body(b, len, window, max_bytes, out, msg, sizeof msg);

    if (r == -3)
        return -1;
    if (r == -2)
        ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: page larger than the limit of %zu bytes once decompressed",
                      in->origin, max_bytes);
    else if (r == -1)
        ps_input_fail(in, PS_ERR_FORMAT, "%s: bad %.*s body: %s", in->origin, (int)coding.n, coding.p, msg);
    return 0;
}

int ps_http_payload(const char *block, size_t len, int complete, uint64_t block_len,
                    size_t max_bytes, ps_input *in)
{
    http_head h;
    if (parse_head(block, len, &h)) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: response record without an HTTP status line", in->origin);
        return 0;
    }
    while (h.status >= 100 && h.status < 200 && h.body_off) { /* "100 Continue", then the response */
        http_head next;
        if (parse_head(block + h.body_off, len - h.body_off, &next))
            break;
        block += h.body_off;
        len -= h.body_off;
        h = next;
    }
    if (h.status < 200 || h.status > 299) {
        in->skipped = 1;
        snprintf(in->msg, sizeof in->msg, "HTTP status %d", h.status);
        return 0;
    }
    const char *body = block + h.body_off;
    size_t blen = h.body_off ? len - h.body_off : 0;
    if (h.content_type.n ? !media_type_is_html(h.content_type.p, h.content_type.n)
                         : !ps_http_looks_like_html(body, blen)) {
        in->skipped = 1;
        snprintf(in->msg, sizeof in->msg, "HTTP Content-Type %.*s", (int)(h.content_type.n > 100 ? 100 : h.content_type.n),
                 h.content_type.n ? h.content_type.p : "missing and the body is not HTML");
        return 0;
    }
    if (h.content_type.n)
        in->charset = charset_of(h.content_type.p, h.content_type.n);
    if (!complete) {
        ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: page of %" PRIu64 " bytes, larger than the limit of %zu bytes",
                      in->origin, block_len, max_bytes);
        return 0;
    }
    if (!h.body_off) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: the HTTP headers do not end (no empty line)", in->origin);
        return 0;
    }
    char *copy = malloc(blen + 1);
    if (!copy)
        return -1;
    memcpy(copy, body, blen);
    if (span_is(h.transfer_encoding, "chunked")) {
        size_t n = dechunk(copy, blen);
        if (n == (size_t)-1) {
            free(copy);
            ps_input_fail(in, PS_ERR_FORMAT, "%s: malformed chunked transfer coding", in->origin);
            return 0;
        }
        blen = n;
    }
    ps_buf dec = {0};
    int rc = decode_content(copy, blen, h.content_encoding, max_bytes, &dec, in);
    if (rc == 0 && in->status == PS_OK) {
        size_t n = dec.data ? dec.len : blen;
        if (n > max_bytes) {
            ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: page of %zu bytes, larger than the limit of %zu bytes",
                          in->origin, n, max_bytes);
        } else if (dec.data) {
            in->data = ps_buf_take(&dec, &in->len);
        } else { /* the copy becomes the page */
            copy[blen] = '\0';
            in->data = copy;
            in->len = blen;
            copy = NULL;
        }
    }
    free(copy);
    ps_buf_free(&dec);
    return rc;
}
