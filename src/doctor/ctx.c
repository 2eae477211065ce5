/*
 * ctx.c - one pass of preprocessing shared by every doctor rule.
 *
 * From the trace model it builds: (1) the GPU operations sorted by time, each joined to the
 * runtime call that launched it through the correlation id; (2) the CPU nesting (parent of each
 * cpu_op / annotation / runtime call on its thread), from one sort by (track, ts, -dur) and a
 * stack per track; (3) the step windows, adjusted to the GPU work each host step launched as
 * tb_plugin does (so step times and the DataLoader share match tb_plugin's numbers); (4) the
 * merged interval sets (GPU busy, kernels, copies, communication, runtime, DataLoader).
 * Self-time attribution of a time window walks only the events that overlap it: the chain of
 * events that contain its start (ancestors of the last event starting before it) and those
 * starting inside it. Python function events are left out of the nesting: ops name the work.
 */
#include "doctor/ctx.h"
#include "analyze/analysis.h"
#include "analyze/tf.h"
#include "core/err.h"
#include "core/grow.h"
#include "doctor/trt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *doc_name(const struct doc_ctx *c, size_t ev)
{
    return lat_trace_str(c->t, c->t->ev.name[ev]);
}

static bool has_prefix(const char *s, const char *p);

const char *doc_step_label(const struct doc_ctx *c, size_t s, char *buf, size_t n)
{
    int32_t num = s < c->nsteps ? c->steps[s].num : -1;
    if (s < c->nsteps && c->steps[s].ev >= 0) {
        const char *nm = doc_name(c, (size_t)c->steps[s].ev);
        if (has_prefix(nm, "ProfilerStep#") || lat_trace_has(c->t, LAT_FCAP_MARKER_STEPS))
            return nm;                       /* numbered already */
        snprintf(buf, n, "%s #%d", nm, num); /* ORT's model_run */
        return buf;
    }
    snprintf(buf, n, "ProfilerStep#%d", num);
    return buf;
}

const char *doc_key_name(const struct doc_ctx *c, uint32_t id)
{
    if (id == DOC_NAME_STEP && lat_tf_is(c->t))
        return "(in the step, outside any op: TensorFlow framework or Python code)";
    if (id == DOC_NAME_STEP) return "(in the ProfilerStep, outside any op: Python/framework code)";
    if (id == DOC_NAME_NONE) return "(no profiled CPU event: Python/framework code or idle thread)";
    return lat_trace_str(c->t, id);
}

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *p)
{
    size_t n = strlen(s), m = strlen(p);
    return n >= m && memcmp(s + n - m, p, m) == 0;
}

static unsigned doc_api_of(const char *s)
{
    static const char *const sync[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",
        "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",
        "cudaThreadSynchronize",
    };
    static const char *const memcpy_sync[] = {
        "cudaMemcpy",           "cudaMemcpy2D", "cudaMemcpyToSymbol",
        "cudaMemcpyFromSymbol", "hipMemcpy",    "cuMemcpyDtoH_v2",
        "cuMemcpyHtoD_v2",      "cuMemcpyDtoH", "cuMemcpyHtoD",
    };
    static const char *const alloc[] = {
        "cudaMalloc",      "cudaFree",          "cudaMallocHost",
        "cudaHostAlloc",   "cudaFreeHost",      "cudaMallocManaged",
        "cudaMallocPitch", "cudaHostRegister",  "cudaHostUnregister",
        "cuMemAlloc_v2",   "cuMemFree_v2",      "cuMemAlloc",
        "cuMemFree",       "cuMemAllocHost_v2", "cuMemFreeHost",
        "hipMalloc",       "hipFree",           "hipHostMalloc",
        "hipHostFree",     "hipMallocManaged",
    };
    unsigned k = DOC_API_CLASSIFIED;
    for (size_t i = 0; i < sizeof(sync) / sizeof(*sync); i++)
        if (strcmp(s, sync[i]) == 0) return k | DOC_API_SYNC;
    for (size_t i = 0; i < sizeof(memcpy_sync) / sizeof(*memcpy_sync); i++)
        if (strcmp(s, memcpy_sync[i]) == 0) return k | DOC_API_MEMCPY | DOC_API_LAUNCH;
    for (size_t i = 0; i < sizeof(alloc) / sizeof(*alloc); i++)
        if (strcmp(s, alloc[i]) == 0) return k | DOC_API_ALLOC;
    if (strstr(s, "GraphLaunch")) return k | DOC_API_GRAPH | DOC_API_LAUNCH;
    if (strstr(s, "LaunchKernel") || strstr(s, "LaunchCooperativeKernel") ||
        strstr(s, "MemcpyAsync") || strstr(s, "MemsetAsync") || strstr(s, "MemcpyWithStream") ||
        has_prefix(s, "cudaMemcpyPeerAsync") || has_prefix(s, "cudaMemcpy2DAsync"))
        return k | DOC_API_LAUNCH;
    if (strcmp(s, "runFunction - job_prep_and_submit_for_execution") == 0)
        return k | DOC_API_LAUNCH;
    return k;
}

unsigned doc_api_class(struct doc_ctx *c, uint32_t name)
{
    if (!(c->api[name] & DOC_API_CLASSIFIED))
        c->api[name] = (uint8_t)doc_api_of(lat_trace_str(c->t, name));
    return c->api[name] & ~(unsigned)DOC_API_CLASSIFIED;
}

static bool doc_step_name(const char *s, int32_t *num)
{
    if (!has_prefix(s, "ProfilerStep#")) return false;
    const char *p = s + 13;
    int64_t v = 0;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9' && v < INT32_MAX / 10)
        v = v * 10 + (*p++ - '0');
    *num = (int32_t)v;
    return true;
}

static bool doc_cpu_kind(uint16_t k)
{
    return k == LAT_EV_CPU_OP || k == LAT_EV_USER_ANNOTATION || k == LAT_EV_RUNTIME ||
           k == LAT_EV_DRIVER;
}

static bool doc_gpu_work_kind(uint16_t k)
{
    return k == LAT_EV_KERNEL || k == LAT_EV_MEMCPY || k == LAT_EV_MEMSET ||
           k == LAT_EV_DEVICE_OTHER;
}

bool doc_is_step_event(const struct doc_ctx *c, size_t ev)
{
    int32_t n;
    uint16_t k = c->t->ev.kind[ev];
    if (k != LAT_EV_CPU_OP && k != LAT_EV_USER_ANNOTATION) return false;
    return (c->t->ev.flags[ev] & LAT_EVF_STEP) || doc_step_name(doc_name(c, ev), &n);
}

bool doc_is_dataloader(const char *s)
{
    return (has_prefix(s, "enumerate(DataLoader)#") && has_suffix(s, ".__next__")) ||
           has_prefix(s, "enumerate(DataPipe)#");
}

static bool doc_is_comm_kernel(const char *s)
{
    return has_prefix(s, "nccl") || strstr(s, "ncclKernel") || strstr(s, "ncclDevKernel") ||
           has_prefix(s, "rccl") || has_prefix(s, "hccl");
}

/* ---- sorting helpers ------------------------------------------------------------------- */

static int cmp_cpu(const void *x, const void *y, void *arg)
{
    const struct lat_event_cols *e = arg;
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (e->track[i] != e->track[j]) return e->track[i] < e->track[j] ? -1 : 1;
    if (e->ts[i] != e->ts[j]) return e->ts[i] < e->ts[j] ? -1 : 1;
    if (e->dur[i] != e->dur[j]) return e->dur[i] > e->dur[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static int cmp_gop(const void *x, const void *y)
{
    const struct doc_gop *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

struct corr_pair {
    int64_t corr;
    uint32_t ev;
    uint16_t kind;
};

static int cmp_corr(const void *x, const void *y)
{
    const struct corr_pair *a = x, *b = y;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    if (a->kind != b->kind) return a->kind == LAT_EV_RUNTIME ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

static size_t corr_lower(const struct corr_pair *p, size_t n, int64_t corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_step_num(const void *x, const void *y)
{
    const struct doc_step *a = x, *b = y;
    if (a->num != b->num) return a->num < b->num ? -1 : 1;
    if (a->host_ts != b->host_ts) return a->host_ts < b->host_ts ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

static int cmp_step(const void *x, const void *y)
{
    const struct doc_step *a = x, *b = y;
    if (a->host_ts != b->host_ts) return a->host_ts < b->host_ts ? -1 : 1;
    return (a->num > b->num) - (a->num < b->num);
}

/* ---- build ------------------------------------------------------------------------------ */

static int doc_build_nesting(struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    size_t n = t->ev.n, m = 0;
    uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));
    c->trk_off = calloc(t->ntracks + 1, sizeof(*c->trk_off));
    if (!idx || !c->trk_off) {
        free(idx);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        c->parent[i] = -1;
        uint32_t tr = t->ev.track[i];
        if (!doc_cpu_kind(t->ev.kind[i]) || t->ev.dur[i] < 0 || tr >= t->ntracks ||
            t->tracks[tr].gpu || (t->ev.flags[i] & LAT_EVF_INSTANT))
            continue;
        idx[m++] = (uint32_t)i;
        c->trk_off[tr + 1]++;
    }
    struct lat_event_cols cols = t->ev; /* qsort_r wants a non-const context */
    qsort_r(idx, m, sizeof(*idx), cmp_cpu, &cols);
    for (size_t k = 0; k < t->ntracks; k++)
        c->trk_off[k + 1] += c->trk_off[k];
    c->trk_ev = idx;
    /* Stack per track; the sorted order visits one track after the other. */
    int64_t *stack = malloc((m ? m : 1) * sizeof(*stack));
    if (!stack) return -ENOMEM;
    size_t sp = 0;
    uint32_t cur = UINT32_MAX;
    for (size_t k = 0; k < m; k++) {
        uint32_t i = idx[k];
        if (t->ev.track[i] != cur) {
            cur = t->ev.track[i];
            sp = 0;
        }
        lat_ns ts = t->ev.ts[i];
        while (sp && t->ev.ts[stack[sp - 1]] + t->ev.dur[stack[sp - 1]] <= ts)
            sp--;
        if (sp) c->parent[i] = stack[sp - 1];
        stack[sp++] = i;
    }
    free(stack);
    return 0;
}

static int doc_build_gpu(struct doc_ctx *c, struct corr_pair **rtc_out, size_t *nrtc_out)
{
    const struct lat_trace *t = c->t;
    size_t n = t->ev.n, ng = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t k = t->ev.kind[i];
        if (doc_gpu_work_kind(k) && t->ev.dur[i] >= 0) ng++;
        if ((k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER) && t->ev.correlation[i] >= 0) nr++;
    }
    c->g = calloc(ng ? ng : 1, sizeof(*c->g));
    struct corr_pair *rtc = malloc((nr ? nr : 1) * sizeof(*rtc));
    if (!c->g || !rtc) {
        free(rtc);
        return -ENOMEM;
    }
    nr = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t k = t->ev.kind[i];
        if (doc_gpu_work_kind(k) && t->ev.dur[i] >= 0) {
            struct doc_gop *g = &c->g[c->ng++];
            g->ev = i;
            g->ts = t->ev.ts[i];
            g->end = t->ev.ts[i] + t->ev.dur[i];
            g->kind = k;
            g->launch = -1;
            g->step = -1;
            g->comm = k == LAT_EV_KERNEL && doc_is_comm_kernel(doc_name(c, i));
        }
        if ((k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER) && t->ev.correlation[i] >= 0) {
            rtc[nr].corr = t->ev.correlation[i];
            rtc[nr].ev = (uint32_t)i;
            rtc[nr].kind = k;
            nr++;
            if (doc_api_class(c, t->ev.name[i]) & DOC_API_GRAPH) c->graph_launches++;
        }
    }
    qsort(rtc, nr, sizeof(*rtc), cmp_corr);
    qsort(c->g, c->ng, sizeof(*c->g), cmp_gop);
    for (size_t k = 0; k < c->ng; k++) {
        struct doc_gop *g = &c->g[k];
        int64_t corr = t->ev.correlation[g->ev];
        if (corr >= 0) {
            size_t p = corr_lower(rtc, nr, corr);
            if (p < nr && rtc[p].corr == corr) g->launch = rtc[p].ev;
        }
        if (g->launch >= 0 && (doc_api_class(c, t->ev.name[g->launch]) & DOC_API_GRAPH))
            g->graph = true;
        int64_t gid;
        if (g->kind == LAT_EV_KERNEL && lat_trace_arg_int(t, g->ev, "graph id", &gid) && gid > 0)
            g->graph = true;
    }
    *rtc_out = rtc;
    *nrtc_out = nr;
    return 0;
}

/* Host steps from ProfilerStep#N events, then tb_plugin's device-side adjustment
 * (tb_plugin event_parser.py: _find_device_steps, _update_steps_duration). */
static int doc_build_steps(struct doc_ctx *c, const struct corr_pair *rtc, size_t nrtc)
{
    const struct lat_trace *t = c->t;
    size_t n = t->ev.n, ns = 0;
    for (size_t i = 0; i < n; i++)
        if (doc_is_step_event(c, i) && t->ev.dur[i] >= 0) ns++;
    c->steps = calloc(ns ? ns : 1, sizeof(*c->steps));
    if (!c->steps) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!doc_is_step_event(c, i) || t->ev.dur[i] < 0) continue;
        int32_t num = t->ev.step[i];
        if (num < 0 && !doc_step_name(doc_name(c, i), &num)) num = -1;
        struct doc_step *s = &c->steps[c->nsteps++];
        s->num = num;
        s->host_ts = s->ts = t->ev.ts[i];
        s->host_end = s->end = t->ev.ts[i] + t->ev.dur[i];
        s->ev = (int64_t)i;
        s->track = t->ev.track[i];
    }
    c->steps_real = c->nsteps > 0;
    if (!c->nsteps) {
        /* No ProfilerStep: the trace's CPU span (tb_plugin's cpu_min_ts..cpu_max_ts) is one
         * window; without CPU ops, the whole trace. */
        lat_ns a = INT64_MAX, b = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            uint16_t k = t->ev.kind[i];
            if ((k == LAT_EV_CPU_OP || k == LAT_EV_PYTHON || k == LAT_EV_USER_ANNOTATION) &&
                t->ev.dur[i] >= 0) {
                if (t->ev.ts[i] < a) a = t->ev.ts[i];
                if (t->ev.ts[i] + t->ev.dur[i] > b) b = t->ev.ts[i] + t->ev.dur[i];
            }
        }
        if (a > b) {
            a = c->t0;
            b = c->t1;
        }
        if (a > b) return 0;
        c->steps[0] = (struct doc_step){.num = -1,
                                        .ts = a,
                                        .end = b,
                                        .host_ts = a,
                                        .host_end = b,
                                        .ev = -1,
                                        .track = UINT32_MAX};
        c->nsteps = 1;
    }
    qsort(c->steps, c->nsteps, sizeof(*c->steps), cmp_step);
    if (c->steps_real) {
        /* A step number seen twice (e.g. a cpu_op and a user_annotation copy): keep the first. */
        qsort(c->steps, c->nsteps, sizeof(*c->steps), cmp_step_num);
        size_t k = 0;
        for (size_t i = 0; i < c->nsteps; i++)
            if (!k || c->steps[i].num != c->steps[k - 1].num) c->steps[k++] = c->steps[i];
        c->nsteps = k;
        qsort(c->steps, c->nsteps, sizeof(*c->steps), cmp_step);
    }

    /* Device extent of the GPU work launched by runtime calls fully inside each host step. */
    size_t nst = c->nsteps;
    lat_ns *dmin = malloc(nst * sizeof(*dmin)), *dmax = malloc(nst * sizeof(*dmax));
    bool *matched = calloc(c->ng ? c->ng : 1, sizeof(*matched));
    if (!dmin || !dmax || !matched) {
        free(dmin);
        free(dmax);
        free(matched);
        return -ENOMEM;
    }
    for (size_t k = 0; k < nst; k++) {
        dmin[k] = INT64_MAX;
        dmax[k] = INT64_MIN;
    }
    bool any = false;
    for (size_t k = 0; k < c->ng; k++) {
        struct doc_gop *g = &c->g[k];
        if (g->launch < 0) continue;
        lat_ns ls = t->ev.ts[g->launch], le = ls + t->ev.dur[g->launch];
        /* last host step starting at or before the launch */
        size_t lo = 0, hi = nst;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->steps[mid].host_ts <= ls)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!lo) continue;
        struct doc_step *s = &c->steps[lo - 1];
        if (le > s->host_end) continue;
        g->step = (int32_t)(lo - 1);
        matched[k] = true;
        any = true;
        s->ndev++;
        if (g->ts < dmin[lo - 1]) dmin[lo - 1] = g->ts;
        if (g->end > dmax[lo - 1]) dmax[lo - 1] = g->end;
    }
    (void)rtc;
    (void)nrtc;
    if (any) {
        lat_ns prev = c->steps[0].host_ts;
        if (dmin[0] != INT64_MAX)
            for (size_t k = 0; k < c->ng; k++)
                if (!matched[k] && c->g[k].end < dmin[0] && c->g[k].end > prev) prev = c->g[k].end;
        for (size_t k = 0; k < nst; k++) {
            struct doc_step *s = &c->steps[k];
            lat_ns a = prev > s->host_ts ? prev : s->host_ts;
            lat_ns b = s->host_end;
            if (dmin[k] == INT64_MAX) {
                if (b < a) b = a;
            } else {
                if (dmax[k] > b) b = dmax[k];
                if (b < a) b = a;
            }
            s->ts = a;
            s->end = b;
            prev = b;
        }
        /* tb_plugin drops trailing steps that launched nothing, and the last one when it
         * launched under 80 % of the previous step's work (the profiler may have missed it). */
        if (nst > 1) {
            size_t i = nst;
            while (i > 0 && c->steps[i - 1].ndev == 0)
                i--;
            if (i > 0) {
                size_t keep = i;
                if (i > 1 && c->steps[i - 2].ndev * 0.8 > c->steps[i - 1].ndev) keep = i - 1;
                c->nsteps = keep;
            }
        }
    } else if (c->steps_real && c->nsteps > 1 && !analysis_last_step_complete(t)) {
        c->nsteps--; /* no GPU work: the same completeness test as analyze (analysis.h) */
    }
    free(dmin);
    free(dmax);
    free(matched);
    /* GPU ops not matched to a host step: place them by their own time. */
    for (size_t k = 0; k < c->ng; k++) {
        if (c->g[k].step >= (int32_t)c->nsteps) c->g[k].step = -1;
        if (c->g[k].step < 0) c->g[k].step = doc_step_at(c, c->g[k].ts);
    }
    for (size_t k = 0; k < c->nsteps; k++) {
        c->step_total += c->steps[k].end - c->steps[k].ts;
        if (lat_ivl_push(&c->steps_set, c->steps[k].ts, c->steps[k].end)) return -ENOMEM;
    }
    lat_ivl_merge(&c->steps_set);
    c->step_mean = c->nsteps ? c->step_total / (lat_ns)c->nsteps : 0;
    return 0;
}

static int doc_build_sets(struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    int rc = 0;
    for (size_t k = 0; k < c->ng && !rc; k++) {
        const struct doc_gop *g = &c->g[k];
        rc |= lat_ivl_push(&c->busy, g->ts, g->end);
        if (g->kind == LAT_EV_MEMCPY)
            rc |= lat_ivl_push(&c->copies, g->ts, g->end);
        else if (g->kind == LAT_EV_MEMSET)
            rc |= lat_ivl_push(&c->memsets, g->ts, g->end);
        else if (g->comm)
            rc |= lat_ivl_push(&c->comm, g->ts, g->end);
        else
            rc |= lat_ivl_push(&c->kernels, g->ts, g->end);
    }
    for (size_t i = 0; i < t->ev.n && !rc; i++) {
        uint16_t k = t->ev.kind[i];
        lat_ns a = t->ev.ts[i], b = a + t->ev.dur[i];
        if (k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER)
            rc |= lat_ivl_push(&c->runtime, a, b);
        else if ((k == LAT_EV_CPU_OP || k == LAT_EV_USER_ANNOTATION) &&
                 doc_is_dataloader(doc_name(c, i)))
            rc |= lat_ivl_push(&c->dataloader, a, b);
    }
    if (rc) return -ENOMEM;
    lat_ivl_merge(&c->busy);
    lat_ivl_merge(&c->copies);
    lat_ivl_merge(&c->memsets);
    lat_ivl_merge(&c->comm);
    lat_ivl_merge(&c->kernels);
    lat_ivl_merge(&c->runtime);
    lat_ivl_merge(&c->dataloader);
    return 0;
}

int doc_ctx_init(struct doc_ctx *c, const struct lat_trace *t, const struct doc_opts *o,
                 struct doc_report *r, int trace)
{
    memset(c, 0, sizeof(*c));
    c->t = t;
    c->o = o;
    c->r = r;
    c->trace = trace;
    c->t0 = INT64_MAX;
    c->t1 = INT64_MIN;
    for (size_t i = 0; i < t->ev.n; i++) {
        uint16_t k = t->ev.kind[i];
        if (k == LAT_EV_COUNTER || k == LAT_EV_SPAN || t->ev.dur[i] < 0) continue;
        if (t->ev.ts[i] < c->t0) c->t0 = t->ev.ts[i];
        if (t->ev.ts[i] + t->ev.dur[i] > c->t1) c->t1 = t->ev.ts[i] + t->ev.dur[i];
    }
    if (c->t0 > c->t1) c->t0 = c->t1 = 0;
    c->parent = malloc((t->ev.n ? t->ev.n : 1) * sizeof(*c->parent));
    c->api = calloc(t->strs.count ? t->strs.count : 1, 1);
    if (!c->parent || !c->api) return -ENOMEM;
    struct corr_pair *rtc = NULL;
    size_t nrtc = 0;
    int rc = doc_build_nesting(c);
    if (!rc) rc = doc_build_gpu(c, &rtc, &nrtc);
    if (!rc) rc = doc_build_steps(c, rtc, nrtc);
    if (!rc) rc = doc_build_sets(c);
    free(rtc);
    return rc;
}

void doc_ctx_fini(struct doc_ctx *c)
{
    free(c->steps);
    free(c->g);
    free(c->parent);
    free(c->api);
    free(c->trk_off);
    free(c->trk_ev);
    lat_ivl_fini(&c->busy);
    lat_ivl_fini(&c->kernels);
    lat_ivl_fini(&c->comm);
    lat_ivl_fini(&c->copies);
    lat_ivl_fini(&c->memsets);
    lat_ivl_fini(&c->runtime);
    lat_ivl_fini(&c->dataloader);
    lat_ivl_fini(&c->steps_set);
    free(c->trace_arg);
    c->trace_arg = NULL;
    doc_trt_fini(c);
}

int32_t doc_step_at(const struct doc_ctx *c, lat_ns ts)
{
    size_t lo = 0, hi = c->nsteps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->steps[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo) return -1;
    const struct doc_step *s = &c->steps[lo - 1];
    return ts < s->end || (ts == s->ts) ? (int32_t)(lo - 1) : -1;
}

int64_t doc_enclosing_op(const struct doc_ctx *c, size_t ev)
{
    for (int64_t p = c->parent[ev]; p >= 0; p = c->parent[p])
        if (c->t->ev.kind[p] == LAT_EV_CPU_OP && !doc_is_step_event(c, (size_t)p)) return p;
    return -1;
}

int64_t doc_top_op(const struct doc_ctx *c, size_t ev)
{
    int64_t top = -1;
    for (int64_t p = c->parent[ev]; p >= 0; p = c->parent[p]) {
        if (doc_is_step_event(c, (size_t)p)) break;
        if (c->t->ev.kind[p] == LAT_EV_CPU_OP || c->t->ev.kind[p] == LAT_EV_USER_ANNOTATION)
            top = p;
    }
    return top;
}

void doc_example_from(const struct doc_ctx *c, size_t ev, struct doc_example *e)
{
    const struct lat_trace *t = c->t;
    memset(e, 0, sizeof(*e));
    e->name = doc_name(c, ev);
    e->ts = t->ev.ts[ev];
    e->offset = t->ev.ts[ev] - c->t0;
    e->dur = t->ev.dur[ev];
    e->value = e->dur;
    int32_t s = doc_step_at(c, t->ev.ts[ev]);
    e->step = (s >= 0 && c->steps_real) ? c->steps[s].num : -1;
    uint32_t tr = t->ev.track[ev];
    bool gpu = lat_ev_kind_is_gpu((enum lat_ev_kind)t->ev.kind[ev]);
    e->stream = gpu ? t->ev.stream[ev] : -1;
    e->tid = (!gpu && tr < t->ntracks) ? t->tracks[tr].tid : -1;
}

/* ---- accumulator ------------------------------------------------------------------------ */

int doc_acc_add(struct doc_acc *a, uint64_t key, lat_ns v, uint32_t cnt)
{
    uint64_t *row = lat_u64map_find(&a->ix, key);
    if (!row) {
        int rc = LAT_GROW(a->rows, a->cap, a->n, 1, 32);
        if (rc) return rc;
        if (!(row = lat_u64map_slot(&a->ix, key, NULL))) return -ENOMEM;
        *row = a->n;
        a->rows[a->n++] = (struct doc_acc_row){key, 0, 0};
    }
    a->rows[*row].val += v;
    a->rows[*row].cnt += cnt;
    return 0;
}

lat_ns doc_acc_get(const struct doc_acc *a, uint64_t key)
{
    uint64_t r;
    return lat_u64map_get(&a->ix, key, &r) ? a->rows[r].val : 0;
}

uint32_t doc_acc_count(const struct doc_acc *a, uint64_t key)
{
    uint64_t r;
    return lat_u64map_get(&a->ix, key, &r) ? a->rows[r].cnt : 0;
}

void doc_acc_reset(struct doc_acc *a)
{
    lat_u64map_clear(&a->ix);
    a->n = 0;
}

void doc_acc_fini(struct doc_acc *a)
{
    lat_u64map_fini(&a->ix);
    free(a->rows);
    memset(a, 0, sizeof(*a));
}

/* Key of a CPU event: its name (steps share one), and for runtime/driver calls the name of
 * the op that issued them. */
static uint64_t doc_event_key(const struct doc_ctx *c, size_t ev)
{
    uint32_t name = c->t->ev.name[ev], under = 0;
    if (doc_is_step_event(c, ev)) return (uint64_t)DOC_NAME_STEP << 32;
    uint16_t k = c->t->ev.kind[ev];
    if (k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER) {
        int64_t op = doc_enclosing_op(c, ev);
        if (op >= 0) under = c->t->ev.name[op];
    }
    return (uint64_t)name << 32 | under;
}

int doc_attr_window(const struct doc_ctx *c, uint32_t tr, lat_ns a, lat_ns b, struct doc_acc *acc)
{
    const struct lat_trace *t = c->t;
    if (b <= a) return 0;
    if (tr >= t->ntracks) return doc_acc_add(acc, (uint64_t)DOC_NAME_NONE << 32, b - a, 0);
    const uint32_t *ev = c->trk_ev + c->trk_off[tr];
    size_t m = c->trk_off[tr + 1] - c->trk_off[tr];
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ev.ts[ev[mid]] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    lat_ns roots = 0;
    int rc = 0;
    /* Containers of a: the last event starting before a, and its ancestors, that end after a. */
    for (int64_t p = lo ? (int64_t)ev[lo - 1] : -1; p >= 0 && !rc; p = c->parent[p]) {
        lat_ns e = t->ev.ts[p] + t->ev.dur[p];
        if (e <= a) continue;
        lat_ns ov = (e < b ? e : b) - a;
        rc |= doc_acc_add(acc, doc_event_key(c, (size_t)p), ov, 1);
        if (c->parent[p] >= 0)
            rc |= doc_acc_add(acc, doc_event_key(c, (size_t)c->parent[p]), -ov, 0);
        else
            roots += ov;
    }
    for (size_t k = lo; k < m && t->ev.ts[ev[k]] < b && !rc; k++) {
        size_t i = ev[k];
        lat_ns s = t->ev.ts[i], e = s + t->ev.dur[i];
        lat_ns ov = (e < b ? e : b) - s;
        if (ov <= 0) continue;
        rc |= doc_acc_add(acc, doc_event_key(c, i), ov, 1);
        if (c->parent[i] >= 0)
            rc |= doc_acc_add(acc, doc_event_key(c, (size_t)c->parent[i]), -ov, 0);
        else
            roots += ov;
    }
    if (!rc && roots < b - a)
        rc = doc_acc_add(acc, (uint64_t)DOC_NAME_NONE << 32, b - a - roots, 0);
    return rc;
}

enum lat_framework doc_framework(const struct doc_ctx *c)
{
    return c->t->fmt ? c->t->fmt->fw : LAT_FW_NONE;
}
