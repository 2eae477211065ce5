/*
 * test-bench-hardening.c - issue 14's bench defects at the unit level: the validity judgement
 * (client vs server reasons, the error-share threshold), the LLM target's final class for the
 * engine, --extra-body members replacing generated ones, bounded prompt files, SLO text that
 * reads back, URLs with credentials.
 */
#include "test.h"

#include "bench/bench.h"
#include "bench/openai.h"
#include "bench/target.h"
#include "core/err.h"
#include "llm/chunk.h"
#include "llm/workload.h"
#include "net/http1.h"
#include "stats/search.h"

#include <stdio.h>
#include <stdlib.h>

static void result_with(struct bench_result *r, uint64_t ok, enum bench_err cls, uint64_t n)
{
    memset(r, 0, sizeof(*r));
    ASSERT_RC(hist_init_default(&r->send_lag));
    r->ok = ok;
    r->errors[cls] = n;
    r->errors_total = n;
}

TEST(bench_judge_client_and_server_reasons)
{
    struct bench_opts o;
    bench_opts_default(&o);
    struct bench_load closed = {.concurrency = 1}, open = {.rate = 100};
    struct bench_result r;

    /* fd exhaustion: the client's, whatever else happened */
    result_with(&r, 500, BENCH_ERR_CLIENT_FD, 3);
    bench_result_judge(&r, &closed, &o);
    ASSERT(!r.valid && r.invalid_client);
    ASSERT(strstr(r.invalid_reason, "ulimit -n"));
    hist_fini(&r.send_lag);

    /* more than half failed: INVALID, the server's */
    result_with(&r, 40, BENCH_ERR_STREAM, 60);
    bench_result_judge(&r, &closed, &o);
    ASSERT(!r.valid && !r.invalid_client);
    ASSERT(strstr(r.invalid_reason, "most requests failed: 60 of 100"));
    hist_fini(&r.send_lag);

    /* exactly half: still VALID (the threshold is "more than") */
    result_with(&r, 50, BENCH_ERR_HTTP_5XX, 50);
    bench_result_judge(&r, &closed, &o);
    ASSERT(r.valid);
    o.max_error_frac = 0.1;
    bench_result_judge(&r, &closed, &o);
    ASSERT(!r.valid);
    bench_opts_default(&o);
    hist_fini(&r.send_lag);

    /* send lag: the client's, unless max-inflight was reached (then the server's queue) */
    result_with(&r, 100, BENCH_ERR_CONNECT, 0);
    hist_record(&r.send_lag, 5 * LAT_NS_PER_MS);
    bench_result_judge(&r, &open, &o);
    ASSERT(!r.valid && r.invalid_client);
    r.inflight_cap_hits = 1;
    bench_result_judge(&r, &open, &o);
    ASSERT(!r.valid && !r.invalid_client);
    hist_fini(&r.send_lag);

    /* a saturated worker thread: the client's */
    result_with(&r, 100, BENCH_ERR_CONNECT, 0);
    r.max_thread_busy_pct = 99;
    bench_result_judge(&r, &closed, &o);
    ASSERT(!r.valid && r.invalid_client);
    hist_fini(&r.send_lag);
}

/* The LLM target tells the engine when an HTTP-complete exchange failed as a stream. */
TEST(llm_bench_end_final_class)
{
    struct llm_bench b;
    char why[256];
    llm_bench_init(&b);
    ASSERT_RC(llm_bench_opt(&b, bench_target_row(&bench_target_openai, "input-tokens")->id, "4",
                            why, sizeof(why)));
    ASSERT_RC(llm_bench_setup(&b, "h:1", "/", NULL, 0, 1, why, sizeof(why)));
    void *c = llm_bench_conn_new(&b, 0);
    ASSERT(c);
    const char *req;
    size_t len;
    ASSERT_RC(llm_bench_build(c, &req, &len));
    const char *good = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},"
                       "\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n";
    const char *cut = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n";
    llm_bench_begin(c, 0, 10);
    llm_conn_body(c, good, strlen(good), 20);
    ASSERT_EQ_I64(llm_bench_end(c, 200, -1, 30, true), -1);
    /* a plain-text body: not SSE, so the stream never started: a failure of its own class */
    llm_bench_begin(c, 40, 50);
    llm_conn_body(c, "hello world text", 16, 60);
    ASSERT_EQ_I64(llm_bench_end(c, 200, -1, 70, true), BENCH_ERR_STREAM);
    /* an engine class passes through */
    llm_bench_begin(c, 80, -1);
    ASSERT_EQ_I64(llm_bench_end(c, 0, BENCH_ERR_CONNECT, 90, true), BENCH_ERR_CONNECT);
    /* [DONE] without finish_reason, then a close without the terminating chunk (the engine
     * saw a reset): truncated in both views (issue 17 item 2), and with a clean end too */
    llm_bench_begin(c, 100, 110);
    llm_conn_body(c, cut, strlen(cut), 120);
    ASSERT_EQ_I64(llm_bench_end(c, 200, BENCH_ERR_RESET, 130, true), BENCH_ERR_TRUNCATED);
    llm_bench_begin(c, 140, 150);
    llm_conn_body(c, cut, strlen(cut), 160);
    ASSERT_EQ_I64(llm_bench_end(c, 200, -1, 170, true), BENCH_ERR_TRUNCATED);
    /* a complete stream whose HTTP body did not end: the engine's reset in both views */
    llm_bench_begin(c, 180, 190);
    llm_conn_body(c, good, strlen(good), 200);
    ASSERT_EQ_I64(llm_bench_end(c, 200, BENCH_ERR_RESET, 210, true), BENCH_ERR_RESET);
    llm_bench_conn_free(c);
    struct llm_summary s;
    ASSERT_RC(llm_bench_point_done(&b, &s));
    ASSERT_EQ_U64(s.requests, 6);
    ASSERT_EQ_U64(s.ok, 1);
    ASSERT_EQ_U64(s.errors, 5);
    ASSERT_EQ_U64(s.err[LLM_ERR_CONNECT], 1);
    ASSERT_EQ_U64(s.err[LLM_ERR_TRUNCATED], 2);
    ASSERT_EQ_U64(s.err[LLM_ERR_TRANSPORT], 1);
    llm_bench_fini(&b);
}

/* Counts the members named key in the top-level object [b, e). */
static int count_key(const char *b, const char *e, const char *key)
{
    int n = 0;
    size_t kl = strlen(key);
    for (const char *p = b; p + kl + 2 < e; p++)
        if (p[0] == '"' && !strncmp(p + 1, key, kl) && p[kl + 1] == '"' && p[kl + 2] == ':') n++;
    return n;
}

TEST(llm_extra_body_replaces_generated_members)
{
    struct llm_workload_cfg cfg = {
        .api = LLM_API_COMPLETIONS,
        .model = "m",
        .stream = true,
        .include_usage = true,
        .ignore_eos = true,
        .input = {8, 0},
        .output = {16, 0},
        .seed = 1,
        .extra_body = "{\"max_tokens\": 3, \"stream\": false, \"temperature\": 0}",
    };
    struct llm_workload *w;
    char why[256];
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    struct lat_buf a = LAT_BUF_INIT;
    int32_t mt;
    ASSERT_RC(llm_workload_body(w, 0, &a, &mt));
    ASSERT(lj_valid(a.data, a.len));
    const char *e = a.data + a.len;
    ASSERT_EQ_I64(count_key(a.data, e, "max_tokens"), 1);
    ASSERT_EQ_I64(count_key(a.data, e, "stream"), 1);
    ASSERT_EQ_I64(count_key(a.data, e, "min_tokens"), 1); /* not replaced: still generated */
    ASSERT(strstr(a.data, "\"max_tokens\": 3"));
    ASSERT(strstr(a.data, "\"stream\": false"));
    llm_workload_free(w);
    buf_fini(&a);

    /* the input member itself replaced: still one valid object, no stray comma */
    cfg.model = NULL;
    cfg.extra_body = "{\"prompt\": \"mine\"}";
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    ASSERT_RC(llm_workload_body(w, 0, &a, &mt));
    ASSERT(lj_valid(a.data, a.len));
    ASSERT_EQ_I64(count_key(a.data, a.data + a.len, "prompt"), 1);
    ASSERT(!strncmp(a.data, "{\"max_tokens\"", 13));
    llm_workload_free(w);
    buf_fini(&a);

    /* the same member twice in --extra-body: an error naming it */
    cfg.extra_body = "{\"seed\": 1, \"seed\": 2}";
    ASSERT_EQ_I64(llm_workload_new(&cfg, &w, why, sizeof(why)), LAT_E_BAD_JSON);
    ASSERT(strstr(why, "\"seed\" twice"));
}

TEST(llm_prompts_file_is_bounded)
{
    struct llm_workload_cfg cfg = {.api = LLM_API_COMPLETIONS,
                                   .stream = true,
                                   .output = {4, 0},
                                   .prompts_path = "/dev/zero",
                                   .max_input_bytes = 100000};
    struct llm_workload *w;
    char why[256];
    ASSERT_EQ_I64(llm_workload_new(&cfg, &w, why, sizeof(why)), LAT_E_OVERFLOW);
    ASSERT(strstr(why, "larger than 100000 bytes"));
    /* a directory is named as one, not as an I/O error */
    cfg.prompts_path = "/";
    ASSERT(llm_workload_new(&cfg, &w, why, sizeof(why)) < 0);
    ASSERT(strstr(why, "Is a directory"));
    /* a replay trace too */
    struct llm_replay r;
    ASSERT_EQ_I64(llm_replay_load_capped(&r, "/dev/zero", 0, 100000, why, sizeof(why)),
                  LAT_E_OVERFLOW);
    ASSERT(strstr(why, "larger than 100000 bytes"));
    llm_replay_fini(&r);
}

TEST(slo_percentile_text_reads_back)
{
    struct slo slo;
    const char *why = NULL;
    char buf[64];
    ASSERT_RC(slo_parse("p99.999999<=10ms,p99.9<=5ms,errors<=0.5%", &slo, &why));
    ASSERT_EQ_STR(slo_term_format(&slo.t[0], buf, sizeof(buf)), "e2e.p99.999999<=10ms");
    ASSERT_EQ_STR(slo_term_format(&slo.t[1], buf, sizeof(buf)), "e2e.p99.9<=5ms");
    ASSERT_EQ_STR(slo_term_format(&slo.t[2], buf, sizeof(buf)), "e2e.errors<=0.5%");
}

TEST(http1_url_with_credentials)
{
    struct http1_url u;
    const char *why = NULL;
    ASSERT_EQ_I64(http1_url_parse("http://user:pass@127.0.0.1:8000/x", &u, &why), LAT_E_USAGE);
    ASSERT(strstr(why, "credentials"));
    /* an @ after the path is an ordinary character */
    ASSERT_RC(http1_url_parse("http://127.0.0.1:8000/a@b?c=d@e", &u, &why));
    ASSERT_EQ_STR(u.path, "/a@b?c=d@e");
}
