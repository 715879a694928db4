/* bench/preload/peak_at_exit.c — scripts/page-memory's helper, loaded with
 * LD_PRELOAD into a pagesift it measures: at the process's exit it writes
 * its peak resident set (the VmHWM line of /proc/self/status, in KB) to the
 * file named by PS_PEAK_OUT.  The peak is read at exit because the page
 * being measured is the process's last; the script resets it before that
 * page (/proc/PID/clear_refs), so it is the page's peak alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
