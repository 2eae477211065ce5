/*
 * cmd-analyze.c - `latscope analyze`: where the time goes in a PyTorch/Kineto or Chrome trace.
 *
 * Loads every TRACE (a file, or a directory of per-rank files) with the ingest readers, treats
 * them together as the ranks of one job (HTA's rank alignment and last-step filtering apply
 * across them), runs analysis_run() and prints a compact text report or one JSON document
 * (docs/analyze-json.md). Metadata values are never printed. Progress goes to stderr only
 * when it is a TTY and the load has taken more than a second.
 */
#define PR_FMT "analyze"
#include "analyze/analysis.h"
#include "analyze/memtl.h"
#include "analyze/render.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/units.h"
#include "export/kineto_write.h"
#include "ingest/ingest.h"
#include "latscope.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static const char usage_text[] =
    "usage: latscope analyze [OPTIONS] TRACE|DIR...\n"
    "\n"
    "Where the time goes in PyTorch profiler (Kineto) and Chrome traces: temporal and idle\n"
    "breakdowns, kernel types, comm/compute overlap, launch statistics, steps, top operators,\n"
    "memory copies, synchronisations and queue length. Several TRACEs (or a DIR of per-rank\n"
    "files) are analysed as the ranks of one job. GPU analyses follow Holistic Trace Analysis;\n"
    "operator tables equal torch's prof.key_averages(). Times are the trace's exact ns.\n"
    "\n";

static const char footer_text[] =
    "exit status: 0 ok, 1 analysis failed or no trace has --rank N, 2 usage error or an input\n"
    "that cannot be loaded (a bad file inside a DIR is skipped with a warning)\n";

enum {
    OPT_FORMAT,
    OPT_HTA,
    OPT_RANK,
    OPT_TOP,
    OPT_BY_SHAPE,
    OPT_LAST_STEP,
    OPT_NO_NS_ROUNDING,
    OPT_THREADS,
    OPT_PRETTY,
    OPT_WRITE_TRACE,
    OPT_CRITICAL_PATH,
    OPT_NO_CRITICAL_PATH,
    OPT_KSEQ,
    OPT_KSEQ_MIN,
    OPT_MEMRAW,
};

static const struct cli_opt options[] = {
    {"format", 0, "text|json", OPT_FORMAT, 0, "output format (default text)"},
    {"hta-compat", 0, NULL, OPT_HTA, 0,
     "HTA's own numbers: its ns rounding of timestamps (ceil start,\n"
     "floor end, in us), its rule that always drops the last step,\n"
     "launch stats of CUDA/MTIA launches only, Triton cpu_ops with\n"
     "args.stream as GPU rows (operator tables stay exact)"},
    {"rank", 0, "N", OPT_RANK, 0, "analyse only rank N"},
    {"top", 0, "N", OPT_TOP, 0, "rows in the top-N tables (default 10)"},
    {"group-by-input-shape", 0, NULL, OPT_BY_SHAPE, 0,
     "text: the op table per (op, input shape), as\n"
     "key_averages(group_by_input_shape=True) (always in the JSON)"},
    {"include-last-step", 0, NULL, OPT_LAST_STEP, 0,
     "keep the last ProfilerStep even when it is dropped (by default\n"
     "only when the trace shows it incomplete; always with --hta-compat)"},
    {"no-ns-rounding", 0, NULL, OPT_NO_NS_ROUNDING, 0,
     "with --hta-compat: keep ns timestamps exact\n"
     "(HTA_DISABLE_NS_ROUNDING=1); without it times are never rounded"},
    {"threads", 0, "N", OPT_THREADS, 0,
     "threads for loading rank files and for the analyses, 1..8\n"
     "(default: one per CPU; 1: all on one thread, gzip too); the\n"
     "numbers do not depend on it"},
    {"critical-path", 0, "NAME[:INSTANCE]", OPT_CRITICAL_PATH, CLI_OPTVAL,
     "HTA's critical path (graph of CPU ops, launches, kernels, syncs;\n"
     "its longest path by bound type and op) of each ProfilerStep, or\n"
     "of the INSTANCE-th (default 0) row whose name contains NAME\n"
     "(HTA's annotation/instance_id; '' = the whole trace). A next\n"
     "argument starting with '-' or naming an existing file is not NAME"},
    {"no-critical-path", 0, NULL, OPT_NO_CRITICAL_PATH, 0, "cancel an earlier --critical-path"},
    {"kernel-sequences", 0, "OP", OPT_KSEQ, 0,
     "frequent kernel sequences of the ops whose name contains OP\n"
     "(HTA's operator_name: those at the smallest call depth; default:\n"
     "the outermost aten:: ops)"},
    {"min-pattern-len", 0, "N", OPT_KSEQ_MIN, 0,
     "kernels an op must launch to count (HTA's min_pattern_len, default 3)"},
    {"memory-timeline", 0, "RAW", OPT_MEMRAW, 0,
     "instead of traces: summarise torch's export_memory_timeline raw\n"
     "file ([time, action, bytes, category] rows, .gz or not) as HTA's\n"
     "memory timeline: points, peak per category and in total"},
    {"pretty", 0, NULL, OPT_PRETTY, 0, "indent the JSON"},
    {"write-trace", 0, "FILE", OPT_WRITE_TRACE, 0,
     "also write the trace with HTA's counter tracks added (Queue\n"
     "Length per stream, Memcpy BW per copy group; Perfetto shows\n"
     "them) as Kineto JSON (.gz by suffix); one trace only"},
    {0},
};

struct analyze_args {
    enum lat_format fmt;
    struct analysis_opts ao;
    bool pretty, by_shape;
    const char *write_trace;
    const char *memraw; /* --memory-timeline RAW */
    char *cp_name;      /* --critical-path NAME (owned) */
};

/* NAME[:INSTANCE]: the instance is the digits after the last ':' when that ':' is not part of
 * a '::' (aten::mm stays a name). *name is allocated. -1 on a bad instance. */
static int parse_cp_spec(const char *spec, char **name, int64_t *instance)
{
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    *instance = 0;
    if (colon && colon[1] && (colon == spec || colon[-1] != ':')) {
        const char *d = colon + 1;
        bool digits = true;
        for (const char *q = d; *q; q++)
            if (*q < '0' || *q > '9') digits = false;
        if (digits) {
            errno = 0;
            char *end;
            long long v = strtoll(d, &end, 10);
            if (errno || *end || v < 0 || v > INT32_MAX) return -1;
            *instance = v;
            len = (size_t)(colon - spec);
        }
    }
    free(*name);
    *name = xcalloc(len + 1, 1);
    memcpy(*name, spec, len);
    return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

static int on_opt(void *ctx, int id, const char *val)
{
    struct analyze_args *a = ctx;
    long long v;
    switch (id) {
    case OPT_FORMAT:
        if (lat_parse_format(val, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON, &a->fmt)) {
            pr_err("--format wants text or json, not '%s'\n", val);
            return -1;
        }
        return 0;
    case OPT_HTA:
        a->ao.hta_compat = true;
        return 0;
    case OPT_LAST_STEP:
        a->ao.include_last_step = true;
        return 0;
    case OPT_NO_NS_ROUNDING:
        a->ao.ns_rounding = false;
        return 0;
    case OPT_BY_SHAPE:
        a->by_shape = true;
        return 0;
    case OPT_PRETTY:
        a->pretty = true;
        return 0;
    case OPT_CRITICAL_PATH:
        /* alone: each ProfilerStep; with a value: NAME[:INSTANCE] */
        if (val && parse_cp_spec(val, &a->cp_name, &a->ao.cp_instance) < 0) {
            pr_err("--critical-path '%s': INSTANCE must be a number 0..%d\n", val, INT32_MAX);
            return -1;
        }
        a->ao.cp_annotation = val ? a->cp_name : NULL;
        a->ao.critical_path = true;
        return 0;
    case OPT_NO_CRITICAL_PATH:
        a->ao.critical_path = false;
        a->ao.cp_annotation = NULL;
        return 0;
    case OPT_KSEQ:
        if (!*val) {
            pr_err("--kernel-sequences needs an operator name (e.g. aten::linear)\n");
            return -1;
        }
        a->ao.kseq_operator = val;
        return 0;
    case OPT_MEMRAW:
        if (!*val) {
            pr_err("--memory-timeline needs a file name\n");
            return -1;
        }
        a->memraw = val;
        return 0;
    case OPT_KSEQ_MIN:
        if (cli_int("analyze", "min-pattern-len", val, 1, 1000000, &v)) return -1;
        a->ao.kseq_min_len = (size_t)v;
        return 0;
    case OPT_WRITE_TRACE:
        if (!*val) {
            pr_err("--write-trace needs a file name\n");
            return -1;
        }
        a->write_trace = val;
        a->ao.counters = true;
        return 0;
    case OPT_RANK:
        if (cli_int("analyze", "rank", val, 0, INT32_MAX, &v)) return -1;
        a->ao.only_rank = (int32_t)v;
        return 0;
    case OPT_TOP:
        if (cli_int("analyze", "top", val, 1, 100000, &v)) return -1;
        a->ao.top_n = (size_t)v;
        return 0;
    case OPT_THREADS:
        if (cli_int("analyze", "threads", val, 1, 8, &v)) return -1;
        a->ao.threads = (unsigned)v;
        return 0;
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

struct progress {
    bool enabled, shown;
    lat_ns start;
    const char *what;
};

static void progress_line(struct progress *p, const char *msg)
{
    if (!p->enabled) return;
    if (!p->shown && clock_now_ns() - p->start < LAT_NS_PER_S) return;
    p->shown = true;
    fprintf(stderr, "\r\033[Kanalyze: %s", msg);
    fflush(stderr);
}

static void on_read(void *ctx, uint64_t done, uint64_t total)
{
    char msg[64];
    if (total)
        snprintf(msg, sizeof(msg), "reading %.0f/%.0f MB", (double)done / 1e6, (double)total / 1e6);
    else
        snprintf(msg, sizeof(msg), "reading %.0f MB", (double)done / 1e6);
    progress_line(ctx, msg);
}

static void on_analyze(void *ctx, double f)
{
    char msg[64];
    snprintf(msg, sizeof(msg), "analysing %.0f%%", 100.0 * f);
    progress_line(ctx, msg);
}

static void progress_done(struct progress *p)
{
    if (p->shown) fprintf(stderr, "\r\033[K");
    p->shown = false;
}

/* ---- output (src/analyze/render.c) -------------------------------------------------------- */

static void on_render_warn(void *ctx, const char *msg)
{
    (void)ctx;
    pr_warn("%s\n", msg);
}

static int print_json(const struct lat_analysis *a, bool pretty,
                      const struct analyze_render_opts *ro)
{
    struct jsonw w;
    jsonw_init(&w, stdout, pretty);
    analyze_write_json(&w, a, ro);
    if (!pretty) jsonw_raw(&w, "\n", 1);
    int rc = jsonw_finish(&w);
    jsonw_fini(&w);
    if (pretty) putchar('\n');
    return rc;
}

/* --write-trace: the one rank's trace with HTA's counter tracks added. */
static int write_trace(const struct lat_analysis *an, struct lat_trace *const *traces, size_t n,
                       const char *path)
{
    if (an->nranks != 1) {
        pr_err("--write-trace writes one trace: give one trace file (or --rank N), not %zu ranks\n",
               an->nranks);
        return LAT_E_USAGE;
    }
    const struct lat_an_rank *r = &an->ranks[0];
    struct lat_trace *t = NULL;
    for (size_t i = 0; i < n; i++)
        if (traces[i] == r->trace) t = traces[i]; /* the same trace, writable */
    size_t added = 0, cp_spans = 0, cp_flows = 0, cp_events = 0;
    int rc = t ? 0 : LAT_E_USAGE;
    if (!rc && r->ncritpath) rc = analysis_add_critpath(t, r, &cp_spans, &cp_flows, &cp_events);
    if (!rc) rc = analysis_add_counters(t, r, &added);
    struct kineto_write_opts wo = {.gzip = -1};
    if (!rc) rc = kineto_write_file(t, path, &wo);
    if (rc) {
        pr_err("--write-trace %s: %s\n", path, lat_strerror(rc));
        return rc;
    }
    pr_info("wrote %s: %zu counter events (%zu queue length, %zu memory bandwidth, %zu memory "
            "allocated)\n",
            path, added, r->nqueue_pts, r->nmembw_pts, r->nmem_pts);
    if (r->ncritpath)
        pr_info("wrote %s: critical path of %zu window(s): %zu critical events, %zu spans on its "
                "track, %zu flows\n",
                path, r->ncritpath, cp_events, cp_spans, cp_flows);
    return 0;
}

/* --memory-timeline RAW: HTA's MemoryAnalysis of an export_memory_timeline raw file. */
static int memory_timeline(const char *path, enum lat_format fmt, bool pretty)
{
    struct lat_memraw m;
    lat_memraw_init(&m);
    gzFile gz = gzopen(path, "rb"); /* plain files too */
    if (!gz) {
        pr_err("--memory-timeline %s: %s\n", path, strerror(errno ? errno : ENOMEM));
        return LAT_EXIT_FAILURE;
    }
    static char buf[1 << 16];
    int rc = 0, n;
    while ((n = gzread(gz, buf, sizeof(buf))) > 0)
        if ((rc = lat_memraw_feed(&m, buf, (size_t)n))) break;
    int zerr = 0;
    const char *zmsg = n < 0 ? gzerror(gz, &zerr) : NULL;
    gzclose(gz);
    if (!rc && zmsg) {
        pr_err("--memory-timeline %s: cannot read it (%s)\n", path, zmsg);
        lat_memraw_fini(&m);
        return LAT_EXIT_FAILURE;
    }
    if (!rc) rc = lat_memraw_finish(&m);
    if (rc) {
        pr_err("--memory-timeline %s: %s; give the file torch.profiler's "
               "export_memory_timeline(PATH.raw.json.gz) writes\n",
               path, rc == LAT_E_NOT_TRACE ? m.err : lat_strerror(rc));
        lat_memraw_fini(&m);
        return LAT_EXIT_FAILURE;
    }
    int64_t t0 = m.n ? m.times[0] : 0, tpeak = m.n ? m.times[m.peak_index] : 0;
    for (size_t i = 0; i < m.n; i++)
        if (m.times[i] < t0) t0 = m.times[i];
    if (fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, stdout, pretty);
        jsonw_obj_begin(&w);
        jsonw_key(&w, "memory_timeline_raw");
        jsonw_obj_begin(&w);
        jsonw_key(&w, "path");
        jsonw_str(&w, path);
        jsonw_key(&w, "rows");
        jsonw_u64(&w, m.rows);
        jsonw_key(&w, "points");
        jsonw_u64(&w, m.n);
        jsonw_key(&w, "start_time");
        jsonw_i64(&w, t0);
        jsonw_key(&w, "peak_total_bytes");
        jsonw_i64(&w, m.peak_total);
        jsonw_key(&w, "peak_index");
        jsonw_u64(&w, m.peak_index);
        jsonw_key(&w, "peak_time");
        jsonw_i64(&w, tpeak);
        jsonw_key(&w, "peak_after_start");
        jsonw_i64(&w, tpeak - t0);
        jsonw_key(&w, "categories");
        jsonw_arr_begin(&w);
        for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
            jsonw_obj_begin(&w);
            jsonw_key(&w, "name");
            jsonw_str(&w, lat_memraw_category(c));
            jsonw_key(&w, "peak_bytes");
            jsonw_i64(&w, m.peak[c]);
            jsonw_key(&w, "at_peak_bytes");
            jsonw_i64(&w, m.n ? m.sizes[m.peak_index][c] : 0);
            jsonw_key(&w, "final_bytes");
            jsonw_i64(&w, m.n ? m.sizes[m.n - 1][c] : 0);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
        jsonw_obj_end(&w);
        int jrc = jsonw_finish(&w);
        jsonw_fini(&w);
        putchar('\n');
        if (jrc) {
            pr_err("--memory-timeline: writing the JSON: %s\n", lat_strerror(jrc));
            lat_memraw_fini(&m);
            return LAT_EXIT_FAILURE;
        }
    } else {
        char b1[32], b2[32], b3[32];
        printf("memory timeline %s: %llu rows, %zu points over %.3f ms\n", path,
               (unsigned long long)m.rows, m.n, m.n ? (double)(m.times[m.n - 1] - t0) / 1e6 : 0.0);
        printf("peak %s at %.3f ms (point %zu)\n",
               units_format_bytes(m.peak_total > 0 ? (uint64_t)m.peak_total : 0, b1, 32),
               (double)(tpeak - t0) / 1e6, m.peak_index);
        printf("  category                 at peak         peak        final\n");
        for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
            int64_t at = m.n ? m.sizes[m.peak_index][c] : 0, fin = m.n ? m.sizes[m.n - 1][c] : 0;
            printf("  %-18s %12s %12s %12s\n", lat_memraw_category(c),
                   units_format_bytes(at > 0 ? (uint64_t)at : 0, b1, 32),
                   units_format_bytes(m.peak[c] > 0 ? (uint64_t)m.peak[c] : 0, b2, 32),
                   units_format_bytes(fin > 0 ? (uint64_t)fin : 0, b3, 32));
        }
    }
    lat_memraw_fini(&m);
    return LAT_EXIT_OK;
}

int cmd_analyze(int argc, char **argv, const struct lat_opts *opts)
{
    struct analyze_args args = {.fmt = LAT_FMT_TEXT};
    int ret = LAT_EXIT_FAILURE;
    analysis_opts_default(&args.ao);
    struct cli_spec spec = {"analyze", usage_text, footer_text, options, on_opt, &args, false};
    struct cli_result cr;
    int prc = cli_parse(&spec, argc, argv, &cr);
    if (prc == CLI_HELP) {
        cli_help(stdout, &spec);
        return LAT_EXIT_OK;
    }
    if (prc) {
        free(args.cp_name);
        return LAT_EXIT_USAGE;
    }
    if (getenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE") &&
        !strcmp(getenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"), "1"))
        args.ao.cp_zero_weight_launch = true; /* HTA's own switch, for comparing graph sizes */
    if (args.memraw) {
        free(args.cp_name);
        if (cr.npos) {
            pr_err("--memory-timeline reads the raw file alone: no trace argument with it\n");
            cli_result_fini(&cr);
            return LAT_EXIT_USAGE;
        }
        cli_result_fini(&cr);
        return memory_timeline(args.memraw, args.fmt, args.pretty);
    }
    if (!cr.npos) {
        free(args.cp_name);
        pr_err("no trace given: latscope analyze TRACE.json[.gz]|DIR...\n");
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    const char **inputs = cr.pos;
    size_t ninputs = cr.npos;
    enum lat_format fmt = args.fmt;
    struct analysis_opts ao = args.ao;
    bool pretty = args.pretty, by_shape = args.by_shape;
    char *cp_name = args.cp_name;

    if (lat_check_output("analyze", "--write-trace", args.write_trace, "nothing was read")) {
        free(inputs);
        free(cp_name);
        return LAT_EXIT_USAGE;
    }
    struct progress prog = {.enabled = opts->progress, .start = clock_now_ns()};
    struct lat_ingest_opts io = {.progress = on_read, .progress_ctx = &prog};
    if (ao.threads == 1) io.flags |= LAT_INGEST_NO_THREAD; /* everything on this thread */
    struct lat_ingest_set *set = lat_load_traces("analyze", inputs, ninputs, &io);
    progress_done(&prog);
    if (!set) {
        free(inputs);
        free(cp_name);
        return LAT_EXIT_USAGE;
    }
    struct lat_trace **traces = xcalloc(set->n, sizeof(*traces));
    struct analyze_skipped *skipped = xcalloc(set->n, sizeof(*skipped));
    size_t ntraces = 0, nskipped = 0;
    for (size_t i = 0; i < set->n; i++) {
        struct lat_ingest_file *f = &set->files[i];
        if (f->trace) {
            f->trace->rank = f->rank;
            traces[ntraces++] = f->trace;
        } else if (ingest_status_skipped(f->status)) {
            skipped[nskipped++] = (struct analyze_skipped){
                .path = f->path,
                .status = ingest_status_name(f->status),
                .reason = ingest_file_reason(f),
            };
        }
    }
    /* events the readers left out: one warning per trace (the JSON has them by reason) */
    for (size_t i = 0; i < ntraces; i++) {
        char why[640];
        if (lat_trace_drop_summary(traces[i], why, sizeof(why)))
            pr_warn("%s: %s\n", traces[i]->path ? traces[i]->path : "-", why);
    }
    /* files given one by one: a missing rank is its position among the timeline inputs; kernel
     * profiles (ncu) are no rank of the job: numbered after the ranks, never a duplicate */
    int32_t pos = 0, top = -1;
    for (size_t i = 0; i < ntraces; i++) {
        if (traces[i]->role != LAT_TRACE_TIMELINE) continue;
        if (traces[i]->rank < 0) traces[i]->rank = pos;
        pos++;
        if (traces[i]->rank > top) top = traces[i]->rank;
    }
    for (size_t i = 0; i < ntraces; i++)
        if (traces[i]->role != LAT_TRACE_TIMELINE && top < INT32_MAX) traces[i]->rank = ++top;
    for (size_t i = 0; i < ntraces; i++)
        for (size_t j = 0; j < i; j++)
            if (traces[i]->role == LAT_TRACE_TIMELINE && traces[j]->role == LAT_TRACE_TIMELINE &&
                traces[i]->rank == traces[j]->rank) {
                pr_err("%s and %s both have rank %d: give the ranks of one job\n",
                       traces[j]->path ? traces[j]->path : "?",
                       traces[i]->path ? traces[i]->path : "?", traces[i]->rank);
                ret = LAT_EXIT_USAGE;
                goto out;
            }

    ao.progress = on_analyze;
    ao.progress_arg = &prog;
    struct lat_analysis *an = NULL;
    lat_ns w0 = clock_now_ns(), c0 = clock_cpu_ns();
    int rc = analysis_run(traces, ntraces, &ao, &an);
    progress_done(&prog);
    pr_info("loaded %zu trace(s) in %.3f s; analyses took %.3f s wall, %.3f s cpu\n", ntraces,
            (double)(w0 - prog.start) / 1e9, (double)(clock_now_ns() - w0) / 1e9,
            (double)(clock_cpu_ns() - c0) / 1e9);
    if (rc == LAT_E_NOT_FOUND) {
        pr_err("no trace has rank %d\n", ao.only_rank);
        goto out;
    }
    if (rc < 0) {
        pr_err("analysis failed: %s\n", lat_strerror(rc));
        goto out;
    }
    if (ao.critical_path && ao.cp_annotation && *ao.cp_annotation) {
        bool found = false;
        uint64_t most = 0;
        for (size_t r = 0; r < an->nranks; r++) {
            found |= an->ranks[r].cp_found;
            if (an->ranks[r].cp_instances > most) most = an->ranks[r].cp_instances;
        }
        if (!found) {
            pr_err("--critical-path: no event name contains '%s' (give a user annotation or op "
                   "name from the trace, e.g. ProfilerStep, or '' for the whole trace)\n",
                   ao.cp_annotation);
            analysis_free(an);
            ret = LAT_EXIT_USAGE;
            goto out;
        }
        if ((uint64_t)ao.cp_instance >= most) {
            pr_err("--critical-path: '%s' has %llu instance(s) (0..%llu), not %lld\n",
                   ao.cp_annotation, (unsigned long long)most,
                   (unsigned long long)(most ? most - 1 : 0), (long long)ao.cp_instance);
            analysis_free(an);
            ret = LAT_EXIT_USAGE;
            goto out;
        }
    }
    if (args.write_trace && (rc = write_trace(an, traces, ntraces, args.write_trace)) < 0) {
        analysis_free(an);
        goto out;
    }
    struct analyze_render_opts ro = {.warn = on_render_warn,
                                     .skipped = skipped,
                                     .nskipped = nskipped,
                                     .group_by_input_shape = by_shape};
    if (fmt == LAT_FMT_JSON)
        rc = print_json(an, pretty, &ro);
    else
        analyze_format_text(stdout, an, &ro); /* a write error: main's stdout check */
    analysis_free(an);
    ret = rc < 0 ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
out:
    ingest_set_free(set); /* owns the traces */
    free(traces);
    free(skipped);
    free(inputs);
    free(cp_name);
    return ret;
}
