/*
 * merge-parts.c - the parts of a bench point that `latscope bench merge` combines beside the
 * histograms (merge.h): GPU telemetry and time slices (issue 17).
 *
 * GPU telemetry: one device per UUID (two shards on one host that scraped the same GPU give
 * one device: samples added, mean weighted by samples, min of the minima, max of the maxima,
 * all exact); a GPU without a UUID is its shard's own, named "K:ID". Every sample of the
 * series is kept, put on the schedule's time axis (each shard's window start from its t0).
 * Time slices: slice k of every shard into slice k (the shards run one schedule; --slice must
 * agree). Counts and rates are summed, mean (weighted) and max exact; p50/p90/p99 are only
 * known where a single shard had requests in the slice (the shards' slices carry percentiles,
 * not histograms): elsewhere "not mergeable" (null), never an average of percentiles.
 * Multi-turn sessions (--sessions): every shard must have run the same file with the same
 * --history and --think-time (else refused). Counts (started, completed, failed, each row's
 * requests and ok) are summed; each row's TTFT and E2E and the session duration from the sum
 * of the shards' histograms (their means are the shards' means weighted by their sample
 * counts), isl_mean from the summed isl_sum / isl_n; later_vs_first_ttft from the merged means.
 * A row for which a shard with requests there has no histograms (a result written before they
 * were in the JSON) keeps its counts; its latencies are that shard's own when it is the only
 * one with requests in the row, else "not mergeable" (null).
 */
#include "bench/merge.h"

#include "bench/sessions.h"
#include "bench/slices.h"
#include "bench/telemetry.h"
#include "core/err.h"
#include "core/grow.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const char *d, size_t n, const char *path, double dflt)
{
    double v;
    return json_get_double(d, n, path, &v) == 0 ? v : dflt;
}

/* A time or latency read from a shard: kept within +-1e6 (s or ms), so that no sum of them
 * in ns overflows. */
static double sane(double v)
{
    return v > 1e6 ? 1e6 : v < -1e6 ? -1e6 : v == v ? v : 0;
}

/* A count: a non-negative whole number below 2^63, else 0 (never an out-of-range cast). */
static uint64_t count(const char *d, size_t n, const char *path)
{
    double v = num(d, n, path, 0);
    return v >= 0 && v < 9.2e18 ? (uint64_t)v : 0;
}

static void str(const char *d, size_t n, const char *path, char *out, size_t cap)
{
    struct lat_buf b = LAT_BUF_INIT;
    out[0] = '\0';
    if (json_get_str(d, n, path, &b) == 0 && b.data) snprintf(out, cap, "%s", b.data);
    buf_fini(&b);
}

/* The elements of the array at path in d (spans relative to d); 0 when absent. */
static size_t array_items(const char *d, size_t n, const char *path, struct json_val **out)
{
    struct json_val av, v;
    *out = NULL;
    if (json_find(d, n, path, &av) != 0 || av.type != JSON_ARR_BEGIN) return 0;
    struct json_iter it;
    size_t k = 0, cap = 0;
    int rc = json_iter_init(&it, d, n, &av);
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &v)) == 1) {
        if (LAT_GROW(*out, cap, k, 1, 16)) {
            free(*out);
            *out = NULL;
            return (size_t)-1;
        }
        (*out)[k++] = v;
    }
    return k;
}

static int merge_gpu(struct bench_point *p, const struct bench_merge_shard *sh, size_t n, char *err,
                     size_t errsz)
{
    struct gpu_point *g = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        struct json_val gv;
        if (json_find(sh[i].d, sh[i].n, "gpu_telemetry", &gv) != 0 || gv.type != JSON_OBJ_BEGIN)
            continue;
        const char *d = sh[i].d + gv.off;
        size_t dn = gv.len;
        if (!g && !(g = calloc(1, sizeof(*g)))) return -ENOMEM;
        char src[16];
        str(d, dn, "source", src, sizeof(src));
        const char *s = !strcmp(src, "nvml") ? "nvml" : !strcmp(src, "dcgm") ? "dcgm" : "?";
        g->source = !g->source || !strcmp(g->source, s) ? s : "mixed";
        bool av = false;
        json_get_bool(d, dn, "available", &av);
        if (av) g->available = true;
        if (!av && !g->why[0]) {
            char why[200];
            str(d, dn, "unavailable_reason", why, sizeof(why));
            snprintf(g->why, sizeof(g->why), "shard %u: %s", sh[i].index, why);
        }
        g->scrapes += count(d, dn, "scrapes");
        g->errors += count(d, dn, "scrape_errors");
        /* this shard's GPUs: their ids (the series names them) and merged index */
        char ids[GPU_TELEM_MAX_GPUS][GPU_ID_MAX];
        size_t map[GPU_TELEM_MAX_GPUS], nloc = 0;
        struct json_val *gp;
        size_t ng = array_items(d, dn, "gpus", &gp);
        if (ng == (size_t)-1) {
            gpu_point_free(g);
            return -ENOMEM;
        }
        for (size_t j = 0; j < ng && nloc < GPU_TELEM_MAX_GPUS; j++) {
            const char *e = d + gp[j].off;
            size_t en = gp[j].len;
            struct gpu_dev dev = {0};
            str(e, en, "gpu", dev.id, sizeof(dev.id));
            str(e, en, "uuid", dev.uuid, sizeof(dev.uuid));
            str(e, en, "model", dev.model, sizeof(dev.model));
            size_t m = g->ndev;
            for (size_t k = 0; dev.uuid[0] && k < g->ndev; k++)
                if (!strcmp(g->dev[k].uuid, dev.uuid)) m = k;
            if (m == g->ndev) {
                if (g->ndev == GPU_TELEM_MAX_GPUS) break;
                g->dev[m] = dev;
                if (!dev.uuid[0] && n > 1)
                    snprintf(g->dev[m].id, sizeof(g->dev[m].id), "%u:%.18s", sh[i].index, dev.id);
                g->ndev++;
            }
            for (int f = 0; f < GPU_F__N; f++) {
                char path[96];
                struct gpu_stat st = {0};
                snprintf(path, sizeof(path), "%s/samples", gpu_field_keys[f]);
                st.n = count(e, en, path);
                snprintf(path, sizeof(path), "%s/mean", gpu_field_keys[f]);
                st.mean = num(e, en, path, 0);
                snprintf(path, sizeof(path), "%s/min", gpu_field_keys[f]);
                st.min = num(e, en, path, 0);
                snprintf(path, sizeof(path), "%s/max", gpu_field_keys[f]);
                st.max = num(e, en, path, 0);
                gpu_stat_add(&g->st[m].f[f], &st);
            }
            snprintf(ids[nloc], sizeof(ids[nloc]), "%s", dev.id);
            map[nloc++] = m;
        }
        free(gp);
        struct json_val *sv;
        size_t ns = array_items(d, dn, "series", &sv);
        if (ns == (size_t)-1) {
            gpu_point_free(g);
            return -ENOMEM;
        }
        for (size_t j = 0; j < ns && !rc; j++) {
            const char *e = d + sv[j].off;
            size_t en = sv[j].len;
            char id[GPU_ID_MAX];
            str(e, en, "gpu", id, sizeof(id));
            size_t m = GPU_TELEM_MAX_GPUS;
            for (size_t k = 0; k < nloc; k++)
                if (!strcmp(ids[k], id)) m = map[k];
            if (m == GPU_TELEM_MAX_GPUS) continue; /* a GPU the list lacks: not ours */
            if (LAT_GROW(g->s, cap, g->n, 1, 64)) {
                rc = -ENOMEM;
                break;
            }
            struct gpu_sample *x = &g->s[g->n];
            memset(x, 0, sizeof(*x));
            /* on the schedule's axis: this shard's window start plus its offset in it */
            x->t = sh[i].ws_rel_ns + (lat_ns)llround(sane(num(e, en, "t_s", 0)) * 1e9);
            x->dev = (uint16_t)m;
            for (int f = 0; f < GPU_F__N; f++) {
                double v;
                if (json_get_double(e, en, gpu_field_keys[f], &v) == 0) {
                    x->v[f] = v;
                    x->have |= (uint16_t)(1u << f);
                }
            }
            g->n++;
        }
        free(sv);
    }
    if (rc) {
        gpu_point_free(g);
        return rc;
    }
    (void)err;
    (void)errsz;
    if (g && g->n) qsort(g->s, g->n, sizeof(*g->s), gpu_sample_cmp);
    p->gpu = g;
    return 0;
}

/* One shard's slice k (or nothing): what merge_slices reads of it. */
struct one {
    uint64_t ok, errors, llm_ok, llm_err;
    double rps, mean, p50, p90, p99, max, end_s;
    bool have_llm;
    struct llm_stat ttft, itl;
};

static void read_llm_stat(const char *e, size_t en, const char *key, struct llm_stat *st)
{
    char path[64];
    memset(st, 0, sizeof(*st));
    snprintf(path, sizeof(path), "%s/samples", key);
    st->n = count(e, en, path);
    snprintf(path, sizeof(path), "%s/mean", key);
    st->mean = sane(num(e, en, path, 0)) * 1e6;
    snprintf(path, sizeof(path), "%s/p50", key);
    st->p50 = sane(num(e, en, path, 0)) * 1e6;
    snprintf(path, sizeof(path), "%s/p90", key);
    st->p90 = sane(num(e, en, path, 0)) * 1e6;
    snprintf(path, sizeof(path), "%s/p99", key);
    st->p99 = sane(num(e, en, path, 0)) * 1e6;
}

/* dst += s: samples and weighted mean exact; the percentiles only while one shard has any. */
static void llm_stat_add(struct llm_stat *dst, const struct llm_stat *s, int *contrib)
{
    if (!s->n) return;
    if (!dst->n) {
        *dst = *s;
        (*contrib)++;
        return;
    }
    uint64_t n = dst->n + s->n;
    dst->mean = (dst->mean * (double)dst->n + s->mean * (double)s->n) / (double)n;
    dst->n = n;
    (*contrib)++;
}

static int merge_slices(struct bench_point *p, const struct bench_merge_shard *sh, size_t n,
                        char *err, size_t errsz)
{
    struct json_val **items = calloc(n, sizeof(*items));
    size_t *cnt = calloc(n, sizeof(*cnt));
    struct bench_slices *s = NULL;
    int rc = 0;
    if (!items || !cnt) {
        rc = -ENOMEM;
        goto out;
    }
    double width = 0;
    size_t ns = 0, with = 0;
    bool complete = true;
    for (size_t i = 0; i < n; i++) {
        cnt[i] = array_items(sh[i].d, sh[i].n, "slices", &items[i]);
        if (cnt[i] == (size_t)-1) {
            cnt[i] = 0;
            rc = -ENOMEM;
            goto out;
        }
        double w = sane(num(sh[i].d, sh[i].n, "slice_s", 0));
        if (w <= 0) {
            complete = false;
            continue;
        }
        if (with && fabs(w - width) > 1e-9) {
            snprintf(err, errsz,
                     "%s: --slice %g s, but %s has %g s: slices of different widths do not "
                     "merge (run every shard with the same --slice)",
                     sh[i].name, w, sh[0].name, width);
            rc = LAT_E_USAGE;
            goto out;
        }
        width = w;
        with++;
        bool c = false;
        json_get_bool(sh[i].d, sh[i].n, "slices_complete", &c);
        if (!c) complete = false;
        if (cnt[i] > ns) ns = cnt[i];
    }
    if (!with || !ns) goto out;
    s = calloc(1, sizeof(*s));
    if (!s || !(s->s = calloc(ns, sizeof(*s->s)))) {
        rc = -ENOMEM;
        goto out;
    }
    s->width = (lat_ns)llround(width * 1e9);
    s->n = ns;
    s->merged_shards = (uint32_t)n;
    s->complete = complete && with == n;
    s->gpu = p->gpu;
    lat_ns base = p->res.have_window ? p->res.window_start_ns : 0;
    for (size_t k = 0; k < ns; k++) {
        struct bench_slice *x = &s->s[k];
        x->t_start = (lat_ns)k * s->width;
        x->t_end = x->t_start;
        x->p50 = x->p90 = x->p99 = x->max = -1;
        int lat_c = 0, ttft_c = 0, itl_c = 0;
        double wsum = 0;
        struct one single = {0};
        for (size_t i = 0; i < n; i++) {
            if (k >= cnt[i]) continue;
            const char *e = sh[i].d + items[i][k].off;
            size_t en = items[i][k].len;
            struct one o = {0};
            o.ok = count(e, en, "requests");
            o.errors = count(e, en, "errors");
            o.rps = sane(num(e, en, "achieved_rps", 0));
            o.mean = sane(num(e, en, "latency_ms/mean", 0)) * 1e6;
            o.p50 = sane(num(e, en, "latency_ms/p50", -1));
            o.p90 = sane(num(e, en, "latency_ms/p90", -1));
            o.p99 = sane(num(e, en, "latency_ms/p99", -1));
            o.max = sane(num(e, en, "latency_ms/max", -1));
            o.end_s = sane(num(e, en, "end_s", 0));
            int64_t v;
            o.have_llm = json_get_i64(e, en, "llm_requests", &v) == 0 && v >= 0;
            x->ok += o.ok;
            x->errors += o.errors;
            x->rps += o.rps;
            lat_ns end = (lat_ns)llround(o.end_s * 1e9);
            if (end > x->t_end) x->t_end = end;
            if (o.ok) {
                wsum += o.mean * (double)o.ok;
                if (o.max >= 0 && (int64_t)llround(o.max * 1e6) > x->max)
                    x->max = (int64_t)llround(o.max * 1e6);
                if (!lat_c++) single = o;
            }
            if (o.have_llm) {
                x->have_llm = true;
                x->llm_ok += (uint64_t)v;
                x->llm_errors += count(e, en, "llm_errors");
                struct llm_stat t, l;
                read_llm_stat(e, en, "ttft_ms", &t);
                read_llm_stat(e, en, "itl_ms", &l);
                llm_stat_add(&x->ttft, &t, &ttft_c);
                llm_stat_add(&x->itl, &l, &itl_c);
            }
        }
        if (x->ok) x->mean = wsum / (double)x->ok;
        if (lat_c == 1 && single.p50 >= 0) { /* one shard's requests: its exact percentiles */
            x->p50 = (int64_t)llround(single.p50 * 1e6);
            x->p90 = (int64_t)llround(single.p90 * 1e6);
            x->p99 = (int64_t)llround(single.p99 * 1e6);
        }
        x->pct_not_mergeable = lat_c > 1 || ttft_c > 1 || itl_c > 1;
        if (p->gpu && p->gpu->ndev) {
            if (!(x->gpu = calloc(p->gpu->ndev, sizeof(*x->gpu)))) {
                rc = -ENOMEM;
                goto out;
            }
            x->ngpu = p->gpu->ndev;
            /* as one process's slices: the first takes the sample made as the point began, the
             * last the one made as it ended */
            lat_ns t0 = k == 0 ? INT64_MIN / 2 : base + x->t_start;
            lat_ns t1 = k + 1 == ns ? INT64_MAX / 2 : base + x->t_start + s->width;
            gpu_point_stats(p->gpu, t0, t1, x->gpu);
        }
    }
    p->slices = s;
    s = NULL;
out:
    for (size_t i = 0; items && i < n; i++)
        free(items[i]);
    free(items);
    free(cnt);
    bench_slices_free(s);
    return rc;
}

/* What one merged sessions row gathers from the shards. */
struct sess_acc {
    int contrib, with_hist, isl_missing; /* shards with requests in the row; ... of them with
                                            histograms; ... without isl_n / isl_sum */
    struct bench_sess_stat ttft, e2e;    /* the last contributor's own values */
    double isl_mean;
};

static bool ms_ns(const char *d, size_t n, const char *key, double *out)
{
    double v;
    if (json_get_double(d, n, key, &v) != 0) return false; /* null or absent */
    *out = sane(v) * 1e6;
    return true;
}

/* NAME_mean_ms, NAME_p50_ms, NAME_p99_ms of a shard's sessions object or row */
static struct bench_sess_stat sess_stat(const char *d, size_t n, const char *name)
{
    struct bench_sess_stat x = {0};
    char k[3][48];
    snprintf(k[0], sizeof(k[0]), "%s_mean_ms", name);
    snprintf(k[1], sizeof(k[1]), "%s_p50_ms", name);
    snprintf(k[2], sizeof(k[2]), "%s_p99_ms", name);
    x.have = ms_ns(d, n, k[0], &x.mean) && ms_ns(d, n, k[1], &x.p50) && ms_ns(d, n, k[2], &x.p99);
    return x;
}

static int sess_row(struct llm_sess_row *dst, struct sess_acc *a, const char *d, size_t dn,
                    const struct bench_merge_shard *s, const char *where, char *err, size_t errsz)
{
    uint64_t n = count(d, dn, "requests"), ok = count(d, dn, "ok");
    dst->n += n;
    dst->ok += ok;
    if (!n) return 0;
    a->contrib++;
    struct json_val hv;
    if (json_find(d, dn, "histograms", &hv) == 0 && hv.type == JSON_OBJ_BEGIN) {
        int rc = bench_merge_add_blob(d, dn, "ttft", &dst->ttft, s->name, where, err, errsz);
        if (!rc) rc = bench_merge_add_blob(d, dn, "e2e", &dst->e2e, s->name, where, err, errsz);
        if (rc) return rc;
        a->with_hist++;
    }
    int64_t in;
    double isum;
    if (json_get_i64(d, dn, "isl_n", &in) == 0 && in >= 0 &&
        json_get_double(d, dn, "isl_sum", &isum) == 0 && isum >= 0 && isum < 9e15) {
        dst->isl_n += (uint64_t)in;
        dst->isl_sum += isum;
    } else {
        a->isl_missing++;
    }
    a->ttft = sess_stat(d, dn, "ttft");
    a->e2e = sess_stat(d, dn, "e2e");
    double isl;
    a->isl_mean = json_get_double(d, dn, "isl_mean", &isl) == 0 && isl >= 0 ? isl : -1;
    return 0;
}

/* After every shard's row: where the latencies and the ISL come from (bench_sess_point_compute
 * fills the exact ones). */
static void sess_row_done(struct bench_sess_point *p, struct bench_sess_row *o,
                          const struct sess_acc *a)
{
    o->hist = a->contrib == a->with_hist;
    if (!o->hist) {
        if (a->contrib == 1) { /* one shard's requests: its own values are the row's */
            o->ttft = a->ttft;
            o->e2e = a->e2e;
        } else {
            o->not_mergeable = p->not_mergeable = true;
        }
    }
    o->isl = a->isl_missing == 0;
    if (!o->isl) o->isl_mean = a->contrib == 1 ? a->isl_mean : -1;
}

/* --think-time from a shard's sessions object: ns, -1 none. */
static lat_ns think_of(const char *d, size_t n, const char *key)
{
    double v;
    return json_get_double(d, n, key, &v) == 0 && v >= 0 ? (lat_ns)llround(sane(v) * 1e6) : -1;
}

static int merge_sessions(struct bench_point *p, const struct bench_merge_shard *sh, size_t n,
                          char *err, size_t errsz)
{
    struct json_val sv;
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        if (json_find(sh[i].d, sh[i].n, "sessions", &sv) == 0 && sv.type == JSON_OBJ_BEGIN) with++;
    if (!with) return 0;
    if (with != n) {
        for (size_t i = 0; i < n; i++)
            if (json_find(sh[i].d, sh[i].n, "sessions", &sv) != 0 || sv.type != JSON_OBJ_BEGIN) {
                snprintf(err, errsz,
                         "%s: points[%zu] has no \"sessions\", but other results have: not "
                         "shards of one run (run every shard with the same --sessions)",
                         sh[i].name, sh[i].point);
                break;
            }
        return LAT_E_USAGE;
    }
    struct bench_sess_point *o = calloc(1, sizeof(*o));
    if (!o) return -ENOMEM;
    if (!(o->st = malloc(sizeof(*o->st))) || llm_sess_stats_init(o->st) != 0) {
        if (o->st) llm_sess_stats_fini(o->st);
        free(o->st);
        free(o);
        return -ENOMEM;
    }
    struct sess_acc acc[LLM_SESS_ROWS], dacc = {0}; /* the rows; the duration (counts only) */
    struct bench_sess_stat dur_one = {0};           /* the last contributor's duration */
    memset(acc, 0, sizeof(acc));
    struct llm_sess_stats *st = o->st;
    char h0[16] = "", where[96];
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        json_find(sh[i].d, sh[i].n, "sessions", &sv);
        const char *d = sh[i].d + sv.off;
        size_t dn = sv.len;
        char h[16];
        str(d, dn, "history", h, sizeof(h));
        uint64_t in_file = count(d, dn, "in_file");
        lat_ns think = think_of(d, dn, "think_time_ms");
        lat_ns sd = think_of(d, dn, "think_time_sd_ms");
        if (sd < 0) sd = 0;
        if (i == 0) {
            snprintf(h0, sizeof(h0), "%s", h);
            if (strcmp(h, "server") && strcmp(h, "dataset")) {
                snprintf(err, errsz,
                         "%s: points[%zu].sessions: \"history\" is '%s', not server or dataset: "
                         "not a latscope bench result",
                         sh[i].name, sh[i].point, h);
                rc = LAT_E_USAGE;
                break;
            }
            o->history = !strcmp(h, "dataset") ? "dataset" : "server";
            o->in_file = in_file;
            o->think_ns = think;
            o->think_sd_ns = sd;
        } else if (strcmp(h, h0) || in_file != o->in_file || think != o->think_ns ||
                   sd != o->think_sd_ns) {
            snprintf(err, errsz,
                     "%s: points[%zu].sessions: --history %s, %llu sessions in the file, "
                     "--think-time %.3f:%.3f ms, but %s has --history %s, %llu sessions, %.3f:%.3f "
                     "ms: not shards of one run (run every shard with the same --sessions, "
                     "--history and --think-time)",
                     sh[i].name, sh[i].point, h, (unsigned long long)in_file, (double)think / 1e6,
                     (double)sd / 1e6, sh[0].name, h0, (unsigned long long)o->in_file,
                     (double)o->think_ns / 1e6, (double)o->think_sd_ns / 1e6);
            rc = LAT_E_USAGE;
            break;
        }
        st->started += count(d, dn, "started");
        st->completed += count(d, dn, "completed");
        st->failed += count(d, dn, "failed");
        st->turns_beyond += count(d, dn, "later_turns/beyond_listed");
        /* the session duration */
        double v;
        if (json_get_double(d, dn, "duration_mean_ms", &v) == 0) {
            dacc.contrib++;
            struct json_val hv;
            if (json_find(d, dn, "histograms", &hv) == 0 && hv.type == JSON_OBJ_BEGIN) {
                snprintf(where, sizeof(where), "points[%zu].sessions", sh[i].point);
                rc = bench_merge_add_blob(d, dn, "duration", &st->duration, sh[i].name, where, err,
                                          errsz);
                dacc.with_hist++;
            }
            dur_one = sess_stat(d, dn, "duration");
        }
        /* the turns, by their number, and later_turns */
        struct json_val *tv;
        size_t nt = array_items(d, dn, "turns", &tv);
        if (nt == (size_t)-1) {
            rc = -ENOMEM;
            break;
        }
        for (size_t j = 0; j < nt && !rc; j++) {
            const char *e = d + tv[j].off;
            size_t en = tv[j].len;
            int64_t k;
            if (json_get_i64(e, en, "turn", &k) != 0 || k < 1 || k > LLM_SESS_SHOW_TURNS) continue;
            snprintf(where, sizeof(where), "points[%zu].sessions.turns[%zu]", sh[i].point, j);
            rc = sess_row(&st->row[k - 1], &acc[k - 1], e, en, &sh[i], where, err, errsz);
        }
        free(tv);
        struct json_val lv;
        if (!rc && json_find(d, dn, "later_turns", &lv) == 0 && lv.type == JSON_OBJ_BEGIN) {
            snprintf(where, sizeof(where), "points[%zu].sessions.later_turns", sh[i].point);
            rc = sess_row(&st->row[LLM_SESS_SHOW_TURNS], &acc[LLM_SESS_SHOW_TURNS], d + lv.off,
                          lv.len, &sh[i], where, err, errsz);
        }
    }
    if (rc) {
        bench_sess_point_free(o);
        return rc;
    }
    for (unsigned k = 0; k < LLM_SESS_SHOW_TURNS; k++)
        sess_row_done(o, &o->turn[k], &acc[k]);
    sess_row_done(o, &o->later, &acc[LLM_SESS_SHOW_TURNS]);
    o->dur_hist = dacc.contrib == dacc.with_hist;
    if (!o->dur_hist) {
        if (dacc.contrib == 1) {
            o->dur = dur_one;
        } else {
            o->dur_not_mergeable = o->not_mergeable = true;
        }
    }
    bench_sess_point_compute(o);
    p->sessions = o;
    return 0;
}

int bench_merge_point_parts(struct bench_point *p, const struct bench_merge_shard *sh, size_t n,
                            char *err, size_t errsz)
{
    int rc = merge_gpu(p, sh, n, err, errsz);
    if (!rc) rc = merge_slices(p, sh, n, err, errsz);
    if (!rc) rc = merge_sessions(p, sh, n, err, errsz);
    return rc;
}
