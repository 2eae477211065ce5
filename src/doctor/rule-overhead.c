/*
 * rule-overhead.c - R11: the profiler's own overhead and costly profiling options.
 */
#include "core/err.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DOC_RULE(overhead)
{
    const struct lat_trace *t = c->t;
    uint64_t nover = 0, npy = 0;
    lat_ns over = 0, over_in = 0;
    struct doc_top top;
    doc_top_init(&top, c->o->max_examples);
    for (size_t i = 0; i < t->ev.n; i++) {
        uint16_t k = t->ev.kind[i];
        if (k == LAT_EV_PYTHON) npy++;
        if (k != LAT_EV_OVERHEAD || t->ev.dur[i] < 0) continue;
        nover++;
        over += t->ev.dur[i];
        over_in += lat_ivl_measure_in(&c->steps_set, t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i]);
        struct doc_example e;
        doc_example_from(c, i, &e);
        doc_top_add(&top, &e);
    }
    bool stack = doc_meta_true(t, "with_stack"), shapes = doc_meta_true(t, "record_shapes"),
         mem = doc_meta_true(t, "profile_memory");
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)over_in / nst);
    if (PCT(per, c->step_mean) < c->o->th.overhead_pct && !npy && !stack && !mem) return;
    struct doc_finding *f = doc_finding_add(c->r, "profiler-overhead", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    /* Not a saving in production: always advice, ranked after real findings. */
    f->severity = DOC_SEV_INFO;
    char b1[32];
    if (nover)
        doc_set(c->r, &f->title,
                "The profiler itself took %s per %s (%" PRIu64 " overhead events): profiled "
                "latency is not production latency",
                doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c), nover);
    else
        doc_set(c->r, &f->title,
                "Profiling options add overhead (%s%s%s): profiled latency is not production "
                "latency",
                npy ? "Python stack tracing" : "", npy && mem ? ", " : "",
                mem ? "memory profiling" : (stack && !npy ? "with_stack" : ""));
    doc_set(c->r, &f->saving_method,
            "duration of profiler overhead events (buffer requests/flushes) inside steps per "
            "%s; this time is not in the unprofiled program. Python tracing and memory "
            "profiling add more that the trace cannot show",
            doc_per_step(c));
    doc_kv_int(c->r, f, "overhead_events", (int64_t)nover);
    doc_kv_us(c->r, f, "overhead_us_total", over);
    doc_kv_us(c->r, f, "overhead_us_per_step", per);
    doc_kv_int(c->r, f, "python_function_events", (int64_t)npy);
    doc_kv_bool(c->r, f, "with_stack", stack || npy > 0);
    doc_kv_bool(c->r, f, "record_shapes", shapes);
    doc_kv_bool(c->r, f, "profile_memory", mem);
    doc_top_emit(c, f, &top);
    doc_set(c->r, &f->recommendation,
            "Treat the trace as a map of where time goes, not as the latency users see. Profile "
            "with only what you need (with_stack, profile_memory and record_shapes off unless "
            "needed; a torch.profiler.schedule with wait/warmup/active steps), and measure "
            "production latency without the profiler under realistic load.");
    doc_set(c->r, &f->next_step,
            "latscope bench <URL of your inference endpoint>   # open-loop load, correct latency "
            "percentiles");
}
