/*
 * report.c - text, JSON, CSV and JSONL renderers for bench results.
 *
 * The JSON contract (docs/bench-json.md) is what scripts, tests and `latscope diff` read: the
 * keys listed in issue #5 are always present (null when a quantity does not exist for the
 * point, e.g. "rate" in a closed loop), extra keys are additive. Latencies are milliseconds
 * with 3 decimals (µs resolution: the histogram's own precision is 0.1 %); percentiles use the
 * estimator named in "estimator" ("exact" when every sample was kept, else "hdr": the upper
 * edge of the bucket holding the nearest-rank sample). The CSV follows perf_analyzer's column
 * layout (µs, one row per load level, rows by ascending throughput) for the columns whose
 * quantities latscope measures.
 */
#include "bench/report.h"
#include "bench/kserve-pb.h"
#include "bench/sessions.h"
#include "bench/srvprof.h"

#include "core/err.h"
#include "core/esc.h"
#include "core/features.h"
#include "core/jsonw.h"
#include "core/redact.h"
#include "hist/hlog.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double pcts[] = {50, 90, 95, 99, 99.9};
static const char *const pct_keys[] = {"p50", "p90", "p95", "p99", "p99.9"};

/* Percentile in ns: exact order statistic when kept, else the HDR estimate. */
static int64_t pct_ns(const struct lat_hist *h, struct lat_samples *s, double p)
{
    if (s && s->v && s->n) return samples_percentile(s, p);
    return hist_value_at_percentile(h, p);
}

static double mean_ns(const struct lat_hist *h, const struct lat_samples *s)
{
    if (s && s->v && s->n) return samples_mean(s);
    return hist_mean(h);
}

static void json_ms(struct jsonw *w, double ns)
{
    jsonw_fixed(w, ns / 1e6, 3);
}

static void json_lat(struct jsonw *w, const char *key, const struct lat_hist *h,
                     struct lat_samples *s)
{
    jsonw_key(w, key);
    if (!hist_count(h)) {
        jsonw_null(w);
        return;
    }
    jsonw_obj_begin(w);
    jsonw_key(w, "mean");
    json_ms(w, mean_ns(h, s));
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        jsonw_key(w, pct_keys[i]);
        json_ms(w, (double)pct_ns(h, s, pcts[i]));
    }
    jsonw_key(w, "max");
    json_ms(w, (double)hist_max(h));
    jsonw_obj_end(w);
}

static void json_short(struct jsonw *w, const char *key, const struct lat_hist *h)
{
    jsonw_key(w, key);
    if (!hist_count(h)) {
        jsonw_null(w);
        return;
    }
    jsonw_obj_begin(w);
    jsonw_key(w, "p50");
    json_ms(w, (double)hist_value_at_percentile(h, 50));
    jsonw_key(w, "p99");
    json_ms(w, (double)hist_value_at_percentile(h, 99));
    jsonw_key(w, "max");
    json_ms(w, (double)hist_max(h));
    jsonw_obj_end(w);
}

static void json_num_or_null(struct jsonw *w, const char *key, double v, int decimals)
{
    jsonw_key(w, key);
    if (isfinite(v))
        jsonw_fixed(w, v, decimals);
    else
        jsonw_null(w);
}

static void json_shard_lines(struct jsonw *w, const struct bench_point *p)
{
    if (!p->nshards) return;
    jsonw_key(w, "shards");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < p->nshards; i++) {
        const struct bench_shard_line *l = &p->shards[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "index");
        jsonw_u64(w, l->index);
        jsonw_key(w, "requests");
        jsonw_u64(w, l->requests);
        jsonw_key(w, "errors");
        jsonw_u64(w, l->errors);
        jsonw_key(w, "duration_s");
        jsonw_fixed(w, l->duration_s, 6);
        jsonw_key(w, "achieved_rps");
        jsonw_fixed(w, l->achieved_rps, 3);
        json_num_or_null(w, "send_lag_p99_ms", l->send_lag_p99_ms, 3);
        json_num_or_null(w, "start_offset_ms", l->t0_offset_ms, 3);
        json_num_or_null(w, "clock_offset_ms", l->clock_offset_ms, 3);
        jsonw_key(w, "valid");
        jsonw_bool(w, l->valid);
        jsonw_key(w, "invalid_reason");
        if (l->valid)
            jsonw_null(w);
        else
            jsonw_str(w, l->invalid_reason);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void json_dist(struct jsonw *w, const struct bench_run *r)
{
    if (r->shard && r->shard->count > 1 && !r->dist) {
        jsonw_key(w, "shard");
        jsonw_obj_begin(w);
        jsonw_key(w, "index");
        jsonw_u64(w, r->shard->index);
        jsonw_key(w, "count");
        jsonw_u64(w, r->shard->count);
        jsonw_key(w, "source");
        jsonw_str(w, r->shard->source);
        jsonw_key(w, "start_at_unix_ns");
        if (r->shard->have_start_at)
            jsonw_i64(w, r->shard->start_at_unix_ns);
        else
            jsonw_null(w);
        jsonw_obj_end(w);
    }
    if (r->dist) {
        jsonw_key(w, "distributed");
        jsonw_obj_begin(w);
        jsonw_key(w, "method");
        jsonw_str(w, r->dist->method);
        jsonw_key(w, "shards");
        jsonw_u64(w, r->dist->nshards);
        json_num_or_null(w, "max_start_skew_ms", r->dist->max_start_skew_ms, 3);
        json_num_or_null(w, "max_clock_offset_ms", r->dist->max_clock_offset_ms, 3);
        json_num_or_null(w, "reduce_ms", r->dist->reduce_ms, 3);
        jsonw_obj_end(w);
    }
}

static void json_point(struct jsonw *w, struct bench_point *p)
{
    struct bench_result *r = &p->res;
    jsonw_obj_begin(w);
    jsonw_key(w, "concurrency");
    if (p->load.rate > 0)
        jsonw_null(w);
    else
        jsonw_u64(w, p->load.concurrency);
    jsonw_key(w, "rate");
    if (p->load.rate > 0)
        jsonw_double(w, p->load.rate, 10);
    else
        jsonw_null(w);
    jsonw_key(w, "requests");
    jsonw_u64(w, r->ok);
    jsonw_key(w, "errors");
    jsonw_obj_begin(w);
    jsonw_key(w, "total");
    jsonw_u64(w, r->errors_total);
    for (int c = 0; c < BENCH_ERR__COUNT; c++) {
        jsonw_key(w, bench_err_names[c]);
        jsonw_u64(w, r->errors[c]);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "duration_s");
    jsonw_fixed(w, r->duration_s, 6);
    jsonw_key(w, "achieved_rps");
    jsonw_fixed(w, r->achieved_rps, 3);
    struct lat_samples *ex = r->have_exact ? &r->exact : NULL;
    struct lat_samples *exa = r->have_exact ? &r->exact_actual : NULL;
    json_lat(w, "latency_ms", &r->lat, ex);
    json_lat(w, "latency_actual_ms", &r->lat_actual, exa);
    json_short(w, "send_lag_ms", &r->send_lag);
    json_short(w, "client_gap_ms", &r->client_gap); /* closed loop (issue 31), else null */
    jsonw_key(w, "client_cpu_pct");
    jsonw_fixed(w, r->client_cpu_pct, 1);
    jsonw_key(w, "valid");
    jsonw_bool(w, r->valid);
    jsonw_key(w, "invalid_reason");
    if (r->valid)
        jsonw_null(w);
    else
        jsonw_str(w, r->invalid_reason);
    /* Additive keys. */
    jsonw_key(w, "estimator");
    jsonw_str(w, r->have_exact ? "exact" : "hdr");
    /* The recorded distributions, for `latscope diff` (significance from the samples). */
    jsonw_key(w, "histograms");
    jsonw_obj_begin(w);
    hlog_json_blob(w, "latency", &r->lat);
    hlog_json_blob(w, "latency_actual", &r->lat_actual);
    hlog_json_blob(w, "ttfb", &r->ttfb);
    hlog_json_blob(w, "send_lag", &r->send_lag);
    hlog_json_blob(w, "loop_lag", &r->loop_lag);
    for (size_t i = 0; i < p->nllm_hist; i++)
        hlog_json_blob(w, p->llm_hist_names[i], &p->llm_hist[i]);
    jsonw_obj_end(w);
    /* The exact recorded min and max of each (a decoded blob only has its buckets' edges), so
     * `bench merge` gives the percentiles one histogram of every shard's values would. */
    jsonw_key(w, "histogram_extremes_ns");
    jsonw_obj_begin(w);
    hlog_json_extremes(w, "latency", &r->lat);
    hlog_json_extremes(w, "latency_actual", &r->lat_actual);
    hlog_json_extremes(w, "ttfb", &r->ttfb);
    hlog_json_extremes(w, "send_lag", &r->send_lag);
    hlog_json_extremes(w, "loop_lag", &r->loop_lag);
    for (size_t i = 0; i < p->nllm_hist; i++)
        hlog_json_extremes(w, p->llm_hist_names[i], &p->llm_hist[i]);
    jsonw_obj_end(w);
    json_short(w, "ttfb_ms", &r->ttfb);
    json_short(w, "loop_lag_ms", &r->loop_lag);
    jsonw_key(w, "max_thread_busy_pct");
    jsonw_fixed(w, r->max_thread_busy_pct, 1);
    jsonw_key(w, "inflight_cap_hits");
    jsonw_u64(w, r->inflight_cap_hits);
    jsonw_key(w, "bytes");
    jsonw_u64(w, r->bytes);
    jsonw_key(w, "interrupted");
    jsonw_bool(w, r->interrupted);
    jsonw_key(w, "interrupted_requests");
    jsonw_u64(w, r->interrupted_requests);
    jsonw_key(w, "stale_retries");
    jsonw_u64(w, r->stale_retries);
    jsonw_key(w, "server_closes");
    jsonw_u64(w, r->server_closes);
    jsonw_key(w, "connect_error"); /* the first failed connect's reason (strerror), or null */
    if (r->connect_err)
        jsonw_str(w, lat_strerror(r->connect_err));
    else
        jsonw_null(w);
    jsonw_key(w, "backlog"); /* listen-backlog evidence (issue 31) */
    jsonw_obj_begin(w);
    jsonw_key(w, "slow_connects");
    jsonw_u64(w, r->slow_connects);
    jsonw_key(w, "connect_max_ms");
    jsonw_fixed(w, (double)r->connect_max_ns / 1e6, 3);
    jsonw_key(w, "listen_overflows");
    if (r->listen_overflows >= 0)
        jsonw_i64(w, r->listen_overflows);
    else
        jsonw_null(w);
    jsonw_key(w, "listen_drops");
    if (r->listen_drops >= 0)
        jsonw_i64(w, r->listen_drops);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
    bench_endpoints_write_json(w, r); /* cancelled, cancel, balance, endpoints */
    jsonw_key(w, "invalid_client");
    jsonw_bool(w, !r->valid && r->invalid_client);
    jsonw_key(w, "lag_pass");
    jsonw_bool(w, r->lag_pass);
    jsonw_key(w, "stopped_by_rule");
    jsonw_bool(w, r->stopped_by_rule);
    jsonw_key(w, "stability");
    if (p->stability)
        jsonw_str(w, p->stability);
    else
        jsonw_null(w);
    jsonw_key(w, "slo");
    if (p->slo.have) {
        static const char *const verdicts[] = {"pass", "fail", "undecided"};
        jsonw_obj_begin(w);
        jsonw_key(w, "pass");
        jsonw_bool(w, p->slo.pass);
        jsonw_key(w, "confidence");
        if (p->slo.confidence > 0)
            jsonw_double(w, p->slo.confidence, 6);
        else
            jsonw_null(w);
        jsonw_key(w, "terms");
        jsonw_arr_begin(w);
        for (int i = 0; i < p->slo.n; i++) {
            const struct bench_slo_term_result *t = &p->slo.t[i];
            jsonw_obj_begin(w);
            jsonw_key(w, "term");
            jsonw_str(w, t->text);
            jsonw_key(w, t->is_errors ? "observed_fraction" : "observed_ms");
            if (t->is_errors)
                jsonw_double(w, t->observed, 6);
            else
                json_ms(w, t->observed);
            jsonw_key(w, "verdict");
            jsonw_str(w, verdicts[t->verdict >= 0 && t->verdict <= 2 ? t->verdict : 1]);
            jsonw_key(w, "more_needed");
            jsonw_u64(w, t->more_needed);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    } else {
        jsonw_null(w);
    }
    if (p->llm) llm_summary_write_json(w, p->llm);
    bench_sess_write_json(w, p->sessions);
    if (p->gpu)
        gpu_point_write_json(w, p->gpu, r->have_window ? r->window_start_ns : r->t_first_sched);
    bench_slices_write_json(w, p->slices);
    /* Multi-host (bench/shard.h): the point's start on the wall clock, the per-shard lines. */
    jsonw_key(w, "t0_unix_ns");
    jsonw_i64(w, r->t0_unix_ns);
    jsonw_key(w, "window_start_unix_ns");
    if (r->have_window)
        jsonw_i64(w, r->t0_unix_ns + (r->window_start_ns - r->t0_ns));
    else
        jsonw_null(w);
    jsonw_key(w, "max_inflight");
    jsonw_u64(w, p->load.max_inflight);
    json_shard_lines(w, p);
    jsonw_key(w, "server");
    if (p->server.have) {
        jsonw_obj_begin(w);
        jsonw_key(w, "count");
        jsonw_u64(w, p->server.count);
        jsonw_key(w, "queue_ms");
        jsonw_fixed(w, p->server.queue_us / 1e3, 3);
        jsonw_key(w, "compute_input_ms");
        jsonw_fixed(w, p->server.compute_input_us / 1e3, 3);
        jsonw_key(w, "compute_infer_ms");
        jsonw_fixed(w, p->server.compute_infer_us / 1e3, 3);
        jsonw_key(w, "compute_output_ms");
        jsonw_fixed(w, p->server.compute_output_us / 1e3, 3);
        jsonw_obj_end(w);
    } else {
        jsonw_null(w);
    }
    if (p->grpc.have) { /* only on grpc:// runs */
        jsonw_key(w, "grpc");
        jsonw_obj_begin(w);
        jsonw_key(w, "connections");
        jsonw_u64(w, p->grpc.connections);
        jsonw_key(w, "streams");
        jsonw_u64(w, p->grpc.streams);
        jsonw_key(w, "max_streams_per_connection");
        jsonw_u64(w, p->grpc.max_streams);
        jsonw_key(w, "server_max_concurrent_streams");
        if (p->grpc.server_max_streams)
            jsonw_u64(w, p->grpc.server_max_streams);
        else
            jsonw_null(w);
        jsonw_key(w, "status");
        jsonw_obj_begin(w);
        for (unsigned c = 0; c < BENCH_GRPC_NCODES; c++) {
            jsonw_key(w, kpb_code_name(c));
            jsonw_u64(w, p->grpc.codes[c]);
        }
        jsonw_obj_end(w);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

/* --find-max: the lowest probed rate above the answer that missed the SLO (0 = none). */
/* What a find-max probe varied: its rate, or its concurrency (--find-max --concurrency). */
static double probe_value(const struct bench_run *r, const struct bench_point *p)
{
    return r->find_concurrency ? (double)p->load.concurrency : p->load.rate;
}

static double knee_fail_rate(const struct bench_run *r)
{
    double fail = 0;
    for (size_t i = 0; i < r->npoints; i++) {
        const struct bench_point *p = &r->points[i];
        /* Interrupted and client-INVALID probes are no verdict on the server. */
        if (!p->ran || ((p->res.valid || p->res.lag_pass) && p->slo.pass) || p->res.interrupted ||
            (!p->res.valid && p->res.invalid_client))
            continue;
        double v = probe_value(r, p);
        if (v > r->max_rate && (fail == 0 || v < fail)) fail = v;
    }
    return fail;
}

/* The two ends of a find-max range, each with the fewest decimals from d0 (up to 6) that
 * print them apart: "1.1 and 1.1" for 1.0625 and 1.125 would be no range. */
static void fm_value_pair(char *a, char *b, size_t len, double lo, double hi, int d0)
{
    for (int d = d0; d <= 6; d++) {
        snprintf(a, len, "%.*f", d, lo);
        snprintf(b, len, "%.*f", d, hi);
        if (strcmp(a, b) != 0 || lo == hi) break;
    }
}

/* A find_max member that exists in one search kind only: the value, or null. */
static void json_kind_value(struct jsonw *w, const char *key, bool have, double v)
{
    jsonw_key(w, key);
    if (have)
        jsonw_fixed(w, v, 3);
    else
        jsonw_null(w);
}

int bench_report_json(FILE *f, const struct bench_run *r)
{
    struct jsonw w;
    jsonw_init(&w, f, true);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "target"); /* first: the contract readers sniff (diff/bench.c) */
    jsonw_str(&w, r->target);
    lat_build_json(&w);
    /* the URL and the workload (its request line) as the user gave them, less the secrets of
     * a query or header (core/redact.h): a result file is shared */
    struct lat_buf red = LAT_BUF_INIT;
    jsonw_key(&w, "url");
    jsonw_str(&w, lat_redacted(&red, r->url));
    jsonw_key(&w, "mode");
    jsonw_str(&w, r->mode);
    jsonw_key(&w, "arrival");
    if (r->arrival)
        jsonw_str(&w, r->arrival);
    else
        jsonw_null(&w);
    jsonw_key(&w, "threads");
    jsonw_u64(&w, r->threads);
    jsonw_key(&w, "anchor");
    jsonw_str(&w, "latency_ms: from the intended send time; latency_actual_ms: from the actual "
                  "send");
    jsonw_key(&w, "rx_time");
    jsonw_str(&w, r->rx_time ? r->rx_time : "user");
    jsonw_key(&w, "interrupted");
    jsonw_bool(&w, r->interrupted);
    jsonw_key(&w, "workload");
    if (r->workload)
        jsonw_str(&w, lat_redacted(&red, r->workload));
    else
        jsonw_null(&w);
    buf_fini(&red);
    json_dist(&w, r);
    jsonw_key(&w, "points");
    jsonw_arr_begin(&w);
    for (size_t i = 0; i < r->npoints; i++)
        if (r->points[i].ran) json_point(&w, &r->points[i]);
    jsonw_arr_end(&w);
    if (r->server_profile) srvprof_write_json(&w, r->server_profile, 20);
    if (r->slo) {
        jsonw_key(&w, "find_max");
        jsonw_obj_begin(&w);
        jsonw_key(&w, "slo");
        jsonw_str(&w, r->slo);
        jsonw_key(&w, "search");
        jsonw_str(&w, r->find_concurrency ? "concurrency" : "rate");
        bool best = r->best_point >= 0, rate = !r->find_concurrency;
        double fail = knee_fail_rate(r);
        json_kind_value(&w, "max_rate", rate && best, r->max_rate);
        json_kind_value(&w, "max_concurrency", !rate && best, r->max_rate);
        json_kind_value(&w, "lowest_failing_concurrency", !rate && fail > 0, fail);
        jsonw_key(&w, "point");
        if (r->best_point >= 0)
            jsonw_i64(&w, r->best_point);
        else
            jsonw_null(&w);
        /* The knee: highest passing and lowest failing rate probed; the goodput at the
         * passing one (--target openai: requests meeting every per-request limit). */
        const struct llm_summary *ls = r->best_point >= 0 ? r->points[r->best_point].llm : NULL;
        json_kind_value(&w, "knee_rate", rate && best, r->max_rate);
        json_kind_value(&w, "lowest_failing_rate", rate && fail > 0, fail);
        jsonw_key(&w, "goodput_rps");
        if (ls && ls->has_slo)
            jsonw_double(&w, ls->goodput_rps, 6);
        else
            jsonw_null(&w);
        jsonw_key(&w, "goodput_fraction");
        if (ls && ls->has_slo)
            jsonw_double(&w, ls->goodput_fraction, 6);
        else
            jsonw_null(&w);
        jsonw_key(&w, "achieved_rps");
        if (r->best_point >= 0 && ls)
            jsonw_double(&w, ls->req_s, 6);
        else
            jsonw_null(&w);
        /* The search stopped at a load the client could not drive: max_* is a lower bound. */
        jsonw_key(&w, "client_limited");
        jsonw_bool(&w, r->client_limited);
        json_kind_value(&w, "client_limit", r->client_limited, r->client_limit);
        jsonw_key(&w, "client_limit_reason");
        if (r->client_limited)
            jsonw_str(&w, r->client_limit_reason);
        else
            jsonw_null(&w);
        /* the answer as a range (bench/loop.c): met in every measurement .. missed in every
         * one above it; inconclusive when noise, the client or too few samples left none */
        jsonw_key(&w, "range");
        jsonw_obj_begin(&w);
        json_kind_value(&w, "low", r->range_low > 0, r->range_low);
        json_kind_value(&w, "high", r->range_high > 0, r->range_high);
        jsonw_key(&w, "confidence");
        jsonw_double(&w, r->fm_confidence, 6);
        jsonw_key(&w, "min_samples");
        jsonw_u64(&w, r->min_samples);
        jsonw_key(&w, "noisy");
        jsonw_arr_begin(&w);
        for (size_t k = 0; k < r->nnoisy; k++)
            jsonw_fixed(&w, r->noisy[k], 3);
        jsonw_arr_end(&w);
        jsonw_key(&w, "inconclusive");
        jsonw_bool(&w, r->inconclusive);
        jsonw_key(&w, "inconclusive_reason");
        if (r->inconclusive)
            jsonw_str(&w, r->inconclusive_reason);
        else
            jsonw_null(&w);
        jsonw_obj_end(&w);
        jsonw_obj_end(&w);
    }
    jsonw_obj_end(&w);
    jsonw_raw(&w, "\n", 1);
    int rc = jsonw_finish(&w);
    jsonw_fini(&w);
    return rc;
}

static int cmp_rps(const void *a, const void *b)
{
    const struct bench_point *x = *(const struct bench_point *const *)a;
    const struct bench_point *y = *(const struct bench_point *const *)b;
    return (x->res.achieved_rps > y->res.achieved_rps) -
           (x->res.achieved_rps < y->res.achieved_rps);
}

/* --slice: a second table after one empty line, one row per slice of each point in run order
 * (and per GPU with telemetry). */
static void csv_slices(FILE *f, const struct bench_run *r, bool llm)
{
    bool any = false, gpu = false;
    for (size_t i = 0; i < r->npoints; i++) {
        if (!r->points[i].ran || !r->points[i].slices) continue;
        any = true;
        if (r->points[i].gpu && r->points[i].gpu->ndev) gpu = true;
    }
    if (!any) return;
    fputc('\n', f);
    bench_slices_csv_header(f, llm, gpu);
    for (size_t i = 0; i < r->npoints; i++)
        if (r->points[i].ran) bench_slices_csv_rows(f, r->points[i].slices, i + 1, llm, gpu);
}

/* Several endpoints: a table of per-endpoint rows after one empty line, points in run order. */
static void csv_endpoints(FILE *f, const struct bench_run *r)
{
    const struct bench_result **v = calloc(r->npoints ? r->npoints : 1, sizeof(*v));
    if (!v) return;
    for (size_t i = 0; i < r->npoints; i++)
        v[i] = r->points[i].ran ? &r->points[i].res : NULL;
    bench_endpoints_csv(f, v, r->npoints);
    free(v);
}

/* --sessions: a table of per-turn rows after one empty line, points in run order. */
static void csv_sessions(FILE *f, const struct bench_run *r)
{
    const struct bench_sess_point **v = calloc(r->npoints ? r->npoints : 1, sizeof(*v));
    if (!v) return;
    for (size_t i = 0; i < r->npoints; i++)
        v[i] = r->points[i].ran ? r->points[i].sessions : NULL;
    bench_sess_csv(f, v, r->npoints);
    free(v);
}

int bench_report_csv(FILE *f, const struct bench_run *r)
{
    bool server = false, rate = false, llm = false;
    size_t n = 0;
    struct bench_point **v = calloc(r->npoints ? r->npoints : 1, sizeof(*v));
    if (!v) return -ENOMEM;
    for (size_t i = 0; i < r->npoints; i++) {
        if (!r->points[i].ran) continue;
        v[n++] = &r->points[i];
        if (r->points[i].server.have) server = true;
        if (r->points[i].load.rate > 0) rate = true;
        if (r->points[i].llm) llm = true;
    }
    qsort(v, n, sizeof(*v), cmp_rps);
    fprintf(f, "%s,Inferences/Second", rate ? "Request Rate" : "Concurrency");
    if (server)
        fprintf(f, ",Network+Server Send/Recv,Server Queue,Server Compute Input,"
                   "Server Compute Infer,Server Compute Output");
    fprintf(f, ",p50 latency,p90 latency,p95 latency,p99 latency,Avg latency,"
               "p50 latency (actual send),p99 latency (actual send),Send Lag p99,Errors,Valid");
    /* --target openai (issue 17 item 7): the LLM metrics in the same unit (us), appended so
     * the perf_analyzer columns keep their places; empty where a point has no sample. */
    if (llm)
        fprintf(f, ",TTFT p50,TTFT p99,ITL p50,ITL p99,TPOT p50,TPOT p99,E2E p50,E2E p99,"
                   "Output Tokens/Second");
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        struct bench_point *p = v[i];
        struct bench_result *res = &p->res;
        struct lat_samples *ex = res->have_exact ? &res->exact : NULL;
        struct lat_samples *exa = res->have_exact ? &res->exact_actual : NULL;
        if (rate)
            fprintf(f, "%g", p->load.rate);
        else
            fprintf(f, "%u", p->load.concurrency);
        fprintf(f, ",%.2f", res->achieved_rps);
        double avg_us = mean_ns(&res->lat_actual, exa) / 1e3;
        if (server) {
            const struct bench_server_stats *s = &p->server;
            double srv =
                s->queue_us + s->compute_input_us + s->compute_infer_us + s->compute_output_us;
            double net = avg_us - srv;
            fprintf(f, ",%.0f,%.0f,%.0f,%.0f,%.0f", net > 0 ? net : 0, s->queue_us,
                    s->compute_input_us, s->compute_infer_us, s->compute_output_us);
        }
        for (int k = 0; k < 4; k++)
            fprintf(f, ",%.0f", (double)pct_ns(&res->lat, ex, pcts[k]) / 1e3);
        fprintf(f, ",%.0f", mean_ns(&res->lat, ex) / 1e3);
        fprintf(f, ",%.0f,%.0f", (double)pct_ns(&res->lat_actual, exa, 50) / 1e3,
                (double)pct_ns(&res->lat_actual, exa, 99) / 1e3);
        fprintf(f, ",%.0f,%llu,%s", (double)hist_value_at_percentile(&res->send_lag, 99) / 1e3,
                (unsigned long long)res->errors_total, res->valid ? "true" : "false");
        if (llm) {
            const struct llm_summary *s = p->llm;
            const struct llm_stat *st[] = {s ? &s->ttft : NULL, s ? &s->itl : NULL,
                                           s ? &s->tpot : NULL, s ? &s->e2e : NULL};
            for (int k = 0; k < 4; k++) {
                if (st[k] && st[k]->n)
                    fprintf(f, ",%.0f,%.0f", st[k]->p50 / 1e3, st[k]->p99 / 1e3);
                else
                    fputs(",,", f);
            }
            if (s)
                fprintf(f, ",%.2f", s->out_tok_s);
            else
                fputc(',', f);
        }
        fputc('\n', f);
    }
    free(v);
    csv_endpoints(f, r);
    csv_slices(f, r, llm);
    csv_sessions(f, r);
    return ferror(f) ? -EIO : 0;
}

static void text_lat_row(FILE *f, const char *label, const struct lat_hist *h,
                         struct lat_samples *s)
{
    fprintf(f, "  %-20s", label);
    if (!hist_count(h)) {
        fprintf(f, " (no samples)\n");
        return;
    }
    fprintf(f, " %9.3f", mean_ns(h, s) / 1e6);
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        fprintf(f, " %9.3f", (double)pct_ns(h, s, pcts[i]) / 1e6);
    fprintf(f, " %9.3f\n", (double)hist_max(h) / 1e6);
}

/* Merged / MPI-reduced points: one line per shard (rank). */
static void text_shard_lines(FILE *f, const struct bench_point *p)
{
    if (!p->nshards) return;
    fprintf(f, "  %-6s %10s %10s %8s %10s %10s %10s %s\n", "shard", "requests", "req/s", "errors",
            "lag p99 ms", "start ms", "clock ms", "valid");
    for (size_t i = 0; i < p->nshards; i++) {
        const struct bench_shard_line *l = &p->shards[i];
        char clk[32] = "-";
        if (isfinite(l->clock_offset_ms)) snprintf(clk, sizeof(clk), "%.3f", l->clock_offset_ms);
        fprintf(f, "  %-6u %10llu %10.1f %8llu %10.3f %10.3f %10s %s%s\n", l->index,
                (unsigned long long)l->requests, l->achieved_rps, (unsigned long long)l->errors,
                l->send_lag_p99_ms, l->t0_offset_ms, clk,
                l->valid ? "yes" : "INVALID: ", l->valid ? "" : l->invalid_reason);
    }
}

static void text_point(FILE *f, struct bench_point *p, size_t idx)
{
    struct bench_result *r = &p->res;
    if (p->load.rate > 0)
        fprintf(f, "point %zu: rate %g req/s (open loop, max in flight %u)\n", idx + 1,
                p->load.rate, p->load.max_inflight);
    else
        fprintf(f, "point %zu: concurrency %u (closed loop)\n", idx + 1, p->load.concurrency);
    fprintf(f, "  requests %llu in %.3f s = %.1f req/s, errors %llu", (unsigned long long)r->ok,
            r->duration_s, r->achieved_rps, (unsigned long long)r->errors_total);
    if (r->errors_total) {
        const char *sep = " (";
        for (int c = 0; c < BENCH_ERR__COUNT; c++)
            if (r->errors[c]) {
                fprintf(f, "%s%s %llu", sep, bench_err_names[c], (unsigned long long)r->errors[c]);
                if (c == BENCH_ERR_CONNECT && r->connect_err)
                    fprintf(f, " [%s]", lat_strerror(r->connect_err));
                sep = ", ";
            }
        fputc(')', f);
    }
    fprintf(f, ", client CPU %.0f %%\n", r->client_cpu_pct);
    if (r->interrupted_requests)
        fprintf(f, "  interrupted: %llu requests were still in flight (not counted as errors)\n",
                (unsigned long long)r->interrupted_requests);
    if (r->stale_retries)
        fprintf(f,
                "  stale keep-alive: %llu requests resent on a fresh connection (the server "
                "had closed the idle one and provably never read them; not counted as errors, "
                "latency from the first send)\n",
                (unsigned long long)r->stale_retries);
    if (r->slow_connects || r->listen_overflows > 0 || r->listen_drops > 0)
        fprintf(f,
                "  listen backlog: %llu connects over %.1f s (slowest %.3f s: SYN retransmits), "
                "this host's ListenOverflows %+lld, ListenDrops %+lld%s\n",
                (unsigned long long)r->slow_connects, (double)BENCH_SLOW_CONNECT_NS / 1e9,
                (double)r->connect_max_ns / 1e9, (long long)r->listen_overflows,
                (long long)r->listen_drops,
                r->listen_overflows < 0 ? " (not measured: not a loopback server)" : "");
    fprintf(f, "  %-20s %9s %9s %9s %9s %9s %9s %9s\n", "latency (ms)", "mean", "p50", "p90", "p95",
            "p99", "p99.9", "max");
    text_lat_row(f, "from intended send", &r->lat, r->have_exact ? &r->exact : NULL);
    text_lat_row(f, "from actual send", &r->lat_actual, r->have_exact ? &r->exact_actual : NULL);
    text_lat_row(f, "first byte (intended)", &r->ttfb, NULL);
    fprintf(f, "  send lag p50 %.3f ms, p99 %.3f ms, max %.3f ms; event-loop lag p99 %.3f ms\n",
            (double)hist_value_at_percentile(&r->send_lag, 50) / 1e6,
            (double)hist_value_at_percentile(&r->send_lag, 99) / 1e6,
            (double)hist_max(&r->send_lag) / 1e6,
            (double)hist_value_at_percentile(&r->loop_lag, 99) / 1e6);
    if (hist_count(&r->client_gap))
        fprintf(f,
                "  client gap (response to next send, same connection) p50 %.3f ms, p99 %.3f ms, "
                "max %.3f ms\n",
                (double)hist_value_at_percentile(&r->client_gap, 50) / 1e6,
                (double)hist_value_at_percentile(&r->client_gap, 99) / 1e6,
                (double)hist_max(&r->client_gap) / 1e6);
    if (p->server.have)
        fprintf(f,
                "  server (Triton stats, per request): queue %.3f ms, compute input %.3f ms, "
                "infer %.3f ms, output %.3f ms\n",
                p->server.queue_us / 1e3, p->server.compute_input_us / 1e3,
                p->server.compute_infer_us / 1e3, p->server.compute_output_us / 1e3);
    if (p->grpc.have) {
        fprintf(f, "  grpc: %llu streams on %llu connections (at most %u open on one",
                (unsigned long long)p->grpc.streams, (unsigned long long)p->grpc.connections,
                p->grpc.max_streams);
        if (p->grpc.server_max_streams)
            fprintf(f, "; server allows %u", (unsigned)p->grpc.server_max_streams);
        fprintf(f, ")");
        const char *sep = "; status";
        for (unsigned c = 1; c < BENCH_GRPC_NCODES; c++)
            if (p->grpc.codes[c]) {
                fprintf(f, "%s %s %llu", sep, kpb_code_name(c),
                        (unsigned long long)p->grpc.codes[c]);
                sep = ",";
            }
        fprintf(f, "\n");
    }
    bench_endpoints_write_text(f, r, p->server.have); /* cancellation, several endpoints */
    if (p->stability) fprintf(f, "  stability: %s\n", p->stability);
    if (p->slo.have) {
        static const char *const verdicts[] = {"pass", "FAIL", "undecided"};
        fprintf(f, "  SLO %s", p->slo.pass ? "met" : "NOT met");
        if (p->slo.confidence > 0) fprintf(f, " (confidence %g)", p->slo.confidence);
        fputc(':', f);
        for (int i = 0; i < p->slo.n; i++) {
            const struct bench_slo_term_result *t = &p->slo.t[i];
            if (t->is_errors)
                fprintf(f, " %s observed %.4f %s", t->text, t->observed,
                        verdicts[t->verdict >= 0 && t->verdict <= 2 ? t->verdict : 1]);
            else
                fprintf(f, " %s observed %.3f ms %s", t->text, t->observed / 1e6,
                        verdicts[t->verdict >= 0 && t->verdict <= 2 ? t->verdict : 1]);
            if (t->verdict == 2)
                fprintf(f, " (%llu more requests needed)", (unsigned long long)t->more_needed);
            fputc(i + 1 < p->slo.n ? ';' : '\n', f);
        }
    }
    if (r->valid)
        fprintf(f, "  VALID\n");
    else
        fprintf(f, "  INVALID: %s\n", r->invalid_reason);
    if (p->llm) {
        struct lat_buf b = LAT_BUF_INIT;
        if (llm_summary_format_text(&b, p->llm) == 0 && b.data) fputs(b.data, f);
        buf_fini(&b);
    }
    bench_sess_write_text(f, p->sessions);
    if (p->gpu) {
        struct lat_buf b = LAT_BUF_INIT;
        if (gpu_point_format_text(&b, p->gpu) == 0 && b.data) fputs(b.data, f);
        buf_fini(&b);
    }
    bench_slices_write_text(f, p->slices);
    text_shard_lines(f, p);
}

int bench_report_text(FILE *f, const struct bench_run *r)
{
    /* the URL (and what a merged result read from JSON) is the input's: escaped (core/esc.h) */
    struct lat_buf red = LAT_BUF_INIT;
    char et[64], eu[2048], es[256];
    fprintf(f, "latscope bench %s %s (%s, %u thread%s)\n", lat_esc_cell(et, sizeof(et), r->target),
            lat_esc_cell(eu, sizeof(eu), lat_redacted(&red, r->url)), r->mode, r->threads,
            r->threads == 1 ? "" : "s");
    buf_fini(&red);
    if (r->shard && r->shard->count > 1 && !r->dist)
        fprintf(f, "shard %u of %u (%s)\n", r->shard->index, r->shard->count,
                lat_esc_cell(es, sizeof(es), r->shard->source));
    fprintf(f, "latency is measured from the intended send time (CO-correct); percentiles: %s\n",
            "nearest rank");
    size_t ran = 0;
    for (size_t i = 0; i < r->npoints; i++) {
        if (!r->points[i].ran) continue;
        fputc('\n', f);
        text_point(f, &r->points[i], i);
        ran++;
    }
    if (ran > 1) {
        fprintf(f, "\n%-12s %10s %10s %8s %9s %9s %9s %s\n", "load", "requests", "req/s", "errors",
                "p50 ms", "p99 ms", "lag p99", "valid");
        for (size_t i = 0; i < r->npoints; i++) {
            struct bench_point *p = &r->points[i];
            if (!p->ran) continue;
            char load[32];
            if (p->load.rate > 0)
                snprintf(load, sizeof(load), "rate %g", p->load.rate);
            else
                snprintf(load, sizeof(load), "conc %u", p->load.concurrency);
            struct bench_result *res = &p->res;
            struct lat_samples *ex = res->have_exact ? &res->exact : NULL;
            fprintf(f, "%-12s %10llu %10.1f %8llu %9.3f %9.3f %9.3f %s\n", load,
                    (unsigned long long)res->ok, res->achieved_rps,
                    (unsigned long long)res->errors_total, (double)pct_ns(&res->lat, ex, 50) / 1e6,
                    (double)pct_ns(&res->lat, ex, 99) / 1e6,
                    (double)hist_value_at_percentile(&res->send_lag, 99) / 1e6,
                    res->valid ? "yes" : "INVALID");
        }
    }
    if (r->slo) {
        const char *unit = r->find_concurrency ? "" : " req/s";
        const char *what = r->find_concurrency ? "concurrency" : "rate";
        char lo[32], hi[32];
        fm_value_pair(lo, hi, sizeof(lo), r->range_low, r->range_high, r->find_concurrency ? 0 : 1);
        if (r->best_point >= 0 && r->find_concurrency)
            fprintf(f, "\nfind-max: highest concurrency meeting %s: %.0f (point %d, %.3f req/s)\n",
                    r->slo, r->max_rate, r->best_point + 1,
                    r->points[r->best_point].res.achieved_rps);
        else if (r->best_point >= 0)
            fprintf(f, "\nfind-max: highest rate meeting %s: %.1f req/s (point %d)\n", r->slo,
                    r->max_rate, r->best_point + 1);
        else
            fprintf(f, "\nfind-max: no probed %s met %s\n", what, r->slo);
        if (r->min_samples)
            fprintf(f,
                    "find-max: each verdict came from %llu samples or more (its percentiles need "
                    "them); "
                    "a miss, or a pass not established at confidence %g, was measured again\n",
                    (unsigned long long)r->min_samples, r->fm_confidence);
        for (size_t k = 0; k < r->nnoisy; k++)
            fprintf(f,
                    "find-max: %s %g%s met the SLO in some measurements and missed it in "
                    "others (noisy)\n",
                    what, r->noisy[k], unit);
        if (r->inconclusive)
            fprintf(f, "find-max: INCONCLUSIVE: %s%s\n", r->inconclusive_reason,
                    r->best_point >= 0 ? "; the highest passing probe above is no answer" : "");
        else if (r->range_low > 0 && r->range_high > 0)
            fprintf(f,
                    "find-max: the knee lies between %s%s (met in every measurement) and %s%s "
                    "(missed in every measurement)\n",
                    lo, unit, hi, unit);
        else if (r->range_low > 0)
            fprintf(f, "find-max: the SLO holds up to %s%s at least (the search's maximum)\n", lo,
                    unit);
        if (r->best_point >= 0 && !r->inconclusive) {
            const struct llm_summary *ls = r->points[r->best_point].llm;
            if (ls && ls->has_slo)
                fprintf(f,
                        "find-max: at the knee %.3f req/s completed, goodput %.3f req/s "
                        "(%.2f %% of requests met every per-request limit)\n",
                        ls->req_s, ls->goodput_rps, 100.0 * ls->goodput_fraction);
        }
        if (r->client_limited)
            fprintf(f,
                    "find-max: stopped at %s %g: the client could not drive that load (%s); "
                    "this is not the server's limit%s\n",
                    what, r->client_limit, r->client_limit_reason,
                    r->best_point >= 0 ? ", which is at least the highest passing probe above"
                                       : "");
    }
    if (r->dist) {
        fprintf(f, "\n%s of %u shards: start skew up to %.3f ms", r->dist->method, r->dist->nshards,
                r->dist->max_start_skew_ms);
        if (isfinite(r->dist->max_clock_offset_ms))
            fprintf(f, ", clock offsets up to %.3f ms", r->dist->max_clock_offset_ms);
        if (isfinite(r->dist->reduce_ms))
            fprintf(f, ", reduction %.3f ms per point", r->dist->reduce_ms);
        fputc('\n', f);
    } else if (r->shard && r->shard->count > 1) {
        fprintf(f, "\nshard %u of %u (%s): merge the shards' JSON with 'latscope bench merge'\n",
                r->shard->index, r->shard->count, r->shard->source);
    }
    if (r->interrupted) fprintf(f, "\n(interrupted: results cover what completed)\n");
    return ferror(f) ? -EIO : 0;
}

int bench_report_records(FILE *f, const struct bench_point *p, size_t idx)
{
    const struct bench_result *r = &p->res;
    lat_ns base = r->t_first_sched;
    for (size_t i = 0; i < r->nrecords; i++) {
        const struct bench_record *q = &r->records[i];
        fprintf(f,
                "{\"point\":%zu,\"thread\":%u,\"t_sched_ns\":%lld,\"t_send_ns\":%lld,"
                "\"t_first_ns\":%lld,\"t_end_ns\":%lld,\"latency_ns\":%lld,"
                "\"latency_actual_ns\":%lld,\"status\":%d,\"bytes\":%llu,\"error\":",
                idx, q->thread, (long long)(q->t_sched - base),
                (long long)(q->t_send ? q->t_send - base : -1),
                (long long)(q->t_first ? q->t_first - base : -1), (long long)(q->t_end - base),
                (long long)(q->t_end - q->t_sched),
                (long long)(q->t_send ? q->t_end - q->t_send : -1), q->status,
                (unsigned long long)q->bytes);
        if (q->err == BENCH_REC_INTERRUPTED)
            fputs("\"interrupted\"}\n", f);
        else if (q->err == BENCH_REC_CANCELLED)
            fputs("\"cancelled\"}\n", f);
        else if (q->err >= 0)
            fprintf(f, "\"%s\"}\n", bench_err_names[q->err]);
        else
            fputs("null}\n", f);
    }
    return ferror(f) ? -EIO : 0;
}
