/* common/util.c — see util.h. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ps_set_error(ps_error *err, ps_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void (*print_fn)(const char *line);

void ps_set_print_function(void (*fn)(const char *line))
{
    print_fn = fn;
}

void ps_print(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (print_fn)
        print_fn(line);
    else
        fprintf(stderr, "%s\n", line);
}

int ps_buf_reserve(ps_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p)
        return -1;
    b->data = p;
    b->cap = cap;
    return 0;
}

int ps_buf_append(ps_buf *b, const void *data, size_t n)
{
    if (ps_buf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int ps_buf_putc(ps_buf *b, char c)
{
    return ps_buf_append(b, &c, 1);
}

int ps_buf_printf(ps_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || ps_buf_reserve(b, (size_t)n))
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *ps_buf_take(ps_buf *b, size_t *len)
{
    char *d = b->data;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void ps_buf_free(ps_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* The rest of @p f (whose fstat is @p st) into a new buffer; closes f. */
static char *read_opened(FILE *f, const struct stat *st, const char *path, size_t max_bytes, size_t *len,
                         ps_error *err)
{
    if (max_bytes && S_ISREG(st->st_mode) && (uint64_t)st->st_size > max_bytes) {
        fclose(f);
        ps_set_error(err, PS_ERR_TOO_LARGE, "%s: %lld bytes, larger than the limit of %zu bytes",
                     path, (long long)st->st_size, max_bytes);
        return NULL;
    }
    ps_buf b = {0};
    size_t want = S_ISREG(st->st_mode) && st->st_size > 0 ? (size_t)st->st_size : 65536;
    for (;;) {
        if (ps_buf_reserve(&b, want)) {
            fclose(f);
            ps_buf_free(&b);
            ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", path);
            return NULL;
        }
        size_t n = fread(b.data + b.len, 1, b.cap - b.len - 1, f);
        b.len += n;
        b.data[b.len] = '\0';
        if (max_bytes && b.len > max_bytes) {
            fclose(f);
            ps_buf_free(&b);
            ps_set_error(err, PS_ERR_TOO_LARGE, "%s: larger than the limit of %zu bytes", path, max_bytes);
            return NULL;
        }
        if (n == 0) {
            if (ferror(f)) {
                int e = errno;
                fclose(f);
                ps_buf_free(&b);
                ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(e));
                return NULL;
            }
            break;
        }
        /* grow only when the buffer is full: a regular file fits in the
         * room reserved from its size, and the next read just sees EOF */
        want = b.len + 1 < b.cap ? 0 : b.cap;
    }
    fclose(f);
    if (!b.data) { /* empty file */
        b.data = calloc(1, 1);
        if (!b.data) {
            ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", path);
            return NULL;
        }
    }
    if (len)
        *len = b.len;
    return b.data;
}

char *ps_read_file(const char *path, size_t max_bytes, size_t *len, ps_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        memset(&st, 0, sizeof st);
    if (S_ISDIR(st.st_mode)) {
        fclose(f);
        ps_set_error(err, PS_ERR_IO, "%s: is a directory", path);
        return NULL;
    }
    return read_opened(f, &st, path, max_bytes, len, err);
}

char *ps_read_regular_file(const char *path, size_t max_bytes, const char *what, size_t *len, ps_error *err)
{
    /* O_NONBLOCK: opening a FIFO without a writer returns at once (a
     * blocking open waits for ever); the file is checked on the descriptor
     * opened, so a path swapped after a stat() cannot slip through */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(e));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        ps_set_error(err, PS_ERR_FORMAT, "%s: not a regular file%s%s", path, what ? ", not " : "", what ? what : "");
        return NULL;
    }
    if (what && max_bytes && (uint64_t)st.st_size > max_bytes) {
        close(fd);
        ps_set_error(err, PS_ERR_TOO_LARGE, "%s: %lld bytes, larger than %s can be (%zu %s)", path,
                     (long long)st.st_size, what, max_bytes >= ((size_t)1 << 20) ? max_bytes >> 20 : max_bytes,
                     max_bytes >= ((size_t)1 << 20) ? "MiB" : "bytes");
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(e));
        return NULL;
    }
    return read_opened(f, &st, path, max_bytes, len, err);
}

FILE *ps_atomic_open(const char *path, char *tmp_path, size_t cap, ps_error *err)
{
    int n = snprintf(tmp_path, cap, "%s.tmp.XXXXXX", path);
    if (n < 0 || (size_t)n >= cap) {
        ps_set_error(err, PS_ERR_USAGE, "%s: path too long", path);
        return NULL;
    }
    int fd = mkstemp(tmp_path);
    if (fd < 0) {
        ps_set_error(err, PS_ERR_IO, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return NULL;
    }
    fchmod(fd, 0644);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp_path);
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(errno));
    }
    return f;
}

int ps_atomic_commit(FILE *f, const char *tmp_path, const char *path, ps_error *err)
{
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp_path);
        return ps_set_error(err, PS_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    if (rename(tmp_path, path) != 0) {
        e = errno;
        unlink(tmp_path);
        return ps_set_error(err, PS_ERR_IO, "%s: rename failed: %s", path, strerror(e));
    }
    return 0;
}

void ps_atomic_abort(FILE *f, const char *tmp_path)
{
    if (f)
        fclose(f);
    unlink(tmp_path);
}

int ps_write_file_atomic(const char *path, const void *data, size_t len, ps_error *err)
{
    char tmp[PATH_MAX];
    FILE *f = ps_atomic_open(path, tmp, sizeof tmp, err);
    if (!f)
        return -1;
    if (len && fwrite(data, 1, len, f) != len) {
        int e = errno;
        ps_atomic_abort(f, tmp);
        return ps_set_error(err, PS_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    return ps_atomic_commit(f, tmp, path, err);
}

void ps_give_back(size_t freed)
{
#ifdef __GLIBC__
    if (freed >= PS_GIVE_BACK_BYTES)
        malloc_trim(0);
#else
    (void)freed;
#endif
}

size_t ps_utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

void ps_first_letter_runs(const void *table, size_t n, size_t size, unsigned char first[27])
{
    const char *t = table;
    size_t i = 0;
    for (int c = 0; c < 26; c++) {
        first[c] = (unsigned char)i;
        for (const char *name; i < n; i++) {
            memcpy(&name, t + i * size, sizeof name);
            if (name[0] != 'a' + c)
                break;
        }
    }
    first[26] = (unsigned char)i;
}

double ps_strtod(const char *s, char **end)
{
    /* 10^0 .. 10^22: every one exactly a double */
    static const double P10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) /* strtod's isspace, C locale */
        p++;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t m = 0;
    const uint64_t m_max = (UINT64_C(1) << 53) / 10; /* m * 10 + 9 stays within 2^53 */
    int digits = 0, frac = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (m > m_max)
            return strtod(s, end);
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++, digits++, frac++) {
            if (m > m_max)
                return strtod(s, end);
            m = m * 10 + (uint64_t)(*p - '0');
        }
    }
    if (!digits)
        return strtod(s, end);
    int e10 = 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        int eneg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        if (*q < '0' || *q > '9')
            return strtod(s, end);
        for (; *q >= '0' && *q <= '9'; q++)
            if (e10 < 1000)
                e10 = e10 * 10 + (*q - '0');
        e10 = eneg ? -e10 : e10;
        p = q;
    }
    /* what follows must end the number for strtod too (not "0x1p3",
     * "1.5.2", "12abc" read some other way): leave the rare rest to it */
    if ((*p >= '0' && *p <= '9') || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
        *p == '_')
        return strtod(s, end);
    int e = e10 - frac;
    if (e < -22 || e > 22 || m > (UINT64_C(1) << 53))
        return strtod(s, end);
    double v = (double)m; /* exact: m <= 2^53 */
    if (e < 0)
        v /= P10[-e];
    else if (e > 0)
        v *= P10[e];
    if (end)
        *end = (char *)p;
    return neg ? -v : v;
}

const char **ps_split_list(char *list)
{
    size_t n = 2;
    for (char *p = list; *p; p++)
        n += *p == ',' || *p == ' ';
    const char **v = calloc(n, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
        v[k++] = tok;
    return v;
}

int ps_mkdir_p(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (path[i] != '/')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        path[i] = '/';
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

double ps_clock(ps_clock_kind k)
{
    struct timespec ts;
    clockid_t id = k == PS_CLOCK_PROCESS_CPU ? CLOCK_PROCESS_CPUTIME_ID
                   : k == PS_CLOCK_THREAD_CPU ? CLOCK_THREAD_CPUTIME_ID
                                              : CLOCK_MONOTONIC;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ps_now(void)
{
    return ps_clock(PS_CLOCK_WALL);
}
