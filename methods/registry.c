/* methods/registry.c — the list of extraction methods --method can name. */
#include <stdlib.h>
#include <string.h>

#include "methods/method.h"

/* Each method file defines one of these. */
extern const ps_method ps_method_template_svm;
extern const ps_method ps_method_svm;
extern const ps_method ps_method_all;
extern const ps_method ps_method_punct_lines;
extern const ps_method ps_method_blockstat;
extern const ps_method ps_method_correlation;
extern const ps_method ps_method_wiehf;

const ps_method *const ps_methods[] = {
    &ps_method_template_svm,
    &ps_method_svm,
    &ps_method_all,
    &ps_method_punct_lines,
    &ps_method_blockstat,
    &ps_method_correlation,
    &ps_method_wiehf,
    NULL,
};

const ps_method *ps_method_find(const char *name)
{
    for (size_t i = 0; ps_methods[i]; i++)
        if (strcmp(ps_methods[i]->name, name) == 0)
            return ps_methods[i];
    return NULL;
}

void ps_method_output_free(ps_method_output *out)
{
    if (!out)
        return;
    free(out->text);
    free(out->title);
    free(out->date);
    free(out->block_class);
    free(out->leaf_kept);
    free(out->model);
    free(out->block_score);
    memset(out, 0, sizeof *out);
}
