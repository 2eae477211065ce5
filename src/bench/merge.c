/*
 * merge.c - combining the JSON results of a load's shards (see merge.h).
 */
#include "bench/merge.h"

#include "bench/sessions.h"
#include "bench/slices.h"
#include "bench/telemetry.h"
#include "core/err.h"
#include "core/grow.h"
#include "hist/hlog.h"
#include "llm/metrics.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void seterr(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errsz, const char *fmt, ...)
{
    if (!err || !errsz) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
}

static void get_str(const char *d, size_t n, const char *path, char *out, size_t cap)
{
    struct lat_buf b = LAT_BUF_INIT;
    out[0] = '\0';
    if (json_get_str(d, n, path, &b) == 0 && b.data) snprintf(out, cap, "%s", b.data);
    buf_fini(&b);
}

static double get_num(const char *d, size_t n, const char *path, double dflt)
{
    double v;
    return json_get_double(d, n, path, &v) == 0 ? v : dflt;
}

static uint64_t get_u64(const char *d, size_t n, const char *path)
{
    int64_t v;
    return json_get_i64(d, n, path, &v) == 0 && v > 0 ? (uint64_t)v : 0;
}

static int64_t get_i64(const char *d, size_t n, const char *path, int64_t dflt)
{
    int64_t v;
    return json_get_i64(d, n, path, &v) == 0 ? v : dflt;
}

/* The base histograms every point has (bench_result), in JSON key order. */
enum { MH_LAT = 0, MH_ACT, MH_TTFB, MH_LAG, MH_LOOP, MH__N };
static const char *const base_names[MH__N] = {"latency", "latency_actual", "ttfb", "send_lag",
                                              "loop_lag"};

static struct lat_hist *base_hist(struct bench_result *r, int k)
{
    switch (k) {
    case MH_LAT:
        return &r->lat;
    case MH_ACT:
        return &r->lat_actual;
    case MH_TTFB:
        return &r->ttfb;
    case MH_LAG:
        return &r->send_lag;
    default:
        return &r->loop_lag;
    }
}

struct shard_doc {
    const char *doc, *name;
    size_t len;
    uint32_t index, count; /* count 0: no "shard" object */
    struct json_val pts;
    size_t npts;
    struct json_val *pv; /* npts point spans */
};

static int read_top(struct shard_doc *s, char *err, size_t errsz)
{
    uint64_t off = 0;
    char msg[160] = "";
    int rc = json_validate(s->doc, s->len, 0, &off, msg, sizeof(msg));
    if (rc) {
        seterr(err, errsz,
               "%s: %s at byte %llu: %s (give the JSON that `latscope bench --format json` "
               "wrote)",
               s->name, rc == LAT_E_TRUNCATED ? "truncated" : "not valid JSON",
               (unsigned long long)off, msg);
        return rc;
    }
    if (json_find(s->doc, s->len, "points", &s->pts) != 0 || s->pts.type != JSON_ARR_BEGIN) {
        seterr(err, errsz, "%s: no \"points\" array: not a `latscope bench --format json` result",
               s->name);
        return LAT_E_NOT_FOUND;
    }
    int64_t v;
    if (json_get_i64(s->doc, s->len, "shard/count", &v) == 0 && v >= 1 && v <= 65536) {
        s->count = (uint32_t)v;
        int64_t k;
        if (json_get_i64(s->doc, s->len, "shard/index", &k) != 0 || k < 0 || k >= v) {
            seterr(err, errsz, "%s: \"shard\" has no valid \"index\" below its \"count\"", s->name);
            return LAT_E_NOT_FOUND;
        }
        s->index = (uint32_t)k;
    }
    struct json_iter it;
    struct json_val pv;
    size_t cap = 0;
    rc = json_iter_init(&it, s->doc, s->len, &s->pts);
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &pv)) == 1) {
        if (pv.type != JSON_OBJ_BEGIN) {
            seterr(err, errsz, "%s: points[%zu] is not an object", s->name, s->npts);
            return LAT_E_NOT_FOUND;
        }
        if (LAT_GROW(s->pv, cap, s->npts, 1, 8)) return -ENOMEM;
        s->pv[s->npts++] = pv;
    }
    if (rc < 0) {
        seterr(err, errsz, "%s: cannot read \"points\" (%s)", s->name, lat_strerror(rc));
        return rc;
    }
    if (!s->npts) {
        seterr(err, errsz, "%s: no load point in \"points\" (the run ended before a point ran)",
               s->name);
        return LAT_E_NOT_FOUND;
    }
    return 0;
}

static int cmp_index(const void *a, const void *b)
{
    const struct shard_doc *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The names of the extra (LLM) histograms of a point doc: keys of "histograms" that are not
 * base names, added to m->llm_names when new. */
static int collect_llm_names(struct bench_merged *m, const char *d, size_t n)
{
    struct json_val hv;
    if (json_find(d, n, "histograms", &hv) != 0 || hv.type != JSON_OBJ_BEGIN) return 0;
    struct json_iter it;
    struct json_val v;
    struct lat_buf key = LAT_BUF_INIT;
    int rc = json_iter_init(&it, d, n, &hv);
    while (rc >= 0 && (rc = json_iter_next(&it, &key, &v)) == 1) {
        if (!key.data) continue;
        bool known = strchr(key.data, '/') != NULL || strchr(key.data, '~') != NULL;
        for (int k = 0; k < MH__N && !known; k++)
            if (!strcmp(key.data, base_names[k])) known = true;
        for (size_t k = 0; k < m->nllm_names && !known; k++)
            if (!strcmp(key.data, m->llm_names[k])) known = true;
        if (known || m->nllm_names >= 64) continue;
        if (LAT_GROW(m->llm_names, m->llm_names_cap, m->nllm_names, 1, 8)) {
            rc = -ENOMEM;
            break;
        }
        if (!(m->llm_names[m->nllm_names] = strdup(key.data))) {
            rc = -ENOMEM;
            break;
        }
        m->nllm_names++;
    }
    buf_fini(&key);
    return rc < 0 ? rc : 0;
}

static int hists_init(struct bench_result *r)
{
    for (int k = 0; k < MH__N; k++) {
        int rc = hist_init_default(base_hist(r, k));
        if (rc < 0) return rc;
    }
    return 0;
}

/* --target openai: the point's LLM summary from the merged LLM histograms (latscope's
 * definitions; nearest rank on the histogram, so "hdr" estimates) and the shards' summed
 * counters. Token-count distributions (tokens_per_chunk, per-user token rates) and the server
 * scrape are not in the histograms: left empty. */
static void llm_stat_from_hist(struct llm_stat *st, const struct lat_hist *h)
{
    memset(st, 0, sizeof(*st));
    if (!h || !hist_count(h)) return;
    st->n = hist_count(h);
    st->mean = hist_mean(h);
    st->p50 = (double)hist_value_at_percentile(h, 50);
    st->p90 = (double)hist_value_at_percentile(h, 90);
    st->p95 = (double)hist_value_at_percentile(h, 95);
    st->p99 = (double)hist_value_at_percentile(h, 99);
    st->p999 = (double)hist_value_at_percentile(h, 99.9);
    st->max = (double)hist_max(h);
}

static const struct lat_hist *llm_hist_named(const struct bench_point *p, const char *name)
{
    for (size_t k = 0; k < p->nllm_hist; k++)
        if (!strcmp(p->llm_hist_names[k], name)) return &p->llm_hist[k];
    return NULL;
}

void bench_llm_stats_from_hists(struct llm_summary *s, const struct bench_point *p)
{
    s->view = LLM_VIEW_LATSCOPE;
    llm_stat_from_hist(&s->ttft, llm_hist_named(p, "ttft"));
    llm_stat_from_hist(&s->ttft_send, llm_hist_named(p, "ttft_send"));
    llm_stat_from_hist(&s->e2e, llm_hist_named(p, "e2e"));
    llm_stat_from_hist(&s->e2e_send, llm_hist_named(p, "e2e_send"));
    llm_stat_from_hist(&s->tpot, llm_hist_named(p, "tpot"));
    llm_stat_from_hist(&s->itl, llm_hist_named(p, "itl"));
    llm_stat_from_hist(&s->chunk_gap, llm_hist_named(p, "chunk_gap"));
}

/* The input-token (ISL) keys and the output counts of --tokenizer / --tokenize-url: totals
 * and per-source counts summed, min of the minima, max of the maxima; the mean is the summed
 * total over the summed requests with a known ISL (exact). */
static void merge_inputs(struct llm_summary *s, const char *d, size_t dn)
{
    static const char *const counters[] = {"tokenizer", "tokenize-endpoint"};
    uint64_t usage = get_u64(d, dn, "input_tokens_source_counts/usage"), tok = 0;
    for (size_t k = 0; k < 2; k++) {
        char path[96];
        snprintf(path, sizeof(path), "input_tokens_source_counts/%s", counters[k]);
        uint64_t c = get_u64(d, dn, path);
        snprintf(path, sizeof(path), "tokens_source_counts/%s", counters[k]);
        uint64_t o = get_u64(d, dn, path);
        struct json_val v;
        if (json_find(d, dn, path, &v) == 0 && k == 1) s->counter = counters[1];
        if (json_find(d, dn, path, &v) == 0 && !s->counter) s->counter = counters[k];
        tok += c;
        s->src_count[LLM_TOK_TOKENIZER] += o;
    }
    uint64_t nreq = usage + tok;
    s->isl_count[LLM_ISL_USAGE] += usage;
    s->isl_count[LLM_ISL_TOKENIZER] += tok;
    s->in_tokens += get_u64(d, dn, "input_tokens");
    if (nreq) {
        int64_t mn = get_i64(d, dn, "input_tokens_min", 0),
                mx = get_i64(d, dn, "input_tokens_max", 0);
        if (!s->in_requests || mn < s->in_min) s->in_min = mn;
        if (!s->in_requests || mx > s->in_max) s->in_max = mx;
    }
    s->in_requests += nreq;
}

static int merge_llm(struct bench_point *p, struct shard_doc *sd, size_t n, size_t pi)
{
    struct llm_summary *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    bench_llm_stats_from_hists(s, p);
    for (size_t i = 0; i < n; i++) {
        const char *d = sd[i].doc + sd[i].pv[pi].off;
        size_t dn = sd[i].pv[pi].len;
        char path[96];
        s->out_tokens += get_u64(d, dn, "output_tokens");
        s->out_tok_s += get_num(d, dn, "output_tokens_per_s", 0);
        s->req_s += get_num(d, dn, "requests_per_s", 0);
        s->osl_mismatch += get_u64(d, dn, "osl_mismatch");
        uint64_t burst = get_u64(d, dn, "burst_streams");
        s->burst_streams += burst;
        s->burst_ttft_sum += (double)burst * get_num(d, dn, "burst_ttft_mean_ms", 0) * 1e6;
        uint64_t short_n = get_u64(d, dn, "isl_short/requests");
        s->isl_short += short_n;
        s->isl_short_usage_sum += (double)short_n * get_num(d, dn, "isl_short/usage_mean", 0);
        s->isl_short_sent_sum += (double)short_n * get_num(d, dn, "isl_short/sent_mean", 0);
        s->no_tpot += get_u64(d, dn, "no_tpot_requests");
        s->errors += get_u64(d, dn, "llm_errors/total");
        for (int e = 1; e < LLM_ERR__N; e++) {
            snprintf(path, sizeof(path), "llm_errors/%s", llm_err_name((enum llm_err)e));
            s->err[e] += get_u64(d, dn, path);
        }
        for (int t = LLM_TOK_USAGE; t <= LLM_TOK_CHUNKS; t++) {
            snprintf(path, sizeof(path), "tokens_source_counts/%s",
                     llm_tok_src_name((enum llm_tok_src)t));
            s->src_count[t] += get_u64(d, dn, path);
        }
        merge_inputs(s, d, dn);
        char src[32];
        get_str(d, dn, "tokens_source", src, sizeof(src));
        for (int t = LLM_TOK_NONE; t <= LLM_TOK_CHUNKS; t++)
            if (!strcmp(src, llm_tok_src_name((enum llm_tok_src)t)) && t > (int)s->tokens_source)
                s->tokens_source = (enum llm_tok_src)t;
        int64_t good;
        if (json_get_i64(d, dn, "good_requests", &good) == 0 && good >= 0) {
            s->has_slo = true;
            s->good += (uint64_t)good;
            s->goodput_rps += get_num(d, dn, "goodput_rps", 0);
        }
    }
    s->duration_s = p->res.duration_s;
    s->ok = p->res.ok;
    s->requests = p->res.ok + p->res.errors_total;
    if (s->has_slo) s->goodput_fraction = s->requests ? (double)s->good / (double)s->requests : 0;
    p->llm = s;
    return 0;
}

static int merge_point(struct bench_merged *m, struct shard_doc *sd, size_t n, size_t pi, char *err,
                       size_t errsz)
{
    struct bench_point *p = &m->run.points[pi];
    struct bench_result *r = &p->res;
    int rc = hists_init(r);
    if (rc < 0) return rc;
    p->ran = true;
    r->valid = true;
    struct bench_shard_line *lines = calloc(n, sizeof(*lines));
    if (!lines) return -ENOMEM;
    p->shards = lines;
    p->nshards = n;
    if (m->nllm_names) {
        p->llm_hist = calloc(m->nllm_names, sizeof(*p->llm_hist));
        if (!p->llm_hist) return -ENOMEM;
        p->nllm_hist = m->nllm_names;
        p->llm_hist_names = (const char *const *)m->llm_names;
        for (size_t k = 0; k < m->nllm_names; k++)
            if ((rc = hist_init_default(&p->llm_hist[k])) < 0) return rc;
    }
    int64_t t0_min = INT64_MAX, t0_max = INT64_MIN, ws_min = INT64_MAX, we_max = INT64_MIN;
    size_t ninvalid = 0;
    double rate0 = NAN;
    for (size_t i = 0; i < n; i++) {
        const char *d = sd[i].doc + sd[i].pv[pi].off;
        size_t dn = sd[i].pv[pi].len;
        const char *name = sd[i].name;
        double rate = get_num(d, dn, "rate", 0);
        if (i == 0) {
            rate0 = rate;
            p->load.rate = rate;
        } else if (fabs(rate - rate0) > 1e-9 * (rate0 > 1 ? rate0 : 1)) {
            seterr(err, errsz, "%s: points[%zu] has rate %g, %s has %g: not shards of the same run",
                   name, pi, rate, sd[0].name, rate0);
            return LAT_E_USAGE;
        }
        p->load.concurrency += (unsigned)get_u64(d, dn, "concurrency");
        p->load.max_inflight += (unsigned)get_u64(d, dn, "max_inflight");
        int64_t v;
        if (json_get_i64(d, dn, "requests", &v) != 0 || v < 0) {
            seterr(err, errsz, "%s: points[%zu] has no \"requests\" count: not a bench result",
                   name, pi);
            return LAT_E_NOT_FOUND;
        }
        struct bench_shard_line *l = &lines[i];
        l->index = sd[i].count ? sd[i].index : (uint32_t)i;
        l->requests = (uint64_t)v;
        r->ok += (uint64_t)v;
        for (int c = 0; c < BENCH_ERR__COUNT; c++) {
            char path[64];
            snprintf(path, sizeof(path), "errors/%s", bench_err_names[c]);
            uint64_t e = get_u64(d, dn, path);
            r->errors[c] += e;
            l->errors += e;
        }
        r->errors_total += l->errors;
        r->bytes += get_u64(d, dn, "bytes");
        r->inflight_cap_hits += get_u64(d, dn, "inflight_cap_hits");
        r->interrupted_requests += get_u64(d, dn, "interrupted_requests");
        r->stale_retries += get_u64(d, dn, "stale_retries");
        r->server_closes += get_u64(d, dn, "server_closes");
        r->slow_connects += get_u64(d, dn, "backlog/slow_connects");
        double cmax = get_num(d, dn, "backlog/connect_max_ms", 0);
        if (cmax * 1e6 > (double)r->connect_max_ns) r->connect_max_ns = (lat_ns)(cmax * 1e6);
        /* host counters: summed over the shards that measured them (-1: none did) */
        int64_t lo = get_i64(d, dn, "backlog/listen_overflows", -1),
                ld = get_i64(d, dn, "backlog/listen_drops", -1);
        if (i == 0) r->listen_overflows = r->listen_drops = -1;
        if (lo >= 0) r->listen_overflows = (r->listen_overflows < 0 ? 0 : r->listen_overflows) + lo;
        if (ld >= 0) r->listen_drops = (r->listen_drops < 0 ? 0 : r->listen_drops) + ld;
        bool b = false;
        if (json_get_bool(d, dn, "interrupted", &b) == 0 && b) r->interrupted = true;
        r->client_cpu_pct += get_num(d, dn, "client_cpu_pct", 0);
        double busy = get_num(d, dn, "max_thread_busy_pct", 0);
        if (busy > r->max_thread_busy_pct) r->max_thread_busy_pct = busy;
        l->duration_s = get_num(d, dn, "duration_s", 0);
        l->achieved_rps = get_num(d, dn, "achieved_rps", 0);
        l->send_lag_p99_ms = get_num(d, dn, "send_lag_ms/p99", NAN);
        l->clock_offset_ms = NAN;
        bool valid = true;
        json_get_bool(d, dn, "valid", &valid);
        l->valid = valid;
        if (!valid) {
            get_str(d, dn, "invalid_reason", l->invalid_reason, sizeof(l->invalid_reason));
            bool ic = false;
            if (json_get_bool(d, dn, "invalid_client", &ic) == 0 && ic) r->invalid_client = true;
            if (!ninvalid++)
                snprintf(r->invalid_reason, sizeof(r->invalid_reason), "shard %u: %s", l->index,
                         l->invalid_reason[0] ? l->invalid_reason : "INVALID");
            r->valid = false;
        }
        int64_t t0 = get_i64(d, dn, "t0_unix_ns", 0);
        int64_t ws = get_i64(d, dn, "window_start_unix_ns", INT64_MIN);
        if (t0 > 0) {
            if (t0 < t0_min) t0_min = t0;
            if (t0 > t0_max) t0_max = t0;
        }
        if (ws != INT64_MIN && t0 > 0) {
            /* On the schedule's own time axis (from each shard's t0): the shards run one
             * schedule, so its window is the single-process one; skew is reported apart. */
            int64_t rel = ws - t0;
            if (rel < ws_min) ws_min = rel;
            int64_t we = rel + (int64_t)llround(l->duration_s * 1e9);
            if (we > we_max) we_max = we;
        }
        char where[32];
        snprintf(where, sizeof(where), "points[%zu]", pi);
        uint64_t lat_before = hist_count(base_hist(r, 0));
        for (int k = 0; k < MH__N; k++)
            if ((rc = bench_merge_add_blob(d, dn, base_names[k], base_hist(r, k), name, where, err,
                                           errsz)))
                return rc;
        /* Counters are checked against the histograms (issue 31: "requests" 10^12 beside a
         * 50-sample histogram merged VALID at 3e14 req/s): every successful request is one
         * latency sample, so a shard whose count disagrees is refused. A shard without
         * "histograms" (written before they existed) cannot be checked. */
        struct json_val hv;
        uint64_t lat_n = hist_count(base_hist(r, 0)) - lat_before;
        if (json_find(d, dn, "histograms", &hv) == 0 && lat_n != (uint64_t)v) {
            seterr(err, errsz,
                   "%s: %s: \"requests\" is %llu but its latency histogram holds %llu samples: "
                   "the shard is inconsistent (edited, corrupt or not written by latscope "
                   "bench); refusing to merge it",
                   name, where, (unsigned long long)v, (unsigned long long)lat_n);
            return LAT_E_USAGE;
        }
        for (size_t k = 0; k < p->nllm_hist; k++)
            if ((rc = bench_merge_add_blob(d, dn, m->llm_names[k], &p->llm_hist[k], name, where,
                                           err, errsz)))
                return rc;
    }
    if (ninvalid > 1) {
        size_t len = strlen(r->invalid_reason);
        snprintf(r->invalid_reason + len, sizeof(r->invalid_reason) - len,
                 " (and %zu more shards INVALID)", ninvalid - 1);
    }
    for (size_t i = 0; i < n; i++) {
        const char *d = sd[i].doc + sd[i].pv[pi].off;
        int64_t t0 = get_i64(d, sd[i].pv[pi].len, "t0_unix_ns", 0);
        lines[i].t0_offset_ms = t0 > 0 && t0_min != INT64_MAX ? (double)(t0 - t0_min) / 1e6 : NAN;
    }
    if (t0_min != INT64_MAX) {
        r->t0_unix_ns = t0_min;
        double skew = (double)(t0_max - t0_min) / 1e6;
        if (!(skew <= m->dist.max_start_skew_ms)) m->dist.max_start_skew_ms = skew;
    }
    if (ws_min != INT64_MAX && we_max > ws_min) {
        /* The union of the shards' windows on the schedule's time axis. */
        r->t0_ns = 0;
        r->window_start_ns = ws_min;
        r->have_window = true;
        r->duration_s = (double)(we_max - ws_min) / 1e9;
    } else {
        for (size_t i = 0; i < n; i++)
            if (lines[i].duration_s > r->duration_s) r->duration_s = lines[i].duration_s;
    }
    if (r->duration_s > 0) r->achieved_rps = (double)r->ok / r->duration_s;
    r->offered_rps = p->load.rate;
    /* GPU telemetry and time slices (merge-parts.c) */
    struct bench_merge_shard *ms = calloc(n, sizeof(*ms));
    if (!ms) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *d = sd[i].doc + sd[i].pv[pi].off;
        size_t dn = sd[i].pv[pi].len;
        int64_t t0 = get_i64(d, dn, "t0_unix_ns", 0);
        int64_t ws = get_i64(d, dn, "window_start_unix_ns", INT64_MIN);
        ms[i] = (struct bench_merge_shard){
            d,
            sd[i].name,
            dn,
            lines[i].index,
            ws != INT64_MIN && t0 > 0 && ws > t0 - (1LL << 60) && ws < t0 + (1LL << 60) ? ws - t0
                                                                                        : 0,
            pi};
    }
    rc = bench_merge_point_parts(p, ms, n, err, errsz);
    free(ms);
    if (rc) return rc;
    struct json_val jv;
    if (json_find(sd[0].doc + sd[0].pv[pi].off, sd[0].pv[pi].len, "ttft_ms", &jv) == 0)
        return merge_llm(p, sd, n, pi);
    return 0;
}

int bench_merge_docs(struct bench_merged *m, const char *const *docs, const size_t *lens,
                     const char *const *names, size_t n, char *err, size_t errsz)
{
    memset(m, 0, sizeof(*m));
    m->run.best_point = -1;
    m->dist.method = "merge";
    m->dist.max_start_skew_ms = 0;
    m->dist.max_clock_offset_ms = NAN;
    m->dist.reduce_ms = NAN;
    if (n == 0) {
        seterr(err, errsz, "no result to merge");
        return LAT_E_USAGE;
    }
    struct shard_doc *sd = calloc(n, sizeof(*sd));
    if (!sd) return -ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        sd[i].doc = docs[i];
        sd[i].len = lens[i];
        sd[i].name = names[i];
        rc = read_top(&sd[i], err, errsz);
    }
    if (rc) goto out;
    /* One run's shards: each index of the count exactly once, the same workload. */
    bool have = sd[0].count > 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if ((sd[i].count > 0) != have || (have && sd[i].count != sd[0].count)) {
            seterr(err, errsz, "%s: shard count %u, but %s says %u: not shards of one run",
                   sd[i].name, sd[i].count, sd[0].name, sd[0].count);
            rc = LAT_E_USAGE;
        }
    }
    if (!rc && have && sd[0].count != n) {
        seterr(err, errsz,
               "the results are shards of %u, but %zu were given: every shard's result is "
               "needed for the whole load",
               sd[0].count, n);
        rc = LAT_E_USAGE;
    }
    if (rc) goto out;
    if (have) qsort(sd, n, sizeof(*sd), cmp_index);
    for (size_t i = 1; i < n && have && !rc; i++)
        if (sd[i].index == sd[i - 1].index) {
            seterr(err, errsz, "%s and %s are both shard %u", sd[i - 1].name, sd[i].name,
                   sd[i].index);
            rc = LAT_E_USAGE;
        }
    if (rc) goto out;
    get_str(sd[0].doc, sd[0].len, "target", m->target, sizeof(m->target));
    get_str(sd[0].doc, sd[0].len, "url", m->url, sizeof(m->url));
    get_str(sd[0].doc, sd[0].len, "mode", m->mode, sizeof(m->mode));
    get_str(sd[0].doc, sd[0].len, "arrival", m->arrival, sizeof(m->arrival));
    get_str(sd[0].doc, sd[0].len, "rx_time", m->rx_time, sizeof(m->rx_time));
    get_str(sd[0].doc, sd[0].len, "workload", m->workload, sizeof(m->workload));
    for (size_t i = 1; i < n && !rc; i++) {
        static const char *const keys[] = {"target", "mode", "arrival", "workload"};
        for (size_t k = 0; k < 4 && !rc; k++) {
            char a[1024], b[1024];
            get_str(sd[0].doc, sd[0].len, keys[k], a, sizeof(a));
            get_str(sd[i].doc, sd[i].len, keys[k], b, sizeof(b));
            if (strcmp(a, b)) {
                seterr(err, errsz, "%s: \"%s\" is '%s', %s has '%s': not shards of one run",
                       sd[i].name, keys[k], b, sd[0].name, a);
                rc = LAT_E_USAGE;
            }
        }
        if (!rc && sd[i].npts != sd[0].npts) {
            seterr(err, errsz, "%s has %zu points, %s has %zu: not shards of one run", sd[i].name,
                   sd[i].npts, sd[0].name, sd[0].npts);
            rc = LAT_E_USAGE;
        }
    }
    if (rc) goto out;
    m->run.target = m->target;
    m->run.url = m->url;
    m->run.mode = m->mode;
    m->run.arrival = m->arrival[0] ? m->arrival : NULL;
    m->run.rx_time = m->rx_time[0] ? m->rx_time : NULL;
    m->run.workload = m->workload[0] ? m->workload : NULL;
    for (size_t i = 0; i < n; i++) {
        m->run.threads += (unsigned)get_u64(sd[i].doc, sd[i].len, "threads");
        bool b = false;
        if (json_get_bool(sd[i].doc, sd[i].len, "interrupted", &b) == 0 && b)
            m->run.interrupted = true;
    }
    m->dist.nshards = (uint32_t)n;
    m->run.dist = &m->dist;
    for (size_t i = 0; i < n && !rc; i++)
        for (size_t p = 0; p < sd[i].npts && !rc; p++)
            rc = collect_llm_names(m, sd[i].doc + sd[i].pv[p].off, sd[i].pv[p].len);
    if (rc) goto out;
    m->run.points = calloc(sd[0].npts, sizeof(*m->run.points));
    if (!m->run.points) {
        rc = -ENOMEM;
        goto out;
    }
    m->run.npoints = sd[0].npts;
    for (size_t p = 0; p < sd[0].npts && !rc; p++)
        rc = merge_point(m, sd, n, p, err, errsz);
    if (rc == -ENOMEM) seterr(err, errsz, "out of memory");
out:
    for (size_t i = 0; i < n; i++)
        free(sd[i].pv);
    free(sd);
    return rc;
}

void bench_merged_fini(struct bench_merged *m)
{
    for (size_t i = 0; i < m->run.npoints; i++) {
        struct bench_point *p = &m->run.points[i];
        bench_result_fini(&p->res);
        for (size_t k = 0; k < p->nllm_hist; k++)
            hist_fini(&p->llm_hist[k]);
        free(p->llm_hist);
        free(p->llm);
        free(p->shards);
        bench_slices_free(p->slices);
        gpu_point_free(p->gpu);
        bench_sess_point_free(p->sessions);
    }
    free(m->run.points);
    for (size_t k = 0; k < m->nllm_names; k++)
        free(m->llm_names[k]);
    free(m->llm_names);
    memset(m, 0, sizeof(*m));
}
