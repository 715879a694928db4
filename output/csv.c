/* output/csv.c — `pagesift --format csv`: one row per page under a header
 * row, RFC 4180 (every field quoted by libcsv, quotes doubled, rows ended by
 * CRLF; a field may hold line breaks): the fields of the JSON Lines record
 * (docs/JSONL.md) in its order, the metadata from its table
 * (extract/meta_fields.h), the text last.  An absent value is an empty
 * field; categories and tags are joined with ','; a failed page is a row
 * with status "failed" and its error. */
#include <stdio.h>
#include <string.h>

#include <csv.h>

#include "output/output.h"

/* The columns: these, the metadata fields (extract/meta_fields.h), then the
 * rest of the record, text last. */
static const char *const before[] = {"id", "url", "site"};
static const char *const after[] = {"blocks_kept", "blocks_removed", "status", "error", "charset", "origin",
                                    "model", "page_type", "page_type_prob", "http_status", "final_url", "duplicate_of", "duplicate_of_url",
                                    "duplicate_distance", "text"};
enum { N_BEFORE = sizeof before / sizeof *before, N_AFTER = sizeof after / sizeof *after };

static size_t n_columns(void)
{
    return N_BEFORE + ps_meta_n_fields + N_AFTER;
}

static const char *column(size_t i)
{
    if (i < N_BEFORE)
        return before[i];
    if (i < N_BEFORE + ps_meta_n_fields)
        return ps_meta_fields[i - N_BEFORE].name;
    return after[i - N_BEFORE - ps_meta_n_fields];
}

/* One field, quoted, after a comma unless it is the row's first. */
static int field(ps_buf *b, const char *s, size_t n, int first)
{
    if (!first && ps_buf_putc(b, ',') != 0)
        return -1;
    if (!s)
        s = "", n = 0;
    size_t need = csv_write(NULL, 0, s, n);
    if (ps_buf_reserve(b, need + 1) != 0)
        return -1;
    csv_write(b->data + b->len, need, s, n);
    b->len += need;
    b->data[b->len] = '\0';
    return 0;
}

/* A NUL-terminated field after a comma (NULL: empty). */
static int str_field(ps_buf *b, const char *s)
{
    return field(b, s, s ? strlen(s) : 0, 0);
}

static int head(ps_buf *out)
{
    for (size_t i = 0; i < n_columns(); i++)
        if (field(out, column(i), strlen(column(i)), i == 0) != 0)
            return -1;
    return ps_buf_append(out, "\r\n", 2);
}

/* A list as one field: its items joined with ','. */
static int list_field(ps_buf *b, char *const *items, size_t n)
{
    ps_buf j = {0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = (i && ps_buf_putc(&j, ',') != 0) || ps_buf_append(&j, items[i], strlen(items[i])) != 0;
    rc = rc || field(b, j.data, j.len, 0) != 0;
    ps_buf_free(&j);
    return rc ? -1 : 0;
}

/* The metadata fields, in their table's order. */
static int meta_fields(ps_buf *out, const ps_record *r)
{
    const ps_metadata *m = r->meta;
    for (size_t i = 0; i < ps_meta_n_fields; i++) {
        const ps_meta_field *f = &ps_meta_fields[i];
        char num[32];
        size_t n = 0;
        char *const *items = f->kind == PS_META_LIST && m ? ps_meta_list(m, f, &n) : NULL;
        int rc = f->kind == PS_META_TEXT   ? str_field(out, ps_record_meta_text(r, f))
                 : f->kind == PS_META_LIST ? list_field(out, items, n)
                                           : str_field(out, m ? ps_meta_share(m, f, num, sizeof num) : NULL);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    const ps_record *r = p->rec;
    char kept[16], removed[16], prob[16] = "", http[16] = "", dist[16] = "";
    snprintf(kept, sizeof kept, "%u", (unsigned)r->blocks_kept);
    snprintf(removed, sizeof removed, "%u", (unsigned)r->blocks_removed);
    if (r->page_type)
        snprintf(prob, sizeof prob, "%.3f", r->page_type_prob);
    if (r->http_status)
        snprintf(http, sizeof http, "%d", r->http_status);
    if (r->duplicate_of)
        snprintf(dist, sizeof dist, "%d", r->duplicate_distance);
#define F(s) (str_field(out, s) != 0)
    int bad = field(out, r->id, r->id ? strlen(r->id) : 0, 1) != 0 || F(r->url) || F(r->site) ||
              meta_fields(out, r) != 0 || F(kept) || F(removed) || F(r->status) || F(r->error) ||
              F(r->charset) || F(r->origin) || F(r->model) || F(r->page_type) || F(prob) || F(http) ||
              F(r->final_url) || F(r->duplicate_of) || F(r->duplicate_of_url) || F(dist) || field(out, r->text, r->text ? r->text_len : 0, 0) != 0 ||
              ps_buf_append(out, "\r\n", 2) != 0;
#undef F
    return bad ? ps_set_error(err, PS_ERR_NOMEM, "out of memory") : 0;
}

/* A row with the id, status "failed" and the error, the other fields
 * empty, written into buf without allocating (cut short to fit). */
static void last_resort(const ps_out_page *p, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n_columns(); i++) {
        const char *v = !strcmp(column(i), "id")       ? p->rec->id
                        : !strcmp(column(i), "status") ? "failed"
                        : !strcmp(column(i), "error")  ? p->rec->error
                                                       : "";
        size_t n = v ? strlen(v) : 0;
        if (n > 800)
            n = 800;
        if (k + (i > 0) + csv_write(NULL, 0, v ? v : "", n) + 3 > cap)
            break;
        if (i)
            buf[k++] = ',';
        k += csv_write(buf + k, cap - k, v ? v : "", n);
    }
    if (k + 3 > cap)
        k = cap - 3;
    memcpy(buf + k, "\r\n", 3);
}

const ps_output_format ps_output_csv = {
    .name = "csv",
    .extension = ".csv",
    .summary = "one row per page under a header row (RFC 4180): the JSON Lines record's fields, "
               "text last (docs/CSV.md)",
    .flags = PS_OUT_METADATA | PS_OUT_RECORDS,
    .render = render,
    .head = head,
    .last_resort = last_resort,
};
