/* test-bench-report.c - the bench JSON contract and CSV layout on synthetic results. */
#include "test.h"

#include "bench/report.h"
#include "core/err.h"
#include "json/tok.h"

static char *render(int (*fn)(FILE *, const struct bench_run *), const struct bench_run *r,
                    size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ASSERT(f != NULL);
    ASSERT_RC(fn(f, r));
    fclose(f);
    return buf;
}

static void point_init(struct bench_point *p, unsigned conc, double rate)
{
    memset(p, 0, sizeof(*p));
    p->load.concurrency = conc;
    p->load.rate = rate;
    ASSERT_RC(hist_init_default(&p->res.lat));
    ASSERT_RC(hist_init_default(&p->res.lat_actual));
    ASSERT_RC(hist_init_default(&p->res.send_lag));
    ASSERT_RC(hist_init_default(&p->res.loop_lag));
    ASSERT_RC(hist_init_default(&p->res.ttfb));
    p->ran = true;
}

TEST(bench_report_json_contract)
{
    struct bench_point pts[2];
    point_init(&pts[0], 4, 0);
    for (int i = 1; i <= 100; i++) {
        hist_record(&pts[0].res.lat, i * LAT_NS_PER_MS);
        hist_record(&pts[0].res.lat_actual, i * LAT_NS_PER_MS - 1000);
        hist_record(&pts[0].res.send_lag, 1000);
    }
    pts[0].res.ok = 100;
    pts[0].res.errors[BENCH_ERR_HTTP_5XX] = 3;
    pts[0].res.errors_total = 3;
    pts[0].res.duration_s = 2.0;
    pts[0].res.achieved_rps = 50.0;
    pts[0].res.valid = true;
    point_init(&pts[1], 0, 25.5); /* an open-loop point with no successful request */
    pts[1].res.valid = false;
    snprintf(pts[1].res.invalid_reason, sizeof(pts[1].res.invalid_reason), "no request");
    struct bench_run run = {.target = "http",
                            .url = "http://x/",
                            .mode = "closed",
                            .threads = 2,
                            .points = pts,
                            .npoints = 2,
                            .best_point = -1};
    size_t n;
    char *doc = render(bench_report_json, &run, &n);
    uint64_t off;
    char msg[128];
    ASSERT_RC(json_validate(doc, n, JSON_TOK_STRICT, &off, msg, sizeof(msg)));
    struct lat_buf s = LAT_BUF_INIT;
    ASSERT_RC(json_get_str(doc, n, "target", &s));
    ASSERT_EQ_STR(s.data, "http");
    int64_t v;
    ASSERT_RC(json_get_i64(doc, n, "points/0/concurrency", &v));
    ASSERT_EQ_I64(v, 4);
    struct json_val jv;
    ASSERT_RC(json_find(doc, n, "points/0/rate", &jv));
    ASSERT_EQ_I64(jv.type, JSON_NULL);
    ASSERT_RC(json_get_i64(doc, n, "points/0/requests", &v));
    ASSERT_EQ_I64(v, 100);
    ASSERT_RC(json_get_i64(doc, n, "points/0/errors/total", &v));
    ASSERT_EQ_I64(v, 3);
    ASSERT_RC(json_get_i64(doc, n, "points/0/errors/http_5xx", &v));
    ASSERT_EQ_I64(v, 3);
    double d;
    /* Nearest rank over 1..100 ms: p50 = 50 ms, p99 = 99 ms, p99.9 = 100 ms (within 0.1 %). */
    ASSERT_RC(json_get_double(doc, n, "points/0/latency_ms/p50", &d));
    ASSERT_NEAR(d, 50.0, 0.05);
    ASSERT_RC(json_get_double(doc, n, "points/0/latency_ms/p99", &d));
    ASSERT_NEAR(d, 99.0, 0.1);
    ASSERT_RC(json_get_double(doc, n, "points/0/latency_ms/p99.9", &d));
    ASSERT_NEAR(d, 100.0, 0.1);
    ASSERT_RC(json_get_double(doc, n, "points/0/latency_ms/max", &d));
    ASSERT_NEAR(d, 100.0, 0.001);
    ASSERT_RC(json_get_double(doc, n, "points/0/latency_actual_ms/p50", &d));
    ASSERT_NEAR(d, 49.999, 0.05);
    ASSERT_RC(json_get_double(doc, n, "points/0/send_lag_ms/p99", &d));
    ASSERT_NEAR(d, 0.001, 0.0005);
    bool b;
    ASSERT_RC(json_get_bool(doc, n, "points/0/valid", &b));
    ASSERT(b);
    ASSERT_RC(json_find(doc, n, "points/0/invalid_reason", &jv));
    ASSERT_EQ_I64(jv.type, JSON_NULL);
    /* The open-loop point: concurrency null, rate set, latency objects null, reason given. */
    ASSERT_RC(json_find(doc, n, "points/1/concurrency", &jv));
    ASSERT_EQ_I64(jv.type, JSON_NULL);
    ASSERT_RC(json_get_double(doc, n, "points/1/rate", &d));
    ASSERT_NEAR(d, 25.5, 1e-9);
    ASSERT_RC(json_find(doc, n, "points/1/latency_ms", &jv));
    ASSERT_EQ_I64(jv.type, JSON_NULL);
    buf_reset(&s);
    ASSERT_RC(json_get_str(doc, n, "points/1/invalid_reason", &s));
    ASSERT_EQ_STR(s.data, "no request");
    free(doc);

    /* CSV: perf_analyzer's first columns and µs values; rows by ascending throughput. */
    char *csv = render(bench_report_csv, &run, &n);
    ASSERT(strncmp(csv, "Request Rate,Inferences/Second,p50 latency,p90 latency,", 55) == 0);
    char *row1 = strchr(csv, '\n') + 1;
    ASSERT(strncmp(row1, "25.5,0.00,", 10) == 0); /* 0 req/s sorts first */
    free(csv);
    run.npoints = 1;
    csv = render(bench_report_csv, &run, &n);
    ASSERT(strncmp(csv, "Concurrency,Inferences/Second,p50 latency,", 42) == 0);
    row1 = strchr(csv, '\n') + 1;
    ASSERT(strncmp(row1, "4,50.00,50", 10) == 0); /* p50 = 50 ms = 50xxx us */
    free(csv);
    buf_fini(&s);
    for (int i = 0; i < 2; i++)
        bench_result_fini(&pts[i].res);
}
