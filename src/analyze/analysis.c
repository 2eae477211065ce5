/*
 * analysis.c - analysis_run(): preprocess every rank (prep.c), run each analysis per rank,
 * then add up the additive parts into `whole`.
 *
 * After the preprocessing, every (rank, analysis) pair is an independent task: it reads the
 * rank's trace and view and writes only its own fields of the rank's result. The tasks run on
 * a small pool (the calling thread plus opts.threads - 1 workers, default: one per online CPU,
 * at most PAR_MAX_THREADS; core/par.h) that takes them in order from an atomic counter, most
 * expensive analysis first. The result does not depend on the number of threads. Each analysis
 * allocates its result arrays once (never per event). Failure frees everything and returns
 * the first task's error.
 */
#include "analyze/internal.h"
#include "core/err.h"
#include "core/par.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void analysis_opts_default(struct analysis_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->ns_rounding = true;
    o->only_rank = -1;
    o->top_n = 10;
    o->consecutive_kernel_delay_ns = 30 * LAT_NS_PER_US;
    o->runtime_cutoff_ns = 50 * LAT_NS_PER_US;
    o->launch_delay_cutoff_ns = 100 * LAT_NS_PER_US;
    o->max_queue_length = 1024;
    o->duration_ratio = 0.8;
    o->num_kernels = 10;
    o->include_memory_kernels = true;
    o->kseq_min_len = 3;
}

static void rank_fini(struct lat_an_rank *r)
{
    free(r->idle);
    free(r->ktypes);
    free(r->kernels_by_type);
    free(r->top_kernels);
    free(r->launch.recs);
    free(r->steps);
    free(r->top_ops);
    free(r->top_ops_self);
    free(r->ops_by_shape);
    free(r->top_ops_mem);
    free(r->py_funcs);
    free(r->threads);
    free(r->op_kernels);
    free(r->memcpy);
    free(r->syncs);
    free(r->queue);
    for (size_t i = 0; i < r->naten_seqs; i++)
        free(r->aten_seqs[i].kernels);
    free(r->aten_seqs);
    an_annot_fini(&r->annot);
    free(r->membw);
    free(r->queue_pts);
    free(r->membw_pts);
    an_cupti_fini(&r->cupti);
    for (size_t i = 0; i < r->nperf; i++)
        free(r->perf[i].shape);
    free(r->perf);
    lat_an_critpath_free(r->critpath, r->ncritpath);
    an_kseq_fini(r);
    free(r->memdev);
    free(r->memops);
    free(r->mem_pts);
}

void analysis_free(struct lat_analysis *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->nranks; i++)
        rank_fini(&a->ranks[i]);
    free(a->ranks);
    rank_fini(&a->whole);
    free(a->rank_rows);
    free(a);
}

typedef int (*an_fn)(struct an_view *, struct lat_an_rank *);

static int whole_add(struct lat_analysis *a);

static int rank_cmp(const void *x, const void *y)
{
    const struct lat_an_rank *p = x, *q = y;
    return p->rank < q->rank ? -1 : p->rank > q->rank;
}

/* Tasks: one (rank view, rank result, analysis) each; shared by the pool. */
struct an_task {
    struct an_view *v;
    struct lat_an_rank *ar;
    an_fn fn;
};

struct an_pool {
    struct an_task *tasks;
    size_t ntasks;
    atomic_size_t next, done;
    atomic_int rc; /* first error, 0 while none */
    const struct analysis_opts *o;
};

/* Takes tasks until none is left or one failed (par_run's work function). The calling thread
 * (report = true) also reports progress; workers never call back into the caller. */
static void pool_work(void *arg, bool report)
{
    struct an_pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->ntasks || atomic_load(&p->rc)) return;
        int rc = p->tasks[i].fn(p->tasks[i].v, p->tasks[i].ar);
        if (rc) {
            int zero = 0;
            atomic_compare_exchange_strong(&p->rc, &zero, rc);
            return;
        }
        size_t done = atomic_fetch_add(&p->done, 1) + 1;
        if (report && p->o->progress)
            p->o->progress(p->o->progress_arg, (double)done / (double)p->ntasks);
    }
}

int analysis_run(struct lat_trace *const *traces, size_t n, const struct analysis_opts *o,
                 struct lat_analysis **out)
{
    /* Most expensive first (measured on df_index_resolver), so the pool ends evenly. */
    static const an_fn fns[] = {an_critpath, an_aten,   an_steps,  an_ops,     an_queue,
                                an_launch,   an_ktypes, an_memcpy, an_overlap, an_temporal,
                                an_idle,     an_annot,  an_membw,  an_cupti,   an_perfmodel,
                                an_kseq,     an_memtl};
    const size_t nfns = sizeof(fns) / sizeof(fns[0]);
    struct analysis_opts defaults;
    struct lat_analysis *a;
    struct an_view *views = NULL;
    struct lat_trace **sel = NULL;
    struct an_task *tasks = NULL;
    int rc = -ENOMEM;

    *out = NULL;
    if (!n || !traces) return LAT_E_USAGE;
    if (!o) {
        analysis_opts_default(&defaults);
        o = &defaults;
    }
    a = calloc(1, sizeof(*a));
    sel = calloc(n, sizeof(*sel));
    if (!a || !sel) goto fail;
    a->opts = *o;
    a->opts.progress = NULL;
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t rank = traces[i]->rank >= 0 ? traces[i]->rank : (int32_t)i;
        if (o->only_rank < 0 || rank == o->only_rank) sel[ns++] = traces[i];
    }
    if (!ns) {
        rc = LAT_E_NOT_FOUND;
        goto fail;
    }
    views = calloc(ns, sizeof(*views));
    a->ranks = calloc(ns, sizeof(*a->ranks));
    tasks = calloc(ns * nfns, sizeof(*tasks));
    if (!views || !a->ranks || !tasks) goto fail;
    a->nranks = ns;
    if ((rc = an_prep(views, sel, ns, o, a))) goto fail;
    for (size_t r = 0; r < ns; r++) {
        struct lat_an_rank *ar = &a->ranks[r];
        struct an_view *v = &views[r];
        ar->trace = sel[r];
        ar->rank = sel[r]->rank >= 0 ? sel[r]->rank : (int32_t)r;
        ar->align_offset_ns = v->offset;
        ar->events = v->n;
        for (size_t i = 0; i < v->n; i++)
            ar->kept_events += v->keep[i];
        ar->dropped_last_step = v->dropped;
    }
    for (size_t f = 0; f < nfns; f++)
        for (size_t r = 0; r < ns; r++)
            tasks[f * ns + r] = (struct an_task){&views[r], &a->ranks[r], fns[f]};
    struct an_pool pool = {.tasks = tasks, .ntasks = ns * nfns, .o = o};
    atomic_init(&pool.next, 0);
    atomic_init(&pool.done, 0);
    atomic_init(&pool.rc, 0);
    par_run(par_threads(o->threads, pool.ntasks), pool_work, &pool);
    if ((rc = atomic_load(&pool.rc))) goto fail;
    for (size_t r = 0; r < ns; r++)
        an_view_fini(&views[r]);
    qsort(a->ranks, a->nranks, sizeof(*a->ranks), rank_cmp);
    if ((rc = whole_add(a))) goto fail;
    if ((rc = an_cross_rank(a))) goto fail;
    free(tasks);
    free(views);
    free(sel);
    *out = a;
    return 0;
fail:
    if (views)
        for (size_t r = 0; r < ns; r++)
            if (views[r].t) an_view_fini(&views[r]);
    free(tasks);
    free(views);
    free(sel);
    analysis_free(a);
    return rc;
}

/* ---- whole: sums over ranks -------------------------------------------------------------- */

/* A kernel profile (ncu) is evidence about kernels, not a rank: never in the sums. */
static bool in_whole(const struct lat_an_rank *x)
{
    return !x->trace || x->trace->role == LAT_TRACE_TIMELINE;
}

static int whole_add(struct lat_analysis *a)
{
    struct lat_an_rank *w = &a->whole;
    w->rank = -1;
    lat_ns ksum[8] = {0};
    size_t nrecs = 0, nmc = 0, nsy = 0;
    for (size_t r = 0; r < a->nranks; r++) {
        const struct lat_an_rank *x = &a->ranks[r];
        if (!in_whole(x)) continue;
        w->events += x->events;
        w->kept_events += x->kept_events;
        w->dropped_last_step += x->dropped_last_step;
        if (x->temporal.valid) {
            w->temporal.valid = true;
            w->temporal.kernel_time += x->temporal.kernel_time;
            w->temporal.idle += x->temporal.idle;
            w->temporal.compute += x->temporal.compute;
            w->temporal.non_compute += x->temporal.non_compute;
        }
        for (size_t k = 0; k < x->nktypes; k++)
            ksum[x->ktypes[k].mask & 7] += x->ktypes[k].sum;
        w->comm_time += x->comm_time;
        w->comm_comp_overlap += x->comm_comp_overlap;
        w->has_comm |= x->has_comm;
        w->launch.count += x->launch.count;
        w->launch.short_kernels += x->launch.short_kernels;
        w->launch.runtime_outliers += x->launch.runtime_outliers;
        w->launch.launch_delay_outliers += x->launch.launch_delay_outliers;
        w->launch.uncorrelated_gpu += x->launch.uncorrelated_gpu;
        w->launch.correlated_gpu += x->launch.correlated_gpu;
        w->launch.gpu_rows += x->launch.gpu_rows;
        w->launch.graph_launches += x->launch.graph_launches;
        w->sync_blocking += x->sync_blocking;
        nrecs += x->launch.count;
        nmc += x->nmemcpy;
        nsy += x->nsyncs;
    }
    struct lat_an_temporal *tb = &w->temporal;
    if (tb->kernel_time > 0) {
        tb->idle_pct = 100.0 * (double)tb->idle / (double)tb->kernel_time;
        tb->compute_pct = 100.0 * (double)tb->compute / (double)tb->kernel_time;
        tb->non_compute_pct = 100.0 * (double)tb->non_compute / (double)tb->kernel_time;
    }
    if (w->has_comm && w->comm_time > 0)
        w->comm_comp_overlap_pct = 100.0 * (double)w->comm_comp_overlap / (double)w->comm_time;

    w->ktypes = calloc(8, sizeof(*w->ktypes));
    w->memcpy = calloc(nmc ? nmc : 1, sizeof(*w->memcpy));
    w->syncs = calloc(nsy ? nsy : 1, sizeof(*w->syncs));
    double *d = malloc((nrecs ? nrecs : 1) * sizeof(*d));
    if (!w->ktypes || !w->memcpy || !w->syncs || !d) {
        free(d);
        return -ENOMEM;
    }
    lat_ns total = 0;
    for (unsigned u = 1; u < 8; u++)
        total += ksum[u];
    for (size_t r = 0; r < a->nranks; r++) /* keep the first rank's order of buckets */
        for (size_t k = 0; in_whole(&a->ranks[r]) && k < a->ranks[r].nktypes; k++) {
            const struct lat_an_ktype_bucket *b = &a->ranks[r].ktypes[k];
            size_t j;
            for (j = 0; j < w->nktypes && w->ktypes[j].mask != b->mask; j++) {
            }
            if (j < w->nktypes) continue;
            w->ktypes[w->nktypes] = *b;
            w->ktypes[w->nktypes].sum = ksum[b->mask & 7];
            w->ktypes[w->nktypes].percent =
                total ? 100.0 * (double)ksum[b->mask & 7] / (double)total : 0;
            w->nktypes++;
        }
    for (size_t a1 = 1; a1 < w->nktypes; a1++)
        for (size_t b = a1; b > 0 && w->ktypes[b - 1].sum < w->ktypes[b].sum; b--) {
            struct lat_an_ktype_bucket tmp = w->ktypes[b];
            w->ktypes[b] = w->ktypes[b - 1];
            w->ktypes[b - 1] = tmp;
        }

    size_t k = 0;
    for (size_t r = 0; r < a->nranks; r++)
        for (size_t j = 0; in_whole(&a->ranks[r]) && j < a->ranks[r].launch.count; j++)
            d[k++] = (double)a->ranks[r].launch.recs[j].launch_delay;
    an_describe(d, k, &w->launch.launch_delay);
    w->launch.median_launch_delay = (lat_ns)w->launch.launch_delay.p50;
    free(d);

    for (size_t r = 0; r < a->nranks; r++) {
        if (!in_whole(&a->ranks[r])) continue;
        for (size_t j = 0; j < a->ranks[r].nmemcpy; j++) {
            const struct lat_an_memcpy *m = &a->ranks[r].memcpy[j];
            size_t q;
            for (q = 0; q < w->nmemcpy; q++)
                if (!strcmp(w->memcpy[q].kind, m->kind) && !strcmp(w->memcpy[q].memory, m->memory))
                    break;
            if (q == w->nmemcpy) {
                w->memcpy[w->nmemcpy++] = *m;
                continue;
            }
            w->memcpy[q].count += m->count;
            w->memcpy[q].bytes += m->bytes;
            w->memcpy[q].time += m->time;
            w->memcpy[q].gb_per_s =
                w->memcpy[q].time ? (double)w->memcpy[q].bytes / (double)w->memcpy[q].time : 0;
        }
        for (size_t j = 0; j < a->ranks[r].nsyncs; j++) {
            const struct lat_an_sync *s = &a->ranks[r].syncs[j];
            size_t q;
            for (q = 0; q < w->nsyncs; q++)
                if (!strcmp(w->syncs[q].name, s->name) && w->syncs[q].device_side == s->device_side)
                    break;
            if (q == w->nsyncs) {
                w->syncs[w->nsyncs++] = *s;
                continue;
            }
            w->syncs[q].count += s->count;
            w->syncs[q].total += s->total;
        }
    }
    return 0;
}
