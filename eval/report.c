/* eval/report.c — what pagesift-eval prints: the table of every run, the
 * per-site / per-language breakdowns and the JSON document. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "eval/run.h"
#include "eval/snippets.h"

/* A figure of a model measured on its own training data: the protocol says
 * so (pagesift-eval --train-protocol, eval/train_protocol.c). */
static int training_set_figure(const ps_eval_run *r)
{
    return r->protocol && strstr(r->protocol, "TRAINING-SET figure") != NULL;
}

void ps_eval_print_table(FILE *f, const ps_eval_run *runs, size_t n)
{
    size_t n_snip = 0;
    for (size_t i = 0; i < n; i++)
        n_snip += runs[i].snip != NULL;
    if (n_snip) { /* snippet sets: their own rows (eval/snippets.c) */
        fprintf(f, "%-16s %-22s %5s  %5s %5s %5s  %-41s %5s %4s %8s\n", "set", "method", "pages",
                "F1", "P", "R", "snippet counts", "empty", "fail", "pages/s");
        for (size_t i = 0; i < n; i++)
            if (runs[i].snip)
                ps_eval_snip_print_row(f, &runs[i]);
        ps_eval_snip_legend(f);
        if (n_snip == n)
            return;
        fputc('\n', f);
    }
    fprintf(f, "%-16s %-22s %5s  %5s %5s %5s  %5s %5s %5s %5s  %5s %5s  %5s %5s  %5s %4s %8s\n", "set",
            "method", "pages", "F1", "P", "R", "F1b", "F1t1", "F1w", "F1chr", "qual%", "exc%", "leafP",
            "leafR", "empty", "fail", "pages/s");
    int icu = 0, marked = 0;
    for (size_t i = 0; i < n; i++) {
        icu |= runs[i].sum.icu_pages > 0;
        marked |= training_set_figure(&runs[i]);
    }
    for (size_t i = 0; i < n; i++) {
        const ps_eval_run *r = &runs[i];
        const ps_eval_summary *s = &r->sum;
        if (r->snip)
            continue;
        char lp[8] = "  -", lr[8] = "  -", ps[16] = "  -";
        if (s->leaf_pages) {
            snprintf(lp, sizeof lp, "%.3f", s->leaves.p);
            snprintf(lr, sizeof lr, "%.3f", s->leaves.r);
        }
        if (s->pages_per_s > 0)
            snprintf(ps, sizeof ps, "%.1f", s->pages_per_s);
        double np = s->pages ? (double)s->pages : 1.0;
        char label[64];
        snprintf(label, sizeof label, "%s%s", r->label, training_set_figure(r) ? " *" : "");
        fprintf(f, "%-16s %-22s %5zu  %.3f %.3f %.3f  %.3f %.3f %.3f %.3f  %5.1f %5.1f  %5s %5s  %5zu %4zu %8s\n",
                r->ds->name, label, s->pages, s->sh4.f1, s->sh4.p, s->sh4.r, s->sh4_bench.f1,
                s->tok1.f1, s->words.f1, s->chars.f1, 100.0 * (double)s->qualified / np,
                100.0 * (double)s->excellent / np, lp, lr, s->empty_outputs, s->failed, ps);
        if (icu)
            fprintf(f, "%-16s %-22s %5s  F1 ICU words %.3f (P %.3f, R %.3f)\n", "", "", "", s->icu4.f1,
                    s->icu4.p, s->icu4.r);
    }
    fputs("F1, P, R: 4-gram shingles averaged over pages, F1 of the averages (empty output\n"
          "= P 0, R 0); F1b: the same with the benchmark's rule (pages with empty output left\n"
          "out of P); F1t1: single tokens; F1w: the WCXB rule (lower-cased word bags, P, R\n"
          "and F1 each averaged over pages); F1chr: characters in common (LCS); qual%/exc%:\n"
          "pages qualified / excellent (recall >= 0.98, noise <= 5 % / < 2 %); leafP/R:\n"
          "leaves, content positive; pages/s: per core, CPU time of parse + extract.\n",
          f);
    if (marked)
        fputs("* TRAINING-SET figure: the model was trained on this set (--train-protocol);\n"
              "  held-out figures come from scripts/eval-all --loso.\n",
              f);
}

/* Keys of a breakdown, sorted and unique, and the key index of each page. */
typedef struct keys {
    const char **k;
    size_t n;
    size_t *of_page;
} keys;

/* The breakdown's title word and its column's name. */
static const char *by_title(int by)
{
    return by == PS_BY_SITE ? "site" : by == PS_BY_TYPE ? "page type" : "language";
}

static const char *by_name(int by)
{
    return by == PS_BY_SITE ? "site" : by == PS_BY_TYPE ? "page_type" : "lang";
}

static const char *page_key(const ps_dataset_page *p, int by)
{
    const char *k = by == PS_BY_SITE ? p->site : by == PS_BY_TYPE ? p->page_type : p->lang;
    return k && *k ? k : "(unknown)";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int keys_make(const ps_dataset *ds, int by, keys *K)
{
    size_t n = ds->n_pages;
    K->k = malloc((n + 1) * sizeof *K->k);
    K->of_page = malloc((n + 1) * sizeof *K->of_page);
    K->n = 0;
    if (!K->k || !K->of_page)
        return -1;
    for (size_t i = 0; i < n; i++)
        K->k[i] = page_key(&ds->pages[i], by);
    qsort(K->k, n, sizeof *K->k, cmp_str);
    for (size_t i = 0; i < n; i++)
        if (K->n == 0 || strcmp(K->k[K->n - 1], K->k[i]) != 0)
            K->k[K->n++] = K->k[i];
    for (size_t i = 0; i < n; i++) {
        const char *key = page_key(&ds->pages[i], by);
        const char **hit = bsearch(&key, K->k, K->n, sizeof *K->k, cmp_str);
        K->of_page[i] = (size_t)(hit - K->k);
    }
    return 0;
}

static void keys_free(keys *K)
{
    free(K->k);
    free(K->of_page);
}

/* Summaries per key of one run; NULL when out of memory. */
static ps_eval_summary *by_key(const ps_eval_run *r, const keys *K)
{
    ps_eval_summary *out = calloc(K->n + 1, sizeof *out);
    ps_eval_acc **acc = calloc(K->n + 1, sizeof *acc);
    int ok = out && acc;
    for (size_t k = 0; ok && k < K->n; k++)
        ok = (acc[k] = ps_eval_acc_new()) != NULL;
    for (size_t i = 0; ok && i < r->ds->n_pages; i++)
        if (!r->skipped[i])
            ps_eval_acc_add(acc[K->of_page[i]], &r->scores[i]);
    for (size_t k = 0; ok && k < K->n; k++)
        ps_eval_acc_summary(acc[k], &out[k]);
    for (size_t k = 0; acc && k < K->n; k++)
        ps_eval_acc_free(acc[k]);
    free(acc);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* The breakdown of a snippet run: the counts summed per key. */
static void snip_breakdown(FILE *f, const ps_eval_run *r, const keys *K, int by, json_t *obj)
{
    ps_snippet_counts *c = calloc(K->n + 1, sizeof *c);
    size_t *pages = calloc(K->n + 1, sizeof *pages);
    if (!c || !pages) {
        free(c);
        free(pages);
        return;
    }
    for (size_t i = 0; i < r->ds->n_pages; i++) {
        size_t k = K->of_page[i];
        c[k].tp += r->snip[i].c.tp;
        c[k].fn += r->snip[i].c.fn;
        c[k].fp += r->snip[i].c.fp;
        c[k].tn += r->snip[i].c.tn;
        pages[k]++;
    }
    if (f)
        fprintf(f, "\n%s / %s by %s (snippets)\n%-32s %5s  %5s %5s %5s  %4s %4s %4s %4s\n",
                r->ds->name, r->label, by_title(by), by_name(by), "pages", "F1", "P", "R", "tp", "fp", "fn",
                "tn");
    for (size_t k = 0; k < K->n; k++) {
        double p, rc, f1;
        ps_snippet_prf(&c[k], &p, &rc, &f1);
        if (f)
            fprintf(f, "%-32s %5zu  %.3f %.3f %.3f  %4llu %4llu %4llu %4llu\n", K->k[k], pages[k], f1,
                    p, rc, (unsigned long long)c[k].tp, (unsigned long long)c[k].fp,
                    (unsigned long long)c[k].fn, (unsigned long long)c[k].tn);
        if (obj)
            json_object_set_new(obj, K->k[k],
                                json_pack("{s:I,s:{s:f,s:f,s:f,s:I,s:I,s:I,s:I}}", "pages",
                                          (json_int_t)pages[k], "snippets", "f1", f1, "p", p, "r",
                                          rc, "tp", (json_int_t)c[k].tp, "fn", (json_int_t)c[k].fn,
                                          "fp", (json_int_t)c[k].fp, "tn", (json_int_t)c[k].tn));
    }
    free(c);
    free(pages);
}

void ps_eval_print_breakdown(FILE *f, const ps_eval_run *runs, size_t n, int by)
{
    for (size_t i = 0; i < n; i++) {
        const ps_eval_run *r = &runs[i];
        keys K;
        if (r->snip) {
            if (keys_make(r->ds, by, &K) == 0)
                snip_breakdown(f, r, &K, by, NULL);
            keys_free(&K);
            continue;
        }
        ps_eval_summary *s = NULL;
        if (keys_make(r->ds, by, &K) == 0)
            s = by_key(r, &K);
        if (!s) {
            ps_print("out of memory in the breakdown");
            keys_free(&K);
            return;
        }
        fprintf(f, "\n%s / %s by %s\n%-32s %5s  %5s %5s %5s  %5s %5s %5s  %5s %5s\n", r->ds->name,
                r->label, by_title(by), by_name(by), "pages", "F1", "P", "R", "F1w", "Pw", "Rw", "qual%",
                "empty");
        for (size_t k = 0; k < K.n; k++)
            fprintf(f, "%-32s %5zu  %.3f %.3f %.3f  %.3f %.3f %.3f  %5.1f %5zu\n", K.k[k], s[k].pages,
                    s[k].sh4.f1, s[k].sh4.p, s[k].sh4.r, s[k].words.f1, s[k].words.p, s[k].words.r,
                    100.0 * (double)s[k].qualified / (double)(s[k].pages ? s[k].pages : 1),
                    s[k].empty_outputs);
        fputs("F1w, Pw, Rw: the WCXB rule (lower-cased word bags, each averaged over pages)\n", f);
        free(s);
        keys_free(&K);
    }
}

static const char *by_key_name(int by)
{
    return by == PS_BY_SITE ? "by_site" : by == PS_BY_TYPE ? "by_page_type" : "by_lang";
}

static json_t *prf(const ps_prf *x)
{
    return json_pack("{s:f,s:f,s:f}", "f1", x->f1, "p", x->p, "r", x->r);
}

static json_t *summary_json(const ps_eval_summary *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "pages", json_integer((json_int_t)s->pages));
    json_object_set_new(o, "failed", json_integer((json_int_t)s->failed));
    json_object_set_new(o, "empty_outputs", json_integer((json_int_t)s->empty_outputs));
    json_object_set_new(o, "token", prf(&s->sh4));
    json_object_set_new(o, "token_benchmark_rule", prf(&s->sh4_bench));
    json_object_set_new(o, "token_pooled", prf(&s->sh4_pooled));
    json_object_set_new(o, "token1", prf(&s->tok1));
    json_object_set_new(o, "token1_pooled", prf(&s->tok1_pooled));
    json_object_set_new(o, "words", prf(&s->words));
    if (s->icu_pages)
        json_object_set_new(o, "icu", prf(&s->icu4));
    json_object_set_new(o, "chars", prf(&s->chars));
    json_object_set_new(o, "chars_pooled", prf(&s->chars_pooled));
    if (s->leaf_pages) {
        json_object_set_new(o, "leaves", prf(&s->leaves));
        json_object_set_new(o, "leaves_page_avg", prf(&s->leaves_page));
        json_object_set_new(o, "leaf_pages", json_integer((json_int_t)s->leaf_pages));
    }
    json_object_set_new(o, "qualified", json_integer((json_int_t)s->qualified));
    json_object_set_new(o, "excellent", json_integer((json_int_t)s->excellent));
    json_object_set_new(o, "cpu_seconds", json_real(s->seconds));
    json_object_set_new(o, "pages_per_s", json_real(s->pages_per_s));
    return o;
}

json_t *ps_eval_json(const ps_eval_run *runs, size_t n, int by)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "version", json_string(ps_version()));
    for (size_t i = 0; i < n; i++) {
        const ps_eval_run *r = &runs[i];
        json_t *o = r->snip ? ps_eval_snip_json(r) : summary_json(&r->sum);
        json_object_set_new(o, "set", json_string(r->ds->name));
        json_object_set_new(o, "label", json_string(r->label));
        json_object_set_new(o, "protocol", json_string(r->protocol ? r->protocol : ""));
        json_object_set_new(o, "skipped", json_integer((json_int_t)r->n_skipped));
        json_object_set_new(o, "wall_seconds", json_real(r->wall_seconds));
        if (by != PS_BY_NONE && r->snip) {
            keys K;
            json_t *b = json_object();
            if (keys_make(r->ds, by, &K) == 0)
                snip_breakdown(NULL, r, &K, by, b);
            keys_free(&K);
            json_object_set_new(o, by_key_name(by), b);
        } else if (by != PS_BY_NONE) {
            keys K;
            ps_eval_summary *s = NULL;
            if (keys_make(r->ds, by, &K) == 0 && (s = by_key(r, &K)) != NULL) {
                json_t *b = json_object();
                for (size_t k = 0; k < K.n; k++)
                    json_object_set_new(b, K.k[k], summary_json(&s[k]));
                json_object_set_new(o, by_key_name(by), b);
            }
            free(s);
            keys_free(&K);
        }
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "runs", arr);
    return root;
}
