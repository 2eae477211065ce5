/*
 * openai.h - `latscope bench --target openai`: the openai options, the target set-up and the
 * per-request callbacks the bench engine calls, in one place, so the engine and cmd-bench.c
 * need only a handful of lines (docs/latscope-bench-llm.md, "Integration").
 *
 *   llm_bench_init/_opt()   the defaults and the options of its group (bench/target.h)
 *   llm_bench_setup()       builds the llm_target for the URL
 *   per connection/request  llm_bench_conn_new/_free, llm_bench_build, llm_bench_begin,
 *                           llm_conn_body, llm_bench_end (engine callbacks, ud = llm_bench)
 *   per load point          llm_bench_point_done() -> one llm_summary (then reset)
 */
#ifndef LAT_BENCH_OPENAI_H
#define LAT_BENCH_OPENAI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/scrape.h"
#include "core/clock.h"
#include "hist/hlog.h"
#include "llm/metrics.h"
#include "llm/prom.h"
#include "llm/replay.h"
#include "llm/target.h"
#include "llm/tokenize.h"
#include "llm/tokenizer.h"
#include "net/conn.h"

#include <pthread.h>
#include <stdio.h>

#define LLM_BENCH_MAX_THREADS 256

struct bench_sess;

struct llm_bench {
    bool active;  /* --target openai was given */
    bool api_set; /* --api given (else inferred from the URL path) */
    struct llm_target_cfg tc;
    const char *slo_text;
    struct llm_slo slo;
    enum llm_view view; /* --metrics-compat */
    char hostport[300];
    char path[2048];
    struct llm_target *t;
    /* --metrics-url: Prometheus scrapes before, every second during, and after each point. */
    const char *metrics_url;
    struct conn_target mconn;
    bool mconn_ok;
    struct lat_buf mreq;
    pthread_t mth;
    bool mth_started;
    pthread_mutex_t mlock;
    volatile int mstop;
    struct prom_set before; /* the scrape that opened the current point */
    double gsum[LLM_SRV_MAX], gmax[LLM_SRV_MAX];
    uint64_t gn[LLM_SRV_MAX];
    uint64_t scrapes, scrape_errors; /* of the current point */
    /* --records-detail FILE: one JSON line per measured request, every chunk's arrival. */
    const char *records_path;
    FILE *records;
    pthread_mutex_t rlock;
    lat_ns t0;       /* time base of the records (set-up time) */
    unsigned point;  /* index of the current load point */
    int records_err; /* first write error */
    /* --hdr-log: when the caller sets hlog (and hlog_base, the log's time zero), each point
     * adds one interval per LLM metric, tagged ttft.sched, ttft.send, e2e.sched, e2e.send,
     * tpot, itl, chunk_gap. */
    struct hlog_writer *hlog;
    lat_ns hlog_base;
    int hlog_err;
    /* --replay FILE.jsonl or FILE.csv (llm/replay.h, llm/azure.h), loaded by llm_bench_setup;
     * offsets already divided by --replay-speed. The caller runs one open-loop point over
     * replay.offsets. */
    const char *replay_path;
    double replay_speed;
    size_t replay_limit; /* --requests N with --replay: only the first N requests (0: all) */
    size_t max_input;    /* --max-input-size: cap on --prompts and --replay files (0: default) */
    struct llm_replay replay;
    /* --confidence on ttft/tpot SLO terms (llm_bench_ivl_enable): each measured successful
     * request's TTFT and TPOT, in the --metrics-compat view, are recorded here by the worker
     * that ends it; llm_bench_ivl_take() moves them into the caller's cumulative histograms
     * once per window. One mutex for all threads: one uncontended lock per LLM request. */
    bool ivl_on;
    pthread_mutex_t ivl_lock;
    struct lat_hist ivl_ttft, ivl_tpot;
    /* The live view (llm_bench_live_enable): the same per request, for the command's status
     * line: each measured successful request's TTFT and output tokens, taken once per window
     * by llm_bench_live_take(). Its own lock and histogram: --confidence takes the other. */
    bool live_on;
    pthread_mutex_t live_lock;
    struct lat_hist live_ttft;
    uint64_t live_tokens;
    /* --tokenizer FILE / --tokenize-url URL|auto (--tokenize-api): exact ISL/OSL. Prompts are
     * sized and counted at setup; outputs without usage are counted once per point, after the
     * workers joined (llm_bench_point_hists or _point_done, whichever comes first). */
    const char *tokenizer_path, *tokenize_url;
    enum llm_tokapi tokapi;
    bool tls; /* the server URL is https (for --tokenize-url auto); set before setup */
    struct llm_tokenizer *tk;
    struct llm_tokenize_ep ep;
    bool ep_ok, counted;
    struct llm_tokcount tokc;
    char tok_url[2400];
    char tok_err[200]; /* the first failed output count (the summary keeps event counts) */
    /* --sessions FILE (--history, --think-time): multi-turn conversations, closed loop
     * (bench/sessions.h); NULL without. --block-size: tokens per Mooncake hash id (--replay). */
    struct bench_sess *sess;
    int32_t block_size;
};

/* The defaults (streaming, include_usage, ignore_eos, chat API, latscope view). */
void llm_bench_init(struct llm_bench *b);
/* One openai option (bench/target.h: the ids of its option table, BENCH_TOPT_SLO for a common
 * --slo value). 0, 1 (not this target's: an --slo the bench judges), or LAT_E_USAGE with why
 * naming the option and what to do. */
int llm_bench_opt(struct llm_bench *b, int id, const char *val, char *why, size_t whylen);

/*
 * Creates the target: hostport is the Host header, path the URL path ("/" or "" = the API's
 * default path; a path ending in /chat/completions or /completions also picks the API unless
 * --api was given). headers are extra "Name: value" lines. 0 or LAT_E_* with why.
 */
int llm_bench_setup(struct llm_bench *b, const char *hostport, const char *path,
                    const char *const *headers, size_t nheaders, uint64_t seed, char *why,
                    size_t whylen);
void llm_bench_fini(struct llm_bench *b);

/* Engine callbacks. ud is the struct llm_bench; cs is what conn_new returned. */
void *llm_bench_conn_new(void *ud, unsigned thread);
void llm_bench_conn_free(void *cs);
int llm_bench_build(void *cs, const char **req, size_t *len);
void llm_bench_begin(void *cs, lat_ns t_sched, lat_ns t_send);
/* bench_err: an enum bench_err value, or -1 when the HTTP exchange completed. Returns the
 * request's final class for the engine: bench_err, or the class of the stream's own failure
 * (malformed SSE/JSON -> malformed, cut stream or error event -> stream), -1 when it succeeded. */
int llm_bench_end(void *cs, int http_status, int bench_err, lat_ns t_end, bool measured);
/* --cancel-after-tokens: the current request's content token events so far (the server's
 * token unit: empty content events too) and its first content chunk's arrival (0: none). */
uint64_t llm_bench_progress(void *cs, lat_ns *t_first);
/* Replay: the next build on cs is request k (trace line k). */
void llm_bench_seq(void *cs, uint64_t k);

/* One request's TTFT and TPOT (ns) in view v (the same definitions as the point summary:
 * latscope TTFT from t_sched, TPOT (t_last - t_first)/(n - 1); vllm/genai-perf from t_send).
 * -1 where undefined (failed request, no content, n <= 1 for TPOT). */
void llm_bench_req_values(const struct llm_record *r, enum llm_view v, lat_ns *ttft, lat_ns *tpot);
/* Starts recording per-request TTFT/TPOT for early stopping. 0 or -ENOMEM. */
int llm_bench_ivl_enable(struct llm_bench *b);
/* Adds what was recorded since the last call to *ttft and *tpot (same histogram layout:
 * hist_init_default) and forgets it. Any thread; no-op when not enabled. */
void llm_bench_ivl_take(struct llm_bench *b, struct lat_hist *ttft, struct lat_hist *tpot);

/* The live view: starts recording (0 or -ENOMEM); adds the TTFT recorded since the last call
 * to *ttft (hist_init_default layout) and returns the output tokens, then forgets them. */
int llm_bench_live_enable(struct llm_bench *b);
uint64_t llm_bench_live_take(struct llm_bench *b, struct lat_hist *ttft);

/* This point's LLM metrics as histograms in latscope's definitions (ttft, ttft_send, e2e,
 * e2e_send, tpot, itl, chunk_gap: the --hdr-log tags' contents), for the bench JSON
 * "histograms". Call before llm_bench_point_done(). h: LLM_BENCH_NHIST histograms, initialized
 * here (hist_fini each). LAT_E_UNSUPPORTED with --metrics-compat (other definitions). */
#define LLM_BENCH_NHIST 7
extern const char *const llm_bench_hist_names[LLM_BENCH_NHIST];
int llm_bench_point_hists(struct llm_bench *b, struct lat_hist *h);
/* Summary of the requests since the last call (one load point), then forgets them. With
 * --metrics-url, also the server series over the same interval. Returns 0, -ENOMEM, or -EIO
 * when --records-detail could not be written. */
int llm_bench_point_done(struct llm_bench *b, struct llm_summary *out);

#endif
