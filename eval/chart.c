/* eval/chart.c — an SVG chart of token F1 (4-gram shingles, page-averaged)
 * per run per data set: grouped bars, one group per data set, one colour per
 * method, labelled axes, a legend.  Written by hand: no plotting library. */
#include <stdlib.h>
#include <string.h>

#include "eval/run.h"

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
                                      "#1b9e77", "#d95f02", "#7570b3", "#e7298a"};

static void xml_text(ps_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': ps_buf_printf(b, "&lt;"); break;
        case '>': ps_buf_printf(b, "&gt;"); break;
        case '&': ps_buf_printf(b, "&amp;"); break;
        case '"': ps_buf_printf(b, "&quot;"); break;
        default: ps_buf_putc(b, *s);
        }
    }
}

/* Index of s in v[0..*n), appended when absent. */
static size_t intern(const char **v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i], s) == 0)
            return i;
    v[*n] = s;
    return (*n)++;
}

int ps_eval_chart_svg(const char *path, const ps_eval_run *runs, size_t n, ps_error *err)
{
    ps_eval_point *pts = malloc((n + 1) * sizeof *pts);
    if (!pts)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
    {
        double f1 = runs[i].sum.sh4.f1;
        if (runs[i].snip) { /* a snippet set: its own F1 */
            double p, r;
            ps_snippet_prf(&runs[i].snip_sum, &p, &r, &f1);
        }
        pts[i] = (ps_eval_point){runs[i].ds->name, runs[i].label, f1};
    }
    int rc = ps_eval_chart_svg_points(path, pts, n, err);
    free(pts);
    return rc;
}

int ps_eval_chart_svg_points(const char *path, const ps_eval_point *runs, size_t n, ps_error *err)
{
    const char **sets = malloc((n + 1) * sizeof *sets), **labels = malloc((n + 1) * sizeof *labels);
    if (!sets || !labels) {
        free(sets);
        free(labels);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    size_t ns = 0, nl = 0;
    for (size_t i = 0; i < n; i++) {
        intern(sets, &ns, runs[i].set);
        intern(labels, &nl, runs[i].label);
    }
    const double bar = 14, gap = 26, left = 64, top = 40, plot_h = 300, bottom = 70;
    double group_w = (double)nl * bar + gap;
    double plot_w = (double)ns * group_w + gap;
    double legend_w = 230;
    double width = left + plot_w + legend_w;
    if (width < 560) /* room for the title */
        width = 560;
    double legend_h = 24 + 18 * (double)nl;
    double height = top + (plot_h > legend_h ? plot_h : legend_h) + bottom;
    ps_buf b = {0};
    ps_buf_printf(&b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                  "<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
                  "Token F1 (4-gram shingles, page-averaged) per method and data set</text>\n",
                  width, height, width, height, left);
    /* y axis: grid and ticks every 0.1 */
    for (int t = 0; t <= 10; t++) {
        double y = top + plot_h - plot_h * t / 10.0;
        ps_buf_printf(&b,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
                      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
                      left, y, left + plot_w, y, t ? "#e0e0e0" : "#000", left - 6, y + 4, t / 10.0);
    }
    ps_buf_printf(&b,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n"
                  "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">"
                  "token F1</text>\n",
                  left, top, left, top + plot_h, top + plot_h / 2);
    for (size_t s = 0; s < ns; s++) {
        double gx = left + gap + (double)s * group_w;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(runs[i].set, sets[s]) != 0)
                continue;
            size_t l = intern(labels, &nl, runs[i].label);
            double v = runs[i].f1;
            if (v < 0)
                v = 0;
            if (v > 1)
                v = 1;
            double h = plot_h * v, x = gx + (double)l * bar;
            ps_buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                              "<title>", x, top + plot_h - h, bar - 2, h,
                          palette[l % (sizeof palette / sizeof *palette)]);
            xml_text(&b, sets[s]);
            ps_buf_printf(&b, " / ");
            xml_text(&b, runs[i].label);
            ps_buf_printf(&b, ": %.3f</title></rect>\n", runs[i].f1);
        }
        ps_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                      gx + (double)nl * bar / 2, top + plot_h + 18);
        xml_text(&b, sets[s]);
        ps_buf_printf(&b, "</text>\n");
    }
    ps_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">data set</text>\n",
                  left + plot_w / 2, top + plot_h + 44);
    double lx = left + plot_w + 20;
    ps_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">method</text>\n", lx, top + 10);
    for (size_t l = 0; l < nl; l++) {
        double y = top + 24 + 18 * (double)l;
        ps_buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\">", lx, y - 10,
                      palette[l % (sizeof palette / sizeof *palette)], lx + 18, y);
        xml_text(&b, labels[l]);
        ps_buf_printf(&b, "</text>\n");
    }
    ps_buf_printf(&b, "</svg>\n");
    free(sets);
    free(labels);
    if (!b.data)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = ps_write_file_atomic(path, b.data, b.len, err);
    ps_buf_free(&b);
    return rc;
}
