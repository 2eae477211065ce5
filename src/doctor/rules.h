/*
 * rules.h - the doctor's rule table and what its rules share (internal to src/doctor).
 *
 * A rule is one file (src/doctor/rule-*.c) with one function of signature doc_rule_fn and one
 * row in the DOC_RULES list of rules.c: (function, name, ids, family, needs, excludes).
 * doctor_run() computes once what the trace holds (DOC_HAVE_* bits), runs every rule whose `needs`
 * are all present and none of whose `excludes` is, in table order, and records which families ran
 * and which did not apply (and why) in the trace summary. Rules read the preprocessed context
 * (ctx.h); the GPU idle decomposition and launch statistics (idle.c) and the per-step CPU operator
 * statistics (cpuops.c) are computed before the first rule that needs them.
 *
 * Adding a rule: write src/doctor/rule-NAME.c with `DOC_RULE(NAME) { ... }` and add its row to
 * DOC_RULES in rules.c (one line: it declares the function and makes the table entry); document
 * it (and any new threshold, one line of DOC_THRESHOLDS in doctor.h) in docs/latscope-doctor.md.
 */
#ifndef LAT_DOCTOR_RULES_H
#define LAT_DOCTOR_RULES_H

#include "doctor/ctx.h"
#include "doctor/finding.h"

#include <stddef.h>

#define PCT(x, of) ((of) > 0 ? 100.0 * (double)(x) / (double)(of) : 0.0)

/* What a trace holds (bits of doc_ctx.have). */
enum doc_have {
    DOC_HAVE_GPU = 1u << 0,          /* kernels, copies, memsets or other device work */
    DOC_HAVE_CPU_OPS = 1u << 1,      /* framework operators (cpu_op) inside the steps */
    DOC_HAVE_STEPS = 1u << 2,        /* at least tail_min_steps ProfilerSteps */
    DOC_HAVE_DATALOADER = 1u << 3,   /* DataLoader __next__ ops */
    DOC_HAVE_WINDOW = 1u << 4,       /* a step or trace window of positive length */
    DOC_HAVE_TRT = 1u << 5,          /* a TensorRT input with layer times, queries or a summary */
    DOC_HAVE_NCU = 1u << 6,          /* an Nsight Compute report (a kernel profile, no timeline) */
    DOC_HAVE_TF = 1u << 7,           /* a TensorFlow profile (xplane / TF trace_viewer JSON) */
    DOC_HAVE_RANKS = 1u << 10,       /* a rank (with ProfilerSteps) of a job of 3+ rank traces */
    DOC_HAVE_CPU_SAMPLES = 1u << 11, /* >= DOC_MIN_CPU_SAMPLES CPU stack samples (trace --cpu,
                                      * py-spy, perf script): fewer give no share to judge */
};

typedef void (*doc_rule_fn)(struct doc_ctx *c);

struct doc_rule {
    const char *name;   /* the rule's file: rule-<name>.c */
    const char *ids;    /* finding ids it may add, space-separated */
    const char *family; /* "gpu", "cpu", "data", "steps", "profiler" */
    unsigned needs;     /* DOC_HAVE_* bits that must all be present */
    unsigned excludes;  /* DOC_HAVE_* bits that must be absent */
    doc_rule_fn run;
};

/* The table (rules.c), in the order the rules run. */
extern const struct doc_rule doc_rules[];
extern const size_t doc_nrules;

/* A rule's definition: `DOC_RULE(name) { ... }` in rule-<name>.c declares and defines
 * void doc_rule_<name>(struct doc_ctx *c); rules.c declares it again from its table row. */
#define DOC_RULE(name)                                                                             \
    void doc_rule_##name(struct doc_ctx *c);                                                       \
    void doc_rule_##name(struct doc_ctx *c)

/* ---- shared derived data ---------------------------------------------------------------- */

/* Keeps the n worst examples (largest value). */
struct doc_top {
    struct doc_example ex[8];
    char names[8][160];
    char notes[8][160];
    size_t n, max;
};

/* Sorted view of an accumulator: entries by value, descending. */
struct doc_kvpair {
    uint64_t key;
    lat_ns val;
    uint32_t cnt;
};

struct doc_idle {
    lat_ns host_late, head_tail, queued, sync_bubble, launch_self, attributed;
    struct doc_acc by_key;       /* CPU self time in host-late gaps */
    struct doc_acc sync_by_op;   /* bubble per causing op (key: sync name << 32 | op name) */
    struct doc_acc sync_blocked; /* blocked time per causing op */
    struct doc_acc late_tid;     /* host-late idle per launching thread (key: tid) */
    struct lat_ivl_set late;     /* the host-late idle windows (merged after decompose) */
    uint64_t nsync, nsync_dtoh;
    lat_ns blocked;
    struct doc_top gaps, syncs;
};

/* Kernel launch statistics inside steps (HTA short-kernel rule). */
struct doc_launch {
    uint64_t kernels, with_launch, short_kernels, graph_kernels, eager_kernels;
    lat_ns launch_cpu, short_launch_cpu;
};

int doc_idle_decompose(struct doc_ctx *c, struct doc_idle *d);
void doc_idle_fini(struct doc_idle *d);
void doc_launch_stats(struct doc_ctx *c, struct doc_launch *l);
/* The thread that launched most of the host-late idle time (-1 when none). */
int64_t doc_late_thread(const struct doc_idle *d);

#define DOC_MIN_CPU_SAMPLES 20

/* Per-step CPU operator statistics (cpuops.c), for the CPU rules. Keys are name ids. */
struct doc_cpu_step {
    struct doc_acc self; /* self time per (name << 32) of every CPU event on the step thread */
    struct doc_acc top;  /* outermost ops under the step: total time and calls per name */
    lat_ns python;       /* step time outside any op or region (Python/framework code) */
    lat_ns regions_self; /* self time of record_function regions (Python inside them) */
    lat_ns compiled;     /* self time of compiled-graph regions (## Call CompiledFxGraph ##:
                          * Inductor's generated kernels), not in `python` */
    lat_ns prepost;      /* total time of pre/post-processing regions */
    lat_ns prepost_self; /* self time of those regions (already not in `python`) */
    lat_ns dataloader;   /* total time of DataLoader ops */
    lat_ns ops;          /* time inside outermost ops */
    uint64_t nops;       /* outermost ops */
    uint64_t nsmall;     /* outermost ops shorter than cpu_small_op_us */
    lat_ns small;        /* their total time */
    bool sampled;        /* decomposed (every step up to 1000 steps, then every stride-th) */
};

struct doc_cpuops {
    struct doc_cpu_step *s; /* per step (c->steps order) */
    size_t n, nsampled;
    struct doc_acc prepost_by; /* pre/post-processing regions: total time per name */
    struct doc_acc regions_by; /* other regions: self time per name */
    bool compiled;             /* a torch.compile / CompiledFxGraph region is present */
    /* contention (filled by rule-cpu-contention.c, read by rule-tail.c) */
    lat_ns contention_excess; /* Σ over steps of the slowed ops' extra self time */
    bool *contended;          /* per step: the same ops ran much slower per call */
    int32_t contention_step;  /* worst step (its number), -1 none */
};

/* Computes c->cpu (once). 0 or -ENOMEM. */
int doc_cpuops_build(struct doc_ctx *c);
void doc_cpuops_fini(struct doc_cpuops *p);
/* Mean over the sampled steps of a per-step field (ns). */
#define DOC_CPU_MEAN(p, field) doc_cpu_mean(p, offsetof(struct doc_cpu_step, field))
lat_ns doc_cpu_mean(const struct doc_cpuops *p, size_t off);
/* True for record_function names that are pre/post-processing (preprocess, tokenize, ...). */
bool doc_is_prepost_name(const char *s);
/* True for the regions and ops torch.compile leaves in a trace (Torch-Compiled Region,
 * ## Call CompiledFxGraph ##, CompiledFunction, TorchDynamo ...). */
bool doc_is_compiled_name(const char *s);

/* ---- helpers (util.c) ------------------------------------------------------------------- */
void doc_top_init(struct doc_top *t, size_t max);
void doc_top_add(struct doc_top *t, const struct doc_example *e);
void doc_top_emit(struct doc_ctx *c, struct doc_finding *f, struct doc_top *t);
const char *doc_fmt_ns(lat_ns ns, char *buf, size_t len);
/* What a "step" is called in titles: "step" or "trace window". */
const char *doc_per_step(const struct doc_ctx *c);
int doc_cmp_kvpair(const void *x, const void *y);
struct doc_kvpair *doc_acc_sorted(const struct doc_acc *a, size_t *n);
/* "name" or "name (under op)" of an attribution key. */
void doc_key_label(const struct doc_ctx *c, uint64_t key, char *buf, size_t len);
const char *doc_op_name_or(const struct doc_ctx *c, int64_t op, const char *dflt);
bool doc_meta_true(const struct lat_trace *t, const char *key);
unsigned doc_api_of_ev(struct doc_ctx *c, size_t ev);
/* CPU-sample evidence (cpu.c) for finding f over windows win of thread tid; the sentence it
 * yields is appended to the title. */
void doc_add_cpu_evidence(struct doc_ctx *c, struct doc_finding *f, int64_t tid,
                          const struct lat_ivl_set *win);
/* The next step of a host-side finding: record CPU samples (with --cuda only when the trace has
 * GPU activity), unless the trace already has them; then read them with analyze. */
void doc_cpu_next_step(struct doc_ctx *c, struct doc_finding *f, const char *with_samples,
                       const char *without);
/* The trace's path quoted for a POSIX shell, for next-step commands ("<trace>" when none). */
const char *doc_trace_arg(struct doc_ctx *c);

/* ---- Nsight Compute evidence (rule-ncu.c) ---- */
struct lat_ncu_launch;
/* An ncu launch's numbers as evidence values, keys prefixed (bound, occupancy, the top rule). */
void doc_ncu_evidence(struct doc_ctx *c, struct doc_finding *f, const struct lat_ncu_launch *l,
                      const char *prefix);
/* The ncu command that profiles that kernel again with the section of its top rule. */
void doc_ncu_command(struct doc_ctx *c, const struct lat_ncu_launch *l, char *out, size_t n);

#endif
