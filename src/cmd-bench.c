/*
 * cmd-bench.c - `latscope bench`: load-test an inference server and measure latency correctly.
 *
 * This file owns the option table (the common rows plus each target's group, bench/target.h,
 * parsed by cli_parse()), sets the selected target up, expands the load points (concurrency or
 * rate sweeps, --find-max probes), opens the output files, runs the points (bench/loop.c, on
 * the engine of bench/engine.c), and prints the results (bench/report.c): a table on stdout by
 * default, or JSON / CSV. Diagnostics and the live view go to stderr; the live view only on a TTY.
 * Ctrl-C stops the current point cleanly: the in-flight requests get a short grace period and
 * every completed request is still reported. Exit status: 0 every point valid, 1 a point is
 * INVALID (or the run was interrupted), 2 usage or setup error.
 */
#define PR_FMT "bench"
#include "bench/bench.h"
#include "bench/live.h"
#include "bench/loop.h"
#include "bench/mpi.h"
#include "bench/opts.h"
#include "bench/report.h"
#include "bench/sessions.h"
#include "bench/shard.h"
#include "bench/slices.h"
#include "bench/srvprof.h"
#include "bench/target.h"
#include "bench/telemetry.h"
#include "core/err.h"
#include "core/log.h"
#include "core/units.h"
#include "diff/diff.h"
#include "doctor/doctor.h"
#include "hist/hlog.h"
#include "latscope.h"
#include "stats/search.h"
#include "stats/stable.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t bench_stop;

static void on_sigint(int sig)
{
    bench_stop++;
}

static const char usage_text[] =
    "usage: latscope bench [OPTIONS] URL\n"
    "\n"
    "Load-tests an HTTP or KServe v2 inference server and reports latency measured from the\n"
    "intended send time (CO-correct) and from the actual send, side by side.\n"
    "\n";

static const char footer_text[] =
    "Exit status: 0 all points valid, 1 a point INVALID or interrupted, 2 usage/setup error.\n"
    "See docs/latscope-bench.md and docs/bench-json.md.\n";

enum {
    OPT_TARGET = 256,
    OPT_METHOD,
    OPT_HEADER,
    OPT_BODY,
    OPT_EXPECT_STATUS,
    OPT_EXPECT_BODY,
    OPT_INSECURE,
    OPT_RX_TIME,
    OPT_CONCURRENCY,
    OPT_RATE,
    OPT_ARRIVAL,
    OPT_SEED,
    OPT_MAX_INFLIGHT,
    OPT_CONNECTIONS,
    OPT_THREADS,
    OPT_DURATION,
    OPT_REQUESTS,
    OPT_WARMUP,
    OPT_CONNECT_TIMEOUT,
    OPT_TIMEOUT,
    OPT_WINDOW,
    OPT_FORMAT,
    OPT_HDR_LOG,
    OPT_RECORDS,
    OPT_EXACT,
    OPT_MAX_SEND_LAG,
    OPT_MAX_CLIENT_GAP,
    OPT_STABLE,
    OPT_SLO,
    OPT_CONFIDENCE,
    OPT_FIND_MAX,
    OPT_MAX_RATE,
    OPT_PRECISION,
    OPT_MAX_INPUT_SIZE,
    OPT_MAX_ERROR_RATE,
    OPT_GPU_METRICS_URL,
    OPT_GPU_TELEMETRY,
    OPT_GPU_INTERVAL,
    OPT_SLICE,
    OPT_LIVE,
    OPT_DOCTOR,
    /* the rows of the groups (targets, multi-host): OPT_GROUP + their index in the table */
    OPT_GROUP = 0x400,
};

/* The bench's own options; each target's group (bench/target.h) and the multi-host group
 * (bench/shard.h) follow them in the table build_table() makes. */
static const struct cli_opt common_opts[] = {
    {NULL, 0, NULL, 0, 0, "Target"},
    {"target", 0, "NAME", OPT_TARGET, 0, NULL /* build_table(): the names of bench_targets[] */},
    {"method", 'X', "M", OPT_METHOD, 0, "HTTP method (default GET, or POST with a body)"},
    {"header", 'H', "'K: V'", OPT_HEADER, 0, "extra request header (repeatable)"},
    {"body", 'd', "TEXT|@FILE", OPT_BODY, 0,
     "request body, sent as given (also to /v2/ URLs); JSON\n"
     "Content-Type unless -H gives one"},
    {"expect-status", 0, "2xx|any", OPT_EXPECT_STATUS, 0, "success status class (default 2xx)"},
    {"expect-body", 0, "TEXT", OPT_EXPECT_BODY, 0, "the response body must contain TEXT"},
    {"insecure", 0, NULL, OPT_INSECURE, 0, "https: do not verify the server certificate"},
    {"rx-time", 0, "kernel|user", OPT_RX_TIME, 0,
     "arrival time of response bytes: the kernel's receive time\n"
     "(default; plain TCP) or when recv() returned"},
    {NULL, 0, NULL, 0, 0, "Load (closed loop by default)"},
    {"concurrency", 'c', "LIST", OPT_CONCURRENCY, 0,
     "closed loop: connections each with one request in flight;\n"
     "a sweep: 1,2,4,8 or 1:64:x2 or 2:10:2 (default 1)"},
    {"rate", 'r', "LIST", OPT_RATE, 0, "open loop: requests/s; a sweep: 100 or 10:200:10 or 10,50"},
    {"arrival", 0, "constant|poisson|gamma:K", OPT_ARRIVAL, 0,
     "open-loop arrivals (default poisson)"},
    {"seed", 0, "N", OPT_SEED, 0, "schedule seed (default 1): same seed, same schedule"},
    {"max-inflight", 0, "N", OPT_MAX_INFLIGHT, 0,
     "open loop: most requests outstanding (default 1024)"},
    {"connections", 0, "N", OPT_CONNECTIONS, 0,
     "open loop: connections opened up front (default 4/thread)"},
    {"threads", 't', "N", OPT_THREADS, 0, "worker threads (default: one per core)"},
    {"duration", 0, "D", OPT_DURATION, 0,
     "measured time per point (default 10s unless --requests)"},
    {"requests", 'n', "N", OPT_REQUESTS, 0, "measured requests per point"},
    {"warmup", 0, "D|N", OPT_WARMUP, 0,
     "excluded warmup: a duration (2s) or a request count (100)"},
    {"connect-timeout", 0, "D", OPT_CONNECT_TIMEOUT, 0, "default 3s"},
    {"timeout", 0, "D", OPT_TIMEOUT, 0,
     "request timeout (default 10s); counted as 'timeout' errors"},
    {"window", 0, "D", OPT_WINDOW, 0, "live view / --stable / hlog interval (default 1s)"},
    {NULL, 0, NULL, 0, 0, "Stopping rules and SLOs"},
    {"stable", 0, NULL, OPT_STABLE, 0,
     "end a point when 3 windows agree within 10 % on throughput\n"
     "and mean latency (perf_analyzer's rule; gives up after 10)"},
    {"slo", 0, "'p99<=200ms[,...]'", OPT_SLO, 0,
     "latency objective(s); a point that misses it is INVALID\n"
     "(--target openai: also 'ttft.p99<=500ms', tpot, itl)"},
    {"confidence", 0, "C", OPT_CONFIDENCE, 0,
     "with --slo: LoadGen early stopping at confidence C (0.99):\n"
     "end the point once the claim holds; else say how many more\n"
     "requests it needs (openai: also ttft and tpot terms, tested\n"
     "on each request's own value)"},
    {"find-max", 0, NULL, OPT_FIND_MAX, 0,
     "with --slo: highest open-loop rate meeting the SLO (double,\n"
     "then bisect; start at --rate, default 10); with\n"
     "--concurrency LO:HI (or a start N): the highest concurrency\n"
     "(closed loop, whole steps; N alone searches 1..max(N, 1024))"},
    {"max-rate", 0, "R", OPT_MAX_RATE, 0, "--find-max upper limit (default 1000000)"},
    {"precision", 0, "F", OPT_PRECISION, 0, "--find-max relative precision (default 0.05)"},
    {NULL, 0, NULL, 0, 0, "Output"},
    {"format", 0, "text|json|csv", OPT_FORMAT, 0, "stdout format (default text)"},
    {"doctor", 0, NULL, OPT_DOCTOR, 0,
     "after the run, latscope doctor on its result (the service\n"
     "rules): after the text report on stdout; on stderr with\n"
     "--format json/csv"},
    {"live", 0, "auto|on|off", OPT_LIVE, 0,
     "a status line on stderr redrawn each --window while a point\n"
     "runs, erased when it ends; auto (default): when stderr is a\n"
     "terminal (TERM not dumb); on: also TERM=dumb; never into a\n"
     "pipe or file"},
    {"hdr-log", 0, "FILE", OPT_HDR_LOG, 0,
     "HdrHistogram V2 interval log (tags lat.sched, lat.send, send_lag)"},
    {"records", 0, "FILE", OPT_RECORDS, 0,
     "one JSON line per request (timestamps, status, error class)"},
    {"exact", 0, "N", OPT_EXACT, 0,
     "keep up to N samples per thread for exact percentiles (default 100000)"},
    {"max-send-lag", 0, "MS", OPT_MAX_SEND_LAG, 0,
     "INVALID when send-lag p99 exceeds this (default 1)"},
    {"max-client-gap", 0, "MS", OPT_MAX_CLIENT_GAP, 0,
     "closed loop: INVALID when the client's gap p99 (a response\n"
     "to the next send on its connection) exceeds this (default 10)"},
    {"max-error-rate", 0, "F", OPT_MAX_ERROR_RATE, 0,
     "INVALID when more than this share of requests fail\n"
     "(default 0.5: a point whose requests mostly fail)"},
    {"max-input-size", 0, "N", OPT_MAX_INPUT_SIZE, 0,
     "largest -d @FILE, --input @FILE, --prompts or --replay\n"
     "file read (bytes, k/M/G = 1000s; default 256M)"},
    {NULL, 0, NULL, 0, 0,
     "GPU telemetry and time slices (per point, over time, next to latency;\n"
     "docs/latscope-bench.md)"},
    {"gpu-metrics-url", 0, "URL", OPT_GPU_METRICS_URL, 0,
     "scrape a DCGM exporter (http://HOST:9400/metrics) when each\n"
     "point begins, every --gpu-interval, and when it ends"},
    {"gpu-telemetry", 0, "dcgm|nvml", OPT_GPU_TELEMETRY, 0,
     "dcgm: --gpu-metrics-url, default http://localhost:9400/metrics;\n"
     "nvml: sample NVML instead (dlopen libnvidia-ml.so.1; without a\n"
     "driver the run goes on without telemetry and says so)"},
    {"gpu-interval", 0, "D", OPT_GPU_INTERVAL, 0, "sampling interval (default 500ms)"},
    {"slice", 0, "D", OPT_SLICE, 0,
     "per-window statistics across each point (requests, req/s,\n"
     "errors, p50/p90/p99; TTFT/ITL with --target openai; GPU\n"
     "telemetry when sampled): a request counts in the window its\n"
     "response ended in"},
    {0},
};

/* "http, kserve or openai": the names of bench_targets[]. */
static const char *target_names(void)
{
    static char names[256];
    if (names[0]) return names;
    size_t n = 0, len = 0;
    while (bench_targets[n])
        n++;
    for (size_t i = 0; i < n && len < sizeof(names); i++)
        len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                i == 0       ? ""
                                : i + 1 == n ? " or "
                                             : ", ",
                                bench_targets[i]->name);
    return names;
}

/* The whole table: the common rows, then each target's group, then the multi-host group. A
 * group row's id is OPT_GROUP + its index; group_src[index] says whose row it is (a target's
 * index in bench_targets[], or -1 for multi-host). A long name an earlier row already has is
 * CLI_HELP_ONLY (listed, parsed as the earlier row). */
#define BENCH_TABLE_MAX 200
static struct cli_opt table[BENCH_TABLE_MAX];
static const struct bench_topt *table_src[BENCH_TABLE_MAX];
static int table_group[BENCH_TABLE_MAX];

/* table_group[] of the rows of bench_ep_opts (bench/endpoints.h). */
#define GROUP_EP (-2)
/* ... and of bench_srv_opts (bench/srvprof.h) */
#define GROUP_SRV (-3)

static size_t add_group(size_t n, const struct bench_topt *g, int group)
{
    for (; g && (g->lname || g->help) && n + 1 < BENCH_TABLE_MAX; g++, n++) {
        unsigned flags = g->flags;
        for (size_t k = 0; g->lname && k < n; k++)
            if (table[k].lname && !strcmp(table[k].lname, g->lname)) flags |= CLI_HELP_ONLY;
        table[n] = (struct cli_opt){g->lname, g->sname, g->arg, OPT_GROUP + (int)n, flags, g->help};
        table_src[n] = g;
        table_group[n] = group;
    }
    return n;
}

static const struct cli_opt *build_table(void)
{
    size_t n = 0;
    if (table[0].help) return table;
    static char target_help[400];
    snprintf(target_help, sizeof(target_help),
             "request kind: %s (default: kserve when\n"
             "the URL path starts with /v2/, else http); the targets'\n"
             "own options follow the common ones",
             target_names());
    while (common_opts[n].lname || common_opts[n].help) {
        table[n] = common_opts[n];
        if (table[n].id == OPT_TARGET) table[n].help = target_help;
        n++;
    }
    for (int i = 0; bench_targets[i]; i++)
        n = add_group(n, bench_targets[i]->opts, i);
    n = add_group(n, bench_shard_opts, -1);
    n = add_group(n, bench_ep_opts, GROUP_EP);   /* several endpoints, cancellation */
    n = add_group(n, bench_srv_opts, GROUP_SRV); /* --server-pid */
    table[n] = (struct cli_opt){0};
    return table;
}

/* A target option or an --slo value, applied once the target is known. */
struct deferred {
    int row; /* index in table[], or -1 for --slo */
    const char *val;
};

struct cli {
    const char *url;
    const char *gpu_url, *gpu_mode, *gpu_interval; /* --gpu-metrics-url, --gpu-telemetry, ... */
    lat_ns slice_ns;                               /* --slice, 0: none */
    const char *live;                              /* --live auto|on|off (NULL: auto) */
    const struct bench_target_ops *tops;           /* --target (else from the URL) */
    void *tst;                                     /* its state */
    const char *method;
    const char **headers;
    size_t nheaders, headers_cap;
    const char *body_arg;
    int expect_class;
    const char *expect_body;
    bool insecure;
    bool rx_user; /* --rx-time user */
    const char *conc_arg, *rate_arg;
    enum bench_arrival arrival;
    double gamma_shape;
    const char *arrival_name;
    uint64_t seed;
    unsigned max_inflight, connections;
    lat_ns duration_ns, warmup_ns;
    uint64_t requests, warmup_requests;
    enum lat_format format;
    const char *hdr_log, *records;
    bool stable, find_max, doctor;
    bool llm; /* the target judges ttft/tpot/itl/chunk_gap SLO terms on its summary */
    const char *slo_text;
    struct slo slo;
    double confidence, max_rate, precision;
    uint64_t max_input; /* --max-input-size (0: LLM_MAX_INPUT_BYTES) */
    struct bench_opts eng;
    struct bench_shard *shard;
    struct bench_ep_cfg ep; /* several endpoints, cancellation (bench/endpoints.h) */
    struct deferred *later;
    size_t nlater;
    struct srvprof_cfg srv; /* --server-pid (pid 0: none) */
};

static int usage_error(const char *opt, const char *why)
{
    pr_err("%s: %s (see 'latscope bench --help')\n", opt, why);
    return LAT_EXIT_USAGE;
}

static int parse_duration_opt(const char *opt, const char *v, lat_ns *out)
{
    if (units_parse_duration(v, LAT_NS_PER_S, out) < 0 || *out <= 0)
        return usage_error(opt, "expected a positive duration such as 10s, 500ms or 2m");
    return 0;
}

static int parse_count_opt(const char *opt, const char *v, uint64_t *out, uint64_t max)
{
    if (units_parse_count(v, out) < 0 || *out == 0 || *out > max)
        return usage_error(opt, "expected a positive whole number");
    return 0;
}

/* The bench's own --slo value (after the target declined it). 0 or an exit code. */
static int bench_slo(struct cli *c, const char *val)
{
    const char *why = NULL;
    if (slo_parse(val, &c->slo, &why) < 0) return usage_error("--slo", why);
    for (int i = 0; i < c->slo.n; i++) {
        const struct slo_term *t = &c->slo.t[i];
        if (!strcmp(t->metric, "e2e") || !strcmp(t->metric, "send_lag")) continue;
        if (!c->llm || !bench_slo_llm_metric(t->metric))
            return usage_error("--slo", c->llm ? "metrics are e2e, send_lag, ttft, tpot, itl and "
                                                 "chunk_gap"
                                               : "bench http/kserve measures e2e and send_lag; "
                                                 "ttft/tpot/itl need --target openai");
        if (t->stat == SLO_PCTL && t->pct != 50 && t->pct != 90 && t->pct != 95 && t->pct != 99 &&
            t->pct != 99.9)
            return usage_error("--slo", "LLM metric terms take p50, p90, p95, p99, "
                                        "p99.9, mean or max");
        if (t->stat == SLO_ERRORS) return usage_error("--slo", "'errors' takes no metric prefix");
    }
    c->slo_text = val;
    return 0;
}

/* One option as cli_parse() found it: the common ones at once, target options and --slo later
 * (their meaning depends on the target, which may come after them or from the URL). 0, or -1
 * after printing why. */
/* A real option value v with lo < v (lo <= v when lo_in) and v < hi (any v when hi is
 * INFINITY): 0, or an exit code after "OPT: expect". */
static int parse_real_opt(const char *opt, const char *val, double lo, bool lo_in, double hi,
                          const char *expect, double *out)
{
    char *e;
    double v = strtod(val, &e);
    if (e == val || *e || !(lo_in ? v >= lo : v > lo) || (hi < INFINITY && !(v < hi)))
        return usage_error(opt, expect);
    *out = v;
    return 0;
}

/* OPT_NOT_MINE: an option the group's handler below does not take. */
enum { OPT_NOT_MINE = 1000 };

/* The request: target, method, headers, body, what a good response is, the connection. 0, an
 * exit code, or OPT_NOT_MINE. */
static int on_request_opt(struct cli *c, int id, const char *val)
{
    const char *why = NULL;
    switch (id) {
    case OPT_TARGET:
        c->tops = bench_target_find(val);
        if (!c->tops) {
            char w[300];
            snprintf(w, sizeof(w), "expected %s", target_names());
            return usage_error("--target", w);
        }
        return 0;
    case OPT_METHOD:
        c->method = val;
        return 0;
    case OPT_HEADER:
        if (!strchr(val, ':') || strpbrk(val, "\r\n"))
            return usage_error("--header", "expected 'Name: value'");
        XGROW(c->headers, c->headers_cap, c->nheaders, 1, 8);
        c->headers[c->nheaders++] = val;
        return 0;
    case OPT_BODY:
        c->body_arg = val;
        return 0;
    case OPT_EXPECT_STATUS:
        return bench_parse_expect_status(val, &c->expect_class, &why) < 0
                   ? usage_error("--expect-status", why)
                   : 0;
    case OPT_EXPECT_BODY:
        c->expect_body = val;
        return *val ? 0 : usage_error("--expect-body", "empty text");
    case OPT_INSECURE:
        c->insecure = true;
        return 0;
    case OPT_RX_TIME:
        c->rx_user = !strcmp(val, "user");
        return strcmp(val, "kernel") && strcmp(val, "user")
                   ? usage_error("--rx-time", "expected kernel or user")
                   : 0;
    case OPT_MAX_INPUT_SIZE:
        if (units_parse_count(val, &c->max_input) < 0 || c->max_input == 0)
            return usage_error("--max-input-size", "expected a byte count such as 512M");
        return 0;
    default:
        return OPT_NOT_MINE;
    }
}

/* The load and its limits: concurrency or rate, arrivals, duration, time-outs, validity. 0, an
 * exit code, or OPT_NOT_MINE. */
static int on_load_opt(struct cli *c, int id, const char *val)
{
    const char *why = NULL;
    uint64_t u;
    int rc;
    switch (id) {
    case OPT_CONCURRENCY:
        c->conc_arg = val;
        return 0;
    case OPT_RATE:
        c->rate_arg = val;
        return 0;
    case OPT_ARRIVAL:
        c->arrival_name = val;
        return bench_parse_arrival(val, &c->arrival, &c->gamma_shape, &why) < 0
                   ? usage_error("--arrival", why)
                   : 0;
    case OPT_SEED:
        return units_parse_count(val, &c->seed) < 0
                   ? usage_error("--seed", "expected a whole number")
                   : 0;
    case OPT_MAX_INFLIGHT:
        if (!(rc = parse_count_opt("--max-inflight", val, &u, 1 << 20)))
            c->max_inflight = (unsigned)u;
        return rc;
    case OPT_CONNECTIONS:
        if (!(rc = parse_count_opt("--connections", val, &u, 1 << 20)))
            c->connections = (unsigned)u;
        return rc;
    case OPT_THREADS:
        if (!(rc = parse_count_opt("--threads", val, &u, 256))) c->eng.threads = (unsigned)u;
        return rc;
    case OPT_DURATION:
        return parse_duration_opt("--duration", val, &c->duration_ns);
    case OPT_REQUESTS:
        return parse_count_opt("--requests", val, &c->requests, UINT64_MAX / 2);
    case OPT_WARMUP:
        return bench_parse_warmup(val, &c->warmup_ns, &c->warmup_requests, &why) < 0
                   ? usage_error("--warmup", why)
                   : 0;
    case OPT_CONNECT_TIMEOUT:
        return parse_duration_opt("--connect-timeout", val, &c->eng.connect_timeout_ns);
    case OPT_TIMEOUT:
        return parse_duration_opt("--timeout", val, &c->eng.request_timeout_ns);
    case OPT_WINDOW:
        return parse_duration_opt("--window", val, &c->eng.window_ns);
    case OPT_MAX_ERROR_RATE: {
        double v;
        if ((rc = parse_real_opt("--max-error-rate", val, 0, true, 1,
                                 "expected a fraction 0 <= F < 1", &v)))
            return rc;
        c->eng.max_error_frac = v > 0 ? v : 1e-12; /* 0: any error makes a point INVALID */
        return 0;
    }
    case OPT_MAX_CLIENT_GAP:
        return parse_real_opt("--max-client-gap", val, 0, false, INFINITY,
                              "expected milliseconds > 0", &c->eng.max_client_gap_p99_ms);
    case OPT_MAX_SEND_LAG:
        return parse_real_opt("--max-send-lag", val, 0, false, INFINITY,
                              "expected milliseconds > 0", &c->eng.max_send_lag_p99_ms);
    case OPT_STABLE:
        c->stable = true;
        return 0;
    case OPT_CONFIDENCE:
        return parse_real_opt("--confidence", val, 0, false, 1, "expected a fraction such as 0.99",
                              &c->confidence);
    case OPT_FIND_MAX:
        c->find_max = true;
        return 0;
    case OPT_MAX_RATE:
        return parse_real_opt("--max-rate", val, 0, false, INFINITY,
                              "expected a positive number (precision < 1)", &c->max_rate);
    case OPT_PRECISION:
        return parse_real_opt("--precision", val, 0, false, 1,
                              "expected a positive number (precision < 1)", &c->precision);
    case OPT_SLO:
        c->later[c->nlater++] = (struct deferred){-1, val};
        return 0;
    default:
        return OPT_NOT_MINE;
    }
}

/* The outputs: format, logs, records, telemetry, the live view, --doctor. 0, an exit code, or
 * OPT_NOT_MINE. */
static int on_output_opt(struct cli *c, int id, const char *val)
{
    uint64_t u;
    switch (id) {
    case OPT_FORMAT:
        if (lat_parse_format(val, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON | 1u << LAT_FMT_CSV,
                             &c->format) < 0)
            return usage_error("--format", "expected text, json or csv");
        return 0;
    case OPT_HDR_LOG:
        c->hdr_log = val;
        return 0;
    case OPT_RECORDS:
        c->records = val;
        c->eng.keep_records = true;
        return 0;
    case OPT_EXACT:
        if (units_parse_count(val, &u) < 0 || u > 100000000)
            return usage_error("--exact", "expected a sample count (0 turns it off)");
        c->eng.exact_cap = (size_t)u;
        return 0;
    case OPT_GPU_METRICS_URL:
        c->gpu_url = val;
        return 0;
    case OPT_GPU_TELEMETRY:
        c->gpu_mode = val;
        return 0;
    case OPT_GPU_INTERVAL:
        c->gpu_interval = val;
        return 0;
    case OPT_LIVE:
        c->live = val;
        return strcmp(val, "auto") && strcmp(val, "on") && strcmp(val, "off")
                   ? usage_error("--live", "expected auto, on or off")
                   : 0;
    case OPT_SLICE: {
        char w[128];
        return bench_slices_parse(val, &c->slice_ns, w, sizeof(w)) < 0 ? usage_error("--slice", w)
                                                                       : 0;
    }
    case OPT_DOCTOR:
        c->doctor = true;
        return 0;
    default:
        return OPT_NOT_MINE;
    }
}

/* A row of a group: --server-*, --endpoint..., the multi-host rows take theirs now; a target's
 * row waits until the target is known (apply_later). 0 or -1 (said). */
static int on_group_opt(struct cli *c, int id, const char *val)
{
    int row = id - OPT_GROUP;
    if (row < 0 || row >= BENCH_TABLE_MAX || !table_src[row]) return -1;
    char w[512];
    int rc = 0;
    if (table_group[row] == GROUP_SRV)
        rc = srvprof_opt(&c->srv, table_src[row]->id, val, w, sizeof(w));
    else if (table_group[row] == GROUP_EP)
        rc = bench_ep_opt(&c->ep, table_src[row]->id, val, w, sizeof(w));
    else if (table_group[row] < 0) /* multi-host: --shard, --start-at, --mpi */
        rc = shard_opt(c->shard, table_src[row]->id, val, w, sizeof(w));
    else
        c->later[c->nlater++] = (struct deferred){row, val};
    if (rc < 0) {
        pr_err("%s (see 'latscope bench --help')\n", w);
        return -1;
    }
    return 0;
}

static int on_opt(void *ctx, int id, const char *val)
{
    struct cli *c = ctx;
    int rc = on_request_opt(c, id, val);
    if (rc == OPT_NOT_MINE) rc = on_load_opt(c, id, val);
    if (rc == OPT_NOT_MINE) rc = on_output_opt(c, id, val);
    if (rc == OPT_NOT_MINE) return on_group_opt(c, id, val);
    return rc ? -1 : 0;
}

/* The deferred options, in order, now that the target is known. 0 or an exit code. */
static int apply_later(struct cli *c)
{
    char why[512];
    for (size_t i = 0; i < c->nlater; i++) {
        const struct deferred *d = &c->later[i];
        int rc = 1;
        why[0] = '\0';
        if (d->row < 0) { /* --slo: the target's when it takes it, else the bench's */
            if (c->tops->opt) rc = c->tops->opt(c->tst, BENCH_TOPT_SLO, d->val, why, sizeof(why));
            if (rc == 1) rc = bench_slo(c, d->val);
            if (rc > 0) return rc;
        } else {
            const char *name = table_src[d->row]->lname;
            const struct bench_topt *o = bench_target_row(c->tops, name);
            if (!o || !c->tops->opt) {
                char w[300];
                snprintf(w, sizeof(w), "an option of --target %s, not %s",
                         bench_targets[table_group[d->row]]->name, c->tops->name);
                char opt[128];
                snprintf(opt, sizeof(opt), "--%s", name);
                return usage_error(opt, w);
            }
            rc = c->tops->opt(c->tst, o->id, d->val, why, sizeof(why));
        }
        if (rc < 0) {
            pr_err("%s (see 'latscope bench --help')\n", why);
            return LAT_EXIT_USAGE;
        }
    }
    return 0;
}

static void print_help(const struct cli_spec *spec)
{
    /* One write at exit: a reader that stops early (grep -q) then cannot make a second write
     * fail with EPIPE. */
    static char help_buf[1 << 16]; /* glibc ignores the size without a buffer */
    setvbuf(stdout, help_buf, _IOFBF, sizeof(help_buf));
    cli_help(stdout, spec);
}

/* Parses argv into c, creates the target's state (c->tops, c->tst) and parses the URL into
 * *url. 0, -1 (--help printed) or an exit code. */
static int parse_args(int argc, char **argv, struct cli *c, struct http1_url *url)
{
    const char *why = NULL;
    char why_ep[256];
    static char footer[1024];
    snprintf(footer, sizeof(footer), "%s\n%s", bench_shard_usage, footer_text);
    struct cli_spec spec = {"bench", usage_text, footer, build_table(), on_opt, c, false};
    struct cli_result res;
    c->later = xcalloc((size_t)argc + 1, sizeof(*c->later));
    int prc = cli_parse(&spec, argc, argv, &res);
    if (prc == CLI_HELP) {
        print_help(&spec);
        return -1;
    }
    if (prc != 0) return LAT_EXIT_USAGE;
    size_t npos = res.npos;
    const char *pos0 = npos ? res.pos[0] : NULL;
    /* More URLs: more endpoints, before the --endpoint ones (bench/endpoints.h). */
    if (npos > 1 && npos + c->ep.nurls > BENCH_MAX_ENDPOINTS) {
        cli_result_fini(&res);
        return usage_error("URL", "too many endpoints (at most 64)");
    }
    if (npos > 1) {
        memmove(c->ep.urls + npos - 1, c->ep.urls, c->ep.nurls * sizeof(*c->ep.urls));
        for (size_t i = 1; i < npos; i++)
            c->ep.urls[i - 1] = res.pos[i];
        c->ep.nurls += npos - 1;
    }
    cli_result_fini(&res);
    if (npos == 0) return usage_error("URL", "missing (e.g. http://127.0.0.1:8000/)");
    if (bench_ep_finish(&c->ep, why_ep, sizeof(why_ep)) < 0) {
        pr_err("%s (see 'latscope bench --help')\n", why_ep);
        return LAT_EXIT_USAGE;
    }
    c->eng.balance = c->ep.balance;
    c->eng.cancel = c->ep.cancel;
    c->url = pos0;
    if (http1_url_parse_grpc(c->url, url, &why) < 0) return usage_error(c->url, why);
    if (!c->tops) c->tops = bench_target_default(url);
    if (url->grpc && !c->tops->grpc)
        return usage_error(c->url, "grpc:// works with --target kserve only (KServe v2 / Triton)");
    c->llm = c->tops->llm_slo;
    c->tst = c->tops->create ? c->tops->create() : NULL;
    if (c->tops->create && !c->tst) {
        pr_err("out of memory\n");
        return LAT_EXIT_FAILURE;
    }
    int rc = apply_later(c);
    if (rc) return rc;
    if (c->conc_arg && c->rate_arg)
        return usage_error("--rate", "choose --concurrency (closed loop) or --rate (open loop); "
                                     "cap an open loop with --max-inflight");
    if (c->confidence > 0 && !c->slo_text)
        return usage_error("--confidence", "needs --slo (the claim to establish)");
    for (int i = 0; c->confidence > 0 && i < c->slo.n; i++)
        if (!strcmp(c->slo.t[i].metric, "itl") || !strcmp(c->slo.t[i].metric, "chunk_gap"))
            return usage_error("--confidence",
                               "early stopping needs one sample per request: use tpot (each "
                               "request's mean time per output token) instead of itl or "
                               "chunk_gap, whose many samples per request are not independent");
    if (c->find_max && !c->slo_text)
        return usage_error("--find-max", "needs --slo, e.g. --slo 'p99<=200ms'");
    if (c->find_max && c->conc_arg && c->max_rate > 0)
        return usage_error("--max-rate", "bounds a rate search; with --concurrency give the "
                                         "range as LO:HI");
    return 0;
}

/* Writes the records into f (opened before the first request) and closes it; the write
 * error keeps its errno (ENOSPC reads "No space left on device"). */
static int write_records(FILE *f, struct bench_run *run)
{
    int rc = 0;
    for (size_t i = 0; i < run->npoints && !rc; i++)
        if (run->points[i].ran) rc = bench_report_records(f, &run->points[i], i);
    errno = 0;
    if (fflush(f) != 0 && (!rc || rc == -EIO)) rc = errno ? -errno : -EIO;
    if (fclose(f) != 0 && !rc) rc = errno ? -errno : -EIO;
    return rc;
}

/* An output file (--records, --hdr-log) that could not be written: one line with the path the
 * user gave and the reason. A regular file left partial is removed (and the line says so): a
 * cut-off log must not pass for a run's results. A device or FIFO is left alone. */
static void out_file_failed(const char *opt, const char *path, int rc)
{
    struct stat st;
    bool removed = stat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0;
    pr_err("%s %s: %s%s\n", opt, path, lat_strerror(rc),
           removed ? " (the partial file was removed)" : "");
}

/* The live view (bench/live.h) on stderr: one line redrawn in place each window, cut to the
 * terminal's width (a wrapped line could not be redrawn), erased when the point ends. */
struct live_out {
    FILE *f;
    bool shown; /* a line is on the screen */
};

static void live_print(void *ud, const struct bench_live *s)
{
    struct live_out *o = ud;
    if (!s) {
        if (o->shown) fputs("\r\033[K", o->f);
        o->shown = false;
        fflush(o->f);
        return;
    }
    struct winsize ws;
    size_t width = 80;
    if (ioctl(fileno(o->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) width = ws.ws_col;
    char line[512];
    bench_live_format(s, line, width < sizeof(line) ? width : sizeof(line));
    fprintf(o->f, "\r\033[K%s", line);
    fflush(o->f);
    o->shown = true;
}

/* --live: whether to show the live view. Only on a terminal: on a pipe or a file (CI logs)
 * the redrawn line would be a string of carriage returns and escape codes. The report goes to
 * stdout only after the last point, and the line is erased as each point ends, so no --format
 * mixes with it, even on the same terminal. auto also leaves a dumb terminal alone (no ANSI
 * erase). */
static bool live_wanted(const char *mode)
{
    if (mode && !strcmp(mode, "off")) return false;
    if (!isatty(STDERR_FILENO)) {
        if (mode && !strcmp(mode, "on"))
            pr_warn("--live on: stderr is not a terminal, no live view\n");
        return false;
    }
    const char *term = getenv("TERM");
    if (mode && !strcmp(mode, "on")) return true;
    return term && *term && strcmp(term, "dumb") != 0;
}

/* --mpi: a rank that leaves with an error aborts the job (bench/mpi.h); this says why. */
static void mpi_fail_note(int rank, int size, int status)
{
    pr_err("--mpi: rank %d of %d stops with exit status %d before the run ended (its error is "
           "above): aborting every rank, none waits for it\n",
           rank, size, status);
}

/* --doctor: the run's JSON result, read back by diff's reader and judged by doctor's service
 * rules, the same path as `latscope doctor RESULT.json` (diff_run_doctor). The report goes to
 * f; the bench's exit status is not changed. */
static void bench_doctor(FILE *f, const struct bench_run *run, bool color)
{
    char *data = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&data, &len);
    int rc = m ? bench_report_json(m, run) : -ENOMEM;
    if (m && fclose(m) && !rc) rc = -ENOMEM;
    struct diff_run *dr = NULL;
    struct doc_report *r = NULL;
    char err[512] = "";
    if (!rc) rc = diff_run_parse("RESULT.json", DIFF_KIND_BENCH, data, len, &dr, err, sizeof(err));
    if (!rc) rc = doctor_report_new(&r);
    if (!rc) rc = diff_run_doctor(r, dr);
    struct lat_buf b = LAT_BUF_INIT;
    if (!rc) {
        doctor_rank(r);
        rc = doctor_format_text(r, &b, color);
    }
    if (rc)
        pr_err("--doctor: %s\n", err[0] ? err : lat_strerror(rc));
    else {
        fflush(stdout);
        fprintf(f, "\n");
        fwrite(b.data ? b.data : "", 1, b.len, f);
        fflush(f);
    }
    buf_fini(&b);
    doctor_report_free(r);
    diff_run_free(dr);
    free(data);
}

/* One `latscope bench` run, from the parsed options to the clean-up: cmd_bench's steps below
 * share it. */
struct bench_cmd {
    struct cli c;
    struct bench_shard shard;
    const struct bench_target_ops *tops;
    void *tst;
    struct bench_target t;
    struct gpu_telem gtel;
    struct srvprof *srv; /* --server-pid */
    struct srvprof_result srv_res;
    /* Several endpoints: their conn targets (eps[0] is the first URL's) and URLs. */
    struct conn_target *eps;
    const char *ep_urls[BENCH_MAX_ENDPOINTS];
    unsigned neps;
    /* the load points: a sweep's values, or the --find-max search */
    double values[BENCH_SWEEP_MAX];
    size_t nvalues;
    bool open_loop, find_conc; /* find_conc: --find-max --concurrency LO:HI */
    unsigned conc_start, conc_lo, conc_hi;
    struct lat_search search;
    const lat_ns *offsets; /* a replayed trace's intended send times */
    size_t noffsets;
    bool mpi_writer, show_live;
    struct live_out live_o;
    struct bench_run run;
    FILE *hf, *rf; /* --hdr-log, --records */
    struct hlog_writer hw;
    bool hw_started;
    char workload[512];
};

/* The load the options describe, checked against each other and the target: the sweep or the
 * search range, --server-pid, the default duration. 0 or an exit code (said). */
static int check_load(struct bench_cmd *b)
{
    struct cli *c = &b->c;
    const char *why = NULL;
    b->open_loop = c->rate_arg != NULL;
    b->find_conc = c->find_max && c->conc_arg;
    if (b->find_conc) {
        if (bench_parse_conc_range(c->conc_arg, &b->conc_start, &b->conc_lo, &b->conc_hi, &why) < 0)
            return usage_error("--concurrency", why);
    } else if (bench_parse_sweep(b->open_loop ? c->rate_arg : (c->conc_arg ? c->conc_arg : "1"),
                                 !b->open_loop, b->values, &b->nvalues, &why) < 0) {
        return usage_error(b->open_loop ? "--rate" : "--concurrency", why);
    }
    struct bench_common common = {
        .rate = c->rate_arg != NULL,
        .concurrency = c->conc_arg != NULL,
        .find_max = c->find_max,
        .duration = c->duration_ns != 0,
        .warmup = c->warmup_ns || c->warmup_requests,
        .stable = c->stable,
        .confidence = c->confidence > 0,
        .hdr_log = c->hdr_log != NULL,
        .records = c->records != NULL,
        .mpi = b->shard.mpi,
    };
    const char *copt = NULL;
    if (b->tops->check && b->tops->check(b->tst, &common, &copt, &why) < 0)
        return usage_error(copt, why);
    if (c->srv.pid) {
        if (c->find_max || b->nvalues != 1 || b->shard.count > 1 || b->shard.mpi)
            return usage_error("--server-pid", "profiles one load point: give one "
                                               "--concurrency or --rate value (no sweep, "
                                               "--find-max, --shard or --mpi)");
        if (kill(c->srv.pid, 0) < 0 && errno == ESRCH)
            return usage_error("--server-pid", "no such process");
        c->eng.keep_records = true; /* the requests' windows */
    } else if (c->srv.samples_path || c->srv.slow_ns || c->srv.slow_pct > 0 || c->srv.freq_hz) {
        return usage_error(c->srv.samples_path ? "--server-samples" : "--server-slow",
                           "needs --server-pid");
    }
    if (!c->duration_ns && !c->requests)
        c->duration_ns = c->stable ? 11 * c->eng.window_ns : 10 * LAT_NS_PER_S;
    if (b->shard.count > 1 && !b->shard.mpi && (c->find_max || c->stable || c->confidence > 0))
        return usage_error("--shard", "--find-max, --stable and --confidence decide on the "
                                      "whole load: run the shards under MPI (--mpi)");
    return 0;
}

/* The connection targets: the URL's, and each --endpoint's (bench/endpoints.h). 0 or an exit
 * code (said). */
static int connect_targets(struct bench_cmd *b)
{
    struct cli *c = &b->c;
    struct bench_target *t = &b->t;
    int rc = conn_target_init(&t->conn, t->url.host, t->url.port, t->url.tls, !c->insecure);
    if (rc < 0) {
        pr_err("%s: cannot resolve %s: %s\n", c->url, t->url.host, lat_strerror(rc));
        return LAT_EXIT_USAGE;
    }
    t->conn.rx_kernel_time = !c->rx_user;
    if (c->ep.nurls) {
        if (b->shard.mpi)
            return usage_error("--endpoint", "not yet with --mpi: run one process per "
                                             "endpoint set, or --shard K/N");
        b->eps = xcalloc(c->ep.nurls + 1, sizeof(*b->eps));
        b->ep_urls[0] = c->url;
        for (size_t i = 0; i <= c->ep.nurls; i++) {
            struct http1_url u;
            const char *uwhy = NULL;
            if (i > 0) {
                b->ep_urls[i] = c->ep.urls[i - 1];
                if (http1_url_parse(b->ep_urls[i], &u, &uwhy) < 0)
                    return usage_error(b->ep_urls[i], uwhy);
                if (u.tls != t->url.tls || strcmp(u.path, t->url.path) != 0)
                    return usage_error(b->ep_urls[i], "every endpoint takes the first URL's "
                                                      "scheme and path (replicas of one "
                                                      "server on other hosts or ports)");
            } else {
                u = t->url;
            }
            rc = conn_target_init(&b->eps[i], u.host, u.port, u.tls, !c->insecure);
            if (rc < 0) {
                pr_err("%s: cannot resolve %s: %s\n", b->ep_urls[i], u.host, lat_strerror(rc));
                return LAT_EXIT_USAGE;
            }
            b->eps[i].rx_kernel_time = !c->rx_user;
            b->neps++;
        }
        t->eps = b->eps;
        t->ep_urls = b->ep_urls;
        t->neps = b->neps;
    }
    if (b->shard.mpi && (c->eng.cancel.after_ns || c->eng.cancel.after_tokens))
        return usage_error("--cancel-after", "not yet with --mpi: run --shard K/N per "
                                             "process and 'latscope bench merge'");
    return 0;
}

/* Every output file is opened before the first request: a path that cannot be written must
 * not cost the run (--records and --server-samples here, --hdr-log in open_hdr_log,
 * --records-detail in the openai setup). 0 or an exit code (said). */
static int open_outputs(struct bench_cmd *b)
{
    struct cli *c = &b->c;
    if (c->records && b->mpi_writer) {
        b->rf = fopen(c->records, "w");
        if (!b->rf) {
            pr_err("--records %s: %s\n", c->records, strerror(errno));
            return LAT_EXIT_USAGE;
        }
    }
    if (c->srv.samples_path) { /* written after the run */
        FILE *sf = fopen(c->srv.samples_path, "w");
        if (!sf) {
            pr_err("--server-samples %s: %s\n", c->srv.samples_path, strerror(errno));
            return LAT_EXIT_USAGE;
        }
        fclose(sf);
    }
    return 0;
}

/* The target's set-up (its request, a replayed trace's schedule) and the run's workload line.
 * 0 or an exit code (said). */
static int setup_target(struct bench_cmd *b)
{
    struct cli *c = &b->c;
    struct bench_setup setup = {
        .url = c->url,
        .headers = c->headers,
        .nheaders = c->nheaders,
        .method = c->method,
        .body_arg = c->body_arg,
        .seed = c->seed,
        .max_input = c->max_input,
        .requests = c->requests,
        .confidence = c->confidence,
        .slo = c->slo_text ? &c->slo : NULL,
        .shard = &b->shard,
        .live = b->show_live,
    };
    char twhy[768] = "";
    int rc = b->tops->setup ? b->tops->setup(b->tst, &setup, &b->t, twhy, sizeof(twhy)) : 0;
    if (rc < 0) {
        pr_err("%s\n", twhy[0] ? twhy : lat_strerror(rc));
        return rc == -ENOMEM ? LAT_EXIT_FAILURE : LAT_EXIT_USAGE;
    }
    if (c->eng.cancel.after_tokens && !(b->t.ops && b->t.ops->progress))
        return usage_error("--cancel-after-tokens",
                           "needs a target that counts tokens (--target openai); "
                           "--cancel-after D cancels any request by time");
    b->offsets = b->tops->schedule ? b->tops->schedule(b->tst, &b->noffsets) : NULL;
    if (b->offsets) {
        /* One open-loop point whose intended send times are the trace's; its nominal rate is
         * the trace's mean rate. */
        lat_ns span = b->offsets[b->noffsets - 1];
        b->open_loop = true;
        b->nvalues = 1;
        b->values[0] =
            span > 0 ? (double)(b->noffsets - 1) / ((double)span / 1e9) : (double)b->noffsets;
        c->duration_ns = span + 1;
        c->requests = 0;
    }
    if (b->tops->describe)
        b->tops->describe(b->tst, &b->t, b->workload, sizeof(b->workload));
    else
        bench_describe_request(b->workload, sizeof(b->workload), b->tops->name, b->t.request,
                               b->t.request ? b->t.request_len : 0);
    b->run.workload = b->workload;
    return 0;
}

/* --hdr-log: opened and started before the first request. 0 or an exit code (said). */
static int open_hdr_log(struct bench_cmd *b)
{
    struct cli *c = &b->c;
    if (!c->hdr_log || !b->mpi_writer) return 0;
    b->hf = fopen(c->hdr_log, "w");
    if (!b->hf) {
        pr_err("--hdr-log %s: %s\n", c->hdr_log, strerror(errno));
        return LAT_EXIT_USAGE;
    }
    b->hw_started = true; /* a failed write stays in the writer: reported once, at the end */
    if (hlog_writer_start(&b->hw, b->hf, (double)clock_realtime_ns() / 1e9) < 0)
        return LAT_EXIT_FAILURE;
    return 0;
}

/* --find-max: the bracket-then-bisect search over rates, or over whole concurrencies; and the
 * run's description. 0 or an exit code (said). */
static int plan_points(struct bench_cmd *b)
{
    struct cli *c = &b->c;
    struct bench_run *run = &b->run;
    if (b->find_conc) {
        if (search_init(&b->search, b->conc_start, b->conc_lo, b->conc_hi,
                        c->precision > 0 ? c->precision : 0.05, SEARCH_MAX_STEPS) < 0)
            return usage_error("--find-max", "invalid concurrency range");
        search_set_integer(&b->search);
        b->open_loop = false;
        b->nvalues = SEARCH_MAX_STEPS;
        run->slo = c->slo_text;
        run->find_concurrency = true;
    } else if (c->find_max) {
        double start = b->open_loop ? b->values[0] : 10.0;
        double maxr = c->max_rate > 0 ? c->max_rate : 1e6;
        if (start > maxr) start = maxr;
        if (search_init(&b->search, start, start < 1 ? start : 1, maxr,
                        c->precision > 0 ? c->precision : 0.05, SEARCH_MAX_STEPS) < 0)
            return usage_error("--find-max", "invalid search range (--rate start vs --max-rate)");
        b->open_loop = true;
        b->nvalues = SEARCH_MAX_STEPS;
        run->slo = c->slo_text;
    }
    run->shard = &b->shard;
    run->threads = c->eng.threads;
    run->rx_time = b->t.conn.rx_kernel_time && !b->t.url.tls ? "kernel" : "user";
    run->mode = c->find_max ? "find-max" : b->offsets ? "replay" : b->open_loop ? "open" : "closed";
    run->arrival = b->offsets     ? "replay"
                   : b->open_loop ? (c->arrival_name ? c->arrival_name : "poisson")
                                  : NULL;
    return 0;
}

/* --server-pid: stops the profiler; after a run (ran), the server profile of the (one) point
 * that ran. 0 or an exit code (said). */
static int server_profile(struct bench_cmd *b, bool ran)
{
    int src = srvprof_stop(b->srv);
    if (src < 0) pr_warn("--server-pid: %s\n", srvprof_strerror(src));
    for (size_t i = 0; ran && i < b->run.npoints; i++) {
        if (!b->run.points[i].ran) continue;
        src = srvprof_analyze(b->srv, &b->run.points[i].res, b->c.srv.samples_path, &b->srv_res);
        if (src < 0) {
            pr_err("--server-pid: %s: %s\n", b->srv_res.why ? b->srv_res.why : "analysis",
                   lat_strerror(src));
            return LAT_EXIT_FAILURE;
        }
        b->run.server_profile = &b->srv_res;
        break;
    }
    return 0;
}

/* Runs the points (bench/loop.c) with Ctrl-C handled, GPU telemetry and the server profile
 * around them. The exit code: a set-up error's, the server profile's, or the loop's verdict;
 * *ran: the loop ran to its end (there are results to print). */
static int run_points(struct bench_cmd *b, bool *ran)
{
    *ran = false;
    struct cli *c = &b->c;
    /* Every connection is an fd: lift the soft limit to the hard one (1024 is the usual
     * default) so a large --concurrency or --max-inflight does not turn into connect errors. */
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    struct bench_plan plan = {
        .values = b->values,
        .nvalues = b->nvalues,
        .open_loop = b->open_loop,
        .find_max = c->find_max,
        .find_conc = b->find_conc,
        .search = c->find_max ? &b->search : NULL,
        .arrival = c->arrival,
        .gamma_shape = c->gamma_shape,
        .seed = c->seed,
        .max_inflight = c->max_inflight,
        .connections = c->connections,
        .duration_ns = c->duration_ns,
        .warmup_ns = c->warmup_ns,
        .requests = c->requests,
        .warmup_requests = c->warmup_requests,
        .offsets = b->offsets,
        .noffsets = b->noffsets,
        .eng = &c->eng,
        .stable = c->stable,
        .slo = c->slo_text ? &c->slo : NULL,
        .slo_text = c->slo_text,
        .confidence = c->confidence,
        .say_probes = c->format == LAT_FMT_TEXT,
        .hlog = b->hw_started ? &b->hw : NULL,
        .hdr_log = c->hdr_log,
        .records_writer = b->rf != NULL,
        .gtel = &b->gtel,
        .slice_ns = c->slice_ns,
        .live = b->show_live ? live_print : NULL,
        .live_ud = &b->live_o,
    };
    char swhy[512];
    /* GPU telemetry: a --gpu-metrics-url that is not a DCGM exporter is a setup error; NVML
     * without a driver only says so, and the run goes on. */
    int rc = gpu_telem_start(&b->gtel, swhy, sizeof(swhy));
    if (rc < 0) {
        pr_err("%s\n", swhy[0] ? swhy : lat_strerror(rc));
        return rc == LAT_E_USAGE ? LAT_EXIT_USAGE : LAT_EXIT_FAILURE;
    }
    if (b->gtel.mode != GPU_TELEM_OFF && !b->gtel.available)
        pr_warn("GPU telemetry unavailable: %s; the run goes on without it\n",
                b->gtel.unavailable_why);
    if (c->srv.pid && srvprof_start(&c->srv, &b->srv, swhy, sizeof(swhy)) < 0) {
        pr_err("%s\n", swhy);
        return LAT_EXIT_USAGE; /* setup: permission, no such process */
    }
    struct sigaction sa = {.sa_handler = on_sigint}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = bench_loop_run(&plan, &b->t, b->tops, b->tst, &b->shard, &bench_stop, &b->run);
    int exit_code = b->srv ? server_profile(b, rc >= 0) : LAT_EXIT_OK;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc < 0) {
        pr_err("out of memory\n");
        return LAT_EXIT_FAILURE;
    }
    *ran = true;
    if (exit_code == LAT_EXIT_OK)
        exit_code = rc == BENCH_LOOP_USAGE    ? LAT_EXIT_USAGE
                    : rc == BENCH_LOOP_FAILED ? LAT_EXIT_FAILURE
                                              : LAT_EXIT_OK;
    return exit_code;
}

/* The result on stdout in --format, --doctor's findings, --records. The exit code: exit_code,
 * or 1 when an output could not be written. */
static int print_results(struct bench_cmd *b, const struct lat_opts *opts, int exit_code)
{
    struct cli *c = &b->c;
    struct bench_run *run = &b->run;
    bool rank0 = !(b->shard.mpi && b->shard.index != 0); /* rank 0 prints the reduced result */
    int rc = 0;
    if (!rank0)
        rc = 0;
    else if (c->format == LAT_FMT_JSON)
        rc = bench_report_json(stdout, run);
    else if (c->format == LAT_FMT_CSV)
        rc = bench_report_csv(stdout, run);
    else {
        rc = bench_report_text(stdout, run);
        if (!rc && run->server_profile) rc = srvprof_write_text(stdout, run->server_profile, 10);
    }
    if (rc < 0) exit_code = LAT_EXIT_FAILURE;
    if (c->doctor && rank0 && run->npoints)
        bench_doctor(c->format == LAT_FMT_TEXT ? stdout : stderr, run, opts->color);
    if (b->rf) {
        rc = write_records(b->rf, run);
        b->rf = NULL;
        if (rc < 0) {
            out_file_failed("--records", c->records, rc);
            exit_code = LAT_EXIT_FAILURE;
        }
    }
    return exit_code;
}

static void free_points(struct bench_run *run)
{
    for (size_t i = 0; i < run->npoints; i++) {
        if (run->points[i].ran) bench_result_fini(&run->points[i].res);
        free(run->points[i].llm);
        for (size_t k = 0; k < run->points[i].nllm_hist; k++)
            hist_fini(&run->points[i].llm_hist[k]);
        free(run->points[i].llm_hist);
        free(run->points[i].shards);
        bench_slices_free(run->points[i].slices);
        bench_sess_point_free(run->points[i].sessions);
        gpu_point_free(run->points[i].gpu);
    }
    free(run->points);
}

/* Closes what the steps opened: --hdr-log (its first write failure turns exit_code into 1),
 * --records left unwritten, the server profiler, telemetry, the connection targets. */
static int finish_outputs(struct bench_cmd *b, int exit_code)
{
    if (b->hf) {
        /* the writer's first failure (its errno: "No space left on device"), else fclose's */
        int hrc = b->hw_started ? hlog_writer_finish(&b->hw) : 0;
        if (b->hw_started) hlog_writer_fini(&b->hw);
        errno = 0;
        if (fclose(b->hf) != 0 && !hrc) hrc = errno ? -errno : -EIO;
        b->hf = NULL;
        if (hrc) {
            out_file_failed("--hdr-log", b->c.hdr_log, hrc);
            exit_code = LAT_EXIT_FAILURE;
        }
    }
    if (b->rf) fclose(b->rf); /* set-up failed before the run: nothing to write */
    srvprof_free(b->srv);
    srvprof_result_fini(&b->srv_res);
    gpu_telem_stop(&b->gtel);
    for (unsigned i = 0; i < b->neps; i++)
        conn_target_fini(&b->eps[i]);
    free(b->eps);
    conn_target_fini(&b->t.conn);
    return exit_code;
}

int cmd_bench(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && !strcmp(argv[1], "merge")) return cmd_bench_merge(argc - 1, argv + 1, opts);
    struct bench_cmd bc = {0};
    struct bench_cmd *b = &bc;
    struct cli *c = &b->c;
    char swhy[512];
    shard_init(&b->shard);
    bench_mpi_on_fail(mpi_fail_note);
    *c = (struct cli){
        .expect_class = 2, .seed = 1, .arrival = BENCH_ARRIVAL_POISSON, .shard = &b->shard};
    bench_opts_default(&c->eng);
    int rc = parse_args(argc, argv, c, &b->t.url);
    if (rc) {
        if (c->tops && c->tops->destroy) c->tops->destroy(c->tst);
        free(c->headers);
        free(c->later);
        return rc < 0 ? LAT_EXIT_OK : rc;
    }
    free(c->later);
    c->later = NULL;
    b->tops = c->tops;
    b->tst = c->tst;
    int exit_code = LAT_EXIT_OK;
    /* Multi-host: --shard resolved from the launcher's environment, --mpi initialized. GPU
     * telemetry and time slices (issue 17: src/bench/telemetry.c, src/bench/slices.c). */
    if (bench_shard_setup(&b->shard, swhy, sizeof(swhy)) < 0 ||
        gpu_telem_config(&b->gtel, c->gpu_url, c->gpu_mode, c->gpu_interval, swhy, sizeof(swhy)) <
            0) {
        pr_err("%s (see 'latscope bench --help')\n", swhy);
        if (b->tops->destroy) b->tops->destroy(b->tst);
        free(c->headers);
        return LAT_EXIT_USAGE;
    }
    if (c->slice_ns) c->eng.keep_records = true; /* the slices are cut from the records */
    b->t.expect_class = c->expect_class;
    if (c->expect_body) {
        b->t.expect_body = c->expect_body;
        b->t.expect_body_len = strlen(c->expect_body);
    }
    exit_code = check_load(b);
    if (exit_code) goto early;
    /* --mpi: rank 0 writes --hdr-log (the reduced windows) and --records (every rank's) */
    b->mpi_writer = !b->shard.mpi || b->shard.index == 0;
    /* the live view: rank 0's only under --mpi (the reduced windows) */
    b->show_live = b->mpi_writer && live_wanted(c->live);
    b->live_o.f = stderr;
    b->run = (struct bench_run){.target = b->tops->name, .url = c->url, .best_point = -1};
    if (!(exit_code = connect_targets(b)) && !(exit_code = open_outputs(b)) &&
        !(exit_code = setup_target(b)) && !(exit_code = open_hdr_log(b)) &&
        !(exit_code = plan_points(b))) {
        bool ran;
        exit_code = run_points(b, &ran);
        if (ran) exit_code = print_results(b, opts, exit_code);
        free_points(&b->run);
    }
    exit_code = finish_outputs(b, exit_code);
early:
    if (b->tops->destroy) b->tops->destroy(b->tst);
    free(c->headers);
    /* --mpi: a set-up error (exit 2: the run never started here) leaves MPI to the exit, which
     * aborts the job: the other ranks may wait for this one in the start barrier */
    if (exit_code != LAT_EXIT_USAGE) bench_mpi_fini(&b->shard);
    return exit_code;
}
