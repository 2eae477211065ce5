/*
 * workload.h - what an OpenAI-compatible server is asked: request bodies for /v1/completions
 * and /v1/chat/completions, from synthetic prompts (no tokenizer) or a JSONL prompt file.
 *
 * Every body is a pure function of (seed, request index): any thread can build request i and
 * two runs with the same seed send the same prompts and lengths.
 */
#ifndef LAT_LLM_WORKLOAD_H
#define LAT_LLM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "llm/replay.h"
#include "llm/tokenize.h"

enum llm_api { LLM_API_COMPLETIONS = 0, LLM_API_CHAT };

/* N[:stddev] token counts; mean < 0 = not set. */
struct llm_len {
    int32_t mean;
    int32_t stddev;
};

struct llm_workload_cfg {
    enum llm_api api;
    const char *model;        /* "model" member; NULL = omitted */
    bool stream;              /* "stream": true (default) */
    bool include_usage;       /* stream_options.include_usage (default true) */
    bool continuous_usage;    /* stream_options.continuous_usage_stats (vLLM) */
    bool ignore_eos;          /* with an output length: ignore_eos + min_tokens (vLLM, SGLang) */
    struct llm_len input;     /* --input-tokens (synthetic prompts) */
    struct llm_len output;    /* --output-tokens: max_tokens */
    const char *prompts_path; /* --prompts FILE.jsonl, or NULL */
    const char *extra_body;   /* --extra-body '{"temperature":0}' (a JSON object), or NULL;
                               * its members replace generated ones of the same name */
    size_t max_input_bytes;   /* --prompts larger than this is refused (0: 256 MB) */
    /* --replay: request i takes line i's prompt (or a synthetic one of its input length) and
     * output length; --input-tokens/--output-tokens fill in what a line lacks. Not owned. */
    const struct llm_replay *replay;
    uint64_t seed;
    /* --tokenizer / --tokenize-url: synthetic prompts are sized to exactly N tokens of this
     * counter, and every prompt's token count is known (llm_workload_body_ex). Not owned. */
    const struct llm_tokcount *counter;
};

struct llm_prompt {
    char *json; /* the raw JSON value: a string (prompt) or an array (messages) */
    size_t len;
    bool messages;      /* json is a chat messages array */
    int32_t max_tokens; /* per-line "max_tokens"/"output_tokens", -1 when absent */
};

struct llm_workload {
    struct llm_workload_cfg cfg;
    struct llm_prompt *prompts;
    size_t nprompts;
    char *extra; /* members of extra_body without the braces, or NULL */
    size_t extra_len;
    /* LLM_OV_* bits: members of extra_body that replace the generated ones (one key once). */
    unsigned extra_over;
    /* With cfg.counter: tokens of " word" (index i) and of "word" at the start (NWORDS + i)
     * for the synthetic word list; tokens of each prompt file line and replay line (-1: the
     * line has no prompt of its own). */
    int32_t *word_tok;
    int32_t *prompt_tok, *replay_tok;
    uint64_t counted; /* texts the counter was asked about at setup */
};

/* Parses "N" or "N:stddev" (N >= 1, stddev >= 0). 0 or LAT_E_USAGE. */
int llm_len_parse(const char *s, struct llm_len *out);
/*
 * Validates cfg, loads the prompt file and the extra body. Returns 0, -errno (file), or
 * LAT_E_USAGE / LAT_E_BAD_JSON with a message in why[0..whylen) naming what is wrong
 * (file:line for prompt files). Free with llm_workload_free.
 */
int llm_workload_new(const struct llm_workload_cfg *cfg, struct llm_workload **out, char *why,
                     size_t whylen);
void llm_workload_free(struct llm_workload *w);
/* The endpoint path for the API: "/v1/completions" or "/v1/chat/completions". */
const char *llm_api_path(enum llm_api api);
/*
 * Appends request idx's JSON body to out. *max_tokens receives the max_tokens sent (-1 when
 * none). 0 or -ENOMEM.
 */
int llm_workload_body(const struct llm_workload *w, uint64_t idx, struct lat_buf *out,
                      int32_t *max_tokens);
/* The same; *prompt_tokens gets the prompt's tokens by cfg.counter (-1 without one). */
int llm_workload_body_ex(const struct llm_workload *w, uint64_t idx, struct lat_buf *out,
                         int32_t *max_tokens, int32_t *prompt_tokens);
/* The same with the caller's chat messages array msgs (raw JSON, e.g. a --sessions turn with its
 * history) as the prompt; mt > 0 replaces max_tokens. 0 or -ENOMEM. */
int llm_workload_body_msgs(const struct llm_workload *w, uint64_t idx, const char *msgs, size_t len,
                           int32_t mt, struct lat_buf *out, int32_t *max_tokens);
/* The tokens (by cfg.counter) of a prompt given as its raw JSON value: a string, or a chat
 * messages array (the sum over every message's "content" string: the chat template's own
 * tokens are not counted). 0 or an error with why filled. */
int llm_prompt_tokens(const struct llm_tokcount *c, const char *json, size_t len, bool messages,
                      int64_t *count, char *why, size_t whylen);
/* True when every body with a max_tokens also sends min_tokens = max_tokens (ignore_eos on and
 * --extra-body does not replace min_tokens): the server was asked for exactly that length. */
bool llm_workload_demands_length(const struct llm_workload *w);
/* Appends a synthetic prompt of about `tokens` tokens (words drawn with rng state *st). */
int llm_synth_prompt(struct lat_buf *out, int32_t tokens, uint64_t *st);

#endif
