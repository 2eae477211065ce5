/*
 * trt.c - TensorRT section of analyze (see trt.h). O(n log n): one pass over the events, sorts
 * of the per-query durations and of the layer rows.
 */
#include "analyze/trt.h"
#include "analyze/render.h"
#include "analyze/sections.h"
#include "core/esc.h"
#include "core/jsonw.h"
#include "core/pctl.h"
#include "core/sort.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const lat_trt_metric_keys[LAT_TRT_NMETRIC] = {"latency",     "enqueue", "h2d",
                                                          "gpu_compute", "d2h",     "end_to_end"};
const char *const lat_trt_metric_labels[LAT_TRT_NMETRIC] = {
    "Latency", "Enqueue Time", "H2D Latency", "GPU Compute Time", "D2H Latency", "End-to-End"};
static const double pct_at[LAT_TRT_NPCT] = {90, 95, 99};

bool lat_trt_is(const struct lat_trace *t)
{
    return lat_trace_has(t, LAT_FCAP_TRT_LAYERS);
}

/* v (a metadata value: JSON text) without its quotes and escapes, into buf */
static const char *unq(const char *v, char *buf, size_t n)
{
    size_t o = 0, l = strlen(v);
    if (l >= 2 && v[0] == '"' && v[l - 1] == '"') { /* the JSON string the reader wrote */
        for (size_t i = 1; i + 1 < l && o + 1 < n; i++) {
            if (v[i] == '\\' && i + 2 < l) {
                i++;
                if (v[i] == 'u' && i + 4 < l) { /* \u00XX control characters */
                    buf[o++] = ' ';
                    i += 4;
                    continue;
                }
            }
            buf[o++] = v[i];
        }
    } else {
        for (size_t i = 0; i < l && o + 1 < n; i++)
            buf[o++] = v[i];
    }
    buf[o] = 0;
    return buf;
}

const char *lat_trt_meta(const struct lat_trace *t, const char *key, char *buf, size_t n)
{
    char k[200];
    snprintf(k, sizeof(k), "trt.%s", key);
    uint32_t id = strtab_find(&t->strs, k, strlen(k));
    if (id == UINT32_MAX || n < 2) return NULL;
    const char *v = NULL;
    for (size_t i = 0; i < t->nmeta; i++)
        if (t->meta[i].key == id) v = lat_trace_str(t, t->meta[i].value);
    return v ? unq(v, buf, n) : NULL;
}

static bool meta_num(const struct lat_trace *t, const char *key, double *out)
{
    char b[64];
    const char *v = lat_trt_meta(t, key, b, sizeof(b));
    if (!v) return false;
    char *end;
    double d = strtod(v, &end);
    if (end == v || !isfinite(d)) return false;
    *out = d;
    return true;
}

/* "Enabled"/"Disabled" -> 1/0, -1 when absent */
static int meta_flag(const struct lat_trace *t, const char *key)
{
    char b[64];
    const char *v = lat_trt_meta(t, key, b, sizeof(b));
    if (!v) return -1;
    if (!strncmp(v, "Enabled", 7)) return 1;
    if (!strncmp(v, "Disabled", 8)) return 0;
    return -1;
}

static uint32_t find_id(const struct lat_trace *t, const char *s)
{
    return strtab_find(&t->strs, s, strlen(s));
}

static const struct lat_arg *arg(const struct lat_trace *t, size_t i, uint32_t key)
{
    if (key == UINT32_MAX) return NULL;
    const struct lat_arg *a = t->args + t->ev.args[i];
    for (uint32_t j = 0; j < t->ev.nargs[i]; j++)
        if (a[j].key == key) return &a[j];
    return NULL;
}
static const char *arg_s(const struct lat_trace *t, size_t i, uint32_t key)
{
    const struct lat_arg *a = arg(t, i, key);
    return a && a->type == LAT_ARG_STR ? lat_trace_str(t, a->str) : NULL;
}
static bool arg_d(const struct lat_trace *t, size_t i, uint32_t key, double *v)
{
    const struct lat_arg *a = arg(t, i, key);
    if (!a) return false;
    if (a->type == LAT_ARG_DOUBLE)
        *v = a->v.d;
    else if (a->type == LAT_ARG_INT)
        *v = (double)a->v.i;
    else
        return false;
    return isfinite(*v);
}

static int cmp_layer(const void *a, const void *b)
{
    const struct lat_trt_layer *x = a, *y = b;
    if (x->avg_ms != y->avg_ms) return x->avg_ms > y->avg_ms ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_group(const void *a, const void *b)
{
    const struct lat_trt_group *x = a, *y = b;
    if (x->avg_ms != y->avg_ms) return x->avg_ms > y->avg_ms ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* trtexec's statistics of v[0..n) (ns, sorted in place), in ms */
static void stats(int64_t *v, size_t n, struct lat_trt_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    if (!n) return;
    qsort(v, n, sizeof(*v), lat_cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    double mean = sum / (double)n, var = 0;
    for (size_t i = 0; i < n; i++)
        var += ((double)v[i] - mean) * ((double)v[i] - mean);
    s->min = (double)v[0] / 1e6;
    s->max = (double)v[n - 1] / 1e6;
    s->mean = mean / 1e6;
    s->median = lat_median_i64(v, n) / 1e6;
    s->cov_pct = mean > 0 ? 100.0 * sqrt(var / (double)n) / mean : 0;
    for (int k = 0; k < LAT_TRT_NPCT; k++) {
        /* sampleReporting.cpp findPercentile: all - 1 - (int)((1 - p/100) * all), in float
         * as trtexec computes it (in double, 1 - 0.9 = 0.0999...98: 10 queries would exclude
         * 0 instead of 1 and p90 would be the max) */
        volatile float pf = (float)pct_at[k] / 100.0f;
        volatile float ex = (1.0f - pf) * (float)n;
        int64_t exclude = (int64_t)ex;
        int64_t idx = (int64_t)n - 1 - exclude;
        if (idx < 0) idx = 0;
        s->pct[k] = (double)v[idx] / 1e6;
    }
}

/* "3s (+ 200ms warm up)" -> 200 */
static double warmup_of(const char *d)
{
    const char *p = d ? strstr(d, "(+ ") : NULL;
    if (!p) return -1;
    char *end;
    double v = strtod(p + 3, &end);
    if (end == p + 3 || v < 0 || !isfinite(v)) return -1;
    if (!strncmp(end, "ms", 2)) return v;
    if (*end == 's') return v * 1000.0;
    return -1;
}

static int groups(struct lat_trt_layer *L, size_t n, bool by_type, double denom,
                  struct lat_trt_group **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!n) return 0;
    struct lat_trt_group *g = calloc(n, sizeof(*g));
    if (!g) return -ENOMEM;
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (!L[i].has_profile) continue;
        const char *k = by_type ? L[i].type : L[i].precision;
        if (!k) k = "(unknown)";
        size_t j = 0;
        while (j < ng && strcmp(g[j].name, k))
            j++;
        if (j == ng) g[ng++].name = k;
        g[j].layers++;
        g[j].avg_ms += L[i].avg_ms;
    }
    for (size_t j = 0; j < ng; j++) {
        g[j].share_pct = denom > 0 ? 100.0 * g[j].avg_ms / denom : 0;
        if (g[j].share_pct > 100) g[j].share_pct = 100;
    }
    qsort(g, ng, sizeof(*g), cmp_group);
    *out = g;
    *nout = ng;
    return 0;
}

int lat_trt_summarize(const struct lat_trace *t, struct lat_trt_summary *s)
{
    static char none[] = "";
    memset(s, 0, sizeof(*s));
    s->profile_count = -1;
    s->warmup_ms = -1;
    s->inputs = none;
    const struct lat_event_cols *ev = &t->ev;
    /* the strings of the section point into the trace: kept in meta-backed statics would not
     * be thread-safe, so strings come from the trace's own table */
    uint32_t m_inputs = find_id(t, "trt.inputs");
    for (size_t i = 0; i < t->nmeta; i++)
        if (t->meta[i].key == m_inputs) s->inputs = lat_trace_str(t, t->meta[i].value);
    double d;
    if (meta_num(t, "profile_count", &d)) s->profile_count = (int64_t)d;
    char b[64];
    const char *no = lat_trt_meta(t, "layer_info_names_only", b, sizeof(b));
    s->names_only = no && !strcmp(no, "true");

    uint32_t c_layer = find_id(t, "trt_layer");
    uint32_t cq[4] = {find_id(t, "trt_enqueue"), find_id(t, "trt_h2d"), find_id(t, "trt_compute"),
                      find_id(t, "trt_d2h")};
    uint32_t k_idx = find_id(t, "layer_index"), k_avg = find_id(t, "average_ms"),
             k_med = find_id(t, "median_ms"), k_time = find_id(t, "time_ms"),
             k_pct = find_id(t, "percentage"), k_type = find_id(t, "layer_type"),
             k_prec = find_id(t, "precision"), k_tac = find_id(t, "tactic"),
             k_org = find_id(t, "origin"), k_inp = find_id(t, "in_profile"),
             k_ini = find_id(t, "in_layer_info");
    size_t nl = 0, nqev[4] = {0};
    for (size_t i = 0; i < ev->n; i++) {
        if (ev->cat[i] == c_layer && c_layer != UINT32_MAX) nl++;
        for (int k = 0; k < 4; k++)
            if (ev->cat[i] == cq[k] && cq[k] != UINT32_MAX) nqev[k]++;
    }
    /* queries: the reader writes the four events of a query with one step, in order */
    size_t nq = nqev[2];
    int64_t *v[LAT_TRT_NMETRIC] = {0};
    int64_t(*qq)[8] = NULL;
    bool *seen = NULL;
    int rc = -ENOMEM;
    if (nl && !(s->layers = calloc(nl, sizeof(*s->layers)))) goto fail;
    if (nq) {
        if (!(qq = calloc(nq, sizeof(*qq)))) goto fail;
        for (int k = 0; k < LAT_TRT_NMETRIC; k++)
            if (!(v[k] = malloc(nq * sizeof(int64_t)))) goto fail;
    }
    size_t li = 0;
    seen = nq ? calloc(nq, sizeof(bool) * 4) : NULL;
    if (nq && !seen) goto fail;
    for (size_t i = 0; i < ev->n; i++) {
        if (ev->cat[i] == c_layer && c_layer != UINT32_MAX) {
            struct lat_trt_layer *L = &s->layers[li++];
            L->name = lat_trace_str(t, ev->name[i]);
            const struct lat_arg *a = arg(t, i, k_idx);
            L->index = a && a->type == LAT_ARG_INT ? a->v.i : (int64_t)li;
            a = arg(t, i, k_inp);
            L->has_profile = a && a->type == LAT_ARG_BOOL && a->v.i;
            a = arg(t, i, k_ini);
            if (a && a->type == LAT_ARG_BOOL && a->v.i) s->ninfo++;
            if (L->has_profile && !arg_d(t, i, k_avg, &L->avg_ms)) L->has_profile = false;
            if (L->has_profile) {
                s->nprofiled++;
                arg_d(t, i, k_time, &L->time_ms);
                arg_d(t, i, k_pct, &L->pct_file);
                L->has_median = arg_d(t, i, k_med, &L->median_ms);
            }
            L->type = arg_s(t, i, k_type);
            L->precision = arg_s(t, i, k_prec);
            L->tactic = arg_s(t, i, k_tac);
            L->origin = arg_s(t, i, k_org);
            L->qdq = L->origin && !strcmp(L->origin, "QDQ");
            /* a format copy: LayerType Reformat outside Q/DQ; without layer info, the name
             * TensorRT gives them (with it, a "Reformatting CopyNode" of type NoOp was
             * optimized away) */
            L->reformat = !L->qdq && (L->type ? !strcmp(L->type, "Reformat")
                                              : !strncmp(L->name, "Reformatting CopyNode", 21));
            continue;
        }
        for (int k = 0; k < 4; k++) {
            if (ev->cat[i] != cq[k] || cq[k] == UINT32_MAX) continue;
            int32_t st = ev->step[i];
            if (st < 0 || (size_t)st >= nq || seen[(size_t)st * 4 + (size_t)k]) break;
            seen[(size_t)st * 4 + (size_t)k] = true;
            qq[st][2 * k] = ev->ts[i];
            qq[st][2 * k + 1] = ev->ts[i] + ev->dur[i];
        }
    }
    s->nlayers = li;
    for (size_t i = 0; i < li; i++)
        if (s->layers[i].has_profile) {
            s->layers_avg_sum_ms += s->layers[i].avg_ms;
            s->layers_time_sum_ms += s->layers[i].time_ms;
        }
    for (size_t i = 0; i < li; i++) {
        struct lat_trt_layer *L = &s->layers[i];
        if (!L->has_profile) continue;
        L->share_pct = s->layers_avg_sum_ms > 0 ? 100.0 * L->avg_ms / s->layers_avg_sum_ms : 0;
        if (L->reformat) s->nreformat++, s->reformat_ms += L->avg_ms;
        if (L->qdq) s->nqdq++, s->qdq_ms += L->avg_ms;
    }
    if (s->layers_avg_sum_ms > 0) {
        s->reformat_pct = fmin(100.0, 100.0 * s->reformat_ms / s->layers_avg_sum_ms);
        s->qdq_pct = fmin(100.0, 100.0 * s->qdq_ms / s->layers_avg_sum_ms);
    }
    if (li) qsort(s->layers, li, sizeof(*s->layers), cmp_layer);
    if ((rc = groups(s->layers, li, true, s->layers_avg_sum_ms, &s->types, &s->ntypes)) ||
        (rc = groups(s->layers, li, false, s->layers_avg_sum_ms, &s->precisions, &s->nprecisions)))
        goto fail;
    rc = -ENOMEM;

    /* options */
    uint32_t kbp = find_id(t, "trt.build.Precision");
    for (size_t i = 0; i < t->nmeta; i++)
        if (t->meta[i].key == kbp) s->build_precision = lat_trace_str(t, t->meta[i].value);
    char ob[128];
    const char *dur = lat_trt_meta(t, "option.Duration", ob, sizeof(ob));
    s->warmup_ms = warmup_of(dur);
    if (meta_num(t, "option.Streams", &d) && d >= 0 && d < 1e6)
        s->streams = (int)d;
    else
        s->streams = -1;
    s->cuda_graph = meta_flag(t, "option.CUDA Graph");
    s->data_transfers = meta_flag(t, "option.Data transfers");
    s->separate_profiling = meta_flag(t, "option.Separate profiling");
    s->spin_wait = meta_flag(t, "option.Spin-wait");

    /* queries (trtexec: skip those whose compute starts within the warm-up) */
    s->nq = nq;
    s->nq_dropped = t->drops_query;
    int64_t warm = s->warmup_ms >= 0 ? (int64_t)llround(s->warmup_ms * 1e6) : INT64_MIN;
    size_t kept = 0;
    int64_t first_h2d = 0, last_d2h = 0;
    for (size_t i = 0; i < nq; i++) {
        bool all = seen[i * 4] && seen[i * 4 + 1] && seen[i * 4 + 2] && seen[i * 4 + 3];
        if (!all || qq[i][4] < warm) continue;
        const int64_t *x = qq[i];
        v[LAT_TRT_ENQUEUE][kept] = x[1] - x[0];
        v[LAT_TRT_H2D][kept] = x[3] - x[2];
        v[LAT_TRT_COMPUTE][kept] = x[5] - x[4];
        v[LAT_TRT_D2H][kept] = x[7] - x[6];
        v[LAT_TRT_LATENCY][kept] = (x[3] - x[2]) + (x[5] - x[4]) + (x[7] - x[6]);
        v[LAT_TRT_E2E][kept] = x[7] - x[2];
        if (!kept) first_h2d = x[2];
        last_d2h = x[7];
        kept++;
    }
    s->nq_kept = kept;
    for (int k = 0; k < LAT_TRT_NMETRIC; k++)
        stats(v[k], kept, &s->q[k]);
    if (kept && last_d2h > first_h2d) {
        s->q_wall_ms = (double)(last_d2h - first_h2d) / 1e6;
        s->q_qps = (double)kept / (s->q_wall_ms / 1000.0);
    }

    /* trtexec's own summary */
    char src[128];
    const char *sv = lat_trt_meta(t, "summary.source", src, sizeof(src));
    if (sv) {
        uint32_t ks = find_id(t, "trt.summary.source");
        for (size_t i = 0; i < t->nmeta; i++)
            if (t->meta[i].key == ks) s->summary_source = lat_trace_str(t, t->meta[i].value);
    }
    for (int k = 0; k < LAT_TRT_NMETRIC; k++) {
        struct lat_trt_printed *p = &s->p[k];
        char key[96];
#define GET(fld, stat)                                                                             \
    snprintf(key, sizeof(key), "summary.%s_ms.%s", lat_trt_metric_keys[k], stat);                  \
    p->have_##fld = meta_num(t, key, &p->fld)
        GET(min, "min");
        GET(max, "max");
        GET(mean, "mean");
        GET(median, "median");
#undef GET
        static const char *const ps[] = {"p90", "p95", "p99", "p99.9", "p50", "p75"};
        static const double pa[] = {90, 95, 99, 99.9, 50, 75};
        for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]) && p->npct < 8; j++) {
            snprintf(key, sizeof(key), "summary.%s_ms.%s", lat_trt_metric_keys[k], ps[j]);
            if (meta_num(t, key, &p->pct[p->npct])) p->pct_at[p->npct++] = pa[j];
        }
    }
    s->have_p_qps = meta_num(t, "summary.throughput_qps", &s->p_qps);
    s->have_p_wall = meta_num(t, "summary.walltime_s", &s->p_wall_s);
    s->have_p_gpu_total = meta_num(t, "summary.gpu_compute_total_s", &s->p_gpu_total_s);

    /* log warnings */
    for (size_t i = 0; i < 20; i++) {
        char key[48];
        snprintf(key, sizeof(key), "trt.log.warning.%zu", i);
        uint32_t kw = find_id(t, key);
        if (kw == UINT32_MAX) break;
        for (size_t j = 0; j < t->nmeta; j++)
            if (t->meta[j].key == kw)
                s->warnings[s->nwarnings] = lat_trace_str(t, t->meta[j].value);
        if (s->warnings[s->nwarnings]) s->nwarnings++;
    }
    rc = 0;
fail:
    free(seen);
    free(qq);
    for (int k = 0; k < LAT_TRT_NMETRIC; k++)
        free(v[k]);
    if (rc) lat_trt_summary_fini(s);
    return rc;
}

void lat_trt_summary_fini(struct lat_trt_summary *s)
{
    free(s->layers);
    free(s->types);
    free(s->precisions);
    s->layers = NULL;
    s->types = s->precisions = NULL;
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void j_ms(struct jsonw *w, const char *k, double ms)
{
    jsonw_key(w, k);
    jsonw_double(w, ms, 9);
}

static void j_str(struct jsonw *w, const char *k, const char *v)
{
    jsonw_key(w, k);
    if (v)
        jsonw_str(w, v);
    else
        jsonw_null(w);
}

static void j_raw_str(struct jsonw *w, const char *k, const char *json)
{
    char b[1024];
    if (k) jsonw_key(w, k); /* a JSON string the reader wrote into the metadata */
    if (json)
        jsonw_str(w, unq(json, b, sizeof(b)));
    else
        jsonw_null(w);
}

static void j_flag(struct jsonw *w, const char *k, int v)
{
    jsonw_key(w, k);
    if (v < 0)
        jsonw_null(w);
    else
        jsonw_bool(w, v == 1);
}

static void j_groups(struct jsonw *w, const char *k, const char *name,
                     const struct lat_trt_group *g, size_t n)
{
    jsonw_key(w, k);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        j_str(w, name, g[i].name);
        jsonw_key(w, "layers");
        jsonw_u64(w, g[i].layers);
        j_ms(w, "mean_ms", g[i].avg_ms);
        jsonw_key(w, "share_pct");
        jsonw_fixed(w, g[i].share_pct, 3);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void lat_trt_write_json(struct jsonw *w, const struct lat_trt_summary *s, size_t top_n)
{
    jsonw_key(w, "tensorrt");
    jsonw_obj_begin(w);
    j_raw_str(w, "inputs", s->inputs);
    jsonw_key(w, "profile_count");
    if (s->profile_count >= 0)
        jsonw_i64(w, s->profile_count);
    else
        jsonw_null(w);
    jsonw_key(w, "layers");
    jsonw_u64(w, s->nlayers);
    jsonw_key(w, "layers_profiled");
    jsonw_u64(w, s->nprofiled);
    jsonw_key(w, "layers_with_info");
    jsonw_u64(w, s->ninfo);
    jsonw_key(w, "layer_info_names_only");
    jsonw_bool(w, s->names_only);
    j_ms(w, "layers_mean_sum_ms", s->layers_avg_sum_ms);
    j_ms(w, "layers_total_sum_ms", s->layers_time_sum_ms);
    j_raw_str(w, "build_precision", s->build_precision);
    jsonw_key(w, "layer_rows");
    jsonw_arr_begin(w);
    size_t shown = 0;
    for (size_t i = 0; i < s->nlayers && (!top_n || shown < top_n); i++) {
        const struct lat_trt_layer *L = &s->layers[i];
        if (!L->has_profile) continue;
        shown++;
        jsonw_obj_begin(w);
        j_str(w, "name", L->name);
        jsonw_key(w, "index");
        jsonw_i64(w, L->index);
        j_str(w, "type", L->type);
        j_str(w, "precision", L->precision);
        j_str(w, "tactic", L->tactic);
        j_str(w, "origin", L->origin);
        j_ms(w, "mean_ms", L->avg_ms);
        jsonw_key(w, "median_ms");
        if (L->has_median)
            jsonw_double(w, L->median_ms, 9);
        else
            jsonw_null(w);
        j_ms(w, "total_ms", L->time_ms);
        jsonw_key(w, "percentage");
        jsonw_double(w, L->pct_file, 9);
        jsonw_key(w, "share_pct");
        jsonw_fixed(w, L->share_pct, 3);
        jsonw_key(w, "reformat");
        jsonw_bool(w, L->reformat);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "layer_rows_total");
    jsonw_u64(w, s->nprofiled);
    j_groups(w, "by_type", "type", s->types, s->ntypes);
    j_groups(w, "by_precision", "precision", s->precisions, s->nprecisions);
    jsonw_key(w, "reformat");
    jsonw_obj_begin(w);
    jsonw_key(w, "layers");
    jsonw_u64(w, s->nreformat);
    j_ms(w, "mean_ms", s->reformat_ms);
    jsonw_key(w, "share_pct");
    jsonw_fixed(w, s->reformat_pct, 3);
    jsonw_key(w, "qdq_layers");
    jsonw_u64(w, s->nqdq);
    j_ms(w, "qdq_mean_ms", s->qdq_ms);
    jsonw_key(w, "qdq_share_pct");
    jsonw_fixed(w, s->qdq_pct, 3);
    jsonw_obj_end(w);

    jsonw_key(w, "queries");
    if (!s->nq) {
        jsonw_null(w);
    } else {
        jsonw_obj_begin(w);
        jsonw_key(w, "count");
        jsonw_u64(w, s->nq);
        jsonw_key(w, "kept");
        jsonw_u64(w, s->nq_kept);
        jsonw_key(w, "dropped");
        jsonw_u64(w, s->nq_dropped);
        jsonw_key(w, "warmup_ms");
        if (s->warmup_ms >= 0)
            jsonw_double(w, s->warmup_ms, 9);
        else
            jsonw_null(w);
        jsonw_key(w, "clocks");
        jsonw_str(w, "enqueue: host clock; h2d, gpu_compute, d2h: CUDA events (GPU clock)");
        j_ms(w, "walltime_ms", s->q_wall_ms);
        jsonw_key(w, "throughput_qps");
        jsonw_double(w, s->q_qps, 9);
        for (int k = 0; k < LAT_TRT_NMETRIC; k++) {
            const struct lat_trt_stats *x = &s->q[k];
            char key[48];
            snprintf(key, sizeof(key), "%s_ms", lat_trt_metric_keys[k]);
            jsonw_key(w, key);
            jsonw_obj_begin(w);
            j_ms(w, "min", x->min);
            j_ms(w, "max", x->max);
            j_ms(w, "mean", x->mean);
            j_ms(w, "median", x->median);
            for (int p = 0; p < LAT_TRT_NPCT; p++) {
                char pk[16];
                snprintf(pk, sizeof(pk), "p%g", pct_at[p]);
                j_ms(w, pk, x->pct[p]);
            }
            jsonw_key(w, "cov_pct");
            jsonw_fixed(w, x->cov_pct, 3);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }

    jsonw_key(w, "summary");
    if (!s->summary_source) {
        jsonw_null(w);
    } else {
        jsonw_obj_begin(w);
        j_raw_str(w, "source", s->summary_source);
        jsonw_key(w, "throughput_qps");
        if (s->have_p_qps)
            jsonw_double(w, s->p_qps, 9);
        else
            jsonw_null(w);
        jsonw_key(w, "walltime_s");
        if (s->have_p_wall)
            jsonw_double(w, s->p_wall_s, 9);
        else
            jsonw_null(w);
        jsonw_key(w, "gpu_compute_total_s");
        if (s->have_p_gpu_total)
            jsonw_double(w, s->p_gpu_total_s, 9);
        else
            jsonw_null(w);
        for (int k = 0; k < LAT_TRT_NMETRIC; k++) {
            const struct lat_trt_printed *p = &s->p[k];
            if (!p->have_min && !p->have_median && !p->npct) continue;
            char key[48];
            snprintf(key, sizeof(key), "%s_ms", lat_trt_metric_keys[k]);
            jsonw_key(w, key);
            jsonw_obj_begin(w);
#define PUT(f)                                                                                     \
    if (p->have_##f) j_ms(w, #f, p->f);
            PUT(min);
            PUT(max);
            PUT(mean);
            PUT(median);
#undef PUT
            for (size_t j = 0; j < p->npct; j++) {
                char pk[16];
                snprintf(pk, sizeof(pk), "p%g", p->pct_at[j]);
                j_ms(w, pk, p->pct[j]);
            }
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_key(w, "options");
    jsonw_obj_begin(w);
    jsonw_key(w, "streams");
    if (s->streams >= 0)
        jsonw_i64(w, s->streams);
    else
        jsonw_null(w);
    j_flag(w, "cuda_graph", s->cuda_graph);
    j_flag(w, "data_transfers", s->data_transfers);
    j_flag(w, "separate_profiling", s->separate_profiling);
    j_flag(w, "spin_wait", s->spin_wait);
    jsonw_obj_end(w);
    jsonw_key(w, "log_warnings");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nwarnings; i++)
        j_raw_str(w, NULL, s->warnings[i]);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

/* ---- text --------------------------------------------------------------------------------- */

/* a JSON string value of the metadata, printed without its quotes */
static void print_json_str(FILE *f, const char *j)
{
    char b[1024];
    if (j) fputs(unq(j, b, sizeof(b)), f);
}

void lat_trt_format_text(const struct lat_trt_summary *s, FILE *f, size_t top_n)
{
    fprintf(f, "\nTensorRT  inputs: ");
    print_json_str(f, s->inputs);
    if (s->build_precision) {
        fprintf(f, "; built with ");
        print_json_str(f, s->build_precision);
    }
    fputc('\n', f);
    if (s->nlayers) {
        fprintf(f, "layers  %zu (%zu profiled, %zu with layer info%s)", s->nlayers, s->nprofiled,
                s->ninfo, s->names_only ? ", names only" : "");
        if (s->nprofiled)
            fprintf(f, "; sum of layer means %.4f ms per inference%s", s->layers_avg_sum_ms,
                    s->profile_count >= 0 ? "" : "");
        if (s->profile_count >= 0)
            fprintf(f, " over %lld profiled iteration%s", (long long)s->profile_count,
                    s->profile_count == 1 ? "" : "s");
        fputc('\n', f);
    }
    if (s->nprofiled) {
        fprintf(f, "\n%-44s %-22s %-5s %10s %10s %6s  %s\n", "layer", "type", "prec", "mean ms",
                "median ms", "%sum", "tactic");
        size_t shown = 0;
        for (size_t i = 0; i < s->nlayers && shown < (top_n ? top_n : 15); i++) {
            const struct lat_trt_layer *L = &s->layers[i];
            if (!L->has_profile) continue;
            shown++;
            fprintf(f, "  ");
            lat_an_print_tail(f, L->name, 42);
            char e1[64], e2[64], e3[256];
            fprintf(f, " %-22.22s %-5.5s %10.4f ", L->type ? lat_esc_cell(e1, 64, L->type) : "",
                    L->precision ? lat_esc_cell(e2, 64, L->precision) : "", L->avg_ms);
            if (L->has_median)
                fprintf(f, "%10.4f", L->median_ms);
            else
                fprintf(f, "%10s", "-");
            fprintf(f, " %6.2f  %.60s\n", L->share_pct,
                    L->tactic ? lat_esc_cell(e3, sizeof(e3), L->tactic) : "");
        }
        if (s->nprofiled > shown) fprintf(f, "  (%zu more)\n", s->nprofiled - shown);
        fprintf(f, "\n%-30s %6s %10s %6s\n", "layer type", "layers", "mean ms", "%sum");
        char e[64];
        for (size_t i = 0; i < s->ntypes; i++)
            fprintf(f, "  %-28.28s %6zu %10.4f %6.2f\n",
                    lat_esc_cell(e, sizeof(e), s->types[i].name), s->types[i].layers,
                    s->types[i].avg_ms, s->types[i].share_pct);
        fprintf(f, "\n%-30s %6s %10s %6s\n", "precision (by time)", "layers", "mean ms", "%sum");
        for (size_t i = 0; i < s->nprecisions; i++)
            fprintf(f, "  %-28.28s %6zu %10.4f %6.2f\n",
                    lat_esc_cell(e, sizeof(e), s->precisions[i].name), s->precisions[i].layers,
                    s->precisions[i].avg_ms, s->precisions[i].share_pct);
        fprintf(f, "reformat layers  %zu, %.4f ms (%.2f %% of the layer sum)", s->nreformat,
                s->reformat_ms, s->reformat_pct);
        if (s->nqdq)
            fprintf(f, "; Q/DQ reformats %zu, %.4f ms (%.2f %%)", s->nqdq, s->qdq_ms, s->qdq_pct);
        fputc('\n', f);
    }
    if (s->nq) {
        fprintf(f, "\nqueries  %zu (%zu after the ", s->nq, s->nq_kept);
        if (s->warmup_ms >= 0)
            fprintf(f, "%g ms warm-up)", s->warmup_ms);
        else
            fprintf(f, "warm-up: unknown, all kept)");
        if (s->nq_dropped)
            fprintf(f, "; %llu more dropped as unusable (see the warning)",
                    (unsigned long long)s->nq_dropped);
        fprintf(f, "; throughput %.2f qps over %.3f ms\n", s->q_qps, s->q_wall_ms);
        fprintf(f, "  enqueue is on the host clock, H2D/compute/D2H on CUDA events\n");
        fprintf(f, "  %-18s %10s %10s %10s %10s %10s %10s %10s %7s\n", "ms", "min", "max", "mean",
                "median", "p90", "p95", "p99", "CoV %");
        for (int k = 0; k < LAT_TRT_NMETRIC; k++) {
            const struct lat_trt_stats *x = &s->q[k];
            fprintf(f, "  %-18s %10.5f %10.5f %10.5f %10.5f %10.5f %10.5f %10.5f %7.2f\n",
                    lat_trt_metric_labels[k], x->min, x->max, x->mean, x->median, x->pct[0],
                    x->pct[1], x->pct[2], x->cov_pct);
        }
    }
    if (s->summary_source) {
        fprintf(f, "\ntrtexec's summary (");
        print_json_str(f, s->summary_source);
        fprintf(f, ")\n");
        if (s->have_p_qps) fprintf(f, "  Throughput: %g qps\n", s->p_qps);
        for (int k = 0; k < LAT_TRT_NMETRIC; k++) {
            const struct lat_trt_printed *p = &s->p[k];
            if (!p->have_min && !p->have_median && !p->npct) continue;
            fprintf(f, "  %s:", lat_trt_metric_labels[k]);
            if (p->have_min) fprintf(f, " min = %g ms,", p->min);
            if (p->have_max) fprintf(f, " max = %g ms,", p->max);
            if (p->have_mean) fprintf(f, " mean = %g ms,", p->mean);
            if (p->have_median) fprintf(f, " median = %g ms", p->median);
            for (size_t j = 0; j < p->npct; j++)
                fprintf(f, ", percentile(%g%%) = %g ms", p->pct_at[j], p->pct[j]);
            fputc('\n', f);
        }
        if (s->have_p_wall) fprintf(f, "  Total Host Walltime: %g s\n", s->p_wall_s);
        if (s->have_p_gpu_total) fprintf(f, "  Total GPU Compute Time: %g s\n", s->p_gpu_total_s);
    }
    if (s->nwarnings) {
        fprintf(f, "\nlog warnings (%zu)\n", s->nwarnings);
        for (size_t i = 0; i < s->nwarnings; i++) {
            fprintf(f, "  ");
            print_json_str(f, s->warnings[i]);
            fputc('\n', f);
        }
    }
}

int lat_trt_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n)
{
    struct lat_trt_summary s;
    int rc = lat_trt_summarize(t, &s);
    if (rc) return rc;
    lat_trt_write_json(w, &s, top_n ? top_n : 15);
    lat_trt_summary_fini(&s);
    return 0;
}

int lat_trt_section_text(FILE *f, const struct lat_trace *t, size_t top_n)
{
    struct lat_trt_summary s;
    int rc = lat_trt_summarize(t, &s);
    if (rc) return rc;
    lat_trt_format_text(&s, f, top_n);
    lat_trt_summary_fini(&s);
    return 0;
}
