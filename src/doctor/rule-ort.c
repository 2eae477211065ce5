/*
 * rule-ort.c - ONNX Runtime executor time not spent in any node (ingest/ort.c profiles only):
 * inside model_run, the wall time that no Node event covers is the executor's own work
 * (scheduling, the parallel executor's hand-offs, input/output copies, allocation). The finding
 * fires when it is >= ORT_UNCOVERED_PCT of the run time and >= ORT_UNCOVERED_MIN per run, over
 * the runs after the first (the first run's one-time work is not the executor's steady cost).
 * Numbers from analyze/ort.c (the same as `latscope analyze`'s ONNX Runtime section); with
 * nodes on a thread other than model_run's (ORT_PARALLEL), the advice is the sequential
 * executor, else fewer, fused nodes.
 */
#include "analyze/ort.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ORT_UNCOVERED_PCT 20.0
#define ORT_UNCOVERED_MIN (100 * LAT_NS_PER_US)

/* Whether some Node event runs on another track than every model_run (ORT_PARALLEL). */
static bool nodes_off_run_thread(const struct lat_trace *t)
{
    uint32_t id_run = strtab_find(&t->strs, "model_run", 9);
    uint32_t id_node = strtab_find(&t->strs, "Node", 4);
    int64_t run_track = -1;
    for (size_t i = 0; i < t->ev.n && run_track < 0; i++)
        if (t->ev.name[i] == id_run) run_track = t->ev.track[i];
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.cat[i] == id_node && run_track >= 0 && t->ev.track[i] != (uint32_t)run_track)
            return true;
    return false;
}

DOC_RULE(ort)
{
    if (!lat_ort_is(c->t)) return;
    struct lat_ort_summary s;
    if (lat_ort_summarize(c->t, 5, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    /* the steady runs: the first run's one-time work is the tail rule's business */
    bool steady = s.runs > 1;
    uint64_t nr = steady ? s.runs - 1 : s.runs;
    lat_ns unc = steady ? s.uncovered - s.first_uncovered : s.uncovered;
    lat_ns rt = steady ? s.run_total - s.run_first : s.run_total;
    double pct = rt > 0 ? 100.0 * (double)unc / (double)rt : 0.0;
    if (!nr || pct < ORT_UNCOVERED_PCT || (lat_ns)((double)unc / (double)nr) < ORT_UNCOVERED_MIN) {
        lat_ort_summary_fini(&s);
        return;
    }
    lat_ns per = (lat_ns)((double)unc / (double)nr);
    lat_ns run_mean = (lat_ns)((double)rt / (double)nr);
    bool par = nodes_off_run_thread(c->t);
    struct doc_finding *f = doc_finding_add(c->r, "ort-executor-overhead", c->trace);
    if (!f) {
        lat_ort_summary_fini(&s);
        return;
    }
    doc_saving(f, per, run_mean);
    char b1[32];
    doc_set(c->r, &f->title,
            "ONNX Runtime: %.1f %% of each model_run (%s) is in no node: executor overhead%s", pct,
            doc_fmt_ns(per, b1, sizeof(b1)),
            par ? " of the parallel executor (nodes run on another thread than the run)" : "");
    doc_set(c->r, &f->saving_method,
            "per run after the first: model_run wall time minus the union of the node intervals "
            "inside it; an "
            "upper bound (some of it is input/output handling any executor needs)");
    doc_kv_int(c->r, f, "runs", (int64_t)s.runs);
    doc_kv_bool(c->r, f, "first_run_excluded", steady);
    doc_kv_us(c->r, f, "run_mean_us", run_mean);
    doc_kv_us(c->r, f, "in_nodes_us_per_run", run_mean - per);
    doc_kv_us(c->r, f, "uncovered_us_per_run", per);
    doc_kv_num(c->r, f, "uncovered_pct", pct);
    doc_kv_bool(c->r, f, "nodes_on_other_thread", par);
    doc_kv_num(c->r, f, "threshold_pct", ORT_UNCOVERED_PCT);
    for (size_t i = 0; i < s.nop_types && i < 3; i++) {
        doc_row_begin(c->r, f, "top_op_types");
        doc_kv_str(c->r, f, "op", s.op_types[i].name);
        doc_kv_us(c->r, f, "total_us", s.op_types[i].total);
        doc_row_end(f);
    }
    if (par)
        doc_set(c->r, &f->recommendation,
                "The parallel executor (SessionOptions.execution_mode = ORT_PARALLEL) hands "
                "every node to an inter-op thread and waits for it; for a graph without "
                "independent branches that only adds hand-offs. Use "
                "so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL (the default) and put "
                "the threads into intra_op_num_threads, then profile again.");
    else
        doc_set(c->r, &f->recommendation,
                "The time between nodes is per-node executor work: run fewer, larger nodes "
                "(graph_optimization_level = ORT_ENABLE_ALL, or save the optimized model with "
                "so.optimized_model_filepath and check which nodes were fused), and batch "
                "requests so each run does more work per node.");
    doc_set(c->r, &f->next_step, "latscope analyze %s   # ONNX Runtime section: runs, nodes",
            doc_trace_arg(c));
    lat_ort_summary_fini(&s);
}
