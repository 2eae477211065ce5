/*
 * rule-service-server-code.c - slow-request-code: bench --server-pid sampled the server while
 * the load ran and compared the samples inside the slow requests' windows (above p99, or an SLO)
 * with those inside the fast ones' (below p50). When a function's share of the slow requests'
 * samples is larger with its whole interval above SC_MIN_LO points, the finding names the
 * function with the largest change, or the deepest function (mean stack depth in the slow
 * requests' samples) whose change is at least SC_NEAR of it: the code the slow requests spent
 * their extra time in, not the framework's caller of it.
 * Evidence: both shares, the change and its interval, the two sides' requests, samples, mean
 * latency and server CPU per request, the share of ambiguous samples (in more than one
 * request's window). A profile with no comparison (too few requests, no slow request) is an info
 * note saying why, not silence. docs/latscope-doctor.md, docs/latscope-bench-server-profile.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define SC_MIN_LO     1.0  /* points: the interval's low end above this */
#define SC_MEDIUM_PTS 10.0 /* a change of this many points or more: medium severity */
#define SC_NEAR       0.8  /* "nearly as large": this share of the largest change */

/* A change whose whole interval lies above SC_MIN_LO points. */
static bool significant(const struct doc_svc_func *c)
{
    return !isnan(c->change) && !isnan(c->lo) && c->lo > SC_MIN_LO;
}

void svc_rule_server_code(struct doc_report *r, const struct doc_svc_run *run,
                          const struct doc_svc_point *p, int ti)
{
    (void)p;
    const struct doc_svc_srvprof *s = run->srv;
    if (!s || !s->present) return;
    if (strcmp(s->comparison, "ok") != 0) { /* sampled, and yet nothing to judge: say why */
        struct doc_finding *f = doc_finding_add(r, "slow-request-code", ti);
        if (!f) return;
        doc_set(r, &f->title,
                "the server was sampled (bench --server-pid) but its slow and fast requests were "
                "not compared: %s",
                s->comparison[0] ? s->comparison : "no comparison in the result");
        doc_kv_str(r, f, "comparison", s->comparison);
        doc_kv_int(r, f, "slow_requests", (int64_t)s->slow_requests);
        doc_kv_int(r, f, "fast_requests", (int64_t)s->fast_requests);
        if (s->pid >= 0) doc_kv_int(r, f, "server_pid", s->pid);
        f->severity = DOC_SEV_INFO; /* no evidence either way: not a finding about the server */
        doc_set(r, &f->saving_method, "not estimated: nothing was compared");
        doc_set(r, &f->recommendation,
                "run the point longer (more requests above the slow threshold), or set the slow "
                "threshold with --server-slow (a latency, or a percentile such as p90)");
        doc_set(r, &f->next_step,
                "latscope bench --server-pid %lld --server-slow p90 --duration 60s URL",
                (long long)(s->pid >= 0 ? s->pid : 0));
        return;
    }
    /* The largest significant change first; then, of the functions whose change is nearly as
     * large (an inclusive share: the callers of the slow code gain as much as it does, a web
     * framework's route handler as much as the user's handler under it), the deepest one. */
    const struct doc_svc_func *top = NULL, *best = NULL;
    for (size_t i = 0; i < s->nfuncs; i++) {
        const struct doc_svc_func *c = &s->funcs[i];
        if (significant(c) && (!top || c->change > top->change)) top = c;
    }
    if (!top) return;
    for (size_t i = 0; i < s->nfuncs; i++) {
        const struct doc_svc_func *c = &s->funcs[i];
        if (!significant(c) || c->change < SC_NEAR * top->change) continue;
        if (!best || (!isnan(c->depth) && (isnan(best->depth) || c->depth > best->depth))) best = c;
    }
    struct doc_finding *f = doc_finding_add(r, "slow-request-code", ti);
    if (!f) return;
    const char *rule = s->slow_rule[0] ? s->slow_rule : "p99";
    doc_set(r, &f->title,
            "the slow requests (%s, above %.1f ms) spent %.1f %% of their server samples in %s, "
            "against %.1f %% in the fast ones (below p50, %.1f ms): +%.1f points [%.1f, %.1f]",
            rule, s->slow_ms, best->pct_slow, best->name, best->pct_fast, s->fast_ms, best->change,
            best->lo, best->hi);
    doc_kv_str(r, f, "function", best->name);
    doc_kv_num(r, f, "share_slow_pct", best->pct_slow);
    doc_kv_num(r, f, "share_fast_pct", best->pct_fast);
    doc_kv_num(r, f, "change_points", best->change);
    doc_kv_num(r, f, "ci_lo_points", best->lo);
    doc_kv_num(r, f, "ci_hi_points", best->hi);
    if (!isnan(best->depth)) doc_kv_num(r, f, "mean_depth_slow", best->depth);
    if (best != top) {
        doc_kv_str(r, f, "largest_change_function", top->name);
        doc_kv_num(r, f, "largest_change_points", top->change);
    }
    doc_kv_str(r, f, "slow_rule", rule);
    doc_kv_num(r, f, "slow_threshold_ms", s->slow_ms);
    doc_kv_num(r, f, "fast_threshold_ms", s->fast_ms);
    doc_kv_int(r, f, "slow_requests", (int64_t)s->slow_requests);
    doc_kv_int(r, f, "fast_requests", (int64_t)s->fast_requests);
    doc_kv_int(r, f, "slow_samples", (int64_t)s->slow_samples);
    doc_kv_int(r, f, "fast_samples", (int64_t)s->fast_samples);
    if (!isnan(s->slow_lat_ms)) doc_kv_num(r, f, "slow_latency_mean_ms", s->slow_lat_ms);
    if (!isnan(s->fast_lat_ms)) doc_kv_num(r, f, "fast_latency_mean_ms", s->fast_lat_ms);
    if (!isnan(s->slow_cpu_ms)) doc_kv_num(r, f, "slow_server_cpu_ms", s->slow_cpu_ms);
    if (!isnan(s->fast_cpu_ms)) doc_kv_num(r, f, "fast_server_cpu_ms", s->fast_cpu_ms);
    if (!isnan(s->ambiguous_pct)) doc_kv_num(r, f, "ambiguous_samples_pct", s->ambiguous_pct);
    if (s->pid >= 0) doc_kv_int(r, f, "server_pid", s->pid);
    f->severity = best->change >= SC_MEDIUM_PTS ? DOC_SEV_MEDIUM : DOC_SEV_LOW;
    if (!isnan(s->slow_lat_ms) && !isnan(s->fast_lat_ms) && s->slow_lat_ms > s->fast_lat_ms)
        doc_set(r, &f->saving_method,
                "not estimated: the slow requests took %.1f ms more than the fast ones on "
                "average; the samples say where the server's threads were during them, not how "
                "much of that time a change to %s would give back",
                s->slow_lat_ms - s->fast_lat_ms, best->name);
    else
        doc_set(r, &f->saving_method,
                "not estimated: the samples say where the server's threads were during the slow "
                "requests, not how much a change would give back");
    doc_set(r, &f->recommendation,
            "look at %s first: what makes it run in the slow requests and not in the fast ones "
            "(an input size, a cache miss, a lock, a fallback path); a share that grows with "
            "little server CPU per request points at waiting (a lock or I/O) rather than work",
            best->name);
    doc_set(r, &f->next_step,
            "latscope report RESULT.json (the slow-vs-fast table); latscope trace --cpu --pid %lld "
            "-o server.json for the whole server profile",
            (long long)(s->pid >= 0 ? s->pid : 0));
}
