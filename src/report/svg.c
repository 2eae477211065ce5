/*
 * svg.c - standalone SVG plots (svg.h). Layout: a 760x420 canvas, the plot area inside margins,
 * 5 y ticks from 0 to the largest value, a legend under the title.
 */
#include "report/svg.h"
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const palette[] = {"#2f6fdf", "#e67e22", "#27ae60", "#8e44ad", "#c0392b",
                                      "#16a085", "#7f8c8d", "#d4ac0d", "#34495e", "#e84393"};
#define NPAL (sizeof(palette) / sizeof(palette[0]))

enum { W = 760, H = 420, ML = 80, MR = 20, MT = 56, MB = 50 };

static int text(struct lat_buf *b, const char *s)
{
    return rep_html_text(b, s ? s : "", s ? strlen(s) : 0);
}

static int head(struct lat_buf *b, const char *title, int h)
{
    int rc = buf_printf(b,
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                        "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                        "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
                        W, h, W, h, ML);
    if (!rc) rc = text(b, title);
    if (!rc) rc = buf_puts(b, "</text>\n");
    return rc;
}

static double pct_x(double p, double last)
{
    if (p >= 100) return last + 0.5;
    return log10(100.0 / (100.0 - p));
}

int rep_svg_lines(struct lat_buf *b, const struct rep_svg_chart *c, const struct rep_svg_series *s,
                  size_t ns)
{
    double x0 = INFINITY, x1 = -INFINITY, y1 = 0, lastp = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            if (!isfinite(s[i].y[k]) || !isfinite(s[i].x[k])) continue;
            if (c->xpct && s[i].x[k] < 100 && pct_x(s[i].x[k], 0) > lastp)
                lastp = pct_x(s[i].x[k], 0);
            if (s[i].y[k] > y1) y1 = s[i].y[k];
        }
    if (isfinite(c->hline) && c->hline > y1) y1 = c->hline;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            if (!isfinite(s[i].y[k]) || !isfinite(s[i].x[k])) continue;
            double x = c->xpct ? pct_x(s[i].x[k], lastp) : s[i].x[k];
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
        }
    if (c->xpct) x0 = 0;
    if (!isfinite(x0)) x0 = 0, x1 = 1;
    if (!c->xpct && x0 > 0) x0 = 0;
    if (x1 <= x0) x1 = x0 + 1;
    y1 = y1 > 0 ? y1 * 1.08 : 1;
    double pw = W - ML - MR, ph = H - MT - MB;
#define PX(x) (ML + pw * ((x)-x0) / (x1 - x0))
#define PY(y) (MT + ph * (1 - (y) / y1))
    int rc = head(b, c->title, H);
    if (!rc)
        rc = buf_printf(b,
                        "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"#fbfcfd\" "
                        "stroke=\"#d0d4da\"/>\n",
                        ML, MT, pw, ph);
    char lab[64];
    for (int i = 0; i <= 4 && !rc; i++) {
        double yv = y1 * i / 4;
        snprintf(lab, sizeof(lab), "%.4g%s%s", yv, c->yunit ? " " : "", c->yunit ? c->yunit : "");
        rc = buf_printf(b,
                        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eceef1\"/>"
                        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
                        ML, W - MR, PY(yv), PY(yv), ML - 6, PY(yv) + 4);
        if (!rc) rc = text(b, lab);
        if (!rc) rc = buf_puts(b, "</text>\n");
    }
    /* x ticks */
    if (c->xpct) {
        static const char *const pl[] = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        for (int i = 0; i < 6 && !rc && i <= lastp + 1e-9; i++)
            rc = buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                            PX((double)i), H - MB + 16, pl[i]);
        if (!rc && lastp > 0)
            rc = buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">max</text>\n",
                            PX(lastp + 0.5), H - MB + 16);
    } else {
        for (int i = 0; i <= 5 && !rc; i++) {
            double xv = x0 + (x1 - x0) * i / 5;
            snprintf(lab, sizeof(lab), "%.4g%s%s", xv, c->xunit ? " " : "",
                     c->xunit ? c->xunit : "");
            rc = buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", PX(xv),
                            H - MB + 16);
            if (!rc) rc = text(b, lab);
            if (!rc) rc = buf_puts(b, "</text>\n");
        }
    }
    if (!rc) {
        rc =
            buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", ML + pw / 2, H - 10);
        if (!rc) rc = text(b, c->xlabel);
        if (!rc)
            rc = buf_printf(b,
                            "</text>\n<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
                            "transform=\"rotate(-90 16 %.1f)\">",
                            MT + ph / 2, MT + ph / 2);
        if (!rc) rc = text(b, c->ylabel);
        if (!rc) rc = buf_puts(b, "</text>\n");
    }
    if (!rc && isfinite(c->hline)) {
        rc = buf_printf(b,
                        "<line class=\"slo\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#c0392b\" stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%.1f\" "
                        "text-anchor=\"end\" fill=\"#c0392b\">",
                        ML, W - MR, PY(c->hline), PY(c->hline), W - MR - 4, PY(c->hline) - 4);
        if (!rc) rc = text(b, c->hlabel);
        if (!rc) rc = buf_puts(b, "</text>\n");
    }
    /* legend, then the series */
    double lx = ML;
    for (size_t i = 0; i < ns && !rc; i++) {
        const char *col = palette[i % NPAL];
        rc = buf_printf(b,
                        "<rect x=\"%.0f\" y=\"32\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                        "<text x=\"%.0f\" y=\"41\">",
                        lx, col, lx + 14);
        if (!rc) rc = text(b, s[i].name);
        if (!rc) rc = buf_puts(b, "</text>\n");
        lx += 22 + 6.2 * (double)strlen(s[i].name ? s[i].name : "");
    }
    for (size_t i = 0; i < ns && !rc; i++) {
        const char *col = palette[i % NPAL];
        rc = buf_printf(b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"", col,
                        s[i].dashed ? " stroke-dasharray=\"6 3\"" : "");
        bool first = true;
        for (size_t k = 0; k < s[i].n && !rc; k++) {
            if (!isfinite(s[i].y[k]) || !isfinite(s[i].x[k])) continue;
            double x = c->xpct ? pct_x(s[i].x[k], lastp) : s[i].x[k];
            rc = buf_printf(b, "%s%.1f %.1f", first ? "M" : " L", PX(x), PY(s[i].y[k]));
            first = false;
        }
        if (!rc) rc = buf_puts(b, "\"/>\n");
        for (size_t k = 0; k < s[i].n && !rc; k++) {
            if (!isfinite(s[i].y[k]) || !isfinite(s[i].x[k])) continue;
            double x = c->xpct ? pct_x(s[i].x[k], lastp) : s[i].x[k];
            rc = buf_printf(b,
                            "<circle class=\"pt\" data-series=\"%zu\" data-x=\"%.9g\" "
                            "data-y=\"%.9g\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                            i, s[i].x[k], s[i].y[k], PX(x), PY(s[i].y[k]), col);
        }
    }
#undef PX
#undef PY
    if (!rc) rc = buf_puts(b, "</svg>\n");
    return rc ? -ENOMEM : 0;
}

int rep_svg_stacked(struct lat_buf *b, const char *title, const char *unit,
                    const char *const *parts, size_t nparts, const char *const *labels,
                    const double *v, size_t nbars)
{
    const double rh = 16, gap = 4, lw = 110;
    int h = (int)(MT + (double)nbars * (rh + gap) + 40);
    double max = 0;
    for (size_t i = 0; i < nbars; i++) {
        double t = 0;
        for (size_t k = 0; k < nparts; k++)
            t += v[i * nparts + k] > 0 ? v[i * nparts + k] : 0;
        if (t > max) max = t;
    }
    if (!(max > 0)) max = 1;
    double pw = W - lw - MR;
    int rc = head(b, title, h);
    double lx = lw;
    for (size_t k = 0; k < nparts && !rc; k++) {
        rc = buf_printf(b,
                        "<rect x=\"%.0f\" y=\"32\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                        "<text x=\"%.0f\" y=\"41\">",
                        lx, palette[k % NPAL], lx + 14);
        if (!rc) rc = text(b, parts[k]);
        if (!rc) rc = buf_puts(b, "</text>\n");
        lx += 22 + 6.2 * (double)strlen(parts[k]);
    }
    for (size_t i = 0; i < nbars && !rc; i++) {
        double y = MT + (double)i * (rh + gap), x = lw;
        rc = buf_printf(b, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", lw - 6, y + rh - 4);
        if (!rc) rc = text(b, labels[i]);
        if (!rc) rc = buf_puts(b, "</text>\n");
        for (size_t k = 0; k < nparts && !rc; k++) {
            double val = v[i * nparts + k];
            if (!(val > 0)) continue;
            double bw = pw * val / max;
            rc = buf_printf(b,
                            "<rect class=\"bar\" data-bar=\"%zu\" data-part=\"%zu\" "
                            "data-v=\"%.9g\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" "
                            "fill=\"%s\"><title>",
                            i, k, val, x, y, bw, rh, palette[k % NPAL]);
            if (!rc) rc = text(b, labels[i]);
            if (!rc) rc = buf_puts(b, " · ");
            if (!rc) rc = text(b, parts[k]);
            if (!rc) rc = buf_printf(b, ": %.6g ", val);
            if (!rc) rc = text(b, unit);
            if (!rc) rc = buf_puts(b, "</title></rect>\n");
            x += bw;
        }
    }
    double ty = MT + (double)nbars * (rh + gap) + 14;
    if (!rc)
        rc = buf_printf(b,
                        "<text x=\"%.0f\" y=\"%.1f\">0</text><text x=\"%d\" y=\"%.1f\" "
                        "text-anchor=\"end\">%.6g ",
                        lw, ty, W - MR, ty, max);
    if (!rc) rc = text(b, unit);
    if (!rc) rc = buf_puts(b, "</text>\n</svg>\n");
    return rc ? -ENOMEM : 0;
}
