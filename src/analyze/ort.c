/*
 * ort.c - ONNX Runtime section of analyze (see ort.h). O(n log n): one pass over the events,
 * then sorts of the node rows by key.
 */
#include "analyze/ort.h"
#include "analyze/render.h"
#include "analyze/sections.h"
#include "core/esc.h"
#include "core/jsonw.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RUN_F(k, u, l, m)                                                                          \
    {                                                                                              \
        k, LAT_AN_U_##u, l, offsetof(struct lat_ort_summary, m), false                             \
    }
static const struct lat_an_field run_f[] = {
    RUN_F("runs", COUNT, "runs", runs),
    RUN_F("run_total_us", NS, "run total", run_total),
    RUN_F("run_mean_us", NS_D, "mean", run_mean_ns),
    RUN_F("run_p50_us", NS, "p50", run_p50),
    RUN_F("run_p90_us", NS, "p90", run_p90),
    RUN_F("run_p99_us", NS, "p99", run_p99),
    RUN_F("run_max_us", NS, "max", run_max),
    RUN_F("first_run_us", NS, "first run", run_first),
    RUN_F("steady_mean_us", NS_D, "steady mean", run_steady_mean_ns),
    RUN_F("node_time_us", NS, "node time", node_total),
    RUN_F("uncovered_us", NS, "not in a node", uncovered),
    RUN_F("uncovered_pct", PCT, "not in a node %", uncovered_pct),
    RUN_F("first_run_uncovered_us", NS, "first run not in a node", first_uncovered),
    RUN_F("session_initialization_us", NS, "session init", init),
    RUN_F("model_loading_us", NS, "model load", load),
    RUN_F("nodes_outside_runs", COUNT, "nodes outside runs", nodes_outside_runs),
};
const struct lat_an_table lat_ort_run_table = {"ort", run_f, sizeof(run_f) / sizeof(run_f[0]),
                                               sizeof(struct lat_ort_summary)};

#define ROW_F(k, u, l, m)                                                                          \
    {                                                                                              \
        k, LAT_AN_U_##u, l, offsetof(struct lat_ort_row, m), false                                 \
    }
static const struct lat_an_field row_f[] = {
    ROW_F("name", STR, "name", name),
    ROW_F("op_name", STR, "op", op),
    ROW_F("provider", STR, "provider", provider),
    ROW_F("calls", COUNT, "calls", calls),
    ROW_F("total_us", NS, "total", total),
    ROW_F("mean_us", NS_D, "mean", mean_ns),
    ROW_F("pct", PCT, "%", pct),
};
const struct lat_an_table lat_ort_row_table = {"ort_rows", row_f, sizeof(row_f) / sizeof(row_f[0]),
                                               sizeof(struct lat_ort_row)};

bool lat_ort_is(const struct lat_trace *t)
{
    return lat_trace_has(t, LAT_FCAP_ORT_NODES);
}

static uint32_t find_id(const struct lat_trace *t, const char *s)
{
    return strtab_find(&t->strs, s, strlen(s));
}

/* String id of arg `key` (id) of event i when it is a string, else 0. */
static uint32_t arg_str(const struct lat_trace *t, size_t i, uint32_t key)
{
    if (key == UINT32_MAX) return 0;
    const struct lat_arg *a = t->args + t->ev.args[i];
    for (uint32_t j = 0; j < t->ev.nargs[i]; j++)
        if (a[j].key == key && a[j].type == LAT_ARG_STR) return a[j].str;
    return 0;
}

struct node {
    uint32_t name, op, prov;
    int64_t run; /* index of the enclosing run, -1 */
    lat_ns ts, end;
};

static int cmp_run_ts(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->run != y->run) return x->run < y->run ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* By the grouping key at offset *ctx in struct node (qsort_r: analyze runs ranks in threads). */
static int cmp_key(const void *a, const void *b, void *ctx)
{
    size_t key_off = *(const size_t *)ctx;
    uint32_t x, y;
    memcpy(&x, (const char *)a + key_off, sizeof(x));
    memcpy(&y, (const char *)b + key_off, sizeof(y));
    return x < y ? -1 : x > y;
}

static int cmp_row_total(const void *a, const void *b)
{
    const struct lat_ort_row *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* Groups nodes by the key at offset off into rows (sorted by total, top cut); 0 or -ENOMEM. */
static int group(const struct lat_trace *t, struct node *nd, size_t n, size_t off, bool detail,
                 lat_ns denom, size_t top, struct lat_ort_row **out, size_t *nout, size_t *total)
{
    *out = NULL;
    *nout = 0;
    if (total) *total = 0;
    if (!n) return 0;
    qsort_r(nd, n, sizeof(*nd), cmp_key, &off);
    struct lat_ort_row *rows = calloc(n, sizeof(*rows));
    if (!rows) return -ENOMEM;
    size_t nr = 0;
    for (size_t i = 0; i < n;) {
        uint32_t k;
        memcpy(&k, (const char *)&nd[i] + off, sizeof(k));
        struct lat_ort_row *r = &rows[nr++];
        r->name = k ? lat_trace_str(t, k) : "(none)";
        if (detail) {
            r->op = nd[i].op ? lat_trace_str(t, nd[i].op) : NULL;
            r->provider = nd[i].prov ? lat_trace_str(t, nd[i].prov) : NULL;
        }
        size_t j = i;
        for (; j < n; j++) {
            uint32_t k2;
            memcpy(&k2, (const char *)&nd[j] + off, sizeof(k2));
            if (k2 != k) break;
            r->calls++;
            r->total += nd[j].end - nd[j].ts;
        }
        r->mean_ns = (double)r->total / (double)r->calls;
        r->pct = denom > 0 ? 100.0 * (double)r->total / (double)denom : 0.0;
        if (r->pct > 100.0) r->pct = 100.0;
        i = j;
    }
    qsort(rows, nr, sizeof(*rows), cmp_row_total);
    if (total) *total = nr;
    *nout = top && nr > top ? top : nr;
    *out = rows;
    return 0;
}

int lat_ort_summarize(const struct lat_trace *t, size_t top_n, struct lat_ort_summary *s)
{
    memset(s, 0, sizeof(*s));
    if (!top_n) top_n = 15;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t id_run = find_id(t, "model_run"), id_node = find_id(t, "Node");
    uint32_t id_init = find_id(t, "session_initialization"), id_sess = find_id(t, "Session");
    uint32_t k_op = find_id(t, "op_name"), k_prov = find_id(t, "provider");
    size_t nrun = 0, nnode = 0;
    for (size_t i = 0; i < ev->n; i++) {
        if (ev->name[i] == id_run && (ev->flags[i] & LAT_EVF_STEP)) nrun++;
        if (ev->cat[i] == id_node && ev->kind[i] == LAT_EV_CPU_OP) nnode++;
    }
    lat_ns *rts = malloc((nrun ? nrun : 1) * sizeof(*rts));
    lat_ns *rend = malloc((nrun ? nrun : 1) * sizeof(*rend));
    lat_ns *rdur = malloc((nrun ? nrun : 1) * sizeof(*rdur));
    struct node *nd = malloc((nnode ? nnode : 1) * sizeof(*nd));
    int rc = -ENOMEM;
    if (!rts || !rend || !rdur || !nd) goto out;
    size_t r = 0, k = 0;
    for (size_t i = 0; i < ev->n; i++) { /* the reader sorted the events by ts */
        if (ev->name[i] == id_run && (ev->flags[i] & LAT_EVF_STEP)) {
            rts[r] = ev->ts[i];
            rend[r] = ev->ts[i] + ev->dur[i];
            rdur[r++] = ev->dur[i];
            s->run_total += ev->dur[i];
            if (r == 1) s->run_first = ev->dur[i];
        } else if (ev->cat[i] == id_sess && id_sess != UINT32_MAX) {
            const char *nm = lat_trace_str(t, ev->name[i]);
            if (ev->name[i] == id_init) s->init += ev->dur[i];
            if (!strncmp(nm, "model_loading", 13)) s->load += ev->dur[i];
        }
        if (ev->cat[i] == id_node && ev->kind[i] == LAT_EV_CPU_OP) {
            struct node *x = &nd[k++];
            x->name = ev->name[i];
            x->op = arg_str(t, i, k_op);
            x->prov = arg_str(t, i, k_prov);
            x->ts = ev->ts[i];
            x->end = ev->ts[i] + ev->dur[i];
            /* the run that started last at or before the node */
            size_t lo = 0, hi = r;
            while (lo < hi) {
                size_t m = (lo + hi) / 2;
                if (rts[m] <= x->ts)
                    lo = m + 1;
                else
                    hi = m;
            }
            x->run = lo && x->ts < rend[lo - 1] ? (int64_t)(lo - 1) : -1;
        }
    }
    s->runs = r;
    if (r) {
        s->run_mean_ns = (double)s->run_total / (double)r;
        if (r > 1) s->run_steady_mean_ns = (double)(s->run_total - s->run_first) / (double)(r - 1);
        qsort(rdur, r, sizeof(*rdur), lat_cmp_i64);
        s->run_p50 = lat_pctl_i64(rdur, r, 50);
        s->run_p90 = lat_pctl_i64(rdur, r, 90);
        s->run_p99 = lat_pctl_i64(rdur, r, 99);
        s->run_max = rdur[r - 1];
    }
    /* union of the node intervals inside each run (clipped to it) */
    qsort(nd, k, sizeof(*nd), cmp_run_ts);
    lat_ns covered = 0, first_covered = 0;
    for (size_t i = 0; i < k;) {
        if (nd[i].run < 0) {
            s->nodes_outside_runs++;
            i++;
            continue;
        }
        int64_t run = nd[i].run;
        lat_ns cs = nd[i].ts, ce = nd[i].end;
        size_t j = i;
        for (; j < k && nd[j].run == run; j++) {
            s->node_total += nd[j].end - nd[j].ts;
            lat_ns a = nd[j].ts, b = nd[j].end < rend[run] ? nd[j].end : rend[run];
            if (a > ce) {
                covered += ce - cs;
                cs = a;
                ce = b;
            } else if (b > ce) {
                ce = b;
            }
        }
        if (ce > rend[run]) ce = rend[run];
        if (ce > cs) covered += ce - cs;
        if (run == 0) first_covered = covered;
        i = j;
    }
    s->uncovered = s->run_total > covered ? s->run_total - covered : 0;
    s->first_uncovered = s->run_first > first_covered ? s->run_first - first_covered : 0;
    if (s->first_uncovered > s->uncovered) s->first_uncovered = s->uncovered;
    s->uncovered_pct = s->run_total ? 100.0 * (double)s->uncovered / (double)s->run_total : 0.0;
    lat_ns denom = s->node_total > s->run_total ? s->node_total : s->run_total;
    if ((rc = group(t, nd, k, offsetof(struct node, op), false, denom, top_n, &s->op_types,
                    &s->nop_types, &s->op_types_total)) ||
        (rc = group(t, nd, k, offsetof(struct node, name), true, denom, top_n, &s->nodes,
                    &s->nnodes, &s->nodes_total)) ||
        (rc = group(t, nd, k, offsetof(struct node, prov), false, denom, 0, &s->providers,
                    &s->nproviders, NULL)))
        goto out;
    rc = 0;
out:
    free(rts);
    free(rend);
    free(rdur);
    free(nd);
    if (rc) lat_ort_summary_fini(s);
    return rc;
}

void lat_ort_summary_fini(struct lat_ort_summary *s)
{
    free(s->op_types);
    free(s->nodes);
    free(s->providers);
    memset(s, 0, sizeof(*s));
}

static void rows_json(struct jsonw *w, const char *key, const struct lat_ort_row *rows, size_t n)
{
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        lat_an_row_json(w, &lat_ort_row_table, &rows[i]);
    jsonw_arr_end(w);
}

void lat_ort_write_json(struct jsonw *w, const struct lat_ort_summary *s)
{
    jsonw_key(w, "ort");
    jsonw_obj_begin(w);
    for (size_t i = 0; i < lat_ort_run_table.nfields; i++)
        lat_an_field_json(w, &lat_ort_run_table.fields[i], s);
    jsonw_key(w, "op_types_total");
    jsonw_u64(w, s->op_types_total);
    jsonw_key(w, "nodes_total");
    jsonw_u64(w, s->nodes_total);
    rows_json(w, "op_types", s->op_types, s->nop_types);
    rows_json(w, "nodes", s->nodes, s->nnodes);
    rows_json(w, "providers", s->providers, s->nproviders);
    jsonw_obj_end(w);
}

static const char *d(lat_ns ns, char *b)
{
    return units_format_duration(ns, b, 32);
}

static void rows_text(FILE *f, const char *title, const struct lat_ort_row *rows, size_t n,
                      size_t total, bool node)
{
    char b1[32], b2[32], e[64];
    fprintf(f, "\n%-44s %-12s calls      total       mean  %%run\n", title, node ? "op" : "");
    for (size_t i = 0; i < n; i++) {
        const struct lat_ort_row *r = &rows[i];
        fprintf(f, "  ");
        lat_an_print_tail(f, r->name, 42);
        fprintf(f, " %-12.12s %5llu %10s %10s %5.1f\n",
                node && r->op ? lat_esc_cell(e, sizeof(e), r->op) : "",
                (unsigned long long)r->calls, d(r->total, b1), d((lat_ns)r->mean_ns, b2), r->pct);
    }
    if (total > n) fprintf(f, "  (%zu more)\n", total - n);
}

void lat_ort_format_text(const struct lat_ort_summary *s, FILE *f)
{
    char b[8][32];
    fprintf(f, "\nONNX Runtime  session init %s, model load %s\n", d(s->init, b[0]),
            d(s->load, b[1]));
    if (s->runs)
        fprintf(f,
                "model_run  %llu runs: mean %s, p50 %s, p90 %s, p99 %s, max %s; first %s, "
                "later mean %s\n",
                (unsigned long long)s->runs, d((lat_ns)s->run_mean_ns, b[0]), d(s->run_p50, b[1]),
                d(s->run_p90, b[2]), d(s->run_p99, b[3]), d(s->run_max, b[4]),
                d(s->run_first, b[5]), s->runs > 1 ? d((lat_ns)s->run_steady_mean_ns, b[6]) : "-");
    else
        fprintf(f, "model_run  none in this profile (no inference ran while profiling)\n");
    if (s->runs)
        fprintf(f, "  nodes %s in %s of runs; %s (%.1f%%) of run time in no node (executor)\n",
                d(s->node_total, b[0]), d(s->run_total, b[1]), d(s->uncovered, b[2]),
                s->uncovered_pct);
    if (s->nop_types)
        rows_text(f, "op types (op_name)", s->op_types, s->nop_types, s->op_types_total, false);
    if (s->nnodes) rows_text(f, "nodes", s->nodes, s->nnodes, s->nodes_total, true);
    if (s->nproviders)
        rows_text(f, "execution providers", s->providers, s->nproviders, s->nproviders, false);
}

/* ---- analyze's section (analyze/sections.h) ------------------------------------------------ */

int lat_ort_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n)
{
    struct lat_ort_summary s;
    int rc = lat_ort_summarize(t, top_n ? top_n : 15, &s);
    if (rc) return rc;
    lat_ort_write_json(w, &s);
    lat_ort_summary_fini(&s);
    return 0;
}

int lat_ort_section_text(FILE *f, const struct lat_trace *t, size_t top_n)
{
    struct lat_ort_summary s;
    int rc = lat_ort_summarize(t, top_n ? top_n : 15, &s);
    if (rc) return rc;
    lat_ort_format_text(&s, f);
    lat_ort_summary_fini(&s);
    return 0;
}
