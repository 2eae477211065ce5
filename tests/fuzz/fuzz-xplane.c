/*
 * fuzz-xplane.c - libFuzzer target for the TensorFlow .xplane.pb reader (ingest/xplane.c, through
 * ingest_mem's sniffing by name) and analyze's TensorFlow section (analyze/tf.c).
 *
 * The first byte picks the chunk size; the rest is the file, named *.xplane.pb. The reader must
 * load the input or fail with a message; on a loaded trace: events sorted, every time within
 * the model's bounds, and the summary consistent (self <= total, shares within 0..100, idle
 * within the step wall, percentiles ordered).
 */
#include "analyze/tf.h"
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
    err[0] = 0;
    int rc = ingest_mem(data + 1, size - 1, "f.xplane.pb", &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    for (size_t i = 0; i < t->ev.n; i++) {
        if (i && t->ev.ts[i - 1] > t->ev.ts[i]) abort();
        if (t->ev.ts[i] < LAT_TS_MIN || t->ev.ts[i] > LAT_TS_MAX) abort();
        if (t->ev.dur[i] < 0 || t->ev.dur[i] > LAT_DUR_MAX) abort();
        if (t->ev.nargs[i] && (size_t)t->ev.args[i] + t->ev.nargs[i] > t->nargs) abort();
    }
    if (lat_tf_is(t)) {
        struct lat_tf_summary s;
        if (lat_tf_summarize(t, 3, &s) == 0) {
            if (s.host_idle > s.step_wall || s.host_idle_pct < 0 || s.host_idle_pct > 100) abort();
            if (s.steps && (s.step_p50 > s.step_p90 || s.step_p90 > s.step_max)) abort();
            if (s.graph_self + s.eager_self != s.op_self) abort();
            const struct lat_tf_row *sets[] = {s.op_types, s.nodes};
            size_t ns[] = {s.nop_types, s.nnodes};
            for (int k = 0; k < 2; k++)
                for (size_t i = 0; i < ns[k]; i++)
                    if (sets[k][i].self_pct < 0 || sets[k][i].self_pct > 100 ||
                        sets[k][i].self > sets[k][i].total || !sets[k][i].name)
                        abort();
            lat_tf_summary_fini(&s);
        }
    }
    lat_trace_free(t);
    return 0;
}
