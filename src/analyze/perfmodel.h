/*
 * perfmodel.h - the performance model of `latscope analyze` (issue 20 part 3): FLOPs and bytes
 * moved of CPU ops with recorded input shapes (record_shapes=True) and known semantics, the
 * achieved FLOP/s and bandwidth over the op's GPU kernel time (CPU time on CPU-only traces),
 * and the fraction of the device's peak from a documented table (docs/latscope-analyze.md,
 * "Performance model", which gives every formula and its source).
 *
 * The analysis itself is an_perfmodel() (internal.h), its rows struct lat_an_perf
 * (analysis.h). This header exposes the pure parts for tests and doctor: the cost of one op
 * from its Kineto args and the peak table.
 */
#ifndef LAT_ANALYZE_PERFMODEL_H
#define LAT_ANALYZE_PERFMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Precision classes of the peak table. */
enum pm_prec { PM_FP32 = 0, PM_TF32, PM_FP16, PM_BF16, PM_FP8, PM_INT8, PM_PREC_COUNT };

/* Op families. */
enum pm_family { PM_NONE = 0, PM_GEMM, PM_CONV, PM_ATTN, PM_ELEMWISE, PM_REDUCE };

/* One GPU model's dense peaks (no sparsity). 0: the datasheet gives none for that precision. */
struct pm_peak {
    const char *model;  /* "H100 SXM", ... */
    const char *source; /* the datasheet the numbers come from */
    double tflops[PM_PREC_COUNT];
    double vector_fp32_tflops; /* the FP32 (CUDA core / vector) peak */
    double gbps;               /* memory bandwidth, GB/s (10^9 B/s) */
};

/* The table entry for a deviceProperties name ("NVIDIA H100 80GB HBM3"), or NULL when the
 * model is not in the table (never a guess). */
const struct pm_peak *pm_peak_for(const char *device_name);

/* The cost of one op instance. */
struct pm_cost {
    enum pm_family family;
    bool matrix;            /* GEMM, conv, attention: tensor-core peaks apply */
    int prec;               /* enum pm_prec, or -1 (fp64, integers, unknown type) */
    const char *dtype;      /* "fp32", "bf16", "fp16", "fp8", "int8", "fp64", ... (static) */
    double flops, bytes;    /* per instance */
    int64_t m, n, k, batch; /* GEMM (and attention: m = N_Q, n = N_KV, k = head dim) */
    char shape[160];        /* "M=141 N=512 K=512", "B=4 H=12 N=197 d=64", ... */
};

/* The family of an op name (PM_NONE when not modelled). *owner: the op's cost covers its whole
 * subtree (aten::convolution, aten::_convolution), so ops below it are not modelled. */
enum pm_family pm_family_of(const char *name, bool *owner);

/* Cost of op `name` from its args' raw JSON text ("Input Dims", "Input type", "Concrete
 * Inputs"; concrete may be NULL). 0, or -1 when the args do not give what the formula needs
 * (then *c is unspecified). */
int pm_cost(const char *name, const char *dims, const char *types, const char *concrete,
            struct pm_cost *c);

struct lat_trace;
struct lat_an_rank;
/* The performance model of trace t alone (no HTA preprocessing: every event kept; GPU rows
 * joined to runtime calls by correlation id), for doctor: fills out->perf, nperf, nperf_total,
 * perf_instances, perf_unparsed, perf_time (top_n rows by time). Free with pm_rows_free().
 * 0 or -ENOMEM. */
int pm_run(const struct lat_trace *t, size_t top_n, struct lat_an_rank *out);
void pm_rows_free(struct lat_an_rank *r);

/* "FP32", "TF32", "FP16", "BF16", "FP8", "INT8". */
const char *pm_prec_name(int prec);

#endif
