/*
 * fuzz-nsys-map.c - libFuzzer target for the Nsight Systems rows -> model mapping
 * (src/ingest/nsys-map.c), the part of the nsys reader that sees the file's values. (The file
 * level, SQLite's own parsing of a hostile database, is fuzz-nsys.c.)
 *
 * The input is a list of records: one byte picks the table (or a thread/process/domain name),
 * or an ENUM_* row), then every column is NULL, a small number, an edge value (INT64_MIN/MAX,
 * the model's time bounds, 0xFFFFFFFF) or 8 raw bytes, then a name of up to 63 bytes (an ENUM
 * row: its symbol; "#k" picks the k-th symbol latscope knows, so renumbered tables are
 * reached). After the rows: every event holds the model's bounds, and every row is an event or
 * a counted drop.
 */
#include "ingest/nsys-map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd {
    const uint8_t *p;
    size_t n;
};

static uint8_t byte(struct rd *r)
{
    if (!r->n) return 0;
    r->n--;
    return *r->p++;
}

static int64_t value(struct rd *r)
{
    static const int64_t edge[] = {INT64_MIN + 1,
                                   INT64_MAX,
                                   LAT_TS_MIN,
                                   LAT_TS_MAX,
                                   LAT_DUR_MAX,
                                   0xFFFFFFFFll,
                                   -1,
                                   0,
                                   INT32_MAX,
                                   (int64_t)1 << 48,
                                   LAT_TS_MAX + 1,
                                   34,
                                   59,
                                   60,
                                   75,
                                   1};
    uint8_t s = byte(r);
    switch (s & 3) {
    case 0:
        return NSYS_NONE;
    case 1:
        return s >> 2;
    case 2:
        return edge[(s >> 2) & 15];
    default: {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | byte(r);
        return (int64_t)v;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rd r = {data, size};
    struct lat_trace *t;
    struct nsys_map m;
    if (lat_trace_new(&t)) return 0;
    if (nsys_map_init(&m, t)) {
        lat_trace_free(t);
        return 0;
    }
    uint64_t rows = 0, meta = 0;
    char name[64];
    while (r.n) {
        uint8_t sel = byte(&r) % (NSYS_TAB_COUNT + 4);
        struct nsys_row row;
        nsys_row_clear(&row, (enum nsys_tab)(sel < NSYS_TAB_COUNT ? sel : 0));
        int64_t *cols[] = {&row.start,       &row.end,      &row.device,      &row.stream,
                           &row.correlation, &row.gtid,     &row.event_class, &row.event_type,
                           &row.domain,      &row.bytes,    &row.copy_kind,   &row.src_kind,
                           &row.dst_kind,    &row.mem_kind, &row.sync_type,   &row.grid[0],
                           &row.grid[1],     &row.grid[2],  &row.block[0],    &row.block[1],
                           &row.block[2],    &row.regs,     &row.smem};
        for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
            *cols[i] = value(&r);
        size_t nl = byte(&r) & 63;
        for (size_t i = 0; i < nl; i++)
            name[i] = (char)byte(&r);
        int rc = 0;
        if (sel < NSYS_TAB_COUNT) {
            row.name = nl ? name : NULL;
            row.name_len = nl;
            uint64_t before = t->ev.n + t->dropped, bt = m.backtrace_rows;
            rc = nsys_map_row(&m, &row);
            if (!rc) {
                uint64_t after = t->ev.n + t->dropped;
                /* a runtime row of the backtrace event class is counted apart (the call has its
                 * own row): neither an event nor a drop (the campaign of 2026-12-03 found this
                 * check without it) */
                bool backtrace = sel == NSYS_RUNTIME && m.backtrace_rows == bt + 1;
                if (after == before)
                    meta++; /* NVTX metadata rows and runtime backtrace rows only */
                else if (after != before + 1 || backtrace)
                    abort();
                if (after == before && sel != NSYS_NVTX && !backtrace) abort();
            }
            rows++;
        } else if (sel == NSYS_TAB_COUNT) {
            rc = nsys_map_thread(&m, row.gtid, name, nl);
        } else if (sel == NSYS_TAB_COUNT + 1) {
            rc = nsys_map_process(&m, row.gtid, name, nl);
        } else if (sel == NSYS_TAB_COUNT + 3) {
            static const char *const syms[] = {
                "CUDA_MEMCPY_KIND_HTOD",
                "CUDA_MEMCPY_KIND_DTOH",
                "CUDA_MEMOPR_MEMORY_KIND_DEVICE",
                "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE",
                "TRACE_PROCESS_EVENT_CUDA_DRIVER",
                "TRACE_PROCESS_EVENT_CUDA_RUNTIME",
                "NvtxMark",
                "NvtxPushPopRange",
                "NvtxDomainCreate"};
            const char *sym = name;
            size_t sl = nl;
            if (nl >= 2 && name[0] == '#') {
                sym = syms[(uint8_t)name[1] % (sizeof(syms) / sizeof(syms[0]))];
                sl = strlen(sym);
            }
            uint64_t w = (uint64_t)row.event_class % NSYS_ENUM_COUNT;
            rc = nsys_map_enum(&m, (enum nsys_enum)w, row.event_type, sym, sl, name, nl / 2);
        } else {
            rc = nsys_map_domain(&m, row.domain, name, nl);
        }
        if (rc) break; /* out of memory */
    }
    if (nsys_map_finish(&m) == 0) {
        /* the metadata it adds is JSON without escapes (symbols are filtered) */
        const struct lat_meta *mt = &t->meta[t->nmeta - 1];
        const char *v = lat_trace_str(t, mt->value);
        if (v[0] != '{' || strchr(v, '\\')) abort();
    }
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.ts[i] < LAT_TS_MIN || t->ev.ts[i] > LAT_TS_MAX) abort();
        if (t->ev.dur[i] < 0 || t->ev.dur[i] > LAT_DUR_MAX) abort();
        if (t->ev.track[i] >= t->ntracks) abort();
        if (t->ev.nargs[i] && (size_t)t->ev.args[i] + t->ev.nargs[i] > t->nargs) abort();
        (void)lat_trace_str(t, t->ev.name[i]);
    }
    nsys_map_fini(&m);
    lat_trace_free(t);
    return 0;
}
