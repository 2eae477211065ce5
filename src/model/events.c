/*
 * events.c - the columnar trace model: storage, growth, lookups, sorting.
 *
 * Columns grow together by doubling (one realloc per column per doubling). Tracks are found
 * through a small open-addressing hash on (pid, tid, pid_str, tid_str) because readers look one
 * up for every event. Sorting builds a permutation with qsort over (ts, -dur, index) - the
 * index makes it stable - and applies it column by column with one scratch buffer.
 * Every allocation failure returns -ENOMEM and leaves the trace valid (the event is not added).
 */
#include "model/events.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/redact.h"
#include "core/u64map.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct lat_trace_priv {
    struct lat_trace pub;
    struct lat_u64map track_ix; /* lat_track_hash (+ k after k collisions) -> track index */
};

int lat_trace_new(struct lat_trace **out)
{
    struct lat_trace_priv *p = calloc(1, sizeof(*p));
    if (!p) return -ENOMEM;
    int rc = strtab_init(&p->pub.strs);
    if (rc) {
        free(p);
        return rc;
    }
    p->pub.rank = -1;
    p->pub.world_size = -1;
    lat_trace_set_format(&p->pub, &lat_format_unknown);
    *out = &p->pub;
    return 0;
}

static void lat_cols_free(struct lat_event_cols *c)
{
    free(c->ts);
    free(c->dur);
    free(c->name);
    free(c->cat);
    free(c->track);
    free(c->kind);
    free(c->flags);
    free(c->stream);
    free(c->device);
    free(c->step);
    free(c->correlation);
    free(c->external_id);
    free(c->args);
    free(c->nargs);
    free(c->ph);
}

void lat_trace_free(struct lat_trace *t)
{
    if (!t) return;
    struct lat_trace_priv *p = (struct lat_trace_priv *)t;
    strtab_fini(&t->strs);
    lat_cols_free(&t->ev);
    free(t->args);
    free(t->tracks);
    free(t->flows);
    free(t->devices);
    free(t->meta);
    free(t->path);
    lat_u64map_fini(&p->track_ix);
    free(p);
}

int lat_trace_intern(struct lat_trace *t, const char *s, size_t n, uint32_t *id)
{
    return strtab_intern(&t->strs, s, n, id);
}

#define GROW_COL(col, cap)                                                                         \
    do {                                                                                           \
        void *np_ = realloc((col), (cap) * sizeof(*(col)));                                        \
        if (!np_) return -ENOMEM;                                                                  \
        (col) = np_;                                                                               \
    } while (0)

static int lat_cols_grow(struct lat_event_cols *c)
{
    /* one capacity for every column, checked against the widest (8-byte) element */
    size_t cap = lat_grow_cap(c->cap, c->cap + 1, sizeof(int64_t), 1024);
    if (!cap) return LAT_E_OVERFLOW;
    GROW_COL(c->ts, cap);
    GROW_COL(c->dur, cap);
    GROW_COL(c->name, cap);
    GROW_COL(c->cat, cap);
    GROW_COL(c->track, cap);
    GROW_COL(c->kind, cap);
    GROW_COL(c->flags, cap);
    GROW_COL(c->stream, cap);
    GROW_COL(c->device, cap);
    GROW_COL(c->step, cap);
    GROW_COL(c->correlation, cap);
    GROW_COL(c->external_id, cap);
    GROW_COL(c->args, cap);
    GROW_COL(c->nargs, cap);
    GROW_COL(c->ph, cap);
    c->cap = cap;
    return 0;
}

int lat_trace_add_event(struct lat_trace *t, const struct lat_event *e)
{
    struct lat_event_cols *c = &t->ev;
    if (c->n == c->cap) {
        int rc = lat_cols_grow(c);
        if (rc) return rc;
    }
    size_t i = c->n++;
    c->ts[i] = e->ts;
    c->dur[i] = e->dur;
    c->name[i] = e->name;
    c->cat[i] = e->cat;
    c->track[i] = e->track;
    c->kind[i] = e->kind;
    c->flags[i] = e->flags;
    c->stream[i] = e->stream;
    c->device[i] = e->device;
    c->step[i] = e->step;
    c->correlation[i] = e->correlation;
    c->external_id[i] = e->external_id;
    c->args[i] = e->args;
    c->nargs[i] = e->nargs;
    c->ph[i] = e->ph;
    return 0;
}

void lat_trace_event(const struct lat_trace *t, size_t i, struct lat_event *e)
{
    const struct lat_event_cols *c = &t->ev;
    e->ts = c->ts[i];
    e->dur = c->dur[i];
    e->name = c->name[i];
    e->cat = c->cat[i];
    e->track = c->track[i];
    e->kind = c->kind[i];
    e->flags = c->flags[i];
    e->stream = c->stream[i];
    e->device = c->device[i];
    e->step = c->step[i];
    e->correlation = c->correlation[i];
    e->external_id = c->external_id[i];
    e->args = c->args[i];
    e->nargs = c->nargs[i];
    e->ph = c->ph[i];
}

int lat_trace_add_arg(struct lat_trace *t, const struct lat_arg *a, uint32_t *index)
{
    if (t->nargs == t->args_cap) {
        size_t cap = t->args_cap ? t->args_cap * 2 : 1024;
        if (cap > UINT32_MAX) return LAT_E_OVERFLOW;
        GROW_COL(t->args, cap);
        t->args_cap = cap;
    }
    *index = (uint32_t)t->nargs;
    t->args[t->nargs++] = *a;
    return 0;
}

const char *lat_trace_meta(const struct lat_trace *t, const char *key)
{
    uint32_t id = strtab_find(&t->strs, key, strlen(key));
    if (id == UINT32_MAX) return NULL;
    for (size_t i = 0; i < t->nmeta; i++)
        if (t->meta[i].key == id) return lat_trace_str(t, t->meta[i].value);
    return NULL;
}

uint64_t lat_sample_weight(const struct lat_trace *t, size_t i, uint32_t k_weight)
{
    if (k_weight == UINT32_MAX) return 1;
    uint32_t first = t->ev.args[i], n = t->ev.nargs[i];
    for (uint32_t k = 0; k < n; k++) {
        const struct lat_arg *a = &t->args[first + k];
        if (a->key != k_weight) continue;
        if (a->type == LAT_ARG_INT && a->v.i > 0) return (uint64_t)a->v.i;
        if (a->type == LAT_ARG_UINT && a->v.u > 0) return a->v.u;
        return 1;
    }
    return 1;
}

int lat_cpu_ids_init(struct lat_trace *t, struct lat_cpu_ids *ids)
{
    ids->k_weight = ids->v_off = UINT32_MAX;
    int rc;
    if ((rc = lat_trace_intern(t, "stack", 5, &ids->k_stack)) ||
        (rc = lat_trace_intern(t, "state", 5, &ids->k_state)) ||
        (rc = lat_trace_intern(t, "on", 2, &ids->v_on)) ||
        (rc = lat_trace_intern(t, "cpu_sample", 10, &ids->cat)))
        return rc;
    return 0;
}

int lat_trace_add_cpu_sample(struct lat_trace *t, struct lat_cpu_ids *ids,
                             const struct lat_cpu_sample *s, uint32_t shared_args,
                             uint32_t *first_arg)
{
    int rc;
    bool weighted = s->weight > 1;
    if (weighted && s->weight > (uint64_t)INT64_MAX) return LAT_E_OVERFLOW;
    if (s->off && ids->v_off == UINT32_MAX && (rc = lat_trace_intern(t, "off", 3, &ids->v_off)))
        return rc;
    if (weighted && ids->k_weight == UINT32_MAX &&
        (rc = lat_trace_intern(t, "weight", 6, &ids->k_weight)))
        return rc;
    uint32_t first = shared_args, idx;
    if (weighted || shared_args == UINT32_MAX) {
        struct lat_arg a1 = {.key = ids->k_stack, .type = LAT_ARG_STR, .str = s->stack};
        struct lat_arg a2 = {
            .key = ids->k_state, .type = LAT_ARG_STR, .str = s->off ? ids->v_off : ids->v_on};
        if ((rc = lat_trace_add_arg(t, &a1, &first)) || (rc = lat_trace_add_arg(t, &a2, &idx)))
            return rc;
        if (weighted) {
            struct lat_arg a3 = {
                .key = ids->k_weight, .type = LAT_ARG_INT, .v.i = (int64_t)s->weight};
            if ((rc = lat_trace_add_arg(t, &a3, &idx))) return rc;
        }
    }
    struct lat_event e = lat_event_unlinked();
    e.ts = s->ts;
    e.dur = s->off ? s->dur : 0;
    e.name = s->leaf;
    e.cat = ids->cat;
    e.track = s->track;
    e.kind = LAT_EV_CPU_SAMPLE;
    e.flags = s->off ? 0 : LAT_EVF_INSTANT;
    e.args = first;
    e.nargs = weighted ? 3 : 2;
    e.ph = s->off ? 'X' : 'i';
    if ((rc = lat_trace_add_event(t, &e))) return rc;
    if (first_arg) *first_arg = first;
    return 0;
}

const struct lat_arg *lat_trace_arg(const struct lat_trace *t, size_t i, const char *key)
{
    uint32_t id = strtab_find(&t->strs, key, strlen(key));
    if (id == UINT32_MAX) return NULL;
    uint32_t first = t->ev.args[i], n = t->ev.nargs[i];
    for (uint32_t k = 0; k < n; k++)
        if (t->args[first + k].key == id) return &t->args[first + k];
    return NULL;
}

bool lat_trace_arg_int(const struct lat_trace *t, size_t i, const char *key, int64_t *out)
{
    const struct lat_arg *a = lat_trace_arg(t, i, key);
    if (!a) return false;
    switch (a->type) {
    case LAT_ARG_INT:
    case LAT_ARG_BOOL:
        *out = a->v.i;
        return true;
    case LAT_ARG_STR: {
        const char *s = lat_trace_str(t, a->str);
        char *end;
        if (!*s) return false;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (*end || errno) return false;
        *out = v;
        return true;
    }
    default:
        return false;
    }
}

static uint64_t lat_track_hash(int64_t pid, int64_t tid, uint32_t ps, uint32_t ts, bool gpu)
{
    uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ULL;
    h ^= (uint64_t)tid + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
    h ^= ((uint64_t)ps << 32 | ts) * 0xC2B2AE3D27D4EB4FULL;
    h ^= gpu;
    return h ^ (h >> 29);
}

int lat_trace_track(struct lat_trace *t, int64_t pid, int64_t tid, uint32_t pid_str,
                    uint32_t tid_str, bool gpu, uint32_t *index)
{
    struct lat_trace_priv *p = (struct lat_trace_priv *)t;
    /* Two tracks whose 64-bit hashes collide take the keys h, h + 1, ...: probe them in order
     * (nothing is ever removed, so the first free key ends the search). */
    uint64_t key = lat_track_hash(pid, tid, pid_str, tid_str, gpu), ix;
    for (; lat_u64map_get(&p->track_ix, key, &ix); key++) {
        const struct lat_track *tr = &t->tracks[ix];
        if (tr->pid == pid && tr->tid == tid && tr->pid_str == pid_str && tr->tid_str == tid_str &&
            tr->gpu == gpu) {
            *index = (uint32_t)ix;
            return 0;
        }
    }
    if (t->ntracks >= UINT32_MAX) return LAT_E_OVERFLOW;
    int rc = LAT_GROW(t->tracks, t->tracks_cap, t->ntracks, 1, 64);
    if (rc || (rc = lat_u64map_put(&p->track_ix, key, t->ntracks))) return rc;
    struct lat_track *tr = &t->tracks[t->ntracks];
    memset(tr, 0, sizeof(*tr));
    tr->pid = pid;
    tr->tid = tid;
    tr->pid_str = pid_str;
    tr->tid_str = tid_str;
    tr->gpu = gpu;
    *index = (uint32_t)t->ntracks++;
    return 0;
}

int lat_trace_add_flow(struct lat_trace *t, const struct lat_flow *f)
{
    int rc = LAT_GROW(t->flows, t->flows_cap, t->nflows, 1, 256);
    if (rc) return rc;
    t->flows[t->nflows++] = *f;
    return 0;
}

int lat_trace_add_device(struct lat_trace *t, const struct lat_device *d)
{
    int rc = LAT_GROW(t->devices, t->devices_cap, t->ndevices, 1, 8);
    if (rc) return rc;
    t->devices[t->ndevices++] = *d;
    return 0;
}

int lat_trace_add_meta(struct lat_trace *t, uint32_t key, uint32_t value)
{
    int rc = LAT_GROW(t->meta, t->meta_cap, t->nmeta, 1, 16);
    if (rc) return rc;
    t->meta[t->nmeta].key = key;
    t->meta[t->nmeta].value = value;
    t->nmeta++;
    return 0;
}

bool lat_meta_is_secret(const char *key)
{
    return lat_secret_name(key, strlen(key));
}

const char *lat_ev_kind_name(enum lat_ev_kind k)
{
    static const char *const names[LAT_EV_KIND_COUNT] = {
        [LAT_EV_OTHER] = "other",
        [LAT_EV_CPU_OP] = "cpu_op",
        [LAT_EV_USER_ANNOTATION] = "user_annotation",
        [LAT_EV_GPU_ANNOTATION] = "gpu_user_annotation",
        [LAT_EV_PYTHON] = "python_function",
        [LAT_EV_RUNTIME] = "cuda_runtime",
        [LAT_EV_DRIVER] = "cuda_driver",
        [LAT_EV_KERNEL] = "kernel",
        [LAT_EV_MEMCPY] = "gpu_memcpy",
        [LAT_EV_MEMSET] = "gpu_memset",
        [LAT_EV_SYNC] = "cuda_sync",
        [LAT_EV_DEVICE_OTHER] = "device_other",
        [LAT_EV_OVERHEAD] = "overhead",
        [LAT_EV_INSTANT] = "instant",
        [LAT_EV_COUNTER] = "counter",
        [LAT_EV_CPU_SAMPLE] = "cpu_sample",
        [LAT_EV_SPAN] = "Trace",
    };
    if ((unsigned)k >= LAT_EV_KIND_COUNT) return "other";
    return names[k];
}

bool lat_ev_kind_is_gpu(enum lat_ev_kind k)
{
    return k == LAT_EV_KERNEL || k == LAT_EV_MEMCPY || k == LAT_EV_MEMSET || k == LAT_EV_SYNC ||
           k == LAT_EV_DEVICE_OTHER || k == LAT_EV_GPU_ANNOTATION;
}

const char *lat_drop_reason_name(enum lat_drop_reason r)
{
    static const char *const names[LAT_DROP_REASON_COUNT] = {
        [LAT_DROP_NOT_OBJECT] = "not_object",
        [LAT_DROP_NO_PHASE] = "no_phase",
        [LAT_DROP_PHASE] = "unsupported_phase",
        [LAT_DROP_NO_TS] = "no_ts",
        [LAT_DROP_BAD_TS] = "bad_ts",
        [LAT_DROP_TS_RANGE] = "ts_out_of_range",
        [LAT_DROP_BAD_DUR] = "bad_dur",
        [LAT_DROP_NEG_DUR] = "negative_dur",
        [LAT_DROP_DUR_RANGE] = "dur_out_of_range",
        [LAT_DROP_UNMATCHED_END] = "unmatched_end",
        [LAT_DROP_FLOW_NO_ID] = "flow_without_id",
        [LAT_DROP_NO_TIME] = "no_time",
        [LAT_DROP_BAD_TIME] = "bad_time",
        [LAT_DROP_NEG_TIME] = "negative_time",
        [LAT_DROP_EMPTY] = "empty_event",
    };
    return (unsigned)r < LAT_DROP_REASON_COUNT ? names[r] : "other";
}

const char *lat_drop_reason_desc(enum lat_drop_reason r)
{
    static const char *const desc[LAT_DROP_REASON_COUNT] = {
        [LAT_DROP_NOT_OBJECT] = "not a JSON object",
        [LAT_DROP_NO_PHASE] = "no \"ph\" string",
        [LAT_DROP_PHASE] = "phase not supported (async b/e/n, P, O, ...)",
        [LAT_DROP_NO_TS] = "no \"ts\"",
        [LAT_DROP_BAD_TS] = "\"ts\" not a number",
        [LAT_DROP_TS_RANGE] = "\"ts\" out of range",
        [LAT_DROP_BAD_DUR] = "\"dur\" not a number",
        [LAT_DROP_NEG_DUR] = "negative duration",
        [LAT_DROP_DUR_RANGE] = "duration over 36 years",
        [LAT_DROP_UNMATCHED_END] = "E without a B",
        [LAT_DROP_FLOW_NO_ID] = "flow without an id",
        [LAT_DROP_NO_TIME] = "a time field missing",
        [LAT_DROP_BAD_TIME] = "a time not a number",
        [LAT_DROP_NEG_TIME] = "a negative time",
        [LAT_DROP_EMPTY] = "empty: no name, no duration",
    };
    return (unsigned)r < LAT_DROP_REASON_COUNT ? desc[r] : "other";
}

void lat_trace_remove_flagged(struct lat_trace *t, uint16_t mask)
{
    struct lat_event_cols *c = &t->ev;
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->flags[i] & mask) continue;
        if (w != i) {
            c->ts[w] = c->ts[i];
            c->dur[w] = c->dur[i];
            c->name[w] = c->name[i];
            c->cat[w] = c->cat[i];
            c->track[w] = c->track[i];
            c->kind[w] = c->kind[i];
            c->flags[w] = c->flags[i];
            c->stream[w] = c->stream[i];
            c->device[w] = c->device[i];
            c->step[w] = c->step[i];
            c->correlation[w] = c->correlation[i];
            c->external_id[w] = c->external_id[i];
            c->args[w] = c->args[i];
            c->nargs[w] = c->nargs[i];
            c->ph[w] = c->ph[i];
        }
        w++;
    }
    c->n = w;
}

/* Called from several loader threads at once (a directory of ORT profiles is sorted per file in
 * the threaded loader): the columns come through qsort_r's argument, never a global. */
static int lat_sort_cmp(const void *a, const void *b, void *arg)
{
    const struct lat_event_cols *sort_cols = arg;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (sort_cols->ts[i] != sort_cols->ts[j]) return sort_cols->ts[i] < sort_cols->ts[j] ? -1 : 1;
    if (sort_cols->dur[i] != sort_cols->dur[j])
        return sort_cols->dur[i] > sort_cols->dur[j] ? -1 : 1;
    return i < j ? -1 : (i > j);
}

#define PERMUTE(col, type)                                                                         \
    do {                                                                                           \
        type *dst_ = (type *)scratch;                                                              \
        for (size_t k = 0; k < n; k++)                                                             \
            dst_[k] = (col)[perm[k]];                                                              \
        memcpy((col), dst_, n * sizeof(type));                                                     \
    } while (0)

int lat_trace_sort(struct lat_trace *t)
{
    size_t n = t->ev.n;
    if (n < 2) return 0;
    if (n > UINT32_MAX) return LAT_E_OVERFLOW;
    uint32_t *perm = malloc(n * sizeof(*perm));
    void *scratch = malloc(n * sizeof(int64_t));
    if (!perm || !scratch) {
        free(perm);
        free(scratch);
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++)
        perm[k] = (uint32_t)k;
    qsort_r(perm, n, sizeof(*perm), lat_sort_cmp, &t->ev);
    PERMUTE(t->ev.ts, lat_ns);
    PERMUTE(t->ev.dur, lat_ns);
    PERMUTE(t->ev.name, uint32_t);
    PERMUTE(t->ev.cat, uint32_t);
    PERMUTE(t->ev.track, uint32_t);
    PERMUTE(t->ev.kind, uint16_t);
    PERMUTE(t->ev.flags, uint16_t);
    PERMUTE(t->ev.stream, int64_t);
    PERMUTE(t->ev.device, int32_t);
    PERMUTE(t->ev.step, int32_t);
    PERMUTE(t->ev.correlation, int64_t);
    PERMUTE(t->ev.external_id, int64_t);
    PERMUTE(t->ev.args, uint32_t);
    PERMUTE(t->ev.nargs, uint32_t);
    PERMUTE(t->ev.ph, char);
    free(perm);
    free(scratch);
    return 0;
}
