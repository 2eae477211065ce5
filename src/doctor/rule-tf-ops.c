/*
 * rule-tf-ops.c - TensorFlow profiles (.xplane.pb or TF's trace_viewer JSON) only: one op type
 * holds most of the op self time. Numbers from analyze/tf.c (the same as `latscope analyze`'s
 * TensorFlow section): an op type + execution mode whose self time is >= TF_DOMINANT_PCT of all
 * op self time fires "tf-dominant-op", with its share, its time per step (the saving bound: the
 * most that making it free could save) and the next types. The advice depends on the type
 * (convolutions and matmuls: XLA / oneDNN / batch; ReadVariableOp and small element-wise ops:
 * fusion under tf.function(jit_compile=True)).
 */
#include "analyze/tf.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TF_DOMINANT_PCT 30.0

static bool heavy_type(const char *t)
{
    return strstr(t, "Conv") || strstr(t, "MatMul") || strstr(t, "Einsum") ||
           strstr(t, "BatchMatMul");
}

DOC_RULE(tf_ops)
{
    if (!lat_tf_is(c->t)) return;
    struct lat_tf_summary s;
    if (lat_tf_summarize(c->t, 5, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    if (!s.nop_types || s.op_types[0].self_pct < TF_DOMINANT_PCT) {
        lat_tf_summary_fini(&s);
        return;
    }
    const struct lat_tf_row *top = &s.op_types[0];
    uint64_t nsteps = s.steps ? s.steps : (c->nsteps ? c->nsteps : 1);
    lat_ns step_mean = s.steps ? (lat_ns)s.step_mean_ns : c->step_mean;
    lat_ns per = (lat_ns)((double)top->self / (double)nsteps);
    struct doc_finding *f = doc_finding_add(c->r, "tf-dominant-op", c->trace);
    if (!f) {
        lat_tf_summary_fini(&s);
        return;
    }
    doc_saving(f, per, step_mean);
    char b1[32];
    doc_set(c->r, &f->title, "TensorFlow: %s (%s) takes %.1f %% of the op time (%s per step)",
            top->name, top->mode, top->self_pct, doc_fmt_ns(per, b1, sizeof(b1)));
    doc_set(c->r, &f->saving_method,
            "the op type's self time (its duration minus the ops nested in it) per step: the "
            "most that making it free could save; a faster kernel saves part of it");
    doc_kv_str(c->r, f, "op_type", top->name);
    doc_kv_str(c->r, f, "mode", top->mode);
    doc_kv_int(c->r, f, "calls", (int64_t)top->calls);
    doc_kv_us(c->r, f, "self_us", top->self);
    doc_kv_num(c->r, f, "self_pct_of_op_time", top->self_pct);
    doc_kv_us(c->r, f, "self_us_per_step", per);
    doc_kv_int(c->r, f, "steps", (int64_t)s.steps);
    doc_kv_num(c->r, f, "threshold_pct", TF_DOMINANT_PCT);
    for (size_t i = 0; i < s.nop_types && i < 4; i++) {
        doc_row_begin(c->r, f, "op_types");
        doc_kv_str(c->r, f, "op_type", s.op_types[i].name);
        doc_kv_str(c->r, f, "mode", s.op_types[i].mode);
        doc_kv_us(c->r, f, "self_us", s.op_types[i].self);
        doc_kv_num(c->r, f, "pct", s.op_types[i].self_pct);
        doc_row_end(f);
    }
    if (heavy_type(top->name))
        doc_set(c->r, &f->recommendation,
                "%s is compute: the model's real work. Compile the step with XLA "
                "(@tf.function(jit_compile=True)) so it fuses the bias/activation/normalization "
                "around it; on x86 check oneDNN is on (TF_ENABLE_ONEDNN_OPTS=1, the default on "
                "Linux) and the intra-op pool has the cores (tf.config.threading."
                "set_intra_op_parallelism_threads); batch requests so each call does more work; "
                "smaller or quantized weights (TFLite / mixed precision) cut the op itself.",
                top->name);
    else
        doc_set(c->r, &f->recommendation,
                "%s is not the model's arithmetic: many small ops dominate. Run the step as one "
                "graph (@tf.function) and let XLA fuse it (@tf.function(jit_compile=True)); for "
                "ReadVariableOp keep the variables on the device that uses them and avoid "
                "re-reading them per call.",
                top->name);
    doc_set(c->r, &f->next_step, "latscope analyze %s   # TensorFlow section: op types and ops",
            doc_trace_arg(c));
    lat_tf_summary_fini(&s);
}
