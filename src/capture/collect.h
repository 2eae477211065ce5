/*
 * collect.h - merge the per-process capture files of `latscope trace` into one trace model.
 */
#ifndef LAT_CAPTURE_COLLECT_H
#define LAT_CAPTURE_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "model/events.h"

struct collect_opts {
    lat_ns origin_ns;     /* CLOCK_MONOTONIC ns that becomes ts 0 in the trace */
    lat_ns start_ns;      /* capture window (CLOCK_MONOTONIC); 0 = open */
    lat_ns stop_ns;       /* 0 = open */
    bool gpu_annotations; /* project NVTX ranges onto the streams of their kernels */
    bool demangle;        /* C++ kernel names as Kineto shows them (needs libstdc++ at run time) */
};

#define COLLECT_MAX_MSGS 16

/* A status the injection library recorded (CUPTI busy, capture disabled, ...). */
struct collect_msg {
    uint32_t pid;
    int code;     /* enum lcap_status_code */
    int cupti_rc; /* CUPTI result or signal number */
    char text[240];
};

struct collect_stats {
    unsigned files, bad_files, truncated_files;
    unsigned cuda_procs; /* processes whose file holds CUDA activity */
    uint64_t events, flows;
    uint64_t api, kernels, memcpys, memsets, syncs, overheads, nvtx_ranges, nvtx_marks;
    uint64_t cupti_dropped, lost, nvtx_lost, gated, zero_ts, unmatched_nvtx, unknown_records;
    unsigned clock_steps, nsyncs;
    int64_t self_ns;        /* injection-library callback time, summed */
    uint32_t cupti_runtime; /* cuptiGetVersion() seen, 0 when none */
    size_t nmsgs;
    struct collect_msg msgs[COLLECT_MAX_MSGS];
};

/*
 * Adds the events of one capture file (its bytes in data[0..len)) to trace t. `proc_index`
 * (0 for the first file) keeps flow ids unique across processes: id = proc_index << 32 | corr.
 * Returns 0, LAT_E_NOT_TRACE (no capture magic) or -ENOMEM; a file cut short is not an error
 * (st->truncated_files counts it).
 */
int collect_buffer(struct lat_trace *t, const void *data, size_t len, unsigned proc_index,
                   const struct collect_opts *o, struct collect_stats *st);

/* Adds every cuda.<pid>.lcap file in dir (sorted by name). 0, -errno or -ENOMEM. */
int collect_dir(struct lat_trace *t, const char *dir, const struct collect_opts *o,
                struct collect_stats *st);

/* Name of an lcap status code ("disabled", "busy", ...). */
const char *collect_status_name(int code);

#endif
