/* extract/xml_alloc.c — libxml2 out of memory: libxml2's allocator goes
 * through these wrappers (xmlMemSetup in ps_init), which note a failed
 * allocation for the thread and, inside a parse, leave libxml2 at once.
 *
 * libxml2 2.9.14 does not stop its HTML parser when an allocation fails: it
 * reports "out of memory" and goes on, and under a memory limit it was seen
 * to spin for ever (a loop that makes no progress once an allocation fails),
 * to crash, or to return the part of the document it had built, which then
 * passed for the whole page (status ok, text truncated).  Stopping the
 * parser from the allocator (disabling SAX, moving the input to its end)
 * still spun or crashed in tests under `ulimit -v`.  So a failed allocation
 * during the parse longjmps out of libxml2 back to ps_xml_read, which frees
 * the partial tree and the parser context and reports the failure: the page
 * fails with PS_ERR_NOMEM, the thread goes on with the next page.  A node
 * allocated but not yet linked when the allocation failed may leak (a few
 * hundred bytes per failed page).  Outside a parse (the page model's walk),
 * a failed allocation returns NULL as usual and the caller fails the page.
 *
 * A DOM can be built in an arena (ps_xml_arena, one per page; the page
 * model itself builds no DOM now, but a compact tree from SAX events,
 * parsed without an arena: extract/tree.c says why): while
 * ps_xml_read parses, libxml2's allocations are cut from the page's chunks
 * (a pointer bump), and freeing one of them is nothing; the chunks go when
 * the page is freed (ps_page_free, after xmlFreeDoc).  A DOM is built and
 * freed whole, so glibc's malloc and free per node (about 12 000 of each
 * per page, most of them small) were a fifth of the cost of parsing: on 60
 * dragnet pages 1 990.1 M instructions before, 1 768.1 M with the arena
 * (callgrind).  Everything else libxml2 allocates
 * (before or after the parse, or on another thread) comes from malloc as
 * before; xml_free tells the two apart by address (the armed arena first,
 * then every live arena's chunks).  Nothing allocated in the arena may
 * outlive the page: the parse's copy of its last error in libxml2's
 * per-thread state is cleared before ps_xml_read returns. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

#include "extract/page_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define PS_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PS_ARENA_ASAN 1
#endif
#endif
#ifdef PS_ARENA_ASAN
/* AddressSanitizer sees the arena's blocks as it sees malloc's: a block is
 * addressable from its allocation to its free, the rest of a chunk not. */
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif


/* ---- the page arena ---- */

#define ARENA_FIRST_CHUNK (64 * 1024) /* then doubled per chunk (few chunks
                                         to look through on a free) up to */
#define ARENA_MAX_CHUNK (64 * 1024 * 1024)
#define ARENA_CLASSES 32              /* blocks up to 256 bytes freed in a
                                         parse are used again, by size */
#define ARENA_HEAD 8                  /* a block's size, before the block */
#define ARENA_ALIGN 8                 /* of blocks: what libxml2's structures
                                         (pointers, ints, doubles) need */
#define ARENA_CACHE_MAX (4 * 1024 * 1024) /* chunks kept for the next pages */

typedef struct arena_chunk {
    struct arena_chunk *next;
    struct arena_chunk **at; /* the link that points to it (a->chunks or
                                the previous chunk's next): an own chunk
                                leaves the list in O(1) */
    char *lo, *hi; /* its blocks */
    char *cur;     /* the next block's header */
    int own;       /* a large block's chunk of its own (not kept) */
} arena_chunk;

struct ps_xml_arena {
    arena_chunk *chunks; /* newest first; blocks are cut from the first */
    arena_chunk **by_addr; /* the same chunks by address: a free finds its
                              chunk by binary search (walking the list took
                              60 % of the time of a 64 MB page of nodes) */
    size_t n_by_addr, cap_by_addr;
    size_t next_size;
    /* freed blocks of 8 (k + 1) bytes, linked through their first bytes:
     * libxml2 frees as many small blocks while it parses (attribute
     * values, ...) as it keeps: unused, they doubled the arena of an
     * element-heavy page */
    void *free_list[ARENA_CLASSES];
    int parsing; /* ps_xml_read is parsing into it */
};

/* Every live arena's chunks, by address, for frees that come when no arena
 * or another one is armed (a page's nodes changed or freed after its
 * parse). */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static arena_chunk **reg;
static size_t reg_n, reg_cap;
static size_t reg_live; /* reg_n, stored (under reg_lock) and read atomically */

/* ---- chunks by address: O(log chunks) to find the one holding a block ---- */

/* The index of the first chunk of @p v (sorted by lo) whose lo is above
 * @p p: the chunk that may hold p is the one before. */
static size_t by_addr_upper(arena_chunk *const *v, size_t n, uintptr_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)v[mid]->lo <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static arena_chunk *by_addr_find(arena_chunk *const *v, size_t n, const void *p)
{
    size_t i = by_addr_upper(v, n, (uintptr_t)p);
    if (i == 0)
        return NULL;
    arena_chunk *c = v[i - 1];
    return (uintptr_t)p < (uintptr_t)c->hi ? c : NULL;
}

/* Insert @p c (room for it was made) */
static void by_addr_insert(arena_chunk **v, size_t *n, arena_chunk *c)
{
    size_t i = by_addr_upper(v, *n, (uintptr_t)c->lo);
    memmove(v + i + 1, v + i, (*n - i) * sizeof *v);
    v[i] = c;
    (*n)++;
}

static void by_addr_remove(arena_chunk **v, size_t *n, const arena_chunk *c)
{
    size_t i = by_addr_upper(v, *n, (uintptr_t)c->lo);
    if (i > 0 && v[i - 1] == c) {
        memmove(v + i - 1, v + i, (*n - i) * sizeof *v);
        (*n)--;
    }
}

/* Room for one more in a by-address array: 0, or -1 out of memory. */
static int by_addr_room(arena_chunk ***v, size_t n, size_t *cap)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    arena_chunk **nv = realloc(*v, nc * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}
/* Chunks of freed arenas, for the next pages: given back to malloc, the
 * large ones were unmapped and mapped again page after page (six times
 * the page faults). */
static arena_chunk *cache;
static size_t cache_bytes;

/* The thread-local state below is read on every allocation libxml2 makes.
 * In a shared library the default TLS model calls __tls_get_addr for each
 * read (16 M instructions on 60 dragnet pages, ~1 % of the run);
 * initial-exec reads it at a fixed offset from the thread pointer.  The
 * cost: the variables live in the static TLS block, of which glibc keeps a
 * reserve for libraries loaded later (dlopen, e.g. Python's ctypes); these
 * take 32 bytes of it. */
#if defined(__GNUC__)
#define PS_TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define PS_TLS_FAST
#endif

static _Thread_local ps_xml_arena *tl_arena PS_TLS_FAST; /* allocations go here */

static size_t arena_round(size_t n)
{
    return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

ps_xml_arena *ps_xml_arena_new(void)
{
    ps_xml_arena *a = calloc(1, sizeof *a);
    if (a)
        a->next_size = ARENA_FIRST_CHUNK;
    return a;
}

void ps_xml_arena_free(ps_xml_arena *a)
{
    if (!a)
        return;
    if (a->chunks) {
        pthread_mutex_lock(&reg_lock);
        for (arena_chunk *c = a->chunks, *next; c; c = next) {
            next = c->next;
            by_addr_remove(reg, &reg_n, c);
            __atomic_store_n(&reg_live, reg_n, __ATOMIC_RELAXED);
            size_t size = (size_t)(c->hi - c->lo);
            if (!c->own && cache_bytes + size <= ARENA_CACHE_MAX) {
                c->next = cache;
                cache = c;
                cache_bytes += size;
            } else {
                ARENA_UNPOISON(c->lo, size);
                free(c);
            }
        }
        pthread_mutex_unlock(&reg_lock);
    }
    free(a->by_addr);
    free(a);
}

ps_xml_arena *ps_xml_arena_use(ps_xml_arena *a)
{
    ps_xml_arena *prev = tl_arena;
    tl_arena = a;
    return prev;
}

/* A chunk of @p size bytes of blocks, registered, from the cache unless
 * @p own; NULL when out of memory. */
static arena_chunk *chunk_new(size_t size, int own)
{
    arena_chunk *c = NULL;
    pthread_mutex_lock(&reg_lock);
    for (arena_chunk **at = &cache; !own && *at; at = &(*at)->next)
        if ((size_t)((*at)->hi - (*at)->lo) == size) {
            c = *at;
            *at = c->next;
            cache_bytes -= size;
            break;
        }
    if (!c && !(c = malloc(arena_round(sizeof *c) + size))) {
        pthread_mutex_unlock(&reg_lock);
        return NULL;
    }
    c->lo = c->cur = (char *)c + arena_round(sizeof *c);
    c->hi = c->lo + size;
    c->own = own;
    ARENA_POISON(c->lo, size);
    if (by_addr_room(&reg, reg_n, &reg_cap) != 0) {
        pthread_mutex_unlock(&reg_lock);
        ARENA_UNPOISON(c->lo, size);
        free(c);
        return NULL;
    }
    by_addr_insert(reg, &reg_n, c);
    __atomic_store_n(&reg_live, reg_n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg_lock);
    return c;
}

/* A new chunk for a block of @p need bytes: a large block gets a chunk of
 * its own behind the first, else a new first chunk.  NULL when out of
 * memory. */
static __attribute__((noinline)) arena_chunk *arena_grow(ps_xml_arena *a, size_t need)
{
    arena_chunk *c = a->chunks;
    if (by_addr_room(&a->by_addr, a->n_by_addr, &a->cap_by_addr) != 0)
        return NULL;
    if (need > a->next_size / 4) {
        arena_chunk *big = chunk_new(need, 1);
        if (!big)
            return NULL;
        by_addr_insert(a->by_addr, &a->n_by_addr, big);
        arena_chunk **at = c ? &c->next : &a->chunks;
        big->next = *at;
        big->at = at;
        if (big->next)
            big->next->at = &big->next;
        *at = big;
        return big;
    }
    if (!(c = chunk_new(a->next_size, 0)))
        return NULL;
    by_addr_insert(a->by_addr, &a->n_by_addr, c);
    c->next = a->chunks;
    c->at = &a->chunks;
    if (c->next)
        c->next->at = &c->next;
    a->chunks = c;
    if (a->next_size < ARENA_MAX_CHUNK)
        a->next_size *= 2;
    return c;
}

/* Is @p p the one block of an own chunk @p c (a large block, cut alone)? */
static int own_block(const arena_chunk *c, const void *p)
{
    return c->own && (const char *)p == c->lo + ARENA_HEAD;
}

/* Give an own chunk of the armed arena @p a back to malloc: a large block
 * that libxml2 frees (its copies of the page's bytes, a script's text
 * grown step by step) is not kept until the page is freed.  On a 5.3 MB
 * page they were three quarters of the arena, 24 of 32 MB. */
static void own_chunk_release(ps_xml_arena *a, arena_chunk *c)
{
    *c->at = c->next;
    if (c->next)
        c->next->at = c->at;
    by_addr_remove(a->by_addr, &a->n_by_addr, c);
    pthread_mutex_lock(&reg_lock);
    by_addr_remove(reg, &reg_n, c);
    __atomic_store_n(&reg_live, reg_n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg_lock);
    ARENA_UNPOISON(c->lo, (size_t)(c->hi - c->lo));
    free(c);
}

/* The one block of the own chunk @p c of the armed arena @p a, resized to
 * @p n bytes by realloc of the chunk (a large mapping grows in place, with
 * no copy and no dead block left in the arena): the block, or NULL when
 * out of memory (the block is then as it was). */
static void *own_chunk_resize(ps_xml_arena *a, arena_chunk *c, size_t n)
{
    size_t old = (size_t)(c->hi - c->lo), was;
    memcpy(&was, c->lo, sizeof was); /* the block's size now */
    size_t size = ARENA_HEAD + arena_round(n);
    arena_chunk *next = c->next;
    arena_chunk **at = c->at;
    /* out of both indexes while it may move (there is room to put it back) */
    by_addr_remove(a->by_addr, &a->n_by_addr, c);
    pthread_mutex_lock(&reg_lock);
    by_addr_remove(reg, &reg_n, c);
    __atomic_store_n(&reg_live, reg_n, __ATOMIC_RELAXED);
    ARENA_UNPOISON(c->lo, old);
    arena_chunk *m = realloc(c, arena_round(sizeof *c) + size);
    int ok = m != NULL;
    if (ok) {
        m->lo = (char *)m + arena_round(sizeof *m);
        m->hi = m->cur = m->lo + size;
    } else {
        m = c; /* unchanged: registered again as it was */
    }
    by_addr_insert(reg, &reg_n, m);
    __atomic_store_n(&reg_live, reg_n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg_lock);
    by_addr_insert(a->by_addr, &a->n_by_addr, m);
    *at = m;
    if (next)
        next->at = &m->next;
    if (!ok) {
        ARENA_POISON(m->lo + ARENA_HEAD + was, old - ARENA_HEAD - was);
        return NULL;
    }
    memcpy(m->lo, &n, sizeof n);
    ARENA_POISON(m->lo + ARENA_HEAD + n, size - ARENA_HEAD - n);
    return m->lo + ARENA_HEAD;
}

static inline void *arena_alloc(ps_xml_arena *a, size_t n)
{
    size_t k = arena_round(n) / ARENA_ALIGN;
    if (k - 1 < ARENA_CLASSES && a->free_list[k - 1]) {
        char *p = a->free_list[k - 1];
        memcpy(&a->free_list[k - 1], p, sizeof(void *));
        ARENA_POISON(p, k * ARENA_ALIGN);
        ARENA_UNPOISON(p - ARENA_HEAD, ARENA_HEAD + n);
        memcpy(p - ARENA_HEAD, &n, sizeof n);
        return p;
    }
    size_t need = ARENA_HEAD + arena_round(n);
    arena_chunk *c = a->chunks;
    if (!c || (size_t)(c->hi - c->cur) < need)
        if (!(c = arena_grow(a, need)))
            return NULL;
    char *h = c->cur;
    c->cur += need;
    ARENA_UNPOISON(h, ARENA_HEAD + n);
    memcpy(h, &n, sizeof n);
    return h + ARENA_HEAD;
}

static int chunk_has(const arena_chunk *c, const void *p)
{
    return (uintptr_t)p >= (uintptr_t)c->lo && (uintptr_t)p < (uintptr_t)c->hi;
}

/* The chunk of the armed arena @p a that holds @p p, or NULL: the chunk
 * being cut first (most frees during a parse are of recent blocks), then
 * by binary search, without a lock (an arena is used by one thread). */
static inline arena_chunk *own_chunk_of(const ps_xml_arena *a, const void *p)
{
    if (!a || !a->chunks)
        return NULL;
    if (chunk_has(a->chunks, p))
        return a->chunks;
    return by_addr_find(a->by_addr, a->n_by_addr, p);
}

/* The chunk of any live arena that holds @p, NULL for malloc's memory:
 * the armed arena's chunks first (@p a), then all. */
static inline arena_chunk *arena_chunk_of(const ps_xml_arena *a, const void *p)
{
    arena_chunk *found = own_chunk_of(a, p);
    if (found)
        return found;
    /* no arena alive (a page's compact tree is parsed without one): no lock.
     * A block of an arena was cut after its chunk was registered, and the
     * chunk stays until the arena is freed, so a count of 0 read here means
     * @p p is malloc's. */
    if (__atomic_load_n(&reg_live, __ATOMIC_RELAXED) == 0)
        return NULL;
    pthread_mutex_lock(&reg_lock);
    found = by_addr_find(reg, reg_n, p);
    pthread_mutex_unlock(&reg_lock);
    return found;
}

static size_t block_size(const void *p)
{
    size_t n;
    memcpy(&n, (const char *)p - ARENA_HEAD, sizeof n);
    return n;
}

/* ---- out of memory ---- */

static _Thread_local jmp_buf *tl_jmp PS_TLS_FAST; /* armed while libxml2 parses on this thread */
static _Thread_local htmlParserCtxtPtr tl_ctxt PS_TLS_FAST; /* that parse */
static _Thread_local int tl_failed PS_TLS_FAST;   /* an allocation failed since ps_xml_failed_reset */

/* An allocation failed: note it; inside a parse, leave libxml2 at once. */
static void out_of_memory(void)
{
    tl_failed = 1;
    jmp_buf *j = tl_jmp;
    if (j) {
        tl_jmp = NULL;
        longjmp(*j, 1);
    }
}

static void *xml_malloc(size_t n)
{
    ps_xml_arena *a = tl_arena;
    void *p = a ? arena_alloc(a, n) : malloc(n);
    if (!p)
        out_of_memory();
    return p;
}

static void xml_free(void *p)
{
    if (!p)
        return;
    ps_xml_arena *a = tl_arena;
    arena_chunk *c = own_chunk_of(a, p);
    if (c) {
        /* the armed arena's: a large block's chunk goes back to malloc,
         * the rest is freed with the page; a small block freed while the
         * page is parsed is used again */
        if (own_block(c, p)) {
            own_chunk_release(a, c);
            return;
        }
        size_t k = arena_round(block_size(p)) / ARENA_ALIGN;
        if (a->parsing && k - 1 < ARENA_CLASSES) {
            ARENA_UNPOISON(p, sizeof(void *)); /* the link */
            memcpy(p, &a->free_list[k - 1], sizeof(void *));
            a->free_list[k - 1] = p;
            ARENA_POISON((char *)p + sizeof(void *), k * ARENA_ALIGN - sizeof(void *));
        } else {
            ARENA_POISON(p, block_size(p));
        }
        return;
    }
    if (arena_chunk_of(NULL, p)) /* another arena's: freed with its page */
        ARENA_POISON(p, block_size(p));
    else
        free(p);
}

static void *xml_realloc(void *q, size_t n)
{
    ps_xml_arena *a = tl_arena;
    arena_chunk *c = q ? arena_chunk_of(a, q) : NULL;
    if (!c) {
        void *p = q || !a ? realloc(q, n) : arena_alloc(a, n);
        if (!p && n)
            out_of_memory();
        return p;
    }
    size_t old = block_size(q);
    /* a large block of the armed arena: its chunk is resized */
    if (a && own_block(c, q) && own_chunk_of(a, q) == c) {
        void *p = own_chunk_resize(a, c, n);
        if (!p)
            out_of_memory();
        return p;
    }
    /* the last block of the chunk being cut grows in place (a text node
     * that libxml2 extends while it reads it) */
    if (a && c == a->chunks && (char *)q + arena_round(old) == c->cur &&
        (size_t)(c->hi - (char *)q) >= arena_round(n)) {
        c->cur = (char *)q + arena_round(n);
        ARENA_UNPOISON(q, n);
        memcpy((char *)q - ARENA_HEAD, &n, sizeof n);
        return q;
    }
    void *p = xml_malloc(n);
    memcpy(p, q, old < n ? old : n);
    ARENA_POISON(q, old);
    return p;
}

static char *xml_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xml_malloc(n);
    memcpy(p, s, n);
    return p;
}

void ps_xml_alloc_setup(void)
{
    xmlMemSetup(xml_free, xml_malloc, xml_realloc, xml_strdup);
}

void ps_xml_failed_reset(void)
{
    tl_failed = 0;
}

void ps_xml_failed_note(void)
{
    tl_failed = 1;
}

int ps_xml_failed(void)
{
    return tl_failed;
}

static void silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* htmlCtxtReadMemory(c, html, len, url, "UTF-8", options) as libxml2 2.9.14
 * does it (htmlDoRead), except that the page's bytes are read where they
 * are: xmlParserInputBufferCreateMem copied them into a buffer of its own
 * (grown by doubling: 8 MB for a 5.3 MB page) that lived through the whole
 * parse beside the UTF-8 buffer the encoding switch converts them into.
 * The static buffer is that switch's raw input only; the parser reads the
 * converted buffer, as before.  NULL when libxml2 could not set up the
 * input (out of memory). */
static __attribute__((noinline)) htmlDocPtr read_in_place(htmlParserCtxtPtr c, const char *html, size_t len, const char *url,
                                int options, void (*setup)(htmlParserCtxtPtr, void *), void *user)
{
    htmlCtxtReset(c);
    xmlParserInputBufferPtr buf = xmlParserInputBufferCreateStatic(html, (int)len, XML_CHAR_ENCODING_NONE);
    if (!buf)
        return NULL;
    xmlParserInputPtr in = xmlNewIOInputStream(c, buf, XML_CHAR_ENCODING_NONE);
    if (!in) {
        xmlFreeParserInputBuffer(buf);
        return NULL;
    }
    inputPush(c, in);
    htmlCtxtUseOptions(c, options);
    c->html = 1;
    xmlCharEncodingHandlerPtr utf8 = xmlFindCharEncodingHandler("UTF-8");
    if (utf8) {
        xmlSwitchToEncoding(c, utf8);
        if (c->input->encoding)
            xmlFree((xmlChar *)c->input->encoding);
        c->input->encoding = xmlStrdup((const xmlChar *)"UTF-8");
    }
    if (url && c->input && !c->input->filename)
        c->input->filename = (char *)xmlStrdup((const xmlChar *)url);
    if (setup)
        setup(c, user);
    htmlParseDocument(c);
    htmlDocPtr doc = c->myDoc;
    c->myDoc = NULL;
    return doc;
}

htmlDocPtr ps_xml_read(const char *html, size_t len, const char *url, int options,
                       ps_xml_arena *arena)
{
    return ps_xml_read_sax(html, len, url, options, arena, NULL, NULL);
}

htmlDocPtr ps_xml_read_sax(const char *html, size_t len, const char *url, int options,
                           ps_xml_arena *arena, void (*setup)(htmlParserCtxtPtr, void *), void *user)
{
    /* libxml2's generic error channel (memory and buffer errors, which
     * HTML_PARSE_NOERROR does not silence) is per thread: quiet it here */
    xmlSetGenericErrorFunc(NULL, silent);
    htmlParserCtxtPtr c = htmlNewParserCtxt();
    if (!c) {
        tl_failed = 1;
        return NULL;
    }
    /* no table of the document's id attributes (xmlAddID, for xmlGetID and
     * DTD validation): nothing here looks an element up by id, and the
     * parse made one entry per id attribute (16 M instructions on 60
     * dragnet pages, with xmlIsID and freeing the table) */
    c->loadsubset |= XML_SKIP_IDS;
    htmlDocPtr doc = NULL;
    jmp_buf jb;
    ps_xml_arena *prev = tl_arena;
    if (setjmp(jb) == 0) {
        tl_jmp = &jb;
        tl_ctxt = c;
        tl_arena = arena;
        if (arena)
            arena->parsing = 1;
        doc = read_in_place(c, html, len, url, options, setup, user);
        /* libxml2 keeps a copy of the last error per thread, allocated
         * here: it must not outlive the arena */
        xmlResetLastError();
        if (arena)
            arena->parsing = 0;
        tl_arena = prev;
        tl_jmp = NULL;
        tl_ctxt = NULL;
    } else {
        xmlResetLastError();
        if (arena)
            arena->parsing = 0;
        tl_arena = prev;
        /* before the document exists, libxml2 was setting up its input and
         * encoder: half-made buffers there cannot be freed safely (a double
         * free was seen), so the context is left (a leak of about the page's
         * size, only when memory ran out at that moment) */
        int setup = !tl_ctxt || !tl_ctxt->myDoc;
        tl_ctxt = NULL;
        if (setup)
            return NULL;
        /* an allocation failed inside the parse: what was built is not
         * the page; the context's arrays and the partial tree are freed */
        if (c->myDoc) {
            xmlFreeDoc(c->myDoc);
            c->myDoc = NULL;
        }
    }
    htmlFreeParserCtxt(c);
    if (doc && tl_failed) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    return doc;
}
