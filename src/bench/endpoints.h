/*
 * endpoints.h - several endpoints in one bench run (replicas with no balancer in front) and
 * request cancellation (clients that give up): the policies the engine applies per request,
 * kept pure so the unit tests drive them, plus the per-endpoint and cancellation parts of the
 * report (docs/latscope-bench.md "Several endpoints", "Cancellation"; docs/bench-json.md).
 *
 * Balancing: round-robin (closed loop: connection i of the run talks to endpoint i mod N for
 * its whole life; open loop: each thread's arrivals take the endpoints in turn) or
 * least-inflight (each request goes to the endpoint with the fewest requests in flight over
 * all threads, ties broken in turn, so equal endpoints still alternate).
 * Cancellation: a request cancels when the seeded hash of (seed, its issue number) falls below
 * the share; a cancelled request closes its connection (HTTP/1.1 has no other way) and is
 * counted in its own class, neither ok nor an error.
 */
#ifndef LAT_BENCH_ENDPOINTS_H
#define LAT_BENCH_ENDPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/topt.h"
#include "core/clock.h"
#include "hist/hist.h"

struct jsonw;
struct bench_result;

enum bench_balance { BENCH_BALANCE_ROUND_ROBIN = 0, BENCH_BALANCE_LEAST_INFLIGHT };

/* The most endpoints one run takes. */
#define BENCH_MAX_ENDPOINTS 64

/* "round-robin" / "least-inflight" (the JSON "balance"). */
const char *bench_balance_name(enum bench_balance b);
/* 0, or -1 for an unknown name. */
int bench_balance_parse(const char *s, enum bench_balance *out);

/*
 * The endpoint of the next request among n (n >= 1). inflight[i]: requests in flight on
 * endpoint i now (least-inflight; NULL for round-robin). *turn: the caller's rotation state
 * (one per thread), advanced here. Round-robin returns *turn mod n; least-inflight the endpoint
 * with the fewest in flight, the first from *turn on among equals.
 */
unsigned bench_ep_pick(enum bench_balance b, const unsigned *inflight, unsigned n, unsigned *turn);

/* Whether request number k (the run's issue order, warmup included) cancels: a seeded hash of
 * (seed, k) below share (0: never, >= 1: always). The same (seed, k, share) always answer the
 * same, whatever thread sends the request. */
bool bench_cancel_pick(uint64_t seed, uint64_t k, double share);

/* One endpoint's share of a point. */
struct bench_ep_stats {
    uint64_t ok, errors_total, cancelled, bytes;
    uint64_t errors[16];   /* enum bench_err (BENCH_ERR__COUNT <= 16) */
    struct lat_hist lat;   /* e2e from the intended send, successful requests */
    struct lat_hist first; /* their first token (targets with progress(): openai) or first
                            * response byte, from the intended send */
};

/* The cancellation settings of a run (bench_opts). */
struct bench_cancel {
    lat_ns after_ns;       /* --cancel-after (0: none) */
    uint32_t after_tokens; /* --cancel-after-tokens (0: none) */
    double share;          /* --cancel-share (0..1) */
};

/* The command's options of this group (bench/topt.h rows, handled by bench_ep_opt). */
struct bench_ep_cfg {
    const char *urls[BENCH_MAX_ENDPOINTS]; /* --endpoint URL, in order (after the positional) */
    size_t nurls;
    enum bench_balance balance;
    bool balance_set;
    struct bench_cancel cancel;
    bool share_set;
};
extern const struct bench_topt bench_ep_opts[];
/* One option of bench_ep_opts. 0, or -1 with why ("--OPT VALUE: what is wrong"). */
int bench_ep_opt(struct bench_ep_cfg *c, int id, const char *val, char *why, size_t whylen);
/* After the options: --cancel-share defaults to 1 with a cancel option and needs one. 0 or -1
 * with why. */
int bench_ep_finish(struct bench_ep_cfg *c, char *why, size_t whylen);

/* JSON keys "cancelled", "cancelled_first_ms" and (several endpoints) "endpoints" of a point. */
void bench_endpoints_write_json(struct jsonw *w, const struct bench_result *r);
/* The text lines of the same (nothing without several endpoints or a cancellation). */
void bench_endpoints_write_text(FILE *f, const struct bench_result *r, bool server_stats);
/* --format csv: with several endpoints, a table of its own after one empty line: one row per
 * endpoint of each point (the 1-based point in run order), times in us as the main table. */
void bench_endpoints_csv(FILE *f, const struct bench_result *const *res, size_t n);

#endif
