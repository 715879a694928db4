/* tests/test_dedup.c — --dedup's fingerprints and index (batch/dedup.c):
 * what counts as the same words, how far a changed sentence moves the
 * SimHash, that every kept page within the distance is found whichever
 * bits differ (the probed buckets), the earliest nearest one, undo, and
 * the index file of an output folder (resume, a torn last line, the lock). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/util.h"
#include "batch/dedup.h"
#include "pagesift/batch.h"
#include "test_util.h"

static ps_fingerprint print_of(const char *s)
{
    ps_fingerprint fp;
    ps_fingerprint_text(s, strlen(s), &fp);
    return fp;
}

static void same_words_same_exact_print(void **state)
{
    (void)state;
    ps_fingerprint a = print_of("The Council met on Monday.\nIt voted: yes!");
    ps_fingerprint b = print_of("  the council MET on monday --\n\n it Voted yes ");
    ps_fingerprint c = print_of("The Council met on Tuesday. It voted: yes!");
    assert_int_equal(a.words, 8);
    assert_true(a.exact == b.exact && a.sim == b.sim);
    assert_true(a.exact != c.exact);
    /* case folding beyond ASCII; Han characters are words of their own */
    ps_fingerprint d = print_of("STRASSE Äpfel"), e = print_of("strasse äpfel");
    assert_true(d.exact == e.exact);
    assert_int_equal(print_of("北京天气").words, 4);
    assert_int_equal(print_of(" -- !? ").words, 0);
    assert_int_equal(print_of("").words, 0);
    /* short texts have a print too (one shingle) */
    assert_true(print_of("Hello").sim != print_of("World").sim);
}

/* A long article of generated sentences; sentence @p change replaced. */
static char *article(unsigned seed, int sentences, int change)
{
    static const char *const words[] = {
        "river", "council", "budget", "school", "bridge", "winter", "market", "doctor", "harbour", "police",
        "garden", "station", "museum", "railway", "festival", "library", "factory", "election", "island",
        "village", "summer", "report", "minister", "teacher", "farmer", "storm", "road", "tower", "water",
        "energy", "court", "hospital", "street", "coast", "mountain", "forest", "bank", "price", "ticket"};
    size_t nw = sizeof words / sizeof *words;
    ps_buf b = {0};
    for (int s = 0; s < sentences; s++) {
        unsigned r = seed * 2654435761u + (unsigned)s * 40503u + (s == change ? 977u : 0u);
        for (int w = 0; w < 16; w++) {
            r = r * 1103515245u + 12345u;
            ps_buf_printf(&b, "%s%s", w ? " " : "", words[(r >> 16) % nw]);
        }
        ps_buf_append(&b, ".\n", 2);
    }
    return b.data;
}

static int distance_of(const char *a, const char *b)
{
    return ps_fingerprint_distance(print_of(a).sim, print_of(b).sim);
}

static void a_changed_sentence_moves_few_bits(void **state)
{
    (void)state;
    char *a = article(1, 120, -1), *a1 = article(1, 120, 60), *b = article(2, 120, -1);
    int near = distance_of(a, a1), far = distance_of(a, b);
    fprintf(stderr, "one sentence of 120 changed: %d bits; another article: %d bits\n", near, far);
    assert_true(near >= 1 && near <= PS_DEDUP_DISTANCE);
    assert_true(far > 16);
    free(a);
    free(a1);
    free(b);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* @p k distinct random bits of @p x flipped. */
static uint64_t flip(uint64_t x, int k, uint64_t *s)
{
    uint64_t m = 0;
    while (__builtin_popcountll(m) < k)
        m |= (uint64_t)1 << (rnd(s) % 64);
    return x ^ m;
}

static ps_dedup *open_index(int distance)
{
    ps_error err = {0};
    ps_dedup *d = ps_dedup_open(distance, NULL, 0, &err);
    if (!d)
        fprintf(stderr, "ps_dedup_open: %s\n", err.msg);
    assert_non_null(d);
    return d;
}

/* Every distance up to the index's is found, whichever bits differ (the
 * buckets probed around each block); one more bit is not. */
static void every_page_within_the_distance_is_found(void **state)
{
    (void)state;
    uint64_t s = 88172645463325252ULL;
    for (int k = 0; k <= PS_DEDUP_MAX_DISTANCE; k++) {
        ps_dedup *d = open_index(k);
        ps_error err = {0};
        enum { KEPT = 3000 }; /* past several merges of the delta into the runs */
        static ps_fingerprint kept[KEPT];
        char id[32];
        for (int i = 0; i < KEPT; i++) {
            kept[i] = (ps_fingerprint){.sim = rnd(&s), .exact = rnd(&s), .words = 50};
            snprintf(id, sizeof id, "page-%d", i);
            assert_int_equal(ps_dedup_add(d, &kept[i], id, id, i % 2 ? "https://example.org/x" : NULL, &err), 0);
        }
        for (int i = 0; i < KEPT; i++) {
            ps_dedup_match m;
            int bits = k ? (int)(rnd(&s) % (uint64_t)k) + 1 : 0;
            ps_fingerprint near = {.sim = flip(kept[i].sim, bits, &s), .exact = k ? rnd(&s) : kept[i].exact, .words = 50};
            assert_int_equal(ps_dedup_find(d, &near, "", &m, &err), 1);
            snprintf(id, sizeof id, "page-%d", i);
            assert_string_equal(m.id, id);
            assert_int_equal(m.distance, bits);
            if (i % 2)
                assert_string_equal(m.url, "https://example.org/x");
            else
                assert_null(m.url);
            ps_fingerprint beyond = {.sim = flip(kept[i].sim, k + 1, &s), .exact = rnd(&s), .words = 50};
            assert_int_equal(ps_dedup_find(d, &beyond, "", &m, &err), 0);
        }
        assert_int_equal(ps_dedup_count(d), KEPT);
        ps_dedup_close(d);
    }
}

/* @p k bits of @p x flipped, k / 4 + 1 in each of as many of the four
 * 16-bit blocks (taken in a random order) as there are bits for, the rest
 * in the next: a page the index finds in one or two tables only, through
 * a bucket one or two bits from its own. */
static uint64_t spread(uint64_t x, int k, uint64_t *s)
{
    int order[4] = {0, 1, 2, 3};
    for (int i = 3; i > 0; i--) {
        int j = (int)(rnd(s) % (uint64_t)(i + 1)), o = order[i];
        order[i] = order[j];
        order[j] = o;
    }
    int left = k;
    for (int b = 0; b < 4 && left; b++) {
        int here = left < k / 4 + 1 ? left : k / 4 + 1;
        uint64_t m = 0;
        while (__builtin_popcountll(m) < here)
            m |= (uint64_t)1 << (16 * order[b] + (int)(rnd(s) % 16));
        x ^= m;
        left -= here;
    }
    return x;
}

/* The decisions of a scan of every kept page, as ps_dedup_find defines
 * them: the kept pages within the distance (at distance 0: with the same
 * words), the nearest (2 * bits apart, + 1 unless the same words), the
 * earliest of those; -1 for none. */
static long scan_for(const ps_fingerprint *kept, size_t n, const ps_fingerprint *fp, int k, int *bits)
{
    long best = -1;
    int best_rank = 1 << 30;
    for (size_t i = 0; i < n; i++) {
        int same = kept[i].exact == fp->exact, b = ps_fingerprint_distance(kept[i].sim, fp->sim);
        int rank = k == 0 ? (same ? 0 : -1) : b <= k ? 2 * b + !same : -1;
        if (rank >= 0 && rank < best_rank) { /* the first of a rank is the earliest */
            best = (long)i;
            best_rank = rank;
        }
    }
    *bits = best_rank / 2;
    return best;
}

/* The index makes the decisions of a scan of every kept page, page by
 * page, on PAGES prints fed as the writer feeds them (a look-up, then an
 * add when none is found; now and then an add taken back): uniform ones,
 * dense clusters (many kept pages within the distance of a page, at equal
 * distances: the earliest must be named), planted near duplicates at 1 to
 * k + 2 bits of an earlier page, and at k bits spread over the blocks so
 * that only one or two tables can find them (spread), exact duplicates, and pages with another
 * page's SimHash but other words (the same words win a tie).  Decisions at
 * every step: the same page named, at the same distance. */
static void the_index_agrees_with_a_scan(void **state)
{
    (void)state;
    static const struct { int k, pages; } runs[] = {{6, 50000}, {3, 12000}, {8, 12000}, {0, 12000}, {1, 6000}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        int k = runs[r].k, pages = runs[r].pages;
        uint64_t s = 0x5DEECE66DULL + (uint64_t)r;
        uint64_t centers[50];
        for (int c = 0; c < 50; c++)
            centers[c] = rnd(&s);
        ps_fingerprint *all = malloc((size_t)pages * sizeof *all), *kept = malloc((size_t)pages * sizeof *kept);
        char *is_kept = calloc((size_t)pages, 1); /* of all[] */
        assert_non_null(all);
        assert_non_null(kept);
        assert_non_null(is_kept);
        ps_dedup *d = open_index(k);
        ps_error err = {0};
        size_t n = 0, found = 0, planted = 0, planted_found = 0, ties = 0;
        char stem[32];
        for (int i = 0; i < pages; i++) {
            unsigned what = (unsigned)(rnd(&s) % 100);
            ps_fingerprint fp = {.sim = rnd(&s), .exact = rnd(&s), .words = 40};
            int plant = -1, base = -1;
            if (what >= 30 && what < 50) { /* a cluster */
                fp.sim = flip(centers[rnd(&s) % 50], 2 + (int)(rnd(&s) % 9), &s);
            } else if (what >= 50 && i) {
                base = (int)(rnd(&s) % (uint64_t)i);
                const ps_fingerprint *e = &all[base];
                if (what < 62) /* planted near */
                    fp.sim = flip(e->sim, plant = 1 + (int)(rnd(&s) % (uint64_t)(k + 2)), &s);
                else if (what < 75) /* planted near, its bits in as many blocks beyond the probed radius as fit */
                    fp.sim = spread(e->sim, plant = k ? k : 1, &s);
                else if (what < 88) /* exact */
                    fp = *e, plant = 0;
                else /* its SimHash, other words */
                    fp.sim = e->sim, plant = k ? 0 : -1;
            }
            all[i] = fp;
            int bits = 0;
            long want = scan_for(kept, n, &fp, k, &bits);
            ps_dedup_match m;
            int got = ps_dedup_find(d, &fp, "", &m, &err);
            if (got != (want >= 0) || (got == 1 && (strtol(m.stem, NULL, 10) != want || m.distance != bits))) {
                fprintf(stderr, "distance %d, page %d: the index says %s %ld at %d bits, the scan %ld at %d\n", k, i,
                        got == 1 ? "kept page" : "none", got == 1 ? strtol(m.stem, NULL, 10) : -1L,
                        got == 1 ? m.distance : -1, want, bits);
                fail();
            }
            if (plant >= 0 && plant <= k && is_kept[base]) { /* a planted duplicate of a kept page is always found */
                planted++;
                planted_found += got == 1;
            }
            if (got == 1) {
                found++;
                int same_rank = 0; /* another kept page as near: the earliest was named */
                for (size_t j = (size_t)want + 1; j < n && !same_rank; j++)
                    same_rank = ps_fingerprint_distance(kept[j].sim, fp.sim) == bits &&
                                (kept[j].exact == fp.exact) == (kept[want].exact == fp.exact);
                ties += same_rank;
                continue;
            }
            snprintf(stem, sizeof stem, "%zu", n);
            assert_int_equal(ps_dedup_add(d, &fp, stem, stem, NULL, &err), 0);
            kept[n++] = fp;
            is_kept[i] = 1;
            if (rnd(&s) % 97 == 0) { /* its record could not be written */
                ps_dedup_undo_add(d);
                n--;
                is_kept[i] = 0;
            }
        }
        fprintf(stderr, "distance %d: %d pages, %zu kept, %zu found as the scan found them (%zu with another "
                        "kept page as near), %zu of %zu planted duplicates\n",
                k, pages, n, found, ties, planted_found, planted);
        assert_int_equal(ps_dedup_count(d), n);
        assert_int_equal(planted_found, planted);
        assert_true(ties > 0 || k < 3);
        ps_dedup_close(d);
        free(all);
        free(kept);
        free(is_kept);
    }
}

static void nearest_then_earliest_and_undo(void **state)
{
    (void)state;
    ps_dedup *d = open_index(3);
    ps_error err = {0};
    ps_dedup_match m;
    ps_fingerprint a = {.sim = 0xF0F0, .exact = 1, .words = 9}, b = {.sim = 0xF0F1, .exact = 2, .words = 9},
                   c = {.sim = 0xF0F0, .exact = 3, .words = 9};
    assert_int_equal(ps_dedup_add(d, &a, "a", "A", NULL, &err), 0);
    assert_int_equal(ps_dedup_add(d, &b, "b", "B", NULL, &err), 0);
    assert_int_equal(ps_dedup_add(d, &c, "c", "C", NULL, &err), 0);
    ps_fingerprint q = {.sim = 0xF0F1, .exact = 9, .words = 9}; /* 0 bits from b, 1 from a and c */
    assert_int_equal(ps_dedup_find(d, &q, "", &m, &err), 1);
    assert_string_equal(m.id, "B");
    q.sim = 0xF0F0; /* a and c at 0 bits: the earlier */
    assert_int_equal(ps_dedup_find(d, &q, "", &m, &err), 1);
    assert_string_equal(m.id, "A");
    q.exact = 3; /* the same words win */
    assert_int_equal(ps_dedup_find(d, &q, "", &m, &err), 1);
    assert_string_equal(m.id, "C");
    assert_int_equal(m.distance, 0);
    assert_int_equal(ps_dedup_find(d, &q, "c", &m, &err), 2); /* its own line */
    ps_dedup_undo_add(d);
    assert_int_equal(ps_dedup_find(d, &q, "", &m, &err), 1);
    assert_string_equal(m.id, "A");
    assert_int_equal(ps_dedup_count(d), 2);
    ps_dedup_close(d);
}

static void the_folder_index_is_resumed(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_dedup.XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, PS_DEDUP_FILE);
    ps_error err = {0};
    ps_dedup *d = ps_dedup_open(3, dir, 0, &err);
    assert_non_null(d);
    ps_fingerprint a = {.sim = 0x1234, .exact = 7, .words = 9}, b = {.sim = ~(uint64_t)0, .exact = 8, .words = 9};
    assert_int_equal(ps_dedup_add(d, &a, "s\\1", "id\twith tab", "https://e.org/a", &err), 0);
    /* a second run into the same folder is refused while this one writes */
    ps_dedup *other = ps_dedup_open(3, dir, 1, &err);
    assert_null(other);
    assert_non_null(strstr(err.msg, "another pagesift run"));
    ps_dedup_close(d);
    /* a torn last line (a run killed while writing it) goes */
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "00000000", 8), 8);
    close(fd);
    d = ps_dedup_open(3, dir, 1, &err);
    assert_non_null(d);
    assert_int_equal(ps_dedup_count(d), 1);
    ps_dedup_match m;
    ps_fingerprint q = {.sim = 0x1235, .exact = 1, .words = 9};
    assert_int_equal(ps_dedup_find(d, &q, "", &m, &err), 1);
    assert_string_equal(m.id, "id\twith tab");
    assert_string_equal(m.stem, "s\\1");
    assert_string_equal(m.url, "https://e.org/a");
    assert_int_equal(ps_dedup_add(d, &b, "t", "B", NULL, &err), 0);
    ps_dedup_close(d);
    d = ps_dedup_open(3, dir, 1, &err);
    assert_int_equal(ps_dedup_count(d), 2);
    ps_dedup_close(d);
    /* not resuming: emptied */
    d = ps_dedup_open(3, dir, 0, &err);
    assert_int_equal(ps_dedup_count(d), 0);
    ps_dedup_close(d);
    d = ps_dedup_open(3, dir, 1, &err);
    assert_int_equal(ps_dedup_count(d), 0);
    ps_dedup_close(d);
    /* a line that is not one: an error naming the file */
    FILE *f = fopen(path, "w");
    fputs("not a line of the index\n", f);
    fclose(f);
    assert_null(ps_dedup_open(3, dir, 1, &err));
    assert_non_null(strstr(err.msg, "line 1"));
    unlink(path);
    rmdir(dir);
}

/* Memory: 56 bytes per kept page (24 of prints and offset, in chunks of
 * 1024, and 8 in each of the four tables' runs), the runs' bucket starts
 * (at most one for two pages, up to 2^16 a table) and the delta's heads
 * (at most one for 16 pages): under 100 bytes a page from 5000 pages on
 * (issue 31), under 70 from 2^17. */
static void memory_per_page(void **state)
{
    (void)state;
    ps_dedup *d = open_index(6);
    ps_error err = {0};
    uint64_t s = 1;
    fprintf(stderr, "index: %zu bytes empty\n", ps_dedup_memory(d));
    for (int i = 1; i <= 1 << 17; i++) {
        ps_fingerprint fp = {.sim = rnd(&s), .exact = rnd(&s), .words = 9};
        assert_int_equal(ps_dedup_add(d, &fp, "x", "y", NULL, &err), 0);
        if (i == 5000 || i == 1 << 17) {
            double per_page = (double)ps_dedup_memory(d) / i;
            fprintf(stderr, "index: %d pages, %.1f bytes per page\n", i, per_page);
            assert_true(per_page < (i == 5000 ? 100 : 70));
            assert_true(per_page > 56);
        }
    }
    ps_dedup_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_words_same_exact_print),
        cmocka_unit_test(a_changed_sentence_moves_few_bits),
        cmocka_unit_test(every_page_within_the_distance_is_found),
        cmocka_unit_test(nearest_then_earliest_and_undo),
        cmocka_unit_test(the_index_agrees_with_a_scan),
        cmocka_unit_test(the_folder_index_is_resumed),
        cmocka_unit_test(memory_per_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
