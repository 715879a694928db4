/* tests/test_block_passes.c — the second passes over block classes
 * (methods/block_passes.c): focus drops content outside the block holding
 * most of it (a comment thread beside the article), keeps everything when
 * the content is spread; headline keeps the title-like heading before the
 * first content block and not an unrelated one; fallback keeps the
 * best-scored block of a page the SVM would leave empty; fill takes near
 * misses inside the content, short ones only when content follows
 * (fill_lead); posts keeps a thread's repeated posts whole; profiles drops
 * a thread's author panels and signatures; repeats drops what a page says
 * again in another context; whole keeps every block of a page whose result
 * would be nearly empty. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "extract/page_signals.h"
#include "methods/block_passes.h"
#include "pagesift/features.h"
#include "tests/test_util.h"

/* body > div#article(div p1, div p2) , div#comments(div c1, div c2) */
static const char *PAGE =
    "<html><head><title>Storm hits the coast</title></head><body>"
    "<div id=top><h1>Storm hits the coast</h1></div>"
    "<div id=article><div>First paragraph of the article with many words in it, "
    "long enough to count.</div><div>Second paragraph of the article, again long "
    "enough to count for something here.</div></div>"
    "<div id=comments><div>A comment.</div><div>Another comment.</div></div>"
    "</body></html>";

/* The passes off but @p key, set to @p v. */
static void set(ps_block_passes *p, const char *key, double v)
{
    double *at = ps_block_passes_at(p, key);
    assert_non_null(at);
    *at = v;
}

static ps_block_passes with(const char *key, double v)
{
    ps_block_passes p = ps_block_passes_none();
    set(&p, key, v);
    return p;
}

static size_t find(const ps_block *b, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].path, path) == 0)
            return i;
    fail_msg("no block %s", path);
    return 0;
}

static void test_focus_drops_outside_content(void **state)
{
    (void)state;
    ps_page *pg = parse_str(PAGE);
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint8_t keep[16] = {0};
    assert_true(n <= 16);
    size_t a1 = find(b, n, "html/body/div[2]/div[1]"), a2 = find(b, n, "html/body/div[2]/div[2]");
    size_t c1 = find(b, n, "html/body/div[3]/div[1]"), c2 = find(b, n, "html/body/div[3]/div[2]");
    keep[a1] = keep[a2] = keep[c1] = keep[c2] = 1;
    ps_block_passes p = with("focus", 0.7);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[a1], 1);
    assert_int_equal(keep[a2], 1);
    assert_int_equal(keep[c1], 0); /* outside div#article, which holds > 70 % */
    assert_int_equal(keep[c2], 0);
    /* share 0.99: no child holds it, so nothing is dropped */
    keep[c1] = keep[c2] = 1;
    set(&p, "focus", 0.99);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[c1] + keep[c2] + keep[a1] + keep[a2], 4);
    /* off: unchanged */
    set(&p, "focus", 0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[c1], 1);
    ps_page_free(pg);
}

static void test_headline_kept(void **state)
{
    (void)state;
    ps_page *pg = parse_str(PAGE);
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint8_t keep[16] = {0};
    size_t h = find(b, n, "html/body/div[1]"), a1 = find(b, n, "html/body/div[2]/div[1]");
    keep[a1] = 1;
    ps_block_passes p = with("headline", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[h], 1);
    ps_page_free(pg);

    /* a heading that is not the title stays noise */
    pg = parse_str("<html><head><title>Storm hits the coast</title></head><body>"
                   "<div><h2>Most read today</h2></div><div>Body text of the page.</div></body></html>");
    assert_non_null(pg);
    b = ps_page_blocks(pg, &n);
    memset(keep, 0, sizeof keep);
    keep[find(b, n, "html/body/div[2]")] = 1;
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[find(b, n, "html/body/div[1]")], 0);
    ps_page_free(pg);
}

static void test_fallback_keeps_best_scored(void **state)
{
    (void)state;
    ps_page *pg = parse_str(PAGE);
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint8_t keep[16] = {0};
    double score[16];
    for (size_t i = 0; i < n; i++)
        score[i] = -2.0;
    score[0] = NAN; /* body: no text of its own, never scored */
    size_t a2 = find(b, n, "html/body/div[2]/div[2]");
    score[a2] = -0.3;
    ps_block_passes p = with("fallback", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(keep[i], i == a2);
    /* something kept already: the fallback leaves the page alone */
    memset(keep, 0, sizeof keep);
    size_t c1 = find(b, n, "html/body/div[3]/div[1]");
    keep[c1] = 1;
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[a2], 0);
    /* off, or no scores: an empty page stays empty */
    memset(keep, 0, sizeof keep);
    set(&p, "fallback", 0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    set(&p, "fallback", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(keep[i], 0);
    ps_page_free(pg);
}

/* Fill: inside the block holding the content, blocks scored a little below
 * zero join it; not link lists, not blocks outside it, not blocks scored far
 * below, not comment threads. */
static void test_fill_joins_near_misses_inside_the_content(void **state)
{
    (void)state;
    ps_page *pg = parse_str(
        "<html><body><div id=side>Sidebar text that the classifier nearly kept.</div>"
        "<div id=article><div>First paragraph of the article, long enough to count here.</div>"
        "<div>Second paragraph of the article, long enough to count as well.</div>"
        "<div>Data Warehouse</div><div>A short aside the classifier doubted a lot.</div>"
        "<div><a href=/a>Related one</a> <a href=/b>Related two</a> and</div>"
        "<div class=comment>Nice article, thanks.</div></div></body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_true(n <= 16);
    size_t side = find(b, n, "html/body/div[1]"), a1 = find(b, n, "html/body/div[2]/div[1]"),
           a2 = find(b, n, "html/body/div[2]/div[2]"), a3 = find(b, n, "html/body/div[2]/div[3]"),
           a4 = find(b, n, "html/body/div[2]/div[4]"), links = find(b, n, "html/body/div[2]/div[5]"),
           com = find(b, n, "html/body/div[2]/div[6]");
    double score[16];
    for (size_t i = 0; i < n; i++)
        score[i] = NAN;
    score[a1] = 1.2, score[a2] = 0.4, score[a3] = -0.6, score[a4] = -1.4;
    score[side] = -0.1, score[links] = -0.2, score[com] = -0.3;
    uint8_t keep[16];
    for (size_t i = 0; i < n; i++)
        keep[i] = !isnan(score[i]) && score[i] > 0;
    ps_block_passes p = with("fill", 1.0);
    set(&p, "comments", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[a1] + keep[a2], 2);
    assert_int_equal(keep[a3], 1);    /* -0.6 > -1.0, inside div#article */
    assert_int_equal(keep[a4], 0);    /* -1.4: below the margin */
    assert_int_equal(keep[links], 0); /* mostly link text */
    assert_int_equal(keep[side], 0);  /* outside the content's block */
    assert_int_equal(keep[com], 0);   /* a comment, which the comments pass drops */
    /* a wider margin takes a4 too; off changes nothing */
    set(&p, "fill", 1.5);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[a4], 1);
    for (size_t i = 0; i < n; i++)
        keep[i] = !isnan(score[i]) && score[i] > 0;
    set(&p, "fill", 0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[a3] + keep[a4] + keep[side], 0);
    /* fill_chars: the fill takes blocks of at least that many characters
     * only: the 43-character aside, not "Data Warehouse" */
    set(&p, "fill", 1.5);
    set(&p, "fill_chars", 20);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[a3], 0);
    assert_int_equal(keep[a4], 1);
    ps_page_free(pg);
}

/* fill and cards: a block whose text of at least 200 characters sits in
 * one link (a tile whose title and description are one <a>) is not a link
 * list, and the fill takes it; a bar of many links of the same length, and
 * a short one-link tile, stay out. */
static void test_fill_takes_cards(void **state)
{
    (void)state;
    ps_page *pg = parse_str(
        "<html><body><div id=main><div>We help companies move their accounting to the cloud, from the first "
        "audit of what they run today to the day the old servers are switched off.</div>"
        "<div class=card><a href=/audit><div>Cloud audit: a two-week review of every system you run, what it "
        "costs, who uses it and what it would take to move it, with a written plan and a fixed price for each "
        "step that follows, signed off by your own finance team.</div></a></div>"
        "<div class=bar><a href=/1>Audit and planning</a> | <a href=/2>Migration services</a> | <a href=/3>"
        "Managed cloud</a> | <a href=/4>Security reviews</a> | <a href=/5>Training for teams</a> | <a href=/6>"
        "Pricing and plans</a> | <a href=/7>Case studies</a> | <a href=/8>Partners and resellers</a> | "
        "<a href=/9>About the company</a> | <a href=/10>Careers</a> | <a href=/11>Contact us</a> | <a href=/12>Newsroom</a> | "
        "<a href=/13>Investor relations</a></div>"
        "<div class=card><a href=/more><div>Read more about our work</div></a></div>"
        "<div>Every move is run by one team from start to end, and the people who planned it stay with you "
        "for the first year after the switch.</div>"
        "</div></body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_true(n <= 16);
    const size_t intro = find(b, n, "html/body/div[1]/div[1]");
    const size_t card = find(b, n, "html/body/div[1]/div[2]/a[1]/div[1]");
    const size_t bar = find(b, n, "html/body/div[1]/div[3]");
    const size_t small = find(b, n, "html/body/div[1]/div[4]/a[1]/div[1]");
    const size_t outro = find(b, n, "html/body/div[1]/div[5]");
    assert_true(b[card].own.text_chars >= 200 && b[bar].own.text_chars >= 200);
    double score[16];
    uint8_t keep[16] = {0};
    for (size_t i = 0; i < n; i++)
        score[i] = b[i].own.text_chars ? -0.3 : NAN;
    score[intro] = score[outro] = 1.0;
    keep[intro] = keep[outro] = 1; /* the content's block: div#main */
    ps_block_passes p = with("fill", 1.0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[card], 1);
    assert_int_equal(keep[bar], 0);
    assert_int_equal(keep[small], 0);
    ps_page_free(pg);
}

/* fill_lead: a short block the fill would take is taken only when the next
 * block with text is content: a subheading before a paragraph (also one the
 * fill itself takes), not a "Read also" line before a list of other
 * stories. */
static void test_fill_lead_needs_content_after(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div id=article>"
                            "<div>The storm reached the coast in the night and the water rose by two metres "
                            "within an hour, the harbour master said.</div>"
                            "<div>What comes next</div>"
                            "<div>Forecasters expect the wind to ease by Sunday, but the rivers will stay high "
                            "for another week at least, they say.</div>"
                            "<div>The clean-up</div>"
                            "<div>Volunteers began to clear the streets at dawn, and the first shops opened "
                            "again before noon on the main square.</div>"
                            "<div>Read also</div>"
                            "<div><a href=/a>Floods in the north</a> <a href=/b>Rain records</a></div>"
                            "</div></body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_true(n <= 16);
    const char *base = "html/body/div[1]/div[";
    char path[64];
    size_t d[7];
    for (int k = 0; k < 7; k++) {
        snprintf(path, sizeof path, "%s%d]", base, k + 1);
        d[k] = find(b, n, path);
    }
    double score[16];
    uint8_t keep[16];
    for (size_t i = 0; i < n; i++)
        score[i] = b[i].own.text_chars ? -0.5 : NAN; /* near misses: in the fill's reach */
    score[d[0]] = score[d[2]] = 1.0;                 /* the classifier's paragraphs */
    score[d[6]] = -3.0;                              /* the link list: noise */
    ps_block_passes p = with("fill", 1.0);
    for (size_t i = 0; i < n; i++)
        keep[i] = !isnan(score[i]) && score[i] > 0;
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[d[5]], 1); /* without fill_lead the fill takes "Read also" */
    set(&p, "fill_lead", 100);
    for (size_t i = 0; i < n; i++)
        keep[i] = !isnan(score[i]) && score[i] > 0;
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[d[1]], 1); /* a subheading before a kept paragraph */
    assert_int_equal(keep[d[3]], 1); /* one before the paragraph the fill takes */
    assert_int_equal(keep[d[4]], 1); /* that paragraph: long, not a lead line */
    assert_int_equal(keep[d[5]], 0); /* "Read also" leads into noise */
    assert_int_equal(keep[d[6]], 0);
    ps_page_free(pg);
}

/* Given the caller's feature rows (the 41 of a model, in another order),
 * headline decides as when it computes the features itself. */
/* Comment threads are noise whatever the SVM says; the headline's block and
 * blocks without comment words stay. */
static void test_comments_dropped(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><head><title>Storm hits the coast</title></head><body>"
                            "<div class=post><h1>Storm hits the coast</h1><p>The storm came in "
                            "the night.</p></div>"
                            "<div id=comments><div class=comment-body>Great article.</div>"
                            "<div class=reply>Thanks!</div></div></body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint8_t keep[16];
    assert_true(n <= 16);
    memset(keep, 1, sizeof keep);
    ps_block_passes p = with("comments", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[find(b, n, "html/body/div[1]")], 1);
    assert_int_equal(keep[find(b, n, "html/body/div[2]")], 0);        /* id comments */
    assert_int_equal(keep[find(b, n, "html/body/div[2]/div[1]")], 0); /* comment-body */
    assert_int_equal(keep[find(b, n, "html/body/div[2]/div[2]")], 0); /* reply */
    /* off: unchanged */
    memset(keep, 1, sizeof keep);
    set(&p, "comments", 0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[find(b, n, "html/body/div[2]/div[2]")], 1);
    ps_page_free(pg);

    /* the headline inside a comment-named container is not dropped */
    pg = parse_str("<html><head><title>Storm hits the coast</title></head><body>"
                   "<div class=comments-open><h1>Storm hits the coast</h1></div>"
                   "<div>The storm came in the night.</div></body></html>");
    assert_non_null(pg);
    b = ps_page_blocks(pg, &n);
    memset(keep, 1, sizeof keep);
    set(&p, "comments", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[find(b, n, "html/body/div[1]")], 1);
    ps_page_free(pg);
}

/* A thread (JSON-LD DiscussionForumPosting, or the page-type classifier's
 * forum): its replies are the content, so the comments pass leaves them to
 * the classifier; a Q&A page (QAPage) keeps the rule: the comments under
 * its answers are noise. */
static void test_thread_replies_kept(void **state)
{
    (void)state;
    const char *fmt =
        "<html><head><title>Boiler pressure drops overnight</title>"
        "<script type=\"application/ld+json\">{\"@context\": \"https://schema.org\", "
        "\"@type\": \"%s\", \"headline\": \"Boiler pressure drops\"}</script>"
        "</head><body><div class=post><h1>Boiler pressure drops overnight</h1>"
        "<p>My boiler loses a bar every night.</p></div>"
        "<div class=forum-post-reply><p>Check the expansion vessel first.</p></div>"
        "<div class=forum-post-reply><p>Mine was a leaking valve.</p></div></body></html>";
    char html[2048];
    snprintf(html, sizeof html, fmt, "DiscussionForumPosting");
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    assert_true(ps_page_schema_kinds(pg) & PS_SCHEMA_FORUM);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint8_t keep[16];
    assert_true(n <= 16);
    memset(keep, 1, sizeof keep);
    ps_block_passes p = with("comments", 1);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[find(b, n, "html/body/div[2]")], 1);
    assert_int_equal(keep[find(b, n, "html/body/div[3]")], 1);
    ps_page_free(pg);
    /* the same markup as a Q&A page: the reply containers go */
    snprintf(html, sizeof html, fmt, "QAPage");
    pg = parse_str(html);
    assert_non_null(pg);
    assert_false(ps_page_schema_kinds(pg) & PS_SCHEMA_FORUM);
    assert_true(ps_page_schema_kinds(pg) & PS_SCHEMA_QA);
    b = ps_page_blocks(pg, &n);
    memset(keep, 1, sizeof keep);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[find(b, n, "html/body/div[2]")], 0);
    ps_page_free(pg);

    /* no JSON-LD, but the page-type classifier says forum: a thread too;
     * below THREAD_PROB (0.5), or typed an article, the replies go */
    static const char *const labels[2] = {"forum", "article"};
    const struct {
        double forum, article;
        int kept;
    } cases[] = {{0.8, 0.2, 1}, {0.5, 0.5, 1}, {0.4, 0.6, 0}, {0.0, 1.0, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pg = parse_str("<html><head><title>Boiler pressure drops overnight</title></head><body>"
                       "<div class=post><h1>Boiler pressure drops overnight</h1>"
                       "<p>My boiler loses a bar every night.</p></div>"
                       "<div class=forum-post-reply><p>Check the expansion vessel first.</p></div>"
                       "<div class=forum-post-reply><p>Mine was a leaking valve.</p></div></body></html>");
        assert_non_null(pg);
        const double prob[2] = {cases[k].forum, cases[k].article};
        ps_page_set_type_probs(pg, labels, prob, 2);
        b = ps_page_blocks(pg, &n);
        memset(keep, 1, sizeof keep);
        assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
        assert_int_equal(keep[find(b, n, "html/body/div[2]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/div[3]")], cases[k].kept);
        ps_page_free(pg);
    }
}

/* reviews: on a page typed product (p >= 0.5), the blocks in review
 * containers (the block or one of the two blocks above it) become noise and
 * the fill does not take them back; the same markup on a page typed
 * article, or without page types, keeps them (a film review's "review-body"
 * is the article). */
static void test_product_reviews_dropped(void **state)
{
    (void)state;
    static const char *const labels[2] = {"product", "article"};
    const struct {
        double product, article;
        int kept;
    } cases[] = {{0.9, 0.1, 0}, {0.5, 0.5, 0}, {0.3, 0.7, 1}, {-1, -1, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ps_page *pg = parse_str("<html><head><title>Wool Runner</title></head><body>"
                                "<div class=product><h1>Wool Runner</h1><p>Soft merino wool upper.</p></div>"
                                "<div id=reviews><div><p>Comfortable from day one, five stars.</p></div>"
                                "<div class=jdgm-rev__body><p>Runs a half size small.</p></div></div>"
                                "<section class=yotpo-main-widget><p>Great shoe.</p></section>"
                                "</body></html>");
        assert_non_null(pg);
        if (cases[k].product >= 0) {
            const double prob[2] = {cases[k].product, cases[k].article};
            ps_page_set_type_probs(pg, labels, prob, 2);
        }
        size_t n;
        const ps_block *b = ps_page_blocks(pg, &n);
        uint8_t keep[16];
        double score[16];
        assert_true(n <= 16);
        memset(keep, 1, sizeof keep);
        for (size_t i = 0; i < n; i++)
            score[i] = 0.5;
        ps_block_passes p = with("reviews", 1);
        set(&p, "fill", 1.0); /* the fill must not take them back */
        assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
        assert_int_equal(keep[find(b, n, "html/body/div[1]")], 1);
        assert_int_equal(keep[find(b, n, "html/body/div[2]/div[1]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/div[2]/div[2]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/section[1]")], cases[k].kept);
        ps_page_free(pg);
    }
}

/* profiles: on a thread (typed forum, p >= 0.5) or a Q&A page (JSON-LD
 * QAPage), a post's author panel and signature — profile words on the
 * block or one of the two blocks above, whole or across two tokens
 * (XenForo's message-userDetails, Stack Exchange's user-info) — become
 * noise and the fill does not take them back; the posts stay; the same
 * markup on a page typed article keeps them (the comments pass's business
 * there). */
static void test_profiles_dropped(void **state)
{
    (void)state;
    static const char *const labels[2] = {"forum", "article"};
    const struct {
        double forum, article;
        const char *ld;
        int kept;
    } cases[] = {{0.9, 0.1, "", 0},
                 {0.1, 0.9, "<script type=application/ld+json>{\"@type\":\"QAPage\"}</script>", 0},
                 {0.2, 0.8, "", 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char html[2048];
        snprintf(html, sizeof html,
                 "<html><head><title>Boiler pressure drops</title>%s</head><body>"
                 "<div class=message><div class=message-userDetails><p>oldtimer</p><p>Joined: 2009, Posts: 4 211</p></div>"
                 "<div class=message-body><p>My boiler loses a bar every night.</p></div>"
                 "<div class=post-signature><p>Sent from my phone. Boilers since 1987.</p></div></div>"
                 "<div class=message><div class=user-info><p>valveguy</p></div>"
                 "<div class=message-body><p>Check the expansion vessel first.</p></div></div>"
                 "</body></html>",
                 cases[k].ld);
        ps_page *pg = parse_str(html);
        assert_non_null(pg);
        const double prob[2] = {cases[k].forum, cases[k].article};
        ps_page_set_type_probs(pg, labels, prob, 2);
        size_t n;
        const ps_block *b = ps_page_blocks(pg, &n);
        uint8_t keep[16];
        double score[16];
        assert_true(n <= 16);
        memset(keep, 1, sizeof keep);
        for (size_t i = 0; i < n; i++)
            score[i] = 0.5;
        ps_block_passes p = with("profiles", 1);
        set(&p, "fill", 1.0); /* the fill must not take them back */
        assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
        assert_int_equal(keep[find(b, n, "html/body/div[1]/div[2]")], 1); /* the posts */
        assert_int_equal(keep[find(b, n, "html/body/div[2]/div[2]")], 1);
        assert_int_equal(keep[find(b, n, "html/body/div[1]/div[1]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/div[1]/div[3]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/div[2]/div[1]")], cases[k].kept);
        ps_page_free(pg);
    }
}

/* facets: on a page typed listing or collection (p_listing + p_collection
 * >= 0.5), blocks in filter controls (facet / filter / refinement words on
 * the block or one of the two blocks above) become noise and the fill does
 * not take them back; the items stay; the same markup typed article keeps
 * them (an article about coffee filters is not a grid). */
static void test_facets_dropped(void **state)
{
    (void)state;
    static const char *const labels[3] = {"collection", "listing", "article"};
    const struct {
        double collection, listing, article;
        int kept;
    } cases[] = {{0.6, 0.1, 0.3, 0}, {0.3, 0.2, 0.5, 0}, {0.2, 0.2, 0.6, 1}, {-1, -1, -1, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ps_page *pg = parse_str("<html><head><title>Coffee</title></head><body><main>"
                                "<div class=facets-container><div><div class=facets__list>"
                                "Ground (17) Whole Bean (13) Pods (9)</div></div>"
                                "<div id=FilterPrice>$10 - $25 $25 - $50</div></div>"
                                "<div class=grid><div class=card>Dark Roast Coffee $19.99</div>"
                                "<div class=card>Blueberry Coffee $19.99</div></div>"
                                "</main></body></html>");
        assert_non_null(pg);
        if (cases[k].collection >= 0) {
            const double prob[3] = {cases[k].collection, cases[k].listing, cases[k].article};
            ps_page_set_type_probs(pg, labels, prob, 3);
        }
        size_t n;
        const ps_block *b = ps_page_blocks(pg, &n);
        uint8_t keep[32];
        double score[32];
        assert_true(n <= 32);
        memset(keep, 1, sizeof keep);
        for (size_t i = 0; i < n; i++)
            score[i] = 0.5;
        ps_block_passes p = with("facets", 0.5);
        set(&p, "fill", 1.0); /* the fill must not take them back */
        assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
        assert_int_equal(keep[find(b, n, "html/body/main[1]/div[1]/div[1]/div[1]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/main[1]/div[1]/div[2]")], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/main[1]/div[2]/div[1]")], 1);
        assert_int_equal(keep[find(b, n, "html/body/main[1]/div[2]/div[2]")], 1);
        ps_page_free(pg);
    }
}

/* repeats: a content block saying again what a content block before it
 * said, in another context (a quote of the post above, the mobile copy of
 * a desktop block), becomes noise; the same text in the same context (a
 * step repeated in one list), text under the pass's length, and a repeat of
 * a block that is not content stay. */
static void test_repeats_dropped(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body>"
                            "<div class=post><div class=body>The boiler stops after ten minutes, any idea "
                            "why?</div></div>"
                            "<div class=post><blockquote><div class=quote>The boiler stops after ten minutes, "
                            "any idea why?</div></blockquote><div class=body>Check the pressure gauge "
                            "first.</div></div>"
                            "<div class='variant hide-mobile'><div>Free delivery on every order over 50 "
                            "euros.</div></div><div class='variant hide-desktop'><div>Free delivery on every "
                            "order over 50 euros.</div></div>"
                            "<div class=steps><div class=step>Press Enter to close the dialog box.</div>"
                            "<div class=step>Press Enter to close the dialog box.</div></div>"
                            "<div class=a><div>Share this post</div></div><div class=b><div>Share this "
                            "post</div></div>"
                            "</body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_true(n <= 32);
    const size_t post = find(b, n, "html/body/div[1]/div[1]");
    const size_t quote = find(b, n, "html/body/div[2]/blockquote[1]/div[1]");
    const size_t reply = find(b, n, "html/body/div[2]/div[1]");
    const size_t desktop = find(b, n, "html/body/div[3]/div[1]"), mobile = find(b, n, "html/body/div[4]/div[1]");
    const size_t step1 = find(b, n, "html/body/div[5]/div[1]"), step2 = find(b, n, "html/body/div[5]/div[2]");
    const size_t share2 = find(b, n, "html/body/div[7]/div[1]");
    uint8_t keep[32];
    memset(keep, 1, sizeof keep);
    ps_block_passes p = with("repeats", 20);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[post], 1);
    assert_int_equal(keep[quote], 0);
    assert_int_equal(keep[reply], 1);
    assert_int_equal(keep[desktop], 1);
    assert_int_equal(keep[mobile], 0);
    assert_int_equal(keep[step1], 1); /* one list: the same context */
    assert_int_equal(keep[step2], 1);
    assert_int_equal(keep[share2], 1); /* 15 characters: under the length */
    /* the post itself left out: its quote is the first occurrence kept */
    memset(keep, 1, sizeof keep);
    keep[post] = 0;
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[quote], 1);
    /* off */
    memset(keep, 1, sizeof keep);
    set(&p, "repeats", 0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, NULL), 0);
    assert_int_equal(keep[quote] + keep[mobile], 2);
    ps_page_free(pg);
}

/* whole: a result of fewer characters than the pass's value (here a
 * headline) is the classifier missing the page: every block with text
 * becomes content; a result of more stays as it is, and so does the page
 * with the pass off. */
static void test_whole_page_when_nearly_empty(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div class=head>Hardware catalogs</div>"
                            "<div class=list><div>A catalog of screws and bolts, 1903 edition, with plates.</div>"
                            "<div>Price list of the Acme Tool Company, spring 1911, illustrated.</div></div>"
                            "<div class=empty></div></body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_true(n <= 16);
    const size_t head = find(b, n, "html/body/div[1]"), item1 = find(b, n, "html/body/div[2]/div[1]");
    const size_t item2 = find(b, n, "html/body/div[2]/div[2]");
    double score[16];
    for (size_t i = 0; i < n; i++)
        score[i] = b[i].own.text_chars ? -1.0 : NAN;
    score[head] = 1.0;
    uint8_t keep[16] = {0};
    keep[head] = 1; /* 17 characters */
    ps_block_passes p = with("whole", 120);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[head] + keep[item1] + keep[item2], 3);
    for (size_t i = 0; i < n; i++)
        if (!b[i].own.text_chars)
            assert_int_equal(keep[i], 0); /* blocks without text stay out */
    /* more than the value kept: unchanged */
    memset(keep, 0, sizeof keep);
    keep[head] = keep[item1] = 1;
    set(&p, "whole", 40);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[item2], 0);
    /* off */
    memset(keep, 0, sizeof keep);
    keep[head] = 1;
    set(&p, "whole", 0);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[item1] + keep[item2], 0);
    ps_page_free(pg);
}

/* groups: siblings of one shape (digits in their class left out) are
 * decided together by the mean of their scores; a shape with fewer members
 * than the pass's value, and blocks of another shape, are left alone. */
static void test_groups_decided_together(void **state)
{
    (void)state;
    ps_page *pg = parse_str("<html><body><div class=grid>"
                            "<div class='tile t1'>Boots 89</div><div class='tile t2'>Socks 9</div>"
                            "<div class='tile t3'>Laces 3</div><div class='tile t4'>Gaiters 35</div>"
                            "<div class=promo>Sale now on</div></div></body></html>");
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    assert_int_equal(n, 7);
    size_t t1 = find(b, n, "html/body/div[1]/div[1]"), t4 = find(b, n, "html/body/div[1]/div[4]");
    size_t promo = find(b, n, "html/body/div[1]/div[5]");
    double score[8] = {NAN, NAN};
    uint8_t keep[8] = {0};
    for (size_t i = t1; i <= t4; i++)
        score[i] = -0.2;
    score[t1] = 1.5; /* mean (1.5 - 0.6) / 4 > 0 */
    keep[t1] = 1;
    score[promo] = -1;
    ps_block_passes p = ps_block_passes_none();
    set(&p, "groups", 4);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    for (size_t i = t1; i <= t4; i++)
        assert_int_equal(keep[i], 1);
    assert_int_equal(keep[promo], 0);
    /* the mean below zero: none of them */
    score[t1] = 0.5;
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    for (size_t i = t1; i <= t4; i++)
        assert_int_equal(keep[i], 0);
    /* a group smaller than the value: left alone */
    keep[t1] = 1;
    set(&p, "groups", 5);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    assert_int_equal(keep[t1], 1);
    assert_int_equal(keep[t1 + 1], 0);
    ps_page_free(pg);
}

/* The posts pass (share 0.3) over the page @p fmt with @p head in its
 * <head>, every block with text scored -1.2 and none kept before: whether
 * the block at @p path is kept after it. */
static int posts_kept(const char *fmt, const char *head, const char *path)
{
    char html[4096];
    snprintf(html, sizeof html, fmt, head);
    ps_page *pg = parse_str(html);
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    uint8_t keep[16] = {0};
    double score[16];
    assert_true(n <= 16);
    for (size_t i = 0; i < n; i++)
        score[i] = b[i].own.text_chars ? -1.2 : NAN;
    ps_block_passes p = with("posts", 0.3);
    assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
    int kept = keep[find(b, n, path)];
    ps_page_free(pg);
    return kept;
}

/* posts: on a thread, the largest repeated post structure (one shape, the
 * same tags for the element and its two parents, >= 3 blocks, >= `value` of
 * the scored text) is content whole, whatever the classifier said of each post; the same
 * markup typed an article, a structure holding too little of the text, or
 * fewer than 3 posts are left alone. */
static void test_posts_kept_whole(void **state)
{
    (void)state;
    const char *fmt =
        "<html><head><title>Beginner projects</title>%s</head><body>"
        "<div class=nav>Forums New posts Search Log in Register</div>"
        "<div class=thread>"
        "<div class='message m101'><div class=user>oakleaf</div><div class=bbWrapper>"
        "What should a beginner build first? I have a table saw and a few clamps.</div></div>"
        "<div class='message m102'><div class=user>plane</div><div class=bbWrapper>"
        "A cutting board: square cuts, glue-ups and a finish.</div></div>"
        "<div class='message m103'><div class=user>dovetail</div><div class=bbWrapper>"
        "A step stool teaches joinery.</div></div>"
        "%s</div>"
        "<div class=sidebar>%s</div></body></html>";
    const char *ld = "<script type=\"application/ld+json\">{\"@type\": \"DiscussionForumPosting\"}</script>";
    const char *fourth = "<div class='message m104'><div class=user>burl</div><div class=bbWrapper>"
                         "Build a box, then a better box.</div></div>";
    const char *short_side = "Similar threads";
    char long_side[2048] = "";
    for (int i = 0; i < 12; i++)
        strcat(long_side, "Latest: a much longer list of other threads and their titles. ");
    const struct {
        const char *ld, *fourth, *side;
        int kept; /* the posts become content */
    } cases[] = {
        {ld, fourth, short_side, 1}, /* a thread */
        {"", fourth, short_side, 0}, /* typed nothing: not a thread */
        {ld, fourth, long_side, 0},  /* the posts hold < 30 % of the text */
        {ld, "", short_side, 1},     /* three posts */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char html[4096];
        snprintf(html, sizeof html, fmt, cases[k].ld, cases[k].fourth, cases[k].side);
        ps_page *pg = parse_str(html);
        assert_non_null(pg);
        size_t n;
        const ps_block *b = ps_page_blocks(pg, &n);
        uint8_t keep[32] = {0};
        double score[32];
        assert_true(n <= 32);
        for (size_t i = 0; i < n; i++)
            score[i] = b[i].own.text_chars ? -1.2 : NAN;
        const size_t first = find(b, n, "html/body/div[2]/div[1]/div[2]");
        keep[first] = 1; /* the opening post: the classifier's */
        score[first] = 0.8;
        ps_block_passes p = with("posts", 0.3);
        assert_int_equal(ps_block_passes_run(pg, &p, keep, score), 0);
        const char *posts[] = {"html/body/div[2]/div[2]/div[2]", "html/body/div[2]/div[3]/div[2]"};
        for (size_t i = 0; i < 2; i++)
            assert_int_equal(keep[find(b, n, posts[i])], cases[k].kept);
        assert_int_equal(keep[find(b, n, "html/body/div[1]")], 0);        /* the nav */
        assert_int_equal(keep[find(b, n, "html/body/div[2]/div[2]/div[1]")], 0); /* a user name */
        assert_int_equal(keep[find(b, n, "html/body/div[3]")], 0);        /* the sidebar */
        ps_page_free(pg);
    }
    /* replies nested in replies (Slashdot, Reddit-like): one structure at
     * every depth */
    static const char *const nested =
        "<html><head>%s</head><body><div class=thread><div class=c><div class=body>"
        "Should the kernel move to a newer language at all?</div><div class=kids>"
        "<div class=c><div class=body>Only for new drivers.</div><div class=kids>"
        "<div class=c><div class=body>Drivers are most of the code.</div></div>"
        "</div></div></div></div></div></body></html>";
    assert_int_equal(posts_kept(nested, ld, "html/body/div[1]/div[1]/div[1]"), 1);
    assert_int_equal(posts_kept(nested, ld, "html/body/div[1]/div[1]/div[2]/div[1]/div[1]"), 1);
    assert_int_equal(posts_kept(nested, ld, "html/body/div[1]/div[1]/div[2]/div[1]/div[2]/div[1]/div[1]"), 1);
    /* only two posts: not a repeated structure */
    static const char *const two =
        "<html><head>%s</head><body><div class=thread>"
        "<div class=message><div class=bbWrapper>The first post, long enough.</div></div>"
        "<div class=message><div class=bbWrapper>The only reply.</div></div></div></body></html>";
    assert_int_equal(posts_kept(two, ld, "html/body/div[1]/div[2]/div[1]"), 0);
}

static void test_headline_from_given_features(void **state)
{
    (void)state;
    ps_page *pg = parse_str(PAGE);
    assert_non_null(pg);
    size_t n;
    const ps_block *b = ps_page_blocks(pg, &n);
    int ids[3] = {ps_feature_lookup("x_title_words"), ps_feature_lookup("R1"), ps_feature_lookup("x_heading")};
    assert_true(ids[0] >= 0 && ids[2] >= 0);
    double feat[16 * 3];
    assert_true(n <= 16);
    assert_int_equal(ps_page_block_features(pg, ids, 3, feat), 0);
    size_t h = find(b, n, "html/body/div[1]"), a1 = find(b, n, "html/body/div[2]/div[1]");
    ps_block_passes p = with("headline", 1);
    uint8_t keep[16] = {0};
    keep[a1] = 1;
    assert_int_equal(ps_block_passes_run_feat(pg, &p, keep, NULL, feat, 3, ids), 0);
    assert_int_equal(keep[h], 1);
    /* rows that say "no heading" are believed: the block stays noise */
    for (size_t i = 0; i < n; i++)
        feat[3 * i + 2] = 0;
    memset(keep, 0, sizeof keep);
    keep[a1] = 1;
    assert_int_equal(ps_block_passes_run_feat(pg, &p, keep, NULL, feat, 3, ids), 0);
    assert_int_equal(keep[h], 0);
    /* rows without the two features: computed, so kept again */
    assert_int_equal(ps_block_passes_run_feat(pg, &p, keep, NULL, feat, 1, ids + 1), 0);
    assert_int_equal(keep[h], 1);
    ps_page_free(pg);
}

/* The chain's table: every row named and runnable (or a parameter of the
 * nearest pass above it, named after it), names distinct, the
 * defaults the ones template-svm runs (comments, fallback and headline on,
 * fill 1.0, focus off), and a name not in it is not found. */
static void test_table(void **state)
{
    (void)state;
    ps_block_passes d = ps_block_passes_default();
    size_t n = 0;
    for (; ps_block_pass_table[n].key; n++) {
        const ps_block_pass *r = &ps_block_pass_table[n];
        /* a row without a function is a parameter of the nearest pass above
         * it, named after it (fill_chars, fill_lead: fill's) */
        if (!r->run) {
            size_t up = n;
            while (up > 0 && !ps_block_pass_table[up - 1].run)
                up--;
            assert_true(up > 0);
            const char *pass = ps_block_pass_table[up - 1].key;
            assert_int_equal(strncmp(r->key, pass, strlen(pass)), 0);
            assert_int_equal(r->key[strlen(pass)], '_');
        }
        assert_true(r->type == PS_OPT_SWITCH || r->type == PS_OPT_DOUBLE);
        assert_int_equal(ps_block_pass_find(r->key), (int)n);
        assert_true(d.value[n] == r->def);
    }
    assert_true(n >= 5 && n <= PS_BLOCK_PASSES_MAX);
    assert_true(*ps_block_passes_at(&d, "fill") == 1.0);
    assert_true(*ps_block_passes_at(&d, "focus") == 0); /* off since the stacked model */
    assert_true(*ps_block_passes_at(&d, "comments") == 1);
    assert_true(*ps_block_passes_at(&d, "headline") == 1);
    assert_true(*ps_block_passes_at(&d, "fallback") == 1);
    assert_int_equal(ps_block_pass_find("no-such-pass"), -1);
    assert_null(ps_block_passes_at(&d, "no-such-pass"));
    /* comments runs before fill, which must not take comment blocks back */
    assert_true(ps_block_pass_find("comments") < ps_block_pass_find("fill"));
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_focus_drops_outside_content),
        cmocka_unit_test(test_headline_kept),
        cmocka_unit_test(test_fallback_keeps_best_scored),
        cmocka_unit_test(test_fill_joins_near_misses_inside_the_content),
        cmocka_unit_test(test_fill_lead_needs_content_after),
        cmocka_unit_test(test_fill_takes_cards),
        cmocka_unit_test(test_headline_from_given_features),
        cmocka_unit_test(test_comments_dropped),
        cmocka_unit_test(test_thread_replies_kept),
        cmocka_unit_test(test_product_reviews_dropped),
        cmocka_unit_test(test_profiles_dropped),
        cmocka_unit_test(test_facets_dropped),
        cmocka_unit_test(test_repeats_dropped),
        cmocka_unit_test(test_whole_page_when_nearly_empty),
        cmocka_unit_test(test_groups_decided_together),
        cmocka_unit_test(test_posts_kept_whole),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
