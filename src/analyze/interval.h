/*
 * interval.h - the analyses' names for core/ivl.h (the one interval library): HTA's merge,
 * union length, intersection, clip and the sweeps of HTA's kernel-type breakdown, on
 * caller-provided arrays of struct lat_ivl. Thin inline forwards, so the analyses read as
 * before; new code may call the lat_ivl_* functions directly.
 */
#ifndef LAT_ANALYZE_INTERVAL_H
#define LAT_ANALYZE_INTERVAL_H

#include "core/ivl.h"

/* Sorts v by (ts, end). */
static inline void ivl_sort(struct lat_ivl *v, size_t n)
{
    lat_ivl_sort(v, n);
}

/* HTA merge_kernel_intervals() (lat_ivl_merge_hta): v sorted by ts; groups written over v. */
static inline size_t ivl_merge(struct lat_ivl *v, size_t n)
{
    return lat_ivl_merge_hta(v, n);
}

static inline lat_ns ivl_sum(const struct lat_ivl *v, size_t n)
{
    return lat_ivl_sum(v, n);
}

static inline lat_ns ivl_intersect_len(const struct lat_ivl *a, size_t na, const struct lat_ivl *b,
                                       size_t nb)
{
    return lat_ivl_intersect_len(a, na, b, nb);
}

static inline size_t ivl_clip(const struct lat_ivl *v, size_t n, lat_ns lo, lat_ns hi,
                              struct lat_ivl *out)
{
    return lat_ivl_clip(v, n, lo, hi, out);
}

static inline void ivl_sweep(struct lat_sweep_ev *ev, size_t n, lat_ns quantum_ns, lat_ns *sum,
                             size_t nbuckets)
{
    lat_ivl_sweep(ev, n, quantum_ns, sum, nbuckets);
}

static inline void ivl_sweep_add(struct lat_sweep_ev *ev, size_t *n, const struct lat_ivl *v,
                                 size_t nv, int32_t w)
{
    lat_ivl_sweep_add(ev, n, v, nv, w);
}

static inline void ivl_priority_split(const struct lat_ivl *const *lists, const size_t *counts,
                                      size_t m, lat_ns lo, lat_ns hi, lat_ns *out)
{
    lat_ivl_priority_split(lists, counts, m, lo, hi, out);
}

#endif
