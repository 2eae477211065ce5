/*
 * rule-service-slices.c - the tail's shape over time, from a point's --slice windows (bench
 * --slice D): warm-up (the first windows slower than the rest), periodic-stalls (windows whose
 * slowest request is far above the typical one, at a regular interval: GC, timers, batch
 * flushes) and error-burst (most errors in one short stretch). Evidence and thresholds:
 * docs/latscope-doctor.md, "Service rules".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/pctl.h"
#include "core/sort.h"
#include "doctor/finding.h"
#include "doctor/service.h"

#define SLICES_MIN 4 /* windows with requests a shape needs */
/* warm-up: leading windows with p50 >= WARM_RATIO x the later half's median p50 and at least
 * WARM_MIN_MS above it, fewer than half of the windows, WARM_MIN_REQS requests in the first */
#define WARM_RATIO    2.0
#define WARM_MIN_MS   1.0
#define WARM_MIN_REQS 10
/* periodic-stalls: a window whose max is >= STALL_RATIO x the median window p50 and at least
 * STALL_MIN_MS above it; adjacent ones are one stall; STALL_MIN_EVENTS stalls whose intervals
 * all lie within max(one window, STALL_JITTER x the median interval) of that median */
#define STALL_RATIO      5.0
#define STALL_MIN_MS     20.0
#define STALL_MIN_EVENTS 4
#define STALL_JITTER     0.25
/* error-burst: at least BURST_MIN_ERRORS errors, BURST_SHARE of them within a stretch of at
 * most BURST_MAX_SPAN of the windows */
#define BURST_MIN_ERRORS 10
#define BURST_SHARE      0.8
#define BURST_MAX_SPAN   0.25

/* Median of the windows' p50 over [from, n) with requests; NaN without one. */
static double median_p50(const struct doc_svc_point *p, size_t from)
{
    double *v = malloc((p->nslices + 1) * sizeof(*v));
    if (!v) return NAN;
    size_t k = 0;
    for (size_t i = from; i < p->nslices; i++)
        if (p->slices[i].requests && !isnan(p->slices[i].lat_p50)) v[k++] = p->slices[i].lat_p50;
    qsort(v, k, sizeof(*v), lat_cmp_f64);
    double m = k ? lat_median_f64(v, k) : NAN;
    free(v);
    return m;
}

static size_t with_requests(const struct doc_svc_point *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->nslices; i++)
        k += p->slices[i].requests && !isnan(p->slices[i].lat_p50);
    return k;
}

static double slice_len(const struct doc_svc_point *p)
{
    return p->nslices ? p->slices[0].end_s - p->slices[0].start_s : 0;
}

void svc_rule_warmup(struct doc_report *r, const struct doc_svc_run *run,
                     const struct doc_svc_point *p, int ti)
{
    (void)run;
    if (!p->slices || with_requests(p) < SLICES_MIN) return;
    const struct doc_svc_slice *s0 = &p->slices[0];
    if (s0->requests < WARM_MIN_REQS || isnan(s0->lat_p50)) return;
    double ref = median_p50(p, p->nslices / 2);
    if (isnan(ref) || ref <= 0) return;
    size_t slow = 0;
    double excess_ms = 0; /* sum over the slow windows of requests x (p50 - ref) */
    uint64_t slow_reqs = 0;
    while (slow < p->nslices) {
        const struct doc_svc_slice *s = &p->slices[slow];
        if (!s->requests || isnan(s->lat_p50) || s->lat_p50 < WARM_RATIO * ref ||
            s->lat_p50 - ref < WARM_MIN_MS)
            break;
        excess_ms += (double)s->requests * (s->lat_p50 - ref);
        slow_reqs += s->requests;
        slow++;
    }
    if (!slow || slow * 2 >= p->nslices) return;
    struct doc_finding *f = doc_finding_add(r, "warm-up", ti);
    if (!f) return;
    double until = p->slices[slow - 1].end_s;
    doc_set(r, &f->title,
            "%s: the first %.2f s were slower (median %.2f ms, then %.2f ms): the server was "
            "warming up while measured",
            p->load, until, s0->lat_p50, ref);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_num(r, f, "first_window_p50_ms", s0->lat_p50);
    doc_kv_num(r, f, "later_windows_median_p50_ms", ref);
    doc_kv_num(r, f, "warm_up_s", until);
    doc_kv_int(r, f, "slow_windows", (int64_t)slow);
    doc_kv_int(r, f, "windows", (int64_t)p->nslices);
    doc_kv_num(r, f, "window_s", slice_len(p));
    doc_kv_int(r, f, "warm_up_requests", (int64_t)slow_reqs);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    /* per request over the point: the slow windows' median excess, spread over every request
     * (an estimate from window medians, never above the slow windows' own medians) */
    double per_req = p->ok ? excess_ms / (double)p->ok : 0;
    double base = !isnan(p->lat_mean) && p->lat_mean > 0 ? p->lat_mean : ref;
    doc_saving(f, (lat_ns)(per_req * 1e6), (lat_ns)(base * 1e6));
    doc_set(r, &f->saving_method,
            "at most about: the slow windows' requests x (their median - the later median), per "
            "request of the point and as %% of its mean latency; warming the server before it "
            "serves removes that from production, --warmup only from the measurement");
    doc_set(r, &f->recommendation,
            "warm the server up before it takes traffic (load the model eagerly, run a few "
            "requests of each shape at start, fill caches and JIT/autotune before the readiness "
            "probe passes); to measure the steady state only, give bench a --warmup longer than "
            "%.2f s",
            until);
    doc_set(r, &f->next_step, "latscope bench --warmup %.0fs --slice %.2gs ... (the same run)",
            ceil(until + 0.5), slice_len(p));
}

void svc_rule_stalls(struct doc_report *r, const struct doc_svc_run *run,
                     const struct doc_svc_point *p, int ti)
{
    (void)run;
    if (!p->slices || with_requests(p) < SLICES_MIN) return;
    double m50 = median_p50(p, 0), len = slice_len(p);
    if (isnan(m50) || !(len > 0)) return;
    double starts[64], worst = 0;
    size_t nev = 0, nstall = 0;
    bool prev = false;
    for (size_t i = 0; i < p->nslices; i++) {
        const struct doc_svc_slice *s = &p->slices[i];
        bool st = s->requests && !isnan(s->start_s) && !isnan(s->lat_max) &&
                  s->lat_max >= STALL_RATIO * m50 && s->lat_max - m50 >= STALL_MIN_MS;
        if (st) {
            nstall++;
            if (s->lat_max > worst) worst = s->lat_max;
            if (!prev && nev < sizeof(starts) / sizeof(starts[0])) starts[nev++] = s->start_s;
        }
        prev = st;
    }
    if (nev < STALL_MIN_EVENTS || nstall * 2 > p->nslices) return;
    double iv[63];
    size_t niv = nev - 1;
    for (size_t i = 0; i < niv; i++)
        iv[i] = starts[i + 1] - starts[i];
    double sorted[63];
    for (size_t i = 0; i < niv; i++)
        sorted[i] = iv[i];
    qsort(sorted, niv, sizeof(*sorted), lat_cmp_f64);
    double period = lat_median_f64(sorted, niv);
    double tol = fmax(len, STALL_JITTER * period) + 1e-9;
    for (size_t i = 0; i < niv; i++)
        if (fabs(iv[i] - period) > tol) return; /* stalls, but not periodic */
    struct doc_finding *f = doc_finding_add(r, "periodic-stalls", ti);
    if (!f) return;
    doc_set(r, &f->title,
            "%s: %zu stalls, one every %.2f s (requests up to %.1f ms against a typical "
            "%.2f ms): something on the server pauses on a timer",
            p->load, nev, period, worst, m50);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "stalls", (int64_t)nev);
    doc_kv_num(r, f, "period_s", period);
    doc_kv_num(r, f, "first_stall_at_s", starts[0]);
    doc_kv_num(r, f, "stall_max_ms", worst);
    doc_kv_num(r, f, "windows_median_p50_ms", m50);
    if (!isnan(p->lat_p99)) doc_kv_num(r, f, "latency_p99_ms", p->lat_p99);
    doc_kv_int(r, f, "stalled_windows", (int64_t)nstall);
    doc_kv_int(r, f, "windows", (int64_t)p->nslices);
    doc_kv_num(r, f, "window_s", len);
    f->severity = DOC_SEV_MEDIUM; /* a pause on a timer: every request in it waits */
    doc_set(r, &f->saving_method,
            "not estimated: the windows give each stall's slowest request, not how many "
            "requests it held up (--records has every request)");
    doc_set(r, &f->recommendation,
            "find what runs every %.2f s on the server: a garbage collector (Python gc, JVM, "
            "Go: tune or move it off the request path), a periodic flush, checkpoint or "
            "metrics export, a batch timer, an autoscaler or health probe; make it incremental "
            "or run it off the serving threads",
            period);
    doc_set(r, &f->next_step,
            "latscope bench --records rec.jsonl --slice %.2gs ... (the same run) and look at "
            "the requests in the stalled windows; profile the server across one stall",
            len);
}

void svc_rule_error_burst(struct doc_report *r, const struct doc_svc_run *run,
                          const struct doc_svc_point *p, int ti)
{
    (void)run;
    if (!p->slices || p->nslices < SLICES_MIN || p->errors < BURST_MIN_ERRORS) return;
    uint64_t tot = 0;
    for (size_t i = 0; i < p->nslices; i++)
        tot += p->slices[i].errors;
    if (tot < BURST_MIN_ERRORS) return;
    /* the shortest stretch of windows holding BURST_SHARE of the errors (a sliding window:
     * the counts are not negative, so the left edge only moves right) */
    size_t best_a = 0, best_n = p->nslices + 1;
    uint64_t best_e = 0, e = 0;
    double need = BURST_SHARE * (double)tot;
    for (size_t a = 0, b = 0; b < p->nslices; b++) {
        e += p->slices[b].errors;
        while (a < b && (double)(e - p->slices[a].errors) >= need)
            e -= p->slices[a++].errors;
        if ((double)e >= need && b - a + 1 < best_n) best_a = a, best_n = b - a + 1, best_e = e;
    }
    if (best_n > p->nslices || (double)best_n > BURST_MAX_SPAN * (double)p->nslices) return;
    const struct doc_svc_slice *sa = &p->slices[best_a], *sb = &p->slices[best_a + best_n - 1];
    struct doc_finding *f = doc_finding_add(r, "error-burst", ti);
    if (!f) return;
    doc_set(r, &f->title,
            "%s: %.0f %% of the %llu errors came in %.2f s (%.2f .. %.2f s of the point): the "
            "server failed for a while, not at random",
            p->load, 100.0 * (double)best_e / (double)tot, (unsigned long long)tot,
            sb->end_s - sa->start_s, sa->start_s, sb->end_s);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "errors", (int64_t)tot);
    doc_kv_int(r, f, "errors_in_burst", (int64_t)best_e);
    doc_kv_num(r, f, "burst_start_s", sa->start_s);
    doc_kv_num(r, f, "burst_end_s", sb->end_s);
    doc_kv_int(r, f, "windows", (int64_t)p->nslices);
    if (p->err_connect >= 0) doc_kv_int(r, f, "connect_errors", p->err_connect);
    if (p->err_timeout >= 0) doc_kv_int(r, f, "timeout_errors", p->err_timeout);
    if (p->err_reset >= 0) doc_kv_int(r, f, "reset_errors", p->err_reset);
    if (p->err_4xx >= 0) doc_kv_int(r, f, "http_4xx_errors", p->err_4xx);
    if (p->err_5xx >= 0) doc_kv_int(r, f, "http_5xx_errors", p->err_5xx);
    f->severity = DOC_SEV_MEDIUM;
    doc_set(r, &f->saving_method, "not estimated: failed requests have no latency");
    doc_set(r, &f->recommendation,
            "look at the server's log and restarts between %.2f s and %.2f s of the point "
            "(a crash and restart, a reload, a dependency's outage, a full queue); the "
            "error classes above say how the requests failed",
            sa->start_s, sb->end_s);
    doc_set(r, &f->next_step,
            "latscope bench --records rec.jsonl --slice %.2gs ... (the same run): each failed "
            "request's time and error",
            slice_len(p));
}
