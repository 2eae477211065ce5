/*
 * rule-cpu-python.c - Python/framework overhead between operators on a CPU-only trace: the
 * share of each step that lies outside every operator (the ProfilerStep's own self time and the
 * self time of record_function regions other than pre/post-processing and DataLoader; see
 * cpuops.c). That is interpreter and framework time: module calls, argument parsing, Python
 * loops, building lists and tensors between ops. When the trace has python_function events
 * (torch.profiler with_stack=True), the Python functions' own time inside the steps (their
 * duration minus the time ops and regions of the thread cover, minus the Python functions they
 * called, found by the Python parent ids) names where it goes. A compiled model's graph
 * regions are compiled-kernel time (cpuops.c): the advice then is about the Python around it.
 */
#include "core/ivl.h"
#include "core/u64map.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pyev {
    uint32_t track;
    lat_ns ts, end;
    size_t ev;
    size_t parent; /* index into the sorted array, SIZE_MAX: none */
};

static int cmp_pyev(const void *x, const void *y)
{
    const struct pyev *a = x, *b = y;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

/* The Python caller of each event of py (sorted by cmp_pyev): from the profiler's "Python id"
 * and "Python parent id" args when every event has them (torch.profiler with_stack), else the
 * innermost Python event that contains it on its thread. 0 or -ENOMEM. */
static int python_parents(const struct lat_trace *t, struct pyev *py, size_t n)
{
    struct lat_u64map ids = {0};
    bool have_ids = true;
    for (size_t k = 0; k < n && have_ids; k++) {
        int64_t id;
        have_ids = lat_trace_arg_int(t, py[k].ev, "Python id", &id);
        if (have_ids) {
            uint64_t *v = lat_u64map_slot(&ids, (uint64_t)id, NULL);
            if (!v) {
                lat_u64map_fini(&ids);
                return -ENOMEM;
            }
            *v = k + 1;
        }
    }
    if (have_ids) {
        for (size_t k = 0; k < n; k++) {
            int64_t pid;
            uint64_t v;
            py[k].parent = SIZE_MAX;
            if (lat_trace_arg_int(t, py[k].ev, "Python parent id", &pid) &&
                lat_u64map_get(&ids, (uint64_t)pid, &v) && v && v - 1 != k &&
                py[v - 1].track == py[k].track)
                py[k].parent = (size_t)(v - 1);
        }
        lat_u64map_fini(&ids);
        return 0;
    }
    lat_u64map_fini(&ids);
    size_t *stk = malloc((n ? n : 1) * sizeof(*stk)), depth = 0;
    if (!stk) return -ENOMEM;
    for (size_t k = 0; k < n; k++) {
        while (depth && (py[stk[depth - 1]].track != py[k].track ||
                         py[stk[depth - 1]].end < py[k].end || py[stk[depth - 1]].end <= py[k].ts))
            depth--;
        py[k].parent = depth ? stk[depth - 1] : SIZE_MAX;
        stk[depth++] = k;
    }
    free(stk);
    return 0;
}

/* Time of [a, b) that no op or region covers: the Python code's own share of it. */
static lat_ns uncovered(const struct lat_ivl_set *cover, lat_ns a, lat_ns b)
{
    return b > a ? (b - a) - lat_ivl_measure_in(cover, a, b) : 0;
}

/* Self time per python_function name inside the sampled steps (on each step's thread), into
 * acc: a Python call's time inside the step that neither an op/region of its thread nor one of
 * the Python functions it called covers. The callers come from the Python parent ids (see
 * python_parents), so a record_function range that starts inside a short Python call and ends
 * after it returns is no one's child: it only covers time. Returns 0, 1 when the trace has no
 * python_function event, -ENOMEM. */
static int python_self(struct doc_ctx *c, struct doc_acc *acc)
{
    const struct lat_trace *t = c->t;
    const struct doc_cpuops *p = c->cpu;
    size_t n = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_PYTHON && t->ev.dur[i] > 0) n++;
    if (!n) return 1;
    struct pyev *py = malloc(n * sizeof(*py));
    if (!py) return -ENOMEM;
    n = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_PYTHON && t->ev.dur[i] > 0)
            py[n++] =
                (struct pyev){t->ev.track[i], t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i], i, SIZE_MAX};
    qsort(py, n, sizeof(*py), cmp_pyev);
    int rc = python_parents(t, py, n);
    struct lat_ivl_set cover = {0};
    for (size_t s = 0; s < c->nsteps && !rc; s++) {
        if (!p->s[s].sampled) continue;
        const struct doc_step *st = &c->steps[s];
        uint32_t tr = st->track;
        if (tr >= t->ntracks) continue;
        /* the ops and regions of the thread inside the step */
        lat_ivl_reset(&cover);
        const uint32_t *ce = c->trk_ev + c->trk_off[tr];
        size_t m = c->trk_off[tr + 1] - c->trk_off[tr];
        for (size_t k = 0; k < m && !rc; k++) {
            size_t i = ce[k];
            lat_ns a = t->ev.ts[i], b = a + t->ev.dur[i];
            if (b <= st->ts || a >= st->end || doc_is_step_event(c, i)) continue;
            rc = lat_ivl_push(&cover, a < st->ts ? st->ts : a, b > st->end ? st->end : b);
        }
        if (rc) break;
        lat_ivl_merge(&cover);
        /* python events of the thread that start inside the step */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (py[mid].track < tr || (py[mid].track == tr && py[mid].ts < st->ts))
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < n && py[k].track == tr && py[k].ts < st->end && !rc; k++) {
            lat_ns a = py[k].ts, b = py[k].end < st->end ? py[k].end : st->end;
            lat_ns own = uncovered(&cover, a, b);
            rc = doc_acc_add(acc, t->ev.name[py[k].ev], own, 1);
            size_t q = py[k].parent;
            if (rc || q == SIZE_MAX || py[q].ts < st->ts) continue;
            /* the caller's own time is its time minus what this call holds of it */
            lat_ns qa = a > py[q].ts ? a : py[q].ts, qb = b < py[q].end ? b : py[q].end;
            rc = doc_acc_add(acc, t->ev.name[py[q].ev], -uncovered(&cover, qa, qb), 0);
        }
    }
    lat_ivl_fini(&cover);
    free(py);
    return rc ? -ENOMEM : 0;
}

DOC_RULE(cpu_python)
{
    /* an ONNX Runtime profile has no Python between its nodes: the time there is the
     * executor's (rule-ort.c) */
    if (lat_trace_has(c->t, LAT_FCAP_NO_PYTHON)) return;
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
            "pre/post-processing, DataLoader and compiled graphs); an upper bound: compiled or "
            "exported models remove most, never all, of it",
            doc_per_step(c));
    doc_kv_us(c->r, f, "python_us_per_step", per);
    doc_kv_num(c->r, f, "python_pct_of_step", PCT(per, c->step_mean));
    doc_kv_us(c->r, f, "outside_regions_us_per_step", per - DOC_CPU_MEAN(p, regions_self));
    doc_kv_us(c->r, f, "in_regions_us_per_step", DOC_CPU_MEAN(p, regions_self));
    doc_kv_us(c->r, f, "operators_us_per_step", DOC_CPU_MEAN(p, ops));
    doc_kv_num(c->r, f, "operators_per_step", ops);
    doc_kv_us(c->r, f, "mean_step_us", c->step_mean);
    doc_kv_bool(c->r, f, "compiled_model", p->compiled);
    if (p->compiled) doc_kv_us(c->r, f, "compiled_kernels_us_per_step", DOC_CPU_MEAN(p, compiled));
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
    struct doc_acc pyself = {0};
    int prc = python_self(c, &pyself);
    if (prc < 0) {
        doc_acc_fini(&pyself);
        c->r->err = -ENOMEM;
        return;
    }
    if (prc == 0) {
        v = doc_acc_sorted(&pyself, &n);
        if (!v) {
            doc_acc_fini(&pyself);
            c->r->err = -ENOMEM;
            return;
        }
        for (size_t i = 0, shown = 0; i < n && shown < 6; i++) {
            if (v[i].val <= 0) continue;
            doc_row_begin(c->r, f, "python_functions_self_time");
            doc_kv_str(c->r, f, "function", lat_trace_str(c->t, (uint32_t)v[i].key));
            doc_kv_us(c->r, f, "self_us_per_step",
                      (lat_ns)((double)v[i].val / (double)(p->nsampled ? p->nsampled : 1)));
            doc_row_end(f);
            shown++;
        }
        free(v);
    }
    doc_acc_fini(&pyself);
    if (p->compiled) /* the model is compiled already: never advise what it does */
        doc_set(c->r, &f->recommendation,
                "The model is already compiled (torch.compile regions in the trace; their "
                "generated kernels count as compiled-kernel time, not here): what is left is "
                "Python around the compiled graph (the step's own code, guards, the AOT "
                "runtime wrapper, graph breaks). Find graph breaks (TORCH_LOGS=graph_breaks, or "
                "torch.compile(fullgraph=True) fails at the first one) and remove them; set "
                "torch._inductor.config.cpp_wrapper = True so the graph's wrapper is C++, or "
                "package it with AOTInductor (torch._inductor.aoti_compile_and_package) and run "
                "it without Python; move per-step Python out of the step and batch requests so "
                "the per-step cost is shared.");
    else
        doc_set(c->r, &f->recommendation,
                "Remove Python from between the operators. Compile or export the model so the "
                "framework does not return to Python after every op: torch.compile(model) "
                "(Inductor generates fused C++/OpenMP code for CPU), torch.jit.trace + "
                "torch.jit.freeze, or export to ONNX and run it with ONNX Runtime or OpenVINO. "
                "Run under torch.inference_mode(); move per-step Python (loops over tensors, "
                "list building, .item()/.tolist(), logging) out of the step; batch requests so "
                "the per-step cost is shared.");
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
