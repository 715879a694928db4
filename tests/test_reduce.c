/* tests/test_reduce.c — reduced-set bundles (train/reduce.c, issue 33): a
 * model trained on a small synthetic set, reduced to half its support
 * vectors, reproduces its decisions on the rows within tolerance (gradient
 * steps on the centres do not make it worse); the
 * reduced bundle is an ordinary one (loads, records what it was reduced
 * from, refuses a changed digit); bad arguments are refused. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "pagesift/labels.h"
#include "tests/test_tmpdir.h"
#include "tests/test_util.h"
#include "train/train_internal.h"

static char tmpdir[256];

/* Two classes in R1..R5 with a curved boundary (an RBF SVM needs many
 * support vectors for it); pages of 12 rows, every 5th row unlabelled. */
static const char *make_csv(const char *name, int pages, uint64_t seed)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("dataset,page_id,url,site,block_id,block_path,tag,inner_len,R1,R2,R3,R4,R5,label\n", f);
    uint64_t s = seed;
    int row = 0;
    for (int p = 0; p < pages; p++)
        for (int b = 0; b < 12; b++, row++) {
            double v[5];
            for (int k = 0; k < 5; k++)
                v[k] = (double)ps_rng_below(&s, 10000) / 10000.0;
            double z = sin(6 * v[0]) + v[1] * v[1] - 0.5 * v[2] + 0.3 * ((double)ps_rng_below(&s, 1000) / 1000.0);
            const char *label = row % 5 == 4 ? "" : z > 0.3 ? "1" : "0";
            fprintf(f, "syn,p%d,,s%d,%d,html/body/div[%d],div,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%s\n", p, p % 7, b,
                    b + 1, 10 + b, v[0], v[1], v[2], v[3], v[4], label);
        }
    fclose(f);
    return path;
}

static ps_model *train(const char *csv, const char *out)
{
    ps_error err = {0};
    const char *paths[] = {csv};
    ps_train_data *d = ps_train_data_load(paths, 1, "paper", PS_GROUP_PAGE, &err);
    if (!d)
        fail_msg("%s", err.msg);
    ps_train_options o;
    ps_train_options_init(&o);
    o.quiet = 1;
    o.threads = 1;
    ps_model *m = ps_train_final(d, &o, 5, 1, NULL, 0, &err);
    if (!m)
        fail_msg("%s", err.msg);
    ps_train_data_free(d);
    assert_int_equal(ps_model_save(m, out, &err), 0);
    return m;
}

/* Every row of @p csv's R1..R5 (rows, n of them). */
static double *read_rows(const char *csv, size_t *n)
{
    ps_error err = {0};
    ps_csv *c = ps_csv_open(csv, &err);
    assert_non_null(c);
    size_t cap = 1024, k = 0;
    double *x = malloc(cap * 5 * sizeof *x);
    int col[5];
    const char *names[] = {"R1", "R2", "R3", "R4", "R5"};
    for (int j = 0; j < 5; j++)
        col[j] = ps_csv_column(c, names[j]);
    while (ps_csv_next(c, &err) == 1) {
        if (k == cap)
            x = realloc(x, (cap *= 2) * 5 * sizeof *x);
        for (int j = 0; j < 5; j++)
            assert_int_equal(ps_csv_number(c, (size_t)col[j], &x[k * 5 + j], &err), 0);
        k++;
    }
    ps_csv_close(c);
    *n = k;
    return x;
}

static void test_reduce_one_stage(void **state)
{
    (void)state;
    char mpath[600], rpath[600];
    const char *csv = make_csv("rows.csv", 300, 7);
    snprintf(mpath, sizeof mpath, "%s/m.model", tmpdir);
    snprintf(rpath, sizeof rpath, "%s/r.model", tmpdir);
    ps_model *m = train(csv, mpath);
    size_t nsv = m->n_sv;
    assert_true(nsv >= 100); /* enough to halve */

    ps_reduce_options o;
    ps_reduce_options_init(&o);
    ps_buf b = {0};
    ps_reduce_report rep;
    ps_error err = {0};
    const char *csvs[] = {csv};
    if (ps_model_reduce(mpath, csvs, 1, &o, &b, &rep, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(rep.n_stages, 1);
    assert_int_equal(rep.rows, 3600);
    assert_int_equal(rep.stage[0].sv_before, nsv);
    assert_int_equal(rep.stage[0].sv_after, (size_t)llround(0.5 * (double)nsv));
    assert_int_equal(ps_write_file_atomic(rpath, b.data, b.len, &err), 0);

    ps_model *r = ps_model_load(rpath, &err);
    if (!r)
        fail_msg("%s", err.msg);
    assert_int_equal(r->n_sv, rep.stage[0].sv_after);
    assert_null(ps_model_next_stage(r, &err));
    /* the keys: what it was reduced from and how close it came */
    char want[64];
    snprintf(want, sizeof want, "%s %zu", ps_model_info(m, "checksum"), nsv);
    assert_string_equal(ps_model_info(r, "reduced_from"), want);
    /* and its file's base name, where site models look for it */
    assert_string_equal(ps_model_info(r, "reduced_from_file"), "m.model");
    assert_non_null(ps_model_info(r, "reduce_rmse"));
    assert_string_equal(ps_model_info(r, "gamma"), ps_model_info(m, "gamma"));
    assert_string_equal(ps_model_info(r, "features"), ps_model_info(m, "features"));

    /* the decisions: within tolerance on every row */
    size_t n;
    double *x = read_rows(csv, &n);
    uint8_t *c1 = malloc(n), *c2 = malloc(n);
    double *s1 = malloc(n * sizeof *s1), *s2 = malloc(n * sizeof *s2);
    ps_model_predict_many(m, x, 5, NULL, n, c1, s1);
    ps_model_predict_many(r, x, 5, NULL, n, c2, s2);
    double se = 0;
    size_t flips = 0;
    for (size_t i = 0; i < n; i++) {
        se += (s1[i] - s2[i]) * (s1[i] - s2[i]);
        flips += c1[i] != c2[i];
    }
    double rmse = sqrt(se / (double)n);
    print_message("reduced %zu -> %zu: RMSE %.4f, %zu of %zu rows changed class\n", nsv, r->n_sv, rmse, flips, n);
    assert_true(rmse < 0.15); /* decision values spread over about [-3, 3] */
    assert_true(flips * 100 <= n); /* at most 1 % */
    assert_true(fabs(rmse - rep.stage[0].rmse) < 1e-9);
    /* the embedded libsvm part is libsvm's own format: libsvm reads it and
     * gives the same decision values (nr_sv counts the centres of each sign
     * group, whose re-fitted coefficients may have either sign) */
    for (size_t i = 0; i < n; i += 37) {
        double dec;
        int ll = ps_model_libsvm_decision(r, x + i * 5, &dec);
        assert_true(ll == 0 || ll == 1);
        double sc = r->content_first ? dec : -dec;
        if (fabs(sc - s2[i]) > 1e-4)
            fail_msg("row %zu: libsvm %.9g, pagesift %.9g", i, sc, s2[i]);
        if (fabs(sc) > 1e-4)
            assert_int_equal(ll, c2[i]);
    }
    assert_int_equal(flips, rep.stage[0].sign_flips);

    /* gradient steps on the centres never leave the fit worse on its rows
     * (a round that does not lower the error is undone) */
    ps_reduce_options ro = o;
    ro.refine_iters = 20;
    ro.fit_rows = 0; /* every row: the fit's rows are the measured ones */
    ps_reduce_report rep0, rep1;
    ps_buf b0 = {0}, b1 = {0};
    o.fit_rows = 0;
    assert_int_equal(ps_model_reduce(mpath, csvs, 1, &o, &b0, &rep0, &err), 0);
    assert_int_equal(ps_model_reduce(mpath, csvs, 1, &ro, &b1, &rep1, &err), 0);
    print_message("refined: RMSE %.4f against %.4f\n", rep1.stage[0].rmse, rep0.stage[0].rmse);
    assert_true(rep1.stage[0].rmse <= rep0.stage[0].rmse * 1.02 + 1e-6);
    ps_buf_free(&b0);
    ps_buf_free(&b1);
    o.fit_rows = 20000;

    /* the same inputs and seed: the same bytes */
    ps_buf b2 = {0};
    assert_int_equal(ps_model_reduce(mpath, csvs, 1, &o, &b2, &rep, &err), 0);
    assert_int_equal(b.len, b2.len);
    assert_memory_equal(b.data, b2.data, b.len);
    ps_buf_free(&b2);

    /* a changed digit inside a centre is refused by the checksum */
    char *sv = strstr(b.data, "\nSV\n");
    assert_non_null(sv);
    char *dig = sv + 4;
    while (*dig < '1' || *dig > '8')
        dig++;
    (*dig)++;
    ps_model *bad = ps_model_parse(b.data, b.len, "damaged", &err);
    assert_null(bad);
    assert_non_null(strstr(err.msg, "checksum mismatch"));

    free(x);
    free(c1);
    free(c2);
    free(s1);
    free(s2);
    ps_buf_free(&b);
    ps_model_free(r);
    ps_model_free(m);
}

static void test_reduce_refuses(void **state)
{
    (void)state;
    char mpath[600];
    const char *csv = make_csv("few.csv", 60, 3);
    snprintf(mpath, sizeof mpath, "%s/few.model", tmpdir);
    ps_model *m = train(csv, mpath);
    const char *csvs[] = {csv};
    ps_reduce_options o;
    ps_buf b = {0};
    ps_reduce_report rep;
    ps_error err = {0};

    ps_reduce_options_init(&o);
    o.share = 1.5; /* not a share */
    assert_int_equal(ps_model_reduce(mpath, csvs, 1, &o, &b, &rep, &err), -1);
    assert_int_equal(err.code, PS_ERR_USAGE);

    ps_reduce_options_init(&o);
    o.n_sv[0] = m->n_sv; /* not fewer */
    memset(&err, 0, sizeof err);
    assert_int_equal(ps_model_reduce(mpath, csvs, 1, &o, &b, &rep, &err), -1);
    assert_non_null(strstr(err.msg, "not fewer"));

    ps_reduce_options_init(&o);
    memset(&err, 0, sizeof err);
    assert_int_equal(ps_model_reduce(mpath, csvs, 0, &o, &b, &rep, &err), -1); /* no rows */
    memset(&err, 0, sizeof err);
    char nopath[600];
    snprintf(nopath, sizeof nopath, "%s/none.model", tmpdir);
    assert_int_equal(ps_model_reduce(nopath, csvs, 1, &o, &b, &rep, &err), -1);
    assert_non_null(strstr(err.msg, "none.model"));
    /* a CSV without the model's features */
    char other[600];
    snprintf(other, sizeof other, "%s/other.csv", tmpdir);
    FILE *f = fopen(other, "w");
    fputs("dataset,page_id,R1,R2\nsyn,p1,0.1,0.2\n", f);
    fclose(f);
    const char *oc[] = {other};
    memset(&err, 0, sizeof err);
    assert_int_equal(ps_model_reduce(mpath, oc, 1, &o, &b, &rep, &err), -1);
    assert_non_null(strstr(err.msg, "R3"));
    assert_null(b.data);
    ps_model_free(m);
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir_make(tmpdir, sizeof tmpdir, "test_reduce");
}

static int teardown(void **state)
{
    (void)state;
    return test_tmpdir_remove(tmpdir);
}

int main(void)
{
    ps_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_one_stage),
        cmocka_unit_test(test_reduce_refuses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
