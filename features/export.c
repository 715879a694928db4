/* features/export.c — the block CSV: one row per block with its raw counts,
 * R1..R5 (and the x_* features when asked), the label from gold text and a
 * text preview; written with libcsv's csv_fwrite so text fields survive
 * commas, quotes, newlines and any UTF-8.  Column list: pagesift/labels.h,
 * ps_block_csv_new; every row records the block tags its page was cut with
 * (the last column, block_tags: pagesift-train carries it into the bundle);
 * block ids: ps_block_id (extract/block_id.c).  Labels
 * (METHODS.md §1.3, automatic reading): a block is content when the share
 * of its own text aligned with the page's gold (features/gold_align.c) is
 * >= the threshold (0.5).  Pages of a snippet set take their labels from
 * the snippets instead (features/snippets.c). */
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "features/gold_align.h"
#include "features/snippets.h"
#include "pagesift.h"
#include "pagesift/features.h"
#include "pagesift/labels.h"
#include "pagesift/page.h"

struct ps_block_csv {
    FILE *out;
    ps_block_csv_options opt;
    int *ids;
    size_t n_ids;
    int failed;
    /* per-page scratch, kept between pages so a run allocates little */
    double *feat;
    size_t feat_cap;
    ps_buf tmp;
    char *tags;        /* the block_tags value: the tags, comma-joined */
};

static void put_str(ps_block_csv *w, const char *s, size_t n)
{
    if (csv_fwrite(w->out, s, n) != 0)
        w->failed = 1;
}

static void put_sep(ps_block_csv *w, char c)
{
    if (fputc(c, w->out) == EOF)
        w->failed = 1;
}

ps_block_csv *ps_block_csv_new(FILE *out, const ps_block_csv_options *opt, ps_error *err)
{
    ps_block_csv *w = calloc(1, sizeof *w);
    if (!w) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->out = out;
    if (opt)
        w->opt = *opt;
    if (!w->opt.preview_chars)
        w->opt.preview_chars = 200;
    if (w->opt.label_threshold <= 0)
        w->opt.label_threshold = PS_DEFAULT_LABEL_THRESHOLD;
    w->n_ids = w->opt.extended ? ps_feature_count() : 5;
    w->ids = malloc(w->n_ids * sizeof *w->ids);
    if (!w->ids) {
        free(w);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < w->n_ids; k++)
        w->ids[k] = (int)k;
    /* the block tags every row records (a repeated tag once, as the page
     * builder counts it) */
    ps_buf tb = {0};
    const char *const *tags = w->opt.block_tags ? w->opt.block_tags : ps_default_block_tags;
    for (size_t i = 0; tags[i]; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(tags[i], tags[j]) == 0;
        if (!seen)
            ps_buf_printf(&tb, "%s%s", tb.len ? "," : "", tags[i]);
    }
    if (!(w->tags = ps_buf_take(&tb, NULL))) {
        free(w->ids);
        free(w);
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    fputs("dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,"
          "inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num",
          out);
    for (size_t k = 0; k < w->n_ids; k++)
        fprintf(out, ",%s", ps_feature_name((size_t)w->ids[k]));
    fputs(",label,gold_share,text,block_tags\r\n", out);
    if (ferror(out)) {
        ps_set_error(err, PS_ERR_IO, "cannot write the CSV header");
        free(w->tags);
        free(w->ids);
        free(w);
        return NULL;
    }
    return w;
}

/* Labels from snippets (slab[b]) and their figures. */
static int snippet_labels(const ps_page *pg, const ps_snippets *sn, uint8_t *slab, size_t nb,
                          ps_label_stats *st)
{
    ps_snippet_label_info info;
    if (ps_snippet_block_labels(pg, sn, slab, &info) < 0)
        return -1;
    if (!st)
        return 0;
    st->pages_snippets++;
    st->with_snippets += sn->n_with;
    st->without_snippets += sn->n_without;
    st->with_found += info.with_found;
    st->without_found += info.without_found;
    st->conflict_blocks += info.conflicts;
    /* the oracle: the text of the blocks labelled content, scored */
    uint8_t *keep = malloc(nb + 1);
    size_t len;
    char *text = NULL;
    ps_snippet_counts c;
    if (!keep)
        return -1;
    for (size_t b = 0; b < nb; b++)
        keep[b] = slab[b] == 1;
    text = ps_page_text(pg, keep, &len);
    int rc = text ? ps_snippet_score(text, len, sn, NULL, NULL, &c) : -1;
    if (rc == 0) {
        st->oracle_tp += c.tp;
        st->oracle_fp += c.fp;
        st->oracle_fn += c.fn;
        st->oracle_tn += c.tn;
    }
    free(text);
    free(keep);
    return rc;
}

static int write_page(ps_block_csv *w, const char *dataset, const char *page_id, const char *site,
                      const ps_page *pg, const char *gold, size_t gold_len, const ps_snippets *sn,
                      ps_label_stats *st, ps_error *err);

int ps_block_csv_page(ps_block_csv *w, const char *dataset, const char *page_id, const char *site,
                      const ps_page *pg, const char *gold, size_t gold_len, ps_label_stats *st,
                      ps_error *err)
{
    return write_page(w, dataset, page_id, site, pg, gold, gold_len, NULL, st, err);
}

int ps_block_csv_page_snippets(ps_block_csv *w, const char *dataset, const char *page_id,
                               const char *site, const ps_page *pg, const ps_snippets *sn,
                               ps_label_stats *st, ps_error *err)
{
    return write_page(w, dataset, page_id, site, pg, NULL, 0, sn, st, err);
}

static int write_page(ps_block_csv *w, const char *dataset, const char *page_id, const char *site,
                      const ps_page *pg, const char *gold, size_t gold_len, const ps_snippets *sn,
                      ps_label_stats *st, ps_error *err)
{
    size_t nb, nl;
    const ps_block *blocks = ps_page_blocks(pg, &nb);
    const ps_leaf *leaves = ps_page_leaves(pg, &nl);
    ps_counts tot = ps_page_totals(pg);
    if (!ps_page_has_block_tags(pg, w->opt.block_tags))
        return ps_set_error(err, PS_ERR_USAGE,
                            "%s: the page was parsed with other block tags than the CSV's "
                            "block_tags column records (%s)", page_id, w->tags);
    if (nb * w->n_ids > w->feat_cap) {
        double *f = realloc(w->feat, nb * w->n_ids * sizeof *f);
        if (!f)
            return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", page_id);
        w->feat = f;
        w->feat_cap = nb * w->n_ids;
    }
    if (ps_page_block_features(pg, w->ids, w->n_ids, w->feat))
        return ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory computing features", page_id);

    /* leaves grouped by block (counting sort), for previews and shares */
    uint32_t *first = calloc(nb + 1, sizeof *first), *order = malloc((nl + 1) * sizeof *order);
    ps_leaf_align *al = gold ? malloc((nl + 1) * sizeof *al) : NULL;
    double *share = gold ? malloc((nb + 1) * sizeof *share) : NULL;
    uint8_t *slab = sn ? malloc(nb + 1) : NULL; /* labels from snippets */
    int rc = -1;
    if (!first || !order || (gold && (!al || !share)) || (sn && !slab)) {
        ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", page_id);
        goto done;
    }
    for (size_t i = 0; i < nl; i++)
        if (leaves[i].block < 0 || (size_t)leaves[i].block >= nb) {
            ps_set_error(err, PS_ERR_FORMAT, "%s: leaf %zu has no block", page_id, i);
            goto done;
        }
    for (size_t i = 0; i < nl; i++)
        first[leaves[i].block + 1]++;
    for (size_t b = 0; b < nb; b++)
        first[b + 1] += first[b];
    {
        uint32_t *fill = malloc((nb + 1) * sizeof *fill);
        if (!fill) {
            ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory", page_id);
            goto done;
        }
        memcpy(fill, first, (nb + 1) * sizeof *fill);
        for (size_t i = 0; i < nl; i++)
            order[fill[leaves[i].block]++] = (uint32_t)i;
        free(fill);
    }
    uint64_t gtot = 0, gfound = 0;
    if (gold) {
        if (ps_gold_align_leaves(pg, gold, gold_len, al, &gtot, &gfound)) {
            ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory aligning with the gold", page_id);
            goto done;
        }
        for (size_t b = 0; b < nb; b++) {
            uint64_t m = 0, t = 0;
            for (uint32_t k = first[b]; k < first[b + 1]; k++) {
                const ps_leaf_align *a = &al[order[k]];
                if (leaves[order[k]].removed)
                    continue;
                m += a->matched;
                t += a->total;
            }
            share[b] = t ? (double)m / (double)t : -1.0;
            int content = share[b] >= w->opt.label_threshold;
            if (st) {
                for (uint32_t k = first[b]; k < first[b + 1]; k++) {
                    const ps_leaf_align *a = &al[order[k]];
                    int removed = leaves[order[k]].removed;
                    st->gold_chars += a->matched;
                    st->other_chars += a->total - a->matched;
                    if (content && !removed)
                        st->gold_in_content += a->matched;
                    if (!content || removed)
                        st->other_in_noise += a->total - a->matched;
                }
            }
        }
        if (st) {
            st->gold_text_chars += gtot;
            st->gold_text_found += gfound;
            st->pages_gold++;
        }
    }
    if (sn && snippet_labels(pg, sn, slab, nb, st) < 0) {
        ps_set_error(err, PS_ERR_NOMEM, "%s: out of memory labelling from snippets", page_id);
        goto done;
    }
    if (st)
        st->pages++;

    const char *url = ps_page_url(pg);
    char sitebuf[512];
    if (!site || !*site) {
        if (ps_site_key(url, PS_SITE_HOST, sitebuf, sizeof sitebuf) != 0)
            sitebuf[0] = '\0';
        site = sitebuf;
    }
    for (size_t b = 0; b < nb; b++) {
        const ps_block *bl = &blocks[b];
        if (bl->own.text_chars < w->opt.min_text)
            continue;
        /* own text, leaves joined by spaces, cut at preview_chars characters */
        w->tmp.len = 0;
        size_t chars = 0;
        for (uint32_t k = first[b]; k < first[b + 1] && chars < w->opt.preview_chars; k++) {
            const ps_leaf *l = &leaves[order[k]];
            if (l->removed)
                continue;
            if (w->tmp.len) {
                if (chars + 1 >= w->opt.preview_chars)
                    break; /* no room for a word after the space */
                ps_buf_putc(&w->tmp, ' ');
                chars++;
            }
            size_t n = 0;
            for (; n < l->bytes && chars <= w->opt.preview_chars; n++)
                if (((unsigned char)l->text[n] & 0xC0) != 0x80 && ++chars > w->opt.preview_chars)
                    break;
            ps_buf_append(&w->tmp, l->text, n);
        }
        char id[18];
        ps_block_id(page_id, bl->path, id);
        put_str(w, dataset ? dataset : "", dataset ? strlen(dataset) : 0);
        put_sep(w, ',');
        put_str(w, page_id, strlen(page_id));
        put_sep(w, ',');
        put_str(w, url, strlen(url));
        put_sep(w, ',');
        put_str(w, site, strlen(site));
        fprintf(w->out, ",%s,", id);
        put_str(w, bl->path, strlen(bl->path));
        put_sep(w, ',');
        put_str(w, bl->tag, strlen(bl->tag));
        fprintf(w->out, ",%u,%u,%u,%u,%u,%u,%u,%u", bl->own.text_chars, bl->own.link_chars,
                bl->own.links, bl->own.images, tot.text_chars, tot.link_chars, tot.links,
                tot.images);
        for (size_t k = 0; k < w->n_ids; k++)
            fprintf(w->out, ",%.6g", w->feat[b * w->n_ids + k]);
        int lab = 2;
        if (gold && !w->opt.for_annotation && share[b] >= 0)
            lab = share[b] >= w->opt.label_threshold;
        else if (gold && !w->opt.for_annotation)
            lab = 0; /* no word tokens: noise */
        else if (sn && !w->opt.for_annotation)
            lab = slab[b];
        if (lab == 2)
            fputc(',', w->out);
        else
            fprintf(w->out, ",%d", lab);
        if (gold && share[b] >= 0)
            fprintf(w->out, ",%.4f,", share[b]);
        else
            fputs(",,", w->out);
        put_str(w, w->tmp.data ? w->tmp.data : "", w->tmp.len);
        put_sep(w, ',');
        put_str(w, w->tags, strlen(w->tags));
        put_sep(w, '\r');
        put_sep(w, '\n');
        if (st)
            st->blocks[lab]++;
    }
    if (ferror(w->out) || w->failed) {
        ps_set_error(err, PS_ERR_IO, "write error in the CSV output");
        goto done;
    }
    rc = 0;
done:
    free(first);
    free(order);
    free(al);
    free(share);
    free(slab);
    return rc;
}

int ps_block_csv_finish(ps_block_csv *w, ps_error *err)
{
    if (!w)
        return 0;
    int bad = fflush(w->out) != 0 || ferror(w->out) || w->failed;
    free(w->ids);
    free(w->tags);
    free(w->feat);
    ps_buf_free(&w->tmp);
    free(w);
    return bad ? ps_set_error(err, PS_ERR_IO, "write error in the CSV output") : 0;
}
