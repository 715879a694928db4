/* eval/snippets.c — pagesift-eval on a snippet set (eval/snippets.h): the
 * corpus's own rule (features/snippets.c: white space collapsed, substring
 * test), tp/fn/fp/tn summed over the pages, P = tp/(tp+fp), R = tp/(tp+fn),
 * F1 = 2tp/(2tp+fp+fn).  A page without output (the method failed, no file
 * in a --pred folder) counts every with as missing and every without as
 * absent; an empty output does the same and is counted as empty. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "eval/snippets.h"

int ps_eval_snip_init(ps_eval_run *run)
{
    if (!run->ds->snippet_set)
        return 0;
    run->snip = calloc(run->ds->n_pages + 1, sizeof *run->snip);
    return run->snip ? 0 : -1;
}

int ps_eval_snip_page(ps_eval_run *run, size_t i, const char *text, size_t len)
{
    ps_eval_snip *s = &run->snip[i];
    const ps_snippets *sn = run->ds->pages[i].snippets;
    free(s->with_hit);
    free(s->without_hit);
    s->with_hit = calloc(sn->n_with + 1, 1);
    s->without_hit = calloc(sn->n_without + 1, 1);
    s->failed = text == NULL;
    if (!s->with_hit || !s->without_hit)
        return -1;
    return ps_snippet_score(text, len, sn, s->with_hit, s->without_hit, &s->c);
}

void ps_eval_snip_summarise(ps_eval_run *run)
{
    memset(&run->snip_sum, 0, sizeof run->snip_sum);
    if (!run->snip)
        return;
    for (size_t i = 0; i < run->ds->n_pages; i++) {
        const ps_snippet_counts *c = &run->snip[i].c;
        run->snip_sum.tp += c->tp;
        run->snip_sum.fn += c->fn;
        run->snip_sum.fp += c->fp;
        run->snip_sum.tn += c->tn;
    }
}

void ps_eval_snip_clear(ps_eval_run *run)
{
    if (!run->snip)
        return;
    for (size_t i = 0; i < run->ds->n_pages; i++) {
        free(run->snip[i].with_hit);
        free(run->snip[i].without_hit);
    }
    free(run->snip);
    run->snip = NULL;
}

void ps_eval_snip_print_row(FILE *f, const ps_eval_run *r)
{
    double p, rc, f1;
    ps_snippet_prf(&r->snip_sum, &p, &rc, &f1);
    char ps[16] = "  -";
    if (r->sum.pages_per_s > 0)
        snprintf(ps, sizeof ps, "%.1f", r->sum.pages_per_s);
    const ps_snippet_counts *c = &r->snip_sum;
    char counts[96];
    snprintf(counts, sizeof counts, "snippets tp %llu fp %llu fn %llu tn %llu",
             (unsigned long long)c->tp, (unsigned long long)c->fp, (unsigned long long)c->fn,
             (unsigned long long)c->tn);
    fprintf(f, "%-16s %-22s %5zu  %.3f %.3f %.3f  %-41s %5zu %4zu %8s\n", r->ds->name, r->label,
            r->sum.pages, f1, p, rc, counts, r->sum.empty_outputs, r->sum.failed, ps);
}

void ps_eval_snip_legend(FILE *f)
{
    fputs("Snippet sets (evaldata.json): F1, P, R by the corpus's rule: white space collapsed,\n"
          "a snippet is present when it is a substring of the output; tp/fn = 'with' present/\n"
          "missing, fp/tn = 'without' present/absent, summed over pages; P = tp/(tp+fp),\n"
          "R = tp/(tp+fn), F1 = 2tp/(2tp+fp+fn) (the token metrics do not apply).\n",
          f);
}

json_t *ps_eval_snip_json(const ps_eval_run *r)
{
    double p, rc, f1;
    ps_snippet_prf(&r->snip_sum, &p, &rc, &f1);
    const ps_snippet_counts *c = &r->snip_sum;
    json_t *o = json_object();
    json_object_set_new(o, "pages", json_integer((json_int_t)r->sum.pages));
    json_object_set_new(o, "failed", json_integer((json_int_t)r->sum.failed));
    json_object_set_new(o, "empty_outputs", json_integer((json_int_t)r->sum.empty_outputs));
    json_object_set_new(o, "snippets",
                        json_pack("{s:f,s:f,s:f,s:I,s:I,s:I,s:I}", "f1", f1, "p", p, "r", rc, "tp",
                                  (json_int_t)c->tp, "fn", (json_int_t)c->fn, "fp",
                                  (json_int_t)c->fp, "tn", (json_int_t)c->tn));
    json_object_set_new(o, "cpu_seconds", json_real(r->sum.seconds));
    json_object_set_new(o, "pages_per_s", json_real(r->sum.pages_per_s));
    return o;
}

/* A snippet in a TSV cell: tabs and line ends as spaces. */
static void put_clean(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void put_list(FILE *f, char **v, size_t n, const uint8_t *hit, int want)
{
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (!!hit[i] != want)
            continue;
        if (!first)
            fputs(" | ", f);
        first = 0;
        put_clean(f, v[i]);
    }
}

int ps_eval_snip_report(const char *path, const ps_eval_run *runs, size_t n, ps_error *err)
{
    char tmp[4096];
    int to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : ps_atomic_open(path, tmp, sizeof tmp, err);
    if (!f)
        return -1;
    fputs("set\tmethod\tid\tsite\toutput\twith\twithout\twith_missing\twithout_present\n", f);
    for (size_t k = 0; k < n; k++) {
        const ps_eval_run *r = &runs[k];
        if (!r->snip)
            continue;
        for (size_t i = 0; i < r->ds->n_pages; i++) {
            const ps_dataset_page *dp = &r->ds->pages[i];
            const ps_eval_snip *s = &r->snip[i];
            const ps_snippets *sn = dp->snippets;
            const char *st = s->failed ? "failed" : r->scores[i].empty_output ? "empty" : "ok";
            fprintf(f, "%s\t%s\t%s\t%s\t%s\t%llu/%zu\t%llu/%zu\t", r->ds->name, r->label, dp->id,
                    dp->site, st, (unsigned long long)s->c.tp, sn->n_with,
                    (unsigned long long)s->c.fp, sn->n_without);
            if (s->with_hit)
                put_list(f, sn->with, sn->n_with, s->with_hit, 0);
            fputc('\t', f);
            if (s->without_hit)
                put_list(f, sn->without, sn->n_without, s->without_hit, 1);
            fputc('\n', f);
        }
    }
    if (to_stdout)
        return fflush(f) == 0 ? 0 : ps_set_error(err, PS_ERR_IO, "write error on standard output");
    return ps_atomic_commit(f, tmp, path, err);
}
