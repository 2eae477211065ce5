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
#include "analyze/render.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "latscope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "usage: latscope analyze [OPTIONS] TRACE|DIR...\n"
    "\n"
    "Where the time goes in PyTorch profiler (Kineto) and Chrome traces: temporal and idle\n"
    "breakdowns, kernel types, comm/compute overlap, launch statistics, steps, top operators,\n"
    "memory copies, synchronisations and queue length. Several TRACEs (or a DIR of per-rank\n"
    "files) are analysed as the ranks of one job. GPU analyses follow Holistic Trace Analysis;\n"
    "operator tables equal torch's prof.key_averages(). Times are the trace's exact ns.\n"
    "\n"
    "options:\n"
    "  --format text|json    output format (default text)\n"
    "  --hta-compat          HTA's own numbers: its ns rounding of timestamps (ceil start,\n"
    "                        floor end, in us), its rule that always drops the last step,\n"
    "                        launch stats of CUDA/MTIA launches only, Triton cpu_ops with\n"
    "                        args.stream as GPU rows (operator tables stay exact)\n"
    "  --rank N              analyse only rank N\n"
    "  --top N               rows in the top-N tables (default 10)\n"
    "  --group-by-input-shape  text: the op table per (op, input shape), as\n"
    "                        key_averages(group_by_input_shape=True) (always in the JSON)\n"
    "  --include-last-step   keep the last ProfilerStep even when it is dropped (by default\n"
    "                        only when the trace shows it incomplete; always with --hta-compat)\n"
    "  --no-ns-rounding      with --hta-compat: keep ns timestamps exact\n"
    "                        (HTA_DISABLE_NS_ROUNDING=1); without it times are never rounded\n"
    "  --threads N           threads for loading rank files and for the analyses, 1..8\n"
    "                        (default: one per CPU; 1: all on one thread, gzip too); the\n"
    "                        numbers do not depend on it\n"
    "  --critical-path [NAME[:INSTANCE]]\n"
    "                        HTA's critical path (graph of CPU ops, launches, kernels, syncs;\n"
    "                        its longest path by bound type and op) of each ProfilerStep, or\n"
    "                        of the INSTANCE-th (default 0) row whose name contains NAME\n"
    "                        (HTA's annotation/instance_id; '' = the whole trace). A next\n"
    "                        argument starting with '-' or naming an existing file is not NAME\n"
    "  --no-critical-path    cancel an earlier --critical-path\n"
    "  --pretty              indent the JSON\n"
    "  -h, --help            this help\n"
    "\n"
    "exit status: 0 ok, 1 analysis failed or no trace has --rank N, 2 usage error or an input\n"
    "that cannot be loaded (a bad file inside a DIR is skipped with a warning)\n";

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

/* ---- main ---------------------------------------------------------------------------------- */

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

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
        for (const char *p = d; *p; p++)
            if (*p < '0' || *p > '9') digits = false;
        if (digits) {
            long long v;
            if (!parse_int(d, 0, INT32_MAX, &v)) return -1;
            *instance = v;
            len = (size_t)(colon - spec);
        }
    }
    free(*name);
    *name = xcalloc(len + 1, 1);
    memcpy(*name, spec, len);
    return 0;
}

int cmd_analyze(int argc, char **argv, const struct lat_opts *opts)
{
    enum lat_format fmt = LAT_FMT_TEXT;
    struct analysis_opts ao;
    bool pretty = false, by_shape = false, no_cp = false;
    char *cp_name = NULL;
    const char **inputs = xcalloc((size_t)argc, sizeof(*inputs));
    size_t ninputs = 0;
    int ret = LAT_EXIT_FAILURE;

    analysis_opts_default(&ao);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long v;
        if (lat_is_help(a)) {
            fputs(usage_text, stdout);
            free(inputs);
            return LAT_EXIT_OK;
        } else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            const char *val = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (lat_parse_format(val, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON, &fmt)) {
                pr_err("--format wants text or json, not '%s'\n", val ? val : "");
                goto usage;
            }
        } else if (!strcmp(a, "--hta-compat")) {
            ao.hta_compat = true;
        } else if (!strcmp(a, "--include-last-step")) {
            ao.include_last_step = true;
        } else if (!strcmp(a, "--no-ns-rounding")) {
            ao.ns_rounding = false;
        } else if (!strcmp(a, "--group-by-input-shape")) {
            by_shape = true;
        } else if (!strcmp(a, "--critical-path") || !strncmp(a, "--critical-path=", 16)) {
            /* --critical-path alone: each ProfilerStep; =SPEC or a next argument that is not
             * an option, "-" (stdin) or an existing file or directory: NAME[:INSTANCE] */
            const char *val = a[15] == '=' ? a + 16 : NULL;
            struct stat st;
            if (!val && i + 1 < argc && argv[i + 1][0] != '-' && stat(argv[i + 1], &st) != 0)
                val = argv[++i];
            if (val && parse_cp_spec(val, &cp_name, &ao.cp_instance) < 0) {
                pr_err("--critical-path '%s': INSTANCE must be a number 0..%d\n", val, INT32_MAX);
                goto usage;
            }
            ao.cp_annotation = val ? cp_name : NULL;
            ao.critical_path = true;
            no_cp = false;
        } else if (!strcmp(a, "--no-critical-path")) {
            ao.critical_path = false;
            no_cp = true;
        } else if (!strcmp(a, "--pretty")) {
            pretty = true;
        } else if (!strcmp(a, "--rank") || !strcmp(a, "--top") || !strcmp(a, "--threads")) {
            char which = a[3]; /* 'a' rank, 'o' top, 'h' threads */
            long long lo = which == 'a' ? 0 : 1;
            long long hi = which == 'a' ? INT32_MAX : which == 'o' ? 100000 : 8;
            if (i + 1 >= argc || !parse_int(argv[i + 1], lo, hi, &v)) {
                pr_err("%s wants a number (%lld..%lld)\n", a, lo, hi);
                goto usage;
            }
            i++;
            if (which == 'a')
                ao.only_rank = (int32_t)v;
            else if (which == 'o')
                ao.top_n = (size_t)v;
            else
                ao.threads = (unsigned)v;
        } else if (a[0] == '-' && a[1]) {
            pr_err("unknown option '%s'\n", a);
            goto usage;
        } else {
            inputs[ninputs++] = a;
        }
    }
    if (no_cp) {
        ao.critical_path = false;
        ao.cp_annotation = NULL;
    }
    if (getenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE") &&
        !strcmp(getenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"), "1"))
        ao.cp_zero_weight_launch = true; /* HTA's own switch, for comparing graph sizes */
    if (!ninputs) {
        pr_err("no trace given: latscope analyze TRACE.json[.gz]|DIR...\n");
        goto usage;
    }

    struct progress prog = {.enabled = opts->progress, .start = clock_now_ns()};
    struct lat_ingest_opts io = {.progress = on_read, .progress_ctx = &prog};
    if (ao.threads == 1) io.flags |= LAT_INGEST_NO_THREAD; /* everything on this thread */
    struct lat_ingest_set *set = lat_load_traces("analyze", inputs, ninputs, &io);
    progress_done(&prog);
    if (!set) {
        free(inputs);
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
    /* files given one by one: a missing rank is its position among the inputs */
    for (size_t i = 0; i < ntraces; i++)
        if (traces[i]->rank < 0) traces[i]->rank = (int32_t)i;
    for (size_t i = 0; i < ntraces; i++)
        for (size_t j = 0; j < i; j++)
            if (traces[i]->rank == traces[j]->rank) {
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
usage:
    free(inputs);
    free(cp_name);
    fputs("usage: latscope analyze [OPTIONS] TRACE|DIR...  (--help for details)\n", stderr);
    return LAT_EXIT_USAGE;
}
