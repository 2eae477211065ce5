/*
 * sessions.h - `bench --target openai --sessions FILE.jsonl`: multi-turn conversations.
 *
 * One conversation per line, in one of two shapes (docs/latscope-bench-llm.md, "Multi-turn
 * sessions"):
 *   ShareGPT   {"id": ..., "conversations": [{"from": "system"|"human"|"gpt", "value": "..."},
 * ...]}
 *              ("user"/"assistant" and "role"/"content" are accepted too); each human message is
 *              a turn, the gpt message after it is the dataset's reply (--history dataset)
 *   AIPerf     {"session_id": ..., "turns": [{"text": "..." | "messages": [...], "delay": ms,
 *              "max_tokens" | "output_length": N}, ...]} (AIPerf's multi_turn custom dataset)
 * A session is sent turn after turn by one virtual user; turn k's chat request carries the
 * session's history: the earlier user turns and the assistant replies (the server's streamed
 * content, or the dataset's with LLM_SESS_HISTORY_DATASET).
 *
 * The parser and the history builder are pure functions of their input; llm_sess_user is one
 * virtual user's state (one per connection, used by one thread); llm_sess_stats is one thread's
 * per-turn counters, merged after the workers joined.
 */
#ifndef LAT_LLM_SESSIONS_H
#define LAT_LLM_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/clock.h"
#include "hist/hist.h"

#define LLM_SESS_MAX_SESSIONS 10000000
#define LLM_SESS_MAX_TURNS    10000 /* per session */
#define LLM_SESS_SHOW_TURNS   8     /* turns reported one by one (later ones: "later") */

struct llm_sess_turn {
    size_t user_off, user_len;   /* raw JSON in arena: a string, or an array with messages */
    bool messages;               /* user is an array of chat messages (AIPerf "messages") */
    size_t reply_off, reply_len; /* the dataset's reply (a JSON string) in arena; len 0: none */
    int32_t delay_ms;            /* think time before this turn from the file, -1 none */
    int32_t max_tokens;          /* -1 none */
};

struct llm_session {
    size_t first, n;         /* its turns: t[first .. first + n) */
    size_t sys_off, sys_len; /* system message (a JSON string) in arena; len 0: none */
    unsigned long line;      /* line number in the file */
};

struct llm_sessions {
    struct llm_session *s;
    size_t n;
    struct llm_sess_turn *t;
    size_t nt;
    char *arena;
    size_t arena_len;
    size_t max_turns; /* longest session */
    bool any_reply;   /* some turn has a dataset reply */
};

/* Parses [data, data + len); name prefixes messages ("FILE:LINE: ..."). 0, -ENOMEM, or
 * LAT_E_BAD_JSON / LAT_E_USAGE with why naming the line, what is wrong and what to do. On error
 * *S is empty. */
int llm_sessions_parse(struct llm_sessions *S, const char *data, size_t len, const char *name,
                       char *why, size_t whylen);
/* Reads and parses path; a file larger than max_bytes (0: LLM_MAX_INPUT_BYTES) is refused with
 * LAT_E_OVERFLOW. */
int llm_sessions_load(struct llm_sessions *S, const char *path, size_t max_bytes, char *why,
                      size_t whylen);
void llm_sessions_fini(struct llm_sessions *S);

/* The history of a session: message objects, comma-separated, without the brackets. */
/* Starts a session's history (its system message, if any). 0 or -ENOMEM. */
int llm_sess_history_start(const struct llm_sessions *S, const struct llm_session *s,
                           struct lat_buf *hist);
/* Appends to out the messages array of turn k (0-based) of s: "[" history, the turn's user
 * message(s) "]". 0 or -ENOMEM. */
int llm_sess_messages(const struct llm_sessions *S, const struct llm_session *s, size_t k,
                      const struct lat_buf *hist, struct lat_buf *out);
/* After turn k was answered: appends its user message(s) and the assistant reply to hist. The
 * reply is reply_raw (JSON string text without the quotes, as llm_stream keeps it; NULL: the
 * dataset's reply, "" when the file has none). 0, -ENOMEM, or LAT_E_BAD_JSON when reply_raw does
 * not decode (hist unchanged). */
int llm_sess_history_add(const struct llm_sessions *S, const struct llm_session *s, size_t k,
                         const char *reply_raw, size_t reply_len, struct lat_buf *hist);
/* The same with two caller-owned scratch buffers for the decode (a user's: no allocation per
 * turn once they have grown). */
int llm_sess_history_add_buf(const struct llm_sessions *S, const struct llm_session *s, size_t k,
                             const char *reply_raw, size_t reply_len, struct lat_buf *hist,
                             struct lat_buf *lit, struct lat_buf *txt);

/* ---- per-turn statistics (one per worker thread, merged after the point) ---- */

struct llm_sess_row {
    uint64_t n, ok;
    struct lat_hist ttft, e2e; /* successful requests: from the intended send */
    double isl_sum;            /* prompt tokens (usage, or the tokenizer's) of ok requests */
    uint64_t isl_n;
};

/* rows[0 .. LLM_SESS_SHOW_TURNS): turn 1 .. N; row[LLM_SESS_SHOW_TURNS]: every turn >= 2 */
#define LLM_SESS_ROWS (LLM_SESS_SHOW_TURNS + 1)
struct llm_sess_stats {
    struct llm_sess_row row[LLM_SESS_ROWS];
    uint64_t turns_beyond; /* requests of turns > LLM_SESS_SHOW_TURNS (in "later" only) */
    uint64_t started, completed, failed;
    struct lat_hist duration; /* completed sessions: first intended send to last response end */
};

/* 0 or -ENOMEM (then fini it). */
int llm_sess_stats_init(struct llm_sess_stats *st);
void llm_sess_stats_fini(struct llm_sess_stats *st);
void llm_sess_stats_reset(struct llm_sess_stats *st);
int llm_sess_stats_add(struct llm_sess_stats *dst, const struct llm_sess_stats *src);
/* One request of turn k (0-based); ttft < 0 when it had no content; isl < 0 unknown. */
void llm_sess_stats_turn(struct llm_sess_stats *st, size_t k, bool ok, lat_ns ttft, lat_ns e2e,
                         int64_t isl);

/* ---- one virtual user ---- */

enum llm_sess_history { LLM_SESS_HISTORY_SERVER = 0, LLM_SESS_HISTORY_DATASET };

struct llm_sess_user {
    bool active;    /* a session is under way */
    bool pending;   /* turn `turn` was built and has not succeeded yet */
    bool failed;    /* ... and its last attempt failed */
    size_t sess;    /* index into S->s */
    size_t turn;    /* next turn to send (0-based) */
    uint64_t cycle; /* how many sessions were started before this one (all users) */
    lat_ns t_start; /* the first turn's intended send */
    struct lat_buf hist, msgs;
    struct lat_buf lit, txt; /* scratch of llm_sess_history_add_buf */
};

void llm_sess_user_fini(struct llm_sess_user *u);

#endif
