/*
 * perfring.h - perf_event_open ring buffers and record parsing for the CPU sampler.
 *
 * A ring is the mmap'ed area of one perf event: a control page followed by 2^n data pages.
 * perfring_next() copies the next record out (records wrap around the end of the data area)
 * and advances data_tail. perf_parse_sample() decodes a PERF_RECORD_SAMPLE for the
 * sample_type the sampler uses (PERF_SAMPLE_FMT below); perf_parse_id() reads the sample_id
 * trailer of other records. The parsers only read within the given length: they are run on
 * kernel output, but the unit tests and the fuzz target feed them arbitrary bytes.
 */
#ifndef LAT_CAPTURE_CPU_PERFRING_H
#define LAT_CAPTURE_CPU_PERFRING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* The sample_type of every sampler event (REGS_USER|STACK_USER added when unwinding). */
#define PERF_SAMPLE_FMT                                                                            \
    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                \
     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
/* Size of the sample_id trailer of non-sample records for PERF_SAMPLE_FMT (sample_id_all):
 * pid/tid, time, cpu/res, identifier. */
#define PERF_ID_TRAILER 32
#define PERF_MAX_REGS   24

struct perfring {
    void *base; /* control page + data */
    size_t data_size;
    size_t map_size;
    int fd;
};

/* A decoded sample. Pointers point into the record buffer given to perf_parse_sample(). */
struct perf_sample {
    uint64_t id, ip, time, period;
    uint32_t pid, tid, cpu;
    uint64_t nr;
    const uint64_t *ips;
    uint64_t abi; /* PERF_SAMPLE_REGS_ABI_*; 0 when the thread had no user regs */
    unsigned nregs;
    uint64_t regs[PERF_MAX_REGS];
    uint64_t stack_size; /* bytes valid at stack (dyn_size) */
    const uint8_t *stack;
};

/* The sample_id trailer of a non-sample record. */
struct perf_id {
    uint32_t pid, tid;
    uint64_t time, id;
};

/* Maps `pages` data pages (a power of two) of perf event fd. 0 or -errno. */
int perfring_map(struct perfring *r, int fd, unsigned pages);
void perfring_unmap(struct perfring *r);
/* Copies the next record into buf (cap bytes, at least 64 KiB is always enough) and consumes
 * it. Returns its size, 0 when the ring is empty, or LAT_E_TRUNCATED for a record that does not
 * fit or a corrupt header (the ring is then skipped to its head). */
int perfring_next(struct perfring *r, void *buf, size_t cap);
/* Same on a plain memory image of a ring (control fields given): for the unit tests. */
int perfring_read_at(const uint8_t *data, size_t data_size, uint64_t *tail, uint64_t head,
                     void *buf, size_t cap);

/* Decodes a PERF_RECORD_SAMPLE (including its header) of len bytes, produced with
 * sample_type and regs mask regs_mask. 0 or LAT_E_TRUNCATED. */
int perf_parse_sample(const void *rec, size_t len, uint64_t sample_type, uint64_t regs_mask,
                      struct perf_sample *s);
/* Reads the sample_id trailer (PERF_SAMPLE_FMT layout) of a non-sample record. */
int perf_parse_id(const void *rec, size_t len, struct perf_id *id);

#endif
