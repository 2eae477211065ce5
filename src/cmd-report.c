/*
 * cmd-report.c - `latscope report`: one self-contained HTML file from traces, bench results and
 * HDR interval logs (docs/latscope-report.md).
 *
 * Each INPUT becomes a page. The kind is decided by content: a gzip file or a JSON document
 * with traceEvents (or anything else ingest reads) is a trace (a directory: the per-rank traces
 * of one job); a JSON object with "points" is a `latscope bench --format json` result; a text
 * file of HdrHistogram interval-log lines is an HDR log; `bench --records` (--records-detail)
 * JSONL is a records page (errors, completions and LLM tokens per second). Two inputs of a kind
 * also get a diff page: the `latscope diff --format json` document (src/diff/json.c). With
 * --format svg, one plot of one input (src/report/svg.c). A trace page embeds the analyze JSON
 * document (src/analyze/render.c), the field tables that describe its rows, the doctor JSON and
 * the timeline with its level-of-detail bins (src/report/timeline.c). The page's script and
 * styles are inlined (src/report/report.html, report.js); nothing is fetched when it opens.
 */
#define PR_FMT "report"
#include "analyze/analysis.h"
#include "analyze/render.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/redact.h"
#include "diff/diff.h"
#include "doctor/doctor.h"
#include "hist/hist.h"
#include "hist/hlog.h"
#include "ingest/ingest.h"
#include "latscope.h"
#include "report/bench.h"
#include "report/hlog.h"
#include "report/html.h"
#include "report/page.h"
#include "report/records.h"
#include "report/svg.h"
#include "report/timeline.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "usage: latscope report [OPTIONS] INPUT... -o report.html\n"
    "       latscope report --format svg --plot NAME INPUT -o plot.svg\n"
    "\n"
    "One self-contained HTML file (no network needed to open it) with a page per INPUT:\n"
    "  trace (Kineto/Chrome JSON[.gz], or a DIR of per-rank traces): timeline of CPU threads,\n"
    "      GPU streams and annotations (zoom, pan, search), per-step, temporal and idle\n"
    "      breakdowns, top kernels/operators with the op->kernel mapping, doctor findings;\n"
    "  bench result (latscope bench --format json): latency by percentile (intended vs actual\n"
    "      send), latency and throughput vs load with the SLO and knee, LLM TTFT/ITL/TPOT;\n"
    "  HDR interval log (latscope bench --hdr-log): whole-run percentile curves per tag,\n"
    "      latency and throughput over time;\n"
    "  bench --records JSONL: completions and errors per second, error classes, LLM\n"
    "      output tokens/s over time.\n"
    "Two inputs of a kind also get a diff page (latscope diff of the first and each later one).\n"
    "\n";

enum { OPT_OUTPUT, OPT_TITLE, OPT_TOP, OPT_FORMAT, OPT_PLOT };

static const struct cli_opt options[] = {
    {"output", 'o', "FILE", OPT_OUTPUT, 0, "the HTML file to write (default report.html)"},
    {"title", 0, "TEXT", OPT_TITLE, 0, "page title (default: the first input's name)"},
    {"top", 0, "N", OPT_TOP, 0, "rows in the top-N tables (default 10)"},
    {"format", 0, "html|svg", OPT_FORMAT, 0,
     "html (default): the report; svg: one plot, with --plot NAME, of one\n"
     "INPUT, written to -o (default plot.svg)"},
    {"plot", 0, "NAME", OPT_PLOT, 0,
     "percentiles: latency by percentile per load point, intended and\n"
     "  actual send (bench JSON, HDR log or --records JSONL)\n"
     "load: p50 and p99 latency vs achieved throughput (bench JSON sweep)\n"
     "steps: per-step breakdown: compute/comm/copies/gpu-other/cpu-only/\n"
     "  idle (a trace with ProfilerSteps; the first rank)"},
    {0},
};

struct report_args {
    const char *out, *title, *plot;
    bool svg;
    size_t top_n;
};

static int on_opt(void *ctx, int id, const char *v)
{
    struct report_args *a = ctx;
    long long n;
    if (id != OPT_TOP && !*v) {
        pr_err("an option wants a value, not ''\n");
        return -1;
    }
    switch (id) {
    case OPT_OUTPUT:
        a->out = v;
        return 0;
    case OPT_TITLE:
        a->title = v;
        return 0;
    case OPT_TOP:
        if (cli_int("report", "top", v, 1, 100000, &n)) return -1;
        a->top_n = (size_t)n;
        return 0;
    case OPT_FORMAT:
        if (strcmp(v, "html") && strcmp(v, "svg")) {
            pr_err("--format wants html or svg, not '%s' (PNG: convert the SVG, e.g. with "
                   "rsvg-convert)\n",
                   v);
            return -1;
        }
        a->svg = !strcmp(v, "svg");
        return 0;
    case OPT_PLOT:
        if (strcmp(v, "percentiles") && strcmp(v, "load") && strcmp(v, "steps")) {
            pr_err("--plot wants percentiles, load or steps, not '%s'\n", v);
            return -1;
        }
        a->plot = v;
        return 0;
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

enum input_kind { IN_TRACE, IN_BENCH, IN_HLOG, IN_RECORDS };

struct ctx {
    struct jsonw w;
    size_t top_n;
    uint64_t events; /* timeline events over all pages */
};

/* The output file. A regular file (or a new one) is written to OUT.tmp and renamed over OUT
 * only when complete, so a failed run leaves an existing report as it was; anything else that
 * exists (/dev/stdout, a FIFO, /dev/full) is written in place: a rename would replace the
 * device node itself. Errors name OUT, the path the user gave, never the temporary. */
struct out_file {
    FILE *f;
    char tmp[4096]; /* "" when written in place */
};

static int out_open(struct out_file *o, const char *out)
{
    struct stat st;
    o->tmp[0] = '\0';
    if ((stat(out, &st) == 0 && !S_ISREG(st.st_mode)) ||
        (size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", out) >= sizeof(o->tmp))
        o->tmp[0] = '\0';
    o->f = fopen(o->tmp[0] ? o->tmp : out, "wb");
    return o->f ? 0 : -errno;
}

/* Closes the file (rc: the write's result so far), renames it into place; 0 or -errno. */
static int out_close(struct out_file *o, const char *out, int rc)
{
    errno = 0;
    if (fclose(o->f) != 0 && !rc) rc = errno ? -errno : -EIO;
    o->f = NULL;
    if (o->tmp[0]) {
        if (!rc && rename(o->tmp, out) != 0) rc = -errno;
        if (rc) remove(o->tmp);
    }
    return rc;
}

static const char *unit_name(enum lat_an_unit u)
{
    switch (u) {
    case LAT_AN_U_NS:
    case LAT_AN_U_NS_D:
        return "ns";
    case LAT_AN_U_PCT:
        return "pct";
    case LAT_AN_U_F3:
        return "f3";
    case LAT_AN_U_F6:
        return "f6";
    case LAT_AN_U_COUNT:
        return "count";
    case LAT_AN_U_BYTES:
        return "bytes";
    case LAT_AN_U_I64:
        return "i64";
    case LAT_AN_U_I32:
        return "i32";
    case LAT_AN_U_STR:
        return "str";
    case LAT_AN_U_BOOL:
        return "bool";
    case LAT_AN_U_KTYPE:
        return "ktype";
    }
    return "str";
}

/* The analyze field tables, so the page labels and formats columns as `analyze` does. */
static void write_fields(struct jsonw *w)
{
    static const struct {
        const char *name;
        const struct lat_an_table *t;
    } tabs[] = {
        {"temporal", &lat_an_temporal_table},    {"idle", &lat_an_idle_table},
        {"kernel_types", &lat_an_ktype_table},   {"queue", &lat_an_queue_table},
        {"steps", &lat_an_step_table},           {"top_ops", &lat_an_op_table},
        {"op_kernels", &lat_an_op_kernel_table}, {"aten_op_kernels", &lat_an_aten_table},
        {"top_kernels", &lat_an_kernel_table},   {"memcpy", &lat_an_memcpy_table},
        {"syncs", &lat_an_sync_table},
    };
    jsonw_obj_begin(w);
    for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
        jsonw_key(w, tabs[i].name);
        jsonw_arr_begin(w);
        for (size_t k = 0; k < tabs[i].t->nfields; k++) {
            const struct lat_an_field *f = &tabs[i].t->fields[k];
            jsonw_obj_begin(w);
            jsonw_key(w, "key");
            jsonw_str(w, f->key);
            jsonw_key(w, "label");
            jsonw_str(w, f->label);
            jsonw_key(w, "unit");
            jsonw_str(w, unit_name(f->unit));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    jsonw_obj_end(w);
}

/* Kind of a file by its first bytes: gzip -> trace; a JSON object whose top-level keys (in the
 * first 256 KiB) include "points" -> bench, "traceEvents" -> trace; '#' or HISTF lines -> hlog;
 * anything else: a trace (ingest says what is wrong with it). */
static enum input_kind sniff(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return IN_TRACE;
    static char head[262144];
    size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    if (n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b) return IN_TRACE;
    size_t i = 0;
    if (n >= 3 && !memcmp(head, "\xef\xbb\xbf", 3)) i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    if (i < n && head[i] == '#') return IN_HLOG;
    if (i < n && head[i] != '{' && head[i] != '[') {
        if (memmem(head, n, "HISTF", 5) || memmem(head, n, "StartTimestamp", 14)) return IN_HLOG;
        return IN_TRACE;
    }
    struct json_tok t;
    struct json_token tk;
    enum input_kind k = IN_TRACE;
    json_tok_init(&t, 0);
    json_tok_feed(&t, head + i, n - i);
    int rc;
    while ((rc = json_tok_next(&t, &tk)) == 1) {
        if (tk.type == JSON_KEY && tk.depth == 1) {
            if (tk.len == 11 && !memcmp(tk.s, "traceEvents", 11)) break;
            if (tk.len == 6 && !memcmp(tk.s, "points", 6)) {
                k = IN_BENCH;
                break;
            }
        }
    }
    json_tok_fini(&t);
    return k;
}

/* ---- trace pages --------------------------------------------------------------------------- */

static void on_warn(void *ctx, const char *msg)
{
    (void)ctx;
    pr_warn("%s\n", msg);
}

/* Doctor's findings of every trace, with the analysis of its rank. 0 or -ENOMEM. */
static int trace_doctor(struct lat_trace **traces, size_t ntraces, const struct lat_analysis *an,
                        const struct doc_opts *dopt, struct doc_report **out)
{
    struct doc_report *dr = NULL;
    if (doctor_report_new(&dr)) return -ENOMEM;
    for (size_t i = 0; i < ntraces; i++) {
        if (doctor_run(dr, traces[i], dopt) < 0) {
            doctor_report_free(dr);
            return -ENOMEM;
        }
        for (size_t r = 0; r < an->nranks; r++)
            if (an->ranks[r].trace == traces[i])
                doctor_add_analysis(dr, dr->ntraces - 1, &an->ranks[r]);
    }
    doctor_rank(dr);
    *out = dr;
    return 0;
}

/* The page object: the analyze JSON, its field tables, doctor's JSON, the first rank's
 * timeline. */
static void trace_page_write(struct jsonw *w, const char *path, const struct lat_analysis *an,
                             const struct doc_report *dr, const struct doc_opts *dopt,
                             const struct rep_tl *tl)
{
    rep_page_begin(w, "trace", path);
    jsonw_key(w, "analysis");
    struct analyze_render_opts ro = {.warn = on_warn};
    analyze_write_json(w, an, &ro);
    jsonw_key(w, "fields");
    write_fields(w);
    jsonw_key(w, "doctor");
    doctor_write_json(dr, dopt, w);
    jsonw_key(w, "timeline_rank");
    jsonw_i64(w, an->nranks ? an->ranks[0].rank : 0);
    jsonw_key(w, "timeline");
    if (tl && tl->nlanes)
        rep_tl_write_json(w, tl);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
}

/* Analysis, findings and timeline of the loaded traces, as a page. 0 or an exit code (said). */
static int trace_page_of(struct ctx *c, const char *path, struct lat_trace **traces, size_t ntraces)
{
    struct analysis_opts ao;
    analysis_opts_default(&ao);
    ao.top_n = c->top_n;
    struct lat_analysis *an = NULL;
    int rc = analysis_run(traces, ntraces, &ao, &an);
    if (rc < 0) {
        pr_err("%s: analysis failed: %s\n", path, lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    struct doc_opts dopt;
    doctor_opts_default(&dopt);
    struct doc_report *dr = NULL;
    struct rep_tl *tl = NULL;
    if (trace_doctor(traces, ntraces, an, &dopt, &dr) < 0) goto oom;
    /* the timeline shows the first rank */
    rc = rep_tl_build(an->nranks ? an->ranks[0].trace : traces[0], &tl);
    if (rc == LAT_E_OVERFLOW)
        pr_warn("%s: its events span more than 73 years: the page has no timeline\n", path);
    else if (rc < 0)
        goto oom;
    trace_page_write(&c->w, path, an, dr, &dopt, tl);
    if (tl) {
        c->events += tl->nevents;
        pr_info("%s: %zu rank(s), %zu finding(s), timeline of %zu events in %zu lanes, %zu LOD "
                "levels\n",
                path, an->nranks, dr->n, tl->nevents, tl->nlanes, tl->nlevels);
    }
    rep_tl_free(tl);
    doctor_report_free(dr);
    analysis_free(an);
    return 0;
oom:
    doctor_report_free(dr);
    analysis_free(an);
    pr_err("%s: out of memory\n", path);
    return LAT_EXIT_FAILURE;
}

/* A trace page: its input loaded as analyze and doctor load theirs (lat_load_traces: every
 * format of the ingest table, a directory's unusable file a warning and skipped); a named file
 * keeps its rank, -1 when it has none (analyze uses its position, doctor shows null). */
static int trace_page(struct ctx *c, const char *path)
{
    struct lat_ingest_set *set = lat_load_traces("report", &path, 1, NULL);
    if (!set) return LAT_EXIT_USAGE;
    size_t ntraces = 0;
    struct lat_trace **traces = lat_set_traces(set, &ntraces);
    int ret = trace_page_of(c, path, traces, ntraces);
    free(traces);
    ingest_set_free(set);
    return ret;
}

/* The bytes of a page's input (at most max), into b. 0 or an exit code (said). */
static int page_input(const char *path, size_t max, struct lat_buf *b)
{
    int rc = buf_read_file(b, path, max);
    if (rc < 0) {
        pr_err("%s: %s\n", path, lat_strerror(rc));
        buf_fini(b);
        return LAT_EXIT_USAGE;
    }
    return 0;
}

/* The exit code of a page a report module wrote: rc its return, err its message (which names
 * the file). */
static int page_done(const char *path, int rc, const char *err)
{
    if (rc == -ENOMEM) {
        pr_err("%s: %s\n", path, lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    if (rc) {
        pr_err("%s\n", err[0] ? err : lat_strerror(rc));
        return LAT_EXIT_USAGE;
    }
    return 0;
}

/* A page from a file a report module reads (hlog.c, records.c): its bytes handed to write(). */
static int module_page(struct ctx *c, const char *path, size_t max,
                       int (*write)(struct jsonw *w, const char *path, const char *doc, size_t len,
                                    char *err, size_t errsz))
{
    struct lat_buf b = LAT_BUF_INIT;
    int rc = page_input(path, max, &b);
    if (rc) return rc;
    char err[1024] = "";
    rc = write(&c->w, path, b.data ? b.data : "", b.len, err, sizeof(err));
    buf_fini(&b);
    return page_done(path, rc, err);
}

/* ---- bench results, HDR interval logs, bench --records JSONL (src/report/) ----------------- */

/* The bench page's "doctor" member: the service rules' findings on the same bytes, read by
 * diff's bench reader as `latscope doctor RESULT.json` reads them (diff_run_doctor), so the
 * page's first screen says what the CLI says; null, with a warning, when they cannot run. */
struct bench_doc {
    const struct doc_report *r;
    const struct doc_opts *o;
};

static void bench_doc_write(struct jsonw *w, void *ctx)
{
    const struct bench_doc *d = ctx;
    jsonw_key(w, "doctor");
    if (d->r)
        doctor_write_json(d->r, d->o, w);
    else
        jsonw_null(w);
}

static int bench_page(struct ctx *c, const char *path)
{
    struct lat_buf b = LAT_BUF_INIT;
    int rc = page_input(path, (size_t)1 << 30, &b);
    if (rc) return rc;
    struct doc_opts dopt;
    doctor_opts_default(&dopt);
    struct diff_run *dr = NULL;
    struct doc_report *r = NULL;
    char err[1024] = "";
    const char *doc = b.data ? b.data : "";
    int drc = diff_run_parse(path, DIFF_KIND_BENCH, doc, b.len, &dr, err, sizeof(err));
    if (!drc) drc = doctor_report_new(&r);
    if (!drc) drc = diff_run_doctor(r, dr);
    if (!drc) doctor_rank(r);
    struct bench_doc bd = {drc ? NULL : r, &dopt};
    char perr[1024] = "";
    rc = drc == -ENOMEM
             ? -ENOMEM
             : rep_bench_write(&c->w, path, doc, b.len, bench_doc_write, &bd, perr, sizeof(perr));
    if (!rc && drc) /* a page, but the rules could not read the result */
        pr_warn("%s: no doctor findings on the page: %s\n", path, err[0] ? err : lat_strerror(drc));
    doctor_report_free(r);
    diff_run_free(dr);
    buf_fini(&b);
    return page_done(path, rc, perr);
}

static int hlog_page(struct ctx *c, const char *path)
{
    return module_page(c, path, (size_t)1 << 31, rep_hlog_write);
}

static int records_page(struct ctx *c, const char *path)
{
    return module_page(c, path, (size_t)1 << 31, rep_records_write);
}

/* ---- diff pages: `latscope diff` of two inputs of a kind ------------------------------------ */

/* One side of a trace diff, loaded as `latscope diff` loads it (lat_load_ranked). */
struct dside {
    struct lat_trace **t;
    size_t n;
    struct lat_ingest_set *set;
};

static void dside_free(struct dside *s)
{
    free(s->t);
    if (s->set) ingest_set_free(s->set); /* it owns the traces */
}

static int dside_load(const char *path, struct dside *s, char *err, size_t errsz)
{
    char why[LAT_INGEST_ERRLEN] = "";
    s->set = lat_load_ranked("report", path, &s->t, &s->n, why, sizeof(why));
    if (!s->set) snprintf(err, errsz, "%s", why);
    return s->set ? 0 : -1;
}

/* The diff document of inputs a (before) and b (after) of one kind, as `latscope diff
 * --format json A B` prints it, into w. 0 (written), 1 (not comparable: err says why, nothing
 * written) or -ENOMEM. */
static int diff_doc(struct jsonw *w, enum input_kind kind, const char *a, const char *b, char *err,
                    size_t errsz)
{
    if (kind == IN_TRACE) {
        struct dside sa = {0}, sb = {0};
        int ret = 1;
        if (dside_load(a, &sa, err, errsz) || dside_load(b, &sb, err, errsz)) goto tout;
        struct diff_trace_opts to;
        diff_trace_opts_default(&to);
        struct diff_trace_result r;
        int rc = diff_trace_compare(sa.t, sa.n, sb.t, sb.n, &to, &r, err, errsz);
        if (rc == -ENOMEM) ret = rc;
        if (rc) goto tout;
        diff_trace_write_json(w, a, b, &to, &r, NULL);
        diff_trace_result_fini(&r);
        ret = 0;
    tout:
        dside_free(&sa);
        dside_free(&sb);
        return ret;
    }
    struct diff_run *ra = NULL, *rb = NULL;
    enum diff_kind ka, kb;
    int ret = 1;
    if (diff_sniff(a, &ka, err, errsz) || diff_sniff(b, &kb, err, errsz)) goto bout;
    if (ka != kb || ka == DIFF_KIND_TRACE) {
        snprintf(err, errsz, "%s is a %s, %s a %s", a, diff_kind_name(ka), b, diff_kind_name(kb));
        goto bout;
    }
    int rc = diff_run_load(a, ka, &ra, err, errsz);
    if (!rc) rc = diff_run_load(b, kb, &rb, err, errsz);
    if (rc == -ENOMEM) ret = rc;
    if (rc) goto bout;
    struct diff_bench_opts bo;
    diff_bench_opts_default(&bo);
    struct diff_bench_result res;
    rc = diff_bench_compare(&ra, 1, &rb, 1, &bo, &res, err, errsz);
    if (rc == -ENOMEM) ret = rc;
    if (rc) goto bout;
    diff_bench_write_json(w, &a, 1, &b, 1, &bo, &res, NULL);
    diff_bench_result_fini(&res);
    ret = 0;
bout:
    diff_run_free(ra);
    diff_run_free(rb);
    return ret;
}

/* "diffs": the first input of each kind (before) against every later one of that kind. */
static int write_diffs(struct ctx *c, const char *const *inputs, const enum input_kind *kinds,
                       size_t n)
{
    struct jsonw *w = &c->w;
    jsonw_key(w, "diffs");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        size_t first = 0;
        while (kinds[first] != kinds[i])
            first++;
        if (first == i) continue;
        char err[1024] = "";
        struct jsonw d;
        jsonw_init(&d, NULL, false);
        d.str_max = REP_STR_MAX;
        int rc = diff_doc(&d, kinds[i], inputs[first], inputs[i], err, sizeof(err));
        if (rc == 0 && jsonw_finish(&d) < 0) rc = -ENOMEM;
        if (rc < 0) {
            jsonw_fini(&d);
            pr_err("comparing %s with %s: %s\n", inputs[first], inputs[i], lat_strerror(rc));
            return LAT_EXIT_FAILURE;
        }
        jsonw_obj_begin(w);
        jsonw_key(w, "kind");
        jsonw_str(w, kinds[i] == IN_TRACE     ? "trace"
                     : kinds[i] == IN_BENCH   ? "bench"
                     : kinds[i] == IN_RECORDS ? "records"
                                              : "hlog");
        jsonw_key(w, "before_page");
        jsonw_u64(w, first);
        jsonw_key(w, "after_page");
        jsonw_u64(w, i);
        jsonw_key(w, "diff");
        if (rc == 0) {
            jsonw_raw(w, d.buf.data, d.buf.len);
            pr_info("diff page: %s -> %s\n", inputs[first], inputs[i]);
        } else {
            jsonw_null(w);
            pr_warn("no diff page for %s -> %s: %s\n", inputs[first], inputs[i], err);
        }
        jsonw_key(w, "error");
        if (rc == 0)
            jsonw_null(w);
        else
            jsonw_str(w, err);
        jsonw_obj_end(w);
        jsonw_fini(&d);
    }
    jsonw_arr_end(w);
    return LAT_EXIT_OK;
}

/* ---- --format svg: one plot ----------------------------------------------------------------- */

static const double plot_pcts[] = {50, 90, 95, 99, 99.9, 100}; /* stat[1..6]; 100 = max */

static int plot_bench(struct lat_buf *b, const char *plot, const char *in, char *err, size_t errsz)
{
    enum diff_kind k;
    struct diff_run *r = NULL;
    if (diff_sniff(in, &k, err, errsz)) return LAT_EXIT_USAGE;
    if (k == DIFF_KIND_TRACE) {
        snprintf(err, errsz,
                 "%s: --plot %s wants a bench result (bench --format json), an HDR log or "
                 "bench --records JSONL, and this is a trace (--plot steps draws traces)",
                 in, plot);
        return LAT_EXIT_USAGE;
    }
    int rc = diff_run_load(in, k, &r, err, errsz);
    if (rc) return rc == -ENOMEM ? LAT_EXIT_FAILURE : LAT_EXIT_USAGE;
    size_t np = r->npts, ns = 0;
    struct rep_svg_series *ss = xcalloc(2 * np + 2, sizeof(*ss));
    double *xs = xcalloc((2 * np + 2) * 6, sizeof(*xs)),
           *ys = xcalloc((2 * np + 2) * 6, sizeof(*ys));
    char(*names)[96] = xcalloc(2 * np + 2, sizeof(*names));
    struct rep_svg_chart c = {.hline = NAN, .yunit = "ms"};
    char title[512];
    if (!strcmp(plot, "percentiles")) {
        /* per point: intended-send latency (or the LLM end-to-end), and actual-send dashed */
        for (size_t i = 0; i < np; i++) {
            const struct diff_point *pt = &r->pts[i];
            enum diff_fam fams[2] = {DIFF_F_LAT, DIFF_F_LAT_ACT};
            if (isnan(pt->stat[DIFF_F_LAT][1]) && !isnan(pt->stat[DIFF_F_E2E][1]))
                fams[0] = DIFF_F_E2E, fams[1] = DIFF_F_E2E_SEND;
            for (int f = 0; f < 2; f++) {
                size_t have = 0;
                for (int q = 0; q < 6; q++) {
                    xs[ns * 6 + (size_t)q] = plot_pcts[q];
                    ys[ns * 6 + (size_t)q] = pt->stat[fams[f]][q + 1];
                    if (!isnan(ys[ns * 6 + (size_t)q])) have++;
                }
                if (!have) continue;
                snprintf(names[ns], sizeof(names[ns]), "%s%s", np > 1 ? pt->load : "",
                         f == 0 ? (fams[0] == DIFF_F_E2E ? " e2e" : " intended")
                                : (fams[0] == DIFF_F_E2E ? " e2e (send)" : " actual send"));
                ss[ns] = (struct rep_svg_series){names[ns] + (names[ns][0] == ' '), xs + ns * 6,
                                                 ys + ns * 6, 6, f == 1};
                ns++;
            }
        }
        snprintf(title, sizeof(title), "latency by percentile: %s", rep_base_name(in));
        c.xpct = true;
        c.xlabel = "percentile (log scale of 1/(1-q))";
        c.ylabel = "latency";
    } else { /* load */
        static const int qi[2] = {1, 4};
        static const char *const qn[2] = {"p50", "p99"};
        for (int q = 0; q < 2; q++) {
            for (size_t i = 0; i < np; i++) {
                xs[(size_t)q * np + i] = r->pts[i].scalar[DIFF_S_THROUGHPUT];
                enum diff_fam f = isnan(r->pts[i].stat[DIFF_F_LAT][1]) ? DIFF_F_E2E : DIFF_F_LAT;
                ys[(size_t)q * np + i] = r->pts[i].stat[f][qi[q]];
            }
            ss[ns++] =
                (struct rep_svg_series){qn[q], xs + (size_t)q * np, ys + (size_t)q * np, np, false};
        }
        snprintf(title, sizeof(title), "latency vs load: %s", rep_base_name(in));
        c.xlabel = "achieved throughput (req/s)";
        c.xunit = NULL;
        c.ylabel = "latency";
    }
    c.title = title;
    rc = rep_svg_lines(b, &c, ss, ns);
    free(ss);
    free(xs);
    free(ys);
    free(names);
    diff_run_free(r);
    return rc ? LAT_EXIT_FAILURE : 0;
}

/* The per-step plot of trace in: 0, an exit code with err, or -1 (said: the trace did not
 * load). */
static int plot_steps(struct lat_buf *b, const char *in, char *err, size_t errsz)
{
    struct stat st;
    if (!(stat(in, &st) == 0 && S_ISDIR(st.st_mode)) && sniff(in) != IN_TRACE) {
        snprintf(err, errsz, "%s: --plot steps wants a trace (or a directory of rank traces)", in);
        return LAT_EXIT_USAGE;
    }
    struct dside sd = {0};
    sd.set = lat_load_ranked("report", in, &sd.t, &sd.n, NULL, 0); /* its messages printed */
    if (!sd.set) return -1;
    struct analysis_opts ao;
    analysis_opts_default(&ao);
    struct lat_analysis *an = NULL;
    int rc = analysis_run(sd.t, sd.n, &ao, &an);
    if (rc < 0) {
        snprintf(err, errsz, "%s: analysis failed: %s", in, lat_strerror(rc));
        dside_free(&sd);
        return LAT_EXIT_FAILURE;
    }
    int ret = 0;
    const struct lat_an_rank *rk = an->nranks ? &an->ranks[0] : NULL;
    if (!rk || !rk->nsteps) {
        snprintf(err, errsz, "%s: no ProfilerStep in the trace: no step breakdown to plot%s%s", in,
                 an->warning[0] ? " (" : "", an->warning[0] ? an->warning : "");
        if (an->warning[0]) strncat(err, ")", errsz - strlen(err) - 1);
        ret = LAT_EXIT_USAGE;
    } else {
        static const char *const parts[] = {"compute",   "comm",     "copies",
                                            "gpu-other", "cpu-only", "idle"};
        size_t n = rk->nsteps;
        double *v = xcalloc(n * 6, sizeof(*v));
        char(*lab)[32] = xcalloc(n, sizeof(*lab));
        const char **labels = xcalloc(n, sizeof(*labels));
        for (size_t i = 0; i < n; i++) {
            const struct lat_an_step *s = &rk->steps[i];
            lat_ns p[6] = {s->gpu_compute, s->comm, s->copies, s->gpu_other, s->cpu_only, s->idle};
            for (int q = 0; q < 6; q++)
                v[i * 6 + (size_t)q] = (double)p[q] / 1e6;
            snprintf(lab[i], sizeof(lab[i]), "step %d", s->step);
            labels[i] = lab[i];
        }
        char title[512];
        snprintf(title, sizeof(title), "per-step breakdown (rank %d): %s", rk->rank,
                 rep_base_name(in));
        if (rep_svg_stacked(b, title, "ms", parts, 6, labels, v, n)) ret = LAT_EXIT_FAILURE;
        free(v);
        free(lab);
        free(labels);
    }
    analysis_free(an);
    dside_free(&sd);
    return ret;
}

static int svg_plot(const char *plot, const char *in, const char *out)
{
    struct lat_buf b = LAT_BUF_INIT;
    char err[1024] = "";
    int ret;
    if (!strcmp(plot, "percentiles") || !strcmp(plot, "load"))
        ret = plot_bench(&b, plot, in, err, sizeof(err));
    else
        ret = plot_steps(&b, in, err, sizeof(err));
    if (ret < 0) return LAT_EXIT_USAGE; /* said */
    if (ret) {
        pr_err("%s\n", err[0] ? err : "out of memory");
        buf_fini(&b);
        return ret;
    }
    struct out_file o;
    int rc = out_open(&o, out);
    if (!rc) {
        errno = 0;
        if (fwrite(b.data, 1, b.len, o.f) != b.len) rc = errno ? -errno : -EIO;
        rc = out_close(&o, out, rc);
    }
    if (rc) {
        pr_err("cannot write %s: %s\n", out, lat_strerror(rc));
        ret = LAT_EXIT_FAILURE;
    } else {
        fprintf(stderr, "latscope report: wrote %s: %s plot, %zu bytes\n", out, plot, b.len);
    }
    buf_fini(&b);
    return ret;
}

/* ---- main ---------------------------------------------------------------------------------- */

/* The page of each input, its kind decided by content (kinds[i]). The exit code. */
static int write_pages(struct ctx *c, const char *const *inputs, size_t ninputs,
                       enum input_kind *kinds)
{
    int ret = LAT_EXIT_OK;
    for (size_t i = 0; i < ninputs && ret == LAT_EXIT_OK; i++) {
        struct stat st;
        bool named = stat(inputs[i], &st) == 0; /* else a TensorRT engine prefix, or an error */
        if (!named && !ingest_trt_engine_prefix(inputs[i])) {
            pr_err("%s: %s\n", inputs[i], strerror(errno));
            return LAT_EXIT_USAGE;
        }
        bool trace = !named || S_ISDIR(st.st_mode);
        enum input_kind k = trace ? IN_TRACE : sniff(inputs[i]);
        enum diff_kind dk;
        char derr[256];
        if (k == IN_TRACE && !trace && diff_sniff(inputs[i], &dk, derr, sizeof(derr)) == 0 &&
            dk == DIFF_KIND_RECORDS)
            k = IN_RECORDS;
        kinds[i] = k;
        if (k == IN_BENCH)
            ret = bench_page(c, inputs[i]);
        else if (k == IN_HLOG)
            ret = hlog_page(c, inputs[i]);
        else if (k == IN_RECORDS)
            ret = records_page(c, inputs[i]);
        else
            ret = trace_page(c, inputs[i]);
    }
    return ret;
}

/* The page around the data c->w holds, written to out. The exit code. */
static int write_report(const struct ctx *c, const char *out, const char *title,
                        const char *const *inputs, size_t ninputs, lat_ns t0)
{
    struct out_file o;
    int rc = out_open(&o, out);
    if (rc) {
        pr_err("cannot write %s: %s\n", out, lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    char ttl[512];
    snprintf(ttl, sizeof(ttl), "latscope report: %s%s", title ? title : rep_base_name(inputs[0]),
             !title && ninputs > 1 ? " and more" : "");
    rc = rep_page_write(o.f, ttl, c->w.buf.data ? c->w.buf.data : "{}", c->w.buf.len);
    rc = out_close(&o, out, rc);
    if (rc) {
        pr_err("cannot write %s: %s\n", out, lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    struct stat so;
    double mb = stat(out, &so) == 0 ? (double)so.st_size / 1e6 : 0;
    fprintf(stderr,
            "latscope report: wrote %s: %.2f MB, %zu page(s), %llu timeline events, in "
            "%.2f s\n",
            out, mb, ninputs, (unsigned long long)c->events, (double)(clock_now_ns() - t0) / 1e9);
    return LAT_EXIT_OK;
}

/* The HTML report of the inputs: their pages, the diff pages, the file. The exit code. */
static int report_html(const struct report_args *args, const char *const *inputs, size_t ninputs)
{
    const char *out = args->out ? args->out : "report.html";
    enum input_kind *kinds = xcalloc(ninputs + 1, sizeof(*kinds));
    struct ctx c = {.top_n = args->top_n};
    lat_ns t0 = clock_now_ns();
    jsonw_init(&c.w, NULL, false);
    c.w.str_max = REP_STR_MAX;
    jsonw_obj_begin(&c.w);
    jsonw_key(&c.w, "tool");
    jsonw_str(&c.w, "latscope report");
    jsonw_key(&c.w, "version");
    jsonw_str(&c.w, lat_version);
    lat_build_json(&c.w);
    jsonw_key(&c.w, "pages");
    jsonw_arr_begin(&c.w);
    int ret = write_pages(&c, inputs, ninputs, kinds);
    jsonw_arr_end(&c.w);
    if (ret == LAT_EXIT_OK) ret = write_diffs(&c, inputs, kinds, ninputs);
    jsonw_obj_end(&c.w);
    int rc = jsonw_finish(&c.w);
    if (ret == LAT_EXIT_OK && rc < 0) {
        pr_err("building the report: %s\n", lat_strerror(rc));
        ret = LAT_EXIT_FAILURE;
    }
    if (ret == LAT_EXIT_OK) ret = write_report(&c, out, args->title, inputs, ninputs, t0);
    jsonw_fini(&c.w);
    free(kinds);
    return ret;
}

int cmd_report(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    struct report_args args = {.top_n = 10};
    struct cli_spec spec = {"report", usage_text, NULL, options, on_opt, &args, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    const char **inputs = cr.pos;
    size_t ninputs = cr.npos;
    int ret;
    if (!ninputs) {
        pr_err("no input given: latscope report TRACE|BENCH.json|RUN.hlog... -o report.html\n");
        ret = -1;
    } else if (args.svg || args.plot) {
        if (!args.svg || !args.plot || ninputs != 1) {
            pr_err("%s\n", !args.svg    ? "--plot draws SVG: add --format svg"
                           : !args.plot ? "--format svg wants --plot percentiles|load|steps"
                                        : "--format svg draws one INPUT");
            ret = -1;
        } else {
            ret = svg_plot(args.plot, inputs[0], args.out ? args.out : "plot.svg");
        }
    } else {
        ret = report_html(&args, inputs, ninputs);
    }
    free(inputs);
    if (ret < 0) {
        fputs("usage: latscope report [OPTIONS] INPUT... -o report.html  (--help for details)\n",
              stderr);
        return LAT_EXIT_USAGE;
    }
    return ret;
}
