/*
 * cmd-doctor.c - `latscope doctor`: ranked findings with evidence, savings and the next step.
 *
 * Loads each TRACE (a file, or a directory of per-rank traces) with the ingest readers, runs
 * the doctor's rules on every loaded trace (src/doctor/), ranks all findings by estimated
 * saving and prints them as text (coloured only on a TTY without NO_COLOR), JSON or markdown.
 * Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 on a usage or load
 * error (nothing is printed on stdout then).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void doctor_usage(FILE *f)
{
    fprintf(f,
            "usage: latscope doctor [--format text|json|md] [--fail-on SEVERITY] TRACE...\n"
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
            "  -h, --help             this help\n"
            "\n"
            "exit status: 0 no finding at or above --fail-on, 1 findings, 2 error\n");
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
    int arc = analysis_run(&t, 1, &ao, &a);
    if (!arc && a->nranks)
        doctor_add_analysis(r, r->ntraces - 1, &a->ranks[0]);
    else if (arc)
        pr_warn("%s: HTA-compatible numbers unavailable: %s\n", t->path ? t->path : "trace",
                lat_strerror(arc));
    analysis_free(a);
    return 0;
}

int cmd_doctor(int argc, char **argv, const struct lat_opts *opts)
{
    enum lat_format fmt = LAT_FMT_TEXT;
    enum doc_severity fail_on = DOC_SEV_LOW;
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
    struct lat_ingest_set *set =
        lat_load_traces("doctor", (const char *const *)argv + first, (size_t)(argc - first), NULL);
    if (!set) return LAT_EXIT_USAGE;
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
            return LAT_EXIT_USAGE;
        }
        lat_trace_free(f->trace); /* the report keeps copies: free each trace when done */
        f->trace = NULL;
    }
    r->skipped = skipped;
    doctor_rank(r);
    int rc = 0;
    if (fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, stdout, true);
        doctor_write_json(r, &o, &w);
        rc = jsonw_finish(&w);
        jsonw_fini(&w);
    } else {
        struct lat_buf b = LAT_BUF_INIT;
        rc = fmt == LAT_FMT_MD ? doctor_format_md(r, &b) : doctor_format_text(r, &b, opts->color);
        if (!rc && b.len && fwrite(b.data, 1, b.len, stdout) != b.len) rc = -EIO;
        buf_fini(&b);
    }
    int sev = doctor_max_severity(r);
    doctor_report_free(r);
    ingest_set_free(set);
    free(skipped);
    if (rc) {
        pr_err("writing the report: %s\n", lat_strerror(rc));
        return LAT_EXIT_USAGE;
    }
    if (fail_on != DOC_SEV_NEVER && sev >= (int)fail_on) return LAT_EXIT_FAILURE;
    return LAT_EXIT_OK;
}
