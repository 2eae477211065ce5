/*
 * idle.c - the GPU idle decomposition and launch statistics shared by the host-idle, sync and
 * memcpy rules (computed once per trace by the driver when the trace has GPU activity).
 *
 * GPU idle time inside the steps is split once, so that no idle microsecond is claimed by two
 * rules: time under a DataLoader op goes to the data-loading rule; a gap whose start follows a
 * host synchronisation (the sync returned when the GPU drained, then the host had to refill it)
 * goes to the sync rule; the rest is "host-late" when the next GPU op was launched after the gap
 * began (HTA's host_wait test, made device-wide), else the GPU had work queued and waited on a
 * dependency, which no rule claims. Kernels of one graph replay share the graph launch's
 * correlation, so the gaps inside a replay are never host-late.
 */
#include "core/err.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First GPU op with ts >= t. */
static size_t gop_at(const struct doc_ctx *c, lat_ns t)
{
    size_t lo = 0, hi = c->ng;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->g[mid].ts < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- idle decomposition: R1/R2 (host-late), R4 (sync bubbles) ---------------------------- */

/* A sync that returned this long before the GPU went idle still caused the gap: µs-resolution
 * traces round the two clocks' events independently. */
#define DOC_SYNC_TOL_NS (2 * LAT_NS_PER_US)

/* True when the GPU op nx and the op that ended at g0 belong to one graph replay (same
 * correlation: the graph launch): the gap between them is inside the graph, not host time. */
static bool replay_internal(const struct doc_ctx *c, size_t nx, lat_ns g0)
{
    const struct lat_trace *t = c->t;
    int64_t corr = t->ev.correlation[c->g[nx].ev];
    if (!c->g[nx].graph && corr < 0) return false;
    for (size_t k = nx, seen = 0; k > 0 && seen < 256; k--, seen++) {
        const struct doc_gop *p = &c->g[k - 1];
        if (p->end != g0) continue;
        if (corr >= 0 && t->ev.correlation[p->ev] == corr) return true;
        if (c->g[nx].graph && p->graph) return true;
    }
    return false;
}

struct doc_sync {
    size_t ev;
    lat_ns end;
};

static int cmp_sync(const void *x, const void *y)
{
    const struct doc_sync *a = x, *b = y;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

unsigned doc_api_of_ev(struct doc_ctx *c, size_t ev)
{
    uint16_t k = c->t->ev.kind[ev];
    if (k != LAT_EV_RUNTIME && k != LAT_EV_DRIVER) return 0;
    return doc_api_class(c, c->t->ev.name[ev]);
}

static bool is_sync_call(struct doc_ctx *c, size_t ev)
{
    return (doc_api_of_ev(c, ev) & (DOC_API_SYNC | DOC_API_MEMCPY)) != 0;
}

int doc_idle_decompose(struct doc_ctx *c, struct doc_idle *d)
{
    const struct lat_trace *t = c->t;
    size_t ns = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (is_sync_call(c, i) && t->ev.dur[i] >= 0) ns++;
    struct doc_sync *sy = malloc((ns ? ns : 1) * sizeof(*sy));
    struct lat_ivl_set gaps = {0}, piece = {0}, rest = {0};
    if (!sy) return -ENOMEM;
    ns = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (is_sync_call(c, i) && t->ev.dur[i] >= 0)
            sy[ns++] = (struct doc_sync){i, t->ev.ts[i] + t->ev.dur[i]};
    qsort(sy, ns, sizeof(*sy), cmp_sync);

    /* Blocked time of every sync inside a step, by causing op. */
    for (size_t k = 0; k < ns; k++) {
        size_t ev = sy[k].ev;
        int32_t s = doc_step_at(c, t->ev.ts[ev]);
        if (s < 0) continue;
        int64_t op = doc_enclosing_op(c, ev);
        uint64_t key = (uint64_t)t->ev.name[ev] << 32 | (op >= 0 ? t->ev.name[op] : 0);
        if (doc_acc_add(&d->sync_blocked, key, t->ev.dur[ev], 1)) goto nomem;
        d->blocked += t->ev.dur[ev];
        d->nsync++;
    }

    int rc = 0;
    for (size_t s = 0; s < c->nsteps && !rc; s++) {
        const struct doc_step *st = &c->steps[s];
        if (lat_ivl_gaps_in(&c->busy, st->ts, st->end, &gaps)) goto nomem;
        if (!c->ng) break; /* no GPU at all: nothing is "idle" */
        for (size_t k = 0; k < gaps.n && !rc; k++) {
            lat_ns g0 = gaps.v[k].ts, g1 = gaps.v[k].end;
            lat_ivl_reset(&piece);
            if (lat_ivl_push(&piece, g0, g1)) goto nomem;
            if (lat_ivl_subtract(&piece, &c->dataloader, &rest)) goto nomem;
            lat_ns len = lat_ivl_measure(&rest);
            if (len <= 0) continue;
            /* A sync that returned inside the gap (or right at its start) caused it. */
            size_t lo = 0, hi = ns;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sy[mid].end < g0 - DOC_SYNC_TOL_NS)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            bool tail_gap = g1 >= st->end;
            if (!tail_gap && lo < ns && sy[lo].end < g1) {
                size_t ev = sy[lo].ev;
                int64_t op = doc_enclosing_op(c, ev);
                uint64_t key = (uint64_t)t->ev.name[ev] << 32 | (op >= 0 ? t->ev.name[op] : 0);
                rc = doc_acc_add(&d->sync_by_op, key, len, 1);
                d->sync_bubble += len;
                struct doc_example e;
                doc_example_from(c, ev, &e);
                e.value = len;
                char note[160];
                snprintf(note, sizeof(note), "under %s; GPU idle %.1f us after it returned",
                         doc_op_name_or(c, op, "(no op)"), (double)len / 1000.0);
                e.note = note;
                doc_top_add(&d->syncs, &e);
                continue;
            }
            size_t nx = gop_at(c, g1);
            bool tail = g1 >= st->end || nx >= c->ng;
            int64_t launch = (!tail && nx < c->ng) ? c->g[nx].launch : -1;
            bool late;
            if (tail)
                late = true;
            else if (launch >= 0)
                /* HTA's host_wait asks whether the launch began after the gap did; a launch
                 * still in flight when the GPU ran dry (launch-bound loops) is late too. */
                late = t->ev.ts[launch] + t->ev.dur[launch] > g0;
            else
                late = g0 == st->ts;
            if (late && !tail && replay_internal(c, nx, g0)) late = false;
            if (!late) {
                d->queued += len;
                continue;
            }
            d->host_late += len;
            if (tail || g0 == st->ts) d->head_tail += len;
            uint32_t tr = launch >= 0 ? t->ev.track[launch] : st->track;
            for (size_t p = 0; p < rest.n && !rc; p++) {
                rc = doc_attr_window(c, tr, rest.v[p].ts, rest.v[p].end, &d->by_key);
                if (!rc) rc = lat_ivl_push(&d->late, rest.v[p].ts, rest.v[p].end);
            }
            if (!rc && tr < t->ntracks)
                rc = doc_acc_add(&d->late_tid, (uint64_t)t->tracks[tr].tid, len, 1);
            struct doc_example e = {0};
            char name[200], note[200];
            if (!tail && nx < c->ng)
                snprintf(name, sizeof(name), "GPU idle before %s", doc_name(c, c->g[nx].ev));
            else
                snprintf(name, sizeof(name), "GPU idle at the end of the %s", doc_per_step(c));
            e.name = name;
            e.ts = g0;
            e.offset = g0 - c->t0;
            e.dur = g1 - g0;
            e.value = len;
            e.step = c->steps_real ? st->num : -1;
            e.stream = -1;
            e.tid = tr < t->ntracks ? t->tracks[tr].tid : -1;
            if (launch >= 0) {
                /* A synchronous call (cudaMemcpy) can start before the gap opens: say so,
                 * never a negative time "into the gap". */
                lat_ns into = t->ev.ts[launch] - g0;
                snprintf(note, sizeof(note),
                         into >= 0
                             ? "next launch %s from %s came %.1f us into the gap"
                             : "next launch %s from %s started %.1f us before the gap "
                               "opened (a synchronous call: its GPU work followed its return)",
                         doc_name(c, (size_t)launch),
                         doc_op_name_or(c, doc_enclosing_op(c, (size_t)launch), "(no op)"),
                         (double)(into >= 0 ? into : -into) / 1000.0);
                e.note = note;
            }
            doc_top_add(&d->gaps, &e);
        }
    }
    if (rc) goto nomem;
    lat_ivl_merge(&d->late);
    /* Launch-call self time inside the host-late gaps. */
    for (size_t i = 0; i < d->by_key.n; i++) {
        uint32_t name = (uint32_t)(d->by_key.rows[i].key >> 32);
        lat_ns v = d->by_key.rows[i].val;
        if (v <= 0) continue;
        d->attributed += v;
        if (name < DOC_NAME_NONE && (doc_api_class(c, name) & DOC_API_LAUNCH)) d->launch_self += v;
    }
    /* DtoH copies that a sync followed (the `.cpu()` / `.item()` pattern). */
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_MEMCPY || !strstr(doc_name(c, g->ev), "DtoH")) continue;
        if (g->launch >= 0 && (doc_api_of_ev(c, (size_t)g->launch) & DOC_API_MEMCPY)) {
            d->nsync_dtoh++;
            continue;
        }
        size_t lo = 0, hi = ns;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sy[mid].end < g->end)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ns && sy[lo].end - g->end <= c->o->th.dtoh_sync_window) d->nsync_dtoh++;
    }
    free(sy);
    lat_ivl_fini(&gaps);
    lat_ivl_fini(&piece);
    lat_ivl_fini(&rest);
    return 0;
nomem:
    free(sy);
    lat_ivl_fini(&gaps);
    lat_ivl_fini(&piece);
    lat_ivl_fini(&rest);
    return -ENOMEM;
}

void doc_idle_fini(struct doc_idle *d)
{
    doc_acc_fini(&d->by_key);
    doc_acc_fini(&d->sync_by_op);
    doc_acc_fini(&d->sync_blocked);
    doc_acc_fini(&d->late_tid);
    lat_ivl_fini(&d->late);
}

/* The thread that launched most of the host-late idle time (-1 when none; on a tie the lowest
 * tid, so the answer does not depend on the accumulator's order). */
int64_t doc_late_thread(const struct doc_idle *d)
{
    int64_t tid = -1;
    lat_ns best = -1;
    for (size_t i = 0; i < d->late_tid.n; i++) {
        const struct doc_acc_row *r = &d->late_tid.rows[i];
        if (r->val > best || (r->val == best && (int64_t)r->key < tid)) {
            best = r->val;
            tid = (int64_t)r->key;
        }
    }
    return tid;
}

/* CPU-sample evidence (doctor/cpu.c) for finding f over windows win of thread tid; the
 * sentence it yields is appended to the title. */

void doc_launch_stats(struct doc_ctx *c, struct doc_launch *l)
{
    const struct lat_trace *t = c->t;
    memset(l, 0, sizeof(*l));
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_KERNEL || g->step < 0) continue;
        l->kernels++;
        if (g->graph) {
            l->graph_kernels++;
            continue;
        }
        if (g->launch < 0) continue;
        l->with_launch++;
        l->eager_kernels++;
        lat_ns cpu = t->ev.dur[g->launch], gpu = g->end - g->ts;
        l->launch_cpu += cpu;
        if (cpu <= c->o->th.short_kernel_cutoff && gpu < cpu) {
            l->short_kernels++;
            l->short_launch_cpu += cpu;
        }
    }
}
