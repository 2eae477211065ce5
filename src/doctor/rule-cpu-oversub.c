/*
 * rule-cpu-oversub.c - operators far slower than their size allows on a CPU-only trace: from
 * the performance model (analyze/perfmodel.c: the bytes an elementwise or reduction op with
 * recorded shapes moves), an op that moves >= 256 KiB per call but streams under
 * cpu_min_gbps (1 GB/s; one core streams several GB/s from cache and memory) did not run for
 * most of its time: its threads waited for cores (more intra-op threads than free cores, other
 * processes on them). That is oversubscription or contention even when every step is equally
 * slow (which the contention rule, comparing steps, cannot see). The reference is the best
 * bandwidth an elementwise/reduction op of >= 256 KiB reaches in the same trace (at least
 * cpu_min_gbps): the saving estimate is each slow op's time above bytes / that bandwidth.
 */
#include "analyze/analysis.h"
#include "analyze/perfmodel.h"
#include "core/units.h"
#include "doctor/rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIN_BYTES (256.0 * 1024.0)

static bool streaming(const struct lat_an_perf *p)
{
    return !p->gpu_time && p->time > 0 && p->count && p->bytes >= MIN_BYTES &&
           (!strcmp(p->family, "elementwise") || !strcmp(p->family, "reduction"));
}

static double gbps_of(const struct lat_an_perf *p)
{
    return p->bytes * (double)p->count / ((double)p->time / 1e9) / 1e9;
}

DOC_RULE(cpu_oversub)
{
    const double lim = c->o->th.cpu_min_gbps;
    struct lat_an_rank pm;
    if (pm_run(c->t, 1000, &pm)) {
        c->r->err = -ENOMEM;
        return;
    }
    double best = lim;
    for (size_t i = 0; i < pm.nperf; i++)
        if (streaming(&pm.perf[i]) && gbps_of(&pm.perf[i]) > best) best = gbps_of(&pm.perf[i]);
    double nst = c->nsteps ? (double)c->nsteps : 1.0;
    lat_ns slow = 0, excess = 0;
    size_t nslow = 0, worst = SIZE_MAX;
    for (size_t i = 0; i < pm.nperf; i++) {
        const struct lat_an_perf *p = &pm.perf[i];
        if (!streaming(p) || gbps_of(p) >= lim) continue;
        lat_ns need = (lat_ns)(p->bytes * (double)p->count / (best * 1e9) * 1e9);
        slow += p->time;
        excess += p->time > need ? p->time - need : 0;
        nslow++;
        if (worst == SIZE_MAX || p->time > pm.perf[worst].time) worst = i;
    }
    lat_ns per = (lat_ns)((double)excess / nst);
    if (!nslow || PCT(per, c->step_mean) < c->o->th.min_saving_pct * 2) {
        pm_rows_free(&pm);
        return;
    }
    struct doc_finding *f = doc_finding_add(c->r, "cpu-oversubscription", c->trace);
    if (!f) {
        pm_rows_free(&pm);
        return;
    }
    doc_saving(f, per, c->step_mean);
    f->saving_bound = DOC_BOUND_ESTIMATE;
    const struct lat_an_perf *w = &pm.perf[worst];
    char b1[32], b2[32];
    lat_ns per_call = (lat_ns)((double)w->time / (double)w->count);
    doc_set(c->r, &f->title,
            "Operators ran far slower than their size allows: %s (%s) moves %s per call in %s "
            "(%.2f GB/s; %s %.1f GB/s): the threads did not get the CPU (more threads than free "
            "cores?)",
            w->op, w->shape ? w->shape : "", units_format_bytes((uint64_t)w->bytes, b1, sizeof(b1)),
            doc_fmt_ns(per_call, b2, sizeof(b2)), gbps_of(w),
            best > lim ? "ops of this size reach in this trace" : "one core streams over", best);
    doc_set(c->r, &f->saving_method,
            "per %s: over the elementwise/reduction ops that move >= 256 KiB per call at under "
            "%.1f GB/s (bytes from the performance model), their time minus bytes / the best "
            "bandwidth such an op reaches in this trace (%.1f GB/s); an estimate",
            doc_per_step(c), lim, best);
    doc_kv_int(c->r, f, "slow_ops", (int64_t)nslow);
    doc_kv_us(c->r, f, "slow_ops_us_per_step", (lat_ns)((double)slow / nst));
    doc_kv_num(c->r, f, "best_gb_per_s", best);
    doc_kv_num(c->r, f, "threshold_gb_per_s", lim);
    for (size_t i = 0, shown = 0; i < pm.nperf && shown < 6; i++) {
        const struct lat_an_perf *p = &pm.perf[i];
        if (!streaming(p) || gbps_of(p) >= lim) continue;
        doc_row_begin(c->r, f, "slow_ops");
        doc_kv_str(c->r, f, "op", p->op);
        doc_kv_str(c->r, f, "shape", p->shape ? p->shape : "");
        doc_kv_int(c->r, f, "calls", (int64_t)p->count);
        doc_kv_int(c->r, f, "bytes_per_call", (int64_t)p->bytes);
        doc_kv_us(c->r, f, "us_per_call", (lat_ns)((double)p->time / (double)p->count));
        doc_kv_num(c->r, f, "gb_per_s", gbps_of(p));
        doc_row_end(f);
        shown++;
    }
    enum lat_framework fw = doc_framework(c);
    doc_set(c->r, &f->recommendation,
            "Give each process no more threads than the cores it has to itself: %s; with "
            "several processes or server workers on one machine, divide the cores between them "
            "and pin them (taskset, numactl --physcpubind). Check what else runs on the cores "
            "while profiling (a loaded CI VM shows this too) and measure under the real load "
            "with latscope bench.",
            fw == LAT_FW_ORT ? "SessionOptions.intra_op_num_threads = free physical cores"
            : fw == LAT_FW_TF
                ? "tf.config.threading.set_intra_op_parallelism_threads(free physical cores)"
            : fw == LAT_FW_PYTORCH
                ? "torch.set_num_threads(free physical cores) (OMP_NUM_THREADS for OpenMP "
                  "libraries), torch.set_num_interop_threads(1) for batch-1 serving"
                : "the framework's intra-op thread count (OMP_NUM_THREADS for OpenMP libraries)");
    doc_set(c->r, &f->next_step,
            "latscope trace --cpu -o cpu.pt.trace.json.gz -- <your command> && latscope analyze "
            "cpu.pt.trace.json.gz   # on-CPU vs off-CPU time per thread");
    pm_rows_free(&pm);
}
