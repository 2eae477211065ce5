/*
 * rule-cpu-python.c - Python/framework overhead between operators on a CPU-only trace: the
 * share of each step that lies outside every operator (the ProfilerStep's own self time and the
 * self time of record_function regions other than pre/post-processing and DataLoader; see
 * cpuops.c). That is interpreter and framework time: module calls, argument parsing, Python
 * loops, building lists and tensors between ops. When the trace has python_function events
 * (torch.profiler with_stack=True), the Python functions' own time inside the steps (their
 * duration minus the Python functions, ops and regions directly inside them) names where it
 * goes.
 */
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pyev {
    uint32_t track;
    lat_ns ts, end;
    size_t ev;
};

static int cmp_pyev(const void *x, const void *y)
{
    const struct pyev *a = x, *b = y;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

/* Self time per python_function name inside the sampled steps (on each step's thread), into
 * acc. Returns 0, 1 when the trace has no python_function event, -ENOMEM. */
static int python_self(struct doc_ctx *c, struct doc_acc *acc)
{
    const struct lat_trace *t = c->t;
    const struct doc_cpuops *p = c->cpu;
    size_t n = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_PYTHON && t->ev.dur[i] > 0) n++;
    if (!n) return 1;
    struct pyev *py = malloc(n * sizeof(*py));
    /* one open-interval stack: python events and the ops/regions of the thread, by start */
    struct pyev *stk = malloc((n + 64) * sizeof(*stk));
    size_t stk_cap = n + 64;
    if (!py || !stk) {
        free(py);
        free(stk);
        return -ENOMEM;
    }
    n = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_PYTHON && t->ev.dur[i] > 0)
            py[n++] = (struct pyev){t->ev.track[i], t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i], i};
    qsort(py, n, sizeof(*py), cmp_pyev);
    int rc = 0;
    for (size_t s = 0; s < c->nsteps && !rc; s++) {
        if (!p->s[s].sampled) continue;
        const struct doc_step *st = &c->steps[s];
        uint32_t tr = st->track;
        if (tr >= t->ntracks) continue;
        /* python events of the thread that start inside the step */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (py[mid].track < tr || (py[mid].track == tr && py[mid].ts < st->ts))
                lo = mid + 1;
            else
                hi = mid;
        }
        const uint32_t *ce = c->trk_ev + c->trk_off[tr];
        size_t m = c->trk_off[tr + 1] - c->trk_off[tr], clo = 0, chi = m;
        while (clo < chi) {
            size_t mid = clo + (chi - clo) / 2;
            if (t->ev.ts[ce[mid]] < st->ts)
                clo = mid + 1;
            else
                chi = mid;
        }
        size_t a = lo, b = clo, depth = 0;
        for (;;) {
            bool pa = a < n && py[a].track == tr && py[a].ts < st->end;
            bool pb = b < m && t->ev.ts[ce[b]] < st->end;
            if (!pa && !pb) break;
            struct pyev e;
            bool is_py;
            if (pa && (!pb || py[a].ts <= t->ev.ts[ce[b]])) {
                e = py[a++];
                is_py = true;
            } else {
                size_t i = ce[b++];
                if (doc_is_step_event(c, i) || t->ev.dur[i] < 0) continue;
                e = (struct pyev){tr, t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i], SIZE_MAX};
                is_py = false;
            }
            if (e.end > st->end) e.end = st->end;
            while (depth && stk[depth - 1].end <= e.ts) {
                const struct pyev *top = &stk[--depth];
                if (top->ev != SIZE_MAX)
                    rc |= doc_acc_add(acc, t->ev.name[top->ev], top->end - top->ts, 1);
            }
            /* a direct child's time is not its parent's own time: end minus start, taken off
             * the parent by shifting its start (self = duration - children) */
            if (depth) {
                struct pyev *par = &stk[depth - 1];
                lat_ns ov = (e.end < par->end ? e.end : par->end) - e.ts;
                if (par->ev != SIZE_MAX && ov > 0)
                    rc |= doc_acc_add(acc, t->ev.name[par->ev], -ov, 0);
            }
            (void)is_py;
            if (depth == stk_cap) break; /* cannot happen: at most n + ops events nest */
            stk[depth++] = e;
        }
        while (depth) {
            const struct pyev *top = &stk[--depth];
            if (top->ev != SIZE_MAX)
                rc |= doc_acc_add(acc, t->ev.name[top->ev], top->end - top->ts, 1);
        }
    }
    free(py);
    free(stk);
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
