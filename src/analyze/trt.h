/*
 * trt.h - the TensorRT section of `latscope analyze`: a pure function over a trace read by
 * ingest/trt.c or trt-log.c (format "tensorrt": layers as cat "trt_layer" events with args
 * average_ms / median_ms / time_ms / percentage / layer_type / precision / tactic / origin;
 * queries as cats trt_enqueue / trt_h2d / trt_compute / trt_d2h with step = query index; the
 * performance summary, options and log warnings as "trt.*" metadata).
 *
 * lat_trt_summarize() gives:
 *   - per layer (--exportProfile joined by name with --exportLayerInfo): mean ms, median ms,
 *     total ms, trtexec's percentage, the share of the sum of the layer means, type, precision
 *     (the first input's data type: what the kernel reads), tactic;
 *   - the sum of the layer means, per layer type, per precision (time-weighted), and the
 *     reformat layers (LayerType Reformat, not Origin QDQ; without layer info, the
 *     "Reformatting CopyNode" names) and the Q/DQ ones (Origin QDQ) apart;
 *   - per query (--exportTimes): enqueue (host clock), H2D, GPU compute, D2H, latency (H2D +
 *     compute + D2H) and end-to-end (D2H end - H2D start), each min/max/mean/median/p90/p95/p99
 *     and CoV, with trtexec's definitions (analyses.md section 16): queries whose compute
 *     starts within the warm-up (from the options, when known) are left out, median = mean of
 *     the two middle values, percentile p = the value at index n-1-floor((1-p/100) n);
 *     throughput = queries / (last D2H end - first H2D start);
 *   - trtexec's own summary (TREx profile.metadata.json or the log) as it printed it.
 * Rows point into the trace's strings: the summary must not outlive the trace.
 */
#ifndef LAT_ANALYZE_TRT_H
#define LAT_ANALYZE_TRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/jsonw.h"
#include "model/events.h"

struct lat_trt_layer {
    const char *name, *type, *precision, *tactic, *origin;
    int64_t index; /* position in the profile (execution order) */
    bool has_profile, has_median, reformat, qdq;
    double avg_ms, median_ms, time_ms, pct_file; /* pct_file: trtexec's "percentage" */
    double share_pct;                            /* of the sum of the layer means */
};

struct lat_trt_group {
    const char *name; /* layer type or precision; "(unknown)" */
    size_t layers;
    double avg_ms, share_pct;
};

#define LAT_TRT_NPCT 3 /* p90, p95, p99 */
struct lat_trt_stats {
    size_t n;
    double min, max, mean, median, cov_pct;
    double pct[LAT_TRT_NPCT];
};

/* trtexec's printed summary of one metric; have_* say what it printed */
struct lat_trt_printed {
    bool have_min, have_max, have_mean, have_median;
    double min, max, mean, median;
    size_t npct;
    double pct_at[8], pct[8];
};

enum {
    LAT_TRT_LATENCY,
    LAT_TRT_ENQUEUE,
    LAT_TRT_H2D,
    LAT_TRT_COMPUTE,
    LAT_TRT_D2H,
    LAT_TRT_E2E,
    LAT_TRT_NMETRIC
};
extern const char *const lat_trt_metric_keys[LAT_TRT_NMETRIC]; /* "latency", "enqueue", ... */
extern const char *const lat_trt_metric_labels[LAT_TRT_NMETRIC];

struct lat_trt_summary {
    const char *inputs;    /* "profile,layers,times,summary,..." */
    int64_t profile_count; /* -1 */
    size_t nlayers, nprofiled, ninfo;
    bool names_only;
    double layers_avg_sum_ms, layers_time_sum_ms;
    struct lat_trt_layer *layers; /* by mean descending (then index) */
    struct lat_trt_group *types, *precisions;
    size_t ntypes, nprecisions;
    size_t nreformat, nqdq;
    double reformat_ms, reformat_pct, qdq_ms, qdq_pct;
    const char *build_precision; /* build.Precision ("FP32+FP16+INT8"), NULL */
    /* queries */
    size_t nq, nq_kept;
    uint64_t nq_dropped; /* queries the reader left out (trace->drops_query) */
    double warmup_ms;    /* -1: unknown (all queries kept) */
    struct lat_trt_stats q[LAT_TRT_NMETRIC];
    double q_qps, q_wall_ms;
    /* trtexec's summary */
    const char *summary_source; /* NULL when none */
    struct lat_trt_printed p[LAT_TRT_NMETRIC];
    bool have_p_qps, have_p_wall, have_p_gpu_total;
    double p_qps, p_wall_s, p_gpu_total_s;
    /* options (-1: not said) */
    int streams, cuda_graph, data_transfers, separate_profiling, spin_wait;
    size_t nwarnings;
    const char *warnings[20];
};

/* True for a trace ingest/trt.c or trt-log.c read. */
bool lat_trt_is(const struct lat_trace *t);
/* Fills *s. 0 or -ENOMEM. */
int lat_trt_summarize(const struct lat_trace *t, struct lat_trt_summary *s);
void lat_trt_summary_fini(struct lat_trt_summary *s);
/* The metadata value of "trt.KEY" as a string (quotes and escapes removed, into buf), NULL. */
const char *lat_trt_meta(const struct lat_trace *t, const char *key, char *buf, size_t n);
/* The "tensorrt" object of a rank (docs/analyze-json.md), top_n layer rows. */
void lat_trt_write_json(struct jsonw *w, const struct lat_trt_summary *s, size_t top_n);
void lat_trt_format_text(const struct lat_trt_summary *s, FILE *f, size_t top_n);

#endif
