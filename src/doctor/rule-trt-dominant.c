/*
 * rule-trt-dominant.c - one layer holds trt_dominant_pct or more of the sum of the layer means:
 * the engine's time is in that layer, so its tactic (the kernel TensorRT chose) is the place
 * to look. The finding names the layer, its type, precision and tactic. No saving is claimed
 * beyond half of the layer for an FP32 layer (fp32_speedup), since which tactic is fastest is
 * TensorRT's measurement.
 */
#include "doctor/finding.h"
#include "doctor/shell.h"
#include "doctor/trt.h"

#include <stdlib.h>
#include <string.h>

DOC_RULE(trt_dominant)
{
    const struct lat_trt_summary *s = doc_trt(c);
    if (!s || !s->nprofiled || s->layers_avg_sum_ms <= 0) return;
    const struct lat_trt_layer *L = NULL;
    for (size_t i = 0; i < s->nlayers && !L; i++)
        if (s->layers[i].has_profile) L = &s->layers[i]; /* sorted by mean, descending */
    double th = c->o->th.trt_dominant_pct;
    if (!L || L->share_pct < th) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-dominant-layer", c->trace);
    if (!f) return;
    bool fp32 = L->precision && !strcmp(L->precision, "FP32");
    double lat = doc_trt_latency_ms(s);
    double part = lat * L->share_pct / 100.0;
    doc_saving(f, fp32 ? doc_trt_ns(part * (1.0 - 1.0 / c->o->th.fp32_speedup)) : 0,
               doc_trt_ns(lat));
    doc_set(c->r, &f->title,
            "TensorRT: layer %.80s%s (%s, %s) takes %.1f %% of the engine's layer time (%.4f ms "
            "per inference)%s%.80s",
            L->name, strlen(L->name) > 80 ? "..." : "", L->type ? L->type : "type unknown",
            L->precision ? L->precision : "precision unknown", L->share_pct, L->avg_ms,
            L->tactic ? ", tactic " : "", L->tactic ? L->tactic : "");
    doc_set(c->r, &f->saving_method,
            fp32 ? "an FP32 layer: its time x (1 - 1/fp32_speedup), applied to the mean latency"
                 : "none claimed: the tactic is the fastest TensorRT measured for this layer; "
                   "the finding says where the time is");
    doc_kv_str(c->r, f, "layer", L->name);
    doc_kv_str(c->r, f, "type", L->type ? L->type : "");
    doc_kv_str(c->r, f, "precision", L->precision ? L->precision : "");
    doc_kv_str(c->r, f, "tactic", L->tactic ? L->tactic : "");
    doc_kv_num(c->r, f, "mean_ms", L->avg_ms);
    doc_kv_num(c->r, f, "share_pct", L->share_pct);
    doc_kv_num(c->r, f, "threshold_pct", th);
    doc_set(c->r, &f->recommendation,
            "Look at this layer first: %s profile its kernel with Nsight Compute (the tactic "
            "name is the kernel's), try a larger workspace and a longer tactic search "
            "(--memPoolSize=workspace:4096 --builderOptimizationLevel=5 --avgTiming=16) so "
            "TensorRT can choose faster tactics, and compare engines layer by layer with "
            "TREx.",
            fp32 ? "it runs in FP32: build with --fp16 (--layerPrecisions for this layer) if "
                   "its accuracy allows;"
                 : "");
    char nb[256];
    char *q = NULL;
    if (L->tactic) {
        doc_ncu_name(L->tactic, nb, sizeof(nb));
        size_t l = strlen(nb) + 8;
        char *re = malloc(l);
        if (re) {
            snprintf(re, l, "regex:%s", nb);
            q = doc_sh_quote(re, false);
            free(re);
        }
    }
    if (q)
        doc_set(c->r, &f->next_step, "ncu --kernel-name %s --launch-count 1 trtexec %s", q,
                doc_trt_engine_flag(c));
    else
        doc_set(c->r, &f->next_step,
                "trtexec %s --profilingVerbosity=detailed --exportLayerInfo=graph.json "
                "--exportProfile=profile.json",
                doc_trt_engine_flag(c));
    free(q);
}
