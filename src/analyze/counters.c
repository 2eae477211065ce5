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
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

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

/* The point where HTA's overlay attaches an edge end: the event's start, or its end (a GPU
 * event's end less min(1 us, dur), so that the arrow lands inside it). */
static lat_ns cp_point(const struct lat_trace *t, uint32_t ev, bool start)
{
    lat_ns ts = t->ev.ts[ev], dur = t->ev.dur[ev];
    if (start) return ts;
    if (t->tracks[t->ev.track[ev]].gpu || (t->ev.flags[ev] & LAT_EVF_GPU))
        return ts + dur - (dur < LAT_NS_PER_US ? dur : LAT_NS_PER_US);
    return ts + dur;
}

int analysis_add_critpath(struct lat_trace *t, const struct lat_an_rank *r, size_t *spans,
                          size_t *flows, size_t *events)
{
    *spans = *flows = *events = 0;
    uint8_t *seen = calloc(t->ev.n ? t->ev.n : 1, 1); /* HTA's critical_path_events_set */
    if (!seen) return -ENOMEM;
    for (size_t w = 0; w < r->ncritpath; w++)
        for (size_t k = 0; k < r->critpath[w].npath; k++) {
            const struct lat_an_cp_edge *e = &r->critpath[w].path[k];
            if (e->src < t->ev.n && !seen[e->src]++) (*events)++;
            if (e->dst < t->ev.n && !seen[e->dst]++) (*events)++;
        }
    free(seen);
    uint32_t cat = 0, fname = 0, tid_str = 0, k_bound = 0, k_type = 0, k_weight = 0;
    int rc = lat_trace_intern(t, "critical_path", 13, &cat);
    if (!rc) fname = cat;
    if (!rc) rc = lat_trace_intern(t, "critical path", 13, &tid_str);
    if (!rc) rc = lat_trace_intern(t, "bound_by", 8, &k_bound);
    if (!rc) rc = lat_trace_intern(t, "type", 4, &k_type);
    if (!rc) rc = lat_trace_intern(t, "weight_us", 9, &k_weight);
    int64_t id = 0; /* flow ids above every id the trace has */
    for (size_t i = 0; i < t->nflows; i++)
        if (t->flows[i].id >= id) id = t->flows[i].id + 1;
    if (id < (1LL << 40)) id = 1LL << 40;
    for (size_t w = 0; !rc && w < r->ncritpath; w++) {
        const struct lat_an_critpath *c = &r->critpath[w];
        for (size_t k = 0; !rc && k < c->npath; k++) {
            const struct lat_an_cp_edge *e = &c->path[k];
            lat_ns a = cp_point(t, e->src, e->src_start), b = cp_point(t, e->dst, e->dst_start);
            /* the track: one "critical path" row in the process of the window's CPU side */
            if (e->type == LAT_CP_E_OPERATOR && b > a) {
                const struct lat_track *src = &t->tracks[t->ev.track[e->src]];
                int64_t pid = src->pid;
                if (src->gpu && e->attr != UINT32_MAX) pid = t->tracks[t->ev.track[e->attr]].pid;
                uint32_t track = 0, arg0 = 0, arg = 0;
                rc =
                    lat_trace_track(t, pid, 0, src->gpu ? 0 : src->pid_str, tid_str, false, &track);
                uint32_t bn = 0, tn = 0;
                if (!rc)
                    rc = lat_trace_intern(t, lat_cp_bound_name(e->bound),
                                          strlen(lat_cp_bound_name(e->bound)), &bn);
                if (!rc)
                    rc = lat_trace_intern(t, lat_cp_edge_name(e->type),
                                          strlen(lat_cp_edge_name(e->type)), &tn);
                struct lat_arg a1 = {.key = k_bound, .type = LAT_ARG_STR};
                a1.str = bn;
                struct lat_arg a2 = {.key = k_type, .type = LAT_ARG_STR};
                a2.str = tn;
                struct lat_arg a3 = {.key = k_weight, .type = LAT_ARG_DOUBLE};
                a3.v.d = (double)e->weight / 1000.0;
                if (!rc) rc = lat_trace_add_arg(t, &a1, &arg0);
                if (!rc) rc = lat_trace_add_arg(t, &a2, &arg);
                if (!rc) rc = lat_trace_add_arg(t, &a3, &arg);
                uint32_t name = e->attr != UINT32_MAX ? t->ev.name[e->attr] : tn;
                struct lat_event ev = lat_event_unlinked();
                ev.ts = a;
                ev.dur = b - a;
                ev.name = name;
                ev.cat = cat;
                ev.track = track;
                ev.kind = LAT_EV_OTHER;
                ev.args = arg0;
                ev.nargs = 3;
                ev.ph = 'X';
                if (!rc) rc = lat_trace_add_event(t, &ev);
                if (!rc) (*spans)++;
                continue;
            }
            /* HTA's default overlay edges: dependency, launch delay, sync dependency */
            if (e->type != LAT_CP_E_DEPENDENCY && e->type != LAT_CP_E_LAUNCH &&
                e->type != LAT_CP_E_SYNC)
                continue;
            struct lat_flow fs = {.id = id,
                                  .ts = a,
                                  .cat = cat,
                                  .name = fname,
                                  .track = t->ev.track[e->src],
                                  .ph = 's'};
            struct lat_flow ff = {.id = id,
                                  .ts = b < a ? a : b,
                                  .cat = cat,
                                  .name = fname,
                                  .track = t->ev.track[e->dst],
                                  .ph = 'f',
                                  .bind_enclosing = true};
            id++;
            rc = lat_trace_add_flow(t, &fs);
            if (!rc) rc = lat_trace_add_flow(t, &ff);
            if (!rc) (*flows)++;
        }
    }
    if (!rc) rc = lat_trace_sort(t);
    return rc;
}
