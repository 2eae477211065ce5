/*
 * interval.h - interval arithmetic on [ts, end) pairs in ns: HTA's merge, union length,
 * intersection, subtraction and the bit-flag sweep of HTA's kernel-type breakdown.
 *
 * Intervals live in caller-provided arrays (struct lat_ivl); nothing here allocates except
 * ivl_sort() (qsort, in place). A "merged" list is sorted by ts and its groups are disjoint.
 */
#ifndef LAT_ANALYZE_INTERVAL_H
#define LAT_ANALYZE_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

struct lat_ivl {
    lat_ns ts, end;
};

/* Sorts v by (ts, end). */
void ivl_sort(struct lat_ivl *v, size_t n);

/* HTA merge_kernel_intervals(): v must be sorted by ts. A row starts a new group when its ts is
 * greater than the running max of all earlier ends; a group is [min ts, max end]. Writes the
 * groups over v (in place) and returns their number. A lone row with end < ts stays as is, so
 * its "length" end - ts is negative, exactly as in HTA. */
size_t ivl_merge(struct lat_ivl *v, size_t n);

/* Σ (end - ts) over v (for a merged list: the measure of the union; may be negative for HTA's
 * negative-duration rows). */
lat_ns ivl_sum(const struct lat_ivl *v, size_t n);

/* |a ∩ b| for two merged lists of non-negative intervals. O(na + nb). */
lat_ns ivl_intersect_len(const struct lat_ivl *a, size_t na, const struct lat_ivl *b, size_t nb);

/* Clips merged list v to [lo, hi) into out (capacity >= n); returns the count written. */
size_t ivl_clip(const struct lat_ivl *v, size_t n, lat_ns lo, lat_ns hi, struct lat_ivl *out);

/* One boundary of HTA's sweep: +bit at a start, -bit at an end. */
struct lat_sweep_ev {
    lat_ns t;
    int32_t delta;
};

/* HTA's _get_gpu_kernel_type_time / comm-comp overlap sweep. ev[0..n) are the boundaries of
 * several merged lists (see ivl_sweep_add); they are sorted here by time. For every piece
 * [t_k, t_{k+1}) during which the running sum r is > 0 and < nbuckets, sum[r] += piece, where a
 * piece is truncated to a multiple of `quantum_ns` (HTA casts each µs piece to int: pass 1000;
 * pass 1 for exact ns). */
void ivl_sweep(struct lat_sweep_ev *ev, size_t n, lat_ns quantum_ns, lat_ns *sum, size_t nbuckets);

/* Appends the boundaries of merged list v with weight w to ev at *n (capacity is the caller's:
 * 2 * nv entries are needed). */
void ivl_sweep_add(struct lat_sweep_ev *ev, size_t *n, const struct lat_ivl *v, size_t nv,
                   int32_t w);

/* Generic priority split of the window [lo, hi): m merged lists (non-negative intervals),
 * list 0 has the highest priority. out[k] receives the time in the window covered by list k and
 * by no list before it; out[m] the time covered by none. Σ out[0..m] = hi - lo. O(Σ n log m)
 * (m is small). */
void ivl_priority_split(const struct lat_ivl *const *lists, const size_t *counts, size_t m,
                        lat_ns lo, lat_ns hi, lat_ns *out);

#endif
