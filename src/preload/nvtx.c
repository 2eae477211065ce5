/*
 * nvtx.c - NVTX v3 injection: ranges and marks from torch.cuda.nvtx, emit_nvtx, TensorRT.
 *
 * The NVTX3 loader in every module that embeds NVTX (nvtx3/nvtxDetail/nvtxInit.h) dlopens
 * NVTX_INJECTION64_PATH on its first NVTX call and calls InitializeInjectionNvtx2 with an
 * export-table getter; we ask it for the CORE and CORE2 function tables and store our hooks
 * into the slots (capture.md §9). Several modules initialise separately (an executable and a
 * shared library both embedding NVTX give two calls): the hooks are stateless apart from the
 * process-wide writer, so every call installs the same functions.
 *
 * Each hook copies its message at call time (callers pass temporaries), interns it, and writes
 * one LCAP_NVTX record {CLOCK_MONOTONIC ns, TID cached in TLS, op, ids}. Push/pop pairing and
 * nesting are rebuilt by the collector per thread; RangeStart/End (which may cross threads)
 * get ids from our own counter. Registered strings and domains are handles that carry our
 * string ids. Wide-character messages are recorded as "<wide string>" (rare in practice).
 * Works without a GPU or driver: nothing here touches CUDA.
 */
#include "preload/inject.h"

#include <stdatomic.h>
#include <string.h>

#if LAT_HAVE_CUPTI /* the toolkit (and so the NVTX3 headers) is present */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

void lat__inj_nvtx_started(void);

static _Atomic uint64_t next_range_id = 1;

static void nvtx_record(uint32_t op, uint32_t domain, uint32_t msg, uint64_t range_id)
{
    inj_nvtx_record(op, domain, NULL, msg, range_id);
}

static uint32_t msg_ascii(const char *s)
{
    return s ? inj_intern(s, strlen(s)) : 0;
}

static uint32_t msg_attr(const nvtxEventAttributes_t *a)
{
    if (!a) return 0;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return msg_ascii(a->message.ascii);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return (uint32_t)(uintptr_t)a->message.registered;
    case NVTX_MESSAGE_TYPE_UNICODE:
        return inj_intern("<wide string>", 13);
    default:
        return 0;
    }
}

static uint32_t domain_id(nvtxDomainHandle_t d)
{
    return (uint32_t)(uintptr_t)d;
}

static int NVTX_API h_push_a(const char *message)
{
    if (inj_nvtx_enabled()) inj_nvtx_record(LCAP_NVTX_PUSH, 0, message, 0, 0);
    return 0;
}

static int NVTX_API h_push_ex(const nvtxEventAttributes_t *a)
{
    if (inj_nvtx_enabled()) nvtx_record(LCAP_NVTX_PUSH, 0, msg_attr(a), 0);
    return 0;
}

static int NVTX_API h_pop(void)
{
    /* Pops are kept even outside the window so a range opened inside it closes. */
    if (inj_configure()) nvtx_record(LCAP_NVTX_POP, 0, 0, 0);
    return 0;
}

static void NVTX_API h_mark_a(const char *message)
{
    if (inj_nvtx_enabled()) inj_nvtx_record(LCAP_NVTX_MARK, 0, message, 0, 0);
}

static void NVTX_API h_mark_ex(const nvtxEventAttributes_t *a)
{
    if (inj_nvtx_enabled()) nvtx_record(LCAP_NVTX_MARK, 0, msg_attr(a), 0);
}

static nvtxRangeId_t NVTX_API h_start_a(const char *message)
{
    uint64_t id = atomic_fetch_add(&next_range_id, 1);
    if (inj_nvtx_enabled()) inj_nvtx_record(LCAP_NVTX_START, 0, message, 0, id);
    return id;
}

static nvtxRangeId_t NVTX_API h_start_ex(const nvtxEventAttributes_t *a)
{
    uint64_t id = atomic_fetch_add(&next_range_id, 1);
    if (inj_nvtx_enabled()) nvtx_record(LCAP_NVTX_START, 0, msg_attr(a), id);
    return id;
}

static void NVTX_API h_end(nvtxRangeId_t id)
{
    if (inj_configure()) nvtx_record(LCAP_NVTX_END, 0, 0, id);
}

static void NVTX_API h_name_thread_a(uint32_t tid, const char *name)
{
    if (inj_configure()) {
        struct lcap_nvtx r = {
            .ts = inj_now_ns(), .tid = tid, .op = LCAP_NVTX_THREAD_NAME, .msg = msg_ascii(name)};
        inj_emit(LCAP_NVTX, &r, sizeof(r));
    }
}

static void NVTX_API h_dmark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    if (inj_nvtx_enabled()) nvtx_record(LCAP_NVTX_MARK, domain_id(d), msg_attr(a), 0);
}

static nvtxRangeId_t NVTX_API h_dstart_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    uint64_t id = atomic_fetch_add(&next_range_id, 1);
    if (inj_nvtx_enabled()) nvtx_record(LCAP_NVTX_START, domain_id(d), msg_attr(a), id);
    return id;
}

static void NVTX_API h_dend(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    if (inj_configure()) nvtx_record(LCAP_NVTX_END, domain_id(d), 0, id);
}

static int NVTX_API h_dpush_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    if (inj_nvtx_enabled()) nvtx_record(LCAP_NVTX_PUSH, domain_id(d), msg_attr(a), 0);
    return 0;
}

static int NVTX_API h_dpop(nvtxDomainHandle_t d)
{
    if (inj_configure()) nvtx_record(LCAP_NVTX_POP, domain_id(d), 0, 0);
    return 0;
}

static nvtxDomainHandle_t NVTX_API h_dcreate_a(const char *name)
{
    /* The handle is our string id (never 0, so callers never see a NULL domain). */
    uint32_t id = msg_ascii(name ? name : "");
    return (nvtxDomainHandle_t)(uintptr_t)(id ? id : 0xffffffffu);
}

static nvtxStringHandle_t NVTX_API h_dregister_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    uint32_t id = msg_ascii(s);
    return (nvtxStringHandle_t)(uintptr_t)(id ? id : 0xffffffffu);
}

static void put(NvtxFunctionTable table, unsigned size, unsigned idx, NvtxFunctionPointer fn)
{
    if (table && idx < size && table[idx]) *table[idx] = fn;
}

static int nvtx_init(NvtxGetExportTableFunc_t get)
{
    if (!get || !inj_configure() || !inj_nvtx_wanted()) return 0;
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable) return 0;
    NvtxFunctionTable t = NULL;
    unsigned n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n)) {
        put(t, n, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)h_push_a);
        put(t, n, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)h_push_ex);
        put(t, n, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)h_pop);
        put(t, n, NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer)h_mark_a);
        put(t, n, NVTX_CBID_CORE_MarkEx, (NvtxFunctionPointer)h_mark_ex);
        put(t, n, NVTX_CBID_CORE_RangeStartA, (NvtxFunctionPointer)h_start_a);
        put(t, n, NVTX_CBID_CORE_RangeStartEx, (NvtxFunctionPointer)h_start_ex);
        put(t, n, NVTX_CBID_CORE_RangeEnd, (NvtxFunctionPointer)h_end);
        put(t, n, NVTX_CBID_CORE_NameOsThreadA, (NvtxFunctionPointer)h_name_thread_a);
    }
    t = NULL;
    n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) {
        put(t, n, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)h_dmark_ex);
        put(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, (NvtxFunctionPointer)h_dstart_ex);
        put(t, n, NVTX_CBID_CORE2_DomainRangeEnd, (NvtxFunctionPointer)h_dend);
        put(t, n, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)h_dpush_ex);
        put(t, n, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)h_dpop);
        put(t, n, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)h_dcreate_a);
        put(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)h_dregister_a);
    }
    lat__inj_nvtx_started();
    return 1;
}

LAT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    return nvtx_init(get);
}

/* The NVTX v2 loader's entry point: same export-table protocol. */
LAT_EXPORT int InitializeInjectionNvtx(NvtxGetExportTableFunc_t get);
int InitializeInjectionNvtx(NvtxGetExportTableFunc_t get)
{
    return nvtx_init(get);
}

#endif
