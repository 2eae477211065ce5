/*
 * cpu.c - CPU-sample evidence for the doctor's host-side findings (host-bound-idle,
 * launch-bound, cpu-pre-post-processing, dataloader): what the launching thread was doing
 * during the GPU idle windows the finding claims, from the LAT_EV_CPU_SAMPLE events that
 * `latscope trace --cpu` records (summarized by analyze/cpu.h over those windows and that
 * thread only).
 *
 * Shares: the thread's on-CPU samples inside the windows say what it ran; its off-CPU
 * intervals (when recorded) say how long it was blocked or preempted. The share of the idle
 * time spent in function F is estimated as (samples with F on the stack / samples) x (1 -
 * off-CPU share), so a thread that slept through most gaps is not said to have computed in
 * them. The function named in the text is the deepest one (largest mean depth from the root)
 * among those on at least half of the samples (the entry points _start/main/Py_RunMain are on
 * every sample and say nothing); with no such function, the one with most samples.
 */
#include "analyze/cpu.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOC_CPU_TOP 5

bool doc_cpu_has_samples(const struct lat_trace *t)
{
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_CPU_SAMPLE) return true;
    return false;
}

static double mean_depth(const struct lat_cpu_func *f)
{
    return f->total ? (double)f->depth_sum / (double)f->total : 0.0;
}

/* Index into s->funcs_total of the function the text names, -1 when none: the deepest on at
 * least half of the samples, a Python frame when one qualifies (below the deepest Python
 * frame are interpreter internals such as _PyObject_Malloc). */
static long pick_function(const struct lat_cpu_summary *s)
{
    long best = -1, best_py = -1;
    for (size_t i = 0; i < s->nfuncs_total; i++) {
        const struct lat_cpu_func *f = &s->funcs_total[i];
        if (2 * f->total < s->samples) continue;
        if (best < 0 || mean_depth(f) > mean_depth(&s->funcs_total[best])) best = (long)i;
        if (!strncmp(f->name, "py:", 3) &&
            (best_py < 0 || mean_depth(f) > mean_depth(&s->funcs_total[best_py])))
            best_py = (long)i;
    }
    if (best_py >= 0) return best_py;
    if (best < 0 && s->nfuncs_total) best = 0;
    return best;
}

int doc_cpu_evidence(struct doc_ctx *c, struct doc_finding *f, int64_t tid,
                     const struct lat_ivl_set *win, char *text, size_t text_len)
{
    if (text_len) text[0] = '\0';
    if (!f || !win || !win->n || !doc_cpu_has_samples(c->t)) return 0;
    lat_ns len = lat_ivl_measure(win);
    if (len <= 0) return 0;
    lat_ns(*w)[2] = malloc(win->n * sizeof(*w));
    if (!w) return c->r->err = -ENOMEM;
    for (size_t i = 0; i < win->n; i++) {
        w[i][0] = win->v[i].ts;
        w[i][1] = win->v[i].end;
    }
    /* Every function of the windows, so that the pick sees the deep ones too. */
    struct lat_cpu_opts o = {
        .top_n = 100000, .tid = tid, .windows = (const lat_ns(*)[2])w, .nwindows = win->n};
    struct lat_cpu_summary s;
    int rc = lat_cpu_summarize(c->t, &o, &s);
    free(w);
    if (rc) return rc == -ENOMEM ? (c->r->err = -ENOMEM) : 0;
    if (!s.samples && !s.off_intervals) {
        lat_cpu_summary_fini(&s);
        return 0;
    }
    double off_share = (double)s.off_ns / (double)len;
    if (off_share > 1.0) off_share = 1.0;
    double on_share = 1.0 - off_share;
    doc_kv_int(c->r, f, "cpu_thread_tid", tid);
    doc_kv_int(c->r, f, "cpu_samples_in_gaps", (int64_t)s.samples);
    doc_kv_us(c->r, f, "cpu_sample_period_us", s.period_ns);
    doc_kv_us(c->r, f, "cpu_gap_time_us", len);
    doc_kv_us(c->r, f, "cpu_off_cpu_us_in_gaps", s.off_ns);
    doc_kv_num(c->r, f, "cpu_off_cpu_share_of_gaps", off_share);
    long pick = pick_function(&s);
    if (s.samples && pick >= 0) doc_kv_str(c->r, f, "cpu_main_function", s.funcs_total[pick].name);
    /* Table: the functions by self samples (where the time went) with their total share. */
    for (size_t i = 0; i < s.nfuncs && i < DOC_CPU_TOP; i++) {
        const struct lat_cpu_func *fn = &s.funcs[i];
        if (!fn->self) break; /* sorted by self: the rest are callers only */
        double self = (double)fn->self / (double)s.samples,
               total = (double)fn->total / (double)s.samples;
        doc_row_begin(c->r, f, "cpu_functions_in_gaps");
        doc_kv_str(c->r, f, "function", fn->name);
        doc_kv_int(c->r, f, "self_samples", (int64_t)fn->self);
        doc_kv_int(c->r, f, "total_samples", (int64_t)fn->total);
        doc_kv_num(c->r, f, "self_share_of_idle", self * on_share);
        doc_kv_num(c->r, f, "total_share_of_idle", total * on_share);
        doc_row_end(f);
    }
    for (size_t i = 0; i < s.nstacks && i < 3; i++) {
        doc_row_begin(c->r, f, "cpu_stacks_in_gaps");
        doc_kv_str(c->r, f, "stack", s.stacks[i].stack);
        doc_kv_int(c->r, f, "samples", (int64_t)s.stacks[i].samples);
        doc_row_end(f);
    }
    if (text_len) {
        if (s.samples && pick >= 0) {
            const struct lat_cpu_func *fn = &s.funcs_total[pick];
            double share = 100.0 * (double)fn->total / (double)s.samples * on_share;
            int n = snprintf(text, text_len,
                             "during %.0f %% of GPU idle time the launching thread (tid %lld) "
                             "was in %s",
                             share, (long long)tid, fn->name);
            /* the hottest leaf, when it is another function */
            if (n > 0 && (size_t)n < text_len && s.nfuncs && strcmp(s.funcs[0].name, fn->name))
                n += snprintf(text + n, text_len - (size_t)n, " (hottest: %s, %.0f %%)",
                              s.funcs[0].name,
                              100.0 * (double)s.funcs[0].self / (double)s.samples * on_share);
            if (n > 0 && (size_t)n < text_len && s.off_ns > 0)
                snprintf(text + n, text_len - (size_t)n, "; off-CPU %.0f %%", 100.0 * off_share);
        } else {
            snprintf(text, text_len,
                     "during %.0f %% of GPU idle time the launching thread (tid %lld) was "
                     "off-CPU (blocked or waiting for a CPU)",
                     100.0 * off_share, (long long)tid);
        }
    }
    lat_cpu_summary_fini(&s);
    return 1;
}
