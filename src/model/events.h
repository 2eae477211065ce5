/*
 * events.h - THE trace model. Every reader (Kineto/Chrome JSON, later ORT, TensorRT, nsys,
 * latscope's own capture) fills a struct lat_trace; every consumer (analyze, doctor, report,
 * diff, the Kineto writer) reads only this.
 *
 * Layout: columnar (struct of arrays) so analyses scan only the columns they need; all strings
 * are interned ids into one struct lat_strtab; times are int64 ns from the trace's time base
 * (Kineto: its µs `ts` scaled exactly to ns; base_time_ns gives the epoch of ts = 0 when known).
 * Never double for times.
 *
 * Ownership: lat_trace_new() allocates; lat_trace_free() releases everything, including every
 * string returned by lat_trace_str(). Not thread-safe; one writer, then any number of readers.
 */
#ifndef LAT_MODEL_EVENTS_H
#define LAT_MODEL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/strtab.h"
#include "model/format.h"

/* Normalized event kinds. Readers map every category spelling (2021 `Kernel`, current `kernel`,
 * ROCm, MTIA, ...) to one of these at load; the original category string stays in `cat`. */
enum lat_ev_kind {
    LAT_EV_OTHER = 0,
    LAT_EV_CPU_OP,          /* cpu_op, Operator */
    LAT_EV_USER_ANNOTATION, /* user_annotation; NVTX ranges on the CPU */
    LAT_EV_GPU_ANNOTATION,  /* gpu_user_annotation; NVTX ranges projected on a stream */
    LAT_EV_PYTHON,          /* python_function */
    LAT_EV_RUNTIME,         /* cuda_runtime, Runtime, hip/xpu/mtia/privateuse1 runtime */
    LAT_EV_DRIVER,          /* cuda_driver, xpu_driver, privateuse1_driver */
    LAT_EV_KERNEL,          /* kernel, Kernel */
    LAT_EV_MEMCPY,          /* gpu_memcpy, Memcpy */
    LAT_EV_MEMSET,          /* gpu_memset, Memset */
    LAT_EV_SYNC,            /* cuda_sync, xpu_sync (device-side sync records) */
    LAT_EV_DEVICE_OTHER,    /* other device activity: mtia_ccp_events, collective_comm, ... */
    LAT_EV_OVERHEAD,        /* overhead (profiler buffer requests, ...) */
    LAT_EV_INSTANT,         /* ph i/I/R, including [memory] events */
    LAT_EV_COUNTER,         /* ph C */
    LAT_EV_CPU_SAMPLE,      /* a CPU stack sample (latscope trace --cpu) */
    LAT_EV_SPAN,            /* cat Trace: the profiler's own span */
    LAT_EV_KIND_COUNT
};

enum lat_ev_flags {
    LAT_EVF_GPU = 1u << 0,         /* runs on a device (pid = device, tid = stream) */
    LAT_EVF_INSTANT = 1u << 1,     /* dur is 0 by definition */
    LAT_EVF_STEP = 1u << 2,        /* a CPU ProfilerStep#N (iteration in `step`) */
    LAT_EVF_NO_DUR = 1u << 3,      /* the input had no `dur` for this event */
    LAT_EVF_FRAC_TS = 1u << 4,     /* ts or dur had a fractional µs part in the input */
    LAT_EVF_BEGIN_END = 1u << 5,   /* built from a B/E pair */
    LAT_EVF_READER_TMP = 1u << 15, /* readers only (a tombstone); never set after a load */
};

/* One event as a record, for adding events and for reading one back. */
struct lat_event {
    lat_ns ts, dur;
    uint32_t name, cat;  /* string ids */
    uint32_t track;      /* index into trace->tracks */
    uint16_t kind;       /* enum lat_ev_kind */
    uint16_t flags;      /* enum lat_ev_flags */
    int64_t stream;      /* args.stream (GPU) or -1 */
    int32_t device;      /* args.device or GPU pid, -1 when absent */
    int32_t step;        /* N of ProfilerStep#N for LAT_EVF_STEP events, else -1 */
    int64_t correlation; /* args.correlation, -1 when absent */
    int64_t external_id; /* args."External id" / "external id", -1 when absent */
    uint32_t args;       /* index of the first arg in trace->args */
    uint32_t nargs;      /* number of args */
    char ph;             /* original phase: 'X', 'B', 'i', 'C', ... */
};

/* An event linked to nothing: no stream, device, step, correlation or external id (-1 each, what
 * the fields above mean by "absent"), every other field 0. Every reader starts an event from it
 * and sets what its record knows, so "absent" is spelled once. */
static inline struct lat_event lat_event_unlinked(void)
{
    return (struct lat_event){
        .stream = -1, .device = -1, .step = -1, .correlation = -1, .external_id = -1};
}

/* Columns of the events (struct of arrays); n events, capacity cap. */
struct lat_event_cols {
    size_t n, cap;
    lat_ns *ts, *dur;
    uint32_t *name, *cat, *track;
    uint16_t *kind, *flags;
    int64_t *stream;
    int32_t *device, *step;
    int64_t *correlation, *external_id;
    uint32_t *args, *nargs;
    char *ph;
};

enum lat_arg_type {
    LAT_ARG_NULL = 0,
    LAT_ARG_BOOL,   /* i = 0 or 1 */
    LAT_ARG_INT,    /* i: an integer that fits int64 */
    LAT_ARG_UINT,   /* u: an integer above INT64_MAX that fits uint64 */
    LAT_ARG_DOUBLE, /* d: a number with a fraction or exponent (str holds its exact text) */
    LAT_ARG_STR,    /* str: the decoded string */
    LAT_ARG_RAW,    /* str: raw JSON text of an array/object, or of an integer beyond uint64 */
};

struct lat_arg {
    uint32_t key; /* string id */
    uint32_t type;
    uint32_t str; /* string id (STR, RAW, DOUBLE text); 0 otherwise */
    union {
        int64_t i;
        uint64_t u;
        double d;
    } v;
};

/* A process/thread pair (CPU) or device/stream pair (GPU). Kineto pids and tids may be strings
 * ("Spans", "stream 7"): then pid/tid hold the number found in it (or -1) and *_str the text. */
struct lat_track {
    int64_t pid, tid;
    uint32_t pid_str, tid_str;     /* string ids of the original text, 0 when numeric */
    uint32_t pid_label, tid_label; /* process_name / thread_name metadata, 0 when none */
    bool gpu;
};

/* Flow events (ph s/t/f): the links Kineto draws from a launch to its GPU work (ac2g). */
struct lat_flow {
    int64_t id;
    lat_ns ts;
    uint32_t cat, name, track;
    char ph;             /* 's', 't' or 'f' */
    bool bind_enclosing; /* bp == "e" */
};

/* deviceProperties (or 2021 computeProperties) entries; -1 / 0 when not given. */
struct lat_device {
    int32_t id;
    uint32_t name;
    int32_t compute_major, compute_minor;
    int32_t num_sms;
    int32_t max_threads_per_block, max_threads_per_sm;
    int32_t regs_per_block, regs_per_sm;
    int32_t warp_size;
    int64_t shared_mem_per_block, shared_mem_per_sm;
    int64_t total_global_mem;
};

/* One top-level metadata entry (every key other than traceEvents); value is raw JSON text.
 * Consumers that print or export metadata must go through lat_meta_is_secret(). */
struct lat_meta {
    uint32_t key, value;
};

/* Why a reader left an input event out of the model (trace->drops[reason]). Readers never drop
 * an event silently: every element of the input's event list is either in the model (event,
 * flow, track label) or counted here. Time bounds (LAT_TS_MIN/MAX, LAT_DUR_MAX) are enforced
 * at load, so every consumer may compute ts + dur and differences of any two ts/ends in int64
 * without overflow. */
enum lat_drop_reason {
    LAT_DROP_NOT_OBJECT = 0, /* the element is not a JSON object */
    LAT_DROP_NO_PHASE,       /* no "ph" string */
    LAT_DROP_PHASE,          /* a phase the model does not hold (b/e/n async, P, O, ...) */
    LAT_DROP_NO_TS,          /* no "ts" */
    LAT_DROP_BAD_TS,         /* "ts" is not a number (null, "300us", an object, ...) */
    LAT_DROP_TS_RANGE,       /* "ts" beyond LAT_TS_MIN..LAT_TS_MAX (e.g. ns written as µs) */
    LAT_DROP_BAD_DUR,        /* "dur" is not a number */
    LAT_DROP_NEG_DUR,        /* negative duration (dur < 0, or an E before its B) */
    LAT_DROP_DUR_RANGE,      /* duration beyond LAT_DUR_MAX */
    LAT_DROP_UNMATCHED_END,  /* an E with no open B on its track */
    LAT_DROP_FLOW_NO_ID,     /* a flow event (s/t/f) without a usable id */
    /* records of formats with named time fields (TensorRT --exportTimes queries, ...) */
    LAT_DROP_NO_TIME,  /* a time field is missing */
    LAT_DROP_BAD_TIME, /* a time field is not a number (a string, null, ...) */
    LAT_DROP_NEG_TIME, /* a time before the run's start (negative) */
    /* records of binary formats (XEvents of a TensorFlow .xplane.pb) */
    LAT_DROP_EMPTY, /* no name and no duration: nothing to time or name (an amplification) */
    LAT_DROP_REASON_COUNT
};

/* Time bounds held by every event and flow in the model (ns): ts in [LAT_TS_MIN, LAT_TS_MAX]
 * (-36 .. +146 years around the time base: µs epoch timestamps fit), 0 <= dur <= LAT_DUR_MAX
 * (36 years). Any ts + dur, and any difference of two such times, fits int64. */
#define LAT_TS_MIN  (-(INT64_C(1) << 60))
#define LAT_TS_MAX  (INT64_C(1) << 62)
#define LAT_DUR_MAX (INT64_C(1) << 60)

/* What a trace is to commands that take several: a timeline of one process/rank (every reader
 * but those below), or a kernel profile (Nsight Compute: kernels replayed one at a time, no
 * timeline), which is evidence about the kernels of the timelines given with it, never a rank
 * of the job: no rank rules, not in sums over ranks (docs/trace-input.md, "Several inputs"). */
enum lat_trace_role {
    LAT_TRACE_TIMELINE = 0,
    LAT_TRACE_KERNEL_PROFILE,
};

struct lat_trace {
    struct lat_strtab strs;
    struct lat_event_cols ev;
    struct lat_arg *args;
    size_t nargs, args_cap;
    struct lat_track *tracks;
    size_t ntracks, tracks_cap;
    struct lat_flow *flows;
    size_t nflows, flows_cap;
    struct lat_device *devices;
    size_t ndevices, devices_cap;
    struct lat_meta *meta;
    size_t nmeta, meta_cap;

    char *path;         /* where it was read from (owned), or NULL */
    const char *format; /* static: "kineto", "chrome", "kineto-2021", "latscope", ...: fmt->name */
    const struct lat_trace_format *fmt; /* what the format is and holds (model/format.h); both set
                                     by lat_trace_set_format() only */
    int32_t rank;                       /* distributedInfo.rank, -1 when absent */
    int32_t world_size;                 /* -1 when absent */
    lat_ns base_time_ns; /* epoch ns of ts == 0 (baseTimeNanoseconds), 0 when unknown */
    bool frac_ts;        /* some ts in the input had a fractional µs part (ns resolution) */
    uint64_t dropped;    /* events the reader skipped: the sum of drops[] */
    uint64_t drops[LAT_DROP_REASON_COUNT]; /* dropped events by reason */
    uint64_t drops_gpu;   /* of the dropped events: GPU ones (cat kernel, gpu_memcpy, ...) */
    uint64_t drops_step;  /* of the dropped events: CPU ProfilerStep#N ones */
    uint64_t drops_query; /* of the dropped events: TensorRT queries (one record each) */
    uint32_t cut_note;    /* interned: where the reader found the input cut short but kept what it
                             read ("the log ends inside its performance summary"), 0 when not */
    uint64_t bad_fields;  /* event fields ignored because their value had the wrong type
                             ("cat": {...}, "name": [], "pid": true, ...): the value is skipped
                             whole, the event kept without that field */

    /* event 0 is element 0 of the input's event list: HTA's row label 0, which its idle-time
     * join reaches for GPU rows without a launch (analyze --hta-compat) */
    bool first_elem_event;

    enum lat_trace_role role; /* LAT_TRACE_TIMELINE unless the reader says otherwise */
};

/* Counts one dropped event (trace->drops[reason] and trace->dropped). */
static inline void lat_trace_drop(struct lat_trace *t, enum lat_drop_reason r)
{
    t->drops[r]++;
    t->dropped++;
}
/* Short name of a reason ("bad_ts"), for JSON keys, and its description for people ("ts is
 * not a number"). */
const char *lat_drop_reason_name(enum lat_drop_reason r);
const char *lat_drop_reason_desc(enum lat_drop_reason r);
struct jsonw;
/* What the reader left out, for people (src/model/drops.c): one line such as "11 events dropped
 * (\"ts\" not a number: 1, ...), among them 7 GPU events: the results miss them; 10 fields with
 * a value of the wrong type ignored" (and the cut_note: "cut short: ..."), without the file name;
 * false (buf empty) when nothing was left out. Commands print it as a warning. */
bool lat_trace_drop_summary(const struct lat_trace *t, char *buf, size_t n);
/* The same as a JSON object: {"total", "gpu", "steps", "queries", "bad_fields", "by_reason":
 * {name: n}, "cut_short": the cut_note or null} (reasons named by lat_drop_reason_name, only
 * those that occurred). */
void lat_trace_drops_json(struct jsonw *w, const struct lat_trace *t);
/* The one "most records unusable" rule of every reader: when more than half of `total` input
 * records (`bad` of them dropped for their times) are unusable, writes "BAD of TOTAL WHAT have
 * no usable time (REASON: n, ...): FIX" into err (the time reasons of drops[] that occurred)
 * and returns LAT_E_BAD_EVENTS; else 0. */
int lat_drops_check(const uint64_t *drops, uint64_t bad, uint64_t total, const char *what,
                    const char *fix, char *err, size_t errsz);
/* Sets t->cut_note (a copy of `note`). 0 or -ENOMEM. */
int lat_trace_cut_note(struct lat_trace *t, const char *note);
/* Adds the counts of `drops` (indexed by enum lat_drop_reason) to t's drops and total. */
void lat_trace_add_drops(struct lat_trace *t, const uint64_t *drops);
/* Removes the events whose flags have any bit of `mask` (a reader's tombstones); the order of
 * the others is kept. Args of removed events stay in trace->args, unreferenced. */
void lat_trace_remove_flagged(struct lat_trace *t, uint16_t mask);

/* Allocates an empty trace in *out. Returns 0 or -ENOMEM. Free with lat_trace_free(). */
int lat_trace_new(struct lat_trace **out);
/* The trace's format row (model/format.h): sets fmt and format (= f->name). */
static inline void lat_trace_set_format(struct lat_trace *t, const struct lat_trace_format *f)
{
    t->fmt = f;
    t->format = f->name;
}
/* Whether t's format has all capability bits caps (LAT_FCAP_*); false for NULL. */
static inline bool lat_trace_has(const struct lat_trace *t, unsigned caps)
{
    return t && t->fmt && (t->fmt->caps & caps) == caps;
}
void lat_trace_free(struct lat_trace *t);

/* Interns a string; returns its id through *id. 0 or -ENOMEM. */
int lat_trace_intern(struct lat_trace *t, const char *s, size_t n, uint32_t *id);
static inline const char *lat_trace_str(const struct lat_trace *t, uint32_t id)
{
    return strtab_str(&t->strs, id);
}

/* Appends event e (its args must already be added with lat_trace_add_arg, see below).
 * Returns 0 or -ENOMEM; the index of the new event is t->ev.n - 1. */
int lat_trace_add_event(struct lat_trace *t, const struct lat_event *e);
/* Reads event i back into *e. */
void lat_trace_event(const struct lat_trace *t, size_t i, struct lat_event *e);

/* Appends one arg; *index receives its position. Args of one event must be contiguous: add
 * them, then set e.args to the first index and e.nargs to their count. */
int lat_trace_add_arg(struct lat_trace *t, const struct lat_arg *a, uint32_t *index);
/* Finds arg `key` of event i; NULL when absent. */
const struct lat_arg *lat_trace_arg(const struct lat_trace *t, size_t i, const char *key);
/* Integer value of arg `key` of event i (INT/UINT/BOOL, or a STR holding an integer);
 * returns false when absent or not an integer. */
bool lat_trace_arg_int(const struct lat_trace *t, size_t i, const char *key, int64_t *out);
/* How many samples the LAT_EV_CPU_SAMPLE event i stands for: its arg "weight" (an integer >= 1:
 * the stack-file readers keep a folded line's count or a speedscope weight so, never expanding
 * it), else 1. k_weight = strtab_find(&t->strs, "weight", 6), looked up once by the caller
 * (UINT32_MAX: no event has one). Every consumer of CPU samples counts through this. */
uint64_t lat_sample_weight(const struct lat_trace *t, size_t i, uint32_t k_weight);

/* CPU stack samples (LAT_EV_CPU_SAMPLE): the one layout every producer writes (`trace --cpu`,
 * the stack-file readers, nsys) and every consumer reads. An on-CPU sample is an instant (ph 'i')
 * named after its leaf frame, cat "cpu_sample", on its thread's track, with args "stack" (frames
 * root-first, ';'-separated) and "state" = "on"; an off-CPU interval is ph 'X' with its dur and
 * "state" = "off"; a record standing for COUNT > 1 samples has a third arg "weight" = COUNT
 * (lat_sample_weight()). The string ids a producer interns once (lat_cpu_ids_init; "off" and
 * "weight" are interned when first used): */
struct lat_cpu_ids {
    uint32_t k_stack, k_state, k_weight, v_on, v_off, cat; /* k_weight/v_off: UINT32_MAX unused */
};
int lat_cpu_ids_init(struct lat_trace *t, struct lat_cpu_ids *ids);
struct lat_cpu_sample {
    lat_ns ts;
    lat_ns dur;      /* off-CPU intervals: the time off the CPU; on-CPU samples: 0 */
    uint32_t track;  /* index into trace->tracks */
    uint32_t stack;  /* string id of the stack */
    uint32_t leaf;   /* string id of its leaf frame: the event's name */
    uint64_t weight; /* the samples it stands for: 0 or 1 = one (no "weight" arg), <= INT64_MAX */
    bool off;        /* an off-CPU interval */
};
/* Adds sample s: its args, then its event. shared_args = UINT32_MAX adds new args; else it is
 * the first arg of an earlier sample of the same stack and state and weight 1, whose two args
 * this one (of weight 1 too) shares. *first_arg (when not NULL) receives the event's first arg.
 * 0, -ENOMEM or LAT_E_OVERFLOW. */
int lat_trace_add_cpu_sample(struct lat_trace *t, struct lat_cpu_ids *ids,
                             const struct lat_cpu_sample *s, uint32_t shared_args,
                             uint32_t *first_arg);

/* Finds or adds the track (pid, tid, pid_str, tid_str); returns its index through *index. */
int lat_trace_track(struct lat_trace *t, int64_t pid, int64_t tid, uint32_t pid_str,
                    uint32_t tid_str, bool gpu, uint32_t *index);

int lat_trace_add_flow(struct lat_trace *t, const struct lat_flow *f);
int lat_trace_add_device(struct lat_trace *t, const struct lat_device *d);
int lat_trace_add_meta(struct lat_trace *t, uint32_t key, uint32_t value);
/* The value of metadata `key` as the reader stored it (raw JSON text, or plain text for the keys
 * a reader adds itself), NULL when absent; the first one. Reader keys read by the analyses:
 * "na_steps" = why an input of steps-capable format has none (overrides the format's
 * na_steps, model/format.h). */
const char *lat_trace_meta(const struct lat_trace *t, const char *key);

/* True when a metadata/environment key looks secret (*TOKEN*, *KEY*, *SECRET*, *PASSWORD*,
 * *CREDENTIAL*, case-insensitive): its value must be shown as "REDACTED". */
bool lat_meta_is_secret(const char *key);

/* Name of a kind ("kernel", "cpu_op", ...), the current Kineto spelling where one exists. */
const char *lat_ev_kind_name(enum lat_ev_kind k);
/* True for kinds that execute on a device (kernel, memcpy, memset, sync, device other). */
bool lat_ev_kind_is_gpu(enum lat_ev_kind k);

/* Sorts events by (ts, -dur) keeping args and tracks intact (stable). 0 or -ENOMEM. */
int lat_trace_sort(struct lat_trace *t);

#endif
