/* features/features.c — block features by name.
 *
 * R1-R5 are the paper's (template-svm-denoising, METHODS.md §1.2): for a
 * block's own content (nested blocks excluded) against the page totals, with
 * add-one smoothing in every denominator:
 *   R1 = innerLen / (outerLen + 1)           outer text ratio
 *   R2 = innerLinkLen / (outerLinkLen + 1)   link-text ratio
 *   R3 = innerLinkNum / (outerLinkNum + 1)   link-count ratio
 *   R4 = innerPicNum / (outerPicNum + 1)     image-count ratio
 *   R5 = innerLinkLen / (innerLen + 1)       inner link density
 *
 * Extended features ("x_<name>", not in the paper, off unless a model lists
 * them) are computed from one pass over the page's leaves plus one pass over
 * its blocks, so a page costs O(leaves + text + blocks) whatever features are
 * asked.  Leaves removed by templates do not count anywhere.  Every ratio has
 * +1 in its denominator, so no feature is ever NaN; counts that grow without
 * bound are given as log(1 + n) so an RBF kernel sees comparable scales.
 * The list, with what each measures, is FEATURES[] below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "extract/page_signals.h"
#include "features/text_stats.h"
#include "pagesift.h"
#include "pagesift/features.h"
#include "pagesift/page.h"

/* Feature ids: the order of FEATURES[].  R1..R5 stay ids 0..4. */
enum {
    F_R1, F_R2, F_R3, F_R4, F_R5,
    F_PUNCT, F_DIGITS, F_TEXT_DENSITY, F_TEXT_LOG, F_LEAVES_LOG, F_CHILDREN_LOG,
    F_DEPTH, F_DOM_DEPTH, F_POSITION, F_SUBTREE_TEXT, F_SUBTREE_LINK_DENSITY,
    F_OWN_SHARE, F_STOPWORDS, F_SENTENCE_LEN, F_WORD_LEN, F_HEADING, F_HEADING_SUB,
    F_P_SHARE, F_LINK_LEAF_SHARE, F_IMAGES_PER_CHAR, F_TITLE_WORDS,
    F_ATTR_NOISE, F_ATTR_CONTENT, F_ANC_NOISE, F_ANC_CONTENT,
    F_TAG_BODY, F_TAG_SECTION, F_TAG_DIV, F_TAG_ARTICLE, F_TAG_MAIN, F_TAG_TD,
    F_TAG_TABLE, F_TAG_UL, F_TAG_LI, F_TAG_P, F_TAG_OTHER,
    F_MAIN_SHARE, F_MAIN_DIST, F_MAIN_OFFSET, F_MAIN_SIBLING, F_MAIN_ANCESTOR,
    F_REPEAT_SIBLINGS, F_REPEAT_PAGE, F_HEAD_OFFSET, F_HEAD_DIST,
    F_ATTR_COMMENT, F_ANC_COMMENT,
    F_CLS_NOISE, F_CLS_CONTENT, F_CLS_COMMENT, F_CLS_CAPTION,
    F_SEC_MAIN, F_SEC_ASIDE, F_IN_FIGURE,
    F_AFTER_IMAGE, F_COPYRIGHT,
    F_REPEAT_TEXT, F_PAGE_MAIN, F_PAGE_LINK,
    F_LD_ARTICLE, F_LD_PRODUCT, F_LD_FORUM, F_LD_LIST,
    F_TYPE_ARTICLE, F_TYPE_COLLECTION, F_TYPE_DOCUMENTATION, F_TYPE_FORUM, F_TYPE_LISTING,
    F_TYPE_PRODUCT, F_TYPE_SERVICE,
    N_FEATURES
};

static const char *const FEATURES[N_FEATURES] = {
    [F_R1] = "R1", [F_R2] = "R2", [F_R3] = "R3", [F_R4] = "R4", [F_R5] = "R5",
    /* punctuation marks per character of own text */
    [F_PUNCT] = "x_punct",
    /* digits per character of own text */
    [F_DIGITS] = "x_digits",
    /* own characters per own leaf, log(1 + chars / (leaves + 1)) */
    [F_TEXT_DENSITY] = "x_text_density",
    /* log(1 + own characters) */
    [F_TEXT_LOG] = "x_text_log",
    /* log(1 + own leaves) */
    [F_LEAVES_LOG] = "x_leaves_log",
    /* log(1 + blocks directly nested) */
    [F_CHILDREN_LOG] = "x_children_log",
    /* nesting depth among blocks (body = 0) */
    [F_DEPTH] = "x_depth",
    /* depth of the element in the DOM (html = 0) */
    [F_DOM_DEPTH] = "x_dom_depth",
    /* page characters before the block's first text / (page characters + 1):
     * 0 = top of the page, near 1 = bottom */
    [F_POSITION] = "x_position",
    /* characters of the block and its descendants / (page characters + 1) */
    [F_SUBTREE_TEXT] = "x_subtree_text",
    /* link characters / (characters + 1) over the block and descendants */
    [F_SUBTREE_LINK_DENSITY] = "x_subtree_link_density",
    /* own characters / (subtree characters + 1) */
    [F_OWN_SHARE] = "x_own_share",
    /* function words (small English list; Chinese function characters) per
     * word token of own text */
    [F_STOPWORDS] = "x_stopwords",
    /* log(1 + own characters / (sentence ends . ! ? 。 ！ ？ ; + 1)) */
    [F_SENTENCE_LEN] = "x_sentence_len",
    /* letters per word token (CJK: 1 per character) */
    [F_WORD_LEN] = "x_word_len",
    /* 1 when an own leaf is (inside) h1..h6 */
    [F_HEADING] = "x_heading",
    /* 1 when a leaf of the block or a descendant is a heading */
    [F_HEADING_SUB] = "x_heading_sub",
    /* own characters in <p> leaves / (own characters + 1) */
    [F_P_SHARE] = "x_p_share",
    /* own leaves inside links / (own leaves + 1) */
    [F_LINK_LEAF_SHARE] = "x_link_leaf_share",
    /* own images per 100 own characters, log(1 + 100 * img / (chars + 1)) */
    [F_IMAGES_PER_CHAR] = "x_images_per_char",
    /* own word tokens that are words of the page's <title> / (own word
     * tokens + 1): high for the headline */
    [F_TITLE_WORDS] = "x_title_words",
    /* class/id words of the block signalling noise / content (0/1) */
    [F_ATTR_NOISE] = "x_attr_noise",
    [F_ATTR_CONTENT] = "x_attr_content",
    /* the same for any enclosing block */
    [F_ANC_NOISE] = "x_anc_noise",
    [F_ANC_CONTENT] = "x_anc_content",
    /* tag of the block, one-hot */
    [F_TAG_BODY] = "x_tag_body",
    [F_TAG_SECTION] = "x_tag_section",
    [F_TAG_DIV] = "x_tag_div",
    [F_TAG_ARTICLE] = "x_tag_article",
    [F_TAG_MAIN] = "x_tag_main",
    [F_TAG_TD] = "x_tag_td",
    [F_TAG_TABLE] = "x_tag_table",
    [F_TAG_UL] = "x_tag_ul",
    [F_TAG_LI] = "x_tag_li",
    [F_TAG_P] = "x_tag_p",
    [F_TAG_OTHER] = "x_tag_other",
    /* the block against the page's main block: the one with the most own
     * text outside links (the article body, on most pages) */
    [F_MAIN_SHARE] = "x_main_share",       /* own non-link chars / main's + 1 */
    [F_MAIN_DIST] = "x_main_dist",         /* log(1 + block-tree hops to main) */
    [F_MAIN_OFFSET] = "x_main_offset",     /* (first text - main's first text) / page chars */
    [F_MAIN_SIBLING] = "x_main_sibling",   /* inside main's parent block (main too) */
    [F_MAIN_ANCESTOR] = "x_main_ancestor", /* encloses main */
    /* repeated structure: comment threads and teaser lists repeat one block
     * shape, an article body is one of a kind */
    [F_REPEAT_SIBLINGS] = "x_repeat_siblings", /* log(1 + siblings of same tag and class) */
    [F_REPEAT_PAGE] = "x_repeat_page",         /* log(1 + blocks of same tag, class, DOM depth) */
    /* the block against the headline: the h1..h3 leaf sharing the most
     * words with <title> (else the first h1; else the page start, body) */
    [F_HEAD_OFFSET] = "x_head_offset", /* (first text - headline's) / page chars */
    [F_HEAD_DIST] = "x_head_dist",     /* log(1 + block-tree hops to the headline's block) */
    /* comment words (comment, reply, respond, discuss, disqus) in the class
     * or id of the block / of an enclosing block */
    [F_ATTR_COMMENT] = "x_attr_comment",
    [F_ANC_COMMENT] = "x_anc_comment",
    /* class/id words of the block's element and every element above it
     * (blocks or not), halved at each DOM level up (ps_block.cls): a word
     * on <body> barely counts, one on the block or just above it does */
    [F_CLS_NOISE] = "x_cls_noise",
    [F_CLS_CONTENT] = "x_cls_content",
    [F_CLS_COMMENT] = "x_cls_comment",
    [F_CLS_CAPTION] = "x_cls_caption",
    /* the nearest HTML5 sectioning element around the block (ps_block.
     * section): article / main (or their roles, itemprop articleBody) ... */
    [F_SEC_MAIN] = "x_sec_main",
    /* ... or aside / nav / header / footer (or their roles) */
    [F_SEC_ASIDE] = "x_sec_aside",
    /* inside a figure or figcaption: an image's caption or credit */
    [F_IN_FIGURE] = "x_in_figure",
    /* an image comes right before the block's first own text (no text in
     * between, ps_leaf.after_image): a caption's or credit's place, in any
     * markup (a <p class="imagedescription"> after a <div><img>) */
    [F_AFTER_IMAGE] = "x_after_image",
    /* a copyright sign (© ℗) in the own text: photo credits, copyright
     * lines, in every language */
    [F_COPYRIGHT] = "x_copyright",
    /* the largest share of the page's text held by a group of repeated
     * siblings (same parent, tag and class) that the block belongs to or
     * lies inside: product tiles, thread posts, search results and the
     * rows of a listing hold most of their page; a teaser list a little */
    [F_REPEAT_TEXT] = "x_repeat_text",
    /* the page as a whole, the same for all its blocks (the kind of page
     * as the block classifier sees it): the main block's own non-link
     * characters / page characters (an article's body holds most of its
     * page, a grid or a thread spreads its text) ... */
    [F_PAGE_MAIN] = "x_page_main",
    /* ... and link characters / characters over the page */
    [F_PAGE_LINK] = "x_page_link",
    /* ... and what its JSON-LD says it is (ps_page_schema_kinds, 0/1): an
     * article, a product, a forum thread or question, a list of items */
    [F_LD_ARTICLE] = "x_ld_article",
    [F_LD_PRODUCT] = "x_ld_product",
    [F_LD_FORUM] = "x_ld_forum",
    [F_LD_LIST] = "x_ld_list",
    /* ... and the page-type classifier's probability of each type
     * (pagesift/page_types.h; 0 when the page was not classified: a model
     * with these features is used with a page-type bundle) */
    [F_TYPE_ARTICLE] = "x_type_article",
    [F_TYPE_COLLECTION] = "x_type_collection",
    [F_TYPE_DOCUMENTATION] = "x_type_documentation",
    [F_TYPE_FORUM] = "x_type_forum",
    [F_TYPE_LISTING] = "x_type_listing",
    [F_TYPE_PRODUCT] = "x_type_product",
    [F_TYPE_SERVICE] = "x_type_service",
};

static const char *const TAG_ONEHOT[] = {"body", "section", "div", "article", "main",
                                         "td",   "table",   "ul",  "li",      "p"};

size_t ps_feature_count(void)
{
    return N_FEATURES;
}

const char *ps_feature_name(size_t id)
{
    return id < N_FEATURES ? FEATURES[id] : NULL;
}

int ps_feature_lookup(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < N_FEATURES; i++)
        if (strcmp(FEATURES[i], name) == 0)
            return (int)i;
    int k = ps_context_feature_index(name); /* a second stage's (features/context.c) */
    return k < 0 ? -1 : PS_CONTEXT_FEATURE_ID + k;
}

/* Per-block figures the extended features are made of. */
typedef struct xstats {
    ps_text_stats ts;     /* own text, non-removed leaves */
    uint32_t leaves;      /* own non-removed leaves */
    uint32_t link_leaves; /* of which inside links */
    uint32_t p_chars;     /* own characters in <p> leaves */
    uint32_t first_pos;   /* page characters before the first own/sub text */
    ps_counts sub;        /* subtree counts */
    uint8_t heading, heading_sub;
    uint8_t after_image;  /* the first own leaf follows an image */
    uint8_t attr;         /* PS_ATTR_* bits of the block's class/id */
    uint8_t anc;          /* PS_ATTR_* bits of any enclosing block */
    /* page context (context_stats) */
    uint8_t main_sibling, main_ancestor;
    uint32_t main_dist;      /* block-tree hops to the main block */
    uint32_t repeat_sib;     /* other blocks of one parent, tag and class */
    uint32_t repeat_page;    /* other blocks of one tag, class and DOM depth */
    uint32_t head_dist;      /* block-tree hops to the headline's block */
    float repeat_text;       /* share of page text in its repeated group (or an enclosing one) */
} xstats;

/* The figures of the page, the same for every block (zero but the totals
 * when only R1..R5 are asked). */
typedef struct xpage {
    ps_counts t;         /* the page's totals */
    uint32_t main_chars; /* the main block's own non-link characters */
    uint32_t main_pos;   /* and the page characters before its text */
    uint32_t head_pos;   /* page characters before the headline */
    uint8_t schema;      /* the page's PS_SCHEMA_* bits */
} xpage;

/* A block's shape for the repetition counts: its tag and class attribute. */
typedef struct shape {
    uint64_t key, hash;
    uint32_t block;
} shape;

static int shape_cmp(const void *a, const void *b)
{
    const shape *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return 0;
}

/* Counts, for every block, the other blocks of the same shape in @p sh
 * (sorted): a run of n equal entries gives each of them n - 1.  Sibling
 * runs (page == 0) of two or more also give each member the share of the
 * page's @p chars their subtrees hold together. */
static void count_runs(shape *sh, size_t nb, xstats *x, int page, uint32_t chars)
{
    qsort(sh, nb, sizeof *sh, shape_cmp);
    for (size_t i = 0; i < nb;) {
        size_t j = i + 1;
        uint64_t text = x[sh[i].block].sub.text_chars;
        while (j < nb && sh[j].key == sh[i].key && sh[j].hash == sh[i].hash)
            text += x[sh[j++].block].sub.text_chars;
        for (size_t k = i; k < j; k++) {
            if (page) {
                x[sh[k].block].repeat_page = (uint32_t)(j - i - 1);
            } else {
                x[sh[k].block].repeat_sib = (uint32_t)(j - i - 1);
                x[sh[k].block].repeat_text = j - i > 1 ? (float)((double)text / (chars + 1.0)) : 0.0f;
            }
        }
        i = j;
    }
}

/* Block-tree hops from every block to block @p t, in one pre-order pass
 * (O(blocks) whatever the depth): t's ancestors (and t) know their depth as
 * the depth of the lowest common ancestor, every other block inherits its
 * parent's; @p lca keeps the common ancestors' depths (nb entries). */
static void tree_dist(const ps_block *blocks, size_t nb, size_t t, int32_t *lca, uint32_t *dist)
{
    for (size_t b = 0; b < nb; b++)
        lca[b] = -1;
    for (int32_t a = (int32_t)t; a >= 0 && (size_t)a < nb; a = blocks[a].parent) {
        lca[a] = blocks[a].depth;
        if (blocks[a].parent >= a)
            break; /* not a tree in pre-order: stop rather than loop */
    }
    for (size_t b = 0; b < nb; b++) {
        int32_t p = blocks[b].parent;
        if (lca[b] < 0)
            lca[b] = (p >= 0 && (size_t)p < b) ? lca[p] : 0;
        int64_t d = (int64_t)blocks[b].depth + blocks[t].depth - 2 * (int64_t)lca[b];
        dist[b] = d > 0 ? (uint32_t)d : 0;
    }
}

/* The page-context figures: the main block (most own text outside links;
 * the first of equals) and each block's place against it and against the
 * headline's block @p hb (headline at page character @p hpos), and the
 * repetition counts.  O(blocks log blocks).  Returns -1 when out of memory. */
static int context_stats(const ps_block *blocks, size_t nb, xstats *x, xpage *px, size_t hb, uint32_t hpos,
                         uint32_t chars)
{
    if (!nb)
        return 0;
    size_t main = 0;
    uint32_t best = 0;
    for (size_t b = 0; b < nb; b++) {
        const ps_counts *o = &blocks[b].own;
        uint32_t c = o->text_chars > o->link_chars ? o->text_chars - o->link_chars : 0;
        if (c > best) {
            best = c;
            main = b;
        }
    }
    int32_t *lca = malloc(nb * sizeof *lca);
    uint32_t *dist = malloc(nb * sizeof *dist);
    shape *sh = malloc(nb * sizeof *sh);
    if (!lca || !dist || !sh) {
        free(lca);
        free(dist);
        free(sh);
        return -1;
    }
    tree_dist(blocks, nb, hb, lca, dist);
    for (size_t b = 0; b < nb; b++)
        x[b].head_dist = dist[b];
    tree_dist(blocks, nb, main, lca, dist); /* lca now against main */
    for (size_t b = 0; b < nb; b++)
        x[b].main_dist = dist[b];
    for (int32_t a = blocks[main].parent; a >= 0 && (size_t)a < nb; a = blocks[a].parent) {
        x[a].main_ancestor = 1;
        if (blocks[a].parent >= a)
            break;
    }
    int32_t mparent = blocks[main].parent;
    for (size_t b = 0; b < nb; b++) {
        /* inside main's parent block (siblings of main and what they hold,
         * main itself): the common ancestor is main's parent or deeper */
        x[b].main_sibling = !x[b].main_ancestor &&
                            (mparent < 0 ? b == main : lca[b] >= blocks[main].depth - 1);
        int32_t p = blocks[b].parent;
        sh[b] = (shape){(uint64_t)(int64_t)p, blocks[b].shape, (uint32_t)b};
    }
    px->main_chars = best;
    px->main_pos = x[main].first_pos;
    px->head_pos = hpos;
    count_runs(sh, nb, x, 0, chars);
    /* a block inside a repeated group (the title of a product tile) shares
     * its group's figure: pre-order, so parents come first */
    for (size_t b = 0; b < nb; b++) {
        int32_t p = blocks[b].parent;
        if (p >= 0 && (size_t)p < b && x[p].repeat_text > x[b].repeat_text)
            x[b].repeat_text = x[p].repeat_text;
    }
    for (size_t b = 0; b < nb; b++)
        sh[b].key = (uint64_t)blocks[sh[b].block].dom_depth;
    count_runs(sh, nb, x, 1, chars);
    free(lca);
    free(dist);
    free(sh);
    /* a large page's working arrays go back to the system, not on to the
     * peak of the classifiers after (docs/EXTRACTION.md, "Bounds") */
    ps_give_back(nb * (sizeof *lca + sizeof *dist + sizeof *sh));
    return 0;
}

/* The headline: the h1..h3 leaf with the most words of the page title
 * (the first of equals), else the first h1. */
typedef struct head {
    uint32_t title_words, pos;
    int32_t block; /* -1: none yet */
} head;

static void head_candidate(head *h, const ps_leaf *l, uint32_t pos, const ps_word_set *title)
{
    uint32_t tw = 0;
    if (title) {
        ps_text_stats ts = {0};
        ps_text_stats_add(&ts, l->text, l->bytes, title);
        tw = ts.title_words;
    }
    if (tw > h->title_words || (h->block < 0 && l->heading == 1)) {
        h->title_words = tw;
        h->pos = pos;
        h->block = l->block;
    }
}

static xstats *compute_xstats(const ps_page *pg, xpage *px)
{
    size_t nb, nl;
    const ps_block *blocks = ps_page_blocks(pg, &nb);
    const ps_leaf *leaves = ps_page_leaves(pg, &nl);
    xstats *x = calloc(nb ? nb : 1, sizeof *x);
    if (!x)
        return NULL;
    for (size_t b = 0; b < nb; b++) {
        x[b].first_pos = UINT32_MAX;
        x[b].sub = blocks[b].own;
    }
    ps_word_set title;
    const char *tt = ps_page_title(pg);
    if (ps_word_set_init(&title, tt, strlen(tt))) {
        free(x);
        return NULL;
    }
    uint32_t pos = 0;
    head h = {0, 0, -1};
    for (size_t i = 0; i < nl; i++) {
        const ps_leaf *l = &leaves[i];
        if (l->removed || l->block < 0 || (size_t)l->block >= nb)
            continue;
        if (l->heading >= 1 && l->heading <= 3)
            head_candidate(&h, l, pos, title.n ? &title : NULL);
        xstats *s = &x[l->block];
        if (!s->leaves)
            s->after_image = l->after_image;
        ps_text_stats_add(&s->ts, l->text, l->bytes, title.n ? &title : NULL);
        s->leaves++;
        s->link_leaves += l->in_link != 0;
        if (strcmp(l->tag, "p") == 0)
            s->p_chars += l->chars;
        if (l->heading)
            s->heading = 1;
        if (s->first_pos == UINT32_MAX)
            s->first_pos = pos;
        pos += l->chars;
    }
    ps_word_set_free(&title);
    /* Blocks are in pre-order: children come after parents, so a reverse
     * pass folds every block into its parent. */
    for (size_t b = nb; b-- > 0;) {
        x[b].heading_sub |= x[b].heading;
        int32_t p = blocks[b].parent;
        if (p < 0 || (size_t)p >= b)
            continue;
        x[p].sub.text_chars += x[b].sub.text_chars;
        x[p].sub.link_chars += x[b].sub.link_chars;
        x[p].sub.links += x[b].sub.links;
        x[p].sub.images += x[b].sub.images;
        x[p].heading_sub |= x[b].heading_sub;
        if (x[b].first_pos < x[p].first_pos)
            x[p].first_pos = x[b].first_pos;
    }
    for (size_t b = 0; b < nb; b++) {
        x[b].attr = (uint8_t)ps_attr_of_class_words(blocks[b].words);
        int32_t p = blocks[b].parent;
        if (p >= 0 && (size_t)p < b)
            x[b].anc = x[p].anc | x[p].attr;
        if (x[b].first_pos == UINT32_MAX) /* no text in its subtree: the page end */
            x[b].first_pos = pos;
    }
    if (context_stats(blocks, nb, x, px, h.block >= 0 ? (size_t)h.block : 0, h.block >= 0 ? h.pos : 0, pos)) {
        free(x);
        return NULL;
    }
    px->schema = (uint8_t)ps_page_schema_kinds(pg);
    return x;
}

static double ratio(double a, double b)
{
    return a / (b + 1.0);
}

/* Feature @p f of block @p i; @p xs is NULL when only R1..R5 are asked. */
static inline __attribute__((always_inline)) double value(int f, const ps_block *blocks, const xstats *xs, size_t i,
                                                         const xpage *px)
{
    const ps_counts t = px->t;
    static const xstats none;
    const ps_block *b = &blocks[i];
    const xstats *x = xs ? &xs[i] : &none;
    const ps_counts *o = &b->own;
    switch (f) {
    case F_R1: return ratio(o->text_chars, t.text_chars);
    case F_R2: return ratio(o->link_chars, t.link_chars);
    case F_R3: return ratio(o->links, t.links);
    case F_R4: return ratio(o->images, t.images);
    case F_R5: return ratio(o->link_chars, o->text_chars);
    default: break;
    }
    const ps_text_stats *s = &x->ts;
    switch (f) {
    case F_PUNCT: return ratio(s->punct, s->chars);
    case F_DIGITS: return ratio(s->digits, s->chars);
    case F_TEXT_DENSITY: return log1p(ratio(o->text_chars, x->leaves));
    case F_TEXT_LOG: return log1p(o->text_chars);
    case F_LEAVES_LOG: return log1p(x->leaves);
    case F_CHILDREN_LOG: return log1p(b->n_children);
    case F_DEPTH: return b->depth;
    case F_DOM_DEPTH: return b->dom_depth;
    case F_POSITION: return ratio(x->first_pos, t.text_chars);
    case F_SUBTREE_TEXT: return ratio(x->sub.text_chars, t.text_chars);
    case F_SUBTREE_LINK_DENSITY: return ratio(x->sub.link_chars, x->sub.text_chars);
    case F_OWN_SHARE: return ratio(o->text_chars, x->sub.text_chars);
    case F_STOPWORDS: return ratio(s->stopwords, s->words);
    case F_SENTENCE_LEN: return log1p(ratio(s->chars, s->sentence_ends));
    case F_WORD_LEN: return ratio(s->word_chars, s->words);
    case F_HEADING: return x->heading;
    case F_HEADING_SUB: return x->heading_sub;
    case F_P_SHARE: return ratio(x->p_chars, o->text_chars);
    case F_LINK_LEAF_SHARE: return ratio(x->link_leaves, x->leaves);
    case F_IMAGES_PER_CHAR: return log1p(100.0 * ratio(o->images, o->text_chars));
    case F_TITLE_WORDS: return ratio(s->title_words, s->words);
    case F_ATTR_NOISE: return (x->attr & PS_ATTR_NOISE) != 0;
    case F_ATTR_CONTENT: return (x->attr & PS_ATTR_CONTENT) != 0;
    case F_ANC_NOISE: return (x->anc & PS_ATTR_NOISE) != 0;
    case F_ANC_CONTENT: return (x->anc & PS_ATTR_CONTENT) != 0;
    case F_MAIN_SHARE: return ratio((double)o->text_chars - o->link_chars, px->main_chars);
    case F_MAIN_DIST: return log1p(x->main_dist);
    case F_MAIN_OFFSET: return ((double)x->first_pos - px->main_pos) / (t.text_chars + 1.0);
    case F_MAIN_SIBLING: return x->main_sibling;
    case F_MAIN_ANCESTOR: return x->main_ancestor;
    case F_REPEAT_SIBLINGS: return log1p(x->repeat_sib);
    case F_REPEAT_PAGE: return log1p(x->repeat_page);
    case F_HEAD_OFFSET: return ((double)x->first_pos - px->head_pos) / (t.text_chars + 1.0);
    case F_HEAD_DIST: return log1p(x->head_dist);
    case F_ATTR_COMMENT: return (x->attr & PS_ATTR_COMMENT) != 0;
    case F_ANC_COMMENT: return (x->anc & PS_ATTR_COMMENT) != 0;
    case F_CLS_NOISE: return b->cls[PS_CLS_NOISE];
    case F_CLS_CONTENT: return b->cls[PS_CLS_CONTENT];
    case F_CLS_COMMENT: return b->cls[PS_CLS_COMMENT];
    case F_CLS_CAPTION: return b->cls[PS_CLS_CAPTION];
    case F_SEC_MAIN: return b->section == PS_SECTION_MAIN;
    case F_SEC_ASIDE: return b->section == PS_SECTION_ASIDE;
    case F_IN_FIGURE: return b->in_figure;
    case F_AFTER_IMAGE: return x->after_image;
    case F_COPYRIGHT: return s->copyright != 0;
    case F_REPEAT_TEXT: return x->repeat_text;
    case F_PAGE_MAIN: return ratio(px->main_chars, t.text_chars);
    case F_PAGE_LINK: return ratio(t.link_chars, t.text_chars);
    case F_LD_ARTICLE: return (px->schema & PS_SCHEMA_ARTICLE) != 0;
    case F_LD_PRODUCT: return (px->schema & PS_SCHEMA_PRODUCT) != 0;
    case F_LD_FORUM: return (px->schema & (PS_SCHEMA_FORUM | PS_SCHEMA_QA)) != 0;
    case F_LD_LIST: return (px->schema & PS_SCHEMA_LIST) != 0;
    case F_TAG_OTHER:
        for (size_t i = 0; i < sizeof TAG_ONEHOT / sizeof *TAG_ONEHOT; i++)
            if (strcmp(b->tag, TAG_ONEHOT[i]) == 0)
                return 0;
        return 1;
    default:
        if (f >= F_TAG_BODY && f < F_TAG_OTHER)
            return strcmp(b->tag, TAG_ONEHOT[f - F_TAG_BODY]) == 0;
        return 0;
    }
}

/* The rows of a page's blocks, made on demand from the per-block figures
 * (xstats, 96 bytes a block) instead of held whole (n_ids doubles a
 * block: 408 bytes with the shipped model's 51).  A page whose whole matrix
 * takes at most ROWS_CACHE bytes (1 285 blocks with 51 features: 98.7 % of
 * the pages of the eight sets) has it made once, as before, and the
 * classifiers read it in place (ps_block_rows_all): the second stage and the
 * passes ask again for rows the first stage made, and a copy of the rows
 * per chunk beside the matrix made such pages' peak larger, not smaller. */
#define ROWS_CACHE (512 * 1024)

struct ps_block_rows {
    const ps_page *pg;
    const ps_block *blocks;
    size_t nb;
    xpage px;
    xstats *x; /* NULL when only R1..R5 are asked */
    int *ids;
    size_t n_ids;
    double *all; /* every block's row, when small enough; else NULL */
};

ps_block_rows *ps_block_rows_new(const ps_page *pg, const int *ids, size_t n_ids)
{
    if (!pg || (n_ids && !ids))
        return NULL;
    int extended = 0;
    for (size_t k = 0; k < n_ids; k++) {
        if (ids[k] < 0 || ids[k] >= N_FEATURES)
            return NULL;
        extended |= ids[k] > F_R5;
    }
    ps_block_rows *r = calloc(1, sizeof *r);
    if (!r || !(r->ids = malloc((n_ids + 1) * sizeof *r->ids))) {
        free(r);
        return NULL;
    }
    if (n_ids)
        memcpy(r->ids, ids, n_ids * sizeof *ids);
    r->n_ids = n_ids;
    r->pg = pg;
    r->blocks = ps_page_blocks(pg, &r->nb);
    r->px.t = ps_page_totals(pg);
    if (extended && !(r->x = compute_xstats(pg, &r->px))) {
        ps_block_rows_free(r);
        return NULL;
    }
    if (r->nb * n_ids * sizeof(double) <= ROWS_CACHE && r->nb * n_ids > 0) {
        double *all = malloc(r->nb * n_ids * sizeof *all);
        if (!all) {
            ps_block_rows_free(r);
            return NULL;
        }
        ps_block_rows_get(r, NULL, r->nb, all);
        r->all = all;
        free(r->x); /* every value is made */
        r->x = NULL;
    }
    return r;
}

const double *ps_block_rows_all(const ps_block_rows *r)
{
    return r ? r->all : NULL;
}

void ps_block_rows_free(ps_block_rows *r)
{
    if (!r)
        return;
    free(r->all);
    free(r->x);
    free(r->ids);
    free(r);
}

size_t ps_block_rows_width(const ps_block_rows *r)
{
    return r ? r->n_ids : 0;
}

/* Feature ids[k] of block b (inlined: a call per value cost 0.5 % of the
 * instructions of a run). */
static inline __attribute__((always_inline)) double row_value(const ps_block_rows *r, size_t k, size_t b)
{
    int id = r->ids[k];
    return id >= F_TYPE_ARTICLE && id <= F_TYPE_SERVICE
               ? ps_page_type_prob(r->pg, PS_PTYPE_ARTICLE + (id - F_TYPE_ARTICLE))
               : value(id, r->blocks, r->x, b, &r->px);
}

void ps_block_rows_get(const ps_block_rows *r, const uint32_t *blocks, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) {
        size_t b = blocks ? blocks[i] : i;
        if (r->all)
            memcpy(out + i * r->n_ids, r->all + b * r->n_ids, r->n_ids * sizeof *out);
        else
            for (size_t k = 0; k < r->n_ids; k++)
                out[i * r->n_ids + k] = row_value(r, k, b);
    }
}

void ps_block_rows_columns(const ps_block_rows *r, const size_t *cols, size_t k, double *out)
{
    for (size_t b = 0; b < r->nb; b++)
        for (size_t j = 0; j < k; j++)
            out[b * k + j] = r->all ? r->all[b * r->n_ids + cols[j]] : row_value(r, cols[j], b);
}

int ps_page_block_features(const ps_page *pg, const int *ids, size_t n_ids, double *out)
{
    if (!pg || (n_ids && (!ids || !out)))
        return -1;
    ps_block_rows *r = ps_block_rows_new(pg, ids, n_ids);
    if (!r)
        return -1;
    if (r->all)
        memcpy(out, r->all, r->nb * n_ids * sizeof *out);
    else
        ps_block_rows_get(r, NULL, r->nb, out);
    ps_block_rows_free(r);
    return 0;
}
