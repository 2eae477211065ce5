/*
 * rule-service-keepalive.c - keepalive-churn: the server closed kept-alive connections (it
 * advertised keep-alive, then closed), so requests went out again on a fresh connection (bench's
 * stale_retries: each is one connection the server closed under the client). Evidence: the
 * count and the requests per closed connection. A server that says "Connection: close" is not
 * counted (the client never reuses such a connection). docs/latscope-doctor.md.
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define KA_MIN_RETRIES 5    /* re-sent requests that make the finding */
#define KA_MIN_SHARE   0.01 /* ... and at least this share of the requests */

void svc_rule_keepalive(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti)
{
    (void)run;
    if (p->stale_retries < KA_MIN_RETRIES || !p->ok) return;
    double share = (double)p->stale_retries / (double)p->ok;
    if (share < KA_MIN_SHARE) return;
    double per_conn = (double)p->ok / (double)p->stale_retries;
    struct doc_finding *f = doc_finding_add(r, "keepalive-churn", ti);
    if (!f) return;
    doc_set(r, &f->title,
            "%s: the server closed kept-alive connections %lld times (one per %.1f requests): "
            "%.1f %% of the requests went out again on a new connection",
            p->load, (long long)p->stale_retries, per_conn, 100.0 * share);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "stale_retries", p->stale_retries);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    doc_kv_num(r, f, "requests_per_closed_connection", per_conn);
    doc_kv_num(r, f, "resent_pct", 100.0 * share);
    if (p->err_reset >= 0) doc_kv_int(r, f, "reset_errors", p->err_reset);
    f->severity = share >= 0.1 ? DOC_SEV_MEDIUM : DOC_SEV_LOW;
    doc_set(r, &f->saving_method,
            "not estimated: each re-sent request paid a new connect (and the server a new "
            "accept) that the run does not time apart");
    doc_set(r, &f->recommendation,
            "let the server keep connections for more requests (its keep-alive request limit "
            "and idle timeout: nginx keepalive_requests, gunicorn --keep-alive, uvicorn "
            "--timeout-keep-alive), or have it send \"Connection: close\" on the response it "
            "closes after, so no client writes into a closed connection");
    doc_set(r, &f->next_step,
            "latscope bench --records rec.jsonl ... (the same run): the re-sent requests' "
            "latency; after the fix stale_retries in the bench JSON must be 0");
}
