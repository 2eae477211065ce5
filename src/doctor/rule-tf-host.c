/*
 * rule-tf-host.c - TensorFlow profiles with steps (tf.profiler.experimental.Trace(...,
 * step_num=N)) only. Two findings from analyze/tf.c:
 *   - "tf-host-idle": inside the steps, no op runs on any host thread for >= TF_IDLE_PCT of the
 *     step time (Python between ops, the executor's hand-offs, waiting for input). Saving bound:
 *     the idle time per step.
 *   - "tf-input-pipeline": the input pipeline (IteratorGetNext*, tf.data's Iterator::* regions)
 *     covers >= TF_INPUT_PCT of the step time. Saving bound: that time per step (prefetching
 *     overlaps it with the step).
 */
#include "analyze/tf.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TF_IDLE_PCT  20.0
#define TF_INPUT_PCT 10.0

DOC_RULE(tf_host)
{
    if (!lat_tf_is(c->t)) return;
    struct lat_tf_summary s;
    if (lat_tf_summarize(c->t, 5, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    if (!s.steps || !s.step_wall) {
        lat_tf_summary_fini(&s);
        return;
    }
    lat_ns step_mean = (lat_ns)s.step_mean_ns;
    char b1[32];
    if (s.host_idle_pct >= TF_IDLE_PCT) {
        lat_ns per = (lat_ns)((double)s.host_idle / (double)s.steps);
        struct doc_finding *f = doc_finding_add(c->r, "tf-host-idle", c->trace);
        if (!f) goto out;
        doc_saving(f, per, step_mean);
        doc_set(c->r, &f->title,
                "TensorFlow: no op runs on any host thread for %.1f %% of the step time (%s per "
                "step)",
                s.host_idle_pct, doc_fmt_ns(per, b1, sizeof(b1)));
        doc_set(c->r, &f->saving_method,
                "per step: the step wall time (union of the Trace(step_num) regions) minus the "
                "time some op runs on some host thread; an upper bound (part of it is the "
                "framework's necessary work between ops)");
        doc_kv_int(c->r, f, "steps", (int64_t)s.steps);
        doc_kv_us(c->r, f, "step_wall_us", s.step_wall);
        doc_kv_us(c->r, f, "ops_running_us", s.host_busy);
        doc_kv_us(c->r, f, "idle_us", s.host_idle);
        doc_kv_num(c->r, f, "idle_pct", s.host_idle_pct);
        doc_kv_us(c->r, f, "input_pipeline_us", s.input_pipeline);
        doc_kv_num(c->r, f, "threshold_pct", TF_IDLE_PCT);
        doc_set(c->r, &f->recommendation,
                "The step spends this time in Python and in TensorFlow's dispatch, not in ops. "
                "Run the whole step as one tf.function (and jit_compile=True to fuse it with "
                "XLA), move per-step Python (conversions with tf.constant/np.asarray, .numpy() "
                "calls, logging) out of the step, feed inputs from a tf.data pipeline with "
                ".prefetch(tf.data.AUTOTUNE), and batch requests so the per-step cost is "
                "shared.");
        doc_set(c->r, &f->next_step,
                "latscope analyze %s   # TensorFlow section: host idle, graph vs eager",
                doc_trace_arg(c));
    }
    if (s.input_pct >= TF_INPUT_PCT) {
        lat_ns per = (lat_ns)((double)s.input_pipeline / (double)s.steps);
        struct doc_finding *f = doc_finding_add(c->r, "tf-input-pipeline", c->trace);
        if (!f) goto out;
        doc_saving(f, per, step_mean);
        doc_set(c->r, &f->title,
                "TensorFlow: the input pipeline (IteratorGetNext) takes %.1f %% of the step "
                "time (%s per step)",
                s.input_pct, doc_fmt_ns(per, b1, sizeof(b1)));
        doc_set(c->r, &f->saving_method,
                "per step: the union of IteratorGetNext / Iterator::* events inside the steps; "
                "prefetching overlaps it with the compute, so up to all of it");
        doc_kv_us(c->r, f, "input_pipeline_us", s.input_pipeline);
        doc_kv_num(c->r, f, "input_pipeline_pct", s.input_pct);
        doc_kv_num(c->r, f, "threshold_pct", TF_INPUT_PCT);
        doc_set(c->r, &f->recommendation,
                "The step waits for its input. End the tf.data pipeline with "
                ".prefetch(tf.data.AUTOTUNE), map with num_parallel_calls=tf.data.AUTOTUNE, "
                ".cache() what does not change, and move decoding/augmentation off the "
                "critical path (or into the model on the device).");
        doc_set(c->r, &f->next_step,
                "latscope analyze %s   # TensorFlow section: input pipeline time",
                doc_trace_arg(c));
    }
out:
    lat_tf_summary_fini(&s);
}
