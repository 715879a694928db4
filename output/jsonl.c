/* output/jsonl.c — `pagesift --format jsonl`: one JSON object per page and
 * line, the schema of docs/JSONL.md (id, url, site, the metadata, text,
 * blocks kept/removed, status, error, charset, origin, model, page type,
 * the HTTP status and final URL of a fetched page; absent values null),
 * with a JSON string writer that never emits invalid UTF-8. */
#include <stdio.h>
#include <string.h>

#include "output/output.h"

/* Length of a valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        k = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        k = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        k = 4, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    unsigned cp = c & (0x3F >> (k - 1));
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

int ps_json_string(ps_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (ps_buf_reserve(b, n + n / 8 + 2) != 0 || ps_buf_putc(b, '"') != 0)
        return -1;
    size_t i = 0, run = 0; /* run: bytes copied verbatim, pending */
    while (i < n) {
        unsigned char c = s[i];
        const char *esc = NULL;
        char ubuf[8];
        size_t adv = 1;
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            run++;
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = utf8_seq(s + i, n - i);
            if (k) {
                run += k;
                i += k;
                continue;
            }
            esc = "\\ufffd";
        } else if (c == '"') {
            esc = "\\\"";
        } else if (c == '\\') {
            esc = "\\\\";
        } else if (c == '\n') {
            esc = "\\n";
        } else if (c == '\t') {
            esc = "\\t";
        } else if (c == '\r') {
            esc = "\\r";
        } else {
            snprintf(ubuf, sizeof ubuf, "\\u%04x", c);
            esc = ubuf;
        }
        if (ps_buf_append(b, s + i - run, run) != 0 || ps_buf_append(b, esc, strlen(esc)) != 0)
            return -1;
        run = 0;
        i += adv;
    }
    if (ps_buf_append(b, s + i - run, run) != 0)
        return -1;
    return ps_buf_putc(b, '"');
}

static int field(ps_buf *b, const char *name, const char *value, int *first)
{
    if (ps_buf_printf(b, "%s\"%s\":", *first ? "" : ",", name) != 0)
        return -1;
    *first = 0;
    if (!value)
        return ps_buf_append(b, "null", 4);
    return ps_json_string(b, value, strlen(value));
}

static int list_field(ps_buf *b, const char *name, char *const *items, size_t n)
{
    if (ps_buf_printf(b, ",\"%s\":", name) != 0)
        return -1;
    if (!n)
        return ps_buf_append(b, "null", 4);
    if (ps_buf_putc(b, '[') != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((i && ps_buf_putc(b, ',') != 0) || ps_json_string(b, items[i], strlen(items[i])) != 0)
            return -1;
    return ps_buf_putc(b, ']');
}

/* Append @p r as one JSON line ('\n'-ended): the schema of docs/JSONL.md,
 *  absent values null. */
static int ps_record_jsonl(ps_buf *b, const ps_record *r)
{
    int first = 1;
    const ps_metadata *m = r->meta;
    /* absent is null, never "" */
    const char *url = r->url && *r->url ? r->url : NULL;
    if (ps_buf_putc(b, '{') != 0 || field(b, "id", r->id ? r->id : "", &first) != 0 ||
        field(b, "url", url, &first) != 0 || field(b, "site", r->site, &first) != 0)
        return -1;
    for (size_t i = 0; i < ps_meta_n_fields; i++) { /* the metadata, in its table's order */
        const ps_meta_field *f = &ps_meta_fields[i];
        int rc;
        if (f->kind == PS_META_TEXT) {
            rc = field(b, f->name, ps_record_meta_text(r, f), &first);
        } else if (f->kind == PS_META_LIST) {
            size_t n = 0;
            char *const *items = m ? ps_meta_list(m, f, &n) : NULL;
            rc = list_field(b, f->name, items, n);
        } else {
            char num[32];
            const char *v = m ? ps_meta_share(m, f, num, sizeof num) : NULL;
            rc = ps_buf_printf(b, ",\"%s\":%s", f->name, v ? v : "null");
        }
        if (rc != 0)
            return -1;
    }
    if (ps_buf_append(b, ",\"text\":", 8) != 0)
        return -1;
    if (r->text ? ps_json_string(b, r->text, r->text_len) != 0 : ps_buf_append(b, "null", 4) != 0)
        return -1;
    if (ps_buf_printf(b, ",\"blocks_kept\":%u,\"blocks_removed\":%u", (unsigned)r->blocks_kept,
                      (unsigned)r->blocks_removed) != 0)
        return -1;
    if (field(b, "status", r->status, &first) != 0 || field(b, "error", r->error, &first) != 0)
        return -1;
    if (field(b, "charset", r->charset, &first) != 0 || field(b, "origin", r->origin, &first) != 0 ||
        field(b, "model", r->model, &first) != 0 || field(b, "page_type", r->page_type, &first) != 0)
        return -1;
    if (r->page_type ? ps_buf_printf(b, ",\"page_type_prob\":%.3f", r->page_type_prob)
                     : ps_buf_append(b, ",\"page_type_prob\":null", 22))
        return -1;
    /* fetched pages (docs/FETCH.md); null for every other input */
    if (r->http_status ? ps_buf_printf(b, ",\"http_status\":%d", r->http_status)
                       : ps_buf_append(b, ",\"http_status\":null", 19))
        return -1;
    if (field(b, "final_url", r->final_url, &first) != 0)
        return -1;
    /* --dedup: a duplicate's kept page (docs/EXTRACTION.md) */
    if (field(b, "duplicate_of", r->duplicate_of, &first) != 0 ||
        field(b, "duplicate_of_url", r->duplicate_of_url, &first) != 0 ||
        (r->duplicate_of ? ps_buf_printf(b, ",\"duplicate_distance\":%d", r->duplicate_distance)
                         : ps_buf_append(b, ",\"duplicate_distance\":null", 26)))
        return -1;
    return ps_buf_append(b, "}\n", 2);
}

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    if (ps_record_jsonl(out, p->rec) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

/* JSON string of @p s into dst (at most cap bytes, quotes included), for
 * the record of last resort below (no allocation). */
static void json_str(char *dst, size_t cap, const char *s)
{
    size_t k = 0;
    dst[k++] = '"';
    for (; s && *s && k + 8 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            dst[k++] = '\\';
            dst[k++] = (char)ch;
        } else if (ch < 0x20) {
            k += (size_t)snprintf(dst + k, cap - k, "\\u%04x", ch);
        } else {
            dst[k++] = (char)ch;
        }
    }
    dst[k++] = '"';
    dst[k] = '\0';
}

static void last_resort(const ps_out_page *p, char *buf, size_t cap)
{
    char jid[600], jmsg[1200];
    json_str(jid, sizeof jid, p->rec->id ? p->rec->id : "");
    json_str(jmsg, sizeof jmsg, p->rec->error);
    snprintf(buf, cap, "{\"id\":%s,\"status\":\"failed\",\"error\":%s}\n", jid, jmsg);
}

const ps_output_format ps_output_jsonl = {
    .name = "jsonl",
    .extension = ".json",
    .summary = "one JSON object per page and line: the metadata, text, status, error; a failed "
               "page is a record too (docs/JSONL.md)",
    .flags = PS_OUT_METADATA | PS_OUT_RECORDS,
    .render = render,
    .last_resort = last_resort,
};
