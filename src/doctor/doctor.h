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

struct doc_finding {
    const char *id; /* static: "dataloader", "launch-bound", ... */
    char *title;
    enum doc_severity severity;
    double saving_us_per_step; /* upper bound; 0 when not estimated */
    double saving_pct;         /* of the mean step time */
    char *saving_method;       /* how the saving was computed */
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

/* Thresholds (defaults: doctor_thresholds_default(); sources in docs/latscope-doctor.md). */
struct doc_thresholds {
    double host_idle_pct;       /* R1: host-late GPU idle, % of step (10) */
    double launch_bound_share;  /* R1/R2: short-kernel share that makes it launch-bound (0.5) */
    lat_ns short_kernel_cutoff; /* R2: HTA runtime_cutoff (50 µs) */
    double memcpy_pct;          /* R3: exposed H2D+D2H, % of step (5) */
    lat_ns small_copy_bytes;    /* R3: "small copy" (64 KB, nsys cuda_memcpy_sync) */
    lat_ns dtoh_sync_window; /* R3: a sync this soon after a DtoH copy is "followed by" (50 µs) */
    double sync_pct;         /* R4: GPU idle after syncs, % of step (2) */
    double dominant_kernel_pct; /* R5: one kernel's share of kernel time (20) */
    double fp32_eligible_pct;   /* R5b: TC-eligible FP32 kernel time, % of kernel time (10) */
    double fp32_speedup;        /* R5b: assumed speed-up of TC kernels over FP32 (2.0) */
    double comm_pct;            /* R6: exposed communication, % of step (10, tb_plugin) */
    double dataloader_pct;      /* R7: DataLoader, % of step (5, tb_plugin) */
    double underfilled_pct;     /* R8: kernel time in kernels with blocks < SMs (50) */
    double gpu_util_low_pct;    /* R8: tb_plugin low GPU utilization (50) */
    double alloc_pct;           /* R9: allocator calls, % of step (1) */
    double mem_pressure;        /* R9: peak reserved / device memory (0.9, tb_plugin) */
    double tail_pct;            /* R10: p90 step above the median by (10 %) */
    size_t tail_min_steps;      /* R10: steps needed (4) */
    double overhead_pct;        /* R11: overhead events, % of step, that fire it (1) */
    double min_saving_pct;      /* findings saving less are demoted to info (1) */
};

struct doc_opts {
    struct doc_thresholds th;
    size_t max_examples; /* worst examples per finding (5) */
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
