/*
 * shard.h - multi-host `latscope bench`: one process runs shard K of N of a load, on any
 * launcher (--shard K/N, Slurm, Kubernetes indexed Jobs, Open MPI's environment, ssh).
 *
 * The split (docs/latscope-bench-distributed.md):
 *   open loop   arrival j of the one seeded global schedule goes to shard j mod N (the engine
 *               strides through the same sequence: bench_load.shard/nshards), so the union of
 *               the N shards' schedules is exactly the single-process schedule;
 *   replay      row j of the trace goes to shard j mod N, the same way;
 *   closed loop the connections (and LLM streams) are split, the first C mod N shards taking
 *               one more; request counts (--requests, --warmup N) are split the same way.
 * --start-at EPOCH gives every shard the same wall-clock t0; point i of a sweep starts at
 * EPOCH + i * (warmup + duration + request timeout + 1 s), so shards stay aligned.
 *
 * Library code: never prints, never exits; errors come back as text in `why`.
 */
#ifndef LAT_BENCH_SHARD_H
#define LAT_BENCH_SHARD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/topt.h"
#include "core/clock.h"

struct bench_shard {
    bool active;           /* a --shard (or --start-at, --mpi) option was given */
    bool mpi;              /* --mpi: ranks of an MPI job (src/bench/mpi.c) */
    uint32_t index, count; /* count >= 1 once resolved */
    char source[48];       /* "--shard", "SLURM_PROCID/SLURM_NTASKS", ... */
    bool have_start_at;
    lat_ns start_at_unix_ns; /* --start-at, ns since the epoch */
    const char *shard_arg;   /* the --shard text, NULL when not given */
};

/* Per shard (or rank) summary of one point, for the merged result's per-shard lines. */
struct bench_shard_line {
    uint32_t index;
    uint64_t requests, errors;
    double achieved_rps, duration_s;
    double send_lag_p99_ms;
    double t0_offset_ms;    /* this shard's t0 minus the earliest t0 (start skew) */
    double clock_offset_ms; /* MPI: this rank's CLOCK_REALTIME minus rank 0's; NAN unknown */
    bool valid;
    char invalid_reason[256];
};

/* What a merged (or MPI-reduced) run adds to bench_run: see report.c. */
struct bench_dist {
    const char *method; /* "merge" or "mpi" */
    uint32_t nshards;
    double max_start_skew_ms;   /* largest t0 difference over the points */
    double max_clock_offset_ms; /* MPI: largest |clock offset| measured; NAN unknown */
    double reduce_ms;           /* MPI: time of the reductions of the last point; NAN unknown */
};

/* The multi-host options --shard K/N|auto, --start-at EPOCH and --mpi: a group of bench's
 * option table (bench_shard_opts, rows as in bench/target.h) handled by shard_opt(). */
enum { SHARD_OPT_SHARD = 1, SHARD_OPT_START_AT, SHARD_OPT_MPI };
extern const struct bench_topt bench_shard_opts[];
/* No shard: the whole load (count 1). */
void shard_init(struct bench_shard *s);
/* One option of bench_shard_opts (val NULL for --mpi). 0, or -1 with `why` set (bad value). */
int shard_opt(struct bench_shard *s, int id, const char *val, char *why, size_t whysz);

/* Parses "K/N" (0 <= K < N <= 65536) or "auto" (from the environment through getenv_fn:
 * OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/PMI_SIZE, SLURM_PROCID/SLURM_NTASKS,
 * JOB_COMPLETION_INDEX with LATSCOPE_SHARDS; "auto/N" gives N for an index-only launcher).
 * Fills index, count and source. Returns 0 or -1 with why. */
int shard_resolve(struct bench_shard *s, const char *text, const char *(*getenv_fn)(const char *),
                  char *why, size_t whysz);

/* Parses --start-at: seconds since the epoch, fractions allowed ("1767225600.5"). */
int shard_parse_start_at(const char *text, lat_ns *unix_ns);

/* The engine's schedule slice of worker `thread` of shard `shard` of `nshards`: slice
 * shard + nshards * thread of nshards * nthreads slices, i.e. global arrivals
 * shard + nshards * (thread + nthreads * m): shard k's arrivals are exactly those j with
 * j mod nshards == k, for any thread count. */
static inline uint32_t shard_slice(uint32_t shard, uint32_t nshards, uint32_t thread)
{
    return shard + nshards * thread;
}

/* The number of j in [0, x) with j mod n == k: shard k's share of x items. */
uint64_t shard_share(uint64_t x, uint32_t k, uint32_t n);

/* Gives l this shard's part (bench_load.shard/nshards, closed-loop concurrency, request
 * counts). Returns 0, or -1 with why when the part would be empty (fewer connections or
 * requests than shards). */
int shard_split_load(const struct bench_shard *s, struct bench_load *l, char *why, size_t whysz);

/* CLOCK_MONOTONIC t0 of point `i` under --start-at (0 without it, or for i > 0 when the point
 * has no --duration to align on). */
lat_ns shard_point_start(const struct bench_shard *s, size_t i, const struct bench_load *l,
                         const struct bench_opts *o);

/* The --help line of `bench merge`, after the options. */
extern const char bench_shard_usage[];

/* Resolves --shard (shard_resolve with getenv) and --mpi (bench_mpi_init) after
 * the options. Returns 0 or -1 with why. */
int bench_shard_setup(struct bench_shard *s, char *why, size_t whysz);

/* Before point i: splits l (shard_split_load), sets l->start_at_ns from --start-at and sleeps
 * until shortly before it. Returns 0, or -1 with why (an empty part, a start time already
 * past). */
int shard_prepare_point(const struct bench_shard *s, size_t i, struct bench_load *l,
                        const struct bench_opts *o, volatile sig_atomic_t *stop, char *why,
                        size_t whysz);

/* MPI (src/bench/mpi.c, built when Open MPI is found: LAT_HAVE_MPI; without it a stub that
 * says so). Initializes MPI, takes rank/size as index/count. Returns 0 or -1 with why. */
int bench_mpi_init(struct bench_shard *s, char *why, size_t whysz);
/* MPI: every rank's CLOCK_MONOTONIC t0 of point i, the same instant on rank 0's wall clock
 * (barrier, rank 0 picks it: --start-at for the first point or now + 200 ms; each rank
 * corrects it by its measured clock offset). Collective. */
lat_ns bench_mpi_point_start(const struct bench_shard *s, size_t i);

/* Sleeps until CLOCK_MONOTONIC reaches t (returns early when *stop is set). */
void shard_sleep_until(lat_ns t, volatile sig_atomic_t *stop);

#endif
