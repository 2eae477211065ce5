/* test-kineto-write-roundtrip.c - capture records -> model -> Kineto JSON (plain and gzip) ->
 * latscope's own reader (ingest) -> the same events, tracks, flows, devices and metadata. */
#include "test.h"

#include "capture/capfile.h"
#include "capture/collect.h"
#include "core/buf.h"
#include "export/kineto_write.h"
#include "ingest/ingest.h"

#include <stdlib.h>
#include <string.h>

static void rt_put(struct lat_buf *b, uint16_t type, const void *p, size_t n, const char *q)
{
    char tmp[512];
    size_t m = q ? strlen(q) : 0;
    size_t w = lcap_encode(tmp, sizeof(tmp), type, p, n, q, m);
    if (!w) abort();
    buf_append(b, tmp, w);
}

static void rt_str(struct lat_buf *b, uint32_t id, const char *s)
{
    struct lcap_str h = {.id = id, .len = (uint32_t)strlen(s)};
    rt_put(b, LCAP_STR, &h, sizeof(h), s);
}

#define C(mono) ((uint64_t)(mono) + 7000000000ULL)

/* A process with every kind of event latscope writes. */
static struct lat_trace *captured(void)
{
    struct lat_buf b = LAT_BUF_INIT;
    buf_append(&b, LCAP_MAGIC, LCAP_MAGIC_LEN);
    rt_str(&b, 1, "python3");
    rt_str(&b, 2, "cudaLaunchKernel");
    rt_str(&b, 3, "void gemm<float>(int, \"q\" \xc3\xa9)");
    rt_str(&b, 4, "forward");
    rt_str(&b, 5, "NVIDIA H200");
    rt_str(&b, 6, "cudaMemcpyAsync");
    struct lcap_proc pr = {.pid = 999, .comm = 1};
    rt_put(&b, LCAP_PROC, &pr, sizeof(pr), NULL);
    struct lcap_sync s = {.mono_ns = 1000, .cupti_ns = C(1000)};
    rt_put(&b, LCAP_SYNC, &s, sizeof(s), NULL);
    struct lcap_device d = {.id = 0,
                            .name = 5,
                            .cc_major = 9,
                            .num_sms = 132,
                            .warp_size = 32,
                            .max_warps_per_sm = 64,
                            .max_threads_per_block = 1024,
                            .global_mem = 150000000000LL};
    rt_put(&b, LCAP_DEVICE, &d, sizeof(d), NULL);
    struct lcap_nvtx n = {.ts = 1000001, .tid = 1000, .op = LCAP_NVTX_PUSH, .msg = 4};
    rt_put(&b, LCAP_NVTX, &n, sizeof(n), NULL);
    for (uint32_t i = 0; i < 3; i++) {
        int64_t t0 = 1000100 + i * 10000;
        struct lcap_api a = {.start = C(t0),
                             .end = C(t0 + 3333),
                             .cbid = 211,
                             .pid = 999,
                             .tid = 1000,
                             .correlation = 10 + i,
                             .name = 2};
        rt_put(&b, LCAP_API, &a, sizeof(a), NULL);
        struct lcap_kernel k = {.start = C(t0 + 5000),
                                .end = C(t0 + 9001),
                                .stream = 7,
                                .context = 1,
                                .correlation = 10 + i,
                                .name = 3,
                                .grid = {1, 2, 3},
                                .block = {64, 1, 1},
                                .registers = 30};
        rt_put(&b, LCAP_KERNEL, &k, sizeof(k), NULL);
    }
    struct lcap_api a = {.start = C(1040000),
                         .end = C(1041000),
                         .cbid = 41,
                         .pid = 999,
                         .tid = 1000,
                         .correlation = 20,
                         .name = 6};
    rt_put(&b, LCAP_API, &a, sizeof(a), NULL);
    struct lcap_memcpy m = {.start = C(1042000),
                            .end = C(1043000),
                            .bytes = 1000,
                            .stream = 7,
                            .context = 1,
                            .correlation = 20,
                            .copy_kind = 2,
                            .src_kind = 3,
                            .dst_kind = 2};
    rt_put(&b, LCAP_MEMCPY, &m, sizeof(m), NULL);
    struct lcap_cudasync y = {.start = C(1043500),
                              .end = C(1044000),
                              .type = 4,
                              .context = 1,
                              .stream = UINT32_MAX,
                              .correlation = 21};
    rt_put(&b, LCAP_CUDASYNC, &y, sizeof(y), NULL);
    n = (struct lcap_nvtx){.ts = 1050000, .tid = 1000, .op = LCAP_NVTX_POP};
    rt_put(&b, LCAP_NVTX, &n, sizeof(n), NULL);
    n = (struct lcap_nvtx){.ts = 1050001, .tid = 1000, .op = LCAP_NVTX_MARK, .msg = 4};
    rt_put(&b, LCAP_NVTX, &n, sizeof(n), NULL);

    struct lat_trace *t;
    struct collect_stats st;
    memset(&st, 0, sizeof(st));
    struct collect_opts o = {.origin_ns = 1000, .gpu_annotations = true};
    if (lat_trace_new(&t) || collect_buffer(t, b.data, b.len, 0, &o, &st)) abort();
    buf_fini(&b);
    t->base_time_ns = 1764000000000000000LL;
    uint32_t k, v;
    lat_trace_intern(t, "latscope_command", 16, &k);
    lat_trace_intern(t, "[\"python\",\"serve.py\"]", 21, &v);
    lat_trace_add_meta(t, k, v);
    lat_trace_intern(t, "WANDB_API_KEY", 13, &k);
    lat_trace_intern(t, "\"abc123\"", 8, &v);
    lat_trace_add_meta(t, k, v);
    lat_trace_sort(t);
    return t;
}

static const char *track_pid(const struct lat_trace *t, size_t i, char *buf)
{
    const struct lat_track *tr = &t->tracks[t->ev.track[i]];
    snprintf(buf, 64, "%lld/%lld", (long long)tr->pid, (long long)tr->tid);
    return buf;
}

static void check_roundtrip(const char *path)
{
    struct lat_trace *a = captured();
    struct kineto_write_opts wo = {.gzip = -1};
    ASSERT_RC(kineto_write_file(a, path, &wo));
    struct lat_trace *b = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    struct lat_ingest_opts io = {.flags = LAT_INGEST_ARGS_ALL};
    int rc = ingest_open(path, &io, &b, err, sizeof(err));
    if (rc) FAIL("ingest_open: %d %s", rc, err);
    ASSERT_EQ_U64(b->dropped, 0);
    lat_trace_sort(b);
    ASSERT_EQ_U64(b->ev.n, a->ev.n);
    ASSERT(a->ev.n >= 12);
    for (size_t i = 0; i < a->ev.n; i++) {
        char pa[64], pb[64];
        ASSERT_EQ_I64(b->ev.ts[i], a->ev.ts[i]);
        ASSERT_EQ_I64(b->ev.dur[i], a->ev.dur[i]);
        ASSERT_EQ_STR(lat_trace_str(b, b->ev.name[i]), lat_trace_str(a, a->ev.name[i]));
        ASSERT_EQ_STR(lat_trace_str(b, b->ev.cat[i]), lat_trace_str(a, a->ev.cat[i]));
        ASSERT_EQ_I64(b->ev.kind[i], a->ev.kind[i]);
        ASSERT_EQ_STR(track_pid(b, i, pb), track_pid(a, i, pa));
        ASSERT_EQ_I64(b->ev.ph[i], a->ev.ph[i]);
        ASSERT_EQ_I64(b->tracks[b->ev.track[i]].gpu, a->tracks[a->ev.track[i]].gpu);
        ASSERT_EQ_I64(b->ev.correlation[i], a->ev.correlation[i]);
        if (a->tracks[a->ev.track[i]].gpu && a->ev.kind[i] != LAT_EV_GPU_ANNOTATION) {
            ASSERT_EQ_I64(b->ev.stream[i], a->ev.stream[i]);
            ASSERT_EQ_I64(b->ev.device[i], a->ev.device[i]);
        }
        /* Every arg written comes back with the same value. */
        for (uint32_t k = 0; k < a->ev.nargs[i]; k++) {
            const struct lat_arg *x = &a->args[a->ev.args[i] + k];
            const char *key = lat_trace_str(a, x->key);
            const struct lat_arg *y = lat_trace_arg(b, i, key);
            if (!y) FAIL("event %zu (%s): arg '%s' lost", i, lat_trace_str(a, a->ev.name[i]), key);
            if (x->type == LAT_ARG_INT) {
                int64_t v;
                ASSERT(lat_trace_arg_int(b, i, key, &v));
                ASSERT_EQ_I64(v, x->v.i);
            } else if (x->type == LAT_ARG_STR || x->type == LAT_ARG_DOUBLE) {
                ASSERT_EQ_STR(lat_trace_str(b, y->str), lat_trace_str(a, x->str));
            }
        }
    }
    ASSERT_EQ_U64(b->nflows, a->nflows);
    ASSERT_EQ_U64(a->nflows, 8);
    for (size_t i = 0; i < a->nflows; i++) {
        ASSERT_EQ_I64(b->flows[i].id, a->flows[i].id);
        ASSERT_EQ_I64(b->flows[i].ts, a->flows[i].ts);
        ASSERT_EQ_I64(b->flows[i].ph, a->flows[i].ph);
        ASSERT_EQ_I64(b->flows[i].bind_enclosing, a->flows[i].bind_enclosing);
    }
    ASSERT_EQ_U64(b->ndevices, 1);
    ASSERT_EQ_STR(lat_trace_str(b, b->devices[0].name), "NVIDIA H200");
    ASSERT_EQ_I64(b->devices[0].num_sms, 132);
    ASSERT_EQ_I64(b->devices[0].max_threads_per_sm, 2048);
    ASSERT_EQ_I64(b->base_time_ns, a->base_time_ns);
    /* Labels: the CPU process name and the stream name. */
    bool proc = false, stream = false;
    for (size_t i = 0; i < b->ntracks; i++) {
        const struct lat_track *tr = &b->tracks[i];
        if (tr->pid == 999 && tr->pid_label &&
            strcmp(lat_trace_str(b, tr->pid_label), "python3") == 0)
            proc = true;
        if (tr->gpu && tr->tid == 7 && tr->tid_label &&
            strcmp(lat_trace_str(b, tr->tid_label), "stream 7") == 0)
            stream = true;
    }
    ASSERT(proc);
    ASSERT(stream);
    bool cmd = false;
    for (size_t i = 0; i < b->nmeta; i++) {
        const char *k = lat_trace_str(b, b->meta[i].key);
        const char *v = lat_trace_str(b, b->meta[i].value);
        if (strcmp(k, "latscope_command") == 0) {
            ASSERT_EQ_STR(v, "[\"python\",\"serve.py\"]");
            cmd = true;
        }
        ASSERT(!strstr(v, "abc123"));
    }
    ASSERT(cmd);
    lat_trace_free(a);
    lat_trace_free(b);
}

TEST(kineto_write_roundtrip_plain)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/rt.json", test_tmpdir());
    check_roundtrip(path);
}

TEST(kineto_write_roundtrip_gzip)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/rt.pt.trace.json.gz", test_tmpdir());
    check_roundtrip(path);
}
