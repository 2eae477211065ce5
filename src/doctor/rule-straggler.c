/*
 * rule-straggler.c - ranks of a multi-rank job that hold the others back (docs/latscope-doctor.md,
 * "Across ranks").
 *
 * The rule itself runs per trace (DOC_HAVE_RANKS: a rank with ProfilerSteps of a job of 3+
 * rank traces) and only records that rank's steps: number, wall time and the communication
 * kernel time inside the step (in a synchronous collective that is mostly waiting for the
 * slowest peer). doctor_cross_rank() judges them once every rank ran, so a job of thousands of
 * ranks costs a few numbers per step, never a trace kept in memory.
 *
 * Per rank, three per-step means: the step time, the communication wait, and the work (step
 * minus communication: the time before the rank reaches the collectives). A rank is an outlier
 * in one of them when it is more than 3 scaled MADs (1.4826 x the median absolute deviation
 * over the ranks, a robust sigma) and more than 5 % above the median rank's, the test analyze's
 * cross-rank table uses (src/analyze/ranks.c); --threshold straggler_sigmas=, straggler_pct=
 * change doctor's (analyze's table keeps 3 and 5). A high step time or a high work time makes a
 * straggler-rank finding: in a synchronous job the others wait for it in every collective, so
 * the excess over the median is what the job would save per step (an upper bound); a high
 * communication wait makes a comm-wait-rank finding (a slow link or a peer it alone waits for).
 * The step named is the one where the rank is furthest above the median of the ranks at that
 * same step number.
 */
#include "core/err.h"
#include "core/grow.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"
#include "doctor/shell.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRAG_MAX_RANK 8 /* findings per kind; the evidence names how many more */

DOC_RULE(straggler)
{
    struct doc_report *r = c->r;
    int rc = LAT_GROW(r->ranks, r->ranks_cap, r->nranks, 1, 16);
    if (rc) {
        r->err = rc;
        return;
    }
    struct doc_rank_steps *q = &r->ranks[r->nranks];
    memset(q, 0, sizeof(*q));
    q->trace = c->trace;
    q->rank = c->t->rank;
    q->num = malloc(c->nsteps * sizeof(*q->num));
    q->dur = malloc(c->nsteps * sizeof(*q->dur));
    q->comm = malloc(c->nsteps * sizeof(*q->comm));
    const char *arg = doc_trace_arg(c);
    q->trace_arg = strdup(arg);
    r->nranks++; /* freed with the report from here on */
    if (!q->num || !q->dur || !q->comm || !q->trace_arg) {
        r->err = -ENOMEM;
        return;
    }
    for (size_t i = 0; i < c->nsteps; i++) {
        const struct doc_step *s = &c->steps[i];
        q->num[i] = s->num;
        q->dur[i] = s->end - s->ts;
        q->comm[i] = lat_ivl_measure_in(&c->comm, s->ts, s->end);
    }
    q->n = c->nsteps;
}

enum { M_STEP, M_COMM, M_WORK, M_COUNT };

static double metric(const struct doc_rank_steps *q, size_t i, int m)
{
    switch (m) {
    case M_STEP:
        return (double)q->dur[i];
    case M_COMM:
        return (double)q->comm[i];
    default:
        return (double)(q->dur[i] - q->comm[i]);
    }
}

static double mean_of(const struct doc_rank_steps *q, int m)
{
    double s = 0;
    for (size_t i = 0; i < q->n; i++)
        s += metric(q, i, m);
    return q->n ? s / (double)q->n : 0;
}

/* Median of x[0..n) (sorts x). */
static double median(double *x, size_t n)
{
    qsort(x, n, sizeof(*x), lat_cmp_f64);
    return lat_median_f64(x, n);
}

struct strag {
    size_t q;      /* index into report->ranks */
    double excess; /* ns per step over the median rank */
};

static int cmp_strag(const void *a, const void *b)
{
    const struct strag *x = a, *y = b;
    return x->excess > y->excess ? -1 : x->excess < y->excess;
}

/* The step where rank q is furthest above the median of the ranks at the same step number:
 * its number, its value and that median. -ENOMEM or 0. */
static int worst_step(const struct doc_report *r, size_t q, int m, int32_t *num, double *val,
                      double *med)
{
    const struct doc_rank_steps *a = &r->ranks[q];
    double *v = malloc(r->nranks * sizeof(*v));
    if (!v) return -ENOMEM;
    double best = -INFINITY;
    *num = -1;
    *val = *med = 0;
    for (size_t i = 0; i < a->n; i++) {
        size_t k = 0;
        for (size_t j = 0; j < r->nranks; j++)
            for (size_t s = 0; s < r->ranks[j].n; s++)
                if (r->ranks[j].num[s] == a->num[i]) {
                    v[k++] = metric(&r->ranks[j], s, m);
                    break;
                }
        double md = median(v, k), x = metric(a, i, m);
        if (x - md > best) {
            best = x - md;
            *num = a->num[i];
            *val = x;
            *med = md;
        }
    }
    free(v);
    return 0;
}

static void fmt_ms(double ns, char *b, size_t n)
{
    doc_fmt_ns((lat_ns)llround(ns), b, n);
}

static void add_finding(struct doc_report *r, size_t qi, int m, double excess, double med,
                        double sigma, double *const means[M_COUNT], size_t nstrag,
                        const struct strag *all, size_t judged)
{
    const struct doc_rank_steps *q = &r->ranks[qi];
    const char *id = m == M_COMM ? "comm-wait-rank" : "straggler-rank";
    struct doc_finding *f = doc_finding_add(r, id, q->trace);
    if (!f) return;
    double step_mean = means[M_STEP][qi];
    doc_saving(f, (lat_ns)llround(excess), (lat_ns)llround(step_mean));
    int32_t num;
    double val, smed;
    if (worst_step(r, qi, m, &num, &val, &smed)) {
        r->err = -ENOMEM;
        return;
    }
    char b1[32], b2[32], b3[32], b4[32];
    fmt_ms(excess, b1, sizeof(b1));
    fmt_ms(med, b2, sizeof(b2));
    fmt_ms(val, b3, sizeof(b3));
    fmt_ms(smed, b4, sizeof(b4));
    double pct = med > 0 ? 100.0 * excess / med : 0;
    if (m == M_STEP)
        doc_set(r, &f->title,
                "Rank %d is a straggler: its steps take %s longer than the median rank's %s "
                "(+%.1f %%); worst at step %d (%s vs %s)",
                (int)q->rank, b1, b2, pct, (int)num, b3, b4);
    else if (m == M_WORK)
        doc_set(r, &f->title,
                "Rank %d is a straggler: it works %s longer per step than the median rank "
                "(%s, +%.1f %%) and the others wait for it in communication; worst at step %d "
                "(%s vs %s)",
                (int)q->rank, b1, b2, pct, (int)num, b3, b4);
    else
        doc_set(r, &f->title,
                "Rank %d waits %s longer per step in communication than the median rank (%s, "
                "+%.1f %%); worst at step %d (%s vs %s)",
                (int)q->rank, b1, b2, pct, (int)num, b3, b4);
    doc_kv_int(r, f, "rank", q->rank);
    doc_kv_int(r, f, "step", num);
    doc_kv_str(r, f, "measure",
               m == M_STEP   ? "step time"
               : m == M_WORK ? "work (step time minus communication)"
                             : "communication wait");
    doc_kv_us(r, f, "rank_mean_us", (lat_ns)llround(means[m][qi]));
    doc_kv_us(r, f, "median_rank_us", (lat_ns)llround(med));
    doc_kv_us(r, f, "robust_sigma_us", (lat_ns)llround(sigma));
    doc_kv_num(r, f, "excess_pct", pct);
    doc_kv_us(r, f, "worst_step_us", (lat_ns)llround(val));
    doc_kv_us(r, f, "median_at_worst_step_us", (lat_ns)llround(smed));
    doc_kv_int(r, f, "ranks_judged", (int64_t)judged);
    doc_kv_int(r, f, "outlier_ranks", (int64_t)nstrag);
    for (size_t i = 0; i < nstrag && i < STRAG_MAX_RANK; i++) {
        const struct doc_rank_steps *o = &r->ranks[all[i].q];
        doc_row_begin(r, f, "outliers");
        doc_kv_int(r, f, "rank", o->rank);
        doc_kv_us(r, f, "step_us", (lat_ns)llround(means[M_STEP][all[i].q]));
        doc_kv_us(r, f, "comm_us", (lat_ns)llround(means[M_COMM][all[i].q]));
        doc_kv_us(r, f, "work_us", (lat_ns)llround(means[M_WORK][all[i].q]));
        doc_row_end(f);
    }
    if (m == M_COMM) {
        doc_set(r, &f->saving_method,
                "the rank's mean communication kernel time per step minus the median rank's: "
                "what it waits beyond the others; upper bound (part of it may be its own "
                "transfer)");
        doc_set(r, &f->recommendation,
                "A rank that waits alone in the collectives has a slower path or a peer in its "
                "group that is late: check its placement (cross-node vs NVLink/NVSwitch, "
                "NCCL_DEBUG=INFO topology, a degraded NIC or PCIe link), its process group "
                "(pipeline stage, expert-parallel group) and whether it overlaps its "
                "communication with compute.");
    } else {
        doc_set(r, &f->saving_method,
                "the rank's mean %s per step minus the median rank's: in a synchronous job "
                "every rank waits that long for it in the collectives; upper bound (the median "
                "rank's pace)",
                m == M_STEP ? "step time" : "time outside communication");
        doc_set(r, &f->recommendation,
                "Find what makes this rank slow: an uneven data or expert shard (sequence "
                "lengths, MoE routing), a slower or throttled GPU (nvidia-smi -q -d "
                "CLOCK,PERFORMANCE on its host), a busy host CPU or dataloader, or a noisy "
                "neighbour. Balance the work (bucket sequences by length, capacity factors), "
                "move the rank off the bad host, or compare its trace with a median rank's "
                "(latscope diff).");
    }
    doc_set(r, &f->next_step,
            "latscope analyze %s   # step %d of rank %d vs the other ranks (cross-rank table: "
            "latscope analyze DIR)",
            q->trace_arg ? q->trace_arg : "<trace>", (int)num, (int)q->rank);
}

int doctor_cross_rank(struct doc_report *r, const struct doc_opts *o)
{
    if (r->err) return r->err;
    size_t n = 0;
    for (size_t i = 0; i < r->nranks; i++)
        n += r->ranks[i].n > 0;
    if (n < 3) return 0;
    double *means[M_COUNT] = {0}, *tmp = malloc(r->nranks * sizeof(*tmp));
    struct strag *st = malloc(r->nranks * sizeof(*st));
    int rc = tmp && st ? 0 : -ENOMEM;
    for (int m = 0; m < M_COUNT && !rc; m++)
        if (!(means[m] = malloc(r->nranks * sizeof(*means[m])))) rc = -ENOMEM;
    for (size_t i = 0; !rc && i < r->nranks; i++)
        for (int m = 0; m < M_COUNT; m++)
            means[m][i] = mean_of(&r->ranks[i], m);
    bool *flagged = rc ? NULL : calloc(r->nranks, sizeof(*flagged));
    if (!rc && !flagged) rc = -ENOMEM;
    /* step time first, then work: a rank flagged by its step time is not flagged again */
    static const int order[] = {M_STEP, M_WORK, M_COMM};
    for (size_t oi = 0; !rc && oi < sizeof(order) / sizeof(order[0]); oi++) {
        int m = order[oi];
        size_t k = 0;
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].n) tmp[k++] = means[m][i];
        double med = median(tmp, k);
        k = 0;
        for (size_t i = 0; i < r->nranks; i++)
            if (r->ranks[i].n) tmp[k++] = fabs(means[m][i] - med);
        double sigma = 1.4826 * median(tmp, k);
        if (med <= 0) continue;
        size_t ns = 0;
        for (size_t i = 0; i < r->nranks; i++) {
            double ex = means[m][i] - med;
            if (!r->ranks[i].n || ex <= o->th.straggler_sigmas * sigma ||
                100.0 * ex / med <= o->th.straggler_pct)
                continue;
            if (m != M_COMM && flagged[i]) continue;
            st[ns++] = (struct strag){i, ex};
        }
        qsort(st, ns, sizeof(*st), cmp_strag);
        for (size_t j = 0; j < ns && j < STRAG_MAX_RANK && !r->err; j++) {
            add_finding(r, st[j].q, m, st[j].excess, med, sigma, means, ns, st, n);
            struct doc_finding *f = r->err ? NULL : &r->f[r->n - 1];
            if (f && f->severity == DOC_SEV_LOW && f->saving_pct < o->th.min_saving_pct)
                f->severity = DOC_SEV_INFO; /* as doctor_run() demotes a trace's findings */
            if (m != M_COMM) flagged[st[j].q] = true;
        }
    }
    free(flagged);
    for (int m = 0; m < M_COUNT; m++)
        free(means[m]);
    free(tmp);
    free(st);
    if (rc && !r->err) r->err = rc;
    return r->err;
}
