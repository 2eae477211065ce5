/*
 * ivl.h - the one interval library: half-open time intervals [ts, end) in ns, as plain arrays
 * (the analyses' HTA arithmetic) and as growable sets (the doctor's set algebra).
 *
 * Two merges, on purpose:
 *  - lat_ivl_merge() is the set union: sorts, joins overlapping and touching intervals; a set
 *    never holds an empty interval (lat_ivl_push drops them). "Merged" below means this.
 *  - lat_ivl_merge_hta() is HTA's merge_kernel_intervals() (../shared/docs/analyses.md), kept
 *    as a named variant because analyze's HTA-compatible numbers depend on its corner cases:
 *    on an array sorted by ts, a row starts a new group only when its ts is past the running
 *    max of all earlier ends, and a lone row with end < ts stays as is (negative length).
 * Nothing here allocates except the set functions (growth through core/grow.h) and the sorts
 * (qsort, in place).
 */
#ifndef LAT_CORE_IVL_H
#define LAT_CORE_IVL_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

struct lat_ivl {
    lat_ns ts, end;
};

/* ---- arrays ---------------------------------------------------------------------------- */

/* Sorts v by (ts, end). */
void lat_ivl_sort(struct lat_ivl *v, size_t n);
/* HTA's merge (see above): v sorted by ts; writes the groups [min ts, max end] over v and
 * returns their number. */
size_t lat_ivl_merge_hta(struct lat_ivl *v, size_t n);
/* Σ (end - ts) over v (for a merged list: the measure of the union; negative rows count as
 * they are, as in HTA). */
lat_ns lat_ivl_sum(const struct lat_ivl *v, size_t n);
/* |a ∩ b| for two merged lists of non-negative intervals. O(na + nb). */
lat_ns lat_ivl_intersect_len(const struct lat_ivl *a, size_t na, const struct lat_ivl *b,
                             size_t nb);
/* Clips merged list v to [lo, hi) into out (capacity >= n); returns the count written. */
size_t lat_ivl_clip(const struct lat_ivl *v, size_t n, lat_ns lo, lat_ns hi, struct lat_ivl *out);

/* One boundary of HTA's sweep: +bit at a start, -bit at an end. */
struct lat_sweep_ev {
    lat_ns t;
    int32_t delta;
};
/* HTA's _get_gpu_kernel_type_time / comm-comp overlap sweep. ev[0..n) are the boundaries of
 * several merged lists (lat_ivl_sweep_add); they are sorted here by time. For every piece
 * [t_k, t_{k+1}) during which the running sum r is > 0 and < nbuckets, sum[r] += piece, where a
 * piece is truncated to a multiple of quantum_ns (HTA casts each µs piece to int: pass 1000;
 * pass 1 for exact ns). */
void lat_ivl_sweep(struct lat_sweep_ev *ev, size_t n, lat_ns quantum_ns, lat_ns *sum,
                   size_t nbuckets);
/* Appends the boundaries of merged list v with weight w to ev at *n (2 * nv entries needed). */
void lat_ivl_sweep_add(struct lat_sweep_ev *ev, size_t *n, const struct lat_ivl *v, size_t nv,
                       int32_t w);
/* Priority split of the window [lo, hi): m merged lists (non-negative intervals, m <= 16),
 * list 0 first. out[k] = time in the window covered by list k and by no list before it;
 * out[m] = time covered by none. Σ out[0..m] = hi - lo. */
void lat_ivl_priority_split(const struct lat_ivl *const *lists, const size_t *counts, size_t m,
                            lat_ns lo, lat_ns hi, lat_ns *out);

/* ---- sets ------------------------------------------------------------------------------ */

struct lat_ivl_set {
    struct lat_ivl *v;
    size_t n, cap;
};

/* Appends [ts, end) (ignored when end <= ts). 0, -ENOMEM or LAT_E_OVERFLOW. */
int lat_ivl_push(struct lat_ivl_set *s, lat_ns ts, lat_ns end);
/* Sorts and merges s in place (the set union; touching intervals are joined). */
void lat_ivl_merge(struct lat_ivl_set *s);
/* Measure of a merged set. */
lat_ns lat_ivl_measure(const struct lat_ivl_set *s);
/* Measure of (merged s) ∩ [a, b). O(log n + intervals inside). */
lat_ns lat_ivl_measure_in(const struct lat_ivl_set *s, lat_ns a, lat_ns b);
/* Index of the first interval of a merged set with end > t (s->n when none). */
size_t lat_ivl_find(const struct lat_ivl_set *s, lat_ns t);
/* out = x ∩ y and out = x − y for merged sets; out must be distinct from x and y. 0/-ENOMEM. */
int lat_ivl_intersect(const struct lat_ivl_set *x, const struct lat_ivl_set *y,
                      struct lat_ivl_set *out);
int lat_ivl_subtract(const struct lat_ivl_set *x, const struct lat_ivl_set *y,
                     struct lat_ivl_set *out);
/* out = the gaps of merged s inside [a, b). 0 or -ENOMEM. */
int lat_ivl_gaps_in(const struct lat_ivl_set *s, lat_ns a, lat_ns b, struct lat_ivl_set *out);
/* Empties s (keeps its memory); lat_ivl_fini frees it. */
void lat_ivl_reset(struct lat_ivl_set *s);
void lat_ivl_fini(struct lat_ivl_set *s);

#endif
