/*
 * diff.h - `latscope diff`: before/after comparison of bench results (bench JSON, HdrHistogram
 * interval logs) and of traces (anything ingest reads), with the statistics of diff/stats.h.
 * docs/latscope-diff.md describes every metric, test and verdict.
 *
 * Library code: loads and compares; never prints. cmd-diff.c renders the rows.
 */
#ifndef LAT_DIFF_DIFF_H
#define LAT_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "diff/stats.h"
#include "doctor/service.h"
#include "hist/hist.h"

enum diff_kind {
    DIFF_KIND_BENCH = 0, /* latscope bench --format json */
    DIFF_KIND_HLOG,      /* HdrHistogram interval log (bench --hdr-log) */
    DIFF_KIND_TRACE,     /* a trace file or a directory of rank traces */
    DIFF_KIND_RECORDS,   /* bench --records JSONL (one line per request) */
};
const char *diff_kind_name(enum diff_kind k);

/* Decides what path is from its first bytes (or being a directory). 0, or -errno,
 * LAT_E_TRUNCATED (0-byte file) or LAT_E_UNSUPPORTED with err saying what is wrong. */
int diff_sniff(const char *path, enum diff_kind *kind, char *err, size_t errsz);

/* ---- bench results ---- */

/* Latency families (a histogram and its summary keys each). */
enum diff_fam {
    DIFF_F_LAT = 0,   /* latency_ms (intended send) */
    DIFF_F_LAT_ACT,   /* latency_actual_ms */
    DIFF_F_TTFB,      /* ttfb_ms */
    DIFF_F_SEND_LAG,  /* send_lag_ms */
    DIFF_F_TTFT,      /* LLM ttft_ms */
    DIFF_F_TTFT_SEND, /* ttft_send_ms */
    DIFF_F_TPOT,      /* tpot_ms */
    DIFF_F_ITL,       /* itl_ms */
    DIFF_F_E2E,       /* e2e_ms */
    DIFF_F_E2E_SEND,  /* e2e_send_ms */
    DIFF_F__N,
};

/* Statistics of a family: mean, p50, p90, p95, p99, p99.9, max. */
#define DIFF_NSTAT 7
/* Scalars of a point. */
enum diff_scalar {
    DIFF_S_THROUGHPUT = 0, /* achieved_rps */
    DIFF_S_ERROR_RATE,     /* errors / (requests + errors) */
    DIFF_S_OUT_TOK_S,      /* LLM output_tokens_per_s */
    DIFF_S_GOODPUT,        /* LLM goodput_rps */
    DIFF_S_GOODPUT_FRAC,   /* LLM goodput_fraction */
    DIFF_S_OUT_TOK_REQ,    /* LLM output tokens per successful request (workload check) */
    DIFF_S__N,
};

struct diff_point {
    char load[64];                      /* "concurrency 4", "rate 100 req/s", "whole log" */
    bool valid;                         /* false: INVALID in bench */
    char why[256];                      /* invalid_reason */
    uint64_t ok;                        /* successful requests */
    uint64_t errors;                    /* failed requests */
    double stat[DIFF_F__N][DIFF_NSTAT]; /* ms; NaN when absent */
    double scalar[DIFF_S__N];           /* NaN when absent */
    struct lat_hist *hist[DIFF_F__N];   /* recorded histogram (ns) or NULL */
    /* the client's own load (bench JSON; NaN / false when absent): doctor's client-limited */
    double client_cpu_pct;      /* client CPU, % of one core, all threads */
    double max_thread_busy_pct; /* the busiest client thread's busy time, % */
    bool invalid_client;        /* INVALID because the client could not keep up */
    int64_t inflight_cap_hits;  /* sends held by --max-inflight (the server's queue), -1 absent */
    /* the load and the connection evidence (bench JSON; NaN / -1 when absent): doctor's
     * service rules */
    double concurrency, rate; /* the point's closed-loop N or open-loop offered req/s */
    double duration_s;        /* the throughput window */
    int64_t stale_retries;    /* requests sent again on a fresh connection (keep-alive lost) */
    int64_t server_closes;    /* responses the server closed after ("Connection: close") */
    int64_t slow_connects;    /* backlog/slow_connects: connects >= 0.9 s (SYN retransmit) */
    double connect_max_ms;    /* backlog/connect_max_ms */
    int64_t listen_overflows, listen_drops; /* backlog/: loopback server's TcpExt rise */
    int64_t err_connect, err_timeout, err_reset, err_4xx, err_5xx; /* errors by class */
    /* "server" (kserve target: Triton statistics, per-request means over the point, ms; count
     * -1 and NaN when absent): doctor's server-split */
    int64_t srv_count;
    double srv_queue_ms, srv_input_ms, srv_infer_ms, srv_output_ms;
    struct diff_slice *slices; /* --slice windows, in time order, or NULL */
    size_t nslices, slices_cap;
    /* LLM streams (bench --target openai; -1 / NaN when absent): doctor's llm-* rules */
    int64_t burst_streams;     /* streams that arrived in one burst */
    double burst_ttft_mean_ms; /* their mean TTFT */
    int64_t osl_mismatch;      /* requests whose output token count != max_tokens sent */
    int64_t isl_short;         /* isl_short/requests: prompts the server counted < 90 % of */
    double isl_usage_mean, isl_sent_mean; /* isl_short/usage_mean, sent_mean */
    double input_tokens_mean;             /* ISL of the ok requests */
};

/* One --slice window of a point (bench JSON "slices"); latencies in ms, NaN without one. */
struct diff_slice {
    double start_s, end_s;
    uint64_t requests, errors;
    double lat_p50, lat_p99, lat_max;
};

struct diff_run {
    char *path;
    enum diff_kind kind;
    char target[32], mode[32], arrival[32], rx_time[16], estimator[16];
    char *workload; /* or NULL */
    bool llm;
    unsigned threads; /* client threads ("threads"), 0 when absent */
    /* --find-max: the SLO searched and its answer ("find_max"; slo empty without one) */
    char fm_slo[128], fm_search[16];
    double fm_max_rate, fm_lowest_failing_rate; /* NaN when null */
    struct diff_point *pts;
    size_t npts, pts_cap;
    struct doc_svc_srvprof srv; /* "server_profile" (bench --server-pid); srv.present */
};

/* Loads a bench JSON, an HDR log or bench --records JSONL. 0, or LAT_E_* / -errno with err naming
 * the file, where and what (what to give instead). Free with diff_run_free(). */
int diff_run_load(const char *path, enum diff_kind kind, struct diff_run **out, char *err,
                  size_t errsz);
/* The same on a document in memory (name is used in messages); doc need not be NUL-terminated. */
int diff_run_parse(const char *name, enum diff_kind kind, const char *doc, size_t n,
                   struct diff_run **out, char *err, size_t errsz);
void diff_run_free(struct diff_run *r);

struct doc_report;
/* doctor's service rules (doctor/service.h) on every load point of run, appended to r (call
 * doctor_rank() afterwards): the one path of doctor, bench --doctor and diff on bench results.
 * 0, -ENOMEM or LAT_E_USAGE. */
int diff_run_doctor(struct doc_report *r, const struct diff_run *run);

enum diff_verdict {
    DIFF_V_NONE = 0,   /* no interval: cannot say */
    DIFF_V_SAME,       /* the interval contains 0: no significant change */
    DIFF_V_NOISE,      /* significant, but inside the --noise band */
    DIFF_V_REGRESSION, /* significant and worse */
    DIFF_V_IMPROVEMENT /* significant and better */
};
const char *diff_verdict_name(enum diff_verdict v);

struct diff_row {
    const char *load;                       /* the matched load (points into a run) */
    char key[32];                           /* "latency.p99", "throughput", ... */
    char label[48];                         /* "p99 latency (intended)" */
    const char *unit;                       /* "ms", "req/s", "%", "tok/s" */
    bool lower_better;                      /* latency, errors */
    double before, after, delta, delta_pct; /* delta_pct NaN when before is 0 */
    struct dstat_ci ci;                     /* of after - before, in the unit */
    struct dstat_ci ci_pct;                 /* of the relative change, in % */
    const char *method;                     /* "bootstrap", "welch", "welch-runs", ... */
    /* The values' resolution in the unit (the widths of the histogram buckets holding before
     * and after, added), 0 unknown: a zero-width interval becomes d +- res (diff_row_finish) */
    double res;
    enum diff_verdict verdict;
    bool flagged; /* an INVALID point on a side */
};

struct diff_bench_opts {
    double conf;        /* 0.95 */
    unsigned resamples; /* 10000 */
    uint64_t seed;      /* 1 */
    double noise_pct;   /* 0: off */
};
void diff_bench_opts_default(struct diff_bench_opts *o);

struct diff_bench_result {
    struct diff_row *rows;
    size_t nrows, rows_cap;
    char **notes; /* warnings: INVALID points, different workloads/clocks, unmatched loads */
    size_t nnotes, notes_cap;
    size_t nloads; /* matched loads */
    /* doctor's service rules on each side (bench results only; service_findings false for HDR
     * logs and records): resolved / new / changed / unchanged */
    bool service_findings;
    struct diff_finding *findings;
    size_t nfindings, findings_cap;
};

/* Compares na runs (before) with nb runs (after): points matched by load, every metric both
 * sides have. 0, LAT_E_USAGE with err (no load in common, mixed kinds), or -ENOMEM. */
int diff_bench_compare(struct diff_run *const *a, size_t na, struct diff_run *const *b, size_t nb,
                       const struct diff_bench_opts *o, struct diff_bench_result *out, char *err,
                       size_t errsz);
void diff_bench_result_fini(struct diff_bench_result *r);

/* --fail-if 'METRIC OP SIGNED%': METRIC a row key or an alias (p50, p99, mean, throughput,
 * errors, ttft, tpot ...), OP '>' or '<'. */
struct diff_rule {
    char text[96];
    char metric[32];
    bool gt;      /* '>': fires when the change exceeds limit; '<': falls below it */
    double limit; /* percent */
};
int diff_rule_parse(const char *s, struct diff_rule *r, const char **why);
/* True when row matches the rule's metric. */
bool diff_rule_matches(const struct diff_rule *r, const struct diff_row *row);
/* True when the rule fires on row: significant regression or improvement (not NONE, SAME or
 * NOISE) whose change passes the limit in the rule's direction. */
bool diff_rule_fires(const struct diff_rule *r, const struct diff_row *row);

/* ---- traces ---- */

struct lat_trace;

enum diff_device { DIFF_DEV_ALL = 0, DIFF_DEV_CPU, DIFF_DEV_GPU };

struct diff_trace_opts {
    int32_t rank;         /* only this rank (-1: every rank) */
    const int32_t *iters; /* only these ProfilerStep numbers (NULL: the whole trace) */
    size_t niters;
    enum diff_device device; /* HTA's device filter: CPU = stream -1, GPU = any other stream */
    double conf;             /* 0.95 */
    bool include_last_step;  /* analyze --include-last-step for the step rows */
    bool normalize;          /* match names by diff_normalize_name() */
};
void diff_trace_opts_default(struct diff_trace_opts *o);
/* The name a kernel or op is matched by with --normalize: template and argument lists become
 * "<...>" and "(...)", "#<digits>" becomes "#N" (ProfilerStep#12), a trailing "_<digits>" becomes
 * "_N" (generated kernels: triton_poi_fused_add_0). Writes at most cap bytes (NUL-terminated);
 * returns the full length. */
size_t diff_normalize_name(const char *in, char *out, size_t cap);

/* One name (HTA TraceDiff: count and total duration summed over categories) on one side of
 * the device split. Index 0 = before (control), 1 = after (test). */
struct diff_op {
    const char *name; /* owned by the result */
    bool gpu;         /* stream != -1 */
    uint64_t count[2];
    lat_ns dur[2];
    char change;        /* '+' count grew, '-' fell, '=' same (counts_change_categories) */
    const char *status; /* "added", "deleted", "increased", "decreased", "unchanged" */
    double step_share;  /* delta duration / delta total step time (NaN when undefined) */
};

/* A doctor finding (by rule id and rank, or a service finding's load point) before and after. */
struct diff_finding {
    char id[48];
    int32_t rank;
    char load[64];   /* a bench result's finding: its load point ("" for a run rule or a trace) */
    char title[200]; /* the after title when present, else the before one */
    bool in[2];      /* present before / after */
    double saving_pct[2], saving_us[2];
    int severity[2];    /* enum doc_severity, -1 when absent */
    const char *status; /* "resolved" (the rule ran after and found nothing), "new", "changed",
                         * "unchanged", "not judged after" (no rule looked inside the after
                         * side's steps, or too few steps for a step-variance finding) */
};

/* A function of the CPU samples (latscope trace --cpu): its self (leaf) and total (anywhere on
 * the stack) samples as a share of the side's on-CPU samples, and the two-proportion interval
 * (Newcombe's hybrid score, dstat_prop_diff) of the change of each share, as a fraction. */
struct diff_cpu_func {
    const char *name; /* owned by the result */
    uint64_t self[2], total[2];
    uint64_t depth_sum[2]; /* Σ over each side's `total` samples of its depth (root = 0): the
                            * mean depth depth_sum / total tells callers from callees */
    struct dstat_ci ci_self, ci_total;
};

struct diff_trace_result {
    struct diff_cpu_func *cpu; /* by change of total share, largest increase first */
    size_t ncpu;
    uint64_t cpu_samples[2];       /* on-CPU samples per side (0: no CPU samples) */
    char *cpu_pool;                /* their names */
    struct diff_finding *findings; /* resolved, then new, then changed */
    size_t nfindings, findings_cap;
    struct diff_op *ops; /* by delta duration, largest increase first */
    size_t nops, ops_cap;
    struct diff_bench_result scal; /* step, temporal and idle rows (load = the section), notes */
    uint64_t steps[2];             /* ProfilerSteps compared per side */
    uint64_t doc_steps[2];         /* steps the doctor judged per side (ONNX Runtime: its runs) */
    double step_total_delta_ns;    /* Σ step durations after - before (NaN without steps) */
    char *pool;                    /* names */
    size_t pool_len, pool_cap;
};

/* Compares the traces of two runs (each side: one trace per rank). 0, LAT_E_USAGE with err
 * (the rank or iteration selects nothing), or -ENOMEM. */
int diff_trace_compare(struct lat_trace *const *a, size_t na, struct lat_trace *const *b, size_t nb,
                       const struct diff_trace_opts *o, struct diff_trace_result *out, char *err,
                       size_t errsz);
void diff_trace_result_fini(struct diff_trace_result *r);
/* The CPU rows of a comparison from CPU summaries already made (analyze/cpu.h: sum[0..na) the
 * before side, sum[na..na + nb) the after side, each with every function: top_n SIZE_MAX):
 * adds to out->cpu_samples, fills out->cpu / ncpu / cpu_pool (freed by
 * diff_trace_result_fini), intervals at confidence conf. `latscope diff` and bench
 * --server-pid (slow against fast requests) share it. 0 or -ENOMEM. */
struct lat_cpu_summary;
int diff_cpu_rows(const struct lat_cpu_summary *sum, size_t na, size_t nb, double conf,
                  struct diff_trace_result *out);

/* ---- JSON documents (diff/json.c): what `latscope diff --format json` prints ---- */

struct jsonw;
/* The --fail-if outcome of each rule (NULL: no rules). */
struct diff_json_rules {
    const struct diff_rule *rules;
    size_t n;
    const bool *fired;
    const bool *untested; /* did not fire, and no row matched or a matching one had no interval */
    const struct diff_row *const *first; /* fired on, else the first untested row (or NULL) */
};
/* Decimals a value of unit is shown with ("ms": 3). */
int diff_unit_decimals(const char *unit);
/* "info", "low", "medium", "high" for enum doc_severity, "-" for anything else. */
const char *diff_severity_name(int s);
/* Share of one side's on-CPU samples in % (NAN without samples), k[side] of r->cpu_samples. */
double diff_cpu_share(const struct diff_trace_result *r, const uint64_t *k, int side);
/* "larger share", "smaller share", "no significant change" or "-" for a share-change interval. */
const char *diff_cpu_verdict(const struct dstat_ci *ci);
void diff_bench_write_json(struct jsonw *w, const char *const *a, size_t na, const char *const *b,
                           size_t nb, const struct diff_bench_opts *o,
                           const struct diff_bench_result *res,
                           const struct diff_json_rules *rules);
void diff_trace_write_json(struct jsonw *w, const char *a, const char *b,
                           const struct diff_trace_opts *o, const struct diff_trace_result *r,
                           const struct diff_json_rules *rules);

#endif
