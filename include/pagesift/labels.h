/*
 * pagesift/labels.h — labelled blocks, the table annotators and training
 * use (features/): each block's share of the gold text (gold_align.c), the
 * block CSV with its labels from gold text or snippets (export.c,
 * docs/BLOCK_CSV.md), and the CSV reader training and classification read
 * it with (csv.c).  The features themselves: pagesift/features.h.
 */
#ifndef PAGESIFT_LABELS_H
#define PAGESIFT_LABELS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* FILE, for the block CSV writer */

#include "pagesift.h"
#include "pagesift/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- Labels from gold text (features/gold_align.c) --- */

/** Default gold share from which a block is labelled content. */
#define PS_DEFAULT_LABEL_THRESHOLD 0.5

/**
 * Align the page's text with its gold text and report, per leaf, the share
 * of its text aligned with the gold (0..1) and, per block, the share over its
 * own leaves that are not removed (-1 for a block without word tokens).
 *
 * Both texts are cut into ps_tokenize tokens (words; one token per CJK
 * character), compared ignoring ASCII case, and aligned as sequences
 * (longest common subsequence, patience-anchored for large pages), so a
 * gold word counts only where it stands in the gold's order — a "the" in the
 * navigation is not credited.  Shares are in characters of tokens;
 * punctuation and spaces count in neither part.  Every leaf is aligned,
 * removed ones included (so template removal of gold text shows as lost
 * recall); a leaf without tokens gets 0.  @p leaf_share has one value per
 * leaf (ps_page_leaves order), @p block_share one per block; either may be
 * NULL.  Returns 0, or -1 when out of memory.
 */
PS_LAB_EXPORT int ps_page_gold_alignment(const ps_page *page, const char *gold, size_t gold_len,
                           double *leaf_share, double *block_share);

/* --- Block CSV (features/export.c): the table annotators and training use --- */

/** Options of a block CSV.  Zero-initialise, then set what you need. */
typedef struct ps_block_csv_options {
    int extended;          /**< add every x_* feature after R1..R5 */
    int for_annotation;    /**< leave the label column empty (an annotator
                                fills it); gold_share is still given when
                                there is gold */
    size_t preview_chars;  /**< characters of the text column; 0 = 200 */
    uint32_t min_text;     /**< skip blocks with fewer own characters;
                                0 = write every block (the tool's default is
                                1: blocks without text are skipped) */
    double label_threshold;/**< label 1 from this gold share; 0 = 0.5 */
    const char *const *block_tags; /**< the block tags the pages are parsed
                                with (NULL-terminated; NULL =
                                ps_default_block_tags): written into every
                                row's block_tags column, and a page parsed
                                with others is refused (PS_ERR_USAGE) */
} ps_block_csv_options;

/** Per-set figures of the gold labels, added up by ps_block_csv_page. */
typedef struct ps_label_stats {
    uint64_t pages;            /**< pages written */
    uint64_t pages_gold;       /**< of which had gold */
    uint64_t blocks[3];        /**< blocks written labelled noise (0), content
                                    (1), unlabelled (2: no gold, no text, or
                                    for annotation) */
    uint64_t gold_chars;       /**< token characters of the pages aligned with
                                    the gold (all blocks, skipped ones too) */
    uint64_t gold_in_content;  /**< of which in blocks labelled content */
    uint64_t other_chars;      /**< token characters not aligned */
    uint64_t other_in_noise;   /**< of which in blocks labelled noise or in
                                    removed leaves */
    uint64_t gold_text_chars;  /**< token characters of the gold texts */
    uint64_t gold_text_found;  /**< of which aligned with the page */
    /* pages labelled from snippets (ps_block_csv_page_snippets) */
    uint64_t pages_snippets;   /**< pages written with snippets */
    uint64_t with_snippets, with_found;       /**< 'with' snippets, of which
                                                   found in the page text */
    uint64_t without_snippets, without_found; /**< the same for 'without' */
    uint64_t conflict_blocks;  /**< blocks with votes of both kinds (left
                                    unlabelled; counted in blocks[2]) */
    uint64_t oracle_tp, oracle_fp, oracle_fn, oracle_tn; /**< the snippet rule
                                    on the text of the blocks labelled 1:
                                    how well the labels fit the snippets */
} ps_label_stats;

typedef struct ps_block_csv ps_block_csv;

/** Start a block CSV on @p out (not closed by the writer) and write the
 *  header row:
 *  dataset,page_id,url,site,block_id,block_path,tag,inner_len,
 *  inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,
 *  outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,[x_* with extended],label,
 *  gold_share,text,block_tags (opt->block_tags comma-joined, the same on
 *  every row: what pagesift-train writes into the bundle).
 *  block_id is "b" and 16 hex digits of a 64-bit hash of page_id and the
 *  block's DOM path: stable across runs, versions and options (the "b" keeps
 *  spreadsheets from reading it as a number). */
PS_LAB_EXPORT ps_block_csv *ps_block_csv_new(FILE *out, const ps_block_csv_options *opt, ps_error *err);

/** Write one row per block of @p page (blocks with fewer than min_text own
 *  characters skipped).  @p gold (may be NULL: label and gold_share empty)
 *  labels the blocks (ps_page_gold_alignment, label 1 when the share >=
 *  label_threshold).  @p site NULL or "" derives the site from the page's
 *  URL (host).  Adds to @p stats when not NULL.  Returns 0, or -1 on a write
 *  error or out of memory. */
PS_LAB_EXPORT int ps_block_csv_page(ps_block_csv *w, const char *dataset, const char *page_id,
                      const char *site, const ps_page *page, const char *gold, size_t gold_len,
                      ps_label_stats *stats, ps_error *err);

/** The same for a page of a snippet set: labels from its snippets
 *  (docs/BLOCK_CSV.md: in the page's white-space-collapsed text, every
 *  occurrence of a 'with' snippet votes content for each block it touches,
 *  every occurrence of a 'without' snippet votes noise for the blocks holding
 *  at least half of their own characters or half of the snippet's; 1 =
 *  content votes only, 0 = noise votes only, empty otherwise); gold_share is
 *  empty. */
PS_LAB_EXPORT int ps_block_csv_page_snippets(ps_block_csv *w, const char *dataset, const char *page_id,
                               const char *site, const ps_page *page, const ps_snippets *sn,
                               ps_label_stats *stats, ps_error *err);

/** Flush; returns 0 or -1 when a write failed.  Frees the writer. */
PS_LAB_EXPORT int ps_block_csv_finish(ps_block_csv *w, ps_error *err);

/* --- Reading CSV (features/csv.c) — for block CSVs and any other --- */

/** A CSV file read row by row (libcsv, RFC 4180 quoting; a UTF-8 BOM and
 *  CRLF line ends, as spreadsheets write them, are accepted).  The first row
 *  is the header; columns are found by name. */
typedef struct ps_csv ps_csv;

/** Open @p path ("-" = standard input) and read its header row.  Errors
 *  (unreadable, empty, duplicate column names) name the file and line. */
PS_LAB_EXPORT ps_csv *ps_csv_open(const char *path, ps_error *err);
PS_LAB_EXPORT void ps_csv_close(ps_csv *csv);
/** Number of header columns and the name of column @p i. */
PS_LAB_EXPORT size_t ps_csv_columns(const ps_csv *csv);
PS_LAB_EXPORT const char *ps_csv_column_name(const ps_csv *csv, size_t i);
/** Index of the column named @p name, or -1. */
PS_LAB_EXPORT int ps_csv_column(const ps_csv *csv, const char *name);
/** The same, with an error "FILE: line 1: the header has no column 'NAME'"
 *  when it is missing. */
PS_LAB_EXPORT int ps_csv_require(const ps_csv *csv, const char *name, ps_error *err);
/** Read the next row: 1 a row, 0 end of file, -1 error (malformed quoting,
 *  a row whose field count differs from the header's: FILE: line N: ...). */
PS_LAB_EXPORT int ps_csv_next(ps_csv *csv, ps_error *err);
/** Field @p col of the current row ("" when out of range). */
PS_LAB_EXPORT const char *ps_csv_field(const ps_csv *csv, size_t col);
/** Line of the file where the current row starts (1 = header). */
PS_LAB_EXPORT size_t ps_csv_line(const ps_csv *csv);
/** The file's name as used in errors. */
PS_LAB_EXPORT const char *ps_csv_path(const ps_csv *csv);
/** Write @p n bytes as one quoted CSV field (libcsv's csv_fwrite: the field
 *  in double quotes, quotes doubled; commas, newlines and any UTF-8 kept).
 *  Returns 0 or -1 on a write error. */
PS_LAB_EXPORT int ps_csv_write_field(FILE *f, const char *s, size_t n);
/** Parse field @p col as a finite number (C locale; surrounding spaces
 *  allowed); else -1 with "FILE: line N: column 'C': 'X' is not a number". */
PS_LAB_EXPORT int ps_csv_number(const ps_csv *csv, size_t col, double *out, ps_error *err);
/** ps_csv_number for a count (a block's characters, inner_len): rounded
 *  toward zero into [0, UINT32_MAX] (a negative number 0, a larger one the
 *  largest: a hand-edited or damaged CSV is no undefined conversion). */
PS_LAB_EXPORT int ps_csv_count(const ps_csv *csv, size_t col, uint32_t *out, ps_error *err);
/** The nearest enclosing row of a block CSV's row, as the second stage's
 *  context features take a block's parent (methods/classifier_stack.c):
 *  among rows @p first to @p i - 1 of the same page, in document order (an
 *  ancestor's row comes before its descendants'), the last whose block_path
 *  @p paths[r] is an ancestor of @p path ("html/body/div[2]" of
 *  "html/body/div[2]/p[1]"; a NULL path is ""), found by walking up the
 *  rows' own @p parent links from row i - 1; -1 for none.  One rule for
 *  every tool that reads the CSV's rows back as a tree (pagesift-classify,
 *  pagesift-train --per-site, --reduce). */
PS_LAB_EXPORT int32_t ps_csv_row_parent(const char *const *paths, const int32_t *parent, size_t first, size_t i,
                                        const char *path);

/* --- Which pages to label next (train/site_train.c) --- */

/** How unsure the model was about @p page, from the extraction @p x made of
 *  it (the svm or template-svm method: x->block_score set): the share of
 *  the page's text in blocks scored near the decision boundary, each
 *  block's characters counted by how near (1 - |score|, 0 from a score of
 *  +-1 on: outside the SVM's margin).  0 when every block was scored
 *  clearly (or the page has no scored text), up to 1 when all its text
 *  sits on the boundary.  pagesift-annotate's "Label next" lists a
 *  workspace's unlabelled pages in descending order of it; pagesift-eval
 *  --per-site-models --label-order uncertainty measures what that order
 *  gives a site model (docs/SITE_MODELS.md: so far no more than pages taken
 *  as they come).  NAN when @p x has no block scores. */
PS_LAB_EXPORT double ps_extraction_uncertainty(const ps_page *page, const ps_extraction *x);

#ifdef __cplusplus
}
#endif
#endif /* PAGESIFT_LABELS_H */
