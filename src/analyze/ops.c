/*
 * ops.c - top CPU operators (self and total time, input shapes), the operator -> kernel
 * mapping, and the per-step (ProfilerStep#N) breakdown.
 *
 * Operators: the kept cpu_op rows (and, for legacy torch traces without categories, the CPU
 * X events), ProfilerStep#N excluded. Self time comes from one walk per thread over the rows
 * sorted by (track, ts, -dur) with a stack of open ops: self = dur - Σ direct children (clipped
 * to the parent). Runtime calls take part in the walk only to find their innermost enclosing
 * op, which is the op that launched their GPU rows (joined by index correlation); those rows'
 * durations are the op's GPU time. One sort, O(n log n); per-name aggregates in a hash map.
 *
 * Steps: each step's wall time is split with ivl_priority_split() over merged lists of GPU
 * compute, communication, memory, other GPU rows and CPU busy time (ops + runtime calls).
 */
#include "analyze/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int walk_cmp(const void *a, const void *b, void *ctx)
{
    const struct an_view *ops_view = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct lat_event_cols *ev = &ops_view->t->ev;
    if (ev->track[x] != ev->track[y]) return ev->track[x] < ev->track[y] ? -1 : 1;
    lat_ns tx = an_ts(ops_view, x), ty = an_ts(ops_view, y);
    if (tx != ty) return tx < ty ? -1 : 1;
    lat_ns dx = an_dur(ops_view, x), dy = an_dur(ops_view, y);
    if (dx != dy) return dx > dy ? -1 : 1;
    /* ops before runtime calls of the same span, so the call nests inside */
    bool rx = ev->kind[x] != LAT_EV_CPU_OP, ry = ev->kind[y] != LAT_EV_CPU_OP;
    if (rx != ry) return rx ? 1 : -1;
    return x < y ? -1 : x > y;
}

static bool is_op(const struct an_view *v, size_t i)
{
    const struct lat_event_cols *ev = &v->t->ev;
    if (ev->ph[i] != 'X' || (ev->flags[i] & LAT_EVF_GPU)) return false;
    /* legacy torch arrays have no cat, so HTA's preprocessing drops them: keep them here */
    bool legacy =
        ev->cat[i] == 0 && !(ev->flags[i] & LAT_EVF_NO_DUR) && !v->t->tracks[ev->track[i]].gpu;
    if (ev->kind[i] == LAT_EV_CPU_OP) return v->keep[i] || legacy;
    return legacy && ev->kind[i] == LAT_EV_OTHER;
}

struct op_agg {
    uint32_t name;
    uint32_t dims; /* string id of the first instance's Input Dims, 0 when none */
    uint64_t count, kernels;
    lat_ns total, self, gpu;
};

struct pair_agg {
    uint32_t op, kernel;
    uint64_t count;
    lat_ns gpu;
};

static int agg_total_desc(const void *a, const void *b)
{
    const struct op_agg *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int agg_self_desc(const void *a, const void *b)
{
    const struct op_agg *x = a, *y = b;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int pair_desc(const void *a, const void *b)
{
    const struct pair_agg *x = a, *y = b;
    if (x->gpu != y->gpu) return x->gpu > y->gpu ? -1 : 1;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    return x->kernel < y->kernel ? -1 : x->kernel > y->kernel;
}

static void fill_ops(const struct an_view *v, const struct op_agg *agg, size_t n,
                     struct lat_an_op *out)
{
    for (size_t k = 0; k < n; k++) {
        out[k].name = lat_trace_str(v->t, agg[k].name);
        out[k].input_dims = agg[k].dims ? lat_trace_str(v->t, agg[k].dims) : NULL;
        out[k].count = agg[k].count;
        out[k].total = agg[k].total;
        out[k].self = agg[k].self;
        out[k].gpu_time = agg[k].gpu;
        out[k].kernels = agg[k].kernels;
    }
}

int an_ops(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t dims_key = strtab_find(&t->strs, "Input Dims", 10);
    size_t nrows = 0;
    int rc = -ENOMEM;
    uint32_t *rows = NULL, *stack = NULL, *op_of = NULL;
    struct op_agg *agg = NULL;
    struct pair_agg *pairs = NULL;
    struct an_map by_name = {0}, by_pair = {0};
    size_t nagg = 0, npairs = 0, cap_agg = 64, cap_pairs = 64;

    for (size_t i = 0; i < v->n; i++) {
        bool rt = v->keep[i] && (ev->kind[i] == LAT_EV_RUNTIME || ev->kind[i] == LAT_EV_DRIVER);
        if (rt || (is_op(v, i) && !(an_namecls(v, (uint32_t)i) & AN_NAME_STEP))) nrows++;
    }
    rows = malloc((nrows ? nrows : 1) * sizeof(*rows));
    stack = malloc((nrows ? nrows : 1) * sizeof(*stack));
    op_of = malloc((v->n ? v->n : 1) * sizeof(*op_of));
    agg = malloc(cap_agg * sizeof(*agg));
    pairs = malloc(cap_pairs * sizeof(*pairs));
    if (!rows || !stack || !op_of || !agg || !pairs) goto out;
    if ((rc = an_map_init(&by_name, 256)) || (rc = an_map_init(&by_pair, 256))) goto out;
    rc = -ENOMEM;
    nrows = 0;
    for (size_t i = 0; i < v->n; i++) {
        op_of[i] = AN_NONE;
        bool rt = v->keep[i] && (ev->kind[i] == LAT_EV_RUNTIME || ev->kind[i] == LAT_EV_DRIVER);
        if (rt || (is_op(v, i) && !(an_namecls(v, (uint32_t)i) & AN_NAME_STEP)))
            rows[nrows++] = (uint32_t)i;
    }
    qsort_r(rows, nrows, sizeof(*rows), walk_cmp, (void *)(uintptr_t)v);

    /* the walk: op_of[op] = its aggregate slot, op_of[runtime] = the enclosing op's row */
    size_t depth = 0;
    for (size_t k = 0; k < nrows; k++) {
        uint32_t i = rows[k];
        lat_ns ts = an_ts(v, i), end = an_end(v, i);
        if (k && ev->track[i] != ev->track[rows[k - 1]]) depth = 0;
        while (depth && an_end(v, stack[depth - 1]) <= ts)
            depth--;
        bool op = ev->kind[i] != LAT_EV_RUNTIME && ev->kind[i] != LAT_EV_DRIVER;
        if (!op) {
            if (depth) op_of[i] = stack[depth - 1];
            continue;
        }
        if (depth) { /* a direct child: take its (clipped) time out of the parent's self */
            uint32_t p = stack[depth - 1];
            lat_ns pe = an_end(v, p);
            struct op_agg *pa = &agg[op_of[p]];
            lat_ns c = (end < pe ? end : pe) - ts;
            if (c > 0) pa->self -= c; /* rounded rows can end before they start */
        }
        uint32_t slot = an_map_get(&by_name, ev->name[i]);
        if (slot == AN_NONE) {
            if (nagg == cap_agg) {
                void *p = realloc(agg, 2 * cap_agg * sizeof(*agg));
                if (!p) goto out;
                agg = p;
                cap_agg *= 2;
            }
            slot = (uint32_t)nagg++;
            memset(&agg[slot], 0, sizeof(agg[slot]));
            agg[slot].name = ev->name[i];
            if ((rc = an_map_put(&by_name, ev->name[i], slot))) goto out;
            rc = -ENOMEM;
        }
        struct op_agg *a = &agg[slot];
        if (!a->dims && dims_key != UINT32_MAX) {
            const struct lat_arg *ar = &t->args[ev->args[i]];
            for (uint32_t q = 0; q < ev->nargs[i]; q++)
                if (ar[q].key == dims_key && ar[q].str) a->dims = ar[q].str;
        }
        a->count++;
        a->total += end - ts;
        a->self += end - ts;
        op_of[i] = slot;
        stack[depth++] = i;
    }

    /* GPU rows -> launching runtime call -> enclosing op */
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t g = v->gpu[j], rt = v->corr[g];
        if (rt == AN_NONE || !v->keep[rt] || op_of[rt] == AN_NONE) continue;
        if (ev->kind[rt] != LAT_EV_RUNTIME && ev->kind[rt] != LAT_EV_DRIVER) continue;
        uint32_t op = op_of[rt];
        struct op_agg *a = &agg[op_of[op]];
        lat_ns d = an_dur(v, g);
        a->gpu += d;
        a->kernels++;
        int64_t key = (int64_t)(((uint64_t)ev->name[op] << 32) | ev->name[g]);
        uint32_t ps = an_map_get(&by_pair, key);
        if (ps == AN_NONE) {
            if (npairs == cap_pairs) {
                void *p = realloc(pairs, 2 * cap_pairs * sizeof(*pairs));
                if (!p) goto out;
                pairs = p;
                cap_pairs *= 2;
            }
            ps = (uint32_t)npairs++;
            pairs[ps] = (struct pair_agg){ev->name[op], ev->name[g], 0, 0};
            if ((rc = an_map_put(&by_pair, key, ps))) goto out;
            rc = -ENOMEM;
        }
        pairs[ps].count++;
        pairs[ps].gpu += d;
    }

    size_t top = v->o->top_n;
    size_t nt = nagg < top ? nagg : top;
    r->top_ops = calloc(nt ? nt : 1, sizeof(*r->top_ops));
    r->top_ops_self = calloc(nt ? nt : 1, sizeof(*r->top_ops_self));
    size_t np = npairs < top ? npairs : top;
    r->op_kernels = calloc(np ? np : 1, sizeof(*r->op_kernels));
    if (!r->top_ops || !r->top_ops_self || !r->op_kernels) goto out;
    qsort(agg, nagg, sizeof(*agg), agg_total_desc);
    fill_ops(v, agg, nt, r->top_ops);
    r->ntop_ops = nt;
    qsort(agg, nagg, sizeof(*agg), agg_self_desc);
    fill_ops(v, agg, nt, r->top_ops_self);
    r->ntop_ops_self = nt;
    qsort(pairs, npairs, sizeof(*pairs), pair_desc);
    for (size_t k = 0; k < np; k++) {
        r->op_kernels[k].op = lat_trace_str(t, pairs[k].op);
        r->op_kernels[k].kernel = lat_trace_str(t, pairs[k].kernel);
        r->op_kernels[k].count = pairs[k].count;
        r->op_kernels[k].gpu_time = pairs[k].gpu;
    }
    r->nop_kernels = np;
    rc = 0;
out:
    free(rows);
    free(stack);
    free(op_of);
    free(agg);
    free(pairs);
    an_map_fini(&by_name);
    an_map_fini(&by_pair);
    return rc;
}

/* ---- per-step breakdown -------------------------------------------------------------------- */

int an_steps(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_event_cols *ev = &v->t->ev;
    enum { L_COMP, L_COMM, L_MEM, L_OTHER, L_CPU, NL };
    struct lat_ivl *lists[NL] = {0};
    size_t counts[NL] = {0};
    int rc = -ENOMEM;
    if (!v->nsteps) return 0;
    r->steps = calloc(v->nsteps, sizeof(*r->steps));
    if (!r->steps) return -ENOMEM;
    size_t ncpu = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && v->stream[i] == -1 &&
            (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_RUNTIME ||
             ev->kind[i] == LAT_EV_DRIVER) &&
            !(an_namecls(v, i) & AN_NAME_STEP))
            ncpu++;
    for (int l = 0; l < NL; l++) {
        size_t cap = l == L_CPU ? ncpu : v->ngpu;
        lists[l] = malloc((cap ? cap : 1) * sizeof(struct lat_ivl));
        if (!lists[l]) goto out;
    }
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t i = v->gpu[j];
        int l;
        switch (an_ktype(v, i)) {
        case LAT_KT_COMPUTATION:
            l = L_COMP;
            break;
        case LAT_KT_COMMUNICATION:
            l = L_COMM;
            break;
        case LAT_KT_MEMORY:
            l = L_MEM;
            break;
        default:
            l = L_OTHER;
            break;
        }
        lists[l][counts[l]++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
    }
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && v->stream[i] == -1 &&
            (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_RUNTIME ||
             ev->kind[i] == LAT_EV_DRIVER) &&
            !(an_namecls(v, i) & AN_NAME_STEP))
            lists[L_CPU][counts[L_CPU]++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
    ivl_sort(lists[L_CPU], counts[L_CPU]);
    for (int l = 0; l < NL; l++)
        counts[l] = ivl_merge(lists[l], counts[l]);

    const struct lat_ivl *cl[NL];
    for (int l = 0; l < NL; l++)
        cl[l] = lists[l];
    for (size_t k = 0; k < v->nsteps; k++) {
        uint32_t i = v->steps[k];
        int32_t num = -1;
        const char *nm = an_name(v, i) + 13; /* "ProfilerStep#" */
        num = (int32_t)strtol(nm, NULL, 10);
        bool dup = false;
        for (size_t q = 0; q < r->nsteps; q++)
            dup |= r->steps[q].step == num;
        if (dup) continue;
        struct lat_an_step *s = &r->steps[r->nsteps++];
        lat_ns ts = an_ts(v, i), end = an_end(v, i);
        s->step = num;
        s->ts = ts - v->offset;
        s->dur = end > ts ? end - ts : 0;
        lat_ns part[NL + 1];
        ivl_priority_split(cl, counts, NL, ts, end, part);
        s->gpu_compute = part[L_COMP];
        s->comm = part[L_COMM];
        s->copies = part[L_MEM];
        s->gpu_other = part[L_OTHER];
        s->cpu_only = part[L_CPU];
        s->idle = part[NL];
    }
    struct an_map bystep; /* step number -> row of r->steps */
    if ((rc = an_map_init(&bystep, r->nsteps))) goto out;
    for (size_t q = 0; q < r->nsteps && !rc; q++)
        rc = an_map_put(&bystep, r->steps[q].step, (uint32_t)q);
    for (size_t j = 0; j < v->ngpu && !rc; j++) {
        int32_t it = v->iter[v->gpu[j]];
        uint32_t q = it < 0 ? AN_NONE : an_map_get(&bystep, it);
        if (q != AN_NONE) r->steps[q].kernels++;
    }
    an_map_fini(&bystep);
    if (rc) goto out;
    rc = 0;
out:
    for (int l = 0; l < NL; l++)
        free(lists[l]);
    return rc;
}
