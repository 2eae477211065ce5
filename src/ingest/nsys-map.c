/*
 * nsys-map.c - Nsight Systems rows -> the trace model (see nsys-map.h).
 */
#include "ingest/nsys-map.h"

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
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void *p = realloc(*a, c * sizeof(**a));
        if (!p) return -ENOMEM;
        *a = p;
        *cap = c;
    }
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

static const char *copy_kind(int64_t k)
{
    static const char *const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                        "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD"};
    return k >= 0 && k < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[k] : "Unknown";
}

static const char *mem_kind(int64_t k)
{
    static const char *const names[] = {"Pageable", "Pinned",        "Device",         "Array",
                                        "Managed",  "Device Static", "Managed Static", "Unknown"};
    return k >= 0 && k < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[k] : "Unknown";
}

static const char *sync_kind(int64_t k)
{
    static const char *const names[] = {"Unknown Sync", "Event Sync", "Stream Wait Event",
                                        "Stream Sync", "Context Sync"};
    return k >= 0 && k < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[k] : "Unknown Sync";
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
        /* 34 mark, 59 push/pop range, 60 start/end range (and the NVTX-text 65/70/71 twins);
         * the others (domain/category definitions, names of threads/devices) are metadata */
        switch (r->event_type) {
        case 34:
        case 65:
            mark = true;
            break;
        case 59:
        case 60:
        case 70:
        case 71:
            break;
        default:
            return 0;
        }
        if (r->end == NSYS_NONE || r->end < 0) mark = true;
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
    case NSYS_RUNTIME:
        e.kind = r->event_class == 1 ? LAT_EV_DRIVER : LAT_EV_RUNTIME;
        e.cat = m->cat[r->event_class == 1 ? CAT_DRIVER : NSYS_RUNTIME];
        if (name) nlen = nsys_api_name_len(name, nlen);
        break;
    case NSYS_MEMCPY:
        e.kind = LAT_EV_MEMCPY;
        e.cat = m->cat[NSYS_MEMCPY];
        if (r->src_kind != NSYS_NONE && r->dst_kind != NSYS_NONE)
            snprintf(buf, sizeof(buf), "Memcpy %s (%s -> %s)", copy_kind(r->copy_kind),
                     mem_kind(r->src_kind), mem_kind(r->dst_kind));
        else
            snprintf(buf, sizeof(buf), "Memcpy %s", copy_kind(r->copy_kind));
        name = buf;
        nlen = strlen(buf);
        break;
    case NSYS_MEMSET:
        e.kind = LAT_EV_MEMSET;
        e.cat = m->cat[NSYS_MEMSET];
        if (r->mem_kind != NSYS_NONE)
            snprintf(buf, sizeof(buf), "Memset (%s)", mem_kind(r->mem_kind));
        else
            snprintf(buf, sizeof(buf), "Memset");
        name = buf;
        nlen = strlen(buf);
        break;
    case NSYS_SYNC:
        e.kind = LAT_EV_SYNC;
        e.cat = m->cat[NSYS_SYNC];
        name = sync_kind(r->sync_type);
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
    if (!m->k_stack &&
        (lat_trace_intern(t, "stack", 5, &m->k_stack) ||
         lat_trace_intern(t, "state", 5, &m->k_state) || lat_trace_intern(t, "on", 2, &m->v_on) ||
         lat_trace_intern(t, "cpu_sample", 10, &m->cat_sample)))
        return -ENOMEM;
    if (lat_trace_intern(t, stack, n, &sid) || lat_trace_intern(t, stack + leaf, n - leaf, &lid))
        return -ENOMEM;
    struct lat_arg a1 = {.key = m->k_stack, .type = LAT_ARG_STR, .str = sid};
    struct lat_arg a2 = {.key = m->k_state, .type = LAT_ARG_STR, .str = m->v_on};
    uint32_t first, second;
    if (lat_trace_add_arg(t, &a1, &first) || lat_trace_add_arg(t, &a2, &second)) return -ENOMEM;
    struct lat_event e = {.ts = start,
                          .name = lid,
                          .cat = m->cat_sample,
                          .kind = LAT_EV_CPU_SAMPLE,
                          .flags = LAT_EVF_INSTANT,
                          .stream = -1,
                          .device = -1,
                          .step = -1,
                          .correlation = -1,
                          .external_id = -1,
                          .args = first,
                          .nargs = 2,
                          .ph = 'i'};
    if (lat_trace_track(t, gid_pid(gtid), gid_tid(gtid), 0, 0, false, &e.track)) return -ENOMEM;
    return lat_trace_add_event(t, &e) ? -ENOMEM : 0;
}

void nsys_map_finish(struct nsys_map *m)
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
    t->format = "nsys";
}
