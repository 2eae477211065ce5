/*
 * target.h - `latscope bench` targets as plug-ins: what a request kind (http, kserve, openai)
 * adds to the generic engine, behind one table of operations.
 *
 * A target is one file (src/bench/http.c, kserve.c, openai.c) defining a
 * `const struct bench_target_ops bench_target_<name>` plus one line X(<name>) of the
 * BENCH_TARGETS list in src/bench/target.c (docs/architecture.md, "Recipe: add a bench target").
 * The command (src/cmd-bench.c) parses the common options and hands each option of the target's own
 * group to opt(); the point loop (src/bench/loop.c) calls setup() once,
 * before_point()/after_point() around each load point and window() once per engine window. Every
 * hook but name and create may be NULL. A target never prints: errors come back as a sentence in
 * `why`.
 */
#ifndef LAT_BENCH_TARGET_H
#define LAT_BENCH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/report.h"
#include "bench/shard.h"
#include "bench/topt.h"
#include "core/buf.h"
#include "core/clock.h"
#include "hist/hist.h"
#include "hist/hlog.h"
#include "net/http1.h"
#include "stats/search.h"

struct bench_slices;

/* What the common options give a target's setup(). */
struct bench_setup {
    const char *url;            /* as given */
    const char *const *headers; /* -H "Name: value", in order */
    size_t nheaders;
    const char *method;    /* -X, or NULL */
    const char *body_arg;  /* -d TEXT or -d @FILE, or NULL */
    uint64_t seed;         /* --seed */
    uint64_t max_input;    /* --max-input-size (0: the default, LLM_MAX_INPUT_BYTES) */
    uint64_t requests;     /* -n (a replaying target: the first N requests of its trace) */
    double confidence;     /* --confidence (0: none) */
    const struct slo *slo; /* --slo terms the bench judges, or NULL */
    const struct bench_shard *shard; /* this process's shard of the load */
    bool live; /* the live view is shown: a target with a live hook starts recording for it */
};

/* The common options a target may refuse in check(). */
struct bench_common {
    bool rate, concurrency, find_max, duration, warmup, stable;
    bool confidence, hdr_log, records, mpi;
};

/* Before each load point. */
struct bench_point_ctx {
    size_t index;             /* 0-based */
    struct hlog_writer *hlog; /* --hdr-log (NULL without): a target may add its intervals */
    lat_ns hlog_base;         /* the log's time zero (CLOCK_MONOTONIC) */
};

struct bench_target_ops {
    const char *name; /* --target NAME, the JSON "target" */
    /* Its group of options (heading row first), or NULL. Two groups may list the same long
     * name (kserve and openai both take --model): the selected target's row wins. */
    const struct bench_topt *opts;
    /* SLO terms on ttft, tpot, itl and chunk_gap are judged on this target's point summary
     * (bench_point.llm), not only e2e and send_lag. */
    bool llm_slo;
    /* It takes grpc:// URLs (kserve: the v2 GRPCInferenceService); the others are refused. */
    bool grpc;
    /* The default target for a URL without --target (kserve: a path under /v2/). */
    bool (*claims)(const struct http1_url *url);
    /* The target's state with its defaults; NULL when out of memory. */
    void *(*create)(void);
    /* One option of its group (id from its table; val NULL for a flag). Also called with
     * BENCH_TOPT_SLO for each common --slo value: 1 leaves it to the bench. 0, 1, or
     * LAT_E_USAGE with why ("--OPT VALUE: what is wrong"). */
    int (*opt)(void *st, int id, const char *val, char *why, size_t whylen);
    /* Refuses a combination of common options: 0, or LAT_E_USAGE with *opt (the option to
     * name) and *why set. */
    int (*check)(void *st, const struct bench_common *c, const char **opt, const char **why);
    /* Builds the target's requests (t->request or t->ops) for t->url; t->conn is resolved.
     * 0, -ENOMEM, or another negative code with why the whole message ("kserve: ..."). */
    int (*setup)(void *st, const struct bench_setup *s, struct bench_target *t, char *why,
                 size_t whylen);
    /* A replaying target: the intended send times of its one open-loop point (offsets from the
     * point's start, non-decreasing); NULL when it does not replay. */
    const lat_ns *(*schedule)(void *st, size_t *n);
    /* What each request is, host and port left out (the JSON "workload", for `latscope diff`). */
    void (*describe)(void *st, const struct bench_target *t, char *out, size_t cap);
    /* Once per engine window with --confidence: adds the per-request TTFT and TPOT recorded
     * since the last call to the cumulative histograms (llm_slo targets). */
    void (*window)(void *st, struct lat_hist *ttft, struct lat_hist *tpot);
    /* The live view (bench/live.h, only when bench_setup.live was set), once per engine
     * window: adds the TTFT of each request that ended since the last call to *ttft and
     * returns their output tokens (the server's count: usage, else its token events). */
    uint64_t (*live)(void *st, struct lat_hist *ttft);
    /* Time slices (--slice, bench/slices.h), after a point ran and before after_point: the
     * target's part of each slice (openai: TTFT/ITL and its own counts). 0 or -ENOMEM. */
    int (*slices)(void *st, struct bench_slices *s);
    void (*before_point)(void *st, const struct bench_point_ctx *pc, const struct bench_target *t);
    /* After the point ran: the target's part of p (p->server, p->llm...). 0, or a negative
     * code with why the name of what failed ("--records-detail"); the point still counts. */
    int (*after_point)(void *st, const struct bench_target *t, struct bench_point *p, char *why,
                       size_t whylen);
    /* Frees st (NULL allowed). */
    void (*destroy)(void *st);
};

/* What --mpi cannot do yet (a check() may name it). */
#define BENCH_MPI_NOT_YET                                                                          \
    "not yet with --target openai and --hdr-log, --records, --records-detail, --metrics-compat "   \
    "or --confidence: run --shard K/N per process and 'latscope bench merge' the results"

/* The id opt() gets for a common --slo value (a target id never uses it). */
#define BENCH_TOPT_SLO (-1)

/* Every target, in --help order, ended by NULL (src/bench/target.c). */
extern const struct bench_target_ops *const bench_targets[];
const struct bench_target_ops *bench_target_find(const char *name);
/* The target a URL gets without --target: the first that claims it, else http. */
const struct bench_target_ops *bench_target_default(const struct http1_url *url);

/* The built-in targets (one file each; the tests use them by name). */
extern const struct bench_target_ops bench_target_http;
extern const struct bench_target_ops bench_target_kserve;
extern const struct bench_target_ops bench_target_openai;

/* The row of ops's group named lname (without "--"), or NULL. */
const struct bench_topt *bench_target_row(const struct bench_target_ops *ops, const char *lname);

/* Helpers the targets share. */
/* -d TEXT or -d @FILE (at most max bytes, 0: LLM_MAX_INPUT_BYTES) into body (nothing without
 * -d). 0, -ENOMEM, or LAT_E_USAGE / -errno with why ("--body FILE: ..."). */
int bench_read_body(const struct bench_setup *s, struct lat_buf *body, char *why, size_t whylen);
/* The "workload" text of a fixed request: "NAME FIRST-LINE (LEN bytes, #FNV-1a hash)", the
 * hash over every line but Host. */
void bench_describe_request(char *out, size_t cap, const char *name, const char *req, size_t len);

#endif
