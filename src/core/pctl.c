/*
 * pctl.c - nearest rank, median and numpy's linear interpolation over sorted values
 * (definitions in pctl.h and docs/metrics.md).
 */
#include "core/pctl.h"

#include <math.h>

#define PCTL_SCALE 1000000000ULL /* P counts billionths of a percent */

uint64_t lat_rank_nearest(double pct, uint64_t n)
{
    if (n == 0) return 0;
    if (!(pct > 0.0)) return 1; /* also NaN */
    if (pct >= 100.0) return n;
    unsigned __int128 P = (unsigned __int128)llround(pct * (double)PCTL_SCALE);
    unsigned __int128 d = (unsigned __int128)100 * PCTL_SCALE;
    unsigned __int128 r = (P * n + d - 1) / d;
    if (r < 1) r = 1;
    if (r > n) r = n;
    return (uint64_t)r;
}

uint64_t lat_pctl_min_n(double pct)
{
    if (!(pct > 0.0)) return 1;
    if (pct >= 100.0) return UINT64_MAX;
    /* rank(n) < n  <=>  ceil(p n / 100) <= n - 1  <=>  n >= 100 / (100 - p): start there
     * (rounded down, so a float error cannot skip the answer) and step up exactly. */
    uint64_t n = (uint64_t)floor(100.0 / (100.0 - pct));
    if (n < 1) n = 1;
    while (lat_rank_nearest(pct, n) >= n)
        n++;
    return n;
}

int64_t lat_pctl_i64(const int64_t *sorted, size_t n, double pct)
{
    return n ? sorted[lat_rank_nearest(pct, n) - 1] : 0;
}

double lat_pctl_f64(const double *sorted, size_t n, double pct)
{
    return n ? sorted[lat_rank_nearest(pct, n) - 1] : 0.0;
}

double lat_median_i64(const int64_t *sorted, size_t n)
{
    if (!n) return 0.0;
    if (n % 2) return (double)sorted[n / 2];
    return ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
}

double lat_median_f64(const double *sorted, size_t n)
{
    if (!n) return 0.0;
    if (n % 2) return sorted[n / 2];
    return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double lat_quantile_linear_f64(const double *sorted, size_t n, double q)
{
    if (!n) return 0.0;
    if (!(q > 0.0)) return sorted[0];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return sorted[n - 1];
    return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * (pos - (double)lo);
}

double lat_quantile_linear_i64(const int64_t *sorted, size_t n, double q)
{
    if (!n) return 0.0;
    if (!(q > 0.0)) return (double)sorted[0];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return (double)sorted[n - 1];
    /* the unsigned difference is exact for any two sorted int64 values */
    double gap = (double)((uint64_t)sorted[lo + 1] - (uint64_t)sorted[lo]);
    return (double)sorted[lo] + (pos - (double)lo) * gap;
}
