/*
 * critpath.c - critical-path analysis (../shared/docs/analyses.md §11; HTA's
 * critical_path_analysis at f4d0062c), written from that definition.
 *
 * Per window (each kept CPU ProfilerStep, one instance of an annotation, or the whole trace):
 *  1. rows: CPU rows (stream -1) starting inside the window (bounds included) with dur > 0, the
 *     GPU rows (stream != -1) whose launching CPU row is one of those, and every Stream Wait Event;
 *  2. nodes: a start and an end node for each CPU op / CUDA runtime / CUDA driver row and each
 *     GPU row with a correlation, sorted by (time, event index);
 *  3. edges: the CUDA-runtime-lock order of cudaHostAlloc/cudaLaunchKernel/cudaMemcpyAsync, each
 *     CPU thread's call stack walked depth first (nested boundaries are OPERATOR edges, top-level
 *     ops are chained by DEPENDENCY edges, a blocking call's span weighs 0), and per stream the
 *     kernels with launch-delay, kernel-kernel and sync edges;
 *  4. the longest path of the DAG (topological generations, first maximum wins, as networkx's
 *     dag_longest_path), its split by bound type and the ops it is attributed to.
 * A (u, v) pair added twice is one edge; the last addition sets its type and weight (a DiGraph).
 * Negative weights (rounding) count 0. Everything is allocated per rank, never per event.
 */
#include "analyze/internal.h"
#include "core/grow.h"
#include "core/sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CP_KK_THRESHOLD (1500 * LAT_NS_PER_US) /* KERNEL_KERNEL_DELAY_THRESHOLD_US */

const char *lat_cp_bound_name(enum lat_cp_bound b)
{
    static const char *const n[] = {"cpu_bound",
                                    "gpu_compute_bound",
                                    "gpu_communication_bound",
                                    "gpu_kernel_launch_overhead",
                                    "gpu_kernel_kernel_overhead",
                                    "dependency"};
    return (unsigned)b < LAT_CP_B_COUNT ? n[b] : "?";
}

const char *lat_cp_edge_name(enum lat_cp_edge e)
{
    static const char *const n[] = {
        "critical_path_operator", "critical_path_dependency", "critical_path_kernel_launch_delay",
        "critical_path_kernel_kernel_delay", "critical_path_sync_dependency"};
    return (unsigned)e < LAT_CP_E_COUNT ? n[e] : "?";
}

struct cp_node {
    lat_ns ts;
    uint32_t ev;
    uint8_t start;
};

struct cp_edge {
    uint32_t u, v;
    lat_ns w;
    uint32_t attr; /* attributed event, AN_NONE */
    uint8_t type;
};

/* One call-stack boundary (HTA's call_stack Event). */
struct cs_ev {
    uint32_t ev;
    lat_ns time, dur;
    int8_t type; /* +1 start, -1 end */
};

/* string ids the analysis tests against (UINT32_MAX when the trace never has them) */
struct cp_ids {
    uint32_t cat_cpu_op, cat_runtime, cat_driver, cat_sync, cat_user_ann;
    uint32_t lock[3], blocking[6];
    uint32_t event_record, stream_wait_call, swe, event_sync, context_sync, stream_sync;
};

struct cp {
    struct an_view *v;
    const struct lat_trace *t;
    struct cp_ids id;
    size_t n;
    /* per event */
    uint32_t *stamp; /* window number + 1 when the row is in the window */
    uint32_t *snode, *enode;
    int32_t *qlen; /* queue length after the row's step (launch +1, GPU row -1); INT32_MIN none */
    uint32_t *prev_launch;     /* cudaEventRecord -> launch row before it on its (gpu, stream) */
    uint32_t *next_launch;     /* cudaStreamWaitEvent -> next launch on (pid, tid, stream) */
    struct lat_u64map records; /* cudaEventRecord correlation -> row */
    int64_t *tid;              /* thread id per track after the forward/backward remap */
    /* global lists */
    uint32_t *cpu; /* kept stream -1 rows sorted by ts */
    size_t ncpu;
    uint32_t *swe; /* Stream Wait Event rows */
    size_t nswe;
    /* per window scratch */
    uint32_t *rows;
    size_t nrows;
    struct cp_node *nodes;
    size_t nnodes;
    struct cp_edge *edges;
    size_t nedges, edges_cap;
    struct lat_u64map edge_ix;
    struct cs_ev *cs;
    uint32_t *lock_stack;
    uint32_t *parent, *first_child, *next_sib, *last_child, *dfs;
    uint32_t *tmp;
    uint32_t window;
    bool zero_launch;
};

static uint32_t find(const struct lat_trace *t, const char *s)
{
    return strtab_find(&t->strs, s, strlen(s));
}

static bool in_ids(uint32_t x, const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] != UINT32_MAX && ids[i] == x) return true;
    return false;
}

static int add_edge(struct cp *c, uint32_t u, uint32_t v, enum lat_cp_edge type, bool zero,
                    uint32_t attr)
{
    if (u == v) return 0;
    lat_ns w = (type == LAT_CP_E_DEPENDENCY || type == LAT_CP_E_SYNC || zero)
                   ? 0
                   : c->nodes[v].ts - c->nodes[u].ts;
    int64_t key = ((int64_t)u << 32) | v;
    uint32_t k = an_row(&c->edge_ix, key);
    if (k != AN_NONE) {
        c->edges[k].type = (uint8_t)type;
        c->edges[k].w = w;
        if (attr != AN_NONE) c->edges[k].attr = attr;
        return 0;
    }
    int rc = LAT_GROW(c->edges, c->edges_cap, c->nedges, 1, 1024);
    if (rc) return rc;
    c->edges[c->nedges] = (struct cp_edge){u, v, w, attr, (uint8_t)type};
    rc = an_row_put(&c->edge_ix, key, (uint32_t)c->nedges);
    if (rc) return rc;
    c->nedges++;
    return 0;
}

/* HTA's _attribute_edge: which event an OPERATOR / KERNEL_KERNEL edge belongs to. */
static uint32_t attribute(const struct cp *c, uint32_t u, uint32_t v, enum lat_cp_edge type,
                          uint32_t src_parent)
{
    if (type != LAT_CP_E_OPERATOR && type != LAT_CP_E_KERNEL_KERNEL) return AN_NONE;
    const struct cp_node *s = &c->nodes[u], *d = &c->nodes[v];
    if (type == LAT_CP_E_KERNEL_KERNEL || s->start) return s->ev;
    if (!d->start) return d->ev;
    return src_parent;
}

static int add_attr_edge(struct cp *c, uint32_t u, uint32_t v, enum lat_cp_edge type, bool zero,
                         uint32_t src_parent)
{
    return add_edge(c, u, v, type, zero, attribute(c, u, v, type, src_parent));
}

static bool in_win(const struct cp *c, uint32_t i)
{
    return c->stamp[i] == c->window;
}

static bool has_nodes(const struct cp *c, uint32_t i)
{
    return in_win(c, i) && c->snode[i] != AN_NONE;
}

static bool is_lock(const struct cp *c, uint32_t ev)
{
    return in_ids(c->t->ev.name[ev], c->id.lock, 3);
}

/* ---- per rank preparation ------------------------------------------------------------------ */

static int node_cmp(const void *a, const void *b)
{
    const struct cp_node *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->ev != y->ev) return x->ev < y->ev ? -1 : 1;
    return (int)y->start - (int)x->start;
}

static int ts_cmp(const void *a, const void *b, void *ctx)
{
    const struct an_view *v = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    lat_ns tx = an_ts(v, x), ty = an_ts(v, y);
    if (tx != ty) return tx < ty ? -1 : 1;
    return x < y ? -1 : x > y;
}

struct q_item {
    int64_t key1, key2; /* grouping */
    lat_ns ts;
    uint32_t ev, seq;
    int32_t delta;
};

static int q_cmp(const void *a, const void *b)
{
    const struct q_item *x = a, *y = b;
    if (x->key1 != y->key1) return x->key1 < y->key1 ? -1 : 1;
    if (x->key2 != y->key2) return x->key2 < y->key2 ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int64_t track_pid(const struct lat_trace *t, uint32_t i)
{
    return t->tracks[t->ev.track[i]].pid;
}

static bool is_launch_with_gpu(struct an_view *v, uint32_t i)
{
    if (!v->keep[i] || v->stream[i] != -1 || !(an_namecls(v, i) & AN_NAME_Q_LAUNCH)) return false;
    uint32_t g = v->corr[i];
    return g != AN_NONE && v->keep[g] && v->stream[g] != -1;
}

/* Queue length per row (§8, over the whole rank), the launch before each cudaEventRecord on
 * the (GPU, stream) its event is waited on, the launch after each cudaStreamWaitEvent on its
 * (pid, tid, stream). */
static int prep_rank(struct cp *c)
{
    struct an_view *v = c->v;
    const struct lat_trace *t = c->t;
    size_t n = c->n, nl = 0, cap = 0;
    int rc0;
    for (size_t i = 0; i < n; i++)
        if (is_launch_with_gpu(v, (uint32_t)i)) nl++;
    for (size_t i = 0; i < n; i++)
        if (v->keep[i] &&
            (t->ev.name[i] == c->id.event_record || t->ev.name[i] == c->id.stream_wait_call))
            cap++;
    cap += 2 * nl;
    if ((rc0 = lat_u64map_init(&c->records, 64))) return rc0;
    for (size_t i = 0; i < n && !rc0; i++)
        if (v->keep[i] && t->ev.name[i] == c->id.event_record && t->ev.correlation[i] >= 0 &&
            an_row(&c->records, t->ev.correlation[i]) == AN_NONE)
            rc0 = an_row_put(&c->records, t->ev.correlation[i], (uint32_t)i);
    if (rc0) return rc0;
    struct q_item *q = malloc((cap ? cap : 1) * sizeof(*q));
    struct lat_u64map rec_stream;
    int rc = lat_u64map_init(&rec_stream, 64);
    if (!q || rc) {
        free(q);
        if (!rc) lat_u64map_fini(&rec_stream);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        c->qlen[i] = INT32_MIN;
    size_t k = 0;
    /* launches first, so that at equal ts a launch precedes the kernel (HTA's concat order) */
    for (size_t i = 0; i < n; i++)
        if (is_launch_with_gpu(v, (uint32_t)i)) {
            q[k] = (struct q_item){v->stream[v->corr[i]], 0,           an_ts(v, i),
                                   (uint32_t)i,           (uint32_t)k, +1};
            k++;
        }
    for (size_t i = 0; i < n; i++)
        if (is_launch_with_gpu(v, (uint32_t)i)) {
            uint32_t g = v->corr[i];
            q[k] = (struct q_item){v->stream[g], 0, an_ts(v, g), g, (uint32_t)k, -1};
            k++;
        }
    qsort(q, k, sizeof(*q), q_cmp);
    int64_t run = 0;
    for (size_t j = 0; j < k; j++) {
        if (!j || q[j].key1 != q[j - 1].key1) run = 0;
        run += q[j].delta;
        c->qlen[q[j].ev] = (int32_t)run;
    }

    /* cudaEventRecord correlation -> (gpu pid, stream) from the syncs that wait on it */
    for (size_t i = 0; i < n && !rc; i++) {
        int64_t ws, wc;
        if (!v->keep[i] || t->ev.cat[i] != c->id.cat_sync || !t->ev.nargs[i] ||
            !lat_trace_arg_int(t, i, "wait_on_stream", &ws) || ws <= -1 ||
            !lat_trace_arg_int(t, i, "wait_on_cuda_event_record_corr_id", &wc))
            continue;
        /* key: record correlation; value: this sync row (pid and wait_on_stream read back) */
        if (an_row(&rec_stream, wc) == AN_NONE) rc = an_row_put(&rec_stream, wc, (uint32_t)i);
    }
    /* launches and records merged per (gpu, stream), in ts order; records get the launch
     * before (or at) them */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        c->prev_launch[i] = c->next_launch[i] = AN_NONE;
        if (is_launch_with_gpu(v, (uint32_t)i)) {
            uint32_t g = v->corr[i];
            q[k] = (struct q_item){track_pid(t, g), v->stream[g], an_ts(v, i),
                                   (uint32_t)i,     (uint32_t)k,  0};
            k++;
        } else if (v->keep[i] && t->ev.name[i] == c->id.event_record) {
            uint32_t s = an_row(&rec_stream, t->ev.correlation[i]);
            int64_t ws = -1;
            if (s == AN_NONE || !lat_trace_arg_int(t, s, "wait_on_stream", &ws)) continue;
            q[k] = (struct q_item){track_pid(t, s), ws, an_ts(v, i), (uint32_t)i, (uint32_t)k, 1};
            k++;
        }
    }
    qsort(q, k, sizeof(*q), q_cmp);
    uint32_t last = AN_NONE;
    for (size_t j = 0; j < k; j++) {
        if (!j || q[j].key1 != q[j - 1].key1 || q[j].key2 != q[j - 1].key2) last = AN_NONE;
        if (q[j].delta == 0)
            last = q[j].ev;
        else
            c->prev_launch[q[j].ev] = last;
    }
    /* launches and cudaStreamWaitEvent calls per (pid, tid, stream); a wait gets the next
     * launch */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct lat_track *tr = &t->tracks[t->ev.track[i]];
        if (is_launch_with_gpu(v, (uint32_t)i)) {
            uint32_t g = v->corr[i];
            q[k] = (struct q_item){tr->pid * 1000003 + tr->tid,
                                   v->stream[g],
                                   an_ts(v, i),
                                   (uint32_t)i,
                                   (uint32_t)k,
                                   0};
            k++;
        } else if (v->keep[i] && t->ev.name[i] == c->id.stream_wait_call && v->corr[i] != AN_NONE &&
                   v->keep[v->corr[i]] && v->stream[v->corr[i]] != -1) {
            q[k] = (struct q_item){tr->pid * 1000003 + tr->tid,
                                   v->stream[v->corr[i]],
                                   an_ts(v, i),
                                   (uint32_t)i,
                                   (uint32_t)k,
                                   1};
            k++;
        }
    }
    qsort(q, k, sizeof(*q), q_cmp);
    uint32_t next = AN_NONE;
    for (size_t j = k; j-- > 0;) {
        if (j + 1 == k || q[j].key1 != q[j + 1].key1 || q[j].key2 != q[j + 1].key2) next = AN_NONE;
        if (q[j].delta == 0)
            next = q[j].ev;
        else
            c->next_launch[q[j].ev] = next;
    }
    free(q);
    lat_u64map_fini(&rec_stream);
    if (rc) return rc;

    size_t nc = 0, ns = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v->keep[i]) continue;
        if (v->stream[i] == -1) nc++;
        if (v->stream[i] != -1 && t->ev.name[i] == c->id.swe) ns++;
    }
    c->cpu = malloc((nc ? nc : 1) * sizeof(*c->cpu));
    c->swe = malloc((ns ? ns : 1) * sizeof(*c->swe));
    if (!c->cpu || !c->swe) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!v->keep[i]) continue;
        if (v->stream[i] == -1) c->cpu[c->ncpu++] = (uint32_t)i;
        if (v->stream[i] != -1 && t->ev.name[i] == c->id.swe) c->swe[c->nswe++] = (uint32_t)i;
    }
    qsort_r(c->cpu, c->ncpu, sizeof(*c->cpu), ts_cmp, v);
    return 0;
}

/* ---- per window ---------------------------------------------------------------------------- */

static bool is_node_row(const struct cp *c, uint32_t i)
{
    uint32_t cat = c->t->ev.cat[i];
    if (cat == c->id.cat_cpu_op || cat == c->id.cat_runtime || cat == c->id.cat_driver) return true;
    /* latscope mode: the other spellings of these categories too (Operator, Runtime, hip/xpu
     * runtime, ...); HTA matches only cpu_op, cuda_runtime and cuda_driver */
    uint16_t kind = c->t->ev.kind[i];
    if (!c->v->o->hta_compat && c->v->stream[i] == -1 &&
        (kind == LAT_EV_CPU_OP || kind == LAT_EV_RUNTIME || kind == LAT_EV_DRIVER))
        return true;
    return c->v->stream[i] != -1 && c->t->ev.correlation[i] >= 0;
}

/* The one thread id whose cpu_op/user_annotation rows in the window have names containing s,
 * or INT64_MIN (none or several). */
static int64_t tid_with(const struct cp *c, const char *s)
{
    int64_t found = INT64_MIN;
    for (size_t k = 0; k < c->nrows; k++) {
        uint32_t i = c->rows[k], cat = c->t->ev.cat[i];
        if (cat != c->id.cat_cpu_op && cat != c->id.cat_user_ann) continue;
        if (!strstr(an_name(c->v, i), s)) continue;
        int64_t tid = c->t->tracks[c->t->ev.track[i]].tid;
        if (found == INT64_MIN)
            found = tid;
        else if (found != tid)
            return INT64_MIN;
    }
    return found;
}

/* HTA's compare_events. */
static int cs_cmp(const void *a, const void *b)
{
    const struct cs_ev *x = a, *y = b;
    if (x->ev == y->ev) return x->type == 1 ? -1 : 1;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    if (x->type == y->type) {
        if (x->type == 1) {
            if (x->dur == y->dur) return x->ev < y->ev ? -1 : 1;
            return x->dur < y->dur ? 1 : -1;
        }
        if (x->dur == y->dur) return x->ev < y->ev ? 1 : -1;
        return x->dur < y->dur ? -1 : 1;
    }
    if (x->dur > 0 && y->dur > 0) return x->type == 1 ? 1 : -1;
    if (x->dur == 0 && y->dur == 0) return x->ev < y->ev ? -1 : 1;
    return x->type == 1 ? -1 : 1;
}

static int thr_cmp(const void *a, const void *b, void *ctx)
{
    const struct cp *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct lat_track *tx = &c->t->tracks[c->t->ev.track[x]],
                           *ty = &c->t->tracks[c->t->ev.track[y]];
    int64_t a1 = tx->pid, b1 = ty->pid, a2 = c->tid[c->t->ev.track[x]],
            b2 = c->tid[c->t->ev.track[y]];
    if (a1 != b1) return a1 < b1 ? -1 : 1;
    if (a2 != b2) return a2 < b2 ? -1 : 1;
    return x < y ? -1 : x > y;
}

static bool shares_lock(const struct cp *c, uint32_t a, uint32_t b)
{
    return is_lock(c, c->nodes[a].ev) && is_lock(c, c->nodes[b].ev) &&
           (c->nodes[a].start || !c->nodes[b].start);
}

/* One CPU thread's rows rows[0..m): the call stack (HTA's CallStackGraph) walked depth first. */
static int walk_thread(struct cp *c, const uint32_t *rows, size_t m)
{
    struct an_view *v = c->v;
    struct cs_ev *e = c->cs;
    size_t ne = 0;
    for (size_t k = 0; k < m; k++) {
        uint32_t i = rows[k];
        lat_ns ts = an_ts(v, i), d = an_dur(v, i);
        if (d < 0) d = 0;
        e[ne++] = (struct cs_ev){(uint32_t)k, ts, d, 1};
        e[ne++] = (struct cs_ev){(uint32_t)k, ts + d, d, -1};
    }
    /* cs_cmp compares local indices, which follow the event order of rows[] */
    qsort(e, ne, sizeof(*e), cs_cmp);
    uint32_t *stack = c->tmp, sp = 0;
    for (size_t k = 0; k < m; k++)
        c->first_child[k] = c->next_sib[k] = c->last_child[k] = AN_NONE;
    uint32_t root_first = AN_NONE, root_last = AN_NONE;
    for (size_t j = 0; j < ne; j++) {
        if (e[j].type == 1) {
            uint32_t x = e[j].ev, p = sp ? stack[sp - 1] : AN_NONE;
            c->parent[x] = p;
            uint32_t *first = p == AN_NONE ? &root_first : &c->first_child[p];
            uint32_t *lastc = p == AN_NONE ? &root_last : &c->last_child[p];
            if (*first == AN_NONE)
                *first = x;
            else
                c->next_sib[*lastc] = x;
            *lastc = x;
            stack[sp++] = x;
        } else if (sp) {
            sp--;
        }
    }
    /* depth-first walk: dfs[] holds (local index << 1 | exited) */
    uint32_t last_node = AN_NONE, last_parent = AN_NONE;
    int depth = 0;
    uint32_t *st = c->dfs, top = 0;
    for (uint32_t x = root_first; x != AN_NONE; x = c->next_sib[x]) {
        st[top++] = x;
        while (top) {
            uint32_t y = st[top - 1];
            uint32_t ev = rows[y];
            if (!(c->tmp[m + y] & 1)) { /* enter */
                c->tmp[m + y] = 1;
                uint32_t par = c->parent[y] == AN_NONE ? AN_NONE : rows[c->parent[y]];
                if (has_nodes(c, ev)) {
                    uint32_t s = c->snode[ev];
                    if (last_node != AN_NONE && !shares_lock(c, last_node, s)) {
                        enum lat_cp_edge ty = depth == 0 ? LAT_CP_E_DEPENDENCY : LAT_CP_E_OPERATOR;
                        int rc = add_attr_edge(c, last_node, s, ty, false, last_parent);
                        if (rc) return rc;
                    }
                    last_node = s;
                    last_parent = par;
                    depth++;
                }
                /* push children in reverse so the first is walked first */
                uint32_t base = top;
                for (uint32_t ch = c->first_child[y]; ch != AN_NONE; ch = c->next_sib[ch])
                    st[top++] = ch;
                for (uint32_t a = base, b = top - 1; a < b; a++, b--) {
                    uint32_t tmp = st[a];
                    st[a] = st[b];
                    st[b] = tmp;
                }
            } else { /* exit */
                top--;
                uint32_t par = c->parent[y] == AN_NONE ? AN_NONE : rows[c->parent[y]];
                if (has_nodes(c, ev)) {
                    uint32_t en = c->enode[ev];
                    if (last_node != AN_NONE && !shares_lock(c, last_node, en)) {
                        bool zero = in_ids(c->t->ev.name[ev], c->id.blocking, 6);
                        int rc =
                            add_attr_edge(c, last_node, en, LAT_CP_E_OPERATOR, zero, last_parent);
                        if (rc) return rc;
                    }
                    last_node = en;
                    last_parent = par;
                    depth--;
                }
            }
        }
    }
    return 0;
}

static int gpu_cmp(const void *a, const void *b, void *ctx)
{
    const struct cp *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    lat_ns tx = c->t->ev.cat[x] == c->id.cat_sync ? an_end(c->v, x) : an_ts(c->v, x);
    lat_ns ty = c->t->ev.cat[y] == c->id.cat_sync ? an_end(c->v, y) : an_ts(c->v, y);
    if (tx != ty) return tx < ty ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int sync_edge(struct cp *c, uint32_t gpu_node, uint32_t runtime)
{
    if (runtime == AN_NONE || !has_nodes(c, runtime)) return 0;
    return add_edge(c, gpu_node, c->enode[runtime], LAT_CP_E_SYNC, true, AN_NONE);
}

/* The GPU rows and sync records of the window, per stream (HTA's _construct_graph_from_kernels). */
static int walk_kernels(struct cp *c)
{
    struct an_view *v = c->v;
    const struct lat_trace *t = c->t;
    uint32_t *g = c->tmp;
    size_t ng = 0;
    for (size_t k = 0; k < c->nrows; k++) {
        uint32_t i = c->rows[k];
        uint32_t nm = t->ev.name[i];
        bool named = nm != UINT32_MAX && (nm == c->id.event_sync || nm == c->id.context_sync);
        if ((v->stream[i] != -1 || named) && t->ev.correlation[i] >= 0) g[ng++] = i;
    }
    qsort_r(g, ng, sizeof(*g), gpu_cmp, c);
    /* the last GPU node per stream, streams in first-seen order (HTA's last_node dict: a
     * Context Sync syncs on them in that order) */
    struct lat_u64map last = {0}, ksync = {0}; /* stream -> index into lastn; row -> row */
    uint32_t *lastn = NULL;
    size_t nlast = 0, cap_last = 0;
    int rc = 0;
    for (size_t k = 0; k < ng && !rc; k++) {
        uint32_t i = g[k];
        int64_t stream = v->stream[i];
        uint32_t runtime = v->corr[i];
        if (t->ev.cat[i] == c->id.cat_sync) {
            uint32_t nm = t->ev.name[i];
            if (nm == c->id.swe || nm == c->id.event_sync) {
                int64_t wc;
                if (!lat_trace_arg_int(t, i, "wait_on_cuda_event_record_corr_id", &wc)) continue;
                /* the cudaEventRecord with that correlation, and the launch before it */
                uint32_t rec = an_row(&c->records, wc);
                if (rec == AN_NONE || c->prev_launch[rec] == AN_NONE) continue;
                uint32_t src = v->corr[c->prev_launch[rec]];
                if (nm == c->id.swe) {
                    if (runtime == AN_NONE || c->next_launch[runtime] == AN_NONE) continue;
                    uint32_t dest = v->corr[c->next_launch[runtime]];
                    rc = an_row_put(&ksync, dest, src);
                } else if (has_nodes(c, src)) {
                    rc = sync_edge(c, c->enode[src], runtime);
                }
                continue;
            }
            if (nm == c->id.context_sync) {
                for (size_t s = 0; s < nlast && !rc; s++)
                    rc = sync_edge(c, lastn[s], runtime);
            } else if (nm == c->id.stream_sync) {
                uint32_t ls = an_row(&last, stream);
                if (ls != AN_NONE) rc = sync_edge(c, lastn[ls], runtime);
            }
            continue;
        }
        if (!has_nodes(c, i)) continue;
        uint32_t s = c->snode[i], e = c->enode[i];
        if ((rc = add_attr_edge(c, s, e, LAT_CP_E_OPERATOR, false, AN_NONE))) break;
        uint32_t ks = an_row(&ksync, i), ks_end = AN_NONE;
        bool launch_added = false;
        if (ks != AN_NONE) {
            if (has_nodes(c, ks)) {
                ks_end = c->enode[ks];
                if ((rc = add_edge(c, ks_end, s, LAT_CP_E_SYNC, true, AN_NONE))) break;
            } else {
                ks = AN_NONE;
            }
            an_row_put(&ksync, i, AN_NONE);
        }
        uint32_t ls = an_row(&last, stream), ln = ls == AN_NONE ? AN_NONE : lastn[ls];
        lat_ns rts = runtime != AN_NONE ? an_ts(v, runtime) : 0;
        int32_t qrt = runtime != AN_NONE ? c->qlen[runtime] : INT32_MIN;
        if (runtime != AN_NONE && qrt == 1 && c->qlen[i] == 0 &&
            (ln == AN_NONE || c->nodes[ln].ts < rts) &&
            (ks == AN_NONE || c->nodes[ks_end].ts < rts)) {
            if (has_nodes(c, runtime)) {
                if ((rc = add_edge(c, c->snode[runtime], s, LAT_CP_E_LAUNCH, false, AN_NONE)))
                    break;
                launch_added = true;
            }
        } else if (ln != AN_NONE && c->nodes[s].ts - c->nodes[ln].ts < CP_KK_THRESHOLD &&
                   (ks == AN_NONE || c->nodes[ks_end].ts < c->nodes[ln].ts)) {
            if ((rc = add_attr_edge(c, ln, s, LAT_CP_E_KERNEL_KERNEL, false, AN_NONE))) break;
        }
        if (c->zero_launch && !launch_added && runtime != AN_NONE && has_nodes(c, runtime))
            if ((rc = add_edge(c, c->snode[runtime], s, LAT_CP_E_LAUNCH, true, AN_NONE))) break;
        if (ls == AN_NONE) {
            if ((rc = LAT_GROW(lastn, cap_last, nlast, 1, 16))) break;
            ls = (uint32_t)nlast++;
            rc = an_row_put(&last, stream, ls);
        }
        lastn[ls] = e;
    }
    lat_u64map_fini(&last);
    lat_u64map_fini(&ksync);
    free(lastn);
    return rc;
}

/* Longest path (networkx dag_longest_path): topological generations in node order, each node's
 * best predecessor the first maximum in edge order; the path ends at the first maximum. */
static int longest(struct cp *c, struct lat_an_critpath *out, const struct analysis_opts *o)
{
    size_t nn = c->nnodes, ne = c->nedges;
    uint32_t *indeg = calloc(nn ? nn : 1, sizeof(*indeg));
    uint32_t *off = calloc(nn + 1, sizeof(*off));
    uint32_t *adj = malloc((ne ? ne : 1) * sizeof(*adj));
    uint32_t *order = malloc((nn ? nn : 1) * sizeof(*order));
    lat_ns *dist = malloc((nn ? nn : 1) * sizeof(*dist));
    uint32_t *pred = malloc((nn ? nn : 1) * sizeof(*pred));
    uint32_t *fill = calloc(nn ? nn : 1, sizeof(*fill));
    int rc = -ENOMEM;
    if (!indeg || !off || !adj || !order || !dist || !pred || !fill) goto out;
    for (size_t k = 0; k < ne; k++) {
        off[c->edges[k].u + 1]++;
        indeg[c->edges[k].v]++;
    }
    for (size_t k = 0; k < nn; k++)
        off[k + 1] += off[k];
    for (size_t k = 0; k < ne; k++) {
        uint32_t u = c->edges[k].u;
        adj[off[u] + fill[u]++] = (uint32_t)k;
    }
    size_t no = 0;
    for (size_t k = 0; k < nn; k++)
        if (!indeg[k]) order[no++] = (uint32_t)k;
    for (size_t h = 0; h < no; h++) {
        uint32_t u = order[h];
        for (uint32_t a = off[u]; a < off[u + 1]; a++) {
            uint32_t w = c->edges[adj[a]].v;
            if (--indeg[w] == 0) order[no++] = w;
        }
    }
    if (no != nn) {
        out->ok = false;
        out->error = "the graph has a cycle";
        rc = 0;
        goto out;
    }
    for (size_t k = 0; k < nn; k++) {
        dist[k] = 0;
        pred[k] = AN_NONE;
    }
    /* relax in topological order; ties keep the earlier edge (first maximum in pred order) */
    for (size_t h = 0; h < nn; h++) {
        uint32_t u = order[h];
        for (uint32_t a = off[u]; a < off[u + 1]; a++) {
            const struct cp_edge *e = &c->edges[adj[a]];
            lat_ns w = e->w > 0 ? e->w : 0;
            lat_ns d = dist[u] + w;
            if (pred[e->v] == AN_NONE || d > dist[e->v] ||
                (d == dist[e->v] && adj[a] < pred[e->v])) {
                dist[e->v] = d;
                pred[e->v] = adj[a];
            }
        }
    }
    uint32_t best = AN_NONE;
    for (size_t h = 0; h < nn; h++)
        if (best == AN_NONE || dist[order[h]] > dist[best]) best = order[h];
    out->ok = true;
    if (best == AN_NONE) {
        rc = 0;
        goto out;
    }
    out->length = dist[best];
    /* walk back; attribute each critical edge */
    struct {
        uint32_t name;
        lat_ns time;
        uint64_t edges;
        bool gpu;
    } *agg = NULL;
    size_t nagg = 0, aggcap = 0;
    if (o->counters) { /* the edges for --write-trace's overlay */
        size_t np = 0;
        for (uint32_t x = best; pred[x] != AN_NONE; x = c->edges[pred[x]].u)
            np++;
        out->path = calloc(np ? np : 1, sizeof(*out->path));
        if (!out->path) goto out;
        out->npath = np;
    }
    out->path_nodes = 1;
    for (uint32_t x = best; pred[x] != AN_NONE;) {
        const struct cp_edge *e = &c->edges[pred[x]];
        lat_ns w = e->w > 0 ? e->w : 0;
        out->path_nodes++;
        out->path_edges++;
        out->edge_types[e->type]++;
        enum lat_cp_bound b;
        if (e->type == LAT_CP_E_KERNEL_KERNEL)
            b = LAT_CP_B_KERNEL_KERNEL;
        else if (e->type == LAT_CP_E_LAUNCH)
            b = LAT_CP_B_LAUNCH;
        else if (e->type == LAT_CP_E_DEPENDENCY || e->type == LAT_CP_E_SYNC || e->attr == AN_NONE)
            b = LAT_CP_B_DEPENDENCY;
        else if (c->v->stream[e->attr] < 0)
            b = LAT_CP_B_CPU;
        else if (an_ktype(c->v, e->attr) == LAT_KT_COMMUNICATION)
            b = LAT_CP_B_GPU_COMM;
        else
            b = LAT_CP_B_GPU_COMPUTE;
        out->bound[b] += w;
        out->bound_edges[b]++;
        if (out->path) {
            const struct cp_node *nu = &c->nodes[e->u], *nv = &c->nodes[e->v];
            out->path[out->npath - out->path_edges] = (struct lat_an_cp_edge){
                .src = nu->ev,
                .dst = nv->ev,
                .src_start = nu->start,
                .dst_start = nv->start,
                .type = e->type,
                .bound = (uint8_t)b,
                .attr = e->attr,
                .ts = nu->ts,
                .end = nv->ts,
                .weight = w,
            };
        }
        if (e->type == LAT_CP_E_OPERATOR && e->attr != AN_NONE) { /* gaps are not op time */
            uint32_t nm = c->t->ev.name[e->attr];
            size_t j;
            for (j = 0; j < nagg && agg[j].name != nm; j++) {
            }
            if (j == nagg) {
                if (LAT_GROW(agg, aggcap, nagg, 1, 64)) {
                    free(agg);
                    goto out;
                }
                agg[nagg].name = nm;
                agg[nagg].time = 0;
                agg[nagg].edges = 0;
                agg[nagg].gpu = c->v->stream[e->attr] >= 0;
                nagg++;
            }
            agg[j].time += w;
            agg[j].edges++;
        }
        x = e->u;
    }
    /* top_n by time (insertion sort: few names) */
    for (size_t a = 1; a < nagg; a++)
        for (size_t b = a; b > 0 && agg[b - 1].time < agg[b].time; b--) {
            __typeof__(*agg) tmp = agg[b];
            agg[b] = agg[b - 1];
            agg[b - 1] = tmp;
        }
    out->nops_total = nagg;
    size_t keep = nagg < o->top_n ? nagg : o->top_n;
    out->ops = calloc(keep ? keep : 1, sizeof(*out->ops));
    if (!out->ops) {
        free(agg);
        goto out;
    }
    for (size_t j = 0; j < keep; j++)
        out->ops[j] = (struct lat_an_cp_op){lat_trace_str(c->t, agg[j].name), agg[j].time,
                                            agg[j].edges, agg[j].gpu};
    out->nops = keep;
    free(agg);
    rc = 0;
out:
    free(indeg);
    free(off);
    free(adj);
    free(order);
    free(dist);
    free(pred);
    free(fill);
    return rc;
}

/* Builds and solves the graph of the window [start, end] (end < start: no upper bound). */
static int run_window(struct cp *c, lat_ns start, lat_ns end, bool whole,
                      struct lat_an_critpath *out)
{
    struct an_view *v = c->v;
    c->window++;
    c->nrows = c->nnodes = c->nedges = 0;
    lat_u64map_clear(&c->edge_ix);
    /* rows: CPU rows from the first ts >= start */
    size_t a = 0, b = c->ncpu;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (an_ts(v, c->cpu[m]) < start)
            a = m + 1;
        else
            b = m;
    }
    for (size_t k = a; k < c->ncpu; k++) {
        uint32_t i = c->cpu[k];
        if (!whole && an_ts(v, i) > end) break;
        if (an_dur(v, i) <= 0) continue;
        if (c->stamp[i] != c->window) {
            c->stamp[i] = c->window;
            c->rows[c->nrows++] = i;
        }
        uint32_t g = v->corr[i];
        if (g != AN_NONE && v->keep[g] && v->stream[g] != -1 && c->stamp[g] != c->window) {
            c->stamp[g] = c->window;
            c->rows[c->nrows++] = g;
        }
    }
    for (size_t k = 0; k < c->nswe; k++) {
        uint32_t i = c->swe[k];
        if (c->stamp[i] != c->window) {
            c->stamp[i] = c->window;
            c->rows[c->nrows++] = i;
        }
    }
    /* rows in event order (HTA's dataframe order) */
    qsort(c->rows, c->nrows, sizeof(*c->rows), lat_cmp_u32);

    /* nodes */
    for (size_t k = 0; k < c->nrows; k++) {
        uint32_t i = c->rows[k];
        c->snode[i] = c->enode[i] = AN_NONE;
        if (!is_node_row(c, i)) continue;
        c->nodes[c->nnodes++] = (struct cp_node){an_ts(v, i), i, 1};
        c->nodes[c->nnodes++] = (struct cp_node){an_end(v, i), i, 0};
    }
    qsort(c->nodes, c->nnodes, sizeof(*c->nodes), node_cmp);
    for (size_t k = 0; k < c->nnodes; k++) {
        if (c->nodes[k].start)
            c->snode[c->nodes[k].ev] = (uint32_t)k;
        else
            c->enode[c->nodes[k].ev] = (uint32_t)k;
    }
    out->boundaries = c->nnodes;

    /* CUDA runtime lock */
    int rc = 0;
    size_t sp = 0;
    uint32_t last = AN_NONE;
    for (size_t k = 0; k < c->nnodes && !rc; k++) {
        uint32_t ev = c->nodes[k].ev;
        if (!is_lock(c, ev)) continue;
        if (c->nodes[k].start) {
            c->lock_stack[sp++] = (uint32_t)k;
        } else {
            while (sp && !rc) {
                uint32_t p = c->lock_stack[--sp];
                if (c->nodes[p].ev == ev)
                    rc = add_attr_edge(c, p, (uint32_t)k, LAT_CP_E_OPERATOR, false, ev);
                else
                    rc = add_edge(c, p, (uint32_t)k, LAT_CP_E_DEPENDENCY, true, AN_NONE);
            }
            if (!rc && last != AN_NONE && !c->nodes[last].start)
                rc = add_edge(c, last, (uint32_t)k, LAT_CP_E_DEPENDENCY, true, AN_NONE);
        }
        last = (uint32_t)k;
    }
    if (rc) return rc;

    /* call stacks: threads after the backward -> forward remap */
    const struct lat_trace *t = c->t;
    for (size_t k = 0; k < t->ntracks; k++)
        c->tid[k] = t->tracks[k].tid;
    int64_t fwd = tid_with(c, "forward"), bwd = tid_with(c, "autograd");
    if (fwd != INT64_MIN && bwd != INT64_MIN && fwd != bwd)
        for (size_t k = 0; k < t->ntracks; k++)
            if (c->tid[k] == bwd) c->tid[k] = fwd;
    uint32_t *byt = c->parent; /* reused below per thread: copy the rows first */
    memcpy(byt, c->rows, c->nrows * sizeof(*byt));
    qsort_r(byt, c->nrows, sizeof(*byt), thr_cmp, c);
    /* thr[] must survive walk_thread (which uses parent/first_child/...): move it to edges of
     * the map-free scratch: rows[] is free to reuse now (walk_kernels rebuilds its list) */
    memcpy(c->rows + c->nrows, byt, c->nrows * sizeof(*byt));
    uint32_t *thr = c->rows + c->nrows;
    for (size_t x = 0; x < c->nrows && !rc;) {
        size_t y = x;
        const struct lat_track *tx = &t->tracks[t->ev.track[thr[x]]];
        bool any_pos = false, all_neg = true;
        while (y < c->nrows) {
            const struct lat_track *ty = &t->tracks[t->ev.track[thr[y]]];
            if (ty->pid != tx->pid || c->tid[t->ev.track[thr[y]]] != c->tid[t->ev.track[thr[x]]])
                break;
            if (v->stream[thr[y]] > 0) any_pos = true;
            if (v->stream[thr[y]] >= 0) all_neg = false;
            y++;
        }
        if (!any_pos && all_neg) {
            for (size_t k = 0; k < y - x; k++)
                c->tmp[(y - x) + k] = 0;
            rc = walk_thread(c, thr + x, y - x);
        }
        x = y;
    }
    if (rc) return rc;
    if ((rc = walk_kernels(c))) return rc;
    /* a node is in the graph once an edge touches it (networkx adds nodes with edges) */
    uint8_t *used = (uint8_t *)c->cs; /* scratch: >= nnodes bytes */
    memset(used, 0, c->nnodes);
    out->edges = c->nedges;
    for (size_t k = 0; k < c->nedges; k++) {
        out->graph_edge_types[c->edges[k].type]++;
        used[c->edges[k].u] = used[c->edges[k].v] = 1;
    }
    for (size_t k = 0; k < c->nnodes; k++)
        out->nodes += used[k];
    return longest(c, out, v->o);
}

static void cp_fini(struct cp *c)
{
    free(c->stamp);
    free(c->snode);
    free(c->enode);
    free(c->qlen);
    free(c->prev_launch);
    free(c->next_launch);
    free(c->tid);
    free(c->cpu);
    free(c->swe);
    free(c->rows);
    free(c->nodes);
    free(c->edges);
    lat_u64map_fini(&c->edge_ix);
    lat_u64map_fini(&c->records);
    free(c->cs);
    free(c->lock_stack);
    free(c->parent);
    free(c->first_child);
    free(c->next_sib);
    free(c->last_child);
    free(c->dfs);
    free(c->tmp);
}

static void ids_init(struct cp_ids *id, const struct lat_trace *t)
{
    static const char *const lock[3] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"};
    static const char *const blocking[6] = {"cudaDeviceSynchronize",
                                            "cudaStreamSynchronize",
                                            "cudaEventQuery",
                                            "cudaEventSynchronize",
                                            "cudaMemcpy",
                                            "cudaMemcpyAsync"};
    id->cat_cpu_op = find(t, "cpu_op");
    id->cat_runtime = find(t, "cuda_runtime");
    id->cat_driver = find(t, "cuda_driver");
    id->cat_sync = find(t, "cuda_sync");
    id->cat_user_ann = find(t, "user_annotation");
    for (int k = 0; k < 3; k++)
        id->lock[k] = find(t, lock[k]);
    for (int k = 0; k < 6; k++)
        id->blocking[k] = find(t, blocking[k]);
    id->event_record = find(t, "cudaEventRecord");
    id->stream_wait_call = find(t, "cudaStreamWaitEvent");
    id->swe = find(t, "Stream Wait Event");
    id->event_sync = find(t, "Event Sync");
    id->context_sync = find(t, "Context Sync");
    id->stream_sync = find(t, "Stream Sync");
}

void lat_an_critpath_free(struct lat_an_critpath *cp, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(cp[k].ops);
        free(cp[k].path);
    }
    free(cp);
}

int an_critpath(struct an_view *v, struct lat_an_rank *r)
{
    const struct analysis_opts *o = v->o;
    if (!o->critical_path) return 0;
    r->cp_ran = true;
    const struct lat_trace *t = v->t;
    struct cp c = {.v = v, .t = t, .n = v->n, .zero_launch = o->cp_zero_weight_launch};
    ids_init(&c.id, t);
    /* the windows */
    const char *ann = o->cp_annotation;
    size_t nwin = 0;
    uint32_t pick = AN_NONE;
    if (!ann && !v->nsteps) ann = ""; /* no ProfilerStep: the whole trace */
    if (!ann) {
        nwin = v->nsteps;
    } else if (!*ann) {
        nwin = 1;
    } else {
        int64_t seen = 0;
        for (size_t i = 0; i < v->n; i++) {
            if (!v->keep[i] || !strstr(an_name(v, i), ann)) continue;
            if (seen == o->cp_instance) pick = (uint32_t)i;
            seen++;
        }
        r->cp_instances = (uint64_t)seen;
        r->cp_found = seen > 0;
        if (pick == AN_NONE) return 0;
        nwin = 1;
    }
    if (!nwin) return 0;
    size_t n = v->n ? v->n : 1;
    int rc = -ENOMEM;
    c.stamp = calloc(n, sizeof(*c.stamp));
    c.snode = malloc(n * sizeof(*c.snode));
    c.enode = malloc(n * sizeof(*c.enode));
    c.qlen = malloc(n * sizeof(*c.qlen));
    c.prev_launch = malloc(n * sizeof(*c.prev_launch));
    c.next_launch = malloc(n * sizeof(*c.next_launch));
    c.tid = malloc((t->ntracks ? t->ntracks : 1) * sizeof(*c.tid));
    c.rows = malloc(2 * n * sizeof(*c.rows));
    c.nodes = malloc(2 * n * sizeof(*c.nodes));
    c.cs = malloc(2 * n * sizeof(*c.cs));
    c.lock_stack = malloc(2 * n * sizeof(*c.lock_stack));
    c.parent = malloc(n * sizeof(*c.parent));
    c.first_child = malloc(n * sizeof(*c.first_child));
    c.next_sib = malloc(n * sizeof(*c.next_sib));
    c.last_child = malloc(n * sizeof(*c.last_child));
    c.dfs = malloc(n * sizeof(*c.dfs));
    c.tmp = malloc(2 * n * sizeof(*c.tmp));
    r->critpath = calloc(nwin, sizeof(*r->critpath));
    if (!c.stamp || !c.snode || !c.enode || !c.qlen || !c.prev_launch || !c.next_launch || !c.tid ||
        !c.rows || !c.nodes || !c.cs || !c.lock_stack || !c.parent || !c.first_child ||
        !c.next_sib || !c.last_child || !c.dfs || !c.tmp || !r->critpath)
        goto out;
    if ((rc = lat_u64map_init(&c.edge_ix, 1024))) goto out;
    if ((rc = prep_rank(&c))) goto out;
    bool has_sync = c.id.cat_sync != UINT32_MAX;
    for (size_t w = 0; w < nwin; w++) {
        struct lat_an_critpath *cp = &r->critpath[r->ncritpath];
        lat_ns start, end;
        bool whole = false;
        cp->step = -1;
        cp->instance = -1;
        if (!ann) {
            uint32_t s = v->steps[w];
            start = an_ts(v, s);
            end = start + an_dur(v, s);
            cp->annotation = an_name(v, s);
            cp->step = t->ev.step[s];
        } else if (!*ann) {
            whole = true;
            start = INT64_MIN;
            end = INT64_MAX;
            cp->annotation = "";
            cp->instance = 0;
        } else {
            start = an_ts(v, pick);
            end = start + an_dur(v, pick);
            cp->annotation = an_name(v, pick);
            cp->instance = o->cp_instance;
        }
        cp->has_cuda_sync = has_sync;
        if ((rc = run_window(&c, start, end, whole, cp))) goto out;
        if (whole) {
            lat_ns mn = INT64_MAX, mx = INT64_MIN;
            for (size_t k = 0; k < c.nrows; k++) {
                uint32_t i = c.rows[k];
                if (an_ts(v, i) < mn) mn = an_ts(v, i);
                if (an_end(v, i) > mx) mx = an_end(v, i);
            }
            start = c.nrows ? mn : 0;
            end = c.nrows ? mx : 0;
        }
        cp->ts = start - v->offset;
        cp->dur = end - start;
        r->ncritpath++;
    }
    rc = 0;
out:
    if (rc) {
        lat_an_critpath_free(r->critpath, r->ncritpath);
        r->critpath = NULL;
        r->ncritpath = 0;
    }
    cp_fini(&c);
    return rc;
}
