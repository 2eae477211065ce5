/* test-llm-glue.c - `bench --target openai` option lifting and target set-up. */
#include "test.h"

#include "bench/bench.h"
#include "bench/openai.h"
#include "core/err.h"
#include "hist/hist.h"
#include "hist/hlog.h"

TEST(llm_bench_take_args_lifts_openai_options)
{
    char *argv[] = {"bench",
                    "--target",
                    "openai",
                    "-c",
                    "4",
                    "--model",
                    "m1",
                    "--output-tokens=64:8",
                    "--slo",
                    "ttft<=1s",
                    "--slo",
                    "p99<=2s",
                    "--no-stream",
                    "http://h:1/",
                    "--metrics-compat",
                    "vllm",
                    NULL};
    int argc = 16;
    struct llm_bench b;
    char why[256];
    ASSERT_RC(llm_bench_take_args(&b, &argc, argv, why, sizeof(why)));
    ASSERT(b.active);
    ASSERT_EQ_STR(b.tc.wl.model, "m1");
    ASSERT_EQ_I64(b.tc.wl.output.mean, 64);
    ASSERT_EQ_I64(b.tc.wl.output.stddev, 8);
    ASSERT_EQ_I64(b.slo.ttft_ns, LAT_NS_PER_S);
    ASSERT(!b.tc.wl.stream);
    ASSERT_EQ_I64(b.view, LLM_VIEW_VLLM);
    /* what is left is the bench's: target, -c 4, its own latency SLO, the URL */
    ASSERT_EQ_I64(argc, 8);
    const char *want[] = {"bench", "--target", "openai",  "-c",
                          "4",     "--slo",    "p99<=2s", "http://h:1/"};
    for (int i = 0; i < 8; i++)
        ASSERT_EQ_STR(argv[i], want[i]);
    ASSERT(argv[8] == NULL);
}

TEST(llm_bench_take_args_inactive_and_errors)
{
    char *argv[] = {"bench", "--model", "x", "http://h:1/", NULL};
    int argc = 4;
    struct llm_bench b;
    char why[256];
    ASSERT_RC(llm_bench_take_args(&b, &argc, argv, why, sizeof(why)));
    ASSERT(!b.active);
    ASSERT_EQ_I64(argc, 4); /* without --target openai, --model is KServe's */
    char *bad1[] = {"bench", "--target=openai", "--output-tokens", "0", NULL};
    argc = 4;
    ASSERT_EQ_I64(llm_bench_take_args(&b, &argc, bad1, why, sizeof(why)), LAT_E_USAGE);
    ASSERT(strstr(why, "--output-tokens"));
    char *bad2[] = {"bench", "--target", "openai", "--api", NULL};
    argc = 4;
    ASSERT_EQ_I64(llm_bench_take_args(&b, &argc, bad2, why, sizeof(why)), LAT_E_USAGE);
    ASSERT(strstr(why, "needs a value"));
    char *bad3[] = {"bench", "--target", "openai", "--slo", "ttft<=x", NULL};
    argc = 5;
    ASSERT_EQ_I64(llm_bench_take_args(&b, &argc, bad3, why, sizeof(why)), LAT_E_USAGE);
}

TEST(llm_bench_setup_paths)
{
    char *argv[] = {"bench", "--target", "openai", NULL};
    int argc = 3;
    struct llm_bench b;
    char why[256];
    struct llm_conn *c;
    const char *req;
    size_t len;
    /* a bare server URL: the chat default path */
    ASSERT_RC(llm_bench_take_args(&b, &argc, argv, why, sizeof(why)));
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
    argc = 3;
    ASSERT_RC(llm_bench_take_args(&b, &argc, argv, why, sizeof(why)));
    ASSERT_RC(llm_bench_setup(&b, "h", "/v1/completions", NULL, 0, 1, why, sizeof(why)));
    ASSERT_EQ_I64(b.tc.wl.api, LLM_API_COMPLETIONS);
    llm_bench_fini(&b);
    char *argv2[] = {"bench", "--target", "openai", "--api", "chat", NULL};
    argc = 5;
    ASSERT_RC(llm_bench_take_args(&b, &argc, argv2, why, sizeof(why)));
    ASSERT_EQ_I64(llm_bench_setup(&b, "h", "/v1/completions", NULL, 0, 1, why, sizeof(why)),
                  LAT_E_USAGE);
    ASSERT(strstr(why, "does not match"));
    llm_bench_fini(&b);
}

TEST(llm_bench_hdr_log_tags)
{
    char *argv[] = {"bench", "--target", "openai", NULL};
    int argc = 3;
    struct llm_bench b;
    char why[256];
    ASSERT_RC(llm_bench_take_args(&b, &argc, argv, why, sizeof(why)));
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
