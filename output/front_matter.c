/* output/front_matter.c — `--with-metadata` for the text and Markdown
 * formats: a YAML front matter block before the page's text (the habit of
 * static-site generators and of trafilatura's users):
 *
 *     ---
 *     id: "0001"
 *     url: "https://example.org/a"
 *     title: "River bank plan approved"
 *     tags: ["local", "river"]
 *     ---
 *
 * The fields are those of the JSON Lines record's metadata (the one table
 * of extract/meta_fields.h), then page_type; absent ones are left out.
 * Every string is written as a JSON string by jansson, which is a YAML
 * double-quoted scalar (YAML 1.2 is a superset of JSON), so no character of
 * a title can break the block. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "extract/meta_fields.h"
#include "output/output.h"

/* "key: <JSON of s>\n"; a string that is not UTF-8 (json_string refuses
 * it) is left out. */
static int put_string(ps_buf *out, const char *key, const char *s)
{
    json_t *j = json_string(s);
    if (!j)
        return 0;
    char *q = json_dumps(j, JSON_ENCODE_ANY);
    json_decref(j);
    if (!q)
        return -1;
    int rc = ps_buf_printf(out, "%s: %s\n", key, q);
    free(q);
    return rc;
}

int ps_front_matter(const ps_out_page *p, ps_buf *out)
{
    const ps_record *r = p->rec;
    const ps_metadata *m = p->meta;
    int rc = ps_buf_printf(out, "---\n");
    if (rc == 0 && r->id && *r->id)
        rc = put_string(out, "id", r->id);
    if (rc == 0 && r->url && *r->url)
        rc = put_string(out, "url", r->url);
    for (size_t i = 0; m && rc == 0 && i < ps_meta_n_fields; i++) {
        const ps_meta_field *f = &ps_meta_fields[i];
        if (f->kind == PS_META_TEXT) {
            const char *s = ps_meta_text(m, f);
            if (s && *s)
                rc = put_string(out, f->name, s);
        } else if (f->kind == PS_META_LIST) {
            size_t n;
            char *const *v = ps_meta_list(m, f, &n);
            if (!n)
                continue;
            json_t *a = json_array();
            for (size_t k = 0; a && k < n; k++)
                json_array_append_new(a, json_string(v[k])); /* invalid UTF-8: NULL, not appended */
            char *q = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
            json_decref(a);
            rc = q ? ps_buf_printf(out, "%s: %s\n", f->name, q) : -1;
            free(q);
        } else {
            char buf[16];
            const char *s = ps_meta_share(m, f, buf, sizeof buf);
            if (s)
                rc = ps_buf_printf(out, "%s: %s\n", f->name, s);
        }
    }
    if (rc == 0 && r->page_type)
        rc = put_string(out, "page_type", r->page_type);
    if (rc == 0)
        rc = ps_buf_printf(out, "---\n");
    return rc;
}
