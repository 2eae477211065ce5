/* test-llm-metrics.c - LLM metric definitions against hand-computed values, every view. */
#include "test.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/pctl.h"
#include "llm/chunk.h"
#include "llm/metrics.h"

#include <math.h>

#define MS(x) ((lat_ns)((x)*1000000.0))

static struct llm_record rec_blank(void)
{
    struct llm_record r;
    memset(&r, 0, sizeof(r));
    r.t_sched = r.t_send = r.t_first_event = r.t_last_event = -1;
    r.t_first_choice = r.t_last_choice = r.t_first = r.t_last = r.t_end = -1;
    r.usage_tokens = r.chunk_usage_tokens = r.prompt_tokens = -1;
    r.requested_tokens = -1;
    return r;
}

/*
 * A: sched 0, send 1, role chunk at 100 (choices, empty content), content 101 111 121 131,
 *    usage-only chunk 131.5, end 132; usage 4, requested 4.
 * B: sched 10, send 50, content 250 270 (also the only choice events), end 271; usage 6
 *    (multi-token chunks), requested 4 (OSL mismatch).
 * C: sched 20, send 21, error event, end 30.
 */
static void add_three(struct llm_metrics *m)
{
    static lat_ns a_c[] = {MS(101), MS(111), MS(121), MS(131)};
    static lat_ns a_ch[] = {MS(100), MS(101), MS(111), MS(121), MS(131)};
    static lat_ns b_c[] = {MS(250), MS(270)};
    struct llm_record a = rec_blank(), b = rec_blank(), c = rec_blank();
    a.t_sched = 0, a.t_send = MS(1), a.t_first_event = MS(100), a.t_first_choice = MS(100);
    a.t_first = MS(101), a.t_last = MS(131), a.t_last_choice = MS(131);
    a.t_last_event = MS(131.5), a.t_end = MS(132);
    a.usage_tokens = 4, a.requested_tokens = 4;
    a.n_content = 4, a.content_ts = a_c, a.n_choice = 5, a.choice_ts = a_ch;
    b.t_sched = MS(10), b.t_send = MS(50), b.t_first_event = b.t_first_choice = b.t_first = MS(250);
    b.t_last = b.t_last_choice = b.t_last_event = MS(270), b.t_end = MS(271);
    b.usage_tokens = 6, b.requested_tokens = 4;
    b.n_content = 2, b.content_ts = b_c, b.n_choice = 2, b.choice_ts = b_c;
    c.t_sched = MS(20), c.t_send = MS(21), c.t_end = MS(30), c.err = LLM_ERR_EVENT;
    ASSERT_RC(llm_metrics_add(m, &a));
    ASSERT_RC(llm_metrics_add(m, &b));
    ASSERT_RC(llm_metrics_add(m, &c));
}

#define NEAR_MS(ns, ms) ASSERT_NEAR((ns) / 1e6, (ms), 1e-6)

TEST(llm_metrics_latscope_view)
{
    struct llm_metrics m;
    llm_metrics_init(&m);
    add_three(&m);
    struct llm_slo slo;
    const char *why;
    ASSERT_RC(llm_slo_parse("ttft<=200ms,tpot<=50ms", &slo, &why));
    struct llm_summary s;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, &slo, &s));
    ASSERT_EQ_U64(s.requests, 3);
    ASSERT_EQ_U64(s.ok, 2);
    ASSERT_EQ_U64(s.errors, 1);
    ASSERT_EQ_U64(s.err[LLM_ERR_EVENT], 1);
    /* ttft from t_sched: A 101, B 240; nearest rank over 2: p50 = rank 1, p90 = rank 2 */
    ASSERT_EQ_U64(s.ttft.n, 2);
    NEAR_MS(s.ttft.p50, 101);
    NEAR_MS(s.ttft.p90, 240);
    NEAR_MS(s.ttft.mean, 170.5);
    NEAR_MS(s.ttft_send.p50, 100); /* A: 101 - 1 */
    NEAR_MS(s.ttft_send.max, 200); /* B: 250 - 50 */
    NEAR_MS(s.e2e.mean, (132 + 261) / 2.0);
    NEAR_MS(s.e2e_send.max, 221);
    /* tpot = (t_last - t_first)/(n - 1): A 30/3 = 10, B 20/5 = 4 */
    NEAR_MS(s.tpot.p50, 4);
    NEAR_MS(s.tpot.max, 10);
    NEAR_MS(s.tpot.mean, 7);
    /* itl: same values weighted n - 1: 4 x5, 10 x3; W = 8, mean 50/8, p50 rank 4, p90 rank 8 */
    ASSERT_EQ_U64(s.itl.n, 8);
    NEAR_MS(s.itl.mean, 6.25);
    NEAR_MS(s.itl.p50, 4);
    NEAR_MS(s.itl.p90, 10);
    /* pooled content gaps: 10 10 10 20 */
    ASSERT_EQ_U64(s.chunk_gap.n, 4);
    NEAR_MS(s.chunk_gap.mean, 12.5);
    NEAR_MS(s.chunk_gap.p50, 10);
    NEAR_MS(s.chunk_gap.p99, 20);
    /* send lag: 1, 40, 1 -> p50 rank 2 = 1 */
    NEAR_MS(s.send_lag.p50, 1);
    NEAR_MS(s.send_lag.max, 40);
    /* tokens: 4 + 6 from usage; per chunk only a mean: 10 / 6 */
    ASSERT_EQ_U64(s.out_tokens, 10);
    ASSERT_EQ_I64(s.tokens_source, LLM_TOK_USAGE);
    ASSERT(!s.tokens_per_chunk_exact);
    ASSERT_NEAR(s.tokens_per_chunk.mean, 10.0 / 6, 1e-9);
    ASSERT_EQ_U64(s.osl_mismatch, 1);
    ASSERT_EQ_U64(s.usage_chunk_mismatch, 1);
    /* per-user rate: A 3 tok / 30 ms = 100/s, B 5 / 20 ms = 250/s */
    ASSERT_NEAR(s.out_tok_s_user.p50, 100, 1e-3);
    ASSERT_NEAR(s.out_tok_s_user.max, 250, 1e-3);
    /* duration: first t_sched 0 .. last t_end 271 ms */
    ASSERT_NEAR(s.duration_s, 0.271, 1e-12);
    ASSERT_NEAR(s.out_tok_s, 10 / 0.271, 1e-9);
    ASSERT_NEAR(s.req_s, 2 / 0.271, 1e-9);
    /* goodput: A meets ttft 101 <= 200 and tpot 10 <= 50; B fails ttft; C errored */
    ASSERT(s.has_slo);
    ASSERT_EQ_U64(s.good, 1);
    ASSERT_NEAR(s.goodput_fraction, 1.0 / 3, 1e-12);
    ASSERT_NEAR(s.goodput_rps, 1 / 0.271, 1e-9);
    llm_metrics_fini(&m);
}

TEST(llm_metrics_vllm_view)
{
    struct llm_metrics m;
    llm_metrics_init(&m);
    add_three(&m);
    struct llm_summary s;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_VLLM, NULL, &s));
    /* TTFT: first choices message - send: A 99 (the empty role chunk counts), B 200. numpy:
     * p50 = 99 + 0.5 * 101, p90 = 99 + 0.9 * 101 */
    NEAR_MS(s.ttft.p50, 149.5);
    NEAR_MS(s.ttft.p90, 189.9);
    /* E2EL: last choices message - send: A 130, B 220 */
    NEAR_MS(s.e2e.mean, 175);
    /* TPOT: (E2EL - TTFT)/(n - 1): A 31/3, B 20/5 */
    ASSERT_NEAR(s.tpot.max, 31e6 / 3, 1);
    NEAR_MS(s.tpot.p50 - (31e6 / 3 - 4e6) * 0.5, 4);
    /* ITL: pooled gaps between choices messages: 1 10 10 10 20 */
    ASSERT_EQ_U64(s.itl.n, 5);
    NEAR_MS(s.itl.mean, 10.2);
    NEAR_MS(s.itl.p50, 10);
    NEAR_MS(s.itl.p90, 16);
    ASSERT(!s.has_slo);
    ASSERT_NEAR(s.duration_s, 0.271, 1e-12);
    llm_metrics_fini(&m);
}

TEST(llm_metrics_genai_perf_view)
{
    struct llm_metrics m;
    llm_metrics_init(&m);
    add_three(&m);
    struct llm_slo slo;
    const char *why;
    ASSERT_RC(llm_slo_parse("ttft<=100ms", &slo, &why));
    struct llm_summary s;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_GENAI_PERF, &slo, &s));
    /* TTFT r[0] - t0: A 99, B 200; request latency r[last] - t0: A 130.5, B 220 */
    NEAR_MS(s.ttft.mean, 149.5);
    NEAR_MS(s.e2e.p50, 130.5 + 0.5 * (220 - 130.5));
    /* ITL = (E2E - TTFT)/(n - 1): A 31.5/3 = 10.5, B 4; ITL is also the TPOT */
    NEAR_MS(s.itl.max, 10.5);
    NEAR_MS(s.tpot.max, 10.5);
    /* duration: min send of successful (1) .. max last response (270) */
    ASSERT_NEAR(s.duration_s, 0.269, 1e-12);
    ASSERT_NEAR(s.req_s, 2 / 0.269, 1e-9);
    ASSERT_EQ_U64(s.good, 1); /* A: 99 <= 100 */
    llm_metrics_fini(&m);
}

TEST(llm_metrics_token_sources_and_no_tpot)
{
    struct llm_metrics m;
    llm_metrics_init(&m);
    static lat_ns ts[] = {100, 200, 300};
    static int32_t tok[] = {2, 3, 1};
    /* per-chunk cumulative usage: exact chunk sizes */
    struct llm_record a = rec_blank();
    a.t_sched = 0, a.t_send = 0, a.t_first = 100, a.t_last = 300, a.t_end = 310;
    a.n_content = 3, a.content_ts = ts, a.content_tok = tok, a.chunk_usage_every = true;
    a.chunk_usage_tokens = 6;
    ASSERT_RC(llm_metrics_add(&m, &a));
    /* no usage: chunk count, approximate; single token: no tpot */
    struct llm_record b = rec_blank();
    b.t_sched = 0, b.t_send = 0, b.t_first = b.t_last = 50, b.t_end = 60;
    b.n_content = 1, b.content_ts = ts;
    ASSERT_RC(llm_metrics_add(&m, &b));
    struct llm_summary s;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, NULL, &s));
    ASSERT_EQ_U64(s.src_count[LLM_TOK_CHUNK_USAGE], 1);
    ASSERT_EQ_U64(s.src_count[LLM_TOK_CHUNKS], 1);
    ASSERT_EQ_I64(s.tokens_source, LLM_TOK_CHUNKS); /* the weakest source is reported */
    ASSERT_EQ_U64(s.out_tokens, 7);
    ASSERT_EQ_U64(s.tpot.n, 1);
    ASSERT_EQ_U64(s.no_tpot, 1);       /* never a 0 sample */
    ASSERT_NEAR(s.tpot.p50, 40, 1e-9); /* (300 - 100)/5 */
    ASSERT(!s.tokens_per_chunk_exact); /* b's single chunk has only a mean */
    ASSERT_NEAR(s.tokens_per_chunk.mean, 7.0 / 4, 1e-9);
    llm_metrics_fini(&m);

    llm_metrics_init(&m);
    ASSERT_RC(llm_metrics_add(&m, &a));
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, NULL, &s));
    ASSERT(s.tokens_per_chunk_exact);
    ASSERT_NEAR(s.tokens_per_chunk.p50, 2, 0);
    ASSERT_NEAR(s.tokens_per_chunk.max, 3, 0);
    llm_metrics_fini(&m);
}

TEST(llm_metrics_merge_equals_single)
{
    struct llm_metrics a, b, all;
    llm_metrics_init(&a);
    llm_metrics_init(&b);
    llm_metrics_init(&all);
    add_three(&a);
    add_three(&b);
    add_three(&all);
    add_three(&all);
    ASSERT_RC(llm_metrics_merge(&a, &b));
    struct llm_summary s1, s2;
    ASSERT_RC(llm_metrics_summarize(&a, LLM_VIEW_LATSCOPE, NULL, &s1));
    ASSERT_RC(llm_metrics_summarize(&all, LLM_VIEW_LATSCOPE, NULL, &s2));
    ASSERT_EQ_U64(s1.requests, 6);
    ASSERT_NEAR(s1.itl.mean, s2.itl.mean, 0);
    ASSERT_NEAR(s1.chunk_gap.p99, s2.chunk_gap.p99, 0);
    ASSERT_EQ_U64(s1.out_tokens, s2.out_tokens);
    llm_metrics_fini(&a);
    llm_metrics_fini(&b);
    llm_metrics_fini(&all);
}

/* The LLM views use core/pctl.h's estimators (p in tenths there: 999 = p99.9). */
TEST(llm_percentile_estimators)
{
    int64_t v[20];
    for (int i = 0; i < 20; i++)
        v[i] = i + 1;
    ASSERT_EQ_I64(lat_pctl_i64(v, 10, 900 / 10.0), 9); /* ceil(0.9 * 10) = 9, exactly */
    ASSERT_EQ_I64(lat_pctl_i64(v, 10, 500 / 10.0), 5);
    ASSERT_EQ_I64(lat_pctl_i64(v, 10, 999 / 10.0), 10);
    ASSERT_EQ_I64(lat_pctl_i64(v, 20, 950 / 10.0), 19);
    ASSERT_EQ_I64(lat_pctl_i64(v, 1, 10 / 10.0), 1);
    ASSERT_NEAR(lat_quantile_linear_i64(v, 10, 900 / 1000.0), 9.1, 1e-12); /* 1 + 0.9 * 9 */
    ASSERT_NEAR(lat_quantile_linear_i64(v, 10, 500 / 1000.0), 5.5, 1e-12);
    ASSERT_NEAR(lat_quantile_linear_i64(v, 1, 990 / 1000.0), 1, 0);
}

TEST(llm_slo_parsing)
{
    struct llm_slo s;
    const char *why = NULL;
    ASSERT_RC(llm_slo_parse("ttft<=500ms,tpot<=50ms", &s, &why));
    ASSERT_EQ_I64(s.ttft_ns, 500 * LAT_NS_PER_MS);
    ASSERT_EQ_I64(s.tpot_ns, 50 * LAT_NS_PER_MS);
    ASSERT_EQ_I64(s.e2e_ns, -1);
    ASSERT_RC(llm_slo_parse("p99_ttft<=2s, e2el<1000", &s, &why));
    ASSERT_EQ_I64(s.ttft_ns, 2 * LAT_NS_PER_S);
    ASSERT_NEAR(s.ttft_pct, 99, 0);
    ASSERT_EQ_I64(s.e2e_ns, 1000 * LAT_NS_PER_MS); /* bare numbers are ms, as in vLLM */
    ASSERT_EQ_I64(llm_slo_parse("foo<=1ms", &s, &why), LAT_E_USAGE);
    ASSERT(strstr(why, "ttft"));
    ASSERT_EQ_I64(llm_slo_parse("ttft>=1ms", &s, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(llm_slo_parse("ttft<=abc", &s, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(llm_slo_parse("", &s, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(llm_slo_parse("pX_ttft<=1ms", &s, &why), LAT_E_USAGE);
}

TEST(llm_summary_json_and_text)
{
    struct llm_metrics m;
    llm_metrics_init(&m);
    add_three(&m);
    struct llm_summary s;
    ASSERT_RC(llm_metrics_summarize(&m, LLM_VIEW_LATSCOPE, NULL, &s));
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_obj_begin(&w);
    llm_summary_write_json(&w, &s);
    jsonw_obj_end(&w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT(lj_valid(w.buf.data, w.buf.len));
    ASSERT(strstr(w.buf.data, "\"ttft_ms\":{\"mean\":170.500000,\"p50\":101.000000"));
    ASSERT(strstr(w.buf.data, "\"goodput_fraction\":null"));
    ASSERT(strstr(w.buf.data, "\"tokens_source\":\"usage\""));
    ASSERT(strstr(w.buf.data, "\"p99.9\":"));
    jsonw_fini(&w);
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(llm_summary_format_text(&b, &s));
    ASSERT(strstr(b.data, "ttft"));
    ASSERT(strstr(b.data, "error_event 1"));
    buf_fini(&b);
    llm_metrics_fini(&m);
}

/* ---- chunk parsing ---- */

static struct llm_chunk parse_ok(const char *j)
{
    struct llm_chunk c;
    int rc = llm_chunk_parse(j, strlen(j), &c);
    if (rc) FAIL("parse of %s: %d", j, rc);
    return c;
}

TEST(llm_chunk_chat_and_completions)
{
    struct llm_chunk c = parse_ok("{\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                                  "\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}");
    ASSERT(c.has_choices && !c.content && !c.finish);
    c = parse_ok("{\"choices\":[{\"delta\":{\"content\":\"He\\\"llo \\u00e9\"}}],\"usage\":null}");
    ASSERT(c.content);
    ASSERT_EQ_I64(c.completion_tokens, -1);
    c = parse_ok("{\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}");
    ASSERT(c.content && c.reasoning);
    c = parse_ok("{\"choices\":[{\"text\":\" the\",\"finish_reason\":\"length\"}]}");
    ASSERT(c.content && c.finish);
    ASSERT_EQ_U64(c.content_bytes, 4);
    c = parse_ok(" {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,"
                 "\"total_tokens\":46}} ");
    ASSERT(!c.has_choices && !c.content);
    ASSERT_EQ_I64(c.prompt_tokens, 12);
    ASSERT_EQ_I64(c.completion_tokens, 34);
    c = parse_ok("{\"error\":{\"message\":\"overloaded\",\"code\":503}}");
    ASSERT(c.error);
    c = parse_ok("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}],"
                 "\"usage\":{\"completion_tokens\":1}}");
    ASSERT(c.content);
    ASSERT_EQ_I64(c.completion_tokens, 1);
}

/* Server token events (issue 17 item 4): content events, empty ones included, but not the
 * role announcement nor an empty finish chunk. */
TEST(llm_chunk_token_events)
{
    struct llm_chunk c = parse_ok("{\"choices\":[{\"delta\":{\"role\":\"assistant\","
                                  "\"content\":\"\"},\"finish_reason\":null}]}");
    ASSERT(!c.token_event);
    c = parse_ok("{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":null}}]}");
    ASSERT(!c.token_event);
    c = parse_ok("{\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":null}]}");
    ASSERT(c.token_event && !c.content);
    c = parse_ok("{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}");
    ASSERT(c.token_event && c.content);
    c = parse_ok("{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}");
    ASSERT(!c.token_event && c.finish);
    c = parse_ok("{\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}");
    ASSERT(!c.token_event);
    c = parse_ok("{\"choices\":[{\"text\":\"\",\"finish_reason\":null}]}");
    ASSERT(c.token_event && !c.content);
    c = parse_ok("{\"choices\":[{\"text\":\"x\",\"finish_reason\":\"length\"}]}");
    ASSERT(c.token_event);
    c = parse_ok("{\"choices\":[],\"usage\":{\"completion_tokens\":3}}");
    ASSERT(!c.token_event);
}

/* llama.cpp's native stream: events as llama-server (llama.cpp 1d1ccce, the one vendored by
 * llama-cpp-python 0.2.90) sent them at /v1/completions on 2026-12-02, shortened by hand. */
TEST(llm_chunk_llama_native)
{
    struct llm_chunk c =
        parse_ok("{\"content\":\" his\",\"stop\":false,\"id_slot\":0,\"multimodal\":false}");
    ASSERT(c.has_choices && c.content && c.token_event && !c.finish);
    ASSERT_EQ_U64(c.content_bytes, 4);
    ASSERT_EQ_I64(c.completion_tokens, -1);
    c = parse_ok("{\"content\":\"\",\"stop\":false}"); /* a token without text */
    ASSERT(c.token_event && !c.content && !c.finish);
    c = parse_ok("{\"content\":\"\",\"id_slot\":0,\"stop\":true,\"model\":\"tiny\","
                 "\"tokens_predicted\":3,\"tokens_evaluated\":5,\"generation_settings\":"
                 "{\"n_ctx\":256,\"stop\":[]},\"stopped_limit\":true,\"timings\":"
                 "{\"predicted_n\":3}}");
    ASSERT(c.has_choices && c.finish && !c.content && !c.token_event);
    ASSERT_EQ_I64(c.completion_tokens, 3);
    ASSERT_EQ_I64(c.prompt_tokens, 5);
    /* not the dialect: "stop" without a content string, or a string "stop" */
    c = parse_ok("{\"stop\":true,\"tokens_predicted\":3}");
    ASSERT(!c.has_choices && c.completion_tokens == -1);
    c = parse_ok("{\"content\":\"x\",\"stop\":\"yes\"}");
    ASSERT(!c.has_choices && !c.content);
    /* OpenAI members win: choices present, a top-level stop is ignored */
    c = parse_ok("{\"choices\":[{\"text\":\"a\"}],\"content\":\"\",\"stop\":true}");
    ASSERT(c.content && !c.finish);
}

TEST(llm_chunk_malformed)
{
    const char *bad[] = {"",           "{",          "{\"choices\":[}", "[1,2]", "{\"a\":tru}",
                         "{\"a\":1,}", "{\"a\":01}", "{\"a\":\"\\x\"}", "{} {}", "{\"a\":\"\x01\"}",
                         "{\"a\":-}",  "{\"a\":1.}", "{\"a\":1e}",      "nul",   "{'a':1}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct llm_chunk c;
        if (llm_chunk_parse(bad[i], strlen(bad[i]), &c) != LAT_E_BAD_JSON)
            FAIL("accepted malformed %s", bad[i]);
    }
    /* depth limit */
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    ASSERT(!lj_valid(deep, 200));
    ASSERT(lj_valid(deep + 40, 120)); /* 60 deep is fine */
}
