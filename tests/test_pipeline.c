/* tests/test_pipeline.c — batch extraction: every input gives one record and
 * the counts add up (failing and skipped inputs among them), records come in
 * input order with several workers, JSON Lines records parse and carry the
 * status and error, the output folder gets one file per page with unique
 * names, the HTML view marks blocks, memory stays bounded, a fatal reader
 * error stops the run; and the public extractor API. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/batch.h"
#include "pagesift/pipeline.h"
#include "pagesift/page.h"
#include "tests/test_tmpdir.h"
#include "tests/test_util.h"

/* ---- an in-memory reader ------------------------------------------------- */

enum { KIND_PAGE, KIND_MISSING, KIND_BINARY, KIND_SKIP, KIND_EMPTY, KIND_HUGE, KIND_FATAL, KIND_LARGE };

typedef struct mem_reader {
    size_t n, next;
    const int *kinds; /* per input, NULL = all pages */
    const char *const *ids; /* NULL = p0000, p0001, ... */
    const char *const *origins; /* NULL = the same as the ids' default */
} mem_reader;

static int mem_read(void *vctx, ps_input *in, ps_error *err)
{
    mem_reader *r = vctx;
    if (r->next == r->n)
        return 0;
    size_t i = r->next++;
    int kind = r->kinds ? r->kinds[i] : KIND_PAGE;
    if (kind == KIND_FATAL)
        return ps_set_error(err, PS_ERR_IO, "mem: the collection broke off");
    char id[64];
    snprintf(id, sizeof id, "p%04zu", i);
    in->id = strdup(r->ids ? r->ids[i] : id);
    in->origin = strdup(r->origins ? r->origins[i] : id);
    char url[96];
    snprintf(url, sizeof url, "http://site%zu.example.com/a/%zu.html", i % 3, i);
    in->url = strdup(url);
    ps_buf b = {0};
    switch (kind) {
    case KIND_PAGE:
        /* page sizes vary so workers finish out of order */
        ps_buf_printf(&b, "<html><head><title>T%zu</title></head><body><div><p>Page %zu says "
                          "hello.</p>", i, i);
        for (size_t k = 0; k < (i * 37) % 300; k++)
            ps_buf_printf(&b, "<div><p>para %zu of page %zu</p><a href=x>l</a></div>", k, i);
        ps_buf_printf(&b, "</div></body></html>");
        break;
    case KIND_MISSING:
        in->status = PS_ERR_IO;
        snprintf(in->msg, sizeof in->msg, "%s: No such file or directory", id);
        break;
    case KIND_BINARY:
        for (int k = 0; k < 4000; k++)
            ps_buf_putc(&b, (char)((k * 7919) & 0xFF));
        break;
    case KIND_SKIP:
        in->skipped = 1;
        break;
    case KIND_EMPTY:
        ps_buf_printf(&b, "<html><body><div></div></body></html>");
        break;
    case KIND_HUGE:
        ps_buf_printf(&b, "<html><body><p>");
        for (int k = 0; k < 3000; k++)
            ps_buf_printf(&b, "big page ");
        ps_buf_printf(&b, "</p></body></html>");
        break;
    case KIND_LARGE: /* 4 MB of text: its output file takes a while to write */
        ps_buf_printf(&b, "<html><body><p>");
        for (int k = 0; k < 400000; k++)
            ps_buf_printf(&b, "large text ");
        ps_buf_printf(&b, "</p></body></html>");
        break;
    }
    in->data = ps_buf_take(&b, &in->len);
    return 1;
}

static ps_extractor *all_extractor(void)
{
    ps_error err = {0};
    ps_extractor *ex = ps_extractor_new("all", NULL, &err);
    if (!ex)
        fprintf(stderr, "%s\n", err.msg);
    return ex;
}

/* Run a batch to a memory stream; returns the output (free()). */
static char *run_to_string(ps_batch_config *cfg, mem_reader *r, ps_batch_counts *n, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cfg->out = f;
    ps_error err = {0};
    *rc = ps_batch_run_pass(cfg, mem_read, r, n, &err);
    if (*rc != 0)
        fprintf(stderr, "batch: %s\n", err.msg);
    fclose(f);
    return buf;
}

/* Parse JSON Lines into an array of objects (asserting every line parses). */
static json_t **parse_lines(char *buf, size_t *n)
{
    size_t cap = 16;
    json_t **v = malloc(cap * sizeof *v);
    *n = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        if (!o)
            fprintf(stderr, "bad JSON line: %s: %.200s\n", je.text, line);
        assert_non_null(o);
        if (*n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[(*n)++] = o;
    }
    return v;
}

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_ordered_output_with_workers(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    assert_non_null(ex);
    mem_reader r = {.n = 300};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_JSONL, .workers = 4, .quiet = 1};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    assert_int_equal(rc, 0);
    size_t nl;
    json_t **recs = parse_lines(out, &nl);
    assert_int_equal(nl, 300);
    for (size_t i = 0; i < nl; i++) {
        char id[32], want[64];
        snprintf(id, sizeof id, "p%04zu", i);
        snprintf(want, sizeof want, "Page %zu says hello.", i);
        assert_string_equal(jstr(recs[i], "id"), id);
        assert_string_equal(jstr(recs[i], "status"), "ok");
        assert_non_null(strstr(jstr(recs[i], "text"), want));
        char title[32];
        snprintf(title, sizeof title, "T%zu", i);
        assert_string_equal(jstr(recs[i], "title"), title);
        char site[32];
        snprintf(site, sizeof site, "site%zu.example.com", i % 3);
        assert_string_equal(jstr(recs[i], "site"), site);
        assert_true(json_is_null(json_object_get(recs[i], "error"))); /* absent = null */
        json_decref(recs[i]);
    }
    assert_int_equal(n.read, 300);
    assert_int_equal(n.extracted, 300);
    free(recs);
    free(out);
    ps_extractor_free(ex);
}

static void test_unordered_output_has_every_page_once(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    mem_reader r = {.n = 200};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_JSONL, .workers = 3,
                           .unordered = 1, .quiet = 1};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    assert_int_equal(rc, 0);
    size_t nl;
    json_t **recs = parse_lines(out, &nl);
    assert_int_equal(nl, 200);
    unsigned char seen[200] = {0};
    for (size_t i = 0; i < nl; i++) {
        int k = atoi(jstr(recs[i], "id") + 1);
        assert_true(k >= 0 && k < 200);
        assert_int_equal(seen[k], 0);
        seen[k] = 1;
        json_decref(recs[i]);
    }
    free(recs);
    free(out);
    ps_extractor_free(ex);
}

static void test_counts_add_up_with_failures(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    static const int kinds[] = {KIND_PAGE, KIND_MISSING, KIND_BINARY, KIND_SKIP, KIND_EMPTY,
                                KIND_HUGE, KIND_PAGE, KIND_SKIP};
    mem_reader r = {.n = 8, .kinds = kinds};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_JSONL, .workers = 2,
                           .quiet = 1, .max_bytes = 20000};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(n.read, 8);
    assert_int_equal(n.extracted, 2);
    assert_int_equal(n.empty, 1);
    assert_int_equal(n.failed, 3); /* missing, binary, over --max-bytes */
    assert_int_equal(n.skipped, 2);
    assert_int_equal(n.read, n.extracted + n.empty + n.failed + n.skipped);
    size_t nl;
    json_t **recs = parse_lines(out, &nl);
    assert_int_equal(nl, 6); /* skipped records have no output record */
    static const char *const want_status[] = {"ok", "failed", "failed", "empty", "failed", "ok"};
    static const char *const want_id[] = {"p0000", "p0001", "p0002", "p0004", "p0005", "p0006"};
    for (size_t i = 0; i < nl; i++) {
        assert_string_equal(jstr(recs[i], "id"), want_id[i]);
        assert_string_equal(jstr(recs[i], "status"), want_status[i]);
        const char *e = jstr(recs[i], "error");
        if (strcmp(want_status[i], "failed") == 0) {
            assert_non_null(e);
            assert_non_null(strstr(e, want_id[i])); /* the message names the page */
        } else {
            assert_null(e);
        }
    }
    assert_non_null(strstr(jstr(recs[1], "error"), "No such file"));
    assert_non_null(strstr(jstr(recs[4], "error"), "20000"));
    for (size_t i = 0; i < nl; i++)
        json_decref(recs[i]);
    free(recs);
    free(out);
    ps_extractor_free(ex);
}

static void test_fatal_reader_error_stops(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    int kinds[50];
    for (int i = 0; i < 50; i++)
        kinds[i] = i == 20 ? KIND_FATAL : KIND_PAGE;
    mem_reader r = {.n = 50, .kinds = kinds};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 2, .quiet = 1};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    assert_int_equal(rc, -1);
    assert_true(n.read <= 20);
    assert_int_equal(r.next, 21); /* nothing read after the fatal error */
    assert_int_equal(n.read + n.abandoned, 20); /* the rest is counted, not lost */
    free(out);
    ps_extractor_free(ex);
}

/* The library's messages go to ps_set_print_function's function, one line
 * each, naming no program (the tools add their name). */
static char printed[8][600];
static int n_printed;

static void capture_line(const char *line)
{
    if (n_printed < 8)
        snprintf(printed[n_printed++], sizeof printed[0], "%s", line);
}

static void test_messages_through_print_function(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    int kinds[3] = {KIND_PAGE, KIND_MISSING, KIND_SKIP};
    mem_reader r = {.n = 3, .kinds = kinds};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 1, .verbose = 1};
    ps_batch_counts n;
    int rc;
    n_printed = 0;
    ps_set_print_function(capture_line);
    char *out = run_to_string(&cfg, &r, &n, &rc);
    ps_set_print_function(NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(n.failed, 1);
    int failed_line = 0, skipped_line = 0;
    for (int i = 0; i < n_printed; i++) {
        assert_null(strstr(printed[i], "pagesift")); /* no program's name */
        assert_null(strchr(printed[i], '\n'));
        failed_line += strstr(printed[i], "p0001: No such file or directory") != NULL;
        skipped_line += strncmp(printed[i], "skipped p0002", 13) == 0;
    }
    assert_int_equal(failed_line, 1);
    assert_int_equal(skipped_line, 1);
    free(out);
    ps_extractor_free(ex);
}

static void test_text_headers_and_all_equals_page_text(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    mem_reader r = {.n = 3};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 2, .quiet = 1,
                           .text_headers = 1};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    assert_int_equal(rc, 0);
    /* expected: each page's ps_page_text after its header */
    ps_buf want = {0};
    mem_reader r2 = {.n = 3};
    for (int i = 0; i < 3; i++) {
        ps_input in = {0};
        assert_int_equal(mem_read(&r2, &in, NULL), 1);
        ps_page *pg = ps_page_parse(in.data, in.len, NULL, NULL);
        size_t len;
        char *t = ps_page_text(pg, NULL, &len);
        ps_buf_printf(&want, "==> %s <==\n", in.id);
        ps_buf_append(&want, t, len);
        /* and ps_extract gives the same text */
        ps_extraction x;
        assert_int_equal(ps_extract(ex, pg, "", &x, NULL), 0);
        assert_int_equal(x.len, len);
        assert_memory_equal(x.text, t, len);
        ps_extraction_free(&x);
        free(t);
        ps_page_free(pg);
        ps_input_clear(&in);
    }
    assert_string_equal(out, want.data);
    ps_buf_free(&want);
    free(out);
    ps_extractor_free(ex);
}

static void test_output_dir_one_file_per_page(void **state)
{
    (void)state;
    char dir[] = "/tmp/ps_test_outdir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/out", dir);
    ps_extractor *ex = all_extractor();
    static const char *const ids[] = {"a", "a", "a-2", "../evil", "", "b"};
    static const int kinds[] = {KIND_PAGE, KIND_PAGE, KIND_PAGE, KIND_PAGE, KIND_PAGE,
                                KIND_MISSING};
    /* an origin with a tab, a line break and a backslash: escaped in the manifest */
    static const char *const origins[] = {"p0000", "p0001", "p0002", "p0003", "p\t4\n\\", "p0005"};
    mem_reader r = {.n = 6, .ids = ids, .kinds = kinds, .origins = origins};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 2, .quiet = 1,
                           .output_dir = sub};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(out ? strlen(out) : 0, 0); /* nothing on the stream */
    static const char *const files[] = {"a.txt", "a-2.txt", "a-2-2.txt", "_._evil.txt",
                                        "page.txt", "b.error"};
    for (size_t i = 0; i < 6; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", sub, files[i]);
        size_t len;
        char *data = ps_read_file(p, 0, &len, NULL);
        if (!data)
            fprintf(stderr, "missing %s\n", p);
        assert_non_null(data);
        if (i < 5) {
            char want[64];
            snprintf(want, sizeof want, "Page %zu says hello.", i);
            assert_non_null(strstr(data, want));
        } else {
            assert_non_null(strstr(data, "No such file"));
        }
        free(data);
        unlink(p);
    }
    /* the manifest: a line per record, in input order, its file, status,
     * URL, id in the folder, origin (escaped) and note */
    char mp[256];
    snprintf(mp, sizeof mp, "%s/" PS_BATCH_MANIFEST, sub);
    char *man = ps_read_file(mp, 0, NULL, NULL);
    assert_non_null(man);
    assert_string_equal(man,
                        "file\tstatus\turl\tid\torigin\tnote\n"
                        "a.txt\tok\thttp://site0.example.com/a/0.html\ta\tp0000\t\n"
                        "a-2.txt\tok\thttp://site1.example.com/a/1.html\ta-2\tp0001\t\n"
                        "a-2-2.txt\tok\thttp://site2.example.com/a/2.html\ta-2-2\tp0002\t\n"
                        "_._evil.txt\tok\thttp://site0.example.com/a/3.html\t_._evil\tp0003\t\n"
                        "page.txt\tok\thttp://site1.example.com/a/4.html\tpage\tp\\t4\\n\\\\\t\n"
                        "b.error\tfailed\thttp://site2.example.com/a/5.html\tb\tp0005\t"
                        "p0005: No such file or directory\n");
    free(man);
    unlink(mp);
    /* nothing else (no temporary files left) */
    DIR *d = opendir(sub);
    struct dirent *e;
    int others = 0;
    while ((e = readdir(d)))
        others += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(others, 0);
    rmdir(sub);
    rmdir(dir);
    free(out);
    ps_extractor_free(ex);
}

/* A transient full disk, as a file size limit that is lifted when it is
 * hit (SIGXFSZ): the write of one record stops part way, the next ones go
 * through.  Before (issue 32, defect 5), stdio kept the record's unwritten
 * tail and wrote it in front of the next record: two records glued into a
 * line that parses as neither (222 extracted, 221 lines).  Now the record
 * that could not be written whole is taken back out of the file and counted
 * failed, and every line of the file is a whole record. */
static struct rlimit saved_fsize;
static void lift_fsize(int sig)
{
    (void)sig;
    setrlimit(RLIMIT_FSIZE, &saved_fsize);
}

static void test_partial_write_no_glued_records(void **state)
{
    (void)state;
    ps_extractor *ex = all_extractor();
    assert_non_null(ex);
    char path[] = "/tmp/test_pipeline-partial-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    for (int limit = 3000; limit <= 15000; limit += 4000) {
        assert_int_equal(ftruncate(fd, 0), 0);
        rewind(f);
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved_fsize), 0);
        struct sigaction sa = {0}, old;
        sa.sa_handler = lift_fsize;
        sigemptyset(&sa.sa_mask);
        assert_int_equal(sigaction(SIGXFSZ, &sa, &old), 0);
        struct rlimit low = saved_fsize;
        low.rlim_cur = (rlim_t)limit;
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
        mem_reader r = {.n = 30};
        ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_JSONL, .workers = 2, .quiet = 1, .out = f};
        ps_batch_counts n = {0};
        ps_error err = {0};
        int rc = ps_batch_run_pass(&cfg, mem_read, &r, &n, &err);
        setrlimit(RLIMIT_FSIZE, &saved_fsize);
        sigaction(SIGXFSZ, &old, NULL);
        assert_int_equal(rc, 0);
        assert_int_equal(fflush(f), 0);
        assert_int_equal(n.read, 30);
        assert_int_equal(n.failed, 1); /* the record the limit cut */
        assert_int_equal(n.read, n.extracted + n.empty + n.failed + n.skipped);
        size_t len;
        ps_error e = {0};
        char *buf = ps_read_file(path, 0, &len, &e);
        assert_non_null(buf);
        assert_true(len > (size_t)limit);
        assert_int_equal(buf[len - 1], '\n');
        size_t nl;
        json_t **v = parse_lines(buf, &nl); /* every line parses */
        assert_int_equal(nl, n.extracted + n.empty);
        for (size_t i = 0; i < nl; i++)
            json_decref(v[i]);
        free(v);
        free(buf);
    }
    fclose(f);
    unlink(path);
    ps_extractor_free(ex);
}

static void touch(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("partial", f);
    fclose(f);
}

static int exists_in(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

/* Issue 32 defect 9: --skip-existing removed every temporary file in the
 * output folder, also those of another run writing there at that moment
 * (whose records then failed).  A run owns its temporary files: their names
 * carry its id, and it holds the flock of ".pagesift-run.<id>" while it
 * runs.  Here a live run (its lock held by this process, through another
 * open file) and a killed one (its lock file there, not held), and a
 * temporary file named as before runs owned them. */
static void test_skip_existing_leaves_live_runs_temps(void **state)
{
    (void)state;
    char dir[200];
    assert_int_equal(test_tmpdir_make(dir, sizeof dir, "ps_test_owned"), 0);
    char lock[600];
    snprintf(lock, sizeof lock, "%s/.pagesift-run.Live01", dir);
    int lfd = open(lock, O_RDWR | O_CREAT, 0644);
    assert_true(lfd >= 0);
    assert_int_equal(flock(lfd, LOCK_EX), 0);
    touch(dir, "p0001.txt.tmp.Live01.aB3dE5");  /* the live run's: stays */
    touch(dir, "p0002.error.tmp.Live01.xY7zW1");
    touch(dir, ".pagesift-run.Dead02");          /* a killed run: its lock file, not held */
    touch(dir, "p0003.txt.tmp.Dead02.q1w2e3");   /* goes */
    touch(dir, "p0004.txt.tmp.Gone03.r4t5y6");   /* a run without a lock file: ended; goes */
    touch(dir, "p0005.txt.tmp.Ab12Cd");          /* named as before runs owned them: goes */
    touch(dir, "notes.tmp.Ab12Cd");              /* not a page's: stays */
    ps_extractor *ex = all_extractor();
    mem_reader r = {.n = 3};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 2, .quiet = 1,
                           .output_dir = dir, .skip_existing = 1};
    ps_batch_counts n;
    int rc;
    char *out = run_to_string(&cfg, &r, &n, &rc);
    free(out);
    assert_int_equal(rc, 0);
    assert_int_equal(n.extracted, 3);
    assert_true(exists_in(dir, "p0001.txt.tmp.Live01.aB3dE5"));
    assert_true(exists_in(dir, "p0002.error.tmp.Live01.xY7zW1"));
    assert_true(exists_in(dir, ".pagesift-run.Live01"));
    assert_false(exists_in(dir, "p0003.txt.tmp.Dead02.q1w2e3"));
    assert_false(exists_in(dir, ".pagesift-run.Dead02"));
    assert_false(exists_in(dir, "p0004.txt.tmp.Gone03.r4t5y6"));
    assert_false(exists_in(dir, "p0005.txt.tmp.Ab12Cd"));
    assert_true(exists_in(dir, "notes.tmp.Ab12Cd"));
    /* the run's own lock file went with it; its pages were written */
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t locks = 0, pages = 0;
    while ((e = readdir(d))) {
        locks += !strncmp(e->d_name, ".pagesift-run.", 14);
        size_t l = strlen(e->d_name);
        pages += l > 4 && !strcmp(e->d_name + l - 4, ".txt");
    }
    closedir(d);
    assert_int_equal(locks, 1); /* the live run's only */
    assert_int_equal(pages, 3);
    /* once the live run is gone, the next resume removes what it left */
    close(lfd);
    r = (mem_reader){.n = 3};
    out = run_to_string(&cfg, &r, &n, &rc);
    free(out);
    assert_int_equal(n.skipped, 3);
    assert_false(exists_in(dir, "p0001.txt.tmp.Live01.aB3dE5"));
    assert_false(exists_in(dir, ".pagesift-run.Live01"));
    assert_int_equal(test_tmpdir_remove(dir), 0);
    ps_extractor_free(ex);
}

/* The same with two real runs: one writes 4 MB pages into a folder while
 * --skip-existing runs start there over and over.  Before, they removed
 * the writing run's temporary files under it, and its records failed
 * ("rename failed: No such file"); now every record of it is written. */
typedef struct writer_run {
    ps_extractor *ex;
    const char *dir;
    ps_batch_counts n;
    volatile int done;
} writer_run;

static void *writer_thread(void *arg)
{
    writer_run *w = arg;
    static int kinds[24];
    for (size_t i = 0; i < 24; i++)
        kinds[i] = KIND_LARGE;
    mem_reader r = {.n = 24, .kinds = kinds};
    ps_batch_config cfg = {.extractor = w->ex, .format = PS_FORMAT_TEXT, .workers = 1, .quiet = 1,
                           .output_dir = w->dir};
    ps_error err = {0};
    ps_batch_run_pass(&cfg, mem_read, &r, &w->n, &err);
    w->done = 1;
    return NULL;
}

static void test_skip_existing_beside_a_live_run(void **state)
{
    (void)state;
    char dir[200];
    assert_int_equal(test_tmpdir_make(dir, sizeof dir, "ps_test_beside"), 0);
    ps_extractor *ex = all_extractor();
    writer_run w = {.ex = ex, .dir = dir};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, writer_thread, &w), 0);
    size_t resumes = 0;
    while (!w.done) {
        mem_reader r = {.n = 0};
        ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 1, .quiet = 1,
                               .output_dir = dir, .skip_existing = 1};
        ps_batch_counts n;
        ps_error err = {0};
        assert_int_equal(ps_batch_run_pass(&cfg, mem_read, &r, &n, &err), 0);
        resumes++;
    }
    pthread_join(t, NULL);
    fprintf(stderr, "%zu --skip-existing runs beside a run of 24 pages of 4 MB: %zu extracted, %zu failed\n",
            resumes, w.n.extracted, w.n.failed);
    assert_int_equal(w.n.failed, 0);
    assert_int_equal(w.n.extracted, 24);
    assert_int_equal(test_tmpdir_remove(dir), 0);
    ps_extractor_free(ex);
}

/* Two runs writing into one folder at once (and --skip-existing runs
 * starting there over and over, each opening the manifest): one header,
 * then every record's line whole, none mixed with another's. */
typedef struct page_run {
    ps_extractor *ex;
    const char *dir;
    const char *prefix; /* the run's ids */
    ps_batch_counts n;
    volatile int done;
} page_run;

static void *page_run_thread(void *arg)
{
    page_run *w = arg;
    enum { N = 300 };
    static char names[2][N][16];
    static const char *ids[2][N];
    int k = w->prefix[0] == 'b';
    for (size_t i = 0; i < N; i++) {
        snprintf(names[k][i], sizeof names[k][i], "%s%04zu", w->prefix, i);
        ids[k][i] = names[k][i];
    }
    mem_reader r = {.n = N, .ids = ids[k]};
    ps_batch_config cfg = {.extractor = w->ex, .format = PS_FORMAT_TEXT, .workers = 2, .quiet = 1,
                           .output_dir = w->dir};
    ps_error err = {0};
    ps_batch_run_pass(&cfg, mem_read, &r, &w->n, &err);
    w->done = 1;
    return NULL;
}

static void test_manifest_of_runs_at_once(void **state)
{
    (void)state;
    char dir[200];
    assert_int_equal(test_tmpdir_make(dir, sizeof dir, "ps_test_manifest"), 0);
    ps_extractor *ex = all_extractor();
    page_run a = {.ex = ex, .dir = dir, .prefix = "a"}, b = {.ex = ex, .dir = dir, .prefix = "b"};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, page_run_thread, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, page_run_thread, &b), 0);
    while (!a.done || !b.done) {
        mem_reader r = {.n = 0};
        ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_TEXT, .workers = 1, .quiet = 1,
                               .output_dir = dir, .skip_existing = 1};
        ps_batch_counts n;
        ps_error err = {0};
        assert_int_equal(ps_batch_run_pass(&cfg, mem_read, &r, &n, &err), 0);
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_int_equal(a.n.extracted + b.n.extracted, 600);
    char mp[256];
    snprintf(mp, sizeof mp, "%s/" PS_BATCH_MANIFEST, dir);
    char *man = ps_read_file(mp, 0, NULL, NULL);
    assert_non_null(man);
    const char *header = "file\tstatus\turl\tid\torigin\tnote\n";
    assert_int_equal(strncmp(man, header, strlen(header)), 0);
    static char seen[2][300];
    memset(seen, 0, sizeof seen);
    size_t lines = 0;
    for (char *line = man + strlen(header), *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        char file[32], id[32], origin[32];
        unsigned k;
        /* file, ok, the URL, the id, the origin, an empty note: nothing else */
        int n = 0;
        assert_int_equal(sscanf(line, "%31[^\t]\tok\thttp://site%*u.example.com/a/%*u.html\t%31[^\t]\t%31[^\t]\t%n",
                                file, id, origin, &n), 3);
        assert_int_equal(line[n], '\0');
        assert_true(sscanf(id, "a%4u", &k) == 1 || sscanf(id, "b%4u", &k) == 1);
        assert_true(k < 300);
        char want[40];
        snprintf(want, sizeof want, "%s.txt", id);
        assert_string_equal(file, want);
        snprintf(want, sizeof want, "p%04u", k);
        assert_string_equal(origin, want);
        seen[id[0] == 'b'][k]++;
        lines++;
    }
    assert_int_equal(lines, 600);
    for (size_t i = 0; i < 300; i++)
        assert_true(seen[0][i] == 1 && seen[1][i] == 1);
    free(man);
    assert_int_equal(test_tmpdir_remove(dir), 0);
    ps_extractor_free(ex);
}

static void test_html_view_marks_blocks(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div id=a><p>keep me</p></div><div id=b>drop me</div>"
                            "<div id=c>template</div></body></html>");
    assert_non_null(pg);
    size_t nb;
    ps_page_blocks(pg, &nb);
    assert_int_equal(nb, 4);
    size_t nl;
    const ps_leaf *lv = ps_page_leaves(pg, &nl);
    assert_int_equal(nl, 3);
    assert_string_equal(lv[2].text, "template");
    ps_page_remove_leaf(pg, 2);
    uint8_t cls[4] = {PS_CLASS_NOISE, PS_CLASS_CONTENT, PS_CLASS_NOISE, PS_CLASS_TEMPLATE};
    ps_buf b = {0};
    assert_int_equal(ps_html_view(pg, cls, "test", "p1", &b, NULL), 0);
    assert_non_null(strstr(b.data, "<meta charset=\"utf-8\">"));
    assert_non_null(strstr(b.data, "id=\"a\""));
    /* each block element carries its class, the legend names all three */
    const char *a = strstr(b.data, "<div id=\"a\"");
    const char *bb = strstr(b.data, "<div id=\"b\"");
    const char *c = strstr(b.data, "<div id=\"c\"");
    assert_non_null(a);
    assert_non_null(bb);
    assert_non_null(c);
    assert_non_null(strstr(a, "data-pagesift=\"content\""));
    assert_true(strstr(a, "data-pagesift=\"content\"") < bb);
    assert_true(strstr(bb, "data-pagesift=\"noise\"") < c);
    assert_non_null(strstr(c, "data-pagesift=\"template\""));
    assert_non_null(strstr(c, "data-pagesift-leaf=\"template\""));
    assert_null(strstr(b.data, "data-pagesift-leaf=\"template\"") < c ? "leaf mark before c" : NULL);
    const char *body = strstr(b.data, "<body");
    assert_non_null(body);
    assert_true(strstr(body, "data-pagesift=\"noise\"") < a);
    assert_non_null(strstr(b.data, "data-pagesift-legend"));
    assert_non_null(strstr(b.data, ">keep me<"));
    ps_buf_free(&b);
    ps_page_free(pg);
}

static void test_json_string_escapes_and_repairs(void **state)
{
    (void)state;
    const char s[] = "q\"b\\n\n\t\x01 \xC3\xA9 \xE4\xB8\xAD bad:\xFF\xC3 end";
    ps_buf b = {0};
    assert_int_equal(ps_json_string(&b, s, sizeof s - 1), 0);
    json_error_t je;
    json_t *v = json_loads(b.data, JSON_DECODE_ANY, &je);
    assert_non_null(v);
    assert_string_equal(json_string_value(v),
                        "q\"b\\n\n\t\x01 \xC3\xA9 \xE4\xB8\xAD bad:\xEF\xBF\xBD\xEF\xBF\xBD end");
    json_decref(v);
    ps_buf_free(&b);
}

/* The engine never holds more than in_flight jobs. */
typedef struct count_ctx {
    size_t n, next;
    pthread_mutex_t m;
    size_t live, max_live, written;
    size_t last_written;
    int in_order;
} count_ctx;

static int count_read(void *vctx, void *job, ps_error *err)
{
    (void)err;
    count_ctx *c = vctx;
    if (c->next == c->n)
        return 0;
    *(size_t *)job = c->next++;
    pthread_mutex_lock(&c->m);
    if (++c->live > c->max_live)
        c->max_live = c->live;
    pthread_mutex_unlock(&c->m);
    return 1;
}

static void count_work(void *vctx, unsigned w, void *job)
{
    (void)vctx;
    (void)w;
    if (*(size_t *)job % 7 == 0)
        usleep(200);
}

static int count_write(void *vctx, void *job, ps_error *err)
{
    (void)err;
    count_ctx *c = vctx;
    size_t k = *(size_t *)job;
    if (c->written && k != c->last_written + 1)
        c->in_order = 0;
    c->last_written = k;
    c->written++;
    pthread_mutex_lock(&c->m);
    c->live--;
    pthread_mutex_unlock(&c->m);
    return 0;
}

static void test_pipeline_bounded_and_ordered(void **state)
{
    (void)state;
    count_ctx c = {.n = 2000, .in_order = 1};
    pthread_mutex_init(&c.m, NULL);
    ps_pipeline_ops ops = {&c, sizeof(size_t), count_read, count_work, count_write, NULL};
    ps_pipeline_opts o = {.workers = 3, .ordered = 1, .in_flight = 8};
    assert_int_equal(ps_pipeline_run(&ops, &o, NULL, NULL), 0);
    assert_int_equal(c.written, 2000);
    assert_true(c.in_order);
    assert_true(c.max_live <= 8);
    pthread_mutex_destroy(&c.m);
}

/* The byte bounds: a job's bytes are its number's (jobs 10, 20, ... are
 * "large": 1000 bytes, the others 1); with working_bytes 1000 a large job
 * is never worked beside another job, and with queued_bytes 1500 the jobs
 * read and not yet taken never hold more than 1500 bytes plus the one that
 * crossed it. */
typedef struct bytes_ctx {
    size_t n, next;
    pthread_mutex_t m;
    size_t working, max_working, queued, max_queued;
} bytes_ctx;

static size_t bytes_of(size_t k)
{
    return k % 10 == 0 ? 1000 : 1;
}

static int bytes_read(void *vctx, void *job, ps_error *err)
{
    (void)err;
    bytes_ctx *c = vctx;
    if (c->next == c->n)
        return 0;
    size_t k = c->next++;
    *(size_t *)job = k;
    pthread_mutex_lock(&c->m);
    c->queued += bytes_of(k);
    if (c->queued > c->max_queued)
        c->max_queued = c->queued;
    pthread_mutex_unlock(&c->m);
    return 1;
}

static void bytes_work(void *vctx, unsigned w, void *job)
{
    (void)w;
    bytes_ctx *c = vctx;
    size_t b = bytes_of(*(size_t *)job);
    pthread_mutex_lock(&c->m);
    c->queued -= b;
    c->working += b;
    if (c->working > c->max_working)
        c->max_working = c->working;
    pthread_mutex_unlock(&c->m);
    usleep(b > 1 ? 2000 : 100);
    pthread_mutex_lock(&c->m);
    c->working -= b;
    pthread_mutex_unlock(&c->m);
}

static int bytes_write(void *vctx, void *job, ps_error *err)
{
    (void)vctx;
    (void)job;
    (void)err;
    return 0;
}

static size_t bytes_job_bytes(void *vctx, const void *job)
{
    (void)vctx;
    return bytes_of(*(const size_t *)job);
}

static void test_pipeline_byte_bounds(void **state)
{
    (void)state;
    bytes_ctx c = {.n = 400};
    pthread_mutex_init(&c.m, NULL);
    ps_pipeline_ops ops = {&c, sizeof(size_t), bytes_read, bytes_work, bytes_write, bytes_job_bytes};
    ps_pipeline_opts o = {.workers = 3, .ordered = 1, .queued_bytes = 1500, .working_bytes = 1000};
    assert_int_equal(ps_pipeline_run(&ops, &o, NULL, NULL), 0);
    assert_int_equal(c.next, 400);
    assert_true(c.max_working <= 1000); /* a large job alone */
    assert_true(c.max_working >= 2);    /* small ones side by side */
    assert_true(c.max_queued < 1500 + 1000);
    pthread_mutex_destroy(&c.m);
}

/* ---- an interrupt (SIGINT/SIGTERM in pagesift) --------------------------- */

static volatile sig_atomic_t intr_flag;

/* The flag goes up once page `at` is read, as a signal would mid-run. */
typedef struct intr_reader {
    mem_reader r;
    size_t at;
} intr_reader;

static int intr_read(void *vctx, ps_input *in, ps_error *err)
{
    intr_reader *ir = vctx;
    int rc = mem_read(&ir->r, in, err);
    if (ir->r.next == ir->at)
        intr_flag = SIGINT;
    return rc;
}

/* Stopped mid-run: nothing read after it, every record written whole (in
 * order: a gap-less prefix), the pages dropped counted, read + abandoned =
 * pages taken from the input. */
static void batch_interrupted(int unordered)
{
    ps_extractor *ex = all_extractor();
    intr_flag = 0;
    intr_reader ir = {.r = {.n = 300}, .at = 100};
    ps_batch_config cfg = {.extractor = ex, .format = PS_FORMAT_JSONL, .workers = 2, .quiet = 1,
                           .unordered = unordered, .interrupt = &intr_flag};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cfg.out = f;
    ps_batch_counts n;
    ps_error err = {0};
    int rc = ps_batch_run_pass(&cfg, intr_read, &ir, &n, &err);
    fclose(f);
    assert_int_equal(rc, 0);
    assert_int_equal(n.interrupted, 1);
    assert_int_equal(ir.r.next, 100); /* the reader stopped at the flag */
    assert_int_equal(n.read + n.abandoned, 100);
    assert_true(n.read > 0 && n.read < 100);
    assert_int_equal(n.read, n.extracted + n.empty + n.failed + n.skipped);
    assert_true(len > 0 && buf[len - 1] == '\n'); /* ends on a whole line */
    size_t nl;
    json_t **recs = parse_lines(buf, &nl);
    assert_int_equal(nl, n.read);
    unsigned char seen[100] = {0};
    for (size_t i = 0; i < nl; i++) {
        int k = atoi(jstr(recs[i], "id") + 1);
        assert_true(k >= 0 && k < 100);
        assert_int_equal(seen[k], 0);
        seen[k] = 1;
        if (!unordered)
            assert_int_equal(k, (int)i);
        json_decref(recs[i]);
    }
    free(recs);
    free(buf);
    ps_extractor_free(ex);
}

static void test_interrupt_ordered(void **state)
{
    (void)state;
    batch_interrupted(0);
}

static void test_interrupt_unordered(void **state)
{
    (void)state;
    batch_interrupted(1);
}

/* The engine alone: a flag raised by the writer (as by a signal handler)
 * ends the run with 1; what was read is either written, in order, or
 * discarded. */
static size_t discarded;

static void count_discard(void *vctx, void *job)
{
    (void)job;
    count_ctx *c = vctx;
    discarded++;
    pthread_mutex_lock(&c->m);
    c->live--;
    pthread_mutex_unlock(&c->m);
}

static int count_write_raise(void *vctx, void *job, ps_error *err)
{
    count_write(vctx, job, err);
    if (*(size_t *)job == 50)
        intr_flag = SIGTERM;
    return 0;
}

static void test_pipeline_interrupt(void **state)
{
    (void)state;
    for (int ordered = 0; ordered <= 1; ordered++) {
        count_ctx c = {.n = 2000, .in_order = 1};
        pthread_mutex_init(&c.m, NULL);
        intr_flag = 0;
        discarded = 0;
        ps_pipeline_ops ops = {&c, sizeof(size_t), count_read, count_work, count_write_raise, NULL};
        ps_pipeline_opts o = {.workers = 3, .ordered = ordered, .in_flight = 8,
                              .interrupt = &intr_flag};
        assert_int_equal(ps_pipeline_run(&ops, &o, count_discard, NULL), 1);
        assert_true(c.written > 40 && c.written < 2000); /* unordered: job 50 came after all of 0..42 */
        assert_int_equal(c.written + discarded, c.next);
        assert_true(c.next < 60); /* the reader stopped: at most in_flight more */
        assert_int_equal(c.live, 0);
        if (ordered)
            assert_true(c.in_order);
        pthread_mutex_destroy(&c.m);
    }
}

/* The learning pass adds the pages in input order, whatever the threads do:
 * its libraries equal those of adding the same pages one by one. */
static void test_learn_pass_equals_sequential_build(void **state)
{
    (void)state;
    ps_template_params tp;
    ps_template_params_default(&tp);
    ps_template_builder *b1 = ps_template_builder_new(&tp);
    mem_reader r = {.n = 60};
    ps_batch_config cfg = {.workers = 3, .quiet = 1};
    size_t added = 0;
    assert_int_equal(ps_batch_learn_templates(&cfg, mem_read, &r, b1, &added, NULL), 0);
    assert_int_equal(added, 60);
    ps_template_store *s1 = ps_template_builder_finish(b1);

    ps_template_builder *b2 = ps_template_builder_new(&tp);
    mem_reader r2 = {.n = 60};
    for (size_t i = 0; i < 60; i++) {
        ps_input in = {0};
        assert_int_equal(mem_read(&r2, &in, NULL), 1);
        ps_page_options po = {.url = in.url};
        ps_page *pg = ps_page_parse(in.data, in.len, &po, NULL);
        char site[64];
        ps_site_key(in.url, PS_SITE_HOST, site, sizeof site);
        assert_int_equal(ps_template_builder_add(b2, site, pg, NULL), 0);
        ps_page_free(pg);
        ps_input_clear(&in);
    }
    ps_template_store *s2 = ps_template_builder_finish(b2);
    assert_int_equal(ps_template_store_count(s1), 3);
    assert_int_equal(ps_template_store_count(s2), 3);
    size_t total_entries = 0;
    for (int k = 0; k < 3; k++) {
        char site[64];
        snprintf(site, sizeof site, "site%d.example.com", k);
        const ps_template_lib *l1 = ps_template_store_get(s1, site), *l2 = ps_template_store_get(s2, site);
        assert_non_null(l1);
        assert_non_null(l2);
        ps_template_lib_info i1, i2;
        ps_template_lib_get_info(l1, &i1);
        ps_template_lib_get_info(l2, &i2);
        assert_int_equal(i1.pages, 20);
        assert_int_equal(i1.n_entries, i2.n_entries);
        total_entries += i1.n_entries;
        for (size_t e = 0; e < i1.n_entries; e++) {
            ps_template_entry e1, e2;
            assert_int_equal(ps_template_lib_entry(l1, e, &e1), 0);
            assert_int_equal(ps_template_lib_entry(l2, e, &e2), 0);
            assert_string_equal(e1.tag, e2.tag);
            assert_string_equal(e1.text, e2.text);
            assert_int_equal(e1.freq, e2.freq);
        }
    }
    assert_true(total_entries > 0); /* "l" links and "para 0 of page" repeat */
    ps_template_store_free(s1);
    ps_template_store_free(s2);
}

static void test_unknown_method_is_usage_error(void **state)
{
    (void)state;
    ps_error err = {0};
    assert_null(ps_extractor_new("no-such-method", NULL, &err));
    assert_int_equal(err.code, PS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "no-such-method"));
    int found = 0;
    for (size_t i = 0; ps_method_name(i); i++)
        found += strcmp(ps_method_name(i), "all") == 0;
    assert_int_equal(found, 1);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ordered_output_with_workers),
        cmocka_unit_test(test_unordered_output_has_every_page_once),
        cmocka_unit_test(test_counts_add_up_with_failures),
        cmocka_unit_test(test_fatal_reader_error_stops),
        cmocka_unit_test(test_text_headers_and_all_equals_page_text),
        cmocka_unit_test(test_output_dir_one_file_per_page),
        cmocka_unit_test(test_html_view_marks_blocks),
        cmocka_unit_test(test_json_string_escapes_and_repairs),
        cmocka_unit_test(test_pipeline_bounded_and_ordered),
        cmocka_unit_test(test_interrupt_ordered),
        cmocka_unit_test(test_interrupt_unordered),
        cmocka_unit_test(test_pipeline_interrupt),
        cmocka_unit_test(test_partial_write_no_glued_records),
        cmocka_unit_test(test_skip_existing_leaves_live_runs_temps),
        cmocka_unit_test(test_skip_existing_beside_a_live_run),
        cmocka_unit_test(test_manifest_of_runs_at_once),
        cmocka_unit_test(test_pipeline_byte_bounds),
        cmocka_unit_test(test_learn_pass_equals_sequential_build),
        cmocka_unit_test(test_unknown_method_is_usage_error),
        cmocka_unit_test(test_messages_through_print_function),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
