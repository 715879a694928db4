/* batch/batch.c — batch extraction (batch/batch.h): the per-page work
 * (parse, site key, extract, the record in the output format of
 * output/formats.c's table) on the worker threads, and the writer (stream
 * or one file per page, counts, progress) on the calling thread, over the
 * engine of batch/pipeline.c. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/progress.h"
#include "batch/batch.h"
#include "batch/dedup.h"
#include "pagesift/inputs.h"
#include "pagesift/pipeline.h"

enum { REC_OK, REC_EMPTY, REC_FAILED, REC_SKIPPED, REC_FILTERED, REC_DUPLICATE };
static const char *const rec_status[] = {"ok", "empty", "failed", "skipped", "filtered", "duplicate"};

/* Whether @p lang ("en", "zh-Hant", NULL) is one of the comma-separated
 * codes of @p langs (any case; a code matches a language and its regional
 * forms). */
static int lang_wanted(const char *langs, const char *lang)
{
    if (!lang || !*lang)
        return 0;
    size_t n = strcspn(lang, "-_");
    for (const char *p = langs; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && ps_ascii_ncasecmp(p, lang, n) == 0)
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

/* Bounds on pages' bytes in the pipeline (docs/EXTRACTION.md, "Threads and
 * memory"): read ahead and waiting for a worker at most QUEUED (a run of
 * large pages is not read far ahead of the workers), and being worked at
 * once at most WORKING_BYTES_PER_WORKER times the workers, or one page
 * alone whatever its size (a page takes 5-40 times its bytes while it is
 * worked: two 2 MB pages at once were most of the peak of a run over every
 * data set).  Pages of the usual sizes (a median of 65 KB over the eight
 * data sets) meet neither.
 * 2 MiB for all the workers together kept one of two cores idle 15 % of
 * the time on wcxb-dev, whose 78 pages over 1 MiB hold a third of its
 * bytes (docs/research/SPEED.md, "what keeps -j 2 from x2"); 4 MiB at
 * -j 2 still kept them 4 % idle: the bound is at least WORKING_BYTES_MIN
 * together (-j 2 and -j 3), which the eight data sets in one WARC do not
 * notice in peak RSS, and as before 2 MiB a worker from -j 4 up, so that
 * the worst case of many workers does not grow ("the page read where it
 * is", SPEED.md). */
#define BATCH_QUEUED_BYTES ((size_t)4 << 20)
#define BATCH_WORKING_BYTES_PER_WORKER ((size_t)2 << 20)
#define BATCH_WORKING_BYTES_MIN ((size_t)8 << 20)

typedef struct batch_job {
    ps_input in;
    uint64_t pos;      /* input bytes read when it was (progress by bytes) */
    char *stem;        /* unique output file stem (output_dir) */
    int status;        /* REC_* */
    char msg[512];     /* when failed */
    ps_buf out;        /* the formatted record */
    int oom;           /* it could not be formatted (out is empty) */
    int http_status;   /* a fetched page (ps_source_fetch_info): its status */
    char *final_url;   /* and URL after redirects; else 0, NULL */
    ps_fingerprint fp; /* --dedup: its text's (words 0: none) */
    int exists;        /* skipped by --skip-existing: its output is there */
} batch_job;

/* Output file stems already used: a chained hash set, touched by the reader
 * thread only (so the names do not depend on thread timing). */
typedef struct name_node {
    struct name_node *next;
    char name[];
} name_node;

typedef struct name_set {
    name_node **tab;
    size_t cap, n;
} name_set;

typedef struct batch_ctx {
    const ps_batch_config *cfg;
    const ps_output_format *fmt; /* cfg->format's row of the format table */
    ps_buf head;       /* what the format writes before its records (CSV's header row) */
    int head_written;  /* ... on the stream already */
    ps_batch_read_fn read;
    void *read_ctx;
    ps_source *src;    /* the source behind read, when it is one (bytes done) */
    ps_batch_counts counts;
    name_set names;
    ps_progress *prog;
    int torn;          /* the stream ends inside a record that could not be taken back */
    const char *run_id; /* output_dir: this run's mark in its temporary files' names */
    ps_dedup *dedup;   /* --dedup: the kept pages (batch/dedup.h) */
    int manifest;      /* output_dir: DIR/manifest.tsv open for appending, or -1 */
    int manifest_torn; /* a line of it was cut short: the next starts on a line of its own */
    ps_buf mline;      /* the line being made */
} batch_ctx;

/* ---- unique output names ------------------------------------------------ */

static int names_has(const name_set *s, const char *name, uint64_t h)
{
    if (!s->cap)
        return 0;
    for (name_node *n = s->tab[h & (s->cap - 1)]; n; n = n->next)
        if (strcmp(n->name, name) == 0)
            return 1;
    return 0;
}

static int names_add(name_set *s, const char *name, uint64_t h)
{
    if (s->n * 2 >= s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        name_node **tab = calloc(cap, sizeof *tab);
        if (!tab)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            for (name_node *n = s->tab[i], *nx; n; n = nx) {
                nx = n->next;
                size_t k = ps_hash64(n->name, strlen(n->name)) & (cap - 1);
                n->next = tab[k];
                tab[k] = n;
            }
        free(s->tab);
        s->tab = tab;
        s->cap = cap;
    }
    size_t len = strlen(name);
    name_node *n = malloc(sizeof *n + len + 1);
    if (!n)
        return -1;
    memcpy(n->name, name, len + 1);
    n->next = s->tab[h & (s->cap - 1)];
    s->tab[h & (s->cap - 1)] = n;
    s->n++;
    return 0;
}

static void names_free(name_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        for (name_node *n = s->tab[i], *nx; n; n = nx) {
            nx = n->next;
            free(n);
        }
    free(s->tab);
    memset(s, 0, sizeof *s);
}

/* A file stem from a record id: bytes other than letters, digits, '.', '-'
 * and '_' become '_' (so a WARC "<urn:uuid:...>" or a path cannot escape the
 * folder), at most 180 bytes, no leading '.'; then "-2", "-3", ... until it
 * is unused. */
static char *unique_stem(name_set *s, const char *id)
{
    char base[200];
    size_t n = 0;
    for (const char *p = id ? id : ""; *p && n < 180; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '-' || c == '_';
        base[n++] = ok ? c : '_';
    }
    base[n] = '\0';
    if (n == 0)
        strcpy(base, "page");
    if (base[0] == '.')
        base[0] = '_';
    char name[224];
    snprintf(name, sizeof name, "%s", base);
    for (unsigned k = 2;; k++) {
        uint64_t h = ps_hash64(name, strlen(name));
        if (!names_has(s, name, h)) {
            if (names_add(s, name, h) != 0)
                return NULL;
            return strdup(name);
        }
        snprintf(name, sizeof name, "%s-%u", base, k);
    }
}

/* The extension of a page's output file by format and REC_* status
 * (".error" for a page that failed and ".duplicate" for a duplicate, in a
 * format whose records are not also failures'). */
static const char *out_ext(const ps_output_format *fmt, int status)
{
    if (status == REC_FAILED && !(fmt->flags & PS_OUT_RECORDS))
        return ".error";
    if (status == REC_DUPLICATE && !(fmt->flags & PS_OUT_RECORDS))
        return ".duplicate";
    return fmt->extension;
}

/* Is there the output file of stem @p stem: its record, or with --dedup the
 * file saying it is a duplicate? */
static int output_there(const ps_batch_config *cfg, const ps_output_format *fmt, const char *stem)
{
    char path[PATH_MAX];
    struct stat st;
    for (int k = 0; k < 1 + (cfg->dedup != 0); k++) {
        snprintf(path, sizeof path, "%s/%s%s", cfg->output_dir, stem, out_ext(fmt, k ? REC_DUPLICATE : REC_OK));
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            return 1;
    }
    return 0;
}

/* ---- reader (reader thread) --------------------------------------------- */

static int batch_read(void *vctx, void *vjob, ps_error *err)
{
    batch_ctx *c = vctx;
    batch_job *j = vjob;
    int r = c->read(c->read_ctx, &j->in, err);
    if (r != 1)
        return r;
    j->pos = c->src ? ps_source_bytes_done(c->src) : 0;
    const ps_fetch_info *fi = c->src ? ps_source_fetch_info(c->src) : NULL;
    j->http_status = fi ? fi->http_status : 0;
    free(j->final_url);
    j->final_url = fi && fi->final_url ? strdup(fi->final_url) : NULL;
    /* skipped before it came here because its output is there (a URL
     * --skip-existing did not fetch): its manifest line stands */
    j->exists = j->in.skipped && c->cfg->output_dir && c->cfg->skip_existing && j->in.id &&
                output_there(c->cfg, c->fmt, j->in.id);
    if (j->in.skipped && c->cfg->verbose && !c->cfg->quiet)
        ps_print("skipped %s: %s", j->in.origin ? j->in.origin : j->in.id,
                j->in.msg[0] ? j->in.msg : "not a page");
    if (c->cfg->output_dir && !j->in.skipped) {
        j->stem = unique_stem(&c->names, j->in.id);
        if (!j->stem) {
            ps_input_clear(&j->in);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        if (c->cfg->skip_existing) { /* resume: the page's output is there */
            if (output_there(c->cfg, c->fmt, j->stem)) {
                j->in.skipped = 1;
                j->exists = 1;
                snprintf(j->in.msg, sizeof j->in.msg, "output exists (--skip-existing)");
                free(j->in.data);
                j->in.data = NULL;
            }
        }
    }
    return 1;
}

/* ---- per-page work (worker threads) ------------------------------------- */

static void fail_job(batch_job *j, const char *msg)
{
    j->status = REC_FAILED;
    snprintf(j->msg, sizeof j->msg, "%.511s", msg);
}

/* "<origin>: <msg>", the page named first. */
static void fail_at(batch_job *j, const char *msg)
{
    const char *where = j->in.origin ? j->in.origin : j->in.id ? j->in.id : "page";
    j->status = REC_FAILED;
    if (strncmp(msg, where, strlen(where)) == 0) /* the message names it already */
        snprintf(j->msg, sizeof j->msg, "%.511s", msg);
    else
        snprintf(j->msg, sizeof j->msg, "%.200s: %.300s", where, msg);
}

/* The page's record in the run's format into j->out.  A failed page in a
 * file of its own, in a format whose records are not also failures', is its
 * message (ID.error). */
static void format_job(batch_ctx *c, batch_job *j, ps_page *page, const ps_extraction *x, const char *site)
{
    const ps_batch_config *cfg = c->cfg;
    const ps_output_format *fmt = c->fmt;
    ps_record r;
    ps_record_of(&r, &j->in, page, x, site);
    r.http_status = j->http_status;
    r.final_url = j->final_url;
    ps_metadata meta;
    int filter = cfg->langs && (j->status == REC_OK || j->status == REC_EMPTY);
    int want_meta = (fmt->flags & PS_OUT_METADATA) || (cfg->render_flags & PS_RENDER_METADATA);
    int have_meta = (want_meta || filter) && page && ps_page_metadata(page, x, &meta, NULL) == 0;
    if (filter && !lang_wanted(cfg->langs, have_meta ? meta.lang : NULL)) {
        j->status = REC_FILTERED; /* no record; the manifest's note says why */
        snprintf(j->msg, sizeof j->msg, "language %.64s, not in --lang %.400s",
                 have_meta && meta.lang && *meta.lang ? meta.lang : "unknown", cfg->langs);
        if (have_meta)
            ps_metadata_free(&meta);
        return;
    }
    r.meta = have_meta && (fmt->flags & PS_OUT_METADATA) ? &meta : NULL;
    ps_out_page p = {.rec = &r, .page = page, .x = x, .method = ps_extractor_method(cfg->extractor),
                     .render_flags = cfg->render_flags, .headers = cfg->text_headers && !cfg->output_dir,
                     .meta = have_meta && want_meta ? &meta : NULL};
    int rc = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        ps_error e = {0};
        if (j->status == REC_FAILED) {
            r.status = rec_status[REC_FAILED];
            r.error = j->msg;
        }
        if (j->status == REC_FAILED && cfg->output_dir && !(fmt->flags & PS_OUT_RECORDS)) {
            rc = ps_buf_printf(&j->out, "%s\n", j->msg);
            break;
        }
        if (cfg->output_dir && fmt->head && (rc = ps_buf_append(&j->out, c->head.data, c->head.len)) != 0)
            break;
        if ((rc = fmt->render(&p, &j->out, &e)) == 0 || j->status == REC_FAILED || e.code == PS_ERR_NOMEM ||
            !e.msg[0])
            break;
        /* the format could not render the page (the HTML view of a page
         * without a body): the page fails with its message */
        fail_at(j, e.msg);
        j->out.len = 0;
    }
    if (rc != 0) {
        fail_job(j, "out of memory formatting the record");
        j->out.len = 0;
        j->oom = 1;
    }
    if (have_meta)
        ps_metadata_free(&meta);
}

static void batch_work(void *vctx, unsigned worker, void *vjob)
{
    (void)worker;
    batch_ctx *c = vctx;
    const ps_batch_config *cfg = c->cfg;
    batch_job *j = vjob;
    j->fp.words = 0;
    if (j->in.skipped) {
        j->status = REC_SKIPPED;
        return;
    }
    char site[512];
    ps_page *page = NULL;
    ps_extraction x = {0};
    ps_error e = {0};
    double t0 = ps_now();
    ps_step_options so = {.site_rule = cfg->site_rule,
                          .max_bytes = cfg->max_bytes,
                          .page_flags = ps_out_page_flags(c->fmt, cfg->render_flags, cfg->langs != NULL)};
    if (cfg->page_timeout > 0)
        so.deadline = t0 + cfg->page_timeout;
    if (j->in.status != PS_OK) {
        ps_input_site(&j->in, cfg->site_rule, site, sizeof site);
        fail_at(j, j->in.msg[0] ? j->in.msg : "cannot read the page");
    } else if (ps_extract_input(cfg->extractor, &j->in, &so, site, sizeof site, &page, &x, &e) != 0) {
        fail_at(j, e.msg[0] ? e.msg
                   : page ? "extraction failed (no message: out of memory?)"
                          : "the page could not be parsed");
    } else {
        j->status = x.len ? REC_OK : REC_EMPTY;
        /* The deadline is checked inside the page model's walk; the parse,
         * the features and the SVM are bounded by the page's bounds
         * (docs/EXTRACTION.md) and checked here, after the fact. */
        double took = ps_now() - t0;
        if (cfg->page_timeout > 0 && took > cfg->page_timeout) {
            char m[160];
            snprintf(m, sizeof m, "took %.1f s, longer than the page time limit of %g s (--page-timeout)", took,
                     cfg->page_timeout);
            fail_at(j, m);
            ps_extraction_free(&x);
            memset(&x, 0, sizeof x);
        }
    }
    if (cfg->dedup && j->status == REC_OK) /* here, on the workers; looked up in input order */
        ps_fingerprint_text(x.text, x.len, &j->fp);

    format_job(c, j, page, &x, site);
    ps_extraction_free(&x);
    ps_page_free(page);
}

/* ---- writer (calling thread) -------------------------------------------- */

/* Write a file atomically for readers (temporary + rename), without an
 * fsync per page: a batch over millions of pages cannot pay one.  The
 * temporary file is "<path>.tmp.<run id>.XXXXXX": its run's (run_lock). */
static int write_page_file(const char *path, const char *run_id, const char *data, size_t len, ps_error *err)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%s.XXXXXX", path, run_id) >= (int)sizeof tmp)
        return ps_set_error(err, PS_ERR_IO, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fchmod(fd, 0644);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return ps_set_error(err, PS_ERR_IO, "%s: write failed: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return ps_set_error(err, PS_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

/* All of @p len bytes to @p fd: a short write is continued, EINTR and
 * EAGAIN retried.  Returns 0, or the errno of the write that failed, with
 * *done the bytes that were written. */
static int write_all(int fd, const char *data, size_t len, size_t *done)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, 1000);
            continue;
        }
        *done = off;
        return w < 0 ? errno : EIO;
    }
    *done = off;
    return 0;
}

/* One record into the output stream, whole or not at all: a JSON Lines
 * record cut short by a write error (a full disk, a file size limit) and
 * then followed by the next record glued two records into one line that
 * parses as neither (issue 32).  The record is written with write(2), past
 * stdio's buffer (which kept the unwritten tail of a failed record and put
 * it in front of the next one); a short write is continued; on an error
 * after part of the record went out, a regular file is cut back to where the
 * record began (the record fails, the file holds whole records only), and
 * on a stream that cannot be cut back (a pipe) the next record starts on a
 * line of its own, after the torn one. */
static int write_record(batch_ctx *c, FILE *out, const char *data, size_t len, ps_error *err)
{
    int fd = fileno(out);
    if (fd < 0) { /* a stream without a file descriptor: stdio, flushed */
        if (fwrite(data, 1, len, out) != len || fflush(out) != 0)
            return ps_set_error(err, PS_ERR_IO, "cannot write the output: %s", strerror(errno));
        return 0;
    }
    if (fflush(out) != 0) /* anything written before through stdio first */
        return ps_set_error(err, PS_ERR_IO, "cannot write the output: %s", strerror(errno));
    struct stat st;
    off_t start = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        int fl = fcntl(fd, F_GETFL);
        start = fl != -1 && (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
    }
    size_t done = 0;
    int e;
    if (c->torn) { /* end the torn line first */
        if ((e = write_all(fd, "\n", 1, &done)) != 0)
            return ps_set_error(err, PS_ERR_IO, "cannot write the output: %s", strerror(e));
        c->torn = 0;
        if (start >= 0)
            start++;
    }
    if ((e = write_all(fd, data, len, &done)) == 0)
        return 0;
    if (done > 0) {
        int undone = start >= 0 && fstat(fd, &st) == 0 && st.st_size == start + (off_t)done &&
                     ftruncate(fd, start) == 0 && lseek(fd, start, SEEK_SET) == start;
        if (!undone)
            c->torn = 1;
    }
    return ps_set_error(err, PS_ERR_IO, "cannot write the output: %s", strerror(e));
}

/* ---- the folder's manifest (DIR/manifest.tsv) --------------------------- */

/* One line per record read (docs/EXTRACTION.md, "The manifest"): which
 * file holds it, its status, its URL, its id in the folder (the file's name
 * without the extension), where it came from and a note (why it failed or
 * was skipped or filtered, which page it duplicates).  Appended (O_APPEND),
 * each line in one write(2), so the lines of runs writing into one folder
 * at once do not mix; a page's line goes out before its file is renamed
 * into place, so a file in the folder always has a line, and a line whose
 * file is missing is a page a killed run did not finish (--skip-existing
 * does it again and appends its new line: the last line of an id wins). */
#define MANIFEST_HEADER "file\tstatus\turl\tid\torigin\tnote\n"

/* Open @p dir's manifest for appending, made with its header when it is not
 * there.  Under an exclusive flock (runs starting into one folder at once
 * take turns; lines are appended without it): an empty file gets the
 * header (its first opener writes it, so every line comes after it), a
 * header cut short by a kill is written again, a last line cut short gets
 * its line break (it stays, a line of fewer fields or a cut last field,
 * whose page a resumed run does again), and a file that is not a manifest
 * is refused.  The descriptor, or -1 with err. */
static int manifest_open(const char *dir, ps_error *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" PS_BATCH_MANIFEST, dir) >= (int)sizeof path) {
        ps_set_error(err, PS_ERR_IO, "%s: path too long", dir);
        return -1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        ps_set_error(err, PS_ERR_IO, "%s: cannot open the manifest: %s", path, strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
        ;
    static const char header[] = MANIFEST_HEADER;
    const size_t hl = sizeof header - 1;
    char head[sizeof header], last = '\n';
    struct stat st;
    const char *why = NULL;
    int rc = fstat(fd, &st) == 0 ? 0 : errno;
    if (rc == 0 && st.st_size > 0) {
        errno = 0;
        ssize_t got = pread(fd, head, hl, 0);
        if (got <= 0 || pread(fd, &last, 1, st.st_size - 1) != 1)
            rc = errno ? errno : EIO;
        else if (memcmp(head, header, (size_t)got) != 0)
            why = "its first line is not the header of pagesift's manifest";
        else if (st.st_size < (off_t)hl && ftruncate(fd, 0) != 0) /* the header cut short: again */
            rc = errno;
    }
    size_t done;
    if (rc == 0 && !why && st.st_size < (off_t)hl)
        rc = write_all(fd, header, hl, &done);
    else if (rc == 0 && !why && last != '\n') /* a line cut short by a kill */
        rc = write_all(fd, "\n", 1, &done);
    flock(fd, LOCK_UN);
    if (rc == 0 && !why)
        return fd;
    close(fd);
    if (why)
        ps_set_error(err, PS_ERR_IO, "%s: %s; move it away, or give --no-manifest", path, why);
    else
        ps_set_error(err, PS_ERR_IO, "%s: cannot write the manifest: %s", path, strerror(rc));
    return -1;
}

/* A field: a tab, a line break, a carriage return and a backslash as \t,
 * \n, \r and \\, so that a line holds one record whatever a path or a
 * message holds. */
static int manifest_field(ps_buf *b, const char *s, int last)
{
    for (const char *p = s ? s : ""; *p; p++) {
        const char *esc = *p == '\t'   ? "\\t"
                          : *p == '\n' ? "\\n"
                          : *p == '\r' ? "\\r"
                          : *p == '\\' ? "\\\\"
                                        : NULL;
        int rc = esc ? ps_buf_append(b, esc, 2) : ps_buf_append(b, p, 1);
        if (rc != 0)
            return rc;
    }
    return ps_buf_append(b, last ? "\n" : "\t", 1);
}

/* The record's line: @p file (relative to the folder; "" when it has
 * none), its status @p status (REC_*), its id in the folder (the stem; ""
 * for a record that is not a page), URL, origin and @p note.  One write;
 * 0, or -1 with err. */
static int manifest_line(batch_ctx *c, const batch_job *j, const char *file, int status, const char *note,
                         ps_error *err)
{
    ps_buf *b = &c->mline;
    b->len = 0;
    if ((c->manifest_torn && ps_buf_append(b, "\n", 1) != 0) || manifest_field(b, file, 0) != 0 ||
        manifest_field(b, rec_status[status], 0) != 0 || manifest_field(b, j->in.url, 0) != 0 ||
        manifest_field(b, j->stem, 0) != 0 || manifest_field(b, j->in.origin, 0) != 0 ||
        manifest_field(b, note, 1) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    size_t done = 0;
    int e = write_all(c->manifest, b->data, b->len, &done);
    if (e == 0) {
        c->manifest_torn = 0;
        return 0;
    }
    if (done > 0)
        c->manifest_torn = 1;
    return ps_set_error(err, PS_ERR_IO, "%s/" PS_BATCH_MANIFEST ": cannot write: %s", c->cfg->output_dir,
                        strerror(e));
}

static void job_release(batch_job *j)
{
    ps_input_clear(&j->in);
    free(j->stem);
    free(j->final_url);
    j->final_url = NULL;
    ps_buf_free(&j->out);
}

int ps_batch_output_exists(const ps_batch_config *cfg, const char *id)
{
    const ps_output_format *fmt = ps_output_format_at((size_t)cfg->format);
    if (!cfg->output_dir || !fmt)
        return 0;
    return output_there(cfg, fmt, id);
}

/* A failed record whose formatting failed (out of memory): the format's
 * minimal one, written without allocating, so that no record vanishes. */
static void last_resort_record(const batch_ctx *c, batch_job *j, char *buf, size_t cap)
{
    ps_record r = {.id = j->in.id ? j->in.id : "", .status = rec_status[REC_FAILED], .error = j->msg};
    ps_out_page p = {.rec = &r, .headers = c->cfg->text_headers && !c->cfg->output_dir};
    if (c->fmt->last_resort)
        c->fmt->last_resort(&p, buf, cap);
    else if (p.headers)
        snprintf(buf, cap, "==> %s <== failed: %s\n", r.id, j->msg);
    else
        snprintf(buf, cap, "<!-- pagesift: failed: %s -->\n", j->msg);
}

/* A duplicate's record (--dedup) into j->out, instead of its own: the
 * page's id and URL, status "duplicate" and the kept page @p m, no text;
 * in a folder, in a format whose records are not also failures', the file
 * ID.duplicate says which page it duplicates. */
static int format_duplicate(batch_ctx *c, batch_job *j, const ps_dedup_match *m, ps_error *err)
{
    const ps_batch_config *cfg = c->cfg;
    ps_extraction none = {0};
    ps_record r;
    ps_record_of(&r, &j->in, NULL, &none, NULL);
    r.status = rec_status[REC_DUPLICATE];
    r.http_status = j->http_status;
    r.final_url = j->final_url;
    r.duplicate_of = m->id;
    r.duplicate_of_url = m->url;
    r.duplicate_distance = m->distance;
    ps_out_page p = {.rec = &r, .x = &none, .method = ps_extractor_method(cfg->extractor),
                     .render_flags = cfg->render_flags, .headers = cfg->text_headers && !cfg->output_dir};
    j->status = REC_DUPLICATE;
    j->out.len = 0;
    snprintf(j->msg, sizeof j->msg, "duplicate of %.200s%s%.250s (SimHash distance %d)",
             m->stem && *m->stem ? m->stem : m->id,
             m->url ? " " : "", m->url ? m->url : "", m->distance); /* the manifest's note */
    ps_error e = {0};
    int rc;
    if (cfg->output_dir && !(c->fmt->flags & PS_OUT_RECORDS))
        rc = ps_buf_printf(&j->out, "duplicate of %s%s%s (SimHash distance %d)\n", m->id, m->url ? " " : "",
                           m->url ? m->url : "", m->distance);
    else if ((rc = cfg->output_dir && c->fmt->head ? ps_buf_append(&j->out, c->head.data, c->head.len) : 0) == 0)
        rc = c->fmt->render(&p, &j->out, &e);
    return rc ? ps_set_error(err, PS_ERR_NOMEM, "out of memory") : 0;
}

/* --dedup, on the writer, in input order: a page whose text duplicates a
 * kept page's gets a duplicate record; a kept page goes into the index
 * (*indexed: taken back if its record cannot be written).  -1 with err
 * when the index cannot be read or written: the run stops. */
static int dedup_page(batch_ctx *c, batch_job *j, int *indexed, ps_error *err)
{
    ps_dedup_match m;
    int found = ps_dedup_find(c->dedup, &j->fp, j->stem, &m, err);
    if (found == 1)
        return format_duplicate(c, j, &m, err);
    if (found == 0 && ps_dedup_add(c->dedup, &j->fp, j->stem ? j->stem : "", j->in.id, j->in.url, err) != 0)
        return -1;
    *indexed = found == 0; /* 2: the page's own line, from a run stopped before writing it */
    return found < 0 ? -1 : 0;
}

/* The bytes a read job holds until a worker takes it: its page. */
static size_t batch_job_bytes(void *vctx, const void *vjob)
{
    (void)vctx;
    const batch_job *j = vjob;
    return j->in.data ? j->in.len : 0;
}

static int batch_write(void *vctx, void *vjob, ps_error *err)
{
    batch_ctx *c = vctx;
    const ps_batch_config *cfg = c->cfg;
    batch_job *j = vjob;
    int rc = 0, indexed = 0;
    char spare[2048];
    if (c->dedup && j->status == REC_OK && j->fp.words && dedup_page(c, j, &indexed, err) != 0) {
        c->counts.abandoned++; /* no record: the run stops */
        job_release(j);
        return -1;
    }
    const char *data = j->out.data ? j->out.data : "";
    size_t len = j->out.len;
    if (j->oom && !(cfg->output_dir && !(c->fmt->flags & PS_OUT_RECORDS))) {
        last_resort_record(c, j, spare, sizeof spare);
        data = spare;
        len = strlen(spare);
    }
    /* the manifest's note: why it failed, was skipped or filtered, which
     * page it duplicates */
    const char *note = j->status == REC_SKIPPED ? j->in.msg
                       : j->status == REC_OK || j->status == REC_EMPTY ? "" : j->msg;
    if (j->status != REC_SKIPPED && j->status != REC_FILTERED) {
        ps_error we = {0};
        int wrc = 0, lined = 0;
        if (cfg->output_dir) {
            char path[PATH_MAX], old[PATH_MAX];
            const char *ext = out_ext(c->fmt, j->status);
            snprintf(path, sizeof path, "%s/%s%s", cfg->output_dir, j->stem, ext);
            /* its line first: a file in the folder always has one */
            if (c->manifest >= 0)
                wrc = manifest_line(c, j, path + strlen(cfg->output_dir) + 1, j->status, note, &we);
            lined = wrc == 0 && c->manifest >= 0;
            if (wrc == 0)
                wrc = write_page_file(path, c->run_id, data, len, &we);
            static const int outcomes[] = {REC_OK, REC_FAILED, REC_DUPLICATE};
            for (size_t k = 0; wrc == 0 && k < sizeof outcomes / sizeof *outcomes; k++) {
                /* a rerun: the page's output of another outcome goes */
                if (!strcmp(out_ext(c->fmt, outcomes[k]), ext))
                    continue;
                snprintf(old, sizeof old, "%s/%s%s", cfg->output_dir, j->stem, out_ext(c->fmt, outcomes[k]));
                if (unlink(old) != 0 && errno != ENOENT && !cfg->quiet)
                    ps_print("%s: cannot remove: %s", old, strerror(errno));
            }
        } else if (len) {
            /* record by record: a record is counted written only once the
             * stream took all of it (before, records left in stdio's buffer
             * were counted extracted, then lost at the next flush) */
            if (c->head.len && !c->head_written) /* once, before the first record */
                wrc = write_record(c, cfg->out, c->head.data, c->head.len, &we);
            c->head_written = wrc == 0;
            if (wrc == 0)
                wrc = write_record(c, cfg->out, data, len, &we);
        }
        if (wrc != 0) { /* the record is lost: it failed */
            const char *where = j->in.origin ? j->in.origin : j->in.id ? j->in.id : "page";
            snprintf(j->msg, sizeof j->msg, "%.200s: %.300s", where, we.msg);
            j->status = REC_FAILED;
            if (indexed) /* not kept after all */
                ps_dedup_undo_add(c->dedup);
            if (cfg->fail_fast)
                rc = ps_set_error(err, PS_ERR_IO, "%s (--fail-fast)", j->msg);
            ps_error me = {0}; /* its line named a file that is not there: the page failed */
            if (lined && manifest_line(c, j, "", REC_FAILED, j->msg, &me) != 0 && !cfg->quiet)
                ps_print("%s", me.msg);
        }
    } else if (c->manifest >= 0 && !j->exists) { /* no file: the line alone */
        ps_error me = {0};
        if (manifest_line(c, j, "", j->status, note, &me) != 0 && !cfg->quiet)
            ps_print("%s", me.msg);
    }
    c->counts.read++;
    c->counts.bytes += j->in.len;
    switch (j->status) {
    case REC_OK: c->counts.extracted++; break;
    case REC_EMPTY: c->counts.empty++; break;
    case REC_FAILED: c->counts.failed++; break;
    case REC_FILTERED: c->counts.filtered++; break;
    case REC_DUPLICATE: c->counts.duplicates++; break;
    default: c->counts.skipped++; break;
    }
    if (j->status == REC_FAILED && !cfg->quiet && rc == 0)
        ps_print("%s", j->msg);
    ps_progress_report(c->prog, c->counts.read, c->counts.failed, j->pos);
    job_release(j);
    return rc;
}

/* A page read but never written (an interrupt, a fatal error): no record;
 * counted apart from read, so that read = extracted + empty + failed +
 * skipped stays true and the run's report says what it dropped. */
static void batch_discard(void *vctx, void *vjob)
{
    batch_ctx *c = vctx;
    c->counts.abandoned++;
    job_release(vjob);
}

/* ---- temporary files owned by their run ---------------------------------- */

/* Every run that writes into an output folder holds a lock file there,
 * ".pagesift-run.XXXXXX" (mkstemp's six characters are the run's id), with
 * an exclusive flock for as long as it runs, and names its temporary files
 * "<stem>.<ext>.tmp.<id>.XXXXXX".  A temporary file whose run holds its
 * lock belongs to a live run and is left alone; one whose lock file is gone
 * or not held (the run was killed: the kernel released its lock) is stale.
 * Before, --skip-existing removed every temporary file it found, also those
 * of another run writing into the same folder at that moment, whose records
 * then failed (6 of 10; issue 32). */
#define RUN_LOCK_PREFIX ".pagesift-run."
#define ID_LEN 6

typedef struct run_lock {
    int fd;
    char id[ID_LEN + 1];
    char path[PATH_MAX];
} run_lock;

static int run_lock_take(const char *dir, run_lock *l, ps_error *err)
{
    l->fd = -1;
    for (int tries = 0; tries < 100; tries++) {
        if (snprintf(l->path, sizeof l->path, "%s/" RUN_LOCK_PREFIX "XXXXXX", dir) >= (int)sizeof l->path)
            return ps_set_error(err, PS_ERR_IO, "%s: path too long", dir);
        int fd = mkstemp(l->path);
        if (fd < 0)
            return ps_set_error(err, PS_ERR_IO, "%s: cannot create the run's lock file: %s", dir, strerror(errno));
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
            ;
        /* a cleaner may have taken the fresh, not yet locked file for a
         * dead run's and removed it: then again, under another name */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            l->fd = fd;
            memcpy(l->id, l->path + strlen(l->path) - ID_LEN, ID_LEN + 1);
            return 0;
        }
        close(fd);
    }
    return ps_set_error(err, PS_ERR_IO, "%s: cannot create the run's lock file", dir);
}

static void run_lock_release(run_lock *l)
{
    if (l->fd >= 0) {
        unlink(l->path);
        close(l->fd); /* releases the flock */
        l->fd = -1;
    }
}

static int id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int id_at(const char *s)
{
    for (int i = 0; i < ID_LEN; i++)
        if (!id_char(s[i]))
            return 0;
    return 1;
}

/* Is @p name a temporary file of write_page_file?  0 no; 1 of a run whose
 * id goes to @p run (id_cap >= ID_LEN + 1): "<stem>.<ext>.tmp.<id>.XXXXXX";
 * 2 of a pagesift before runs owned them: "<stem>.<ext>.tmp.XXXXXX". */
static int page_temp_kind(const char *name, char *run)
{
    size_t n = strlen(name), stem_end;
    int kind;
    if (n >= 18 && memcmp(name + n - 18, ".tmp.", 5) == 0 && id_at(name + n - 13) && name[n - 7] == '.' &&
        id_at(name + n - 6)) {
        kind = 1;
        stem_end = n - 18;
        memcpy(run, name + n - 13, ID_LEN);
        run[ID_LEN] = '\0';
    } else if (n >= 11 && memcmp(name + n - 11, ".tmp.", 5) == 0 && id_at(name + n - 6)) {
        kind = 2;
        stem_end = n - 11;
    } else {
        return 0;
    }
    static const char *const own[] = {".error", ".duplicate"};
    size_t n_formats = 0;
    while (ps_output_format_at(n_formats))
        n_formats++;
    for (size_t i = 0; i < n_formats + 2; i++) { /* every format's extension, then .error, .duplicate */
        const char *ext = i < n_formats ? ps_output_format_at(i)->extension : own[i - n_formats];
        size_t el = strlen(ext);
        if (stem_end > el && memcmp(name + stem_end - el, ext, el) == 0)
            return kind;
    }
    return 0;
}

/* Is the run of lock file @p path alive (holding its lock)?  With @p take,
 * a dead run's lock file is removed, under its lock. */
static int run_alive(const char *path, int take)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 0; /* gone: the run ended (its temporary files went first) */
    int alive = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (!alive && take) {
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            unlink(path);
    }
    close(fd);
    return alive;
}

/* A resumed run (--skip-existing): the temporary files a run killed while
 * writing left (SIGKILL, a second signal, a crash) go, and so do their
 * runs' lock files; their pages have no output file, so they are extracted
 * again.  Those of a run still writing stay. */
static void remove_stale_temps(const ps_batch_config *cfg, const char *own_id)
{
    DIR *d = opendir(cfg->output_dir);
    if (!d)
        return;
    size_t removed = 0, live = 0;
    struct dirent *e;
    char run[ID_LEN + 1], path[PATH_MAX];
    for (int pass = 0; pass < 2; pass++) { /* temporary files, then the dead runs' lock files */
        rewinddir(d);
        while ((e = readdir(d)) != NULL) {
            snprintf(path, sizeof path, "%s/%s", cfg->output_dir, e->d_name);
            if (pass == 1) {
                size_t pl = strlen(RUN_LOCK_PREFIX);
                if (!strncmp(e->d_name, RUN_LOCK_PREFIX, pl) && strlen(e->d_name) == pl + ID_LEN &&
                    id_at(e->d_name + pl) && strcmp(e->d_name + pl, own_id) != 0)
                    run_alive(path, 1);
                continue;
            }
            int kind = page_temp_kind(e->d_name, run);
            if (!kind)
                continue;
            if (kind == 1) {
                char lock[PATH_MAX];
                snprintf(lock, sizeof lock, "%s/" RUN_LOCK_PREFIX "%s", cfg->output_dir, run);
                if (!strcmp(run, own_id) || run_alive(lock, 0)) {
                    live++;
                    continue;
                }
            }
            if (unlink(path) == 0)
                removed++;
            else if (errno != ENOENT && !cfg->quiet) /* ENOENT: its run just renamed it */
                ps_print("%s: cannot remove: %s", path, strerror(errno));
        }
    }
    closedir(d);
    if (removed && !cfg->quiet)
        ps_print("removed %zu temporary file%s an earlier run left in %s", removed,
                removed == 1 ? "" : "s", cfg->output_dir);
    if (live && cfg->verbose && !cfg->quiet)
        ps_print("left %zu temporary file%s of a run still writing in %s", live,
                live == 1 ? "" : "s", cfg->output_dir);
}

int ps_batch_prepare_output_dir(const char *dir, ps_error *err)
{
    struct stat st;
    if (ps_mkdir_p(dir) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot create the output folder: %s", dir,
                            strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return ps_set_error(err, PS_ERR_IO, "%s: not a folder", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: not writable: %s", dir, strerror(errno));
    return 0;
}

/* --dedup's index: of the output folder (its kept pages read back when
 * resuming), or of a temporary file for a stream. */
static int open_dedup(const ps_batch_config *cfg, batch_ctx *c, ps_error *err)
{
    if (cfg->unordered)
        return ps_set_error(err, PS_ERR_USAGE, "dedup keeps the first of the copies of a page in input order: "
                                               "not with unordered output");
    int distance = cfg->dedup_distance == PS_DEDUP_EXACT ? 0
                   : cfg->dedup_distance == 0            ? PS_DEDUP_DISTANCE
                                                         : cfg->dedup_distance;
    c->dedup = ps_dedup_open(distance, cfg->output_dir, cfg->skip_existing, err);
    return c->dedup ? 0 : -1;
}

static int run_pass(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                    ps_source *src, ps_batch_counts *counts, ps_error *err)
{
    batch_ctx c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.read = read;
    c.read_ctx = read_ctx;
    c.src = src;
    c.fmt = ps_output_format_at((size_t)cfg->format);
    if (!c.fmt || cfg->format < 0)
        return ps_set_error(err, PS_ERR_USAGE, "ps_batch_run: no output format %d", cfg->format);
    if (c.fmt->head && c.fmt->head(&c.head) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (cfg->output_dir && ps_batch_prepare_output_dir(cfg->output_dir, err) != 0) {
        ps_buf_free(&c.head);
        return -1;
    }
    run_lock lock = {.fd = -1};
    if (cfg->output_dir) {
        if (run_lock_take(cfg->output_dir, &lock, err) != 0) {
            ps_buf_free(&c.head);
            return -1;
        }
        c.run_id = lock.id;
        if (cfg->skip_existing)
            remove_stale_temps(cfg, lock.id);
    }
    c.manifest = -1;
    if (cfg->output_dir && !cfg->no_manifest && (c.manifest = manifest_open(cfg->output_dir, err)) < 0) {
        if (counts) /* before any page: a setup error */
            counts->setup_failed = 1;
        run_lock_release(&lock);
        ps_buf_free(&c.head);
        return -1;
    }
    if (cfg->dedup && open_dedup(cfg, &c, err) != 0) {
        if (c.manifest >= 0)
            close(c.manifest);
        run_lock_release(&lock);
        ps_buf_free(&c.head);
        return -1;
    }
    c.prog = ps_progress_new("pages", cfg->total_hint, cfg->quiet);
    if (!cfg->total_hint && cfg->total_bytes)
        ps_progress_set_bytes(c.prog, cfg->total_bytes);
    ps_pipeline_ops ops = {
        .ctx = &c,
        .job_size = sizeof(batch_job),
        .read = batch_read,
        .work = batch_work,
        .write = batch_write,
        .job_bytes = batch_job_bytes,
    };
    ps_pipeline_opts po = {0};
    /* pages read ahead and waiting for a worker: at most this many bytes
     * (and one page whatever its size), not the raw bytes of 4N+2 pages */
    po.queued_bytes = BATCH_QUEUED_BYTES;
    po.workers = cfg->workers ? cfg->workers : 1;
    if (ps_extractor_is_stateful(cfg->extractor))
        po.workers = 1; /* in input order, one page at a time */
    po.working_bytes = BATCH_WORKING_BYTES_PER_WORKER * (size_t)po.workers;
    if (po.working_bytes < BATCH_WORKING_BYTES_MIN)
        po.working_bytes = BATCH_WORKING_BYTES_MIN; /* one worker: never reached */
    po.ordered = !cfg->unordered;
    po.interrupt = cfg->interrupt;
    int rc = ps_pipeline_run(&ops, &po, batch_discard, err);
    if (rc == 1) {
        c.counts.interrupted = 1;
        rc = 0;
    }
    if (cfg->out && !cfg->output_dir && fflush(cfg->out) != 0 && rc == 0)
        rc = ps_set_error(err, PS_ERR_IO, "cannot write the output: %s", strerror(errno));
    run_lock_release(&lock); /* its temporary files are all renamed or removed */
    if (c.manifest >= 0)
        close(c.manifest);
    ps_buf_free(&c.mline);
    ps_progress_done(c.prog);
    if (c.dedup) {
        c.counts.dedup_kept = ps_dedup_count(c.dedup);
        c.counts.dedup_memory = ps_dedup_memory(c.dedup);
        ps_dedup_close(c.dedup);
    }
    names_free(&c.names);
    ps_buf_free(&c.head);
    if (counts)
        *counts = c.counts;
    return rc;
}

int ps_batch_run_pass(const ps_batch_config *cfg, ps_batch_read_fn read, void *read_ctx,
                      ps_batch_counts *counts, ps_error *err)
{
    return run_pass(cfg, read, read_ctx, NULL, counts, err);
}

/* ---- ps_batch_run: a source, optionally two passes ---------------------- */

static int source_read(void *ctx, ps_input *in, ps_error *err)
{
    return ps_source_next(ctx, in, err);
}

int ps_batch_run(const ps_batch_config *cfg, ps_source *src, ps_batch_counts *counts, ps_error *err)
{
    ps_batch_counts n = {0};
    if (counts)
        *counts = n;
    if (!cfg->learn_templates) {
        if (!cfg->extractor)
            return ps_set_error(err, PS_ERR_USAGE, "ps_batch_run: no extractor");
        return run_pass(cfg, source_read, src, src, counts, err);
    }
    /* first pass: the site libraries, from the inputs themselves */
    double t0 = ps_clock(PS_CLOCK_WALL);
    ps_template_params tp;
    ps_template_params_default(&tp);
    ps_template_builder *b = ps_template_builder_new(&tp);
    if (!b)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = ps_batch_learn_templates(cfg, source_read, src, b, &n.learnt_pages, err);
    ps_template_store *learnt = NULL;
    if (rc == 0) {
        learnt = ps_template_builder_finish(b);
        b = NULL;
        if (!learnt)
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory building the template libraries");
    }
    ps_template_builder_free(b);
    if (rc == 1) { /* interrupted while learning: no second pass */
        ps_template_store_free(learnt);
        n.interrupted = 1;
        n.interrupted_learning = 1;
        if (counts)
            *counts = n;
        return 0;
    }
    if (rc != 0) {
        if (counts)
            *counts = n;
        return rc;
    }
    n.learnt_sites = ps_template_store_count(learnt);
    if (!cfg->quiet)
        ps_print("templates learnt from %zu pages of %zu sites (%.2f s)",
                n.learnt_pages, n.learnt_sites, ps_clock(PS_CLOCK_WALL) - t0);
    /* second pass: extract with them */
    ps_extractor_config xc = {0};
    if (cfg->extractor_config)
        xc = *cfg->extractor_config;
    xc.templates = learnt;
    ps_extractor *ex = ps_extractor_new(cfg->method ? cfg->method : "template-svm", &xc, err);
    ps_source *again = ex ? ps_source_reopen(src, err) : NULL;
    if (!ex || !again) {
        n.setup_failed = 1;
        rc = -1;
    } else {
        ps_batch_config c2 = *cfg;
        c2.extractor = ex;
        c2.learn_templates = 0;
        ps_batch_counts n2 = {0};
        rc = run_pass(&c2, source_read, again, again, &n2, err);
        n2.learnt_pages = n.learnt_pages;
        n2.learnt_sites = n.learnt_sites;
        n = n2;
    }
    ps_source_free(again);
    ps_extractor_free(ex);
    ps_template_store_free(learnt);
    if (counts)
        *counts = n;
    return rc;
}
