/* features/csv.c — reading CSV files row by row with libcsv (and the
 * one-field writer ps_csv_write_field), columns
 * looked up by header name, errors naming the file and line (ps_csv_*, see
 * pagesift.h).  The file is fed to libcsv one physical line at a time, so a
 * row's line number is known exactly, memory holds one row (plus the rows a
 * bare-CR file packs into one "line"), and a file of any size streams. */
#define _POSIX_C_SOURCE 200809L
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/labels.h"

typedef struct row {
    ps_buf data;     /* fields, each NUL-terminated */
    size_t *offs;    /* start of each field in data */
    size_t n, cap;
    size_t line;     /* line the row starts on */
} row;

struct ps_csv {
    char *path;
    FILE *f;
    int own_file;
    struct csv_parser p;
    char *linebuf;
    size_t linecap;
    size_t line;        /* physical lines fed so far */
    int eof;
    row *q;             /* completed rows waiting, q[head..count) */
    size_t head, count, qcap;
    row cur;            /* the row being parsed */
    int cur_started;
    row hdr;            /* the header */
    row out;            /* the row handed to the caller */
    int oom;
};

static int row_add(row *r, const char *s, size_t n)
{
    if (r->n == r->cap) {
        size_t c = r->cap ? 2 * r->cap : 32;
        size_t *o = realloc(r->offs, c * sizeof *o);
        if (!o)
            return -1;
        r->offs = o;
        r->cap = c;
    }
    r->offs[r->n++] = r->data.len;
    if (ps_buf_append(&r->data, s, n) || ps_buf_putc(&r->data, '\0'))
        return -1;
    return 0;
}

static void row_clear(row *r)
{
    r->n = 0;
    r->data.len = 0;
}

static void row_free(row *r)
{
    ps_buf_free(&r->data);
    free(r->offs);
    memset(r, 0, sizeof *r);
}

static void on_field(void *s, size_t n, void *data)
{
    ps_csv *c = data;
    if (!c->cur_started) {
        /* the row started on the line where its first field started */
        size_t nl = 0;
        for (size_t i = 0; i < n; i++)
            nl += ((char *)s)[i] == '\n';
        c->cur.line = c->line > nl ? c->line - nl : 1;
        c->cur_started = 1;
    }
    if (row_add(&c->cur, s ? s : "", s ? n : 0))
        c->oom = 1;
}

static void on_row(int term, void *data)
{
    (void)term;
    ps_csv *c = data;
    if (!c->cur_started) /* libcsv reports no empty rows, but be safe */
        return;
    if (c->count == c->qcap) {
        size_t nc = c->qcap ? 2 * c->qcap : 4;
        row *q = realloc(c->q, nc * sizeof *q);
        if (!q) {
            c->oom = 1;
            return;
        }
        memset(q + c->qcap, 0, (nc - c->qcap) * sizeof *q);
        c->q = q;
        c->qcap = nc;
    }
    /* swap the finished row into the queue, keep the queue slot's buffers */
    row t = c->q[c->count];
    c->q[c->count++] = c->cur;
    c->cur = t;
    row_clear(&c->cur);
    c->cur_started = 0;
}

/* Feed lines until a row is queued or the file ends.  0 ok, -1 error. */
static int fill(ps_csv *c, ps_error *err)
{
    while (c->head == c->count && !c->eof) {
        if (c->head) { /* queue drained: recycle */
            c->head = c->count = 0;
        }
        ssize_t n = getline(&c->linebuf, &c->linecap, c->f);
        if (n < 0) {
            if (ferror(c->f))
                return ps_set_error(err, PS_ERR_IO, "%s: read error after line %zu: %s", c->path,
                                    c->line, strerror(errno));
            c->eof = 1;
            if (csv_fini(&c->p, on_field, on_row, c) != 0)
                return ps_set_error(err, PS_ERR_FORMAT,
                                    "%s: line %zu: unterminated quoted field at the end of the file",
                                    c->path, c->cur.line ? c->cur.line : c->line);
            break;
        }
        c->line++;
        const char *s = c->linebuf;
        if (c->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) { /* BOM */
            s += 3;
            n -= 3;
        }
        if (csv_parse(&c->p, s, (size_t)n, on_field, on_row, c) != (size_t)n)
            return ps_set_error(err, csv_error(&c->p) == CSV_ENOMEM ? PS_ERR_NOMEM : PS_ERR_FORMAT,
                                "%s: line %zu: %s", c->path, c->line,
                                csv_error(&c->p) == CSV_EPARSE
                                    ? "malformed quoting (a quote inside an unquoted field, or "
                                      "text after a closing quote)"
                                    : csv_strerror(csv_error(&c->p)));
        if (c->oom)
            return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", c->path);
    }
    return 0;
}

/* Take the next complete row into *dst.  1, 0 at the end, -1 error. */
static int take(ps_csv *c, row *dst, ps_error *err)
{
    if (fill(c, err))
        return -1;
    if (c->head == c->count)
        return 0;
    row t = *dst;
    *dst = c->q[c->head];
    c->q[c->head++] = t;
    return 1;
}

ps_csv *ps_csv_open(const char *path, ps_error *err)
{
    ps_csv *c = calloc(1, sizeof *c);
    if (!c) {
        ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    int std = strcmp(path, "-") == 0;
    c->path = strdup(std ? "standard input" : path);
    c->f = std ? stdin : fopen(path, "rb");
    c->own_file = !std;
    if (!c->path || !c->f) {
        ps_set_error(err, PS_ERR_IO, "%s: %s", path, c->path ? strerror(errno) : "out of memory");
        free(c->path);
        free(c);
        return NULL;
    }
    csv_init(&c->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL);
    int r = take(c, &c->hdr, err);
    if (r <= 0) {
        if (r == 0)
            ps_set_error(err, PS_ERR_FORMAT, "%s: empty file (no header row)", c->path);
        ps_csv_close(c);
        return NULL;
    }
    for (size_t i = 0; i < c->hdr.n; i++) { /* trim header names */
        char *h = c->hdr.data.data + c->hdr.offs[i];
        size_t n = strlen(h);
        while (n && (h[n - 1] == ' ' || h[n - 1] == '\r'))
            h[--n] = '\0';
        for (size_t j = i + 1; j < c->hdr.n; j++)
            if (strcmp(h, c->hdr.data.data + c->hdr.offs[j]) == 0) {
                ps_set_error(err, PS_ERR_FORMAT, "%s: line %zu: column '%s' appears twice",
                             c->path, c->hdr.line, h);
                ps_csv_close(c);
                return NULL;
            }
    }
    return c;
}

void ps_csv_close(ps_csv *c)
{
    if (!c)
        return;
    if (c->own_file && c->f)
        fclose(c->f);
    csv_free(&c->p);
    for (size_t i = 0; i < c->qcap; i++)
        row_free(&c->q[i]);
    free(c->q);
    row_free(&c->cur);
    row_free(&c->hdr);
    row_free(&c->out);
    free(c->linebuf);
    free(c->path);
    free(c);
}

size_t ps_csv_columns(const ps_csv *c)
{
    return c->hdr.n;
}

const char *ps_csv_column_name(const ps_csv *c, size_t i)
{
    return i < c->hdr.n ? c->hdr.data.data + c->hdr.offs[i] : NULL;
}

int ps_csv_column(const ps_csv *c, const char *name)
{
    for (size_t i = 0; i < c->hdr.n; i++)
        if (strcmp(c->hdr.data.data + c->hdr.offs[i], name) == 0)
            return (int)i;
    return -1;
}

int ps_csv_require(const ps_csv *c, const char *name, ps_error *err)
{
    int i = ps_csv_column(c, name);
    if (i < 0)
        ps_set_error(err, PS_ERR_FORMAT, "%s: line %zu: the header has no column '%s'", c->path,
                     c->hdr.line, name);
    return i;
}

int ps_csv_next(ps_csv *c, ps_error *err)
{
    int r = take(c, &c->out, err);
    if (r == 1 && c->out.n != c->hdr.n)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: line %zu: %zu fields, the header has %zu",
                            c->path, c->out.line, c->out.n, c->hdr.n);
    return r;
}

const char *ps_csv_field(const ps_csv *c, size_t col)
{
    return col < c->out.n ? c->out.data.data + c->out.offs[col] : "";
}

size_t ps_csv_line(const ps_csv *c)
{
    return c->out.line;
}

const char *ps_csv_path(const ps_csv *c)
{
    return c->path;
}

int ps_csv_number(const ps_csv *c, size_t col, double *out, ps_error *err)
{
    const char *s = ps_csv_field(c, col);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (end != s && (*end == ' ' || *end == '\t'))
        end++;
    if (end == s || *end || !isfinite(v) || errno == ERANGE)
        return ps_set_error(err, PS_ERR_FORMAT, "%s: line %zu: column '%s': '%.60s' is not a number",
                            c->path, c->out.line, ps_csv_column_name(c, col) ? ps_csv_column_name(c, col) : "?", s);
    *out = v;
    return 0;
}

int ps_csv_count(const ps_csv *c, size_t col, uint32_t *out, ps_error *err)
{
    double v;
    if (ps_csv_number(c, col, &v, err) < 0)
        return -1;
    *out = v <= 0 ? 0 : v >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    return 0;
}

int ps_csv_write_field(FILE *f, const char *s, size_t n)
{
    return csv_fwrite(f, s, n) == 0 ? 0 : -1;
}

int32_t ps_csv_row_parent(const char *const *paths, const int32_t *parent, size_t first, size_t i,
                          const char *path)
{
    int32_t par = i > first ? (int32_t)i - 1 : -1;
    while (par >= (int32_t)first) {
        const char *a = paths[par] ? paths[par] : "";
        const size_t n = strlen(a);
        if (strncmp(a, path, n) == 0 && path[n] == '/')
            return par;
        par = parent[par];
    }
    return -1;
}
