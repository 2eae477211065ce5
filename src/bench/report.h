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
#include "bench/shard.h"
#include "bench/slices.h"
#include "bench/telemetry.h"
#include "llm/metrics.h"

/* Server-side time per request from Triton's statistics API (deltas over one point). */
struct srvprof_result;

struct bench_server_stats {
    bool have;
    uint64_t count; /* successful inferences counted by the server */
    double queue_us, compute_input_us, compute_infer_us, compute_output_us;
};

/* bench grpc://: the point's connections and streams, and its calls by grpc-status code. */
#define BENCH_GRPC_NCODES 17 /* codes 0..16; a larger code counts as UNKNOWN (2) */
struct bench_grpc_stats {
    bool have;
    uint64_t connections;              /* HTTP/2 connections opened during the point */
    uint64_t streams;                  /* streams (calls) started */
    unsigned max_streams;              /* most streams open on one connection at once */
    uint32_t server_max_streams;       /* the server's SETTINGS_MAX_CONCURRENT_STREAMS (0: none) */
    uint64_t codes[BENCH_GRPC_NCODES]; /* measured calls that ended with each grpc-status */
};

/* The SLO verdict of one point (--slo, with --confidence for early stopping). */
struct bench_slo_term_result {
    char text[64];        /* the term, canonical ("e2e.p99<=200ms") */
    bool is_errors;       /* observed is a fraction, not ns */
    double observed;      /* ns, or the error fraction */
    int verdict;          /* enum slo_verdict: 0 pass, 1 fail, 2 undecided */
    uint64_t more_needed; /* undecided: requests the claim still needs */
};

struct bench_slo_result {
    bool have, pass;
    double confidence; /* 0 = plain comparison */
    int n;
    struct bench_slo_term_result t[8];
};

struct bench_point {
    struct bench_load load;
    struct bench_result res;
    struct bench_server_stats server;
    struct bench_grpc_stats grpc;
    struct bench_slo_result slo;
    const char *stability;   /* --stable verdict name, or NULL */
    struct llm_summary *llm; /* --target openai: LLM metrics of this point, else NULL */
    /* --target openai: the LLM metrics' histograms for the JSON "histograms" (names[i] is the
     * key of llm_hist[i]), or NULL / 0 */
    struct lat_hist *llm_hist;
    const char *const *llm_hist_names;
    size_t nllm_hist;
    bool ran;
    /* GPU telemetry (bench/telemetry.h) and time slices (bench/slices.h) of this point, owned
     * by it, or NULL. */
    struct gpu_point *gpu;
    struct bench_slices *slices;
    /* --target openai --sessions: the per-turn report (bench/sessions.h), owned, or NULL. */
    struct bench_sess_point *sessions;
    /* A merged / MPI-reduced point (bench/shard.h): one line per shard, else NULL / 0. */
    struct bench_shard_line *shards;
    size_t nshards;
};

struct bench_run {
    const char *target; /* "http" or "kserve" */
    const char *url;
    unsigned threads;
    const char *mode; /* "closed", "open", "find-max" */
    const char *arrival;
    const char *rx_time; /* "kernel" (socket receive timestamps) or "user" (recv() return) */
    /* What each request is, independent of host, port and load ("http:3f2a...:118": a hash of
     * the request bytes without the Host header, and their length); NULL when unknown. */
    const char *workload;
    struct bench_point *points;
    size_t npoints;
    bool interrupted;
    /* --find-max: the answer (index into points, -1 none) and the SLO text. */
    const char *slo;
    int best_point;
    double max_rate;       /* the best probe's rate, or its concurrency with find_concurrency */
    bool find_concurrency; /* --find-max --concurrency: the probes are closed-loop points */
    /* --find-max stopped because the client could not drive a load (a probe was INVALID for
     * a client reason every time it was measured): that load, and the last reason. The answer
     * is then only a lower bound of the server's limit. */
    bool client_limited;
    double client_limit;
    char client_limit_reason[256];
    /* --find-max's answer as a range (bench/loop.c): the highest value met in every
     * measurement and the lowest above it missed in every one (0: none); min_samples the
     * samples each probe's percentiles had (core/pctl.h lat_pctl_min_n); fm_confidence the
     * level a pass had to be established at not to be measured again; inconclusive (with the
     * reason) when noise, the client or too few samples leave no answer; noisy the values met
     * in some measurements and missed in others. */
    double range_low, range_high, fm_confidence;
    uint64_t min_samples;
    bool inconclusive;
    char inconclusive_reason[256];
    double noisy[8];
    size_t nnoisy;
    /* Multi-host: this process's shard (JSON "shard"), and for a merged or MPI-reduced run
     * how it was combined (JSON "distributed"); NULL for a plain single-process run. */
    const struct bench_shard *shard;
    const struct bench_dist *dist;
    /* --server-pid: the server profile of the point (bench/srvprof.h, JSON
     * "server_profile"), or NULL. */
    const struct srvprof_result *server_profile;
};

/* Each returns 0 or -EIO (write error) / -ENOMEM. */
int bench_report_json(FILE *f, const struct bench_run *r);
int bench_report_csv(FILE *f, const struct bench_run *r);
int bench_report_text(FILE *f, const struct bench_run *r);
/* One JSON object per request of point `idx` (times relative to t0 in ns, plus absolute). */
int bench_report_records(FILE *f, const struct bench_point *p, size_t idx);

#endif
