/*
 * stats.h - the statistics behind `latscope diff` (docs/latscope-diff.md, "Statistics"):
 * Student t and normal quantiles, the binomial CDF, distribution-free order-statistic
 * confidence intervals for a percentile, Welch's interval for a difference of means, and a
 * seeded bootstrap of the difference of two percentiles computed from recorded HDR histograms
 * (one or several runs per side: runs are resampled too, so run-to-run variation counts).
 *
 * Pure functions; no printing, no global state. The bootstrap is reproducible: the same seed,
 * resample count and inputs give bit-identical intervals.
 */
#ifndef LAT_DIFF_STATS_H
#define LAT_DIFF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist/hist.h"

/* Standard normal quantile, p in (0, 1) (NaN outside). Relative error < 1e-12. */
double dstat_norm_quantile(double p);
/* Regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1]. */
double dstat_ibeta(double x, double a, double b);
/* Student t CDF and quantile with df > 0 degrees of freedom (df may be fractional). */
double dstat_t_cdf(double t, double df);
double dstat_t_quantile(double p, double df);
/* P(X <= k) for X ~ Binomial(n, p). */
double dstat_binom_cdf(uint64_t k, uint64_t n, double p);

/* An interval for after - before. have = false when none could be computed (why says why). */
struct dstat_ci {
    bool have;
    double est;    /* point estimate of the difference */
    double lo, hi; /* interval of the difference */
    double df;     /* Welch: degrees of freedom (0 when the variances are both 0) */
    const char *why;
};

/*
 * Distribution-free confidence interval for the pct-th percentile of n samples: 1-based ranks
 * [*lo, *hi] of the order statistics with P(x_(lo) <= q_p <= x_(hi)) >= conf, exact from the
 * binomial distribution (coverage = F(hi - 1) - F(lo - 1), F the Binomial(n, p) CDF), each tail
 * at most (1 - conf) / 2. Returns 0, or LAT_E_USAGE when n is too small for this confidence
 * (then no such ranks exist) or the arguments are out of range.
 */
int dstat_os_ci_ranks(uint64_t n, double pct, double conf, uint64_t *lo, uint64_t *hi,
                      double *coverage);
/* The same on a recorded histogram: the values of those ranks (lowest equivalent value of the
 * bucket holding rank lo, highest equivalent of the one holding hi, capped at the max). */
int dstat_os_ci_hist(const struct lat_hist *h, double pct, double conf, double *lo, double *hi);

/* Mean and sample standard deviation (n - 1) of x[0..n). */
void dstat_mean_sd(const double *x, size_t n, double *mean, double *sd);
/* Welch's interval for mean_b - mean_a at confidence conf; needs na, nb >= 2. */
struct dstat_ci dstat_welch(double mean_a, double sd_a, double na, double mean_b, double sd_b,
                            double nb, double conf);
/* Wald interval for the difference of two proportions ka/na, kb/nb (normal approximation). */
struct dstat_ci dstat_prop_diff(uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb, double conf);

/* One side of a bootstrap: its runs' histograms (same layout, LAT_HIST_* defaults). */
struct dstat_side {
    const struct lat_hist *const *h;
    size_t n;
};

struct dstat_boot {
    double a, b;         /* the pooled percentile of each side (ns) */
    struct dstat_ci abs; /* b - a */
    struct dstat_ci rel; /* b / a - 1 (a fraction) */
};

/*
 * Percentile bootstrap of pct(b) - pct(a), `resamples` replicates from `seed`. A replicate
 * resamples each side's runs with replacement (when it has more than one), then the samples of
 * the runs drawn: the r-th order statistic of N draws from an empirical CDF F is F^-1(U) with
 * U ~ Beta(r, N - r + 1), so each replicate costs one Beta draw and a binary search over the
 * buckets instead of N draws. Returns 0, LAT_E_USAGE (an empty side, resamples < 100) or
 * -ENOMEM.
 */
int dstat_boot_pct(const struct dstat_side *a, const struct dstat_side *b, double pct,
                   unsigned resamples, uint64_t seed, double conf, struct dstat_boot *out);

/* The same for the mean (several runs per side): runs resampled with replacement, then the
 * mean of the pooled samples drawn, by its normal approximation (mean of the runs drawn + sd /
 * sqrt(N) Z) from each run's histogram mean and standard deviation. */
int dstat_boot_mean(const struct dstat_side *a, const struct dstat_side *b, unsigned resamples,
                    uint64_t seed, double conf, struct dstat_boot *out);

#endif
