/* test-find-max-conc.c - `bench --find-max --concurrency LO:HI`: the range parser and the
 * whole-number mode of the find-max search (probe sequences worked out by hand). */
#include "test.h"

#include "bench/opts.h"
#include "core/err.h"
#include "stats/search.h"

/* Runs an integer search against a server that holds the SLO up to `knee` (inclusive);
 * writes the probes into seq (at most cap) and returns their number. */
static int int_search(unsigned start, unsigned lo, unsigned hi, double prec, unsigned knee,
                      unsigned *seq, int cap, double *result)
{
    struct lat_search s;
    if (search_init(&s, start, lo, hi, prec, SEARCH_MAX_STEPS) < 0) return -1;
    search_set_integer(&s);
    int n = 0;
    for (double v; (v = search_next(&s)) > 0;) {
        if (n < cap) seq[n] = (unsigned)v;
        n++;
        if (v != (double)(unsigned)v) return -2; /* never a fractional concurrency */
        search_feed(&s, v, v <= knee);
    }
    *result = search_result(&s);
    return n;
}

TEST(find_max_conc_integer_probes)
{
    unsigned seq[SEARCH_MAX_STEPS];
    double r;
    /* knee 4 (e.g. 4 slots): 1 2 4 pass, 8 fails; bisect 6, 5 fail: bracket [4, 5] */
    ASSERT_EQ_I64(int_search(1, 1, 256, 0.05, 4, seq, 64, &r), 6);
    const unsigned want[] = {1, 2, 4, 8, 6, 5};
    for (int i = 0; i < 6; i++)
        ASSERT_EQ_U64(seq[i], want[i]);
    ASSERT_NEAR(r, 4, 0);
    /* knee 100 from 1: 1..128 (8 probes), then 96 p, 112 f, 104 f, 100 p, 102 f, 101 f */
    ASSERT_EQ_I64(int_search(1, 1, 256, 0.0001, 100, seq, 64, &r), 14);
    const unsigned want2[] = {96, 112, 104, 100, 102, 101};
    for (int i = 0; i < 6; i++)
        ASSERT_EQ_U64(seq[8 + i], want2[i]);
    ASSERT_NEAR(r, 100, 0);
    /* a looser precision stops earlier: after 96 p, 112 f, 104 f, 104 - 96 <= 10 % of 96 */
    ASSERT_EQ_I64(int_search(1, 1, 256, 0.1, 100, seq, 64, &r), 11);
    ASSERT_NEAR(r, 96, 0);
    /* start above the knee halves down, rounding down: 50 f, 25 f, 12 f, 6 p, 9 f, 7 p, 8 f */
    ASSERT_EQ_I64(int_search(50, 1, 1024, 0.05, 7, seq, 64, &r), 7);
    const unsigned want3[] = {50, 25, 12, 6, 9, 7, 8};
    for (int i = 0; i < 7; i++)
        ASSERT_EQ_U64(seq[i], want3[i]);
    ASSERT_NEAR(r, 7, 0);
    /* everything passes: doubling stops at HI (not a power of two) */
    ASSERT_EQ_I64(int_search(1, 1, 20, 0.05, 1000, seq, 64, &r), 6); /* 1 2 4 8 16 20 */
    ASSERT_NEAR(r, 20, 0);
    /* even LO fails */
    ASSERT_EQ_I64(int_search(3, 3, 20, 0.05, 2, seq, 64, &r), 1);
    ASSERT_NEAR(r, 0, 0);
    /* halving from 3 with LO 1: 3 f, 1 p, then bisect floor(2) = 2 */
    ASSERT_EQ_I64(int_search(3, 1, 20, 0.05, 2, seq, 64, &r), 3);
    ASSERT_EQ_U64(seq[1], 1);
    ASSERT_EQ_U64(seq[2], 2);
    ASSERT_NEAR(r, 2, 0);
}

TEST(find_max_conc_range_parse)
{
    unsigned st, lo, hi;
    const char *why = NULL;
    ASSERT_RC(bench_parse_conc_range("1:256", &st, &lo, &hi, &why));
    ASSERT_EQ_U64(st, 1);
    ASSERT_EQ_U64(lo, 1);
    ASSERT_EQ_U64(hi, 256);
    ASSERT_RC(bench_parse_conc_range("4:4", &st, &lo, &hi, &why));
    ASSERT_EQ_U64(st, 4);
    ASSERT_EQ_U64(hi, 4);
    ASSERT_RC(bench_parse_conc_range("8", &st, &lo, &hi, &why));
    ASSERT_EQ_U64(st, 8);
    ASSERT_EQ_U64(lo, 1);
    ASSERT_EQ_U64(hi, BENCH_FIND_MAX_CONC);
    ASSERT_RC(bench_parse_conc_range("5000", &st, &lo, &hi, &why));
    ASSERT_EQ_U64(hi, 5000);
    const char *bad[] = {"",      "0",   "0:4", "8:4", "1:64:2", "1:64:x2",  "1,2",
                         "1.5:4", "a:b", "4:",  ":4",  "-1:4",   "1:2000000"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        ASSERT_EQ_I64(bench_parse_conc_range(bad[i], &st, &lo, &hi, &why), LAT_E_USAGE);
        ASSERT(why != NULL);
    }
}
