/*
 * bench.h - the load-generation engine behind `latscope bench`.
 *
 * A run is a list of load points. Each point (bench_run_point) starts `threads` worker
 * threads, each with its own epoll loop, connections and histograms, drives either a closed
 * loop (`concurrency` connections, each sending its next request when the previous one
 * completes) or an open loop (an arrival schedule at `rate`, with at most `max_inflight`
 * requests outstanding), and merges the per-thread histograms without loss at the end.
 *
 * Every request records four CLOCK_MONOTONIC times: t_sched (intended send: the schedule's
 * time in an open loop, the moment the slot became free in a closed loop), t_send (first byte
 * written), t_first (first response byte's recv) and t_end (recv that completed the
 * response). Latency is t_end - t_sched (CO-correct, the default) and t_end - t_send (actual);
 * send lag is t_send - t_sched.
 *
 * Errors are data: per-class counters; no error stops a run.
 * Threading: bench_run_point() is called from one thread; it owns the workers it starts.
 */
#ifndef LAT_BENCH_BENCH_H
#define LAT_BENCH_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/endpoints.h"
#include "core/buf.h"
#include "core/clock.h"
#include "hist/hist.h"
#include "hist/samples.h"
#include "net/conn.h"
#include "net/http1.h"

enum bench_err {
    BENCH_ERR_CONNECT = 0, /* connect failed or timed out */
    BENCH_ERR_TIMEOUT,     /* no complete response within the request timeout */
    BENCH_ERR_RESET,       /* reset, write failure, or close before the response completed */
    BENCH_ERR_HTTP_4XX,
    BENCH_ERR_HTTP_5XX,
    BENCH_ERR_MALFORMED, /* not a valid HTTP/1.1 response (or bytes after it) */
    BENCH_ERR_MISMATCH,  /* status class or body substring check failed */
    /* The HTTP exchange completed but the target's protocol did not (--target openai: a stream
     * cut before [DONE]/finish_reason, an error event, a body that is not SSE). */
    BENCH_ERR_STREAM,
    /* Client side: no file descriptor for the socket (EMFILE/ENFILE). Never the server's
     * fault: the point is INVALID and says to raise `ulimit -n`. */
    BENCH_ERR_CLIENT_FD,
    /* --target openai: the stream ended in order but incomplete: [DONE] without a
     * finish_reason (llama-cpp-python's interrupted streams), or fewer tokens than
     * min_tokens/ignore_eos demanded (llm_errors.truncated, the same requests). */
    BENCH_ERR_TRUNCATED,
    /* gRPC (grpc://): the call ended with a non-zero grpc-status (by code: bench_point.grpc),
     * the server reset the stream (RST_STREAM), or its GOAWAY refused or cut the stream. */
    BENCH_ERR_GRPC_STATUS,
    BENCH_ERR_RST_STREAM,
    BENCH_ERR_GOAWAY,
    BENCH_ERR__COUNT,
};

/* JSON/CSV names of the classes, indexed by enum bench_err (err-names.c, below the engine and
 * the reports that print them). */
extern const char *const bench_err_names[BENCH_ERR__COUNT];

enum bench_arrival { BENCH_ARRIVAL_CONSTANT = 0, BENCH_ARRIVAL_POISSON, BENCH_ARRIVAL_GAMMA };

/*
 * Optional per-request hooks (--target openai: src/bench/openai.h). With them the engine asks
 * a per-connection object for each request's bytes and feeds it every body chunk with its
 * recv() time; end is called once per request that began (bench_err -1: completed). All are
 * called on the connection's worker thread; cs objects are never shared between threads.
 */
struct bench_req_ops {
    void *(*conn_new)(void *ud, unsigned thread);
    void (*conn_free)(void *cs);
    int (*build)(void *cs, const char **req, size_t *len);
    void (*begin)(void *cs, lat_ns t_sched, lat_ns t_send);
    void (*body)(void *cs, const char *p, size_t n, lat_ns t_recv);
    /* Returns the request's final class: -1 (success) or an enum bench_err: bench_err, or the
     * class the target's own check found (e.g. BENCH_ERR_STREAM, BENCH_ERR_TRUNCATED), which
     * the engine then counts instead (one set of counters for the engine and the target). Requests
     * that never got their bytes built (connect failures) are begun with t_send = -1 just before
     * they end. */
    int (*end)(void *cs, int http_status, int bench_err, lat_ns t_end, bool measured);
    /* Optional (--cancel-after-tokens, and a cancelled request's first token): content token
     * events of the current request so far, and the arrival of its first one in *t_first
     * (0 when none yet). */
    uint64_t (*progress)(void *cs, lat_ns *t_first);
};

/*
 * A multiplexing transport (bench grpc://, bench/grpc.h): the engine's slots are streams on
 * connections the transport owns, not connections of their own. The engine still schedules,
 * times (t_sched, the request timeout) and counts every request; the transport opens its
 * connections on the worker's loop, starts each slot's request on one of them and reports its
 * end through done(), called on the worker thread, never from inside submit() for that slot
 * unless submit returned -1.
 */
struct lat_loop;
struct bench_mux_end {
    int cls;                       /* -1: success, else an enum bench_err */
    int status;                    /* HTTP :status, 0 when none came */
    lat_ns t_send, t_first, t_end; /* t_send: the request's first frame went out (0: unknown) */
    uint64_t bytes;                /* response payload bytes */
    int err;                       /* connect/reset: the connection's -errno, 0 when none */
};
typedef void (*bench_mux_done_fn)(void *slot, const struct bench_mux_end *end);
struct bench_mux_ops {
    /* Per worker thread: its state for nslots slots on loop; NULL when out of memory. */
    void *(*worker_new)(void *ud, struct lat_loop *loop, unsigned thread, unsigned nslots,
                        bench_mux_done_fn done);
    /* Starts slot idx's request (slot goes back in done()). -1, or an enum bench_err when it
     * could not start (then no done() comes; *err: the connect's -errno, 0 when none). */
    int (*submit)(void *mx, unsigned idx, void *slot, bool measured, int *err);
    /* The engine gave up on slot idx (timeout, interrupt): reset its stream; no done(). */
    void (*cancel)(void *mx, unsigned idx);
    void (*worker_free)(void *mx);
};

/* What to send and how to judge the answer; read-only and shared by all workers. */
struct bench_target {
    struct conn_target conn;
    struct http1_url url;
    const char *request; /* the complete HTTP/1.1 request bytes */
    size_t request_len;
    bool head;               /* the request is HEAD: responses have no body */
    int expect_class;        /* 2 => only 2xx is success; 0 => any status below 400 */
    const char *expect_body; /* substring the body must contain, or NULL */
    size_t expect_body_len;
    const struct bench_req_ops *ops; /* NULL: send `request` every time */
    void *ops_ud;
    const struct bench_mux_ops *mux; /* non-NULL: requests go through it (no `request`) */
    void *mux_ud;
    /* Optional, with ops and replay (bench_load.offsets): called before each dispatch with
     * the arrival's index in the offsets list, so request k gets trace line k whatever the
     * thread builds it. */
    void (*ops_seq)(void *cs, uint64_t k);
    /* Optional, with ops, closed loop: called when cs's request has ended; > 0 = wait that
     * long (think time, ns) before its next request, whose intended send time is then the end
     * plus the pause (--sessions). */
    lat_ns (*ops_think)(void *cs);
    /* Several endpoints (bench/endpoints.h): neps conn targets, eps[0] the same as conn, and
     * their URLs as given; neps 0 or 1: conn only. */
    const struct conn_target *eps;
    const char *const *ep_urls;
    unsigned neps;
};

/* One load point. Zero means "not set" for every limit. */
struct bench_load {
    unsigned concurrency; /* closed loop when rate == 0 */
    double rate;          /* open loop: requests per second, all threads together */
    enum bench_arrival arrival;
    double gamma_shape; /* k for BENCH_ARRIVAL_GAMMA */
    uint64_t seed;
    unsigned max_inflight; /* open loop cap on outstanding requests (default 1024) */
    unsigned connections;  /* open loop: connections opened up front (default 4 per thread) */
    lat_ns duration_ns;    /* measured time after the warmup */
    uint64_t requests;     /* measured requests after the warmup */
    lat_ns warmup_ns;
    uint64_t warmup_requests;
    /* Replay (open loop, rate > 0 as the nominal rate): intended send times as offsets (ns,
     * non-decreasing) from the point's start instead of a generated schedule; thread i takes
     * entries i, i+T, ...; the point ends after the last. NULL = generated schedule. */
    const lat_ns *offsets;
    size_t noffsets;
    /* Multi-host (src/bench/shard.h): this process runs shard `shard` of `nshards` (0 or 1:
     * the whole load). Open loop: thread i takes arrivals shard + nshards * (i + T * m) of the
     * one global schedule (and replay rows likewise), so the shards' union is exactly the
     * single-process schedule; rate stays the global rate. Closed-loop concurrency and request
     * counts are split by the caller (shard_split_load). */
    uint32_t shard, nshards;
    /* Absolute CLOCK_MONOTONIC start of the schedule (t0), e.g. from --start-at; 0 = now plus
     * a short set-up delay. A start already past is replaced by now plus that delay. */
    lat_ns start_at_ns;
};

/* Engine settings shared by every point of a run. */
struct bench_opts {
    unsigned threads;
    lat_ns connect_timeout_ns;  /* default 3 s */
    lat_ns request_timeout_ns;  /* default 10 s */
    lat_ns window_ns;           /* interval for progress, --stable windows, hlog (default 1 s) */
    lat_ns spin_ns;             /* open loop: poll instead of sleeping this close to a send */
    size_t exact_cap;           /* keep up to this many samples per thread for exact stats */
    bool keep_records;          /* keep every request's timestamps (for --records) */
    double max_send_lag_p99_ms; /* INVALID above this (default 1 ms) */
    /* closed loop: INVALID when the client gap p99 is above this (default 10 ms) */
    double max_client_gap_p99_ms;
    double max_thread_busy_pct; /* INVALID above this (default 95 %) */
    double max_error_frac;      /* INVALID when more than this share of requests fail (0.5) */
    enum bench_balance balance; /* several endpoints: --balance */
    struct bench_cancel cancel; /* --cancel-after, --cancel-after-tokens, --cancel-share */
};

#define BENCH_REC_INTERRUPTED (-2) /* bench_record.err: still in flight at an interrupt */
#define BENCH_REC_CANCELLED   (-3) /* bench_record.err: the client cancelled it (--cancel-*) */

/* One request's timestamps, for --records. */
struct bench_record {
    lat_ns t_sched, t_send, t_first, t_end;
    uint64_t bytes;
    int16_t status; /* HTTP status, 0 when none */
    int8_t err;     /* enum bench_err, -1 = success, BENCH_REC_INTERRUPTED */
    uint8_t thread;
};

/* Called by the driving thread once per window with the window's merged histograms. */
struct bench_window {
    lat_ns t_start, t_end; /* CLOCK_MONOTONIC */
    const struct lat_hist *lat, *lat_actual, *send_lag;
    uint64_t ok, errors, inflight;
    bool last; /* the point's final window (every worker has finished) */
    /* errors by class (they sum to errors) */
    uint64_t errors_by[BENCH_ERR__COUNT];
};

/* Stop rules evaluated after each window (the engine calls them; see stable/earlystop). */
struct bench_hooks {
    /* Returns true to end the point now (e.g. --stable reached). */
    bool (*window)(void *ud, const struct bench_window *w);
    void *ud;
    /* Call the hook for the final window even when it is empty (--mpi: every rank's window
     * sequence ends with a `last` one, bench/mpi.h). */
    bool always_last;
};

struct bench_result {
    struct lat_hist lat, lat_actual, send_lag, loop_lag, ttfb;
    /* Closed loop: a response's arrival to the next send on the same connection (the
     * client's own gap; think pauses excluded). Empty in an open loop. */
    struct lat_hist client_gap;
    struct lat_samples exact, exact_actual; /* valid when !exact.overflowed */
    bool have_exact;
    uint64_t ok;
    uint64_t errors[BENCH_ERR__COUNT];
    uint64_t errors_total;
    uint64_t inflight_cap_hits; /* sends delayed because max_inflight was reached */
    /* Measured requests still in flight when an interrupt (SIGINT) ended the point: neither
     * successes nor server errors. */
    uint64_t interrupted_requests;
    /* Reused keep-alive connections that failed before any response byte (the server had
     * closed them while idle) and whose request was sent again once on a fresh connection;
     * not errors (issue 17: never billed to the server). */
    uint64_t stale_retries;
    /* Measured responses after which the server closed the connection as it said it would
     * ("Connection: close", HTTP/1.0 without keep-alive): each cost the next request a connect
     * (doctor's keepalive-churn). */
    uint64_t server_closes;
    /* Listen-backlog evidence (issue 31): connects that took over BENCH_SLOW_CONNECT_NS (a
     * SYN the server's full backlog dropped is retransmitted after 1 s), the slowest connect,
     * and, for a loopback server, how much this host's TcpExt ListenOverflows / ListenDrops
     * (/proc/net/netstat) rose during the point (-1: not measured). */
    uint64_t slow_connects;
    lat_ns connect_max_ns;
    int connect_err; /* why the first failed connect failed (-errno or LAT_E_*), 0: none */
    int64_t listen_overflows, listen_drops;
    /* --cancel-*: measured requests the client cancelled (neither ok nor errors), and the
     * time from their intended send to their first token (openai) or first response byte,
     * for those that got one. */
    uint64_t cancelled;
    struct lat_hist cancel_first;
    /* Several endpoints: one line each (neps entries, ep_urls[i] names line i), else NULL. */
    struct bench_ep_stats *eps;
    const char *const *ep_urls;
    unsigned neps;
    bool ep_first_token;        /* eps[].first is the first token (openai), else the first byte */
    enum bench_balance balance; /* with eps */
    struct bench_cancel cancel; /* the run's settings (after_ns and after_tokens 0: none) */
    uint64_t bytes;
    lat_ns t_first_sched, t_last_end; /* measured window */
    /* The point's t0 (schedule start) on CLOCK_MONOTONIC and on CLOCK_REALTIME (ns since the
     * epoch), for merging shards run on other hosts (bench merge: start skew, union window). */
    lat_ns t0_ns, t0_unix_ns;
    lat_ns window_start_ns; /* CLOCK_MONOTONIC start of the window duration_s measures */
    bool have_window;       /* window_start_ns is set */
    /* duration_s: the window achieved_rps divides by. Closed loop: first intended send to
     * last response end. Open loop: the schedule's duration, from the start of the measured
     * schedule to its end: --duration, or the intended time of the first arrival that was
     * not sent when the point ended early (--requests, a stop rule, an interrupt), so `-r 2`
     * achieves 2 req/s, not ok / (last end - first send). */
    double duration_s, achieved_rps, offered_rps;
    double client_cpu_pct;      /* process CPU time / wall time, 100 = one core */
    double max_thread_busy_pct; /* busiest worker's non-waiting share of the wall time */
    bool valid;
    /* INVALID because of the client (send lag, a saturated worker thread, fd exhaustion):
     * the point says nothing about the server, so --find-max re-measures it instead of taking
     * it as an SLO miss. */
    bool invalid_client;
    /* INVALID only because the client sent late (send lag, --max-inflight not reached). The
     * latency still runs from each intended send, so the lag is inside it: a probe that meets
     * the SLO regardless is a conservative pass for --find-max (lag_pass, bench/loop.c). */
    bool invalid_send_lag;
    bool lag_pass;
    char invalid_reason[256];
    bool interrupted;
    bool stopped_by_rule; /* a window hook ended the point */
    struct bench_record *records;
    size_t nrecords;
};

void bench_opts_default(struct bench_opts *o);
/* Fills the defaults of the unset fields of l for opts (max_inflight, connections). */
void bench_load_finish(struct bench_load *l, const struct bench_opts *o);

/*
 * Runs one load point against t and fills *res (initialized here; free with
 * bench_result_fini). `stop` is polled: set it (e.g. from a SIGINT handler) to end the point
 * early; completed requests are still reported and res->interrupted is set.
 * Returns 0, or -errno/LAT_E_* when the point could not run at all (threads, memory).
 */
int bench_run_point(const struct bench_target *t, const struct bench_load *l,
                    const struct bench_opts *o, const struct bench_hooks *hooks,
                    volatile sig_atomic_t *stop, struct bench_result *res);
void bench_result_fini(struct bench_result *r);

#define BENCH_SLOW_CONNECT_NS (900 * 1000 * 1000LL) /* a connect this slow had a SYN retransmit */
/* Judges validity (send lag, thread saturation) and fills valid/invalid_reason. */
void bench_result_judge(struct bench_result *r, const struct bench_load *l,
                        const struct bench_opts *o);

#endif
