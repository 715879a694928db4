/* tests/fuzz/fuzz_page.c — libFuzzer target: arbitrary bytes as a web page.
 * Decoding, parsing, the block tree, the page text, the block features and
 * every extraction method that needs no template library (svm with the
 * shipped model, all, the baselines) must return a page or a clear error,
 * never crash, leak or read out of bounds.  The batch's way too, for svm:
 * a copy of the bytes taken by the page (ps_page_parse_taking), its tree
 * freed once its type is known (PS_PAGE_NO_TREE) and only the metadata the
 * extraction reads collected (PS_PAGE_NO_METADATA: the JSON-LD, the
 * description), as for text output: the same text as with its tree and
 * metadata, or the fuzzer stops.  Built by scripts/fuzz. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract/page_internal.h"
#include "pagesift.h"
#include "pagesift/page.h"

static ps_extractor *ex[8];
static size_t n_ex;

static void setup(void)
{
    static const char *const methods[] = {"svm", "all", "punct-lines", "correlation", "wiehf",
                                          "blockstat"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        ps_error err = {0};
        ps_extractor *e = ps_extractor_new(methods[i], NULL, &err);
        if (!e)
            abort(); /* the shipped model must load */
        ex[n_ex++] = e;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!n_ex)
        setup();
    for (size_t i = 0; i < n_ex; i++) {
        ps_page_options opt = {.url = "http://fuzz.example/page", .block_tags = ps_extractor_block_tags(ex[i])};
        ps_error err = {0};
        ps_page *page = ps_page_parse(data, size, &opt, &err);
        if (!page)
            continue;
        size_t len;
        free(ps_page_text(page, NULL, &len));
        ps_extraction out;
        int ok = ps_extract(ex[i], page, "fuzz.example", &out, &err) == 0;
        if (ok && i == 0) { /* svm: the batch's parse of a text output */
            void *copy = malloc(size ? size : 1);
            if (!copy)
                abort();
            memcpy(copy, data, size);
            opt.flags = PS_PAGE_NO_TREE | PS_PAGE_NO_METADATA;
            ps_page *taken = ps_page_parse_taking(copy, size, &opt, &err);
            ps_extraction again;
            if (!taken || ps_extract(ex[i], taken, "fuzz.example", &again, &err) != 0)
                abort(); /* the same bytes parsed and extracted once already */
            if (ps_page_dom(taken) || again.len != out.len || memcmp(again.text, out.text, out.len))
                abort();
            ps_extraction_free(&again);
            ps_page_free(taken);
        }
        if (ok)
            ps_extraction_free(&out);
        ps_page_free(page);
    }
    return 0;
}
