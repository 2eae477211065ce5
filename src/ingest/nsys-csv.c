/*
 * nsys-csv.c - `nsys stats --format csv` reports, for users who have only those (the SQLite
 * export, nsys.c, holds more). The CSV tokenizer is csv.c; rows go through nsys-map.c, so a
 * kernel, copy or NVTX range is the same event as from the SQLite export.
 *
 * Before its header nsys prints lines that are not CSV ("Generating SQLite file x.sqlite from
 * x.nsys-rep", "Processing [x.sqlite] with [/opt/.../reports/cuda_api_sum.py]... ", NOTICE
 * lines); several reports written to one stream are separated by " ** CUDA API Summary
 * (cuda_api_sum):" lines. The report is named by those lines when present, else by its columns.
 * Every time column carries the --timeunit: "Start (ns)", "Total Time (us)", "Avg (ms)", "(s)";
 * sizes "(B)", "(KB)", "(MB)", "(GB)" (powers of 1000) or "(KiB)", "(MiB)", "(GiB)".
 *
 * Timeline reports become events: cuda_gpu_trace (kernels, copies, memsets on the device/stream
 * tracks), nvtx_pushpop_trace / nvtx_startend_trace (NVTX ranges on their PID/TID), cuda_api_trace
 * (runtime/driver calls). Summary reports (cuda_gpu_kern_sum, cuda_api_sum, osrt_sum,
 * cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, nvtx_sum, ...) become one summary row each (cat
 * "nsys_stats_row", no duration, args report/unit/total/count/avg/med/min/max/stddev/time_pct/
 * style): analyze's "nsys stats" section prints them; no timeline analysis can run on them.
 */
#include "core/err.h"
#include "ingest/csv.h"
#include "ingest/formats.h"
#include "ingest/nsys-map.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HAS(l, n, s) (memmem((l), (n), (s), strlen(s)) != NULL)

/* Whether a raw line is a report header: a column with a unit and a comma. */
static bool unit_line(const char *l, size_t n)
{
    return HAS(l, n, ",") &&
           (HAS(l, n, " (ns)") || HAS(l, n, " (us)") || HAS(l, n, " (ms)") || HAS(l, n, " (s)") ||
            HAS(l, n, " (B)") || HAS(l, n, " (KB)") || HAS(l, n, " (MB)") || HAS(l, n, " (GB)") ||
            HAS(l, n, " (KiB)") || HAS(l, n, " (MiB)") || HAS(l, n, " (%)"));
}

/* The header line of an `nsys stats --format csv` report (after up to 10 preamble lines),
 * identified by its columns. */
const char *ingest_nsys_csv_kind(const unsigned char *h, size_t n)
{
    size_t i = 0;
    for (int line = 0; line < 12 && i < n; line++) {
        const unsigned char *nl = memchr(h + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - h) : n;
        const char *l = (const char *)h + i;
        size_t len = e - i;
        i = e + 1;
        if (!unit_line(l, len)) continue;
        if (HAS(l, len, "RangeStack") || HAS(l, len, "NameTree"))
            return "an NVTX push/pop trace (nvtx_pushpop_trace)";
        if (HAS(l, len, "Start (") && HAS(l, len, "CorrId") && HAS(l, len, "Strm"))
            return "a CUDA GPU trace (cuda_gpu_trace)";
        if (HAS(l, len, "Start (") && HAS(l, len, "Name"))
            return "a trace report (cuda_api_trace, nvtx_*_trace, ...)";
        if (HAS(l, len, "Total Time (") && HAS(l, len, "Num Calls"))
            return "an API summary (cuda_api_sum / osrt_sum)";
        if (HAS(l, len, "Total Time (") && (HAS(l, len, "Instances") || HAS(l, len, "Count")))
            return "a summary (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, nvtx_sum, ...)";
        if (HAS(l, len, "Total (") && HAS(l, len, "Count"))
            return "a size summary (cuda_gpu_mem_size_sum)";
    }
    return NULL;
}

/* ---- columns ------------------------------------------------------------------------------ */

enum col {
    C_START,
    C_END,
    C_DUR,
    C_TOTAL,
    C_COUNT,
    C_AVG,
    C_MED,
    C_MIN,
    C_MAX,
    C_STDDEV,
    C_PCT,
    C_NAME,
    C_STYLE,
    C_PID,
    C_TID,
    C_CORR,
    C_GX,
    C_GY,
    C_GZ,
    C_BX,
    C_BY,
    C_BZ,
    C_REGS,
    C_SSMEM,
    C_DSMEM,
    C_BYTES,
    C_SRCK,
    C_DSTK,
    C_DEVICE,
    C_STRM,
    C_N
};

/* header base name (the text before " (unit)") -> column; several spellings per column */
static const struct {
    const char *base;
    enum col c;
} colmap[] = {
    {"Start", C_START},      {"End", C_END},        {"Duration", C_DUR},
    {"Total Time", C_TOTAL}, {"Total", C_TOTAL},    {"Instances", C_COUNT},
    {"Num Calls", C_COUNT},  {"Count", C_COUNT},    {"Operations", C_COUNT},
    {"Avg", C_AVG},          {"Med", C_MED},        {"Min", C_MIN},
    {"Max", C_MAX},          {"StdDev", C_STDDEV},  {"Time", C_PCT},
    {"Name", C_NAME},        {"Operation", C_NAME}, {"Range", C_NAME},
    {"Style", C_STYLE},      {"PID", C_PID},        {"Pid", C_PID},
    {"TID", C_TID},          {"Tid", C_TID},        {"CorrId", C_CORR},
    {"CorrID", C_CORR},      {"GrdX", C_GX},        {"GrdY", C_GY},
    {"GrdZ", C_GZ},          {"BlkX", C_BX},        {"BlkY", C_BY},
    {"BlkZ", C_BZ},          {"Reg/Trd", C_REGS},   {"StcSMem", C_SSMEM},
    {"DymSMem", C_DSMEM},    {"Bytes", C_BYTES},    {"SrcMemKd", C_SRCK},
    {"DstMemKd", C_DSTK},    {"Device", C_DEVICE},  {"Strm", C_STRM},
};

enum rkind { RK_NONE = 0, RK_GPU_TRACE, RK_NVTX_TRACE, RK_API_TRACE, RK_SUM };

struct ncsv {
    struct lat_trace *t;
    struct nsys_map m;
    const char *name;
    /* the current report */
    enum rkind kind;
    char report[64];      /* cuda_gpu_kern_sum, ... */
    char next_report[64]; /* named by a preamble / separator line, for the next header */
    char unit_name[8];    /* of the time (or size) columns: "ns", "us", "MB", ... */
    int col[C_N];         /* field index, -1 */
    double mul[C_N];      /* to ns (times) or bytes (sizes); 0: no unit */
    size_t ncols;         /* fields of the header */
    char unknown[96];     /* a header latscope does not read (its report name) */
    /* results */
    uint64_t rows, rows_report, bad_rows;
    char reports[256]; /* "cuda_gpu_kern_sum,cuda_api_sum" */
    char first_unit[8];
    uint32_t k_report, k_unit, k_total, k_count, k_avg, k_med, k_min, k_max, k_std, k_pct, k_style,
        cat_row, track_row;
    bool keys;
    int err;
};

static double unit_mul(const char *u, size_t n, bool *time)
{
    static const struct {
        const char *u;
        double m;
        bool time;
    } units[] = {{"ns", 1, true},
                 {"us", 1e3, true},
                 {"ms", 1e6, true},
                 {"s", 1e9, true},
                 {"B", 1, false},
                 {"KB", 1e3, false},
                 {"MB", 1e6, false},
                 {"GB", 1e9, false},
                 {"KiB", 1024.0, false},
                 {"MiB", 1048576.0, false},
                 {"GiB", 1073741824.0, false}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strlen(units[i].u) == n && !memcmp(units[i].u, u, n)) {
            *time = units[i].time;
            return units[i].m;
        }
    return 0;
}

/* "(cuda_api_sum)" / "with [/x/reports/cuda_api_sum.py]" in a preamble or separator line */
static void report_from_line(struct ncsv *x, const char *l, size_t n)
{
    const char *p = memmem(l, n, ".py]", 4);
    const char *b = NULL, *e = NULL;
    if (p) {
        e = p;
        b = p;
        while (b > l && b[-1] != '/' && b[-1] != '[' && b[-1] != '\\')
            b--;
    } else if (n >= 3 && (l[0] == '*' || (l[0] == ' ' && l[1] == '*'))) {
        const char *c = NULL;
        for (size_t i = n; i-- > 0;)
            if (l[i] == ')') {
                c = l + i;
                break;
            }
        if (!c) return;
        e = c;
        b = c;
        while (b > l && b[-1] != '(')
            b--;
    }
    if (!b || e <= b || (size_t)(e - b) >= sizeof(x->next_report)) return;
    for (const char *q = b; q < e; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')) return;
    memcpy(x->next_report, b, (size_t)(e - b));
    x->next_report[e - b] = 0;
}

/* A header record: the columns, their units, the report's kind. 1 = a header, 0 = not. */
static int header(struct ncsv *x, const struct csv_rec *r)
{
    int col[C_N];
    double mul[C_N];
    char unit[8] = "";
    bool any_unit = false;
    for (int c = 0; c < C_N; c++)
        col[c] = -1, mul[c] = 0;
    for (size_t i = 0; i < r->n; i++) {
        const char *s = r->f[i].s;
        size_t n = r->f[i].n;
        size_t bl = n;
        double m = 0;
        bool time = false;
        if (n > 3 && s[n - 1] == ')') {
            const char *o = memrchr(s, '(', n);
            if (o && o > s && o[-1] == ' ') {
                bl = (size_t)(o - 1 - s);
                m = unit_mul(o + 1, (size_t)(s + n - 1 - (o + 1)), &time);
                if (m > 0) {
                    any_unit = true;
                    if (!unit[0] && (size_t)(s + n - 1 - (o + 1)) < sizeof(unit))
                        snprintf(unit, sizeof(unit), "%.*s", (int)(s + n - 1 - (o + 1)), o + 1);
                } else if (o[1] == '%') {
                    any_unit = true;
                }
            }
        }
        for (size_t k = 0; k < sizeof(colmap) / sizeof(colmap[0]); k++)
            if (strlen(colmap[k].base) == bl && !memcmp(colmap[k].base, s, bl) &&
                col[colmap[k].c] < 0) {
                /* "Time (%)" is the percentage; "Time" without % is not a column we read */
                if (colmap[k].c == C_PCT && !(n > bl && memchr(s + bl, '%', n - bl))) break;
                col[colmap[k].c] = (int)i;
                mul[colmap[k].c] = m;
                break;
            }
    }
    if (!any_unit) return 0;
    for (size_t i = 0; i < r->n; i++) { /* a data row is no header */
        double v;
        bool is_int;
        int64_t iv;
        if (r->f[i].n && csv_number(r->f[i].s, r->f[i].n, CSV_DEC_DOT, &v, &is_int, &iv)) return 0;
    }
    enum rkind k = RK_NONE;
    const char *rep = NULL;
    if (col[C_START] >= 0 && col[C_CORR] >= 0 && col[C_STRM] >= 0 && col[C_NAME] >= 0 &&
        (col[C_DUR] >= 0 || col[C_END] >= 0))
        k = RK_GPU_TRACE, rep = "cuda_gpu_trace";
    else if (col[C_START] >= 0 && col[C_NAME] >= 0 && col[C_PID] >= 0 && col[C_TID] >= 0 &&
             col[C_CORR] >= 0 && col[C_DUR] >= 0)
        k = RK_API_TRACE, rep = "cuda_api_trace";
    else if (col[C_START] >= 0 && col[C_NAME] >= 0 && col[C_PID] >= 0 && col[C_TID] >= 0 &&
             (col[C_END] >= 0 || col[C_DUR] >= 0))
        k = RK_NVTX_TRACE, rep = "nvtx_pushpop_trace";
    else if (col[C_TOTAL] >= 0 && col[C_NAME] >= 0 && mul[C_TOTAL] > 0) {
        k = RK_SUM;
        bool inst = false;
        for (size_t i = 0; i < r->n; i++)
            if (!strcmp(r->f[i].s, "Instances")) inst = true;
        const char *namecol = r->f[col[C_NAME]].s;
        const char *cnt = col[C_COUNT] >= 0 ? r->f[col[C_COUNT]].s : "";
        if (col[C_STYLE] >= 0 || !strcmp(namecol, "Range"))
            rep = "nvtx_sum";
        else if (!strcmp(cnt, "Num Calls"))
            rep = "cuda_api_sum";
        else if (inst)
            rep = "cuda_gpu_kern_sum";
        else if (strstr(r->f[col[C_TOTAL]].s, "Time"))
            rep = "cuda_gpu_mem_time_sum";
        else
            rep = "cuda_gpu_mem_size_sum";
    }
    if (k == RK_NONE) {
        const char *u = x->next_report[0] ? x->next_report : "of an unknown kind";
        size_t ul = strlen(x->unknown);
        if (!strstr(x->unknown, u))
            snprintf(x->unknown + ul, sizeof(x->unknown) - ul, "%s%s", ul ? "," : "", u);
        x->kind = RK_NONE;
        x->next_report[0] = 0;
        return 1;
    }
    x->kind = k;
    /* the name nsys printed wins (osrt_sum has cuda_api_sum's columns, nvtx_startend_trace
     * nvtx_pushpop_trace's) */
    snprintf(x->report, sizeof(x->report), "%s", x->next_report[0] ? x->next_report : rep);
    x->next_report[0] = 0;
    memcpy(x->col, col, sizeof(col));
    memcpy(x->mul, mul, sizeof(mul));
    x->ncols = r->n;
    snprintf(x->unit_name, sizeof(x->unit_name), "%s", unit);
    if (!x->first_unit[0]) snprintf(x->first_unit, sizeof(x->first_unit), "%s", unit);
    size_t l = strlen(x->reports);
    if (!strstr(x->reports, x->report))
        snprintf(x->reports + l, sizeof(x->reports) - l, "%s%s", l ? "," : "", x->report);
    x->rows_report = 0;
    return 1;
}

/* A field as a number; NSYS_NONE-like: false when empty, "-" or not a number. */
static bool fnum(const struct ncsv *x, const struct csv_rec *r, enum col c, double *v)
{
    int i = x->col[c];
    if (i < 0 || (size_t)i >= r->n || !r->f[i].n) return false;
    bool is_int;
    int64_t iv;
    if (!csv_number(r->f[i].s, r->f[i].n, CSV_DEC_DOT, v, &is_int, &iv)) return false;
    if (!isfinite(*v)) return false;
    if (x->mul[c] > 0) *v *= x->mul[c];
    return true;
}

static int64_t fint(const struct ncsv *x, const struct csv_rec *r, enum col c)
{
    double v;
    if (!fnum(x, r, c, &v) || v < -9.2e18 || v > 9.2e18) return NSYS_NONE;
    return (int64_t)llround(v);
}

static const char *fstr(const struct ncsv *x, const struct csv_rec *r, enum col c, size_t *n)
{
    int i = x->col[c];
    if (i < 0 || (size_t)i >= r->n || !r->f[i].n) return NULL;
    *n = r->f[i].n;
    return r->f[i].s;
}

static int64_t label_id(const char *s, size_t n, const char *const *labels, size_t nl)
{
    for (size_t i = 0; s && i < nl; i++)
        if (strlen(labels[i]) == n && !memcmp(labels[i], s, n)) return (int64_t)i;
    return NSYS_NONE;
}

/* the labels nsys stats prints (ENUM_CUDA_MEMCPY_OPER / ENUM_CUDA_MEM_KIND label columns), by
 * the built-in number */
static const char *const copy_labels[] = {"Unknown",
                                          "Host-to-Device",
                                          "Device-to-Host",
                                          "Host-to-Array",
                                          "Array-to-Host",
                                          "Array-to-Array",
                                          "Array-to-Device",
                                          "Device-to-Array",
                                          "Device-to-Device",
                                          "Host-to-Host",
                                          "Peer-to-Peer",
                                          "Unified Host-to-Device",
                                          "Unified Device-to-Host",
                                          "Unified Device-to-Device"};
static const char *const copy_short[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                         "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
static const char *const mem_labels[] = {"Pageable", "Pinned",        "Device",         "Array",
                                         "Managed",  "Device Static", "Managed Static", "Unknown"};

static int trace_row(struct ncsv *x, const struct csv_rec *r)
{
    struct nsys_row row;
    enum nsys_tab tab = x->kind == RK_NVTX_TRACE  ? NSYS_NVTX
                        : x->kind == RK_API_TRACE ? NSYS_RUNTIME
                                                  : NSYS_KERNEL;
    size_t nl = 0;
    const char *name = fstr(x, r, C_NAME, &nl);
    if (x->kind == RK_GPU_TRACE && name && nl > 13 && !memcmp(name, "[CUDA memcpy ", 13))
        tab = NSYS_MEMCPY;
    else if (x->kind == RK_GPU_TRACE && name && nl >= 12 && !memcmp(name, "[CUDA memset", 12))
        tab = NSYS_MEMSET;
    nsys_row_clear(&row, tab);
    row.start = fint(x, r, C_START);
    int64_t end = fint(x, r, C_END), dur = fint(x, r, C_DUR);
    if (end != NSYS_NONE)
        row.end = end;
    else if (dur != NSYS_NONE && row.start != NSYS_NONE)        /* start is within +-9.2e18 */
        row.end = dur < 0                       ? row.start - 1 /* a counted drop */
                  : row.start > INT64_MAX - dur ? INT64_MAX     /* likewise */
                                                : row.start + dur;
    row.correlation = fint(x, r, C_CORR);
    row.name = name;
    row.name_len = nl;
    if (tab == NSYS_NVTX || tab == NSYS_RUNTIME) {
        int64_t pid = fint(x, r, C_PID), tid = fint(x, r, C_TID);
        if (pid >= 0 && tid >= 0)
            row.gtid = (int64_t)(((uint64_t)pid & 0xFFFFFF) << 24 | ((uint64_t)tid & 0xFFFFFF));
        row.event_type = 59; /* a push/pop range (built-in number) */
        /* cuda_api_trace holds runtime (cuda*) and driver (cu*) calls */
        row.event_class =
            name && nl > 2 && !memcmp(name, "cu", 2) && !(nl > 4 && !memcmp(name, "cuda", 4)) ? 1
                                                                                              : 0;
        if (tab == NSYS_NVTX && row.end == NSYS_NONE) row.event_type = 34;
    } else {
        size_t dl = 0;
        const char *dev = fstr(x, r, C_DEVICE, &dl);
        row.device = 0;
        if (dev && dl > 2 && dev[dl - 1] == ')') { /* "NVIDIA A100-SXM4-40GB (0)" */
            const char *o = memrchr(dev, '(', dl);
            if (o) {
                char *e;
                long long d = strtoll(o + 1, &e, 10);
                if (e == dev + dl - 1 && d >= 0 && d <= INT32_MAX) row.device = d;
            }
        }
        row.stream = fint(x, r, C_STRM);
        row.bytes = fint(x, r, C_BYTES);
        size_t sl = 0, dl2 = 0;
        const char *sk = fstr(x, r, C_SRCK, &sl), *dk = fstr(x, r, C_DSTK, &dl2);
        if (tab == NSYS_MEMCPY) {
            /* "[CUDA memcpy Host-to-Device]" -> Host-to-Device */
            const char *k = name + 13;
            size_t kl = nl - 13;
            if (kl && k[kl - 1] == ']') kl--;
            row.copy_kind =
                label_id(k, kl, copy_labels, sizeof(copy_labels) / sizeof(*copy_labels));
            if (row.copy_kind == NSYS_NONE) /* older nsys: "[CUDA memcpy HtoD]" */
                row.copy_kind =
                    label_id(k, kl, copy_short, sizeof(copy_short) / sizeof(*copy_short));
            if (row.copy_kind == NSYS_NONE) row.copy_kind = 0;
            row.src_kind = label_id(sk, sl, mem_labels, sizeof(mem_labels) / sizeof(*mem_labels));
            row.dst_kind = label_id(dk, dl2, mem_labels, sizeof(mem_labels) / sizeof(*mem_labels));
        } else if (tab == NSYS_MEMSET) {
            row.mem_kind = label_id(sk ? sk : dk, sk ? sl : dl2, mem_labels,
                                    sizeof(mem_labels) / sizeof(*mem_labels));
        } else {
            row.grid[0] = fint(x, r, C_GX), row.grid[1] = fint(x, r, C_GY);
            row.grid[2] = fint(x, r, C_GZ);
            row.block[0] = fint(x, r, C_BX), row.block[1] = fint(x, r, C_BY);
            row.block[2] = fint(x, r, C_BZ);
            row.regs = fint(x, r, C_REGS);
            int64_t a = fint(x, r, C_SSMEM), b = fint(x, r, C_DSMEM);
            if (a >= 0 && b >= 0 && a <= INT64_MAX - b) row.smem = a + b;
        }
    }
    return nsys_map_row(&x->m, &row);
}

static int intern(struct lat_trace *t, const char *s, uint32_t *id)
{
    return lat_trace_intern(t, s, strlen(s), id);
}

static int add_arg(struct lat_trace *t, struct lat_arg *a, uint32_t *first, uint32_t *n)
{
    uint32_t idx;
    if (lat_trace_add_arg(t, a, &idx)) return -ENOMEM;
    if (!*n) *first = idx;
    (*n)++;
    return 0;
}

/* One summary row as an event without duration on the "nsys stats" track. */
static int sum_row(struct ncsv *x, const struct csv_rec *r)
{
    struct lat_trace *t = x->t;
    if (!x->keys) {
        uint32_t pid, tid;
        if (intern(t, "report", &x->k_report) || intern(t, "unit", &x->k_unit) ||
            intern(t, "total", &x->k_total) || intern(t, "count", &x->k_count) ||
            intern(t, "avg", &x->k_avg) || intern(t, "med", &x->k_med) ||
            intern(t, "min", &x->k_min) || intern(t, "max", &x->k_max) ||
            intern(t, "stddev", &x->k_std) || intern(t, "time_pct", &x->k_pct) ||
            intern(t, "style", &x->k_style) || intern(t, "nsys_stats_row", &x->cat_row) ||
            intern(t, "nsys stats", &pid) || intern(t, "summary rows", &tid) ||
            lat_trace_track(t, -1, -1, pid, tid, false, &x->track_row))
            return -ENOMEM;
        x->keys = true;
    }
    double total;
    size_t nl = 0;
    const char *name = fstr(x, r, C_NAME, &nl);
    if (!fnum(x, r, C_TOTAL, &total) || total < 0 || !name) {
        lat_trace_drop(t, LAT_DROP_BAD_DUR);
        x->bad_rows++;
        return 0;
    }
    struct lat_event e = lat_event_unlinked();
    e.kind = LAT_EV_OTHER;
    e.flags = LAT_EVF_NO_DUR;
    e.cat = x->cat_row;
    e.track = x->track_row;
    e.ph = 'X';
    if (lat_trace_intern(t, name, nl, &e.name)) return -ENOMEM;
    uint32_t first = 0, n = 0, rs, us;
    bool is_time = false;
    (void)unit_mul(x->unit_name, strlen(x->unit_name), &is_time);
    if (intern(t, x->report, &rs) || intern(t, is_time ? "ns" : "B", &us)) return -ENOMEM;
    struct lat_arg a = {.key = x->k_report, .type = LAT_ARG_STR, .str = rs};
    if (add_arg(t, &a, &first, &n)) return -ENOMEM;
    a = (struct lat_arg){.key = x->k_unit, .type = LAT_ARG_STR, .str = us};
    if (add_arg(t, &a, &first, &n)) return -ENOMEM;
    const struct {
        enum col c;
        uint32_t k;
    } nums[] = {{C_TOTAL, x->k_total}, {C_COUNT, x->k_count}, {C_AVG, x->k_avg},
                {C_MED, x->k_med},     {C_MIN, x->k_min},     {C_MAX, x->k_max},
                {C_STDDEV, x->k_std},  {C_PCT, x->k_pct}};
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        double v;
        if (!fnum(x, r, nums[i].c, &v)) continue;
        if (nums[i].c == C_COUNT) {
            if (v < 0 || v > 9e15 || v != floor(v)) continue;
            a = (struct lat_arg){.key = nums[i].k, .type = LAT_ARG_INT, .v.i = (int64_t)v};
        } else {
            if (v < 0) continue; /* never an impossible number */
            a = (struct lat_arg){.key = nums[i].k, .type = LAT_ARG_DOUBLE, .v.d = v};
        }
        if (add_arg(t, &a, &first, &n)) return -ENOMEM;
    }
    size_t sl = 0;
    const char *style = fstr(x, r, C_STYLE, &sl);
    if (style) {
        uint32_t sid;
        if (lat_trace_intern(t, style, sl, &sid)) return -ENOMEM;
        a = (struct lat_arg){.key = x->k_style, .type = LAT_ARG_STR, .str = sid};
        if (add_arg(t, &a, &first, &n)) return -ENOMEM;
    }
    e.args = first;
    e.nargs = n;
    return lat_trace_add_event(t, &e) ? -ENOMEM : 0;
}

static int on_rec(void *ctx, const struct csv_rec *r)
{
    struct ncsv *x = ctx;
    if (r->raw) {
        report_from_line(x, r->f[0].s, r->f[0].n);
        return 0;
    }
    /* a separator between reports (" ** CUDA API Summary (cuda_api_sum):"), or a line nsys
     * prints instead of a report ("SKIPPED: x.sqlite does not contain ...") */
    if (r->n == 1) {
        report_from_line(x, r->f[0].s, r->f[0].n);
        return 0;
    }
    if (header(x, r)) return 0;
    if (x->kind == RK_NONE) return 0; /* rows of a report latscope does not read */
    x->rows++;
    x->rows_report++;
    if (r->n < x->ncols) { /* a cut row (the last line of a truncated file) */
        lat_trace_drop(x->t, x->kind == RK_SUM ? LAT_DROP_BAD_DUR : LAT_DROP_NO_TS);
        x->bad_rows++;
        return 0;
    }
    return x->kind == RK_SUM ? sum_row(x, r) : trace_row(x, r);
}

static bool is_header_line(const char *l, size_t n)
{
    return unit_line(l, n);
}

static int meta_str(struct lat_trace *t, const char *key, const char *v)
{
    char buf[320];
    size_t o = 0;
    buf[o++] = '"';
    for (const char *c = v; *c && o + 3 < sizeof(buf); c++)
        if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20) buf[o++] = *c;
    buf[o++] = '"';
    buf[o] = 0;
    uint32_t k, vv;
    if (intern(t, key, &k) || intern(t, buf, &vv) || lat_trace_add_meta(t, k, vv)) return -ENOMEM;
    return 0;
}

int ingest_nsys_csv_load(struct ingest_src *src, const char *name,
                         const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                         size_t errsz)
{
    struct ncsv x = {.name = name};
    bool gz = src_is_gzip(src);
    *out = NULL;
    int rc = lat_trace_new(&x.t);
    if (!rc) rc = nsys_map_init(&x.m, x.t);
    if (rc) {
        src_close(src);
        lat_trace_free(x.t);
        if (err && errsz) snprintf(err, errsz, "%s: out of memory", name);
        return -ENOMEM;
    }
    x.m.no_enum_meta = true;
    for (int c = 0; c < C_N; c++)
        x.col[c] = -1;
    struct csv_rd rd;
    csv_init(&rd, on_rec, &x);
    rd.is_header = is_header_line;
    rd.raw_prefix = " ** ";
    if (opts && opts->max_value_bytes) rd.max_record = (size_t)opts->max_value_bytes;
    const char *what = gz ? "gzip of an `nsys stats` CSV report" : "an `nsys stats` CSV report";
    const char *redo = "write it again with `nsys stats --format csv --output PREFIX "
                       "REPORT.nsys-rep`, or pass the SQLite export (`nsys export --type sqlite "
                       "REPORT.nsys-rep`), which holds more";
    const struct csv_src_msgs msgs = {what, redo, "an nsys report"};
    uint64_t total = 0;
    rc = csv_feed_src(&rd, src, name, &msgs, &total, err, errsz);
    src_close(src);
    if (rc) goto fail;
    if (!total) {
        rc = LAT_E_TRUNCATED;
        if (err && errsz) snprintf(err, errsz, "%s: empty file (0 bytes); %s", name, redo);
        goto fail;
    }
    if (!x.reports[0]) {
        rc = LAT_E_NOT_TRACE;
        if (err && errsz) {
            if (x.unknown[0])
                snprintf(err, errsz,
                         "%s: %s (%s) that latscope does not read; it reads cuda_gpu_trace, "
                         "cuda_api_trace, nvtx_pushpop_trace/nvtx_startend_trace and the "
                         "summaries (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, "
                         "nvtx_sum, ...); or pass the SQLite export (`nsys export --type sqlite "
                         "REPORT.nsys-rep`)",
                         name, what, x.unknown);
            else
                snprintf(err, errsz, "%s: no `nsys stats` report header found; %s", name, redo);
        }
        goto fail;
    }
    if (x.rows == 0 || x.rows == x.bad_rows) {
        rc = LAT_E_NOT_TRACE;
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: %s (%s) with a header but no %srow: truncated, or the report was empty "
                     "(nsys prints SKIPPED when the capture has no such data); %s",
                     name, what, x.reports, x.rows ? "complete " : "", redo);
        goto fail;
    }
    rc = nsys_map_finish(&x.m);
    if (!rc) { /* most rows without usable times: the model's one rule */
        char why[400];
        const struct lat_trace *t = x.t;
        if ((rc = lat_drops_check(t->drops, t->dropped, t->dropped + t->ev.n, "rows",
                                  "start and duration must be numbers; run `nsys stats` again", why,
                                  sizeof(why)))) {
            if (err && errsz) snprintf(err, errsz, "%s: %s: %s", name, what, why);
            goto fail;
        }
    }
    if (!rc) rc = meta_str(x.t, "nsys_stats.reports", x.reports);
    if (!rc) rc = meta_str(x.t, "nsys_stats.unit", x.first_unit);
    if (!rc && x.unknown[0]) rc = meta_str(x.t, "nsys_stats.not_read", x.unknown);
    if (!rc && name && !(x.t->path = strdup(name))) rc = -ENOMEM;
    if (rc) {
        if (err && errsz) snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
        goto fail;
    }
    lat_trace_set_format(x.t, &ingest_fmt_nsys_stats);
    nsys_map_fini(&x.m);
    *out = x.t;
    return 0;
fail:
    nsys_map_fini(&x.m);
    lat_trace_free(x.t);
    return rc;
}

const struct lat_trace_format ingest_fmt_nsys_stats = {
    .name = "nsys-stats",
    .fw = LAT_FW_NONE,
    .caps = LAT_FCAP_NSYS_SUMMARY,
};

/* ---- sniffing (ingest.c's format table) ---- */

/* `nsys stats` CSV: its header line (after a preamble), named by ingest_nsys_csv_kind(). */
bool ingest_sniff_nsys_csv(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    if (ingest_looks_json(h, n) || !ingest_looks_text(h, n > 4096 ? 4096 : n)) return false;
    return ingest_nsys_csv_kind(h, n > 4096 ? 4096 : n) != NULL;
}
