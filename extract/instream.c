/* extract/instream.c — a buffered byte stream over a file or stdin that
 * inflates gzip transparently (one member per WARC record as crawlers write,
 * or one member for a whole file), with bounded memory, peeking, line reads
 * and push-back; and a whole file read through it (ps_read_page_file).  See
 * inputs_internal.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "extract/inputs_internal.h"
#include "pagesift/dataset.h"

enum {
    RAW_CAP = 128 * 1024,   /* compressed bytes read at once */
    HIST_CAP = 1 << 20,     /* compressed bytes of the current member kept (resync) */
    OUT_CAP = 256 * 1024,   /* uncompressed buffer (grows only for peeks) */
    N_MEMBERS = 64          /* recent gzip member starts remembered */
};

typedef struct member_start {
    uint64_t out;   /* uncompressed offset */
    uint64_t in;    /* compressed offset */
} member_start;

struct ps_instream {
    int fd;
    int own_fd;
    int gzip;
    int eof;             /* no more bytes will come */
    int truncated;       /* gzip ended inside a member */
    z_stream z;
    int z_live;          /* inflateInit done */
    int in_member;       /* inside a gzip member */
    unsigned char *raw;  /* compressed input */
    uint64_t raw_pos;    /* file offset of raw[0] */
    unsigned char *buf;  /* uncompressed bytes buf[pos..end) */
    size_t pos, end, cap;
    uint64_t offset;     /* uncompressed offset of buf[pos] */
    member_start members[N_MEMBERS];
    size_t n_members;    /* total recorded (ring) */
    int resync;          /* corrupt gzip: skip to the next member (see set_resync) */
    int barrier;         /* a damage not yet taken: reads end here */
    uint64_t member_raw; /* compressed offset of the current member */
    uint64_t member_out; /* its first uncompressed offset */
    ps_instream_damage damage;
    char err[256];
    char *name;
};

static int fail(ps_instream *s, const char *fmt, const char *detail)
{
    snprintf(s->err, sizeof s->err, fmt, s->name, detail);
    s->eof = 1;
    return -1;
}

/* Read raw bytes from the file; returns the count, 0 at EOF, -1 on error. */
static ssize_t read_raw(ps_instream *s, unsigned char *dst, size_t cap)
{
    for (;;) {
        ssize_t n = read(s->fd, dst, cap);
        if (n >= 0)
            return n;
        if (errno != EINTR)
            return fail(s, "%s: read error: %s", strerror(errno));
    }
}

static void note_member(ps_instream *s, uint64_t out, uint64_t in)
{
    member_start *m = &s->members[s->n_members % N_MEMBERS];
    m->out = out;
    m->in = in;
    s->n_members++;
}

/* Compressed file offset of the next unconsumed raw byte. */
static uint64_t raw_offset(const ps_instream *s)
{
    return s->raw_pos + (uint64_t)(s->z.next_in - s->raw);
}

/* Bytes in s->raw (consumed or not). */
static size_t raw_len(const ps_instream *s)
{
    return (size_t)(s->z.next_in - s->raw) + s->z.avail_in;
}

/* Read more compressed bytes after the unconsumed ones, keeping the last
 * @p keep consumed ones in front of them (the current member's, for a
 * resync).  Returns the count read, 0 at EOF, -1 on error. */
static ssize_t more_raw(ps_instream *s, size_t keep)
{
    size_t used = (size_t)(s->z.next_in - s->raw), have = raw_len(s);
    if (keep > used)
        keep = used;
    size_t from = used - keep;
    if (from) {
        memmove(s->raw, s->raw + from, have - from);
        s->raw_pos += from;
    }
    s->z.next_in = s->raw + keep;
    ssize_t n = read_raw(s, s->raw + (have - from), RAW_CAP + HIST_CAP - (have - from) < RAW_CAP
                                                        ? RAW_CAP + HIST_CAP - (have - from) : RAW_CAP);
    if (n > 0)
        s->z.avail_in += (uInt)n;
    return n;
}

/* Refill s->raw when it is used up; returns 0 at EOF, -1 on error.  In
 * resync mode the current member's compressed bytes (up to HIST_CAP) stay
 * in front, so a damaged member can be searched for the next one. */
static int refill_raw(ps_instream *s)
{
    if (s->z.avail_in)
        return 1;
    size_t keep = 0;
    if (s->resync && s->in_member) {
        uint64_t end = s->raw_pos + raw_len(s);
        keep = s->member_raw >= s->raw_pos ? (size_t)(end - s->member_raw) : raw_len(s);
        if (keep > HIST_CAP)
            keep = HIST_CAP;
    }
    ssize_t n = more_raw(s, keep);
    return n <= 0 ? (int)n : 1;
}

/* Resync mode: the next gzip member magic (1f 8b 08, reserved flag bits
 * clear) at or after compressed offset @p from (or the earliest byte still
 * held); the input is positioned there.  Returns 1 when found, 0 when the
 * file ends first (all consumed), -1 on a read error. */
static int seek_member(ps_instream *s, uint64_t from)
{
    for (;;) {
        size_t have = raw_len(s);
        size_t i = from > s->raw_pos ? (size_t)(from - s->raw_pos) : 0;
        for (; i + 4 <= have; i++) {
            const unsigned char *m = memchr(s->raw + i, 0x1f, have - 3 - i);
            if (!m)
                break;
            i = (size_t)(m - s->raw);
            if (m[1] == 0x8b && m[2] == 0x08 && !(m[3] & 0xe0)) {
                s->z.next_in = s->raw + i;
                s->z.avail_in = (uInt)(have - i);
                return 1;
            }
        }
        /* keep the last 3 bytes (a magic cut by the buffer's end) */
        s->z.next_in = s->raw + have;
        s->z.avail_in = 0;
        from = s->raw_pos + have - (have < 3 ? have : 3);
        ssize_t n = more_raw(s, have < 3 ? have : 3);
        if (n < 0)
            return -1;
        if (n == 0) {
            s->z.next_in = s->raw + raw_len(s);
            s->z.avail_in = 0;
            return 0;
        }
    }
}

/* Resync mode: corrupt gzip data (@p what) in the member that began at
 * member_raw / member_out.  Noted as a damage (reads end here until it is
 * taken), and the input moves to the next member. */
static int damaged(ps_instream *s, const char *what, int check_error, int not_member)
{
    uint64_t at_raw = raw_offset(s), out_at = s->offset + (s->end - s->pos);
    ps_instream_damage *d = &s->damage;
    d->not_member = not_member;
    d->out_from = s->member_out;
    d->out_at = out_at;
    d->suspect_from = check_error ? s->member_out : out_at;
    d->raw_from = s->member_raw;
    snprintf(d->msg, sizeof d->msg, "corrupt gzip data: %s at compressed offset %llu", what,
             (unsigned long long)at_raw);
    s->in_member = 0;
    int r = seek_member(s, s->member_raw + 1);
    if (r < 0)
        return -1;
    d->raw_to = s->raw_pos + (uint64_t)(s->z.next_in - s->raw);
    size_t n = strlen(d->msg);
    if (r)
        snprintf(d->msg + n, sizeof d->msg - n, "; skipped to the next gzip member at offset %llu",
                 (unsigned long long)d->raw_to);
    else
        snprintf(d->msg + n, sizeof d->msg - n, "; no gzip member after it");
    d->pending = 1;
    s->barrier = 1;
    if (!r)
        s->eof = 1;
    return 0;
}

/* Inflate into buf[end..cap); returns bytes produced, 0 at the end, -1 on
 * error. */
static ssize_t fill_gzip(ps_instream *s)
{
    size_t before = s->end;
    while (s->end == before && !s->barrier) {
        int r = refill_raw(s);
        if (r < 0)
            return -1;
        if (r == 0) {
            if (s->in_member)
                s->truncated = 1;
            s->eof = 1;
            return 0;
        }
        if (!s->in_member) {
            if (s->resync) { /* a member starts with its magic, else it is damage */
                while (s->z.avail_in < 4) {
                    ssize_t n = more_raw(s, 0);
                    if (n < 0)
                        return -1;
                    if (n == 0)
                        break;
                }
                const unsigned char *m = s->z.next_in;
                if (s->z.avail_in < 4 || m[0] != 0x1f || m[1] != 0x8b || m[2] != 0x08 || (m[3] & 0xe0)) {
                    s->member_raw = raw_offset(s);
                    s->member_out = s->offset + (s->end - s->pos);
                    if (damaged(s, "bytes that are not a gzip member", 0, 1) < 0)
                        return -1;
                    break;
                }
            }
            s->member_raw = raw_offset(s);
            s->member_out = s->offset + (s->end - s->pos);
            note_member(s, s->member_out, s->member_raw);
            if (inflateReset(&s->z) != Z_OK)
                return fail(s, "%s: %s", "inflateReset failed");
            s->in_member = 1;
        }
        s->z.next_out = s->buf + s->end;
        s->z.avail_out = (uInt)(s->cap - s->end);
        int zr = inflate(&s->z, Z_NO_FLUSH);
        s->end = (size_t)(s->z.next_out - s->buf);
        if (zr == Z_STREAM_END) {
            s->in_member = 0;
        } else if ((zr != Z_OK && zr != Z_BUF_ERROR) ||
                   (zr == Z_BUF_ERROR && s->z.avail_in && s->z.avail_out)) {
            const char *zm = s->z.msg ? s->z.msg : "inflate failed";
            if (s->resync && zr != Z_MEM_ERROR) {
                int check = !strcmp(zm, "incorrect data check") || !strcmp(zm, "incorrect length check");
                if (damaged(s, zm, check, 0) < 0)
                    return -1;
                break;
            }
            char d[160];
            snprintf(d, sizeof d, "%s at compressed offset %llu", zm,
                     (unsigned long long)raw_offset(s));
            return fail(s, "%s: corrupt gzip data: %s", d);
        }
    }
    return (ssize_t)(s->end - before);
}

/* Add bytes at buf[end]; returns the count, 0 at the end, -1 on error. */
static ssize_t fill(ps_instream *s)
{
    if (s->barrier)
        return 0;
    if (s->eof)
        return s->err[0] ? -1 : 0;
    if (s->pos == s->end) {
        s->pos = s->end = 0;
    } else if (s->end == s->cap) {
        memmove(s->buf, s->buf + s->pos, s->end - s->pos);
        s->end -= s->pos;
        s->pos = 0;
    }
    if (s->end == s->cap)
        return 0; /* callers grow the buffer before */
    if (s->gzip)
        return fill_gzip(s);
    ssize_t n = read_raw(s, s->buf + s->end, s->cap - s->end);
    if (n == 0)
        s->eof = 1;
    if (n > 0)
        s->end += (size_t)n;
    return n;
}

static int init_gzip(ps_instream *s)
{
    memset(&s->z, 0, sizeof s->z);
    if (inflateInit2(&s->z, 15 + 32) != Z_OK)
        return fail(s, "%s: %s", "cannot initialise zlib");
    s->z_live = 1;
    s->raw = malloc(RAW_CAP + HIST_CAP);
    if (!s->raw)
        return fail(s, "%s: %s", "out of memory");
    /* the sniffed bytes in buf are compressed: move them to raw */
    memcpy(s->raw, s->buf, s->end);
    s->z.next_in = s->raw;
    s->z.avail_in = (uInt)s->end;
    s->pos = s->end = 0;
    s->gzip = 1;
    return 0;
}

ps_instream *ps_instream_open(const char *path, ps_error *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    ps_instream *s = calloc(1, sizeof *s);
    if (s) {
        s->buf = malloc(OUT_CAP);
        s->name = strdup(is_stdin ? "stdin" : path);
    }
    if (!s || !s->buf || !s->name) {
        ps_instream_free(s);
        if (!is_stdin)
            close(fd);
        ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    s->fd = fd;
    s->own_fd = !is_stdin;
    s->cap = OUT_CAP;
    /* sniff the gzip magic from the first raw bytes */
    while (s->end < 2) { /* at most RAW_CAP: they move to raw for gzip */
        ssize_t n = read_raw(s, s->buf + s->end, RAW_CAP - s->end);
        if (n <= 0) {
            if (n == 0)
                s->eof = 1;
            break;
        }
        s->end += (size_t)n;
    }
    if (s->end >= 2 && s->buf[0] == 0x1f && s->buf[1] == 0x8b)
        init_gzip(s);
    return s;
}

void ps_instream_free(ps_instream *s)
{
    if (!s)
        return;
    if (s->z_live)
        inflateEnd(&s->z);
    if (s->own_fd)
        close(s->fd);
    free(s->raw);
    free(s->buf);
    free(s->name);
    free(s);
}

int ps_instream_is_gzip(const ps_instream *s) { return s->gzip; }
uint64_t ps_instream_offset(const ps_instream *s) { return s->offset; }
uint64_t ps_instream_file_offset(const ps_instream *s)
{
    return s->gzip && s->z_live && s->z.next_in ? raw_offset(s) : s->offset;
}
const char *ps_instream_error(const ps_instream *s) { return s->err; }
int ps_instream_truncated(const ps_instream *s) { return s->truncated; }
void ps_instream_set_resync(ps_instream *s, int on) { s->resync = on; }

const ps_instream_damage *ps_instream_damage_pending(const ps_instream *s)
{
    return s->damage.pending ? &s->damage : NULL;
}

void ps_instream_damage_take(ps_instream *s)
{
    s->damage.pending = 0;
    s->barrier = 0;
}

int64_t ps_instream_member_offset(const ps_instream *s, uint64_t off)
{
    size_t n = s->n_members < N_MEMBERS ? s->n_members : N_MEMBERS;
    for (size_t i = 0; i < n; i++) {
        const member_start *m = &s->members[(s->n_members - 1 - i) % N_MEMBERS];
        if (m->out == off)
            return (int64_t)m->in;
        if (m->out < off)
            break;
    }
    return -1;
}

const unsigned char *ps_instream_peek(ps_instream *s, size_t n, size_t *avail)
{
    if (n > s->cap) {
        unsigned char *nb = realloc(s->buf, n);
        if (!nb) {
            fail(s, "%s: %s", "out of memory");
            return NULL;
        }
        s->buf = nb;
        s->cap = n;
    }
    while (s->end - s->pos < n) {
        if (s->pos + n > s->cap) { /* make room at the end */
            memmove(s->buf, s->buf + s->pos, s->end - s->pos);
            s->end -= s->pos;
            s->pos = 0;
        }
        ssize_t r = fill(s);
        if (r < 0 && s->end == s->pos)
            return NULL;
        if (r <= 0)
            break; /* an error after some bytes shows at the next read */
    }
    *avail = s->end - s->pos;
    return s->buf + s->pos;
}

static void consume(ps_instream *s, size_t k)
{
    s->pos += k;
    s->offset += k;
}

size_t ps_instream_read(ps_instream *s, void *dst, size_t n, int *last)
{
    size_t done = 0;
    while (done < n) {
        if (s->pos == s->end && fill(s) <= 0)
            break;
        size_t k = s->end - s->pos;
        if (k > n - done)
            k = n - done;
        if (dst)
            memcpy((char *)dst + done, s->buf + s->pos, k);
        if (last)
            *last = s->buf[s->pos + k - 1];
        consume(s, k);
        done += k;
    }
    return done;
}

int ps_instream_getline(ps_instream *s, ps_buf *line, size_t max)
{
    size_t got = 0;
    int too_long = 0;
    for (;;) {
        if (s->pos == s->end) {
            ssize_t r = fill(s);
            if (r < 0)
                return -1;
            if (r == 0)
                return too_long ? -2 : got ? 1 : 0;
        }
        const unsigned char *p = s->buf + s->pos;
        size_t k = s->end - s->pos;
        const unsigned char *nl = memchr(p, '\n', k);
        if (nl)
            k = (size_t)(nl - p) + 1;
        if (!too_long && got + k > max) {
            too_long = 1;
            line->len -= got;
            if (line->data)
                line->data[line->len] = '\0';
        }
        if (!too_long && ps_buf_append(line, p, k))
            return fail(s, "%s: %s", "out of memory");
        got += k;
        consume(s, k);
        if (nl)
            return too_long ? -2 : 1;
    }
}

int ps_instream_unread(ps_instream *s, const void *data, size_t n)
{
    if (n == 0)
        return 0;
    if (s->pos < n) {
        size_t have = s->end - s->pos;
        size_t cap = s->cap > have + n ? s->cap : have + n;
        unsigned char *nb = malloc(cap);
        if (!nb)
            return fail(s, "%s: %s", "out of memory");
        memcpy(nb + n, s->buf + s->pos, have);
        free(s->buf);
        s->buf = nb;
        s->cap = cap;
        s->pos = n;
        s->end = n + have;
    }
    s->pos -= n;
    memmove(s->buf + s->pos, data, n);
    s->offset -= n;
    return 0;
}

/* ---- whole files ------------------------------------------------------ */

/* The whole of a file through ps_instream (which inflates gzip, several
 * members allowed) into *out, at most max bytes once inflated.  Returns 0;
 * -1 out of memory; 1 a failure of the file (code and message in *e). */
int ps_read_inflated(const char *path, size_t max, ps_buf *out, ps_error *e)
{
    ps_instream *s = ps_instream_open(path, e);
    if (!s)
        return e->code == PS_ERR_NOMEM ? -1 : 1;
    int rc = 0;
    for (;;) {
        if (ps_buf_reserve(out, 65536)) {
            ps_set_error(e, PS_ERR_NOMEM, "%s: out of memory", path);
            rc = -1;
            break;
        }
        size_t n = ps_instream_read(s, out->data + out->len, out->cap - out->len - 1, NULL);
        out->len += n;
        out->data[out->len] = '\0';
        if (max && out->len > max) {
            ps_set_error(e, PS_ERR_TOO_LARGE, "%s: page larger than the limit of %zu bytes once unpacked",
                         path, max);
            rc = 1;
            break;
        }
        if (n == 0)
            break;
    }
    if (rc == 0 && (ps_instream_error(s)[0] || ps_instream_truncated(s))) {
        ps_set_error(e, PS_ERR_FORMAT, "%s: %s", path,
                     ps_instream_error(s)[0] ? ps_instream_error(s) : "gzip data truncated");
        rc = 1;
    }
    ps_instream_free(s);
    if (rc)
        ps_buf_free(out);
    else if (!out->data && !(out->data = calloc(1, 1)))
        rc = -1;
    return rc;
}

char *ps_read_page_file(const char *path, size_t max_bytes, size_t *len, ps_error *err)
{
    ps_error e = {0};
    ps_buf b = {0};
    int r = ps_read_inflated(path, max_bytes, &b, &e);
    if (r) {
        if (r < 0 && e.code != PS_ERR_NOMEM)
            ps_set_error(&e, PS_ERR_NOMEM, "%s: out of memory", path);
        if (err)
            *err = e;
        return NULL;
    }
    return ps_buf_take(&b, len);
}
