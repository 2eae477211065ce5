/* test-llm-glue.c - `bench --target openai` option lifting and target set-up. */
#include "test.h"

#include "bench/bench.h"
#include "bench/openai.h"
#include "bench/target.h"
#include "core/err.h"
#include "hist/hist.h"
#include "hist/hlog.h"

/* One openai option by its long name, through the target's own table. */
static int oai(struct llm_bench *b, const char *name, const char *val, char *why, size_t n)
{
    const struct bench_topt *o = bench_target_row(&bench_target_openai, name);
    if (!o) return -1000;
    return bench_target_openai.opt(b, o->id, val, why, n);
}

TEST(llm_bench_opts_of_the_openai_group)
{
    struct llm_bench b;
    char why[256];
    llm_bench_init(&b);
    ASSERT_RC(oai(&b, "model", "m1", why, sizeof(why)));
    ASSERT_RC(oai(&b, "output-tokens", "64:8", why, sizeof(why)));
    ASSERT_RC(oai(&b, "no-stream", NULL, why, sizeof(why)));
    ASSERT_RC(oai(&b, "metrics-compat", "vllm", why, sizeof(why)));
    /* a common --slo: per-request keys are the target's, a latency SLO stays the bench's */
    ASSERT_EQ_I64(bench_target_openai.opt(&b, BENCH_TOPT_SLO, "ttft<=1s", why, sizeof(why)), 0);
    ASSERT_EQ_I64(bench_target_openai.opt(&b, BENCH_TOPT_SLO, "p99<=2s", why, sizeof(why)), 1);
    ASSERT_EQ_I64(bench_target_openai.opt(&b, BENCH_TOPT_SLO, "ttft.p99<=2s", why, sizeof(why)), 1);
    ASSERT_EQ_STR(b.tc.wl.model, "m1");
    ASSERT_EQ_I64(b.tc.wl.output.mean, 64);
    ASSERT_EQ_I64(b.tc.wl.output.stddev, 8);
    ASSERT_EQ_I64(b.slo.ttft_ns, LAT_NS_PER_S);
    ASSERT(!b.tc.wl.stream);
    ASSERT_EQ_I64(b.view, LLM_VIEW_VLLM);
    llm_bench_fini(&b);
}

TEST(llm_bench_opts_errors_and_targets)
{
    struct llm_bench b;
    char why[256];
    llm_bench_init(&b);
    ASSERT_EQ_I64(oai(&b, "output-tokens", "0", why, sizeof(why)), LAT_E_USAGE);
    ASSERT(strstr(why, "--output-tokens"));
    ASSERT_EQ_I64(oai(&b, "api", "rpc", why, sizeof(why)), LAT_E_USAGE);
    ASSERT(strstr(why, "--api rpc: expected chat or completions"));
    ASSERT_EQ_I64(oai(&b, "slo", "ttft<=x", why, sizeof(why)), LAT_E_USAGE);
    llm_bench_fini(&b);
    /* --model is an option of two groups; the URL picks kserve only under /v2/ */
    ASSERT(bench_target_row(&bench_target_kserve, "model") != NULL);
    ASSERT(bench_target_row(&bench_target_openai, "model") != NULL);
    ASSERT(bench_target_row(&bench_target_http, "model") == NULL);
    ASSERT(bench_target_row(&bench_target_kserve, "api") == NULL);
    struct http1_url u;
    const char *w = NULL;
    ASSERT_RC(http1_url_parse("http://h:1/v2/models/m", &u, &w));
    ASSERT(bench_target_default(&u) == &bench_target_kserve);
    ASSERT_RC(http1_url_parse("http://h:1/v1/completions", &u, &w));
    ASSERT(bench_target_default(&u) == &bench_target_http);
    ASSERT(bench_target_find("openai") == &bench_target_openai);
    ASSERT(bench_target_find("grpc") == NULL);
}

TEST(llm_bench_setup_paths)
{
    struct llm_bench b;
    char why[256];
    struct llm_conn *c;
    const char *req;
    size_t len;
    /* a bare server URL: the chat default path */
    llm_bench_init(&b);
    ASSERT_RC(llm_bench_setup(&b, "h:8000", "/", NULL, 0, 1, why, sizeof(why)));
    ASSERT_EQ_I64(b.tc.wl.api, LLM_API_CHAT);
    c = llm_bench_conn_new(&b, 0);
    ASSERT(c);
    ASSERT_RC(llm_bench_build(c, &req, &len));
    ASSERT(!strncmp(req, "POST /v1/chat/completions HTTP/1.1\r\nHost: h:8000\r\n", 50));
    ASSERT(strstr(req, "\"stream\":true"));
    /* one request through the callbacks: a complete stream, then a reset */
    llm_bench_begin(c, 0, 10);
    const char *body = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},"
                       "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    llm_conn_body(c, body, strlen(body), 50);
    llm_bench_end(c, 200, -1, 60, true);
    llm_bench_begin(c, 100, 110);
    llm_bench_end(c, 0, BENCH_ERR_RESET, 120, true);
    llm_bench_conn_free(c);
    struct llm_summary s;
    ASSERT_RC(llm_bench_point_done(&b, &s));
    ASSERT_EQ_U64(s.requests, 2);
    ASSERT_EQ_U64(s.ok, 1);
    ASSERT_EQ_U64(s.err[LLM_ERR_TRANSPORT], 1);
    ASSERT_RC(llm_bench_point_done(&b, &s));
    ASSERT_EQ_U64(s.requests, 0); /* reset per point */
    llm_bench_fini(&b);

    /* the URL path picks the API; a conflicting --api is an error */
    llm_bench_init(&b);
    ASSERT_RC(llm_bench_setup(&b, "h", "/v1/completions", NULL, 0, 1, why, sizeof(why)));
    ASSERT_EQ_I64(b.tc.wl.api, LLM_API_COMPLETIONS);
    llm_bench_fini(&b);
    llm_bench_init(&b);
    ASSERT_RC(oai(&b, "api", "chat", why, sizeof(why)));
    ASSERT_EQ_I64(llm_bench_setup(&b, "h", "/v1/completions", NULL, 0, 1, why, sizeof(why)),
                  LAT_E_USAGE);
    ASSERT(strstr(why, "does not match"));
    llm_bench_fini(&b);
}

TEST(llm_bench_hdr_log_tags)
{
    struct llm_bench b;
    char why[256];
    llm_bench_init(&b);
    ASSERT_RC(llm_bench_setup(&b, "h", "/", NULL, 0, 1, why, sizeof(why)));
    const char *path = test_write_file("llm.hlog", "", 0);
    FILE *f = fopen(path, "w");
    ASSERT(f);
    struct hlog_writer w = {0};
    ASSERT_RC(hlog_writer_start(&w, f, 1767189312.0));
    b.hlog = &w;
    b.hlog_base = 0;
    struct llm_conn *c = llm_bench_conn_new(&b, 0);
    const char *req;
    size_t len;
    ASSERT_RC(llm_bench_build(c, &req, &len));
    /* sched 1 s, send +1 ms, 3 content chunks 10 ms apart from 1.1 s, end 1.121 s */
    lat_ns s0 = LAT_NS_PER_S;
    llm_bench_begin(c, s0, s0 + LAT_NS_PER_MS);
    const char *ev = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n";
    for (int i = 0; i < 3; i++)
        llm_conn_body(c, ev, strlen(ev), s0 + 100 * LAT_NS_PER_MS + i * 10 * LAT_NS_PER_MS);
    const char *fin = "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}]}\n\n"
                      "data: [DONE]\n\n";
    llm_conn_body(c, fin, strlen(fin), s0 + 121 * LAT_NS_PER_MS);
    llm_bench_end(c, 200, -1, s0 + 121 * LAT_NS_PER_MS, true);
    llm_bench_conn_free(c);
    struct llm_summary s;
    ASSERT_RC(llm_bench_point_done(&b, &s));
    ASSERT_RC(hlog_writer_finish(&w));
    fclose(f);
    llm_bench_fini(&b);
    hlog_writer_fini(&w);

    FILE *in = fopen(path, "r");
    static char text[65536];
    size_t n = fread(text, 1, sizeof(text) - 1, in);
    fclose(in);
    struct hlog_reader r;
    hlog_reader_init(&r, text, n);
    struct hlog_entry e;
    int got = 0, rc;
    while ((rc = hlog_reader_next(&r, &e)) == 1) {
        got++;
        if (!strcmp(e.tag, "ttft.sched")) {
            ASSERT_EQ_U64(hist_count(&e.hist), 1);
            ASSERT_NEAR(hist_max(&e.hist) / 1e6, 100, 0.1);
        } else if (!strcmp(e.tag, "itl")) {
            ASSERT_EQ_U64(hist_count(&e.hist), 2); /* n - 1 = 2, value 10 ms */
            ASSERT_NEAR(hist_max(&e.hist) / 1e6, 10, 0.01);
        } else if (!strcmp(e.tag, "chunk_gap")) {
            ASSERT_EQ_U64(hist_count(&e.hist), 2);
        }
        ASSERT_NEAR(e.start_s, 1.0, 0.001);
        ASSERT_NEAR(e.length_s, 0.121, 0.001);
        hist_fini(&e.hist);
    }
    ASSERT_EQ_I64(rc, 0);
    ASSERT_EQ_I64(got, 7);
}
