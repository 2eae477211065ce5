/*
 * rule-cpu-eager.c - eager mode while CPU-bound in many small operators or in Python between
 * them (CPU-only trace, no torch.compile region): advice to compile or export the model. An
 * info finding: its saving is the one cpu-python-overhead and cpu-small-ops estimate.
 */
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>

DOC_RULE(cpu_eager)
{
    if (doc_cpuops_build(c)) return;
    const struct doc_cpuops *p = c->cpu;
    const struct doc_thresholds *th = &c->o->th;
    if (p->compiled) return;
    lat_ns py = DOC_CPU_MEAN(p, python), small = DOC_CPU_MEAN(p, small);
    double nst = (double)(p->nsampled ? p->nsampled : 1);
    uint64_t nops = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->s[i].sampled) nops += p->s[i].nops;
    double ops = (double)nops / nst;
    /* bound by overhead: Python between ops plus small ops above both rules' thresholds */
    if (ops < (double)th->cpu_small_ops_min ||
        PCT(py + small, c->step_mean) < th->cpu_python_pct + th->cpu_small_ops_pct)
        return;
    struct doc_finding *f = doc_finding_add(c->r, "cpu-eager", c->trace);
    if (!f) return;
    doc_saving(f, 0, c->step_mean);
    doc_set(c->r, &f->title,
            "The model runs eagerly (no torch.compile region) and %.0f %% of each %s is Python "
            "between ops or small ops: compile or export it",
            PCT(py + small, c->step_mean), doc_per_step(c));
    doc_set(c->r, &f->saving_method,
            "not estimated separately: the time at stake is what cpu-python-overhead and "
            "cpu-small-ops report");
    doc_kv_bool(c->r, f, "compiled_region_in_trace", false);
    doc_kv_num(c->r, f, "operators_per_step", ops);
    doc_kv_num(c->r, f, "python_pct_of_step", PCT(py, c->step_mean));
    doc_kv_num(c->r, f, "small_ops_pct_of_step", PCT(small, c->step_mean));
    doc_set(c->r, &f->recommendation,
            "Try, in this order, and measure each with latscope bench: torch.compile(model) "
            "(Inductor's CPU backend; mode=\"max-autotune\" for more fusion), then an exported "
            "graph: torch.onnx.export + ONNX Runtime (CPU execution provider, "
            "graph_optimization_level=ORT_ENABLE_ALL, intra_op_num_threads = physical cores) or "
            "OpenVINO on Intel CPUs; keep torch.inference_mode() and a fixed thread count in "
            "every variant.");
    doc_set(c->r, &f->next_step,
            "latscope doctor <trace of the compiled model>   # compare operators per step and "
            "Python share");
}
