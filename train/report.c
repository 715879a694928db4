/* train/report.c — the grid search as a CSV table and as an SVG heat map
 * (CV F1 of the content class over log2 C x log2 gamma; best point marked),
 * both written atomically. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "train/train_internal.h"

int ps_train_write_grid_csv(const ps_train_grid *g, const char *path, ps_error *err)
{
    ps_buf b = {0};
    ps_buf_printf(&b, "log2_C,log2_gamma,C,gamma,tp,fp,fn,tn,precision,recall,f1,accuracy,cpu_seconds,best\n");
    for (size_t i = 0; i < g->n_c * g->n_g; i++) {
        const ps_train_point *p = &g->points[i];
        if (!p->done)
            continue;
        ps_buf_printf(&b, "%g,%g,%.10g,%.10g,%zu,%zu,%zu,%zu,%.6f,%.6f,%.6f,%.6f,%.3f,%d\n", p->log2c,
                      p->log2g, exp2(p->log2c), exp2(p->log2g), p->tp, p->fp, p->fn, p->tn,
                      p->precision, p->recall, p->f1, p->accuracy, p->seconds, i == g->best);
    }
    if (!b.data)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = ps_write_file_atomic(path, b.data, b.len, err);
    ps_buf_free(&b);
    return rc;
}

/* A perceptually ordered colour ramp (viridis, 5 stops), t in [0, 1]. */
static void ramp(double t, int *r, int *gr, int *bl)
{
    static const double stops[5][3] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (!(t >= 0))
        t = 0;
    if (t > 1)
        t = 1;
    double x = t * 4;
    int i = (int)x;
    if (i >= 4)
        i = 3;
    double f = x - i;
    *r = (int)lround(stops[i][0] + f * (stops[i + 1][0] - stops[i][0]));
    *gr = (int)lround(stops[i][1] + f * (stops[i + 1][1] - stops[i][1]));
    *bl = (int)lround(stops[i][2] + f * (stops[i + 1][2] - stops[i][2]));
}

static void xml_text(ps_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            ps_buf_printf(b, "&lt;");
        else if (*s == '>')
            ps_buf_printf(b, "&gt;");
        else if (*s == '&')
            ps_buf_printf(b, "&amp;");
        else
            ps_buf_putc(b, *s);
    }
}

int ps_train_write_grid_svg(const ps_train_grid *g, const char *title, const char *path,
                            ps_error *err)
{
    const int cell = 46, left = 90, top = 60, legend_w = 110, bottom = 70;
    int w = left + (int)g->n_c * cell + legend_w + 20, h = top + (int)g->n_g * cell + bottom;
    if (w < 780) /* the title and the caption line fit */
        w = 780;
    /* colour scale: the F1 range of the evaluated points */
    double lo = 1, hi = 0;
    for (size_t i = 0; i < g->n_c * g->n_g; i++)
        if (g->points[i].done) {
            if (g->points[i].f1 < lo)
                lo = g->points[i].f1;
            if (g->points[i].f1 > hi)
                hi = g->points[i].f1;
        }
    if (hi < lo)
        lo = 0, hi = 1;
    double min_f1 = lo, max_f1 = hi; /* what the labels say */
    if (hi - lo < 1e-6) /* every point alike: one colour, the scale still drawn */
        lo = hi - 0.01;
    ps_buf b = {0};
    ps_buf_printf(&b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                  w, h);
    ps_buf_printf(&b, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", left);
    xml_text(&b, title && *title ? title : "Cross-validated F1 of the content class");
    ps_buf_printf(&b, "</text>\n<text x=\"%d\" y=\"40\" fill=\"#444\">%d-fold CV on %zu rows (%zu groups); "
                      "cell = F1 x 100; grey = not evaluated; black box = chosen</text>\n",
                  left, g->folds, g->cv_rows, g->cv_groups);
    /* cells: x = log2 C, y = log2 gamma (largest at the top) */
    for (size_t i = 0; i < g->n_c; i++)
        for (size_t j = 0; j < g->n_g; j++) {
            const ps_train_point *p = &g->points[i * g->n_g + j];
            int x = left + (int)i * cell, y = top + (int)(g->n_g - 1 - j) * cell;
            if (!p->done) {
                ps_buf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#ddd\"/>\n", x,
                              y, cell, cell);
                continue;
            }
            int r, gr, bl;
            double t = (p->f1 - lo) / (hi - lo);
            ramp(t, &r, &gr, &bl);
            ps_buf_printf(&b,
                          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\">"
                          "<title>log2 C=%g, log2 gamma=%g: P=%.4f R=%.4f F1=%.4f acc=%.4f</title></rect>\n",
                          x, y, cell, cell, r, gr, bl, p->log2c, p->log2g, p->precision, p->recall, p->f1,
                          p->accuracy);
            ps_buf_printf(&b,
                          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"%s\">%.1f</text>\n",
                          x + cell / 2, y + cell / 2 + 4, t > 0.6 ? "black" : "white", p->f1 * 100);
        }
    if (g->best < g->n_c * g->n_g) {
        size_t i = g->best / g->n_g, j = g->best % g->n_g;
        ps_buf_printf(&b,
                      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\" "
                      "stroke-width=\"3\"/>\n",
                      left + (int)i * cell + 1, top + (int)(g->n_g - 1 - j) * cell + 1, cell - 2, cell - 2);
    }
    /* axes */
    for (size_t i = 0; i < g->n_c; i++)
        ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
                      left + (int)i * cell + cell / 2, top + (int)g->n_g * cell + 16,
                      g->points[i * g->n_g].log2c);
    for (size_t j = 0; j < g->n_g; j++)
        ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text>\n", left - 6,
                      top + (int)(g->n_g - 1 - j) * cell + cell / 2 + 4, g->points[j].log2g);
    ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">log2 C</text>\n",
                  left + (int)g->n_c * cell / 2, top + (int)g->n_g * cell + 40);
    ps_buf_printf(&b,
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">log2 gamma</text>\n",
                  30, top + (int)g->n_g * cell / 2, 30, top + (int)g->n_g * cell / 2);
    /* colour scale */
    int lx = left + (int)g->n_c * cell + 30, lh = (int)g->n_g * cell;
    for (int k = 0; k < 50; k++) {
        int r, gr, bl;
        ramp(1.0 - k / 49.0, &r, &gr, &bl);
        ps_buf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"18\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"/>\n", lx,
                      top + k * lh / 50, lh / 50 + 1, r, gr, bl);
    }
    /* the scale's range: its ends and middle, with the meaning of the ends */
    ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" data-scale=\"max\">%.3f max</text>\n", lx + 22, top + 10,
                  max_f1);
    if (max_f1 > min_f1)
        ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" data-scale=\"mid\">%.3f</text>\n", lx + 22,
                      top + lh / 2 + 4, (min_f1 + max_f1) / 2);
    ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" data-scale=\"min\">%.3f min</text>\n", lx + 22, top + lh,
                  min_f1);
    ps_buf_printf(&b, "<text x=\"%d\" y=\"%d\" data-scale=\"range\">colour: F1 from %.3f to %.3f</text>\n",
                  lx, top - 6, min_f1, max_f1);
    ps_buf_printf(&b, "</svg>\n");
    if (!b.data)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = ps_write_file_atomic(path, b.data, b.len, err);
    ps_buf_free(&b);
    return rc;
}
