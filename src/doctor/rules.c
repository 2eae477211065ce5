/*
 * rules.c - the doctor's rule table and driver. Each rule is one file (rule-*.c, signature
 * doc_rule_fn) and one row below; doctor_run() derives what the trace holds, runs the rules
 * that apply in table order, and writes which rule families ran and which did not apply (and
 * why) into the trace summary, so a report never reads as a clean bill for an input the rules
 * cannot judge. Thresholds and their sources: DOC_THRESHOLDS (doctor.h) and
 * docs/latscope-doctor.md.
 */
#include "doctor/rules.h"
#include "analyze/tf.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/trt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rules, in the order they run: (function suffix, name, finding ids, family, needs,
 * excludes). One line per rule: it declares doc_rule_<fn> (defined with DOC_RULE in
 * rule-<name>.c) and makes its table entry. */
/* clang-format off */
#define DOC_RULES(X) \
    X(dataloader,        "dataloader",        "dataloader",                                           "data",     DOC_HAVE_DATALOADER,               0)            \
    X(host_idle,         "host",              "launch-bound cpu-pre-post-processing host-bound-idle", "gpu",      DOC_HAVE_GPU,                      0)            \
    X(sync,              "sync",              "sync-points",                                          "gpu",      DOC_HAVE_GPU,                      0)            \
    X(memcpy,            "memcpy",            "memcpy-exposed",                                       "gpu",      DOC_HAVE_GPU,                      0)            \
    X(kernels,           "kernels",           "dominant-kernels fp32-no-tensor-cores underfilled-gpu", "gpu",     DOC_HAVE_GPU,                      0)            \
    X(comm,              "comm",              "exposed-communication",                                "gpu",      DOC_HAVE_GPU,                      0)            \
    X(alloc,             "alloc",             "allocator-churn memory-pressure",                      "gpu",      DOC_HAVE_GPU,                      0)            \
    X(perfmodel,         "perfmodel",         "below-peak",                                           "gpu",      DOC_HAVE_GPU,                      0)            \
    X(cpu_contention,    "cpu-contention",    "cpu-contention",                                       "cpu",      DOC_HAVE_CPU_OPS | DOC_HAVE_STEPS, DOC_HAVE_GPU) \
    X(cpu_python,        "cpu-python",        "cpu-python-overhead",                                  "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU | DOC_HAVE_TF) \
    X(cpu_preprocessing, "cpu-preprocessing", "cpu-preprocessing",                                    "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU | DOC_HAVE_TF) \
    X(cpu_small_ops,     "cpu-small-ops",     "cpu-small-ops",                                        "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU | DOC_HAVE_TF) \
    X(cpu_eager,         "cpu-eager",         "cpu-eager",                                            "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU | DOC_HAVE_TF) \
    X(cpu_alloc,         "cpu-alloc",         "cpu-allocation-churn",                                 "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU | DOC_HAVE_TF) \
    X(ort,               "ort",               "ort-executor-overhead",                                "cpu",      DOC_HAVE_CPU_OPS | DOC_HAVE_STEPS, DOC_HAVE_GPU) \
    X(cpu_oversub,       "cpu-oversub",       "cpu-oversubscription",                                 "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU | DOC_HAVE_TF) \
    X(cpu_samples,       "cpu-samples",       "cpu-hot-function cpu-hot-native cpu-interpreter cpu-startup cpu-gc", "cpu", DOC_HAVE_CPU_SAMPLES, DOC_HAVE_GPU | DOC_HAVE_CPU_OPS) \
    X(ort_fallback,      "ort-fallback",      "ort-cpu-fallback",                                     "cpu",      DOC_HAVE_CPU_OPS,                  DOC_HAVE_GPU) \
    X(trt_enqueue,       "trt-enqueue",       "trt-enqueue-bound",                                    "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_transfers,     "trt-transfers",     "trt-h2d-bound trt-d2h-bound",                          "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_unstable,      "trt-unstable",      "trt-unstable",                                         "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_streams,       "trt-streams",       "trt-multi-stream",                                     "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_reformat,      "trt-reformat",      "trt-reformat-layers",                                  "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_fp32,          "trt-fp32",          "trt-fp32-layers",                                      "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_dominant,      "trt-dominant",      "trt-dominant-layer",                                   "gpu",      DOC_HAVE_TRT,                      0)            \
    X(trt_inflation,     "trt-inflation",     "trt-profile-inflation",                                "gpu",      DOC_HAVE_TRT,                      0)            \
    X(tf_ops,            "tf-ops",            "tf-dominant-op",                                       "cpu",      DOC_HAVE_TF | DOC_HAVE_CPU_OPS,    0)            \
    X(tf_eager,          "tf-eager",          "tf-eager-ops",                                         "cpu",      DOC_HAVE_TF | DOC_HAVE_CPU_OPS,    0)            \
    X(tf_host,           "tf-host",           "tf-host-idle tf-input-pipeline",                       "cpu",      DOC_HAVE_TF | DOC_HAVE_STEPS,      0)            \
    X(tail,              "tail",              "tail-steps",                                           "steps",    DOC_HAVE_STEPS,                    0)            \
    X(overhead,          "overhead",          "profiler-overhead",                                    "profiler", 0,                                 0) \
    X(ncu,               "ncu",               "ncu-kernel-speedup ncu-low-occupancy",                 "gpu",      DOC_HAVE_NCU,                      0) \
    X(straggler,         "straggler",         "straggler-rank comm-wait-rank",                        "steps",    DOC_HAVE_RANKS,                    0)

#define DOC_RULE_DECL(fn, name, ids, fam, needs, excl) void doc_rule_##fn(struct doc_ctx *c);
DOC_RULES(DOC_RULE_DECL)
#undef DOC_RULE_DECL

const struct doc_rule doc_rules[] = {
#define DOC_RULE_ROW(fn, name, ids, fam, needs, excl) {name, ids, fam, needs, excl, doc_rule_##fn},
    DOC_RULES(DOC_RULE_ROW)
#undef DOC_RULE_ROW
};
/* clang-format on */
const size_t doc_nrules = sizeof(doc_rules) / sizeof(doc_rules[0]);

/* The families in the order reports list them, with what each needs. A family "judges" the
 * workload when it looks inside the steps (gpu, cpu, data); steps and profiler alone do not. */
static const struct {
    const char *name, *label;
    bool judges;
} doc_families[] = {
    {"gpu", "GPU", true},
    {"cpu", "CPU inference", true},
    {"data", "data loading", true},
    {"steps", "step variance", false},
    {"profiler", "profiler", false},
};

/* Why a rule of family fam does not apply, from what the trace holds. */
static const char *why_not(const char *fam, unsigned have)
{
    if (!strcmp(fam, "gpu")) return "no kernels, copies or CUDA runtime calls";
    if (!strcmp(fam, "cpu"))
        return (have & DOC_HAVE_GPU) ? "the trace has GPU activity: the GPU rules judge the host"
                                     : "no framework operator (cpu_op) inside the steps";
    if (!strcmp(fam, "data")) return "no DataLoader op";
    if (!strcmp(fam, "steps")) return "fewer ProfilerSteps than tail_min_steps";
    return "no step or trace window";
}

static unsigned trace_has(const struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    unsigned h = 0;
    if (c->nsteps && c->step_mean > 0) h |= DOC_HAVE_WINDOW;
    /* a kernel profile: its kernels are replays laid end to end, not a timeline to judge */
    if (t->role == LAT_TRACE_KERNEL_PROFILE) return h | DOC_HAVE_NCU;
    if (c->ng) h |= DOC_HAVE_GPU;
    if (c->dataloader.n) h |= DOC_HAVE_DATALOADER;
    if (lat_trace_has(t, LAT_FCAP_TF_OPS))
        h |= DOC_HAVE_TF; /* its own CPU rules: the PyTorch ones do not apply */
    if (c->steps_real && c->nsteps >= (size_t)c->o->th.tail_min_steps) h |= DOC_HAVE_STEPS;
    if (doc_trt_judgeable(t)) h |= DOC_HAVE_TRT;
    if (c->o->job_ranks >= 3 && c->steps_real && c->nsteps && t->role == LAT_TRACE_TIMELINE)
        h |= DOC_HAVE_RANKS;
    uint64_t nsamples = 0;
    uint32_t k_weight = strtab_find(&t->strs, "weight", 6);
    for (size_t i = 0; i < t->ev.n; i++) {
        uint16_t k = t->ev.kind[i];
        if (k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER) h |= DOC_HAVE_GPU;
        if (k == LAT_EV_CPU_SAMPLE) nsamples += lat_sample_weight(t, i, k_weight);
        if (k == LAT_EV_CPU_OP && t->ev.dur[i] > 0 && !doc_is_step_event(c, i) &&
            doc_step_at(c, t->ev.ts[i]) >= 0)
            h |= DOC_HAVE_CPU_OPS;
    }
    if (nsamples >= DOC_MIN_CPU_SAMPLES) h |= DOC_HAVE_CPU_SAMPLES;
    return h;
}

/* One sentence on what the input is, for "no rule applies to this input (...)". */
static void describe_input(struct doc_ctx *c, struct doc_summary *s)
{
    const struct lat_trace *t = c->t;
    size_t nk[LAT_EV_KIND_COUNT] = {0};
    uint64_t nsamples = 0; /* CPU samples count by weight (one event may be many) */
    uint32_t k_weight = strtab_find(&t->strs, "weight", 6);
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] < LAT_EV_KIND_COUNT) nk[t->ev.kind[i]]++;
        if (t->ev.kind[i] == LAT_EV_CPU_SAMPLE) nsamples += lat_sample_weight(t, i, k_weight);
    }
    const char *fmt = t->format ? t->format : "trace";
    const char *what = t->fmt ? t->fmt->what : NULL;
    char kinds[256] = "";
    size_t o = 0;
    if (nk[LAT_EV_CPU_OP] && o < sizeof(kinds))
        o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, ", %zu cpu_op events",
                              nk[LAT_EV_CPU_OP]);
    if (nk[LAT_EV_USER_ANNOTATION] && o < sizeof(kinds))
        o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, ", %zu annotations",
                              nk[LAT_EV_USER_ANNOTATION]);
    if (nk[LAT_EV_CPU_SAMPLE] && o < sizeof(kinds))
        o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, ", %llu CPU samples",
                              (unsigned long long)nsamples);
    if (nk[LAT_EV_OTHER] && o < sizeof(kinds))
        o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, ", %zu event%s of other categories",
                              nk[LAT_EV_OTHER], nk[LAT_EV_OTHER] == 1 ? "" : "s");
    (void)o;
    char steps[48] = "";
    if (c->steps_real)
        snprintf(steps, sizeof(steps), ", %zu ProfilerStep%s", c->nsteps,
                 c->nsteps == 1 ? "" : "s");
    const char *kind = what ? what : fmt, *sfx = what ? "" : " trace";
    const char *pl = t->ev.n == 1 ? "" : "s";
    if (!t->ev.n)
        doc_set(c->r, &s->what, "%s%s with no events", kind, sfx);
    else if (!(c->have & DOC_HAVE_WINDOW))
        doc_set(c->r, &s->what, "%s%s: %zu event%s, none with a duration to judge", kind, sfx,
                t->ev.n, pl);
    else
        doc_set(c->r, &s->what,
                "%s%s: %zu event%s%s%s; no framework operator inside a step and no GPU "
                "activity, which is what the rules read",
                kind, sfx, t->ev.n, pl, steps, kinds);
}

static void fill_summary(struct doc_ctx *c, struct doc_summary *s, const struct doc_idle *d,
                         const struct doc_launch *l)
{
    const struct lat_trace *t = c->t;
    double nst = c->nsteps ? (double)c->nsteps : 1.0;
    s->format = t->format;
    s->fmt = t->fmt;
    s->rank = t->rank;
    s->nsteps = c->steps_real ? c->nsteps : 0;
    s->steps_real = c->steps_real;
    s->step_mean = c->step_mean;
    if (!s->step_median) {
        s->step_median = c->step_mean;
        s->step_p90 = s->step_max = c->step_mean;
        if (c->nsteps) {
            lat_ns *v = malloc(c->nsteps * sizeof(*v));
            if (v) {
                for (size_t i = 0; i < c->nsteps; i++)
                    v[i] = c->steps[i].end - c->steps[i].ts;
                qsort(v, c->nsteps, sizeof(*v), lat_cmp_i64);
                size_t n = c->nsteps;
                s->step_median = (lat_ns)lat_median_i64(v, n);
                s->step_p90 = lat_pctl_i64(v, n, 90);
                s->step_max = v[n - 1];
                free(v);
            }
        }
    }
    lat_ns busy = 0, kern = 0;
    for (size_t i = 0; i < c->nsteps; i++) {
        busy += lat_ivl_measure_in(&c->busy, c->steps[i].ts, c->steps[i].end);
        kern += lat_ivl_measure_in(&c->kernels, c->steps[i].ts, c->steps[i].end);
    }
    s->gpu_busy = (lat_ns)((double)busy / nst);
    s->kernel = (lat_ns)((double)kern / nst);
    s->idle = c->ng ? c->step_mean - s->gpu_busy : 0;
    s->host_idle = (lat_ns)((double)d->host_late / nst);
    s->sync_bubble = (lat_ns)((double)d->sync_bubble / nst);
    struct lat_ivl_set hd = {0}, ex = {0};
    for (size_t k = 0; k < c->ng; k++) {
        const char *nm = doc_name(c, c->g[k].ev);
        if (c->g[k].kind == LAT_EV_MEMCPY && c->g[k].step >= 0 &&
            (strstr(nm, "HtoD") || strstr(nm, "DtoH")))
            lat_ivl_push(&hd, c->g[k].ts, c->g[k].end);
    }
    lat_ivl_merge(&hd);
    if (!lat_ivl_subtract(&hd, &c->kernels, &ex))
        s->memcpy_exposed = (lat_ns)((double)lat_ivl_measure(&ex) / nst);
    lat_ivl_reset(&ex);
    if (!lat_ivl_subtract(&c->comm, &c->kernels, &ex)) {
        lat_ns m = 0;
        for (size_t i = 0; i < ex.n; i++)
            m += lat_ivl_measure_in(&c->steps_set, ex.v[i].ts, ex.v[i].end);
        s->comm_exposed = (lat_ns)((double)m / nst);
    }
    lat_ivl_fini(&hd);
    lat_ivl_fini(&ex);
    s->kernels_per_step = (double)l->kernels / nst;
    s->short_kernel_pct = l->with_launch ? 100.0 * (double)l->short_kernels / l->with_launch : 0;
    s->graph_launches = c->graph_launches;
    s->gpu_events = c->ng;
    for (size_t i = 0; i < t->ev.n; i++) {
        uint16_t k = t->ev.kind[i];
        if (k == LAT_EV_CPU_OP || k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER) s->cpu_events++;
    }
    s->num_sms = t->ndevices ? t->devices[0].num_sms : -1;
    s->compute_major = t->ndevices ? t->devices[0].compute_major : -1;
}

int doctor_run(struct doc_report *r, const struct lat_trace *t, const struct doc_opts *o)
{
    if (!r || !t || !o) return LAT_E_USAGE;
    if (r->err) return r->err;
    int grc = LAT_GROW(r->traces, r->traces_cap, r->ntraces, 1, 4);
    if (grc) return grc;
    int ti = (int)r->ntraces;
    struct doc_summary *sum = &r->traces[r->ntraces++];
    memset(sum, 0, sizeof(*sum));
    sum->rank = -1;
    sum->num_sms = sum->compute_major = -1;
    if (t->path && !(sum->path = strdup(t->path))) return r->err = -ENOMEM;
    struct doc_ctx c;
    struct doc_idle d;
    struct doc_launch l;
    memset(&d, 0, sizeof(d));
    memset(&l, 0, sizeof(l));
    doc_top_init(&d.gaps, o->max_examples);
    doc_top_init(&d.syncs, o->max_examples);
    int rc = doc_ctx_init(&c, t, o, r, ti);
    if (rc) goto out;
    sum->format = t->format;
    sum->fmt = t->fmt;
    c.sum = sum;
    c.have = trace_has(&c);
    sum->have = c.have;
    /* a TensorRT log or summary has numbers but no timeline, collapsed stacks samples without
     * times: only their rules run */
    const unsigned untimed = DOC_HAVE_TRT | DOC_HAVE_CPU_SAMPLES;
    bool trt_only = !(c.have & DOC_HAVE_WINDOW) && (c.have & untimed);
    if (!(c.have & DOC_HAVE_WINDOW) && !trt_only) { /* nothing with a duration: nothing to judge */
        describe_input(&c, sum);
        goto out;
    }
    if (!trt_only) {
        rc = doc_idle_decompose(&c, &d);
        if (rc) goto out;
        doc_launch_stats(&c, &l);
    }
    c.idle = &d;
    c.launch = &l;
    for (size_t i = 0; i < doc_nrules && !r->err; i++) {
        const struct doc_rule *ru = &doc_rules[i];
        if ((c.have & ru->needs) != ru->needs || (c.have & ru->excludes)) continue;
        if (trt_only && !(ru->needs & untimed)) continue;
        ru->run(&c);
        for (size_t k = 0; k < sizeof(doc_families) / sizeof(doc_families[0]); k++)
            if (!strcmp(doc_families[k].name, ru->family)) sum->families_ran |= 1u << k;
    }
    for (size_t k = 0; k < sizeof(doc_families) / sizeof(doc_families[0]); k++)
        if ((sum->families_ran >> k & 1) && doc_families[k].judges) sum->judged = true;
    fill_summary(&c, sum, &d, &l);
    if (!sum->judged) describe_input(&c, sum);
    /* A saving below min_saving_pct of the step is noise for ranking: keep it as a note. */
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i].trace == ti && r->f[i].severity == DOC_SEV_LOW &&
            r->f[i].saving_pct < o->th.min_saving_pct)
            r->f[i].severity = DOC_SEV_INFO;
out:
    doc_idle_fini(&d);
    if (c.cpu) {
        doc_cpuops_fini(c.cpu);
        free(c.cpu);
    }
    doc_ctx_fini(&c);
    if (rc && !r->err) r->err = rc;
    return r->err;
}

const char *doctor_finding_family(const char *id)
{
    size_t n = strlen(id);
    for (size_t i = 0; i < doc_nrules; i++)
        for (const char *p = doc_rules[i].ids; (p = strstr(p, id)); p += n)
            if ((p == doc_rules[i].ids || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
                return doc_rules[i].family;
    return NULL;
}

size_t doctor_families(const struct doc_summary *s, struct doc_family_use *out, size_t max)
{
    size_t n = 0;
    for (size_t k = 0; k < sizeof(doc_families) / sizeof(doc_families[0]) && n < max; k++) {
        out[n].name = doc_families[k].name;
        out[n].label = doc_families[k].label;
        out[n].ran = (s->families_ran >> k & 1) != 0;
        out[n].why = out[n].ran ? NULL : why_not(doc_families[k].name, s->have);
        n++;
    }
    return n;
}
