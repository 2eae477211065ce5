/* test-doctor-service.c - doctor's service rules (doctor/service.c) on hand-made load points:
 * each rule's positive and negative case. The real Nagle server and the fixture are in
 * tests/e2e/t830, t831. */
#include "test.h"

#include "doctor/doctor.h"
#include "doctor/service.h"
#include "hist/hist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct doc_svc_point point(double p50, double p99, double ttfb50)
{
    struct doc_svc_point p = {.load = "concurrency 1", .valid = true, .why = "", .ok = 5000};
    p.lat_p50 = p.lat_mean = p50;
    p.lat_p99 = p99;
    p.ttfb_p50 = p.ttfb_p99 = ttfb50;
    p.send_lag_p99 = 0.01;
    p.client_cpu_pct = 20;
    p.max_thread_busy_pct = 20;
    p.inflight_cap_hits = 0;
    p.concurrency = 1;
    p.rate = p.duration_s = p.connect_max_ms = NAN;
    p.achieved_rps = 100;
    p.stale_retries = p.slow_connects = p.listen_overflows = p.listen_drops = 0;
    p.err_connect = p.err_timeout = p.err_reset = p.err_4xx = p.err_5xx = 0;
    return p;
}

/* The ids of the findings on one point, comma separated. */
static void runn(const struct doc_svc_point *p, size_t n_pts, char *ids, size_t n)
{
    struct doc_report *r = NULL;
    ASSERT(doctor_report_new(&r) == 0);
    struct doc_svc_run run = {.path = "handmade-bench.json",
                              .target = "http",
                              .mode = "closed",
                              .threads = 2,
                              .fm_max_rate = NAN,
                              .fm_lowest_failing_rate = NAN,
                              .pts = p,
                              .npts = n_pts};
    ASSERT(doctor_run_service(r, &run) == 0);
    doctor_rank(r);
    ids[0] = 0;
    for (size_t i = 0; i < r->n; i++)
        snprintf(ids + strlen(ids), n - strlen(ids), "%s%s", i ? "," : "", r->f[i].id);
    ASSERT(r->ntraces == 1 && r->traces[0].service && r->traces[0].judged);
    doctor_report_free(r);
}

static void run1(const struct doc_svc_point *p, char *ids, size_t n)
{
    runn(p, 1, ids, n);
}

TEST(doctor_service_nagle)
{
    struct lat_hist h;
    ASSERT(hist_init_default(&h) == 0);
    for (int i = 0; i < 100; i++)
        hist_record(&h, 44000000 + i * 10000); /* 44..45 ms */
    struct doc_svc_point p = point(44.5, 45.0, 0.5);
    p.lat_hist = &h;
    char ids[256];
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "nagle-delayed-ack") == 0);
    /* first byte late too: the server is slow, not the ACK */
    p.ttfb_p50 = 40.0;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    /* 44 ms but no histogram: not judged, no finding */
    p.ttfb_p50 = 0.5;
    p.lat_hist = NULL;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    /* a 20 ms service: not the quantum */
    hist_reset(&h);
    for (int i = 0; i < 100; i++)
        hist_record(&h, 20000000);
    p = point(20.0, 20.5, 0.5);
    p.lat_hist = &h;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    hist_fini(&h);
}

TEST(doctor_service_client_limited)
{
    char ids[256];
    struct doc_svc_point p = point(2.0, 3.0, 1.9);
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    p.send_lag_p99 = 10.0; /* sent 10 ms late against 3 ms of latency */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "client-limited") == 0);
    /* the same lag with sends held by --max-inflight: the server's queue, not the client */
    p.inflight_cap_hits = 120;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    p = point(2.0, 3.0, 1.9);
    p.max_thread_busy_pct = 99.0;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "client-limited") == 0);
    p = point(2.0, 3.0, 1.9);
    p.valid = false;
    p.invalid_client = true;
    p.why = "send lag";
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "client-limited") == 0);
}

TEST(doctor_service_tail)
{
    char ids[256];
    struct doc_svc_point p = point(2.0, 30.0, 1.9);
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "tail-amplification") == 0);
    p = point(2.0, 15.0, 1.9); /* 7.5x: under the ratio */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    p = point(0.04, 0.5, 0.03); /* 12x but half a millisecond: noise */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    p = point(2.0, 30.0, 1.9);
    p.ok = 100; /* too few requests for a p99 */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
}

TEST(doctor_service_backlog)
{
    char ids[256];
    struct doc_svc_point p = point(1.0, 1.5, 0.9);
    p.listen_overflows = p.listen_drops = 12; /* the host's counters alone: not this run's */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    p = point(1.0, 1500.0, 0.9);
    p.ok = 200;
    p.lat_mean = 40.0;
    p.slow_connects = 3;
    p.connect_max_ms = 1030.0;
    p.send_lag_p99 = 1020.0; /* the wait for the connect: the server's, not the client's */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "listen-backlog") == 0);
}

TEST(doctor_service_keepalive)
{
    char ids[256];
    struct doc_svc_point p = point(1.0, 1.5, 0.9);
    p.stale_retries = 20; /* 0.4 %: under the share */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    p.stale_retries = 500; /* one per 10 requests */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "keepalive-churn") == 0);
    p.stale_retries = 0;
    p.server_closes = 5000; /* "Connection: close" on every response */
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "keepalive-churn") == 0);
    p.server_closes = 4;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
}

static void fill_slices(struct doc_svc_slice *s, size_t n, double p50)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (struct doc_svc_slice){
            0.25 * (double)i, 0.25 * (double)(i + 1), 200, 0, p50, p50 * 1.5, p50 * 2};
}

TEST(doctor_service_slices)
{
    char ids[256];
    struct doc_svc_slice s[20];
    struct doc_svc_point p = point(1.0, 1.8, 0.9);
    p.slices = s;
    p.nslices = 20;
    fill_slices(s, 20, 1.0);
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    /* warm-up: the first three windows at 20 ms */
    for (int i = 0; i < 3; i++)
        s[i].lat_p50 = 20.0, s[i].lat_p99 = 22.0, s[i].lat_max = 25.0;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "warm-up") == 0);
    /* slow all along the first half: not a transient */
    for (int i = 0; i < 10; i++)
        s[i].lat_p50 = 20.0;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    /* a 150 ms stall every 4 windows (1 s) */
    fill_slices(s, 20, 1.0);
    for (int i = 2; i < 20; i += 4)
        s[i].lat_max = 150.0;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "periodic-stalls") == 0);
    /* four stalls at irregular times: not periodic */
    fill_slices(s, 20, 1.0);
    s[1].lat_max = s[3].lat_max = s[11].lat_max = s[18].lat_max = 150.0;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
    /* errors: 100 in two adjacent windows, then 100 spread one per window */
    fill_slices(s, 20, 1.0);
    s[6].errors = s[7].errors = 50;
    p.errors = 100;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "error-burst") == 0);
    fill_slices(s, 20, 1.0);
    for (int i = 0; i < 20; i++)
        s[i].errors = 5;
    run1(&p, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
}

TEST(doctor_service_knee)
{
    char ids[256];
    /* a 2-worker pool of 10 ms: c=1,2 at 10 ms; c=4,8 queue at the 200 req/s capacity */
    struct doc_svc_point p[4];
    const double c[4] = {1, 2, 4, 8}, lat[4] = {10, 10, 20, 40}, x[4] = {100, 200, 200, 200};
    for (int i = 0; i < 4; i++) {
        p[i] = point(lat[i], lat[i] * 1.2, lat[i]);
        p[i].concurrency = c[i];
        p[i].achieved_rps = x[i];
    }
    struct doc_report *r = NULL;
    ASSERT(doctor_report_new(&r) == 0);
    struct doc_svc_run run = {.path = "handmade-sweep.json",
                              .target = "http",
                              .mode = "closed",
                              .threads = 2,
                              .fm_max_rate = NAN,
                              .fm_lowest_failing_rate = NAN,
                              .pts = p,
                              .npts = 4};
    ASSERT(doctor_run_service(r, &run) == 0);
    ASSERT(r->n == 1 && strcmp(r->f[0].id, "queueing-knee") == 0);
    ASSERT(r->f[0].severity == DOC_SEV_INFO);
    double workers = NAN, knee = NAN;
    for (size_t k = 0; k < r->f[0].nkv; k++) {
        if (!strcmp(r->f[0].kv[k].key, "implied_workers")) workers = r->f[0].kv[k].num;
        if (!strcmp(r->f[0].kv[k].key, "knee_load")) knee = r->f[0].kv[k].num;
    }
    ASSERT(fabs(workers - 2.0) < 1e-9 && knee == 4);
    doctor_report_free(r);
    /* no departure from the service time: no knee */
    for (int i = 0; i < 4; i++)
        p[i].lat_p50 = 10.0, p[i].achieved_rps = 100 * c[i];
    runn(p, 4, ids, sizeof(ids));
    ASSERT(strcmp(ids, "") == 0);
}

/* slow-request-code: the function with the largest significant gain in share is named; an info
 * note with the reason without a comparison; no finding when every interval reaches down to
 * SC_MIN_LO points, or without a server profile. */
TEST(doctor_service_server_code)
{
    struct doc_svc_point p = point(4.0, 20.0, 3.9);
    struct doc_svc_func funcs[4] = {
        {.name = "py:route (framework.py:9)",
         .pct_fast = 20,
         .pct_slow = 88,
         .change = 68.5,
         .lo = 61,
         .hi = 76,
         .depth = 3},
        {.name = "py:do_GET (server.py:40)",
         .pct_fast = 99,
         .pct_slow = 99,
         .change = 0.1,
         .lo = -1,
         .hi = 1},
        {.name = "py:slow_path (server.py:12)",
         .pct_fast = 2,
         .pct_slow = 70,
         .change = 68,
         .lo = 60,
         .hi = 75,
         .depth = 6},
        {.name = "py:encode (server.py:20)",
         .pct_fast = 5,
         .pct_slow = 9,
         .change = 4,
         .lo = 2,
         .hi = 6},
    };
    struct doc_svc_srvprof srv = {.present = true,
                                  .pid = 42,
                                  .comparison = "ok",
                                  .slow_rule = "p99",
                                  .slow_ms = 19.5,
                                  .fast_ms = 4.1,
                                  .slow_requests = 30,
                                  .fast_requests = 150,
                                  .slow_samples = 400,
                                  .fast_samples = 700,
                                  .slow_lat_ms = 20.2,
                                  .fast_lat_ms = 4.0,
                                  .slow_cpu_ms = 19,
                                  .fast_cpu_ms = 3.8,
                                  .ambiguous_pct = 0,
                                  .funcs = funcs,
                                  .nfuncs = 4};
    struct doc_svc_run run = {.path = "handmade-srvprof.json",
                              .target = "http",
                              .mode = "closed",
                              .threads = 1,
                              .fm_max_rate = NAN,
                              .fm_lowest_failing_rate = NAN,
                              .pts = &p,
                              .npts = 1,
                              .srv = &srv};
    for (int c = 0; c < 4; c++) {
        if (c == 1) srv.comparison[0] = 0, strcat(srv.comparison, "too few slow requests");
        if (c == 2)
            strcpy(srv.comparison, "ok"), funcs[0].lo = funcs[2].lo = 0.5, funcs[3].lo = -0.2;
        if (c == 3) run.srv = NULL;
        struct doc_report *r = NULL;
        ASSERT(doctor_report_new(&r) == 0);
        ASSERT(doctor_run_service(r, &run) == 0);
        doctor_rank(r);
        if (c == 0) {
            ASSERT(r->n == 1 && strcmp(r->f[0].id, "slow-request-code") == 0);
            /* the framework's route gains as much (inclusive shares): the deeper slow path */
            ASSERT(strstr(r->f[0].title, "py:slow_path (server.py:12)") != NULL);
            ASSERT(r->f[0].severity == DOC_SEV_MEDIUM);
        } else if (c == 1) { /* sampled, not compared: an info note with the reason */
            ASSERT(r->n == 1 && strcmp(r->f[0].id, "slow-request-code") == 0);
            ASSERT(r->f[0].severity == DOC_SEV_INFO);
            ASSERT(strstr(r->f[0].title, "too few slow requests") != NULL);
        } else {
            ASSERT(r->n == 0);
        }
        doctor_report_free(r);
    }
}

/* A kserve point: client mean latency lat (latency_actual), the server's queue and compute. */
static struct doc_svc_point kserve_point(double lat, double queue, double infer)
{
    struct doc_svc_point p = point(lat, lat * 1.2, lat);
    p.lat_act_mean = lat;
    p.concurrency = 8;
    p.server_count = 5000;
    p.server_queue_ms = queue;
    p.server_input_ms = 0.02;
    p.server_infer_ms = infer;
    p.server_output_ms = 0.01;
    return p;
}

/* The one server-split finding of p (its side, severity and shares), or false without one. */
static bool split_of(const struct doc_svc_point *p, char *side, size_t n, enum doc_severity *sev,
                     double *queue_pct, double *outside_pct, double *saving_pct)
{
    struct doc_report *r = NULL;
    ASSERT(doctor_report_new(&r) == 0);
    struct doc_svc_run run = {.path = "handmade-kserve.json",
                              .target = "kserve",
                              .mode = "closed",
                              .threads = 1,
                              .fm_max_rate = NAN,
                              .fm_lowest_failing_rate = NAN,
                              .pts = p,
                              .npts = 1};
    ASSERT(doctor_run_service(r, &run) == 0);
    doctor_rank(r);
    bool found = false;
    for (size_t i = 0; i < r->n; i++) {
        const struct doc_finding *f = &r->f[i];
        if (strcmp(f->id, "server-split") != 0) continue;
        ASSERT(!found); /* one per point */
        found = true;
        *sev = f->severity;
        *saving_pct = f->saving_pct;
        for (size_t k = 0; k < f->nkv; k++) {
            if (!strcmp(f->kv[k].key, "side")) snprintf(side, n, "%s", f->kv[k].str);
            if (!strcmp(f->kv[k].key, "queue_pct")) *queue_pct = f->kv[k].num;
            if (!strcmp(f->kv[k].key, "outside_pct")) *outside_pct = f->kv[k].num;
        }
        ASSERT(f->recommendation && f->next_step && f->saving_method);
    }
    doctor_report_free(r);
    return found;
}

/* server-split: queue-dominated and outside-the-server, each positive and negative; nothing on a
 * compute-dominated point, without Triton statistics, or when the server's time exceeds the
 * client's latency (no impossible share). */
TEST(doctor_service_server_split)
{
    char side[64];
    enum doc_severity sev;
    double qp = NAN, op = NAN, sp = NAN;
    /* 1 instance of 2 ms at -c 8: 13.7 ms of 15.9 ms in the queue */
    struct doc_svc_point p = kserve_point(15.86, 13.73, 2.0);
    ASSERT(split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    ASSERT(strcmp(side, "queue") == 0 && sev == DOC_SEV_HIGH);
    ASSERT(fabs(qp - 100.0 * 13.73 / 15.86) < 1e-9 && fabs(sp - qp) < 0.01 && op >= 0);
    /* without latency_actual: the latency mean */
    p.lat_act_mean = NAN;
    ASSERT(split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp) && !strcmp(side, "queue"));
    /* queue negative: 20 % of the latency; 60 % but under a millisecond */
    p = kserve_point(10.0, 2.0, 7.9);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    p = kserve_point(1.2, 0.72, 0.4);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    /* compute-dominated (the healthy case, -c 1): nothing */
    p = kserve_point(2.1, 0.0, 2.0);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    /* outside positive: 7 of 10 ms beyond the server's 3 ms */
    p = kserve_point(10.0, 0.0, 2.97);
    ASSERT(split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    ASSERT(strcmp(side, "outside-the-server") == 0 && sev == DOC_SEV_MEDIUM);
    ASSERT(fabs(op - 70.0) < 1e-6 && sp > 0 && sp <= 100);
    /* ... not on a client-INVALID point (client-limited's), nor without statistics */
    p.invalid_client = true;
    p.valid = false;
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    p = kserve_point(10.0, 0.0, 2.97);
    p.server_count = 0;
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    p.server_count = -1;
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    /* outside negative: 40 % of the latency; 80 % but under a millisecond */
    p = kserve_point(10.0, 0.0, 5.97);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    p = kserve_point(1.0, 0.0, 0.17);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    /* both: the larger side is named (queue 4 ms = 33 %, outside 7 ms = 58 %) */
    p = kserve_point(12.0, 4.0, 0.97);
    ASSERT(split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    ASSERT(strcmp(side, "outside-the-server") == 0 && qp > 30 && op > 50 && qp + op <= 100);
    /* the server reports more than the client waited: no split, never a share over 100 % */
    p = kserve_point(10.0, 12.0, 2.0);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    /* a NaN or negative statistic: not judged */
    p = kserve_point(15.86, 13.73, NAN);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
    p = kserve_point(15.86, -1.0, 2.0);
    ASSERT(!split_of(&p, side, sizeof(side), &sev, &qp, &op, &sp));
}

/* An LLM point: ttft and tpot (ms, mean = p50), osl output tokens per request, at concurrency c;
 * no burst, no cut prompt, every answer of the length asked. */
static struct doc_svc_point llm_point(double ttft, double tpot, double osl, double c)
{
    double e2e = ttft + (osl - 1) * tpot;
    struct doc_svc_point p = point(e2e, e2e * 1.1, 0.1);
    p.concurrency = c;
    p.ok = 64;
    p.llm = true;
    p.ttft_p50 = p.ttft_mean = ttft;
    p.tpot_p50 = p.tpot_mean = p.itl_p50 = tpot;
    p.e2e_p50 = p.e2e_mean = e2e;
    p.out_tok_per_req = osl;
    p.achieved_rps = 1000.0 * c / e2e;
    p.out_tok_s = p.achieved_rps * osl;
    p.input_tokens_mean = 128;
    p.burst_streams = 0;
    p.burst_ttft_mean_ms = NAN;
    p.osl_mismatch = 0;
    p.isl_short = -1;
    p.isl_usage_mean = p.isl_sent_mean = NAN;
    return p;
}

static bool has_id(const char *ids, const char *id)
{
    size_t n = strlen(id);
    for (const char *s = ids; (s = strstr(s, id)); s += n)
        if ((s == ids || s[-1] == ',') && (s[n] == ',' || !s[n])) return true;
    return false;
}

/* The one finding with this id in a fresh run of pts: its kv key as a number (NaN without it)
 * and its severity. */
static double llm_kv(const struct doc_svc_point *p, size_t n, const char *id, const char *key,
                     enum doc_severity *sev)
{
    struct doc_report *r = NULL;
    ASSERT(doctor_report_new(&r) == 0);
    struct doc_svc_run run = {.path = "handmade-llm.json",
                              .target = "openai",
                              .mode = "closed",
                              .threads = 1,
                              .fm_max_rate = NAN,
                              .fm_lowest_failing_rate = NAN,
                              .pts = p,
                              .npts = n};
    ASSERT(doctor_run_service(r, &run) == 0);
    double v = NAN;
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->f[i].id, id) != 0) continue;
        if (sev) *sev = r->f[i].severity;
        for (size_t k = 0; k < r->f[i].nkv; k++)
            if (!strcmp(r->f[i].kv[k].key, key))
                v = r->f[i].kv[k].type == DOC_KV_NUM ? r->f[i].kv[k].num : (double)r->f[i].kv[k].i;
    }
    doctor_report_free(r);
    return v;
}

TEST(doctor_service_llm_ttft_growth)
{
    char ids[512];
    /* one batch slot: at c=4 a request waits for 3 others; decoding keeps its pace */
    struct doc_svc_point p[2] = {llm_point(20, 10, 16, 1), llm_point(530, 10.2, 16, 4)};
    runn(p, 2, ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-ttft-growth"));
    enum doc_severity sev = DOC_SEV_INFO;
    ASSERT(fabs(llm_kv(p, 2, "llm-ttft-growth", "queue_wait_p50_ms", &sev) - 510) < 1e-9);
    ASSERT(sev == DOC_SEV_HIGH); /* 510 ms of the 683 ms E2E */
    /* the point order does not matter: the ends are the lowest and highest load */
    struct doc_svc_point q[2] = {p[1], p[0]};
    runn(q, 2, ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-ttft-growth"));
    /* TPOT grew as much: the whole server slowed (compute-bound batch), not a queue */
    p[1].tpot_p50 = 20;
    runn(p, 2, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-ttft-growth"));
    /* TTFT grew 2x: under the threshold */
    p[1] = llm_point(40, 10.2, 16, 4);
    runn(p, 2, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-ttft-growth"));
    /* an open-loop rate sweep: the same */
    struct doc_svc_point o[2] = {llm_point(20, 10, 16, 1), llm_point(530, 10.2, 16, 4)};
    o[0].concurrency = o[1].concurrency = NAN;
    o[0].rate = 2, o[1].rate = 8;
    runn(o, 2, ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-ttft-growth"));
    ASSERT(llm_kv(o, 2, "llm-ttft-growth", "high_load", NULL) == 8);
    /* the high end client-INVALID: it says nothing about the server */
    o[1].invalid_client = true;
    runn(o, 2, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-ttft-growth"));
    /* one load: no sweep */
    runn(&p[0], 1, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-ttft-growth"));
    /* a plain HTTP run: no LLM rule at all */
    p[0].llm = p[1].llm = false;
    p[1] = llm_point(530, 10.2, 16, 4);
    p[1].llm = false;
    runn(p, 2, ids, sizeof(ids));
    ASSERT(!strstr(ids, "llm-"));
}

TEST(doctor_service_llm_burst)
{
    char ids[512];
    struct doc_svc_point p = llm_point(160, 0.02, 16, 2);
    p.burst_streams = 64;
    p.burst_ttft_mean_ms = 160;
    run1(&p, ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-burst-streams"));
    ASSERT(!has_id(ids, "llm-prefill-vs-decode")); /* its TTFT is the buffering */
    enum doc_severity sev = DOC_SEV_INFO;
    ASSERT(llm_kv(&p, 1, "llm-burst-streams", "burst_share_pct", &sev) == 100);
    ASSERT(sev == DOC_SEV_HIGH);
    /* one in 64: noise (a scheduling hiccup), not a buffering proxy */
    p.burst_streams = 1;
    run1(&p, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-burst-streams"));
    p.burst_streams = 4; /* 6 %: below the 10 % share */
    run1(&p, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-burst-streams"));
    /* unknown (an older result): nothing */
    p.burst_streams = -1;
    run1(&p, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-burst-streams"));
}

TEST(doctor_service_llm_phase)
{
    char ids[512];
    enum doc_severity sev = DOC_SEV_INFO;
    /* 2000 ms of prefill, 16 tokens at 10 ms: prefill-bound, MEDIUM */
    struct doc_svc_point p[2] = {llm_point(2000, 10, 16, 1), llm_point(20, 10, 16, 1)};
    run1(&p[0], ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-prefill-vs-decode"));
    double share = llm_kv(&p[0], 1, "llm-prefill-vs-decode", "prefill_share_pct", &sev);
    ASSERT(fabs(share - 100.0 * 2000 / 2150) < 1e-9 && sev == DOC_SEV_MEDIUM);
    /* 20 ms of prefill: decode-bound, a note */
    sev = DOC_SEV_HIGH;
    ASSERT(llm_kv(&p[1], 1, "llm-prefill-vs-decode", "prefill_share_pct", &sev) < 50);
    ASSERT(sev == DOC_SEV_INFO);
    /* one finding per run, at the highest throughput */
    p[0] = llm_point(600, 10, 16, 8); /* 8 x 16 tokens per 750 ms: the highest */
    runn(p, 2, ids, sizeof(ids));
    int n = 0;
    for (const char *s = ids; (s = strstr(s, "llm-prefill-vs-decode")); s++)
        n++;
    ASSERT(n == 1);
    /* its TTFT is 580 ms above the other point's 20: queueing, not prefill */
    ASSERT(fabs(llm_kv(p, 2, "llm-prefill-vs-decode", "ttft_queueing_ms", NULL) - 580) < 1e-9);
    /* an invalid point, or no output beyond the first token: not judged */
    p[0].valid = p[1].valid = false;
    runn(p, 2, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-prefill-vs-decode"));
    p[1] = llm_point(20, 10, 1, 1);
    run1(&p[1], ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-prefill-vs-decode"));
}

TEST(doctor_service_llm_isl_cut)
{
    char ids[512];
    struct doc_svc_point p = llm_point(20, 10, 16, 1);
    run1(&p, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-isl-cut"));
    /* every prompt cut to 172 tokens of 300 */
    p.isl_short = 64;
    p.isl_usage_mean = 172;
    p.isl_sent_mean = 300;
    run1(&p, ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-isl-cut"));
    ASSERT(llm_kv(&p, 1, "llm-isl-cut", "isl_server_mean", NULL) == 172);
    /* 2 of 64 cut: below the 10 % share */
    p.isl_short = 2;
    run1(&p, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-isl-cut"));
    /* most answers stopped before max_tokens */
    p.osl_mismatch = 40;
    p.out_tok_per_req = 6;
    run1(&p, ids, sizeof(ids));
    ASSERT(has_id(ids, "llm-isl-cut"));
    ASSERT(llm_kv(&p, 1, "llm-isl-cut", "osl_mismatch_requests", NULL) == 40);
    /* a few short answers: the model's EOS, not "most" */
    p.osl_mismatch = 20;
    run1(&p, ids, sizeof(ids));
    ASSERT(!has_id(ids, "llm-isl-cut"));
}
