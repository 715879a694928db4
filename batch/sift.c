/* batch/sift.c — the one-call API (pagesift.h, "Main text in one call"):
 * HTML bytes in, text, title and the page's metadata out.  A sifter is an extractor of the
 * default single-page pipeline (svm: no site templates for a lone page)
 * plus the page step that parses with the extractor's block tags; ps_sift
 * keeps one sifter with the shipped model for the whole process, made on
 * the first call under pthread_once. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "pagesift/page.h"

struct ps_sifter {
    ps_extractor *ex;
};

struct ps_result {
    char *text;
    size_t len;
    ps_metadata meta; /* title (the headline), author, date, ... */
    char charset[32];
};

/* The method `pagesift page.html` runs: svm, as the tool's default without
 * templates. */
static const char sift_method[] = "svm";

ps_sifter *ps_sifter_new(const char *model_path, ps_error *err)
{
    ps_init();
    ps_sifter *s = calloc(1, sizeof *s);
    if (!s) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ps_extractor_config cfg = {0};
    cfg.model_path = model_path;
    s->ex = ps_extractor_new(sift_method, &cfg, err);
    if (!s->ex) {
        free(s);
        return NULL;
    }
    return s;
}

void ps_sifter_free(ps_sifter *s)
{
    if (!s)
        return;
    ps_extractor_free(s->ex);
    free(s);
}

ps_result *ps_sifter_extract(ps_sifter *s, const void *html, size_t len, const char *url,
                             const char *charset, ps_error *err)
{
    if (!s || (!html && len)) {
        ps_set_error(err, PS_ERR_USAGE, "ps_sifter_extract: no sifter or no bytes");
        return NULL;
    }
    /* the page step of every tool; the input is only read (the cast) */
    ps_input in = {.data = (char *)html, .len = html ? len : 0, .url = (char *)url,
                   .charset = (char *)charset};
    char site[512];
    ps_page *page = NULL;
    if (ps_prepare_input(&in, ps_extractor_block_tags(s->ex), NULL, NULL, site, sizeof site, &page,
                         NULL, err) < 0)
        return NULL;
    ps_extraction x = {0};
    ps_result *r = NULL;
    if (ps_extract(s->ex, page, site, &x, err) == 0) {
        r = calloc(1, sizeof *r);
        if (!r) {
            ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        } else if (ps_page_metadata(page, &x, &r->meta, err) != 0) {
            free(r);
            r = NULL;
        } else {
            r->text = x.text; /* never NULL after ps_extract */
            r->len = x.len;
            x.text = NULL;
            snprintf(r->charset, sizeof r->charset, "%s", ps_page_decoding(page)->charset);
        }
    }
    ps_extraction_free(&x);
    ps_page_free(page);
    return r;
}

/* ---- ps_sift: the shipped model, shared by the process ----------------- */

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static ps_sifter *shared_sifter;
static ps_error shared_err;

static void shared_init(void)
{
    shared_sifter = ps_sifter_new(NULL, &shared_err);
}

ps_result *ps_sift(const void *html, size_t len, const char *url, const char *charset, ps_error *err)
{
    pthread_once(&shared_once, shared_init);
    if (!shared_sifter) {
        if (err)
            *err = shared_err;
        return NULL;
    }
    return ps_sifter_extract(shared_sifter, html, len, url, charset, err);
}

const char *ps_result_text(const ps_result *r, size_t *len)
{
    if (len)
        *len = r ? r->len : 0;
    return r && r->text ? r->text : "";
}

const char *ps_result_title(const ps_result *r)
{
    return r && r->meta.title ? r->meta.title : "";
}

const struct ps_metadata *ps_result_metadata(const ps_result *r)
{
    return r ? &r->meta : NULL;
}

const char *ps_result_charset(const ps_result *r)
{
    return r ? r->charset : "";
}

void ps_result_free(ps_result *r)
{
    if (!r)
        return;
    free(r->text);
    ps_metadata_free(&r->meta);
    free(r);
}
