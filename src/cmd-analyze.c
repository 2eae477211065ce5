/*
 * cmd-analyze.c - `latscope analyze`: where the time goes in a PyTorch/Kineto or Chrome trace.
 *
 * Loads every TRACE (a file, or a directory of per-rank files) with the ingest readers, treats
 * them together as the ranks of one job (HTA's rank alignment and last-step filtering apply
 * across them), runs analysis_run() and prints a compact text report or one JSON document
 * (docs/analyze-json.md). Metadata values are never printed. Progress goes to stderr only
 * when it is a TTY and the load has taken more than a second.
 */
#define PR_FMT "analyze"
#include "analyze/analysis.h"
#include "analyze/cpu.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/units.h"
#include "ingest/ingest.h"
#include "latscope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "usage: latscope analyze [OPTIONS] TRACE|DIR...\n"
    "\n"
    "Where the time goes in PyTorch profiler (Kineto) and Chrome traces: temporal and idle\n"
    "breakdowns, kernel types, comm/compute overlap, launch statistics, steps, top operators,\n"
    "memory copies, synchronisations and queue length. Several TRACEs (or a DIR of per-rank\n"
    "files) are analysed as the ranks of one job. Numbers follow Holistic Trace Analysis.\n"
    "\n"
    "options:\n"
    "  --format text|json    output format (default text)\n"
    "  --hta-compat          HTA-identical numbers where latscope differs (launch stats count\n"
    "                        only CUDA/MTIA launches; Triton cpu_ops with args.stream are GPU "
    "rows)\n"
    "  --rank N              analyse only rank N\n"
    "  --top N               rows in the top-N tables (default 10)\n"
    "  --include-last-step   keep the last (incomplete) ProfilerStep\n"
    "  --no-ns-rounding      keep ns timestamps exact (HTA_DISABLE_NS_ROUNDING=1)\n"
    "  --threads N           threads for loading rank files and for the analyses, 1..8\n"
    "                        (default: one per CPU; 1: all on one thread, gzip too); the\n"
    "                        numbers do not depend on it\n"
    "  --pretty              indent the JSON\n"
    "  -h, --help            this help\n";

struct progress {
    bool enabled, shown;
    lat_ns start;
    const char *what;
};

static void progress_line(struct progress *p, const char *msg)
{
    if (!p->enabled) return;
    if (!p->shown && clock_now_ns() - p->start < LAT_NS_PER_S) return;
    p->shown = true;
    fprintf(stderr, "\r\033[Kanalyze: %s", msg);
    fflush(stderr);
}

static void on_read(void *ctx, uint64_t done, uint64_t total)
{
    char msg[64];
    if (total)
        snprintf(msg, sizeof(msg), "reading %.0f/%.0f MB", (double)done / 1e6, (double)total / 1e6);
    else
        snprintf(msg, sizeof(msg), "reading %.0f MB", (double)done / 1e6);
    progress_line(ctx, msg);
}

static void on_analyze(void *ctx, double f)
{
    char msg[64];
    snprintf(msg, sizeof(msg), "analysing %.0f%%", 100.0 * f);
    progress_line(ctx, msg);
}

static void progress_done(struct progress *p)
{
    if (p->shown) fprintf(stderr, "\r\033[K");
    p->shown = false;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void j_us(struct jsonw *w, const char *k, lat_ns ns)
{
    jsonw_key(w, k);
    jsonw_ns_as_us(w, ns);
}

static void j_pct(struct jsonw *w, const char *k, double v)
{
    jsonw_key(w, k);
    jsonw_fixed(w, v, 4);
}

static void j_dist_us(struct jsonw *w, const char *k, const struct lat_dist *d)
{
    jsonw_key(w, k);
    jsonw_obj_begin(w);
    jsonw_key(w, "count");
    jsonw_u64(w, d->count);
    const double v[] = {d->mean, d->std, d->min, d->p25, d->p50, d->p75, d->p90, d->p99, d->max};
    const char *names[] = {"mean", "std", "min", "p25", "p50", "p75", "p90", "p99", "max"};
    for (int i = 0; i < 9; i++) {
        jsonw_key(w, names[i]);
        if (d->count)
            jsonw_fixed(w, v[i] / 1000.0, 3);
        else
            jsonw_null(w);
    }
    jsonw_obj_end(w);
}

/* ---- CPU samples (latscope trace --cpu) ---------------------------------------------------- */

static bool has_cpu_samples(const struct lat_trace *t)
{
    for (size_t i = 0; t && i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_CPU_SAMPLE) return true;
    return false;
}

/* Summary of a rank's CPU samples over its whole trace; false (nothing to show) when the trace
 * has none or on error (a warning). */
static bool cpu_summary(const struct lat_an_rank *r, size_t top_n, struct lat_cpu_summary *s)
{
    if (!r->trace || !has_cpu_samples(r->trace)) return false;
    struct lat_cpu_opts o = {.top_n = top_n ? top_n : 10, .tid = -1};
    int rc = lat_cpu_summarize(r->trace, &o, s);
    if (rc) {
        pr_warn("rank %d: CPU samples not summarized: %s\n", r->rank, lat_strerror(rc));
        return false;
    }
    return true;
}

static double share(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* The "cpu" object of a rank (docs/analyze-json.md). */
static void j_cpu(struct jsonw *w, const struct lat_cpu_summary *s)
{
    jsonw_key(w, "cpu");
    jsonw_obj_begin(w);
    jsonw_key(w, "samples");
    jsonw_u64(w, s->samples);
    jsonw_key(w, "period_us");
    if (s->period_ns)
        jsonw_ns_as_us(w, s->period_ns);
    else
        jsonw_null(w);
    j_us(w, "on_cpu_us", (lat_ns)s->samples * s->period_ns);
    jsonw_key(w, "off_cpu_intervals");
    jsonw_u64(w, s->off_intervals);
    j_us(w, "off_cpu_us", s->off_ns);
    jsonw_key(w, "distinct_functions");
    jsonw_u64(w, s->distinct_funcs);
    jsonw_key(w, "distinct_stacks");
    jsonw_u64(w, s->distinct_stacks);
    for (int k = 0; k < 2; k++) {
        const struct lat_cpu_func *f = k ? s->funcs_total : s->funcs;
        size_t n = k ? s->nfuncs_total : s->nfuncs;
        jsonw_key(w, k ? "top_functions_total" : "top_functions_self");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "function");
            jsonw_str(w, f[i].name);
            jsonw_key(w, "self");
            jsonw_u64(w, f[i].self);
            j_pct(w, "self_share", share(f[i].self, s->samples));
            jsonw_key(w, "total");
            jsonw_u64(w, f[i].total);
            j_pct(w, "total_share", share(f[i].total, s->samples));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    jsonw_key(w, "top_stacks");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nstacks; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "stack");
        jsonw_str(w, s->stacks[i].stack);
        jsonw_key(w, "samples");
        jsonw_u64(w, s->stacks[i].samples);
        j_pct(w, "share", share(s->stacks[i].samples, s->samples));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "threads");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct lat_cpu_thread *t = &s->threads[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "pid");
        jsonw_i64(w, t->pid);
        jsonw_key(w, "tid");
        jsonw_i64(w, t->tid);
        jsonw_key(w, "name");
        jsonw_str(w, t->label);
        jsonw_key(w, "samples");
        jsonw_u64(w, t->samples);
        j_us(w, "on_cpu_us", t->on_ns);
        j_us(w, "off_cpu_us", t->off_ns);
        jsonw_key(w, "off_cpu_intervals");
        jsonw_u64(w, t->off_intervals);
        jsonw_key(w, "top_function");
        jsonw_str(w, t->top_func);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void j_rank(struct jsonw *w, const struct lat_an_rank *r, bool whole, size_t top_n)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "rank");
    if (whole)
        jsonw_null(w);
    else
        jsonw_i64(w, r->rank);
    if (!whole && r->trace) {
        jsonw_key(w, "path");
        if (r->trace->path)
            jsonw_str(w, r->trace->path);
        else
            jsonw_null(w);
        jsonw_key(w, "format");
        jsonw_str(w, r->trace->format ? r->trace->format : "");
    }
    jsonw_key(w, "events");
    jsonw_u64(w, r->events);
    jsonw_key(w, "kept_events");
    jsonw_u64(w, r->kept_events);
    jsonw_key(w, "dropped_last_step");
    jsonw_u64(w, r->dropped_last_step);
    if (!whole) j_us(w, "align_offset_us", r->align_offset_ns);

    const struct lat_an_temporal *t = &r->temporal;
    jsonw_key(w, "temporal");
    if (!t->valid) {
        jsonw_null(w);
    } else {
        jsonw_obj_begin(w);
        j_us(w, "kernel_time_us", t->kernel_time);
        j_us(w, "idle_us", t->idle);
        j_us(w, "compute_us", t->compute);
        j_us(w, "non_compute_us", t->non_compute);
        j_pct(w, "idle_pct", t->idle_pct);
        j_pct(w, "compute_pct", t->compute_pct);
        j_pct(w, "non_compute_pct", t->non_compute_pct);
        jsonw_obj_end(w);
    }

    jsonw_key(w, "idle");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nidle; i++) {
        const struct lat_an_idle_stream *s = &r->idle[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "stream");
        jsonw_i64(w, s->stream);
        j_us(w, "host_wait_us", s->idle[LAT_IDLE_HOST_WAIT]);
        j_us(w, "kernel_wait_us", s->idle[LAT_IDLE_KERNEL_WAIT]);
        j_us(w, "other_us", s->idle[LAT_IDLE_OTHER]);
        j_pct(w, "host_wait_ratio", s->ratio[LAT_IDLE_HOST_WAIT]);
        j_pct(w, "kernel_wait_ratio", s->ratio[LAT_IDLE_KERNEL_WAIT]);
        j_pct(w, "other_ratio", s->ratio[LAT_IDLE_OTHER]);
        jsonw_key(w, "events");
        jsonw_u64(w, s->events);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "kernel_types");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nktypes; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "type");
        jsonw_str(w, r->ktypes[i].label);
        j_us(w, "sum_us", r->ktypes[i].sum);
        j_pct(w, "percent", r->ktypes[i].percent);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "comm_comp_overlap_pct");
    if (r->has_comm)
        jsonw_fixed(w, r->comm_comp_overlap_pct, 4);
    else
        jsonw_null(w);

    const struct lat_an_launch *L = &r->launch;
    jsonw_key(w, "launch");
    jsonw_obj_begin(w);
    jsonw_key(w, "count");
    jsonw_u64(w, L->count);
    jsonw_key(w, "short_kernels");
    jsonw_u64(w, L->short_kernels);
    jsonw_key(w, "runtime_outliers");
    jsonw_u64(w, L->runtime_outliers);
    jsonw_key(w, "launch_delay_outliers");
    jsonw_u64(w, L->launch_delay_outliers);
    jsonw_key(w, "median_launch_delay_us");
    if (L->count || (whole && L->launch_delay.count))
        jsonw_ns_as_us(w, L->median_launch_delay);
    else
        jsonw_null(w);
    jsonw_key(w, "gpu_rows");
    jsonw_u64(w, L->gpu_rows);
    jsonw_key(w, "correlated_gpu");
    jsonw_u64(w, L->correlated_gpu);
    jsonw_key(w, "uncorrelated_gpu");
    jsonw_u64(w, L->uncorrelated_gpu);
    jsonw_key(w, "graph_launches");
    jsonw_u64(w, L->graph_launches);
    if (!whole) {
        j_dist_us(w, "cpu_duration_us", &L->cpu_dur);
        j_dist_us(w, "gpu_duration_us", &L->gpu_dur);
    }
    j_dist_us(w, "launch_delay_us", &L->launch_delay);
    jsonw_obj_end(w);

    jsonw_key(w, "queue");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nqueue; i++) {
        const struct lat_an_queue *q = &r->queue[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "stream");
        jsonw_i64(w, q->stream);
        jsonw_key(w, "max_length");
        jsonw_i64(w, q->max_length);
        jsonw_key(w, "samples");
        jsonw_u64(w, q->len.count);
        jsonw_key(w, "mean");
        jsonw_fixed(w, q->len.mean, 6);
        jsonw_key(w, "std");
        jsonw_fixed(w, q->len.std, 6);
        jsonw_key(w, "p50");
        jsonw_fixed(w, q->len.p50, 3);
        j_us(w, "blocked_us", q->blocked);
        jsonw_key(w, "blocked_rel");
        jsonw_fixed(w, q->blocked_rel, 6);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "steps");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct lat_an_step *s = &r->steps[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "step");
        jsonw_i64(w, s->step);
        j_us(w, "ts_us", s->ts);
        j_us(w, "dur_us", s->dur);
        j_us(w, "gpu_compute_us", s->gpu_compute);
        j_us(w, "comm_us", s->comm);
        j_us(w, "copies_us", s->copies);
        j_us(w, "gpu_other_us", s->gpu_other);
        j_us(w, "cpu_only_us", s->cpu_only);
        j_us(w, "idle_us", s->idle);
        jsonw_key(w, "kernels");
        jsonw_u64(w, s->kernels);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    for (int pass = 0; pass < 2; pass++) {
        const struct lat_an_op *ops = pass ? r->top_ops_self : r->top_ops;
        size_t n = pass ? r->ntop_ops_self : r->ntop_ops;
        jsonw_key(w, pass ? "top_ops_self" : "top_ops");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "name");
            jsonw_str(w, ops[i].name);
            jsonw_key(w, "count");
            jsonw_u64(w, ops[i].count);
            j_us(w, "total_us", ops[i].total);
            j_us(w, "self_us", ops[i].self);
            j_us(w, "gpu_us", ops[i].gpu_time);
            jsonw_key(w, "kernels");
            jsonw_u64(w, ops[i].kernels);
            jsonw_key(w, "input_dims");
            if (ops[i].input_dims)
                jsonw_str(w, ops[i].input_dims);
            else
                jsonw_null(w);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }

    jsonw_key(w, "op_kernels");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nop_kernels; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "op");
        jsonw_str(w, r->op_kernels[i].op);
        jsonw_key(w, "kernel");
        jsonw_str(w, r->op_kernels[i].kernel);
        jsonw_key(w, "count");
        jsonw_u64(w, r->op_kernels[i].count);
        j_us(w, "gpu_us", r->op_kernels[i].gpu_time);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "aten_op_kernels");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->naten_seqs; i++) {
        const struct lat_an_aten_seq *q = &r->aten_seqs[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "op");
        jsonw_str(w, q->op);
        jsonw_key(w, "kernels");
        jsonw_str(w, q->kernels);
        jsonw_key(w, "count");
        jsonw_u64(w, q->count);
        jsonw_key(w, "avg_aten_op_launch_delay_us");
        jsonw_fixed(w, q->avg_aten_op_launch_delay_ns / 1000.0, 3);
        jsonw_key(w, "avg_runtime_delay_us");
        jsonw_fixed(w, q->avg_runtime_delay_ns / 1000.0, 3);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    for (int pass = 0; pass < 2; pass++) {
        const struct lat_an_kernel *k = pass ? r->kernels_by_type : r->top_kernels;
        size_t n = pass ? r->nkernels_by_type : r->ntop_kernels;
        jsonw_key(w, pass ? "kernels_by_type" : "top_kernels");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "name");
            jsonw_str(w, k[i].name);
            jsonw_key(w, "type");
            jsonw_str(w, analysis_ktype_name(k[i].type));
            jsonw_key(w, "count");
            jsonw_u64(w, k[i].count);
            j_us(w, "sum_us", k[i].sum);
            jsonw_key(w, "mean_us");
            jsonw_fixed(w, k[i].mean_ns / 1000.0, 3);
            j_us(w, "max_us", k[i].max);
            j_us(w, "min_us", k[i].min);
            jsonw_key(w, "std_us");
            jsonw_fixed(w, k[i].std_ns / 1000.0, 3);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }

    jsonw_key(w, "memcpy");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nmemcpy; i++) {
        const struct lat_an_memcpy *m = &r->memcpy[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "kind");
        jsonw_str(w, m->kind);
        jsonw_key(w, "memory");
        jsonw_str(w, m->memory);
        jsonw_key(w, "pageable");
        jsonw_bool(w, m->pageable);
        jsonw_key(w, "count");
        jsonw_u64(w, m->count);
        jsonw_key(w, "bytes");
        jsonw_u64(w, m->bytes);
        j_us(w, "time_us", m->time);
        jsonw_key(w, "gb_per_s");
        jsonw_fixed(w, m->gb_per_s, 3);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "syncs");
    jsonw_obj_begin(w);
    j_us(w, "blocking_us", r->sync_blocking);
    jsonw_key(w, "calls");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nsyncs; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, r->syncs[i].name);
        jsonw_key(w, "device_side");
        jsonw_bool(w, r->syncs[i].device_side);
        jsonw_key(w, "count");
        jsonw_u64(w, r->syncs[i].count);
        j_us(w, "total_us", r->syncs[i].total);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    struct lat_cpu_summary cs;
    if (!whole && cpu_summary(r, top_n, &cs)) { /* absent without CPU samples */
        j_cpu(w, &cs);
        lat_cpu_summary_fini(&cs);
    }
    jsonw_obj_end(w);
}

static int print_json(const struct lat_analysis *a, bool pretty)
{
    struct jsonw w;
    jsonw_init(&w, stdout, pretty);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "tool");
    jsonw_str(&w, "latscope analyze");
    jsonw_key(&w, "schema");
    jsonw_i64(&w, 1);
    jsonw_key(&w, "hta_compat");
    jsonw_bool(&w, a->opts.hta_compat);
    jsonw_key(&w, "preprocessing");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "ns_rounding");
    jsonw_bool(&w, a->opts.ns_rounding);
    jsonw_key(&w, "steps_distinct");
    jsonw_u64(&w, a->steps_distinct);
    jsonw_key(&w, "last_step_dropped");
    jsonw_bool(&w, a->last_step_dropped);
    jsonw_key(&w, "warning");
    if (a->warning[0])
        jsonw_str(&w, a->warning);
    else
        jsonw_null(&w);
    jsonw_obj_end(&w);
    jsonw_key(&w, "ranks");
    jsonw_arr_begin(&w);
    for (size_t i = 0; i < a->nranks; i++)
        j_rank(&w, &a->ranks[i], false, a->opts.top_n);
    jsonw_arr_end(&w);
    jsonw_key(&w, "whole");
    j_rank(&w, &a->whole, true, a->opts.top_n);
    jsonw_obj_end(&w);
    if (!pretty) jsonw_raw(&w, "\n", 1);
    int rc = jsonw_finish(&w);
    jsonw_fini(&w);
    if (pretty) putchar('\n');
    return rc;
}

/* ---- text ---------------------------------------------------------------------------------- */

static const char *dur(lat_ns ns, char *buf)
{
    return units_format_duration(ns, buf, 32);
}

static void print_name(const char *s, int width)
{
    int n = (int)strcspn(s, "\n");
    if (n > width) {
        printf("%.*s...", width - 3, s);
        return;
    }
    printf("%.*s%*s", n, s, width - n, "");
}

static void print_rank_text(const struct lat_an_rank *r, const struct analysis_opts *o)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    if (r->trace)
        printf("== rank %d  %s  (%s, %llu events, %llu kept)\n", r->rank,
               r->trace->path ? r->trace->path : "-", r->trace->format ? r->trace->format : "?",
               (unsigned long long)r->events, (unsigned long long)r->kept_events);
    const struct lat_an_temporal *t = &r->temporal;
    if (t->valid) {
        printf("temporal   kernel time %s: compute %s (%.2f%%), non-compute %s (%.2f%%), idle "
               "%s (%.2f%%)\n",
               dur(t->kernel_time, b1), dur(t->compute, b2), t->compute_pct,
               dur(t->non_compute, b3), t->non_compute_pct, dur(t->idle, b4), t->idle_pct);
    } else {
        printf("temporal   no GPU activity in this trace\n");
    }
    if (r->nktypes) {
        printf("\nkernel types                                            time       %%\n");
        for (size_t i = 0; i < r->nktypes; i++)
            printf("  %-52s %10s %6.1f\n", r->ktypes[i].label, dur(r->ktypes[i].sum, b1),
                   r->ktypes[i].percent);
    }
    if (r->has_comm)
        printf("comm/compute overlap  %.2f%% of %s communication\n", r->comm_comp_overlap_pct,
               dur(r->comm_time, b1));
    if (r->nidle) {
        printf("\nidle per stream    host_wait  kernel_wait        other\n");
        for (size_t i = 0; i < r->nidle; i++) {
            const struct lat_an_idle_stream *s = &r->idle[i];
            printf("  stream %-8lld %10s %12s %12s\n", (long long)s->stream, dur(s->idle[0], b1),
                   dur(s->idle[1], b2), dur(s->idle[2], b3));
        }
    }
    const struct lat_an_launch *L = &r->launch;
    if (L->count) {
        printf("\nlaunches   %llu (median delay %s, p90 %s; cpu p50 %s, gpu p50 %s)\n",
               (unsigned long long)L->count, dur(L->median_launch_delay, b1),
               dur((lat_ns)L->launch_delay.p90, b2), dur((lat_ns)L->cpu_dur.p50, b3),
               dur((lat_ns)L->gpu_dur.p50, b4));
        printf("  short kernels %llu, runtime outliers (> %s) %llu, launch-delay outliers "
               "(> %s) %llu\n",
               (unsigned long long)L->short_kernels, dur(o->runtime_cutoff_ns, b5),
               (unsigned long long)L->runtime_outliers, dur(o->launch_delay_cutoff_ns, b6),
               (unsigned long long)L->launch_delay_outliers);
    }
    if (L->gpu_rows)
        printf("  GPU rows %llu: %llu correlated, %llu uncorrelated\n",
               (unsigned long long)L->gpu_rows, (unsigned long long)L->correlated_gpu,
               (unsigned long long)L->uncorrelated_gpu);
    if (r->nqueue) {
        printf("\nqueue      ");
        for (size_t i = 0; i < r->nqueue; i++)
            printf("%sstream %lld max %lld", i ? ", " : "", (long long)r->queue[i].stream,
                   (long long)r->queue[i].max_length);
        printf("\n");
    }
    if (r->nsteps) {
        printf("\nstep         wall    compute       comm     copies   gpu-other   cpu-only       "
               "idle\n");
        for (size_t i = 0; i < r->nsteps; i++) {
            const struct lat_an_step *s = &r->steps[i];
            char b7[32];
            printf("  %-6d %9s %10s %10s %10s %11s %10s %10s\n", s->step, dur(s->dur, b1),
                   dur(s->gpu_compute, b2), dur(s->comm, b3), dur(s->copies, b4),
                   dur(s->gpu_other, b5), dur(s->cpu_only, b6), dur(s->idle, b7));
        }
    }
    if (r->ntop_ops) {
        printf("\ntop CPU ops (total)                          calls      total       self    "
               "GPU time\n");
        for (size_t i = 0; i < r->ntop_ops; i++) {
            const struct lat_an_op *op = &r->top_ops[i];
            printf("  ");
            print_name(op->name, 40);
            printf(" %8llu %10s %10s %10s\n", (unsigned long long)op->count, dur(op->total, b1),
                   dur(op->self, b2), dur(op->gpu_time, b3));
        }
    }
    if (r->naten_seqs) {
        printf("\naten op -> kernels (HTA)                    count  op->launch  launch->GPU\n");
        for (size_t i = 0; i < r->naten_seqs && i < 5; i++) {
            const struct lat_an_aten_seq *q = &r->aten_seqs[i];
            char seq[256];
            snprintf(seq, sizeof(seq), "%s: %s", q->op, q->kernels);
            printf("  ");
            print_name(seq, 40);
            printf(" %7llu %11s %12s\n", (unsigned long long)q->count,
                   dur((lat_ns)q->avg_aten_op_launch_delay_ns, b1),
                   dur((lat_ns)q->avg_runtime_delay_ns, b2));
        }
    }
    if (r->ntop_kernels) {
        printf("\ntop kernels                                  type            calls       "
               "total\n");
        for (size_t i = 0; i < r->ntop_kernels; i++) {
            const struct lat_an_kernel *k = &r->top_kernels[i];
            printf("  ");
            print_name(k->name, 42);
            printf(" %-13s %7llu %11s\n", analysis_ktype_name(k->type),
                   (unsigned long long)k->count, dur(k->sum, b1));
        }
    }
    if (r->nmemcpy) {
        printf("\nmemory copies   memory       count       bytes       time    GB/s\n");
        for (size_t i = 0; i < r->nmemcpy; i++) {
            const struct lat_an_memcpy *m = &r->memcpy[i];
            printf("  %-13s %-10s %7llu %11s %10s %7.2f\n", m->kind, m->memory,
                   (unsigned long long)m->count, units_format_bytes(m->bytes, b1, 32),
                   dur(m->time, b2), m->gb_per_s);
        }
    }
    if (r->nsyncs) {
        printf("\nsynchronisation (host blocked %s)\n", dur(r->sync_blocking, b1));
        for (size_t i = 0; i < r->nsyncs; i++)
            printf("  %-28s %-7s %7llu %10s\n", r->syncs[i].name,
                   r->syncs[i].device_side ? "device" : "host",
                   (unsigned long long)r->syncs[i].count, dur(r->syncs[i].total, b2));
    }
    struct lat_cpu_summary cs;
    if (cpu_summary(r, o->top_n, &cs)) { /* `latscope trace --cpu` samples */
        printf("\n");
        fflush(stdout);
        lat_cpu_format_text(&cs, stdout);
        lat_cpu_summary_fini(&cs);
    }
    printf("\n");
}

static void print_text(const struct lat_analysis *a)
{
    if (a->warning[0]) printf("note: %s\n", a->warning);
    if (a->last_step_dropped)
        printf("note: the last ProfilerStep (incomplete) was dropped, as HTA does "
               "(--include-last-step keeps it)\n");
    for (size_t i = 0; i < a->nranks; i++)
        print_rank_text(&a->ranks[i], &a->opts);
    if (a->nranks > 1 && a->whole.temporal.valid) {
        const struct lat_an_temporal *t = &a->whole.temporal;
        char b1[32];
        printf("== all %zu ranks: kernel time %s, compute %.2f%%, non-compute %.2f%%, idle "
               "%.2f%%, %llu launches\n",
               a->nranks, dur(t->kernel_time, b1), t->compute_pct, t->non_compute_pct, t->idle_pct,
               (unsigned long long)a->whole.launch.count);
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

int cmd_analyze(int argc, char **argv, const struct lat_opts *opts)
{
    enum lat_format fmt = LAT_FMT_TEXT;
    struct analysis_opts ao;
    bool pretty = false;
    const char **inputs = xcalloc((size_t)argc, sizeof(*inputs));
    size_t ninputs = 0;
    int ret = LAT_EXIT_FAILURE;

    analysis_opts_default(&ao);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long v;
        if (lat_is_help(a)) {
            fputs(usage_text, stdout);
            free(inputs);
            return LAT_EXIT_OK;
        } else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            const char *val = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (lat_parse_format(val, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON, &fmt)) {
                pr_err("--format wants text or json, not '%s'\n", val ? val : "");
                goto usage;
            }
        } else if (!strcmp(a, "--hta-compat")) {
            ao.hta_compat = true;
        } else if (!strcmp(a, "--include-last-step")) {
            ao.include_last_step = true;
        } else if (!strcmp(a, "--no-ns-rounding")) {
            ao.ns_rounding = false;
        } else if (!strcmp(a, "--pretty")) {
            pretty = true;
        } else if (!strcmp(a, "--rank") || !strcmp(a, "--top") || !strcmp(a, "--threads")) {
            char which = a[3]; /* 'a' rank, 'o' top, 'h' threads */
            long long lo = which == 'a' ? 0 : 1;
            long long hi = which == 'a' ? INT32_MAX : which == 'o' ? 100000 : 8;
            if (i + 1 >= argc || !parse_int(argv[i + 1], lo, hi, &v)) {
                pr_err("%s wants a number (%lld..%lld)\n", a, lo, hi);
                goto usage;
            }
            i++;
            if (which == 'a')
                ao.only_rank = (int32_t)v;
            else if (which == 'o')
                ao.top_n = (size_t)v;
            else
                ao.threads = (unsigned)v;
        } else if (a[0] == '-' && a[1]) {
            pr_err("unknown option '%s'\n", a);
            goto usage;
        } else {
            inputs[ninputs++] = a;
        }
    }
    if (!ninputs) {
        pr_err("no trace given: latscope analyze TRACE.json[.gz]|DIR...\n");
        goto usage;
    }

    struct progress prog = {.enabled = opts->progress, .start = clock_now_ns()};
    struct lat_ingest_opts io = {.progress = on_read, .progress_ctx = &prog};
    if (ao.threads == 1) io.flags |= LAT_INGEST_NO_THREAD; /* everything on this thread */
    struct lat_trace **traces = NULL;
    struct lat_ingest_set **sets = xcalloc(ninputs, sizeof(*sets));
    size_t ntraces = 0, cap = 0;
    char err[LAT_INGEST_ERRLEN];
    for (size_t i = 0; i < ninputs; i++) {
        struct stat st;
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            int rc = ingest_dir(inputs[i], &io, &sets[i], err, sizeof(err));
            progress_done(&prog);
            if (rc < 0) {
                pr_err("%s: %s\n", inputs[i], err[0] ? err : lat_strerror(rc));
                goto out;
            }
            for (size_t k = 0; k < sets[i]->n; k++) {
                struct lat_ingest_file *f = &sets[i]->files[k];
                if (f->status == LAT_INGEST_ERROR) {
                    pr_err("%s: %s (skipped)\n", f->path, f->err[0] ? f->err : lat_strerror(f->rc));
                    continue;
                }
                if (f->status == LAT_INGEST_DUP_RANK) {
                    pr_warn("%s: has the same rank %d as an earlier file (skipped)\n", f->path,
                            f->rank);
                    continue;
                }
                if (f->status == LAT_INGEST_NO_RANK)
                    pr_warn("%s: trace file does not have the rank: using rank %d\n", f->path,
                            f->rank);
                if (ntraces == cap) {
                    cap = cap ? cap * 2 : 8;
                    traces = xrealloc(traces, cap * sizeof(*traces));
                }
                f->trace->rank = f->rank;
                traces[ntraces++] = f->trace;
            }
            continue;
        }
        struct lat_trace *t = NULL;
        int rc = ingest_open(inputs[i], &io, &t, err, sizeof(err));
        progress_done(&prog);
        if (rc < 0) {
            pr_err("%s: %s\n", inputs[i], err[0] ? err : lat_strerror(rc));
            goto out;
        }
        if (ntraces == cap) {
            cap = cap ? cap * 2 : 8;
            traces = xrealloc(traces, cap * sizeof(*traces));
        }
        traces[ntraces++] = t;
    }
    if (!ntraces) {
        pr_err("no trace could be loaded\n");
        goto out;
    }
    /* files given one by one: a missing rank is its position among the inputs */
    for (size_t i = 0; i < ntraces; i++)
        if (traces[i]->rank < 0) traces[i]->rank = (int32_t)i;
    for (size_t i = 0; i < ntraces; i++)
        for (size_t j = 0; j < i; j++)
            if (traces[i]->rank == traces[j]->rank) {
                pr_err("%s and %s both have rank %d: give the ranks of one job\n",
                       traces[j]->path ? traces[j]->path : "?",
                       traces[i]->path ? traces[i]->path : "?", traces[i]->rank);
                goto out;
            }

    ao.progress = on_analyze;
    ao.progress_arg = &prog;
    struct lat_analysis *an = NULL;
    lat_ns w0 = clock_now_ns(), c0 = clock_cpu_ns();
    int rc = analysis_run(traces, ntraces, &ao, &an);
    progress_done(&prog);
    pr_info("loaded %zu trace(s) in %.3f s; analyses took %.3f s wall, %.3f s cpu\n", ntraces,
            (double)(w0 - prog.start) / 1e9, (double)(clock_now_ns() - w0) / 1e9,
            (double)(clock_cpu_ns() - c0) / 1e9);
    if (rc == LAT_E_NOT_FOUND) {
        pr_err("no trace has rank %d\n", ao.only_rank);
        goto out;
    }
    if (rc < 0) {
        pr_err("analysis failed: %s\n", lat_strerror(rc));
        goto out;
    }
    if (fmt == LAT_FMT_JSON)
        rc = print_json(an, pretty);
    else
        print_text(an);
    analysis_free(an);
    ret = rc < 0 ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
out:
    /* traces loaded one by one are not in a set: free them before the sets */
    for (size_t i = 0; i < ntraces; i++) {
        bool in_set = false;
        for (size_t s = 0; s < ninputs && !in_set; s++)
            for (size_t k = 0; sets[s] && k < sets[s]->n && !in_set; k++)
                in_set = sets[s]->files[k].trace == traces[i];
        if (!in_set) lat_trace_free(traces[i]);
    }
    for (size_t i = 0; i < ninputs; i++)
        ingest_set_free(sets[i]);
    free(traces);
    free(sets);
    free(inputs);
    return ret;
usage:
    free(inputs);
    fputs("usage: latscope analyze [OPTIONS] TRACE|DIR...  (--help for details)\n", stderr);
    return LAT_EXIT_USAGE;
}
