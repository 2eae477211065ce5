/*
 * doctor.h - `latscope doctor`: reads a trace model and turns it into ranked findings, each with
 * its evidence, an estimated saving (an upper bound), a recommendation and the next command.
 *
 * The rule engine reads only the trace model (model/events.h), so it works on every input a
 * reader fills. Thresholds live in struct doc_thresholds; their defaults and where each comes
 * from are documented in docs/latscope-doctor.md.
 *
 * Ownership: doctor_report_new() allocates; doctor_report_free() releases every finding and
 * every string in it. The report copies what it needs from the trace (names, paths), so the
 * trace may be freed right after doctor_run().
 */
#ifndef LAT_DOCTOR_DOCTOR_H
#define LAT_DOCTOR_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/jsonw.h"
#include "model/events.h"

enum doc_severity {
    DOC_SEV_INFO = 0, /* advice without an estimated saving */
    DOC_SEV_LOW,      /* saving < 5 % of the step */
    DOC_SEV_MEDIUM,   /* saving 5 .. 20 % */
    DOC_SEV_HIGH,     /* saving >= 20 % */
    DOC_SEV_NEVER,    /* only as a --fail-on value: never fail */
};

/* One evidence value: a number, an integer, a string or a boolean. */
enum doc_kv_type { DOC_KV_NUM, DOC_KV_INT, DOC_KV_STR, DOC_KV_BOOL, DOC_KV_US };

struct doc_kv {
    char *key;
    enum doc_kv_type type;
    double num;  /* NUM */
    int64_t i;   /* INT, BOOL, US (ns, written as µs with 3 decimals) */
    char *str;   /* STR */
    int group;   /* 0 = top level of evidence; k > 0 = k-th entry of the table `table` */
    char *table; /* name of the evidence array this value belongs to (group > 0) */
};

/* One worst example: where to look in Perfetto / TensorBoard. */
struct doc_example {
    const char *name; /* owned by the report once added (doc_example_add copies) */
    lat_ns ts;        /* trace time base (the file's own ts, in ns) */
    lat_ns offset;    /* from the first event of the trace */
    lat_ns dur;
    lat_ns value;     /* the amount this example contributes (blocked, idle, ...) */
    int32_t step;     /* ProfilerStep N, -1 when outside steps */
    int64_t stream;   /* -1 for CPU events */
    int64_t tid;      /* CPU thread, -1 for GPU events */
    const char *note; /* e.g. "under aten::item", may be NULL; owned like name */
};

/* What a finding's saving is: an upper bound (the default: "<="), an estimate ("≈") or a lower
 * bound ("at least"). A rule that cannot show its number bounds the gain says which it is. */
enum doc_bound { DOC_BOUND_UPPER = 0, DOC_BOUND_ESTIMATE, DOC_BOUND_LOWER };
const char *doctor_bound_name(enum doc_bound b); /* "upper", "estimate", "lower" */

struct doc_finding {
    const char *id; /* static: "dataloader", "launch-bound", ... */
    char *title;
    enum doc_severity severity;
    double saving_us_per_step; /* see saving_bound; 0 when not estimated */
    enum doc_bound saving_bound;
    double saving_pct;   /* of the mean step time */
    char *saving_method; /* how the saving was computed */
    struct doc_kv *kv;
    size_t nkv, kv_cap;
    struct doc_example *ex;
    size_t nex, ex_cap;
    char *recommendation;
    char *next_step;
    int trace; /* index into report->traces */
    /* builder state: evidence values go into row cur_group of table cur_table (0: top level) */
    int cur_group;
    char *cur_table;
};

/* Numbers that describe one trace, printed with every report (and the proof when clean). */
struct doc_summary {
    char *path;
    const char *format;
    const struct lat_trace_format *fmt; /* the format's row (model/format.h) */
    int32_t rank;
    size_t nsteps;   /* ProfilerSteps kept (0: the whole trace is one window) */
    bool steps_real; /* false: no ProfilerStep, the trace window stands in for one step */
    lat_ns step_mean, step_median, step_p90, step_max;
    lat_ns gpu_busy;         /* per step: union of kernels, copies, memsets */
    lat_ns kernel;           /* per step: union of kernels */
    lat_ns idle;             /* per step: step time with no GPU activity */
    lat_ns host_idle;        /* per step: idle while the host had not launched the next op */
    lat_ns dataloader;       /* per step, tb_plugin step breakdown */
    lat_ns memcpy_exposed;   /* per step: H2D/D2H copy time with no kernel running */
    lat_ns sync_bubble;      /* per step: GPU idle right after a host synchronisation */
    lat_ns comm_exposed;     /* per step: communication not hidden under compute */
    double kernels_per_step; /* kernels launched in steps / steps */
    double short_kernel_pct; /* HTA short kernels among launched kernels */
    uint64_t graph_launches; /* cudaGraphLaunch and friends */
    uint64_t gpu_events;     /* kernels + copies + memsets */
    uint64_t cpu_events;     /* cpu ops + runtime calls */
    int32_t num_sms;         /* of the first device with properties, -1 unknown */
    unsigned have;           /* what the trace holds (rules.h enum doc_have) */
    unsigned families_ran;   /* bit k: family k of doctor_families() ran */
    bool judged;             /* a rule that looks inside the steps (GPU, CPU, data) ran */
    bool service;            /* a bench result (doctor/service.h): `what` holds its numbers */
    char *what;              /* when !judged: what the input is and why no rule applies */
    int32_t compute_major;   /* -1 unknown */
    /* HTA-compatible numbers from `latscope analyze` (src/analyze), for cross-checking;
     * valid only after doctor_add_analysis(). */
    struct doc_hta {
        bool valid, temporal_valid, has_comm;
        double idle_pct, compute_pct, non_compute_pct; /* of HTA kernel_time */
        lat_ns kernel_time;
        lat_ns host_wait, kernel_wait, other_idle; /* Σ over streams */
        double comm_comp_overlap_pct;
        uint64_t launches, short_kernels;
        lat_ns median_launch_delay;
    } hta;
};

/* Thresholds: one list generates the struct, the defaults, the JSON "thresholds" object and the
 * `--threshold KEY=VALUE` option (sources of the defaults in docs/latscope-doctor.md).
 * X(field, kind, default, min, max, help). kind NUM: a double; US: a duration, given and printed
 * in µs (key field_us), held in ns; INT: an integer (key field). */
#define DOC_THRESHOLDS(X)                                                                          \
    X(host_idle_pct, NUM, 10.0, 0, 100, "R1: host-late GPU idle, % of step")                       \
    X(launch_bound_share, NUM, 0.5, 0, 1, "R1/R2: share that makes host-late idle launch-bound")   \
    X(short_kernel_cutoff, US, 50, 0, 1e9, "R2: HTA runtime_cutoff for short kernels")             \
    X(memcpy_pct, NUM, 5.0, 0, 100, "R3: exposed H2D+D2H copies, % of step")                       \
    X(small_copy_bytes, INT, 65536, 0, 1e15, "R3: a copy this small is \"small\" (bytes)")         \
    X(dtoh_sync_window, US, 50, 0, 1e9, "R3: a sync this soon after a DtoH copy follows it")       \
    X(sync_pct, NUM, 2.0, 0, 100, "R4: GPU idle after syncs, % of step")                           \
    X(dominant_kernel_pct, NUM, 20.0, 0, 100, "R5: one kernel's share of kernel time")             \
    X(fp32_eligible_pct, NUM, 10.0, 0, 100, "R5b: TC-eligible FP32 kernel time, % of kernels")     \
    X(fp32_speedup, NUM, 2.0, 1, 1000, "R5b: assumed speed-up of tensor cores over FP32")          \
    X(comm_pct, NUM, 10.0, 0, 100, "R6: exposed communication, % of step")                         \
    X(dataloader_pct, NUM, 5.0, 0, 100, "R7: DataLoader, % of step")                               \
    X(underfilled_pct, NUM, 50.0, 0, 100, "R8: kernel time in kernels with blocks < SMs")          \
    X(gpu_util_low_pct, NUM, 50.0, 0, 100, "R8: low GPU utilization (tb_plugin), %")               \
    X(alloc_pct, NUM, 1.0, 0, 100, "R9: device allocator calls, % of step")                        \
    X(mem_pressure, NUM, 0.9, 0, 100, "R9: peak reserved / device memory")                         \
    X(tail_pct, NUM, 10.0, 0, 1e6, "R10: p90 step above the median by this %")                     \
    X(straggler_sigmas, NUM, 3.0, 0, 1e6, "ranks: robust sigmas (1.4826 x MAD) above the median")  \
    X(straggler_pct, NUM, 5.0, 0, 1e6, "ranks: and this % above the median rank's mean")           \
    X(tail_min_steps, INT, 4, 2, 1e9, "R10: steps needed to judge the tail")                       \
    X(overhead_pct, NUM, 1.0, 0, 100, "R11: profiler overhead events, % of step")                  \
    X(cpu_python_pct, NUM, 10.0, 0, 100, "CPU: step time outside any op, % of step")               \
    X(cpu_preproc_pct, NUM, 10.0, 0, 100, "CPU: pre/post-processing regions, % of step")           \
    X(cpu_contention_ratio, NUM, 5.0, 1, 1e6, "CPU: same op this many times slower per call")      \
    X(cpu_contention_pct, NUM, 5.0, 0, 100, "CPU: extra time of slowed ops, % of mean step")       \
    X(cpu_small_op, US, 20, 0, 1e9, "CPU: an outermost op shorter than this is small")             \
    X(cpu_small_ops_pct, NUM, 20.0, 0, 100, "CPU: time in small ops, % of step")                   \
    X(cpu_small_ops_min, INT, 50, 1, 1e9, "CPU: small ops per step needed")                        \
    X(cpu_alloc_pct, NUM, 2.0, 0, 100, "CPU: allocating ops' self time, % of step")                \
    X(cpu_min_gbps, NUM, 1.0, 0, 1e6, "CPU: an op moving >= 256 KiB per call below this GB/s")     \
    X(cpu_sample_pct, NUM, 20.0, 0, 100, "CPU samples: a function/library's share of samples")     \
    X(ort_fallback_pct, NUM, 5.0, 0, 100, "ORT: nodes on CPU under another provider, % of run")    \
    X(perf_peak_pct, NUM, 40.0, 0, 100, "perf: GEMM/conv/attention below this % of bound's peak")  \
    X(min_saving_pct, NUM, 1.0, 0, 100, "findings saving less are demoted to info")                \
    X(ncu_speedup_pct, NUM, 20.0, 0, 100, "ncu: a rule's estimated speedup of a kernel, %")        \
    X(ncu_occupancy_pct, NUM, 25.0, 0, 100, "ncu: achieved occupancy below this is low, %")        \
    X(trt_enqueue_ratio, NUM, 0.8, 0, 1000, "TRT: enqueue median above this x GPU compute median") \
    X(trt_cov_pct, NUM, 2.5, 0, 1000, "TRT: GPU compute coefficient of variation, %")              \
    X(trt_reformat_pct, NUM, 5.0, 0, 100, "TRT: reformat layers, % of the layer time")             \
    X(trt_fp32_pct, NUM, 10.0, 0, 100, "TRT: FP32 layers in an FP16/INT8 engine, % of layer time") \
    X(trt_dominant_pct, NUM, 15.0, 0, 100, "TRT: one layer's share of the layer time")             \
    X(trt_inflation_pct, NUM, 10.0, 0, 1e6, "TRT: layer sum above GPU compute median by this %")

#define DOC_TH_CTYPE_NUM double
#define DOC_TH_CTYPE_US  lat_ns
#define DOC_TH_CTYPE_INT int64_t

struct doc_thresholds {
#define DOC_TH_FIELD(f, k, d, lo, hi, h) DOC_TH_CTYPE_##k f;
    DOC_THRESHOLDS(DOC_TH_FIELD)
#undef DOC_TH_FIELD
};

enum doc_th_kind { DOC_TH_NUM, DOC_TH_US, DOC_TH_INT };

/* One threshold as the option and the JSON see it (values in display units: µs for US). */
struct doc_threshold_desc {
    const char *key; /* "host_idle_pct", "short_kernel_cutoff_us", ... */
    enum doc_th_kind kind;
    size_t offset; /* in struct doc_thresholds */
    double def, min, max;
    const char *help;
};

/* The list, in DOC_THRESHOLDS order. */
const struct doc_threshold_desc *doctor_thresholds(size_t *n);
/* A threshold's value in display units. */
double doctor_threshold_value(const struct doc_thresholds *th, const struct doc_threshold_desc *d);
/* Sets one threshold from "KEY=VALUE". 0; LAT_E_USAGE with a reason in err (unknown key, bad
 * or out-of-range value). */
int doctor_threshold_set(struct doc_thresholds *th, const char *kv, char *err, size_t errlen);

struct lat_ncu_summary;
/* An Nsight Compute report given with the traces (analyze/ncu.h), for the kernel rules. */
struct doc_ncu_report {
    const struct lat_ncu_summary *s;
    const char *path;
};

struct doc_opts {
    struct doc_thresholds th;
    size_t max_examples; /* worst examples per finding (5) */
    /* ncu reports given with the traces: the dominant-kernels finding of a timeline takes its
     * kernel's ncu numbers from them (matched by name: lat_ncu_find); NULL/0 when none */
    const struct doc_ncu_report *ncu;
    size_t nncu;
    /* timeline traces of the job (the caller counts its inputs): with 3 or more the straggler
     * rule records each rank's steps and doctor_cross_rank() judges them (0: unknown) */
    size_t job_ranks;
};

/* An input the command skipped (a directory's bad file...): the JSON lists it in "skipped". */
struct doc_skipped {
    const char *path, *status, *reason; /* status: ingest_status_name() */
};

struct doc_report {
    struct doc_finding *f;
    size_t n, cap;
    struct doc_summary *traces;
    size_t ntraces, traces_cap;
    int err;                           /* sticky -ENOMEM while building */
    const struct doc_skipped *skipped; /* set by the caller, which owns it */
    size_t nskipped;
    /* per rank: its steps, recorded by the straggler rule (rule-straggler.c) for
     * doctor_cross_rank(); a few numbers per step, never the trace */
    struct doc_rank_steps *ranks;
    size_t nranks, ranks_cap;
};

/* One rank's steps (rule-straggler.c): step number, wall time and communication kernel time
 * (waiting for peers plus transfer) of each step. */
struct doc_rank_steps {
    int trace; /* index into report->traces */
    int32_t rank;
    size_t n;
    int32_t *num;
    lat_ns *dur, *comm;
    char *trace_arg; /* the trace's path quoted for a shell */
};

void doctor_opts_default(struct doc_opts *o);

/* Allocates an empty report. 0 or -ENOMEM. */
int doctor_report_new(struct doc_report **out);
void doctor_report_free(struct doc_report *r);

/* Runs every rule on trace t and appends its findings and summary to r (t is not modified).
 * Returns 0, -ENOMEM, or LAT_E_USAGE for a NULL argument. Call doctor_rank() afterwards. */
int doctor_run(struct doc_report *r, const struct lat_trace *t, const struct doc_opts *o);

struct lat_an_rank;
/* Copies the HTA-compatible numbers of analysis rank `a` (analyze/analysis.h) into the summary
 * of trace `trace` (0-based, in doctor_run() order). 0 or LAT_E_USAGE for a bad index. */
int doctor_add_analysis(struct doc_report *r, size_t trace, const struct lat_an_rank *a);

/* Caps the saving bound of trace `trace`'s findings by the mean time per window their kind of
 * work holds on analysis rank `a`'s critical path (run with analysis_opts.critical_path); a
 * capped finding's saving_method says so. Call before doctor_rank(). 0, -ENOMEM, LAT_E_USAGE. */
int doctor_cap_by_critical_path(struct doc_report *r, size_t trace, const struct lat_an_rank *a);
/* The bound types (1 << enum lat_cp_bound) finding `id`'s saving is capped by, 0 for none. */
unsigned doctor_critpath_bounds(const char *id);

/* Which rule families ran on a trace and why the others did not apply. */
struct doc_family_use {
    const char *name;  /* "gpu", "cpu", "data", "steps", "profiler" */
    const char *label; /* "GPU", "CPU inference", ... */
    bool ran;
    const char *why; /* when !ran: what the trace lacks (static string) */
};
/* Fills out[0..max) for summary s; returns the number of families. */
size_t doctor_families(const struct doc_summary *s, struct doc_family_use *out, size_t max);
/* The family ("gpu", "cpu", ...) of the rule that makes finding `id`; NULL when none does. */
const char *doctor_finding_family(const char *id);
/* True when some trace of r got no rule that looks inside its steps (see doc_summary.judged). */
bool doctor_any_unjudged(const struct doc_report *r);

/* The cross-rank rule (rule-straggler.c): after doctor_run() of every rank of a job, adds a
 * straggler-rank finding for each rank whose step time, or time outside communication (the
 * others wait for it in the collectives), is an outlier among the ranks, and a comm-wait-rank
 * finding for a rank whose communication wait is; with the step where it is worst. Needs 3+
 * ranks with steps (no spread to judge otherwise). Call before doctor_rank(). 0 or -ENOMEM. */
int doctor_cross_rank(struct doc_report *r, const struct doc_opts *o);
/* Sorts findings by estimated saving (% of step, then µs), info findings last. */
void doctor_rank(struct doc_report *r);

/* Highest severity among the findings, or -1 when there is none. */
int doctor_max_severity(const struct doc_report *r);

const char *doctor_severity_name(enum doc_severity s);
/* Parses info|low|medium|high|never. 0 or LAT_E_USAGE. */
int doctor_severity_parse(const char *s, enum doc_severity *out);

/* Renderers: append to out. 0 or -ENOMEM. */
int doctor_format_text(const struct doc_report *r, struct lat_buf *out, bool color);
int doctor_format_md(const struct doc_report *r, struct lat_buf *out);
/* Writes the JSON document (shape in docs/latscope-doctor.md) through w. */
void doctor_write_json(const struct doc_report *r, const struct doc_opts *o, struct jsonw *w);

#endif
