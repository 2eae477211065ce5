/* test-diff.c - the statistics of `latscope diff` (quantiles, Welch against a hand computation,
 * order-statistic intervals against a binomial case, the seeded histogram bootstrap) and the
 * bench-result / trace comparisons. */
#include "test.h"

#include "core/err.h"
#include "diff/diff.h"
#include "diff/stats.h"
#include "hist/hist.h"
#include "stats/rng.h"

#include <math.h>
#include <string.h>

TEST(diff_quantiles_known_values)
{
    ASSERT_NEAR(dstat_norm_quantile(0.975), 1.959963984540054, 1e-12);
    ASSERT_NEAR(dstat_norm_quantile(0.5), 0.0, 1e-15);
    ASSERT_NEAR(dstat_norm_quantile(0.001), -3.090232306167813, 1e-11);
    ASSERT(isnan(dstat_norm_quantile(0)));
    /* Student t tables */
    ASSERT_NEAR(dstat_t_quantile(0.975, 1), 12.706204736174698, 1e-8);
    ASSERT_NEAR(dstat_t_quantile(0.975, 10), 2.228138851986274, 1e-9);
    ASSERT_NEAR(dstat_t_quantile(0.995, 5), 4.032142983557536, 1e-9);
    ASSERT_NEAR(dstat_t_quantile(0.025, 10), -2.228138851986274, 1e-9);
    ASSERT_NEAR(dstat_t_cdf(0, 3), 0.5, 1e-15);
    /* Binomial: P(Bin(10, .5) <= 1) = 11/1024; P(Bin(20, .3) <= 5) = 0.416371 */
    ASSERT_NEAR(dstat_binom_cdf(1, 10, 0.5), 11.0 / 1024, 1e-13);
    ASSERT_NEAR(dstat_binom_cdf(5, 20, 0.3), 0.41637082, 1e-7);
    ASSERT_NEAR(dstat_binom_cdf(10, 10, 0.5), 1.0, 0);
}

TEST(diff_welch_hand_computed)
{
    /* a: mean 10, sd 2, n 10; b: mean 12, sd 3, n 15.
     * se^2 = 4/10 + 9/15 = 1.0; df = 1 / (0.4^2/9 + 0.6^2/14) = 22.99270;
     * t(0.975, 22.9927) = 2.068696 (between the table's 2.068658 at 23 and 2.073873 at 22);
     * interval 2 -+ 2.068696. */
    struct dstat_ci ci = dstat_welch(10, 2, 10, 12, 3, 15, 0.95);
    ASSERT(ci.have);
    ASSERT_NEAR(ci.est, 2.0, 1e-12);
    ASSERT_NEAR(ci.df, 22.99270, 1e-4);
    ASSERT_NEAR(ci.lo, 2.0 - 2.068696, 2e-5);
    ASSERT_NEAR(ci.hi, 2.0 + 2.068696, 2e-5);
    /* Equal zero variances: the difference is exact. */
    ci = dstat_welch(5, 0, 4, 5, 0, 4, 0.95);
    ASSERT(ci.have && ci.lo == 0 && ci.hi == 0);
    ci = dstat_welch(5, 1, 1, 5, 1, 4, 0.95);
    ASSERT(!ci.have);
}

TEST(diff_order_statistic_ci_binomial_case)
{
    /* The median of 10 samples at 95 %: [x(2), x(9)], coverage 1 - 2 * 11/1024 = 1002/1024. */
    uint64_t lo, hi;
    double cov;
    ASSERT_RC(dstat_os_ci_ranks(10, 50, 0.95, &lo, &hi, &cov));
    ASSERT_EQ_U64(lo, 2);
    ASSERT_EQ_U64(hi, 9);
    ASSERT_NEAR(cov, 1002.0 / 1024, 1e-12);
    /* 5 samples cannot give a 95 % interval for the median (2 * 1/32 > 5 %). */
    ASSERT_EQ_I64(dstat_os_ci_ranks(5, 50, 0.95, &lo, &hi, &cov), LAT_E_USAGE);
    /* Large n: the ranks sit near n p -+ z sqrt(n p (1 - p)) = 9900 -+ 19.5. */
    ASSERT_RC(dstat_os_ci_ranks(10000, 99, 0.95, &lo, &hi, &cov));
    ASSERT_OP_I64((int64_t)lo, >=, 9878);
    ASSERT_OP_I64((int64_t)lo, <=, 9882);
    ASSERT_OP_I64((int64_t)hi, >=, 9918);
    ASSERT_OP_I64((int64_t)hi, <=, 9922);
    ASSERT(cov >= 0.95);
    /* On a histogram of 1..10 ms: x(2) = 2 ms and x(9) = 9 ms (within a bucket). */
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    for (int i = 1; i <= 10; i++)
        hist_record(&h, i * 1000000LL);
    double vlo, vhi;
    ASSERT_RC(dstat_os_ci_hist(&h, 50, 0.95, &vlo, &vhi));
    ASSERT_NEAR(vlo, 2e6, 2e6 * 1e-3);
    ASSERT_NEAR(vhi, 9e6, 9e6 * 1e-3);
    hist_fini(&h);
}

TEST(diff_proportion_interval)
{
    /* 0/1000 vs 0/1000: the interval is symmetric around 0 and contains it. */
    struct dstat_ci ci = dstat_prop_diff(0, 1000, 0, 1000, 0.95);
    ASSERT(ci.have && ci.lo < 0 && ci.hi > 0);
    /* 10/1000 vs 60/1000: clearly more errors. */
    ci = dstat_prop_diff(10, 1000, 60, 1000, 0.95);
    ASSERT(ci.have && ci.lo > 0);
    ASSERT_NEAR(ci.est, 0.05, 1e-12);
}

static void fill_exp(struct lat_hist *h, uint64_t seed, size_t n, double mean_ns, double scale)
{
    struct lat_rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        hist_record(h, (int64_t)(rng_exp(&r) * mean_ns * scale) + 1000);
}

TEST(diff_bootstrap_seeded_and_sensible)
{
    struct lat_hist a, a2, b;
    ASSERT_RC(hist_init_default(&a));
    ASSERT_RC(hist_init_default(&a2));
    ASSERT_RC(hist_init_default(&b));
    fill_exp(&a, 1, 5000, 1e6, 1.0);
    fill_exp(&a2, 2, 5000, 1e6, 1.0); /* same distribution, other samples */
    fill_exp(&b, 1, 5000, 1e6, 1.2);  /* 20 % slower */
    const struct lat_hist *pa[] = {&a}, *pa2[] = {&a2}, *pb[] = {&b};
    struct dstat_side sa = {pa, 1}, sa2 = {pa2, 1}, sb = {pb, 1};
    struct dstat_boot r1, r2, r3;
    ASSERT_RC(dstat_boot_pct(&sa, &sb, 50, 2000, 42, 0.95, &r1));
    ASSERT_RC(dstat_boot_pct(&sa, &sb, 50, 2000, 42, 0.95, &r2));
    ASSERT(memcmp(&r1.abs, &r2.abs, sizeof(r1.abs)) == 0); /* reproducible */
    ASSERT(r1.rel.lo == r2.rel.lo && r1.rel.hi == r2.rel.hi);
    ASSERT_RC(dstat_boot_pct(&sa, &sb, 50, 2000, 43, 0.95, &r3));
    ASSERT(r3.abs.lo != r1.abs.lo || r3.abs.hi != r1.abs.hi); /* the seed matters */
    /* The 20 % slowdown: the relative interval excludes 0 and holds ~0.2. */
    ASSERT(r1.rel.lo > 0.1 && r1.rel.hi < 0.3);
    ASSERT(r1.rel.lo <= r1.rel.est && r1.rel.est <= r1.rel.hi);
    /* Same distribution: p50 and p99 intervals contain 0. */
    ASSERT_RC(dstat_boot_pct(&sa, &sa2, 50, 2000, 42, 0.95, &r1));
    ASSERT(r1.abs.lo < 0 && r1.abs.hi > 0);
    ASSERT_RC(dstat_boot_pct(&sa, &sa2, 99, 2000, 42, 0.95, &r1));
    ASSERT(r1.abs.lo < 0 && r1.abs.hi > 0);
    /* Several runs per side: the run-level resampling widens the interval. */
    const struct lat_hist *two_a[] = {&a, &a2}, *two_b[] = {&b, &b};
    struct dstat_side ta = {two_a, 2}, tb = {two_b, 2};
    ASSERT_RC(dstat_boot_pct(&ta, &tb, 50, 2000, 42, 0.95, &r1));
    ASSERT(r1.rel.lo > 0);
    ASSERT_EQ_I64(dstat_boot_pct(&sa, &sb, 50, 10, 42, 0.95, &r1), LAT_E_USAGE);
    hist_fini(&a);
    hist_fini(&a2);
    hist_fini(&b);
}
