/* eval/train_protocol.c — --train-protocol of pagesift-eval: says whether a
 * model may have seen the pages it is measured on.  It reads the key-value
 * header of the model bundle (lines "key value" up to "libsvm-model-bytes",
 * docs/MODEL_FORMAT.md): "data_sets" (the data sets of the training rows)
 * when the bundle records it, else "data_files" (the training CSVs' names),
 * and looks for the set's name among them.  The shipped model (no --model)
 * is made by scripts/train-default-model from every set, so it has always
 * seen them. */
#include <stdlib.h>
#include <string.h>

#include "eval/train_protocol.h"

/* Value of @p key in the bundle header (malloc'ed) or NULL. */
static char *header_value(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len >= 18 && strncmp(l, "libsvm-model-bytes", 18) == 0)
            break;
        if (len > kl && strncmp(l, key, kl) == 0 && l[kl] == ' ') {
            char *v = malloc(len - kl);
            if (v) {
                memcpy(v, l + kl + 1, len - kl - 1);
                v[len - kl - 1] = '\0';
            }
            return v;
        }
        l = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* @p name occurs in @p list as a whole word (separated by anything that is
 * not a letter, digit, '-' or '_'). */
static int has_word(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name)) {
        int before = p == list || !(strchr("-_", p[-1]) || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                    (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
        char c = p[n];
        int after = !(c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9'));
        if (before && after)
            return 1;
    }
    return 0;
}

ps_train_overlap ps_eval_train_overlap(const char *model_path, const char *set, char *note,
                                       size_t cap)
{
    if (!model_path) {
        snprintf(note, cap, "shipped model, trained on every set by scripts/train-default-model: "
                            "TRAINING-SET figure");
        return PS_TRAIN_SEEN;
    }
    ps_error err = {0};
    size_t len;
    char *text = ps_read_regular_file(model_path, 0, "a model bundle", &len, &err);
    if (!text) {
        snprintf(note, cap, "training data unknown (%s)", err.msg);
        return PS_TRAIN_UNKNOWN;
    }
    ps_train_overlap r = PS_TRAIN_UNKNOWN;
    char *sets = header_value(text, "data_sets"), *files = header_value(text, "data_files");
    if (sets) {
        r = has_word(sets, set) ? PS_TRAIN_SEEN : PS_TRAIN_UNSEEN;
        snprintf(note, cap, r == PS_TRAIN_SEEN ? "model trained on %s: TRAINING-SET figure"
                                               : "model trained on %s only: held-out figure",
                 sets);
    } else if (files && has_word(files, set)) {
        r = PS_TRAIN_SEEN;
        snprintf(note, cap, "model trained on files %s: TRAINING-SET figure", files);
    } else {
        snprintf(note, cap, "training data unknown (the bundle records data_files %s, no data_sets)",
                 files ? files : "-");
    }
    free(sets);
    free(files);
    free(text);
    return r;
}
