/*
 * tf.c - TensorFlow section of analyze (see tf.h). O(n log n): a pass over the events, sorts of
 * the op and interval arrays.
 */
#include "analyze/tf.h"
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

#define SUM_F(k, u, l, m)                                                                          \
    {                                                                                              \
        k, LAT_AN_U_##u, l, offsetof(struct lat_tf_summary, m), false                              \
    }
static const struct lat_an_field sum_f[] = {
    SUM_F("steps", COUNT, "steps", steps),
    SUM_F("step_total_us", NS, "step total", step_total),
    SUM_F("step_mean_us", NS_D, "mean", step_mean_ns),
    SUM_F("step_p50_us", NS, "p50", step_p50),
    SUM_F("step_p90_us", NS, "p90", step_p90),
    SUM_F("step_max_us", NS, "max", step_max),
    SUM_F("ops", COUNT, "op events", ops),
    SUM_F("op_self_us", NS, "op self time", op_self),
    SUM_F("graph_self_us", NS, "graph op self time", graph_self),
    SUM_F("eager_self_us", NS, "eager op self time", eager_self),
    SUM_F("eager_pct", PCT, "eager %", eager_pct),
    SUM_F("step_wall_us", NS, "step wall", step_wall),
    SUM_F("host_busy_us", NS, "host busy in steps", host_busy),
    SUM_F("host_idle_us", NS, "host idle in steps", host_idle),
    SUM_F("host_idle_pct", PCT, "host idle %", host_idle_pct),
    SUM_F("input_pipeline_us", NS, "input pipeline", input_pipeline),
    SUM_F("input_pipeline_pct", PCT, "input pipeline %", input_pct),
};
const struct lat_an_table lat_tf_table = {"tensorflow", sum_f, sizeof(sum_f) / sizeof(sum_f[0]),
                                          sizeof(struct lat_tf_summary)};

#define ROW_F(k, u, l, m)                                                                          \
    {                                                                                              \
        k, LAT_AN_U_##u, l, offsetof(struct lat_tf_row, m), false                                  \
    }
static const struct lat_an_field row_f[] = {
    ROW_F("name", STR, "name", name),      ROW_F("op_type", STR, "type", op_type),
    ROW_F("mode", STR, "mode", mode),      ROW_F("calls", COUNT, "calls", calls),
    ROW_F("total_us", NS, "total", total), ROW_F("self_us", NS, "self", self),
    ROW_F("self_pct", PCT, "%", self_pct),
};
const struct lat_an_table lat_tf_row_table = {"tf_rows", row_f, sizeof(row_f) / sizeof(row_f[0]),
                                              sizeof(struct lat_tf_row)};

#define STEP_F(k, u, l, m)                                                                         \
    {                                                                                              \
        k, LAT_AN_U_##u, l, offsetof(struct lat_tf_step_row, m), false                             \
    }
static const struct lat_an_field step_f[] = {
    STEP_F("name", STR, "region", name),    STEP_F("count", COUNT, "steps", count),
    STEP_F("total_us", NS, "total", total), STEP_F("mean_us", NS_D, "mean", mean_ns),
    STEP_F("p50_us", NS, "p50", p50),       STEP_F("p90_us", NS, "p90", p90),
    STEP_F("max_us", NS, "max", max),
};
const struct lat_an_table lat_tf_step_table = {
    "tf_steps", step_f, sizeof(step_f) / sizeof(step_f[0]), sizeof(struct lat_tf_step_row)};

bool lat_tf_is(const struct lat_trace *t)
{
    return lat_trace_has(t, LAT_FCAP_TF_OPS);
}

static uint32_t arg_str(const struct lat_trace *t, size_t i, uint32_t key)
{
    if (key == UINT32_MAX) return 0;
    const struct lat_arg *a = t->args + t->ev.args[i];
    for (uint32_t j = 0; j < t->ev.nargs[i]; j++)
        if (a[j].key == key && a[j].type == LAT_ARG_STR) return a[j].str;
    return 0;
}

struct op {
    uint32_t track, name, type;
    bool eager;
    lat_ns ts, end, self;
};

static int cmp_op_track(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* the enclosing op first */
    return 0;
}

struct iv {
    lat_ns a, b;
};

static int cmp_iv(const void *a, const void *b)
{
    const struct iv *x = a, *y = b;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

/* Sorts and merges intervals in place; returns the new count. */
static size_t merge(struct iv *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof(*v), cmp_iv);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].a <= v[k].b) {
            if (v[i].b > v[k].b) v[k].b = v[i].b;
        } else {
            v[++k] = v[i];
        }
    }
    return k + 1;
}

static lat_ns measure(const struct iv *v, size_t n)
{
    lat_ns s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i].b - v[i].a;
    return s;
}

/* Length of the intersection of two merged interval lists. */
static lat_ns overlap(const struct iv *x, size_t nx, const struct iv *y, size_t ny)
{
    lat_ns s = 0;
    size_t i = 0, j = 0;
    while (i < nx && j < ny) {
        lat_ns a = x[i].a > y[j].a ? x[i].a : y[j].a;
        lat_ns b = x[i].b < y[j].b ? x[i].b : y[j].b;
        if (b > a) s += b - a;
        if (x[i].b < y[j].b)
            i++;
        else
            j++;
    }
    return s;
}

/* ops grouped by (name, type, mode) for nodes (by_node) or (type, mode) */
static int cmp_op_key_node(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->type != y->type) return x->type < y->type ? -1 : 1;
    return (int)x->eager - (int)y->eager;
}
static int cmp_op_key_type(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    if (x->type != y->type) return x->type < y->type ? -1 : 1;
    return (int)x->eager - (int)y->eager;
}

static int cmp_row_self(const void *a, const void *b)
{
    const struct lat_tf_row *x = a, *y = b;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
    if (c) return c;
    return strcmp(x->mode, y->mode);
}

static int group(const struct lat_trace *t, struct op *o, size_t n, bool by_node, lat_ns denom,
                 size_t top, struct lat_tf_row **out, size_t *nout, size_t *total)
{
    *out = NULL;
    *nout = *total = 0;
    if (!n) return 0;
    int (*cmp)(const void *, const void *) = by_node ? cmp_op_key_node : cmp_op_key_type;
    qsort(o, n, sizeof(*o), cmp);
    struct lat_tf_row *rows = calloc(n, sizeof(*rows));
    if (!rows) return -ENOMEM;
    size_t nr = 0;
    for (size_t i = 0; i < n;) {
        struct lat_tf_row *r = &rows[nr++];
        r->name = lat_trace_str(t, by_node ? o[i].name : o[i].type);
        r->op_type = by_node ? lat_trace_str(t, o[i].type) : NULL;
        r->mode = o[i].eager ? "eager" : "graph";
        size_t j = i;
        for (; j < n && cmp(&o[i], &o[j]) == 0; j++) {
            r->calls++;
            r->total += o[j].end - o[j].ts;
            r->self += o[j].self;
        }
        r->self_pct = denom > 0 ? 100.0 * (double)r->self / (double)denom : 0.0;
        if (r->self_pct > 100.0) r->self_pct = 100.0;
        i = j;
    }
    qsort(rows, nr, sizeof(*rows), cmp_row_self);
    *total = nr;
    *nout = top && nr > top ? top : nr;
    *out = rows;
    return 0;
}

static bool is_input_event(const char *nm, const char *type)
{
    return !strncmp(nm, "IteratorGetNext", 15) || !strncmp(nm, "Iterator::", 10) ||
           (type && !strncmp(type, "IteratorGetNext", 15));
}

/* Step region name without its trailing " N". */
static size_t base_len(const char *s)
{
    size_t l = strlen(s), k = l;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k < l && k > 0 && s[k - 1] == ' ') return k - 1;
    return l;
}

struct stepv {
    const char *name;
    size_t len;
    lat_ns dur;
};

static int cmp_stepv(const void *a, const void *b)
{
    const struct stepv *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, m);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->dur < y->dur ? -1 : x->dur > y->dur;
}

int lat_tf_summarize(const struct lat_trace *t, size_t top_n, struct lat_tf_summary *s)
{
    memset(s, 0, sizeof(*s));
    const char *un = lat_trace_meta(t, "tf_ops_unnamed");
    if (un) s->ops_unnamed = strtoull(un, NULL, 10);
    s->steps_note = lat_trace_meta(t, "na_steps");
    if (!top_n) top_n = 15;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t k_type = strtab_find(&t->strs, "op_type", 7);
    uint32_t k_mode = strtab_find(&t->strs, "tf_mode", 7);
    uint32_t id_eager = strtab_find(&t->strs, "eager", 5);
    size_t nops = 0, nsteps = 0, nin = 0;
    for (size_t i = 0; i < ev->n; i++) {
        if (ev->flags[i] & LAT_EVF_GPU) continue;
        if (ev->kind[i] == LAT_EV_CPU_OP && arg_str(t, i, k_mode)) nops++;
        if (ev->flags[i] & LAT_EVF_STEP) nsteps++;
        nin++;
    }
    struct op *o = malloc((nops ? nops : 1) * sizeof(*o));
    struct iv *busy = malloc((nops ? nops : 1) * sizeof(*busy));
    struct iv *stepiv = malloc((nsteps ? nsteps : 1) * sizeof(*stepiv));
    struct stepv *sv = malloc((nsteps ? nsteps : 1) * sizeof(*sv));
    lat_ns *sd = malloc((nsteps ? nsteps : 1) * sizeof(*sd));
    struct iv *inp = malloc((nin ? nin : 1) * sizeof(*inp));
    struct op **stack = malloc((nops ? nops : 1) * sizeof(*stack));
    int rc = -ENOMEM;
    if (!o || !busy || !stepiv || !sv || !sd || !inp || !stack) goto out;
    size_t k = 0, ns = 0, ni = 0;
    for (size_t i = 0; i < ev->n; i++) {
        if (ev->flags[i] & LAT_EVF_GPU) continue;
        lat_ns a = ev->ts[i], b = ev->ts[i] + ev->dur[i];
        const char *nm = lat_trace_str(t, ev->name[i]);
        uint32_t type = ev->kind[i] == LAT_EV_CPU_OP ? arg_str(t, i, k_type) : 0;
        if (ev->kind[i] == LAT_EV_CPU_OP && arg_str(t, i, k_mode)) {
            uint32_t mode = arg_str(t, i, k_mode);
            o[k] = (struct op){.track = ev->track[i],
                               .name = ev->name[i],
                               .type = type ? type : ev->name[i],
                               .eager = mode == id_eager,
                               .ts = a,
                               .end = b,
                               .self = b - a};
            busy[k].a = a;
            busy[k].b = b;
            k++;
        }
        if (ev->flags[i] & LAT_EVF_STEP) {
            stepiv[ns] = (struct iv){a, b};
            sv[ns] = (struct stepv){nm, base_len(nm), ev->dur[i]};
            sd[ns++] = ev->dur[i];
            s->step_total += ev->dur[i];
        }
        if (is_input_event(nm, type ? lat_trace_str(t, type) : NULL) && b > a)
            inp[ni++] = (struct iv){a, b};
    }
    s->steps = ns;
    s->ops = k;
    if (ns) {
        s->step_mean_ns = (double)s->step_total / (double)ns;
        qsort(sd, ns, sizeof(*sd), lat_cmp_i64);
        s->step_p50 = lat_pctl_i64(sd, ns, 50);
        s->step_p90 = lat_pctl_i64(sd, ns, 90);
        s->step_max = sd[ns - 1];
        /* per region name */
        qsort(sv, ns, sizeof(*sv), cmp_stepv);
        s->step_groups = calloc(ns, sizeof(*s->step_groups));
        if (!s->step_groups) goto out;
        for (size_t i = 0; i < ns;) {
            size_t j = i;
            while (j < ns && sv[j].len == sv[i].len && !memcmp(sv[j].name, sv[i].name, sv[i].len))
                j++;
            struct lat_tf_step_row *g = &s->step_groups[s->nstep_groups++];
            /* names are NUL-terminated in the string table: the base is a prefix, kept by
             * pointing at a copy in the row (small) */
            char *nm = malloc(sv[i].len + 1);
            if (!nm) goto out;
            memcpy(nm, sv[i].name, sv[i].len);
            nm[sv[i].len] = 0;
            g->name = g->owned = nm;
            g->count = j - i;
            for (size_t q = i; q < j; q++) {
                g->total += sv[q].dur;
                sd[q - i] = sv[q].dur; /* sv is sorted by dur within a name */
            }
            g->mean_ns = (double)g->total / (double)g->count;
            g->p50 = lat_pctl_i64(sd, g->count, 50);
            g->p90 = lat_pctl_i64(sd, g->count, 90);
            g->max = sd[g->count - 1];
            i = j;
        }
    }
    /* self time: minus the ops nested in an op on its thread */
    qsort(o, k, sizeof(*o), cmp_op_track);
    size_t sp = 0;
    for (size_t i = 0; i < k; i++) {
        if (i && o[i].track != o[i - 1].track) sp = 0;
        while (sp && stack[sp - 1]->end <= o[i].ts)
            sp--;
        if (sp && o[i].end <= stack[sp - 1]->end) {
            stack[sp - 1]->self -= o[i].end - o[i].ts;
            if (stack[sp - 1]->self < 0) stack[sp - 1]->self = 0;
        }
        stack[sp++] = &o[i];
    }
    for (size_t i = 0; i < k; i++) {
        s->op_self += o[i].self;
        if (o[i].eager)
            s->eager_self += o[i].self;
        else
            s->graph_self += o[i].self;
    }
    s->eager_pct = s->op_self ? 100.0 * (double)s->eager_self / (double)s->op_self : 0.0;
    /* host idle inside the steps */
    size_t nsu = merge(stepiv, ns);
    size_t nbu = merge(busy, k);
    size_t niu = merge(inp, ni);
    s->step_wall = measure(stepiv, nsu);
    s->host_busy = overlap(busy, nbu, stepiv, nsu);
    if (s->host_busy > s->step_wall) s->host_busy = s->step_wall;
    s->host_idle = s->step_wall - s->host_busy;
    s->host_idle_pct = s->step_wall ? 100.0 * (double)s->host_idle / (double)s->step_wall : 0.0;
    s->input_pipeline = overlap(inp, niu, stepiv, nsu);
    s->input_pct = s->step_wall ? 100.0 * (double)s->input_pipeline / (double)s->step_wall : 0.0;
    if ((rc = group(t, o, k, false, s->op_self, top_n, &s->op_types, &s->nop_types,
                    &s->op_types_total)) ||
        (rc = group(t, o, k, true, s->op_self, top_n, &s->nodes, &s->nnodes, &s->nodes_total)))
        goto out;
    rc = 0;
out:
    free(o);
    free(busy);
    free(stepiv);
    free(sv);
    free(sd);
    free(inp);
    free(stack);
    if (rc) lat_tf_summary_fini(s);
    return rc;
}

void lat_tf_summary_fini(struct lat_tf_summary *s)
{
    free(s->op_types);
    free(s->nodes);
    for (size_t i = 0; i < s->nstep_groups; i++)
        free(s->step_groups[i].owned);
    free(s->step_groups);
    memset(s, 0, sizeof(*s));
}

static void rows_json(struct jsonw *w, const char *key, const struct lat_an_table *tb,
                      const void *rows, size_t size, size_t n)
{
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        lat_an_row_json(w, tb, (const char *)rows + i * size);
    jsonw_arr_end(w);
}

void lat_tf_write_json(struct jsonw *w, const struct lat_tf_summary *s)
{
    jsonw_key(w, "tensorflow");
    jsonw_obj_begin(w);
    for (size_t i = 0; i < lat_tf_table.nfields; i++)
        lat_an_field_json(w, &lat_tf_table.fields[i], s);
    jsonw_key(w, "op_types_total");
    jsonw_u64(w, s->op_types_total);
    jsonw_key(w, "ops_total");
    jsonw_u64(w, s->nodes_total);
    jsonw_key(w, "ops_unnamed");
    jsonw_u64(w, s->ops_unnamed);
    jsonw_key(w, "steps_note");
    if (s->steps_note)
        jsonw_str(w, s->steps_note);
    else
        jsonw_null(w);
    rows_json(w, "step_regions", &lat_tf_step_table, s->step_groups, sizeof(*s->step_groups),
              s->nstep_groups);
    rows_json(w, "op_types", &lat_tf_row_table, s->op_types, sizeof(*s->op_types), s->nop_types);
    rows_json(w, "op_rows", &lat_tf_row_table, s->nodes, sizeof(*s->nodes), s->nnodes);
    jsonw_obj_end(w);
}

static const char *d(lat_ns ns, char *b)
{
    return units_format_duration(ns, b, 32);
}

static void rows_text(FILE *f, const char *title, const struct lat_tf_row *rows, size_t n,
                      size_t total, bool node)
{
    char b1[32], b2[32], e[64];
    fprintf(f, "\n%-44s %-14s %-5s calls      total       self  %%self\n", title,
            node ? "type" : "", "mode");
    for (size_t i = 0; i < n; i++) {
        const struct lat_tf_row *r = &rows[i];
        fprintf(f, "  ");
        lat_an_print_tail(f, r->name, 42);
        fprintf(f, " %-14.14s %-5s %5llu %10s %10s %6.1f\n",
                node && r->op_type ? lat_esc_cell(e, sizeof(e), r->op_type) : "", r->mode,
                (unsigned long long)r->calls, d(r->total, b1), d(r->self, b2), r->self_pct);
    }
    if (total > n) fprintf(f, "  (%zu more)\n", total - n);
}

void lat_tf_format_text(const struct lat_tf_summary *s, FILE *f)
{
    char b[8][32];
    fprintf(f, "\nTensorFlow  %llu op events: self time %s, graph %s, eager %s (%.1f%%)\n",
            (unsigned long long)s->ops, d(s->op_self, b[0]), d(s->graph_self, b[1]),
            d(s->eager_self, b[2]), s->eager_pct);
    if (s->ops_unnamed)
        fprintf(f,
                "  %llu graph op events are named by their type only (no \"sf\"): the file does "
                "not say which node of a type ran; rows \"(any of N TYPE nodes)\" sum them\n",
                (unsigned long long)s->ops_unnamed);
    if (s->steps) {
        fprintf(f, "steps  %llu: total %s, mean %s, p50 %s, p90 %s, max %s\n",
                (unsigned long long)s->steps, d(s->step_total, b[0]),
                d((lat_ns)s->step_mean_ns, b[1]), d(s->step_p50, b[2]), d(s->step_p90, b[3]),
                d(s->step_max, b[4]));
        for (size_t i = 0; i < s->nstep_groups; i++) {
            const struct lat_tf_step_row *g = &s->step_groups[i];
            fprintf(f, "  %-20s %3llu steps: mean %s, p50 %s, p90 %s, max %s\n", g->name,
                    (unsigned long long)g->count, d((lat_ns)g->mean_ns, b[0]), d(g->p50, b[1]),
                    d(g->p90, b[2]), d(g->max, b[3]));
        }
        fprintf(f, "host   in the steps (%s): ops running %s, idle %s (%.1f%%)",
                d(s->step_wall, b[0]), d(s->host_busy, b[1]), d(s->host_idle, b[2]),
                s->host_idle_pct);
        if (s->input_pipeline)
            fprintf(f, "; input pipeline %s (%.1f%%)", d(s->input_pipeline, b[3]), s->input_pct);
        fprintf(f, "\n");
    } else if (s->steps_note) {
        fprintf(f, "steps  none identifiable: %s\n", s->steps_note);
    } else {
        fprintf(f, "steps  none (no tf.profiler.experimental.Trace(..., step_num=N) region)\n");
    }
    if (s->nop_types) rows_text(f, "op types", s->op_types, s->nop_types, s->op_types_total, false);
    if (s->nnodes) rows_text(f, "ops", s->nodes, s->nnodes, s->nodes_total, true);
}

/* ---- analyze's section (analyze/sections.h) ------------------------------------------------ */

int lat_tf_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n)
{
    struct lat_tf_summary s;
    int rc = lat_tf_summarize(t, top_n ? top_n : 15, &s);
    if (rc) return rc;
    lat_tf_write_json(w, &s);
    lat_tf_summary_fini(&s);
    return 0;
}

int lat_tf_section_text(FILE *f, const struct lat_trace *t, size_t top_n)
{
    struct lat_tf_summary s;
    int rc = lat_tf_summarize(t, top_n ? top_n : 15, &s);
    if (rc) return rc;
    lat_tf_format_text(&s, f);
    lat_tf_summary_fini(&s);
    return 0;
}
