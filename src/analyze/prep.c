/*
 * prep.c - HTA's trace preprocessing (../shared/docs/analyses.md §0) as a view over the model.
 *
 * Nothing is copied: a rank's view is a keep-mask (1 byte per event), the index correlation
 * (HTA's index_correlation, 4 bytes per event), the iteration tag (4 bytes per event), the sorted
 * index of its GPU rows and a lazily filled per-name classification cache. Times are rounded
 * on the fly (an_ts/an_end in internal.h) when the trace has fractional µs timestamps, exactly
 * as HTA's round_down_time_stamps: ts = ceil(ts), end = floor(ts + dur), in µs.
 *
 * Steps, in HTA's order: (1) keep ph X rows with a dur and a cat, drop cat Trace; (2) round
 * (only with hta_compat: HTA's artefact, it makes op self times negative); (3) align ranks: the
 * offset is the min rounded ts over all ranks, applied to reported timestamps only (durations
 * and gaps do not change); (4) with >= 2 distinct ProfilerStep#N names over all ranks, drop
 * every CPU row at or after the start of the last step and every GPU row whose correlation is
 * not the correlation of a kept CPU row: always with hta_compat (HTA's rule), otherwise only for
 * a rank whose last step analysis_last_step_complete() finds incomplete; (5) tag iterations.
 * HTA's MTIA variant of step 4 is not implemented (no corpus trace needs it; see docs).
 */
#include "analyze/internal.h"
#include "analyze/render.h"
#include "analyze/tf.h"
#include "core/grow.h"
#include "core/pctl.h"
#include "core/sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In-place sort of doubles without a comparison callback (qsort's indirect calls dominated
 * the launch and queue statistics): 3-way quicksort, median-of-three pivot, insertion sort
 * below 16 elements, recursion on the smaller part only. Duplicates (queue lengths take few
 * values) collapse into the middle part, so they cost O(n). NaN is never passed in. */
static void dsort(double *x, size_t n)
{
    while (n > 16) {
        double a = x[0], b = x[n / 2], c = x[n - 1];
        double p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            if (x[i] < p) {
                double t = x[lt];
                x[lt++] = x[i];
                x[i++] = t;
            } else if (x[i] > p) {
                double t = x[--gt];
                x[gt] = x[i];
                x[i] = t;
            } else {
                i++;
            }
        }
        if (lt < n - gt) {
            dsort(x, lt);
            x += gt;
            n -= gt;
        } else {
            dsort(x + gt, n - gt);
            n = lt;
        }
    }
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        while (j > 0 && x[j - 1] > v) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = v;
    }
}

void an_describe(double *x, size_t n, struct lat_dist *d)
{
    memset(d, 0, sizeof(*d));
    d->count = n;
    if (!n) return;
    dsort(x, n);
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) { /* Welford */
        double delta = x[i] - mean;
        mean += delta / (double)(i + 1);
        m2 += delta * (x[i] - mean);
    }
    d->mean = mean;
    d->std = n > 1 ? __builtin_sqrt(m2 / (double)(n - 1)) : 0;
    d->min = x[0];
    d->max = x[n - 1];
    d->p25 = lat_quantile_linear_f64(x, n, 0.25);
    d->p50 = lat_quantile_linear_f64(x, n, 0.50);
    d->p75 = lat_quantile_linear_f64(x, n, 0.75);
    d->p90 = lat_quantile_linear_f64(x, n, 0.90);
    d->p99 = lat_quantile_linear_f64(x, n, 0.99);
}

/* ---- names ---------------------------------------------------------------------------- */

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Python re `.*X` at the start of s: X occurs before the first newline ('.' stops there). */
static bool dot_contains(const char *s, const char *x)
{
    const char *f = strstr(s, x);
    if (!f) return false;
    const char *nl = strchr(s, '\n');
    return !nl || f + strlen(x) <= nl;
}

enum lat_ktype analysis_kernel_type(const char *s)
{
    if (starts(s, "nccl") || starts(s, "hip") || starts(s, "hccl") || dot_contains(s, "ncclKernel"))
        return LAT_KT_COMMUNICATION;
    if (starts(s, "Memcpy") || starts(s, "hipMemcpy") || starts(s, "Memset") ||
        starts(s, "hipMemset") || starts(s, "dma"))
        return LAT_KT_MEMORY;
    bool non_compute =
        starts(s, "nccl") || dot_contains(s, "Memcpy") || dot_contains(s, "Memset") ||
        dot_contains(s, "dma") || dot_contains(s, "Sync") || starts(s, "Stream Wait Event") ||
        (starts(s, "cuda") && dot_contains(s + 4, "LaunchKernel")) || starts(s, "runFunction") ||
        starts(s, "hip") || starts(s, "job_exe") || starts(s, "packet") || starts(s, "pe_exe") ||
        starts(s, "cpum_exe_subgraph") || starts(s, "hccl") ||
        starts(s, "collective_subgraph_execution");
    return non_compute ? LAT_KT_OTHER : LAT_KT_COMPUTATION;
}

const char *analysis_ktype_name(enum lat_ktype t)
{
    static const char *const names[] = {"COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER"};
    return (unsigned)t < LAT_KT_COUNT ? names[t] : "OTHER";
}

const char *analysis_idle_name(enum lat_idle_cat c)
{
    static const char *const names[] = {"host_wait", "kernel_wait", "other"};
    return (unsigned)c < LAT_IDLE_COUNT ? names[c] : "other";
}

/* N of ^ProfilerStep#(\d+), or -1. */
static int64_t step_number(const char *s)
{
    if (!starts(s, "ProfilerStep#")) return -1;
    s += 13;
    if (*s < '0' || *s > '9') return -1;
    int64_t n = 0;
    while (*s >= '0' && *s <= '9' && n < INT32_MAX / 10)
        n = n * 10 + (*s++ - '0');
    return n;
}

bool an_is_step(struct an_view *v, size_t i)
{
    if (v->marker_steps)
        return (v->t->ev.flags[i] & LAT_EVF_STEP) && v->t->ev.kind[i] == LAT_EV_USER_ANNOTATION;
    return (an_namecls(v, i) & AN_NAME_STEP) != 0;
}

int32_t an_step_num(const struct an_view *v, size_t i)
{
    if (v->marker_steps) return v->t->ev.step[i];
    return (int32_t)step_number(lat_trace_str(v->t, v->t->ev.name[i]));
}

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list)) return true;
    return false;
}

static const char *const hta_launch[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "runFunction - job_prep_and_submit_for_execution",
    "cudaMemcpyAsync",  "cudaMemsetAsync",     NULL};
static const char *const queue_launch[] = {"cudaLaunchKernel",
                                           "cudaLaunchKernelExC",
                                           "cuLaunchKernel",
                                           "cuLaunchKernelEx",
                                           "cudaMemcpyAsync",
                                           "cudaMemsetAsync",
                                           "runFunction - job_prep_and_submit_for_execution",
                                           "hipLaunchKernel",
                                           "hipExtModuleLaunchKernel",
                                           "hipMemcpyAsync",
                                           "hipMemsetAsync",
                                           "hipMemcpyWithStream",
                                           NULL};
static const char *const lat_launch_extra[] = {"cuLaunchKernel",
                                               "cuLaunchKernelEx",
                                               "cuLaunchCooperativeKernel",
                                               "cudaLaunchCooperativeKernel",
                                               "cudaLaunchCooperativeKernelMultiDevice",
                                               "cudaGraphLaunch",
                                               "cuGraphLaunch",
                                               "hipLaunchKernel",
                                               "hipExtLaunchKernel",
                                               "hipExtModuleLaunchKernel",
                                               "hipModuleLaunchKernel",
                                               "hipLaunchCooperativeKernel",
                                               "hipGraphLaunch",
                                               "hipMemcpyAsync",
                                               "hipMemsetAsync",
                                               "hipMemcpyWithStream",
                                               "hipMemsetD8Async",
                                               "hipMemsetD32Async",
                                               "cuMemcpyAsync",
                                               "cuMemsetD8Async",
                                               "cuMemsetD32Async",
                                               NULL};

bool an_is_graph_launch(const char *name)
{
    return !strcmp(name, "cudaGraphLaunch") || !strcmp(name, "cuGraphLaunch") ||
           !strcmp(name, "hipGraphLaunch");
}

uint8_t an_namecls(struct an_view *v, size_t i)
{
    uint32_t id = v->t->ev.name[i];
    uint8_t c = v->namecls[id];
    if (c & AN_NAME_KNOWN) return c;
    const char *s = lat_trace_str(v->t, id);
    c = AN_NAME_KNOWN | (uint8_t)analysis_kernel_type(s);
    if (step_number(s) >= 0) c |= AN_NAME_STEP;
    if (!strcmp(s, "Event Sync") || !strcmp(s, "Context Sync")) c |= AN_NAME_SYNC_EVT;
    if (in_list(s, hta_launch)) c |= AN_NAME_HTA_LAUNCH | AN_NAME_LAT_LAUNCH;
    if (in_list(s, queue_launch)) c |= AN_NAME_Q_LAUNCH;
    if (in_list(s, lat_launch_extra)) c |= AN_NAME_LAT_LAUNCH;
    v->namecls[id] = c;
    return c;
}

bool an_is_gpu_kernel_filter(struct an_view *v, size_t i)
{
    if (v->stream[i] >= 0 && v->t->ev.correlation[i] >= 0) return true;
    return (an_namecls(v, i) & AN_NAME_SYNC_EVT) != 0;
}

struct lat_ivl *an_scratch(struct an_view *v, size_t n)
{
    if (n > v->ivl_cap) {
        size_t cap = n < 1024 ? 1024 : n;
        struct lat_ivl *p = realloc(v->ivl, cap * sizeof(*p));
        if (!p) return NULL;
        v->ivl = p;
        v->ivl_cap = cap;
    }
    return v->ivl;
}

void an_view_fini(struct an_view *v)
{
    free(v->keep);
    free(v->namecls);
    if (v->stream && v->stream != v->t->ev.stream) free(v->stream);
    free(v->corr);
    free(v->iter);
    free(v->gpu);
    free(v->steps);
    free(v->ivl);
    memset(v, 0, sizeof(*v));
}

/* ---- the view ------------------------------------------------------------------------- */

static int gpu_cmp(const void *a, const void *b, void *ctx)
{
    const struct an_view *sort_view = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    lat_ns tx = an_ts(sort_view, x), ty = an_ts(sort_view, y);
    if (tx != ty) return tx < ty ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void sort_rows(const struct an_view *v, uint32_t *rows, size_t n)
{
    if (n > 1) qsort_r(rows, n, sizeof(*rows), gpu_cmp, (void *)(uintptr_t)v);
}

/* Step 1 and the per-event columns that do not depend on other ranks. */
static int view_init(struct an_view *v, const struct lat_trace *t, const struct analysis_opts *o)
{
    size_t n = t->ev.n;
    v->t = t;
    v->o = o;
    v->n = n;
    v->round = o->hta_compat && o->ns_rounding && t->frac_ts;
    v->keep = calloc(n ? n : 1, 1);
    v->namecls = calloc(t->strs.count ? t->strs.count : 1, 1);
    v->corr = malloc((n ? n : 1) * sizeof(*v->corr));
    v->iter = malloc((n ? n : 1) * sizeof(*v->iter));
    if (!v->keep || !v->namecls || !v->corr || !v->iter) return -ENOMEM;
    v->stream = t->ev.stream;
    /* TensorFlow: no ProfilerStep; its Trace(step_num) regions are the steps (ingest/xplane.c) */
    v->marker_steps = lat_trace_has(t, LAT_FCAP_MARKER_STEPS);

    uint32_t trace_cat = strtab_find(&t->strs, "Trace", 5);
    for (size_t i = 0; i < n; i++) {
        bool k = t->ev.ph[i] == 'X' && !(t->ev.flags[i] & LAT_EVF_NO_DUR) && t->ev.cat[i] != 0 &&
                 t->ev.cat[i] != trace_cat && t->ev.kind[i] != LAT_EV_SPAN;
        v->keep[i] = k;
        v->corr[i] = AN_NONE;
        v->iter[i] = -1;
    }
    /* The model's stream column is args.stream on every event, as HTA reads it, so Triton
     * cpu_ops (args.stream = 0) are HTA "GPU rows". latscope decides CPU vs GPU by kind:
     * a stream on a CPU-kind event is ignored unless --hta-compat. Readers that fill stream
     * only on GPU events give the same view in both modes. */
    if (!o->hta_compat) {
        int64_t *s = NULL;
        for (size_t i = 0; i < n; i++) {
            if (t->ev.stream[i] == -1 || lat_ev_kind_is_gpu((enum lat_ev_kind)t->ev.kind[i]) ||
                (t->ev.flags[i] & LAT_EVF_GPU))
                continue;
            if (!s) {
                s = malloc(n * sizeof(*s));
                if (!s) return -ENOMEM;
                memcpy(s, t->ev.stream, n * sizeof(*s));
            }
            s[i] = -1;
        }
        if (s) v->stream = s;
    }
    return 0;
}

/* index_correlation (HTA _transform_correlation_to_index): a GPU row points to the last CPU
 * row with its correlation, a CPU row to the last GPU row. */
static int view_correlate(struct an_view *v)
{
    struct lat_u64map cpu = {0}, gpu = {0};
    const int64_t *corr = v->t->ev.correlation;
    size_t ncpu = 0, ngpu = 0; /* sized up front: no rehash */
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && corr[i] != -1) {
            if (an_is_gpu_kernel_filter(v, i))
                ngpu++;
            else
                ncpu++;
        }
    int rc = lat_u64map_init(&cpu, ncpu);
    if (rc) return rc;
    rc = lat_u64map_init(&gpu, ngpu);
    if (rc) goto out;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || corr[i] == -1) continue;
        rc = an_row_put(an_is_gpu_kernel_filter(v, i) ? &gpu : &cpu, corr[i], (uint32_t)i);
        if (rc) goto out;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || corr[i] == -1) continue;
        v->corr[i] = an_row(an_is_gpu_kernel_filter(v, i) ? &cpu : &gpu, corr[i]);
    }
out:
    lat_u64map_fini(&cpu);
    lat_u64map_fini(&gpu);
    return rc;
}

/* Step 4 for one rank (CUDA/ROCm rule). */
static int view_drop_last_step(struct an_view *v, bool include_last)
{
    lat_ns last = INT64_MIN;
    bool have = false;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || an_is_gpu_kernel_filter(v, i)) continue;
        if (!(an_namecls(v, i) & AN_NAME_STEP)) continue;
        lat_ns ts = an_ts(v, i);
        if (!have || ts > last) last = ts;
        have = true;
    }
    if (!have && !include_last) return 0; /* HTA would drop everything; keep the rank whole */
    struct lat_u64map kept;
    int rc = lat_u64map_init(&kept, v->n / 4);
    if (rc) return rc;
    const int64_t *corr = v->t->ev.correlation;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || an_is_gpu_kernel_filter(v, i)) continue;
        if (!include_last && an_ts(v, i) >= last) {
            v->keep[i] = 0;
            v->dropped++;
            continue;
        }
        if (corr[i] != -1 && (rc = an_row_put(&kept, corr[i], (uint32_t)i))) goto out;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || !an_is_gpu_kernel_filter(v, i)) continue;
        if (an_row(&kept, corr[i]) == AN_NONE) {
            v->keep[i] = 0;
            v->dropped++;
        }
    }
out:
    lat_u64map_fini(&kept);
    return rc;
}

/* ---- completeness of the last step (latscope's default for §0 step 4) ------------------ */

static bool is_cpu_step(const struct lat_trace *t, size_t i, int64_t *num)
{
    const struct lat_event_cols *ev = &t->ev;
    if (ev->ph[i] != 'X' || (ev->flags[i] & (LAT_EVF_GPU | LAT_EVF_NO_DUR)) ||
        ev->kind[i] == LAT_EV_GPU_ANNOTATION || t->tracks[ev->track[i]].gpu)
        return false;
    *num = step_number(lat_trace_str(t, ev->name[i]));
    return *num >= 0;
}

static bool is_launch_call(const struct lat_trace *t, size_t i)
{
    const struct lat_event_cols *ev = &t->ev;
    if (ev->kind[i] != LAT_EV_RUNTIME && ev->kind[i] != LAT_EV_DRIVER) return false;
    if (ev->correlation[i] < 0) return false;
    const char *s = lat_trace_str(t, ev->name[i]);
    return in_list(s, hta_launch) || in_list(s, lat_launch_extra);
}

bool an_last_step_complete(const struct lat_trace *t, char *why, size_t whylen)
{
    const struct lat_event_cols *ev = &t->ev;
    size_t n = ev->n;
    int64_t num, last_num = -1, prev_num = -1;
    lat_ns lts = 0, lend = 0, pts = 0, pend = 0;
    bool have = false, have_prev = false;
    if (why && whylen) why[0] = '\0';
    /* the step starting last, and the latest-starting step with another number */
    for (size_t i = 0; i < n; i++) {
        if (!is_cpu_step(t, i, &num)) continue;
        if (!have || ev->ts[i] > lts) {
            lts = ev->ts[i];
            lend = ev->ts[i] + ev->dur[i];
            last_num = num;
            have = true;
        }
    }
    for (size_t i = 0; i < n && have; i++) {
        if (!is_cpu_step(t, i, &num) || num == last_num || ev->ts[i] > lts) continue;
        if (!have_prev || ev->ts[i] > pts) {
            pts = ev->ts[i];
            pend = ev->ts[i] + ev->dur[i];
            prev_num = num;
            have_prev = true;
        }
    }
    if (!have || !have_prev) return true;

    /* GPU rows by correlation id */
    struct lat_u64map gpu;
    if (lat_u64map_init(&gpu, 1024)) return true; /* out of memory: keep (never drops silently) */
    for (size_t i = 0; i < n; i++) {
        if (!lat_ev_kind_is_gpu((enum lat_ev_kind)ev->kind[i]) && !(ev->flags[i] & LAT_EVF_GPU))
            continue;
        if (ev->correlation[i] < 0) continue;
        if (an_row_put(&gpu, ev->correlation[i], (uint32_t)i)) {
            lat_u64map_fini(&gpu);
            return true;
        }
    }
    uint64_t l_launch = 0, p_launch = 0, l_ops = 0, p_ops = 0, missing = 0, p_missing = 0;
    for (size_t i = 0; i < n; i++) {
        lat_ns ts = ev->ts[i];
        bool in_l = ts >= lts && ts < lend, in_p = ts >= pts && ts < pend;
        if (!in_l && !in_p) continue;
        if (is_launch_call(t, i)) {
            bool has = an_row(&gpu, ev->correlation[i]) != AN_NONE;
            if (in_l && !has) missing++;
            if (in_p && !has) p_missing++;
            if (has) {
                if (in_l) l_launch++;
                if (in_p) p_launch++;
            }
        } else if (ev->kind[i] == LAT_EV_CPU_OP && ev->ph[i] == 'X') {
            if (in_l) l_ops++;
            if (in_p) p_ops++;
        }
    }
    lat_u64map_fini(&gpu);
    /* some launches never have a GPU row (in every step alike): only more than in the
     * previous step says the trace stopped before the last step's work was recorded */
    if (missing > p_missing) {
        if (why)
            snprintf(why, whylen,
                     "%llu launch(es) in ProfilerStep#%lld have no GPU row in the trace (%llu in "
                     "#%lld)",
                     (unsigned long long)missing, (long long)last_num,
                     (unsigned long long)p_missing, (long long)prev_num);
        return false;
    }
    bool gpu_side = p_launch > 0;
    uint64_t l = gpu_side ? l_launch : l_ops, p = gpu_side ? p_launch : p_ops;
    if ((double)l < 0.8 * (double)p) {
        if (why)
            snprintf(
                why, whylen, "ProfilerStep#%lld holds %llu %s, under 80%% of the %llu of #%lld",
                (long long)last_num, (unsigned long long)l, gpu_side ? "GPU launches" : "cpu_ops",
                (unsigned long long)p, (long long)prev_num);
        return false;
    }
    return true;
}

bool analysis_last_step_complete(const struct lat_trace *t)
{
    return an_last_step_complete(t, NULL, 0);
}

/* GPU row index, step rows and iteration tags (step 5). */
static int view_index(struct an_view *v)
{
    size_t ng = 0, ns = 0;
    const struct lat_event_cols *ev = &v->t->ev;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i]) continue;
        if (v->stream[i] != -1) ng++;
        if (an_is_step(v, i) && v->stream[i] == -1 && ev->kind[i] != LAT_EV_GPU_ANNOTATION &&
            !(ev->flags[i] & LAT_EVF_GPU))
            ns++;
    }
    v->gpu = malloc((ng ? ng : 1) * sizeof(*v->gpu));
    v->steps = malloc((ns ? ns : 1) * sizeof(*v->steps));
    if (!v->gpu || !v->steps) return -ENOMEM;
    ng = ns = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i]) continue;
        if (v->stream[i] != -1) v->gpu[ng++] = (uint32_t)i;
        if (an_is_step(v, i) && v->stream[i] == -1 && ev->kind[i] != LAT_EV_GPU_ANNOTATION &&
            !(ev->flags[i] & LAT_EVF_GPU))
            v->steps[ns++] = (uint32_t)i;
    }
    sort_rows(v, v->gpu, ng);
    sort_rows(v, v->steps, ns);
    v->ngpu = ng;
    v->nsteps = ns;

    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i]) continue;
        bool cpu_like = v->stream[i] < 0 || (v->stream[i] == 0 && ev->kind[i] == LAT_EV_CPU_OP);
        if (!cpu_like || !ns) continue;
        lat_ns ts = an_ts(v, i);
        size_t a = 0, b = ns; /* last step with step.ts <= ts */
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (an_ts(v, v->steps[m]) <= ts)
                a = m + 1;
            else
                b = m;
        }
        if (!a) continue;
        size_t s = v->steps[a - 1];
        if (ts < an_ts(v, s) + an_dur(v, s)) v->iter[i] = an_step_num(v, s);
    }
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && v->stream[i] > 0 && v->corr[i] != AN_NONE)
            v->iter[i] = v->iter[v->corr[i]];
    return 0;
}

int an_prep(struct an_view *views, struct lat_trace *const *t, size_t n,
            const struct analysis_opts *o, struct lat_analysis *a)
{
    int rc;
    size_t nstepnames = 0, capstep = 0;
    int64_t *stepnames = NULL;
    for (size_t r = 0; r < n; r++) {
        if ((rc = view_init(&views[r], t[r], o))) goto out;
        if ((rc = view_correlate(&views[r]))) goto out;
        struct an_view *v = &views[r];
        for (size_t i = 0; i < v->n; i++) {
            if (!v->keep[i] || !(an_namecls(v, i) & AN_NAME_STEP)) continue;
            if ((rc = LAT_GROW(stepnames, capstep, nstepnames, 1, 64))) goto out;
            stepnames[nstepnames++] = step_number(an_name(v, i));
        }
    }
    /* |P|: distinct step numbers over all ranks */
    if (nstepnames) qsort(stepnames, nstepnames, sizeof(*stepnames), lat_cmp_i64);
    uint32_t distinct = 0;
    for (size_t i = 0; i < nstepnames; i++)
        if (!i || stepnames[i] != stepnames[i - 1]) distinct++;
    if (o->prep_fixed) distinct = o->prep_steps_distinct; /* over the job's ranks (scan) */
    a->steps_distinct = distinct;
    bool pytorch = false; /* only PyTorch inputs are expected to have ProfilerStep#N */
    for (size_t r = 0; r < n; r++)
        pytorch |= analyze_steps_pytorch(t[r]);
    if (distinct == 0 && pytorch)
        snprintf(a->warning, sizeof(a->warning),
                 "ProfilerStep not found: no incomplete last step dropped");
    else if (distinct == 1)
        snprintf(a->warning, sizeof(a->warning),
                 "only one iteration (ProfilerStep) in the trace: kept whole");

    /* step 3: the alignment offset over all non-empty ranks */
    bool have = false;
    lat_ns min_ts = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < views[r].n; i++) {
            if (!views[r].keep[i]) continue;
            lat_ns ts = an_ts(&views[r], i);
            if (!have || ts < min_ts) min_ts = ts;
            have = true;
        }
    if (o->prep_fixed) min_ts = o->prep_offset;
    a->last_step_dropped = false;
    for (size_t r = 0; r < n; r++) {
        views[r].offset = min_ts;
        bool drop = distinct >= 2 && !o->include_last_step;
        char why[sizeof(a->last_step_reason)] = "";
        if (drop && !o->hta_compat) drop = !an_last_step_complete(views[r].t, why, sizeof(why));
        if (distinct >= 2 && (rc = view_drop_last_step(&views[r], !drop))) goto out;
        if (drop && !a->last_step_dropped) {
            a->last_step_dropped = true;
            if (o->hta_compat)
                snprintf(a->last_step_reason, sizeof(a->last_step_reason),
                         "HTA's rule (--hta-compat): the last step is always dropped");
            else
                snprintf(a->last_step_reason, sizeof(a->last_step_reason), "%s", why);
        }
        if ((rc = view_index(&views[r]))) goto out;
    }
    rc = 0;
out:
    free(stepnames);
    return rc;
}

/* Pass 1 of a streamed job: what an_prep() computes over all ranks (the distinct step numbers,
 * the alignment offset), from one rank at a time. */
int analysis_scan_add(struct analysis_scan *s, const struct lat_trace *t,
                      const struct analysis_opts *o)
{
    struct an_view v;
    memset(&v, 0, sizeof(v));
    int rc = view_init(&v, t, o);
    for (size_t i = 0; !rc && i < v.n; i++) {
        if (!v.keep[i]) continue;
        lat_ns ts = an_ts(&v, i);
        if (!s->have_ts || ts < s->min_ts) s->min_ts = ts;
        s->have_ts = true;
        if (!(an_namecls(&v, i) & AN_NAME_STEP)) continue;
        int64_t num = step_number(an_name(&v, i));
        /* a sorted set: steps repeat in every rank, so it stays as small as one rank's */
        size_t lo = 0, hi = s->nsteps;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s->steps[mid] < num)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < s->nsteps && s->steps[lo] == num) continue;
        if ((rc = LAT_GROW(s->steps, s->cap, s->nsteps, 1, 64))) break;
        memmove(s->steps + lo + 1, s->steps + lo, (s->nsteps - lo) * sizeof(*s->steps));
        s->steps[lo] = num;
        s->nsteps++;
    }
    an_view_fini(&v);
    return rc;
}

void analysis_scan_fini(struct analysis_scan *s)
{
    free(s->steps);
    memset(s, 0, sizeof(*s));
}

void analysis_scan_opts(const struct analysis_scan *s, struct analysis_opts *o)
{
    o->prep_fixed = true;
    o->prep_offset = s->have_ts ? s->min_ts : 0;
    o->prep_steps_distinct = (uint32_t)s->nsteps;
}

/* A format with PyTorch's ProfilerStep#N (Kineto/Chrome JSON, nsys, latscope captures). */
bool analyze_pytorch_like(const struct lat_trace *t)
{
    return !t || !t->fmt || lat_trace_has(t, LAT_FCAP_PROFILER_STEPS);
}

bool analyze_steps_pytorch(const struct lat_trace *t)
{
    if (!analyze_pytorch_like(t)) return false;
    size_t samples = 0;
    for (size_t i = 0; t && i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) return true;
        samples++;
    }
    return !samples; /* CPU samples only: no step to look for */
}
