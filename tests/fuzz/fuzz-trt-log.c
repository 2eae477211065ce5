/*
 * fuzz-trt-log.c - libFuzzer target for trtexec's text log reader (ingest/trt-log.c), through
 * ingest_mem's sniffing, and analyze's TensorRT section on what it read.
 *
 * The first byte picks the chunk size; the rest is the log, given after a trtexec banner line so
 * the sniff always picks the log reader (which must load it or fail with a message). On a
 * TensorRT trace: no negative or non-finite printed value, at most 8 percentiles per metric.
 */
#include "analyze/trt.h"
#include "ingest/ingest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char banner[] = "&&&& RUNNING TensorRT.trtexec # trtexec\n";
    if (size < 1) return 0;
    size_t n = sizeof(banner) - 1 + size - 1;
    char *buf = malloc(n ? n : 1);
    if (!buf) return 0;
    memcpy(buf, banner, sizeof(banner) - 1);
    memcpy(buf + sizeof(banner) - 1, data + 1, size - 1);
    struct lat_ingest_opts o;
    memset(&o, 0, sizeof(o));
    o.chunk_bytes = (size_t)(data[0] & 0x3f) + 1;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(buf, n, "trtexec.log", &o, &t, err, sizeof(err));
    free(buf);
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    if (!lat_trt_is(t)) abort(); /* the banner makes it a trtexec log */
    struct lat_trt_summary s;
    if (lat_trt_summarize(t, &s) == 0) {
        for (int k = 0; k < LAT_TRT_NMETRIC; k++) {
            const struct lat_trt_printed *p = &s.p[k];
            if (p->npct > 8) abort();
            double v[4] = {p->min, p->max, p->mean, p->median};
            for (int j = 0; j < 4; j++)
                if (!isfinite(v[j]) || v[j] < 0) abort();
            for (size_t j = 0; j < p->npct; j++)
                if (!isfinite(p->pct[j]) || p->pct[j] < 0) abort();
        }
        if (s.have_p_qps && (!isfinite(s.p_qps) || s.p_qps < 0)) abort();
        lat_trt_summary_fini(&s);
    }
    lat_trace_free(t);
    return 0;
}
