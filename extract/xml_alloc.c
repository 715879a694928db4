/* extract/xml_alloc.c — libxml2 out of memory: libxml2's allocator goes
 * through these wrappers (xmlMemSetup in ps_init), which note a failed
 * allocation for the thread and, inside a parse, leave libxml2 at once.
 *
 * libxml2 2.9.14 does not stop its HTML parser when an allocation fails: it
 * reports "out of memory" and goes on, and under a memory limit it was seen
 * to spin for ever (a loop that makes no progress once an allocation fails),
 * to crash, or to return the part of the document it had built, which then
 * passed for the whole page (status ok, text truncated).  Stopping the
 * parser from the allocator (disabling SAX, moving the input to its end)
 * still spun or crashed in tests under `ulimit -v`.  So a failed allocation
 * during the parse longjmps out of libxml2 back to ps_xml_read, which frees
 * the partial tree and the parser context and reports the failure: the page
 * fails with PS_ERR_NOMEM, the thread goes on with the next page.  A node
 * allocated but not yet linked when the allocation failed may leak (a few
 * hundred bytes per failed page).  Outside a parse (the page model's walk),
 * a failed allocation returns NULL as usual and the caller fails the page. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

#include "extract/page_internal.h"

static _Thread_local jmp_buf *tl_jmp; /* armed while libxml2 parses on this thread */
static _Thread_local htmlParserCtxtPtr tl_ctxt; /* that parse */
static _Thread_local int tl_failed;   /* an allocation failed since ps_xml_failed_reset */

/* An allocation failed: note it; inside a parse, leave libxml2 at once. */
static void out_of_memory(void)
{
    tl_failed = 1;
    jmp_buf *j = tl_jmp;
    if (j) {
        tl_jmp = NULL;
        longjmp(*j, 1);
    }
}

static void *xml_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        out_of_memory();
    return p;
}

static void *xml_realloc(void *q, size_t n)
{
    void *p = realloc(q, n);
    if (!p && n)
        out_of_memory();
    return p;
}

static char *xml_strdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        out_of_memory();
    return p;
}

void ps_xml_alloc_setup(void)
{
    xmlMemSetup(free, xml_malloc, xml_realloc, xml_strdup);
}

void ps_xml_failed_reset(void)
{
    tl_failed = 0;
}

int ps_xml_failed(void)
{
    return tl_failed;
}

static void silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

htmlDocPtr ps_xml_read(const char *html, size_t len, const char *url, int options)
{
    /* libxml2's generic error channel (memory and buffer errors, which
     * HTML_PARSE_NOERROR does not silence) is per thread: quiet it here */
    xmlSetGenericErrorFunc(NULL, silent);
    htmlParserCtxtPtr c = htmlNewParserCtxt();
    if (!c) {
        tl_failed = 1;
        return NULL;
    }
    htmlDocPtr doc = NULL;
    jmp_buf jb;
    if (setjmp(jb) == 0) {
        tl_jmp = &jb;
        tl_ctxt = c;
        doc = htmlCtxtReadMemory(c, html, (int)len, url, "UTF-8", options);
        tl_jmp = NULL;
        tl_ctxt = NULL;
    } else {
        /* before the document exists, libxml2 was setting up its input and
         * encoder: half-made buffers there cannot be freed safely (a double
         * free was seen), so the context is left (a leak of about the page's
         * size, only when memory ran out at that moment) */
        int setup = !tl_ctxt || !tl_ctxt->myDoc;
        tl_ctxt = NULL;
        if (setup)
            return NULL;
        /* an allocation failed inside the parse: what was built is not
         * the page; the context's arrays and the partial tree are freed */
        if (c->myDoc) {
            xmlFreeDoc(c->myDoc);
            c->myDoc = NULL;
        }
    }
    htmlFreeParserCtxt(c);
    if (doc && tl_failed) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    return doc;
}
