/*
 * rule-cpu-alloc.c - CPU allocation churn on a CPU-only trace recorded with profile_memory: the
 * `[memory]` instants (Device Type 0) inside the steps give allocations and bytes per step and
 * the operator each allocation happened under; the self time of allocating operators
 * (aten::empty*, zeros, ones, full, resize_) is what the allocator costs the step. Fires when
 * that self time is >= cpu_alloc_pct of the step. Without [memory] events the rule does not run
 * its check (the trace cannot show allocations) and says nothing.
 */
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool allocating_op(const char *s)
{
    static const char *const p[] = {"aten::empty",    "aten::zeros",   "aten::ones",
                                    "aten::full",     "aten::resize_", "aten::new_empty",
                                    "aten::new_zeros"};
    for (size_t i = 0; i < sizeof(p) / sizeof(*p); i++)
        if (!strncmp(s, p[i], strlen(p[i]))) return true;
    return false;
}

/* The innermost cpu_op on track tr that contains ts, -1 when none. */
static int64_t op_at(const struct doc_ctx *c, uint32_t tr, lat_ns ts)
{
    const struct lat_trace *t = c->t;
    if (tr >= t->ntracks) return -1;
    const uint32_t *ev = c->trk_ev + c->trk_off[tr];
    size_t m = c->trk_off[tr + 1] - c->trk_off[tr], lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ev.ts[ev[mid]] <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int64_t q = lo ? (int64_t)ev[lo - 1] : -1; q >= 0; q = c->parent[q])
        if (t->ev.ts[q] + t->ev.dur[q] > ts && t->ev.kind[q] == LAT_EV_CPU_OP &&
            !doc_is_step_event(c, (size_t)q))
            return q;
    return -1;
}

DOC_RULE(cpu_alloc)
{
    const struct lat_trace *t = c->t;
    if (doc_cpuops_build(c)) return;
    const struct doc_cpuops *p = c->cpu;
    uint64_t nalloc = 0, nfree = 0;
    int64_t bytes = 0, peak = 0;
    struct doc_acc by = {0};
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_INSTANT) continue;
        int64_t b = 0, dt = -1, tot = 0;
        if (!lat_trace_arg_int(t, i, "Bytes", &b)) continue;
        if (lat_trace_arg_int(t, i, "Device Type", &dt) && dt != 0) continue;
        if (doc_step_at(c, t->ev.ts[i]) < 0) continue;
        if (lat_trace_arg_int(t, i, "Total Allocated", &tot) && tot > peak) peak = tot;
        if (b <= 0) {
            nfree++;
            continue;
        }
        nalloc++;
        bytes += b;
        int64_t op = op_at(c, t->ev.track[i], t->ev.ts[i]);
        if (doc_acc_add(&by, op >= 0 ? t->ev.name[op] : UINT32_MAX, b, 1)) goto nomem;
    }
    if (!nalloc) goto out;
    lat_ns alloc_self = 0;
    for (size_t s = 0; s < p->n; s++) {
        if (!p->s[s].sampled) continue;
        const struct doc_acc *a = &p->s[s].self;
        for (size_t j = 0; j < a->n; j++) {
            if ((uint32_t)a->rows[j].key) continue;
            uint32_t nm = (uint32_t)(a->rows[j].key >> 32);
            if (nm >= DOC_NAME_NONE) continue;
            if (allocating_op(lat_trace_str(t, nm))) alloc_self += a->rows[j].val;
        }
    }
    double nst = (double)(p->nsampled ? p->nsampled : 1), nsteps = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)alloc_self / nst);
    if (PCT(per, c->step_mean) < c->o->th.cpu_alloc_pct) goto out;
    struct doc_finding *f = doc_finding_add(c->r, "cpu-allocation-churn", c->trace);
    if (!f) goto out;
    doc_saving(f, per, c->step_mean);
    char b1[32];
    doc_set(c->r, &f->title,
            "Memory is allocated and freed inside every %s: %.0f allocations, %.1f MB per %s; "
            "allocating ops take %s per %s",
            doc_per_step(c), (double)nalloc / nsteps, (double)bytes / nsteps / 1e6, doc_per_step(c),
            doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c));
    doc_set(c->r, &f->saving_method,
            "self time of allocating operators (aten::empty*, zeros, ones, full, resize_) per "
            "%s: the allocator's cost that the trace shows; page faults on fresh memory land in "
            "the ops that first touch it and are not counted, so the real cost is higher",
            doc_per_step(c));
    doc_kv_num(c->r, f, "allocations_per_step", (double)nalloc / nsteps);
    doc_kv_num(c->r, f, "frees_per_step", (double)nfree / nsteps);
    doc_kv_num(c->r, f, "bytes_allocated_per_step", (double)bytes / nsteps);
    doc_kv_int(c->r, f, "peak_total_allocated_bytes", peak);
    doc_kv_us(c->r, f, "allocating_ops_self_us_per_step", per);
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(&by, &n);
    if (!v) goto nomem;
    for (size_t i = 0; i < n && i < 6; i++) {
        doc_row_begin(c->r, f, "by_op");
        doc_kv_str(c->r, f, "op",
                   (uint32_t)v[i].key == UINT32_MAX ? "(no op)"
                                                    : lat_trace_str(t, (uint32_t)v[i].key));
        doc_kv_num(c->r, f, "allocations_per_step", (double)v[i].cnt / nsteps);
        doc_kv_num(c->r, f, "bytes_per_step", (double)v[i].val / nsteps);
        doc_row_end(f);
    }
    free(v);
    bool compiled = !doc_cpuops_build(c) && c->cpu->compiled;
    doc_set(c->r, &f->recommendation,
            "Allocate less per step. Run under torch.inference_mode() (no autograd buffers); "
            "reuse output buffers (out= variants, in-place ops) and keep input shapes fixed; "
            "%s. Use a caching "
            "allocator for the process: LD_PRELOAD=libjemalloc.so.2 (or tcmalloc), as the "
            "PyTorch CPU performance guide recommends, so large tensors are not mmap'ed and "
            "unmapped on every step.",
            compiled ? "the model is compiled already: allocations outside its graph (graph "
                       "breaks, Python between calls) are the ones to remove"
                     : "torch.compile / torch.jit.freeze plan memory for the whole graph");
    doc_set(c->r, &f->next_step,
            "LD_PRELOAD=$(ldconfig -p | awk '/libjemalloc.so.2/{print $NF; exit}') <your command>"
            "   # then profile again and compare with latscope doctor");
out:
    doc_acc_fini(&by);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_acc_fini(&by);
}
