/* eval/score.c — all the metrics of one page (ps_score_page) and their
 * averages over pages (ps_eval_acc): page-averaged precision and recall with
 * F1 of the two averages (the benchmark's way), and pooled figures (counts
 * summed over pages first). */
#include <stdlib.h>
#include <string.h>

#include <unicode/ucasemap.h>

#include "pagesift.h"
#include "pagesift/eval.h"

/* @p s lower-cased as Python's str.lower() does (ICU's full case mapping,
 * root locale); NULL when out of memory. */
static char *lower_utf8(const char *s, size_t len, size_t *out_len)
{
    if (len > INT32_MAX / 3)
        return NULL;
    UErrorCode st = U_ZERO_ERROR;
    UCaseMap *cm = ucasemap_open("", 0, &st);
    if (U_FAILURE(st))
        return NULL;
    int32_t cap = (int32_t)len * 3 + 1; /* a code point lower-cases to at most 3 times its bytes */
    char *o = malloc((size_t)cap);
    int32_t n = o ? ucasemap_utf8ToLower(cm, o, cap, s, (int32_t)len, &st) : 0;
    ucasemap_close(cm);
    if (!o || U_FAILURE(st)) {
        free(o);
        return NULL;
    }
    *out_len = (size_t)n;
    return o;
}

/* The WCXB rule's match: single \w+ tokens of both texts lower-cased. */
static int words_match(const char *output, size_t output_len, const char *gold, size_t gold_len,
                       ps_match *m)
{
    size_t ol = 0, gl = 0;
    char *o = lower_utf8(output ? output : "", output ? output_len : 0, &ol);
    char *g = lower_utf8(gold, gold_len, &gl);
    int r = o && g ? ps_shingle_match(o, ol, g, gl, 1, PS_TOKENS_PYTHON, m) : -1;
    free(o);
    free(g);
    return r;
}

int ps_score_page(const char *output, size_t output_len, const char *gold, size_t gold_len,
                  int with_icu, ps_page_score *s)
{
    memset(s, 0, sizeof *s);
    if (ps_shingle_match(output, output_len, gold, gold_len, 4, PS_TOKENS_WORD, &s->sh4) < 0 ||
        ps_shingle_match(output, output_len, gold, gold_len, 1, PS_TOKENS_WORD, &s->tok1) < 0 ||
        words_match(output, output_len, gold, gold_len, &s->words) < 0)
        return -1;
    if (with_icu) {
        if (ps_shingle_match(output, output_len, gold, gold_len, 4, PS_TOKENS_ICU, &s->icu4) < 0)
            return -1;
        s->has_icu = 1;
    }
    if (ps_char_lcs(output, output_len, gold, gold_len, 0, &s->chars) < 0)
        return -1;
    s->grade = ps_page_grade_of(&s->tok1);
    s->empty_output = s->tok1.tp + s->tok1.fp == 0;
    return 0;
}

typedef struct avg {
    double p, r;
    size_t np, nr;
} avg;

/* Page means of P, R and F1 (the WCXB rule averages each over pages). */
typedef struct mean3 {
    double p, r, f1;
    size_t n;
} mean3;

typedef struct pool {
    uint64_t tp, fp, fn;
} pool;

struct ps_eval_acc {
    size_t pages, failed, empty, qualified, excellent, leaf_pages, icu_pages;
    avg sh4, sh4_bench, tok1, icu4, chars, leaves;
    mean3 words;
    pool sh4_pool, tok1_pool, chars_pool, leaves_pool;
    double seconds;
};

ps_eval_acc *ps_eval_acc_new(void)
{
    return calloc(1, sizeof(ps_eval_acc));
}

void ps_eval_acc_free(ps_eval_acc *a)
{
    free(a);
}

static void avg_add(avg *a, const ps_match *m, ps_empty_rule rule)
{
    double p, r;
    int pc, rc;
    ps_match_pr(m, rule, &p, &pc, &r, &rc);
    if (pc) {
        a->p += p;
        a->np++;
    }
    if (rc) {
        a->r += r;
        a->nr++;
    }
}

/* The WCXB rule for one page: empty output scores 0; empty gold scores 1
 * only with empty output. */
static void mean3_add(mean3 *a, const ps_match *m)
{
    uint64_t o = m->tp + m->fp, g = m->tp + m->fn;
    double p = o ? (double)m->tp / (double)o : 0.0, r = g ? (double)m->tp / (double)g : 0.0;
    if (g == 0)
        p = r = o == 0;
    a->p += p;
    a->r += r;
    a->f1 += p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    a->n++;
}

static void pool_add(pool *p, const ps_match *m)
{
    p->tp += m->tp;
    p->fp += m->fp;
    p->fn += m->fn;
}

int ps_eval_acc_add(ps_eval_acc *a, const ps_page_score *s)
{
    a->pages++;
    a->failed += s->failed != 0;
    a->empty += s->empty_output != 0;
    a->qualified += s->grade.qualified != 0;
    a->excellent += s->grade.excellent != 0;
    a->seconds += s->seconds;
    avg_add(&a->sh4, &s->sh4, PS_EMPTY_STRICT);
    avg_add(&a->sh4_bench, &s->sh4, PS_EMPTY_BENCHMARK);
    avg_add(&a->tok1, &s->tok1, PS_EMPTY_STRICT);
    mean3_add(&a->words, &s->words);
    pool_add(&a->sh4_pool, &s->sh4);
    pool_add(&a->tok1_pool, &s->tok1);
    /* characters as a match: tp = common, fp = output - common, fn = gold - common */
    ps_match c = {s->chars.common, s->chars.output_chars - s->chars.common,
                  s->chars.gold_chars - s->chars.common};
    avg_add(&a->chars, &c, PS_EMPTY_STRICT);
    pool_add(&a->chars_pool, &c);
    if (s->has_icu) {
        a->icu_pages++;
        avg_add(&a->icu4, &s->icu4, PS_EMPTY_STRICT);
    }
    if (s->has_leaves) {
        a->leaf_pages++;
        avg_add(&a->leaves, &s->leaves, PS_EMPTY_STRICT);
        pool_add(&a->leaves_pool, &s->leaves);
    }
    return 0;
}

static double f1(double p, double r)
{
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

static ps_prf prf_avg(const avg *a)
{
    ps_prf x;
    x.p = a->np ? a->p / (double)a->np : 0.0;
    x.r = a->nr ? a->r / (double)a->nr : 0.0;
    x.f1 = f1(x.p, x.r);
    return x;
}

static ps_prf prf_pool(const pool *p)
{
    ps_prf x;
    uint64_t o = p->tp + p->fp, g = p->tp + p->fn;
    if (o == 0 && g == 0) {
        x.p = x.r = x.f1 = 1.0;
        return x;
    }
    x.p = o ? (double)p->tp / (double)o : 0.0;
    x.r = g ? (double)p->tp / (double)g : 0.0;
    x.f1 = f1(x.p, x.r);
    return x;
}

void ps_eval_acc_summary(const ps_eval_acc *a, ps_eval_summary *o)
{
    memset(o, 0, sizeof *o);
    o->pages = a->pages;
    o->failed = a->failed;
    o->empty_outputs = a->empty;
    o->qualified = a->qualified;
    o->excellent = a->excellent;
    o->leaf_pages = a->leaf_pages;
    o->icu_pages = a->icu_pages;
    o->sh4 = prf_avg(&a->sh4);
    o->sh4_bench = prf_avg(&a->sh4_bench);
    o->sh4_pooled = prf_pool(&a->sh4_pool);
    o->tok1 = prf_avg(&a->tok1);
    o->tok1_pooled = prf_pool(&a->tok1_pool);
    double nw = a->words.n ? (double)a->words.n : 1.0;
    o->words = (ps_prf){a->words.p / nw, a->words.r / nw, a->words.f1 / nw};
    o->icu4 = prf_avg(&a->icu4);
    o->chars = prf_avg(&a->chars);
    o->chars_pooled = prf_pool(&a->chars_pool);
    o->leaves = prf_pool(&a->leaves_pool);
    o->leaves_page = prf_avg(&a->leaves);
    o->seconds = a->seconds;
    o->pages_per_s = a->seconds > 0 ? (double)a->pages / a->seconds : 0.0;
}
