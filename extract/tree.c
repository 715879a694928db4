/* extract/tree.c — the compact tree of extract/tree.h, built from libxml2's
 * SAX events.
 *
 * libxml2's HTML parser (2.9.14) hands its events to SAX callbacks; its
 * SAX2 ones build the DOM.  Here the element, text, CDATA, comment and
 * processing-instruction callbacks are ours and append to the tree's
 * arrays; the document's own (startDocument, the doctype) stay libxml2's,
 * so the parser has the small document it consults.  The parser reads
 * one more thing of the tree it thinks it builds: when it meets white
 * space, whether to keep it depends on the open element's last child
 * (areBlanks in HTMLparser.c: none, a text, or an element that may hold
 * text, comments skipped).  So ctxt->node points at a stand-in node that
 * says what the open element and its last child are, kept right after
 * every event (a few stores). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLtree.h>
#include <libxml/SAX2.h>
#include <libxml/parserInternals.h>

#include "common/util.h"
#include "extract/page_internal.h"
#include "extract/tree.h"

typedef struct {
    uint32_t node;  /* an open element (0: the document) */
    uint32_t lnc;   /* its last child that is not a comment (0: none) */
} open_el;

typedef struct {
    ps_tree *t;
    htmlParserCtxtPtr ctxt;
    open_el *stack;
    size_t depth, cap;
    int failed;
    /* what the parser may read through ctxt->node (see the top) */
    xmlNode cur, last, prev;
} builder;

/* the tree's arrays, grown from 64 elements */
static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    return ps_grow_array(v, cap, need, size, 64);
}

/* Append @p n bytes and a NUL to the text buffer; the bytes' offset, or
 * (uint32_t)-1. */
static uint32_t add_bytes(builder *b, const void *s, size_t n)
{
    ps_tree *t = b->t;
    if (t->text_len + n + 1 >= UINT32_MAX || grow((void **)&t->text, &t->cap_text, t->text_len + n + 1, 1)) {
        b->failed = 1;
        return (uint32_t)-1;
    }
    uint32_t off = (uint32_t)t->text_len;
    if (n)
        memcpy(t->text + off, s, n);
    t->text[off + n] = '\0';
    t->text_len += n + 1;
    return off;
}

/* Fill the stand-in @p x for node @p i (0: none); NULL for none. */
static xmlNodePtr stand_in(builder *b, xmlNode *x, uint32_t i)
{
    if (!i)
        return NULL;
    const ps_tnode *n = &b->t->nodes[i];
    static const xmlElementType types[] = {
        [PS_TN_DOCUMENT] = XML_DOCUMENT_NODE, [PS_TN_ELEMENT] = XML_ELEMENT_NODE,
        [PS_TN_TEXT] = XML_TEXT_NODE,         [PS_TN_CDATA] = XML_CDATA_SECTION_NODE,
        [PS_TN_COMMENT] = XML_COMMENT_NODE,   [PS_TN_PI] = XML_PI_NODE,
    };
    x->type = types[n->type];
    x->name = n->type == PS_TN_TEXT      ? xmlStringText
              : n->type == PS_TN_COMMENT ? xmlStringComment
                                         : n->name;
    x->prev = x->next = x->children = x->last = x->parent = NULL;
    x->content = NULL;
    return x;
}

/* ctxt->node as the DOM's would be after the last event. */
static void sync(builder *b)
{
    const open_el *o = &b->stack[b->depth - 1];
    if (!o->node) {
        b->ctxt->node = NULL;
        return;
    }
    stand_in(b, &b->cur, o->node);
    uint32_t last = b->t->nodes[o->node].last;
    xmlNodePtr l = stand_in(b, &b->last, last);
    if (l && l->type == XML_COMMENT_NODE)
        l->prev = stand_in(b, &b->prev, o->lnc);
    b->cur.children = b->cur.last = l;
    b->ctxt->node = &b->cur;
}

/* A new node of @p type, the last child of @p parent (the open element,
 * or what SAX2 links a top-level element to: below); its index, 0 on
 * failure. */
static uint32_t add_node_to(builder *b, uint32_t parent, ps_tnode_type type, const xmlChar *name)
{
    ps_tree *t = b->t;
    if (t->n_nodes >= UINT32_MAX - 1 || grow((void **)&t->nodes, &t->cap_nodes, t->n_nodes + 1, sizeof *t->nodes)) {
        b->failed = 1;
        return 0;
    }
    uint32_t i = (uint32_t)t->n_nodes++;
    ps_tnode *p = &t->nodes[parent];
    ps_tnode *n = &t->nodes[i];
    *n = (ps_tnode){.parent = parent, .prev = p->last, .type = type, .name = name};
    if (p->last)
        t->nodes[p->last].next = i;
    else
        p->first = i;
    p->last = i;
    open_el *o = &b->stack[b->depth - 1];
    if (type != PS_TN_COMMENT && o->node == parent)
        o->lnc = i;
    return i;
}

static uint32_t add_node(builder *b, ps_tnode_type type, const xmlChar *name)
{
    return add_node_to(b, b->stack[b->depth - 1].node, type, name);
}

/* An element's name as SAX2 gives its DOM node: a prefix before the first
 * ':' (fb:like, o:p) dropped, as its namespace-splitting does in HTML too,
 * unless the name starts or ends with the ':'.  Interned. */
static const xmlChar *local_name(builder *b, const xmlChar *name)
{
    const xmlChar *colon = name[0] == ':' ? NULL : (const xmlChar *)strchr((const char *)name, ':');
    if (!colon || !colon[1])
        return name;
    const xmlChar *l = xmlDictLookup(b->ctxt->dict, colon + 1, -1);
    if (!l)
        b->failed = 1;
    return l;
}

static void on_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
    builder *b = ((htmlParserCtxtPtr)ctx)->_private;
    if (b->failed || !(name = local_name(b, name)))
        return;
    /* With no element open, SAX2 links a new element to the document's
     * first child: under it when that is an element (a second <html> after
     * </html> goes inside the first), after it otherwise (a doctype, which
     * the HTML document puts first, a comment). */
    uint32_t parent = b->stack[b->depth - 1].node, first = b->t->nodes[0].first;
    if (!parent && first && b->t->nodes[first].type == PS_TN_ELEMENT &&
        !(b->ctxt->myDoc && b->ctxt->myDoc->intSubset))
        parent = first;
    uint32_t i = add_node_to(b, parent, PS_TN_ELEMENT, name);
    if (!i)
        return;
    ps_tree *t = b->t;
    size_t n = 0;
    while (atts && atts[2 * n])
        n++;
    if (n && grow((void **)&t->attrs, &t->cap_attrs, t->n_attrs + n, sizeof *t->attrs)) {
        b->failed = 1;
        return;
    }
    t->nodes[i].off = (uint32_t)t->n_attrs;
    t->nodes[i].len = (uint32_t)n;
    for (size_t k = 0; k < n; k++) {
        const xmlChar *an = atts[2 * k], *v = atts[2 * k + 1];
        /* as SAX2: a valueless boolean attribute (checked, disabled, ...)
         * has its name for value, any other the empty value */
        if (!v && htmlIsBooleanAttr(an))
            v = an;
        if (!v) { /* the DOM's attribute has no text node: `name`, not `name=""` */
            if (grow((void **)&t->valueless, &t->cap_valueless, t->n_valueless + 1, sizeof *t->valueless)) {
                b->failed = 1;
                return;
            }
            t->valueless[t->n_valueless++] = (uint32_t)t->n_attrs;
        }
        size_t vl = v ? strlen((const char *)v) : 0;
        uint32_t off = add_bytes(b, v, vl);
        if (b->failed)
            return;
        t->attrs[t->n_attrs++] = (ps_tattr){.name = an, .off = off, .len = (uint32_t)vl};
    }
    if (grow((void **)&b->stack, &b->cap, b->depth + 1, sizeof *b->stack)) {
        b->failed = 1;
        return;
    }
    b->stack[b->depth++] = (open_el){i, 0};
    sync(b);
}

static void on_end(void *ctx, const xmlChar *name)
{
    builder *b = ((htmlParserCtxtPtr)ctx)->_private;
    (void)name;
    if (b->failed || b->depth <= 1)
        return;
    b->depth--;
    sync(b);
}

/* Text or CDATA: joined to the open element's last child when that is one
 * of the same kind, as SAX2 joins them. */
static void add_chars(builder *b, ps_tnode_type type, const xmlChar *ch, int len)
{
    if (b->failed || b->depth <= 1 || len < 0)
        return; /* SAX2 drops text outside every element */
    ps_tree *t = b->t;
    uint32_t last = t->nodes[b->stack[b->depth - 1].node].last;
    if (last && t->nodes[last].type == (uint32_t)type &&
        t->nodes[last].off + t->nodes[last].len + 1 == t->text_len) {
        t->text_len--; /* over the NUL */
        if (add_bytes(b, ch, (size_t)len) != (uint32_t)-1)
            t->nodes[last].len += (uint32_t)len;
        return;
    }
    uint32_t off = add_bytes(b, ch, (size_t)len);
    if (b->failed)
        return;
    uint32_t i = add_node(b, type, NULL);
    if (!i)
        return;
    t->nodes[i].off = off;
    t->nodes[i].len = (uint32_t)len;
    sync(b);
}

static void on_chars(void *ctx, const xmlChar *ch, int len)
{
    add_chars(((htmlParserCtxtPtr)ctx)->_private, PS_TN_TEXT, ch, len);
}

static void on_cdata(void *ctx, const xmlChar *ch, int len)
{
    add_chars(((htmlParserCtxtPtr)ctx)->_private, PS_TN_CDATA, ch, len);
}

static void on_blanks(void *ctx, const xmlChar *ch, int len)
{
    (void)ctx, (void)ch, (void)len; /* as SAX2: white space the parser
                                         calls ignorable is dropped */
}

/* A comment or a processing instruction, with its text. */
static void add_marked(builder *b, ps_tnode_type type, const xmlChar *name, const xmlChar *value)
{
    if (b->failed)
        return;
    size_t n = value ? strlen((const char *)value) : 0;
    uint32_t off = add_bytes(b, value, n);
    uint32_t i = b->failed ? 0 : add_node(b, type, name);
    if (!i)
        return;
    b->t->nodes[i].off = off;
    b->t->nodes[i].len = (uint32_t)n;
    sync(b);
}

static void on_comment(void *ctx, const xmlChar *value)
{
    add_marked(((htmlParserCtxtPtr)ctx)->_private, PS_TN_COMMENT, NULL, value);
}

static void on_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
    add_marked(((htmlParserCtxtPtr)ctx)->_private, PS_TN_PI, target, data);
}

static void setup(htmlParserCtxtPtr c, void *user)
{
    builder *b = user;
    b->ctxt = c;
    c->_private = b;
    /* the names are the context's dictionary's (the HTML parser interns
     * them there whatever SAX2 does with them): the tree keeps it */
    if (c->dict && xmlDictReference(c->dict) == 0)
        b->t->dict = c->dict;
    xmlSAXHandlerPtr s = c->sax;
    s->startElement = on_start;
    s->endElement = on_end;
    s->characters = on_chars;
    s->cdataBlock = on_cdata;
    s->ignorableWhitespace = on_blanks;
    s->comment = on_comment;
    s->processingInstruction = on_pi;
    s->startElementNs = NULL; /* the HTML parser calls the SAX1 forms */
    s->endElementNs = NULL;
    s->reference = NULL;
}

/* The names into a dictionary of the tree's own: the parse's dictionary
 * holds what the parser interned besides (and its hash table sized for
 * them), and goes with the parser.  A map from each old pointer to its new
 * one (open addressing; a page has a few hundred names). */
static xmlDictPtr rehome_names(ps_tree *t)
{
    xmlDictPtr d = xmlDictCreate();
    size_t cap = 512, used = 0;
    const xmlChar **map = calloc(2 * cap, sizeof *map);
    if (!d || !map) {
        free(map);
        if (d)
            xmlDictFree(d);
        return NULL;
    }
    for (size_t i = 0; i < t->n_nodes + t->n_attrs; i++) {
        const xmlChar **name = i < t->n_nodes ? &t->nodes[i].name : &t->attrs[i - t->n_nodes].name;
        if (!*name)
            continue;
        size_t h = ((uintptr_t)*name >> 3) * 0x9E3779B97F4A7C15u >> 20;
        for (;; h++) {
            const xmlChar **e = &map[2 * (h & (cap - 1))];
            if (!e[0]) {
                if (!(e[1] = xmlDictLookup(d, *name, -1))) {
                    free(map);
                    xmlDictFree(d);
                    return NULL;
                }
                e[0] = *name;
                used++;
            }
            if (e[0] == *name) {
                *name = e[1];
                break;
            }
        }
        if (used * 2 > cap) { /* grow: insert the pairs again */
            const xmlChar **old = map;
            size_t oc = cap;
            cap *= 2;
            if (!(map = calloc(2 * cap, sizeof *map))) {
                free(old);
                xmlDictFree(d);
                return NULL;
            }
            for (size_t k = 0; k < oc; k++) {
                if (!old[2 * k])
                    continue;
                size_t g = ((uintptr_t)old[2 * k] >> 3) * 0x9E3779B97F4A7C15u >> 20;
                while (map[2 * (g & (cap - 1))])
                    g++;
                map[2 * (g & (cap - 1))] = old[2 * k];
                map[2 * (g & (cap - 1)) + 1] = old[2 * k + 1];
            }
            free(old);
        }
    }
    free(map);
    return d;
}

static ps_tree *tree_parse(const char *html, size_t len, const char *url, int options, int utf8_terminated)
{
    ps_tree *t = calloc(1, sizeof *t);
    builder b = {.t = t};
    if (!t || grow((void **)&t->nodes, &t->cap_nodes, 1 + len / 64, sizeof *t->nodes) ||
        grow((void **)&t->text, &t->cap_text, 1 + len / 4, 1) ||
        grow((void **)&b.stack, &b.cap, 64, sizeof *b.stack)) {
        free(b.stack);
        ps_xml_failed_note();
        ps_tree_free(t);
        return NULL;
    }
    t->nodes[0] = (ps_tnode){.type = PS_TN_DOCUMENT};
    t->n_nodes = 1;
    b.stack[0] = (open_el){0, 0};
    b.depth = 1;
    ps_xml_failed_reset();
    /* libxml2's own allocations of the parse (buffers of comments, PIs,
     * names) come from malloc and are freed as it goes: in the page arena
     * this parse first used (since removed), they stayed until the parse
     * ended: 1 MB of processing instructions at the node budget grew the
     * process by 18 MB with it, 6.6 MB without (docs/research/SPEED.md,
     * "The switch"). */
    htmlDocPtr doc = ps_xml_read_sax(html, len, url, options, utf8_terminated, setup, &b);
    free(b.stack);
    if (doc)
        xmlFreeDoc(doc);
    if (b.failed)
        ps_xml_failed_note(); /* our own allocation: out of memory too */
    if (!doc || !t->dict || b.failed || ps_xml_failed()) {
        ps_tree_free(t);
        return NULL;
    }
    xmlDictPtr own = rehome_names(t);
    xmlDictFree(t->dict);
    t->dict = own;
    if (!own) {
        ps_xml_failed_note();
        ps_tree_free(t);
        return NULL;
    }
    /* the arrays to their size: they grew by doubling */
    void *p;
    if ((p = realloc(t->nodes, t->n_nodes * sizeof *t->nodes)))
        t->nodes = p, t->cap_nodes = t->n_nodes;
    if (t->n_attrs && (p = realloc(t->attrs, t->n_attrs * sizeof *t->attrs)))
        t->attrs = p, t->cap_attrs = t->n_attrs;
    if (t->text_len && (p = realloc(t->text, t->text_len)))
        t->text = p, t->cap_text = t->text_len;
    return t;
}

ps_tree *ps_tree_parse(const char *html, size_t len, const char *url, int options)
{
    return tree_parse(html, len, url, options, 0);
}

ps_tree *ps_tree_parse_utf8(const char *html, size_t len, const char *url, int options)
{
    return tree_parse(html, len, url, options, 1);
}

void ps_tree_free(ps_tree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->attrs);
    free(t->text);
    free(t->valueless);
    if (t->dict)
        xmlDictFree(t->dict);
    free(t);
}

uint32_t ps_tree_root(const ps_tree *t)
{
    uint32_t i = t->nodes[0].first;
    while (i && t->nodes[i].type != PS_TN_ELEMENT)
        i = t->nodes[i].next;
    return i;
}

int ps_tree_content(const ps_tree *t, uint32_t i, ps_buf *out)
{
    uint32_t c = t->nodes[i].first;
    while (c) {
        const ps_tnode *n = &t->nodes[c];
        if ((n->type == PS_TN_TEXT || n->type == PS_TN_CDATA) && ps_buf_append(out, t->text + n->off, n->len))
            return -1;
        if (n->type == PS_TN_ELEMENT && n->first) {
            c = n->first;
            continue;
        }
        while (c && c != i && !t->nodes[c].next)
            c = t->nodes[c].parent;
        if (c == i)
            break;
        c = t->nodes[c].next;
    }
    return 0;
}

const xmlChar *ps_tree_name(const ps_tree *t, const char *name)
{
    return xmlDictExists(t->dict, (const xmlChar *)name, -1);
}

const char *ps_tree_attr(const ps_tree *t, uint32_t i, const xmlChar *name, size_t *len)
{
    const ps_tnode *n = &t->nodes[i];
    if (n->type != PS_TN_ELEMENT || !name)
        return NULL;
    for (uint32_t k = 0; k < n->len; k++) {
        const ps_tattr *a = &t->attrs[n->off + k];
        if (a->name == name) {
            *len = a->len;
            return t->text + a->off;
        }
    }
    return NULL;
}

size_t ps_tree_bytes(const ps_tree *t)
{
    return sizeof *t + t->cap_nodes * sizeof *t->nodes + t->cap_attrs * sizeof *t->attrs + t->cap_text;
}

int ps_tree_valueless(const ps_tree *t, size_t k)
{
    size_t lo = 0, hi = t->n_valueless; /* ascending: appended in order */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->valueless[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n_valueless && t->valueless[lo] == k;
}

/* ---- changing the tree's shape ---- */

void ps_tree_unlink(ps_tree *t, uint32_t i)
{
    ps_tnode *n = &t->nodes[i];
    if (n->prev)
        t->nodes[n->prev].next = n->next;
    else if (t->nodes[n->parent].first == i)
        t->nodes[n->parent].first = n->next;
    if (n->next)
        t->nodes[n->next].prev = n->prev;
    else if (t->nodes[n->parent].last == i)
        t->nodes[n->parent].last = n->prev;
    n->parent = n->prev = n->next = 0;
}

void ps_tree_append(ps_tree *t, uint32_t parent, uint32_t i)
{
    ps_tree_unlink(t, i); /* a no-op when it is out of the tree */
    ps_tnode *p = &t->nodes[parent], *n = &t->nodes[i];
    n->parent = parent;
    n->prev = p->last;
    n->next = 0;
    if (p->last)
        t->nodes[p->last].next = i;
    else
        p->first = i;
    p->last = i;
}

void ps_tree_insert_before(ps_tree *t, uint32_t ref, uint32_t i)
{
    ps_tree_unlink(t, i);
    ps_tnode *r = &t->nodes[ref], *n = &t->nodes[i];
    n->parent = r->parent;
    n->next = ref;
    n->prev = r->prev;
    if (r->prev)
        t->nodes[r->prev].next = i;
    else
        t->nodes[r->parent].first = i;
    r->prev = i;
}

uint32_t ps_tree_new_element(ps_tree *t, uint32_t parent, const char *name)
{
    const xmlChar *nm = xmlDictLookup(t->dict, (const xmlChar *)name, -1);
    if (!nm || t->n_nodes >= UINT32_MAX - 1 ||
        grow((void **)&t->nodes, &t->cap_nodes, t->n_nodes + 1, sizeof *t->nodes))
        return 0;
    uint32_t i = (uint32_t)t->n_nodes++;
    t->nodes[i] = (ps_tnode){.type = PS_TN_ELEMENT, .name = nm};
    ps_tree_append(t, parent, i);
    return i;
}

/* Text @p a's content followed by @p b's, as a's (libxml2's merge of two
 * adjacent texts); -1 when out of memory. */
static int join_texts(ps_tree *t, uint32_t a, uint32_t b)
{
    size_t la = t->nodes[a].len, lb = t->nodes[b].len;
    if (t->text_len + la + lb + 1 >= UINT32_MAX || grow((void **)&t->text, &t->cap_text, t->text_len + la + lb + 1, 1))
        return -1;
    char *d = t->text + t->text_len;
    memmove(d, t->text + t->nodes[a].off, la);
    memmove(d + la, t->text + t->nodes[b].off, lb);
    d[la + lb] = '\0';
    t->nodes[a].off = (uint32_t)t->text_len;
    t->nodes[a].len = (uint32_t)(la + lb);
    t->text_len += la + lb + 1;
    return 0;
}

int ps_tree_add_child(ps_tree *t, uint32_t parent, uint32_t i)
{
    uint32_t last = t->nodes[parent].last;
    if (t->nodes[i].type == PS_TN_TEXT && last && last != i && t->nodes[last].type == PS_TN_TEXT) {
        ps_tree_unlink(t, i);
        return join_texts(t, last, i);
    }
    ps_tree_append(t, parent, i);
    return 0;
}

int ps_tree_add_prev_sibling(ps_tree *t, uint32_t ref, uint32_t i)
{
    /* libxml2 2.9.14 merges a text into @p ref when that is a text; its
     * merge into a text before @p ref asks that @p ref and that text have
     * the same name, which an element and a text never have: not done */
    if (t->nodes[i].type == PS_TN_TEXT && t->nodes[ref].type == PS_TN_TEXT) {
        ps_tree_unlink(t, i);
        if (join_texts(t, i, ref))
            return -1;
        t->nodes[ref].off = t->nodes[i].off;
        t->nodes[ref].len = t->nodes[i].len;
        return 0;
    }
    ps_tree_insert_before(t, ref, i);
    return 0;
}

ps_tree *ps_tree_empty(void)
{
    ps_tree *t = calloc(1, sizeof *t);
    if (!t || !(t->nodes = malloc(sizeof *t->nodes)) || !(t->dict = xmlDictCreate())) {
        ps_tree_free(t);
        return NULL;
    }
    t->nodes[0] = (ps_tnode){.type = PS_TN_DOCUMENT};
    t->n_nodes = t->cap_nodes = 1;
    return t;
}

/* ---- a DOM of the tree, for the tools that edit or serialise one ---- */

/* The DOM node of tree node @p i (not linked), or NULL when out of memory. */
static xmlNodePtr dom_node(const ps_tree *t, htmlDocPtr doc, uint32_t i)
{
    const ps_tnode *n = &t->nodes[i];
    /* an element's off is into attrs; a tree of elements only (the empty
     * page's html and body) has no text buffer */
    const xmlChar *s = n->type != PS_TN_ELEMENT ? (const xmlChar *)t->text + n->off : NULL;
    switch (n->type) {
    case PS_TN_TEXT: return xmlNewDocTextLen(doc, s, (int)n->len);
    case PS_TN_CDATA: return xmlNewCDataBlock(doc, s, (int)n->len);
    case PS_TN_COMMENT: return xmlNewDocComment(doc, s);
    case PS_TN_PI: return xmlNewDocPI(doc, n->name, n->len ? s : NULL);
    case PS_TN_ELEMENT: break;
    default: return NULL;
    }
    xmlNodePtr e = xmlNewDocNode(doc, NULL, n->name, NULL);
    for (uint32_t k = 0; e && k < n->len; k++) {
        size_t ak = n->off + k;
        const ps_tattr *a = &t->attrs[ak];
        /* xmlNewProp: the value as it is, one text node (no entities read) */
        const xmlChar *v = ps_tree_valueless(t, ak) ? NULL : (const xmlChar *)t->text + a->off;
        if (!xmlNewProp(e, a->name, v)) {
            xmlFreeNode(e);
            return NULL;
        }
    }
    return e;
}

htmlDocPtr ps_tree_dom(const ps_tree *t, const char *url, xmlNodePtr *map)
{
    htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
    if (!doc)
        return NULL;
    /* the names are the tree's: the DOM shares its dictionary */
    if (xmlDictReference(t->dict) == 0)
        doc->dict = t->dict;
    if (url && !(doc->URL = xmlStrdup((const xmlChar *)url)))
        goto fail;
    if (map)
        map[0] = (xmlNodePtr)doc;
    xmlNodePtr parent = (xmlNodePtr)doc;
    uint32_t i = t->nodes[0].first;
    while (i) {
        xmlNodePtr d = dom_node(t, doc, i);
        if (!d)
            goto fail;
        /* linked by hand: xmlAddChild would merge a text into a text before
         * it, and the cleaned tree has such neighbours (a comment between
         * them unlinked), which the DOM the page model cleaned kept apart */
        d->parent = parent;
        d->prev = parent->last;
        if (parent->last)
            parent->last->next = d;
        else
            parent->children = d;
        parent->last = d;
        if (map)
            map[i] = d;
        if (t->nodes[i].type == PS_TN_ELEMENT && t->nodes[i].first) {
            parent = d;
            i = t->nodes[i].first;
            continue;
        }
        while (i && !t->nodes[i].next) {
            i = t->nodes[i].parent;
            parent = parent->parent;
        }
        if (i)
            i = t->nodes[i].next;
    }
    return doc;
fail:
    xmlFreeDoc(doc);
    return NULL;
}

/* ---- the tree against the DOM (tests/test_tree.c, tests/fuzz/fuzz_tree.c) ---- */

static const char *kind(int type)
{
    switch (type) {
    case PS_TN_ELEMENT: return "element";
    case PS_TN_TEXT: return "text";
    case PS_TN_CDATA: return "cdata";
    case PS_TN_COMMENT: return "comment";
    case PS_TN_PI: return "pi";
    default: return "?";
    }
}

static int type_of(xmlNodePtr d)
{
    switch (d->type) {
    case XML_ELEMENT_NODE: return PS_TN_ELEMENT;
    case XML_TEXT_NODE: return PS_TN_TEXT;
    case XML_CDATA_SECTION_NODE: return PS_TN_CDATA;
    case XML_COMMENT_NODE: return PS_TN_COMMENT;
    case XML_PI_NODE: return PS_TN_PI;
    default: return -1;
    }
}

/* The first difference between the tree under @p ti and the DOM under
 * @p d, written into @p why; 0 when none.  Recursive: for tests and the
 * fuzzer, on pages within the parse's depth bound. */
static int differs(const ps_tree *t, uint32_t ti, xmlNodePtr d, char *why, size_t n)
{
    uint32_t c = t->nodes[ti].first;
    xmlNodePtr e = d->children;
    size_t k = 0;
    for (;; k++) {
        while (e && (e->type == XML_DTD_NODE))
            e = e->next;
        if (!c && !e)
            return 0;
        const char *where = ti && t->nodes[ti].name ? (const char *)t->nodes[ti].name : "document";
        if (!c || !e) {
            snprintf(why, n, "child %zu of %s: tree has %s, DOM has %s", k, where, c ? kind(t->nodes[c].type) : "none",
                     e ? (e->name ? (const char *)e->name : "?") : "none");
            return 1;
        }
        const ps_tnode *tn = &t->nodes[c];
        if ((int)tn->type != type_of(e)) {
            snprintf(why, n, "child %zu of %s: tree has %s, DOM has type %d (%s)", k, where, kind(tn->type), e->type,
                     e->name ? (const char *)e->name : "");
            return 1;
        }
        if (tn->type == PS_TN_ELEMENT || tn->type == PS_TN_PI) {
            if (strcmp((const char *)tn->name, (const char *)e->name) != 0) {
                snprintf(why, n, "child %zu of %s: tree <%s>, DOM <%s>", k, where, tn->name, e->name);
                return 1;
            }
        }
        if (tn->type == PS_TN_ELEMENT) {
            uint32_t a = 0;
            for (xmlAttrPtr p = e->properties; p; p = p->next, a++) {
                if (a >= tn->len) {
                    snprintf(why, n, "<%s>: the DOM has more attributes (%s)", tn->name, p->name);
                    return 1;
                }
                const ps_tattr *ta = &t->attrs[tn->off + a];
                xmlChar *v = p->children ? xmlNodeGetContent((xmlNodePtr)p) : xmlStrdup((const xmlChar *)"");
                int same = strcmp((const char *)ta->name, (const char *)p->name) == 0 && v &&
                           (size_t)xmlStrlen(v) == ta->len && memcmp(v, t->text + ta->off, ta->len) == 0 &&
                           (p->children == NULL) == ps_tree_valueless(t, tn->off + a) && t->text[ta->off + ta->len] == '\0';
                if (!same)
                    snprintf(why, n, "<%s>: attribute %u: tree %s=\"%.*s\", DOM %s=\"%s\"", tn->name, a, ta->name,
                             (int)(ta->len > 60 ? 60 : ta->len), t->text + ta->off, p->name, v ? (char *)v : "");
                xmlFree(v);
                if (!same)
                    return 1;
            }
            if (a != tn->len) {
                snprintf(why, n, "<%s>: the tree has %u attributes, the DOM %u", tn->name, tn->len, a);
                return 1;
            }
            if (differs(t, c, e, why, n))
                return 1;
        } else {
            xmlChar *v = xmlNodeGetContent(e);
            if (!v && (tn->type == PS_TN_PI || tn->type == PS_TN_COMMENT))
                v = xmlStrdup((const xmlChar *)"");
            int same = v && (size_t)xmlStrlen(v) == tn->len && memcmp(v, t->text + tn->off, tn->len) == 0 &&
                       t->text[tn->off + tn->len] == '\0';
            if (!same)
                snprintf(why, n, "child %zu of %s (%s): tree \"%.*s\", DOM \"%.60s\"", k, where, kind(tn->type),
                         (int)(tn->len > 60 ? 60 : tn->len), t->text + tn->off, v ? (char *)v : "");
            xmlFree(v);
            if (!same)
                return 1;
        }
        c = tn->next;
        e = e->next;
    }
}

int ps_tree_differs(const ps_tree *t, htmlDocPtr doc, char *why, size_t n)
{
    return differs(t, 0, (xmlNodePtr)doc, why, n);
}
