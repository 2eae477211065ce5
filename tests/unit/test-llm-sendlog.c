/*
 * test-llm-sendlog.c - the fixture's send log (which chunks count as sent, the JSON line) and
 * the client's response id (llm_stream_resp_id), the two halves perf/llm-itl-pair.py joins.
 */
#include "test.h"

#include "core/err.h"
#include "fixture/openai.h"
#include "llm/stream.h"

#define MS LAT_NS_PER_MS

static const char *req_compl(int max_tokens)
{
    static char b[256];
    snprintf(b, sizeof(b), "{\"prompt\":\"a b\",\"max_tokens\":%d,\"stream\":true}", max_tokens);
    return b;
}

/* Runs st to its end at exactly its due times (plus `late` ns), marking what each call emitted
 * as written from then for 500 ns. Returns the last fxo_next result. */
static enum fxo_next drive_marked(struct fx_openai_stream *st, lat_ns now, lat_ns late,
                                  lat_ns *send_ts)
{
    struct lat_buf out = LAT_BUF_INIT;
    enum fxo_next r;
    for (;;) {
        lat_ns due = 0;
        int c0 = st->chunk;
        buf_reset(&out);
        r = fx_openai_next(st, now, &out, &due);
        if (out.len) fx_openai_mark_sent(st, c0, now, now + 500, send_ts);
        if (r != FXO_NEXT_MORE) break;
        now = due + late;
    }
    buf_fini(&out);
    return r;
}

static lat_ns rec[64];

/* A fresh raw record for st; returns its send times. */
static lat_ns *begin(const struct fx_openai_stream *st)
{
    ASSERT(fx_openai_log_words(st) <= 64);
    return fx_openai_log_begin(st, rec);
}

/* The JSON line of the raw record of st. */
static const char *line_of(const struct fx_openai_stream *st)
{
    static struct lat_buf line = LAT_BUF_INIT;
    size_t w = fx_openai_log_words(st), used = 0;
    fx_openai_log_end(st, rec);
    buf_reset(&line);
    ASSERT_RC(fx_openai_log_format(rec, w, &used, &line));
    ASSERT_EQ_U64(used, w);
    return line.data;
}

TEST(fixture_send_log_line_exact)
{
    struct fx_openai fx;
    struct fx_openai_cfg cfg = {.prefill_ns = 5 * MS, .token_ns = 2 * MS, .tokens_per_chunk = 2};
    ASSERT_RC(fx_openai_init(&fx, &cfg));
    struct fx_openai_stream st;
    struct lat_buf err = LAT_BUF_INIT;
    const char *body = req_compl(5); /* chunks end at tokens 2, 4, 5: +7, +11, +13 ms */
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/completions", body, strlen(body), 0, &st, &err), 200);
    ASSERT_EQ_I64(st.n_chunks, 3);
    ASSERT_EQ_U64(fx_openai_log_words(&st), 12);
    lat_ns *ts = begin(&st);
    ASSERT_EQ_STR(line_of(&st), /* nothing sent yet */
                  "{\"id\":\"fx-0\",\"chunks\":3,\"complete\":false,"
                  "\"send_ns\":[null,null,null],\"late_ns\":[null,null,null],"
                  "\"write_ns\":[null,null,null]}\n");
    /* every chunk leaves 40 us after its planned time */
    ASSERT_EQ_I64(drive_marked(&st, 0, 40000, ts), FXO_NEXT_DONE);
    ASSERT_EQ_STR(line_of(&st), "{\"id\":\"fx-0\",\"chunks\":3,\"complete\":true,"
                                "\"send_ns\":[7040000,11040000,13040000],"
                                "\"late_ns\":[40000,40000,40000],\"write_ns\":[500,500,500]}\n");

    /* Two chunks emitted by one late call share that call's send time. */
    ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/completions", body, strlen(body), 0, &st, &err), 200);
    lat_ns *ts2 = begin(&st);
    struct lat_buf out = LAT_BUF_INIT;
    lat_ns due;
    ASSERT_EQ_I64(fx_openai_next(&st, 12 * MS, &out, &due), FXO_NEXT_MORE);
    fx_openai_mark_sent(&st, 0, 12 * MS, 12 * MS + 7, ts2);
    ASSERT_EQ_I64(ts2[0], 12 * MS);
    ASSERT_EQ_I64(ts2[1], 12 * MS);
    ASSERT_EQ_I64(ts2[2], -1);
    ASSERT_EQ_STR(line_of(&st), "{\"id\":\"fx-1\",\"chunks\":3,\"complete\":false,"
                                "\"send_ns\":[12000000,12000000,null],"
                                "\"late_ns\":[5000000,1000000,null],\"write_ns\":[7,7,null]}\n");
    buf_fini(&out);
    buf_fini(&err);
    fx_openai_fini(&fx);
}

TEST(fixture_send_log_faults_are_not_content)
{
    /* cut / error / malformed strike at chunk n_chunks/2 = 2 of 4: that chunk never counts as
     * sent content; a cut or an error event ends the stream there. */
    static const struct {
        enum fxo_fault f;
        const char *send;
    } cases[] = {
        {FXO_FAULT_CUT, "[1000000,2000000,null,null]"},
        {FXO_FAULT_ERROR, "[1000000,2000000,null,null]"},
        {FXO_FAULT_MALFORMED, "[1000000,2000000,null,4000000]"},
        {FXO_FAULT_NONE, "[1000000,2000000,3000000,4000000]"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct fx_openai fx;
        struct fx_openai_cfg cfg = {.prefill_ns = 1 * MS, .token_ns = 1 * MS};
        cfg.fault_p[cases[k].f] = cases[k].f ? 1.0 : 0;
        ASSERT_RC(fx_openai_init(&fx, &cfg));
        struct fx_openai_stream st;
        struct lat_buf err = LAT_BUF_INIT;
        const char *body = req_compl(4);
        ASSERT_EQ_I64(fx_openai_plan(&fx, "/v1/completions", body, strlen(body), 0, &st, &err),
                      200);
        enum fxo_next r = drive_marked(&st, 0, 0, begin(&st));
        ASSERT_EQ_I64(r, cases[k].f == FXO_FAULT_CUT ? FXO_NEXT_CUT : FXO_NEXT_DONE);
        const char *line = line_of(&st);
        char want[160];
        snprintf(want, sizeof(want), "\"send_ns\":%s", cases[k].send);
        if (!strstr(line, want)) {
            fprintf(stderr, "fault %d: %s lacks %s\n", (int)cases[k].f, line, want);
            ASSERT(0);
        }
        buf_fini(&err);
        fx_openai_fini(&fx);
    }
}

TEST(fixture_send_log_format_rejects_partial_records)
{
    lat_ns r[12] = {7, 3, 1, 10, -1, 30, 1, 0, 3, 4, 0, 6};
    struct lat_buf line = LAT_BUF_INIT;
    size_t w = 0;
    ASSERT_EQ_I64(fx_openai_log_format(r, 11, &w, &line), LAT_E_TRUNCATED);
    ASSERT_EQ_I64(fx_openai_log_format(r, 2, &w, &line), LAT_E_TRUNCATED);
    r[1] = -1;
    ASSERT_EQ_I64(fx_openai_log_format(r, 12, &w, &line), LAT_E_TRUNCATED);
    r[1] = 3;
    ASSERT_RC(fx_openai_log_format(r, 12, &w, &line));
    ASSERT_EQ_U64(w, 12);
    ASSERT_EQ_STR(line.data, "{\"id\":\"fx-7\",\"chunks\":3,\"complete\":true,"
                             "\"send_ns\":[10,null,30],\"late_ns\":[1,null,3],"
                             "\"write_ns\":[4,null,6]}\n");
    buf_fini(&line);

    /* Stopping a log that kept nothing writes nothing and loses nothing. */
    struct fx_openai fx;
    struct fx_openai_cfg cfg = {0};
    ASSERT_RC(fx_openai_init(&fx, &cfg));
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    ASSERT(f != NULL);
    fx_openai_send_log_start(&fx);
    ASSERT(fx.log_on);
    uint64_t lost = 99;
    ASSERT_RC(fx_openai_send_log_stop(&fx, f, &lost));
    ASSERT_EQ_U64(lost, 0);
    ASSERT(!fx.log_on);
    fclose(f);
    ASSERT_EQ_U64(len, 0);
    free(mem);
    fx_openai_fini(&fx);
}

static void feed(struct llm_stream *s, const char *p, lat_ns t)
{
    llm_stream_body(s, p, strlen(p), t);
}

TEST(llm_stream_keeps_response_id)
{
    struct llm_stream s;
    size_t n;
    llm_stream_init(&s, true);
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s,
         "data: { \"object\":\"x\", \"id\" : \"cmpl-a\\\"b\",\"choices\":[{\"text\":\"x\"}]}\n\n",
         5);
    feed(&s,
         "data: {\"id\":\"other\",\"choices\":[{\"text\":\"y\",\"finish_reason\":\"stop\"}]}\n\n",
         9);
    llm_stream_end(&s, 200, LLM_OK, 10);
    const char *id = llm_stream_resp_id(&s, &n);
    ASSERT_EQ_I64(n, 9); /* raw JSON text, escape kept: writable inside quotes as is */
    ASSERT_MEM_EQ(id, "cmpl-a\\\"b", 9);
    ASSERT_EQ_I64(s.rec.n_content, 2);

    /* The next request starts without one; no id, a non-string id, an empty or an over-long
     * one give none (never a truncated one). */
    static const char *const none[] = {
        "data: {\"choices\":[{\"text\":\"x\"}]}\n\n",
        "data: {\"id\":17,\"choices\":[{\"text\":\"x\"}]}\n\n",
        "data: {\"id\":\"\",\"choices\":[{\"text\":\"x\"}]}\n\n",
    };
    for (size_t k = 0; k < 3; k++) {
        llm_stream_begin(&s, 0, 0, -1);
        feed(&s, none[k], 1);
        llm_stream_resp_id(&s, &n);
        ASSERT_EQ_I64(n, 0);
    }
    char big[400];
    int o = snprintf(big, sizeof(big), "data: {\"id\":\"");
    for (int i = 0; i < LLM_RESP_ID_MAX; i++)
        big[o++] = 'a';
    snprintf(big + o, sizeof(big) - (size_t)o, "\",\"choices\":[{\"text\":\"x\"}]}\n\n");
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, big, 1);
    llm_stream_resp_id(&s, &n);
    ASSERT_EQ_I64(n, 0);
    ASSERT_EQ_I64(s.rec.n_content, 1);
    /* The first valid data event decides: an id only in a later event is not looked for. */
    llm_stream_begin(&s, 0, 0, -1);
    feed(&s, "data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: {\"id\":\"late\",\"choices\":[]}\n\n",
         1);
    llm_stream_resp_id(&s, &n);
    ASSERT_EQ_I64(n, 0);
    llm_stream_fini(&s);
}
