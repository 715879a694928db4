/* methods/method_options.c — the options of the extraction methods: each
 * method's table (methods/method_options.h), the typed values checked
 * against it, and the public calls over both (pagesift/options.h) but the
 * two that find a method by name (batch/extractor.c: the registry is above
 * the methods). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_passes.h"
#include "methods/method.h"
#include "methods/method_options.h"

int ps_method_option_row(const ps_method *m, size_t i, ps_option *out)
{
    size_t own = 0;
    while (m->options && m->options[own].key)
        own++;
    if (i < own) {
        *out = m->options[i];
        return 0;
    }
    if (!(m->flags & PS_METHOD_PASSES))
        return -1;
    for (size_t k = 0; ps_block_pass_table[k].key; k++)
        if (k == i - own) {
            const ps_block_pass *r = &ps_block_pass_table[k];
            *out = (ps_option){r->key, r->type, r->def, r->min, r->max, NULL, r->doc};
            return 0;
        }
    return -1;
}

/* What a row accepts, as the errors and the listings say it; cut with
 * "..." (never mid-name) when @p cap is too small. */
static void accepts(const ps_option *o, char *out, size_t cap)
{
    switch (o->type) {
    case PS_OPT_DOUBLE:
        snprintf(out, cap, "a number in [%g, %g]", o->min, o->max);
        return;
    case PS_OPT_INT:
        snprintf(out, cap, "an integer in [%.0f, %.0f]", o->min, o->max);
        return;
    case PS_OPT_BOOL:
    case PS_OPT_SWITCH:
        snprintf(out, cap, "0 or 1");
        return;
    case PS_OPT_CHOICE: {
        size_t at = (size_t)snprintf(out, cap, "one of");
        for (int i = 0; o->choices[i] && at < cap; i++) {
            if (at + 2 + strlen(o->choices[i]) + 5 >= cap) {
                snprintf(out + at, cap - at, " ...");
                return;
            }
            at += (size_t)snprintf(out + at, cap - at, "%s %s", i ? "," : "", o->choices[i]);
        }
        return;
    }
    }
    snprintf(out, cap, "?");
}

/* A row's default as --options takes it; "" when it has none. */
static void default_text(const ps_option *o, char *out, size_t cap)
{
    if (o->type == PS_OPT_CHOICE)
        snprintf(out, cap, "%s", o->choices[(int)o->def]);
    else if (o->def < o->min || o->def > o->max)
        snprintf(out, cap, "%s", "");
    else
        snprintf(out, cap, "%g", o->def);
}

/* The keys of the table, by whole names; one that does not fit (with room
 * for ", ...") ends the list with "...". */
static void known_keys(const ps_method *m, char *out, size_t cap)
{
    size_t at = 0;
    ps_option o;
    out[0] = '\0';
    for (size_t i = 0; ps_method_option_row(m, i, &o) == 0; i++) {
        if (at + 2 + strlen(o.key) + 5 >= cap) {
            snprintf(out + at, cap - at, "%s...", i ? ", " : "");
            return;
        }
        at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? ", " : "", o.key);
    }
}

/* @p val for row @p o into *v, or -1 (not a value the row accepts). */
static int parse_value(const ps_option *o, const char *val, double *v)
{
    char *end;
    errno = 0;
    switch (o->type) {
    case PS_OPT_DOUBLE:
        *v = strtod(val, &end);
        return errno || end == val || *end || !isfinite(*v) || *v < o->min || *v > o->max ? -1 : 0;
    case PS_OPT_INT: {
        long l = strtol(val, &end, 10);
        *v = (double)l;
        return errno || end == val || *end || l < o->min || l > o->max ? -1 : 0;
    }
    case PS_OPT_BOOL:
    case PS_OPT_SWITCH:
        if (!strcmp(val, "1") || !strcmp(val, "yes") || !strcmp(val, "true"))
            *v = 1;
        else if (!strcmp(val, "0") || !strcmp(val, "no") || !strcmp(val, "false"))
            *v = 0;
        else
            return -1;
        return 0;
    case PS_OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (!strcmp(val, o->choices[i])) {
                *v = i;
                return 0;
            }
        return -1;
    }
    return -1;
}

static void defaults(ps_options *o, const ps_method *m)
{
    memset(o, 0, sizeof *o);
    o->method = m;
    ps_option row;
    while (o->n < PS_OPTIONS_MAX && ps_method_option_row(m, o->n, &row) == 0)
        o->value[o->n++] = row.def;
}

/* Two methods of one table (svm and template-svm) take each other's values. */
static int same_table(const ps_method *a, const ps_method *b)
{
    return a->options == b->options && (a->flags & PS_METHOD_PASSES) == (b->flags & PS_METHOD_PASSES);
}

int ps_options_resolve(ps_options *out, const ps_options *given, const ps_method *m, ps_error *err)
{
    if (!given) {
        defaults(out, m);
        ps_option row;
        if (ps_method_option_row(m, out->n, &row) == 0) /* a table past PS_OPTIONS_MAX */
            return ps_set_error(err, PS_ERR_USAGE, "%s: more than %d options", m->name, PS_OPTIONS_MAX);
        return 0;
    }
    if (!same_table(given->method, m))
        return ps_set_error(err, PS_ERR_USAGE, "options made for the %s method given to %s", given->method->name,
                            m->name);
    *out = *given;
    return 0;
}

void ps_options_free(ps_options *o)
{
    free(o);
}

int ps_options_set(ps_options *o, const char *key, const char *value, ps_error *err)
{
    const char *method = o->method->name;
    ps_option row;
    size_t i = 0;
    while (ps_method_option_row(o->method, i, &row) == 0 && strcmp(row.key, key) != 0)
        i++;
    if (i >= o->n) {
        char keys[400];
        known_keys(o->method, keys, sizeof keys);
        return ps_set_error(err, PS_ERR_USAGE, "%s: unknown option '%s' (known: %s)", method, key, keys);
    }
    double v;
    if (parse_value(&row, value, &v) != 0) {
        char what[256];
        accepts(&row, what, sizeof what);
        return ps_set_error(err, PS_ERR_USAGE, "%s: option %s=%s: expected %s", method, key, value, what);
    }
    o->value[i] = v;
    o->given[i] = 1;
    return 0;
}

int ps_options_parse(ps_options *o, const char *list, ps_error *err)
{
    if (!list || !*list)
        return 0;
    char *copy = strdup(list);
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
            rc = ps_set_error(err, PS_ERR_USAGE, "%s: option '%s' is not of the form key=value", o->method->name,
                              item);
            break;
        }
        *eq = '\0';
        rc = ps_options_set(o, item, eq + 1, err);
    }
    free(copy);
    return rc;
}

int ps_method_option_info(const ps_method *m, size_t i, ps_option_info *out)
{
    ps_option row;
    if (i >= PS_OPTIONS_MAX || ps_method_option_row(m, i, &row) != 0)
        return -1;
    out->key = row.key;
    out->doc = row.doc ? row.doc : "";
    accepts(&row, out->accepts, sizeof out->accepts);
    default_text(&row, out->default_value, sizeof out->default_value);
    return 0;
}
