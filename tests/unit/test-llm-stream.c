/* test-llm-stream.c - OpenAI response -> llm_record: timing, token sources, error classes;
 * request bodies from synthetic prompts and JSONL files. */
#include "test.h"

#include "core/err.h"
#include "llm/chunk.h"
#include "llm/stream.h"
#include "llm/workload.h"

#include <math.h>

#define CHAT_ROLE   "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
#define CHAT_TOK(t) "data: {\"choices\":[{\"delta\":{\"content\":\"" t "\"}}]}\n\n"
#define CHAT_FIN    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
#define USAGE(n)                                                                                   \
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":" n "}}\n\n"
#define DONE "data: [DONE]\n\n"

static void feed(struct llm_stream *s, const char *p, lat_ns t)
{
    llm_stream_body(s, p, strlen(p), t);
}

TEST(llm_stream_chat_timing_and_usage)
{
    struct llm_stream s;
    llm_stream_init(&s, true);
    llm_stream_begin(&s, 10, 20, 3);
    feed(&s, CHAT_ROLE, 100);
    feed(&s, CHAT_TOK("a") ": keep-alive\n\n", 150);
    /* one event split across two reads: stamped with the second */
    feed(&s, "data: {\"choices\":[{\"delta\":{\"con", 160);
    feed(&s, "tent\":\"b\"}}]}\n\n" CHAT_TOK("c"), 170);
    feed(&s, CHAT_FIN USAGE("3") DONE, 180);
    llm_stream_end(&s, 200, LLM_OK, 181);
    const struct llm_record *r = &s.rec;
    ASSERT_EQ_I64(r->err, LLM_OK);
    ASSERT_EQ_I64(r->t_first_event, 100);
    ASSERT_EQ_I64(r->t_first_choice, 100);
    ASSERT_EQ_I64(r->t_first, 150);
    ASSERT_EQ_I64(r->t_last, 170);
    ASSERT_EQ_I64(r->t_last_choice, 180); /* the finish chunk has choices */
    ASSERT_EQ_I64(r->t_last_event, 180);  /* the usage chunk, not [DONE] */
    ASSERT_EQ_I64(r->n_content, 3);
    ASSERT_EQ_I64(r->content_ts[1], 170);
    ASSERT_EQ_I64(r->n_choice, 5);
    ASSERT_EQ_I64(r->usage_tokens, 3);
    ASSERT_EQ_I64(r->prompt_tokens, 5);
    ASSERT(!r->chunk_usage_every);
    enum llm_tok_src src;
    ASSERT_EQ_I64(llm_record_tokens(r, &src), 3);
    ASSERT_EQ_I64(src, LLM_TOK_USAGE);

    /* The storage is reused for the next request, and no usage means chunk counting. */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, "data: {\"choices\":[{\"text\":\"x\"}]}\r\n\r\n", 5);
    feed(&s, "data: {\"choices\":[{\"text\":\"y\",\"finish_reason\":\"stop\"}]}\r\n\r\n", 9);
    llm_stream_end(&s, 200, LLM_OK, 10); /* finish_reason, no [DONE]: complete */
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    ASSERT_EQ_I64(llm_record_tokens(&s.rec, &src), 2);
    ASSERT_EQ_I64(src, LLM_TOK_CHUNKS);
    llm_stream_fini(&s);
}

TEST(llm_stream_continuous_usage)
{
    struct llm_stream s;
    llm_stream_init(&s, true);
    llm_stream_begin(&s, 0, 0, 5);
    feed(&s,
         "data: {\"choices\":[{\"text\":\"ab\"}],\"usage\":{\"completion_tokens\":2}}\n\n"
         "data: {\"choices\":[{\"text\":\"cde\",\"finish_reason\":\"length\"}],"
         "\"usage\":{\"completion_tokens\":5}}\n\n"
         "data: {\"choices\":[],\"usage\":{\"completion_tokens\":5}}\n\n" DONE,
         7);
    llm_stream_end(&s, 200, LLM_OK, 8);
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    ASSERT(s.rec.chunk_usage_every);
    ASSERT_EQ_I64(s.rec.content_tok[0], 2);
    ASSERT_EQ_I64(s.rec.content_tok[1], 3);
    ASSERT_EQ_I64(s.rec.usage_tokens, 5);
    llm_stream_fini(&s);
}

TEST(llm_stream_error_classes)
{
    struct llm_stream s;
    llm_stream_init(&s, true);
    /* error event (typed) */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, CHAT_TOK("a") "event: error\ndata: {\"message\":\"boom\"}\n\n", 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_EVENT);
    ASSERT(strstr(llm_stream_error_text(&s), "boom"));
    /* error object in a data event */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, "data: {\"error\":{\"message\":\"overloaded\"}}\n\n" DONE, 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_EVENT);
    /* malformed JSON in an event: counted, the rest still read */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s,
         CHAT_TOK("a") "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}\n\n" CHAT_TOK("c") DONE,
         1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_MALFORMED);
    ASSERT_EQ_I64(s.rec.n_content, 2);
    /* stream cut mid-way: no [DONE], no finish_reason, partial event pending */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, CHAT_TOK("a") "data: {\"choi", 1);
    llm_stream_end(&s, 200, LLM_ERR_TRANSPORT, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_CUT);
    /* cut cleanly between events */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, CHAT_TOK("a"), 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_CUT);
    /* HTTP error before the stream */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, "{\"error\":{\"message\":\"model not found\"}}", 1);
    llm_stream_end(&s, 404, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_HTTP);
    ASSERT(strstr(llm_stream_error_text(&s), "model not found"));
    /* timeout wins over everything */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, CHAT_TOK("a"), 1);
    llm_stream_end(&s, 200, LLM_ERR_TIMEOUT, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_TIMEOUT);
    /* reset before any byte */
    llm_stream_begin(&s, 0, 0, -1);
    llm_stream_end(&s, 0, LLM_ERR_TRANSPORT, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_TRANSPORT);
    llm_stream_fini(&s);
}

/* issue 17 item 2: a stream that ends in order but incomplete is truncated, not ok. */
TEST(llm_stream_truncated)
{
    struct llm_stream s;
    llm_stream_init(&s, true);
    /* llama-cpp-python's interrupted stream: a token, [DONE], no finish_reason, then the
     * connection closes without the chunked terminator (the engine says reset) */
    llm_stream_begin(&s, 0, 0, 8);
    feed(&s, CHAT_ROLE CHAT_TOK("a") DONE, 1);
    llm_stream_end(&s, 200, LLM_ERR_TRANSPORT, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_TRUNCATED);
    /* the same with a clean end of the HTTP body */
    llm_stream_begin(&s, 0, 0, 8);
    feed(&s, CHAT_ROLE DONE, 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_TRUNCATED);
    /* complete stream, but the HTTP response did not end: the transport's class, never ok */
    llm_stream_begin(&s, 0, 0, 1);
    feed(&s, CHAT_TOK("a") CHAT_FIN USAGE("1") DONE, 1);
    llm_stream_end(&s, 200, LLM_ERR_TRANSPORT, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_TRANSPORT);
    /* min_tokens 4 demanded, usage says 2: truncated; without the demand: ok (OSL info) */
    llm_stream_begin(&s, 0, 0, 4);
    s.rec.min_tokens = 4;
    feed(&s, CHAT_TOK("a") CHAT_TOK("b") CHAT_FIN USAGE("2") DONE, 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_TRUNCATED);
    llm_stream_begin(&s, 0, 0, 4);
    feed(&s, CHAT_TOK("a") CHAT_TOK("b") CHAT_FIN USAGE("2") DONE, 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    /* exactly the demanded length: ok */
    llm_stream_begin(&s, 0, 0, 2);
    s.rec.min_tokens = 2;
    feed(&s, CHAT_TOK("a") CHAT_TOK("b") CHAT_FIN USAGE("2") DONE, 1);
    llm_stream_end(&s, 200, LLM_OK, 2);
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    llm_stream_fini(&s);
}

TEST(llm_stream_non_streaming)
{
    struct llm_stream s;
    llm_stream_init(&s, false);
    llm_stream_begin(&s, 0, 5, 16);
    feed(&s, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi there\"}}],", 40);
    feed(&s, "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":16}}", 50);
    llm_stream_end(&s, 200, LLM_OK, 51);
    ASSERT_EQ_I64(s.rec.err, LLM_OK);
    ASSERT_EQ_I64(s.rec.t_first, 51); /* TTFT = E2E without streaming */
    ASSERT_EQ_I64(s.rec.usage_tokens, 16);
    llm_stream_begin(&s, 0, 5, 16);
    feed(&s, "{\"choices\":[{\"message\":", 40);
    llm_stream_end(&s, 200, LLM_OK, 51);
    ASSERT_EQ_I64(s.rec.err, LLM_ERR_MALFORMED);
    llm_stream_fini(&s);
}

/* ---- workload ---- */

TEST(llm_workload_synthetic_bodies)
{
    struct llm_workload_cfg cfg = {
        .api = LLM_API_COMPLETIONS,
        .model = "m\"1",
        .stream = true,
        .include_usage = true,
        .ignore_eos = true,
        .input = {32, 0},
        .output = {100, 20},
        .seed = 7,
        .extra_body = " { \"temperature\": 0 } ",
    };
    struct llm_workload *w;
    char why[256];
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    struct lat_buf a = LAT_BUF_INIT, b = LAT_BUF_INIT;
    int32_t mt1, mt2;
    ASSERT_RC(llm_workload_body(w, 3, &a, &mt1));
    ASSERT_RC(llm_workload_body(w, 3, &b, &mt2));
    ASSERT_EQ_STR(a.data, b.data); /* a pure function of (seed, index) */
    ASSERT_EQ_I64(mt1, mt2);
    ASSERT(lj_valid(a.data, a.len));
    ASSERT(strstr(a.data, "\"model\":\"m\\\"1\""));
    ASSERT(strstr(a.data, "\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
    ASSERT(strstr(a.data, "\"ignore_eos\":true"));
    ASSERT(strstr(a.data, ",\"temperature\": 0}"));
    /* the prompt has exactly 32 words */
    const char *pb, *pe;
    ASSERT_EQ_I64(lj_obj_get(a.data, a.data + a.len, "prompt", &pb, &pe), 1);
    int spaces = 0;
    for (const char *q = pb; q < pe; q++)
        spaces += *q == ' ';
    ASSERT_EQ_I64(spaces, 31);
    /* output lengths: mean ~100, sd ~20 over many requests; different requests differ */
    double sum = 0, sq = 0;
    int n = 2000, differ = 0;
    for (int i = 0; i < n; i++) {
        buf_reset(&b);
        ASSERT_RC(llm_workload_body(w, (uint64_t)i, &b, &mt2));
        ASSERT(mt2 >= 1);
        sum += mt2, sq += (double)mt2 * mt2;
        if (i && strcmp(a.data, b.data)) differ++;
    }
    double mean = sum / n, sd = sqrt(sq / n - mean * mean);
    ASSERT_NEAR(mean, 100, 2);
    ASSERT_NEAR(sd, 20, 2);
    ASSERT(differ > n - 10);
    buf_fini(&a);
    buf_fini(&b);
    llm_workload_free(w);
}

TEST(llm_workload_chat_jsonl)
{
    const char *jsonl = "{\"prompt\": \"Hello \\\"world\\\"\", \"max_tokens\": 7}\n"
                        "\n"
                        "{\"messages\": [{\"role\":\"system\",\"content\":\"be brief\"},"
                        "{\"role\":\"user\",\"content\":\"hi\"}]}\n";
    const char *path = test_write_file("p.jsonl", jsonl, strlen(jsonl));
    char pbuf[512];
    snprintf(pbuf, sizeof(pbuf), "%s", path);
    struct llm_workload_cfg cfg = {.api = LLM_API_CHAT, .stream = true, .prompts_path = pbuf};
    struct llm_workload *w;
    char why[256];
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    ASSERT_EQ_U64(w->nprompts, 2);
    struct lat_buf b = LAT_BUF_INIT;
    int32_t mt;
    ASSERT_RC(llm_workload_body(w, 0, &b, &mt));
    ASSERT_EQ_I64(mt, 7);
    ASSERT(
        strstr(b.data, "\"messages\":[{\"role\":\"user\",\"content\":\"Hello \\\"world\\\"\"}]"));
    ASSERT(strstr(b.data, "\"stream\":true}")); /* no stream_options unless asked */
    buf_reset(&b);
    ASSERT_RC(llm_workload_body(w, 1, &b, &mt));
    ASSERT_EQ_I64(mt, -1);
    ASSERT(strstr(b.data, "\"content\":\"be brief\""));
    ASSERT(lj_valid(b.data, b.len));
    buf_fini(&b);
    llm_workload_free(w);

    /* errors name the file and line */
    const char *bad = "{\"prompt\":\"a\"}\n{\"text\":\"b\"}\n";
    path = test_write_file("bad.jsonl", bad, strlen(bad));
    snprintf(pbuf, sizeof(pbuf), "%s", path);
    ASSERT_EQ_I64(llm_workload_new(&cfg, &w, why, sizeof(why)), LAT_E_BAD_JSON);
    ASSERT(strstr(why, "bad.jsonl:2:"));
    cfg.api = LLM_API_COMPLETIONS;
    const char *chat = "{\"messages\":[]}\n";
    path = test_write_file("chat.jsonl", chat, strlen(chat));
    snprintf(pbuf, sizeof(pbuf), "%s", path);
    ASSERT_EQ_I64(llm_workload_new(&cfg, &w, why, sizeof(why)), LAT_E_USAGE);
    ASSERT(strstr(why, "--api chat"));
    cfg.prompts_path = NULL;
    ASSERT_EQ_I64(llm_workload_new(&cfg, &w, why, sizeof(why)), LAT_E_USAGE);
    cfg.input.mean = 4;
    cfg.extra_body = "[1]";
    ASSERT_EQ_I64(llm_workload_new(&cfg, &w, why, sizeof(why)), LAT_E_BAD_JSON);
}

TEST(llm_len_parsing)
{
    struct llm_len l;
    ASSERT_RC(llm_len_parse("128", &l));
    ASSERT_EQ_I64(l.mean, 128);
    ASSERT_EQ_I64(l.stddev, 0);
    ASSERT_RC(llm_len_parse("128:16", &l));
    ASSERT_EQ_I64(l.stddev, 16);
    ASSERT_EQ_I64(llm_len_parse("0", &l), LAT_E_USAGE);
    ASSERT_EQ_I64(llm_len_parse("12:", &l), LAT_E_USAGE);
    ASSERT_EQ_I64(llm_len_parse("x", &l), LAT_E_USAGE);
    ASSERT_EQ_I64(llm_len_parse("5:-1", &l), LAT_E_USAGE);
}
