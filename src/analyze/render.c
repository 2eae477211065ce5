/*
 * render.c - analyze's JSON document and text report (render.h), driven by the field tables.
 *
 * Moved out of cmd-analyze.c unchanged in output (tests/e2e/t160-golden.sh proves it byte for
 * byte): every row array of a rank is written from its lat_an_table; the launch object, the CPU
 * sample summary and the text report keep their hand-laid layout.
 */
#include "analyze/render.h"
#include "analyze/memtl.h"
#include "analyze/ort.h"
#include "analyze/sections.h"
#include "analyze/tf.h"

#include "analyze/cpu.h"
#include "core/err.h"
#include "core/esc.h"
#include "core/features.h"
#include "core/table.h"
#include "core/units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- field tables -------------------------------------------------------------------------- */

#define F(key, unit, label, type, member)                                                          \
    {                                                                                              \
        key, LAT_AN_U_##unit, label, offsetof(type, member), false                                 \
    }
/* A GPU column (struct lat_an_field.gpu). */
#define FG(key, unit, label, type, member)                                                         \
    {                                                                                              \
        key, LAT_AN_U_##unit, label, offsetof(type, member), true                                  \
    }
#define TABLE(name, jkey, type, arr)                                                               \
    const struct lat_an_table name = {jkey, arr, sizeof(arr) / sizeof(arr[0]), sizeof(type)}

static const struct lat_an_field temporal_f[] = {
    F("kernel_time_us", NS, "kernel time", struct lat_an_temporal, kernel_time),
    F("idle_us", NS, "idle", struct lat_an_temporal, idle),
    F("compute_us", NS, "compute", struct lat_an_temporal, compute),
    F("non_compute_us", NS, "non-compute", struct lat_an_temporal, non_compute),
    F("idle_pct", PCT, "idle %", struct lat_an_temporal, idle_pct),
    F("compute_pct", PCT, "compute %", struct lat_an_temporal, compute_pct),
    F("non_compute_pct", PCT, "non-compute %", struct lat_an_temporal, non_compute_pct),
    F("clamped_us", NS, "compute over busy time (clamped)", struct lat_an_temporal, clamped),
};
TABLE(lat_an_temporal_table, "temporal", struct lat_an_temporal, temporal_f);

static const struct lat_an_field idle_f[] = {
    F("stream", I64, "stream", struct lat_an_idle_stream, stream),
    F("host_wait_us", NS, "host_wait", struct lat_an_idle_stream, idle[LAT_IDLE_HOST_WAIT]),
    F("kernel_wait_us", NS, "kernel_wait", struct lat_an_idle_stream, idle[LAT_IDLE_KERNEL_WAIT]),
    F("other_us", NS, "other", struct lat_an_idle_stream, idle[LAT_IDLE_OTHER]),
    F("host_wait_ratio", PCT, "host_wait share", struct lat_an_idle_stream,
      ratio[LAT_IDLE_HOST_WAIT]),
    F("kernel_wait_ratio", PCT, "kernel_wait share", struct lat_an_idle_stream,
      ratio[LAT_IDLE_KERNEL_WAIT]),
    F("other_ratio", PCT, "other share", struct lat_an_idle_stream, ratio[LAT_IDLE_OTHER]),
    F("events", COUNT, "events", struct lat_an_idle_stream, events),
};
TABLE(lat_an_idle_table, "idle", struct lat_an_idle_stream, idle_f);

static const struct lat_an_field ktype_f[] = {
    F("type", STR, "kernel type", struct lat_an_ktype_bucket, label),
    F("sum_us", NS, "time", struct lat_an_ktype_bucket, sum),
    F("percent", PCT, "%", struct lat_an_ktype_bucket, percent),
};
TABLE(lat_an_ktype_table, "kernel_types", struct lat_an_ktype_bucket, ktype_f);

static const struct lat_an_field queue_f[] = {
    F("stream", I64, "stream", struct lat_an_queue, stream),
    F("max_length", I64, "max", struct lat_an_queue, max_length),
    F("samples", COUNT, "samples", struct lat_an_queue, len.count),
    F("mean", F6, "mean", struct lat_an_queue, len.mean),
    F("std", F6, "std", struct lat_an_queue, len.std),
    F("p50", F3, "p50", struct lat_an_queue, len.p50),
    F("blocked_us", NS, "blocked", struct lat_an_queue, blocked),
    F("blocked_rel", F6, "blocked share", struct lat_an_queue, blocked_rel),
};
TABLE(lat_an_queue_table, "queue", struct lat_an_queue, queue_f);

static const struct lat_an_field step_f[] = {
    F("step", I32, "step", struct lat_an_step, step),
    F("ts_us", NS, "start", struct lat_an_step, ts),
    F("dur_us", NS, "wall", struct lat_an_step, dur),
    FG("gpu_compute_us", NS, "compute", struct lat_an_step, gpu_compute),
    FG("comm_us", NS, "comm", struct lat_an_step, comm),
    FG("copies_us", NS, "copies", struct lat_an_step, copies),
    FG("gpu_other_us", NS, "gpu-other", struct lat_an_step, gpu_other),
    FG("cpu_only_us", NS, "cpu-only", struct lat_an_step, cpu_only),
    FG("idle_us", NS, "idle", struct lat_an_step, idle),
    FG("kernels", COUNT, "kernels", struct lat_an_step, kernels),
    F("cpu_dataloader_us", NS, "dataloader", struct lat_an_step, cpu_dataloader),
    F("cpu_ops_us", NS, "ops", struct lat_an_step, cpu_ops),
    F("cpu_python_us", NS, "python", struct lat_an_step, cpu_python),
    F("cpu_other_us", NS, "other", struct lat_an_step, cpu_other),
};
TABLE(lat_an_step_table, "steps", struct lat_an_step, step_f);

static const struct lat_an_field op_f[] = {
    F("name", STR, "op", struct lat_an_op, name),
    F("count", COUNT, "calls", struct lat_an_op, count),
    F("total_us", NS, "total", struct lat_an_op, total),
    F("self_us", NS, "self", struct lat_an_op, self),
    F("gpu_us", NS, "GPU time", struct lat_an_op, gpu_time),
    F("kernels", COUNT, "kernels", struct lat_an_op, kernels),
    F("input_dims", STR, "input dims", struct lat_an_op, input_dims),
    F("cpu_mem_bytes", I64, "CPU mem", struct lat_an_op, cpu_mem),
    F("self_cpu_mem_bytes", I64, "self CPU mem", struct lat_an_op, self_cpu_mem),
    F("annotation", BOOL, "region", struct lat_an_op, annotation),
};
TABLE(lat_an_op_table, "top_ops", struct lat_an_op, op_f);

static const struct lat_an_field mem_f[] = {
    F("records", COUNT, "records", struct lat_an_mem, records),
    F("allocs", COUNT, "allocations", struct lat_an_mem, allocs),
    F("frees", COUNT, "frees", struct lat_an_mem, frees),
    F("alloc_bytes", BYTES, "allocated", struct lat_an_mem, alloc_bytes),
    F("freed_bytes", BYTES, "freed", struct lat_an_mem, freed_bytes),
    F("peak_allocated_bytes", I64, "peak allocated", struct lat_an_mem, peak_allocated),
    F("peak_ts_us", NS, "peak at", struct lat_an_mem, peak_ts),
};
TABLE(lat_an_mem_table, "cpu_memory", struct lat_an_mem, mem_f);

static const struct lat_an_field thread_f[] = {
    F("pid", I64, "pid", struct lat_an_thread, pid),
    F("tid", I64, "tid", struct lat_an_thread, tid),
    F("name", STR, "thread", struct lat_an_thread, name),
    F("ops", COUNT, "op rows", struct lat_an_thread, ops),
    F("busy_us", NS, "in ops", struct lat_an_thread, busy),
    F("self_us", NS, "self", struct lat_an_thread, self),
    F("first_ts_us", NS, "first", struct lat_an_thread, first_ts),
    F("last_end_us", NS, "last end", struct lat_an_thread, last_end),
};
TABLE(lat_an_thread_table, "op_threads", struct lat_an_thread, thread_f);

static const struct lat_an_field op_kernel_f[] = {
    F("op", STR, "op", struct lat_an_op_kernel, op),
    F("kernel", STR, "kernel", struct lat_an_op_kernel, kernel),
    F("count", COUNT, "calls", struct lat_an_op_kernel, count),
    F("gpu_us", NS, "GPU time", struct lat_an_op_kernel, gpu_time),
};
TABLE(lat_an_op_kernel_table, "op_kernels", struct lat_an_op_kernel, op_kernel_f);

static const struct lat_an_field aten_f[] = {
    F("op", STR, "aten op", struct lat_an_aten_seq, op),
    F("kernels", STR, "kernels", struct lat_an_aten_seq, kernels),
    F("count", COUNT, "count", struct lat_an_aten_seq, count),
    F("avg_aten_op_launch_delay_us", NS_D, "op->launch", struct lat_an_aten_seq,
      avg_aten_op_launch_delay_ns),
    F("avg_runtime_delay_us", NS_D, "launch->GPU", struct lat_an_aten_seq, avg_runtime_delay_ns),
};
TABLE(lat_an_aten_table, "aten_op_kernels", struct lat_an_aten_seq, aten_f);

static const struct lat_an_field kseq_f[] = {
    F("op", STR, "op", struct lat_an_kseq, op),
    F("kernels", STR, "kernels", struct lat_an_kseq, kernels),
    F("pattern", STR, "pattern", struct lat_an_kseq, pattern),
    F("num_kernels", COUNT, "kernels", struct lat_an_kseq, nkernels),
    F("count", COUNT, "count", struct lat_an_kseq, count),
    F("gpu_us", NS, "GPU time", struct lat_an_kseq, gpu_time),
    F("cpu_us", NS, "CPU time", struct lat_an_kseq, cpu_time),
};
TABLE(lat_an_kseq_table, "rows", struct lat_an_kseq, kseq_f);

static const struct lat_an_field memdev_f[] = {
    F("device", STR, "device", struct lat_an_memdev, device),
    F("device_type", I64, "type", struct lat_an_memdev, device_type),
    F("device_id", I64, "id", struct lat_an_memdev, device_id),
    F("records", COUNT, "records", struct lat_an_memdev, records),
    F("allocs", COUNT, "allocations", struct lat_an_memdev, allocs),
    F("frees", COUNT, "frees", struct lat_an_memdev, frees),
    F("alloc_bytes", BYTES, "allocated", struct lat_an_memdev, alloc_bytes),
    F("freed_bytes", BYTES, "freed", struct lat_an_memdev, freed_bytes),
    F("peak_allocated_bytes", I64, "peak allocated", struct lat_an_memdev, peak_allocated),
    F("peak_ts_us", NS, "peak at", struct lat_an_memdev, peak_ts),
    F("peak_reserved_bytes", I64, "peak reserved", struct lat_an_memdev, peak_reserved),
    F("first_allocated_bytes", I64, "at start", struct lat_an_memdev, first_allocated),
    F("last_allocated_bytes", I64, "at end", struct lat_an_memdev, last_allocated),
};
TABLE(lat_an_memdev_table, "devices", struct lat_an_memdev, memdev_f);

static const struct lat_an_field memop_f[] = {
    F("device_type", I64, "type", struct lat_an_memop, device_type),
    F("device_id", I64, "id", struct lat_an_memop, device_id),
    F("op", STR, "op", struct lat_an_memop, op),
    F("allocs", COUNT, "allocations", struct lat_an_memop, allocs),
    F("alloc_bytes", BYTES, "allocated", struct lat_an_memop, alloc_bytes),
    F("frees", COUNT, "frees", struct lat_an_memop, frees),
    F("freed_bytes", BYTES, "freed", struct lat_an_memop, freed_bytes),
};
TABLE(lat_an_memop_table, "by_op", struct lat_an_memop, memop_f);

static const struct lat_an_field perf_f[] = {
    F("op", STR, "op", struct lat_an_perf, op),
    F("family", STR, "family", struct lat_an_perf, family),
    F("shape", STR, "shape", struct lat_an_perf, shape),
    F("input_dims", STR, "Input Dims", struct lat_an_perf, input_dims),
    F("dtype", STR, "dtype", struct lat_an_perf, dtype),
    F("count", COUNT, "calls", struct lat_an_perf, count),
    F("gpu_time", BOOL, "GPU time", struct lat_an_perf, gpu_time),
    F("time_us", NS, "time", struct lat_an_perf, time),
    F("m", I64, "M", struct lat_an_perf, m),
    F("n", I64, "N", struct lat_an_perf, n),
    F("k", I64, "K", struct lat_an_perf, k),
    F("batch", I64, "batch", struct lat_an_perf, batch),
    F("flops", F3, "FLOPs", struct lat_an_perf, flops),
    F("bytes", F3, "bytes", struct lat_an_perf, bytes),
    F("flops_per_byte", F3, "FLOP/B", struct lat_an_perf, intensity),
    F("tflops", F6, "TFLOP/s", struct lat_an_perf, tflops),
    F("gb_per_s", F3, "GB/s", struct lat_an_perf, gbps),
    F("device", STR, "device", struct lat_an_perf, device),
    F("precision", STR, "peak precision", struct lat_an_perf, precision),
    F("peak_tflops", F3, "peak TFLOP/s", struct lat_an_perf, peak_tflops),
    F("peak_gb_per_s", F3, "peak GB/s", struct lat_an_perf, peak_gbps),
    F("ridge_flops_per_byte", F3, "ridge FLOP/B", struct lat_an_perf, ridge),
    F("pct_peak_flops", PCT, "% peak FLOP/s", struct lat_an_perf, pct_peak_flops),
    F("pct_peak_bw", PCT, "% peak GB/s", struct lat_an_perf, pct_peak_bw),
    F("bound", STR, "bound", struct lat_an_perf, bound),
    F("pct_of_bound", PCT, "% of bound peak", struct lat_an_perf, pct_of_bound),
    F("kernel", STR, "kernel", struct lat_an_perf, kernel),
};
TABLE(lat_an_perf_table, "perf_model", struct lat_an_perf, perf_f);

static const struct lat_an_field kernel_f[] = {
    F("name", STR, "kernel", struct lat_an_kernel, name),
    F("type", KTYPE, "type", struct lat_an_kernel, type),
    F("count", COUNT, "calls", struct lat_an_kernel, count),
    F("sum_us", NS, "total", struct lat_an_kernel, sum),
    F("mean_us", NS_D, "mean", struct lat_an_kernel, mean_ns),
    F("max_us", NS, "max", struct lat_an_kernel, max),
    F("min_us", NS, "min", struct lat_an_kernel, min),
    F("std_us", NS_D, "std", struct lat_an_kernel, std_ns),
};
TABLE(lat_an_kernel_table, "top_kernels", struct lat_an_kernel, kernel_f);

static const struct lat_an_field memcpy_f[] = {
    F("kind", STR, "memory copies", struct lat_an_memcpy, kind),
    F("memory", STR, "memory", struct lat_an_memcpy, memory),
    F("pageable", BOOL, "pageable", struct lat_an_memcpy, pageable),
    F("count", COUNT, "count", struct lat_an_memcpy, count),
    F("bytes", BYTES, "bytes", struct lat_an_memcpy, bytes),
    F("time_us", NS, "time", struct lat_an_memcpy, time),
    F("gb_per_s", F3, "GB/s", struct lat_an_memcpy, gb_per_s),
};
TABLE(lat_an_memcpy_table, "memcpy", struct lat_an_memcpy, memcpy_f);

static const struct lat_an_field sync_f[] = {
    F("name", STR, "synchronisation", struct lat_an_sync, name),
    F("device_side", BOOL, "device side", struct lat_an_sync, device_side),
    F("count", COUNT, "count", struct lat_an_sync, count),
    F("total_us", NS, "time", struct lat_an_sync, total),
};
TABLE(lat_an_sync_table, "calls", struct lat_an_sync, sync_f);

#define ANNOT_STATS                                                                                \
    F("name", STR, "annotation", struct lat_an_annot, s.name),                                     \
        F("count", COUNT, "count", struct lat_an_annot, s.count),                                  \
        F("sum_us", NS, "total", struct lat_an_annot, s.sum),                                      \
        F("mean_us", NS_D, "mean", struct lat_an_annot, s.mean_ns),                                \
        F("max_us", NS, "max", struct lat_an_annot, s.max),                                        \
        F("min_us", NS, "min", struct lat_an_annot, s.min),                                        \
        F("std_us", NS_D, "std", struct lat_an_annot, s.std_ns)
static const struct lat_an_field annot_gpu_f[] = {
    ANNOT_STATS,
    F("kernels", COUNT, "GPU rows", struct lat_an_annot, kernels),
    F("kernel_us", NS, "their time", struct lat_an_annot, kernel_time),
};
TABLE(lat_an_annot_gpu_table, "gpu", struct lat_an_annot, annot_gpu_f);
static const struct lat_an_field annot_cpu_f[] = {ANNOT_STATS};

static const struct lat_an_field membw_f[] = {
    F("name", STR, "memory op", struct lat_an_membw, name),
    F("rows", COUNT, "rows", struct lat_an_membw, rows),
    F("samples", COUNT, "samples", struct lat_an_membw, gbps.count),
    F("mean_gbps", F6, "mean GB/s", struct lat_an_membw, gbps.mean),
    F("std_gbps", F6, "std", struct lat_an_membw, gbps.std),
    F("min_gbps", F6, "min", struct lat_an_membw, gbps.min),
    F("p25_gbps", F6, "p25", struct lat_an_membw, gbps.p25),
    F("p50_gbps", F6, "p50", struct lat_an_membw, gbps.p50),
    F("p75_gbps", F6, "p75", struct lat_an_membw, gbps.p75),
    F("max_gbps", F6, "max", struct lat_an_membw, gbps.max),
};
TABLE(lat_an_membw_table, "memory_bw", struct lat_an_membw, membw_f);

static const struct lat_an_field cupti_op_f[] = {
    F("op", STR, "top-level op", struct lat_an_cupti_op, op),
    F("kernels", COUNT, "kernels", struct lat_an_cupti_op, kernels),
    F("flops_fp32", F3, "FP32 FLOPs", struct lat_an_cupti_op, flops_sp),
    F("flops_fp64", F3, "FP64 FLOPs", struct lat_an_cupti_op, flops_dp),
    F("flops_fp16", F3, "FP16 FLOPs", struct lat_an_cupti_op, flops_hp),
    F("dram_bytes", F3, "DRAM bytes", struct lat_an_cupti_op, dram_bytes),
    F("range_us", NS, "profiled time", struct lat_an_cupti_op, range_time),
};
TABLE(lat_an_cupti_op_table, "by_op", struct lat_an_cupti_op, cupti_op_f);

static const struct lat_an_field rank_row_f[] = {
    F("rank", I32, "rank", struct lat_an_rank_row, rank),
    F("steps", COUNT, "steps", struct lat_an_rank_row, steps),
    F("step_mean_us", NS_D, "mean step", struct lat_an_rank_row, step_mean),
    F("step_max_us", NS, "max step", struct lat_an_rank_row, step_max),
    F("comm_us", NS, "communication", struct lat_an_rank_row, comm),
    F("idle_us", NS, "GPU idle", struct lat_an_rank_row, idle),
    F("idle_pct", PCT, "idle %", struct lat_an_rank_row, idle_pct),
    F("excess_pct", PCT, "over median %", struct lat_an_rank_row, excess_pct),
    F("straggler", BOOL, "straggler", struct lat_an_rank_row, straggler),
};
TABLE(lat_an_rank_row_table, "cross_rank", struct lat_an_rank_row, rank_row_f);
TABLE(lat_an_annot_cpu_table, "cpu", struct lat_an_annot, annot_cpu_f);

/* key: [rows...] of n rows of table t */
static void j_rows(struct jsonw *w, const char *key, const struct lat_an_table *t, const void *rows,
                   size_t n)
{
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        lat_an_row_json(w, t, (const char *)rows + i * t->row_size);
    jsonw_arr_end(w);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void j_us(struct jsonw *w, const char *k, lat_ns ns)
{
    jsonw_key(w, k);
    jsonw_ns_as_us(w, ns);
}

static void j_pct(struct jsonw *w, const char *k, double v)
{
    jsonw_key(w, k);
    jsonw_fixed(w, v, 4);
}

static void j_dist_us(struct jsonw *w, const char *k, const struct lat_dist *d)
{
    jsonw_key(w, k);
    jsonw_obj_begin(w);
    jsonw_key(w, "count");
    jsonw_u64(w, d->count);
    const double v[] = {d->mean, d->std, d->min, d->p25, d->p50, d->p75, d->p90, d->p99, d->max};
    const char *names[] = {"mean", "std", "min", "p25", "p50", "p75", "p90", "p99", "max"};
    for (int i = 0; i < 9; i++) {
        jsonw_key(w, names[i]);
        if (d->count)
            jsonw_fixed(w, v[i] / 1000.0, 3);
        else
            jsonw_null(w);
    }
    jsonw_obj_end(w);
}

/* The "kernel_sequences" object (docs/analyze-json.md): present when some op qualifies, or
 * always with --kernel-sequences OP. */
static void j_kseq(struct jsonw *w, const struct lat_an_rank *r)
{
    jsonw_key(w, "kernel_sequences");
    jsonw_obj_begin(w);
    jsonw_key(w, "operator");
    if (r->kseq_operator)
        jsonw_str(w, r->kseq_operator);
    else
        jsonw_null(w);
    jsonw_key(w, "min_pattern_len");
    jsonw_u64(w, r->kseq_min_len);
    jsonw_key(w, "roots");
    jsonw_u64(w, r->kseq_roots);
    jsonw_key(w, "patterns");
    jsonw_u64(w, r->nkseqs_total);
    j_rows(w, lat_an_kseq_table.key, &lat_an_kseq_table, r->kseqs, r->nkseqs);
    jsonw_obj_end(w);
}

/* The "cupti_counters" object (docs/analyze-json.md): present only with cuda_profiler_range
 * events. The counter names are the trace's own (not a fixed table). */
static void j_cupti(struct jsonw *w, const struct lat_an_cupti *C)
{
    jsonw_key(w, "cupti_counters");
    jsonw_obj_begin(w);
    jsonw_key(w, "ranges");
    jsonw_u64(w, C->nranges);
    jsonw_key(w, "launches");
    jsonw_u64(w, C->nlaunches);
    jsonw_key(w, "joined");
    jsonw_bool(w, C->joined);
    jsonw_key(w, "counters");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < C->ncounters; i++)
        jsonw_str(w, C->counters[i]);
    jsonw_arr_end(w);
    j_rows(w, lat_an_cupti_op_table.key, &lat_an_cupti_op_table, C->ops, C->nops);
    jsonw_obj_end(w);
}

/* ---- CPU samples (latscope trace --cpu) ---------------------------------------------------- */

static bool has_cpu_samples(const struct lat_trace *t)
{
    for (size_t i = 0; t && i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_CPU_SAMPLE) return true;
    return false;
}

/* Summary of a rank's CPU samples over its whole trace; false (nothing to show) when the trace
 * has none or on error (reported to o->warn). */
static bool cpu_summary(const struct lat_an_rank *r, size_t top_n,
                        const struct analyze_render_opts *o, struct lat_cpu_summary *s)
{
    if (!r->trace || !has_cpu_samples(r->trace)) return false;
    struct lat_cpu_opts co = {.top_n = top_n ? top_n : 10, .tid = -1};
    int rc = lat_cpu_summarize(r->trace, &co, s);
    if (rc) {
        if (o && o->warn) {
            char msg[160];
            snprintf(msg, sizeof(msg), "rank %d: CPU samples not summarized: %s", r->rank,
                     lat_strerror(rc));
            o->warn(o->warn_ctx, msg);
        }
        return false;
    }
    return true;
}

/* ---- generic sections that do not apply to an input ------------------------------------------
 * The HTA-style sections read a PyTorch/Kineto timeline. On other inputs some of them have
 * nothing to say (CPU stack samples hold no timed event; an ncu report's kernels were replayed
 * one at a time; an ORT, TensorRT or TensorFlow CPU profile has no GPU timeline) or their
 * notion of a step is not ProfilerStep#N. Such a section is left out of the text and named
 * once, with why, in the text ("not applicable: ...") and the rank's JSON "not_applicable".
 * Kineto/Chrome inputs, nsys exports and latscope's own captures keep every section (a CPU-only
 * PyTorch trace's "no GPU activity" is a finding there) unless they hold CPU samples only. */

enum { NA_GPU = 1u << 0, NA_TIMELINE = 1u << 1, NA_STEPS = 1u << 2 };

struct an_na {
    const char *section; /* "gpu_timeline", "timeline", "steps" */
    const char *why;
};

static bool stack_samples_only(const struct lat_an_rank *r)
{
    return r->trace && r->kept_events == 0 && has_cpu_samples(r->trace);
}

/* The sections of rank r that do not apply (at most 3 rows in na); their NA_* bits. */
static unsigned not_applicable(const struct lat_an_rank *r, struct an_na *na, size_t *nna)
{
    const struct lat_trace *t = r->trace;
    unsigned bits = 0;
    *nna = 0;
    if (!t) return 0;
    if (stack_samples_only(r)) { /* any format: samples and nothing else */
        na[(*nna)++] =
            (struct an_na){"timeline", "GPU, steps, operators, threads: the input holds CPU "
                                       "stack samples, no timed events; see CPU samples"};
        return NA_TIMELINE | NA_GPU | NA_STEPS;
    }
    if (analyze_pytorch_like(t)) return 0;
    if (t->role == LAT_TRACE_KERNEL_PROFILE) {
        na[(*nna)++] =
            (struct an_na){"gpu_timeline", "temporal, idle, launches, queue: a kernel profile's "
                                           "kernels were replayed one at a time, not a timeline"};
        bits |= NA_GPU;
    } else if (!r->temporal.valid) {
        na[(*nna)++] = (struct an_na){"gpu_timeline", t->fmt->na_gpu_timeline
                                                          ? t->fmt->na_gpu_timeline
                                                          : "no GPU activity in this input"};
        bits |= NA_GPU;
    }
    if (!r->nsteps) {
        const char *why = lat_trace_meta(t, "na_steps"); /* the reader knows better */
        na[(*nna)++] = (struct an_na){"steps", why                ? why
                                               : t->fmt->na_steps ? t->fmt->na_steps
                                               : t->role == LAT_TRACE_KERNEL_PROFILE
                                                   ? "a kernel profile has no iterations"
                                                   : "no ProfilerStep#N in this input"};
        bits |= NA_STEPS;
    }
    return bits;
}

static void j_not_applicable(struct jsonw *w, const struct lat_an_rank *r)
{
    struct an_na na[3];
    size_t n;
    if (!not_applicable(r, na, &n) || !n) return; /* only when some section does not apply */
    jsonw_key(w, "not_applicable");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "section");
        jsonw_str(w, na[i].section);
        jsonw_key(w, "why");
        jsonw_str(w, na[i].why);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* The format-specific sections (analyze/sections.h): one row per format. */
const struct lat_an_section lat_an_sections[] = {
    {"ONNX Runtime section", lat_ort_is, lat_ort_section_json, lat_ort_section_text},
    {"Nsight Compute section", lat_ncu_is, lat_ncu_section_json, lat_ncu_section_text},
    {"TensorRT section", lat_trt_is, lat_trt_section_json, lat_trt_section_text},
    {"TensorFlow section", lat_tf_is, lat_tf_section_json, lat_tf_section_text},
    {"nsys stats section", lat_nsys_stats_is, lat_nsys_stats_section_json,
     lat_nsys_stats_section_text},
};
const size_t lat_an_nsections = sizeof(lat_an_sections) / sizeof(lat_an_sections[0]);

static void section_failed(const struct lat_an_rank *r, const struct lat_an_section *sec, int rc,
                           const struct analyze_render_opts *o)
{
    if (!o || !o->warn) return;
    char msg[160];
    snprintf(msg, sizeof(msg), "rank %d: %s not summarized: %s", r->rank, sec->what,
             lat_strerror(rc));
    o->warn(o->warn_ctx, msg);
}

static void sections_json(struct jsonw *w, const struct lat_an_rank *r, size_t top_n,
                          const struct analyze_render_opts *o)
{
    for (size_t i = 0; r->trace && i < lat_an_nsections; i++) {
        const struct lat_an_section *sec = &lat_an_sections[i];
        if (!sec->applies(r->trace)) continue;
        int rc = sec->write_json(w, r->trace, top_n);
        if (rc) section_failed(r, sec, rc, o);
    }
}

static void sections_text(FILE *f, const struct lat_an_rank *r, size_t top_n,
                          const struct analyze_render_opts *o)
{
    for (size_t i = 0; r->trace && i < lat_an_nsections; i++) {
        const struct lat_an_section *sec = &lat_an_sections[i];
        if (!sec->applies(r->trace)) continue;
        int rc = sec->format_text(f, r->trace, top_n);
        if (rc) section_failed(r, sec, rc, o);
    }
}

static double share(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* The "cpu" object of a rank (docs/analyze-json.md). */
static void j_cpu(struct jsonw *w, const struct lat_cpu_summary *s)
{
    jsonw_key(w, "cpu");
    jsonw_obj_begin(w);
    jsonw_key(w, "samples");
    jsonw_u64(w, s->samples);
    jsonw_key(w, "period_us");
    if (s->period_ns)
        jsonw_ns_as_us(w, s->period_ns);
    else
        jsonw_null(w);
    if (s->period_ns) {
        j_us(w, "on_cpu_us", (lat_ns)s->samples * s->period_ns);
    } else { /* unknown without a period (untimed stack files) */
        jsonw_key(w, "on_cpu_us");
        jsonw_null(w);
    }
    jsonw_key(w, "off_cpu_intervals");
    jsonw_u64(w, s->off_intervals);
    j_us(w, "off_cpu_us", s->off_ns);
    jsonw_key(w, "distinct_functions");
    jsonw_u64(w, s->distinct_funcs);
    jsonw_key(w, "distinct_stacks");
    jsonw_u64(w, s->distinct_stacks);
    for (int k = 0; k < 2; k++) {
        const struct lat_cpu_func *f = k ? s->funcs_total : s->funcs;
        size_t n = k ? s->nfuncs_total : s->nfuncs;
        jsonw_key(w, k ? "top_functions_total" : "top_functions_self");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "function");
            jsonw_str(w, f[i].name);
            jsonw_key(w, "self");
            jsonw_u64(w, f[i].self);
            j_pct(w, "self_share", share(f[i].self, s->samples));
            jsonw_key(w, "total");
            jsonw_u64(w, f[i].total);
            j_pct(w, "total_share", share(f[i].total, s->samples));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    jsonw_key(w, "top_stacks");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nstacks; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "stack");
        jsonw_str(w, s->stacks[i].stack);
        jsonw_key(w, "samples");
        jsonw_u64(w, s->stacks[i].samples);
        j_pct(w, "share", share(s->stacks[i].samples, s->samples));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "threads");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct lat_cpu_thread *t = &s->threads[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "pid");
        jsonw_i64(w, t->pid);
        jsonw_key(w, "tid");
        jsonw_i64(w, t->tid);
        jsonw_key(w, "name");
        jsonw_str(w, t->label);
        jsonw_key(w, "samples");
        jsonw_u64(w, t->samples);
        if (s->period_ns) {
            j_us(w, "on_cpu_us", t->on_ns);
        } else {
            jsonw_key(w, "on_cpu_us");
            jsonw_null(w);
        }
        j_us(w, "off_cpu_us", t->off_ns);
        jsonw_key(w, "off_cpu_intervals");
        jsonw_u64(w, t->off_intervals);
        jsonw_key(w, "top_function");
        jsonw_str(w, t->top_func);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void j_launch(struct jsonw *w, const struct lat_an_launch *L, bool whole)
{
    jsonw_key(w, "launch");
    jsonw_obj_begin(w);
    jsonw_key(w, "count");
    jsonw_u64(w, L->count);
    jsonw_key(w, "short_kernels");
    jsonw_u64(w, L->short_kernels);
    jsonw_key(w, "runtime_outliers");
    jsonw_u64(w, L->runtime_outliers);
    jsonw_key(w, "launch_delay_outliers");
    jsonw_u64(w, L->launch_delay_outliers);
    jsonw_key(w, "median_launch_delay_us");
    if (L->count || (whole && L->launch_delay.count))
        jsonw_ns_as_us(w, L->median_launch_delay);
    else
        jsonw_null(w);
    jsonw_key(w, "gpu_rows");
    jsonw_u64(w, L->gpu_rows);
    jsonw_key(w, "correlated_gpu");
    jsonw_u64(w, L->correlated_gpu);
    jsonw_key(w, "uncorrelated_gpu");
    jsonw_u64(w, L->uncorrelated_gpu);
    jsonw_key(w, "graph_launches");
    jsonw_u64(w, L->graph_launches);
    if (!whole) {
        j_dist_us(w, "cpu_duration_us", &L->cpu_dur);
        j_dist_us(w, "gpu_duration_us", &L->gpu_dur);
    }
    j_dist_us(w, "launch_delay_us", &L->launch_delay);
    jsonw_obj_end(w);
}

/* §11: the critical path of each window (docs/analyze-json.md "critical_path") */
static void j_critpath(struct jsonw *w, const struct lat_an_rank *r)
{
    jsonw_key(w, "critical_path");
    jsonw_obj_begin(w);
    jsonw_key(w, "windows");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < r->ncritpath; k++) {
        const struct lat_an_critpath *c = &r->critpath[k];
        jsonw_obj_begin(w);
        jsonw_key(w, "annotation");
        jsonw_str(w, c->annotation ? c->annotation : "");
        jsonw_key(w, "instance");
        if (c->instance >= 0)
            jsonw_i64(w, c->instance);
        else
            jsonw_null(w);
        jsonw_key(w, "step");
        if (c->step >= 0)
            jsonw_i64(w, c->step);
        else
            jsonw_null(w);
        j_us(w, "ts_us", c->ts);
        j_us(w, "dur_us", c->dur);
        jsonw_key(w, "ok");
        jsonw_bool(w, c->ok);
        jsonw_key(w, "error");
        if (c->error)
            jsonw_str(w, c->error);
        else
            jsonw_null(w);
        jsonw_key(w, "nodes");
        jsonw_u64(w, c->nodes);
        jsonw_key(w, "edges");
        jsonw_u64(w, c->edges);
        jsonw_key(w, "boundary_nodes");
        jsonw_u64(w, c->boundaries);
        jsonw_key(w, "path_nodes");
        jsonw_u64(w, c->path_nodes);
        jsonw_key(w, "path_edges");
        jsonw_u64(w, c->path_edges);
        j_us(w, "length_us", c->length);
        jsonw_key(w, "bound_us");
        jsonw_obj_begin(w);
        for (int b = 0; b < LAT_CP_B_COUNT; b++)
            j_us(w, lat_cp_bound_name((enum lat_cp_bound)b), c->bound[b]);
        jsonw_obj_end(w);
        jsonw_key(w, "bound_pct");
        jsonw_obj_begin(w);
        for (int b = 0; b < LAT_CP_B_COUNT; b++) {
            jsonw_key(w, lat_cp_bound_name((enum lat_cp_bound)b));
            if (c->length > 0)
                jsonw_fixed(w, 100.0 * (double)c->bound[b] / (double)c->length, 3);
            else
                jsonw_null(w);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "bound_edges");
        jsonw_obj_begin(w);
        for (int b = 0; b < LAT_CP_B_COUNT; b++) {
            jsonw_key(w, lat_cp_bound_name((enum lat_cp_bound)b));
            jsonw_u64(w, c->bound_edges[b]);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "path_edge_types");
        jsonw_obj_begin(w);
        for (int e = 0; e < LAT_CP_E_COUNT; e++) {
            jsonw_key(w, lat_cp_edge_name((enum lat_cp_edge)e));
            jsonw_u64(w, c->edge_types[e]);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "graph_edge_types");
        jsonw_obj_begin(w);
        for (int e = 0; e < LAT_CP_E_COUNT; e++) {
            jsonw_key(w, lat_cp_edge_name((enum lat_cp_edge)e));
            jsonw_u64(w, c->graph_edge_types[e]);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "has_cuda_sync");
        jsonw_bool(w, c->has_cuda_sync);
        jsonw_key(w, "ops");
        jsonw_arr_begin(w);
        for (size_t j = 0; j < c->nops; j++) {
            const struct lat_an_cp_op *op = &c->ops[j];
            jsonw_obj_begin(w);
            jsonw_key(w, "name");
            jsonw_str(w, op->name);
            j_us(w, "time_us", op->time);
            jsonw_key(w, "pct");
            if (c->length > 0)
                jsonw_fixed(w, 100.0 * (double)op->time / (double)c->length, 3);
            else
                jsonw_null(w);
            jsonw_key(w, "edges");
            jsonw_u64(w, op->edges);
            jsonw_key(w, "gpu");
            jsonw_bool(w, op->gpu);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_key(w, "ops_total");
        jsonw_u64(w, c->nops_total);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void j_rank(struct jsonw *w, const struct lat_an_rank *r, bool whole, size_t top_n,
                   const struct analyze_render_opts *o)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "rank");
    if (whole)
        jsonw_null(w);
    else
        jsonw_i64(w, r->rank);
    if (!whole && r->trace) {
        jsonw_key(w, "path");
        if (r->trace->path)
            jsonw_str(w, r->trace->path);
        else
            jsonw_null(w);
        jsonw_key(w, "format");
        jsonw_str(w, r->trace->format ? r->trace->format : "");
        j_not_applicable(w, r);
    }
    jsonw_key(w, "events");
    jsonw_u64(w, r->events);
    jsonw_key(w, "kept_events");
    jsonw_u64(w, r->kept_events);
    jsonw_key(w, "dropped_last_step");
    jsonw_u64(w, r->dropped_last_step);
    if (!whole && r->trace) { /* what the reader left out (by reason) */
        jsonw_key(w, "dropped");
        lat_trace_drops_json(w, r->trace);
    }
    if (!whole) j_us(w, "align_offset_us", r->align_offset_ns);

    if (r->temporal.valid) {
        jsonw_key(w, lat_an_temporal_table.key);
        lat_an_row_json(w, &lat_an_temporal_table, &r->temporal);
    } else {
        jsonw_key(w, lat_an_temporal_table.key);
        jsonw_null(w);
    }
    j_rows(w, lat_an_idle_table.key, &lat_an_idle_table, r->idle, r->nidle);
    j_rows(w, lat_an_ktype_table.key, &lat_an_ktype_table, r->ktypes, r->nktypes);

    jsonw_key(w, "comm_comp_overlap_pct");
    if (r->has_comm)
        jsonw_fixed(w, r->comm_comp_overlap_pct, 4);
    else
        jsonw_null(w);

    j_launch(w, &r->launch, whole);
    j_rows(w, lat_an_queue_table.key, &lat_an_queue_table, r->queue, r->nqueue);
    j_rows(w, lat_an_step_table.key, &lat_an_step_table, r->steps, r->nsteps);
    j_rows(w, "top_ops", &lat_an_op_table, r->top_ops, r->ntop_ops);
    j_rows(w, "top_ops_self", &lat_an_op_table, r->top_ops_self, r->ntop_ops_self);
    jsonw_key(w, "ops_total");
    jsonw_u64(w, r->nops_total);
    j_us(w, "ops_self_total_us", r->ops_self_total);
    j_us(w, "steps_total_us", r->steps_total);
    jsonw_key(w, "cpu_only");
    jsonw_bool(w, r->cpu_only);
    j_rows(w, "ops_by_shape", &lat_an_op_table, r->ops_by_shape, r->nops_by_shape);
    j_rows(w, "top_ops_mem", &lat_an_op_table, r->top_ops_mem, r->ntop_ops_mem);
    j_rows(w, "python_functions", &lat_an_op_table, r->py_funcs, r->npy_funcs);
    jsonw_key(w, "python_functions_total");
    jsonw_u64(w, r->npy_funcs_total);
    jsonw_key(w, lat_an_mem_table.key);
    if (r->mem.records)
        lat_an_row_json(w, &lat_an_mem_table, &r->mem);
    else
        jsonw_null(w);
    j_rows(w, lat_an_thread_table.key, &lat_an_thread_table, r->threads, r->nthreads);
    j_rows(w, lat_an_op_kernel_table.key, &lat_an_op_kernel_table, r->op_kernels, r->nop_kernels);
    j_rows(w, lat_an_aten_table.key, &lat_an_aten_table, r->aten_seqs, r->naten_seqs);
    j_rows(w, lat_an_perf_table.key, &lat_an_perf_table, r->perf, r->nperf);
    jsonw_key(w, "perf_model_total");
    jsonw_u64(w, r->nperf_total);
    jsonw_key(w, "perf_model_instances");
    jsonw_u64(w, r->perf_instances);
    jsonw_key(w, "perf_model_unparsed");
    jsonw_u64(w, r->perf_unparsed);
    j_us(w, "perf_model_time_us", r->perf_time);
    j_rows(w, "top_kernels", &lat_an_kernel_table, r->top_kernels, r->ntop_kernels);
    j_rows(w, "kernels_by_type", &lat_an_kernel_table, r->kernels_by_type, r->nkernels_by_type);
    j_rows(w, lat_an_memcpy_table.key, &lat_an_memcpy_table, r->memcpy, r->nmemcpy);
    if (!whole && r->cp_ran) j_critpath(w, r);

    jsonw_key(w, "syncs");
    jsonw_obj_begin(w);
    j_us(w, "blocking_us", r->sync_blocking);
    j_rows(w, lat_an_sync_table.key, &lat_an_sync_table, r->syncs, r->nsyncs);
    jsonw_obj_end(w);
    if (!whole) j_rows(w, lat_an_membw_table.key, &lat_an_membw_table, r->membw, r->nmembw);
    if (!whole && r->cupti.nranges) j_cupti(w, &r->cupti);
    if (!whole && r->kseq_ran && (r->nkseqs_total || r->kseq_operator)) j_kseq(w, r);
    if (!whole && r->nmemdev) { /* [memory] instants (profile_memory) */
        jsonw_key(w, "memory_timeline");
        jsonw_obj_begin(w);
        j_rows(w, lat_an_memdev_table.key, &lat_an_memdev_table, r->memdev, r->nmemdev);
        j_rows(w, lat_an_memop_table.key, &lat_an_memop_table, r->memops, r->nmemops);
        jsonw_key(w, "by_op_total");
        jsonw_u64(w, r->nmemops_total);
        jsonw_obj_end(w);
    }
    if (!whole) {
        const struct lat_an_annots *A = &r->annot;
        jsonw_key(w, "annotations");
        jsonw_obj_begin(w);
        jsonw_key(w, "gpu_rows");
        jsonw_u64(w, A->gpu_rows);
        jsonw_key(w, "gpu_rows_annotated");
        jsonw_u64(w, A->gpu_rows_annotated);
        j_rows(w, lat_an_annot_gpu_table.key, &lat_an_annot_gpu_table, A->gpu, A->ngpu);
        j_rows(w, lat_an_annot_cpu_table.key, &lat_an_annot_cpu_table, A->cpu, A->ncpu);
        jsonw_obj_end(w);
    }
    struct lat_cpu_summary cs;
    if (!whole && cpu_summary(r, top_n, o, &cs)) { /* absent without CPU samples */
        j_cpu(w, &cs);
        lat_cpu_summary_fini(&cs);
    }
    if (!whole) sections_json(w, r, top_n, o); /* ONNX Runtime, ... (sections.h) */
    jsonw_obj_end(w);
}

void analyze_write_json(struct jsonw *w, const struct lat_analysis *a,
                        const struct analyze_render_opts *o)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "tool");
    jsonw_str(w, "latscope analyze");
    jsonw_key(w, "schema");
    jsonw_i64(w, 2); /* 2: key_averages() op tables, no HTA rounding without hta_compat */
    lat_build_json(w);
    jsonw_key(w, "hta_compat");
    jsonw_bool(w, a->opts.hta_compat);
    jsonw_key(w, "preprocessing");
    jsonw_obj_begin(w);
    jsonw_key(w, "ns_rounding");
    jsonw_bool(w, a->opts.ns_rounding && a->opts.hta_compat); /* as applied */
    jsonw_key(w, "steps_distinct");
    jsonw_u64(w, a->steps_distinct);
    jsonw_key(w, "last_step_dropped");
    jsonw_bool(w, a->last_step_dropped);
    jsonw_key(w, "last_step_reason");
    if (a->last_step_reason[0])
        jsonw_str(w, a->last_step_reason);
    else
        jsonw_null(w);
    jsonw_key(w, "warning");
    if (a->warning[0])
        jsonw_str(w, a->warning);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
    jsonw_key(w, "skipped");
    jsonw_arr_begin(w);
    for (size_t i = 0; o && i < o->nskipped; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "path");
        jsonw_str(w, o->skipped[i].path);
        jsonw_key(w, "status");
        jsonw_str(w, o->skipped[i].status);
        jsonw_key(w, "reason");
        jsonw_str(w, o->skipped[i].reason);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    if (o && o->input_notes) { /* only for inputs whose layout needed a choice */
        jsonw_key(w, "input_notes");
        jsonw_arr_begin(w);
        for (const char *p = o->input_notes; *p;) {
            size_t l = strcspn(p, "\n");
            jsonw_strn(w, p, l);
            p += l + (p[l] == '\n');
        }
        jsonw_arr_end(w);
    }
    jsonw_key(w, "ranks");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nranks; i++)
        j_rank(w, &a->ranks[i], false, a->opts.top_n, o);
    if (o && o->ranks_json && o->ranks_json(o->ranks_ctx, w) && !w->err) w->err = -EIO;
    jsonw_arr_end(w);
    jsonw_key(w, "whole");
    j_rank(w, &a->whole, true, a->opts.top_n, o);
    if (a->nrank_rows) { /* jobs of 2+ ranks only */
        jsonw_key(w, "cross_rank");
        jsonw_obj_begin(w);
        jsonw_key(w, "step_median_us");
        if (a->step_median_ns > 0)
            jsonw_fixed(w, a->step_median_ns / 1000.0, 3);
        else
            jsonw_null(w);
        jsonw_key(w, "stragglers");
        jsonw_u64(w, a->nstragglers);
        j_rows(w, "ranks", &lat_an_rank_row_table, a->rank_rows, a->nrank_rows);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

/* ---- text ---------------------------------------------------------------------------------- */

static const char *dur(lat_ns ns, char *buf)
{
    return units_format_duration(ns, buf, 32);
}

/* "%5.1f%%" of x over of, or "    -" when x is not a share of it (work outside the steps, or
 * on several threads at once): never a share above 100 %. */
static const char *pct_s(lat_ns x, lat_ns of, char *buf)
{
    if (of <= 0 || x > of)
        snprintf(buf, 16, "    -");
    else
        snprintf(buf, 16, "%5.1f%%", 100.0 * (double)x / (double)of);
    return buf;
}

/* signed byte count, units_format_bytes style */
static const char *fmt_mem(int64_t b, char *buf)
{
    buf[0] = '-';
    units_format_bytes(b < 0 ? (uint64_t)-b : (uint64_t)b, buf + (b < 0), 31);
    return buf;
}

static lat_ns mean(lat_ns x, uint64_t n)
{
    return n ? x / (lat_ns)n : 0;
}

/* A trace-provided string for a %s of the text report, escaped (core/esc.h) into b. */
#define ESC(b, s) lat_esc_cell((b), sizeof(b), (s))

static void print_name(FILE *f, const char *s, int width)
{
    lat_table_cell(&LAT_TOUT_FILE(f),
                   &(struct lat_tcol){width, LAT_TCOL_LEFT | LAT_TCOL_CUT_END, NULL}, s);
}

static void print_annotations(FILE *f, const struct lat_an_annots *A, size_t top_n);

/* §11: one line per window (at most 10), then the ops of the longest path among them. */
static void print_critpath_text(FILE *f, const struct lat_an_rank *r)
{
    char b1[32], b2[32];
    size_t best = 0;
    fprintf(f, "\ncritical path (HTA)       length   window   nodes   edges    cpu    gpu "
               "launch  k-k gap\n");
    for (size_t k = 0; k < r->ncritpath; k++) {
        const struct lat_an_critpath *c = &r->critpath[k];
        if (c->length > r->critpath[best].length) best = k;
        if (k >= 10) continue;
        char name[64];
        if (!*c->annotation)
            snprintf(name, sizeof(name), "(whole trace)");
        else if (c->step >= 0)
            snprintf(name, sizeof(name), "%s", c->annotation);
        else
            snprintf(name, sizeof(name), "%s:%lld", c->annotation, (long long)c->instance);
        fprintf(f, "  ");
        print_name(f, name, 22);
        if (!c->ok) {
            fprintf(f, " %s\n", c->error ? c->error : "no path");
            continue;
        }
        double L = c->length > 0 ? (double)c->length : 1;
        fprintf(f, " %8s %8s %7llu %7llu %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n", dur(c->length, b1),
                dur(c->dur, b2), (unsigned long long)c->nodes, (unsigned long long)c->edges,
                100.0 * (double)c->bound[LAT_CP_B_CPU] / L,
                100.0 * (double)(c->bound[LAT_CP_B_GPU_COMPUTE] + c->bound[LAT_CP_B_GPU_COMM]) / L,
                100.0 * (double)c->bound[LAT_CP_B_LAUNCH] / L,
                100.0 * (double)c->bound[LAT_CP_B_KERNEL_KERNEL] / L);
    }
    if (r->ncritpath > 10) fprintf(f, "  ... %zu more (JSON: critical_path)\n", r->ncritpath - 10);
    if (!r->critpath[0].has_cuda_sync)
        fprintf(f, "  (no cuda_sync records: the graph lacks GPU -> CPU waits; CPU may look "
                   "more critical)\n");
    const struct lat_an_critpath *c = &r->critpath[best];
    if (!c->ok || !c->nops) return;
    char e1[512];
    fprintf(f, "  on the longest path (%s):\n",
            *c->annotation ? ESC(e1, c->annotation) : "whole trace");
    for (size_t j = 0; j < c->nops && j < 5; j++) {
        fprintf(f, "    ");
        print_name(f, c->ops[j].name, 44);
        fprintf(f, " %-4s %10s %5.1f%%\n", c->ops[j].gpu ? "GPU" : "CPU", dur(c->ops[j].time, b1),
                c->length > 0 ? 100.0 * (double)c->ops[j].time / (double)c->length : 0.0);
    }
}

static void print_rank_text(FILE *f, const struct lat_an_rank *r, const struct analysis_opts *o,
                            const struct analyze_render_opts *ro)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    struct an_na na[3];
    size_t nna = 0;
    unsigned nab = not_applicable(r, na, &nna);
    char ep[1024];
    if (r->trace && (nab & NA_TIMELINE))
        fprintf(f, "== %s %d  %s  (%s, %llu CPU samples)\n",
                r->trace->role != LAT_TRACE_TIMELINE ? "profile" : "rank", r->rank,
                r->trace->path ? ESC(ep, r->trace->path) : "-",
                r->trace->format ? r->trace->format : "?", (unsigned long long)r->events);
    else if (r->trace)
        fprintf(f, "== %s %d  %s  (%s, %llu events, %llu kept)\n",
                r->trace->role != LAT_TRACE_TIMELINE        ? "profile"
                : r->trace->fmt && r->trace->fmt->file_noun ? r->trace->fmt->file_noun
                                                            : "rank",
                r->rank, r->trace->path ? ESC(ep, r->trace->path) : "-",
                r->trace->format ? r->trace->format : "?", (unsigned long long)r->events,
                (unsigned long long)r->kept_events);
    if (nna) {
        fprintf(f, "not applicable:");
        for (size_t i = 0; i < nna; i++)
            fprintf(f, "%s %s (%s)", i ? ";" : "",
                    !strcmp(na[i].section, "gpu_timeline") ? "GPU timeline" : na[i].section,
                    na[i].why);
        fprintf(f, "\n");
    }
    const struct lat_an_temporal *t = &r->temporal;
    if (nab & NA_GPU) {
        /* said above */
    } else if (t->valid) {
        fprintf(f,
                "temporal   kernel time %s: compute %s (%.2f%%), non-compute %s (%.2f%%), idle "
                "%s (%.2f%%)\n",
                dur(t->kernel_time, b1), dur(t->compute, b2), t->compute_pct,
                dur(t->non_compute, b3), t->non_compute_pct, dur(t->idle, b4), t->idle_pct);
        if (t->clamped)
            fprintf(f,
                    "note: compute exceeded the busy GPU time by %s (HTA's own check "
                    "non_compute >= 0 fails here); compute capped, non-compute shown as 0\n",
                    dur(t->clamped, b1));
    } else {
        fprintf(f, "temporal   no GPU activity in this trace\n");
    }
    if (r->nktypes) {
        fprintf(f, "\nkernel types                                            time       %%\n");
        for (size_t i = 0; i < r->nktypes; i++)
            fprintf(f, "  %-52s %10s %6.1f\n", r->ktypes[i].label, dur(r->ktypes[i].sum, b1),
                    r->ktypes[i].percent);
    }
    if (r->has_comm)
        fprintf(f, "comm/compute overlap  %.2f%% of %s communication\n", r->comm_comp_overlap_pct,
                dur(r->comm_time, b1));
    if (r->nidle && !(nab & NA_GPU)) {
        fprintf(f, "\nidle per stream    host_wait  kernel_wait        other\n");
        for (size_t i = 0; i < r->nidle; i++) {
            const struct lat_an_idle_stream *s = &r->idle[i];
            fprintf(f, "  stream %-8lld %10s %12s %12s\n", (long long)s->stream,
                    dur(s->idle[0], b1), dur(s->idle[1], b2), dur(s->idle[2], b3));
        }
    }
    const struct lat_an_launch *L = &r->launch;
    if (L->count && !(nab & NA_GPU)) {
        fprintf(f, "\nlaunches   %llu (median delay %s, p90 %s; cpu p50 %s, gpu p50 %s)\n",
                (unsigned long long)L->count, dur(L->median_launch_delay, b1),
                dur((lat_ns)L->launch_delay.p90, b2), dur((lat_ns)L->cpu_dur.p50, b3),
                dur((lat_ns)L->gpu_dur.p50, b4));
        fprintf(f,
                "  short kernels %llu, runtime outliers (> %s) %llu, launch-delay outliers "
                "(> %s) %llu\n",
                (unsigned long long)L->short_kernels, dur(o->runtime_cutoff_ns, b5),
                (unsigned long long)L->runtime_outliers, dur(o->launch_delay_cutoff_ns, b6),
                (unsigned long long)L->launch_delay_outliers);
    }
    if (L->gpu_rows && !(nab & NA_GPU))
        fprintf(f, "  GPU rows %llu: %llu correlated, %llu uncorrelated\n",
                (unsigned long long)L->gpu_rows, (unsigned long long)L->correlated_gpu,
                (unsigned long long)L->uncorrelated_gpu);
    if (r->nqueue && !(nab & NA_GPU)) {
        fprintf(f, "\nqueue      ");
        for (size_t i = 0; i < r->nqueue; i++)
            fprintf(f, "%sstream %lld max %lld", i ? ", " : "", (long long)r->queue[i].stream,
                    (long long)r->queue[i].max_length);
        fprintf(f, "\n");
    }
    if (r->nsteps && r->cpu_only) {
        /* CPU-only trace: what the step's thread did, from the CPU events alone */
        fprintf(f, "\nstep         wall   dataloader        ops     python      other   (CPU-only "
                   "trace)\n");
        bool py = false;
        for (size_t i = 0; i < r->nsteps; i++) {
            const struct lat_an_step *s = &r->steps[i];
            char b7[32];
            py |= s->cpu_python > 0;
            fprintf(f, "  %-6d %9s %12s %10s %10s %10s  %5.1f%% in ops\n", s->step, dur(s->dur, b1),
                    dur(s->cpu_dataloader, b2), dur(s->cpu_ops, b3), dur(s->cpu_python, b4),
                    dur(s->cpu_other, b7),
                    s->dur > 0 ? 100.0 * (double)s->cpu_ops / (double)s->dur : 0.0);
        }
        if (lat_trace_has(r->trace, LAT_FCAP_MARKER_STEPS))
            fprintf(f, "  step N: the Nth tf.profiler Trace(name, step_num=...) region in time "
                       "order (by name: the TensorFlow section); ops: some TF op running on any "
                       "host thread; other: none (framework, Python, idle)\n");
        else
            fprintf(f,
                    "  ops: inside a cpu_op; python: in Python code outside any op; other: "
                    "neither (%s)\n",
                    py ? "interpreter, profiler, waiting"
                       : "Python/framework code: no python_function events, record "
                         "with_stack=True to split it");
    } else if (r->nsteps) {
        fprintf(f, "\nstep         wall    compute       comm     copies   gpu-other   cpu-only    "
                   "   idle\n");
        for (size_t i = 0; i < r->nsteps; i++) {
            const struct lat_an_step *s = &r->steps[i];
            char b7[32];
            fprintf(f, "  %-6d %9s %10s %10s %10s %11s %10s %10s\n", s->step, dur(s->dur, b1),
                    dur(s->gpu_compute, b2), dur(s->comm, b3), dur(s->copies, b4),
                    dur(s->gpu_other, b5), dur(s->cpu_only, b6), dur(s->idle, b7));
        }
    }
    /* percentages of the profiled steps (key_averages' "Self CPU time total" without steps) */
    lat_ns denom = r->steps_total ? r->steps_total : r->ops_self_total;
    const char *of = r->steps_total ? "step" : "all";
    if (r->ntop_ops) {
        fprintf(f,
                "\ntop CPU ops by total time                    calls      total  %%%-4s  "
                "mean/call       self%s\n",
                of, r->cpu_only ? "" : "    GPU time");
        for (size_t i = 0; i < r->ntop_ops; i++) {
            const struct lat_an_op *op = &r->top_ops[i];
            fprintf(f, "  ");
            print_name(f, op->name, 40);
            fprintf(f, " %8llu %10s %6s %10s %10s", (unsigned long long)op->count,
                    dur(op->total, b1), pct_s(op->total, denom, b5),
                    dur(mean(op->total, op->count), b2), dur(op->self, b3));
            if (!r->cpu_only) fprintf(f, " %11s", dur(op->gpu_time, b4));
            fprintf(f, "\n");
        }
    }
    if (r->ntop_ops_self) {
        fprintf(f,
                "\ntop CPU ops by self time                     calls       self  %%%-4s  "
                "mean/call      total\n",
                of);
        for (size_t i = 0; i < r->ntop_ops_self; i++) {
            const struct lat_an_op *op = &r->top_ops_self[i];
            fprintf(f, "  ");
            print_name(f, op->name, 40);
            fprintf(f, " %8llu %10s %6s %10s %10s\n", (unsigned long long)op->count,
                    dur(op->self, b1), pct_s(op->self, denom, b5),
                    dur(mean(op->self, op->count), b2), dur(op->total, b3));
        }
        fprintf(f, "  %zu ops (key_averages() rows); their self time without ProfilerStep*: %s\n",
                r->nops_total, dur(r->ops_self_total, b1));
    }
    bool any_dims = false;
    for (size_t i = 0; i < r->nops_by_shape; i++)
        any_dims |= r->ops_by_shape[i].input_dims != NULL;
    if (any_dims && !ro->group_by_input_shape)
        fprintf(f, "  (--group-by-input-shape: the same per input shape)\n");
    if (r->nops_by_shape && ro->group_by_input_shape) {
        {
            fprintf(f, "\nby input shape (self time)                   calls       self  input "
                       "dims\n");
            for (size_t i = 0; i < r->nops_by_shape; i++) {
                const struct lat_an_op *op = &r->ops_by_shape[i];
                fprintf(f, "  ");
                print_name(f, op->name, 40);
                const char *d = op->input_dims ? op->input_dims : "-";
                int dl = (int)strcspn(d, "\n");
                fprintf(f, " %8llu %10s  %.*s%s\n", (unsigned long long)op->count,
                        dur(op->self, b1), dl > 60 ? 57 : dl, d, dl > 60 ? "..." : "");
            }
        }
    }
    if (r->npy_funcs) {
        fprintf(f,
                "\nPython functions by self time (with_stack)                 calls       self  "
                "%%%-4s      total\n",
                of);
        for (size_t i = 0; i < r->npy_funcs; i++) {
            const struct lat_an_op *op = &r->py_funcs[i];
            fprintf(f, "  ");
            print_name(f, op->name, 56);
            fprintf(f, " %8llu %10s %6s %10s\n", (unsigned long long)op->count, dur(op->self, b1),
                    pct_s(op->self, denom, b5), dur(op->total, b2));
        }
        fprintf(f,
                "  %zu functions; self: in the function's own code (no op, no call it made); "
                "total counts a recursive call once\n",
                r->npy_funcs_total);
    }
    if (r->mem.records) {
        char m1[32], m2[32], m3[32];
        fprintf(f,
                "\nCPU memory (profile_memory)  %llu allocations (%s), %llu frees (%s), peak "
                "allocated %s at %s\n",
                (unsigned long long)r->mem.allocs, units_format_bytes(r->mem.alloc_bytes, m1, 32),
                (unsigned long long)r->mem.frees, units_format_bytes(r->mem.freed_bytes, m2, 32),
                units_format_bytes(r->mem.peak_allocated > 0 ? (uint64_t)r->mem.peak_allocated : 0,
                                   m3, 32),
                dur(r->mem.peak_ts, b1));
        if (r->ntop_ops_mem) {
            fprintf(f, "  by self CPU memory (key_averages' Self CPU Mem)  calls   self mem    "
                       "CPU mem\n");
            for (size_t i = 0; i < r->ntop_ops_mem; i++) {
                const struct lat_an_op *op = &r->top_ops_mem[i];
                fprintf(f, "    ");
                print_name(f, op->name, 44);
                fprintf(f, " %8llu %10s %10s\n", (unsigned long long)op->count,
                        fmt_mem(op->self_cpu_mem, m1), fmt_mem(op->cpu_mem, m2));
            }
        }
    }
    if (r->nthreads > 1 || (r->nthreads == 1 && r->cpu_only)) {
        fprintf(f, "\nthreads        pid        tid   op rows     in ops       self  name\n");
        for (size_t i = 0; i < r->nthreads; i++) {
            const struct lat_an_thread *th = &r->threads[i];
            char en[512];
            fprintf(f, "  %16lld %10lld %9llu %10s %10s  %s\n", (long long)th->pid,
                    (long long)th->tid, (unsigned long long)th->ops, dur(th->busy, b1),
                    dur(th->self, b2), th->name ? ESC(en, th->name) : "-");
        }
    }
    if (r->naten_seqs) {
        fprintf(f,
                "\naten op -> kernels (HTA)                    count  op->launch  launch->GPU\n");
        for (size_t i = 0; i < r->naten_seqs && i < 5; i++) {
            const struct lat_an_aten_seq *q = &r->aten_seqs[i];
            char seq[256];
            snprintf(seq, sizeof(seq), "%s: %s", q->op, q->kernels);
            fprintf(f, "  ");
            print_name(f, seq, 40);
            fprintf(f, " %7llu %11s %12s\n", (unsigned long long)q->count,
                    dur((lat_ns)q->avg_aten_op_launch_delay_ns, b1),
                    dur((lat_ns)q->avg_runtime_delay_ns, b2));
        }
    }
    /* device memory; the CPU's is the "CPU memory" part above (JSON: memory_timeline) */
    size_t ndevmem = 0;
    for (size_t i = 0; i < r->nmemdev; i++)
        ndevmem += r->memdev[i].device_type != 0;
    if (ndevmem) {
        char m1[32], m2[32], m3[32];
        fprintf(f, "\ndevice memory (profile_memory)  allocations   allocated  peak allocated"
                   "     peak at  peak reserved\n");
        for (size_t i = 0; i < r->nmemdev; i++) {
            const struct lat_an_memdev *d = &r->memdev[i];
            if (d->device_type == 0) continue;
            char dev[32];
            snprintf(dev, sizeof(dev), "%s:%lld", d->device, (long long)d->device_id);
            fprintf(
                f, "  %-28s %12llu %11s %15s %11s %14s\n", dev, (unsigned long long)d->allocs,
                units_format_bytes(d->alloc_bytes, m1, 32),
                units_format_bytes(d->peak_allocated > 0 ? (uint64_t)d->peak_allocated : 0, m2, 32),
                dur(d->peak_ts, b1),
                units_format_bytes(d->peak_reserved > 0 ? (uint64_t)d->peak_reserved : 0, m3, 32));
        }
        size_t shown = 0;
        for (size_t i = 0; i < r->nmemops && shown < 5; i++) {
            const struct lat_an_memop *q = &r->memops[i];
            if (q->device_type == 0) continue;
            if (!shown++)
                fprintf(f, "  by op (innermost cpu_op)                 allocations   allocated\n");
            char nm[256];
            snprintf(nm, sizeof(nm), "%s:%lld %s", lat_an_mem_device_name(q->device_type),
                     (long long)q->device_id, *q->op ? q->op : "(no op)");
            fprintf(f, "    ");
            print_name(f, nm, 40);
            fprintf(f, " %11llu %11s\n", (unsigned long long)q->allocs,
                    units_format_bytes(q->alloc_bytes, m1, 32));
        }
    }
    if (r->nkseqs) {
        fprintf(f,
                "\nfrequent kernel sequences (%s, >= %zu kernels; %llu instances, %zu "
                "patterns)\n",
                r->kseq_operator ? r->kseq_operator : "outermost aten:: ops", r->kseq_min_len,
                (unsigned long long)r->kseq_roots, r->nkseqs_total);
        fprintf(f, "  op: kernels                                  count  kernels    GPU time    "
                   "CPU time\n");
        for (size_t i = 0; i < r->nkseqs && i < 5; i++) {
            const struct lat_an_kseq *q = &r->kseqs[i];
            char seq[256];
            snprintf(seq, sizeof(seq), "%s: %s", q->op, q->kernels);
            fprintf(f, "  ");
            print_name(f, seq, 40);
            fprintf(f, " %7llu %8llu %11s %11s\n", (unsigned long long)q->count,
                    (unsigned long long)q->nkernels, dur(q->gpu_time, b1), dur(q->cpu_time, b2));
        }
    } else if (r->kseq_operator && r->kseq_ran) {
        fprintf(f, "\nfrequent kernel sequences (%s, >= %zu kernels): none\n", r->kseq_operator,
                r->kseq_min_len);
    }
    if (r->nperf) {
        fprintf(f, "\nperformance model (%llu op instances, %zu shapes, %s)\n",
                (unsigned long long)r->perf_instances, r->nperf_total, dur(r->perf_time, b1));
        fprintf(f, "  aten op / shape                               dtype  calls       time  "
                   "TFLOP/s     GB/s  %%peak  bound\n");
        const char *unknown_dev = NULL;
        char edev[512];
        for (size_t i = 0; i < r->nperf; i++) {
            const struct lat_an_perf *p = &r->perf[i];
            char nm[256], pk[16];
            const char *op = strncmp(p->op, "aten::", 6) ? p->op : p->op + 6;
            snprintf(nm, sizeof(nm), "%s %s", op, p->shape);
            fprintf(f, "  ");
            print_name(f, nm, 44);
            if (isnan(p->pct_of_bound))
                snprintf(pk, sizeof(pk), "%s", "-");
            else
                snprintf(pk, sizeof(pk), "%.1f", p->pct_of_bound);
            fprintf(f, " %-5s %6llu %10s %8.3f %8.1f %6s  %s\n", p->dtype,
                    (unsigned long long)p->count, dur(p->time, b1),
                    isnan(p->tflops) ? 0.0 : p->tflops, isnan(p->gbps) ? 0.0 : p->gbps, pk,
                    p->bound);
            if (isnan(p->peak_gbps) && !unknown_dev) unknown_dev = p->device ? p->device : "";
        }
        if (unknown_dev && !*unknown_dev)
            fprintf(f, "  (the trace names no GPU model (no deviceProperties), so no %% of "
                       "peak)\n");
        else if (unknown_dev && !strcmp(unknown_dev, "CPU"))
            fprintf(f, "  (time = the op's CPU time: the trace has no GPU rows; no peak table "
                       "for CPUs, so no %% of peak)\n");
        else if (unknown_dev)
            fprintf(f, /* the device name is the trace's */
                    "  (no peak for device \"%s\": not in the table of "
                    "docs/latscope-analyze.md, so no %% of peak)\n",
                    ESC(edev, unknown_dev));
        else if (r->nperf)
            fprintf(f, "  (%% of the bound's peak on %s; %s)\n",
                    r->perf[0].device ? ESC(edev, r->perf[0].device) : "?",
                    r->perf[0].gpu_time ? "time = the op's GPU kernel time" : "CPU time");
    }
    if (r->ntop_kernels) {
        fprintf(f, "\ntop kernels                                  type            calls       "
                   "total\n");
        for (size_t i = 0; i < r->ntop_kernels; i++) {
            const struct lat_an_kernel *k = &r->top_kernels[i];
            fprintf(f, "  ");
            print_name(f, k->name, 42);
            fprintf(f, " %-13s %7llu %11s\n", analysis_ktype_name(k->type),
                    (unsigned long long)k->count, dur(k->sum, b1));
        }
    }
    if (r->nmemcpy) {
        fprintf(f, "\nmemory copies   memory       count       bytes       time    GB/s\n");
        for (size_t i = 0; i < r->nmemcpy; i++) {
            const struct lat_an_memcpy *m = &r->memcpy[i];
            fprintf(f, "  %-13s %-10s %7llu %11s %10s %7.2f\n", m->kind, m->memory,
                    (unsigned long long)m->count, units_format_bytes(m->bytes, b1, 32),
                    dur(m->time, b2), m->gb_per_s);
        }
    }
    if (r->nsyncs) {
        fprintf(f, "\nsynchronisation (host blocked %s)\n", dur(r->sync_blocking, b1));
        char esync[512];
        for (size_t i = 0; i < r->nsyncs; i++)
            fprintf(f, "  %-28s %-7s %7llu %10s\n", ESC(esync, r->syncs[i].name),
                    r->syncs[i].device_side ? "device" : "host",
                    (unsigned long long)r->syncs[i].count, dur(r->syncs[i].total, b2));
    }
    if (r->nmembw) {
        fprintf(f,
                "\nmemory bandwidth (HTA counters)   rows  samples   mean GB/s    p50      max\n");
        for (size_t i = 0; i < r->nmembw; i++) {
            const struct lat_an_membw *m = &r->membw[i];
            char em[512];
            fprintf(f, "  %-30s %6llu %8llu %10.2f %8.2f %8.2f\n", ESC(em, m->name),
                    (unsigned long long)m->rows, (unsigned long long)m->gbps.count, m->gbps.mean,
                    m->gbps.p50, m->gbps.max);
        }
    }
    if (r->cupti.nranges) {
        const struct lat_an_cupti *C = &r->cupti;
        fprintf(f, "\nCUPTI counters  %zu kernel ranges, %zu counters", C->nranges, C->ncounters);
        if (!C->joined)
            fprintf(f, "; not joined with operators: %zu cudaLaunchKernel calls for %zu ranges\n",
                    C->nlaunches, C->nranges);
        else
            fprintf(f, " (FLOPs = add + mul + 2 fma)\n  %-40s %7s %12s %12s %12s\n", "top-level op",
                    "kernels", "FP32 GFLOP", "FP16 GFLOP", "FP64 GFLOP");
        for (size_t i = 0; C->joined && i < C->nops && i < o->top_n; i++) {
            const struct lat_an_cupti_op *op = &C->ops[i];
            fprintf(f, "  ");
            print_name(f, op->op[0] ? op->op : "(no operator)", 40);
            fprintf(f, " %7llu %12.3f %12.3f %12.3f\n", (unsigned long long)op->kernels,
                    op->flops_sp / 1e9, op->flops_hp / 1e9, op->flops_dp / 1e9);
        }
    }
    print_annotations(f, &r->annot, o->top_n);
    if (r->ncritpath) print_critpath_text(f, r);
    struct lat_cpu_summary cs;
    if (cpu_summary(r, o->top_n, ro, &cs)) { /* `latscope trace --cpu` samples */
        fprintf(f, "\n");
        lat_cpu_format_text(&cs, f);
        lat_cpu_summary_fini(&cs);
    }
    sections_text(f, r, o->top_n, ro);
    fprintf(f, "\n");
}

/* User annotations: the top rows of each table, by total time (text report). */
static void print_annotations(FILE *f, const struct lat_an_annots *A, size_t top_n)
{
    char b1[32], b2[32], b3[32];
    if (A->ngpu) {
        fprintf(f,
                "\nGPU user annotations (%llu of %llu GPU rows under one)   count       total     "
                "mean  GPU rows    their time\n",
                (unsigned long long)A->gpu_rows_annotated, (unsigned long long)A->gpu_rows);
        for (size_t i = 0; i < A->ngpu && i < top_n; i++) {
            const struct lat_an_annot *a = &A->gpu[i];
            fprintf(f, "  ");
            print_name(f, a->s.name, 50);
            fprintf(f, " %7llu %11s %8s %9llu %13s\n", (unsigned long long)a->s.count,
                    dur(a->s.sum, b1), dur((lat_ns)a->s.mean_ns, b2),
                    (unsigned long long)a->kernels, dur(a->kernel_time, b3));
        }
    }
    if (A->ncpu) {
        fprintf(f, "\nCPU user annotations                                  count       total     "
                   "mean\n");
        for (size_t i = 0; i < A->ncpu && i < top_n; i++) {
            const struct lat_an_annot *a = &A->cpu[i];
            fprintf(f, "  ");
            print_name(f, a->s.name, 50);
            fprintf(f, " %7llu %11s %8s\n", (unsigned long long)a->s.count, dur(a->s.sum, b1),
                    dur((lat_ns)a->s.mean_ns, b2));
        }
    }
}

void analyze_write_rank_json(struct jsonw *w, const struct lat_analysis *a, size_t i,
                             const struct analyze_render_opts *o)
{
    j_rank(w, &a->ranks[i], false, a->opts.top_n, o);
}

void analyze_format_rank_text(FILE *f, const struct lat_analysis *a, size_t i,
                              const struct analyze_render_opts *o)
{
    print_rank_text(f, &a->ranks[i], &a->opts, o);
}

int analyze_format_text(FILE *f, const struct lat_analysis *a, const struct analyze_render_opts *o)
{
    if (a->warning[0]) fprintf(f, "note: %s\n", a->warning);
    if (a->last_step_dropped && a->opts.hta_compat)
        fprintf(f, "note: the last ProfilerStep (incomplete) was dropped, as HTA does "
                   "(--include-last-step keeps it)\n");
    else if (a->last_step_dropped)
        fprintf(f,
                "note: the last ProfilerStep was dropped as incomplete: %s (--include-last-step "
                "keeps it)\n",
                a->last_step_reason);
    size_t ntl = 0; /* timeline ranks (kernel profiles are not in the sums) */
    for (size_t i = 0; i < a->nranks; i++) {
        print_rank_text(f, &a->ranks[i], &a->opts, o);
        ntl += !a->ranks[i].trace || a->ranks[i].trace->role == LAT_TRACE_TIMELINE;
    }
    if (o && o->ranks_text) {
        if (o->ranks_text(o->ranks_ctx, f)) return -EIO;
        ntl += o->ranks_timeline;
    }
    if (ntl > 1 && a->whole.temporal.valid) {
        const struct lat_an_temporal *t = &a->whole.temporal;
        char b1[32];
        fprintf(f,
                "== all %zu ranks: kernel time %s, compute %.2f%%, non-compute %.2f%%, idle "
                "%.2f%%, %llu launches\n",
                ntl, dur(t->kernel_time, b1), t->compute_pct, t->non_compute_pct, t->idle_pct,
                (unsigned long long)a->whole.launch.count);
    }
    if (a->nrank_rows) {
        char b1[32], b2[32], b3[32], b4[32];
        fprintf(
            f,
            "\nacross ranks   steps  mean step   max step   comm time   GPU idle  over median\n");
        for (size_t i = 0; i < a->nrank_rows; i++) {
            const struct lat_an_rank_row *q = &a->rank_rows[i];
            fprintf(f, "  rank %-6d %6llu %10s %10s %11s %10s", q->rank,
                    (unsigned long long)q->steps, dur((lat_ns)q->step_mean, b1),
                    dur(q->step_max, b2), dur(q->comm, b3), dur(q->idle, b4));
            if (a->step_median_ns > 0)
                fprintf(f, " %+10.1f%%%s\n", q->excess_pct, q->straggler ? "  STRAGGLER" : "");
            else
                fprintf(f, "           -\n");
        }
        if (a->nstragglers)
            fprintf(
                f,
                "  %zu straggler rank(s): mean step > 3 robust sigmas and > 5%% over the median "
                "rank's %s\n",
                a->nstragglers, dur((lat_ns)a->step_median_ns, b1));
    }
    return ferror(f) ? -EIO : 0;
}
