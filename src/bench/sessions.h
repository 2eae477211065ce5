/*
 * sessions.h - `bench --target openai --sessions FILE.jsonl`: the virtual users (one per
 * closed-loop connection) that send multi-turn conversations (llm/sessions.h), their think
 * times, and the per-turn report of each point (JSON "sessions", text, CSV).
 *
 *   bench_sess_new()/_free()    options and the loaded file
 *   per connection              bench_sess_build() (the next turn's request), _begin(), _end()
 *                               (history, per-turn statistics), _think() (engine's think hook)
 *   per point                   bench_sess_point() -> struct bench_sess_point (then reset)
 * Threading: a user belongs to one connection, so to one worker thread; statistics are per
 * thread (allocated by that thread on first use) and merged after the workers joined.
 */
#ifndef LAT_BENCH_SESSIONS_H
#define LAT_BENCH_SESSIONS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/jsonw.h"
#include "llm/sessions.h"
#include "llm/target.h"

#define BENCH_SESS_MAX_THREADS 256

struct bench_sess {
    const char *path;
    enum llm_sess_history history;
    lat_ns think_ns, think_sd_ns; /* --think-time D[:SD]; -1: none given */
    uint64_t seed;
    struct llm_sessions S;
    _Atomic uint64_t next; /* sessions started (all users) */
    /* --shard K/N: the j-th session this process starts is session (K + j * N) % S.n of the
     * file, so the shards send the sessions one process would (0 and 1: j % S.n) */
    uint64_t idx_base, idx_stride;
    struct llm_sess_stats *th[BENCH_SESS_MAX_THREADS];
};

/* Parses --history (server|dataset) and --think-time D[:SD] values. 0 or LAT_E_USAGE. */
int bench_sess_parse_history(const char *v, enum llm_sess_history *h);
int bench_sess_parse_think(const char *v, lat_ns *mean, lat_ns *sd);

/* Loads path. 0 or an error with why filled (file:line and what to do). */
int bench_sess_load(struct bench_sess *s, size_t max_bytes, char *why, size_t whylen);
void bench_sess_fini(struct bench_sess *s);

/* Per connection: the user state lives in c->user (bench_sess_user_new). */
int bench_sess_user_new(struct llm_conn *c);
void bench_sess_user_free(struct llm_conn *c);
/* Builds the user's next request: the next turn of its session, or the first turn of the next
 * session from the file (cycling). 0 or -ENOMEM. */
int bench_sess_build(struct bench_sess *s, struct llm_conn *c, const char **req, size_t *len);
void bench_sess_begin(struct bench_sess *s, struct llm_conn *c, lat_ns t_sched);
/* After llm_conn_end: the reply joins the history (or the session is abandoned on failure),
 * and a measured request is counted under its turn. */
void bench_sess_end(struct bench_sess *s, struct llm_conn *c, bool measured);
/* The think time before the user's next request (ns, 0 for a session's first turn). */
lat_ns bench_sess_think(struct bench_sess *s, struct llm_conn *c);

/* A distribution's mean, p50 and p99 (ns); have: they are known (false: no sample, or merged
 * from parts whose histograms are missing: "not mergeable"). */
struct bench_sess_stat {
    bool have;
    double mean, p50, p99;
};

struct bench_sess_row {
    uint64_t n, ok;
    struct bench_sess_stat ttft, e2e;
    bool hist;          /* the latencies come from the point's st->row histograms */
    bool isl;           /* isl_n / isl_sum are known (st->row) */
    bool not_mergeable; /* bench merge: latencies unknown (shards without histograms) */
    double isl_mean;    /* prompt tokens; < 0 unknown */
    uint64_t isl_n;     /* ok requests with a known prompt length ... */
    double isl_sum;     /* ... and their prompt tokens */
};

/* One point's sessions report (owned by the bench_point: free with bench_sess_point_free). */
struct bench_sess_point {
    const char *history; /* "server" or "dataset" */
    uint64_t in_file;    /* sessions in the file */
    unsigned nturns;     /* rows of turn[] with requests */
    struct bench_sess_row turn[LLM_SESS_SHOW_TURNS], later;
    uint64_t turns_beyond;
    uint64_t started, completed, failed;
    struct bench_sess_stat dur;   /* completed sessions' duration */
    bool dur_hist;                /* ... from st->duration */
    bool dur_not_mergeable;       /* bench merge: unknown (shards without histograms) */
    lat_ns think_ns, think_sd_ns; /* --think-time (-1 none) */
    bool not_mergeable; /* bench merge: some latencies are unknown (shards without histograms) */
    /* The statistics behind the report (owned): the histograms the JSON carries so that
     * `bench merge` adds the shards' rows exactly (bench/merge-parts.c); NULL: none. */
    struct llm_sess_stats *st;
};

/* The point's report (NULL without memory), then the statistics are reset. */
struct bench_sess_point *bench_sess_point(struct bench_sess *s);
void bench_sess_point_free(struct bench_sess_point *p);
/* Fills p's rows and duration from p->st: counts always; latencies of rows with hist (and the
 * duration with dur_hist) from its histograms; isl_mean of rows with isl from isl_n/isl_sum;
 * nturns. Other rows keep the values the caller set (bench merge). */
void bench_sess_point_compute(struct bench_sess_point *p);
void bench_sess_write_json(struct jsonw *w, const struct bench_sess_point *p);
void bench_sess_write_text(FILE *f, const struct bench_sess_point *p);
/* A CSV table of its own (after one empty line): one row per turn of each point. */
void bench_sess_csv(FILE *f, const struct bench_sess_point *const *pts, size_t n);

#endif
