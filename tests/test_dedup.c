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
        ps_fingerprint kept[200];
        char id[32];
        for (int i = 0; i < 200; i++) {
            kept[i] = (ps_fingerprint){.sim = rnd(&s), .exact = rnd(&s), .words = 50};
            snprintf(id, sizeof id, "page-%d", i);
            assert_int_equal(ps_dedup_add(d, &kept[i], id, id, i % 2 ? "https://example.org/x" : NULL, &err), 0);
        }
        for (int i = 0; i < 200; i++) {
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
        assert_int_equal(ps_dedup_count(d), 200);
        ps_dedup_close(d);
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

/* Memory: 40 bytes per kept page in chunks of 4096, and bucket heads that
 * grow with the pages up to 1 MiB: under 100 bytes a page from 5000 pages
 * on (issue 31), under 50 from 2^17. */
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
            assert_true(per_page < (i == 5000 ? 100 : 50));
            assert_true(per_page > 40);
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
        cmocka_unit_test(the_folder_index_is_resumed),
        cmocka_unit_test(memory_per_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
