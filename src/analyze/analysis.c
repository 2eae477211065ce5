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
#include "core/buf.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/par.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static void rank_fini(struct lat_an_rank *r)
{
    free(r->idle);
    free(r->ktypes);
    free(r->kernels_by_type);
    free(r->top_kernels);
    free(r->launch.recs);
    free(r->launch_delays);
    free(r->steps);
    free(r->top_ops);
    free(r->top_ops_self);
    free(r->ops_by_shape);
    free(r->shape_keys);
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
    for (size_t i = 0; i < a->nowned; i++)
        free(a->owned[i]);
    free(a->owned);
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
            d[k++] = a->ranks[r].launch_delays ? (double)a->ranks[r].launch_delays[j]
                                               : (double)a->ranks[r].launch.recs[j].launch_delay;
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

/* ---- streamed jobs: per-rank skeletons for whole_add() and an_cross_rank() ---------------- */

struct analysis_job {
    struct lat_analysis *a; /* ranks: skeletons (only what whole_add/an_cross_rank read) */
    size_t cap;
    bool first;
};

/* Stand-ins for the freed traces: only their role is read (in_whole). */
static const struct lat_trace job_timeline = {.role = LAT_TRACE_TIMELINE};
static const struct lat_trace job_kernel_profile = {.role = LAT_TRACE_KERNEL_PROFILE};

int analysis_job_new(const struct analysis_opts *o, struct analysis_job **out)
{
    struct analysis_job *j = calloc(1, sizeof(*j));
    if (!j || !(j->a = calloc(1, sizeof(*j->a)))) {
        free(j);
        return -ENOMEM;
    }
    j->a->opts = *o;
    j->a->opts.progress = NULL;
    j->first = true;
    *out = j;
    return 0;
}

void analysis_job_free(struct analysis_job *j)
{
    if (!j) return;
    analysis_free(j->a);
    free(j);
}

static void *dup_arr(const void *p, size_t n, size_t size, int *rc)
{
    if (!n || !p) return NULL;
    void *q = malloc(n * size);
    if (!q)
        *rc = -ENOMEM;
    else
        memcpy(q, p, n * size);
    return q;
}

/* A copy of s the job's result owns (room in a->owned reserved by the caller). */
static const char *job_str(struct lat_analysis *a, const char *s, int *rc)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) {
        *rc = -ENOMEM;
        return "";
    }
    a->owned[a->nowned++] = d;
    return d;
}

int analysis_job_add(struct analysis_job *j, const struct lat_analysis *one)
{
    struct lat_analysis *a = j->a;
    if (!one->nranks) return 0;
    int rc = LAT_GROW(a->ranks, j->cap, a->nranks, 1, 64);
    if (rc) return rc;
    /* names the job keeps (the rank's own go with it): syncs, kernel-type labels, memcpy kinds */
    size_t nstr = one->ranks[0].nsyncs + one->ranks[0].nktypes + 2 * one->ranks[0].nmemcpy;
    if ((rc = LAT_GROW(a->owned, a->owned_cap, a->nowned, nstr, 16))) return rc;
    /* the preprocessing notes: the job's step count is the same in every rank's run; the last
     * step's reason is the first rank's (input order) that dropped it, as an_prep() */
    if (j->first) {
        a->steps_distinct = one->steps_distinct;
        memcpy(a->warning, one->warning, sizeof(a->warning));
        j->first = false;
    }
    if (one->last_step_dropped && !a->last_step_dropped) {
        a->last_step_dropped = true;
        memcpy(a->last_step_reason, one->last_step_reason, sizeof(a->last_step_reason));
    }
    const struct lat_an_rank *x = &one->ranks[0];
    struct lat_an_rank *k = &a->ranks[a->nranks];
    memset(k, 0, sizeof(*k));
    rc = 0;
    k->rank = x->rank;
    k->trace =
        !x->trace || x->trace->role == LAT_TRACE_TIMELINE ? &job_timeline : &job_kernel_profile;
    k->events = x->events;
    k->kept_events = x->kept_events;
    k->dropped_last_step = x->dropped_last_step;
    k->temporal = x->temporal;
    k->ktypes = dup_arr(x->ktypes, x->nktypes, sizeof(*x->ktypes), &rc);
    k->nktypes = x->nktypes;
    k->comm_time = x->comm_time;
    k->comm_comp_overlap = x->comm_comp_overlap;
    k->has_comm = x->has_comm;
    k->launch = x->launch;
    k->launch.recs = NULL;
    if (x->launch.count) { /* only the delays are read */
        k->launch_delays = malloc(x->launch.count * sizeof(*k->launch_delays));
        if (!k->launch_delays) rc = -ENOMEM;
        for (size_t i = 0; k->launch_delays && i < x->launch.count; i++)
            k->launch_delays[i] =
                x->launch_delays ? x->launch_delays[i] : x->launch.recs[i].launch_delay;
    }
    k->sync_blocking = x->sync_blocking;
    k->memcpy = dup_arr(x->memcpy, x->nmemcpy, sizeof(*x->memcpy), &rc);
    k->nmemcpy = x->nmemcpy;
    k->syncs = dup_arr(x->syncs, x->nsyncs, sizeof(*x->syncs), &rc);
    k->nsyncs = x->nsyncs;
    for (size_t i = 0; k->syncs && i < x->nsyncs; i++) /* names are the trace's */
        k->syncs[i].name = job_str(a, x->syncs[i].name, &rc);
    for (size_t i = 0; k->ktypes && i < x->nktypes; i++)
        k->ktypes[i].label = job_str(a, x->ktypes[i].label, &rc);
    for (size_t i = 0; k->memcpy && i < x->nmemcpy; i++) {
        k->memcpy[i].kind = job_str(a, x->memcpy[i].kind, &rc);
        k->memcpy[i].memory = job_str(a, x->memcpy[i].memory, &rc);
    }
    k->steps = dup_arr(x->steps, x->nsteps, sizeof(*x->steps), &rc);
    k->nsteps = x->nsteps;
    a->nranks++; /* freed with the job from here on */
    return rc;
}

int analysis_job_finish(struct analysis_job *j, struct lat_analysis **out)
{
    struct lat_analysis *a = j->a;
    *out = NULL;
    qsort(a->ranks, a->nranks, sizeof(*a->ranks), rank_cmp);
    int rc = whole_add(a);
    if (!rc) rc = an_cross_rank(a);
    for (size_t i = 0; i < a->nranks; i++)
        rank_fini(&a->ranks[i]);
    free(a->ranks);
    a->ranks = NULL;
    a->nranks = 0;
    j->a = NULL;
    free(j);
    if (rc) {
        analysis_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

/* ---- one rank's job data as bytes (for the processes of `mpirun ... analyze`) -------------- */

/* Little writer/reader: values in host byte order (the processes of one job run the same
 * binary; mixed-endian clusters are not supported), strings as length + bytes. */
static int pk(struct lat_buf *b, const void *p, size_t n)
{
    return buf_append(b, p, n);
}

static int pk_str(struct lat_buf *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
    int rc = pk(b, &n, sizeof(n));
    if (!rc && s) rc = pk(b, s, n);
    return rc;
}

struct upk {
    const unsigned char *p;
    size_t n, at;
    bool bad;
};

static void up(struct upk *u, void *dst, size_t n)
{
    if (u->bad || u->n - u->at < n) {
        u->bad = true;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, u->p + u->at, n);
    u->at += n;
}

/* A string the result owns (NULL stays NULL). */
static const char *up_str(struct upk *u, struct lat_analysis *a)
{
    uint32_t n;
    up(u, &n, sizeof(n));
    if (u->bad || n == UINT32_MAX) return NULL;
    if (u->n - u->at < n) {
        u->bad = true;
        return NULL;
    }
    int rc = LAT_GROW(a->owned, a->owned_cap, a->nowned, 1, 16);
    char *s = malloc((size_t)n + 1);
    if (rc || !s) {
        free(s);
        u->bad = true;
        return NULL;
    }
    memcpy(s, u->p + u->at, n);
    s[n] = 0;
    u->at += n;
    a->owned[a->nowned++] = s;
    return s;
}

static void *up_arr(struct upk *u, size_t n, size_t size)
{
    if (!n || u->bad) return NULL;
    if (n > (u->n - u->at) / size) {
        u->bad = true;
        return NULL;
    }
    void *q = malloc(n * size);
    if (!q) {
        u->bad = true;
        return NULL;
    }
    up(u, q, n * size);
    return q;
}

int analysis_rank_pack(const struct lat_analysis *one, struct lat_buf *b)
{
    if (one->nranks != 1) return LAT_E_USAGE;
    const struct lat_an_rank *x = &one->ranks[0];
    int rc = 0;
    uint8_t tl = !x->trace || x->trace->role == LAT_TRACE_TIMELINE;
    uint8_t flags = (uint8_t)(one->last_step_dropped | (x->has_comm << 1) | (x->cp_found << 2));
    uint64_t n[6] = {x->nktypes, x->nmemcpy, x->nsyncs, x->nsteps, x->launch.count, 0};
    rc |= pk(b, &x->rank, sizeof(x->rank));
    rc |= pk(b, &tl, 1);
    rc |= pk(b, &flags, 1);
    rc |= pk(b, &one->steps_distinct, sizeof(one->steps_distinct));
    rc |= pk(b, one->warning, sizeof(one->warning));
    rc |= pk(b, one->last_step_reason, sizeof(one->last_step_reason));
    rc |= pk(b, n, sizeof(n));
    rc |= pk(b, &x->events, sizeof(x->events));
    rc |= pk(b, &x->kept_events, sizeof(x->kept_events));
    rc |= pk(b, &x->dropped_last_step, sizeof(x->dropped_last_step));
    rc |= pk(b, &x->temporal, sizeof(x->temporal));
    rc |= pk(b, &x->comm_time, sizeof(x->comm_time));
    rc |= pk(b, &x->comm_comp_overlap, sizeof(x->comm_comp_overlap));
    rc |= pk(b, &x->sync_blocking, sizeof(x->sync_blocking));
    rc |= pk(b, &x->cp_instances, sizeof(x->cp_instances));
    rc |= pk(b, &x->launch, sizeof(x->launch)); /* recs: the delays follow */
    for (size_t i = 0; i < x->launch.count; i++)
        rc |= pk(b, x->launch_delays ? &x->launch_delays[i] : &x->launch.recs[i].launch_delay,
                 sizeof(lat_ns));
    for (size_t i = 0; i < x->nktypes; i++) {
        rc |= pk(b, &x->ktypes[i], sizeof(x->ktypes[i]));
        rc |= pk_str(b, x->ktypes[i].label);
    }
    for (size_t i = 0; i < x->nmemcpy; i++) {
        rc |= pk(b, &x->memcpy[i], sizeof(x->memcpy[i]));
        rc |= pk_str(b, x->memcpy[i].kind);
        rc |= pk_str(b, x->memcpy[i].memory);
    }
    for (size_t i = 0; i < x->nsyncs; i++) {
        rc |= pk(b, &x->syncs[i], sizeof(x->syncs[i]));
        rc |= pk_str(b, x->syncs[i].name);
    }
    if (x->nsteps) rc |= pk(b, x->steps, x->nsteps * sizeof(*x->steps));
    return rc ? -ENOMEM : 0;
}

int analysis_rank_unpack(const void *p, size_t len, size_t *used, struct lat_analysis **out)
{
    struct upk u = {p, len, 0, false};
    struct lat_analysis *a = calloc(1, sizeof(*a));
    struct lat_an_rank *x = calloc(1, sizeof(*x));
    *out = NULL;
    if (!a || !x) {
        free(a);
        free(x);
        return -ENOMEM;
    }
    a->ranks = x;
    a->nranks = 1;
    uint8_t tl, flags;
    uint64_t n[6];
    up(&u, &x->rank, sizeof(x->rank));
    up(&u, &tl, 1);
    up(&u, &flags, 1);
    up(&u, &a->steps_distinct, sizeof(a->steps_distinct));
    up(&u, a->warning, sizeof(a->warning));
    up(&u, a->last_step_reason, sizeof(a->last_step_reason));
    a->warning[sizeof(a->warning) - 1] = 0;
    a->last_step_reason[sizeof(a->last_step_reason) - 1] = 0;
    up(&u, n, sizeof(n));
    x->trace = tl ? &job_timeline : &job_kernel_profile;
    a->last_step_dropped = flags & 1;
    x->has_comm = flags >> 1 & 1;
    x->cp_found = flags >> 2 & 1;
    up(&u, &x->events, sizeof(x->events));
    up(&u, &x->kept_events, sizeof(x->kept_events));
    up(&u, &x->dropped_last_step, sizeof(x->dropped_last_step));
    up(&u, &x->temporal, sizeof(x->temporal));
    up(&u, &x->comm_time, sizeof(x->comm_time));
    up(&u, &x->comm_comp_overlap, sizeof(x->comm_comp_overlap));
    up(&u, &x->sync_blocking, sizeof(x->sync_blocking));
    up(&u, &x->cp_instances, sizeof(x->cp_instances));
    up(&u, &x->launch, sizeof(x->launch));
    x->launch.recs = NULL;
    if (!u.bad && x->launch.count != n[4]) u.bad = true;
    if (!u.bad && n[4]) {
        x->launch_delays = up_arr(&u, n[4], sizeof(*x->launch_delays));
        if (!x->launch_delays) u.bad = true;
    }
    if (!u.bad && n[0] <= 8) {
        x->ktypes = calloc(n[0] ? n[0] : 1, sizeof(*x->ktypes));
        if (!x->ktypes) u.bad = true;
        for (size_t i = 0; !u.bad && i < n[0]; i++) {
            up(&u, &x->ktypes[i], sizeof(x->ktypes[i]));
            x->ktypes[i].label = up_str(&u, a);
        }
        x->nktypes = u.bad ? 0 : n[0];
    } else {
        u.bad = true;
    }
    if (!u.bad && n[1] <= (u.n - u.at) / sizeof(*x->memcpy)) {
        x->memcpy = calloc(n[1] ? n[1] : 1, sizeof(*x->memcpy));
        if (!x->memcpy) u.bad = true;
        for (size_t i = 0; !u.bad && i < n[1]; i++) {
            up(&u, &x->memcpy[i], sizeof(x->memcpy[i]));
            x->memcpy[i].kind = up_str(&u, a);
            x->memcpy[i].memory = up_str(&u, a);
        }
        x->nmemcpy = u.bad ? 0 : n[1];
    } else {
        u.bad = true;
    }
    if (!u.bad && n[2] <= (u.n - u.at) / sizeof(*x->syncs)) {
        x->syncs = calloc(n[2] ? n[2] : 1, sizeof(*x->syncs));
        if (!x->syncs) u.bad = true;
        for (size_t i = 0; !u.bad && i < n[2]; i++) {
            up(&u, &x->syncs[i], sizeof(x->syncs[i]));
            x->syncs[i].name = up_str(&u, a);
        }
        x->nsyncs = u.bad ? 0 : n[2];
    } else {
        u.bad = true;
    }
    if (!u.bad) {
        x->steps = up_arr(&u, n[3], sizeof(*x->steps));
        x->nsteps = u.bad ? 0 : n[3];
    }
    /* what the job sums must be a time a trace can hold (no overflow in the sums), and every
     * name a name */
    const lat_ns big = (lat_ns)1 << 53;
#define OUT(v) ((v) < -big || (v) > big)
    if (!u.bad && (OUT(x->temporal.kernel_time) || OUT(x->temporal.idle) ||
                   OUT(x->temporal.compute) || OUT(x->temporal.non_compute) || OUT(x->comm_time) ||
                   OUT(x->comm_comp_overlap) || OUT(x->sync_blocking)))
        u.bad = true;
    for (size_t i = 0; !u.bad && i < x->nsteps; i++)
        if (OUT(x->steps[i].dur) || x->steps[i].dur < 0) u.bad = true; /* ts: not summed */
    for (size_t i = 0; !u.bad && i < x->nktypes; i++)
        if (OUT(x->ktypes[i].sum) || !x->ktypes[i].label) u.bad = true;
    for (size_t i = 0; !u.bad && i < x->nmemcpy; i++)
        if (OUT(x->memcpy[i].time) || !x->memcpy[i].kind || !x->memcpy[i].memory) u.bad = true;
    for (size_t i = 0; !u.bad && i < x->nsyncs; i++)
        if (OUT(x->syncs[i].total) || !x->syncs[i].name) u.bad = true;
#undef OUT
    if (u.bad) {
        analysis_free(a);
        return LAT_E_TRUNCATED;
    }
    *used = u.at;
    *out = a;
    return 0;
}
