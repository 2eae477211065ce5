/*
 * cmd-doctor.c - `latscope doctor`: ranked findings with evidence, savings and the next step.
 *
 * Loads each TRACE (a file, or a directory of per-rank traces) with the ingest readers, runs
 * the doctor's rules on every loaded trace (src/doctor/), ranks all findings by estimated
 * saving and prints them as text (coloured only on a TTY without NO_COLOR), JSON or markdown.
 * Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 on a usage, load or
 * write error (nothing is printed on stdout then), 3 when no finding reaches --fail-on and some
 * trace got no rule that applies to it (nothing in it was judged: not a clean bill).
 * The report is rendered in memory and written at the end with write(2), so that a write error
 * (a full disk, /dev/full, a closed pipe's EPIPE aside) is seen here and exits 2.
 */
#define PR_FMT "doctor"
#include "analyze/analysis.h"
#include "analyze/ncu.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/par.h"
#include "diff/diff.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"
#include "latscope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* No rule applies to (some) input: nothing judged, never a clean bill. */
#define DOCTOR_EXIT_UNJUDGED 3

static const char usage_text[] =
    "usage: latscope doctor [--format text|json|md] [--fail-on SEVERITY] [-o FILE]\n"
    "                       [--threshold KEY=VALUE]... TRACE...\n"
    "\n"
    "Reads PyTorch profiler (Kineto) / Chrome traces and reports why the workload is\n"
    "slow: ranked findings, each with its evidence (numbers and the worst instances with\n"
    "timestamps, step and stream), an estimated saving (an upper bound, per step and as\n"
    "% of the step), what to change (PyTorch / TensorRT / ONNX Runtime) and the next\n"
    "command to run. A clean trace gets \"no significant finding\" with its numbers.\n"
    "\n"
    "TRACE is a .json / .json.gz file or a directory of per-rank traces, or a bench result\n"
    "(latscope bench --format json): then the service rules judge its load points\n"
    "(listen-backlog, nagle-delayed-ack, client-limited, keepalive-churn, warm-up,\n"
    "periodic-stalls, error-burst, tail-amplification, queueing-knee, slow-request-code,\n"
    "server-split; the shape-over-time rules need bench --slice; docs/latscope-doctor.md).\n"
    "bench --doctor does the same right after a run.\n"
    "\n";

enum { OPT_FORMAT, OPT_FAIL_ON, OPT_OUTPUT, OPT_THRESHOLD };

static const struct cli_opt options[] = {
    {"format", 0, "text|json|md", OPT_FORMAT, 0,
     "output format (default text; json is documented in\n"
     "docs/latscope-doctor.md)"},
    {"fail-on", 0, "SEVERITY", OPT_FAIL_ON, 0,
     "exit 1 when a finding is at or above SEVERITY:\n"
     "info|low|medium|high|never (default low)"},
    {"output", 'o', "FILE", OPT_OUTPUT, 0,
     "write the report to FILE ('-': stdout); checked before\n"
     "the traces are read"},
    {"threshold", 0, "KEY=VALUE", OPT_THRESHOLD, 0,
     "change one rule threshold (repeatable); keys below"},
    {0},
};

/* The footer of --help: the threshold keys with their defaults, the exit status. */
static char *usage_footer(void)
{
    struct lat_buf b = LAT_BUF_INIT;
    size_t n;
    const struct doc_threshold_desc *ds = doctor_thresholds(&n);
    buf_printf(&b, "thresholds (--threshold KEY=VALUE; keys as in the JSON \"thresholds\" "
                   "object, durations in us):\n");
    for (size_t i = 0; i < n; i++)
        buf_printf(&b, "  %-24s %-10g %s\n", ds[i].key, ds[i].def, ds[i].help);
    buf_printf(&b, "\nexit status: 0 no finding at or above --fail-on, 1 findings, 2 usage, "
                   "load or\nwrite error, 3 no rule applies to an input (nothing judged; not "
                   "a clean bill)\n");
    return b.data; /* NULL when out of memory: --help then ends at the options */
}

static void list_threshold_keys(FILE *f)
{
    size_t n;
    const struct doc_threshold_desc *ds = doctor_thresholds(&n);
    fprintf(f, "valid threshold keys:");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s %s", i ? "," : "", ds[i].key);
    fprintf(f, "\n");
}

/* Writes all of b to fd. 0 or -errno. */
static int write_all(int fd, const char *b, size_t n)
{
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int doctor_one(struct doc_report *r, const struct doc_opts *o, struct lat_trace *t)
{
    /* [parse] events the reader left out: one warning line, as analyze prints it */
    char dropped[640];
    if (lat_trace_drop_summary(t, dropped, sizeof(dropped)))
        pr_warn("%s: %s\n", t->path ? t->path : "trace", dropped);
    int rc = doctor_run(r, t, o);
    if (rc) {
        pr_err("%s: %s\n", t->path ? t->path : "trace", lat_strerror(rc));
        return rc;
    }
    /* The HTA-compatible numbers of `latscope analyze`, for cross-checking; a failure here
     * only loses those numbers. */
    if (lat_ncu_is(t)) return 0; /* a kernel profile: HTA's timeline numbers do not apply */
    struct analysis_opts ao;
    struct lat_analysis *a = NULL;
    analysis_opts_default(&ao);
    ao.critical_path = true; /* each ProfilerStep's: caps the findings' savings */
    int arc = analysis_run(&t, 1, &ao, &a);
    if (!arc && a->nranks) {
        doctor_add_analysis(r, r->ntraces - 1, &a->ranks[0]);
        if (doctor_cap_by_critical_path(r, r->ntraces - 1, &a->ranks[0]) == -ENOMEM) {
            analysis_free(a);
            pr_err("%s\n", lat_strerror(-ENOMEM));
            return -ENOMEM;
        }
    } else if (arc)
        pr_warn("%s: HTA-compatible numbers unavailable: %s\n", t->path ? t->path : "trace",
                lat_strerror(arc));
    analysis_free(a);
    return 0;
}

struct doctor_args {
    enum lat_format fmt;
    enum doc_severity fail_on;
    const char *out_path;
    struct doc_opts o;
};

static int on_opt(void *ctx, int id, const char *v)
{
    struct doctor_args *a = ctx;
    char why[160];
    switch (id) {
    case OPT_FORMAT:
        return cli_format(PR_FMT, v, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON | 1u << LAT_FMT_MD,
                          &a->fmt);
    case OPT_FAIL_ON:
        if (doctor_severity_parse(v, &a->fail_on)) {
            pr_err("unknown --fail-on '%s' (use info, low, medium, high or never)\n", v);
            return -1;
        }
        return 0;
    case OPT_THRESHOLD:
        if (doctor_threshold_set(&a->o.th, v, why, sizeof(why))) {
            pr_err("--threshold: %s\n", why);
            if (!strncmp(why, "unknown", 7)) list_threshold_keys(stderr);
            return -1;
        }
        return 0;
    case OPT_OUTPUT:
        if (!*v) {
            pr_err("-o needs a file name ('-' for stdout)\n");
            return -1;
        }
        a->out_path = v;
        return 0;
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

static int run_doctor(const struct doctor_args *args, const char *const *paths, size_t npaths,
                      const struct lat_opts *opts);

/* True when every path is a bench result (diff_sniff): doctor's service rules judge them. */
static bool all_bench(const char *const *paths, size_t npaths)
{
    for (size_t i = 0; i < npaths; i++) {
        enum diff_kind k;
        char e[256];
        if (strcmp(paths[i], "-") == 0 || diff_sniff(paths[i], &k, e, sizeof(e)) ||
            k != DIFF_KIND_BENCH)
            return false;
    }
    return npaths > 0;
}

/* A bench result through diff's bench-JSON reader, each point handed to the service rules. */
static int doctor_bench(struct doc_report *r, const char *path)
{
    struct diff_run *run = NULL;
    char err[512] = "";
    int rc = diff_run_load(path, DIFF_KIND_BENCH, &run, err, sizeof(err));
    if (rc) {
        pr_err("%s\n", err[0] ? err : lat_strerror(rc));
        return rc;
    }
    rc = diff_run_doctor(r, run);
    if (rc) pr_err("%s: %s\n", path, lat_strerror(rc));
    diff_run_free(run);
    return rc;
}

int cmd_doctor(int argc, char **argv, const struct lat_opts *opts)
{
    struct doctor_args args = {.fmt = LAT_FMT_TEXT, .fail_on = DOC_SEV_LOW};
    doctor_opts_default(&args.o);
    char *footer = usage_footer(); /* NULL when out of memory: --help then ends at the options */
    struct cli_spec spec = {"doctor", usage_text, footer, options, on_opt, &args, false};
    struct cli_result cr;
    int status;
    bool go = cli_run(&spec, argc, argv, &cr, &status);
    free(footer);
    if (!go) return status;
    if (!cr.npos) {
        pr_err("no trace given (usage: latscope doctor [--format text|json|md] TRACE...)\n");
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    /* under mpirun: rank 0 alone reports (the others would print the same report again) */
    int erank = 0;
    if (lat_mpi_env_size(&erank) > 1 && erank != 0) {
        cli_result_fini(&cr);
        return LAT_EXIT_OK;
    }
    int rc = run_doctor(&args, cr.pos, cr.npos, opts);
    cli_result_fini(&cr);
    return rc;
}

/* Streaming a directory of ranks: each trace is doctored as it loads, then freed. */
struct doctor_walk {
    struct doc_report *r;
    struct doc_opts *o;
    bool counted;
};

static int doctor_visit(void *ctx, struct lat_ingest_set *set, size_t i)
{
    struct doctor_walk *dw = ctx;
    if (!dw->counted) { /* the job's ranks: the files listed that may load */
        dw->counted = true;
        for (size_t k = 0; k < set->n; k++)
            dw->o->job_ranks +=
                set->files[k].status == LAT_INGEST_OK || set->files[k].status == LAT_INGEST_NO_RANK;
    }
    struct lat_ingest_file *f = &set->files[i];
    f->trace->rank = f->rank; /* ingest's rank (lat_set_traces) */
    return doctor_one(dw->r, dw->o, f->trace) ? LAT_E_USAGE : 0;
}

/* Loads the traces of paths (streamed when they are all directories) and doctors each one: the
 * Nsight Compute reports first (evidence for the timelines' kernel rules, and judged on their
 * own), then every trace, then the cross-rank rule. 0 with *set and *skipped (the list of
 * skipped files, r->skipped; free both after r), or -1 (said). */
static int doctor_traces(struct doc_report *r, struct doc_opts *o, const char *const *paths,
                         size_t npaths, struct lat_ingest_set **set_out,
                         struct doc_skipped **skipped_out)
{
    /* Directories only (jobs of many ranks): streamed, a few traces in memory at a time (a
     * directory holds no Nsight Compute report, the one input the others need at hand). */
    bool stream = npaths > 0;
    for (size_t i = 0; i < npaths; i++) {
        struct stat st;
        if (strcmp(paths[i], "-") == 0 || stat(paths[i], &st) || !S_ISDIR(st.st_mode))
            stream = false;
    }
    struct lat_ingest_set *set;
    if (stream) {
        struct doctor_walk dw = {r, o, false};
        int wrc;
        set = lat_walk_traces("doctor", paths, npaths, NULL, par_threads(0, 64), doctor_visit, &dw,
                              false, &wrc);
    } else {
        set = lat_load_traces("doctor", paths, npaths, NULL);
    }
    if (!set) return -1;
    struct doc_skipped *skipped = xcalloc(set->n, sizeof(*skipped));
    *set_out = set;
    *skipped_out = skipped;
    /* the ncu summaries are kept until the end: they point into their traces */
    struct lat_ncu_summary *ncs = xcalloc(set->n, sizeof(*ncs));
    struct doc_ncu_report *ncr = xcalloc(set->n, sizeof(*ncr));
    int ret = -1;
    for (size_t k = 0; k < set->n; k++) {
        struct lat_ingest_file *f = &set->files[k];
        if (!f->trace || !lat_ncu_is(f->trace)) continue;
        if (lat_ncu_summarize(f->trace, &ncs[o->nncu])) {
            pr_err("out of memory\n");
            goto out;
        }
        ncr[o->nncu].s = &ncs[o->nncu];
        ncr[o->nncu].path = f->path;
        o->nncu++;
    }
    o->ncu = ncr;
    for (size_t k = 0; k < set->n; k++) {
        struct lat_ingest_file *f = &set->files[k];
        if (ingest_status_skipped(f->status))
            skipped[r->nskipped++] = (struct doc_skipped){
                .path = f->path,
                .status = ingest_status_name(f->status),
                .reason = ingest_file_reason(f),
            };
        /* the job's ranks, for the cross-rank rule (counted by doctor_visit when streamed) */
        if (!stream) o->job_ranks += f->trace && f->trace->role == LAT_TRACE_TIMELINE;
    }
    for (size_t k = 0; !stream && k < set->n; k++) { /* streamed: done while loading */
        struct lat_ingest_file *f = &set->files[k];
        if (ingest_status_skipped(f->status) || !f->trace) continue;
        f->trace->rank = f->rank; /* ingest's rank (lat_set_traces): a directory's NO_RANK file 0 */
        if (doctor_one(r, o, f->trace)) goto out;
        if (lat_ncu_is(f->trace)) continue; /* the ncu summaries point into it */
        lat_trace_free(f->trace);           /* the report keeps copies: free each trace when done */
        f->trace = NULL;
    }
    o->ncu = NULL;
    o->nncu = 0;
    r->skipped = skipped;
    if (doctor_cross_rank(r, o)) {
        pr_err("%s\n", lat_strerror(-ENOMEM));
        goto out;
    }
    ret = 0;
out:
    for (size_t q = 0; q < o->nncu; q++)
        lat_ncu_summary_fini(&ncs[q]);
    o->ncu = NULL;
    o->nncu = 0;
    free(ncs);
    free(ncr);
    return ret;
}

/* The report in fmt, written to ofd (truncated first when it is a file; closed when it is not
 * stdout). 0 or a negative errno. */
static int write_report(const struct doc_report *r, const struct doc_opts *o, enum lat_format fmt,
                        const struct lat_opts *opts, int ofd)
{
    int rc = 0;
    char *data = NULL;
    size_t len = 0;
    if (fmt == LAT_FMT_JSON) {
        FILE *m = open_memstream(&data, &len);
        if (!m) {
            rc = -ENOMEM;
        } else {
            struct jsonw w;
            jsonw_init(&w, m, true);
            doctor_write_json(r, o, &w);
            rc = jsonw_finish(&w);
            jsonw_fini(&w);
            if (fclose(m) && !rc) rc = -ENOMEM;
        }
    } else {
        struct lat_buf b = LAT_BUF_INIT;
        rc = fmt == LAT_FMT_MD ? doctor_format_md(r, &b) : doctor_format_text(r, &b, opts->color);
        data = b.data;
        len = b.len;
    }
    if (!rc) {
        struct stat st;
        if (ofd != STDOUT_FILENO && fstat(ofd, &st) == 0 && S_ISREG(st.st_mode) &&
            ftruncate(ofd, 0) != 0)
            rc = -errno;
        if (!rc) {
            if (ofd == STDOUT_FILENO) fflush(stdout);
            rc = write_all(ofd, data ? data : "", len);
        }
        if (!rc && ofd != STDOUT_FILENO && close(ofd) != 0) rc = -errno;
        ofd = STDOUT_FILENO;
    }
    if (ofd != STDOUT_FILENO) close(ofd);
    free(data);
    return rc;
}

static int run_doctor(const struct doctor_args *args, const char *const *paths, size_t npaths,
                      const struct lat_opts *opts)
{
    const char *out_path = args->out_path;
    struct doc_opts o = args->o;
    /* The output is opened (not truncated) before any trace is read: an unwritable path fails
     * now, and a load error leaves an existing file as it was. */
    int ofd = STDOUT_FILENO;
    if (out_path && strcmp(out_path, "-") != 0) {
        ofd = open(out_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (ofd < 0) {
            pr_err("%s: cannot write the report: %s\n", out_path, strerror(errno));
            return LAT_EXIT_USAGE;
        }
    }
    struct doc_report *r = NULL;
    if (doctor_report_new(&r)) {
        pr_err("out of memory\n");
        if (ofd != STDOUT_FILENO) close(ofd);
        return LAT_EXIT_USAGE;
    }
    struct lat_ingest_set *set = NULL;
    struct doc_skipped *skipped = NULL;
    int failed = 0;
    if (all_bench(paths, npaths)) { /* bench results: the service rules, no trace loader */
        for (size_t i = 0; i < npaths && !failed; i++)
            failed = doctor_bench(r, paths[i]) != 0;
    } else {
        failed = doctor_traces(r, &o, paths, npaths, &set, &skipped) != 0;
    }
    if (failed) {
        doctor_report_free(r);
        ingest_set_free(set);
        free(skipped);
        if (ofd != STDOUT_FILENO) close(ofd);
        return LAT_EXIT_USAGE;
    }
    doctor_rank(r);
    int rc = write_report(r, &o, args->fmt, opts, ofd);
    int sev = doctor_max_severity(r);
    bool unjudged = doctor_any_unjudged(r);
    doctor_report_free(r);
    ingest_set_free(set);
    free(skipped);
    if (rc == -EPIPE) return LAT_EXIT_OK; /* the reader went away (head): not our error */
    if (rc) {
        pr_err("writing the report%s%s: %s\n", out_path ? " to " : "", out_path ? out_path : "",
               lat_strerror(rc));
        return LAT_EXIT_USAGE;
    }
    if (args->fail_on != DOC_SEV_NEVER && sev >= (int)args->fail_on) return LAT_EXIT_FAILURE;
    if (unjudged) return DOCTOR_EXIT_UNJUDGED;
    return LAT_EXIT_OK;
}
