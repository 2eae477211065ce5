/*
 * target.h - `latscope bench --target openai` as a module the bench engine drives through a
 * narrow per-request interface (no dependency on the engine's types):
 *
 *     struct llm_target *t;  llm_target_new(&cfg, nthreads, &t, why, whylen);
 *     per connection:   c = llm_conn_new(t, thread);
 *     per request:      llm_conn_build(c, &req, &len);            the HTTP/1.1 request bytes
 *                       llm_conn_begin(c, t_sched, t_send);       first byte written
 *                       llm_conn_body(c, p, n, t_recv);           http1 on_body (ud = c)
 *                       llm_conn_end(c, status, err, t_end, measured);
 *     per load point:   llm_target_summarize(t, view, &slo, &sum); llm_target_reset(t);
 *     at the end:       llm_conn_free(c); llm_target_free(t);
 *
 * Threading: a connection belongs to one worker thread; each thread records into its own
 * llm_metrics (indexed by `thread`); summarize merges them after the workers have joined.
 */
#ifndef LAT_LLM_TARGET_H
#define LAT_LLM_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/clock.h"
#include "llm/metrics.h"
#include "llm/stream.h"
#include "llm/workload.h"

struct llm_target_cfg {
    struct llm_workload_cfg wl;
    const char *hostport;       /* Host header value */
    const char *path;           /* request path; NULL = the API's default path */
    const char *api_key_env;    /* name of the environment variable holding the API key, or NULL */
    const char *const *headers; /* extra "Name: value" headers */
    size_t nheaders;
};

/* One thread's responses whose output tokens are counted after the point (usage absent, a
 * counter given): metrics record index and the content text (JSON-escaped, in text). */
struct llm_pending_item {
    size_t rec; /* index in the thread's llm_metrics.r */
    size_t off, len;
};
struct llm_pending {
    struct lat_buf text;
    struct llm_pending_item *v;
    size_t n, cap;
    bool lost; /* no memory for one: that request keeps its event count */
};

struct llm_target {
    struct llm_target_cfg cfg;
    struct llm_workload *wl;
    struct lat_buf head; /* request head up to (not including) Content-Length */
    unsigned nthreads;
    struct llm_metrics *metrics; /* one per thread */
    _Atomic uint64_t next_idx;   /* request counter */
    /* Multi-host (bench --shard K/N): request m of this process is request idx_base +
     * idx_stride * m of the whole load, so the N shards send the N-way split of one
     * workload, not N copies of its first requests. 0/0 = 0/1. */
    uint64_t idx_base, idx_stride;
    struct llm_pending *pending; /* one per thread, with cfg.wl.counter */
};

struct llm_conn {
    struct llm_target *t;
    unsigned thread;
    struct llm_stream s;
    struct lat_buf req, body;
    int32_t max_tokens;
    int32_t min_tokens;  /* min_tokens the request demanded (ignore_eos), -1 none */
    void *owner;         /* the caller's context (bench/openai.c: the struct llm_bench) */
    struct lat_buf line; /* caller's scratch (bench/openai.c: one --records-detail line) */
    uint64_t seq1;       /* replay: 1 + the request number of the next build; 0 = counter */
    int32_t prompt_tok;  /* the built prompt's tokens by cfg.wl.counter, -1 none */
    void *user;          /* the owner's per-connection data (bench --sessions: the user) */
};

/* Returns 0, -ENOMEM, LAT_E_USAGE / LAT_E_BAD_JSON / -errno with why filled. */
int llm_target_new(const struct llm_target_cfg *cfg, unsigned nthreads, struct llm_target **out,
                   char *why, size_t whylen);
void llm_target_free(struct llm_target *t);
/* Forgets every recorded request (between load points). */
void llm_target_reset(struct llm_target *t);
/* Merges the per-thread metrics and computes one view. 0 or -ENOMEM. */
int llm_target_summarize(struct llm_target *t, enum llm_view view, const struct llm_slo *slo,
                         struct llm_summary *out);

/* With a counter (cfg.wl.counter): counts the output text of every response recorded without
 * usage since the last reset, and makes that its token count (source LLM_TOK_TOKENIZER). Call
 * after the workers of a point have joined, before llm_target_summarize. *counted gets how many
 * were counted. 0, or the counter's error with why filled (the counts left are unchanged). */
int llm_target_count_outputs(struct llm_target *t, uint64_t *counted, char *why, size_t whylen);

struct llm_conn *llm_conn_new(struct llm_target *t, unsigned thread);
void llm_conn_free(struct llm_conn *c);
/* Builds the next request (request number idx from a global atomic counter; its body is a
 * pure function of the seed and idx). The bytes stay valid until the next llm_conn_build on c.
 * 0 or -ENOMEM. */
int llm_conn_build(struct llm_conn *c, const char **req, size_t *len);
/* The same with the caller's chat messages array as the prompt (bench --sessions: a turn and
 * its history); mt > 0 replaces max_tokens. */
int llm_conn_build_msgs(struct llm_conn *c, const char *msgs, size_t mlen, int32_t mt,
                        const char **req, size_t *len);
void llm_conn_begin(struct llm_conn *c, lat_ns t_sched, lat_ns t_send);
/* Same signature as http1 on_body; ud is the llm_conn. */
void llm_conn_body(void *ud, const char *p, size_t n, lat_ns t);
/* Ends the request: status 0 when no response; err is LLM_OK or a transport class. When
 * measured, the record is added to the thread's metrics. */
void llm_conn_end(struct llm_conn *c, int http_status, enum llm_err err, lat_ns t_end,
                  bool measured);

#endif
