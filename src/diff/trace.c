/*
 * trace.c - `latscope diff` on traces: HTA TraceDiff's per-name counts and durations
 * (analyses.md §12), then the per-step breakdown with a Welch interval over steps, the temporal
 * breakdown and the idle categories, all from the analyze field tables (analyze/render.h).
 */
#include "diff/diff.h"
#include "diff/internal.h"

#include "analyze/analysis.h"
#include "analyze/cpu.h"
#include "analyze/ort.h"
#include "analyze/render.h"
#include "core/err.h"
#include "core/grow.h"
#include "doctor/doctor.h"
#include "model/events.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diff_trace_opts_default(struct diff_trace_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->rank = -1;
    o->conf = 0.95;
}

/* ---- per-name aggregation ---- */

struct agg {
    struct diff_trace_result *r;
    uint32_t *slot;  /* open addressing: op index + 1, 0 = empty */
    size_t cap;      /* power of two */
    char nbuf[4096]; /* a normalised name */
};

static uint64_t hash_name(const char *s, bool gpu)
{
    uint64_t h = 1469598103934665603ULL ^ (gpu ? 0x9e37 : 0);
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static const char *pool_name(const struct diff_trace_result *r, const struct diff_op *op)
{
    return r->pool + (size_t)(uintptr_t)op->name;
}

static int agg_grow(struct agg *g)
{
    size_t cap = g->cap ? g->cap * 2 : 1024;
    uint32_t *s = calloc(cap, sizeof(*s));
    if (!s) return -ENOMEM;
    for (size_t i = 0; i < g->r->nops; i++) {
        const struct diff_op *op = &g->r->ops[i];
        size_t h = hash_name(pool_name(g->r, op), op->gpu) & (cap - 1);
        while (s[h])
            h = (h + 1) & (cap - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(g->slot);
    g->slot = s;
    g->cap = cap;
    return 0;
}

/* The op of (name, gpu), created when new. NULL on -ENOMEM. */
static struct diff_op *agg_get(struct agg *g, const char *name, bool gpu)
{
    if (g->r->nops * 2 >= g->cap && agg_grow(g)) return NULL;
    struct diff_trace_result *r = g->r;
    size_t h = hash_name(name, gpu) & (g->cap - 1);
    while (g->slot[h]) {
        struct diff_op *op = &r->ops[g->slot[h] - 1];
        if (op->gpu == gpu && strcmp(pool_name(r, op), name) == 0) return op;
        h = (h + 1) & (g->cap - 1);
    }
    size_t len = strlen(name) + 1;
    if (LAT_GROW(r->pool, r->pool_cap, r->pool_len, len, 1 << 16) ||
        LAT_GROW(r->ops, r->ops_cap, r->nops, 1, 256))
        return NULL;
    struct diff_op *op = &r->ops[r->nops];
    memset(op, 0, sizeof(*op));
    op->name = (const char *)(uintptr_t)r->pool_len; /* an offset until the end */
    op->gpu = gpu;
    memcpy(r->pool + r->pool_len, name, len);
    r->pool_len += len;
    g->slot[h] = (uint32_t)++r->nops;
    return op;
}

struct step_span {
    lat_ns ts, end;
    int32_t n;
};

static int cmp_step(const void *x, const void *y)
{
    const struct step_span *a = x, *b = y;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

struct corr_ent {
    int64_t corr;
    uint32_t idx;
};

static int cmp_corr(const void *x, const void *y)
{
    const struct corr_ent *a = x, *b = y;
    if (a->corr != b->corr) return (a->corr > b->corr) - (a->corr < b->corr);
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static bool counted(const struct lat_trace *t, size_t i)
{
    unsigned k = t->ev.kind[i];
    if (t->ev.flags[i] & LAT_EVF_INSTANT) return false;
    return k != LAT_EV_COUNTER && k != LAT_EV_CPU_SAMPLE && k != LAT_EV_INSTANT;
}

static bool iter_wanted(const struct diff_trace_opts *o, int32_t it)
{
    if (!o->iters) return true;
    for (size_t k = 0; k < o->niters; k++)
        if (o->iters[k] == it) return true;
    return false;
}

/* HTA's add_iteration (analyses.md §0 step 5) for every event of t: -2 = none (NaN). */
static int iterations(const struct lat_trace *t, int32_t *iter)
{
    size_t n = t->ev.n, ns = 0, nc = 0;
    for (size_t i = 0; i < n; i++) {
        if (t->ev.flags[i] & LAT_EVF_STEP) ns++;
        if (t->ev.stream[i] < 0 && t->ev.correlation[i] >= 0) nc++;
    }
    struct step_span *st = calloc(ns ? ns : 1, sizeof(*st));
    struct corr_ent *ce = calloc(nc ? nc : 1, sizeof(*ce));
    if (!st || !ce) {
        free(st);
        free(ce);
        return -ENOMEM;
    }
    ns = nc = 0;
    for (size_t i = 0; i < n; i++) {
        if (t->ev.flags[i] & LAT_EVF_STEP)
            st[ns++] = (struct step_span){t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i], t->ev.step[i]};
        if (t->ev.stream[i] < 0 && t->ev.correlation[i] >= 0)
            ce[nc++] = (struct corr_ent){t->ev.correlation[i], (uint32_t)i};
    }
    qsort(st, ns, sizeof(*st), cmp_step);
    qsort(ce, nc, sizeof(*ce), cmp_corr);
    /* CPU rows first (stream < 0, and cpu_ops on stream 0). */
    for (size_t i = 0; i < n; i++) {
        int64_t s = t->ev.stream[i];
        iter[i] = -2;
        if (s < 0 || (s == 0 && t->ev.kind[i] == LAT_EV_CPU_OP)) {
            lat_ns ts = t->ev.ts[i];
            size_t a = 0, b = ns; /* last step with st.ts <= ts */
            while (a < b) {
                size_t m = a + (b - a) / 2;
                if (st[m].ts <= ts)
                    a = m + 1;
                else
                    b = m;
            }
            iter[i] = -1;
            /* steps do not overlap in practice; look back a few for nested ones */
            for (size_t k = a, back = 0; k > 0 && back < 4; k--, back++)
                if (st[k - 1].ts <= ts && ts < st[k - 1].end) {
                    iter[i] = st[k - 1].n;
                    break;
                }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (t->ev.stream[i] <= 0) continue;
        iter[i] = -1;
        int64_t c = t->ev.correlation[i];
        if (c < 0) continue;
        size_t a = 0, b = nc;
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (ce[m].corr < c)
                a = m + 1;
            else
                b = m;
        }
        if (a < nc && ce[a].corr == c) iter[i] = iter[ce[a].idx];
    }
    free(st);
    free(ce);
    return 0;
}

size_t diff_normalize_name(const char *in, char *out, size_t cap)
{
    size_t n = 0, len = strlen(in);
    if (!cap) return 0;
#define PUT(c)                                                                                     \
    do {                                                                                           \
        if (n + 1 < cap) out[n] = (c);                                                             \
        n++;                                                                                       \
    } while (0)
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c == '<' || c == '(') {
            /* template or argument list: kept as "<...>" / "(...)" */
            char open = c, close = c == '<' ? '>' : ')';
            int depth = 0;
            size_t j = i;
            for (; j < len; j++) {
                if (in[j] == open) depth++;
                if (in[j] == close && --depth == 0) break;
            }
            if (j < len) {
                PUT(open);
                PUT('.');
                PUT('.');
                PUT('.');
                PUT(close);
                i = j;
                continue;
            }
        }
        if (c == '#' && i + 1 < len && in[i + 1] >= '0' && in[i + 1] <= '9') {
            /* ProfilerStep#12, "## forward ##" stays */
            size_t j = i + 1;
            while (j < len && in[j] >= '0' && in[j] <= '9')
                j++;
            PUT('#');
            PUT('N');
            i = j - 1;
            continue;
        }
        if (c == '_' && i + 1 < len && in[i + 1] >= '0' && in[i + 1] <= '9') {
            /* a generated numeric suffix at the end (triton_poi_fused_add_0) */
            size_t j = i + 1;
            while (j < len && in[j] >= '0' && in[j] <= '9')
                j++;
            if (j == len) {
                PUT('_');
                PUT('N');
                break;
            }
        }
        PUT(c);
    }
#undef PUT
    out[n < cap ? n : cap - 1] = 0;
    return n;
}

static int count_side(struct agg *g, struct lat_trace *const *tv, size_t n, int side,
                      const struct diff_trace_opts *o, uint64_t *selected)
{
    for (size_t k = 0; k < n; k++) {
        const struct lat_trace *t = tv[k];
        if (o->rank >= 0 && t->rank != o->rank) continue;
        int32_t *iter = NULL;
        if (o->iters) {
            iter = malloc((t->ev.n ? t->ev.n : 1) * sizeof(*iter));
            if (!iter || iterations(t, iter)) {
                free(iter);
                return -ENOMEM;
            }
        }
        /* string id -> op index + 1, per device class: one hash lookup per distinct name */
        size_t nstr = (size_t)t->strs.count + 1;
        uint32_t *memo = calloc(2 * nstr, sizeof(*memo));
        if (!memo) {
            free(iter);
            return -ENOMEM;
        }
        for (size_t i = 0; i < t->ev.n; i++) {
            if (!counted(t, i)) continue;
            if (iter && (iter[i] < 0 || !iter_wanted(o, iter[i]))) continue;
            bool gpu = t->ev.stream[i] != -1;
            if ((o->device == DIFF_DEV_CPU && gpu) || (o->device == DIFF_DEV_GPU && !gpu)) continue;
            uint32_t id = t->ev.name[i];
            uint32_t *m = id < nstr ? &memo[2 * (size_t)id + gpu] : NULL;
            struct diff_op *op;
            if (m && *m) {
                op = &g->r->ops[*m - 1];
            } else {
                const char *name = lat_trace_str(t, id);
                if (o->normalize) {
                    size_t need = diff_normalize_name(name, g->nbuf, sizeof(g->nbuf));
                    if (need >= sizeof(g->nbuf)) need = sizeof(g->nbuf) - 1;
                    (void)need;
                    name = g->nbuf;
                }
                op = agg_get(g, name, gpu);
                if (!op) {
                    free(memo);
                    free(iter);
                    return -ENOMEM;
                }
                if (m) *m = (uint32_t)(op - g->r->ops) + 1;
            }
            op->count[side]++;
            op->dur[side] += t->ev.dur[i];
            (*selected)++;
        }
        free(memo);
        free(iter);
    }
    return 0;
}

static int cmp_op(const void *x, const void *y)
{
    const struct diff_op *a = x, *b = y;
    lat_ns da = a->dur[1] - a->dur[0], db = b->dur[1] - b->dur[0];
    if (da != db) return da < db ? 1 : -1;
    int64_t ca = (int64_t)a->count[1] - (int64_t)a->count[0];
    int64_t cb = (int64_t)b->count[1] - (int64_t)b->count[0];
    if (ca != cb) return ca < cb ? 1 : -1;
    if (a->gpu != b->gpu) return a->gpu ? 1 : -1;
    return strcmp(a->name, b->name);
}

/* ---- analyses: steps, temporal, idle ---- */

static int run_analysis(struct lat_trace *const *tv, size_t n, const struct diff_trace_opts *o,
                        struct lat_analysis **an)
{
    struct analysis_opts ao;
    analysis_opts_default(&ao);
    ao.only_rank = o->rank;
    ao.include_last_step = o->include_last_step;
    return analysis_run(tv, n, &ao, an);
}

/* Per-step values of one numeric column, over the selected ranks and iterations. */
static size_t step_values(const struct lat_analysis *an, const struct lat_an_field *f,
                          const struct diff_trace_opts *o, double *x, size_t cap)
{
    size_t n = 0;
    for (size_t r = 0; r < an->nranks; r++)
        for (size_t s = 0; s < an->ranks[r].nsteps && n < cap; s++) {
            const struct lat_an_step *st = &an->ranks[r].steps[s];
            if (!iter_wanted(o, st->step)) continue;
            x[n++] = lat_an_field_num(f, st);
        }
    return n;
}

static double unit_scale(enum lat_an_unit u, const char **unit)
{
    switch (u) {
    case LAT_AN_U_NS:
    case LAT_AN_U_NS_D:
        *unit = "us";
        return 1e-3;
    case LAT_AN_U_PCT:
        *unit = "%";
        return 1;
    case LAT_AN_U_COUNT:
        *unit = "";
        return 1;
    default:
        *unit = "";
        return 1;
    }
}

static bool numeric_col(const struct lat_an_field *f)
{
    return f->unit == LAT_AN_U_NS || f->unit == LAT_AN_U_NS_D || f->unit == LAT_AN_U_PCT ||
           f->unit == LAT_AN_U_COUNT;
}

static bool all_cpu_only(const struct lat_analysis *an)
{
    for (size_t r = 0; r < an->nranks; r++)
        if (!an->ranks[r].cpu_only) return false;
    return true;
}

static int step_rows(const struct lat_analysis *aa, const struct lat_analysis *ab,
                     const struct diff_trace_opts *o, struct diff_trace_result *out)
{
    size_t cap = 1;
    for (size_t r = 0; r < aa->nranks; r++)
        cap += aa->ranks[r].nsteps;
    for (size_t r = 0; r < ab->nranks; r++)
        cap += ab->ranks[r].nsteps;
    double *xa = malloc(cap * sizeof(double)), *xb = malloc(cap * sizeof(double));
    if (!xa || !xb) {
        free(xa);
        free(xb);
        return -ENOMEM;
    }
    const struct lat_an_table *t = &lat_an_step_table;
    /* Two CPU-only sides: the GPU columns would be rows of zeros (and "idle" the whole step). */
    bool gpu = !all_cpu_only(aa) || !all_cpu_only(ab);
    int rc = 0;
    for (size_t k = 0; k < t->nfields && !rc; k++) {
        const struct lat_an_field *f = &t->fields[k];
        if (!numeric_col(f) || strcmp(f->key, "ts_us") == 0 || strcmp(f->key, "step") == 0)
            continue;
        if (f->gpu && !gpu) continue;
        size_t na = step_values(aa, f, o, xa, cap), nb = step_values(ab, f, o, xb, cap);
        if (k == 0 || strcmp(f->key, "dur_us") == 0) {
            out->steps[0] = na;
            out->steps[1] = nb;
        }
        if (!na || !nb) continue;
        struct diff_row *row = diff_new_row(&out->scal);
        if (!row) {
            rc = -ENOMEM;
            break;
        }
        const char *unit;
        double sc = unit_scale(f->unit, &unit);
        row->load = "steps";
        snprintf(row->key, sizeof(row->key), "step.%s", f->key);
        snprintf(row->label, sizeof(row->label), "step %s (mean)", f->label);
        row->unit = unit;
        row->lower_better = true;
        double ma, sa, mb, sb;
        dstat_mean_sd(xa, na, &ma, &sa);
        dstat_mean_sd(xb, nb, &mb, &sb);
        row->before = ma * sc;
        row->after = mb * sc;
        row->ci = dstat_welch(ma * sc, sa * sc, (double)na, mb * sc, sb * sc, (double)nb, o->conf);
        if (!row->ci.have) row->ci.why = "fewer than 2 steps on a side";
        row->method = row->ci.have ? "welch-steps" : "none";
        diff_row_finish(row, 0);
        if (strcmp(f->key, "dur_us") == 0) {
            double sa_tot = 0, sb_tot = 0;
            for (size_t i = 0; i < na; i++)
                sa_tot += xa[i];
            for (size_t i = 0; i < nb; i++)
                sb_tot += xb[i];
            out->step_total_delta_ns = sb_tot - sa_tot;
        }
    }
    free(xa);
    free(xb);
    return rc;
}

static int scalar_row(struct diff_trace_result *out, const char *section,
                      const struct lat_an_field *f, double a, double b)
{
    struct diff_row *row = diff_new_row(&out->scal);
    if (!row) return -ENOMEM;
    const char *unit;
    double sc = unit_scale(f->unit, &unit);
    row->load = section;
    snprintf(row->key, sizeof(row->key), "%s.%s", section, f->key);
    snprintf(row->label, sizeof(row->label), "%s %s", section, f->label);
    row->unit = unit;
    row->lower_better = strstr(f->key, "idle") != NULL || strstr(f->key, "non_compute") != NULL ||
                        strcmp(section, "idle") == 0;
    row->before = a * sc;
    row->after = b * sc;
    row->ci.why = "one value per trace (the step rows carry the per-step interval)";
    row->method = "none";
    diff_row_finish(row, 0);
    return 0;
}

static int breakdown_rows(const struct lat_analysis *aa, const struct lat_analysis *ab,
                          struct diff_trace_result *out)
{
    int rc = 0;
    const struct lat_an_table *t = &lat_an_temporal_table;
    if (aa->whole.temporal.valid && ab->whole.temporal.valid) {
        for (size_t k = 0; k < t->nfields && !rc; k++) {
            const struct lat_an_field *f = &t->fields[k];
            if (!numeric_col(f)) continue;
            rc = scalar_row(out, "temporal", f, lat_an_field_num(f, &aa->whole.temporal),
                            lat_an_field_num(f, &ab->whole.temporal));
        }
    } else if (!rc) {
        rc = diff_note(&out->scal, "temporal breakdown: %s",
                       aa->whole.temporal.valid   ? "after has no GPU kernels"
                       : ab->whole.temporal.valid ? "before has no GPU kernels"
                                                  : "neither trace has GPU kernels (CPU-only: no "
                                                    "GPU rows)");
    }
    /* Idle time per category, summed over streams and ranks (the NS columns of the table). */
    t = &lat_an_idle_table;
    for (size_t k = 0; k < t->nfields && !rc; k++) {
        const struct lat_an_field *f = &t->fields[k];
        if (f->unit != LAT_AN_U_NS) continue;
        double sa = 0, sb = 0;
        size_t na = 0, nb = 0;
        for (size_t r = 0; r < aa->nranks; r++)
            for (size_t s = 0; s < aa->ranks[r].nidle; s++, na++)
                sa += lat_an_field_num(f, &aa->ranks[r].idle[s]);
        for (size_t r = 0; r < ab->nranks; r++)
            for (size_t s = 0; s < ab->ranks[r].nidle; s++, nb++)
                sb += lat_an_field_num(f, &ab->ranks[r].idle[s]);
        if (na && nb) rc = scalar_row(out, "idle", f, sa, sb);
    }
    return rc;
}

/* ---- doctor findings ---- */

static int doctor_side(struct lat_trace *const *tv, size_t n, const struct diff_trace_opts *o,
                       struct doc_report **out)
{
    struct doc_opts dopt;
    doctor_opts_default(&dopt);
    int rc = doctor_report_new(out);
    for (size_t k = 0; k < n && !rc; k++)
        if (o->rank < 0 || tv[k]->rank == o->rank) rc = doctor_run(*out, tv[k], &dopt);
    if (!rc) doctor_rank(*out);
    return rc;
}

static int compare_findings(struct lat_trace *const *a, size_t na, struct lat_trace *const *b,
                            size_t nb, const struct diff_trace_opts *o,
                            struct diff_trace_result *out)
{
    struct doc_report *ra = NULL, *rb = NULL;
    int rc = doctor_side(a, na, o, &ra);
    if (!rc) rc = doctor_side(b, nb, o, &rb);
    /* one trace per side: its findings match whatever its rank is called */
    bool single = !rc && ra->ntraces == 1 && rb->ntraces == 1;
    for (int side = 0; side < 2 && !rc; side++) {
        const struct doc_report *r = side ? rb : ra;
        for (size_t k = 0; k < r->ntraces; k++)
            if (r->traces[k].steps_real) out->doc_steps[side] += r->traces[k].nsteps;
    }
    if (!rc)
        rc = diff_findings_match(ra, rb, single, &out->findings, &out->nfindings,
                                 &out->findings_cap);
    doctor_report_free(ra);
    doctor_report_free(rb);
    return rc;
}

/* ---- CPU samples: per-function share of on-CPU samples ---- */

struct cpu_ent {
    const char *name; /* points into a summary */
    uint64_t self, total, depth_sum;
    int side;
};

static int cmp_cpu_ent(const void *x, const void *y)
{
    const struct cpu_ent *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : a->side - b->side;
}

static double share_delta(const struct diff_trace_result *r, const uint64_t *k)
{
    double pa = r->cpu_samples[0] ? (double)k[0] / (double)r->cpu_samples[0] : 0;
    double pb = r->cpu_samples[1] ? (double)k[1] / (double)r->cpu_samples[1] : 0;
    return pb - pa;
}

static int cmp_cpu_func(const void *x, const void *y, void *ctx)
{
    const struct diff_trace_result *cpu_sort_ctx = ctx;
    const struct diff_cpu_func *a = x, *b = y;
    double da = share_delta(cpu_sort_ctx, a->total), db = share_delta(cpu_sort_ctx, b->total);
    if (da != db) return da < db ? 1 : -1;
    da = share_delta(cpu_sort_ctx, a->self);
    db = share_delta(cpu_sort_ctx, b->self);
    if (da != db) return da < db ? 1 : -1;
    return strcmp(a->name, b->name);
}

int diff_cpu_rows(const struct lat_cpu_summary *sum, size_t na, size_t nb, double conf,
                  struct diff_trace_result *out)
{
    size_t nt = na + nb, nent = 0;
    int rc = 0;
    for (size_t k = 0; k < nt; k++) {
        out->cpu_samples[k < na ? 0 : 1] += sum[k].samples;
        nent += sum[k].nfuncs;
    }
    struct cpu_ent *ent = NULL;
    if (out->cpu_samples[0] + out->cpu_samples[1] && nent) {
        ent = malloc(nent * sizeof(*ent));
        if (!ent) rc = -ENOMEM;
    }
    if (ent) {
        size_t n = 0, bytes = 0;
        for (size_t k = 0; k < nt; k++)
            for (size_t i = 0; i < sum[k].nfuncs; i++) {
                const struct lat_cpu_func *f = &sum[k].funcs[i];
                ent[n++] =
                    (struct cpu_ent){f->name, f->self, f->total, f->depth_sum, k < na ? 0 : 1};
                bytes += strlen(f->name) + 1;
            }
        qsort(ent, n, sizeof(*ent), cmp_cpu_ent);
        out->cpu = calloc(n, sizeof(*out->cpu));
        out->cpu_pool = malloc(bytes);
        if (!out->cpu || !out->cpu_pool) {
            rc = -ENOMEM;
        } else {
            size_t used = 0;
            for (size_t i = 0; i < n; i++) {
                struct diff_cpu_func *d = out->ncpu ? &out->cpu[out->ncpu - 1] : NULL;
                if (!d || strcmp(d->name, ent[i].name) != 0) {
                    d = &out->cpu[out->ncpu++];
                    size_t len = strlen(ent[i].name) + 1;
                    memcpy(out->cpu_pool + used, ent[i].name, len);
                    d->name = out->cpu_pool + used;
                    used += len;
                }
                d->self[ent[i].side] += ent[i].self;
                d->total[ent[i].side] += ent[i].total;
                d->depth_sum[ent[i].side] += ent[i].depth_sum;
            }
            for (size_t i = 0; i < out->ncpu; i++) {
                struct diff_cpu_func *d = &out->cpu[i];
                d->ci_self = dstat_prop_diff(d->self[0], out->cpu_samples[0], d->self[1],
                                             out->cpu_samples[1], conf);
                d->ci_total = dstat_prop_diff(d->total[0], out->cpu_samples[0], d->total[1],
                                              out->cpu_samples[1], conf);
                if (!d->ci_total.have)
                    d->ci_self.why = d->ci_total.why = "no CPU samples on a side";
            }
            qsort_r(out->cpu, out->ncpu, sizeof(*out->cpu), cmp_cpu_func, out);
        }
    }
    free(ent);
    return rc;
}

/* Summarizes the CPU samples of every selected trace of both sides (lat_cpu_summarize, all
 * functions), then compares them (diff_cpu_rows). Sides without samples leave the table
 * empty. */
static int cpu_rows(struct lat_trace *const *a, size_t na, struct lat_trace *const *b, size_t nb,
                    const struct diff_trace_opts *o, struct diff_trace_result *out)
{
    size_t nt = na + nb;
    struct lat_cpu_summary *sum = calloc(nt ? nt : 1, sizeof(*sum));
    if (!sum) return -ENOMEM;
    int rc = 0;
    struct lat_cpu_opts co = {.top_n = SIZE_MAX, .tid = -1};
    for (size_t k = 0; k < nt && !rc; k++) {
        const struct lat_trace *t = k < na ? a[k] : b[k - na];
        if (o->rank >= 0 && t->rank != o->rank) continue;
        rc = lat_cpu_summarize(t, &co, &sum[k]);
    }
    if (!rc) rc = diff_cpu_rows(sum, na, nb, o->conf, out);
    for (size_t k = 0; k < nt; k++)
        lat_cpu_summary_fini(&sum[k]);
    free(sum);
    if (!rc && (out->cpu_samples[0] != 0) != (out->cpu_samples[1] != 0))
        rc = diff_note(&out->scal, "CPU samples only in the %s trace: no per-function comparison",
                       out->cpu_samples[0] ? "before" : "after");
    if (!rc && o->iters && out->ncpu)
        rc = diff_note(&out->scal, "the CPU sample rows cover the whole traces (--iteration does "
                                   "not select samples)");
    return rc;
}

/* ---- ONNX Runtime profiles: model_run over runs, Σ time per op type ---- */

/* The model_run durations (ns, as double) of an ORT trace after its first run (the first holds
 * one-time work), in x (cap entries). */
static size_t ort_runs(const struct lat_trace *t, double *x, size_t cap)
{
    size_t n = 0, seen = 0;
    for (size_t i = 0; i < t->ev.n && n < cap; i++) {
        if (!(t->ev.flags[i] & LAT_EVF_STEP) || t->ev.kind[i] != LAT_EV_USER_ANNOTATION) continue;
        if (seen++ == 0) continue;
        x[n++] = (double)t->ev.dur[i];
    }
    return n;
}

static const struct lat_trace *ort_side(struct lat_trace *const *tv, size_t n,
                                        const struct diff_trace_opts *o)
{
    for (size_t k = 0; k < n; k++)
        if ((o->rank < 0 || tv[k]->rank == o->rank) && lat_ort_is(tv[k])) return tv[k];
    return NULL;
}

static int cmp_ort_row(const void *x, const void *y)
{
    const struct diff_row *a = x, *b = y;
    if (a->delta != b->delta) return a->delta < b->delta ? 1 : -1;
    return strcmp(a->key, b->key);
}

/* Rows of section "onnxruntime" when both sides are ORT profiles: the steady model_run time
 * (Welch over the runs after the first) and Σ time per op type (args.op_name; one value per
 * trace), op types by change, largest increase first. */
static int ort_rows(struct lat_trace *const *a, size_t na, struct lat_trace *const *b, size_t nb,
                    const struct diff_trace_opts *o, struct diff_trace_result *out)
{
    const struct lat_trace *ta = ort_side(a, na, o), *tb = ort_side(b, nb, o);
    if (!ta || !tb) return 0;
    size_t cap = ta->ev.n + tb->ev.n + 1;
    double *xa = malloc(cap * sizeof(double)), *xb = malloc(cap * sizeof(double));
    struct lat_ort_summary sa, sb;
    memset(&sa, 0, sizeof(sa));
    memset(&sb, 0, sizeof(sb));
    int rc = xa && xb ? 0 : -ENOMEM;
    if (!rc) rc = lat_ort_summarize(ta, 1000000, &sa);
    if (!rc) rc = lat_ort_summarize(tb, 1000000, &sb);
    if (!rc) {
        size_t nra = ort_runs(ta, xa, cap), nrb = ort_runs(tb, xb, cap);
        if (nra && nrb) {
            struct diff_row *row = diff_new_row(&out->scal);
            if (!row) rc = -ENOMEM;
            if (row) {
                double ma, sda, mb, sdb;
                dstat_mean_sd(xa, nra, &ma, &sda);
                dstat_mean_sd(xb, nrb, &mb, &sdb);
                row->load = "onnxruntime";
                snprintf(row->key, sizeof(row->key), "ort.run_us");
                snprintf(row->label, sizeof(row->label), "model_run (mean, after the first)");
                row->unit = "us";
                row->lower_better = true;
                row->before = ma * 1e-3;
                row->after = mb * 1e-3;
                row->ci = dstat_welch(ma * 1e-3, sda * 1e-3, (double)nra, mb * 1e-3, sdb * 1e-3,
                                      (double)nrb, o->conf);
                if (!row->ci.have) row->ci.why = "fewer than 2 runs after the first on a side";
                row->method = row->ci.have ? "welch-runs" : "none";
                diff_row_finish(row, 0);
            }
        }
    }
    size_t first = out->scal.nrows;
    for (int side = 0; side < 2 && !rc; side++) {
        const struct lat_ort_summary *s = side ? &sb : &sa;
        for (size_t i = 0; i < s->nop_types && !rc; i++) {
            const struct lat_ort_row *r = &s->op_types[i];
            char key[32];
            snprintf(key, sizeof(key), "ort.op.%s", r->name);
            struct diff_row *row = NULL;
            for (size_t k = first; k < out->scal.nrows && !row; k++)
                if (!strcmp(out->scal.rows[k].key, key)) row = &out->scal.rows[k];
            if (!row) {
                row = diff_new_row(&out->scal);
                if (!row) {
                    rc = -ENOMEM;
                    break;
                }
                row->load = "onnxruntime op types";
                memcpy(row->key, key, sizeof(key));
                snprintf(row->label, sizeof(row->label), "%s (total)", r->name);
                row->unit = "us";
                row->lower_better = true;
                row->ci.why = "one value per trace (the model_run row carries the interval)";
                row->method = "none";
            }
            if (side)
                row->after = (double)r->total * 1e-3;
            else
                row->before = (double)r->total * 1e-3;
        }
    }
    if (!rc) {
        for (size_t k = first; k < out->scal.nrows; k++)
            diff_row_finish(&out->scal.rows[k], 0);
        if (out->scal.nrows > first)
            qsort(out->scal.rows + first, out->scal.nrows - first, sizeof(*out->scal.rows),
                  cmp_ort_row);
    }
    lat_ort_summary_fini(&sa);
    lat_ort_summary_fini(&sb);
    free(xa);
    free(xb);
    return rc;
}

int diff_trace_compare(struct lat_trace *const *a, size_t na, struct lat_trace *const *b, size_t nb,
                       const struct diff_trace_opts *o, struct diff_trace_result *out, char *err,
                       size_t errsz)
{
    memset(out, 0, sizeof(*out));
    out->step_total_delta_ns = NAN;
    struct agg g = {.r = out};
    uint64_t sel[2] = {0, 0};
    int rc = count_side(&g, a, na, 0, o, &sel[0]);
    if (!rc) rc = count_side(&g, b, nb, 1, o, &sel[1]);
    free(g.slot);
    if (rc) goto fail;
    /* CPU samples (latscope trace --cpu) are not events of the per-name table: a trace of
     * samples only compares by function */
    if (o->device != DIFF_DEV_GPU && (rc = cpu_rows(a, na, b, nb, o, out))) goto fail;
    if (!sel[0] && !sel[1] && !out->cpu_samples[0] && !out->cpu_samples[1]) {
        if (err)
            snprintf(err, errsz,
                     "neither trace has an event for the selection (rank %d%s, device %s): check "
                     "--rank / --iteration",
                     o->rank, o->iters ? ", iterations given" : "",
                     o->device == DIFF_DEV_CPU   ? "cpu"
                     : o->device == DIFF_DEV_GPU ? "gpu"
                                                 : "all");
        rc = LAT_E_USAGE;
        goto fail;
    }
    for (size_t i = 0; i < out->nops; i++)
        out->ops[i].name = pool_name(out, &out->ops[i]);
    if ((!sel[0]) != (!sel[1]))
        rc = diff_note(&out->scal, "the %s trace has no event for the selection",
                       sel[0] ? "after" : "before");
    if (rc) goto fail;

    struct lat_analysis *aa = NULL, *ab = NULL;
    rc = run_analysis(a, na, o, &aa);
    if (!rc) rc = run_analysis(b, nb, o, &ab);
    if (rc == 0) {
        rc = step_rows(aa, ab, o, out);
        if (!rc) rc = breakdown_rows(aa, ab, out);
        if (!rc && aa->warning[0]) rc = diff_note(&out->scal, "before: %s", aa->warning);
        if (!rc && ab->warning[0]) rc = diff_note(&out->scal, "after: %s", ab->warning);
    } else if (rc != -ENOMEM) {
        /* e.g. --rank that one side lacks: the per-name table still stands */
        rc = diff_note(&out->scal, "no step / breakdown comparison: %s", lat_strerror(rc));
    }
    analysis_free(aa);
    analysis_free(ab);
    if (!rc) rc = ort_rows(a, na, b, nb, o, out);
    if (!rc) rc = compare_findings(a, na, b, nb, o, out);
    if (rc) goto fail;

    for (size_t i = 0; i < out->nops; i++) {
        struct diff_op *op = &out->ops[i];
        op->change = op->count[1] > op->count[0] ? '+' : op->count[1] < op->count[0] ? '-' : '=';
        op->status = !op->count[0]                 ? "added"
                     : !op->count[1]               ? "deleted"
                     : op->count[1] > op->count[0] ? "increased"
                     : op->count[1] < op->count[0] ? "decreased"
                                                   : "unchanged";
        double d = (double)(op->dur[1] - op->dur[0]);
        op->step_share = isnan(out->step_total_delta_ns) || out->step_total_delta_ns == 0
                             ? NAN
                             : d / out->step_total_delta_ns;
    }
    if (out->nops) qsort(out->ops, out->nops, sizeof(*out->ops), cmp_op);
    return 0;
fail:
    diff_trace_result_fini(out);
    return rc;
}

void diff_trace_result_fini(struct diff_trace_result *r)
{
    free(r->cpu);
    free(r->cpu_pool);
    free(r->findings);
    free(r->ops);
    free(r->pool);
    diff_bench_result_fini(&r->scal);
    memset(r, 0, sizeof(*r));
}
