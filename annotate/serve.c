/* annotate/serve.c — the tiny HTTP server of pagesift-annotate --serve: the
 * workspace's files for a browser on the same machine, and POST /save to
 * write the labels straight into the workspace folder.
 *
 * Bounded on purpose: listens on 127.0.0.1 only; SERVE_THREADS connections
 * served at once, each by a thread of a fixed pool (every thread accepts
 * on the one listening socket), the next ones waiting in the kernel's
 * accept queue (LISTEN_BACKLOG), one request per connection; each request
 * read whole — head and body — within REQUEST_S of its accept, a deadline
 * for the request and not a timeout per read (a client sending a header
 * line every second held the one-connection server for 68 s; issue 32,
 * defect 7), else answered 408 and closed; the answer written within
 * RESPONSE_S of the request's last byte; a head of at most 16 KB; bodies of
 * at most 256 MB, and at most 256 MB of bodies being received at once (503
 * past that); GET paths of [A-Za-z0-9._/-] only, no segment starting with
 * '.', resolved with realpath and required to stay inside the folder, sent
 * in 64 KB pieces; exactly one Host header, naming this server (a
 * DNS-rebinding page cannot reach it; two Host headers, or two
 * Content-Length, are refused whatever their order) and /save needs the
 * header X-Pagesift: save, which a page of another origin cannot send
 * without a CORS preflight that this server never grants.  Saves are
 * serialised and merged: a save carries the labels a browser changed, the
 * server applies them to labels.json as it is on disk (read, merged,
 * written atomically under the save lock), reports conflicts and answers the
 * merged labels, so two browsers on one workspace keep each other's labels
 * (the merge rule: above save()). */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/annotate.h"
#include "annotate/annotate_internal.h"

#define HEAD_MAX (16 * 1024)
#define BODY_MAX ((size_t)256 << 20)  /* one body, and all bodies being received */
#define REQUEST_S 10.0                /* from accept to the request's last byte */
#define RESPONSE_S 10.0               /* from the request's last byte to the answer's */
#define SERVE_THREADS 16              /* connections served at once */
#define LISTEN_BACKLOG 64             /* connections waiting for a thread */
#define POLL_SLICE_MS 200             /* how soon a thread sees the server stop */
#define FILE_PIECE (64 * 1024)

/* The server: what every thread shares. */
typedef struct server {
    int listen_fd;
    int port;
    const char *root;
    FILE *log;
    atomic_int quit;               /* set when *stop is: threads leave */
    pthread_mutex_t save_lock;     /* one save writes at a time */
    pthread_mutex_t body_lock;     /* guards body_bytes */
    size_t body_bytes;             /* Content-Length of the bodies being received */
} server;

/* One connection: its socket and the deadline of what it is doing
 * (ps_now() seconds: reading the request, then writing the answer). */
typedef struct conn {
    server *srv;
    int fd;
    double deadline;
} conn;

typedef struct req {
    char method[8];
    char path[1024];
    char host[256];
    char xps[32];
    size_t content_length;
    int has_length;
    int has_host;
} req;

/* Wait until the connection is ready for @p events: 1 ready, 0 when its
 * deadline has passed, the server is stopping, or on an error. */
static int wait_fd(conn *c, short events)
{
    for (;;) {
        double left = c->deadline - ps_now();
        if (left <= 0 || atomic_load(&c->srv->quit))
            return 0;
        int ms = (int)(left * 1000) + 1;
        struct pollfd pfd = {.fd = c->fd, .events = events};
        int r = poll(&pfd, 1, ms < POLL_SLICE_MS ? ms : POLL_SLICE_MS);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        return r > 0;
    }
}

/* recv under the connection's deadline: -1 when it has passed. */
static ssize_t recv_dl(conn *c, void *buf, size_t n)
{
    for (;;) {
        if (!wait_fd(c, POLLIN))
            return -1;
        ssize_t r = recv(c->fd, buf, n, MSG_DONTWAIT);
        if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        return r;
    }
}

static int send_all(conn *c, const void *p, size_t n)
{
    const char *at = p;
    while (n) {
        if (!wait_fd(c, POLLOUT))
            return -1;
        ssize_t w = send(c->fd, at, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (w <= 0)
            return -1;
        at += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The head of an answer of @p len bytes; -1 when it could not be sent. */
static int respond_head(conn *c, int code, const char *reason, const char *type, size_t len)
{
    char h[512];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
                     "Referrer-Policy: no-referrer\r\nConnection: close\r\n\r\n",
                     code, reason, type, len);
    return send_all(c, h, (size_t)n);
}

static void respond(conn *c, int code, const char *reason, const char *type, const void *body,
                    size_t len)
{
    if (respond_head(c, code, reason, type, len) == 0 && len)
        send_all(c, body, len);
}

static void respond_text(conn *c, int code, const char *reason, const char *msg)
{
    respond(c, code, reason, "text/plain; charset=utf-8", msg, strlen(msg));
}

static const char *mime(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return "application/octet-stream";
    if (!strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (!strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (!strcmp(dot, ".json"))
        return "application/json";
    if (!strcmp(dot, ".csv"))
        return "text/csv; charset=utf-8";
    if (!strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    return "application/octet-stream";
}

/* Read until the blank line ending the head; leftover body bytes stay in
 * buf after the head.  Returns the head length, or -1. */
static ssize_t read_head(conn *c, char *buf, size_t cap, size_t *got)
{
    *got = 0;
    while (*got < cap - 1) {
        ssize_t r = recv_dl(c, buf + *got, cap - 1 - *got);
        if (r <= 0)
            return -1;
        *got += (size_t)r;
        buf[*got] = '\0';
        char *e = strstr(buf, "\r\n\r\n");
        if (e)
            return (ssize_t)(e - buf) + 4;
    }
    return -1;
}

static int parse_head(char *buf, req *r)
{
    memset(r, 0, sizeof *r);
    char *line_end = strstr(buf, "\r\n");
    if (!line_end)
        return -1;
    *line_end = '\0';
    char *sp1 = strchr(buf, ' ');
    char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2 || (size_t)(sp1 - buf) >= sizeof r->method ||
        (size_t)(sp2 - sp1 - 1) >= sizeof r->path || strncmp(sp2 + 1, "HTTP/1.", 7) != 0)
        return -1;
    memcpy(r->method, buf, (size_t)(sp1 - buf));
    memcpy(r->path, sp1 + 1, (size_t)(sp2 - sp1 - 1));
    char *p = line_end + 2;
    while (*p && !(p[0] == '\r' && p[1] == '\n')) {
        char *e = strstr(p, "\r\n");
        if (!e)
            return -1;
        *e = '\0';
        char *colon = strchr(p, ':');
        if (colon) {
            *colon = '\0';
            char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            if (ps_ascii_casecmp(p, "host") == 0) {
                if (r->has_host++)
                    return -1; /* two Host headers: which one names the server is ambiguous */
                snprintf(r->host, sizeof r->host, "%s", v);
            }
            else if (ps_ascii_casecmp(p, "x-pagesift") == 0)
                snprintf(r->xps, sizeof r->xps, "%s", v);
            else if (ps_ascii_casecmp(p, "content-length") == 0) {
                if (r->has_length)
                    return -1; /* two lengths: refused, as RFC 9112 allows */
                char *end;
                errno = 0;
                unsigned long long n = strtoull(v, &end, 10);
                if (end == v || *end || errno)
                    return -1;
                r->content_length = n > BODY_MAX ? BODY_MAX + 1 : (size_t)n;
                r->has_length = 1;
            } else if (ps_ascii_casecmp(p, "transfer-encoding") == 0)
                return -1; /* chunked bodies are not accepted */
        }
        p = e + 2;
    }
    return 0;
}

/* A request path that is safe to map onto the folder: "/a/b.html" with
 * [A-Za-z0-9._/-] only, no empty segment, no segment starting with '.'. */
static int safe_path(const char *p)
{
    if (p[0] != '/')
        return 0;
    for (const char *c = p + 1; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if (!((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
              u == '.' || u == '_' || u == '-' || u == '/'))
            return 0;
        if ((c[-1] == '/') && (u == '.' || u == '/'))
            return 0;
    }
    return 1;
}

/* Send the file of the request's path, in pieces (a file may be large;
 * what is read is bounded per connection). */
static void serve_file(conn *c, const req *r, int head_only)
{
    const char *root = c->srv->root;
    char path[PATH_MAX + 1100], real[PATH_MAX];
    char *q = strchr(r->path, '?');
    char clean[1024];
    snprintf(clean, sizeof clean, "%.*s", q ? (int)(q - r->path) : (int)strlen(r->path), r->path);
    const char *rel = strcmp(clean, "/") == 0 ? "/index.html" : clean;
    if (!safe_path(rel)) {
        respond_text(c, 400, "Bad Request", "bad path\n");
        return;
    }
    snprintf(path, sizeof path, "%s%s", root, rel);
    size_t rl = strlen(root);
    struct stat st;
    int fd = -1;
    if (realpath(path, real) && strncmp(real, root, rl) == 0 && real[rl] == '/')
        fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        respond_text(c, 404, "Not Found", "not found\n");
        return;
    }
    char *piece = malloc(FILE_PIECE);
    if (!piece) {
        close(fd);
        respond_text(c, 500, "Internal Server Error", "out of memory\n");
        return;
    }
    size_t left = (size_t)st.st_size;
    if (respond_head(c, 200, "OK", mime(real), left) == 0 && !head_only) {
        while (left) {
            ssize_t n = read(fd, piece, left < FILE_PIECE ? left : FILE_PIECE);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || send_all(c, piece, (size_t)n) != 0)
                break; /* the file shrank, or the client left: the connection closes short */
            left -= (size_t)n;
        }
    }
    free(piece);
    close(fd);
}

/* ---- saves: merged into labels.json -------------------------------------
 *
 * A save carries only what the browser changed: per page, block_id ->
 * {"label": 0|1|null, "was": 0|1|null}, where "was" is the block's label in
 * the labels the browser last had from the server (the revision "base").
 * Under the save lock the server reads labels.json (the truth: none yet is
 * an empty file of revision 0), and for each change:
 *   - the file still holds "was": nobody changed the block since the base,
 *     the change is applied;
 *   - the file holds "label" already: the same change, nothing to do;
 *   - else another browser changed the block differently since the base:
 *     a conflict, the label on disk (saved first) is kept and the conflict
 *     is reported in the answer (the browser shows it).
 * When anything changed the revision goes one up and labels.json is written
 * (atomically).  The answer has the revision, the conflicts and the merged
 * labels of every page, so each browser also gets the others' labels.
 * labels.csv (built by the browser from its labels) is written only when
 * the save was based on the file's current revision and had no conflict:
 * then the merged labels are exactly the browser's, and the CSV is theirs. */

#define SAVE_FORMAT "pagesift-annotate-save"
#define LABELS_FORMAT "pagesift-annotate-labels"

/* A label value of a save: 0, 1 or null (none); -2 when it is none of them. */
static int label_of(const json_t *v)
{
    if (!v || json_is_null(v))
        return -1;
    if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
        return (int)json_integer_value(v);
    return -2;
}

/* "b" and 16 lower-case hex digits: ps_block_id's form. */
static int block_id_ok(const char *k)
{
    if (k[0] != 'b' || strlen(k) != 17)
        return 0;
    for (int i = 1; i < 17; i++)
        if (!((k[i] >= '0' && k[i] <= '9') || (k[i] >= 'a' && k[i] <= 'f')))
            return 0;
    return 1;
}

/* Check a save body: NULL when good, else what is wrong. */
static const char *check_save(const json_t *j)
{
    if (!json_is_object(j))
        return "the body is not a JSON object";
    if (json_object_get(j, "labels") && !json_object_get(j, "format"))
        return "this save sends the whole labels (the scripts of a workspace written before saves "
               "were merged): rewrite the workspace with this pagesift-annotate (-o DIR; --resume "
               "DIR/labels.json keeps the labels)";
    const char *fmt = json_string_value(json_object_get(j, "format"));
    if (!fmt || strcmp(fmt, SAVE_FORMAT) != 0)
        return "no \"format\": \"" SAVE_FORMAT "\"";
    json_t *base = json_object_get(j, "base");
    if (!json_is_integer(base) || json_integer_value(base) < 0)
        return "\"base\" (the revision the changes are based on) is not an integer >= 0";
    json_t *csv = json_object_get(j, "csv");
    if (csv && !json_is_string(csv))
        return "\"csv\" is not a string";
    json_t *ws = json_object_get(j, "workspace");
    if (ws && !json_is_string(ws))
        return "\"workspace\" is not a string";
    json_t *pages = json_object_get(j, "pages");
    if (!json_is_array(pages))
        return "no \"pages\" array";
    size_t i;
    json_t *p;
    json_array_foreach(pages, i, p) {
        json_t *n = json_object_get(p, "n");
        json_t *ch = json_object_get(p, "changes");
        if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > 100000000)
            return "a page's \"n\" is not a page number";
        if (!json_is_object(ch))
            return "a page has no \"changes\" object";
        static const char *const meta[] = {"dataset", "page_id", "url", "site"};
        for (size_t m = 0; m < 4; m++) {
            json_t *v = json_object_get(p, meta[m]);
            if (v && !json_is_string(v) && !json_is_null(v))
                return "a page's dataset, page_id, url or site is not a string";
        }
        const char *k;
        json_t *c;
        json_object_foreach(ch, k, c) {
            if (!block_id_ok(k))
                return "a change's key is not a block id (b and 16 hex digits)";
            if (!json_is_object(c) || label_of(json_object_get(c, "label")) == -2 ||
                label_of(json_object_get(c, "was")) == -2)
                return "a change is not {\"label\": 0|1|null, \"was\": 0|1|null}";
        }
    }
    return NULL;
}

/* labels.json as it is (a new empty one when there is none): NULL with err
 * when it cannot be read or is not a labels file (it is then never
 * overwritten: the labels in it are the annotators'). */
static json_t *load_labels(const char *path, ps_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            ps_set_error(err, PS_ERR_IO, "%s: %s", path, strerror(errno));
            return NULL;
        }
        json_t *d = json_pack("{s:s, s:i, s:i, s:[]}", "format", LABELS_FORMAT, "version", 1,
                              "revision", 0, "pages");
        if (!d)
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return d;
    }
    if (!S_ISREG(st.st_mode)) {
        ps_set_error(err, PS_ERR_IO, "%s: not a regular file", path);
        return NULL;
    }
    json_error_t je;
    json_t *d = json_load_file(path, 0, &je);
    if (!d) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: line %d: %s", path, je.line, je.text);
        return NULL;
    }
    const char *fmt = json_string_value(json_object_get(d, "format"));
    json_t *rev = json_object_get(d, "revision");
    if (!fmt || strcmp(fmt, LABELS_FORMAT) != 0 || !json_is_array(json_object_get(d, "pages")) ||
        (rev && (!json_is_integer(rev) || json_integer_value(rev) < 0 ||
                 json_integer_value(rev) > ((json_int_t)1 << 53)))) {
        json_decref(d);
        ps_set_error(err, PS_ERR_FORMAT, "%s: not a labels file of pagesift-annotate", path);
        return NULL;
    }
    if (!rev)
        json_object_set_new(d, "revision", json_integer(0)); /* a file of before revisions */
    return d;
}

/* The page @p n of the labels file, added (with the save's page facts)
 * when it has none yet. */
static json_t *doc_page(json_t *pages, json_int_t n, const json_t *from)
{
    size_t i;
    json_t *p;
    json_array_foreach(pages, i, p)
        if (json_integer_value(json_object_get(p, "n")) == n) {
            if (!json_is_object(json_object_get(p, "labels")))
                json_object_set_new(p, "labels", json_object());
            return p;
        }
    json_t *np = json_object();
    if (!np)
        return NULL;
    json_object_set_new(np, "n", json_integer(n));
    static const char *const meta[] = {"dataset", "page_id", "url", "site"};
    for (size_t m = 0; m < 4; m++) {
        json_t *v = json_object_get(from, meta[m]);
        json_object_set_new(np, meta[m], v ? json_deep_copy(v) : json_null());
    }
    json_object_set_new(np, "labels", json_object());
    /* in page order, as the browser's export writes them */
    size_t at = json_array_size(pages);
    for (i = 0; i < json_array_size(pages); i++)
        if (json_integer_value(json_object_get(json_array_get(pages, i), "n")) > n) {
            at = i;
            break;
        }
    return json_array_insert_new(pages, at, np) == 0 ? json_array_get(pages, at) : NULL;
}

/* Merge the save @p j into @p doc (see above): the number of labels changed,
 * the conflicts appended to @p conflicts; -1 when out of memory. */
static long merge_save(json_t *doc, const json_t *j, json_t *conflicts)
{
    json_t *pages = json_object_get(doc, "pages");
    long changed = 0;
    size_t i;
    json_t *sp;
    json_array_foreach(json_object_get(j, "pages"), i, sp) {
        json_int_t n = json_integer_value(json_object_get(sp, "n"));
        json_t *ch = json_object_get(sp, "changes");
        if (!json_object_size(ch))
            continue;
        json_t *dp = doc_page(pages, n, sp);
        json_t *labels = dp ? json_object_get(dp, "labels") : NULL;
        if (!labels)
            return -1;
        const char *k;
        json_t *c;
        json_object_foreach(ch, k, c) {
            int want = label_of(json_object_get(c, "label"));
            int was = label_of(json_object_get(c, "was"));
            int cur = label_of(json_object_get(labels, k));
            if (cur == -2)
                cur = -1; /* a damaged value in the file: as none */
            if (cur == want)
                continue;
            if (cur != was) {
                json_t *cf = json_pack("{s:I, s:s, s:o, s:o}", "page", n, "block", k, "yours",
                                       want < 0 ? json_null() : json_integer(want), "saved",
                                       cur < 0 ? json_null() : json_integer(cur));
                if (!cf || json_array_append_new(conflicts, cf))
                    return -1;
                continue;
            }
            if ((want < 0 ? json_object_del(labels, k) : json_object_set_new(labels, k, json_integer(want))) != 0)
                return -1;
            changed++;
        }
    }
    return changed;
}

int ps_annotate_save_merge(const char *root, const char *body, size_t len, char **answer,
                           ps_error *err)
{
    *answer = NULL;
    json_error_t je;
    json_t *j = json_loadb(body, len, 0, &je);
    const char *bad_body = j ? check_save(j) : "the body is not JSON";
    if (bad_body) {
        json_decref(j);
        ps_set_error(err, PS_ERR_FORMAT, "bad save: %s", bad_body);
        return 400;
    }
    char jpath[PATH_MAX + 32], cpath[PATH_MAX + 32];
    snprintf(jpath, sizeof jpath, "%s/labels.json", root);
    snprintf(cpath, sizeof cpath, "%s/labels.csv", root);
    json_t *conflicts = json_array();
    int code = 500, csv_written = 0;
    json_t *doc = conflicts ? load_labels(jpath, err) : NULL;
    if (!conflicts)
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (doc) {
        json_int_t rev = json_integer_value(json_object_get(doc, "revision"));
        json_int_t base = json_integer_value(json_object_get(j, "base"));
        long changed = merge_save(doc, j, conflicts);
        const char *ws = json_string_value(json_object_get(j, "workspace"));
        if (ws && !json_object_get(doc, "workspace"))
            json_object_set_new(doc, "workspace", json_string(ws));
        int bad = changed < 0 ? ps_set_error(err, PS_ERR_NOMEM, "out of memory") : 0;
        if (!bad && changed > 0) {
            json_object_set_new(doc, "revision", json_integer(rev + 1));
            char *text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
            ps_buf b = {0};
            bad = !text || ps_buf_append(&b, text, strlen(text)) || ps_buf_putc(&b, '\n')
                      ? ps_set_error(err, PS_ERR_NOMEM, "out of memory")
                      : ps_write_file_atomic(jpath, b.data, b.len, err);
            free(text);
            ps_buf_free(&b);
        }
        json_t *csv = json_object_get(j, "csv");
        if (!bad && csv && base == rev && json_array_size(conflicts) == 0) {
            bad = ps_write_file_atomic(cpath, json_string_value(csv), json_string_length(csv), err);
            csv_written = !bad;
        }
        if (!bad) {
            json_t *ans = json_pack("{s:b, s:I, s:I, s:I, s:O, s:b, s:O}", "ok", 1, "revision",
                                    json_integer_value(json_object_get(doc, "revision")), "base", base,
                                    "changed", (json_int_t)changed, "conflicts", conflicts, "csv",
                                    csv_written, "labels", doc);
            *answer = ans ? json_dumps(ans, JSON_COMPACT) : NULL;
            json_decref(ans);
            code = *answer ? 200 : 500;
            if (!*answer)
                ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
    }
    json_decref(doc);
    json_decref(conflicts);
    json_decref(j);
    return code;
}

/* POST /save: the merge (ps_annotate_save_merge) under the save lock: the
 * file read, merged and written by one save at a time, so no save is lost
 * to another; the answer is the merged labels. */
static void save(conn *c, const char *body, size_t len)
{
    server *srv = c->srv;
    ps_error err = {0};
    char *answer = NULL;
    pthread_mutex_lock(&srv->save_lock);
    int code = ps_annotate_save_merge(srv->root, body, len, &answer, &err);
    pthread_mutex_unlock(&srv->save_lock);
    if (code != 200) {
        char msg[600];
        if (code == 400) {
            snprintf(msg, sizeof msg, "%s\n", err.msg);
            respond_text(c, 400, "Bad Request", msg);
            return;
        }
        if (srv->log)
            fprintf(srv->log, "pagesift-annotate: save failed: %s\n", err.msg);
        snprintf(msg, sizeof msg, "the save was not written: %s\n", err.msg);
        respond_text(c, 500, "Internal Server Error", msg);
        return;
    }
    respond(c, 200, "OK", "application/json", answer, strlen(answer));
    free(answer);
}

/* Reserve @p n bytes of the bodies being received at once: 0, or -1 when
 * they would pass BODY_MAX. */
static int reserve_body(server *srv, size_t n)
{
    pthread_mutex_lock(&srv->body_lock);
    int ok = srv->body_bytes + n <= BODY_MAX;
    if (ok)
        srv->body_bytes += n;
    pthread_mutex_unlock(&srv->body_lock);
    return ok ? 0 : -1;
}

static void release_body(server *srv, size_t n)
{
    pthread_mutex_lock(&srv->body_lock);
    srv->body_bytes -= n;
    pthread_mutex_unlock(&srv->body_lock);
}

/* The request's deadline passed (or the server stops): say so, briefly. */
static void timed_out(conn *c)
{
    if (atomic_load(&c->srv->quit))
        return;
    char msg[96];
    snprintf(msg, sizeof msg, "the request was not received within %.0f s of its connection\n", REQUEST_S);
    c->deadline = ps_now() + 1;
    respond_text(c, 408, "Request Timeout", msg);
}

/* POST /save: the body (part of it may have come with the head: @p early,
 * @p early_len), then the save. */
static void handle_save(conn *c, const req *r, const char *early, size_t early_len)
{
    if (strcmp(r->xps, "save") != 0) {
        respond_text(c, 403, "Forbidden", "missing X-Pagesift: save\n");
        return;
    }
    if (!r->has_length) {
        respond_text(c, 411, "Length Required", "Content-Length required\n");
        return;
    }
    if (r->content_length > BODY_MAX) {
        respond_text(c, 413, "Payload Too Large", "body too large\n");
        return;
    }
    if (reserve_body(c->srv, r->content_length) != 0) {
        respond_text(c, 503, "Service Unavailable", "other saves are being received: try again\n");
        return;
    }
    char *body = malloc(r->content_length + 1);
    if (!body) {
        release_body(c->srv, r->content_length);
        respond_text(c, 500, "Internal Server Error", "out of memory\n");
        return;
    }
    size_t have = early_len < r->content_length ? early_len : r->content_length;
    memcpy(body, early, have);
    while (have < r->content_length) {
        ssize_t n = recv_dl(c, body + have, r->content_length - have);
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    if (have < r->content_length) {
        if (ps_now() >= c->deadline)
            timed_out(c);
        else
            respond_text(c, 400, "Bad Request", "body shorter than Content-Length\n");
    } else {
        c->deadline = ps_now() + RESPONSE_S;
        save(c, body, have);
    }
    free(body);
    release_body(c->srv, r->content_length);
}

/* One request on a connection just accepted. */
static void handle(conn *c)
{
    server *srv = c->srv;
    c->deadline = ps_now() + REQUEST_S;
    char *buf = malloc(HEAD_MAX);
    if (!buf)
        return;
    size_t got;
    ssize_t hl = read_head(c, buf, HEAD_MAX, &got);
    req r;
    if (hl < 0 && ps_now() >= c->deadline) {
        timed_out(c);
    } else if (hl < 0 || parse_head(buf, &r)) {
        if (hl >= 0 || got)
            respond_text(c, 400, "Bad Request", "bad request\n");
    } else {
        char h1[64], h2[64];
        snprintf(h1, sizeof h1, "127.0.0.1:%d", srv->port);
        snprintf(h2, sizeof h2, "localhost:%d", srv->port);
        if (srv->log)
            fprintf(srv->log, "%s %s\n", r.method, r.path);
        int is_get = strcmp(r.method, "GET") == 0 || strcmp(r.method, "HEAD") == 0;
        if (strcmp(r.host, h1) != 0 && strcmp(r.host, h2) != 0) {
            respond_text(c, 403, "Forbidden", "wrong Host\n");
        } else if (is_get) {
            c->deadline = ps_now() + RESPONSE_S;
            serve_file(c, &r, r.method[0] == 'H');
        } else if (strcmp(r.method, "POST") == 0 && strcmp(r.path, "/save") == 0) {
            handle_save(c, &r, buf + hl, got - (size_t)hl);
        } else {
            respond_text(c, 405, "Method Not Allowed", "GET, HEAD or POST /save only\n");
        }
    }
    free(buf);
}

/* A thread of the pool: accept a connection, serve it, close it; until the
 * server stops. */
static void *serve_thread(void *arg)
{
    server *srv = arg;
    while (!atomic_load(&srv->quit)) {
        struct pollfd pfd = {.fd = srv->listen_fd, .events = POLLIN};
        if (poll(&pfd, 1, POLL_SLICE_MS) <= 0)
            continue; /* timeout or EINTR: check quit */
        int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue; /* another thread took it (the socket does not block) */
        conn c = {.srv = srv, .fd = fd};
        handle(&c);
        close(fd);
    }
    return NULL;
}

/* The listening socket on 127.0.0.1:@p port (0: any), not blocking: -1 with
 * err set. */
static int listen_on(int port, ps_error *err)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return ps_set_error(err, PS_ERR_IO, "socket: %s", strerror(errno));
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) || listen(s, LISTEN_BACKLOG)) {
        int e = errno;
        close(s);
        return ps_set_error(err, PS_ERR_IO, "cannot listen on 127.0.0.1:%d: %s", port, strerror(e));
    }
    return s;
}

int ps_annotate_serve(const char *dir, int port, volatile sig_atomic_t *stop,
                      void (*on_ready)(int port, void *ctx), void *ctx, FILE *log, ps_error *err)
{
    char root[PATH_MAX];
    if (!realpath(dir, root))
        return ps_set_error(err, PS_ERR_IO, "%s: %s", dir, strerror(errno));
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/index.html", root);
    if (access(probe, R_OK) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: not an annotation workspace (no index.html)", dir);
    if (port < 0 || port > 65535)
        return ps_set_error(err, PS_ERR_USAGE, "port %d is not in 0..65535", port);
    int s = listen_on(port, err);
    if (s < 0)
        return -1;
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &sl);
    server srv = {.listen_fd = s, .port = ntohs(sa.sin_port), .root = root, .log = log};
    atomic_init(&srv.quit, 0);
    pthread_mutex_init(&srv.save_lock, NULL);
    pthread_mutex_init(&srv.body_lock, NULL);
    /* the pool's threads take no signal sent to the process (SIGINT,
     * SIGTERM...): the caller's thread gets them and sees *stop */
    sigset_t async, old;
    sigfillset(&async);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        sigdelset(&async, faults[i]);
    pthread_sigmask(SIG_BLOCK, &async, &old);
    pthread_t threads[SERVE_THREADS];
    int started = 0;
    while (started < SERVE_THREADS && pthread_create(&threads[started], NULL, serve_thread, &srv) == 0)
        started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    int rc = 0;
    if (!started) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "cannot start the server's threads");
    } else {
        if (on_ready)
            on_ready(srv.port, ctx);
        while (!*stop)
            poll(NULL, 0, POLL_SLICE_MS); /* a signal ends the wait early */
    }
    atomic_store(&srv.quit, 1);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&srv.save_lock);
    pthread_mutex_destroy(&srv.body_lock);
    close(s);
    return rc;
}
