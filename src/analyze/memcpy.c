/*
 * memcpy.c - memory copies per direction and host memory kind, memsets, and synchronisations.
 *
 * Copies are the GPU rows of kind memcpy/memset. Kineto names them
 * "Memcpy <kind> (<src> -> <dst>)" and "Memset (<dst>)"; the direction and the host-side memory
 * kind (Pageable / Pinned) come from the name, the byte count from args.bytes. Bandwidth is
 * bytes / Σ dur (bytes per ns = GB/s). Synchronisations are the CPU runtime/driver calls that
 * block the host (names containing "Synchronize", and the synchronous cudaMemcpy/hipMemcpy),
 * with their Σ duration as blocking time, plus the device-side cuda_sync records (Stream Sync,
 * Event Sync, Context Sync, Stream Wait Event) counted separately.
 */
#include "analyze/internal.h"
#include "core/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "Memset", "Unknown"};
enum { K_MEMSET = 5, K_UNKNOWN = 6, NKINDS = 7 };
static const char *const mems[] = {"Pageable", "Pinned",  "Device", "Managed",
                                   "Array",    "Unknown", ""};
enum { M_UNKNOWN = 5, M_NONE = 6, NMEMS = 7 };

static int word_index(const char *s, size_t n, const char *const *list, int count, int dflt)
{
    for (int k = 0; k < count; k++)
        if (strlen(list[k]) == n && !strncmp(s, list[k], n)) return k;
    return dflt;
}

/* Parses a copy name into (kind, host memory kind, pageable). */
static void parse_copy(const char *s, bool memset_kind, int *kind, int *mem, bool *pageable)
{
    *kind = memset_kind ? K_MEMSET : K_UNKNOWN;
    *mem = M_NONE;
    *pageable = false;
    if (!strncmp(s, "Memcpy ", 7)) {
        const char *w = s + 7;
        size_t n = strcspn(w, " (");
        *kind = word_index(w, n, kinds, 5, K_UNKNOWN);
    } else if (!strncmp(s, "Memset", 6)) {
        *kind = K_MEMSET;
    }
    const char *p = strchr(s, '(');
    if (!p) return;
    p++;
    size_t n1 = strcspn(p, " )");
    int src = word_index(p, n1, mems, 5, M_UNKNOWN), dst = -1;
    const char *arrow = strstr(p, "-> ");
    if (arrow) dst = word_index(arrow + 3, strcspn(arrow + 3, " )"), mems, 5, M_UNKNOWN);
    *pageable = src == 0 || dst == 0;
    if (*kind == 0) /* HtoD: the host side is the source */
        *mem = src;
    else if (*kind == 1 && dst >= 0)
        *mem = dst;
    else
        *mem = dst >= 0 ? (src == 2 ? dst : src) : src;
}

static bool is_sync_call(const char *s)
{
    return strstr(s, "Synchronize") != NULL || !strcmp(s, "cudaMemcpy") ||
           !strcmp(s, "hipMemcpy") || !strcmp(s, "cuMemcpy") || !strcmp(s, "cudaMemset") ||
           !strcmp(s, "hipMemset");
}

int an_memcpy(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t bytes_key = strtab_find(&t->strs, "bytes", 5);
    struct lat_an_memcpy tab[NKINDS][NMEMS];
    memset(tab, 0, sizeof(tab));
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t i = v->gpu[j];
        if (ev->kind[i] != LAT_EV_MEMCPY && ev->kind[i] != LAT_EV_MEMSET) continue;
        int kind, mem;
        bool pageable;
        parse_copy(an_name(v, i), ev->kind[i] == LAT_EV_MEMSET, &kind, &mem, &pageable);
        struct lat_an_memcpy *m = &tab[kind][mem];
        m->kind = kinds[kind];
        m->memory = mems[mem];
        m->pageable |= pageable;
        m->count++;
        m->time += an_dur(v, i);
        if (bytes_key != UINT32_MAX) {
            const struct lat_arg *a = &t->args[ev->args[i]];
            for (uint32_t k = 0; k < ev->nargs[i]; k++)
                if (a[k].key == bytes_key && a[k].type == LAT_ARG_INT && a[k].v.i > 0)
                    m->bytes += (uint64_t)a[k].v.i;
        }
    }
    size_t nm = 0;
    for (int k = 0; k < NKINDS; k++)
        for (int m = 0; m < NMEMS; m++)
            nm += tab[k][m].count > 0;
    r->memcpy = calloc(nm ? nm : 1, sizeof(*r->memcpy));
    if (!r->memcpy) return -ENOMEM;
    for (int k = 0; k < NKINDS; k++)
        for (int m = 0; m < NMEMS; m++) {
            struct lat_an_memcpy *x = &tab[k][m];
            if (!x->count) continue;
            x->gb_per_s = x->time > 0 ? (double)x->bytes / (double)x->time : 0;
            r->memcpy[r->nmemcpy++] = *x;
        }

    /* synchronisations: a handful of distinct names, linear search is fine */
    size_t cap = 16;
    r->syncs = calloc(cap, sizeof(*r->syncs));
    if (!r->syncs) return -ENOMEM;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i]) continue;
        uint16_t kind = ev->kind[i];
        bool dev = kind == LAT_EV_SYNC;
        if (!dev && !((kind == LAT_EV_RUNTIME || kind == LAT_EV_DRIVER) && v->stream[i] == -1))
            continue;
        const char *name = an_name(v, i);
        if (!dev && !is_sync_call(name)) continue;
        size_t q;
        for (q = 0; q < r->nsyncs; q++)
            if (r->syncs[q].device_side == dev && !strcmp(r->syncs[q].name, name)) break;
        if (q == r->nsyncs) {
            int rc = LAT_GROW(r->syncs, cap, r->nsyncs, 1, 16);
            if (rc) return rc;
            memset(&r->syncs[q], 0, sizeof(r->syncs[q]));
            r->syncs[q].name = name;
            r->syncs[q].device_side = dev;
            r->nsyncs++;
        }
        lat_ns d = an_dur(v, i);
        r->syncs[q].count++;
        r->syncs[q].total += d;
        if (!dev) r->sync_blocking += d;
    }
    return 0;
}
