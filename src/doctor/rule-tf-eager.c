/*
 * rule-tf-eager.c - TensorFlow profiles only: ops run eagerly (EagerLocalExecute: <op>, one
 * Python->C++ dispatch per op) take >= TF_EAGER_PCT of the op time. The saving bound is the
 * eager ops' self time per step (their dispatch overhead is part of it; inside a tf.function the
 * same ops run as one graph). When the profile also holds steps run as a graph (regions whose
 * ops are all graph ops), their mean is shown as evidence of what a graph step costs.
 */
#include "analyze/tf.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TF_EAGER_PCT 20.0

DOC_RULE(tf_eager)
{
    if (!lat_tf_is(c->t)) return;
    struct lat_tf_summary s;
    if (lat_tf_summarize(c->t, 5, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    if (!s.op_self || s.eager_pct < TF_EAGER_PCT) {
        lat_tf_summary_fini(&s);
        return;
    }
    uint64_t nsteps = s.steps ? s.steps : (c->nsteps ? c->nsteps : 1);
    lat_ns step_mean = s.steps ? (lat_ns)s.step_mean_ns : c->step_mean;
    lat_ns per = (lat_ns)((double)s.eager_self / (double)nsteps);
    struct doc_finding *f = doc_finding_add(c->r, "tf-eager-ops", c->trace);
    if (!f) {
        lat_tf_summary_fini(&s);
        return;
    }
    doc_saving(f, per, step_mean);
    char b1[32];
    doc_set(c->r, &f->title,
            "TensorFlow: %.1f %% of the op time is ops run eagerly, one dispatch per op (%s per "
            "step)",
            s.eager_pct, doc_fmt_ns(per, b1, sizeof(b1)));
    doc_set(c->r, &f->saving_method,
            "the eager ops' self time per step; an upper bound: in a graph the same ops still "
            "run, without the per-op dispatch");
    doc_kv_us(c->r, f, "eager_self_us", s.eager_self);
    doc_kv_us(c->r, f, "graph_self_us", s.graph_self);
    doc_kv_num(c->r, f, "eager_pct_of_op_time", s.eager_pct);
    doc_kv_us(c->r, f, "eager_us_per_step", per);
    doc_kv_num(c->r, f, "threshold_pct", TF_EAGER_PCT);
    for (size_t i = 0; i < s.nstep_groups; i++) {
        doc_row_begin(c->r, f, "step_regions");
        doc_kv_str(c->r, f, "region", s.step_groups[i].name);
        doc_kv_int(c->r, f, "steps", (int64_t)s.step_groups[i].count);
        doc_kv_us(c->r, f, "mean_us", (lat_ns)s.step_groups[i].mean_ns);
        doc_row_end(f);
    }
    for (size_t i = 0, k = 0; i < s.nop_types && k < 3; i++) {
        if (strcmp(s.op_types[i].mode, "eager")) continue;
        k++;
        doc_row_begin(c->r, f, "eager_op_types");
        doc_kv_str(c->r, f, "op_type", s.op_types[i].name);
        doc_kv_us(c->r, f, "self_us", s.op_types[i].self);
        doc_row_end(f);
    }
    doc_set(c->r, &f->recommendation,
            "Wrap the inference call in a tf.function (@tf.function def infer(x): return "
            "model(x, training=False)), call it with the same shapes and dtypes so it traces "
            "once, and prefer model.predict_on_batch / the compiled function over model(x) in "
            "a Python loop; add jit_compile=True to fuse the graph with XLA.");
    doc_set(c->r, &f->next_step,
            "latscope analyze %s   # TensorFlow section: graph vs eager op time, step regions",
            doc_trace_arg(c));
    lat_tf_summary_fini(&s);
}
