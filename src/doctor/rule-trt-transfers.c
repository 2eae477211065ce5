/*
 * rule-trt-transfers.c - trtexec's H2D/D2H warnings (sampleReporting.cpp: median H2D >= median
 * GPU compute, the same for D2H): the copies of the inputs/outputs take as long as the engine
 * itself. trtexec suggests --noDataTransfers to measure the engine alone; in a deployment the
 * copies are the application's (pinned memory, overlap with compute, or keep data on the
 * device). Saving bound: the copy time per query.
 */
#include "doctor/finding.h"
#include "doctor/trt.h"

static void one(struct doc_ctx *c, const struct lat_trt_summary *s, int m, const char *id,
                const char *what)
{
    double v, comp;
    const char *sv, *sc;
    if (!doc_trt_median(s, m, &v, &sv) || !doc_trt_median(s, LAT_TRT_COMPUTE, &comp, &sc) ||
        v <= 0 || v < comp)
        return;
    struct doc_finding *f = doc_finding_add(c->r, id, c->trace);
    if (!f) return;
    doc_saving(f, doc_trt_ns(v), doc_trt_ns(doc_trt_latency_ms(s)));
    doc_set(c->r, &f->title,
            "TensorRT: the %s copy (%.3f ms per query) takes as long as the GPU compute (%.3f "
            "ms): the query is bound by data transfers",
            what, v, comp);
    doc_set(c->r, &f->saving_method,
            "the median %s time per query; an upper bound (copies overlapped with compute on "
            "another stream hide, not remove, them)",
            what);
    doc_kv_num(c->r, f, "copy_median_ms", v);
    doc_kv_num(c->r, f, "gpu_compute_median_ms", comp);
    doc_kv_str(c->r, f, "source", sv);
    doc_set(c->r, &f->recommendation,
            "Measure the engine alone with trtexec --noDataTransfers. In the application: "
            "use pinned host buffers (cudaHostAlloc), overlap the copies of query N+1 with the "
            "compute of query N on a second stream, keep the tensors on the device between "
            "stages, and send smaller types (FP16/INT8 inputs with --inputIOFormats).");
    doc_set(c->r, &f->next_step, "trtexec %s --noDataTransfers --exportTimes=times.json",
            doc_trt_engine_flag(c));
}

DOC_RULE(trt_transfers)
{
    const struct lat_trt_summary *s = doc_trt(c);
    if (!s || s->data_transfers == 0) return;
    one(c, s, LAT_TRT_H2D, "trt-h2d-bound", "host-to-device");
    one(c, s, LAT_TRT_D2H, "trt-d2h-bound", "device-to-host");
}
