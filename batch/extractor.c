/* batch/extractor.c — the public extraction API (ps_extractor, ps_extract)
 * over the method interface of methods/method.h: finds a method by name in
 * the registry, sets it up once, and hands its per-page output back as a
 * ps_extraction. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <unistd.h>

#include "extract/page_internal.h"
#include "methods/method.h"
#include "methods/method_options.h"
#include "pagesift/page.h"
#include "pagesift/page_types.h"
#include "pagesift/templates.h"

struct ps_extractor {
    const ps_method *method;
    void *self;
    ps_page_types *page_types; /* NULL: no page_type in the results */
};

/* The page-type bundle of @p cfg: NULL = the shipped one when it is there,
 * "" = none, else that file (which must load). */
static int load_page_types(ps_extractor *ex, const ps_extractor_config *cfg, ps_error *err)
{
    const char *path = cfg ? cfg->page_types_path : NULL;
    if (path && !*path)
        return 0;
    if (!path) { /* $PAGESIFT_PAGE_TYPES=none: none, as --page-types none */
        path = ps_page_types_default_path();
        if (strcmp(path, "none") == 0 || access(path, R_OK) != 0)
            return 0;
    }
    ex->page_types = ps_page_types_load(path, err);
    return ex->page_types ? 0 : -1;
}

_Static_assert((int)PS_CLASS_NOISE == (int)PS_BLOCK_NOISE &&
                   (int)PS_CLASS_CONTENT == (int)PS_BLOCK_CONTENT &&
                   (int)PS_CLASS_TEMPLATE == (int)PS_BLOCK_TEMPLATE,
               "public and internal block classes agree");

size_t ps_method_count(void)
{
    size_t n = 0;
    while (ps_methods[n])
        n++;
    return n;
}

const char *ps_method_name(size_t i)
{
    return i < ps_method_count() ? ps_methods[i]->name : NULL;
}

const char *ps_method_summary(size_t i)
{
    return i < ps_method_count() ? ps_methods[i]->summary : NULL;
}

int ps_method_needs_model(size_t i)
{
    return i < ps_method_count() && (ps_methods[i]->flags & PS_METHOD_NEEDS_MODEL) != 0;
}

int ps_method_option(const char *method, size_t i, ps_option_info *out)
{
    const ps_method *m = method ? ps_method_find(method) : NULL;
    return m ? ps_method_option_info(m, i, out) : -1;
}

ps_options *ps_options_new(const char *method, ps_error *err)
{
    const ps_method *m = method ? ps_method_find(method) : NULL;
    if (!m) {
        ps_set_error(err, PS_ERR_USAGE, "unknown method '%s'", method ? method : "(null)");
        return NULL;
    }
    ps_options *o = malloc(sizeof *o);
    if (!o) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (ps_options_resolve(o, NULL, m, err) != 0) {
        free(o);
        return NULL;
    }
    return o;
}

ps_extractor *ps_extractor_new(const char *method, const ps_extractor_config *cfg, ps_error *err)
{
    const ps_method *m = method ? ps_method_find(method) : NULL;
    if (!m) {
        ps_set_error(err, PS_ERR_USAGE, "unknown method '%s'",
                     method ? method : "(null)");
        return NULL;
    }
    ps_method_config mc = {0};
    /* the options: the typed values given, then the "key=value,..." string
     * over them, both checked against the method's table */
    ps_options opts;
    if (cfg) {
        mc.model_path = cfg->model_path;
        mc.templates_dir = cfg->templates_dir;
        mc.templates = cfg->templates;
        mc.site_models_dir = cfg->site_models_dir;
        mc.site_models_cap = cfg->site_models_cap;
        mc.site_base_path = cfg->site_base_path;
        if (cfg->method_options || (cfg->options && *cfg->options)) {
            if (ps_options_resolve(&opts, cfg->method_options, m, err) != 0)
                return NULL;
            opts.method = m; /* svm's values given to template-svm: errors name the latter */
            if (ps_options_parse(&opts, cfg->options, err) != 0)
                return NULL;
            mc.options = &opts;
        }
    }
    ps_extractor *ex = calloc(1, sizeof *ex);
    if (!ex) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ex->method = m;
    if (load_page_types(ex, cfg, err) != 0) {
        free(ex);
        return NULL;
    }
    ex->self = m->create(&mc, err);
    if (!ex->self) {
        ps_page_types_free(ex->page_types);
        free(ex);
        return NULL;
    }
#ifdef __GLIBC__
    /* Reading the models leaves their text and their support vectors as
     * read (ps_model_drop_text) freed in this thread's heap, where pages
     * worked on other threads never reuse it: about 10 MB with the shipped
     * models, given back to the system (docs/research/SPEED.md, "The
     * models' memory"). */
    malloc_trim(0);
#endif
    return ex;
}

const char *ps_extractor_method(const ps_extractor *ex)
{
    return ex->method->name;
}

const char *const *ps_extractor_block_tags(const ps_extractor *ex)
{
    const char *const *tags = ex->method->block_tags ? ex->method->block_tags(ex->self) : NULL;
    return tags ? tags : ps_default_block_tags;
}

int ps_extractor_is_stateful(const ps_extractor *ex)
{
    return (ex->method->flags & PS_METHOD_STATEFUL) != 0;
}

int ps_extract(ps_extractor *ex, ps_page *page, const char *site, ps_extraction *out, ps_error *err)
{
    memset(out, 0, sizeof *out);
    out->page_type_prob = 0;
    /* a page with no text of its own (an empty body, a script's shell) gives
     * the classifier nothing to read: its all-zero signals came out "forum"
     * at 0.58, and a crawl filtered by type took every empty page for a
     * thread.  It is not typed (page_type NULL), as with no bundle. */
    if (ex->page_types && ps_page_totals(page).text_chars) { /* before the method, which may change the page */
        double prob[64];
        int t = ps_page_types_count(ex->page_types) <= 64 ? ps_page_types_attach(ex->page_types, page, prob, err)
                                                          : -1;
        if (t < 0)
            return -1;
        if (!(out->page_type = strdup(ps_page_types_label(ex->page_types, (size_t)t))))
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        out->page_type_prob = prob[t];
    }
    /* the page's tree is read by the page type, not by the method or a
     * text output: freed before the block tree's features are made, which
     * are the most memory a large page takes after it */
    if ((page->flags & PS_PAGE_NO_TREE) && (ex->method->flags & PS_METHOD_NO_TREE))
        ps_page_drop_tree(page);
    ps_method_output mo = {0};
    if (ex->method->extract(ex->self, page, site ? site : "", &mo, err) != 0) {
        ps_method_output_free(&mo);
        ps_extraction_free(out);
        return -1;
    }
    if (!mo.text) { /* a method that found nothing may leave text NULL */
        mo.text = calloc(1, 1);
        mo.len = 0;
        if (!mo.text) {
            ps_method_output_free(&mo);
            ps_extraction_free(out);
            return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        }
    }
    out->text = mo.text;
    out->len = mo.len;
    out->title = mo.title;
    out->blocks_kept = mo.blocks_kept;
    out->blocks_removed = mo.blocks_removed;
    out->block_class = mo.block_class;
    out->leaf_kept = mo.leaf_kept;
    out->date = mo.date;
    out->model = mo.model;
    out->block_score = mo.block_score;
    return 0;
}

/* ps_prepare_input; @p take: the page takes in->data (ps_page_parse_taking),
 * which is then freed whatever happens. */
static int prepare(const ps_input *in, int take, const char *const *block_tags,
                   const ps_template_store *templates, const ps_step_options *opt, char *site, size_t cap,
                   ps_page **page, size_t *removed, ps_error *err)
{
    static const ps_step_options none = {0};
    if (!opt)
        opt = &none;
    ps_input_site(in, opt->site_rule, site, cap);
    ps_page_options po = {0};
    po.charset = in->charset;
    po.url = in->url && *in->url ? in->url : NULL;
    po.block_tags = block_tags;
    po.max_bytes = opt->max_bytes;
    po.deadline = opt->deadline;
    po.flags = opt->page_flags;
    *page = take ? ps_page_parse_taking(in->data, in->len, &po, err)
                 : ps_page_parse(in->data ? in->data : "", in->data ? in->len : 0, &po, err);
    if (!*page)
        return -1;
    const ps_template_lib *lib = templates && *site ? ps_template_store_get(templates, site) : NULL;
    if (!ps_template_applies(lib))
        return 0;
    size_t k = ps_template_apply(lib, *page);
    if (k == (size_t)-1 || k == PS_TEMPLATE_TIMEOUT) {
        ps_page_free(*page);
        *page = NULL;
        return k == PS_TEMPLATE_TIMEOUT
                   ? ps_set_error(err, PS_ERR_TIMEOUT, "the page took longer than its time limit (site templates)")
                   : ps_set_error(err, PS_ERR_NOMEM, "out of memory removing templates");
    }
    if (removed)
        *removed = k;
    return 1;
}

int ps_prepare_input(const ps_input *in, const char *const *block_tags,
                     const ps_template_store *templates, const ps_step_options *opt, char *site,
                     size_t cap, ps_page **page, size_t *removed, ps_error *err)
{
    return prepare(in, 0, block_tags, templates, opt, site, cap, page, removed, err);
}

int ps_extract_input(ps_extractor *ex, ps_input *in, const ps_step_options *opt, char *site,
                     size_t cap, ps_page **page, ps_extraction *out, ps_error *err)
{
    memset(out, 0, sizeof *out);
    /* the page takes the bytes: freed once parsed, before the block tree */
    int rc = prepare(in, 1, ps_extractor_block_tags(ex), NULL, opt, site, cap, page, NULL, err);
    in->data = NULL;
    if (rc < 0)
        return -1;
    return ps_extract(ex, *page, site, out, err);
}

void ps_extraction_free(ps_extraction *out)
{
    if (!out)
        return;
    /* ps_extract hands over a method output's buffers: free them the way the
     * methods' own outputs are freed (methods/registry.c). */
    ps_method_output mo = {.text = out->text,
                           .title = out->title,
                           .date = out->date,
                           .block_class = out->block_class,
                           .leaf_kept = out->leaf_kept,
                           .model = out->model,
                           .block_score = out->block_score};
    ps_method_output_free(&mo);
    free(out->page_type);
    memset(out, 0, sizeof *out);
}

void ps_extractor_free(ps_extractor *ex)
{
    if (!ex)
        return;
    ex->method->destroy(ex->self);
    ps_page_types_free(ex->page_types);
    free(ex);
}
