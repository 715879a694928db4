/* batch/dedup.c — duplicate pages of a batch (batch/dedup.h): the
 * fingerprints of a text, and the index of the kept pages.
 *
 * Fingerprints.  The text is cut into words (ICU's letters, digits and
 * marks; a Han or kana character alone), each folded to lower case and
 * hashed (XXH3-64, Debian's libxxhash).  The exact print chains the word
 * hashes; the SimHash (Charikar 2002, as Manku et al. 2007 use it for web
 * pages) sets bit b when most of the text's distinct word 3-shingles have
 * bit b set in their hash.  Texts that share most of their shingles get SimHashes a
 * few bits apart; a changed sentence or two moves a few bits, a different
 * article about half of them.
 *
 * The index.  The 64 bits are four blocks of 16; a page within distance k
 * of a kept page differs from it in at most k / 4 bits of one of the blocks
 * (pigeonhole), so each block keys a table, and a look-up visits, in each
 * table, the buckets within k / 4 bits of the page's block (1 for k <= 3,
 * 17 for k <= 7, 137 for k = 8) and compares the pages there (Manku et
 * al.'s tables, probing neighbouring buckets instead of keeping more
 * permuted tables, so memory does not grow with k).  Exact duplicates have
 * the same SimHash: one bucket of one table.
 *
 * A table's kept pages are runs, one per bucket, contiguous in memory and
 * in index order within a run (Manku et al. keep their tables sorted): for
 * each page 4 bytes of its index and 4 of a fragment, 32 bits of its
 * SimHash outside the block (the low half of its exact print at distance
 * 0), so that a look-up reads a run straight through and reads a page's
 * entry only when the fragment leaves it within the distance.  The pages
 * added since the runs were last made (the delta, at most 2^16 and about
 * a 16th of the pages) are chained by their bucket, the latest first, and
 * merged into the runs in place when it is full (the runs grow by runs_resize
 * and move up from the last bucket down; when the pages call for more
 * buckets the runs are sorted anew).  Before (issue 31), every page was
 * chained: a look-up followed about n / 2^16 links a bucket, each to
 * another place in memory, 520 look-ups a second at 10^7 pages
 * (bench/bench_dedup.c); the runs make it tens of thousands.
 *
 * Per kept page: 24 bytes (two prints and the offset of its line in the
 * file) in chunks of 1024 pages, 8 bytes per table, and the bucket
 * starts (at most one for two pages, up to 2^16 a table).  Its stem, id
 * and URL are a line of the index file, read back only for a duplicate's
 * record. */
#ifdef __linux__
#define _GNU_SOURCE /* mremap */
#include <sys/mman.h>
#endif
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <unicode/uchar.h>
#include <unicode/utf8.h>
#include <xxhash.h>

#include "common/util.h"
#include "batch/dedup.h"

/* ---- fingerprints --------------------------------------------------------- */

enum { WORD_CAP = 128 }; /* folded bytes hashed at a time */

typedef struct shingler {
    uint64_t w[3];        /* the last three words' hashes */
    size_t words;
    uint64_t exact;
    uint64_t *sh;         /* the shingles' hashes */
    size_t n, cap;
    int oom;
} shingler;

static void add_shingle(shingler *s, uint64_t h)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        uint64_t *sh = realloc(s->sh, cap * sizeof *sh);
        if (!sh) {
            s->oom = 1;
            return;
        }
        s->sh = sh;
        s->cap = cap;
    }
    s->sh[s->n++] = h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* spread_of[v]: bit b of v moved to bit 8b (the low bit of byte b). */
static const uint64_t spread_of[256] = {
    0x0000000000000000ull, 0x0000000000000001ull, 0x0000000000000100ull, 0x0000000000000101ull,
    0x0000000000010000ull, 0x0000000000010001ull, 0x0000000000010100ull, 0x0000000000010101ull,
    0x0000000001000000ull, 0x0000000001000001ull, 0x0000000001000100ull, 0x0000000001000101ull,
    0x0000000001010000ull, 0x0000000001010001ull, 0x0000000001010100ull, 0x0000000001010101ull,
    0x0000000100000000ull, 0x0000000100000001ull, 0x0000000100000100ull, 0x0000000100000101ull,
    0x0000000100010000ull, 0x0000000100010001ull, 0x0000000100010100ull, 0x0000000100010101ull,
    0x0000000101000000ull, 0x0000000101000001ull, 0x0000000101000100ull, 0x0000000101000101ull,
    0x0000000101010000ull, 0x0000000101010001ull, 0x0000000101010100ull, 0x0000000101010101ull,
    0x0000010000000000ull, 0x0000010000000001ull, 0x0000010000000100ull, 0x0000010000000101ull,
    0x0000010000010000ull, 0x0000010000010001ull, 0x0000010000010100ull, 0x0000010000010101ull,
    0x0000010001000000ull, 0x0000010001000001ull, 0x0000010001000100ull, 0x0000010001000101ull,
    0x0000010001010000ull, 0x0000010001010001ull, 0x0000010001010100ull, 0x0000010001010101ull,
    0x0000010100000000ull, 0x0000010100000001ull, 0x0000010100000100ull, 0x0000010100000101ull,
    0x0000010100010000ull, 0x0000010100010001ull, 0x0000010100010100ull, 0x0000010100010101ull,
    0x0000010101000000ull, 0x0000010101000001ull, 0x0000010101000100ull, 0x0000010101000101ull,
    0x0000010101010000ull, 0x0000010101010001ull, 0x0000010101010100ull, 0x0000010101010101ull,
    0x0001000000000000ull, 0x0001000000000001ull, 0x0001000000000100ull, 0x0001000000000101ull,
    0x0001000000010000ull, 0x0001000000010001ull, 0x0001000000010100ull, 0x0001000000010101ull,
    0x0001000001000000ull, 0x0001000001000001ull, 0x0001000001000100ull, 0x0001000001000101ull,
    0x0001000001010000ull, 0x0001000001010001ull, 0x0001000001010100ull, 0x0001000001010101ull,
    0x0001000100000000ull, 0x0001000100000001ull, 0x0001000100000100ull, 0x0001000100000101ull,
    0x0001000100010000ull, 0x0001000100010001ull, 0x0001000100010100ull, 0x0001000100010101ull,
    0x0001000101000000ull, 0x0001000101000001ull, 0x0001000101000100ull, 0x0001000101000101ull,
    0x0001000101010000ull, 0x0001000101010001ull, 0x0001000101010100ull, 0x0001000101010101ull,
    0x0001010000000000ull, 0x0001010000000001ull, 0x0001010000000100ull, 0x0001010000000101ull,
    0x0001010000010000ull, 0x0001010000010001ull, 0x0001010000010100ull, 0x0001010000010101ull,
    0x0001010001000000ull, 0x0001010001000001ull, 0x0001010001000100ull, 0x0001010001000101ull,
    0x0001010001010000ull, 0x0001010001010001ull, 0x0001010001010100ull, 0x0001010001010101ull,
    0x0001010100000000ull, 0x0001010100000001ull, 0x0001010100000100ull, 0x0001010100000101ull,
    0x0001010100010000ull, 0x0001010100010001ull, 0x0001010100010100ull, 0x0001010100010101ull,
    0x0001010101000000ull, 0x0001010101000001ull, 0x0001010101000100ull, 0x0001010101000101ull,
    0x0001010101010000ull, 0x0001010101010001ull, 0x0001010101010100ull, 0x0001010101010101ull,
    0x0100000000000000ull, 0x0100000000000001ull, 0x0100000000000100ull, 0x0100000000000101ull,
    0x0100000000010000ull, 0x0100000000010001ull, 0x0100000000010100ull, 0x0100000000010101ull,
    0x0100000001000000ull, 0x0100000001000001ull, 0x0100000001000100ull, 0x0100000001000101ull,
    0x0100000001010000ull, 0x0100000001010001ull, 0x0100000001010100ull, 0x0100000001010101ull,
    0x0100000100000000ull, 0x0100000100000001ull, 0x0100000100000100ull, 0x0100000100000101ull,
    0x0100000100010000ull, 0x0100000100010001ull, 0x0100000100010100ull, 0x0100000100010101ull,
    0x0100000101000000ull, 0x0100000101000001ull, 0x0100000101000100ull, 0x0100000101000101ull,
    0x0100000101010000ull, 0x0100000101010001ull, 0x0100000101010100ull, 0x0100000101010101ull,
    0x0100010000000000ull, 0x0100010000000001ull, 0x0100010000000100ull, 0x0100010000000101ull,
    0x0100010000010000ull, 0x0100010000010001ull, 0x0100010000010100ull, 0x0100010000010101ull,
    0x0100010001000000ull, 0x0100010001000001ull, 0x0100010001000100ull, 0x0100010001000101ull,
    0x0100010001010000ull, 0x0100010001010001ull, 0x0100010001010100ull, 0x0100010001010101ull,
    0x0100010100000000ull, 0x0100010100000001ull, 0x0100010100000100ull, 0x0100010100000101ull,
    0x0100010100010000ull, 0x0100010100010001ull, 0x0100010100010100ull, 0x0100010100010101ull,
    0x0100010101000000ull, 0x0100010101000001ull, 0x0100010101000100ull, 0x0100010101000101ull,
    0x0100010101010000ull, 0x0100010101010001ull, 0x0100010101010100ull, 0x0100010101010101ull,
    0x0101000000000000ull, 0x0101000000000001ull, 0x0101000000000100ull, 0x0101000000000101ull,
    0x0101000000010000ull, 0x0101000000010001ull, 0x0101000000010100ull, 0x0101000000010101ull,
    0x0101000001000000ull, 0x0101000001000001ull, 0x0101000001000100ull, 0x0101000001000101ull,
    0x0101000001010000ull, 0x0101000001010001ull, 0x0101000001010100ull, 0x0101000001010101ull,
    0x0101000100000000ull, 0x0101000100000001ull, 0x0101000100000100ull, 0x0101000100000101ull,
    0x0101000100010000ull, 0x0101000100010001ull, 0x0101000100010100ull, 0x0101000100010101ull,
    0x0101000101000000ull, 0x0101000101000001ull, 0x0101000101000100ull, 0x0101000101000101ull,
    0x0101000101010000ull, 0x0101000101010001ull, 0x0101000101010100ull, 0x0101000101010101ull,
    0x0101010000000000ull, 0x0101010000000001ull, 0x0101010000000100ull, 0x0101010000000101ull,
    0x0101010000010000ull, 0x0101010000010001ull, 0x0101010000010100ull, 0x0101010000010101ull,
    0x0101010001000000ull, 0x0101010001000001ull, 0x0101010001000100ull, 0x0101010001000101ull,
    0x0101010001010000ull, 0x0101010001010001ull, 0x0101010001010100ull, 0x0101010001010101ull,
    0x0101010100000000ull, 0x0101010100000001ull, 0x0101010100000100ull, 0x0101010100000101ull,
    0x0101010100010000ull, 0x0101010100010001ull, 0x0101010100010100ull, 0x0101010100010101ull,
    0x0101010101000000ull, 0x0101010101000001ull, 0x0101010101000100ull, 0x0101010101000101ull,
    0x0101010101010000ull, 0x0101010101010001ull, 0x0101010101010100ull, 0x0101010101010101ull,
};

/* The SimHash of the set of shingles: each distinct shingle counts once, so
 * a phrase a text repeats (a byline, "said that the") does not outweigh
 * the rest.  The 64 counts are kept 8 to a word (byte b of lane[j] counts
 * bit 8j + b), added a byte of the hash at a time and emptied into ones[]
 * before a byte can overflow. */
static uint64_t simhash(shingler *s)
{
    qsort(s->sh, s->n, sizeof *s->sh, cmp_u64);
    uint32_t ones[64] = {0}, distinct = 0;
    uint64_t lane[8] = {0};
    for (size_t i = 0; i <= s->n; i++) {
        if ((distinct % 255 == 0 || i == s->n) && distinct) { /* empty the lanes */
            for (int b = 0; b < 64; b++)
                ones[b] += (uint32_t)((lane[b / 8] >> (8 * (b % 8))) & 0xFF);
            memset(lane, 0, sizeof lane);
        }
        if (i == s->n || (i && s->sh[i] == s->sh[i - 1]))
            continue;
        distinct++;
        for (int j = 0; j < 8; j++)
            lane[j] += spread_of[(s->sh[i] >> (8 * j)) & 0xFF];
    }
    uint64_t sim = 0;
    for (int b = 0; b < 64; b++)
        if (2 * (uint64_t)ones[b] > distinct)
            sim |= (uint64_t)1 << b;
    return sim;
}

static void add_word(shingler *s, uint64_t h)
{
    s->exact = XXH3_64bits_withSeed(&h, sizeof h, s->exact);
    s->w[0] = s->w[1];
    s->w[1] = s->w[2];
    s->w[2] = h;
    if (++s->words >= 3)
        add_shingle(s, XXH3_64bits(s->w, sizeof s->w));
}

static int word_char(UChar32 c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return (U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_N_MASK | U_GC_M_MASK)) != 0;
}

/* A character that is a word by itself: Han, hiragana, katakana. */
static int solo_char(UChar32 c)
{
    return c >= 0x2E80 && ((c >= 0x3040 && c <= 0x30FF) || u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC));
}

/* The folded UTF-8 of @p c appended to buf (WORD_CAP bytes, *n used); a
 * full buffer is first hashed into *h. */
static void fold_into(char *buf, size_t *n, uint64_t *h, UChar32 c)
{
    if (*n + U8_MAX_LENGTH > WORD_CAP) {
        *h = XXH3_64bits_withSeed(buf, *n, *h);
        *n = 0;
    }
    if (c < 0x80) {
        buf[(*n)++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        return;
    }
    UBool err = 0;
    U8_APPEND((uint8_t *)buf, *n, WORD_CAP, u_foldCase(c, U_FOLD_CASE_DEFAULT), err);
    (void)err;
}

void ps_fingerprint_text(const char *text, size_t len, ps_fingerprint *fp)
{
    shingler s;
    memset(&s, 0, sizeof s);
    char buf[WORD_CAP];
    size_t n = 0;
    uint64_t h = 0;
    int32_t i = 0, end = len > INT32_MAX ? INT32_MAX : (int32_t)len;
    const uint8_t *t = (const uint8_t *)text;
    while (i <= end) {
        UChar32 c = -1;
        if (i < end)
            U8_NEXT(t, i, end, c);
        else
            i++; /* past the end: the last word ends */
        int in_word = c >= 0 && word_char(c) && !solo_char(c);
        if (in_word) {
            fold_into(buf, &n, &h, c);
            continue;
        }
        if (n) { /* a word ended */
            add_word(&s, XXH3_64bits_withSeed(buf, n, h));
            n = 0;
            h = 0;
        }
        if (c >= 0 && solo_char(c)) {
            fold_into(buf, &n, &h, c);
            add_word(&s, XXH3_64bits_withSeed(buf, n, h));
            n = 0;
        }
    }
    if (s.words && s.words < 3) /* one shingle: the words there are */
        add_shingle(&s, XXH3_64bits(s.w + 3 - s.words, s.words * sizeof *s.w));
    fp->words = s.oom ? 0 : s.words; /* out of memory: no print, the page is kept */
    fp->exact = s.exact;
    fp->sim = s.oom || !s.n ? 0 : simhash(&s);
    free(s.sh);
}

/* ---- the index ------------------------------------------------------------ */

enum {
    CHUNK_BITS = 10, CHUNK = 1 << CHUNK_BITS, /* entries per chunk */
    KEY_BITS = 16, TABLES = 64 / KEY_BITS,
    MIN_BUCKET_BITS = 8, MIN_DELTA_BITS = 8,
};
#define NONE UINT32_MAX

typedef struct entry {
    uint64_t sim, exact;
    uint64_t off; /* of its line in the file */
} entry;

/* One table: its block's key.  The pages 0 .. merged - 1 are in runs, one
 * per bucket, in index order within a run: bucket b's are frag[] and idx[]
 * from start[b] to start[b + 1].  The pages after (the delta, at most
 * 2^delta_bits) are chained from dhead[] by the low delta_bits bits of the
 * block, the latest first. */
typedef struct table {
    uint32_t *start; /* 2^bucket_bits + 1 */
    uint32_t *frag;  /* merged: 32 other bits of the page's SimHash (its exact print's at distance 0) */
    uint32_t *idx;   /* merged: the page */
    size_t fcap, xcap; /* elements allocated in frag and idx (runs_resize) */
    uint32_t *dhead; /* 2^delta_bits */
    uint32_t *dnext; /* 2^delta_bits: by page - merged */
} table;

struct ps_dedup {
    int distance, tables;
    table t[TABLES];
    int bucket_bits;    /* the runs' buckets: 2^bucket_bits a table, at most half the pages, up to 2^16 */
    int delta_bits;     /* the delta's buckets and its largest size: 2^delta_bits, about a 16th of the pages */
    size_t merged;      /* pages in the runs */
    uint32_t *cur;      /* 2^bucket_bits + 1, for a merge */
    uint32_t *dsorted;  /* 2^delta_bits, for a merge */
    entry **chunks;
    size_t n_chunks, n; /* pages in the index */
    int fd;             /* the file of lines */
    uint64_t size, size_before_add;
    char *path;         /* its name (NULL: a temporary file, unlinked) */
    ps_buf line;        /* a line read back */
};

static entry *entry_at(const ps_dedup *d, uint32_t i)
{
    return &d->chunks[i >> CHUNK_BITS][i & (CHUNK - 1)];
}

/* Key of table @p t: block t of the SimHash's 64 bits, its low @p bits
 * bits. */
static uint32_t key_of(int t, uint64_t sim, int bits)
{
    return (uint32_t)((sim >> (t * KEY_BITS)) & ((1u << bits) - 1));
}

/* What a run keeps of a page for table @p t: the two blocks after block t
 * (any bit in which two prints differ there counts towards their
 * distance, so a page further than the distance is passed over without
 * reading its entry); at distance 0 the low bits of the exact print. */
static uint32_t frag_of(const ps_dedup *d, int t, uint64_t sim, uint64_t exact)
{
    if (d->distance == 0)
        return (uint32_t)exact;
    int s = ((t + 1) % TABLES) * KEY_BITS;
    return (uint32_t)(s ? (sim >> s) | (sim << (64 - s)) : sim);
}

size_t ps_dedup_count(const ps_dedup *d)
{
    return d->n;
}

size_t ps_dedup_memory(const ps_dedup *d)
{
    size_t buckets = ((size_t)1 << d->bucket_bits) + 1, delta = (size_t)1 << d->delta_bits;
    size_t runs = 0;
    for (int t = 0; t < d->tables; t++)
        runs += d->t[t].fcap + d->t[t].xcap;
    return sizeof *d + ((size_t)d->tables * (buckets + 2 * delta) + runs) * sizeof(uint32_t) +
           (buckets + delta) * sizeof(uint32_t) + d->n_chunks * (CHUNK * sizeof(entry) + sizeof(entry *)) +
           d->line.cap;
}

/* ---- the file: one line per kept page -------------------------------------
 * "SIM EXACT\tSTEM\tID\tURL\n": the prints as 16 hex digits, the fields
 * with '\\', tab, CR and LF escaped; an empty URL is none. */

static int put_field(ps_buf *b, const char *s)
{
    int rc = 0;
    for (; s && *s && rc == 0; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
        rc = esc ? ps_buf_append(b, esc, 2) : ps_buf_putc(b, *s);
    }
    return rc;
}

/* Unescape the tab-ended field at *p in place; *p moves past it. */
static char *take_field(char **p)
{
    char *start = *p, *w = *p, *r = *p;
    for (; *r && *r != '\t' && *r != '\n'; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r;
        } else {
            *w++ = *r;
        }
    }
    *p = *r == '\t' ? r + 1 : r;
    *w = '\0';
    return start;
}

static int write_at(int fd, const char *data, size_t len, uint64_t off)
{
    while (len) {
        ssize_t w = pwrite(fd, data, len, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        data += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

/* The line at @p off into d->line, fields split into *m. */
static int read_line(ps_dedup *d, uint64_t off, ps_dedup_match *m, ps_error *err)
{
    d->line.len = 0;
    for (;;) {
        if (ps_buf_reserve(&d->line, 512) != 0)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ssize_t r = pread(d->fd, d->line.data + d->line.len, 512, (off_t)(off + d->line.len));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return ps_set_error(err, PS_ERR_IO, "the --dedup index %s: cannot read it: %s",
                                d->path ? d->path : "(temporary file)", r < 0 ? strerror(errno) : "cut short");
        char *nl = memchr(d->line.data + d->line.len, '\n', (size_t)r);
        d->line.len += (size_t)r;
        d->line.data[d->line.len] = '\0';
        if (nl) {
            *nl = '\0';
            break;
        }
    }
    char *p = d->line.data + 34; /* past "SIM EXACT\t" */
    m->stem = take_field(&p);
    m->id = take_field(&p);
    m->url = take_field(&p);
    if (!*m->url)
        m->url = NULL;
    return 0;
}

/* ---- adding and finding ------------------------------------------------- */

static int grow(ps_dedup *d)
{
    if (d->n < d->n_chunks * CHUNK)
        return 0;
    if (d->n >= (size_t)NONE - 1)
        return -1;
    entry **cs = realloc(d->chunks, (d->n_chunks + 1) * sizeof *cs);
    if (!cs)
        return -1;
    d->chunks = cs;
    entry *c = malloc(CHUNK * sizeof *c);
    if (!c)
        return -1;
    d->chunks[d->n_chunks++] = c;
    return 0;
}

/* The runs' bucket bits for @p n pages: at most n / 2 buckets. */
static int bucket_bits_for(size_t n)
{
    int b = MIN_BUCKET_BITS;
    while (b < KEY_BITS && ((size_t)4 << b) <= n) /* 2^(b + 1) <= n / 2 */
        b++;
    return b;
}

/* The delta's bits for @p n pages: at most n / 16 pages in it. */
static int delta_bits_for(size_t n)
{
    int b = MIN_DELTA_BITS;
    while (b < KEY_BITS && ((size_t)32 << b) <= n) /* 2^(b + 1) <= n / 16 */
        b++;
    return b;
}

/* An empty delta of 2^@p bits pages. */
static int set_delta(ps_dedup *d, int bits)
{
    size_t n = (size_t)1 << bits;
    if (bits != d->delta_bits || !d->dsorted) {
        uint32_t *s = realloc(d->dsorted, n * sizeof *s);
        if (!s)
            return -1;
        d->dsorted = s;
        for (int t = 0; t < d->tables; t++) {
            uint32_t *h = realloc(d->t[t].dhead, n * sizeof *h);
            if (h)
                d->t[t].dhead = h;
            uint32_t *x = h ? realloc(d->t[t].dnext, n * sizeof *x) : NULL;
            if (!x)
                return -1;
            d->t[t].dnext = x;
        }
        d->delta_bits = bits;
    }
    for (int t = 0; t < d->tables; t++)
        memset(d->t[t].dhead, 0xFF, n * sizeof(uint32_t)); /* NONE */
    return 0;
}

/* Table @p t's runs made anew from pages 0 .. n - 1 (a counting sort by
 * bucket: index order within each). */
static void sort_runs(ps_dedup *d, int t)
{
    table *tb = &d->t[t];
    size_t buckets = (size_t)1 << d->bucket_bits;
    memset(tb->start, 0, (buckets + 1) * sizeof *tb->start);
    for (uint32_t i = 0; i < d->n; i++)
        tb->start[key_of(t, entry_at(d, i)->sim, d->bucket_bits) + 1]++;
    for (size_t b = 0; b < buckets; b++)
        tb->start[b + 1] += tb->start[b];
    memcpy(d->cur, tb->start, buckets * sizeof *d->cur);
    for (uint32_t i = 0; i < d->n; i++) {
        const entry *e = entry_at(d, i);
        uint32_t p = d->cur[key_of(t, e->sim, d->bucket_bits)]++;
        tb->frag[p] = frag_of(d, t, e->sim, e->exact);
        tb->idx[p] = i;
    }
}

/* The delta's pages into table @p t's runs, in place: the delta's pages
 * sorted by bucket (index order within each), then from the last bucket
 * to the first each run moved up by the delta's pages of the buckets
 * before it, with the delta's pages of its bucket after it. */
static void merge_runs(ps_dedup *d, int t)
{
    table *tb = &d->t[t];
    size_t buckets = (size_t)1 << d->bucket_bits;
    uint32_t *dstart = d->cur; /* the delta's pages of bucket b: dsorted[dstart[b] .. dstart[b + 1]) */
    memset(dstart, 0, (buckets + 1) * sizeof *dstart);
    for (size_t i = d->merged; i < d->n; i++)
        dstart[key_of(t, entry_at(d, (uint32_t)i)->sim, d->bucket_bits) + 1]++;
    for (size_t b = 0; b < buckets; b++)
        dstart[b + 1] += dstart[b];
    for (size_t i = d->merged; i < d->n; i++) /* dstart[b] ends at bucket b's end */
        d->dsorted[dstart[key_of(t, entry_at(d, (uint32_t)i)->sim, d->bucket_bits)]++] = (uint32_t)i;
    for (size_t b = buckets; b-- > 0;) {
        uint32_t dend = dstart[b], dbegin = b ? dstart[b - 1] : 0;
        uint32_t os = tb->start[b], oe = tb->start[b + 1], len = oe - os, ns = os + dbegin;
        memmove(tb->frag + ns, tb->frag + os, len * sizeof *tb->frag);
        memmove(tb->idx + ns, tb->idx + os, len * sizeof *tb->idx);
        for (uint32_t j = dbegin, p = ns + len; j < dend; j++, p++) {
            const entry *e = entry_at(d, d->dsorted[j]);
            tb->frag[p] = frag_of(d, t, e->sim, e->exact);
            tb->idx[p] = d->dsorted[j];
        }
        tb->start[b + 1] = oe + dend;
    }
}

/* A runs' array of @p old elements (NULL for 0) grown to @p n, NULL when
 * out of memory (the array as it was).  From 64 KiB on, on Linux, an
 * array is a mapping of its own, grown by mremap: its pages move without a
 * copy and leave no hole.  realloc alone left the runs on the heap once
 * glibc had raised its mmap threshold (as it does when pagesift frees a
 * large page), each growth a copy and a hole: 74 bytes of RSS a kept page
 * at 10^7 pages instead of 59 (bench/bench_dedup.c with
 * MALLOC_MMAP_THRESHOLD_=33554432). */
enum { MAP_FROM = 1 << 16 };

static size_t map_bytes(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n * sizeof(uint32_t) + page - 1) / page * page;
}

static uint32_t *runs_resize(uint32_t *a, size_t old, size_t n)
{
#ifdef __linux__
    if (n * sizeof *a >= MAP_FROM) {
        void *m;
        if (old * sizeof *a >= MAP_FROM) {
            m = mremap(a, map_bytes(old), map_bytes(n), MREMAP_MAYMOVE);
        } else {
            m = mmap(NULL, map_bytes(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m != MAP_FAILED) {
                if (old)
                    memcpy(m, a, old * sizeof *a);
                free(a);
            }
        }
        return m == MAP_FAILED ? NULL : m;
    }
#endif
    (void)old;
    return realloc(a, n * sizeof *a);
}

static void runs_free(uint32_t *a, size_t n)
{
#ifdef __linux__
    if (a && n * sizeof *a >= MAP_FROM) {
        munmap(a, map_bytes(n));
        return;
    }
#endif
    free(a);
}

/* Every page into the runs, the delta emptied (sized for the pages there
 * are).  The runs grow (runs_resize); when the pages call for more buckets,
 * they are sorted anew.  -1: out of memory, the index as it was. */
static int merge(ps_dedup *d)
{
    int bits = bucket_bits_for(d->n);
    size_t buckets = (size_t)1 << bits;
    for (int t = 0; t < d->tables; t++) {
        table *tb = &d->t[t];
        uint32_t *f = runs_resize(tb->frag, tb->fcap, d->n);
        if (f) {
            tb->frag = f;
            tb->fcap = d->n;
        }
        uint32_t *x = f ? runs_resize(tb->idx, tb->xcap, d->n) : NULL;
        if (!x)
            return -1;
        tb->idx = x;
        tb->xcap = d->n;
    }
    if (bits != d->bucket_bits) {
        uint32_t *cur = malloc((buckets + 1) * sizeof *cur), *starts[TABLES] = {0};
        int ok = cur != NULL;
        for (int t = 0; ok && t < d->tables; t++)
            ok = (starts[t] = malloc((buckets + 1) * sizeof *starts[t])) != NULL;
        if (!ok) {
            free(cur);
            for (int t = 0; t < d->tables; t++)
                free(starts[t]);
            return -1;
        }
        free(d->cur);
        d->cur = cur;
        d->bucket_bits = bits;
        for (int t = 0; t < d->tables; t++) {
            free(d->t[t].start);
            d->t[t].start = starts[t];
            sort_runs(d, t);
        }
    } else {
        for (int t = 0; t < d->tables; t++)
            merge_runs(d, t);
    }
    d->merged = d->n;
    if (set_delta(d, delta_bits_for(d->n)) != 0) /* the delta as it was: empty */
        return set_delta(d, d->delta_bits) == 0 ? 0 : -1;
    return 0;
}

/* Into the delta: page @p i, the last one. */
static void link_entry(ps_dedup *d, uint32_t i)
{
    uint64_t sim = entry_at(d, i)->sim;
    for (int t = 0; t < d->tables; t++) {
        uint32_t *head = &d->t[t].dhead[key_of(t, sim, d->delta_bits)];
        d->t[t].dnext[i - d->merged] = *head;
        *head = i;
    }
}

/* Room for one more page: its chunk, and in the delta (merged into the
 * runs when full). */
static int make_room(ps_dedup *d)
{
    if (grow(d) != 0)
        return -1;
    if (d->n - d->merged >= ((size_t)1 << d->delta_bits))
        return merge(d);
    return 0;
}

static int index_entry(ps_dedup *d, uint64_t sim, uint64_t exact, uint64_t off)
{
    if (make_room(d) != 0)
        return -1;
    uint32_t i = (uint32_t)d->n++;
    *entry_at(d, i) = (entry){.sim = sim, .exact = exact, .off = off};
    link_entry(d, i);
    return 0;
}

int ps_dedup_add(ps_dedup *d, const ps_fingerprint *fp, const char *stem, const char *id, const char *url,
                 ps_error *err)
{
    ps_buf b = {0};
    int rc = ps_buf_printf(&b, "%016" PRIx64 " %016" PRIx64 "\t", fp->sim, fp->exact);
    if (rc == 0)
        rc = put_field(&b, stem) || ps_buf_putc(&b, '\t') || put_field(&b, id) || ps_buf_putc(&b, '\t') ||
             put_field(&b, url) || ps_buf_putc(&b, '\n');
    if (rc != 0 || make_room(d) != 0) {
        ps_buf_free(&b);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    if (write_at(d->fd, b.data, b.len, d->size) != 0) {
        int e = errno;
        ps_buf_free(&b);
        (void)!ftruncate(d->fd, (off_t)d->size); /* a part of the line may be there */
        return ps_set_error(err, PS_ERR_IO, "the --dedup index %s: cannot write it: %s",
                            d->path ? d->path : "(temporary file)", strerror(e));
    }
    index_entry(d, fp->sim, fp->exact, d->size); /* cannot fail: room made above */
    d->size_before_add = d->size;
    d->size += b.len;
    ps_buf_free(&b);
    return 0;
}

void ps_dedup_undo_add(ps_dedup *d)
{
    if (d->n <= d->merged) /* only the page last added, which is in the delta, is taken back */
        return;
    uint32_t i = (uint32_t)--d->n;
    uint64_t sim = entry_at(d, i)->sim;
    for (int t = 0; t < d->tables; t++) /* it was each bucket's head */
        d->t[t].dhead[key_of(t, sim, d->delta_bits)] = d->t[t].dnext[i - d->merged];
    d->size = d->size_before_add;
    (void)!ftruncate(d->fd, (off_t)d->size); /* else the line stays: a resumed run's own (ps_dedup_find) */
}

/* How near kept page @p e is to @p fp: 2 * the SimHash bits apart, + 1
 * unless the words are the same (so that of two pages equally near, the
 * one with the same words wins); -1 beyond the distance. */
static int rank_of(const ps_dedup *d, const entry *e, const ps_fingerprint *fp)
{
    int same = e->exact == fp->exact;
    if (d->distance == 0)
        return same ? 0 : -1;
    int bits = ps_fingerprint_distance(e->sim, fp->sim);
    return bits <= d->distance ? 2 * bits + !same : -1;
}

typedef struct best_page {
    uint32_t i; /* NONE: none yet */
    int rank;
} best_page;

static void consider(const ps_dedup *d, uint32_t i, const ps_fingerprint *fp, best_page *b)
{
    int rank = rank_of(d, entry_at(d, i), fp);
    if (rank >= 0 && (rank < b->rank || (rank == b->rank && i < b->i))) {
        b->i = i;
        b->rank = rank;
    }
}

/* The run of bucket @p key of table @p t (@p flips bits from the page's
 * own key) into *b: a page is read only when the bits of its fragment
 * leave it within the distance.  Most of a look-up's time at 10^7 pages is
 * here, a popcount a page of the run: on x86-64 the function is built
 * twice, with the POPCNT instruction and without (GCC's target_clones: the
 * one the CPU has is chosen when the program loads; without it GCC calls
 * libgcc's __popcountdi2 for each page of the run, a fifth of the time of
 * bench/bench_dedup.c at 10^7 pages under perf). */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__clang__)
#define POPCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef POPCOUNT_CLONES
#define POPCOUNT_CLONES
#endif
POPCOUNT_CLONES
static void walk_run(const ps_dedup *d, int t, uint32_t start, uint32_t end, int flips, uint32_t frag,
                     const ps_fingerprint *fp, best_page *b)
{
    const table *tb = &d->t[t];
    const uint32_t *f = tb->frag;
    if (d->distance == 0) {
        for (uint32_t p = start; p < end; p++)
            if (f[p] == frag)
                consider(d, tb->idx[p], fp, b);
        return;
    }
    int left = d->distance - flips;
    for (uint32_t p = start; p < end; p++)
        if (__builtin_popcount(f[p] ^ frag) <= left)
            consider(d, tb->idx[p], fp, b);
}

/* The delta's chain of bucket @p key of table @p t into *b. */
static void walk_delta(const ps_dedup *d, int t, uint32_t key, const ps_fingerprint *fp, best_page *b)
{
    for (uint32_t i = d->t[t].dhead[key]; i != NONE; i = d->t[t].dnext[i - d->merged])
        consider(d, i, fp, b);
}

enum { MAX_PROBES = 1 + KEY_BITS + KEY_BITS * (KEY_BITS - 1) / 2 };

/* The keys within @p radius bits (at most 2) of @p key, of @p bits bits,
 * into keys[] with the bits flipped: how many. */
static int probes_of(uint32_t key, int bits, int radius, uint32_t *keys, uint8_t *flips)
{
    int n = 0;
    keys[n] = key;
    flips[n++] = 0;
    for (int x = 0; radius >= 1 && x < bits; x++) {
        keys[n] = key ^ (1u << x);
        flips[n++] = 1;
        for (int y = x + 1; radius >= 2 && y < bits; y++) {
            keys[n] = key ^ (1u << x) ^ (1u << y);
            flips[n++] = 2;
        }
    }
    return n;
}

/* Every run and chain of the buckets within the radius of the page's
 * blocks is visited; which is the nearest (then earliest) page does not
 * depend on the order.  The runs are scattered over the tables' memory:
 * their starts, then their first bytes, are fetched ahead (prefetch), so
 * that the look-up waits for memory a few times rather than once a run. */
int ps_dedup_find(ps_dedup *d, const ps_fingerprint *fp, const char *own_stem, ps_dedup_match *m,
                  ps_error *err)
{
    best_page b = {.i = NONE, .rank = INT32_MAX};
    int radius = d->distance / TABLES; /* bits a block may differ in */
    uint32_t keys[TABLES][MAX_PROBES], run[TABLES][MAX_PROBES][2], frag[TABLES];
    uint8_t flips[TABLES][MAX_PROBES];
    int n = 0;
    for (int t = 0; t < d->tables; t++) {
        n = probes_of(key_of(t, fp->sim, d->bucket_bits), d->bucket_bits, radius, keys[t], flips[t]);
        for (int p = 0; p < n; p++)
            __builtin_prefetch(&d->t[t].start[keys[t][p]]);
        frag[t] = frag_of(d, t, fp->sim, fp->exact);
    }
    for (int t = 0; t < d->tables; t++)
        for (int p = 0; p < n; p++) {
            const table *tb = &d->t[t];
            run[t][p][0] = tb->start[keys[t][p]];
            run[t][p][1] = tb->start[keys[t][p] + 1];
            for (uint32_t q = run[t][p][0]; q < run[t][p][1] && q < run[t][p][0] + 256; q += 16)
                __builtin_prefetch(&tb->frag[q]); /* 64 bytes a line */
        }
    for (int t = 0; t < d->tables; t++)
        for (int p = 0; p < n; p++)
            walk_run(d, t, run[t][p][0], run[t][p][1], flips[t][p], frag[t], fp, &b);
    for (int t = 0; t < d->tables; t++) {
        n = probes_of(key_of(t, fp->sim, d->delta_bits), d->delta_bits, radius, keys[t], flips[t]);
        for (int p = 0; p < n; p++)
            walk_delta(d, t, keys[t][p], fp, &b);
    }
    uint32_t best = b.i;
    int best_rank = b.rank;
    if (best == NONE)
        return 0;
    if (read_line(d, entry_at(d, best)->off, m, err) != 0)
        return -1;
    m->distance = best_rank / 2;
    return own_stem && *own_stem && !strcmp(m->stem, own_stem) ? 2 : 1;
}

/* ---- opening ------------------------------------------------------------ */

/* A resumed run: the lines of the run before into the index.  A last line
 * cut short (the run was killed while writing it) goes. */
static int load(ps_dedup *d, ps_error *err)
{
    FILE *f = fdopen(dup(d->fd), "r");
    if (!f)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot read it: %s", d->path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] != '\n') /* torn */
            break;
        char *end1 = NULL, *end2 = NULL;
        uint64_t sim = n >= 35 && line[16] == ' ' && line[33] == '\t' ? strtoull(line, &end1, 16) : 0;
        uint64_t exact = end1 == line + 16 ? strtoull(line + 17, &end2, 16) : 0;
        if (end2 != line + 33)
            rc = ps_set_error(err, PS_ERR_FORMAT, "%s: line %zu is not a --dedup index line", d->path, lineno);
        else if (index_entry(d, sim, exact, d->size) != 0)
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        else
            d->size += (uint64_t)n;
    }
    free(line);
    fclose(f);
    if (rc == 0 && ftruncate(d->fd, (off_t)d->size) != 0)
        rc = ps_set_error(err, PS_ERR_IO, "%s: %s", d->path, strerror(errno));
    return rc;
}

static int open_file(ps_dedup *d, const char *dir, int resume, ps_error *err)
{
    if (!dir) { /* a temporary file, gone when closed */
        const char *tmp = getenv("TMPDIR");
        char path[4096];
        snprintf(path, sizeof path, "%s/pagesift-dedup.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        d->fd = mkstemp(path);
        if (d->fd < 0)
            return ps_set_error(err, PS_ERR_IO, "%s: cannot create the --dedup index: %s", path, strerror(errno));
        unlink(path);
        return 0;
    }
    size_t n = strlen(dir) + sizeof PS_DEDUP_FILE + 1;
    if (!(d->path = malloc(n)))
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    snprintf(d->path, n, "%s/%s", dir, PS_DEDUP_FILE);
    d->fd = open(d->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (d->fd < 0)
        return ps_set_error(err, PS_ERR_IO, "%s: cannot open the --dedup index: %s", d->path, strerror(errno));
    if (flock(d->fd, LOCK_EX | LOCK_NB) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: another pagesift run with --dedup is writing into %s", d->path,
                            dir);
    if (!resume && ftruncate(d->fd, 0) != 0)
        return ps_set_error(err, PS_ERR_IO, "%s: %s", d->path, strerror(errno));
    return resume ? load(d, err) : 0;
}

ps_dedup *ps_dedup_open(int distance, const char *dir, int resume, ps_error *err)
{
    if (distance < 0 || distance > PS_DEDUP_MAX_DISTANCE) {
        ps_set_error(err, PS_ERR_USAGE, "dedup distance %d: not from 0 to %d", distance, PS_DEDUP_MAX_DISTANCE);
        return NULL;
    }
    ps_dedup *d = calloc(1, sizeof *d);
    if (!d) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->fd = -1;
    d->distance = distance;
    d->tables = distance ? TABLES : 1; /* exact duplicates: one bucket of table 0 */
    d->bucket_bits = MIN_BUCKET_BITS;
    d->delta_bits = MIN_DELTA_BITS;
    size_t buckets = (size_t)1 << d->bucket_bits;
    int ok = (d->cur = malloc((buckets + 1) * sizeof *d->cur)) != NULL;
    for (int t = 0; ok && t < d->tables; t++)
        ok = (d->t[t].start = calloc(buckets + 1, sizeof *d->t[t].start)) != NULL;
    if (!ok || set_delta(d, MIN_DELTA_BITS) != 0) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        ps_dedup_close(d);
        return NULL;
    }
    if (open_file(d, dir, resume, err) != 0) {
        ps_dedup_close(d);
        return NULL;
    }
    return d;
}

void ps_dedup_close(ps_dedup *d)
{
    if (!d)
        return;
    if (d->fd >= 0)
        close(d->fd); /* releases the lock */
    for (size_t i = 0; i < d->n_chunks; i++)
        free(d->chunks[i]);
    free(d->chunks);
    for (int t = 0; t < TABLES; t++) {
        free(d->t[t].start);
        runs_free(d->t[t].frag, d->t[t].fcap);
        runs_free(d->t[t].idx, d->t[t].xcap);
        free(d->t[t].dhead);
        free(d->t[t].dnext);
    }
    free(d->cur);
    free(d->dsorted);
    free(d->path);
    ps_buf_free(&d->line);
    free(d);
}
