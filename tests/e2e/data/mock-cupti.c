/*
 * mock-cupti.c - a stand-in libcupti for t307 (pattern of parca-dev/parcagpu's test mocks; no
 * code from there): the CUPTI 13.0 entry points liblatscope-cupti.so uses, with the activity
 * buffer protocol of the real one. Each cuptiActivityFlushAll() asks the library for a buffer
 * (request callback), fills it with real CUDA 13.0 record structs - a DEVICE and CONTEXT record
 * once, then launches: a RUNTIME cudaLaunchKernel record + a CONCURRENT_KERNEL record sharing a
 * correlation id, every 10th launch also a cudaMemcpyAsync + MEMCPY - and hands it back
 * (completed callback). At most 16 launches per periodic flush; a forced flush delivers the rest
 * of MOCK_CUPTI_LAUNCHES. Only kinds the library enabled are delivered, so a missing enable
 * shows up as missing events. Timestamps come from CLOCK_REALTIME, as CUPTI's do on Linux.
 * MOCK_CUPTI_BUSY=1 makes cuptiSubscribe fail as when torch.profiler holds CUPTI;
 * MOCK_CUPTI_DROPPED=N reports N dropped records once.
 */
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static CUpti_BuffersCallbackRequestFunc g_req;
static CUpti_BuffersCallbackCompleteFunc g_comp;
static unsigned long long g_enabled; /* bit per kind < 64 */
static int g_total = -1, g_done, g_dropped_reported, g_device_sent;
static uint32_t g_corr;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t rt_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

EXPORT CUptiResult cuptiGetVersion(uint32_t *v)
{
    *v = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    *s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
             ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
             : "MOCK_CUPTI_ERROR";
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
    (void)cb;
    (void)ud;
    if (getenv("MOCK_CUPTI_BUSY")) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    *s = (CUpti_SubscriberHandle)&g_req;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t en, CUpti_SubscriberHandle s,
                                       CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    (void)en, (void)s, (void)d, (void)id;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t)
{
    return t == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ? CUPTI_SUCCESS
                                                     : CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                  CUpti_BuffersCallbackCompleteFunc comp)
{
    g_req = req;
    g_comp = comp;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
    if (k == CUPTI_ACTIVITY_KIND_KERNEL) {
        fprintf(stderr, "mock-cupti: KERNEL (serialising) kind enabled\n");
        return CUPTI_ERROR_INVALID_KIND;
    }
    if ((unsigned)k < 64) g_enabled |= 1ULL << k;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t en)
{
    (void)cbid, (void)en;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t en)
{
    (void)cbid, (void)en;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *t)
{
    *t = rt_ns();
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
    if (d != CUPTI_CB_DOMAIN_RUNTIME_API) return CUPTI_ERROR_INVALID_PARAMETER;
    *name = cbid == 211 ? "cudaLaunchKernel_v7000" : cbid == 41 ? "cudaMemcpyAsync_v3020" : "cudaX";
    return CUPTI_SUCCESS;
}

/* Buffer layout private to this mock: [u64 size][record], 8-byte aligned. */
static size_t put(uint8_t *buf, size_t off, size_t cap, const void *rec, size_t n)
{
    size_t need = 8 + ((n + 7) & ~(size_t)7);
    if (off + need > cap) return off;
    uint64_t sz = n;
    memcpy(buf + off, &sz, 8);
    memcpy(buf + off + 8, rec, n);
    return off + need;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    size_t off;
    if (!*rec) {
        off = 0;
    } else {
        uint64_t sz;
        off = (size_t)((uint8_t *)*rec - buf) - 8;
        memcpy(&sz, buf + off, 8);
        off += 8 + ((sz + 7) & ~(uint64_t)7);
    }
    if (off + 8 > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(buf + off + 8);
    return CUPTI_SUCCESS;
}

static int on(CUpti_ActivityKind k)
{
    return (g_enabled >> k) & 1;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    pthread_mutex_lock(&g_lock);
    if (g_total < 0)
        g_total = getenv("MOCK_CUPTI_LAUNCHES") ? atoi(getenv("MOCK_CUPTI_LAUNCHES")) : 10;
    int n = g_total - g_done;
    if (!(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) && n > 16) n = 16;
    if (!g_req || !g_comp || (n <= 0 && g_device_sent)) {
        pthread_mutex_unlock(&g_lock);
        return CUPTI_SUCCESS;
    }
    uint8_t *buf = NULL;
    size_t size = 0, maxrec = 0, off = 0;
    g_req(&buf, &size, &maxrec);
    if (!buf) {
        pthread_mutex_unlock(&g_lock);
        return CUPTI_SUCCESS;
    }
    if (!g_device_sent && on(CUPTI_ACTIVITY_KIND_DEVICE)) {
        CUpti_ActivityDevice5 d;
        memset(&d, 0, sizeof(d));
        d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
        d.id = 0;
        d.name = "Mock H200";
        d.computeCapabilityMajor = 9;
        d.numMultiprocessors = 132;
        d.numThreadsPerWarp = 32;
        d.maxWarpsPerMultiprocessor = 64;
        d.maxThreadsPerBlock = 1024;
        off = put(buf, off, size, &d, sizeof(d));
        CUpti_ActivityContext3 c;
        memset(&c, 0, sizeof(c));
        c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
        c.contextId = 1;
        c.deviceId = 0;
        off = put(buf, off, size, &c, sizeof(c));
    }
    g_device_sent = 1;
    for (int i = 0; i < n; i++, g_done++) {
        uint64_t t = rt_ns();
        CUpti_ActivityAPI a;
        memset(&a, 0, sizeof(a));
        a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        a.cbid = 211;
        a.start = t;
        a.end = t + 3000;
        a.processId = (uint32_t)getpid();
        a.threadId = (uint32_t)getpid();
        a.correlationId = ++g_corr;
        if (on(CUPTI_ACTIVITY_KIND_RUNTIME)) off = put(buf, off, size, &a, sizeof(a));
        CUpti_ActivityKernel10 k;
        memset(&k, 0, sizeof(k));
        k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k.start = t + 5000;
        k.end = t + 7000;
        k.deviceId = 0;
        k.contextId = 1;
        k.streamId = 7;
        k.gridX = k.gridY = k.gridZ = 1;
        k.blockX = 128;
        k.blockY = k.blockZ = 1;
        k.correlationId = g_corr;
        k.name = "_Z6kernelPf";
        if (on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) off = put(buf, off, size, &k, sizeof(k));
        if (g_done % 10 == 0) {
            a.cbid = 41;
            a.correlationId = ++g_corr;
            a.start = t + 8000;
            a.end = t + 9000;
            if (on(CUPTI_ACTIVITY_KIND_RUNTIME)) off = put(buf, off, size, &a, sizeof(a));
            CUpti_ActivityMemcpy6 m;
            memset(&m, 0, sizeof(m));
            m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
            m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
            m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
            m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
            m.bytes = 4096;
            m.start = t + 9500;
            m.end = t + 10500;
            m.streamId = 7;
            m.contextId = 1;
            m.correlationId = g_corr;
            if (on(CUPTI_ACTIVITY_KIND_MEMCPY)) off = put(buf, off, size, &m, sizeof(m));
        }
    }
    pthread_mutex_unlock(&g_lock);
    g_comp(NULL, 0, buf, size, off); /* outside our lock, as CUPTI's worker would */
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    (void)c, (void)s;
    *n = 0;
    if (!g_dropped_reported && getenv("MOCK_CUPTI_DROPPED")) {
        *n = (size_t)atoi(getenv("MOCK_CUPTI_DROPPED"));
        g_dropped_reported = 1;
    }
    return CUPTI_SUCCESS;
}
