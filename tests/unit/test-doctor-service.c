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
    return p;
}

/* The ids of the findings on one point, comma separated. */
static void run1(const struct doc_svc_point *p, char *ids, size_t n)
{
    struct doc_report *r = NULL;
    ASSERT(doctor_report_new(&r) == 0);
    struct doc_svc_run run = {"handmade-bench.json", "http", "closed", 2, p, 1};
    ASSERT(doctor_run_service(r, &run) == 0);
    doctor_rank(r);
    ids[0] = 0;
    for (size_t i = 0; i < r->n; i++)
        snprintf(ids + strlen(ids), n - strlen(ids), "%s%s", i ? "," : "", r->f[i].id);
    ASSERT(r->ntraces == 1 && r->traces[0].service && r->traces[0].judged);
    doctor_report_free(r);
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
