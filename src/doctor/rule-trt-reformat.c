/*
 * rule-trt-reformat.c - reformat layers (LayerType Reformat outside Q/DQ, "Reformatting
 * CopyNode ..." layers) above trt_reformat_pct of the sum of the layer means: TensorRT copies
 * tensors between layouts/precisions because neighbouring layers chose different formats, or
 * because the engine's inputs/outputs are in another format than its first/last layer wants.
 * Saving bound: the reformat layers' time per inference (scaled to the measured latency when
 * the per-layer sum is inflated by profiling).
 */
#include "doctor/finding.h"
#include "doctor/shell.h"
#include "doctor/trt.h"

#include <stdlib.h>
#include <string.h>

DOC_RULE(trt_reformat)
{
    const struct lat_trt_summary *s = doc_trt(c);
    if (!s || !s->nprofiled || s->layers_avg_sum_ms <= 0) return;
    double th = c->o->th.trt_reformat_pct;
    if (s->reformat_pct <= th) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-reformat-layers", c->trace);
    if (!f) return;
    double lat = doc_trt_latency_ms(s);
    doc_saving(f, doc_trt_ns(lat * s->reformat_pct / 100.0), doc_trt_ns(lat));
    doc_set(c->r, &f->title,
            "TensorRT: %zu reformat layers take %.1f %% of the engine's layer time (%.4f ms per "
            "inference): tensors are copied between formats",
            s->nreformat, s->reformat_pct, s->reformat_ms);
    doc_set(c->r, &f->saving_method,
            "the reformat layers' share of the sum of the layer means, applied to the mean "
            "latency; an upper bound (some format changes are needed)");
    doc_kv_int(c->r, f, "reformat_layers", (int64_t)s->nreformat);
    doc_kv_num(c->r, f, "reformat_ms", s->reformat_ms);
    doc_kv_num(c->r, f, "reformat_pct", s->reformat_pct);
    doc_kv_num(c->r, f, "threshold_pct", th);
    bool input = false;
    size_t shown = 0;
    for (size_t i = 0; i < s->nlayers && shown < 5; i++) {
        const struct lat_trt_layer *L = &s->layers[i];
        if (!L->has_profile || !L->reformat) continue;
        if (strstr(L->name, "for Input Tensor") && L->index == 0) input = true;
        shown++;
        doc_row_begin(c->r, f, "layers");
        doc_kv_str(c->r, f, "name", L->name);
        doc_kv_num(c->r, f, "mean_ms", L->avg_ms);
        doc_kv_num(c->r, f, "share_pct", L->share_pct);
        doc_row_end(f);
    }
    doc_kv_bool(c->r, f, "engine_input_reformatted", input);
    doc_set(c->r, &f->recommendation,
            "%sKeep neighbouring layers in one precision so TensorRT needs no copy between "
            "them (--precisionConstraints=obey with --layerPrecisions for the layers around a "
            "reformat, or fewer FP32 islands in an FP16/INT8 engine), and look at where the "
            "copies sit in the TREx graph (trex's draw_engine.py on the .graph.json).",
            input ? "The engine's input is reformatted before the first layer: give the input "
                    "in the format that layer wants (trtexec --inputIOFormats=fp16:chw, or "
                    "int8:chw32 for INT8 engines; the same for outputs with "
                    "--outputIOFormats). "
                  : "");
    doc_set(c->r, &f->next_step,
            "trtexec %s --inputIOFormats=fp16:chw --outputIOFormats=fp16:chw "
            "--profilingVerbosity=detailed --exportProfile=profile.json "
            "--exportLayerInfo=graph.json",
            doc_trt_engine_flag(c));
}
