/* test-hist.c - HdrHistogram-compatible histogram and exact order statistics. */
#include "test.h"

#include "core/err.h"
#include "hist/hist.h"
#include "hist/samples.h"
#include "stats/rng.h"

#include <errno.h>
#include <math.h>

TEST(hist_config_matches_hdr_layout_table)
{
    /* Rows of the memory table in load-testing.md §2.1: buckets x sub-buckets, counts. */
    struct hist_config c;
    ASSERT_RC(hist_calc_config(1000, 3600LL * 1000000000LL, 3, &c));
    ASSERT_EQ_I64(c.bucket_count, 23);
    ASSERT_EQ_I64(c.sub_bucket_count, 2048);
    ASSERT_EQ_I64(c.counts_len, 24576);
    ASSERT_EQ_I64(c.unit_magnitude, 9);
    ASSERT_RC(hist_calc_config(1, 3600LL * 1000000000LL, 3, &c));
    ASSERT_EQ_I64(c.bucket_count, 32);
    ASSERT_EQ_I64(c.counts_len, 33792);
    ASSERT_RC(hist_calc_config(1, 24LL * 3600 * 1000000, 3, &c)); /* wrk2: µs units, 24 h */
    ASSERT_EQ_I64(c.bucket_count, 27);
    ASSERT_EQ_I64(c.counts_len, 28672);
    ASSERT_RC(hist_calc_config(1, 60LL * 1000000, 3, &c)); /* µs units, 60 s */
    ASSERT_EQ_I64(c.bucket_count, 16);
    ASSERT_EQ_I64(c.counts_len, 17408);
    ASSERT_RC(hist_calc_config(1, 3600LL * 1000000000LL, 2, &c));
    ASSERT_EQ_I64(c.bucket_count, 35);
    ASSERT_EQ_I64(c.sub_bucket_count, 256);
    ASSERT_EQ_I64(c.counts_len, 4608);
    ASSERT_RC(hist_calc_config(1, 3600LL * 1000000000LL, 4, &c));
    ASSERT_EQ_I64(c.bucket_count, 28);
    ASSERT_EQ_I64(c.sub_bucket_count, 32768);
    ASSERT_EQ_I64(c.counts_len, 475136);
}

TEST(hist_config_rejects_bad_ranges)
{
    struct hist_config c;
    ASSERT_EQ_I64(hist_calc_config(0, 100, 3, &c), LAT_E_USAGE);
    ASSERT_EQ_I64(hist_calc_config(10, 19, 3, &c), LAT_E_USAGE);
    ASSERT_EQ_I64(hist_calc_config(1, 100, 0, &c), LAT_E_USAGE);
    ASSERT_EQ_I64(hist_calc_config(1, 100, 6, &c), LAT_E_USAGE);
    ASSERT_RC(hist_calc_config(1, INT64_MAX, 5, &c));
}

TEST(hist_index_roundtrip_every_index)
{
    struct hist_config c;
    ASSERT_RC(hist_calc_config(1000, 3600LL * 1000000000LL, 3, &c));
    int64_t prev_hi = -1;
    for (int32_t i = 0; i < c.counts_len; i++) {
        int64_t lo = hist_value_at_index(&c, i);
        int64_t hi = hist_highest_equivalent(&c, lo);
        /* Buckets tile the value line: each starts right after the previous one ends. */
        if (lo != prev_hi + 1)
            FAIL("index %d: lo %lld after hi %lld", i, (long long)lo, (long long)prev_hi);
        ASSERT_EQ_I64(hist_index_of(&c, lo), i);
        ASSERT_EQ_I64(hist_index_of(&c, hi), i);
        ASSERT_EQ_I64(hist_lowest_equivalent(&c, hi), lo);
        prev_hi = hi;
    }
    ASSERT_OP_I64(prev_hi, >=, c.highest);
}

TEST(hist_relative_error_bounded)
{
    struct hist_config c;
    ASSERT_RC(hist_calc_config(1000, 3600LL * 1000000000LL, 3, &c));
    uint64_t s = 1;
    for (int i = 0; i < 200000; i++) {
        int64_t v = (int64_t)(rng_splitmix64(&s) % (uint64_t)c.highest);
        int64_t lo = hist_lowest_equivalent(&c, v), hi = hist_highest_equivalent(&c, v);
        ASSERT_OP_I64(lo, <=, v);
        ASSERT_OP_I64(hi, >=, v);
        if (v >= (int64_t)c.sub_bucket_half_count << c.unit_magnitude &&
            (double)(hi - lo + 1) / (double)v > 1.0 / 1024)
            FAIL("v %lld bucket width %lld", (long long)v, (long long)(hi - lo + 1));
    }
}

TEST(hist_basic_stats_and_clamp)
{
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    ASSERT_EQ_U64(hist_count(&h), 0);
    ASSERT_EQ_I64(hist_value_at_percentile(&h, 99), 0);
    ASSERT_EQ_I64(hist_max(&h), 0);
    for (int i = 1; i <= 100; i++)
        hist_record(&h, i * 1000000LL); /* 1..100 ms */
    ASSERT_EQ_U64(hist_count(&h), 100);
    ASSERT_EQ_I64(hist_min(&h), 1000000);
    ASSERT_EQ_I64(hist_max(&h), 100000000);
    ASSERT_NEAR(hist_mean(&h), 50.5e6, 50.5e6 * 5e-4);
    ASSERT_NEAR(hist_stddev(&h), 28.866e6, 28.866e6 * 1e-3);
    /* nearest rank: p50 = rank 50 = 50 ms, p99 = rank 99, p99.9 = rank 100 */
    int64_t p50 = hist_value_at_percentile(&h, 50);
    ASSERT_OP_I64(p50, >=, 50000000);
    ASSERT_OP_I64(p50, <=, 50000000 + 50000000 / 1024);
    int64_t p99 = hist_value_at_percentile(&h, 99);
    ASSERT_OP_I64(p99, >=, 99000000);
    ASSERT_OP_I64(p99, <, 99100000);
    ASSERT_EQ_I64(hist_value_at_percentile(&h, 99.9), 100000000); /* capped at exact max */
    ASSERT_EQ_I64(hist_value_at_percentile(&h, 100), 100000000);
    ASSERT_EQ_I64(hist_value_at_percentile(&h, 0), 1000000);
    /* HdrHistogram's rule: p99.4 of 100 -> rank floor(99.4 + 0.5) = 99; nearest rank -> 100. */
    ASSERT_OP_I64(hist_value_at_percentile_hdr(&h, 99.4), <, 99100000);
    ASSERT_EQ_I64(hist_value_at_percentile(&h, 99.4), 100000000);
    /* out of range */
    hist_record(&h, -5);
    hist_record(&h, 5LL * 3600 * 1000000000LL);
    ASSERT_EQ_U64(h.clamped, 2);
    ASSERT_EQ_I64(hist_min(&h), 0);
    ASSERT_EQ_I64(hist_max(&h), 3600LL * 1000000000LL);
    ASSERT_EQ_U64(hist_count_at_or_below(&h, 10000000), 11); /* 0 and 1..10 ms */
    hist_reset(&h);
    ASSERT_EQ_U64(hist_count(&h), 0);
    ASSERT_EQ_U64(h.clamped, 0);
    hist_fini(&h);
    hist_fini(&h); /* idempotent */
}

TEST(hist_percentiles_track_exact_order_statistics)
{
    struct lat_hist h;
    struct lat_samples s;
    ASSERT_RC(hist_init_default(&h));
    ASSERT_RC(samples_init(&s, 100000));
    uint64_t st = 42;
    for (int i = 0; i < 100000; i++) {
        /* log-uniform 10 µs .. 10 s */
        double u = (double)(rng_splitmix64(&st) >> 11) / 9007199254740992.0;
        int64_t v = (int64_t)(1e4 * pow(1e6, u));
        hist_record(&h, v);
        ASSERT_RC(samples_push(&s, v));
    }
    const double ps[] = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        int64_t exact = samples_percentile(&s, ps[i]);
        int64_t est = hist_value_at_percentile(&h, ps[i]);
        /* error bound: one bucket width, i.e. < v/1024 above 0.5 ms and 512 ns below */
        double tol = (double)exact / 1024.0 > 512 ? (double)exact / 1024.0 : 512;
        if (est < exact || (double)(est - exact) > tol)
            FAIL("p%g: hist %lld exact %lld", ps[i], (long long)est, (long long)exact);
    }
    ASSERT_NEAR(hist_mean(&h), samples_mean(&s), samples_mean(&s) * 5e-4);
    samples_fini(&s);
    hist_fini(&h);
}

TEST(hist_add_is_lossless)
{
    struct lat_hist a, b, all;
    ASSERT_RC(hist_init_default(&a));
    ASSERT_RC(hist_init_default(&b));
    ASSERT_RC(hist_init_default(&all));
    uint64_t st = 7;
    for (int i = 0; i < 50000; i++) {
        int64_t v = (int64_t)(rng_splitmix64(&st) % 5000000000ULL);
        hist_record(i % 3 ? &a : &b, v);
        hist_record(&all, v);
    }
    ASSERT_RC(hist_add(&a, &b));
    ASSERT_EQ_U64(hist_count(&a), hist_count(&all));
    ASSERT_EQ_I64(hist_min(&a), hist_min(&all));
    ASSERT_EQ_I64(hist_max(&a), hist_max(&all));
    ASSERT_MEM_EQ(a.counts, all.counts, hist_counts_bytes(&a.cfg));
    for (double p = 0; p <= 100; p += 0.5)
        ASSERT_EQ_I64(hist_value_at_percentile(&a, p), hist_value_at_percentile(&all, p));
    ASSERT_EQ_I64(hist_add(&a, &a), LAT_E_USAGE);
    hist_fini(&a);
    hist_fini(&b);
    hist_fini(&all);
}

TEST(hist_add_across_layouts_and_prealloc)
{
    struct hist_config c;
    ASSERT_RC(hist_calc_config(1, 3600LL * 1000000000LL, 3, &c));
    uint64_t *storage = malloc(hist_counts_bytes(&c));
    ASSERT(storage);
    memset(storage, 0xab, hist_counts_bytes(&c)); /* init must zero it */
    struct lat_hist fine, coarse;
    ASSERT_RC(hist_init_prealloc(&fine, &c, storage));
    ASSERT(!fine.owns_counts);
    ASSERT_RC(hist_init(&coarse, 1000, 60LL * 1000000000LL, 2));
    for (int i = 1; i <= 1000; i++)
        hist_record(&fine, i * 12345LL);
    ASSERT_RC(hist_add(&coarse, &fine));
    ASSERT_EQ_U64(hist_count(&coarse), 1000);
    ASSERT_EQ_I64(hist_min(&coarse), 12345);
    ASSERT_EQ_I64(hist_max(&coarse), 12345000);
    int64_t p50 = hist_value_at_percentile(&coarse, 50);
    ASSERT_NEAR((double)p50, 500 * 12345.0, 500 * 12345.0 * 0.02);
    hist_fini(&fine); /* must not free caller storage */
    free(storage);
    hist_fini(&coarse);
}

TEST(hist_record_corrected_backfills)
{
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    hist_record_corrected(&h, 100000000, 10000000); /* 100 ms stall, 10 ms interval */
    ASSERT_EQ_U64(hist_count(&h), 10);              /* 100, 90, ..., 10 ms */
    ASSERT_EQ_I64(hist_min(&h), 10000000);
    hist_record_corrected(&h, 5000000, 10000000);
    ASSERT_EQ_U64(hist_count(&h), 11);
    hist_fini(&h);
}

TEST(hist_iterator_visits_nonempty_buckets)
{
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    hist_record(&h, 5000);
    hist_record(&h, 5000);
    hist_record(&h, 7000000);
    struct hist_iter it;
    hist_iter_init(&it, &h);
    ASSERT(hist_iter_next(&it));
    ASSERT(it.lo <= 5000 && it.hi >= 5000);
    ASSERT_EQ_U64(it.count, 2);
    ASSERT(hist_iter_next(&it));
    ASSERT(it.lo <= 7000000 && it.hi >= 7000000);
    ASSERT_EQ_U64(it.cumulative, 3);
    ASSERT(!hist_iter_next(&it));
    hist_fini(&h);
}

TEST(samples_nearest_rank_definition)
{
    struct lat_samples s;
    ASSERT_RC(samples_init(&s, 4));
    ASSERT_EQ_I64(samples_percentile(&s, 50), 0);
    ASSERT_RC(samples_push(&s, 40));
    ASSERT_RC(samples_push(&s, 10));
    ASSERT_RC(samples_push(&s, 30));
    ASSERT_RC(samples_push(&s, 20));
    ASSERT_EQ_I64(samples_push(&s, 50), -ENOSPC);
    ASSERT(samples_overflowed(&s));
    ASSERT_EQ_I64(samples_percentile(&s, 25), 10); /* ceil(1.0) = 1 */
    ASSERT_EQ_I64(samples_percentile(&s, 26), 20); /* ceil(1.04) = 2 */
    ASSERT_EQ_I64(samples_percentile(&s, 50), 20);
    ASSERT_EQ_I64(samples_percentile(&s, 100), 40);
    ASSERT_EQ_I64(samples_percentile(&s, 0), 10);
    ASSERT_NEAR(samples_mean(&s), 25.0, 1e-9);
    samples_fini(&s);
}

static int test_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

TEST(samples_sort_large_matches_qsort)
{
    /* Large sets take the radix path: compare with qsort on signed, repeated and extreme
     * values. */
    struct lat_samples s;
    const size_t n = 50000;
    ASSERT_RC(samples_init(&s, n));
    int64_t *ref = malloc(n * sizeof(int64_t));
    ASSERT(ref);
    uint64_t st = 99;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_splitmix64(&st);
        int64_t v = i % 7 == 0 ? (int64_t)r : (int64_t)(r % 5000000) - 1000;
        if (i == 10) v = INT64_MIN;
        if (i == 11) v = INT64_MAX;
        ref[i] = v;
        ASSERT_RC(samples_push(&s, v));
    }
    samples_sort(&s);
    qsort(ref, n, sizeof(int64_t), test_cmp_i64);
    ASSERT_MEM_EQ(s.v, ref, n * sizeof(int64_t));
    ASSERT_EQ_I64(samples_percentile(&s, 0), INT64_MIN);
    ASSERT_EQ_I64(samples_percentile(&s, 100), INT64_MAX);
    free(ref);
    samples_fini(&s);
}
