/* methods/html_view.c — `pagesift --format html`: the page with each block
 * marked content, noise or template, for a person to check an extraction in
 * a browser.  Each block element of the page's DOM gets a data-pagesift
 * attribute and an inline style: content blocks a green ground and black
 * text, noise and template blocks a white ground and grey text (each block
 * sets its own ground, so the colour of a block covers just its own content,
 * whatever it is nested in); leaves removed as site template are struck
 * through; a legend goes at the top of the body; the DOM is serialised with
 * libxml2 as UTF-8. */
#include <string.h>

#include <libxml/HTMLtree.h>

#include "extract/page_internal.h"
#include "methods/batch.h"
#include "methods/method.h"

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

static xmlNodePtr legend_item(xmlNodePtr parent, int cls)
{
    xmlNodePtr span = xmlNewChild(parent, NULL, BAD_CAST "span", NULL);
    if (!span)
        return NULL;
    char style[256];
    snprintf(style, sizeof style, "%spadding:2px 8px;margin-right:8px;", class_style[cls]);
    xmlNewProp(span, BAD_CAST "style", BAD_CAST style);
    xmlNodeAddContent(span, BAD_CAST class_name[cls]);
    return span;
}

int ps_html_view(ps_page *page, const uint8_t *block_class, const char *method, ps_buf *out,
                 ps_error *err)
{
    xmlNodePtr root = xmlDocGetRootElement(page->doc);
    if (!root || page->n_blocks == 0)
        return ps_set_error(err, PS_ERR_PARSE, "the page has no body to mark");
    ps_buf style = {0};
    for (size_t i = 0; i < page->n_blocks; i++) {
        int cls = block_class ? block_class[i] : PS_BLOCK_CONTENT;
        if (cls < 0 || cls > 2)
            cls = PS_BLOCK_NOISE;
        xmlNodePtr n = page->block_nodes[i];
        xmlChar *old = xmlGetProp(n, BAD_CAST "style");
        style.len = 0;
        if (ps_buf_printf(&style, "%s%s", class_style[cls], old ? (const char *)old : "") != 0) {
            xmlFree(old);
            ps_buf_free(&style);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
        xmlFree(old);
        xmlSetProp(n, BAD_CAST "style", BAD_CAST style.data);
        xmlSetProp(n, BAD_CAST "data-pagesift", BAD_CAST class_name[cls]);
    }
    /* leaves the template step removed: struck through inside their block */
    for (size_t i = 0; i < page->n_leaves; i++) {
        if (!page->leaves[i].removed)
            continue;
        xmlNodePtr n = page->leaf_nodes[i];
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

    /* <head><meta charset=utf-8><title>..</title></head> (the page model drops the head) */
    xmlNodePtr head = NULL;
    for (xmlNodePtr c = root->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && xmlStrcasecmp(c->name, BAD_CAST "head") == 0)
            head = c;
    if (!head) {
        head = xmlNewDocNode(page->doc, NULL, BAD_CAST "head", NULL);
        if (root->children)
            xmlAddPrevSibling(root->children, head);
        else
            xmlAddChild(root, head);
    }
    xmlNodePtr meta = xmlNewDocNode(page->doc, NULL, BAD_CAST "meta", NULL);
    xmlNewProp(meta, BAD_CAST "charset", BAD_CAST "utf-8");
    if (head->children)
        xmlAddPrevSibling(head->children, meta);
    else
        xmlAddChild(head, meta);
    xmlNodePtr title = xmlNewChild(head, NULL, BAD_CAST "title", NULL);
    xmlNodeAddContent(title, BAD_CAST "pagesift: ");
    xmlNodeAddContent(title, BAD_CAST(page->title ? page->title : ""));

    /* legend, first thing in the body */
    xmlNodePtr body = page->block_nodes[0];
    xmlNodePtr legend = xmlNewDocNode(page->doc, NULL, BAD_CAST "div", NULL);
    xmlNewProp(legend, BAD_CAST "data-pagesift-legend", BAD_CAST "1");
    xmlNewProp(legend, BAD_CAST "style",
               BAD_CAST "font:13px sans-serif;padding:6px;margin:0 0 8px 0;background:#fff;"
                        "color:#000;border-bottom:1px solid #999;");
    xmlNodeAddContent(legend, BAD_CAST "pagesift ");
    xmlNodeAddContent(legend, BAD_CAST(method ? method : ""));
    xmlNodeAddContent(legend, BAD_CAST ": ");
    legend_item(legend, PS_BLOCK_CONTENT);
    legend_item(legend, PS_BLOCK_NOISE);
    legend_item(legend, PS_BLOCK_TEMPLATE);
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
