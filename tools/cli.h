/* tools/cli.h — what every pagesift tool does the same way on its command
 * line (header only: each tools/<name>.c is a program of its own).
 *
 * Option errors are one line, never the whole help:
 *   pagesift: unknown option --x; try --help
 *   pagesift: option --format needs an argument; try --help
 * Use: set `opterr = 0` before getopt_long, start the option string with ':'
 * (after a '+' if any), and hand the '?' and ':' cases to ps_cli_bad_option. */
#ifndef PS_TOOLS_CLI_H
#define PS_TOOLS_CLI_H
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pagesift.h"
#include "pagesift/model.h"

/* Print the one-line message for getopt_long's return @p c ('?' or ':');
 * returns 2, the usage-error exit status. */
static inline int ps_cli_bad_option(const char *prog, int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    int is_long = strncmp(arg, "--", 2) == 0;
    char name[64];
    if (is_long || !optopt || optopt > 127)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "-%c", optopt);
    if (c == ':')
        fprintf(stderr, "%s: option %s needs an argument; try --help\n", prog, name);
    else if (is_long && optopt) /* glibc: a known long option given "=value" */
        fprintf(stderr, "%s: option %s takes no argument; try --help\n", prog, name);
    else
        fprintf(stderr, "%s: unknown option %s; try --help\n", prog, name);
    return 2;
}

/* For a tool that reads its inputs twice (--learn-templates): an input or
 * a --list (@p what: "" or "--list ") @p path that exists but is neither a
 * file nor a folder (a pipe, a shell's <(...): read once) is said and
 * refused; returns 2, else 0.  "-" (standard input) is the caller's to
 * refuse with its other uses of standard input. */
static inline int ps_cli_read_twice(const char *prog, const char *what, const char *path)
{
    struct stat st;
    if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return 0;
    fprintf(stderr, "%s: --learn-templates reads the inputs twice: %s%s is not a file (a pipe "
                    "is read once): save it to a file\n", prog, what, path);
    return 2;
}

/* The library's messages (ps_set_print_function) as this tool's lines,
 * "PROG: message". */
static inline const char **ps_cli_prog_slot(void)
{
    static const char *prog;
    return &prog;
}

static inline void ps_cli_print_line(const char *line)
{
    fprintf(stderr, "%s: %s\n", *ps_cli_prog_slot(), line);
}

static inline void ps_cli_report_as(const char *prog)
{
    *ps_cli_prog_slot() = prog;
    ps_set_print_function(ps_cli_print_line);
}

/* After a setup error with no --model given: when the shipped model was not
 * found, say where it was looked for and how to pass one. */
static inline void ps_cli_model_hint(const char *prog, const char *model_given)
{
    if (model_given)
        return;
    const char *env = getenv("PAGESIFT_MODEL");
    if (env && *env) {
        if (access(env, R_OK) != 0)
            fprintf(stderr, "%s: $PAGESIFT_MODEL names %s, which cannot be read\n", prog, env);
        return;
    }
    if (access(ps_model_default_path(), R_OK) == 0)
        return;
    fprintf(stderr,
            "%s: no model found: looked at %s; $PAGESIFT_MODEL is not set.\n"
            "%s: pass one with --model FILE or PAGESIFT_MODEL=FILE (pagesift-train makes one)\n",
            prog, ps_model_default_searched(), prog);
}
#endif
