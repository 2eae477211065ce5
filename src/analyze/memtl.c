/*
 * memtl.c - the memory timeline (issue 20 §2, analyses.md §9/§18).
 *
 * 1. From the trace: the `[memory]` instants torch.profiler writes with profile_memory=True
 *    (args Device Type, Device Id, Bytes (+ allocation, - free), Total Allocated, Total
 *    Reserved), per device: allocations, frees, bytes, the peak of Total Allocated and when it
 *    happened, the peak of Total Reserved, the allocated bytes at the first and the last
 *    record; per (device, op): the allocations made while that op was the innermost cpu_op of
 *    the record's thread (the op that allocated), their bytes and the frees. With
 *    analysis_opts.counters the Total Allocated series per device becomes a counter track of
 *    --write-trace ("Memory Allocated", one id per device).
 * 2. torch's export_memory_timeline raw file (`memory_timeline.raw.gz`: a JSON list of
 *    [time, action, bytes, category]), folded exactly as HTA's MemoryAnalysis
 *    _process_raw_events (hta/memory_analysis.py at f4d0062c): a new point at each new time,
 *    each row adds its bytes to its category (8: Parameter, Optimizer state, Input, Temporary,
 *    Activation, Gradient, Autograd, Unknown), negative times become the smallest positive one.
 * 3. That raw file's report (`analyze --memory-timeline RAW`): JSON and text.
 */
#include "analyze/memtl.h"
#include "analyze/internal.h"
#include "core/err.h"
#include "core/features.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/units.h"

#include <stdio.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. [memory] instants ------------------------------------------------------------------ */

struct mt_rec {
    int64_t dtype, did;
    lat_ns ts;
    int64_t bytes, total, reserved;
    bool has_total, has_reserved;
    uint32_t track, row;
    uint32_t op; /* string id of the innermost op, 0 none */
};

static int mt_rec_cmp(const void *a, const void *b)
{
    const struct mt_rec *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int mt_rec_dev_cmp(const void *a, const void *b)
{
    const struct mt_rec *x = a, *y = b;
    if (x->dtype != y->dtype) return x->dtype < y->dtype ? -1 : 1;
    if (x->did != y->did) return x->did < y->did ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

struct mt_op {
    uint32_t track, row;
    lat_ns ts, end;
};

static int mt_op_cmp(const void *a, const void *b)
{
    const struct mt_op *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* outer first */
    return x->row < y->row ? -1 : x->row > y->row;
}

static int mt_memop_cmp(const void *a, const void *b)
{
    const struct lat_an_memop *x = a, *y = b;
    if (x->alloc_bytes != y->alloc_bytes) return x->alloc_bytes > y->alloc_bytes ? -1 : 1;
    if (x->device_type != y->device_type) return x->device_type < y->device_type ? -1 : 1;
    if (x->device_id != y->device_id) return x->device_id < y->device_id ? -1 : 1;
    return strcmp(x->op, y->op);
}

static int mt_memop_key_cmp(const void *a, const void *b)
{
    const struct lat_an_memop *x = a, *y = b;
    if (x->device_type != y->device_type) return x->device_type < y->device_type ? -1 : 1;
    if (x->device_id != y->device_id) return x->device_id < y->device_id ? -1 : 1;
    return strcmp(x->op, y->op);
}

const char *lat_an_mem_device_name(int64_t device_type)
{
    /* c10::DeviceType: 0 CPU, 1 CUDA, ... as torch.profiler writes it */
    switch (device_type) {
    case 0:
        return "CPU";
    case 1:
        return "CUDA";
    case 3:
        return "OpenGL";
    case 7:
        return "FPGA";
    case 9:
        return "XLA";
    case 12:
        return "XPU";
    case 13:
        return "MPS";
    case 20:
        return "MTIA";
    case 21:
        return "PrivateUse1";
    default:
        return "device";
    }
}

int an_memtl(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t mem_name = strtab_find(&t->strs, "[memory]", 8);
    if (mem_name == UINT32_MAX) return 0;
    size_t n = 0, nops = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (ev->name[i] == mem_name && ev->kind[i] == LAT_EV_INSTANT)
            n++;
        else if (ev->kind[i] == LAT_EV_CPU_OP && ev->ph[i] == 'X')
            nops++;
    }
    if (!n) return 0;
    int rc = -ENOMEM;
    struct mt_rec *m = malloc(n * sizeof(*m));
    struct mt_op *ops = malloc((nops ? nops : 1) * sizeof(*ops));
    uint32_t *stack = malloc((nops ? nops : 1) * sizeof(*stack));
    struct lat_an_memop *agg = NULL;
    if (!m || !ops || !stack) goto out;
    size_t k = 0;
    nops = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (ev->kind[i] == LAT_EV_CPU_OP && ev->ph[i] == 'X') {
            ops[nops++] =
                (struct mt_op){ev->track[i], (uint32_t)i, ev->ts[i], ev->ts[i] + ev->dur[i]};
            continue;
        }
        if (ev->name[i] != mem_name || ev->kind[i] != LAT_EV_INSTANT) continue;
        struct mt_rec *q = &m[k];
        memset(q, 0, sizeof(*q));
        if (!lat_trace_arg_int(t, i, "Bytes", &q->bytes)) continue;
        if (!lat_trace_arg_int(t, i, "Device Type", &q->dtype)) q->dtype = 0;
        if (!lat_trace_arg_int(t, i, "Device Id", &q->did)) q->did = q->dtype == 0 ? -1 : 0;
        q->has_total = lat_trace_arg_int(t, i, "Total Allocated", &q->total);
        q->has_reserved = lat_trace_arg_int(t, i, "Total Reserved", &q->reserved);
        q->ts = ev->ts[i];
        q->track = ev->track[i];
        q->row = (uint32_t)i;
        k++;
    }
    /* the innermost cpu_op of each record's thread: one sweep per thread */
    qsort(m, k, sizeof(*m), mt_rec_cmp);
    qsort(ops, nops, sizeof(*ops), mt_op_cmp);
    size_t o = 0, sp = 0;
    for (size_t q = 0; q < k; q++) {
        if (q == 0 || m[q].track != m[q - 1].track) sp = 0;
        while (o < nops && (ops[o].track < m[q].track ||
                            (ops[o].track == m[q].track && ops[o].ts <= m[q].ts))) {
            if (ops[o].track == m[q].track) {
                while (sp && ops[stack[sp - 1]].end < ops[o].ts)
                    sp--;
                stack[sp++] = (uint32_t)o;
            }
            o++;
        }
        while (sp && ops[stack[sp - 1]].end < m[q].ts)
            sp--;
        m[q].op = sp ? ev->name[ops[stack[sp - 1]].row] : 0;
    }

    /* per device, and the series */
    qsort(m, k, sizeof(*m), mt_rec_dev_cmp);
    size_t ndev = 0;
    for (size_t q = 0; q < k; q++)
        if (!q || m[q].dtype != m[q - 1].dtype || m[q].did != m[q - 1].did) ndev++;
    r->memdev = calloc(ndev ? ndev : 1, sizeof(*r->memdev));
    agg = malloc((k ? k : 1) * sizeof(*agg));
    if (!r->memdev || !agg) goto out;
    if (v->o->counters) {
        r->mem_pts = malloc((k ? k : 1) * sizeof(*r->mem_pts));
        if (!r->mem_pts) goto out;
    }
    size_t nagg = 0;
    for (size_t q = 0; q < k; q++) {
        if (!q || m[q].dtype != m[q - 1].dtype || m[q].did != m[q - 1].did) {
            struct lat_an_memdev *d = &r->memdev[r->nmemdev++];
            d->device_type = m[q].dtype;
            d->device_id = m[q].did;
            d->device = lat_an_mem_device_name(m[q].dtype);
            d->first_allocated = m[q].has_total ? m[q].total : 0;
            d->peak_allocated = INT64_MIN;
        }
        struct lat_an_memdev *d = &r->memdev[r->nmemdev - 1];
        d->records++;
        if (m[q].bytes > 0) {
            d->allocs++;
            d->alloc_bytes += (uint64_t)m[q].bytes;
        } else if (m[q].bytes < 0) {
            d->frees++;
            d->freed_bytes += (uint64_t)-m[q].bytes;
        }
        if (m[q].has_total) {
            if (m[q].total > d->peak_allocated) {
                d->peak_allocated = m[q].total;
                d->peak_ts = m[q].ts - v->offset;
            }
            d->last_allocated = m[q].total;
            if (r->mem_pts)
                r->mem_pts[r->nmem_pts++] = (struct lat_an_counter_pt){
                    .ts = m[q].ts,
                    .value = (double)m[q].total,
                    .pid = t->tracks[m[q].track].pid,
                    .id = m[q].dtype * 1000 + (m[q].did < 0 ? 0 : m[q].did),
                    .name = d->device,
                };
        }
        if (m[q].has_reserved && m[q].reserved > d->peak_reserved) d->peak_reserved = m[q].reserved;
        agg[nagg++] = (struct lat_an_memop){
            .device_type = m[q].dtype,
            .device_id = m[q].did,
            .op = m[q].op ? lat_trace_str(t, m[q].op) : "",
            .allocs = m[q].bytes > 0,
            .alloc_bytes = m[q].bytes > 0 ? (uint64_t)m[q].bytes : 0,
            .frees = m[q].bytes < 0,
            .freed_bytes = m[q].bytes < 0 ? (uint64_t)-m[q].bytes : 0,
        };
    }
    for (size_t i = 0; i < r->nmemdev; i++)
        if (r->memdev[i].peak_allocated == INT64_MIN) r->memdev[i].peak_allocated = 0;
    /* per (device, op): fold, then by allocated bytes */
    qsort(agg, nagg, sizeof(*agg), mt_memop_key_cmp);
    size_t nf = 0;
    for (size_t q = 0; q < nagg; q++) {
        if (nf && !mt_memop_key_cmp(&agg[nf - 1], &agg[q])) {
            agg[nf - 1].allocs += agg[q].allocs;
            agg[nf - 1].alloc_bytes += agg[q].alloc_bytes;
            agg[nf - 1].frees += agg[q].frees;
            agg[nf - 1].freed_bytes += agg[q].freed_bytes;
        } else {
            agg[nf++] = agg[q];
        }
    }
    size_t nalloc = 0; /* rows that allocated something */
    for (size_t q = 0; q < nf; q++)
        if (agg[q].allocs) agg[nalloc++] = agg[q];
    qsort(agg, nalloc, sizeof(*agg), mt_memop_cmp);
    r->nmemops_total = nalloc;
    size_t keep = nalloc < v->o->top_n ? nalloc : v->o->top_n;
    r->memops = malloc((keep ? keep : 1) * sizeof(*r->memops));
    if (!r->memops) goto out;
    memcpy(r->memops, agg, keep * sizeof(*agg));
    r->nmemops = keep;
    rc = 0;
out:
    free(m);
    free(ops);
    free(stack);
    free(agg);
    return rc;
}

/* ---- 2. export_memory_timeline raw file ---------------------------------------------------- */

void lat_memraw_init(struct lat_memraw *m)
{
    memset(m, 0, sizeof(*m));
}

void lat_memraw_fini(struct lat_memraw *m)
{
    free(m->times);
    free(m->sizes);
    memset(m, 0, sizeof(*m));
}

static int memraw_fail(struct lat_memraw *m, const char *why)
{
    snprintf(m->err, sizeof(m->err), "not an export_memory_timeline raw file (%s at byte %llu)",
             why, (unsigned long long)m->offset);
    m->failed = true;
    return LAT_E_NOT_TRACE;
}

/* One [time, action, bytes, category] row is complete. */
static int memraw_row(struct lat_memraw *m)
{
    if (m->nfield != 4) return memraw_fail(m, "a row has not 4 numbers");
    int64_t t = m->field[0], bytes = m->field[2], cat = m->field[3];
    if (cat < 0 || cat >= LAT_MEMRAW_CATS) return memraw_fail(m, "category out of 0..7");
    if (m->tmin == -1 || (t < m->tmin && t > 0)) m->tmin = t;
    if (!m->n || t != m->times[m->n - 1]) {
        if (m->n == m->cap) { /* two columns, one capacity (checked for the wider) */
            size_t cap = lat_grow_cap(m->cap, m->n + 1, sizeof(*m->sizes), 1024);
            if (!cap) return LAT_E_OVERFLOW;
            int64_t *nt = realloc(m->times, cap * sizeof(*nt));
            if (!nt) return -ENOMEM;
            m->times = nt;
            int64_t(*ns)[LAT_MEMRAW_CATS] = realloc(m->sizes, cap * sizeof(*ns));
            if (!ns) return -ENOMEM;
            m->sizes = ns;
            m->cap = cap;
        }
        m->times[m->n] = t;
        if (m->n)
            memcpy(m->sizes[m->n], m->sizes[m->n - 1], sizeof(m->sizes[0]));
        else
            memset(m->sizes[0], 0, sizeof(m->sizes[0]));
        m->n++;
    }
    m->sizes[m->n - 1][cat] += bytes;
    m->rows++;
    return 0;
}

int lat_memraw_feed(struct lat_memraw *m, const char *p, size_t len)
{
    if (m->failed) return LAT_E_NOT_TRACE;
    if (!m->started) {
        m->tmin = -1;
        m->started = true;
    }
    for (size_t i = 0; i < len; i++, m->offset++) {
        char c = p[i];
        if (m->in_num) {
            if (c >= '0' && c <= '9') {
                if (m->num > (INT64_MAX - 9) / 10) return memraw_fail(m, "number too large");
                m->num = m->num * 10 + (c - '0');
                continue;
            }
            if (c == '.' || c == 'e' || c == 'E') return memraw_fail(m, "a non-integer number");
            if (m->nfield < 4) m->field[m->nfield] = m->neg ? -m->num : m->num;
            m->nfield++;
            m->in_num = false;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (m->depth == 0) {
            if (c != '[' || m->done) return memraw_fail(m, "no list");
            m->depth = 1;
            m->expect_item = true;
        } else if (m->depth == 1) {
            if (c == '[' && m->expect_item) {
                m->depth = 2;
                m->nfield = 0;
                m->expect_item = false;
                m->expect_num = true;
            } else if (c == ',' && !m->expect_item) {
                m->expect_item = true;
            } else if (c == ']' && (!m->expect_item || !m->rows)) {
                m->depth = 0;
                m->done = true;
            } else {
                return memraw_fail(m, "a list entry is not a row");
            }
        } else {
            if (m->expect_num && (c == '-' || (c >= '0' && c <= '9'))) {
                m->in_num = true;
                m->neg = c == '-';
                m->num = c == '-' ? 0 : c - '0';
                m->expect_num = false;
            } else if (c == ',' && !m->expect_num) {
                m->expect_num = true;
            } else if (c == ']' && !m->expect_num) {
                m->depth = 1;
                int rc = memraw_row(m);
                if (rc) return rc;
            } else if (c == 'n' && m->expect_num) {
                return memraw_fail(m, "a null field");
            } else {
                return memraw_fail(m, "a row field is not a number");
            }
        }
    }
    return 0;
}

int lat_memraw_finish(struct lat_memraw *m)
{
    if (m->failed) return LAT_E_NOT_TRACE;
    if (!m->done) return memraw_fail(m, "the list does not end");
    for (size_t i = 0; i < m->n; i++)
        if (m->times[i] < 0) m->times[i] = m->tmin;
    m->peak_total = 0;
    for (size_t i = 0; i < m->n; i++) {
        int64_t s = 0;
        for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
            s += m->sizes[i][c];
            if (m->sizes[i][c] > m->peak[c]) m->peak[c] = m->sizes[i][c];
        }
        if (s > m->peak_total || i == 0) {
            m->peak_total = s;
            m->peak_index = i;
        }
    }
    return 0;
}

const char *lat_memraw_category(int c)
{
    static const char *const names[LAT_MEMRAW_CATS] = {"Parameter", "Optimizer state", "Input",
                                                       "Temporary", "Activation",      "Gradient",
                                                       "Autograd",  "Unknown"};
    return c >= 0 && c < LAT_MEMRAW_CATS ? names[c] : "?";
}

/* ---- 3. the raw file's report ------------------------------------------------------------- */

/* The first time (the points' smallest) and the peak's time. */
static void memraw_times(const struct lat_memraw *m, int64_t *t0, int64_t *tpeak)
{
    *t0 = m->n ? m->times[0] : 0;
    *tpeak = m->n ? m->times[m->peak_index] : 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->times[i] < *t0) *t0 = m->times[i];
}

int lat_memraw_json(struct jsonw *w, const struct lat_memraw *m, const char *path)
{
    int64_t t0, tpeak;
    memraw_times(m, &t0, &tpeak);
    jsonw_obj_begin(w);
    lat_build_json(w);
    jsonw_key(w, "memory_timeline_raw");
    jsonw_obj_begin(w);
    jsonw_key(w, "path");
    jsonw_str(w, path);
    jsonw_key(w, "rows");
    jsonw_u64(w, m->rows);
    jsonw_key(w, "points");
    jsonw_u64(w, m->n);
    jsonw_key(w, "start_time");
    jsonw_i64(w, t0);
    jsonw_key(w, "peak_total_bytes");
    jsonw_i64(w, m->peak_total);
    jsonw_key(w, "peak_index");
    jsonw_u64(w, m->peak_index);
    jsonw_key(w, "peak_time");
    jsonw_i64(w, tpeak);
    jsonw_key(w, "peak_after_start");
    jsonw_i64(w, tpeak - t0);
    jsonw_key(w, "categories");
    jsonw_arr_begin(w);
    for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, lat_memraw_category(c));
        jsonw_key(w, "peak_bytes");
        jsonw_i64(w, m->peak[c]);
        jsonw_key(w, "at_peak_bytes");
        jsonw_i64(w, m->n ? m->sizes[m->peak_index][c] : 0);
        jsonw_key(w, "final_bytes");
        jsonw_i64(w, m->n ? m->sizes[m->n - 1][c] : 0);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
    return jsonw_finish(w);
}

static const char *memraw_bytes(int64_t v, char *buf)
{
    return units_format_bytes(v > 0 ? (uint64_t)v : 0, buf, 32);
}

void lat_memraw_format_text(FILE *f, const struct lat_memraw *m, const char *path)
{
    int64_t t0, tpeak;
    memraw_times(m, &t0, &tpeak);
    char b1[32], b2[32], b3[32];
    fprintf(f, "memory timeline %s: %llu rows, %zu points over %.3f ms\n", path,
            (unsigned long long)m->rows, m->n,
            m->n ? (double)(m->times[m->n - 1] - t0) / 1e6 : 0.0);
    fprintf(f, "peak %s at %.3f ms (point %zu)\n", memraw_bytes(m->peak_total, b1),
            (double)(tpeak - t0) / 1e6, m->peak_index);
    fprintf(f, "  category                 at peak         peak        final\n");
    for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
        int64_t at = m->n ? m->sizes[m->peak_index][c] : 0, fin = m->n ? m->sizes[m->n - 1][c] : 0;
        fprintf(f, "  %-18s %12s %12s %12s\n", lat_memraw_category(c), memraw_bytes(at, b1),
                memraw_bytes(m->peak[c], b2), memraw_bytes(fin, b3));
    }
}
