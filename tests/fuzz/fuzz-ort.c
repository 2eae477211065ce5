/*
 * fuzz-ort.c - libFuzzer target for the ONNX Runtime profile reader (ingest/ort.c, through
 * ingest_mem's sniffing) and analyze's ORT section (analyze/ort.c).
 *
 * The first byte picks the chunk size; the rest is the file, named as ORT names its profiles (so
 * a 0-byte input takes the ORT path too). The reader must load the input or fail with a message;
 * on an ORT trace the summary must hold: events sorted, no fence left, shares within 0..100,
 * uncovered time within the run time, percentiles ordered.
 */
#include "analyze/ort.h"
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    struct lat_ingest_opts o;
    memset(&o, 0, sizeof(o));
    o.chunk_bytes = (size_t)(data[0] & 0x3f) + 1;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc =
        ingest_mem(data + 1, size - 1, "p_2026-12-01_08-46-58_358.json", &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    if (lat_ort_is(t)) {
        for (size_t i = 1; i < t->ev.n; i++)
            if (t->ev.ts[i - 1] > t->ev.ts[i]) abort();
        struct lat_ort_summary s;
        if (lat_ort_summarize(t, 3, &s) == 0) {
            if (s.uncovered > s.run_total || s.first_uncovered > s.uncovered) abort();
            if (s.uncovered_pct < 0 || s.uncovered_pct > 100) abort();
            if (s.runs && (s.run_p50 > s.run_p90 || s.run_p90 > s.run_p99 || s.run_p99 > s.run_max))
                abort();
            const struct lat_ort_row *sets[] = {s.op_types, s.nodes, s.providers};
            size_t ns[] = {s.nop_types, s.nnodes, s.nproviders};
            for (int k = 0; k < 3; k++)
                for (size_t i = 0; i < ns[k]; i++)
                    if (sets[k][i].pct < 0 || sets[k][i].pct > 100 || !sets[k][i].name) abort();
            lat_ort_summary_fini(&s);
        }
    }
    lat_trace_free(t);
    return 0;
}
