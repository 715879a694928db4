/* tests/test_tmpdir.h — a temporary folder per test file (set up and torn
 * down by cmocka's group fixtures).  Include it after the feature macros
 * that declare mkdtemp (_POSIX_C_SOURCE 200809L or more). */
#ifndef PS_TEST_TMPDIR_H
#define PS_TEST_TMPDIR_H
#include <stdio.h>
#include <stdlib.h>

/* A fresh folder for a test file's files, $TMPDIR (else /tmp)/NAME-XXXXXX,
 * its path in @p buf: 0, or -1 (mkdtemp failed). */
static inline int test_tmpdir_make(char *buf, size_t cap, const char *name)
{
    const char *t = getenv("TMPDIR");
    if (snprintf(buf, cap, "%s/%s-XXXXXX", t && *t ? t : "/tmp", name) >= (int)cap)
        return -1;
    return mkdtemp(buf) ? 0 : -1;
}

/* Remove @p dir and everything in it: 0, or -1. */
static inline int test_tmpdir_remove(const char *dir)
{
    char cmd[600];
    if (snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= (int)sizeof cmd)
        return -1;
    return system(cmd) == 0 ? 0 : -1;
}

#endif
