/* test-fixture.c - the fixture server: request parser, distributions, options, and an
 * in-process server driven over loopback sockets (keep-alive, worker-pool queueing, faults,
 * KServe inference and statistics). */
#include "test.h"

#include "core/clock.h"
#include "core/err.h"
#include "fixture/fixture.h"
#include "json/tok.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

static long parse_str(const char *s, struct fxhttp_request *r, const char **why)
{
    static char buf[4096];
    size_t n = strlen(s);
    memcpy(buf, s, n);
    return fxhttp_parse(buf, n, 1 << 20, r, why);
}

TEST(fxhttp_parses_requests)
{
    struct fxhttp_request r;
    const char *why;
    const char *get = "GET /v2/models/x?verbose=1 HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\n";
    long n = parse_str(get, &r, &why);
    ASSERT_EQ_I64(n, (long)strlen("GET /v2/models/x?verbose=1 HTTP/1.1\r\nHost: a\r\n\r\n"));
    ASSERT(r.path_len == 12 && !memcmp(r.path, "/v2/models/x", 12));
    ASSERT(r.query_len == 9 && !memcmp(r.query, "verbose=1", 9));
    ASSERT(r.keep_alive);
    ASSERT(fxhttp_header(&r, "HOST") != NULL);
    /* incomplete at every split point */
    const char *post = "POST /echo HTTP/1.0\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\n"
                       "hello";
    for (size_t k = 0; k < strlen(post); k++) {
        char b[256];
        memcpy(b, post, k);
        if (fxhttp_parse(b, k, 1 << 20, &r, &why) != 0) FAIL("split at %zu not incomplete", k);
    }
    ASSERT_EQ_I64(parse_str(post, &r, &why), (long)strlen(post));
    ASSERT_EQ_I64(r.minor, 0);
    ASSERT(r.keep_alive);
    ASSERT(r.body_len == 5 && !memcmp(r.body, "hello", 5));
    ASSERT_EQ_I64(parse_str("GET / HTTP/1.0\r\n\r\n", &r, &why), 18);
    ASSERT(!r.keep_alive);
    ASSERT(parse_str("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", &r, &why) > 0);
    ASSERT(!r.keep_alive);
}

TEST(fxhttp_chunked_bodies)
{
    struct fxhttp_request r;
    const char *why;
    const char *c = "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
    long n = parse_str(c, &r, &why);
    ASSERT_EQ_I64(n, (long)strlen(c) - 4);
    ASSERT(r.chunked);
    ASSERT_EQ_U64(r.body_len, 11);
    ASSERT(!memcmp(r.body, "hello world", 11));
    for (size_t k = 50; k < strlen(c) - 4; k++) {
        char b[256];
        memcpy(b, c, k);
        if (fxhttp_parse(b, k, 1 << 20, &r, &why) != 0) FAIL("chunked split at %zu", k);
    }
    ASSERT_EQ_I64(
        parse_str("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", &r, &why), -400);
    ASSERT_EQ_I64(
        parse_str("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX", &r, &why),
        -400);
}

TEST(fxhttp_rejects_malformed)
{
    struct fxhttp_request r;
    const char *why = NULL;
    const struct {
        const char *req;
        long want;
    } bad[] = {
        {"GARBAGE\x01\r\n\r\n", -400},
        {"GET\r\n\r\n", -400},
        {"GET / HTTP/2.0\r\n\r\n", -505},
        {"GET / FTP/1.1\r\n\r\n", -400},
        {"GET / HTTP/1.1\r\n folded\r\n\r\n", -400},
        {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", -400},
        {"POST / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", -400},
        {"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", -400},
        {"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", -400},
        {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", -501},
        {"POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", -413},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        long n = parse_str(bad[i].req, &r, &why);
        if (n != bad[i].want) FAIL("case %zu: %ld, want %ld", i, n, bad[i].want);
        ASSERT(why != NULL);
    }
    /* headers over the limit without an end */
    size_t big = FXHTTP_MAX_HEADER_BYTES + 10;
    char *b = malloc(big);
    ASSERT(b);
    memcpy(b, "GET / HTTP/1.1\r\nX: ", 19);
    memset(b + 19, 'a', big - 19);
    ASSERT_EQ_I64(fxhttp_parse(b, big, 1 << 20, &r, &why), -431);
    free(b);
}

TEST(fx_dist_parse_and_means)
{
    struct fx_dist d;
    const char *why;
    char buf[64];
    struct lat_rng rng;
    rng_seed(&rng, 3);
    const char *specs[] = {"fixed:2ms",         "uniform:1ms:3ms",
                           "exp:2ms",           "bimodal:1ms:21ms:0.05",
                           "lognormal:2ms:0.5", "5"};
    for (size_t i = 0; i < 6; i++) {
        ASSERT_RC(fx_dist_parse(specs[i], &d, &why));
        double sum = 0, sq = 0;
        const int n = 200000;
        for (int k = 0; k < n; k++) {
            double v = (double)fx_dist_sample(&d, &rng);
            ASSERT(v >= 0);
            sum += v;
            sq += v * v;
        }
        double mean = sum / n, sd = sqrt(sq / n - mean * mean);
        /* 5 standard errors */
        double tol = 5 * sd / sqrt(n) + 1;
        if (fabs(mean - fx_dist_mean(&d)) > tol)
            FAIL("%s: mean %.0f ns, expected %.0f (tol %.0f)", specs[i], mean, fx_dist_mean(&d),
                 tol);
        if (d.kind == FX_DIST_EXP) ASSERT_NEAR(sd / mean, 1.0, 0.02);
        if (d.kind == FX_DIST_UNIFORM) ASSERT_NEAR(sd, 2e6 / sqrt(12), 2e6 * 0.01);
    }
    ASSERT_RC(fx_dist_parse("uniform:1ms:3ms", &d, &why));
    ASSERT_EQ_STR(fx_dist_format(&d, buf, sizeof(buf)), "uniform:1ms:3ms");
    ASSERT_RC(fx_dist_parse("bimodal:1ms:20ms:10%", &d, &why));
    ASSERT_NEAR(d.p, 0.1, 1e-12);
    const char *bad[] = {
        "",          "fixed",       "fixed:x",        "uniform:3ms:1ms", "bimodal:1ms:2ms:1.5",
        "gauss:1ms", "exp:1ms:2ms", "lognormal:1ms:9"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (fx_dist_parse(bad[i], &d, &why) != LAT_E_USAGE) FAIL("accepted '%s'", bad[i]);
}

TEST(fx_options_parse)
{
    struct fx_config c;
    const char *why;
    fx_config_init(&c);
    ASSERT_RC(fx_fault_parse("reset:0.1,5xx:20%,slow-headers:0.05", &c, &why));
    ASSERT_NEAR(c.fault_frac[FX_FAULT_RESET], 0.1, 1e-12);
    ASSERT_NEAR(c.fault_frac[FX_FAULT_5XX], 0.2, 1e-12);
    ASSERT_NEAR(c.fault_frac[FX_FAULT_SLOW_HEADERS], 0.05, 1e-12);
    ASSERT_EQ_I64(fx_fault_parse("stall:0.9", &c, &why), LAT_E_USAGE); /* sum > 1 */
    ASSERT_EQ_I64(fx_fault_parse("boom:0.1", &c, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(fx_fault_parse("reset", &c, &why), LAT_E_USAGE);
    ASSERT_RC(fx_model_add(&c, "resnet:FP16:3x224x224", &why));
    ASSERT_EQ_STR(c.models[0].datatype, "FP16");
    ASSERT_EQ_I64(c.models[0].ndims, 3);
    ASSERT_EQ_I64(c.models[0].dims[2], 224);
    ASSERT_EQ_I64(fx_model_add(&c, "resnet", &why), LAT_E_USAGE); /* twice */
    ASSERT_EQ_I64(fx_model_add(&c, "m:FP99", &why), LAT_E_USAGE);
    ASSERT_EQ_I64(fx_model_add(&c, "m:FP32:0x3", &why), LAT_E_USAGE);
    ASSERT_EQ_I64(fx_model_add(&c, "bad/name", &why), LAT_E_USAGE);
}

/* ---- in-process server ---- */

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) FAIL("connect");
    return fd;
}

static void send_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
        if (k <= 0) FAIL("send");
        s += k;
        n -= (size_t)k;
    }
}

/* Reads one response (Content-Length bodies); returns its status, body in body (NUL-term).
 * Returns -1 on EOF/reset before a full response, -2 for bytes that are not HTTP. */
static int read_response(int fd, char *body, size_t cap)
{
    static char buf[1 << 16];
    size_t len = 0;
    for (;;) {
        char *h = memmem(buf, len, "\r\n\r\n", 4);
        if (len >= 7 && memcmp(buf, "HTTP/1.", 7) != 0) return -2; /* not HTTP */
        if (h) {
            const char *cl = strcasestr(buf, "Content-Length: ");
            size_t blen = cl && cl < h ? strtoul(cl + 16, NULL, 10) : 0;
            size_t hl = (size_t)(h - buf) + 4;
            if (len >= hl + blen) {
                int st = atoi(buf + 9);
                size_t c = blen < cap - 1 ? blen : cap - 1;
                memcpy(body, h + 4, c);
                body[c] = '\0';
                return st;
            }
        }
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 15000) <= 0) FAIL("response timeout");
        ssize_t k = recv(fd, buf + len, sizeof(buf) - len - 1, 0);
        if (k <= 0) return -1;
        len += (size_t)k;
        buf[len] = '\0';
    }
}

static struct fx_server *start(struct fx_config *c)
{
    struct fx_server *s;
    int rc = fx_server_start(c, fx_routes, &s);
    if (rc < 0) FAIL("fx_server_start: %d", rc);
    return s;
}

TEST_TIMEOUT(fx_server_keepalive_kserve_roundtrip, 20)
{
    struct fx_config c;
    const char *why;
    fx_config_init(&c);
    ASSERT_RC(fx_dist_parse("fixed:1ms", &c.service, &why));
    struct fx_server *s = start(&c);
    int fd = connect_to(fx_server_port(s));
    char body[8192];
    for (int i = 0; i < 20; i++) {
        send_all(fd, "GET /anything HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 200);
        ASSERT_EQ_U64(strlen(body), 16);
    }
    const char *inf = "{\"inputs\":[{\"name\":\"INPUT0\",\"shape\":[1,3],\"datatype\":\"INT64\","
                      "\"data\":[1,2,3]},{\"name\":\"B\",\"shape\":[2],\"datatype\":\"BYTES\","
                      "\"data\":[\"a\",\"b\"]}]}";
    char req[1024];
    snprintf(req, sizeof(req),
             "POST /v2/models/simple/versions/1/infer HTTP/1.1\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(inf), inf);
    send_all(fd, req);
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 200);
    int64_t v;
    ASSERT_RC(json_get_i64(body, strlen(body), "outputs/0/data/2", &v));
    ASSERT_EQ_I64(v, 3);
    struct lat_buf str = LAT_BUF_INIT;
    ASSERT_RC(json_get_str(body, strlen(body), "outputs/1/name", &str));
    ASSERT_EQ_STR(str.data, "OUTPUT1");
    buf_fini(&str);
    /* a type mismatch is a 400 naming the problem, and the connection stays usable */
    const char *bad = "{\"inputs\":[{\"name\":\"I\",\"shape\":[2],\"datatype\":\"FP32\","
                      "\"data\":[1,\"x\"]}]}";
    snprintf(req, sizeof(req),
             "POST /v2/models/simple/infer HTTP/1.1\r\nContent-Length: %zu\r\n\r\n%s", strlen(bad),
             bad);
    send_all(fd, req);
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 400);
    ASSERT(strstr(body, "datatype"));
    send_all(fd, "GET /v2/models/simple/stats HTTP/1.1\r\n\r\n");
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 200);
    ASSERT_RC(json_get_i64(body, strlen(body), "model_stats/0/inference_stats/success/count", &v));
    ASSERT_EQ_I64(v, 1);
    ASSERT_RC(
        json_get_i64(body, strlen(body), "model_stats/0/inference_stats/compute_infer/ns", &v));
    ASSERT_EQ_I64(v, 1000000);
    ASSERT_RC(json_get_i64(body, strlen(body), "model_stats/0/inference_count", &v));
    ASSERT_EQ_I64(v, 1); /* batch = first dim of the first input */
    send_all(fd, "GET /fixture/stats HTTP/1.1\r\n\r\n");
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 200);
    ASSERT_RC(json_get_i64(body, strlen(body), "connections", &v));
    ASSERT_EQ_I64(v, 1); /* everything on one keep-alive connection */
    ASSERT_RC(json_get_i64(body, strlen(body), "served", &v));
    ASSERT_EQ_I64(v, 21);
    /* pipelined requests are answered in order */
    send_all(fd, "GET /status/201 HTTP/1.1\r\n\r\nGET /status/202 HTTP/1.1\r\n\r\n");
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 201);
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 202);
    /* malformed request: 400 and close */
    send_all(fd, "BAD\x01 REQUEST\r\n\r\n");
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 400);
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), -1);
    close(fd);
    fx_server_stop(s);
}

TEST_TIMEOUT(fx_server_worker_pool_queues, 20)
{
    struct fx_config c;
    const char *why;
    fx_config_init(&c);
    ASSERT_RC(fx_dist_parse("fixed:40ms", &c.service, &why));
    c.workers = 2;
    c.threads = 2;
    struct fx_server *s = start(&c);
    int fds[6];
    lat_ns t0 = clock_now_ns();
    for (int i = 0; i < 6; i++) {
        fds[i] = connect_to(fx_server_port(s));
        send_all(fds[i], "GET / HTTP/1.1\r\n\r\n");
    }
    char body[256];
    lat_ns last = 0;
    for (int i = 0; i < 6; i++) {
        ASSERT_EQ_I64(read_response(fds[i], body, sizeof(body)), 200);
        lat_ns t = clock_now_ns() - t0;
        if (t > last) last = t;
        close(fds[i]);
    }
    /* 6 requests, 2 workers, 40 ms each: the last one finishes after 3 rounds (>= 120 ms) */
    ASSERT_OP_I64(last, >=, 118 * LAT_NS_PER_MS);
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(fx_server_stats_json(s, &b));
    int64_t q, qn;
    ASSERT_RC(json_get_i64(b.data, b.len, "queued_requests", &q));
    ASSERT_OP_I64(q, >=, 3);
    ASSERT_RC(json_get_i64(b.data, b.len, "queue_ns_total", &qn));
    /* queue waits: 0,0,40,40,80,80 ms if all arrived at once; at least 4 x 40 ms minus slack */
    ASSERT_OP_I64(qn, >=, 150 * LAT_NS_PER_MS);
    buf_fini(&b);
    fx_server_stop(s);
}

TEST_TIMEOUT(fx_server_faults_by_kind, 20)
{
    for (int f = 1; f < FX_FAULT_COUNT; f++) {
        struct fx_config c;
        fx_config_init(&c);
        c.fault_frac[f] = 1.0;
        c.stall_ns = 100 * LAT_NS_PER_MS;
        c.slow_headers_ns = 100 * LAT_NS_PER_MS;
        c.body_size = 64;
        struct fx_server *s = start(&c);
        int fd = connect_to(fx_server_port(s));
        lat_ns t0 = clock_now_ns();
        send_all(fd, "GET / HTTP/1.1\r\n\r\n");
        char body[256];
        int st = read_response(fd, body, sizeof(body));
        lat_ns dt = clock_now_ns() - t0;
        switch (f) {
        case FX_FAULT_RESET:
        case FX_FAULT_CLOSE:
            ASSERT_EQ_I64(st, -1); /* no complete HTTP response */
            break;
        case FX_FAULT_GARBAGE:
            ASSERT_EQ_I64(st, -2);
            break;
        case FX_FAULT_STALL:
            ASSERT_EQ_I64(st, -1);
            ASSERT_OP_I64(dt, >=, 95 * LAT_NS_PER_MS);
            break;
        case FX_FAULT_5XX:
            ASSERT_EQ_I64(st, 503);
            break;
        case FX_FAULT_SLOW_HEADERS:
            ASSERT_EQ_I64(st, 200);
            ASSERT_EQ_U64(strlen(body), 64);
            ASSERT_OP_I64(dt, >=, 95 * LAT_NS_PER_MS);
            break;
        }
        close(fd);
        struct lat_buf b = LAT_BUF_INIT;
        ASSERT_RC(fx_server_stats_json(s, &b));
        char path[64];
        int64_t n;
        snprintf(path, sizeof(path), "faults/%s", fx_fault_name((enum fx_fault)f));
        ASSERT_RC(json_get_i64(b.data, b.len, path, &n));
        ASSERT_EQ_I64(n, 1);
        buf_fini(&b);
        fx_server_stop(s);
    }
}

TEST_TIMEOUT(fx_server_chunked_and_close, 20)
{
    struct fx_config c;
    fx_config_init(&c);
    c.chunked = true;
    c.keep_alive = false;
    c.body_size = 100;
    struct fx_server *s = start(&c);
    int fd = connect_to(fx_server_port(s));
    send_all(fd, "GET / HTTP/1.1\r\n\r\n");
    char buf[4096];
    size_t len = 0;
    for (;;) {
        ssize_t k = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
        if (k <= 0) break;
        len += (size_t)k;
    }
    buf[len] = '\0';
    ASSERT(strstr(buf, "Transfer-Encoding: chunked\r\n"));
    ASSERT(strstr(buf, "Connection: close\r\n"));
    ASSERT(strstr(buf, "\r\n\r\n32\r\n")); /* 100 bytes in two chunks of 0x32 */
    ASSERT(len > 7 && !memcmp(buf + len - 7, "\r\n0\r\n\r\n", 7));
    close(fd);
    fx_server_stop(s);
}

TEST_TIMEOUT(fx_server_stream_plan_timing, 20)
{
    /* The plan mechanism behind streaming endpoints: 4 SSE events 60 ms apart arrive at
     * their deadlines, in order, in chunked framing. */
    struct fx_config c;
    fx_config_init(&c);
    struct fx_server *s = start(&c);
    int fd = connect_to(fx_server_port(s));
    lat_ns t0 = clock_now_ns();
    send_all(fd, "GET /stream?n=4&every=60ms HTTP/1.1\r\n\r\n");
    char buf[4096];
    size_t len = 0;
    lat_ns seen[8] = {0};
    int events = 0;
    while (!memmem(buf, len, "\r\n0\r\n\r\n", 7)) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 5000) <= 0) FAIL("stream timeout");
        ssize_t k = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
        if (k <= 0) FAIL("stream ended early");
        len += (size_t)k;
        buf[len] = '\0';
        int now_events = 0;
        for (const char *q = buf; (q = strstr(q, "data: {")); q++)
            now_events++;
        while (events < now_events && events < 8)
            seen[events++] = clock_now_ns() - t0;
    }
    ASSERT_EQ_I64(events, 4);
    ASSERT(strstr(buf, "Transfer-Encoding: chunked\r\n"));
    ASSERT(strstr(buf, "Content-Type: text/event-stream\r\n"));
    ASSERT(strstr(buf, "\r\n13\r\ndata: {\"index\":3}\n\n\r\n"));
    ASSERT(strstr(buf, "data: [DONE]\n\n"));
    for (int i = 1; i < 4; i++) {
        /* never early; each event at least 60 ms after the previous deadline */
        ASSERT_OP_I64(seen[i], >=, i * 60 * LAT_NS_PER_MS - 1 * LAT_NS_PER_MS);
    }
    close(fd);
    fx_server_stop(s);
}

TEST_TIMEOUT(fx_server_answers_after_half_close, 20)
{
    /* A client that shuts down its sending side after the request (nc -q, some load tools)
     * still gets the whole response, then the server closes. */
    struct fx_config c;
    const char *why;
    fx_config_init(&c);
    ASSERT_RC(fx_dist_parse("fixed:30ms", &c.service, &why));
    struct fx_server *s = start(&c);
    int fd = connect_to(fx_server_port(s));
    send_all(fd, "GET /status/202 HTTP/1.1\r\n\r\nGET /status/203 HTTP/1.1\r\n\r\n");
    ASSERT_RC(shutdown(fd, SHUT_WR));
    char body[256];
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 202);
    /* pipelined before the FIN: answered too, then EOF */
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 203);
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), -1);
    close(fd);
    /* an idle connection that closes is just closed */
    fd = connect_to(fx_server_port(s));
    close(fd);
    fd = connect_to(fx_server_port(s));
    send_all(fd, "GET /health HTTP/1.1\r\n\r\n");
    ASSERT_EQ_I64(read_response(fd, body, sizeof(body)), 200);
    close(fd);
    fx_server_stop(s);
}
