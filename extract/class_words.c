/* extract/class_words.c — what the words of a class or id attribute say
 * about an element: noise (navigation, sharing, ads, teasers, ...), content
 * (article, post, story, ...), a comment thread, an image caption or credit,
 * customer reviews, a grid's filter controls.
 *
 * The attribute is split into tokens at every character that is not an
 * ASCII letter or digit and before an upper-case letter that follows a
 * lower-case one ("entry-content", "wp_caption", "articleBody" ->
 * entry|content, wp|caption, article|body), lower-cased, and each token is
 * looked up WHOLE in one table: "subscriber" is not "subscribe", "nav" is
 * not found in "canvas", "ad" not in "header".  The table holds the words
 * with their usual plural or verb forms and a few German ones (the largest
 * non-English share of the modern pages pagesift meets); it is the only
 * word list for class/id attributes in pagesift.  extract/page.c reads each
 * element's class and id once, into the blocks' cls scores and their words
 * (ps_block.words), which the x_attr_* features (features/text_stats.c) and
 * the passes (methods/block_passes.c) read. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "extract/class_words.h"

enum { N_ = PS_CW_NOISE, C_ = PS_CW_CONTENT, M_ = PS_CW_COMMENT, P_ = PS_CW_CAPTION, D_ = PS_CW_DIALOG,
       R_ = PS_CW_REVEAL, V_ = PS_CW_REVIEW, F_ = PS_CW_FACET, U_ = PS_CW_PROFILE };

typedef struct {
    const char *w;
    unsigned bits;
} word;

/* Any order: sorted once on first use, and the words of each first letter
 * found through first[] (most tokens are no word: one length compare each). */
static word WORDS[] = {
    {"ad", N_},          {"ads", N_},           {"advert", N_},       {"advertisement", N_},
    {"advertising", N_}, {"adverts", N_},       {"anzeige", N_},      {"anzeigen", N_},
    {"article", C_},     {"articlebody", C_},   {"artikel", C_},      {"banner", N_},
    {"beitrag", C_},     {"bildnachweis", P_},  {"bildunterschrift", P_}, {"body", C_},
    {"breadcrumb", N_},  {"breadcrumbs", N_},   {"byline", N_},       {"caption", P_},
    {"captions", P_},    {"comment", M_ | N_},  {"commentlist", M_ | N_}, {"comments", M_ | N_},
    {"consent", N_},     {"content", C_},       {"cookie", N_},       {"cookies", N_},
    {"copyright", N_ | P_}, {"credit", P_},     {"credits", P_},      {"disclaimer", N_},
    {"discuss", M_},     {"discussion", M_},    {"disqus", M_ | N_},  {"entry", C_},
    {"figcaption", P_},  {"foot", N_},          {"footer", N_},
    {"gdpr", N_},        {"header", N_},        {"kommentar", M_ | N_}, {"kommentare", M_ | N_},
    {"login", N_},       {"main", C_},          {"masthead", N_},     {"menu", N_},
    {"menus", N_},       {"modal", N_ | D_},         {"nav", N_},          {"navbar", N_},
    {"navigation", N_},  {"newsletter", N_},    {"pagination", N_},   {"photo", P_},
    {"popup", N_ | D_},       {"post", C_},          {"promo", N_},        {"promotion", N_},
    {"recommendations", N_}, {"recommended", N_}, {"related", N_},    {"replies", M_},
    {"reply", M_},       {"respond", M_},       {"share", N_},        {"shares", N_},
    {"sharing", N_},     {"sidebar", N_},       {"signup", N_},       {"social", N_},
    {"sponsor", N_},     {"sponsored", N_},     {"story", C_},        {"subscribe", N_},
    {"subscription", N_}, {"teaser", N_},       {"teasers", N_},      {"text", C_},
    {"toolbar", N_},     {"werbung", N_},       {"widget", N_},       {"widgets", N_},
    {"dialog", D_},      {"lightbox", D_},      {"accordion", R_},    {"collapse", R_},
    {"collapsible", R_}, {"faq", R_},           {"faqs", R_},         {"answer", R_},
    {"tab", R_},         {"tabs", R_},          {"tabpanel", R_},     {"expandable", R_},
    {"review", V_},      {"reviews", V_},       {"reviewer", V_},     {"reviewers", V_},
    {"rating", V_},      {"ratings", V_},       {"testimonial", V_},  {"testimonials", V_},
    {"facet", F_},       {"facets", F_},        {"filter", F_},       {"filters", F_},
    {"refine", F_},      {"refinement", F_},    {"refinements", F_},
    {"yotpo", V_},       {"okendo", V_},        {"judgeme", V_},      {"trustpilot", V_},
    {"bazaarvoice", V_},
    /* a forum post's author panel and signature, the names of the common
     * forum programs' (phpBB postprofile, vBulletin userinfo, XenForo
     * message-userDetails / -userExtras, MyBB author_information, IPS
     * cAuthorPane, Stack Exchange user-info / post-signature); two tokens
     * in a row are looked up together for this group only (PROFILE_PAIRS) */
    {"signature", U_},   {"signatures", U_},    {"postprofile", U_},  {"userinfo", U_},
    {"userdetails", U_}, {"userextras", U_},    {"usertitle", U_},    {"userstats", U_},
    {"authorinfo", U_},  {"authorinformation", U_}, {"authorstatistics", U_}, {"authorpane", U_},
    {"posterinfo", U_},  {"memberinfo", U_},
};

/* The groups a word made of two tokens in a row may give ("user-info",
 * "userDetails" -> userinfo, userdetails): the profile words only, so the
 * other groups, which the block features read, see whole tokens as before. */
#define PROFILE_PAIRS PS_CW_PROFILE

#define N_WORDS (sizeof WORDS / sizeof WORDS[0])

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const word *)a)->w, ((const word *)b)->w);
}

static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;
static size_t wlen[N_WORDS];    /* strlen of each word, after sorting */
static unsigned char first[27]; /* words starting with 'a' + c: first[c] .. first[c + 1] */
static unsigned char pair_first[26]; /* 1: a PROFILE_PAIRS word starts with 'a' + c */

static void sort_words(void)
{
    qsort(WORDS, N_WORDS, sizeof *WORDS, entry_cmp);
    ps_first_letter_runs(WORDS, N_WORDS, sizeof *WORDS, first);
    for (size_t i = 0; i < N_WORDS; i++) {
        wlen[i] = strlen(WORDS[i].w);
        if (WORDS[i].bits & PROFILE_PAIRS)
            pair_first[WORDS[i].w[0] - 'a'] = 1;
    }
}

static unsigned lookup(const char *tok, size_t n)
{
    unsigned c = (unsigned char)tok[0] - 'a';
    if (n == 0 || c >= 26)
        return 0;
    for (size_t i = first[c]; i < first[c + 1]; i++)
        if (wlen[i] == n && memcmp(WORDS[i].w, tok, n) == 0)
            return WORDS[i].bits;
    return 0;
}

unsigned ps_class_words(const char *s, size_t n)
{
    pthread_once(&sorted_once, sort_words);
    unsigned bits = 0;
    char tok[24];
    char pair[48]; /* the token before this one, then this one: PROFILE_PAIRS */
    size_t k = 0, len = 0, prev = 0; /* len: the token's real length (may exceed tok); prev: the
                                        length of the whole token before (0: none) */
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : '\0';
        int lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z', digit = c >= '0' && c <= '9';
        int camel = upper && i > 0 && s[i - 1] >= 'a' && s[i - 1] <= 'z';
        if ((!(lower || upper || digit) || camel) && len) {
            if (len == k) {
                bits |= lookup(tok, k);
                /* a pair only after a token some pair word starts like
                 * (most tokens are not: no second look-up) */
                if (prev && pair[0] >= 'a' && pair[0] <= 'z' && pair_first[pair[0] - 'a']) {
                    memcpy(pair + prev, tok, k);
                    bits |= lookup(pair, prev + k) & PROFILE_PAIRS;
                }
                memcpy(pair, tok, k);
                prev = k;
            } else
                prev = 0;
            k = len = 0;
        }
        if (lower || upper || digit) {
            if (k < sizeof tok)
                tok[k++] = (char)(upper ? c + 32 : c);
            len++;
        }
    }
    return bits;
}
