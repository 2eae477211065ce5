/*
 * rule-trt-streams.c - several inference streams (trtexec --streams/--infStreams > 1):
 * queries of different streams run at the same time and share the GPU, so the per-query
 * latency includes waiting for the other streams and the throughput is the sum over them;
 * trtexec's latency numbers are then not the latency of one query alone. Information, no
 * saving claimed.
 */
#include "doctor/finding.h"
#include "doctor/trt.h"

DOC_RULE(trt_streams)
{
    const struct lat_trt_summary *s = doc_trt(c);
    if (!s || s->streams <= 1) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-multi-stream", c->trace);
    if (!f) return;
    doc_saving(f, 0, 0);
    doc_set(c->r, &f->title,
            "TensorRT: %d inference streams ran at once: the latencies include the other "
            "streams' work and are not one query's latency",
            s->streams);
    doc_set(c->r, &f->saving_method, "none: a measurement caveat, not a cost");
    doc_kv_int(c->r, f, "streams", s->streams);
    double qps = s->have_p_qps ? s->p_qps : s->q_qps;
    if (qps > 0) doc_kv_num(c->r, f, "throughput_qps", qps);
    doc_set(c->r, &f->recommendation,
            "Read the throughput of this run as the multi-stream capacity; measure the latency "
            "of one query with one stream (trtexec --infStreams=1, --streams=1 before TensorRT "
            "10) and compare both before choosing the serving concurrency.");
    doc_set(c->r, &f->next_step, "trtexec %s --infStreams=1 --exportTimes=times.json",
            doc_trt_engine_flag(c));
}
