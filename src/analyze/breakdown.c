/*
 * breakdown.c - HTA's breakdowns: temporal (§2), idle time per stream (§3), kernel types and
 * the per-kernel table (§4), communication/computation overlap (§5).
 *
 * All of them read the rank's GPU rows (stream != -1, sorted by ts in the view) and build
 * interval lists in one scratch array; the per-name statistics group rows by name id after one
 * sort. Everything is O(n log n) in the number of GPU rows and allocates per analysis, never per
 * event.
 */
#include "analyze/internal.h"
#include "core/grow.h"
#include "core/pctl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Merged intervals of the GPU rows of type `type` (LAT_KT_COUNT: all). Returns the count; the
 * list is in *out (scratch owned by the caller, freed with free()). -ENOMEM as (size_t)-1. */
static size_t merged_rows(struct an_view *v, int type, struct lat_ivl **out)
{
    struct lat_ivl *iv = malloc((v->ngpu ? v->ngpu : 1) * sizeof(*iv));
    if (!iv) return (size_t)-1;
    size_t k = 0;
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t i = v->gpu[j];
        if (type != LAT_KT_COUNT && (int)an_ktype(v, i) != type) continue;
        iv[k++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
    }
    *out = iv;
    return ivl_merge(iv, k); /* rows are already sorted by ts */
}

int an_temporal(struct an_view *v, struct lat_an_rank *r)
{
    struct lat_an_temporal *tb = &r->temporal;
    memset(tb, 0, sizeof(*tb));
    if (!v->ngpu) return 0;
    struct lat_ivl *all, *comp;
    size_t na = merged_rows(v, LAT_KT_COUNT, &all);
    if (na == (size_t)-1) return -ENOMEM;
    size_t nc = merged_rows(v, LAT_KT_COMPUTATION, &comp);
    if (nc == (size_t)-1) {
        free(all);
        return -ENOMEM;
    }
    tb->valid = true;
    tb->kernel_time = all[na - 1].end - all[0].ts;
    tb->idle = tb->kernel_time - ivl_sum(all, na);
    tb->compute = ivl_sum(comp, nc);
    tb->non_compute = tb->kernel_time - tb->compute - tb->idle;
    if (tb->non_compute < 0) { /* never a negative time: see lat_an_temporal.clamped */
        tb->clamped = -tb->non_compute;
        tb->compute -= tb->clamped;
        tb->non_compute = 0;
    }
    if (tb->kernel_time > 0) {
        double kt = (double)tb->kernel_time;
        tb->idle_pct = 100.0 * (double)tb->idle / kt;
        tb->compute_pct = 100.0 * (double)tb->compute / kt;
        tb->non_compute_pct = 100.0 * (double)tb->non_compute / kt;
    }
    free(all);
    free(comp);
    return 0;
}

/* ---- idle time per stream (§3) ---------------------------------------------------------- */

int an_idle(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    uint32_t mtia_cat = strtab_find(&t->strs, "mtia_ccp_events", 15);
    struct lat_u64map slot;
    struct lat_an_idle_stream *s = NULL;
    lat_ns *prev_end = NULL;
    size_t ns = 0, cap = 0, pcap = 0; /* of s, of prev_end */
    bool hta_row0 = v->o->hta_compat && t->first_elem_event && v->n > 0 && v->keep[0];
    int rc = lat_u64map_init(&slot, 64);
    if (rc) return rc;
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t i = v->gpu[j];
        uint16_t kind = t->ev.kind[i];
        if (kind != LAT_EV_KERNEL && kind != LAT_EV_MEMCPY && kind != LAT_EV_MEMSET &&
            t->ev.cat[i] != mtia_cat)
            continue;
        int64_t stream = v->stream[i];
        uint32_t k = an_row(&slot, stream);
        if (k == AN_NONE) {
            if ((rc = LAT_GROW(s, cap, ns, 1, 16)) || (rc = LAT_GROW(prev_end, pcap, ns, 1, 16)))
                goto out;
            k = (uint32_t)ns++;
            memset(&s[k], 0, sizeof(s[k]));
            s[k].stream = stream;
            if ((rc = an_row_put(&slot, stream, k))) goto out;
        } else {
            lat_ns ts = an_ts(v, i), pe = prev_end[k];
            lat_ns gap = ts - pe;
            enum lat_idle_cat c;
            uint32_t rt = v->corr[i];
            /* HTA: a row with no correlated CPU row has index_correlation min(correlation, 0);
             * its join reaches the row labelled 0 (the input's first event) when that row
             * was kept. latscope's own rule: an unlaunched row is never host_wait. */
            if (rt == AN_NONE && hta_row0 && t->ev.correlation[i] >= 0) rt = 0;
            if (rt != AN_NONE && v->keep[rt] && an_ts(v, rt) > pe)
                c = LAT_IDLE_HOST_WAIT;
            else if (gap < v->o->consecutive_kernel_delay_ns)
                c = LAT_IDLE_KERNEL_WAIT;
            else
                c = LAT_IDLE_OTHER;
            s[k].idle[c] += gap;
            s[k].gaps[c]++;
        }
        s[k].events++;
        prev_end[k] = an_end(v, i);
    }
    for (size_t k = 0; k < ns; k++) {
        lat_ns tot = s[k].idle[0] + s[k].idle[1] + s[k].idle[2];
        for (int c = 0; c < LAT_IDLE_COUNT; c++)
            s[k].ratio[c] = tot ? (double)s[k].idle[c] / (double)tot : 0;
    }
    /* ascending stream order */
    for (size_t a = 1; a < ns; a++)
        for (size_t b = a; b > 0 && s[b - 1].stream > s[b].stream; b--) {
            struct lat_an_idle_stream tmp = s[b];
            s[b] = s[b - 1];
            s[b - 1] = tmp;
        }
    r->idle = s;
    r->nidle = ns;
    s = NULL;
out:
    free(s);
    free(prev_end);
    lat_u64map_fini(&slot);
    return rc;
}

/* ---- kernel types and per-kernel table (§4) ---------------------------------------------- */

static const char *const bucket_label[8] = {
    "",
    "COMPUTATION",
    "COMMUNICATION",
    "COMPUTATION overlapping COMMUNICATION",
    "MEMORY",
    "COMPUTATION overlapping MEMORY",
    "COMMUNICATION overlapping MEMORY",
    "COMPUTATION overlapping COMMUNICATION overlapping MEMORY",
};

static int row_name_cmp(const void *a, const void *b, void *ctx)
{
    const struct an_view *name_sort_view = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t nx = name_sort_view->t->ev.name[x], ny = name_sort_view->t->ev.name[y];
    if (nx != ny) return nx < ny ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int kern_sum_desc(const void *a, const void *b)
{
    const struct lat_an_kernel *x = a, *y = b;
    if (x->sum != y->sum) return x->sum > y->sum ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int kern_type_name(const void *a, const void *b)
{
    const struct lat_an_kernel *x = a, *y = b;
    int c = strcmp(analysis_ktype_name(x->type), analysis_ktype_name(y->type));
    return c ? c : strcmp(x->name, y->name);
}

void an_kern_stats(struct lat_an_kernel *k, const double *x, size_t n)
{
    double mean = 0, m2 = 0, mx = -INFINITY, mn = INFINITY, sum = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x[i] - mean);
        if (x[i] > mx) mx = x[i];
        if (x[i] < mn) mn = x[i];
        sum += x[i];
    }
    k->sum = (lat_ns)llround(sum);
    k->max = (lat_ns)llround(mx);
    k->min = (lat_ns)llround(mn);
    k->mean_ns = mean;
    k->std_ns = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
}

/* HTA _aggr_gpu_kernel_time on names[0..n) (one type, per-name stats): writes the rows to out
 * and returns their number (<= n). */
static size_t aggr_type(struct lat_an_kernel *names, size_t n, const struct analysis_opts *o,
                        struct lat_an_kernel *out, double *scratch)
{
    qsort(names, n, sizeof(*names), kern_sum_desc);
    if (n <= o->num_kernels) {
        memcpy(out, names, n * sizeof(*out));
        return n;
    }
    double *cum = scratch, run = 0;
    for (size_t i = 0; i < n; i++)
        cum[i] = run += (double)names[i].sum;
    /* quantile of the (already sorted, increasing) cumsum series */
    double q = lat_quantile_linear_f64(cum, n, o->duration_ratio);
    size_t k = 0, nothers = 0;
    uint64_t others_count = 0;
    double *osum = scratch + n; /* per-name sums that go into "others" */
    for (size_t i = 0; i < n; i++) {
        if (cum[i] > q || i >= o->num_kernels) {
            osum[nothers++] = (double)names[i].sum;
            others_count += names[i].count;
            continue;
        }
        out[k] = names[i];
        out[k].max = out[k].min = out[k].sum;
        out[k].mean_ns = (double)out[k].sum;
        out[k].std_ns = 0;
        k++;
    }
    if (nothers) {
        struct lat_an_kernel *ot = &out[k++];
        memset(ot, 0, sizeof(*ot));
        ot->type = names[0].type;
        ot->name = "others";
        ot->others = true;
        ot->count = others_count;
        an_kern_stats(ot, osum, nothers);
    }
    return k;
}

int an_ktypes(struct an_view *v, struct lat_an_rank *r)
{
    const struct analysis_opts *o = v->o;
    int rc = -ENOMEM;
    size_t n = v->ngpu;
    uint32_t *rows = NULL;
    double *dur = NULL;
    struct lat_an_kernel *names = NULL, *table = NULL, *part = NULL;
    struct lat_sweep_ev *ev = NULL;
    struct lat_ivl *iv = NULL;
    if (!n) return 0;

    /* type table: merge per type, sweep with bits COMPUTATION=1, COMMUNICATION=2, MEMORY=4 */
    ev = malloc(2 * n * sizeof(*ev));
    iv = malloc(n * sizeof(*iv));
    if (!ev || !iv) goto out;
    size_t nev = 0;
    static const int types[3] = {LAT_KT_COMPUTATION, LAT_KT_COMMUNICATION, LAT_KT_MEMORY};
    for (int b = 0; b < (o->include_memory_kernels ? 3 : 2); b++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++) {
            uint32_t i = v->gpu[j];
            if ((int)an_ktype(v, i) == types[b])
                iv[k++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
        }
        k = ivl_merge(iv, k);
        ivl_sweep_add(ev, &nev, iv, k, 1 << b);
    }
    lat_ns bsum[8] = {0};
    ivl_sweep(ev, nev, 1000, bsum, 8);
    lat_ns total = 0;
    size_t nb = 0;
    for (unsigned u = 1; u < 8; u++) {
        total += bsum[u];
        nb += bsum[u] > 0;
    }
    r->ktypes = calloc(nb ? nb : 1, sizeof(*r->ktypes));
    if (!r->ktypes) goto out;
    for (unsigned u = 1; u < 8; u++) {
        if (bsum[u] <= 0) continue;
        struct lat_an_ktype_bucket *kb = &r->ktypes[r->nktypes++];
        kb->mask = u;
        kb->label = bucket_label[u];
        kb->sum = bsum[u];
        kb->percent = total ? 100.0 * (double)bsum[u] / (double)total : 0;
    }
    for (size_t a = 1; a < r->nktypes; a++) /* by sum, descending */
        for (size_t b = a; b > 0 && r->ktypes[b - 1].sum < r->ktypes[b].sum; b--) {
            struct lat_an_ktype_bucket tmp = r->ktypes[b];
            r->ktypes[b] = r->ktypes[b - 1];
            r->ktypes[b - 1] = tmp;
        }

    /* per-name statistics over all GPU rows */
    rows = malloc(n * sizeof(*rows));
    dur = malloc(2 * n * sizeof(*dur));
    names = calloc(n, sizeof(*names));
    table = calloc(n + LAT_KT_COUNT, sizeof(*table));
    if (!rows || !dur || !names || !table) goto out;
    memcpy(rows, v->gpu, n * sizeof(*rows));
    qsort_r(rows, n, sizeof(*rows), row_name_cmp, (void *)(uintptr_t)v);
    size_t nn = 0;
    for (size_t j = 0; j < n;) {
        size_t e = j;
        uint32_t id = v->t->ev.name[rows[j]];
        while (e < n && v->t->ev.name[rows[e]] == id) {
            dur[e - j] = (double)an_dur(v, rows[e]);
            e++;
        }
        struct lat_an_kernel *k = &names[nn++];
        k->type = an_ktype(v, rows[j]);
        k->name = lat_trace_str(v->t, id);
        k->count = e - j;
        an_kern_stats(k, dur, e - j);
        j = e;
    }

    /* top kernels over all types */
    qsort(names, nn, sizeof(*names), kern_sum_desc);
    size_t ntop = nn < o->top_n ? nn : o->top_n;
    r->top_kernels = malloc((ntop ? ntop : 1) * sizeof(*r->top_kernels));
    if (!r->top_kernels) goto out;
    memcpy(r->top_kernels, names, ntop * sizeof(*names));
    r->ntop_kernels = ntop;

    /* HTA per-type table (OTHER is not part of it) */
    part = malloc((nn ? nn : 1) * sizeof(*part));
    if (!part) goto out;
    size_t nt = 0;
    for (int b = 0; b < (o->include_memory_kernels ? 3 : 2); b++) {
        size_t cnt = 0;
        for (size_t j = 0; j < nn; j++)
            if ((int)names[j].type == types[b]) part[cnt++] = names[j];
        nt += aggr_type(part, cnt, o, table + nt, dur);
    }
    qsort(table, nt, sizeof(*table), kern_type_name);
    r->kernels_by_type = table;
    r->nkernels_by_type = nt;
    table = NULL;
    rc = 0;
out:
    free(rows);
    free(dur);
    free(names);
    free(part);
    free(table);
    free(ev);
    free(iv);
    return rc;
}

/* ---- communication / computation overlap (§5) -------------------------------------------- */

int an_overlap(struct an_view *v, struct lat_an_rank *r)
{
    size_t n = v->ngpu;
    r->has_comm = false;
    r->comm_comp_overlap_pct = 0;
    if (!n) return 0;
    struct lat_sweep_ev *ev = malloc(2 * n * sizeof(*ev));
    struct lat_ivl *iv = malloc(n * sizeof(*iv));
    if (!ev || !iv) {
        free(ev);
        free(iv);
        return -ENOMEM;
    }
    size_t nev = 0;
    lat_ns comm = 0;
    static const int types[2] = {LAT_KT_COMMUNICATION, LAT_KT_COMPUTATION};
    for (int b = 0; b < 2; b++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++) {
            uint32_t i = v->gpu[j];
            if ((int)an_ktype(v, i) == types[b])
                iv[k++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
        }
        k = ivl_merge(iv, k);
        if (b == 0) {
            comm = ivl_sum(iv, k);
            r->has_comm = k > 0;
        }
        ivl_sweep_add(ev, &nev, iv, k, b == 0 ? 1 : 2);
    }
    lat_ns sum[4] = {0};
    ivl_sweep(ev, nev, 1, sum, 4);
    r->comm_time = comm;
    r->comm_comp_overlap = sum[3];
    if (r->has_comm && comm > 0) r->comm_comp_overlap_pct = 100.0 * (double)sum[3] / (double)comm;
    free(ev);
    free(iv);
    return 0;
}
