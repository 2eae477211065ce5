/*
 * kseq.c - frequent kernel sequences (analyses.md §10, HTA get_frequent_cuda_kernel_sequences):
 * the CPU ops that launch the same sequence of GPU kernels again and again (fusion candidates
 * for torch.compile / TensorRT).
 *
 * HTA's call graph (hta/common/trace_call_stack.py, trace_call_graph.py at f4d0062c), rebuilt
 * over the kept rows: per CPU thread (not one whose pid or tid is 0, HTA's "GPU" threads), the
 * stream == -1 rows are nested by walking their start and end points in HTA's order
 * (_less_than: time; the two ends of one row start first; at a tie a close before an open;
 * zero-length rows inside the other; opens longer first, closes shorter first, then by index);
 * a GPU row (stream > 0) whose index correlation is a row of the stack is that row's child.
 * When exactly one thread holds ProfilerStep# names (main) and exactly one other holds
 * autograd:: names (bwd), the bwd thread's top-level rows move under the main thread's
 * "## backward ##" row (else ProfilerStep# row) that spans them (_link_main_and_bwd_stacks).
 * Depth: a top-level row is 0; rows outside any stack are -1.
 *
 * Roots: with an operator name (HTA's operator_name), the rows whose name contains it at the
 * smallest depth among them that launch (in their subtree) at least min_len GPU rows; without
 * one (latscope's default), the aten:: rows with no aten:: ancestor that launch at least
 * min_len. A pattern is (root name, its subtree's GPU rows by ts); per pattern: count, Σ GPU
 * row dur, Σ root dur. Rows sort as HTA's: count descending, then the "op|k1|k2" text.
 */
#include "analyze/internal.h"
#include "core/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KS_ROOT_PARENT (UINT32_MAX - 1) /* parent of a top-level row */

struct ks_pt { /* one end of a CPU row */
    lat_ns time, dur;
    uint32_t row;
    int8_t kind; /* -1 open, 1 close */
};

/* HTA's _less_than (trace_call_stack.py) as a three-way compare. It is not a consistent order
 * where a zero-length row meets two touching rows at one time (close(A) < open(B) < open(zero) <
 * close(A)), so there the nesting depends on the order the sort is handed: HTA's on numpy's
 * unstable pre-sort by time, ours on qsort over row order (docs/latscope-analyze.md row 15). */
static bool ks_less(const struct ks_pt *x, const struct ks_pt *y)
{
    if (x->time != y->time) return x->time < y->time;
    if (x->row == y->row) return x->kind == -1;
    if (x->dur == 0 || y->dur == 0) {
        if (x->dur == 0 && y->dur > 0) return y->kind == 1;
        if (x->dur > 0 && y->dur == 0) return x->kind == -1;
        if (x->dur == 0 && y->dur == 0) {
            if (x->kind == -1 && y->kind == -1) return x->row < y->row;
            if (x->kind == 1 && y->kind == 1) return x->row > y->row;
            return x->kind == -1;
        }
        /* one is 0, the other negative: HTA raises ValueError; order by time only */
        return x->row < y->row;
    }
    if (x->kind == 1 && y->kind == -1) return true;
    if (x->kind == -1 && y->kind == 1) return false;
    if (x->kind == -1 && x->dur != y->dur) return x->dur > y->dur;
    if (x->kind == 1 && x->dur != y->dur) return x->dur < y->dur;
    return x->kind == -1 ? x->row < y->row : x->row > y->row;
}

static int ks_pt_cmp(const void *a, const void *b)
{
    const struct ks_pt *x = a, *y = b;
    if (ks_less(x, y)) return -1;
    return ks_less(y, x) ? 1 : 0;
}

struct ks_row_ref {
    uint32_t track, row;
};

static int ks_ref_cmp(const void *a, const void *b)
{
    const struct ks_row_ref *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

struct ks_hit { /* one GPU row under a root */
    uint32_t root, gpu;
    lat_ns ts;
};

static int ks_hit_cmp(const void *a, const void *b)
{
    const struct ks_hit *x = a, *y = b;
    if (x->root != y->root) return x->root < y->root ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

struct ks_inst {
    size_t key;  /* offset of "op|k1|k2..." in the key buffer */
    size_t disp; /* offset of "k1 -> k2 ..." in the display buffer */
    uint32_t op_name;
    uint64_t nkernels;
    lat_ns gpu, cpu;
};

static int ks_inst_cmp(const void *a, const void *b, void *ctx)
{
    const struct ks_inst *x = a, *y = b;
    const char *keys = ctx;
    return strcmp(keys + x->key, keys + y->key);
}

static int ks_row_cmp(const void *a, const void *b, void *ctx)
{
    const struct lat_an_kseq *x = a, *y = b;
    (void)ctx;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->pattern, y->pattern);
}

static bool name_has(const char *name, const char *sub)
{
    return strstr(name, sub) != NULL;
}

/* Depth of row i: a top-level row is 0, a child its parent's + 1 (depth[] holds -2 for rows
 * not yet known). */
static void ks_depth(uint32_t i, const uint32_t *parent, int32_t *depth)
{
    uint32_t j = i;
    int32_t up = 0;
    while (depth[j] == -2 && parent[j] != KS_ROOT_PARENT) {
        j = parent[j];
        up++;
    }
    if (depth[j] == -2) depth[j] = 0;
    int32_t d = depth[j] + up;
    for (uint32_t k = i; k != j; k = parent[k])
        depth[k] = d--;
}

int an_kseq(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    const char *opname = v->o->kseq_operator;
    size_t min_len = v->o->kseq_min_len ? v->o->kseq_min_len : 3;
    int rc = -ENOMEM;
    uint32_t *parent = NULL;
    int32_t *depth = NULL;
    uint32_t *nk = NULL; /* GPU rows in the subtree */
    struct ks_row_ref *refs = NULL;
    struct ks_pt *pts = NULL;
    uint32_t *stack = NULL;
    uint8_t *is_root = NULL;
    struct ks_hit *hits = NULL;
    struct ks_inst *insts = NULL;
    struct lat_an_kseq *rows = NULL;
    struct lat_buf keys = {0}, disp = {0};

    r->kseq_ran = true;
    r->kseq_operator = opname;
    r->kseq_min_len = min_len;
    size_t n = v->n;
    parent = malloc((n ? n : 1) * sizeof(*parent));
    depth = malloc((n ? n : 1) * sizeof(*depth));
    nk = calloc(n ? n : 1, sizeof(*nk));
    is_root = calloc(n ? n : 1, 1);
    if (!parent || !depth || !nk || !is_root) goto out;
    size_t ncpu = 0;
    for (size_t i = 0; i < n; i++) {
        parent[i] = AN_NONE; /* not in any stack */
        depth[i] = -1;
        if (!v->keep[i] || v->stream[i] != -1) continue;
        const struct lat_track *tr = &t->tracks[ev->track[i]];
        if (tr->pid == 0 || tr->tid == 0) continue; /* HTA infers a GPU thread: skipped */
        ncpu++;
    }
    refs = malloc((ncpu ? ncpu : 1) * sizeof(*refs));
    pts = malloc((ncpu ? 2 * ncpu : 1) * sizeof(*pts));
    stack = malloc((ncpu ? ncpu : 1) * sizeof(*stack));
    if (!refs || !pts || !stack) goto out;
    ncpu = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v->keep[i] || v->stream[i] != -1) continue;
        const struct lat_track *tr = &t->tracks[ev->track[i]];
        if (tr->pid == 0 || tr->tid == 0) continue;
        refs[ncpu++] = (struct ks_row_ref){ev->track[i], (uint32_t)i};
    }
    qsort(refs, ncpu, sizeof(*refs), ks_ref_cmp);

    /* per thread: nest the rows; find the main and bwd threads */
    uint32_t main_a = 0, main_b = 0, bwd_a = 0, bwd_b = 0;
    int nmain = 0, nbwd = 0;
    for (size_t a = 0; a < ncpu;) {
        size_t b = a;
        while (b < ncpu && refs[b].track == refs[a].track)
            b++;
        size_t np = 0;
        bool has_step = false, has_autograd = false;
        for (size_t k = a; k < b; k++) {
            uint32_t i = refs[k].row;
            lat_ns ts = an_ts(v, i), dur = an_dur(v, i);
            pts[np++] = (struct ks_pt){ts, dur, i, -1};
            pts[np++] = (struct ks_pt){ts + dur, dur, i, 1};
            const char *nm = an_name(v, i);
            if (!strncmp(nm, "ProfilerStep#", 13)) has_step = true;
            if (strstr(nm, "autograd::")) has_autograd = true;
        }
        qsort(pts, np, sizeof(*pts), ks_pt_cmp);
        size_t sp = 0;
        for (size_t k = 0; k < np; k++) {
            if (pts[k].kind == -1) {
                uint32_t i = pts[k].row;
                if (parent[i] != AN_NONE) continue; /* HTA: "node exists", ignored */
                parent[i] = sp ? stack[sp - 1] : KS_ROOT_PARENT;
                stack[sp++] = i;
            } else if (sp) {
                sp--;
            }
        }
        if (has_step) {
            nmain++;
            main_a = (uint32_t)a, main_b = (uint32_t)b;
        } else if (has_autograd) {
            nbwd++;
            bwd_a = (uint32_t)a, bwd_b = (uint32_t)b;
        }
        a = b;
    }
    if (nmain == 1 && nbwd == 1) {
        /* _link_main_and_bwd_stacks: "## backward ##" rows of main, else its ProfilerStep# */
        for (int pass = 0; pass < 2; pass++) {
            bool any = false;
            for (uint32_t k = main_a; k < main_b; k++) {
                uint32_t p = refs[k].row;
                const char *nm = an_name(v, p);
                if (pass == 0 ? strncmp(nm, "## backward ##", 14)
                              : strncmp(nm, "ProfilerStep#", 13))
                    continue;
                if (parent[p] == AN_NONE) continue;
                any = true;
                lat_ns ps = an_ts(v, p), pe = an_end(v, p);
                for (uint32_t q = bwd_a; q < bwd_b; q++) {
                    uint32_t c = refs[q].row;
                    if (parent[c] != KS_ROOT_PARENT) continue; /* first-layer nodes only */
                    if (an_ts(v, c) >= ps && an_end(v, c) <= pe) parent[c] = p;
                }
            }
            if (any) break;
        }
    }
    /* depths of the stack rows */
    for (size_t k = 0; k < ncpu; k++)
        if (parent[refs[k].row] != AN_NONE) depth[refs[k].row] = -2;
    for (size_t k = 0; k < ncpu; k++)
        if (parent[refs[k].row] != AN_NONE) ks_depth(refs[k].row, parent, depth);
    /* GPU rows: children of their correlated stack row; count them up the ancestors */
    size_t ngpu_linked = 0;
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t g = v->gpu[j], c = v->corr[g];
        if (v->stream[g] <= 0 || c == AN_NONE || c == 0 || parent[c] == AN_NONE) continue;
        if (v->stream[c] != -1) continue;
        depth[g] = depth[c] + 1;
        ngpu_linked++;
        for (uint32_t p = c; p != KS_ROOT_PARENT; p = parent[p])
            nk[p]++;
    }

    /* roots */
    int32_t min_depth = INT32_MAX;
    if (opname) {
        for (size_t i = 0; i < n; i++)
            if (v->keep[i] && name_has(an_name(v, i), opname) && depth[i] < min_depth)
                min_depth = depth[i];
    }
    size_t nroots = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v->keep[i] || nk[i] < min_len) continue;
        const char *nm = an_name(v, i);
        bool root;
        if (opname) {
            root = depth[i] == min_depth && name_has(nm, opname);
        } else {
            root = !strncmp(nm, "aten::", 6) && parent[i] != AN_NONE;
            for (uint32_t p = root ? parent[i] : KS_ROOT_PARENT; root && p != KS_ROOT_PARENT;
                 p = parent[p])
                if (!strncmp(an_name(v, p), "aten::", 6)) root = false;
        }
        if (root) {
            is_root[i] = 1;
            nroots++;
        }
    }
    r->kseq_roots = nroots;
    if (!nroots) {
        rc = 0;
        goto out;
    }
    hits = malloc((ngpu_linked ? ngpu_linked : 1) * sizeof(*hits));
    if (!hits) goto out;
    size_t nh = 0;
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t g = v->gpu[j], c = v->corr[g];
        if (v->stream[g] <= 0 || c == AN_NONE || c == 0 || parent[c] == AN_NONE) continue;
        if (v->stream[c] != -1) continue;
        for (uint32_t p = c; p != KS_ROOT_PARENT; p = parent[p])
            if (is_root[p]) {
                hits[nh++] = (struct ks_hit){p, g, an_ts(v, g)};
                break;
            }
    }
    qsort(hits, nh, sizeof(*hits), ks_hit_cmp);
    insts = malloc(nroots * sizeof(*insts));
    if (!insts) goto out;
    size_t ni = 0;
    for (size_t a = 0; a < nh;) {
        size_t b = a;
        uint32_t root = hits[a].root;
        struct ks_inst *in = &insts[ni++];
        in->key = keys.len;
        in->disp = disp.len;
        in->op_name = ev->name[root];
        in->cpu = an_dur(v, root);
        in->gpu = 0;
        if (buf_puts(&keys, an_name(v, root))) goto out;
        for (; b < nh && hits[b].root == root; b++) {
            const char *kn = an_name(v, hits[b].gpu);
            if (buf_putc(&keys, '|') || buf_puts(&keys, kn)) goto out;
            if (b > a && buf_puts(&disp, " -> ")) goto out;
            if (buf_puts(&disp, kn)) goto out;
            in->gpu += an_dur(v, hits[b].gpu);
        }
        in->nkernels = b - a;
        if (buf_putc(&keys, '\0') || buf_putc(&disp, '\0')) goto out;
        a = b;
    }
    qsort_r(insts, ni, sizeof(*insts), ks_inst_cmp, keys.data);
    rows = calloc(ni ? ni : 1, sizeof(*rows));
    if (!rows) goto out;
    size_t nrows = 0;
    for (size_t a = 0; a < ni;) {
        size_t b = a;
        struct lat_an_kseq *row = &rows[nrows++];
        row->op = lat_trace_str(t, insts[a].op_name);
        row->pattern = keys.data + insts[a].key;
        row->kernels = disp.data + insts[a].disp;
        row->nkernels = insts[a].nkernels;
        for (; b < ni && !strcmp(keys.data + insts[b].key, keys.data + insts[a].key); b++) {
            row->gpu_time += insts[b].gpu;
            row->cpu_time += insts[b].cpu;
        }
        row->count = b - a;
        a = b;
    }
    qsort_r(rows, nrows, sizeof(*rows), ks_row_cmp, NULL);
    size_t keep = nrows < v->o->top_n ? nrows : v->o->top_n;
    r->nkseqs_total = nrows;
    r->kseqs = calloc(keep ? keep : 1, sizeof(*r->kseqs));
    if (!r->kseqs) goto out;
    for (size_t k = 0; k < keep; k++) {
        r->kseqs[k] = rows[k];
        r->kseqs[k].pattern = strdup(rows[k].pattern);
        r->kseqs[k].kernels = strdup(rows[k].kernels);
        r->nkseqs = k + 1;
        if (!r->kseqs[k].pattern || !r->kseqs[k].kernels) goto out;
    }
    rc = 0;
out:
    free(parent);
    free(depth);
    free(nk);
    free(refs);
    free(pts);
    free(stack);
    free(is_root);
    free(hits);
    free(insts);
    free(rows);
    buf_fini(&keys);
    buf_fini(&disp);
    return rc;
}

void an_kseq_fini(struct lat_an_rank *r)
{
    for (size_t i = 0; i < r->nkseqs; i++) {
        free(r->kseqs[i].pattern);
        free(r->kseqs[i].kernels);
    }
    free(r->kseqs);
}
