/*
 * metrics.h - LLM streaming metrics: per-request records -> TTFT, E2E, TPOT, ITL, chunk gaps,
 * tokens/s, requests/s and goodput, in latscope's vocabulary (docs/latscope-bench-llm.md,
 * ../shared/docs/load-testing.md §4) or in a peer tool's (--metrics-compat vllm|genai-perf).
 *
 * Collection keeps one compact summary per request plus the pooled chunk gaps (exact order
 * statistics: every sample is kept), so every view is computed from the same run at the end.
 * Threading: one llm_metrics per bench thread; merge with llm_metrics_merge().
 */
#ifndef LAT_LLM_METRICS_H
#define LAT_LLM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

/* Why a request failed. Errored requests are counted and never stop a run. */
enum llm_err {
    LLM_OK = 0,
    LLM_ERR_CONNECT,   /* could not connect */
    LLM_ERR_TIMEOUT,   /* request timeout */
    LLM_ERR_HTTP,      /* HTTP status >= 400 before the stream started */
    LLM_ERR_EVENT,     /* the stream carried an error event */
    LLM_ERR_MALFORMED, /* malformed HTTP, SSE or JSON in an event */
    LLM_ERR_CUT,       /* the stream ended before [DONE] / finish_reason (cut mid-way) */
    LLM_ERR_TRANSPORT, /* reset or other I/O error */
    /* The stream ended in order ([DONE]) but incomplete: no finish_reason (llama-cpp-python's
     * interrupted streams), or fewer tokens (exact count) than min_tokens/ignore_eos demanded. */
    LLM_ERR_TRUNCATED,
    LLM_ERR__N,
};
const char *llm_err_name(enum llm_err e);

/* Where a request's output token count n came from (§4 order of preference). */
enum llm_tok_src {
    LLM_TOK_NONE = 0,    /* unknown (failed request) */
    LLM_TOK_USAGE,       /* the final usage.completion_tokens */
    LLM_TOK_CHUNK_USAGE, /* cumulative usage in every chunk (continuous usage stats) */
    LLM_TOK_CHUNKS,      /* "events": the server's token events (content events, "" included;
                          * one per token on llama.cpp, several tokens per event possible) */
    /* the output text counted after the point with --tokenizer or --tokenize-url (exact in
     * the tokenizer's unit; named "tokenizer" or "tokenize-endpoint" in the results) */
    LLM_TOK_TOKENIZER,
    LLM_TOK__N,
};
/* Where a request's input token count (ISL) came from. */
enum llm_isl_src { LLM_ISL_NONE = 0, LLM_ISL_USAGE, LLM_ISL_TOKENIZER };
const char *llm_tok_src_name(enum llm_tok_src s);

/*
 * One request, filled by llm_stream (or by hand in tests). Times are CLOCK_MONOTONIC ns, -1 when
 * the event did not happen. The chunk arrays are owned by whoever fills the record.
 */
struct llm_record {
    lat_ns t_sched;             /* intended send time (schedule) */
    lat_ns t_send;              /* first request byte written */
    lat_ns t_first_event;       /* first data event of any kind (genai-perf r[0]) */
    lat_ns t_last_event;        /* last data event other than [DONE] (genai-perf r[last]) */
    lat_ns t_first_choice;      /* first event with non-empty choices (vLLM's TTFT) */
    lat_ns t_last_choice;       /* last event with non-empty choices (vLLM's E2EL end) */
    lat_ns t_first;             /* first content chunk */
    lat_ns t_last;              /* last content chunk */
    lat_ns t_end;               /* response complete (or failed) */
    int64_t usage_tokens;       /* final usage.completion_tokens, -1 absent */
    int64_t chunk_usage_tokens; /* last cumulative per-chunk usage, -1 absent */
    int64_t prompt_tokens;      /* usage.prompt_tokens, -1 absent */
    int64_t prompt_tokens_tok;  /* the prompt's tokens by --tokenizer/--tokenize-url, -1 none */
    int32_t requested_tokens;   /* max_tokens sent, -1 when none */
    int32_t min_tokens;         /* min_tokens sent with ignore_eos (a demanded length), -1 none */
    enum llm_err err;
    int http_status;
    bool chunk_usage_every; /* every content chunk carried cumulative usage */
    /* Server token events (llm_chunk.token_event: content events, empty ones included):
     * the token count when the server sends no usage. */
    uint32_t n_token_events;
    /* Content chunks: arrival and tokens in the chunk (-1 unknown). */
    uint32_t n_content;
    lat_ns *content_ts;
    int32_t *content_tok;
    /* Events with non-empty choices (vLLM's ITL gaps are between these). */
    uint32_t n_choice;
    lat_ns *choice_ts;
};

/* Resolves n and its source per §4: usage, then per-chunk usage, then content chunks. */
int64_t llm_record_tokens(const struct llm_record *r, enum llm_tok_src *src);

/* Per-request SLOs for goodput (`--slo 'ttft<=500ms,tpot<=50ms,e2e<=2s'`). -1 = not set. An
 * optional percentile prefix ("p99_ttft<=...") is kept for SLO searches. */
struct llm_slo {
    lat_ns ttft_ns, tpot_ns, e2e_ns;
    double ttft_pct, tpot_pct, e2e_pct; /* 0 when no prefix */
    bool set;
};
/* Parses an SLO list. 0, or LAT_E_USAGE with *why naming the problem. */
int llm_slo_parse(const char *s, struct llm_slo *slo, const char **why);

enum llm_view {
    LLM_VIEW_LATSCOPE = 0, /* §4: .sched anchor, nearest rank, TPOT request- / ITL token-weighted */
    LLM_VIEW_VLLM,         /* vLLM bench serve definitions, numpy linear percentiles */
    LLM_VIEW_GENAI_PERF,   /* GenAI-Perf definitions, numpy linear percentiles */
    /* AIPerf 0.13: GenAI-Perf's, except TTFT at the first response with non-empty content
     * (not the first event: the chat role chunk, empty-content events do not count) */
    LLM_VIEW_AIPERF,
};
const char *llm_view_name(enum llm_view v);
int llm_view_parse(const char *s, enum llm_view *v);

/* A distribution summary. Latencies in ns; other metrics in their own unit. */
struct llm_stat {
    uint64_t n; /* samples (for weighted stats: total weight) */
    double mean, p50, p90, p95, p99, p999, max;
};

/* Server-side series scraped from --metrics-url over one load point (llm/prom.h). */
#define LLM_SRV_MAX     12
#define LLM_SRV_RAW_MAX 32
struct llm_srv_series {
    const char *label; /* e.g. "running requests" (static) */
    char metric[64];   /* the server's metric name */
    bool counter;      /* delta over the point; else mean/max of the 1 s samples */
    double delta, mean, max;
};
struct llm_srv_raw {
    char key[96];
    double before, after;
};
struct llm_srv {
    bool have;
    uint64_t scrapes, scrape_errors;
    size_t n, nraw;
    struct llm_srv_series s[LLM_SRV_MAX];
    struct llm_srv_raw raw[LLM_SRV_RAW_MAX]; /* unknown servers: changed series */
    uint64_t raw_more;                       /* changed series beyond LLM_SRV_RAW_MAX */
};

/* The first failed request's class, HTTP status and the server's message (its error body or
 * event, control characters as spaces, cut at LLM_ERR_TEXT_MAX - 1 bytes), so a point where
 * every request failed says why (e.g. HTTP 400 context_length_exceeded). */
#define LLM_ERR_TEXT_MAX 200
struct llm_first_err {
    bool have;
    uint8_t err; /* enum llm_err */
    int http_status;
    char text[LLM_ERR_TEXT_MAX];
};
/* Keeps (err, status, text[0..n)) in *f unless it already holds one. */
void llm_first_err_note(struct llm_first_err *f, enum llm_err err, int status, const char *text,
                        size_t n);

struct llm_summary {
    enum llm_view view;
    struct llm_first_err first_err;
    struct llm_srv srv;
    struct llm_stat ttft, ttft_send, e2e, e2e_send, tpot, itl, chunk_gap, send_lag;
    struct llm_stat tokens_per_chunk, out_tok_s_user;
    bool tokens_per_chunk_exact;
    uint64_t requests, ok, errors, err[LLM_ERR__N];
    uint64_t out_tokens, no_tpot;   /* requests with n <= 1: no tpot/itl sample */
    uint64_t src_count[LLM_TOK__N]; /* successful requests per token source */
    /* ISL: successful requests with a known input length, their total and per source */
    uint64_t in_requests, in_tokens, isl_count[3];
    int64_t in_min, in_max; /* smallest and largest ISL (0 when none) */
    const char *counter; /* "tokenizer" / "tokenize-endpoint" (LLM_TOK_TOKENIZER's name), or NULL */
    char tok_err[200];   /* counting outputs failed: why (those requests keep their event count) */
    enum llm_tok_src tokens_source; /* the weakest source used by any successful request */
    uint64_t osl_mismatch;          /* received tokens != requested max_tokens */
    /* ok requests whose usage.prompt_tokens is below 90 % of latscope's count of the prompt
     * sent (a server that cut the prompt to its context: llama-server) */
    uint64_t isl_short;
    /* ok streamed requests whose content came in one burst: 4+ content events within 1 ms
     * after a TTFT over 8 times that spread (a buffered stream: a proxy, or Nagle's algorithm
     * on a server without TCP_NODELAY waiting for the client's delayed ACK), and their TTFT sum */
    uint64_t burst_streams;
    double burst_ttft_sum;
    double isl_short_usage_sum, isl_short_sent_sum; /* their usage and sent prompt tokens */
    uint64_t usage_chunk_mismatch; /* usage and content-chunk count disagree (info) */
    double duration_s, out_tok_s, req_s;
    bool has_slo;
    uint64_t good;
    double goodput_rps, goodput_fraction;
};

/* One request's compact summary (kept for every request). */
struct llm_rsum {
    lat_ns t_sched, t_send, t_first_event, t_last_event, t_first_choice, t_last_choice;
    lat_ns t_first, t_last, t_end;
    int64_t n;
    int32_t requested;
    uint32_t n_content;
    uint8_t src, err;
    uint8_t streamed; /* the response was streamed (n_choice > 0): a TPOT is measurable */
    uint8_t isl_src;  /* enum llm_isl_src */
    int64_t isl;      /* input tokens, -1 unknown */
    int64_t isl_sent; /* the prompt's tokens by latscope's counter (--tokenizer/--tokenize-url),
                       * -1 uncounted */
};

struct llm_vec {
    int64_t *v;
    size_t n, cap;
};

struct llm_metrics {
    struct llm_rsum *r;
    size_t n, cap;
    struct llm_vec content_gaps; /* c_i - c_{i-1}, pooled (latscope chunk_gap) */
    struct llm_vec choice_gaps;  /* gaps between choices events, pooled (vLLM ITL) */
    struct llm_vec chunk_tokens; /* tokens of each content chunk where exact */
    uint64_t approx_chunk_tokens, approx_chunks; /* chunks whose size is only a request mean */
    uint64_t usage_chunk_mismatch;
    struct llm_first_err first_err; /* the first failed request the thread recorded */
};

void llm_metrics_init(struct llm_metrics *m);
void llm_metrics_fini(struct llm_metrics *m);
void llm_metrics_reset(struct llm_metrics *m);
/* Adds one finished request (copies what it needs). 0 or -ENOMEM. */
int llm_metrics_add(struct llm_metrics *m, const struct llm_record *rec);
/* Appends everything of src to dst. 0 or -ENOMEM. */
int llm_metrics_merge(struct llm_metrics *dst, const struct llm_metrics *src);
/* Computes one view. slo may be NULL (goodput fields are then absent). Sorts internal vectors.
 * 0 or -ENOMEM. */
int llm_metrics_summarize(struct llm_metrics *m, enum llm_view view, const struct llm_slo *slo,
                          struct llm_summary *out);

struct jsonw;
/*
 * Writes the LLM members of one bench result point into the open JSON object: ttft_ms, tpot_ms,
 * itl_ms, e2e_ms (and the .send and chunk-gap variants), output_tokens, output_tokens_per_s,
 * requests_per_s, goodput_rps, goodput_fraction (null without an SLO), tokens_source, ...
 */
void llm_summary_write_json(struct jsonw *w, const struct llm_summary *s);
struct lat_buf;
/* Appends a human-readable table of s to b (the caller prints it). 0 or -ENOMEM. */
int llm_summary_format_text(struct lat_buf *b, const struct llm_summary *s);

#endif
