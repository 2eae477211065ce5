/*
 * rule-cpu-preprocessing.c - pre/post-processing inside the step on a CPU-only trace: the time
 * of record_function regions named like pre/post-processing (preprocess, postprocess,
 * tokenize, transform, resize, normalize, collate, ...: doc_is_prepost_name) inside the steps.
 * Only the outermost such region counts, so nested regions are not doubled.
 */
#include "doctor/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

DOC_RULE(cpu_preprocessing)
{
    if (doc_cpuops_build(c)) return;
    const struct doc_cpuops *p = c->cpu;
    lat_ns per = DOC_CPU_MEAN(p, prepost);
    if (PCT(per, c->step_mean) < c->o->th.cpu_preproc_pct) return;
    struct doc_finding *f = doc_finding_add(c->r, "cpu-preprocessing", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    double nst = (double)(p->nsampled ? p->nsampled : 1);
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(&p->prepost_by, &n);
    if (!v) {
        c->r->err = -ENOMEM;
        return;
    }
    char b1[32];
    doc_set(c->r, &f->title,
            "Pre/post-processing inside the %s takes %.1f %% of it (%s per %s%s%s)",
            doc_per_step(c), f->saving_pct, doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c),
            n ? ", most in " : "", n ? lat_trace_str(c->t, (uint32_t)v[0].key) : "");
    doc_set(c->r, &f->saving_method,
            "per %s: time of record_function regions named as pre/post-processing "
            "(preprocess, postprocess, tokenize, transform, resize, normalize, collate, ...) "
            "inside the step; an upper bound for what overlapping it with inference or moving "
            "it out of the latency path saves",
            doc_per_step(c));
    doc_kv_us(c->r, f, "prepost_us_per_step", per);
    doc_kv_num(c->r, f, "prepost_pct_of_step", PCT(per, c->step_mean));
    doc_kv_us(c->r, f, "python_in_prepost_us_per_step", DOC_CPU_MEAN(p, prepost_self));
    for (size_t i = 0; i < n && i < 5; i++) {
        doc_row_begin(c->r, f, "regions");
        doc_kv_str(c->r, f, "region", lat_trace_str(c->t, (uint32_t)v[i].key));
        doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)v[i].val / nst));
        doc_kv_num(c->r, f, "calls_per_step", (double)v[i].cnt / nst);
        doc_row_end(f);
    }
    free(v);
    /* worst instances */
    struct doc_top top;
    doc_top_init(&top, c->o->max_examples);
    const struct lat_trace *t = c->t;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_USER_ANNOTATION || !doc_is_prepost_name(doc_name(c, i)) ||
            doc_step_at(c, t->ev.ts[i]) < 0)
            continue;
        struct doc_example e;
        doc_example_from(c, i, &e);
        doc_top_add(&top, &e);
    }
    doc_top_emit(c, f, &top);
    doc_set(c->r, &f->recommendation,
            "Take pre/post-processing off the inference's latency path. Pipeline it: a worker "
            "thread or process pool prepares the next request (decode, resize, tokenize) and "
            "post-processes the previous one while the model runs, with a queue between them. "
            "Make it cheaper: vectorise Python loops (NumPy / torch ops on whole tensors), use "
            "fast tokenizers (Hugging Face tokenizers), OpenCV or PIL-SIMD for decoding and "
            "resizing, torchvision.transforms.v2 on tensors; or put it into the model graph "
            "(torch.compile the whole function, ONNX Runtime Extensions, OpenVINO "
            "preprocessing) so it runs as fused native code.");
    if (doc_cpu_has_samples(c->t))
        doc_set(c->r, &f->next_step,
                "latscope analyze %s   # its CPU section shows the functions inside the regions",
                doc_trace_arg(c));
    else
        doc_set(c->r, &f->next_step,
                "latscope trace --cpu -o cpu.pt.trace.json.gz -- <your command> && latscope "
                "analyze cpu.pt.trace.json.gz   # which functions inside the regions cost most");
}
