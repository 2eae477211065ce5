/*
 * rule-trt-enqueue.c - trtexec's "may be bound by Enqueue Time" warning (sampleReporting.cpp:
 * median enqueue > 0.8 x median GPU compute, trt_enqueue_ratio): the host submits a query
 * about as slowly as the GPU runs it, so the GPU waits for the host. Medians from trtexec's
 * own summary when the input has it (TREx profile.metadata.json, the log), else from the
 * exported queries (--exportTimes; their enqueue times have the resolution of the file's
 * absolute times). Saving bound: the enqueue time above the compute time per query.
 */
#include "doctor/finding.h"
#include "doctor/trt.h"

DOC_RULE(trt_enqueue)
{
    const struct lat_trt_summary *s = doc_trt(c);
    double enq, comp;
    const char *se, *sc;
    if (!s || !doc_trt_median(s, LAT_TRT_ENQUEUE, &enq, &se) ||
        !doc_trt_median(s, LAT_TRT_COMPUTE, &comp, &sc) || comp <= 0)
        return;
    double ratio = enq / comp, th = c->o->th.trt_enqueue_ratio;
    if (ratio <= th) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-enqueue-bound", c->trace);
    if (!f) return;
    double lat = doc_trt_latency_ms(s);
    doc_saving(f, doc_trt_ns(enq > comp ? enq - comp : enq * (1.0 - th)), doc_trt_ns(lat));
    doc_set(c->r, &f->title,
            "TensorRT: enqueue takes %.3f ms per query, %.0f %% of the GPU compute time (%.3f "
            "ms): throughput may be bound by the host's enqueue, not the GPU",
            enq, 100.0 * ratio, comp);
    doc_set(c->r, &f->saving_method,
            "per query: median enqueue minus median GPU compute when enqueue is longer, else "
            "the enqueue time above %.0f %% of compute; an upper bound (CUDA graphs remove "
            "most, not all, of the enqueue cost)",
            100.0 * th);
    doc_kv_num(c->r, f, "enqueue_median_ms", enq);
    doc_kv_num(c->r, f, "gpu_compute_median_ms", comp);
    doc_kv_num(c->r, f, "ratio", ratio);
    doc_kv_num(c->r, f, "threshold_ratio", th);
    doc_kv_str(c->r, f, "source", se);
    doc_kv_str(c->r, f, "cuda_graph", s->cuda_graph < 0 ? "unknown" : s->cuda_graph ? "on" : "off");
    if (s->cuda_graph == 1)
        doc_set(c->r, &f->recommendation,
                "CUDA graphs are already on, so the enqueue cost is the graph launch and the "
                "host's own work per query: run several streams (trtexec --infStreams=2, or "
                "--streams=2 before TensorRT 10) or batch more work per query, and check the "
                "host is not throttled (--useSpinWait makes waits exact).");
    else
        doc_set(c->r, &f->recommendation,
                "Capture the engine's launches in a CUDA graph (trtexec --useCudaGraph; in an "
                "application: capture context->enqueueV3() once with "
                "cudaStreamBeginCapture/EndCapture and replay it with cudaGraphLaunch), which "
                "replaces the per-layer launches by one; larger batches also amortize the "
                "enqueue.");
    doc_set(c->r, &f->next_step, "trtexec %s --useCudaGraph --useSpinWait --exportTimes=times.json",
            doc_trt_engine_flag(c));
}
