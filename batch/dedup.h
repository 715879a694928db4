/* batch/dedup.h — duplicate pages of a batch (pagesift --dedup,
 * docs/EXTRACTION.md "Duplicates"): a page whose main text is the same as
 * that of a page already written (its words, case folded, punctuation and
 * spacing aside), or nearly the same (a 64-bit SimHash over word
 * 3-shingles at most `distance` bits from the earlier page's), is a
 * duplicate of the first such page.
 *
 * Two halves: ps_fingerprint_text, pure, runs on the batch's workers; the
 * index (ps_dedup), touched by the batch's writer only, in input order, so
 * which page is kept does not depend on thread timing.  The index keeps a
 * fixed number of bytes per kept page in memory (24, and 8 for each of its
 * four tables: batch/dedup.c) and the kept pages' stems, ids and URLs in a file: one line
 * per kept page, in the output folder (.pagesift-dedup, so that a resumed
 * run knows the pages written before) or in an unlinked temporary file. */
#ifndef PS_DEDUP_H
#define PS_DEDUP_H

#include <stddef.h>
#include <stdint.h>

#include "pagesift.h"

/** The largest near-duplicate distance accepted (bits of the 64-bit
 *  SimHash; the default, PS_DEDUP_DISTANCE of pagesift/batch.h, was chosen
 *  on the data sets: docs/EXTRACTION.md). */
#define PS_DEDUP_MAX_DISTANCE 8

/** The index's file in an output folder. */
#define PS_DEDUP_FILE ".pagesift-dedup"

/** A text's fingerprints. */
typedef struct ps_fingerprint {
    uint64_t exact; /**< XXH3-64 chained over the words' hashes */
    uint64_t sim;   /**< SimHash of the word 3-shingles (XXH3-64 each) */
    size_t words;   /**< words read (0: no fingerprint) */
} ps_fingerprint;

/** The fingerprints of @p len bytes of UTF-8 @p text.  Words are runs of
 *  letters, digits and marks (ICU's general categories), case folded; a
 *  Han or kana character is a word of its own (those scripts do not space
 *  their words).  A text of fewer than three words has one shingle, its
 *  words.  fp->words is 0 for a text without words. */
void ps_fingerprint_text(const char *text, size_t len, ps_fingerprint *fp);

/** Bits in which two SimHashes differ. */
static inline int ps_fingerprint_distance(uint64_t a, uint64_t b)
{
    return __builtin_popcountll(a ^ b);
}

typedef struct ps_dedup ps_dedup;

/** The kept page a duplicate duplicates; the strings stay valid until the
 *  next call on the index. */
typedef struct ps_dedup_match {
    const char *stem; /**< its output file stem ("" on a stream) */
    const char *id;   /**< its record id */
    const char *url;  /**< its URL, NULL when it had none */
    int distance;     /**< SimHash bits apart (0 for the same words) */
} ps_dedup_match;

/** A new index: duplicates are pages with the same words (always) or, for
 *  @p distance from 1 to PS_DEDUP_MAX_DISTANCE, a SimHash at most that many
 *  bits apart.  @p dir: the output folder (its PS_DEDUP_FILE holds the
 *  kept pages; locked, so that two runs cannot write it at once), or NULL
 *  for a temporary file.  @p resume: the folder's file is read (the pages
 *  of the run being resumed); else it is emptied.  NULL with err. */
ps_dedup *ps_dedup_open(int distance, const char *dir, int resume, ps_error *err);

/** Look @p fp up: 1 with *m when a kept page is its duplicate (the one
 *  nearest, the earliest of those), 0 when none is, 2 when the nearest
 *  within the distance is this very page (its stem is @p own_stem: a
 *  resumed run whose earlier run was stopped between indexing a page and
 *  writing it); -1 with err when the index file cannot be read. */
int ps_dedup_find(ps_dedup *d, const ps_fingerprint *fp, const char *own_stem, ps_dedup_match *m,
                  ps_error *err);

/** Add a kept page (@p url may be NULL): 0, or -1 with err (out of memory,
 *  the file cannot be written; the index is unchanged). */
int ps_dedup_add(ps_dedup *d, const ps_fingerprint *fp, const char *stem, const char *id, const char *url,
                 ps_error *err);

/** Take back the last ps_dedup_add (its record could not be written). */
void ps_dedup_undo_add(ps_dedup *d);

/** Pages in the index, and the bytes of memory it holds. */
size_t ps_dedup_count(const ps_dedup *d);
size_t ps_dedup_memory(const ps_dedup *d);

void ps_dedup_close(ps_dedup *d);

#endif
