/* methods/block_passes.c — second passes over the SVM's block classes
 * (issue 9: "a second pass that smooths labels of neighbouring blocks",
 * "title detection, so the headline is kept").  The SVM judges each block
 * alone; these passes use the page around it.
 *
 * focus (parameter: share; off by default since issue 14's stacked model,
 *   0.85 before): the content characters of every
 *   block are summed up the block tree; from the root (body) the pass walks
 *   down to a child block as long as one holds at least `share` of all the
 *   page's content characters, and drops content outside the block where it
 *   stops.  Comment threads, "related" teasers and footers that the SVM
 *   takes for text sit outside the article's container.  0.85 is the share
 *   no set lost with (0.7 cost netease and dragnet 0.01) with the single-
 *   stage model.  The stacked model (issue 14) judges a block with its
 *   neighbours' scores, and focus then cut more article than noise: held
 *   out (docs/research/QUALITY.md), focus off gave trafilatura-eval 0.912 -> 0.925
 *   under 5-fold CV (recall 0.911 -> 0.943) and the mean of the seven sets
 *   0.9279 -> 0.9300, so it is off by default; focus=X turns it on.
 * headline (on/off): among the blocks before the first content block, the
 *   last one with an h1..h6 leaf whose word tokens are at least half words of
 *   the page's <title> (feature x_title_words >= 0.5) becomes content: the
 *   article's headline, which the SVM often drops as a short block.
 *
 * comments (on/off): content blocks whose class/id, or that of an element
 *   at most two levels above, holds a comment word (comment(s), reply,
 *   respond, discuss, disqus, kommentar: feature x_cls_comment >= 0.25)
 *   become noise, unless the headline is theirs (x_head_dist 0).  Until
 *   issue 14 any enclosing block counted, and a site-wide word on <body>
 *   ("use-disqus") dropped whole articles (held out: readability +0.013).  Comments are noise by pagesift's
 *   definition, but CleanEval's and Readability's gold keep them (96 % and
 *   63 % of the characters in such blocks), so a model trained on those
 *   keeps dragnet's comment threads (551 000 characters wrongly kept, held
 *   out): dragnet +0.020 token F1 at block level, other sets +-0.000.
 * reviews (on/off): on a page typed product, customer reviews become noise
 *   (pass_reviews below).
 * no_tables (on/off, default off): data tables become noise (pass_no_tables
 *   below; pagesift --no-tables).
 * fallback (on/off): when the SVM keeps no block of a page that has text,
 *   the block it scored highest is kept (run after comments, before the
 *   others, so they see it): CleanEval's table pages otherwise come out
 *   empty (12 of 730 pages with the p/td/table blocks), each scoring P = R = 0.
 * fill (margin, default 1.0): inside the container of the content (the
 *   deepest block holding >= 0.85 of the content characters, body when none
 *   does), blocks the SVM scored above -margin become content when at most
 *   half their own text is link text (or they are cards: FILL_CARD) and the
 *   comments pass would not drop them.  The SVM judges each block alone, and the paragraphs of pages
 *   unlike its training pages (a list of applications with descriptions, a
 *   statistics bulletin in one long div) hover just below zero while the
 *   page's best paragraphs are kept; link lists and text outside the
 *   article's block stay out.  Held out, mean of five training seeds
 *   (docs/research/QUALITY.md): cleaneval +0.019, readability +0.016,
 *   cleanportaleval +0.005, dragnet +0.002, l3s-gn1 and netease -0.003.
 *   fill_chars (default 0: any length), a row of its own after fill: the
 *   fill takes only blocks of at least that many characters.  What the fill
 *   adds on modern pages is half captions, credits and "read also" headings
 *   (trafilatura-eval, docs/research/QUALITY.md section 00000); fill_chars=100 raised
 *   trafilatura-eval's precision under CV from 0.908 to 0.926, but the
 *   older gold sets keep such short lines (cleaneval its dates and table
 *   cells, readability its photo credits) and the mean of the seven held-out
 *   sets fell 0.0004; chosen by a grid on six sets, the setting lost on the
 *   seventh (nested), so the default stays 0.
 *   fill_lead (default 100; 0 = off), a row after fill_chars: a block with
 *   fewer characters than that and no blocks inside it (its text one piece)
 *   is taken by the fill only when the next block with text, in document
 *   order, is content, the classifier's or one the fill takes (a block
 *   with sub-blocks, e.g. an article element whose own text is a code
 *   sample between its paragraphs, is taken as before): a subheading leads
 *   into the paragraph it heads, a "Lesen Sie auch" / "NOTAS RELACIONADAS"
 *   / "Related Coverage" line into the teaser list after it, which is
 *   noise.  The short lines the older gold sets keep inside the article
 *   (cleaneval's dates and table cells) mostly stand before more article.
 *   Held out, with the same models over three seeds (docs/research/QUALITY.md
 *   section 000000): the mean of the seven sets +0.0006, +0.0003, +0.0006,
 *   trafilatura-eval under 5-fold CV 0.925 -> 0.926 (precision 0.908 ->
 *   0.915); l3s-gn1 +0.002, readability -0.001 (a short last line at the
 *   article's end, a photo credit before a list).
 *
 * repeats (minimum characters, default 20; 0 = off): a content block that
 *   repeats the text of an earlier one in another context (a quoted post,
 *   a copy of the page per screen size) becomes noise (pass_repeats below).
 * whole (minimum characters, default 120; 0 = off): when the content holds
 *   fewer characters, every block with text becomes content (pass_whole
 *   below).
 *
 * focus + headline, template-svm held out (docs/research/QUALITY.md): token F1 +0.004
 * dragnet, +0.015 l3s-gn1, +0.001 cleaneval, +0.005 cleanportaleval, +0.004
 * netease.
 *
 * The chain (ps_block_pass_table, at the end of this file) runs them in the
 * order comments, reviews, facets, no_tables, groups, posts, fallback, fill,
 * repeats, focus, headline, whole, in O(blocks) (posts, repeats: O(blocks log blocks)) with one scratch
 * array per page.  A new pass: a function of the ps_block_pass_fn
 * signature above the table, with a comment saying what it does and what it
 * was measured to give, and its row where it must run. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "methods/block_passes.h"
#include "common/util.h"
#include "extract/class_words.h"
#include "extract/page_signals.h"
#include "pagesift/features.h"

/* The deepest block holding at least @p share of the page's content
 * characters (the root, body, when no block below it does, or when nothing is
 * content); @p mass: scratch, one per block. */
static size_t container(const ps_page *page, const ps_block *b, size_t n, double share,
                        const uint8_t *keep, double *mass)
{
    for (size_t i = 0; i < n; i++)
        mass[i] = keep[i] ? (double)b[i].own.text_chars : 0.0;
    for (size_t i = n; i-- > 1;) /* pre-order: children after their parent */
        if (b[i].parent >= 0)
            mass[b[i].parent] += mass[i];
    double total = mass[0];
    size_t cur = 0;
    if (total <= 0)
        return cur;
    for (;;) {
        size_t end = ps_block_subtree_end(page, cur), next = 0;
        for (size_t c = cur + 1; c < end; c = ps_block_subtree_end(page, c))
            if (mass[c] >= share * total) {
                next = c;
                break;
            }
        if (!next)
            return cur;
        cur = next;
    }
}

/* Feature rows with the @p k features @p names: the caller's (c->feat) when
 * they hold all of them, else computed into @p tmp (k * blocks doubles).
 * Sets the row stride and each name's column; returns NULL when they cannot
 * be had. */
static const double *rows_with(const ps_pass_ctx *c, const char *const *names, size_t k,
                               double *tmp, size_t *stride, size_t *col)
{
    int want[4];
    size_t found = 0;
    for (size_t w = 0; w < k; w++) {
        want[w] = ps_feature_lookup(names[w]);
        if (want[w] < 0)
            return NULL;
        col[w] = SIZE_MAX;
        for (size_t j = 0; (c->feat || c->rows) && c->ids && j < c->n_feat && col[w] == SIZE_MAX; j++)
            if (c->ids[j] == want[w])
                col[w] = j;
        found += col[w] != SIZE_MAX;
    }
    if (found == k && c->feat) {
        *stride = c->n_feat;
        return c->feat;
    }
    if (found == k) { /* c->rows: those columns of every block */
        ps_block_rows_columns(c->rows, col, k, tmp);
        for (size_t w = 0; w < k; w++)
            col[w] = w;
        *stride = k;
        return tmp;
    }
    if (ps_page_block_features(c->page, want, k, tmp) < 0)
        return NULL;
    for (size_t w = 0; w < k; w++)
        col[w] = w;
    *stride = k;
    return tmp;
}

/* The value of the parameter row @p key (a row without a function of
 * ps_block_pass_table), 0 when there is none. */
static double param(const ps_pass_ctx *c, const char *key)
{
    const int at = ps_block_pass_find(key);
    return at >= 0 ? c->values->value[at] : 0;
}

/* ---- the passes, in the order they run ---- */

/* A comment word on the block counts 1 in x_cls_comment, on its parent 0.5,
 * two levels up 0.25: the reach of the comments pass.  A comment word
 * anywhere above (the first rule) dropped whole articles on pages whose
 * <body> or outer wrapper carries one site-wide ("comments_on",
 * "use-disqus"); comment markup repeats its word at every level. */
#define COMMENT_REACH 0.25

/* The page-type classifier's probability of a forum thread from which the
 * comments pass leaves a page's replies to the classifier (wcxb-dev under
 * site-grouped CV: forums 0.726 -> 0.739, no other type or set moved;
 * docs/research/QUALITY.md, "Page types, third round"). */
#define THREAD_PROB 0.5

/* Whether the page is a thread, whose posts are its content: its JSON-LD
 * says DiscussionForumPosting, or the page-type classifier says forum with
 * p >= THREAD_PROB and the JSON-LD does not say Q&A (the comments under a
 * Q&A page's answers are noise). */
static int thread_page(const ps_page *page)
{
    const unsigned kinds = ps_page_schema_kinds(page);
    return (kinds & PS_SCHEMA_FORUM) ||
           (!(kinds & PS_SCHEMA_QA) && ps_page_type_prob(page, PS_PTYPE_FORUM) >= THREAD_PROB);
}

/* comments: the blocks in comment containers (a comment word in their
 * class/id or within two elements above, the headline's block excepted)
 * become noise; c->in_comments tells the passes after it.  On a thread
 * (thread_page) the replies are the content and the pass leaves them to the
 * classifier.  When the features
 * cannot be had the pass does nothing. */
static int pass_comments(ps_pass_ctx *c, double on)
{
    (void)on;
    static const char *const names[2] = {"x_cls_comment", "x_head_dist"};
    size_t stride, col[2];
    uint8_t *in = (uint8_t *)(c->scratch + 3 * c->n);
    if (thread_page(c->page)) /* the posts are the content */
        return 0;
    const double *f = rows_with(c, names, 2, c->scratch, &stride, col);
    if (!f)
        return 0;
    for (size_t i = 0; i < c->n; i++) {
        in[i] = f[stride * i + col[0]] >= COMMENT_REACH && f[stride * i + col[1]] > 0;
        if (in[i])
            c->keep[i] = 0;
    }
    c->in_comments = in;
    return 0;
}

/* The per-block flags of the blocks a pass dropped as a container the
 * later passes must leave out (c->in_comments: the comments pass's, in its
 * scratch bytes), made all zero when no pass made them yet. */
static uint8_t *left_out_flags(ps_pass_ctx *c)
{
    if (!c->in_comments) {
        c->in_comments = (uint8_t *)(c->scratch + 3 * c->n);
        memset(c->in_comments, 0, c->n);
    }
    return c->in_comments;
}

/* The page-type classifier's probability of a product page from which the
 * reviews pass drops the customer reviews (docs/research/QUALITY.md, "Page types,
 * third round"). */
#define PRODUCT_PROB 0.5

/* The blocks whose class or id, or that of one of the two blocks above
 * them, holds a word of @p group become noise, and the passes after leave
 * them out (c->in_comments): what the reviews, profiles and facets passes
 * do once their page qualifies. */
static void drop_marked(ps_pass_ctx *c, unsigned group)
{
    uint8_t *in = left_out_flags(c);
    for (size_t i = 0; i < c->n; i++) {
        int32_t b = (int32_t)i;
        for (int up = 0; up < 3 && b >= 0; up++, b = c->blocks[b].parent)
            if (c->blocks[b].words & group) {
                c->keep[i] = 0;
                in[i] = 1;
                break;
            }
    }
}

/* reviews: on a page the page-type classifier calls a product page (p >=
 * PRODUCT_PROB), the blocks whose class or id, or that of one of the two
 * blocks above them, holds a review word (review(s), rating(s),
 * testimonial(s), the review widgets' names) become noise, and the passes
 * after it leave them out as they leave comment threads (c->in_comments).
 * A product's reviews are what its comments are to an article: WCXB's gold
 * leaves them out, and the SVM keeps their long sentences. */
static int pass_reviews(ps_pass_ctx *c, double on)
{
    (void)on;
    if (ps_page_type_prob(c->page, PS_PTYPE_PRODUCT) >= PRODUCT_PROB)
        drop_marked(c, PS_CW_REVIEW);
    return 0;
}

/* profiles: on a discussion — a thread (thread_page) or a Q&A page (its
 * JSON-LD says QAPage) — the blocks whose class or id, or that of one of
 * the two blocks above them, holds a profile word (a post's author panel
 * or signature: phpBB's postprofile, vBulletin's userinfo, XenForo's
 * message-userDetails, Stack Exchange's user-info; extract/class_words.c)
 * become noise, and the passes after it leave them out (c->in_comments).
 * The SVM keeps a join date, a post count and a signature with the post
 * they sit beside; WCXB's gold leaves them out.  wcxb-dev's forums under
 * site-grouped CV 0.796 -> 0.808 (folds 1-3, where it was chosen over
 * acting on every page: 0.807 -> 0.817; folds 4-5 read once: 0.778 ->
 * 0.795), no other type or set moved (docs/research/QUALITY.md, "Page
 * types, seventh round"). */
static int pass_profiles(ps_pass_ctx *c, double on)
{
    (void)on;
    if (thread_page(c->page) || (ps_page_schema_kinds(c->page) & PS_SCHEMA_QA))
        drop_marked(c, PS_CW_PROFILE);
    return 0;
}

/* facets: on a page the page-type classifier calls a listing or a
 * collection (p_listing + p_collection >= `value`), the blocks whose class
 * or id, or that of one of the two blocks above them, holds a facet word
 * (facet(s), filter(s), refine, refinement(s)) become noise, and the passes
 * after it leave them out (c->in_comments): a grid's filter lists (brands,
 * prices, sizes with their counts) are long lists of short links the fill
 * took in with the items.  wcxb-dev's collections under site-grouped CV
 * 0.696 -> 0.701, no other type or set moved (docs/research/QUALITY.md, "Page
 * types, fifth round"). */
static int pass_facets(ps_pass_ctx *c, double gate)
{
    if (ps_page_type_prob(c->page, PS_PTYPE_LISTING) + ps_page_type_prob(c->page, PS_PTYPE_COLLECTION) >= gate)
        drop_marked(c, PS_CW_FACET);
    return 0;
}

/* no_tables (on/off, default off; pagesift --no-tables): the blocks that
 * are tables become noise, and the passes after it leave them out as they
 * leave comment threads (c->in_comments).  With the shipped model's block
 * tags a data table (one with a header row) is one block, "table", while a
 * layout table's cells are blocks of their own ("td"): this drops the data
 * tables and keeps the text a layout table holds (an older site's whole
 * article).  With a model whose block tags have no "table", nothing. */
static int pass_no_tables(ps_pass_ctx *c, double on)
{
    (void)on;
    uint8_t *in = left_out_flags(c);
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->blocks[i].tag, "table") == 0) {
            c->keep[i] = 0;
            in[i] = 1;
        }
    return 0;
}

/* groups: siblings of one shape (ps_block_shape: tag and class, digits
 * left out) with scores, at least `value` of them, are decided together:
 * all content when the mean of their scores is above zero, else none (a
 * comment container's stay as the comments pass left them).  The SVM
 * judges each product tile, thread post or result row alone, and keeps
 * some cards of a grid and drops others alike. */
typedef struct member {
    int32_t parent;
    uint64_t shape;
    uint32_t block;
} member;

static int member_cmp(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->shape != y->shape)
        return x->shape < y->shape ? -1 : 1;
    return x->block < y->block ? -1 : x->block > y->block;
}

static int pass_groups(ps_pass_ctx *c, double min_size)
{
    if (!c->score || min_size < 2)
        return 0;
    member *m = malloc((c->n + 1) * sizeof *m);
    if (!m)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!isnan(c->score[i]) && !(c->in_comments && c->in_comments[i]))
            m[k++] = (member){c->blocks[i].parent, c->blocks[i].shape, (uint32_t)i};
    qsort(m, k, sizeof *m, member_cmp);
    for (size_t i = 0; i < k;) {
        size_t j = i + 1;
        double sum = c->score[m[i].block];
        while (j < k && m[j].parent == m[i].parent && m[j].shape == m[i].shape)
            sum += c->score[m[j++].block];
        if ((double)(j - i) >= min_size)
            for (size_t t = i; t < j; t++)
                c->keep[m[t].block] = sum > 0;
        i = j;
    }
    free(m);
    return 0;
}

/* posts: on a thread page (thread_page), the posts are one repeated
 * structure — blocks of one shape (ps_block_shape) at one place, the tag
 * names of their element and its two parents (post_key: "div/article/div",
 * class "bbWrapper") — and they are content together: the largest such
 * structure by text, of at least POSTS_MIN blocks, holding at least `value`
 * of the text of the page's scored blocks, becomes content whole.  The SVM judges each post alone and drops
 * the short replies of a XenForo or vBulletin thread one by one (wcxb-dev's
 * woodworkingtalk thread kept 21 % of its posts).  Blocks a pass before left
 * out (reviews, tables) are not members.  wcxb-dev's forums under
 * site-grouped CV 0.752 -> 0.768, no other type or set moved
 * (docs/research/QUALITY.md, "Page types, fifth round"). */
/* A block with a key (posts: post_key; repeats: its text's hash), sorted by
 * key, then in document order: the members of one key form a run. */
typedef struct keyed_block {
    uint64_t key;
    uint32_t block;
} keyed_block;

static int keyed_block_cmp(const void *a, const void *b)
{
    const keyed_block *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->block < y->block ? -1 : x->block > y->block;
}

/* A post's place: the tag names of the block's element and of the
 * POST_PATH - 1 elements above it ("div/article/div"), without indices.  Not
 * the whole path: a thread's first post often sits deeper or shallower than
 * its replies (XenForo, vBulletin), and replies nest (Slashdot). */
#define POST_PATH 3

/* FNV-1a over the block's post place, seeded with its shape. */
static uint64_t post_key(const ps_block *b)
{
    uint64_t h = 14695981039346656037ULL ^ b->shape;
    int in_index = 0, seen = 0;
    const char *start = b->path;
    for (const char *q = b->path + strlen(b->path); q > b->path; q--)
        if (q[-1] == '/' && ++seen == POST_PATH) {
            start = q;
            break;
        }
    for (const char *p = start; *p; p++) {
        if (*p == '[')
            in_index = 1;
        else if (*p == ']')
            in_index = 0;
        else if (!in_index) {
            h ^= (unsigned char)*p;
            h *= 1099511628211ULL;
        }
    }
    return h;
}

/* Repeated structures of fewer blocks are not a thread's posts. */
#define POSTS_MIN 3

static int pass_posts(ps_pass_ctx *c, double share)
{
    if (!c->score || !thread_page(c->page))
        return 0;
    keyed_block *m = malloc((c->n + 1) * sizeof *m);
    if (!m)
        return -1;
    size_t k = 0;
    double total = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!isnan(c->score[i]) && !(c->in_comments && c->in_comments[i])) {
            m[k++] = (keyed_block){post_key(&c->blocks[i]), (uint32_t)i};
            total += c->blocks[i].own.text_chars;
        }
    qsort(m, k, sizeof *m, keyed_block_cmp);
    size_t first = 0, end = 0;
    double best = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        double chars = 0;
        for (; j < k && m[j].key == m[i].key; j++)
            chars += c->blocks[m[j].block].own.text_chars;
        if (j - i >= POSTS_MIN && chars > best) {
            best = chars;
            first = i;
            end = j;
        }
        i = j;
    }
    if (end > first && best >= share * total)
        for (size_t t = first; t < end; t++)
            c->keep[m[t].block] = 1;
    free(m);
    return 0;
}

/* fallback: keep the best-scored block when nothing is kept (before the
 * passes below: they then see it). */
static int pass_fallback(ps_pass_ctx *c, double on)
{
    (void)on;
    if (!c->score)
        return 0;
    size_t best = c->n;
    for (size_t i = 0; i < c->n; i++) {
        if (c->keep[i])
            return 0;
        if (!isnan(c->score[i]) && (best == c->n || c->score[i] > c->score[best]))
            best = i;
    }
    if (best < c->n)
        c->keep[best] = 1;
    return 0;
}

/* fill: inside the container of the content (FILL_SHARE), blocks scored
 * above -margin whose own text is at most FILL_LINKS link text (or is a
 * card, link_list), holds at least fill_chars characters (the row after
 * fill) and is not in a comment container, become content; one shorter
 * than fill_lead characters without sub-blocks only when the next block
 * with text is content. */
#define FILL_SHARE 0.85
#define FILL_LINKS 0.5

/* A block of at least FILL_CARD characters whose text sits in one link is a
 * card — a service's or a listing's tile whose title and description are
 * one <a> — not a list of links, and the fill may take it.  Chosen on
 * wcxb-dev's folds 1-3 (site-grouped; 100, 150 gave less); wcxb-dev's CV
 * listing 0.721 -> 0.729, service 0.839 -> 0.841, no other type or set
 * moved (docs/research/QUALITY.md, "Page types, sixth round").  Any length with
 * any number of links took a BBC page's navigation bars (l3s-gn1 -0.002). */
#define FILL_CARD 200

/* Whether @p b's own text is mostly link text and not a card (FILL_CARD). */
static int link_list(const ps_block *b)
{
    return b->own.link_chars > FILL_LINKS * b->own.text_chars &&
           !(b->own.text_chars >= FILL_CARD && b->own.links <= 1);
}
static int pass_fill(ps_pass_ctx *c, double margin)
{
    if (!c->score)
        return 0;
    const ps_block *b = c->blocks;
    const double min_chars = param(c, "fill_chars"), lead_chars = param(c, "fill_lead");
    size_t cur = container(c->page, b, c->n, FILL_SHARE, c->keep, c->scratch);
    size_t end = ps_block_subtree_end(c->page, cur);
    /* next[j]: the first block at or after j (document order) with text of
     * its own, c->n when none; a block leads into next[its subtree's end] */
    double *next = c->scratch + c->n;
    next[c->n] = (double)c->n;
    for (size_t j = c->n; lead_chars > 0 && j-- > cur;)
        next[j] = b[j].own.text_chars ? (double)j : next[j + 1];
    /* backwards, so that a short heading sees the paragraph after it that
     * the fill has just taken */
    for (size_t i = end; i-- > cur;) {
        if (c->keep[i] || (c->in_comments && c->in_comments[i]) || isnan(c->score[i]) ||
            c->score[i] <= -margin || link_list(&b[i]) ||
            b[i].own.text_chars < min_chars)
            continue;
        if (b[i].own.text_chars < lead_chars && b[i].n_children == 0) {
            size_t nx = (size_t)next[ps_block_subtree_end(c->page, i)];
            if (nx >= c->n || !c->keep[nx])
                continue;
        }
        c->keep[i] = 1;
    }
    return 0;
}

/* repeats: a content block whose own text, at least `value` characters,
 * is the text of a content block before it becomes noise, unless the two
 * stand in the same context — the same shapes (ps_block_shape) on the whole
 * way up to the root.  What a page says twice in two contexts is a copy: a
 * forum post quoted in a reply (blockquote), a site builder's layout
 * rendered once per screen size (Framer's "ssr-variant hidden-..."), a
 * product's description in a desktop and a mobile block.  The same text in
 * the same context is the page's own (a table's repeated rows, the same
 * step in two lists of one manual) and stays.  The first occurrence is the
 * one kept.  Chosen on folds 1-3 of wcxb-dev (site-grouped): 20 characters
 * (40, 80, 160 gave less); wcxb-dev's CV forum 0.768 -> 0.787, product
 * 0.661 -> 0.673, collection, listing, service and article up,
 * documentation 0.929 -> 0.927 (a guide's summary cards repeat its chapters' first
 * lines); the seven other sets within their spreads (docs/research/QUALITY.md, "Page
 * types, sixth round"). */
static int pass_repeats(ps_pass_ctx *c, double min_chars)
{
    size_t nl;
    const ps_leaf *l = ps_page_leaves(c->page, &nl);
    uint64_t *context = malloc((c->n + 1) * sizeof *context);
    /* per block first its text's hash (key) and characters (block), then,
     * compacted in place, the kept ones' (text ^ characters, block): 24
     * bytes a block with the context, on a page of many blocks the passes'
     * largest arrays */
    keyed_block *m = malloc((c->n + 1) * sizeof *m);
    if (!context || !m) {
        free(context), free(m);
        return -1;
    }
    /* a block's own text: its leaves in document order, each ended by a
     * separator; its context: the shapes from the root down to it (blocks
     * come in pre-order, parents first) */
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t shape = c->blocks[i].shape;
        const int32_t up = c->blocks[i].parent;
        m[i] = (keyed_block){ps_hash64("", 1), 0};
        context[i] = up >= 0 ? ps_hash64_update(context[up], &shape, sizeof shape) : ps_hash64(&shape, sizeof shape);
    }
    for (size_t j = 0; j < nl; j++) {
        if (l[j].removed || l[j].block < 0 || !c->keep[l[j].block])
            continue;
        keyed_block *b = &m[l[j].block];
        b->key = ps_hash64_update(ps_hash64_update(b->key, l[j].text, l[j].bytes), "", 1);
        b->block += l[j].chars;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t text = m[i].key;
        const uint32_t chars = m[i].block;
        if (c->keep[i] && chars >= min_chars)
            m[k++] = (keyed_block){text ^ chars, (uint32_t)i}; /* text and length; k <= i */
    }
    qsort(m, k, sizeof *m, keyed_block_cmp);
    for (size_t i = 0; i < k;) {
        size_t j = i + 1;
        for (; j < k && m[j].key == m[i].key; j++)
            if (context[m[j].block] != context[m[i].block])
                c->keep[m[j].block] = 0;
        i = j;
    }
    free(context), free(m);
    return 0;
}

/* whole: when the content holds fewer than `value` characters — a
 * headline, a date, one button — every block with text becomes content.
 * Such a result is the classifier missing the page, not a page without
 * content: a listing of 2 700 words of book titles it took for link lists
 * (wcxb-dev 4533: 6 words kept), a discussion under a link the page-type
 * classifier called an article (lobste.rs: 10 words), a shop's grid; the
 * page's whole text is the better answer (trafilatura falls back to its
 * baseline the same way).  Chosen on folds 1-3 of wcxb-dev (site-grouped):
 * 120 characters (60, 200, 300, 500 gave less or the same); wcxb-dev's CV
 * listing 0.707 -> 0.721, forum 0.787 -> 0.796, collection 0.705 -> 0.714,
 * product 0.673 -> 0.677, 6 of the 7 pages it touched better; readability
 * +0.009, cleaneval +0.002, the other sets within their spreads
 * (docs/research/QUALITY.md, "Page types, sixth round").  Last in the chain, so a
 * headline the pass before kept counts. */
static int pass_whole(ps_pass_ctx *c, double min_chars)
{
    if (!c->score)
        return 0;
    double kept = 0;
    for (size_t i = 0; i < c->n && kept < min_chars; i++)
        if (c->keep[i])
            kept += c->blocks[i].own.text_chars;
    if (kept >= min_chars)
        return 0;
    for (size_t i = 0; i < c->n; i++)
        if (!isnan(c->score[i]) && c->blocks[i].own.text_chars)
            c->keep[i] = 1;
    return 0;
}

/* focus: content only inside the deepest block holding >= share of it. */
static int pass_focus(ps_pass_ctx *c, double share)
{
    size_t cur = container(c->page, c->blocks, c->n, share, c->keep, c->scratch);
    if (cur == 0)
        return 0; /* the root holds everything */
    size_t end = ps_block_subtree_end(c->page, cur);
    for (size_t i = 0; i < c->n; i++)
        if (i < cur || i >= end)
            c->keep[i] = 0;
    return 0;
}

/* headline: the last block before the first content block with a heading
 * whose words are the title's (x_heading, x_title_words) becomes content. */
static int pass_headline(ps_pass_ctx *c, double on)
{
    (void)on;
    size_t first = 0;
    while (first < c->n && !c->keep[first])
        first++;
    if (first == 0)
        return 0; /* no block before the first content block */
    static const char *const names[2] = {"x_heading", "x_title_words"};
    size_t stride, col[2];
    const double *f = rows_with(c, names, 2, c->scratch, &stride, col);
    if (!f)
        return 0;
    for (size_t i = first; i-- > 0;)
        if (f[stride * i + col[0]] >= 1.0 && f[stride * i + col[1]] >= 0.5) {
            c->keep[i] = 1;
            break;
        }
    return 0;
}

/* The chain, in run order: key (= option key), function, option type,
 * default (0 = off), range, the option's doc line.  Defaults: measured leave-one-set-out,
 * docs/research/QUALITY.md. */
const ps_block_pass ps_block_pass_table[] = {
    {"comments", pass_comments, PS_OPT_SWITCH, 1, 0, 1,
     "content blocks inside comment containers become noise (not on a forum thread)"},
    {"reviews", pass_reviews, PS_OPT_SWITCH, 1, 0, 1,
     "on a product page, blocks with a review word in their class/id become noise"},
    {"profiles", pass_profiles, PS_OPT_SWITCH, 1, 0, 1,
     "on a thread or a Q&A page, a post's author panel and signature become noise"},
    {"facets", pass_facets, PS_OPT_DOUBLE, 0.5, 0, 2,
     "on a listing or collection page (probability >= P), filter lists become noise"},
    {"no_tables", pass_no_tables, PS_OPT_SWITCH, 0, 0, 1,
     "data tables (tables with a header row) become noise (pagesift --no-tables)"},
    {"groups", pass_groups, PS_OPT_DOUBLE, 0, 0, 1000,
     "sibling blocks of one shape, at least N of them, are decided together (0 = off)"},
    {"posts", pass_posts, PS_OPT_DOUBLE, 0.3, 0, 1,
     "on a thread, the repeated post structure holding >= X of the text is kept whole"},
    {"fallback", pass_fallback, PS_OPT_SWITCH, 1, 0, 1,
     "a page that would come out empty keeps its best-scored block"},
    {"fill", pass_fill, PS_OPT_DOUBLE, 1.0, 0, 100,
     "in the content's block, blocks scored above -X, not mostly links, become content"},
    {"fill_chars", NULL, PS_OPT_DOUBLE, 0, 0, 1e6,
     "fill's parameter: it takes blocks of at least N characters only"},
    {"fill_lead", NULL, PS_OPT_DOUBLE, 100, 0, 1e6,
     "fill's parameter: a block under N characters only when the next block is content"},
    {"repeats", pass_repeats, PS_OPT_DOUBLE, 20, 0, 1e6,
     "a content block repeating an earlier one (>= N characters) in another context goes"},
    {"focus", pass_focus, PS_OPT_DOUBLE, 0, 0, 1,
     "keep content only inside the deepest block holding >= X of it (0 = off)"},
    {"headline", pass_headline, PS_OPT_SWITCH, 1, 0, 1,
     "keep the title-like heading before the first content block"},
    {"whole", pass_whole, PS_OPT_DOUBLE, 120, 0, 1e6,
     "when fewer than N characters are kept, every block with text is kept (0 = off)"},
    {NULL, NULL, PS_OPT_DOUBLE, 0, 0, 0, NULL},
};

/* ---- running the chain ---- */

_Static_assert(sizeof ps_block_pass_table / sizeof ps_block_pass_table[0] <= PS_BLOCK_PASSES_MAX + 1,
               "more passes than PS_BLOCK_PASSES_MAX");

ps_block_passes ps_block_passes_none(void)
{
    return (ps_block_passes){{0}};
}

ps_block_passes ps_block_passes_default(void)
{
    ps_block_passes p = ps_block_passes_none();
    for (size_t i = 0; ps_block_pass_table[i].key; i++)
        p.value[i] = ps_block_pass_table[i].def;
    return p;
}

int ps_block_pass_find(const char *key)
{
    for (int i = 0; ps_block_pass_table[i].key; i++)
        if (strcmp(ps_block_pass_table[i].key, key) == 0)
            return i;
    return -1;
}

double *ps_block_passes_at(ps_block_passes *p, const char *key)
{
    int i = ps_block_pass_find(key);
    return i < 0 ? NULL : &p->value[i];
}

static int run_passes(ps_pass_ctx c, const ps_block_passes *p);

int ps_block_passes_run_feat(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                             const double *score, const double *feat, size_t n_feat,
                             const int *ids)
{
    ps_pass_ctx c = {.page = page, .keep = keep, .score = score, .feat = feat, .n_feat = n_feat,
                     .ids = ids, .values = p};
    return run_passes(c, p);
}

int ps_block_passes_run_rows(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                             const double *score, const ps_block_rows *rows, size_t n_feat,
                             const int *ids)
{
    ps_pass_ctx c = {.page = page, .keep = keep, .score = score, .rows = rows, .n_feat = n_feat,
                     .ids = ids, .values = p};
    return run_passes(c, p);
}

static int run_passes(ps_pass_ctx c, const ps_block_passes *p)
{
    const ps_page *page = c.page;
    c.blocks = ps_page_blocks(page, &c.n);
    if (c.n == 0)
        return 0;
    int any = 0;
    for (size_t i = 0; ps_block_pass_table[i].key; i++)
        any |= ps_block_pass_table[i].run && p->value[i] != 0;
    if (!any)
        return 0;
    /* 3 doubles a block (a pass's features, or the blocks' mass and the
     * fill's next blocks with text) and the comments pass's flags */
    if (!(c.scratch = malloc(3 * c.n * sizeof *c.scratch + c.n)))
        return -1;
    int rc = 0;
    for (size_t i = 0; ps_block_pass_table[i].key && rc == 0; i++)
        if (ps_block_pass_table[i].run && p->value[i] != 0)
            rc = ps_block_pass_table[i].run(&c, p->value[i]);
    free(c.scratch);
    return rc;
}

int ps_block_passes_run(const ps_page *page, const ps_block_passes *p, uint8_t *keep,
                        const double *score)
{
    return ps_block_passes_run_feat(page, p, keep, score, NULL, 0, NULL);
}
