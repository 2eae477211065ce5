/*
 * test-bench-srvprof.c - unit tests of bench/srvprof.c (bench --server-pid) on hand-built
 * samples and records, without the sampler: the records' base becomes the trace's ts 0, the
 * samples in each request's window, the ones outside every window and in more than one, the
 * slow/fast sides and the function whose share rises, and the samples of a Python thread that
 * came without their Python frames left out.
 */
#include "test.h"

#include "bench/srvprof.h"
#include "core/err.h"
#include "model/events.h"

#define MS (1000 * 1000LL)
#define T0 (1000 * MS) /* CLOCK_MONOTONIC of the records' base: 1 s */

static uint32_t str(struct lat_trace *t, const char *s)
{
    uint32_t id;
    if (lat_trace_intern(t, s, strlen(s), &id)) FAIL("intern");
    return id;
}

/* One on-CPU sample at trace time ts (ns from T0) on thread tid. */
static void sample(struct lat_trace *t, int64_t tid, lat_ns ts, const char *stack)
{
    struct lat_cpu_ids ids;
    ASSERT_RC(lat_cpu_ids_init(t, &ids));
    struct lat_cpu_sample s = {.ts = ts, .stack = str(t, stack), .leaf = str(t, "leaf")};
    ASSERT_RC(lat_trace_track(t, 100, tid, 0, 0, false, &s.track));
    ASSERT_RC(lat_trace_add_cpu_sample(t, &ids, &s, UINT32_MAX, NULL));
}

static const char WORK[] = "main;py:handle (app.py:10);py:work (app.py:30)";
static const char SLOW1[] = "main;py:handle (app.py:11);py:slow (app.py:20)";
static const char SLOW2[] = "main;py:handle (app.py:11);py:slow (app.py:21)";

/* 20 sequential requests 30 ms apart, every 5th slow (20 ms: 4 ms of work, then slow()), the
 * others 5 ms of work, one sample per ms from 1 ms into each window; then two fast requests
 * whose windows overlap by 2 ms, and 3 samples of another thread outside every window. */
static void build(struct lat_trace *t, struct bench_record *rec, size_t *nrec)
{
    size_t n = 0;
    for (int i = 0; i < 20; i++) {
        lat_ns a = i * 30 * MS, len = i % 5 == 4 ? 20 * MS : 5 * MS;
        rec[n++] = (struct bench_record){T0 + a, T0 + a, T0 + a + MS, T0 + a + len, 3, 200, -1, 0};
        for (lat_ns k = 1; k * MS < len; k++)
            sample(t, 7, a + k * MS, len == 5 * MS || k <= 4 ? WORK : k % 2 ? SLOW1 : SLOW2);
    }
    rec[n++] = (struct bench_record){T0 + 700 * MS, T0 + 700 * MS, 0, T0 + 705 * MS, 3, 200, -1, 0};
    rec[n++] = (struct bench_record){T0 + 703 * MS, T0 + 703 * MS, 0, T0 + 708 * MS, 3, 200, -1, 0};
    for (int k = 701; k <= 707; k++)
        sample(t, 7, k * MS, WORK);
    /* a failed request: no window */
    rec[n++] = (struct bench_record){T0 + 800 * MS, T0 + 800 * MS, 0, T0 + 900 * MS, 0, 0, 2, 0};
    for (int k = 1000; k < 1003; k++)
        sample(t, 8, k * MS, "main;idle"); /* a native thread: kept */
    /* thread 7 without its Python frames (read too late): left out */
    sample(t, 7, 120 * MS + MS / 2, "main;_PyEval_EvalFrameDefault");
    *nrec = n;
}

TEST(srvprof_slow_fast)
{
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    struct bench_record rec[32];
    struct bench_result res;
    memset(&res, 0, sizeof(res));
    build(t, rec, &res.nrecords);
    res.records = rec;
    res.t_first_sched = T0;
    struct srvprof_cfg cfg = {.pid = 100, .freq_hz = 1000, .slow_ns = 15 * MS};
    struct srvprof_result r;
    ASSERT_RC(srvprof_analyze_trace(t, &cfg, &res, &r));
    ASSERT(r.have);
    ASSERT_EQ_I64(r.t0_ns, T0);
    ASSERT_EQ_U64(r.requests, 22);
    ASSERT_EQ_U64(r.samples_total, 16 * 4 + 4 * 19 + 7 + 3 + 1);
    ASSERT_EQ_U64(r.samples_unread, 1);
    ASSERT_EQ_U64(r.samples_in_windows, 16 * 4 + 4 * 19 + 7 + 1); /* the unread one too */
    ASSERT_EQ_U64(r.samples_ambiguous, 2);                        /* 703 and 704 ms */
    ASSERT_EQ_U64(r.samples_python, 16 * 4 + 4 * 19 + 7);
    ASSERT_EQ_U64(r.threads, 2);
    ASSERT_NEAR(r.p50_ms, 5.0, 1e-9);
    ASSERT_NEAR(r.slow_ms, 15.0, 1e-9);
    ASSERT_EQ_U64(r.slow.requests, 4);
    ASSERT_EQ_U64(r.fast.requests, 18);
    ASSERT_EQ_U64(r.slow.samples, 4 * 19);     /* the table's: not the unread one */
    ASSERT_EQ_U64(r.fast.samples, 16 * 4 + 7); /* the shared two once */
    ASSERT_NEAR(r.slow.lat_mean_ms, 20.0, 1e-9);
    ASSERT_NEAR(r.slow.oncpu_ms, (4 * 19 + 1) / 4.0, 1e-9); /* on-CPU time: the unread one too */
    ASSERT_NEAR(r.fast.oncpu_ms, (16 * 4 + 4 + 5) / 18.0, 1e-9);
    ASSERT_NEAR(r.fast.first_sample_ms, 17 / 18.0, 1e-9); /* the second overlapped: 0 ms */
    /* slow() merged across its lines, first, 0 % -> 60 / 76 of the slow side */
    ASSERT(r.cmp.ncpu > 0);
    ASSERT_EQ_STR(r.cmp.cpu[0].name, "py:slow (app.py)");
    ASSERT_EQ_U64(r.cmp.cpu[0].total[0], 0);
    ASSERT_EQ_U64(r.cmp.cpu[0].total[1], 60);
    ASSERT(r.cmp.cpu[0].ci_total.have);
    ASSERT_NEAR(r.cmp.cpu[0].ci_total.est, 60 / 76.0, 1e-9);
    ASSERT(r.cmp.cpu[0].ci_total.lo > 0.5 && r.cmp.cpu[0].ci_total.hi < 0.9);
    /* work() loses share: last by change */
    ASSERT_EQ_STR(r.cmp.cpu[r.cmp.ncpu - 1].name, "py:work (app.py)");
    srvprof_result_fini(&r);

    /* The default slow side: p99 of 22 requests is the slowest (20 ms) */
    cfg.slow_ns = 0;
    ASSERT_RC(srvprof_analyze_trace(t, &cfg, &res, &r));
    ASSERT(r.have);
    ASSERT_EQ_STR(r.slow_rule, "p99");
    ASSERT_EQ_U64(r.slow.requests, 4);
    srvprof_result_fini(&r);

    /* A threshold no request reaches: no comparison, and a sentence why */
    cfg.slow_ns = 50 * MS;
    ASSERT_RC(srvprof_analyze_trace(t, &cfg, &res, &r));
    ASSERT(!r.have && r.why);
    ASSERT_EQ_U64(r.cmp.ncpu, 0);
    srvprof_result_fini(&r);

    /* A threshold below the median: no comparison, the sides still counted */
    cfg.slow_ns = 3 * MS;
    ASSERT_RC(srvprof_analyze_trace(t, &cfg, &res, &r));
    ASSERT(!r.have && r.why && strstr(r.why, "p50"));
    ASSERT_EQ_U64(r.slow.requests, 22);
    ASSERT_EQ_U64(r.slow.samples, 16 * 4 + 4 * 19 + 7);
    srvprof_result_fini(&r);

    /* Too few requests */
    res.nrecords = 3;
    ASSERT_RC(srvprof_analyze_trace(t, &cfg, &res, &r));
    ASSERT(!r.have && r.why);
    srvprof_result_fini(&r);
    lat_trace_free(t);
}

TEST(srvprof_no_samples)
{
    /* A process that never ran during the requests (or a wrong --server-pid): no comparison,
     * a reason, no crash on the empty sample set. */
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    struct bench_record rec[8];
    for (int i = 0; i < 8; i++) {
        lat_ns a = T0 + i * 10 * MS, len = (i == 7 ? 9 : 2) * MS;
        rec[i] = (struct bench_record){a, a, a + MS, a + len, 3, 200, -1, 0};
    }
    struct bench_result res;
    memset(&res, 0, sizeof(res));
    res.records = rec;
    res.nrecords = 8;
    res.t_first_sched = T0;
    struct srvprof_cfg cfg = {.pid = 1};
    struct srvprof_result r;
    ASSERT_RC(srvprof_analyze_trace(t, &cfg, &res, &r));
    ASSERT(!r.have && r.why);
    ASSERT_EQ_U64(r.samples_total, 0);
    ASSERT_EQ_U64(r.slow.requests, 1);
    ASSERT_EQ_U64(r.slow.samples, 0);
    srvprof_result_fini(&r);
    lat_trace_free(t);
}
