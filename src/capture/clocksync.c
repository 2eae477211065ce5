/*
 * clocksync.c - piecewise-linear CUPTI -> CLOCK_MONOTONIC conversion.
 *
 * The injection library writes (MONOTONIC midpoint, cuptiGetTimestamp, REALTIME, gap) pairs at
 * start, about every second and at exit, each the tightest of many tries (wprof's min-gap
 * calibration, ../shared/docs/capture.md §6). Between two pairs a timestamp is interpolated
 * linearly, which absorbs the slow drift of CUPTI's (REALTIME-based) clock against MONOTONIC.
 * A segment whose clocks move apart by more than 1 ms + 1000 ppm holds a clock step
 * (settimeofday, an NTP slew gone wrong): there interpolation would smear the step over the
 * whole segment, so each timestamp takes the offset of the nearer pair instead, and the step is
 * counted for the report. Products are done in 128 bits: segments can be hours long.
 */
#include "capture/clocksync.h"

#include <stdlib.h>

/* Results are clamped to int64: a corrupt file may hold any 64-bit timestamp. */
static int64_t cs_clamp(__int128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int cs_cmp(const void *a, const void *b)
{
    const struct lcap_sync *x = a, *y = b;
    return x->cupti_ns < y->cupti_ns ? -1 : x->cupti_ns > y->cupti_ns;
}

static bool cs_is_step(const struct lcap_sync *a, const struct lcap_sync *b)
{
    __int128 dm = (__int128)b->mono_ns - a->mono_ns;
    __int128 dc = (__int128)b->cupti_ns - a->cupti_ns;
    __int128 diff = dc - dm;
    if (diff < 0) diff = -diff;
    if (dm < 0) dm = -dm;
    return dm == 0 || diff > 1000000 + dm / 1000;
}

void clocksync_init(struct clocksync *c, struct lcap_sync *s, size_t n)
{
    size_t k = 0;
    int64_t best_gap = INT64_MAX;
    c->have_rt = false;
    c->rt_offset = 0;
    c->steps = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].realtime_ns && s[i].gap_ns < best_gap) {
            best_gap = s[i].gap_ns;
            c->rt_offset = cs_clamp((__int128)s[i].mono_ns - s[i].realtime_ns);
            c->have_rt = true;
        }
        if (s[i].cupti_ns) {
            struct lcap_sync t = s[k];
            s[k++] = s[i];
            s[i] = t;
        }
    }
    if (k > 1) qsort(s, k, sizeof(*s), cs_cmp);
    c->s = s;
    c->n = k;
    for (size_t i = 1; i < k; i++)
        if (cs_is_step(&s[i - 1], &s[i])) c->steps++;
}

static int64_t cs_offset_at(const struct lcap_sync *p, uint64_t t)
{
    return cs_clamp((__int128)t + p->mono_ns - (__int128)p->cupti_ns);
}

int64_t clocksync_to_mono(const struct clocksync *c, uint64_t t)
{
    if (c->n == 0) return cs_clamp((__int128)t + (c->have_rt ? c->rt_offset : 0));
    if (c->n == 1 || t <= c->s[0].cupti_ns) return cs_offset_at(&c->s[0], t);
    if (t >= c->s[c->n - 1].cupti_ns) return cs_offset_at(&c->s[c->n - 1], t);
    size_t lo = 0, hi = c->n - 1; /* s[lo].cupti <= t < s[hi].cupti */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->s[mid].cupti_ns <= t)
            lo = mid;
        else
            hi = mid;
    }
    const struct lcap_sync *a = &c->s[lo], *b = &c->s[hi];
    if (cs_is_step(a, b))
        return (t - a->cupti_ns <= b->cupti_ns - t) ? cs_offset_at(a, t) : cs_offset_at(b, t);
    __int128 num = (__int128)(t - a->cupti_ns) * ((__int128)b->mono_ns - a->mono_ns);
    return cs_clamp(a->mono_ns + num / (__int128)(b->cupti_ns - a->cupti_ns));
}
