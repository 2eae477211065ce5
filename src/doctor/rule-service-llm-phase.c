/*
 * rule-service-llm-phase.c - llm-prefill-vs-decode: which phase of an LLM request takes its
 * end-to-end time, at the run's highest-throughput valid point: the time to first token
 * (queueing + prefill) against the decode, (output tokens - 1) x time per output token. One
 * finding per run, a description with the advice for the phase that dominates, not a fault.
 * A point whose streams came in bursts (llm-burst-streams) is not judged: its TTFT is the
 * buffering.
 * Evidence and thresholds: docs/latscope-doctor.md, "Service rules".
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define PHASE_PREFILL_SHARE 0.5 /* TTFT at least this share of TTFT + decode: prefill-bound */
#define PHASE_QUEUE_SHARE                                                                          \
    0.5                      /* ... and TTFT above the run's lowest at least this share of it:     \
                              * the time is queueing before the prefill */
#define PHASE_MIN_REQS   4   /* requests of the point judged */
#define PHASE_MIN_TOKENS 2.0 /* output tokens per request (one token has no decode) */

static double rank_of(const struct doc_svc_point *p)
{
    return !isnan(p->out_tok_s) ? p->out_tok_s : p->achieved_rps;
}

void svc_rule_llm_phase(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *unused, int ti)
{
    (void)unused;
    const struct doc_svc_point *b = NULL;
    for (size_t i = 0; i < run->npts; i++) {
        const struct doc_svc_point *p = &run->pts[i];
        if (!p->llm || !p->valid || svc_llm_bursty(p) || p->ok < PHASE_MIN_REQS ||
            isnan(p->ttft_mean) || isnan(p->tpot_mean) || isnan(p->out_tok_per_req) ||
            p->ttft_mean < 0 || p->tpot_mean < 0 || p->out_tok_per_req < PHASE_MIN_TOKENS ||
            isnan(rank_of(p)))
            continue;
        if (!b || rank_of(p) > rank_of(b)) b = p;
    }
    if (!b) return;
    double prefill = b->ttft_mean, decode = (b->out_tok_per_req - 1.0) * b->tpot_mean;
    if (prefill + decode <= 0) return;
    double share = prefill / (prefill + decode);
    bool pf = share >= PHASE_PREFILL_SHARE;
    /* The lowest TTFT of the run's other LLM points (a lower load's): TTFT above it at the
     * point judged is queueing before the prefill, not the prefill. */
    double ttft_min = NAN;
    for (size_t i = 0; i < run->npts; i++) {
        const struct doc_svc_point *p = &run->pts[i];
        if (p != b && p->llm && p->ok >= PHASE_MIN_REQS && !isnan(p->ttft_mean) &&
            p->ttft_mean >= 0 && (isnan(ttft_min) || p->ttft_mean < ttft_min))
            ttft_min = p->ttft_mean;
    }
    double queue = !isnan(ttft_min) && ttft_min < prefill ? prefill - ttft_min : 0;
    bool queued = pf && queue >= PHASE_QUEUE_SHARE * prefill;
    const char *bound = !pf ? "decode" : queued ? "queueing" : "prefill";
    struct doc_finding *f = doc_finding_add(r, "llm-prefill-vs-decode", ti);
    if (!f) return;
    doc_set(r, &f->title,
            "%s (the highest throughput): %s-bound: time to first token %.2f ms (mean, queueing "
            "+ prefill) is %.0f %% of TTFT + decode, decode %.2f ms (%.1f output tokens x "
            "%.3f ms per token after the first)",
            b->load, bound, prefill, 100.0 * share, decode, b->out_tok_per_req, b->tpot_mean);
    doc_kv_str(r, f, "load", b->load);
    doc_kv_str(r, f, "bound", bound);
    if (!isnan(ttft_min)) doc_kv_num(r, f, "ttft_mean_lowest_ms", ttft_min);
    doc_kv_num(r, f, "ttft_queueing_ms", queue);
    doc_kv_num(r, f, "ttft_mean_ms", prefill);
    doc_kv_num(r, f, "tpot_mean_ms", b->tpot_mean);
    doc_kv_num(r, f, "output_tokens_per_request", b->out_tok_per_req);
    if (!isnan(b->input_tokens_mean)) doc_kv_num(r, f, "input_tokens_mean", b->input_tokens_mean);
    doc_kv_num(r, f, "decode_ms", decode);
    doc_kv_num(r, f, "prefill_share_pct", 100.0 * share);
    if (!isnan(b->e2e_mean)) doc_kv_num(r, f, "e2e_mean_ms", b->e2e_mean);
    if (!isnan(b->out_tok_s)) doc_kv_num(r, f, "output_tokens_per_s", b->out_tok_s);
    doc_kv_num(r, f, "prefill_share_threshold_pct", 100.0 * PHASE_PREFILL_SHARE);
    /* a description, not a fault: no saving. Decode-bound is how LLM serving normally spends
     * its time: a note (info, no change to doctor's exit status), as queueing-knee */
    f->severity = pf ? DOC_SEV_MEDIUM : DOC_SEV_INFO;
    doc_set(r, &f->saving_method,
            "none: which phase takes the time, not time wasted (llm-ttft-growth gives the share "
            "of TTFT that is queueing, when the run sweeps the load)");
    if (queued)
        doc_set(r, &f->recommendation,
                "the time to first token is mostly waiting for admission (%.2f ms above the "
                "run's lowest TTFT, %.2f ms): give the server more concurrent sequences and KV "
                "cache, or more replicas (llm-ttft-growth); then judge prefill against decode "
                "again",
                queue, ttft_min);
    else if (pf)
        doc_set(r, &f->recommendation,
                "cut the prefill: a prefix cache for shared prompt heads (vLLM "
                "--enable-prefix-caching, SGLang's radix cache), shorter prompts (system "
                "prompt, retrieved context), chunked prefill so a long prompt does not stall "
                "the others (vLLM --enable-chunked-prefill); if TTFT grows with the load, the "
                "time is queueing: more batch slots or replicas");
    else
        doc_set(r, &f->recommendation,
                "cut the time per token: speculative decoding (a draft model or n-gram "
                "lookup), a quantized model (FP8, AWQ, GPTQ) or KV cache, tensor parallelism "
                "for a memory-bound model; for throughput, larger batches (more concurrent "
                "sequences) at the cost of TPOT");
    doc_set(r, &f->next_step,
            "after the change, run the same latscope bench and compare ttft and tpot (latscope "
            "diff %s NEW.json)",
            run->path ? run->path : "OLD.json");
}
