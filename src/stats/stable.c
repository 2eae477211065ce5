/*
 * stable.c - perf_analyzer's window stability rule (see stable.h).
 *
 * A ratio test, not a statistical one: it matches what perf_analyzer users expect and is cheap.
 * We keep every window (at most STABLE_MAX_WINDOWS) so the caller can report them all.
 * A zero-throughput window can never be part of a stable run (perf_analyzer treats it the same).
 */
#include "stats/stable.h"

#include "core/err.h"

#include <string.h>

int stable_init(struct lat_stable *s, double tolerance, int need, int max_windows)
{
    memset(s, 0, sizeof(*s));
    if (!(tolerance > 0.0) || need < 1 || max_windows < need || max_windows > STABLE_MAX_WINDOWS)
        return LAT_E_USAGE;
    s->tolerance = tolerance;
    s->need = need;
    s->max_windows = max_windows;
    return 0;
}

void stable_init_default(struct lat_stable *s)
{
    stable_init(s, 0.10, 3, 10);
}

/* max/min of the last `need` values <= 1 + tol, all > 0. */
static bool ratio_ok(const double *v, int n, int need, double tol)
{
    double lo = v[n - need], hi = v[n - need];
    for (int i = n - need; i < n; i++) {
        if (!(v[i] > 0.0)) return false;
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    return hi <= lo * (1.0 + tol);
}

enum stable_verdict stable_add(struct lat_stable *s, double throughput, double latency)
{
    if (s->verdict != STABLE_NOT_YET) return s->verdict;
    s->thr[s->n] = throughput;
    s->lat[s->n] = latency;
    s->n++;
    if (s->n < s->need) return STABLE_NOT_YET;
    bool thr_ok = ratio_ok(s->thr, s->n, s->need, s->tolerance);
    bool lat_ok = ratio_ok(s->lat, s->n, s->need, s->tolerance);
    if (thr_ok && lat_ok)
        s->verdict = STABLE_YES;
    else if (s->n >= s->max_windows)
        s->verdict = thr_ok ? STABLE_THROUGHPUT_ONLY : STABLE_GAVE_UP;
    return s->verdict;
}

void stable_last_means(const struct lat_stable *s, double *throughput, double *latency)
{
    int k = s->n < s->need ? s->n : s->need;
    double t = 0, l = 0;
    for (int i = s->n - k; i < s->n; i++) {
        t += s->thr[i];
        l += s->lat[i];
    }
    *throughput = k ? t / k : 0.0;
    *latency = k ? l / k : 0.0;
}

const char *stable_verdict_name(enum stable_verdict v)
{
    switch (v) {
    case STABLE_NOT_YET: /* the point ended before a verdict (also its final name) */
        return "not reached";
    case STABLE_YES:
        return "stable";
    case STABLE_THROUGHPUT_ONLY:
        return "throughput stable, latency not stabilizing";
    case STABLE_GAVE_UP:
        return "not stable";
    }
    return "?";
}
