/*
 * cmd-serve-test.c - `latscope serve-test`: the fixture inference server (generic HTTP and
 * KServe v2) that bench's tests and demo run against.
 *
 * The server itself lives in src/fixture/ (a library: tests start it in-process); this file
 * parses options, prints the bound port as the first stdout line (scripts read it to find a
 * server started with --port 0), waits for SIGINT/SIGTERM or --max-seconds, stops the server
 * and prints its counters as one JSON line. Signals are blocked before the loop threads start
 * and taken with sigtimedwait(), so no handler runs inside the loops.
 */
#define PR_FMT "serve-test"
#include "core/err.h"
#include "core/log.h"
#include "core/units.h"
#include "fixture/fixture.h"
#include "fixture/openai.h"
#include "latscope.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage_text[] =
    "usage: latscope serve-test [OPTIONS]\n"
    "\n"
    "Fixture inference server for tests and demos: generic HTTP and KServe v2 / Triton\n"
    "REST endpoints with seeded service times, a worker pool and fault injection.\n"
    "Prints the bound port as the first line on stdout, its counters as JSON at exit.\n"
    "\n";

static const char footer_text[] =
    "Endpoints: GET /health, /v2/health/live, /v2/health/ready, /v2, /fixture/stats;\n"
    "GET /v2/models/NAME[/versions/1] (metadata), POST .../infer, GET .../stats,\n"
    "GET /v2/models/stats; POST /echo; ANY /status/NNN; GET /stream?n=N&every=DUR (SSE);\n"
    "GET /dcgm/metrics (a DCGM exporter whose values change every scrape), /fixture/dcgm;\n"
    "ANY other path: body-size bytes.\n"
    "\n"
    "latscope serve-test openai [OPTIONS]: the OpenAI streaming fixture (see its --help).\n"
    "Exit status: 0 stopped by a signal or --max-seconds, 1 cannot listen, 2 usage error.\n"
    "See docs/serve-test.md.\n";

enum {
    OPT_PORT,
    OPT_HOST,
    OPT_THREADS,
    OPT_SERVICE,
    OPT_WORKERS,
    OPT_SEED,
    OPT_FAULT,
    OPT_SLOW,
    OPT_STALL,
    OPT_SPIN,
    OPT_CHUNKED,
    OPT_NOKA,
    OPT_KALIE,
    OPT_BODY,
    OPT_REQHDR,
    OPT_REQJSON,
    OPT_MAXBODY,
    OPT_MODEL,
    OPT_MAXSEC,
};

static const struct cli_opt options[] = {
    {"port", 0, "N", OPT_PORT, 0, "TCP port on 127.0.0.1 (default 0 = any free port)"},
    {"host", 0, "ADDR", OPT_HOST, 0, "IPv4 address to bind (default 127.0.0.1)"},
    {"threads", 0, "N", OPT_THREADS, 0, "event-loop threads (default 1)"},
    {"service", 0, "SPEC", OPT_SERVICE, 0,
     "service time: fixed:2ms | uniform:1ms:3ms | exp:2ms |\n"
     "bimodal:1ms:20ms:0.1 | lognormal:2ms:0.5 (default fixed:0)"},
    {"latency", 0, "SPEC", OPT_SERVICE, CLI_SUB, "the same as --service"},
    {"workers", 0, "N", OPT_WORKERS, 0,
     "worker pool size; requests beyond N queue (default 0 = no limit)"},
    {"seed", 0, "N", OPT_SEED, 0, "seed for service times and faults (default 1)"},
    {"fault", 0, "LIST", OPT_FAULT, 0,
     "e.g. reset:0.01,close:0.01,5xx:2%,slow_headers:0.01,\n"
     "garbage:0.01,stall:0.001,flood:0.01 (fraction of served\n"
     "requests; flood: endless '100 Continue' responses)"},
    {"faults", 0, "LIST", OPT_FAULT, CLI_SUB, "the same as --fault"},
    {"slow-headers", 0, "DUR", OPT_SLOW, 0,
     "delay after the status line for slow_headers (default 200ms)"},
    {"stall", 0, "DUR", OPT_STALL, 0,
     "how long a stalled request holds its connection (default 30s)"},
    {"spin", 0, "DUR", OPT_SPIN, 0, "busy-wait the last DUR before each deadline (default 0)"},
    {"chunked", 0, NULL, OPT_CHUNKED, 0, "send response bodies with chunked transfer encoding"},
    {"no-keepalive", 0, NULL, OPT_NOKA, 0, "close the connection after every response"},
    {"keepalive-lie", 0, "DUR", OPT_KALIE, CLI_OPTVAL,
     "answer 'Connection: keep-alive' yet close DUR after every\n"
     "response (default at once; llama-server does this)"},
    {"require-header", 0, "'NAME: VALUE'", OPT_REQHDR, 0, "answer 401 to every request without it"},
    {"require-json", 0, NULL, OPT_REQJSON, 0,
     "answer 415 to a request body without\n'Content-Type: application/json'"},
    {"body-size", 0, "N", OPT_BODY, 0, "generic response body bytes (default 16)"},
    {"max-body", 0, "N", OPT_MAXBODY, 0, "largest accepted request body (default 64M)"},
    {"model", 0, "SPEC", OPT_MODEL, 0,
     "KServe model name[:DTYPE[:DIMS]], repeatable\n(default simple:FP32:16)"},
    {"max-seconds", 0, "DUR", OPT_MAXSEC, 0, "exit after DUR even without a signal (default 1h)"},
    {0},
};

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

struct st_args {
    struct fx_config cfg;
    lat_ns max_ns;
};

/* A wrong value: -1 after "--OPT: bad value 'V'[: why]", as cli_parse's own errors read. */
static int bad(int id, const char *val, const char *why)
{
    return cli_bad_value(options, "serve-test", id, val, why);
}

static int on_opt(void *ctx, int id, const char *a)
{
    struct st_args *x = ctx;
    struct fx_config *cfg = &x->cfg;
    const char *why = NULL;
    long v;
    uint64_t u;
    switch (id) {
    case OPT_PORT:
        if (parse_int(a, 0, 65535, &v) < 0) return bad(id, a, NULL);
        cfg->port = (int)v;
        return 0;
    case OPT_HOST:
        if (strlen(a) >= sizeof(cfg->host)) return bad(id, a, "too long");
        strcpy(cfg->host, a);
        return 0;
    case OPT_THREADS:
        if (parse_int(a, 1, 64, &v) < 0) return bad(id, a, "expected 1..64");
        cfg->threads = (int)v;
        return 0;
    case OPT_SERVICE:
        return fx_dist_parse(a, &cfg->service, &why) < 0 ? bad(id, a, why) : 0;
    case OPT_WORKERS:
        if (parse_int(a, 0, 1000000, &v) < 0) return bad(id, a, "expected 0..1000000");
        cfg->workers = (int)v;
        return 0;
    case OPT_SEED:
        if (units_parse_count(a, &u) < 0) return bad(id, a, NULL);
        cfg->seed = u;
        return 0;
    case OPT_FAULT:
        return fx_fault_parse(a, cfg, &why) < 0 ? bad(id, a, why) : 0;
    case OPT_SLOW:
        if (units_parse_duration(a, LAT_NS_PER_MS, &cfg->slow_headers_ns) < 0 ||
            cfg->slow_headers_ns < 0)
            return bad(id, a, NULL);
        return 0;
    case OPT_STALL:
        if (units_parse_duration(a, LAT_NS_PER_S, &cfg->stall_ns) < 0 || cfg->stall_ns < 0)
            return bad(id, a, NULL);
        return 0;
    case OPT_SPIN:
        if (units_parse_duration(a, LAT_NS_PER_US, &cfg->spin_ns) < 0 || cfg->spin_ns < 0 ||
            cfg->spin_ns > 10 * LAT_NS_PER_MS)
            return bad(id, a, "a duration up to 10ms");
        return 0;
    case OPT_CHUNKED:
        cfg->chunked = true;
        return 0;
    case OPT_NOKA:
        cfg->keep_alive = false;
        return 0;
    case OPT_KALIE:
        cfg->keepalive_lie = true;
        if (a &&
            (units_parse_duration(a, LAT_NS_PER_MS, &cfg->keepalive_lie_delay_ns) < 0 ||
             cfg->keepalive_lie_delay_ns < 0 || cfg->keepalive_lie_delay_ns > 60 * LAT_NS_PER_S))
            return bad(id, a, "a duration up to 60s");
        return 0;
    case OPT_REQHDR:
        if (!strchr(a, ':') || strlen(a) >= sizeof(cfg->require_header))
            return bad(id, a, "expected 'NAME: VALUE'");
        snprintf(cfg->require_header, sizeof(cfg->require_header), "%s", a);
        return 0;
    case OPT_REQJSON:
        cfg->require_json = true;
        return 0;
    case OPT_BODY:
        if (units_parse_count(a, &u) < 0 || u > (256u << 20)) return bad(id, a, "at most 256M");
        cfg->body_size = (size_t)u;
        return 0;
    case OPT_MAXBODY:
        if (units_parse_count(a, &u) < 0 || u > (1u << 30)) return bad(id, a, "at most 1G");
        cfg->max_body = (size_t)u;
        return 0;
    case OPT_MODEL:
        return fx_model_add(cfg, a, &why) < 0 ? bad(id, a, why) : 0;
    case OPT_MAXSEC:
        if (units_parse_duration(a, LAT_NS_PER_S, &x->max_ns) < 0 || x->max_ns <= 0)
            return bad(id, a, NULL);
        return 0;
    }
    return -1;
}

int cmd_serve_test(int argc, char **argv, const struct lat_opts *opts)
{
    /* The OpenAI streaming fixture (issue #6) is its own server with its own options. */
    if (argc > 1 && !strcmp(argv[1], "openai"))
        return cmd_serve_test_openai(argc - 1, argv + 1, opts);
    struct st_args x = {.max_ns = 3600 * LAT_NS_PER_S};
    fx_config_init(&x.cfg);
    struct cli_spec spec = {"serve-test", usage_text, footer_text, options, on_opt, &x, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    if (cr.npos) {
        pr_err("unexpected argument '%s' (serve-test takes only options)\n", cr.pos[0]);
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    cli_result_fini(&cr);
    struct fx_config cfg = x.cfg;
    lat_ns max_ns = x.max_ns;

    /* Block the stop signals before any thread exists, so only sigtimedwait() sees them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct fx_server *srv;
    int rc = fx_server_start(&cfg, fx_routes, &srv);
    if (rc < 0) {
        if (rc == LAT_E_USAGE)
            pr_err("cannot listen on '%s' (need an IPv4 address)\n", cfg.host);
        else
            pr_err("cannot listen on %s:%d: %s\n", cfg.host, cfg.port, lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    printf("%d\n", fx_server_port(srv));
    fflush(stdout);
    char dist[64];
    pr_info("listening on http://%s:%d (service %s, workers %d, threads %d)\n", cfg.host,
            fx_server_port(srv), fx_dist_format(&cfg.service, dist, sizeof(dist)), cfg.workers,
            cfg.threads);

    lat_ns deadline = clock_now_ns() + max_ns;
    int sig = 0;
    for (;;) {
        lat_ns left = deadline - clock_now_ns();
        if (left <= 0) break;
        if (left > 200 * LAT_NS_PER_MS) left = 200 * LAT_NS_PER_MS;
        struct timespec ts = {left / LAT_NS_PER_S, left % LAT_NS_PER_S};
        sig = sigtimedwait(&set, NULL, &ts);
        if (sig > 0) break;
    }
    if (sig <= 0) pr_info("--max-seconds reached, stopping\n");
    struct lat_buf b = LAT_BUF_INIT;
    rc = fx_server_stats_json(srv, &b);
    fx_server_stop(srv);
    if (!rc) printf("%s\n", b.data);
    buf_fini(&b);
    return LAT_EXIT_OK;
}
