/*
 * internal.h - what the analysis files share: the preprocessed view of one rank (HTA's §0 as a
 * mask over the model) and the per-analysis entry points called by analysis.c.
 */
#ifndef LAT_ANALYZE_INTERNAL_H
#define LAT_ANALYZE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analysis.h"
#include "analyze/interval.h"
#include "core/u64map.h"
#include "model/events.h"

#define AN_NONE UINT32_MAX

/* Per-name classification cache bits (one byte per string id, filled lazily). */
enum {
    AN_NAME_KNOWN = 0x80,
    AN_NAME_KTYPE_MASK = 0x03, /* enum lat_ktype */
    AN_NAME_STEP = 0x04,       /* matches ^ProfilerStep#\d+ */
    AN_NAME_SYNC_EVT = 0x08,   /* "Event Sync" or "Context Sync" */
    AN_NAME_HTA_LAUNCH = 0x10, /* HTA's launch-stats launch names (§6) */
    AN_NAME_Q_LAUNCH = 0x20,   /* HTA's queue-length launch names (§8) */
    AN_NAME_LAT_LAUNCH = 0x40, /* latscope's launch names: §6 + HIP, driver API, graphs */
};

struct an_view {
    const struct lat_trace *t;
    const struct analysis_opts *o;
    size_t n;
    bool round;       /* HTA ns rounding applies to this rank */
    lat_ns offset;    /* alignment offset (min rounded ts over all ranks) */
    uint8_t *keep;    /* 1: row kept by §0 steps 1 and 4 */
    uint8_t *namecls; /* per string id, AN_NAME_* */
    int64_t *stream;  /* HTA stream per event (args.stream or -1) */
    uint32_t *corr;   /* index_correlation: the correlated row, AN_NONE if none */
    int32_t *iter;    /* iteration (§0 step 5), -1 when none */
    uint32_t *gpu;    /* kept rows with stream != -1, sorted by (ts, index) */
    size_t ngpu;
    /* CPU ProfilerStep rows kept, sorted by ts; in a TensorFlow trace (marker_steps) its
     * Trace(name, step_num=N) regions: LAT_EVF_STEP events, numbered by their ev.step */
    uint32_t *steps;
    size_t nsteps;
    bool marker_steps;
    /* scratch */
    struct lat_ivl *ivl;
    size_t ivl_cap;
    uint64_t dropped;
};

/* Row i is a step (see an_view.steps): a CPU ProfilerStep#N, or a TF step marker. */
bool an_is_step(struct an_view *v, size_t i);
/* The step number of a row an_is_step() accepts: N of ProfilerStep#N, or the marker's index. */
int32_t an_step_num(const struct an_view *v, size_t i);

static inline lat_ns an_floor_div(lat_ns a, lat_ns b)
{
    lat_ns q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* HTA's rounding works on pandas float64 µs: ts = ceil(ts_us), end = floor(ts_us + dur_us),
 * with the double addition's own rounding (an end of exactly x.000 µs can land just below x).
 * an_us_double() gives the double the JSON parser makes of the µs text: the whole µs part is
 * exact below 2^53 µs and the one rounding happens in the addition, as in a correctly rounded
 * strtod (epoch µs timestamps need this: their ns count does not fit a double exactly). */
static inline double an_us_double(lat_ns ns)
{
    /* Up to 2^53 ns the conversion and the IEEE division are exact / correctly rounded, as
     * strtod of the text is; q + r / 1000.0 would round twice (off by one bit for e.g.
     * 26.577 µs). Beyond, the whole µs part is exact and r / 1000 cannot sit near a tie
     * (same reasoning as ingest_ns_to_us_double()). */
    if (ns >= -(1LL << 53) && ns <= (1LL << 53)) return (double)ns / 1000.0;
    lat_ns q = ns / 1000, r = ns % 1000;
    return (double)q + (double)r / 1000.0;
}

static inline lat_ns an_ts(const struct an_view *v, size_t i)
{
    lat_ns ts = v->t->ev.ts[i];
    return v->round ? (lat_ns)__builtin_ceil(an_us_double(ts)) * 1000 : ts;
}

static inline lat_ns an_end(const struct an_view *v, size_t i)
{
    lat_ns ts = v->t->ev.ts[i], dur = v->t->ev.dur[i];
    if (!v->round) return ts + dur;
    return (lat_ns)__builtin_floor(an_us_double(ts) + an_us_double(dur)) * 1000;
}

static inline lat_ns an_dur(const struct an_view *v, size_t i)
{
    return an_end(v, i) - an_ts(v, i);
}

static inline const char *an_name(const struct an_view *v, size_t i)
{
    return lat_trace_str(v->t, v->t->ev.name[i]);
}

/* Classification bits of event i's name (AN_NAME_*). */
uint8_t an_namecls(struct an_view *v, size_t i);

static inline enum lat_ktype an_ktype(struct an_view *v, size_t i)
{
    return (enum lat_ktype)(an_namecls(v, i) & AN_NAME_KTYPE_MASK);
}

/* True when name is a CUDA/HIP graph launch (cudaGraphLaunch, hipGraphLaunch, ...). */
bool an_is_graph_launch(const char *name);

/* True for HTA "GPU rows" of §0 step 4 (stream >= 0 and correlation >= 0, or Event/Context
 * Sync). */
bool an_is_gpu_kernel_filter(struct an_view *v, size_t i);

/* Scratch interval array with room for n entries; NULL on -ENOMEM. */
struct lat_ivl *an_scratch(struct an_view *v, size_t n);

/* analysis_last_step_complete() with the reason it is not (why may be NULL). */
bool an_last_step_complete(const struct lat_trace *t, char *why, size_t whylen);

/* Builds the view of every rank (§0 steps 1-5). views[] is zeroed by the caller. */
int an_prep(struct an_view *views, struct lat_trace *const *t, size_t n,
            const struct analysis_opts *o, struct lat_analysis *a);
void an_view_fini(struct an_view *v);

/* Analyses; each fills its part of r. 0 or -ENOMEM. */
int an_temporal(struct an_view *v, struct lat_an_rank *r);
int an_idle(struct an_view *v, struct lat_an_rank *r);
int an_ktypes(struct an_view *v, struct lat_an_rank *r);
int an_overlap(struct an_view *v, struct lat_an_rank *r);
int an_launch(struct an_view *v, struct lat_an_rank *r);
int an_queue(struct an_view *v, struct lat_an_rank *r);
int an_steps(struct an_view *v, struct lat_an_rank *r);
int an_ops(struct an_view *v, struct lat_an_rank *r);
int an_memcpy(struct an_view *v, struct lat_an_rank *r);
int an_aten(struct an_view *v, struct lat_an_rank *r);
int an_perfmodel(struct an_view *v, struct lat_an_rank *r);
int an_critpath(struct an_view *v, struct lat_an_rank *r);

/* pandas describe() over x[0..n) (sorts x): quantiles by core/pctl.h's linear interpolation, as
 * pandas (HTA's numbers); analyze's own pNN columns are nearest rank. */
void an_describe(double *x, size_t n, struct lat_dist *d);
/* Sample statistics of x[0..n) into k: sum, max, min, mean, std (0 for one value). */
void an_kern_stats(struct lat_an_kernel *k, const double *x, size_t n);
/* annot.c: user annotations (HTA's user-annotation breakdowns) */
int an_annot(struct an_view *v, struct lat_an_rank *r);
void an_annot_fini(struct lat_an_annots *A);
/* membw.c: memory bandwidth series summary (HTA TraceCounters) */
int an_membw(struct an_view *v, struct lat_an_rank *r);
/* cupti.c: CUPTI range-profiler counters joined with operators */
int an_cupti(struct an_view *v, struct lat_an_rank *r);
void an_cupti_fini(struct lat_an_cupti *C);
/* kseq.c: frequent kernel sequences (HTA get_frequent_cuda_kernel_sequences) */
int an_kseq(struct an_view *v, struct lat_an_rank *r);
void an_kseq_fini(struct lat_an_rank *r);
/* memtl.c: the memory timeline of the [memory] instants */
int an_memtl(struct an_view *v, struct lat_an_rank *r);
/* ranks.c: the cross-rank rows and stragglers, after every rank's analyses */
int an_cross_rank(struct lat_analysis *a);

/* Row maps (correlation id, stream, step, aggregate key -> row index) are core/u64map holding
 * uint32 rows; these two convert the types. */
static inline uint32_t an_row(const struct lat_u64map *m, int64_t key)
{
    uint64_t v;
    return lat_u64map_get(m, (uint64_t)key, &v) ? (uint32_t)v : AN_NONE;
}
/* Sets key -> row (overwrites). 0 or -ENOMEM. */
static inline int an_row_put(struct lat_u64map *m, int64_t key, uint32_t row)
{
    return lat_u64map_put(m, (uint64_t)key, row);
}

#endif
