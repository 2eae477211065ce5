/* test-sched.c - PRNG and open-loop arrival schedules: statistics, reproducibility, slicing. */
#include "test.h"

#include "core/clock.h"
#include "core/err.h"
#include "stats/rng.h"
#include "stats/sched.h"

#include <math.h>

/* Mean and coefficient of variation of n inter-arrival gaps of a schedule. */
static void gap_stats(const char *spec_text, double rate, uint64_t seed, int n, double *mean_rate,
                      double *cv)
{
    struct sched_spec sp;
    struct lat_sched s;
    if (sched_parse(spec_text, &sp) != 0) FAIL("parse %s", spec_text);
    if (sched_init(&s, &sp, rate, seed, 1000000000LL) != 0) FAIL("init");
    lat_ns prev = sched_next(&s), first = prev;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        lat_ns t = sched_next(&s);
        double g = (double)(t - prev);
        if (g < 0) FAIL("time went backwards at %d", i);
        sum += g;
        sq += g * g;
        prev = t;
    }
    double m = sum / n;
    *mean_rate = 1e9 * n / (double)(prev - first);
    *cv = sqrt(sq / n - m * m) / m;
}

TEST(rng_uniform_and_exp_moments)
{
    struct lat_rng r;
    rng_seed(&r, 1);
    double su = 0, se = 0, sg = 0, sg2 = 0;
    const int n = 400000;
    for (int i = 0; i < n; i++) {
        double u = rng_uniform(&r);
        ASSERT(u > 0.0 && u <= 1.0);
        su += u;
        se += rng_exp(&r);
        double g = rng_gamma(&r, 0.5);
        sg += g;
        sg2 += g * g;
    }
    ASSERT_NEAR(su / n, 0.5, 0.005);
    ASSERT_NEAR(se / n, 1.0, 0.01);
    ASSERT_NEAR(sg / n, 0.5, 0.01);                        /* Gamma(0.5): mean 0.5 */
    ASSERT_NEAR(sg2 / n - (sg / n) * (sg / n), 0.5, 0.02); /* variance 0.5 */
    for (int i = 0; i < 1000; i++)
        ASSERT(rng_below(&r, 7) < 7);
}

TEST(rng_is_reproducible)
{
    struct lat_rng a, b, c;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_seed(&c, 43);
    int same = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
        ASSERT_EQ_U64(x, y);
        same += x == z;
    }
    ASSERT_EQ_I64(same, 0);
}

TEST(sched_parse_specs)
{
    struct sched_spec sp;
    char buf[32];
    ASSERT_RC(sched_parse("constant", &sp));
    ASSERT_EQ_I64(sp.kind, SCHED_CONSTANT);
    ASSERT_RC(sched_parse("poisson", &sp));
    ASSERT_EQ_I64(sp.kind, SCHED_POISSON);
    ASSERT_RC(sched_parse("gamma:4", &sp));
    ASSERT_EQ_I64(sp.kind, SCHED_GAMMA);
    ASSERT_NEAR(sp.gamma_k, 4.0, 0);
    ASSERT_EQ_STR(sched_format(&sp, buf, sizeof(buf)), "gamma:4");
    ASSERT_RC(sched_parse("gamma:0.25", &sp));
    ASSERT_EQ_I64(sched_parse("gamma:", &sp), LAT_E_USAGE);
    ASSERT_EQ_I64(sched_parse("gamma:0", &sp), LAT_E_USAGE);
    ASSERT_EQ_I64(sched_parse("gamma:-1", &sp), LAT_E_USAGE);
    ASSERT_EQ_I64(sched_parse("gamma:2x", &sp), LAT_E_USAGE);
    ASSERT_EQ_I64(sched_parse("bursty", &sp), LAT_E_USAGE);
    struct lat_sched s;
    ASSERT_EQ_I64(sched_init(&s, &sp, 0.0, 1, 0), LAT_E_USAGE);
    ASSERT_EQ_I64(sched_init_slice(&s, &sp, 10.0, 1, 0, 2, 2), LAT_E_USAGE);
}

TEST(sched_constant_is_exact)
{
    struct sched_spec sp;
    struct lat_sched s;
    ASSERT_RC(sched_parse("constant", &sp));
    ASSERT_RC(sched_init(&s, &sp, 3000.0, 1, 5000));
    ASSERT_EQ_I64(sched_next(&s), 5000);
    for (int i = 1; i < 300000; i++) {
        lat_ns t = sched_next(&s);
        ASSERT_EQ_I64(t, 5000 + llround(i * (1e9 / 3000.0)));
    }
    double rate, cv;
    gap_stats("constant", 20000, 1, 100000, &rate, &cv);
    ASSERT_NEAR(rate, 20000, 0.01);
    ASSERT_NEAR(cv, 0, 1e-3);
}

TEST(sched_poisson_rate_and_cv)
{
    double rate, cv;
    gap_stats("poisson", 20000, 7, 200000, &rate, &cv);
    ASSERT_NEAR(rate, 20000, 20000 * 0.01); /* 200k gaps: sd of the mean 0.22 % */
    ASSERT_NEAR(cv, 1.0, 0.02);
}

TEST(sched_gamma_rate_and_cv)
{
    const double ks[] = {0.25, 1, 4, 16};
    for (int i = 0; i < 4; i++) {
        char spec[32];
        double rate, cv;
        snprintf(spec, sizeof(spec), "gamma:%g", ks[i]);
        gap_stats(spec, 500, 99, 200000, &rate, &cv);
        ASSERT_NEAR(rate, 500, 500 * 0.02);
        ASSERT_NEAR(cv, 1.0 / sqrt(ks[i]), 0.04 / sqrt(ks[i]));
    }
}

TEST(sched_poisson_counts_per_window_are_poisson)
{
    /* Counts in 10 ms windows at 10 000/s: mean 100, variance 100 (index of dispersion 1). */
    struct sched_spec sp;
    struct lat_sched s;
    ASSERT_RC(sched_parse("poisson", &sp));
    ASSERT_RC(sched_init(&s, &sp, 10000.0, 5, 0));
    int counts[2000] = {0};
    for (;;) {
        lat_ns t = sched_next(&s);
        if (t >= 2000 * 10000000LL) break;
        counts[t / 10000000LL]++;
    }
    double m = 0, v = 0;
    for (int i = 0; i < 2000; i++)
        m += counts[i];
    m /= 2000;
    for (int i = 0; i < 2000; i++)
        v += (counts[i] - m) * (counts[i] - m);
    v /= 1999;
    ASSERT_NEAR(m, 100, 1.5);
    ASSERT_NEAR(v / m, 1.0, 0.1);
}

TEST(sched_same_seed_same_schedule_any_slicing)
{
    struct sched_spec sp;
    ASSERT_RC(sched_parse("gamma:2", &sp));
    struct lat_sched g, g2, sl[3], other;
    ASSERT_RC(sched_init(&g, &sp, 1000.0, 1234, 0));
    ASSERT_RC(sched_init(&g2, &sp, 1000.0, 1234, 0));
    ASSERT_RC(sched_init(&other, &sp, 1000.0, 1235, 0));
    for (uint32_t i = 0; i < 3; i++)
        ASSERT_RC(sched_init_slice(&sl[i], &sp, 1000.0, 1234, 0, i, 3));
    int differs = 0;
    for (int i = 0; i < 3000; i++) {
        lat_ns t = sched_next(&g);
        ASSERT_EQ_I64(t, sched_next(&g2));
        ASSERT_EQ_I64(t, sched_next(&sl[i % 3])); /* arrival i belongs to slice i % 3 */
        differs += t != sched_next(&other);
    }
    ASSERT(differs > 2900);
}

TEST(sched_pace_until_reaches_deadline)
{
    lat_ns worst = 0;
    for (int i = 0; i < 20; i++) {
        lat_ns due = clock_now_ns() + 2000000; /* 2 ms ahead */
        lat_ns late = sched_pace_until(due, 50000);
        ASSERT(clock_now_ns() >= due);
        ASSERT_OP_I64(late, >=, 0);
        if (late > worst) worst = late;
    }
    /* Lateness is measured in `make perf`; here only a loose sanity bound (loaded CI box). */
    ASSERT_OP_I64(worst, <, 200000000);
    ASSERT_OP_I64(sched_pace_until(clock_now_ns() - 1000, 0), >=, 1000); /* already late */
}
