/*
 * rule-dataloader.c - R7: data loading in the step (tb_plugin step breakdown).
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

DOC_RULE(dataloader)
{
    struct doc_summary *sum = c->sum;
    if (!c->dataloader.n) return;
    /* tb_plugin: roles in priority Kernel, Memcpy, Memset, Communication, Runtime, DataLoader;
     * DataLoader keeps only the step time no higher role claimed. */
    struct lat_ivl_set hi = {0}, dl = {0}, in = {0};
    const struct lat_ivl_set *roles[] = {&c->kernels, &c->copies, &c->memsets, &c->comm,
                                         &c->runtime};
    for (size_t i = 0; i < 5; i++)
        for (size_t k = 0; k < roles[i]->n; k++)
            if (lat_ivl_push(&hi, roles[i]->v[k].ts, roles[i]->v[k].end)) goto nomem;
    lat_ivl_merge(&hi);
    if (lat_ivl_subtract(&c->dataloader, &hi, &dl) || lat_ivl_intersect(&dl, &c->steps_set, &in))
        goto nomem;
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)lat_ivl_measure(&in) / nst);
    sum->dataloader = per;
    double pct = PCT(per, c->step_mean);
    if (pct > c->o->th.dataloader_pct) {
        const struct lat_trace *t = c->t;
        uint64_t calls = 0;
        bool single = false, multi = false;
        struct doc_top top;
        doc_top_init(&top, c->o->max_examples);
        lat_ns raw = 0, dl_best = 0;
        int64_t dl_tid = -1;
        for (size_t i = 0; i < t->ev.n; i++) {
            uint16_t k = t->ev.kind[i];
            if (k != LAT_EV_CPU_OP && k != LAT_EV_USER_ANNOTATION) continue;
            const char *nm = doc_name(c, i);
            if (!doc_is_dataloader(nm) || doc_step_at(c, t->ev.ts[i]) < 0) continue;
            calls++;
            raw += t->ev.dur[i];
            if (t->ev.dur[i] > dl_best && t->ev.track[i] < t->ntracks) {
                dl_best = t->ev.dur[i];
                dl_tid = t->tracks[t->ev.track[i]].tid;
            }
            if (strstr(nm, "SingleProcess")) single = true;
            if (strstr(nm, "MultiProcessing")) multi = true;
            struct doc_example e;
            doc_example_from(c, i, &e);
            doc_top_add(&top, &e);
        }
        struct doc_finding *f = doc_finding_add(c->r, "dataloader", c->trace);
        if (!f) goto nomem;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title, "Data loading takes %.1f %% of each %s (%s)%s", pct,
                doc_per_step(c), doc_fmt_ns(per, b1, sizeof(b1)),
                single ? ": DataLoader runs in the main process (num_workers=0)" : "");
        doc_set(c->r, &f->saving_method,
                "tb_plugin step breakdown: DataLoader op time (enumerate(DataLoader)#*.__next__) "
                "inside the steps that no kernel, copy, memset, communication or runtime call "
                "covers, averaged over steps; upper bound: loading fully hidden behind compute");
        doc_kv_us(c->r, f, "dataloader_us_per_step", per);
        doc_kv_num(c->r, f, "dataloader_pct_of_step", pct);
        doc_kv_us(c->r, f, "dataloader_op_us_per_step", (lat_ns)((double)raw / nst));
        doc_kv_num(c->r, f, "next_calls_per_step", (double)calls / nst);
        doc_kv_bool(c->r, f, "single_process_loader", single);
        doc_kv_bool(c->r, f, "multi_process_loader", multi);
        doc_kv_us(c->r, f, "mean_step_us", c->step_mean);
        doc_kv_num(c->r, f, "threshold_pct", c->o->th.dataloader_pct);
        doc_add_cpu_evidence(c, f, dl_tid, &in);
        doc_top_emit(c, f, &top);
        if (c->have & DOC_HAVE_GPU)
            doc_set(c->r, &f->recommendation,
                    "Load and preprocess data off the critical path. PyTorch: "
                    "DataLoader(num_workers=N (start with the number of CPU cores / GPUs), "
                    "pin_memory=True, persistent_workers=True, prefetch_factor=2..4); move "
                    "decoding/augmentation to the GPU (NVIDIA DALI, torchvision.io.decode_jpeg on "
                    "cuda); cache preprocessed data. Serving (TensorRT / ONNX Runtime): decode and "
                    "resize requests in a separate thread pool or process and queue ready "
                    "tensors, so the engine never waits on preprocessing.");
        else
            doc_set(c->r, &f->recommendation,
                    "Load and preprocess data off the critical path. PyTorch: "
                    "DataLoader(num_workers=N, persistent_workers=True, prefetch_factor=2..4) so "
                    "worker processes prepare the next batches while the model runs (on a CPU "
                    "machine leave cores for inference: workers + torch.get_num_threads() <= "
                    "cores); vectorise per-sample Python transforms; cache preprocessed data. "
                    "Serving (ONNX Runtime / OpenVINO): decode and resize requests in a separate "
                    "thread pool or process and queue ready tensors.");
        doc_cpu_next_step(c, f,
                          "its CPU section shows whether decoding, augmentation or collation costs "
                          "most inside __next__",
                          "  # CPU samples inside __next__ show whether decoding, augmentation or "
                          "collation costs most");
    }
    lat_ivl_fini(&hi);
    lat_ivl_fini(&dl);
    lat_ivl_fini(&in);
    return;
nomem:
    c->r->err = -ENOMEM;
    lat_ivl_fini(&hi);
    lat_ivl_fini(&dl);
    lat_ivl_fini(&in);
}
