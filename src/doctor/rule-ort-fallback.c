/*
 * rule-ort-fallback.c - ONNX Runtime nodes that fell back to the CPU (ingest/ort.c profiles
 * only): the session ran under another execution provider (OpenVINO, CUDA, TensorRT, DirectML,
 * ...) but some nodes ran on CPUExecutionProvider, because that provider has no kernel for the
 * op (or for its types or attributes). Each fallback splits the graph: the provider's subgraph
 * ends, its outputs go to the CPU and back. The finding names the fallen-back op types, the
 * provider, their share of the run time (the same per-provider split as analyze's ONNX Runtime
 * section, analyze/ort.c) and what to do; it fires at >= ort_fallback_pct of the run time.
 * The saving is an estimate: the CPU nodes' time per run (the provider runs them in some time,
 * and the copies at the subgraph boundaries it also removes are not in the profile).
 */
#include "analyze/ort.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_EP "CPUExecutionProvider"

DOC_RULE(ort_fallback)
{
    if (!lat_ort_is(c->t)) return;
    struct lat_ort_summary s;
    /* every node: the op types of the CPU nodes come from the node rows */
    if (lat_ort_summarize(c->t, SIZE_MAX / 2, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    const struct lat_ort_row *cpu = NULL, *other = NULL;
    for (size_t i = 0; i < s.nproviders; i++) {
        const char *p = s.providers[i].name;
        if (!p) continue;
        if (!strcmp(p, CPU_EP))
            cpu = &s.providers[i];
        else if (!other) /* by total: the main provider */
            other = &s.providers[i];
    }
    if (!cpu || !other || !s.runs || cpu->pct < c->o->th.ort_fallback_pct) {
        lat_ort_summary_fini(&s);
        return;
    }
    struct doc_finding *f = doc_finding_add(c->r, "ort-cpu-fallback", c->trace);
    if (!f) {
        lat_ort_summary_fini(&s);
        return;
    }
    lat_ns per = (lat_ns)((double)cpu->total / (double)s.runs);
    lat_ns run_mean = (lat_ns)s.run_mean_ns;
    doc_saving(f, per, run_mean);
    f->saving_bound = DOC_BOUND_ESTIMATE;
    /* the op types on the CPU, by time (node rows are sorted by total) */
    struct doc_acc ops = {0};
    char names[256] = "";
    size_t nops = 0, len = 0;
    for (size_t i = 0; i < s.nnodes; i++) {
        const struct lat_ort_row *n = &s.nodes[i];
        if (!n->provider || strcmp(n->provider, CPU_EP) || !n->op) continue;
        uint32_t id = strtab_find(&c->t->strs, n->op, strlen(n->op));
        if (id == UINT32_MAX) continue;
        bool first = doc_acc_get(&ops, id) == 0;
        if (doc_acc_add(&ops, id, n->total, (uint32_t)n->calls)) {
            c->r->err = -ENOMEM;
            break;
        }
        if (first && nops < 6) {
            int w = snprintf(names + len, sizeof(names) - len, "%s%s", nops ? ", " : "", n->op);
            if (w > 0 && (size_t)w < sizeof(names) - len) len += (size_t)w;
            nops++;
        }
    }
    char b1[32];
    doc_set(c->r, &f->title,
            "ONNX Runtime: %s run on %s instead of %s: %.1f %% of each model_run (%s)", names,
            CPU_EP, other->name, cpu->pct, doc_fmt_ns(per, b1, sizeof(b1)));
    doc_set(c->r, &f->saving_method,
            "the %s nodes' time per run (analyze's per-provider split); an estimate: %s "
            "would run those ops in some time, and the copies at the subgraph boundaries it "
            "also removes are not in the profile",
            CPU_EP, other->name);
    doc_kv_str(c->r, f, "provider", other->name);
    doc_kv_num(c->r, f, "provider_pct", other->pct);
    doc_kv_str(c->r, f, "fallback_provider", CPU_EP);
    doc_kv_num(c->r, f, "fallback_pct", cpu->pct);
    doc_kv_us(c->r, f, "fallback_us_per_run", per);
    doc_kv_int(c->r, f, "fallback_nodes_calls", (int64_t)cpu->calls);
    doc_kv_us(c->r, f, "run_mean_us", run_mean);
    doc_kv_int(c->r, f, "runs", (int64_t)s.runs);
    doc_kv_num(c->r, f, "threshold_pct", c->o->th.ort_fallback_pct);
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(&ops, &n);
    for (size_t i = 0; v && i < n && i < 8; i++) {
        doc_row_begin(c->r, f, "fallback_ops");
        doc_kv_str(c->r, f, "op", lat_trace_str(c->t, (uint32_t)v[i].key));
        doc_kv_num(c->r, f, "calls_per_run", (double)v[i].cnt / (double)s.runs);
        doc_kv_us(c->r, f, "us_per_run", (lat_ns)((double)v[i].val / (double)s.runs));
        doc_row_end(f);
    }
    if (!v && n) c->r->err = -ENOMEM;
    free(v);
    doc_acc_fini(&ops);
    doc_set(c->r, &f->recommendation,
            "Keep the graph on %s: check which ops it supports (its operator support list for "
            "the installed version) and replace the fallen-back ones (%s) by supported "
            "equivalents or move them out of the model (post-processing such as TopK/Unique/"
            "NMS often can be); fix their types or attributes when only those are unsupported "
            "(e.g. int64 inputs); or update the provider. Session logging at verbose level "
            "(so.log_severity_level = 0) lists the nodes placed on each provider; every "
            "fallback also splits the graph into subgraphs with copies between them.",
            other->name, names);
    doc_set(c->r, &f->next_step,
            "latscope analyze %s   # ONNX Runtime section: execution providers and the nodes on "
            "each",
            doc_trace_arg(c));
    lat_ort_summary_fini(&s);
}
