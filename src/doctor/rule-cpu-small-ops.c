/*
 * rule-cpu-small-ops.c - small operators dominated by dispatch overhead on a CPU-only trace:
 * many outermost operators per step, each shorter than cpu_small_op (20 µs), together a large
 * share of the step. For ops that short, PyTorch's per-op dispatch (argument checks, dtype and
 * device dispatch, output allocation: a few µs) is a large part of each op.
 */
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

DOC_RULE(cpu_small_ops)
{
    if (doc_cpuops_build(c)) return;
    const struct doc_cpuops *p = c->cpu;
    const struct doc_thresholds *th = &c->o->th;
    double nst = (double)(p->nsampled ? p->nsampled : 1);
    uint64_t nsmall = 0, nops = 0;
    struct doc_acc by = {0};
    for (size_t i = 0; i < p->n; i++) {
        if (!p->s[i].sampled) continue;
        nsmall += p->s[i].nsmall;
        nops += p->s[i].nops;
    }
    lat_ns per = DOC_CPU_MEAN(p, small);
    double small_ps = (double)nsmall / nst;
    if (small_ps < (double)th->cpu_small_ops_min || PCT(per, c->step_mean) < th->cpu_small_ops_pct)
        return;
    struct doc_finding *f = doc_finding_add(c->r, "cpu-small-ops", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    char b1[32], b2[32];
    doc_set(c->r, &f->title,
            "%.0f small operators per %s (each shorter than %s) take %.1f %% of it: per-op "
            "dispatch overhead dominates",
            small_ps, doc_per_step(c), doc_fmt_ns(th->cpu_small_op, b1, sizeof(b1)), f->saving_pct);
    doc_set(c->r, &f->saving_method,
            "per %s: total time of outermost operators shorter than cpu_small_op (%s); an upper "
            "bound for fusing them into fewer, larger ops",
            doc_per_step(c), doc_fmt_ns(th->cpu_small_op, b2, sizeof(b2)));
    doc_kv_num(c->r, f, "small_ops_per_step", small_ps);
    doc_kv_num(c->r, f, "operators_per_step", (double)nops / nst);
    doc_kv_us(c->r, f, "small_ops_us_per_step", per);
    doc_kv_num(c->r, f, "small_ops_pct_of_step", PCT(per, c->step_mean));
    doc_kv_us(c->r, f, "small_op_cutoff_us", th->cpu_small_op);
    /* the most frequent operators, over the sampled steps */
    for (size_t i = 0; i < p->n; i++) {
        if (!p->s[i].sampled) continue;
        const struct doc_acc *a = &p->s[i].top;
        for (size_t j = 0; j < a->n; j++)
            if (doc_acc_add(&by, a->rows[j].key, (lat_ns)a->rows[j].cnt, 0)) goto nomem;
    }
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(&by, &n);
    if (!v) goto nomem;
    for (size_t i = 0; i < n && i < 6; i++) {
        doc_row_begin(c->r, f, "most_called_ops");
        doc_kv_str(c->r, f, "op", lat_trace_str(c->t, (uint32_t)v[i].key));
        doc_kv_num(c->r, f, "calls_per_step", (double)v[i].val / nst);
        doc_row_end(f);
    }
    free(v);
    if (p->compiled)
        doc_set(c->r, &f->recommendation,
                "Run fewer, larger operators. The model is compiled already (torch.compile "
                "regions in the trace), so these ops run outside its fused kernels: look for "
                "graph breaks (TORCH_LOGS=graph_breaks) that leave them eager, and extern calls "
                "(aten:: ops inside the compiled region) Inductor did not fuse; batch requests "
                "(a larger batch costs the same number of dispatches); replace Python loops of "
                "small tensor ops by one op on a whole tensor.");
    else
        doc_set(
            c->r, &f->recommendation,
            "Run fewer, larger operators. Fuse them: torch.compile(model) (Inductor fuses "
            "elementwise chains into C++/OpenMP loops on CPU), torch.jit.freeze + "
            "torch.jit.optimize_for_inference, or export to ONNX Runtime / OpenVINO, whose graph "
            "optimisers fuse such sequences. Batch requests (a larger batch costs the same "
            "number of dispatches); replace Python loops of small tensor ops by one op on a "
            "whole tensor.");
    doc_set(c->r, &f->next_step,
            "latscope analyze %s   # the operator table: calls and time per call",
            doc_trace_arg(c));
    doc_acc_fini(&by);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_acc_fini(&by);
}
