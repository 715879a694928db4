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
 * (pigeonhole), so each block is a table: 2^16 buckets (the block's value)
 * chaining the kept pages whose block has that value.  A look-up walks, in
 * each table, the buckets within k / 4 bits of the page's block (1 bucket
 * for k <= 3, 17 for k <= 7, 137 for k = 8; about n / 2^16 pages each for
 * n kept pages) and counts the differing bits of each page there (Manku et
 * al.'s tables, probing neighbouring buckets instead of keeping more
 * permuted tables, so memory does not grow with k).  Exact duplicates have
 * the same SimHash: one bucket of one table.  Per kept page: 24 bytes (two
 * prints and the offset of its line in the file) and 4 bytes per table, in
 * chunks of 4096 pages; the bucket heads grow with the pages (a bucket is
 * the block's low bits while there are fewer than 2^16 pages), from 4 KiB
 * to 256 KiB per table.  Its stem, id and
 * URL are a line of the index file, read back only for a duplicate's
 * record. */
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

enum { CHUNK_BITS = 12, CHUNK = 1 << CHUNK_BITS, KEY_BITS = 16, TABLES = 64 / KEY_BITS, MIN_BUCKET_BITS = 10 };
#define NONE UINT32_MAX

typedef struct entry {
    uint64_t sim, exact;
    uint64_t off; /* of its line in the file */
} entry;

typedef struct chunk {
    entry e[CHUNK];
    uint32_t next[]; /* tables * CHUNK: the next page of the same bucket */
} chunk;

struct ps_dedup {
    int distance, tables;
    uint32_t *heads;    /* tables << bucket_bits */
    int bucket_bits;    /* buckets per table: 2^bucket_bits, about the pages, at most 2^16 */
    chunk **chunks;
    size_t n_chunks, n; /* pages in the index */
    int fd;             /* the file of lines */
    uint64_t size, size_before_add;
    char *path;         /* its name (NULL: a temporary file, unlinked) */
    ps_buf line;        /* a line read back */
};

static entry *entry_at(const ps_dedup *d, uint32_t i)
{
    return &d->chunks[i >> CHUNK_BITS]->e[i & (CHUNK - 1)];
}

static uint32_t *next_at(const ps_dedup *d, int table, uint32_t i)
{
    return &d->chunks[i >> CHUNK_BITS]->next[(size_t)table * CHUNK + (i & (CHUNK - 1))];
}

/* Bucket of table @p t: block t of the SimHash's 64 bits (its low
 * bucket_bits bits while the index is small). */
static uint32_t key_of(const ps_dedup *d, int t, uint64_t sim)
{
    return (uint32_t)((sim >> (t * KEY_BITS)) & ((1u << d->bucket_bits) - 1));
}

static uint32_t *head_of(const ps_dedup *d, int t, uint32_t key)
{
    return &d->heads[((size_t)t << d->bucket_bits) + key];
}

size_t ps_dedup_count(const ps_dedup *d)
{
    return d->n;
}

size_t ps_dedup_memory(const ps_dedup *d)
{
    size_t chunk_bytes = sizeof(chunk) + (size_t)d->tables * CHUNK * sizeof(uint32_t);
    return sizeof *d + ((size_t)d->tables << d->bucket_bits) * sizeof(uint32_t) +
           d->n_chunks * (chunk_bytes + sizeof(chunk *)) + d->line.cap;
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
    if (d->n >= (size_t)NONE)
        return -1;
    chunk **cs = realloc(d->chunks, (d->n_chunks + 1) * sizeof *cs);
    if (!cs)
        return -1;
    d->chunks = cs;
    chunk *c = malloc(sizeof(chunk) + (size_t)d->tables * CHUNK * sizeof(uint32_t));
    if (!c)
        return -1;
    d->chunks[d->n_chunks++] = c;
    return 0;
}

/* Into the tables: page @p i, the last one. */
static void link_entry(ps_dedup *d, uint32_t i)
{
    const entry *e = entry_at(d, i);
    for (int t = 0; t < d->tables; t++) {
        uint32_t *head = head_of(d, t, key_of(d, t, e->sim));
        *next_at(d, t, i) = *head;
        *head = i;
    }
}

/* 2^@p bits buckets per table, every page linked again (in index order,
 * so each bucket's head is still its latest page). */
static int set_buckets(ps_dedup *d, int bits)
{
    size_t n = (size_t)d->tables << bits;
    uint32_t *heads = malloc(n * sizeof *heads);
    if (!heads)
        return -1;
    memset(heads, 0xFF, n * sizeof *heads); /* NONE */
    free(d->heads);
    d->heads = heads;
    d->bucket_bits = bits;
    for (uint32_t i = 0; i < d->n; i++)
        link_entry(d, i);
    return 0;
}

/* Room for one more page: its chunk, and as many buckets per table as
 * pages (up to 2^16), so that a bucket holds about one page. */
static int make_room(ps_dedup *d)
{
    if (grow(d) != 0)
        return -1;
    if (d->n >= ((size_t)1 << d->bucket_bits) && d->bucket_bits < KEY_BITS)
        return set_buckets(d, d->bucket_bits + 1);
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
    if (!d->n)
        return;
    uint32_t i = (uint32_t)--d->n;
    const entry *e = entry_at(d, i);
    for (int t = 0; t < d->tables; t++) /* it was each bucket's head */
        *head_of(d, t, key_of(d, t, e->sim)) = *next_at(d, t, i);
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

/* The pages of bucket @p key of table @p t into *b. */
static void walk_bucket(const ps_dedup *d, int t, uint32_t key, const ps_fingerprint *fp, best_page *b)
{
    for (uint32_t i = *head_of(d, t, key); i != NONE; i = *next_at(d, t, i)) {
        int rank = rank_of(d, entry_at(d, i), fp);
        if (rank >= 0 && (rank < b->rank || (rank == b->rank && i < b->i))) {
            b->i = i;
            b->rank = rank;
        }
    }
}

int ps_dedup_find(ps_dedup *d, const ps_fingerprint *fp, const char *own_stem, ps_dedup_match *m,
                  ps_error *err)
{
    best_page b = {.i = NONE, .rank = INT32_MAX};
    int radius = d->distance / TABLES; /* bits a block may differ in */
    for (int t = 0; t < (d->distance ? TABLES : 1); t++) {
        uint32_t key = key_of(d, t, fp->sim);
        walk_bucket(d, t, key, fp, &b);
        for (int x = 0; radius >= 1 && x < d->bucket_bits; x++) {
            walk_bucket(d, t, key ^ (1u << x), fp, &b);
            for (int y = x + 1; radius >= 2 && y < d->bucket_bits; y++)
                walk_bucket(d, t, key ^ (1u << x) ^ (1u << y), fp, &b);
        }
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
    if (set_buckets(d, MIN_BUCKET_BITS) != 0) {
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
    free(d->heads);
    free(d->path);
    ps_buf_free(&d->line);
    free(d);
}
