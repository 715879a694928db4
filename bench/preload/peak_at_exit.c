/* bench/preload/peak_at_exit.c — scripts/page-memory's helper, loaded with
 * LD_PRELOAD into a pagesift it measures: at the process's exit it writes
 * its peak resident set (the VmHWM line of /proc/self/status, in KB) to the
 * file named by PS_PEAK_OUT.  The peak is read at exit because the page
 * being measured is the process's last; the script resets it before that
 * page (/proc/PID/clear_refs), so it is the page's peak alone.
 *
 * With PS_PREFAULT_FILES=1 (scripts/page-memory --anon) it first maps in,
 * before main, every page of every file the process has mapped (its code
 * and the libraries' code and data: ICU's tables, the libraries' teardown
 * code), so that what a page adds afterwards is the memory it allocates,
 * not the first use of code and data files, which the kernel shares and
 * may drop at any time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void prefault_files(void)
{
    const char *on = getenv("PS_PREFAULT_FILES");
    if (!on || strcmp(on, "1") != 0)
        return;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    const long pg = sysconf(_SC_PAGESIZE);
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi, off, inode;
        char perms[8], dev[16], path[4096] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %4095s", &lo, &hi, perms, &off, dev, &inode, path) < 6)
            continue;
        /* a file (an inode, a path that is not [heap], [stack], [vvar]...), readable */
        if (inode == 0 || perms[0] != 'r' || path[0] != '/')
            continue;
        volatile const unsigned char *q = (const unsigned char *)(uintptr_t)lo;
        unsigned char sum = 0;
        for (unsigned long a = lo; a < hi; a += (unsigned long)pg)
            sum += q[a - lo];
        (void)sum;
    }
    if (maps)
        fclose(maps);
}

__attribute__((destructor)) static void peak_at_exit(void)
{
    const char *path = getenv("PS_PEAK_OUT");
    if (!path)
        return;
    FILE *in = fopen("/proc/self/status", "r");
    FILE *out = fopen(path, "w");
    char line[256];
    while (in && out && fgets(line, sizeof line, in))
        if (strncmp(line, "VmHWM:", 6) == 0)
            fprintf(out, "%ld\n", strtol(line + 6, NULL, 10));
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}
