/*
 * ncu.c - Nsight Compute section of analyze (see ncu.h). One pass over the events (launches
 * are kernel events, rule results instants with the launch ID as correlation), a sort of the
 * launches by ID and of each launch's rules by estimated speedup.
 */
#include "analyze/ncu.h"
#include "analyze/sections.h"
#include "core/esc.h"
#include "core/jsonw.h"
#include "core/sort.h"
#include "core/table.h"
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define L_F(k, u, l, m)                                                                            \
    {                                                                                              \
        k, LAT_AN_U_##u, l, offsetof(struct lat_ncu_launch, m), false                              \
    }
static const struct lat_an_field launch_f[] = {
    L_F("id", I64, "ID", id),
    L_F("kernel", STR, "kernel", kernel),
    L_F("duration_us", NS, "duration", dur),
    L_F("sm_throughput_pct", PCT, "SM %", sm_pct),
    L_F("memory_throughput_pct", PCT, "memory %", mem_pct),
    L_F("dram_throughput_pct", PCT, "DRAM %", dram_pct),
    L_F("achieved_occupancy_pct", PCT, "achieved occupancy %", achieved_occ),
    L_F("theoretical_occupancy_pct", PCT, "theoretical occupancy %", theoretical_occ),
    L_F("occupancy_limiter", STR, "occupancy limiter", limiter_p),
    L_F("registers_per_thread", I64, "registers/thread", regs),
    L_F("block_size", I64, "block size", block_size),
    L_F("grid_size", I64, "grid size", grid_size),
    L_F("block", STR, "block", block),
    L_F("grid", STR, "grid", grid),
    L_F("waves_per_sm", F3, "waves/SM", waves),
    L_F("bound", STR, "bound", bound),
    L_F("max_estimated_speedup_pct", PCT, "max est. speedup %", max_speedup_pct),
};
const struct lat_an_table lat_ncu_launch_table = {"ncu_launches", launch_f,
                                                  sizeof(launch_f) / sizeof(launch_f[0]),
                                                  sizeof(struct lat_ncu_launch)};

bool lat_ncu_is(const struct lat_trace *t)
{
    return lat_trace_has(t, LAT_FCAP_NCU_METRICS);
}

/* The metric name of an arg key: "Achieved Occupancy [%]" -> "Achieved Occupancy" (n bytes). */
static size_t metric_len(const char *k)
{
    size_t n = strlen(k);
    if (n && k[n - 1] == ']') {
        const char *b = strrchr(k, '[');
        if (b && b > k && b[-1] == ' ') return (size_t)(b - k) - 1;
    }
    return n;
}

enum {
    M_SM,
    M_MEM,
    M_DRAM,
    M_ACH,
    M_THEO,
    M_REGS,
    M_BLOCK,
    M_GRID,
    M_WAVES,
    M_LIM_REGS,
    M_LIM_SMEM,
    M_LIM_WARPS,
    M_LIM_SM,
    M_LIM_BARRIERS,
    M_N
};

/* Details page names (current, then ncu 2019-2021) and the raw page's. */
static const char *const aliases[M_N][4] = {
    [M_SM] = {"Compute (SM) Throughput", "SM [%]",
              "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    [M_MEM] = {"Memory Throughput", "Memory [%]",
               "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    [M_DRAM] = {"DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    [M_ACH] = {"Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    [M_THEO] = {"Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"},
    [M_REGS] = {"registers per thread"},
    [M_BLOCK] = {"Block Size", "launch__block_size"},
    [M_GRID] = {"Grid Size", "launch__grid_size"},
    [M_WAVES] = {"Waves Per SM", "launch__waves_per_multiprocessor"},
    [M_LIM_REGS] = {"Block Limit Registers", "launch__occupancy_limit_registers"},
    [M_LIM_SMEM] = {"Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"},
    [M_LIM_WARPS] = {"Block Limit Warps", "launch__occupancy_limit_warps"},
    [M_LIM_SM] = {"Block Limit SM", "launch__occupancy_limit_blocks"},
    [M_LIM_BARRIERS] = {"Block Limit Barriers", "launch__occupancy_limit_barriers"},
};

static const char *const limiter_names[] = {"registers", "shared memory", "warps", "SM blocks",
                                            "barriers"};

static bool arg_double(const struct lat_trace *t, const struct lat_arg *a, double *v)
{
    switch (a->type) {
    case LAT_ARG_INT:
        *v = (double)a->v.i;
        return true;
    case LAT_ARG_UINT:
        *v = (double)a->v.u;
        return true;
    case LAT_ARG_DOUBLE:
        *v = a->v.d;
        return true;
    default:
        (void)t;
        return false;
    }
}

static void fill_launch(const struct lat_trace *t, size_t i, struct lat_ncu_launch *l)
{
    double m[M_N];
    for (int k = 0; k < M_N; k++)
        m[k] = NAN;
    const struct lat_arg *a = t->args + t->ev.args[i];
    for (uint32_t j = 0; j < t->ev.nargs[i]; j++) {
        const char *key = lat_trace_str(t, a[j].key);
        size_t kl = metric_len(key);
        if (!strcmp(key, "block") && a[j].type == LAT_ARG_RAW)
            l->block = lat_trace_str(t, a[j].str);
        if (!strcmp(key, "grid") && a[j].type == LAT_ARG_RAW) l->grid = lat_trace_str(t, a[j].str);
        double v;
        if (!arg_double(t, &a[j], &v)) continue;
        for (int k = 0; k < M_N; k++) {
            if (!isnan(m[k])) continue;
            for (int q = 0; q < 4 && aliases[k][q]; q++)
                if (strlen(aliases[k][q]) == kl && !memcmp(aliases[k][q], key, kl)) {
                    m[k] = v;
                    break;
                }
        }
    }
    l->sm_pct = m[M_SM];
    l->mem_pct = m[M_MEM];
    l->dram_pct = m[M_DRAM];
    l->achieved_occ = m[M_ACH];
    l->theoretical_occ = m[M_THEO];
    l->regs = isnan(m[M_REGS]) || m[M_REGS] < 0 ? -1 : (int64_t)m[M_REGS];
    l->block_size = isnan(m[M_BLOCK]) || m[M_BLOCK] < 0 ? -1 : (int64_t)m[M_BLOCK];
    l->grid_size = isnan(m[M_GRID]) || m[M_GRID] < 0 ? -1 : (int64_t)m[M_GRID];
    l->waves = m[M_WAVES];
    if (!isnan(l->sm_pct) && !isnan(l->mem_pct)) {
        if (l->sm_pct < 60.0 && l->mem_pct < 60.0)
            l->bound = "latency";
        else
            l->bound = l->sm_pct >= l->mem_pct ? "compute" : "memory";
    }
    double lo = INFINITY;
    for (int k = M_LIM_REGS; k <= M_LIM_BARRIERS; k++)
        if (!isnan(m[k]) && m[k] < lo) lo = m[k];
    size_t o = 0;
    for (int k = M_LIM_REGS; k <= M_LIM_BARRIERS && isfinite(lo); k++)
        if (m[k] == lo && o < sizeof(l->limiter))
            o += (size_t)snprintf(l->limiter + o, sizeof(l->limiter) - o, "%s%s", o ? "+" : "",
                                  limiter_names[k - M_LIM_REGS]);
}

static const char *arg_s(const struct lat_trace *t, size_t i, const char *key)
{
    const struct lat_arg *a = lat_trace_arg(t, i, key);
    return a && a->type == LAT_ARG_STR ? lat_trace_str(t, a->str) : NULL;
}

static int cmp_rule(const void *a, const void *b)
{
    const struct lat_ncu_rule *x = a, *y = b;
    bool xn = isnan(x->speedup_pct), yn = isnan(y->speedup_pct);
    if (xn != yn) return xn ? 1 : -1;
    if (!xn && x->speedup_pct != y->speedup_pct) return x->speedup_pct > y->speedup_pct ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_id(const void *a, const void *b)
{
    const struct lat_ncu_launch *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

int lat_ncu_summarize(const struct lat_trace *t, struct lat_ncu_summary *s)
{
    memset(s, 0, sizeof(*s));
    const char *page = NULL;
    for (size_t i = 0; i < t->nmeta; i++)
        if (!strcmp(lat_trace_str(t, t->meta[i].key), "ncu_page"))
            page = lat_trace_str(t, t->meta[i].value);
    s->page = page && !strcmp(page, "\"raw\"") ? "raw" : "details";
    uint32_t cat_rule = strtab_find(&t->strs, "ncu_rule", 8);
    size_t nk = 0, nr = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] == LAT_EV_KERNEL) nk++;
        if (t->ev.cat[i] == cat_rule && t->ev.kind[i] == LAT_EV_INSTANT) nr++;
    }
    s->launches = calloc(nk ? nk : 1, sizeof(*s->launches));
    struct lat_ncu_rule *rules = calloc(nr ? nr : 1, sizeof(*rules));
    int64_t *rid = calloc(nr ? nr : 1, sizeof(*rid) * 2);
    if (!s->launches || !rules || !rid) {
        free(rules);
        free(rid);
        lat_ncu_summary_fini(s);
        return -ENOMEM;
    }
    size_t k = 0, r = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] == LAT_EV_KERNEL) {
            struct lat_ncu_launch *l = &s->launches[k++];
            l->id = t->ev.correlation[i];
            l->kernel = lat_trace_str(t, t->ev.name[i]);
            l->has_dur = !(t->ev.flags[i] & LAT_EVF_NO_DUR);
            l->dur = t->ev.dur[i];
            l->max_speedup_pct = NAN;
            fill_launch(t, i, l);
            s->total += l->dur;
        } else if (t->ev.cat[i] == cat_rule && t->ev.kind[i] == LAT_EV_INSTANT) {
            struct lat_ncu_rule *u = &rules[r];
            u->name = lat_trace_str(t, t->ev.name[i]);
            u->section = arg_s(t, i, "section");
            u->type = arg_s(t, i, "type");
            u->speedup_type = arg_s(t, i, "speedup type");
            u->description = arg_s(t, i, "description");
            u->speedup_pct = NAN;
            const struct lat_arg *a = lat_trace_arg(t, i, "estimated speedup [%]");
            double v;
            if (a && arg_double(t, a, &v)) u->speedup_pct = v;
            rid[2 * r] = t->ev.correlation[i];
            rid[2 * r + 1] = (int64_t)r;
            r++;
        }
    }
    s->nlaunches = k;
    qsort(s->launches, k, sizeof(*s->launches), cmp_id);
    /* rules to their launch: both sorted by ID */
    qsort(rid, r, 2 * sizeof(*rid), lat_cmp_i64); /* by the first of each pair */
    int rc = 0;
    for (size_t a = 0, b = 0; a < k && !rc; a++) {
        struct lat_ncu_launch *l = &s->launches[a];
        l->limiter_p = l->limiter[0] ? l->limiter : NULL; /* after the sort moved the rows */
        while (b < r && rid[2 * b] < l->id)
            b++;
        size_t e = b;
        while (e < r && rid[2 * e] == l->id)
            e++;
        if (e > b) {
            l->rules = malloc((e - b) * sizeof(*l->rules));
            if (!l->rules) {
                rc = -ENOMEM;
                break;
            }
            for (size_t q = b; q < e; q++)
                l->rules[l->nrules++] = rules[rid[2 * q + 1]];
            qsort(l->rules, l->nrules, sizeof(*l->rules), cmp_rule);
            if (!isnan(l->rules[0].speedup_pct)) l->max_speedup_pct = l->rules[0].speedup_pct;
            b = e;
        }
        if (l->bound && !strcmp(l->bound, "compute")) s->bound_compute++;
        if (l->bound && !strcmp(l->bound, "memory")) s->bound_memory++;
        if (l->bound && !strcmp(l->bound, "latency")) s->bound_latency++;
    }
    free(rules);
    free(rid);
    if (rc) lat_ncu_summary_fini(s);
    return rc;
}

void lat_ncu_summary_fini(struct lat_ncu_summary *s)
{
    for (size_t i = 0; s->launches && i < s->nlaunches; i++)
        free(s->launches[i].rules);
    free(s->launches);
    memset(s, 0, sizeof(*s));
}

/* ---- kernel names ---- */

/* The base name of a kernel name: mangled _Z...: the last identifier of its (nested) name;
 * demangled: without return type, argument list, template arguments and namespaces. */
static size_t base_name(const char *s, char *out, size_t outsz)
{
    size_t n = strlen(s);
    if (n > 2 && s[0] == '_' && s[1] == 'Z') {
        const char *p = s + 2, *last = NULL;
        size_t ll = 0;
        if (*p == 'N') p++;
        while (*p == 'K' || *p == 'V' || *p == 'r')
            p++;
        if (p[0] == 'S' && p[1] == 't') p += 2;
        while (isdigit((unsigned char)*p)) {
            char *e;
            unsigned long len = strtoul(p, &e, 10);
            if (len == 0 || len > strlen(e)) break;
            last = e;
            ll = len;
            p = e + len;
        }
        if (!last || ll + 1 > outsz) return 0;
        memcpy(out, last, ll);
        out[ll] = 0;
        return ll;
    }
    /* the argument list: the last top-level '(' ... */
    size_t end = n;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<') depth++;
        if (s[i] == '>' && depth > 0) depth--;
        if (s[i] == '(' && depth == 0) {
            end = i;
            break;
        }
    }
    /* drop template arguments, keep the last "::" component and word */
    size_t o = 0;
    depth = 0;
    for (size_t i = 0; i < end; i++) {
        char c = s[i];
        if (c == '<') {
            depth++;
            continue;
        }
        if (c == '>') {
            if (depth) depth--;
            continue;
        }
        if (depth) continue;
        if (c == ':' || c == ' ') {
            o = 0; /* a namespace, or the return type before the name */
            continue;
        }
        if (o + 1 < outsz) out[o++] = c;
    }
    out[o] = 0;
    return o;
}

/* 3 same name, 2 same without arguments/spaces, 1 same base name or a truncated prefix, 0. */
static int name_score(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 3;
    char x[512], y[512];
    size_t o = 0, p = 0;
    int depth = 0;
    for (const char *s = a; *s && o + 1 < sizeof(x); s++) { /* a without its arguments */
        if (*s == '<') depth++;
        if (*s == '>' && depth) depth--;
        if (*s == '(' && depth == 0) break;
        if (*s != ' ') x[o++] = *s;
    }
    x[o] = 0;
    depth = 0;
    for (const char *s = b; *s && p + 1 < sizeof(y); s++) {
        if (*s == '<') depth++;
        if (*s == '>' && depth) depth--;
        if (*s == '(' && depth == 0) break;
        if (*s != ' ') y[p++] = *s;
    }
    y[p] = 0;
    /* "void f<...>" vs "f<...>": the return type is not part of the name */
    const char *xs = !strncmp(x, "void", 4) && strncmp(y, "void", 4) ? x + 4 : x;
    const char *ys = !strncmp(y, "void", 4) && strncmp(x, "void", 4) ? y + 4 : y;
    if (o && p && !strcmp(xs, ys)) return 2;
    size_t la = strlen(a), lb = strlen(b);
    size_t cut_a = la >= 3 && !strcmp(a + la - 3, "...") ? la - 3 : la;
    size_t cut_b = lb >= 3 && !strcmp(b + lb - 3, "...") ? lb - 3 : lb;
    size_t m = cut_a < cut_b ? cut_a : cut_b;
    if (m >= 24 && !strncmp(a, b, m)) return 1;
    char ba[256], bb[256];
    if (base_name(a, ba, sizeof(ba)) && base_name(b, bb, sizeof(bb)) && !strcmp(ba, bb)) return 1;
    return 0;
}

bool lat_ncu_name_match(const char *timeline, const char *ncu)
{
    return timeline && ncu && name_score(timeline, ncu) > 0;
}

const struct lat_ncu_launch *lat_ncu_find(const struct lat_ncu_summary *s, const char *name)
{
    const struct lat_ncu_launch *best = NULL;
    int bs = 0;
    for (size_t i = 0; name && i < s->nlaunches; i++) {
        int sc = name_score(name, s->launches[i].kernel);
        if (sc > bs || (sc == bs && sc > 0 && s->launches[i].dur > best->dur)) {
            best = &s->launches[i];
            bs = sc;
        }
    }
    return best;
}

/* ---- output ---- */

static void launch_json(struct jsonw *w, const struct lat_ncu_launch *l)
{
    jsonw_obj_begin(w);
    for (size_t i = 0; i < lat_ncu_launch_table.nfields; i++) {
        const struct lat_an_field *f = &lat_ncu_launch_table.fields[i];
        if (f->unit == LAT_AN_U_I64 && *(const int64_t *)((const char *)l + f->off) < 0) {
            jsonw_key(w, f->key);
            jsonw_null(w);
        } else if (f->unit == LAT_AN_U_NS && !l->has_dur) {
            jsonw_key(w, f->key);
            jsonw_null(w);
        } else {
            lat_an_field_json(w, f, l);
        }
    }
    jsonw_key(w, "rules");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < l->nrules; i++) {
        const struct lat_ncu_rule *u = &l->rules[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, u->name);
#define S(k, v)                                                                                    \
    jsonw_key(w, k);                                                                               \
    if (v)                                                                                         \
        jsonw_str(w, v);                                                                           \
    else                                                                                           \
        jsonw_null(w);
        S("section", u->section);
        S("type", u->type);
        S("speedup_type", u->speedup_type);
#undef S
        jsonw_key(w, "estimated_speedup_pct");
        jsonw_fixed(w, u->speedup_pct, 4);
        jsonw_key(w, "description");
        if (u->description)
            jsonw_str(w, u->description);
        else
            jsonw_null(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

int lat_ncu_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n)
{
    (void)top_n;
    struct lat_ncu_summary s;
    int rc = lat_ncu_summarize(t, &s);
    if (rc) return rc;
    jsonw_key(w, "ncu");
    jsonw_obj_begin(w);
    jsonw_key(w, "page");
    jsonw_str(w, s.page);
    jsonw_key(w, "launches");
    jsonw_u64(w, s.nlaunches);
    jsonw_key(w, "total_duration_us");
    jsonw_ns_as_us(w, s.total);
    jsonw_key(w, "bound");
    jsonw_obj_begin(w);
    jsonw_key(w, "compute");
    jsonw_u64(w, s.bound_compute);
    jsonw_key(w, "memory");
    jsonw_u64(w, s.bound_memory);
    jsonw_key(w, "latency");
    jsonw_u64(w, s.bound_latency);
    jsonw_obj_end(w);
    jsonw_key(w, "kernels");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s.nlaunches; i++)
        launch_json(w, &s.launches[i]);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    lat_ncu_summary_fini(&s);
    return 0;
}

static int cmp_dur_desc(const void *a, const void *b)
{
    const struct lat_ncu_launch *x = *(const struct lat_ncu_launch *const *)a,
                                *y = *(const struct lat_ncu_launch *const *)b;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The launch table: ID, kernel ("start..." when long), duration, SM%, mem%, achieved /
 * theoretical occupancy, regs, block, grid, waves, bound (occupancy limit). */
static const struct lat_tcol head_cols[] = {
    {6, 0, NULL},
    {36, LAT_TCOL_LEFT, NULL},
    {10, 0, NULL},
    {5, 0, NULL},
    {5, 0, NULL},
    {11, 0, NULL},
    {5, 0, NULL},
    {6, 0, NULL},
    {7, 0, NULL},
    {6, 0, NULL},
    {0, LAT_TCOL_LEFT, "  "},
};
static const struct lat_tcol row_cols[] = {
    {6, 0, NULL},
    {36, LAT_TCOL_LEFT | LAT_TCOL_CUT_END, NULL},
    {10, 0, NULL},
    {5, 0, NULL},
    {5, 0, NULL},
    {5, 0, NULL},
    {5, LAT_TCOL_LEFT, "/"},
    {5, 0, NULL},
    {6, 0, NULL},
    {7, 0, NULL},
    {6, 0, NULL},
    {0, LAT_TCOL_LEFT, "  "},
};
static const struct lat_table head_tab = {"  ", head_cols, 11};
static const struct lat_table row_tab = {"  ", row_cols, 12};

/* A number cell with `dec` decimals, or "-" for NaN (320 bytes hold any double so). */
static const char *num(char *b, double v, int dec)
{
    if (isnan(v)) return "-";
    snprintf(b, 320, "%.*f", dec, v);
    return b;
}

int lat_ncu_section_text(FILE *f, const struct lat_trace *t, size_t top_n)
{
    struct lat_ncu_summary s;
    int rc = lat_ncu_summarize(t, &s);
    if (rc) return rc;
    if (!top_n) top_n = 15;
    const struct lat_ncu_launch **by = malloc((s.nlaunches ? s.nlaunches : 1) * sizeof(*by));
    if (!by) {
        lat_ncu_summary_fini(&s);
        return -ENOMEM;
    }
    for (size_t i = 0; i < s.nlaunches; i++)
        by[i] = &s.launches[i];
    qsort(by, s.nlaunches, sizeof(*by), cmp_dur_desc);
    char b1[32];
    fprintf(f,
            "\nNsight Compute  %zu launch%s (%s page), %s profiled; bound: %zu compute, %zu "
            "memory, %zu latency\n",
            s.nlaunches, s.nlaunches == 1 ? "" : "es", s.page,
            units_format_duration(s.total, b1, sizeof(b1)), s.bound_compute, s.bound_memory,
            s.bound_latency);
    struct lat_tout o = LAT_TOUT_FILE(f);
    lat_table_row(&o, &head_tab,
                  (const char *const[]){"ID", "kernel", "duration", "SM%", "mem%", "occ ach/th",
                                        "regs", "block", "grid", "waves",
                                        "bound (occupancy limit)"},
                  11);
    size_t n = s.nlaunches < top_n ? s.nlaunches : top_n;
    char b[10][320];
    for (size_t i = 0; i < n; i++) {
        const struct lat_ncu_launch *l = by[i];
        snprintf(b[0], 320, "%lld", (long long)l->id);
        snprintf(b[5], 320, "%lld", (long long)l->regs);
        snprintf(b[6], 320, "%lld", (long long)l->block_size);
        snprintf(b[7], 320, "%lld", (long long)l->grid_size);
        snprintf(b[8], 320, "%s%s%s%s", l->bound ? l->bound : "-", l->limiter[0] ? " (" : "",
                 l->limiter, l->limiter[0] ? ")" : "");
        const char *cells[12] = {
            b[0],
            l->kernel,
            l->has_dur ? units_format_duration(l->dur, b1, sizeof(b1)) : "-",
            num(b[1], l->sm_pct, 1),
            num(b[2], l->mem_pct, 1),
            num(b[3], l->achieved_occ, 1),
            num(b[4], l->theoretical_occ, 1),
            b[5],
            b[6],
            b[7],
            num(b[9], l->waves, 2),
            b[8],
        };
        lat_table_row(&o, &row_tab, cells, 12);
        for (size_t q = 0; q < l->nrules && q < 3; q++) {
            const struct lat_ncu_rule *u = &l->rules[q];
            const char *d = u->description ? u->description : "";
            if (isnan(u->speedup_pct))
                fprintf(f, "         %7s", "");
            else
                fprintf(f, "         %6.2f%%", u->speedup_pct);
            char e1[128], e2[512];
            fprintf(f, " %s: %.90s%s\n", lat_esc_cell(e1, sizeof(e1), u->name),
                    lat_esc_cell(e2, sizeof(e2), d), strlen(d) > 90 ? "..." : "");
        }
        if (l->nrules > 3) fprintf(f, "         (%zu more rule results)\n", l->nrules - 3);
    }
    if (s.nlaunches > n) fprintf(f, "  (%zu more launches)\n", s.nlaunches - n);
    free(by);
    lat_ncu_summary_fini(&s);
    return 0;
}
