/* tests/test_read_file.c — ps_read_file (common/util.c): every byte of a
 * regular file at sizes around the buffer's power-of-two steps (it reserves
 * the file's size and must not lose or add a byte), of a pipe whose size is
 * not known in advance (the buffer grows), and the size limit. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/util.h"
#include "tests/test_util.h"

static char dir[256];

static char *pattern(size_t n)
{
    char *p = malloc(n + 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (char)('a' + (i * 7 + i / 251) % 26);
    return p;
}

static void test_regular_files(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 254, 255, 256, 257, 65535, 65536, 65537, 300000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        char path[512];
        snprintf(path, sizeof path, "%s/f%zu", dir, n);
        char *want = pattern(n);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(want, 1, n, f), n);
        fclose(f);
        ps_error err = {0};
        size_t len = 12345;
        char *got = ps_read_file(path, 0, &len, &err);
        if (!got)
            fail_msg("%s: %s", path, err.msg);
        assert_int_equal(len, n);
        assert_memory_equal(got, want, n);
        assert_int_equal(got[n], '\0');
        free(got);
        /* a limit below the size: refused, naming the file */
        if (n > 1) {
            assert_null(ps_read_file(path, n - 1, &len, &err));
            assert_int_equal(err.code, PS_ERR_TOO_LARGE);
            assert_non_null(strstr(err.msg, path));
        }
        free(want);
    }
}

typedef struct {
    int fd;
    const char *data;
    size_t n;
} writer_arg;

static void *writer(void *p)
{
    writer_arg *a = p;
    size_t off = 0;
    while (off < a->n) { /* small writes, so the reader sees many reads */
        size_t k = a->n - off < 4000 ? a->n - off : 4000;
        ssize_t w = write(a->fd, a->data + off, k);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(a->fd);
    return NULL;
}

static void test_pipe(void **state)
{
    (void)state;
    size_t n = 200001;
    char *want = pattern(n);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    writer_arg a = {fds[1], want, n};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, writer, &a), 0);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    ps_error err = {0};
    size_t len = 0;
    char *got = ps_read_file(path, 0, &len, &err);
    pthread_join(t, NULL);
    close(fds[0]);
    if (!got)
        fail_msg("%s", err.msg);
    assert_int_equal(len, n);
    assert_memory_equal(got, want, n);
    assert_int_equal(got[n], '\0');
    free(got);
    free(want);
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_read_file-XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_files),
        cmocka_unit_test(test_pipe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
