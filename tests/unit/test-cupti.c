/* test-cupti.c - CUPTI 13.0 activity records (the real struct types, built in memory) ->
 * capture records -> trace events, for every kind the injection library enables.
 * Skips when the toolkit headers are absent (LAT_HAVE_CUPTI == 0). */
#include "test.h"

#include "capture/capfile.h"
#include "capture/collect.h"
#include "capture/cupti_conv.h"
#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

#if LAT_HAVE_CUPTI
#include <cupti_activity.h>

/* A tiny string table standing in for the injection library's. */
struct strs {
    char *s[16];
    uint32_t n;
};

static uint32_t t_intern(void *ctx, const char *s)
{
    struct strs *t = ctx;
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->s[i], s) == 0) return i + 1;
    t->s[t->n] = strdup(s);
    return ++t->n;
}

/* As the injection library does: CUPTI's callback name without its _vNNNN suffix. */
static uint32_t t_api_name(void *ctx, uint32_t domain, uint32_t cbid)
{
    const char *full = domain == LCAP_API_RUNTIME && cbid == 211 ? "cudaLaunchKernel_v7000"
                       : domain == LCAP_API_DRIVER               ? "cuLaunchKernelEx"
                                                                 : "cudaOther";
    char buf[64];
    size_t n = cupti_conv_strip_version(full);
    memcpy(buf, full, n);
    buf[n] = 0;
    return t_intern(ctx, buf);
}

struct fixture {
    struct strs strs;
    struct cupti_conv_ops ops;
    struct lat_buf recs; /* encoded records, strings are emitted at the end */
};

static void fx_init(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    f->ops = (struct cupti_conv_ops){.intern = t_intern, .api_name = t_api_name, .ctx = &f->strs};
}

/* Converts one CUPTI record and appends the capture record; returns its lcap type. */
static int fx_conv(struct fixture *f, const void *rec)
{
    union lcap_any a;
    uint32_t size = 0;
    int type = cupti_conv_record(rec, &f->ops, &a, &size);
    if (type) {
        char tmp[512];
        size_t w = lcap_encode(tmp, sizeof(tmp), (uint16_t)type, &a, size, NULL, 0);
        buf_append(&f->recs, tmp, w);
    }
    return type;
}

/* magic, strings, a sync pair (CUPTI = MONOTONIC + 1000 ns), then the records. */
static int fx_collect(struct fixture *f, struct lat_trace **t, struct collect_stats *st)
{
    struct lat_buf b = LAT_BUF_INIT;
    char tmp[512];
    buf_append(&b, LCAP_MAGIC, LCAP_MAGIC_LEN);
    for (uint32_t i = 0; i < f->strs.n; i++) {
        struct lcap_str h = {.id = i + 1, .len = (uint32_t)strlen(f->strs.s[i])};
        size_t w = lcap_encode(tmp, sizeof(tmp), LCAP_STR, &h, sizeof(h), f->strs.s[i], h.len);
        buf_append(&b, tmp, w);
    }
    struct lcap_proc pr = {.pid = 321};
    buf_append(&b, tmp, lcap_encode(tmp, sizeof(tmp), LCAP_PROC, &pr, sizeof(pr), NULL, 0));
    struct lcap_sync s = {.mono_ns = 10000, .cupti_ns = 11000};
    buf_append(&b, tmp, lcap_encode(tmp, sizeof(tmp), LCAP_SYNC, &s, sizeof(s), NULL, 0));
    buf_append(&b, f->recs.data, f->recs.len);
    memset(st, 0, sizeof(*st));
    int rc = lat_trace_new(t);
    struct collect_opts o = {.origin_ns = 0, .gpu_annotations = true};
    if (!rc) rc = collect_buffer(*t, b.data, b.len, 0, &o, st);
    buf_fini(&b);
    for (uint32_t i = 0; i < f->strs.n; i++)
        free(f->strs.s[i]);
    buf_fini(&f->recs);
    return rc;
}

static ssize_t by_name(const struct lat_trace *t, const char *name)
{
    for (size_t i = 0; i < t->ev.n; i++)
        if (strcmp(lat_trace_str(t, t->ev.name[i]), name) == 0) return (ssize_t)i;
    return -1;
}

static int64_t iarg(const struct lat_trace *t, ssize_t i, const char *k)
{
    int64_t v = -999;
    return i >= 0 && lat_trace_arg_int(t, (size_t)i, k, &v) ? v : -999;
}
#endif

TEST(cupti_conv_strip_version)
{
    ASSERT_EQ_U64(cupti_conv_strip_version("cudaLaunchKernel_v7000"), 16);
    ASSERT_EQ_U64(cupti_conv_strip_version("cuLaunchKernelEx"), 16);
    ASSERT_EQ_U64(cupti_conv_strip_version("cuMemcpy_v2"), 8);
    ASSERT_EQ_U64(cupti_conv_strip_version("x_v"), 3);
}

TEST(cupti_conv_every_kind)
{
#if !LAT_HAVE_CUPTI
    SKIP("built without the CUDA toolkit headers (LAT_HAVE_CUPTI=0)");
#else
    struct fixture f;
    fx_init(&f);
    ASSERT(cupti_conv_available());

    CUpti_ActivityAPI rt;
    memset(&rt, 0, sizeof(rt));
    rt.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    rt.cbid = 211;
    rt.start = 21000;
    rt.end = 26000;
    rt.processId = 321;
    rt.threadId = 654;
    rt.correlationId = 17;
    ASSERT_EQ_I64(fx_conv(&f, &rt), LCAP_API);

    CUpti_ActivityAPI drv = rt;
    drv.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    drv.cbid = 652;
    drv.correlationId = 18;
    drv.start = 27000;
    drv.end = 28000;
    ASSERT_EQ_I64(fx_conv(&f, &drv), LCAP_API);

    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof(k));
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 31000;
    k.end = 33500;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7;
    k.gridX = 2;
    k.gridY = 3;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 0;
    k.correlationId = 17;
    k.graphId = 5;
    k.graphNodeId = 99;
    char kname[32] = "_Z6kernelPf";
    k.name = kname;
    ASSERT_EQ_I64(fx_conv(&f, &k), LCAP_KERNEL);
    memset(kname, 'x', sizeof(kname) - 1); /* CUPTI frees its buffer: the name was copied */

    CUpti_ActivityKernel10 k2 = k;
    k2.name = "second";
    k2.correlationId = 18;
    k2.start = 34000;
    k2.end = 35000;
    ASSERT_EQ_I64(fx_conv(&f, &k2), LCAP_KERNEL);

    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof(m));
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    m.bytes = 4096;
    m.start = 41000;
    m.end = 43000;
    m.deviceId = 0;
    m.contextId = 1;
    m.streamId = 7;
    m.correlationId = 20;
    ASSERT_EQ_I64(fx_conv(&f, &m), LCAP_MEMCPY);

    CUpti_ActivityMemcpyPtoP4 p;
    memset(&p, 0, sizeof(p));
    p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p.bytes = 1 << 20;
    p.start = 44000;
    p.end = 45000;
    p.deviceId = 1;
    p.contextId = 2;
    p.streamId = 13;
    p.srcDeviceId = 0;
    p.dstDeviceId = 1;
    p.srcContextId = 1;
    p.dstContextId = 2;
    p.correlationId = 21;
    ASSERT_EQ_I64(fx_conv(&f, &p), LCAP_MEMCPY);

    CUpti_ActivityMemset4 s;
    memset(&s, 0, sizeof(s));
    s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    s.bytes = 512;
    s.start = 46000;
    s.end = 46500;
    s.deviceId = 0;
    s.contextId = 1;
    s.streamId = 7;
    s.correlationId = 22;
    s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    ASSERT_EQ_I64(fx_conv(&f, &s), LCAP_MEMSET);

    CUpti_ActivitySynchronization2 y;
    memset(&y, 0, sizeof(y));
    y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    y.start = 47000;
    y.end = 49000;
    y.correlationId = 23;
    y.contextId = 1;
    y.streamId = UINT32_MAX;
    y.cudaEventId = UINT32_MAX;
    ASSERT_EQ_I64(fx_conv(&f, &y), LCAP_CUDASYNC);

    CUpti_ActivityOverhead3 o;
    memset(&o, 0, sizeof(o));
    o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION;
    o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    o.objectId.pt.processId = 321;
    o.objectId.pt.threadId = 654;
    o.start = 12000;
    o.end = 13000;
    ASSERT_EQ_I64(fx_conv(&f, &o), LCAP_OVERHEAD);

    CUpti_ActivityDevice5 d;
    memset(&d, 0, sizeof(d));
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.id = 0;
    d.name = "NVIDIA H200";
    d.computeCapabilityMajor = 9;
    d.computeCapabilityMinor = 0;
    d.numMultiprocessors = 132;
    d.numThreadsPerWarp = 32;
    d.maxWarpsPerMultiprocessor = 64;
    d.maxThreadsPerBlock = 1024;
    d.globalMemorySize = 150000000000ULL;
    d.maxRegistersPerBlock = 65536;
    d.maxSharedMemoryPerBlock = 49152;
    ASSERT_EQ_I64(fx_conv(&f, &d), LCAP_DEVICE);

    CUpti_ActivityContext3 c;
    memset(&c, 0, sizeof(c));
    c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    c.contextId = 1;
    c.deviceId = 0;
    ASSERT_EQ_I64(fx_conv(&f, &c), LCAP_CONTEXT);

    CUpti_ActivityExternalCorrelation x;
    memset(&x, 0, sizeof(x));
    x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    x.externalId = 1ULL << 40;
    x.correlationId = 17;
    ASSERT_EQ_I64(fx_conv(&f, &x), LCAP_EXTCORR);

    CUpti_ActivityCudaEvent2 ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
    ev.eventId = 4;
    ASSERT_EQ_I64(fx_conv(&f, &ev), LCAP_CUDAEVENT);

    /* Kinds latscope never keeps convert to nothing. */
    CUpti_Activity other = {.kind = CUPTI_ACTIVITY_KIND_MARKER};
    ASSERT_EQ_I64(fx_conv(&f, &other), 0);

    struct lat_trace *t = NULL;
    struct collect_stats st;
    ASSERT_RC(fx_collect(&f, &t, &st));
    ASSERT_EQ_U64(st.api, 2);
    ASSERT_EQ_U64(st.kernels, 2);
    ASSERT_EQ_U64(st.memcpys, 2);
    ASSERT_EQ_U64(st.memsets, 1);
    ASSERT_EQ_U64(st.syncs, 1);
    ASSERT_EQ_U64(st.overheads, 1);

    ssize_t a = by_name(t, "cudaLaunchKernel"); /* _v7000 stripped */
    ASSERT(a >= 0);
    ASSERT_EQ_I64(t->ev.ts[a], 20000); /* CUPTI - 1000 ns */
    ASSERT_EQ_I64(t->ev.dur[a], 5000);
    ASSERT_EQ_I64(t->tracks[t->ev.track[a]].tid, 654);
    ASSERT_EQ_I64(iarg(t, a, "cbid"), 211);
    ssize_t dr = by_name(t, "cuLaunchKernelEx");
    ASSERT(dr >= 0);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[dr]), "cuda_driver");

    ssize_t ki = by_name(t, "_Z6kernelPf");
    ASSERT(ki >= 0);
    ASSERT_EQ_I64(t->ev.ts[ki], 30000);
    ASSERT_EQ_I64(t->ev.dur[ki], 2500);
    ASSERT_EQ_I64(iarg(t, ki, "registers per thread"), 40);
    ASSERT_EQ_I64(iarg(t, ki, "shared memory"), 1024);
    ASSERT_EQ_I64(iarg(t, ki, "graph id"), 5);
    ASSERT_EQ_I64(iarg(t, ki, "graph node id"), 99);
    const struct lat_arg *g = lat_trace_arg(t, (size_t)ki, "block");
    ASSERT(g);
    ASSERT_EQ_STR(lat_trace_str(t, g->str), "[256, 1, 1]");
    const struct lat_arg *w = lat_trace_arg(t, (size_t)ki, "warps per SM");
    ASSERT(w);
    ASSERT_EQ_STR(lat_trace_str(t, w->str), "0.363636"); /* 6 blocks * 8 warps / 132 SMs */

    ssize_t mi = by_name(t, "Memcpy DtoH (Device -> Pageable)");
    ASSERT(mi >= 0);
    ASSERT_EQ_I64(iarg(t, mi, "bytes"), 4096);
    ssize_t pi = by_name(t, "Memcpy PtoP (Device -> Device)");
    ASSERT(pi >= 0);
    ASSERT_EQ_I64(iarg(t, pi, "fromDevice"), 0);
    ASSERT_EQ_I64(iarg(t, pi, "toDevice"), 1);
    ASSERT_EQ_I64(iarg(t, pi, "stream"), 13);
    ASSERT(by_name(t, "Memset (Device)") >= 0);
    ssize_t yi = by_name(t, "Context Sync");
    ASSERT(yi >= 0);
    ASSERT_EQ_I64(iarg(t, yi, "stream"), -1);
    ASSERT_EQ_I64(iarg(t, yi, "device"), 0); /* from the context record */
    ASSERT(by_name(t, "Instrumentation") >= 0);
    ASSERT_EQ_U64(t->ndevices, 1);
    ASSERT_EQ_STR(lat_trace_str(t, t->devices[0].name), "NVIDIA H200");
    ASSERT_EQ_I64(t->devices[0].num_sms, 132);
    ASSERT_EQ_I64(t->devices[0].max_threads_per_sm, 2048);

    /* Correlation: each launch call has an s, each linked GPU event an f with the same id. */
    int s_17 = 0, f_17 = 0, f_18 = 0;
    for (size_t i = 0; i < t->nflows; i++) {
        if (t->flows[i].id == 17 && t->flows[i].ph == 's') s_17++;
        if (t->flows[i].id == 17 && t->flows[i].ph == 'f') f_17++;
        if (t->flows[i].id == 18 && t->flows[i].ph == 'f') f_18++;
    }
    ASSERT_EQ_I64(s_17, 1);
    ASSERT_EQ_I64(f_17, 1);
    ASSERT_EQ_I64(f_18, 1);
    lat_trace_free(t);
#endif
}
