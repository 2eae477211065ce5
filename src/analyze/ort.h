/*
 * ort.h - the ONNX Runtime section of `latscope analyze`: a pure function over a trace read by
 * ingest/ort.c (format "ort": Node events as cpu ops named after the node with args op_name /
 * provider, model_run as LAT_EVF_STEP user annotations).
 *
 * lat_ort_summarize() gives:
 *   - per-run latency of model_run: count, Σ, mean, p50/p90/p99 (nearest rank over all runs),
 *     the first run and the mean of the others (the first run holds one-time work);
 *   - time inside the runs covered by no node (executor overhead): run wall minus the union of
 *     the node intervals inside each run;
 *   - per op type (args.op_name), per node (event name) and per execution provider: calls, Σ
 *     dur, mean, share. Shares are of the model_run time, or of the node time when the nodes
 *     overlap (inter-op parallelism) and their Σ exceeds it: never above 100 %.
 * Rows point into the trace's strings: the summary must not outlive the trace.
 */
#ifndef LAT_ANALYZE_ORT_H
#define LAT_ANALYZE_ORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/render.h"
#include "model/events.h"

struct lat_ort_row {
    const char *name;     /* op type, node name or provider */
    const char *op;       /* op type (node rows; else NULL) */
    const char *provider; /* provider (node rows; else NULL) */
    uint64_t calls;
    lat_ns total;
    double mean_ns;
    double pct; /* of model_run time (see above) */
};

struct lat_ort_summary {
    uint64_t runs;
    lat_ns run_total, run_first, run_p50, run_p90, run_p99, run_max;
    double run_mean_ns, run_steady_mean_ns; /* steady: runs after the first (0 with one run) */
    lat_ns node_total;                      /* Σ dur of the node events inside runs */
    lat_ns uncovered;                       /* run wall covered by no node */
    double uncovered_pct;                   /* of run_total */
    lat_ns first_uncovered;                 /* of it: in the first run */
    lat_ns init, load;                      /* session_initialization, model_loading_* */
    uint64_t nodes_outside_runs;
    struct lat_ort_row *op_types, *nodes, *providers; /* by total, descending */
    size_t nop_types, nnodes, nproviders;
    size_t op_types_total, nodes_total; /* distinct before the top_n cut */
};

extern const struct lat_an_table lat_ort_run_table; /* struct lat_ort_summary (one row) */
extern const struct lat_an_table lat_ort_row_table; /* struct lat_ort_row */

/* True for a trace ingest/ort.c read. */
bool lat_ort_is(const struct lat_trace *t);
/* Fills *s (top_n rows of op types and nodes; 0: 15). 0 or -ENOMEM. */
int lat_ort_summarize(const struct lat_trace *t, size_t top_n, struct lat_ort_summary *s);
void lat_ort_summary_fini(struct lat_ort_summary *s);
/* The "ort" object of a rank (docs/analyze-json.md). */
void lat_ort_write_json(struct jsonw *w, const struct lat_ort_summary *s);
void lat_ort_format_text(const struct lat_ort_summary *s, FILE *f);

#endif
