/* test-stats.c - early stopping (against the LoadGen table), stability rule, SLO parsing and
 * the find-max search. */
#include "test.h"

#include "core/err.h"
#include "hist/hist.h"
#include "stats/earlystop.h"
#include "stats/search.h"
#include "stats/stable.h"

TEST(earlystop_matches_loadgen_table)
{
    /* ../shared/docs/load-testing.md §6: p, h_min(0), h_min(1)+1, h_min(10)+10, h_min(100)+100 */
    const struct {
        double pct;
        uint64_t h0, ss_min, t10, t100;
    } rows[] = {
        {90, 44, 64, 197, 1246},
        {99, 459, 662, 2010, 12571},
        {99.9, 4603, 6636, 20140, 125826},
    };
    for (int i = 0; i < 3; i++) {
        uint64_t h;
        ASSERT_RC(earlystop_h_min(rows[i].pct, 0.99, 0, &h));
        ASSERT_EQ_U64(h, rows[i].h0);
        ASSERT_RC(earlystop_h_min(rows[i].pct, 0.99, 1, &h));
        ASSERT_EQ_U64(h + 1, rows[i].ss_min);
        ASSERT_RC(earlystop_h_min(rows[i].pct, 0.99, 10, &h));
        ASSERT_EQ_U64(h + 10, rows[i].t10);
        ASSERT_RC(earlystop_h_min(rows[i].pct, 0.99, 100, &h));
        ASSERT_EQ_U64(h + 100, rows[i].t100);
    }
}

TEST(earlystop_odds_is_binomial_tail)
{
    /* P[Bin(3, 0.5) >= 2] = 4/8; P[Bin(h, p) >= h] = p^h */
    ASSERT_NEAR(earlystop_odds(2, 1, 50), 0.5, 1e-12);
    ASSERT_NEAR(earlystop_odds(44, 0, 90), 0.00969773, 1e-7);
    ASSERT_NEAR(earlystop_odds(0, 5, 90), 1.0, 0);
    /* P[Bin(10, 0.9) >= 9] = 10 * 0.9^9 * 0.1 + 0.9^10 */
    ASSERT_NEAR(earlystop_odds(9, 1, 90), 10 * 0.387420489 * 0.1 + 0.3486784401, 1e-9);
}

TEST(earlystop_claims_and_more_needed)
{
    struct earlystop_claim c;
    ASSERT_RC(earlystop_check(99, 0.99, 2000, 10, &c));
    ASSERT(!c.pass);
    ASSERT_EQ_U64(c.required_n, 2010);
    ASSERT_EQ_U64(c.more_needed, 10);
    ASSERT_RC(earlystop_check(99, 0.99, 2010, 10, &c));
    ASSERT(c.pass);
    ASSERT_EQ_U64(c.more_needed, 0);
    ASSERT_EQ_I64(earlystop_check(99, 0.99, 5, 6, &c), LAT_E_USAGE);
    ASSERT_EQ_I64(earlystop_check(100, 0.99, 5, 1, &c), LAT_E_USAGE);
    ASSERT_EQ_I64(earlystop_check(99, 1.0, 5, 1, &c), LAT_E_USAGE);

    uint64_t t;
    ASSERT_RC(earlystop_bound_rank(90, 0.99, 63, &t));
    ASSERT_EQ_U64(t, 0);
    ASSERT_RC(earlystop_bound_rank(90, 0.99, 64, &t));
    ASSERT_EQ_U64(t, 1);
    ASSERT_RC(earlystop_bound_rank(90, 0.99, 197, &t));
    ASSERT_EQ_U64(t, 10);
    ASSERT_RC(earlystop_bound_rank(99, 0.99, 12571, &t));
    ASSERT_EQ_U64(t, 100);
    ASSERT_RC(earlystop_bound_rank(99, 0.99, 12570, &t));
    ASSERT_EQ_U64(t, 99);
}

TEST(earlystop_on_histograms)
{
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    for (int i = 1; i <= 197; i++)
        hist_record(&h, i * 1000000LL); /* 1..197 ms */
    int64_t bound;
    uint64_t more;
    ASSERT_RC(earlystop_hist_bound(&h, 90, 0.99, &bound, &more));
    /* t = 10: the 10th largest sample, 188 ms (upper bucket edge) */
    ASSERT_OP_I64(bound, >=, 188000000);
    ASSERT_OP_I64(bound, <, 188200000);
    ASSERT_EQ_U64(earlystop_hist_over(&h, 187500000), 10);
    /* A limit inside the bucket holding the 187 ms sample counts that bucket as over. */
    ASSERT_EQ_U64(earlystop_hist_over(&h, 187000000), 11);
    ASSERT_EQ_U64(earlystop_hist_over(&h, 197000000), 0);
    ASSERT_EQ_U64(earlystop_hist_over(&h, 500000), 197);
    hist_reset(&h);
    for (int i = 0; i < 50; i++)
        hist_record(&h, 1000000);
    ASSERT_EQ_I64(earlystop_hist_bound(&h, 90, 0.99, &bound, &more), LAT_E_TRUNCATED);
    ASSERT_EQ_U64(more, 14);
    hist_fini(&h);
}

TEST(stable_perf_analyzer_rule)
{
    struct lat_stable s;
    stable_init_default(&s);
    ASSERT_EQ_I64(stable_add(&s, 1000, 10.0), STABLE_NOT_YET);
    ASSERT_EQ_I64(stable_add(&s, 1100, 10.0), STABLE_NOT_YET);
    ASSERT_EQ_I64(stable_add(&s, 800, 10.0), STABLE_NOT_YET); /* 1100/800 > 1.1 */
    ASSERT_EQ_I64(stable_add(&s, 850, 10.5), STABLE_NOT_YET); /* 1100 still in the last 3 */
    ASSERT_EQ_I64(stable_add(&s, 870, 10.9), STABLE_YES);     /* 870/800, 10.9/10 within 10 % */
    double t, l;
    stable_last_means(&s, &t, &l);
    ASSERT_NEAR(t, (800 + 850 + 870) / 3.0, 1e-9);
    ASSERT_NEAR(l, (10 + 10.5 + 10.9) / 3.0, 1e-9);
    ASSERT_EQ_I64(stable_add(&s, 1, 1), STABLE_YES); /* final */

    /* exactly 10 % apart is stable (<=) */
    stable_init_default(&s);
    stable_add(&s, 100, 1.0);
    stable_add(&s, 110, 1.1);
    ASSERT_EQ_I64(stable_add(&s, 105, 1.05), STABLE_YES);

    /* zero throughput never stable; latency drifting -> throughput-only after 10 windows */
    stable_init_default(&s);
    ASSERT_EQ_I64(stable_add(&s, 0, 1), STABLE_NOT_YET);
    ASSERT_EQ_I64(stable_add(&s, 0, 1), STABLE_NOT_YET);
    ASSERT_EQ_I64(stable_add(&s, 0, 1), STABLE_NOT_YET);
    enum stable_verdict v = STABLE_NOT_YET;
    for (int i = 0; i < 7; i++)
        v = stable_add(&s, 500, 1.0 + 0.2 * i);
    ASSERT_EQ_I64(v, STABLE_THROUGHPUT_ONLY);
    stable_init_default(&s);
    for (int i = 0; i < 10; i++)
        v = stable_add(&s, i % 2 ? 100 : 300, 1.0);
    ASSERT_EQ_I64(v, STABLE_GAVE_UP);
    ASSERT_EQ_I64(stable_init(&s, 0.1, 4, 3), LAT_E_USAGE);
}

TEST(slo_parse_terms)
{
    struct slo slo;
    const char *why = NULL;
    char buf[64];
    ASSERT_RC(slo_parse("p99<=200ms", &slo, &why));
    ASSERT_EQ_I64(slo.n, 1);
    ASSERT_EQ_STR(slo.t[0].metric, "e2e");
    ASSERT_EQ_I64(slo.t[0].stat, SLO_PCTL);
    ASSERT_NEAR(slo.t[0].pct, 99, 0);
    ASSERT_EQ_I64(slo.t[0].op, SLO_LE);
    ASSERT_EQ_I64(slo.t[0].limit_ns, 200000000);
    ASSERT_EQ_STR(slo_term_format(&slo.t[0], buf, sizeof(buf)), "e2e.p99<=200ms");

    ASSERT_RC(
        slo_parse("ttft.p99.9<2s, tpot.mean<=100, errors<=1%,p50<250us,max<1.5s", &slo, &why));
    ASSERT_EQ_I64(slo.n, 5);
    ASSERT_EQ_STR(slo.t[0].metric, "ttft");
    ASSERT_NEAR(slo.t[0].pct, 99.9, 1e-12);
    ASSERT_EQ_I64(slo.t[0].op, SLO_LT);
    ASSERT_EQ_I64(slo.t[0].limit_ns, 2000000000);
    ASSERT_EQ_STR(slo.t[1].metric, "tpot");
    ASSERT_EQ_I64(slo.t[1].stat, SLO_MEAN);
    ASSERT_EQ_I64(slo.t[1].limit_ns, 100000000); /* bare number = ms */
    ASSERT_EQ_I64(slo.t[2].stat, SLO_ERRORS);
    ASSERT_NEAR(slo.t[2].limit_frac, 0.01, 1e-12);
    ASSERT_EQ_I64(slo.t[3].limit_ns, 250000);
    ASSERT_EQ_STR(slo_term_format(&slo.t[3], buf, sizeof(buf)), "e2e.p50<250us");
    ASSERT_EQ_I64(slo.t[4].stat, SLO_MAX);
    ASSERT_EQ_I64(slo.t[4].limit_ns, 1500000000);
    ASSERT_RC(slo_parse(" p99 <= 200ms , ttft.p50 < 1s", &slo, &why));
    ASSERT_EQ_I64(slo.n, 2);
    ASSERT_EQ_I64(slo.t[0].limit_ns, 200000000);
    ASSERT_EQ_STR(slo.t[1].metric, "ttft");
    ASSERT_EQ_I64(slo.t[1].op, SLO_LT);

    const char *bad[] = {"",          "p99",        "p99<=",     "p100<=1s", "p0<=1s",
                         "q99<=1s",   "p99<=abc",   "p99<=-1ms", "p99<=1s,", "errors<=150%",
                         "Bad.p99<1", "p99<=1s,,x", "p99<=0ms"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        if (slo_parse(bad[i], &slo, &why) != LAT_E_USAGE) FAIL("accepted '%s'", bad[i]);
        ASSERT(why != NULL);
    }
}

TEST(slo_eval_on_histogram_with_confidence)
{
    struct slo slo;
    ASSERT_RC(slo_parse("p99<=100ms", &slo, NULL));
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    double obs;
    uint64_t more;
    ASSERT_EQ_I64(slo_term_eval_hist(&slo.t[0], &h, 0.99, &obs, &more), SLO_UNDECIDED);
    for (int i = 0; i < 1000; i++)
        hist_record(&h, 50000000); /* all 50 ms */
    /* Point estimate passes; 1000 samples with 0 over < h_min(0) = 459? no: 1000 >= 459 */
    ASSERT_EQ_I64(slo_term_eval_hist(&slo.t[0], &h, 0.99, &obs, &more), SLO_PASS);
    for (int i = 0; i < 5; i++)
        hist_record(&h, 150000000); /* 5 over */
    ASSERT_EQ_I64(slo_term_eval_hist(&slo.t[0], &h, 0.0, &obs, &more), SLO_PASS);
    /* 1005 requests with 5 over: LoadGen needs h_min(5) + 5 > 1005 */
    ASSERT_EQ_I64(slo_term_eval_hist(&slo.t[0], &h, 0.99, &obs, &more), SLO_UNDECIDED);
    ASSERT(more > 0);
    struct earlystop_claim c;
    ASSERT_RC(earlystop_check(99, 0.99, 1005 + more, 5, &c));
    ASSERT(c.pass);
    for (int i = 0; i < 20; i++)
        hist_record(&h, 150000000); /* 25 over of 1025: p99 misses */
    ASSERT_EQ_I64(slo_term_eval_hist(&slo.t[0], &h, 0.99, &obs, &more), SLO_FAIL);
    ASSERT(obs > 100e6);
    hist_fini(&h);
}

/* A synthetic server whose SLO holds up to `knee` req/s. */
static int run_search(double start, double knee, double max_rate, double *result)
{
    struct lat_search s;
    if (search_init(&s, start, 1.0, max_rate, 0.02, 40) != 0) FAIL("init");
    int probes = 0;
    while (!search_done(&s)) {
        double r = search_next(&s);
        if (search_feed(&s, r, r <= knee) != 0) FAIL("feed");
        probes++;
    }
    *result = search_result(&s);
    return probes;
}

TEST(search_brackets_then_bisects)
{
    double r;
    int probes = run_search(10, 730, 100000, &r);
    ASSERT(r <= 730);
    ASSERT(r >= 730 / 1.02);
    ASSERT_OP_I64(probes, <=, 15); /* 10..1280 bracket (8) + bisect to 2 % (~6) */
    /* start above the knee: halves down first */
    run_search(5000, 730, 100000, &r);
    ASSERT(r <= 730 && r >= 730 / 1.02);
    /* everything passes: stops at the max */
    run_search(10, 1e9, 4000, &r);
    ASSERT_NEAR(r, 4000, 0);
    /* nothing passes */
    run_search(10, 0.5, 4000, &r);
    ASSERT_NEAR(r, 0, 0);

    struct lat_search s;
    ASSERT_RC(search_init(&s, 100, 1, 1000, 0.05, 3));
    ASSERT_EQ_I64(search_feed(&s, 99, true), LAT_E_USAGE); /* not the rate asked for */
    ASSERT_RC(search_feed(&s, 100, true));
    ASSERT_RC(search_feed(&s, 200, true));
    ASSERT_RC(search_feed(&s, 400, false));
    ASSERT(search_done(&s)); /* step limit */
    ASSERT_NEAR(search_result(&s), 200, 0);
    ASSERT_EQ_I64(s.nsteps, 3);
    ASSERT_EQ_I64(search_init(&s, 0, 1, 10, 0.1, 5), LAT_E_USAGE);
}
