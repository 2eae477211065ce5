/*
 * rule-service-keepalive.c - keepalive-churn: the server closed its connections every few
 * requests: as it said (bench's server_closes: "Connection: close", HTTP/1.0) or without saying
 * so, after advertising keep-alive (stale_retries: the request went out again on a fresh
 * connection). Each is a new connect for the next request. Evidence: the counts and the requests
 * per connection. docs/latscope-doctor.md.
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define KA_MIN_CLOSES 5    /* closes by the server that make the finding */
#define KA_MIN_SHARE  0.01 /* ... and at least this share of the requests */

void svc_rule_keepalive(struct doc_report *r, const struct doc_svc_run *run,
                        const struct doc_svc_point *p, int ti)
{
    (void)run;
    int64_t stale = p->stale_retries > 0 ? p->stale_retries : 0,
            said = p->server_closes > 0 ? p->server_closes : 0, closes = stale + said;
    if (closes < KA_MIN_CLOSES || !p->ok) return;
    double share = (double)closes / (double)p->ok;
    if (share < KA_MIN_SHARE) return;
    double per_conn = (double)p->ok / (double)closes;
    struct doc_finding *f = doc_finding_add(r, "keepalive-churn", ti);
    if (!f) return;
    doc_set(r, &f->title,
            "%s: the server closed the connection %lld times (one per %.1f requests%s): %.1f %% "
            "of the requests paid a new connect",
            p->load, (long long)closes, per_conn,
            said && stale ? "; some without saying so"
            : stale       ? ", without saying so: kept-alive connections it had advertised"
                          : ", with \"Connection: close\"",
            100.0 * share);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "server_closes", said);
    doc_kv_int(r, f, "stale_retries", stale);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    doc_kv_num(r, f, "requests_per_connection", per_conn);
    doc_kv_num(r, f, "new_connection_pct", 100.0 * share);
    if (p->err_reset >= 0) doc_kv_int(r, f, "reset_errors", p->err_reset);
    f->severity = share >= 0.1 ? DOC_SEV_MEDIUM : DOC_SEV_LOW;
    doc_set(r, &f->saving_method,
            "not estimated: each closed connection cost the next request a new connect (and the "
            "server an accept; a re-sent request also its first attempt), which the run does not "
            "time apart");
    doc_set(r, &f->recommendation,
            "keep connections open for many requests: HTTP/1.1 keep-alive on the server "
            "(Python http.server: protocol_version = \"HTTP/1.1\"), a higher keep-alive request "
            "limit and idle timeout (nginx keepalive_requests, gunicorn --keep-alive, uvicorn "
            "--timeout-keep-alive); a server that must close should send \"Connection: close\" "
            "on that response, so no client writes into a closed connection");
    doc_set(r, &f->next_step,
            "latscope bench --records rec.jsonl ... (the same run); after the fix server_closes "
            "and stale_retries in the bench JSON stay near 0");
}
