/*
 * timeline.c - lanes, nesting and level-of-detail bins of a trace for the report's timeline
 * (see timeline.h for the model).
 */
#include "report/timeline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/grow.h"

/* Event indexes by start, longer first, then index; ctx: the trace (qsort_r, core/sort.h). */
static int cmp_ev(const void *a, const void *b, void *ctx)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct lat_event_cols *c = &((const struct lat_trace *)ctx)->ev;
    if (c->ts[x] != c->ts[y]) return c->ts[x] < c->ts[y] ? -1 : 1;
    if (c->dur[x] != c->dur[y]) return c->dur[x] > c->dur[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Times are kept within +-2^61 ns (73 years) so that every sum and difference below fits. */
#define TL_TIME_MAX ((lat_ns)1 << 61)

static bool is_duration_event(const struct lat_trace *t, size_t i)
{
    unsigned k = t->ev.kind[i];
    if (k == LAT_EV_INSTANT || k == LAT_EV_COUNTER) return false;
    if (t->ev.flags[i] & LAT_EVF_INSTANT) return false;
    lat_ns ts = t->ev.ts[i], dur = t->ev.dur[i];
    return dur >= 0 && dur <= TL_TIME_MAX && ts >= -TL_TIME_MAX && ts <= TL_TIME_MAX;
}

static bool is_annotation(const struct lat_trace *t, size_t i)
{
    unsigned k = t->ev.kind[i];
    return (k == LAT_EV_USER_ANNOTATION || k == LAT_EV_GPU_ANNOTATION) &&
           !(t->ev.flags[i] & LAT_EVF_STEP);
}

static char *lane_label(const struct lat_trace *t, const struct lat_track *tr, bool annot)
{
    struct lat_buf b = LAT_BUF_INIT;
    int rc = 0;
    if (tr->gpu) {
        if (tr->pid_label)
            rc |= buf_printf(&b, "%s", lat_trace_str(t, tr->pid_label));
        else if (tr->pid_str)
            rc |= buf_printf(&b, "%s", lat_trace_str(t, tr->pid_str));
        else
            rc |= buf_printf(&b, "GPU %lld", (long long)tr->pid);
        if (tr->tid_str)
            rc |= buf_printf(&b, " %s", lat_trace_str(t, tr->tid_str));
        else
            rc |= buf_printf(&b, " stream %lld", (long long)tr->tid);
    } else {
        if (tr->pid_label)
            rc |= buf_printf(&b, "%s", lat_trace_str(t, tr->pid_label));
        else if (tr->pid_str)
            rc |= buf_printf(&b, "%s", lat_trace_str(t, tr->pid_str));
        else
            rc |= buf_printf(&b, "pid %lld", (long long)tr->pid);
        if (tr->tid_label)
            rc |= buf_printf(&b, " / %s", lat_trace_str(t, tr->tid_label));
        else if (tr->tid_str)
            rc |= buf_printf(&b, " / %s", lat_trace_str(t, tr->tid_str));
        else
            rc |= buf_printf(&b, " / thread %lld", (long long)tr->tid);
    }
    if (annot) rc |= buf_puts(&b, " (annotations)");
    if (rc) {
        buf_fini(&b);
        return NULL;
    }
    return b.data;
}

/* Lane order: annotations and CPU threads by (pid, tid), then GPU streams by (device, stream). */
static int cmp_lane(const void *a, const void *b, void *ctx)
{
    const struct rep_tl *order_tl = ctx;
    const struct rep_tl_lane *x = a, *y = b;
    const struct lat_track *tx = &order_tl->trace->tracks[x->track];
    const struct lat_track *ty = &order_tl->trace->tracks[y->track];
    if (x->gpu != y->gpu) return x->gpu ? 1 : -1;
    if (tx->pid != ty->pid) return tx->pid < ty->pid ? -1 : 1;
    if (tx->tid != ty->tid) return tx->tid < ty->tid ? -1 : 1;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->annot != y->annot) return x->annot ? -1 : 1;
    return 0;
}

/* Finds or inserts bin idx among the last entries of lb (bins are touched in nearly ascending
 * order: events are sorted by start and a small event spans at most three bins). */
static struct rep_tl_bin *bin_at(struct rep_tl_lane_bins *lb, int64_t idx)
{
    size_t k = lb->n;
    while (k > 0 && lb->b[k - 1].idx > idx)
        k--;
    if (k > 0 && lb->b[k - 1].idx == idx) return &lb->b[k - 1];
    if (LAT_GROW(lb->b, lb->cap, lb->n, 1, 64)) return NULL;
    memmove(&lb->b[k + 1], &lb->b[k], (lb->n - k) * sizeof(*lb->b));
    lb->n++;
    struct rep_tl_bin *bn = &lb->b[k];
    *bn = (struct rep_tl_bin){.idx = idx, .top = UINT32_MAX, .depth = UINT16_MAX};
    return bn;
}

static int bin_lane(const struct rep_tl *tl, const struct rep_tl_lane *ln, lat_ns w,
                    struct rep_tl_lane_bins *lb)
{
    const struct lat_event_cols *c = &tl->trace->ev;
    lat_ns big = 2 * w;
    for (size_t i = 0; i < ln->n; i++)
        if (c->dur[ln->ev[i]] >= big) lb->nbig++;
    if (lb->nbig) {
        lb->big = malloc(lb->nbig * sizeof(*lb->big));
        if (!lb->big) return -ENOMEM;
    }
    size_t nb = 0;
    for (size_t i = 0; i < ln->n; i++) {
        uint32_t e = ln->ev[i];
        lat_ns ts = c->ts[e] - tl->t0, dur = c->dur[e];
        if (dur >= big) {
            lb->big[nb++] = (uint32_t)i;
            continue;
        }
        struct rep_tl_bin *bn = bin_at(lb, ts / w);
        if (!bn) return -ENOMEM;
        bn->count++;
        if (ln->depth[i] < bn->depth) bn->depth = ln->depth[i];
        int32_t p = ln->parent[i];
        bool outer = p < 0 || c->dur[ln->ev[p]] >= big;
        if (!outer) continue;
        /* spread the event over the bins it covers (at most three: dur < 2w) */
        lat_ns end = ts + dur;
        for (int64_t k = ts / w;; k++) {
            lat_ns b0 = k * w, b1 = b0 + w;
            lat_ns lo = ts > b0 ? ts : b0, hi = end < b1 ? end : b1;
            struct rep_tl_bin *bk = bin_at(lb, k);
            if (!bk) return -ENOMEM;
            lat_ns part = hi > lo ? hi - lo : 0;
            bk->busy += part;
            if (bk->busy > w) bk->busy = w; /* partial overlaps of outer events */
            if (ln->depth[i] < bk->depth) bk->depth = ln->depth[i];
            if (bk->top == UINT32_MAX || part > bk->top_part) {
                bk->top = (uint32_t)i;
                bk->top_part = part;
            }
            if (end <= b1) break;
        }
    }
    return 0;
}

/* An upper bound of the events starting in any window of width win: the sum over lanes of
 * each lane's maximum (two pointers over its sorted starts). */
static size_t max_window_events(const struct rep_tl *tl, lat_ns win)
{
    const lat_ns *ts = tl->trace->ev.ts;
    size_t total = 0;
    for (size_t l = 0; l < tl->nlanes; l++) {
        const struct rep_tl_lane *ln = &tl->lanes[l];
        size_t best = 0, a = 0;
        for (size_t b = 0; b < ln->n; b++) {
            while (ts[ln->ev[b]] - ts[ln->ev[a]] >= win)
                a++;
            if (b - a + 1 > best) best = b - a + 1;
        }
        total += best;
    }
    return total;
}

static void lane_bins_free(struct rep_tl_lane_bins *lb)
{
    free(lb->b);
    free(lb->big);
}

void rep_tl_free(struct rep_tl *tl)
{
    if (!tl) return;
    for (size_t l = 0; l < tl->nlevels; l++) {
        for (size_t i = 0; tl->levels[l].lanes && i < tl->nlanes; i++)
            lane_bins_free(&tl->levels[l].lanes[i]);
        free(tl->levels[l].lanes);
    }
    for (size_t i = 0; i < tl->nlanes; i++) {
        free(tl->lanes[i].label);
        free(tl->lanes[i].ev);
        free(tl->lanes[i].depth);
        free(tl->lanes[i].parent);
    }
    free(tl->lanes);
    free(tl->names);
    free(tl->name_of);
    free(tl);
}

int rep_tl_build(const struct lat_trace *t, struct rep_tl **out)
{
    *out = NULL;
    struct rep_tl *tl = calloc(1, sizeof(*tl));
    if (!tl) return -ENOMEM;
    tl->trace = t;
    int rc = -ENOMEM;
    size_t nslots = 2 * t->ntracks;
    size_t *cnt = calloc(nslots + 1, sizeof(*cnt));
    int32_t *lane_of = malloc((nslots + 1) * sizeof(*lane_of));
    if (!cnt || !lane_of) goto fail;

    bool whole_us = true;
    tl->t0 = INT64_MAX;
    tl->t1 = INT64_MIN;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!is_duration_event(t, i) || t->ev.track[i] >= t->ntracks) continue;
        cnt[2 * (size_t)t->ev.track[i] + is_annotation(t, i)]++;
        lat_ns ts = t->ev.ts[i], end = ts + t->ev.dur[i];
        if (ts < tl->t0) tl->t0 = ts;
        if (end > tl->t1) tl->t1 = end;
        if (ts % 1000 || t->ev.dur[i] % 1000) whole_us = false;
    }
    if (tl->t1 > tl->t0 && tl->t1 - tl->t0 > TL_TIME_MAX) {
        rc = LAT_E_OVERFLOW; /* events more than 73 years apart: not one timeline */
        goto fail;
    }
    for (size_t s = 0; s < nslots; s++) {
        lane_of[s] = -1;
        if (cnt[s]) tl->nlanes++;
    }
    if (!tl->nlanes) {
        tl->t0 = tl->t1 = 0;
        tl->unit = 1;
        free(cnt);
        free(lane_of);
        *out = tl;
        return 0;
    }
    if (whole_us && tl->t0 % 1000 == 0)
        tl->unit = 1000;
    else
        tl->unit = 1;
    tl->lanes = calloc(tl->nlanes, sizeof(*tl->lanes));
    if (!tl->lanes) goto fail;
    size_t li = 0;
    for (size_t s = 0; s < nslots; s++) {
        if (!cnt[s]) continue;
        struct rep_tl_lane *ln = &tl->lanes[li];
        ln->track = (uint32_t)(s / 2);
        ln->annot = s & 1;
        ln->gpu = t->tracks[ln->track].gpu;
        ln->ev = malloc(cnt[s] * sizeof(*ln->ev));
        ln->depth = malloc(cnt[s] * sizeof(*ln->depth));
        ln->parent = malloc(cnt[s] * sizeof(*ln->parent));
        ln->label = lane_label(t, &t->tracks[ln->track], ln->annot);
        if (!ln->ev || !ln->depth || !ln->parent || !ln->label) goto fail;
        li++;
    }
    qsort_r(tl->lanes, tl->nlanes, sizeof(*tl->lanes), cmp_lane, tl);
    for (size_t l = 0; l < tl->nlanes; l++)
        lane_of[2 * (size_t)tl->lanes[l].track + tl->lanes[l].annot] = (int32_t)l;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!is_duration_event(t, i) || t->ev.track[i] >= t->ntracks) continue;
        struct rep_tl_lane *ln =
            &tl->lanes[lane_of[2 * (size_t)t->ev.track[i] + is_annotation(t, i)]];
        ln->ev[ln->n++] = (uint32_t)i;
    }
    tl->name_of = malloc((size_t)t->strs.count * sizeof(*tl->name_of));
    if (t->strs.count && !tl->name_of) goto fail;
    for (uint32_t s = 0; s < t->strs.count; s++)
        tl->name_of[s] = UINT32_MAX;

    /* sort each lane, nesting depth and parent with a stack of open events */
    int32_t *stack = NULL;
    size_t maxn = 0;
    for (size_t l = 0; l < tl->nlanes; l++)
        if (tl->lanes[l].n > maxn) maxn = tl->lanes[l].n;
    stack = malloc((maxn + 1) * sizeof(*stack));
    if (!stack) goto fail;
    for (size_t l = 0; l < tl->nlanes; l++) {
        struct rep_tl_lane *ln = &tl->lanes[l];
        qsort_r(ln->ev, ln->n, sizeof(*ln->ev), cmp_ev, (void *)(uintptr_t)t);
        size_t sp = 0;
        for (size_t i = 0; i < ln->n; i++) {
            uint32_t e = ln->ev[i];
            lat_ns ts = t->ev.ts[e];
            while (sp > 0) {
                uint32_t top = ln->ev[stack[sp - 1]];
                if (t->ev.ts[top] + t->ev.dur[top] > ts) break;
                sp--;
            }
            ln->depth[i] = sp > UINT16_MAX ? UINT16_MAX : (uint16_t)sp;
            ln->parent[i] = sp ? stack[sp - 1] : -1;
            if (ln->depth[i] > ln->maxdepth) ln->maxdepth = ln->depth[i];
            stack[sp++] = (int32_t)i;
            uint32_t nm = t->ev.name[e];
            if (nm < t->strs.count && tl->name_of[nm] == UINT32_MAX) {
                if (LAT_GROW(tl->names, tl->names_cap, tl->nnames, 1, 64)) {
                    free(stack);
                    goto fail;
                }
                tl->name_of[nm] = (uint32_t)tl->nnames;
                tl->names[tl->nnames++] = nm;
            }
        }
        tl->nevents += ln->n;
    }
    free(stack);

    /* levels */
    lat_ns span = tl->t1 - tl->t0;
    lat_ns w = (span + REP_TL_BASE_BINS - 1) / REP_TL_BASE_BINS;
    if (w < tl->unit) w = tl->unit;
    while (tl->nlevels < REP_TL_MAX_LEVELS && w >= tl->unit) {
        struct rep_tl_level *lv = &tl->levels[tl->nlevels];
        lv->w = w;
        lv->lanes = calloc(tl->nlanes, sizeof(*lv->lanes));
        if (!lv->lanes) goto fail;
        tl->nlevels++;
        for (size_t l = 0; l < tl->nlanes; l++) {
            rc = bin_lane(tl, &tl->lanes[l], w, &lv->lanes[l]);
            if (rc < 0) goto fail;
            lv->nbins += lv->lanes[l].n;
        }
        rc = -ENOMEM;
        if (lv->nbins > tl->nevents / 2) break;
        /* the page draws raw events below the finest level: stop once every view that narrow
         * holds few enough of them */
        if (max_window_events(tl, REP_TL_VIEW_BINS * w) <= REP_TL_RAW_OK) break;
        if (w / 4 < tl->unit || w < 4) break;
        w /= 4;
    }
    free(cnt);
    free(lane_of);
    *out = tl;
    return 0;
fail:
    free(cnt);
    free(lane_of);
    rep_tl_free(tl);
    return rc;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void write_name_table(struct jsonw *w, const struct rep_tl *tl)
{
    jsonw_key(w, "names");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < tl->nnames; i++)
        jsonw_strn(w, lat_trace_str(tl->trace, tl->names[i]),
                   strtab_len(&tl->trace->strs, tl->names[i]));
    jsonw_arr_end(w);
    jsonw_key(w, "kinds");
    jsonw_arr_begin(w);
    for (int k = 0; k < LAT_EV_KIND_COUNT; k++)
        jsonw_str(w, lat_ev_kind_name((enum lat_ev_kind)k));
    jsonw_arr_end(w);
}

/* A launch (runtime call) or GPU row with a usable correlation id. */
static bool linked(const struct lat_trace *t, uint32_t e)
{
    unsigned k = t->ev.kind[e];
    return t->ev.correlation[e] > 0 && (k == LAT_EV_RUNTIME || lat_ev_kind_is_gpu(k));
}

void rep_tl_write_json(struct jsonw *w, const struct rep_tl *tl)
{
    const struct lat_trace *t = tl->trace;
    jsonw_obj_begin(w);
    jsonw_key(w, "t0_us");
    jsonw_ns_as_us(w, tl->t0);
    jsonw_key(w, "span");
    jsonw_i64(w, (tl->t1 - tl->t0) / tl->unit);
    jsonw_key(w, "unit_ns");
    jsonw_i64(w, tl->unit);
    jsonw_key(w, "events");
    jsonw_u64(w, tl->nevents);
    write_name_table(w, tl);
    jsonw_key(w, "lanes");
    jsonw_arr_begin(w);
    for (size_t l = 0; l < tl->nlanes; l++) {
        const struct rep_tl_lane *ln = &tl->lanes[l];
        jsonw_obj_begin(w);
        jsonw_key(w, "label");
        jsonw_str(w, ln->label);
        jsonw_key(w, "gpu");
        jsonw_bool(w, ln->gpu);
        jsonw_key(w, "annot");
        jsonw_bool(w, ln->annot);
        jsonw_key(w, "maxdepth");
        jsonw_i64(w, ln->maxdepth);
        /* ts: deltas from the previous event (first: from t0), in units */
        jsonw_key(w, "ts");
        jsonw_arr_begin(w);
        lat_ns prev = 0;
        for (size_t i = 0; i < ln->n; i++) {
            lat_ns ts = (t->ev.ts[ln->ev[i]] - tl->t0) / tl->unit;
            jsonw_i64(w, ts - prev);
            prev = ts;
        }
        jsonw_arr_end(w);
        jsonw_key(w, "dur");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < ln->n; i++)
            jsonw_i64(w, t->ev.dur[ln->ev[i]] / tl->unit);
        jsonw_arr_end(w);
        jsonw_key(w, "name");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < ln->n; i++) {
            uint32_t nm = t->ev.name[ln->ev[i]];
            jsonw_u64(w, nm < t->strs.count ? tl->name_of[nm] : 0);
        }
        jsonw_arr_end(w);
        jsonw_key(w, "kind");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < ln->n; i++)
            jsonw_u64(w, t->ev.kind[ln->ev[i]]);
        jsonw_arr_end(w);
        jsonw_key(w, "depth");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < ln->n; i++)
            jsonw_u64(w, ln->depth[i]);
        jsonw_arr_end(w);
        /* correlation ids of launches and GPU rows (the flow from a launch to its kernel),
         * delta-encoded against the lane's previous id: 0 = none, v > 0: prev + v, v < 0:
         * prev + v + 1 (a repeated or smaller id). Only lanes that have one carry it. */
        bool any = false;
        for (size_t i = 0; i < ln->n && !any; i++)
            any = linked(t, ln->ev[i]);
        if (any) {
            jsonw_key(w, "corr");
            jsonw_arr_begin(w);
            int64_t pc = 0;
            for (size_t i = 0; i < ln->n; i++) {
                if (!linked(t, ln->ev[i])) {
                    jsonw_i64(w, 0);
                    continue;
                }
                int64_t cid = t->ev.correlation[ln->ev[i]], d = cid - pc;
                jsonw_i64(w, d > 0 ? d : d - 1);
                pc = cid;
            }
            jsonw_arr_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "levels");
    jsonw_arr_begin(w);
    for (size_t l = 0; l < tl->nlevels; l++) {
        const struct rep_tl_level *lv = &tl->levels[l];
        jsonw_obj_begin(w);
        jsonw_key(w, "w");
        jsonw_i64(w, lv->w / tl->unit);
        jsonw_key(w, "w_ns");
        jsonw_i64(w, lv->w);
        jsonw_key(w, "lanes");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < tl->nlanes; i++) {
            const struct rep_tl_lane_bins *lb = &lv->lanes[i];
            jsonw_obj_begin(w);
            jsonw_key(w, "idx"); /* deltas */
            jsonw_arr_begin(w);
            int64_t pi = 0;
            for (size_t k = 0; k < lb->n; k++) {
                jsonw_i64(w, lb->b[k].idx - pi);
                pi = lb->b[k].idx;
            }
            jsonw_arr_end(w);
            jsonw_key(w, "busy"); /* per mille of the bin */
            jsonw_arr_begin(w);
            for (size_t k = 0; k < lb->n; k++)
                jsonw_i64(w, llround(1000.0 * (double)lb->b[k].busy / (double)lv->w));
            jsonw_arr_end(w);
            jsonw_key(w, "n");
            jsonw_arr_begin(w);
            for (size_t k = 0; k < lb->n; k++)
                jsonw_u64(w, lb->b[k].count);
            jsonw_arr_end(w);
            jsonw_key(w, "top"); /* lane-local event index, -1 when none */
            jsonw_arr_begin(w);
            for (size_t k = 0; k < lb->n; k++)
                jsonw_i64(w, lb->b[k].top == UINT32_MAX ? -1 : (int64_t)lb->b[k].top);
            jsonw_arr_end(w);
            jsonw_key(w, "depth");
            jsonw_arr_begin(w);
            for (size_t k = 0; k < lb->n; k++)
                jsonw_u64(w, lb->b[k].depth);
            jsonw_arr_end(w);
            jsonw_key(w, "big"); /* deltas of lane-local indices */
            jsonw_arr_begin(w);
            uint32_t pb = 0;
            for (size_t k = 0; k < lb->nbig; k++) {
                jsonw_u64(w, lb->big[k] - pb);
                pb = lb->big[k];
            }
            jsonw_arr_end(w);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}
