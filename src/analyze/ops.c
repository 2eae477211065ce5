/*
 * ops.c - top CPU operators (self and total time, input shapes), the operator -> kernel
 * mapping, and the per-step (ProfilerStep#N) breakdown.
 *
 * Operators: key_averages() of torch.autograd.profiler, computed from the trace (an_ops below):
 * rows are the cpu_op, user_annotation (record_function), runtime and driver calls and the
 * CPU ProfilerStep#N (as "ProfilerStep*"); python_function events are nodes of the nesting tree
 * (they take time out of their parent's self time, as in torch) and make their own Python-level
 * table. Times are the trace's exact ns in both modes (HTA rounding never applies here).
 * Runtime calls' GPU rows (joined by index correlation) are the GPU time of the innermost
 * enclosing cpu_op. One sort, O(n log n); per-name aggregates in hash maps.
 *
 * Steps: each step's wall time is split with ivl_priority_split() over merged lists of GPU
 * compute, communication, memory, other GPU rows and CPU busy time (ops + runtime calls).
 */
#include "analyze/internal.h"
#include "core/buf.h"
#include "core/grow.h"
#include "core/strtab.h"
#include "core/u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Per-name class, cached per string id. */
enum { NC_UNKNOWN = 0, NC_PLAIN, NC_FILTERED, NC_STEP, NC_DATALOADER };

/* Names torch.autograd.profiler drops before building its tree (profiler_util._filter_name):
 * they are no FunctionEvent, so their time is their parent's self time. */
static const char *const filtered_names[] = {"[memory]",
                                             "[OutOfMemory]",
                                             "profiler::_record_function_enter",
                                             "profiler::_record_function_enter_new",
                                             "profiler::_record_function_exit",
                                             "aten::is_leaf",
                                             "aten::output_nr",
                                             "aten::_version",
                                             NULL};

static uint8_t name_class(const struct lat_trace *t, uint8_t *cache, uint32_t id)
{
    if (cache[id]) return cache[id];
    const char *s = lat_trace_str(t, id);
    uint8_t c = NC_PLAIN;
    for (const char *const *f = filtered_names; *f; f++)
        if (!strcmp(s, *f)) c = NC_FILTERED;
    if (!strncmp(s, "ProfilerStep#", 13) && s[13] >= '0' && s[13] <= '9') c = NC_STEP;
    if (!strncmp(s, "enumerate(DataLoader)", 21)) c = NC_DATALOADER;
    cache[id] = c;
    return c;
}

/* The nodes of key_averages()'s tree: every CPU-side complete event torch's profiler makes a
 * FunctionEvent of (cpu_op, user_annotation, runtime and driver calls) plus python_function
 * events (with_stack), which are nodes of the tree but no rows of the table. */
static bool is_legacy_op(const struct an_view *v, size_t i)
{
    const struct lat_event_cols *ev = &v->t->ev;
    return ev->ph[i] == 'X' && !(ev->flags[i] & (LAT_EVF_GPU | LAT_EVF_NO_DUR)) &&
           ev->cat[i] == 0 && !v->t->tracks[ev->track[i]].gpu &&
           (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_OTHER);
}

static bool is_node(const struct an_view *v, size_t i)
{
    const struct lat_event_cols *ev = &v->t->ev;
    if (ev->ph[i] != 'X' || (ev->flags[i] & (LAT_EVF_GPU | LAT_EVF_NO_DUR))) return false;
    if (v->t->tracks[ev->track[i]].gpu || ev->dur[i] < 0) return false; /* no time < 0 */
    /* legacy torch arrays have no cat, so HTA's preprocessing drops them: keep them here */
    if (is_legacy_op(v, i)) return true;
    if (!v->keep[i]) return false;
    switch (ev->kind[i]) {
    case LAT_EV_CPU_OP:
    case LAT_EV_USER_ANNOTATION:
    case LAT_EV_RUNTIME:
    case LAT_EV_DRIVER:
    case LAT_EV_PYTHON:
        return true;
    default:
        return false;
    }
}

static int kind_rank(uint16_t k)
{
    /* identical spans: annotations outside ops, runtime calls inside them */
    switch (k) {
    case LAT_EV_USER_ANNOTATION:
        return 0;
    case LAT_EV_PYTHON:
        return 1;
    case LAT_EV_RUNTIME:
    case LAT_EV_DRIVER:
        return 3;
    default:
        return 2;
    }
}

static int walk_cmp(const void *a, const void *b, void *ctx)
{
    const struct lat_event_cols *ev = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ev->track[x] != ev->track[y]) return ev->track[x] < ev->track[y] ? -1 : 1;
    if (ev->ts[x] != ev->ts[y]) return ev->ts[x] < ev->ts[y] ? -1 : 1;
    lat_ns ex = ev->ts[x] + ev->dur[x], ey = ev->ts[y] + ev->dur[y];
    if (ex != ey) return ex > ey ? -1 : 1;
    int kx = kind_rank(ev->kind[x]), ky = kind_rank(ev->kind[y]);
    if (kx != ky) return kx < ky ? -1 : 1;
    return x < y ? -1 : x > y;
}

struct op_agg {
    uint32_t name; /* string id; AGG_STEP for ProfilerStep* */
    uint32_t dims; /* string id of the (first) instance's Input Dims, 0 when none; with
                      DIMS_NORM: id in the shape keys' own table (shape_key()) */
    uint64_t count, kernels;
    lat_ns total, self, gpu;
    int64_t mem, self_mem;
    bool annotation, python;
};
#define AGG_STEP  UINT32_MAX
#define DIMS_NORM 0x80000000u

/* The shape keys' own strings (an_ops): normalized Input Dims texts, and the copy of their
 * pool the result keeps (lat_an_rank.shape_keys) */
struct shape_keys {
    struct lat_strtab tab;
    const char *pool;       /* NULL until copied */
    struct lat_u64map memo; /* trace string id -> its key's id + 1 */
};

/* torch's key_averages(group_by_input_shape=True) key of an "Input Dims" text: the event's
 * input_shapes, in which a tensor list (and a scalar) is [] (profiler_kineto.cpp parseArgData:
 * shapesForKinetoEvent keeps only a tensor's sizes), while the trace's "Input Dims" lists a
 * tensor list's shapes when concrete inputs are recorded ("[[[1, 2], [1, 2]], []]"). Writes the
 * key into out when it differs from s ("[[],[]]"); false when s is already the key (or is not
 * a JSON list). */
static bool dims_key_text(const char *s, struct lat_buf *out)
{
    size_t n = strlen(s), i = 0;
    while (i < n && s[i] == ' ')
        i++;
    if (i >= n || s[i] != '[') return false;
    i++;
    bool changed = false;
    out->len = 0;
    if (buf_putc(out, '[')) return false;
    int elems = 0;
    for (;;) {
        while (i < n && s[i] == ' ')
            i++;
        if (i >= n) return false;
        if (s[i] == ']') break;
        size_t a = i;
        int depth = 0;
        bool nested = false;
        for (; i < n; i++) { /* one element: up to the ',' or ']' at depth 0 */
            char c = s[i];
            if (c == '[') {
                if (depth == 1 && !nested) {
                    size_t q = a + 1;
                    while (q < i && s[q] == ' ')
                        q++;
                    nested = q == i; /* '[' right after the element's '[' */
                }
                depth++;
            } else if (c == ']') {
                if (!depth) break;
                depth--;
            } else if (c == ',' && !depth) {
                break;
            }
        }
        if (i >= n || depth) return false;
        size_t e = i;
        while (e > a && s[e - 1] == ' ')
            e--;
        if (elems++ && buf_putc(out, ',')) return false; /* compact, as the reader keeps JSON */
        if (nested) {
            changed = true;
            if (buf_puts(out, "[]")) return false;
        } else if (buf_append(out, s + a, e - a)) {
            return false;
        }
        if (s[i] == ',') i++;
    }
    if (buf_putc(out, ']')) return false;
    return changed;
}

/* The shape row's dims for an event's Input Dims id: DIMS_NORM | the id of its torch key's text
 * in sk (one id per key text, whether the trace wrote it so or it was normalized); the id
 * itself when the table is too big for the bit. -ENOMEM on failure. */
static int shape_key(const struct lat_trace *t, struct shape_keys *sk, struct lat_buf *scratch,
                     uint32_t dims, uint32_t *out)
{
    *out = dims;
    if (!dims || t->strs.count >= DIMS_NORM) return 0;
    uint64_t m = 0;
    if (lat_u64map_get(&sk->memo, dims, &m) && m) {
        *out = DIMS_NORM | (uint32_t)(m - 1);
        return 0;
    }
    const char *s = lat_trace_str(t, dims);
    uint32_t id;
    int rc = dims_key_text(s, scratch) ? strtab_intern(&sk->tab, scratch->data, scratch->len, &id)
                                       : strtab_intern(&sk->tab, s, strlen(s), &id);
    if (rc) return -ENOMEM;
    if (id >= DIMS_NORM - 1) return 0;
    uint64_t *slot = lat_u64map_slot(&sk->memo, dims, NULL);
    if (!slot) return -ENOMEM;
    *slot = (uint64_t)id + 1;
    *out = DIMS_NORM | id;
    return 0;
}

struct pair_agg {
    uint32_t op, kernel;
    uint64_t count;
    lat_ns gpu;
};

static int agg_total_desc(const void *a, const void *b)
{
    const struct op_agg *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->dims < y->dims ? -1 : x->dims > y->dims;
}

static int agg_self_desc(const void *a, const void *b)
{
    const struct op_agg *x = a, *y = b;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->dims < y->dims ? -1 : x->dims > y->dims;
}

static int agg_mem_desc(const void *a, const void *b)
{
    const struct op_agg *x = a, *y = b;
    if (x->self_mem != y->self_mem) return x->self_mem > y->self_mem ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->dims < y->dims ? -1 : x->dims > y->dims;
}

static int pair_desc(const void *a, const void *b)
{
    const struct pair_agg *x = a, *y = b;
    if (x->gpu != y->gpu) return x->gpu > y->gpu ? -1 : 1;
    if (x->op != y->op) return x->op < y->op ? -1 : 1;
    return x->kernel < y->kernel ? -1 : x->kernel > y->kernel;
}

static void fill_ops(const struct an_view *v, const struct op_agg *agg, size_t n,
                     struct lat_an_op *out, const struct shape_keys *sk)
{
    for (size_t k = 0; k < n; k++) {
        out[k].name = agg[k].name == AGG_STEP ? "ProfilerStep*" : lat_trace_str(v->t, agg[k].name);
        uint32_t d = agg[k].dims;
        out[k].input_dims = !d ? NULL
                            : (d & DIMS_NORM) && sk && sk->pool
                                ? sk->pool + sk->tab.off[d & ~DIMS_NORM]
                            : (d & DIMS_NORM) ? NULL
                                              : lat_trace_str(v->t, d);
        out[k].count = agg[k].count;
        out[k].total = agg[k].total;
        out[k].self = agg[k].self;
        out[k].gpu_time = agg[k].gpu;
        out[k].kernels = agg[k].kernels;
        out[k].cpu_mem = agg[k].mem;
        out[k].self_cpu_mem = agg[k].self_mem;
        out[k].annotation = agg[k].annotation;
        out[k].python = agg[k].python;
    }
}

/* A growable aggregate table keyed by a 64-bit key. */
struct agg_tab {
    struct op_agg *a;
    size_t n, cap;
    struct lat_u64map by_key;
};

static int tab_init(struct agg_tab *t)
{
    t->cap = 64;
    t->n = 0;
    t->a = malloc(t->cap * sizeof(*t->a));
    if (!t->a) return -ENOMEM;
    return lat_u64map_init(&t->by_key, 256);
}

static void tab_fini(struct agg_tab *t)
{
    free(t->a);
    lat_u64map_fini(&t->by_key);
}

/* The slot of key (created zeroed with name/dims), or NULL on -ENOMEM. */
static struct op_agg *tab_get(struct agg_tab *t, int64_t key, uint32_t name, uint32_t dims)
{
    uint32_t slot = an_row(&t->by_key, key);
    if (slot != AN_NONE) return &t->a[slot];
    if (LAT_GROW(t->a, t->cap, t->n, 1, 64)) return NULL;
    slot = (uint32_t)t->n++;
    memset(&t->a[slot], 0, sizeof(t->a[slot]));
    t->a[slot].name = name;
    t->a[slot].dims = dims;
    if (an_row_put(&t->by_key, key, slot)) return NULL;
    return &t->a[slot];
}

/* Copies the top n of tab by cmp into *out. */
static int tab_top(const struct an_view *v, struct agg_tab *tab,
                   int (*cmp)(const void *, const void *), size_t top, struct lat_an_op **out,
                   size_t *nout, const struct shape_keys *sk)
{
    size_t n = tab->n < top ? tab->n : top;
    *out = calloc(n ? n : 1, sizeof(**out));
    if (!*out) return -ENOMEM;
    qsort(tab->a, tab->n, sizeof(*tab->a), cmp);
    fill_ops(v, tab->a, n, *out, sk);
    *nout = n;
    return 0;
}

struct mem_rec {
    lat_ns ts;
    int64_t bytes;
};

static int mem_cmp(const void *a, const void *b)
{
    const struct mem_rec *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Index of the first record with ts > x (upper) or >= x (lower). */
static size_t mem_bound(const struct mem_rec *m, size_t n, lat_ns x, bool upper)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (upper ? m[mid].ts <= x : m[mid].ts < x)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* CPU [memory] records (profile_memory), sorted by ts, with prefix sums of Bytes in *pre. */
static int load_mem(struct an_view *v, struct lat_an_rank *r, struct mem_rec **out, size_t *nout,
                    int64_t **pre)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t mem_name = strtab_find(&t->strs, "[memory]", 8);
    *out = NULL;
    *pre = NULL;
    *nout = 0;
    if (mem_name == UINT32_MAX) return 0;
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++)
        if (ev->name[i] == mem_name && ev->kind[i] == LAT_EV_INSTANT) n++;
    if (!n) return 0;
    struct mem_rec *m = malloc(n * sizeof(*m));
    int64_t *p = malloc((n + 1) * sizeof(*p));
    if (!m || !p) {
        free(m);
        free(p);
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (ev->name[i] != mem_name || ev->kind[i] != LAT_EV_INSTANT) continue;
        int64_t dt = 0, bytes = 0, total = 0;
        if (lat_trace_arg_int(t, i, "Device Type", &dt) && dt != 0) continue; /* not CPU */
        if (!lat_trace_arg_int(t, i, "Bytes", &bytes)) continue;
        m[k++] = (struct mem_rec){ev->ts[i], bytes};
        struct lat_an_mem *s = &r->mem;
        s->records++;
        if (bytes > 0) {
            s->allocs++;
            s->alloc_bytes += (uint64_t)bytes;
        } else if (bytes < 0) {
            s->frees++;
            s->freed_bytes += (uint64_t)-bytes;
        }
        if (lat_trace_arg_int(t, i, "Total Allocated", &total) && total > s->peak_allocated) {
            s->peak_allocated = total;
            s->peak_ts = ev->ts[i] - v->offset;
        }
    }
    qsort(m, k, sizeof(*m), mem_cmp);
    p[0] = 0;
    for (size_t q = 0; q < k; q++)
        p[q + 1] = p[q] + m[q].bytes;
    *out = m;
    *nout = k;
    *pre = p;
    return 0;
}

static int thread_busy_desc(const void *a, const void *b)
{
    const struct lat_an_thread *x = a, *y = b;
    if (x->busy != y->busy) return x->busy > y->busy ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The operator tables, as torch.autograd.profiler's key_averages() builds them
 * (profiler_util.EventList._build_tree): per thread, nodes sorted by (start, -end); a node is
 * a child of the innermost open node that contains it ([s, e] inside [ps, pe]); then a node
 * whose parent has the same name and no other child is merged into the parent (_remove_dup_nodes:
 * its children become the parent's), so a nested call of the same op counts once; self =
 * dur - Σ dur of the (remaining) children. Rows are keyed by name, ProfilerStep#N as
 * "ProfilerStep*". Exact ns, never rounded. Instances' self times are summed as torch sums them
 * (one can be below 0 when a Python call straddles the end of a sibling); a row whose sum is
 * below 0 (key_averages would print a negative time) shows 0.
 */
int an_ops(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t dims_key = strtab_find(&t->strs, "Input Dims", 10);
    size_t nrows = 0, nstr = t->strs.count ? t->strs.count : 1;
    int rc = -ENOMEM;
    uint32_t *rows = NULL, *stack = NULL, *par = NULL, *rep = NULL, *opanc = NULL, *nchild = NULL,
             *slot_of = NULL, *namedepth = NULL;
    uint8_t *ncls = NULL, *outer = NULL;
    lat_ns *self = NULL;
    int64_t *mem = NULL, *mempre = NULL;
    struct mem_rec *mrec = NULL;
    size_t nmrec = 0;
    struct agg_tab ops = {0}, shapes = {0}, pys = {0};
    struct shape_keys sk = {0};
    struct lat_buf scratch = LAT_BUF_INIT;
    struct pair_agg *pairs = NULL;
    struct lat_u64map by_pair = {0}, by_track = {0};
    size_t npairs = 0, cap_pairs = 64;
    struct lat_an_thread *thr = NULL;
    size_t nthr = 0;

    ncls = calloc(nstr, 1);
    namedepth = calloc(nstr, sizeof(*namedepth));
    if (!ncls || !namedepth) goto out;
    for (size_t i = 0; i < v->n; i++)
        if (is_node(v, i) && name_class(t, ncls, ev->name[i]) != NC_FILTERED) nrows++;
    size_t nr1 = nrows ? nrows : 1;
    rows = malloc(nr1 * sizeof(*rows));
    stack = malloc(nr1 * sizeof(*stack));
    par = malloc(nr1 * sizeof(*par));
    rep = malloc(nr1 * sizeof(*rep));
    opanc = malloc(nr1 * sizeof(*opanc));
    nchild = calloc(nr1, sizeof(*nchild));
    slot_of = malloc(nr1 * sizeof(*slot_of));
    outer = malloc(nr1);
    self = malloc(nr1 * sizeof(*self));
    mem = calloc(nr1, sizeof(*mem));
    pairs = malloc(cap_pairs * sizeof(*pairs));
    thr = calloc(nr1, sizeof(*thr)); /* at most one per row */
    if (!rows || !stack || !par || !rep || !opanc || !nchild || !slot_of || !outer || !self ||
        !mem || !pairs || !thr)
        goto out;
    if ((rc = tab_init(&ops)) || (rc = tab_init(&shapes)) || (rc = tab_init(&pys)) ||
        (rc = strtab_init(&sk.tab)) || (rc = lat_u64map_init(&by_pair, 256)) ||
        (rc = lat_u64map_init(&by_track, 16)))
        goto out;
    if ((rc = load_mem(v, r, &mrec, &nmrec, &mempre))) goto out;
    rc = -ENOMEM;
    nrows = 0;
    for (size_t i = 0; i < v->n; i++)
        if (is_node(v, i) && name_class(t, ncls, ev->name[i]) != NC_FILTERED)
            rows[nrows++] = (uint32_t)i;
    /* traces are mostly written in order: sort only when they are not */
    bool sorted = true;
    for (size_t k = 1; k < nrows && sorted; k++)
        sorted = walk_cmp(&rows[k - 1], &rows[k], (void *)(uintptr_t)ev) <= 0;
    if (!sorted) qsort_r(rows, nrows, sizeof(*rows), walk_cmp, (void *)(uintptr_t)ev);

    /* 1. the tree (profiler_util._populate_cpu_children); outer[k]: no ancestor of the name */
    size_t depth = 0;
    for (size_t k = 0; k < nrows; k++) {
        uint32_t i = rows[k];
        lat_ns ts = ev->ts[i], end = ts + ev->dur[i];
        bool newtrack = k && ev->track[i] != ev->track[rows[k - 1]];
        while (depth) {
            uint32_t p = rows[stack[depth - 1]];
            lat_ns pe = ev->ts[p] + ev->dur[p];
            if (!newtrack && ts < pe && end <= pe) break;
            namedepth[ev->name[p]]--;
            depth--;
        }
        par[k] = depth ? stack[depth - 1] : AN_NONE;
        if (depth) nchild[stack[depth - 1]]++;
        outer[k] = namedepth[ev->name[i]] == 0;
        namedepth[ev->name[i]]++;
        stack[depth++] = (uint32_t)k;
    }
    while (depth)
        namedepth[ev->name[rows[stack[--depth]]]]--;

    /* 2. _remove_dup_nodes, in (start, -end) order: parents come before their children */
    for (size_t k = 0; k < nrows; k++) {
        uint32_t p = par[k] == AN_NONE ? AN_NONE : rep[par[k]];
        par[k] = p; /* from here on: the effective (merged) parent */
        rep[k] = (uint32_t)k;
        uint32_t i = rows[k];
        if (p != AN_NONE && nchild[p] == 1 && ev->name[rows[p]] == ev->name[i]) {
            rep[k] = p;
            nchild[p] = nchild[k];
        }
        /* the innermost enclosing cpu_op (for the GPU time of runtime calls) */
        if (p == AN_NONE)
            opanc[k] = AN_NONE;
        else if ((ev->kind[rows[p]] == LAT_EV_CPU_OP || is_legacy_op(v, rows[p])) &&
                 name_class(t, ncls, ev->name[rows[p]]) != NC_STEP)
            opanc[k] = p;
        else
            opanc[k] = opanc[p];
    }

    /* 3. self times and memory */
    for (size_t k = 0; k < nrows; k++) {
        uint32_t i = rows[k];
        self[k] = ev->dur[i];
        if (nmrec) {
            lat_ns ts = ev->ts[i], end = ts + ev->dur[i];
            mem[k] = mempre[mem_bound(mrec, nmrec, end, true)] -
                     mempre[mem_bound(mrec, nmrec, ts, false)];
        }
    }
    for (size_t k = 0; k < nrows; k++) {
        if (rep[k] != k || par[k] == AN_NONE) continue;
        self[par[k]] -= ev->dur[rows[k]];
    }
    int64_t *selfmem = malloc(nr1 * sizeof(*selfmem));
    if (!selfmem) goto out;
    for (size_t k = 0; k < nrows; k++)
        selfmem[k] = mem[k];
    for (size_t k = 0; k < nrows; k++)
        if (rep[k] == k && par[k] != AN_NONE) selfmem[par[k]] -= mem[k];

    /* 4. rows */
    r->ops_self_total = 0;
    for (size_t k = 0; k < nrows; k++) {
        slot_of[k] = AN_NONE;
        if (rep[k] != k) continue;
        uint32_t i = rows[k];
        uint16_t kind = ev->kind[i];
        /* as torch: an instance's self time is summed as is (a Python call that straddles a
         * child's end is subtracted too, so it can be below 0); rows are clamped at 0 below */
        lat_ns sf = self[k];
        lat_ns d = ev->dur[i];
        uint8_t nc = name_class(t, ncls, ev->name[i]);
        if (kind == LAT_EV_PYTHON) {
            struct op_agg *a = tab_get(&pys, ev->name[i], ev->name[i], 0);
            if (!a) goto fail_self;
            a->python = true;
            a->count++;
            if (outer[k]) a->total += d;
            a->self += sf;
            a->mem += mem[k];
            a->self_mem += selfmem[k];
            continue;
        }
        uint32_t dims = 0;
        if (dims_key != UINT32_MAX) {
            const struct lat_arg *ar = &t->args[ev->args[i]];
            for (uint32_t q = 0; q < ev->nargs[i]; q++)
                if (ar[q].key == dims_key && ar[q].str) dims = ar[q].str;
        }
        uint32_t name = nc == NC_STEP ? AGG_STEP : ev->name[i];
        struct op_agg *a = tab_get(&ops, name, name, dims);
        uint32_t sdims;
        if (shape_key(t, &sk, &scratch, dims, &sdims)) goto fail_self;
        int64_t skey = (int64_t)(((uint64_t)name << 32) | sdims);
        struct op_agg *b = a ? tab_get(&shapes, skey, name, sdims) : NULL;
        if (!a || !b) goto fail_self;
        slot_of[k] = (uint32_t)(a - ops.a);
        for (int pass = 0; pass < 2; pass++) {
            struct op_agg *x = pass ? b : a;
            x->annotation = kind == LAT_EV_USER_ANNOTATION || nc == NC_STEP;
            x->count++;
            x->total += d;
            x->self += sf;
            x->mem += mem[k];
            x->self_mem += selfmem[k];
        }
        if (nc != NC_STEP) r->ops_self_total += sf;

        /* per thread */
        int64_t tk = ev->track[i];
        uint32_t ts_slot = an_row(&by_track, tk);
        if (ts_slot == AN_NONE) {
            ts_slot = (uint32_t)nthr++;
            const struct lat_track *tr = &t->tracks[ev->track[i]];
            thr[ts_slot] = (struct lat_an_thread){
                .pid = tr->pid,
                .tid = tr->tid,
                .name = tr->tid_label ? lat_trace_str(t, tr->tid_label) : NULL,
                .first_ts = ev->ts[i] - v->offset,
                .last_end = ev->ts[i] + d - v->offset};
            if (an_row_put(&by_track, tk, ts_slot)) goto fail_self;
        }
        struct lat_an_thread *th = &thr[ts_slot];
        th->ops++;
        if (nc != NC_STEP) th->self += sf;
        if ((kind == LAT_EV_CPU_OP || is_legacy_op(v, i)) && nc != NC_STEP && opanc[k] == AN_NONE)
            th->busy += d;
        if (ev->ts[i] - v->offset < th->first_ts) th->first_ts = ev->ts[i] - v->offset;
        if (ev->ts[i] + d - v->offset > th->last_end) th->last_end = ev->ts[i] + d - v->offset;
    }
    free(selfmem);
    selfmem = NULL;
    /* never a negative time: a row (or thread) whose summed self time is below 0, which
     * key_averages would print as such, shows 0 */
    struct agg_tab *tabs[] = {&ops, &shapes, &pys};
    for (int q = 0; q < 3; q++)
        for (size_t k = 0; k < tabs[q]->n; k++)
            if (tabs[q]->a[k].self < 0) tabs[q]->a[k].self = 0;
    for (size_t k = 0; k < nthr; k++)
        if (thr[k].self < 0) thr[k].self = 0;
    if (r->ops_self_total < 0) r->ops_self_total = 0;

    /* 5. GPU rows -> launching runtime call -> innermost enclosing cpu_op */
    {
        /* event index -> row position, for the runtime calls only */
        struct lat_u64map pos;
        if ((rc = lat_u64map_init(&pos, 256))) goto out;
        for (size_t k = 0; k < nrows && !rc; k++) {
            uint16_t kind = ev->kind[rows[k]];
            if (kind == LAT_EV_RUNTIME || kind == LAT_EV_DRIVER)
                rc = an_row_put(&pos, rows[k], (uint32_t)k);
        }
        for (size_t j = 0; j < v->ngpu && !rc; j++) {
            uint32_t g = v->gpu[j], rt = v->corr[g];
            if (rt == AN_NONE || !v->keep[rt]) continue;
            uint32_t k = an_row(&pos, rt);
            if (k == AN_NONE || opanc[k] == AN_NONE) continue;
            uint32_t opk = opanc[k];
            if (slot_of[opk] == AN_NONE) continue;
            struct op_agg *a = &ops.a[slot_of[opk]];
            lat_ns d = an_dur(v, g);
            a->gpu += d;
            a->kernels++;
            uint32_t opname = ev->name[rows[opk]];
            int64_t key = (int64_t)(((uint64_t)opname << 32) | ev->name[g]);
            uint32_t ps = an_row(&by_pair, key);
            if (ps == AN_NONE) {
                if ((rc = LAT_GROW(pairs, cap_pairs, npairs, 1, 64))) break;
                ps = (uint32_t)npairs++;
                pairs[ps] = (struct pair_agg){opname, ev->name[g], 0, 0};
                if ((rc = an_row_put(&by_pair, key, ps))) break;
            }
            pairs[ps].count++;
            pairs[ps].gpu += d;
        }
        lat_u64map_fini(&pos);
        if (rc) goto out;
        rc = -ENOMEM;
    }
    /* the GPU time per shape row is not split: shapes keep gpu 0 */

    size_t top = v->o->top_n;
    r->nops_total = ops.n;
    r->cpu_only = v->ngpu == 0;
    r->npy_funcs_total = pys.n;
    if (sk.tab.count > 1) { /* the normalized keys' texts, kept by the result */
        if (!(r->shape_keys = malloc(sk.tab.pool_len))) goto out;
        memcpy(r->shape_keys, sk.tab.pool, sk.tab.pool_len);
        sk.pool = r->shape_keys;
    }
    if ((rc = tab_top(v, &ops, agg_total_desc, top, &r->top_ops, &r->ntop_ops, NULL)) ||
        (rc = tab_top(v, &ops, agg_self_desc, top, &r->top_ops_self, &r->ntop_ops_self, NULL)) ||
        (rc = tab_top(v, &shapes, agg_self_desc, top, &r->ops_by_shape, &r->nops_by_shape, &sk)) ||
        (rc = tab_top(v, &pys, agg_self_desc, top, &r->py_funcs, &r->npy_funcs, NULL)) ||
        (r->mem.records &&
         (rc = tab_top(v, &ops, agg_mem_desc, top, &r->top_ops_mem, &r->ntop_ops_mem, NULL))))
        goto out;
    rc = -ENOMEM;
    size_t np = npairs < top ? npairs : top;
    r->op_kernels = calloc(np ? np : 1, sizeof(*r->op_kernels));
    if (!r->op_kernels) goto out;
    qsort(pairs, npairs, sizeof(*pairs), pair_desc);
    for (size_t k = 0; k < np; k++) {
        r->op_kernels[k].op = lat_trace_str(t, pairs[k].op);
        r->op_kernels[k].kernel = lat_trace_str(t, pairs[k].kernel);
        r->op_kernels[k].count = pairs[k].count;
        r->op_kernels[k].gpu_time = pairs[k].gpu;
    }
    r->nop_kernels = np;
    if (nthr) qsort(thr, nthr, sizeof(*thr), thread_busy_desc);
    r->threads = thr;
    r->nthreads = nthr;
    thr = NULL;
    rc = 0;
    goto out;
fail_self:
    free(selfmem);
    rc = -ENOMEM;
out:
    free(rows);
    free(stack);
    free(par);
    free(rep);
    free(opanc);
    free(nchild);
    free(slot_of);
    free(outer);
    free(self);
    free(mem);
    free(mempre);
    free(mrec);
    free(ncls);
    free(namedepth);
    free(pairs);
    free(thr);
    tab_fini(&ops);
    tab_fini(&shapes);
    tab_fini(&pys);
    strtab_fini(&sk.tab);
    lat_u64map_fini(&sk.memo);
    buf_fini(&scratch);
    lat_u64map_fini(&by_pair);
    lat_u64map_fini(&by_track);
    return rc;
}

/* ---- per-step breakdown -------------------------------------------------------------------- */

/* The CPU side of each step (lat_an_step.cpu_*), on the step's own thread: DataLoader regions,
 * then ops (cpu_op, runtime and driver calls), then python_function events; the rest is
 * "other". One set of lists per distinct step track (usually one); TF step markers: every host
 * thread. */
static int steps_cpu_split(struct an_view *v, struct lat_an_rank *r, const uint32_t *rowev)
{
    const struct lat_event_cols *ev = &v->t->ev;
    enum { C_DL, C_OPS, C_PY, NC };
    uint32_t *tracks = malloc(v->nsteps * sizeof(*tracks));
    struct lat_ivl *lists[NC] = {0};
    size_t ntracks = 0;
    int rc = -ENOMEM;
    if (!tracks) return -ENOMEM;
    /* TF step markers: a graph's ops run on the executor's threads, not the marker's; ops on
     * any host thread count (one pass, every track) */
    bool any = v->marker_steps;
    for (size_t k = 0; k < v->nsteps && !(any && ntracks); k++) {
        uint32_t tr = ev->track[v->steps[k]];
        bool seen = false;
        for (size_t q = 0; q < ntracks; q++)
            seen |= tracks[q] == tr;
        if (!seen) tracks[ntracks++] = tr;
    }
    for (int l = 0; l < NC; l++)
        if (!(lists[l] = malloc((v->n ? v->n : 1) * sizeof(struct lat_ivl)))) goto out;
    for (size_t q = 0; q < ntracks; q++) {
        size_t counts[NC] = {0};
        for (size_t i = 0; i < v->n; i++) {
            if (!v->keep[i] || (!any && ev->track[i] != tracks[q]) ||
                (ev->flags[i] & LAT_EVF_GPU) || v->t->tracks[ev->track[i]].gpu)
                continue;
            int l;
            switch (ev->kind[i]) {
            case LAT_EV_USER_ANNOTATION:
                if (strncmp(an_name(v, i), "enumerate(DataLoader)", 21)) continue;
                l = C_DL;
                break;
            case LAT_EV_CPU_OP:
            case LAT_EV_RUNTIME:
            case LAT_EV_DRIVER:
                if (an_namecls(v, i) & AN_NAME_STEP) continue;
                l = C_OPS;
                break;
            case LAT_EV_PYTHON:
                l = C_PY;
                break;
            default:
                continue;
            }
            lat_ns a = an_ts(v, i), b = an_end(v, i);
            if (b < a) continue; /* HTA-rounded rows can end before they start */
            lists[l][counts[l]++] = (struct lat_ivl){a, b};
        }
        const struct lat_ivl *cl[NC];
        for (int l = 0; l < NC; l++) {
            bool in_order = true;
            for (size_t q2 = 1; q2 < counts[l] && in_order; q2++)
                in_order = lists[l][q2 - 1].ts < lists[l][q2].ts ||
                           (lists[l][q2 - 1].ts == lists[l][q2].ts &&
                            lists[l][q2 - 1].end <= lists[l][q2].end);
            if (!in_order) ivl_sort(lists[l], counts[l]);
            counts[l] = ivl_merge(lists[l], counts[l]);
            cl[l] = lists[l];
        }
        for (size_t row = 0; row < r->nsteps; row++) {
            uint32_t i = rowev[row];
            if (!any && ev->track[i] != tracks[q]) continue;
            struct lat_an_step *s = &r->steps[row];
            lat_ns part[NC + 1];
            lat_ns ts = an_ts(v, i), end = an_end(v, i);
            if (end <= ts) continue;
            ivl_priority_split(cl, counts, NC, ts, end, part);
            s->cpu_dataloader = part[C_DL];
            s->cpu_ops = part[C_OPS];
            s->cpu_python = part[C_PY];
            s->cpu_other = part[NC];
        }
    }
    rc = 0;
out:
    for (int l = 0; l < NC; l++)
        free(lists[l]);
    free(tracks);
    return rc;
}

int an_steps(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_event_cols *ev = &v->t->ev;
    enum { L_COMP, L_COMM, L_MEM, L_OTHER, L_CPU, NL };
    struct lat_ivl *lists[NL] = {0};
    size_t counts[NL] = {0};
    int rc = -ENOMEM;
    if (!v->nsteps) return 0;
    r->steps = calloc(v->nsteps, sizeof(*r->steps));
    uint32_t *rowev = malloc(v->nsteps * sizeof(*rowev)); /* row -> its step event */
    if (!r->steps || !rowev) {
        free(rowev);
        return -ENOMEM;
    }
    size_t ncpu = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && v->stream[i] == -1 &&
            (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_RUNTIME ||
             ev->kind[i] == LAT_EV_DRIVER) &&
            !(an_namecls(v, i) & AN_NAME_STEP))
            ncpu++;
    for (int l = 0; l < NL; l++) {
        size_t cap = l == L_CPU ? ncpu : v->ngpu;
        lists[l] = malloc((cap ? cap : 1) * sizeof(struct lat_ivl));
        if (!lists[l]) goto out;
    }
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t i = v->gpu[j];
        int l;
        switch (an_ktype(v, i)) {
        case LAT_KT_COMPUTATION:
            l = L_COMP;
            break;
        case LAT_KT_COMMUNICATION:
            l = L_COMM;
            break;
        case LAT_KT_MEMORY:
            l = L_MEM;
            break;
        default:
            l = L_OTHER;
            break;
        }
        lists[l][counts[l]++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
    }
    for (size_t i = 0; i < v->n; i++)
        if (v->keep[i] && v->stream[i] == -1 &&
            (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_RUNTIME ||
             ev->kind[i] == LAT_EV_DRIVER) &&
            !(an_namecls(v, i) & AN_NAME_STEP))
            lists[L_CPU][counts[L_CPU]++] = (struct lat_ivl){an_ts(v, i), an_end(v, i)};
    ivl_sort(lists[L_CPU], counts[L_CPU]);
    for (int l = 0; l < NL; l++)
        counts[l] = ivl_merge(lists[l], counts[l]);

    const struct lat_ivl *cl[NL];
    for (int l = 0; l < NL; l++)
        cl[l] = lists[l];
    for (size_t k = 0; k < v->nsteps; k++) {
        uint32_t i = v->steps[k];
        int32_t num = an_step_num(v, i); /* ProfilerStep#N, or a TF step marker's index */
        bool dup = false;
        for (size_t q = 0; q < r->nsteps; q++)
            dup |= r->steps[q].step == num;
        if (dup) continue;
        rowev[r->nsteps] = i;
        struct lat_an_step *s = &r->steps[r->nsteps++];
        lat_ns st_end = an_end(v, i), st_ts = an_ts(v, i);
        r->steps_total += st_end > st_ts ? st_end - st_ts : 0;
        lat_ns ts = an_ts(v, i), end = an_end(v, i);
        s->step = num;
        s->ts = ts - v->offset;
        s->dur = end > ts ? end - ts : 0;
        lat_ns part[NL + 1];
        ivl_priority_split(cl, counts, NL, ts, end, part);
        s->gpu_compute = part[L_COMP];
        s->comm = part[L_COMM];
        s->copies = part[L_MEM];
        s->gpu_other = part[L_OTHER];
        s->cpu_only = part[L_CPU];
        s->idle = part[NL];
    }
    if ((rc = steps_cpu_split(v, r, rowev))) goto out;
    rc = -ENOMEM;
    struct lat_u64map bystep; /* step number -> row of r->steps */
    if ((rc = lat_u64map_init(&bystep, r->nsteps))) goto out;
    for (size_t q = 0; q < r->nsteps && !rc; q++)
        rc = an_row_put(&bystep, r->steps[q].step, (uint32_t)q);
    for (size_t j = 0; j < v->ngpu && !rc; j++) {
        int32_t it = v->iter[v->gpu[j]];
        uint32_t q = it < 0 ? AN_NONE : an_row(&bystep, it);
        if (q != AN_NONE) r->steps[q].kernels++;
    }
    lat_u64map_fini(&bystep);
    if (rc) goto out;
    rc = 0;
out:
    free(rowev);
    for (int l = 0; l < NL; l++)
        free(lists[l]);
    return rc;
}
