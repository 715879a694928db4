/* extract/meta_internal.h — what the page keeps for its metadata: the head's
 * <meta> and <link> tags, JSON-LD scripts, <time> elements, bylines and
 * headings, collected from the DOM before cleaning removes the head and the
 * scripts (extract/metadata.c); and the language identifier
 * (extract/langid.cc). */
#ifndef PS_META_INTERNAL_H
#define PS_META_INTERNAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One collected item: key such as "meta:og:title", "link:canonical",
 *  "jsonld", "time", "h1", "byline"; value as found (UTF-8, whitespace
 *  collapsed except for JSON-LD). */
typedef struct ps_meta_kv {
    char *key;
    char *val;
} ps_meta_kv;

typedef struct ps_meta_raw {
    ps_meta_kv *kv;
    size_t n, cap;
} ps_meta_raw;

struct ps_tree;
/** Collect the items of the page's tree @p t (before cleaning); NULL when
 *  out of memory (the page then simply has no metadata). */
ps_meta_raw *ps_meta_collect(const struct ps_tree *t, int jsonld_only);
void ps_meta_raw_free(ps_meta_raw *m);

/** PS_SCHEMA_* bits: the schema.org @type names in the ld+json items. */
unsigned ps_meta_schema_kinds(const ps_meta_raw *m);

/** The same for a page (its collected items). */
struct ps_page;
char *ps_page_article_body(const struct ps_page *page);
/** The page's description as the metadata's `description` field gives it
 *  (og:description, description, twitter:description, the JSON-LD's,
 *  dc.description), also when parsed without its metadata; NULL when there
 *  is none (or out of memory).  Free it. */
char *ps_page_description(const struct ps_page *page);

/** Language of @p text (CLD2): 1 with its code (ISO 639-1 where there is
 *  one, e.g. "en", "de", "zh", "zh-Hant"), the percent of the text in it and
 *  CLD2's reliability flag; 0 when unknown. */
int ps_langid(const char *text, size_t len, char code[16], int *percent, int *reliable);

#ifdef __cplusplus
}
#endif

#endif
