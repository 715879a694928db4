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
 * a failed allocation returns NULL as usual and the caller fails the page.
 *
 * The page model builds no DOM (extract/tree.c builds a compact tree from
 * SAX events), so the page arena of issue 33's first steps (libxml2's
 * allocations of a DOM cut from per-page chunks, freed with the page) is
 * gone: frees go straight to free(). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

#include "extract/page_internal.h"

/* ---- out of memory ---- */

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
    size_t n = strlen(s) + 1;
    char *p = xml_malloc(n);
    memcpy(p, s, n);
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

void ps_xml_failed_note(void)
{
    tl_failed = 1;
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

/* htmlCtxtReadMemory(c, html, len, url, "UTF-8", options) as libxml2 2.9.14
 * does it (htmlDoRead), except that the page's bytes are read where they
 * are: xmlParserInputBufferCreateMem copied them into a buffer of its own
 * (grown by doubling: 8 MB for a 5.3 MB page) that lived through the whole
 * parse beside the UTF-8 buffer the encoding switch converts them into.
 * The static buffer is that switch's raw input only; the parser reads the
 * converted buffer, as before.  With @p utf8_terminated (the bytes are
 * valid UTF-8 without a NUL, and a NUL follows them) there is no switch
 * either: the parser reads the bytes themselves, as UTF-8 (the context's
 * charset from the start), and the input's encoding is set to UTF-8 as the
 * switch sets it, so that a <meta charset> does not switch it later.  The
 * switch's UTF-8 to UTF-8 conversion was a copy of the page, faulted in
 * afresh for every page over the mapping threshold (a quarter of a run's
 * page faults on wcxb-dev).  NULL when libxml2 could not set up the input
 * (out of memory). */
static __attribute__((noinline)) htmlDocPtr read_in_place(htmlParserCtxtPtr c, const char *html, size_t len, const char *url,
                                int options, int utf8_terminated, void (*setup)(htmlParserCtxtPtr, void *), void *user)
{
    htmlCtxtReset(c);
    xmlParserInputPtr in;
    if (utf8_terminated) { /* a string input: no buffer, read where it is */
        if (!(in = xmlNewStringInputStream(c, (const xmlChar *)html)))
            return NULL;
    } else {
        xmlParserInputBufferPtr buf = xmlParserInputBufferCreateStatic(html, (int)len, XML_CHAR_ENCODING_NONE);
        if (!buf)
            return NULL;
        if (!(in = xmlNewIOInputStream(c, buf, XML_CHAR_ENCODING_NONE))) {
            xmlFreeParserInputBuffer(buf);
            return NULL;
        }
    }
    inputPush(c, in);
    htmlCtxtUseOptions(c, options);
    c->html = 1;
    if (utf8_terminated) {
        c->charset = XML_CHAR_ENCODING_UTF8;
        c->input->encoding = xmlStrdup((const xmlChar *)"UTF-8");
    } else {
        xmlCharEncodingHandlerPtr utf8 = xmlFindCharEncodingHandler("UTF-8");
        if (utf8) {
            xmlSwitchToEncoding(c, utf8);
            if (c->input->encoding)
                xmlFree((xmlChar *)c->input->encoding);
            c->input->encoding = xmlStrdup((const xmlChar *)"UTF-8");
        }
    }
    if (url && c->input && !c->input->filename)
        c->input->filename = (char *)xmlStrdup((const xmlChar *)url);
    if (setup)
        setup(c, user);
    htmlParseDocument(c);
    htmlDocPtr doc = c->myDoc;
    c->myDoc = NULL;
    return doc;
}

htmlDocPtr ps_xml_read(const char *html, size_t len, const char *url, int options)
{
    return ps_xml_read_sax(html, len, url, options, 0, NULL, NULL);
}

htmlDocPtr ps_xml_read_sax(const char *html, size_t len, const char *url, int options, int utf8_terminated,
                           void (*setup)(htmlParserCtxtPtr, void *), void *user)
{
    /* libxml2's generic error channel (memory and buffer errors, which
     * HTML_PARSE_NOERROR does not silence) is per thread: quiet it here */
    xmlSetGenericErrorFunc(NULL, silent);
    htmlParserCtxtPtr c = htmlNewParserCtxt();
    if (!c) {
        tl_failed = 1;
        return NULL;
    }
    /* no table of the document's id attributes (xmlAddID, for xmlGetID and
     * DTD validation): nothing here looks an element up by id, and the
     * parse made one entry per id attribute (16 M instructions on 60
     * dragnet pages, with xmlIsID and freeing the table) */
    c->loadsubset |= XML_SKIP_IDS;
    htmlDocPtr doc = NULL;
    jmp_buf jb;
    if (setjmp(jb) == 0) {
        tl_jmp = &jb;
        tl_ctxt = c;
        doc = read_in_place(c, html, len, url, options, utf8_terminated, setup, user);
        /* libxml2 keeps a copy of the last error per thread: not kept
         * past the parse */
        xmlResetLastError();
        tl_jmp = NULL;
        tl_ctxt = NULL;
    } else {
        xmlResetLastError();
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
