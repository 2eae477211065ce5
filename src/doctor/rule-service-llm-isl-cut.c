/*
 * rule-service-llm-isl-cut.c - llm-isl-cut: the load asked for is not the one served: the server
 * counted far fewer prompt tokens than were sent (bench's isl_short: it cut the context and
 * answered anyway), or most requests got an output token count other than the max_tokens sent
 * (bench's osl_mismatch: stopped early at an EOS, or a server that ignores min_tokens /
 * ignore_eos). Evidence and thresholds: docs/latscope-doctor.md, "Service rules".
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define ISL_CUT_MIN_SHARE 0.1 /* prompts cut: at least this share of the ok requests */
#define OSL_CUT_MIN_SHARE 0.5 /* output != max_tokens: more than this share ("most") */

void svc_rule_llm_isl_cut(struct doc_report *r, const struct doc_svc_run *run,
                          const struct doc_svc_point *p, int ti)
{
    (void)run;
    if (!p->llm || !p->ok) return;
    double isl = p->isl_short > 0 ? (double)p->isl_short / (double)p->ok : 0;
    double osl = p->osl_mismatch > 0 ? (double)p->osl_mismatch / (double)p->ok : 0;
    bool cut = isl >= ISL_CUT_MIN_SHARE, shortout = osl > OSL_CUT_MIN_SHARE;
    if (!cut && !shortout) return;
    struct doc_finding *f = doc_finding_add(r, "llm-isl-cut", ti);
    if (!f) return;
    char ib[200] = "", ob[160] = "";
    if (cut && !isnan(p->isl_usage_mean) && !isnan(p->isl_sent_mean))
        snprintf(ib, sizeof(ib),
                 "the server counted %.1f prompt tokens (mean) where %.1f were sent in %lld of "
                 "%llu requests",
                 p->isl_usage_mean, p->isl_sent_mean, (long long)p->isl_short,
                 (unsigned long long)p->ok);
    else if (cut)
        snprintf(ib, sizeof(ib),
                 "the server counted fewer prompt tokens than were sent in %lld "
                 "of %llu requests",
                 (long long)p->isl_short, (unsigned long long)p->ok);
    if (shortout) {
        int o = snprintf(ob, sizeof(ob),
                         "%s%lld of %llu requests got another output length "
                         "than the max_tokens sent",
                         cut ? "; " : "", (long long)p->osl_mismatch, (unsigned long long)p->ok);
        if (o > 0 && (size_t)o < sizeof(ob) && !isnan(p->out_tok_per_req))
            snprintf(ob + o, sizeof(ob) - (size_t)o, " (%.1f tokens per request)",
                     p->out_tok_per_req);
    }
    doc_set(r, &f->title, "%s: the load measured is not the one asked for: %s%s", p->load, ib, ob);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    if (p->isl_short >= 0) doc_kv_int(r, f, "isl_short_requests", p->isl_short);
    if (!isnan(p->isl_usage_mean)) doc_kv_num(r, f, "isl_server_mean", p->isl_usage_mean);
    if (!isnan(p->isl_sent_mean)) doc_kv_num(r, f, "isl_sent_mean", p->isl_sent_mean);
    if (p->osl_mismatch >= 0) doc_kv_int(r, f, "osl_mismatch_requests", p->osl_mismatch);
    if (!isnan(p->out_tok_per_req))
        doc_kv_num(r, f, "output_tokens_per_request", p->out_tok_per_req);
    f->severity = DOC_SEV_MEDIUM; /* the numbers are of a smaller load, not wrong by a known time */
    doc_set(r, &f->saving_method,
            "not estimated: the run measured shorter %s than asked for; its TTFT, E2E and "
            "throughput are of that lighter load",
            cut && shortout ? "prompts and answers"
            : cut           ? "prompts"
                            : "answers");
    if (cut && shortout)
        doc_set(r, &f->recommendation,
                "raise the server's context (llama-server -c, vLLM --max-model-len) or send "
                "prompts that fit it, and make it honour the output length (min_tokens and "
                "ignore_eos, which latscope sends; or bench --no-ignore-eos and accept the "
                "model's lengths)");
    else if (cut)
        doc_set(r, &f->recommendation,
                "raise the server's context (llama-server -c, vLLM --max-model-len) or send "
                "prompts that fit it: a cut prompt loses its head silently, in production too");
    else
        doc_set(r, &f->recommendation,
                "make the server honour the output length (min_tokens and ignore_eos, which "
                "latscope sends; vLLM and SGLang do, others need their own option), or bench "
                "--no-ignore-eos to measure the model's own lengths on purpose");
    doc_set(r, &f->next_step,
            "latscope bench --target openai --records-detail rec.jsonl ... (the same run): "
            "output_tokens and requested_tokens per request; with --tokenizer FILE bench "
            "counts each prompt to compare with usage.prompt_tokens");
}
