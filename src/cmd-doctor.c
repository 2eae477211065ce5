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
#include "core/buf.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
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

static void doctor_usage(FILE *f)
{
    fprintf(f,
            "usage: latscope doctor [--format text|json|md] [--fail-on SEVERITY] [-o FILE]\n"
            "                       [--threshold KEY=VALUE]... TRACE...\n"
            "\n"
            "Reads PyTorch profiler (Kineto) / Chrome traces and reports why the workload is\n"
            "slow: ranked findings, each with its evidence (numbers and the worst instances with\n"
            "timestamps, step and stream), an estimated saving (an upper bound, per step and as\n"
            "%% of the step), what to change (PyTorch / TensorRT / ONNX Runtime) and the next\n"
            "command to run. A clean trace gets \"no significant finding\" with its numbers.\n"
            "\n"
            "TRACE is a .json / .json.gz file or a directory of per-rank traces.\n"
            "\n"
            "options:\n"
            "  --format text|json|md  output format (default text; json is documented in\n"
            "                         docs/latscope-doctor.md)\n"
            "  --fail-on SEVERITY     exit 1 when a finding is at or above SEVERITY:\n"
            "                         info|low|medium|high|never (default low)\n"
            "  -o, --output FILE      write the report to FILE ('-': stdout); checked before\n"
            "                         the traces are read\n"
            "  --threshold KEY=VALUE  change one rule threshold (repeatable); keys as in the\n"
            "                         JSON \"thresholds\" object, durations in us:\n");
    size_t n;
    const struct doc_threshold_desc *ds = doctor_thresholds(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "      %-24s %-10g %s\n", ds[i].key, ds[i].def, ds[i].help);
    fprintf(f, "  -h, --help             this help\n"
               "\n"
               "exit status: 0 no finding at or above --fail-on, 1 findings, 2 usage, load or\n"
               "write error, 3 no rule applies to an input (nothing judged; not a clean bill)\n");
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

/* Option value for --name VALUE or --name=VALUE; advances *i. NULL when absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != 0) return NULL;
    if (*i + 1 >= argc) return "";
    return argv[++*i];
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

int cmd_doctor(int argc, char **argv, const struct lat_opts *opts)
{
    enum lat_format fmt = LAT_FMT_TEXT;
    enum doc_severity fail_on = DOC_SEV_LOW;
    const char *out_path = NULL;
    struct doc_opts o;
    int first = argc, i;
    doctor_opts_default(&o);
    for (i = 1; i < argc; i++) {
        const char *v;
        if (lat_is_help(argv[i])) {
            doctor_usage(stdout);
            return LAT_EXIT_OK;
        }
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if ((v = opt_value(argc, argv, &i, "--format"))) {
            unsigned allowed = 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON | 1u << LAT_FMT_MD;
            if (lat_parse_format(v, allowed, &fmt)) {
                pr_err("unknown --format '%s' (use text, json or md)\n", v);
                return LAT_EXIT_USAGE;
            }
        } else if ((v = opt_value(argc, argv, &i, "--fail-on"))) {
            if (doctor_severity_parse(v, &fail_on)) {
                pr_err("unknown --fail-on '%s' (use info, low, medium, high or never)\n", v);
                return LAT_EXIT_USAGE;
            }
        } else if ((v = opt_value(argc, argv, &i, "--threshold"))) {
            char why[160];
            if (doctor_threshold_set(&o.th, v, why, sizeof(why))) {
                pr_err("--threshold: %s\n", why);
                if (!strncmp(why, "unknown", 7)) list_threshold_keys(stderr);
                return LAT_EXIT_USAGE;
            }
        } else if ((v = opt_value(argc, argv, &i, "--output")) ||
                   (v = opt_value(argc, argv, &i, "-o"))) {
            if (!*v) {
                pr_err("-o needs a file name ('-' for stdout)\n");
                return LAT_EXIT_USAGE;
            }
            out_path = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            pr_err("unknown option '%s' (see latscope doctor --help)\n", argv[i]);
            return LAT_EXIT_USAGE;
        } else {
            break;
        }
    }
    first = i;
    if (first >= argc) {
        pr_err("no trace given (usage: latscope doctor [--format text|json|md] TRACE...)\n");
        return LAT_EXIT_USAGE;
    }
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
    struct lat_ingest_set *set =
        lat_load_traces("doctor", (const char *const *)argv + first, (size_t)(argc - first), NULL);
    if (!set) {
        if (ofd != STDOUT_FILENO) close(ofd);
        return LAT_EXIT_USAGE;
    }
    struct doc_report *r = NULL;
    struct doc_skipped *skipped = xcalloc(set->n, sizeof(*skipped));
    if (doctor_report_new(&r)) {
        pr_err("out of memory\n");
        ingest_set_free(set);
        free(skipped);
        return LAT_EXIT_USAGE;
    }
    for (size_t k = 0; k < set->n; k++) {
        struct lat_ingest_file *f = &set->files[k];
        if (ingest_status_skipped(f->status)) {
            skipped[r->nskipped++] = (struct doc_skipped){
                .path = f->path,
                .status = ingest_status_name(f->status),
                .reason = ingest_file_reason(f),
            };
            continue;
        }
        if (!f->trace) continue;
        if (f->in_dir) f->trace->rank = f->rank; /* a directory's NO_RANK file: rank 0 */
        if (doctor_one(r, &o, f->trace)) {
            doctor_report_free(r);
            ingest_set_free(set);
            free(skipped);
            if (ofd != STDOUT_FILENO) close(ofd);
            return LAT_EXIT_USAGE;
        }
        lat_trace_free(f->trace); /* the report keeps copies: free each trace when done */
        f->trace = NULL;
    }
    r->skipped = skipped;
    doctor_rank(r);
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
            doctor_write_json(r, &o, &w);
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
    if (fail_on != DOC_SEV_NEVER && sev >= (int)fail_on) return LAT_EXIT_FAILURE;
    if (unjudged) return DOCTOR_EXIT_UNJUDGED;
    return LAT_EXIT_OK;
}
