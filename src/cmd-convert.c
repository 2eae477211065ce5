/*
 * cmd-convert.c - `latscope convert IN -o OUT`: any input latscope reads (Kineto/Chrome JSON,
 * ONNX Runtime profiles, nsys SQLite exports, py-spy/perf/collapsed CPU stack files) written as
 * Kineto JSON through the exporter (export/kineto_write.h), so Perfetto, TensorBoard and HTA
 * open it; or, for CPU samples, as folded stacks or an SVG flame graph (capture/cpu/stacks.h).
 * The output path is checked before the input is read. docs/latscope-convert.md.
 */
#define PR_FMT "convert"
#include "capture/cpu/stacks.h"
#include "core/err.h"
#include "core/log.h"
#include "export/kineto_write.h"
#include "ingest/ingest.h"
#include "latscope.h"
#include "model/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: latscope convert [OPTIONS] INPUT -o OUTPUT\n"
    "\n"
    "Reads one trace (anything `analyze` reads: Kineto/Chrome JSON, ONNX Runtime profiles,\n"
    "nsys SQLite exports, py-spy speedscope / raw, collapsed stacks, `perf script` text) and\n"
    "writes it again. The output's name picks the format:\n"
    "  *.json               Kineto trace JSON (Perfetto, TensorBoard, HTA, `latscope analyze`)\n"
    "  *.json.gz            the same, gzip-compressed\n"
    "  *.folded, *.collapsed  folded stacks of the CPU samples (flamegraph.pl, speedscope)\n"
    "  *.svg                an SVG flame graph of the CPU samples\n"
    "  -                    Kineto JSON on stdout\n"
    "\n";

static const char footer_text[] =
    "Exit status: 0 written, 1 the output could not be written completely, 2 usage or input\n"
    "error (nothing written). See docs/latscope-convert.md.\n";

enum { OPT_OUTPUT, OPT_PRETTY, OPT_TITLE };

static const struct cli_opt options[] = {
    {"output", 'o', "FILE", OPT_OUTPUT, 0,
     "where to write (required; checked before the input is read)"},
    {"pretty", 0, NULL, OPT_PRETTY, 0, "indented JSON"},
    {"title", 0, "TEXT", OPT_TITLE, 0, "the flame graph's title (default: the input's name)"},
    {0},
};

struct convert_args {
    const char *out, *title;
    bool pretty;
};

static int on_opt(void *ctx, int id, const char *v)
{
    struct convert_args *a = ctx;
    switch (id) {
    case OPT_OUTPUT:
        a->out = v;
        return 0;
    case OPT_TITLE:
        a->title = v;
        return 0;
    case OPT_PRETTY:
        a->pretty = true;
        return 0;
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

enum out_kind { OUT_KINETO, OUT_FOLDED, OUT_SVG };

static bool has_sfx(const char *s, const char *suf)
{
    size_t l = strlen(s), k = strlen(suf);
    return l >= k && strcasecmp(s + l - k, suf) == 0;
}

/* The on-CPU samples of t as a stackset (frames split at ';'); returns the sample count. */
static uint64_t build_stacks(const struct lat_trace *t, struct stackset *ss, int *err)
{
    uint32_t k_stack = strtab_find(&t->strs, "stack", 5);
    uint32_t k_state = strtab_find(&t->strs, "state", 5);
    uint32_t k_weight = strtab_find(&t->strs, "weight", 6);
    uint64_t n = 0;
    uint32_t *fr = NULL;
    size_t cap = 0;
    *err = 0;
    for (size_t i = 0; i < t->ev.n && !*err; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        const char *stack = "[unknown]";
        bool off = false;
        for (uint32_t a = 0; a < t->ev.nargs[i]; a++) {
            const struct lat_arg *arg = &t->args[t->ev.args[i] + a];
            if (arg->key == k_stack && arg->type == LAT_ARG_STR && arg->str)
                stack = lat_trace_str(t, arg->str);
            if (arg->key == k_state && arg->type == LAT_ARG_STR)
                off = !strcmp(lat_trace_str(t, arg->str), "off");
        }
        if (off) continue; /* off-CPU intervals are time, not samples */
        size_t nf = 0;
        for (const char *p = stack;;) {
            const char *e = strchr(p, ';');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            XGROW(fr, cap, nf, 1, 64);
            if ((*err = stackset_frame(ss, p, len, &fr[nf]))) break;
            nf++;
            if (!e) break;
            p = e + 1;
        }
        uint32_t id;
        if (*err || (*err = stackset_intern(ss, fr, (uint32_t)nf, &id))) break;
        uint64_t w = lat_sample_weight(t, i, k_weight); /* a folded line's count */
        ss->stacks[id].count += w;
        n += w;
    }
    free(fr);
    return n;
}

/* The output's format by its name; -1 (said) when the name says none. */
static int out_kind_of(const char *out, enum out_kind *kind)
{
    *kind = OUT_KINETO;
    if (has_sfx(out, ".folded") || has_sfx(out, ".collapsed"))
        *kind = OUT_FOLDED;
    else if (has_sfx(out, ".svg"))
        *kind = OUT_SVG;
    else if (strcmp(out, "-") && !has_sfx(out, ".json") && !has_sfx(out, ".json.gz") &&
             !has_sfx(out, ".gz")) {
        pr_err("-o %s: the name says which format to write: .json or .json.gz (Kineto), "
               ".folded / .collapsed (folded stacks) or .svg (flame graph)\n",
               out);
        return -1;
    }
    return 0;
}

/* Kineto JSON, with its provenance: how the reader gives an ONNX Runtime profile its meaning
 * again. The exit code. */
static int write_kineto(struct lat_trace *t, const char *in, const char *out, bool pretty)
{
    bool have = false;
    for (size_t i = 0; i < t->nmeta && !have; i++)
        have = !strcmp(lat_trace_str(t, t->meta[i].key), "latscope_converted_from");
    if (!have && t->format) {
        char v[64];
        snprintf(v, sizeof(v), "\"%s\"", t->format);
        uint32_t k, val;
        if (lat_trace_intern(t, "latscope_converted_from", 23, &k) ||
            lat_trace_intern(t, v, strlen(v), &val) || lat_trace_add_meta(t, k, val)) {
            pr_err("%s\n", lat_strerror(-ENOMEM));
            return LAT_EXIT_FAILURE;
        }
    }
    struct kineto_write_opts wo = {.pretty = pretty, .gzip = -1};
    int rc = kineto_write_file(t, out, &wo);
    if (rc) {
        pr_err("%s: write failed: %s\n", out, lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    pr_info("wrote %s: %zu events (%s) from %s\n", out, t->ev.n, t->format ? t->format : "trace",
            in);
    return LAT_EXIT_OK;
}

/* Folded stacks or a flame graph of the trace's CPU samples. The exit code. */
static int write_stacks(const struct lat_trace *t, enum out_kind kind, const char *in,
                        const char *out, const char *title)
{
    struct stackset ss;
    stackset_init(&ss);
    int e = 0, rc, ret = LAT_EXIT_OK;
    uint64_t n = build_stacks(t, &ss, &e);
    FILE *f = NULL;
    if (e) {
        pr_err("%s: %s\n", in, lat_strerror(e));
        ret = LAT_EXIT_FAILURE;
    } else if (!n) {
        pr_err("%s: no CPU samples to draw (%s output needs a CPU sampler's trace: `latscope "
               "trace --cpu`, py-spy, perf script, collapsed stacks); nothing written\n",
               in, kind == OUT_SVG ? "flame graph" : "folded");
        ret = LAT_EXIT_USAGE;
    } else if (!(f = !strcmp(out, "-") ? stdout : fopen(out, "w"))) {
        pr_err("%s: %s\n", out, strerror(errno));
        ret = LAT_EXIT_FAILURE;
    } else {
        rc = kind == OUT_SVG ? stackset_write_svg(&ss, f, title ? title : in)
                             : stackset_write_folded(&ss, f);
        if (f != stdout && fclose(f) && !rc) rc = -errno;
        if (rc) {
            pr_err("%s: write failed: %s\n", out, lat_strerror(rc));
            ret = LAT_EXIT_FAILURE;
        } else {
            pr_info("wrote %s: %llu samples, %u distinct stacks from %s\n", out,
                    (unsigned long long)n, ss.nstacks, in);
        }
    }
    stackset_fini(&ss);
    return ret;
}

int cmd_convert(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    struct convert_args args = {0};
    struct cli_spec spec = {"convert", usage_text, footer_text, options, on_opt, &args, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    if (cr.npos > 1) {
        pr_err("one input at a time (got '%s' and '%s'): convert each file\n", cr.pos[0],
               cr.pos[1]);
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    const char *in = cr.npos ? cr.pos[0] : NULL, *out = args.out;
    cli_result_fini(&cr); /* in points into argv, not into cr */
    if (!in || !out) {
        pr_err("%s\n", !in ? "no input given: latscope convert INPUT -o OUTPUT"
                           : "no output given: add -o OUTPUT (.json, .json.gz, .folded or .svg)");
        return LAT_EXIT_USAGE;
    }
    if (lat_check_output("convert", "-o", out, "nothing was read")) /* before the input */
        return LAT_EXIT_USAGE;
    enum out_kind kind;
    if (out_kind_of(out, &kind)) return LAT_EXIT_USAGE;
    /* every arg: the promoted ones (stream, correlation, External id...) are written back */
    struct lat_ingest_opts io = {.flags = LAT_INGEST_ARGS_ALL};
    struct lat_ingest_set *set = lat_load_traces("convert", &in, 1, &io);
    if (!set) return LAT_EXIT_USAGE;
    size_t loaded = ingest_set_loaded(set);
    if (loaded != 1) {
        pr_err("%s: holds %zu traces; convert writes one: convert each file\n", in, loaded);
        ingest_set_free(set);
        return LAT_EXIT_USAGE;
    }
    struct lat_trace *t = NULL;
    for (size_t i = 0; i < set->n && !t; i++)
        t = set->files[i].trace;
    int ret = kind == OUT_KINETO ? write_kineto(t, in, out, args.pretty)
                                 : write_stacks(t, kind, in, out, args.title);
    ingest_set_free(set);
    return ret;
}
