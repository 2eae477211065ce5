/*
 * cmd-bench.c - `latscope bench`: load-test an inference server and measure latency correctly.
 *
 * This file owns the option table, builds the target (generic HTTP or KServe v2), expands the
 * load points (concurrency or rate sweeps, --find-max probes), runs each point through the
 * engine (bench/engine.c), and prints the results (bench/report.c): a table on stdout by
 * default, or JSON / CSV. Diagnostics and live progress go to stderr; progress only on a TTY.
 * Ctrl-C stops the current point cleanly: the in-flight requests get a short grace period and
 * every completed request is still reported. Exit status: 0 every point valid, 1 a point is
 * INVALID (or the run was interrupted), 2 usage or setup error.
 */
#define PR_FMT "bench"
#include "bench/bench.h"
#include "bench/kserve.h"
#include "bench/mpi.h"
#include "bench/openai.h"
#include "bench/opts.h"
#include "bench/report.h"
#include "bench/shard.h"
#include "bench/slices.h"
#include "bench/telemetry.h"
#include "core/err.h"
#include "core/log.h"
#include "core/units.h"
#include "hist/hlog.h"
#include "latscope.h"
#include "stats/search.h"
#include "stats/stable.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile sig_atomic_t bench_stop;

/* --find-max: measurements of one probe that the client could not drive before the search
 * stops (bench_result.invalid_client). */
#define FIND_MAX_CLIENT_TRIES 3

static void on_sigint(int sig)
{
    bench_stop++;
}

static const char usage_text[] =
    "usage: latscope bench [OPTIONS] URL\n"
    "\n"
    "Load-tests an HTTP or KServe v2 inference server and reports latency measured from the\n"
    "intended send time (CO-correct) and from the actual send, side by side.\n"
    "\n"
    "Target:\n"
    "  --target http|kserve|openai  request kind (default: kserve when the URL path starts\n"
    "                           with /v2/); the openai options are listed at the end\n"
    "  -X, --method M           HTTP method (default GET, or POST with a body)\n"
    "  -H, --header 'K: V'      extra request header (repeatable)\n"
    "  -d, --body TEXT|@FILE    request body, sent as given (also to /v2/ URLs); JSON\n"
    "                           Content-Type unless -H gives one\n"
    "  --expect-status 2xx|any  success status class (default 2xx)\n"
    "  --expect-body TEXT       the response body must contain TEXT\n"
    "  --model NAME             kserve: model name (else taken from /v2/models/NAME in the URL)\n"
    "  --model-version V        kserve: model version\n"
    "  --input N:SHAPE:TYPE[:random|zeros|@FILE]  kserve input tensor (repeatable); without\n"
    "                           it, inputs come from GET /v2/models/NAME metadata\n"
    "  --batch N                kserve: leading dimension of every input (default 1)\n"
    "  --insecure               https: do not verify the server certificate\n"
    "  --rx-time kernel|user    arrival time of response bytes: the kernel's receive time\n"
    "                           (default; plain TCP) or when recv() returned\n"
    "\n"
    "Load (closed loop by default):\n"
    "  -c, --concurrency LIST   closed loop: connections each with one request in flight;\n"
    "                           a sweep: 1,2,4,8 or 1:64:x2 or 2:10:2 (default 1)\n"
    "  -r, --rate LIST          open loop: requests/s; a sweep: 100 or 10:200:10 or 10,50\n"
    "  --arrival constant|poisson|gamma:K   open-loop arrivals (default poisson)\n"
    "  --seed N                 schedule seed (default 1): same seed, same schedule\n"
    "  --max-inflight N         open loop: most requests outstanding (default 1024)\n"
    "  --connections N          open loop: connections opened up front (default 4/thread)\n"
    "  -t, --threads N          worker threads (default: one per core)\n"
    "  --duration D             measured time per point (default 10s unless --requests)\n"
    "  -n, --requests N         measured requests per point\n"
    "  --warmup D|N             excluded warmup: a duration (2s) or a request count (100)\n"
    "  --connect-timeout D      default 3s\n"
    "  --timeout D              request timeout (default 10s); counted as 'timeout' errors\n"
    "  --window D               progress / --stable / hlog interval (default 1s)\n"
    "\n"
    "Stopping rules and SLOs:\n"
    "  --stable                 end a point when 3 windows agree within 10 %% on throughput\n"
    "                           and mean latency (perf_analyzer's rule; gives up after 10)\n"
    "  --slo 'p99<=200ms[,...]' latency objective(s); a point that misses it is INVALID\n"
    "                           (--target openai: also 'ttft.p99<=500ms', tpot, itl)\n"
    "  --confidence C           with --slo: LoadGen early stopping at confidence C (0.99):\n"
    "                           end the point once the claim holds; else say how many more\n"
    "                           requests it needs (openai: also ttft and tpot terms, tested\n"
    "                           on each request's own value)\n"
    "  --find-max               with --slo: highest open-loop rate meeting the SLO (double,\n"
    "                           then bisect; start at --rate, default 10); with\n"
    "                           --concurrency LO:HI (or a start N): the highest concurrency\n"
    "                           (closed loop, whole steps; N alone searches 1..max(N, 1024))\n"
    "  --max-rate R             --find-max upper limit (default 1000000)\n"
    "  --precision F            --find-max relative precision (default 0.05)\n"
    "\n"
    "Output:\n"
    "  --format text|json|csv   stdout format (default text)\n"
    "  --hdr-log FILE           HdrHistogram V2 interval log (tags lat.sched, lat.send, "
    "send_lag)\n"
    "  --records FILE           one JSON line per request (timestamps, status, error class)\n"
    "  --exact N                keep up to N samples per thread for exact percentiles "
    "(default 100000)\n"
    "  --max-send-lag MS        INVALID when send-lag p99 exceeds this (default 1)\n"
    "  --max-error-rate F       INVALID when more than this share of requests fail\n"
    "                           (default 0.5: a point whose requests mostly fail)\n"
    "  --max-input-size N       largest -d @FILE, --input @FILE, --prompts or --replay\n"
    "                           file read (bytes, k/M/G = 1000s; default 256M)\n"
    "\n"
    "Exit status: 0 all points valid, 1 a point INVALID or interrupted, 2 usage/setup error.\n"
    "See docs/latscope-bench.md and docs/bench-json.md.\n";

enum {
    OPT_TARGET = 256,
    OPT_EXPECT_STATUS,
    OPT_EXPECT_BODY,
    OPT_MODEL,
    OPT_MODEL_VERSION,
    OPT_INPUT,
    OPT_BATCH,
    OPT_INSECURE,
    OPT_RX_TIME,
    OPT_ARRIVAL,
    OPT_SEED,
    OPT_MAX_INFLIGHT,
    OPT_CONNECTIONS,
    OPT_DURATION,
    OPT_WARMUP,
    OPT_CONNECT_TIMEOUT,
    OPT_TIMEOUT,
    OPT_WINDOW,
    OPT_FORMAT,
    OPT_HDR_LOG,
    OPT_RECORDS,
    OPT_EXACT,
    OPT_MAX_SEND_LAG,
    OPT_STABLE,
    OPT_SLO,
    OPT_CONFIDENCE,
    OPT_FIND_MAX,
    OPT_MAX_RATE,
    OPT_PRECISION,
    OPT_MAX_INPUT_SIZE,
    OPT_MAX_ERROR_RATE,
};

static const struct option long_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {"target", required_argument, NULL, OPT_TARGET},
    {"method", required_argument, NULL, 'X'},
    {"header", required_argument, NULL, 'H'},
    {"body", required_argument, NULL, 'd'},
    {"expect-status", required_argument, NULL, OPT_EXPECT_STATUS},
    {"expect-body", required_argument, NULL, OPT_EXPECT_BODY},
    {"model", required_argument, NULL, OPT_MODEL},
    {"model-version", required_argument, NULL, OPT_MODEL_VERSION},
    {"input", required_argument, NULL, OPT_INPUT},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"insecure", no_argument, NULL, OPT_INSECURE},
    {"rx-time", required_argument, NULL, OPT_RX_TIME},
    {"concurrency", required_argument, NULL, 'c'},
    {"rate", required_argument, NULL, 'r'},
    {"arrival", required_argument, NULL, OPT_ARRIVAL},
    {"seed", required_argument, NULL, OPT_SEED},
    {"max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT},
    {"connections", required_argument, NULL, OPT_CONNECTIONS},
    {"threads", required_argument, NULL, 't'},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"requests", required_argument, NULL, 'n'},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"hdr-log", required_argument, NULL, OPT_HDR_LOG},
    {"records", required_argument, NULL, OPT_RECORDS},
    {"exact", required_argument, NULL, OPT_EXACT},
    {"max-send-lag", required_argument, NULL, OPT_MAX_SEND_LAG},
    {"stable", no_argument, NULL, OPT_STABLE},
    {"slo", required_argument, NULL, OPT_SLO},
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    {"find-max", no_argument, NULL, OPT_FIND_MAX},
    {"max-rate", required_argument, NULL, OPT_MAX_RATE},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"max-input-size", required_argument, NULL, OPT_MAX_INPUT_SIZE},
    {"max-error-rate", required_argument, NULL, OPT_MAX_ERROR_RATE},
    {NULL, 0, NULL, 0},
};

struct cli {
    const char *url;
    const char *target;
    const char *method;
    const char **headers;
    size_t nheaders;
    const char *body_arg;
    int expect_class;
    const char *expect_body;
    struct kserve_opts ks;
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
    bool stable, find_max;
    bool llm; /* --target openai: ttft/tpot/itl/chunk_gap SLO terms are judged on its summary */
    const char *slo_text;
    struct slo slo;
    double confidence, max_rate, precision;
    uint64_t max_input; /* --max-input-size (0: LLM_MAX_INPUT_BYTES) */
    struct bench_opts eng;
};

/* State shared with the per-window hook: progress line and the interval log. */
struct window_ctx {
    bool progress;
    lat_ns t0;
    uint64_t ok, errors;
    struct hlog_writer *hlog;
    lat_ns hlog_base;
    int hlog_err;
    /* --stable */
    struct lat_stable *stable;
    /* --slo with --confidence: cumulative histograms, early stop when every term passes. */
    const struct slo *slo;
    double confidence;
    struct lat_hist *cum; /* [CUM__N]: one per metric a term can name */
    struct llm_bench *llm;
    /* --mpi: the stop rules decide on the window reduced over all ranks (bench/mpi.h) */
    const struct bench_shard *mpi;
    struct lat_hist *mpi_h; /* [2]: the reduced window's latency and send lag */
};

/* The cumulative histograms of a point under --confidence, one per SLO metric: the engine's
 * request latency and send lag, and (--target openai) each measured request's TTFT and TPOT.
 * Every one is fed once per window and judged by the same early-stopping test. */
enum { CUM_LAT = 0, CUM_LAG, CUM_TTFT, CUM_TPOT, CUM__N };

static int slo_cum_index(const struct slo_term *t)
{
    if (!strcmp(t->metric, "send_lag")) return CUM_LAG;
    if (!strcmp(t->metric, "ttft")) return CUM_TTFT;
    if (!strcmp(t->metric, "tpot")) return CUM_TPOT;
    return CUM_LAT;
}

static const struct lat_hist *slo_hist(const struct slo_term *t, const struct lat_hist *lat,
                                       const struct lat_hist *lag)
{
    if (strcmp(t->metric, "send_lag") == 0) return lag;
    return lat;
}

/* An SLO metric measured by the LLM target (not by the engine's request-latency histograms). */
static bool slo_is_llm_metric(const char *m)
{
    return !strcmp(m, "ttft") || !strcmp(m, "tpot") || !strcmp(m, "itl") || !strcmp(m, "chunk_gap");
}

/* The value of term t on a point's LLM summary (ns); false when the summary lacks it. */
static bool slo_llm_observed(const struct slo_term *t, const struct llm_summary *s, double *obs)
{
    const struct llm_stat *st = !strcmp(t->metric, "ttft")   ? &s->ttft
                                : !strcmp(t->metric, "tpot") ? &s->tpot
                                : !strcmp(t->metric, "itl")  ? &s->itl
                                                             : &s->chunk_gap;
    if (!st->n) return false;
    if (t->stat == SLO_MEAN)
        *obs = st->mean;
    else if (t->stat == SLO_MAX)
        *obs = st->max;
    else if (t->pct == 50)
        *obs = st->p50;
    else if (t->pct == 90)
        *obs = st->p90;
    else if (t->pct == 95)
        *obs = st->p95;
    else if (t->pct == 99)
        *obs = st->p99;
    else if (t->pct == 99.9)
        *obs = st->p999;
    else
        return false;
    return true;
}

static bool on_window(void *ud, const struct bench_window *w)
{
    struct window_ctx *c = ud;
    struct bench_window mw;
    if (c->mpi) {
        int mrc = bench_mpi_window(c->mpi, w, &mw, &c->mpi_h[0], &c->mpi_h[1]);
        if (mrc) return false; /* the ranks' windows of this point are over */
        w = &mw;
    }
    c->ok += w->ok;
    c->errors += w->errors;
    if (c->progress) {
        double len = (double)(w->t_end - w->t_start) / 1e9;
        fprintf(stderr,
                "\r[%6.1fs] %8.1f req/s  in flight %4llu  p50 %8.3f ms  p99 %8.3f ms  "
                "errors %llu   ",
                (double)(w->t_end - c->t0) / 1e9, len > 0 ? (double)w->ok / len : 0,
                (unsigned long long)w->inflight, (double)hist_value_at_percentile(w->lat, 50) / 1e6,
                (double)hist_value_at_percentile(w->lat, 99) / 1e6, (unsigned long long)c->errors);
        fflush(stderr);
    }
    if (c->hlog && !c->hlog_err) {
        double s = (double)(w->t_start - c->hlog_base) / 1e9;
        double l = (double)(w->t_end - w->t_start) / 1e9;
        int rc = hlog_writer_interval(c->hlog, "lat.sched", s, l, w->lat);
        if (!rc) rc = hlog_writer_interval(c->hlog, "lat.send", s, l, w->lat_actual);
        if (!rc) rc = hlog_writer_interval(c->hlog, "send_lag", s, l, w->send_lag);
        c->hlog_err = rc;
    }
    bool stop = false;
    if (c->stable && w->ok) {
        /* Windows before the first measured request (warmup) are not fed. */
        double len = (double)(w->t_end - w->t_start) / 1e9;
        double mean = hist_mean(w->lat);
        if (len > 0 && mean > 0 &&
            stable_add(c->stable, (double)w->ok / len, mean) != STABLE_NOT_YET)
            stop = true;
    }
    if (c->slo && c->confidence > 0) {
        hist_add(&c->cum[CUM_LAT], w->lat);
        hist_add(&c->cum[CUM_LAG], w->send_lag);
        if (c->llm) llm_bench_ivl_take(c->llm, &c->cum[CUM_TTFT], &c->cum[CUM_TPOT]);
        bool all = c->slo->n > 0;
        for (int i = 0; i < c->slo->n && all; i++) {
            const struct slo_term *t = &c->slo->t[i];
            double obs;
            uint64_t more = 0;
            if (t->stat == SLO_ERRORS) {
                all = false; /* an error budget is judged at the end */
                break;
            }
            if (slo_term_eval_hist(t, &c->cum[slo_cum_index(t)], c->confidence, &obs, &more) !=
                SLO_PASS)
                all = false;
        }
        if (all) stop = true;
    }
    return stop;
}

/* Judges the SLO terms on a finished point; marks the point INVALID when not met (unless
 * find-max, where a miss is the expected answer of a probe). */
static void judge_slo(const struct cli *c, struct bench_point *p, bool mark_invalid,
                      const struct lat_hist *cum)
{
    struct bench_slo_result *r = &p->slo;
    memset(r, 0, sizeof(*r));
    if (!c->slo_text) return;
    r->have = true;
    r->pass = true;
    r->confidence = c->confidence;
    uint64_t total = p->res.ok + p->res.errors_total;
    for (int i = 0; i < c->slo.n && i < 8; i++) {
        const struct slo_term *t = &c->slo.t[i];
        struct bench_slo_term_result *o = &r->t[r->n++];
        slo_term_format(t, o->text, sizeof(o->text));
        if (t->stat == SLO_ERRORS) {
            o->is_errors = true;
            o->observed = total ? (double)p->res.errors_total / (double)total : 1.0;
            /* The LLM target also fails requests the HTTP layer saw complete (error events,
             * cut or malformed streams): count those too. */
            if (p->llm && p->llm->requests)
                o->observed = (double)p->llm->errors / (double)p->llm->requests;
            o->verdict = slo_term_holds(t, o->observed) ? SLO_PASS : SLO_FAIL;
        } else if (c->confidence > 0 && cum && slo_cum_index(t) >= CUM_TTFT) {
            /* --confidence on ttft/tpot: LoadGen's early stopping on every measured request's
             * own value (the cumulative histogram the windows fed), as for e2e. */
            o->verdict = (int)slo_term_eval_hist(t, &cum[slo_cum_index(t)], c->confidence,
                                                 &o->observed, &o->more_needed);
        } else if (slo_is_llm_metric(t->metric)) {
            /* Exact order statistics of every request of the point (llm/metrics.h); no
             * sample (every request failed) is a miss. */
            o->verdict = p->llm && slo_llm_observed(t, p->llm, &o->observed) &&
                                 slo_term_holds(t, o->observed)
                             ? SLO_PASS
                             : SLO_FAIL;
        } else {
            o->verdict = (int)slo_term_eval_hist(t, slo_hist(t, &p->res.lat, &p->res.send_lag),
                                                 c->confidence, &o->observed, &o->more_needed);
        }
        if (o->verdict != SLO_PASS) r->pass = false;
    }
    if (!r->pass && mark_invalid && p->res.valid) {
        p->res.valid = false;
        snprintf(p->res.invalid_reason, sizeof(p->res.invalid_reason), "SLO %s not met%s",
                 c->slo_text, c->confidence > 0 ? " at the requested confidence" : "");
    }
}

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

static int parse_args(int argc, char **argv, struct cli *c)
{
    const char *why = NULL;
    int o;
    uint64_t u;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "hX:H:d:c:r:t:n:", long_opts, NULL)) != -1) {
        int rc = 0;
        switch (o) {
        case 'h': {
            /* One write at exit: a reader that stops early (grep -q) then cannot make a
             * second write fail with EPIPE. */
            static char help_buf[1 << 16]; /* glibc ignores the size without a buffer */
            setvbuf(stdout, help_buf, _IOFBF, sizeof(help_buf));
            fputs(usage_text, stdout);
            fputs("\n", stdout);
            fputs(llm_bench_usage, stdout);
            fputs("\n", stdout);
            fputs(bench_shard_usage, stdout);
            fputs("\n", stdout); /* issue 17: GPU telemetry, time slices */
            fputs(gpu_telem_usage, stdout);
            fputs("\n", stdout);
            fputs(bench_slices_usage, stdout);
            return -1;
        }
        case OPT_TARGET:
            if (strcmp(optarg, "http") && strcmp(optarg, "kserve") && strcmp(optarg, "openai"))
                return usage_error("--target", "expected http, kserve or openai");
            c->target = optarg;
            break;
        case 'X':
            c->method = optarg;
            break;
        case 'H':
            if (!strchr(optarg, ':') || strpbrk(optarg, "\r\n"))
                return usage_error("--header", "expected 'Name: value'");
            c->headers = xrealloc(c->headers, (c->nheaders + 1) * sizeof(*c->headers));
            c->headers[c->nheaders++] = optarg;
            break;
        case 'd':
            c->body_arg = optarg;
            break;
        case OPT_EXPECT_STATUS:
            if (bench_parse_expect_status(optarg, &c->expect_class, &why) < 0)
                return usage_error("--expect-status", why);
            break;
        case OPT_EXPECT_BODY:
            if (!*optarg) return usage_error("--expect-body", "empty text");
            c->expect_body = optarg;
            break;
        case OPT_MODEL:
            c->ks.model = optarg;
            break;
        case OPT_MODEL_VERSION:
            c->ks.version = optarg;
            break;
        case OPT_INPUT:
            if (c->ks.ninputs == KSERVE_MAX_INPUTS) return usage_error("--input", "too many");
            if (bench_parse_input(optarg, &c->ks.inputs[c->ks.ninputs], &why) < 0)
                return usage_error("--input", why);
            c->ks.ninputs++;
            break;
        case OPT_BATCH:
            if ((rc = parse_count_opt("--batch", optarg, &u, 1 << 20))) return rc;
            c->ks.batch = (unsigned)u;
            break;
        case OPT_INSECURE:
            c->insecure = true;
            break;
        case OPT_RX_TIME:
            if (strcmp(optarg, "kernel") && strcmp(optarg, "user"))
                return usage_error("--rx-time", "expected kernel or user");
            c->rx_user = !strcmp(optarg, "user");
            break;
        case 'c':
            c->conc_arg = optarg;
            break;
        case 'r':
            c->rate_arg = optarg;
            break;
        case OPT_ARRIVAL:
            if (bench_parse_arrival(optarg, &c->arrival, &c->gamma_shape, &why) < 0)
                return usage_error("--arrival", why);
            c->arrival_name = optarg;
            break;
        case OPT_SEED:
            if (units_parse_count(optarg, &c->seed) < 0)
                return usage_error("--seed", "expected a whole number");
            break;
        case OPT_MAX_INFLIGHT:
            if ((rc = parse_count_opt("--max-inflight", optarg, &u, 1 << 20))) return rc;
            c->max_inflight = (unsigned)u;
            break;
        case OPT_CONNECTIONS:
            if ((rc = parse_count_opt("--connections", optarg, &u, 1 << 20))) return rc;
            c->connections = (unsigned)u;
            break;
        case 't':
            if ((rc = parse_count_opt("--threads", optarg, &u, 256))) return rc;
            c->eng.threads = (unsigned)u;
            break;
        case OPT_DURATION:
            if ((rc = parse_duration_opt("--duration", optarg, &c->duration_ns))) return rc;
            break;
        case 'n':
            if ((rc = parse_count_opt("--requests", optarg, &c->requests, UINT64_MAX / 2)))
                return rc;
            break;
        case OPT_WARMUP:
            if (bench_parse_warmup(optarg, &c->warmup_ns, &c->warmup_requests, &why) < 0)
                return usage_error("--warmup", why);
            break;
        case OPT_CONNECT_TIMEOUT:
            if ((rc = parse_duration_opt("--connect-timeout", optarg, &c->eng.connect_timeout_ns)))
                return rc;
            break;
        case OPT_TIMEOUT:
            if ((rc = parse_duration_opt("--timeout", optarg, &c->eng.request_timeout_ns)))
                return rc;
            break;
        case OPT_WINDOW:
            if ((rc = parse_duration_opt("--window", optarg, &c->eng.window_ns))) return rc;
            break;
        case OPT_FORMAT:
            if (lat_parse_format(optarg,
                                 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON | 1u << LAT_FMT_CSV,
                                 &c->format) < 0)
                return usage_error("--format", "expected text, json or csv");
            break;
        case OPT_HDR_LOG:
            c->hdr_log = optarg;
            break;
        case OPT_RECORDS:
            c->records = optarg;
            c->eng.keep_records = true;
            break;
        case OPT_EXACT:
            if (units_parse_count(optarg, &u) < 0 || u > 100000000)
                return usage_error("--exact", "expected a sample count (0 turns it off)");
            c->eng.exact_cap = (size_t)u;
            break;
        case OPT_MAX_INPUT_SIZE:
            if (units_parse_count(optarg, &c->max_input) < 0 || c->max_input == 0)
                return usage_error("--max-input-size", "expected a byte count such as 512M");
            break;
        case OPT_MAX_ERROR_RATE: {
            char *e;
            double v = strtod(optarg, &e);
            if (e == optarg || *e || !(v >= 0 && v < 1))
                return usage_error("--max-error-rate", "expected a fraction 0 <= F < 1");
            c->eng.max_error_frac = v > 0 ? v : 1e-12; /* 0: any error makes a point INVALID */
            break;
        }
        case OPT_MAX_SEND_LAG: {
            char *e;
            double v = strtod(optarg, &e);
            if (e == optarg || *e || !(v > 0))
                return usage_error("--max-send-lag", "expected milliseconds > 0");
            c->eng.max_send_lag_p99_ms = v;
            break;
        }
        case OPT_STABLE:
            c->stable = true;
            break;
        case OPT_SLO:
            if (slo_parse(optarg, &c->slo, &why) < 0) return usage_error("--slo", why);
            for (int i = 0; i < c->slo.n; i++) {
                const struct slo_term *t = &c->slo.t[i];
                if (!strcmp(t->metric, "e2e") || !strcmp(t->metric, "send_lag")) continue;
                if (!c->llm || !slo_is_llm_metric(t->metric))
                    return usage_error("--slo",
                                       c->llm ? "metrics are e2e, send_lag, ttft, tpot, itl and "
                                                "chunk_gap"
                                              : "bench http/kserve measures e2e and send_lag; "
                                                "ttft/tpot/itl need --target openai");
                if (t->stat == SLO_PCTL && t->pct != 50 && t->pct != 90 && t->pct != 95 &&
                    t->pct != 99 && t->pct != 99.9)
                    return usage_error("--slo", "LLM metric terms take p50, p90, p95, p99, "
                                                "p99.9, mean or max");
                if (t->stat == SLO_ERRORS)
                    return usage_error("--slo", "'errors' takes no metric prefix");
            }
            c->slo_text = optarg;
            break;
        case OPT_CONFIDENCE: {
            char *e;
            double v = strtod(optarg, &e);
            if (e == optarg || *e || !(v > 0 && v < 1))
                return usage_error("--confidence", "expected a fraction such as 0.99");
            c->confidence = v;
            break;
        }
        case OPT_FIND_MAX:
            c->find_max = true;
            break;
        case OPT_MAX_RATE:
        case OPT_PRECISION: {
            char *e;
            double v = strtod(optarg, &e);
            if (e == optarg || *e || !(v > 0) || (o == OPT_PRECISION && v >= 1))
                return usage_error(o == OPT_MAX_RATE ? "--max-rate" : "--precision",
                                   "expected a positive number (precision < 1)");
            if (o == OPT_MAX_RATE)
                c->max_rate = v;
            else
                c->precision = v;
            break;
        }
        default: {
            char opt[64];
            snprintf(opt, sizeof(opt), "%s", argv[optind - 1]);
            return usage_error(opt, optopt && o == '?' && optopt != 0
                                        ? "missing value or unknown option"
                                        : "unknown option");
        }
        }
    }
    if (optind != argc - 1)
        return usage_error("URL", optind >= argc ? "missing (e.g. http://127.0.0.1:8000/)"
                                                 : "exactly one URL expected");
    c->url = argv[optind];
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

/* What each request is, for `latscope diff` (bench JSON "workload"): the request's first line,
 * length and a hash of its bytes without the Host header (host and port change between runs of
 * the same workload), or the openai workload options. */
static void workload_text(char *out, size_t cap, const char *target, const char *req, size_t len,
                          const struct llm_bench *llm)
{
    if (llm->active) {
        const struct llm_workload_cfg *w = &llm->tc.wl;
        snprintf(out, cap,
                 "openai api %d model %s input %d+-%d output %d+-%d prompts %s extra %s "
                 "ignore_eos %d seed %llu",
                 (int)w->api, w->model ? w->model : "-", w->input.mean, w->input.stddev,
                 w->output.mean, w->output.stddev, w->prompts_path ? w->prompts_path : "-",
                 w->extra_body ? w->extra_body : "-", (int)w->ignore_eos,
                 (unsigned long long)w->seed);
        return;
    }
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    size_t first = 0;
    while (first < len && req[first] != '\r' && req[first] != '\n')
        first++;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && req[e] != '\n')
            e++;
        bool host = e - i >= 5 && strncasecmp(req + i, "host:", 5) == 0;
        for (size_t k = i; !host && k < e && k < len; k++) {
            h ^= (unsigned char)req[k];
            h *= 1099511628211ULL;
        }
        i = e + 1;
    }
    snprintf(out, cap, "%s %.*s (%zu bytes, #%016llx)", target, (int)(first < 200 ? first : 200),
             req ? req : "", len, (unsigned long long)h);
}

/* -d BODY or -d @FILE into body (nothing without -d). 0 or an exit code. */
static int read_body(const struct cli *c, struct lat_buf *body)
{
    bool have_body = c->body_arg != NULL;
    if (have_body && c->body_arg[0] == '@') {
        uint64_t max = c->max_input ? c->max_input : LLM_MAX_INPUT_BYTES;
        int rc = buf_read_file(body, c->body_arg + 1, max);
        if (rc == LAT_E_OVERFLOW) {
            pr_err("--body %s: larger than %llu bytes (--max-input-size N raises the limit)\n",
                   c->body_arg + 1, (unsigned long long)max);
            return LAT_EXIT_USAGE;
        }
        if (rc < 0) {
            pr_err("--body %s: %s\n", c->body_arg + 1, lat_strerror(rc));
            return LAT_EXIT_USAGE;
        }
    } else if (have_body) {
        if (buf_puts(body, c->body_arg) < 0) return LAT_EXIT_FAILURE;
    }
    return 0;
}

/* The -H headers, plus "Content-Type: application/json" when a body is sent and no -H gives a
 * Content-Type (issue 17 item 5: -d sent none). *hdrs is allocated; free it. */
static size_t body_headers(const struct cli *c, bool have_body, const char ***hdrs)
{
    bool have_ct = false;
    *hdrs = xcalloc(c->nheaders + 1, sizeof(**hdrs));
    for (size_t i = 0; i < c->nheaders; i++) {
        if (strncasecmp(c->headers[i], "content-type:", 13) == 0) have_ct = true;
        (*hdrs)[i] = c->headers[i];
    }
    size_t n = c->nheaders;
    if (have_body && !have_ct) (*hdrs)[n++] = "Content-Type: application/json";
    return n;
}

static int build_http_target(struct cli *c, struct bench_target *t, struct lat_buf *req,
                             struct lat_buf *body)
{
    const char *method = c->method;
    bool have_body = c->body_arg != NULL;
    int rc = read_body(c, body);
    if (rc) return rc;
    if (!method) method = have_body ? "POST" : "GET";
    const char **hdrs;
    size_t nh = body_headers(c, have_body, &hdrs);
    rc = http1_build_request(req, method, t->url.hostport, t->url.path, hdrs, nh,
                             have_body ? (body->data ? body->data : "") : NULL, body->len);
    free(hdrs);
    if (rc < 0) {
        pr_err("cannot build the request: %s\n", lat_strerror(rc));
        return LAT_EXIT_USAGE;
    }
    t->head = strcmp(method, "HEAD") == 0;
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

int cmd_bench(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && !strcmp(argv[1], "merge")) return cmd_bench_merge(argc - 1, argv + 1, opts);
    /* Multi-host: --shard, --start-at, --mpi are taken out of argv first (src/bench/shard.c). */
    struct bench_shard shard;
    char swhy[512];
    if (shard_take_args(&shard, &argc, argv, swhy, sizeof(swhy)) < 0 ||
        bench_shard_setup(&shard, swhy, sizeof(swhy)) < 0) {
        pr_err("%s (see 'latscope bench --help')\n", swhy);
        return LAT_EXIT_USAGE;
    }
    struct cli c = {.expect_class = 2, .seed = 1, .arrival = BENCH_ARRIVAL_POISSON};
    bench_opts_default(&c.eng);
    /* --target openai: its own options are taken out of argv first (src/bench/openai.c). */
    struct llm_bench llm;
    char lwhy[512];
    if (llm_bench_take_args(&llm, &argc, argv, lwhy, sizeof(lwhy)) < 0) {
        pr_err("%s (see 'latscope bench --help')\n", lwhy);
        return LAT_EXIT_USAGE;
    }
    c.llm = llm.active;
    /* GPU telemetry and time slices (issue 17): their options are taken out of argv too
     * (src/bench/telemetry.c, src/bench/slices.c). */
    struct gpu_telem gtel;
    lat_ns slice_ns = 0;
    if (gpu_telem_take_args(&gtel, &argc, argv, lwhy, sizeof(lwhy)) < 0 ||
        bench_slices_take_args(&slice_ns, &argc, argv, lwhy, sizeof(lwhy)) < 0) {
        pr_err("%s (see 'latscope bench --help')\n", lwhy);
        return LAT_EXIT_USAGE;
    }
    if (slice_ns) c.eng.keep_records = true; /* the slices are cut from the records */
    int rc = parse_args(argc, argv, &c);
    if (rc < 0) {
        free(c.headers);
        return LAT_EXIT_OK;
    }
    if (rc > 0) {
        free(c.headers);
        return rc;
    }

    struct bench_target t = {.expect_class = c.expect_class};
    const char *why = NULL;
    if (http1_url_parse(c.url, &t.url, &why) < 0) {
        free(c.headers);
        return usage_error(c.url, why);
    }
    if (!c.target) c.target = strncmp(t.url.path, "/v2/", 4) == 0 ? "kserve" : "http";
    if (c.expect_body) {
        t.expect_body = c.expect_body;
        t.expect_body_len = strlen(c.expect_body);
    }

    double values[BENCH_SWEEP_MAX];
    size_t nvalues = 0;
    bool open_loop = c.rate_arg != NULL;
    /* --find-max --concurrency LO:HI: a closed-loop search over whole concurrencies. */
    bool find_conc = c.find_max && c.conc_arg;
    unsigned conc_start = 0, conc_lo = 0, conc_hi = 0;
    if (find_conc) {
        if (bench_parse_conc_range(c.conc_arg, &conc_start, &conc_lo, &conc_hi, &why) < 0) {
            free(c.headers);
            return usage_error("--concurrency", why);
        }
    } else if (bench_parse_sweep(open_loop ? c.rate_arg : (c.conc_arg ? c.conc_arg : "1"),
                                 !open_loop, values, &nvalues, &why) < 0) {
        free(c.headers);
        return usage_error(open_loop ? "--rate" : "--concurrency", why);
    }
    if (llm.replay_path && (c.rate_arg || c.conc_arg || c.find_max || c.duration_ns ||
                            c.warmup_ns || c.warmup_requests || c.stable)) {
        free(c.headers);
        return usage_error("--replay", "the trace sets every send time; drop --rate, "
                                       "--concurrency, --find-max, --duration, --warmup and "
                                       "--stable (--requests N replays the first N)");
    }
    if (llm.replay_path) llm.replay_limit = (size_t)c.requests;
    if (!c.duration_ns && !c.requests)
        c.duration_ns = c.stable ? 11 * c.eng.window_ns : 10 * LAT_NS_PER_S;
    if (shard.count > 1 && !shard.mpi && (c.find_max || c.stable || c.confidence > 0)) {
        free(c.headers);
        return usage_error("--shard", "--find-max, --stable and --confidence decide on the "
                                      "whole load: run the shards under MPI (--mpi)");
    }
    if (shard.mpi && ((c.confidence > 0 && llm.active) || c.hdr_log || c.records ||
                      llm.records_path || (llm.active && llm.view != LLM_VIEW_LATSCOPE))) {
        free(c.headers);
        bench_mpi_fini(&shard);
        return usage_error("--mpi", "not yet with --hdr-log, --records, --records-detail, "
                                    "--metrics-compat or --confidence on --target openai: run "
                                    "--shard K/N per process and 'latscope bench merge' the "
                                    "results");
    }

    if (shard.mpi && (slice_ns || gtel.mode != GPU_TELEM_OFF)) { /* issue 17 */
        free(c.headers);
        bench_mpi_fini(&shard);
        return usage_error("--mpi", "not yet with --slice or GPU telemetry (each rank would "
                                    "see only its own requests): run --shard K/N per process");
    }
    rc = conn_target_init(&t.conn, t.url.host, t.url.port, t.url.tls, !c.insecure);
    if (rc < 0) {
        pr_err("%s: cannot resolve %s: %s\n", c.url, t.url.host, lat_strerror(rc));
        free(c.headers);
        return LAT_EXIT_USAGE;
    }
    t.conn.rx_kernel_time = !c.rx_user;

    struct lat_buf req = LAT_BUF_INIT, body = LAT_BUF_INIT;
    struct kserve_ctx ks = {0};
    int exit_code = LAT_EXIT_OK;
    struct bench_run run = {.target = c.target, .url = c.url, .best_point = -1};
    FILE *hf = NULL, *rf = NULL;
    struct hlog_writer hw = {0};
    bool hw_started = false;
    llm.max_input = (size_t)c.max_input;
    for (size_t k = 0; k < c.ks.ninputs; k++)
        c.ks.inputs[k].max_bytes = c.max_input;

    /* Every output file is opened before the first request: a path that cannot be written
     * must not cost the run (--hdr-log below; --records-detail in llm_bench_setup). */
    if (c.records) {
        rf = fopen(c.records, "w");
        if (!rf) {
            pr_err("--records %s: %s\n", c.records, strerror(errno));
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
    }

    if (llm.active) {
        static const struct bench_req_ops llm_ops = {
            llm_bench_conn_new, llm_bench_conn_free, llm_bench_build,
            llm_bench_begin,    llm_conn_body,       llm_bench_end,
        };
        rc = llm_bench_setup(&llm, t.url.hostport, t.url.path, c.headers, c.nheaders, c.seed, lwhy,
                             sizeof(lwhy));
        if (rc < 0) {
            pr_err("openai: %s\n", lwhy[0] ? lwhy : lat_strerror(rc));
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
        t.ops = &llm_ops;
        t.ops_ud = &llm;
        if (shard.count > 1 && llm.t) { /* shard K of N: requests K, K + N, ... (bench/shard.h) */
            llm.t->idx_base = shard.index;
            llm.t->idx_stride = shard.count;
        }
        t.ops_seq = llm_bench_seq;
        if (llm.replay.n) {
            /* One open-loop point whose intended send times are the trace's; its nominal
             * rate is the trace's mean rate. */
            lat_ns span = llm.replay.offsets[llm.replay.n - 1];
            open_loop = true;
            nvalues = 1;
            values[0] =
                span > 0 ? (double)(llm.replay.n - 1) / ((double)span / 1e9) : (double)llm.replay.n;
            c.duration_ns = span + 1;
            c.requests = 0;
        }
    } else if (strcmp(c.target, "kserve") == 0) {
        char err[256] = "";
        c.ks.seed = c.seed;
        if (c.body_arg) {
            /* The user's body, sent as given (issue 17 item 5: an auto-selected kserve target
             * sent its own tensor instead); the statistics are still read around each point. */
            if (c.ks.ninputs) {
                exit_code = usage_error("-d", "-d gives the whole request body; drop --input");
                goto out;
            }
            if ((rc = read_body(&c, &body))) {
                exit_code = rc;
                goto out;
            }
            c.ks.user_body = body.data ? body.data : "";
            c.ks.user_body_len = body.len;
            c.ks.user_method = c.method;
        }
        rc = kserve_setup(&ks, &c.ks, &t, c.headers, c.nheaders, err, sizeof(err));
        if (rc < 0) {
            pr_err("kserve: %s\n", err[0] ? err : lat_strerror(rc));
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
    } else {
        if ((rc = build_http_target(&c, &t, &req, &body))) {
            exit_code = rc;
            goto out;
        }
        t.request = req.data;
        t.request_len = req.len;
    }
    static char workload[512];
    workload_text(workload, sizeof(workload), c.target, t.request, t.request ? t.request_len : 0,
                  &llm);
    run.workload = workload;

    if (c.hdr_log) {
        hf = fopen(c.hdr_log, "w");
        if (!hf) {
            pr_err("--hdr-log %s: %s\n", c.hdr_log, strerror(errno));
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
        if (hlog_writer_start(&hw, hf, (double)clock_realtime_ns() / 1e9) < 0) {
            pr_err("--hdr-log %s: write error\n", c.hdr_log);
            exit_code = LAT_EXIT_FAILURE;
            goto out;
        }
        hw_started = true;
    }

    /* Percentile SLO terms on LLM metrics also define the per-request goodput (a request is
     * good when its own ttft/tpot/e2e meets every limit), unless the per-request --slo
     * ('ttft<=500ms') was given too. */
    if (llm.active && !llm.slo.set && c.slo_text) {
        llm.slo.ttft_ns = llm.slo.tpot_ns = llm.slo.e2e_ns = -1;
        for (int i = 0; i < c.slo.n; i++) {
            const struct slo_term *st = &c.slo.t[i];
            if (st->stat == SLO_ERRORS || (st->op != SLO_LE && st->op != SLO_LT)) continue;
            double pct = st->stat == SLO_PCTL ? st->pct : 0;
            if (!strcmp(st->metric, "ttft"))
                llm.slo.ttft_ns = st->limit_ns, llm.slo.ttft_pct = pct;
            else if (!strcmp(st->metric, "tpot") || !strcmp(st->metric, "itl"))
                llm.slo.tpot_ns = st->limit_ns, llm.slo.tpot_pct = pct;
            else if (!strcmp(st->metric, "e2e"))
                llm.slo.e2e_ns = st->limit_ns, llm.slo.e2e_pct = pct;
        }
        llm.slo.set = llm.slo.ttft_ns >= 0 || llm.slo.tpot_ns >= 0 || llm.slo.e2e_ns >= 0;
    }

    struct lat_search search;
    if (find_conc) {
        /* The same bracket-then-bisect search as for rates, in whole steps. */
        if (search_init(&search, conc_start, conc_lo, conc_hi, c.precision > 0 ? c.precision : 0.05,
                        SEARCH_MAX_STEPS) < 0) {
            usage_error("--find-max", "invalid concurrency range");
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
        search_set_integer(&search);
        open_loop = false;
        nvalues = SEARCH_MAX_STEPS;
        run.slo = c.slo_text;
        run.find_concurrency = true;
    } else if (c.find_max) {
        double start = open_loop ? values[0] : 10.0;
        double maxr = c.max_rate > 0 ? c.max_rate : 1e6;
        if (start > maxr) start = maxr;
        if (search_init(&search, start, start < 1 ? start : 1, maxr,
                        c.precision > 0 ? c.precision : 0.05, SEARCH_MAX_STEPS) < 0) {
            usage_error("--find-max", "invalid search range (--rate start vs --max-rate)");
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
        open_loop = true;
        nvalues = SEARCH_MAX_STEPS;
        run.slo = c.slo_text;
    }
    run.points = xcalloc(nvalues, sizeof(*run.points));
    run.npoints = nvalues;
    run.shard = &shard;
    run.threads = c.eng.threads;
    run.rx_time = t.conn.rx_kernel_time && !t.url.tls ? "kernel" : "user";
    run.mode = c.find_max ? "find-max" : llm.replay.n ? "replay" : open_loop ? "open" : "closed";
    run.arrival = llm.replay.n ? "replay"
                  : open_loop  ? (c.arrival_name ? c.arrival_name : "poisson")
                               : NULL;

    /* Every connection is an fd: lift the soft limit to the hard one (1024 is the usual
     * default) so a large --concurrency or --max-inflight does not turn into connect errors. */
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }

    struct sigaction sa = {.sa_handler = on_sigint}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    lat_ns hlog_base = clock_now_ns();
    llm.hlog = hw_started ? &hw : NULL;
    llm.hlog_base = hlog_base;
    struct lat_hist cum[CUM__N];
    memset(cum, 0, sizeof(cum));
    bool cum_fail = c.confidence > 0 && llm.active && llm_bench_ivl_enable(&llm) < 0;
    for (int k = 0; c.confidence > 0 && k < CUM__N; k++)
        if (hist_init_default(&cum[k]) < 0) cum_fail = true;
    if (cum_fail) {
        pr_err("out of memory\n");
        exit(LAT_EXIT_FAILURE);
    }

    struct lat_hist mpi_h[2];
    memset(mpi_h, 0, sizeof(mpi_h));
    if (shard.mpi && (hist_init_default(&mpi_h[0]) < 0 || hist_init_default(&mpi_h[1]) < 0)) {
        pr_err("out of memory\n");
        exit(LAT_EXIT_FAILURE);
    }
    /* GPU telemetry (issue 17): a --gpu-metrics-url that is not a DCGM exporter is a setup
     * error; NVML without a driver only says so, and the run goes on. */
    if ((rc = gpu_telem_start(&gtel, lwhy, sizeof(lwhy))) < 0) {
        pr_err("%s\n", lwhy[0] ? lwhy : lat_strerror(rc));
        exit(rc == LAT_E_USAGE ? LAT_EXIT_USAGE : LAT_EXIT_FAILURE);
    }
    if (gtel.mode != GPU_TELEM_OFF && !gtel.available)
        pr_warn("GPU telemetry unavailable: %s; the run goes on without it\n",
                gtel.unavailable_why);
    unsigned client_tries = 0; /* --find-max: client-INVALID measurements of this probe */
    bool llm_err_said = false; /* a --records-detail/--hdr-log write error was reported */
    for (size_t i = 0; i < nvalues && !bench_stop; i++) {
        struct bench_point *p = &run.points[i];
        struct bench_load *l = &p->load;
        double value = c.find_max ? search_next(&search) : values[i];
        if (c.find_max && value <= 0) break;
        if (open_loop) {
            l->rate = value;
            l->arrival = c.arrival;
            l->gamma_shape = c.gamma_shape;
        } else {
            l->concurrency = (unsigned)value;
        }
        l->seed = c.seed;
        l->max_inflight = c.max_inflight;
        l->connections = c.connections;
        l->duration_ns = c.duration_ns;
        l->requests = c.requests;
        l->warmup_ns = c.warmup_ns;
        l->warmup_requests = c.warmup_requests;
        if (llm.replay.n) {
            l->offsets = llm.replay.offsets;
            l->noffsets = llm.replay.n;
        }
        bench_load_finish(l, &c.eng);
        if (shard_prepare_point(&shard, i, l, &c.eng, &bench_stop, swhy, sizeof(swhy)) < 0) {
            pr_err("%s\n", swhy);
            exit_code = LAT_EXIT_USAGE;
            break;
        }
        if (strcmp(c.target, "kserve") == 0) kserve_stats_before(&ks, &t);
        struct lat_stable stable;
        stable_init_default(&stable);
        if (c.confidence > 0) {
            for (int k = 0; k < CUM__N; k++)
                hist_reset(&cum[k]);
            if (llm.active) { /* nothing of the previous point may leak into this one */
                llm_bench_ivl_take(&llm, &cum[CUM_TTFT], &cum[CUM_TPOT]);
                hist_reset(&cum[CUM_TTFT]);
                hist_reset(&cum[CUM_TPOT]);
            }
        }
        struct window_ctx wc = {.progress = opts->progress && c.format == LAT_FMT_TEXT,
                                .t0 = clock_now_ns(),
                                .hlog = hw_started ? &hw : NULL,
                                .hlog_base = hlog_base,
                                .stable = c.stable ? &stable : NULL,
                                .slo = c.slo_text ? &c.slo : NULL,
                                .confidence = c.confidence,
                                .cum = cum,
                                .llm = llm.active ? &llm : NULL,
                                .mpi = shard.mpi ? &shard : NULL,
                                .mpi_h = mpi_h};
        struct bench_hooks hooks = {.window = on_window, .ud = &wc, .always_last = shard.mpi};
        if (c.find_max && c.format == LAT_FMT_TEXT) {
            if (find_conc)
                pr_info("find-max: probing concurrency %u\n", (unsigned)value);
            else
                pr_info("find-max: probing %.1f req/s\n", value);
        }
        gpu_telem_point_begin(&gtel);
        rc = bench_run_point(&t, l, &c.eng, &hooks, &bench_stop, &p->res);
        p->gpu = gpu_telem_point_end(&gtel);
        if (wc.progress) fputs("\r\033[K", stderr);
        if (rc < 0) {
            pr_err("load point %zu could not run: %s\n", i + 1, lat_strerror(rc));
            bench_result_fini(&p->res);
            exit_code = LAT_EXIT_FAILURE;
            break;
        }
        p->ran = true;
        p->slices =
            bench_slices_point(slice_ns, &p->load, &p->res, llm.active ? &llm : NULL, p->gpu);
        if (llm.active) {
            p->llm = xcalloc(1, sizeof(*p->llm));
            p->llm_hist = xcalloc(LLM_BENCH_NHIST, sizeof(*p->llm_hist));
            if (llm_bench_point_hists(&llm, p->llm_hist) == 0) {
                p->llm_hist_names = llm_bench_hist_names;
                p->nllm_hist = LLM_BENCH_NHIST;
            }
            int lrc = llm_bench_point_done(&llm, p->llm);
            if (lrc < 0) {
                if (exit_code != LAT_EXIT_FAILURE || !llm_err_said)
                    pr_err("%s: %s\n",
                           llm.records_err ? "--records-detail"
                           : llm.hlog_err  ? "--hdr-log"
                                           : "openai",
                           lat_strerror(lrc));
                llm_err_said = true;
                exit_code = LAT_EXIT_FAILURE;
            }
        }
        if (shard.mpi && (rc = bench_mpi_point_reduce(&shard, &run, p)) < 0) {
            pr_err("--mpi: reducing point %zu: %s\n", i + 1, lat_strerror(rc));
            exit_code = LAT_EXIT_FAILURE;
            break;
        }
        if (c.stable) {
            enum stable_verdict v = stable.verdict;
            p->stability = v == STABLE_NOT_YET ? "not_reached" : stable_verdict_name(v);
            if (v == STABLE_GAVE_UP || v == STABLE_NOT_YET)
                pr_warn("point %zu: throughput/latency did not stabilize (%s)\n", i + 1,
                        p->stability);
            else if (v == STABLE_THROUGHPUT_ONLY)
                pr_warn("point %zu: latency is not stabilizing\n", i + 1);
        }
        if (strcmp(c.target, "kserve") == 0) kserve_stats_after(&ks, &t, &p->server);
        judge_slo(&c, p, !c.find_max, c.confidence > 0 ? cum : NULL);
        if (p->res.interrupted) run.interrupted = true;
        if (c.find_max && p->res.interrupted) {
            /* An interrupted probe is no verdict: the search ends without it. */
        } else if (c.find_max && !p->res.valid && p->res.invalid_client) {
            /* The client could not drive this load (send lag, a saturated worker, no fds):
             * inconclusive about the server, so measure it again; after FIND_MAX_CLIENT_TRIES
             * stop and say so rather than report it as the server's limit. */
            if (++client_tries < FIND_MAX_CLIENT_TRIES) {
                pr_warn("find-max: %s %g inconclusive (%s); measuring it again\n",
                        find_conc ? "concurrency" : "rate", value, p->res.invalid_reason);
            } else {
                run.client_limited = true;
                run.client_limit = value;
                snprintf(run.client_limit_reason, sizeof(run.client_limit_reason), "%s",
                         p->res.invalid_reason);
                exit_code = LAT_EXIT_FAILURE;
                break;
            }
        } else if (c.find_max) {
            client_tries = 0;
            bool pass = p->res.valid && p->slo.pass;
            search_feed(&search, value, pass);
            if (pass && (run.best_point < 0 || value > run.max_rate)) {
                run.best_point = (int)i;
                run.max_rate = value;
            }
        } else if (!p->res.valid) {
            exit_code = LAT_EXIT_FAILURE;
        }
        if (wc.hlog_err) pr_warn("--hdr-log %s: %s\n", c.hdr_log, lat_strerror(wc.hlog_err));
    }
    if (c.find_max && run.best_point < 0) exit_code = LAT_EXIT_FAILURE;
    for (int k = 0; c.confidence > 0 && k < CUM__N; k++)
        hist_fini(&cum[k]);
    hist_fini(&mpi_h[0]);
    hist_fini(&mpi_h[1]);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (bench_stop) {
        run.interrupted = true;
        exit_code = LAT_EXIT_FAILURE;
    }

    if (shard.mpi && shard.index != 0) /* rank 0 prints the reduced result */
        rc = 0;
    else if (c.format == LAT_FMT_JSON)
        rc = bench_report_json(stdout, &run);
    else if (c.format == LAT_FMT_CSV)
        rc = bench_report_csv(stdout, &run);
    else
        rc = bench_report_text(stdout, &run);
    if (rc < 0) exit_code = LAT_EXIT_FAILURE;
    if (rf) {
        rc = write_records(rf, &run);
        rf = NULL;
        if (rc < 0) {
            pr_err("--records %s: %s\n", c.records, lat_strerror(rc));
            exit_code = LAT_EXIT_FAILURE;
        }
    }
    for (size_t i = 0; i < run.npoints; i++) {
        if (run.points[i].ran) bench_result_fini(&run.points[i].res);
        free(run.points[i].llm);
        for (size_t k = 0; k < run.points[i].nllm_hist; k++)
            hist_fini(&run.points[i].llm_hist[k]);
        free(run.points[i].llm_hist);
        free(run.points[i].shards);
        bench_slices_free(run.points[i].slices);
        gpu_point_free(run.points[i].gpu);
    }
    free(run.points);
out:
    errno = 0;
    if (hw_started && hlog_writer_finish(&hw) < 0) {
        /* errno of the failed flush: "No space left on device", not a bare "write error" */
        pr_err("--hdr-log %s: %s\n", c.hdr_log, errno ? strerror(errno) : "write error");
        exit_code = LAT_EXIT_FAILURE;
        hw_started = false;
        hlog_writer_fini(&hw);
        if (hf) fclose(hf);
        hf = NULL;
    }
    if (hw_started) hlog_writer_fini(&hw);
    errno = 0;
    if (hf && fclose(hf) != 0) {
        pr_err("--hdr-log %s: %s\n", c.hdr_log, errno ? strerror(errno) : "write error");
        exit_code = LAT_EXIT_FAILURE;
    }
    if (rf) fclose(rf); /* set-up failed before the run: nothing to write */
    kserve_fini(&ks);
    gpu_telem_stop(&gtel);
    llm_bench_fini(&llm);
    conn_target_fini(&t.conn);
    buf_fini(&req);
    buf_fini(&body);
    free(c.headers);
    bench_mpi_fini(&shard);
    return exit_code;
}
