/*
 * ranks.c - the cross-rank view of a job (docs/latscope-analyze.md "Across ranks"): one row per
 * rank (steps, mean and max step time, exposed communication, idle) and the stragglers, the
 * ranks whose mean step time is an outlier: more than 3 scaled MADs (1.4826 x the median
 * absolute deviation, a robust sigma) and more than 5 % above the median rank's. With fewer than
 * 3 ranks that have steps nobody is called a straggler (no spread to judge against).
 */
#include "analyze/internal.h"
#include "core/pctl.h"
#include "core/sort.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double median(double *x, size_t n)
{
    qsort(x, n, sizeof(*x), lat_cmp_f64);
    return lat_median_f64(x, n);
}

int an_cross_rank(struct lat_analysis *a)
{
    if (a->nranks < 2) return 0;
    a->rank_rows = calloc(a->nranks, sizeof(*a->rank_rows));
    double *m = malloc(a->nranks * sizeof(*m)), *dev = malloc(a->nranks * sizeof(*dev));
    if (!a->rank_rows || !m || !dev) {
        free(m);
        free(dev);
        return -ENOMEM;
    }
    size_t nm = 0;
    for (size_t i = 0; i < a->nranks; i++) {
        const struct lat_an_rank *r = &a->ranks[i];
        struct lat_an_rank_row *row = &a->rank_rows[a->nrank_rows++];
        row->rank = r->rank;
        row->steps = r->nsteps;
        lat_ns sum = 0;
        for (size_t s = 0; s < r->nsteps; s++) {
            sum += r->steps[s].dur;
            if (r->steps[s].dur > row->step_max) row->step_max = r->steps[s].dur;
        }
        row->step_mean = r->nsteps ? (double)sum / (double)r->nsteps : 0;
        row->comm = r->comm_time;
        row->idle = r->temporal.valid ? r->temporal.idle : 0;
        row->idle_pct = r->temporal.valid ? r->temporal.idle_pct : 0;
        if (r->nsteps) m[nm++] = row->step_mean;
    }
    if (nm >= 3) {
        double med = median(m, nm);
        size_t k = 0;
        for (size_t i = 0; i < a->nrank_rows; i++)
            if (a->rank_rows[i].steps) dev[k++] = fabs(a->rank_rows[i].step_mean - med);
        double sigma = 1.4826 * median(dev, k);
        a->step_median_ns = med;
        for (size_t i = 0; i < a->nrank_rows; i++) {
            struct lat_an_rank_row *row = &a->rank_rows[i];
            if (!row->steps || med <= 0) continue;
            row->excess_pct = 100.0 * (row->step_mean - med) / med;
            if (row->step_mean - med > 3 * sigma && row->excess_pct > 5) {
                row->straggler = true;
                a->nstragglers++;
            }
        }
    }
    free(m);
    free(dev);
    return 0;
}
