/*
 * rule-cpu-python.c - Python/framework overhead between operators on a CPU-only trace: the
 * share of each step that lies outside every operator (the ProfilerStep's own self time and the
 * self time of record_function regions other than pre/post-processing and DataLoader; see
 * cpuops.c). That is interpreter and framework time: module calls, argument parsing, Python
 * loops, building lists and tensors between ops.
 */
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void doc_rule_cpu_python(struct doc_ctx *c)
{
    if (doc_cpuops_build(c)) return;
    const struct doc_cpuops *p = c->cpu;
    lat_ns per = DOC_CPU_MEAN(p, python);
    if (PCT(per, c->step_mean) < c->o->th.cpu_python_pct) return;
    struct doc_finding *f = doc_finding_add(c->r, "cpu-python-overhead", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    uint64_t nops = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->s[i].sampled) nops += p->s[i].nops;
    double ops = p->nsampled ? (double)nops / (double)p->nsampled : 0;
    char b1[32];
    doc_set(c->r, &f->title,
            "Python/framework code outside any operator takes %.1f %% of each %s (%s; %.0f "
            "operators per %s)",
            f->saving_pct, doc_per_step(c), doc_fmt_ns(per, b1, sizeof(b1)), ops, doc_per_step(c));
    doc_set(c->r, &f->saving_method,
            "per %s: time inside the step on its thread that no operator covers (the "
            "ProfilerStep's self time, and the self time of record_function regions other than "
            "pre/post-processing and DataLoader); an upper bound: compiled or exported models "
            "remove most, never all, of it",
            doc_per_step(c));
    doc_kv_us(c->r, f, "python_us_per_step", per);
    doc_kv_num(c->r, f, "python_pct_of_step", PCT(per, c->step_mean));
    doc_kv_us(c->r, f, "outside_regions_us_per_step", per - DOC_CPU_MEAN(p, regions_self));
    doc_kv_us(c->r, f, "in_regions_us_per_step", DOC_CPU_MEAN(p, regions_self));
    doc_kv_us(c->r, f, "operators_us_per_step", DOC_CPU_MEAN(p, ops));
    doc_kv_num(c->r, f, "operators_per_step", ops);
    doc_kv_us(c->r, f, "mean_step_us", c->step_mean);
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(&p->regions_by, &n);
    if (!v) {
        c->r->err = -ENOMEM;
        return;
    }
    for (size_t i = 0, shown = 0; i < n && shown < 5; i++) {
        if (v[i].val <= 0) continue;
        doc_row_begin(c->r, f, "regions_self_time");
        doc_kv_str(c->r, f, "region", lat_trace_str(c->t, (uint32_t)v[i].key));
        doc_kv_us(c->r, f, "self_us_per_step",
                  (lat_ns)((double)v[i].val / (double)(p->nsampled ? p->nsampled : 1)));
        doc_row_end(f);
        shown++;
    }
    free(v);
    doc_set(c->r, &f->recommendation,
            "Remove Python from between the operators. Compile or export the model so the "
            "framework does not return to Python after every op: torch.compile(model) (Inductor "
            "generates fused C++/OpenMP code for CPU), torch.jit.trace + torch.jit.freeze, or "
            "export to ONNX and run it with ONNX Runtime or OpenVINO. Run under "
            "torch.inference_mode(); move per-step Python (loops over tensors, list building, "
            ".item()/.tolist(), logging) out of the step; batch requests so the per-step cost "
            "is shared.");
    if (doc_cpu_has_samples(c->t))
        doc_set(c->r, &f->next_step,
                "latscope analyze %s   # its CPU section shows which Python functions run "
                "between the ops",
                doc_trace_arg(c));
    else
        doc_set(c->r, &f->next_step,
                "latscope trace --cpu -o cpu.pt.trace.json.gz -- <your command> && latscope "
                "analyze cpu.pt.trace.json.gz   # which Python functions run between the ops");
}
