/* methods/method.h — the interface every extraction method implements.
 *
 * A method turns a parsed page into its main text.  Each method lives in its
 * own file under methods/ (template_svm.c, punct_lines.c, correlation.c,
 * wiehf.c, blockstat.c, ...), with a comment naming its paper and every
 * parameter, and registers itself in methods/registry.c. */
#ifndef PS_METHOD_H
#define PS_METHOD_H

#include "common/util.h"
#include "methods/method_options.h"
#include "pagesift.h"

/** What a method is given when it is set up. */
typedef struct ps_method_config {
    const char *model_path;     /**< SVM model bundle, NULL = the shipped model */
    const char *templates_dir;  /**< per-site template libraries, or NULL */
    /** the option values, checked against the method's table (read them
     *  with ps_options_resolve, in create: they are not kept), or NULL */
    const ps_options *options;
    /** template libraries already in memory (learnt from the collection),
     *  used instead of templates_dir; borrowed, must outlive the method */
    const struct ps_template_store *templates;
    const char *site_models_dir; /**< per-site model folder, or NULL */
    size_t site_models_cap;      /**< its memory cap in bytes, 0 = default */
    /** the model a reduced model_path was reduced from, for the site models
     *  made against it; NULL = its reduced_from_file beside it */
    const char *site_base_path;
} ps_method_config;

/** What a method returns for one page.  Everything malloc'ed is freed by
 *  ps_method_output_free. */
typedef struct ps_method_output {
    char *text;            /**< main text, one paragraph per line, '\n'-ended */
    size_t len;
    char *title;           /**< headline if the method finds one, else NULL */
    char *date;            /**< publication date if the method finds one, else NULL */
    uint32_t blocks_kept;  /**< units kept (blocks, nodes, lines: the method's own) */
    uint32_t blocks_removed;
    /** Per block of the page (ps_page_blocks order) for the HTML view and the
     *  leaf-level metric: PS_BLOCK_NOISE, _CONTENT or _TEMPLATE; NULL when the
     *  method does not work on blocks. */
    uint8_t *block_class;
    /** Per leaf (ps_page_leaves order): 1 kept, 0 not; NULL if unknown. */
    uint8_t *leaf_kept;
    /** "default" or "site:KEY": the model that scored the blocks; NULL
     *  for methods without one. */
    char *model;
    /** Per block: the classifier's decision value, NaN where it scored
     *  none; NULL for methods without a model. */
    double *block_score;
} ps_method_output;

enum { PS_BLOCK_NOISE = 0, PS_BLOCK_CONTENT = 1, PS_BLOCK_TEMPLATE = 2 };

/** Flags of a method. */
enum {
    /** extract() keeps state across pages (e.g. punct-lines' line table):
     *  calls must come one at a time, in input order. */
    PS_METHOD_STATEFUL = 1,
    /** needs an SVM model */
    PS_METHOD_NEEDS_MODEL = 2,
    /** runs the second passes (methods/block_passes.c): every row of
     *  ps_block_pass_table is an option too, after the method's own */
    PS_METHOD_PASSES = 4,
    /** reads the block tree only, never the page's tree or DOM: a page
     *  parsed with PS_PAGE_NO_TREE may lose its tree before extract() */
    PS_METHOD_NO_TREE = 8
};

typedef struct ps_method {
    const char *name;      /**< as given to --method */
    const char *summary;   /**< one line for --help */
    unsigned flags;
    /** Set up (load the model, the templates, parse options); NULL + err. */
    void *(*create)(const ps_method_config *cfg, ps_error *err);
    /** Extract one page.  The method may modify the page (e.g. remove
     *  template leaves).  For a page whose URL has a site, @p site is its
     *  key, else "".  Returns 0 or -1 with err. */
    int (*extract)(void *self, ps_page *page, const char *site, ps_method_output *out, ps_error *err);
    void (*destroy)(void *self);
    /** The block tags pages must be parsed with for this instance (e.g.
     *  the ones its model was trained on), NULL-terminated; NULL (or no
     *  callback) = ps_default_block_tags. */
    const char *const *(*block_tags)(void *self);
    /** Its options (--options key=value): one row each, ended by a row
     *  whose key is NULL; NULL = none (methods/method_options.h). */
    const ps_option *options;
} ps_method;

/** The registered methods, NULL-terminated (methods/registry.c). */
extern const ps_method *const ps_methods[];

/** Find a method by name, or NULL. */
const ps_method *ps_method_find(const char *name);

void ps_method_output_free(ps_method_output *out);

#endif
