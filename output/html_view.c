/* output/html_view.c — `pagesift --format html`: the page with each block
 * marked content, noise or template, for a person to check an extraction in
 * a browser.
 *
 * Marks: each block element of the page's DOM gets data-pagesift (its
 * class), data-pagesift-block (its block_id, as in the block CSV of
 * pagesift-features) and data-pagesift-path (its DOM path), a tooltip (title)
 * with the three, and an inline style: content blocks a green ground and
 * black text, noise and template blocks a white ground and grey text (each
 * block sets its own ground, so the colour of a block covers just its own
 * content, whatever it is nested in); leaves removed as site template are
 * struck through.  A summary bar goes at the top of the body: the method and
 * the blocks kept / removed / template.  Link lists (navigation, menus: a
 * list or nav whose text is mostly link text) are collapsed into compact
 * wrapped rows of at most a few lines (scrollable), so the page's own layout
 * stays readable without its style sheets.
 *
 * Safe to open: pages are hostile input, and the view is opened in a browser
 * from a local file.  Every event-handler attribute (on*) is removed;
 * javascript:, vbscript: and data: URLs in links and sources are removed;
 * script, object, embed, applet, iframe, frame, frameset, base, link, meta,
 * style and form-action-like elements that load or run something are
 * removed; and the head starts with a Content-Security-Policy that forbids
 * scripts and every remote load (default-src 'none'; inline styles only).
 *
 * The DOM is serialised with libxml2 as UTF-8. */
#include <string.h>

#include <libxml/HTMLtree.h>

#include "extract/page_internal.h"
#include "output/output.h"

static const char *const class_name[] = {"noise", "content", "template"};
static const char *const class_style[] = {
    /* noise: thin red outline, text greyed (inherited by what it holds) */
    "outline:1px solid #cf222e;outline-offset:-1px;color:#8c959f;background-color:#ffffff;",
    /* content: green outline and an opaque light green ground, black text,
     * so that kept text stands out however deep the noise around it */
    "outline:2px solid #1a7f37;outline-offset:-2px;background-color:#dafbe1;color:#1f2328;",
    /* template: dashed purple outline */
    "outline:2px dashed #8250df;outline-offset:-2px;color:#8c959f;background-color:#ffffff;",
};

/* The policy of the view: no script, nothing loaded from anywhere (images
 * included: opening the view must not tell a site it was looked at), inline
 * styles only, no form submission, no base URL, no framing. */
#define VIEW_CSP                                                                                   \
    "default-src 'none'; script-src 'none'; object-src 'none'; style-src 'unsafe-inline'; "      \
    "img-src 'none'; font-src 'none'; media-src 'none'; frame-src 'none'; connect-src 'none'; "  \
    "form-action 'none'; base-uri 'none'"

/* ---- making the page safe ------------------------------------------------ */

/* Elements removed with their content: they run code, load or embed
 * something, or redirect (meta refresh), or change how URLs resolve. */
static int dangerous_element(const xmlChar *name)
{
    static const char *const names[] = {
        "script", "object", "embed", "applet", "iframe", "frame", "frameset", "base", "link",
        "meta", "style", "noscript", "template", "portal", "svg", "math", "param", "audio",
        "video", "source", "track", "bgsound", "xml", "import", "layer", "ilayer", NULL};
    for (size_t i = 0; names[i]; i++)
        if (xmlStrcasecmp(name, BAD_CAST names[i]) == 0)
            return 1;
    return 0;
}

/* Attributes holding a URL that is followed or loaded. */
static int url_attribute(const xmlChar *name)
{
    static const char *const names[] = {
        "href", "src", "action", "formaction", "data", "codebase", "cite", "background",
        "poster", "lowsrc", "dynsrc", "longdesc", "usemap", "manifest", "ping", "srcset",
        "archive", "classid", "profile", "xlink:href", "imagesrcset", "itemtype", NULL};
    for (size_t i = 0; names[i]; i++)
        if (xmlStrcasecmp(name, BAD_CAST names[i]) == 0)
            return 1;
    return 0;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Does @p v (an attribute value) hold a javascript:, vbscript: or data: URL?
 * Browsers drop tabs and newlines inside URLs and ignore leading blanks and
 * control characters, so those are skipped when comparing; srcset, ping and
 * archive hold several URLs, so every URL start (after a blank or a comma)
 * is looked at. */
static int has_bad_scheme(const xmlChar *v)
{
    static const char *const schemes[] = {"javascript:", "vbscript:", "data:", "livescript:",
                                          "mocha:", NULL};
    char buf[64];
    for (const xmlChar *p = v; *p; p++) {
        if (p > v && p[-1] > 0x20 && p[-1] != ',')
            continue;
        size_t n = 0;
        for (const xmlChar *q = p; *q && n < sizeof buf - 1; q++) {
            if (*q <= 0x20) /* tab, newline, control characters, blank */
                continue;
            buf[n++] = (char)lower(*q);
            if (*q == ':')
                break;
        }
        buf[n] = '\0';
        for (size_t i = 0; schemes[i]; i++)
            if (strncmp(buf, schemes[i], strlen(schemes[i])) == 0)
                return 1;
    }
    return 0;
}

/* A style attribute that could run or load something (old IE's
 * expression(), behaviour bindings, url() to a script). */
static int bad_style(const xmlChar *v)
{
    char buf[4096];
    size_t n = 0;
    for (const xmlChar *p = v; *p && n < sizeof buf - 1; p++)
        if (*p > 0x20 && *p != '\\')
            buf[n++] = (char)lower(*p);
    buf[n] = '\0';
    return strstr(buf, "expression(") || strstr(buf, "javascript:") || strstr(buf, "vbscript:") ||
           strstr(buf, "behavior:") || strstr(buf, "behaviour:") || strstr(buf, "-moz-binding") ||
           strstr(buf, "@import");
}

/* Remove the element's dangerous attributes. */
static void clean_attributes(xmlNodePtr n)
{
    xmlAttrPtr a = n->properties;
    while (a) {
        xmlAttrPtr next = a->next;
        const xmlChar *name = a->name;
        int drop = 0;
        if ((name[0] == 'o' || name[0] == 'O') && (name[1] == 'n' || name[1] == 'N'))
            drop = 1; /* event handlers: onclick, onerror, onload, ... */
        else if (xmlStrcasecmp(name, BAD_CAST "srcdoc") == 0 ||
                 xmlStrcasecmp(name, BAD_CAST "http-equiv") == 0)
            drop = 1;
        else {
            xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
            if (v && url_attribute(name) && has_bad_scheme(v))
                drop = 1;
            else if (v && xmlStrcasecmp(name, BAD_CAST "style") == 0 && bad_style(v))
                drop = 1;
            xmlFree(v);
        }
        if (drop)
            xmlRemoveProp(a);
        a = next;
    }
}

/* The element and everything in it: dangerous attributes removed (done
 * before the blocks are marked, so that the marks are not removed with a
 * page's bad style attribute). */
static void clean_all_attributes(xmlNodePtr n)
{
    if (n->type != XML_ELEMENT_NODE)
        return;
    clean_attributes(n);
    for (xmlNodePtr c = n->children; c; c = c->next)
        clean_all_attributes(c);
}

/* Walk the subtree: remove dangerous elements (with what they hold),
 * comments and processing instructions. */
static void sanitize(xmlNodePtr n)
{
    for (xmlNodePtr c = n->children, next; c; c = next) {
        next = c->next;
        if (c->type == XML_ELEMENT_NODE) {
            if (dangerous_element(c->name)) {
                xmlUnlinkNode(c);
                xmlFreeNode(c);
                continue;
            }
            sanitize(c);
        } else if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) {
            xmlUnlinkNode(c); /* conditional comments can hold markup for old browsers */
            xmlFreeNode(c);
        }
    }
}

/* ---- collapsing link lists ------------------------------------------------ */

/* Characters of text in the subtree, and those inside <a>. */
static void text_chars(xmlNodePtr n, int in_link, size_t *all, size_t *link)
{
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (c->type == XML_TEXT_NODE && c->content) {
            size_t k = 0;
            for (const xmlChar *p = c->content; *p; p++)
                k += *p > 0x20 && (*p & 0xC0) != 0x80;
            *all += k;
            if (in_link)
                *link += k;
        } else if (c->type == XML_ELEMENT_NODE) {
            text_chars(c, in_link || xmlStrcasecmp(c->name, BAD_CAST "a") == 0, all, link);
        }
    }
}

static void prepend_style(xmlNodePtr n, const char *style)
{
    xmlChar *old = xmlGetProp(n, BAD_CAST "style");
    ps_buf s = {0};
    if (ps_buf_printf(&s, "%s%s", style, old ? (const char *)old : "") == 0)
        xmlSetProp(n, BAD_CAST "style", BAD_CAST s.data);
    ps_buf_free(&s);
    xmlFree(old);
}

/* Lists and nav elements that are mostly links become compact rows. */
static void collapse_link_lists(xmlNodePtr n)
{
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        int list = xmlStrcasecmp(c->name, BAD_CAST "ul") == 0 ||
                   xmlStrcasecmp(c->name, BAD_CAST "ol") == 0 ||
                   xmlStrcasecmp(c->name, BAD_CAST "menu") == 0 ||
                   xmlStrcasecmp(c->name, BAD_CAST "nav") == 0;
        if (list) {
            size_t all = 0, link = 0;
            text_chars(c, 0, &all, &link);
            if (all > 0 && link * 10 >= all * 6) {
                prepend_style(c, "display:flex;flex-wrap:wrap;gap:0 14px;list-style:none;"
                                 "padding:2px 4px;margin:2px 0;font-size:12px;line-height:1.4;"
                                 "max-height:5.8em;overflow:auto;");
                xmlSetProp(c, BAD_CAST "data-pagesift-collapsed", BAD_CAST "links");
                continue; /* nested lists stay inside the collapsed box */
            }
        }
        if (xmlStrcasecmp(c->name, BAD_CAST "img") == 0)
            prepend_style(c, "max-width:100%;height:auto;");
        collapse_link_lists(c);
    }
}

/* ---- the view --------------------------------------------------------------- */

static xmlNodePtr legend_item(xmlNodePtr parent, int cls, size_t count)
{
    xmlNodePtr span = xmlNewChild(parent, NULL, BAD_CAST "span", NULL);
    if (!span)
        return NULL;
    char style[256], text[96];
    snprintf(style, sizeof style, "%spadding:2px 8px;margin-right:8px;", class_style[cls]);
    xmlNewProp(span, BAD_CAST "style", BAD_CAST style);
    xmlNewProp(span, BAD_CAST "data-pagesift-count", BAD_CAST class_name[cls]);
    snprintf(text, sizeof text, "%zu %s", count,
             cls == PS_CLASS_CONTENT ? "kept (content)"
             : cls == PS_CLASS_NOISE ? "removed (noise)"
                                     : "template");
    xmlNodeAddContent(span, BAD_CAST text);
    return span;
}

int ps_html_view(ps_page *page, const uint8_t *block_class, const char *method,
                 const char *page_id, ps_buf *out, ps_error *err)
{
    if (!ps_page_dom(page)) /* a DOM of the cleaned page, to mark and serialise */
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    xmlNodePtr root = xmlDocGetRootElement(page->doc);
    if (!root || page->n_blocks == 0)
        return ps_set_error(err, PS_ERR_PARSE, "the page has no body to mark");
    size_t count[3] = {0, 0, 0}, struck = 0;
    clean_all_attributes(root);
    ps_buf style = {0};
    for (size_t i = 0; i < page->n_blocks; i++) {
        int cls = block_class ? block_class[i] : PS_CLASS_CONTENT;
        if (cls < 0 || cls > 2)
            cls = PS_CLASS_NOISE;
        count[cls]++;
        xmlNodePtr n = page->dom_map[page->block_nodes[i]];
        xmlChar *old = xmlGetProp(n, BAD_CAST "style");
        char id[18];
        ps_block_id(page_id ? page_id : "", page->blocks[i].path, id);
        style.len = 0;
        if (ps_buf_printf(&style, "%s%s", class_style[cls], old ? (const char *)old : "") != 0) {
            xmlFree(old);
            ps_buf_free(&style);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        xmlFree(old);
        xmlSetProp(n, BAD_CAST "style", BAD_CAST style.data);
        xmlSetProp(n, BAD_CAST "data-pagesift", BAD_CAST class_name[cls]);
        xmlSetProp(n, BAD_CAST "data-pagesift-block", BAD_CAST id);
        xmlSetProp(n, BAD_CAST "data-pagesift-path", BAD_CAST page->blocks[i].path);
        style.len = 0;
        if (ps_buf_printf(&style, "%s %s %s", class_name[cls], id, page->blocks[i].path) == 0)
            xmlSetProp(n, BAD_CAST "title", BAD_CAST style.data);
    }
    /* leaves the template step removed: struck through inside their block */
    for (size_t i = 0; i < page->n_leaves; i++) {
        if (!page->leaves[i].removed)
            continue;
        struck++;
        xmlNodePtr n = page->dom_map[page->leaf_nodes[i]];
        xmlChar *old = xmlGetProp(n, BAD_CAST "style");
        style.len = 0;
        if (ps_buf_printf(&style, "text-decoration:line-through;color:#8250df;%s",
                          old ? (const char *)old : "") != 0) {
            xmlFree(old);
            ps_buf_free(&style);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        xmlFree(old);
        xmlSetProp(n, BAD_CAST "style", BAD_CAST style.data);
        xmlSetProp(n, BAD_CAST "data-pagesift-leaf", BAD_CAST "template");
    }
    ps_buf_free(&style);

    /* Made safe after marking: from here on only the root and the body
     * (block 0) are used, and a removed subtree may hold marked blocks. */
    xmlNodePtr body = page->dom_map[page->block_nodes[0]];
    for (xmlNodePtr c = root->children, next; c; c = next) {
        next = c->next;
        if (c != body && c->type == XML_ELEMENT_NODE && xmlStrcasecmp(c->name, BAD_CAST "body") &&
            (xmlStrcasecmp(c->name, BAD_CAST "head") == 0 || dangerous_element(c->name))) {
            xmlUnlinkNode(c); /* the page's own head: nothing of it is shown */
            xmlFreeNode(c);
        }
    }
    sanitize(root);
    /* <!DOCTYPE html>: the view renders in standards mode */
    xmlDtdPtr dtd = xmlGetIntSubset(page->doc);
    if (dtd) {
        xmlUnlinkNode((xmlNodePtr)dtd);
        xmlFreeDtd(dtd);
    }
    xmlCreateIntSubset(page->doc, BAD_CAST "html", NULL, NULL);
    collapse_link_lists(body);

    /* <head><meta CSP><meta charset=utf-8><title>..</title></head> */
    xmlNodePtr head = xmlNewDocNode(page->doc, NULL, BAD_CAST "head", NULL);
    if (root->children)
        xmlAddPrevSibling(root->children, head);
    else
        xmlAddChild(root, head);
    xmlNodePtr csp = xmlNewChild(head, NULL, BAD_CAST "meta", NULL);
    xmlNewProp(csp, BAD_CAST "http-equiv", BAD_CAST "Content-Security-Policy");
    xmlNewProp(csp, BAD_CAST "content", BAD_CAST VIEW_CSP);
    xmlNodePtr meta = xmlNewChild(head, NULL, BAD_CAST "meta", NULL);
    xmlNewProp(meta, BAD_CAST "charset", BAD_CAST "utf-8");
    xmlNodePtr title = xmlNewChild(head, NULL, BAD_CAST "title", NULL);
    xmlNodeAddContent(title, BAD_CAST "pagesift: ");
    xmlNodeAddContent(title, BAD_CAST(page->title ? page->title : ""));

    /* the summary bar, first thing in the body, kept on screen */
    xmlNodePtr legend = xmlNewDocNode(page->doc, NULL, BAD_CAST "div", NULL);
    xmlNewProp(legend, BAD_CAST "data-pagesift-legend", BAD_CAST "1");
    xmlNewProp(legend, BAD_CAST "style",
               BAD_CAST "font:13px sans-serif;padding:6px;margin:0 0 8px 0;background:#fff;"
                        "color:#000;border-bottom:1px solid #999;position:sticky;top:0;"
                        "z-index:2147483647;");
    xmlNodeAddContent(legend, BAD_CAST "pagesift ");
    xmlNodeAddContent(legend, BAD_CAST(method ? method : ""));
    xmlNodeAddContent(legend, BAD_CAST ": blocks ");
    legend_item(legend, PS_CLASS_CONTENT, count[PS_CLASS_CONTENT]);
    legend_item(legend, PS_CLASS_NOISE, count[PS_CLASS_NOISE]);
    legend_item(legend, PS_CLASS_TEMPLATE, count[PS_CLASS_TEMPLATE]);
    char tail[160];
    snprintf(tail, sizeof tail, "%zu template line%s struck through; hover a box for its block_id and path",
             struck, struck == 1 ? "" : "s");
    xmlNodePtr note = xmlNewChild(legend, NULL, BAD_CAST "span", NULL);
    xmlNewProp(note, BAD_CAST "style", BAD_CAST "color:#555;");
    xmlNodeAddContent(note, BAD_CAST tail);
    if (body->children)
        xmlAddPrevSibling(body->children, legend);
    else
        xmlAddChild(body, legend);

    xmlChar *mem = NULL;
    int size = 0;
    htmlDocDumpMemoryFormat(page->doc, &mem, &size, 0);
    if (!mem)
        return ps_set_error(err, PS_ERR_NOMEM, "cannot serialise the page");
    int rc = ps_buf_append(out, mem, (size_t)size);
    if (rc == 0 && (size == 0 || mem[size - 1] != '\n'))
        rc = ps_buf_putc(out, '\n');
    xmlFree(mem);
    if (rc != 0)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    return 0;
}

static int render(const ps_out_page *p, ps_buf *out, ps_error *err)
{
    if (p->rec->error) {
        if (ps_buf_printf(out, "<!-- pagesift: failed: %s -->\n", p->rec->error) != 0)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (p->rec->duplicate_of) { /* --dedup */
        if (ps_buf_printf(out, "<!-- pagesift: %s duplicate of %s -->\n", p->rec->id, p->rec->duplicate_of) != 0)
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return 0;
    }
    return ps_html_view(p->page, p->x->block_class, p->method, p->rec->id, out, err);
}

const ps_output_format ps_output_html = {
    .name = "html",
    .extension = ".html",
    .summary = "the page with each block outlined content (green), noise (red) or template "
               "(purple, dashed), to check in a browser",
    .flags = PS_OUT_TREE,
    .render = render,
};
