/* extract/fetch.c — pages fetched over HTTP(S) (pagesift.h, ps_fetch_options;
 * docs/FETCH.md): libcurl's multi interface drives every transfer from the
 * thread that reads the source.  URLs (arguments, a list file, later the
 * pages of sitemaps and feeds) are read lazily into per-host queues, at most
 * QUEUED_CAP at a time; a host gets its robots.txt first, then at most
 * per_host connections and one request start per `delay`; hosts run in
 * parallel up to max_connections.  A finished response goes through the
 * same HTTP payload code as a WARC response record (http_payload.c: status,
 * Content-Type, charset, gzip/deflate), so a page fetched and the same page
 * read back from --warc-out are decoded alike.  Transient failures (HTTP
 * 5xx, 429, connection errors) are retried with exponential backoff; every
 * other outcome is one input: a page, a failed fetch, or a skipped non-HTML
 * response. */
#define _POSIX_C_SOURCE 200809L
#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extract/inputs_internal.h"

#define QUEUED_CAP 20000        /* URLs read ahead into the host queues */
#define ROBOTS_MAX (512 * 1024) /* RFC 9309: at least 500 KiB are parsed */
#define DOC_MAX (64u << 20)     /* a sitemap or feed document, unpacked */
#define MAX_CRAWL_DELAY 60.0

typedef enum { K_PAGE, K_ROBOTS, K_SITEMAP, K_FEED } xfer_kind;

typedef struct fetch_url {
    struct fetch_url *next;
    char *url;
    xfer_kind kind;
    int attempt;        /* retries done */
    double not_before;  /* backoff */
} fetch_url;

typedef struct host {
    struct host *hash_next;
    char *key;          /* scheme://host:port */
    fetch_url *head, *tail;
    size_t queued;
    unsigned active;
    double next_start;
    int robots;         /* 0 not asked, 1 in flight, 2 known */
    ps_robots *rules;
    char robots_msg[320]; /* why every path is disallowed, when it is */
    int listed;         /* in f->ready */
} host;

typedef struct xfer {
    struct xfer *prev, *next; /* the transfers running */
    CURL *easy;
    size_t cap;         /* body bytes allowed */
    host *h;
    fetch_url *u;
    ps_buf head, body, request;
    int too_large;
    double t0;
    char errbuf[CURL_ERROR_SIZE];
} xfer;

typedef struct result {
    struct result *next;
    ps_input in;
    int http_status;
    char *final_url;
    double seconds;
} result;

struct ps_fetcher {
    CURLM *multi;
    xfer *running;
    char **args;
    size_t n_args, next_arg;
    FILE *list;
    int list_stdin;
    char *list_name;
    size_t list_lineno;
    char *line;
    size_t line_cap;
    fetch_url *extra_head, *extra_tail; /* sitemap/feed pages, then sitemaps */
    host **tab;
    size_t tab_cap, n_hosts;
    host **ready;       /* hosts with queued URLs */
    size_t n_ready, ready_cap;
    size_t queued, active;
    result *res_head, *res_tail;
    size_t n_results;
    /* options */
    size_t max_bytes;
    char *user_agent, *token;
    long connect_ms, timeout_ms;
    int retries;
    unsigned per_host, max_conn;
    double delay;
    int ignore_robots;
    char *lastmod_since;
    ps_warc_writer *warc;   /* --warc-out */
    int (*have_output)(void *, const char *);
    void *have_ctx;
    const volatile int *interrupt;
    /* the input last returned */
    ps_fetch_info info;
    char *info_url;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- URLs, hosts ------------------------------------------------------ */

/* "scheme://host:port" of a URL and its path with the query ("/" when
 * empty), malloc'ed.  -1: not a URL curl takes (or no memory). */
static int url_parts(const char *url, char **key, char **path)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *hostname = NULL, *port = NULL, *p = NULL, *q = NULL;
    int rc = -1;
    *key = *path = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &hostname, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PATH, &p, 0) == CURLUE_OK &&
        (!strcmp(scheme, "http") || !strcmp(scheme, "https"))) {
        curl_url_get(u, CURLUPART_QUERY, &q, 0);
        size_t kn = strlen(scheme) + strlen(hostname) + strlen(port) + 5;
        size_t pn = strlen(p) + (q ? strlen(q) + 1 : 0) + 2;
        *key = malloc(kn);
        *path = malloc(pn);
        if (*key && *path) {
            for (char *c = hostname; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            snprintf(*key, kn, "%s://%s:%s", scheme, hostname, port);
            snprintf(*path, pn, "%s%s%s", *p ? p : "/", q ? "?" : "", q ? q : "");
            rc = 0;
        } else {
            free(*key);
            free(*path);
            *key = *path = NULL;
        }
    }
    curl_free(scheme);
    curl_free(hostname);
    curl_free(port);
    curl_free(p);
    curl_free(q);
    curl_url_cleanup(u);
    return rc;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static host *host_get(ps_fetcher *f, const char *key)
{
    if (f->n_hosts * 2 >= f->tab_cap) {
        size_t cap = f->tab_cap ? f->tab_cap * 2 : 256;
        host **t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < f->tab_cap; i++)
            for (host *h = f->tab[i], *nx; h; h = nx) {
                nx = h->hash_next;
                size_t b = hash_str(h->key) & (cap - 1);
                h->hash_next = t[b];
                t[b] = h;
            }
        free(f->tab);
        f->tab = t;
        f->tab_cap = cap;
    }
    size_t b = hash_str(key) & (f->tab_cap - 1);
    for (host *h = f->tab[b]; h; h = h->hash_next)
        if (!strcmp(h->key, key))
            return h;
    host *h = calloc(1, sizeof *h);
    if (!h || !(h->key = strdup(key))) {
        free(h);
        return NULL;
    }
    h->hash_next = f->tab[b];
    f->tab[b] = h;
    f->n_hosts++;
    if (f->ignore_robots)
        h->robots = 2;
    return h;
}

static int list_ready(ps_fetcher *f, host *h)
{
    if (h->listed)
        return 0;
    if (f->n_ready == f->ready_cap) {
        size_t cap = f->ready_cap ? f->ready_cap * 2 : 64;
        host **t = realloc(f->ready, cap * sizeof *t);
        if (!t)
            return -1;
        f->ready = t;
        f->ready_cap = cap;
    }
    f->ready[f->n_ready++] = h;
    h->listed = 1;
    return 0;
}

static void url_free(fetch_url *u)
{
    if (u) {
        free(u->url);
        free(u);
    }
}

/* ---- results ---------------------------------------------------------- */

/* The id of a fetched URL: the URL without its scheme, filename-safe. */
static char *url_id(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    return ps_safe_id(p, n);
}

/* A new result for @p url (id, url, origin set), appended; NULL: no memory. */
static result *result_new(ps_fetcher *f, const char *url)
{
    result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->in.id = url_id(url);
    r->in.url = strdup(url);
    r->in.origin = strdup(url);
    if (!r->in.id || !r->in.url || !r->in.origin) {
        ps_input_clear(&r->in);
        free(r);
        return NULL;
    }
    if (f->res_tail)
        f->res_tail->next = r;
    else
        f->res_head = r;
    f->res_tail = r;
    f->n_results++;
    return r;
}

static int fail_url(ps_fetcher *f, const char *url, ps_status st, ps_error *err, const char *fmt, ...)
    PS_PRINTF(5, 6);
static int fail_url(ps_fetcher *f, const char *url, ps_status st, ps_error *err, const char *fmt, ...)
{
    result *r = result_new(f, url);
    if (!r)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ps_input_fail(&r->in, st, "%.250s: %s", url, msg);
    return 0;
}

/* ---- reading URLs ----------------------------------------------------- */

/* Queue @p url (taken over) of @p kind on its host, or make it a result
 * (not a URL; output there already).  0, or -1 (no memory, err set). */
static int enqueue(ps_fetcher *f, char *url, xfer_kind kind, int front, ps_error *err)
{
    char *key, *path;
    if (url_parts(url, &key, &path)) {
        int rc = fail_url(f, url, PS_ERR_USAGE, err, "not an http:// or https:// URL");
        free(url);
        return rc;
    }
    free(path);
    if (kind == K_PAGE && f->have_output) {
        char *id = url_id(url);
        if (!id) {
            free(key);
            free(url);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        int have = f->have_output(f->have_ctx, id);
        free(id);
        if (have) {
            result *r = result_new(f, url);
            free(key);
            free(url);
            if (!r)
                return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            r->in.skipped = 1;
            snprintf(r->in.msg, sizeof r->in.msg, "output exists (--skip-existing): not fetched");
            return 0;
        }
    }
    host *h = host_get(f, key);
    free(key);
    fetch_url *u = h ? calloc(1, sizeof *u) : NULL;
    if (!u || list_ready(f, h)) {
        free(u);
        free(url);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    u->url = url;
    u->kind = kind;
    if (front) {
        u->next = h->head;
        h->head = u;
        if (!h->tail)
            h->tail = u;
    } else {
        if (h->tail)
            h->tail->next = u;
        else
            h->head = u;
        h->tail = u;
    }
    h->queued++;
    f->queued++;
    return 0;
}

/* The next URL of the arguments, then of the list file: 1 (in *url), 0. */
static int next_input_url(ps_fetcher *f, char **url, ps_error *err)
{
    if (f->next_arg < f->n_args) {
        *url = f->args[f->next_arg];
        f->args[f->next_arg++] = NULL;
        return 1;
    }
    while (f->list) {
        ssize_t n = getline(&f->line, &f->line_cap, f->list);
        if (n < 0) {
            if (!f->list_stdin)
                fclose(f->list);
            f->list = NULL;
            break;
        }
        f->list_lineno++;
        char *s = f->line;
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        if (!(*url = strdup(s)))
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return 1;
    }
    return 0;
}

/* Read URLs into the host queues up to QUEUED_CAP; the pages of sitemaps and
 * feeds come first (they are already in memory).  0 or -1. */
static int fill(ps_fetcher *f, ps_error *err)
{
    while (f->extra_head && f->queued < QUEUED_CAP) {
        fetch_url *u = f->extra_head;
        f->extra_head = u->next;
        if (!f->extra_head)
            f->extra_tail = NULL;
        char *url = u->url;
        xfer_kind kind = u->kind;
        free(u);
        if (enqueue(f, url, kind, 0, err))
            return -1;
    }
    while (f->queued < QUEUED_CAP && f->n_results < 64) {
        char *url;
        int r = next_input_url(f, &url, err);
        if (r <= 0)
            return r;
        if (enqueue(f, url, K_PAGE, 0, err))
            return -1;
    }
    return 0;
}

static int add_url(ps_fetcher *f, const char *url, int is_sitemap, int is_feed)
{
    fetch_url *u = calloc(1, sizeof *u);
    if (!u || !(u->url = strdup(url))) {
        free(u);
        return -1;
    }
    u->kind = is_sitemap ? K_SITEMAP : is_feed ? K_FEED : K_PAGE;
    if (f->extra_tail)
        f->extra_tail->next = u;
    else
        f->extra_head = u;
    f->extra_tail = u;
    return 0;
}

/* A URL of a sitemap or feed: queued behind the ones read so far. */
static int on_sitemap_url(void *ctx, const char *url, ps_sitemap_kind kind)
{
    return add_url(ctx, url, kind == PS_SITEMAP_CHILD, 0);
}

/* ---- transfers -------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (x->body.len + n > x->cap) { /* robots.txt: the first 512 KiB are read */
        if (x->u->kind == K_ROBOTS)
            ps_buf_append(&x->body, p, x->cap - x->body.len);
        else
            x->too_large = 1;
        return 0;
    }
    return ps_buf_append(&x->body, p, n) ? 0 : n;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (n >= 5 && !memcmp(p, "HTTP/", 5)) /* a new response: a redirect's next hop, or after 100 */
        x->head.len = 0;
    if (x->head.len + n > (1u << 20))
        return 0;
    return ps_buf_append(&x->head, p, n) ? 0 : n;
}

/* The request headers as sent (the last request: the one of the final
 * response), for the WARC request record. */
static int on_debug(CURL *e, curl_infotype type, char *p, size_t n, void *ud)
{
    (void)e;
    xfer *x = ud;
    if (type == CURLINFO_HEADER_OUT) {
        x->request.len = 0;
        if (n < (1u << 20))
            ps_buf_append(&x->request, p, n);
    }
    return 0;
}

static int start(ps_fetcher *f, host *h, fetch_url *u, double now, ps_error *err)
{
    xfer *x = calloc(1, sizeof *x);
    CURL *e = x ? curl_easy_init() : NULL;
    if (!e) {
        free(x);
        return ps_set_error(err, PS_ERR_NOMEM, "cannot start a transfer (out of memory)");
    }
    x->easy = e;
    x->h = h;
    x->u = u;
    x->t0 = now;
    x->cap = u->kind == K_ROBOTS ? ROBOTS_MAX : u->kind == K_PAGE ? f->max_bytes : DOC_MAX;
    curl_easy_setopt(e, CURLOPT_URL, u->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, x);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
    curl_easy_setopt(e, CURLOPT_DEBUGDATA, x);
    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L); /* the debug callback: request headers */
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    /* the codings http_payload.c decodes, as for a WARC record's body:
     * the bytes kept are the bytes sent (br and zstd: smaller than gzip) */
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip, deflate, br, zstd");
    curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(e, CURLOPT_HTTP_TRANSFER_DECODING, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(e, CURLOPT_USERAGENT, f->user_agent);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, f->connect_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, f->timeout_ms);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    if (u->kind == K_PAGE)
        curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)f->max_bytes);
    if (curl_multi_add_handle(f->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        free(x);
        return ps_set_error(err, PS_ERR_NOMEM, "cannot start a transfer");
    }
    x->next = f->running;
    if (f->running)
        f->running->prev = x;
    f->running = x;
    h->active++;
    f->active++;
    double delay = f->delay;
    if (h->rules && ps_robots_crawl_delay(h->rules) > delay)
        delay = fmin(ps_robots_crawl_delay(h->rules), MAX_CRAWL_DELAY);
    h->next_start = now + delay;
    return 0;
}

/* Start what may start now.  *wait gets the seconds until something queued
 * may start (a host's delay, a backoff), HUGE_VAL when nothing waits. */
static int start_ready(ps_fetcher *f, double *wait, ps_error *err)
{
    double now = now_s();
    *wait = HUGE_VAL;
    for (size_t i = 0; i < f->n_ready && f->active < f->max_conn;) {
        host *h = f->ready[i];
        if (!h->head) { /* nothing queued: off the list */
            h->listed = 0;
            f->ready[i] = f->ready[--f->n_ready];
            continue;
        }
        i++;
        if (h->robots == 1)
            continue;
        if (h->active >= f->per_host)
            continue;
        double at = fmax(h->next_start, h->head->not_before);
        if (at > now) {
            *wait = fmin(*wait, at - now);
            continue;
        }
        if (h->robots == 0) { /* robots.txt first */
            fetch_url *r = calloc(1, sizeof *r);
            size_t n = strlen(h->key) + 16;
            if (!r || !(r->url = malloc(n))) {
                free(r);
                return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            }
            /* the key holds the default port too: curl takes it */
            snprintf(r->url, n, "%s/robots.txt", h->key);
            r->kind = K_ROBOTS;
            h->robots = 1;
            if (start(f, h, r, now, err)) {
                url_free(r);
                return -1;
            }
            continue;
        }
        fetch_url *u = h->head;
        h->head = u->next;
        if (!h->head)
            h->tail = NULL;
        u->next = NULL;
        h->queued--;
        f->queued--;
        char *key = NULL, *path = NULL;
        if (h->rules && url_parts(u->url, &key, &path) == 0 && !ps_robots_allowed(h->rules, path)) {
            int rc = h->robots_msg[0]
                         ? fail_url(f, u->url, PS_ERR_IO, err, "%s", h->robots_msg)
                         : fail_url(f, u->url, PS_ERR_IO, err,
                                    "disallowed by robots.txt for user-agent %s: not fetched", f->token);
            free(key);
            free(path);
            url_free(u);
            if (rc)
                return -1;
            i--; /* this host again: its next URL may start at once */
            continue;
        }
        free(key);
        free(path);
        if (start(f, h, u, now, err)) {
            url_free(u);
            return -1;
        }
        if (h->active < f->per_host && h->next_start <= now)
            i--;
    }
    return 0;
}

static int transient_status(long st)
{
    return st == 429 || (st >= 500 && st <= 599);
}

static int transient_error(CURLcode c)
{
    return c == CURLE_COULDNT_CONNECT || c == CURLE_SEND_ERROR || c == CURLE_RECV_ERROR ||
           c == CURLE_GOT_NOTHING || c == CURLE_PARTIAL_FILE || c == CURLE_HTTP2 ||
           c == CURLE_HTTP2_STREAM;
}

/* A transfer's end, whatever became of it: off the multi handle, freed. */
static void xfer_free(ps_fetcher *f, xfer *x)
{
    curl_multi_remove_handle(f->multi, x->easy);
    curl_easy_cleanup(x->easy);
    url_free(x->u);
    ps_buf_free(&x->head);
    ps_buf_free(&x->body);
    ps_buf_free(&x->request);
    free(x);
}

/* The response block as a WARC response record holds it: the final
 * response's header fields, Transfer-Encoding renamed (curl undid the
 * chunking, the body is the content as sent), then the body. */
static int response_block(xfer *x, ps_buf *out)
{
    const char *p = x->head.data ? x->head.data : "", *end = p + x->head.len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        eol = eol ? eol + 1 : end;
        if ((size_t)(eol - p) > 18 && !ps_ascii_ncasecmp(p, "transfer-encoding:", 18)) {
            if (ps_buf_append(out, "X-Pagesift-Original-", 20))
                return -1;
        }
        if (ps_buf_append(out, p, (size_t)(eol - p)))
            return -1;
        p = eol;
    }
    if (!x->head.len && ps_buf_append(out, "HTTP/1.1 200 OK\r\n\r\n", 19))
        return -1;
    return x->body.len ? ps_buf_append(out, x->body.data, x->body.len) : 0;
}

/* Retry @p x's URL after a backoff: 1, 2, 4 ... s, or Retry-After (up to
 * 60 s).  Returns 1 when queued again, 0 when no retry is left. */
static int retry(ps_fetcher *f, xfer *x, double now)
{
    if (x->u->attempt >= f->retries || x->u->kind == K_ROBOTS)
        return 0;
    double wait = ldexp(1.0, x->u->attempt);
    curl_off_t ra = 0;
    if (curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
        wait = fmin((double)ra, 60.0);
    x->u->attempt++;
    x->u->not_before = now + wait;
    host *h = x->h;
    x->u->next = h->head;
    h->head = x->u;
    if (!h->tail)
        h->tail = x->u;
    h->queued++;
    f->queued++;
    x->u = NULL;
    return list_ready(f, h) ? 0 : 1;
}

static void robots_done(ps_fetcher *f, xfer *x, CURLcode code, long status)
{
    host *h = x->h;
    h->robots = 2;
    if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && x->body.len >= ROBOTS_MAX)) {
        if (status >= 200 && status <= 299)
            h->rules = ps_robots_parse(x->body.data ? x->body.data : "", x->body.len, f->token);
        else if (status >= 400 && status <= 499) /* RFC 9309: unavailable, no rules */
            h->rules = ps_robots_new_all(1);
        else
            snprintf(h->robots_msg, sizeof h->robots_msg,
                     "robots.txt of the host answered HTTP %ld: the host is not fetched (RFC 9309)", status);
    } else {
        snprintf(h->robots_msg, sizeof h->robots_msg,
                 "robots.txt of the host could not be fetched (%.120s): the host is not fetched (RFC 9309)",
                 x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
    }
    if (!h->rules)
        h->rules = ps_robots_new_all(0);
}

static int transfer_done(ps_fetcher *f, xfer *x, CURLcode code, ps_error *err)
{
    double now = now_s();
    long status = 0;
    char *eff = NULL;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
    host *h = x->h;
    h->active--;
    f->active--;
    int rc = 0;
    ps_buf block = {0};
    int have_block = (code == CURLE_OK || (code == CURLE_WRITE_ERROR && x->u->kind == K_ROBOTS)) &&
                     x->head.len;
    if (have_block && response_block(x, &block)) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    if (f->warc && have_block) { /* every response, as it is decoded below */
        char *ip = NULL;
        curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip);
        if (ps_warc_writer_add(f->warc, eff ? eff : x->u->url, ip, x->request.data, x->request.len, block.data,
                               block.len, err)) {
            rc = -1;
            goto out;
        }
    }
    if (x->u->kind == K_ROBOTS) {
        robots_done(f, x, code, status);
        goto out;
    }
    if (code != CURLE_OK) {
        if (transient_error(code) && retry(f, x, now))
            goto out;
        if (x->too_large || code == CURLE_FILESIZE_EXCEEDED)
            rc = fail_url(f, x->u->url, PS_ERR_TOO_LARGE, err,
                          "response larger than the limit of %zu bytes (--max-bytes)", f->max_bytes);
        else if (code == CURLE_OPERATION_TIMEDOUT)
            rc = fail_url(f, x->u->url, PS_ERR_IO, err, "timed out (%s; --timeout, --connect-timeout)",
                          x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
        else
            rc = fail_url(f, x->u->url, PS_ERR_IO, err, "%s%s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(code),
                          x->u->attempt ? " (after retries)" : "");
        goto out;
    }
    if (transient_status(status) && retry(f, x, now))
        goto out;
    if (x->u->kind == K_SITEMAP || x->u->kind == K_FEED) {
        const char *what = x->u->kind == K_SITEMAP ? "sitemap" : "feed";
        if (status < 200 || status > 299) {
            rc = fail_url(f, x->u->url, PS_ERR_IO, err, "HTTP %ld for the %s", status, what);
        } else {
            char msg[256];
            size_t n = 0;
            int kind = ps_sitemap_parse(x->body.data ? x->body.data : "", x->body.len, eff ? eff : x->u->url,
                                        f->lastmod_since, on_sitemap_url, f, &n, msg, sizeof msg);
            if (kind == -2)
                rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            else if (kind < 0)
                rc = fail_url(f, x->u->url, PS_ERR_FORMAT, err, "not a %s: %s", what, msg);
        }
        goto out;
    }
    result *r = result_new(f, x->u->url);
    if (!r) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    r->http_status = (int)status;
    r->final_url = eff ? strdup(eff) : NULL;
    if (eff && strcmp(eff, r->in.url)) { /* the page is where it ended: its links, site, URL features */
        char *u = strdup(eff);
        if (u) {
            free(r->in.url);
            r->in.url = u;
        }
    }
    r->seconds = now - x->t0;
    if (status < 200 || status > 299) {
        ps_input_fail(&r->in, PS_ERR_IO, "%.250s: HTTP %ld%s", x->u->url, status,
                      x->u->attempt ? " (after retries)" : "");
    } else if (ps_http_payload(block.data, block.len, 1, block.len, f->max_bytes, &r->in) < 0) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
out:
    ps_buf_free(&block);
    if (x->prev)
        x->prev->next = x->next;
    else
        f->running = x->next;
    if (x->next)
        x->next->prev = x->prev;
    xfer_free(f, x);
    return rc;
}

/* ---- the fetcher -------------------------------------------------------- */

ps_fetcher *ps_fetcher_new(const char *const *urls, size_t n, const ps_fetch_options *fo,
                           size_t max_bytes, ps_error *err)
{
    static const ps_fetch_options none = {0};
    if (!fo)
        fo = &none;
    static int inited;
    if (!inited) { /* not thread-safe in old libcurl: the first source is opened before threads */
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            ps_set_error(err, PS_ERR_IO, "libcurl could not be initialised");
            return NULL;
        }
        inited = 1;
    }
    ps_fetcher *f = calloc(1, sizeof *f);
    if (!f || !(f->multi = curl_multi_init()) || !(f->args = calloc(n + 1, sizeof *f->args)))
        goto nomem;
    for (; f->n_args < n; f->n_args++)
        if (!(f->args[f->n_args] = strdup(urls[f->n_args])))
            goto nomem;
    f->max_bytes = max_bytes;
    f->connect_ms = (long)((fo->connect_timeout > 0 ? fo->connect_timeout : 10) * 1000);
    f->timeout_ms = (long)((fo->timeout > 0 ? fo->timeout : 30) * 1000);
    f->retries = fo->retries == 0 ? 2 : fo->retries < 0 ? 0 : fo->retries;
    f->per_host = fo->per_host ? fo->per_host : 2;
    f->max_conn = fo->max_connections ? fo->max_connections : 64;
    f->delay = fo->delay == 0 ? 1.0 : fo->delay < 0 ? 0 : fo->delay;
    f->ignore_robots = fo->ignore_robots;
    f->have_output = fo->have_output;
    f->have_ctx = fo->have_output_ctx;
    f->interrupt = fo->interrupt;
    const char *ua = fo->user_agent && *fo->user_agent ? fo->user_agent : NULL;
    char ua_buf[512];
    if (!ua) {
        snprintf(ua_buf, sizeof ua_buf, "pagesift/%s", ps_version());
        ua = ua_buf;
    }
    size_t un = strlen(ua) + (fo->contact ? strlen(fo->contact) + 8 : 0) + 1;
    if (!(f->user_agent = malloc(un)))
        goto nomem;
    if (fo->contact && *fo->contact)
        snprintf(f->user_agent, un, "%s (+%s)", ua, fo->contact);
    else
        snprintf(f->user_agent, un, "%s", ua);
    size_t tn = strcspn(ua, "/ ");
    if (!(f->token = strndup(ua, tn ? tn : strlen(ua))))
        goto nomem;
    if (fo->lastmod_since && !(f->lastmod_since = strdup(fo->lastmod_since)))
        goto nomem;
    if (fo->warc_out && !(f->warc = ps_warc_writer_open(fo->warc_out, f->user_agent, err))) {
        ps_fetcher_free(f);
        return NULL;
    }
    curl_multi_setopt(f->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)f->max_conn);
    curl_multi_setopt(f->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)f->per_host);
    if (fo->urls_file) {
        f->list_stdin = !strcmp(fo->urls_file, "-");
        f->list = f->list_stdin ? stdin : fopen(fo->urls_file, "r");
        if (!f->list) {
            ps_set_error(err, PS_ERR_IO, "%s: %s", fo->urls_file, strerror(errno));
            ps_fetcher_free(f);
            return NULL;
        }
    }
    for (size_t i = 0; i < fo->n_sitemaps; i++)
        if (add_url(f, fo->sitemaps[i], 1, 0))
            goto nomem;
    for (size_t i = 0; i < fo->n_feeds; i++)
        if (add_url(f, fo->feeds[i], 0, 1))
            goto nomem;
    return f;
nomem:
    ps_fetcher_free(f);
    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return NULL;
}

/* The transfers that finished: 1 when some did, 0 none, -1 fatal. */
static int collect(ps_fetcher *f, ps_error *err)
{
    CURLMsg *m;
    int left, done = 0;
    while ((m = curl_multi_info_read(f->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        xfer *x = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        if (transfer_done(f, x, m->data.result, err))
            return -1;
        done = 1;
    }
    return done;
}

int ps_fetcher_next(ps_fetcher *f, ps_input *in, ps_error *err)
{
    ps_input_clear(in);
    free(f->info_url);
    f->info_url = NULL;
    memset(&f->info, 0, sizeof f->info);
    /* transfers go on while results wait to be taken: one step that does
     * not block, then the first result */
    if (f->active) {
        int running = 0;
        double wait;
        CURLMcode mc = curl_multi_perform(f->multi, &running);
        if (mc != CURLM_OK)
            return ps_set_error(err, PS_ERR_IO, "libcurl: %s", curl_multi_strerror(mc));
        if (collect(f, err) < 0 || fill(f, err) || start_ready(f, &wait, err))
            return -1;
    }
    for (;;) {
        if (f->res_head) {
            result *r = f->res_head;
            f->res_head = r->next;
            if (!f->res_head)
                f->res_tail = NULL;
            f->n_results--;
            *in = r->in;
            f->info.http_status = r->http_status;
            f->info.final_url = f->info_url = r->final_url;
            f->info.fetch_seconds = r->seconds;
            free(r);
            return 1;
        }
        if (f->interrupt && *f->interrupt)
            return 0; /* stopped: what is in flight is dropped with the fetcher */
        if (fill(f, err))
            return -1;
        if (f->res_head)
            continue;
        double wait;
        if (start_ready(f, &wait, err))
            return -1;
        if (f->res_head)
            continue;
        if (!f->active && !f->queued && !f->extra_head && f->next_arg >= f->n_args && !f->list)
            return 0;
        int running = 0;
        CURLMcode mc = curl_multi_perform(f->multi, &running);
        if (mc != CURLM_OK)
            return ps_set_error(err, PS_ERR_IO, "libcurl: %s", curl_multi_strerror(mc));
        int done = collect(f, err);
        if (done < 0)
            return -1;
        if (done || f->res_head)
            continue;
        int ms = wait == HUGE_VAL ? 1000 : (int)ceil(wait * 1000);
        if (ms > 1000)
            ms = 1000;
        if (ms < 1)
            ms = 1;
        if (f->active)
            curl_multi_poll(f->multi, NULL, 0, ms, NULL);
        else {
            struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

const ps_fetch_info *ps_fetcher_info(const ps_fetcher *f)
{
    return f ? &f->info : NULL;
}

void ps_fetcher_free(ps_fetcher *f)
{
    if (!f)
        return;
    if (f->multi) {
        for (xfer *x = f->running, *nx; x; x = nx) {
            nx = x->next;
            xfer_free(f, x);
        }
        curl_multi_cleanup(f->multi);
    }
    for (size_t i = 0; i < f->n_args; i++)
        free(f->args ? f->args[i] : NULL);
    free(f->args);
    if (f->list && !f->list_stdin)
        fclose(f->list);
    free(f->line);
    free(f->list_name);
    for (fetch_url *u = f->extra_head, *nx; u; u = nx) {
        nx = u->next;
        url_free(u);
    }
    for (size_t i = 0; i < f->tab_cap; i++)
        for (host *h = f->tab[i], *nx; h; h = nx) {
            nx = h->hash_next;
            for (fetch_url *u = h->head, *un; u; u = un) {
                un = u->next;
                url_free(u);
            }
            ps_robots_free(h->rules);
            free(h->key);
            free(h);
        }
    free(f->tab);
    free(f->ready);
    for (result *r = f->res_head, *nx; r; r = nx) {
        nx = r->next;
        ps_input_clear(&r->in);
        free(r->final_url);
        free(r);
    }
    free(f->user_agent);
    free(f->token);
    free(f->lastmod_since);
    free(f->info_url);
    ps_warc_writer_close(f->warc);
    free(f);
}
