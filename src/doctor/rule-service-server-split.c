/*
 * rule-service-server-split.c - server-split: which side of the server a kserve point's latency
 * is on, from what the server itself reports (bench's "server": Triton/KServe statistics, the
 * per-request means of queue, compute_input, compute_infer and compute_output over the point)
 * against the client's mean latency (latency_actual_ms: first request byte sent to the last
 * response byte; latency_ms when the result lacks it). Two findings, one per point at most:
 * queue-dominated (requests wait for a free model instance) and outside-the-server (client
 * latency - the server's whole time: network, HTTP front end, (de)serialisation, the client).
 * A compute-dominated point, the healthy case, gets nothing; so does a point whose server time
 * exceeds the client's latency (the statistics then include requests this client did not send:
 * no split is possible). docs/latscope-doctor.md, "Service rules".
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define SPLIT_MIN_REQS       10   /* successful requests of the point */
#define SPLIT_QUEUE_SHARE    0.30 /* queue-dominated: queue >= this share of client latency */
#define SPLIT_QUEUE_MIN_MS   1.0  /* ... and at least this many ms */
#define SPLIT_OUTSIDE_SHARE  0.50 /* outside-the-server: client - server >= this share */
#define SPLIT_OUTSIDE_MIN_MS 1.0  /* ... and at least this many ms */

static bool usable(double v)
{
    return !isnan(v) && v >= 0;
}

void svc_rule_server_split(struct doc_report *r, const struct doc_svc_run *run,
                           const struct doc_svc_point *p, int ti)
{
    if (p->server_count <= 0 || p->ok < SPLIT_MIN_REQS) return;
    if (!usable(p->server_queue_ms) || !usable(p->server_input_ms) || !usable(p->server_infer_ms) ||
        !usable(p->server_output_ms))
        return;
    bool actual = !isnan(p->lat_act_mean);
    double lat = actual ? p->lat_act_mean : p->lat_mean;
    if (isnan(lat) || lat <= 0) return;
    double compute = p->server_input_ms + p->server_infer_ms + p->server_output_ms;
    double server = p->server_queue_ms + compute;
    if (server > lat) return; /* more than the client waited: not this client's requests alone */
    double outside = lat - server, queue = p->server_queue_ms;
    bool q_hit = queue >= SPLIT_QUEUE_MIN_MS && queue >= SPLIT_QUEUE_SHARE * lat;
    /* a client-INVALID point's outside time is the client's: client-limited says so */
    bool o_hit = !p->invalid_client && outside >= SPLIT_OUTSIDE_MIN_MS &&
                 outside >= SPLIT_OUTSIDE_SHARE * lat;
    if (!q_hit && !o_hit) return;
    bool is_queue = q_hit && (!o_hit || queue >= outside);
    struct doc_finding *f = doc_finding_add(r, "server-split", ti);
    if (!f) return;
    if (is_queue)
        doc_set(r, &f->title,
                "%s: requests wait %.2f ms in the server's queue, %.0f %% of the %.2f ms client "
                "latency (compute %.2f ms): they wait for a free model instance",
                p->load, queue, 100.0 * queue / lat, lat, compute);
    else
        doc_set(r, &f->title,
                "%s: %.2f ms of the %.2f ms client latency (%.0f %%) is outside the server (its "
                "queue and compute take %.2f ms): network, HTTP front end, (de)serialisation or "
                "the client",
                p->load, outside, lat, 100.0 * outside / lat, server);
    doc_kv_str(r, f, "load", p->load);
    doc_kv_str(r, f, "side", is_queue ? "queue" : "outside-the-server");
    doc_kv_str(r, f, "client_latency", actual ? "latency_actual_ms mean" : "latency_ms mean");
    doc_kv_num(r, f, "client_latency_mean_ms", lat);
    doc_kv_num(r, f, "server_queue_ms", queue);
    doc_kv_num(r, f, "server_compute_input_ms", p->server_input_ms);
    doc_kv_num(r, f, "server_compute_infer_ms", p->server_infer_ms);
    doc_kv_num(r, f, "server_compute_output_ms", p->server_output_ms);
    doc_kv_num(r, f, "server_total_ms", server);
    doc_kv_num(r, f, "outside_server_ms", outside);
    doc_kv_num(r, f, "queue_pct", 100.0 * queue / lat);
    doc_kv_num(r, f, "compute_pct", 100.0 * compute / lat);
    doc_kv_num(r, f, "outside_pct", 100.0 * outside / lat);
    doc_kv_int(r, f, "server_count", p->server_count);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    if (!isnan(p->concurrency)) doc_kv_num(r, f, "concurrency", p->concurrency);
    if (is_queue) {
        doc_saving(f, (lat_ns)(queue * 1e6), (lat_ns)(lat * 1e6));
        doc_set(r, &f->saving_method,
                "the server's queue time per request (Triton queue_ms), as %% of the client's "
                "mean latency: more instances or batching give back at most that");
        doc_set(r, &f->recommendation,
                "give the model more instances (instance_group [{ count: N }] in its "
                "config.pbtxt, on as many GPUs as it fits), enable dynamic batching "
                "(dynamic_batching { max_queue_delay_microseconds: ... }) so one instance "
                "serves several queued requests at once, or send fewer requests at once (a "
                "lower -c, or the clients' in-flight limit)");
        doc_set(r, &f->next_step,
                "after the change, run the same bench again: server.queue_ms in its JSON must "
                "fall; then latscope diff %s NEW.json (latscope bench -c 1,2,4,... shows where "
                "the queue starts)",
                run->path ? run->path : "OLD.json");
    } else {
        doc_saving(f, (lat_ns)(outside * 1e6), (lat_ns)(lat * 1e6));
        /* the bound holds the network's round trip, which no fix removes */
        f->severity = DOC_SEV_MEDIUM;
        doc_set(r, &f->saving_method,
                "at most the time outside the server per request (client latency - queue - "
                "compute), as %% of the client's mean latency; the network's round trip stays, "
                "so the gain is less");
        doc_set(r, &f->recommendation,
                "look between the client and the server's scheduler: the payload's size (JSON "
                "tensors are large and slow to parse: Triton's binary tensor extension, or "
                "gRPC), the HTTP front end's threads, proxies and load balancers on the path, "
                "and the client machine's load");
        doc_set(r, &f->next_step,
                "latscope bench --records rec.jsonl --format json ... (the same run): compare "
                "each request's first byte (ttfb) with its end, and the bytes per request in "
                "the JSON; then latscope doctor %s again",
                run->path ? run->path : "RESULT.json");
    }
}
