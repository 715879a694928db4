/* pagesift-dump — print a page's block tree with counts and text previews. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pagesift/page.h"
#include "pagesift/util.h"
#include "pagesift.h"
#include "cli.h"

static void usage(FILE *f)
{
    fputs("Usage: pagesift-dump [OPTION]... PAGE\n"
          "Print the block tree of a web page: for every block its tag, DOM path, own\n"
          "counts (text characters, link characters, links, images) and a text\n"
          "preview, then the page totals.  PAGE '-' reads standard input.\n"
          "\n"
          "  -j, --json              one JSON object (blocks with their leaves)\n"
          "  -b, --block-tags LIST   block tags, comma-separated (default body,section,div)\n"
          "  -c, --charset NAME      charset from an HTTP header (default: none)\n"
          "  -u, --url URL           the page's URL\n"
          "  -t, --text              print the page text (all leaves) instead\n"
          "  -n, --preview N         characters of text preview (default 60)\n"
          "  -h, --help              this help\n"
          "  -V, --version           version\n"
          "\n"
          "Exit status: 0 ok, 1 the page could not be read or parsed, 2 usage error.\n",
          f);
}

static void preview(const char *s, size_t max_chars, char *out, size_t cap)
{
    size_t n = 0, chars = 0;
    while (s[n] && n + 4 < cap) {
        if (((unsigned char)s[n] & 0xC0) != 0x80) {
            if (chars == max_chars)
                break;
            chars++;
        }
        n++;
    }
    memcpy(out, s, n);
    out[n] = '\0';
    if (s[n] && n + 4 < cap)
        strcat(out, "...");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'},        {"block-tags", required_argument, 0, 'b'},
        {"charset", required_argument, 0, 'c'}, {"url", required_argument, 0, 'u'},
        {"text", no_argument, 0, 't'},        {"preview", required_argument, 0, 'n'},
        {"help", no_argument, 0, 'h'},        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    int json = 0, text = 0, c;
    long pv = 60;
    ps_page_options po = {0};
    const char **tags = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":jb:c:u:tn:hV", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'b': tags = ps_split_list(optarg); po.block_tags = tags; break;
        case 'c': po.charset = optarg; break;
        case 'u': po.url = optarg; break;
        case 't': text = 1; break;
        case 'n': pv = strtol(optarg, NULL, 10); if (pv < 0) pv = 0; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pagesift-dump %s\n", ps_version()); return 0;
        default: return ps_cli_bad_option("pagesift-dump", c, argv);
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    ps_init();
    const char *path = argv[optind];
    ps_error err = {0};
    ps_page *pg;
    if (strcmp(path, "-") == 0) {
        size_t len;
        char *data = ps_read_file("/dev/stdin", PS_DEFAULT_MAX_BYTES, &len, &err);
        pg = data ? ps_page_parse(data, len, &po, &err) : NULL;
        free(data);
        if (!pg && strncmp(err.msg, "/dev/stdin", 10) != 0) {
            char m[sizeof err.msg];
            memcpy(m, err.msg, sizeof m);
            snprintf(err.msg, sizeof err.msg, "standard input: %.400s", m);
        }
    } else {
        pg = ps_page_load_file(path, &po, &err);
    }
    if (!pg) {
        fprintf(stderr, "pagesift-dump: %s\n", err.msg);
        free(tags);
        return 1;
    }
    size_t nb, nl;
    const ps_block *blocks = ps_page_blocks(pg, &nb);
    const ps_leaf *leaves = ps_page_leaves(pg, &nl);
    ps_counts tot = ps_page_totals(pg);
    const ps_decoded *dec = ps_page_decoding(pg);
    if (text) {
        size_t len;
        char *t = ps_page_text(pg, NULL, &len);
        if (t)
            fwrite(t, 1, len, stdout);
        free(t);
    } else if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "url", json_string(ps_page_url(pg)));
        json_object_set_new(o, "title", json_string(ps_page_title(pg)));
        json_object_set_new(o, "charset", json_string(dec->charset));
        json_object_set_new(o, "charset_source", json_string(ps_charset_source_name(dec->source)));
        json_object_set_new(o, "replaced", json_integer((json_int_t)dec->replaced));
        json_t *t = json_pack("{s:i,s:i,s:i,s:i}", "text_chars", (int)tot.text_chars, "link_chars",
                              (int)tot.link_chars, "links", (int)tot.links, "images", (int)tot.images);
        json_object_set_new(o, "totals", t);
        json_t *ba = json_array();
        for (size_t i = 0; i < nb; i++) {
            const ps_block *b = &blocks[i];
            json_t *bo = json_pack("{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i}", "index", (int)i,
                                   "tag", b->tag, "path", b->path, "id", b->id_attr, "class",
                                   b->class_attr, "parent", (int)b->parent, "depth", (int)b->depth,
                                   "text_chars", (int)b->own.text_chars, "link_chars",
                                   (int)b->own.link_chars, "links", (int)b->own.links, "images",
                                   (int)b->own.images);
            json_t *la = json_array();
            for (size_t k = 0; k < nl; k++)
                if (leaves[k].block == (int32_t)i)
                    json_array_append_new(la, json_pack("{s:s,s:s,s:b}", "tag", leaves[k].tag, "text",
                                                        leaves[k].text, "in_link", leaves[k].in_link));
            json_object_set_new(bo, "leaves", la);
            json_array_append_new(ba, bo);
        }
        json_object_set_new(o, "blocks", ba);
        json_dumpf(o, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII * 0);
        fputc('\n', stdout);
        json_decref(o);
    } else {
        printf("# %s\n# charset %s (%s), %zu replaced; title: %s\n", path, dec->charset,
               ps_charset_source_name(dec->source), dec->replaced, ps_page_title(pg));
        printf("# %zu blocks, %zu leaves; page totals: text %u, link text %u, links %u, images %u\n",
               nb, nl, tot.text_chars, tot.link_chars, tot.links, tot.images);
        ps_buf own = {0};
        for (size_t i = 0; i < nb; i++) {
            const ps_block *b = &blocks[i];
            own.len = 0;
            if (own.data)
                own.data[0] = '\0';
            for (size_t k = 0; k < nl; k++)
                if (leaves[k].block == (int32_t)i && !leaves[k].removed) {
                    if (own.len)
                        ps_buf_putc(&own, ' ');
                    ps_buf_append(&own, leaves[k].text, leaves[k].bytes);
                }
            char pv_text[1024];
            preview(own.data ? own.data : "", (size_t)pv, pv_text, sizeof pv_text);
            printf("%*s%s  text=%u link=%u a=%u img=%u  %s  \"%s\"\n", (int)b->depth * 2, "", b->tag,
                   b->own.text_chars, b->own.link_chars, b->own.links, b->own.images, b->path, pv_text);
        }
        ps_buf_free(&own);
    }
    ps_page_free(pg);
    free(tags);
    return 0;
}
