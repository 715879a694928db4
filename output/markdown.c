/* output/markdown.c — `pagesift --format markdown`: the kept content with its
 * structure (output/structure.c's tree) as CommonMark with GitHub tables. */
#include <stdio.h>
#include <string.h>

#include "output/structure.h"

typedef struct writer {
    unsigned flags;
    int oom;
} writer;

static void md_escape(ps_buf *o, const char *s, int in_table)
{
    for (; *s; s++) {
        char c = *s;
        if (c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']' || c == '<' ||
            (c == '|' && in_table))
            ps_buf_putc(o, '\\');
        ps_buf_putc(o, c);
    }
}

static void md_inline(writer *w, const snode *n, ps_buf *o, int in_table);

/* Inline content of a wrapper (bold, italic, link text), trimmed, with the
 * white space it had at either end put outside the marks. */
static void md_wrapped(writer *w, const snode *n, ps_buf *o, const char *open, const char *close,
                       int in_table)
{
    ps_buf in = {0};
    md_inline(w, n->kids, &in, in_table);
    size_t a = 0, e = in.len;
    while (a < e && in.data[a] == ' ')
        a++;
    while (e > a && in.data[e - 1] == ' ')
        e--;
    if (a > 0)
        ps_buf_putc(o, ' ');
    if (e > a) {
        ps_buf_append(o, open, strlen(open));
        ps_buf_append(o, in.data + a, e - a);
        ps_buf_append(o, close, strlen(close));
    }
    if (in.len > e)
        ps_buf_putc(o, ' ');
    ps_buf_free(&in);
}

static void md_inline(writer *w, const snode *n, ps_buf *o, int in_table)
{
    for (; n; n = n->next) {
        switch (n->t) {
        case N_TEXT: md_escape(o, n->text, in_table); break;
        case N_BR:
            if (in_table)
                ps_buf_putc(o, ' ');
            else
                ps_buf_append(o, "\\\n", 2);
            break;
        case N_B: md_wrapped(w, n, o, "**", "**", in_table); break;
        case N_I: md_wrapped(w, n, o, "*", "*", in_table); break;
        case N_CODE: {
            ps_buf in = {0};
            for (const snode *k = n->kids; k; k = k->next)
                if (k->t == N_TEXT)
                    ps_buf_append(&in, k->text, strlen(k->text));
            if (in.len) {
                int tick = in.data && strchr(in.data, '`') != NULL;
                ps_buf_append(o, tick ? "`` " : "`", tick ? 3 : 1);
                ps_buf_append(o, in.data, in.len);
                ps_buf_append(o, tick ? " ``" : "`", tick ? 3 : 1);
            }
            ps_buf_free(&in);
            break;
        }
        case N_LINK: {
            ps_buf in = {0};
            md_inline(w, n->kids, &in, in_table);
            ps_buf_printf(o, "[%s](<%s>)", in.data ? in.data : "", n->href ? n->href : "");
            ps_buf_free(&in);
            break;
        }
        case N_IMG:
            ps_buf_append(o, "![", 2);
            md_escape(o, n->alt ? n->alt : "", in_table);
            ps_buf_printf(o, "](<%s>)", n->href ? n->href : "");
            break;
        default: break;
        }
    }
}

/* A paragraph's inline text: spaces collapsed and trimmed per line, and a
 * line that would start a Markdown block escaped. */
static void md_line_fix(ps_buf *o, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t t = e;
        while (t > i && s[t - 1] == ' ')
            t--;
        /* block starts: # > - + = ~ and "12." "12)" */
        if (t > i) {
            char c = s[i];
            if (c == '#' || c == '>' || c == '-' || c == '+' || c == '=' || c == '~')
                ps_buf_putc(o, '\\');
            else if (c >= '0' && c <= '9') {
                size_t d = i;
                while (d < t && s[d] >= '0' && s[d] <= '9')
                    d++;
                if (d < t && (s[d] == '.' || s[d] == ')')) {
                    ps_buf_append(o, s + i, d - i);
                    ps_buf_putc(o, '\\');
                    i = d;
                }
            }
        }
        /* collapse inner double spaces */
        for (size_t k = i; k < t; k++)
            if (!(s[k] == ' ' && k > i && s[k - 1] == ' '))
                ps_buf_putc(o, s[k]);
        if (e < n)
            ps_buf_putc(o, '\n');
        i = e + 1;
    }
}

static void md_blocks(writer *w, const snode *n, ps_buf *o, int tight);

/* Append @p s with every line after the first indented by @p ind spaces
 * (or prefixed with @p prefix for quotes). */
static void indent_into(ps_buf *o, const char *s, size_t n, const char *first, const char *rest)
{
    ps_buf_append(o, first, strlen(first));
    for (size_t i = 0; i < n; i++) {
        ps_buf_putc(o, s[i]);
        if (s[i] == '\n' && i + 1 < n) {
            if (s[i + 1] == '\n' && rest[0] == ' ')
                continue; /* blank lines stay blank */
            ps_buf_append(o, rest, strlen(rest));
        }
    }
}

static void md_table(writer *w, const snode *tab, ps_buf *o)
{
    size_t cols = 0, rows = 0;
    for (const snode *r = tab->kids; r; r = r->next) {
        if (r->t != N_TR || !ps_tree_has_content(r->kids))
            continue;
        size_t c = 0;
        for (const snode *d = r->kids; d; d = d->next)
            c += d->t == N_TD || d->t == N_TH;
        if (c > cols)
            cols = c;
        rows++;
    }
    if (!cols || !rows)
        return;
    int header_done = 0;
    for (const snode *r = tab->kids; r; r = r->next) {
        if (r->t != N_TR || !ps_tree_has_content(r->kids))
            continue;
        size_t c = 0;
        ps_buf_putc(o, '|');
        for (const snode *d = r->kids; d; d = d->next) {
            if (d->t != N_TD && d->t != N_TH)
                continue;
            ps_buf cell = {0}, fixed = {0};
            md_inline(w, d->kids, &cell, 1);
            for (size_t k = 0; k < cell.len; k++)
                if (cell.data[k] == '\n')
                    cell.data[k] = ' ';
            md_line_fix(&fixed, cell.data ? cell.data : "", cell.len);
            ps_buf_putc(o, ' ');
            ps_buf_append(o, fixed.data ? fixed.data : "", fixed.len);
            ps_buf_append(o, " |", 2);
            ps_buf_free(&cell);
            ps_buf_free(&fixed);
            c++;
        }
        for (; c < cols; c++)
            ps_buf_append(o, "  |", 3);
        ps_buf_putc(o, '\n');
        if (!header_done) {
            ps_buf_putc(o, '|');
            for (size_t k = 0; k < cols; k++)
                ps_buf_append(o, " --- |", 6);
            ps_buf_putc(o, '\n');
            header_done = 1;
        }
    }
    if (o->len && o->data[o->len - 1] == '\n')
        o->len--;
}

/* One block into @p o (no trailing newline); 0 when it had no content. */
static int md_block(writer *w, const snode *n, ps_buf *o)
{
    if (!ps_tree_has_content(n->t == N_PRE ? n : n->kids) && n->t != N_PRE)
        return 0;
    switch (n->t) {
    case N_H:
    case N_P: {
        ps_buf in = {0};
        md_inline(w, n->kids, &in, 0);
        if (n->t == N_H) {
            for (size_t k = 0; k < in.len; k++)
                if (in.data[k] == '\n')
                    in.data[k] = ' ';
            for (int k = 0; k < n->level; k++)
                ps_buf_putc(o, '#');
            ps_buf_putc(o, ' ');
        }
        md_line_fix(o, in.data ? in.data : "", in.len);
        while (o->len && (o->data[o->len - 1] == '\n' || o->data[o->len - 1] == '\\'))
            o->len--;
        ps_buf_free(&in);
        return 1;
    }
    case N_PRE: {
        if (!n->text || !*n->text)
            return 0;
        const char *fence = strstr(n->text, "```") ? "~~~~" : "```";
        ps_buf_printf(o, "%s\n", fence);
        size_t l = strlen(n->text);
        while (l && n->text[l - 1] == '\n')
            l--;
        ps_buf_append(o, n->text, l);
        ps_buf_printf(o, "\n%s", fence);
        return 1;
    }
    case N_UL:
    case N_OL: {
        int k = 1, any = 0;
        for (const snode *li = n->kids; li; li = li->next) {
            if (!ps_tree_has_content(li->kids))
                continue;
            ps_buf item = {0};
            md_blocks(w, li->kids, &item, 1);
            char mark[16];
            if (n->t == N_UL)
                snprintf(mark, sizeof mark, "- ");
            else
                snprintf(mark, sizeof mark, "%d. ", k);
            char pad[16];
            memset(pad, ' ', strlen(mark));
            pad[strlen(mark)] = '\0';
            if (any)
                ps_buf_putc(o, '\n');
            indent_into(o, item.data ? item.data : "", item.len, mark, pad);
            ps_buf_free(&item);
            k++;
            any = 1;
        }
        return any;
    }
    case N_QUOTE: {
        ps_buf in = {0};
        md_blocks(w, n->kids, &in, 0);
        ps_buf q = {0};
        indent_into(&q, in.data ? in.data : "", in.len, "> ", "> ");
        /* "> " on an empty line -> ">" */
        for (size_t i = 0; i < q.len; i++) {
            if (q.data[i] == ' ' && i > 0 && q.data[i - 1] == '>' && (i + 1 == q.len || q.data[i + 1] == '\n'))
                continue;
            ps_buf_putc(o, q.data[i]);
        }
        ps_buf_free(&in);
        ps_buf_free(&q);
        return 1;
    }
    case N_TABLE: {
        size_t before = o->len;
        md_table(w, n, o);
        return o->len > before;
    }
    case N_LI:
    case N_DOC:
        md_blocks(w, n->kids, o, 0);
        return 1;
    default: return 0;
    }
}

/* Blocks separated by blank lines; the blocks of a list item that is only
 * a paragraph and a nested list are kept tight. */
static void md_blocks(writer *w, const snode *n, ps_buf *o, int tight)
{
    int any = 0;
    for (; n; n = n->next) {
        ps_buf one = {0};
        if (md_block(w, n, &one) && one.len) {
            if (any && tight && (n->t == N_UL || n->t == N_OL))
                ps_buf_putc(o, '\n');
            else if (any)
                ps_buf_append(o, "\n\n", 2);
            ps_buf_append(o, one.data, one.len);
            any = 1;
        }
        ps_buf_free(&one);
    }
}

void ps_write_markdown(const ps_tree_doc *doc, ps_buf *o)
{
    writer w = {.flags = doc->flags};
    size_t start = o->len;
    md_blocks(&w, doc->blocks, o, 0);
    if (o->len > start)
        ps_buf_putc(o, '\n');
}

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    return ps_tree_render_page(p, ps_write_markdown, PS_TREE_BLANK_AFTER | PS_TREE_FRONT_MATTER, out, err);
}

const ps_output_format ps_output_markdown = {
    .name = "markdown",
    .alias = "md",
    .extension = ".md",
    .summary = "the kept content with headings, lists, quotes, code and tables (CommonMark, "
               "GitHub tables); also -f md",
    .flags = PS_OUT_TREE,
    .render = render,
};
