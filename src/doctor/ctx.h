/*
 * ctx.h - what the doctor derives once from a trace before its rules run (internal to
 * src/doctor): step windows, the GPU operations with their launches, CPU nesting, interval
 * sets, and per-window self-time attribution.
 */
#ifndef LAT_DOCTOR_CTX_H
#define LAT_DOCTOR_CTX_H

#include "core/ivl.h"
#include "core/u64map.h"
#include "doctor/doctor.h"

struct lat_trt_summary;

/* Classes of runtime/driver API names (bit mask). */
enum doc_api {
    DOC_API_LAUNCH = 1u << 0, /* kernel launches, async copies/memsets: CPU cost of launching */
    DOC_API_GRAPH = 1u << 1,  /* cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch */
    DOC_API_SYNC = 1u << 2,   /* blocks the host until the device catches up */
    DOC_API_ALLOC = 1u << 3,  /* cudaMalloc/cudaFree/cudaHostAlloc/... */
    DOC_API_MEMCPY = 1u << 4, /* synchronous cudaMemcpy (blocks like a sync) */
    DOC_API_CLASSIFIED = 1u << 7,
};

/* A step window. ts/end follow tb_plugin: start at max(previous end, host start), end at
 * max(host end, end of the GPU work launched inside the host step). */
struct doc_step {
    int32_t num;
    lat_ns ts, end;
    lat_ns host_ts, host_end;
    int64_t ev; /* the ProfilerStep event, -1 for the synthetic whole-trace window */
    uint32_t track;
    uint32_t ndev; /* GPU ops launched inside the host step */
};

/* A GPU operation (kernel, memcpy, memset, other device work). */
struct doc_gop {
    size_t ev;
    lat_ns ts, end;
    int64_t launch; /* the runtime/driver event with the same correlation, -1 if none */
    int32_t step;   /* index into ctx->steps, -1 outside */
    uint16_t kind;
    bool comm;  /* communication kernel (nccl/rccl/hccl) */
    bool graph; /* launched by a graph launch or carrying a graph id */
};

/* Accumulator of self time keyed by (name id, enclosing op id): rows[0..n) in insertion order,
 * found by key through ix (core/u64map.h). A zeroed struct is empty. */
struct doc_acc_row {
    uint64_t key;
    lat_ns val;
    uint32_t cnt;
};
struct doc_acc {
    struct lat_u64map ix; /* key -> row index */
    struct doc_acc_row *rows;
    size_t n, cap;
};

#define DOC_NAME_STEP UINT32_MAX       /* a ProfilerStep's own self time */
#define DOC_NAME_NONE (UINT32_MAX - 1) /* no profiled CPU event on the thread */

struct doc_idle;
struct doc_launch;
struct doc_cpuops;

struct doc_ctx {
    const struct lat_trace *t;
    const struct doc_opts *o;
    struct doc_report *r;
    int trace;
    lat_ns t0, t1; /* first start, last end of the trace's duration events */

    struct doc_step *steps;
    size_t nsteps;
    bool steps_real;
    lat_ns step_total, step_mean;

    struct doc_gop *g; /* sorted by ts */
    size_t ng;
    uint64_t graph_launches;

    int64_t *parent;            /* per event: enclosing CPU event on its track, -1 */
    uint8_t *api;               /* per string id: enum doc_api, lazily classified */
    uint32_t *trk_off, *trk_ev; /* CSR per track: CPU duration events sorted by (ts, -dur) */

    struct lat_ivl_set busy;       /* all GPU ops */
    struct lat_ivl_set kernels;    /* kernels and other device compute, not communication */
    struct lat_ivl_set comm;       /* communication kernels */
    struct lat_ivl_set copies;     /* memcpy */
    struct lat_ivl_set memsets;    /* memset */
    struct lat_ivl_set runtime;    /* runtime + driver calls */
    struct lat_ivl_set dataloader; /* DataLoader ops */
    struct lat_ivl_set steps_set;  /* union of the step windows */

    /* filled by doctor_run() for the rules (rules.h) */
    unsigned have;               /* enum doc_have: what the trace holds */
    struct doc_summary *sum;     /* this trace's summary */
    struct doc_idle *idle;       /* GPU idle decomposition (traces with GPU activity) */
    struct doc_launch *launch;   /* kernel launch statistics (likewise) */
    struct doc_cpuops *cpu;      /* per-step CPU operator statistics (traces with CPU ops) */
    char *trace_arg;             /* the trace path quoted for a shell (doc_trace_arg) */
    struct lat_trt_summary *trt; /* TensorRT traces: analyze's summary (doctor/trt.c) */
    char *trt_engine_flag;       /* doc_trt_engine_flag() */
    bool trt_done;
};

int doc_ctx_init(struct doc_ctx *c, const struct lat_trace *t, const struct doc_opts *o,
                 struct doc_report *r, int trace);
void doc_ctx_fini(struct doc_ctx *c);

const char *doc_name(const struct doc_ctx *c, size_t ev);
/* How step s is named in examples: its event's name (ProfilerStep#N; a TensorFlow step
 * marker's "inference 3"), else "ProfilerStep#N". buf holds n bytes. */
const char *doc_step_label(const struct doc_ctx *c, size_t s, char *buf, size_t n);
unsigned doc_api_class(struct doc_ctx *c, uint32_t name);
/* Step index whose window holds ts, -1 when none. */
int32_t doc_step_at(const struct doc_ctx *c, lat_ns ts);
/* Nearest enclosing cpu_op (kind LAT_EV_CPU_OP, not a ProfilerStep) of event ev, -1 when none. */
int64_t doc_enclosing_op(const struct doc_ctx *c, size_t ev);
/* Outermost op below the ProfilerStep that encloses ev, -1 when none. */
int64_t doc_top_op(const struct doc_ctx *c, size_t ev);
/* Fills an example from event ev (name, ts, offset, dur, step, stream/tid). */
void doc_example_from(const struct doc_ctx *c, size_t ev, struct doc_example *e);
/* tb_plugin's DataLoader op names: enumerate(DataLoader)#*.__next__, enumerate(DataPipe)#*. */
bool doc_is_dataloader(const char *name);
/* True when the event is a ProfilerStep. */
bool doc_is_step_event(const struct doc_ctx *c, size_t ev);

/* Adds the self time of track tr's CPU events within [a, b) to acc, keyed by
 * (name, enclosing op for runtime calls); time with no event is keyed DOC_NAME_NONE. */
int doc_attr_window(const struct doc_ctx *c, uint32_t tr, lat_ns a, lat_ns b, struct doc_acc *acc);
int doc_acc_add(struct doc_acc *a, uint64_t key, lat_ns v, uint32_t cnt);
lat_ns doc_acc_get(const struct doc_acc *a, uint64_t key);
uint32_t doc_acc_count(const struct doc_acc *a, uint64_t key);
void doc_acc_reset(struct doc_acc *a);
void doc_acc_fini(struct doc_acc *a);
/* Name of an accumulator key's name part. */
const char *doc_key_name(const struct doc_ctx *c, uint32_t id);

/* The framework that wrote the trace, for advice that names its APIs: its format row's (a
 * format of no framework, LAT_FW_NONE, gets advice that names none). In ctx.c, below the rule
 * table (rules.c) whose rules call it. */
enum lat_framework doc_framework(const struct doc_ctx *c);

/* CPU samples (doctor/cpu.c). True when t has LAT_EV_CPU_SAMPLE events. */
bool doc_cpu_has_samples(const struct lat_trace *t);
/* Adds evidence of what thread tid ran during the merged windows win (CPU samples of the
 * trace) to f, and writes a sentence for the finding's text ("during 78 % of GPU idle time the
 * launching thread (tid N) was in F") into text. Returns 1 when evidence was added, 0 when the
 * trace has no CPU event of that thread in the windows (text is ""), -ENOMEM. */
int doc_cpu_evidence(struct doc_ctx *c, struct doc_finding *f, int64_t tid,
                     const struct lat_ivl_set *win, char *text, size_t text_len);

#endif
