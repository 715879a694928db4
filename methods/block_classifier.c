/* methods/block_classifier.c — opening a model bundle as the block
 * classifier kind it holds (methods/block_classifier.h).  It sits above the
 * kinds (methods/classifier_svm.c, classifier_stack.c, which builds on the
 * SVM's), so that no kind calls back into another. */
#include <string.h>

#include "methods/block_classifier.h"
#include "pagesift/page.h"

ps_block_classifier *ps_block_classifier_open(const char *path, ps_error *err)
{
    /* the kind by the bundle: an SVM, and a stack when a second stage's
     * bundle follows the first's end line (methods/classifier_stack.c) */
    ps_block_classifier *c = ps_svm_classifier_open(path, err);
    if (!c)
        return NULL;
    ps_error e2 = {0};
    ps_model *second = ps_model_next_stage(ps_svm_classifier_model(c), &e2);
    /* a classifier only predicts: the bundles' text (as large as the file,
     * and the second stage's again) is not kept for the run */
    ps_svm_classifier_drop_text(c);
    if (second) {
        ps_model_drop_text(second);
        return ps_block_classifier_stack(c, second, path, err);
    }
    if (e2.code) {
        if (err)
            *err = e2;
        ps_block_classifier_free(c);
        return NULL;
    }
    return c;
}

int ps_block_tags_same(const char *const *a, const char *const *b)
{
    if (!a)
        a = ps_default_block_tags;
    if (!b)
        b = ps_default_block_tags;
    for (; *a && *b; a++, b++)
        if (strcmp(*a, *b) != 0)
            return 0;
    return !*a && !*b;
}
