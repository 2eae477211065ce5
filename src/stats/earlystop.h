/*
 * earlystop.h - MLPerf LoadGen's binomial early stopping (../shared/docs/load-testing.md §6).
 *
 * Question answered: after N requests, of which t took longer than a latency target, may we
 * claim "the p-th percentile is <= target" with confidence c? And if not, how many more
 * requests (at the same over-target count) would the claim need?
 *
 *   odds(h, t) = P[Binomial(h + t, p) >= h]  (tolerance d = 0, as LoadGen's default)
 *   h_min(t)   = min{ h : odds(h, t) < 1 - c }
 *   pass iff N >= h_min(t) + t; otherwise h_min(t) + t - N more requests are needed.
 * Percentiles are given in percent (99 = p 0.99); confidence as a fraction (0.99).
 */
#ifndef LAT_STATS_EARLYSTOP_H
#define LAT_STATS_EARLYSTOP_H

#include <stdbool.h>
#include <stdint.h>

#include "hist/hist.h"

/* P[Binomial(h + t, p) >= h], p = pct / 100, computed as a tail sum in log space. */
double earlystop_odds(uint64_t h, uint64_t t, double pct);
/* h_min(t). Returns 0 or LAT_E_USAGE (pct not in (0, 100), confidence not in (0, 1)). */
int earlystop_h_min(double pct, double confidence, uint64_t t, uint64_t *h_min);

struct earlystop_claim {
    bool pass;            /* the claim holds at this confidence */
    uint64_t n;           /* requests observed */
    uint64_t over;        /* of which over the target */
    uint64_t required_n;  /* h_min(over) + over */
    uint64_t more_needed; /* required_n - n when not passing, else 0 */
};

/* LoadGen Server-scenario check for "p-th percentile <= target" given n and the count over
 * the target. Returns 0 or LAT_E_USAGE (also when over > n). */
int earlystop_check(double pct, double confidence, uint64_t n, uint64_t over,
                    struct earlystop_claim *out);
/* LoadGen SingleStream estimate: the largest t with n >= h_min(t) + t; the percentile bound at
 * confidence c is then the t-th largest sample, sorted[n - t] (0-based). *t_out = 0 when n <
 * h_min(1) + 1 (not enough samples for any bound). Returns 0 or LAT_E_USAGE. */
int earlystop_bound_rank(double pct, double confidence, uint64_t n, uint64_t *t_out);
/* The same bound read from a histogram: the highest equivalent value (capped at max) of the
 * bucket holding the sample of rank n - t + 1. Returns 0 and *bound_ns, or LAT_E_TRUNCATED with
 * *more_needed = h_min(1) + 1 - n when there are too few samples. */
int earlystop_hist_bound(const struct lat_hist *h, double pct, double confidence, int64_t *bound_ns,
                         uint64_t *more_needed);
/* Requests of a histogram over limit_ns, counted conservatively: a bucket that straddles the
 * limit counts as over (consistent with hist_value_at_percentile being an upper bound). */
uint64_t earlystop_hist_over(const struct lat_hist *h, int64_t limit_ns);

#endif
