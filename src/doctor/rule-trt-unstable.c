/*
 * rule-trt-unstable.c - "GPU compute time is unstable" (trtexec >= 8.6 warns above a
 * coefficient of variation of 1 %; the default here, trt_cov_pct, is 2.5 %): the GPU compute
 * time varies from query to query (clocks, other work on the GPU, thermal throttling), so one
 * run's numbers do not compare with another's. CoV from the exported queries (population
 * standard deviation / mean, after the warm-up), or the value the log's warning printed.
 * Saving bound: p99 minus median GPU compute per query (the tail the variation costs).
 */
#include "doctor/finding.h"
#include "doctor/trt.h"

#include <stdlib.h>
#include <string.h>

DOC_RULE(trt_unstable)
{
    const struct lat_trt_summary *s = doc_trt(c);
    if (!s) return;
    double cov = -1, tail = 0;
    const char *src = NULL;
    if (s->nq_kept >= 2) {
        cov = s->q[LAT_TRT_COMPUTE].cov_pct;
        tail = s->q[LAT_TRT_COMPUTE].pct[2] - s->q[LAT_TRT_COMPUTE].median;
        src = "exported queries";
    } else {
        for (size_t i = 0; i < s->nwarnings; i++) {
            const char *p = strstr(s->warnings[i], "coefficient of variance");
            if (!p) p = strstr(s->warnings[i], "coefficient of variation");
            const char *e = p ? strchr(p, '=') : NULL;
            if (e) {
                cov = strtod(e + 1, NULL);
                src = "trtexec's log warning";
            }
        }
        const struct lat_trt_printed *p = &s->p[LAT_TRT_COMPUTE];
        if (p->have_median && p->npct) tail = p->pct[p->npct - 1] - p->median;
    }
    double th = c->o->th.trt_cov_pct;
    if (!src || cov <= th) return;
    struct doc_finding *f = doc_finding_add(c->r, "trt-unstable", c->trace);
    if (!f) return;
    doc_saving(f, doc_trt_ns(tail > 0 ? tail : 0), doc_trt_ns(doc_trt_latency_ms(s)));
    doc_set(c->r, &f->title,
            "TensorRT: GPU compute time is unstable (coefficient of variation %.2f %% > %.2f %%): "
            "the run's latencies are not reproducible",
            cov, th);
    doc_set(c->r, &f->saving_method,
            "p99 minus median GPU compute per query: the tail the variation adds; an upper "
            "bound");
    doc_kv_num(c->r, f, "gpu_compute_cov_pct", cov);
    doc_kv_num(c->r, f, "threshold_pct", th);
    doc_kv_num(c->r, f, "p99_minus_median_ms", tail > 0 ? tail : 0);
    doc_kv_str(c->r, f, "source", src);
    doc_kv_str(c->r, f, "spin_wait", s->spin_wait < 0 ? "unknown" : s->spin_wait ? "on" : "off");
    doc_set(c->r, &f->recommendation,
            "Lock the GPU clocks for benchmarking (sudo nvidia-smi -lgc MAX,MAX, or "
            "--lockClocks with trtexec's scripts), make sure nothing else runs on the GPU, "
            "use --useSpinWait so host waits do not add jitter, and run longer "
            "(--duration=30) so the percentiles settle.");
    doc_set(c->r, &f->next_step, "trtexec %s --useSpinWait --duration=30 --exportTimes=times.json",
            doc_trt_engine_flag(c));
}
