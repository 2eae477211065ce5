/*
 * rule-cpu-contention.c - CPU contention or thread over-subscription on a CPU-only trace: in
 * some steps the same operators, called the same number of times, ran much slower per call
 * than their median over the steps (default 5x). Work that is identical but slower means the
 * thread got less CPU (other processes or threads on its cores, more threads than cores), not
 * warm-up or data-dependent work; the tail rule reads this result so that it does not call such
 * a step "warm-up".
 *
 * Per (sampled) step and operator name: self time and calls (cpuops.c). An operator counts as
 * slowed in step s when its calls in s equal its median calls per step, its self time in s is
 * at least 50 µs, and its time per call is >= cpu_contention_ratio x its median per call. A step
 * is contended when at least two operators are slowed there, or one whose extra time alone is at
 * least half the median step (one node stalled for tens of ms in an ONNX Runtime run). Saving:
 * Σ over contended steps of the slowed operators' (self time - calls x median per call), per
 * step: a lower bound (ops slowed less than the ratio are not counted).
 */
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SELF_NS (50 * LAT_NS_PER_US)

struct opstat {
    uint64_t key;
    lat_ns med_pc; /* median self time per call over the steps with calls */
    uint32_t med_cnt;
};

DOC_RULE(cpu_contention)
{
    if (doc_cpuops_build(c)) return;
    struct doc_cpuops *p = c->cpu;
    const double ratio = c->o->th.cpu_contention_ratio;
    /* every operator key of the sampled steps */
    struct doc_acc keys = {0};
    for (size_t s = 0; s < p->n; s++) {
        if (!p->s[s].sampled) continue;
        const struct doc_acc *a = &p->s[s].self;
        for (size_t j = 0; j < a->n; j++) {
            if ((uint32_t)a->rows[j].key) continue; /* runtime keys carry an op */
            uint32_t nm = (uint32_t)(a->rows[j].key >> 32);
            if (nm == DOC_NAME_STEP || nm == DOC_NAME_NONE) continue;
            if (doc_acc_add(&keys, a->rows[j].key, 0, 0)) goto nomem;
        }
    }
    size_t nk = 0;
    struct doc_kvpair *kv = doc_acc_sorted(&keys, &nk);
    lat_ns *pc = malloc((p->n ? p->n : 1) * sizeof(*pc));
    uint32_t *cn = malloc((p->n ? p->n : 1) * sizeof(*cn));
    lat_ns *extra = calloc(p->n ? p->n : 1, sizeof(*extra));
    uint32_t *nslow = calloc(p->n ? p->n : 1, sizeof(*nslow));
    struct opstat *os = malloc((nk ? nk : 1) * sizeof(*os));
    if (!kv || !pc || !cn || !extra || !nslow || !os) {
        free(kv);
        free(pc);
        free(cn);
        free(extra);
        free(nslow);
        free(os);
        goto nomem;
    }
    for (size_t k = 0; k < nk; k++) {
        size_t m = 0;
        for (size_t s = 0; s < p->n; s++) {
            if (!p->s[s].sampled) continue;
            const struct doc_acc *a = &p->s[s].self;
            lat_ns v = doc_acc_get(a, kv[k].key);
            uint32_t n = doc_acc_count(a, kv[k].key);
            if (!n) continue;
            pc[m] = v / (lat_ns)n;
            cn[m] = n;
            m++;
        }
        os[k].key = kv[k].key;
        os[k].med_pc = 0;
        os[k].med_cnt = 0;
        if (m < 3) continue;
        qsort(pc, m, sizeof(*pc), lat_cmp_i64);
        qsort(cn, m, sizeof(*cn), lat_cmp_u32);
        os[k].med_pc = (lat_ns)lat_median_i64(pc, m);
        os[k].med_cnt = cn[m / 2];
    }
    for (size_t k = 0; k < nk; k++) {
        if (os[k].med_pc <= 0) continue;
        for (size_t s = 0; s < p->n; s++) {
            if (!p->s[s].sampled) continue;
            lat_ns v = doc_acc_get(&p->s[s].self, os[k].key);
            uint32_t n = doc_acc_count(&p->s[s].self, os[k].key);
            if (!n || n != os[k].med_cnt || v < MIN_SELF_NS) continue;
            if ((double)(v / (lat_ns)n) < ratio * (double)os[k].med_pc) continue;
            extra[s] += v - (lat_ns)n * os[k].med_pc;
            nslow[s]++;
        }
    }
    size_t worst = SIZE_MAX, ncont = 0;
    lat_ns excess = 0;
    /* ONNX Runtime's first model_run does one-time work in the same nodes (weight prepacking,
     * arena growth): slower identical work there is a cold start (the tail rule's warm-up),
     * not contention */
    bool ort = lat_trace_has(c->t, LAT_FCAP_COLD_FIRST_RUN);
    lat_ns med_step = 0;
    {
        lat_ns *sd = malloc((c->nsteps ? c->nsteps : 1) * sizeof(*sd));
        if (!sd) {
            c->r->err = -ENOMEM;
            goto done;
        }
        for (size_t s = 0; s < c->nsteps; s++)
            sd[s] = c->steps[s].end - c->steps[s].ts;
        qsort(sd, c->nsteps, sizeof(*sd), lat_cmp_i64);
        med_step = c->nsteps ? (lat_ns)lat_median_i64(sd, c->nsteps) : 0;
        free(sd);
    }
    for (size_t s = 0; s < p->n; s++) {
        bool one_stall = nslow[s] == 1 && med_step > 0 && 2 * extra[s] >= med_step;
        if ((nslow[s] < 2 && !one_stall) || (ort && c->steps[s].num == 0)) continue;
        p->contended[s] = true;
        ncont++;
        excess += extra[s];
        if (worst == SIZE_MAX || extra[s] > extra[worst]) worst = s;
    }
    p->contention_excess = excess;
    double nst = (double)(p->nsampled ? p->nsampled : 1);
    lat_ns per = (lat_ns)((double)excess / nst);
    if (worst != SIZE_MAX) p->contention_step = c->steps[worst].num;
    if (worst == SIZE_MAX || PCT(per, c->step_mean) < c->o->th.cpu_contention_pct) goto done;
    struct doc_finding *f = doc_finding_add(c->r, "cpu-contention", c->trace);
    if (!f) goto done;
    doc_saving(f, per, c->step_mean);
    f->saving_bound = DOC_BOUND_LOWER;
    /* the worst step's slowed operators, by extra time */
    struct doc_kvpair *rows = malloc((nk ? nk : 1) * sizeof(*rows));
    size_t nr = 0;
    if (!rows) {
        c->r->err = -ENOMEM;
        goto done;
    }
    for (size_t k = 0; k < nk; k++) {
        if (os[k].med_pc <= 0) continue;
        lat_ns v = doc_acc_get(&p->s[worst].self, os[k].key);
        uint32_t n = doc_acc_count(&p->s[worst].self, os[k].key);
        if (!n || n != os[k].med_cnt || v < MIN_SELF_NS) continue;
        if ((double)(v / (lat_ns)n) < ratio * (double)os[k].med_pc) continue;
        rows[nr++] = (struct doc_kvpair){k, v - (lat_ns)n * os[k].med_pc, n};
    }
    qsort(rows, nr, sizeof(*rows), doc_cmp_kvpair);
    char b1[32], b2[32];
    const struct opstat *top = &os[rows[0].key];
    lat_ns top_v = doc_acc_get(&p->s[worst].self, top->key);
    double top_ratio = (double)(top_v / (lat_ns)rows[0].cnt) / (double)top->med_pc;
    doc_set(c->r, &f->title,
            "CPU contention: in %zu %s the same operators ran up to %.0fx slower per call than "
            "in the other steps, with the same number of calls (%s: %s in step %d vs %s per "
            "step elsewhere); the thread did not get the CPU",
            ncont, ncont == 1 ? "step" : "steps", top_ratio,
            lat_trace_str(c->t, (uint32_t)(top->key >> 32)), doc_fmt_ns(top_v, b1, sizeof(b1)),
            c->steps[worst].num, doc_fmt_ns((lat_ns)rows[0].cnt * top->med_pc, b2, sizeof(b2)));
    doc_set(c->r, &f->saving_method,
            "over the contended steps: the slowed operators' self time minus calls x their "
            "median time per call, per step; what the mean step gains if those steps ran "
            "uncontended. An operator is slowed when it has its usual number of calls but takes "
            ">= %.1fx its median time per call (and >= 50 us in the step); a step is contended "
            "when two or more are, or one whose extra time is >= half the median step. A lower "
            "bound: operators slowed less than that ratio are not counted",
            ratio);
    doc_kv_int(c->r, f, "contended_steps", (int64_t)ncont);
    doc_kv_int(c->r, f, "steps", (int64_t)p->nsampled);
    doc_kv_int(c->r, f, "worst_step", c->steps[worst].num);
    doc_kv_us(c->r, f, "worst_step_us", c->steps[worst].end - c->steps[worst].ts);
    doc_kv_us(c->r, f, "worst_step_extra_us", extra[worst]);
    doc_kv_us(c->r, f, "extra_us_per_step", per);
    doc_kv_num(c->r, f, "slowdown_threshold", ratio);
    for (size_t i = 0; i < nr && i < 6; i++) {
        const struct opstat *o = &os[rows[i].key];
        lat_ns v = doc_acc_get(&p->s[worst].self, o->key);
        doc_row_begin(c->r, f, "slowed_ops_in_worst_step");
        doc_kv_str(c->r, f, "op", lat_trace_str(c->t, (uint32_t)(o->key >> 32)));
        doc_kv_int(c->r, f, "calls", rows[i].cnt);
        doc_kv_us(c->r, f, "self_us_per_call", v / (lat_ns)rows[i].cnt);
        doc_kv_us(c->r, f, "median_self_us_per_call", o->med_pc);
        doc_kv_num(c->r, f, "slowdown", (double)(v / (lat_ns)rows[i].cnt) / (double)o->med_pc);
        doc_kv_us(c->r, f, "extra_us", rows[i].val);
        doc_row_end(f);
    }
    free(rows);
    for (size_t s = 0, shown = 0; s < p->n && shown < c->o->max_examples; s++) {
        if (!p->contended[s]) continue;
        struct doc_example e = {0};
        char nm[64];
        e.name = doc_step_label(c, s, nm, sizeof(nm));
        e.ts = c->steps[s].ts;
        e.offset = e.ts - c->t0;
        e.dur = c->steps[s].end - c->steps[s].ts;
        e.value = extra[s];
        e.step = c->steps[s].num;
        e.stream = -1;
        e.tid = c->steps[s].track < c->t->ntracks ? c->t->tracks[c->steps[s].track].tid : -1;
        doc_example_add(c->r, f, &e);
        shown++;
    }
    enum lat_framework fw = doc_framework(c);
    doc_set(c->r, &f->recommendation,
            "The same work took longer because the thread was not running: other processes or "
            "threads competed for its cores, or the process runs more threads than there are "
            "cores. Give inference dedicated cores: %s, pin each process to its cores (taskset, "
            "numactl --physcpubind), and never run several processes that each use all cores. "
            "Check the machine's load while profiling (a loaded CI VM shows this too), and "
            "measure latency under the real load with latscope bench rather than from one "
            "trace.",
            fw == LAT_FW_ORT
                ? "SessionOptions.intra_op_num_threads = physical cores per process (and "
                  "inter_op_num_threads = 1 unless the graph runs with ORT_PARALLEL)"
            : fw == LAT_FW_TF
                ? "tf.config.threading.set_intra_op_parallelism_threads(N) with N = physical "
                  "cores per process and set_inter_op_parallelism_threads(1 or 2) for batch-1 "
                  "serving"
            : fw == LAT_FW_PYTORCH
                ? "torch.set_num_threads(N) (or OMP_NUM_THREADS/MKL_NUM_THREADS) with N = "
                  "physical cores per process, torch.set_num_interop_threads(1) for batch-1 "
                  "serving"
                : "set the runtime's intra-op thread count to the physical cores per process");
    doc_set(c->r, &f->next_step,
            "latscope trace --cpu -o cpu.pt.trace.json.gz -- <your command> && latscope analyze "
            "cpu.pt.trace.json.gz   # on-CPU vs off-CPU time per thread");
done:
    free(kv);
    free(pc);
    free(cn);
    free(extra);
    free(nslow);
    free(os);
    doc_acc_fini(&keys);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_acc_fini(&keys);
}
