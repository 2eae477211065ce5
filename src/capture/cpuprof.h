/*
 * cpuprof.h - the CPU sampling profiler behind `latscope trace --cpu` (issue #8).
 *
 * Interface between the trace command (cmd-trace.c, which launches or attaches to the target)
 * and the sampler (perf_event_open cpu-clock sampling, native unwinding and symbolization,
 * Python frames read from outside the process). The sampler fills the shared trace model:
 * one LAT_EV_CPU_SAMPLE instant per sample on the sampled thread's track, with arg "stack"
 * (STR: frames root-first separated by ';', Python frames as "py:func (file:line)") and arg
 * "state" ("on" for on-CPU samples, "off" for off-CPU intervals, whose dur is the time off-CPU).
 * Timestamps are CLOCK_MONOTONIC ns, the same clock as the CUDA capture.
 */
#ifndef LAT_CAPTURE_CPUPROF_H
#define LAT_CAPTURE_CPUPROF_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/events.h"

struct cpuprof_opts {
    unsigned freq_hz;     /* samples per second per thread; default 99, at most 1000 */
    bool kernel_stacks;   /* include kernel callchains when permitted */
    bool offcpu;          /* record context switches (off-CPU time) when permitted */
    bool python;          /* read CPython frames */
    bool follow_children; /* also sample children forked after the start */
    bool py_internals;    /* keep interpreter frames between Python frames (default: folded) */
};

struct cpuprof;

/*
 * Starts sampling process `pid` and all its threads. When `enable_on_exec` is true, `pid` is
 * a child stopped before exec (cmd-trace's launch path) and counting starts at its exec.
 * Returns 0, -EACCES/-EPERM (see cpuprof_strerror for what to change), or another error.
 * Free with cpuprof_free().
 */
int cpuprof_start(pid_t pid, bool enable_on_exec, const struct cpuprof_opts *opts,
                  struct cpuprof **out);
/* Drains the sample buffers; call at least every timeout_ms. Returns 0 or an error. */
int cpuprof_poll(struct cpuprof *p, int timeout_ms);
/* Stops sampling, drains the rest, symbolizes. */
int cpuprof_stop(struct cpuprof *p);
/* Adds the samples to trace t (as described above). Timestamps are CLOCK_MONOTONIC ns minus
 * the origin: the one given to cpuprof_set_origin(); without one, when t->base_time_ns is set
 * (the realtime epoch of ts 0), the monotonic instant of ts 0 derived from it; else 0
 * (absolute CLOCK_MONOTONIC). */
int cpuprof_export(struct cpuprof *p, struct lat_trace *t);
/* Sets the CLOCK_MONOTONIC ns that becomes ts 0 in cpuprof_export() (cmd-trace: its launch
 * time, the origin of the CUDA events). Added after the first interface; additive. */
void cpuprof_set_origin(struct cpuprof *p, int64_t origin_ns);
/* Folded stacks ("frame;frame;frame count" per line), for flame-graph tools. */
int cpuprof_write_folded(struct cpuprof *p, FILE *f);
/* A self-contained SVG flame graph. */
int cpuprof_write_flamegraph(struct cpuprof *p, FILE *f, const char *title);
/* Counters for the report: samples taken, lost, unwound with DWARF, Python frames seen. */
void cpuprof_stats(const struct cpuprof *p, char *buf, size_t len);
/* A sentence that says what to change for error rc (perf_event_paranoid, capabilities). */
const char *cpuprof_strerror(int rc);
void cpuprof_free(struct cpuprof *p);

#endif
