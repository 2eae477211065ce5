/*
 * cupti.c - CUPTI profiler counters (docs/latscope-analyze.md "CUPTI counters"): traces taken
 * with torch.profiler's experimental CUPTI range profiler have one `cuda_profiler_range` event
 * per kernel, its SASS/DRAM counters as args. As HTA's get_counter_data_with_operators
 * (hta/analyzers/cupti_counter_analysis.py, f4d0062) defines the join, the i-th range by ts is
 * the kernel of the i-th `cudaLaunchKernel` (cat cuda_runtime) by ts (ranges carry no
 * correlation); the launch's enclosing cpu_ops on its thread give the top-level (outermost) and
 * bottom-level (innermost) operator. When the two counts differ, HTA gives up; so does latscope,
 * and says why.
 *
 * From the counters: FLOPs per precision as Nsight Compute counts them (fadd + fmul + 2 x ffma;
 * d* for FP64, h* for FP16), bytes from dram__bytes_read/write.sum when present, summed per
 * top-level operator. The range durations are profiled (kernel replay) and are not kernel time.
 */
#include "analyze/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool prefix(const char *s, const char *p)
{
    return s && !strncmp(s, p, strlen(p));
}

struct ts_idx {
    lat_ns ts;
    uint32_t i;
};

static int cmp_ts_idx(const void *a, const void *b)
{
    const struct ts_idx *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorted (ts, index) of the kept events that sel() accepts; *n their number. */
static struct ts_idx *collect(struct an_view *v, bool (*sel)(struct an_view *, size_t), size_t *n)
{
    size_t m = 0;
    for (size_t i = 0; i < v->n; i++)
        m += v->keep[i] && sel(v, i);
    *n = m;
    struct ts_idx *a = malloc((m ? m : 1) * sizeof(*a));
    if (!a) return NULL;
    m = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && sel(v, i)) a[m++] = (struct ts_idx){an_ts(v, i), (uint32_t)i};
    qsort(a, m, sizeof(*a), cmp_ts_idx);
    return a;
}

static bool is_range(struct an_view *v, size_t i)
{
    return !strcmp(lat_trace_str(v->t, v->t->ev.cat[i]), "cuda_profiler_range");
}

static bool is_launch(struct an_view *v, size_t i)
{
    return prefix(lat_trace_str(v->t, v->t->ev.cat[i]), "cuda_runtime") &&
           prefix(an_name(v, i), "cudaLaunchKernel");
}

static bool is_cpu_op(struct an_view *v, size_t i)
{
    return v->t->ev.kind[i] == LAT_EV_CPU_OP;
}

/* The outermost and innermost cpu_op on launch l's track that enclose it (ops sorted by ts). */
static void enclosing(struct an_view *v, const struct ts_idx *ops, size_t nops, lat_ns maxdur,
                      uint32_t l, uint32_t *top, uint32_t *bottom)
{
    const struct lat_trace *t = v->t;
    lat_ns ls = an_ts(v, l), le = an_end(v, l);
    *top = *bottom = AN_NONE;
    /* ops starting at or before the launch: binary search for the last one, scan back */
    size_t lo = 0, hi = nops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ops[mid].ts <= ls)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* back from there; an op that starts more than the longest op's duration before the
     * launch cannot enclose it. ops are by (ts, index): the first enclosing op met going back
     * is the innermost, the last the outermost (equal starts: the earlier row is the parent) */
    for (size_t k = lo; k-- > 0;) {
        if (ops[k].ts < le - maxdur) break;
        uint32_t o = ops[k].i;
        if (t->ev.track[o] != t->ev.track[l] || an_end(v, o) < le) continue;
        if (*bottom == AN_NONE) *bottom = o;
        *top = o;
    }
}

static const char *const flop_keys[3][3] = {
    /* add, mul, fma for FP32, FP64, FP16 */
    {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
     "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
     "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"},
    {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
     "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
     "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"},
    {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
     "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
     "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"},
};

static double arg_num(const struct lat_arg *a)
{
    if (a->type == LAT_ARG_INT) return (double)a->v.i;
    if (a->type == LAT_ARG_UINT) return (double)a->v.u;
    if (a->type == LAT_ARG_DOUBLE) return a->v.d;
    return 0;
}

int an_cupti(struct an_view *v, struct lat_an_rank *r)
{
    struct lat_an_cupti *C = &r->cupti;
    const struct lat_trace *t = v->t;
    size_t nr = 0, nl = 0, no = 0;
    int rc = -ENOMEM;
    struct ts_idx *rg = collect(v, is_range, &nr), *ln = NULL, *ops = NULL;
    if (!rg) return -ENOMEM;
    if (!nr) {
        free(rg);
        return 0;
    }
    ln = collect(v, is_launch, &nl);
    ops = collect(v, is_cpu_op, &no);
    C->rows = calloc(nr, sizeof(*C->rows));
    C->ops = calloc(nr, sizeof(*C->ops));
    if (!ln || !ops || !C->rows || !C->ops) goto out;
    C->nranges = nr;
    C->nlaunches = nl;
    /* the counter names: the numeric args of the first range */
    const struct lat_arg *a0 = &t->args[t->ev.args[rg[0].i]];
    for (uint32_t k = 0; k < t->ev.nargs[rg[0].i] && C->ncounters < LAT_AN_CUPTI_MAX; k++)
        if (a0[k].type == LAT_ARG_INT || a0[k].type == LAT_ARG_UINT || a0[k].type == LAT_ARG_DOUBLE)
            C->counters[C->ncounters++] = lat_trace_str(t, a0[k].key);
    for (size_t j = 0; j < nr; j++) {
        uint32_t e = rg[j].i;
        struct lat_an_cupti_row *row = &C->rows[C->nrows++];
        row->kernel = an_name(v, e);
        row->ts = an_ts(v, e);
        row->dur = an_dur(v, e);
        row->ev = e;
        const struct lat_arg *a = &t->args[t->ev.args[e]];
        for (uint32_t k = 0; k < t->ev.nargs[e]; k++) {
            const char *key = lat_trace_str(t, a[k].key);
            for (int p = 0; p < 3; p++)
                for (int f = 0; f < 3; f++)
                    if (!strcmp(key, flop_keys[p][f]))
                        row->flops[p] += (f == 2 ? 2.0 : 1.0) * arg_num(&a[k]);
            if (!strcmp(key, "dram__bytes_read.sum") || !strcmp(key, "dram__bytes_write.sum"))
                row->dram_bytes += arg_num(&a[k]);
        }
    }
    lat_ns maxdur = 0;
    for (size_t k = 0; k < no; k++)
        if (an_dur(v, ops[k].i) > maxdur) maxdur = an_dur(v, ops[k].i);
    if (nl == nr) {
        C->joined = true;
        for (size_t j = 0; j < nr; j++) {
            uint32_t top, bottom;
            enclosing(v, ops, no, maxdur, ln[j].i, &top, &bottom);
            C->rows[j].top_op = top == AN_NONE ? "" : an_name(v, top);
            C->rows[j].bottom_op = bottom == AN_NONE ? "" : an_name(v, bottom);
        }
        /* per top-level op, in order of first appearance */
        for (size_t j = 0; j < nr; j++) {
            const struct lat_an_cupti_row *row = &C->rows[j];
            struct lat_an_cupti_op *op = NULL;
            for (size_t k = 0; k < C->nops && !op; k++)
                if (!strcmp(C->ops[k].op, row->top_op)) op = &C->ops[k];
            if (!op) {
                op = &C->ops[C->nops++];
                op->op = row->top_op;
            }
            op->kernels++;
            op->flops_sp += row->flops[0];
            op->flops_dp += row->flops[1];
            op->flops_hp += row->flops[2];
            op->dram_bytes += row->dram_bytes;
            op->range_time += row->dur;
        }
    }
    rc = 0;
out:
    free(rg);
    free(ln);
    free(ops);
    return rc;
}

void an_cupti_fini(struct lat_an_cupti *C)
{
    free(C->rows);
    free(C->ops);
    memset(C, 0, sizeof(*C));
}
