/* bench/bench_site_models.c — the per-site model store alone
 * (include/pagesift/site_models.h): get and release the site models of a
 * folder in a run's order, ROUNDS times over SITES (s0000.bench ..), and
 * report the loads, evictions and hits the LRU made under the cap, its
 * peak (the store's own estimate of the bytes held), the CPU time of a
 * load, and what the models held at the end cost: the process's resident
 * memory grown since the base was loaded, per model held (with a cap above
 * every model, all of them).  scripts/bench-site-models runs it beside
 * pagesift --models.
 * Usage: bench_site_models BASE.model DIR CAP_MB [SITES [ROUNDS]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagesift.h"
#include "pagesift/site_models.h"
#include "pagesift/util.h"

/* VmRSS of this process in KB (0 when unknown) */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_site_models BASE.model DIR CAP_MB [SITES [ROUNDS]]\n");
        return 2;
    }
    int sites = argc > 4 ? atoi(argv[4]) : 1000, rounds = argc > 5 ? atoi(argv[5]) : 2;
    ps_error err = {0};
    ps_model *base = ps_model_load(argv[1], &err);
    ps_site_models *s = base ? ps_site_models_open(argv[2], base, (size_t)atol(argv[3]) << 20, &err) : NULL;
    if (!s) {
        fprintf(stderr, "bench_site_models: %s\n", err.msg);
        ps_model_free(base);
        return 3;
    }
    long rss0 = rss_kb();
    double t0 = ps_clock(PS_CLOCK_THREAD_CPU);
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < sites; i++) {
            char site[32];
            snprintf(site, sizeof site, "s%04d.bench", i);
            ps_site_models_release(s, ps_site_models_get(s, site));
        }
    double cpu = ps_clock(PS_CLOCK_THREAD_CPU) - t0;
    ps_site_models_stats st;
    ps_site_models_get_stats(s, &st);
    printf("cap %s MB, %d sites x %d rounds: %llu loads, %llu evictions, %llu hits, %llu refused, peak %.0f MB "
           "(estimate), %.2f ms CPU a load\n",
           argv[3], sites, rounds, (unsigned long long)st.loads, (unsigned long long)st.evictions,
           (unsigned long long)st.hits, (unsigned long long)st.refused, (double)st.peak_bytes / 1048576.0,
           st.loads ? 1000 * cpu / (double)st.loads : 0.0);
    long rss1 = rss_kb();
    printf("  held at the end: %zu models, %.1f KB each by the store's estimate, RSS +%.1f MB = %.1f KB a model\n",
           st.loaded, st.loaded ? (double)st.bytes / 1024.0 / (double)st.loaded : 0.0, (double)(rss1 - rss0) / 1024.0,
           st.loaded ? (double)(rss1 - rss0) / (double)st.loaded : 0.0);
    ps_site_models_free(s);
    ps_model_free(base);
    return 0;
}
