/*
 * rule-service-backlog.c - listen-backlog: the server's accept queue overflowed and the kernel
 * dropped SYNs, so connects waited for the client's SYN retransmit (1 s, then 3 s, 7 s ...).
 * Evidence: the point's own slow connects (bench's backlog.slow_connects, connects that took at
 * least 0.9 s); this host's ListenOverflows/ListenDrops rise is quoted beside it for a
 * loopback server, never alone (the counters are the host's, not this run's).
 * docs/latscope-doctor.md, "Service rules".
 */
#include <math.h>
#include <stdio.h>

#include "doctor/finding.h"
#include "doctor/service.h"

#define BACKLOG_MIN_SLOW 1 /* slow connects that make the finding */

void svc_rule_backlog(struct doc_report *r, const struct doc_svc_run *run,
                      const struct doc_svc_point *p, int ti)
{
    if (p->slow_connects < BACKLOG_MIN_SLOW) return;
    struct doc_finding *f = doc_finding_add(r, "listen-backlog", ti);
    if (!f) return;
    double wait_s = isnan(p->connect_max_ms) ? 1.0 : p->connect_max_ms / 1000.0;
    doc_set(r, &f->title,
            "%s: %lld connect%s waited for a SYN retransmit (the slowest %.2f s): the server's "
            "listen backlog overflowed%s",
            p->load, (long long)p->slow_connects, p->slow_connects == 1 ? "" : "s", wait_s,
            p->listen_overflows > 0 ? " (this host's ListenOverflows rose during the point)" : "");
    doc_kv_str(r, f, "load", p->load);
    doc_kv_int(r, f, "slow_connects", p->slow_connects);
    if (!isnan(p->connect_max_ms)) doc_kv_num(r, f, "connect_max_ms", p->connect_max_ms);
    if (p->listen_overflows >= 0) doc_kv_int(r, f, "host_listen_overflows", p->listen_overflows);
    if (p->listen_drops >= 0) doc_kv_int(r, f, "host_listen_drops", p->listen_drops);
    if (p->err_connect >= 0) doc_kv_int(r, f, "connect_errors", p->err_connect);
    doc_kv_int(r, f, "requests", (int64_t)p->ok);
    if (!isnan(p->lat_p99)) doc_kv_num(r, f, "latency_p99_ms", p->lat_p99);
    doc_kv_bool(r, f, "invalid_client", p->invalid_client);
    /* The retransmit waits sit in the latency's excess over its median: a fix that leaves the
     * median as it is gives back at most mean - p50 per request. */
    if (!isnan(p->lat_mean) && !isnan(p->lat_p50) && p->lat_mean > p->lat_p50) {
        doc_saving(f, (lat_ns)((p->lat_mean - p->lat_p50) * 1e6), (lat_ns)(p->lat_mean * 1e6));
        doc_set(r, &f->saving_method,
                "at most the mean latency's excess over the median (mean - p50), per request and "
                "as %% of the mean: each slow connect waited up to %.2f s (the SYN retransmit "
                "timeout) and those waits are inside that excess",
                wait_s);
    } else {
        doc_set(r, &f->saving_method,
                "not estimated as a share: each slow connect waited up to %.2f s (the SYN "
                "retransmit timeout), which a large enough backlog removes",
                wait_s);
    }
    /* A dropped SYN costs the client's whole retransmit timeout (>= 1 s): whatever the
     * service time, a stall the server's own work does not explain. */
    f->severity = DOC_SEV_HIGH;
    doc_set(r, &f->recommendation,
            "raise the server's listen backlog (listen(fd, 1024); Python's http.server: "
            "request_queue_size = 1024; uvicorn --backlog 2048) and the kernel's cap "
            "(sysctl net.core.somaxconn and net.ipv4.tcp_max_syn_backlog), or accept faster "
            "(more accept workers or processes)");
    doc_set(r, &f->next_step,
            "after the fix, run the same bench again: backlog.slow_connects in its JSON must "
            "be 0; then latscope diff %s NEW.json",
            run->path ? run->path : "OLD.json");
}
