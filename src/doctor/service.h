/*
 * service.h - doctor's service rules: findings from a bench result (`latscope bench --format
 * json`), not from a trace. The command reads the result through diff's one bench-JSON reader
 * (diff_run_load) and hands each load point over as a struct doc_svc_point, so doctor does not
 * depend on diff (diff's trace compare runs doctor). The rules, their evidence and thresholds
 * are in docs/latscope-doctor.md ("Service rules").
 */
#ifndef LAT_DOCTOR_SERVICE_H
#define LAT_DOCTOR_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doctor/doctor.h"
#include "hist/hist.h"

/* One --slice window of a point: latencies in ms (NaN without a request). */
struct doc_svc_slice {
    double start_s, end_s;
    uint64_t requests, errors;
    double lat_p50, lat_p99, lat_max;
};

/* One load point of a bench result. Durations in ms; NaN when the result lacks it. */
struct doc_svc_point {
    const char *load; /* "concurrency 1", "rate 100 req/s" */
    bool valid;       /* false: bench marked the point INVALID */
    const char *why;  /* invalid_reason ("" when valid) */
    bool invalid_client;
    uint64_t ok, errors;
    double lat_p50, lat_p99, lat_mean; /* latency_ms (intended send) */
    double ttfb_p50, ttfb_p99;         /* ttfb_ms: first response byte */
    double send_lag_p99;               /* send_lag_ms */
    double client_cpu_pct, max_thread_busy_pct;
    int64_t
        inflight_cap_hits; /* > 0: send lag is the server's queue (--max-inflight), -1 unknown */
    const struct lat_hist *lat_hist; /* recorded latency histogram (ns) or NULL */
    double concurrency, rate;        /* closed-loop N / open-loop offered req/s, NaN */
    double achieved_rps, duration_s; /* NaN when absent */
    int64_t stale_retries;           /* re-sent on a fresh connection (keep-alive lost), -1 */
    int64_t server_closes;           /* responses the server closed after, as it said, -1 */
    int64_t slow_connects;           /* connects >= 0.9 s (SYN retransmit), -1 unknown */
    double connect_max_ms;           /* the slowest connect, NaN */
    int64_t listen_overflows, listen_drops; /* this host's TcpExt rise (loopback server), -1 */
    int64_t err_connect, err_timeout, err_reset, err_4xx, err_5xx; /* by class, -1 unknown */
    double lat_act_mean; /* latency_actual_ms mean (first request byte sent to end), NaN */
    /* the kserve target's Triton statistics ("server"): per-request means over the point, ms;
     * server_count <= 0 (0 or -1) when the result has none */
    int64_t server_count;
    double server_queue_ms, server_input_ms, server_infer_ms, server_output_ms;
    const struct doc_svc_slice *slices; /* --slice windows in time order, or NULL */
    size_t nslices;
    /* LLM streams (bench --target openai): llm false for any other target, and then none of
     * these is read. ms, NaN when absent; counts -1 when absent. */
    bool llm;
    double ttft_p50, ttft_mean, tpot_p50, tpot_mean, itl_p50, e2e_p50, e2e_mean;
    double out_tok_per_req, out_tok_s;    /* output tokens per ok request, output tokens/s */
    double input_tokens_mean;             /* ISL of the ok requests */
    int64_t burst_streams;                /* streams that arrived in one burst */
    double burst_ttft_mean_ms;            /* their mean TTFT */
    int64_t osl_mismatch;                 /* output token count != the max_tokens sent */
    int64_t isl_short;                    /* prompts the server counted below 90 % of those sent */
    double isl_usage_mean, isl_sent_mean; /* their prompt tokens: server's and latscope's */
};

/* One function of bench --server-pid's slow-vs-fast comparison ("server_profile/functions"):
 * its inclusive share of each side's server samples (%) and the change with its interval (points
 * of share; NaN without an interval). */
struct doc_svc_func {
    char *name;
    double pct_fast, pct_slow;
    double change, lo, hi;
    double depth; /* mean depth in the slow side's stacks (root = 0), NaN when absent */
};

/* bench --server-pid's result ("server_profile"; docs/latscope-bench-server-profile.md), read
 * by diff's bench reader; present only when the run had one. */
struct doc_svc_srvprof {
    bool present;
    int64_t pid;
    char comparison[128]; /* "ok", or why there is no comparison */
    char slow_rule[64];   /* "p99", "slo ..." */
    double slow_ms, fast_ms;
    uint64_t slow_requests, fast_requests, slow_samples, fast_samples;
    double slow_lat_ms, fast_lat_ms; /* latency means of each side */
    double slow_cpu_ms, fast_cpu_ms; /* server on-CPU time per request */
    double ambiguous_pct;            /* samples in more than one request's window */
    struct doc_svc_func *funcs;      /* the largest changes first, as bench wrote them */
    size_t nfuncs;
};

struct doc_svc_run {
    const char *path;
    const char *target, *mode;                  /* "http", "closed" */
    unsigned threads;                           /* client threads, 0 unknown */
    const char *fm_slo;                         /* --find-max: the SLO searched, or "" / NULL */
    double fm_max_rate, fm_lowest_failing_rate; /* its answer and bracket, NaN */
    const struct doc_svc_point *pts;
    size_t npts;
    const struct doc_svc_srvprof *srv; /* bench --server-pid's comparison, or NULL */
};

/* Runs the service rules on run and appends its summary and findings to r. 0, -ENOMEM or
 * LAT_E_USAGE. Call doctor_rank() afterwards. */
int doctor_run_service(struct doc_report *r, const struct doc_svc_run *run);

/* The rules kept in files of their own (src/doctor/rule-service-*.c), one row each in
 * service.c's table. A point rule judges one load point; a run rule (p NULL) the whole run. */
typedef void (*svc_rule_fn)(struct doc_report *r, const struct doc_svc_run *run,
                            const struct doc_svc_point *p, int ti);
void svc_rule_backlog(struct doc_report *r, const struct doc_svc_run *run,
                      const struct doc_svc_point *p, int ti);
void svc_rule_keepalive(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti);
void svc_rule_warmup(struct doc_report *r, const struct doc_svc_run *run,
                     const struct doc_svc_point *p, int ti);
void svc_rule_stalls(struct doc_report *r, const struct doc_svc_run *run,
                     const struct doc_svc_point *p, int ti);
void svc_rule_error_burst(struct doc_report *r, const struct doc_svc_run *run,
                          const struct doc_svc_point *p, int ti);
void svc_rule_knee(struct doc_report *r, const struct doc_svc_run *run,
                   const struct doc_svc_point *p, int ti);
void svc_rule_llm_ttft_growth(struct doc_report *r, const struct doc_svc_run *run,
                              const struct doc_svc_point *p, int ti);
/* True when enough of p's streams came in one burst that its TTFT and TPOT measure the
 * buffering, not the model (llm-burst-streams fires): the other LLM rules skip such a point. */
bool svc_llm_bursty(const struct doc_svc_point *p);
void svc_rule_llm_burst(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti);
void svc_rule_llm_phase(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti);
void svc_rule_llm_isl_cut(struct doc_report *r, const struct doc_svc_run *run,
                          const struct doc_svc_point *p, int ti);
void svc_rule_server_code(struct doc_report *r, const struct doc_svc_run *run,
                          const struct doc_svc_point *p, int ti);
void svc_rule_server_split(struct doc_report *r, const struct doc_svc_run *run,
                           const struct doc_svc_point *p, int ti);

#endif
