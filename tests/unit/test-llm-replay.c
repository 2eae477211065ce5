/* test-llm-replay.c - the --replay trace parser and the bodies it gives. */
#include "test.h"

#include "core/buf.h"
#include "core/err.h"
#include "llm/replay.h"
#include "llm/workload.h"

#include <string.h>

static int parse(struct llm_replay *r, const char *s, char *why, size_t whylen)
{
    return llm_replay_parse(r, s, strlen(s), "t.jsonl", why, whylen);
}

TEST(llm_replay_mooncake_and_prompt_lines)
{
    const char *s =
        "{\"timestamp\": 1000, \"input_length\": 12, \"output_length\": 5, "
        "\"hash_ids\": [1, 2]}\n"
        "\n"
        "{\"timestamp\": 1120.5, \"prompt\": \"Why?\", \"output_tokens\": 32}\r\n"
        "{\"timestamp\": 1120.5, \"messages\": [{\"role\":\"user\",\"content\":\"hi\"}]}\n"
        "  {\"timestamp\": 4000, \"input_tokens\": 3, \"max_tokens\": 7}";
    struct llm_replay r;
    char why[256];
    ASSERT_RC(parse(&r, s, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 4);
    ASSERT_EQ_I64(r.offsets[0], 0);
    ASSERT_EQ_I64(r.offsets[1], 120500000);
    ASSERT_EQ_I64(r.offsets[2], 120500000);
    ASSERT_EQ_I64(r.offsets[3], 3000000000LL);
    ASSERT_EQ_I64(r.e[0].input_tokens, 12);
    ASSERT_EQ_I64(r.e[0].output_tokens, 5);
    ASSERT_EQ_U64(r.e[0].json_len, 0);
    ASSERT_EQ_I64(r.e[1].input_tokens, -1);
    ASSERT_EQ_I64(r.e[1].output_tokens, 32);
    ASSERT(!r.e[1].messages);
    ASSERT_MEM_EQ(r.arena + r.e[1].json_off, "\"Why?\"", 6);
    ASSERT_EQ_U64(r.e[1].json_len, 6);
    ASSERT(r.e[2].messages);
    ASSERT_EQ_I64(r.e[2].output_tokens, -1);
    ASSERT(r.arena[r.e[2].json_off] == '[');
    ASSERT(r.arena[r.e[2].json_off + r.e[2].json_len - 1] == ']');
    ASSERT_EQ_I64(r.e[3].input_tokens, 3);
    ASSERT_EQ_I64(r.e[3].output_tokens, 7);
    llm_replay_fini(&r);
}

TEST(llm_replay_time_units)
{
    struct llm_replay r;
    char why[256];
    ASSERT_RC(parse(&r,
                    "{\"timestamp_s\": 2.5, \"input_length\": 1}\n"
                    "{\"timestamp_s\": 2.75, \"input_length\": 1}\n",
                    why, sizeof(why)));
    ASSERT_EQ_I64(r.offsets[1], 250000000);
    llm_replay_fini(&r);
    ASSERT_RC(parse(&r,
                    "{\"timestamp_ms\": 7, \"input_length\": 1}\n"
                    "{\"timestamp_ms\": 9, \"input_length\": 1}\n",
                    why, sizeof(why)));
    ASSERT_EQ_I64(r.offsets[1], 2000000);
    llm_replay_fini(&r);
}

/* Each bad line is reported with its file name, line number and the problem. */
TEST(llm_replay_bad_lines_name_the_line)
{
    static const struct {
        const char *text, *want;
        int rc;
    } cases[] = {
        {"{\"timestamp\":0,\"input_length\":1}\nnot json\n", "t.jsonl:2: not a JSON object",
         LAT_E_BAD_JSON},
        {"{\"timestamp\":0,\"input_length\":1}\n[1,2]\n", "t.jsonl:2: not a JSON object",
         LAT_E_BAD_JSON},
        {"{\"timestamp\":0,\"input_length\":1\n", "t.jsonl:1: not a JSON object", LAT_E_BAD_JSON},
        {"\n\n{\"input_length\":1}\n", "t.jsonl:3: no send time", LAT_E_USAGE},
        {"{\"timestamp\":\"0\",\"input_length\":1}\n", "t.jsonl:1: \"timestamp\" must be a number",
         LAT_E_USAGE},
        {"{\"timestamp\":-5,\"input_length\":1}\n", "t.jsonl:1: \"timestamp\" must be a number",
         LAT_E_USAGE},
        {"{\"timestamp\":10,\"input_length\":1}\n{\"timestamp\":9,\"input_length\":1}\n",
         "t.jsonl:2: send time 9.000 ms is before the previous line's 10.000 ms", LAT_E_USAGE},
        {"{\"timestamp\":0}\n", "t.jsonl:1: no input", LAT_E_USAGE},
        {"{\"timestamp\":0,\"input_length\":0}\n", "t.jsonl:1: \"input_length\" must be an integer",
         LAT_E_USAGE},
        {"{\"timestamp\":0,\"input_length\":2.5}\n",
         "t.jsonl:1: \"input_length\" must be an integer", LAT_E_USAGE},
        {"{\"timestamp\":0,\"input_length\":4,\"output_length\":-1}\n",
         "t.jsonl:1: \"output_length\" must be an integer", LAT_E_USAGE},
        {"{\"timestamp\":0,\"prompt\":3}\n", "t.jsonl:1: \"prompt\" must be a string", LAT_E_USAGE},
        {"{\"timestamp\":0,\"messages\":{}}\n", "t.jsonl:1: \"messages\" must be an array",
         LAT_E_USAGE},
        {"\n  \n", "t.jsonl: no requests", LAT_E_USAGE},
        {"", "t.jsonl: no requests", LAT_E_USAGE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct llm_replay r;
        char why[256];
        int rc = parse(&r, cases[i].text, why, sizeof(why));
        if (rc != cases[i].rc || strncmp(why, cases[i].want, strlen(cases[i].want)) != 0) {
            fprintf(stderr, "case %zu: rc %d why '%s'\n", i, rc, why);
            ASSERT(0);
        }
        ASSERT(r.n == 0 && r.e == NULL && r.offsets == NULL);
    }
}

/* Request i gets line i's prompt or a synthetic prompt of its length, and its max_tokens. */
TEST(llm_replay_bodies_follow_the_lines)
{
    const char *s = "{\"timestamp\":0,\"input_length\":5,\"output_length\":9}\n"
                    "{\"timestamp\":1,\"prompt\":\"hello there\"}\n";
    struct llm_replay r;
    char why[256];
    ASSERT_RC(parse(&r, s, why, sizeof(why)));
    struct llm_workload_cfg cfg = {.api = LLM_API_COMPLETIONS,
                                   .stream = true,
                                   .input = {-1, 0},
                                   .output = {4, 0},
                                   .replay = &r,
                                   .seed = 3};
    struct llm_workload *w;
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    struct lat_buf b = LAT_BUF_INIT;
    int32_t mt;
    ASSERT_RC(llm_workload_body(w, 0, &b, &mt));
    ASSERT_EQ_I64(mt, 9);
    ASSERT(strstr(b.data, "\"max_tokens\":9"));
    /* a synthetic prompt of 5 words: 4 spaces inside the string */
    const char *p = strstr(b.data, "\"prompt\":\"");
    ASSERT(p);
    p += 10;
    int spaces = 0;
    for (; *p && *p != '"'; p++)
        spaces += *p == ' ';
    ASSERT_EQ_I64(spaces, 4);
    buf_reset(&b);
    ASSERT_RC(llm_workload_body(w, 1, &b, &mt));
    ASSERT_EQ_I64(mt, 4); /* the line has no output length: --output-tokens */
    ASSERT(strstr(b.data, "\"prompt\":\"hello there\""));
    /* same seed and index, same body */
    struct lat_buf b2 = LAT_BUF_INIT;
    buf_reset(&b);
    ASSERT_RC(llm_workload_body(w, 0, &b, &mt));
    ASSERT_RC(llm_workload_body(w, 0, &b2, &mt));
    ASSERT_EQ_U64(b.len, b2.len);
    ASSERT_MEM_EQ(b.data, b2.data, b.len);
    buf_fini(&b);
    buf_fini(&b2);
    llm_workload_free(w);
    /* chat messages need the chat API */
    llm_replay_fini(&r);
    ASSERT_RC(parse(&r, "{\"timestamp\":0,\"messages\":[]}\n", why, sizeof(why)));
    ASSERT(llm_workload_new(&cfg, &w, why, sizeof(why)) == LAT_E_USAGE);
    ASSERT(strstr(why, "need --api chat"));
    llm_replay_fini(&r);
}
