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
 * serialised: labels.json and labels.csv of one save are written (each
 * atomically) before the next save writes, so the pair on disk always comes
 * from the same save. */
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

/* Write labels.json (and labels.csv when given) into the workspace, each
 * atomically, under the save lock: the pair on disk comes from one save. */
static int write_labels(server *srv, const char *labels_json, const json_t *csv, ps_error *err)
{
    char path[PATH_MAX + 32];
    ps_buf b = {0};
    int bad = ps_buf_append(&b, labels_json, strlen(labels_json)) || ps_buf_putc(&b, '\n');
    if (bad) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_lock(&srv->save_lock);
    snprintf(path, sizeof path, "%s/labels.json", srv->root);
    bad = ps_write_file_atomic(path, b.data, b.len, err);
    if (!bad && csv) {
        snprintf(path, sizeof path, "%s/labels.csv", srv->root);
        bad = ps_write_file_atomic(path, json_string_value(csv), json_string_length(csv), err);
    }
    pthread_mutex_unlock(&srv->save_lock);
    ps_buf_free(&b);
    return bad ? -1 : 0;
}

static void save(conn *c, const char *body, size_t len)
{
    json_error_t je;
    json_t *j = json_loadb(body, len, 0, &je);
    json_t *labels = j ? json_object_get(j, "labels") : NULL;
    json_t *csv = j ? json_object_get(j, "csv") : NULL;
    const char *fmt = json_string_value(json_object_get(labels, "format"));
    if (!labels || !fmt || strcmp(fmt, "pagesift-annotate-labels") != 0 ||
        (csv && !json_is_string(csv))) {
        json_decref(j);
        respond_text(c, 400, "Bad Request",
                     "expected {\"labels\": {\"format\": \"pagesift-annotate-labels\", ...}, "
                     "\"csv\": \"...\"}\n");
        return;
    }
    ps_error err = {0};
    char *lj = json_dumps(labels, JSON_INDENT(1) | JSON_SORT_KEYS);
    int bad = lj ? write_labels(c->srv, lj, csv, &err) : ps_set_error(&err, PS_ERR_NOMEM, "out of memory");
    free(lj);
    json_decref(j);
    if (bad) {
        if (c->srv->log)
            fprintf(c->srv->log, "pagesift-annotate: save failed: %s\n", err.msg);
        respond_text(c, 500, "Internal Server Error", "cannot write the files\n");
        return;
    }
    const char *ok = csv ? "{\"ok\":true,\"files\":[\"labels.json\",\"labels.csv\"]}"
                         : "{\"ok\":true,\"files\":[\"labels.json\"]}";
    respond(c, 200, "OK", "application/json", ok, strlen(ok));
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
