/*
 * trt.h - what the TensorRT rules (rule-trt-*.c) share (trt.c): the analyze summary of the
 * trace (analyze/trt.h, computed once per doctor run) and the names their commands use.
 * Internal to src/doctor.
 */
#ifndef LAT_DOCTOR_TRT_H
#define LAT_DOCTOR_TRT_H

#include "analyze/trt.h"
#include "doctor/rules.h"

/* The summary of c's trace (NULL when not a TensorRT trace or out of memory: r->err set). The
 * doctor frees it after the rules (doc_trt_fini). */
const struct lat_trt_summary *doc_trt(struct doc_ctx *c);
void doc_trt_fini(struct doc_ctx *c);
/* Whether the trace has anything the TensorRT rules judge (profiled layers, queries or a
 * printed summary). */
bool doc_trt_judgeable(const struct lat_trace *t);
/* The median (ms) of metric m: trtexec's printed one when the input has it, else the one of the
 * exported queries; false when neither. *src: "trtexec's summary" or "exported queries". */
bool doc_trt_median(const struct lat_trt_summary *s, int m, double *ms, const char **src);
/* The mean latency per query (ms) to express savings against: the printed mean latency, the
 * queries' mean, the compute median, else the sum of the layer means; 0 when none. */
double doc_trt_latency_ms(const struct lat_trt_summary *s);
/* "--loadEngine=ENGINE" (the TREx prefix is the engine file's name), "--onnx=MODEL" (a log's
 * model), quoted for a shell; a placeholder when the input names neither. */
const char *doc_trt_engine_flag(struct doc_ctx *c);
/* ms as lat_ns */
static inline lat_ns doc_trt_ns(double ms)
{
    return ms > 0 && ms < 9e12 ? (lat_ns)(ms * 1e6 + 0.5) : 0;
}

#endif
