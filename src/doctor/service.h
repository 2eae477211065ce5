/*
 * service.h - doctor's service rules: findings from a bench result (`latscope bench --format
 * json`), not from a trace. The command reads the result through diff's one bench-JSON reader
 * (diff_run_load) and hands each load point over as a struct doc_svc_point, so doctor does not
 * depend on diff (diff's trace compare runs doctor). The rules, their evidence and thresholds
 * are in docs/latscope-doctor.md ("Service rules").
 */
#ifndef LAT_DOCTOR_SERVICE_H
#define LAT_DOCTOR_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doctor/doctor.h"
#include "hist/hist.h"

/* One load point of a bench result. Durations in ms; NaN when the result lacks it. */
struct doc_svc_point {
    const char *load; /* "concurrency 1", "rate 100 req/s" */
    bool valid;       /* false: bench marked the point INVALID */
    const char *why;  /* invalid_reason ("" when valid) */
    bool invalid_client;
    uint64_t ok, errors;
    double lat_p50, lat_p99, lat_mean; /* latency_ms (intended send) */
    double ttfb_p50, ttfb_p99;         /* ttfb_ms: first response byte */
    double send_lag_p99;               /* send_lag_ms */
    double client_cpu_pct, max_thread_busy_pct;
    int64_t
        inflight_cap_hits; /* > 0: send lag is the server's queue (--max-inflight), -1 unknown */
    const struct lat_hist *lat_hist; /* recorded latency histogram (ns) or NULL */
};

struct doc_svc_run {
    const char *path;
    const char *target, *mode; /* "http", "closed" */
    unsigned threads;          /* client threads, 0 unknown */
    const struct doc_svc_point *pts;
    size_t npts;
};

/* Runs the service rules on run and appends its summary and findings to r. 0, -ENOMEM or
 * LAT_E_USAGE. Call doctor_rank() afterwards. */
int doctor_run_service(struct doc_report *r, const struct doc_svc_run *run);

#endif
