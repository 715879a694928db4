/* annotate/annotate.c — the annotation workspace of pagesift-annotate: one
 * folder a person opens in a browser (file:// or the --serve server) to label
 * blocks by clicking the page (docs/ANNOTATE.md).
 *
 * Per page: the page's cleaned DOM (ps_page's own: script, style, iframe,
 * embed, ... already removed by the page model) is sanitised again (event
 * handlers, javascript: URLs, object/applet/frame/base/link/meta removed),
 * every block that pagesift-features writes a row for is marked with
 * data-ps="K" on its very element (ps_page's block_nodes: the mapping is
 * exact, not re-derived), the page's inline <style> sheets are taken from a
 * second parse of the original, and a Content-Security-Policy allows only
 * the workspace's own scripts (a per-workspace random nonce), inline CSS and
 * data: images: nothing of the page runs, nothing is loaded from anywhere.
 * The block CSV rows are written by ps_block_csv_page itself (for
 * annotation), so the exported CSV is byte for byte pagesift-features' with
 * the label column filled. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libxml/HTMLtree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate/annotate_internal.h"
#include "common/util.h"
#include "extract/page_internal.h"
#include "pagesift.h"
#include "pagesift/annotate.h"
#include "pagesift/labels.h"
#include "pagesift/site_models.h"
#include "pagesift/templates.h"

struct ps_annotate {
    char *dir;
    ps_annotate_options opt;
    char id[33];     /* workspace id (random hex), keys the browser's storage */
    char nonce[33];  /* CSP nonce of the workspace's own scripts */
    ps_extractor *ex;
    ps_template_store *store;
    const char *const *tags;
    json_t *resume;  /* block_id -> 0/1 from --resume, or NULL */
    size_t resume_used;
    json_t *pages;   /* workspace.js: one summary per page */
    json_t *all;     /* blocks.json: every page's block data */
    ps_buf rows;     /* rows.js body: "bid":["before","after"], ... */
    char *header;    /* CSV header line (without CRLF) */
    size_t n_pages, n_blocks, n_pre;
};

/* ------------------------------------------------------------------ */
/* small helpers                                                        */
/* ------------------------------------------------------------------ */

static int random_hex(char *out, size_t n_hex)
{
    unsigned char b[32];
    size_t nb = (n_hex + 1) / 2;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, b, nb);
    close(fd);
    if (r != (ssize_t)nb)
        return -1;
    for (size_t i = 0; i < n_hex; i++)
        out[i] = "0123456789abcdef"[(b[i / 2] >> ((i & 1) ? 0 : 4)) & 15];
    out[n_hex] = '\0';
    return 0;
}

/* 1 empty, 0 not, -1 not a readable folder */
static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            empty = 0;
            break;
        }
    closedir(d);
    return empty;
}

/* One folder (its parent exists); an existing folder is fine.  A symbolic
 * link is refused (lstat) unless @p top (the -o folder itself, named by the
 * user): rewriting a workspace whose pages/ linked elsewhere wrote the
 * pages there (issue 32, defect 7). */
static int make_dir(const char *path, int top, ps_error *err)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if ((top ? stat(path, &st) : lstat(path, &st)) == 0 && S_ISDIR(st.st_mode))
            return 0;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return ps_set_error(err, PS_ERR_IO,
                                "%s: is a symbolic link; a workspace's folders must be real folders "
                                "(nothing is written through a link)", path);
        return ps_set_error(err, PS_ERR_IO, "%s: exists and is not a folder", path);
    }
    return ps_set_error(err, PS_ERR_IO, "%s: cannot create the folder: %s", path, strerror(errno));
}

static int write_file(const ps_annotate *a, const char *rel, const void *data, size_t len,
                      ps_error *err)
{
    ps_buf p = {0};
    if (ps_buf_printf(&p, "%s/%s", a->dir, rel)) {
        ps_buf_free(&p);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    int rc = ps_write_file_atomic(p.data, data, len, err);
    ps_buf_free(&p);
    return rc;
}

/* JSON for a <script> element or a .js file: ASCII only (U+2028/9
 * escaped), and '<' and '>' written \u003c / \u003e, so that nothing in it
 * ("</script>", "<!--<script>") can end or re-enter the HTML parser's
 * script states.  '<' and '>' occur only inside JSON strings. */
static char *json_for_script(const json_t *j)
{
    char *d = json_dumps(j, JSON_COMPACT | JSON_ESCAPE_SLASH | JSON_ENSURE_ASCII);
    if (!d)
        return NULL;
    size_t n = 0, len = strlen(d);
    for (size_t i = 0; i < len; i++)
        n += d[i] == '<' || d[i] == '>';
    if (!n)
        return d;
    char *o = malloc(len + 5 * n + 1), *w = o;
    if (!o) {
        free(d);
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        if (d[i] == '<' || d[i] == '>') {
            memcpy(w, d[i] == '<' ? "\\u003c" : "\\u003e", 6);
            w += 6;
        } else
            *w++ = d[i];
    }
    *w = '\0';
    free(d);
    return o;
}

/* ------------------------------------------------------------------ */
/* the block CSV rows of a page, split around the label column          */
/* ------------------------------------------------------------------ */

/* Split one CSV record (no line end) into raw fields: start and length of
 * each, quotes kept.  Returns the number of fields (at most cap). */
static size_t split_fields(const char *s, size_t n, size_t *start, size_t *len, size_t cap)
{
    size_t k = 0, i = 0;
    while (k < cap) {
        size_t b = i;
        int q = 0;
        while (i < n) {
            if (s[i] == '"')
                q = !q;
            else if (s[i] == ',' && !q)
                break;
            i++;
        }
        start[k] = b;
        len[k] = i - b;
        k++;
        if (i >= n)
            break;
        i++; /* the comma */
    }
    return k;
}

/* A raw field without its quotes (quotes undoubled), malloc'ed. */
static char *unquote(const char *s, size_t n)
{
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        for (size_t i = 1; i + 1 < n; i++) {
            o[k++] = s[i];
            if (s[i] == '"' && i + 2 < n && s[i + 1] == '"')
                i++;
        }
    } else {
        memcpy(o, s, n);
        k = n;
    }
    o[k] = '\0';
    return o;
}

static int js_string(ps_buf *b, const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    if (!j)
        return -1;
    char *d = json_dumps(j, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH | JSON_ENSURE_ASCII);
    json_decref(j);
    if (!d)
        return -1;
    int rc = ps_buf_append(b, d, strlen(d));
    free(d);
    return rc;
}

/* ------------------------------------------------------------------ */
/* sanitising the DOM                                                   */
/* ------------------------------------------------------------------ */

static int is_dropped_element(const char *name)
{
    static const char *const drop[] = {"script", "iframe", "frame", "frameset", "object",
                                       "embed", "applet", "base", "link", "meta", "noscript",
                                       "template", "portal", "style", "svg", "math", "param",
                                       "fencedframe", "audio", "video", "source", "track", NULL};
    for (const char *const *d = drop; *d; d++)
        if (ps_ascii_casecmp(name, *d) == 0)
            return 1;
    return 0;
}

/* A URL-ish attribute value that would run code or load a document. */
static int bad_url(const char *v)
{
    char low[16];
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)v; *p && k < sizeof low - 1; p++) {
        if (*p <= ' ')
            continue; /* browsers ignore whitespace and controls in the scheme */
        low[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    }
    low[k] = '\0';
    return strncmp(low, "javascript:", 11) == 0 || strncmp(low, "vbscript:", 9) == 0 ||
           strncmp(low, "data:text/h", 11) == 0 || strncmp(low, "data:image/s", 12) == 0;
}

static int is_dropped_attr(const char *name)
{
    if ((name[0] == 'o' || name[0] == 'O') && (name[1] == 'n' || name[1] == 'N'))
        return 1; /* every event handler */
    if (ps_ascii_ncasecmp(name, "data-ps", 7) == 0)
        return 1; /* ours only: a page cannot pose as a block */
    static const char *const drop[] = {"srcdoc", "formaction", "action", "ping", "http-equiv",
                                       "srcset", "imagesrcset", "autofocus", "nonce", NULL};
    for (const char *const *d = drop; *d; d++)
        if (ps_ascii_casecmp(name, *d) == 0)
            return 1;
    return 0;
}

/* Attributes that make the browser fetch something. */
static int is_load_attr(const char *name)
{
    static const char *const load[] = {"src", "lowsrc", "dynsrc", "poster", "background",
                                       "data", "xlink:href", "href:xlink", NULL};
    for (const char *const *d = load; *d; d++)
        if (ps_ascii_casecmp(name, *d) == 0)
            return 1;
    return 0;
}

/* Elements whose start tag switches a browser's tokenizer into a raw text
 * state: <plaintext> for the rest of the file (the workspace's own scripts
 * after the page became text and the annotation panel never ran: issue 32,
 * defect 13), <xmp>, <noembed>, <noframes> up to their end tag (the text
 * libxml2 escapes in them would show as "&lt;").  The copy shown renames
 * them (the node stays: it may be a block that is marked): the ones shown
 * as preformatted text become <pre>, the ones a browser never shows a
 * hidden <div>; data-ps-was keeps the name.  (script, style, iframe,
 * noscript are dropped above; textarea and title the page model removes;
 * RCDATA ones would be closed by the end tag libxml2 writes anyway.) */
static void neutralise_raw_text(xmlNodePtr el)
{
    static const char *const pre[] = {"plaintext", "xmp", "listing", NULL};
    static const char *const hidden[] = {"noembed", "noframes", "textarea", "title", NULL};
    const char *name = (const char *)el->name, *to = NULL;
    for (const char *const *k = pre; *k && !to; k++)
        if (ps_ascii_casecmp(name, *k) == 0)
            to = "pre";
    for (const char *const *k = hidden; *k && !to; k++)
        if (ps_ascii_casecmp(name, *k) == 0)
            to = "div";
    if (!to)
        return;
    xmlChar *was = xmlStrdup(el->name);
    xmlNodeSetName(el, (const xmlChar *)to);
    xmlSetProp(el, (const xmlChar *)"data-ps-was", was);
    if (to[0] == 'd')
        xmlSetProp(el, (const xmlChar *)"hidden", (const xmlChar *)"");
    xmlFree(was);
}

static void sanitise(xmlNodePtr node)
{
    xmlNodePtr cur = node->children;
    while (cur) {
        xmlNodePtr next = cur->next;
        if (cur->type == XML_ELEMENT_NODE) {
            if (is_dropped_element((const char *)cur->name)) {
                xmlUnlinkNode(cur);
                xmlFreeNode(cur);
                cur = next;
                continue;
            }
            xmlAttrPtr at = cur->properties;
            xmlChar *moved = NULL; /* a remote src, kept as data-ps-src for the record */
            while (at) {
                xmlAttrPtr an = at->next;
                int drop = is_dropped_attr((const char *)at->name);
                if (!drop) {
                    xmlChar *v = xmlNodeGetContent((xmlNodePtr)at);
                    drop = v && bad_url((const char *)v);
                    if (!drop && v && is_load_attr((const char *)at->name) &&
                        ps_ascii_ncasecmp((const char *)v, "data:", 5) != 0) {
                        drop = 1; /* nothing is loaded from anywhere (CSP blocks it too) */
                        if (!moved) {
                            moved = v;
                            v = NULL;
                        }
                    }
                    xmlFree(v);
                }
                if (drop)
                    xmlRemoveProp(at);
                at = an;
            }
            if (moved) {
                xmlSetProp(cur, (const xmlChar *)"data-ps-src", moved);
                xmlFree(moved);
            }
            neutralise_raw_text(cur); /* after the attributes: data-ps-was is ours */
            sanitise(cur);
        } else if (cur->type == XML_COMMENT_NODE || cur->type == XML_PI_NODE) {
            xmlUnlinkNode(cur);
            xmlFreeNode(cur);
        }
        cur = next;
    }
}

/* The <style> sheets of the original page (the page model drops them), each
 * with "</" written "<\/" (the same CSS) so it cannot close our element. */
static int page_styles(const ps_input *in, ps_buf *out)
{
    ps_decoded dec = {0};
    ps_error e = {0};
    if (ps_decode(in->data, in->len, in->charset, &dec, &e))
        return -1;
    htmlDocPtr doc = htmlReadMemory(dec.utf8, (int)dec.len, NULL, "UTF-8",
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                        HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | XML_PARSE_HUGE);
    free(dec.utf8);
    if (!doc)
        return 0;
    xmlNodePtr n = xmlDocGetRootElement(doc);
    size_t total = 0;
    while (n) {
        if (n->type == XML_ELEMENT_NODE && ps_ascii_casecmp((const char *)n->name, "style") == 0) {
            xmlChar *css = xmlNodeGetContent(n);
            if (css) {
                size_t len = strlen((const char *)css);
                if (total + len < ((size_t)4 << 20)) { /* 4 MB of CSS at most */
                    ps_buf_append(out, "<style>", 7);
                    for (size_t i = 0; i < len; i++) {
                        if (css[i] == '<' && css[i + 1] == '/') {
                            ps_buf_append(out, "<\\/", 3);
                            i++;
                        } else
                            ps_buf_putc(out, (char)css[i]);
                    }
                    ps_buf_append(out, "</style>\n", 9);
                    total += len;
                }
                xmlFree(css);
            }
            /* do not descend */
        } else if (n->type == XML_ELEMENT_NODE && n->children) {
            n = n->children;
            continue;
        }
        while (n && !n->next)
            n = n->parent && n->parent->type == XML_ELEMENT_NODE ? n->parent : NULL;
        if (n)
            n = n->next;
    }
    xmlFreeDoc(doc);
    return 0;
}

static void html_escape(ps_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': ps_buf_append(b, "&lt;", 4); break;
        case '>': ps_buf_append(b, "&gt;", 4); break;
        case '&': ps_buf_append(b, "&amp;", 5); break;
        case '"': ps_buf_append(b, "&quot;", 6); break;
        default: ps_buf_putc(b, *s);
        }
    }
}

/* The CSP of every workspace page: the workspace's scripts (nonce) only;
 * inline CSS; images and fonts only as data: URLs; connections only to the
 * server that served the page (--serve; nothing under file://). */
static void csp(ps_buf *b, const char *nonce)
{
    ps_buf_printf(b,
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                  "script-src 'nonce-%s'; style-src 'unsafe-inline'; img-src data:; font-src "
                  "data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-src "
                  "'none'; object-src 'none'; media-src 'none'; worker-src 'none'; manifest-src "
                  "'none'\">\n",
                  nonce);
}

/* ------------------------------------------------------------------ */
/* the workspace                                                        */
/* ------------------------------------------------------------------ */

ps_annotate *ps_annotate_new(const char *dir, const ps_annotate_options *opt, ps_error *err)
{
    ps_annotate *a = calloc(1, sizeof *a);
    if (!a || !(a->dir = strdup(dir))) {
        free(a);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (opt)
        a->opt = *opt;
    if (random_hex(a->id, 16) || random_hex(a->nonce, 32)) {
        ps_set_error(err, PS_ERR_IO, "cannot read /dev/urandom");
        goto fail;
    }
    /* an existing folder must be empty or a workspace: never clobber others' files */
    struct stat st;
    if (stat(dir, &st) == 0) {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/data/workspace.js", dir);
        int is_ws = access(probe, F_OK) == 0;
        if (!is_ws) {
            int empty = dir_is_empty(dir);
            if (empty < 0) {
                ps_set_error(err, PS_ERR_IO, "%s: cannot list the folder: %s", dir, strerror(errno));
                goto fail;
            }
            if (!empty) {
                ps_set_error(err, PS_ERR_IO,
                             "%s: the folder exists, is not empty and is not an annotation "
                             "workspace; give a new or empty folder",
                             dir);
                goto fail;
            }
        }
    }
    char sub[4096];
    if (make_dir(dir, 1, err))
        goto fail;
    snprintf(sub, sizeof sub, "%s/pages", dir);
    if (make_dir(sub, 0, err))
        goto fail;
    snprintf(sub, sizeof sub, "%s/data", dir);
    if (make_dir(sub, 0, err))
        goto fail;
    if (a->opt.templates_dir && !(a->store = ps_template_store_open(a->opt.templates_dir, err)))
        goto fail;
    a->tags = a->opt.block_tags;
    if (a->opt.model_path) {
        ps_extractor_config cfg = {.model_path = a->opt.model_path};
        if (!(a->ex = ps_extractor_new("svm", &cfg, err)))
            goto fail;
        const char *const *mt = ps_extractor_block_tags(a->ex);
        if (a->tags && ps_block_tags_key(a->tags) != ps_block_tags_key(mt)) {
            ps_set_error(err, PS_ERR_USAGE,
                         "--block-tags differ from the model's block tags; leave them out "
                         "(the model's are used)");
            goto fail;
        }
        a->tags = mt;
    }
    if (a->opt.resume_path) {
        json_error_t je;
        json_t *r = json_load_file(a->opt.resume_path, 0, &je);
        if (!r) {
            ps_set_error(err, PS_ERR_FORMAT, "%s: line %d: %s", a->opt.resume_path, je.line,
                         je.text);
            goto fail;
        }
        json_t *pages = json_object_get(r, "pages");
        const char *fmt = json_string_value(json_object_get(r, "format"));
        if (!fmt || strcmp(fmt, "pagesift-annotate-labels") != 0 || !json_is_array(pages)) {
            json_decref(r);
            ps_set_error(err, PS_ERR_FORMAT,
                         "%s: not a labels file of pagesift-annotate (format "
                         "\"pagesift-annotate-labels\" with a \"pages\" array)",
                         a->opt.resume_path);
            goto fail;
        }
        a->resume = json_object();
        size_t i;
        json_t *pg;
        json_array_foreach(pages, i, pg) {
            json_t *labels = json_object_get(pg, "labels");
            const char *k;
            json_t *v;
            json_object_foreach(labels, k, v) {
                if (!json_is_integer(v) || (json_integer_value(v) != 0 && json_integer_value(v) != 1)) {
                    json_decref(r);
                    ps_set_error(err, PS_ERR_FORMAT, "%s: page %zu: label of %s is not 0 or 1",
                                 a->opt.resume_path, i + 1, k);
                    goto fail;
                }
                json_object_set(a->resume, k, v);
            }
        }
        json_decref(r);
    }
    a->pages = json_array();
    a->all = json_array();
    if (!a->pages || !a->all) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    return a;
fail:
    ps_annotate_free(a);
    return NULL;
}

void ps_annotate_free(ps_annotate *a)
{
    if (!a)
        return;
    free(a->dir);
    ps_extractor_free(a->ex);
    ps_template_store_free(a->store);
    json_decref(a->resume);
    json_decref(a->pages);
    json_decref(a->all);
    ps_buf_free(&a->rows);
    free(a->header);
    free(a);
}

int ps_annotate_add(ps_annotate *a, const ps_input *in, ps_error *err)
{
    const char *who = in->origin ? in->origin : in->id;
    /* the page step up to the method, as pagesift-features takes it: the
     * one site rule, the site's library when it applies */
    char site[512];
    ps_page *pg = NULL;
    int templated = ps_prepare_input(in, a->tags, a->store, NULL, site, sizeof site, &pg, NULL, err);
    if (templated < 0) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        return ps_set_error(err, err->code, "%.200s: %.300s", who, m);
    }

    int rc = -1;
    char *mem = NULL, *gold = NULL;
    size_t memlen = 0, gold_len = 0;
    json_t *pj = NULL, *blocks = NULL;
    uint8_t *pre = NULL;
    const double *score = NULL;
    double unsure = NAN; /* ps_extraction_uncertainty: which page to label next */
    int32_t *row_of = NULL;
    ps_buf html = {0};
    ps_extraction ext = {0};
    size_t nb;
    const ps_block *bl = ps_page_blocks(pg, &nb);

    /* 1. the CSV rows, by the writer pagesift-features uses */
    /* gold text, when the input has some, gives the gold_share column as
     * pagesift-features --for-annotation writes it (the label stays empty) */
    if (in->gold_path && *in->gold_path &&
        !(gold = ps_read_regular_file(in->gold_path, 0, NULL, &gold_len, err))) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        ps_set_error(err, PS_ERR_FORMAT, "%.200s: %.300s", who, m);
        goto done;
    }
    FILE *ms = open_memstream(&mem, &memlen);
    if (!ms) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    ps_block_csv_options co = {.extended = a->opt.extended,
                               .for_annotation = 1,
                               .preview_chars = a->opt.preview_chars,
                               .min_text = 1,
                               .block_tags = a->tags};
    ps_block_csv *w = ps_block_csv_new(ms, &co, err);
    int bad = !w || ps_block_csv_page(w, in->dataset, in->id, site, pg, gold, gold_len, NULL, err);
    if (w && ps_block_csv_finish(w, bad ? NULL : err)) /* frees w */
        bad = 1;
    if (bad) {
        fclose(ms);
        goto done;
    }
    if (fclose(ms)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }

    /* 2. pre-labels (the svm method, second passes included) and scores */
    if (a->ex) {
        if (ps_extract(a->ex, pg, site, &ext, err)) {
            char m[sizeof err->msg];
            memcpy(m, err->msg, sizeof m);
            ps_set_error(err, err->code, "%.200s: pre-labelling: %.300s", who, m);
            goto done;
        }
        /* the classifier's own scores: a stacked model's second stage's,
         * the ones its pre-labels come from */
        score = ext.block_score;
        pre = ext.block_class;
        unsure = ps_extraction_uncertainty(pg, &ext);
    }

    /* 3. block data: one entry per CSV row, in row order */
    row_of = malloc((nb + 1) * sizeof *row_of);
    pj = json_object();
    blocks = json_array();
    if (!row_of || !pj || !blocks) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t b = 0; b < nb; b++)
        row_of[b] = -1;
    /* lines: header, then rows; fields never hold a line break (texts are
     * whitespace-collapsed) but quotes are honoured anyway */
    size_t pos = 0, line = 0, n_fields_hdr = 0;
    size_t fs[512], fl[512];
    json_t *feat_names = json_array();
    size_t first_feat = 15, n_feat = 0;
    size_t k_row = 0, cursor = 0;
    while (pos < memlen) {
        size_t e = pos;
        int q = 0;
        while (e < memlen && (q || mem[e] != '\r')) {
            if (mem[e] == '"')
                q = !q;
            e++;
        }
        size_t nfld = split_fields(mem + pos, e - pos, fs, fl, 512);
        if (line == 0) {
            n_fields_hdr = nfld;
            if (!a->header && !(a->header = strndup(mem + pos, e - pos))) {
                ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                goto done;
            }
            n_feat = nfld - first_feat - 4; /* label, gold_share, text, block_tags */
            for (size_t k = 0; k < n_feat; k++)
                json_array_append_new(feat_names, json_stringn(mem + pos + fs[first_feat + k],
                                                              fl[first_feat + k]));
        } else {
            if (nfld != n_fields_hdr) {
                json_decref(feat_names);
                ps_set_error(err, PS_ERR_FORMAT, "%s: internal: a CSV row of %zu fields", who, nfld);
                goto done;
            }
            char *bid = strndup(mem + pos + fs[4], fl[4]);
            char *path = unquote(mem + pos + fs[5], fl[5]);
            char *tag = unquote(mem + pos + fs[6], fl[6]);
            char *text = unquote(mem + pos + fs[nfld - 2], fl[nfld - 2]);
            json_t *bj = json_object();
            json_t *f = json_array();
            if (!bid || !path || !tag || !text || !bj || !f) {
                free(bid), free(path), free(tag), free(text);
                json_decref(bj), json_decref(f), json_decref(feat_names);
                ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                goto done;
            }
            /* which block: the id is page id + path, as ps_block_id makes it */
            long bi = -1; /* rows come in block order: search on from the last */
            for (size_t b = cursor; b < nb; b++) {
                if (strcmp(bl[b].path, path) != 0)
                    continue;
                bi = (long)b;
                cursor = b + 1;
                break;
            }
            for (size_t k = 7; k < first_feat; k++)
                json_array_append_new(f, json_real(strtod(mem + pos + fs[k], NULL)));
            for (size_t k = 0; k < n_feat; k++)
                json_array_append_new(f, json_real(strtod(mem + pos + fs[first_feat + k], NULL)));
            json_object_set_new(bj, "id", json_string(bid));
            json_object_set_new(bj, "path", json_string(path));
            json_object_set_new(bj, "tag", json_string(tag));
            json_object_set_new(bj, "text", json_string(text));
            json_object_set_new(bj, "f", f);
            if (bi >= 0) {
                row_of[bi] = (int32_t)k_row;
                int32_t par = bl[bi].parent;
                while (par >= 0 && row_of[par] < 0)
                    par = bl[par].parent;
                json_object_set_new(bj, "parent", json_integer(par >= 0 ? row_of[par] : -1));
                if (pre) {
                    json_object_set_new(bj, "pre",
                                        json_integer(pre[bi] == PS_CLASS_CONTENT ? 1 : 0));
                    json_object_set_new(bj, "score", score && isfinite(score[bi])
                                                         ? json_real(score[bi]) : json_null());
                    a->n_pre++;
                }
            }
            json_t *rl = a->resume ? json_object_get(a->resume, bid) : NULL;
            if (rl) {
                json_object_set(bj, "label", rl);
                a->resume_used++;
            }
            json_array_append_new(blocks, bj);
            /* rows.js: the row split around the label field */
            size_t lab = nfld - 4;
            if (a->rows.len)
                ps_buf_putc(&a->rows, ',');
            if (js_string(&a->rows, bid, strlen(bid)) || ps_buf_putc(&a->rows, ':') ||
                ps_buf_putc(&a->rows, '[') || js_string(&a->rows, mem + pos, fs[lab] - 1) ||
                ps_buf_putc(&a->rows, ',') ||
                js_string(&a->rows, mem + pos + fs[lab + 1], e - pos - fs[lab + 1]) ||
                ps_buf_putc(&a->rows, ']')) {
                free(bid), free(path), free(tag), free(text);
                json_decref(feat_names);
                ps_set_error(err, PS_ERR_NOMEM, "out of memory");
                goto done;
            }
            free(bid), free(path), free(tag), free(text);
            k_row++;
        }
        line++;
        pos = e + 2 <= memlen ? e + 2 : memlen;
    }
    size_t num = a->n_pages + 1;
    char file[64];
    snprintf(file, sizeof file, "pages/%05zu.html", num);
    json_t *fnames = json_array();
    json_array_append_new(fnames, json_string("inner_len"));
    json_array_append_new(fnames, json_string("inner_link_len"));
    json_array_append_new(fnames, json_string("inner_link_num"));
    json_array_append_new(fnames, json_string("inner_pic_num"));
    json_array_append_new(fnames, json_string("outer_len"));
    json_array_append_new(fnames, json_string("outer_link_len"));
    json_array_append_new(fnames, json_string("outer_link_num"));
    json_array_append_new(fnames, json_string("outer_pic_num"));
    json_array_extend(fnames, feat_names);
    json_decref(feat_names);
    json_object_set_new(pj, "n", json_integer((json_int_t)num));
    json_object_set_new(pj, "file", json_string(file));
    json_object_set_new(pj, "dataset", json_string(in->dataset ? in->dataset : ""));
    json_object_set_new(pj, "page_id", json_string(in->id));
    json_object_set_new(pj, "url", json_string(in->url ? in->url : ""));
    json_object_set_new(pj, "site", json_string(site));
    json_object_set_new(pj, "title", json_string(ps_page_title(pg)));
    json_object_set_new(pj, "model", json_boolean(pre != NULL));
    json_object_set_new(pj, "feature_names", fnames);
    json_object_set_new(pj, "blocks", blocks);
    blocks = NULL;

    /* summary for workspace.js */
    {
        json_t *s = json_object();
        json_t *bids = json_array();
        json_t *prel = json_array();
        json_t *init = json_object();
        size_t i;
        json_t *bj;
        json_array_foreach(json_object_get(pj, "blocks"), i, bj) {
            json_array_append(bids, json_object_get(bj, "id"));
            json_t *p = json_object_get(bj, "pre");
            json_array_append_new(prel, p ? json_incref(p) : json_null());
            json_t *l = json_object_get(bj, "label");
            if (l)
                json_object_set(init, json_string_value(json_object_get(bj, "id")), l);
        }
        json_object_set(s, "n", json_object_get(pj, "n"));
        json_object_set(s, "file", json_object_get(pj, "file"));
        json_object_set(s, "dataset", json_object_get(pj, "dataset"));
        json_object_set(s, "page_id", json_object_get(pj, "page_id"));
        json_object_set(s, "url", json_object_get(pj, "url"));
        json_object_set(s, "site", json_object_get(pj, "site"));
        json_object_set(s, "title", json_object_get(pj, "title"));
        json_object_set_new(s, "blocks", bids);
        json_object_set_new(s, "pre", prel);
        json_object_set_new(s, "labels", init);
        json_object_set_new(s, "uncertainty", isnan(unsure) ? json_null() : json_real(round(unsure * 1000) / 1000));
        json_array_append_new(a->pages, s);
    }

    /* 4. the page: sanitised cleaned DOM, blocks marked */
    {
        htmlDocPtr dom = ps_page_dom(pg); /* a DOM of the cleaned page, to edit and serialise */
        if (!dom) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto done;
        }
        xmlNodePtr root = xmlDocGetRootElement(dom);
        xmlNodePtr body = NULL;
        for (xmlNodePtr c = root ? root->children : NULL; c; c = c->next)
            if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "body") == 0)
                body = c;
        if (!body) {
            ps_set_error(err, PS_ERR_PARSE, "%s: no body element", who);
            goto done;
        }
        sanitise(body);
        for (xmlAttrPtr at = body->properties; at;) { /* body's own attributes */
            xmlAttrPtr an = at->next;
            xmlChar *v = xmlNodeGetContent((xmlNodePtr)at);
            if (is_dropped_attr((const char *)at->name) || (v && bad_url((const char *)v)))
                xmlRemoveProp(at);
            xmlFree(v);
            at = an;
        }
        for (size_t b = 0; b < nb; b++) {
            char v[24];
            if (row_of[b] >= 0) {
                snprintf(v, sizeof v, "%d", row_of[b]);
                xmlSetProp(pg->dom_map[pg->block_nodes[b]], (const xmlChar *)"data-ps", (const xmlChar *)v);
            } else if (templated && bl[b].n_leaves && bl[b].own.text_chars == 0) {
                xmlSetProp(pg->dom_map[pg->block_nodes[b]], (const xmlChar *)"data-ps-tpl", (const xmlChar *)"1");
            }
        }
        ps_buf_append(&html, "<!DOCTYPE html>\n<html", 21);
        static const char *const keep_root[] = {"class", "lang", "dir", "id", NULL};
        for (const char *const *k = keep_root; *k; k++) {
            xmlChar *v = xmlGetProp(root, (const xmlChar *)*k);
            if (v) {
                ps_buf_printf(&html, " %s=\"", *k);
                html_escape(&html, (const char *)v);
                ps_buf_putc(&html, '"');
                xmlFree(v);
            }
        }
        ps_buf_append(&html, ">\n<head>\n<meta charset=\"utf-8\">\n", 32);
        csp(&html, a->nonce);
        ps_buf_append(&html, "<title>", 7);
        html_escape(&html, *ps_page_title(pg) ? ps_page_title(pg) : in->id);
        ps_buf_append(&html, " — pagesift-annotate</title>\n", strlen(" — pagesift-annotate</title>\n"));
        page_styles(in, &html);
        ps_buf_printf(&html, "<style>%s</style>\n</head>\n", ps_annotate_asset_page_css);
        xmlOutputBufferPtr ob = xmlAllocOutputBuffer(NULL);
        if (!ob) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto done;
        }
        htmlNodeDumpFormatOutput(ob, dom, body, "UTF-8", 0);
        xmlOutputBufferFlush(ob);
        const xmlChar *content = xmlOutputBufferGetContent(ob);
        size_t clen = xmlOutputBufferGetSize(ob);
        /* the body's closing tag is replaced by our data and scripts */
        if (clen >= 7 && memcmp(content + clen - 7, "</body>", 7) == 0)
            clen -= 7;
        ps_buf_append(&html, content, clen);
        xmlOutputBufferClose(ob);
        char *pjs = json_for_script(pj);
        if (!pjs) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto done;
        }
        ps_buf_printf(&html,
                      "\n<script type=\"application/json\" id=\"ps-data\">%s</script>\n"
                      "<script nonce=\"%s\" src=\"../data/workspace.js\"></script>\n"
                      "<script nonce=\"%s\" src=\"../assets/sync.js\"></script>\n"
                      "<script nonce=\"%s\" src=\"../assets/annotate.js\"></script>\n"
                      "</body>\n</html>\n",
                      pjs, a->nonce, a->nonce, a->nonce);
        free(pjs);
        if (!html.data) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (write_file(a, file, html.data, html.len, err)) {
            err->code = PS_ERR_IO;
            goto done;
        }
    }
    json_array_append(a->all, pj);
    a->n_pages = num;
    a->n_blocks += k_row;
    rc = 0;
done:
    ps_extraction_free(&ext);
    free(mem);
    free(gold);
    free(row_of);
    json_decref(pj);
    json_decref(blocks);
    ps_buf_free(&html);
    ps_page_free(pg);
    return rc;
}

static const char index_html[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n%s"
    "<title>pagesift-annotate — workspace</title>\n<style>%s</style>\n</head>\n<body>\n"
    "<main id=\"ps-index\"><h1>pagesift-annotate</h1><p>Loading the workspace…</p>"
    "<noscript>This workspace needs JavaScript (its own scripts only).</noscript></main>\n"
    "<script nonce=\"%s\" src=\"data/workspace.js\"></script>\n"
    "<script nonce=\"%s\" src=\"data/rows.js\"></script>\n"
    "<script nonce=\"%s\" src=\"assets/sync.js\"></script>\n"
    "<script nonce=\"%s\" src=\"assets/index.js\"></script>\n</body>\n</html>\n";

int ps_annotate_finish(ps_annotate *a, ps_error *err)
{
    json_t *ws = json_object();
    if (!ws)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    json_object_set_new(ws, "id", json_string(a->id));
    json_object_set_new(ws, "version", json_string(ps_version()));
    json_object_set_new(ws, "model", a->opt.model_path ? json_string(a->opt.model_path) : json_null());
    json_object_set_new(ws, "pages", json_incref(a->pages));
    char *wsj = json_for_script(ws);
    json_decref(ws);
    ps_buf b = {0};
    int rc = -1;
    if (!wsj || ps_buf_printf(&b, "window.PS_WORKSPACE = %s;\n", wsj)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (write_file(a, "data/workspace.js", b.data, b.len, err))
        goto done;
    b.len = 0;
    ps_buf_append(&b, "window.PS_ROWS = {\"header\":", 27);
    js_string(&b, a->header ? a->header : "", a->header ? strlen(a->header) : 0);
    ps_buf_append(&b, ",\"rows\":{", 9);
    if (a->rows.len)
        ps_buf_append(&b, a->rows.data, a->rows.len);
    if (ps_buf_append(&b, "}};\n", 4)) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (write_file(a, "data/rows.js", b.data, b.len, err))
        goto done;
    char *all = json_dumps(a->all, JSON_COMPACT);
    if (!all) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    int wr = write_file(a, "data/blocks.json", all, strlen(all), err);
    free(all);
    if (wr)
        goto done;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/assets", a->dir);
    if (make_dir(sub, 0, err) ||
        write_file(a, "assets/annotate.js", ps_annotate_asset_page_js, strlen(ps_annotate_asset_page_js), err) ||
        write_file(a, "assets/index.js", ps_annotate_asset_index_js, strlen(ps_annotate_asset_index_js), err) ||
        write_file(a, "assets/sync.js", ps_annotate_asset_sync_js, strlen(ps_annotate_asset_sync_js), err))
        goto done;
    b.len = 0;
    ps_buf hd = {0};
    csp(&hd, a->nonce);
    int bad = ps_buf_printf(&b, index_html, hd.data, ps_annotate_asset_index_css, a->nonce, a->nonce,
                            a->nonce, a->nonce);
    ps_buf_free(&hd);
    if (bad) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (write_file(a, "index.html", b.data, b.len, err))
        goto done;
    rc = 0;
done:
    free(wsj);
    ps_buf_free(&b);
    return rc;
}

void ps_annotate_counts(const ps_annotate *a, size_t *pages, size_t *blocks, size_t *prelabelled,
                        size_t *resumed)
{
    if (pages)
        *pages = a->n_pages;
    if (blocks)
        *blocks = a->n_blocks;
    if (prelabelled)
        *prelabelled = a->n_pre;
    if (resumed)
        *resumed = a->resume_used;
}
