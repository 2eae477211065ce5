/*
 * kserve.h - the KServe v2 / Triton REST target of `latscope bench`.
 *
 * Setup builds one POST /v2/models/NAME[/versions/V]/infer request with a JSON tensor body
 * from --input specs (or from GET /v2/models/NAME metadata when no --input is given); every
 * request of the run sends the same bytes. Around each load point it reads Triton's
 * statistics API (GET /v2/models/NAME[/versions/V]/stats) and turns the difference into
 * server queue and compute time per request. A server without the statistics API is fine:
 * the breakdown is then absent.
 */
#ifndef LAT_BENCH_KSERVE_H
#define LAT_BENCH_KSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/opts.h"
#include "bench/report.h"
#include "core/buf.h"

#define KSERVE_MAX_INPUTS 16

struct kserve_opts {
    const char *model, *version;
    struct bench_input inputs[KSERVE_MAX_INPUTS];
    size_t ninputs;
    unsigned batch; /* 0: not given */
    uint64_t seed;
    /* -d: the user's body, sent as given to the URL's own path (user_method or POST), with
     * Content-Type: application/json unless a header gives one; no metadata read. NULL: built
     * from --input or the metadata. */
    const char *user_body;
    size_t user_body_len;
    const char *user_method;
};

/* Cumulative Triton counters for one model (all versions, or the one asked for). */
struct triton_counts {
    uint64_t success_count, success_ns;
    uint64_t queue_ns, compute_input_ns, compute_infer_ns, compute_output_ns;
};

/* The per-request server time between two snapshots (after - before over the successes in
 * between: perf_analyzer's averages); out->have stays false without a success in between. */
static inline void triton_counts_delta(const struct triton_counts *b, const struct triton_counts *a,
                                       struct bench_server_stats *out)
{
    if (a->success_count <= b->success_count) return;
    double n = (double)(a->success_count - b->success_count);
    out->have = true;
    out->count = a->success_count - b->success_count;
    out->queue_us = (double)(a->queue_ns - b->queue_ns) / n / 1e3;
    out->compute_input_us = (double)(a->compute_input_ns - b->compute_input_ns) / n / 1e3;
    out->compute_infer_us = (double)(a->compute_infer_ns - b->compute_infer_ns) / n / 1e3;
    out->compute_output_us = (double)(a->compute_output_ns - b->compute_output_ns) / n / 1e3;
}

struct kserve_ctx {
    char model[256], version[64];
    const char **get_hdrs; /* -H headers for the GETs (no Content-Type/Length) */
    size_t nget_hdrs;
    struct lat_buf req, body, stats_req;
    bool stats_ok; /* the before-snapshot of the current point was read */
    struct triton_counts before;
};

/* Builds target->request (and fills inputs from metadata when none were given). headers (-H)
 * go on every request it sends, the metadata and statistics GETs included. On error, err says
 * what is wrong and what to do. Returns 0 or a negative code. */
int kserve_setup(struct kserve_ctx *k, struct kserve_opts *o, struct bench_target *t,
                 const char *const *headers, size_t nheaders, char *err, size_t errlen);
void kserve_stats_before(struct kserve_ctx *k, const struct bench_target *t);
void kserve_stats_after(struct kserve_ctx *k, const struct bench_target *t,
                        struct bench_server_stats *out);
void kserve_fini(struct kserve_ctx *k);

/* Pure helpers (unit-tested). */
/* Model name and version from a URL path "/v2/models/NAME[/versions/V][/...]". */
int kserve_path_model(const char *path, char *model, size_t mlen, char *version, size_t vlen);
/* Appends the KServe v2 JSON infer body for the inputs. */
int kserve_build_body(struct lat_buf *out, const struct bench_input *in, size_t n, unsigned batch,
                      uint64_t seed, char *err, size_t errlen);
/* Reads "inputs" of a model metadata document into in[0..*n). */
int kserve_parse_metadata(const char *doc, size_t len, struct bench_input *in, size_t *n, char *err,
                          size_t errlen);
/* Sums Triton's inference_stats over model_stats[] (only `version` when not NULL/empty). */
int triton_parse_stats(const char *doc, size_t len, const char *version, struct triton_counts *out);

#endif
