/*
 * test-llm-fixture.c - the OpenAI fixture's planned timeline, and the whole client path
 * (socket -> chunked body -> SSE -> llm_record -> metrics) against it over loopback, with the
 * true TTFT/ITL/TPOT known from the fixture's configuration.
 */
#include "test.h"

#include "core/err.h"
#include "fixture/openai.h"
#include "llm/metrics.h"
#include "llm/stream.h"
#include "llm/target.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#define MS LAT_NS_PER_MS

static const char *req_chat(int max_tokens, bool stream, bool usage)
{
    static char b[512];
    snprintf(b, sizeof(b),
             "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a b c\"}],"
             "\"max_tokens\":%d,\"stream\":%s%s}",
             max_tokens, stream ? "true" : "false",
             usage ? ",\"stream_options\":{\"include_usage\":true}" : "");
    return b;
}

/* Drives a planned response at exactly its due times into an llm_stream. */
static void drive(struct fx_openai_stream *st, struct llm_stream *s, lat_ns t_send,
                  enum llm_err *transport)
{
    struct lat_buf out = LAT_BUF_INIT;
    lat_ns now = t_send, due = 0;
    *transport = LLM_OK;
    for (;;) {
        buf_reset(&out);
        enum fxo_next r = fx_openai_next(st, now, &out, &due);
        if (out.len) llm_stream_body(s, out.data, out.len, now);
        if (r == FXO_NEXT_DONE) break;
        if (r == FXO_NEXT_CUT) {
            *transport = LLM_ERR_TRANSPORT;
            break;
        }
        ASSERT(due > now);
        now = due;
    }
    llm_stream_end(s, 200, *transport, now);
    buf_fini(&out);
}

TEST(fixture_openai_timeline_is_exact)
{
    struct fx_openai fx;
    struct fx_openai_cfg cfg = {
        .prefill_ns = 20 * MS, .token_ns = 10 * MS, .tokens_per_chunk = 2, .max_seqs = 1};
    ASSERT_RC(fx_openai_init(&fx, &cfg));
    struct fx_openai_stream st;
    struct lat_buf err = LAT_BUF_INIT;
    const char *body = req_chat(7, true, true);
    lat_ns t0 = 1000 * MS;
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/chat/completions", body, strlen(body), t0, &st, &err),
                  200);
    ASSERT_EQ_I64(st.n_chunks, 4);
    /* chunks end at tokens 1, 3, 5, 6: t_first + 10, 30, 50, 60 ms */
    ASSERT_EQ_I64(fx_openai_chunk_time(&st, 0), t0 + 30 * MS);
    ASSERT_EQ_I64(fx_openai_chunk_time(&st, 3), t0 + 80 * MS);

    struct llm_stream s;
    llm_stream_init(&s, true);
    llm_stream_begin(&s, t0, t0, 7);
    enum llm_err tr;
    drive(&st, &s, t0, &tr);
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    ASSERT_EQ_I64(s.rec.t_first - t0, 30 * MS);
    ASSERT_EQ_I64(s.rec.t_last - t0, 80 * MS);
    ASSERT_EQ_I64(s.rec.usage_tokens, 7);
    ASSERT_EQ_I64(s.rec.n_content, 4);
    struct llm_metrics m;
    llm_metrics_init(&m);
    ASSERT_RC(llm_metrics_add(&m, &s.rec));

    /* A second request arriving at the same time waits for the only sequence slot: its
     * admission is the first one's end (20 + 6 * 10 ms later). */
    struct fx_openai_stream st2;
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/chat/completions", body, strlen(body), t0, &st2, &err),
                  200);
    ASSERT_EQ_I64(st2.t_admit - t0, 80 * MS);
    llm_stream_begin(&s, t0, t0, 7);
    drive(&st2, &s, t0, &tr);
    ASSERT_RC(llm_metrics_add(&m, &s.rec));
    struct llm_summary sum;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, NULL, &sum));
    ASSERT_NEAR(sum.ttft.p50, 30 * MS, 0);
    ASSERT_NEAR(sum.ttft.max, 110 * MS, 0);      /* queued 80 ms */
    ASSERT_NEAR(sum.tpot.p50, 50.0 * MS / 6, 1); /* (80 - 30)/(7 - 1) */
    ASSERT_NEAR(sum.chunk_gap.p50, 20 * MS, 0);  /* 2 tokens per chunk */
    ASSERT_NEAR(sum.chunk_gap.max, 20 * MS, 0);
    llm_stream_fini(&s);
    llm_metrics_fini(&m);
    buf_fini(&err);
    fx_openai_fini(&fx);
}

TEST(fixture_openai_faults_and_errors)
{
    struct fx_openai fx;
    struct fx_openai_cfg cfg = {.prefill_ns = 1 * MS, .token_ns = 1 * MS, .stall_ns = 100 * MS};
    const char *why;
    ASSERT_EQ_I64(fx_openai_parse_faults("cut:2", &cfg, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(fx_openai_parse_faults("bogus:0.1", &cfg, &why), LAT_E_USAGE);
    const char *body = req_chat(10, true, true);
    struct lat_buf err = LAT_BUF_INIT;
    struct llm_stream s;
    llm_stream_init(&s, true);
    const char *names[] = {"cut:1", "error:1", "malformed:1", "stall:1", "http:1"};
    enum llm_err want[] = {LLM_ERR_CUT, LLM_ERR_EVENT, LLM_ERR_MALFORMED, LLM_OK, LLM_ERR_HTTP};
    for (int i = 0; i < 5; i++) {
        memset(cfg.fault_p, 0, sizeof(cfg.fault_p));
        ASSERT_RC(fx_openai_parse_faults(names[i], &cfg, &why));
        ASSERT_RC(fx_openai_init(&fx, &cfg));
        struct fx_openai_stream st;
        buf_reset(&err);
        int status = fx_openai_plan(&fx, "/v1/chat/completions", body, strlen(body), 0, &st, &err);
        llm_stream_begin(&s, 0, 0, 10);
        if (status != 200) {
            ASSERT_EQ_I64(status, 503);
            llm_stream_body(&s, err.data, err.len, 1);
            llm_stream_end(&s, status, LLM_OK, 1);
        } else {
            enum llm_err tr;
            drive(&st, &s, 0, &tr);
        }
        if (s.rec.err != want[i]) FAIL("%s: got %s", names[i], llm_err_name(s.rec.err));
        if (i == 3) ASSERT_EQ_I64(s.rec.t_last, 1 * MS + 9 * MS + 100 * MS); /* stalled */
        fx_openai_fini(&fx);
    }
    /* Bad requests. */
    ASSERT_RC(fx_openai_init(&fx, &cfg));
    struct fx_openai_stream st;
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/nope", body, strlen(body), 0, &st, &err), 404);
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/completions", body, strlen(body), 0, &st, &err), 400);
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/chat/completions", "{", 1, 0, &st, &err), 400);
    fx_openai_fini(&fx);
    llm_stream_fini(&s);
    buf_fini(&err);
}

/* ---- over loopback ---- */

struct server {
    struct fx_openai fx;
    int lfd, port;
    volatile sig_atomic_t stop;
    pthread_t th;
};

static void *server_main(void *arg)
{
    struct server *sv = arg;
    fx_openai_serve(&sv->fx, sv->lfd, &sv->stop);
    return NULL;
}

static void server_start(struct server *sv, const struct fx_openai_cfg *cfg)
{
    memset(sv, 0, sizeof(*sv));
    ASSERT_RC(fx_openai_init(&sv->fx, cfg));
    sv->lfd = fx_listen_loopback(0, &sv->port);
    ASSERT(sv->lfd >= 0);
    ASSERT(pthread_create(&sv->th, NULL, server_main, sv) == 0);
}

static void server_stop(struct server *sv)
{
    sv->stop = 1;
    pthread_join(sv->th, NULL);
    close(sv->lfd);
    fx_openai_fini(&sv->fx);
}

/* Minimal client: one request (raw bytes, "Connection: close" expected), the response body
 * de-chunked and handed to on_body with each recv's time. Returns the HTTP status (0: none). */
static int client_raw(int port, const char *req, size_t len,
                      void (*on_body)(void *, const char *, size_t, lat_ns), void *ud,
                      enum llm_err *tr, lat_ns *t_send, lat_ns *t_end)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *tr = LLM_ERR_CONNECT;
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        close(fd);
        return 0;
    }
    *t_send = clock_now_ns();
    if (write(fd, req, len) != (ssize_t)len) {
        close(fd);
        *tr = LLM_ERR_TRANSPORT;
        return 0;
    }
    char buf[65536];
    struct lat_buf head = LAT_BUF_INIT;
    bool in_body = false, chunked = false;
    int status = 0;
    size_t chunk_left = 0;
    int cstate = 0; /* 0 size line, 1 data, 2 CRLF after data, 3 done */
    char sizeline[32];
    size_t sl = 0;
    lat_ns t = 0;
    *tr = LLM_ERR_TRANSPORT;
    for (;;) {
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        t = clock_now_ns();
        if (r <= 0) break;
        const char *p = buf;
        size_t left = (size_t)r;
        if (!in_body) {
            buf_append(&head, p, left);
            char *e = strstr(head.data, "\r\n\r\n");
            if (!e) continue;
            sscanf(head.data, "HTTP/1.1 %d", &status);
            chunked = strcasestr(head.data, "Transfer-Encoding: chunked") != NULL;
            size_t hl = (size_t)(e - head.data) + 4;
            p = head.data + hl;
            left = head.len - hl;
            in_body = true;
        }
        if (!chunked) {
            on_body(ud, p, left, t);
            continue;
        }
        while (left) {
            if (cstate == 0) {
                char ch = *p++;
                left--;
                if (ch == '\n') {
                    sizeline[sl] = '\0';
                    chunk_left = strtoul(sizeline, NULL, 16);
                    sl = 0;
                    cstate = chunk_left ? 1 : 3;
                } else if (ch != '\r' && sl < sizeof(sizeline) - 1) {
                    sizeline[sl++] = ch;
                }
            } else if (cstate == 1) {
                size_t k = left < chunk_left ? left : chunk_left;
                on_body(ud, p, k, t);
                p += k, left -= k, chunk_left -= k;
                if (!chunk_left) cstate = 2;
            } else if (cstate == 2) {
                if (*p == '\n') cstate = 0;
                p++, left--;
            } else {
                left = 0;
            }
        }
        if (cstate == 3) {
            *tr = LLM_OK;
            break;
        }
    }
    if (!chunked && in_body) *tr = LLM_OK; /* Content-Length body read until close */
    *t_end = t;
    buf_fini(&head);
    close(fd);
    return status;
}

static int client_request(int port, const char *path, const char *body, struct llm_stream *s)
{
    char req[2048];
    int n = snprintf(req, sizeof(req),
                     "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     path, strlen(body), body);
    enum llm_err tr;
    lat_ns t_send = clock_now_ns(), t_end;
    llm_stream_begin(s, t_send, t_send, -1);
    int status = client_raw(port, req, (size_t)n, llm_stream_body, s, &tr, &s->rec.t_send, &t_end);
    s->rec.t_sched = s->rec.t_send;
    llm_stream_end(s, status, tr, t_end);
    return status;
}

TEST_TIMEOUT(fixture_openai_loopback_true_timing, 30)
{
    struct server sv;
    struct fx_openai_cfg cfg = {
        .prefill_ns = 30 * MS, .token_ns = 5 * MS, .tokens_per_chunk = 1, .seed = 1};
    server_start(&sv, &cfg);
    struct llm_stream s;
    llm_stream_init(&s, true);
    struct llm_metrics m;
    llm_metrics_init(&m);
    for (int i = 0; i < 5; i++) {
        ASSERT_EQ_I64(client_request(sv.port, "/v1/chat/completions", req_chat(20, true, true), &s),
                      200);
        ASSERT_EQ_I64(s.rec.err, LLM_OK);
        ASSERT_RC(llm_metrics_add(&m, &s.rec));
    }
    struct llm_summary sum;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, NULL, &sum));
    double tol = getenv("LAT_TEST_TIMEOUT_MULT") ? 20 : 5; /* ms; wider under sanitizers */
    ASSERT_EQ_U64(sum.ok, 5);
    ASSERT_EQ_U64(sum.out_tokens, 100);
    ASSERT_EQ_I64(sum.tokens_source, LLM_TOK_USAGE);
    ASSERT_NEAR(sum.ttft.p50 / 1e6, 30, tol);
    ASSERT_NEAR(sum.tpot.p50 / 1e6, 5, tol / 5);
    ASSERT_NEAR(sum.chunk_gap.p50 / 1e6, 5, tol / 5);
    ASSERT_NEAR(sum.e2e.p50 / 1e6, 30 + 19 * 5, tol);
    llm_metrics_fini(&m);

    /* non-streaming request on the same server */
    llm_stream_fini(&s);
    llm_stream_init(&s, false);
    ASSERT_EQ_I64(client_request(sv.port, "/v1/chat/completions", req_chat(4, false, false), &s),
                  200);
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    ASSERT_EQ_I64(s.rec.usage_tokens, 4);
    ASSERT_NEAR((s.rec.t_first - s.rec.t_send) / 1e6, 30 + 3 * 5, tol);
    llm_stream_fini(&s);
    server_stop(&sv);
}

TEST_TIMEOUT(fixture_openai_loopback_faults_and_fallback, 30)
{
    struct server sv;
    struct fx_openai_cfg cfg = {
        .prefill_ns = 2 * MS, .token_ns = 1 * MS, .no_usage = true, .seed = 3};
    const char *why;
    ASSERT_RC(fx_openai_parse_faults("cut:0.2,error:0.2,malformed:0.2,http:0.2", &cfg, &why));
    server_start(&sv, &cfg);
    struct llm_stream s;
    llm_stream_init(&s, true);
    struct llm_metrics m;
    llm_metrics_init(&m);
    for (int i = 0; i < 40; i++) {
        client_request(sv.port, "/v1/chat/completions", req_chat(8, true, true), &s);
        ASSERT_RC(llm_metrics_add(&m, &s.rec));
    }
    struct llm_summary sum;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, NULL, &sum));
    /* Every fault the fixture injected is counted in its class; the rest succeed. */
    ASSERT_EQ_U64(sum.requests, 40);
    ASSERT_EQ_U64(sum.err[LLM_ERR_CUT], sv.fx.faults[FXO_FAULT_CUT]);
    ASSERT_EQ_U64(sum.err[LLM_ERR_EVENT], sv.fx.faults[FXO_FAULT_ERROR]);
    ASSERT_EQ_U64(sum.err[LLM_ERR_MALFORMED], sv.fx.faults[FXO_FAULT_MALFORMED]);
    ASSERT_EQ_U64(sum.err[LLM_ERR_HTTP], sv.fx.faults[FXO_FAULT_HTTP]);
    uint64_t injected = sv.fx.faults[FXO_FAULT_CUT] + sv.fx.faults[FXO_FAULT_ERROR] +
                        sv.fx.faults[FXO_FAULT_MALFORMED] + sv.fx.faults[FXO_FAULT_HTTP];
    ASSERT_EQ_U64(sum.ok, 40 - injected);
    ASSERT_EQ_U64(sum.errors, injected);
    ASSERT(sum.errors > 0 && sum.ok > 0);
    /* no usage: token counts fall back to content chunks, flagged */
    ASSERT_EQ_I64(sum.tokens_source, LLM_TOK_CHUNKS);
    ASSERT_EQ_U64(sum.out_tokens, 8 * sum.ok);
    llm_stream_fini(&s);
    llm_metrics_fini(&m);
    server_stop(&sv);
}

/* The bench target module driven the way the engine drives it: 4 client threads, closed loop,
 * against a fixture with 2 sequence slots, so half the requests queue for one full request. */
struct worker_arg {
    struct llm_target *t;
    unsigned thread;
    int port, nreq;
};

static void *worker_main(void *arg)
{
    struct worker_arg *w = arg;
    struct llm_conn *c = llm_conn_new(w->t, w->thread);
    for (int i = 0; i < w->nreq; i++) {
        const char *req;
        size_t len;
        if (llm_conn_build(c, &req, &len)) break;
        enum llm_err tr;
        lat_ns t_sched = clock_now_ns(), t_send = t_sched, t_end;
        llm_conn_begin(c, t_sched, t_send);
        int status = client_raw(w->port, req, len, llm_conn_body, c, &tr, &t_send, &t_end);
        c->s.rec.t_send = t_send;
        llm_conn_end(c, status, tr, t_end, true);
    }
    llm_conn_free(c);
    return NULL;
}

/* What the latscope view's SLO must count, recomputed from the recorded requests themselves
 * (llm/metrics.h's definitions: TTFT = t_first - t_sched; TPOT = (t_last - t_first) / (n - 1)
 * over two or more content chunks, none otherwise, and then a TPOT bound is met vacuously). So a
 * goodput assertion holds whatever the machine's load did to the timing: a stream the client
 * read in one burst has no TPOT and meets "tpot<=1us" (issue 28). */
static uint64_t good_by_records(const struct llm_target *t, lat_ns ttft_max, lat_ns tpot_max)
{
    uint64_t good = 0;
    for (unsigned i = 0; i < t->nthreads; i++) {
        for (size_t j = 0; j < t->metrics[i].n; j++) {
            const struct llm_rsum *r = &t->metrics[i].r[j];
            if (r->err != LLM_OK) continue;
            if (ttft_max >= 0 && (r->t_first < 0 || r->t_first - r->t_sched > ttft_max)) continue;
            if (tpot_max >= 0 && r->t_first >= 0 && r->t_last >= 0 && r->n >= 2 &&
                r->n_content >= 2 && (r->t_last - r->t_first) / (r->n - 1) > tpot_max)
                continue;
            good++;
        }
    }
    return good;
}

TEST_TIMEOUT(llm_target_against_fixture_queueing_goodput, 60)
{
    struct server sv;
    struct fx_openai_cfg cfg = {
        .prefill_ns = 20 * MS, .token_ns = 2 * MS, .max_seqs = 2, .seed = 5};
    server_start(&sv, &cfg);
    char hostport[64];
    snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", sv.port);
    const char *hdrs[] = {"Connection: close", "X-Test: 1"};
    setenv("LAT_TEST_KEY", "sk-test", 1);
    struct llm_target_cfg tc = {
        .wl = {.api = LLM_API_CHAT,
               .model = "fixture",
               .stream = true,
               .include_usage = true,
               .ignore_eos = true,
               .input = {16, 0},
               .output = {10, 0},
               .seed = 9},
        .hostport = hostport,
        .api_key_env = "LAT_TEST_KEY",
        .headers = hdrs,
        .nheaders = 2,
    };
    struct llm_target *t;
    char why[256];
    ASSERT_RC(llm_target_new(&tc, 4, &t, why, sizeof(why)));
    ASSERT(strstr(t->head.data, "Authorization: Bearer sk-test\r\n"));
    pthread_t th[4];
    struct worker_arg wa[4];
    for (unsigned i = 0; i < 4; i++) {
        wa[i] = (struct worker_arg){t, i, sv.port, 5};
        ASSERT(pthread_create(&th[i], NULL, worker_main, &wa[i]) == 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    struct llm_slo slo;
    const char *w;
    /* Unqueued TTFT is 20 ms (the first wave); queued ones wait ~38 ms more. */
    ASSERT_RC(llm_slo_parse("ttft<=45ms", &slo, &w));
    struct llm_summary s;
    ASSERT_RC(llm_target_summarize(t, LLM_VIEW_LATSCOPE, &slo, &s));
    ASSERT_EQ_U64(s.requests, 20);
    ASSERT_EQ_U64(s.ok, 20);
    ASSERT_EQ_U64(s.out_tokens, 200);
    ASSERT_EQ_U64(s.osl_mismatch, 0);
    double tol = getenv("LAT_TEST_TIMEOUT_MULT") ? 15 : 5;
    /* 4 closed-loop clients on 2 slots: after the first wave every request waits for one whole
     * request (20 + 9 x 2 = 38 ms) before its 20 ms prefill. The fixture sets the minimum; a
     * loaded machine only adds to it, so only the lower side is asserted. */
    ASSERT_OP_I64((int64_t)(s.ttft.p50 / 1e6), >=, (int64_t)(58 - tol));
    ASSERT_NEAR(s.chunk_gap.p50 / 1e6, 2, tol / 5);
    /* goodput: exactly the requests whose own TTFT met the bound (the first wave, unless the
     * machine delayed it), then the arithmetic: good / requests, good / duration */
    ASSERT_EQ_U64(s.good, good_by_records(t, 45 * MS, -1));
    ASSERT(s.good < 20); /* the queued ones (>= 58 ms) never meet 45 ms */
    ASSERT_NEAR(s.goodput_fraction, s.good / 20.0, 1e-12);
    ASSERT_NEAR(s.goodput_rps, s.good / s.duration_s, 1e-9);
    ASSERT_NEAR(s.req_s, 20 / s.duration_s, 1e-9);
    ASSERT_RC(llm_slo_parse("ttft<=10s,tpot<=1s", &slo, &w));
    ASSERT_RC(llm_target_summarize(t, LLM_VIEW_LATSCOPE, &slo, &s));
    ASSERT_EQ_U64(s.good, 20);
    /* tpot<=1us: the fixture spaces tokens 2 ms apart, so every request with a measured TPOT
     * fails it; one the client happened to read in one chunk has none and meets it vacuously. */
    ASSERT_RC(llm_slo_parse("tpot<=1us", &slo, &w));
    ASSERT_RC(llm_target_summarize(t, LLM_VIEW_LATSCOPE, &slo, &s));
    ASSERT_EQ_U64(s.good, good_by_records(t, -1, 1000));
    llm_target_reset(t);
    ASSERT_RC(llm_target_summarize(t, LLM_VIEW_LATSCOPE, NULL, &s));
    ASSERT_EQ_U64(s.requests, 0);
    llm_target_free(t);

    unsetenv("LAT_TEST_KEY");
    ASSERT_EQ_I64(llm_target_new(&tc, 1, &t, why, sizeof(why)), LAT_E_USAGE);
    ASSERT(strstr(why, "LAT_TEST_KEY"));
    server_stop(&sv);
}
