/*
 * chunk.h - what latscope needs from one OpenAI streaming event (the JSON of an SSE `data:`
 * frame) or a non-streaming response body, plus the small JSON helpers the llm module uses.
 *
 * The JSON is validated completely (RFC 8259 grammar, depth-limited) and only a few members are
 * read: choices[0].delta.content / .reasoning_content (chat), choices[0].text (completions),
 * choices[0].finish_reason, usage.prompt_tokens / usage.completion_tokens, and `error`. Strings
 * are never unescaped: "non-empty" is decided on the raw text, and sizes are raw bytes.
 */
#ifndef LAT_LLM_CHUNK_H
#define LAT_LLM_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LJ_MAX_DEPTH 64

struct llm_chunk {
    bool has_choices; /* "choices" is a non-empty array */
    bool content;     /* choices[0] carries non-empty text/content/reasoning_content */
    bool reasoning;   /* ... and it was reasoning_content */
    bool finish;      /* choices[0].finish_reason is a non-null value */
    /* choices[0] carries a content/text/reasoning_content string, empty ones included (a
     * token whose text is "" or a partial UTF-8 sequence, as llama-cpp-python sends), but not
     * the role announcement (delta.role) nor an empty finish chunk: one server token event */
    bool token_event;
    bool error;                /* a top-level "error" member (an error event) */
    size_t content_bytes;      /* raw (escaped) bytes of the content string */
    const char *content_raw;   /* those bytes (inside the quotes, escapes as sent), or NULL */
    int64_t prompt_tokens;     /* usage.prompt_tokens, -1 when absent/null */
    int64_t completion_tokens; /* usage.completion_tokens, -1 when absent/null */
};

/* Parses one event's JSON. Returns 0, or LAT_E_BAD_JSON (malformed, or not an object). */
int llm_chunk_parse(const char *json, size_t len, struct llm_chunk *c);

/*
 * JSON helpers over raw text (no allocation). A "value span" is [b, e) of one JSON value.
 * lj_value_end returns the end of the value starting at p (after leading whitespace is skipped
 * by the caller through lj_ws), or NULL when it is malformed or nests deeper than LJ_MAX_DEPTH.
 */
const char *lj_ws(const char *p, const char *end);
const char *lj_value_end(const char *p, const char *end, int depth);
/* Finds member `key` (compared to the raw key text) of the object at [b, e). 1 found (span in
 * *vb and *ve), 0 absent, -1 not an object or malformed. */
int lj_obj_get(const char *b, const char *e, const char *key, const char **vb, const char **ve);
/* First element of the array at [b, e): 1 found, 0 empty, -1 not an array. */
int lj_arr_first(const char *b, const char *e, const char **vb, const char **ve);
/* Reads an integer value (no fraction/exponent); 0 or -1. */
int lj_int(const char *b, const char *e, int64_t *out);
/* True when [b, e) is a JSON string with at least one character. */
bool lj_str_nonempty(const char *b, const char *e);
/* Validates a whole document: exactly one value, surrounded by whitespace only. */
bool lj_valid(const char *p, size_t n);

#endif
