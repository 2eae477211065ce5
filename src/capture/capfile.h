/*
 * capfile.h - the per-process capture file written by liblatscope-cupti.so (ABI).
 *
 * One file per process, `<LATSCOPE_TRACE_DIR>/cuda.<pid>.lcap`, read back by collect.c.
 * Layout (little-endian, the host's; latscope captures only on x86_64 and aarch64):
 *
 *   magic "LATSCAP1" (8 bytes)
 *   records: struct lcap_rec_hdr {u16 type; u16 version; u32 size} + `size` payload bytes,
 *            padded with zeros to a multiple of 8.
 *
 * Payloads are the fixed-width structs below. A reader copies min(size, sizeof(struct)) bytes
 * and zero-fills the rest, so later versions may append fields; unknown types are skipped. A
 * file cut short by a crash or os._exit() ends at the last complete record: the reader keeps
 * everything before it and reports the truncation.
 *
 * Times: CUPTI activity records keep CUPTI's raw timestamps (`cupti_ns`, CLOCK_REALTIME-based
 * on Linux with CUDA 13.0); LCAP_SYNC records pair them with CLOCK_MONOTONIC and the reader
 * converts (clocksync.h). NVTX records and sync records are CLOCK_MONOTONIC ns already.
 * Strings (kernel names, API names, NVTX messages) are LCAP_STR records defined before use and
 * referenced by id (id 0 = no string).
 */
#ifndef LAT_CAPTURE_CAPFILE_H
#define LAT_CAPTURE_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

#define LCAP_MAGIC     "LATSCAP1"
#define LCAP_MAGIC_LEN 8
#define LCAP_VERSION   1

enum lcap_type {
    LCAP_PROC = 1,      /* struct lcap_proc: once, first */
    LCAP_STR = 2,       /* struct lcap_str + len bytes */
    LCAP_SYNC = 3,      /* struct lcap_sync: clock pair */
    LCAP_API = 4,       /* struct lcap_api: runtime / driver API call */
    LCAP_KERNEL = 5,    /* struct lcap_kernel */
    LCAP_MEMCPY = 6,    /* struct lcap_memcpy (also peer-to-peer) */
    LCAP_MEMSET = 7,    /* struct lcap_memset */
    LCAP_CUDASYNC = 8,  /* struct lcap_cudasync: stream/event/context synchronisation */
    LCAP_OVERHEAD = 9,  /* struct lcap_overhead */
    LCAP_DEVICE = 10,   /* struct lcap_device */
    LCAP_CONTEXT = 11,  /* struct lcap_context */
    LCAP_NVTX = 12,     /* struct lcap_nvtx */
    LCAP_STATUS = 13,   /* struct lcap_status: a state change or error, with a message */
    LCAP_FOOTER = 14,   /* struct lcap_footer: counters, written at every flush */
    LCAP_EXTCORR = 15,  /* struct lcap_extcorr */
    LCAP_CUDAEVENT = 16 /* struct lcap_cudaevent */
};

struct lcap_rec_hdr {
    uint16_t type, version;
    uint32_t size;
};

struct lcap_proc {
    uint32_t pid, ppid;
    uint32_t cupti_build;   /* CUPTI_API_VERSION at build, 0 without CUPTI */
    uint32_t cupti_runtime; /* cuptiGetVersion(), 0 when unknown */
    int64_t mono_ns, realtime_ns;
    uint32_t comm; /* string id: /proc/self/comm */
    uint32_t flags;
};

struct lcap_str {
    uint32_t id, len; /* followed by len bytes, no NUL */
};

struct lcap_sync {
    int64_t mono_ns;     /* midpoint of the two CLOCK_MONOTONIC reads */
    uint64_t cupti_ns;   /* cuptiGetTimestamp(), 0 when CUPTI is unusable */
    int64_t realtime_ns; /* CLOCK_REALTIME */
    int64_t gap_ns;      /* width of the smallest MONOTONIC bracket */
};

enum lcap_api_domain { LCAP_API_RUNTIME = 0, LCAP_API_DRIVER = 1, LCAP_API_INTERNAL = 2 };

struct lcap_api {
    uint64_t start, end; /* cupti_ns */
    uint32_t cbid, pid, tid, correlation, ret;
    uint32_t name; /* string id of the function name */
    uint32_t domain;
    uint32_t pad;
};

struct lcap_kernel {
    uint64_t start, end, completed, queued, submitted; /* cupti_ns, 0 = not collected */
    uint64_t graph_node_id;
    int64_t grid_id;
    uint32_t device, context, stream, correlation;
    uint32_t name, graph_id, channel, channel_type;
    int32_t grid[3], block[3];
    int32_t static_smem, dynamic_smem;
    uint32_t local_mem_per_thread;
    uint16_t registers;
    uint8_t launch_type, device_launched;
};

struct lcap_memcpy {
    uint64_t start, end, bytes, copy_count;
    uint64_t graph_node_id;
    uint32_t device, context, stream, correlation;
    uint32_t src_device, src_context, dst_device, dst_context; /* peer-to-peer; else UINT32_MAX */
    uint32_t graph_id, channel;
    uint8_t copy_kind, src_kind, dst_kind, flags;
    uint8_t p2p, pad[3];
};

struct lcap_memset {
    uint64_t start, end, bytes;
    uint64_t graph_node_id;
    uint32_t device, context, stream, correlation;
    uint32_t value, graph_id, channel;
    uint16_t mem_kind, flags;
};

struct lcap_cudasync {
    uint64_t start, end;
    uint32_t type; /* CUpti_ActivitySynchronizationType */
    uint32_t correlation, context, stream, event;
    uint32_t ret;
};

struct lcap_overhead {
    uint64_t start, end;
    uint32_t kind, object_kind;
    uint32_t object_a, object_b, object_c; /* pid,tid or device,context,stream */
    uint32_t correlation;
};

struct lcap_device {
    int64_t global_mem;
    uint32_t id, name;
    int32_t cc_major, cc_minor, num_sms;
    int32_t max_threads_per_block, max_warps_per_sm, max_blocks_per_sm;
    int32_t regs_per_block, regs_per_sm, warp_size;
    int32_t smem_per_block, smem_per_sm;
    int32_t pad;
};

struct lcap_context {
    uint32_t context, device, null_stream, pad;
};

enum lcap_nvtx_op {
    LCAP_NVTX_PUSH = 1,
    LCAP_NVTX_POP = 2,
    LCAP_NVTX_MARK = 3,
    LCAP_NVTX_START = 4, /* range_id = latscope's own id */
    LCAP_NVTX_END = 5,
    LCAP_NVTX_THREAD_NAME = 6, /* tid = named thread, msg = name */
};

struct lcap_nvtx {
    int64_t ts; /* CLOCK_MONOTONIC ns */
    uint64_t range_id;
    uint32_t tid, op, domain, msg;
};

enum lcap_status_code {
    LCAP_ST_INFO = 0,
    LCAP_ST_DISABLED = 1,  /* capture turned itself off: msg says why */
    LCAP_ST_BUSY = 2,      /* another CUPTI subscriber (torch.profiler, nsys) */
    LCAP_ST_NO_CUPTI = 3,  /* libcupti could not be loaded */
    LCAP_ST_SIGNAL = 4,    /* flushed from a signal handler */
    LCAP_ST_FORKED = 5,    /* this file belongs to a forked child: no CUDA capture */
    LCAP_ST_CUPTI_ERR = 6, /* one CUPTI call failed (msg names it); capture continues */
};

struct lcap_status {
    int32_t code, cupti_rc;
    int64_t mono_ns;
    uint32_t msg, pad;
};

struct lcap_footer {
    uint64_t records;       /* CUPTI records converted */
    uint64_t cupti_dropped; /* cuptiActivityGetNumDroppedRecords */
    uint64_t lost_records;  /* records latscope could not store (buffer exhausted, bad kind) */
    uint64_t nvtx_events;   /* NVTX events stored */
    uint64_t nvtx_lost;     /* NVTX events lost (writer busy in a signal, full buffer) */
    uint64_t buffers;       /* CUPTI buffers completed */
    uint64_t gated;         /* records outside the --delay/--duration window */
    int64_t self_ns;        /* time spent in latscope's buffer callbacks */
    int64_t mono_ns;        /* when it was written */
    uint64_t bytes;         /* bytes written so far */
};

struct lcap_extcorr {
    uint64_t external_id;
    uint32_t kind, correlation;
};

struct lcap_cudaevent {
    uint64_t device_ts;
    uint32_t correlation, context, stream, event;
};

/* Bytes a record with `payload` bytes occupies in the file (header + padding). */
static inline size_t lcap_rec_size(size_t payload)
{
    return sizeof(struct lcap_rec_hdr) + ((payload + 7) & ~(size_t)7);
}

/*
 * Encodes one record (header, p[0..n), q[0..m), zero padding) into dst[0..cap).
 * q may be NULL (m = 0); it carries a string's bytes after struct lcap_str.
 * Returns the bytes written, or 0 when it does not fit. Async-signal-safe (no allocation).
 */
size_t lcap_encode(void *dst, size_t cap, uint16_t type, const void *p, size_t n, const void *q,
                   size_t m);

/* Iterator over an in-memory capture file. */
struct lcap_iter {
    const uint8_t *data;
    size_t len, off;
    int truncated; /* set when the data ends inside a record */
};

/* Checks the magic; returns 0 or LAT_E_NOT_TRACE. */
int lcap_iter_init(struct lcap_iter *it, const void *data, size_t len);
/*
 * Next record: *type, *payload (points into the data), *size. Returns 1, 0 at the end, or 0
 * with it->truncated set when the last record is incomplete or its size is impossible.
 */
int lcap_iter_next(struct lcap_iter *it, uint16_t *type, const void **payload, uint32_t *size);
/* Copies min(size, n) payload bytes into out and zero-fills the rest of n. */
void lcap_payload(void *out, size_t n, const void *payload, uint32_t size);

#endif
