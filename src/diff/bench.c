/*
 * bench.c - `latscope diff` on bench results: loading bench JSON (docs/bench-json.md) and
 * HdrHistogram interval logs, matching points by load, and one row per metric with its interval
 * and verdict (docs/latscope-diff.md).
 */
#include "diff/diff.h"
#include "diff/internal.h"

#include "core/err.h"
#include "core/grow.h"
#include "core/redact.h"
#include "doctor/doctor.h"
#include "hist/hlog.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_INPUT (1u << 30)

const char *diff_kind_name(enum diff_kind k)
{
    switch (k) {
    case DIFF_KIND_BENCH:
        return "bench result (JSON)";
    case DIFF_KIND_HLOG:
        return "HDR histogram log";
    case DIFF_KIND_TRACE:
        return "trace";
    case DIFF_KIND_RECORDS:
        return "bench --records JSONL";
    }
    return "?";
}

const char *diff_verdict_name(enum diff_verdict v)
{
    switch (v) {
    case DIFF_V_NONE:
        return "no interval";
    case DIFF_V_SAME:
        return "no significant change";
    case DIFF_V_NOISE:
        return "within noise";
    case DIFF_V_REGRESSION:
        return "REGRESSION";
    case DIFF_V_IMPROVEMENT:
        return "improvement";
    }
    return "?";
}

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

int diff_sniff(const char *path, enum diff_kind *kind, char *err, size_t errsz)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        int e = errno;
        seterr(err, errsz, "%s: %s", path, strerror(e));
        return -e;
    }
    if (S_ISDIR(st.st_mode)) {
        *kind = DIFF_KIND_TRACE;
        return 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        seterr(err, errsz, "%s: %s", path, strerror(e));
        return -e;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    if (n == 0) {
        seterr(err, errsz,
               "%s: empty file (0 bytes): give a `latscope bench --format json` result, an HDR "
               "log (--hdr-log) or a trace",
               path);
        return LAT_E_TRUNCATED;
    }
    if (n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
        *kind = DIFF_KIND_TRACE;
        return 0;
    }
    size_t i = 0;
    if (n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    if (i < n &&
        (buf[i] == '#' || buf[i] == '"' || (n - i >= 4 && memcmp(buf + i, "Tag=", 4) == 0) ||
         (buf[i] >= '0' && buf[i] <= '9'))) {
        *kind = DIFF_KIND_HLOG;
        return 0;
    }
    if (i < n && buf[i] == '[') {
        *kind = DIFF_KIND_TRACE;
        return 0;
    }
    if (i < n && buf[i] == '{') {
        /* A bench result's first member is "target" (the contract); anything else goes to the
         * trace readers, which say what they found. */
        struct json_tok t;
        struct json_token tk;
        json_tok_init(&t, 0);
        json_tok_feed(&t, buf, n);
        *kind = DIFF_KIND_TRACE;
        for (int k = 0; k < 4; k++) {
            if (json_tok_next(&t, &tk) != 1) break;
            if (tk.type == JSON_KEY) {
                if (tk.len == 6 && memcmp(tk.s, "target", 6) == 0) *kind = DIFF_KIND_BENCH;
                if (tk.len == 5 && memcmp(tk.s, "point", 5) == 0) *kind = DIFF_KIND_RECORDS;
                break;
            }
        }
        json_tok_fini(&t);
        return 0;
    }
    seterr(err, errsz,
           "%s: not a bench result, HDR log or trace (it does not start with '{', '[', '#' or "
           "gzip data)",
           path);
    return LAT_E_UNSUPPORTED;
}

static int read_all(const char *path, char **out, size_t *len, char *err, size_t errsz)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        seterr(err, errsz, "%s: %s", path, strerror(e));
        return -e;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        if (n == cap) {
            if (cap >= MAX_INPUT) {
                free(b);
                fclose(f);
                seterr(err, errsz, "%s: larger than 1 GiB: not a bench result", path);
                return LAT_E_OVERFLOW;
            }
            /* stays hand-written: the buffer is cap + 1 bytes (the NUL) and stops at MAX_INPUT */
            char *nb = realloc(b, cap * 2 + 1);
            if (!nb) break;
            b = nb;
            cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!b) return -ENOMEM;
    if (bad) {
        free(b);
        seterr(err, errsz, "%s: read error", path);
        return -EIO;
    }
    b[n] = 0;
    *out = b;
    *len = n;
    return 0;
}

void diff_run_free(struct diff_run *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->npts; i++)
        for (int f = 0; f < DIFF_F__N; f++)
            if (r->pts[i].hist[f]) {
                hist_fini(r->pts[i].hist[f]);
                free(r->pts[i].hist[f]);
            }
    for (size_t i = 0; i < r->npts; i++)
        free(r->pts[i].slices);
    free(r->pts);
    for (size_t i = 0; i < r->srv.nfuncs; i++)
        free(r->srv.funcs[i].name);
    free(r->srv.funcs);
    free(r->workload);
    free(r->path);
    free(r);
}

/* JSON keys of the families and of their statistics; HDR log tags. */
static const char *const fam_json[DIFF_F__N] = {
    "latency_ms",   "latency_actual_ms", "ttfb_ms", "send_lag_ms", "ttft_ms",
    "ttft_send_ms", "tpot_ms",           "itl_ms",  "e2e_ms",      "e2e_send_ms"};
static const char *const fam_key[DIFF_F__N] = {"latency", "latency_actual", "ttfb", "send_lag",
                                               "ttft",    "ttft_send",      "tpot", "itl",
                                               "e2e",     "e2e_send"};
static const char *const fam_label[DIFF_F__N] = {
    "latency", "latency (actual send)", "first byte", "send lag",
    "TTFT",    "TTFT (actual send)",    "TPOT",       "ITL",
    "E2E",     "E2E (actual send)"};
static const char *const fam_tag[DIFF_F__N] = {"lat.sched",  "lat.send",  NULL,   "send_lag",
                                               "ttft.sched", "ttft.send", "tpot", "itl",
                                               "e2e.sched",  "e2e.send"};
static const char *const stat_key[DIFF_NSTAT] = {"mean", "p50",   "p90", "p95",
                                                 "p99",  "p99.9", "max"};
static const double stat_pct[DIFF_NSTAT] = {0, 50, 90, 95, 99, 99.9, 100};

static const struct {
    const char *key, *label, *unit;
    bool lower_better;
} scalar_def[DIFF_S__N] = {
    {"throughput", "throughput", "req/s", false},
    {"error_rate", "error rate", "%", true},
    {"output_tokens_per_s", "output tokens/s", "tok/s", false},
    {"goodput", "goodput", "req/s", false},
    {"goodput_fraction", "goodput fraction", "%", false},
    {"output_tokens_per_request", "output tokens/request", "tok", false},
};

static struct diff_point *new_point(struct diff_run *r)
{
    if (LAT_GROW(r->pts, r->pts_cap, r->npts, 1, 8)) return NULL;
    struct diff_point *p = &r->pts[r->npts++];
    memset(p, 0, sizeof(*p));
    for (int f = 0; f < DIFF_F__N; f++)
        for (int s = 0; s < DIFF_NSTAT; s++)
            p->stat[f][s] = NAN;
    for (int s = 0; s < DIFF_S__N; s++)
        p->scalar[s] = NAN;
    p->client_cpu_pct = p->max_thread_busy_pct = NAN;
    p->inflight_cap_hits = -1;
    p->concurrency = p->rate = p->duration_s = p->connect_max_ms = NAN;
    p->stale_retries = p->server_closes = p->slow_connects = p->listen_overflows = p->listen_drops =
        -1;
    p->err_connect = p->err_timeout = p->err_reset = p->err_4xx = p->err_5xx = -1;
    p->srv_count = -1;
    p->srv_queue_ms = p->srv_input_ms = p->srv_infer_ms = p->srv_output_ms = NAN;
    p->burst_streams = p->osl_mismatch = p->isl_short = -1;
    p->burst_ttft_mean_ms = p->isl_usage_mean = p->isl_sent_mean = p->input_tokens_mean = NAN;
    p->valid = true;
    return p;
}

/* A histogram in the default layout (exact copy when the layouts agree). */
static int to_default(struct lat_hist *src, struct lat_hist **out)
{
    struct lat_hist *h = calloc(1, sizeof(*h));
    if (!h) return -ENOMEM;
    if (hist_init_default(h) < 0) {
        free(h);
        return -ENOMEM;
    }
    hist_add(h, src);
    *out = h;
    return 0;
}

static void get_str(const char *doc, size_t n, const char *path, char *out, size_t cap)
{
    struct lat_buf b = LAT_BUF_INIT;
    out[0] = 0;
    if (json_get_str(doc, n, path, &b) == 0 && b.data) snprintf(out, cap, "%s", b.data);
    buf_fini(&b);
}

static double get_num(const char *doc, size_t n, const char *path)
{
    double v;
    return json_get_double(doc, n, path, &v) == 0 ? v : NAN;
}

static int64_t get_count(const char *doc, size_t n, const char *path)
{
    int64_t v;
    return json_get_i64(doc, n, path, &v) == 0 && v >= 0 ? v : -1;
}

/* The point's "slices" (bench --slice), when it has them. */
static int load_slices(struct diff_point *p, const char *d, size_t n)
{
    struct json_val arr, sv;
    if (json_find(d, n, "slices", &arr) != 0 || arr.type != JSON_ARR_BEGIN) return 0;
    struct json_iter it;
    int rc = json_iter_init(&it, d, n, &arr);
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &sv)) == 1) {
        if (sv.type != JSON_OBJ_BEGIN) continue;
        const char *s = d + sv.off;
        if (LAT_GROW(p->slices, p->slices_cap, p->nslices, 1, 16)) return -ENOMEM;
        struct diff_slice *x = &p->slices[p->nslices++];
        int64_t q = get_count(s, sv.len, "requests"), e = get_count(s, sv.len, "errors");
        *x = (struct diff_slice){get_num(s, sv.len, "start_s"),
                                 get_num(s, sv.len, "end_s"),
                                 q < 0 ? 0 : (uint64_t)q,
                                 e < 0 ? 0 : (uint64_t)e,
                                 get_num(s, sv.len, "latency_ms/p50"),
                                 get_num(s, sv.len, "latency_ms/p99"),
                                 get_num(s, sv.len, "latency_ms/max")};
    }
    return rc < 0 ? rc : 0;
}

static int load_bench_point(struct diff_run *r, const char *d, size_t n, size_t idx, char *err,
                            size_t errsz)
{
    struct diff_point *p = new_point(r);
    if (!p) return -ENOMEM;
    double conc = get_num(d, n, "concurrency"), rate = get_num(d, n, "rate");
    if (!isnan(conc))
        snprintf(p->load, sizeof(p->load), "concurrency %g", conc);
    else if (!isnan(rate))
        snprintf(p->load, sizeof(p->load), "rate %g req/s", rate);
    else
        snprintf(p->load, sizeof(p->load), "point %zu", idx + 1);
    int64_t v;
    if (json_get_i64(d, n, "requests", &v) != 0 || v < 0) {
        seterr(err, errsz, "%s: points[%zu] has no \"requests\" count: not a bench result", r->path,
               idx);
        return LAT_E_NOT_FOUND;
    }
    p->ok = (uint64_t)v;
    if (json_get_i64(d, n, "errors/total", &v) == 0 && v >= 0) p->errors = (uint64_t)v;
    bool valid = true;
    if (json_get_bool(d, n, "valid", &valid) == 0) p->valid = valid;
    get_str(d, n, "invalid_reason", p->why, sizeof(p->why));
    p->scalar[DIFF_S_THROUGHPUT] = get_num(d, n, "achieved_rps");
    p->client_cpu_pct = get_num(d, n, "client_cpu_pct");
    p->max_thread_busy_pct = get_num(d, n, "max_thread_busy_pct");
    bool ic = false;
    if (json_get_bool(d, n, "invalid_client", &ic) == 0) p->invalid_client = ic;
    if (json_get_i64(d, n, "inflight_cap_hits", &v) == 0 && v >= 0) p->inflight_cap_hits = v;
    p->concurrency = conc;
    p->rate = rate;
    p->duration_s = get_num(d, n, "duration_s");
    p->stale_retries = get_count(d, n, "stale_retries");
    p->server_closes = get_count(d, n, "server_closes");
    p->slow_connects = get_count(d, n, "backlog/slow_connects");
    p->connect_max_ms = get_num(d, n, "backlog/connect_max_ms");
    p->listen_overflows = get_count(d, n, "backlog/listen_overflows");
    p->listen_drops = get_count(d, n, "backlog/listen_drops");
    p->err_connect = get_count(d, n, "errors/connect");
    p->err_timeout = get_count(d, n, "errors/timeout");
    p->err_reset = get_count(d, n, "errors/reset");
    p->err_4xx = get_count(d, n, "errors/http_4xx");
    p->err_5xx = get_count(d, n, "errors/http_5xx");
    p->srv_count = get_count(d, n, "server/count"); /* "server": null without Triton stats */
    p->srv_queue_ms = get_num(d, n, "server/queue_ms");
    p->srv_input_ms = get_num(d, n, "server/compute_input_ms");
    p->srv_infer_ms = get_num(d, n, "server/compute_infer_ms");
    p->srv_output_ms = get_num(d, n, "server/compute_output_ms");
    int src = load_slices(p, d, n);
    if (src) return src;
    if (p->ok + p->errors)
        p->scalar[DIFF_S_ERROR_RATE] = 100.0 * (double)p->errors / (double)(p->ok + p->errors);
    struct json_val jv;
    if (json_find(d, n, "ttft_ms", &jv) == 0) {
        r->llm = true;
        p->scalar[DIFF_S_OUT_TOK_S] = get_num(d, n, "output_tokens_per_s");
        p->scalar[DIFF_S_GOODPUT] = get_num(d, n, "goodput_rps");
        double gf = get_num(d, n, "goodput_fraction");
        p->scalar[DIFF_S_GOODPUT_FRAC] = isnan(gf) ? NAN : 100 * gf;
        double ot = get_num(d, n, "output_tokens");
        if (!isnan(ot) && p->ok) p->scalar[DIFF_S_OUT_TOK_REQ] = ot / (double)p->ok;
        double tp = get_num(d, n, "requests_per_s");
        if (!isnan(tp)) p->scalar[DIFF_S_THROUGHPUT] = tp;
        p->burst_streams = get_count(d, n, "burst_streams");
        p->burst_ttft_mean_ms = get_num(d, n, "burst_ttft_mean_ms");
        p->osl_mismatch = get_count(d, n, "osl_mismatch");
        p->input_tokens_mean = get_num(d, n, "input_tokens_mean");
        struct json_val iv;
        if (json_find(d, n, "isl_short", &iv) == 0 && iv.type == JSON_OBJ_BEGIN) {
            p->isl_short = get_count(d, n, "isl_short/requests");
            p->isl_usage_mean = get_num(d, n, "isl_short/usage_mean");
            p->isl_sent_mean = get_num(d, n, "isl_short/sent_mean");
        } /* null: no prompt was cut, or none was counted: left unknown (-1) */
    }
    char path[64];
    for (int f = 0; f < DIFF_F__N; f++)
        for (int s = 0; s < DIFF_NSTAT; s++) {
            snprintf(path, sizeof(path), "%s/%s", fam_json[f], stat_key[s]);
            p->stat[f][s] = get_num(d, n, path);
        }
    static const char *const hist_json[DIFF_F__N] = {
        [DIFF_F_LAT] = "latency", [DIFF_F_LAT_ACT] = "latency_actual",
        [DIFF_F_TTFB] = "ttfb",   [DIFF_F_SEND_LAG] = "send_lag",
        [DIFF_F_TTFT] = "ttft",   [DIFF_F_TTFT_SEND] = "ttft_send",
        [DIFF_F_TPOT] = "tpot",   [DIFF_F_ITL] = "itl",
        [DIFF_F_E2E] = "e2e",     [DIFF_F_E2E_SEND] = "e2e_send"};
    for (int f = 0; f < DIFF_F__N; f++) {
        if (!hist_json[f]) continue;
        snprintf(path, sizeof(path), "histograms/%s", hist_json[f]);
        struct lat_buf b = LAT_BUF_INIT;
        if (json_get_str(d, n, path, &b) == 0 && b.data) {
            struct lat_hist h;
            const char *why = NULL;
            int rc = hlog_decode(b.data, b.len, &h, &why);
            if (rc) {
                seterr(err, errsz, "%s: points[%zu].%s: corrupt histogram (%s)", r->path, idx, path,
                       why ? why : lat_strerror(rc));
                buf_fini(&b);
                return rc;
            }
            rc = to_default(&h, &p->hist[f]);
            hist_fini(&h);
            if (rc) {
                buf_fini(&b);
                return rc;
            }
        }
        buf_fini(&b);
    }
    return 0;
}

/* "server_profile" (bench --server-pid): the slow-vs-fast comparison doctor's slow-request-code
 * rule and the report read. Absent: srv.present stays false. 0, or an error code with err (a
 * function entry without a name is not what bench writes: an error, not a silent skip). */
static int load_server_profile(struct diff_run *r, const char *doc, size_t n, char *err,
                               size_t errsz)
{
    struct json_val sp;
    if (json_find(doc, n, "server_profile", &sp) != 0 || sp.type != JSON_OBJ_BEGIN) return 0;
    const char *d = doc + sp.off;
    size_t dn = sp.len;
    struct doc_svc_srvprof *s = &r->srv;
    s->present = true;
    int64_t v;
    s->pid = json_get_i64(d, dn, "pid", &v) == 0 ? v : -1;
    get_str(d, dn, "comparison", s->comparison, sizeof(s->comparison));
    get_str(d, dn, "slow_rule", s->slow_rule, sizeof(s->slow_rule));
    s->slow_ms = get_num(d, dn, "slow_threshold_ms");
    s->fast_ms = get_num(d, dn, "fast_threshold_ms");
    int64_t c;
    s->slow_requests = (c = get_count(d, dn, "slow/requests")) > 0 ? (uint64_t)c : 0;
    s->fast_requests = (c = get_count(d, dn, "fast/requests")) > 0 ? (uint64_t)c : 0;
    s->slow_samples = (c = get_count(d, dn, "slow/samples")) > 0 ? (uint64_t)c : 0;
    s->fast_samples = (c = get_count(d, dn, "fast/samples")) > 0 ? (uint64_t)c : 0;
    s->slow_lat_ms = get_num(d, dn, "slow/latency_mean_ms");
    s->fast_lat_ms = get_num(d, dn, "fast/latency_mean_ms");
    s->slow_cpu_ms = get_num(d, dn, "slow/server_cpu_ms");
    s->fast_cpu_ms = get_num(d, dn, "fast/server_cpu_ms");
    s->ambiguous_pct = get_num(d, dn, "ambiguous_pct");
    struct json_val arr, fv;
    if (json_find(d, dn, "functions", &arr) != 0 || arr.type != JSON_ARR_BEGIN) return 0;
    struct json_iter it;
    int rc = json_iter_init(&it, d, dn, &arr);
    size_t cap = 0;
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &fv)) == 1) {
        const char *f = d + fv.off;
        struct lat_buf nb = LAT_BUF_INIT;
        if (fv.type != JSON_OBJ_BEGIN || json_get_str(f, fv.len, "name", &nb) != 0 || !nb.data) {
            buf_fini(&nb);
            seterr(err, errsz,
                   "%s: server_profile.functions[%zu] is not an object with a \"name\" (bench "
                   "--server-pid writes one per function)",
                   r->path, s->nfuncs);
            return LAT_E_BAD_JSON;
        }
        int grc = LAT_GROW(s->funcs, cap, s->nfuncs, 1, 8);
        char *name = grc ? NULL : strdup(nb.data);
        buf_fini(&nb);
        if (grc || !name) {
            rc = grc ? grc : -ENOMEM; /* -ENOMEM, or LAT_E_OVERFLOW */
            break;
        }
        s->funcs[s->nfuncs++] =
            (struct doc_svc_func){.name = name,
                                  .pct_fast = get_num(f, fv.len, "total_pct_fast"),
                                  .pct_slow = get_num(f, fv.len, "total_pct_slow"),
                                  .change = get_num(f, fv.len, "change_pct_points"),
                                  .lo = get_num(f, fv.len, "ci_lo_pct_points"),
                                  .hi = get_num(f, fv.len, "ci_hi_pct_points"),
                                  .depth = get_num(f, fv.len, "mean_depth_slow")};
    }
    if (rc < 0) {
        seterr(err, errsz, "%s: cannot read \"server_profile\" (%s)", r->path, lat_strerror(rc));
        return rc;
    }
    return 0;
}

static int load_bench(struct diff_run *r, const char *doc, size_t n, char *err, size_t errsz)
{
    uint64_t off = 0;
    char msg[160] = "";
    int rc = json_validate(doc, n, 0, &off, msg, sizeof(msg));
    if (rc) {
        seterr(err, errsz,
               "%s: %s at byte %llu: %s (a bench result must be one complete JSON "
               "document, as `latscope bench --format json` writes)",
               r->path, rc == LAT_E_TRUNCATED ? "truncated" : "not valid JSON",
               (unsigned long long)off, msg);
        return rc;
    }
    get_str(doc, n, "target", r->target, sizeof(r->target));
    get_str(doc, n, "mode", r->mode, sizeof(r->mode));
    get_str(doc, n, "arrival", r->arrival, sizeof(r->arrival));
    get_str(doc, n, "rx_time", r->rx_time, sizeof(r->rx_time));
    int64_t th;
    if (json_get_i64(doc, n, "threads", &th) == 0 && th > 0 && th < 1000000)
        r->threads = (unsigned)th;
    get_str(doc, n, "find_max/slo", r->fm_slo, sizeof(r->fm_slo));
    get_str(doc, n, "find_max/search", r->fm_search, sizeof(r->fm_search));
    r->fm_max_rate = get_num(doc, n, "find_max/max_rate");
    r->fm_lowest_failing_rate = get_num(doc, n, "find_max/lowest_failing_rate");
    struct lat_buf wl = LAT_BUF_INIT;
    if (json_get_str(doc, n, "workload", &wl) == 0 && wl.data) {
        /* printed in notes: less a query's or header's secrets (core/redact.h) */
        struct lat_buf red = LAT_BUF_INIT;
        r->workload = strdup(lat_redacted(&red, wl.data));
        buf_fini(&red);
    }
    buf_fini(&wl);
    if ((rc = load_server_profile(r, doc, n, err, errsz))) return rc;
    struct json_val pts;
    if (json_find(doc, n, "points", &pts) != 0 || pts.type != JSON_ARR_BEGIN) {
        seterr(err, errsz, "%s: no \"points\" array: not a `latscope bench --format json` result",
               r->path);
        return LAT_E_NOT_FOUND;
    }
    struct json_iter it;
    struct json_val pv;
    rc = json_iter_init(&it, doc, n, &pts);
    size_t idx = 0;
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &pv)) == 1) {
        if (pv.type != JSON_OBJ_BEGIN) {
            seterr(err, errsz, "%s: points[%zu] is not an object", r->path, idx);
            return LAT_E_NOT_FOUND;
        }
        rc = load_bench_point(r, doc + pv.off, pv.len, idx, err, errsz);
        if (rc) return rc;
        if (!r->estimator[0])
            get_str(doc + pv.off, pv.len, "estimator", r->estimator, sizeof(r->estimator));
        idx++;
    }
    if (rc < 0) {
        seterr(err, errsz, "%s: cannot read \"points\" (%s)", r->path, lat_strerror(rc));
        return rc;
    }
    if (!r->npts) {
        seterr(err, errsz, "%s: no load point in \"points\" (the run ended before a point ran)",
               r->path);
        return LAT_E_NOT_FOUND;
    }
    return 0;
}

/* The summary statistics (ms) of a point from its histograms. */
static void stats_from_hists(struct diff_point *p)
{
    for (int f = 0; f < DIFF_F__N; f++) {
        struct lat_hist *h = p->hist[f];
        if (!h || !hist_count(h)) continue;
        p->stat[f][0] = hist_mean(h) / 1e6;
        for (int s = 1; s < DIFF_NSTAT - 1; s++)
            p->stat[f][s] = (double)hist_value_at_percentile(h, stat_pct[s]) / 1e6;
        p->stat[f][DIFF_NSTAT - 1] = (double)hist_max(h) / 1e6;
    }
}

/* One histogram of a point, created on first use. */
static struct lat_hist *point_hist(struct diff_point *p, int f)
{
    if (p->hist[f]) return p->hist[f];
    struct lat_hist *h = calloc(1, sizeof(*h));
    if (!h || hist_init_default(h) < 0) {
        free(h);
        return NULL;
    }
    return p->hist[f] = h;
}

/* bench --records JSONL: one line per measured request (docs/bench-json.md). Every request is a
 * sample; points are matched by their index ("point N": records carry no load). */
static int load_records(struct diff_run *r, const char *doc, size_t n, char *err, size_t errsz)
{
    snprintf(r->target, sizeof(r->target), "records");
    const char *p = doc, *end = doc + n;
    int line = 0;
    struct {
        lat_ns t0, t1;
    } span[256];
    int64_t idx_of[256];
    size_t npts = 0;
    struct lat_buf ebuf = LAT_BUF_INIT;
    int rc = 0;
    while (p < end && !rc) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line++;
        size_t len = (size_t)(le - p);
        const char *ls = p;
        p = nl ? nl + 1 : end;
        while (len && (ls[len - 1] == '\r' || ls[len - 1] == ' '))
            len--;
        if (!len) continue;
        int64_t pt, lat, lat_act, ts, tsend, tfirst, tend;
        if (json_get_i64(ls, len, "point", &pt) || pt < 0 || pt > 1000000 ||
            json_get_i64(ls, len, "latency_ns", &lat) || json_get_i64(ls, len, "t_sched_ns", &ts) ||
            json_get_i64(ls, len, "t_end_ns", &tend)) {
            seterr(err, errsz,
                   "%s: line %d is not a bench --records line (needs point, latency_ns, "
                   "t_sched_ns, t_end_ns)",
                   r->path, line);
            rc = LAT_E_BAD_JSON;
            break;
        }
        if (json_get_i64(ls, len, "latency_actual_ns", &lat_act)) lat_act = -1;
        if (json_get_i64(ls, len, "t_send_ns", &tsend)) tsend = -1;
        if (json_get_i64(ls, len, "t_first_ns", &tfirst)) tfirst = -1;
        buf_reset(&ebuf);
        bool failed = json_get_str(ls, len, "error", &ebuf) == 0;
        size_t k = 0;
        while (k < npts && idx_of[k] != pt)
            k++;
        if (k == npts) {
            if (npts == 256) {
                seterr(err, errsz, "%s: more than 256 load points", r->path);
                rc = LAT_E_OVERFLOW;
                break;
            }
            struct diff_point *np = new_point(r);
            if (!np) {
                rc = -ENOMEM;
                break;
            }
            snprintf(np->load, sizeof(np->load), "point %lld", (long long)pt + 1);
            idx_of[npts] = pt;
            span[npts].t0 = INT64_MAX;
            span[npts].t1 = INT64_MIN;
            npts++;
        }
        struct diff_point *q = &r->pts[k];
        if (ts < span[k].t0) span[k].t0 = ts;
        if (tend > span[k].t1) span[k].t1 = tend;
        if (failed) {
            q->errors++;
            continue;
        }
        q->ok++;
        struct lat_hist *h;
        if (!(h = point_hist(q, DIFF_F_LAT))) {
            rc = -ENOMEM;
            break;
        }
        hist_record(h, lat);
        if (lat_act >= 0) {
            if (!(h = point_hist(q, DIFF_F_LAT_ACT))) {
                rc = -ENOMEM;
                break;
            }
            hist_record(h, lat_act);
        }
        if (tfirst >= 0) {
            if (!(h = point_hist(q, DIFF_F_TTFB))) {
                rc = -ENOMEM;
                break;
            }
            hist_record(h, tfirst - ts);
        }
        if (tsend >= 0) {
            if (!(h = point_hist(q, DIFF_F_SEND_LAG))) {
                rc = -ENOMEM;
                break;
            }
            hist_record(h, tsend - ts);
        }
    }
    buf_fini(&ebuf);
    if (rc) return rc;
    if (!r->npts) {
        seterr(err, errsz, "%s: no request record in the file", r->path);
        return LAT_E_NOT_FOUND;
    }
    for (size_t k = 0; k < r->npts; k++) {
        struct diff_point *q = &r->pts[k];
        stats_from_hists(q);
        if (q->ok + q->errors)
            q->scalar[DIFF_S_ERROR_RATE] = 100.0 * (double)q->errors / (double)(q->ok + q->errors);
        if (span[k].t1 > span[k].t0)
            q->scalar[DIFF_S_THROUGHPUT] =
                (double)q->ok / ((double)(span[k].t1 - span[k].t0) / 1e9);
        if (!q->ok) {
            q->valid = false;
            snprintf(q->why, sizeof(q->why), "no request succeeded");
        }
    }
    return 0;
}

static int load_hlog(struct diff_run *r, const char *doc, size_t n, char *err, size_t errsz)
{
    struct diff_point *p = new_point(r);
    if (!p) return -ENOMEM;
    snprintf(p->load, sizeof(p->load), "whole log");
    snprintf(r->target, sizeof(r->target), "hdr-log");
    struct hlog_reader rd;
    hlog_reader_init(&rd, doc, n);
    struct hlog_entry e;
    int rc;
    size_t entries = 0, unknown = 0;
    double t0 = INFINITY, t1 = -INFINITY;
    while ((rc = hlog_reader_next(&rd, &e)) == 1) {
        int fam = -1;
        if (!e.tag[0]) fam = DIFF_F_LAT;
        for (int f = 0; f < DIFF_F__N && fam < 0; f++)
            if (fam_tag[f] && strcmp(e.tag, fam_tag[f]) == 0) fam = f;
        entries++;
        if (fam < 0) {
            unknown++;
            hist_fini(&e.hist);
            continue;
        }
        if (fam == DIFF_F_TTFT) r->llm = true;
        if (e.start_s < t0) t0 = e.start_s;
        if (e.start_s + e.length_s > t1) t1 = e.start_s + e.length_s;
        if (!p->hist[fam]) {
            rc = to_default(&e.hist, &p->hist[fam]);
        } else {
            hist_add(p->hist[fam], &e.hist);
            rc = 0;
        }
        hist_fini(&e.hist);
        if (rc) return rc;
    }
    if (rc < 0) {
        seterr(err, errsz, "%s: line %d: %s (%s)", r->path, rd.line, rd.why ? rd.why : "bad line",
               lat_strerror(rc));
        return rc;
    }
    if (!entries || entries == unknown) {
        seterr(err, errsz,
               "%s: HDR log with no histogram latscope knows (tags lat.sched, lat.send, send_lag, "
               "ttft.sched, ... or untagged)",
               r->path);
        return LAT_E_NOT_FOUND;
    }
    stats_from_hists(p);
    int main_f = p->hist[DIFF_F_LAT] ? DIFF_F_LAT : r->llm ? DIFF_F_E2E : -1;
    if (main_f >= 0 && p->hist[main_f]) {
        p->ok = hist_count(p->hist[main_f]);
        if (t1 > t0) p->scalar[DIFF_S_THROUGHPUT] = (double)p->ok / (t1 - t0);
    }
    return 0;
}

int diff_run_parse(const char *name, enum diff_kind kind, const char *doc, size_t n,
                   struct diff_run **out, char *err, size_t errsz)
{
    *out = NULL;
    if (kind == DIFF_KIND_TRACE) return LAT_E_USAGE;
    struct diff_run *r = calloc(1, sizeof(*r));
    if (!r) return -ENOMEM;
    r->path = strdup(name);
    r->kind = kind;
    r->fm_max_rate = r->fm_lowest_failing_rate = NAN;
    int rc = r->path ? 0 : -ENOMEM;
    if (!rc && n == 0) {
        seterr(err, errsz, "%s: empty file (0 bytes)", name);
        rc = LAT_E_TRUNCATED;
    }
    if (!rc)
        rc = kind == DIFF_KIND_BENCH     ? load_bench(r, doc, n, err, errsz)
             : kind == DIFF_KIND_RECORDS ? load_records(r, doc, n, err, errsz)
                                         : load_hlog(r, doc, n, err, errsz);
    if (rc) {
        diff_run_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int diff_run_load(const char *path, enum diff_kind kind, struct diff_run **out, char *err,
                  size_t errsz)
{
    *out = NULL;
    if (kind == DIFF_KIND_TRACE) return LAT_E_USAGE;
    char *doc = NULL;
    size_t n = 0;
    int rc = read_all(path, &doc, &n, err, errsz);
    if (!rc) rc = diff_run_parse(path, kind, doc, n, out, err, errsz);
    free(doc);
    return rc;
}

/* ---- comparison ---- */

void diff_bench_opts_default(struct diff_bench_opts *o)
{
    o->conf = 0.95;
    o->resamples = 10000;
    o->seed = 1;
    o->noise_pct = 0;
}

/* Per-run values of one side: their mean, and a Welch interval against the other side. */
/* The widths (ms) of the buckets of a and b holding the values va and vb (ns), added: how far
 * apart two percentiles read from these histograms may be by quantisation alone. */
static double bucket_widths_ms(const struct lat_hist *a, double va, const struct lat_hist *b,
                               double vb)
{
    if (!a || !b || !(va > 0) || !(vb > 0)) return 0;
    return (double)(hist_size_of_equivalent_range(&a->cfg, (int64_t)va) +
                    hist_size_of_equivalent_range(&b->cfg, (int64_t)vb)) /
           1e6;
}

static double side_mean(const double *x, size_t n)
{
    double m, sd;
    dstat_mean_sd(x, n, &m, &sd);
    return m;
}

static struct dstat_ci welch_runs(const double *a, size_t na, const double *b, size_t nb,
                                  double conf)
{
    double ma, sa, mb, sb;
    dstat_mean_sd(a, na, &ma, &sa);
    dstat_mean_sd(b, nb, &mb, &sb);
    struct dstat_ci ci = dstat_welch(ma, sa, (double)na, mb, sb, (double)nb, conf);
    if (!ci.have) ci.why = "one run per side: give several (A1 A2 -- B1 B2) for an interval";
    return ci;
}

static int compare_load(const char *load, struct diff_point **pa, size_t na, struct diff_point **pb,
                        size_t nb, const struct diff_bench_opts *o, bool flagged,
                        struct diff_bench_result *out)
{
    double va[64], vb[64];
    const struct lat_hist *ha[64], *hb[64];
    for (int f = 0; f < DIFF_F__N; f++) {
        for (int s = 0; s < DIFF_NSTAT; s++) {
            bool have = true, hists = true;
            for (size_t i = 0; i < na; i++) {
                va[i] = pa[i]->stat[f][s];
                ha[i] = pa[i]->hist[f];
                if (isnan(va[i])) have = false;
                if (!ha[i] || !hist_count(ha[i])) hists = false;
            }
            for (size_t i = 0; i < nb; i++) {
                vb[i] = pb[i]->stat[f][s];
                hb[i] = pb[i]->hist[f];
                if (isnan(vb[i])) have = false;
                if (!hb[i] || !hist_count(hb[i])) hists = false;
            }
            if (!have) continue;
            struct diff_row *row = diff_new_row(out);
            if (!row) return -ENOMEM;
            row->load = load;
            snprintf(row->key, sizeof(row->key), "%s.%s", fam_key[f], stat_key[s]);
            snprintf(row->label, sizeof(row->label), "%s %s", stat_key[s], fam_label[f]);
            row->unit = "ms";
            row->lower_better = true;
            row->flagged = flagged;
            row->before = side_mean(va, na);
            row->after = side_mean(vb, nb);
            bool pct = s > 0 && s < DIFF_NSTAT - 1;
            /* A percentile gets an interval only when each side has enough samples for a
             * distribution-free one (n >= ln(alpha/2) / ln(p): 367 for p99 at 95 %); beyond that
             * the bootstrap of an extreme order statistic is not trustworthy. */
            bool enough = true;
            if (pct && hists) {
                uint64_t tot[2] = {0, 0}, lo, hi;
                for (size_t i = 0; i < na; i++)
                    tot[0] += hist_count(ha[i]);
                for (size_t i = 0; i < nb; i++)
                    tot[1] += hist_count(hb[i]);
                for (int k = 0; k < 2; k++)
                    if (dstat_os_ci_ranks(tot[k], stat_pct[s], o->conf, &lo, &hi, NULL))
                        enough = false;
            }
            if (pct && hists && !enough) {
                row->ci.why = "too few samples for an interval of this percentile";
                row->method = "none";
            } else if (pct && hists) {
                struct dstat_side sa = {ha, na}, sb = {hb, nb};
                struct dstat_boot bt;
                int rc = dstat_boot_pct(&sa, &sb, stat_pct[s], o->resamples,
                                        o->seed ^ (uint64_t)(f * 16 + s), o->conf, &bt);
                if (rc == -ENOMEM) return rc;
                if (rc == 0) {
                    if (na > 1 || nb > 1) {
                        row->before = bt.a / 1e6;
                        row->after = bt.b / 1e6;
                    }
                    row->ci = bt.abs;
                    row->ci.est /= 1e6;
                    row->ci.lo /= 1e6;
                    row->ci.hi /= 1e6;
                    row->ci_pct = bt.rel;
                    row->ci_pct.est *= 100;
                    row->ci_pct.lo *= 100;
                    row->ci_pct.hi *= 100;
                    row->method = "bootstrap";
                    row->res = bucket_widths_ms(ha[0], bt.a, hb[0], bt.b);
                }
            } else if (s == 0 && hists && (na > 1 || nb > 1)) {
                struct dstat_side sa = {ha, na}, sb = {hb, nb};
                struct dstat_boot bt;
                int rc = dstat_boot_mean(&sa, &sb, o->resamples, o->seed ^ (uint64_t)(f * 16),
                                         o->conf, &bt);
                if (rc == -ENOMEM) return rc;
                if (rc == 0) {
                    row->before = bt.a / 1e6;
                    row->after = bt.b / 1e6;
                    row->ci = bt.abs;
                    row->ci.est /= 1e6;
                    row->ci.lo /= 1e6;
                    row->ci.hi /= 1e6;
                    row->ci_pct = bt.rel;
                    row->ci_pct.est *= 100;
                    row->ci_pct.lo *= 100;
                    row->ci_pct.hi *= 100;
                    row->method = "bootstrap";
                }
            } else if (na > 1 && nb > 1 && s != DIFF_NSTAT - 1) {
                row->ci = welch_runs(va, na, vb, nb, o->conf);
                row->method = "welch-runs";
            } else if (s == 0 && hists && na == 1 && nb == 1) {
                const struct lat_hist *x = ha[0], *y = hb[0];
                row->ci = dstat_welch(hist_mean(x) / 1e6, hist_stddev(x) / 1e6,
                                      (double)hist_count(x), hist_mean(y) / 1e6,
                                      hist_stddev(y) / 1e6, (double)hist_count(y), o->conf);
                /* Centre on the reported means (exact estimator) */
                double shift = (row->after - row->before) - row->ci.est;
                row->ci.est += shift;
                row->ci.lo += shift;
                row->ci.hi += shift;
                row->method = "welch";
            } else {
                /* A maximum is one extreme sample per run: a Welch interval over runs'
                 * maxima is not an interval of anything (it gave -352 %; issue 31). */
                row->ci.why = s == DIFF_NSTAT - 1
                                  ? "a maximum is one extreme sample: it has no interval"
                                  : "no recorded samples and one run per side";
                row->method = "none";
            }
            diff_row_finish(row, o->noise_pct);
        }
    }
    /* closed-loop points with the intended-send latency histogram on every run */
    bool closed = strncmp(load, "concurrency ", 12) == 0, lat_hists = true;
    for (size_t i = 0; i < na; i++) {
        ha[i] = pa[i]->hist[DIFF_F_LAT];
        if (!ha[i] || hist_count(ha[i]) < 2) lat_hists = false;
    }
    for (size_t i = 0; i < nb; i++) {
        hb[i] = pb[i]->hist[DIFF_F_LAT];
        if (!hb[i] || hist_count(hb[i]) < 2) lat_hists = false;
    }
    for (int s = 0; s < DIFF_S__N; s++) {
        if (s == DIFF_S_OUT_TOK_REQ) continue;
        bool have = true;
        for (size_t i = 0; i < na; i++)
            if (isnan(va[i] = pa[i]->scalar[s])) have = false;
        for (size_t i = 0; i < nb; i++)
            if (isnan(vb[i] = pb[i]->scalar[s])) have = false;
        if (!have) continue;
        struct diff_row *row = diff_new_row(out);
        if (!row) return -ENOMEM;
        row->load = load;
        snprintf(row->key, sizeof(row->key), "%s", scalar_def[s].key);
        snprintf(row->label, sizeof(row->label), "%s", scalar_def[s].label);
        row->unit = scalar_def[s].unit;
        row->lower_better = scalar_def[s].lower_better;
        row->flagged = flagged;
        row->before = side_mean(va, na);
        row->after = side_mean(vb, nb);
        if (s == DIFF_S_ERROR_RATE) {
            uint64_t ka = 0, ta = 0, kb = 0, tb = 0;
            for (size_t i = 0; i < na; i++) {
                ka += pa[i]->errors;
                ta += pa[i]->errors + pa[i]->ok;
            }
            for (size_t i = 0; i < nb; i++) {
                kb += pb[i]->errors;
                tb += pb[i]->errors + pb[i]->ok;
            }
            row->before = ta ? 100.0 * (double)ka / (double)ta : 0;
            row->after = tb ? 100.0 * (double)kb / (double)tb : 0;
            row->ci = dstat_prop_diff(ka, ta, kb, tb, o->conf);
            row->ci.est *= 100;
            row->ci.lo *= 100;
            row->ci.hi *= 100;
            row->method = "newcombe";
            /* A rate of 0 has no relative change: the interval stays in points of %. */
            if (row->before == 0) row->ci_pct.why = "before is 0";
        } else if (s == DIFF_S_THROUGHPUT && closed && lat_hists) {
            /* Closed loop: each connection is always busy with one request, and latency_ms
             * runs from the previous completion, so throughput = concurrency / mean latency
             * (Little's law); its interval is the mean's (bootstrap), inverted. */
            struct dstat_side sa = {ha, na}, sb = {hb, nb};
            struct dstat_boot bt;
            int rc = dstat_boot_mean(&sa, &sb, o->resamples, o->seed ^ 0x7777, o->conf, &bt);
            if (rc == -ENOMEM) return rc;
            if (rc == 0 && bt.rel.have && bt.rel.lo > -1 && bt.rel.hi > -1) {
                row->ci_pct.have = true;
                row->ci_pct.lo = 100 * (1 / (1 + bt.rel.hi) - 1);
                row->ci_pct.hi = 100 * (1 / (1 + bt.rel.lo) - 1);
                row->ci = row->ci_pct;
                row->ci.lo = row->ci_pct.lo / 100 * row->before;
                row->ci.hi = row->ci_pct.hi / 100 * row->before;
                row->method = "little-law";
            }
        } else if (na > 1 && nb > 1) {
            row->ci = welch_runs(va, na, vb, nb, o->conf);
            row->method = "welch-runs";
        } else {
            row->ci.why = "one run per side: give several (A1 A2 -- B1 B2) for an interval";
            row->method = "none";
        }
        if (!row->method) {
            row->ci.why = "no interval could be computed";
            row->method = "none";
        }
        diff_row_finish(row, o->noise_pct);
    }
    return 0;
}

static bool str_differs(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") != 0;
}

static int check_headers(struct diff_run *const *a, size_t na, struct diff_run *const *b, size_t nb,
                         struct diff_bench_result *out)
{
    const struct diff_run *ref = a[0];
    int rc = 0;
    for (size_t i = 0; i < na + nb && !rc; i++) {
        const struct diff_run *r = i < na ? a[i] : b[i - na];
        if (r == ref) continue;
        const char *side = i < na ? "before" : "after";
        if (str_differs(r->target, ref->target) || str_differs(r->mode, ref->mode))
            rc = diff_note(out, "different targets/modes: %s is %s/%s, %s is %s/%s", ref->path,
                           ref->target, ref->mode, r->path, r->target, r->mode);
        if (!rc && str_differs(r->arrival, ref->arrival))
            rc = diff_note(out, "different arrival processes: %s '%s', %s (%s) '%s'", ref->path,
                           ref->arrival[0] ? ref->arrival : "closed loop", r->path, side,
                           r->arrival[0] ? r->arrival : "closed loop");
        if (!rc && str_differs(r->rx_time, ref->rx_time))
            rc = diff_note(out,
                           "different clocks: %s timestamps responses with the %s clock, %s with "
                           "the %s clock (kernel receive time vs recv() return): latencies are "
                           "not comparable to the µs",
                           ref->path, ref->rx_time, r->path, r->rx_time);
        if (!rc && str_differs(r->estimator, ref->estimator))
            rc = diff_note(out, "different percentile estimators: %s '%s', %s '%s'", ref->path,
                           ref->estimator, r->path, r->estimator);
        if (!rc && (ref->workload || r->workload) && str_differs(r->workload, ref->workload))
            rc = diff_note(out, "different workloads (request mix): %s '%s', %s '%s'", ref->path,
                           ref->workload ? ref->workload : "unknown", r->path,
                           r->workload ? r->workload : "unknown");
        if (!rc && r->kind != ref->kind)
            rc = diff_note(out, "comparing a %s with a %s", diff_kind_name(ref->kind),
                           diff_kind_name(r->kind));
    }
    return rc;
}

/* doctor's service rules on both sides of bench results (diff_run_doctor), their findings
 * matched (diff_findings_match): what a change resolved and what it brought. */
static int service_findings(struct diff_run *const *a, size_t na, struct diff_run *const *b,
                            size_t nb, struct diff_bench_result *out)
{
    for (size_t i = 0; i < na + nb; i++)
        if ((i < na ? a[i] : b[i - na])->kind != DIFF_KIND_BENCH) return 0;
    struct doc_report *r[2] = {NULL, NULL};
    int rc = doctor_report_new(&r[0]);
    if (!rc) rc = doctor_report_new(&r[1]);
    for (size_t i = 0; i < na && !rc; i++)
        rc = diff_run_doctor(r[0], a[i]);
    for (size_t i = 0; i < nb && !rc; i++)
        rc = diff_run_doctor(r[1], b[i]);
    if (!rc) {
        doctor_rank(r[0]);
        doctor_rank(r[1]);
        rc = diff_findings_match(r[0], r[1], na == 1 && nb == 1, &out->findings, &out->nfindings,
                                 &out->findings_cap);
        out->service_findings = !rc;
    }
    doctor_report_free(r[0]);
    doctor_report_free(r[1]);
    return rc;
}

int diff_bench_compare(struct diff_run *const *a, size_t na, struct diff_run *const *b, size_t nb,
                       const struct diff_bench_opts *o, struct diff_bench_result *out, char *err,
                       size_t errsz)
{
    memset(out, 0, sizeof(*out));
    if (!na || !nb || na > 64 || nb > 64) {
        seterr(err, errsz, "give 1 to 64 runs per side");
        return LAT_E_USAGE;
    }
    int rc = check_headers(a, na, b, nb, out);
    /* The loads, in the order the first before-run has them, then the others. */
    const char *loads[512];
    size_t nl = 0;
    for (size_t i = 0; i < na + nb; i++) {
        const struct diff_run *r = i < na ? a[i] : b[i - na];
        for (size_t k = 0; k < r->npts; k++) {
            size_t j = 0;
            while (j < nl && strcmp(loads[j], r->pts[k].load) != 0)
                j++;
            if (j == nl && nl < 512) loads[nl++] = r->pts[k].load;
        }
    }
    struct diff_point *pa[64], *pb[64];
    for (size_t l = 0; l < nl && !rc; l++) {
        size_t ka = 0, kb = 0;
        bool flagged = false;
        for (size_t side = 0; side < 2 && !rc; side++) {
            struct diff_run *const *runs = side ? b : a;
            size_t n = side ? nb : na;
            for (size_t i = 0; i < n && !rc; i++) {
                struct diff_point *found = NULL;
                for (size_t k = 0; k < runs[i]->npts; k++)
                    if (strcmp(runs[i]->pts[k].load, loads[l]) == 0) {
                        found = &runs[i]->pts[k];
                        break;
                    }
                if (!found) continue;
                if (side)
                    pb[kb++] = found;
                else
                    pa[ka++] = found;
                if (!found->valid) {
                    flagged = true;
                    rc = diff_note(out, "%s: %s (%s) is INVALID: %s", loads[l], runs[i]->path,
                                   side ? "after" : "before",
                                   found->why[0] ? found->why : "see the bench output");
                }
            }
        }
        if (rc) break;
        if (!ka || !kb) {
            rc = diff_note(out, "%s: only in the %s runs: not compared", loads[l],
                           ka ? "before" : "after");
            continue;
        }
        if (ka != na || kb != nb)
            rc = diff_note(out, "%s: present in %zu of %zu before and %zu of %zu after runs",
                           loads[l], ka, na, kb, nb);
        /* Token counts are workload: a change in output tokens per request is not a speed-up. */
        double ta = 0, tb = 0;
        for (size_t i = 0; i < ka; i++)
            ta += pa[i]->scalar[DIFF_S_OUT_TOK_REQ] / (double)ka;
        for (size_t i = 0; i < kb; i++)
            tb += pb[i]->scalar[DIFF_S_OUT_TOK_REQ] / (double)kb;
        if (!rc && !isnan(ta) && !isnan(tb) && ta > 0 && fabs(tb / ta - 1) > 0.05)
            rc = diff_note(out,
                           "%s: different workloads: %.1f output tokens per request before, "
                           "%.1f after",
                           loads[l], ta, tb);
        if (!rc) rc = compare_load(loads[l], pa, ka, pb, kb, o, flagged, out);
        out->nloads++;
    }
    if (rc) {
        diff_bench_result_fini(out);
        return rc;
    }
    if (!out->nloads) {
        char la[256] = "", lb[256] = "";
        for (size_t k = 0; k < a[0]->npts; k++)
            snprintf(la + strlen(la), sizeof(la) - strlen(la), "%s%s", k ? ", " : "",
                     a[0]->pts[k].load);
        for (size_t k = 0; k < b[0]->npts; k++)
            snprintf(lb + strlen(lb), sizeof(lb) - strlen(lb), "%s%s", k ? ", " : "",
                     b[0]->pts[k].load);
        seterr(err, errsz,
               "no load point in common: %s has %s; %s has %s (run both with the same "
               "--concurrency / --rate)",
               a[0]->path, la, b[0]->path, lb);
        diff_bench_result_fini(out);
        return LAT_E_USAGE;
    }
    rc = service_findings(a, na, b, nb, out);
    if (rc) diff_bench_result_fini(out);
    return rc;
}

/* ---- --fail-if ---- */

int diff_rule_parse(const char *s, struct diff_rule *r, const char **why)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->text, sizeof(r->text), "%s", s);
    const char *p = s;
    while (*p == ' ')
        p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '>' && p[n] != '<' && n < sizeof(r->metric) - 1)
        n++;
    if (!n) {
        *why = "expected a metric first ('p99 > +5%')";
        return LAT_E_USAGE;
    }
    memcpy(r->metric, p, n);
    r->metric[n] = 0;
    p += n;
    while (*p == ' ')
        p++;
    if (*p != '>' && *p != '<') {
        *why = "expected '>' or '<' after the metric ('p99 > +5%', 'throughput < -3%')";
        return LAT_E_USAGE;
    }
    r->gt = *p == '>';
    p++;
    while (*p == ' ')
        p++;
    char *end;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v)) {
        *why = "expected a signed percentage after the operator ('+5%')";
        return LAT_E_USAGE;
    }
    p = end;
    while (*p == ' ')
        p++;
    if (*p != '%' || p[1]) {
        *why = "the limit must be a percentage ending in '%' ('+5%')";
        return LAT_E_USAGE;
    }
    r->limit = v;
    return 0;
}

bool diff_rule_matches(const struct diff_rule *r, const struct diff_row *row)
{
    if (strcmp(r->metric, row->key) == 0) return true;
    /* Aliases: a bare statistic is the CO-correct latency; "errors" the error rate. */
    for (int s = 0; s < DIFF_NSTAT; s++)
        if (strcmp(r->metric, stat_key[s]) == 0 && strncmp(row->key, "latency.", 8) == 0 &&
            strcmp(row->key + 8, stat_key[s]) == 0)
            return true;
    if ((strcmp(r->metric, "errors") == 0 || strcmp(r->metric, "error-rate") == 0) &&
        strcmp(row->key, "error_rate") == 0)
        return true;
    return false;
}

bool diff_rule_fires(const struct diff_rule *r, const struct diff_row *row)
{
    if (!diff_rule_matches(r, row)) return false;
    if (row->verdict != DIFF_V_REGRESSION && row->verdict != DIFF_V_IMPROVEMENT) return false;
    double d = row->delta_pct;
    if (isnan(d)) {
        /* from 0: any significant increase passes a '>' limit, any decrease a '<' one */
        return r->gt ? row->delta > 0 : row->delta < 0;
    }
    return r->gt ? d > r->limit : d < r->limit;
}
