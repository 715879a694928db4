/* train/model_path.c — where the shipped model is, found at run time so that
 * an install works under whatever prefix it was put:
 *
 *   1. $PAGESIFT_MODEL, when set and not empty (used as given);
 *   2. beside the library: <dir of libpagesift.so>/PS_MODEL_FROM_LIB
 *      (lib/../share/pagesift/models/default.model);
 *   3. beside the program: <dir of /proc/self/exe>/PS_MODEL_FROM_BIN
 *      (bin/../share/pagesift/models/default.model), for a program linked
 *      statically or against a library installed elsewhere;
 *   4. the source tree's models/default.model, only for the library of the
 *      build folder it was built in (the tools work before installation).
 *
 * Nothing absolute is compiled in except the build folder's own paths. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagesift.h"
#include "pagesift/model.h"
#include "pagesift/page_types.h"

enum { N_CAND = 3 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char cand[N_CAND][PATH_MAX + 64]; /* library-relative, program-relative, source tree */
static const char *const cand_what[N_CAND] = {"beside libpagesift", "beside the program",
                                              "this build's source tree"};
static const char *found = "";
static char searched[3 * (PATH_MAX + 96) + 256];

/* Remove "." and "dir/.." segments of an absolute path, in place. */
static void tidy(char *p)
{
    char *out = p, *in = p;
    while (*in) {
        while (*in == '/')
            in++;
        if (!*in)
            break;
        char *seg = in;
        while (*in && *in != '/')
            in++;
        size_t n = (size_t)(in - seg);
        if (n == 1 && seg[0] == '.')
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > p && *--out != '/')
                ;
            continue;
        }
        *out++ = '/';
        memmove(out, seg, n);
        out += n;
    }
    if (out == p)
        *out++ = '/';
    *out = '\0';
}

/* The folder of @p file (resolved), or 0 when unknown. */
static int dir_of(const char *file, char *dir)
{
    char real[PATH_MAX];
    if (!file || !realpath(file, real))
        return 0;
    char *slash = strrchr(real, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    snprintf(dir, PATH_MAX, "%s", *real ? real : "/");
    return 1;
}

static void find_candidates(void)
{
    char dir[PATH_MAX];
    Dl_info info;
    int lib = dladdr((void *)ps_model_default_path, &info) && dir_of(info.dli_fname, dir);
    if (lib) {
        snprintf(cand[0], sizeof cand[0], "%s/%s/default.model", dir, PS_MODEL_FROM_LIB);
        tidy(cand[0]);
        char build[PATH_MAX];
        if (realpath(PS_BUILD_LIB_DIR, build) && strcmp(build, dir) == 0)
            snprintf(cand[2], sizeof cand[2], "%s/default.model", PS_SOURCE_MODEL_DIR);
    }
    if (dir_of("/proc/self/exe", dir)) {
        snprintf(cand[1], sizeof cand[1], "%s/%s/default.model", dir, PS_MODEL_FROM_BIN);
        tidy(cand[1]);
        if (strcmp(cand[1], cand[0]) == 0)
            cand[1][0] = '\0';
    }
    size_t len = 0;
    for (int i = 0; i < N_CAND; i++) {
        if (!cand[i][0])
            continue;
        if (!found[0] && access(cand[i], R_OK) == 0)
            found = cand[i];
        int k = snprintf(searched + len, sizeof searched - len, "%s%s (%s)", len ? ", " : "",
                         cand[i], cand_what[i]);
        if (k > 0 && (size_t)k < sizeof searched - len)
            len += (size_t)k;
    }
    if (!found[0]) /* none there: the place it would be installed, for the message */
        found = cand[0][0] ? cand[0] : cand[1];
}

const char *ps_model_default_path(void)
{
    const char *env = getenv("PAGESIFT_MODEL");
    if (env && *env)
        return env;
    pthread_once(&once, find_candidates);
    return found;
}

const char *ps_model_default_searched(void)
{
    pthread_once(&once, find_candidates);
    return searched;
}

/* The page-type bundle ships beside the block model: page-types.model in
 * the folder of ps_model_default_path's file. */
static pthread_once_t pt_once = PTHREAD_ONCE_INIT;
static char pt_path[PATH_MAX + 64];

static void find_page_types(void)
{
    const char *m = ps_model_default_path();
    const char *slash = strrchr(m, '/');
    if (slash)
        snprintf(pt_path, sizeof pt_path, "%.*s/page-types.model", (int)(slash - m), m);
    else
        snprintf(pt_path, sizeof pt_path, "page-types.model");
}

const char *ps_page_types_default_path(void)
{
    const char *env = getenv("PAGESIFT_PAGE_TYPES");
    if (env && *env)
        return env;
    pthread_once(&pt_once, find_page_types);
    return pt_path;
}
