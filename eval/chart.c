/* eval/chart.c — an SVG chart of token F1 (4-gram shingles, page-averaged)
 * per run per data set: grouped bars, one group per data set, one colour per
 * method (distinct for any number of methods); beside each F1 bar two thin
 * bars, precision and recall, in the method's colour, lighter; the F1 value
 * written above its bar; labelled axes; the legend below the plot, wrapped
 * into rows within the picture's width.  Written by hand: no plotting
 * library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/run.h"

/* Tableau 20's strong colours first, then further hues by the golden
 * angle, so that every method has a colour of its own. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f",
                                      "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                                      "#a6761d", "#17becf", "#bcbd22"};
enum { N_PALETTE = sizeof palette / sizeof *palette };

static void colour_of(size_t l, char out[8])
{
    if (l < N_PALETTE) {
        memcpy(out, palette[l], 8);
        return;
    }
    double h = fmod((double)(l - N_PALETTE) * 137.508 + 15.0, 360.0), sat = 0.55,
           lig = (l / 7) % 2 ? 0.38 : 0.55;
    double c = (1 - fabs(2 * lig - 1)) * sat, x = c * (1 - fabs(fmod(h / 60.0, 2) - 1)),
           m = lig - c / 2, r = 0, g = 0, b = 0;
    if (h < 60) r = c, g = x;
    else if (h < 120) r = x, g = c;
    else if (h < 180) g = c, b = x;
    else if (h < 240) g = x, b = c;
    else if (h < 300) r = x, b = c;
    else r = c, b = x;
    snprintf(out, 8, "#%02x%02x%02x", (int)((r + m) * 255), (int)((g + m) * 255), (int)((b + m) * 255));
}

/* Width in pixels of @p s at 12px sans-serif, estimated (no font metrics in
 * C): 7 px per character, a little less for narrow letters. */
static double text_w(const char *s)
{
    double w = 0;
    for (; *s; s++)
        if ((*s & 0xC0) != 0x80)
            w += strchr("iljtf.,:;|!'() ", *s) ? 4.0 : 7.0;
    return w;
}

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
        double f1 = runs[i].sum.sh4.f1, p = runs[i].sum.sh4.p, r = runs[i].sum.sh4.r;
        if (runs[i].snip) /* a snippet set: its own P, R, F1 */
            ps_snippet_prf(&runs[i].snip_sum, &p, &r, &f1);
        pts[i] = (ps_eval_point){runs[i].ds->name, runs[i].label, f1, p, r};
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
    /* one method: F1 bar, then P and R thin bars */
    const double fbar = 16, pbar = 5, slot = fbar + 2 * pbar + 6, gap = 26, left = 64, top = 84,
                 plot_h = 300, axis_h = 56;
    double group_w = (double)nl * slot + gap;
    double plot_w = (double)ns * group_w + gap;
    double width = left + plot_w + 20;
    if (width < 700) /* room for the title */
        width = 700;
    /* legend rows: items placed left to right, wrapped at the width */
    double *item_x = malloc((nl + 1) * sizeof *item_x);
    int *item_row = malloc((nl + 1) * sizeof *item_row);
    if (!item_x || !item_row) {
        free(item_x);
        free(item_row);
        free(sets);
        free(labels);
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    int rows = 1;
    double x = left;
    for (size_t l = 0; l < nl; l++) {
        double w = 18 + text_w(labels[l]) + 18;
        if (x + w > width - 10 && x > left) {
            rows++;
            x = left;
        }
        if (w > width - 10 - left) /* one label wider than the picture: widen it */
            width = left + w + 10;
        item_x[l] = x;
        item_row[l] = rows - 1;
        x += w;
    }
    double legend_top = top + plot_h + axis_h + 8;
    double height = legend_top + 36 + 18 * (double)rows + 8;
    ps_buf b = {0};
    ps_buf_printf(&b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                  "<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
                  "Token F1 (4-gram shingles, page-averaged) per method and data set</text>\n"
                  "<text x=\"%.0f\" y=\"40\" fill=\"#444\">wide bar: F1 (its value above it); "
                  "the two thin bars to its right: precision, then recall</text>\n",
                  width, height, width, height, left, left);
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
                  "token F1, P, R</text>\n",
                  left, top, left, top + plot_h, top + plot_h / 2);
    for (size_t s = 0; s < ns; s++) {
        double gx = left + gap + (double)s * group_w;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(runs[i].set, sets[s]) != 0)
                continue;
            size_t l = intern(labels, &nl, runs[i].label);
            char col[8];
            colour_of(l, col);
            double vals[3] = {runs[i].f1, runs[i].p, runs[i].r};
            const char *const name[3] = {"F1", "P", "R"};
            double bx = gx + (double)l * slot;
            for (int k = 0; k < 3; k++) {
                double v = vals[k];
                if (k > 0 && v < 0)
                    continue; /* P, R unknown */
                if (!(v >= 0))
                    v = 0;
                if (v > 1)
                    v = 1;
                double h = plot_h * v, w = k ? pbar : fbar;
                double xx = k == 0 ? bx : bx + fbar + 1 + (double)(k - 1) * (pbar + 1);
                ps_buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>"
                                  "<title>", xx, top + plot_h - h, w, h, col,
                              k ? " fill-opacity=\"0.45\"" : "");
                xml_text(&b, sets[s]);
                ps_buf_printf(&b, " / ");
                xml_text(&b, runs[i].label);
                ps_buf_printf(&b, ": %s %.3f</title></rect>\n", name[k], vals[k]);
            }
            /* the F1 value above its bar, upright when it fits, else turned */
            double v = runs[i].f1 >= 0 && runs[i].f1 <= 1 ? runs[i].f1 : runs[i].f1 > 1 ? 1 : 0;
            double ty = top + plot_h - plot_h * v - 4;
            ps_buf_printf(&b,
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"start\" "
                          "transform=\"rotate(-90 %.1f %.1f)\" data-value=\"f1\">%.3f</text>\n",
                          bx + fbar / 2 + 3.5, ty, bx + fbar / 2 + 3.5, ty, runs[i].f1);
        }
        ps_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                      gx + (double)nl * slot / 2, top + plot_h + 18);
        xml_text(&b, sets[s]);
        ps_buf_printf(&b, "</text>\n");
    }
    ps_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">data set</text>\n",
                  left + plot_w / 2, top + plot_h + 40);
    /* legend: below the plot, inside the width */
    ps_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">method</text>\n", left,
                  legend_top + 12);
    for (size_t l = 0; l < nl; l++) {
        double y = legend_top + 32 + 18 * (double)item_row[l];
        char col[8];
        colour_of(l, col);
        ps_buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" data-legend=\"1\">", item_x[l], y - 10, col,
                      item_x[l] + 18, y);
        xml_text(&b, labels[l]);
        ps_buf_printf(&b, "</text>\n");
    }
    free(item_x);
    free(item_row);
    ps_buf_printf(&b, "</svg>\n");
    free(sets);
    free(labels);
    if (!b.data)
        return ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    int rc = ps_write_file_atomic(path, b.data, b.len, err);
    ps_buf_free(&b);
    return rc;
}
