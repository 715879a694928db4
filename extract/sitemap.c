/* extract/sitemap.c — the URLs of a sitemap, a sitemap index, an RSS or an
 * Atom feed (--sitemap, --feed; docs/FETCH.md), read with libxml2's reader
 * of XML (no network, no entity expansion, no DTD loading): sitemaps.org's
 * <urlset><url><loc> and <sitemapindex><sitemap><loc> with their
 * <lastmod> (entries older than a given date are left out), RSS 2.0 and 0.9x
 * <item><link>, RSS 1.0 (RDF) <item><link>, Atom <entry><link href> (rel
 * alternate or none).  Relative URLs are resolved against the document's
 * URL.  A gzip'ed document (.xml.gz) is unpacked first. */
#define _POSIX_C_SOURCE 200809L
#include <curl/curl.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "extract/inputs_internal.h"

#define MAX_UNPACKED ((size_t)256 << 20)

static int name_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && n->name && !strcmp((const char *)n->name, name);
}

static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (name_is(c, name))
            return c;
    return NULL;
}

/* The trimmed text of @p n, malloc'ed ("" when none); NULL: no memory. */
static char *text_of(const xmlNode *n)
{
    xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
    const char *s = t ? (const char *)t : "";
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' || s[len - 1] == '\r'))
        len--;
    char *out = strndup(s, len);
    xmlFree(t);
    return out;
}

typedef struct walk {
    const char *base;
    const char *since;
    ps_sitemap_emit emit;
    void *ctx;
    size_t n;
    int failed;   /* emit said stop (no memory) */
} walk;

/* Resolve @p ref against the base and emit it.  0, or -1 (stop). */
static int emit_url(walk *w, const char *ref, ps_sitemap_kind kind)
{
    if (!ref || !*ref || w->failed)
        return w->failed ? -1 : 0;
    CURLU *u = curl_url();
    char *abs = NULL;
    if (u && (!w->base || curl_url_set(u, CURLUPART_URL, w->base, 0) == CURLUE_OK) &&
        curl_url_set(u, CURLUPART_URL, ref, 0) == CURLUE_OK)
        curl_url_get(u, CURLUPART_URL, &abs, 0);
    curl_url_cleanup(u);
    int rc = 0;
    if (abs && ps_is_url(abs)) { /* http(s) only: file:, ftp:, javascript: are not fetched */
        if (w->emit(w->ctx, abs, kind)) {
            w->failed = 1;
            rc = -1;
        } else {
            w->n++;
        }
    }
    curl_free(abs);
    return rc;
}

/* An entry is kept unless its lastmod is before `since` (dates compared as
 * YYYY-MM-DD strings; an entry without lastmod is kept). */
static int recent(const walk *w, const xmlNode *entry)
{
    if (!w->since)
        return 1;
    const xmlNode *lm = child(entry, "lastmod");
    if (!lm)
        return 1;
    char *t = text_of(lm);
    int keep = !t || strlen(t) < 10 || strncmp(t, w->since, 10) >= 0;
    free(t);
    return keep;
}

static int entries(walk *w, const xmlNode *root, const char *entry, ps_sitemap_kind kind)
{
    for (const xmlNode *e = root->children; e; e = e->next) {
        if (!name_is(e, entry) || !recent(w, e))
            continue;
        char *loc = text_of(child(e, "loc"));
        int rc = loc ? emit_url(w, loc, kind) : -1;
        free(loc);
        if (rc)
            return -1;
    }
    return 0;
}

static int rss_items(walk *w, const xmlNode *parent)
{
    for (const xmlNode *e = parent ? parent->children : NULL; e; e = e->next) {
        if (!name_is(e, "item"))
            continue;
        char *link = text_of(child(e, "link"));
        int rc = link ? emit_url(w, link, PS_SITEMAP_PAGE) : -1;
        free(link);
        if (rc)
            return -1;
    }
    return 0;
}

static int atom_entries(walk *w, const xmlNode *feed)
{
    for (const xmlNode *e = feed->children; e; e = e->next) {
        if (!name_is(e, "entry"))
            continue;
        for (const xmlNode *l = e->children; l; l = l->next) {
            if (!name_is(l, "link"))
                continue;
            xmlChar *rel = xmlGetProp(l, (const xmlChar *)"rel");
            int alt = !rel || !strcmp((const char *)rel, "alternate");
            xmlFree(rel);
            if (!alt)
                continue;
            xmlChar *href = xmlGetProp(l, (const xmlChar *)"href");
            int rc = href ? emit_url(w, (const char *)href, PS_SITEMAP_PAGE) : 0;
            xmlFree(href);
            if (rc)
                return -1;
            break; /* one link per entry */
        }
    }
    return 0;
}

/* gzip (a .xml.gz sitemap) unpacked into *out; 0, 1 not gzip, -1 error. */
static int gunzip(const char *data, size_t len, ps_buf *out, char *msg, size_t cap)
{
    if (len < 2 || (unsigned char)data[0] != 0x1f || (unsigned char)data[1] != 0x8b)
        return 1;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) {
        snprintf(msg, cap, "cannot unpack: out of memory");
        return -1;
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
    int zr = Z_OK;
    while (zr == Z_OK) {
        if (out->len >= MAX_UNPACKED || ps_buf_reserve(out, 65536)) {
            snprintf(msg, cap, "larger than %zu MiB unpacked", MAX_UNPACKED >> 20);
            zr = Z_MEM_ERROR;
            break;
        }
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = (uInt)(out->cap - out->len - 1);
        uInt before = z.avail_out;
        zr = inflate(&z, Z_NO_FLUSH);
        out->len += before - z.avail_out;
        if (zr == Z_BUF_ERROR && z.avail_in == 0) {
            snprintf(msg, cap, "gzip data truncated");
            break;
        }
        if (zr == Z_BUF_ERROR)
            zr = Z_OK;
    }
    inflateEnd(&z);
    if (zr != Z_STREAM_END) {
        if (!msg[0])
            snprintf(msg, cap, "corrupt gzip data");
        return -1;
    }
    return 0;
}

int ps_sitemap_parse(const char *data, size_t len, const char *base, const char *since, ps_sitemap_emit emit,
                     void *ctx, size_t *n_urls, char *msg, size_t cap)
{
    msg[0] = '\0';
    *n_urls = 0;
    ps_buf plain = {0};
    int g = gunzip(data, len, &plain, msg, cap);
    if (g < 0) {
        ps_buf_free(&plain);
        return -1;
    }
    if (g == 0) {
        data = plain.data ? plain.data : "";
        len = plain.len;
    }
    if (len > INT32_MAX) {
        ps_buf_free(&plain);
        snprintf(msg, cap, "too large");
        return -1;
    }
    xmlDoc *doc = xmlReadMemory(data, (int)len, base, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_RECOVER |
                                    XML_PARSE_NOCDATA);
    ps_buf_free(&plain);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root) {
        xmlFreeDoc(doc);
        snprintf(msg, cap, "not XML");
        return -1;
    }
    walk w = {base, since, emit, ctx, 0, 0};
    int kind, rc = 0;
    if (name_is(root, "urlset")) {
        kind = PS_SITEMAP_URLSET;
        rc = entries(&w, root, "url", PS_SITEMAP_PAGE);
    } else if (name_is(root, "sitemapindex")) {
        kind = PS_SITEMAP_INDEX;
        rc = entries(&w, root, "sitemap", PS_SITEMAP_CHILD);
    } else if (name_is(root, "rss")) {
        kind = PS_SITEMAP_FEED;
        rc = rss_items(&w, child(root, "channel"));
    } else if (name_is(root, "RDF")) { /* RSS 1.0: items beside the channel */
        kind = PS_SITEMAP_FEED;
        rc = rss_items(&w, root);
    } else if (name_is(root, "feed")) {
        kind = PS_SITEMAP_FEED;
        rc = atom_entries(&w, root);
    } else {
        snprintf(msg, cap, "the document is <%.40s>, not a sitemap (urlset, sitemapindex) nor a feed (rss, "
                 "RDF, Atom feed)", (const char *)root->name);
        kind = -1;
    }
    xmlFreeDoc(doc);
    *n_urls = w.n;
    if (rc) {
        snprintf(msg, cap, "out of memory");
        return -2;
    }
    return kind;
}
