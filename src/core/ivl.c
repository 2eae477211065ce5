/*
 * ivl.c - interval arithmetic (see ivl.h): HTA's merge, sums, intersection, clip, sweeps and
 * the priority split over arrays; push, union, measure, intersect, subtract and gaps over sets.
 *
 * HTA computes unions with merge_kernel_intervals(): sort by ts, start a new group whenever a
 * row's ts is past the running max of all earlier ends. lat_ivl_merge_hta() does exactly that,
 * in place, so HTA's corner cases (rows with end < ts after its ns rounding) give HTA's numbers.
 * The kernel-type sweep keeps HTA's running-sum formulation for the same reason. The set
 * operations are linear after one sort; lat_ivl_measure_in() binary-searches so per-step
 * queries on a whole-trace set stay cheap.
 */
#include "core/ivl.h"

#include <stdlib.h>

#include "core/grow.h"

static int ivl_cmp(const void *a, const void *b)
{
    const struct lat_ivl *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

void lat_ivl_sort(struct lat_ivl *v, size_t n)
{
    if (n > 1) qsort(v, n, sizeof(*v), ivl_cmp);
}

size_t lat_ivl_merge_hta(struct lat_ivl *v, size_t n)
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

lat_ns lat_ivl_sum(const struct lat_ivl *v, size_t n)
{
    lat_ns s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i].end - v[i].ts;
    return s;
}

lat_ns lat_ivl_intersect_len(const struct lat_ivl *a, size_t na, const struct lat_ivl *b, size_t nb)
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

size_t lat_ivl_clip(const struct lat_ivl *v, size_t n, lat_ns lo, lat_ns hi, struct lat_ivl *out)
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

void lat_ivl_sweep_add(struct lat_sweep_ev *ev, size_t *n, const struct lat_ivl *v, size_t nv,
                       int32_t w)
{
    size_t k = *n;
    for (size_t i = 0; i < nv; i++) {
        ev[k++] = (struct lat_sweep_ev){v[i].ts, w};
        ev[k++] = (struct lat_sweep_ev){v[i].end, -w};
    }
    *n = k;
}

void lat_ivl_sweep(struct lat_sweep_ev *ev, size_t n, lat_ns quantum_ns, lat_ns *sum,
                   size_t nbuckets)
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

void lat_ivl_priority_split(const struct lat_ivl *const *lists, const size_t *counts, size_t m,
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

/* ---- sets ------------------------------------------------------------------------------ */

int lat_ivl_push(struct lat_ivl_set *s, lat_ns ts, lat_ns end)
{
    if (end <= ts) return 0;
    int rc = LAT_GROW(s->v, s->cap, s->n, 1, 64);
    if (rc) return rc;
    s->v[s->n++] = (struct lat_ivl){ts, end};
    return 0;
}

void lat_ivl_merge(struct lat_ivl_set *s)
{
    if (s->n < 2) return;
    lat_ivl_sort(s->v, s->n);
    size_t k = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->v[i].ts <= s->v[k].end) {
            if (s->v[i].end > s->v[k].end) s->v[k].end = s->v[i].end;
        } else {
            s->v[++k] = s->v[i];
        }
    }
    s->n = k + 1;
}

lat_ns lat_ivl_measure(const struct lat_ivl_set *s)
{
    return lat_ivl_sum(s->v, s->n);
}

size_t lat_ivl_find(const struct lat_ivl_set *s, lat_ns t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].end > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

lat_ns lat_ivl_measure_in(const struct lat_ivl_set *s, lat_ns a, lat_ns b)
{
    lat_ns m = 0;
    for (size_t i = lat_ivl_find(s, a); i < s->n && s->v[i].ts < b; i++) {
        lat_ns x = s->v[i].ts > a ? s->v[i].ts : a;
        lat_ns y = s->v[i].end < b ? s->v[i].end : b;
        if (y > x) m += y - x;
    }
    return m;
}

int lat_ivl_intersect(const struct lat_ivl_set *x, const struct lat_ivl_set *y,
                      struct lat_ivl_set *out)
{
    size_t i = 0, j = 0;
    int rc;
    out->n = 0;
    while (i < x->n && j < y->n) {
        lat_ns a = x->v[i].ts > y->v[j].ts ? x->v[i].ts : y->v[j].ts;
        lat_ns b = x->v[i].end < y->v[j].end ? x->v[i].end : y->v[j].end;
        if (b > a && (rc = lat_ivl_push(out, a, b))) return rc;
        if (x->v[i].end < y->v[j].end)
            i++;
        else
            j++;
    }
    return 0;
}

int lat_ivl_subtract(const struct lat_ivl_set *x, const struct lat_ivl_set *y,
                     struct lat_ivl_set *out)
{
    size_t j = 0;
    int rc;
    out->n = 0;
    for (size_t i = 0; i < x->n; i++) {
        lat_ns a = x->v[i].ts, b = x->v[i].end;
        while (j < y->n && y->v[j].end <= a)
            j++;
        for (size_t k = j; k < y->n && y->v[k].ts < b; k++) {
            if (y->v[k].ts > a && (rc = lat_ivl_push(out, a, y->v[k].ts))) return rc;
            if (y->v[k].end > a) a = y->v[k].end;
            if (a >= b) break;
        }
        if (a < b && (rc = lat_ivl_push(out, a, b))) return rc;
    }
    return 0;
}

int lat_ivl_gaps_in(const struct lat_ivl_set *s, lat_ns a, lat_ns b, struct lat_ivl_set *out)
{
    int rc;
    out->n = 0;
    lat_ns cur = a;
    for (size_t i = lat_ivl_find(s, a); i < s->n && s->v[i].ts < b; i++) {
        if (s->v[i].ts > cur && (rc = lat_ivl_push(out, cur, s->v[i].ts))) return rc;
        if (s->v[i].end > cur) cur = s->v[i].end;
    }
    if (cur < b && (rc = lat_ivl_push(out, cur, b))) return rc;
    return 0;
}

void lat_ivl_reset(struct lat_ivl_set *s)
{
    s->n = 0;
}

void lat_ivl_fini(struct lat_ivl_set *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}
