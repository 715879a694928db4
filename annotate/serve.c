/* annotate/serve.c — the tiny HTTP server of pagesift-annotate --serve: the
 * workspace's files for a browser on the same machine, and POST /save to
 * write the labels straight into the workspace folder.
 *
 * Bounded on purpose: listens on 127.0.0.1 only; one connection at a time;
 * each request whole — head, body and response — within 10 s of its
 * accept (a deadline for the request, not a timeout per read: before, a
 * client sending a header line every second held the server for 68 s;
 * issue 32, defect 7); a head of at most 16 KB; bodies of at most 256 MB;
 * GET paths of [A-Za-z0-9._/-] only, no segment starting with '.',
 * resolved with realpath and required to stay inside the folder; exactly
 * one Host header, naming this server (a DNS-rebinding page cannot reach
 * it; two Host headers, or two Content-Length, are refused whatever their
 * order) and /save needs the header X-Pagesift: save, which a page of
 * another origin cannot send without a CORS preflight that this server
 * never grants. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
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
#define BODY_MAX ((size_t)256 << 20)
#define IO_TIMEOUT_S 10

typedef struct req {
    char method[8];
    char path[1024];
    char host[256];
    char xps[32];
    size_t content_length;
    int has_length;
    int has_host;
} req;

/* The deadline of the request being served (CLOCK_MONOTONIC seconds). */
static double request_deadline;

/* Wait until @p fd is ready for @p events or the request's deadline has
 * passed: 1 ready, 0 deadline (or error). */
static int wait_fd(int fd, short events)
{
    for (;;) {
        double left = request_deadline - ps_now();
        if (left <= 0)
            return 0;
        struct pollfd pfd = {.fd = fd, .events = events};
        int r = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        return r > 0;
    }
}

/* recv under the request's deadline: -1 when it has passed. */
static ssize_t recv_dl(int fd, void *buf, size_t n)
{
    for (;;) {
        if (!wait_fd(fd, POLLIN))
            return -1;
        ssize_t r = recv(fd, buf, n, MSG_DONTWAIT);
        if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        return r;
    }
}

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        if (!wait_fd(fd, POLLOUT))
            return -1;
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static void respond(int fd, int code, const char *reason, const char *type, const void *body,
                    size_t len, int head_only)
{
    char h[512];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
                     "Referrer-Policy: no-referrer\r\nConnection: close\r\n\r\n",
                     code, reason, type, len);
    if (send_all(fd, h, (size_t)n) == 0 && !head_only && len)
        send_all(fd, body, len);
}

static void respond_text(int fd, int code, const char *reason, const char *msg)
{
    respond(fd, code, reason, "text/plain; charset=utf-8", msg, strlen(msg), 0);
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
static ssize_t read_head(int fd, char *buf, size_t cap, size_t *got)
{
    *got = 0;
    while (*got < cap - 1) {
        ssize_t r = recv_dl(fd, buf + *got, cap - 1 - *got);
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

static void serve_file(int fd, const char *root, const req *r, int head_only)
{
    char path[PATH_MAX + 1100], real[PATH_MAX];
    const char *rel = r->path;
    char *q = strchr(r->path, '?');
    char clean[1024];
    snprintf(clean, sizeof clean, "%.*s", q ? (int)(q - r->path) : (int)strlen(r->path), r->path);
    rel = clean;
    if (strcmp(rel, "/") == 0)
        rel = "/index.html";
    if (!safe_path(rel)) {
        respond_text(fd, 400, "Bad Request", "bad path\n");
        return;
    }
    snprintf(path, sizeof path, "%s%s", root, rel);
    size_t rl = strlen(root);
    struct stat st;
    if (!realpath(path, real) || strncmp(real, root, rl) != 0 || real[rl] != '/' ||
        stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        respond_text(fd, 404, "Not Found", "not found\n");
        return;
    }
    size_t len;
    ps_error e = {0};
    char *data = ps_read_file(real, (size_t)1 << 30, &len, &e);
    if (!data) {
        respond_text(fd, 500, "Internal Server Error", "cannot read the file\n");
        return;
    }
    respond(fd, 200, "OK", mime(real), data, len, head_only);
    free(data);
}

static void save(int fd, const char *root, const char *body, size_t len, FILE *log)
{
    json_error_t je;
    json_t *j = json_loadb(body, len, 0, &je);
    json_t *labels = j ? json_object_get(j, "labels") : NULL;
    json_t *csv = j ? json_object_get(j, "csv") : NULL;
    const char *fmt = json_string_value(json_object_get(labels, "format"));
    if (!labels || !fmt || strcmp(fmt, "pagesift-annotate-labels") != 0 ||
        (csv && !json_is_string(csv))) {
        json_decref(j);
        respond_text(fd, 400, "Bad Request",
                     "expected {\"labels\": {\"format\": \"pagesift-annotate-labels\", ...}, "
                     "\"csv\": \"...\"}\n");
        return;
    }
    char path[PATH_MAX + 32];
    ps_error err = {0};
    char *lj = json_dumps(labels, JSON_INDENT(1) | JSON_SORT_KEYS);
    int bad = !lj;
    if (lj) {
        size_t n = strlen(lj);
        snprintf(path, sizeof path, "%s/labels.json", root);
        ps_buf b = {0};
        bad = ps_buf_append(&b, lj, n) || ps_buf_putc(&b, '\n') ||
              ps_write_file_atomic(path, b.data, b.len, &err);
        ps_buf_free(&b);
        free(lj);
    }
    if (!bad && csv) {
        snprintf(path, sizeof path, "%s/labels.csv", root);
        bad = ps_write_file_atomic(path, json_string_value(csv), json_string_length(csv), &err);
    }
    json_decref(j);
    if (bad) {
        if (log)
            fprintf(log, "pagesift-annotate: save failed: %s\n", err.msg);
        respond_text(fd, 500, "Internal Server Error", "cannot write the files\n");
        return;
    }
    const char *ok = csv ? "{\"ok\":true,\"files\":[\"labels.json\",\"labels.csv\"]}"
                         : "{\"ok\":true,\"files\":[\"labels.json\"]}";
    respond(fd, 200, "OK", "application/json", ok, strlen(ok), 0);
}

static void handle(int fd, const char *root, int port, FILE *log)
{
    request_deadline = ps_now() + IO_TIMEOUT_S;
    char *buf = malloc(HEAD_MAX);
    if (!buf)
        return;
    size_t got;
    ssize_t hl = read_head(fd, buf, HEAD_MAX, &got);
    req r;
    if (hl < 0 || parse_head(buf, &r)) {
        if (hl >= 0 || got)
            respond_text(fd, 400, "Bad Request", "bad request\n");
        free(buf);
        return;
    }
    char h1[64], h2[64];
    snprintf(h1, sizeof h1, "127.0.0.1:%d", port);
    snprintf(h2, sizeof h2, "localhost:%d", port);
    if (log)
        fprintf(log, "%s %s\n", r.method, r.path);
    if (strcmp(r.host, h1) != 0 && strcmp(r.host, h2) != 0) {
        respond_text(fd, 403, "Forbidden", "wrong Host\n");
    } else if (strcmp(r.method, "GET") == 0 || strcmp(r.method, "HEAD") == 0) {
        serve_file(fd, root, &r, r.method[0] == 'H');
    } else if (strcmp(r.method, "POST") == 0 && strcmp(r.path, "/save") == 0) {
        if (strcmp(r.xps, "save") != 0)
            respond_text(fd, 403, "Forbidden", "missing X-Pagesift: save\n");
        else if (!r.has_length)
            respond_text(fd, 411, "Length Required", "Content-Length required\n");
        else if (r.content_length > BODY_MAX)
            respond_text(fd, 413, "Payload Too Large", "body too large\n");
        else {
            char *body = malloc(r.content_length + 1);
            size_t have = got - (size_t)hl;
            if (!body) {
                respond_text(fd, 500, "Internal Server Error", "out of memory\n");
            } else {
                if (have > r.content_length)
                    have = r.content_length;
                memcpy(body, buf + hl, have);
                while (have < r.content_length) {
                    ssize_t n = recv_dl(fd, body + have, r.content_length - have);
                    if (n <= 0)
                        break;
                    have += (size_t)n;
                }
                if (have < r.content_length)
                    respond_text(fd, 400, "Bad Request", "body shorter than Content-Length\n");
                else
                    save(fd, root, body, have, log);
                free(body);
            }
        }
    } else {
        respond_text(fd, 405, "Method Not Allowed", "GET, HEAD or POST /save only\n");
    }
    free(buf);
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
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return ps_set_error(err, PS_ERR_IO, "socket: %s", strerror(errno));
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) || listen(s, 16)) {
        int e = errno;
        close(s);
        return ps_set_error(err, PS_ERR_IO, "cannot listen on 127.0.0.1:%d: %s", port, strerror(e));
    }
    socklen_t sl = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &sl);
    port = ntohs(sa.sin_port);
    if (on_ready)
        on_ready(port, ctx);
    while (!*stop) {
        struct pollfd pfd = {.fd = s, .events = POLLIN};
        int pr = poll(&pfd, 1, 500);
        if (pr <= 0)
            continue; /* timeout or EINTR: check stop */
        int c = accept(s, NULL, NULL);
        if (c < 0)
            continue;
        handle(c, root, port, log);
        close(c);
    }
    close(s);
    return 0;
}
