/* test-bench-shard.c - multi-host bench: the shards' schedules union to exactly the single
 * schedule, load splitting, launcher environments, and `bench merge` exactness. */
#include "test.h"

#include "bench/merge.h"
#include "bench/report.h"
#include "bench/sessions.h"
#include "bench/shard.h"
#include "core/err.h"
#include "hist/hist.h"
#include "stats/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_ns(const void *a, const void *b)
{
    lat_ns x = *(const lat_ns *)a, y = *(const lat_ns *)b;
    return (x > y) - (x < y);
}

/* For N shards of T threads each, the arrivals the engine's slices generate (shard_slice),
 * put together, are exactly the single-process schedule, element by element; and shard k
 * holds exactly the arrivals j with j mod N == k. */
static void check_union(const char *spec_text, uint32_t nshards, uint32_t nthreads)
{
    enum { M = 3000 };
    struct sched_spec sp;
    ASSERT(sched_parse(spec_text, &sp) == 0);
    static lat_ns single[M], merged[M];
    struct lat_sched g;
    ASSERT(sched_init(&g, &sp, 1234.5, 42, 1000000000LL) == 0);
    for (int j = 0; j < M; j++)
        single[j] = sched_next(&g);
    size_t n = 0;
    for (uint32_t k = 0; k < nshards; k++)
        for (uint32_t t = 0; t < nthreads; t++) {
            struct lat_sched s;
            ASSERT(sched_init_slice(&s, &sp, 1234.5, 42, 1000000000LL, shard_slice(k, nshards, t),
                                    nshards * nthreads) == 0);
            /* global index of this slice's m-th arrival: k + N * (t + T * m) */
            for (uint64_t m = 0;; m++) {
                uint64_t j = k + (uint64_t)nshards * (t + (uint64_t)nthreads * m);
                if (j >= M) break;
                lat_ns v = sched_next(&s);
                if (v != single[j])
                    FAIL("%s N=%u T=%u shard %u thread %u: arrival %llu is %lld, single %lld",
                         spec_text, nshards, nthreads, k, t, (unsigned long long)j, (long long)v,
                         (long long)single[j]);
                if (j % nshards != k) FAIL("arrival %llu on shard %u", (unsigned long long)j, k);
                merged[n++] = v;
            }
        }
    ASSERT(n == M);
    qsort(merged, n, sizeof(merged[0]), cmp_ns);
    for (int j = 0; j < M; j++)
        if (merged[j] != single[j]) FAIL("%s: union differs at %d", spec_text, j);
}

TEST(bench_shard_schedule_union_is_exact)
{
    const char *specs[] = {"poisson", "constant", "gamma:0.5", "gamma:4"};
    for (size_t i = 0; i < 4; i++) {
        check_union(specs[i], 1, 1);
        check_union(specs[i], 4, 1);
        check_union(specs[i], 4, 3);
        check_union(specs[i], 3, 2);
        check_union(specs[i], 7, 1);
    }
}

TEST(bench_shard_share_and_split)
{
    /* shares of 10 over 4: 3 3 2 2, summing to 10 */
    uint64_t sum = 0;
    for (uint32_t k = 0; k < 4; k++)
        sum += shard_share(10, k, 4);
    ASSERT(sum == 10 && shard_share(10, 0, 4) == 3 && shard_share(10, 3, 4) == 2);
    ASSERT(shard_share(7, 0, 1) == 7);
    struct bench_shard s = {.index = 1, .count = 4};
    /* closed loop: 10 connections -> 3 for shard 1; requests 101 + warmup 3 */
    struct bench_load l = {.concurrency = 10, .requests = 101, .warmup_requests = 3};
    char why[256];
    ASSERT(shard_split_load(&s, &l, why, sizeof(why)) == 0);
    ASSERT(l.concurrency == 3 && l.shard == 1 && l.nshards == 4);
    /* of the global arrivals 0..103, shard 1 has 1,5,...,101 (26); warmup 0..2 holds one */
    ASSERT_EQ_I64((int64_t)l.warmup_requests, 1);
    ASSERT_EQ_I64((int64_t)l.requests, 25);
    uint64_t total = 0;
    for (uint32_t k = 0; k < 4; k++) {
        struct bench_shard sk = {.index = k, .count = 4};
        struct bench_load lk = {.rate = 100, .requests = 101, .warmup_requests = 3};
        ASSERT(shard_split_load(&sk, &lk, why, sizeof(why)) == 0);
        total += lk.requests;
    }
    ASSERT_EQ_I64((int64_t)total, 101);
    /* too few connections: every shard refuses, naming the last shard */
    struct bench_load few = {.concurrency = 3};
    ASSERT(shard_split_load(&s, &few, why, sizeof(why)) < 0);
    ASSERT(strstr(why, "shard 3") != NULL);
}

static const char *fake_env[16][2];
static const char *fake_getenv(const char *name)
{
    for (int i = 0; i < 16 && fake_env[i][0]; i++)
        if (!strcmp(fake_env[i][0], name)) return fake_env[i][1];
    return NULL;
}

TEST(bench_shard_resolve_launchers)
{
    struct bench_shard s;
    char why[256];
    memset(&s, 0, sizeof(s));
    ASSERT(shard_resolve(&s, "2/5", fake_getenv, why, sizeof(why)) == 0);
    ASSERT(s.index == 2 && s.count == 5);
    ASSERT(shard_resolve(&s, "5/5", fake_getenv, why, sizeof(why)) < 0);
    ASSERT(shard_resolve(&s, "x/5", fake_getenv, why, sizeof(why)) < 0);
    ASSERT(shard_resolve(&s, "1/0", fake_getenv, why, sizeof(why)) < 0);
    ASSERT(shard_resolve(&s, "auto", fake_getenv, why, sizeof(why)) < 0);
    ASSERT(strstr(why, "no launcher") != NULL);
    memset(fake_env, 0, sizeof(fake_env));
    fake_env[0][0] = "SLURM_PROCID", fake_env[0][1] = "3";
    fake_env[1][0] = "SLURM_NTASKS", fake_env[1][1] = "8";
    ASSERT(shard_resolve(&s, "auto", fake_getenv, why, sizeof(why)) == 0);
    ASSERT(s.index == 3 && s.count == 8 && strstr(s.source, "SLURM_PROCID"));
    memset(fake_env, 0, sizeof(fake_env));
    fake_env[0][0] = "JOB_COMPLETION_INDEX", fake_env[0][1] = "1";
    ASSERT(shard_resolve(&s, "auto", fake_getenv, why, sizeof(why)) < 0); /* no size */
    ASSERT(strstr(why, "LATSCOPE_SHARDS") != NULL);
    ASSERT(shard_resolve(&s, "auto/4", fake_getenv, why, sizeof(why)) == 0);
    ASSERT(s.index == 1 && s.count == 4);
    fake_env[1][0] = "LATSCOPE_SHARDS", fake_env[1][1] = "6";
    ASSERT(shard_resolve(&s, "auto", fake_getenv, why, sizeof(why)) == 0);
    ASSERT(s.index == 1 && s.count == 6);
    memset(fake_env, 0, sizeof(fake_env));
    fake_env[0][0] = "OMPI_COMM_WORLD_RANK", fake_env[0][1] = "4";
    fake_env[1][0] = "OMPI_COMM_WORLD_SIZE", fake_env[1][1] = "4";
    ASSERT(shard_resolve(&s, "auto", fake_getenv, why, sizeof(why)) < 0); /* index >= size */
    memset(fake_env, 0, sizeof(fake_env));
}

TEST(bench_shard_opts)
{
    struct bench_shard s;
    char why[256];
    shard_init(&s);
    ASSERT(s.count == 1 && !s.active);
    ASSERT(shard_opt(&s, SHARD_OPT_SHARD, "1/2", why, sizeof(why)) == 0);
    ASSERT(shard_opt(&s, SHARD_OPT_START_AT, "1900000000.5", why, sizeof(why)) == 0);
    ASSERT(shard_opt(&s, SHARD_OPT_MPI, NULL, why, sizeof(why)) == 0);
    ASSERT(s.shard_arg && !strcmp(s.shard_arg, "1/2") && s.mpi && s.have_start_at && s.active);
    ASSERT(s.start_at_unix_ns == 1900000000500000000LL);
    ASSERT(shard_opt(&s, SHARD_OPT_START_AT, "soon", why, sizeof(why)) < 0);
    ASSERT(strstr(why, "--start-at") != NULL);
    /* the rows of the group: a heading, then --shard, --start-at, --mpi */
    ASSERT(!bench_shard_opts[0].lname && bench_shard_opts[0].help);
    ASSERT(!strcmp(bench_shard_opts[1].lname, "shard") && bench_shard_opts[1].arg);
    ASSERT(!strcmp(bench_shard_opts[3].lname, "mpi") && !bench_shard_opts[3].arg);
}

/* One shard's JSON, rendered by the real writer, with latencies vals[k + N * i]. */
static char *shard_json(const int64_t *vals, size_t n, uint32_t k, uint32_t nshards, bool valid,
                        size_t *len)
{
    struct bench_point p;
    memset(&p, 0, sizeof(p));
    p.ran = true;
    p.load.rate = 1000;
    struct bench_result *r = &p.res;
    ASSERT(hist_init_default(&r->lat) == 0 && hist_init_default(&r->lat_actual) == 0 &&
           hist_init_default(&r->send_lag) == 0 && hist_init_default(&r->loop_lag) == 0 &&
           hist_init_default(&r->ttfb) == 0);
    for (size_t i = k; i < n; i += nshards) {
        hist_record(&r->lat, vals[i]);
        hist_record(&r->lat_actual, vals[i] / 2 + 1000);
        hist_record(&r->send_lag, (int64_t)(i % 97) * 1000);
        r->ok++;
    }
    r->errors[BENCH_ERR_TIMEOUT] = k;
    r->errors_total = k;
    r->duration_s = 2.0;
    r->achieved_rps = (double)r->ok / 2.0;
    r->valid = valid;
    if (!valid) snprintf(r->invalid_reason, sizeof(r->invalid_reason), "send-lag p99 too high");
    r->t0_ns = 5000000000LL;
    r->t0_unix_ns = 1800000000000000000LL + (lat_ns)k * 1000000; /* 1 ms apart */
    r->window_start_ns = r->t0_ns + (lat_ns)k * 1000; /* warmup-free: window at t0 (+k us) */
    r->have_window = true;
    struct bench_shard sh = {.active = true, .index = k, .count = nshards};
    snprintf(sh.source, sizeof(sh.source), "--shard");
    struct bench_run run = {.target = "http",
                            .url = "http://x/",
                            .mode = "open",
                            .arrival = "poisson",
                            .threads = 1,
                            .points = &p,
                            .npoints = 1,
                            .best_point = -1,
                            .shard = &sh};
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ASSERT(f && bench_report_json(f, &run) == 0);
    fclose(f);
    bench_result_fini(r);
    return buf;
}

TEST(bench_merge_percentiles_equal_one_histogram)
{
    enum { N = 20000, S = 4 };
    static int64_t vals[N];
    uint64_t x = 88172645463325252ULL;
    struct lat_hist one;
    ASSERT(hist_init_default(&one) == 0);
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* heavy tail: 50 us .. ~2 s */
        vals[i] = 50000 + (int64_t)(x % 1000000) * (int64_t)((x >> 40) % 64 == 0 ? 2000 : 3);
        hist_record(&one, vals[i]);
    }
    char *docs[S];
    size_t lens[S];
    const char *names[S] = {"s2.json", "s0.json", "s3.json", "s1.json"};
    /* given out of order: merge sorts by shard index */
    const uint32_t order[S] = {2, 0, 3, 1};
    for (int i = 0; i < S; i++)
        docs[i] = shard_json(vals, N, order[i], S, order[i] != 3, &lens[i]);
    struct bench_merged m;
    char err[512] = "";
    int rc = bench_merge_docs(&m, (const char *const *)docs, lens, names, S, err, sizeof(err));
    if (rc) FAIL("merge: %s", err);
    ASSERT(m.run.npoints == 1 && m.run.dist && m.run.dist->nshards == S);
    const struct bench_result *r = &m.run.points[0].res;
    ASSERT_EQ_I64((int64_t)r->ok, N);
    ASSERT_EQ_I64((int64_t)r->errors[BENCH_ERR_TIMEOUT], 0 + 1 + 2 + 3);
    ASSERT_EQ_I64((int64_t)hist_count(&r->lat), N);
    ASSERT_EQ_I64(hist_min(&r->lat), hist_min(&one));
    ASSERT_EQ_I64(hist_max(&r->lat), hist_max(&one));
    const double pcts[] = {0, 1, 10, 50, 90, 95, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        ASSERT_EQ_I64(hist_value_at_percentile(&r->lat, pcts[i]),
                      hist_value_at_percentile(&one, pcts[i]));
    ASSERT(hist_mean(&r->lat) == hist_mean(&one));
    /* shard 3 was INVALID: so is the merged point, naming it */
    ASSERT(!r->valid && strstr(r->invalid_reason, "shard 3") != NULL);
    ASSERT(m.run.points[0].nshards == S && m.run.points[0].shards[3].index == 3 &&
           !m.run.points[0].shards[3].valid);
    /* t0s 0..3 ms apart: that is the start skew; the window is the schedule's, 2 s */
    ASSERT(m.dist.max_start_skew_ms > 2.999 && m.dist.max_start_skew_ms < 3.001);
    /* the union of [k us, k us + 2 s] on the schedule axis: 2 s + 3 us */
    ASSERT(r->duration_s > 2.000003 - 1e-9 && r->duration_s < 2.000003 + 1e-9);
    ASSERT(r->have_window && r->window_start_ns == 0 && r->t0_unix_ns == 1800000000000000000LL);
    bench_merged_fini(&m);
    /* a shard missing, and a shard twice */
    rc = bench_merge_docs(&m, (const char *const *)docs, lens, names, 3, err, sizeof(err));
    ASSERT(rc != 0 && strstr(err, "shards of 4") != NULL);
    bench_merged_fini(&m);
    char *dup[S] = {docs[0], docs[0], docs[1], docs[2]};
    size_t duplen[S] = {lens[0], lens[0], lens[1], lens[2]};
    rc = bench_merge_docs(&m, (const char *const *)dup, duplen, names, S, err, sizeof(err));
    ASSERT(rc != 0 && strstr(err, "both shard") != NULL);
    bench_merged_fini(&m);
    /* not JSON */
    const char *bad[1] = {"{\"points\": [ {"};
    size_t badlen[1] = {strlen(bad[0])};
    rc = bench_merge_docs(&m, bad, badlen, names, 1, err, sizeof(err));
    ASSERT(rc != 0 && strstr(err, "s2.json") != NULL);
    bench_merged_fini(&m);
    for (int i = 0; i < S; i++)
        free(docs[i]);
    hist_fini(&one);
}

/* A --sessions shard's JSON (the real writers) whose turn-k requests have TTFT vals[i] and
 * E2E 2 * vals[i] for the i of this shard (i % nshards == k), ISL 100 + 10 * turn; also
 * recorded into *one (the whole load in one process). */
static char *sess_shard_json(const int64_t *vals, size_t n, uint32_t k, uint32_t nshards,
                             struct llm_sess_stats *one, size_t *len)
{
    struct bench_sess bs;
    memset(&bs, 0, sizeof(bs));
    bs.think_ns = -1;
    bs.S.n = 7;
    bs.th[0] = malloc(sizeof(*bs.th[0]));
    ASSERT(bs.th[0] && llm_sess_stats_init(bs.th[0]) == 0);
    for (size_t i = k; i < n; i += nshards) {
        size_t turn = i % 11; /* turns 1..11: three of them beyond the listed 8 */
        bool ok = i % 13 != 0;
        llm_sess_stats_turn(bs.th[0], turn, ok, vals[i], 2 * vals[i], 100 + 10 * (int64_t)turn);
        llm_sess_stats_turn(one, turn, ok, vals[i], 2 * vals[i], 100 + 10 * (int64_t)turn);
        if (turn == 0) bs.th[0]->started++, one->started++;
        if (turn == 10) {
            bs.th[0]->completed++, one->completed++;
            hist_record(&bs.th[0]->duration, 11 * vals[i]);
            hist_record(&one->duration, 11 * vals[i]);
        }
    }
    struct bench_point p;
    memset(&p, 0, sizeof(p));
    p.ran = true;
    p.load.concurrency = 4;
    struct bench_result *r = &p.res;
    ASSERT(hist_init_default(&r->lat) == 0 && hist_init_default(&r->lat_actual) == 0 &&
           hist_init_default(&r->send_lag) == 0 && hist_init_default(&r->loop_lag) == 0 &&
           hist_init_default(&r->ttfb) == 0);
    r->valid = true;
    p.sessions = bench_sess_point(&bs);
    ASSERT(p.sessions != NULL);
    struct bench_shard sh = {.active = true, .index = k, .count = nshards};
    struct bench_run run = {.target = "openai",
                            .url = "http://x/",
                            .mode = "closed",
                            .threads = 1,
                            .points = &p,
                            .npoints = 1,
                            .best_point = -1,
                            .shard = &sh};
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ASSERT(f && bench_report_json(f, &run) == 0);
    fclose(f);
    bench_result_fini(r);
    bench_sess_point_free(p.sessions);
    bench_sess_fini(&bs);
    return buf;
}

static void same_row(const struct bench_sess_row *a, const struct bench_sess_row *b)
{
    ASSERT_EQ_U64(a->n, b->n);
    ASSERT_EQ_U64(a->ok, b->ok);
    ASSERT(a->ttft.have == b->ttft.have && a->e2e.have == b->e2e.have);
    /* percentiles and means of one histogram of every shard's values: bit for bit */
    ASSERT(a->ttft.p50 == b->ttft.p50 && a->ttft.p99 == b->ttft.p99);
    ASSERT(a->e2e.p50 == b->e2e.p50 && a->e2e.p99 == b->e2e.p99);
    ASSERT_NEAR(a->ttft.mean, b->ttft.mean, 1e-6 * b->ttft.mean);
    ASSERT_NEAR(a->e2e.mean, b->e2e.mean, 1e-6 * b->e2e.mean);
    ASSERT(a->isl_mean == b->isl_mean && a->isl_n == b->isl_n);
}

TEST(bench_merge_sessions_rows_equal_one_process)
{
    enum { N = 6000, S = 3 };
    static int64_t vals[N];
    uint64_t x = 0x2545F4914F6CDD1DULL;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* per shard a different spread: 1 ms .. 1 s, heavy tail on shard 2 */
        vals[i] = 1000000 + (int64_t)(x % 5000000) * (i % S == 2 ? 40 : 1);
    }
    struct llm_sess_stats one;
    ASSERT(llm_sess_stats_init(&one) == 0);
    char *docs[S];
    size_t lens[S];
    const char *names[S] = {"a.json", "b.json", "c.json"};
    for (uint32_t k = 0; k < S; k++)
        docs[k] = sess_shard_json(vals, N, k, S, &one, &lens[k]);
    /* the whole load as one process would report it */
    struct bench_sess whole;
    memset(&whole, 0, sizeof(whole));
    whole.think_ns = -1;
    whole.S.n = 7;
    whole.th[0] = malloc(sizeof(*whole.th[0]));
    ASSERT(whole.th[0] && llm_sess_stats_init(whole.th[0]) == 0);
    ASSERT(llm_sess_stats_add(whole.th[0], &one) == 0);
    struct bench_sess_point *w = bench_sess_point(&whole);
    ASSERT(w != NULL);
    struct bench_merged m;
    char err[512] = "";
    int rc = bench_merge_docs(&m, (const char *const *)docs, lens, names, S, err, sizeof(err));
    if (rc) FAIL("merge: %s", err);
    const struct bench_sess_point *g = m.run.points[0].sessions;
    ASSERT(g != NULL && !g->not_mergeable);
    ASSERT_EQ_STR(g->history, "server");
    ASSERT_EQ_U64(g->in_file, 7);
    ASSERT_EQ_U64(g->started, w->started);
    ASSERT_EQ_U64(g->completed, w->completed);
    ASSERT_EQ_U64(g->turns_beyond, w->turns_beyond);
    ASSERT(g->turns_beyond > 0);
    ASSERT_EQ_U64(g->nturns, 8);
    for (unsigned k = 0; k < 8; k++)
        same_row(&g->turn[k], &w->turn[k]);
    same_row(&g->later, &w->later);
    ASSERT(g->dur.have && g->dur.p50 == w->dur.p50 && g->dur.p99 == w->dur.p99);
    ASSERT_NEAR(g->dur.mean, w->dur.mean, 1e-6 * w->dur.mean);
    /* shard 2's tail decides p99: far above the other shards' (no average of percentiles) */
    ASSERT(g->turn[0].ttft.p99 > 10 * 6e6);
    bench_merged_fini(&m);
    /* a different --history: refused */
    char *bad = malloc(lens[1] + 8);
    ASSERT(bad);
    memcpy(bad, docs[1], lens[1] + 1);
    char *h = strstr(bad, "\"history\":\"server\"");
    if (!h) h = strstr(bad, "\"history\": \"server\"");
    ASSERT(h != NULL);
    memcpy(strstr(h, "server"), "sarver", 6);
    const char *bd[S] = {docs[0], bad, docs[2]};
    rc = bench_merge_docs(&m, bd, lens, names, S, err, sizeof(err));
    ASSERT(rc == LAT_E_USAGE && strstr(err, "b.json") != NULL && strstr(err, "--history") != NULL);
    bench_merged_fini(&m);
    free(bad);
    bench_sess_point_free(w);
    bench_sess_fini(&whole);
    llm_sess_stats_fini(&one);
    for (int i = 0; i < S; i++)
        free(docs[i]);
}
