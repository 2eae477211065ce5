/*
 * interval.c - interval arithmetic for the analyses (union, intersection, clip, sweeps).
 *
 * HTA computes unions with merge_kernel_intervals(): sort by ts, start a new group whenever a
 * row's ts is past the running max of all earlier ends. ivl_merge() does exactly that, in place,
 * so HTA's corner cases (rows with end < ts after its ns rounding) give HTA's numbers. The
 * kernel-type sweep keeps HTA's running-sum formulation (not a set of masks) for the same
 * reason. The priority split for per-step breakdowns is an m-way walk over merged lists: no
 * allocation, O(Σ n · m) with m ≤ 8.
 */
#include "analyze/interval.h"

#include <stdlib.h>

static int ivl_cmp(const void *a, const void *b)
{
    const struct lat_ivl *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

void ivl_sort(struct lat_ivl *v, size_t n)
{
    if (n > 1) qsort(v, n, sizeof(*v), ivl_cmp);
}

size_t ivl_merge(struct lat_ivl *v, size_t n)
{
    if (n == 0) return 0;
    size_t g = 0;
    lat_ns run_max = v[0].end; /* running max of the ends of all rows seen so far */
    for (size_t i = 1; i < n; i++) {
        if (v[i].ts > run_max) {
            v[++g] = v[i];
        } else {
            if (v[i].ts < v[g].ts) v[g].ts = v[i].ts;
            if (v[i].end > v[g].end) v[g].end = v[i].end;
        }
        if (v[i].end > run_max) run_max = v[i].end;
    }
    return g + 1;
}

lat_ns ivl_sum(const struct lat_ivl *v, size_t n)
{
    lat_ns s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i].end - v[i].ts;
    return s;
}

lat_ns ivl_intersect_len(const struct lat_ivl *a, size_t na, const struct lat_ivl *b, size_t nb)
{
    size_t i = 0, j = 0;
    lat_ns s = 0;
    while (i < na && j < nb) {
        lat_ns lo = a[i].ts > b[j].ts ? a[i].ts : b[j].ts;
        lat_ns hi = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (hi > lo) s += hi - lo;
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return s;
}

size_t ivl_clip(const struct lat_ivl *v, size_t n, lat_ns lo, lat_ns hi, struct lat_ivl *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        lat_ns a = v[i].ts > lo ? v[i].ts : lo;
        lat_ns b = v[i].end < hi ? v[i].end : hi;
        if (b > a) out[k++] = (struct lat_ivl){a, b};
    }
    return k;
}

static int sweep_cmp(const void *a, const void *b)
{
    const struct lat_sweep_ev *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return 0;
}

void ivl_sweep_add(struct lat_sweep_ev *ev, size_t *n, const struct lat_ivl *v, size_t nv,
                   int32_t w)
{
    size_t k = *n;
    for (size_t i = 0; i < nv; i++) {
        ev[k++] = (struct lat_sweep_ev){v[i].ts, w};
        ev[k++] = (struct lat_sweep_ev){v[i].end, -w};
    }
    *n = k;
}

void ivl_sweep(struct lat_sweep_ev *ev, size_t n, lat_ns quantum_ns, lat_ns *sum, size_t nbuckets)
{
    if (n > 1) qsort(ev, n, sizeof(*ev), sweep_cmp);
    if (quantum_ns < 1) quantum_ns = 1;
    int64_t run = 0;
    /* Rows at equal times may come in any order (HTA sorts with an unstable sort); the pieces
     * between them are 0 long, so the sums do not depend on that order. */
    for (size_t i = 0; i + 1 < n; i++) {
        run += ev[i].delta;
        if (run <= 0 || (uint64_t)run >= nbuckets) continue;
        lat_ns piece = ev[i + 1].t - ev[i].t;
        sum[run] += piece / quantum_ns * quantum_ns;
    }
}

/* First index whose interval may cover or follow lo: the last one starting at or before lo. */
static size_t ivl_seek(const struct lat_ivl *v, size_t n, lat_ns lo)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (v[mid].ts <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a ? a - 1 : 0;
}

#define IVL_MAX_LISTS 16

void ivl_priority_split(const struct lat_ivl *const *lists, const size_t *counts, size_t m,
                        lat_ns lo, lat_ns hi, lat_ns *out)
{
    size_t pos[IVL_MAX_LISTS];
    if (m > IVL_MAX_LISTS) m = IVL_MAX_LISTS;
    for (size_t k = 0; k <= m; k++)
        out[k] = 0;
    for (size_t k = 0; k < m; k++)
        pos[k] = ivl_seek(lists[k], counts[k], lo);
    lat_ns t = lo;
    while (t < hi) {
        lat_ns next = hi;
        size_t owner = m;
        for (size_t k = 0; k < m; k++) {
            const struct lat_ivl *v = lists[k];
            while (pos[k] < counts[k] && v[pos[k]].end <= t)
                pos[k]++;
            if (pos[k] >= counts[k]) continue;
            if (v[pos[k]].ts <= t) {
                if (owner == m) owner = k;
                if (v[pos[k]].end < next) next = v[pos[k]].end;
            } else if (v[pos[k]].ts < next) {
                next = v[pos[k]].ts;
            }
        }
        out[owner] += next - t;
        t = next;
    }
}
