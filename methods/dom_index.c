/* methods/dom_index.c — the array view of a page's DOM used by the DOM-based
 * baselines (see dom_index.h), character counts and punctuation. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "methods/dom_index.h"

/* arrays grown from 256 elements */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    return ps_grow_array(p, cap, need, size, 256);
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
            continue;
        if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0xA0) {
            i++;
            continue;
        }
        return 0;
    }
    return 1;
}

/* Same-name sibling groups: an open-addressing table keyed by (parent, name). */
typedef struct slot {
    int32_t parent; /* -2 = empty */
    uint32_t group;
    const char *name;
} slot;

static int sibling_groups(ps_dom_index *ix)
{
    size_t cap = 16;
    while (cap < ix->count * 2)
        cap *= 2;
    slot *tab = malloc(cap * sizeof *tab);
    ix->group_size = malloc((ix->count + 1) * sizeof *ix->group_size);
    if (!tab || !ix->group_size) {
        free(tab);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        tab[i].parent = -2;
    ix->n_groups = 0;
    for (size_t i = 0; i < ix->count; i++) {
        ps_dnode *d = &ix->n[i];
        const char *name = (const char *)d->node->name;
        uint64_t h = ps_hash64(name, strlen(name)) ^ ((uint64_t)(uint32_t)d->parent * 0x9E3779B97F4A7C15ULL);
        size_t k = (size_t)(h ^ (h >> 29)) & (cap - 1);
        while (tab[k].parent != -2 && !(tab[k].parent == d->parent && strcmp(tab[k].name, name) == 0))
            k = (k + 1) & (cap - 1);
        if (tab[k].parent == -2) {
            tab[k].parent = d->parent;
            tab[k].name = name;
            tab[k].group = (uint32_t)ix->n_groups;
            ix->group_size[ix->n_groups++] = 0;
        }
        d->sib_group = tab[k].group;
        d->sib_index = ++ix->group_size[tab[k].group];
    }
    free(tab);
    return 0;
}

int ps_dom_index_build(ps_dom_index *ix, const ps_page *page, ps_error *err)
{
    memset(ix, 0, sizeof *ix);
    htmlDocPtr dom = ps_page_dom(page); /* made from the page's tree */
    if (!dom && page->tree)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    xmlNodePtr root = dom ? xmlDocGetRootElement(dom) : NULL;
    if (!root)
        return 0;
    size_t cap_n = 0, cap_t = 0, cap_s = 0, top = 0;
    int32_t *stack = NULL;
    xmlNodePtr cur = root;
    /* Pre-order: enter cur (element), then its children; when a node has no
     * next sibling, leave the elements on the stack. */
    while (cur) {
        if (cur->type == XML_ELEMENT_NODE) {
            if (grow((void **)&ix->n, &cap_n, ix->count + 1, sizeof *ix->n) ||
                grow((void **)&stack, &cap_s, top + 1, sizeof *stack))
                goto nomem;
            int32_t parent = top ? stack[top - 1] : -1;
            int32_t idx = (int32_t)ix->count++;
            ps_dnode *d = &ix->n[idx];
            const char *name = (const char *)cur->name;
            unsigned kind = ps_tag_kind(name);
            d->node = cur;
            d->parent = parent;
            d->end = 0;
            d->leaf = -1;
            d->depth = parent < 0 ? 1 : ix->n[parent].depth + 1;
            d->is_anchor = (kind & PS_TAG_ANCHOR) != 0;
            d->in_link = d->is_anchor || (parent >= 0 && ix->n[parent].in_link);
            d->owner = (parent >= 0 && (kind & PS_TAG_TRANSPARENT)) ? ix->n[parent].owner : idx;
            if (!ix->body && strcmp(name, "body") == 0)
                ix->body = idx;
            cur->_private = (void *)(intptr_t)(idx + 1);
            if (cur->children) {
                stack[top++] = idx;
                cur = cur->children;
                continue;
            }
            d->end = (uint32_t)ix->count;
        } else if ((cur->type == XML_TEXT_NODE || cur->type == XML_CDATA_SECTION_NODE) && top && cur->content) {
            size_t len = strlen((const char *)cur->content);
            if (!blank((const char *)cur->content, len)) {
                if (grow((void **)&ix->t, &cap_t, ix->n_text + 1, sizeof *ix->t))
                    goto nomem;
                ix->t[ix->n_text++] = (ps_dtext){(const char *)cur->content, (uint32_t)len, stack[top - 1]};
            }
        }
        while (cur && !cur->next && top) { /* leave finished elements */
            top--;
            ix->n[stack[top]].end = (uint32_t)ix->count;
            cur = cur->parent;
        }
        cur = (cur && cur != root) ? cur->next : NULL;
    }
    free(stack);
    stack = NULL;
    for (size_t l = 0; l < page->n_leaves; l++) {
        intptr_t v = (intptr_t)page->dom_map[page->leaf_nodes[l]]->_private;
        if (v > 0 && (size_t)v <= ix->count)
            ix->n[v - 1].leaf = (int32_t)l;
    }
    for (size_t i = 0; i < ix->count; i++)
        ix->n[i].node->_private = NULL;
    if (sibling_groups(ix))
        goto nomem;
    return 0;
nomem:
    free(stack);
    for (size_t i = 0; i < ix->count; i++)
        ix->n[i].node->_private = NULL;
    ps_dom_index_free(ix);
    return ps_set_error(err, PS_ERR_NOMEM, "out of memory indexing the DOM");
}

void ps_dom_index_free(ps_dom_index *ix)
{
    free(ix->n);
    free(ix->t);
    free(ix->group_size);
    memset(ix, 0, sizeof *ix);
}

size_t ps_dom_keep_leaves(const ps_dom_index *ix, const uint8_t *keep_elem, uint8_t *keep_leaf)
{
    size_t kept = 0;
    for (size_t i = 0; i < ix->count; i++) {
        if (!keep_elem[i])
            continue;
        int32_t leaf = ix->n[ix->n[i].owner].leaf;
        if (leaf >= 0 && !keep_leaf[leaf]) {
            keep_leaf[leaf] = 1;
            kept++;
        }
    }
    return kept;
}

void ps_dom_expand_subtrees(const ps_dom_index *ix, uint8_t *keep_elem)
{
    /* Pre-order: a kept element's subtree is i+1 .. end-1; carry the
     * furthest end reached by a kept ancestor. */
    size_t until = 0;
    for (size_t i = 0; i < ix->count; i++) {
        if (i < until)
            keep_elem[i] = 1;
        else if (keep_elem[i])
            until = ix->n[i].end;
    }
}

uint32_t ps_collapsed_chars(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    uint32_t chars = 0;
    int gap = 0, any = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        int ws = 0;
        size_t w = 1;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
            ws = 1;
        else if (c == 0xC2 && i + 1 < n && s[i + 1] == 0xA0)
            ws = 1, w = 2;
        else if (c == 0xE3 && i + 2 < n && s[i + 1] == 0x80 && s[i + 2] == 0x80)
            ws = 1, w = 3;
        if (ws) {
            gap = any;
            i += w;
            continue;
        }
        if (gap) {
            chars++;
            gap = 0;
        }
        any = 1;
        if ((c & 0xC0) != 0x80)
            chars++;
        i++;
    }
    return chars;
}

int ps_is_punct(uint32_t c)
{
    switch (c) {
    case ',': case '.': case '!': case '?': case ';': case ':':
    case 0x3001: case 0x3002:                 /* 、 。 */
    case 0xFF0C: case 0xFF0E: case 0xFF01: case 0xFF1F: case 0xFF1B: case 0xFF1A: /* ，．！？；： */
    case 0x201C: case 0x201D: case 0x2018: case 0x2019: /* “ ” ‘ ’ */
    case 0x300A: case 0x300B: case 0x3008: case 0x3009: /* 《 》 〈 〉 */
    case 0xFF08: case 0xFF09:                 /* （ ） */
    case 0x2026: case 0x2014:                 /* … — */
    case 0x060C: case 0x061B: case 0x061F: case 0x06D4: /* Arabic-script ، ؛ ؟ ۔ */
        return 1;
    default:
        return 0;
    }
}
