/*
 * critpath.h - the critical-path result (HTA's critical_path_analysis, ../shared/docs/analyses.md
 * §11): per analysed window (a ProfilerStep, one annotation instance or the whole trace) the
 * graph's size, the longest path's length, its split by bound type and the operators that hold
 * it. Filled by critpath.c when analysis_opts.critical_path is set.
 */
#ifndef LAT_ANALYZE_CRITPATH_H
#define LAT_ANALYZE_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/events.h"

/* HTA's CPEdgeType. */
enum lat_cp_edge {
    LAT_CP_E_OPERATOR = 0,  /* span of a CPU op / kernel, or between nested boundaries */
    LAT_CP_E_DEPENDENCY,    /* order only (top-level ops, CUDA runtime lock), weight 0 */
    LAT_CP_E_LAUNCH,        /* launch start -> kernel start */
    LAT_CP_E_KERNEL_KERNEL, /* previous kernel end -> next kernel start, same stream */
    LAT_CP_E_SYNC,          /* GPU -> GPU (stream wait event) or GPU -> CPU (syncs), weight 0 */
    LAT_CP_E_COUNT
};

/* HTA's BoundType, plus the zero-weight order edges (HTA's "" bound_by). */
enum lat_cp_bound {
    LAT_CP_B_CPU = 0,       /* cpu_bound: time inside a CPU op / runtime call */
    LAT_CP_B_GPU_COMPUTE,   /* gpu_compute_bound: a kernel, memcpy or memset */
    LAT_CP_B_GPU_COMM,      /* gpu_communication_bound: a communication kernel */
    LAT_CP_B_LAUNCH,        /* gpu_kernel_launch_overhead */
    LAT_CP_B_KERNEL_KERNEL, /* gpu_kernel_kernel_overhead */
    LAT_CP_B_DEPENDENCY,    /* dependency and sync edges (always 0 time; counted) */
    LAT_CP_B_COUNT
};

struct lat_an_cp_op {
    const char *name;
    lat_ns time;    /* Σ weight of the critical edges attributed to events of this name */
    uint64_t edges; /* number of those edges */
    bool gpu;       /* a GPU row (kernel/memcpy/memset) rather than a CPU op */
};

/* One critical edge (kept with analysis_opts.counters, for analyze --write-trace's overlay):
 * from the start (src_start) or end boundary of event src to that of event dst. */
struct lat_an_cp_edge {
    uint32_t src, dst; /* event indices in the rank's trace */
    bool src_start, dst_start;
    uint8_t type;   /* enum lat_cp_edge */
    uint8_t bound;  /* enum lat_cp_bound */
    uint32_t attr;  /* the attributed event (UINT32_MAX: none) */
    lat_ns ts, end; /* the edge's span: boundary times, rank-aligned ts + offset = trace ts */
    lat_ns weight;
};

struct lat_an_critpath {
    const char *annotation; /* the window's row name; "" for the whole trace */
    int64_t instance;       /* HTA instance id (position among the matching rows), -1 per-step */
    int32_t step;           /* N of ProfilerStep#N for the per-step windows, else -1 */
    lat_ns ts, dur;         /* the window (ts after rank alignment) */
    bool ok;                /* false: the graph has a cycle (no path; error says so) */
    const char *error;
    uint64_t nodes, edges; /* graph size (HTA's number_of_nodes / number_of_edges): the nodes
                              some edge touches */
    uint64_t boundaries;   /* start/end nodes made (2 per event), isolated ones included */
    uint64_t path_nodes, path_edges; /* the longest path */
    lat_ns length;                   /* Σ weight along it */
    lat_ns bound[LAT_CP_B_COUNT];    /* time per bound type (sums to length) */
    uint64_t bound_edges[LAT_CP_B_COUNT];
    uint64_t edge_types[LAT_CP_E_COUNT]; /* critical edges per edge type */
    uint64_t graph_edge_types[LAT_CP_E_COUNT];
    bool has_cuda_sync;       /* the trace has cuda_sync events (HTA warns when not) */
    struct lat_an_cp_op *ops; /* top_n by time */
    size_t nops, nops_total;
    struct lat_an_cp_edge *path; /* with analysis_opts.counters: the critical edges, in order */
    size_t npath;
};

void lat_an_critpath_free(struct lat_an_critpath *cp, size_t n);
const char *lat_cp_bound_name(enum lat_cp_bound b); /* HTA's bound_by strings */
const char *lat_cp_edge_name(enum lat_cp_edge e);   /* HTA's CPEdgeType values */

#endif
