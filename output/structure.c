/* methods/structure.c — the kept content of a page with its structure, as
 * Markdown, XML or clean HTML (ps_render, include/pagesift.h).
 *
 * The leaves the extractor keeps (ps_extraction.leaf_kept) are marked in
 * the DOM with their ancestors; a walk over the marked part of the body
 * builds a small tree — headings, paragraphs, lists, quotes, code blocks,
 * tables, and inside them text, links, emphasis, line breaks and images —
 * and three writers serialise it.  Text of a leaf that was not kept (a
 * caption, a share bar inside the article) never appears; an image appears
 * when the element holding it holds kept content.  A method that does not
 * report leaves (the line-based baselines) gets its text as paragraphs. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/uri.h>

#include "extract/page_internal.h"
#include "methods/batch.h"

/* ---- the tree ----------------------------------------------------------- */

typedef enum ntype {
    N_DOC, N_H, N_P, N_UL, N_OL, N_LI, N_QUOTE, N_PRE, N_TABLE, N_TR, N_TD, N_TH,
    N_TEXT, N_LINK, N_IMG, N_BR, N_B, N_I, N_CODE
} ntype;

typedef struct snode {
    ntype t;
    int level;          /* heading level */
    char *text;         /* N_TEXT, N_PRE */
    char *href;         /* N_LINK, N_IMG (src) */
    char *alt;          /* N_IMG */
    struct snode *kids, *last, *next;
} snode;

static int is_inline(ntype t)
{
    return t >= N_TEXT;
}

static snode *node_new(snode *parent, ntype t)
{
    snode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->t = t;
    if (parent) {
        if (parent->last)
            parent->last->next = n;
        else
            parent->kids = n;
        parent->last = n;
    }
    return n;
}

static void node_free(snode *n)
{
    while (n) {
        snode *nx = n->next;
        node_free(n->kids);
        free(n->text);
        free(n->href);
        free(n->alt);
        free(n);
        n = nx;
    }
}

/* ---- building from the DOM ---------------------------------------------- */

enum { MARK_HAS = 1, MARK_LEAF = 2 };

typedef struct builder {
    const ps_page *pg;
    unsigned flags;
    int oom;
    int depth;
} builder;

static unsigned mark_of(xmlNodePtr n)
{
    return (unsigned)(uintptr_t)n->_private;
}

static const char *attr(xmlNodePtr n, const char *name)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (a->name && strcmp((const char *)a->name, name) == 0)
            return a->children && a->children->content ? (const char *)a->children->content : "";
    return NULL;
}

static char *abs_url(const ps_page *pg, const char *href)
{
    if (!href || !*href)
        return NULL;
    if (pg->url && *pg->url && strncmp(href, "http", 4) != 0) {
        xmlChar *u = xmlBuildURI((const xmlChar *)href, (const xmlChar *)pg->url);
        if (u) {
            char *s = strdup((const char *)u);
            xmlFree(u);
            return s;
        }
    }
    return strdup(href);
}

/* The open paragraph of a block container, where inline content goes: its
 * last child when that is an implicit paragraph, else a new one. */
static snode *inline_target(builder *b, snode *box)
{
    if (box->t == N_H || box->t == N_P || box->t == N_TD || box->t == N_TH || is_inline(box->t))
        return box;
    if (box->last && box->last->t == N_P && box->last->level == -1)
        return box->last;
    snode *p = node_new(box, N_P);
    if (!p) {
        b->oom = 1;
        return NULL;
    }
    p->level = -1; /* implicit: closed by the next block */
    return p;
}

static void close_para(snode *box)
{
    if (box->last && box->last->t == N_P && box->last->level == -1)
        box->last->level = 0;
}

static void add_text(builder *b, snode *box, const char *s)
{
    snode *tgt = inline_target(b, box);
    if (!tgt)
        return;
    /* collapse: a run of white space becomes one space */
    size_t n = strlen(s);
    char *t = malloc(n + 1);
    if (!t) {
        b->oom = 1;
        return;
    }
    size_t k = 0;
    int sp = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            sp = 1;
            continue;
        }
        if (sp)
            t[k++] = ' ';
        sp = 0;
        t[k++] = (char)c;
    }
    if (sp)
        t[k++] = ' ';
    t[k] = '\0';
    if (!k) {
        free(t);
        return;
    }
    snode *x = node_new(tgt, N_TEXT);
    if (!x) {
        free(t);
        b->oom = 1;
        return;
    }
    x->text = t;
}

static void build(builder *b, snode *box, xmlNodePtr dom, int owner_kept, int in_pre);

/* 1 when no text below @p n but white space. */
static int no_text(xmlNodePtr n)
{
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (c->type == XML_TEXT_NODE && c->content) {
            for (const xmlChar *p = c->content; *p; p++)
                if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '\f')
                    return 0;
        } else if (c->type == XML_ELEMENT_NODE && !no_text(c)) {
            return 0;
        }
    }
    return 1;
}

/* Raw text of a <pre> that is kept. */
static void pre_text(xmlNodePtr n, ps_buf *out)
{
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
            ps_buf_append(out, c->content, strlen((const char *)c->content));
        else if (c->type == XML_ELEMENT_NODE) {
            if (strcmp((const char *)c->name, "br") == 0)
                ps_buf_putc(out, '\n');
            else
                pre_text(c, out);
        }
    }
}

static void element(builder *b, snode *box, xmlNodePtr c, int owner_kept)
{
    const char *name = (const char *)c->name;
    unsigned kind = ps_tag_kind(name);
    unsigned f = mark_of(c);
    if (kind & PS_TAG_REMOVE)
        return;
    if (strcmp(name, "img") == 0) {
        if ((b->flags & PS_RENDER_IMAGES) && attr(c, "src") && *attr(c, "src")) {
            snode *tgt = inline_target(b, box);
            snode *im = tgt ? node_new(tgt, N_IMG) : NULL;
            if (!im) {
                b->oom = 1;
                return;
            }
            im->href = abs_url(b->pg, attr(c, "src"));
            const char *alt = attr(c, "alt");
            im->alt = strdup(alt ? alt : "");
        }
        return;
    }
    if (strcmp(name, "br") == 0) {
        if (owner_kept && box->last) {
            snode *tgt = inline_target(b, box);
            if (tgt && !node_new(tgt, N_BR))
                b->oom = 1;
        }
        return;
    }
    /* an article's figure is a block of its own for the extractor, which
     * drops its caption: with --images its image still comes with the
     * content around it */
    int figure = (kind & PS_TAG_FIGURE) && (b->flags & PS_RENDER_IMAGES) && c->parent &&
                 (mark_of(c->parent) & MARK_HAS);
    if (!(f & MARK_HAS) && !((kind & PS_TAG_TRANSPARENT) && owner_kept) && !figure) {
        /* nothing kept below (a formatting tag has its owner's); but an
         * empty cell of a row keeps its place, so the columns stay in line
         * (a comparison table's blank top-left header) */
        int cell = box->t == N_TR && (strcmp(name, "td") == 0 || strcmp(name, "th") == 0);
        if (cell && no_text(c) && !node_new(box, name[1] == 'h' ? N_TH : N_TD))
            b->oom = 1;
        return;
    }
    if (strcmp(name, "figcaption") == 0 && !(b->flags & PS_RENDER_IMAGES))
        return; /* a caption goes with its image, or not at all */
    int kept = (kind & PS_TAG_TRANSPARENT) ? owner_kept : (f & MARK_LEAF) != 0;
    ntype t = N_DOC;
    int level = 0;
    if (name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && !name[2])
        t = N_H, level = name[1] - '0';
    else if (strcmp(name, "p") == 0 || strcmp(name, "dt") == 0 || strcmp(name, "dd") == 0 ||
             strcmp(name, "figcaption") == 0 || strcmp(name, "address") == 0 ||
             strcmp(name, "caption") == 0)
        t = N_P;
    else if (strcmp(name, "ul") == 0 || strcmp(name, "menu") == 0)
        t = N_UL;
    else if (strcmp(name, "ol") == 0)
        t = N_OL;
    else if (strcmp(name, "li") == 0)
        t = N_LI;
    else if (strcmp(name, "blockquote") == 0)
        t = N_QUOTE;
    else if (strcmp(name, "pre") == 0)
        t = N_PRE;
    else if (strcmp(name, "table") == 0)
        t = N_TABLE;
    else if (strcmp(name, "tr") == 0)
        t = N_TR;
    else if (strcmp(name, "td") == 0)
        t = N_TD;
    else if (strcmp(name, "th") == 0)
        t = N_TH;
    else if (strcmp(name, "a") == 0 && (b->flags & PS_RENDER_LINKS) && attr(c, "href") &&
             strncmp(attr(c, "href"), "javascript:", 11) != 0 && attr(c, "href")[0] != '#')
        t = N_LINK;
    else if (strcmp(name, "b") == 0 || strcmp(name, "strong") == 0)
        t = N_B;
    else if (strcmp(name, "i") == 0 || strcmp(name, "em") == 0)
        t = N_I;
    else if (strcmp(name, "code") == 0 || strcmp(name, "kbd") == 0 || strcmp(name, "samp") == 0 ||
             strcmp(name, "tt") == 0)
        t = N_CODE;

    /* structure that does not fit where it stands is flattened: a list item
     * outside a list, a cell outside a row, a block inside a paragraph */
    int box_inline = box->t == N_H || box->t == N_P || box->t == N_TD || box->t == N_TH ||
                     is_inline(box->t);
    if (t == N_LI && box->t != N_UL && box->t != N_OL)
        t = N_P;
    if ((t == N_TD || t == N_TH) && box->t != N_TR)
        t = N_DOC;
    if (t == N_TR && box->t != N_TABLE)
        t = N_DOC;
    if (box->t == N_TABLE && t != N_TR)
        t = N_DOC; /* thead, tbody, tfoot: their rows go to the table */
    if (box->t == N_UL || box->t == N_OL) {
        if (t != N_LI) /* stray content in a list: an item of its own */
            t = N_LI;
    }
    if (box_inline && !is_inline(t))
        t = N_DOC;

    if (t == N_DOC) { /* a container: its content goes where it stands */
        if ((kind & PS_TAG_BREAK) && !box_inline && box->t != N_TABLE && box->t != N_TR)
            close_para(box);
        build(b, box, c, kept, 0);
        if ((kind & PS_TAG_BREAK) && !box_inline && box->t != N_TABLE && box->t != N_TR)
            close_para(box);
        else if ((kind & PS_TAG_BREAK) && box_inline && box->kids) {
            /* a block inside a heading or cell: a space keeps words apart */
            snode *sp = node_new(box, N_TEXT);
            if (!sp || !(sp->text = strdup(" ")))
                b->oom = 1;
        }
        return;
    }
    snode *parent = box;
    if (is_inline(t)) {
        parent = inline_target(b, box);
        if (!parent)
            return;
    } else {
        close_para(box);
    }
    snode *n = node_new(parent, t);
    if (!n) {
        b->oom = 1;
        return;
    }
    n->level = level;
    if (t == N_LINK)
        n->href = abs_url(b->pg, attr(c, "href"));
    if (t == N_PRE) {
        if (kept) {
            ps_buf raw = {0};
            pre_text(c, &raw);
            n->text = ps_buf_take(&raw, NULL);
        }
        return;
    }
    build(b, n, c, kept, 0);
}

static void build(builder *b, snode *box, xmlNodePtr dom, int owner_kept, int in_pre)
{
    (void)in_pre;
    if (++b->depth > 400) { /* deep junk: its text, flat */
        b->depth--;
        return;
    }
    for (xmlNodePtr c = dom->children; c && !b->oom; c = c->next) {
        if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
            if (owner_kept && c->content)
                add_text(b, box, (const char *)c->content);
        } else if (c->type == XML_ELEMENT_NODE) {
            element(b, box, c, owner_kept);
        }
    }
    b->depth--;
}

/* Does a subtree hold any text or image? */
static int has_content(const snode *n)
{
    for (; n; n = n->next) {
        if (n->t == N_IMG)
            return 1;
        if ((n->t == N_TEXT || n->t == N_PRE) && n->text) {
            for (const char *p = n->text; *p; p++)
                if (*p != ' ' && *p != '\n' && *p != '\t')
                    return 1;
        }
        if (has_content(n->kids))
            return 1;
    }
    return 0;
}

/* ---- Markdown ------------------------------------------------------------ */

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
        if (r->t != N_TR || !has_content(r->kids))
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
        if (r->t != N_TR || !has_content(r->kids))
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
    if (!has_content(n->t == N_PRE ? n : n->kids) && n->t != N_PRE)
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
            if (!has_content(li->kids))
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

/* ---- XML and HTML ------------------------------------------------------- */

static void x_escape(ps_buf *o, const char *s, int attr_value)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': ps_buf_append(o, "&amp;", 5); break;
        case '<': ps_buf_append(o, "&lt;", 4); break;
        case '>': ps_buf_append(o, "&gt;", 4); break;
        case '"':
            if (attr_value)
                ps_buf_append(o, "&quot;", 6);
            else
                ps_buf_putc(o, '"');
            break;
        default:
            /* control characters are not allowed in XML 1.0 */
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                ps_buf_putc(o, ' ');
            else
                ps_buf_putc(o, *s);
        }
    }
}

/* Inline content: XML (html = 0: <hi rend>, <ref target>, <lb/>, <graphic>,
 * <code>) or HTML (html = 1). */
static void x_inline(const snode *n, ps_buf *o, int html)
{
    for (; n; n = n->next) {
        switch (n->t) {
        case N_TEXT: x_escape(o, n->text, 0); break;
        case N_BR: ps_buf_append(o, html ? "<br>" : "<lb/>", html ? 4 : 5); break;
        case N_B:
        case N_I:
            ps_buf_append(o, html ? (n->t == N_B ? "<strong>" : "<em>") : (n->t == N_B ? "<hi rend=\"#b\">" : "<hi rend=\"#i\">"),
                          html ? (n->t == N_B ? 8 : 4) : 14);
            x_inline(n->kids, o, html);
            ps_buf_append(o, html ? (n->t == N_B ? "</strong>" : "</em>") : "</hi>",
                          html ? (n->t == N_B ? 9 : 5) : 5);
            break;
        case N_CODE:
            ps_buf_append(o, "<code>", 6);
            x_inline(n->kids, o, html);
            ps_buf_append(o, "</code>", 7);
            break;
        case N_LINK:
            ps_buf_append(o, html ? "<a href=\"" : "<ref target=\"", html ? 9 : 13);
            x_escape(o, n->href, 1);
            ps_buf_append(o, "\">", 2);
            x_inline(n->kids, o, html);
            ps_buf_append(o, html ? "</a>" : "</ref>", html ? 4 : 6);
            break;
        case N_IMG:
            ps_buf_append(o, html ? "<img src=\"" : "<graphic src=\"", html ? 10 : 14);
            x_escape(o, n->href, 1);
            ps_buf_append(o, "\" alt=\"", 7);
            x_escape(o, n->alt, 1);
            ps_buf_append(o, html ? "\">" : "\"/>", html ? 2 : 3);
            break;
        default: break;
        }
    }
}

/* Trimmed inline content of a block element. */
static void x_inline_trim(const snode *kids, ps_buf *o, int html)
{
    ps_buf in = {0};
    x_inline(kids, &in, html);
    size_t a = 0, e = in.len;
    while (a < e && in.data[a] == ' ')
        a++;
    while (e > a && in.data[e - 1] == ' ')
        e--;
    ps_buf_append(o, in.data ? in.data + a : "", e - a);
    ps_buf_free(&in);
}

static void x_blocks(const snode *n, ps_buf *o, int html, int indent);

static void x_block(const snode *n, ps_buf *o, int html, int ind)
{
    if (n->t != N_PRE && !has_content(n->kids))
        return;
    char pad[64];
    int k = ind < 60 ? ind : 60;
    memset(pad, ' ', (size_t)k);
    pad[k] = '\0';
    switch (n->t) {
    case N_H:
        if (html)
            ps_buf_printf(o, "%s<h%d>", pad, n->level);
        else
            ps_buf_printf(o, "%s<head rend=\"h%d\">", pad, n->level);
        x_inline_trim(n->kids, o, html);
        if (html)
            ps_buf_printf(o, "</h%d>\n", n->level);
        else
            ps_buf_append(o, "</head>\n", 8);
        break;
    case N_P:
        ps_buf_printf(o, "%s<p>", pad);
        x_inline_trim(n->kids, o, html);
        ps_buf_append(o, "</p>\n", 5);
        break;
    case N_PRE:
        if (!n->text || !*n->text)
            return;
        ps_buf_printf(o, "%s%s", pad, html ? "<pre><code>" : "<code>");
        x_escape(o, n->text, 0);
        ps_buf_append(o, html ? "</code></pre>\n" : "</code>\n", html ? 14 : 8);
        break;
    case N_UL:
    case N_OL:
        if (html)
            ps_buf_printf(o, "%s<%s>\n", pad, n->t == N_UL ? "ul" : "ol");
        else
            ps_buf_printf(o, "%s<list rend=\"%s\">\n", pad, n->t == N_UL ? "ul" : "ol");
        for (const snode *li = n->kids; li; li = li->next) {
            if (!has_content(li->kids))
                continue;
            /* an item that is one paragraph: inline; else its blocks */
            int simple = li->kids && !li->kids->next && li->kids->t == N_P;
            ps_buf_printf(o, "%s  <%s>", pad, html ? "li" : "item");
            if (simple) {
                x_inline_trim(li->kids->kids, o, html);
            } else {
                ps_buf_putc(o, '\n');
                x_blocks(li->kids, o, html, ind + 4);
                ps_buf_append(o, pad, strlen(pad));
                ps_buf_append(o, "  ", 2);
            }
            ps_buf_printf(o, "</%s>\n", html ? "li" : "item");
        }
        ps_buf_printf(o, "%s</%s>\n", pad, html ? (n->t == N_UL ? "ul" : "ol") : "list");
        break;
    case N_QUOTE:
        ps_buf_printf(o, "%s<%s>\n", pad, html ? "blockquote" : "quote");
        x_blocks(n->kids, o, html, ind + 2);
        ps_buf_printf(o, "%s</%s>\n", pad, html ? "blockquote" : "quote");
        break;
    case N_TABLE:
        ps_buf_printf(o, "%s<table>\n", pad);
        for (const snode *r = n->kids; r; r = r->next) {
            if (r->t != N_TR || !has_content(r->kids))
                continue;
            ps_buf_printf(o, "%s  <%s>", pad, html ? "tr" : "row");
            for (const snode *d = r->kids; d; d = d->next) {
                if (d->t != N_TD && d->t != N_TH)
                    continue;
                if (html)
                    ps_buf_append(o, d->t == N_TH ? "<th>" : "<td>", 4);
                else
                    ps_buf_append(o, d->t == N_TH ? "<cell role=\"head\">" : "<cell>",
                                  d->t == N_TH ? 18 : 6);
                x_inline_trim(d->kids, o, html);
                if (html)
                    ps_buf_append(o, d->t == N_TH ? "</th>" : "</td>", 5);
                else
                    ps_buf_append(o, "</cell>", 7);
            }
            ps_buf_printf(o, "</%s>\n", html ? "tr" : "row");
        }
        ps_buf_printf(o, "%s</table>\n", pad);
        break;
    case N_LI:
    case N_DOC: x_blocks(n->kids, o, html, ind); break;
    default: break;
    }
}

static void x_blocks(const snode *n, ps_buf *o, int html, int ind)
{
    for (; n; n = n->next)
        x_block(n, o, html, ind);
}

static void x_attr(ps_buf *o, const char *name, const char *v)
{
    if (!v || !*v)
        return;
    ps_buf_printf(o, " %s=\"", name);
    x_escape(o, v, 1);
    ps_buf_putc(o, '"');
}

static void x_list_attr(ps_buf *o, const char *name, char *const *v, size_t n)
{
    if (!n)
        return;
    ps_buf_printf(o, " %s=\"", name);
    for (size_t i = 0; i < n; i++) {
        if (i)
            ps_buf_putc(o, ',');
        x_escape(o, v[i], 1);
    }
    ps_buf_putc(o, '"');
}

/* ---- ps_render ----------------------------------------------------------- */

static void mark(const ps_page *pg, const ps_extraction *x, int set)
{
    for (size_t i = 0; i < pg->n_leaves; i++) {
        if (!x->leaf_kept[i] || pg->leaves[i].removed)
            continue;
        xmlNodePtr n = pg->leaf_nodes[i];
        if (!set) {
            for (; n && n->type == XML_ELEMENT_NODE && n->_private; n = n->parent)
                n->_private = NULL;
            continue;
        }
        n->_private = (void *)(uintptr_t)(mark_of(n) | MARK_HAS | MARK_LEAF);
        for (n = n->parent; n && n->type == XML_ELEMENT_NODE && !(mark_of(n) & MARK_HAS); n = n->parent)
            n->_private = (void *)(uintptr_t)(mark_of(n) | MARK_HAS);
    }
}

static xmlNodePtr body_of(const ps_page *pg)
{
    xmlNodePtr root = pg->doc ? xmlDocGetRootElement(pg->doc) : NULL;
    for (xmlNodePtr c = root ? root->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "body") == 0)
            return c;
    return root;
}

int ps_render_into(const ps_page *pg, const ps_extraction *x, const ps_metadata *meta,
                   ps_struct_format fmt, unsigned flags, ps_buf *o, ps_error *err)
{
    snode *doc = node_new(NULL, N_DOC);
    if (!doc)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    builder b = {.pg = pg, .flags = flags};
    xmlNodePtr body = body_of(pg);
    if (x && x->leaf_kept && body) {
        mark(pg, x, 1);
        /* the dom_index of some methods uses _private too; it is cleared
         * after each use, and marks are cleared below */
        build(&b, doc, body, 0, 0);
        mark(pg, x, 0);
    } else if (x && x->text) { /* a method without leaves: its lines */
        const char *s = x->text, *end = x->text + x->len;
        while (s < end && !b.oom) {
            const char *e = memchr(s, '\n', (size_t)(end - s));
            if (!e)
                e = end;
            char *line = strndup(s, (size_t)(e - s));
            snode *p = line ? node_new(doc, N_P) : NULL;
            if (!p) {
                free(line);
                b.oom = 1;
                break;
            }
            add_text(&b, p, line);
            free(line);
            s = e + 1;
        }
    }
    if (b.oom) {
        node_free(doc);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    writer w = {.flags = flags};
    const char *title = meta && meta->title ? meta->title : pg->title;
    size_t start = o->len;
    switch (fmt) {
    case PS_STRUCT_MARKDOWN:
        md_blocks(&w, doc->kids, o, 0);
        if (o->len > start)
            ps_buf_putc(o, '\n');
        break;
    case PS_STRUCT_XML:
        ps_buf_append(o, "<doc", 4);
        x_attr(o, "title", title);
        if (meta) {
            x_attr(o, "author", meta->author);
            x_attr(o, "date", meta->date);
            x_attr(o, "date_modified", meta->date_modified);
            x_attr(o, "url", meta->canonical_url ? meta->canonical_url : pg->url);
            x_attr(o, "sitename", meta->site_name);
            x_attr(o, "description", meta->description);
            x_list_attr(o, "categories", meta->categories, meta->n_categories);
            x_list_attr(o, "tags", meta->tags, meta->n_tags);
            x_attr(o, "image", meta->image);
            x_attr(o, "lang", meta->lang);
        } else {
            x_attr(o, "url", pg->url);
        }
        if (x && x->page_type) {
            char pr[16];
            snprintf(pr, sizeof pr, "%.3f", x->page_type_prob);
            x_attr(o, "page_type", x->page_type);
            x_attr(o, "page_type_prob", pr);
        }
        ps_buf_append(o, ">\n  <main>\n", 11);
        x_blocks(doc->kids, o, 0, 4);
        ps_buf_append(o, "  </main>\n  <comments/>\n</doc>\n", 31);
        break;
    case PS_STRUCT_HTML:
        ps_buf_append(o, "<!DOCTYPE html>\n<html", 21);
        x_attr(o, "lang", meta ? meta->lang : NULL);
        ps_buf_append(o, ">\n<head>\n<meta charset=\"utf-8\">\n", 32);
        if (title) {
            ps_buf_append(o, "<title>", 7);
            x_escape(o, title, 0);
            ps_buf_append(o, "</title>\n", 9);
        }
        if (meta) {
            static const char *const names[] = {"author", "description", "date"};
            const char *vals[] = {meta->author, meta->description, meta->date};
            for (int i = 0; i < 3; i++)
                if (vals[i]) {
                    ps_buf_printf(o, "<meta name=\"%s\" content=\"", names[i]);
                    x_escape(o, vals[i], 1);
                    ps_buf_append(o, "\">\n", 3);
                }
            if (meta->canonical_url) {
                ps_buf_append(o, "<link rel=\"canonical\" href=\"", 28);
                x_escape(o, meta->canonical_url, 1);
                ps_buf_append(o, "\">\n", 3);
            }
        }
        ps_buf_append(o, "</head>\n<body>\n<article>\n", 25);
        x_blocks(doc->kids, o, 1, 0);
        ps_buf_append(o, "</article>\n</body>\n</html>\n", 27);
        break;
    }
    node_free(doc);
    if (!o->data && ps_buf_append(o, "", 0) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

char *ps_render(const ps_page *page, const ps_extraction *x, const ps_metadata *meta,
                ps_struct_format fmt, unsigned flags, size_t *len, ps_error *err)
{
    ps_buf o = {0};
    if (ps_render_into(page, x, meta, fmt, flags, &o, err) != 0) {
        ps_buf_free(&o);
        return NULL;
    }
    return ps_buf_take(&o, len);
}
