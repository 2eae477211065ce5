/*
 * cpu.h - the CPU section of `latscope analyze` / `doctor`: a pure function over the
 * LAT_EV_CPU_SAMPLE events of a struct lat_trace (what `latscope trace --cpu` records, see
 * capture/cpuprof.h: arg "stack" = frames root-first separated by ';', arg "state" = "on" for
 * an on-CPU sample instant, "off" for an off-CPU interval with its dur; an on-CPU event counts
 * lat_sample_weight() samples: arg "weight", 1 without).
 *
 * lat_cpu_summarize() gives:
 *   - top functions by self samples (leaf frame) and by total samples (anywhere on the stack,
 *     counted once per sample even under recursion), with Python frames merged across lines
 *     ("py:f (x.py:12)" and "py:f (x.py:14)" are one function "py:f (x.py)");
 *   - top stacks by samples;
 *   - per thread: on-CPU samples and estimated on-CPU time (samples x sampling period),
 *     off-CPU time and intervals, the span from first to last event, its busiest function.
 * Filters: one thread (tid), and/or a set of time windows (e.g. GPU idle gaps for `doctor`:
 * "during 78 % of GPU idle time the launching thread was in json.dumps").
 *
 * Ownership: the summary owns its arrays and names (lat_cpu_summary_fini frees them); it does
 * not point into the trace, so it may outlive it. Nothing is printed; lat_cpu_format_text()
 * renders a summary as plain text for the caller's FILE.
 */
#ifndef LAT_ANALYZE_CPU_H
#define LAT_ANALYZE_CPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/events.h"

struct lat_cpu_opts {
    size_t top_n;     /* rows of funcs and stacks (0: 10) */
    int64_t tid;      /* only this thread; -1: all */
    lat_ns period_ns; /* sampling period; 0: estimated from the samples (median gap of the
                       * busiest thread, rounded to a whole Hz) */
    /* Optional windows [w[i][0], w[i][1]) in trace ns: only samples inside one count, and
     * off-CPU intervals count for their overlap. NULL/0: the whole trace. Need not be sorted. */
    const lat_ns (*windows)[2];
    size_t nwindows;
    bool keep_lines; /* do not merge Python frames across line numbers */
    /* Optional: only the events i of t with keep(keep_ud, i) true count (bench --server-pid
     * leaves out the samples whose Python frames the sampler could not read). */
    bool (*keep)(void *keep_ud, size_t i);
    void *keep_ud;
};

struct lat_cpu_func {
    char *name;
    uint64_t self, total; /* on-CPU samples */
    uint64_t depth_sum;   /* Σ over its `total` samples of its (first) depth, root = 0: the
                           * mean depth depth_sum / total tells callers from callees */
};

struct lat_cpu_stack {
    char *stack; /* root-first, ';'-separated */
    uint64_t samples;
};

struct lat_cpu_thread {
    int64_t pid, tid;
    const char *label; /* thread name (static "" when none); points into the summary */
    uint64_t samples;  /* on-CPU samples */
    lat_ns on_ns;      /* samples x period */
    lat_ns off_ns;     /* sum of off-CPU intervals */
    uint64_t off_intervals;
    lat_ns first_ns, last_ns; /* span of its CPU events */
    const char *top_func;     /* function with most self samples, "" when none */
};

struct lat_cpu_summary {
    uint64_t samples;       /* on-CPU samples counted */
    uint64_t off_intervals; /* off-CPU intervals counted */
    lat_ns off_ns;
    lat_ns period_ns;           /* given or estimated; 0 when unknown (fewer than 2 samples) */
    struct lat_cpu_func *funcs; /* top_n by self (ties: total, name) */
    size_t nfuncs;
    struct lat_cpu_func *funcs_total; /* top_n by total */
    size_t nfuncs_total;
    struct lat_cpu_stack *stacks; /* top_n by samples */
    size_t nstacks;
    struct lat_cpu_thread *threads; /* by on-CPU samples, descending */
    size_t nthreads;
    size_t distinct_funcs, distinct_stacks;
};

/* Summarizes the CPU samples of t. o may be NULL (defaults). Returns 0 (a trace without CPU
 * samples gives an all-zero summary), -ENOMEM or LAT_E_USAGE. Free with lat_cpu_summary_fini. */
int lat_cpu_summarize(const struct lat_trace *t, const struct lat_cpu_opts *o,
                      struct lat_cpu_summary *out);
void lat_cpu_summary_fini(struct lat_cpu_summary *s);
/* Plain-text rendering (the layout docs/latscope-trace-cpu.md shows). 0 or -EIO. */
int lat_cpu_format_text(const struct lat_cpu_summary *s, FILE *f);

#endif
