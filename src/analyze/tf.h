/*
 * tf.h - the TensorFlow section of `latscope analyze`: a pure function over a trace read by
 * ingest/xplane.c (format "xplane", or "tf-trace-viewer" for TF's Chrome JSON; both mapped by
 * ingest_tf_finish(): cpu_op events with args op_type / tf_mode, steps = Trace(step_num) regions).
 *
 * lat_tf_summarize() gives:
 *   - steps: count, Σ, mean, p50/p90 (nearest rank), max, over all step regions and per region
 *     name ("inference 3" -> "inference");
 *   - op self time: an op's duration minus that of the ops nested in it on its thread (TF's
 *     framework_op_stats "self-time"); Σ per op type + mode and per op (node name + type + mode),
 *     with the share of all op self time; graph vs eager self time;
 *   - host idle: the time inside the steps (their union) when no op runs on any host thread,
 *     and its share of the step time (not TF's "IDLE" row, whose base differs;
 * docs/trace-input.md);
 *   - input pipeline: the union of IteratorGetNext* / Iterator::* events inside the steps;
 *   - what the input cannot say (reader metadata tf_ops_unnamed / na_steps): op events
 *     named by type only, steps that cannot be told from other regions.
 * Rows point into the trace's strings: the summary must not outlive the trace.
 */
#ifndef LAT_ANALYZE_TF_H
#define LAT_ANALYZE_TF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/render.h"
#include "model/events.h"

struct lat_tf_row {
    const char *name;    /* op type (op_types rows) or node name (ops rows) */
    const char *op_type; /* ops rows: the type; op_types rows: NULL */
    const char *mode;    /* "graph" or "eager" */
    uint64_t calls;
    lat_ns total, self;
    double self_pct; /* of all op self time */
};

struct lat_tf_step_row {
    const char *name; /* region name without its step number (= owned) */
    char *owned;
    uint64_t count;
    lat_ns total, p50, p90, max;
    double mean_ns;
};

struct lat_tf_summary {
    uint64_t steps;
    lat_ns step_total, step_p50, step_p90, step_max;
    double step_mean_ns;
    uint64_t ops;                           /* op events */
    lat_ns op_self, graph_self, eager_self; /* Σ self time */
    double eager_pct;                       /* eager share of op self time */
    lat_ns step_wall;                       /* union of the steps */
    lat_ns host_busy, host_idle;            /* inside the steps: some op running / none */
    double host_idle_pct;                   /* of step_wall */
    lat_ns input_pipeline;                  /* IteratorGetNext / Iterator::* inside the steps */
    double input_pct;                       /* of step_wall */
    struct lat_tf_row *op_types, *nodes;    /* by self time, descending */
    size_t nop_types, nnodes, op_types_total, nodes_total;
    struct lat_tf_step_row *step_groups;
    size_t nstep_groups;
    uint64_t ops_unnamed;   /* graph op events whose node the file does not name (xprof's
                             * streaming trace_viewer@ JSON): rows "(any of N TYPE nodes)" */
    const char *steps_note; /* why the file's steps cannot be identified (reader metadata
                             * na_steps), NULL when it can say */
};

extern const struct lat_an_table lat_tf_table;      /* struct lat_tf_summary (one row) */
extern const struct lat_an_table lat_tf_row_table;  /* struct lat_tf_row */
extern const struct lat_an_table lat_tf_step_table; /* struct lat_tf_step_row */

/* True for a trace read as TensorFlow (xplane or its trace_viewer JSON). */
bool lat_tf_is(const struct lat_trace *t);
/* Fills *s (top_n rows of op types and ops; 0: 15). 0 or -ENOMEM. */
int lat_tf_summarize(const struct lat_trace *t, size_t top_n, struct lat_tf_summary *s);
void lat_tf_summary_fini(struct lat_tf_summary *s);
void lat_tf_write_json(struct jsonw *w, const struct lat_tf_summary *s);
void lat_tf_format_text(const struct lat_tf_summary *s, FILE *f);

#endif
