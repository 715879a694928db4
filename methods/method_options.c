/* methods/method_options.c — "key=value,key=value" option strings of the
 * extraction methods (see method_options.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "methods/method_options.h"

static int known_keys(char *out, size_t cap, const ps_method_opt *opts, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        /* whole names only: one that does not fit (with room for ", ...")
         * ends the list with "..." */
        if (at + 2 + strlen(opts[i].key) + 5 >= cap) {
            snprintf(out + at, cap - at, "%s...", i ? ", " : "");
            break;
        }
        int w = snprintf(out + at, cap - at, "%s%s", i ? ", " : "", opts[i].key);
        if (w < 0)
            return -1;
        at += (size_t)w;
    }
    return 0;
}

static int set_value(const char *method, const ps_method_opt *o, const char *val, ps_error *err)
{
    char *end;
    switch (o->type) {
    case PS_OPT_DOUBLE: {
        errno = 0;
        double v = strtod(val, &end);
        if (errno || end == val || *end || !isfinite(v) || v < o->min || v > o->max)
            return ps_set_error(err, PS_ERR_USAGE, "%s: option %s=%s: expected a number in [%g, %g]", method,
                                o->key, val, o->min, o->max);
        *(double *)o->dst = v;
        return 0;
    }
    case PS_OPT_INT: {
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || end == val || *end || v < o->min || v > o->max)
            return ps_set_error(err, PS_ERR_USAGE, "%s: option %s=%s: expected an integer in [%.0f, %.0f]",
                                method, o->key, val, o->min, o->max);
        *(int *)o->dst = (int)v;
        return 0;
    }
    case PS_OPT_BOOL:
    case PS_OPT_SWITCH: {
        int v;
        if (!strcmp(val, "1") || !strcmp(val, "yes") || !strcmp(val, "true"))
            v = 1;
        else if (!strcmp(val, "0") || !strcmp(val, "no") || !strcmp(val, "false"))
            v = 0;
        else
            return ps_set_error(err, PS_ERR_USAGE, "%s: option %s=%s: expected 0 or 1", method, o->key, val);
        if (o->type == PS_OPT_BOOL)
            *(int *)o->dst = v;
        else
            *(double *)o->dst = v;
        return 0;
    }
    case PS_OPT_CHOICE: {
        char list[256];
        size_t at = 0;
        list[0] = '\0';
        for (int i = 0; o->choices[i]; i++) {
            if (!strcmp(val, o->choices[i])) {
                *(int *)o->dst = i;
                return 0;
            }
            int w = snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", o->choices[i]);
            if (w > 0 && (size_t)w < sizeof list - at)
                at += (size_t)w;
        }
        return ps_set_error(err, PS_ERR_USAGE, "%s: option %s=%s: expected one of %s", method, o->key, val, list);
    }
    }
    return ps_set_error(err, PS_ERR_USAGE, "%s: option %s: bad option table", method, o->key);
}

int ps_method_parse_options(const char *method, const char *options, const ps_method_opt *opts, size_t n_opts,
                            ps_error *err)
{
    if (!options || !*options)
        return 0;
    char *copy = strdup(options);
    if (!copy)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq) {
            rc = ps_set_error(err, PS_ERR_USAGE, "%s: option '%s' is not of the form key=value", method, item);
            break;
        }
        *eq = '\0';
        const ps_method_opt *o = NULL;
        for (size_t i = 0; i < n_opts; i++)
            if (!strcmp(opts[i].key, item))
                o = &opts[i];
        if (!o) {
            char keys[400];
            known_keys(keys, sizeof keys, opts, n_opts);
            rc = ps_set_error(err, PS_ERR_USAGE, "%s: unknown option '%s' (known: %s)", method, item, keys);
            break;
        }
        rc = set_value(method, o, eq + 1, err);
    }
    free(copy);
    return rc;
}
