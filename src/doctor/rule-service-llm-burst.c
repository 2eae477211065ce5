/*
 * rule-service-llm-burst.c - llm-burst-streams: a share of a point's streams arrived in one
 * burst (bench's burst_streams: 4 or more content events within 1 ms, after a time to first
 * token more than 8 times that spread): something between the model and the client held the
 * stream back (a buffering proxy, or Nagle's algorithm on a server without TCP_NODELAY waiting
 * for the client's delayed ACK), so those streams' TTFT and ITL measure the buffering, not the
 * model. Evidence and thresholds: docs/latscope-doctor.md, "Service rules".
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define BURST_MIN_SHARE   0.1 /* burst streams at least this share of the ok streams */
#define BURST_MIN_STREAMS 2   /* ... and at least this many */

bool svc_llm_bursty(const struct doc_svc_point *p)
{
    return p->llm && p->ok && p->burst_streams >= BURST_MIN_STREAMS &&
           (double)p->burst_streams >= BURST_MIN_SHARE * (double)p->ok;
}

void svc_rule_llm_burst(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti)
{
    if (!svc_llm_bursty(p)) return;
    double share = (double)p->burst_streams / (double)p->ok;
    struct doc_finding *f = doc_finding_add(r, "llm-burst-streams", ti);
    if (!f) return;
    char t[64] = "a long wait for the first token";
    if (!isnan(p->burst_ttft_mean_ms))
        snprintf(t, sizeof(t), "a %.2f ms TTFT (mean)", p->burst_ttft_mean_ms);
    doc_set(r, &f->title,
            "%s: %lld of %llu streams (%.0f %%) arrived in one burst after %s: a buffering proxy "
            "or Nagle's algorithm held them, so their TTFT and ITL are not the model's",
            p->load, (long long)p->burst_streams, (unsigned long long)p->ok, 100.0 * share, t);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "burst_streams", p->burst_streams);
    doc_kv_int(r, f, "streams", (int64_t)p->ok);
    doc_kv_num(r, f, "burst_share_pct", 100.0 * share);
    if (!isnan(p->burst_ttft_mean_ms))
        doc_kv_num(r, f, "burst_ttft_mean_ms", p->burst_ttft_mean_ms);
    if (!isnan(p->ttft_p50)) doc_kv_num(r, f, "ttft_p50_ms", p->ttft_p50);
    if (!isnan(p->itl_p50)) doc_kv_num(r, f, "itl_p50_ms", p->itl_p50);
    if (!isnan(p->e2e_p50)) doc_kv_num(r, f, "e2e_p50_ms", p->e2e_p50);
    /* A burst stream's first token came at burst_ttft; streamed, it would have come no later
     * than that and after 0: the mean TTFT falls by at most share x burst_ttft. */
    if (!isnan(p->burst_ttft_mean_ms) && !isnan(p->ttft_mean) && p->ttft_mean > 0) {
        doc_saving(f, (lat_ns)(share * p->burst_ttft_mean_ms * 1e6), (lat_ns)(p->ttft_mean * 1e6));
        doc_set(r, &f->saving_method,
                "time to first token: at most the burst streams' share x their mean TTFT, per "
                "request and as %% of the mean TTFT (the end-to-end time does not change: the "
                "tokens were held, not made slower)");
    } else {
        f->severity = DOC_SEV_MEDIUM;
        doc_set(r, &f->saving_method, "not estimated: the result has no mean TTFT of the bursts");
    }
    if (f->severity < DOC_SEV_MEDIUM) f->severity = DOC_SEV_MEDIUM; /* the TTFT measured is wrong */
    doc_set(r, &f->recommendation,
            "set TCP_NODELAY on the server's sockets (llama-server of 2024 did not on keep-alive "
            "connections) and turn off response buffering in any proxy in front of it (nginx: "
            "proxy_buffering off, or the server sends X-Accel-Buffering: no; no gzip of "
            "text/event-stream)");
    doc_set(r, &f->next_step,
            "latscope bench --target openai --records-detail rec.jsonl ... (the same run): "
            "chunks_ms shows each stream's arrival; after the fix burst_streams in %s's JSON "
            "must be 0",
            run->path ? run->path : "the result");
}
