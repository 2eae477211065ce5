/*
 * nsys-map.c - Nsight Systems rows -> the trace model (see nsys-map.h).
 */
#include "ingest/nsys-map.h"
#include "core/grow.h"
#include "ingest/formats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CAT_DRIVER = NSYS_TAB_COUNT, CAT_MARK };

void nsys_row_clear(struct nsys_row *r, enum nsys_tab tab)
{
    int64_t *cols[] = {
        &r->start,       &r->end,        &r->device,    &r->stream,  &r->correlation, &r->gtid,
        &r->event_class, &r->event_type, &r->domain,    &r->bytes,   &r->copy_kind,   &r->src_kind,
        &r->dst_kind,    &r->mem_kind,   &r->sync_type, &r->grid[0], &r->grid[1],     &r->grid[2],
        &r->block[0],    &r->block[1],   &r->block[2],  &r->regs,    &r->smem};
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
        *cols[i] = NSYS_NONE;
    r->tab = tab;
    r->name = NULL;
    r->name_len = 0;
}

static int intern(struct lat_trace *t, const char *s, uint32_t *id)
{
    return lat_trace_intern(t, s, strlen(s), id);
}

int nsys_map_init(struct nsys_map *m, struct lat_trace *t)
{
    static const char *const cats[] = {"kernel",     "cuda_runtime", "gpu_memcpy",
                                       "gpu_memset", "cuda_sync",    "user_annotation",
                                       "os_runtime", "cuda_driver",  "nvtx_mark"};
    memset(m, 0, sizeof(*m));
    m->t = t;
    for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
        if (intern(t, cats[i], &m->cat[i])) return -ENOMEM;
    if (intern(t, "bytes", &m->k_bytes) || intern(t, "device", &m->k_device) ||
        intern(t, "stream", &m->k_stream) || intern(t, "correlation", &m->k_corr) ||
        intern(t, "grid", &m->k_grid) || intern(t, "block", &m->k_block) ||
        intern(t, "registers per thread", &m->k_regs) || intern(t, "shared memory", &m->k_smem) ||
        intern(t, "domain", &m->k_domain) || intern(t, "value", &m->k_value))
        return -ENOMEM;
    return 0;
}

void nsys_map_fini(struct nsys_map *m)
{
    free(m->threads);
    free(m->procs);
    free(m->domains);
    for (int w = 0; w < NSYS_ENUM_COUNT; w++)
        free(m->en[w].v);
    memset(m, 0, sizeof(*m));
}

size_t nsys_api_name_len(const char *s, size_t n)
{
    size_t d = n;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    if (n - d >= 4 && d >= 3 && s[d - 1] == 'v' && s[d - 2] == '_') return d - 2;
    return n;
}

static int add_named(struct nsys_named **a, size_t *n, size_t *cap, int64_t key, uint32_t name)
{
    int rc = LAT_GROW(*a, *cap, *n, 1, 16);
    if (rc) return rc;
    (*a)[*n].key = key;
    (*a)[*n].name = name;
    (*n)++;
    return 0;
}

static const struct nsys_named *find_named(const struct nsys_named *a, size_t n, int64_t key)
{
    for (size_t i = n; i-- > 0;) /* the last definition wins */
        if (a[i].key == key) return &a[i];
    return NULL;
}

static int64_t gid_pid(int64_t g)
{
    return g == NSYS_NONE ? -1 : (int64_t)(((uint64_t)g >> 24) & 0xFFFFFF);
}

static int64_t gid_tid(int64_t g)
{
    return g == NSYS_NONE ? -1 : (int64_t)((uint64_t)g & 0xFFFFFF);
}

int nsys_map_thread(struct nsys_map *m, int64_t gtid, const char *name, size_t n)
{
    uint32_t id;
    if (!name || !n) return 0;
    if (lat_trace_intern(m->t, name, n, &id)) return -ENOMEM;
    int64_t key = (int64_t)((uint64_t)gid_pid(gtid) << 24 | (uint64_t)gid_tid(gtid));
    return add_named(&m->threads, &m->nthreads, &m->cthreads, key, id);
}

int nsys_map_process(struct nsys_map *m, int64_t gpid, const char *name, size_t n)
{
    uint32_t id;
    if (!name || !n) return 0;
    if (lat_trace_intern(m->t, name, n, &id)) return -ENOMEM;
    return add_named(&m->procs, &m->nprocs, &m->cprocs, gid_pid(gpid), id);
}

int nsys_map_domain(struct nsys_map *m, int64_t domain, const char *name, size_t n)
{
    uint32_t id;
    if (!name || !n) return 0;
    if (lat_trace_intern(m->t, name, n, &id)) return -ENOMEM;
    return add_named(&m->domains, &m->ndomains, &m->cdomains, domain, id);
}

static int arg_int(struct nsys_map *m, uint32_t key, int64_t v, uint32_t *first, uint32_t *n)
{
    struct lat_arg a = {.key = key, .type = LAT_ARG_INT, .v.i = v};
    uint32_t idx;
    if (lat_trace_add_arg(m->t, &a, &idx)) return -ENOMEM;
    if (!*n) *first = idx;
    (*n)++;
    return 0;
}

static int arg_str(struct nsys_map *m, uint32_t key, uint32_t str, char type, uint32_t *first,
                   uint32_t *n)
{
    struct lat_arg a = {.key = key, .type = type == 'r' ? LAT_ARG_RAW : LAT_ARG_STR, .str = str};
    uint32_t idx;
    if (lat_trace_add_arg(m->t, &a, &idx)) return -ENOMEM;
    if (!*n) *first = idx;
    (*n)++;
    return 0;
}

static int arg_dim3(struct nsys_map *m, uint32_t key, const int64_t d[3], uint32_t *first,
                    uint32_t *n)
{
    if (d[0] == NSYS_NONE || d[1] == NSYS_NONE || d[2] == NSYS_NONE) return 0;
    char buf[80];
    int l = snprintf(buf, sizeof(buf), "[%lld, %lld, %lld]", (long long)d[0], (long long)d[1],
                     (long long)d[2]);
    uint32_t id;
    if (lat_trace_intern(m->t, buf, (size_t)l, &id)) return -ENOMEM;
    return arg_str(m, key, id, 'r', first, n);
}

/* ---- the numbers' names: built-in tables (nsys 2024.5) and the export's ENUM_* tables ------ */

struct nsys_bi {
    int64_t id;
    const char *sym;  /* the ENUM table's `name` */
    const char *show; /* what latscope calls it (Kineto's spelling) */
    char role;        /* CLASS: 'd' driver, 'r' runtime; ETYPE: 'm' mark, 'R' range, 'D' domain */
};

const char *const nsys_enum_table[NSYS_ENUM_COUNT] = {
    "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_CUPTI_SYNC_TYPE", "ENUM_NSYS_EVENT_CLASS",
    "ENUM_NSYS_EVENT_TYPE"};

static const struct nsys_bi bi_memcpy[] = {
    {0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown", 0}, {1, "CUDA_MEMCPY_KIND_HTOD", "HtoD", 0},
    {2, "CUDA_MEMCPY_KIND_DTOH", "DtoH", 0},       {3, "CUDA_MEMCPY_KIND_HTOA", "HtoA", 0},
    {4, "CUDA_MEMCPY_KIND_ATOH", "AtoH", 0},       {5, "CUDA_MEMCPY_KIND_ATOA", "AtoA", 0},
    {6, "CUDA_MEMCPY_KIND_ATOD", "AtoD", 0},       {7, "CUDA_MEMCPY_KIND_DTOA", "DtoA", 0},
    {8, "CUDA_MEMCPY_KIND_DTOD", "DtoD", 0},       {9, "CUDA_MEMCPY_KIND_HTOH", "HtoH", 0},
    {10, "CUDA_MEMCPY_KIND_PTOP", "PtoP", 0},      {11, "CUDA_MEMCPY_KIND_UVM_HTOD", "HtoD", 0},
    {12, "CUDA_MEMCPY_KIND_UVM_DTOH", "DtoH", 0},  {13, "CUDA_MEMCPY_KIND_UVM_DTOD", "DtoD", 0}};
static const struct nsys_bi bi_memkind[] = {
    {0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable", 0},
    {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned", 0},
    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device", 0},
    {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array", 0},
    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed", 0},
    {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static", 0},
    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static", 0},
    {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown", 0}};
static const struct nsys_bi bi_sync[] = {
    {0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown Sync", 0},
    {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event Sync", 0},
    {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream Wait Event", 0},
    {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream Sync", 0},
    {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context Sync", 0}};
/* 67..69: the CUDA backtrace records of `--cudabacktrace` (nsys 2022.x writes them into the
 * RUNTIME table beside the call's own row, with its correlationId): not calls, skipped */
static const struct nsys_bi bi_class[] = {
    {0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "runtime", 'r'},
    {1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "driver", 'd'},
    {67, "TRACE_PROCESS_EVENT_CUDABACKTRACE", "CUDA backtrace", 'b'},
    {68, "TRACE_PROCESS_EVENT_CUDABACKTRACE_START", "CUDA backtrace start", 'b'},
    {69, "TRACE_PROCESS_EVENT_CUDABACKTRACE_FINISH", "CUDA backtrace finish", 'b'}};
static const struct nsys_bi bi_etype[] = {
    {34, "NvtxMark", "mark", 'm'},           {59, "NvtxPushPopRange", "range", 'R'},
    {60, "NvtxStartEndRange", "range", 'R'}, {65, "NvtxtMark", "mark", 'm'},
    {70, "NvtxtPushPopRange", "range", 'R'}, {71, "NvtxtStartEndRange", "range", 'R'},
    {75, "NvtxDomainCreate", "domain", 'D'}};

static size_t builtin(enum nsys_enum w, const struct nsys_bi **tab)
{
#define B(a)                                                                                       \
    do {                                                                                           \
        *tab = a;                                                                                  \
        return sizeof(a) / sizeof(a[0]);                                                           \
    } while (0)
    switch (w) {
    case NSYS_ENUM_MEMCPY:
        B(bi_memcpy);
    case NSYS_ENUM_MEMKIND:
        B(bi_memkind);
    case NSYS_ENUM_SYNC:
        B(bi_sync);
    case NSYS_ENUM_CLASS:
        B(bi_class);
    case NSYS_ENUM_ETYPE:
        B(bi_etype);
    default:
        break;
    }
#undef B
    *tab = NULL;
    return 0;
}

static const struct nsys_enum_val *enum_find(const struct nsys_enum_map *e, int64_t id)
{
    if (id >= 0 && id < 256) return e->direct[id] ? &e->v[e->direct[id] - 1] : NULL;
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].id == id) return &e->v[i];
    return NULL;
}

static bool enum_differs(const struct nsys_map *m, enum nsys_enum w)
{
    return m->en[w].n && (m->enum_differ_mask >> w & 1u);
}

/* The meaning of number id of ENUM w: a built-in entry, or NULL with *label the export's own
 * name of a value the built-in table lacks (NULL when nobody knows the number). */
static const struct nsys_bi *enum_get(const struct nsys_map *m, enum nsys_enum w, int64_t id,
                                      const char **label)
{
    const struct nsys_bi *tab;
    size_t nt = builtin(w, &tab);
    *label = NULL;
    if (m->en[w].n) {
        const struct nsys_enum_val *v = enum_find(&m->en[w], id);
        if (v) {
            if (v->builtin >= 0) return &tab[v->builtin];
            *label = v->label ? lat_trace_str(m->t, v->label) : NULL;
            return NULL;
        }
        /* not in the export's table: the built-in number only where the two agree */
        if (enum_differs(m, w)) return NULL;
    }
    for (size_t i = 0; i < nt; i++)
        if (tab[i].id == id) return &tab[i];
    return NULL;
}

static const char *enum_show(const struct nsys_map *m, enum nsys_enum w, int64_t id,
                             const char *unknown)
{
    const char *label;
    const struct nsys_bi *b = enum_get(m, w, id, &label);
    return b ? b->show : label ? label : unknown;
}

int nsys_map_enum(struct nsys_map *m, enum nsys_enum w, int64_t id, const char *sym, size_t symlen,
                  const char *label, size_t labellen)
{
    if ((unsigned)w >= NSYS_ENUM_COUNT || id == NSYS_NONE || !sym || !symlen) return 0;
    struct nsys_enum_map *e = &m->en[w];
    if (enum_find(e, id)) return 0; /* the first row of a number counts */
    const struct nsys_bi *tab;
    size_t nt = builtin(w, &tab);
    int16_t b = -1;
    for (size_t i = 0; i < nt; i++)
        if (strlen(tab[i].sym) == symlen && !memcmp(tab[i].sym, sym, symlen)) b = (int16_t)i;
    if (b >= 0 && tab[b].id != id) {
        if (!m->enum_differ)
            snprintf(m->enum_first_differ, sizeof(m->enum_first_differ),
                     "%s: %s = %lld (built-in %lld)", nsys_enum_table[w], tab[b].sym, (long long)id,
                     (long long)tab[b].id);
        m->enum_differ++;
        m->enum_differ_mask |= 1u << w;
    }
    uint32_t lab = 0;
    if (label && labellen ? lat_trace_intern(m->t, label, labellen, &lab)
                          : lat_trace_intern(m->t, sym, symlen, &lab))
        return -ENOMEM;
    int rc = LAT_GROW(e->v, e->cap, e->n, 1, 32);
    if (rc) return rc;
    if (id >= 0 && id < 256) {
        if (e->n >= 255) return 0; /* a table that large is not an ENUM nsys writes */
        e->direct[id] = (uint8_t)(e->n + 1);
    }
    e->v[e->n++] = (struct nsys_enum_val){.id = id, .builtin = b, .label = lab};
    return 0;
}

int64_t nsys_map_enum_id(const struct nsys_map *m, enum nsys_enum w, const char *sym)
{
    if ((unsigned)w >= NSYS_ENUM_COUNT) return NSYS_NONE;
    const struct nsys_bi *tab;
    size_t nt = builtin(w, &tab);
    const struct nsys_enum_map *e = &m->en[w];
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].builtin >= 0 && !strcmp(tab[e->v[i].builtin].sym, sym)) return e->v[i].id;
    if (enum_differs(m, w)) return NSYS_NONE;
    for (size_t i = 0; i < nt; i++)
        if (!strcmp(tab[i].sym, sym)) return tab[i].id;
    return NSYS_NONE;
}

static const char *copy_kind(const struct nsys_map *m, int64_t k)
{
    return enum_show(m, NSYS_ENUM_MEMCPY, k, "Unknown");
}

static const char *mem_kind(const struct nsys_map *m, int64_t k)
{
    return enum_show(m, NSYS_ENUM_MEMKIND, k, "Unknown");
}

static void drop(struct nsys_map *m, enum lat_drop_reason why, bool gpu)
{
    lat_trace_drop(m->t, why);
    if (gpu) m->t->drops_gpu++;
}

/* CUPTI writes (uint32)-1 for "no stream" (context syncs): -1 as Kineto does. */
static int64_t stream_of(int64_t s)
{
    return s == NSYS_NONE || s == 0xFFFFFFFFll || s < 0 ? -1 : s;
}

int nsys_map_row(struct nsys_map *m, const struct nsys_row *r)
{
    struct lat_trace *t = m->t;
    if ((unsigned)r->tab >= NSYS_TAB_COUNT) return 0;
    m->rows_in[r->tab]++;
    bool gpu = r->tab == NSYS_KERNEL || r->tab == NSYS_MEMCPY || r->tab == NSYS_MEMSET ||
               r->tab == NSYS_SYNC;
    bool mark = false;
    if (r->tab == NSYS_NVTX) {
        /* marks and ranges (push/pop, start/end, and their NVTX-text twins); the others
         * (domain/category definitions, names of threads/devices) are metadata */
        const char *label;
        const struct nsys_bi *b = enum_get(m, NSYS_ENUM_ETYPE, r->event_type, &label);
        if (!b || (b->role != 'm' && b->role != 'R')) return 0;
        mark = b->role == 'm';
        if (r->end == NSYS_NONE || r->end < 0) mark = true;
    }
    if (r->tab == NSYS_RUNTIME && r->event_class != NSYS_NONE) {
        const char *label;
        const struct nsys_bi *b = enum_get(m, NSYS_ENUM_CLASS, r->event_class, &label);
        if (b && b->role == 'b') { /* a backtrace record of a call that has its own row */
            m->backtrace_rows++;
            return 0;
        }
    }
    if (r->start == NSYS_NONE) {
        drop(m, LAT_DROP_NO_TS, gpu);
        return 0;
    }
    if (r->start < LAT_TS_MIN || r->start > LAT_TS_MAX) {
        drop(m, LAT_DROP_TS_RANGE, gpu);
        return 0;
    }
    lat_ns dur = 0;
    if (!mark) {
        if (r->end == NSYS_NONE) {
            drop(m, LAT_DROP_BAD_DUR, gpu);
            return 0;
        }
        if (r->end < r->start) {
            drop(m, LAT_DROP_NEG_DUR, gpu);
            return 0;
        }
        /* start is within the bounds: a huge end cannot wrap when compared as a difference */
        if ((uint64_t)r->end - (uint64_t)r->start > (uint64_t)LAT_DUR_MAX) {
            drop(m, LAT_DROP_DUR_RANGE, gpu);
            return 0;
        }
        dur = r->end - r->start;
    }

    struct lat_event e = {.ts = r->start,
                          .dur = dur,
                          .stream = -1,
                          .device = -1,
                          .step = -1,
                          .correlation = -1,
                          .external_id = -1,
                          .ph = mark ? 'i' : 'X'};
    uint32_t first = 0, nargs = 0;
    char buf[96];
    const char *name = r->name;
    size_t nlen = r->name ? r->name_len : 0;
    int64_t pid, tid;
    if (gpu) {
        pid = r->device >= 0 && r->device <= INT32_MAX ? r->device : -1;
        tid = stream_of(r->stream);
        e.device = (int32_t)pid;
        e.stream = tid;
        e.flags = LAT_EVF_GPU;
    } else {
        pid = gid_pid(r->gtid);
        tid = gid_tid(r->gtid);
    }
    if (r->correlation != NSYS_NONE && r->correlation >= 0) e.correlation = r->correlation;
    int rc = 0;
    switch (r->tab) {
    case NSYS_KERNEL:
        e.kind = LAT_EV_KERNEL;
        e.cat = m->cat[NSYS_KERNEL];
        break;
    case NSYS_RUNTIME: {
        const char *label;
        const struct nsys_bi *b = enum_get(m, NSYS_ENUM_CLASS, r->event_class, &label);
        bool driver = b && b->role == 'd';
        e.kind = driver ? LAT_EV_DRIVER : LAT_EV_RUNTIME;
        e.cat = m->cat[driver ? CAT_DRIVER : NSYS_RUNTIME];
        if (name) nlen = nsys_api_name_len(name, nlen);
        break;
    }
    case NSYS_MEMCPY:
        e.kind = LAT_EV_MEMCPY;
        e.cat = m->cat[NSYS_MEMCPY];
        if (r->src_kind != NSYS_NONE && r->dst_kind != NSYS_NONE)
            snprintf(buf, sizeof(buf), "Memcpy %s (%s -> %s)", copy_kind(m, r->copy_kind),
                     mem_kind(m, r->src_kind), mem_kind(m, r->dst_kind));
        else
            snprintf(buf, sizeof(buf), "Memcpy %s", copy_kind(m, r->copy_kind));
        name = buf;
        nlen = strlen(buf);
        break;
    case NSYS_MEMSET:
        e.kind = LAT_EV_MEMSET;
        e.cat = m->cat[NSYS_MEMSET];
        if (r->mem_kind != NSYS_NONE)
            snprintf(buf, sizeof(buf), "Memset (%s)", mem_kind(m, r->mem_kind));
        else
            snprintf(buf, sizeof(buf), "Memset");
        name = buf;
        nlen = strlen(buf);
        break;
    case NSYS_SYNC:
        e.kind = LAT_EV_SYNC;
        e.cat = m->cat[NSYS_SYNC];
        name = enum_show(m, NSYS_ENUM_SYNC, r->sync_type, "Unknown Sync");
        nlen = strlen(name);
        break;
    case NSYS_NVTX:
        e.kind = mark ? LAT_EV_INSTANT : LAT_EV_USER_ANNOTATION;
        e.cat = m->cat[mark ? CAT_MARK : NSYS_NVTX];
        if (mark) e.flags |= LAT_EVF_INSTANT;
        break;
    case NSYS_OSRT:
        e.kind = LAT_EV_OTHER;
        e.cat = m->cat[NSYS_OSRT];
        break;
    default:
        return 0;
    }
    if (!name || !nlen) {
        name = r->tab == NSYS_KERNEL ? "(unnamed kernel)" : "(unnamed)";
        nlen = strlen(name);
    }
    if (lat_trace_intern(t, name, nlen, &e.name)) return -ENOMEM;
    if (gpu) {
        if (e.device >= 0) rc |= arg_int(m, m->k_device, e.device, &first, &nargs);
        if (e.stream >= 0) rc |= arg_int(m, m->k_stream, e.stream, &first, &nargs);
    }
    if (e.correlation >= 0) rc |= arg_int(m, m->k_corr, e.correlation, &first, &nargs);
    if (r->tab == NSYS_KERNEL) {
        rc |= arg_dim3(m, m->k_grid, r->grid, &first, &nargs);
        rc |= arg_dim3(m, m->k_block, r->block, &first, &nargs);
        if (r->regs != NSYS_NONE) rc |= arg_int(m, m->k_regs, r->regs, &first, &nargs);
        if (r->smem != NSYS_NONE) rc |= arg_int(m, m->k_smem, r->smem, &first, &nargs);
    }
    if ((r->tab == NSYS_MEMCPY || r->tab == NSYS_MEMSET) && r->bytes != NSYS_NONE)
        rc |= arg_int(m, m->k_bytes, r->bytes, &first, &nargs);
    if (r->tab == NSYS_NVTX && r->domain != NSYS_NONE && r->domain != 0) {
        const struct nsys_named *d = find_named(m->domains, m->ndomains, r->domain);
        if (d)
            rc |= arg_str(m, m->k_domain, d->name, 's', &first, &nargs);
        else
            rc |= arg_int(m, m->k_domain, r->domain, &first, &nargs);
    }
    if (rc) return -ENOMEM;
    e.args = first;
    e.nargs = nargs;
    if (lat_trace_track(t, pid, tid, 0, 0, gpu, &e.track)) return -ENOMEM;
    return lat_trace_add_event(t, &e) ? -ENOMEM : 0;
}

int nsys_map_sample(struct nsys_map *m, int64_t start, int64_t gtid, const char *stack, size_t n)
{
    struct lat_trace *t = m->t;
    if (start == NSYS_NONE) {
        drop(m, LAT_DROP_NO_TS, false);
        return 0;
    }
    if (start < LAT_TS_MIN || start > LAT_TS_MAX) {
        drop(m, LAT_DROP_TS_RANGE, false);
        return 0;
    }
    if (!stack || !n) {
        stack = "[unknown]";
        n = 9;
    }
    size_t leaf = n;
    while (leaf > 0 && stack[leaf - 1] != ';')
        leaf--;
    uint32_t sid, lid;
    if (!m->cpu_ids) {
        if (lat_cpu_ids_init(t, &m->cpu)) return -ENOMEM;
        m->cpu_ids = true;
    }
    if (lat_trace_intern(t, stack, n, &sid) || lat_trace_intern(t, stack + leaf, n - leaf, &lid))
        return -ENOMEM;
    struct lat_cpu_sample smp = {.ts = start, .stack = sid, .leaf = lid};
    if (lat_trace_track(t, gid_pid(gtid), gid_tid(gtid), 0, 0, false, &smp.track)) return -ENOMEM;
    return lat_trace_add_cpu_sample(t, &m->cpu, &smp, UINT32_MAX, NULL) ? -ENOMEM : 0;
}

int nsys_map_finish(struct nsys_map *m)
{
    struct lat_trace *t = m->t;
    for (size_t i = 0; i < t->ntracks; i++) {
        struct lat_track *tr = &t->tracks[i];
        if (tr->gpu || tr->pid < 0) continue;
        const struct nsys_named *p = find_named(m->procs, m->nprocs, tr->pid);
        if (p) tr->pid_label = p->name;
        if (tr->tid < 0) continue;
        const struct nsys_named *th = find_named(
            m->threads, m->nthreads, (int64_t)((uint64_t)tr->pid << 24 | (uint64_t)tr->tid));
        if (th) tr->tid_label = th->name;
    }
    lat_trace_set_format(t, &ingest_fmt_nsys);
    if (m->backtrace_rows) {
        char n[32];
        uint32_t k, v;
        snprintf(n, sizeof(n), "%llu", (unsigned long long)m->backtrace_rows);
        if (lat_trace_intern(t, "nsys_backtrace_rows_skipped", 27, &k) ||
            lat_trace_intern(t, n, strlen(n), &v) || lat_trace_add_meta(t, k, v))
            return -ENOMEM;
    }
    if (m->no_enum_meta) return 0;
    /* {"source": "export"|"built-in", "tables": [...], "differ": N[, "first_differ": "..."]}:
     * symbols and table names are [A-Z0-9_a-z] (others are left out of the text) */
    char js[1024];
    size_t o = 0;
    int ntab = 0;
    for (int w = 0; w < NSYS_ENUM_COUNT; w++)
        ntab += m->en[w].n > 0;
    o += (size_t)snprintf(js + o, sizeof(js) - o, "{\"source\": \"%s\", \"tables\": [",
                          ntab ? "export" : "built-in");
    for (int w = 0, k = 0; w < NSYS_ENUM_COUNT; w++)
        if (m->en[w].n)
            o += (size_t)snprintf(js + o, sizeof(js) - o, "%s\"%s\"", k++ ? ", " : "",
                                  nsys_enum_table[w]);
    o += (size_t)snprintf(js + o, sizeof(js) - o, "], \"differ\": %llu",
                          (unsigned long long)m->enum_differ);
    if (m->enum_first_differ[0]) {
        o += (size_t)snprintf(js + o, sizeof(js) - o, ", \"first_differ\": \"");
        for (const char *c = m->enum_first_differ; *c && o + 4 < sizeof(js); c++)
            if ((*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                *c == '_' || *c == ' ' || *c == ':' || *c == '=' || *c == '(' || *c == ')' ||
                *c == '-')
                js[o++] = *c;
        o += (size_t)snprintf(js + o, sizeof(js) - o, "\"");
    }
    snprintf(js + o, sizeof(js) - o, "}");
    uint32_t k, v;
    if (lat_trace_intern(t, "nsys_enums", 10, &k) || lat_trace_intern(t, js, strlen(js), &v) ||
        lat_trace_add_meta(t, k, v))
        return -ENOMEM;
    return 0;
}

/* PyTorch under nsys: ProfilerStep#N as NVTX ranges */
const struct lat_trace_format ingest_fmt_nsys = {
    .name = "nsys",
    .fw = LAT_FW_PYTORCH,
    .caps = LAT_FCAP_PROFILER_STEPS,
};
