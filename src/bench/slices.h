/*
 * slices.h - time slices of a bench load point (issue 17, AIPerf --slice-duration): the point's
 * measured requests cut into consecutive windows of D seconds, each with its own request
 * count, throughput, errors and exact latency percentiles (and TTFT/ITL for --target openai,
 * GPU telemetry when it was sampled), to see warm-up, drift and throttling inside one point.
 *
 * A request belongs to the slice its response ended in (t_end; a failed request: when it
 * failed), counted from the start of the point's measured window, so the slices' counts add
 * up to the point's. Percentiles are nearest-rank over the slice's own requests (the
 * estimator of hist/samples.h), computed from the engine's per-request records
 * (bench_opts.keep_records, which --slice turns on).
 *
 *   bench_slices_parse()      the value of --slice D
 *   bench_slices_point()      one point's slices, after bench_run_point
 *   bench_slices_llm()        --target openai's part (its slices hook, bench/target.h; before
 *                             llm_bench_point_done: the LLM requests are read from the target)
 */
#ifndef LAT_BENCH_SLICES_H
#define LAT_BENCH_SLICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/telemetry.h"
#include "llm/metrics.h"

struct llm_bench;
struct jsonw;

struct bench_slice {
    lat_ns t_start, t_end; /* CLOCK_MONOTONIC bounds [t_start, t_end) */
    uint64_t ok, errors;
    double rps;                  /* ok / slice length (the last slice: its actual length) */
    int64_t p50, p90, p99, max;  /* latency from the intended send (ns), -1: no request */
    double mean;                 /* ns */
    bool have_llm;               /* --target openai */
    struct llm_stat ttft, itl;   /* this slice's requests, the point's --metrics-compat view */
    uint64_t llm_ok, llm_errors; /* the LLM view's counts (its own failure classes included) */
    struct gpu_dev_stats *gpu;   /* per GPU (ngpu), NULL without telemetry */
    size_t ngpu;
    /* bench merge / --mpi: several shards had requests in this slice, and their slices carry
     * percentiles, not histograms: p50/p90/p99 (latency, TTFT, ITL) are "not mergeable" (-1 /
     * null); counts, mean and max are exact. */
    bool pct_not_mergeable;
};

struct bench_slices {
    lat_ns width;
    lat_ns base;         /* start of slice 0 (CLOCK_MONOTONIC) */
    lat_ns records_base; /* time zero of --records (bench_result.t_first_sched) */
    size_t n;
    struct bench_slice *s;
    /* Every measured request of the point was assigned (records complete). */
    bool complete;
    uint64_t records_ok, records_errors;
    const struct gpu_point *gpu; /* the point's telemetry (not owned): device names */
    /* bench merge / --mpi: the slices of this many shards, slice k of each added into slice k
     * (0: one process's own). base and records_base are then 0 (no one clock). */
    uint32_t merged_shards;
};

extern const char bench_slices_usage[];
/* *width = the duration v (>= 1 ms). 0 or LAT_E_USAGE with why. */
int bench_slices_parse(const char *v, lat_ns *width, char *why, size_t whylen);

/* The slices of one finished point (load: its settings; --duration sets the window), gpu: the
 * point's telemetry (NULL). Returns NULL when width is 0 or memory is short. A target adds its
 * part with its slices hook (bench/target.h). */
struct bench_slices *bench_slices_point(lat_ns width, const struct bench_load *load,
                                        const struct bench_result *res,
                                        const struct gpu_point *gpu);
/* --target openai's slices hook: each slice's LLM view (TTFT/ITL, its counts) from the point's
 * LLM requests (split by end time; one that ended after the last slice counts in it). 0 or
 * -ENOMEM. */
int bench_slices_llm(struct bench_slices *s, struct llm_bench *llm);
void bench_slices_free(struct bench_slices *s);

/* "slices": [...] (or nothing when s is NULL) in the open JSON object. */
void bench_slices_write_json(struct jsonw *w, const struct bench_slices *s);
/* The compact text table of one point. */
void bench_slices_write_text(FILE *f, const struct bench_slices *s);
/* CSV: one header line, then one row per slice, point index first (pidx: 1-based). */
void bench_slices_csv_header(FILE *f, bool llm, bool gpu);
void bench_slices_csv_rows(FILE *f, const struct bench_slices *s, size_t pidx, bool llm, bool gpu);

#endif
