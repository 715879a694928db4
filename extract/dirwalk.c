/* extract/dirwalk.c — recursive directory walk in byte-wise sorted order
 * (reproducible whatever the file system or locale), yielding pages
 * (.html, .htm, .xhtml, .html.gz, .htm.gz, and any other file whose first
 * bytes are an HTML document: article.php, index.html?p=2, no extension —
 * what wget and httrack mirrors hold), WARC files (.warc, .warc.gz, or
 * starting "WARC/"), data set folders (a folder holding index.tsv is not
 * searched: it is one data set), and every other file as skipped, with the
 * reason, so that callers can count and name them.  Names
 * starting with '.' are ignored; symbolic links are followed, a link back
 * to a folder being searched is reported once and not followed.  Memory: one
 * sorted name list per open folder level, not the whole tree. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "extract/inputs_internal.h"

enum { MAX_DEPTH = 64 };

typedef struct frame {
    dev_t dev;    /* identity of the folder, to detect symbolic link loops */
    ino_t ino;
    char *dir;    /* full path */
    char *rel;    /* relative to the root, "" for the root */
    char **names; /* sorted */
    size_t n, i;
} frame;

struct ps_dirwalk {
    char *root;
    frame st[MAX_DEPTH];
    size_t depth;
    int started;
    ps_buf path, rel;
};

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void frame_free(frame *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->names[i]);
    free(f->names);
    free(f->dir);
    free(f->rel);
    memset(f, 0, sizeof *f);
}

/* List and sort a folder.  Returns 0, or -1 with msg set. */
static int frame_open(frame *f, const char *dir, const char *rel, char *msg, size_t cap)
{
    memset(f, 0, sizeof *f);
    DIR *d = opendir(dir);
    struct stat st;
    if (!d || fstat(dirfd(d), &st) != 0) {
        snprintf(msg, cap, "%s: %s", dir, strerror(errno));
        if (d)
            closedir(d);
        return -1;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->dir = strdup(dir);
    f->rel = strdup(rel);
    size_t cap_names = 0;
    int bad = !f->dir || !f->rel;
    struct dirent *e;
    while (!bad && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (f->n == cap_names) {
            cap_names = cap_names ? cap_names * 2 : 64;
            char **nn = realloc(f->names, cap_names * sizeof *nn);
            if (!nn) {
                bad = 1;
                break;
            }
            f->names = nn;
        }
        if (!(f->names[f->n] = strdup(e->d_name)))
            bad = 1;
        else
            f->n++;
    }
    closedir(d);
    if (bad) {
        frame_free(f);
        snprintf(msg, cap, "%s: out of memory", dir);
        return -1;
    }
    if (f->n > 1) /* an empty folder has no list: qsort(NULL, 0) is undefined */
        qsort(f->names, f->n, sizeof *f->names, cmp_names);
    return 0;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && !ps_ascii_casecmp(name + n - k, suffix);
}

/* A page or WARC file by its name, else PS_WALK_END. */
static ps_walk_kind file_kind(const char *name)
{
    if (has_suffix(name, ".html") || has_suffix(name, ".htm") || has_suffix(name, ".xhtml") ||
        has_suffix(name, ".html.gz") || has_suffix(name, ".htm.gz"))
        return PS_WALK_PAGE;
    if (ps_warc_name(name))
        return PS_WALK_WARC;
    return PS_WALK_END;
}

/* Any other file: a page or a WARC file by its first bytes, else skipped
 * (msg says why). */
static ps_walk_kind sniff_kind(const char *path, char *msg, size_t cap)
{
    char head[1024];
    ssize_t n = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
        n = read(fd, head, sizeof head);
        close(fd);
    }
    if (n < 0) {
        snprintf(msg, cap, "cannot be read: %s", strerror(errno));
        return PS_WALK_SKIPPED;
    }
    if (n >= 5 && memcmp(head, "WARC/", 5) == 0)
        return PS_WALK_WARC;
    if (ps_http_looks_like_html(head, (size_t)n))
        return PS_WALK_PAGE;
    snprintf(msg, cap, n == 0 ? "an empty file" : "not an HTML page (by name and first bytes)");
    return PS_WALK_SKIPPED;
}

int ps_is_dataset_dir(const char *dir)
{
    size_t n = strlen(dir) + sizeof "/index.tsv";
    char *p = malloc(n);
    if (!p)
        return 0;
    snprintf(p, n, "%s/index.tsv", dir);
    struct stat st;
    int r = stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return r;
}

/* The folder is already being searched (a link to a parent). */
static int on_stack(const ps_dirwalk *w, const struct stat *st)
{
    for (size_t i = 0; i < w->depth; i++)
        if (w->st[i].dev == st->st_dev && w->st[i].ino == st->st_ino)
            return 1;
    return 0;
}

ps_dirwalk *ps_dirwalk_new(const char *root)
{
    ps_dirwalk *w = calloc(1, sizeof *w);
    if (w && !(w->root = strdup(root))) {
        free(w);
        w = NULL;
    }
    return w;
}

void ps_dirwalk_free(ps_dirwalk *w)
{
    if (!w)
        return;
    while (w->depth)
        frame_free(&w->st[--w->depth]);
    ps_buf_free(&w->path);
    ps_buf_free(&w->rel);
    free(w->root);
    free(w);
}

ps_walk_kind ps_dirwalk_next(ps_dirwalk *w, const char **path, const char **rel,
                             char *msg, size_t cap)
{
    if (!w->started) {
        w->started = 1;
        *path = *rel = w->root;
        if (frame_open(&w->st[0], w->root, "", msg, cap))
            return PS_WALK_ERROR;
        w->depth = 1;
    }
    while (w->depth) {
        frame *f = &w->st[w->depth - 1];
        if (f->i == f->n) {
            frame_free(f);
            w->depth--;
            continue;
        }
        const char *name = f->names[f->i++];
        w->path.len = w->rel.len = 0;
        if (ps_buf_printf(&w->path, "%s%s%s", f->dir, has_suffix(f->dir, "/") ? "" : "/", name) ||
            ps_buf_printf(&w->rel, "%s%s%s", f->rel, *f->rel ? "/" : "", name)) {
            snprintf(msg, cap, "%s: out of memory", f->dir);
            return PS_WALK_ERROR;
        }
        *path = w->path.data;
        *rel = w->rel.data;
        struct stat st;
        if (stat(w->path.data, &st) != 0) {
            if (file_kind(name) == PS_WALK_END) {
                snprintf(msg, cap, "%s", strerror(errno)); /* a dangling link */
                return PS_WALK_SKIPPED;
            }
            snprintf(msg, cap, "%s: %s", w->path.data, strerror(errno));
            return PS_WALK_ERROR;
        }
        if (S_ISDIR(st.st_mode)) {
            if (ps_is_dataset_dir(w->path.data))
                return PS_WALK_DATASET;
            if (on_stack(w, &st)) {
                snprintf(msg, cap, "%s: a symbolic link loop (the folder is one of its parents); not searched",
                         w->path.data);
                return PS_WALK_ERROR;
            }
            if (w->depth == MAX_DEPTH) {
                snprintf(msg, cap, "%s: folders nested deeper than %d levels (a symbolic link loop?)",
                         w->path.data, MAX_DEPTH);
                return PS_WALK_ERROR;
            }
            if (frame_open(&w->st[w->depth], w->path.data, w->rel.data, msg, cap))
                return PS_WALK_ERROR;
            w->depth++;
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(msg, cap, "not a regular file");
            return PS_WALK_SKIPPED;
        }
        ps_walk_kind k = file_kind(name);
        return k != PS_WALK_END ? k : sniff_kind(w->path.data, msg, cap);
    }
    return PS_WALK_END;
}
