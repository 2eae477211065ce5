/*
 * annot.c - user annotations (docs/latscope-analyze.md "User annotations"): time per annotated
 * region and the GPU work under each, as HTA's get_gpu_user_annotation_breakdown (GPU and CPU
 * variants) and get_gpu_kernels_with_user_annotations define them (HTA f4d0062,
 * hta/analyzers/breakdown_analysis.py):
 *
 *   - rows: the kept events of cat gpu_user_annotation (GPU) or user_annotation (CPU), grouped
 *     by name: count, sum, max, min, mean and sample std of their durations; with more than
 *     ANNOT_NUM names, HTA's "others" aggregation (duration_ratio 0.8) as in the kernel table;
 *   - kernels: every GPU row HTA's GPUKernelFilter keeps (stream >= 0 and correlation >= 0, or
 *     an Event/Context Sync) is given the innermost GPU annotation on its own (pid, tid) that
 *     overlaps it ([ts, end) intervals); annotations are applied longest first, so a shorter
 *     one inside a longer one wins. Ties in duration go by trace order (HTA's pandas sort is not
 *     stable there: documented).
 */
#include "analyze/internal.h"
#include "core/pctl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ANNOT_NUM = 1000 }; /* HTA's num_kernels default for this breakdown */
#define ANNOT_RATIO 0.8    /* HTA's duration_ratio default */

static int cmp_name_idx(const void *a, const void *b, void *ctx)
{
    const struct an_view *v = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t nx = v->t->ev.name[x], ny = v->t->ev.name[y];
    if (nx != ny) return nx < ny ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_sum_desc(const void *a, const void *b)
{
    const struct lat_an_annot *x = a, *y = b;
    if (x->s.sum != y->s.sum) return x->s.sum > y->s.sum ? -1 : 1;
    return strcmp(x->s.name, y->s.name);
}

/* Per-name rows of the kept events of kind k: *out (sorted by sum, descending), *nout, and the
 * events themselves in *members (sorted by name). 0, or -ENOMEM. */
static int group(struct an_view *v, enum lat_ev_kind k, struct lat_an_annot **out, size_t *nout,
                 uint32_t **members, size_t *nmembers)
{
    const struct lat_trace *t = v->t;
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++)
        n += v->keep[i] && t->ev.kind[i] == k;
    *out = NULL;
    *nout = 0;
    *members = NULL;
    *nmembers = 0;
    if (!n) return 0;
    uint32_t *idx = malloc(n * sizeof(*idx));
    double *dur = malloc(n * sizeof(*dur));
    struct lat_an_annot *rows = calloc(n, sizeof(*rows));
    if (!idx || !dur || !rows) {
        free(idx);
        free(dur);
        free(rows);
        return -ENOMEM;
    }
    size_t m = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && t->ev.kind[i] == k) idx[m++] = (uint32_t)i;
    qsort_r(idx, n, sizeof(*idx), cmp_name_idx, v);
    size_t nr = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && t->ev.name[idx[b]] == t->ev.name[idx[a]])
            b++;
        for (size_t j = a; j < b; j++)
            dur[j - a] = (double)an_dur(v, idx[j]);
        struct lat_an_annot *r = &rows[nr++];
        r->s.name = lat_trace_str(t, t->ev.name[idx[a]]);
        r->s.count = b - a;
        an_kern_stats(&r->s, dur, b - a);
        a = b;
    }
    free(dur);
    qsort(rows, nr, sizeof(*rows), cmp_sum_desc);
    *out = rows;
    *nout = nr;
    *members = idx; /* sorted by name: the caller may use it to find the events of a row */
    *nmembers = n;
    return 0;
}

/* HTA's "others" aggregation of rows[0..n) (sorted by sum, descending), in place. */
static size_t aggregate(struct lat_an_annot *rows, size_t n)
{
    if (n <= ANNOT_NUM) return n;
    double *cum = malloc(n * sizeof(*cum)), *osum = malloc(n * sizeof(*osum));
    if (!cum || !osum) { /* cannot aggregate: keep every row (more rows, same numbers) */
        free(cum);
        free(osum);
        return n;
    }
    double run = 0;
    for (size_t i = 0; i < n; i++)
        cum[i] = run += (double)rows[i].s.sum;
    double q = lat_quantile_linear_f64(cum, n, ANNOT_RATIO);
    size_t k = 0, no = 0;
    struct lat_an_annot others = {.s = {.name = "others", .others = true}};
    for (size_t i = 0; i < n; i++) {
        if (cum[i] > q || i >= ANNOT_NUM) {
            osum[no++] = (double)rows[i].s.sum;
            others.s.count += rows[i].s.count;
            others.kernels += rows[i].kernels;
            others.kernel_time += rows[i].kernel_time;
            continue;
        }
        rows[k] = rows[i];
        /* HTA re-aggregates the kept rows' sums: one value each */
        rows[k].s.max = rows[k].s.min = rows[k].s.sum;
        rows[k].s.mean_ns = (double)rows[k].s.sum;
        rows[k].s.std_ns = 0;
        k++;
    }
    if (no) {
        lat_ns c = (lat_ns)others.s.count;
        an_kern_stats(&others.s, osum, no);
        others.s.count = (uint64_t)c;
        rows[k++] = others;
    }
    free(cum);
    free(osum);
    return k;
}

/* HTA GPUKernelFilter: GPU rows with a correlation, and Event/Context Sync. */
static bool is_gpu_row(struct an_view *v, size_t i)
{
    if (!v->keep[i]) return false;
    if (v->stream[i] >= 0 && v->t->ev.correlation[i] >= 0) return true;
    return (an_namecls(v, i) & AN_NAME_SYNC_EVT) != 0;
}

static int cmp_track_ts(const void *a, const void *b, void *ctx)
{
    const struct an_view *v = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t tx = v->t->ev.track[x], ty = v->t->ev.track[y];
    if (tx != ty) return tx < ty ? -1 : 1;
    lat_ns sx = an_ts(v, x), sy = an_ts(v, y);
    if (sx != sy) return sx < sy ? -1 : 1;
    return x < y ? -1 : x > y;
}

struct ann {
    uint32_t ev;  /* the annotation event */
    uint32_t row; /* its row in the (sorted) GPU table */
};

static int cmp_ann_dur(const void *a, const void *b, void *ctx)
{
    const struct an_view *v = ctx;
    const struct ann *x = a, *y = b;
    lat_ns dx = an_dur(v, x->ev), dy = an_dur(v, y->ev);
    if (dx != dy) return dx > dy ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Kernels -> innermost GPU annotation on their (pid, tid). */
static int attribute(struct an_view *v, struct lat_an_annots *A, const uint32_t *members,
                     size_t nmembers)
{
    const struct lat_trace *t = v->t;
    size_t nk = 0;
    for (size_t i = 0; i < v->n; i++)
        nk += is_gpu_row(v, i);
    A->gpu_rows = nk;
    if (!nk) return 0;
    uint32_t *k = malloc(nk * sizeof(*k));
    uint32_t *label = malloc(nk * sizeof(*label));
    struct ann *an = malloc(nmembers * sizeof(*an));
    if (!k || !label || !an) {
        free(k);
        free(label);
        free(an);
        return -ENOMEM;
    }
    size_t m = 0;
    for (size_t i = 0; i < v->n; i++)
        if (is_gpu_row(v, i)) k[m++] = (uint32_t)i;
    qsort_r(k, nk, sizeof(*k), cmp_track_ts, v);
    for (size_t i = 0; i < nk; i++)
        label[i] = UINT32_MAX;
    /* each annotation event with its row: members are sorted by name, rows by sum */
    for (size_t j = 0; j < nmembers; j++) {
        const char *name = lat_trace_str(t, t->ev.name[members[j]]);
        uint32_t row = UINT32_MAX;
        for (size_t r = 0; r < A->ngpu; r++) /* the rows before the "others" aggregation */
            if (A->gpu[r].s.name == name) row = (uint32_t)r;
        an[j] = (struct ann){members[j], row};
    }
    qsort_r(an, nmembers, sizeof(*an), cmp_ann_dur, v);
    /* the longest GPU row bounds the backwards search for rows that start before an
     * annotation and end inside it */
    lat_ns maxdur = 0;
    for (size_t i = 0; i < nk; i++)
        if (an_dur(v, k[i]) > maxdur) maxdur = an_dur(v, k[i]);
    for (size_t j = 0; j < nmembers; j++) {
        uint32_t e = an[j].ev, tr = t->ev.track[e];
        lat_ns a0 = an_ts(v, e), a1 = an_end(v, e);
        /* first kernel of track tr (binary search on (track, ts)) */
        size_t lo = 0, hi = nk;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            uint32_t tm = t->ev.track[k[mid]];
            if (tm < tr || (tm == tr && an_ts(v, k[mid]) < a0))
                lo = mid + 1;
            else
                hi = mid;
        }
        /* rows that start before a0 but may end after it: back while they could */
        size_t s = lo;
        while (s > 0 && t->ev.track[k[s - 1]] == tr && an_ts(v, k[s - 1]) >= a0 - maxdur)
            s--;
        /* pandas IntervalIndex.overlaps of [ts, end) intervals: ts < a1 and end > a0 */
        for (size_t i = s; i < nk && t->ev.track[k[i]] == tr && an_ts(v, k[i]) < a1; i++)
            if (an_end(v, k[i]) > a0) label[i] = an[j].row;
    }
    for (size_t i = 0; i < nk; i++) {
        if (label[i] == UINT32_MAX) continue;
        A->gpu_rows_annotated++;
        A->gpu[label[i]].kernels++;
        A->gpu[label[i]].kernel_time += an_dur(v, k[i]);
    }
    free(k);
    free(label);
    free(an);
    return 0;
}

int an_annot(struct an_view *v, struct lat_an_rank *r)
{
    struct lat_an_annots *A = &r->annot;
    uint32_t *gm = NULL, *cm = NULL;
    size_t ngm = 0, ncm = 0;
    int rc = group(v, LAT_EV_GPU_ANNOTATION, &A->gpu, &A->ngpu, &gm, &ngm);
    if (!rc) rc = group(v, LAT_EV_USER_ANNOTATION, &A->cpu, &A->ncpu, &cm, &ncm);
    free(cm);
    if (rc) goto out;
    if (A->ngpu) {
        /* kernels per name into the rows, then the "others" aggregation sums them */
        if ((rc = attribute(v, A, gm, ngm))) goto out;
        A->ngpu = aggregate(A->gpu, A->ngpu);
    } else {
        for (size_t i = 0; i < v->n; i++)
            A->gpu_rows += is_gpu_row(v, i);
    }
    A->ncpu = aggregate(A->cpu, A->ncpu);
    rc = 0;
out:
    free(gm);
    return rc;
}

void an_annot_fini(struct lat_an_annots *A)
{
    free(A->gpu);
    free(A->cpu);
    memset(A, 0, sizeof(*A));
}
