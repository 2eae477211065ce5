/*
 * ncu.c - Nsight Compute `ncu --csv` reports: the details page (the default: one row per
 * launch x metric, and one per rule result) and `--page raw` (one row per launch, one column per
 * metric, a units row after the header). docs/trace-input.md, "Nsight Compute".
 *
 * The CSV goes through the streaming tokenizer of csv.c. What ncu and the profiled program
 * print before the header (`==PROF==` lines, the program's output) and `==`-lines between rows
 * are skipped and counted; rows that are not a launch (no integer ID, too few fields) too.
 * Columns are found by their header names, so ragged rows (metric rows stop after Metric Value,
 * rule rows carry Rule Name .. Estimated Speedup) and older layouts (Kernel Time, no Block Size)
 * read alike.
 *
 * The model: one LAT_EV_KERNEL per launch ID (name = Kernel Name, GPU track (Device, Stream),
 * correlation = ID), in ID order. ncu replays kernels one at a time and records no timestamps:
 * launch k starts where launch k-1 ended (ts = Σ earlier durations); dur = the Duration metric
 * (gpu__time_duration.sum on the raw page) in ns. Args: every metric as "Metric Name [unit]"
 * (no unit: "Metric Name"), its value converted to the base unit where the unit scales (time to
 * ns, frequency to hz, bytes to byte, bandwidth to byte/s; others kept as ncu wrote them), a
 * number when it parses as one (thousands separators and a decimal comma allowed: the separator
 * is decided once per file from the values that show it), else a string; the launch columns
 * (ID, Process ID, Process Name, Host Name, Context, CC) and, as the Kineto/nsys readers name
 * them, "grid", "block", "registers per thread", "shared memory". Each rule result is an
 * instant event (cat "ncu_rule", name = Rule Name, correlation = the launch ID, at the launch's
 * ts, on the process's track) with args section, type, description, speedup type and
 * "estimated speedup [%]". trace->format is "ncu"; metadata ncu_page, ncu_decimal,
 * ncu_preamble_lines, ncu_skipped_rows.
 */
#include "core/err.h"
#include "core/grow.h"
#include "core/units.h"
#include "ingest/csv.h"
#include "ingest/formats.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    K_ID,
    K_PID,
    K_PNAME,
    K_HOST,
    K_KERNEL,
    K_KTIME,
    K_CTX,
    K_STREAM,
    K_BLOCK,
    K_GRID,
    K_DEVICE,
    K_CC,
    K_SECTION,
    K_MNAME,
    K_MUNIT,
    K_MVALUE,
    K_RNAME,
    K_RTYPE,
    K_RDESC,
    K_STYPE,
    K_SPEEDUP,
    K_N
};

static const char *const colnames[K_N] = {"ID",
                                          "Process ID",
                                          "Process Name",
                                          "Host Name",
                                          "Kernel Name",
                                          "Kernel Time",
                                          "Context",
                                          "Stream",
                                          "Block Size",
                                          "Grid Size",
                                          "Device",
                                          "CC",
                                          "Section Name",
                                          "Metric Name",
                                          "Metric Unit",
                                          "Metric Value",
                                          "Rule Name",
                                          "Rule Type",
                                          "Rule Description",
                                          "Estimated Speedup Type",
                                          "Estimated Speedup"};

/* The launch columns kept as args (strings; ID / Process ID / Context as integers). */
static const int launch_args[] = {K_ID, K_PID, K_PNAME, K_HOST, K_KTIME, K_CTX, K_CC};

enum { PAGE_NONE, PAGE_DETAILS, PAGE_RAW };

struct launch {
    int64_t id;
    uint32_t col[K_N]; /* string ids of the launch columns (first row of the ID) */
    uint32_t nitems, first;
};

struct item {
    uint32_t launch;
    bool rule;
    uint32_t sec, name, unit, value; /* metric; rule: sec, name, type (unit), desc (value) */
    uint32_t stype, speed;           /* rule */
};

struct ncu {
    struct lat_trace *t;
    const char *name;
    char *err;
    size_t errsz;
    int page;
    int col[K_N];
    size_t ncols;
    uint32_t *hdr;  /* raw page: column names */
    uint32_t *unit; /* raw page: column units */
    bool units_seen, data_seen;
    struct launch *L;
    size_t nl, lcap;
    uint32_t *slots; /* hash of launch ids: index + 1 */
    size_t nslots;
    struct item *it;
    size_t ni, icap;
    uint64_t preamble, skipped, between;
    int64_t ev_dot, ev_comma;
};

bool ingest_ncu_header(const char *l, size_t n)
{
    if (n >= 3 && (unsigned char)l[0] == 0xef && (unsigned char)l[1] == 0xbb &&
        (unsigned char)l[2] == 0xbf)
        l += 3, n -= 3;
    if (!(n >= 6 && !memcmp(l, "\"ID\",\"", 6)) && !(n >= 4 && !memcmp(l, "ID,", 3))) return false;
    return memmem(l, n, "Kernel Name", 11) != NULL && memmem(l, n, "Process ID", 10) != NULL;
}

static int intern(struct ncu *x, const char *s, size_t n, uint32_t *id)
{
    return lat_trace_intern(x->t, s, n, id);
}

static uint64_t hash64(int64_t v)
{
    uint64_t h = (uint64_t)v * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static int rehash(struct ncu *x, size_t ns)
{
    uint32_t *s = calloc(ns, sizeof(*s));
    if (!s) return -ENOMEM;
    for (size_t i = 0; i < x->nl; i++) {
        size_t k = hash64(x->L[i].id) & (ns - 1);
        while (s[k])
            k = (k + 1) & (ns - 1);
        s[k] = (uint32_t)i + 1;
    }
    free(x->slots);
    x->slots = s;
    x->nslots = ns;
    return 0;
}

/* The launch with this id, added (columns from f) when new. */
static int launch_of(struct ncu *x, int64_t id, const struct csv_rec *r, uint32_t *out)
{
    if (x->nslots) {
        for (size_t k = hash64(id) & (x->nslots - 1);; k = (k + 1) & (x->nslots - 1)) {
            uint32_t s = x->slots[k];
            if (!s) break;
            if (x->L[s - 1].id == id) {
                *out = s - 1;
                return 0;
            }
        }
    }
    if (x->nl >= UINT32_MAX - 1) return LAT_E_OVERFLOW;
    int grc = LAT_GROW(x->L, x->lcap, x->nl, 1, 64);
    if (grc) return grc;
    struct launch *l = &x->L[x->nl];
    memset(l, 0, sizeof(*l));
    l->id = id;
    for (int c = 0; c < K_N; c++) {
        if (c >= K_SECTION || x->col[c] < 0 || (size_t)x->col[c] >= r->n) continue;
        const struct csv_field *f = &r->f[x->col[c]];
        int rc = intern(x, f->s, f->n, &l->col[c]);
        if (rc) return rc;
    }
    *out = (uint32_t)x->nl++;
    if (x->nl * 2 > x->nslots) return rehash(x, x->nslots ? x->nslots * 2 : 256);
    size_t k = hash64(id) & (x->nslots - 1);
    while (x->slots[k])
        k = (k + 1) & (x->nslots - 1);
    x->slots[k] = (uint32_t)x->nl;
    return 0;
}

static int add_item(struct ncu *x, const struct item *it)
{
    if (x->ni >= UINT32_MAX - 1) return LAT_E_OVERFLOW;
    int rc = LAT_GROW(x->it, x->icap, x->ni, 1, 1024);
    if (rc) return rc;
    x->it[x->ni++] = *it;
    return 0;
}

static void evidence(struct ncu *x, const char *s, size_t n)
{
    int e = csv_decimal_evidence(s, n);
    if (e > 0) x->ev_dot++;
    if (e < 0) x->ev_comma++;
}

static const struct csv_field *fld(const struct csv_rec *r, int c)
{
    static const struct csv_field empty = {"", 0, false};
    return c >= 0 && (size_t)c < r->n ? &r->f[c] : &empty;
}

static int on_header(struct ncu *x, const struct csv_rec *r)
{
    for (int c = 0; c < K_N; c++)
        x->col[c] = -1;
    for (size_t i = 0; i < r->n; i++)
        for (int c = 0; c < K_N; c++)
            if (x->col[c] < 0 && !strcmp(r->f[i].s, colnames[c])) x->col[c] = (int)i;
    x->ncols = r->n;
    if (x->col[K_MNAME] >= 0 && x->col[K_MVALUE] >= 0) {
        x->page = PAGE_DETAILS;
        return 0;
    }
    x->page = PAGE_RAW;
    x->hdr = calloc(r->n, sizeof(*x->hdr));
    x->unit = calloc(r->n, sizeof(*x->unit));
    if (!x->hdr || !x->unit) return -ENOMEM;
    for (size_t i = 0; i < r->n; i++) {
        int rc = intern(x, r->f[i].s, r->f[i].n, &x->hdr[i]);
        if (rc) return rc;
    }
    return 0;
}

/* A launch column of the raw page (not a metric). */
static bool raw_launch_col(const struct ncu *x, size_t i)
{
    for (int c = 0; c < K_N; c++)
        if (x->col[c] == (int)i) return true;
    return false;
}

static int on_rec(void *ctx, const struct csv_rec *r)
{
    struct ncu *x = ctx;
    if (r->raw) {
        if (x->page == PAGE_NONE)
            x->preamble++;
        else
            x->between++;
        return 0;
    }
    if (x->page == PAGE_NONE) return on_header(x, r);
    /* the input's last record without its newline, short of the fields that carry the data (a
     * raw page's row and a details rule row: every column; a metric row: up to the metric
     * value): cut short */
    if (r->last && ((x->page == PAGE_RAW && r->n < x->ncols) ||
                    (x->page == PAGE_DETAILS && r->n <= (size_t)x->col[K_MVALUE]) ||
                    (x->page == PAGE_DETAILS && r->n < x->ncols &&
                     (fld(r, x->col[K_RNAME])->n || !fld(r, x->col[K_MNAME])->n))))
        return LAT_E_TRUNCATED; /* a rule row (no metric name) has every column */
    const struct csv_field *fid = fld(r, x->col[K_ID]);
    double d;
    bool is_int;
    int64_t id;
    if (!csv_number(fid->s, fid->n, CSV_DEC_DOT, &d, &is_int, &id) || !is_int || id < 0) {
        /* the raw page's units row: no ID, before any launch */
        if (x->page == PAGE_RAW && !x->units_seen && !x->data_seen && fid->n == 0) {
            x->units_seen = true;
            for (size_t i = 0; i < r->n && i < x->ncols; i++) {
                int rc = intern(x, r->f[i].s, r->f[i].n, &x->unit[i]);
                if (rc) return rc;
            }
            return 0;
        }
        x->skipped++; /* program output after the header, a broken row */
        return 0;
    }
    if (x->col[K_KERNEL] < 0 || (size_t)x->col[K_KERNEL] >= r->n) {
        x->skipped++;
        return 0;
    }
    x->data_seen = true;
    uint32_t li;
    int rc = launch_of(x, id, r, &li);
    if (rc) return rc;
    if (x->page == PAGE_RAW) {
        for (size_t i = 0; i < r->n && i < x->ncols; i++) {
            if (raw_launch_col(x, i) || !r->f[i].n) continue;
            struct item it = {.launch = li, .name = x->hdr[i], .unit = x->unit[i]};
            evidence(x, r->f[i].s, r->f[i].n);
            if ((rc = intern(x, r->f[i].s, r->f[i].n, &it.value)) || (rc = add_item(x, &it)))
                return rc;
        }
        return 0;
    }
    const struct csv_field *rn = fld(r, x->col[K_RNAME]), *mn = fld(r, x->col[K_MNAME]);
    struct item it = {.launch = li};
    if (rn->n) {
        it.rule = true;
        const struct csv_field *sp = fld(r, x->col[K_SPEEDUP]);
        evidence(x, sp->s, sp->n);
        if ((rc = intern(x, fld(r, x->col[K_SECTION])->s, fld(r, x->col[K_SECTION])->n, &it.sec)) ||
            (rc = intern(x, rn->s, rn->n, &it.name)) ||
            (rc = intern(x, fld(r, x->col[K_RTYPE])->s, fld(r, x->col[K_RTYPE])->n, &it.unit)) ||
            (rc = intern(x, fld(r, x->col[K_RDESC])->s, fld(r, x->col[K_RDESC])->n, &it.value)) ||
            (rc = intern(x, fld(r, x->col[K_STYPE])->s, fld(r, x->col[K_STYPE])->n, &it.stype)) ||
            (rc = intern(x, sp->s, sp->n, &it.speed)))
            return rc;
        return add_item(x, &it);
    }
    if (!mn->n) {
        x->skipped++;
        return 0;
    }
    const struct csv_field *mv = fld(r, x->col[K_MVALUE]), *mu = fld(r, x->col[K_MUNIT]);
    evidence(x, mv->s, mv->n);
    if ((rc = intern(x, fld(r, x->col[K_SECTION])->s, fld(r, x->col[K_SECTION])->n, &it.sec)) ||
        (rc = intern(x, mn->s, mn->n, &it.name)) || (rc = intern(x, mu->s, mu->n, &it.unit)) ||
        (rc = intern(x, mv->s, mv->n, &it.value)))
        return rc;
    return add_item(x, &it);
}

/* ---- building the model ---- */

struct unit_scale {
    const char *unit, *base;
    double mul;
};

/* Units ncu prints (2019.x "nsecond"/"Kbyte"... and 2023+ "ns"/"KB"...), to a base unit. */
static const struct unit_scale scales[] = {
    {"nsecond", "ns", 1},
    {"ns", "ns", 1},
    {"usecond", "ns", 1e3},
    {"us", "ns", 1e3},
    {"msecond", "ns", 1e6},
    {"ms", "ns", 1e6},
    {"second", "ns", 1e9},
    {"s", "ns", 1e9},
    {"hz", "hz", 1},
    {"khz", "hz", 1e3},
    {"mhz", "hz", 1e6},
    {"ghz", "hz", 1e9},
    {"cycle/second", "hz", 1},
    {"cycle/usecond", "hz", 1e6},
    {"cycle/nsecond", "hz", 1e9},
    {"cycle/msecond", "hz", 1e3},
    {"byte", "byte", 1},
    {"Kbyte", "byte", 1e3},
    {"Mbyte", "byte", 1e6},
    {"Gbyte", "byte", 1e9},
    {"Tbyte", "byte", 1e12},
    {"B", "byte", 1},
    {"KB", "byte", 1e3},
    {"MB", "byte", 1e6},
    {"GB", "byte", 1e9},
    {"TB", "byte", 1e12},
    {"byte/second", "byte/s", 1},
    {"Kbyte/second", "byte/s", 1e3},
    {"Mbyte/second", "byte/s", 1e6},
    {"Gbyte/second", "byte/s", 1e9},
    {"Tbyte/second", "byte/s", 1e12},
    {"B/s", "byte/s", 1},
    {"KB/s", "byte/s", 1e3},
    {"MB/s", "byte/s", 1e6},
    {"GB/s", "byte/s", 1e9},
    {"TB/s", "byte/s", 1e12},
};

static const struct unit_scale *scale_of(const char *u)
{
    for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
        if (!strcmp(u, scales[i].unit) ||
            (!strcmp(scales[i].base, "hz") && !strcasecmp(u, scales[i].unit)))
            return &scales[i];
    return NULL;
}

struct build {
    struct ncu *x;
    struct lat_trace *t;
    enum csv_decimal dec;
    uint32_t first, nargs;
    uint32_t cat_kernel, cat_rule;
};

static int arg_add(struct build *b, struct lat_arg *a)
{
    uint32_t idx;
    if (a->type == LAT_ARG_DOUBLE && !a->str) {
        char txt[40];
        int l = snprintf(txt, sizeof(txt), "%.15g", a->v.d);
        if (lat_trace_intern(b->t, txt, (size_t)l, &a->str)) return -ENOMEM;
    }
    int rc = lat_trace_add_arg(b->t, a, &idx);
    if (rc) return rc;
    if (!b->nargs) b->first = idx;
    b->nargs++;
    return 0;
}

static int key_of(struct build *b, const char *k, uint32_t *id)
{
    return lat_trace_intern(b->t, k, strlen(k), id);
}

static int arg_str(struct build *b, const char *key, uint32_t val)
{
    struct lat_arg a = {.type = LAT_ARG_STR, .str = val};
    int rc = key_of(b, key, &a.key);
    return rc ? rc : arg_add(b, &a);
}

/* A number arg: an integer when v is one within int64, else a double. */
static int arg_num(struct build *b, uint32_t key, double v)
{
    struct lat_arg a = {.key = key};
    if (v == floor(v) && fabs(v) < 9.0e18) {
        a.type = LAT_ARG_INT;
        a.v.i = (int64_t)v;
    } else {
        a.type = LAT_ARG_DOUBLE;
        a.v.d = v;
    }
    return arg_add(b, &a);
}

/* Value text as a number in the base unit of unit (*base: that unit's name, "" when none). */
static bool value_of(struct build *b, uint32_t value, uint32_t unit, double *v, const char **base)
{
    const char *u = lat_trace_str(b->t, unit);
    const char *s = lat_trace_str(b->t, value);
    bool is_int;
    int64_t iv;
    const struct unit_scale *sc = scale_of(u);
    *base = sc ? sc->base : u;
    if (!csv_number(s, strlen(s), b->dec, v, &is_int, &iv)) return false;
    if (is_int && !sc) *v = (double)iv;
    if (sc) *v *= sc->mul;
    return true;
}

/* "(384, 1, 1)" -> "[384, 1, 1]" (and the product), false when not three integers. */
static bool dim3(const char *s, char *out, size_t outsz)
{
    long long v[3];
    int k = 0;
    while (*s == ' ' || *s == '(')
        s++;
    for (k = 0; k < 3; k++) {
        char *e;
        if (!isdigit((unsigned char)*s)) return false;
        v[k] = strtoll(s, &e, 10);
        s = e;
        while (*s == ' ')
            s++;
        if (k < 2 && *s++ != ',') return false;
        while (*s == ' ')
            s++;
    }
    if (*s == ')') s++;
    if (*s) return false;
    snprintf(out, outsz, "[%lld, %lld, %lld]", v[0], v[1], v[2]);
    return true;
}

static bool is_name(const struct lat_trace *t, uint32_t id, const char *a, const char *b2)
{
    const char *s = lat_trace_str(t, id);
    return !strcmp(s, a) || (b2 && !strcmp(s, b2));
}

static int cmp_launch(const void *a, const void *b, void *ctx)
{
    const struct launch *L = ctx;
    int64_t x = L[*(const uint32_t *)a].id, y = L[*(const uint32_t *)b].id;
    return x < y ? -1 : x > y;
}

static int64_t col_int(const struct lat_trace *t, uint32_t id, int64_t dflt)
{
    const char *s = lat_trace_str(t, id);
    double d;
    bool is_int;
    int64_t v;
    return csv_number(s, strlen(s), CSV_DEC_DOT, &d, &is_int, &v) && is_int ? v : dflt;
}

static int meta(struct lat_trace *t, const char *k, const char *v)
{
    uint32_t ki, vi;
    if (lat_trace_intern(t, k, strlen(k), &ki) || lat_trace_intern(t, v, strlen(v), &vi))
        return -ENOMEM;
    return lat_trace_add_meta(t, ki, vi);
}

static int build_launch(struct build *b, const struct launch *l, const struct item *items,
                        bool with_args, lat_ns *clock)
{
    struct lat_trace *t = b->t;
    int rc = 0;
    b->nargs = 0;
    b->first = 0;
    /* duration first: it sets the event */
    lat_ns dur = -1;
    for (uint32_t j = 0; j < l->nitems && dur < 0; j++) {
        const struct item *it = &items[j];
        double v;
        const char *base;
        if (it->rule || !is_name(t, it->name, "Duration", "gpu__time_duration.sum")) continue;
        if (value_of(b, it->value, it->unit, &v, &base) && !strcmp(base, "ns") && v >= 0 &&
            v < (double)LAT_DUR_MAX)
            dur = (lat_ns)llround(v);
    }
    if (with_args) {
        for (size_t c = 0; c < sizeof(launch_args) / sizeof(launch_args[0]); c++) {
            int k = launch_args[c];
            if (b->x->col[k] < 0) continue;
            if (k == K_ID || k == K_PID || k == K_CTX) {
                int64_t v = col_int(t, l->col[k], INT64_MIN);
                if (v != INT64_MIN) {
                    struct lat_arg a = {.type = LAT_ARG_INT, .v.i = v};
                    if ((rc = key_of(b, colnames[k], &a.key)) || (rc = arg_add(b, &a))) return rc;
                    continue;
                }
            }
            if ((rc = arg_str(b, colnames[k], l->col[k]))) return rc;
        }
        char dims[96];
        uint32_t id;
        const char *dk[2] = {"grid", "block"};
        int dc[2] = {K_GRID, K_BLOCK};
        for (int k = 0; k < 2; k++) {
            if (b->x->col[dc[k]] < 0 || !dim3(lat_trace_str(t, l->col[dc[k]]), dims, sizeof(dims)))
                continue;
            struct lat_arg a = {.type = LAT_ARG_RAW};
            if ((rc = lat_trace_intern(t, dims, strlen(dims), &id))) return rc;
            a.str = id;
            if ((rc = key_of(b, dk[k], &a.key)) || (rc = arg_add(b, &a))) return rc;
        }
        double smem = 0;
        int smem_parts = 0;
        for (uint32_t j = 0; j < l->nitems; j++) {
            const struct item *it = &items[j];
            if (it->rule) continue;
            double v;
            const char *base;
            bool num = value_of(b, it->value, it->unit, &v, &base);
            const char *nm = lat_trace_str(t, it->name);
            char key[512];
            if (base[0])
                snprintf(key, sizeof(key), "%s [%s]", nm, base);
            else
                snprintf(key, sizeof(key), "%s", nm);
            /* base and nm may point into the string table, which the intern below can move:
             * what is needed of them is taken now (issue 32: a use-after-free) */
            bool bytes = num && !strcmp(base, "byte");
            base = nm = NULL;
            uint32_t kid;
            if ((rc = key_of(b, key, &kid))) return rc;
            if (num) {
                if ((rc = arg_num(b, kid, v))) return rc;
            } else if (lat_trace_str(t, it->value)[0]) {
                struct lat_arg a = {.key = kid, .type = LAT_ARG_STR, .str = it->value};
                if ((rc = arg_add(b, &a))) return rc;
            }
            if (num &&
                (is_name(t, it->name, "Registers Per Thread", "launch__registers_per_thread"))) {
                uint32_t k2;
                if ((rc = key_of(b, "registers per thread", &k2)) || (rc = arg_num(b, k2, v)))
                    return rc;
            }
            if (bytes && (is_name(t, it->name, "Static Shared Memory Per Block",
                                  "launch__shared_mem_per_block_static") ||
                          is_name(t, it->name, "Dynamic Shared Memory Per Block",
                                  "launch__shared_mem_per_block_dynamic"))) {
                smem += v;
                smem_parts++;
            }
        }
        if (smem_parts == 2) {
            uint32_t k2;
            if ((rc = key_of(b, "shared memory", &k2)) || (rc = arg_num(b, k2, smem))) return rc;
        }
    }
    int64_t device = b->x->col[K_DEVICE] >= 0 ? col_int(t, l->col[K_DEVICE], -1) : -1;
    int64_t stream = b->x->col[K_STREAM] >= 0 ? col_int(t, l->col[K_STREAM], -1) : -1;
    if (device < -1 || device > INT32_MAX) device = -1;
    uint32_t track;
    if ((rc = lat_trace_track(t, device, stream, 0, 0, true, &track))) return rc;
    struct lat_event e = {
        .ts = *clock,
        .dur = dur < 0 ? 0 : dur,
        .name = l->col[K_KERNEL],
        .cat = b->cat_kernel,
        .track = track,
        .kind = LAT_EV_KERNEL,
        .flags = (uint16_t)(LAT_EVF_GPU | (dur < 0 ? LAT_EVF_NO_DUR : 0)),
        .stream = stream,
        .device = (int32_t)device,
        .step = -1,
        .correlation = l->id,
        .external_id = -1,
        .args = b->nargs ? b->first : 0,
        .nargs = b->nargs,
        .ph = 'X',
    };
    if ((rc = lat_trace_add_event(t, &e))) return rc;
    lat_ns ts = *clock;
    if (dur > 0 && *clock <= LAT_TS_MAX - dur) *clock += dur;
    /* the rule results */
    int64_t pid = b->x->col[K_PID] >= 0 ? col_int(t, l->col[K_PID], -1) : -1;
    uint32_t ptrack;
    for (uint32_t j = 0; j < l->nitems; j++) {
        const struct item *it = &items[j];
        if (!it->rule) continue;
        if ((rc = lat_trace_track(t, pid, 0, 0, 0, false, &ptrack))) return rc;
        b->nargs = 0;
        b->first = 0;
        if (with_args) {
            if ((rc = arg_str(b, "section", it->sec)) || (rc = arg_str(b, "type", it->unit)) ||
                (rc = arg_str(b, "description", it->value)) ||
                (lat_trace_str(t, it->stype)[0] && (rc = arg_str(b, "speedup type", it->stype))))
                return rc;
            const char *sp = lat_trace_str(t, it->speed);
            double v;
            bool is_int;
            int64_t iv;
            if (csv_number(sp, strlen(sp), b->dec, &v, &is_int, &iv) && v >= 0) {
                uint32_t k;
                if ((rc = key_of(b, "estimated speedup [%]", &k)) || (rc = arg_num(b, k, v)))
                    return rc;
            }
        }
        struct lat_event r = {
            .ts = ts,
            .name = it->name,
            .cat = b->cat_rule,
            .track = ptrack,
            .kind = LAT_EV_INSTANT,
            .flags = LAT_EVF_INSTANT,
            .stream = -1,
            .device = (int32_t)device,
            .step = -1,
            .correlation = l->id,
            .external_id = -1,
            .args = b->nargs ? b->first : 0,
            .nargs = b->nargs,
            .ph = 'i',
        };
        if ((rc = lat_trace_add_event(t, &r))) return rc;
    }
    return 0;
}

static int build_model(struct ncu *x, bool with_args)
{
    struct lat_trace *t = x->t;
    struct build b = {.x = x, .t = t};
    b.dec = x->ev_comma > x->ev_dot ? CSV_DEC_COMMA : CSV_DEC_DOT;
    int rc;
    if ((rc = lat_trace_intern(t, "kernel", 6, &b.cat_kernel)) ||
        (rc = lat_trace_intern(t, "ncu_rule", 8, &b.cat_rule)))
        return rc;
    /* items grouped by launch (file order kept within one), launches in ID order */
    for (size_t i = 0; i < x->ni; i++)
        x->L[x->it[i].launch].nitems++;
    uint32_t at = 0;
    for (size_t i = 0; i < x->nl; i++) {
        x->L[i].first = at;
        at += x->L[i].nitems;
    }
    struct item *sorted = malloc((x->ni ? x->ni : 1) * sizeof(*sorted));
    uint32_t *fill = calloc(x->nl ? x->nl : 1, sizeof(*fill));
    uint32_t *order = malloc((x->nl ? x->nl : 1) * sizeof(*order));
    if (!sorted || !fill || !order) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < x->ni; i++) {
        const struct launch *l = &x->L[x->it[i].launch];
        sorted[l->first + fill[x->it[i].launch]++] = x->it[i];
    }
    for (size_t i = 0; i < x->nl; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, x->nl, sizeof(*order), cmp_launch, x->L);
    lat_ns clock = 0;
    for (size_t i = 0; i < x->nl && !rc; i++) {
        const struct launch *l = &x->L[order[i]];
        rc = build_launch(&b, l, sorted + l->first, with_args, &clock);
    }
    if (rc) goto out;
    char v[32];
    if ((rc = meta(t, "ncu_page", x->page == PAGE_RAW ? "\"raw\"" : "\"details\"")) ||
        (rc = meta(t, "ncu_decimal", b.dec == CSV_DEC_COMMA ? "\",\"" : "\".\"")))
        goto out;
    snprintf(v, sizeof(v), "%llu", (unsigned long long)x->preamble);
    if ((rc = meta(t, "ncu_preamble_lines", v))) goto out;
    snprintf(v, sizeof(v), "%llu", (unsigned long long)(x->skipped + x->between));
    rc = meta(t, "ncu_skipped_rows", v);
out:
    free(sorted);
    free(fill);
    free(order);
    return rc;
}

static size_t max_record(const struct lat_ingest_opts *opts)
{
    uint64_t v = opts ? opts->max_value_bytes : 0;
    const char *env = getenv("LATSCOPE_MAX_VALUE");
    if (!v && env && *env && units_parse_count(env, &v)) v = 0;
    if (!v) v = LAT_INGEST_MAX_VALUE;
    if (v > SIZE_MAX / 4) v = SIZE_MAX / 4;
    return (size_t)v;
}

static void ncu_free(struct ncu *x)
{
    free(x->hdr);
    free(x->unit);
    free(x->L);
    free(x->slots);
    free(x->it);
}

int ingest_ncu_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                    struct lat_trace **out, char *err, size_t errsz)
{
    struct ncu x = {.name = name, .err = err, .errsz = errsz};
    bool gz = src_is_gzip(src);
    int rc = lat_trace_new(&x.t);
    if (rc) {
        src_close(src);
        if (err && errsz) snprintf(err, errsz, "%s: out of memory", name);
        return -ENOMEM;
    }
    for (int c = 0; c < K_N; c++)
        x.col[c] = -1;
    struct csv_rd rd;
    csv_init(&rd, on_rec, &x);
    rd.is_header = ingest_ncu_header;
    rd.raw_prefix = "==";
    rd.all_quoted = true; /* ncu quotes every field: a record cut after a separator is found */
    rd.max_record = max_record(opts);
    const char *what = gz ? "gzip of an `ncu --csv` report" : "an `ncu --csv` report";
    const struct csv_src_msgs msgs = {
        what, "export it again with `ncu --import REPORT.ncu-rep --csv > FILE.csv`",
        "an ncu report"};
    rc = csv_feed_src(&rd, src, name, &msgs, NULL, err, errsz);
    src_close(src);
    if (rc) goto fail;
    if (x.page == PAGE_NONE) {
        rc = LAT_E_NOT_TRACE;
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: no `ncu --csv` header line (\"ID\",\"Process ID\",...,\"Kernel "
                     "Name\",...) found; write the report with `ncu --csv --page details` or "
                     "`--page raw`",
                     name);
        goto fail;
    }
    if (!x.nl) {
        rc = LAT_E_NOT_TRACE;
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: %s with a header but no kernel launch row (%llu row%s skipped): "
                     "truncated, or ncu profiled no kernel (check its ==PROF== / ==WARNING== "
                     "lines and the --kernel-name / --launch-skip filters)",
                     name, what, (unsigned long long)x.skipped, x.skipped == 1 ? "" : "s");
        goto fail;
    }
    rc = build_model(&x, !(opts && (opts->flags & LAT_INGEST_NO_ARGS)));
    if (!rc && name && !(x.t->path = strdup(name))) rc = -ENOMEM;
    if (rc) {
        if (err && errsz) snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
        goto fail;
    }
    lat_trace_set_format(x.t, &ingest_fmt_ncu);
    x.t->role = LAT_TRACE_KERNEL_PROFILE;
    ncu_free(&x);
    *out = x.t;
    return 0;
fail:
    ncu_free(&x);
    lat_trace_free(x.t);
    return rc;
}

const struct lat_trace_format ingest_fmt_ncu = {
    .name = "ncu",
    .what = "an Nsight Compute report",
    .fw = LAT_FW_NONE,
    .caps = LAT_FCAP_NCU_METRICS,
};

/* ---- sniffing (ingest.c's format table) ---- */

/* `ncu --csv`: a header line ("ID","Process ID",...,"Kernel Name",...) at the start of a line
 * within the first chunk (after ncu's ==PROF== lines and the program's own output). */
bool ingest_sniff_ncu(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    if (ingest_looks_json(h, n)) return false;
    for (size_t i = 0; i < n;) {
        const unsigned char *nl = memchr(h + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - h) : n;
        if (e - i >= 4 && ingest_ncu_header((const char *)h + i, e - i)) return true;
        i = e + 1;
    }
    return false;
}
