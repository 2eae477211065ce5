/*
 * svg.h - single plots as standalone SVG documents for `latscope report --format svg`
 * (docs/latscope-report.md): line charts (percentile distributions on HdrHistogram's log axis,
 * latency vs load) and stacked bars (per-step breakdown). Written by our own code, no library.
 *
 * Every plotted value carries its number, so scripts (and the tests) can read it back: a point is
 * <circle class="pt" data-series="S" data-x="X" data-y="Y"/>, a bar part is
 * <rect class="bar" data-bar="I" data-part="K" data-v="V"/> (one per part greater than 0).
 * Library code: writes into a buffer, never prints.
 */
#ifndef LAT_REPORT_SVG_H
#define LAT_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

struct rep_svg_series {
    const char *name;
    const double *x, *y; /* y NaN: no point */
    size_t n;
    bool dashed;
};

struct rep_svg_chart {
    const char *title, *xlabel, *ylabel;
    bool xpct; /* x are percentiles (0..100]: log axis of 1/(1-q), 100 drawn after the rest */
    const char *yunit; /* after the y tick labels ("ms"), or NULL */
    const char *xunit; /* after the x tick labels when not xpct, or NULL */
    double hline;      /* a dashed horizontal line (an SLO) at this y, NaN for none */
    const char *hlabel;
};

/* 0 or -ENOMEM. */
int rep_svg_lines(struct lat_buf *b, const struct rep_svg_chart *c, const struct rep_svg_series *s,
                  size_t ns);
/* Bars of nbars rows, each nparts values v[i * nparts + k] (negative counts as 0). */
int rep_svg_stacked(struct lat_buf *b, const char *title, const char *unit,
                    const char *const *parts, size_t nparts, const char *const *labels,
                    const double *v, size_t nbars);

#endif
