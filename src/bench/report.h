/*
 * report.h - rendering `latscope bench` results: text table, JSON (docs/bench-json.md),
 * perf_analyzer-style CSV, and per-request JSONL records.
 *
 * Writers take a FILE and never decide what goes to stdout: cmd-bench.c does.
 */
#ifndef LAT_BENCH_REPORT_H
#define LAT_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "bench/bench.h"

/* Server-side time per request from Triton's statistics API (deltas over one point). */
struct bench_server_stats {
    bool have;
    uint64_t count; /* successful inferences counted by the server */
    double queue_us, compute_input_us, compute_infer_us, compute_output_us;
};

struct bench_point {
    struct bench_load load;
    struct bench_result res;
    struct bench_server_stats server;
    bool ran;
};

struct bench_run {
    const char *target; /* "http" or "kserve" */
    const char *url;
    unsigned threads;
    const char *mode; /* "closed", "open", "find-max" */
    const char *arrival;
    struct bench_point *points;
    size_t npoints;
    bool interrupted;
    /* --find-max: the answer (index into points, -1 none) and the SLO text. */
    const char *slo;
    int best_point;
    double max_rate;
};

/* Each returns 0 or -EIO (write error) / -ENOMEM. */
int bench_report_json(FILE *f, const struct bench_run *r);
int bench_report_csv(FILE *f, const struct bench_run *r);
int bench_report_text(FILE *f, const struct bench_run *r);
/* One JSON object per request of point `idx` (times relative to t0 in ns, plus absolute). */
int bench_report_records(FILE *f, const struct bench_point *p, size_t idx);

#endif
