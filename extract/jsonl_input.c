/* extract/jsonl_input.c — pages as JSON Lines records (jansson), so the
 * tools work as filters in streaming pipelines (Hadoop Streaming, Spark
 * pipe, GNU parallel):
 *     {"url": "...", "html": "...", "id": "..." or 123, "charset": "..."}
 * "html" is required, the rest optional.  One record per line; blank lines
 * are ignored; a bad line is a failed input naming the line, then the next
 * line is read.  The stream may be gzip (instream.c inflates it): standard
 * input with --jsonl, or a file named .jsonl / .ndjson (.gz). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "extract/inputs_internal.h"

struct ps_jsonl {
    ps_instream *s;
    char *name;
    char *id_prefix; /* "<file id>-" for a file's records, "" for stdin's */
    size_t max_bytes;
    size_t lineno;
    int done;      /* the stream failed: no more lines */
    ps_buf line;
};

ps_jsonl *ps_jsonl_new(ps_instream *s, const char *name, const char *file_id, size_t max_bytes)
{
    ps_jsonl *j = calloc(1, sizeof *j);
    ps_buf prefix = {0};
    if (!j || ps_buf_printf(&prefix, "%s%s", file_id ? file_id : "", file_id ? "-" : "") ||
        !(j->name = strdup(name))) {
        ps_buf_free(&prefix);
        free(j);
        ps_instream_free(s);
        return NULL;
    }
    j->id_prefix = ps_buf_take(&prefix, NULL);
    j->s = s;
    j->max_bytes = max_bytes ? max_bytes : PS_DEFAULT_MAX_BYTES;
    return j;
}

void ps_jsonl_free(ps_jsonl *j)
{
    if (!j)
        return;
    ps_instream_free(j->s);
    ps_buf_free(&j->line);
    free(j->name);
    free(j->id_prefix);
    free(j);
}

static int blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return 0;
    return 1;
}

/* An optional string member: 0 ok (*out NULL when absent), -1 wrong type. */
static int opt_string(json_t *obj, const char *key, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    *out = json_string_value(v);
    return 0;
}

/* The id of line @p lineno without one of its own: "line-<n>", after the
 * file's id for a file ("crawl-line-7": two files' lines stay apart);
 * lineno 0 (lines count from 1): the stream's read error, "line-error". */
static char *line_id(const ps_jsonl *j, size_t lineno)
{
    ps_buf b = {0};
    if (lineno ? ps_buf_printf(&b, "%sline-%zu", j->id_prefix, lineno)
               : ps_buf_printf(&b, "%sline-error", j->id_prefix)) {
        ps_buf_free(&b);
        return NULL;
    }
    return ps_buf_take(&b, NULL);
}

/* The output id: "id" (string or integer) or line_id. */
static char *record_id(const ps_jsonl *j, json_t *obj)
{
    json_t *v = json_object_get(obj, "id");
    char tmp[48];
    if (v && json_is_string(v))
        return ps_safe_id(json_string_value(v), json_string_length(v));
    if (!v || !json_is_integer(v))
        return line_id(j, j->lineno);
    snprintf(tmp, sizeof tmp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return strdup(tmp);
}

/* Fill in from one parsed record; returns -1 when out of memory. */
static int fill_record(ps_jsonl *j, json_t *obj, ps_input *in)
{
    in->id = record_id(j, obj);
    if (!in->id)
        return -1;
    if (!json_is_object(obj)) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: not a JSON object", in->origin);
        return 0;
    }
    const char *url, *charset;
    if (opt_string(obj, "url", &url) || opt_string(obj, "charset", &charset)) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: \"url\" and \"charset\" must be strings", in->origin);
        return 0;
    }
    if (!(in->url = strdup(url ? url : "")))
        return -1;
    json_t *html = json_object_get(obj, "html");
    if (!html || !json_is_string(html)) {
        ps_input_fail(in, PS_ERR_FORMAT, "%s: %s", in->origin,
                      html ? "\"html\" is not a string" : "no \"html\" member");
        return 0;
    }
    size_t n = json_string_length(html);
    if (n > j->max_bytes) {
        ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: page of %zu bytes, larger than the limit of %zu bytes",
                      in->origin, n, j->max_bytes);
        return 0;
    }
    /* JSON text is Unicode: the bytes are UTF-8 unless the record says */
    in->charset = strdup(charset ? charset : "utf-8");
    in->data = malloc(n + 1);
    if (!in->charset || !in->data)
        return -1;
    memcpy(in->data, json_string_value(html), n);
    in->data[n] = '\0';
    in->len = n;
    return 0;
}

int ps_jsonl_next(ps_jsonl *j, ps_input *in, ps_error *err)
{
    ps_input_clear(in);
    /* JSON escapes take up to 6 bytes per byte of page (\u00XX) */
    size_t max_line = j->max_bytes > (SIZE_MAX - 65536) / 6 ? SIZE_MAX : j->max_bytes * 6 + 65536;
    if (j->done)
        return 0;
    int r;
    do {
        j->line.len = 0;
        r = ps_instream_getline(j->s, &j->line, max_line);
        j->lineno++;
    } while (r == 1 && blank(j->line.data, j->line.len));
    if (r == 0)
        return 0;
    ps_buf origin = {0}; /* the file's whole name: a path may be long */
    if (ps_buf_printf(&origin, "%s line %zu", j->name, j->lineno)) {
        ps_buf_free(&origin);
        goto nomem;
    }
    in->origin = ps_buf_take(&origin, NULL);
    if (r == -1) { /* read error or corrupt gzip: the stream is done */
        j->done = 1;
        ps_input_fail(in, PS_ERR_IO, "%s: %s", in->origin, ps_instream_error(j->s));
        if (!(in->id = line_id(j, 0)))
            goto nomem;
        return 1;
    }
    if (r == -2) {
        if (!(in->id = line_id(j, j->lineno)))
            goto nomem;
        ps_input_fail(in, PS_ERR_TOO_LARGE, "%s: line longer than %zu bytes", in->origin, max_line);
        return 1;
    }
    json_error_t jerr;
    json_t *obj = json_loadb(j->line.data, j->line.len, JSON_ALLOW_NUL, &jerr);
    if (!obj) {
        if (!(in->id = line_id(j, j->lineno)))
            goto nomem;
        ps_input_fail(in, PS_ERR_FORMAT, "%s: invalid JSON: %s (column %d)", in->origin, jerr.text, jerr.column);
        return 1;
    }
    int fr = fill_record(j, obj, in);
    json_decref(obj);
    if (fr == 0)
        return 1;
nomem:
    ps_input_clear(in);
    return ps_set_error(err, PS_ERR_NOMEM, "%s line %zu: out of memory", j->name, j->lineno);
}
