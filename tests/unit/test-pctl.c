/* test-pctl.c - core/pctl.h: the one nearest rank, median and linear interpolation. */
#include "test.h"

#include "core/pctl.h"

#include <math.h>

/* The p values latscope prints, as the double a caller passes and as an exact integer count
 * of ten-thousandths: the reference rank is ceil(num * n / 10000) in integers. */
static const struct {
    double p;
    uint64_t num;
} used[] = {{50, 5000}, {90, 9000}, {95, 9500}, {99, 9900}, {99.9, 9990}, {99.99, 9999}};

static uint64_t exact_rank(uint64_t num, uint64_t n)
{
    unsigned __int128 r = ((unsigned __int128)num * n + 9999) / 10000;
    return r < 1 ? 1 : (uint64_t)r;
}

TEST(pctl_rank_is_exact_for_every_n_up_to_a_million)
{
    size_t bad = 0;
    for (size_t k = 0; k < sizeof(used) / sizeof(used[0]); k++)
        for (uint64_t n = 1; n <= 1000000; n++)
            if (lat_rank_nearest(used[k].p, n) != exact_rank(used[k].num, n)) {
                if (!bad)
                    FAIL("p%g of n=%" PRIu64 ": rank %" PRIu64 ", exact %" PRIu64, used[k].p, n,
                         lat_rank_nearest(used[k].p, n), exact_rank(used[k].num, n));
                bad++;
            }
    ASSERT_EQ_U64(bad, 0);
}

/* The float formula this replaced (diff/stats.c's ceil(p/100 * n)) is wrong inside the range
 * checked above, so the check above can tell the two apart. */
TEST(pctl_float_ceil_is_wrong_where_the_exact_rank_is_checked)
{
    size_t wrong = 0;
    for (uint64_t n = 1; n <= 200000; n++)
        wrong += (uint64_t)ceil(99.9 / 100.0 * (double)n) != exact_rank(9990, n);
    ASSERT_OP_I64(wrong, >, 0);
}

TEST(pctl_rank_is_exact_for_huge_n)
{
    const uint64_t ns[] = {UINT64_MAX,
                           UINT64_MAX - 1,
                           (uint64_t)1 << 63,
                           ((uint64_t)1 << 53) + 1,
                           999999999999999999ULL,
                           100000000000ULL,
                           100000000001ULL};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        for (size_t k = 0; k < sizeof(used) / sizeof(used[0]); k++)
            ASSERT_EQ_U64(lat_rank_nearest(used[k].p, ns[i]), exact_rank(used[k].num, ns[i]));
}

TEST(pctl_rank_edges)
{
    ASSERT_EQ_U64(lat_rank_nearest(50, 0), 0);
    ASSERT_EQ_U64(lat_rank_nearest(0, 10), 1);
    ASSERT_EQ_U64(lat_rank_nearest(-5, 10), 1);
    ASSERT_EQ_U64(lat_rank_nearest(NAN, 10), 1);
    ASSERT_EQ_U64(lat_rank_nearest(100, 10), 10);
    ASSERT_EQ_U64(lat_rank_nearest(250, 10), 10);
    ASSERT_EQ_U64(lat_rank_nearest(0.001, 10), 1);
    ASSERT_EQ_U64(lat_rank_nearest(25, 4), 1); /* ceil(1.0) */
    ASSERT_EQ_U64(lat_rank_nearest(26, 4), 2); /* ceil(1.04) */
    ASSERT_EQ_U64(lat_rank_nearest(99.9, 1000), 999);
    ASSERT_EQ_U64(lat_rank_nearest(99.9, 1001), 1000);
    ASSERT_EQ_U64(lat_rank_nearest(99.999, 100000), 99999);
    /* nine decimals are exact: p = 100 - 1e-9 of 10^11 values leaves exactly one out */
    ASSERT_EQ_U64(lat_rank_nearest(99.999999999, 100000000000ULL), 99999999999ULL);
}

/* lat_pctl_min_n: the fewest values whose pNN is not the maximum, and one fewer is. */
TEST(pctl_min_n_is_the_first_count_below_the_maximum)
{
    ASSERT_EQ_U64(lat_pctl_min_n(99), 100);
    ASSERT_EQ_U64(lat_pctl_min_n(99.9), 1000);
    ASSERT_EQ_U64(lat_pctl_min_n(90), 10);
    ASSERT_EQ_U64(lat_pctl_min_n(50), 2);
    ASSERT_EQ_U64(lat_pctl_min_n(0), 1);
    ASSERT_EQ_U64(lat_pctl_min_n(100), UINT64_MAX);
    const double ps[] = {10, 33.3, 50, 75, 90, 95, 97.5, 99, 99.5, 99.9, 99.99};
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
        uint64_t n = lat_pctl_min_n(ps[k]);
        ASSERT_OP_I64((int64_t)lat_rank_nearest(ps[k], n), <, (int64_t)n);
        if (n > 1) ASSERT_EQ_U64(lat_rank_nearest(ps[k], n - 1), n - 1);
    }
}

TEST(pctl_values_median_and_linear)
{
    const int64_t v[] = {10, 20, 30, 40};
    const double d[] = {1.0, 2.0, 4.0, 8.0, 16.0};
    ASSERT_EQ_I64(lat_pctl_i64(v, 0, 50), 0);
    ASSERT_EQ_I64(lat_pctl_i64(v, 4, 50), 20);
    ASSERT_EQ_I64(lat_pctl_i64(v, 4, 90), 40);
    ASSERT_EQ_I64(lat_pctl_i64(v, 4, 0), 10);
    ASSERT_NEAR(lat_pctl_f64(d, 5, 50), 4.0, 0);
    ASSERT_NEAR(lat_pctl_f64(d, 5, 61), 8.0, 0); /* ceil(3.05) = 4 */
    ASSERT_NEAR(lat_median_i64(v, 4), 25.0, 0);
    ASSERT_NEAR(lat_median_i64(v, 3), 20.0, 0);
    ASSERT_NEAR(lat_median_i64(v, 0), 0.0, 0);
    ASSERT_NEAR(lat_median_f64(d, 5), 4.0, 0);
    ASSERT_NEAR(lat_median_f64(d, 4), 3.0, 0);
    const int64_t big[] = {INT64_MAX - 1, INT64_MAX};
    ASSERT(lat_median_i64(big, 2) > 9.2e18); /* no int64 overflow in the midpoint */
    /* numpy.percentile([1, 2, 4, 8, 16], [0, 25, 50, 90, 100]) = 1, 2, 4, 12.8, 16 */
    ASSERT_NEAR(lat_quantile_linear_f64(d, 5, 0.0), 1.0, 0);
    ASSERT_NEAR(lat_quantile_linear_f64(d, 5, 0.25), 2.0, 0);
    ASSERT_NEAR(lat_quantile_linear_f64(d, 5, 0.5), 4.0, 0);
    ASSERT_NEAR(lat_quantile_linear_f64(d, 5, 0.9), 12.8, 1e-12);
    ASSERT_NEAR(lat_quantile_linear_f64(d, 5, 1.0), 16.0, 0);
    /* numpy.percentile([10, 20, 30, 40], 90) = 37 */
    ASSERT_NEAR(lat_quantile_linear_i64(v, 4, 0.9), 37.0, 1e-12);
    ASSERT_NEAR(lat_quantile_linear_i64(v, 1, 0.9), 10.0, 0);
    const int64_t wide[] = {INT64_MIN, INT64_MAX};
    ASSERT_NEAR(lat_quantile_linear_i64(wide, 2, 0.5), 0.0, 1e4);
}
