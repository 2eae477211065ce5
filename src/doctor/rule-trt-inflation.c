/*
 * rule-trt-inflation.c - per-layer profiling inflation: the sum of the layer means of
 * --exportProfile exceeds the measured GPU compute median by more than trt_inflation_pct.
 * Per-layer profiling synchronizes around every layer (and cannot use CUDA graphs), so each
 * layer's time includes the profiler's cost and the layers add up to more than one real
 * inference. The per-layer shares are still comparable, the absolute times are not. No saving:
 * a measurement caveat.
 */
#include "doctor/finding.h"
#include "doctor/trt.h"

DOC_RULE(trt_inflation)
{
    const struct lat_trt_summary *s = doc_trt(c);
    double comp;
    const char *src;
    if (!s || !s->nprofiled || s->layers_avg_sum_ms <= 0 ||
        !doc_trt_median(s, LAT_TRT_COMPUTE, &comp, &src) || comp <= 0)
        return;
    double infl = 100.0 * (s->layers_avg_sum_ms - comp) / comp, th = c->o->th.trt_inflation_pct;
    if (infl <= th) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-profile-inflation", c->trace);
    if (!f) return;
    doc_saving(f, 0, 0);
    doc_set(c->r, &f->title,
            "TensorRT: the layers of the profile add up to %.4f ms per inference, %.0f %% more "
            "than the measured GPU compute (%.4f ms): per-layer times are inflated by profiling",
            s->layers_avg_sum_ms, infl, comp);
    doc_set(c->r, &f->saving_method, "none: a measurement caveat, not a cost");
    doc_kv_num(c->r, f, "layers_mean_sum_ms", s->layers_avg_sum_ms);
    doc_kv_num(c->r, f, "gpu_compute_median_ms", comp);
    doc_kv_num(c->r, f, "inflation_pct", infl);
    doc_kv_num(c->r, f, "threshold_pct", th);
    doc_kv_str(c->r, f, "source", src);
    doc_kv_str(c->r, f, "separate_profile_run",
               s->separate_profiling < 0 ? "unknown"
               : s->separate_profiling   ? "on"
                                         : "off");
    doc_set(c->r, &f->recommendation,
            "Use the per-layer numbers as shares, not as times: scale them to the GPU compute "
            "median. %sFor the real kernel times of one inference, profile the timing run "
            "with Nsight Systems (nsys profile --cuda-graph-trace=node trtexec ...) instead of "
            "the per-layer profiler.",
            s->separate_profiling == 1
                ? ""
                : "Keep profiling out of the timing run (--separateProfileRun) so the "
                  "latencies are not inflated too. ");
    doc_set(c->r, &f->next_step,
            "nsys profile -o trt-timeline trtexec %s --separateProfileRun --useCudaGraph",
            doc_trt_engine_flag(c));
}
