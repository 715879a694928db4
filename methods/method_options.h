/* methods/method_options.h — a method's options: one table of rows (key,
 * type, range, default, one line of doc) per method, and the typed values
 * checked against it (ps_options, include/pagesift/options.h), which a
 * method reads in create().  Every caller goes through it: --options
 * key=value (ps_extractor_config.options), pagesift's --favor,
 * --with-comments and --no-tables, Python's keywords; a value is checked
 * here only.  Internal to methods/ and batch/. */
#ifndef PS_METHOD_OPTIONS_H
#define PS_METHOD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"
#include "pagesift/options.h"

typedef enum ps_opt_type {
    PS_OPT_DOUBLE, /**< a number in [min, max] */
    PS_OPT_INT,    /**< an integer in [min, max] */
    PS_OPT_BOOL,   /**< 0 or 1 (also "no"/"yes", "false"/"true") */
    PS_OPT_CHOICE, /**< the index of the value in choices */
    PS_OPT_SWITCH  /**< as PS_OPT_BOOL: an on/off pass of methods/block_passes.c */
} ps_opt_type;

/** One row of a method's option table. */
typedef struct ps_option {
    const char *key;
    ps_opt_type type;
    double def;                 /**< the default (a choice: its index); a
                                     number outside [min, max]: none, the
                                     method decides (doc says how) */
    double min, max;            /**< PS_OPT_DOUBLE / PS_OPT_INT */
    const char *const *choices; /**< PS_OPT_CHOICE, NULL-terminated */
    const char *doc;            /**< one line: what it does */
} ps_option;

/** Rows a method's table may have (its own and the passes'). */
#define PS_OPTIONS_MAX 48

/** A method's option values, typed: one per row of its table (a choice's
 *  index, 0/1, a number), and whether the caller gave it. */
struct ps_options {
    const struct ps_method *method; /**< the method they were checked for */
    size_t n;                       /**< rows of its table */
    double value[PS_OPTIONS_MAX];
    uint8_t given[PS_OPTIONS_MAX];
};

/** Row @p i of method @p m's table into @p out: its own rows
 *  (ps_method.options), then, for a method with PS_METHOD_PASSES, one a
 *  second pass (ps_block_pass_table).  Returns 0, or -1 past the end. */
int ps_method_option_row(const struct ps_method *m, size_t i, ps_option *out);

/** The values a method reads: a copy of @p given, which must have been
 *  made for a method of the same table, or the defaults of @p m's table
 *  when @p given is NULL.  Returns 0, or -1 with err (PS_ERR_USAGE). */
int ps_options_resolve(ps_options *out, const ps_options *given, const struct ps_method *m, ps_error *err);

/** Row @p i of @p m's table as text (ps_method_option's answer).  Returns
 *  0, or -1 past the end. */
int ps_method_option_info(const struct ps_method *m, size_t i, ps_option_info *out);

#endif
