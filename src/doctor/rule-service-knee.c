/*
 * rule-service-knee.c - queueing-knee: from the points of one run that sweep the load (open-loop
 * rates: a --find-max search or -r R1,R2,...; or closed-loop concurrencies -c 1,2,4,...), the
 * service time (median latency at the lowest load), the load where the median departs from it,
 * the server's capacity and, by Little's law applied to the busy workers (busy = throughput x
 * service time), the implied number of requests it serves at once; with --find-max, the SLO's
 * limit as a share of that capacity. Evidence and thresholds: docs/latscope-doctor.md,
 * "Service rules".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/pctl.h"
#include "core/sort.h"
#include "doctor/finding.h"
#include "doctor/service.h"

#define KNEE_MIN_POINTS 3   /* points on the load axis, with requests */
#define KNEE_RATIO      1.5 /* median latency above this x the service time: departed */
#define KNEE_MIN_MS     1.0 /* ... and at least this far above it */
#define KNEE_MIN_REQS   20  /* requests of the lowest-load point (the service time) */
/* open loop: a point whose mean latency exceeds the service time by this share of its duration
 * is overloaded (its queue grew all along); its capacity is the fluid queue's: a request
 * arriving t s in waits (rate / capacity - 1) x t, so mean latency = service time + (rate /
 * capacity - 1) x duration / 2 */
#define KNEE_OVERLOAD 0.1

static double load_of(const struct doc_svc_point *p, bool open)
{
    return open ? p->rate : p->concurrency;
}

static int by_load(const void *a, const void *b, void *ctx)
{
    bool open = *(const bool *)ctx;
    double x = load_of(*(const struct doc_svc_point *const *)a, open),
           y = load_of(*(const struct doc_svc_point *const *)b, open);
    return (x > y) - (x < y);
}

void svc_rule_knee(struct doc_report *r, const struct doc_svc_run *run,
                   const struct doc_svc_point *unused, int ti)
{
    (void)unused;
    if (run->npts < KNEE_MIN_POINTS) return;
    const struct doc_svc_point **v = malloc(run->npts * sizeof(*v));
    double *mu = malloc(run->npts * sizeof(*mu));
    if (!v || !mu) goto out;
    size_t nr = 0, nc = 0;
    for (size_t i = 0; i < run->npts; i++) {
        nr += !isnan(run->pts[i].rate) && run->pts[i].rate > 0;
        nc += !isnan(run->pts[i].concurrency) && run->pts[i].concurrency > 0;
    }
    bool open = nr >= nc;
    size_t n = 0;
    for (size_t i = 0; i < run->npts; i++) {
        const struct doc_svc_point *p = &run->pts[i];
        double l = load_of(p, open);
        /* a client-INVALID point says nothing about the server */
        if (isnan(l) || l <= 0 || p->invalid_client || !p->ok || isnan(p->lat_p50) ||
            isnan(p->lat_mean) || isnan(p->achieved_rps))
            continue;
        v[n++] = p;
    }
    if (n < KNEE_MIN_POINTS) goto out;
    qsort_r(v, n, sizeof(*v), by_load, &open);
    const struct doc_svc_point *lo = v[0];
    if (lo->ok < KNEE_MIN_REQS || lo->lat_p50 <= 0) goto out;
    double svc = lo->lat_p50;
    const struct doc_svc_point *last_ok = NULL, *dep = NULL;
    double xdep = 0; /* closed loop: the highest throughput once queueing */
    size_t nmu = 0;
    for (size_t i = 1; i < n; i++) {
        const struct doc_svc_point *p = v[i];
        bool departed = p->lat_p50 > KNEE_RATIO * svc && p->lat_p50 - svc >= KNEE_MIN_MS;
        if (!departed) {
            if (!dep) last_ok = p;
            continue;
        }
        if (!dep) dep = p;
        if (!open && p->achieved_rps > xdep) xdep = p->achieved_rps;
        double d_ms = isnan(p->duration_s) ? NAN : p->duration_s * 1e3;
        if (open && !isnan(d_ms) && d_ms > 0 && p->lat_mean - svc >= KNEE_OVERLOAD * d_ms)
            mu[nmu++] = p->rate / (1.0 + 2.0 * (p->lat_mean - svc) / d_ms);
    }
    if (!dep) goto out; /* latency stayed at the service time: no knee in this sweep */
    if (!last_ok) last_ok = lo;
    double cap = NAN;
    if (!open)
        cap = xdep;
    else if (nmu) {
        qsort(mu, nmu, sizeof(*mu), lat_cmp_f64);
        cap = lat_median_f64(mu, nmu);
    }
    double workers = isnan(cap) ? NAN : cap * svc / 1e3;
    const char *unit = open ? "req/s" : "concurrent";
    struct doc_finding *f = doc_finding_add(r, "queueing-knee", ti);
    if (!f) goto out;
    char capb[200];
    if (!isnan(cap))
        snprintf(capb, sizeof(capb),
                 "; capacity %.1f req/s, so about %.1f requests in service at once (capacity x "
                 "service time)",
                 cap, workers);
    else
        snprintf(capb, sizeof(capb), "; no point was overloaded long enough to give the capacity");
    doc_set(r, &f->title,
            "the median latency leaves the %.2f ms service time between %.4g and %.4g %s "
            "(%.2f ms at %.4g)%s",
            svc, load_of(last_ok, open), load_of(dep, open), unit, dep->lat_p50, load_of(dep, open),
            capb);
    doc_kv_str(r, f, "sweep", open ? "rate" : "concurrency");
    doc_kv_num(r, f, "service_time_ms", svc);
    doc_kv_num(r, f, "service_time_at", load_of(lo, open));
    doc_kv_num(r, f, "last_load_near_service_time", load_of(last_ok, open));
    doc_kv_num(r, f, "knee_load", load_of(dep, open));
    doc_kv_num(r, f, "knee_latency_p50_ms", dep->lat_p50);
    doc_kv_num(r, f, "knee_achieved_rps", dep->achieved_rps);
    /* Little's law: requests in the system = throughput x mean time in it */
    doc_kv_num(r, f, "knee_in_flight", dep->achieved_rps * dep->lat_mean / 1e3);
    if (!isnan(cap)) {
        doc_kv_num(r, f, "capacity_rps", cap);
        doc_kv_str(r, f, "capacity_from",
                   open ? "overloaded points: mean latency = service time + (rate / capacity - "
                          "1) x duration / 2"
                        : "the highest throughput once latency departed");
        doc_kv_num(r, f, "implied_workers", workers);
    }
    bool slo = run->fm_slo && *run->fm_slo && !isnan(run->fm_max_rate);
    if (slo) {
        doc_kv_str(r, f, "slo", run->fm_slo);
        doc_kv_num(r, f, "slo_max_rate", run->fm_max_rate);
        if (!isnan(run->fm_lowest_failing_rate))
            doc_kv_num(r, f, "slo_lowest_failing_rate", run->fm_lowest_failing_rate);
        if (!isnan(cap) && cap > 0)
            doc_kv_num(r, f, "slo_max_utilisation_pct", 100.0 * fmin(run->fm_max_rate, cap) / cap);
    }
    doc_kv_int(r, f, "points", (int64_t)n);
    f->severity = DOC_SEV_INFO; /* a capacity model, not a defect */
    doc_set(r, &f->saving_method,
            "none: this is where queueing starts, not time the server wastes");
    doc_set(r, &f->recommendation,
            "keep the production load below the knee for latency near the service time%s; to "
            "move the knee, add workers (threads, processes, replicas, batch slots) or cut the "
            "service time: capacity = workers / service time",
            slo ? " and below the SLO's limit" : "");
    if (slo)
        doc_set(r, &f->next_step,
                "after a change, run the same latscope bench --find-max --slo '%s' and compare "
                "max_rate (latscope diff OLD.json NEW.json)",
                run->fm_slo);
    else
        doc_set(r, &f->next_step,
                "latscope bench --find-max --slo 'p99<=LIMITms' ... for the highest rate that "
                "meets your SLO");
out:
    free(v);
    free(mu);
}
