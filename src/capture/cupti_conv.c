/*
 * cupti_conv.c - CUPTI 13.0 activity records -> latscope capture records.
 *
 * One switch over CUpti_ActivityKind, reading each record through the struct version this
 * build was compiled against (Kernel10, Memcpy6, MemcpyPtoP4, Memset4, API, Synchronization2,
 * Overhead3, Device5, Context3, ExternalCorrelation, CudaEvent2), as capture.md §4 requires:
 * the injection library refuses to run when cuptiGetVersion() is older than the build.
 * Pointer fields (kernel and device names) are copied through ops->intern while the CUPTI buffer
 * is still alive; raw buffers are never stored. Runs inside CUPTI's buffer-completed callback:
 * no allocation here beyond what ops->intern does.
 */
#include "capture/cupti_conv.h"

#include <string.h>

#if LAT_HAVE_CUPTI
#include <cupti_activity.h>

bool cupti_conv_available(void)
{
    return true;
}

static uint32_t cc_intern(const struct cupti_conv_ops *ops, const char *s)
{
    return s && ops && ops->intern ? ops->intern(ops->ctx, s) : 0;
}

static void cc_kernel(const CUpti_ActivityKernel10 *k, const struct cupti_conv_ops *ops,
                      struct lcap_kernel *o)
{
    o->start = k->start;
    o->end = k->end;
    o->completed = k->completed;
    o->queued = k->queued;
    o->submitted = k->submitted;
    o->graph_node_id = k->graphNodeId;
    o->grid_id = k->gridId;
    o->device = k->deviceId;
    o->context = k->contextId;
    o->stream = k->streamId;
    o->correlation = k->correlationId;
    o->name = cc_intern(ops, k->name);
    o->graph_id = k->graphId;
    o->channel = k->channelID;
    o->channel_type = (uint32_t)k->channelType;
    o->grid[0] = k->gridX;
    o->grid[1] = k->gridY;
    o->grid[2] = k->gridZ;
    o->block[0] = k->blockX;
    o->block[1] = k->blockY;
    o->block[2] = k->blockZ;
    o->static_smem = k->staticSharedMemory;
    o->dynamic_smem = k->dynamicSharedMemory;
    o->local_mem_per_thread = k->localMemoryPerThread;
    o->registers = k->registersPerThread;
    o->launch_type = k->launchType;
    o->device_launched = k->isDeviceLaunched;
}

int cupti_conv_record(const void *record, const struct cupti_conv_ops *ops, union lcap_any *out,
                      uint32_t *size)
{
    const CUpti_Activity *r = record;
    memset(out, 0, sizeof(*out));
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        cc_kernel((const CUpti_ActivityKernel10 *)record, ops, &out->kernel);
        *size = sizeof(out->kernel);
        return LCAP_KERNEL;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
        const CUpti_ActivityAPI *a = record;
        struct lcap_api *o = &out->api;
        o->domain = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME  ? LCAP_API_RUNTIME
                    : r->kind == CUPTI_ACTIVITY_KIND_DRIVER ? LCAP_API_DRIVER
                                                            : LCAP_API_INTERNAL;
        o->start = a->start;
        o->end = a->end;
        o->cbid = a->cbid;
        o->pid = a->processId;
        o->tid = a->threadId;
        o->correlation = a->correlationId;
        o->ret = a->returnValue;
        o->name = ops && ops->api_name ? ops->api_name(ops->ctx, o->domain, a->cbid) : 0;
        *size = sizeof(*o);
        return LCAP_API;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = record;
        struct lcap_memcpy *o = &out->memcpy;
        o->start = m->start;
        o->end = m->end;
        o->bytes = m->bytes;
        o->copy_count = m->copyCount;
        o->graph_node_id = m->graphNodeId;
        o->device = m->deviceId;
        o->context = m->contextId;
        o->stream = m->streamId;
        o->correlation = m->correlationId;
        o->src_device = o->src_context = o->dst_device = o->dst_context = UINT32_MAX;
        o->graph_id = m->graphId;
        o->channel = m->channelID;
        o->copy_kind = m->copyKind;
        o->src_kind = m->srcKind;
        o->dst_kind = m->dstKind;
        o->flags = m->flags;
        *size = sizeof(*o);
        return LCAP_MEMCPY;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const CUpti_ActivityMemcpyPtoP4 *m = record;
        struct lcap_memcpy *o = &out->memcpy;
        o->start = m->start;
        o->end = m->end;
        o->bytes = m->bytes;
        o->graph_node_id = m->graphNodeId;
        o->device = m->deviceId;
        o->context = m->contextId;
        o->stream = m->streamId;
        o->correlation = m->correlationId;
        o->src_device = m->srcDeviceId;
        o->src_context = m->srcContextId;
        o->dst_device = m->dstDeviceId;
        o->dst_context = m->dstContextId;
        o->graph_id = m->graphId;
        o->channel = m->channelID;
        o->copy_kind = m->copyKind;
        o->src_kind = m->srcKind;
        o->dst_kind = m->dstKind;
        o->flags = m->flags;
        o->p2p = 1;
        *size = sizeof(*o);
        return LCAP_MEMCPY;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = record;
        struct lcap_memset *o = &out->memset;
        o->start = m->start;
        o->end = m->end;
        o->bytes = m->bytes;
        o->graph_node_id = m->graphNodeId;
        o->device = m->deviceId;
        o->context = m->contextId;
        o->stream = m->streamId;
        o->correlation = m->correlationId;
        o->value = m->value;
        o->graph_id = m->graphId;
        o->channel = m->channelID;
        o->mem_kind = m->memoryKind;
        o->flags = m->flags;
        *size = sizeof(*o);
        return LCAP_MEMSET;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = record;
        struct lcap_cudasync *o = &out->sync;
        o->start = s->start;
        o->end = s->end;
        o->type = (uint32_t)s->type;
        o->correlation = s->correlationId;
        o->context = s->contextId;
        o->stream = s->streamId;
        o->event = s->cudaEventId;
        o->ret = s->returnValue;
        *size = sizeof(*o);
        return LCAP_CUDASYNC;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const CUpti_ActivityOverhead3 *v = record;
        struct lcap_overhead *o = &out->overhead;
        o->start = v->start;
        o->end = v->end;
        o->kind = (uint32_t)v->overheadKind;
        o->object_kind = (uint32_t)v->objectKind;
        if (v->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS ||
            v->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
            o->object_a = v->objectId.pt.processId;
            o->object_b = v->objectId.pt.threadId;
        } else {
            o->object_a = v->objectId.dcs.deviceId;
            o->object_b = v->objectId.dcs.contextId;
            o->object_c = v->objectId.dcs.streamId;
        }
        o->correlation = v->correlationId;
        *size = sizeof(*o);
        return LCAP_OVERHEAD;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        const CUpti_ActivityDevice5 *d = record;
        struct lcap_device *o = &out->device;
        o->global_mem = (int64_t)d->globalMemorySize;
        o->id = d->id;
        o->name = cc_intern(ops, d->name);
        o->cc_major = (int32_t)d->computeCapabilityMajor;
        o->cc_minor = (int32_t)d->computeCapabilityMinor;
        o->num_sms = (int32_t)d->numMultiprocessors;
        o->max_threads_per_block = (int32_t)d->maxThreadsPerBlock;
        o->max_warps_per_sm = (int32_t)d->maxWarpsPerMultiprocessor;
        o->max_blocks_per_sm = (int32_t)d->maxBlocksPerMultiprocessor;
        o->regs_per_block = (int32_t)d->maxRegistersPerBlock;
        o->regs_per_sm = (int32_t)d->maxRegistersPerMultiprocessor;
        o->warp_size = (int32_t)d->numThreadsPerWarp;
        o->smem_per_block = (int32_t)d->maxSharedMemoryPerBlock;
        o->smem_per_sm = (int32_t)d->maxSharedMemoryPerMultiprocessor;
        *size = sizeof(*o);
        return LCAP_DEVICE;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const CUpti_ActivityContext3 *c = record;
        out->context.context = c->contextId;
        out->context.device = c->deviceId;
        out->context.null_stream = c->nullStreamId;
        *size = sizeof(out->context);
        return LCAP_CONTEXT;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = record;
        out->extcorr.external_id = e->externalId;
        out->extcorr.kind = (uint32_t)e->externalKind;
        out->extcorr.correlation = e->correlationId;
        *size = sizeof(out->extcorr);
        return LCAP_EXTCORR;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const CUpti_ActivityCudaEvent2 *e = record;
        out->cudaevent.device_ts = e->deviceTimestamp;
        out->cudaevent.correlation = e->correlationId;
        out->cudaevent.context = e->contextId;
        out->cudaevent.stream = e->streamId;
        out->cudaevent.event = e->eventId;
        *size = sizeof(out->cudaevent);
        return LCAP_CUDAEVENT;
    }
    default:
        return 0;
    }
}

#else

bool cupti_conv_available(void)
{
    return false;
}

int cupti_conv_record(const void *record, const struct cupti_conv_ops *ops, union lcap_any *out,
                      uint32_t *size)
{
    (void)record;
    (void)ops;
    memset(out, 0, sizeof(*out));
    *size = 0;
    return 0;
}

#endif

size_t cupti_conv_strip_version(const char *name)
{
    size_t n = strlen(name);
    size_t i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i < n && i >= 2 && name[i - 1] == 'v' && name[i - 2] == '_') return i - 2;
    return n;
}
