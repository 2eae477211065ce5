/*
 * test-net.c - event loop timers, transports, the blocking fetch and the bench engine against
 * a tiny in-process HTTP server on 127.0.0.1 (port 0). The e2e tests cover the real fixture.
 */
#include "test.h"

#include "bench/bench.h"
#include "core/err.h"
#include "net/fetch.h"
#include "net/loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- a minimal threaded HTTP/1.1 server ---- */

/* SRV_KA_CLOSE: answers "Connection: keep-alive", then closes (llama-server, issue 17). */
enum srv_mode { SRV_OK = 0, SRV_SILENT, SRV_CLOSE, SRV_DELAY, SRV_KA_CLOSE };

struct srv {
    int fd;
    int port;
    enum srv_mode mode;
    int delay_us;
};

struct srv_conn {
    struct srv *s;
    int fd;
};

static void *srv_conn_main(void *arg)
{
    struct srv_conn *c = arg;
    char buf[8192];
    size_t have = 0;
    for (;;) {
        ssize_t n = recv(c->fd, buf + have, sizeof(buf) - have - 1, 0);
        if (n <= 0) break;
        have += (size_t)n;
        buf[have] = '\0';
        char *end;
        while ((end = strstr(buf, "\r\n\r\n")) != NULL) {
            size_t used = (size_t)(end + 4 - buf);
            const char *cl = strcasestr(buf, "content-length:");
            if (cl && cl < end) used += (size_t)atoi(cl + 15);
            if (used > have) break;
            memmove(buf, buf + used, have - used);
            have -= used;
            buf[have] = '\0';
            if (c->s->mode == SRV_SILENT) continue;
            if (c->s->mode == SRV_CLOSE) goto done;
            if (c->s->mode == SRV_DELAY) usleep((useconds_t)c->s->delay_us);
            if (c->s->mode == SRV_KA_CLOSE) {
                const char *ka = "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: "
                                 "timeout=5, max=100\r\nContent-Length: 11\r\n\r\nhello world";
                send(c->fd, ka, strlen(ka), MSG_NOSIGNAL);
                goto done;
            }
            const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world";
            if (send(c->fd, resp, strlen(resp), MSG_NOSIGNAL) < 0) goto done;
        }
    }
done:
    close(c->fd);
    free(c);
    return NULL;
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;
    for (;;) {
        int fd = accept(s->fd, NULL, NULL);
        if (fd < 0) return NULL;
        struct srv_conn *c = malloc(sizeof(*c));
        c->s = s;
        c->fd = fd;
        pthread_t th;
        pthread_create(&th, NULL, srv_conn_main, c);
        pthread_detach(th);
    }
}

/* Starts the server; it lives until the forked test process exits. */
static struct srv *srv_start(enum srv_mode mode)
{
    static struct srv s;
    s.mode = mode;
    s.fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(s.fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s.fd, 128) < 0)
        FAIL("cannot listen: %s", strerror(errno));
    socklen_t len = sizeof(a);
    getsockname(s.fd, (struct sockaddr *)&a, &len);
    s.port = ntohs(a.sin_port);
    pthread_t th;
    pthread_create(&th, NULL, srv_main, &s);
    pthread_detach(th);
    return &s;
}

static void target_for(struct bench_target *t, int port, struct lat_buf *req)
{
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    memset(t, 0, sizeof(*t));
    ASSERT_RC(conn_target_init(&t->conn, "127.0.0.1", ps, false, false));
    snprintf(t->url.hostport, sizeof(t->url.hostport), "127.0.0.1:%d", port);
    ASSERT_RC(http1_build_request(req, "GET", t->url.hostport, "/", NULL, 0, NULL, 0));
    t->request = req->data;
    t->request_len = req->len;
    t->expect_class = 2;
}

/* ---- loop ---- */

struct tick {
    int order[8];
    int n;
};

static void tick_fn(struct lat_loop *l, struct loop_timer *t, lat_ns now)
{
    struct tick *k = (struct tick *)((struct loop_timer **)t->data)[0];
    k->order[k->n++] = (int)(intptr_t)((struct loop_timer **)t->data)[1];
    if (k->n == 3) loop_stop(l);
}

TEST(loop_timers_fire_in_order)
{
    struct lat_loop l;
    ASSERT_RC(loop_init(&l, 1)); /* forces heap growth */
    struct tick k = {0};
    struct loop_timer t[4];
    void *data[4][2];
    lat_ns now = clock_now_ns();
    lat_ns when[4] = {30, 10, 20, 5};
    for (int i = 0; i < 4; i++) {
        data[i][0] = &k;
        data[i][1] = (void *)(intptr_t)i;
        loop_timer_init(&t[i], tick_fn, data[i]);
        ASSERT_RC(loop_timer_start(&l, &t[i], now + when[i] * LAT_NS_PER_MS));
    }
    loop_timer_stop(&l, &t[3]); /* never fires */
    ASSERT(!loop_timer_armed(&t[3]));
    ASSERT_RC(loop_run(&l));
    ASSERT_EQ_I64(k.n, 3);
    ASSERT_EQ_I64(k.order[0], 1);
    ASSERT_EQ_I64(k.order[1], 2);
    ASSERT_EQ_I64(k.order[2], 0);
    ASSERT_OP_I64(clock_now_ns() - now, >=, 30 * LAT_NS_PER_MS);
    ASSERT_EQ_U64(l.lag_count, 3);
    loop_fini(&l);
}

TEST(fetch_roundtrip_and_refused)
{
    struct srv *s = srv_start(SRV_OK);
    struct bench_target t;
    struct lat_buf req = LAT_BUF_INIT, body = LAT_BUF_INIT;
    target_for(&t, s->port, &req);
    int status = 0;
    ASSERT_RC(http_fetch(&t.conn, req.data, req.len, LAT_NS_PER_S, &status, &body));
    ASSERT_EQ_I64(status, 200);
    ASSERT_EQ_STR(body.data, "hello world");
    /* A port nobody listens on: the listener's port after closing it. */
    struct conn_target dead;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(fd, (struct sockaddr *)&a, sizeof(a));
    socklen_t len = sizeof(a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", ntohs(a.sin_port));
    close(fd);
    ASSERT_RC(conn_target_init(&dead, "127.0.0.1", ps, false, false));
    ASSERT_EQ_I64(http_fetch(&dead, req.data, req.len, LAT_NS_PER_S, &status, &body),
                  -ECONNREFUSED);
    buf_fini(&req);
    buf_fini(&body);
}

TEST_TIMEOUT(bench_closed_loop_counts, 30)
{
    struct srv *s = srv_start(SRV_DELAY);
    s->delay_us = 1000;
    struct bench_target t;
    struct lat_buf req = LAT_BUF_INIT;
    target_for(&t, s->port, &req);
    t.expect_body = "world";
    t.expect_body_len = 5;
    struct bench_opts o;
    bench_opts_default(&o);
    o.threads = 2;
    o.keep_records = true;
    struct bench_load l = {.concurrency = 4, .requests = 200, .warmup_requests = 20};
    bench_load_finish(&l, &o);
    struct bench_result r;
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_EQ_U64(r.ok, 200);
    ASSERT_EQ_U64(r.errors_total, 0);
    ASSERT_EQ_U64(hist_count(&r.lat), 200);
    ASSERT_EQ_U64(r.nrecords, 200);
    ASSERT(r.have_exact);
    ASSERT_EQ_U64(r.exact.n, 200);
    /* CO-correct latency is never below the actual-send latency; the server sleeps 1 ms. */
    ASSERT_OP_I64(hist_min(&r.lat), >=, LAT_NS_PER_MS);
    for (size_t i = 0; i < r.nrecords; i++) {
        const struct bench_record *q = &r.records[i];
        ASSERT_OP_I64(q->t_sched, <=, q->t_send);
        ASSERT_OP_I64(q->t_send, <, q->t_first);
        ASSERT_OP_I64(q->t_first, <=, q->t_end);
        ASSERT_EQ_I64(q->status, 200);
    }
    ASSERT_OP_I64(hist_value_at_percentile(&r.lat, 50), >=,
                  hist_value_at_percentile(&r.lat_actual, 50));
    ASSERT(r.achieved_rps > 0);
    bench_result_fini(&r);
    conn_target_fini(&t.conn);
    buf_fini(&req);
}

TEST_TIMEOUT(bench_open_loop_rate, 30)
{
    struct srv *s = srv_start(SRV_OK);
    struct bench_target t;
    struct lat_buf req = LAT_BUF_INIT;
    target_for(&t, s->port, &req);
    struct bench_opts o;
    bench_opts_default(&o);
    o.threads = 2;
    struct bench_load l = {
        .rate = 400, .arrival = BENCH_ARRIVAL_CONSTANT, .duration_ns = LAT_NS_PER_S};
    bench_load_finish(&l, &o);
    struct bench_result r;
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    /* Exactly rate x duration arrivals are scheduled in [t0, t0 + 1 s). */
    ASSERT_EQ_U64(r.ok + r.errors_total, 400);
    ASSERT_EQ_U64(r.errors_total, 0);
    ASSERT_NEAR(r.duration_s, 1.0, 0.2);
    bench_result_fini(&r);

    /* Poisson with a seed: the count varies around rate x duration. */
    l.arrival = BENCH_ARRIVAL_POISSON;
    l.seed = 42;
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_NEAR((double)(r.ok + r.errors_total), 400, 4 * 20 + 5);
    bench_result_fini(&r);
    conn_target_fini(&t.conn);
    buf_fini(&req);
}

TEST_TIMEOUT(bench_errors_are_counted, 30)
{
    struct bench_opts o;
    bench_opts_default(&o);
    o.threads = 1;
    o.request_timeout_ns = 200 * LAT_NS_PER_MS;
    struct bench_result r;
    struct lat_buf req = LAT_BUF_INIT, req2 = LAT_BUF_INIT, req3 = LAT_BUF_INIT;

    /* A server that never answers: every request times out, the run still ends. */
    struct srv *s = srv_start(SRV_SILENT);
    struct bench_target t;
    target_for(&t, s->port, &req);
    struct bench_load l = {.concurrency = 2, .duration_ns = 500 * LAT_NS_PER_MS};
    bench_load_finish(&l, &o);
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_EQ_U64(r.ok, 0);
    ASSERT_OP_I64(r.errors[BENCH_ERR_TIMEOUT], >=, 2);
    ASSERT(!r.valid);
    bench_result_fini(&r);
    conn_target_fini(&t.conn);

    /* A server that closes without answering: reset. */
    s->mode = SRV_CLOSE;
    target_for(&t, s->port, &req2);
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_OP_I64(r.errors[BENCH_ERR_RESET], >=, 2);
    ASSERT_EQ_U64(r.ok, 0);
    bench_result_fini(&r);
    conn_target_fini(&t.conn);

    /* Nobody listening: connect errors, with backoff, and the run completes. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(fd, (struct sockaddr *)&a, sizeof(a));
    socklen_t len = sizeof(a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    close(fd);
    target_for(&t, ntohs(a.sin_port), &req3);
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_OP_I64(r.errors[BENCH_ERR_CONNECT], >=, 2);
    ASSERT_OP_I64(r.errors[BENCH_ERR_CONNECT], <=, 2 * (500 / 10) + 4); /* 10 ms backoff */
    bench_result_fini(&r);
    conn_target_fini(&t.conn);
    buf_fini(&req);
    buf_fini(&req2);
    buf_fini(&req3);
}

/* Request hooks (what --target openai plugs in): per-connection state, per-request bytes, every
 * body chunk with its time, one end per begun request. */
struct hook_conn {
    int begins, ends, ok_ends;
    size_t body;
    lat_ns last_t;
    char req[256];
};
static struct hook_conn *hook_conns[64];
static int hook_nconns;
static struct hook_conn hook_total; /* sums of the freed connections */

static void *hook_new(void *ud, unsigned thread)
{
    struct hook_conn *h = calloc(1, sizeof(*h));
    snprintf(h->req, sizeof(h->req), "GET /hook/%u HTTP/1.1\r\nHost: x\r\n\r\n", thread);
    hook_conns[hook_nconns++] = h;
    return h;
}
static void hook_free(void *cs)
{
    struct hook_conn *h = cs;
    hook_total.begins += h->begins;
    hook_total.ends += h->ends;
    hook_total.ok_ends += h->ok_ends;
    hook_total.body += h->body;
    for (int i = 0; i < hook_nconns; i++)
        if (hook_conns[i] == cs) hook_conns[i] = NULL;
    free(cs);
}
static int hook_build(void *cs, const char **req, size_t *len)
{
    struct hook_conn *h = cs;
    *req = h->req;
    *len = strlen(h->req);
    return 0;
}
static void hook_begin(void *cs, lat_ns t_sched, lat_ns t_send)
{
    struct hook_conn *h = cs;
    if (t_send >= 0 && t_send < t_sched) abort(); /* -1: never sent (connect failure) */
    h->begins++;
}
static void hook_body(void *cs, const char *p, size_t n, lat_ns t)
{
    struct hook_conn *h = cs;
    h->body += n;
    h->last_t = t;
}
static int hook_end(void *cs, int status, int err, lat_ns t_end, bool measured)
{
    struct hook_conn *h = cs;
    h->ends++;
    if (err < 0 && status == 200) h->ok_ends++;
    return err;
}

TEST_TIMEOUT(bench_request_hooks, 30)
{
    static const struct bench_req_ops ops = {hook_new,  hook_free, hook_build, hook_begin,
                                             hook_body, hook_end,  NULL};
    struct srv *s = srv_start(SRV_OK);
    struct bench_target t;
    struct lat_buf req = LAT_BUF_INIT;
    target_for(&t, s->port, &req);
    t.ops = &ops;
    struct bench_opts o;
    bench_opts_default(&o);
    o.threads = 2;
    struct bench_load l = {.concurrency = 3, .requests = 60};
    bench_load_finish(&l, &o);
    struct bench_result r;
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_EQ_U64(r.ok, 60);
    ASSERT_EQ_I64(hook_nconns, 3); /* one state per connection */
    for (int i = 0; i < hook_nconns; i++)
        ASSERT(hook_conns[i] == NULL); /* all freed */
    ASSERT_EQ_I64(hook_total.begins, 60);
    ASSERT_EQ_I64(hook_total.ends, 60);
    ASSERT_EQ_I64(hook_total.ok_ends, 60);
    ASSERT_EQ_U64(hook_total.body, 60 * 11); /* "hello world" each */
    bench_result_fini(&r);
    conn_target_fini(&t.conn);
    buf_fini(&req);
}

/* A server that advertises keep-alive and closes after every response: the request written on
 * the dead connection is sent again once on a fresh one (stale_retries), and never counted
 * as the server's error. Before: about half the requests failed as "reset". */
TEST_TIMEOUT(bench_stale_keepalive_retried, 60)
{
    struct srv *s = srv_start(SRV_KA_CLOSE);
    struct bench_target t;
    struct lat_buf req = LAT_BUF_INIT;
    target_for(&t, s->port, &req);
    struct bench_opts o;
    bench_opts_default(&o);
    o.threads = 1;
    struct bench_load l = {.concurrency = 2, .requests = 200};
    bench_load_finish(&l, &o);
    struct bench_result r;
    ASSERT_RC(bench_run_point(&t, &l, &o, NULL, NULL, &r));
    ASSERT_EQ_U64(r.ok, 200);
    ASSERT_EQ_U64(r.errors_total, 0);
    ASSERT(r.stale_retries > 0);
    ASSERT(r.stale_retries <= 200);
    ASSERT(r.valid);
    bench_result_fini(&r);
    conn_target_fini(&t.conn);
    buf_fini(&req);
}

/* ---- kernel receive timestamps ---- */

/* Connects a lat_conn to a one-shot listener and returns the accepted server fd. */
static int rx_pair(struct conn_target *t, struct lat_conn *c, bool kernel_time)
{
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
        getsockname(lfd, (struct sockaddr *)&a, &al))
        return -1;
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", ntohs(a.sin_port));
    if (conn_target_init(t, "127.0.0.1", ps, false, false)) return -1;
    t->rx_kernel_time = kernel_time;
    conn_init(c, t);
    enum lat_io s;
    while ((s = conn_connect(c)) == LAT_IO_RETRY)
        usleep(1000);
    int sfd = s == LAT_IO_OK ? accept(lfd, NULL, NULL) : -1;
    close(lfd);
    return sfd;
}

/* Bytes that sat in the socket for 60 ms before the read: with rx_kernel_time the arrival is
 * the kernel's receive time (between the server's clock reads around its send), not the time
 * the read ran; without it there is no kernel time. */
TEST_TIMEOUT(conn_rx_kernel_time, 20)
{
    for (int kt = 1; kt >= 0; kt--) {
        struct conn_target t;
        struct lat_conn c;
        int sfd = rx_pair(&t, &c, kt);
        ASSERT(sfd >= 0);
        lat_ns before = clock_now_ns();
        ASSERT(send(sfd, "hello", 5, 0) == 5);
        lat_ns after = clock_now_ns();
        usleep(60000);
        char buf[64];
        size_t n = 0;
        enum lat_io s;
        while ((s = conn_read(&c, buf, sizeof(buf), &n)) == LAT_IO_RETRY)
            usleep(1000);
        lat_ns read_at = clock_now_ns();
        ASSERT_EQ_I64(s, LAT_IO_OK);
        ASSERT_EQ_I64(n, 5);
        if (kt) {
            ASSERT(c.rx_ns != 0);
            /* a little slack: the realtime -> monotonic offset is read later, not atomically */
            ASSERT_OP_I64(c.rx_ns, >=, before - 100 * LAT_NS_PER_US);
            ASSERT_OP_I64(c.rx_ns, <=, after + 100 * LAT_NS_PER_US);
            ASSERT_OP_I64(read_at - c.rx_ns, >=, 50 * LAT_NS_PER_MS);
        } else {
            ASSERT_EQ_I64(c.rx_ns, 0);
        }
        conn_close(&c);
        close(sfd);
        conn_target_fini(&t);
    }
}
