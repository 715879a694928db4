/* extract/meta_fields.h — the metadata fields, one table (extract/metadata.c):
 * every member of ps_metadata with its name, kind and XML attribute, in the
 * order of the JSON Lines record.  JSON Lines, CSV and XML (output/) write
 * the metadata from it and ps_metadata_free frees it from it, so a new field
 * is a member of ps_metadata, its extraction rule (extract/metadata.c) and a
 * row here; docs/JSONL.md says what it means. */
#ifndef PS_META_FIELDS_H
#define PS_META_FIELDS_H

#include <stddef.h>

#include "pagesift.h"

typedef enum ps_meta_kind {
    PS_META_TEXT,  /**< char *: a string, NULL when absent */
    PS_META_LIST,  /**< char ** and a size_t count: strings, absent when 0 */
    PS_META_SHARE  /**< double 0..1 written with two decimals; absent when
                        below 0 or when `lang` is absent */
} ps_meta_kind;

typedef struct ps_meta_field {
    const char *name;    /**< the JSON Lines key and CSV column */
    ps_meta_kind kind;
    size_t offset;       /**< of the member in ps_metadata */
    size_t count_offset; /**< PS_META_LIST: of its count */
    const char *xml;     /**< XML's <doc> attribute, NULL: not in XML */
    int xml_rank;        /**< the attribute's place among <doc>'s: 1, 2, ...
                              without a gap (0: not in XML) */
} ps_meta_field;

/** The fields, in the record's order; ps_meta_n_fields of them. */
extern const ps_meta_field ps_meta_fields[];
extern const size_t ps_meta_n_fields;

/** PS_META_TEXT: the string of field @p f of @p m (NULL when absent). */
const char *ps_meta_text(const ps_metadata *m, const ps_meta_field *f);

/** PS_META_LIST: the items of field @p f of @p m, their count in *n. */
char *const *ps_meta_list(const ps_metadata *m, const ps_meta_field *f, size_t *n);

/** PS_META_SHARE: the share written with two decimals into @p buf (at
 *  least 8 bytes), or NULL when absent. */
const char *ps_meta_share(const ps_metadata *m, const ps_meta_field *f, char *buf, size_t cap);

#endif
