/*
 * rules.c - the doctor's rules: each reads the preprocessed context (ctx.h) and adds at most a
 * few findings with evidence, an upper-bound saving, a recommendation and a next command.
 *
 * GPU idle time inside the steps is split once, so that no idle microsecond is claimed by two
 * rules: time under a DataLoader op goes to the data-loading rule; a gap whose start follows a
 * host synchronisation (the sync returned when the GPU drained, then the host had to refill it)
 * goes to the sync rule; the rest is "host-late" when the next GPU op was launched after the gap
 * began (HTA's host_wait test, made device-wide), else the GPU had work queued and waited on a
 * dependency, which no rule claims. Host-late idle is launch-bound when most of the host's time
 * in those gaps is spent inside launch calls or most kernels are shorter than their launch (HTA
 * "short kernel"), otherwise it is CPU work between launches. Kernels of one graph replay share
 * the graph launch's correlation, so the gaps inside a replay are never host-late.
 * Thresholds and their sources: struct doc_thresholds and docs/latscope-doctor.md.
 */
#include "core/err.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCT(x, of) ((of) > 0 ? 100.0 * (double)(x) / (double)(of) : 0.0)

/* ---- helpers ---------------------------------------------------------------------------- */

/* Keeps the n worst examples (largest value). */
struct doc_top {
    struct doc_example ex[8];
    char names[8][160];
    char notes[8][160];
    size_t n, max;
};

static void top_init(struct doc_top *t, size_t max)
{
    memset(t, 0, sizeof(*t));
    t->max = max > 8 ? 8 : max;
}

static void top_add(struct doc_top *t, const struct doc_example *e)
{
    if (!t->max) return;
    size_t pos = t->n;
    if (t->n == t->max) {
        if (e->value <= t->ex[t->n - 1].value) return;
        pos = t->n - 1;
    } else {
        t->n++;
    }
    while (pos > 0 && t->ex[pos - 1].value < e->value) {
        t->ex[pos] = t->ex[pos - 1];
        memcpy(t->names[pos], t->names[pos - 1], sizeof(t->names[0]));
        memcpy(t->notes[pos], t->notes[pos - 1], sizeof(t->notes[0]));
        pos--;
    }
    t->ex[pos] = *e;
    snprintf(t->names[pos], sizeof(t->names[0]), "%s", e->name ? e->name : "");
    snprintf(t->notes[pos], sizeof(t->notes[0]), "%s", e->note ? e->note : "");
}

static void top_emit(struct doc_ctx *c, struct doc_finding *f, struct doc_top *t)
{
    for (size_t i = 0; i < t->n; i++) {
        t->ex[i].name = t->names[i];
        t->ex[i].note = t->notes[i][0] ? t->notes[i] : NULL;
        doc_example_add(c->r, f, &t->ex[i]);
    }
}

static const char *fmt_ns(lat_ns ns, char *buf, size_t len)
{
    return units_format_duration(ns, buf, len);
}

/* Per step: what a "step" is called in titles. */
static const char *per_step(const struct doc_ctx *c)
{
    return c->steps_real ? "step" : "trace window";
}

/* Sorted view of an accumulator: entries by value, descending. */
struct doc_kvpair {
    uint64_t key;
    lat_ns val;
    uint32_t cnt;
};

static int cmp_kvpair(const void *x, const void *y)
{
    const struct doc_kvpair *a = x, *b = y;
    if (a->val != b->val) return a->val > b->val ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

static struct doc_kvpair *acc_sorted(const struct doc_acc *a, size_t *n)
{
    struct doc_kvpair *v = malloc((a->n ? a->n : 1) * sizeof(*v));
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < a->cap; i++)
        if (a->used[i]) v[(*n)++] = (struct doc_kvpair){a->keys[i], a->val[i], a->cnt[i]};
    qsort(v, *n, sizeof(*v), cmp_kvpair);
    return v;
}

/* "name" or "name (under op)" of an attribution key. */
static void key_label(const struct doc_ctx *c, uint64_t key, char *buf, size_t len)
{
    uint32_t name = (uint32_t)(key >> 32), under = (uint32_t)key;
    if (under && name != DOC_NAME_NONE && name != DOC_NAME_STEP)
        snprintf(buf, len, "%s (under %s)", doc_key_name(c, name), lat_trace_str(c->t, under));
    else
        snprintf(buf, len, "%s", doc_key_name(c, name));
}

static int64_t stream_of(const struct doc_ctx *c, size_t ev)
{
    return c->t->ev.stream[ev];
}

static const char *op_name_or(const struct doc_ctx *c, int64_t op, const char *dflt)
{
    return op >= 0 ? doc_name(c, (size_t)op) : dflt;
}

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

struct doc_idle {
    lat_ns host_late, head_tail, queued, sync_bubble, launch_self, attributed;
    struct doc_acc by_key;       /* CPU self time in host-late gaps */
    struct doc_acc sync_by_op;   /* bubble per causing op (key: sync name << 32 | op name) */
    struct doc_acc sync_blocked; /* blocked time per causing op */
    struct doc_acc late_tid;     /* host-late idle per launching thread (key: tid) */
    struct doc_ivl_set late;     /* the host-late idle windows (merged after decompose) */
    uint64_t nsync, nsync_dtoh;
    lat_ns blocked;
    struct doc_top gaps, syncs;
};

static unsigned api_of_ev(struct doc_ctx *c, size_t ev)
{
    uint16_t k = c->t->ev.kind[ev];
    if (k != LAT_EV_RUNTIME && k != LAT_EV_DRIVER) return 0;
    return doc_api_class(c, c->t->ev.name[ev]);
}

static bool is_sync_call(struct doc_ctx *c, size_t ev)
{
    return (api_of_ev(c, ev) & (DOC_API_SYNC | DOC_API_MEMCPY)) != 0;
}

static int idle_decompose(struct doc_ctx *c, struct doc_idle *d)
{
    const struct lat_trace *t = c->t;
    size_t ns = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        if (is_sync_call(c, i) && t->ev.dur[i] >= 0) ns++;
    struct doc_sync *sy = malloc((ns ? ns : 1) * sizeof(*sy));
    struct doc_ivl_set gaps = {0}, piece = {0}, rest = {0};
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
        if (doc_ivl_gaps_in(&c->busy, st->ts, st->end, &gaps)) goto nomem;
        if (!c->ng) break; /* no GPU at all: nothing is "idle" */
        for (size_t k = 0; k < gaps.n && !rc; k++) {
            lat_ns g0 = gaps.v[k].a, g1 = gaps.v[k].b;
            doc_ivl_reset(&piece);
            if (doc_ivl_push(&piece, g0, g1)) goto nomem;
            if (doc_ivl_subtract(&piece, &c->dataloader, &rest)) goto nomem;
            lat_ns len = doc_ivl_measure(&rest);
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
                         op_name_or(c, op, "(no op)"), (double)len / 1000.0);
                e.note = note;
                top_add(&d->syncs, &e);
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
                rc = doc_attr_window(c, tr, rest.v[p].a, rest.v[p].b, &d->by_key);
                if (!rc) rc = doc_ivl_push(&d->late, rest.v[p].a, rest.v[p].b);
            }
            if (!rc && tr < t->ntracks)
                rc = doc_acc_add(&d->late_tid, (uint64_t)t->tracks[tr].tid, len, 1);
            struct doc_example e = {0};
            char name[200], note[200];
            if (!tail && nx < c->ng)
                snprintf(name, sizeof(name), "GPU idle before %s", doc_name(c, c->g[nx].ev));
            else
                snprintf(name, sizeof(name), "GPU idle at the end of the %s", per_step(c));
            e.name = name;
            e.ts = g0;
            e.offset = g0 - c->t0;
            e.dur = g1 - g0;
            e.value = len;
            e.step = c->steps_real ? st->num : -1;
            e.stream = -1;
            e.tid = tr < t->ntracks ? t->tracks[tr].tid : -1;
            if (launch >= 0) {
                snprintf(note, sizeof(note), "next launch %s from %s came %.1f us into the gap",
                         doc_name(c, (size_t)launch),
                         op_name_or(c, doc_enclosing_op(c, (size_t)launch), "(no op)"),
                         (double)(t->ev.ts[launch] - g0) / 1000.0);
                e.note = note;
            }
            top_add(&d->gaps, &e);
        }
    }
    if (rc) goto nomem;
    doc_ivl_merge(&d->late);
    /* Launch-call self time inside the host-late gaps. */
    for (size_t i = 0; i < d->by_key.cap; i++) {
        if (!d->by_key.used[i]) continue;
        uint32_t name = (uint32_t)(d->by_key.keys[i] >> 32);
        lat_ns v = d->by_key.val[i];
        if (v <= 0) continue;
        d->attributed += v;
        if (name < DOC_NAME_NONE && (doc_api_class(c, name) & DOC_API_LAUNCH)) d->launch_self += v;
    }
    /* DtoH copies that a sync followed (the `.cpu()` / `.item()` pattern). */
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_MEMCPY || !strstr(doc_name(c, g->ev), "DtoH")) continue;
        if (g->launch >= 0 && (api_of_ev(c, (size_t)g->launch) & DOC_API_MEMCPY)) {
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
    doc_ivl_fini(&gaps);
    doc_ivl_fini(&piece);
    doc_ivl_fini(&rest);
    return 0;
nomem:
    free(sy);
    doc_ivl_fini(&gaps);
    doc_ivl_fini(&piece);
    doc_ivl_fini(&rest);
    return -ENOMEM;
}

static void idle_fini(struct doc_idle *d)
{
    doc_acc_fini(&d->by_key);
    doc_acc_fini(&d->sync_by_op);
    doc_acc_fini(&d->sync_blocked);
    doc_acc_fini(&d->late_tid);
    doc_ivl_fini(&d->late);
}

/* The thread that launched most of the host-late idle time (-1 when none). */
static int64_t late_thread(const struct doc_idle *d)
{
    int64_t tid = -1;
    lat_ns best = -1;
    for (size_t i = 0; i < d->late_tid.cap; i++)
        if (d->late_tid.used[i] && d->late_tid.val[i] > best) {
            best = d->late_tid.val[i];
            tid = (int64_t)d->late_tid.keys[i];
        }
    return tid;
}

/* CPU-sample evidence (doctor/cpu.c) for finding f over windows win of thread tid; the
 * sentence it yields is appended to the title. */
static void add_cpu_evidence(struct doc_ctx *c, struct doc_finding *f, int64_t tid,
                             const struct doc_ivl_set *win)
{
    char text[600];
    if (tid < 0 || doc_cpu_evidence(c, f, tid, win, text, sizeof(text)) <= 0 || !text[0]) return;
    doc_set(c->r, &f->title, "%s; %s", f->title ? f->title : "", text);
}

/* Kernel launch statistics inside steps (HTA short-kernel rule). */
struct doc_launch {
    uint64_t kernels, with_launch, short_kernels, graph_kernels, eager_kernels;
    lat_ns launch_cpu, short_launch_cpu;
};

static void launch_stats(struct doc_ctx *c, struct doc_launch *l)
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

static void add_attribution_table(struct doc_ctx *c, struct doc_finding *f,
                                  const struct doc_acc *acc, double nsteps, size_t max)
{
    size_t n;
    struct doc_kvpair *v = acc_sorted(acc, &n);
    if (!v) {
        c->r->err = -ENOMEM;
        return;
    }
    for (size_t i = 0, shown = 0; i < n && shown < max; i++) {
        if (v[i].val <= 0) continue;
        char label[400];
        key_label(c, v[i].key, label, sizeof(label));
        doc_row_begin(c->r, f, "cpu_time_in_gaps");
        doc_kv_str(c->r, f, "what", label);
        doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)v[i].val / nsteps));
        doc_row_end(f);
        shown++;
    }
    free(v);
}

/* The next step of a host-side finding: record CPU samples, unless the trace already has them
 * (never ask for what the trace holds); then read them with analyze. `with_samples` follows
 * "latscope analyze <this trace>   # ", `without` follows the trace command. */
static void cpu_next_step(struct doc_ctx *c, struct doc_finding *f, const char *with_samples,
                          const char *without)
{
    if (doc_cpu_has_samples(c->t))
        doc_set(c->r, &f->next_step, "latscope analyze <this trace>   # %s", with_samples);
    else
        doc_set(c->r, &f->next_step,
                "latscope trace --cuda --cpu -o run.pt.trace.json.gz -- <your command> %s",
                without);
}

static void rule_host_idle(struct doc_ctx *c, struct doc_idle *d, const struct doc_launch *l)
{
    const struct doc_thresholds *th = &c->o->th;
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)d->host_late / nst);
    if (PCT(per, c->step_mean) < th->host_idle_pct) return;
    double launch_share = d->attributed > 0 ? (double)d->launch_self / (double)d->attributed : 0;
    double short_share = l->with_launch ? (double)l->short_kernels / (double)l->with_launch : 0;
    bool launch_bound = launch_share >= th->launch_bound_share ||
                        (short_share >= th->launch_bound_share && l->with_launch >= 10 * nst);
    bool graphs = c->graph_launches > 0 || l->graph_kernels > 0;
    /* Most of the idle before the first / after the last GPU op of the step: the CPU prepares
     * inputs or processes outputs while the GPU has nothing (issue rule 7, CPU-only time). */
    bool prepost = !launch_bound && d->head_tail * 2 >= d->host_late;
    char b1[32];
    struct doc_finding *f = doc_finding_add(c->r,
                                            launch_bound ? "launch-bound"
                                            : prepost    ? "cpu-pre-post-processing"
                                                         : "host-bound-idle",
                                            c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    double kps = (double)l->kernels / nst;
    if (launch_bound)
        doc_set(c->r, &f->title,
                "GPU idle %.1f %% of each %s waiting for the host to launch kernels: %.0f "
                "kernels per %s, %.0f %% shorter than their launch",
                f->saving_pct, per_step(c), kps, per_step(c), 100.0 * short_share);
    else if (prepost)
        doc_set(c->r, &f->title,
                "GPU idle %.1f %% of each %s while the CPU works before the first or after the "
                "last GPU op (pre/post-processing, %s per %s)",
                f->saving_pct, per_step(c), fmt_ns(per, b1, sizeof(b1)), per_step(c));
    else
        doc_set(c->r, &f->title,
                "GPU idle %.1f %% of each %s while the CPU works between launches (%s per %s)",
                f->saving_pct, per_step(c), fmt_ns(per, b1, sizeof(b1)), per_step(c));
    doc_set(c->r, &f->saving_method,
            "GPU idle time per %s whose next GPU op was launched after the idle period began "
            "(HTA host_wait, device-wide), excluding DataLoader and post-sync gaps; an upper "
            "bound: the GPU cannot gain more than the time it sat idle",
            per_step(c));
    doc_kv_us(c->r, f, "host_late_idle_us_per_step", per);
    doc_kv_num(c->r, f, "host_late_idle_pct", PCT(per, c->step_mean));
    doc_kv_us(c->r, f, "head_tail_idle_us_per_step", (lat_ns)((double)d->head_tail / nst));
    doc_kv_us(c->r, f, "launch_api_us_per_step_in_gaps", (lat_ns)((double)d->launch_self / nst));
    doc_kv_num(c->r, f, "launch_api_share_of_gap_cpu_time", launch_share);
    doc_kv_num(c->r, f, "kernels_per_step", kps);
    doc_kv_num(c->r, f, "short_kernel_share", short_share);
    doc_kv_us(c->r, f, "short_kernel_cutoff_us", th->short_kernel_cutoff);
    doc_kv_bool(c->r, f, "cuda_graphs_in_use", graphs);
    doc_kv_int(c->r, f, "graph_launches", (int64_t)c->graph_launches);
    doc_kv_int(c->r, f, "graph_kernels", (int64_t)l->graph_kernels);
    doc_kv_us(c->r, f, "mean_step_us", c->step_mean);
    add_attribution_table(c, f, &d->by_key, nst, 6);
    add_cpu_evidence(c, f, late_thread(d), &d->late);
    top_emit(c, f, &d->gaps);
    if (launch_bound && graphs) {
        doc_set(c->r, &f->recommendation,
                "The trace already replays CUDA graphs (%" PRIu64 " graph launches); %.0f kernels "
                "per %s are still launched one by one outside them. Bring those ops into the "
                "captured region: PyTorch: widen the torch.cuda.graph / torch.compile("
                "mode=\"reduce-overhead\") region and remove graph breaks (torch._dynamo.explain); "
                "TensorRT: capture the whole enqueueV3 sequence, including pre/post-processing "
                "kernels; ONNX Runtime: keep every node on the CUDA EP so enable_cuda_graph "
                "covers the whole run. Fuse the remaining small ops.",
                c->graph_launches, (double)l->eager_kernels / nst, per_step(c));
    } else if (launch_bound) {
        doc_set(c->r, &f->recommendation,
                "Launch overhead dominates: replace many small launches by few. PyTorch: "
                "torch.compile(model, mode=\"reduce-overhead\") (fuses ops and replays CUDA "
                "graphs) or capture the step with torch.cuda.CUDAGraph; use fused kernels "
                "(fused optimizers, SDPA, channels_last + cudnn). TensorRT: build an engine "
                "instead of eager ops and run it with CUDA graphs (trtexec --useCudaGraph). "
                "ONNX Runtime: CUDA EP provider option enable_cuda_graph=1 with fixed shapes and "
                "IOBinding, or the TensorRT EP.");
    } else if (prepost) {
        doc_set(c->r, &f->recommendation,
                "CPU-only work at the start or end of each %s leaves the GPU idle (see "
                "cpu_time_in_gaps). Overlap it with GPU work or move it to the GPU: pipeline "
                "requests so the next one's preprocessing runs while this one computes "
                "(a producer thread/process and a queue), decode/resize on the GPU (DALI, "
                "torchvision.io.decode_jpeg(device=\"cuda\"), nvJPEG), keep post-processing "
                "(argmax, top-k, NMS, detokenisation inputs) on the GPU and copy only the final "
                "result. TensorRT: enqueue the next inference before post-processing the "
                "previous one (two streams, double-buffered I/O). ONNX Runtime: put "
                "pre/post-processing into the graph (onnxruntime-extensions) or a worker pool.",
                per_step(c));
    } else {
        doc_set(c->r, &f->recommendation,
                "The host is the bottleneck: the GPU waits while Python/framework code runs "
                "between launches (see cpu_time_in_gaps). Move that work off the critical path "
                "or make it cheaper: PyTorch: torch.compile to remove Python overhead, avoid "
                "per-step tensor creation and Python loops over tensors, run pre/post-processing "
                "on the GPU or in another thread/process; TensorRT: enqueue the next inference "
                "before post-processing the previous one (double-buffer with two streams); "
                "ONNX Runtime: run pre/post-processing as ONNX nodes or in worker threads.");
    }
    cpu_next_step(c, f,
                  "its CPU section lists the functions and stacks of the samples; the "
                  "cpu_time_in_gaps evidence above covers the gaps",
                  "&& latscope doctor run.pt.trace.json.gz   # CPU samples show which "
                  "Python/framework frames fill the GPU gaps");
}

static void rule_sync(struct doc_ctx *c, struct doc_idle *d)
{
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)d->sync_bubble / nst);
    if (PCT(per, c->step_mean) < c->o->th.sync_pct) return;
    struct doc_finding *f = doc_finding_add(c->r, "sync-points", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    char b1[32];
    doc_set(c->r, &f->title,
            "Host synchronisations drain the GPU: %.1f sync calls per %s, GPU idle %s per %s "
            "after them",
            (double)d->nsync / nst, per_step(c), fmt_ns(per, b1, sizeof(b1)), per_step(c));
    doc_set(c->r, &f->saving_method,
            "GPU idle gaps that begin when a blocking call (cudaStreamSynchronize, "
            "cudaDeviceSynchronize, blocking cudaMemcpy, ...) returns, per %s: without the sync "
            "the host would have queued the next work before the GPU ran dry; upper bound",
            per_step(c));
    doc_kv_num(c->r, f, "syncs_per_step", (double)d->nsync / nst);
    doc_kv_us(c->r, f, "blocked_us_per_step", (lat_ns)((double)d->blocked / nst));
    doc_kv_us(c->r, f, "gpu_idle_after_sync_us_per_step", per);
    doc_kv_int(c->r, f, "dtoh_copies_followed_by_sync", (int64_t)d->nsync_dtoh);
    size_t n;
    struct doc_kvpair *v = acc_sorted(&d->sync_by_op, &n);
    if (!v) {
        c->r->err = -ENOMEM;
        return;
    }
    for (size_t i = 0; i < n && i < 6; i++) {
        uint32_t name = (uint32_t)(v[i].key >> 32), op = (uint32_t)v[i].key;
        doc_row_begin(c->r, f, "by_cause");
        doc_kv_str(c->r, f, "call", lat_trace_str(c->t, name));
        doc_kv_str(c->r, f, "op", op ? lat_trace_str(c->t, op) : "(no op)");
        doc_kv_num(c->r, f, "count_per_step", (double)v[i].cnt / nst);
        doc_kv_us(c->r, f, "gpu_idle_after_us_per_step", (lat_ns)((double)v[i].val / nst));
        doc_kv_us(c->r, f, "blocked_us_per_step",
                  (lat_ns)((double)doc_acc_get(&d->sync_blocked, v[i].key) / nst));
        doc_row_end(f);
    }
    free(v);
    top_emit(c, f, &d->syncs);
    doc_set(c->r, &f->recommendation,
            "Remove host syncs from the step or move them to its end. PyTorch: "
            "torch.cuda.set_sync_debug_mode(\"warn\") prints the Python line of every syncing "
            "op; avoid .item(), .cpu(), .tolist(), print(tensor), bool(tensor) and "
            "torch.nonzero/masked_select (data-dependent shapes) inside the loop; keep metrics "
            "on the GPU and read them once per N steps; use non_blocking copies into pinned "
            "memory plus a CUDA event instead of a blocking copy. TensorRT: use "
            "cudaEventSynchronize on the output event instead of cudaStreamSynchronize/"
            "cudaDeviceSynchronize, and pinned output buffers. ONNX Runtime: IOBinding with "
            "device outputs avoids the implicit copy-and-sync per run.");
    doc_set(c->r, &f->next_step,
            "nsys profile -t cuda,nvtx,osrt -o syncs <your command> && nsys analyze -r "
            "cuda_api_sync,cuda_memcpy_sync syncs.nsys-rep");
}

/* ---- R3: host<->device copies ---------------------------------------------------------- */

static void rule_memcpy(struct doc_ctx *c, const struct doc_idle *d)
{
    const struct lat_trace *t = c->t;
    const struct doc_thresholds *th = &c->o->th;
    struct doc_ivl_set hd = {0}, exposed = {0};
    uint64_t n_h2d = 0, n_d2h = 0, pageable = 0, small = 0, same_stream = 0;
    int64_t bytes_h2d = 0, bytes_d2h = 0;
    lat_ns t_h2d = 0, t_d2h = 0;
    struct doc_top top;
    top_init(&top, c->o->max_examples);
    /* streams that run compute kernels */
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_MEMCPY || g->step < 0) continue;
        const char *nm = doc_name(c, g->ev);
        bool h2d = strstr(nm, "HtoD") != NULL, d2h = strstr(nm, "DtoH") != NULL;
        if (!h2d && !d2h) continue;
        if (doc_ivl_push(&hd, g->ts, g->end)) goto nomem;
        int64_t bytes = 0;
        lat_trace_arg_int(t, g->ev, "bytes", &bytes);
        if (h2d) {
            n_h2d++;
            bytes_h2d += bytes;
            t_h2d += g->end - g->ts;
        } else {
            n_d2h++;
            bytes_d2h += bytes;
            t_d2h += g->end - g->ts;
        }
        if (strstr(nm, "Pageable")) pageable++;
        if (bytes > 0 && bytes <= th->small_copy_bytes) small++;
        lat_ns kern = doc_ivl_measure_in(&c->kernels, g->ts, g->end);
        struct doc_example e;
        doc_example_from(c, g->ev, &e);
        e.value = (g->end - g->ts) - kern;
        char note[160];
        snprintf(note, sizeof(note), "%" PRId64 " bytes%s", bytes,
                 strstr(nm, "Pageable") ? ", pageable host memory" : "");
        e.note = note;
        top_add(&top, &e);
    }
    doc_ivl_merge(&hd);
    if (doc_ivl_subtract(&hd, &c->kernels, &exposed)) goto nomem;
    lat_ns exp = doc_ivl_measure(&exposed);
    /* copies that share a stream with compute kernels (serialised with compute) */
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_MEMCPY || g->step < 0) continue;
        int64_t s = stream_of(c, g->ev);
        for (size_t j = k; j < c->ng && j < k + 64; j++)
            if (c->g[j].kind == LAT_EV_KERNEL && stream_of(c, c->g[j].ev) == s) {
                same_stream++;
                break;
            }
    }
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)exp / nst);
    if (PCT(per, c->step_mean) >= th->memcpy_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "memcpy-exposed", c->trace);
        if (!f) goto nomem;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title, "Host<->device copies stall the GPU for %s per %s (%.1f %%)%s",
                fmt_ns(per, b1, sizeof(b1)), per_step(c), f->saving_pct,
                pageable ? ", from pageable memory" : "");
        doc_set(c->r, &f->saving_method,
                "time per %s during which an HtoD/DtoH copy runs and no kernel does (copies "
                "not hidden under compute); upper bound: overlapping or removing the copies "
                "saves at most this",
                per_step(c));
        doc_kv_us(c->r, f, "exposed_copy_us_per_step", per);
        doc_kv_num(c->r, f, "h2d_per_step", (double)n_h2d / nst);
        doc_kv_num(c->r, f, "h2d_bytes_per_step", (double)bytes_h2d / nst);
        doc_kv_us(c->r, f, "h2d_us_per_step", (lat_ns)((double)t_h2d / nst));
        doc_kv_num(c->r, f, "d2h_per_step", (double)n_d2h / nst);
        doc_kv_num(c->r, f, "d2h_bytes_per_step", (double)bytes_d2h / nst);
        doc_kv_us(c->r, f, "d2h_us_per_step", (lat_ns)((double)t_d2h / nst));
        doc_kv_int(c->r, f, "pageable_copies", (int64_t)pageable);
        doc_kv_int(c->r, f, "small_copies", (int64_t)small);
        doc_kv_int(c->r, f, "small_copy_bytes", th->small_copy_bytes);
        doc_kv_int(c->r, f, "copies_on_a_compute_stream", (int64_t)same_stream);
        doc_kv_int(c->r, f, "dtoh_followed_by_sync", (int64_t)d->nsync_dtoh);
        top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "Take copies off the critical path. PyTorch: DataLoader(pin_memory=True) or "
                "tensor.pin_memory(), then .to(device, non_blocking=True) issued early on a "
                "side stream (torch.cuda.Stream) so it overlaps compute; keep tensors on the "
                "GPU between steps; batch many small copies into one (torch.cat, one buffer); "
                "copy results back once at the end. TensorRT: page-locked host buffers "
                "(cudaHostAlloc) and cudaMemcpyAsync on a separate stream; trtexec "
                "--noDataTransfers shows the compute-only time. ONNX Runtime: IOBinding with "
                "inputs/outputs already on the device (bind_ortvalue_input/output).");
        doc_set(c->r, &f->next_step,
                "nsys profile -t cuda,nvtx -o copies <your command> && nsys analyze -r "
                "cuda_memcpy_async,cuda_memcpy_sync copies.nsys-rep");
    }
    doc_ivl_fini(&hd);
    doc_ivl_fini(&exposed);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_ivl_fini(&hd);
    doc_ivl_fini(&exposed);
}

/* ---- R5: dominant kernels, launch configuration, tensor cores; R5b FP32 ---------------- */

static bool uses_tensor_cores(const char *s)
{
    /* tb_plugin tensor_core.py name patterns */
    static const char *const pat[] = {
        "h884",
        "s884",
        "h1688",
        "s1688",
        "hmma",
        "i8816",
        "16816",
        "dgrad_1x1_stride_2x2",
        "first_layer_wgrad_kernel",
        "conv1x1",
        "conv2d_c1_k1",
        "direct_group",
        "xmma_implicit_gemm",
        "xmma_sparse_conv",
        "xmma_warp_specialized_implicit_gemm",
        "xmma_gemm",
        "xmma_sparse_gemm",
        "c1688",
    };
    for (size_t i = 0; i < sizeof(pat) / sizeof(*pat); i++)
        if (strstr(s, pat[i])) return true;
    /* newer cuBLAS/CUTLASS spellings of tensor-core kernels */
    return strstr(s, "tensorop") || strstr(s, "_tc_") || strstr(s, "wgmma") || strstr(s, "gmma") ||
           strstr(s, "cutlass_80_tensorop") || strstr(s, "sm90_xmma") || strstr(s, "sm80_xmma");
}

static bool half_precision_name(const char *s)
{
    return strstr(s, "fp16") || strstr(s, "bf16") || strstr(s, "f16") || strstr(s, "half") ||
           strstr(s, "hgemm") || strstr(s, "Half") || strstr(s, "BFloat16") || strstr(s, "int8") ||
           strstr(s, "i8");
}

static bool tc_eligible_op(const char *s)
{
    static const char *const exact[] = {
        "addmm",         "matmul",     "mm",        "bmm",      "linear",
        "baddbmm",       "addbmm",     "lstm_cell", "gru_cell", "rnn_tanh_cell",
        "rnn_relu_cell", "_scaled_mm", "einsum",
    };
    static const char *const prefix[] = {
        "conv",
        "_conv",
        "cudnn_conv",
        "ConvolutionBackward",
        "CudnnConvolutionBackward",
        "AddmmBackward",
        "MmBackward",
        "BmmBackward",
        "LinearBackward",
        "MatmulBackward",
        "lstm",
        "gru",
        "rnn",
    };
    if (strncmp(s, "aten::", 6) == 0) s += 6;
    for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++)
        if (strcmp(s, exact[i]) == 0) return true;
    for (size_t i = 0; i < sizeof(prefix) / sizeof(*prefix); i++)
        if (strncmp(s, prefix[i], strlen(prefix[i])) == 0) return true;
    return false;
}

static bool eligible_kernel(const struct doc_ctx *c, const struct doc_gop *g)
{
    if (g->launch < 0) return false;
    for (int64_t p = c->parent[g->launch]; p >= 0; p = c->parent[p])
        if (c->t->ev.kind[p] == LAT_EV_CPU_OP && tc_eligible_op(doc_name(c, (size_t)p)))
            return true;
    return false;
}

/* Parses "[x, y, z]" (raw JSON) or an integer arg into the product of its integers. */
static int64_t arg_dim_product(const struct lat_trace *t, size_t ev, const char *key, char *txt,
                               size_t len)
{
    const struct lat_arg *a = lat_trace_arg(t, ev, key);
    txt[0] = 0;
    if (!a) return -1;
    if (a->type == LAT_ARG_INT) {
        snprintf(txt, len, "%" PRId64, a->v.i);
        return a->v.i;
    }
    if (a->type != LAT_ARG_RAW && a->type != LAT_ARG_STR) return -1;
    const char *s = lat_trace_str(t, a->str);
    snprintf(txt, len, "%s", s);
    int64_t prod = 1;
    bool any = false;
    while (*s) {
        if (*s >= '0' && *s <= '9') {
            int64_t v = 0;
            while (*s >= '0' && *s <= '9' && v < INT64_MAX / 10)
                v = v * 10 + (*s++ - '0');
            if (v > 0 && prod < INT64_MAX / v) prod *= v;
            any = true;
        } else {
            s++;
        }
    }
    return any ? prod : -1;
}

static const struct lat_device *device_for(const struct doc_ctx *c, size_t ev)
{
    const struct lat_trace *t = c->t;
    int32_t d = t->ev.device[ev];
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id == d) return &t->devices[i];
    return t->ndevices ? &t->devices[0] : NULL;
}

/* The function name as ncu's --kernel-name-base=function sees it: no return type, template
 * arguments or parameters; regex-escaped. */
void doc_ncu_name(const char *s, char *out, size_t len)
{
    const char *end = s + strlen(s);
    const char *paren = strchr(s, '(');
    if (paren) end = paren;
    /* strip template args at the end: find the matching '<' of a trailing '>' */
    const char *q = end;
    while (q > s && q[-1] == ' ')
        q--;
    if (q > s && q[-1] == '>') {
        int depth = 0;
        const char *p = q;
        while (p > s) {
            p--;
            if (*p == '>') depth++;
            if (*p == '<' && --depth == 0) break;
        }
        q = p;
    }
    const char *b = q;
    while (b > s && b[-1] != ' ' && b[-1] != ':')
        b--;
    size_t o = 0;
    for (const char *p = b; p < q && o + 3 < len; p++) {
        if (strchr(".[]()*+?^$|\\{}", *p)) out[o++] = '\\';
        out[o++] = *p;
    }
    out[o] = 0;
    if (!o) snprintf(out, len, "%.60s", s);
}

struct kstat {
    uint32_t name;
    lat_ns total, max;
    uint64_t count;
    size_t first_ev, max_ev;
    uint64_t before_max; /* instances of the same name before the longest one */
    bool eligible, tc;
};

static int cmp_kstat(const void *x, const void *y)
{
    const struct kstat *a = x, *b = y;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

static void rule_kernels(struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    const struct doc_thresholds *th = &c->o->th;
    struct doc_acc idx = {0};
    struct kstat *ks = NULL;
    size_t nks = 0, cap = 0;
    lat_ns ktotal = 0, elig_fp32 = 0, elig_total = 0, elig_tc = 0, tc_total = 0;
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_KERNEL || g->comm || g->step < 0) continue;
        uint32_t name = t->ev.name[g->ev];
        lat_ns d = g->end - g->ts;
        ktotal += d;
        lat_ns slot = doc_acc_get(&idx, name);
        struct kstat *s;
        if (!slot) {
            if (nks == cap) {
                cap = cap ? cap * 2 : 64;
                struct kstat *n2 = realloc(ks, cap * sizeof(*ks));
                if (!n2) goto nomem;
                ks = n2;
            }
            s = &ks[nks++];
            memset(s, 0, sizeof(*s));
            s->name = name;
            s->first_ev = s->max_ev = g->ev;
            s->max = -1;
            s->tc = uses_tensor_cores(lat_trace_str(t, name));
            if (doc_acc_add(&idx, name, (lat_ns)nks, 0)) goto nomem;
        } else {
            s = &ks[slot - 1];
        }
        if (d > s->max) {
            s->max = d;
            s->max_ev = g->ev;
            s->before_max = s->count;
        }
        s->count++;
        s->total += d;
        bool el = eligible_kernel(c, g);
        if (el) s->eligible = true;
        if (s->tc) tc_total += d;
        if (el) {
            elig_total += d;
            if (s->tc)
                elig_tc += d;
            else if (!half_precision_name(lat_trace_str(t, name)))
                elig_fp32 += d;
        }
    }
    if (!nks || ktotal <= 0) goto out;
    qsort(ks, nks, sizeof(*ks), cmp_kstat);
    double nst = (double)c->nsteps;
    int32_t major = -1, sms = -1;
    if (t->ndevices) {
        major = t->devices[0].compute_major;
        sms = t->devices[0].num_sms;
    }

    /* R5: dominant kernels */
    if (PCT(ks[0].total, ktotal) >= th->dominant_kernel_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "dominant-kernels", c->trace);
        if (!f) goto nomem;
        doc_saving(f, 0, c->step_mean);
        size_t ndom = 0;
        for (size_t i = 0; i < nks && i < 3; i++)
            if (PCT(ks[i].total, ktotal) >= th->dominant_kernel_pct || i == 0) ndom++;
        char base[200];
        doc_ncu_name(lat_trace_str(t, ks[0].name), base, sizeof(base));
        doc_set(c->r, &f->title, "%s takes %.1f %% of GPU kernel time%s", base,
                PCT(ks[0].total, ktotal), ndom > 1 ? " (and more dominant kernels below)" : "");
        doc_set(c->r, &f->saving_method,
                "not estimated from a trace: what a kernel can gain depends on its roofline "
                "position (measure it with Nsight Compute); its own time per %s is the ceiling",
                per_step(c));
        doc_kv_us(c->r, f, "kernel_time_us_per_step", (lat_ns)((double)ktotal / nst));
        for (size_t i = 0; i < ndom; i++) {
            const struct kstat *s = &ks[i];
            const char *nm = lat_trace_str(t, s->name);
            char grid[96], block[96], ncu[640];
            int64_t gb = arg_dim_product(t, s->max_ev, "grid", grid, sizeof(grid));
            int64_t bt = arg_dim_product(t, s->max_ev, "block", block, sizeof(block));
            int64_t regs = -1, smem = -1, occ = -1;
            lat_trace_arg_int(t, s->max_ev, "registers per thread", &regs);
            lat_trace_arg_int(t, s->max_ev, "shared memory", &smem);
            const struct lat_arg *oa = lat_trace_arg(t, s->max_ev, "est. achieved occupancy %");
            if (oa && oa->type == LAT_ARG_INT) occ = oa->v.i;
            doc_row_begin(c->r, f, "kernels");
            doc_kv_str(c->r, f, "name", nm);
            doc_kv_int(c->r, f, "count", (int64_t)s->count);
            doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)s->total / nst));
            doc_kv_num(c->r, f, "pct_of_kernel_time", PCT(s->total, ktotal));
            doc_kv_us(c->r, f, "max_us", s->max);
            if (grid[0]) doc_kv_str(c->r, f, "grid", grid);
            if (block[0]) doc_kv_str(c->r, f, "block", block);
            if (regs >= 0) doc_kv_int(c->r, f, "registers_per_thread", regs);
            if (smem >= 0) doc_kv_int(c->r, f, "shared_memory_bytes", smem);
            const struct lat_device *dev = device_for(c, s->max_ev);
            int32_t nsm = dev ? dev->num_sms : -1;
            if (gb > 0 && nsm > 0) doc_kv_num(c->r, f, "blocks_per_sm", (double)gb / nsm);
            if (occ >= 0) {
                doc_kv_int(c->r, f, "est_achieved_occupancy_pct", occ);
            } else if (gb > 0 && bt > 0 && dev && dev->max_threads_per_sm > 0 && nsm > 0) {
                /* Kineto's formula with a register/shared-memory bound for active blocks. */
                double active = (double)dev->max_threads_per_sm / (double)bt;
                if (regs > 0 && dev->regs_per_sm > 0) {
                    double r = (double)dev->regs_per_sm / (double)(regs * bt);
                    if (r < active) active = r;
                }
                if (smem > 0 && dev->shared_mem_per_sm > 0) {
                    double m = (double)dev->shared_mem_per_sm / (double)smem;
                    if (m < active) active = m;
                }
                active = (double)(int64_t)active;
                double bps = (double)gb / nsm;
                double occf =
                    100.0 * (active < bps ? active : bps) * (double)bt / dev->max_threads_per_sm;
                doc_kv_num(c->r, f, "est_occupancy_pct", occf > 100 ? 100 : occf);
            }
            doc_kv_bool(c->r, f, "tensor_cores_by_name", s->tc);
            doc_ncu_name(nm, base, sizeof(base));
            snprintf(ncu, sizeof(ncu),
                     "ncu --kernel-name regex:'%s' --launch-skip %" PRIu64
                     " --launch-count 1 --set full -o %.40s <your command>",
                     base, s->before_max, base[0] == '\\' ? "kernel" : base);
            doc_kv_str(c->r, f, "ncu", ncu);
            doc_row_end(f);
            struct doc_example e;
            doc_example_from(c, s->max_ev, &e);
            e.note = "longest instance";
            doc_example_add(c->r, f, &e);
            if (i == 0) doc_set(c->r, &f->next_step, "%s", ncu);
        }
        doc_set(c->r, &f->recommendation,
                "Drill into the kernel with Nsight Compute (command below; --launch-skip counts "
                "launches of that name from the start of the trace window, add the launches "
                "made before profiling started). If it is memory-bound, fuse it with its "
                "neighbours (torch.compile, TensorRT layer fusion); if compute-bound without "
                "tensor cores, use BF16/FP16/TF32 (PyTorch autocast, TensorRT --fp16/--bf16, "
                "ONNX Runtime float16 model); if occupancy is low, check registers and shared "
                "memory per block, or a larger batch.");
    }

    /* R5b: FP32 on tensor-core-eligible ops */
    if ((major < 0 || major >= 7) && PCT(elig_fp32, ktotal) >= th->fp32_eligible_pct &&
        elig_tc <= elig_total / 10) {
        struct doc_finding *f = doc_finding_add(c->r, "fp32-no-tensor-cores", c->trace);
        if (!f) goto nomem;
        lat_ns per = (lat_ns)((double)elig_fp32 / nst * (1.0 - 1.0 / th->fp32_speedup));
        lat_ns busy_per = (lat_ns)((double)doc_ivl_measure(&c->busy) / nst);
        if (per > busy_per) per = busy_per;
        doc_saving(f, per, c->step_mean);
        doc_set(c->r, &f->title,
                "Matmul/conv kernels run in FP32 without tensor cores: %.1f %% of kernel time",
                PCT(elig_fp32, ktotal));
        doc_set(c->r, &f->saving_method,
                "time of kernels launched by tensor-core-eligible ops (conv, mm, addmm, bmm, "
                "matmul, linear, RNN cells; tb_plugin's allowlist) whose names show no tensor "
                "core and no half precision, times (1 - 1/%.1f) for an assumed %.1fx speed-up "
                "with tensor cores, capped at the GPU busy time",
                th->fp32_speedup, th->fp32_speedup);
        doc_kv_us(c->r, f, "eligible_fp32_us_per_step", (lat_ns)((double)elig_fp32 / nst));
        doc_kv_num(c->r, f, "eligible_fp32_pct_of_kernel_time", PCT(elig_fp32, ktotal));
        doc_kv_num(c->r, f, "tensor_core_pct_of_kernel_time", PCT(tc_total, ktotal));
        doc_kv_int(c->r, f, "compute_capability_major", major);
        if (major < 0)
            doc_kv_str(c->r, f, "note", "device properties absent: GPU generation unknown");
        size_t shown = 0;
        for (size_t i = 0; i < nks && shown < 5; i++) {
            const char *nm = lat_trace_str(t, ks[i].name);
            if (!ks[i].eligible || ks[i].tc || half_precision_name(nm)) continue;
            doc_row_begin(c->r, f, "kernels");
            doc_kv_str(c->r, f, "name", nm);
            doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)ks[i].total / nst));
            doc_row_end(f);
            if (!shown) {
                struct doc_example e;
                doc_example_from(c, ks[i].max_ev, &e);
                e.note = "longest instance";
                doc_example_add(c->r, f, &e);
                char base[200];
                doc_ncu_name(nm, base, sizeof(base));
                doc_set(c->r, &f->next_step,
                        "ncu --kernel-name regex:'%s' --launch-skip %" PRIu64
                        " --launch-count 1 --section SpeedOfLight --section "
                        "ComputeWorkloadAnalysis <your command>",
                        base, ks[i].before_max);
            }
            shown++;
        }
        doc_set(c->r, &f->recommendation,
                "Run these ops on tensor cores. PyTorch: torch.autocast(\"cuda\", "
                "dtype=torch.bfloat16) (or float16), or model.half()/bfloat16() for inference; "
                "on Ampere and newer at least torch.backends.cuda.matmul.allow_tf32 = True and "
                "torch.backends.cudnn.allow_tf32 = True (torch.set_float32_matmul_precision("
                "\"high\")). TensorRT: build with --fp16 / --bf16 (or --best, INT8 with "
                "calibration). ONNX Runtime: convert the model to float16 "
                "(onnxconverter_common.float16) or use the TensorRT EP with trt_fp16_enable. "
                "Check accuracy after the change.");
    }

    /* R8: under-filled GPU (blocks < SMs) */
    lat_ns under = 0, lost = 0, known = 0;
    struct doc_top top;
    top_init(&top, c->o->max_examples);
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        /* communication kernels use few blocks by design */
        if (g->kind != LAT_EV_KERNEL || g->comm || g->step < 0) continue;
        char txt[96];
        int64_t gb = arg_dim_product(t, g->ev, "grid", txt, sizeof(txt));
        const struct lat_device *dev = device_for(c, g->ev);
        double bps = -1;
        if (gb > 0 && dev && dev->num_sms > 0)
            bps = (double)gb / dev->num_sms;
        else {
            const struct lat_arg *a = lat_trace_arg(t, g->ev, "blocks per SM");
            if (a && a->type == LAT_ARG_INT)
                bps = (double)a->v.i;
            else if (a && a->type == LAT_ARG_DOUBLE)
                bps = a->v.d;
        }
        if (bps < 0) continue;
        lat_ns d = g->end - g->ts;
        known += d;
        if (bps < 1.0) {
            under += d;
            lost += (lat_ns)((double)d * (1.0 - bps));
            struct doc_example e;
            doc_example_from(c, g->ev, &e);
            e.value = d;
            char note[160];
            snprintf(note, sizeof(note), "grid %.60s = %.2f blocks per SM", txt[0] ? txt : "?",
                     bps);
            e.note = note;
            top_add(&top, &e);
        }
    }
    lat_ns busyk = doc_ivl_measure_in(&c->kernels, c->steps_set.n ? c->steps_set.v[0].a : 0,
                                      c->steps_set.n ? c->steps_set.v[c->steps_set.n - 1].b : 0);
    double util = PCT(busyk, c->step_total);
    if (known > 0 && PCT(under, known) >= th->underfilled_pct &&
        PCT((double)lost / nst, c->step_mean) >= 1.0) {
        struct doc_finding *f = doc_finding_add(c->r, "underfilled-gpu", c->trace);
        if (!f) goto nomem;
        lat_ns per = (lat_ns)((double)lost / nst);
        doc_saving(f, per, c->step_mean);
        if (f->severity == DOC_SEV_HIGH) f->severity = DOC_SEV_MEDIUM;
        doc_set(c->r, &f->title,
                "Under-filled GPU: %.0f %% of kernel time is in kernels with fewer blocks than "
                "SMs%s",
                PCT(under, known),
                util < th->gpu_util_low_pct ? ", and GPU utilization is low" : "");
        doc_set(c->r, &f->saving_method,
                "sum over under-filled kernels of duration x (1 - blocks/SMs): SM time left "
                "unused. It is recovered as throughput (more requests per kernel) by batching, "
                "not as single-request latency; capped at medium severity");
        doc_kv_num(c->r, f, "underfilled_pct_of_kernel_time", PCT(under, known));
        doc_kv_us(c->r, f, "idle_sm_time_us_per_step", per);
        doc_kv_num(c->r, f, "gpu_utilization_pct", util);
        doc_kv_int(c->r, f, "num_sms", sms);
        top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "The batch is too small to fill the GPU. For throughput, batch more requests "
                "per launch: dynamic batching (Triton max_queue_delay_microseconds, TorchServe "
                "batch_size/max_batch_delay, vLLM/TGI continuous batching), larger batch sizes "
                "in PyTorch; TensorRT: build with a larger optimisation profile (--maxShapes) "
                "and run several streams/contexts; ONNX Runtime: batch inputs or run several "
                "sessions concurrently. For latency at batch 1, run independent requests on "
                "several CUDA streams.");
        char base[200] = ".*";
        if (top.n) doc_ncu_name(top.names[0], base, sizeof(base));
        doc_set(c->r, &f->next_step,
                "ncu --kernel-name regex:'%s' --launch-count 1 --section LaunchStats --section "
                "Occupancy <your command>",
                base);
    }
out:
    free(ks);
    doc_acc_fini(&idx);
    return;
nomem:
    c->r->err = -ENOMEM;
    goto out;
}

/* ---- R6: exposed communication -------------------------------------------------------- */

static void rule_comm(struct doc_ctx *c)
{
    if (!c->comm.n) return;
    struct doc_ivl_set exposed = {0}, in = {0};
    if (doc_ivl_subtract(&c->comm, &c->kernels, &exposed) ||
        doc_ivl_intersect(&exposed, &c->steps_set, &in)) {
        c->r->err = -ENOMEM;
        goto out;
    }
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)doc_ivl_measure(&in) / nst);
    lat_ns comm = 0;
    {
        struct doc_ivl_set ci = {0};
        if (doc_ivl_intersect(&c->comm, &c->steps_set, &ci)) {
            c->r->err = -ENOMEM;
            goto out;
        }
        comm = doc_ivl_measure(&ci);
        doc_ivl_fini(&ci);
    }
    if (PCT(per, c->step_mean) >= c->o->th.comm_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "exposed-communication", c->trace);
        if (!f) goto out;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title, "Communication not hidden under compute: %s per %s (%.1f %%)",
                fmt_ns(per, b1, sizeof(b1)), per_step(c), f->saving_pct);
        doc_set(c->r, &f->saving_method,
                "time per %s in communication kernels (nccl/rccl/hccl) with no compute kernel "
                "running; upper bound: perfect overlap hides all of it",
                per_step(c));
        doc_kv_us(c->r, f, "exposed_comm_us_per_step", per);
        doc_kv_us(c->r, f, "comm_us_per_step", (lat_ns)((double)comm / nst));
        doc_kv_num(c->r, f, "overlap_pct", comm > 0 ? 100.0 - PCT(per * nst, comm) : 0);
        doc_set(c->r, &f->recommendation,
                "Overlap or shrink communication. Training: DDP bucket_cap_mb tuning, "
                "gradient accumulation with no_sync(), FSDP forward/backward prefetch, "
                "compression hooks. Inference (tensor parallel): fewer, larger all-reduces "
                "(fused QKV/MLP), NCCL on NVLink, or fewer GPUs per replica when the model "
                "fits; TensorRT-LLM/vLLM custom all-reduce kernels.");
        doc_set(c->r, &f->next_step, "latscope analyze --format json %s   # comm_comp_overlap_pct",
                c->t->path ? c->t->path : "<trace>");
    }
out:
    doc_ivl_fini(&exposed);
    doc_ivl_fini(&in);
}

/* ---- R7: data loading (tb_plugin step breakdown) --------------------------------------- */

static void rule_dataloader(struct doc_ctx *c, struct doc_summary *sum)
{
    if (!c->dataloader.n) return;
    /* tb_plugin: roles in priority Kernel, Memcpy, Memset, Communication, Runtime, DataLoader;
     * DataLoader keeps only the step time no higher role claimed. */
    struct doc_ivl_set hi = {0}, dl = {0}, in = {0};
    const struct doc_ivl_set *roles[] = {&c->kernels, &c->copies, &c->memsets, &c->comm,
                                         &c->runtime};
    for (size_t i = 0; i < 5; i++)
        for (size_t k = 0; k < roles[i]->n; k++)
            if (doc_ivl_push(&hi, roles[i]->v[k].a, roles[i]->v[k].b)) goto nomem;
    doc_ivl_merge(&hi);
    if (doc_ivl_subtract(&c->dataloader, &hi, &dl) || doc_ivl_intersect(&dl, &c->steps_set, &in))
        goto nomem;
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)doc_ivl_measure(&in) / nst);
    sum->dataloader = per;
    double pct = PCT(per, c->step_mean);
    if (pct > c->o->th.dataloader_pct) {
        const struct lat_trace *t = c->t;
        uint64_t calls = 0;
        bool single = false, multi = false;
        struct doc_top top;
        top_init(&top, c->o->max_examples);
        lat_ns raw = 0, dl_best = 0;
        int64_t dl_tid = -1;
        for (size_t i = 0; i < t->ev.n; i++) {
            uint16_t k = t->ev.kind[i];
            if (k != LAT_EV_CPU_OP && k != LAT_EV_USER_ANNOTATION) continue;
            const char *nm = doc_name(c, i);
            if (!doc_is_dataloader(nm) || doc_step_at(c, t->ev.ts[i]) < 0) continue;
            calls++;
            raw += t->ev.dur[i];
            if (t->ev.dur[i] > dl_best && t->ev.track[i] < t->ntracks) {
                dl_best = t->ev.dur[i];
                dl_tid = t->tracks[t->ev.track[i]].tid;
            }
            if (strstr(nm, "SingleProcess")) single = true;
            if (strstr(nm, "MultiProcessing")) multi = true;
            struct doc_example e;
            doc_example_from(c, i, &e);
            top_add(&top, &e);
        }
        struct doc_finding *f = doc_finding_add(c->r, "dataloader", c->trace);
        if (!f) goto nomem;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title, "Data loading takes %.1f %% of each %s (%s)%s", pct, per_step(c),
                fmt_ns(per, b1, sizeof(b1)),
                single ? ": DataLoader runs in the main process (num_workers=0)" : "");
        doc_set(c->r, &f->saving_method,
                "tb_plugin step breakdown: DataLoader op time (enumerate(DataLoader)#*.__next__) "
                "inside the steps that no kernel, copy, memset, communication or runtime call "
                "covers, averaged over steps; upper bound: loading fully hidden behind compute");
        doc_kv_us(c->r, f, "dataloader_us_per_step", per);
        doc_kv_num(c->r, f, "dataloader_pct_of_step", pct);
        doc_kv_us(c->r, f, "dataloader_op_us_per_step", (lat_ns)((double)raw / nst));
        doc_kv_num(c->r, f, "next_calls_per_step", (double)calls / nst);
        doc_kv_bool(c->r, f, "single_process_loader", single);
        doc_kv_bool(c->r, f, "multi_process_loader", multi);
        doc_kv_us(c->r, f, "mean_step_us", c->step_mean);
        doc_kv_num(c->r, f, "threshold_pct", c->o->th.dataloader_pct);
        add_cpu_evidence(c, f, dl_tid, &in);
        top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "Load and preprocess data off the critical path. PyTorch: "
                "DataLoader(num_workers=N (start with the number of CPU cores / GPUs), "
                "pin_memory=True, persistent_workers=True, prefetch_factor=2..4); move "
                "decoding/augmentation to the GPU (NVIDIA DALI, torchvision.io.decode_jpeg on "
                "cuda); cache preprocessed data. Serving (TensorRT / ONNX Runtime): decode and "
                "resize requests in a separate thread pool or process and queue ready tensors, "
                "so the engine never waits on preprocessing.");
        cpu_next_step(c, f,
                      "its CPU section shows whether decoding, augmentation or collation costs "
                      "most inside __next__",
                      "  # CPU samples inside __next__ show whether decoding, augmentation or "
                      "collation costs most");
    }
    doc_ivl_fini(&hi);
    doc_ivl_fini(&dl);
    doc_ivl_fini(&in);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_ivl_fini(&hi);
    doc_ivl_fini(&dl);
    doc_ivl_fini(&in);
}

/* ---- R9: allocator churn, memory pressure ---------------------------------------------- */

static void rule_alloc(struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    struct doc_acc by = {0};
    struct doc_top top;
    top_init(&top, c->o->max_examples);
    lat_ns total = 0;
    uint64_t n = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!(api_of_ev(c, i) & DOC_API_ALLOC) || doc_step_at(c, t->ev.ts[i]) < 0) continue;
        total += t->ev.dur[i];
        n++;
        int64_t op = doc_enclosing_op(c, i);
        uint64_t key = (uint64_t)t->ev.name[i] << 32 | (op >= 0 ? t->ev.name[op] : 0);
        if (doc_acc_add(&by, key, t->ev.dur[i], 1)) goto nomem;
        struct doc_example e;
        doc_example_from(c, i, &e);
        char note[160];
        snprintf(note, sizeof(note), "under %s", op_name_or(c, op, "(no op)"));
        e.note = note;
        top_add(&top, &e);
    }
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)total / nst);
    if (n && PCT(per, c->step_mean) >= c->o->th.alloc_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "allocator-churn", c->trace);
        if (!f) goto nomem;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title,
                "Device memory is allocated/freed inside the %s: %.1f calls, %s per %s",
                per_step(c), (double)n / nst, fmt_ns(per, b1, sizeof(b1)), per_step(c));
        doc_set(c->r, &f->saving_method,
                "duration of cudaMalloc/cudaFree/cudaHostAlloc/... calls inside steps per %s "
                "(host blocked; cudaFree also synchronises the device); upper bound",
                per_step(c));
        doc_kv_num(c->r, f, "calls_per_step", (double)n / nst);
        doc_kv_us(c->r, f, "us_per_step", per);
        size_t nv;
        struct doc_kvpair *v = acc_sorted(&by, &nv);
        if (!v) goto nomem;
        for (size_t i = 0; i < nv && i < 6; i++) {
            uint32_t name = (uint32_t)(v[i].key >> 32), op = (uint32_t)v[i].key;
            doc_row_begin(c->r, f, "by_cause");
            doc_kv_str(c->r, f, "call", lat_trace_str(t, name));
            doc_kv_str(c->r, f, "op", op ? lat_trace_str(t, op) : "(no op)");
            doc_kv_num(c->r, f, "count_per_step", (double)v[i].cnt / nst);
            doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)v[i].val / nst));
            doc_row_end(f);
        }
        free(v);
        top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "Stop allocating device memory per step. PyTorch: do not call "
                "torch.cuda.empty_cache() in the loop; keep shapes static (pad to buckets) so "
                "the caching allocator reuses blocks; PYTORCH_CUDA_ALLOC_CONF="
                "expandable_segments:True against fragmentation; pre-allocate output buffers. "
                "TensorRT: create the execution context once and reuse its device memory "
                "(setDeviceMemory), allocate I/O buffers at startup. ONNX Runtime: keep the "
                "memory arena on (arena_extend_strategy=kSameAsRequested) and use IOBinding "
                "with pre-allocated outputs.");
        doc_set(c->r, &f->next_step,
                "nsys profile -t cuda,osrt --cuda-memory-usage=true -o alloc <your command> && "
                "nsys stats -r cuda_api_sum alloc.nsys-rep");
    }
    /* memory pressure from [memory] events (tb_plugin rule 5) */
    int64_t peak = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_INSTANT) continue;
        int64_t dt = -1, res = 0;
        if (!lat_trace_arg_int(t, i, "Total Reserved", &res)) continue;
        if (lat_trace_arg_int(t, i, "Device Type", &dt) && dt != 1) continue;
        if (res > peak) peak = res;
    }
    int64_t mem = t->ndevices ? t->devices[0].total_global_mem : 0;
    if (peak > 0 && mem > 0 && (double)peak > c->o->th.mem_pressure * (double)mem) {
        struct doc_finding *f = doc_finding_add(c->r, "memory-pressure", c->trace);
        if (!f) goto nomem;
        doc_saving(f, 0, c->step_mean);
        doc_set(c->r, &f->title, "Peak reserved device memory is %.0f %% of the GPU's memory",
                100.0 * (double)peak / (double)mem);
        doc_set(c->r, &f->saving_method,
                "no time saving estimated: a risk of OOM and of "
                "allocator flushes (cudaFree + retry)");
        doc_kv_int(c->r, f, "peak_reserved_bytes", peak);
        doc_kv_int(c->r, f, "device_memory_bytes", mem);
        doc_set(c->r, &f->recommendation,
                "Reduce memory: smaller batch or sequence length, BF16/FP16 weights and "
                "activations, activation checkpointing for training, KV-cache limits for LLM "
                "serving; TensorRT: limit the workspace (--memPoolSize); ONNX Runtime: "
                "gpu_mem_limit.");
        doc_set(c->r, &f->next_step,
                "python -c \"import torch; print(torch.cuda.memory_summary())\"   # inside your "
                "program, after a step");
    }
    doc_acc_fini(&by);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_acc_fini(&by);
}

/* ---- R10: tail attribution ------------------------------------------------------------- */

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Percentile of sorted v[0..n) with linear interpolation (numpy's default). */
static lat_ns pctl(const lat_ns *v, size_t n, double p)
{
    if (!n) return 0;
    double pos = p / 100.0 * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n) return v[n - 1];
    return v[i] + (lat_ns)((pos - (double)i) * (double)(v[i + 1] - v[i]));
}

static void rule_tail(struct doc_ctx *c, struct doc_summary *sum)
{
    size_t n = c->nsteps;
    if (!c->steps_real || n < c->o->th.tail_min_steps) return;
    lat_ns *d = malloc(n * sizeof(*d));
    struct doc_acc *comp = calloc(n, sizeof(*comp));
    struct doc_acc all = {0};
    lat_ns *vals = malloc(n * sizeof(*vals));
    lat_ns *sorted = malloc(n * sizeof(*sorted));
    bool *sampled = calloc(n, sizeof(*sampled));
    if (!d || !comp || !vals || !sorted || !sampled) goto nomem;
    for (size_t i = 0; i < n; i++)
        d[i] = c->steps[i].end - c->steps[i].ts;
    memcpy(vals, d, n * sizeof(*d));
    qsort(vals, n, sizeof(*vals), cmp_i64);
    lat_ns median = pctl(vals, n, 50.0);
    lat_ns p90 = pctl(vals, n, 90.0);
    sum->step_median = median;
    sum->step_p90 = p90;
    sum->step_max = vals[n - 1];
    lat_ns limit = median + (lat_ns)((double)median * c->o->th.tail_pct / 100.0);
    if (p90 <= limit) goto out;
    /* Components per step: self time on the step's thread by (name, op). With more than ~1000
     * steps only every stride-th step (and every stride-th slow step) is decomposed, so memory
     * stays bounded on traces with very many short steps. */
    lat_ns excess = 0;
    size_t nslow = 0, stride = n > 1000 ? n / 1000 : 1, nsamp = 0, nslow_samp = 0;
    for (size_t i = 0; i < n; i++) {
        bool slow = d[i] >= p90 && d[i] > limit;
        if (slow) {
            nslow++;
            excess += d[i] - median;
        }
        if (!(i % stride == 0 || (slow && (nslow - 1) % stride == 0))) continue;
        sampled[i] = true;
        nsamp++;
        if (slow) nslow_samp++;
        const struct doc_step *s = &c->steps[i];
        if (doc_attr_window(c, s->track, s->ts, s->end, &comp[i])) goto nomem;
        for (size_t j = 0; j < comp[i].cap; j++)
            if (comp[i].used[j] && doc_acc_add(&all, comp[i].keys[j], 0, 0)) goto nomem;
    }
    struct doc_finding *f = doc_finding_add(c->r, "tail-steps", c->trace);
    if (!f) goto nomem;
    doc_saving(f, (lat_ns)((double)excess / (double)n), c->step_mean);
    char b1[32], b2[32];
    /* per component: mean over slow steps minus median over all steps */
    size_t nk;
    struct doc_kvpair *keys = acc_sorted(&all, &nk);
    if (!keys) goto nomem;
    for (size_t k = 0; k < nk; k++) {
        lat_ns slow = 0;
        uint32_t elevated = 0;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (sampled[i]) {
                vals[i] = doc_acc_get(&comp[i], keys[k].key);
                sorted[m++] = vals[i];
                if (d[i] >= p90 && d[i] > limit) slow += vals[i];
            }
        qsort(sorted, m, sizeof(*sorted), cmp_i64);
        lat_ns cmed = pctl(sorted, m, 50.0);
        for (size_t i = 0; i < n; i++)
            if (sampled[i] && d[i] >= p90 && d[i] > limit && vals[i] > cmed) elevated++;
        keys[k].val = (nslow_samp ? slow / (lat_ns)nslow_samp : 0) - cmed;
        keys[k].cnt = elevated;
    }
    (void)nsamp;
    qsort(keys, nk, sizeof(*keys), cmp_kvpair);
    char top[400] = "";
    if (nk && keys[0].val > 0) key_label(c, keys[0].key, top, sizeof(top));
    doc_set(c->r, &f->title, "The slowest %s%s (p90 and above) %s %s slower than the median %s%s%s",
            nslow == 1 ? "step" : "steps", "", nslow == 1 ? "is" : "are",
            fmt_ns(excess / (lat_ns)nslow, b1, sizeof(b1)), fmt_ns(median, b2, sizeof(b2)),
            top[0] ? "; most of it: " : "", top);
    doc_set(c->r, &f->saving_method,
            "sum over the slow steps of (step time - median step time) / number of steps: "
            "what the mean step gains if the tail steps ran at the median. Components compare "
            "the mean over slow steps with the median over all steps of the step thread's self "
            "time per (event, enclosing op)");
    doc_kv_us(c->r, f, "median_step_us", median);
    doc_kv_us(c->r, f, "p90_step_us", p90);
    doc_kv_us(c->r, f, "max_step_us", sum->step_max);
    doc_kv_int(c->r, f, "slow_steps", (int64_t)nslow);
    doc_kv_int(c->r, f, "steps", (int64_t)n);
    bool first_only = nslow == 1 && d[0] >= p90 && d[0] > limit;
    doc_kv_bool(c->r, f, "only_first_step_is_slow", first_only);
    /* A slow first step is warm-up: worth knowing, not a steady-state saving. */
    if (first_only) f->severity = DOC_SEV_INFO;
    for (size_t i = 0; i < n; i++) {
        if (!(d[i] >= p90 && d[i] > limit)) continue;
        doc_row_begin(c->r, f, "slow_steps");
        doc_kv_int(c->r, f, "step", c->steps[i].num);
        doc_kv_us(c->r, f, "dur_us", d[i]);
        doc_kv_us(c->r, f, "excess_us", d[i] - median);
        doc_row_end(f);
        struct doc_example e = {0};
        char nm[64];
        snprintf(nm, sizeof(nm), "ProfilerStep#%d", c->steps[i].num);
        e.name = nm;
        e.ts = c->steps[i].ts;
        e.offset = e.ts - c->t0;
        e.dur = d[i];
        e.value = d[i] - median;
        e.step = c->steps[i].num;
        e.stream = -1;
        e.tid = c->steps[i].track < c->t->ntracks ? c->t->tracks[c->steps[i].track].tid : -1;
        if (f->nex < c->o->max_examples) doc_example_add(c->r, f, &e);
    }
    for (size_t k = 0, shown = 0; k < nk && shown < 6; k++) {
        if (keys[k].val <= 0) break;
        char label[400];
        key_label(c, keys[k].key, label, sizeof(label));
        doc_row_begin(c->r, f, "components");
        doc_kv_str(c->r, f, "what", label);
        doc_kv_us(c->r, f, "extra_us_in_slow_steps", keys[k].val);
        doc_kv_int(c->r, f, "slow_steps_elevated", keys[k].cnt);
        doc_row_end(f);
        shown++;
    }
    free(keys);
    doc_set(c->r, &f->recommendation,
            "%sLook at what the slow steps do that the median step does not (components). "
            "Typical causes: allocator growth (cudaMalloc under aten::empty: warm up with the "
            "largest shapes, static shapes), recompilation (torch.compile guards: "
            "TORCH_LOGS=recompiles; dynamic=False with padded shapes), cuDNN autotuning "
            "(torch.backends.cudnn.benchmark with changing shapes), garbage collection "
            "(gc.freeze() after warm-up), data-dependent work (variable sequence lengths: "
            "bucket them). TensorRT/ONNX Runtime: warm up every optimisation profile/shape "
            "before serving.",
            first_only ? "Only the first step is slow: this is warm-up; exclude it from "
                         "latency numbers (torch.profiler schedule warmup) and warm up before "
                         "serving. "
                       : "");
    doc_set(c->r, &f->next_step,
            "latscope analyze %s   # per-step breakdown; then measure the "
            "real tail under load with latscope bench",
            c->t->path ? c->t->path : "<trace>");
    goto out;
nomem:
    c->r->err = -ENOMEM;
out:
    if (comp)
        for (size_t i = 0; i < n; i++)
            doc_acc_fini(&comp[i]);
    free(comp);
    free(d);
    free(vals);
    free(sorted);
    free(sampled);
    doc_acc_fini(&all);
}

/* ---- R11: profiler overhead ------------------------------------------------------------ */

static bool meta_true(const struct lat_trace *t, const char *key)
{
    for (size_t i = 0; i < t->nmeta; i++)
        if (strcmp(lat_trace_str(t, t->meta[i].key), key) == 0) {
            const char *v = lat_trace_str(t, t->meta[i].value);
            return strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "\"true\"") == 0 ||
                   strcmp(v, "\"1\"") == 0 || strcmp(v, "True") == 0;
        }
    return false;
}

static void rule_overhead(struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    uint64_t nover = 0, npy = 0;
    lat_ns over = 0, over_in = 0;
    struct doc_top top;
    top_init(&top, c->o->max_examples);
    for (size_t i = 0; i < t->ev.n; i++) {
        uint16_t k = t->ev.kind[i];
        if (k == LAT_EV_PYTHON) npy++;
        if (k != LAT_EV_OVERHEAD || t->ev.dur[i] < 0) continue;
        nover++;
        over += t->ev.dur[i];
        over_in += doc_ivl_measure_in(&c->steps_set, t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i]);
        struct doc_example e;
        doc_example_from(c, i, &e);
        top_add(&top, &e);
    }
    bool stack = meta_true(t, "with_stack"), shapes = meta_true(t, "record_shapes"),
         mem = meta_true(t, "profile_memory");
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)over_in / nst);
    if (PCT(per, c->step_mean) < c->o->th.overhead_pct && !npy && !stack && !mem) return;
    struct doc_finding *f = doc_finding_add(c->r, "profiler-overhead", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    /* Not a saving in production: always advice, ranked after real findings. */
    f->severity = DOC_SEV_INFO;
    char b1[32];
    if (nover)
        doc_set(c->r, &f->title,
                "The profiler itself took %s per %s (%" PRIu64 " overhead events): profiled "
                "latency is not production latency",
                fmt_ns(per, b1, sizeof(b1)), per_step(c), nover);
    else
        doc_set(c->r, &f->title,
                "Profiling options add overhead (%s%s%s): profiled latency is not production "
                "latency",
                npy ? "Python stack tracing" : "", npy && mem ? ", " : "",
                mem ? "memory profiling" : (stack && !npy ? "with_stack" : ""));
    doc_set(c->r, &f->saving_method,
            "duration of profiler overhead events (buffer requests/flushes) inside steps per "
            "%s; this time is not in the unprofiled program. Python tracing and memory "
            "profiling add more that the trace cannot show",
            per_step(c));
    doc_kv_int(c->r, f, "overhead_events", (int64_t)nover);
    doc_kv_us(c->r, f, "overhead_us_total", over);
    doc_kv_us(c->r, f, "overhead_us_per_step", per);
    doc_kv_int(c->r, f, "python_function_events", (int64_t)npy);
    doc_kv_bool(c->r, f, "with_stack", stack || npy > 0);
    doc_kv_bool(c->r, f, "record_shapes", shapes);
    doc_kv_bool(c->r, f, "profile_memory", mem);
    top_emit(c, f, &top);
    doc_set(c->r, &f->recommendation,
            "Treat the trace as a map of where time goes, not as the latency users see. Profile "
            "with only what you need (with_stack, profile_memory and record_shapes off unless "
            "needed; a torch.profiler.schedule with wait/warmup/active steps), and measure "
            "production latency without the profiler under realistic load.");
    doc_set(c->r, &f->next_step,
            "latscope bench <URL of your inference endpoint>   # open-loop load, correct latency "
            "percentiles");
}

/* ---- summary and driver ----------------------------------------------------------------- */

static void fill_summary(struct doc_ctx *c, struct doc_summary *s, const struct doc_idle *d,
                         const struct doc_launch *l)
{
    const struct lat_trace *t = c->t;
    double nst = c->nsteps ? (double)c->nsteps : 1.0;
    s->format = t->format;
    s->rank = t->rank;
    s->nsteps = c->steps_real ? c->nsteps : 0;
    s->steps_real = c->steps_real;
    s->step_mean = c->step_mean;
    if (!s->step_median) {
        s->step_median = c->step_mean;
        s->step_p90 = s->step_max = c->step_mean;
        if (c->nsteps) {
            lat_ns *v = malloc(c->nsteps * sizeof(*v));
            if (v) {
                for (size_t i = 0; i < c->nsteps; i++)
                    v[i] = c->steps[i].end - c->steps[i].ts;
                qsort(v, c->nsteps, sizeof(*v), cmp_i64);
                size_t n = c->nsteps;
                s->step_median = pctl(v, n, 50.0);
                s->step_p90 = pctl(v, n, 90.0);
                s->step_max = v[n - 1];
                free(v);
            }
        }
    }
    lat_ns busy = 0, kern = 0;
    for (size_t i = 0; i < c->nsteps; i++) {
        busy += doc_ivl_measure_in(&c->busy, c->steps[i].ts, c->steps[i].end);
        kern += doc_ivl_measure_in(&c->kernels, c->steps[i].ts, c->steps[i].end);
    }
    s->gpu_busy = (lat_ns)((double)busy / nst);
    s->kernel = (lat_ns)((double)kern / nst);
    s->idle = c->ng ? c->step_mean - s->gpu_busy : 0;
    s->host_idle = (lat_ns)((double)d->host_late / nst);
    s->sync_bubble = (lat_ns)((double)d->sync_bubble / nst);
    struct doc_ivl_set hd = {0}, ex = {0};
    for (size_t k = 0; k < c->ng; k++) {
        const char *nm = doc_name(c, c->g[k].ev);
        if (c->g[k].kind == LAT_EV_MEMCPY && c->g[k].step >= 0 &&
            (strstr(nm, "HtoD") || strstr(nm, "DtoH")))
            doc_ivl_push(&hd, c->g[k].ts, c->g[k].end);
    }
    doc_ivl_merge(&hd);
    if (!doc_ivl_subtract(&hd, &c->kernels, &ex))
        s->memcpy_exposed = (lat_ns)((double)doc_ivl_measure(&ex) / nst);
    doc_ivl_reset(&ex);
    if (!doc_ivl_subtract(&c->comm, &c->kernels, &ex)) {
        lat_ns m = 0;
        for (size_t i = 0; i < ex.n; i++)
            m += doc_ivl_measure_in(&c->steps_set, ex.v[i].a, ex.v[i].b);
        s->comm_exposed = (lat_ns)((double)m / nst);
    }
    doc_ivl_fini(&hd);
    doc_ivl_fini(&ex);
    s->kernels_per_step = (double)l->kernels / nst;
    s->short_kernel_pct = l->with_launch ? 100.0 * (double)l->short_kernels / l->with_launch : 0;
    s->graph_launches = c->graph_launches;
    s->gpu_events = c->ng;
    for (size_t i = 0; i < t->ev.n; i++) {
        uint16_t k = t->ev.kind[i];
        if (k == LAT_EV_CPU_OP || k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER) s->cpu_events++;
    }
    s->num_sms = t->ndevices ? t->devices[0].num_sms : -1;
    s->compute_major = t->ndevices ? t->devices[0].compute_major : -1;
}

int doctor_run(struct doc_report *r, const struct lat_trace *t, const struct doc_opts *o)
{
    if (!r || !t || !o) return LAT_E_USAGE;
    if (r->err) return r->err;
    if (r->ntraces == r->traces_cap) {
        size_t cap = r->traces_cap ? r->traces_cap * 2 : 4;
        struct doc_summary *s = realloc(r->traces, cap * sizeof(*s));
        if (!s) return -ENOMEM;
        r->traces = s;
        r->traces_cap = cap;
    }
    int ti = (int)r->ntraces;
    struct doc_summary *sum = &r->traces[r->ntraces++];
    memset(sum, 0, sizeof(*sum));
    sum->rank = -1;
    sum->num_sms = sum->compute_major = -1;
    if (t->path && !(sum->path = strdup(t->path))) return r->err = -ENOMEM;
    struct doc_ctx c;
    struct doc_idle d;
    struct doc_launch l;
    memset(&d, 0, sizeof(d));
    top_init(&d.gaps, o->max_examples);
    top_init(&d.syncs, o->max_examples);
    int rc = doc_ctx_init(&c, t, o, r, ti);
    if (rc) goto out;
    sum->format = t->format;
    if (!c.nsteps || c.step_mean <= 0) goto out; /* empty trace: nothing to judge */
    rc = idle_decompose(&c, &d);
    if (rc) goto out;
    launch_stats(&c, &l);
    rule_dataloader(&c, sum);
    rule_host_idle(&c, &d, &l);
    rule_sync(&c, &d);
    rule_memcpy(&c, &d);
    rule_kernels(&c);
    rule_comm(&c);
    rule_alloc(&c);
    rule_tail(&c, sum);
    rule_overhead(&c);
    fill_summary(&c, sum, &d, &l);
    /* A saving below min_saving_pct of the step is noise for ranking: keep it as a note. */
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i].trace == ti && r->f[i].severity == DOC_SEV_LOW &&
            r->f[i].saving_pct < o->th.min_saving_pct)
            r->f[i].severity = DOC_SEV_INFO;
out:
    idle_fini(&d);
    doc_ctx_fini(&c);
    if (rc && !r->err) r->err = rc;
    return r->err;
}
