/*
 * rule-host.c - R1/R2/R7: GPU idle because the host was late (launch-bound, CPU work between
 * launches, CPU pre/post-processing around the GPU work). Host-late idle is launch-bound when
 * most of the host's time in those gaps is spent inside launch calls or most kernels are
 * shorter than their launch (HTA "short kernel"), otherwise it is CPU work between launches.
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

static void add_attribution_table(struct doc_ctx *c, struct doc_finding *f,
                                  const struct doc_acc *acc, double nsteps, size_t max)
{
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(acc, &n);
    if (!v) {
        c->r->err = -ENOMEM;
        return;
    }
    for (size_t i = 0, shown = 0; i < n && shown < max; i++) {
        if (v[i].val <= 0) continue;
        char label[400];
        doc_key_label(c, v[i].key, label, sizeof(label));
        doc_row_begin(c->r, f, "cpu_time_in_gaps");
        doc_kv_str(c->r, f, "what", label);
        doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)v[i].val / nsteps));
        doc_row_end(f);
        shown++;
    }
    free(v);
}

DOC_RULE(host_idle)
{
    struct doc_idle *d = c->idle;
    const struct doc_launch *l = c->launch;
    const struct doc_thresholds *th = &c->o->th;
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)d->host_late / nst);
    if (PCT(per, c->step_mean) < th->host_idle_pct) return;
    double launch_share = d->attributed > 0 ? (double)d->launch_self / (double)d->attributed : 0;
    double short_share = l->with_launch ? (double)l->short_kernels / (double)l->with_launch : 0;
    bool launch_bound = launch_share >= th->launch_bound_share ||
                        (short_share >= th->launch_bound_share && l->with_launch >= 10 * nst);
    bool graphs = c->graph_launches > 0 || l->graph_kernels > 0;
    /* Most of the idle before the first / after the last GPU op of the step: the CPU prepares
     * inputs or processes outputs while the GPU has nothing (issue rule 7, CPU-only time). */
    bool prepost = !launch_bound && d->head_tail * 2 >= d->host_late;
    char b1[32];
    struct doc_finding *f = doc_finding_add(c->r,
                                            launch_bound ? "launch-bound"
                                            : prepost    ? "cpu-pre-post-processing"
                                                         : "host-bound-idle",
                                            c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    double kps = (double)l->kernels / nst;
    if (launch_bound)
        doc_set(c->r, &f->title,
                "GPU idle %.1f %% of each %s waiting for the host to launch kernels: %.0f "
                "kernels per %s, %.0f %% shorter than their launch",
                f->saving_pct, doc_per_step(c), kps, doc_per_step(c), 100.0 * short_share);
    else if (prepost)
        doc_set(c->r, &f->title,
                "GPU idle %.1f %% of each %s while the CPU works before the first or after the "
                "last GPU op (pre/post-processing, %s per %s)",
                f->saving_pct, doc_per_step(c), doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c));
    else
        doc_set(c->r, &f->title,
                "GPU idle %.1f %% of each %s while the CPU works between launches (%s per %s)",
                f->saving_pct, doc_per_step(c), doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c));
    doc_set(c->r, &f->saving_method,
            "GPU idle time per %s whose next GPU op was launched after the idle period began "
            "(HTA host_wait, device-wide), excluding DataLoader and post-sync gaps; an upper "
            "bound: the GPU cannot gain more than the time it sat idle",
            doc_per_step(c));
    doc_kv_us(c->r, f, "host_late_idle_us_per_step", per);
    doc_kv_num(c->r, f, "host_late_idle_pct", PCT(per, c->step_mean));
    doc_kv_us(c->r, f, "head_tail_idle_us_per_step", (lat_ns)((double)d->head_tail / nst));
    doc_kv_us(c->r, f, "launch_api_us_per_step_in_gaps", (lat_ns)((double)d->launch_self / nst));
    doc_kv_num(c->r, f, "launch_api_share_of_gap_cpu_time", launch_share);
    doc_kv_num(c->r, f, "kernels_per_step", kps);
    doc_kv_num(c->r, f, "short_kernel_share", short_share);
    doc_kv_us(c->r, f, "short_kernel_cutoff_us", th->short_kernel_cutoff);
    doc_kv_bool(c->r, f, "cuda_graphs_in_use", graphs);
    doc_kv_int(c->r, f, "graph_launches", (int64_t)c->graph_launches);
    doc_kv_int(c->r, f, "graph_kernels", (int64_t)l->graph_kernels);
    doc_kv_us(c->r, f, "mean_step_us", c->step_mean);
    add_attribution_table(c, f, &d->by_key, nst, 6);
    doc_add_cpu_evidence(c, f, doc_late_thread(d), &d->late);
    doc_top_emit(c, f, &d->gaps);
    if (launch_bound && graphs) {
        doc_set(c->r, &f->recommendation,
                "The trace already replays CUDA graphs (%" PRIu64 " graph launches); %.0f kernels "
                "per %s are still launched one by one outside them. Bring those ops into the "
                "captured region: PyTorch: widen the torch.cuda.graph / torch.compile("
                "mode=\"reduce-overhead\") region and remove graph breaks (torch._dynamo.explain); "
                "TensorRT: capture the whole enqueueV3 sequence, including pre/post-processing "
                "kernels; ONNX Runtime: keep every node on the CUDA EP so enable_cuda_graph "
                "covers the whole run. Fuse the remaining small ops.",
                c->graph_launches, (double)l->eager_kernels / nst, doc_per_step(c));
    } else if (launch_bound) {
        doc_set(c->r, &f->recommendation,
                "Launch overhead dominates: replace many small launches by few. PyTorch: "
                "torch.compile(model, mode=\"reduce-overhead\") (fuses ops and replays CUDA "
                "graphs) or capture the step with torch.cuda.CUDAGraph; use fused kernels "
                "(fused optimizers, SDPA, channels_last + cudnn). TensorRT: build an engine "
                "instead of eager ops and run it with CUDA graphs (trtexec --useCudaGraph). "
                "ONNX Runtime: CUDA EP provider option enable_cuda_graph=1 with fixed shapes and "
                "IOBinding, or the TensorRT EP.");
    } else if (prepost) {
        doc_set(c->r, &f->recommendation,
                "CPU-only work at the start or end of each %s leaves the GPU idle (see "
                "cpu_time_in_gaps). Overlap it with GPU work or move it to the GPU: pipeline "
                "requests so the next one's preprocessing runs while this one computes "
                "(a producer thread/process and a queue), decode/resize on the GPU (DALI, "
                "torchvision.io.decode_jpeg(device=\"cuda\"), nvJPEG), keep post-processing "
                "(argmax, top-k, NMS, detokenisation inputs) on the GPU and copy only the final "
                "result. TensorRT: enqueue the next inference before post-processing the "
                "previous one (two streams, double-buffered I/O). ONNX Runtime: put "
                "pre/post-processing into the graph (onnxruntime-extensions) or a worker pool.",
                doc_per_step(c));
    } else {
        doc_set(c->r, &f->recommendation,
                "The host is the bottleneck: the GPU waits while Python/framework code runs "
                "between launches (see cpu_time_in_gaps). Move that work off the critical path "
                "or make it cheaper: PyTorch: torch.compile to remove Python overhead, avoid "
                "per-step tensor creation and Python loops over tensors, run pre/post-processing "
                "on the GPU or in another thread/process; TensorRT: enqueue the next inference "
                "before post-processing the previous one (double-buffer with two streams); "
                "ONNX Runtime: run pre/post-processing as ONNX nodes or in worker threads.");
    }
    doc_cpu_next_step(c, f,
                      "its CPU section lists the functions and stacks of the samples; the "
                      "cpu_time_in_gaps evidence above covers the gaps",
                      "&& latscope doctor run.pt.trace.json.gz   # CPU samples show which "
                      "Python/framework frames fill the GPU gaps");
}
