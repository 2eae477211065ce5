/*
 * loop.h - `latscope bench`'s point loop: every load point of a run (a sweep, a --find-max
 * search or one replay) through the engine, with the stopping rules (--stable, --confidence),
 * the SLO verdicts and the target's hooks around each point (bench/target.h).
 *
 * The command (src/cmd-bench.c) parses the options into a struct bench_plan, sets the target
 * up, opens the output files, and prints the struct bench_run this fills (bench/report.h).
 * Diagnostics go through core/log.h (pr_warn: a point that did not stabilize, a find-max probe
 * measured again); the live view's numbers to plan->live (the command prints them).
 */
#ifndef LAT_BENCH_LOOP_H
#define LAT_BENCH_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/report.h"
#include "bench/shard.h"
#include "bench/target.h"
#include "hist/hlog.h"
#include "stats/search.h"

/* --find-max: measurements of one probe that the client could not drive before the search
 * stops (bench_result.invalid_client). */
#define FIND_MAX_CLIENT_TRIES 3

struct gpu_telem;
struct bench_live;

struct bench_plan {
    /* The points: values (rates when open_loop, else concurrencies), or a --find-max search
     * (search, at most nvalues probes; find_conc: over concurrencies). */
    const double *values;
    size_t nvalues;
    bool open_loop;
    bool find_max, find_conc;
    struct lat_search *search;
    /* Each point's load (bench_load). */
    enum bench_arrival arrival;
    double gamma_shape;
    uint64_t seed;
    unsigned max_inflight, connections;
    lat_ns duration_ns, warmup_ns;
    uint64_t requests, warmup_requests;
    const lat_ns *offsets; /* a replaying target's send times (target.h schedule), or NULL */
    size_t noffsets;
    struct bench_opts *eng;
    /* Stopping rules and the SLO. */
    bool stable;
    const struct slo *slo; /* NULL without --slo */
    const char *slo_text;
    double confidence; /* 0: no early stopping */
    /* While running. */
    /* The live view (bench/live.h), or NULL: called once per engine window with the point's
     * numbers so far, and with NULL when the point ended (the command erases its line). */
    void (*live)(void *ud, const struct bench_live *s);
    void *live_ud;
    bool say_probes;          /* pr_info each --find-max probe */
    struct hlog_writer *hlog; /* --hdr-log, or NULL */
    const char *hdr_log;      /* its path, for warnings */
    bool records_writer;      /* --mpi: this rank writes --records (bench_mpi_gather_records) */
    struct gpu_telem *gtel;   /* GPU telemetry around each point (bench/telemetry.h), or NULL */
    lat_ns slice_ns;          /* --slice width, 0: none (bench/slices.h; the target's slices
                               * hook adds its part) */
};

enum bench_loop_status {
    BENCH_LOOP_OK = 0, /* every point valid (--find-max: an answer found) */
    BENCH_LOOP_FAILED, /* a point INVALID, could not run, or the run was interrupted */
    BENCH_LOOP_USAGE,  /* a point could not be set up (--shard: an empty share...) */
};

/* An SLO metric an llm_slo target measures (ttft, tpot, itl, chunk_gap), not the engine. */
bool bench_slo_llm_metric(const char *metric);

/* Runs the points of pl against t into run (run->points, run->npoints = pl->nvalues,
 * allocated here: the caller frees them). *stop (a signal handler's flag) ends the current
 * point cleanly and the run. Returns an enum bench_loop_status, or -ENOMEM before any point. */
int bench_loop_run(const struct bench_plan *pl, struct bench_target *t,
                   const struct bench_target_ops *tops, void *tst, const struct bench_shard *shard,
                   volatile sig_atomic_t *stop, struct bench_run *run);

#endif
