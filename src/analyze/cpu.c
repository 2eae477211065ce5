/*
 * cpu.c - CPU section of analyze/doctor over LAT_EV_CPU_SAMPLE events (see cpu.h).
 *
 * One pass over the events counts on-CPU samples per (thread, stack string id) in a hash
 * map and sums off-CPU interval overlap per thread; then each distinct (thread, stack) is
 * split into frames once and its count is credited to the leaf (self) and, once per distinct
 * function, to every frame on it (total). The work is O(events + distinct stacks x depth),
 * not O(samples x depth). The sampling period, when not given, comes from the trace's
 * metadata (latscope_cpu_sample_hz, written by cpuprof_export), else is estimated from the
 * gaps between consecutive samples of the busiest thread (first quartile: gaps only grow when
 * the thread is off-CPU), for traces from other tools or merged ones.
 */
#include "analyze/cpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/esc.h"
#include "core/grow.h"
#include "core/sort.h"
#include "core/u64map.h"

/* Function table: name -> index, names owned. */
struct ftab {
    struct lat_cpu_func *f;
    size_t n, cap;
    struct lat_u64map idx; /* fnv(name) (+ 2k on a collision) -> index + 1 */
};

static uint64_t fnv64(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h | 1;
}

/* Finds or adds function name[0..n); returns its index or -1 on ENOMEM. Collisions of the
 * 64-bit hash are resolved by probing on (hash + k). */
static long ftab_get(struct ftab *t, const char *name, size_t n)
{
    uint64_t h = fnv64(name, n);
    for (uint64_t k = 0;; k++) {
        uint64_t *slot = lat_u64map_slot(&t->idx, h + 2 * k, NULL);
        if (!slot) return -1;
        if (*slot) {
            struct lat_cpu_func *f = &t->f[*slot - 1];
            if (strlen(f->name) == n && !memcmp(f->name, name, n)) return (long)(*slot - 1);
            continue;
        }
        if (LAT_GROW(t->f, t->cap, t->n, 1, 64)) return -1;
        char *s = malloc(n + 1);
        if (!s) return -1;
        memcpy(s, name, n);
        s[n] = '\0';
        t->f[t->n] = (struct lat_cpu_func){s, 0, 0, 0};
        *slot = ++t->n;
        return (long)(t->n - 1);
    }
}

/* "py:f (x.py:12)" -> length of "py:f (x.py" (the caller appends ")"); 0 when not a Python
 * frame with a line. */
static size_t py_strip_line(const char *s, size_t n)
{
    if (n < 6 || strncmp(s, "py:", 3) || s[n - 1] != ')') return 0;
    size_t i = n - 1;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i == n - 1 || i < 2 || s[i - 1] != ':') return 0;
    return i - 1;
}

struct thr {
    struct lat_cpu_thread t;
    struct lat_u64map self; /* func index -> self samples */
    uint32_t track;
};

/* The windows filter, sorted by start, with the longest window's length: an event only
 * looks at the windows that start at most that long before it (bench --server-pid passes one
 * window per request: tens of thousands). */
struct wins {
    lat_ns (*w)[2]; /* NULL: no filter */
    size_t n;
    lat_ns maxlen;
};

static int wins_init(struct wins *W, const struct lat_cpu_opts *o)
{
    memset(W, 0, sizeof(*W));
    if (!o->nwindows) return 0;
    W->w = malloc(o->nwindows * sizeof(*W->w));
    if (!W->w) return -ENOMEM;
    memcpy(W->w, o->windows, o->nwindows * sizeof(*W->w));
    W->n = o->nwindows;
    qsort(W->w, W->n, sizeof(*W->w), lat_cmp_i64); /* by the first member, the start */
    for (size_t i = 0; i < W->n; i++)
        if (W->w[i][1] - W->w[i][0] > W->maxlen) W->maxlen = W->w[i][1] - W->w[i][0];
    return 0;
}

/* Index of the first window that starts at or after x. */
static size_t wins_from(const struct wins *W, lat_ns x)
{
    size_t lo = 0, hi = W->n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (W->w[m][0] < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

static bool in_windows(const struct wins *W, lat_ns ts)
{
    if (!W->w) return true;
    for (size_t i = wins_from(W, ts - W->maxlen); i < W->n && W->w[i][0] <= ts; i++)
        if (ts < W->w[i][1]) return true;
    return false;
}

/* Σ over the windows of their overlap with [a, b) (overlapping windows count each). */
static lat_ns overlap(const struct wins *W, lat_ns a, lat_ns b)
{
    if (!W->w) return b - a;
    lat_ns sum = 0;
    for (size_t i = wins_from(W, a - W->maxlen); i < W->n && W->w[i][0] < b; i++) {
        lat_ns x = a > W->w[i][0] ? a : W->w[i][0];
        lat_ns y = b < W->w[i][1] ? b : W->w[i][1];
        if (y > x) sum += y - x;
    }
    return sum;
}

static int cmp_self(const void *a, const void *b)
{
    const struct lat_cpu_func *x = a, *y = b;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_total(const void *a, const void *b)
{
    const struct lat_cpu_func *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_stack(const void *a, const void *b)
{
    const struct lat_cpu_stack *x = a, *y = b;
    if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
    return strcmp(x->stack, y->stack);
}

static int cmp_thread(const void *a, const void *b)
{
    const struct lat_cpu_thread *x = a, *y = b;
    if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
    if (x->off_ns != y->off_ns) return x->off_ns > y->off_ns ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void lat_cpu_summary_fini(struct lat_cpu_summary *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nfuncs; i++)
        free(s->funcs[i].name);
    for (size_t i = 0; i < s->nfuncs_total; i++)
        free(s->funcs_total[i].name);
    for (size_t i = 0; i < s->nstacks; i++)
        free(s->stacks[i].stack);
    for (size_t i = 0; i < s->nthreads; i++) {
        if (s->threads[i].label[0]) free((char *)(uintptr_t)s->threads[i].label);
        if (s->threads[i].top_func[0]) free((char *)(uintptr_t)s->threads[i].top_func);
    }
    free(s->funcs);
    free(s->funcs_total);
    free(s->stacks);
    free(s->threads);
    memset(s, 0, sizeof(*s));
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

int lat_cpu_summarize(const struct lat_trace *t, const struct lat_cpu_opts *opts,
                      struct lat_cpu_summary *out)
{
    struct lat_cpu_opts o = {.top_n = 10, .tid = -1};
    if (opts) o = *opts;
    if (!o.top_n) o.top_n = 10;
    memset(out, 0, sizeof(*out));
    if (!t || (o.nwindows && !o.windows)) return LAT_E_USAGE;
    int rc = -ENOMEM;
    struct thr *th = NULL;
    size_t nth = 0, thcap = 0;
    struct lat_u64map track_thr = {0}, pair = {0}, stack_count = {0}; /* see their uses */
    struct ftab ft = {0};
    int64_t *sts = NULL; /* on-CPU samples: thread index << 48 | time, for the period */
    size_t nsts = 0, stscap = 0;
    /* The arg keys are interned strings: look them up once (absent: no samples). */
    uint32_t k_stack = strtab_find(&t->strs, "stack", 5);
    uint32_t k_state = strtab_find(&t->strs, "state", 5);
    uint32_t k_weight = strtab_find(&t->strs, "weight", 6);
    bool have_keys = k_stack != UINT32_MAX && k_state != UINT32_MAX;
    struct wins W;
    if (wins_init(&W, &o)) return -ENOMEM;

    for (size_t i = 0; have_keys && i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        uint32_t track = t->ev.track[i];
        const struct lat_track *tr = &t->tracks[track];
        if (o.tid >= 0 && tr->tid != o.tid) continue;
        if (o.keep && !o.keep(o.keep_ud, i)) continue;
        uint32_t stack_id = 0;
        bool off = false;
        for (uint32_t a = 0; a < t->ev.nargs[i]; a++) {
            const struct lat_arg *arg = &t->args[t->ev.args[i] + a];
            if (arg->key == k_stack && arg->type == LAT_ARG_STR) stack_id = arg->str;
            if (arg->key == k_state && arg->type == LAT_ARG_STR)
                off = !strcmp(lat_trace_str(t, arg->str), "off");
        }
        lat_ns ts = t->ev.ts[i], dur = t->ev.dur[i];
        if (off ? overlap(&W, ts, ts + dur) <= 0 : !in_windows(&W, ts)) continue;
        uint64_t *ti = lat_u64map_slot(&track_thr, track, NULL); /* thread index + 1 */
        if (!ti) goto out;
        if (!*ti) {
            if (LAT_GROW(th, thcap, nth, 1, 16)) goto out;
            memset(&th[nth], 0, sizeof(th[nth]));
            th[nth].t.pid = tr->pid;
            th[nth].t.tid = tr->tid;
            th[nth].t.first_ns = ts;
            th[nth].track = track;
            *ti = ++nth;
        }
        struct thr *x = &th[*ti - 1];
        if (ts < x->t.first_ns) x->t.first_ns = ts;
        if (ts + dur > x->t.last_ns) x->t.last_ns = ts + dur;
        if (off) {
            lat_ns ov = overlap(&W, ts, ts + dur);
            x->t.off_ns += ov;
            x->t.off_intervals++;
            out->off_ns += ov;
            out->off_intervals++;
            continue;
        }
        uint64_t w = lat_sample_weight(t, i, k_weight); /* a folded line's count: one event */
        x->t.samples += w;
        out->samples += w;
        uint64_t *c = lat_u64map_slot(&pair, (*ti - 1) << 32 | stack_id, NULL);
        if (!c) goto out;
        *c += w;
        if (LAT_GROW(sts, stscap, nsts, 1, 1024)) goto out;
        /* thread index in the top bits, time below: sorting groups by thread, then time. */
        sts[nsts++] = (int64_t)((uint64_t)(*ti - 1) << 48 | ((uint64_t)ts & 0xffffffffffffull));
    }

    /* Credit each distinct (thread, stack) to its functions. */
    uint64_t key, n;
    for (size_t it = 0; lat_u64map_next(&pair, &it, &key, &n);) {
        size_t ti = (size_t)(key >> 32);
        uint32_t sid = (uint32_t)key;
        uint64_t *sc = lat_u64map_slot(&stack_count, sid, NULL);
        if (!sc) goto out;
        *sc += n;
        const char *s = sid ? lat_trace_str(t, sid) : "[unknown]";
        long seen[256];
        size_t nseen = 0;
        long leaf = -1;
        uint64_t depth = 0;
        for (const char *p = s; *p; depth++) {
            const char *e = strchr(p, ';');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char tmp[1024];
            size_t cut = o.keep_lines ? 0 : py_strip_line(p, len);
            long fi;
            if (cut && cut + 1 < sizeof(tmp)) {
                memcpy(tmp, p, cut);
                tmp[cut] = ')';
                fi = ftab_get(&ft, tmp, cut + 1);
            } else {
                fi = ftab_get(&ft, p, len);
            }
            if (fi < 0) goto out;
            bool dup = false;
            for (size_t q = 0; q < nseen && !dup; q++)
                dup = seen[q] == fi;
            if (!dup && nseen < 256) {
                seen[nseen++] = fi;
                ft.f[fi].total += n;
                ft.f[fi].depth_sum += n * depth;
            }
            leaf = fi;
            p = e ? e + 1 : p + len;
        }
        if (leaf >= 0) {
            ft.f[leaf].self += n;
            uint64_t *ts = lat_u64map_slot(&th[ti].self, (uint64_t)leaf, NULL);
            if (!ts) goto out;
            *ts += n;
        }
    }

    /* Period: given, else the rate latscope recorded (metadata latscope_cpu_sample_hz), else
     * the first quartile of the busiest thread's sample gaps (gaps only grow when the thread
     * is off-CPU, so a low quantile is the period). */
    out->period_ns = o.period_ns;
    for (size_t i = 0; !out->period_ns && i < t->nmeta; i++) {
        if (strcmp(lat_trace_str(t, t->meta[i].key), "latscope_cpu_sample_hz")) continue;
        const char *v = lat_trace_str(t, t->meta[i].value);
        long hz = strtol(v + (*v == '"'), NULL, 10);
        if (hz > 0 && hz <= 100000) out->period_ns = 1000000000 / hz;
    }
    if (!out->period_ns && nsts > 1) {
        qsort(sts, nsts, sizeof(*sts), lat_cmp_i64);
        size_t best = 0;
        for (size_t i = 1; i < nth; i++)
            if (th[i].t.samples > th[best].t.samples) best = i;
        int64_t *gaps = malloc(nsts * sizeof(*gaps));
        if (!gaps) goto out;
        size_t ng = 0;
        for (size_t i = 1; i < nsts; i++) {
            if ((uint64_t)sts[i] >> 48 != best || (uint64_t)sts[i - 1] >> 48 != best) continue;
            int64_t g = (sts[i] & 0xffffffffffffll) - (sts[i - 1] & 0xffffffffffffll);
            if (g > 0) gaps[ng++] = g;
        }
        if (ng) {
            qsort(gaps, ng, sizeof(*gaps), lat_cmp_i64);
            double hz = 1e9 / (double)gaps[ng / 4];
            long rhz = (long)(hz + 0.5);
            if (rhz < 1) rhz = 1;
            out->period_ns = 1000000000 / rhz;
        }
        free(gaps);
    }

    /* Outputs. */
    out->distinct_funcs = ft.n;
    out->distinct_stacks = stack_count.n;
    size_t top = ft.n < o.top_n ? ft.n : o.top_n;
    out->funcs = calloc(top + 1, sizeof(*out->funcs));
    out->funcs_total = calloc(top + 1, sizeof(*out->funcs_total));
    out->threads = calloc(nth + 1, sizeof(*out->threads));
    if (!out->funcs || !out->funcs_total || !out->threads) goto out;
    struct lat_cpu_func *sorted = malloc((ft.n + 1) * sizeof(*sorted));
    if (!sorted) goto out;
    if (ft.n) memcpy(sorted, ft.f, ft.n * sizeof(*sorted));
    qsort(sorted, ft.n, sizeof(*sorted), cmp_self);
    for (size_t i = 0; i < top; i++) {
        out->funcs[i] = sorted[i];
        out->funcs[i].name = dup_str(sorted[i].name);
        if (!out->funcs[i].name) {
            free(sorted);
            goto out;
        }
        out->nfuncs++;
    }
    qsort(sorted, ft.n, sizeof(*sorted), cmp_total);
    for (size_t i = 0; i < top; i++) {
        out->funcs_total[i] = sorted[i];
        out->funcs_total[i].name = dup_str(sorted[i].name);
        if (!out->funcs_total[i].name) {
            free(sorted);
            goto out;
        }
        out->nfuncs_total++;
    }
    free(sorted);

    struct lat_cpu_stack *stk = malloc((stack_count.n + 1) * sizeof(*stk));
    if (!stk) goto out;
    size_t ns = 0;
    uint64_t skey, scount;
    for (size_t it = 0; lat_u64map_next(&stack_count, &it, &skey, &scount);) {
        uint32_t sid = (uint32_t)skey;
        stk[ns++] = (struct lat_cpu_stack){
            (char *)(uintptr_t)(sid ? lat_trace_str(t, sid) : "[unknown]"), scount};
    }
    qsort(stk, ns, sizeof(*stk), cmp_stack);
    out->stacks = calloc((ns < o.top_n ? ns : o.top_n) + 1, sizeof(*out->stacks));
    if (!out->stacks) {
        free(stk);
        goto out;
    }
    for (size_t i = 0; i < ns && i < o.top_n; i++) {
        out->stacks[i].samples = stk[i].samples;
        out->stacks[i].stack = dup_str(stk[i].stack);
        if (!out->stacks[i].stack) {
            free(stk);
            goto out;
        }
        out->nstacks++;
    }
    free(stk);

    for (size_t i = 0; i < nth; i++) {
        struct lat_cpu_thread *d = &out->threads[out->nthreads];
        *d = th[i].t;
        d->label = "";
        d->top_func = "";
        d->on_ns = (lat_ns)th[i].t.samples * out->period_ns;
        out->nthreads++;
        uint32_t lab = t->tracks[th[i].track].tid_label;
        /* only non-empty names are copied: lat_cpu_summary_fini frees those (an interned name
         * may start with a NUL byte) */
        if (lab && lat_trace_str(t, lab)[0] && !(d->label = dup_str(lat_trace_str(t, lab)))) {
            d->label = "";
            goto out;
        }
        uint64_t best = 0;
        long bf = -1;
        uint64_t fk, v;
        for (size_t it = 0; lat_u64map_next(&th[i].self, &it, &fk, &v);) {
            long fi = (long)fk;
            if (v > best || (v == best && bf >= 0 && strcmp(ft.f[fi].name, ft.f[bf].name) < 0)) {
                best = v;
                bf = fi;
            }
        }
        if (bf >= 0 && ft.f[bf].name[0] && !(d->top_func = dup_str(ft.f[bf].name))) {
            d->top_func = "";
            goto out;
        }
    }
    qsort(out->threads, out->nthreads, sizeof(*out->threads), cmp_thread);
    rc = 0;
out:
    for (size_t i = 0; i < ft.n; i++)
        free(ft.f[i].name);
    free(ft.f);
    lat_u64map_fini(&ft.idx);
    for (size_t i = 0; i < nth; i++)
        lat_u64map_fini(&th[i].self);
    free(th);
    free(sts);
    lat_u64map_fini(&track_thr);
    lat_u64map_fini(&pair);
    lat_u64map_fini(&stack_count);
    free(W.w);
    if (rc) lat_cpu_summary_fini(out);
    return rc;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

int lat_cpu_format_text(const struct lat_cpu_summary *s, FILE *f)
{
    fprintf(f, "CPU samples: %llu on-CPU", (unsigned long long)s->samples);
    if (s->period_ns)
        fprintf(f, " (period %.3f ms, ~%.3f s on-CPU)", (double)s->period_ns / 1e6,
                (double)s->samples * (double)s->period_ns / 1e9);
    else if (s->samples > 1)
        fprintf(f, " (no sample times: period and on-CPU time unknown)");
    fprintf(f, ", %llu off-CPU intervals (%.3f s)\n", (unsigned long long)s->off_intervals,
            (double)s->off_ns / 1e9);
    if (!s->samples && !s->off_intervals) return ferror(f) ? -EIO : 0;
    char e[4096], e2[1024];
    fprintf(f, "\nTop functions by self samples:\n%8s %7s %8s %7s  %s\n", "self", "self%", "total",
            "total%", "function");
    for (size_t i = 0; i < s->nfuncs; i++)
        fprintf(f, "%8llu %6.1f%% %8llu %6.1f%%  %s\n", (unsigned long long)s->funcs[i].self,
                pct(s->funcs[i].self, s->samples), (unsigned long long)s->funcs[i].total,
                pct(s->funcs[i].total, s->samples), lat_esc_cell(e, sizeof(e), s->funcs[i].name));
    fprintf(f, "\nTop functions by total samples:\n%8s %7s  %s\n", "total", "total%", "function");
    for (size_t i = 0; i < s->nfuncs_total; i++)
        fprintf(f, "%8llu %6.1f%%  %s\n", (unsigned long long)s->funcs_total[i].total,
                pct(s->funcs_total[i].total, s->samples),
                lat_esc_cell(e, sizeof(e), s->funcs_total[i].name));
    fprintf(f, "\nTop stacks:\n");
    for (size_t i = 0; i < s->nstacks; i++)
        fprintf(f, "%8llu %6.1f%%  %s\n", (unsigned long long)s->stacks[i].samples,
                pct(s->stacks[i].samples, s->samples),
                lat_esc_cell(e, sizeof(e), s->stacks[i].stack));
    fprintf(f, "\nThreads (on-CPU vs off-CPU):\n%8s %8s %10s %10s %8s  %-16s %s\n", "pid", "tid",
            "on-CPU s", "off-CPU s", "samples", "name", "top function");
    size_t shown = 0;
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct lat_cpu_thread *t = &s->threads[i];
        /* Threads are sorted by samples: show the top 20, and any other with samples. */
        if (shown >= 20 && !t->samples) {
            fprintf(f, "%8s (%zu more threads without on-CPU samples)\n", "", s->nthreads - i);
            break;
        }
        shown++;
        /* on-CPU time is samples x period: unknown without a period (untimed stack files) */
        char on[32] = "         -";
        if (s->period_ns) snprintf(on, sizeof(on), "%10.3f", (double)t->on_ns / 1e9);
        fprintf(f, "%8lld %8lld %s %10.3f %8llu  %-16s %s\n", (long long)t->pid, (long long)t->tid,
                on, (double)t->off_ns / 1e9, (unsigned long long)t->samples,
                t->label[0] ? lat_esc_cell(e, sizeof(e), t->label) : "-",
                lat_esc_cell(e2, sizeof(e2), t->top_func));
    }
    return ferror(f) ? -EIO : 0;
}
