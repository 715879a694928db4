/* output/structure.c — the kept content of a page with its structure: the
 * tree the Markdown, XML and clean HTML writers serialise (output/structure.h).
 *
 * The leaves the extractor keeps (ps_extraction.leaf_kept) are marked in
 * the DOM with their ancestors; a walk over the marked part of the body
 * builds a small tree — headings, paragraphs, lists, quotes, code blocks,
 * tables, and inside them text, links, emphasis, line breaks and images —
 * and a writer serialises it.  Text of a leaf that was not kept (a
 * caption, a share bar inside the article) never appears; an image appears
 * when the element holding it holds kept content.  A method that does not
 * report leaves (the line-based baselines) gets its text as paragraphs. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/uri.h>

#include "extract/page_internal.h"
#include "output/structure.h"

/* ---- the tree ----------------------------------------------------------- */

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
    const ps_tree *t; /* pg->tree */
    uint8_t *marks;   /* MARK_* of each tree node */
    unsigned flags;
    int oom;
    int depth;
} builder;

static unsigned mark_of(const builder *b, uint32_t n)
{
    return b->marks[n];
}

static const char *attr(const builder *b, uint32_t n, const char *name)
{
    const ps_tnode *e = &b->t->nodes[n];
    for (uint32_t k = 0; k < e->len; k++) {
        const ps_tattr *a = &b->t->attrs[e->off + k];
        if (strcmp((const char *)a->name, name) == 0)
            return b->t->text + a->off;
    }
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

static void build(builder *b, snode *box, uint32_t dom, int owner_kept, int in_pre);

/* 1 when no text below @p n but white space. */
static int no_text(const ps_tree *t, uint32_t n)
{
    for (uint32_t c = t->nodes[n].first; c; c = t->nodes[c].next) {
        if (t->nodes[c].type == PS_TN_TEXT) {
            for (const char *p = ps_tree_text(t, c); *p; p++)
                if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '\f')
                    return 0;
        } else if (t->nodes[c].type == PS_TN_ELEMENT && !no_text(t, c)) {
            return 0;
        }
    }
    return 1;
}

/* Raw text of a <pre> that is kept. */
static void pre_text(const ps_tree *t, uint32_t n, ps_buf *out)
{
    for (uint32_t c = t->nodes[n].first; c; c = t->nodes[c].next) {
        const ps_tnode *e = &t->nodes[c];
        if (e->type == PS_TN_TEXT || e->type == PS_TN_CDATA)
            ps_buf_append(out, t->text + e->off, e->len);
        else if (e->type == PS_TN_ELEMENT) {
            if (strcmp((const char *)e->name, "br") == 0)
                ps_buf_putc(out, '\n');
            else
                pre_text(t, c, out);
        }
    }
}

static void element(builder *b, snode *box, uint32_t c, int owner_kept)
{
    const char *name = (const char *)b->t->nodes[c].name;
    unsigned kind = ps_tag_kind(name);
    unsigned f = mark_of(b, c);
    if (kind & PS_TAG_REMOVE)
        return;
    if (strcmp(name, "img") == 0) {
        if ((b->flags & PS_RENDER_IMAGES) && attr(b, c, "src") && *attr(b, c, "src")) {
            snode *tgt = inline_target(b, box);
            snode *im = tgt ? node_new(tgt, N_IMG) : NULL;
            if (!im) {
                b->oom = 1;
                return;
            }
            im->href = abs_url(b->pg, attr(b, c, "src"));
            const char *alt = attr(b, c, "alt");
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
    int figure = (kind & PS_TAG_FIGURE) && (b->flags & PS_RENDER_IMAGES) &&
                 (mark_of(b, b->t->nodes[c].parent) & MARK_HAS);
    if (!(f & MARK_HAS) && !((kind & PS_TAG_TRANSPARENT) && owner_kept) && !figure) {
        /* nothing kept below (a formatting tag has its owner's); but an
         * empty cell of a row keeps its place, so the columns stay in line
         * (a comparison table's blank top-left header) */
        int cell = box->t == N_TR && (strcmp(name, "td") == 0 || strcmp(name, "th") == 0);
        if (cell && no_text(b->t, c) && !node_new(box, name[1] == 'h' ? N_TH : N_TD))
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
    else if (strcmp(name, "a") == 0 && (b->flags & PS_RENDER_LINKS) && attr(b, c, "href") &&
             strncmp(attr(b, c, "href"), "javascript:", 11) != 0 && attr(b, c, "href")[0] != '#')
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
        n->href = abs_url(b->pg, attr(b, c, "href"));
    if (t == N_PRE) {
        if (kept) {
            ps_buf raw = {0};
            pre_text(b->t, c, &raw);
            n->text = ps_buf_take(&raw, NULL);
        }
        return;
    }
    build(b, n, c, kept, 0);
}

static void build(builder *b, snode *box, uint32_t dom, int owner_kept, int in_pre)
{
    (void)in_pre;
    if (++b->depth > 400) { /* deep junk: its text, flat */
        b->depth--;
        return;
    }
    const ps_tree *t = b->t;
    for (uint32_t c = t->nodes[dom].first; c && !b->oom; c = t->nodes[c].next) {
        uint32_t type = t->nodes[c].type;
        if (type == PS_TN_TEXT || type == PS_TN_CDATA) {
            if (owner_kept)
                add_text(b, box, ps_tree_text(t, c));
        } else if (type == PS_TN_ELEMENT) {
            element(b, box, c, owner_kept);
        }
    }
    b->depth--;
}

int ps_tree_has_content(const snode *n)
{
    for (; n; n = n->next) {
        if (n->t == N_IMG)
            return 1;
        if ((n->t == N_TEXT || n->t == N_PRE) && n->text) {
            for (const char *p = n->text; *p; p++)
                if (*p != ' ' && *p != '\n' && *p != '\t')
                    return 1;
        }
        if (ps_tree_has_content(n->kids))
            return 1;
    }
    return 0;
}

/* ---- the tree of a page ------------------------------------------------- */

/* The elements of the kept leaves (MARK_LEAF) and their ancestors (MARK_HAS). */
static void mark(builder *b, const ps_extraction *x)
{
    const ps_page *pg = b->pg;
    const ps_tnode *nodes = b->t->nodes;
    for (size_t i = 0; i < pg->n_leaves; i++) {
        if (!x->leaf_kept[i] || pg->leaves[i].removed)
            continue;
        uint32_t n = pg->leaf_nodes[i];
        b->marks[n] |= MARK_HAS | MARK_LEAF;
        for (n = nodes[n].parent; nodes[n].type == PS_TN_ELEMENT && !(b->marks[n] & MARK_HAS); n = nodes[n].parent)
            b->marks[n] |= MARK_HAS;
    }
}

static uint32_t body_of(const ps_page *pg)
{
    const ps_tree *t = pg->tree;
    uint32_t root = t ? ps_tree_root(t) : 0;
    for (uint32_t c = root ? t->nodes[root].first : 0; c; c = t->nodes[c].next)
        if (t->nodes[c].type == PS_TN_ELEMENT && strcmp((const char *)t->nodes[c].name, "body") == 0)
            return c;
    return root;
}

int ps_tree_render(const ps_page *pg, const ps_extraction *x, const ps_metadata *meta, unsigned flags, ps_tree_writer write, ps_buf *o, ps_error *err)
{
    if (!pg->tree)
        return ps_set_error(err, PS_ERR_USAGE, "the page was parsed without keeping its tree (PS_PAGE_NO_TREE): "
                                               "no structure to render");
    snode *doc = node_new(NULL, N_DOC);
    if (!doc)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    builder b = {.pg = pg, .t = pg->tree, .flags = flags};
    uint32_t body = body_of(pg);
    if (x && x->leaf_kept && body) {
        if (!(b.marks = calloc(pg->tree->n_nodes, 1))) {
            node_free(doc);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        mark(&b, x);
        build(&b, doc, body, 0, 0);
        free(b.marks);
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
    ps_tree_doc d = {.blocks = doc->kids, .page = pg, .x = x, .meta = meta, .flags = flags,
                     .title = meta && meta->title ? meta->title : pg->title};
    write(&d, o);
    node_free(doc);
    if (!o->data && ps_buf_append(o, "", 0) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

int ps_tree_render_page(const ps_out_page *p, ps_tree_writer write, unsigned page_flags, ps_buf *out,
                        ps_error *err)
{
    int blank_after = (page_flags & PS_TREE_BLANK_AFTER) != 0;
    const ps_record *r = p->rec;
    const char *id = r->id ? r->id : "";
    if (r->error) {
        if (ps_buf_printf(out, "<!-- pagesift: %s failed: %s -->\n%s", id, r->error, blank_after ? "\n" : "") != 0)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (r->duplicate_of) { /* --dedup */
        if (ps_buf_printf(out, "<!-- pagesift: %s duplicate of %s -->\n%s", id, r->duplicate_of,
                          blank_after ? "\n" : "") != 0)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (p->headers && ps_buf_printf(out, "<!-- pagesift: %s -->\n", id) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if ((page_flags & PS_TREE_FRONT_MATTER) && (p->render_flags & PS_RENDER_METADATA) &&
        ps_front_matter(p, out) != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    if (ps_tree_render(p->page, p->x, r->meta, p->render_flags, write, out, err) != 0)
        return -1;
    if (p->headers && blank_after && ps_buf_putc(out, '\n') != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}
