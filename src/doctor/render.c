/*
 * render.c - the doctor's three outputs: terminal text (optionally coloured), markdown for
 * issues and pull requests, and the stable JSON document (docs/latscope-doctor.md).
 *
 * Renderers append to a caller-owned buffer (or JSON writer) and never print: cmd-doctor.c
 * owns stdout. Evidence values of a finding are flat key/values plus named tables (rows of
 * key/values); the JSON turns each table into an array of objects inside "evidence", next to
 * "saving_method" and "examples" (the worst instances, with trace timestamps, step, stream and
 * thread so they can be found in Perfetto).
 */
#include "core/esc.h"
#include "core/features.h"
#include "core/table.h"
#include "core/units.h"
#include "doctor/doctor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C_RESET "\033[0m"
#define C_BOLD  "\033[1m"
#define C_DIM   "\033[2m"
#define C_RED   "\033[31m"
#define C_YEL   "\033[33m"
#define C_CYAN  "\033[36m"
#define C_GREEN "\033[32m"

struct out {
    struct lat_buf *b;
    bool color;
    int err;
    char *tmp[16]; /* escaped copies of trace-provided strings (o_s), freed by o_fini */
    size_t ntmp;
};

/* A string from the trace (names, paths, and the titles and commands built from them) made safe
 * for a terminal or a markdown file by core/esc.h (raw ESC, newlines... become \xHH / \n text).
 * The copy lives until o_fini, at most 16 at a time (a ring). */
static const char *o_s(struct out *o, const char *s)
{
    if (!s) return "";
    if (!lat_esc_needed(s)) return s;
    char *d = lat_esc_dup(s);
    if (!d) {
        o->err = -ENOMEM;
        return "";
    }
    size_t k = o->ntmp++ % 16;
    free(o->tmp[k]);
    o->tmp[k] = d;
    return d;
}

static int o_fini(struct out *o)
{
    for (size_t i = 0; i < 16; i++)
        free(o->tmp[i]);
    return o->err;
}

static void o_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void o_printf(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!o->err) o->err = buf_vprintf(o->b, fmt, ap);
    va_end(ap);
}

static const char *o_c(const struct out *o, const char *code)
{
    return o->color ? code : "";
}

/* Word-wraps text at width columns, each line indented by `indent` spaces. */
static void o_wrap(struct out *o, const char *text, int indent, int width)
{
    const char *p = text ? text : "";
    int col = 0;
    bool line_start = true;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p) break;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        int len = (int)(p - w);
        if (!line_start && col + 1 + len > width) {
            o_printf(o, "\n");
            line_start = true;
        }
        if (line_start) {
            o_printf(o, "%*s", indent, "");
            col = indent;
            line_start = false;
        } else {
            o_printf(o, " ");
            col++;
        }
        o_printf(o, "%.*s", len, w);
        col += len;
    }
    o_printf(o, "\n");
}

static const char *sev_color(enum doc_severity s)
{
    switch (s) {
    case DOC_SEV_HIGH:
        return C_RED;
    case DOC_SEV_MEDIUM:
        return C_YEL;
    case DOC_SEV_LOW:
        return C_CYAN;
    default:
        return C_DIM;
    }
}

static void sev_upper(enum doc_severity s, char *buf, size_t len)
{
    const char *n = doctor_severity_name(s);
    size_t i = 0;
    for (; n[i] && i + 1 < len; i++)
        buf[i] = (char)(n[i] >= 'a' && n[i] <= 'z' ? n[i] - 32 : n[i]);
    buf[i] = 0;
}

static void kv_value(const struct doc_kv *kv, char *buf, size_t len)
{
    switch (kv->type) {
    case DOC_KV_NUM:
        snprintf(buf, len, "%.4g", kv->num);
        break;
    case DOC_KV_INT:
        snprintf(buf, len, "%" PRId64, kv->i);
        break;
    case DOC_KV_BOOL:
        snprintf(buf, len, "%s", kv->i ? "yes" : "no");
        break;
    case DOC_KV_US:
        units_format_duration(kv->i, buf, len);
        break;
    case DOC_KV_STR: /* control bytes of trace names escaped (JSON keeps them exact) */
        lat_esc_str(buf, len, kv->str);
        break;
    }
}

static void example_line(struct out *o, const struct doc_example *e, bool md)
{
    char d[32], off[32], v[32];
    units_format_duration(e->dur, d, sizeof(d));
    units_format_duration(e->offset, off, sizeof(off));
    units_format_duration(e->value, v, sizeof(v));
    /* Kernel signatures run to hundreds of characters: the JSON keeps the full name. */
    const char *name = o_s(o, e->name);
    int nlen = (int)strlen(name);
    o_printf(o, "%s%.*s%s%s, %s at ts %" PRId64 ".%03" PRId64 " us (+%s into the trace)",
             md ? "`" : "", nlen > 96 ? 93 : nlen, name, nlen > 96 ? "..." : "", md ? "`" : "", d,
             e->ts / 1000, (e->ts % 1000 + 1000) % 1000, off);
    if (e->step >= 0) o_printf(o, ", step %d", e->step);
    if (e->stream >= 0) o_printf(o, ", stream %" PRId64, e->stream);
    if (e->tid >= 0) o_printf(o, ", tid %" PRId64, e->tid);
    if (e->value != e->dur && e->value > 0) o_printf(o, ", counts %s", v);
    if (e->note) o_printf(o, " - %s", o_s(o, e->note));
    o_printf(o, "\n");
}

static void summary_text(struct out *o, const struct doc_summary *s, bool md)
{
    char a[32], b[32], c[32], d[32];
    units_format_duration(s->step_mean, a, sizeof(a));
    units_format_duration(s->step_median, b, sizeof(b));
    units_format_duration(s->step_p90, c, sizeof(c));
    units_format_duration(s->step_max, d, sizeof(d));
    double m = s->step_mean > 0 ? (double)s->step_mean : 1.0;
    const char *li = md ? "- " : "  ";
    if (s->service) { /* a bench result: its load points, one line each */
        for (const char *p = s->what ? s->what : ""; *p;) {
            const char *e = strchr(p, '\n');
            size_t k = e ? (size_t)(e - p) : strlen(p);
            char line[1024];
            snprintf(line, sizeof(line), "%.*s", (int)k, p);
            o_printf(o, "%s%s\n", li, o_s(o, line));
            p += k + (e != NULL);
        }
        return;
    }
    bool ncu = s->fmt && (s->fmt->caps & LAT_FCAP_NCU_METRICS);
    bool trt = s->fmt && (s->fmt->caps & LAT_FCAP_TRT_LAYERS);
    if (ncu) /* a kernel profile: no step, no timeline */
        o_printf(o,
                 "%san Nsight Compute report: %" PRIu64 " kernel launch%s replayed one at a time "
                 "(no timeline), %s of kernel time profiled\n",
                 li, s->gpu_events, s->gpu_events == 1 ? "" : "es", a);
    else if (trt) /* no steps, no DataLoader: a step is one query, savings are per query */
        o_printf(o,
                 "%sTensorRT engine: layer and query times from trtexec/TREx, no kernel "
                 "timeline; savings are per query\n",
                 li);
    else if (s->steps_real)
        o_printf(o, "%s%zu steps: mean %s, median %s, p90 %s, max %s\n", li, s->nsteps, a, b, c, d);
    else
        o_printf(o, "%sno ProfilerStep: the trace window (%s) counts as one step\n", li, a);
    if (ncu) {
    } else if (s->gpu_events) {
        o_printf(o, "%sGPU busy %.1f %% of the step (kernels %.1f %%), idle %.1f %%\n", li,
                 100.0 * (double)s->gpu_busy / m, 100.0 * (double)s->kernel / m,
                 100.0 * (double)s->idle / m);
        o_printf(o,
                 "%sidle waiting for the host %.1f %%, after syncs %.1f %%; exposed copies "
                 "%.1f %%, exposed communication %.1f %%\n",
                 li, 100.0 * (double)s->host_idle / m, 100.0 * (double)s->sync_bubble / m,
                 100.0 * (double)s->memcpy_exposed / m, 100.0 * (double)s->comm_exposed / m);
        o_printf(o,
                 "%s%.0f kernels per step, %.1f %% shorter than their launch; %" PRIu64
                 " CUDA graph launches\n",
                 li, s->kernels_per_step, s->short_kernel_pct, s->graph_launches);
    } else if (!trt) {
        o_printf(o, "%sno GPU activity in the trace (CPU-only)\n", li);
    }
    if (!ncu && !trt)
        o_printf(o, "%sDataLoader %.1f %% of the step\n", li, 100.0 * (double)s->dataloader / m);
    struct doc_family_use fu[8];
    size_t nf = doctor_families(s, fu, 8);
    o_printf(o, "%srules that ran:", li);
    int any = 0;
    for (size_t i = 0; i < nf; i++)
        if (fu[i].ran) o_printf(o, "%s %s", any++ ? "," : "", fu[i].label);
    if (!any) o_printf(o, " none");
    o_printf(o, "\n%snot applicable:", li);
    any = 0;
    for (size_t i = 0; i < nf; i++)
        if (!fu[i].ran) o_printf(o, "%s %s (%s)", any++ ? ";" : "", fu[i].label, fu[i].why);
    if (!any) o_printf(o, " none");
    o_printf(o, "\n");
    if (!s->judged) o_printf(o, "%sno rule applies to this input (%s)\n", li, o_s(o, s->what));
    if (s->hta.valid && s->hta.temporal_valid) {
        char h[32], k[32], x[32];
        units_format_duration(s->hta.host_wait, h, sizeof(h));
        units_format_duration(s->hta.kernel_wait, k, sizeof(k));
        units_format_duration(s->hta.other_idle, x, sizeof(x));
        o_printf(o,
                 "%sHTA (as latscope analyze, whole trace): idle %.1f %%, compute %.1f %%, "
                 "non-compute %.1f %% "
                 "of kernel time; stream gaps host_wait %s, kernel_wait %s, other %s\n",
                 li, s->hta.idle_pct, s->hta.compute_pct, s->hta.non_compute_pct, h, k, x);
    }
}

/* The text evidence: "key   value" lines under a finding. */
static const struct lat_tcol evidence_cols[] = {{36, LAT_TCOL_LEFT, NULL},
                                                {0, LAT_TCOL_LEFT, NULL}};
static const struct lat_table evidence_tab = {"     ", evidence_cols, 2};

static void evidence_text(struct out *o, const struct doc_finding *f, bool md)
{
    char v[512];
    for (size_t i = 0; i < f->nkv; i++) {
        const struct doc_kv *kv = &f->kv[i];
        if (kv->group) continue;
        kv_value(kv, v, sizeof(v));
        if (md) {
            o_printf(o, "- %s: %s\n", kv->key, v);
        } else if (!o->err) {
            struct lat_tout t = LAT_TOUT_BUF(o->b);
            o->err = lat_table_row(&t, &evidence_tab, (const char *const[]){kv->key, v}, 2);
        }
    }
    /* tables, in order of first appearance */
    for (size_t i = 0; i < f->nkv; i++) {
        const struct doc_kv *kv = &f->kv[i];
        if (!kv->group || kv->group != 1) continue;
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            if (f->kv[j].table && strcmp(f->kv[j].table, kv->table) == 0) seen = true;
        if (seen) continue;
        o_printf(o, md ? "- %s:\n" : "     %s:\n", kv->table);
        int row = 0;
        for (size_t j = i; j < f->nkv; j++) {
            const struct doc_kv *k2 = &f->kv[j];
            if (!k2->table || strcmp(k2->table, kv->table) != 0) continue;
            if (k2->group != row) {
                if (row) o_printf(o, "\n");
                row = k2->group;
                o_printf(o, md ? "  - " : "       - ");
            } else {
                o_printf(o, ", ");
            }
            kv_value(k2, v, sizeof(v));
            o_printf(o, "%s: %s%s%s", k2->key, md ? "`" : "", v, md ? "`" : "");
        }
        if (row) o_printf(o, "\n");
    }
}

/* The verdict when no finding reaches low: never a clean bill for a trace no rule could judge. */
static void verdict_text(struct out *o, const struct doc_report *r, bool md)
{
    size_t unjudged = 0;
    const struct doc_summary *u = NULL;
    for (size_t t = 0; t < r->ntraces; t++)
        if (!r->traces[t].judged) {
            unjudged++;
            u = &r->traces[t];
        }
    if (unjudged && unjudged == r->ntraces && r->ntraces == 1 && md)
        o_printf(o, "**No rule applies to this input** (%s).\n", o_s(o, u->what));
    else if (unjudged && unjudged == r->ntraces && r->ntraces == 1)
        o_printf(o,
                 "%sNo rule applies to this input%s (%s). Nothing was judged: this is not a "
                 "clean bill (docs/latscope-doctor.md, exit status 3).\n",
                 o_c(o, C_YEL), o_c(o, C_RESET), o_s(o, u->what));
    else if (unjudged == r->ntraces)
        o_printf(o,
                 "%sNo rule applies to any of these inputs%s (see each trace above). Nothing "
                 "was judged.\n",
                 md ? "**" : o_c(o, C_YEL), md ? "**" : o_c(o, C_RESET));
    else if (unjudged)
        o_printf(o,
                 "%sNo significant finding%s from the rules that ran; %zu of %zu traces got no "
                 "rule that applies (see above): nothing in %s was judged.\n",
                 md ? "**" : o_c(o, C_GREEN), md ? "**" : o_c(o, C_RESET), unjudged, r->ntraces,
                 unjudged == 1 ? "it" : "them");
    else if (md)
        o_printf(o, "**No significant finding**: every number above is under its threshold.\n");
    else
        o_printf(o,
                 "%sNo significant finding.%s The numbers above are under every threshold "
                 "(docs/latscope-doctor.md).\n",
                 o_c(o, C_GREEN), o_c(o, C_RESET));
}

int doctor_format_text(const struct doc_report *r, struct lat_buf *b, bool color)
{
    struct out o = {.b = b, .color = color};
    for (size_t t = 0; t < r->ntraces; t++) {
        const struct doc_summary *s = &r->traces[t];
        o_printf(&o, "%slatscope doctor%s: %s (%s%s)\n", o_c(&o, C_BOLD), o_c(&o, C_RESET),
                 s->path ? o_s(&o, s->path) : "(trace)", s->format ? s->format : "?",
                 s->rank >= 0 ? ", rank" : "");
        summary_text(&o, s, false);
    }
    o_printf(&o, "\n");
    if (doctor_max_severity(r) < (int)DOC_SEV_LOW) {
        verdict_text(&o, r, false);
        if (!r->n) return o_fini(&o);
        o_printf(&o, "Notes:\n\n");
    }
    for (size_t i = 0; i < r->n; i++) {
        const struct doc_finding *f = &r->f[i];
        char sev[16], s1[32];
        sev_upper(f->severity, sev, sizeof(sev));
        units_format_duration((lat_ns)(f->saving_us_per_step * 1000.0), s1, sizeof(s1));
        o_printf(&o, "%s#%zu %-6s%s %s%s%s", o_c(&o, C_BOLD), i + 1, sev, o_c(&o, C_RESET),
                 o_c(&o, sev_color(f->severity)), f->id, o_c(&o, C_RESET));
        if (f->saving_us_per_step > 0)
            o_printf(&o, "  saving %s %s per %s (%.1f %%)",
                     f->saving_bound == DOC_BOUND_LOWER      ? "at least"
                     : f->saving_bound == DOC_BOUND_ESTIMATE ? "≈"
                                                             : "<=",
                     s1, r->traces[f->trace].service ? "request" : "step", f->saving_pct);
        else
            o_printf(&o, "  saving not estimated");
        if (r->ntraces > 1) o_printf(&o, "  [%s]", o_s(&o, r->traces[f->trace].path));
        o_printf(&o, "\n%s", o_c(&o, C_BOLD));
        o_wrap(&o, o_s(&o, f->title), 3, 100);
        o_printf(&o, "%s   evidence:\n", o_c(&o, C_RESET));
        evidence_text(&o, f, false);
        if (f->nex) {
            o_printf(&o, "   worst examples (Perfetto / TensorBoard trace view):\n");
            for (size_t k = 0; k < f->nex; k++) {
                o_printf(&o, "     - ");
                example_line(&o, &f->ex[k], false);
            }
        }
        o_printf(&o, "   %show the saving is estimated:%s\n", o_c(&o, C_DIM), o_c(&o, C_RESET));
        o_wrap(&o, o_s(&o, f->saving_method), 5, 100);
        o_printf(&o, "   %sdo:%s\n", o_c(&o, C_BOLD), o_c(&o, C_RESET));
        o_wrap(&o, o_s(&o, f->recommendation), 5, 100);
        o_printf(&o, "   %snext:%s %s\n\n", o_c(&o, C_BOLD), o_c(&o, C_RESET),
                 o_s(&o, f->next_step));
    }
    return o_fini(&o);
}

int doctor_format_md(const struct doc_report *r, struct lat_buf *b)
{
    struct out o = {.b = b, .color = false};
    o_printf(&o, "## latscope doctor\n\n");
    for (size_t t = 0; t < r->ntraces; t++) {
        const struct doc_summary *s = &r->traces[t];
        o_printf(&o, "**Trace:** `%s` (%s)\n\n", s->path ? o_s(&o, s->path) : "(trace)",
                 s->format ? s->format : "?");
        summary_text(&o, s, true);
        o_printf(&o, "\n");
    }
    if (doctor_max_severity(r) < (int)DOC_SEV_LOW) {
        verdict_text(&o, r, true);
        if (!r->n) return o_fini(&o);
        o_printf(&o, "\nNotes:\n\n");
    }
    o_printf(&o, "| # | severity | finding | saving per step |\n|---|---|---|---|\n");
    for (size_t i = 0; i < r->n; i++) {
        const struct doc_finding *f = &r->f[i];
        char s1[32];
        units_format_duration((lat_ns)(f->saving_us_per_step * 1000.0), s1, sizeof(s1));
        o_printf(&o, "| %zu | %s | `%s` ", i + 1, doctor_severity_name(f->severity), f->id);
        /* a '|' in a title (kernel names can hold anything) would split the table cell */
        for (const char *p = o_s(&o, f->title); *p; p++)
            o_printf(&o, "%s%c", *p == '|' ? "\\" : "", *p);
        o_printf(&o, " | ");
        if (f->saving_us_per_step > 0)
            o_printf(&o, "%s %s (%.1f %%) |\n",
                     f->saving_bound == DOC_BOUND_LOWER      ? "≥"
                     : f->saving_bound == DOC_BOUND_ESTIMATE ? "≈"
                                                             : "≤",
                     s1, f->saving_pct);
        else
            o_printf(&o, "not estimated |\n");
    }
    for (size_t i = 0; i < r->n; i++) {
        const struct doc_finding *f = &r->f[i];
        o_printf(&o, "\n### %zu. `%s`: %s\n\n", i + 1, f->id, o_s(&o, f->title));
        o_printf(&o, "**Evidence**\n\n");
        evidence_text(&o, f, true);
        if (f->nex) {
            o_printf(&o, "\n**Worst examples**\n\n");
            for (size_t k = 0; k < f->nex; k++) {
                o_printf(&o, "- ");
                example_line(&o, &f->ex[k], true);
            }
        }
        o_printf(&o, "\n**Saving estimate:** %s\n\n", o_s(&o, f->saving_method));
        o_printf(&o, "**Recommendation:** %s\n\n", o_s(&o, f->recommendation));
        o_printf(&o, "**Next step:**\n\n```sh\n%s\n```\n", o_s(&o, f->next_step));
    }
    return o_fini(&o);
}

static void json_kv(struct jsonw *w, const struct doc_kv *kv)
{
    jsonw_key(w, kv->key);
    switch (kv->type) {
    case DOC_KV_NUM:
        jsonw_double(w, kv->num, 6);
        break;
    case DOC_KV_INT:
        jsonw_i64(w, kv->i);
        break;
    case DOC_KV_BOOL:
        jsonw_bool(w, kv->i != 0);
        break;
    case DOC_KV_US:
        jsonw_ns_as_us(w, kv->i);
        break;
    case DOC_KV_STR:
        jsonw_str(w, kv->str ? kv->str : "");
        break;
    }
}

static void json_evidence(struct jsonw *w, const struct doc_report *r, const struct doc_finding *f)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "trace");
    jsonw_str(w, r->traces[f->trace].path ? r->traces[f->trace].path : "");
    for (size_t i = 0; i < f->nkv; i++)
        if (!f->kv[i].group) json_kv(w, &f->kv[i]);
    for (size_t i = 0; i < f->nkv; i++) {
        const struct doc_kv *kv = &f->kv[i];
        if (kv->group != 1) continue;
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            if (f->kv[j].table && strcmp(f->kv[j].table, kv->table) == 0) seen = true;
        if (seen) continue;
        jsonw_key(w, kv->table);
        jsonw_arr_begin(w);
        int row = 0;
        for (size_t j = i; j < f->nkv; j++) {
            const struct doc_kv *k2 = &f->kv[j];
            if (!k2->table || strcmp(k2->table, kv->table) != 0) continue;
            if (k2->group != row) {
                if (row) jsonw_obj_end(w);
                jsonw_obj_begin(w);
                row = k2->group;
            }
            json_kv(w, k2);
        }
        if (row) jsonw_obj_end(w);
        jsonw_arr_end(w);
    }
    jsonw_key(w, "saving_method");
    jsonw_str(w, f->saving_method ? f->saving_method : "");
    jsonw_key(w, "examples");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < f->nex; k++) {
        const struct doc_example *e = &f->ex[k];
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, e->name);
        jsonw_key(w, "ts_us");
        jsonw_ns_as_us(w, e->ts);
        jsonw_key(w, "offset_us");
        jsonw_ns_as_us(w, e->offset);
        jsonw_key(w, "dur_us");
        jsonw_ns_as_us(w, e->dur);
        jsonw_key(w, "value_us");
        jsonw_ns_as_us(w, e->value);
        jsonw_key(w, "step");
        if (e->step >= 0)
            jsonw_i64(w, e->step);
        else
            jsonw_null(w);
        jsonw_key(w, "stream");
        if (e->stream >= 0)
            jsonw_i64(w, e->stream);
        else
            jsonw_null(w);
        jsonw_key(w, "tid");
        if (e->tid >= 0)
            jsonw_i64(w, e->tid);
        else
            jsonw_null(w);
        jsonw_key(w, "note");
        if (e->note)
            jsonw_str(w, e->note);
        else
            jsonw_null(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void json_pct(struct jsonw *w, const char *key, lat_ns x, lat_ns of)
{
    jsonw_key(w, key);
    jsonw_fixed(w, of > 0 ? 100.0 * (double)x / (double)of : 0.0, 2);
}

void doctor_write_json(const struct doc_report *r, const struct doc_opts *opt, struct jsonw *w)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "findings");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->n; i++) {
        const struct doc_finding *f = &r->f[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "id");
        jsonw_str(w, f->id);
        jsonw_key(w, "title");
        jsonw_str(w, f->title ? f->title : "");
        jsonw_key(w, "severity");
        jsonw_str(w, doctor_severity_name(f->severity));
        jsonw_key(w, "saving_us_per_step");
        jsonw_fixed(w, f->saving_us_per_step, 3);
        jsonw_key(w, "saving_pct");
        jsonw_fixed(w, f->saving_pct, 2);
        jsonw_key(w, "saving_bound");
        jsonw_str(w, doctor_bound_name(f->saving_bound));
        jsonw_key(w, "evidence");
        json_evidence(w, r, f);
        jsonw_key(w, "recommendation");
        jsonw_str(w, f->recommendation ? f->recommendation : "");
        jsonw_key(w, "next_step");
        jsonw_str(w, f->next_step ? f->next_step : "");
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "verdict");
    jsonw_str(w, doctor_max_severity(r) >= (int)DOC_SEV_LOW ? "findings"
                 : doctor_any_unjudged(r)                   ? "no rule applies"
                                                            : "no significant finding");
    jsonw_key(w, "traces");
    jsonw_arr_begin(w);
    for (size_t t = 0; t < r->ntraces; t++) {
        const struct doc_summary *s = &r->traces[t];
        jsonw_obj_begin(w);
        jsonw_key(w, "path");
        jsonw_str(w, s->path ? s->path : "");
        jsonw_key(w, "format");
        jsonw_str(w, s->format ? s->format : "");
        jsonw_key(w, "rank");
        if (s->rank >= 0)
            jsonw_i64(w, s->rank);
        else
            jsonw_null(w);
        jsonw_key(w, "steps");
        jsonw_u64(w, s->nsteps);
        jsonw_key(w, "steps_from_profilerstep");
        jsonw_bool(w, s->steps_real);
        jsonw_key(w, "step_mean_us");
        jsonw_ns_as_us(w, s->step_mean);
        jsonw_key(w, "step_median_us");
        jsonw_ns_as_us(w, s->step_median);
        jsonw_key(w, "step_p90_us");
        jsonw_ns_as_us(w, s->step_p90);
        jsonw_key(w, "step_max_us");
        jsonw_ns_as_us(w, s->step_max);
        jsonw_key(w, "gpu_busy_us_per_step");
        jsonw_ns_as_us(w, s->gpu_busy);
        json_pct(w, "gpu_busy_pct", s->gpu_busy, s->step_mean);
        json_pct(w, "kernel_pct", s->kernel, s->step_mean);
        json_pct(w, "gpu_idle_pct", s->idle, s->step_mean);
        json_pct(w, "host_wait_idle_pct", s->host_idle, s->step_mean);
        json_pct(w, "sync_idle_pct", s->sync_bubble, s->step_mean);
        json_pct(w, "dataloader_pct", s->dataloader, s->step_mean);
        json_pct(w, "memcpy_exposed_pct", s->memcpy_exposed, s->step_mean);
        json_pct(w, "comm_exposed_pct", s->comm_exposed, s->step_mean);
        jsonw_key(w, "kernels_per_step");
        jsonw_fixed(w, s->kernels_per_step, 1);
        jsonw_key(w, "short_kernel_pct");
        jsonw_fixed(w, s->short_kernel_pct, 2);
        jsonw_key(w, "graph_launches");
        jsonw_u64(w, s->graph_launches);
        jsonw_key(w, "gpu_events");
        jsonw_u64(w, s->gpu_events);
        jsonw_key(w, "cpu_events");
        jsonw_u64(w, s->cpu_events);
        jsonw_key(w, "judged");
        jsonw_bool(w, s->judged);
        jsonw_key(w, "what");
        if ((s->judged && !s->service) || !s->what)
            jsonw_null(w);
        else
            jsonw_str(w, s->what);
        if (s->service) { /* a bench result: the step and GPU keys above are 0, not measured */
            jsonw_key(w, "service");
            jsonw_bool(w, true);
        }
        jsonw_key(w, "rule_families");
        jsonw_arr_begin(w);
        struct doc_family_use fu[8];
        size_t nf = doctor_families(s, fu, 8);
        for (size_t i = 0; i < nf; i++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "family");
            jsonw_str(w, fu[i].name);
            jsonw_key(w, "ran");
            jsonw_bool(w, fu[i].ran);
            jsonw_key(w, "why_not");
            if (fu[i].ran)
                jsonw_null(w);
            else
                jsonw_str(w, fu[i].why);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_key(w, "hta");
        if (s->hta.valid) {
            const struct doc_hta *h = &s->hta;
            jsonw_obj_begin(w);
            jsonw_key(w, "idle_pct");
            if (h->temporal_valid)
                jsonw_fixed(w, h->idle_pct, 2);
            else
                jsonw_null(w);
            jsonw_key(w, "compute_pct");
            if (h->temporal_valid)
                jsonw_fixed(w, h->compute_pct, 2);
            else
                jsonw_null(w);
            jsonw_key(w, "non_compute_pct");
            if (h->temporal_valid)
                jsonw_fixed(w, h->non_compute_pct, 2);
            else
                jsonw_null(w);
            jsonw_key(w, "kernel_time_us");
            jsonw_ns_as_us(w, h->kernel_time);
            jsonw_key(w, "host_wait_us");
            jsonw_ns_as_us(w, h->host_wait);
            jsonw_key(w, "kernel_wait_us");
            jsonw_ns_as_us(w, h->kernel_wait);
            jsonw_key(w, "other_idle_us");
            jsonw_ns_as_us(w, h->other_idle);
            jsonw_key(w, "comm_comp_overlap_pct");
            if (h->has_comm)
                jsonw_fixed(w, h->comm_comp_overlap_pct, 2);
            else
                jsonw_null(w);
            jsonw_key(w, "launches");
            jsonw_u64(w, h->launches);
            jsonw_key(w, "short_kernels");
            jsonw_u64(w, h->short_kernels);
            jsonw_key(w, "median_launch_delay_us");
            jsonw_ns_as_us(w, h->median_launch_delay);
            jsonw_obj_end(w);
        } else {
            jsonw_null(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "skipped");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nskipped; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "path");
        jsonw_str(w, r->skipped[i].path);
        jsonw_key(w, "status");
        jsonw_str(w, r->skipped[i].status);
        jsonw_key(w, "reason");
        jsonw_str(w, r->skipped[i].reason);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    if (opt) {
        jsonw_key(w, "thresholds");
        jsonw_obj_begin(w);
        size_t nth;
        const struct doc_threshold_desc *ds = doctor_thresholds(&nth);
        for (size_t i = 0; i < nth; i++) {
            jsonw_key(w, ds[i].key);
            const char *p = (const char *)&opt->th + ds[i].offset;
            if (ds[i].kind == DOC_TH_US)
                jsonw_ns_as_us(w, *(const lat_ns *)(const void *)p);
            else if (ds[i].kind == DOC_TH_INT)
                jsonw_i64(w, *(const int64_t *)(const void *)p);
            else
                jsonw_double(w, *(const double *)(const void *)p, 6);
        }
        jsonw_obj_end(w);
    }
    lat_build_json(w); /* last: "findings" stays the first member */
    jsonw_obj_end(w);
}
