/* extract/inputs.c — ps_source (pagesift.h, [INPUTS]): the one streaming
 * source of pages every tool reads.  Arguments are taken in order, lazily;
 * each is a page file, a WARC file (warc.c), a folder searched recursively
 * (dirwalk.c), a data set folder (extract/dataset.c), or "-" for stdin
 * (JSON Lines in jsonl_input.c, a WARC stream, or one page); then the lines
 * of the list file.  Whatever goes wrong with one input becomes a failed
 * ps_input naming it; only running out of memory is fatal. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extract/inputs_internal.h"

struct ps_source {
    char **args;
    size_t n_args, next_arg;
    size_t max_bytes;
    int jsonl_stdin;
    ps_fold fold;            /* data set pages: this site fold only */
    int stdin_used;
    size_t total;            /* ps_source_total_hint */
    /* the producer of the current argument, at most one of each */
    ps_dirwalk *walk;
    ps_warc *warc;
    ps_jsonl *jsonl;
    ps_dataset *ds;
    size_t ds_next;
    /* the list file, read after the arguments */
    FILE *list;
    char *list_path, *list_dir;
    size_t list_lineno;
    char *list_line;
    size_t list_cap;
};

/* ---- ps_input helpers ------------------------------------------------- */

void ps_input_clear(ps_input *in)
{
    if (!in)
        return;
    free(in->id);
    free(in->url);
    free(in->charset);
    free(in->origin);
    free(in->gold_path);
    free(in->site);
    free(in->dataset);
    free(in->data);
    memset(in, 0, sizeof *in);
}

void ps_input_fail(ps_input *in, ps_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    in->status = st;
    vsnprintf(in->msg, sizeof in->msg, fmt, ap);
    va_end(ap);
    free(in->data);
    in->data = NULL;
    in->len = 0;
}

char *ps_safe_id(const char *s, size_t n)
{
    enum { MAX_ID = 200, KEEP = MAX_ID - 17 };
    if (n > MAX_ID) { /* file names have a limit: keep the start and a hash of the whole */
        char *id = ps_safe_id(s, KEEP);
        if (id)
            snprintf(id + KEEP, 18, "-%016llx", (unsigned long long)ps_hash64(s, n));
        return id;
    }
    char *id = malloc(n > MAX_ID - 18 ? MAX_ID + 1 : n + 2);
    if (!id)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        id[i] = ok ? c : '_';
    }
    if (!n)
        id[n++] = '_';
    id[n] = '\0';
    return id;
}

/* The id of a file: its path (relative to the searched folder, or its base
 * name) without the extension. */
static char *file_id(const char *path, int whole_path)
{
    const char *slash = strrchr(path, '/');
    const char *base = whole_path || !slash ? path : slash + 1;
    const char *name = slash && slash + 1 > base ? slash + 1 : base; /* the last component */
    const char *dot = strrchr(name, '.');
    size_t n = dot && dot > name ? (size_t)(dot - base) : strlen(base);
    return ps_safe_id(base, n);
}

static char *path_join(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || !*dir)
        return strdup(rel);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

/* ---- pages from files ------------------------------------------------- */

/* A page file.  id, url, gold: may be NULL.  Returns 1, or -1 (no memory). */
static int page_from_file(ps_source *src, const char *path, char *id, const char *url,
                          const char *gold, ps_input *in, ps_error *err)
{
    in->id = id ? id : file_id(path, 0);
    in->origin = strdup(path);
    in->url = strdup(url ? url : "");
    in->gold_path = gold ? strdup(gold) : NULL;
    if (!in->id || !in->origin || !in->url || (gold && !in->gold_path))
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", path);
    ps_error e = {0};
    in->data = ps_read_file(path, src->max_bytes, &in->len, &e);
    if (!in->data) {
        if (e.code == PS_ERR_NOMEM)
            return ps_set_error(err, PS_ERR_NOMEM, "%s", e.msg);
        ps_input_fail(in, e.code, "%s", e.msg);
    }
    return 1;
}

/* A failed input for @p path. */
static int failed_input(const char *path, ps_status st, const char *msg, ps_input *in, ps_error *err)
{
    in->id = file_id(path, 0);
    in->origin = strdup(path);
    in->url = strdup("");
    if (!in->id || !in->origin || !in->url)
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", path);
    ps_input_fail(in, st, "%s", msg);
    return 1;
}

/* ---- WARC files, data sets -------------------------------------------- */

/* Start reading a WARC file from an open stream.  0, or -1 (no memory). */
static int start_warc(ps_source *src, ps_instream *s, const char *name, ps_error *err)
{
    src->warc = ps_warc_new(s, name, src->max_bytes);
    return src->warc ? 0 : ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", name);
}

/* Open @p path as a WARC: 0 started, 1 *in filled (cannot open), -1. */
static int open_warc(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    ps_error e = {0};
    ps_instream *s = ps_instream_open(path, &e);
    if (!s)
        return e.code == PS_ERR_NOMEM ? ps_set_error(err, e.code, "%s", e.msg)
                                      : failed_input(path, e.code, e.msg, in, err);
    return start_warc(src, s, path, err);
}

static int open_dataset(ps_source *src, const char *dir, ps_input *in, ps_error *err)
{
    ps_error e = {0};
    src->ds = ps_dataset_load(dir, &e);
    src->ds_next = 0;
    if (src->ds) {
        ps_dataset_filter(src->ds, &src->fold);
        return 0;
    }
    if (e.code == PS_ERR_NOMEM)
        return ps_set_error(err, e.code, "%s", e.msg);
    return failed_input(dir, e.code, e.msg, in, err);
}

static int dataset_page(ps_source *src, ps_input *in, ps_error *err)
{
    const ps_dataset_page *p = &src->ds->pages[src->ds_next++];
    char *id = ps_safe_id(p->id, strlen(p->id));
    if (!id)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    /* a snippet set has no gold file: its snippets instead */
    int r = page_from_file(src, p->html_path, id, p->url, p->snippets ? NULL : p->gold_path, in, err);
    if (r < 0)
        return r;
    in->snippets = p->snippets;
    in->dataset = strdup(src->ds->name);
    in->site = *p->site ? strdup(p->site) : NULL;
    if (!in->dataset || (*p->site && !in->site))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 1;
}

/* ---- stdin ------------------------------------------------------------ */

/* One page read from a stream up to its end. */
static int page_from_stream(ps_source *src, ps_instream *s, ps_input *in, ps_error *err)
{
    ps_buf b = {0};
    in->id = strdup("stdin");
    in->origin = strdup("stdin");
    in->url = strdup("");
    if (!in->id || !in->origin || !in->url)
        return ps_set_error(err, PS_ERR_NOMEM, "stdin: out of memory");
    for (;;) {
        if (ps_buf_reserve(&b, 65536)) {
            ps_buf_free(&b);
            return ps_set_error(err, PS_ERR_NOMEM, "stdin: out of memory");
        }
        size_t n = ps_instream_read(s, b.data + b.len, b.cap - b.len - 1, NULL);
        b.len += n;
        b.data[b.len] = '\0';
        if (b.len > src->max_bytes) {
            ps_buf_free(&b);
            ps_input_fail(in, PS_ERR_TOO_LARGE, "stdin: page larger than the limit of %zu bytes", src->max_bytes);
            return 1;
        }
        if (n == 0)
            break;
    }
    if (ps_instream_error(s)[0]) {
        ps_buf_free(&b);
        ps_input_fail(in, PS_ERR_IO, "%s", ps_instream_error(s));
        return 1;
    }
    if (!b.data && !(b.data = calloc(1, 1)))
        return ps_set_error(err, PS_ERR_NOMEM, "stdin: out of memory");
    in->data = ps_buf_take(&b, &in->len);
    return 1;
}

static int starts_warc(ps_instream *s)
{
    size_t n;
    const unsigned char *p = ps_instream_peek(s, 5, &n);
    return p && n >= 5 && !memcmp(p, "WARC/", 5);
}

/* A file not named .warc/.warc.gz is a WARC when it starts with "WARC/",
 * or is gzip and inflates to "WARC/".  Returns the stream positioned at the
 * start when it is, else NULL (page files are not inflated). */
static ps_instream *open_if_warc(const char *path)
{
    unsigned char head[5] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    int gz = n >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    if (!gz && (n < 5 || memcmp(head, "WARC/", 5)))
        return NULL;
    ps_instream *s = ps_instream_open(path, NULL);
    if (s && !starts_warc(s)) {
        ps_instream_free(s);
        s = NULL;
    }
    return s;
}

static int open_stdin(ps_source *src, ps_input *in, ps_error *err)
{
    if (src->stdin_used)
        return failed_input("-", PS_ERR_USAGE, "stdin (\"-\") given more than once", in, err);
    src->stdin_used = 1;
    ps_error e = {0};
    ps_instream *s = ps_instream_open("-", &e);
    if (!s)
        return ps_set_error(err, e.code, "%s", e.msg);
    if (src->jsonl_stdin) {
        src->jsonl = ps_jsonl_new(s, "stdin", src->max_bytes);
        return src->jsonl ? 0 : ps_set_error(err, PS_ERR_NOMEM, "stdin: out of memory");
    }
    if (starts_warc(s))
        return start_warc(src, s, "stdin", err);
    int r = page_from_stream(src, s, in, err);
    ps_instream_free(s);
    return r;
}

/* ---- arguments -------------------------------------------------------- */

/* 1: *in filled, 0: a producer was started, -1: fatal. */
static int open_arg(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    if (!strcmp(path, "-"))
        return open_stdin(src, in, err);
    struct stat st;
    if (stat(path, &st) != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: %s", path, strerror(errno));
        return failed_input(path, PS_ERR_IO, msg, in, err);
    }
    if (S_ISDIR(st.st_mode)) {
        if (ps_is_dataset_dir(path))
            return open_dataset(src, path, in, err);
        src->walk = ps_dirwalk_new(path);
        return src->walk ? 0 : ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    if (ps_warc_name(path))
        return open_warc(src, path, in, err);
    ps_instream *s = open_if_warc(path);
    if (s)
        return start_warc(src, s, path, err);
    return page_from_file(src, path, NULL, NULL, NULL, in, err);
}

/* The next entry of the folder walk: 1, 0 (started a producer or the walk
 * ended), -1. */
static int walk_next(ps_source *src, ps_input *in, ps_error *err)
{
    const char *path = NULL, *rel = NULL;
    char msg[512];
    switch (ps_dirwalk_next(src->walk, &path, &rel, msg, sizeof msg)) {
    case PS_WALK_END:
        ps_dirwalk_free(src->walk);
        src->walk = NULL;
        return 0;
    case PS_WALK_ERROR:
        return failed_input(path ? path : "?", PS_ERR_IO, msg, in, err);
    case PS_WALK_PAGE: {
        char *id = file_id(rel, 1);
        if (!id)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return page_from_file(src, path, id, NULL, NULL, in, err);
    }
    case PS_WALK_WARC:
        return open_warc(src, path, in, err);
    case PS_WALK_DATASET:
        return open_dataset(src, path, in, err);
    }
    return 0;
}

/* ---- list file -------------------------------------------------------- */

/* The next line PATH<TAB>URL[<TAB>GOLD]: 1, 0 at the end, -1. */
static int list_next(ps_source *src, ps_input *in, ps_error *err)
{
    for (;;) {
        ssize_t n = getline(&src->list_line, &src->list_cap, src->list);
        if (n < 0)
            return 0;
        src->list_lineno++;
        char *line = src->list_line;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        char *fields[3] = {line, NULL, NULL};
        for (int i = 1; i < 3; i++) {
            char *tab = fields[i - 1] ? strchr(fields[i - 1], '\t') : NULL;
            if (tab) {
                *tab = '\0';
                fields[i] = tab + 1;
            }
        }
        char where[64];
        snprintf(where, sizeof where, "%zu", src->list_lineno);
        if (!*fields[0]) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s:%s: empty path", src->list_path, where);
            return failed_input(src->list_path, PS_ERR_FORMAT, msg, in, err);
        }
        char *path = path_join(src->list_dir, fields[0]);
        char *gold = fields[2] && *fields[2] ? path_join(src->list_dir, fields[2]) : NULL;
        int r = -1;
        if (path && (gold || !(fields[2] && *fields[2])))
            r = page_from_file(src, path, NULL, fields[1], gold, in, err);
        else
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        if (r == 1 && in->status != PS_OK) { /* name the list line too */
            char msg[sizeof in->msg];
            memcpy(msg, in->msg, sizeof msg);
            int k = snprintf(in->msg, sizeof in->msg, "%s:%s: ", src->list_path, where);
            if (k > 0 && (size_t)k < sizeof in->msg)
                memcpy(in->msg + k, msg, strnlen(msg, sizeof in->msg - (size_t)k - 1) + 1);
            in->msg[sizeof in->msg - 1] = '\0';
        }
        free(path);
        free(gold);
        return r;
    }
}

static int open_list(ps_source *src, const char *list_file, ps_error *err)
{
    src->list = fopen(list_file, "r");
    if (!src->list)
        return ps_set_error(err, PS_ERR_IO, "%s: %s", list_file, strerror(errno));
    src->list_path = strdup(list_file);
    const char *slash = strrchr(list_file, '/');
    src->list_dir = slash ? strndup(list_file, (size_t)(slash - list_file) + (slash == list_file))
                          : strdup("");
    if (!src->list_path || !src->list_dir)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

/* ---- total hint ------------------------------------------------------- */

static size_t dataset_rows(const char *dir, const ps_fold *fold)
{
    ps_dataset *ds = ps_dataset_load(dir, NULL);
    size_t n = ds ? ps_dataset_filter(ds, fold) : 1;
    ps_dataset_free(ds);
    return n;
}

/* Inputs behind one argument; *unknown set when it holds a WARC or stdin. */
static size_t count_arg(const char *path, int *unknown, const ps_fold *fold)
{
    struct stat st;
    if (!strcmp(path, "-")) {
        *unknown = 1;
        return 0;
    }
    if (stat(path, &st) != 0)
        return 1;
    if (!S_ISDIR(st.st_mode)) {
        ps_instream *s = ps_warc_name(path) ? NULL : open_if_warc(path);
        if (ps_warc_name(path) || s)
            *unknown = 1;
        ps_instream_free(s);
        return 1;
    }
    if (ps_is_dataset_dir(path))
        return dataset_rows(path, fold);
    ps_dirwalk *w = ps_dirwalk_new(path);
    size_t n = 0;
    const char *p, *rel;
    char msg[256];
    for (ps_walk_kind k; w && (k = ps_dirwalk_next(w, &p, &rel, msg, sizeof msg)) != PS_WALK_END;) {
        if (k == PS_WALK_WARC)
            *unknown = 1;
        n += k == PS_WALK_DATASET ? dataset_rows(p, fold) : 1;
    }
    ps_dirwalk_free(w);
    return n;
}

static size_t count_list_lines(FILE *f)
{
    size_t n = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0)
        n += len > 0 && line[0] != '#' && line[0] != '\n' && line[0] != '\r';
    free(line);
    rewind(f);
    return n;
}

/* ---- the source ------------------------------------------------------- */

ps_source *ps_source_open(const char *const *args, size_t n_args, const char *list_file,
                          const ps_source_options *opt, ps_error *err)
{
    if (n_args == 0 && !list_file) {
        ps_set_error(err, PS_ERR_USAGE, "no input given");
        return NULL;
    }
    ps_source *src = calloc(1, sizeof *src);
    if (!src || !(src->args = calloc(n_args + 1, sizeof *src->args)))
        goto nomem;
    for (; src->n_args < n_args; src->n_args++)
        if (!(src->args[src->n_args] = strdup(args[src->n_args])))
            goto nomem;
    src->max_bytes = opt && opt->max_bytes ? opt->max_bytes : PS_DEFAULT_MAX_BYTES;
    src->jsonl_stdin = opt ? opt->jsonl_stdin : 0;
    if (opt)
        src->fold = opt->fold;
    if (list_file && open_list(src, list_file, err)) {
        ps_source_free(src);
        return NULL;
    }
    int unknown = 0;
    size_t total = src->list ? count_list_lines(src->list) : 0;
    for (size_t i = 0; i < n_args; i++)
        total += count_arg(args[i], &unknown, &src->fold);
    src->total = unknown ? 0 : total;
    return src;
nomem:
    ps_source_free(src);
    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return NULL;
}

int ps_source_next(ps_source *src, ps_input *in, ps_error *err)
{
    ps_input_clear(in);
    for (;;) {
        int r = 0;
        if (src->warc) {
            if ((r = ps_warc_next(src->warc, in, err)) != 0)
                return r;
            ps_warc_free(src->warc);
            src->warc = NULL;
        } else if (src->jsonl) {
            if ((r = ps_jsonl_next(src->jsonl, in, err)) != 0)
                return r;
            ps_jsonl_free(src->jsonl);
            src->jsonl = NULL;
        } else if (src->ds) {
            if (src->ds_next < src->ds->n_pages)
                return dataset_page(src, in, err);
            ps_dataset_free(src->ds);
            src->ds = NULL;
        } else if (src->walk) {
            r = walk_next(src, in, err);
        } else if (src->next_arg < src->n_args) {
            r = open_arg(src, src->args[src->next_arg++], in, err);
        } else if (src->list) {
            if ((r = list_next(src, in, err)) == 0) {
                fclose(src->list);
                src->list = NULL;
            }
        } else {
            return 0;
        }
        if (r != 0)
            return r;
    }
}

void ps_source_free(ps_source *src)
{
    if (!src)
        return;
    for (size_t i = 0; i < src->n_args; i++)
        free(src->args[i]);
    free(src->args);
    ps_dirwalk_free(src->walk);
    ps_warc_free(src->warc);
    ps_jsonl_free(src->jsonl);
    ps_dataset_free(src->ds);
    if (src->list)
        fclose(src->list);
    free(src->list_path);
    free(src->list_dir);
    free(src->list_line);
    free(src);
}

ps_source *ps_source_reopen(const ps_source *src, ps_error *err)
{
    for (size_t i = 0; i < src->n_args; i++)
        if (strcmp(src->args[i], "-") == 0) {
            ps_set_error(err, PS_ERR_USAGE, "standard input cannot be read twice");
            return NULL;
        }
    ps_source_options opt = {.max_bytes = src->max_bytes, .jsonl_stdin = src->jsonl_stdin, .fold = src->fold};
    return ps_source_open((const char *const *)src->args, src->n_args, src->list_path, &opt, err);
}

size_t ps_source_total_hint(const ps_source *src)
{
    return src ? src->total : 0;
}
