/* extract/tags.c — what the page model makes of each HTML element name. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"

typedef struct {
    const char *name;
    unsigned kind;
} tag_entry;

/* Sorted by name for bsearch. */
static const tag_entry TAGS[] = {
    {"a", PS_TAG_ANCHOR},
    {"abbr", PS_TAG_TRANSPARENT},
    {"acronym", PS_TAG_TRANSPARENT},
    {"address", PS_TAG_BREAK},
    {"applet", 0}, /* may hold fallback text */
    {"area", PS_TAG_VOID},
    {"article", PS_TAG_BREAK | PS_TAG_SEC_MAIN},
    {"aside", PS_TAG_BREAK | PS_TAG_SEC_ASIDE},
    {"audio", PS_TAG_REMOVE},
    {"b", PS_TAG_TRANSPARENT},
    {"base", PS_TAG_VOID},
    {"basefont", PS_TAG_VOID},
    {"bgsound", PS_TAG_VOID},
    {"big", PS_TAG_TRANSPARENT},
    {"blockquote", PS_TAG_BREAK},
    {"body", PS_TAG_BREAK},
    {"br", PS_TAG_BREAK | PS_TAG_VOID},
    {"canvas", PS_TAG_REMOVE},
    {"caption", PS_TAG_BREAK},
    {"center", PS_TAG_BREAK},
    {"cite", PS_TAG_TRANSPARENT},
    {"code", PS_TAG_TRANSPARENT},
    {"col", PS_TAG_VOID},
    {"dd", PS_TAG_BREAK},
    {"details", PS_TAG_BREAK},
    {"dfn", PS_TAG_TRANSPARENT},
    {"dialog", PS_TAG_BREAK},
    {"dir", PS_TAG_BREAK},
    {"div", PS_TAG_BREAK},
    {"dl", PS_TAG_BREAK},
    {"dt", PS_TAG_BREAK},
    {"em", PS_TAG_TRANSPARENT},
    {"embed", PS_TAG_REMOVE | PS_TAG_VOID},
    {"fieldset", PS_TAG_BREAK},
    {"figcaption", PS_TAG_BREAK | PS_TAG_FIGURE},
    {"figure", PS_TAG_BREAK | PS_TAG_FIGURE},
    {"font", PS_TAG_TRANSPARENT},
    {"footer", PS_TAG_BREAK | PS_TAG_SEC_ASIDE},
    {"form", PS_TAG_BREAK},
    {"frame", PS_TAG_BREAK | PS_TAG_VOID},
    {"frameset", PS_TAG_BREAK},
    {"h1", PS_TAG_BREAK | PS_TAG_HEADING},
    {"h2", PS_TAG_BREAK | PS_TAG_HEADING},
    {"h3", PS_TAG_BREAK | PS_TAG_HEADING},
    {"h4", PS_TAG_BREAK | PS_TAG_HEADING},
    {"h5", PS_TAG_BREAK | PS_TAG_HEADING},
    {"h6", PS_TAG_BREAK | PS_TAG_HEADING},
    {"head", PS_TAG_REMOVE},
    {"header", PS_TAG_BREAK | PS_TAG_SEC_ASIDE},
    {"hgroup", PS_TAG_BREAK},
    {"hr", PS_TAG_BREAK | PS_TAG_VOID},
    {"i", PS_TAG_TRANSPARENT},
    {"iframe", PS_TAG_REMOVE},
    {"img", PS_TAG_IMAGE | PS_TAG_VOID},
    {"input", PS_TAG_VOID},
    {"isindex", PS_TAG_VOID},
    {"kbd", PS_TAG_TRANSPARENT},
    {"keygen", PS_TAG_VOID},
    {"legend", PS_TAG_BREAK},
    {"li", PS_TAG_BREAK},
    {"link", PS_TAG_REMOVE | PS_TAG_VOID},
    {"main", PS_TAG_BREAK | PS_TAG_SEC_MAIN},
    {"mark", PS_TAG_TRANSPARENT},
    {"math", PS_TAG_REMOVE},
    {"menu", PS_TAG_BREAK},
    {"meta", PS_TAG_REMOVE | PS_TAG_VOID},
    {"nav", PS_TAG_BREAK | PS_TAG_SEC_ASIDE},
    {"nobr", PS_TAG_TRANSPARENT},
    {"noembed", PS_TAG_REMOVE},
    {"noframes", PS_TAG_BREAK},
    {"noscript", PS_TAG_REMOVE},
    {"object", 0}, /* may hold fallback text; its params are removed */
    {"ol", PS_TAG_BREAK},
    {"option", PS_TAG_BREAK},
    {"p", PS_TAG_BREAK},
    {"param", PS_TAG_REMOVE | PS_TAG_VOID},
    {"pre", PS_TAG_BREAK},
    {"q", PS_TAG_TRANSPARENT},
    {"rp", PS_TAG_REMOVE}, /* ruby fallback parentheses */
    {"rt", PS_TAG_REMOVE}, /* ruby annotation (furigana): a reading above the text, not text */
    {"ruby", PS_TAG_TRANSPARENT},
    {"s", PS_TAG_TRANSPARENT},
    {"samp", PS_TAG_TRANSPARENT},
    {"script", PS_TAG_REMOVE},
    {"section", PS_TAG_BREAK},
    {"select", PS_TAG_REMOVE},
    {"small", PS_TAG_TRANSPARENT},
    {"source", PS_TAG_REMOVE | PS_TAG_VOID},
    {"strike", PS_TAG_TRANSPARENT},
    {"strong", PS_TAG_TRANSPARENT},
    {"style", PS_TAG_REMOVE},
    {"sub", PS_TAG_TRANSPARENT},
    {"summary", PS_TAG_BREAK},
    {"sup", PS_TAG_TRANSPARENT},
    {"svg", PS_TAG_REMOVE},
    {"table", PS_TAG_BREAK},
    {"tbody", PS_TAG_BREAK},
    {"td", PS_TAG_BREAK},
    {"template", PS_TAG_REMOVE},
    {"textarea", PS_TAG_REMOVE},
    {"tfoot", PS_TAG_BREAK},
    {"th", PS_TAG_BREAK},
    {"thead", PS_TAG_BREAK},
    {"time", PS_TAG_TRANSPARENT},
    {"title", PS_TAG_BREAK},
    {"tr", PS_TAG_BREAK},
    {"track", PS_TAG_REMOVE | PS_TAG_VOID},
    {"tt", PS_TAG_TRANSPARENT},
    {"u", PS_TAG_TRANSPARENT},
    {"ul", PS_TAG_BREAK},
    {"var", PS_TAG_TRANSPARENT},
    {"video", PS_TAG_REMOVE},
    {"wbr", PS_TAG_VOID},
};

#define N_TAGS (sizeof TAGS / sizeof TAGS[0])

/* TAGS is sorted, so the names that start with one letter are a run of it:
 * first[c] .. first[c + 1] (built once, thread-safely, on first use). */
static unsigned char first[27];
static pthread_once_t first_once = PTHREAD_ONCE_INIT;

static void build_first(void)
{
    ps_first_letter_runs(TAGS, N_TAGS, sizeof *TAGS, first);
}

_Static_assert(N_TAGS <= PS_TAG_TABLE_MAX, "PS_TAG_TABLE_MAX: the tag table grew");

int ps_tag_lookup(const char *name, unsigned *kind)
{
    *kind = 0;
    unsigned c = (unsigned char)name[0] - 'a';
    if (c >= 26)
        return -1;
    pthread_once(&first_once, build_first);
    for (size_t i = first[c]; i < first[c + 1]; i++)
        if (TAGS[i].name[1] == name[1] && (name[1] == '\0' || strcmp(TAGS[i].name + 2, name + 2) == 0)) {
            *kind = TAGS[i].kind;
            return (int)i;
        }
    return -1;
}

unsigned ps_tag_kind(const char *name)
{
    unsigned kind;
    ps_tag_lookup(name, &kind);
    return kind;
}
