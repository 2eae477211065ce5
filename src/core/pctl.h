/*
 * pctl.h - the one percentile and the one median of latscope (docs/metrics.md "Percentiles").
 *
 * Nearest rank: for n values and a percentile p, the rank is r = ceil(p/100 * n), at least 1
 * and at most n, and the percentile is sorted[r - 1]. The rank is computed exactly in
 * integers: p is first rounded to a whole number P of billionths of a percent (every p with
 * at most 9 decimals, such as 99.9 or 99.99, is exact), then r = ceil(P * n / 10^11) in
 * 128-bit arithmetic, so p99.9 of 1000 values is rank 999, never 1000 from a float rounding.
 * p <= 0 (or NaN) gives rank 1 (the minimum), p >= 100 rank n (the maximum).
 *
 * Median: the middle value of the sorted values, the mean of the two middle ones when n is
 * even (what trtexec, numpy and pandas call the median; nearest-rank p50 is the lower one).
 *
 * Linear interpolation (numpy's default, pandas' describe()): only for outputs that mirror a
 * peer tool's numbers (analyze's HTA-compatible describe() distributions, `bench
 * --metrics-compat`, diff's bootstrap interval ends); every latscope pNN is nearest rank.
 *
 * Every function takes values already sorted ascending and never allocates; 0 when n is 0.
 * Bucketed estimators (hist/ HDR histograms, capture's log2 lag histogram) use
 * lat_rank_nearest() for the rank and report the bucket holding it.
 */
#ifndef LAT_CORE_PCTL_H
#define LAT_CORE_PCTL_H

#include <stddef.h>
#include <stdint.h>

/* The 1-based nearest rank of percentile pct among n values (0 when n is 0). */
uint64_t lat_rank_nearest(double pct, uint64_t n);
/* The fewest values for which percentile pct is not simply the maximum: the smallest n with
 * lat_rank_nearest(pct, n) < n (p99: 100, p99.9: 1000, p90: 10, p50: 2; 1 for pct <= 0,
 * UINT64_MAX for pct >= 100). Below it a "pNN" is the largest sample, and one outlier decides
 * it: bench judges a pNN (an SLO term, a --find-max probe, the client gap) only from this many
 * samples (docs/metrics.md "Enough samples"). */
uint64_t lat_pctl_min_n(double pct);
/* sorted[lat_rank_nearest(pct, n) - 1]; 0 when n is 0. */
int64_t lat_pctl_i64(const int64_t *sorted, size_t n, double pct);
double lat_pctl_f64(const double *sorted, size_t n, double pct);
/* The median of sorted[0..n) (mean of the two middle values when n is even); 0 when n is 0. */
double lat_median_i64(const int64_t *sorted, size_t n);
double lat_median_f64(const double *sorted, size_t n);
/* numpy's linear interpolation at fraction q in [0, 1]: position q * (n - 1) between the
 * order statistics around it; 0 when n is 0. */
double lat_quantile_linear_f64(const double *sorted, size_t n, double q);
double lat_quantile_linear_i64(const int64_t *sorted, size_t n, double q);

#endif
