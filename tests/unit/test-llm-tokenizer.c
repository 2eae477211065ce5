/* test-llm-tokenizer.c - the tokenizer.json reader (src/llm/tokenizer.c) on hand-made files; the
 * comparison with Hugging Face `tokenizers` itself is t518. */
#include "test.h"

#include "core/err.h"
#include "llm/tokenizer.h"

#include <stdlib.h>
#include <string.h>

/* "Ġ" is U+0120, the byte-level character of the space byte. */
#define TJ(pre, model_extra, merges)                                                               \
    "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":7,\"content\":\"<s>\",\"special\":true}],"     \
    "\"normalizer\":null,\"pre_tokenizer\":" pre ",\"model\":{\"type\":\"BPE\"" model_extra        \
    ",\"vocab\":{\"a\":0,\"b\":1,\"c\":2,\"\\u0120\":3,\"ab\":4,\"abc\":5,\"\\u0120a\":6,"         \
    "\"<s>\":7,\"\\u0120abc\":8},\"merges\":" merges "}}"

static int64_t enc(const struct llm_tokenizer *t, const char *s, int32_t *ids, size_t max)
{
    struct lat_buf b = LAT_BUF_INIT;
    int64_t n = -1;
    if (llm_tokenizer_encode(t, s, strlen(s), &b, &n)) return -1;
    for (int64_t i = 0; i < n && (size_t)i < max; i++)
        memcpy(&ids[i], b.data + 4 * i, 4);
    buf_fini(&b);
    return n;
}

TEST(llm_tokenizer_bpe_ranks_and_added_tokens)
{
    static const char doc[] = TJ("{\"type\":\"ByteLevel\",\"add_prefix_space\":false}", "",
                                 "[\"a b\",\"ab c\",\"\\u0120 a\"]");
    char why[256];
    struct llm_tokenizer *t;
    ASSERT_RC(llm_tokenizer_load_mem(doc, strlen(doc), "hand.json", &t, why, sizeof(why)));
    ASSERT_EQ_U64(llm_tokenizer_merges(t), 3);
    ASSERT_EQ_U64(llm_tokenizer_vocab_size(t), 9);
    int32_t ids[16];
    /* " abc": (a,b) has rank 0 and goes first although (Ġ,a) is leftmost: Ġ ab c -> Ġ abc */
    ASSERT_EQ_I64(enc(t, "abc abc", ids, 16), 3);
    ASSERT_EQ_I64(ids[0], 5);
    ASSERT_EQ_I64(ids[1], 3);
    ASSERT_EQ_I64(ids[2], 5);
    /* a byte the vocabulary lacks (no unk_token) is dropped, as tokenizers does */
    ASSERT_EQ_I64(enc(t, "d", ids, 16), 0);
    /* the added token is cut out before pre-tokenization */
    ASSERT_EQ_I64(enc(t, "<s>ab", ids, 16), 2);
    ASSERT_EQ_I64(ids[0], 7);
    ASSERT_EQ_I64(ids[1], 4);
    int64_t n;
    ASSERT_RC(llm_tokenizer_count(t, "", 0, &n));
    ASSERT_EQ_I64(n, 0);
    llm_tokenizer_free(t);
}

TEST(llm_tokenizer_ignore_merges_and_pair_merges)
{
    /* merges as pairs (tokenizers >= 0.20); ignore_merges takes a piece the vocab has whole */
    static const char doc[] = TJ("{\"type\":\"ByteLevel\",\"add_prefix_space\":true}",
                                 ",\"ignore_merges\":true", "[[\"a\",\"b\"]]");
    char why[256];
    struct llm_tokenizer *t;
    ASSERT_RC(llm_tokenizer_load_mem(doc, strlen(doc), "hand.json", &t, why, sizeof(why)));
    int32_t ids[16];
    /* add_prefix_space: "abc" is " abc" = Ġabc, in the vocab: one token without any merge */
    ASSERT_EQ_I64(enc(t, "abc", ids, 16), 1);
    ASSERT_EQ_I64(ids[0], 8);
    /* "abcc" is not in the vocab: Ġ a b c c -> (a,b) -> Ġ ab c c */
    ASSERT_EQ_I64(enc(t, " abcc", ids, 16), 4);
    ASSERT_EQ_I64(ids[1], 4);
    llm_tokenizer_free(t);
}

TEST(llm_tokenizer_refuses_what_it_cannot_count)
{
    char why[256];
    struct llm_tokenizer *t;
    static const char metaspace[] = TJ("{\"type\":\"Metaspace\",\"replacement\":\"x\"}", "", "[]");
    ASSERT_EQ_I64(
        llm_tokenizer_load_mem(metaspace, strlen(metaspace), "m.json", &t, why, sizeof(why)),
        LAT_E_UNSUPPORTED);
    ASSERT(strstr(why, "m.json: pre_tokenizer Metaspace is not supported"));
    static const char badmerge[] = TJ("{\"type\":\"ByteLevel\"}", "", "[\"a c\"]");
    ASSERT_EQ_I64(
        llm_tokenizer_load_mem(badmerge, strlen(badmerge), "b.json", &t, why, sizeof(why)),
        LAT_E_BAD_JSON);
    ASSERT(strstr(why, "\"ac\" is not in the vocab"));
    static const char split[] =
        TJ("{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\","
           "\"pattern\":{\"Regex\":\"\\\\w+\"},\"behavior\":\"Isolated\","
           "\"invert\":false},{\"type\":\"ByteLevel\",\"use_regex\":false}]}",
           "", "[]");
    ASSERT_EQ_I64(llm_tokenizer_load_mem(split, strlen(split), "s.json", &t, why, sizeof(why)),
                  LAT_E_UNSUPPORTED);
    ASSERT(strstr(why, "neither the GPT-2 nor the Llama-3 pattern"));
    ASSERT(llm_tokenizer_load_mem("[1,2]", 5, "x.json", &t, why, sizeof(why)) < 0);
    ASSERT(strstr(why, "not a Hugging Face tokenizer.json"));
    ASSERT(llm_tokenizer_load_mem("{", 1, "x.json", &t, why, sizeof(why)) < 0);
    ASSERT(strstr(why, "not valid JSON"));
}

TEST(llm_tokenizer_long_piece_is_fast)
{
    /* 200000 spaces are one \s+ piece: the heap keeps the merge loop O(n log n) */
    static const char doc[] =
        "{\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":"
        "\"BPE\",\"vocab\":{\"\\u0120\":0,\"\\u0120\\u0120\":1},\"merges\":[\"\\u0120 \\u0120\"]}}";
    char why[256];
    struct llm_tokenizer *t;
    ASSERT_RC(llm_tokenizer_load_mem(doc, strlen(doc), "sp.json", &t, why, sizeof(why)));
    size_t n = 200000;
    char *s = malloc(n);
    ASSERT(s);
    memset(s, ' ', n);
    int64_t cnt;
    ASSERT_RC(llm_tokenizer_count(t, s, n, &cnt));
    ASSERT_EQ_I64(cnt, 100000);
    free(s);
    llm_tokenizer_free(t);
}

/* ---- prompts sized to N tokens (llm/workload.c with a counter) ---- */

#include "core/jsonw.h"
#include "fixture/openai.h"
#include "llm/tokenize.h"
#include "llm/workload.h"
#include "json/tok.h"

static unsigned test_byte_cp(unsigned b)
{
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) return b;
    unsigned n = 0;
    for (unsigned x = 0; x < b; x++)
        if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255))) n++;
    return 256 + n;
}

/* A byte-level vocabulary of the 256 byte characters (ids 0..255) plus the merges that make
 * " the" and " of" single tokens: every other word is one token per byte. */
static void byte_vocab_doc(struct lat_buf *d)
{
    buf_puts(d,
             "{\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":"
             "\"BPE\",\"vocab\":{");
    for (unsigned b = 0; b < 256; b++)
        buf_printf(d, "%s\"\\u%04x\":%u", b ? "," : "", test_byte_cp(b), b);
    buf_puts(d, ",\"\\u0120t\":256,\"\\u0120th\":257,\"\\u0120the\":258,\"\\u0120o\":259,"
                "\"\\u0120of\":260},\"merges\":[\"\\u0120 t\",\"\\u0120t h\",\"\\u0120th e\","
                "\"\\u0120 o\",\"\\u0120o f\"]}}");
}

TEST(llm_workload_prompts_sized_exactly_by_the_tokenizer)
{
    struct lat_buf doc = LAT_BUF_INIT, body = LAT_BUF_INIT, txt = LAT_BUF_INIT;
    byte_vocab_doc(&doc);
    char why[256];
    struct llm_tokenizer *t;
    ASSERT_RC(llm_tokenizer_load_mem(doc.data, doc.len, "bytes.json", &t, why, sizeof(why)));
    int64_t n;
    ASSERT_RC(llm_tokenizer_count(t, " the of", 7, &n));
    ASSERT_EQ_I64(n, 2);
    ASSERT_RC(llm_tokenizer_count(t, "the", 3, &n));
    ASSERT_EQ_I64(n, 3);
    struct llm_tokcount tc = {.tk = t};
    for (int api = 0; api < 2; api++)
        for (int32_t want = 1; want <= 40; want += 3) {
            struct llm_workload_cfg cfg = {.api = api ? LLM_API_CHAT : LLM_API_COMPLETIONS,
                                           .input = {want, 0},
                                           .output = {-1, 0},
                                           .counter = &tc,
                                           .seed = 7};
            struct llm_workload *w;
            ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
            for (uint64_t idx = 0; idx < 20; idx++) {
                int32_t mt, pt;
                body.len = txt.len = 0;
                ASSERT_RC(llm_workload_body_ex(w, idx, &body, &mt, &pt));
                ASSERT_RC(
                    json_get_str(body.data, body.len, api ? "messages/0/content" : "prompt", &txt));
                ASSERT_RC(llm_tokenizer_count(t, txt.data, txt.len, &n));
                /* the reported count is the text's; it is N whenever a first word fits (" the"
                 * and " of" fill any remainder); N = 1 fits no word ("of" is 2 tokens here):
                 * one word, never an empty prompt */
                ASSERT_EQ_I64(n, pt);
                if (want >= 2) ASSERT_EQ_I64(pt, want);
                if (want == 1) ASSERT_EQ_I64(pt, 2);
            }
            llm_workload_free(w);
        }
    llm_tokenizer_free(t);
    buf_fini(&doc);
    buf_fini(&body);
    buf_fini(&txt);
}

TEST(llm_fixture_tokenization_is_the_documented_rule)
{
    ASSERT_EQ_I64(fx_openai_tok_count(" tok tok tok", 12), 3);
    ASSERT_EQ_I64(fx_openai_tok_count("people", 6), 2);  /* ceil(6/4) */
    ASSERT_EQ_I64(fx_openai_tok_count(" people", 7), 2); /* ceil(7/4) */
    ASSERT_EQ_I64(fx_openai_tok_count("a,b", 3), 3);
    ASSERT_EQ_I64(fx_openai_tok_count("  x", 3), 2); /* " " then " x" */
    ASSERT_EQ_I64(fx_openai_tok_count("", 0), 0);
}
