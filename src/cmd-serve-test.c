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
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: latscope serve-test [OPTIONS]\n"
        "\n"
        "Fixture inference server for tests and demos: generic HTTP and KServe v2 / Triton\n"
        "REST endpoints with seeded service times, a worker pool and fault injection.\n"
        "Prints the bound port as the first line on stdout, its counters as JSON at exit.\n"
        "\n"
        "  --port N            TCP port on 127.0.0.1 (default 0 = any free port)\n"
        "  --host ADDR         IPv4 address to bind (default 127.0.0.1)\n"
        "  --threads N         event-loop threads (default 1)\n"
        "  --service SPEC      service time: fixed:2ms | uniform:1ms:3ms | exp:2ms |\n"
        "                      bimodal:1ms:20ms:0.1 | lognormal:2ms:0.5 (default fixed:0)\n"
        "  --workers N         worker pool size; requests beyond N queue (default 0 = no limit)\n"
        "  --seed N            seed for service times and faults (default 1)\n"
        "  --fault LIST        e.g. reset:0.01,close:0.01,5xx:2%%,slow_headers:0.01,\n"
        "                      garbage:0.01,stall:0.001,flood:0.01 (fraction of served\n"
        "                      requests; flood: endless '100 Continue' responses)\n"
        "  --slow-headers DUR  delay after the status line for slow_headers (default 200ms)\n"
        "  --stall DUR         how long a stalled request holds its connection (default 30s)\n"
        "  --spin DUR          busy-wait the last DUR before each deadline (default 0)\n"
        "  --chunked           send response bodies with chunked transfer encoding\n"
        "  --no-keepalive      close the connection after every response\n"
        "  --keepalive-lie[=DUR]  answer 'Connection: keep-alive' yet close DUR after every\n"
        "                      response (default at once; llama-server does this)\n"
        "  --require-header 'NAME: VALUE'  answer 401 to every request without it\n"
        "  --require-json      answer 415 to a request body without\n"
        "                      'Content-Type: application/json'\n"
        "  --body-size N       generic response body bytes (default 16)\n"
        "  --max-body N        largest accepted request body (default 64M)\n"
        "  --model SPEC        KServe model name[:DTYPE[:DIMS]], repeatable\n"
        "                      (default simple:FP32:16)\n"
        "  --max-seconds DUR   exit after DUR even without a signal (default 1h)\n"
        "\n"
        "Endpoints: GET /health, /v2/health/live, /v2/health/ready, /v2, /fixture/stats;\n"
        "GET /v2/models/NAME[/versions/1] (metadata), POST .../infer, GET .../stats,\n"
        "GET /v2/models/stats; POST /echo; ANY /status/NNN; GET /stream?n=N&every=DUR (SSE);\n"
        "GET /dcgm/metrics (a DCGM exporter whose values change every scrape), /fixture/dcgm;\n"
        "ANY other path: body-size bytes.\n"
        "\n"
        "latscope serve-test openai [OPTIONS]: the OpenAI streaming fixture (see its --help).\n"
        "See docs/serve-test.md.\n");
}

enum {
    OPT_PORT = 256,
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

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cmd_serve_test(int argc, char **argv, const struct lat_opts *opts)
{
    static const struct option longopts[] = {
        {"port", required_argument, NULL, OPT_PORT},
        {"host", required_argument, NULL, OPT_HOST},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"service", required_argument, NULL, OPT_SERVICE},
        {"latency", required_argument, NULL, OPT_SERVICE},
        {"workers", required_argument, NULL, OPT_WORKERS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"fault", required_argument, NULL, OPT_FAULT},
        {"faults", required_argument, NULL, OPT_FAULT},
        {"slow-headers", required_argument, NULL, OPT_SLOW},
        {"stall", required_argument, NULL, OPT_STALL},
        {"spin", required_argument, NULL, OPT_SPIN},
        {"chunked", no_argument, NULL, OPT_CHUNKED},
        {"no-keepalive", no_argument, NULL, OPT_NOKA},
        {"keepalive-lie", optional_argument, NULL, OPT_KALIE},
        {"body-size", required_argument, NULL, OPT_BODY},
        {"require-header", required_argument, NULL, OPT_REQHDR},
        {"require-json", no_argument, NULL, OPT_REQJSON},
        {"max-body", required_argument, NULL, OPT_MAXBODY},
        {"model", required_argument, NULL, OPT_MODEL},
        {"max-seconds", required_argument, NULL, OPT_MAXSEC},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* The OpenAI streaming fixture (issue #6) is its own server with its own options. */
    if (argc > 1 && !strcmp(argv[1], "openai"))
        return cmd_serve_test_openai(argc - 1, argv + 1, opts);
    struct fx_config cfg;
    fx_config_init(&cfg);
    lat_ns max_ns = 3600 * LAT_NS_PER_S;
    const char *why = NULL;
    long v;
    uint64_t u;
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case 'h':
            usage(stdout);
            return LAT_EXIT_OK;
        case OPT_PORT:
            if (parse_int(a, 0, 65535, &v) < 0) goto bad_value;
            cfg.port = (int)v;
            break;
        case OPT_HOST:
            if (strlen(a) >= sizeof(cfg.host)) goto bad_value;
            strcpy(cfg.host, a);
            break;
        case OPT_THREADS:
            if (parse_int(a, 1, 64, &v) < 0) goto bad_value;
            cfg.threads = (int)v;
            break;
        case OPT_SERVICE:
            if (fx_dist_parse(a, &cfg.service, &why) < 0) goto bad_why;
            break;
        case OPT_WORKERS:
            if (parse_int(a, 0, 1000000, &v) < 0) goto bad_value;
            cfg.workers = (int)v;
            break;
        case OPT_SEED:
            if (units_parse_count(a, &u) < 0) goto bad_value;
            cfg.seed = u;
            break;
        case OPT_FAULT:
            if (fx_fault_parse(a, &cfg, &why) < 0) goto bad_why;
            break;
        case OPT_SLOW:
            if (units_parse_duration(a, LAT_NS_PER_MS, &cfg.slow_headers_ns) < 0 ||
                cfg.slow_headers_ns < 0)
                goto bad_value;
            break;
        case OPT_STALL:
            if (units_parse_duration(a, LAT_NS_PER_S, &cfg.stall_ns) < 0 || cfg.stall_ns < 0)
                goto bad_value;
            break;
        case OPT_SPIN:
            if (units_parse_duration(a, LAT_NS_PER_US, &cfg.spin_ns) < 0 || cfg.spin_ns < 0 ||
                cfg.spin_ns > 10 * LAT_NS_PER_MS)
                goto bad_value;
            break;
        case OPT_CHUNKED:
            cfg.chunked = true;
            break;
        case OPT_NOKA:
            cfg.keep_alive = false;
            break;
        case OPT_KALIE:
            cfg.keepalive_lie = true;
            if (a &&
                (units_parse_duration(a, LAT_NS_PER_MS, &cfg.keepalive_lie_delay_ns) < 0 ||
                 cfg.keepalive_lie_delay_ns < 0 || cfg.keepalive_lie_delay_ns > 60 * LAT_NS_PER_S))
                goto bad_value;
            break;
        case OPT_REQHDR:
            if (!strchr(a, ':') || strlen(a) >= sizeof(cfg.require_header)) goto bad_value;
            snprintf(cfg.require_header, sizeof(cfg.require_header), "%s", a);
            break;
        case OPT_REQJSON:
            cfg.require_json = true;
            break;
        case OPT_BODY:
            if (units_parse_count(a, &u) < 0 || u > (256u << 20)) goto bad_value;
            cfg.body_size = (size_t)u;
            break;
        case OPT_MAXBODY:
            if (units_parse_count(a, &u) < 0 || u > (1u << 30)) goto bad_value;
            cfg.max_body = (size_t)u;
            break;
        case OPT_MODEL:
            if (fx_model_add(&cfg, a, &why) < 0) goto bad_why;
            break;
        case OPT_MAXSEC:
            if (units_parse_duration(a, LAT_NS_PER_S, &max_ns) < 0 || max_ns <= 0) goto bad_value;
            break;
        case ':':
            pr_err("option %s needs a value (see 'latscope serve-test --help')\n",
                   argv[optind - 1]);
            return LAT_EXIT_USAGE;
        default:
            pr_err("unknown option '%s' (see 'latscope serve-test --help')\n", argv[optind - 1]);
            return LAT_EXIT_USAGE;
        }
        continue;
    bad_value:
        pr_err("bad value '%s' for %s (see 'latscope serve-test --help')\n", a, argv[optind - 1]);
        return LAT_EXIT_USAGE;
    bad_why:
        pr_err("bad value '%s' for %s: %s\n", a, argv[optind - 1], why);
        return LAT_EXIT_USAGE;
    }
    if (optind < argc) {
        pr_err("unexpected argument '%s' (serve-test takes only options)\n", argv[optind]);
        return LAT_EXIT_USAGE;
    }

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
