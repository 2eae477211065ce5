/* test-sessions.c - --sessions files (ShareGPT, AIPerf multi_turn), the history of a session,
 * Mooncake hash-id prompts and the fixture's prefix cache (issue 17, multi-turn). */
#include "test.h"

#include "bench/sessions.h"
#include "core/buf.h"
#include "core/err.h"
#include "fixture/prefix.h"
#include "llm/chunk.h"
#include "llm/replay.h"
#include "llm/sessions.h"
#include "llm/workload.h"

#include <stdlib.h>
#include <string.h>

static int parse(struct llm_sessions *S, const char *s, char *why, size_t whylen)
{
    return llm_sessions_parse(S, s, strlen(s), "c.jsonl", why, whylen);
}

static const char *const sharegpt =
    "{\"id\":\"a\",\"conversations\":[{\"from\":\"system\",\"value\":\"Be brief.\"},"
    "{\"from\":\"human\",\"value\":\"Hi \\\"you\\\"\"},{\"from\":\"gpt\",\"value\":\"Hello.\"},"
    "{\"from\":\"human\",\"value\":\"Sky?\"},{\"from\":\"gpt\",\"value\":\"Blue.\"},"
    "{\"from\":\"human\",\"value\":\"Why?\"}]}\n";

TEST(sessions_parse_sharegpt)
{
    struct llm_sessions S;
    char why[512];
    ASSERT_RC(parse(&S, sharegpt, why, sizeof(why)));
    ASSERT_EQ_U64(S.n, 1);
    ASSERT_EQ_U64(S.nt, 3);
    ASSERT_EQ_U64(S.s[0].n, 3);
    ASSERT_EQ_U64(S.max_turns, 3);
    ASSERT(S.any_reply);
    ASSERT_MEM_EQ(S.arena + S.s[0].sys_off, "\"Be brief.\"", S.s[0].sys_len);
    ASSERT_MEM_EQ(S.arena + S.t[0].user_off, "\"Hi \\\"you\\\"\"", S.t[0].user_len);
    ASSERT_MEM_EQ(S.arena + S.t[1].reply_off, "\"Blue.\"", S.t[1].reply_len);
    ASSERT_EQ_U64(S.t[2].reply_len, 0); /* the last human turn has no reply */
    ASSERT_EQ_I64(S.t[0].delay_ms, -1);
    ASSERT_EQ_I64(S.t[0].max_tokens, -1);
    llm_sessions_fini(&S);
}

TEST(sessions_parse_aiperf)
{
    const char *s = "\n{\"session_id\":\"s1\",\"turns\":[{\"text\":\"one\",\"max_tokens\":7},"
                    "{\"text\":\"two\",\"delay\":250.4},{\"messages\":[{\"role\":\"user\","
                    "\"content\":\"three\"}],\"output_length\":3,\"delay\":0}]}\n"
                    "{\"session_id\":\"s2\",\"turns\":[{\"text\":\"only\"}]}";
    struct llm_sessions S;
    char why[512];
    ASSERT_RC(parse(&S, s, why, sizeof(why)));
    ASSERT_EQ_U64(S.n, 2);
    ASSERT_EQ_U64(S.s[0].line, 2);
    ASSERT_EQ_U64(S.s[1].first, 3);
    ASSERT_EQ_I64(S.t[0].max_tokens, 7);
    ASSERT_EQ_I64(S.t[1].delay_ms, 250);
    ASSERT_EQ_I64(S.t[2].delay_ms, 0);
    ASSERT_EQ_I64(S.t[2].max_tokens, 3);
    ASSERT(S.t[2].messages);
    ASSERT(!S.any_reply);
    llm_sessions_fini(&S);
}

static void bad(const char *in, const char *want)
{
    struct llm_sessions S;
    char why[512];
    int rc = parse(&S, in, why, sizeof(why));
    if (rc == 0) {
        fprintf(stderr, "accepted: %s\n", in);
        abort();
    }
    if (!strstr(why, want)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", why, want);
        abort();
    }
    if (S.n || S.s || S.t || S.arena) abort();
}

TEST(sessions_bad_lines_name_file_line_and_fix)
{
    bad("{\"conversations\":[{\"from\":\"human\",\"value\":\"a\"}]}\nnot json\n",
        "c.jsonl:2: not a JSON object");
    bad("{\"conversations\":[{\"from\":\"gpt\",\"value\":\"a\"}]}",
        "c.jsonl:1: conversations[0]: a gpt message before any human message");
    bad("{\"conversations\":[{\"from\":\"human\",\"value\":\"a\"},{\"from\":\"gpt\",\"value\":"
        "\"b\"},{\"from\":\"gpt\",\"value\":\"c\"}]}",
        "two gpt messages in a row");
    bad("{\"conversations\":[{\"from\":\"robot\",\"value\":\"a\"}]}", "unknown \"from\" \"robot\"");
    bad("{\"conversations\":[{\"from\":\"human\",\"value\":3}]}", "needs \"value\": \"text\"");
    bad("{\"conversations\":[{\"from\":\"system\",\"value\":\"s\"}]}", "no human message");
    bad("{\"turns\":[]}", "\"turns\" is empty");
    bad("{\"turns\":[{\"delay\":5}]}", "turns[0] has no input");
    bad("{\"turns\":[{\"text\":\"a\",\"delay\":-1}]}", "\"delay\" must be a number of ms");
    bad("{\"turns\":[{\"text\":\"a\",\"max_tokens\":0}]}", "\"max_tokens\" must be an integer");
    bad("{\"prompt\":\"x\"}", "needs \"conversations\"");
    bad("\n\n", "no conversations");
}

TEST(sessions_history_server_and_dataset)
{
    struct llm_sessions S;
    char why[512];
    ASSERT_RC(parse(&S, sharegpt, why, sizeof(why)));
    const struct llm_session *s = &S.s[0];
    struct lat_buf h = LAT_BUF_INIT, m = LAT_BUF_INIT, d = LAT_BUF_INIT;
    ASSERT_RC(llm_sess_history_start(&S, s, &h));
    ASSERT_RC(llm_sess_messages(&S, s, 0, &h, &m));
    ASSERT_EQ_STR(m.data, "[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\","
                          "\"content\":\"Hi \\\"you\\\"\"}]");
    /* the server's streamed text, raw escapes as llm_stream keeps them */
    const char *reply = " tok\\u0041 \\\"q\\\"";
    ASSERT_RC(llm_sess_history_add(&S, s, 0, reply, strlen(reply), &h));
    buf_reset(&m);
    ASSERT_RC(llm_sess_messages(&S, s, 1, &h, &m));
    ASSERT_EQ_STR(m.data, "[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\","
                          "\"content\":\"Hi \\\"you\\\"\"},{\"role\":\"assistant\",\"content\":"
                          "\" tokA \\\"q\\\"\"},{\"role\":\"user\",\"content\":\"Sky?\"}]");
    ASSERT(lj_valid(m.data, m.len));
    /* bytes that do not decode leave the history as it was */
    size_t before = h.len;
    ASSERT_EQ_I64(llm_sess_history_add(&S, s, 1, "\\x", 2, &h), LAT_E_BAD_JSON);
    ASSERT_EQ_U64(h.len, before);
    /* --history dataset: the gpt messages */
    ASSERT_RC(llm_sess_history_start(&S, s, &d));
    ASSERT_RC(llm_sess_history_add(&S, s, 0, NULL, 0, &d));
    ASSERT_RC(llm_sess_history_add(&S, s, 1, NULL, 0, &d));
    buf_reset(&m);
    ASSERT_RC(llm_sess_messages(&S, s, 2, &d, &m));
    ASSERT(strstr(m.data, "{\"role\":\"assistant\",\"content\":\"Hello.\"},{\"role\":\"user\","
                          "\"content\":\"Sky?\"},{\"role\":\"assistant\",\"content\":\"Blue.\"},"
                          "{\"role\":\"user\",\"content\":\"Why?\"}]") != NULL);
    buf_fini(&h);
    buf_fini(&m);
    buf_fini(&d);
    llm_sessions_fini(&S);
}

TEST(sessions_history_aiperf_messages_turn)
{
    const char *s = "{\"turns\":[{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},"
                    "{\"role\":\"user\",\"content\":\"U\"}]},{\"text\":\"again\"}]}";
    struct llm_sessions S;
    char why[512];
    ASSERT_RC(parse(&S, s, why, sizeof(why)));
    struct lat_buf h = LAT_BUF_INIT, m = LAT_BUF_INIT;
    ASSERT_RC(llm_sess_history_start(&S, &S.s[0], &h));
    ASSERT_RC(llm_sess_history_add(&S, &S.s[0], 0, "ok", 2, &h));
    ASSERT_RC(llm_sess_messages(&S, &S.s[0], 1, &h, &m));
    ASSERT_EQ_STR(m.data, "[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":"
                          "\"U\"},{\"role\":\"assistant\",\"content\":\"ok\"},{\"role\":\"user\","
                          "\"content\":\"again\"}]");
    buf_fini(&h);
    buf_fini(&m);
    llm_sessions_fini(&S);
}

TEST(sessions_think_and_history_options)
{
    lat_ns m, sd;
    ASSERT_RC(bench_sess_parse_think("500ms:100ms", &m, &sd));
    ASSERT_EQ_I64(m, 500 * LAT_NS_PER_MS);
    ASSERT_EQ_I64(sd, 100 * LAT_NS_PER_MS);
    ASSERT_RC(bench_sess_parse_think("2", &m, &sd));
    ASSERT_EQ_I64(m, 2 * LAT_NS_PER_MS);
    ASSERT_EQ_I64(sd, 0);
    ASSERT(bench_sess_parse_think("x", &m, &sd) != 0);
    ASSERT(bench_sess_parse_think("1s:", &m, &sd) != 0);
    enum llm_sess_history h;
    ASSERT_RC(bench_sess_parse_history("dataset", &h));
    ASSERT_EQ_I64(h, LLM_SESS_HISTORY_DATASET);
    ASSERT(bench_sess_parse_history("both", &h) != 0);
}

TEST(sessions_stats_turn_rows)
{
    struct llm_sess_stats a, b;
    ASSERT_RC(llm_sess_stats_init(&a));
    ASSERT_RC(llm_sess_stats_init(&b));
    llm_sess_stats_turn(&a, 0, true, 10 * LAT_NS_PER_MS, 20 * LAT_NS_PER_MS, 100);
    llm_sess_stats_turn(&a, 1, true, 4 * LAT_NS_PER_MS, 15 * LAT_NS_PER_MS, 150);
    llm_sess_stats_turn(&b, 9, true, 2 * LAT_NS_PER_MS, 11 * LAT_NS_PER_MS, -1);
    llm_sess_stats_turn(&b, 1, false, -1, -1, -1);
    ASSERT_RC(llm_sess_stats_add(&a, &b));
    ASSERT_EQ_U64(a.row[0].n, 1);
    ASSERT_EQ_U64(a.row[1].n, 2);
    ASSERT_EQ_U64(a.row[1].ok, 1);
    ASSERT_EQ_U64(a.turns_beyond, 1);
    const struct llm_sess_row *later = &a.row[LLM_SESS_SHOW_TURNS];
    ASSERT_EQ_U64(later->n, 3);
    ASSERT_EQ_U64(later->ok, 2);
    ASSERT_EQ_U64(hist_count(&later->ttft), 2);
    ASSERT_NEAR(later->isl_sum / (double)later->isl_n, 150, 1e-9);
    llm_sess_stats_fini(&a);
    llm_sess_stats_fini(&b);
}

/* ---- Mooncake hash ids ---- */

static int pieces(const char *s, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == ' ';
    return k;
}

TEST(mooncake_blocks_are_deterministic_per_hash_id)
{
    const char *tr = "{\"timestamp\":0,\"input_length\":40,\"hash_ids\":[11,12,13]}\n"
                     "{\"timestamp\":5,\"input_length\":48,\"hash_ids\":[11,12,14]}\n"
                     "{\"timestamp\":9,\"hash_ids\":[12]}\n"
                     "{\"timestamp\":9,\"input_length\":2,\"hash_ids\":[]}\n"
                     "{\"timestamp\":9,\"input_length\":3}\n";
    struct llm_replay r;
    char why[256];
    ASSERT_RC(llm_replay_parse(&r, tr, strlen(tr), "m.jsonl", why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 5);
    ASSERT_EQ_U64(r.e[0].nhash, 3);
    ASSERT_EQ_U64(r.e[3].nhash, 0);
    r.block_size = 16;
    struct lat_buf a = LAT_BUF_INIT, b = LAT_BUF_INIT, c = LAT_BUF_INIT, d = LAT_BUF_INIT;
    ASSERT_RC(llm_mooncake_prompt(&a, &r, &r.e[0], 7));
    ASSERT_RC(llm_mooncake_prompt(&b, &r, &r.e[1], 7));
    ASSERT_RC(llm_mooncake_prompt(&c, &r, &r.e[2], 7));
    ASSERT_RC(llm_mooncake_prompt(&d, &r, &r.e[0], 8));
    ASSERT(lj_valid(a.data, a.len) && lj_valid(b.data, b.len));
    ASSERT_EQ_I64(pieces(a.data, a.len), 40); /* 16 + 16 + 8 */
    ASSERT_EQ_I64(pieces(b.data, b.len), 48);
    ASSERT_EQ_I64(pieces(c.data, c.len), 16);
    /* block boundaries: the 33rd piece starts the third block */
    size_t cut = 0;
    for (int k = 0; k < 33; cut++)
        if (a.data[cut] == ' ' && ++k == 33) break;
    ASSERT_MEM_EQ(a.data, b.data, cut);           /* ids 11, 12 shared: identical bytes */
    ASSERT(memcmp(a.data, b.data, cut + 8) != 0); /* 13 vs 14 differ (8 words) */
    /* block 12 alone is the second block's text */
    size_t b1 = 0;
    for (int k = 0; k < 17; b1++)
        if (a.data[b1] == ' ' && ++k == 17) break;
    ASSERT_MEM_EQ(c.data + 1, a.data + b1, c.len - 2);
    ASSERT(a.len != d.len || memcmp(a.data, d.data, a.len) != 0); /* another seed */
    /* a request body carries it; lines without hash_ids keep synthetic prompts */
    struct llm_workload_cfg cfg = {.api = LLM_API_COMPLETIONS,
                                   .stream = true,
                                   .replay = &r,
                                   .input = {-1, 0},
                                   .output = {-1, 0},
                                   .seed = 7};
    struct llm_workload *w;
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    struct lat_buf body = LAT_BUF_INIT;
    int32_t mt;
    ASSERT_RC(llm_workload_body(w, 0, &body, &mt));
    ASSERT(strstr(body.data, a.data) != NULL);
    buf_reset(&body);
    ASSERT_RC(llm_workload_body(w, 4, &body, &mt));
    ASSERT(strstr(body.data, "\"prompt\":\"") != NULL);
    llm_workload_free(w);
    buf_fini(&body);
    buf_fini(&a);
    buf_fini(&b);
    buf_fini(&c);
    buf_fini(&d);
    llm_replay_fini(&r);
}

TEST(mooncake_bad_hash_ids)
{
    const char *bads[] = {"{\"timestamp\":0,\"hash_ids\":3}",
                          "{\"timestamp\":0,\"hash_ids\":[1,-2]}",
                          "{\"timestamp\":0,\"hash_ids\":[1,\"a\"]}"};
    for (size_t i = 0; i < 3; i++) {
        struct llm_replay r;
        char why[256];
        ASSERT(llm_replay_parse(&r, bads[i], strlen(bads[i]), "m.jsonl", why, sizeof(why)) != 0);
        ASSERT(strstr(why, "m.jsonl:1: \"hash_ids\" must be an array") != NULL);
    }
}

/* The fixture's prefix cache hits exactly the blocks a Mooncake trace shares. */
TEST(fixture_prefix_cache_hits_mooncake_blocks)
{
    const char *tr = "{\"timestamp\":0,\"input_length\":40,\"hash_ids\":[1,2,3]}\n"
                     "{\"timestamp\":1,\"input_length\":40,\"hash_ids\":[1,2,4]}\n"
                     "{\"timestamp\":2,\"input_length\":40,\"hash_ids\":[5,2,3]}\n"
                     "{\"timestamp\":3,\"input_length\":40,\"hash_ids\":[1,2,3]}\n";
    struct llm_replay r;
    char why[256];
    ASSERT_RC(llm_replay_parse(&r, tr, strlen(tr), "m.jsonl", why, sizeof(why)));
    r.block_size = 16;
    static const int64_t want[] = {0, 32, 0, 32}; /* the last: block 3 was only partial */
    for (int chat = 0; chat < 2; chat++) {
        struct fx_prefix p;
        ASSERT_RC(fx_prefix_init(&p, 16, 0));
        for (size_t i = 0; i < r.n; i++) {
            struct lat_buf pr = LAT_BUF_INIT, msgs = LAT_BUF_INIT;
            ASSERT_RC(llm_mooncake_prompt(&pr, &r, &r.e[i], 3));
            buf_puts(&msgs, "[{\"role\":\"user\",\"content\":");
            buf_append(&msgs, pr.data, pr.len);
            buf_puts(&msgs, "}]");
            const struct lat_buf *v = chat ? &msgs : &pr;
            uint64_t *keys;
            size_t nk;
            int64_t ptok;
            ASSERT_RC(fx_prefix_keys(&p, v->data, v->data + v->len, chat, 0, &keys, &nk, &ptok));
            ASSERT_EQ_I64(ptok, 40 + chat);
            ASSERT_EQ_I64(fx_prefix_use(&p, keys, nk, ptok), want[i]);
            free(keys);
            buf_fini(&pr);
            buf_fini(&msgs);
        }
        ASSERT_EQ_U64(p.queries, 160 + 4 * chat);
        ASSERT_EQ_U64(p.hits, 64);
        fx_prefix_fini(&p);
    }
    llm_replay_fini(&r);
}

/* Turn 2 of a chat hits turn 1's prompt and the reply as streamed (" tok" x n). */
TEST(fixture_prefix_cache_multi_turn)
{
    struct fx_prefix p;
    ASSERT_RC(fx_prefix_init(&p, 4, 0));
    const char *t1 = "[{\"role\":\"user\",\"content\":\"a b c d e f g\"}]";
    const char *t2 = "[{\"role\":\"user\",\"content\":\"a b c d e f g\"},{\"role\":\"assistant\","
                     "\"content\":\" tok tok tok tok tok tok tok tok\"},{\"role\":\"user\","
                     "\"content\":\"h\"}]";
    const char *t2d =
        "[{\"role\":\"user\",\"content\":\"a b c d e f g\"},{\"role\":\"assistant\","
        "\"content\":\"other words here now\"},{\"role\":\"user\",\"content\":\"h\"}]";
    uint64_t *k;
    size_t nk;
    int64_t pt;
    ASSERT_RC(fx_prefix_keys(&p, t1, t1 + strlen(t1), true, 8, &k, &nk, &pt));
    ASSERT_EQ_I64(pt, 8); /* role + 7 words */
    ASSERT_EQ_U64(nk, 4); /* 8 + assistant role + 8 toks = 17 tokens: 4 full blocks */
    ASSERT_EQ_I64(fx_prefix_use(&p, k, nk, pt), 0);
    free(k);
    ASSERT_RC(fx_prefix_keys(&p, t2d, t2d + strlen(t2d), true, 8, &k, &nk, &pt));
    ASSERT_EQ_I64(fx_prefix_use(&p, k, nk, pt), 8); /* only the first turn's blocks */
    free(k);
    ASSERT_RC(fx_prefix_keys(&p, t2, t2 + strlen(t2), true, 8, &k, &nk, &pt));
    ASSERT_EQ_I64(pt, 19);
    ASSERT_EQ_I64(fx_prefix_use(&p, k, nk, pt), 16); /* prompt + streamed reply */
    free(k);
    fx_prefix_fini(&p);
}
