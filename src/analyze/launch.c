/*
 * launch.c - kernel launch statistics (analyses.md §6) and queue length per stream (§8).
 *
 * Launch statistics join the CPU launch calls (stream -1) and the GPU rows (stream != -1) on
 * the correlation id through one hash map; HTA recognises only CUDA/MTIA launch names, latscope
 * (default) also HIP, driver-API and graph launches (--hta-compat: HTA's list). Queue length
 * uses HTA's longer launch list in both modes: +1 at each launch that has a correlated GPU row,
 * on that row's stream, -1 at each such GPU row; per stream, the running sum after each sample.
 */
#include "analyze/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int an_launch(struct an_view *v, struct lat_an_rank *r)
{
    struct lat_an_launch *L = &r->launch;
    const struct lat_event_cols *ev = &v->t->ev;
    uint8_t want = v->o->hta_compat ? AN_NAME_HTA_LAUNCH : AN_NAME_LAT_LAUNCH;
    struct lat_u64map launches;
    double *x = NULL;
    int rc = lat_u64map_init(&launches, v->ngpu);
    if (rc) return rc;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || v->stream[i] != -1 || ev->correlation[i] == -1) continue;
        uint8_t c = an_namecls(v, i);
        if (!(c & want)) continue;
        if (!v->o->hta_compat && an_is_graph_launch(an_name(v, i))) L->graph_launches++;
        if ((rc = an_row_put(&launches, ev->correlation[i], (uint32_t)i))) goto out;
    }
    L->recs = malloc((v->ngpu ? v->ngpu : 1) * sizeof(*L->recs));
    x = malloc((v->ngpu ? v->ngpu : 1) * sizeof(*x));
    if (!L->recs || !x) {
        rc = -ENOMEM;
        goto out;
    }
    L->gpu_rows = v->ngpu;
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t g = v->gpu[j];
        uint32_t rt = v->corr[g];
        if (rt != AN_NONE && v->keep[rt])
            L->correlated_gpu++;
        else
            L->uncorrelated_gpu++;
        if (ev->correlation[g] == -1) continue;
        uint32_t c = an_row(&launches, ev->correlation[g]);
        if (c == AN_NONE) continue;
        struct lat_an_launch_rec *rec = &L->recs[L->count++];
        rec->correlation = ev->correlation[g];
        rec->cpu = c;
        rec->gpu = g;
        rec->cpu_dur = an_dur(v, c);
        rec->gpu_dur = an_dur(v, g);
        lat_ns d = an_ts(v, g) - an_ts(v, c) - rec->cpu_dur;
        rec->launch_delay = d > 0 ? d : 0;
        if (rec->cpu_dur <= v->o->runtime_cutoff_ns && rec->gpu_dur < rec->cpu_dur)
            L->short_kernels++;
        if (rec->cpu_dur > v->o->runtime_cutoff_ns) L->runtime_outliers++;
        if (rec->launch_delay > v->o->launch_delay_cutoff_ns) L->launch_delay_outliers++;
    }
    for (size_t k = 0; k < L->count; k++)
        x[k] = (double)L->recs[k].cpu_dur;
    an_describe(x, L->count, &L->cpu_dur);
    for (size_t k = 0; k < L->count; k++)
        x[k] = (double)L->recs[k].gpu_dur;
    an_describe(x, L->count, &L->gpu_dur);
    for (size_t k = 0; k < L->count; k++)
        x[k] = (double)L->recs[k].launch_delay;
    an_describe(x, L->count, &L->launch_delay);
    L->median_launch_delay = (lat_ns)L->launch_delay.p50;
out:
    free(x);
    lat_u64map_fini(&launches);
    return rc;
}

struct q_ev {
    int64_t stream;
    lat_ns ts;
    int32_t delta;
    uint32_t seq;
    uint32_t gpu; /* the GPU row (its pid for the counter series) */
};

static int q_cmp(const void *a, const void *b)
{
    const struct q_ev *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* HTA's launch mask (get_runtime_launch_events_mask) wants index_correlation > 0: a launch
 * whose GPU row is the input's first element (index 0) is left out, with its GPU row (the
 * semi-join). Only under hta_compat; latscope counts it. */
static bool hta_row0_gpu(const struct an_view *v, uint32_t g)
{
    return g == 0 && v->o->hta_compat && v->t->first_elem_event;
}

int an_queue(struct an_view *v, struct lat_an_rank *r)
{
    size_t cap = 0, n = 0, nstreams = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && v->stream[i] == -1 && (an_namecls(v, i) & AN_NAME_Q_LAUNCH)) cap += 2;
    if (!cap) return 0;
    struct q_ev *q = malloc(cap * sizeof(*q));
    double *x = malloc(cap * sizeof(*x));
    int rc = -ENOMEM;
    if (!q || !x) goto out;
    /* launches first, so that at equal ts a launch precedes the kernel (concat order) */
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || v->stream[i] != -1 || !(an_namecls(v, i) & AN_NAME_Q_LAUNCH)) continue;
        uint32_t g = v->corr[i];
        if (g == AN_NONE || !v->keep[g] || v->stream[g] == -1 || hta_row0_gpu(v, g)) continue;
        q[n] = (struct q_ev){v->stream[g], an_ts(v, i), +1, (uint32_t)n, g};
        n++;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || v->stream[i] != -1 || !(an_namecls(v, i) & AN_NAME_Q_LAUNCH)) continue;
        uint32_t g = v->corr[i];
        if (g == AN_NONE || !v->keep[g] || v->stream[g] == -1 || hta_row0_gpu(v, g)) continue;
        q[n] = (struct q_ev){v->stream[g], an_ts(v, g), -1, (uint32_t)n, g};
        n++;
    }
    qsort(q, n, sizeof(*q), q_cmp);
    for (size_t k = 0; k < n; k++)
        if (!k || q[k].stream != q[k - 1].stream) nstreams++;
    r->queue = calloc(nstreams ? nstreams : 1, sizeof(*r->queue));
    if (!r->queue) goto out;
    if (v->o->counters && !(r->queue_pts = malloc(n * sizeof(*r->queue_pts)))) goto out;
    /* trace duration: max - min ts of the rank's rows */
    lat_ns tmin = INT64_MAX, tmax = INT64_MIN;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i]) continue;
        lat_ns ts = an_ts(v, i);
        if (ts < tmin) tmin = ts;
        if (ts > tmax) tmax = ts;
    }
    for (size_t a = 0; a < n;) {
        size_t b = a;
        int64_t run = 0, mx = INT64_MIN;
        lat_ns blocked = 0;
        while (b < n && q[b].stream == q[a].stream) {
            run += q[b].delta;
            x[b - a] = (double)run;
            if (r->queue_pts) {
                const struct lat_track *tr = &v->t->tracks[v->t->ev.track[q[b].gpu]];
                r->queue_pts[r->nqueue_pts++] =
                    (struct lat_an_counter_pt){q[b].ts, (double)run, tr->pid, q[b].stream, NULL};
            }
            if (run > mx) mx = run;
            if (run >= v->o->max_queue_length && b + 1 < n && q[b + 1].stream == q[a].stream)
                blocked += q[b + 1].ts - q[b].ts;
            b++;
        }
        struct lat_an_queue *s = &r->queue[r->nqueue++];
        s->stream = q[a].stream;
        an_describe(x, b - a, &s->len);
        s->max_length = mx;
        s->blocked = blocked;
        s->blocked_rel = tmax > tmin ? (double)blocked / (double)(tmax - tmin) : 0;
        a = b;
    }
    rc = 0;
out:
    free(q);
    free(x);
    return rc;
}
