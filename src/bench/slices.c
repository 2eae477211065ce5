/*
 * slices.c - per-window statistics of a bench load point (bench/slices.h).
 */
#include "bench/slices.h"

#include "bench/openai.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"
#include "hist/samples.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char bench_slices_usage[] =
    "Time slices (docs/latscope-bench.md):\n"
    "  --slice D                per-window statistics across each point (requests, req/s,\n"
    "                           errors, p50/p90/p99; TTFT/ITL with --target openai; GPU\n"
    "                           telemetry when sampled): a request counts in the window its\n"
    "                           response ended in\n";

int bench_slices_parse(const char *v, lat_ns *width, char *why, size_t whylen)
{
    if (units_parse_duration(v, LAT_NS_PER_S, width) < 0 || *width < LAT_NS_PER_MS) {
        snprintf(why, whylen, "expected a duration >= 1ms such as 1s or 500ms");
        return LAT_E_USAGE;
    }
    return 0;
}

static size_t slice_of(const struct bench_slices *s, lat_ns t)
{
    if (t < s->base) return 0;
    size_t k = (size_t)((t - s->base) / s->width);
    return k < s->n ? k : s->n - 1;
}

/* The LLM view of each slice: the target's per-request summaries of this point, split by end
 * time and summarized like the point (llm_metrics_summarize, the same view). */
int bench_slices_llm(struct bench_slices *s, struct llm_bench *llm)
{
    if (!s || !llm) return 0;
    struct llm_target *t = llm->t;
    if (!t) return 0;
    size_t total = 0;
    for (unsigned i = 0; i < t->nthreads; i++)
        total += t->metrics[i].n;
    size_t *cnt = calloc(s->n, sizeof(*cnt));
    if (!cnt) return -ENOMEM;
    for (unsigned i = 0; i < t->nthreads; i++)
        for (size_t j = 0; j < t->metrics[i].n; j++)
            cnt[slice_of(s, t->metrics[i].r[j].t_end)]++;
    struct llm_rsum *buf = malloc((total + 1) * sizeof(*buf));
    if (!buf) {
        free(cnt);
        return -ENOMEM;
    }
    int rc = 0;
    for (size_t k = 0; k < s->n && !rc; k++) {
        size_t m = 0;
        for (unsigned i = 0; i < t->nthreads; i++)
            for (size_t j = 0; j < t->metrics[i].n; j++)
                if (slice_of(s, t->metrics[i].r[j].t_end) == k) buf[m++] = t->metrics[i].r[j];
        struct llm_metrics lm;
        llm_metrics_init(&lm);
        lm.r = buf;
        lm.n = lm.cap = m;
        struct llm_summary sum;
        rc = llm_metrics_summarize(&lm, llm->view, NULL, &sum);
        /* the summary sorted its own vectors only; buf stays ours */
        free(lm.content_gaps.v);
        free(lm.choice_gaps.v);
        free(lm.chunk_tokens.v);
        if (rc) break;
        struct bench_slice *x = &s->s[k];
        x->have_llm = true;
        x->ttft = sum.ttft;
        x->itl = sum.itl;
        x->llm_ok = sum.ok;
        x->llm_errors = sum.errors;
    }
    free(buf);
    free(cnt);
    return rc;
}

struct bench_slices *bench_slices_point(lat_ns width, const struct bench_load *load,
                                        const struct bench_result *res, const struct gpu_point *gpu)
{
    if (width <= 0) return NULL;
    struct bench_slices *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->width = width;
    s->gpu = gpu;
    s->base = res->have_window ? res->window_start_ns : res->t_first_sched;
    lat_ns last = s->base;
    for (size_t i = 0; i < res->nrecords; i++) {
        const struct bench_record *r = &res->records[i];
        if (r->err == BENCH_REC_INTERRUPTED || r->err == BENCH_REC_CANCELLED) continue;
        if (r->t_end > last) last = r->t_end;
    }
    /* As many slices as the point's measured window holds (--duration; the last may be
     * shorter); the responses that end after it (a closed loop's last requests) count in the
     * last slice. Without --duration (--requests N) the window ends with the last response. */
    s->n = (size_t)((last - s->base) / width) + 1;
    lat_ns dur = load && load->duration_ns > 0 && !load->offsets ? load->duration_ns : 0;
    if (dur > 0) {
        size_t nd = (size_t)((dur + width - 1) / width);
        if (nd >= 1 && nd < s->n) s->n = nd;
    }
    if (s->n > 100000) s->n = 100000;
    s->records_base = res->t_first_sched;
    s->s = calloc(s->n, sizeof(*s->s));
    int64_t *lat = malloc((res->nrecords + 1) * sizeof(*lat));
    size_t *idx = calloc(s->n + 1, sizeof(*idx));
    if (!s->s || !lat || !idx) goto fail;
    /* Counts, then the latencies of each slice grouped by a counting sort. */
    for (size_t i = 0; i < res->nrecords; i++) {
        const struct bench_record *r = &res->records[i];
        if (r->err == BENCH_REC_INTERRUPTED || r->err == BENCH_REC_CANCELLED) continue;
        struct bench_slice *x = &s->s[slice_of(s, r->t_end)];
        if (r->err < 0) {
            x->ok++;
            s->records_ok++;
        } else {
            x->errors++;
            s->records_errors++;
        }
    }
    for (size_t k = 0; k < s->n; k++)
        idx[k + 1] = idx[k] + s->s[k].ok;
    size_t *fill = calloc(s->n, sizeof(*fill));
    if (!fill) goto fail;
    for (size_t i = 0; i < res->nrecords; i++) {
        const struct bench_record *r = &res->records[i];
        if (r->err != -1) continue;
        size_t k = slice_of(s, r->t_end);
        lat[idx[k] + fill[k]++] = r->t_end - r->t_sched;
    }
    free(fill);
    for (size_t k = 0; k < s->n; k++) {
        struct bench_slice *x = &s->s[k];
        x->t_start = s->base + (lat_ns)k * width;
        x->t_end = k + 1 < s->n ? x->t_start + width : last > x->t_start ? last : x->t_start;
        if (k + 1 == s->n) { /* at least to the end of the measured window */
            lat_ns lim = s->base + (lat_ns)s->n * width;
            if (dur > 0 && s->base + dur < lim) lim = s->base + dur;
            if (x->t_end < lim) x->t_end = lim;
            if (x->t_end <= x->t_start) x->t_end = x->t_start + width;
        }
        double len = (double)(k + 1 < s->n ? width : x->t_end - x->t_start) / 1e9;
        x->rps = len > 0 ? (double)x->ok / len : 0;
        int64_t *v = lat + idx[k];
        size_t m = x->ok;
        x->p50 = x->p90 = x->p99 = x->max = -1;
        if (m) {
            qsort(v, m, sizeof(*v), lat_cmp_i64);
            x->p50 = lat_pctl_i64(v, m, 50);
            x->p90 = lat_pctl_i64(v, m, 90);
            x->p99 = lat_pctl_i64(v, m, 99);
            x->max = v[m - 1];
            long double sum = 0;
            for (size_t i = 0; i < m; i++)
                sum += v[i];
            x->mean = (double)(sum / m);
        }
    }
    s->complete = s->records_ok == res->ok && s->records_errors == res->errors_total;
    if (gpu && gpu->ndev) {
        for (size_t k = 0; k < s->n; k++) {
            struct bench_slice *x = &s->s[k];
            x->gpu = calloc(gpu->ndev, sizeof(*x->gpu));
            if (!x->gpu) goto fail;
            x->ngpu = gpu->ndev;
            /* The first slice also takes the sample made as the point began, the last the
             * one made as it ended. */
            lat_ns t0 = k == 0 ? INT64_MIN / 2 : x->t_start;
            lat_ns t1 = k + 1 == s->n ? INT64_MAX / 2 : x->t_start + width;
            gpu_point_stats(gpu, t0, t1, x->gpu);
        }
    }
    free(lat);
    free(idx);
    return s;
fail:
    free(lat);
    free(idx);
    bench_slices_free(s);
    return NULL;
}

void bench_slices_free(struct bench_slices *s)
{
    if (!s) return;
    for (size_t k = 0; s->s && k < s->n; k++)
        free(s->s[k].gpu);
    free(s->s);
    free(s);
}

static void json_ms_or_null(struct jsonw *w, const char *key, int64_t ns)
{
    jsonw_key(w, key);
    if (ns < 0)
        jsonw_null(w);
    else
        jsonw_fixed(w, (double)ns / 1e6, 6);
}

static void json_pct(struct jsonw *w, const char *key, double ns, bool have)
{
    jsonw_key(w, key);
    if (have)
        jsonw_fixed(w, ns / 1e6, 6);
    else
        jsonw_null(w);
}

static void json_llm_stat(struct jsonw *w, const char *key, const struct llm_stat *st, bool pct)
{
    jsonw_key(w, key);
    if (!st->n) {
        jsonw_null(w);
        return;
    }
    jsonw_obj_begin(w);
    jsonw_key(w, "mean");
    jsonw_fixed(w, st->mean / 1e6, 6);
    json_pct(w, "p50", st->p50, pct);
    json_pct(w, "p90", st->p90, pct);
    json_pct(w, "p99", st->p99, pct);
    jsonw_key(w, "samples");
    jsonw_u64(w, st->n);
    jsonw_obj_end(w);
}

void bench_slices_write_json(struct jsonw *w, const struct bench_slices *s)
{
    if (!s) return;
    jsonw_key(w, "slice_s");
    jsonw_fixed(w, (double)s->width / 1e9, 6);
    /* slice 0 starts this long after the --records time zero (the first measured intended
     * send) */
    jsonw_key(w, "slices_offset_ns");
    if (s->merged_shards)
        jsonw_null(w);
    else
        jsonw_i64(w, s->base - s->records_base);
    jsonw_key(w, "slices_t0_mono_ns"); /* slice 0's start on CLOCK_MONOTONIC (--records-detail
                                        * lines carry t0_mono_ns on the same clock) */
    if (s->merged_shards)
        jsonw_null(w);
    else
        jsonw_i64(w, s->base);
    if (s->merged_shards) {
        jsonw_key(w, "slices_merged_shards");
        jsonw_u64(w, s->merged_shards);
    }
    jsonw_key(w, "slices_complete");
    jsonw_bool(w, s->complete);
    jsonw_key(w, "slices");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < s->n; k++) {
        const struct bench_slice *x = &s->s[k];
        jsonw_obj_begin(w);
        jsonw_key(w, "start_s");
        jsonw_fixed(w, (double)(x->t_start - s->base) / 1e9, 6);
        jsonw_key(w, "end_s");
        jsonw_fixed(w, (double)(x->t_end - s->base) / 1e9, 6);
        jsonw_key(w, "requests");
        jsonw_u64(w, x->ok);
        jsonw_key(w, "errors");
        jsonw_u64(w, x->errors);
        jsonw_key(w, "achieved_rps");
        jsonw_fixed(w, x->rps, 3);
        if (x->pct_not_mergeable) {
            jsonw_key(w, "percentiles");
            jsonw_str(w, "not mergeable");
        }
        jsonw_key(w, "latency_ms");
        jsonw_obj_begin(w);
        jsonw_key(w, "mean");
        if (x->ok)
            jsonw_fixed(w, x->mean / 1e6, 6);
        else
            jsonw_null(w);
        json_ms_or_null(w, "p50", x->p50);
        json_ms_or_null(w, "p90", x->p90);
        json_ms_or_null(w, "p99", x->p99);
        json_ms_or_null(w, "max", x->max);
        jsonw_obj_end(w);
        if (x->have_llm) {
            jsonw_key(w, "llm_requests");
            jsonw_u64(w, x->llm_ok);
            jsonw_key(w, "llm_errors");
            jsonw_u64(w, x->llm_errors);
            json_llm_stat(w, "ttft_ms", &x->ttft, !x->pct_not_mergeable);
            json_llm_stat(w, "itl_ms", &x->itl, !x->pct_not_mergeable);
        }
        if (x->gpu) {
            jsonw_key(w, "gpus");
            jsonw_arr_begin(w);
            for (size_t d = 0; d < x->ngpu; d++) {
                jsonw_obj_begin(w);
                jsonw_key(w, "gpu");
                jsonw_str(w, s->gpu->dev[d].id);
                gpu_stats_write_json(w, &x->gpu[d]);
                jsonw_obj_end(w);
            }
            jsonw_arr_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void text_ms(FILE *f, int64_t ns)
{
    if (ns < 0)
        fprintf(f, " %8s", "-");
    else
        fprintf(f, " %8.3f", (double)ns / 1e6);
}

static void text_llm(FILE *f, const struct llm_stat *st, bool pct)
{
    if (st->n && pct)
        fprintf(f, " %8.3f %8.3f", st->p50 / 1e6, st->p99 / 1e6);
    else
        fprintf(f, " %8s %8s", "-", "-");
}

void bench_slices_write_text(FILE *f, const struct bench_slices *s)
{
    if (!s) return;
    bool llm = s->n && s->s[0].have_llm, gpu = s->n && s->s[0].gpu;
    fprintf(f, "  slices of %g s (by response end)%s:\n", (double)s->width / 1e9,
            s->complete ? "" : " [incomplete: some requests were not recorded]");
    fprintf(f, "    %7s %7s %7s %6s %9s %8s %8s %8s", "from s", "to s", "ok", "errors", "req/s",
            "p50 ms", "p90 ms", "p99 ms");
    if (s->merged_shards) fprintf(f, " %8s %8s", "mean ms", "max ms"); /* exact when merged */
    if (llm) fprintf(f, " %8s %8s %8s %8s", "ttft p50", "ttft p99", "itl p50", "itl p99");
    if (gpu) fprintf(f, "  gpu util %% / power W (mean)");
    fputc('\n', f);
    for (size_t k = 0; k < s->n; k++) {
        const struct bench_slice *x = &s->s[k];
        fprintf(f, "    %7.2f %7.2f %7llu %6llu %9.1f", (double)(x->t_start - s->base) / 1e9,
                (double)(x->t_end - s->base) / 1e9, (unsigned long long)x->ok,
                (unsigned long long)x->errors, x->rps);
        text_ms(f, x->p50);
        text_ms(f, x->p90);
        text_ms(f, x->p99);
        if (s->merged_shards) {
            text_ms(f, x->ok ? (int64_t)llround(x->mean) : -1);
            text_ms(f, x->max);
        }
        if (llm) {
            text_llm(f, &x->ttft, !x->pct_not_mergeable);
            text_llm(f, &x->itl, !x->pct_not_mergeable);
        }
        for (size_t d = 0; gpu && d < x->ngpu; d++) {
            const struct gpu_stat *u = &x->gpu[d].f[GPU_F_UTIL], *p = &x->gpu[d].f[GPU_F_POWER];
            fprintf(f, "  %s:", s->gpu->dev[d].id);
            if (u->n)
                fprintf(f, " %.1f", u->mean);
            else
                fputs(" -", f);
            if (p->n)
                fprintf(f, " / %.1f", p->mean);
            else
                fputs(" / -", f);
        }
        fputc('\n', f);
    }
    bool nm = false;
    for (size_t k = 0; k < s->n; k++)
        if (s->s[k].pct_not_mergeable) nm = true;
    if (nm)
        fprintf(f,
                "    (merged from %u shards: '-' percentiles are not mergeable, several shards "
                "had requests there; counts exact)\n",
                s->merged_shards);
}

void bench_slices_csv_header(FILE *f, bool llm, bool gpu)
{
    fputs("Point,Slice,Start (s),End (s),Requests,Errors,Inferences/Second,p50 latency,"
          "p90 latency,p99 latency",
          f);
    if (llm) fputs(",TTFT p50,TTFT p99,ITL p50,ITL p99", f);
    if (gpu) fputs(",GPU,GPU Util Mean,GPU Util Max,Power Mean (W),FB Used Max (MiB)", f);
    fputc('\n', f);
}

static void csv_us(FILE *f, double ns, bool have)
{
    if (have)
        fprintf(f, ",%.0f", ns / 1e3);
    else
        fputc(',', f);
}

static void csv_num(FILE *f, const struct gpu_stat *st, bool max)
{
    if (st->n)
        fprintf(f, ",%.6g", max ? st->max : st->mean);
    else
        fputc(',', f);
}

/* One row per slice (and per GPU when telemetry was sampled). Latencies in us, as the point
 * rows. */
void bench_slices_csv_rows(FILE *f, const struct bench_slices *s, size_t pidx, bool llm, bool gpu)
{
    if (!s) return;
    for (size_t k = 0; k < s->n; k++) {
        const struct bench_slice *x = &s->s[k];
        size_t ng = gpu && x->gpu ? x->ngpu : 0;
        for (size_t d = 0; d < (ng ? ng : 1); d++) {
            fprintf(f, "%zu,%zu,%.3f,%.3f,%llu,%llu,%.2f", pidx, k,
                    (double)(x->t_start - s->base) / 1e9, (double)(x->t_end - s->base) / 1e9,
                    (unsigned long long)x->ok, (unsigned long long)x->errors, x->rps);
            csv_us(f, (double)x->p50, x->p50 >= 0);
            csv_us(f, (double)x->p90, x->p90 >= 0);
            csv_us(f, (double)x->p99, x->p99 >= 0);
            if (llm) {
                bool pct = x->have_llm && !x->pct_not_mergeable;
                csv_us(f, x->ttft.p50, pct && x->ttft.n);
                csv_us(f, x->ttft.p99, pct && x->ttft.n);
                csv_us(f, x->itl.p50, pct && x->itl.n);
                csv_us(f, x->itl.p99, pct && x->itl.n);
            }
            if (gpu) {
                if (ng) {
                    fprintf(f, ",%s", s->gpu->dev[d].id);
                    csv_num(f, &x->gpu[d].f[GPU_F_UTIL], false);
                    csv_num(f, &x->gpu[d].f[GPU_F_UTIL], true);
                    csv_num(f, &x->gpu[d].f[GPU_F_POWER], false);
                    csv_num(f, &x->gpu[d].f[GPU_F_FB_USED], true);
                } else {
                    fputs(",,,,,", f);
                }
            }
            fputc('\n', f);
        }
    }
}
