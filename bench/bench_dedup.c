/* bench/bench_dedup.c — the --dedup index alone (batch/dedup.h), as the
 * batch's writer drives it: for each page in input order ps_dedup_find,
 * then ps_dedup_add when no kept page is its duplicate (the kept page's
 * line goes to the index's temporary file, as on a stream).  N pages'
 * prints are made first (below), then fed; the report gives look-ups + adds
 * per second (wall and CPU, cumulative and over the last 10 % of the
 * pages), the index's own bytes per kept page (ps_dedup_memory) and the
 * process's resident memory grown since before the index was opened
 * (VmRSS at the end; VmHWM, reset when the index is opened: the peak), per
 * kept page.
 *
 * The prints.  Real SimHashes are not uniform: texts of one language and
 * kind share shingles, so their prints cluster.  With -t LIST (a file
 * naming text files, one a line: scripts/bench-dedup gives pagesift's
 * extracted texts of ../shared/datasets) each text is fingerprinted by
 * ps_fingerprint_text, as the workers do, and those prints come first in
 * the stream; then each page is, by a seeded generator:
 *   40 %  uniform: a random SimHash (an unrelated text);
 *   30 %  clustered: a real print with 4 to 24 random bits flipped (a text
 *         of the same sort; those within the distance of a kept page are
 *         duplicates like any other);
 *   20 %  planted near duplicate: an earlier uniform or clustered page with
 *         1 to k bits flipped (k: the distance), new words;
 *    5 %  planted exact duplicate: an earlier such page's two prints;
 *    5 %  planted non-duplicate: an earlier uniform page with k + 1 to
 *         k + 4 bits flipped, new words.
 * Without -t the clustered share is uniform too.
 *
 * Correctness at scale (exit 1 on any failure): every match the index
 * names is checked against the bench's own copy of the prints (the named
 * page's SimHash is the distance said from the page's); a planted near or
 * exact duplicate whose earlier page was kept is found at a distance no
 * greater than the planted one (0 for an exact one); a planted
 * non-duplicate is never matched with its earlier page.
 *
 * -p FRACTION: the first FRACTION of the pages are added without a look-up
 * (ps_dedup_add alone, each kept), so that the look-ups of an index too
 * slow to be fed 10^7 pages can be timed at that size; -b SECONDS stops
 * the timed look-ups after that long (the rate is then over the pages
 * done).  Both are said in the report.
 *
 * Usage: bench_dedup [-n PAGES] [-k DISTANCE] [-t LIST] [-s SEED] [-p FRACTION] [-b SECONDS] */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch/dedup.h"
#include "pagesift/batch.h"

enum kind { UNIFORM, CLUSTERED, REAL, NEAR, EXACT, FAR };

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* @p k distinct random bits of @p x flipped. */
static uint64_t flip(uint64_t x, int k)
{
    uint64_t m = 0;
    while (__builtin_popcountll(m) < k)
        m |= (uint64_t)1 << (rnd() % 64);
    return x ^ m;
}

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0)
            kb = atol(line + n);
    if (f)
        fclose(f);
    return kb;
}

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The prints of the text files named in @p list into *out (n of them). */
static size_t read_real(const char *list, uint64_t **sims, uint64_t **exacts)
{
    FILE *f = fopen(list, "r");
    if (!f) {
        perror(list);
        exit(2);
    }
    size_t n = 0, cap = 0, buf_cap = 0;
    char *path = NULL, *buf = NULL;
    size_t path_cap = 0;
    ssize_t len;
    while ((len = getline(&path, &path_cap, f)) > 0) {
        if (path[len - 1] == '\n')
            path[len - 1] = '\0';
        FILE *t = fopen(path, "rb");
        if (!t)
            continue;
        size_t used = 0, r;
        for (;;) {
            if (used + 65536 > buf_cap) {
                buf_cap = buf_cap ? 2 * buf_cap : 1 << 20;
                buf = realloc(buf, buf_cap);
                if (!buf)
                    exit(3);
            }
            if ((r = fread(buf + used, 1, 65536, t)) == 0)
                break;
            used += r;
        }
        fclose(t);
        ps_fingerprint fp;
        ps_fingerprint_text(buf, used, &fp);
        if (!fp.words)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8192;
            *sims = realloc(*sims, cap * sizeof **sims);
            *exacts = realloc(*exacts, cap * sizeof **exacts);
            if (!*sims || !*exacts)
                exit(3);
        }
        (*sims)[n] = fp.sim;
        (*exacts)[n] = fp.exact;
        n++;
    }
    free(path);
    free(buf);
    fclose(f);
    return n;
}

/* How the real prints cluster: the share of each bit set, the distance of
 * pairs. */
static void report_real(const uint64_t *real_sim, size_t n_real)
{
    double lo = 1, hi = 0, sum = 0;
    for (int b = 0; b < 64; b++) {
        size_t ones = 0;
        for (size_t i = 0; i < n_real; i++)
            ones += (real_sim[i] >> b) & 1;
        double f = (double)ones / (double)n_real;
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
    }
    size_t pairs = 0, near = 0;
    for (size_t i = 0; i < n_real; i++)
        for (size_t j = i + 1; j < n_real; j++) {
            int d = __builtin_popcountll(real_sim[i] ^ real_sim[j]);
            sum += d;
            pairs++;
            near += d <= 16;
        }
    printf("real prints: %zu texts; each bit set in %.0f-%.0f %% of them; pairs %.1f bits apart on average, "
           "%zu of %zu pairs within 16 bits\n",
           n_real, 100 * lo, 100 * hi, sum / (double)pairs, near, pairs);
}

/* The pages to feed, made before the index is opened. */
typedef struct stream {
    size_t n;
    int k;
    uint64_t *sim, *exact;
    uint32_t *base; /* a planted page's earlier page */
    uint8_t *kind, *planted, *kept;
    uint32_t *originals, *uniforms;
} stream;

static void make_stream(stream *st, const uint64_t *real_sim, const uint64_t *real_exact, size_t n_real)
{
    size_t n = st->n;
    int k = st->k;
    st->sim = malloc(n * sizeof *st->sim);
    st->exact = malloc(n * sizeof *st->exact);
    st->base = malloc(n * sizeof *st->base);
    st->kind = malloc(n);
    st->planted = malloc(n);
    st->kept = malloc(n);
    uint32_t *originals = malloc(n * sizeof *originals), *uniforms = malloc(n * sizeof *uniforms);
    if (!st->sim || !st->exact || !st->base || !originals || !uniforms || !st->kind || !st->planted || !st->kept)
        exit(3);
    memset(st->kept, 0, n); /* touched now: not counted as the index's */
    uint64_t *sim = st->sim, *exact = st->exact;
    size_t n_orig = 0, n_unif = 0, count[6] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(rnd() % 100);
        enum kind kd = i < n_real                           ? REAL
                       : r < 40 || (r < 70 && !n_real)       ? UNIFORM
                       : r < 70                              ? CLUSTERED
                       : r < 90 && n_orig                    ? NEAR
                       : r < 95 && n_orig                    ? EXACT
                       : r >= 95 && n_unif                   ? FAR
                                                             : UNIFORM;
        if (k == 0 && kd == NEAR)
            kd = EXACT;
        st->planted[i] = 0;
        st->base[i] = UINT32_MAX;
        exact[i] = rnd();
        switch (kd) {
        case REAL:
            sim[i] = real_sim[i];
            exact[i] = real_exact[i];
            break;
        case UNIFORM: sim[i] = rnd(); break;
        case CLUSTERED: sim[i] = flip(real_sim[rnd() % n_real], 4 + (int)(rnd() % 21)); break;
        case NEAR:
        case EXACT:
            st->base[i] = originals[rnd() % n_orig];
            st->planted[i] = kd == EXACT ? 0 : (uint8_t)(1 + rnd() % (unsigned)k);
            sim[i] = kd == EXACT ? sim[st->base[i]] : flip(sim[st->base[i]], st->planted[i]);
            if (kd == EXACT)
                exact[i] = exact[st->base[i]];
            break;
        case FAR:
            st->base[i] = uniforms[rnd() % n_unif];
            st->planted[i] = (uint8_t)(k + 1 + (int)(rnd() % 4));
            sim[i] = flip(sim[st->base[i]], st->planted[i]);
            break;
        }
        st->kind[i] = (uint8_t)kd;
        if (kd == UNIFORM || kd == CLUSTERED || kd == REAL)
            originals[n_orig++] = (uint32_t)i;
        if (kd == UNIFORM)
            uniforms[n_unif++] = (uint32_t)i;
        count[kd]++;
    }
    st->originals = originals; /* freed at the end: freeing them now would raise malloc's mmap threshold */
    st->uniforms = uniforms;
    printf("stream: %zu pages: %zu real, %zu uniform, %zu clustered (real +- 4..24 bits), %zu planted near "
           "(1..%d bits), %zu planted exact, %zu planted non-duplicates (%d..%d bits)\n",
           n, count[REAL], count[UNIFORM], count[CLUSTERED], count[NEAR], k, count[EXACT], count[FAR], k + 1, k + 4);
}

typedef struct checks {
    size_t dups, failures, near_found, near_checked, far_checked, far_chance;
} checks;

/* Page @p i's look-up (@p found, *m) checked against the stream. */
static void check(const stream *st, size_t i, int found, const ps_dedup_match *m, int timed, checks *c)
{
    const uint64_t *sim = st->sim;
    int k = st->k, kind = st->kind[i];
    if (found == 1) {
        c->dups++;
        size_t j = strtoul(m->stem, NULL, 10);
        int bits = __builtin_popcountll(sim[j] ^ sim[i]);
        if ((j >= i || !st->kept[j] || bits != m->distance || bits > k ||
             (k == 0 && st->exact[j] != st->exact[i])) &&
            c->failures++ < 10)
            fprintf(stderr, "FAIL: page %zu named page %zu at %d bits (really %d)\n", i, j, m->distance, bits);
        if (kind == FAR && j == st->base[i] && c->failures++ < 10)
            fprintf(stderr, "FAIL: planted non-duplicate %zu (%d bits) matched with its page %zu\n", i,
                    st->planted[i], j);
        c->far_chance += kind == FAR;
    }
    if ((kind == NEAR || kind == EXACT) && st->kept[st->base[i]] && timed) {
        c->near_checked++;
        if (found == 1 && m->distance <= st->planted[i])
            c->near_found++;
        else if (c->failures++ < 10)
            fprintf(stderr, "FAIL: planted duplicate %zu of page %u (%d bits) %s\n", i, st->base[i],
                    st->planted[i], found == 1 ? "found too far" : "not found");
    }
    c->far_checked += kind == FAR && st->kept[st->base[i]] && timed;
}

int main(int argc, char **argv)
{
    stream st = {.n = 100000, .k = PS_DEDUP_DISTANCE};
    int opt;
    const char *list = NULL;
    double prefill = 0, budget = 0;
    while ((opt = getopt(argc, argv, "n:k:t:s:p:b:")) != -1) {
        switch (opt) {
        case 'n': st.n = (size_t)strtod(optarg, NULL); break;
        case 'k': st.k = atoi(optarg); break;
        case 't': list = optarg; break;
        case 's': rng_state = strtoull(optarg, NULL, 0); break;
        case 'p': prefill = atof(optarg); break;
        case 'b': budget = atof(optarg); break;
        default:
            fprintf(stderr, "usage: bench_dedup [-n PAGES] [-k DISTANCE] [-t LIST] [-s SEED] [-p FRACTION] [-b SECONDS]\n");
            return 2;
        }
    }
    size_t n = st.n;
    int k = st.k;
    if (n < 10 || n > UINT32_MAX - 1 || k < 0 || k > PS_DEDUP_MAX_DISTANCE || prefill < 0 || prefill >= 1) {
        fprintf(stderr, "bench_dedup: bad arguments\n");
        return 2;
    }
    uint64_t *real_sim = NULL, *real_exact = NULL;
    size_t n_real = list ? read_real(list, &real_sim, &real_exact) : 0;
    if (n_real > n / 2)
        n_real = n / 2;
    if (n_real)
        report_real(real_sim, n_real);
    make_stream(&st, real_sim, real_exact, n_real);

    FILE *clear = fopen("/proc/self/clear_refs", "w"); /* "5": VmHWM back to VmRSS (Linux 4.0) */
    int hwm_reset = clear && fputs("5", clear) >= 0;
    if (clear)
        hwm_reset = fclose(clear) == 0 && hwm_reset;
    long rss0 = status_kb("VmRSS:"), hwm0 = status_kb("VmHWM:");
    ps_error err = {0};
    ps_dedup *d = ps_dedup_open(k, NULL, 0, &err);
    if (!d) {
        fprintf(stderr, "bench_dedup: %s\n", err.msg);
        return 3;
    }
    size_t first = (size_t)(prefill * (double)n), last10 = n - (n - first) / 10, done = n;
    checks c = {0};
    char stem[24];
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), wl = w0, cl = c0;
    for (size_t i = 0; i < n; i++) {
        if (i == first) {
            w0 = now(CLOCK_MONOTONIC);
            c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        }
        if (i == last10) {
            wl = now(CLOCK_MONOTONIC);
            cl = now(CLOCK_PROCESS_CPUTIME_ID);
        }
        if (budget > 0 && i > first && (i & 255) == 0 && now(CLOCK_MONOTONIC) - w0 > budget) {
            done = i;
            break;
        }
        ps_fingerprint fp = {.exact = st.exact[i], .sim = st.sim[i], .words = 100};
        ps_dedup_match m;
        int found = i < first ? 0 : ps_dedup_find(d, &fp, "", &m, &err);
        if (found < 0) {
            fprintf(stderr, "bench_dedup: %s\n", err.msg);
            return 3;
        }
        check(&st, i, found, &m, i >= first, &c);
        if (found == 0) {
            snprintf(stem, sizeof stem, "%zu", i);
            if (ps_dedup_add(d, &fp, stem, stem, NULL, &err) != 0) {
                fprintf(stderr, "bench_dedup: %s\n", err.msg);
                return 3;
            }
            st.kept[i] = 1;
        }
    }
    double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    long rss1 = status_kb("VmRSS:"), hwm1 = status_kb("VmHWM:");
    size_t kept_n = ps_dedup_count(d), mem = ps_dedup_memory(d);
    size_t timed = done - first, timed_last = done > last10 ? done - last10 : 0;
    long peak = hwm_reset ? hwm1 - rss0 : hwm1 - (hwm0 > rss0 ? hwm0 : rss0); /* else a lower bound */
    printf("distance %d: %zu pages fed, %zu kept, %zu duplicates", k, done, kept_n, c.dups);
    if (first)
        printf(" (the first %zu added without a look-up)", first);
    if (done < n)
        printf(" (stopped after %.0f s of look-ups)", budget);
    printf("\n");
    printf("  rate, look-up + add per page: %.0f pages/s wall, %.0f per CPU second (%.2f us CPU a page) over %zu pages",
           timed / (w1 - w0), timed / (c1 - c0), 1e6 * (c1 - c0) / timed, timed);
    if (timed_last)
        printf("; last 10 %%: %.0f pages/s wall, %.0f per CPU second (%.2f us CPU a page)", timed_last / (w1 - wl),
               timed_last / (c1 - cl), 1e6 * (c1 - cl) / timed_last);
    printf("\n  memory: ps_dedup_memory %.1f MB = %.1f bytes per kept page; RSS grown %.1f MB = %.1f bytes per kept "
           "page, peak %.1f MB = %.1f bytes per kept page\n",
           mem / 1e6, (double)mem / kept_n, (rss1 - rss0) / 1e3, 1e3 * (rss1 - rss0) / kept_n, peak / 1e3,
           1e3 * peak / kept_n);
    printf("  checks: %zu of %zu planted duplicates of a kept page found within their distance; %zu planted "
           "non-duplicates of a kept page, none matched with it, %zu matched by chance with another page; "
           "%zu failures\n",
           c.near_found, c.near_checked, c.far_checked, c.far_chance, c.failures);
    ps_dedup_close(d);
    free(real_sim);
    free(real_exact);
    free(st.sim);
    free(st.exact);
    free(st.base);
    free(st.kind);
    free(st.planted);
    free(st.kept);
    free(st.originals);
    free(st.uniforms);
    return c.failures ? 1 : 0;
}
