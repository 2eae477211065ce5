/*
 * replay.h - `bench --target openai --replay FILE.jsonl`: a request trace with send times.
 *
 * One JSON object per line (blank lines skipped), in send order:
 *   time    "timestamp" (ms, as in the Mooncake traces) | "timestamp_ms" | "timestamp_s";
 *           a number >= 0, non-decreasing down the file; offsets are taken from the first line
 *   input   "prompt": "text" | "messages": [...] (chat), or a length "input_length" (Mooncake)
 *           | "input_tokens" for a seeded synthetic prompt of that many tokens
 *   output  optional "output_length" (Mooncake) | "output_tokens" | "max_tokens" (>= 1)
 * Other members (e.g. Mooncake's "hash_ids") are ignored. Example:
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
};

struct llm_replay {
    struct llm_replay_entry *e;
    lat_ns *offsets; /* intended send time of line k, ns after the first line's */
    size_t n;
    char *arena; /* prompt JSON values */
    size_t arena_len;
};

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
