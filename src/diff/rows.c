/*
 * rows.c - the rows and notes of a diff result: the one place that builds them and gives a row
 * its delta, interval in percent and verdict. Below diff/bench.c and diff/trace.c, which both
 * fill results (t005: no file calls back up into its callers).
 */
#include "core/grow.h"
#include "diff/diff.h"
#include "diff/internal.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int diff_note(struct diff_bench_result *r, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < r->nnotes; i++)
        if (strcmp(r->notes[i], buf) == 0) return 0;
    int rc = LAT_GROW(r->notes, r->notes_cap, r->nnotes, 1, 8);
    if (rc) return rc;
    if (!(r->notes[r->nnotes] = strdup(buf))) return -ENOMEM;
    r->nnotes++;
    return 0;
}

void diff_bench_result_fini(struct diff_bench_result *r)
{
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->rows);
    free(r->findings);
    memset(r, 0, sizeof(*r));
}

struct diff_row *diff_new_row(struct diff_bench_result *r)
{
    if (LAT_GROW(r->rows, r->rows_cap, r->nrows, 1, 16)) return NULL;
    struct diff_row *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof(*row));
    return row;
}

void diff_row_finish(struct diff_row *row, double noise_pct)
{
    row->delta = row->after - row->before;
    row->delta_pct = row->before != 0 ? 100 * row->delta / row->before : NAN;
    if (row->ci.have && !row->ci_pct.have && row->before != 0) {
        row->ci_pct = row->ci;
        row->ci_pct.est = 100 * row->ci.est / row->before;
        row->ci_pct.lo = 100 * row->ci.lo / fabs(row->before);
        row->ci_pct.hi = 100 * row->ci.hi / fabs(row->before);
    }
    if (row->ci.have && row->ci.lo == row->ci.hi && row->ci.lo != 0 && row->res > 0 &&
        fabs(row->ci.est) > row->res && row->before != 0) {
        /* Zero width, but each side's samples sit in one histogram bucket and the two buckets
         * lie further apart than their widths: the difference is d within +- those widths
         * (90 -> 170 ms of a deterministic fixture was "no interval": t613). */
        double d = row->ci.est;
        row->ci.lo = d - row->res;
        row->ci.hi = d + row->res;
        row->ci_pct = (struct dstat_ci){.have = true,
                                        .est = 100 * d / row->before,
                                        .lo = 100 * row->ci.lo / fabs(row->before),
                                        .hi = 100 * row->ci.hi / fabs(row->before)};
    } else if (row->ci.have && row->ci.lo == row->ci.hi && row->ci.lo != 0) {
        /* Zero width away from 0 within the values' resolution (or with none known): neither
         * side varied (every resample the same), so the interval measures nothing and a change
         * is no evidence (issue 31: "max send lag 0.001 -> 0.003 ms +200 % [+200 %, +200 %]
         * REGRESSION"). */
        row->ci = (struct dstat_ci){.why = "no variation in either run: a zero-width interval "
                                           "is no evidence"};
        row->ci_pct = (struct dstat_ci){.why = row->ci.why};
    }
    if (!row->ci.have) {
        row->verdict = DIFF_V_NONE;
        return;
    }
    if (row->ci.lo <= 0 && row->ci.hi >= 0) {
        row->verdict = DIFF_V_SAME;
        return;
    }
    bool up = row->ci.lo > 0;
    if (noise_pct > 0 && row->ci_pct.have &&
        (up ? row->ci_pct.lo <= noise_pct : row->ci_pct.hi >= -noise_pct)) {
        row->verdict = DIFF_V_NOISE;
        return;
    }
    row->verdict = up == row->lower_better ? DIFF_V_REGRESSION : DIFF_V_IMPROVEMENT;
}
