/*
 * srvprof.h - `latscope bench --server-pid PID` (issue 34): sample the server process with the
 * CPU sampler of `latscope trace --cpu --pid` (capture/cpuprof.h) while the load runs, and
 * join its samples to the bench records on one clock.
 *
 * Clock: the bench records (bench.h) and the sampler's samples (perf_event_attr.clockid =
 * CLOCK_MONOTONIC) are both CLOCK_MONOTONIC ns of this host, so no offset is estimated: the
 * server is local (a pid). What is left is each side's own observation delay (the client's
 * t_send is before the server reads the request, its t_end after the server wrote the
 * response; a sample lands up to one sampling period after the work it stands for), measured
 * against the server's own time.monotonic() in tests/e2e/t840 (docs/latscope-bench.md).
 *
 * Attribution: a request's window is [t_send, t_end) on the client; the server's on-CPU
 * samples inside it are its samples. Several requests in flight at once share their samples
 * (time window only; the server's handling thread is not known from the client): the result
 * says which fraction of the samples fell in more than one window.
 *
 * Slow vs fast: requests at or above the slow threshold (default the point's p99, or
 * --server-slow) against those at or below its p50; per function, the share of each side's
 * on-CPU samples with the function anywhere on the stack (total) and as leaf (self), and the
 * interval of the change (diff_cpu_rows, the statistics of `latscope diff`).
 *
 * Threading: srvprof_start() starts one thread that drains the sampler every 100 ms; every
 * other call is made from the thread that started it.
 */
#ifndef LAT_BENCH_SRVPROF_H
#define LAT_BENCH_SRVPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bench/bench.h"
#include "bench/topt.h"
#include "diff/diff.h"
#include "model/events.h"

struct jsonw;

struct srvprof_cfg {
    pid_t pid;
    unsigned freq_hz; /* samples per second per thread (default 999, at most 1000) */
    /* slow side: latency at or above this (ns), or, when 0, at or above the percentile
     * slow_pct of the point's latencies (default 99) */
    lat_ns slow_ns;
    double slow_pct;
    double conf;              /* interval confidence (default 0.95) */
    const char *samples_path; /* --server-samples, or NULL */
};

/* The command's options of this group (bench/topt.h rows, handled by srvprof_opt). */
extern const struct bench_topt bench_srv_opts[];
/* One option of bench_srv_opts. 0, or -1 with why ("--OPT VALUE: what is wrong"). */
int srvprof_opt(struct srvprof_cfg *c, int id, const char *val, char *why, size_t whylen);

struct srvprof;

/* One side of the comparison. */
struct srvprof_side {
    uint64_t requests;
    uint64_t samples;       /* on-CPU samples in its requests' windows (each once) that the
                             * function table counts: less samples_unread's */
    double lat_mean_ms;     /* latency from the intended send (the bench's anchor) */
    double oncpu_ms;        /* mean server on-CPU time per request: samples x period */
    uint64_t with_samples;  /* requests with at least one sample in their window */
    double first_sample_ms; /* mean t_send -> first sample, over with_samples requests */
};

struct srvprof_result {
    bool have;       /* analyzed; else why says why not */
    const char *why; /* static sentence, or NULL */
    pid_t pid;
    unsigned freq_hz;
    lat_ns period_ns;
    lat_ns t0_ns; /* CLOCK_MONOTONIC ns of ts 0 of the records and of the saved trace */
    uint64_t requests, samples_total, samples_in_windows, samples_ambiguous;
    uint64_t threads;        /* server threads seen in the samples */
    uint64_t samples_python; /* samples with a Python frame (0: not a Python server) */
    /* samples of threads that had Python frames, without them (the sampler read them too
     * late): counted in the windows' on-CPU time, left out of the function table (and of the
     * sides' `samples`, its denominators) */
    uint64_t samples_unread;
    double p50_ms, slow_ms; /* the thresholds */
    char slow_rule[32];     /* "p99", "20ms", ... */
    struct srvprof_side fast, slow;
    struct diff_trace_result cmp; /* cpu rows: side 0 fast, side 1 slow */
    double conf;
    const char *trace_path; /* saved server samples, or NULL */
    char stats[512];        /* the sampler's counters */
};

/* Starts sampling cfg->pid now. 0, or an error (why filled: what to change). */
int srvprof_start(const struct srvprof_cfg *cfg, struct srvprof **out, char *why, size_t whylen);
/* Stops sampling and drains the rest. 0 or an error (cpuprof_strerror's). */
int srvprof_stop(struct srvprof *s);
/*
 * Joins the samples to the records of one point (absolute CLOCK_MONOTONIC times): fills *out,
 * whose ts 0 is t0_ns (the records' base: bench_result.t_first_sched). Writes the samples as
 * a Kineto-compatible trace (ts 0 = t0_ns) to trace_path when not NULL. 0, or -ENOMEM /
 * -errno (the trace file: out->why says so). Free out with srvprof_result_fini.
 */
int srvprof_analyze(struct srvprof *s, const struct bench_result *res, const char *trace_path,
                    struct srvprof_result *out);
/* The same on samples already in t (the LAT_EV_CPU_SAMPLE layout of capture/cpuprof.h, ts 0 =
 * res->t_first_sched), without the sampler: what srvprof_analyze() calls, and the unit tests.
 * cfg's zero fields take the defaults. 0 or -ENOMEM. */
int srvprof_analyze_trace(const struct lat_trace *t, const struct srvprof_cfg *cfg,
                          const struct bench_result *res, struct srvprof_result *out);
void srvprof_result_fini(struct srvprof_result *r);
void srvprof_free(struct srvprof *s);
const char *srvprof_strerror(int rc);

/* The text section and the JSON object ("server_profile", docs/bench-json.md). */
int srvprof_write_text(FILE *f, const struct srvprof_result *r, size_t top);
void srvprof_write_json(struct jsonw *w, const struct srvprof_result *r, size_t top);

#endif
