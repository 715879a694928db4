/* methods/method_options.h — parsing a method's "key=value,key=value"
 * option string (ps_method_config.options) against a table of known keys.
 * Internal to methods/. */
#ifndef PS_METHOD_OPTIONS_H
#define PS_METHOD_OPTIONS_H

#include <stddef.h>

#include "common/util.h"

typedef enum ps_opt_type {
    PS_OPT_DOUBLE, /**< dst is double *, value in [min, max] */
    PS_OPT_INT,    /**< dst is int *, value in [min, max] */
    PS_OPT_BOOL,   /**< dst is int *, "0"/"1" (also "no"/"yes", "false"/"true") */
    PS_OPT_CHOICE, /**< dst is int *, index of the value in choices */
    PS_OPT_SWITCH  /**< dst is double *, 0 or 1 written as PS_OPT_BOOL's values */
} ps_opt_type;

typedef struct ps_method_opt {
    const char *key;
    ps_opt_type type;
    void *dst;
    double min, max;              /**< PS_OPT_DOUBLE / PS_OPT_INT */
    const char *const *choices;   /**< PS_OPT_CHOICE, NULL-terminated */
} ps_method_opt;

/** Parse @p options (may be NULL or "") for method @p method, storing each
 *  value through its table entry; keys not given keep their defaults.
 *  Returns 0, or -1 with err (PS_ERR_USAGE) naming the method, the key and
 *  the problem (unknown key: lists the known ones). */
int ps_method_parse_options(const char *method, const char *options, const ps_method_opt *opts, size_t n_opts,
                            ps_error *err);

#endif
