/*
 * earlystop.c - binomial early stopping (MLPerf LoadGen's rule, written from its definition).
 *
 * LoadGen evaluates the regularized incomplete beta function with lgamma and a 2F1 series and
 * binary-searches h. We sum the binomial tail directly in log space: term k of
 * P[Bin(n, p) >= h] is C(n, k) p^k (1-p)^(n-k) for k = h .. n, and consecutive terms differ by
 * the factor (n-k)/(k+1) * p/(1-p), so one lgamma gives the first term and the rest are
 * additions of logs, accumulated with log-sum-exp. With n = h + t that is t + 1 terms; t (the
 * requests over target) is small whenever a claim can pass. Both methods give the same
 * integers on the table in ../shared/docs/load-testing.md (tests/unit/test-stats.c checks it).
 * h_min(t) is found by doubling then bisection on h (odds is decreasing in h).
 */
#include "stats/earlystop.h"

#include "core/err.h"

#include <math.h>

static bool args_ok(double pct, double confidence)
{
    return pct > 0.0 && pct < 100.0 && confidence > 0.0 && confidence < 1.0;
}

double earlystop_odds(uint64_t h, uint64_t t, double pct)
{
    double p = pct / 100.0;
    if (h == 0) return 1.0;
    double n = (double)(h + t);
    double lp = log(p), lq = log1p(-p);
    /* log of the first term, k = h */
    double lt = lgamma(n + 1) - lgamma((double)h + 1) - lgamma((double)t + 1) + (double)h * lp +
                (double)t * lq;
    double acc = lt;
    for (uint64_t k = h; k < h + t; k++) {
        double step = log((n - (double)k) / ((double)k + 1.0)) + lp - lq;
        lt += step;
        /* acc = log(exp(acc) + exp(lt)) */
        if (lt > acc)
            acc = lt + log1p(exp(acc - lt));
        else
            acc = acc + log1p(exp(lt - acc));
        /* Past the mode the terms only shrink (the ratio decreases with k): once a term is
         * below e^-40 of the sum, the rest of the tail cannot change a double. */
        if (step < 0 && lt < acc - 40.0) break;
    }
    double r = exp(acc);
    return r > 1.0 ? 1.0 : r;
}

int earlystop_h_min(double pct, double confidence, uint64_t t, uint64_t *h_min)
{
    if (!args_ok(pct, confidence)) return LAT_E_USAGE;
    double limit = 1.0 - confidence;
    uint64_t lo = 0, hi = 1; /* invariant: odds(lo) >= limit (h = 0 has odds 1), odds(hi) < limit */
    while (earlystop_odds(hi, t, pct) >= limit) {
        lo = hi;
        if (hi > (UINT64_MAX >> 2)) return LAT_E_OVERFLOW;
        hi *= 2;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (earlystop_odds(mid, t, pct) < limit)
            hi = mid;
        else
            lo = mid;
    }
    *h_min = hi;
    return 0;
}

int earlystop_check(double pct, double confidence, uint64_t n, uint64_t over,
                    struct earlystop_claim *out)
{
    if (over > n) return LAT_E_USAGE;
    uint64_t h;
    int rc = earlystop_h_min(pct, confidence, over, &h);
    if (rc < 0) return rc;
    out->n = n;
    out->over = over;
    out->required_n = h + over;
    out->pass = n >= out->required_n;
    out->more_needed = out->pass ? 0 : out->required_n - n;
    return 0;
}

int earlystop_bound_rank(double pct, double confidence, uint64_t n, uint64_t *t_out)
{
    uint64_t h;
    int rc = earlystop_h_min(pct, confidence, 1, &h);
    if (rc < 0) return rc;
    *t_out = 0;
    if (n < h + 1) return 0;
    /* h_min(t) + t increases with t: bisect for the largest t with n >= h_min(t) + t. Any t
     * that satisfies it is at most about n * (1 - p) (h_min(t) exceeds t * p / (1 - p) minus
     * a few): search up to twice that, so the O(t) odds sums stay short. */
    uint64_t lo = 1, hi = (uint64_t)(2.0 * (double)n * (1.0 - pct / 100.0)) + 16;
    if (hi > n) hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        rc = earlystop_h_min(pct, confidence, mid, &h);
        if (rc < 0) return rc;
        if (n >= h + mid)
            lo = mid;
        else
            hi = mid - 1;
    }
    *t_out = lo;
    return 0;
}

int earlystop_hist_bound(const struct lat_hist *hist, double pct, double confidence,
                         int64_t *bound_ns, uint64_t *more_needed)
{
    uint64_t n = hist_count(hist), t;
    int rc = earlystop_bound_rank(pct, confidence, n, &t);
    if (rc < 0) return rc;
    *bound_ns = 0;
    *more_needed = 0;
    if (t == 0) {
        uint64_t h;
        rc = earlystop_h_min(pct, confidence, 1, &h);
        if (rc < 0) return rc;
        *more_needed = h + 1 - n;
        return LAT_E_TRUNCATED;
    }
    /* Rank n - t + 1 (1-based) is sorted[n - t] (0-based): as a percentile of n that is
     * exactly (n - t + 1) / n, which the nearest-rank rule maps back to that rank. */
    uint64_t rank = n - t + 1, run = 0;
    struct hist_iter it;
    hist_iter_init(&it, hist);
    while (hist_iter_next(&it)) {
        run = it.cumulative;
        if (run >= rank) {
            *bound_ns = it.hi > hist_max(hist) ? hist_max(hist) : it.hi;
            return 0;
        }
    }
    *bound_ns = hist_max(hist);
    return 0;
}

uint64_t earlystop_hist_over(const struct lat_hist *h, int64_t limit_ns)
{
    uint64_t under = 0;
    struct hist_iter it;
    hist_iter_init(&it, h);
    while (hist_iter_next(&it)) {
        /* The top bucket's real values end at the exact max. */
        int64_t hi = it.hi > hist_max(h) ? hist_max(h) : it.hi;
        if (hi > limit_ns) break;
        under += it.count;
    }
    return hist_count(h) - under;
}
