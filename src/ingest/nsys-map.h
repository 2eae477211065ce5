/*
 * nsys-map.h - the rows -> model half of the Nsight Systems SQLite reader (nsys.c reads the
 * tables; this maps one row at a time into a struct lat_trace). Separate from SQLite so the
 * mapping is unit-tested and fuzzed (tests/fuzz/fuzz-nsys-map.c) without a database, and
 * compiled in builds without libsqlite3. Internal to src/ingest/.
 *
 * Mapping (docs/trace-input.md, "Nsight Systems"): times are the export's integer ns from the
 * session start; GPU rows go on the track (pid = deviceId, tid = streamId), CPU rows on
 * (pid, tid) unpacked from globalTid (pid = (gtid >> 24) & 0xFFFFFF, tid = gtid & 0xFFFFFF);
 * names, categories and args are the ones the Kineto reader produces for the same activity,
 * so the analyses and doctor's rules read both alike.
 */
#ifndef LAT_INGEST_NSYS_MAP_H
#define LAT_INGEST_NSYS_MAP_H

#include "model/events.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum nsys_tab {
    NSYS_KERNEL = 0, /* CUPTI_ACTIVITY_KIND_KERNEL */
    NSYS_RUNTIME,    /* CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver, eventClass apart) */
    NSYS_MEMCPY,     /* CUPTI_ACTIVITY_KIND_MEMCPY */
    NSYS_MEMSET,     /* CUPTI_ACTIVITY_KIND_MEMSET */
    NSYS_SYNC,       /* CUPTI_ACTIVITY_KIND_SYNCHRONIZATION */
    NSYS_NVTX,       /* NVTX_EVENTS */
    NSYS_OSRT,       /* OSRT_API */
    NSYS_TAB_COUNT
};

#define NSYS_NONE INT64_MIN /* a NULL column */

/* One row of one of the tables above; columns a table lacks are NSYS_NONE. */
struct nsys_row {
    enum nsys_tab tab;
    int64_t start, end;
    int64_t device, stream, correlation;
    int64_t gtid;        /* globalTid (CPU rows) or globalPid (GPU rows) */
    int64_t event_class; /* RUNTIME: 0 runtime, 1 driver, 67 a backtrace record (skipped) */
    int64_t event_type;  /* NVTX: ENUM_NSYS_EVENT_TYPE (34 mark, 59 push/pop, 60 start/end) */
    int64_t domain;      /* NVTX domainId */
    int64_t bytes, copy_kind, src_kind, dst_kind, mem_kind, sync_type;
    int64_t grid[3], block[3], regs, smem;
    const char *name; /* the resolved name (StringIds or NVTX text), NULL when none */
    size_t name_len;
};

struct nsys_named {
    int64_t key;
    uint32_t name;
};

/* The export's ENUM_* tables (nsys >= 2021: id, name = the CUPTI/nsys symbol, label) that name
 * the numbers of the rows; schema 2.x has none and the built-in tables (the 2024.5 values)
 * stand in. A value is matched to the built-in one by its symbol, never by its number: a
 * renumbered value keeps its meaning, one the built-in table lacks is shown by its label. */
enum nsys_enum {
    NSYS_ENUM_MEMCPY = 0, /* ENUM_CUDA_MEMCPY_OPER: MEMCPY copyKind */
    NSYS_ENUM_MEMKIND,    /* ENUM_CUDA_MEM_KIND: MEMCPY srcKind/dstKind, MEMSET memKind */
    NSYS_ENUM_SYNC,       /* ENUM_CUPTI_SYNC_TYPE: SYNCHRONIZATION syncType */
    NSYS_ENUM_CLASS,      /* ENUM_NSYS_EVENT_CLASS: RUNTIME eventClass (runtime/driver) */
    NSYS_ENUM_ETYPE,      /* ENUM_NSYS_EVENT_TYPE: NVTX eventType (mark/range/domain) */
    NSYS_ENUM_COUNT
};
/* The table name of each (ENUM_CUDA_MEMCPY_OPER, ...). */
extern const char *const nsys_enum_table[NSYS_ENUM_COUNT];

struct nsys_enum_val {
    int64_t id;
    int16_t builtin; /* index into the built-in table, -1 when it has no such symbol */
    uint32_t label;  /* the export's label (interned), 0 when none */
};

struct nsys_enum_map {
    struct nsys_enum_val *v;
    size_t n, cap;
    uint8_t direct[256]; /* id 0..255 -> index into v + 1 */
};

struct nsys_map {
    struct lat_trace *t;
    uint32_t cat[NSYS_TAB_COUNT + 2]; /* + cuda_driver, nvtx mark */
    uint32_t k_bytes, k_device, k_stream, k_corr, k_grid, k_block, k_regs, k_smem, k_domain,
        k_value;
    struct nsys_named *threads, *procs, *domains;
    size_t nthreads, nprocs, ndomains, cthreads, cprocs, cdomains;
    uint64_t rows_in[NSYS_TAB_COUNT];
    uint64_t backtrace_rows; /* RUNTIME rows of a CUDA backtrace class (67..69), skipped */
    struct lat_cpu_ids cpu;  /* CPU samples' ids, interned at the first (cpu_ids) */
    bool cpu_ids;
    struct nsys_enum_map en[NSYS_ENUM_COUNT]; /* from the export; n == 0: built-in */
    /* what the export's ENUM tables said against the built-in ones: values whose symbol has
     * another number here (differ) */
    uint64_t enum_differ;
    unsigned enum_differ_mask; /* bit w: table w differs */
    bool no_enum_meta; /* set by a reader without ENUM tables (nsys-csv.c): no "nsys_enums" */
    char enum_first_differ[160]; /* "ENUM_X: SYMBOL = 3 (built-in 2)", "" when none */
};

void nsys_row_clear(struct nsys_row *r, enum nsys_tab tab);
int nsys_map_init(struct nsys_map *m, struct lat_trace *t);
/* Maps one row into m->t: an event, or a counted drop (times out of the model's bounds, end
 * before start). NVTX rows that are not ranges or marks (domain/category definitions) and
 * RUNTIME rows of a CUDA backtrace class (the call has its own row) are not events: the latter
 * are counted in m->backtrace_rows (metadata "nsys_backtrace_rows_skipped"). 0 or -ENOMEM. */
int nsys_map_row(struct nsys_map *m, const struct nsys_row *r);
/* Names: a thread (globalTid), a process (globalPid, or any gid of the process), an NVTX
 * domain (domainId). 0 or -ENOMEM. */
int nsys_map_thread(struct nsys_map *m, int64_t gtid, const char *name, size_t n);
int nsys_map_process(struct nsys_map *m, int64_t gpid, const char *name, size_t n);
int nsys_map_domain(struct nsys_map *m, int64_t domain, const char *name, size_t n);
/* One CPU sample (COMPOSITE_EVENTS row, its SAMPLING_CALLCHAINS frames joined root-first with
 * ';', "[unknown]" when it has none) as `latscope trace --cpu` records one: an on-CPU
 * LAT_EV_CPU_SAMPLE instant named after its leaf frame, args stack and state "on", on the
 * thread's track. A start beyond the model's bounds is a counted drop. 0 or -ENOMEM. */
int nsys_map_sample(struct nsys_map *m, int64_t start, int64_t gtid, const char *stack, size_t n);
/* One row of ENUM table `which` (id, its symbol `name`, its `label`); 0 or -ENOMEM. Call before
 * the rows. A table with no usable row leaves the built-in one in force. */
int nsys_map_enum(struct nsys_map *m, enum nsys_enum which, int64_t id, const char *sym,
                  size_t symlen, const char *label, size_t labellen);
/* The export's number of symbol sym of ENUM `which` (the built-in number without the table, or
 * when the table lacks it); NSYS_NONE when neither knows it. */
int64_t nsys_map_enum_id(const struct nsys_map *m, enum nsys_enum which, const char *sym);
/* Sets t->format; labels the tracks with the names given; metadata "nsys_enums" (where the
 * names of the numbers came from, see docs/trace-input.md). 0 or -ENOMEM. */
int nsys_map_finish(struct nsys_map *m);
void nsys_map_fini(struct nsys_map *m);

/* "cudaLaunchKernel_v7000" -> length of "cudaLaunchKernel": nsys appends _v + the API version
 * (4 or more digits) to CUDA runtime names; "cuMemcpyHtoD_v2" (a real driver symbol) stays. */
size_t nsys_api_name_len(const char *s, size_t n);

#endif
