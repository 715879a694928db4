/* extract/warc.c — a streaming WARC/1.0 and 1.1 record reader (ISO 28500).
 *
 * A record is a version line ("WARC/1.0"), named header fields, an empty
 * line, Content-Length bytes of block and CRLF CRLF.  The reader works on an
 * instream (plain or gzip, see instream.c), keeps at most one record block
 * in memory (capped: larger blocks are streamed past) and turns each record
 * into one ps_input:
 *   - response records: the HTTP payload is decoded by http_payload.c;
 *   - resource records of type text/html or application/xhtml+xml: pages;
 *   - every other record: skipped, with the reason in msg.
 * Damage is reported per record and the reader goes on where it can:
 *   - a wrong Content-Length (the block is not followed by CRLF CRLF and the
 *     next "WARC/" header): the record fails and the reader resynchronises at
 *     the next line starting with "WARC/1." (searching the block it read too
 *     far first, so the records it swallowed still come out);
 *   - bytes between records that are not a record (garbage, also without a
 *     newline before the next "WARC/1." line; zeros; a gzip member of
 *     padding): one skipped input counting the bytes, then the next record
 *     (blank lines are separators and skipped silently);
 *   - a Content-Length larger than the block kept in memory (an absurd
 *     length, or one past the end of the file): while the block is streamed
 *     past, a "WARC/1.0" or "WARC/1.1" line right after a blank line (the
 *     record separator) ends it: the record fails and reading resumes at
 *     that header (a record that holds a WARC file of its own and is larger
 *     than the page cap is thus split: its inner records come out too);
 *   - a file cut inside a record: the cut record fails ("truncated"), end;
 *   - corrupt gzip data or bytes between gzip members that are not a member
 *     (instream.c's resync mode): the record the damage falls in fails with
 *     zlib's message (or, between records, one input reports the bytes
 *     skipped), and reading goes on at the next gzip member (magic 1f 8b
 *     08).  So every intact record after any damage still comes out, and
 *     records read = extracted + empty + failed + skipped. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "extract/inputs_internal.h"

enum {
    MAX_HEADER = 64 * 1024,        /* WARC header bytes */
    HTTP_HEADER_SLACK = 64 * 1024, /* HTTP headers beyond the page cap */
    KEEP_BLOCK = 1 << 20           /* block buffer kept between records */
};

struct ps_warc {
    ps_instream *s;
    char *name;
    size_t max_bytes;
    int done;
    int records;
    ps_buf line;
    ps_buf hdr;     /* header fields of the current record, '\n'-separated */
    ps_buf block;   /* the current record's block (or its start) */
};

/* Header fields of one record. */
typedef struct warc_fields {
    char *type, *record_id, *target_uri, *content_type;
    uint64_t length;
    int has_length;
} warc_fields;

static void fields_free(warc_fields *f)
{
    free(f->type);
    free(f->record_id);
    free(f->target_uri);
    free(f->content_type);
}

int ps_warc_name(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && !ps_ascii_casecmp(path + n - 5, ".warc")) ||
           (n >= 8 && !ps_ascii_casecmp(path + n - 8, ".warc.gz"));
}

ps_warc *ps_warc_new(ps_instream *s, const char *name, size_t max_bytes)
{
    ps_warc *w = calloc(1, sizeof *w);
    if (!w || !(w->name = strdup(name))) {
        free(w);
        ps_instream_free(s);
        return NULL;
    }
    w->s = s;
    ps_instream_set_resync(s, 1);
    w->max_bytes = max_bytes ? max_bytes : PS_DEFAULT_MAX_BYTES;
    return w;
}

uint64_t ps_warc_file_offset(const ps_warc *w)
{
    return ps_instream_file_offset(w->s);
}

void ps_warc_free(ps_warc *w)
{
    if (!w)
        return;
    ps_instream_free(w->s);
    ps_buf_free(&w->line);
    ps_buf_free(&w->hdr);
    ps_buf_free(&w->block);
    free(w->name);
    free(w);
}

static int is_blank_line(const ps_buf *l)
{
    return (l->len == 1 && l->data[0] == '\n') ||
           (l->len == 2 && l->data[0] == '\r' && l->data[1] == '\n');
}

/* "file@offset N": the compressed offset of the gzip member the record
 * starts (as CDX indexes give it), or the byte offset of a plain file. */
static char *make_origin(const ps_warc *w, uint64_t start)
{
    char tmp[64];
    if (!ps_instream_is_gzip(w->s))
        snprintf(tmp, sizeof tmp, "@offset %" PRIu64, start);
    else {
        int64_t m = ps_instream_member_offset(w->s, start);
        if (m >= 0)
            snprintf(tmp, sizeof tmp, "@offset %" PRId64, m);
        else
            snprintf(tmp, sizeof tmp, "@uncompressed offset %" PRIu64, start);
    }
    size_t n = strlen(w->name) + strlen(tmp) + 1;
    char *o = malloc(n);
    if (o)
        snprintf(o, n, "%s%s", w->name, tmp);
    return o;
}

/* A failure of the stream itself (read error, corrupt gzip) ends the file. */
static int stream_failed(ps_warc *w, ps_input *in)
{
    w->done = 1;
    ps_input_fail(in, PS_ERR_FORMAT, "%s", ps_instream_error(w->s));
    return 1;
}

/* Gzip damage the stream stopped at: @p in fails with zlib's message, and
 * reading goes on at the next gzip member.  0 when there is none. */
static int damage_fail(ps_warc *w, ps_input *in)
{
    const ps_instream_damage *d = ps_instream_damage_pending(w->s);
    if (!d)
        return 0;
    ps_input_fail(in, PS_ERR_FORMAT, "%s: %s", in->origin, d->msg);
    in->skipped = 0;
    ps_instream_damage_take(w->s);
    return 1;
}

/* Skip to the next line starting with "WARC/1." and push it back. */
static void resync_forward(ps_warc *w, int at_line_start)
{
    for (;;) {
        w->line.len = 0;
        int r = ps_instream_getline(w->s, &w->line, MAX_HEADER);
        if (r == 0 || r == -1)
            return;
        if (r == 1 && at_line_start && w->line.len >= 7 && !memcmp(w->line.data, "WARC/1.", 7)) {
            ps_instream_unread(w->s, w->line.data, w->line.len);
            return;
        }
        at_line_start = 1;
    }
}

/* Offset of the first line "WARC/1." in b[1..n), or 0 when none. */
static size_t find_record_start(const char *b, size_t n)
{
    for (size_t p = 1; p + 7 <= n; p++) {
        const char *hit = memchr(b + p, 'W', n - p);
        if (!hit)
            break;
        p = (size_t)(hit - b);
        if (p + 7 <= n && b[p - 1] == '\n' && !memcmp(hit, "WARC/1.", 7))
            return p;
    }
    return 0;
}

/* Offset of the first "WARC/1.0" or "WARC/1.1" line right after a blank
 * line (a record separator) in b[0..n), at least @p min; 0 when none. */
static size_t find_separator_record(const char *b, size_t n, size_t min)
{
    if (min < 2)
        min = 2;
    for (size_t p = min; p + 10 <= n; p++) {
        const char *hit = memmem(b + p, n - p, "WARC/1.", 7);
        if (!hit)
            break;
        p = (size_t)(hit - b);
        if (p + 10 > n)
            break;
        if (b[p - 1] == '\n' && b[p - 2] == '\n' && (b[p + 7] == '0' || b[p + 7] == '1') &&
            (b[p + 8] == '\n' || (b[p + 8] == '\r' && b[p + 9] == '\n')))
            return p;
        if (b[p - 1] == '\n' && b[p - 2] == '\r' && p >= 4 && b[p - 3] == '\n' && b[p - 4] == '\r' &&
            (b[p + 7] == '0' || b[p + 7] == '1') && (b[p + 8] == '\n' || (b[p + 8] == '\r' && b[p + 9] == '\n')))
            return p;
    }
    return 0;
}

/* Resynchronise after a bad block: a "WARC/1." line inside the block read
 * (Content-Length too large) is pushed back; else scan forward. */
static void resync_after_block(ps_warc *w, const char *b, size_t n, int last)
{
    size_t p = find_record_start(b, n);
    if (p)
        ps_instream_unread(w->s, b + p, n - p);
    else
        resync_forward(w, last == '\n');
}

/* The version line, skipping blank lines between records.  1: a line in
 * w->line, 0: end of input, -1: stream error, -2: an overlong line. */
static int read_version_line(ps_warc *w, uint64_t *start)
{
    for (;;) {
        *start = ps_instream_offset(w->s);
        w->line.len = 0;
        int r = ps_instream_getline(w->s, &w->line, 4096);
        if (r != 1 || !is_blank_line(&w->line))
            return r;
    }
}

/* Header lines up to the empty line, into w->hdr.  1: ok, 0: the input
 * ended inside, -1: stream error, -2: header too long. */
static int read_header(ps_warc *w)
{
    w->hdr.len = 0;
    for (;;) {
        w->line.len = 0;
        int r = ps_instream_getline(w->s, &w->line, MAX_HEADER);
        if (r != 1)
            return r;
        if (w->line.data[w->line.len - 1] != '\n')
            return 0; /* last line without its end */
        if (is_blank_line(&w->line))
            return 1;
        if (w->hdr.len + w->line.len > MAX_HEADER)
            return -2;
        if (ps_buf_append(&w->hdr, w->line.data, w->line.len))
            return -1;
    }
}

static char *trimmed_dup(const char *v, const char *end)
{
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    char *s = malloc((size_t)(end - v) + 1);
    if (s) {
        memcpy(s, v, (size_t)(end - v));
        s[end - v] = '\0';
    }
    return s;
}

static int parse_length(const char *v, uint64_t *out)
{
    if (!*v)
        return -1;
    uint64_t n = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9' || n > UINT64_MAX / 10 - 1)
            return -1;
        n = n * 10 + (uint64_t)(*v - '0');
    }
    *out = n;
    return 0;
}

/* Pick the fields we use out of w->hdr.  Returns -1 when out of memory. */
static int parse_fields(ps_warc *w, warc_fields *f)
{
    memset(f, 0, sizeof *f);
    if (!w->hdr.data)
        return 0; /* no field read yet (the input ended in the first one) */
    char *p = w->hdr.data, *end = p + w->hdr.len;
    while (p && p < end) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        char *colon = memchr(p, ':', (size_t)(eol - p));
        if (colon && *p != ' ' && *p != '\t') {
            size_t nl = (size_t)(colon - p);
            char **slot = NULL;
            if (nl == 9 && !ps_ascii_ncasecmp(p, "WARC-Type", 9)) slot = &f->type;
            else if (nl == 14 && !ps_ascii_ncasecmp(p, "WARC-Record-ID", 14)) slot = &f->record_id;
            else if (nl == 15 && !ps_ascii_ncasecmp(p, "WARC-Target-URI", 15)) slot = &f->target_uri;
            else if (nl == 12 && !ps_ascii_ncasecmp(p, "Content-Type", 12)) slot = &f->content_type;
            else if (nl == 14 && !ps_ascii_ncasecmp(p, "Content-Length", 14)) {
                char *v = trimmed_dup(colon + 1, eol);
                if (!v)
                    return -1;
                f->has_length = parse_length(v, &f->length) == 0;
                free(v);
            }
            if (slot && !*slot && !(*slot = trimmed_dup(colon + 1, eol)))
                return -1;
        }
        p = eol + 1;
    }
    return 0;
}

/* The output id: the uuid of "<urn:uuid:...>", else the whole id. */
static char *record_id(const char *rid, uint64_t start)
{
    if (!rid || !*rid) {
        char tmp[48];
        snprintf(tmp, sizeof tmp, "record-%" PRIu64, start);
        return strdup(tmp);
    }
    size_t n = strlen(rid);
    if (rid[0] == '<' && n >= 2 && rid[n - 1] == '>') {
        rid++;
        n -= 2;
    }
    if (n > 9 && !ps_ascii_ncasecmp(rid, "urn:uuid:", 9)) {
        rid += 9;
        n -= 9;
    }
    return ps_safe_id(rid, n);
}

/* The block is followed by CRLF CRLF and then the next record ("WARC/") or
 * the end of input; consume the separator.  Also accepted: LF LF, extra
 * blank lines, and a file that ends right after the block or inside its
 * CRLF CRLF (the block itself is complete). */
static int check_trailer(ps_warc *w)
{
    size_t avail;
    const unsigned char *p = ps_instream_peek(w->s, 64, &avail);
    if (!p)
        return -1;
    size_t i = 0;
    while (i < avail && i < 4 && (p[i] == '\r' || p[i] == '\n'))
        i++;
    if (i == avail && avail < 4) { /* the file ends with the block, maybe cut in the CRLF CRLF */
        ps_instream_read(w->s, NULL, i, NULL);
        return 1;
    }
    if (avail >= 4 && !memcmp(p, "\r\n\r\n", 4))
        i = 4;
    else if (avail >= 2 && !memcmp(p, "\n\n", 2))
        i = 2;
    else
        return 0;
    /* What follows (blank lines, padding, garbage before the next record)
     * is the next read's business: this record is intact. */
    ps_instream_read(w->s, NULL, i, NULL);
    return 1;
}

/* Read the block: all of it into w->block when it is at most @p cap bytes,
 * else its first HTTP_HEADER_SLACK bytes and stream past the rest.  *got
 * gets the bytes consumed, *last the last one.  A block streamed past ends
 * early at a record header after a blank line (find_separator_record): the
 * bytes from there are pushed back and *overrun is set.  Returns -1 when
 * out of memory. */
static int read_block(ps_warc *w, uint64_t length, size_t cap, int *complete, int *last, uint64_t *got_total,
                      int *overrun)
{
    enum { LOOK = 16, CHUNK = 1 << 20 };
    size_t keep = length <= cap ? (size_t)length : (cap < HTTP_HEADER_SLACK ? cap : HTTP_HEADER_SLACK);
    *complete = length <= cap;
    *overrun = 0;
    w->block.len = 0;
    if (ps_buf_reserve(&w->block, keep))
        return -1;
    size_t got = ps_instream_read(w->s, w->block.data, keep, last);
    w->block.len = got;
    w->block.data[got] = '\0';
    uint64_t total = got;
    if (*complete) {
        *got_total = total;
        return 0;
    }
    size_t p = find_separator_record(w->block.data, got, 0);
    if (p) {
        ps_instream_unread(w->s, w->block.data + p, got - p);
        w->block.len = p;
        w->block.data[p] = '\0';
        *got_total = p;
        *overrun = 1;
        return 0;
    }
    if (got < keep) {
        *got_total = total;
        return 0;
    }
    /* stream past the rest, looking at each chunk with the last LOOK bytes
     * before it */
    char *scan = malloc(LOOK + CHUNK);
    if (!scan)
        return -1;
    size_t look = got < LOOK ? got : LOOK;
    memcpy(scan, w->block.data + got - look, look);
    while (total < length) {
        uint64_t rest = length - total;
        size_t chunk = rest > CHUNK ? CHUNK : (size_t)rest;
        size_t n = ps_instream_read(w->s, scan + look, chunk, last);
        p = find_separator_record(scan, look + n, 0);
        if (p) {
            ps_instream_unread(w->s, scan + p, look + n - p);
            total += n - (look + n - p);
            *overrun = 1;
            break;
        }
        total += n;
        if (n < chunk)
            break;
        size_t l = look + n < LOOK ? look + n : LOOK;
        memmove(scan, scan + look + n - l, l);
        look = l;
    }
    free(scan);
    *got_total = total;
    return 0;
}

/* A response holding an HTTP message (not e.g. Heritrix's text/dns
 * responses), or an HTML resource. */
static int is_page_record(const warc_fields *f)
{
    if (!f->type)
        return 0;
    if (!ps_ascii_casecmp(f->type, "response"))
        return !f->content_type || !ps_ascii_ncasecmp(f->content_type, "application/http", 16);
    return !ps_ascii_casecmp(f->type, "resource") && f->content_type && ps_http_is_html_type(f->content_type);
}

/* Make the page of a complete, well-framed record. */
static int make_page(ps_warc *w, const warc_fields *f, int complete, ps_input *in)
{
    if (!ps_ascii_casecmp(f->type, "response"))
        return ps_http_payload(w->block.data, w->block.len, complete, f->length, w->max_bytes, in);
    if (!complete || w->block.len > w->max_bytes) {
        ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: page of %" PRIu64 " bytes, larger than the limit of %zu bytes",
                      in->origin, f->length, w->max_bytes);
        return 0;
    }
    in->charset = ps_http_charset_param(f->content_type);
    in->data = malloc(w->block.len + 1);
    if (!in->data)
        return -1;
    memcpy(in->data, w->block.data, w->block.len + 1);
    in->len = w->block.len;
    return 0;
}

/* Fill the ps_input of a record whose header was read. */
static int read_record_body(ps_warc *w, const warc_fields *f, ps_input *in)
{
    if (!f->has_length) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: WARC record without a valid Content-Length; skipped to the next record",
                      in->origin);
        resync_forward(w, 1);
        return 1;
    }
    int page = is_page_record(f);
    size_t cap = !page ? KEEP_BLOCK
               : w->max_bytes > SIZE_MAX - HTTP_HEADER_SLACK - 1 ? SIZE_MAX - 1
               : w->max_bytes + HTTP_HEADER_SLACK;
    int complete, last = '\n', overrun;
    uint64_t got;
    if (read_block(w, f->length, cap, &complete, &last, &got, &overrun))
        return -1;
    if (overrun) {
        ps_input_fail(in, PS_ERR_FORMAT,
                      "%s: Content-Length %" PRIu64 " runs over the next record (a WARC header after %" PRIu64
                      " bytes of the block); skipped to that record", in->origin, f->length, got);
        return 1;
    }
    if (got < f->length) {
        if (ps_instream_error(w->s)[0])
            return stream_failed(w, in);
        if (damage_fail(w, in))
            return 1;
        if (complete && find_record_start(w->block.data, w->block.len))
            goto bad_length; /* the length ran over the next record */
        w->done = 1;
        ps_input_fail(in, PS_ERR_FORMAT, "%s: truncated: the file ends after %" PRIu64 " of the record's %" PRIu64 " bytes",
                      in->origin, got, f->length);
        return 1;
    }
    int tr = check_trailer(w);
    if (tr < 0)
        return stream_failed(w, in);
    if (tr == 0)
        goto bad_length;
    if (!page) {
        in->skipped = 1;
        snprintf(in->msg, sizeof in->msg, "WARC %s record%s%s", f->type ? f->type : "untyped",
                 f->content_type ? " of type " : "", f->content_type ? f->content_type : "");
        return 1;
    }
    return make_page(w, f, complete, in) < 0 ? -1 : 1;
bad_length:
    ps_input_fail(in, PS_ERR_FORMAT,
                  "%s: Content-Length %" PRIu64 " does not match the record (the block is not followed by "
                  "CRLF CRLF and the next WARC header); skipped to the next record", in->origin, f->length);
    resync_after_block(w, w->block.data, complete ? w->block.len : 0, last);
    return 1;
}

/* Bytes between records that are not a record (garbage, zeros, a gzip
 * member of padding): skipped up to the next "WARC/1." wherever it starts
 * (also inside a line: garbage without a newline before a record), and
 * reported as one skipped input that counts them, so every intact record
 * after them comes out.  The line read is in w->line. */
static int skip_garbage(ps_warc *w, ps_input *in)
{
    uint64_t skipped = 0;
    for (;;) {
        const char *hit = w->line.len >= 7 ? memmem(w->line.data, w->line.len, "WARC/1.", 7) : NULL;
        if (hit) {
            size_t k = (size_t)(hit - w->line.data);
            skipped += k;
            ps_instream_unread(w->s, hit, w->line.len - k);
            break;
        }
        skipped += w->line.len;
        w->line.len = 0;
        int r = ps_instream_getline(w->s, &w->line, MAX_HEADER);
        if (r == -1 && ps_instream_error(w->s)[0])
            return stream_failed(w, in);
        if (r != 1 && r != -2)
            break;
    }
    w->records--; /* not a record */
    in->skipped = 1;
    snprintf(in->msg, sizeof in->msg, "%" PRIu64 " bytes that are not a WARC record, skipped to the %s", skipped,
             w->line.len ? "next record" : "end of the file");
    return 1;
}

/* Where a record starts, before its header is read: origin, id
 * "record-<offset>", url "".  Returns -1 when out of memory. */
static int default_identity(ps_warc *w, uint64_t start, ps_input *in)
{
    in->origin = make_origin(w, start);
    in->id = record_id(NULL, start);
    in->url = strdup("");
    return in->origin && in->id && in->url ? 0 : -1;
}

/* The id and URL from the record's header. */
static int fill_identity(const warc_fields *f, uint64_t start, ps_input *in)
{
    free(in->id);
    free(in->url);
    in->id = record_id(f->record_id, start);
    in->url = strdup(f->target_uri ? f->target_uri : "");
    return in->id && in->url ? 0 : -1;
}

int ps_warc_next(ps_warc *w, ps_input *in, ps_error *err)
{
    ps_input_clear(in);
    if (w->done)
        return 0;
    warc_fields f = {0};
    uint64_t start;
    int r = read_version_line(w, &start);
    const ps_instream_damage *d = ps_instream_damage_pending(w->s);
    if (d && (r != 1 || w->line.data[w->line.len - 1] != '\n')) {
        /* the stream stopped at gzip damage before a whole version line */
        if (default_identity(w, start, in))
            goto nomem;
        char *o = malloc(strlen(w->name) + 32);
        if (!o)
            goto nomem;
        sprintf(o, "%s@offset %" PRIu64, w->name, d->raw_from); /* the damaged member's */
        free(in->origin);
        in->origin = o;
        if (d->not_member && !(r == 1 && w->line.len)) { /* no byte of a record lost */
            in->skipped = 1;
            snprintf(in->msg, sizeof in->msg, "%s", d->msg);
            ps_instream_damage_take(w->s);
        } else {
            damage_fail(w, in);
        }
        return 1;
    }
    if (r == 0 && !ps_instream_truncated(w->s)) {
        w->done = 1;
        return 0;
    }
    if (default_identity(w, start, in))
        goto nomem;
    if (r == -1)
        return stream_failed(w, in);
    if (r == 0) {
        w->done = 1;
        ps_input_fail(in, PS_ERR_FORMAT, "%s: truncated: the gzip data ends inside a member", in->origin);
        return 1;
    }
    int first = w->records++ == 0;
    if (!first && r == 1 && (w->line.len < 7 || memcmp(w->line.data, "WARC/1.", 7)))
        return skip_garbage(w, in);
    if (r == -2 || w->line.len < 7 || memcmp(w->line.data, "WARC/1.", 7)) {
        char shown[40];
        size_t n = r == 1 ? w->line.len : 0;
        if (n > 32)
            n = 32;
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)w->line.data[i];
            shown[i] = c >= 32 && c < 127 ? (char)c : '?';
        }
        shown[n] = '\0';
        ps_input_fail(in, PS_ERR_FORMAT, "%s: %s (expected \"WARC/1.0\" or \"WARC/1.1\", found \"%s\")",
                      in->origin, first ? "not a WARC file" : "not a WARC record header", shown);
        if (first)
            w->done = 1;
        else
            resync_forward(w, 1);
        return 1;
    }
    r = read_header(w);
    if (r == -1 && ps_instream_error(w->s)[0])
        return stream_failed(w, in);
    if (r == -1 || parse_fields(w, &f) || fill_identity(&f, start, in))
        goto nomem;
    if (r == 0 && damage_fail(w, in)) {
        /* gzip damage inside the header: reading goes on at the next member */
    } else if (r == 0) {
        w->done = 1;
        ps_input_fail(in, PS_ERR_FORMAT, "%s: truncated: the file ends inside the record header", in->origin);
    } else if (r == -2) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: WARC header longer than %d bytes; skipped to the next record",
                      in->origin, MAX_HEADER);
        resync_forward(w, 1);
    } else {
        r = read_record_body(w, &f, in);
        if (r < 0)
            goto nomem;
        /* the record read whole, but the gzip member it came from failed its
         * check after its data (or the damage met at its end): it fails */
        d = ps_instream_damage_pending(w->s);
        if (d && d->suspect_from < ps_instream_offset(w->s)) {
            if (in->status == PS_OK)
                damage_fail(w, in);
            else
                ps_instream_damage_take(w->s); /* one failure for the record */
        }
    }
    fields_free(&f);
    if (w->block.cap > KEEP_BLOCK)
        ps_buf_free(&w->block);
    return 1;
nomem:
    fields_free(&f);
    ps_input_clear(in);
    return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", w->name);
}
