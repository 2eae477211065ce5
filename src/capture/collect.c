/*
 * collect.c - per-process capture files (capfile.h) -> the trace model, Kineto-style.
 *
 * Each file is read whole and walked twice: the first pass gathers what later records refer to
 * (strings, clock-sync pairs, devices, contexts, the footer, status messages); the second
 * converts records into events named and shaped as Kineto writes them (trace-formats.md §1):
 * API calls on (pid, tid) as cuda_runtime / cuda_driver, kernels / memcpys / memsets on
 * (device, stream), synchronisation as cuda_sync (tid = the stream for Stream Wait Event, -1
 * otherwise, as Kineto does), overhead on pid -1. CUPTI timestamps become CLOCK_MONOTONIC via
 * clocksync.c, then trace time = MONOTONIC - origin, so CPU samples and NVTX ranges (already
 * MONOTONIC) line up. Records with a zero timestamp (not collected) are counted, not plotted.
 *
 * Correlation: an open-addressing map correlationId -> API event links each GPU event to its
 * launch; one ac2g flow pair is written per linked GPU event (s on the call, f on the GPU
 * event, bp "e"). NVTX push/pop pairs are rebuilt per thread (user_annotation); with
 * gpu_annotations, each range is projected onto the streams its launches ran on
 * (gpu_user_annotation spanning its first kernel start to its last kernel end).
 * Not thread-safe; one trace per call.
 */
#include "capture/collect.h"
#include "capture/capfile.h"
#include "capture/clocksync.h"
#include "capture/demangle.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/u64map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Arg keys, interned once per file. */
struct keys {
    uint32_t cbid, correlation, device, context, stream, bytes, bandwidth, queued, regs, smem,
        blocks_sm, warps_sm, grid, block, graph_id, graph_node, from_dev, in_dev, to_dev, from_ctx,
        in_ctx, to_ctx, sync_kind, wait_event, ret, domain, copy_count, channel;
};

struct corr_slot {
    uint32_t corr; /* CUPTI correlation ids start at 1; 0 is never stored */
    uint32_t api_ev;
    bool flowed;
    int32_t gpu_dev;
    int64_t gpu_stream;
    lat_ns gpu_start, gpu_end; /* span of the GPU work it launched */
};

struct nvtx_open {
    uint32_t tid;
    lat_ns ts;
    uint32_t msg, domain;
    uint64_t range_id;
};

struct nvtx_range {
    uint32_t track, tid;
    lat_ns ts, end;
    uint32_t name;
};

struct api_ref {
    uint32_t track;
    lat_ns ts, end;
    uint32_t corr;
};

struct ctx_dev {
    uint32_t context, device;
};

struct proc {
    struct lat_trace *t;
    const struct collect_opts *o;
    struct collect_stats *st;
    unsigned index;
    uint32_t pid;
    uint32_t comm; /* trace string id */
    uint32_t *strmap;
    size_t nstr;
    struct lcap_sync *syncs;
    size_t nsyncs, syncs_cap;
    struct clocksync cs;
    struct ctx_dev *ctx;
    size_t nctx, ctx_cap;
    struct corr_slot *corr; /* correlation records, in arrival order */
    size_t corr_n, corr_cap;
    struct lat_u64map corr_ix; /* correlation id -> index into corr */
    struct nvtx_open *open;
    size_t nopen, open_cap;
    struct nvtx_range *ranges;
    size_t nranges, ranges_cap;
    struct api_ref *apis;
    size_t napis, apis_cap;
    struct keys k;
    bool has_cuda;
};

#define GROW(arr, n, cap)                                                                          \
    do {                                                                                           \
        int grc_ = LAT_GROW((arr), (cap), (n), 1, 64);                                             \
        if (grc_) return grc_;                                                                     \
    } while (0)

const char *collect_status_name(int code)
{
    switch (code) {
    case 0:
        return "info";
    case 1:
        return "capture disabled";
    case 2:
        return "CUPTI busy";
    case 3:
        return "no CUPTI";
    case 4:
        return "signal";
    case 5:
        return "forked child";
    case 6:
        return "CUPTI error";
    default:
        return "status";
    }
}

static int intern(struct lat_trace *t, const char *s, uint32_t *id)
{
    return lat_trace_intern(t, s, strlen(s), id);
}

static int keys_init(struct lat_trace *t, struct keys *k)
{
    struct {
        uint32_t *id;
        const char *s;
    } m[] = {
        {&k->cbid, "cbid"},
        {&k->correlation, "correlation"},
        {&k->device, "device"},
        {&k->context, "context"},
        {&k->stream, "stream"},
        {&k->bytes, "bytes"},
        {&k->bandwidth, "memory bandwidth (GB/s)"},
        {&k->queued, "queued"},
        {&k->regs, "registers per thread"},
        {&k->smem, "shared memory"},
        {&k->blocks_sm, "blocks per SM"},
        {&k->warps_sm, "warps per SM"},
        {&k->grid, "grid"},
        {&k->block, "block"},
        {&k->graph_id, "graph id"},
        {&k->graph_node, "graph node id"},
        {&k->from_dev, "fromDevice"},
        {&k->in_dev, "inDevice"},
        {&k->to_dev, "toDevice"},
        {&k->from_ctx, "fromContext"},
        {&k->in_ctx, "inContext"},
        {&k->to_ctx, "toContext"},
        {&k->sync_kind, "cuda_sync_kind"},
        {&k->wait_event, "wait_on_cuda_event_id"},
        {&k->ret, "return value"},
        {&k->domain, "domain"},
        {&k->copy_count, "copy count"},
        {&k->channel, "channel"},
    };
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        int rc = intern(t, m[i].s, m[i].id);
        if (rc) return rc;
    }
    return 0;
}

/* --- args ------------------------------------------------------------------------------------ */

struct argv {
    struct lat_arg a[24];
    unsigned n;
};

static void arg_i(struct argv *v, uint32_t key, int64_t x)
{
    if (v->n < 24) v->a[v->n++] = (struct lat_arg){.key = key, .type = LAT_ARG_INT, .v.i = x};
}

static int arg_s(struct lat_trace *t, struct argv *v, uint32_t key, enum lat_arg_type type,
                 const char *s)
{
    uint32_t id;
    int rc = intern(t, s, &id);
    if (rc) return rc;
    if (v->n < 24) v->a[v->n++] = (struct lat_arg){.key = key, .type = type, .str = id};
    return 0;
}

static int arg_d(struct lat_trace *t, struct argv *v, uint32_t key, double d)
{
    char buf[48];
    snprintf(buf, sizeof(buf), "%.6g", d);
    if (!strpbrk(buf, ".eE")) strcat(buf, ".0"); /* keep it a DOUBLE on re-read */
    uint32_t id;
    int rc = intern(t, buf, &id);
    if (rc) return rc;
    if (v->n < 24)
        v->a[v->n++] = (struct lat_arg){.key = key, .type = LAT_ARG_DOUBLE, .str = id, .v.d = d};
    return 0;
}

static int arg_xyz(struct lat_trace *t, struct argv *v, uint32_t key, const int32_t x[3])
{
    char buf[64];
    snprintf(buf, sizeof(buf), "[%" PRId32 ", %" PRId32 ", %" PRId32 "]", x[0], x[1], x[2]);
    return arg_s(t, v, key, LAT_ARG_RAW, buf);
}

/* Adds the args, then the event; *index receives the event's index. */
static int add_event(struct lat_trace *t, struct lat_event *e, const struct argv *v,
                     uint32_t *index)
{
    e->args = 0;
    e->nargs = 0;
    for (unsigned i = 0; i < v->n; i++) {
        uint32_t ix;
        int rc = lat_trace_add_arg(t, &v->a[i], &ix);
        if (rc) return rc;
        if (i == 0) e->args = ix;
    }
    e->nargs = v->n;
    int rc = lat_trace_add_event(t, e);
    if (rc) return rc;
    if (index) *index = (uint32_t)(t->ev.n - 1);
    return 0;
}

/* --- tracks ------------------------------------------------------------------------------- */

static int cpu_track(struct proc *p, uint32_t tid, uint32_t *ix)
{
    int rc = lat_trace_track(p->t, p->pid, tid, 0, 0, false, ix);
    if (rc) return rc;
    if (!p->t->tracks[*ix].pid_label) p->t->tracks[*ix].pid_label = p->comm;
    return 0;
}

static int gpu_track(struct proc *p, int64_t device, int64_t stream, uint32_t *ix)
{
    int rc = lat_trace_track(p->t, device, stream, 0, 0, true, ix);
    if (rc) return rc;
    struct lat_track *tr = &p->t->tracks[*ix];
    if (!tr->pid_label) {
        char buf[48];
        snprintf(buf, sizeof(buf), "GPU %" PRId64, device);
        if ((rc = intern(p->t, buf, &tr->pid_label))) return rc;
    }
    if (!tr->tid_label) {
        char buf[48];
        if (stream < 0)
            snprintf(buf, sizeof(buf), "sync");
        else
            snprintf(buf, sizeof(buf), "stream %" PRId64, stream);
        tr = &p->t->tracks[*ix];
        if ((rc = intern(p->t, buf, &tr->tid_label))) return rc;
    }
    return 0;
}

/* --- helpers ------------------------------------------------------------------------------- */

static uint32_t str_of(const struct proc *p, uint32_t id)
{
    return id < p->nstr ? p->strmap[id] : 0;
}

static bool in_window(const struct proc *p, lat_ns mono)
{
    return !((p->o->start_ns && mono < p->o->start_ns) || (p->o->stop_ns && mono > p->o->stop_ns));
}

/* Converts a CUPTI [start, end] to trace ts/dur. False (counted) when not collected or gated. */
/* Times a real capture can hold (±146 years of ns): anything else is a corrupt file, and
 * keeping to this range makes every later subtraction overflow-free. */
#define SANE_NS (1LL << 62)
static bool sane(int64_t v)
{
    return v > -SANE_NS && v < SANE_NS;
}

static bool span(struct proc *p, uint64_t start, uint64_t end, lat_ns *ts, lat_ns *dur)
{
    if (!start || !end || end < start || end >= (uint64_t)SANE_NS) {
        p->st->zero_ts++;
        return false;
    }
    lat_ns s = clocksync_to_mono(&p->cs, start);
    lat_ns e = clocksync_to_mono(&p->cs, end);
    if (!sane(s) || !sane(e)) {
        p->st->zero_ts++;
        return false;
    }
    if (!in_window(p, s)) {
        p->st->gated++;
        return false;
    }
    *ts = s - p->o->origin_ns;
    *dur = e > s ? e - s : 0;
    return true;
}

static int32_t ctx_device(const struct proc *p, uint32_t context)
{
    for (size_t i = 0; i < p->nctx; i++)
        if (p->ctx[i].context == context) return (int32_t)p->ctx[i].device;
    return 0;
}

static int note_ctx(struct proc *p, uint32_t context, uint32_t device)
{
    for (size_t i = 0; i < p->nctx; i++)
        if (p->ctx[i].context == context) return 0;
    GROW(p->ctx, p->nctx, p->ctx_cap);
    p->ctx[p->nctx++] = (struct ctx_dev){context, device};
    return 0;
}

static int64_t stream_id(uint32_t s)
{
    return s == UINT32_MAX ? -1 : (int64_t)s;
}

/* --- correlation map ------------------------------------------------------------------------ */

static struct corr_slot *corr_find(struct proc *p, uint32_t corr)
{
    uint64_t r;
    return corr && lat_u64map_get(&p->corr_ix, corr, &r) ? &p->corr[r] : NULL;
}

static int corr_put(struct proc *p, uint32_t corr, uint32_t ev)
{
    if (!corr) return 0;
    uint64_t *r = lat_u64map_find(&p->corr_ix, corr);
    if (!r) {
        int rc = LAT_GROW(p->corr, p->corr_cap, p->corr_n, 1, 1024);
        if (rc) return rc;
        if (!(r = lat_u64map_slot(&p->corr_ix, corr, NULL))) return -ENOMEM;
        *r = p->corr_n++;
    }
    p->corr[*r] = (struct corr_slot){.corr = corr, .api_ev = ev, .gpu_dev = -1, .gpu_stream = -1};
    return 0;
}

/* Links GPU event gi (correlation corr) to its launch: flow pair + span for NVTX projection. */
static int link_gpu(struct proc *p, uint32_t corr, uint32_t gi)
{
    struct corr_slot *c = corr_find(p, corr);
    if (!c) return 0;
    struct lat_trace *t = p->t;
    lat_ns ts = t->ev.ts[gi], end = ts + t->ev.dur[gi];
    if (c->gpu_dev < 0) {
        c->gpu_dev = t->ev.device[gi];
        c->gpu_stream = t->ev.stream[gi];
        c->gpu_start = ts;
        c->gpu_end = end;
    } else {
        if (ts < c->gpu_start) c->gpu_start = ts;
        if (end > c->gpu_end) c->gpu_end = end;
    }
    int64_t id = ((int64_t)p->index << 32) | corr;
    uint32_t cat, name;
    int rc;
    if ((rc = intern(t, "ac2g", &cat))) return rc;
    name = cat;
    if (!c->flowed) {
        struct lat_flow s = {.id = id,
                             .ts = t->ev.ts[c->api_ev],
                             .cat = cat,
                             .name = name,
                             .track = t->ev.track[c->api_ev],
                             .ph = 's'};
        if ((rc = lat_trace_add_flow(t, &s))) return rc;
        c->flowed = true;
        p->st->flows++;
    }
    struct lat_flow f = {.id = id,
                         .ts = ts,
                         .cat = cat,
                         .name = name,
                         .track = t->ev.track[gi],
                         .ph = 'f',
                         .bind_enclosing = true};
    return lat_trace_add_flow(t, &f);
}

/* --- record converters ---------------------------------------------------------------------- */

static const char *memcpy_kind(unsigned k)
{
    static const char *const n[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                    "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return k < sizeof(n) / sizeof(n[0]) ? n[k] : "Unknown";
}

static const char *mem_kind(unsigned k)
{
    static const char *const n[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                    "Array",   "Managed",  "Device Static", "Managed Static"};
    return k < sizeof(n) / sizeof(n[0]) ? n[k] : "Unknown";
}

static const char *sync_name(unsigned type)
{
    switch (type) {
    case 1:
        return "Event Sync";
    case 2:
        return "Stream Wait Event";
    case 3:
        return "Stream Sync";
    case 4:
        return "Context Sync";
    default:
        return "Unknown";
    }
}

static const char *overhead_name(uint32_t k)
{
    switch (k) {
    case 1:
        return "Driver Compiler";
    case 1u << 16:
        return "Buffer Flush";
    case 2u << 16:
        return "Instrumentation";
    case 3u << 16:
        return "Resource";
    case 4u << 16:
        return "Runtime Triggered Module Loading";
    case 5u << 16:
        return "Lazy Function Loading";
    case 6u << 16:
        return "Command Buffer Full";
    case 7u << 16:
        return "Activity Buffer Request";
    case 8u << 16:
        return "UVM Activity Init";
    default:
        return "Unknown Overhead";
    }
}

static int do_api(struct proc *p, const struct lcap_api *a)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    uint32_t ix;
    int rc;
    if (!span(p, a->start, a->end, &e.ts, &e.dur)) return 0;
    e.kind = a->domain == LCAP_API_RUNTIME ? LAT_EV_RUNTIME : LAT_EV_DRIVER;
    if ((rc = intern(p->t, a->domain == LCAP_API_RUNTIME ? "cuda_runtime" : "cuda_driver", &e.cat)))
        return rc;
    e.name = str_of(p, a->name);
    if (!e.name) {
        char buf[32];
        snprintf(buf, sizeof(buf), "cbid %" PRIu32, a->cbid);
        if ((rc = intern(p->t, buf, &e.name))) return rc;
    }
    if ((rc = cpu_track(p, a->tid, &e.track))) return rc;
    e.correlation = a->correlation ? (int64_t)a->correlation : -1;
    arg_i(&v, p->k.cbid, a->cbid);
    arg_i(&v, p->k.correlation, a->correlation);
    if (a->ret) arg_i(&v, p->k.ret, a->ret);
    if ((rc = add_event(p->t, &e, &v, &ix))) return rc;
    p->st->api++;
    GROW(p->apis, p->napis, p->apis_cap);
    p->apis[p->napis++] = (struct api_ref){e.track, e.ts, e.ts + e.dur, a->correlation};
    return corr_put(p, a->correlation, ix);
}

static const struct lat_device *find_device(const struct lat_trace *t, int32_t id)
{
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id == id) return &t->devices[i];
    return NULL;
}

static int do_kernel(struct proc *p, const struct lcap_kernel *k)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    uint32_t ix;
    int rc;
    if (!span(p, k->start, k->end, &e.ts, &e.dur)) return 0;
    e.kind = LAT_EV_KERNEL;
    e.flags = LAT_EVF_GPU;
    if ((rc = intern(p->t, "kernel", &e.cat))) return rc;
    e.name = str_of(p, k->name);
    if (!e.name && (rc = intern(p->t, "<unnamed kernel>", &e.name))) return rc;
    e.device = (int32_t)k->device;
    e.stream = stream_id(k->stream);
    e.correlation = k->correlation ? (int64_t)k->correlation : -1;
    if ((rc = gpu_track(p, e.device, e.stream, &e.track))) return rc;
    if ((rc = note_ctx(p, k->context, k->device))) return rc;
    lat_ns queued =
        k->queued && k->queued < (uint64_t)SANE_NS ? clocksync_to_mono(&p->cs, k->queued) : 0;
    arg_i(&v, p->k.queued, queued && sane(queued) ? queued - p->o->origin_ns : 0);
    arg_i(&v, p->k.device, k->device);
    arg_i(&v, p->k.context, k->context);
    arg_i(&v, p->k.stream, e.stream);
    arg_i(&v, p->k.correlation, k->correlation);
    arg_i(&v, p->k.regs, k->registers);
    arg_i(&v, p->k.smem, (int64_t)k->static_smem + k->dynamic_smem);
    const struct lat_device *d = find_device(p->t, e.device);
    bool dims_ok = true;
    for (int i = 0; i < 3; i++)
        dims_ok = dims_ok && k->grid[i] > 0 && k->block[i] > 0 && k->block[i] <= 1024;
    if (d && d->num_sms > 0 && dims_ok) {
        double blocks = (double)k->grid[0] * k->grid[1] * k->grid[2];
        double threads = (double)k->block[0] * k->block[1] * k->block[2];
        double warps_per_block = (double)(((int64_t)threads + 31) / 32); /* threads <= 2^30 */
        if ((rc = arg_d(p->t, &v, p->k.blocks_sm, blocks / d->num_sms))) return rc;
        if ((rc = arg_d(p->t, &v, p->k.warps_sm, blocks * warps_per_block / d->num_sms))) return rc;
    }
    if ((rc = arg_xyz(p->t, &v, p->k.grid, k->grid))) return rc;
    if ((rc = arg_xyz(p->t, &v, p->k.block, k->block))) return rc;
    if (k->graph_id) {
        arg_i(&v, p->k.graph_id, k->graph_id);
        arg_i(&v, p->k.graph_node, (int64_t)k->graph_node_id);
    }
    if ((rc = add_event(p->t, &e, &v, &ix))) return rc;
    p->st->kernels++;
    return link_gpu(p, k->correlation, ix);
}

/* What memcpy and memset records share: device, stream, correlation and track of the event,
 * the context's device, and the args Kineto writes for both, in Kineto's order (device,
 * context, stream, correlation, bytes, memory bandwidth (GB/s) = bytes / dur_ns). */
static int copy_common(struct proc *p, struct lat_event *e, struct argv *v, uint32_t device,
                       uint32_t context, uint32_t stream, uint32_t correlation, uint64_t bytes)
{
    int rc;
    e->device = (int32_t)device;
    e->stream = stream_id(stream);
    e->correlation = correlation ? (int64_t)correlation : -1;
    if ((rc = gpu_track(p, e->device, e->stream, &e->track))) return rc;
    if ((rc = note_ctx(p, context, device))) return rc;
    arg_i(v, p->k.device, device);
    arg_i(v, p->k.context, context);
    arg_i(v, p->k.stream, e->stream);
    arg_i(v, p->k.correlation, correlation);
    arg_i(v, p->k.bytes, (int64_t)bytes);
    if (e->dur > 0 && (rc = arg_d(p->t, v, p->k.bandwidth, (double)bytes / (double)e->dur)))
        return rc;
    return 0;
}

static int do_memcpy(struct proc *p, const struct lcap_memcpy *m)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    char name[96];
    uint32_t ix;
    int rc;
    if (!span(p, m->start, m->end, &e.ts, &e.dur)) return 0;
    e.kind = LAT_EV_MEMCPY;
    e.flags = LAT_EVF_GPU;
    if ((rc = intern(p->t, "gpu_memcpy", &e.cat))) return rc;
    snprintf(name, sizeof(name), "Memcpy %s (%s -> %s)", memcpy_kind(m->copy_kind),
             mem_kind(m->src_kind), mem_kind(m->dst_kind));
    if ((rc = intern(p->t, name, &e.name))) return rc;
    if ((rc = copy_common(p, &e, &v, m->device, m->context, m->stream, m->correlation, m->bytes)))
        return rc;
    if (m->p2p) {
        arg_i(&v, p->k.from_dev, m->src_device);
        arg_i(&v, p->k.in_dev, m->device);
        arg_i(&v, p->k.to_dev, m->dst_device);
        arg_i(&v, p->k.from_ctx, m->src_context);
        arg_i(&v, p->k.in_ctx, m->context);
        arg_i(&v, p->k.to_ctx, m->dst_context);
    }
    if (m->copy_count > 1) arg_i(&v, p->k.copy_count, (int64_t)m->copy_count);
    if ((rc = add_event(p->t, &e, &v, &ix))) return rc;
    p->st->memcpys++;
    return link_gpu(p, m->correlation, ix);
}

static int do_memset(struct proc *p, const struct lcap_memset *m)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    char name[64];
    uint32_t ix;
    int rc;
    if (!span(p, m->start, m->end, &e.ts, &e.dur)) return 0;
    e.kind = LAT_EV_MEMSET;
    e.flags = LAT_EVF_GPU;
    if ((rc = intern(p->t, "gpu_memset", &e.cat))) return rc;
    snprintf(name, sizeof(name), "Memset (%s)", mem_kind(m->mem_kind));
    if ((rc = intern(p->t, name, &e.name))) return rc;
    if ((rc = copy_common(p, &e, &v, m->device, m->context, m->stream, m->correlation, m->bytes)))
        return rc;
    if ((rc = add_event(p->t, &e, &v, &ix))) return rc;
    p->st->memsets++;
    return link_gpu(p, m->correlation, ix);
}

static int do_sync(struct proc *p, const struct lcap_cudasync *s)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    int rc;
    if (!span(p, s->start, s->end, &e.ts, &e.dur)) return 0;
    e.kind = LAT_EV_SYNC;
    e.flags = LAT_EVF_GPU;
    if ((rc = intern(p->t, "cuda_sync", &e.cat))) return rc;
    const char *name = sync_name(s->type);
    if ((rc = intern(p->t, name, &e.name))) return rc;
    e.device = ctx_device(p, s->context);
    e.stream = stream_id(s->stream);
    e.correlation = s->correlation ? (int64_t)s->correlation : -1;
    /* Kineto: Stream Wait Event on its stream, every other sync on tid -1 (it spans the work
     * it waits for, so it must not share a row with the kernels). */
    if ((rc = gpu_track(p, e.device, s->type == 2 ? e.stream : -1, &e.track))) return rc;
    if ((rc = arg_s(p->t, &v, p->k.sync_kind, LAT_ARG_STR, name))) return rc;
    if (s->type == 1 || s->type == 2)
        arg_i(&v, p->k.wait_event, s->event == UINT32_MAX ? -1 : (int64_t)s->event);
    arg_i(&v, p->k.stream, e.stream);
    arg_i(&v, p->k.correlation, s->correlation);
    arg_i(&v, p->k.device, e.device);
    arg_i(&v, p->k.context, s->context);
    if ((rc = add_event(p->t, &e, &v, NULL))) return rc;
    p->st->syncs++;
    return 0;
}

static int do_overhead(struct proc *p, const struct lcap_overhead *o)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    int rc;
    if (!span(p, o->start, o->end, &e.ts, &e.dur)) return 0;
    e.kind = LAT_EV_OVERHEAD;
    if ((rc = intern(p->t, "overhead", &e.cat))) return rc;
    if ((rc = intern(p->t, overhead_name(o->kind), &e.name))) return rc;
    if ((rc = lat_trace_track(p->t, -1, 0, 0, 0, false, &e.track))) return rc;
    if ((rc = add_event(p->t, &e, &v, NULL))) return rc;
    p->st->overheads++;
    return 0;
}

static int do_device(struct proc *p, const struct lcap_device *d)
{
    if (find_device(p->t, (int32_t)d->id)) return 0;
    struct lat_device dev = {
        .id = (int32_t)d->id,
        .name = str_of(p, d->name),
        .compute_major = d->cc_major,
        .compute_minor = d->cc_minor,
        .num_sms = d->num_sms,
        .max_threads_per_block = d->max_threads_per_block,
        .max_threads_per_sm =
            (int32_t)(d->max_warps_per_sm > 0 && d->max_warps_per_sm <= 4096 && d->warp_size >= 0 &&
                              d->warp_size <= 1024
                          ? d->max_warps_per_sm * (d->warp_size ? d->warp_size : 32)
                          : -1),
        .regs_per_block = d->regs_per_block,
        .regs_per_sm = d->regs_per_sm,
        .warp_size = d->warp_size,
        .shared_mem_per_block = d->smem_per_block,
        .shared_mem_per_sm = d->smem_per_sm,
        .total_global_mem = d->global_mem,
    };
    return lat_trace_add_device(p->t, &dev);
}

/* --- NVTX ---------------------------------------------------------------------------------- */

static int nvtx_emit_range(struct proc *p, uint32_t tid, lat_ns ts_mono, lat_ns end_mono,
                           uint32_t msg, uint32_t domain)
{
    struct lat_event e = lat_event_unlinked();
    e.ph = 'X';
    struct argv v = {.n = 0};
    int rc;
    if (!in_window(p, ts_mono)) {
        p->st->gated++;
        return 0;
    }
    e.kind = LAT_EV_USER_ANNOTATION;
    if ((rc = intern(p->t, "user_annotation", &e.cat))) return rc;
    e.name = str_of(p, msg);
    if (!e.name && (rc = intern(p->t, "<unnamed range>", &e.name))) return rc;
    e.ts = ts_mono - p->o->origin_ns;
    e.dur = end_mono > ts_mono ? end_mono - ts_mono : 0;
    if ((rc = cpu_track(p, tid, &e.track))) return rc;
    if (domain && str_of(p, domain)) {
        struct lat_arg a = {.key = p->k.domain, .type = LAT_ARG_STR, .str = str_of(p, domain)};
        v.a[v.n++] = a;
    }
    if ((rc = add_event(p->t, &e, &v, NULL))) return rc;
    p->st->nvtx_ranges++;
    GROW(p->ranges, p->nranges, p->ranges_cap);
    p->ranges[p->nranges++] = (struct nvtx_range){e.track, tid, e.ts, e.ts + e.dur, e.name};
    return 0;
}

static int do_nvtx(struct proc *p, const struct lcap_nvtx *n)
{
    int rc;
    if (!sane(n->ts)) {
        p->st->unknown_records++;
        return 0;
    }
    switch (n->op) {
    case LCAP_NVTX_PUSH:
    case LCAP_NVTX_START:
        GROW(p->open, p->nopen, p->open_cap);
        p->open[p->nopen++] =
            (struct nvtx_open){n->op == LCAP_NVTX_PUSH ? n->tid : 0, n->ts, n->msg, n->domain,
                               n->op == LCAP_NVTX_START ? n->range_id : 0};
        if (n->op == LCAP_NVTX_START) p->open[p->nopen - 1].tid = n->tid | 0x80000000u;
        return 0;
    case LCAP_NVTX_POP:
    case LCAP_NVTX_END:
        /* Innermost open push of this thread (and domain), or the start with this id. */
        for (size_t i = p->nopen; i-- > 0;) {
            struct nvtx_open *o = &p->open[i];
            bool match = n->op == LCAP_NVTX_POP
                             ? (o->range_id == 0 && o->tid == n->tid && o->domain == n->domain)
                             : (o->range_id == n->range_id);
            if (!match) continue;
            uint32_t tid = o->tid & 0x7fffffffu;
            rc = nvtx_emit_range(p, tid, o->ts, n->ts, o->msg, o->domain);
            memmove(o, o + 1, (p->nopen - i - 1) * sizeof(*o));
            p->nopen--;
            return rc;
        }
        p->st->unmatched_nvtx++;
        return 0;
    case LCAP_NVTX_MARK: {
        if (!in_window(p, n->ts)) {
            p->st->gated++;
            return 0;
        }
        struct lat_event e = lat_event_unlinked();
        e.ph = 'i';
        e.flags = LAT_EVF_INSTANT;
        struct argv v = {.n = 0};
        e.kind = LAT_EV_INSTANT; /* as the reader normalizes ph i */
        if ((rc = intern(p->t, "user_annotation", &e.cat))) return rc;
        e.name = str_of(p, n->msg);
        if (!e.name && (rc = intern(p->t, "<unnamed mark>", &e.name))) return rc;
        e.ts = n->ts - p->o->origin_ns;
        if ((rc = cpu_track(p, n->tid, &e.track))) return rc;
        if ((rc = add_event(p->t, &e, &v, NULL))) return rc;
        p->st->nvtx_marks++;
        return 0;
    }
    case LCAP_NVTX_THREAD_NAME: {
        uint32_t ix;
        if ((rc = cpu_track(p, n->tid, &ix))) return rc;
        if (str_of(p, n->msg)) p->t->tracks[ix].tid_label = str_of(p, n->msg);
        return 0;
    }
    default:
        p->st->unknown_records++;
        return 0;
    }
}

static int api_cmp(const void *a, const void *b)
{
    const struct api_ref *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* gpu_user_annotation: each NVTX range spans, on every stream its launches used, from the first
 * GPU start to the last GPU end of the work launched inside it (Kineto's projection). */
static int project_ranges(struct proc *p)
{
    int rc;
    uint32_t cat;
    if (!p->nranges || !p->napis) return 0;
    qsort(p->apis, p->napis, sizeof(*p->apis), api_cmp);
    if ((rc = intern(p->t, "gpu_user_annotation", &cat))) return rc;
    for (size_t r = 0; r < p->nranges; r++) {
        const struct nvtx_range *rg = &p->ranges[r];
        /* First API of this track at or after the range start. */
        size_t lo = 0, hi = p->napis;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const struct api_ref *a = &p->apis[mid];
            if (a->track < rg->track || (a->track == rg->track && a->ts < rg->ts))
                lo = mid + 1;
            else
                hi = mid;
        }
        int32_t dev = -1;
        int64_t stream = -1;
        lat_ns s = 0, e = 0;
        for (size_t i = lo; i < p->napis; i++) {
            const struct api_ref *a = &p->apis[i];
            if (a->track != rg->track || a->ts > rg->end) break;
            struct corr_slot *c = corr_find(p, a->corr);
            if (!c || c->gpu_dev < 0) continue;
            if (dev < 0) {
                dev = c->gpu_dev;
                stream = c->gpu_stream;
                s = c->gpu_start;
                e = c->gpu_end;
            } else if (c->gpu_dev == dev && c->gpu_stream == stream) {
                if (c->gpu_start < s) s = c->gpu_start;
                if (c->gpu_end > e) e = c->gpu_end;
            }
        }
        if (dev < 0) continue;
        struct lat_event ev = lat_event_unlinked();
        ev.ts = s;
        ev.dur = e - s;
        ev.name = rg->name;
        ev.cat = cat;
        ev.kind = LAT_EV_GPU_ANNOTATION;
        ev.flags = LAT_EVF_GPU;
        ev.stream = stream;
        ev.device = dev;
        ev.ph = 'X';
        struct argv v = {.n = 0};
        if ((rc = gpu_track(p, dev, stream, &ev.track))) return rc;
        if ((rc = add_event(p->t, &ev, &v, NULL))) return rc;
    }
    return 0;
}

/* --- one file ----------------------------------------------------------------------------- */

static void add_msg(struct collect_stats *st, uint32_t pid, const struct lcap_status *s,
                    const char *text)
{
    if (st->nmsgs >= COLLECT_MAX_MSGS) return;
    struct collect_msg *m = &st->msgs[st->nmsgs++];
    m->pid = pid;
    m->code = s->code;
    m->cupti_rc = s->cupti_rc;
    snprintf(m->text, sizeof(m->text), "%s", text ? text : "");
}

static int pass1(struct proc *p, struct lcap_iter *it)
{
    uint16_t type;
    const void *pl;
    uint32_t size;
    int rc;
    while (lcap_iter_next(it, &type, &pl, &size)) {
        switch (type) {
        case LCAP_STR: {
            struct lcap_str s;
            if (size < sizeof(s)) break;
            lcap_payload(&s, sizeof(s), pl, size);
            if (s.len > size - sizeof(s) || s.id == 0 || s.id > 1u << 26) break;
            if (s.id >= p->nstr) { /* nstr: the map's size, grown zero-filled */
                size_t old = p->nstr;
                if ((rc = LAT_GROW(p->strmap, p->nstr, s.id, 1, 256))) return rc;
                memset(p->strmap + old, 0, (p->nstr - old) * sizeof(*p->strmap));
            }
            const char *txt = (const char *)pl + sizeof(s);
            char *dm = p->o->demangle ? lat_demangle(txt, s.len) : NULL;
            rc = dm ? lat_trace_intern(p->t, dm, strlen(dm), &p->strmap[s.id])
                    : lat_trace_intern(p->t, txt, s.len, &p->strmap[s.id]);
            free(dm);
            if (rc) return rc;
            break;
        }
        case LCAP_PROC: {
            struct lcap_proc pr;
            lcap_payload(&pr, sizeof(pr), pl, size);
            p->pid = pr.pid;
            p->comm = pr.comm; /* resolved after the pass */
            if (pr.cupti_runtime) p->st->cupti_runtime = pr.cupti_runtime;
            break;
        }
        case LCAP_SYNC: {
            struct lcap_sync y;
            lcap_payload(&y, sizeof(y), pl, size);
            if (!sane(y.mono_ns) || !sane(y.realtime_ns) || y.cupti_ns >= (uint64_t)SANE_NS ||
                !sane(y.gap_ns))
                break; /* corrupt pair: ignored */
            GROW(p->syncs, p->nsyncs, p->syncs_cap);
            p->syncs[p->nsyncs++] = y;
            break;
        }
        case LCAP_CONTEXT: {
            struct lcap_context c;
            lcap_payload(&c, sizeof(c), pl, size);
            if ((rc = note_ctx(p, c.context, c.device))) return rc;
            break;
        }
        case LCAP_FOOTER: {
            struct lcap_footer f;
            lcap_payload(&f, sizeof(f), pl, size);
            /* Counters are cumulative: the last footer is added in collect_buffer. */
            p->has_cuda = p->has_cuda || f.records > 0;
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

static int pass2(struct proc *p, struct lcap_iter *it, struct lcap_footer *last)
{
    uint16_t type;
    const void *pl;
    uint32_t size;
    int rc = 0;
    union {
        struct lcap_api api;
        struct lcap_kernel kernel;
        struct lcap_memcpy memcpy;
        struct lcap_memset memset;
        struct lcap_cudasync sync;
        struct lcap_overhead overhead;
        struct lcap_device device;
        struct lcap_nvtx nvtx;
        struct lcap_status status;
        struct lcap_footer footer;
    } u;
    /* Devices first: kernel args need the SM count. */
    struct lcap_iter it0 = *it;
    while (lcap_iter_next(&it0, &type, &pl, &size))
        if (type == LCAP_DEVICE) {
            lcap_payload(&u.device, sizeof(u.device), pl, size);
            if ((rc = do_device(p, &u.device))) return rc;
        }
    while (!rc && lcap_iter_next(it, &type, &pl, &size)) {
        switch (type) {
        case LCAP_API:
            lcap_payload(&u.api, sizeof(u.api), pl, size);
            rc = do_api(p, &u.api);
            p->has_cuda = true;
            break;
        case LCAP_KERNEL:
            lcap_payload(&u.kernel, sizeof(u.kernel), pl, size);
            rc = do_kernel(p, &u.kernel);
            p->has_cuda = true;
            break;
        case LCAP_MEMCPY:
            lcap_payload(&u.memcpy, sizeof(u.memcpy), pl, size);
            rc = do_memcpy(p, &u.memcpy);
            p->has_cuda = true;
            break;
        case LCAP_MEMSET:
            lcap_payload(&u.memset, sizeof(u.memset), pl, size);
            rc = do_memset(p, &u.memset);
            break;
        case LCAP_CUDASYNC:
            lcap_payload(&u.sync, sizeof(u.sync), pl, size);
            rc = do_sync(p, &u.sync);
            break;
        case LCAP_OVERHEAD:
            lcap_payload(&u.overhead, sizeof(u.overhead), pl, size);
            rc = do_overhead(p, &u.overhead);
            break;
        case LCAP_NVTX:
            lcap_payload(&u.nvtx, sizeof(u.nvtx), pl, size);
            rc = do_nvtx(p, &u.nvtx);
            break;
        case LCAP_STATUS: {
            lcap_payload(&u.status, sizeof(u.status), pl, size);
            add_msg(p->st, p->pid, &u.status, lat_trace_str(p->t, str_of(p, u.status.msg)));
            break;
        }
        case LCAP_FOOTER:
            lcap_payload(last, sizeof(*last), pl, size);
            break;
        case LCAP_PROC:
        case LCAP_STR:
        case LCAP_SYNC:
        case LCAP_DEVICE:
        case LCAP_CONTEXT:
        case LCAP_EXTCORR:
        case LCAP_CUDAEVENT:
            break;
        default:
            p->st->unknown_records++;
            break;
        }
    }
    return rc;
}

static void proc_free(struct proc *p)
{
    free(p->strmap);
    free(p->syncs);
    free(p->ctx);
    free(p->corr);
    lat_u64map_fini(&p->corr_ix);
    free(p->open);
    free(p->ranges);
    free(p->apis);
}

int collect_buffer(struct lat_trace *t, const void *data, size_t len, unsigned proc_index,
                   const struct collect_opts *o, struct collect_stats *st)
{
    struct proc p = {.t = t, .o = o, .st = st, .index = proc_index};
    struct lcap_iter it;
    struct lcap_footer last = {0};
    size_t ev0 = t->ev.n;
    int rc = lcap_iter_init(&it, data, len);
    if (rc) {
        st->bad_files++;
        return rc;
    }
    struct lcap_iter start = it;
    if ((rc = keys_init(t, &p.k))) goto out;
    if ((rc = pass1(&p, &it))) goto out;
    p.comm = str_of(&p, p.comm);
    if (!p.comm) {
        char buf[32];
        snprintf(buf, sizeof(buf), "process %" PRIu32, p.pid);
        if ((rc = intern(t, buf, &p.comm))) goto out;
    }
    clocksync_init(&p.cs, p.syncs, p.nsyncs);
    st->clock_steps += p.cs.steps;
    st->nsyncs += (unsigned)p.nsyncs;
    it = start;
    if ((rc = pass2(&p, &it, &last))) goto out;
    if (it.truncated) st->truncated_files++;
    if (o->gpu_annotations && (rc = project_ranges(&p))) goto out;
    st->unmatched_nvtx += p.nopen; /* pushes never popped (process killed inside a range) */
    st->cupti_dropped += last.cupti_dropped;
    st->lost += last.lost_records;
    st->nvtx_lost += last.nvtx_lost;
    st->gated += last.gated;
    st->self_ns += last.self_ns;
    if (p.has_cuda) st->cuda_procs++;
    st->files++;
    st->events += t->ev.n - ev0;
out:
    proc_free(&p);
    return rc;
}

static int read_all(const char *path, void **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        if (LAT_GROW(buf, cap, n, 1, 0)) {
            free(buf);
            close(fd);
            return -ENOMEM;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = -errno;
            free(buf);
            close(fd);
            return e;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    *data = buf;
    *len = n;
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int collect_dir(struct lat_trace *t, const char *dir, const struct collect_opts *o,
                struct collect_stats *st)
{
    DIR *d = opendir(dir);
    if (!d) return -errno;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (strncmp(de->d_name, "cuda.", 5) != 0 || l < 10 || strcmp(de->d_name + l - 5, ".lcap"))
            continue;
        if ((rc = LAT_GROW(names, cap, n, 1, 16))) goto out;
        if (!(names[n] = strdup(de->d_name))) {
            rc = -ENOMEM;
            goto out;
        }
        n++;
    }
    if (n > 1) qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n && !rc; i++) {
        char path[4096];
        void *data = NULL;
        size_t len = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        int r = read_all(path, &data, &len);
        if (r == -ENOMEM) rc = r;
        if (r) {
            st->bad_files++;
            continue;
        }
        r = collect_buffer(t, data, len, (unsigned)i, o, st);
        free(data);
        if (r == -ENOMEM) rc = r;
    }
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}
