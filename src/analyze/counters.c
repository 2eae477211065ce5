/*
 * counters.c - the counter tracks HTA's generate_trace_with_counters adds to a trace
 * (analyses.md §9), written back into the trace model for `analyze --write-trace`:
 * ph "C" events named "Queue Length" (id = the stream, args {"Queue Length": n}) and one per
 * memory-copy group ("Memcpy HtoD", ..., args {"Memcpy BW": GB/s}), on the GPU's pid, at the
 * points of the series analysis_run() kept with analysis_opts.counters; and "Memory Allocated"
 * (id = device type * 1000 + device index, args {"Memory Allocated": bytes}) from the
 * [memory] instants (memtl.c). Perfetto and
 * chrome://tracing draw them as counter tracks next to the streams.
 */
#include "analyze/analysis.h"

#include <errno.h>
#include <string.h>

static int add_points(struct lat_trace *t, const struct lat_an_counter_pt *p, size_t n,
                      const char *series, bool integer)
{
    uint32_t key, cat, fixed_name = 0;
    int rc = lat_trace_intern(t, series, strlen(series), &key);
    if (!rc) rc = lat_trace_intern(t, "counter", 7, &cat);
    if (!rc && integer) fixed_name = key;
    for (size_t i = 0; !rc && i < n; i++) {
        uint32_t name = fixed_name, track = 0, arg = 0;
        if (!name) rc = lat_trace_intern(t, p[i].name, strlen(p[i].name), &name);
        if (!rc) rc = lat_trace_track(t, p[i].pid, 0, 0, 0, false, &track);
        struct lat_arg a = {.key = key, .type = integer ? LAT_ARG_INT : LAT_ARG_DOUBLE};
        if (integer)
            a.v.i = (int64_t)p[i].value;
        else
            a.v.d = p[i].value < 0 ? 0 : p[i].value; /* never a negative bandwidth */
        if (!rc) rc = lat_trace_add_arg(t, &a, &arg);
        struct lat_event e = {.ts = p[i].ts,
                              .name = name,
                              .cat = cat,
                              .track = track,
                              .kind = LAT_EV_COUNTER,
                              .stream = -1,
                              .device = -1,
                              .step = -1,
                              .correlation = p[i].id, /* the writer's "id" of a counter */
                              .external_id = -1,
                              .args = arg,
                              .nargs = 1,
                              .ph = 'C'};
        if (!rc) rc = lat_trace_add_event(t, &e);
    }
    return rc;
}

int analysis_add_counters(struct lat_trace *t, const struct lat_an_rank *r, size_t *added)
{
    size_t before = t->ev.n;
    int rc = add_points(t, r->queue_pts, r->nqueue_pts, "Queue Length", true);
    if (!rc) rc = add_points(t, r->membw_pts, r->nmembw_pts, "Memcpy BW", false);
    if (!rc) rc = add_points(t, r->mem_pts, r->nmem_pts, "Memory Allocated", true);
    if (!rc) rc = lat_trace_sort(t);
    if (added) *added = t->ev.n - before;
    return rc;
}
