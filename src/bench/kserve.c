/*
 * kserve.c - KServe v2 request building, model metadata and Triton statistics.
 *
 * The tensor body is generated once, from a seed, so every run with the same options sends
 * the same bytes (the server's work is then comparable between runs). JSON tensors use the
 * flat "data" array form every KServe v2 server accepts. Metadata and statistics documents
 * are small and are read with the in-memory helpers of json/tok.h. Statistics are cumulative
 * counters; a point's breakdown is after - before divided by the successful inferences in
 * between (perf_analyzer's per-request averages).
 */
#include "bench/kserve.h"

#include "bench/grpc.h"
#include "bench/target.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/units.h"
#include "net/fetch.h"
#include "stats/rng.h"
#include "json/tok.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSERVE_MAX_ELEMS (64u << 20)

int kserve_path_model(const char *path, char *model, size_t mlen, char *version, size_t vlen)
{
    const char *pre = "/v2/models/";
    version[0] = '\0';
    if (strncmp(path, pre, strlen(pre)) != 0) return LAT_E_NOT_FOUND;
    const char *p = path + strlen(pre), *e = p;
    while (*e && *e != '/' && *e != '?')
        e++;
    if (e == p || (size_t)(e - p) >= mlen) return LAT_E_USAGE;
    memcpy(model, p, (size_t)(e - p));
    model[e - p] = '\0';
    if (strncmp(e, "/versions/", 10) == 0) {
        const char *v = e + 10, *ve = v;
        while (*ve && *ve != '/' && *ve != '?')
            ve++;
        if (ve == v || (size_t)(ve - v) >= vlen) return LAT_E_USAGE;
        memcpy(version, v, (size_t)(ve - v));
        version[ve - v] = '\0';
    }
    return 0;
}

static int put_value(struct lat_buf *b, const char *dt, bool zero, uint64_t *rng)
{
    uint64_t r = zero ? 0 : rng_splitmix64(rng);
    if (strcmp(dt, "BOOL") == 0) return buf_puts(b, (r & 1) ? "true" : "false");
    if (strcmp(dt, "BYTES") == 0) return buf_puts(b, zero ? "\"\"" : "\"latscope\"");
    if (dt[0] == 'F' || dt[0] == 'B') /* FP16/32/64, BF16: uniform [0, 1) */
        return buf_printf(b, "%.6g", zero ? 0.0 : (double)(r >> 11) / 9007199254740992.0);
    if (zero) return buf_putc(b, '0');
    if (dt[0] == 'U') return buf_printf(b, "%" PRIu64, r % 256);
    return buf_printf(b, "%" PRId64, (int64_t)(r % 256) - 128);
}

int kserve_build_body(struct lat_buf *out, const struct bench_input *in, size_t n, unsigned batch,
                      uint64_t seed, char *err, size_t errlen)
{
    uint64_t rng = seed ? seed : 1;
    int rc = buf_puts(out, "{\"inputs\":[");
    for (size_t i = 0; i < n && !rc; i++) {
        const struct bench_input *x = &in[i];
        int64_t dims[BENCH_MAX_DIMS];
        uint64_t elems = 1;
        for (int d = 0; d < x->ndims; d++) {
            dims[d] = x->shape[d];
            if (d == 0 && batch) dims[d] = batch;
            if (dims[d] < 0) dims[d] = 1;
            elems *= (uint64_t)dims[d];
            if (elems > KSERVE_MAX_ELEMS)
                return lat_errf(err, errlen, LAT_E_USAGE,
                                "input %s has more than %u elements; use a smaller shape", x->name,
                                KSERVE_MAX_ELEMS);
        }
        rc = buf_puts(out, i ? ",{\"name\":" : "{\"name\":");
        if (!rc) rc = json_escape(out, x->name, strlen(x->name));
        if (!rc) rc = buf_puts(out, ",\"shape\":[");
        for (int d = 0; d < x->ndims && !rc; d++)
            rc = buf_printf(out, d ? ",%" PRId64 : "%" PRId64, dims[d]);
        if (!rc) rc = buf_printf(out, "],\"datatype\":\"%s\",\"data\":", x->datatype);
        if (rc) break;
        if (x->fill == BENCH_FILL_FILE) {
            FILE *f = fopen(x->file, "rb");
            if (!f)
                return lat_errf(err, errlen, -errno, "input %s: cannot open %s: %s", x->name,
                                x->file, strerror(errno));
            size_t start = out->len;
            char tmp[65536];
            size_t k;
            uint64_t cap = x->max_bytes ? x->max_bytes : 256000000u, got = 0;
            while (!rc && got <= cap && (k = fread(tmp, 1, sizeof(tmp), f)) > 0) {
                rc = buf_append(out, tmp, k);
                got += k;
            }
            int ferr = ferror(f) ? errno : 0;
            fclose(f);
            if (rc) break;
            if (ferr)
                return lat_errf(err, errlen, -ferr, "input %s: cannot read %s: %s", x->name,
                                x->file, strerror(ferr));
            if (got > cap)
                return lat_errf(err, errlen, LAT_E_OVERFLOW,
                                "input %s: %s is larger than %" PRIu64
                                " bytes (--max-input-size; raise it if the tensor is meant to be "
                                "this large)",
                                x->name, x->file, cap);
            uint64_t off = 0;
            char msg[128] = "";
            if (json_validate(out->data + start, out->len - start, 0, &off, msg, sizeof(msg)) < 0)
                return lat_errf(err, errlen, LAT_E_BAD_JSON,
                                "input %s: %s is not valid JSON (byte %" PRIu64
                                ": %s); it must hold "
                                "the tensor's values as a JSON array",
                                x->name, x->file, off, msg);
        } else {
            rc = buf_putc(out, '[');
            for (uint64_t e = 0; e < elems && !rc; e++) {
                if (e) rc = buf_putc(out, ',');
                if (!rc) rc = put_value(out, x->datatype, x->fill == BENCH_FILL_ZEROS, &rng);
            }
            if (!rc) rc = buf_putc(out, ']');
        }
        if (!rc) rc = buf_putc(out, '}');
    }
    if (!rc) rc = buf_puts(out, "]}");
    if (rc) return lat_errf(err, errlen, rc, "building the request body: %s", lat_strerror(rc));
    return 0;
}

int kserve_parse_metadata(const char *doc, size_t len, struct bench_input *in, size_t *n, char *err,
                          size_t errlen)
{
    struct json_val arr, v;
    struct json_iter it;
    struct lat_buf s = LAT_BUF_INIT;
    *n = 0;
    int rc = json_find(doc, len, "inputs", &arr);
    if (rc < 0 || arr.type != JSON_ARR_BEGIN)
        return lat_errf(err, errlen, rc < 0 ? rc : LAT_E_BAD_JSON,
                        "model metadata has no \"inputs\" array; pass --input NAME:SHAPE:TYPE");
    rc = json_iter_init(&it, doc, len, &arr);
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &v)) == 1) {
        if (*n == KSERVE_MAX_INPUTS) {
            rc = lat_errf(err, errlen, LAT_E_UNSUPPORTED, "model has more than %d inputs",
                          KSERVE_MAX_INPUTS);
            break;
        }
        struct bench_input *x = &in[*n];
        memset(x, 0, sizeof(*x));
        const char *o = doc + v.off;
        buf_reset(&s);
        if (json_get_str(o, v.len, "name", &s) < 0 || !s.data || s.len >= sizeof(x->name)) {
            rc = lat_errf(err, errlen, LAT_E_BAD_JSON, "model metadata input without a name");
            break;
        }
        memcpy(x->name, s.data, s.len + 1);
        buf_reset(&s);
        if (json_get_str(o, v.len, "datatype", &s) < 0 || !s.data || s.len >= sizeof(x->datatype) ||
            !bench_datatype_valid(s.data)) {
            rc = lat_errf(err, errlen, LAT_E_BAD_JSON, "input %s: missing or unknown datatype",
                          x->name);
            break;
        }
        memcpy(x->datatype, s.data, s.len + 1);
        struct json_val shp, d;
        struct json_iter si;
        if (json_find(o, v.len, "shape", &shp) < 0 || shp.type != JSON_ARR_BEGIN) {
            rc = lat_errf(err, errlen, LAT_E_BAD_JSON, "input %s: missing shape", x->name);
            break;
        }
        rc = json_iter_init(&si, o, v.len, &shp);
        while (rc >= 0 && (rc = json_iter_next(&si, NULL, &d)) == 1) {
            int64_t dim;
            if (x->ndims == BENCH_MAX_DIMS || json_get_i64(o + d.off, d.len, "", &dim) < 0 ||
                dim < -1 || dim == 0) {
                rc = lat_errf(err, errlen, LAT_E_BAD_JSON, "input %s: unusable shape", x->name);
                break;
            }
            x->shape[x->ndims++] = dim;
        }
        if (rc < 0) break;
        if (x->ndims == 0) {
            rc = lat_errf(err, errlen, LAT_E_BAD_JSON, "input %s: empty shape", x->name);
            break;
        }
        (*n)++;
    }
    buf_fini(&s);
    if (rc < 0) {
        if (!err[0]) lat_errf(err, errlen, rc, "model metadata: %s", lat_strerror(rc));
        return rc;
    }
    if (*n == 0)
        return lat_errf(err, errlen, LAT_E_BAD_JSON,
                        "model metadata lists no inputs; pass --input");
    return 0;
}

static uint64_t stat_u64(const char *doc, size_t len, const char *path)
{
    int64_t v = 0;
    if (json_get_i64(doc, len, path, &v) < 0 || v < 0) return 0;
    return (uint64_t)v;
}

int triton_parse_stats(const char *doc, size_t len, const char *version, struct triton_counts *out)
{
    memset(out, 0, sizeof(*out));
    struct json_val arr, v;
    struct json_iter it;
    struct lat_buf s = LAT_BUF_INIT;
    int rc = json_find(doc, len, "model_stats", &arr);
    if (rc < 0) return rc;
    if (arr.type != JSON_ARR_BEGIN) return LAT_E_BAD_JSON;
    int found = 0;
    rc = json_iter_init(&it, doc, len, &arr);
    while (rc >= 0 && (rc = json_iter_next(&it, NULL, &v)) == 1) {
        const char *o = doc + v.off;
        if (version && *version) {
            buf_reset(&s);
            if (json_get_str(o, v.len, "version", &s) < 0 || !s.data || strcmp(s.data, version))
                continue;
        }
        found++;
        out->success_count += stat_u64(o, v.len, "inference_stats/success/count");
        out->success_ns += stat_u64(o, v.len, "inference_stats/success/ns");
        out->queue_ns += stat_u64(o, v.len, "inference_stats/queue/ns");
        out->compute_input_ns += stat_u64(o, v.len, "inference_stats/compute_input/ns");
        out->compute_infer_ns += stat_u64(o, v.len, "inference_stats/compute_infer/ns");
        out->compute_output_ns += stat_u64(o, v.len, "inference_stats/compute_output/ns");
    }
    buf_fini(&s);
    if (rc < 0) return rc;
    return found ? 0 : LAT_E_NOT_FOUND;
}

static int model_path(const struct kserve_ctx *k, const char *suffix, char *out, size_t len)
{
    int n = k->version[0]
                ? snprintf(out, len, "/v2/models/%s/versions/%s%s", k->model, k->version, suffix)
                : snprintf(out, len, "/v2/models/%s%s", k->model, suffix);
    return n < 0 || (size_t)n >= len ? LAT_E_OVERFLOW : 0;
}

static int get_doc(const struct kserve_ctx *k, const struct bench_target *t, const char *path,
                   struct lat_buf *doc, int *status)
{
    struct lat_buf req = LAT_BUF_INIT;
    int rc =
        http1_build_request(&req, "GET", t->url.hostport, path, k->get_hdrs, k->nget_hdrs, NULL, 0);
    if (!rc) rc = http_fetch(&t->conn, req.data, req.len, 5 * LAT_NS_PER_S, status, doc);
    buf_fini(&req);
    return rc;
}

int kserve_setup(struct kserve_ctx *k, struct kserve_opts *o, struct bench_target *t,
                 const char *const *headers, size_t nheaders, char *err, size_t errlen)
{
    memset(k, 0, sizeof(*k));
    if (o->model) {
        snprintf(k->model, sizeof(k->model), "%s", o->model);
        if (o->version) snprintf(k->version, sizeof(k->version), "%s", o->version);
    } else if (kserve_path_model(t->url.path, k->model, sizeof(k->model), k->version,
                                 sizeof(k->version)) < 0) {
        return lat_errf(
            err, errlen, LAT_E_USAGE,
            "no model: pass --model NAME or a URL like http://HOST:PORT/v2/models/NAME");
    }
    if (o->version) snprintf(k->version, sizeof(k->version), "%s", o->version);
    if (strpbrk(k->model, " /?#\r\n") || strpbrk(k->version, " /?#\r\n"))
        return lat_errf(err, errlen, LAT_E_USAGE, "model name or version has a '/', '?' or space");
    char path[512];
    int rc;
    /* -H on the GETs too (an API key guards the metadata as well), without the body headers */
    k->get_hdrs = calloc(nheaders + 1, sizeof(*k->get_hdrs));
    if (!k->get_hdrs) return -ENOMEM;
    for (size_t i = 0; i < nheaders; i++)
        if (strncasecmp(headers[i], "content-type:", 13) &&
            strncasecmp(headers[i], "content-length:", 15))
            k->get_hdrs[k->nget_hdrs++] = headers[i];
    if (o->ninputs == 0 && !o->user_body) {
        struct lat_buf doc = LAT_BUF_INIT;
        int status = 0;
        if ((rc = model_path(k, "", path, sizeof(path))) < 0) return rc;
        rc = get_doc(k, t, path, &doc, &status);
        if (rc < 0) {
            buf_fini(&doc);
            return lat_errf(err, errlen, rc, "GET %s: %s (is the server up? or pass --input)", path,
                            lat_strerror(rc));
        }
        if (status != 200) {
            buf_fini(&doc);
            return lat_errf(err, errlen, LAT_E_NOT_FOUND,
                            "GET %s answered %d; check the model name or pass --input", path,
                            status);
        }
        rc = kserve_parse_metadata(doc.data ? doc.data : "", doc.len, o->inputs, &o->ninputs, err,
                                   errlen);
        buf_fini(&doc);
        if (rc < 0) return rc;
    }
    if (o->user_body)
        rc = buf_append(&k->body, o->user_body, o->user_body_len);
    else
        rc = kserve_build_body(&k->body, o->inputs, o->ninputs, o->batch, o->seed, err, errlen);
    if (rc < 0) return rc;
    const char *hdrs[66];
    size_t nh = 0;
    bool have_ct = false;
    for (size_t i = 0; i < nheaders && nh < 64; i++) {
        if (strncasecmp(headers[i], "content-type:", 13) == 0) have_ct = true;
        hdrs[nh++] = headers[i];
    }
    if (!have_ct) hdrs[nh++] = "Content-Type: application/json";
    if ((rc = model_path(k, "/infer", path, sizeof(path))) < 0) return rc;
    const char *ipath = path, *method = "POST";
    if (o->user_body) { /* as given: the URL's path and method */
        ipath = t->url.path;
        if (o->user_method) method = o->user_method;
    }
    rc = http1_build_request(&k->req, method, t->url.hostport, ipath, hdrs, nh,
                             k->body.data ? k->body.data : "", k->body.len);
    if (rc < 0) return lat_errf(err, errlen, rc, "building the request: %s", lat_strerror(rc));
    if ((rc = model_path(k, "/stats", path, sizeof(path))) < 0) return rc;
    rc = http1_build_request(&k->stats_req, "GET", t->url.hostport, path, k->get_hdrs, k->nget_hdrs,
                             NULL, 0);
    if (rc < 0) return rc;
    t->request = k->req.data;
    t->request_len = k->req.len;
    t->head = false;
    return 0;
}

static int read_stats(struct kserve_ctx *k, const struct bench_target *t, struct triton_counts *c)
{
    struct lat_buf doc = LAT_BUF_INIT;
    int status = 0;
    int rc =
        http_fetch(&t->conn, k->stats_req.data, k->stats_req.len, 5 * LAT_NS_PER_S, &status, &doc);
    if (rc == 0 && status != 200) rc = LAT_E_NOT_FOUND;
    if (rc == 0) rc = triton_parse_stats(doc.data ? doc.data : "", doc.len, k->version, c);
    buf_fini(&doc);
    return rc;
}

void kserve_stats_before(struct kserve_ctx *k, const struct bench_target *t)
{
    k->stats_ok = read_stats(k, t, &k->before) == 0;
}

void kserve_stats_after(struct kserve_ctx *k, const struct bench_target *t,
                        struct bench_server_stats *out)
{
    struct triton_counts after;
    memset(out, 0, sizeof(*out));
    if (!k->stats_ok || read_stats(k, t, &after) < 0) return;
    triton_counts_delta(&k->before, &after, out);
}

void kserve_fini(struct kserve_ctx *k)
{
    free(k->get_hdrs);
    k->get_hdrs = NULL;
    k->nget_hdrs = 0;
    buf_fini(&k->req);
    buf_fini(&k->body);
    buf_fini(&k->stats_req);
}

/* ---- the kserve bench target (bench/target.h) ---- */

enum { KS_OPT_MODEL = 1, KS_OPT_MODEL_VERSION, KS_OPT_INPUT, KS_OPT_BATCH, KS_OPT_GRPC_CONNS };

static const struct bench_topt kserve_opts_table[] = {
    {NULL, 0, NULL, 0, 0,
     "KServe v2 / Triton (--target kserve; the default when the URL path starts with /v2/)"},
    {"model", 0, "NAME", KS_OPT_MODEL, 0,
     "kserve: model name (else taken from /v2/models/NAME in the URL)"},
    {"model-version", 0, "V", KS_OPT_MODEL_VERSION, 0, "kserve: model version"},
    {"input", 0, "N:SHAPE:TYPE[:random|zeros|@FILE]", KS_OPT_INPUT, 0,
     "kserve input tensor (repeatable); without\nit, inputs come from GET /v2/models/NAME "
     "metadata"},
    {"batch", 0, "N", KS_OPT_BATCH, 0, "kserve: leading dimension of every input (default 1)"},
    {"grpc-connections", 0, "N", KS_OPT_GRPC_CONNS, 0,
     "kserve over grpc://HOST:PORT (HTTP/2): connections per\nthread, each carrying many "
     "streams (default 1)"},
    {0},
};

struct kserve_state {
    struct kserve_opts o;
    struct kserve_ctx k;
    struct lat_buf body; /* -d */
    struct grpc_run *g;  /* grpc:// */
    unsigned grpc_conns; /* --grpc-connections */
};

static void *kserve_create(void)
{
    return calloc(1, sizeof(struct kserve_state));
}

static bool kserve_claims(const struct http1_url *url)
{
    return url->grpc || strncmp(url->path, "/v2/", 4) == 0;
}

static int kserve_opt(void *st, int id, const char *v, char *why, size_t whylen)
{
    struct kserve_state *s = st;
    const char *w = NULL;
    switch (id) {
    case KS_OPT_MODEL:
        s->o.model = v;
        return 0;
    case KS_OPT_MODEL_VERSION:
        s->o.version = v;
        return 0;
    case KS_OPT_INPUT:
        if (s->o.ninputs == KSERVE_MAX_INPUTS)
            w = "too many";
        else if (bench_parse_input(v, &s->o.inputs[s->o.ninputs], &w) == 0)
            s->o.ninputs++;
        if (w) return lat_errf(why, whylen, LAT_E_USAGE, "--input: %s", w);
        return 0;
    case KS_OPT_BATCH: {
        uint64_t u;
        if (units_parse_count(v, &u) < 0 || u == 0 || u > 1 << 20)
            return lat_errf(why, whylen, LAT_E_USAGE, "--batch: expected a positive whole number");
        s->o.batch = (unsigned)u;
        return 0;
    }
    case KS_OPT_GRPC_CONNS: {
        uint64_t u;
        if (units_parse_count(v, &u) < 0 || u == 0 || u > 1024)
            return lat_errf(why, whylen, LAT_E_USAGE,
                            "--grpc-connections: expected a whole number from 1 to 1024");
        s->grpc_conns = (unsigned)u;
        return 0;
    }
    }
    return 1;
}

static int kserve_tsetup(void *st, const struct bench_setup *bs, struct bench_target *t, char *why,
                         size_t whylen)
{
    struct kserve_state *s = st;
    char err[256] = "";
    s->o.seed = bs->seed;
    for (size_t k = 0; k < s->o.ninputs; k++)
        s->o.inputs[k].max_bytes = bs->max_input;
    if (t->url.grpc) {
        if (bs->body_arg)
            return lat_errf(why, whylen, LAT_E_USAGE,
                            "-d: not with grpc:// (the request is a protobuf message built from "
                            "--input or the model's metadata)");
        int rc =
            grpc_setup(&s->g, &s->o, t, bs->headers, bs->nheaders, s->grpc_conns, err, sizeof(err));
        if (rc < 0)
            return lat_errf(why, whylen, rc, "kserve grpc: %s", err[0] ? err : lat_strerror(rc));
        return 0;
    }
    if (s->grpc_conns)
        return lat_errf(why, whylen, LAT_E_USAGE, "--grpc-connections: only with a grpc:// URL");
    if (bs->body_arg) {
        /* The user's body, sent as given (issue 17 item 5: an auto-selected kserve target sent
         * its own tensor instead); the statistics are still read around each point. */
        if (s->o.ninputs)
            return lat_errf(
                why, whylen, LAT_E_USAGE,
                "-d: -d gives the whole request body; drop --input (see 'latscope bench "
                "--help')");
        int rc = bench_read_body(bs, &s->body, why, whylen);
        if (rc) return rc;
        s->o.user_body = s->body.data ? s->body.data : "";
        s->o.user_body_len = s->body.len;
        s->o.user_method = bs->method;
    }
    int rc = kserve_setup(&s->k, &s->o, t, bs->headers, bs->nheaders, err, sizeof(err));
    if (rc < 0) return lat_errf(why, whylen, rc, "kserve: %s", err[0] ? err : lat_strerror(rc));
    return 0;
}

static void kserve_describe(void *st, const struct bench_target *t, char *out, size_t cap)
{
    struct kserve_state *s = st;
    if (s->g) {
        grpc_describe(s->g, out, cap);
        return;
    }
    bench_describe_request(out, cap, "kserve", t->request, t->request ? t->request_len : 0);
}

static void kserve_before(void *st, const struct bench_point_ctx *pc, const struct bench_target *t)
{
    struct kserve_state *s = st;
    if (s->g) {
        grpc_point_begin(s->g);
        return;
    }
    kserve_stats_before(&s->k, t);
}

static int kserve_after(void *st, const struct bench_target *t, struct bench_point *p, char *why,
                        size_t whylen)
{
    struct kserve_state *s = st;
    if (s->g) {
        grpc_point_end(s->g, &p->grpc, &p->server);
        return 0;
    }
    kserve_stats_after(&s->k, t, &p->server);
    return 0;
}

static void kserve_destroy(void *st)
{
    struct kserve_state *s = st;
    if (!s) return;
    kserve_fini(&s->k);
    grpc_free(s->g);
    buf_fini(&s->body);
    free(s);
}

const struct bench_target_ops bench_target_kserve = {
    .name = "kserve",
    .opts = kserve_opts_table,
    .grpc = true,
    .claims = kserve_claims,
    .create = kserve_create,
    .opt = kserve_opt,
    .setup = kserve_tsetup,
    .describe = kserve_describe,
    .before_point = kserve_before,
    .after_point = kserve_after,
    .destroy = kserve_destroy,
};
