/* templates/libfile.c — library files (format: docs/TEMPLATE_FORMAT.md),
 * their names, the parameters they record (and their defaults), and the
 * store of libraries by site. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "templates/tpl_internal.h"

#define FORMAT_MAGIC "pagesift-templates"
#define FORMAT_VERSION 1

struct ps_template_store {
    ps_template_lib **libs; /**< sorted by site */
    size_t n;
};

/* the parameters a library is learnt with, and records in its file */
void ps_template_params_default(ps_template_params *p)
{
    p->n1 = 10;
    p->n2 = 3;
    p->count_occurrences = 0;
    p->rules = PS_TEMPLATE_RULES_GUARDED;
}

static const char *rules_name(ps_template_rules r)
{
    return r == PS_TEMPLATE_RULES_PAPER ? "paper" : "guarded";
}

int ps_template_file_name(const char *site, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)site; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
                    *p == '_' || (*p == '.' && p != (const unsigned char *)site);
        if (n + (plain ? 1 : 3) + 5 > cap)
            return -1;
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    if (n + 5 > cap)
        return -1;
    memcpy(out + n, ".tpl", 5);
    return 0;
}

int tpl_mkdir_p(const char *dir, ps_error *err)
{
    if (!*dir || strlen(dir) >= 4096)
        return ps_set_error(err, PS_ERR_USAGE, "bad output folder name '%s'", dir);
    if (ps_mkdir_p(dir) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot create folder: %s", dir, strerror(errno));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return ps_set_error(err, PS_ERR_IO, "%s: not a folder", dir);
    return 0;
}

static int put_escaped(ps_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int rc;
        if (c == '\\')
            rc = ps_buf_append(b, "\\\\", 2);
        else if (c == '\t')
            rc = ps_buf_append(b, "\\t", 2);
        else if (c == '\n')
            rc = ps_buf_append(b, "\\n", 2);
        else if (c == '\r')
            rc = ps_buf_append(b, "\\r", 2);
        else if (c < 0x20 || c == 0x7F)
            rc = ps_buf_printf(b, "\\x%02X", c);
        else
            rc = ps_buf_putc(b, (char)c);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Unescape in place; returns the new length or -1 on a bad escape. */
static long unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r != '\\') {
            *w++ = *r;
            continue;
        }
        r++;
        switch (*r) {
        case '\\': *w++ = '\\'; break;
        case 't': *w++ = '\t'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 'x': {
            int v = 0;
            for (int k = 0; k < 2; k++) {
                char c = *++r;
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
                        c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                if (d < 0)
                    return -1;
                v = v * 16 + d;
            }
            if (v == 0)
                return -1;
            *w++ = (char)v;
            break;
        }
        default: return -1;
        }
    }
    *w = '\0';
    return (long)(w - s);
}

/* Serialise a library in the documented format. */
static int tpl_lib_serialise(const ps_template_lib *lib, ps_buf *b)
{
    const ps_template_params *p = &lib->params;
    int rc = ps_buf_printf(b, "%s\t%d\n", FORMAT_MAGIC, FORMAT_VERSION);
    rc |= ps_buf_append(b, "site\t", 5);
    rc |= put_escaped(b, lib->site, strlen(lib->site));
    rc |= ps_buf_printf(b, "\nn1\t%u\nn2\t%u\ncount\t%s\nrules\t%s\npages\t%llu\nbatches\t%llu\nentries\t%zu\n",
                        p->n1, p->n2, p->count_occurrences ? "occurrences" : "pages",
                        rules_name(p->rules), (unsigned long long)lib->pages,
                        (unsigned long long)lib->batches, lib->set.n);
    for (size_t i = 0; i < lib->set.n && rc == 0; i++) {
        const tpl_item *it = &lib->set.items[i];
        rc |= ps_buf_printf(b, "e\t%s\t%u\t%u\t", tpl_item_tag(&lib->set, it), it->freq, it->batches);
        rc |= put_escaped(b, tpl_item_text(&lib->set, it), it->bytes);
        rc |= ps_buf_putc(b, '\n');
    }
    rc |= ps_buf_printf(b, "end\t%zu\n", lib->set.n);
    return rc ? -1 : 0;
}

int tpl_lib_write(const ps_template_lib *lib, const char *path, ps_error *err)
{
    ps_buf b = {0};
    if (tpl_lib_serialise(lib, &b) < 0) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    int rc = ps_write_file_atomic(path, b.data, b.len, err);
    ps_buf_free(&b);
    return rc;
}

void ps_template_lib_free(ps_template_lib *lib)
{
    if (!lib)
        return;
    free(lib->site);
    tpl_set_free(&lib->set);
    free(lib);
}

static int parse_u64(const char *s, unsigned long long *v)
{
    if (!*s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return *end || errno ? -1 : 0;
}

/* Split a line into at most @p max tab-separated fields; returns how many. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        char *tab = strchr(p, '\t');
        if (n == max)
            return max + 1;
        f[n++] = p;
        if (!tab)
            return n;
        *tab = '\0';
        p = tab + 1;
    }
}

/* Parse a library file held in memory; @p path names it in errors. */
static ps_template_lib *tpl_lib_parse(const char *path, char *data, size_t len, ps_error *err)
{
    ps_template_lib *lib = calloc(1, sizeof *lib);
    if (!lib) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    tpl_set_init(&lib->set);
    ps_template_params_default(&lib->params);
    if (memchr(data, '\0', len)) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: not a template library (NUL byte)", path);
        goto fail;
    }
    static const char *const header[] = {"site", "n1", "n2", "count", "rules", "pages", "batches", "entries"};
    unsigned long long entries = 0, seen = 0;
    size_t lineno = 0;
    int ended = 0;
    uint32_t *cpbuf = NULL;
    size_t cpcap = 0;
    char *save = NULL;
    for (char *line = data; line && *line; line = save) {
        char *nl = strchr(line, '\n');
        if (!nl) {
            ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: truncated (last line has no end)", path, lineno + 1);
            goto fail_cp;
        }
        *nl = '\0';
        save = nl + 1;
        lineno++;
        char *f[6];
        int nf = split_tabs(line, f, 5);
        if (ended) {
            ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: data after the end line", path, lineno);
            goto fail_cp;
        }
        if (lineno == 1) {
            if (nf != 2 || strcmp(f[0], FORMAT_MAGIC) != 0) {
                ps_set_error(err, PS_ERR_FORMAT, "%s: not a pagesift template library (first line)", path);
                goto fail_cp;
            }
            unsigned long long v;
            if (parse_u64(f[1], &v) < 0 || v != FORMAT_VERSION) {
                ps_set_error(err, PS_ERR_VERSION,
                             "%s: template library format version %s; this pagesift reads version %d (rebuild it with pagesift-template build)",
                             path, f[1], FORMAT_VERSION);
                goto fail_cp;
            }
            continue;
        }
        if (lineno <= 9) {
            const char *want = header[lineno - 2];
            unsigned long long v = 0;
            if (nf != 2 || strcmp(f[0], want) != 0) {
                ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: expected the '%s' header line", path, lineno, want);
                goto fail_cp;
            }
            int bad = 0;
            if (!strcmp(want, "site")) {
                bad = unescape(f[1]) <= 0 || !(lib->site = strdup(f[1]));
            } else if (!strcmp(want, "count")) {
                bad = strcmp(f[1], "pages") && strcmp(f[1], "occurrences");
                lib->params.count_occurrences = !strcmp(f[1], "occurrences");
            } else if (!strcmp(want, "rules")) {
                bad = strcmp(f[1], "paper") && strcmp(f[1], "guarded");
                lib->params.rules = !strcmp(f[1], "paper") ? PS_TEMPLATE_RULES_PAPER : PS_TEMPLATE_RULES_GUARDED;
            } else {
                bad = parse_u64(f[1], &v) < 0;
                if (!strcmp(want, "n1")) { bad |= v == 0 || v > UINT32_MAX; lib->params.n1 = (unsigned)v; }
                else if (!strcmp(want, "n2")) { bad |= v == 0 || v > UINT32_MAX; lib->params.n2 = (unsigned)v; }
                else if (!strcmp(want, "pages")) lib->pages = v;
                else if (!strcmp(want, "batches")) lib->batches = v;
                else entries = v;
            }
            if (bad) {
                ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: bad value '%s' for %s", path, lineno, f[1], want);
                goto fail_cp;
            }
            continue;
        }
        if (nf == 2 && !strcmp(f[0], "end")) {
            unsigned long long v;
            if (parse_u64(f[1], &v) < 0 || v != seen || v != entries) {
                ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: end line says %s entries, the header %llu, the file has %llu",
                             path, lineno, f[1], entries, seen);
                goto fail_cp;
            }
            ended = 1;
            continue;
        }
        unsigned long long freq, batches;
        if (nf != 5 || strcmp(f[0], "e") || !*f[1] || parse_u64(f[2], &freq) < 0 ||
            parse_u64(f[3], &batches) < 0 || freq > UINT32_MAX || batches > UINT32_MAX) {
            ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: malformed entry line", path, lineno);
            goto fail_cp;
        }
        long tl = unescape(f[4]);
        if (tl <= 0) {
            ps_set_error(err, PS_ERR_FORMAT, "%s:%zu: empty text or bad escape in entry", path, lineno);
            goto fail_cp;
        }
        size_t chars = ps_utf8_chars(f[4], (size_t)tl);
        if (chars > cpcap) {
            cpcap = chars + 256;
            uint32_t *nb = realloc(cpbuf, 3 * cpcap * sizeof *nb);
            if (!nb)
                goto nomem;
            cpbuf = nb;
        }
        tpl_query q;
        tpl_query_init(&q, f[1], f[4], (uint32_t)tl, (uint32_t)chars, cpbuf);
        long k = tpl_set_add(&lib->set, &q, (uint32_t)freq);
        if (k < 0)
            goto nomem;
        lib->set.items[k].batches = (uint32_t)batches;
        seen++;
    }
    if (lineno < 10 || !ended) {
        ps_set_error(err, PS_ERR_FORMAT, "%s: truncated (%s)", path,
                     lineno < 10 ? "header incomplete" : "no end line");
        goto fail_cp;
    }
    free(cpbuf);
    return lib;
nomem:
    ps_set_error(err, PS_ERR_NOMEM, "out of memory");
fail_cp:
    free(cpbuf);
fail:
    ps_template_lib_free(lib);
    return NULL;
}

ps_template_lib *ps_template_lib_load(const char *path, ps_error *err)
{
    size_t len;
    char *data = ps_read_regular_file(path, 0, "a template library", &len, err);
    if (!data)
        return NULL;
    ps_template_lib *lib = tpl_lib_parse(path, data, len, err);
    free(data);
    return lib;
}

int ps_template_applies(const ps_template_lib *lib)
{
    return lib && lib->pages >= PS_TEMPLATE_MIN_PAGES;
}

void ps_template_lib_get_info(const ps_template_lib *lib, ps_template_lib_info *info)
{
    info->site = lib->site;
    info->params = lib->params;
    info->pages = lib->pages;
    info->batches = lib->batches;
    info->n_entries = lib->set.n;
}

int ps_template_lib_entry(const ps_template_lib *lib, size_t i, ps_template_entry *e)
{
    if (i >= lib->set.n)
        return -1;
    const tpl_item *it = &lib->set.items[i];
    e->tag = tpl_item_tag(&lib->set, it);
    e->text = tpl_item_text(&lib->set, it);
    e->chars = it->chars;
    e->freq = it->freq;
    e->batches = it->batches;
    return 0;
}

/* ---- store ---------------------------------------------------------------- */

static int cmp_lib(const void *a, const void *b)
{
    return strcmp((*(ps_template_lib *const *)a)->site, (*(ps_template_lib *const *)b)->site);
}

ps_template_store *tpl_store_from(ps_template_lib **libs, size_t n)
{
    ps_template_store *s = calloc(1, sizeof *s);
    if (s)
        s->libs = malloc((n ? n : 1) * sizeof *s->libs);
    if (!s || !s->libs) {
        for (size_t i = 0; i < n; i++)
            ps_template_lib_free(libs[i]);
        if (s)
            free(s);
        return NULL;
    }
    memcpy(s->libs, libs, n * sizeof *libs);
    s->n = n;
    qsort(s->libs, n, sizeof *s->libs, cmp_lib);
    return s;
}

ps_template_store *ps_template_store_open(const char *dir, ps_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        ps_set_error(err, PS_ERR_IO, "%s: cannot open template folder: %s", dir, strerror(errno));
        return NULL;
    }
    ps_template_lib **libs = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    int ok = 1;
    while (ok && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".tpl") != 0 || de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        ps_template_lib *lib = ps_template_lib_load(path, err);
        if (!lib) {
            ok = 0;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            ps_template_lib **nl = realloc(libs, cap * sizeof *nl);
            if (!nl) {
                ps_template_lib_free(lib);
                ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                ok = 0;
                break;
            }
            libs = nl;
        }
        libs[n++] = lib;
    }
    closedir(d);
    ps_template_store *s = NULL;
    if (ok) {
        s = tpl_store_from(libs, n);
        if (!s)
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        for (size_t i = 1; s && i < s->n; i++)
            if (strcmp(s->libs[i - 1]->site, s->libs[i]->site) == 0) {
                ps_set_error(err, PS_ERR_FORMAT, "%s: two library files for site '%s'", dir, s->libs[i]->site);
                ps_template_store_free(s);
                s = NULL;
            }
    } else {
        for (size_t i = 0; i < n; i++)
            ps_template_lib_free(libs[i]);
    }
    free(libs);
    return s;
}

const ps_template_lib *ps_template_store_get(const ps_template_store *s, const char *site)
{
    if (!s || !site)
        return NULL;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s->libs[mid]->site, site);
        if (c == 0)
            return s->libs[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t ps_template_store_count(const ps_template_store *s)
{
    return s ? s->n : 0;
}

const ps_template_lib *ps_template_store_lib(const ps_template_store *s, size_t i)
{
    return s && i < s->n ? s->libs[i] : NULL;
}

void ps_template_store_free(ps_template_store *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        ps_template_lib_free(s->libs[i]);
    free(s->libs);
    free(s);
}

/* ---- a lock on a library folder ------------------------------------------ */

/* An exclusive flock on DIR/.lock (created, with DIR), held until
 * ps_template_dir_unlock: two `pagesift-template build --update` on one
 * folder run one after the other instead of losing one's update (each read
 * the libraries, added its pages and wrote them back over the other's).
 * When another process holds it, *waited is set and the call waits. */
int ps_template_dir_lock(const char *dir, int *waited, ps_error *err)
{
    if (waited)
        *waited = 0;
    if (tpl_mkdir_p(dir, err) < 0)
        return -1;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/.lock", dir) >= (int)sizeof path)
        return ps_set_error(err, PS_ERR_IO, "%s: path too long", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot create the lock file: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            int e = errno;
            close(fd);
            return ps_set_error(err, PS_ERR_IO, "%s: cannot lock: %s", path, strerror(e));
        }
        if (waited)
            *waited = 1;
        while (flock(fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                int e = errno;
                close(fd);
                return ps_set_error(err, PS_ERR_IO, "%s: cannot lock: %s", path, strerror(e));
            }
        }
    }
    return fd;
}

void ps_template_dir_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}
