/*
 * perfring.c - perf ring buffers and record decoding (see perfring.h).
 *
 * The kernel writes records at data_head; we read data_head with acquire semantics, copy the
 * records out, and publish data_tail with release semantics so the kernel may reuse the space
 * (tools/perf's ring_buffer_read_head/write_tail pattern, written here from the ABI in
 * linux/perf_event.h). Records are copied into a caller buffer rather than parsed in place so
 * one that wraps around the end of the data area needs no special case in the parsers.
 * Threading: one reader per ring.
 */
#include "capture/cpu/perfring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/err.h"

int perfring_map(struct perfring *r, int fd, unsigned pages)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t sz = (size_t)(pages + 1) * (size_t)pg;
    void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return -errno;
    r->base = p;
    r->map_size = sz;
    r->data_size = (size_t)pages * (size_t)pg;
    r->fd = fd;
    return 0;
}

void perfring_unmap(struct perfring *r)
{
    if (r->base) munmap(r->base, r->map_size);
    r->base = NULL;
}

int perfring_read_at(const uint8_t *data, size_t data_size, uint64_t *tail, uint64_t head,
                     void *buf, size_t cap)
{
    struct perf_event_header h;
    uint64_t t = *tail;
    if (head == t) return 0;
    if (head - t < sizeof(h) || head - t > data_size) goto corrupt;
    size_t off = (size_t)(t & (data_size - 1));
    size_t first = data_size - off;
    uint8_t *out = buf;
    if (first >= sizeof(h)) {
        memcpy(&h, data + off, sizeof(h));
    } else {
        memcpy(&h, data + off, first);
        memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
    }
    if (h.size < sizeof(h) || h.size > head - t || h.size > cap) goto corrupt;
    if (first >= h.size) {
        memcpy(out, data + off, h.size);
    } else {
        memcpy(out, data + off, first);
        memcpy(out + first, data, h.size - first);
    }
    *tail = t + h.size;
    return h.size;
corrupt:
    *tail = head;
    return LAT_E_TRUNCATED;
}

int perfring_next(struct perfring *r, void *buf, size_t cap)
{
    struct perf_event_mmap_page *pc = r->base;
    uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pc->data_tail;
    const uint8_t *data = (const uint8_t *)r->base + pc->data_offset;
    if (pc->data_offset == 0) data = (const uint8_t *)r->base + sysconf(_SC_PAGESIZE);
    int n = perfring_read_at(data, r->data_size, &tail, head, buf, cap);
    if (n != 0) __atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
    return n;
}

/* A bounded reader over one record. */
struct rd {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t rd_u64(struct rd *r)
{
    uint64_t v = 0;
    if (r->end - r->p < 8) {
        r->bad = 1;
        r->p = r->end;
        return 0;
    }
    memcpy(&v, r->p, 8);
    r->p += 8;
    return v;
}

static void rd_u32x2(struct rd *r, uint32_t *a, uint32_t *b)
{
    uint64_t v = rd_u64(r);
    *a = (uint32_t)v;
    *b = (uint32_t)(v >> 32);
}

int perf_parse_sample(const void *rec, size_t len, uint64_t st, uint64_t regs_mask,
                      struct perf_sample *s)
{
    struct rd r = {(const uint8_t *)rec, (const uint8_t *)rec + len, 0};
    uint32_t dummy;
    memset(s, 0, sizeof(*s));
    if (len < sizeof(struct perf_event_header)) return LAT_E_TRUNCATED;
    r.p += sizeof(struct perf_event_header);
    if (st & PERF_SAMPLE_IDENTIFIER) s->id = rd_u64(&r);
    if (st & PERF_SAMPLE_IP) s->ip = rd_u64(&r);
    if (st & PERF_SAMPLE_TID) rd_u32x2(&r, &s->pid, &s->tid);
    if (st & PERF_SAMPLE_TIME) s->time = rd_u64(&r);
    if (st & PERF_SAMPLE_ADDR) rd_u64(&r);
    if (st & PERF_SAMPLE_ID) s->id = rd_u64(&r);
    if (st & PERF_SAMPLE_STREAM_ID) rd_u64(&r);
    if (st & PERF_SAMPLE_CPU) rd_u32x2(&r, &s->cpu, &dummy);
    if (st & PERF_SAMPLE_PERIOD) s->period = rd_u64(&r);
    if (st & PERF_SAMPLE_CALLCHAIN) {
        s->nr = rd_u64(&r);
        if (r.bad || s->nr > (uint64_t)(r.end - r.p) / 8) return LAT_E_TRUNCATED;
        s->ips = (const uint64_t *)(const void *)r.p;
        r.p += s->nr * 8;
    }
    if (st & PERF_SAMPLE_REGS_USER) {
        s->abi = rd_u64(&r);
        if (s->abi) {
            for (unsigned b = 0; b < 64; b++) {
                if (!(regs_mask & (1ull << b))) continue;
                uint64_t v = rd_u64(&r);
                if (b < PERF_MAX_REGS) s->regs[b] = v;
            }
            s->nregs = PERF_MAX_REGS;
        }
    }
    if (st & PERF_SAMPLE_STACK_USER) {
        uint64_t size = rd_u64(&r);
        if (size) {
            if (r.bad || size > (uint64_t)(r.end - r.p)) return LAT_E_TRUNCATED;
            const uint8_t *data = r.p;
            r.p += size;
            uint64_t dyn = rd_u64(&r);
            s->stack = data;
            s->stack_size = dyn < size ? dyn : size;
        }
    }
    return r.bad ? LAT_E_TRUNCATED : 0;
}

int perf_parse_id(const void *rec, size_t len, struct perf_id *id)
{
    if (len < sizeof(struct perf_event_header) + PERF_ID_TRAILER) return LAT_E_TRUNCATED;
    struct rd r = {(const uint8_t *)rec + len - PERF_ID_TRAILER, (const uint8_t *)rec + len, 0};
    uint32_t cpu, res;
    rd_u32x2(&r, &id->pid, &id->tid);
    id->time = rd_u64(&r);
    rd_u32x2(&r, &cpu, &res);
    id->id = rd_u64(&r);
    return 0;
}
