/* pagesift/options.h — the options of the extraction methods
 * (methods/method_options.c).
 *
 * Each method has one table of options: a key, the values it accepts, a
 * default and one line of doc.  A ps_options holds one method's values,
 * typed (a number, 0/1, a choice), each checked against the table when it
 * is set; ps_extractor_config.method_options hands them to the extractor.
 *
 *     ps_options *o = ps_options_new("svm", &err);
 *     if (!o || ps_options_set(o, "favor", "precision", &err) != 0) ...
 *     ps_extractor_config cfg = {.method_options = o};
 *     ps_extractor *ex = ps_extractor_new("svm", &cfg, &err);
 *     ps_options_free(o);   (the extractor keeps a copy of the values)
 *
 * An error names the method, the option, the value and what is accepted
 * ("svm: option favor=more: expected one of balanced, precision, recall"),
 * or, for an unknown key, the known ones. */
#ifndef PAGESIFT_OPTIONS_H
#define PAGESIFT_OPTIONS_H

#include "pagesift.h"

/** One option of a method's table, as text. */
typedef struct ps_option_info {
    const char *key;         /**< as --options takes it */
    const char *doc;         /**< one line: what it does */
    char accepts[256];       /**< "a number in [0, 1]", "an integer in [1, 64]",
                                  "0 or 1", "one of balanced, precision, recall" */
    char default_value[64];  /**< the default as --options takes it; "" when
                                  the method decides (the doc says how) */
} ps_option_info;

/** Option @p i (from 0, in table order) of method @p method into @p out.
 *  Returns 0, or -1 past the last one or for an unknown method. */
PS_EXPORT int ps_method_option(const char *method, size_t i, ps_option_info *out);

/** The options of @p method at their defaults; NULL with err
 *  (PS_ERR_USAGE: unknown method). */
PS_EXPORT ps_options *ps_options_new(const char *method, ps_error *err);

/** Set option @p key to @p value (text, as --options takes it), checked
 *  against the table.  Returns 0, or -1 with err (PS_ERR_USAGE) and the
 *  values unchanged. */
PS_EXPORT int ps_options_set(ps_options *o, const char *key, const char *value, ps_error *err);

/** Set the options of @p list, "key=value,key=value" (NULL or "": none), in
 *  order.  Returns 0, or -1 with err (PS_ERR_USAGE) at the first bad one. */
PS_EXPORT int ps_options_parse(ps_options *o, const char *list, ps_error *err);

PS_EXPORT void ps_options_free(ps_options *o);

#endif
