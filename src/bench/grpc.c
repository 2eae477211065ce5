/*
 * grpc.c - KServe v2 over gRPC: the engine's multiplexing transport (grpc.h).
 *
 * The request is one framed ModelInferRequest built at setup; every call sends the same bytes
 * (as the HTTP kserve target does). Per worker: conns HTTP/2 connections, opened before the
 * first call (the engine's pre-connect) and again whenever one is no longer usable. A slot's
 * call state (its stream, the response's :status, grpc-status and message reassembly) lives in
 * the worker's slot array, indexed as the engine's slots are.
 */
#include "bench/grpc.h"

#include "bench/kserve-pb.h"
#include "core/err.h"
#include "net/h2.h"
#include "net/loop.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GRPC_INFER_PATH "/inference.GRPCInferenceService/ModelInfer"
#define GRPC_META_PATH  "/inference.GRPCInferenceService/ModelMetadata"
#define GRPC_STATS_PATH "/inference.GRPCInferenceService/ModelStatistics"
#define GRPC_MAX_MSG    (256u << 20)
#define GRPC_MAX_HDRS   64

struct grpc_run {
    const struct conn_target *conn;
    char authority[272];
    char model[256], version[64];
    struct lat_buf msg; /* the framed ModelInferRequest */
    struct h2_hdr hdrs[GRPC_MAX_HDRS];
    char *hdr_mem[GRPC_MAX_HDRS]; /* the -H names and values, lowercased names */
    size_t nhdrs;
    unsigned conns; /* per worker */
    /* the point's counts, summed from the workers as they finish */
    _Atomic uint64_t connections, streams, codes[BENCH_GRPC_NCODES];
    _Atomic unsigned max_streams;
    _Atomic uint32_t server_max;
    bool stats_ok; /* the point's before-snapshot of ModelStatistics was read */
    struct triton_counts before;
};

struct gworker;

struct gslot {
    struct h2_stream st;
    struct gworker *gw;
    void *slot; /* the engine's */
    bool active, measured, have_status, bad;
    int http_status, grpc_status;
    uint64_t bytes;
    struct kpb_framer fr;
};

struct gworker {
    struct grpc_run *g;
    struct lat_loop *loop;
    bench_mux_done_fn done;
    struct h2_conn **conns;
    unsigned nconns, next;
    struct gslot *slots;
    unsigned nslots;
    uint64_t opened, streams, codes[BENCH_GRPC_NCODES];
    unsigned max_open;
    uint32_t server_max;
    int connect_err; /* the last failed connect's -errno */
};

static int parse_code(const char *v, size_t n)
{
    int c = 0;
    if (n == 0 || n > 4) return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)v[i])) return -1;
        c = c * 10 + (v[i] - '0');
    }
    return c;
}

static bool name_is(const char *name, size_t nl, const char *want)
{
    return nl == strlen(want) && !memcmp(name, want, nl);
}

/* ---- the calls' stream callbacks (shared by the bench and the setup's metadata call) ---- */

static void on_header(struct h2_stream *s, bool trailer, const char *name, size_t nl,
                      const char *val, size_t vl)
{
    struct gslot *gs = s->ud;
    if (!trailer && name_is(name, nl, ":status")) gs->http_status = parse_code(val, vl);
    if (name_is(name, nl, "grpc-status")) {
        gs->have_status = true;
        gs->grpc_status = parse_code(val, vl);
        if (gs->grpc_status < 0) gs->bad = true;
    }
}

static void on_data(struct h2_stream *s, const uint8_t *p, size_t n, lat_ns t)
{
    struct gslot *gs = s->ud;
    gs->bytes += n;
    if (!gs->bad && kpb_framer_feed(&gs->fr, p, n) < 0) gs->bad = true;
}

/* The class of an ended call (-1: success) and, for grpc_status, its code in *code. */
static int call_class(struct gslot *gs, enum h2_end how, bool infer, int *code)
{
    *code = -1;
    switch (how) {
    case H2_END_RST:
        return BENCH_ERR_RST_STREAM;
    case H2_END_GOAWAY:
        return BENCH_ERR_GOAWAY;
    case H2_END_CONN:
        return BENCH_ERR_RESET;
    case H2_END_CONNECT:
        return BENCH_ERR_CONNECT;
    case H2_END_PROTO:
        return BENCH_ERR_MALFORMED;
    case H2_END_OK:
        break;
    }
    if (gs->http_status != 200)
        return gs->http_status >= 500   ? BENCH_ERR_HTTP_5XX
               : gs->http_status >= 400 ? BENCH_ERR_HTTP_4XX
                                        : BENCH_ERR_MALFORMED;
    if (!gs->have_status || gs->grpc_status < 0) return BENCH_ERR_MALFORMED;
    if (gs->grpc_status != 0) {
        *code = gs->grpc_status < BENCH_GRPC_NCODES ? gs->grpc_status : 2; /* UNKNOWN */
        return BENCH_ERR_GRPC_STATUS;
    }
    if (gs->bad || !kpb_framer_clean(&gs->fr) || gs->fr.nmsgs != 1 || gs->fr.compressed)
        return BENCH_ERR_MALFORMED;
    if (infer) {
        struct kpb_infer_resp r;
        if (kpb_decode_infer_resp((const uint8_t *)gs->fr.msg.data, gs->fr.msg.len, &r) < 0)
            return BENCH_ERR_MALFORMED;
    }
    return -1;
}

static void on_close(struct h2_stream *s, enum h2_end how, lat_ns t)
{
    struct gslot *gs = s->ud;
    struct gworker *gw = gs->gw;
    gs->active = false;
    int code;
    int cls = call_class(gs, how, true, &code);
    if (code >= 0 && gs->measured) gw->codes[code]++;
    if (cls < 0 && gs->measured) gw->codes[0]++;
    struct bench_mux_end e = {.cls = cls,
                              .status = gs->http_status > 0 ? gs->http_status : 0,
                              .t_send = s->t_sent,
                              .t_first = s->t_first,
                              .t_end = t,
                              .bytes = gs->bytes,
                              .err = s->err};
    gw->done(gs->slot, &e);
}

static const struct h2_cbs call_cbs = {.header = on_header, .data = on_data, .close = on_close};

/* ---- the transport (struct bench_mux_ops) ---- */

static void *mx_new(void *ud, struct lat_loop *loop, unsigned thread, unsigned nslots,
                    bench_mux_done_fn done)
{
    struct grpc_run *g = ud;
    struct gworker *gw = calloc(1, sizeof(*gw));
    if (!gw) return NULL;
    gw->g = g;
    gw->loop = loop;
    gw->done = done;
    gw->nconns = g->conns ? g->conns : 1;
    if (gw->nconns > nslots) gw->nconns = nslots; /* no idle connections */
    gw->nslots = nslots;
    gw->conns = calloc(gw->nconns ? gw->nconns : 1, sizeof(*gw->conns));
    gw->slots = calloc(nslots ? nslots : 1, sizeof(*gw->slots));
    if (!gw->conns || !gw->slots) {
        free(gw->conns);
        free(gw->slots);
        free(gw);
        return NULL;
    }
    for (unsigned i = 0; i < nslots; i++) {
        gw->slots[i].gw = gw;
        gw->slots[i].st.ud = &gw->slots[i];
        kpb_framer_init(&gw->slots[i].fr, GRPC_MAX_MSG);
    }
    /* Connect now, before the point's t0, as the engine pre-connects HTTP/1.1 connections
     * (a failure here is retried at the first call). */
    for (unsigned i = 0; i < gw->nconns; i++)
        if (h2_conn_new(&gw->conns[i], loop, g->conn, g->authority, &call_cbs) == 0) gw->opened++;
    return gw;
}

/* The usable connection with the fewest open streams, reopening failed ones; NULL if none. */
static struct h2_conn *pick(struct gworker *gw)
{
    struct h2_conn *best = NULL;
    for (unsigned k = 0; k < gw->nconns; k++) {
        unsigned i = (gw->next + k) % gw->nconns;
        if (!h2_usable(gw->conns[i])) {
            h2_conn_free(gw->conns[i]);
            gw->conns[i] = NULL;
            int rc = h2_conn_new(&gw->conns[i], gw->loop, gw->g->conn, gw->g->authority, &call_cbs);
            if (rc < 0) {
                gw->connect_err = rc;
                continue;
            }
            gw->opened++;
        }
        if (!best || h2_open_streams(gw->conns[i]) < h2_open_streams(best)) best = gw->conns[i];
    }
    gw->next++;
    return best;
}

static int mx_submit(void *mx, unsigned idx, void *slot, bool measured, int *err)
{
    struct gworker *gw = mx;
    struct grpc_run *g = gw->g;
    if (idx >= gw->nslots) return BENCH_ERR_MALFORMED;
    struct gslot *gs = &gw->slots[idx];
    struct h2_conn *h = pick(gw);
    if (!h) {
        *err = gw->connect_err;
        return BENCH_ERR_CONNECT;
    }
    gs->slot = slot;
    gs->measured = measured;
    gs->have_status = gs->bad = false;
    gs->http_status = 0;
    gs->grpc_status = -1;
    gs->bytes = 0;
    kpb_framer_reset(&gs->fr);
    gs->st.body = (const uint8_t *)g->msg.data;
    gs->st.len = g->msg.len;
    gs->active = true;
    /* h's counts before the submit: a write that fails inside it closes the stream, and the
     * callbacks may free h (pick() replaces a failed connection) before it returns */
    unsigned open = h2_open_streams(h) + 1;
    uint32_t sm = h2_max_streams(h);
    if (h2_submit(h, &gs->st, GRPC_INFER_PATH, g->hdrs, g->nhdrs) < 0) {
        gs->active = false;
        return BENCH_ERR_RESET;
    }
    gw->streams++;
    if (open > gw->max_open) gw->max_open = open;
    if (sm != UINT32_MAX && sm > gw->server_max) gw->server_max = sm;
    return -1;
}

static void mx_cancel(void *mx, unsigned idx)
{
    struct gworker *gw = mx;
    if (idx >= gw->nslots || !gw->slots[idx].active) return;
    gw->slots[idx].active = false;
    h2_cancel(&gw->slots[idx].st);
}

static void mx_free(void *mx)
{
    struct gworker *gw = mx;
    if (!gw) return;
    for (unsigned i = 0; i < gw->nslots; i++)
        gw->slots[i].active = false; /* the engine has ended every call */
    for (unsigned i = 0; i < gw->nconns; i++) {
        struct h2_conn *h = gw->conns[i];
        /* streams still open (cancelled ones are detached) end unreported */
        h2_conn_free(h);
    }
    struct grpc_run *g = gw->g;
    atomic_fetch_add(&g->connections, gw->opened);
    atomic_fetch_add(&g->streams, gw->streams);
    for (unsigned c = 0; c < BENCH_GRPC_NCODES; c++)
        atomic_fetch_add(&g->codes[c], gw->codes[c]);
    unsigned cur = atomic_load(&g->max_streams);
    while (gw->max_open > cur && !atomic_compare_exchange_weak(&g->max_streams, &cur, gw->max_open))
        ;
    uint32_t sm = atomic_load(&g->server_max);
    while (gw->server_max > sm &&
           !atomic_compare_exchange_weak(&g->server_max, &sm, gw->server_max))
        ;
    for (unsigned i = 0; i < gw->nslots; i++)
        kpb_framer_fini(&gw->slots[i].fr);
    free(gw->slots);
    free(gw->conns);
    free(gw);
}

static const struct bench_mux_ops grpc_mux = {
    .worker_new = mx_new,
    .submit = mx_submit,
    .cancel = mx_cancel,
    .worker_free = mx_free,
};

/* ---- setup: ModelMetadata as one blocking call ---- */

struct sync_call {
    struct gslot gs;
    bool closed;
    enum h2_end how;
};

static void sync_close(struct h2_stream *s, enum h2_end how, lat_ns t)
{
    struct sync_call *sc = s->ud;
    sc->closed = true;
    sc->how = how;
}

static void sync_header(struct h2_stream *s, bool trailer, const char *name, size_t nl,
                        const char *val, size_t vl)
{
    struct sync_call *sc = s->ud;
    s->ud = &sc->gs;
    on_header(s, trailer, name, nl, val, vl);
    s->ud = sc;
}

static void sync_data(struct h2_stream *s, const uint8_t *p, size_t n, lat_ns t)
{
    struct sync_call *sc = s->ud;
    s->ud = &sc->gs;
    on_data(s, p, n, t);
    s->ud = sc;
}

static const struct h2_cbs sync_cbs = {
    .header = sync_header, .data = sync_data, .close = sync_close};

/* One unary call on a connection and loop of its own, waited for up to timeout (the setup's
 * metadata, the statistics around each point: the bench's connections are the workers'). 0
 * with *cls (-1: success, the answer in sc->gs.fr.msg), or a negative code when it could not
 * start (*cls BENCH_ERR_CONNECT). The caller finishes sc with kpb_framer_fini. */
static int sync_unary(const struct grpc_run *g, const char *path, const struct lat_buf *req,
                      lat_ns timeout, struct sync_call *sc, int *cls)
{
    struct lat_buf framed = LAT_BUF_INIT;
    struct lat_loop loop;
    struct h2_conn *h = NULL;
    memset(sc, 0, sizeof(*sc));
    kpb_framer_init(&sc->gs.fr, 16u << 20);
    sc->gs.grpc_status = -1;
    *cls = BENCH_ERR_CONNECT;
    int rc = loop_init(&loop, 4);
    if (rc < 0) return rc;
    rc = kpb_frame(&framed, req->data, req->len);
    if (!rc) rc = h2_conn_new(&h, &loop, g->conn, g->authority, &sync_cbs);
    if (!rc) {
        sc->gs.st.ud = sc;
        sc->gs.st.body = (const uint8_t *)framed.data;
        sc->gs.st.len = framed.len;
        rc = h2_submit(h, &sc->gs.st, path, g->hdrs, g->nhdrs);
    }
    if (!rc) {
        lat_ns until = clock_now_ns() + timeout;
        while (!sc->closed && clock_now_ns() < until)
            if (loop_run_once(&loop, 50 * LAT_NS_PER_MS) < 0) break;
        int code;
        *cls = sc->closed ? call_class(&sc->gs, sc->how, false, &code) : BENCH_ERR_TIMEOUT;
    }
    if (h) {
        if (sc->gs.st.h) h2_cancel(&sc->gs.st);
        h2_conn_free(h);
    }
    loop_fini(&loop);
    buf_fini(&framed);
    if (rc < 0) sc->gs.st.err = rc;
    return rc;
}

static int read_metadata(struct grpc_run *g, struct kserve_opts *o, char *err, size_t errlen)
{
    struct lat_buf req = LAT_BUF_INIT;
    struct sync_call sc;
    int cls = -1;
    int rc = kpb_build_metadata_req(&req, g->model, g->version);
    if (rc) return rc;
    rc = sync_unary(g, GRPC_META_PATH, &req, 5 * LAT_NS_PER_S, &sc, &cls);
    buf_fini(&req);
    if (cls == BENCH_ERR_GRPC_STATUS) {
        const char *name = kpb_code_name((unsigned)sc.gs.grpc_status);
        rc = lat_errf(err, errlen, LAT_E_NOT_FOUND,
                      "ModelMetadata for model %s answered grpc-status %d (%s); check --model or "
                      "pass --input",
                      g->model, sc.gs.grpc_status, name ? name : "?");
    } else if (cls == BENCH_ERR_CONNECT) {
        rc = lat_errf(err, errlen, LAT_E_NOT_FOUND,
                      "ModelMetadata: cannot connect: %s (is the server up? or pass --input)",
                      lat_strerror(sc.gs.st.err ? sc.gs.st.err : -ECONNREFUSED));
    } else if (cls >= 0) {
        rc = lat_errf(err, errlen, LAT_E_NOT_FOUND,
                      "ModelMetadata failed (%s); is it a KServe v2 gRPC server? or pass --input",
                      bench_err_names[cls]);
    } else {
        struct kpb_metadata m;
        rc = kpb_decode_metadata((const uint8_t *)sc.gs.fr.msg.data, sc.gs.fr.msg.len, &m);
        if (rc < 0)
            lat_errf(err, errlen, rc, "ModelMetadata: %s; pass --input", lat_strerror(rc));
        else
            rc = kpb_metadata_inputs(&m, o->inputs, &o->ninputs, err, errlen);
    }
    kpb_framer_fini(&sc.gs.fr);
    return rc;
}

/* Triton's ModelStatistics for the model: 0, or a negative code (a server without it). */
static int read_stats(const struct grpc_run *g, struct triton_counts *c)
{
    struct lat_buf req = LAT_BUF_INIT;
    struct sync_call sc;
    int cls = -1;
    int rc = kpb_build_metadata_req(&req, g->model, g->version);
    if (!rc) rc = sync_unary(g, GRPC_STATS_PATH, &req, 5 * LAT_NS_PER_S, &sc, &cls);
    buf_fini(&req);
    if (rc) return rc;
    struct kpb_stats s;
    rc = cls >= 0 ? LAT_E_NOT_FOUND
                  : kpb_decode_stats((const uint8_t *)sc.gs.fr.msg.data, sc.gs.fr.msg.len,
                                     g->version, &s);
    kpb_framer_fini(&sc.gs.fr);
    if (rc) return rc;
    *c = (struct triton_counts){s.success_count,    s.success_ns,       s.queue_ns,
                                s.compute_input_ns, s.compute_infer_ns, s.compute_output_ns};
    return 0;
}

static int add_headers(struct grpc_run *g, const char *const *headers, size_t n, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const char *c = strchr(headers[i], ':');
        if (!c || c == headers[i])
            return lat_errf(err, errlen, LAT_E_USAGE, "-H %s: expected \"Name: value\"",
                            headers[i]);
        size_t nl = (size_t)(c - headers[i]);
        static const char *const skip[] = {"content-type", "content-length", "host", "te",
                                           "connection"};
        bool drop = false;
        for (size_t k = 0; k < sizeof(skip) / sizeof(skip[0]); k++)
            if (nl == strlen(skip[k]) && !strncasecmp(headers[i], skip[k], nl)) drop = true;
        if (drop) continue;
        if (g->nhdrs == GRPC_MAX_HDRS)
            return lat_errf(err, errlen, LAT_E_USAGE, "-H: more than %d headers", GRPC_MAX_HDRS);
        const char *v = c + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vl = strlen(v);
        char *mem = malloc(nl + 1 + vl + 1);
        if (!mem) return -ENOMEM;
        for (size_t k = 0; k < nl; k++)
            mem[k] = (char)tolower((unsigned char)headers[i][k]);
        mem[nl] = 0;
        memcpy(mem + nl + 1, v, vl + 1);
        g->hdr_mem[g->nhdrs] = mem;
        g->hdrs[g->nhdrs++] = (struct h2_hdr){mem, mem + nl + 1};
    }
    return 0;
}

int grpc_setup(struct grpc_run **out, struct kserve_opts *o, struct bench_target *t,
               const char *const *headers, size_t nheaders, unsigned conns, char *err,
               size_t errlen)
{
    *out = NULL;
#if !LAT_HAVE_NGHTTP2
    return lat_errf(err, errlen, LAT_E_UNSUPPORTED,
                    "grpc:// needs nghttp2: this latscope was built without it; install "
                    "libnghttp2-dev (scripts/deps.sh) and rebuild (make)");
#endif
    if (t->conn.tls)
        return lat_errf(err, errlen, LAT_E_UNSUPPORTED, "gRPC over TLS is not supported yet");
    if (!o->model) return lat_errf(err, errlen, LAT_E_USAGE, "grpc:// needs --model NAME");
    struct grpc_run *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    g->conn = &t->conn;
    g->conns = conns;
    snprintf(g->authority, sizeof(g->authority), "%s", t->url.hostport);
    snprintf(g->model, sizeof(g->model), "%s", o->model);
    if (o->version) snprintf(g->version, sizeof(g->version), "%s", o->version);
    int rc = add_headers(g, headers, nheaders, err, errlen);
    if (!rc && o->ninputs == 0) rc = read_metadata(g, o, err, errlen);
    struct lat_buf m = LAT_BUF_INIT;
    if (!rc)
        rc = kpb_build_infer(&m, g->model, g->version, NULL, o->inputs, o->ninputs, o->batch,
                             o->seed, err, errlen);
    if (!rc) rc = kpb_frame(&g->msg, m.data, m.len);
    buf_fini(&m);
    if (rc) {
        if (!err[0]) lat_errf(err, errlen, rc, "%s", lat_strerror(rc));
        grpc_free(g);
        return rc;
    }
    t->mux = &grpc_mux;
    t->mux_ud = g;
    t->request = NULL;
    t->request_len = 0;
    *out = g;
    return 0;
}

void grpc_point_begin(struct grpc_run *g)
{
    g->stats_ok = read_stats(g, &g->before) == 0;
    atomic_store(&g->connections, 0);
    atomic_store(&g->streams, 0);
    atomic_store(&g->max_streams, 0);
    atomic_store(&g->server_max, 0);
    for (unsigned c = 0; c < BENCH_GRPC_NCODES; c++)
        atomic_store(&g->codes[c], 0);
}

void grpc_point_end(struct grpc_run *g, struct bench_grpc_stats *out,
                    struct bench_server_stats *srv)
{
    struct triton_counts after;
    memset(srv, 0, sizeof(*srv));
    if (g->stats_ok && read_stats(g, &after) == 0) triton_counts_delta(&g->before, &after, srv);
    memset(out, 0, sizeof(*out));
    out->have = true;
    out->connections = atomic_load(&g->connections);
    out->streams = atomic_load(&g->streams);
    out->max_streams = atomic_load(&g->max_streams);
    out->server_max_streams = atomic_load(&g->server_max);
    for (unsigned c = 0; c < BENCH_GRPC_NCODES; c++)
        out->codes[c] = atomic_load(&g->codes[c]);
}

void grpc_describe(const struct grpc_run *g, char *out, size_t cap)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the request message */
    for (size_t i = 0; i < g->msg.len; i++)
        h = (h ^ (uint8_t)g->msg.data[i]) * 1099511628211ull;
    snprintf(out, cap, "kserve-grpc ModelInfer %s%s%s (%zu bytes, #%016llx)", g->model,
             g->version[0] ? ":" : "", g->version, g->msg.len, (unsigned long long)h);
}

void grpc_free(struct grpc_run *g)
{
    if (!g) return;
    for (size_t i = 0; i < g->nhdrs; i++)
        free(g->hdr_mem[i]);
    buf_fini(&g->msg);
    free(g);
}
