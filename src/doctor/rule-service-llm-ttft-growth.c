/*
 * rule-service-llm-ttft-growth.c - llm-ttft-growth: over the points of one LLM run that sweep
 * the load (closed-loop concurrencies -c 1,4,... or open-loop rates -r R1,R2,...), the time to
 * first token grew with the load far more than the time per output token: requests waited
 * before their prefill (the scheduler's queue: every batch slot or the KV cache taken), while
 * decoding, once admitted, kept its pace. Evidence and thresholds: docs/latscope-doctor.md,
 * "Service rules".
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define TTFT_GROWTH_RATIO  3.0 /* TTFT p50 at the highest load at least this x the lowest's */
#define TTFT_GROWTH_MIN_MS 5.0 /* ... and at least this much above it */
#define TPOT_GROWTH_MAX    1.5 /* while TPOT p50 grew less than this x */
#define TTFT_GROWTH_REQS   4   /* requests of each end point */

static double load_of(const struct doc_svc_point *p, bool open)
{
    return open ? p->rate : p->concurrency;
}

static bool usable(const struct doc_svc_point *p, bool open)
{
    double l = load_of(p, open);
    /* a client-INVALID point says nothing about the server, a bursty one's TTFT is buffering */
    return p->llm && !svc_llm_bursty(p) && !isnan(l) && l > 0 && !p->invalid_client &&
           p->ok >= TTFT_GROWTH_REQS && !isnan(p->ttft_p50) && p->ttft_p50 > 0 &&
           !isnan(p->tpot_p50) && p->tpot_p50 > 0;
}

void svc_rule_llm_ttft_growth(struct doc_report *r, const struct doc_svc_run *run,
                              const struct doc_svc_point *unused, int ti)
{
    (void)unused;
    size_t nr = 0, nc = 0;
    for (size_t i = 0; i < run->npts; i++) {
        nr += !isnan(run->pts[i].rate) && run->pts[i].rate > 0;
        nc += !isnan(run->pts[i].concurrency) && run->pts[i].concurrency > 0;
    }
    bool open = nr >= nc;
    const struct doc_svc_point *lo = NULL, *hi = NULL;
    size_t n = 0;
    for (size_t i = 0; i < run->npts; i++) {
        const struct doc_svc_point *p = &run->pts[i];
        if (!usable(p, open)) continue;
        n++;
        if (!lo || load_of(p, open) < load_of(lo, open)) lo = p;
        if (!hi || load_of(p, open) > load_of(hi, open)) hi = p;
    }
    if (n < 2 || load_of(hi, open) <= load_of(lo, open)) return;
    double tr = hi->ttft_p50 / lo->ttft_p50, pr = hi->tpot_p50 / lo->tpot_p50;
    double wait = hi->ttft_p50 - lo->ttft_p50;
    if (tr < TTFT_GROWTH_RATIO || wait < TTFT_GROWTH_MIN_MS || pr >= TPOT_GROWTH_MAX) return;
    struct doc_finding *f = doc_finding_add(r, "llm-ttft-growth", ti);
    if (!f) return;
    const char *unit = open ? "req/s" : "concurrent";
    doc_set(r, &f->title,
            "time to first token grows %.1fx from %.4g to %.4g %s (p50 %.2f -> %.2f ms) while "
            "time per output token grows %.2fx (%.3f -> %.3f ms): requests wait in the "
            "server's queue before their prefill",
            tr, load_of(lo, open), load_of(hi, open), unit, lo->ttft_p50, hi->ttft_p50, pr,
            lo->tpot_p50, hi->tpot_p50);
    doc_kv_str(r, f, "sweep", open ? "rate" : "concurrency");
    doc_kv_num(r, f, "low_load", load_of(lo, open));
    doc_kv_num(r, f, "high_load", load_of(hi, open));
    doc_kv_num(r, f, "ttft_p50_low_ms", lo->ttft_p50);
    doc_kv_num(r, f, "ttft_p50_high_ms", hi->ttft_p50);
    doc_kv_num(r, f, "ttft_growth", tr);
    doc_kv_num(r, f, "tpot_p50_low_ms", lo->tpot_p50);
    doc_kv_num(r, f, "tpot_p50_high_ms", hi->tpot_p50);
    doc_kv_num(r, f, "tpot_growth", pr);
    doc_kv_num(r, f, "queue_wait_p50_ms", wait);
    if (!isnan(hi->e2e_p50)) doc_kv_num(r, f, "e2e_p50_high_ms", hi->e2e_p50);
    doc_kv_int(r, f, "points", (int64_t)n);
    /* The wait is TTFT's growth over the lowest load's (whose TTFT is prefill with no queue):
     * enough batch slots give back at most that, per request, out of the high load's E2E. */
    double tot = !isnan(hi->e2e_p50) && hi->e2e_p50 > 0 ? hi->e2e_p50 : hi->ttft_p50;
    doc_saving(f, (lat_ns)(wait * 1e6), (lat_ns)(tot * 1e6));
    doc_set(r, &f->saving_method,
            "at most the median TTFT's growth over the lowest load's (the wait before prefill), "
            "per request and as %% of the highest load's median %s",
            tot == hi->e2e_p50 ? "E2E" : "TTFT");
    doc_set(r, &f->recommendation,
            "give the server more concurrent sequences (vLLM --max-num-seqs, SGLang "
            "--max-running-requests, TGI --max-batch-size, llama-server --parallel) and the KV "
            "cache to hold them (--gpu-memory-utilization, a smaller --max-model-len), turn on "
            "chunked prefill so long prompts do not hold admission, or add replicas");
    doc_set(r, &f->next_step,
            "after the change, run the same latscope bench sweep and compare (latscope diff %s "
            "NEW.json): TTFT at the highest load must fall toward the lowest load's",
            run->path ? run->path : "OLD.json");
}
