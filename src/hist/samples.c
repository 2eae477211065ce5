/*
 * samples.c - exact order statistics (see samples.h).
 *
 * A plain int64 array and qsort: for the run sizes where exact statistics are wanted (up to a
 * few million samples) sorting once at the end costs milliseconds, far less than the run.
 * Alternatives rejected: a selection algorithm per percentile (several percentiles are read, a
 * sort serves them all) and growing the buffer on the hot path (pushes must not allocate).
 */
#include "hist/samples.h"

#include "core/err.h"
#include "core/pctl.h"
#include "core/sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int samples_init(struct lat_samples *s, size_t cap)
{
    memset(s, 0, sizeof(*s));
    if (cap == 0 || cap > SIZE_MAX / sizeof(int64_t)) return LAT_E_USAGE;
    s->v = malloc(cap * sizeof(int64_t));
    if (!s->v) return -ENOMEM;
    s->cap = cap;
    s->sorted = true;
    return 0;
}

void samples_fini(struct lat_samples *s)
{
    if (!s) return;
    free(s->v);
    memset(s, 0, sizeof(*s));
}

void samples_reset(struct lat_samples *s)
{
    s->n = 0;
    s->sorted = true;
    s->overflowed = false;
}

int samples_push(struct lat_samples *s, int64_t v)
{
    if (s->n >= s->cap) {
        s->overflowed = true;
        return -ENOSPC;
    }
    if (s->n && v < s->v[s->n - 1]) s->sorted = false;
    s->v[s->n++] = v;
    return 0;
}

int samples_append(struct lat_samples *dst, const struct lat_samples *src)
{
    if (src->overflowed) dst->overflowed = true;
    if (src->n > dst->cap - dst->n) {
        dst->overflowed = true;
        return -ENOSPC;
    }
    if (!src->n) return 0;
    memcpy(dst->v + dst->n, src->v, src->n * sizeof(int64_t));
    dst->n += src->n;
    dst->sorted = false;
    return 0;
}

bool samples_overflowed(const struct lat_samples *s)
{
    return s->overflowed;
}

/* LSD radix sort on the sign-flipped bits, 11 bits per pass (6 passes, 16 KiB of counters),
 * skipping passes whose digit is the same for every key (the high bits of latencies).
 * Returns -ENOMEM when the scratch buffer cannot be had (the caller falls back to qsort). */
static int radix_sort(int64_t *v, size_t n)
{
    enum { BITS = 11, RADIX = 1 << BITS, PASSES = (64 + BITS - 1) / BITS };
    uint64_t *a = (uint64_t *)v, *b = malloc(n * sizeof(uint64_t));
    size_t(*cnt)[RADIX] = calloc(PASSES, sizeof(*cnt));
    if (!b || !cnt) {
        free(b);
        free(cnt);
        return -ENOMEM;
    }
    const uint64_t flip = UINT64_C(1) << 63;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = a[i] ^ flip;
        for (int p = 0; p < PASSES; p++)
            cnt[p][(k >> (p * BITS)) & (RADIX - 1)]++;
    }
    uint64_t *src = a, *dst = b;
    for (int p = 0; p < PASSES; p++) {
        size_t *c = cnt[p];
        uint64_t first = ((src[0] ^ flip) >> (p * BITS)) & (RADIX - 1);
        if (c[first] == n) continue; /* every key has this digit: nothing to reorder */
        size_t sum = 0;
        for (int d = 0; d < RADIX; d++) {
            size_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t k = src[i] ^ flip;
            dst[c[(k >> (p * BITS)) & (RADIX - 1)]++] = src[i];
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof(uint64_t));
    free(b);
    free(cnt);
    return 0;
}

void samples_sort(struct lat_samples *s)
{
    if (s->sorted) return;
    /* Radix for large sets (a 1M-sample sort drops from ~100s of ms to ~10s), qsort for small
     * ones or when memory is short. */
    if (s->n < 4096 || radix_sort(s->v, s->n) < 0) qsort(s->v, s->n, sizeof(int64_t), lat_cmp_i64);
    s->sorted = true;
}

int64_t samples_percentile(struct lat_samples *s, double pct)
{
    if (!s->n) return 0;
    samples_sort(s);
    return lat_pctl_i64(s->v, s->n, pct);
}

double samples_mean(const struct lat_samples *s)
{
    if (!s->n) return 0.0;
    long double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += (long double)s->v[i];
    return (double)(sum / (long double)s->n);
}
