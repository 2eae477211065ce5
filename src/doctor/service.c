/*
 * service.c - doctor's service rules (doctor/service.h): one function per rule, one row per
 * rule in svc_rules[], run in that order on every load point of a bench result. Thresholds
 * and evidence: docs/latscope-doctor.md, "Service rules".
 */
#include "doctor/service.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/grow.h"
#include "doctor/finding.h"

/* nagle-delayed-ack: p50 latency - p50 first byte within [QUANTUM - lo, QUANTUM + hi] ms (the
 * delayed-ACK timer fires on a jiffy tick: Linux's 40 ms is seen as 40..48 ms at HZ=250), first
 * byte p50 at most NAGLE_TTFB_MAX ms, and at least NAGLE_MASS of the latency samples within
 * [QUANTUM - lo, QUANTUM + hi + NAGLE_TTFB_MAX] ms. */
static const struct {
    double q, lo, hi;
} nagle_quantum_ms[] = {{40.0, 5.0, 10.0}, {200.0, 10.0, 20.0}}; /* Linux TCP_ATO_MIN; others */
#define NAGLE_TTFB_MAX 5.0
#define NAGLE_MASS     0.5
/* client-limited: send lag p99 above this share of latency p99 (and above 1 ms) while no send
 * waited for the --max-inflight cap (then the lag is the server's queue, not the client's) and no
 * connect waited for a SYN retransmit (then it is the server's backlog: listen-backlog), or
 * the busiest client thread busy at least this %, or bench's invalid_client */
#define CLIENT_LAG_SHARE 0.5
#define CLIENT_LAG_MIN   1.0
#define CLIENT_BUSY_PCT  90.0
/* tail-amplification: p99 / p50 of latency at least TAIL_RATIO, p99 - p50 at least TAIL_MIN_MS
 * (a sub-millisecond tail is scheduling noise, not a server's problem), TAIL_MIN_REQS requests */
#define TAIL_RATIO    10.0
#define TAIL_MIN_MS   1.0
#define TAIL_MIN_REQS 1000

static const char *bench_next(const struct doc_svc_run *run, char *b, size_t n)
{
    snprintf(b, n,
             "latscope bench --records rec.jsonl --format json ... (the same run), then "
             "latscope doctor %s again",
             run->path);
    return b;
}

static void rule_nagle(struct doc_report *r, const struct doc_svc_run *run,
                       const struct doc_svc_point *p, int ti)
{
    if (!p->lat_hist || isnan(p->lat_p50) || isnan(p->ttfb_p50)) return;
    /* an LLM stream's time after its first byte (the headers) is its prefill and decode;
     * its held streams are llm-burst-streams' */
    if (p->llm || p->ttfb_p50 > NAGLE_TTFB_MAX) return;
    double gap = p->lat_p50 - p->ttfb_p50;
    uint64_t total = hist_count(p->lat_hist);
    if (!total) return;
    for (size_t q = 0; q < sizeof(nagle_quantum_ms) / sizeof(nagle_quantum_ms[0]); q++) {
        double qm = nagle_quantum_ms[q].q, tlo = nagle_quantum_ms[q].lo,
               thi = nagle_quantum_ms[q].hi;
        if (gap < qm - tlo || gap > qm + thi) continue;
        int64_t lo = (int64_t)((qm - tlo) * 1e6), hi = (int64_t)((qm + thi + NAGLE_TTFB_MAX) * 1e6);
        uint64_t below = hist_count_at_or_below(p->lat_hist, lo - 1);
        uint64_t upto = hist_count_at_or_below(p->lat_hist, hi);
        double mass = upto > below ? (double)(upto - below) / (double)total : 0.0;
        if (mass < NAGLE_MASS) continue;
        struct doc_finding *f = doc_finding_add(r, "nagle-delayed-ack", ti);
        if (!f) return;
        doc_set(r, &f->title,
                "%s: responses stall %.1f ms after their first byte, at the %.0f ms delayed-ACK "
                "quantum (Nagle's algorithm on the server plus the client's delayed ACK)",
                p->load, gap, qm);
        doc_kv_str(r, f, "load", p->load);
        doc_kv_num(r, f, "latency_p50_ms", p->lat_p50);
        doc_kv_num(r, f, "first_byte_p50_ms", p->ttfb_p50);
        doc_kv_num(r, f, "after_first_byte_p50_ms", gap);
        doc_kv_num(r, f, "delayed_ack_quantum_ms", qm);
        char key[64];
        snprintf(key, sizeof(key), "latency_in_%.0f_%.0f_ms_pct", qm - tlo,
                 qm + thi + NAGLE_TTFB_MAX);
        doc_kv_num(r, f, key, 100.0 * mass);
        doc_kv_int(r, f, "requests", (int64_t)p->ok);
        doc_saving(f, (lat_ns)(gap * 1e6), (lat_ns)(p->lat_p50 * 1e6));
        doc_set(r, &f->saving_method,
                "the median request's time after its first byte (p50 latency - p50 first byte), "
                "per request and as %% of the p50 latency: the stall the fix removes is at most "
                "that");
        doc_set(r, &f->recommendation,
                "set TCP_NODELAY on the server's accepted sockets, or write the response headers "
                "and body in one send (one buffered write); then run the same bench again and "
                "compare with latscope diff");
        char nb[512];
        doc_set(r, &f->next_step, "%s", bench_next(run, nb, sizeof(nb)));
        return;
    }
}

static void rule_client(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti)
{
    bool lag = !isnan(p->send_lag_p99) && !isnan(p->lat_p99) && p->send_lag_p99 > CLIENT_LAG_MIN &&
               p->send_lag_p99 > CLIENT_LAG_SHARE * p->lat_p99 && p->inflight_cap_hits == 0 &&
               p->slow_connects <= 0;
    bool busy = !isnan(p->max_thread_busy_pct) && p->max_thread_busy_pct >= CLIENT_BUSY_PCT;
    if (!lag && !busy && !p->invalid_client) return;
    struct doc_finding *f = doc_finding_add(r, "client-limited", ti);
    if (!f) return;
    doc_set(r, &f->title,
            "%s: the load generator, not the server, bounded this point (%s): its latency and "
            "throughput say nothing about the server's limit",
            p->load,
            p->invalid_client ? "bench marked it INVALID: the client could not keep up"
            : busy            ? "a client thread was busy nearly all the time"
                              : "requests left late against their schedule");
    doc_kv_str(r, f, "load", p->load);
    if (!isnan(p->send_lag_p99)) doc_kv_num(r, f, "send_lag_p99_ms", p->send_lag_p99);
    if (!isnan(p->lat_p99)) doc_kv_num(r, f, "latency_p99_ms", p->lat_p99);
    if (!isnan(p->max_thread_busy_pct))
        doc_kv_num(r, f, "max_client_thread_busy_pct", p->max_thread_busy_pct);
    if (!isnan(p->client_cpu_pct)) doc_kv_num(r, f, "client_cpu_pct", p->client_cpu_pct);
    if (run->threads) doc_kv_int(r, f, "client_threads", run->threads);
    doc_kv_bool(r, f, "invalid_client", p->invalid_client);
    if (p->inflight_cap_hits >= 0) doc_kv_int(r, f, "inflight_cap_hits", p->inflight_cap_hits);
    if (p->why && *p->why) doc_kv_str(r, f, "invalid_reason", p->why);
    f->severity = DOC_SEV_MEDIUM; /* no saving: the server's numbers are not known */
    doc_set(r, &f->saving_method, "not estimated: the run did not measure the server's limit");
    doc_set(r, &f->recommendation,
            "give the client more threads (-t) or machines (latscope bench under mpirun), or a "
            "lower load, until send lag stays small and no client thread is saturated");
    doc_set(r, &f->next_step, "latscope bench -t N ... with N above %u, then latscope doctor again",
            run->threads ? run->threads : 1);
}

static void rule_tail(struct doc_report *r, const struct doc_svc_run *run,
                      const struct doc_svc_point *p, int ti)
{
    (void)run;
    if (isnan(p->lat_p50) || isnan(p->lat_p99) || p->lat_p50 <= 0 || p->ok < TAIL_MIN_REQS) return;
    double ratio = p->lat_p99 / p->lat_p50;
    if (ratio < TAIL_RATIO || p->lat_p99 - p->lat_p50 < TAIL_MIN_MS) return;
    struct doc_finding *f = doc_finding_add(r, "tail-amplification", ti);
    if (!f) return;
    doc_set(r, &f->title, "%s: p99 latency is %.1fx the median (%.2f ms vs %.2f ms)", p->load,
            ratio, p->lat_p99, p->lat_p50);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_num(r, f, "latency_p50_ms", p->lat_p50);
    doc_kv_num(r, f, "latency_p99_ms", p->lat_p99);
    doc_kv_num(r, f, "p99_over_p50", ratio);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    f->severity = DOC_SEV_LOW;
    doc_set(r, &f->saving_method,
            "not estimated: the cause of the slow 1 %% is not in the summary (periodic stalls, "
            "queueing and warm-up need --records or --slice series)");
    doc_set(r, &f->recommendation,
            "look at when the slow requests happen: periodic (GC, timers), at the start "
            "(warm-up), or with load (queueing); fix that cause");
    doc_set(r, &f->next_step,
            "latscope bench --records rec.jsonl ... and look at latency over time of the "
            "requests above p99");
}

static const struct {
    const char *id;
    svc_rule_fn fn;
    bool run; /* judges the whole run once (p NULL), not each point */
} svc_rules[] = {
    {"listen-backlog", svc_rule_backlog, false},
    {"nagle-delayed-ack", rule_nagle, false},
    {"client-limited", rule_client, false},
    {"keepalive-churn", svc_rule_keepalive, false},
    {"warm-up", svc_rule_warmup, false},
    {"periodic-stalls", svc_rule_stalls, false},
    {"error-burst", svc_rule_error_burst, false},
    {"tail-amplification", rule_tail, false},
    {"queueing-knee", svc_rule_knee, true},
    {"slow-request-code", svc_rule_server_code, true},
    {"server-split", svc_rule_server_split, false},
    {"llm-ttft-growth", svc_rule_llm_ttft_growth, true},
    {"llm-burst-streams", svc_rule_llm_burst, false},
    {"llm-prefill-vs-decode", svc_rule_llm_phase, true},
    {"llm-isl-cut", svc_rule_llm_isl_cut, false},
};

int doctor_run_service(struct doc_report *r, const struct doc_svc_run *run)
{
    if (!r || !run) return LAT_E_USAGE;
    if (r->err) return r->err;
    int grc = LAT_GROW(r->traces, r->traces_cap, r->ntraces, 1, 4);
    if (grc) return grc;
    int ti = (int)r->ntraces;
    struct doc_summary *s = &r->traces[r->ntraces++];
    memset(s, 0, sizeof(*s));
    s->rank = -1;
    s->num_sms = s->compute_major = -1;
    s->format = "latscope bench result";
    s->service = true;
    s->judged = true;
    if (run->path && !(s->path = strdup(run->path))) return r->err = -ENOMEM;
    char line[4096];
    int off = snprintf(line, sizeof(line), "%s bench, %s loop, %zu load point%s%s", run->target,
                       run->mode, run->npts, run->npts == 1 ? "" : "s", run->npts ? ":" : "");
    for (size_t i = 0; i < run->npts && off > 0 && (size_t)off < sizeof(line); i++) {
        const struct doc_svc_point *p = &run->pts[i];
        off += snprintf(line + off, sizeof(line) - (size_t)off,
                        "\n%s: %" PRIu64 " requests, latency p50 %.3f ms p99 %.3f ms, first byte "
                        "p50 %.3f ms",
                        p->load, p->ok, p->lat_p50, p->lat_p99, p->ttfb_p50);
        if (p->llm && off > 0 && (size_t)off < sizeof(line))
            off +=
                snprintf(line + off, sizeof(line) - (size_t)off, ", TTFT p50 %.3f ms", p->ttft_p50);
        if (p->llm && !isnan(p->tpot_p50) && off > 0 && (size_t)off < sizeof(line))
            off +=
                snprintf(line + off, sizeof(line) - (size_t)off, ", TPOT p50 %.3f ms", p->tpot_p50);
        if (!p->valid && off > 0 && (size_t)off < sizeof(line))
            off += snprintf(line + off, sizeof(line) - (size_t)off, " (INVALID)");
    }
    if (!(s->what = strdup(line))) return r->err = -ENOMEM;
    for (size_t k = 0; k < sizeof(svc_rules) / sizeof(svc_rules[0]); k++) {
        if (svc_rules[k].run) {
            svc_rules[k].fn(r, run, NULL, ti);
            continue;
        }
        for (size_t i = 0; i < run->npts; i++)
            svc_rules[k].fn(r, run, &run->pts[i], ti);
    }
    return r->err;
}
