/*
 * ncu.h - the Nsight Compute section of `latscope analyze`: per kernel launch of an `ncu --csv`
 * report (read by ingest/ncu.c, format "ncu") its duration, compute (SM) and memory throughput
 * (% of peak), achieved vs theoretical occupancy and the block limit that caps it, registers per
 * thread, block and grid size, waves per SM, the bound the launch hits and ncu's own rule
 * results sorted by estimated speedup.
 *
 * Bound, from ncu's Speed Of Light numbers as its SOLBottleneck rule reads them: "latency" when
 * both Compute (SM) and Memory Throughput are below 60 % of peak, else "compute" when SM >=
 * memory, else "memory"; NULL when either is missing. The occupancy limiter is the smallest of
 * the Block Limit metrics (registers, shared memory, warps, SM blocks, barriers; ties joined
 * with "+"). Metrics are looked up under the details page's names and the raw page's
 * (sm__throughput..., launch__...), units as the reader normalized them.
 */
#ifndef LAT_ANALYZE_NCU_H
#define LAT_ANALYZE_NCU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/render.h"
#include "model/events.h"

struct lat_ncu_rule {
    const char *name, *section, *type, *speedup_type, *description;
    double speedup_pct; /* NaN when ncu gave none */
};

struct lat_ncu_launch {
    int64_t id;
    const char *kernel;
    lat_ns dur;
    bool has_dur;
    double sm_pct, mem_pct, dram_pct;     /* NaN when absent */
    double achieved_occ, theoretical_occ; /* % */
    int64_t regs, block_size, grid_size;  /* -1 when absent */
    const char *block, *grid;             /* "[x, y, z]" or NULL */
    double waves;                         /* NaN when absent */
    const char *bound;                    /* "compute", "memory", "latency" or NULL */
    char limiter[64];                     /* "registers+shared memory", "" when unknown */
    const char *limiter_p;                /* limiter or NULL (for the field table) */
    double max_speedup_pct;               /* NaN without rules with a speedup */
    struct lat_ncu_rule *rules;           /* by speedup, descending */
    size_t nrules;
};

struct lat_ncu_summary {
    const char *page; /* "details" or "raw" */
    size_t nlaunches;
    lat_ns total;
    size_t bound_compute, bound_memory, bound_latency;
    struct lat_ncu_launch *launches; /* ID order */
};

extern const struct lat_an_table lat_ncu_launch_table; /* struct lat_ncu_launch */

bool lat_ncu_is(const struct lat_trace *t);
/* Fills *s from t. 0 or -ENOMEM. The rows point into t's strings. */
int lat_ncu_summarize(const struct lat_trace *t, struct lat_ncu_summary *s);
void lat_ncu_summary_fini(struct lat_ncu_summary *s);
/* The launch of s whose kernel name matches name (ncu_name_match), the longest one among several
 * launches of it; NULL when none. */
const struct lat_ncu_launch *lat_ncu_find(const struct lat_ncu_summary *s, const char *name);
/* Whether a kernel name from a timeline (Kineto/nsys: demangled, maybe with its argument list)
 * and one from ncu (demangled, mangled _Z..., or cut by ncu's --print-kernel-base) name the same
 * kernel: equal after dropping the argument list and template arguments' spaces, or one the
 * base name of the other (the function name without namespace, template and arguments), or a
 * prefix of at least 24 characters of the other (a truncated name). */
bool lat_ncu_name_match(const char *timeline, const char *ncu);

int lat_ncu_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n);
int lat_ncu_section_text(FILE *f, const struct lat_trace *t, size_t top_n);

#endif
