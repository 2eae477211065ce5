/*
 * analysis.h - the result model of `latscope analyze`, consumed by `doctor`, `report`, `diff`.
 *
 * analysis_run() takes one loaded trace per rank (struct lat_trace, src/model/events.h), applies
 * HTA's preprocessing (../shared/docs/analyses.md §0) as a mask over the model (nothing is
 * copied), runs every analysis and returns one struct lat_analysis: per rank, plus `whole`, the
 * sum over ranks of the additive parts. Definitions and the HTA-compatible defaults are in
 * docs/latscope-analyze.md.
 *
 * Units: every time is int64 ns (lat_ns), exact to the trace's ns. HTA's ns rounding (§0 step 2)
 * applies only with hta_compat (and ns_rounding, its default): then the HTA analyses' times of
 * ns-resolution traces are whole µs, i.e. multiples of 1000 ns. The operator tables are exact
 * in both modes (key_averages() semantics, docs/truth-cpu.md). Percentages are 0..100.
 * Ratios are 0..1.
 *
 * Strings: every `const char *` in the result points into the string table of the rank's
 * trace (or is a static string). The traces must outlive the result; the result owns nothing
 * else than its arrays. analysis_free() releases everything.
 *
 * Threads: no global state; several analyses may run at once on different threads (the traces
 * are only read).
 *
 * Stability: this header only grows (new fields at the end of structs, new enum values at
 * the end). Consumers must not depend on sizeof().
 */
#ifndef LAT_ANALYZE_ANALYSIS_H
#define LAT_ANALYZE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/critpath.h"
#include "model/events.h"

/* HTA kernel types (analyses.md §1). Bit flags for the overlap buckets of §4. */
enum lat_ktype {
    LAT_KT_COMPUTATION = 0,
    LAT_KT_COMMUNICATION = 1,
    LAT_KT_MEMORY = 2,
    LAT_KT_OTHER = 3,
    LAT_KT_COUNT
};
#define LAT_KT_BIT_COMPUTATION   1u
#define LAT_KT_BIT_COMMUNICATION 2u
#define LAT_KT_BIT_MEMORY        4u

/* Idle categories (analyses.md §3). */
enum lat_idle_cat { LAT_IDLE_HOST_WAIT = 0, LAT_IDLE_KERNEL_WAIT, LAT_IDLE_OTHER, LAT_IDLE_COUNT };

struct analysis_opts {
    bool hta_compat;        /* HTA-identical numbers where latscope deliberately differs */
    bool counters;          /* also keep the queue-length and memory-bandwidth series points
                             * (lat_an_rank.queue_pts/membw_pts: analyze --write-trace) */
    bool ns_rounding;       /* §0 step 2 under hta_compat (HTA default on;
                               HTA_DISABLE_NS_ROUNDING=1 off); without hta_compat times are
                               never rounded */
    bool include_last_step; /* §0 step 4 off: keep the last ProfilerStep even when HTA's rule
                               (hta_compat) or the completeness test (default) would drop it */
    int32_t only_rank;      /* analyse only this rank (-1: all) */
    size_t top_n;           /* rows in top_ops / top_kernels / op_kernels (default 10) */
    lat_ns consecutive_kernel_delay_ns; /* §3, default 30 µs */
    lat_ns runtime_cutoff_ns;           /* §6, default 50 µs */
    lat_ns launch_delay_cutoff_ns;      /* §6, default 100 µs */
    int64_t max_queue_length;           /* §8, default 1024 */
    double duration_ratio;              /* §4, default 0.8 */
    size_t num_kernels;                 /* §4, default 10 */
    bool include_memory_kernels;        /* §4, default true */
    /* §11 critical path: off unless set. cp_annotation NULL: one graph per kept CPU
     * ProfilerStep; "": the whole trace; else the cp_instance-th row (default 0) whose name
     * contains it (HTA's annotation / instance_id). cp_zero_weight_launch: HTA's
     * CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1. */
    bool critical_path;
    const char *cp_annotation;
    int64_t cp_instance;
    bool cp_zero_weight_launch;
    /* §10 frequent kernel sequences (kseq.c): kseq_operator NULL: the outermost aten:: ops;
     * else HTA's operator_name (rows whose name contains it, at their smallest depth).
     * kseq_min_len: HTA's min_pattern_len (default 3). */
    const char *kseq_operator;
    size_t kseq_min_len;
    /* Optional progress callback (fraction 0..1); may be NULL. */
    void (*progress)(void *arg, double fraction);
    void *progress_arg;
    /* Threads for the analyses after preprocessing (0: one per online CPU, at most 8). The
     * progress callback runs on the calling thread only. */
    unsigned threads;
    /* A rank of a streamed job (analysis_scan_opts): the distinct step count and alignment
     * offset of §0 are the job's, not the ranks given to this run. */
    bool prep_fixed;
    lat_ns prep_offset;
    uint32_t prep_steps_distinct;
};

/* Fills o with the defaults above (HTA's defaults; hta_compat false). */
void analysis_opts_default(struct analysis_opts *o);

/* Distribution summary of a sample (pandas describe(): linear-interpolated quantiles). */
struct lat_dist {
    uint64_t count;
    double mean, std; /* sample std (n-1), 0 for one sample */
    double min, p25, p50, p75, p90, p99, max;
};

/* 1. Temporal breakdown (§2). valid=false when the rank has no GPU rows. */
struct lat_an_temporal {
    bool valid;
    lat_ns kernel_time, idle, compute, non_compute;
    double idle_pct, compute_pct, non_compute_pct; /* 100 * x / kernel_time (not rounded) */
    /* > 0 when compute exceeded the busy time (kernel_time - idle), which HTA's own assertion
     * non_compute >= 0 rejects (e.g. the Qwen1.5 H100 trace under --hta-compat): compute is
     * capped at the busy time and non_compute shown as 0, never negative. */
    lat_ns clamped;
};

/* 2. Idle breakdown per stream (§3). */
struct lat_an_idle_stream {
    int64_t stream;
    lat_ns idle[LAT_IDLE_COUNT];   /* Σ gaps per category */
    double ratio[LAT_IDLE_COUNT];  /* share of the stream's Σ gaps (0 when that is 0) */
    uint64_t gaps[LAT_IDLE_COUNT]; /* number of gaps per category */
    uint64_t events;               /* rows on the stream */
};

/* 3. Kernel-type breakdown (§4): one exclusive overlap bucket (mask of LAT_KT_BIT_*). */
struct lat_an_ktype_bucket {
    unsigned mask;
    const char *label; /* "COMPUTATION", "COMPUTATION overlapping COMMUNICATION", ... */
    lat_ns sum;        /* HTA: each sweep piece truncated to whole µs */
    double percent;    /* 100 * sum / Σ all buckets */
};

/* Per-kernel-name statistics (§4 per-kernel table; also the overall top kernels). */
struct lat_an_kernel {
    enum lat_ktype type;
    const char *name; /* "others" for HTA's aggregated row */
    bool others;
    uint64_t count;
    lat_ns sum, max, min;
    double mean_ns, std_ns;
};

/* 5. Launch statistics (§6). */
struct lat_an_launch_rec {
    int64_t correlation;
    uint32_t cpu; /* event index of the launch (runtime call) */
    uint32_t gpu; /* event index of the GPU row */
    lat_ns cpu_dur, gpu_dur, launch_delay;
};
struct lat_an_launch {
    uint64_t count; /* joined (launch, GPU row) pairs */
    uint64_t short_kernels, runtime_outliers, launch_delay_outliers;
    lat_ns median_launch_delay;
    struct lat_dist cpu_dur, gpu_dur, launch_delay; /* in ns */
    uint64_t uncorrelated_gpu; /* GPU rows (stream != -1) with no correlated CPU row */
    uint64_t gpu_rows;         /* GPU rows (stream != -1) after preprocessing */
    uint64_t correlated_gpu; /* GPU rows whose correlated CPU row (§0 index_correlation) is kept */
    uint64_t graph_launches; /* cudaGraphLaunch/hipGraphLaunch calls (latscope mode only) */
    struct lat_an_launch_rec *recs; /* count records, in launch order */
};

/* 6. Per-step breakdown. The step's wall time [ts, ts+dur) is split exclusively, in this
 * priority: GPU compute, communication, copies (memcpy/memset), other GPU work (syncs, ...),
 * CPU-only (some CPU op or runtime call running, no GPU work), idle. The parts sum to dur. */
struct lat_an_step {
    int32_t step;
    lat_ns ts, dur; /* ts after rank alignment (§0 step 3) */
    lat_ns gpu_compute, comm, copies, gpu_other, cpu_only, idle;
    uint64_t kernels; /* GPU rows tagged with this iteration (§0 step 5) */
    /* The CPU side of the step's wall time on the step's thread, split exclusively in this
     * priority: DataLoader (an `enumerate(DataLoader)...` record_function region), operators
     * (some cpu_op running), Python (some python_function running, no op), other (none of
     * them: interpreter/profiler overhead or waiting, invisible to the profiler). Exact ns;
     * the parts sum to dur. */
    lat_ns cpu_dataloader, cpu_ops, cpu_python, cpu_other;
};

/* 7. Top CPU operators (self and total time) and the op -> kernel mapping. */
struct lat_an_op {
    const char *name;
    const char *input_dims; /* raw JSON of "Input Dims" of the first instance, or NULL */
    uint64_t count;
    lat_ns total, self;
    lat_ns gpu_time;  /* Σ dur of GPU rows launched directly under this op */
    uint64_t kernels; /* number of those GPU rows */
    /* key_averages' CPU Mem / Self CPU Mem: net bytes (allocations - frees) of the CPU
     * [memory] records inside the op's [ts, end] (any thread), and that minus its children's */
    int64_t cpu_mem, self_cpu_mem;
    bool annotation; /* a record_function region (user_annotation, ProfilerStep*) */
    bool python;     /* a python_function row (py_funcs only) */
};

/* CPU memory from profile_memory ([memory] instants with Device Type 0). */
struct lat_an_mem {
    uint64_t records, allocs, frees;
    uint64_t alloc_bytes, freed_bytes; /* Σ Bytes > 0, Σ -Bytes of frees */
    int64_t peak_allocated;            /* max "Total Allocated" */
    lat_ns peak_ts;                    /* when (after rank alignment) */
};

/* One CPU thread's share of the operator work. */
struct lat_an_thread {
    int64_t pid, tid;
    const char *name;          /* thread_name metadata, NULL when none */
    uint64_t ops;              /* op rows (every cpu_op, annotation, runtime call) */
    lat_ns busy;               /* Σ dur of its outermost cpu_ops (time inside some op) */
    lat_ns self;               /* Σ self time of its op rows (ProfilerStep* excluded) */
    lat_ns first_ts, last_end; /* after rank alignment */
};
struct lat_an_op_kernel {
    const char *op;     /* innermost enclosing cpu_op of the launch ("" when none) */
    const char *kernel; /* GPU row name */
    uint64_t count;
    lat_ns gpu_time;
};

/* 8. Memory copies and synchronisations. */
struct lat_an_memcpy {
    const char *kind;   /* "HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "Memset", "Unknown" */
    const char *memory; /* "Pageable", "Pinned", "Device", "Managed", ... of the host side */
    bool pageable;
    uint64_t count, bytes;
    lat_ns time;
    double gb_per_s; /* bytes / time, 0 when time is 0 */
};
struct lat_an_sync {
    const char *name; /* cudaDeviceSynchronize, cudaStreamSynchronize, Stream Sync, ... */
    bool device_side; /* a GPU-side cuda_sync record (Stream Sync, Event Sync, ...) */
    uint64_t count;
    lat_ns total; /* CPU blocking time (runtime calls) or device record time */
};

/* 9. Queue length per stream (§8). */
struct lat_an_queue {
    int64_t stream;
    struct lat_dist len; /* describe() of the queue-length samples */
    int64_t max_length;
    lat_ns blocked;     /* time with queue length >= max_queue_length */
    double blocked_rel; /* blocked / trace duration */
};

/* 7b. HTA's ATen op -> kernel delay (analyses.md §7): per (aten op, kernel sequence). */
struct lat_an_aten_seq {
    const char *op;                     /* aten::... */
    char *kernels;                      /* kernel names joined with " -> " (owned by the result) */
    uint64_t count;                     /* op instances with this sequence */
    double avg_aten_op_launch_delay_ns; /* mean of (first launch ts - op ts) */
    double avg_runtime_delay_ns;        /* mean of (its kernel ts - first launch ts) */
};

/* 10. Performance model (issue 20 part 3, src/analyze/perfmodel.c): one row per (op, Input
 * Dims, Input type, time source) of the modelled op instances (docs/latscope-analyze.md). NaN
 * (JSON null) where the device's peak is unknown. */
struct lat_an_perf {
    const char *op;         /* aten::addmm, ... */
    const char *family;     /* "gemm", "conv", "attention", "elementwise", "reduction" */
    char *shape;            /* "M=141 N=512 K=512", ... (owned by the result) */
    const char *input_dims; /* raw "Input Dims" */
    const char *dtype;      /* "bf16", "fp32", ... */
    const char *precision;  /* the peak used: "BF16", "TF32", "FP32 vector", ...; NULL: none */
    const char *device;     /* deviceProperties name, "CPU" for CPU time; NULL when none */
    const char *kernel;     /* the longest kernel of the first instance (NULL: CPU time) */
    bool gpu_time;          /* time is the op's GPU kernel time (else its CPU time) */
    uint64_t count;
    int64_t m, n, k, batch; /* GEMM: M, N, K, batch; attention: N_Q, N_KV, d, B*H; else 0 */
    double flops, bytes;    /* per instance */
    double intensity;       /* flops / byte */
    lat_ns time;            /* Σ over the instances */
    double tflops, gbps;    /* achieved: Σ flops / Σ time, Σ bytes / Σ time */
    double peak_tflops, peak_gbps, ridge; /* NaN when unknown; ridge in flops/byte */
    double pct_peak_flops, pct_peak_bw;   /* 0..100, NaN when unknown */
    const char *bound;                    /* "compute", "memory", "unknown" */
    double pct_of_bound;                  /* pct_peak_flops or pct_peak_bw by the bound */
};

/* 11. Frequent kernel sequences (§10, kseq.c): one row per (op, kernels launched under it in
 * ts order), HTA's get_frequent_cuda_kernel_sequences. */
struct lat_an_kseq {
    const char *op; /* the emitting CPU op (the root) */
    char *pattern;  /* HTA's pattern text "op|k1|k2|..." (owned) */
    char *kernels;  /* "k1 -> k2 -> ..." (owned) */
    uint64_t nkernels;
    uint64_t count;  /* root instances with this pattern */
    lat_ns gpu_time; /* Σ dur of their GPU rows (HTA "GPU kernel duration") */
    lat_ns cpu_time; /* Σ dur of the roots (HTA "CPU op duration") */
};

/* 12. Memory timeline of the [memory] instants (memtl.c), per device and per (device, op). */
struct lat_an_memdev {
    int64_t device_type, device_id; /* c10::DeviceType (0 CPU, 1 CUDA), index (-1: CPU) */
    const char *device;             /* "CPU", "CUDA", ... */
    uint64_t records, allocs, frees;
    uint64_t alloc_bytes, freed_bytes;
    int64_t peak_allocated;                  /* max Total Allocated */
    lat_ns peak_ts;                          /* when (after rank alignment) */
    int64_t peak_reserved;                   /* max Total Reserved */
    int64_t first_allocated, last_allocated; /* Total Allocated at the first / last record */
};
struct lat_an_memop {
    int64_t device_type, device_id;
    const char *op; /* innermost cpu_op of the record's thread ("" none) */
    uint64_t allocs, alloc_bytes, frees, freed_bytes;
};

/* Everything for one rank. */
/* User annotations (annot.c): HTA's get_gpu/cpu_user_annotation_breakdown rows and the GPU
 * rows under each GPU annotation (get_gpu_kernels_with_user_annotations). */
struct lat_an_annot {
    struct lat_an_kernel s; /* name ("others": HTA's aggregated row), count, sum..std */
    uint64_t kernels;       /* GPU rows whose innermost GPU annotation this is (GPU rows) */
    lat_ns kernel_time;     /* their time */
};
struct lat_an_annots {
    struct lat_an_annot *gpu, *cpu; /* gpu_user_annotation / user_annotation rows, by sum */
    size_t ngpu, ncpu;
    uint64_t gpu_rows;           /* rows HTA's GPUKernelFilter keeps */
    uint64_t gpu_rows_annotated; /* those under some GPU annotation */
};

/* CUPTI range-profiler counters (cupti.c; HTA get_counter_data_with_operators). */
enum { LAT_AN_CUPTI_MAX = 64 };
struct lat_an_cupti_row { /* one cuda_profiler_range (a kernel), by ts */
    const char *kernel;
    lat_ns ts, dur;     /* dur: the profiled (replayed) range, not kernel time */
    const char *top_op; /* outermost enclosing cpu_op of its launch ("" none; NULL: not joined) */
    const char *bottom_op;
    double flops[3];   /* FP32, FP64, FP16: add + mul + 2 fma */
    double dram_bytes; /* dram__bytes_read.sum + dram__bytes_write.sum */
    uint32_t ev;       /* the event (its counters are its args) */
};
struct lat_an_cupti_op { /* per top-level op */
    const char *op;
    uint64_t kernels;
    double flops_sp, flops_dp, flops_hp, dram_bytes;
    lat_ns range_time;
};
struct lat_an_cupti {
    size_t nranges, nlaunches; /* joined only when equal (HTA's rule) */
    bool joined;
    const char *counters[LAT_AN_CUPTI_MAX]; /* the numeric args of the first range */
    size_t ncounters;
    struct lat_an_cupti_row *rows;
    size_t nrows;
    struct lat_an_cupti_op *ops; /* in order of first appearance */
    size_t nops;
};

/* One point of a counter series (analyze --write-trace): the value from ts on. */
struct lat_an_counter_pt {
    lat_ns ts;
    double value;
    int64_t pid;      /* the GPU's pid */
    int64_t id;       /* queue length: the stream; memory bandwidth: -1 */
    const char *name; /* memory bandwidth: the group ("Memcpy HtoD"); queue length: NULL */
};

/* Memory bandwidth series per copy group (membw.c, HTA get_memory_bw_summary). */
struct lat_an_membw {
    const char *name; /* "Memcpy HtoD", ..., "Memset", "Memcpy Unknown" (points to name_buf) */
    char name_buf[16];
    uint64_t rows;        /* copies/memsets with a bandwidth argument */
    struct lat_dist gbps; /* describe() of the series' samples above 0, GB/s */
};

struct lat_an_rank {
    int32_t rank;
    const struct lat_trace *trace;
    lat_ns align_offset_ns;       /* subtracted from every ts (§0 step 3) */
    uint64_t events, kept_events; /* model events; kept by §0 */
    uint64_t dropped_last_step;   /* GPU/CPU rows dropped by §0 step 4 */

    struct lat_an_temporal temporal;

    struct lat_an_idle_stream *idle;
    size_t nidle;

    struct lat_an_ktype_bucket *ktypes; /* sorted by sum, descending */
    size_t nktypes;
    struct lat_an_kernel *kernels_by_type; /* HTA's per-kernel table, sorted (type, name) */
    size_t nkernels_by_type;
    struct lat_an_kernel *top_kernels; /* top_n names by Σ dur over all types */
    size_t ntop_kernels;

    bool has_comm; /* false: comm_comp_overlap_pct is undefined (null) */
    double comm_comp_overlap_pct;
    lat_ns comm_time, comm_comp_overlap;

    struct lat_an_launch launch;

    struct lat_an_step *steps;
    size_t nsteps;

    struct lat_an_op *top_ops; /* top_n by total time */
    size_t ntop_ops;
    struct lat_an_op *top_ops_self; /* top_n by self time */
    size_t ntop_ops_self;
    struct lat_an_op_kernel *op_kernels; /* top_n (op, kernel) pairs by GPU time */
    size_t nop_kernels;

    struct lat_an_memcpy *memcpy;
    size_t nmemcpy;
    struct lat_an_sync *syncs;
    size_t nsyncs;
    lat_ns sync_blocking; /* Σ CPU blocking time of the sync runtime calls */

    struct lat_an_queue *queue;
    size_t nqueue;

    /* top_n (aten op, kernel sequence) rows by count, then by avg_aten_op_launch_delay */
    struct lat_an_aten_seq *aten_seqs;
    size_t naten_seqs;
    size_t naten_seqs_total; /* distinct rows before the top_n cut */

    /* Operator tables with key_averages() semantics (docs/truth-cpu.md): */
    size_t nops_total;              /* distinct op names before the top_n cut */
    lat_ns ops_self_total;          /* Σ self over every op row ("Self CPU time total") */
    lat_ns steps_total;             /* Σ wall of the kept steps (0 without steps) */
    struct lat_an_op *ops_by_shape; /* top_n (name, Input Dims) by self time, like
                                       key_averages(group_by_input_shape=True) */
    size_t nops_by_shape;
    char *shape_keys; /* owned: the texts of ops_by_shape rows keyed by a normalized Input Dims
                         (a tensor list as [], torch's key) */
    struct lat_an_op *py_funcs; /* top_n python_function names by self time; total counts
                                   only outermost calls (a recursive function once) */
    size_t npy_funcs;
    size_t npy_funcs_total;
    struct lat_an_mem mem;         /* records == 0: no profile_memory data */
    struct lat_an_thread *threads; /* CPU threads with op rows, by busy time */
    size_t nthreads;
    bool cpu_only;                 /* no GPU rows at all: the step table is the CPU split */
    struct lat_an_op *top_ops_mem; /* top_n by self CPU memory (with profile_memory data) */
    size_t ntop_ops_mem;
    struct lat_an_annots annot; /* user annotations (annot.c) */
    struct lat_an_membw *membw; /* per copy group (membw.c): DtoH, HtoD, DtoD, Memset, ... */
    size_t nmembw;
    /* with analysis_opts.counters: the series points, in time order per stream / group */
    struct lat_an_counter_pt *queue_pts, *membw_pts;
    size_t nqueue_pts, nmembw_pts;
    struct lat_an_cupti cupti; /* CUPTI range-profiler counters (nranges 0: none) */
    /* performance model: top_n rows by time; counts before the cut */
    struct lat_an_perf *perf;
    size_t nperf;
    size_t nperf_total;
    uint64_t perf_instances; /* modelled op instances */
    uint64_t perf_unparsed;  /* known ops whose args lacked what the formula needs */
    lat_ns perf_time;        /* Σ time of the modelled instances */
    /* §11 (with opts.critical_path): one entry per window; with an annotation, cp_found says
     * whether any row matched and cp_instances how many */
    struct lat_an_critpath *critpath;
    size_t ncritpath;
    bool cp_ran; /* opts.critical_path was set: the JSON has a critical_path key */
    bool cp_found;
    uint64_t cp_instances;
    /* a streamed job's rank (analysis_job_add): the launch.count launch delays alone, in place
     * of launch.recs (8 bytes per launch instead of a record) */
    lat_ns *launch_delays;
    /* §10 frequent kernel sequences: top_n rows (count, then pattern text); kseq_roots = the
     * root op instances (0: none qualifies) */
    struct lat_an_kseq *kseqs;
    size_t nkseqs, nkseqs_total;
    uint64_t kseq_roots;
    bool kseq_ran;
    const char *kseq_operator; /* NULL: the outermost aten:: ops */
    size_t kseq_min_len;
    /* memory timeline ([memory] instants, memtl.c): per device by (type, id); top_n (device,
     * op) rows by allocated bytes; with opts.counters the Total Allocated series */
    struct lat_an_memdev *memdev;
    size_t nmemdev;
    struct lat_an_memop *memops;
    size_t nmemops, nmemops_total;
    struct lat_an_counter_pt *mem_pts;
    size_t nmem_pts;
};

/* One rank of the cross-rank view (ranks.c), jobs of 2+ ranks. */
struct lat_an_rank_row {
    int32_t rank;
    uint64_t steps;
    double step_mean; /* ns, over the rank's kept steps (0 without steps) */
    lat_ns step_max;
    lat_ns comm, idle; /* communication kernel time; GPU idle (temporal) */
    double idle_pct;
    double excess_pct; /* mean step time over the median rank's, % (3+ ranks with steps) */
    bool straggler;    /* > 3 scaled MADs and > 5 % above the median */
};

struct lat_analysis {
    struct analysis_opts opts;
    struct lat_an_rank *ranks; /* sorted by rank */
    size_t nranks;
    /* The sum over ranks of temporal, ktypes, launch counts, memcpy and syncs; other members
     * are empty. rank = -1. Equal to ranks[0] (minus the arrays) when nranks == 1. */
    struct lat_an_rank whole;
    uint32_t steps_distinct; /* |P| of §0 step 4 over all ranks */
    bool last_step_dropped;  /* §0 step 4 applied */
    char warning[160];       /* first preprocessing warning ("ProfilerStep not found", ...) */
    /* Why the last step was dropped ("" when it was not): HTA's rule (hta_compat) or what made
     * it incomplete (default). */
    char last_step_reason[128];
    /* Across ranks (ranks.c): empty for one rank. */
    struct lat_an_rank_row *rank_rows;
    size_t nrank_rows;
    double step_median_ns; /* 0: fewer than 3 ranks with steps */
    size_t nstragglers;
    /* strings the result owns (analysis_job_finish: sync names of the freed traces) */
    char **owned;
    size_t nowned, owned_cap;
};

/* Runs every analysis over n traces (one per rank; a trace's rank is trace->rank, or its
 * position when -1). The traces are not modified. Returns 0, -ENOMEM or LAT_E_USAGE (n == 0).
 * Free *out with analysis_free(). */
int analysis_run(struct lat_trace *const *ranks, size_t n, const struct analysis_opts *o,
                 struct lat_analysis **out);
void analysis_free(struct lat_analysis *a);

/* Whether the last CPU ProfilerStep#N of t (the one starting last) is complete, from the trace
 * itself: it is incomplete when more of its kernel/memcpy launches have no GPU row in the trace
 * than in the previous step (the profiler stopped before its work was recorded; some launches
 * have none in every step), or when it holds under 80 % of the previous
 * step's work (GPU launches with a GPU row when that step has any, else cpu_ops): a step cut
 * short, or the tail opened by a last profiler.step(). True with fewer than two distinct steps.
 * analyze (without hta_compat) and doctor drop the last step exactly when this is false. */
bool analysis_last_step_complete(const struct lat_trace *t);

/* ---- many ranks in bounded memory (analyze on directories of rank files) ----
 * Pass 1: analysis_scan_add() on every rank's trace (then free it) collects what §0 computes
 * across ranks; analysis_scan_opts() puts it into the options. Pass 2: analysis_run() on one
 * rank at a time with those options gives that rank exactly what a run over all ranks gives
 * it; analysis_job_add() keeps what the job-wide parts need (a few numbers per rank, its
 * launch delays, its memcpy/sync rows) and analysis_job_finish() computes them (whole,
 * cross-rank, preprocessing notes) in rank order, as analysis_run() over all ranks would. */
struct analysis_scan {
    int64_t *steps; /* distinct step numbers seen, sorted */
    size_t nsteps, cap;
    bool have_ts;
    lat_ns min_ts;
};
int analysis_scan_add(struct analysis_scan *s, const struct lat_trace *t,
                      const struct analysis_opts *o);
void analysis_scan_opts(const struct analysis_scan *s, struct analysis_opts *o);
void analysis_scan_fini(struct analysis_scan *s);

struct analysis_job;
int analysis_job_new(const struct analysis_opts *o, struct analysis_job **out);
/* Adds rank 0 of a, a one-rank run (the trace may be freed afterwards). 0 or -ENOMEM. */
int analysis_job_add(struct analysis_job *j, const struct lat_analysis *a);
/* The job's analysis without its ranks (nranks 0): whole, cross-rank table, preprocessing
 * notes. Frees j in every case. 0 or -ENOMEM. */
int analysis_job_finish(struct analysis_job *j, struct lat_analysis **out);
void analysis_job_free(struct analysis_job *j);
/* What analysis_job_add() reads of a one-rank run, as bytes (for the processes of `mpirun ...
 * analyze`: one binary, one byte order), and back: unpack gives a one-rank analysis to
 * analysis_job_add() (no trace; its strings are its own). 0, -ENOMEM, LAT_E_USAGE (not one
 * rank) or LAT_E_TRUNCATED (bad bytes); *used: the bytes read. */
struct lat_buf;
int analysis_rank_pack(const struct lat_analysis *one, struct lat_buf *b);
int analysis_rank_unpack(const void *p, size_t len, size_t *used, struct lat_analysis **out);

/* Kernel type of a GPU row name (§1, HTA's re.match semantics). */
enum lat_ktype analysis_kernel_type(const char *name);
/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER". */
const char *analysis_ktype_name(enum lat_ktype t);
/* "host_wait", "kernel_wait", "other". */
const char *analysis_idle_name(enum lat_idle_cat c);

/* counters.c: adds rank r's counter series (analysis_opts.counters) to its trace t as ph "C"
 * events, HTA's generate_trace_with_counters tracks; sorts t. 0 or -ENOMEM; *added = events. */
int analysis_add_counters(struct lat_trace *t, const struct lat_an_rank *r, size_t *added);

/* counters.c: HTA's critical-path overlay (overlay_critical_path_analysis) for --write-trace:
 * each critical operator edge of r's windows (opts.critical_path and opts.counters) as an X
 * event (cat critical_path, named after its event, args bound_by/type/weight_us) on a
 * "critical path" thread of the window's process, and each critical dependency, launch-delay
 * and sync edge (HTA's default edge types) as a flow (cat critical_path) between the events it
 * joins. *events: the distinct events the critical edges join (HTA's critical events). Call
 * before analysis_add_counters() (the edges hold event indices; both sort t). */
int analysis_add_critpath(struct lat_trace *t, const struct lat_an_rank *r, size_t *spans,
                          size_t *flows, size_t *events);

#endif
