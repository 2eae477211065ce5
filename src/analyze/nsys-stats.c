/*
 * nsys-stats.c - the "nsys stats" section of `latscope analyze`: what an `nsys stats --format
 * csv` input (ingest/nsys-csv.c, format "nsys-stats") holds. Summary reports (cuda_gpu_kern_sum,
 * cuda_api_sum, cuda_gpu_mem_time_sum, nvtx_sum, ...) are rows of totals per name (cat
 * "nsys_stats_row", args report, unit, total, count, avg, med, min, max, stddev, time_pct,
 * style): printed here as tables, largest total first. They have no timeline: the section says
 * that the timeline analyses need the SQLite export. Timeline reports (cuda_gpu_trace,
 * nvtx_pushpop_trace, cuda_api_trace) are ordinary events the common analyses read; the section
 * only names them.
 */
#include "analyze/render.h"
#include "analyze/sections.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lat_nsys_stats_is(const struct lat_trace *t)
{
    return lat_trace_has(t, LAT_FCAP_NSYS_SUMMARY);
}

struct srow {
    const char *name, *style;
    double total, avg, med, min, max, std, pct;
    int64_t count; /* -1 when absent */
    bool has_avg, has_med, has_min, has_max, has_std, has_pct;
};

struct srep {
    const char *report, *unit;
    struct srow *rows;
    size_t n, cap;
    double total;
    int64_t count;
};

struct ssum {
    struct srep *reps;
    size_t n, cap;
    size_t timeline_events; /* events that are not summary rows */
    char reports[256], unit[16], not_read[128];
};

static uint32_t find_id(const struct lat_trace *t, const char *s)
{
    return strtab_find(&t->strs, s, strlen(s));
}

/* metadata "nsys_stats.KEY" ("..." string) into buf, "" when absent */
static void meta(const struct lat_trace *t, const char *key, char *buf, size_t n)
{
    buf[0] = 0;
    uint32_t id = find_id(t, key);
    if (id == UINT32_MAX) return;
    for (size_t i = 0; i < t->nmeta; i++)
        if (t->meta[i].key == id) {
            const char *v = lat_trace_str(t, t->meta[i].value);
            size_t l = strlen(v);
            if (l >= 2 && v[0] == '"' && v[l - 1] == '"')
                snprintf(buf, n, "%.*s", (int)(l - 2), v + 1);
        }
}

static void ssum_fini(struct ssum *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->reps[i].rows);
    free(s->reps);
    memset(s, 0, sizeof(*s));
}

static int by_total(const void *a, const void *b)
{
    const struct srow *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int summarize(const struct lat_trace *t, struct ssum *s)
{
    memset(s, 0, sizeof(*s));
    meta(t, "nsys_stats.reports", s->reports, sizeof(s->reports));
    meta(t, "nsys_stats.unit", s->unit, sizeof(s->unit));
    meta(t, "nsys_stats.not_read", s->not_read, sizeof(s->not_read));
    uint32_t cat = find_id(t, "nsys_stats_row");
    uint32_t k[11];
    static const char *const keys[11] = {"report", "unit", "total",  "count",    "avg",  "med",
                                         "min",    "max",  "stddev", "time_pct", "style"};
    for (int i = 0; i < 11; i++)
        k[i] = find_id(t, keys[i]);
    for (size_t i = 0; i < t->ev.n; i++) {
        if (cat == UINT32_MAX || t->ev.cat[i] != cat) {
            s->timeline_events++;
            continue;
        }
        struct srow r = {.name = lat_trace_str(t, t->ev.name[i]), .count = -1};
        const char *report = NULL, *unit = "ns";
        const struct lat_arg *a = t->args + t->ev.args[i];
        for (uint32_t j = 0; j < t->ev.nargs[i]; j++) {
            const struct lat_arg *x = &a[j];
            double d = x->type == LAT_ARG_DOUBLE ? x->v.d : 0;
            if (x->key == k[0] && x->type == LAT_ARG_STR) report = lat_trace_str(t, x->str);
            if (x->key == k[1] && x->type == LAT_ARG_STR) unit = lat_trace_str(t, x->str);
            if (x->key == k[2]) r.total = d;
            if (x->key == k[3] && x->type == LAT_ARG_INT) r.count = x->v.i;
            if (x->key == k[4]) r.avg = d, r.has_avg = true;
            if (x->key == k[5]) r.med = d, r.has_med = true;
            if (x->key == k[6]) r.min = d, r.has_min = true;
            if (x->key == k[7]) r.max = d, r.has_max = true;
            if (x->key == k[8]) r.std = d, r.has_std = true;
            if (x->key == k[9]) r.pct = d, r.has_pct = true;
            if (x->key == k[10] && x->type == LAT_ARG_STR) r.style = lat_trace_str(t, x->str);
        }
        if (!report) continue;
        struct srep *p = NULL;
        for (size_t q = 0; q < s->n; q++)
            if (!strcmp(s->reps[q].report, report)) p = &s->reps[q];
        if (!p) {
            if (LAT_GROW(s->reps, s->cap, s->n, 1, 8)) goto nomem;
            p = &s->reps[s->n++];
            memset(p, 0, sizeof(*p));
            p->report = report;
            p->unit = unit;
        }
        if (LAT_GROW(p->rows, p->cap, p->n, 1, 16)) goto nomem;
        p->rows[p->n++] = r;
        p->total += r.total;
        if (r.count >= 0) p->count += r.count;
    }
    for (size_t q = 0; q < s->n; q++)
        qsort(s->reps[q].rows, s->reps[q].n, sizeof(struct srow), by_total);
    return 0;
nomem:
    ssum_fini(s);
    return -ENOMEM;
}

static const char note[] =
    "`nsys stats` summaries hold totals per name, no timeline: the timeline analyses (idle "
    "time, launches, overlap, queues, critical path) need the SQLite export (`nsys export "
    "--type sqlite REPORT.nsys-rep`)";

static void jnum(struct jsonw *w, const char *key, bool have, double v)
{
    jsonw_key(w, key);
    if (have)
        jsonw_double(w, v, 15);
    else
        jsonw_null(w);
}

int lat_nsys_stats_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n)
{
    struct ssum s;
    int rc = summarize(t, &s);
    if (rc) return rc;
    jsonw_key(w, "nsys_stats");
    jsonw_obj_begin(w);
    jsonw_key(w, "reports");
    jsonw_str(w, s.reports);
    jsonw_key(w, "unit");
    jsonw_str(w, s.unit);
    jsonw_key(w, "not_read");
    jsonw_str(w, s.not_read);
    jsonw_key(w, "timeline_events");
    jsonw_u64(w, s.timeline_events);
    jsonw_key(w, "timeline");
    jsonw_bool(w, s.timeline_events > 0);
    if (s.n) {
        jsonw_key(w, "note");
        jsonw_str(w, note);
    }
    jsonw_key(w, "summaries");
    jsonw_arr_begin(w);
    for (size_t q = 0; q < s.n; q++) {
        const struct srep *p = &s.reps[q];
        jsonw_obj_begin(w);
        jsonw_key(w, "report");
        jsonw_str(w, p->report);
        jsonw_key(w, "unit");
        jsonw_str(w, p->unit);
        jsonw_key(w, "rows");
        jsonw_u64(w, p->n);
        jnum(w, "total", true, p->total);
        jsonw_key(w, "count");
        jsonw_i64(w, p->count);
        jsonw_key(w, "top");
        jsonw_arr_begin(w);
        size_t lim = top_n && top_n < p->n ? top_n : p->n;
        for (size_t i = 0; i < lim; i++) {
            const struct srow *r = &p->rows[i];
            jsonw_obj_begin(w);
            jsonw_key(w, "name");
            jsonw_str(w, r->name);
            jsonw_key(w, "count");
            if (r->count >= 0)
                jsonw_i64(w, r->count);
            else
                jsonw_null(w);
            jnum(w, "total", true, r->total);
            jnum(w, "avg", r->has_avg, r->avg);
            jnum(w, "med", r->has_med, r->med);
            jnum(w, "min", r->has_min, r->min);
            jnum(w, "max", r->has_max, r->max);
            jnum(w, "stddev", r->has_std, r->std);
            jnum(w, "time_pct", r->has_pct, r->pct);
            if (r->style) {
                jsonw_key(w, "style");
                jsonw_str(w, r->style);
            }
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    ssum_fini(&s);
    return 0;
}

/* A report's table: name, count, total, avg, med, min, max, time %. The rows' name is its
 * "...tail" when long; the header's first column also spans the rows' indent. */
static const struct lat_tcol head_cols[] = {
    {44, LAT_TCOL_LEFT, NULL},
    {8, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {7, 0, NULL},
};
static const struct lat_tcol row_cols[] = {
    {42, LAT_TCOL_LEFT | LAT_TCOL_CUT_START, NULL},
    {8, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {10, 0, NULL},
    {7, 0, NULL},
};
static const struct lat_table head_tab = {NULL, head_cols, 8};
static const struct lat_table row_tab = {"  ", row_cols, 8};

/* A number cell: v / div with 3 decimals, or "-" (320 bytes hold any double so). */
static const char *val(char *b, bool have, double v, double div)
{
    if (!have) return "-";
    snprintf(b, 320, "%.3f", v / div);
    return b;
}

int lat_nsys_stats_section_text(FILE *f, const struct lat_trace *t, size_t top_n)
{
    struct ssum s;
    int rc = summarize(t, &s);
    if (rc) return rc;
    fprintf(f, "\nnsys stats  %s (times in the file: %s)", s.reports[0] ? s.reports : "-",
            s.unit[0] ? s.unit : "-");
    if (s.timeline_events)
        fprintf(f, "; %zu timeline events (the analyses above)", s.timeline_events);
    fprintf(f, "\n");
    if (s.not_read[0])
        fprintf(f, "  reports in the file that latscope does not read (left out): %s\n",
                s.not_read);
    if (s.n) fprintf(f, "  %s\n", note);
    struct lat_tout o = LAT_TOUT_FILE(f);
    char b[7][320];
    for (size_t q = 0; q < s.n; q++) {
        const struct srep *p = &s.reps[q];
        bool bytes = !strcmp(p->unit, "B");
        double div = bytes ? 1e6 : 1e3;
        fprintf(f, "\n");
        const char *head[8] = {p->report,
                               "count",
                               bytes ? "total MB" : "total ms",
                               bytes ? "avg MB" : "avg us",
                               bytes ? "med MB" : "med us",
                               bytes ? "min MB" : "min us",
                               bytes ? "max MB" : "max us",
                               "time %"};
        lat_table_row(&o, &head_tab, head, 8);
        size_t lim = top_n && top_n < p->n ? top_n : p->n;
        for (size_t i = 0; i < lim; i++) {
            const struct srow *r = &p->rows[i];
            const char *cells[8] = {r->name,
                                    "-",
                                    val(b[1], true, r->total, 1e6), /* ms or MB */
                                    val(b[2], r->has_avg, r->avg, div),
                                    val(b[3], r->has_med, r->med, div),
                                    val(b[4], r->has_min, r->min, div),
                                    val(b[5], r->has_max, r->max, div),
                                    "-"};
            if (r->count >= 0) snprintf(b[0], 320, "%lld", (long long)r->count), cells[1] = b[0];
            if (r->has_pct) snprintf(b[6], 320, "%.1f", r->pct), cells[7] = b[6];
            lat_table_row(&o, &row_tab, cells, 8);
        }
        if (lim < p->n) fprintf(f, "  ... %zu more rows (--top)\n", p->n - lim);
        snprintf(b[0], 320, "%lld", (long long)p->count);
        lat_table_row(&o, &row_tab,
                      (const char *const[]){"total", b[0], val(b[1], true, p->total, 1e6)}, 3);
    }
    ssum_fini(&s);
    return 0;
}
