/*
 * replay.h - `bench --target openai --replay FILE.jsonl`: a request trace with send times.
 *
 * One JSON object per line (blank lines skipped), in send order:
 *   time    "timestamp" (ms, as in the Mooncake traces) | "timestamp_ms" | "timestamp_s";
 *           a number >= 0, non-decreasing down the file; offsets are taken from the first line
 *   input   "prompt": "text" | "messages": [...] (chat), or a length "input_length" (Mooncake)
 *           | "input_tokens" for a seeded synthetic prompt of that many tokens
 *   output  optional "output_length" (Mooncake) | "output_tokens" | "max_tokens" (>= 1)
 *   blocks  optional "hash_ids": [h0, h1, ...] (Mooncake): with "input_length" (or alone) the
 *           prompt is built block by block, block i being block_size tokens of text seeded by
 *           h_i (the last one shorter when input_length says so), so two lines that share hash
 *           ids share byte-identical prompt prefixes, as in the traced service's prefix cache
 *           (llm_mooncake_prompt); a "prompt"/"messages" line ignores them
 * Other members are ignored. Example:
 *   {"timestamp": 0, "input_length": 512, "output_length": 64}
 *   {"timestamp": 120, "prompt": "Why is the sky blue?", "output_tokens": 32}
 * The Azure LLM inference trace CSV (TIMESTAMP,ContextTokens,GeneratedTokens) is read into the
 * same structure by llm/azure.h; llm_replay_load_n() tells the two apart.
 */
#ifndef LAT_LLM_REPLAY_H
#define LAT_LLM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

#define LLM_REPLAY_MAX_LINES 10000000

/* Default cap on a bench input file: --prompts, --replay, -d @FILE, --input NAME:..:@FILE
 * (bytes; bench --max-input-size overrides). */
#define LLM_MAX_INPUT_BYTES ((size_t)256 * 1000 * 1000)

struct llm_replay_entry {
    int32_t input_tokens;      /* synthetic prompt length, -1 when the line gives a prompt */
    int32_t output_tokens;     /* max_tokens, -1 when absent */
    bool messages;             /* json is a chat messages array (else a prompt string) */
    size_t json_off, json_len; /* the prompt's raw JSON value in arena (len 0: none) */
    size_t hash_off;           /* Mooncake "hash_ids": hash[hash_off .. hash_off + nhash) */
    uint32_t nhash;
};

struct llm_replay {
    struct llm_replay_entry *e;
    lat_ns *offsets; /* intended send time of line k, ns after the first line's */
    size_t n;
    char *arena; /* prompt JSON values */
    size_t arena_len;
    uint64_t *hash; /* every line's "hash_ids", one after the other */
    size_t nhash_all;
    int32_t block_size; /* tokens per hash id (bench --block-size; 0: LLM_MOONCAKE_BLOCK) */
};

#define LLM_MOONCAKE_BLOCK      512     /* the Mooncake traces' block size (tokens) */
#define LLM_MOONCAKE_MAX_HASHES 1000000 /* per line */

/* Appends the JSON string of e's prompt (e->nhash > 0): for each hash id h_i, block_size
 * tokens (the last block fewer when e->input_tokens says so) of " word" pieces drawn from a
 * seeded generator of (seed, h_i): equal ids give byte-identical blocks, so equal id prefixes
 * give equal prompt prefixes. Each piece is one token in common BPE vocabularies and in the
 * fixture's tokenization. 0 or -ENOMEM. */
struct lat_buf;
int llm_mooncake_prompt(struct lat_buf *out, const struct llm_replay *r,
                        const struct llm_replay_entry *e, uint64_t seed);

/*
 * Parses a whole trace held in [data, data + len); name prefixes messages ("FILE:LINE: ...").
 * Returns 0, -ENOMEM, or LAT_E_BAD_JSON / LAT_E_USAGE with why naming the line and the
 * problem. On error *r is left empty. Free with llm_replay_fini.
 */
int llm_replay_parse(struct llm_replay *r, const char *data, size_t len, const char *name,
                     char *why, size_t whylen);
/* The same, keeping only the first limit requests when limit > 0 (later lines are not read). */
int llm_replay_parse_n(struct llm_replay *r, const char *data, size_t len, const char *name,
                       size_t limit, char *why, size_t whylen);
/* Reads and parses path (as above; -errno when it cannot be read). */
int llm_replay_load(struct llm_replay *r, const char *path, char *why, size_t whylen);
/* Reads path, JSON lines or an Azure LLM inference trace CSV (llm/azure.h: chosen by its
 * header, a line naming a TIMESTAMP column), keeping the first limit requests (0: all). */
int llm_replay_load_n(struct llm_replay *r, const char *path, size_t limit, char *why,
                      size_t whylen);
/* The same, refusing a file larger than max_bytes (0: LLM_MAX_INPUT_BYTES) with
 * LAT_E_OVERFLOW, read bounded (a /dev/zero stops there). */
int llm_replay_load_capped(struct llm_replay *r, const char *path, size_t limit, size_t max_bytes,
                           char *why, size_t whylen);
void llm_replay_fini(struct llm_replay *r);

#endif
