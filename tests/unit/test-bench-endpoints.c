/* test-bench-endpoints.c - the balancing and cancellation policies of bench/endpoints.h, and the
 * option group that sets them. */
#include "test.h"

#include "bench/endpoints.h"

#include <string.h>

TEST(bench_ep_round_robin_cycles)
{
    unsigned turn = 0, count[3] = {0};
    for (int i = 0; i < 300; i++) {
        unsigned p = bench_ep_pick(BENCH_BALANCE_ROUND_ROBIN, NULL, 3, &turn);
        ASSERT(p < 3);
        ASSERT_EQ_U64(p, (unsigned)i % 3); /* in turn, from the rotation's start */
        count[p]++;
    }
    ASSERT_EQ_U64(count[0], 100);
    ASSERT_EQ_U64(count[2], 100);
    /* One endpoint: always 0. A thread starting elsewhere (turn = its offset) starts there. */
    ASSERT_EQ_U64(bench_ep_pick(BENCH_BALANCE_ROUND_ROBIN, NULL, 1, &turn), 0);
    turn = 5;
    ASSERT_EQ_U64(bench_ep_pick(BENCH_BALANCE_ROUND_ROBIN, NULL, 3, &turn), 2);
    ASSERT_EQ_U64(bench_ep_pick(BENCH_BALANCE_ROUND_ROBIN, NULL, 3, &turn), 0);
}

TEST(bench_ep_least_inflight_picks_fewest)
{
    unsigned turn = 0;
    unsigned inflight[4] = {3, 1, 2, 5};
    ASSERT_EQ_U64(bench_ep_pick(BENCH_BALANCE_LEAST_INFLIGHT, inflight, 4, &turn), 1);
    ASSERT_EQ_U64(bench_ep_pick(BENCH_BALANCE_LEAST_INFLIGHT, inflight, 4, &turn), 1);
    inflight[3] = 0;
    ASSERT_EQ_U64(bench_ep_pick(BENCH_BALANCE_LEAST_INFLIGHT, inflight, 4, &turn), 3);
    /* Ties are broken in turn: equal endpoints still alternate. */
    unsigned eq[2] = {0, 0}, count[2] = {0};
    for (int i = 0; i < 10; i++)
        count[bench_ep_pick(BENCH_BALANCE_LEAST_INFLIGHT, eq, 2, &turn)]++;
    ASSERT_EQ_U64(count[0], 5);
    ASSERT_EQ_U64(count[1], 5);
    /* A simulated closed loop: a fast endpoint (done after 1 tick) and a slow one (10 ticks),
     * 4 slots: least-inflight sends most requests to the fast one. */
    unsigned in[2] = {0, 0}, sent[2] = {0};
    int left[4] = {0}, ep[4] = {-1, -1, -1, -1};
    for (int tick = 0; tick < 1000; tick++)
        for (int s = 0; s < 4; s++) {
            if (ep[s] >= 0 && --left[s] > 0) continue;
            if (ep[s] >= 0) in[ep[s]]--;
            ep[s] = (int)bench_ep_pick(BENCH_BALANCE_LEAST_INFLIGHT, in, 2, &turn);
            in[ep[s]]++;
            sent[ep[s]]++;
            left[s] = ep[s] == 0 ? 1 : 10;
        }
    ASSERT_OP_I64(sent[0], >, 5 * sent[1]);
    ASSERT_OP_I64(sent[1], >, 0);
}

TEST(bench_cancel_pick_seeded_share)
{
    /* share 0: never; 1: always */
    for (uint64_t k = 0; k < 100; k++) {
        ASSERT(!bench_cancel_pick(1, k, 0));
        ASSERT(bench_cancel_pick(1, k, 1));
    }
    /* The same (seed, k) always answer the same; the share is kept over many requests; another
     * seed picks other requests. */
    unsigned n = 0, same = 0;
    for (uint64_t k = 0; k < 20000; k++) {
        bool a = bench_cancel_pick(42, k, 0.3);
        ASSERT(a == bench_cancel_pick(42, k, 0.3));
        n += a;
        same += a == bench_cancel_pick(43, k, 0.3);
    }
    ASSERT_OP_I64(n, >, 5600);
    ASSERT_OP_I64(n, <, 6400);
    ASSERT_OP_I64(same, <, 19000);
    /* A smaller share cancels a subset of a larger one's requests (the same hash, a lower bar). */
    for (uint64_t k = 0; k < 1000; k++)
        if (bench_cancel_pick(7, k, 0.2)) ASSERT(bench_cancel_pick(7, k, 0.5));
}

TEST(bench_ep_options)
{
    struct bench_ep_cfg c;
    memset(&c, 0, sizeof(c));
    char why[256];
    enum bench_balance b;
    ASSERT_EQ_I64(bench_balance_parse("least-inflight", &b), 0);
    ASSERT_EQ_I64(b, BENCH_BALANCE_LEAST_INFLIGHT);
    ASSERT_EQ_I64(bench_balance_parse("random", &b), -1);
    ASSERT_EQ_STR(bench_balance_name(BENCH_BALANCE_ROUND_ROBIN), "round-robin");
    /* ids follow the table's rows */
    const struct bench_topt *o = bench_ep_opts + 1;
    ASSERT_EQ_STR(o[0].lname, "endpoint");
    ASSERT_EQ_I64(bench_ep_opt(&c, o[0].id, "http://127.0.0.1:2/", why, sizeof(why)), 0);
    ASSERT_EQ_U64(c.nurls, 1);
    ASSERT_EQ_I64(bench_ep_opt(&c, o[1].id, "fastest", why, sizeof(why)), -1);
    ASSERT(strstr(why, "--balance fastest"));
    ASSERT_EQ_I64(bench_ep_opt(&c, o[2].id, "0", why, sizeof(why)), -1);
    ASSERT_EQ_I64(bench_ep_opt(&c, o[4].id, "1.5", why, sizeof(why)), -1);
    /* --cancel-share alone is refused; a cancel option alone cancels every request */
    ASSERT_EQ_I64(bench_ep_opt(&c, o[4].id, "0.25", why, sizeof(why)), 0);
    ASSERT_EQ_I64(bench_ep_finish(&c, why, sizeof(why)), -1);
    ASSERT_EQ_I64(bench_ep_opt(&c, o[3].id, "8", why, sizeof(why)), 0);
    ASSERT_EQ_I64(bench_ep_finish(&c, why, sizeof(why)), 0);
    ASSERT_NEAR(c.cancel.share, 0.25, 1e-12);
    struct bench_ep_cfg d;
    memset(&d, 0, sizeof(d));
    ASSERT_EQ_I64(bench_ep_opt(&d, o[2].id, "50ms", why, sizeof(why)), 0);
    ASSERT_EQ_I64(d.cancel.after_ns, 50 * LAT_NS_PER_MS);
    ASSERT_EQ_I64(bench_ep_finish(&d, why, sizeof(why)), 0);
    ASSERT_NEAR(d.cancel.share, 1.0, 1e-12);
}
