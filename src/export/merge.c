/*
 * merge.c - one trace merged into another on the realtime clock both carry (see merge.h).
 */
#include "export/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

/* String id of src's string `id` in dst (0 stays 0: "none"). */
static int restr(struct lat_trace *dst, const struct lat_trace *src, uint32_t id, uint32_t *out)
{
    if (!id) {
        *out = 0;
        return 0;
    }
    const char *s = lat_trace_str(src, id);
    return lat_trace_intern(dst, s, strtab_len(&src->strs, id), out);
}

static bool add_ok(lat_ns a, lat_ns b, lat_ns *r)
{
    return !__builtin_add_overflow(a, b, r);
}

int lat_trace_merge(struct lat_trace *dst, const struct lat_trace *src, lat_ns *shift_ns)
{
    if (!dst->base_time_ns || !src->base_time_ns) return LAT_E_UNSUPPORTED;
    lat_ns shift;
    if (__builtin_sub_overflow(src->base_time_ns, dst->base_time_ns, &shift)) return LAT_E_OVERFLOW;
    if (shift_ns) *shift_ns = shift;
    int rc = 0;
    uint32_t *track = calloc(src->ntracks + 1, sizeof(*track));
    if (!track) return -ENOMEM;
    for (size_t i = 0; i < src->ntracks; i++) {
        const struct lat_track *t = &src->tracks[i];
        uint32_t ps, ts, pl, tl;
        if ((rc = restr(dst, src, t->pid_str, &ps)) || (rc = restr(dst, src, t->tid_str, &ts)) ||
            (rc = restr(dst, src, t->pid_label, &pl)) ||
            (rc = restr(dst, src, t->tid_label, &tl)) ||
            (rc = lat_trace_track(dst, t->pid, t->tid, ps, ts, t->gpu, &track[i])))
            goto out;
        struct lat_track *d = &dst->tracks[track[i]];
        if (!d->pid_label) d->pid_label = pl;
        if (!d->tid_label) d->tid_label = tl;
    }
    for (size_t i = 0; i < src->ev.n; i++) {
        struct lat_event e;
        lat_trace_event(src, i, &e);
        if (!add_ok(e.ts, shift, &e.ts)) {
            rc = LAT_E_OVERFLOW;
            goto out;
        }
        if ((rc = restr(dst, src, e.name, &e.name)) || (rc = restr(dst, src, e.cat, &e.cat)))
            goto out;
        e.track = e.track < src->ntracks ? track[e.track] : 0;
        uint32_t first = 0;
        for (uint32_t k = 0; k < e.nargs; k++) {
            struct lat_arg a = src->args[e.args + k];
            uint32_t idx;
            if ((rc = restr(dst, src, a.key, &a.key)) || (rc = restr(dst, src, a.str, &a.str)) ||
                (rc = lat_trace_add_arg(dst, &a, &idx)))
                goto out;
            if (k == 0) first = idx;
        }
        e.args = e.nargs ? first : 0;
        if ((rc = lat_trace_add_event(dst, &e))) goto out;
    }
    for (size_t i = 0; i < src->nflows; i++) {
        struct lat_flow f = src->flows[i];
        if (!add_ok(f.ts, shift, &f.ts)) {
            rc = LAT_E_OVERFLOW;
            goto out;
        }
        if ((rc = restr(dst, src, f.cat, &f.cat)) || (rc = restr(dst, src, f.name, &f.name)))
            goto out;
        f.track = f.track < src->ntracks ? track[f.track] : 0;
        if ((rc = lat_trace_add_flow(dst, &f))) goto out;
    }
    dst->frac_ts = dst->frac_ts || src->frac_ts;
out:
    free(track);
    return rc;
}
