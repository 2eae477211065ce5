/*
 * cmd-diff.c - `latscope diff`: did my change make it faster, and where? Before/after for bench
 * results (bench JSON, HDR logs; several runs per side) with significance from the recorded
 * samples and CI exit codes (--fail-if), and for traces (HTA TraceDiff's per-name counts and
 * durations, per-step Welch interval, temporal and idle breakdowns). docs/latscope-diff.md.
 */
#define PR_FMT "diff"
#include "core/err.h"
#include "core/esc.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "diff/diff.h"
#include "ingest/ingest.h"
#include "latscope.h"
#include "model/events.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A name, path, URL or workload from an input, escaped (core/esc.h) into b for a %s. */
#define ESC(b, s) lat_esc_cell((b), sizeof(b), (s))

static const char usage_text[] =
    "usage: latscope diff [OPTIONS] BEFORE AFTER\n"
    "       latscope diff [OPTIONS] BEFORE1 BEFORE2 ... -- AFTER1 AFTER2 ...\n"
    "\n"
    "Compares two runs. Inputs are either bench results (`latscope bench --format json`,\n"
    "--hdr-log interval logs or --records JSONL) or traces (files or rank directories,\n"
    "anything `analyze` reads).\n"
    "\n"
    "Bench results: points matched by load (concurrency / rate); every metric with its\n"
    "confidence interval of the change and a verdict. Percentiles: seeded bootstrap on the\n"
    "recorded histograms; means: Welch; several runs per side: runs are resampled too.\n"
    "\n"
    "Traces: per-name count and duration deltas (HTA TraceDiff), step time (Welch over steps),\n"
    "temporal breakdown, idle categories and doctor findings (resolved / new / changed);\n"
    "CPU samples (trace --cpu): self/total share per function with a two-proportion interval;\n"
    "ONNX Runtime profiles: model_run after the first run (Welch over runs), time per op type.\n"
    "\n";

static const char footer_text[] =
    "Exit status: 0 compared (no --fail-if rule fired), 1 a --fail-if rule fired or\n"
    "could not be tested (no interval; see --allow-untested), 2 usage or input error.\n"
    "See docs/latscope-diff.md.\n";

enum {
    OPT_CONFIDENCE,
    OPT_RESAMPLES,
    OPT_SEED,
    OPT_NOISE,
    OPT_FAIL_IF,
    OPT_ALLOW_UNTESTED,
    OPT_RANK,
    OPT_ITERATION,
    OPT_DEVICE,
    OPT_TOP,
    OPT_LAST_STEP,
    OPT_NORMALIZE,
    OPT_FORMAT,
};

static const struct cli_opt options[] = {
    {NULL, 0, NULL, 0, 0, "bench results"},
    {"confidence", 0, "C", OPT_CONFIDENCE, 0, "confidence of the intervals (default 0.95)"},
    {"resamples", 0, "N", OPT_RESAMPLES, 0, "bootstrap resamples (default 10000)"},
    {"seed", 0, "N", OPT_SEED, 0, "bootstrap seed (default 1)"},
    {"noise", 0, "PCT", OPT_NOISE, 0,
     "significant changes smaller than PCT % are 'within noise'\n"
     "(default 0: off)"},
    {"fail-if", 0, "RULE", OPT_FAIL_IF, 0,
     "exit 1 when a significant change passes RULE, e.g.\n"
     "'p99 > +5%', 'throughput < -3%', 'ttft.p99 > +10%' (repeatable;\n"
     "traces: the step rows, 'step.dur_us > +5%', ORT 'ort.run_us');\n"
     "a rule with a matching row that has no interval is NOT TESTED\n"
     "and exits 1 too"},
    {"allow-untested", 0, NULL, OPT_ALLOW_UNTESTED, 0,
     "a --fail-if rule that could not be tested (no interval) does\n"
     "not fail the run (it is still reported as not tested)"},
    {NULL, 0, NULL, 0, 0, "traces"},
    {"rank", 0, "R", OPT_RANK, 0, "only rank R"},
    {"iteration", 0, "N[,M]", OPT_ITERATION, 0,
     "only these ProfilerStep numbers (HTA: iterations)"},
    {"device", 0, "all|cpu|gpu", OPT_DEVICE, 0,
     "HTA's device filter (CPU: stream -1; default all)"},
    {"top", 0, "N", OPT_TOP, 0, "rows of the text/md op table (default 20; json/csv: all)"},
    {"include-last-step", 0, NULL, OPT_LAST_STEP, 0, "keep the last ProfilerStep in the step rows"},
    {"normalize", 0, NULL, OPT_NORMALIZE, 0,
     "match names without template/argument lists and generated\n"
     "numeric suffixes (ProfilerStep#N, triton_..._N, f<...>(...))"},
    {NULL, 0, NULL, 0, 0, "output"},
    {"format", 0, "text|json|md|csv", OPT_FORMAT, 0, "output (default text)"},
    {0},
};

#define MAX_RULES 16
#define MAX_ITERS 64

struct cli {
    enum lat_format fmt;
    struct diff_bench_opts bo;
    struct diff_trace_opts to;
    int32_t iters[MAX_ITERS];
    struct diff_rule rules[MAX_RULES];
    size_t nrules;
    bool allow_untested;
    size_t top;
    struct cli_result args; /* the positional arguments: a and b point into it */
    const char **a, **b;
    size_t na, nb;
};

static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *s == '-' || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

/* --confidence, --resamples, --seed, --noise: the bench comparison's statistics. */
static int stat_opt(struct cli *c, int id, const char *val)
{
    uint64_t u;
    double d;
    switch (id) {
    case OPT_CONFIDENCE:
        if (!parse_double(val, 0.5, 0.9999, &d)) {
            pr_err("--confidence wants a number in 0.5..0.9999 (0.95), not '%s'\n", val);
            return -1;
        }
        c->bo.conf = c->to.conf = d;
        return 0;
    case OPT_RESAMPLES:
        if (!parse_u64(val, 100, 10000000, &u)) {
            pr_err("--resamples wants 100..10000000, not '%s'\n", val);
            return -1;
        }
        c->bo.resamples = (unsigned)u;
        return 0;
    case OPT_SEED:
        if (!parse_u64(val, 0, UINT64_MAX, &u)) {
            pr_err("--seed wants a non-negative integer, not '%s'\n", val);
            return -1;
        }
        c->bo.seed = u;
        return 0;
    default: /* OPT_NOISE */
        if (!parse_double(val, 0, 1000, &d)) {
            pr_err("--noise wants a percentage (2 = 2 %%), not '%s'\n", val);
            return -1;
        }
        c->bo.noise_pct = d;
        return 0;
    }
}

/* --iteration N,M...: the ProfilerSteps compared. */
static int iteration_opt(struct cli *c, const char *val)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", val);
    size_t n = 0;
    uint64_t u;
    char *save = NULL;
    for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (n == MAX_ITERS || !parse_u64(s, 0, INT32_MAX, &u)) {
            pr_err("--iteration wants ProfilerStep numbers (1009,1010), not '%s'\n", val);
            return -1;
        }
        c->iters[n++] = (int32_t)u;
    }
    if (!n) {
        pr_err("--iteration wants ProfilerStep numbers\n");
        return -1;
    }
    c->to.iters = c->iters;
    c->to.niters = n;
    return 0;
}

/* --rank, --iteration, --device, --include-last-step, --normalize: the trace comparison. */
static int trace_opt(struct cli *c, int id, const char *val)
{
    uint64_t u;
    switch (id) {
    case OPT_RANK:
        if (!parse_u64(val, 0, INT32_MAX, &u)) {
            pr_err("--rank wants a rank number, not '%s'\n", val);
            return -1;
        }
        c->to.rank = (int32_t)u;
        return 0;
    case OPT_ITERATION:
        return iteration_opt(c, val);
    case OPT_DEVICE:
        if (!strcmp(val, "all"))
            c->to.device = DIFF_DEV_ALL;
        else if (!strcmp(val, "cpu"))
            c->to.device = DIFF_DEV_CPU;
        else if (!strcmp(val, "gpu"))
            c->to.device = DIFF_DEV_GPU;
        else {
            pr_err("--device wants all, cpu or gpu, not '%s'\n", val);
            return -1;
        }
        return 0;
    case OPT_LAST_STEP:
        c->to.include_last_step = true;
        return 0;
    default: /* OPT_NORMALIZE */
        c->to.normalize = true;
        return 0;
    }
}

static int on_opt(void *ctx, int id, const char *val)
{
    struct cli *c = ctx;
    uint64_t u;
    switch (id) {
    case OPT_FORMAT:
        return cli_format(PR_FMT, val, 0xf, &c->fmt);
    case OPT_ALLOW_UNTESTED:
        c->allow_untested = true;
        return 0;
    case OPT_FAIL_IF: {
        const char *why = "";
        if (c->nrules == MAX_RULES) {
            pr_err("at most %d --fail-if rules\n", MAX_RULES);
            return -1;
        }
        if (diff_rule_parse(val, &c->rules[c->nrules], &why)) {
            pr_err("--fail-if '%s': %s\n", val, why);
            return -1;
        }
        c->nrules++;
        return 0;
    }
    case OPT_TOP:
        if (!parse_u64(val, 1, 1000000, &u)) {
            pr_err("--top wants a count, not '%s'\n", val);
            return -1;
        }
        c->top = (size_t)u;
        return 0;
    case OPT_CONFIDENCE:
    case OPT_RESAMPLES:
    case OPT_SEED:
    case OPT_NOISE:
        return stat_opt(c, id, val);
    case OPT_RANK:
    case OPT_ITERATION:
    case OPT_DEVICE:
    case OPT_LAST_STEP:
    case OPT_NORMALIZE:
        return trace_opt(c, id, val);
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

/* 0 ok, 1 help shown, -1 usage error (printed). c->a/c->b point into c->args. */
static int parse_args(int argc, char **argv, struct cli *c)
{
    struct cli_spec spec = {"diff", usage_text, footer_text, options, on_opt, c, false};
    int status;
    if (!cli_run(&spec, argc, argv, &c->args, &status)) return status == LAT_EXIT_OK ? 1 : -1;
    const struct cli_result *r = &c->args;
    if (r->dashdash) {
        c->a = r->pos;
        c->na = r->after_dashdash;
        c->b = r->pos + r->after_dashdash;
        c->nb = r->npos - r->after_dashdash;
        if (!c->na || !c->nb) {
            pr_err("give runs on both sides of '--': BEFORE... -- AFTER...\n");
            return -1;
        }
    } else {
        if (r->npos != 2) {
            pr_err("%s: latscope diff BEFORE AFTER (or BEFORE... -- AFTER... for several runs "
                   "per side)\n",
                   r->npos < 2 ? "give two inputs"
                               : "more than two inputs need '--' between the sides");
            return -1;
        }
        c->a = r->pos;
        c->na = 1;
        c->b = r->pos + 1;
        c->nb = 1;
    }
    return 0;
}

/* ---- rendering of rows ---- */

static void fmt_val(char *out, size_t cap, double v, const char *unit, bool sign)
{
    if (isnan(v)) {
        snprintf(out, cap, "-");
        return;
    }
    snprintf(out, cap, sign ? "%+.*f" : "%.*f", diff_unit_decimals(unit), v);
}

static void fmt_pct(char *out, size_t cap, double v)
{
    if (isnan(v))
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%+.2f%%", v);
}

/* The interval of the change as text: in % when there is one, else in the unit. */
static void fmt_ci(char *out, size_t cap, const struct diff_row *r)
{
    if (!r->ci.have) {
        snprintf(out, cap, "-");
        return;
    }
    if (r->ci_pct.have)
        snprintf(out, cap, "[%+.2f%%, %+.2f%%]", r->ci_pct.lo, r->ci_pct.hi);
    else
        snprintf(out, cap, "[%+.*f, %+.*f] %s", diff_unit_decimals(r->unit), r->ci.lo,
                 diff_unit_decimals(r->unit), r->ci.hi, r->unit);
}

static void text_rows(FILE *f, const struct diff_bench_result *res, bool md, double conf)
{
    const char *cur = NULL;
    for (size_t i = 0; i < res->nrows; i++) {
        const struct diff_row *r = &res->rows[i];
        char el[256], er[256];
        if (!cur || strcmp(cur, r->load) != 0) {
            cur = r->load;
            if (md) {
                fprintf(f,
                        "\n### %s\n\n| metric | unit | before | after | Δ | Δ %% | %g %% CI of Δ "
                        "| verdict |\n|---|---|--:|--:|--:|--:|---|---|\n",
                        ESC(el, cur), conf * 100);
            } else {
                fprintf(f, "\n%s\n  %-30s %-6s %11s %11s %11s %9s  %-24s %s\n", ESC(el, cur),
                        "metric", "unit", "before", "after", "Δ", "Δ %", "CI of Δ", "verdict");
            }
        }
        char b[32], a[32], d[32], dp[32], ci[64];
        fmt_val(b, sizeof(b), r->before, r->unit, false);
        fmt_val(a, sizeof(a), r->after, r->unit, false);
        fmt_val(d, sizeof(d), r->delta, r->unit, true);
        fmt_pct(dp, sizeof(dp), r->delta_pct);
        fmt_ci(ci, sizeof(ci), r);
        const char *v = diff_verdict_name(r->verdict);
        if (md)
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s%s |\n", ESC(er, r->label), r->unit,
                    b, a, d, dp, ci, r->verdict == DIFF_V_REGRESSION ? "**REGRESSION**" : v,
                    r->flagged ? " (INVALID point)" : "");
        else
            fprintf(f, "  %-30s %-6s %11s %11s %11s %9s  %-24s %s%s\n", ESC(er, r->label), r->unit,
                    b, a, d, dp, ci, v, r->flagged ? " (INVALID point)" : "");
    }
}

static void csv_field(FILE *f, const char *s)
{
    char e[1024];
    s = ESC(e, s);
    bool q = strpbrk(s, ",\"\n") != NULL;
    if (!q) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs(",", f);
    else
        fprintf(f, ",%.6g", v);
}

static void csv_rows(FILE *f, const struct diff_bench_result *res)
{
    fputs("section,metric,unit,before,after,delta,delta_pct,ci_lo,ci_hi,ci_lo_pct,ci_hi_pct,"
          "method,verdict\n",
          f);
    for (size_t i = 0; i < res->nrows; i++) {
        const struct diff_row *r = &res->rows[i];
        csv_field(f, r->load);
        fputc(',', f);
        csv_field(f, r->key);
        fputc(',', f);
        csv_field(f, r->unit);
        csv_num(f, r->before);
        csv_num(f, r->after);
        csv_num(f, r->delta);
        csv_num(f, r->delta_pct);
        csv_num(f, r->ci.have ? r->ci.lo : NAN);
        csv_num(f, r->ci.have ? r->ci.hi : NAN);
        csv_num(f, r->ci_pct.have ? r->ci_pct.lo : NAN);
        csv_num(f, r->ci_pct.have ? r->ci_pct.hi : NAN);
        fprintf(f, ",%s,%s\n", r->method ? r->method : "none", diff_verdict_name(r->verdict));
    }
}

static void print_notes(FILE *f, const struct diff_bench_result *res, bool md)
{
    char e[2048];
    for (size_t i = 0; i < res->nnotes; i++)
        fprintf(f, md ? "> **warning**: %s\n" : "warning: %s\n", ESC(e, res->notes[i]));
}

/*
 * The --fail-if verdicts; returns how many rules fired. A rule that did not fire is untested
 * when no row matched it or a matching row has no interval (verdict NONE: too few samples, one
 * run, a maximum, no variation): "passed" is said only of a rule that every matching row
 * tested. first[k]: the row it fired on, or the first untested row (NULL when none matched).
 */
static size_t eval_rules(const struct cli *c, const struct diff_bench_result *res, bool *fired,
                         bool *untested, const struct diff_row **first)
{
    size_t n = 0;
    for (size_t k = 0; k < c->nrules; k++) {
        fired[k] = false;
        untested[k] = false;
        first[k] = NULL;
        bool matched = false;
        const struct diff_row *open = NULL;
        for (size_t i = 0; i < res->nrows; i++) {
            if (diff_rule_matches(&c->rules[k], &res->rows[i])) {
                matched = true;
                if (res->rows[i].verdict == DIFF_V_NONE && !open) open = &res->rows[i];
            }
            if (diff_rule_fires(&c->rules[k], &res->rows[i])) {
                fired[k] = true;
                first[k] = &res->rows[i];
                break;
            }
        }
        if (!matched)
            pr_warn("--fail-if '%s': no compared metric is called '%s' (see the metric column "
                    "of --format json)\n",
                    c->rules[k].text, c->rules[k].metric);
        if (fired[k]) {
            n++;
        } else if (!matched || open) {
            untested[k] = true;
            first[k] = open;
        }
    }
    return n;
}

/* Exit status of the rules: 1 when one fired, or one is untested without --allow-untested. */
static int rules_exit(const struct cli *c, size_t nfired, const bool *untested)
{
    if (nfired) return LAT_EXIT_FAILURE;
    for (size_t k = 0; k < c->nrules; k++)
        if (untested[k] && !c->allow_untested) return LAT_EXIT_FAILURE;
    return LAT_EXIT_OK;
}

static void text_rules(FILE *f, const struct cli *c, const bool *fired, const bool *untested,
                       const struct diff_row *const *first, bool md)
{
    for (size_t k = 0; k < c->nrules; k++) {
        if (fired[k])
            fprintf(f, "%sfail-if '%s': FAILED: %s %s %+.2f%% (%s)\n", md ? "- " : "",
                    c->rules[k].text, first[k]->load, first[k]->key, first[k]->delta_pct,
                    diff_verdict_name(first[k]->verdict));
        else if (untested[k] && first[k])
            fprintf(f, "%sfail-if '%s': NOT TESTED%s: %s %s %+.2f%% has no interval (%s)\n",
                    md ? "- " : "", c->rules[k].text,
                    c->allow_untested ? " (allowed by --allow-untested)" : "", first[k]->load,
                    first[k]->key, first[k]->delta_pct,
                    first[k]->ci.why ? first[k]->ci.why : "no interval could be computed");
        else if (untested[k])
            fprintf(f, "%sfail-if '%s': NOT TESTED%s: no compared metric is called '%s'\n",
                    md ? "- " : "", c->rules[k].text,
                    c->allow_untested ? " (allowed by --allow-untested)" : "", c->rules[k].metric);
        else
            fprintf(f, "%sfail-if '%s': passed\n", md ? "- " : "", c->rules[k].text);
    }
}

/* ---- bench mode ---- */

/* The doctor findings of both sides (traces: saving per step; bench results, service: per
 * request). */
static void text_findings(FILE *f, const struct diff_finding *findings, size_t n, bool service,
                          bool md)
{
    const char *of = service ? "of the request" : "of the step";
    fprintf(f, md ? "\n### doctor findings%s\n\n" : "\ndoctor findings%s\n",
            service ? " (service rules)" : "");
    if (!n) fprintf(f, "  (none on either side)\n");
    for (size_t i = 0; i < n; i++) {
        const struct diff_finding *d = &findings[i];
        char rank[24] = "";
        if (d->rank >= 0) snprintf(rank, sizeof(rank), " (rank %d)", d->rank);
        char et[2048];
        fprintf(f, "%s%-9s %s%s: %s", md ? "- " : "  ", d->status, d->id, rank, ESC(et, d->title));
        if (service && d->saving_pct[0] == 0 && d->saving_pct[1] == 0) /* not estimated */
            fprintf(f, "; %s%s%s", d->in[0] ? diff_severity_name(d->severity[0]) : "",
                    d->in[0] && d->in[1] ? " -> " : "",
                    d->in[1] ? diff_severity_name(d->severity[1]) : "");
        else if (d->in[0] && d->in[1])
            fprintf(f, "; saving %.1f %% -> %.1f %% %s, %s -> %s", d->saving_pct[0],
                    d->saving_pct[1], of, diff_severity_name(d->severity[0]),
                    diff_severity_name(d->severity[1]));
        else
            fprintf(f, "; saving %.1f %% %s (%s)", d->saving_pct[d->in[1]], of,
                    diff_severity_name(d->severity[d->in[1]]));
        fputc('\n', f);
    }
}

static int diff_bench(struct cli *c, enum diff_kind kind)
{
    struct diff_run **ra = xcalloc(c->na, sizeof(*ra)), **rb = xcalloc(c->nb, sizeof(*rb));
    int ret = LAT_EXIT_USAGE;
    char err[1024] = "";
    for (size_t i = 0; i < c->na + c->nb; i++) {
        const char *p = i < c->na ? c->a[i] : c->b[i - c->na];
        enum diff_kind k;
        int rc = diff_sniff(p, &k, err, sizeof(err));
        if (rc) {
            {
                char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
                pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err));
            }
            goto out;
        }
        if (k == DIFF_KIND_TRACE) {
            pr_err("%s is not a bench result or HDR log (a trace, or other JSON: a bench result's "
                   "first member is \"target\"), but %s is a %s: compare two bench results or "
                   "two traces\n",
                   p, c->a[0], diff_kind_name(kind));
            goto out;
        }
        struct diff_run **slot = i < c->na ? &ra[i] : &rb[i - c->na];
        rc = diff_run_load(p, k, slot, err, sizeof(err));
        if (rc) {
            {
                char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
                pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err[0] ? err : lat_strerror(rc)));
            }
            goto out;
        }
    }
    struct diff_bench_result res;
    int rc = diff_bench_compare(ra, c->na, rb, c->nb, &c->bo, &res, err, sizeof(err));
    if (rc) {
        {
            char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
            pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err[0] ? err : lat_strerror(rc)));
        }
        goto out;
    }
    bool fired[MAX_RULES], untested[MAX_RULES];
    const struct diff_row *first[MAX_RULES];
    size_t nfired = eval_rules(c, &res, fired, untested, first);
    FILE *f = stdout;
    if (c->fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, f, true);
        struct diff_json_rules jr = {c->rules, c->nrules, fired, untested, first};
        diff_bench_write_json(&w, c->a, c->na, c->b, c->nb, &c->bo, &res, &jr);
        jsonw_raw(&w, "\n", 1);
        jsonw_finish(&w);
        jsonw_fini(&w);
    } else if (c->fmt == LAT_FMT_CSV) {
        csv_rows(f, &res);
    } else {
        bool md = c->fmt == LAT_FMT_MD;
        char ea[1024], eb[1024];
        fprintf(f, "%slatscope diff: %zu before run(s) (%s%s), %zu after run(s) (%s%s)\n",
                md ? "## " : "", c->na, ESC(ea, c->a[0]), c->na > 1 ? ", ..." : "", c->nb,
                ESC(eb, c->b[0]), c->nb > 1 ? ", ..." : "");
        fprintf(f,
                "%s%g %% intervals of after - before; percentiles: bootstrap, %u resamples, "
                "seed %llu%s\n",
                md ? "\n" : "", c->bo.conf * 100, c->bo.resamples, (unsigned long long)c->bo.seed,
                md ? "\n" : "");
        print_notes(f, &res, md);
        text_rows(f, &res, md, c->bo.conf);
        if (res.service_findings) text_findings(f, res.findings, res.nfindings, true, md);
        if (c->nrules) fputc('\n', f);
        text_rules(f, c, fired, untested, first, md);
    }
    diff_bench_result_fini(&res);
    ret = rules_exit(c, nfired, untested);
out:
    for (size_t i = 0; i < c->na; i++)
        diff_run_free(ra[i]);
    for (size_t i = 0; i < c->nb; i++)
        diff_run_free(rb[i]);
    free(ra);
    free(rb);
    return ret;
}

/* ---- trace mode ---- */

struct tside {
    struct lat_trace **t;
    size_t n;
    struct lat_ingest_set *set;
};

static void tside_free(struct tside *s)
{
    free(s->t);
    if (s->set) ingest_set_free(s->set); /* it owns the traces */
}

/* One side's traces, loaded as analyze and doctor load theirs (lat_load_traces: every format
 * of the ingest table, directories with their rules, a TensorFlow profile directory's run,
 * a TensorRT engine prefix; a directory's unusable file is a warning and skipped). */
static int load_trace_side(const char *path, struct tside *s)
{
    s->set = lat_load_ranked("diff", path, &s->t, &s->n, NULL, 0);
    return s->set ? 0 : -1;
}

/* A trace in a format of the ingest table that is not JSON (perf script, collapsed stacks, an
 * .xplane.pb, an nsys SQLite file, an ncu CSV, a trtexec log, a TensorRT engine prefix...): the
 * bench-result sniff (diff_sniff) would take some of them for HDR logs or reject them. */
static bool ingest_trace_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return ingest_trt_engine_prefix(path);
    if (!S_ISREG(st.st_mode)) return false;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    static char head[64 << 10];
    size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    if (n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b)
        return false; /* gzip: a trace for diff_sniff already */
    return ingest_sniff_reads(head, n, path);
}

static void us(char *out, size_t cap, lat_ns ns, bool sign)
{
    snprintf(out, cap, sign ? "%+.3f" : "%.3f", (double)ns / 1e3);
}

static void text_ops(FILE *f, const struct diff_trace_result *r, size_t top, bool md)
{
    size_t inc = 0, dec = 0, same = 0;
    for (size_t i = 0; i < r->nops; i++) {
        lat_ns d = r->ops[i].dur[1] - r->ops[i].dur[0];
        if (d > 0 || (d == 0 && r->ops[i].count[1] != r->ops[i].count[0]))
            inc++;
        else if (d < 0)
            dec++;
        else
            same++;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *title =
            pass == 0 ? "largest increases (regressions)" : "largest decreases (improvements)";
        size_t shown = 0;
        if (md)
            fprintf(f,
                    "\n### %s\n\n| name | device | count before | count after | Δ count | "
                    "total before µs | total after µs | Δ µs | Δ / Δ step | status |\n"
                    "|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n",
                    title);
        else
            fprintf(f, "\n%s\n  %-48s %-3s %8s %8s %7s %14s %14s %14s %8s  %s\n", title, "name",
                    "dev", "count A", "count B", "Δ", "total A µs", "total B µs", "Δ µs", "Δ/Δstep",
                    "status");
        for (size_t k = 0; k < r->nops && shown < top; k++) {
            size_t i = pass == 0 ? k : r->nops - 1 - k;
            const struct diff_op *op = &r->ops[i];
            lat_ns d = op->dur[1] - op->dur[0];
            bool is_inc = d > 0 || (d == 0 && op->count[1] != op->count[0] && pass == 0);
            if (pass == 0 && !is_inc) break;
            if (pass == 1 && d >= 0) break;
            char ba[32], bb[32], bd[32], sh[32];
            us(ba, sizeof(ba), op->dur[0], false);
            us(bb, sizeof(bb), op->dur[1], false);
            us(bd, sizeof(bd), d, true);
            if (isnan(op->step_share))
                snprintf(sh, sizeof(sh), "-");
            else
                snprintf(sh, sizeof(sh), "%+.2fx", op->step_share); /* a ratio, not a share */
            long long dc = (long long)op->count[1] - (long long)op->count[0];
            char en[1024];
            if (md)
                fprintf(f, "| `%s` | %s | %llu | %llu | %+lld | %s | %s | %s | %s | %s |\n",
                        ESC(en, op->name), op->gpu ? "GPU" : "CPU",
                        (unsigned long long)op->count[0], (unsigned long long)op->count[1], dc, ba,
                        bb, bd, sh, op->status);
            else
                fprintf(f, "  %-48.48s %-3s %8llu %8llu %+7lld %14s %14s %14s %8s  %s\n",
                        ESC(en, op->name), op->gpu ? "GPU" : "CPU",
                        (unsigned long long)op->count[0], (unsigned long long)op->count[1], dc, ba,
                        bb, bd, sh, op->status);
            shown++;
        }
        if (!shown) fprintf(f, md ? "| (none) |||||||||\n" : "  (none)\n");
    }
    fprintf(f, "\n%snames: %zu with more time or calls, %zu with less, %zu unchanged\n",
            md ? "" : "", inc, dec, same);
}

/* The CPU sample table: functions whose total share grew most, then fell most. */
static void text_cpu(FILE *f, const struct diff_trace_result *r, size_t top, bool md, double conf)
{
    if (!r->ncpu) return;
    fprintf(f,
            "\n%sCPU samples: %llu before, %llu after; shares of on-CPU samples in %%, %g %% "
            "two-proportion interval of the change of total share\n",
            md ? "### " : "", (unsigned long long)r->cpu_samples[0],
            (unsigned long long)r->cpu_samples[1], conf * 100);
    for (int pass = 0; pass < 2; pass++) {
        const char *title = pass == 0
                                ? "functions with a larger share (total, anywhere on the stack)"
                                : "functions with a smaller share";
        if (md)
            fprintf(f,
                    "\n%s\n\n| function | self before | self after | total before | total after "
                    "| Δ total | CI of Δ total | verdict |\n|---|--:|--:|--:|--:|--:|---|---|\n",
                    title);
        else
            fprintf(f, "\n%s\n  %-40s %8s %8s %8s %8s %8s  %-20s %s\n", title, "function", "self A",
                    "self B", "total A", "total B", "Δ total", "CI of Δ total", "verdict");
        size_t shown = 0;
        for (size_t k = 0; k < r->ncpu && shown < top; k++) {
            size_t i = pass == 0 ? k : r->ncpu - 1 - k;
            const struct diff_cpu_func *c = &r->cpu[i];
            double d = diff_cpu_share(r, c->total, 1) - diff_cpu_share(r, c->total, 0);
            if (pass == 0 && !(d > 0)) break;
            if (pass == 1 && !(d < 0)) break;
            char ci[64] = "-";
            if (c->ci_total.have)
                snprintf(ci, sizeof(ci), "[%+.2f, %+.2f]", 100 * c->ci_total.lo,
                         100 * c->ci_total.hi);
            double v[5] = {diff_cpu_share(r, c->self, 0), diff_cpu_share(r, c->self, 1),
                           diff_cpu_share(r, c->total, 0), diff_cpu_share(r, c->total, 1), d};
            char en[1024];
            if (md)
                fprintf(f, "| `%s` | %.2f | %.2f | %.2f | %.2f | %+.2f | %s | %s |\n",
                        ESC(en, c->name), v[0], v[1], v[2], v[3], v[4], ci,
                        diff_cpu_verdict(&c->ci_total));
            else
                fprintf(f, "  %-40.40s %8.2f %8.2f %8.2f %8.2f %+8.2f  %-20s %s\n",
                        ESC(en, c->name), v[0], v[1], v[2], v[3], v[4], ci,
                        diff_cpu_verdict(&c->ci_total));
            shown++;
        }
        if (!shown) fprintf(f, md ? "| (none) ||||||||\n" : "  (none)\n");
    }
}

static int diff_traces(struct cli *c)
{
    if (c->na != 1 || c->nb != 1) {
        pr_err("traces: give one trace (file or rank directory) per side\n");
        return LAT_EXIT_USAGE;
    }
    struct tside sa = {0}, sb = {0};
    int ret = LAT_EXIT_USAGE;
    if (load_trace_side(c->a[0], &sa) || load_trace_side(c->b[0], &sb)) goto out;
    struct diff_trace_result r;
    char err[512] = "";
    int rc = diff_trace_compare(sa.t, sa.n, sb.t, sb.n, &c->to, &r, err, sizeof(err));
    if (rc) {
        {
            char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
            pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err[0] ? err : lat_strerror(rc)));
        }
        ret = rc == -ENOMEM ? LAT_EXIT_FAILURE : LAT_EXIT_USAGE;
        goto out;
    }
    /* --fail-if on the step rows ('step.dur_us > +5%'): Welch over steps decides */
    bool fired[MAX_RULES], untested[MAX_RULES];
    const struct diff_row *first[MAX_RULES];
    size_t nfired = eval_rules(c, &r.scal, fired, untested, first);
    FILE *f = stdout;
    if (c->fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, f, true);
        struct diff_json_rules jr = {c->rules, c->nrules, fired, untested, first};
        diff_trace_write_json(&w, c->a[0], c->b[0], &c->to, &r, &jr);
        jsonw_raw(&w, "\n", 1);
        jsonw_finish(&w);
        jsonw_fini(&w);
    } else if (c->fmt == LAT_FMT_CSV) {
        fputs("name,device,control_counts,test_counts,diff_counts,control_total_duration_us,"
              "test_total_duration_us,diff_duration_us,counts_change_categories,status\n",
              f);
        for (size_t i = 0; i < r.nops; i++) {
            const struct diff_op *op = &r.ops[i];
            csv_field(f, op->name);
            fprintf(f, ",%s,%llu,%llu,%lld,%.3f,%.3f,%.3f,%c,%s\n", op->gpu ? "gpu" : "cpu",
                    (unsigned long long)op->count[0], (unsigned long long)op->count[1],
                    (long long)op->count[1] - (long long)op->count[0], (double)op->dur[0] / 1e3,
                    (double)op->dur[1] / 1e3, (double)(op->dur[1] - op->dur[0]) / 1e3, op->change,
                    op->status);
        }
    } else {
        bool md = c->fmt == LAT_FMT_MD;
        char ea[1024], eb[1024];
        fprintf(f, "%slatscope diff: before %s, after %s (traces)\n", md ? "## " : "",
                ESC(ea, c->a[0]), ESC(eb, c->b[0]));
        if (r.steps[0] || r.steps[1])
            fprintf(f, "%ssteps compared: %llu before, %llu after; %g %% intervals over steps%s\n",
                    md ? "\n" : "", (unsigned long long)r.steps[0], (unsigned long long)r.steps[1],
                    c->to.conf * 100, md ? "\n" : "");
        else if (r.doc_steps[0] || r.doc_steps[1]) /* ONNX Runtime runs: no step table */
            fprintf(f,
                    "%ssteps compared: none in the step table (the doctor judged %llu runs "
                    "before, %llu after)%s\n",
                    md ? "\n" : "", (unsigned long long)r.doc_steps[0],
                    (unsigned long long)r.doc_steps[1], md ? "\n" : "");
        else
            fprintf(f, "%ssteps compared: none (no ProfilerStep on either side)%s\n",
                    md ? "\n" : "", md ? "\n" : "");
        print_notes(f, &r.scal, md);
        text_rows(f, &r.scal, md, c->to.conf);
        text_findings(f, r.findings, r.nfindings, false, md);
        text_ops(f, &r, c->top ? c->top : 20, md);
        text_cpu(f, &r, c->top ? c->top : 20, md, c->to.conf);
        if (c->nrules) fputc('\n', f);
        text_rules(f, c, fired, untested, first, md);
    }
    diff_trace_result_fini(&r);
    ret = rules_exit(c, nfired, untested);
out:
    tside_free(&sa);
    tside_free(&sb);
    return ret;
}

int cmd_diff(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    struct cli c = {.fmt = LAT_FMT_TEXT};
    diff_bench_opts_default(&c.bo);
    diff_trace_opts_default(&c.to);
    int prc = parse_args(argc, argv, &c);
    int ret;
    if (prc) {
        if (prc < 0)
            fputs("usage: latscope diff [OPTIONS] BEFORE AFTER  (--help for details)\n", stderr);
        ret = prc > 0 ? LAT_EXIT_OK : LAT_EXIT_USAGE;
        goto done;
    }
    enum diff_kind k0;
    char err[1024];
    if (ingest_trace_file(c.a[0])) {
        k0 = DIFF_KIND_TRACE;
    } else if (diff_sniff(c.a[0], &k0, err, sizeof(err))) {
        {
            char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
            pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err));
        }
        ret = LAT_EXIT_USAGE;
        goto done;
    }
    if (k0 == DIFF_KIND_TRACE) {
        enum diff_kind k1;
        if (ingest_trace_file(c.b[0])) {
            k1 = DIFF_KIND_TRACE;
        } else if (diff_sniff(c.b[0], &k1, err, sizeof(err))) {
            {
                char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
                pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err));
            }
            ret = LAT_EXIT_USAGE;
            goto done;
        }
        if (k1 != DIFF_KIND_TRACE) {
            pr_err("%s is a %s, but %s is a trace: compare two bench results or two traces\n",
                   c.b[0], diff_kind_name(k1), c.a[0]);
            ret = LAT_EXIT_USAGE;
            goto done;
        }
        ret = diff_traces(&c);
    } else {
        ret = diff_bench(&c, k0);
    }
done:
    cli_result_fini(&c.args);
    return ret;
}
