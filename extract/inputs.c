/* extract/inputs.c — ps_source (pagesift.h, [INPUTS]): the one streaming
 * source of pages every tool reads.  Arguments are taken in order, lazily;
 * each is a page file, a WARC file (warc.c), a folder searched recursively
 * (dirwalk.c), a data set folder (extract/dataset.c), or "-" for stdin
 * (JSON Lines in jsonl_input.c, a WARC stream, or one page), or a URL (every
 * URL, with the URL list, sitemaps and feeds, is fetched by one fetcher,
 * fetch.c, read where the first URL stands or after the other arguments);
 * then the lines of the list file.  Whatever goes wrong with one input becomes a failed
 * ps_input naming it; only running out of memory is fatal. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extract/inputs_internal.h"
#include "pagesift/dataset.h"

struct ps_source {
    char **args;
    size_t n_args, next_arg;
    size_t max_bytes;
    int jsonl_stdin;
    ps_fold fold;            /* data set pages: this site fold only */
    int stdin_used;
    size_t total;            /* ps_source_total_hint */
    uint64_t total_bytes;    /* ps_source_total_bytes: sizes of the argument files */
    uint64_t bytes_before;   /* sizes of the arguments before the current one */
    uint64_t cur_size;       /* size of the current argument (0: not a file) */
    /* the readers open now, innermost last: the list file, a folder walk,
     * a WARC file or data set found in it (see "readers" below) */
    struct open_reader {
        const struct reader_ops *ops;
        void *self;
    } stack[4];
    int depth;
    int list_started;
    /* the list file, read after the arguments */
    FILE *list;
    char *list_path, *list_dir;
    int list_seekable; /* a regular file: counted ahead, read again by ps_source_reopen */
    size_t list_lineno;
    char *list_line;
    size_t list_cap;
    /* URLs: one fetcher for all of them (fetch.c) */
    ps_fetcher *fetcher;
    int fetch_started, last_fetched;
};

/* ---- readers: one interface ------------------------------------------- */

/* Every input format is one row of the table `formats` (below): probe
 * (does an argument name this format?), open (start reading it: push a
 * reader, or fill one input at once), next (the reader's next input) and
 * free.  A new format is one row and its functions. */
typedef struct reader_ops {
    const char *name;
    /** 1 when the argument @p path (stat in @p st, NULL for "-") is read by
     *  this format; NULL: never chosen for an argument (a folder's entries
     *  and the list file choose it by name) */
    int (*probe)(const char *path, const struct stat *st);
    /** 0: a reader was pushed; 1: *in filled (a page, or a failed input);
     *  -1: fatal (err set) */
    int (*open)(ps_source *src, const char *path, ps_input *in, ps_error *err);
    /** 1: *in filled; 0: no more (the reader is popped and freed); 2: it
     *  pushed a nested reader, read from that first; -1: fatal */
    int (*next)(ps_source *src, void *self, ps_input *in, ps_error *err);
    void (*free)(void *self);
} reader_ops;

static int push_reader(ps_source *src, const reader_ops *ops, void *self, ps_error *err)
{
    if (!self)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (src->depth == (int)(sizeof src->stack / sizeof src->stack[0])) {
        ops->free(self);
        return ps_set_error(err, PS_ERR_NOMEM, "readers nested too deep");
    }
    src->stack[src->depth].ops = ops;
    src->stack[src->depth].self = self;
    src->depth++;
    return 0;
}

static void pop_reader(ps_source *src)
{
    struct open_reader *r = &src->stack[--src->depth];
    if (r->ops->free)
        r->ops->free(r->self);
}

static const reader_ops warc_reader, jsonl_reader, dataset_reader, folder_reader, list_reader, fetch_reader;

/* ---- ids, paths ------------------------------------------------------- */

/* The id of a file: its path (relative to the searched folder, or its base
 * name) without the extension. */
static char *file_id(const char *path, int whole_path)
{
    const char *slash = strrchr(path, '/');
    const char *base = whole_path || !slash ? path : slash + 1;
    const char *name = slash && slash + 1 > base ? slash + 1 : base; /* the last component */
    const char *dot = strrchr(name, '.');
    size_t len = strlen(base);
    if (dot && dot > name && !ps_ascii_casecmp(dot, ".gz")) { /* page.html.gz: page */
        const char *d = dot;
        while (d > name && d[-1] != '.')
            d--;
        if (d > name + 1)
            dot = d - 1;
    }
    size_t n = dot && dot > name ? (size_t)(dot - base) : len;
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

/* A page file stored gzip'ed (.html.gz; a mirror's compressed page): its
 * inflated bytes replace in->data.  Returns 1, or -1 (no memory). */
static int inflate_page(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    ps_error e = {0};
    ps_buf b = {0};
    int r = ps_read_inflated(path, src->max_bytes, &b, &e);
    if (r < 0)
        return ps_set_error(err, PS_ERR_NOMEM, "%s", e.msg[0] ? e.msg : "out of memory");
    if (r > 0) {
        ps_input_fail(in, e.code, "%s", e.msg);
        return 1;
    }
    free(in->data);
    in->data = ps_buf_take(&b, &in->len);
    return 1;
}

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
        /* no room for this page's bytes (a large page under a memory
         * limit) fails that page, not the run: the next page may fit */
        ps_input_fail(in, e.code, "%s", e.msg);
    } else if (in->len >= 2 && (unsigned char)in->data[0] == 0x1f && (unsigned char)in->data[1] == 0x8b) {
        return inflate_page(src, path, in, err);
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
    ps_warc *w = ps_warc_new(s, name, src->max_bytes);
    if (!w)
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", name);
    return push_reader(src, &warc_reader, w, err);
}

static int warc_next(ps_source *src, void *self, ps_input *in, ps_error *err)
{
    (void)src;
    return ps_warc_next(self, in, err);
}

static void warc_free(void *self)
{
    ps_warc_free(self);
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

typedef struct dataset_state {
    ps_dataset *ds;
    size_t next;
    int gold;     /* the set has a gold/ folder: its pages' inputs carry
                     their gold file (a missing one fails that page) */
} dataset_state;

static void dataset_free(void *self)
{
    dataset_state *d = self;
    if (d)
        ps_dataset_free(d->ds);
    free(d);
}

static int open_dataset(ps_source *src, const char *dir, ps_input *in, ps_error *err)
{
    ps_error e = {0};
    ps_dataset *ds = ps_dataset_load(dir, &e);
    if (ds) {
        ps_dataset_filter(ds, &src->fold);
        dataset_state *d = malloc(sizeof *d);
        if (!d) {
            ps_dataset_free(ds);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        d->ds = ds;
        d->next = 0;
        /* pages to annotate or extract come as a data set without gold
         * (index.tsv and html/ only): no gold/ folder, no gold, no failure */
        size_t dl = strlen(ds->dir);
        char *gdir = malloc(dl + sizeof "/gold");
        struct stat st;
        if (gdir)
            memcpy(gdir, ds->dir, dl), memcpy(gdir + dl, "/gold", sizeof "/gold");
        d->gold = !gdir || (stat(gdir, &st) == 0 && S_ISDIR(st.st_mode));
        free(gdir);
        return push_reader(src, &dataset_reader, d, err);
    }
    if (e.code == PS_ERR_NOMEM)
        return ps_set_error(err, e.code, "%s", e.msg);
    return failed_input(dir, e.code, e.msg, in, err);
}

static int dataset_next(ps_source *src, void *self, ps_input *in, ps_error *err)
{
    dataset_state *d = self;
    if (d->next >= d->ds->n_pages)
        return 0;
    const ps_dataset_page *p = &d->ds->pages[d->next++];
    char *id = ps_safe_id(p->id, strlen(p->id));
    if (!id)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    /* a snippet set has no gold file: its snippets instead */
    int r = page_from_file(src, p->html_path, id, p->url, p->snippets || !d->gold ? NULL : p->gold_path, in, err);
    if (r < 0)
        return r;
    in->snippets = p->snippets;
    in->dataset = strdup(d->ds->name);
    in->site = *p->site ? strdup(p->site) : NULL;
    if (!in->dataset || (*p->site && !in->site))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 1;
}

/* ---- stdin ------------------------------------------------------------ */

/* One page read from a stream up to its end (gzip unpacked by the stream):
 * standard input (@p path NULL: id and origin "stdin") or a path that is
 * not a regular file (id from its name). */
static int page_from_stream(ps_source *src, ps_instream *s, const char *path, ps_input *in, ps_error *err)
{
    const char *name = path ? path : "stdin";
    ps_buf b = {0};
    in->id = path ? file_id(path, 0) : strdup("stdin");
    in->origin = strdup(name);
    in->url = strdup("");
    if (!in->id || !in->origin || !in->url)
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", name);
    for (;;) {
        if (ps_buf_reserve(&b, 65536)) {
            ps_buf_free(&b);
            return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", name);
        }
        size_t n = ps_instream_read(s, b.data + b.len, b.cap - b.len - 1, NULL);
        b.len += n;
        b.data[b.len] = '\0';
        if (b.len > src->max_bytes) {
            ps_buf_free(&b);
            ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: page larger than the limit of %zu bytes", name, src->max_bytes);
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
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", name);
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

static int jsonl_next(ps_source *src, void *self, ps_input *in, ps_error *err)
{
    (void)src;
    return ps_jsonl_next(self, in, err);
}

static void jsonl_free(void *self)
{
    ps_jsonl_free(self);
}

static int open_stdin(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    (void)path;
    if (src->stdin_used)
        return failed_input("-", PS_ERR_USAGE, "stdin (\"-\") given more than once", in, err);
    src->stdin_used = 1;
    ps_error e = {0};
    ps_instream *s = ps_instream_open("-", &e);
    if (!s)
        return ps_set_error(err, e.code, "%s", e.msg);
    if (src->jsonl_stdin)
        return push_reader(src, &jsonl_reader, ps_jsonl_new(s, "stdin", NULL, src->max_bytes), err);
    if (starts_warc(s))
        return start_warc(src, s, "stdin", err);
    int r = page_from_stream(src, s, NULL, in, err);
    ps_instream_free(s);
    return r;
}

/* ---- arguments -------------------------------------------------------- */

static int open_folder(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    (void)in;
    return push_reader(src, &folder_reader, ps_dirwalk_new(path), err);
}

static int open_warc_arg(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    if (ps_warc_name(path))
        return open_warc(src, path, in, err);
    ps_instream *s = open_if_warc(path);
    return s ? start_warc(src, s, path, err) : page_from_file(src, path, NULL, NULL, NULL, in, err);
}

/* a JSON Lines file: by its name (.jsonl, .ndjson, either with .gz) */
static int jsonl_name(const char *path)
{
    static const char *const ext[] = {".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && !ps_ascii_casecmp(path + n - e, ext[i]))
            return 1;
    }
    return 0;
}

static int open_jsonl_file(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    ps_error e = {0};
    ps_instream *s = ps_instream_open(path, &e);
    if (!s)
        return failed_input(path, e.code, e.msg, in, err);
    char *id = file_id(path, 0);
    if (!id) {
        ps_instream_free(s);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    int r = push_reader(src, &jsonl_reader, ps_jsonl_new(s, path, id, src->max_bytes), err);
    free(id);
    return r;
}

static int open_page(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    return page_from_file(src, path, NULL, NULL, NULL, in, err);
}

/* A path that is neither a regular file nor a folder — a named pipe, a
 * shell's <(zcat ...), /dev/stdin — is read once, as it comes, the way "-"
 * is: JSON Lines by its name, a WARC stream when it starts "WARC/" (plain
 * or gzip), else one page.  Looking at its first bytes by opening it again
 * (as for a file) would lose them. */
static int open_stream(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    if (jsonl_name(path))
        return open_jsonl_file(src, path, in, err);
    ps_error e = {0};
    ps_instream *s = ps_instream_open(path, &e);
    if (!s)
        return failed_input(path, e.code, e.msg, in, err);
    if (starts_warc(s))
        return start_warc(src, s, path, err);
    int r = page_from_stream(src, s, path, in, err);
    ps_instream_free(s);
    return r;
}

static int probe_stdin(const char *path, const struct stat *st)
{
    (void)st;
    return strcmp(path, "-") == 0;
}

static int probe_stream(const char *path, const struct stat *st)
{
    (void)path;
    return st && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode);
}

static int probe_dataset(const char *path, const struct stat *st)
{
    return st && S_ISDIR(st->st_mode) && ps_is_dataset_dir(path);
}

static int probe_folder(const char *path, const struct stat *st)
{
    (void)path;
    return st && S_ISDIR(st->st_mode);
}

/* by name (.warc, .warc.gz) or by its first bytes (open_warc_arg looks) */
static int probe_warc(const char *path, const struct stat *st)
{
    (void)st;
    unsigned char head[5] = {0};
    if (ps_warc_name(path))
        return 1;
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) || (n >= 5 && !memcmp(head, "WARC/", 5));
}

static int probe_jsonl(const char *path, const struct stat *st)
{
    return st && !S_ISDIR(st->st_mode) && jsonl_name(path);
}

static int probe_page(const char *path, const struct stat *st)
{
    (void)path;
    (void)st;
    return 1;
}

static const reader_ops stdin_format = {"standard input", probe_stdin, open_stdin, NULL, NULL};
static const reader_ops dataset_reader = {"data set", probe_dataset, open_dataset, dataset_next,
                                          dataset_free};
static int walk_next(ps_source *src, void *self, ps_input *in, ps_error *err);
static void walk_free(void *self);
static const reader_ops folder_reader = {"folder", probe_folder, open_folder, walk_next, walk_free};
static const reader_ops warc_reader = {"WARC", probe_warc, open_warc_arg, warc_next, warc_free};
static const reader_ops jsonl_reader = {"JSON Lines", probe_jsonl, open_jsonl_file, jsonl_next, jsonl_free};
static const reader_ops page_format = {"page", probe_page, open_page, NULL, NULL};
static const reader_ops stream_format = {"stream", probe_stream, open_stream, NULL, NULL};

/* The formats an argument can be, in the order they are tried (the list
 * file, read after the arguments, is list_reader). */
static const reader_ops *const formats[] = {
    &stdin_format, &stream_format, &dataset_reader, &folder_reader, &jsonl_reader, &warc_reader, &page_format, NULL,
};

/* ---- URLs: fetched (fetch.c) ----------------------------------------- */

static int fetch_next(ps_source *src, void *self, ps_input *in, ps_error *err)
{
    (void)src;
    return ps_fetcher_next(self, in, err);
}

/* owned by the source (ps_source_free), not by the reader stack */
static const reader_ops fetch_reader = {"URL", NULL, NULL, fetch_next, NULL};

/* Start the fetcher when it has not started: 0 (pushed, or nothing to
 * fetch), -1. */
static int start_fetch(ps_source *src, ps_error *err)
{
    if (!src->fetcher || src->fetch_started)
        return 0;
    src->fetch_started = 1;
    return push_reader(src, &fetch_reader, src->fetcher, err);
}

/* 1: *in filled, 0: a reader was pushed (or nothing to do), -1: fatal. */
static int open_arg(ps_source *src, const char *path, ps_input *in, ps_error *err)
{
    struct stat st;
    if (ps_is_url(path)) /* every URL is the fetcher's: its first one starts it */
        return start_fetch(src, err);
    int is_stdin = !strcmp(path, "-");
    if (!is_stdin && stat(path, &st) != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: %s", path, strerror(errno));
        return failed_input(path, PS_ERR_IO, msg, in, err);
    }
    for (size_t i = 0; formats[i]; i++)
        if (formats[i]->probe && formats[i]->probe(path, is_stdin ? NULL : &st))
            return formats[i]->open(src, path, in, err);
    return page_from_file(src, path, NULL, NULL, NULL, in, err);
}

/* The next entry of the folder walk: 1, 2 (pushed a reader), 0 (the walk
 * ended), -1. */
static int walk_next(ps_source *src, void *self, ps_input *in, ps_error *err)
{
    const char *path = NULL, *rel = NULL;
    char msg[512];
    int r;
    switch (ps_dirwalk_next(self, &path, &rel, msg, sizeof msg)) {
    case PS_WALK_END:
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
        r = open_warc(src, path, in, err);
        return r == 0 ? 2 : r;
    case PS_WALK_DATASET:
        r = open_dataset(src, path, in, err);
        return r == 0 ? 2 : r;
    case PS_WALK_SKIPPED:
        in->id = file_id(rel, 1);
        in->origin = strdup(path);
        in->url = strdup("");
        if (!in->id || !in->origin || !in->url)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        in->skipped = 1;
        snprintf(in->msg, sizeof in->msg, "%s", msg);
        return 1;
    }
    return 0;
}

static void walk_free(void *self)
{
    ps_dirwalk_free(self);
}

/* ---- list file -------------------------------------------------------- */

static const char *list_name(const ps_source *src)
{
    return strcmp(src->list_path, "-") == 0 ? "stdin" : src->list_path;
}

/* A list line's path: a page file, with the line's URL and gold; or what
 * else an argument can be, told by its name or kind without reading it — a
 * WARC file (.warc, .warc.gz), a JSON Lines file, a folder, a data set, a
 * pipe — read as that (the URL and gold of a line belong to a page).
 * 1, 2 (pushed a reader), -1. */
static int list_entry(ps_source *src, const char *path, const char *url, const char *gold, ps_input *in,
                      ps_error *err)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
        (!S_ISREG(st.st_mode) || ps_warc_name(path) || jsonl_name(path)))
        for (size_t i = 0; formats[i]; i++)
            if (formats[i] != &stdin_format && formats[i] != &page_format && formats[i]->probe(path, &st)) {
                int r = formats[i]->open(src, path, in, err);
                return r == 0 ? 2 : r;
            }
    return page_from_file(src, path, NULL, url, gold, in, err);
}

/* The next line PATH<TAB>URL[<TAB>GOLD]: 1, 0 at the end, -1.  The list
 * file's state lives in the source (its name is needed for messages). */
static int list_next(ps_source *src, void *self, ps_input *in, ps_error *err)
{
    (void)self;
    for (;;) {
        ssize_t n = getline(&src->list_line, &src->list_cap, src->list);
        if (n < 0)
            return 0;
        src->list_lineno++;
        char *line = src->list_line;
        if (src->list_lineno == 1 && n >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) { /* a byte order mark */
            line += 3;
            n -= 3;
        }
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
            snprintf(msg, sizeof msg, "%s:%s: empty path", list_name(src), where);
            return failed_input(list_name(src), PS_ERR_FORMAT, msg, in, err);
        }
        if (ps_is_url(fields[0])) {
            char msg[512];
            snprintf(msg, sizeof msg,
                     "%s:%s: %.300s is a URL: a list file names files (pagesift fetches the URLs of --urls FILE)",
                     list_name(src), where, fields[0]);
            return failed_input(fields[0], PS_ERR_FORMAT, msg, in, err);
        }
        char *path = path_join(src->list_dir, fields[0]);
        char *gold = fields[2] && *fields[2] ? path_join(src->list_dir, fields[2]) : NULL;
        int r = -1;
        if (path && (gold || !(fields[2] && *fields[2])))
            r = list_entry(src, path, fields[1], gold, in, err);
        else
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        if (r == 1 && in->status != PS_OK) { /* name the list line too */
            char msg[sizeof in->msg];
            memcpy(msg, in->msg, sizeof msg);
            int k = snprintf(in->msg, sizeof in->msg, "%s:%s: ", list_name(src), where);
            if (k > 0 && (size_t)k < sizeof in->msg)
                memcpy(in->msg + k, msg, strnlen(msg, sizeof in->msg - (size_t)k - 1) + 1);
            in->msg[sizeof in->msg - 1] = '\0';
        }
        free(path);
        free(gold);
        return r;
    }
}

static const reader_ops list_reader = {"list file", NULL, NULL, list_next, NULL};

/* "-" is standard input: its relative paths are relative to the current
 * folder.  A list that is not a regular file (standard input, a pipe, a
 * shell's <(...)) is read once, as it comes: not counted ahead. */
static int open_list(ps_source *src, const char *list_file, ps_error *err)
{
    int is_stdin = strcmp(list_file, "-") == 0;
    src->list = is_stdin ? stdin : fopen(list_file, "r");
    if (!src->list)
        return ps_set_error(err, PS_ERR_IO, "%s: %s", list_file, strerror(errno));
    if (is_stdin)
        src->stdin_used = 1;
    struct stat st;
    src->list_seekable = !is_stdin && fstat(fileno(src->list), &st) == 0 && S_ISREG(st.st_mode);
    src->list_path = strdup(list_file);
    const char *slash = is_stdin ? NULL : strrchr(list_file, '/');
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
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) { /* a pipe: not read ahead */
        *unknown = 1;
        return 0;
    }
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

/* The pages of a list file, one a line; a WARC or JSON Lines file among
 * them (by name: the lines are not stat'ed) makes the count unknown. */
static size_t count_list_lines(FILE *f, int *unknown)
{
    size_t n = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        if (len == 0 || line[0] == '#' || line[0] == '\n' || line[0] == '\r')
            continue;
        line[strcspn(line, "\t\r\n")] = '\0';
        *unknown |= ps_warc_name(line) || jsonl_name(line);
        n++;
    }
    free(line);
    rewind(f);
    return n;
}

/* ---- the source ------------------------------------------------------- */

ps_source *ps_source_open(const char *const *args, size_t n_args, const char *list_file,
                          const ps_source_options *opt, ps_error *err)
{
    return ps_source_open_fetch(args, n_args, list_file, opt, NULL, err);
}

ps_source *ps_source_open_fetch(const char *const *args, size_t n_args, const char *list_file,
                                const ps_source_options *opt, const ps_fetch_options *fetch,
                                ps_error *err)
{
    int fetch_inputs = fetch && (fetch->urls_file || fetch->n_sitemaps || fetch->n_feeds);
    if (n_args == 0 && !list_file && !fetch_inputs) {
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
    for (size_t i = 0; list_file && src->stdin_used && i < n_args; i++)
        if (strcmp(args[i], "-") == 0) {
            ps_source_free(src);
            ps_set_error(err, PS_ERR_USAGE, "standard input given twice: '-' and the list file '-'");
            return NULL;
        }
    size_t n_urls = 0;
    for (size_t i = 0; i < n_args; i++)
        n_urls += ps_is_url(args[i]) != 0;
    if (n_urls || fetch_inputs) {
        const char **urls = calloc(n_urls + 1, sizeof *urls);
        if (!urls)
            goto nomem;
        n_urls = 0;
        for (size_t i = 0; i < n_args; i++)
            if (ps_is_url(args[i]))
                urls[n_urls++] = args[i];
        src->fetcher = ps_fetcher_new(urls, n_urls, fetch, src->max_bytes, err);
        free(urls);
        if (!src->fetcher) {
            ps_source_free(src);
            return NULL;
        }
    }
    int unknown = fetch_inputs;
    size_t total = 0;
    if (src->list && src->list_seekable)
        total = count_list_lines(src->list, &unknown);
    else if (src->list)
        unknown = 1;
    for (size_t i = 0; i < n_args; i++) {
        if (ps_is_url(args[i])) {
            total++;
            continue;
        }
        total += count_arg(args[i], &unknown, &src->fold);
    }
    src->total = unknown ? 0 : total;
    /* by bytes: when every argument is a file (WARC files, pages) */
    for (size_t i = 0; i < n_args && !src->list && !src->fetcher; i++) {
        struct stat st;
        if (!strcmp(args[i], "-") || stat(args[i], &st) != 0 || !S_ISREG(st.st_mode)) {
            src->total_bytes = 0;
            break;
        }
        src->total_bytes += (uint64_t)st.st_size;
    }
    return src;
nomem:
    ps_source_free(src);
    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return NULL;
}

int ps_source_next(ps_source *src, ps_input *in, ps_error *err)
{
    ps_input_clear(in);
    src->last_fetched = 0;
    for (;;) {
        int r;
        if (src->depth) { /* the innermost reader open */
            struct open_reader *top = &src->stack[src->depth - 1];
            r = top->ops->next(src, top->self, in, err);
            src->last_fetched = r == 1 && top->ops == &fetch_reader;
            if (r == 0)
                pop_reader(src);
            if (r == 0 || r == 2)
                continue;
            return r;
        }
        if (src->next_arg < src->n_args) {
            struct stat st;
            src->bytes_before += src->cur_size;
            const char *a = src->args[src->next_arg++];
            src->cur_size = strcmp(a, "-") && stat(a, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
            if ((r = open_arg(src, a, in, err)) != 0)
                return r;
        } else if (src->fetcher && !src->fetch_started) { /* a URL list, sitemaps, feeds */
            if (start_fetch(src, err) != 0)
                return -1;
        } else if (src->list && !src->list_started) {
            src->list_started = 1;
            if (push_reader(src, &list_reader, src, err) != 0)
                return -1;
        } else {
            return 0;
        }
    }
}

void ps_source_free(ps_source *src)
{
    if (!src)
        return;
    for (size_t i = 0; i < src->n_args; i++)
        free(src->args[i]);
    free(src->args);
    while (src->depth)
        pop_reader(src);
    ps_fetcher_free(src->fetcher);
    if (src->list && src->list != stdin)
        fclose(src->list);
    free(src->list_path);
    free(src->list_dir);
    free(src->list_line);
    free(src);
}

ps_source *ps_source_reopen(const ps_source *src, ps_error *err)
{
    if (src->fetcher) {
        ps_set_error(err, PS_ERR_USAGE, "fetched pages are read once (fetch them into a WARC with "
                                        "--warc-out, then read that twice)");
        return NULL;
    }
    for (size_t i = 0; i < src->n_args; i++)
        if (strcmp(src->args[i], "-") == 0) {
            ps_set_error(err, PS_ERR_USAGE, "standard input cannot be read twice");
            return NULL;
        }
    for (size_t i = 0; i < src->n_args; i++) {
        struct stat st;
        const char *a = src->args[i];
        if (!ps_is_url(a) && stat(a, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
            ps_set_error(err, PS_ERR_USAGE, "%s is not a file (a pipe is read once): save it to read it twice", a);
            return NULL;
        }
    }
    if (src->list && !src->list_seekable) {
        ps_set_error(err, PS_ERR_USAGE, "the list file %s is %s: it is read once (save it to read it twice)",
                     list_name(src), src->list == stdin ? "standard input" : "not a regular file");
        return NULL;
    }
    ps_source_options opt = {.max_bytes = src->max_bytes, .jsonl_stdin = src->jsonl_stdin, .fold = src->fold};
    return ps_source_open((const char *const *)src->args, src->n_args, src->list_path, &opt, err);
}

size_t ps_source_total_hint(const ps_source *src)
{
    return src ? src->total : 0;
}

const ps_fetch_info *ps_source_fetch_info(const ps_source *src)
{
    return src && src->last_fetched ? ps_fetcher_info(src->fetcher) : NULL;
}

uint64_t ps_source_total_bytes(const ps_source *src)
{
    return src ? src->total_bytes : 0;
}

uint64_t ps_source_bytes_done(const ps_source *src)
{
    if (!src || !src->total_bytes)
        return 0;
    uint64_t cur = src->cur_size;
    for (int i = 0; i < src->depth; i++) /* an argument's WARC file being read */
        if (src->stack[i].ops == &warc_reader) {
            uint64_t off = ps_warc_file_offset(src->stack[i].self);
            cur = off < cur ? off : cur;
        }
    return src->bytes_before + cur;
}
