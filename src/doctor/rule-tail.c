/*
 * rule-tail.c - R10: slow steps and what they do that the median step does not.
 */
#include "core/err.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DOC_RULE(tail)
{
    struct doc_summary *sum = c->sum;
    size_t n = c->nsteps;
    if (!c->steps_real || n < (size_t)c->o->th.tail_min_steps) return;
    lat_ns *d = malloc(n * sizeof(*d));
    struct doc_acc *comp = calloc(n, sizeof(*comp));
    struct doc_acc all = {0};
    lat_ns *vals = malloc(n * sizeof(*vals));
    lat_ns *sorted = malloc(n * sizeof(*sorted));
    bool *sampled = calloc(n, sizeof(*sampled));
    if (!d || !comp || !vals || !sorted || !sampled) goto nomem;
    for (size_t i = 0; i < n; i++)
        d[i] = c->steps[i].end - c->steps[i].ts;
    memcpy(vals, d, n * sizeof(*d));
    qsort(vals, n, sizeof(*vals), lat_cmp_i64);
    lat_ns median = (lat_ns)lat_median_i64(vals, n);
    lat_ns p90 = lat_pctl_i64(vals, n, 90);
    sum->step_median = median;
    sum->step_p90 = p90;
    sum->step_max = vals[n - 1];
    lat_ns limit = median + (lat_ns)((double)median * c->o->th.tail_pct / 100.0);
    if (p90 <= limit) goto out;
    /* Components per step: self time on the step's thread by (name, op). With more than ~1000
     * steps only every stride-th step (and every stride-th slow step) is decomposed, so memory
     * stays bounded on traces with very many short steps. */
    lat_ns excess = 0, above = 0; /* above: Σ max(0, step - median) over every step */
    size_t nslow = 0, stride = n > 1000 ? n / 1000 : 1, nsamp = 0, nslow_samp = 0;
    for (size_t i = 0; i < n; i++) {
        bool slow = d[i] >= p90 && d[i] > limit;
        if (d[i] > median) above += d[i] - median;
        if (slow) {
            nslow++;
            excess += d[i] - median;
        }
        if (!(i % stride == 0 || (slow && (nslow - 1) % stride == 0))) continue;
        sampled[i] = true;
        nsamp++;
        if (slow) nslow_samp++;
        const struct doc_step *s = &c->steps[i];
        if (doc_attr_window(c, s->track, s->ts, s->end, &comp[i])) goto nomem;
        for (size_t j = 0; j < comp[i].n; j++)
            if (doc_acc_add(&all, comp[i].rows[j].key, 0, 0)) goto nomem;
    }
    struct doc_finding *f = doc_finding_add(c->r, "tail-steps", c->trace);
    if (!f) goto nomem;
    /* an upper bound: no step gains more than its time above the median (counting only the
     * p90 tail would understate a tail of 11 stalled runs in 30) */
    doc_saving(f, (lat_ns)((double)above / (double)n), c->step_mean);
    char b1[32], b2[32];
    /* per component: mean over slow steps minus median over all steps */
    size_t nk;
    struct doc_kvpair *keys = doc_acc_sorted(&all, &nk);
    if (!keys) goto nomem;
    for (size_t k = 0; k < nk; k++) {
        lat_ns slow = 0;
        uint32_t elevated = 0;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (sampled[i]) {
                vals[i] = doc_acc_get(&comp[i], keys[k].key);
                sorted[m++] = vals[i];
                if (d[i] >= p90 && d[i] > limit) slow += vals[i];
            }
        qsort(sorted, m, sizeof(*sorted), lat_cmp_i64);
        lat_ns cmed = (lat_ns)lat_median_i64(sorted, m);
        for (size_t i = 0; i < n; i++)
            if (sampled[i] && d[i] >= p90 && d[i] > limit && vals[i] > cmed) elevated++;
        keys[k].val = (nslow_samp ? slow / (lat_ns)nslow_samp : 0) - cmed;
        keys[k].cnt = elevated;
    }
    (void)nsamp;
    qsort(keys, nk, sizeof(*keys), doc_cmp_kvpair);
    char top[400] = "";
    if (nk && keys[0].val > 0) doc_key_label(c, keys[0].key, top, sizeof(top));
    doc_set(c->r, &f->title, "The slowest %s%s (p90 and above) %s %s slower than the median %s%s%s",
            nslow == 1 ? "step" : "steps", "", nslow == 1 ? "is" : "are",
            doc_fmt_ns(excess / (lat_ns)nslow, b1, sizeof(b1)), doc_fmt_ns(median, b2, sizeof(b2)),
            top[0] ? "; most of it: " : "", top);
    doc_set(c->r, &f->saving_method,
            "sum over every step slower than the median of (step time - median step time) / "
            "number of steps: what the mean step gains at most if no step ran slower than the "
            "median (an upper bound; the slow steps alone, p90 and above, are "
            "slow_steps_excess_us_per_step). Components compare "
            "the mean over slow steps with the median over all steps of the step thread's self "
            "time per (event, enclosing op)");
    doc_kv_us(c->r, f, "median_step_us", median);
    doc_kv_us(c->r, f, "p90_step_us", p90);
    doc_kv_us(c->r, f, "max_step_us", sum->step_max);
    doc_kv_int(c->r, f, "slow_steps", (int64_t)nslow);
    doc_kv_us(c->r, f, "slow_steps_excess_us_per_step", (lat_ns)((double)excess / (double)n));
    doc_kv_us(c->r, f, "mean_minus_median_us", c->step_mean - median);
    doc_kv_int(c->r, f, "steps", (int64_t)n);
    bool first_only = nslow == 1 && d[0] >= p90 && d[0] > limit;
    doc_kv_bool(c->r, f, "only_first_step_is_slow", first_only);
    /* CPU contention (rule-cpu-contention.c) explains slow steps in which the same ops ran much
     * slower per call: then they are neither warm-up nor a tail to tune. */
    size_t ncont = 0;
    for (size_t i = 0; i < n && c->cpu && c->cpu->contended; i++)
        if (d[i] >= p90 && d[i] > limit && c->cpu->contended[i]) ncont++;
    bool contention = ncont > 0 && ncont * 2 >= nslow;
    doc_kv_int(c->r, f, "slow_steps_with_cpu_contention", (int64_t)ncont);
    /* Warm-up only when the slow step is the program's first: a first ProfilerStep numbered N > 0
     * had N steps before it (torch.profiler's wait/warmup steps), which paid the first-call
     * costs. */
    bool warmup = first_only && !contention && c->steps[0].num <= 0;
    doc_kv_bool(c->r, f, "warm_up", warmup);
    bool gpu = (c->have & DOC_HAVE_GPU) != 0;
    enum lat_framework fw = doc_framework(c); /* the advice names its APIs */
    /* A slow first step is warm-up, a contended step is the machine: worth knowing, not a
     * steady-state saving. */
    if (first_only || contention) f->severity = DOC_SEV_INFO;
    for (size_t i = 0; i < n; i++) {
        if (!(d[i] >= p90 && d[i] > limit)) continue;
        doc_row_begin(c->r, f, "slow_steps");
        doc_kv_int(c->r, f, "step", c->steps[i].num);
        doc_kv_us(c->r, f, "dur_us", d[i]);
        doc_kv_us(c->r, f, "excess_us", d[i] - median);
        doc_row_end(f);
        struct doc_example e = {0};
        char nm[64];
        e.name = doc_step_label(c, i, nm, sizeof(nm));
        e.ts = c->steps[i].ts;
        e.offset = e.ts - c->t0;
        e.dur = d[i];
        e.value = d[i] - median;
        e.step = c->steps[i].num;
        e.stream = -1;
        e.tid = c->steps[i].track < c->t->ntracks ? c->t->tracks[c->steps[i].track].tid : -1;
        if (f->nex < c->o->max_examples) doc_example_add(c->r, f, &e);
    }
    for (size_t k = 0, shown = 0; k < nk && shown < 6; k++) {
        if (keys[k].val <= 0) break;
        char label[400];
        doc_key_label(c, keys[k].key, label, sizeof(label));
        doc_row_begin(c->r, f, "components");
        doc_kv_str(c->r, f, "what", label);
        doc_kv_us(c->r, f, "extra_us_in_slow_steps", keys[k].val);
        doc_kv_int(c->r, f, "slow_steps_elevated", keys[k].cnt);
        doc_row_end(f);
        shown++;
    }
    free(keys);
    char why[400] = "";
    if (contention)
        snprintf(why, sizeof(why),
                 "%zu of the %zu slow steps ran the same operators much slower per call than "
                 "the other steps (see cpu-contention): the thread was waiting for a CPU, not "
                 "doing different work; fix the contention, not the model. ",
                 ncont, nslow);
    else if (warmup)
        snprintf(why, sizeof(why),
                 "Only the first step is slow: this is warm-up; exclude it from latency numbers "
                 "%s and warm up before serving. ",
                 fw == LAT_FW_ORT ? "(the first InferenceSession.run grows the memory arena and "
                                    "picks kernels: run one inference per input shape first)"
                 : fw == LAT_FW_TF
                     ? "(start the profiler after a few steps; tf.function traces and "
                       "compiles on its first call)"
                 : fw == LAT_FW_PYTORCH ? "(torch.profiler schedule warmup)"
                                        : "(start profiling after a few runs)");
    else if (first_only)
        snprintf(why, sizeof(why),
                 "Only the first profiled step is slow, but it is ProfilerStep#%d: %d steps ran "
                 "before it, so it is not the program's first run (not warm-up). It may carry "
                 "the profiler's own start-up or a one-time event (a new input shape, garbage "
                 "collection, another process on the machine); profile more steps to tell. ",
                 c->steps[0].num, c->steps[0].num);
    if (fw == LAT_FW_ORT)
        doc_set(c->r, &f->recommendation,
                "%sLook at what the slow steps do that the median step does not (components). "
                "Typical causes in ONNX Runtime: other load on the machine or more threads than "
                "cores (SessionOptions.intra_op_num_threads / inter_op_num_threads = physical "
                "cores, pin the process with taskset or numactl), memory-arena growth on a new, "
                "larger input shape (warm up with the largest shape you serve), the first run "
                "with each input shape (warm up every shape; with CUDA/TensorRT execution "
                "providers also every optimisation profile), data-dependent work (variable "
                "sequence lengths: bucket them).",
                why);
    else if (fw == LAT_FW_TF)
        doc_set(c->r, &f->recommendation,
                "%sLook at what the slow steps do that the median step does not (components). "
                "Typical causes in TensorFlow: tf.function retracing on new input shapes or "
                "Python values (an input_signature or reduce_retracing=True; TensorFlow logs "
                "the retracing), XLA compilation on a first call (jit_compile), other load on "
                "the machine or more threads than cores "
                "(tf.config.threading.set_intra_op_parallelism_threads / "
                "set_inter_op_parallelism_threads, pin with taskset or numactl), "
                "data-dependent work (variable sequence lengths: bucket them).",
                why);
    else if (fw != LAT_FW_PYTORCH) /* a runtime whose APIs latscope cannot name */
        doc_set(c->r, &f->recommendation,
                "%sLook at what the slow steps do that the median step does not (components). "
                "Typical causes: other load on the machine or more threads than cores (set the "
                "runtime's thread count to the physical cores, pin the process with taskset or "
                "numactl), the first run with each input shape (warm up every shape you "
                "serve), data-dependent work (variable sequence lengths: bucket them).",
                why);
    else if (gpu)
        doc_set(c->r, &f->recommendation,
                "%sLook at what the slow steps do that the median step does not (components). "
                "Typical causes: allocator growth (cudaMalloc under aten::empty: warm up with the "
                "largest shapes, static shapes), recompilation (torch.compile guards: "
                "TORCH_LOGS=recompiles; dynamic=False with padded shapes), cuDNN autotuning "
                "(torch.backends.cudnn.benchmark with changing shapes), garbage collection "
                "(gc.freeze() after warm-up), data-dependent work (variable sequence lengths: "
                "bucket them). TensorRT/ONNX Runtime: warm up every optimisation profile/shape "
                "before serving.",
                why);
    else
        doc_set(c->r, &f->recommendation,
                "%sLook at what the slow steps do that the median step does not (components). "
                "Typical causes on CPU: other load on the machine or more threads than cores "
                "(torch.set_num_threads / OMP_NUM_THREADS = physical cores, pin the process with "
                "taskset or numactl), first calls with a new input shape (oneDNN builds a "
                "primitive per shape: warm up with every shape you serve), torch.compile "
                "recompilation (TORCH_LOGS=recompiles), garbage collection (gc.freeze() after "
                "warm-up), data-dependent work (variable sequence lengths: bucket them). ONNX "
                "Runtime / OpenVINO: warm up each input shape before serving.",
                why);
    doc_set(c->r, &f->next_step,
            "latscope analyze %s   # per-step breakdown; then measure the "
            "real tail under load with latscope bench",
            doc_trace_arg(c));
    goto out;
nomem:
    c->r->err = -ENOMEM;
out:
    if (comp)
        for (size_t i = 0; i < n; i++)
            doc_acc_fini(&comp[i]);
    free(comp);
    free(d);
    free(vals);
    free(sorted);
    free(sampled);
    doc_acc_fini(&all);
}
