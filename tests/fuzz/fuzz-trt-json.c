/*
 * fuzz-trt-json.c - libFuzzer target for the trtexec/TREx JSON readers (ingest/trt.c, through
 * ingest_mem's sniffing), analyze's TensorRT section and the doctor's TensorRT rules.
 *
 * The first byte picks the chunk size (low 6 bits) and the file name (high 2 bits: a
 * .profile.json, .timing.json, .graph.json or .profile.metadata.json name, so 0-byte and
 * non-JSON inputs take the TensorRT paths too). The reader must load the input or fail with a
 * message; on a TensorRT trace the summary must hold: shares within 0..100, statistics ordered
 * (min <= median <= p90 <= p95 <= p99 <= max), no negative time, kept queries <= queries.
 */
#include "analyze/trt.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_stats(const struct lat_trt_stats *s)
{
    if (!s->n) return;
    if (s->min < 0 || s->min > s->median || s->median > s->pct[0] || s->pct[0] > s->pct[1] ||
        s->pct[1] > s->pct[2] || s->pct[2] > s->max || s->cov_pct < 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"e.engine.profile.json", "e.engine.timing.json",
                                         "e.engine.graph.json", "e.engine.profile.metadata.json"};
    if (size < 1) return 0;
    struct lat_ingest_opts o;
    memset(&o, 0, sizeof(o));
    o.chunk_bytes = (size_t)(data[0] & 0x3f) + 1;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(data + 1, size - 1, names[data[0] >> 6], &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    if (lat_trt_is(t)) {
        struct lat_trt_summary s;
        if (lat_trt_summarize(t, &s) == 0) {
            if (s.nq_kept > s.nq || s.nprofiled > s.nlayers) abort();
            if (s.reformat_pct < 0 || s.reformat_pct > 100 || s.qdq_pct < 0 || s.qdq_pct > 100)
                abort();
            for (size_t i = 0; i < s.nlayers; i++)
                if (s.layers[i].share_pct < 0 || s.layers[i].share_pct > 100 ||
                    s.layers[i].avg_ms < 0)
                    abort();
            for (size_t i = 0; i < s.ntypes; i++)
                if (s.types[i].share_pct < 0 || s.types[i].share_pct > 100) abort();
            for (int k = 0; k < LAT_TRT_NMETRIC; k++)
                check_stats(&s.q[k]);
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                struct jsonw w;
                jsonw_init(&w, f, false);
                jsonw_obj_begin(&w);
                lat_trt_write_json(&w, &s, 5);
                jsonw_obj_end(&w);
                jsonw_finish(&w);
                jsonw_fini(&w);
                lat_trt_format_text(&s, f, 5);
                fclose(f);
            }
            lat_trt_summary_fini(&s);
        }
        struct doc_opts d;
        doctor_opts_default(&d);
        struct doc_report *r;
        if (doctor_report_new(&r) == 0) {
            (void)doctor_run(r, t, &d);
            for (size_t i = 0; i < r->n; i++)
                if (r->f[i].saving_pct < 0 || r->f[i].saving_pct > 100) abort();
            doctor_report_free(r);
        }
    }
    lat_trace_free(t);
    return 0;
}
