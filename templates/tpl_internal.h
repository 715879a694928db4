/* templates/tpl_internal.h — inside of the template libraries: the indexed
 * set of (tag, text) items that serves both as a batch cache and as a
 * library, the edit distance, the library object. */
#ifndef PS_TPL_INTERNAL_H
#define PS_TPL_INTERNAL_H

#include <stdint.h>

#include "common/util.h"
#include "pagesift.h"
#include "pagesift/templates.h"

/** Texts of at most this many code points must match exactly
 *  (floor(len / 8) = 0), so they are found by the exact index alone. */
#define TPL_EXACT_ONLY_CHARS 8
/** Buckets of the character histogram used as a lower bound on the edit
 *  distance (a substitution changes two counts by one, an insertion or a
 *  deletion one count by one: distance >= L1 / 2). */
#define TPL_HIST 32
/** Texts of at least this many code points also keep their sorted 3-gram
 *  hashes: two texts within k edits share at least max(L, M) - 2 - 3k
 *  3-grams (Ukkonen's q-gram lemma), a filter that, unlike the histogram,
 *  stays sharp for long texts. */
#define TPL_GRAM_MIN 32

typedef struct tpl_item {
    uint64_t hash;        /**< hash of tag '\0' text: exact index key */
    uint64_t tag_hash;
    uint32_t tag_off;     /**< tag name in set->str */
    uint32_t text_off;    /**< text in set->str */
    uint32_t bytes, chars;
    uint32_t cp_off;      /**< code points in set->cps (chars > 8 only) */
    uint32_t hist_off;    /**< histogram in set->hist (chars > 8), or UINT32_MAX */
    uint32_t gram_off;    /**< sorted 3-gram hashes in set->grams (chars >= TPL_GRAM_MIN) */
    uint32_t freq;
    uint32_t batches;
    uint32_t stamp;       /**< last page that counted (page frequency) */
    uint32_t next_exact;  /**< chain of the exact index, UINT32_MAX ends */
    uint32_t next_band;   /**< chain of the (tag, length) index */
} tpl_item;

/** An open-addressing table of (key, head item, items in the chain). */
typedef struct tpl_table {
    uint64_t *keys;
    uint32_t *heads;
    uint32_t *counts;
    size_t cap;           /**< power of two, 0 when empty */
    size_t used;
} tpl_table;

typedef struct tpl_set {
    tpl_item *items;
    size_t n, cap;
    ps_buf str;           /**< tag and text strings, NUL-terminated */
    uint32_t *cps;        /**< code points of long texts */
    size_t n_cps, cap_cps;
    uint16_t *hist;       /**< TPL_HIST counts per long text */
    size_t n_hist, cap_hist;
    uint32_t *grams;      /**< chars - 2 sorted 3-gram hashes per text of TPL_GRAM_MIN+ */
    size_t n_grams, cap_grams;
    tpl_table exact;      /**< hash(tag, text) -> chain */
    tpl_table band;       /**< hash(tag, chars) -> chain, with its length */
    tpl_table seg;        /**< hash(tag, chars, segment i, its code points) -> chain of seg_nodes */
    uint32_t *seg_item;   /**< item of each segment node */
    uint32_t *seg_next;   /**< next node of the same key, UINT32_MAX ends */
    size_t n_seg, cap_seg;
} tpl_set;

/** A query: one leaf, decoded once. */
typedef struct tpl_query {
    const char *tag;
    const char *text;
    uint32_t bytes, chars;
    uint64_t hash, tag_hash;
    const uint32_t *cps;  /**< code points (chars of them) when chars > 8 */
    uint16_t hist[TPL_HIST];
    uint32_t *grams;      /**< sorted 3-gram hashes (chars - 2), computed on
                               first need (tpl_query_grams) */
    int grams_ready;
} tpl_query;

void tpl_set_init(tpl_set *s);
void tpl_set_free(tpl_set *s);

/** Prepare a query; @p cpbuf must hold 3 * @p chars values (code points,
 *  3-grams and their sort space: the caller's scratch, so matching stays
 *  thread-safe). */
void tpl_query_init(tpl_query *q, const char *tag, const char *text, uint32_t bytes,
                    uint32_t chars, uint32_t *cpbuf);

/** The item similar to @p q: the exact one, else the closest by edit
 *  distance among the items of the same tag in the length band (ties: the
 *  oldest item), or -1.  *dist gets the distance.  The result is the same
 *  whichever candidates are looked at first; a length with many items is
 *  searched through the segment index (tpl_set.c), never scanned. */
long tpl_set_find(const tpl_set *s, tpl_query *q, unsigned *dist);

/** A query made of item @p i of @p s (valid while @p s is unchanged). */
void tpl_query_from_item(const tpl_set *s, size_t i, tpl_query *q);

/** Add @p q as a new item with frequency @p freq; returns its index or -1. */
long tpl_set_add(tpl_set *s, tpl_query *q, uint32_t freq);

static inline const char *tpl_item_text(const tpl_set *s, const tpl_item *it)
{
    return s->str.data + it->text_off;
}
static inline const char *tpl_item_tag(const tpl_set *s, const tpl_item *it)
{
    return s->str.data + it->tag_off;
}

/** Banded Levenshtein distance of code point arrays if <= k, else k + 1. */
unsigned tpl_edit_distance(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, unsigned k);

/** Decode UTF-8 into code points (invalid bytes count as one each); returns
 *  how many were written (at most cap). */
size_t tpl_utf8_decode(const char *s, size_t n, uint32_t *out, size_t cap);

struct ps_template_lib {
    char *site;
    ps_template_params params;
    uint64_t pages;
    uint64_t batches;
    tpl_set set;
};

/** Write a library atomically to @p path. */
int tpl_lib_write(const ps_template_lib *lib, const char *path, ps_error *err);

/** mkdir -p; errors name the folder. */
int tpl_mkdir_p(const char *dir, ps_error *err);

/** A store made of libraries (takes them over). */
ps_template_store *tpl_store_from(ps_template_lib **libs, size_t n);

#endif
