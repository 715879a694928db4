/* eval/train_protocol.h — whether a model was trained on a data set
 * (pagesift-eval --train-protocol). */
#ifndef PS_EVAL_TRAIN_PROTOCOL_H
#define PS_EVAL_TRAIN_PROTOCOL_H
#include <stddef.h>

#include "common/util.h"

typedef enum ps_train_overlap {
    PS_TRAIN_UNKNOWN = 0, /**< the bundle does not say */
    PS_TRAIN_SEEN = 1,    /**< the set was in the training data */
    PS_TRAIN_UNSEEN = 2   /**< it was not */
} ps_train_overlap;

/** Look at the bundle @p model_path (NULL: the shipped model) and write a
 *  one-line protocol note into @p note. */
ps_train_overlap ps_eval_train_overlap(const char *model_path, const char *set, char *note,
                                       size_t cap);
#endif
