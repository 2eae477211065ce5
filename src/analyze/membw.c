/*
 * membw.c - memory bandwidth over time (analyses.md §9: HTA's TraceCounters memory-bandwidth
 * time series and get_memory_bw_summary).
 *
 * The rows: kept GPU rows (stream != -1) of kernel type MEMORY, grouped by HTA's
 * get_memory_kernel_type: "Memset" for names starting with Memset, the first 11 characters
 * ("Memcpy DtoH", "Memcpy HtoD", ...) for names starting with Memcpy, "Memcpy Unknown" else.
 * Each adds its args["memory bandwidth (GB/s)"] at its start and subtracts it at its end (a
 * 0-length row lasts 1 us, as in HTA); the running sum per group is the series, and the summary
 * is pandas' describe() of its samples above 0.
 *
 * Two differences from HTA, both on equal timestamps and float residues only: at one timestamp
 * ends are applied before starts (two back-to-back copies never count as overlapping; HTA's
 * unstable sort puts them in either order), and the running sum is exactly 0 whenever no copy
 * of the group is active (HTA's float cumsum can leave a residue such as 1e-12 GB/s, which its
 * `> 0` filter then counts as a sample). Rows without a bandwidth argument add nothing.
 */
#include "analyze/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const group_names[] = {"Memcpy DtoH", "Memcpy HtoD", "Memcpy DtoD", "Memset",
                                          "Memcpy Unknown"};
enum { NGROUPS_FIXED = 4, GROUP_UNKNOWN = 4, MAX_GROUPS = 64 };

struct bw_ev {
    lat_ns ts;
    int64_t pid;   /* the GPU's pid */
    double bw;     /* +bw at a start, -bw at an end */
    uint16_t grp;  /* group index */
    uint8_t start; /* 1: a start (applied after the ends of the same ts) */
};

static int cmp_ev(const void *a, const void *b)
{
    const struct bw_ev *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return 0;
}

/* The group of a MEMORY row's name; new "Memcpy XXXX" prefixes get their own group. */
static int group_of(const char *name, char (*extra)[12], size_t *nextra)
{
    if (!strncmp(name, "Memset", 6)) return 3;
    if (strncmp(name, "Memcpy", 6) != 0) return GROUP_UNKNOWN;
    char p[12];
    size_t n = strnlen(name, 11);
    memcpy(p, name, n);
    p[n] = 0;
    for (int g = 0; g < NGROUPS_FIXED - 1; g++)
        if (!strcmp(p, group_names[g])) return g;
    for (size_t k = 0; k < *nextra; k++)
        if (!strcmp(p, extra[k])) return (int)(5 + k);
    if (*nextra + 5 >= MAX_GROUPS) return GROUP_UNKNOWN;
    memcpy(extra[*nextra], p, n + 1);
    return (int)(5 + (*nextra)++);
}

int an_membw(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    uint32_t key = strtab_find(&t->strs, "memory bandwidth (GB/s)", 23);
    if (key == UINT32_MAX || !v->ngpu) return 0;
    struct bw_ev *ev = malloc(2 * v->ngpu * sizeof(*ev));
    if (!ev) return -ENOMEM;
    char extra[MAX_GROUPS][12];
    size_t nextra = 0, n = 0;
    bool used[MAX_GROUPS] = {false};
    for (size_t j = 0; j < v->ngpu; j++) {
        uint32_t i = v->gpu[j];
        if (an_ktype(v, i) != LAT_KT_MEMORY) continue;
        const struct lat_arg *a = &t->args[t->ev.args[i]];
        double bw = 0;
        bool have = false;
        for (uint32_t k = 0; k < t->ev.nargs[i]; k++) {
            if (a[k].key != key) continue;
            if (a[k].type == LAT_ARG_DOUBLE) bw = a[k].v.d, have = true;
            if (a[k].type == LAT_ARG_INT) bw = (double)a[k].v.i, have = true;
        }
        if (!have) continue;
        int g = group_of(an_name(v, i), extra, &nextra);
        lat_ns ts = an_ts(v, i), end = an_end(v, i);
        if (end <= ts) end = ts + 1000; /* HTA: a 0 us row lasts 1 us */
        int64_t pid = t->tracks[t->ev.track[i]].pid;
        ev[n++] = (struct bw_ev){ts, pid, bw, (uint16_t)g, 1};
        ev[n++] = (struct bw_ev){end, pid, -bw, (uint16_t)g, 0};
        used[g] = true;
    }
    qsort(ev, n, sizeof(*ev), cmp_ev);
    size_t ng = 0;
    for (int g = 0; g < MAX_GROUPS; g++)
        ng += used[g];
    r->membw = ng ? calloc(ng, sizeof(*r->membw)) : NULL;
    double *x = malloc((n ? n : 1) * sizeof(*x));
    if (v->o->counters && n) r->membw_pts = malloc(n * sizeof(*r->membw_pts));
    if ((ng && !r->membw) || !x || (v->o->counters && n && !r->membw_pts)) {
        free(ev);
        free(x);
        return -ENOMEM;
    }
    for (int g = 0; g < MAX_GROUPS; g++) {
        if (!used[g]) continue;
        struct lat_an_membw *m = &r->membw[r->nmembw++];
        snprintf(m->name_buf, sizeof(m->name_buf), "%s", g < 5 ? group_names[g] : extra[g - 5]);
        m->name = m->name_buf; /* the array is not moved after this */
        double run = 0;
        long active = 0;
        size_t nx = 0;
        for (size_t k = 0; k < n; k++) {
            if (ev[k].grp != g) continue;
            active += ev[k].start ? 1 : -1;
            run += ev[k].bw;
            if (!active) run = 0; /* exactly 0 between copies (no float residue) */
            m->rows += ev[k].start;
            if (run > 0) x[nx++] = run;
            if (r->membw_pts) /* HTA writes every point, 0 included */
                r->membw_pts[r->nmembw_pts++] =
                    (struct lat_an_counter_pt){ev[k].ts, run, ev[k].pid, -1, m->name};
        }
        an_describe(x, nx, &m->gbps);
    }
    free(ev);
    free(x);
    return 0;
}
