/* eval/leaves.c — leaf-level precision and recall of the template-SVM paper
 * (METHODS.md §1.5): the unit is a leaf tag, which takes the label of its
 * block; content is the positive class.  Gold labels come from the page's
 * alignment with its gold text (a leaf is content when at least half of its
 * token characters are aligned with the gold). */
#include <stdlib.h>

#include "pagesift.h"
#include "pagesift/eval.h"
#include "pagesift/page.h"

static int has_token(const ps_leaf *l)
{
    ps_token *t;
    size_t n = ps_tokenize(l->text, l->bytes, &t);
    if (n == (size_t)-1)
        return 1;
    free(t);
    return n > 0;
}

int ps_leaf_match(const ps_page *page, const double *leaf_share, const uint8_t *block_class,
                  const uint8_t *leaf_kept, ps_match *m)
{
    m->tp = m->fp = m->fn = 0;
    if (!leaf_kept && !block_class)
        return -1;
    size_t n;
    const ps_leaf *l = ps_page_leaves(page, &n);
    for (size_t i = 0; i < n; i++) {
        if (!has_token(&l[i]))
            continue;
        int gold = leaf_share[i] >= 0.5;
        int pred = leaf_kept ? leaf_kept[i] != 0
                             : (block_class[l[i].block] == 1 && !l[i].removed);
        m->tp += gold && pred;
        m->fp += !gold && pred;
        m->fn += gold && !pred;
    }
    return 0;
}
