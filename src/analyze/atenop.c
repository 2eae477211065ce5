/*
 * atenop.c - HTA's ATen op -> kernel delay (analyses.md §7, get_aten_op_kernels_and_delay).
 *
 * Launch calls are the rows named like (cuda.*LaunchKernel)|(cuLaunchKernel)|(^runFunction)
 * (re.match). For each, the ATen op is the aten::* row with the largest ts that fully encloses
 * the call (op.ts <= call.ts, op.end >= call.end), on any thread, as in HTA; among ops with
 * that same ts, the first in file order. The GPU row is the
 * one whose index correlation is the call. An op instance's kernel sequence is its kernels'
 * names joined with " -> " in launch order; rows group op instances by (op name, sequence) with
 * the mean delay of each instance's first launch: aten_op_delay = call.ts - op.ts,
 * runtime_delay = kernel.ts - call.ts.
 *
 * The enclosing op is found with a max-segment tree over the ops sorted by ts (max end): the
 * rightmost op with ts <= call.ts and end >= call.end in O(log n), instead of HTA's scan of all
 * ops per call. Everything else is sorts: O(n log n) overall.
 */
#include "analyze/internal.h"
#include "core/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_launch_name(const char *s)
{
    if (!strncmp(s, "cuLaunchKernel", 14) || !strncmp(s, "runFunction", 11)) return true;
    if (strncmp(s, "cuda", 4)) return false;
    const char *f = strstr(s + 4, "LaunchKernel");
    const char *nl = strchr(s, '\n');
    return f && (!nl || f + 12 <= nl);
}

struct op_ref {
    lat_ns ts, end;
    uint32_t row;
};

static int op_ts_cmp(const void *a, const void *b)
{
    const struct op_ref *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    /* equal ts: later rows first, so the rightmost match is the earliest row in file order,
     * the one HTA's descending sort_values(ts).iloc[0] picks among ties */
    return x->row > y->row ? -1 : x->row < y->row;
}

/* Rightmost leaf index <= p with value >= e in the max tree t (size 2 * m, leaves at m..). */
static size_t seg_rightmost(const lat_ns *t, size_t m, size_t p, lat_ns e)
{
    /* walk up from leaf p collecting left siblings, then descend the first that qualifies */
    size_t i = p + m;
    if (t[i] >= e) return p;
    while (i > 1) {
        if ((i & 1) && t[i - 1] >= e) { /* i is a right child: try its left sibling */
            i--;
            while (i < m)
                i = t[2 * i + 1] >= e ? 2 * i + 1 : 2 * i;
            return i - m;
        }
        i >>= 1;
    }
    return SIZE_MAX;
}

struct launch_rec {
    int64_t tid; /* op instance = (tid, op name, op ts), HTA's groupby key */
    uint32_t op_name;
    lat_ns op_ts;
    uint32_t op_row;
    uint32_t call_row; /* the launch call (orders launches inside an instance) */
    uint32_t kernel;   /* string id of the GPU row's name */
    lat_ns call_ts;
    lat_ns aten_delay, runtime_delay;
};

static int rec_cmp(const void *a, const void *b)
{
    const struct launch_rec *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->op_name != y->op_name) return x->op_name < y->op_name ? -1 : 1;
    if (x->op_ts != y->op_ts) return x->op_ts < y->op_ts ? -1 : 1;
    /* kernels of an instance in file order of their launches, as HTA appends them */
    return x->call_row < y->call_row ? -1 : x->call_row > y->call_row;
}

static bool same_instance(const struct launch_rec *x, const struct launch_rec *y)
{
    return x->tid == y->tid && x->op_name == y->op_name && x->op_ts == y->op_ts;
}

struct inst {
    uint32_t op_name;
    size_t seq_off; /* offset of the sequence in the buffer */
    lat_ns aten_delay, runtime_delay;
};

struct inst_ctx {
    const struct an_view *v;
    const struct lat_buf *buf;
};

static int inst_cmp(const void *a, const void *b, void *ctx)
{
    const struct inst *x = a, *y = b;
    const struct lat_buf *inst_buf = ((const struct inst_ctx *)ctx)->buf;
    const struct an_view *rec_view = ((const struct inst_ctx *)ctx)->v;
    const char *sx = lat_trace_str(rec_view->t, x->op_name);
    const char *sy = lat_trace_str(rec_view->t, y->op_name);
    int c = strcmp(sx, sy);
    if (c) return c;
    return strcmp(inst_buf->data + x->seq_off, inst_buf->data + y->seq_off);
}

static int seq_cmp(const void *a, const void *b)
{
    const struct lat_an_aten_seq *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    if (x->avg_aten_op_launch_delay_ns != y->avg_aten_op_launch_delay_ns)
        return x->avg_aten_op_launch_delay_ns > y->avg_aten_op_launch_delay_ns ? -1 : 1;
    int c = strcmp(x->op, y->op);
    return c ? c : strcmp(x->kernels, y->kernels);
}

int an_aten(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    size_t nops = 0, ncalls = 0;
    int rc = -ENOMEM;
    struct op_ref *ops = NULL;
    lat_ns *tree = NULL;
    uint32_t *kernel_of = NULL; /* per call row: its GPU row, via index correlation */
    struct launch_rec *recs = NULL;
    struct inst *insts = NULL;
    struct lat_an_aten_seq *rows = NULL;
    struct lat_buf seqs;
    memset(&seqs, 0, sizeof(seqs));

    uint8_t *is_call = calloc(t->strs.count ? t->strs.count : 1, 1); /* 0 unknown, 1 no, 2 yes */
    if (!is_call) return -ENOMEM;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i]) continue;
        const char *nm = an_name(v, i);
        if (!strncmp(nm, "aten::", 6)) nops++;
        uint32_t id = ev->name[i];
        if (!is_call[id]) is_call[id] = is_launch_name(nm) ? 2 : 1;
        if (is_call[id] == 2) ncalls++;
    }
    if (!nops || !ncalls) {
        rc = 0;
        goto out;
    }
    size_t m = 1;
    while (m < nops)
        m <<= 1;
    ops = malloc(nops * sizeof(*ops));
    tree = malloc(2 * m * sizeof(*tree));
    kernel_of = malloc(v->n * sizeof(*kernel_of));
    recs = malloc(ncalls * sizeof(*recs));
    if (!ops || !tree || !kernel_of || !recs) goto out;
    nops = 0;
    for (size_t i = 0; i < v->n; i++) {
        kernel_of[i] = AN_NONE;
        if (v->keep[i] && !strncmp(an_name(v, i), "aten::", 6))
            ops[nops++] = (struct op_ref){an_ts(v, i), an_end(v, i), (uint32_t)i};
    }
    qsort(ops, nops, sizeof(*ops), op_ts_cmp);
    for (size_t k = 0; k < 2 * m; k++)
        tree[k] = INT64_MIN;
    for (size_t k = 0; k < nops; k++)
        tree[m + k] = ops[k].end;
    for (size_t k = m - 1; k >= 1; k--)
        tree[k] = tree[2 * k] > tree[2 * k + 1] ? tree[2 * k] : tree[2 * k + 1];
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t g = v->gpu[j], c = v->corr[g];
        if (c != AN_NONE && kernel_of[c] == AN_NONE) kernel_of[c] = g;
    }

    size_t nrec = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || is_call[ev->name[i]] != 2 || kernel_of[i] == AN_NONE) continue;
        lat_ns ts = an_ts(v, i), end = an_end(v, i);
        size_t a = 0, b = nops; /* ops with ts <= call ts: [0, a) */
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (ops[mid].ts <= ts)
                a = mid + 1;
            else
                b = mid;
        }
        if (!a) continue;
        size_t k = seg_rightmost(tree, m, a - 1, end);
        if (k == SIZE_MAX) continue;
        uint32_t g = kernel_of[i];
        uint32_t o = ops[k].row;
        const struct lat_track *tr = &t->tracks[ev->track[o]];
        recs[nrec++] = (struct launch_rec){
            .tid = tr->tid_str ? -(int64_t)tr->tid_str - 1 : tr->tid,
            .op_name = ev->name[o],
            .op_ts = ops[k].ts,
            .op_row = o,
            .call_row = (uint32_t)i,
            .kernel = ev->name[g],
            .call_ts = ts,
            .aten_delay = ts - ops[k].ts,
            .runtime_delay = an_ts(v, g) - ts,
        };
    }
    qsort(recs, nrec, sizeof(*recs), rec_cmp);

    /* one instance per op row: its sequence string and first-launch delays */
    insts = malloc((nrec ? nrec : 1) * sizeof(*insts));
    if (!insts) goto out;
    size_t ninst = 0;
    for (size_t a = 0; a < nrec;) {
        size_t b = a;
        struct inst *in = &insts[ninst++];
        in->op_name = recs[a].op_name;
        in->seq_off = seqs.len;
        in->aten_delay = recs[a].aten_delay;
        in->runtime_delay = recs[a].runtime_delay;
        for (; b < nrec && same_instance(&recs[b], &recs[a]); b++) {
            if (b > a && buf_puts(&seqs, " -> ")) goto out;
            if (buf_puts(&seqs, lat_trace_str(t, recs[b].kernel))) goto out;
        }
        if (buf_putc(&seqs, '\0')) goto out;
        a = b;
    }
    struct inst_ctx ictx = {v, &seqs};
    qsort_r(insts, ninst, sizeof(*insts), inst_cmp, &ictx);

    rows = calloc(ninst ? ninst : 1, sizeof(*rows));
    if (!rows) goto out;
    size_t nrows = 0;
    for (size_t a = 0; a < ninst;) {
        size_t b = a;
        double sa = 0, sr = 0;
        while (b < ninst && insts[b].op_name == insts[a].op_name &&
               !strcmp(seqs.data + insts[b].seq_off, seqs.data + insts[a].seq_off)) {
            sa += (double)insts[b].aten_delay;
            sr += (double)insts[b].runtime_delay;
            b++;
        }
        struct lat_an_aten_seq *row = &rows[nrows++];
        row->op = lat_trace_str(t, insts[a].op_name);
        row->kernels = (char *)(uintptr_t)insts[a].seq_off; /* resolved below */
        row->count = b - a;
        row->avg_aten_op_launch_delay_ns = sa / (double)(b - a);
        row->avg_runtime_delay_ns = sr / (double)(b - a);
        a = b;
    }
    for (size_t k = 0; k < nrows; k++)
        rows[k].kernels = seqs.data + (uintptr_t)rows[k].kernels;
    qsort(rows, nrows, sizeof(*rows), seq_cmp);
    size_t keep = nrows < v->o->top_n ? nrows : v->o->top_n;
    r->naten_seqs_total = nrows;
    r->aten_seqs = calloc(keep ? keep : 1, sizeof(*r->aten_seqs));
    if (!r->aten_seqs) goto out;
    for (size_t k = 0; k < keep; k++) {
        r->aten_seqs[k] = rows[k];
        r->aten_seqs[k].kernels = strdup(rows[k].kernels);
        if (!r->aten_seqs[k].kernels) {
            r->naten_seqs = k;
            goto out;
        }
    }
    r->naten_seqs = keep;
    rc = 0;
out:
    free(is_call);
    free(ops);
    free(tree);
    free(kernel_of);
    free(recs);
    free(insts);
    free(rows);
    buf_fini(&seqs);
    return rc;
}
