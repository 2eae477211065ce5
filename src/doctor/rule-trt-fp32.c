/*
 * rule-trt-fp32.c - FP32 layers in an engine built with FP16 or INT8 allowed (build.Precision
 * names FP16/INT8, or some layer runs in them): layers whose input is FP32 (reformat and Q/DQ
 * layers left out) hold trt_fp32_pct or more of the sum of the layer means. TensorRT keeps a
 * layer in FP32 when no faster lower-precision tactic exists, when a layer type has none, or
 * when the network pins it. Saving bound: their time x (1 - 1/fp32_speedup), scaled to the
 * mean latency.
 */
#include "doctor/finding.h"
#include "doctor/shell.h"
#include "doctor/trt.h"

#include <stdlib.h>
#include <string.h>

static bool lowp(const char *p)
{
    return p && (!strcmp(p, "FP16") || !strcmp(p, "INT8") || !strcmp(p, "BF16") ||
                 !strcmp(p, "FP8") || !strcmp(p, "INT4") || !strcmp(p, "FP4"));
}

DOC_RULE(trt_fp32)
{
    const struct lat_trt_summary *s = doc_trt(c);
    if (!s || !s->nprofiled || s->layers_avg_sum_ms <= 0) return;
    bool allowed = s->build_precision &&
                   (strstr(s->build_precision, "FP16") || strstr(s->build_precision, "INT8") ||
                    strstr(s->build_precision, "BF16") || strstr(s->build_precision, "FP8"));
    double fp32 = 0;
    size_t n = 0;
    for (size_t i = 0; i < s->nlayers; i++) {
        const struct lat_trt_layer *L = &s->layers[i];
        if (!L->has_profile) continue;
        if (lowp(L->precision)) allowed = true;
        if (L->precision && !strcmp(L->precision, "FP32") && !L->reformat && !L->qdq) {
            fp32 += L->avg_ms;
            n++;
        }
    }
    double pct = 100.0 * fp32 / s->layers_avg_sum_ms, th = c->o->th.trt_fp32_pct;
    if (!allowed || !n || pct < th) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-fp32-layers", c->trace);
    if (!f) return;
    double sp = c->o->th.fp32_speedup, lat = doc_trt_latency_ms(s);
    doc_saving(f, doc_trt_ns(lat * pct / 100.0 * (1.0 - 1.0 / sp)), doc_trt_ns(lat));
    doc_set(c->r, &f->title,
            "TensorRT: %zu layers run in FP32 in an engine that allows lower precision: %.1f %% "
            "of the layer time (%.4f ms per inference)",
            n, pct, fp32);
    doc_set(c->r, &f->saving_method,
            "their share of the layer time x (1 - 1/fp32_speedup = %.2f), applied to the mean "
            "latency; an estimate: the real gain depends on the tactics TensorRT finds",
            1.0 - 1.0 / sp);
    doc_kv_str(c->r, f, "build_precision", s->build_precision ? s->build_precision : "unknown");
    doc_kv_int(c->r, f, "fp32_layers", (int64_t)n);
    doc_kv_num(c->r, f, "fp32_ms", fp32);
    doc_kv_num(c->r, f, "fp32_pct", pct);
    doc_kv_num(c->r, f, "threshold_pct", th);
    const struct lat_trt_layer *top = NULL;
    size_t shown = 0;
    for (size_t i = 0; i < s->nlayers && shown < 5; i++) {
        const struct lat_trt_layer *L = &s->layers[i];
        if (!L->has_profile || !L->precision || strcmp(L->precision, "FP32") || L->reformat ||
            L->qdq)
            continue;
        if (!top) top = L;
        shown++;
        doc_row_begin(c->r, f, "layers");
        doc_kv_str(c->r, f, "name", L->name);
        doc_kv_str(c->r, f, "type", L->type ? L->type : "");
        doc_kv_str(c->r, f, "tactic", L->tactic ? L->tactic : "");
        doc_kv_num(c->r, f, "mean_ms", L->avg_ms);
        doc_row_end(f);
    }
    char *q = NULL;
    if (top) {
        size_t l = strlen(top->name) + 8;
        char *spec = malloc(l);
        if (spec) {
            snprintf(spec, l, "%s:fp16", top->name);
            q = doc_sh_quote(spec, false);
            free(spec);
        }
    }
    doc_set(c->r, &f->recommendation,
            "Ask for the lower precision on these layers and check that TensorRT keeps it "
            "(--precisionConstraints=prefer, or obey to force it, with --layerPrecisions); "
            "then check the accuracy of the result against the framework (polygraphy run "
            "MODEL.onnx --trt --fp16 --onnxrt compares the outputs). Layers without an "
            "FP16/INT8 implementation stay FP32: in INT8 engines, Q/DQ nodes around them "
            "decide.");
    doc_set(c->r, &f->next_step,
            "trtexec %s --fp16 --precisionConstraints=prefer --layerPrecisions=%s "
            "--exportProfile=profile.json",
            doc_trt_engine_flag(c), q ? q : "LAYER:fp16");
    free(q);
}
