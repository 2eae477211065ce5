/*
 * rule-sync.c - R4: host synchronisations that drain the GPU (idle right after a sync returns).
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

DOC_RULE(sync)
{
    struct doc_idle *d = c->idle;
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)d->sync_bubble / nst);
    if (PCT(per, c->step_mean) < c->o->th.sync_pct) return;
    struct doc_finding *f = doc_finding_add(c->r, "sync-points", c->trace);
    if (!f) return;
    doc_saving(f, per, c->step_mean);
    char b1[32];
    doc_set(c->r, &f->title,
            "Host synchronisations drain the GPU: %.1f sync calls per %s, GPU idle %s per %s "
            "after them",
            (double)d->nsync / nst, doc_per_step(c), doc_fmt_ns(per, b1, sizeof(b1)),
            doc_per_step(c));
    doc_set(c->r, &f->saving_method,
            "GPU idle gaps that begin when a blocking call (cudaStreamSynchronize, "
            "cudaDeviceSynchronize, blocking cudaMemcpy, ...) returns, per %s: without the sync "
            "the host would have queued the next work before the GPU ran dry; upper bound",
            doc_per_step(c));
    doc_kv_num(c->r, f, "syncs_per_step", (double)d->nsync / nst);
    doc_kv_us(c->r, f, "blocked_us_per_step", (lat_ns)((double)d->blocked / nst));
    doc_kv_us(c->r, f, "gpu_idle_after_sync_us_per_step", per);
    doc_kv_int(c->r, f, "dtoh_copies_followed_by_sync", (int64_t)d->nsync_dtoh);
    size_t n;
    struct doc_kvpair *v = doc_acc_sorted(&d->sync_by_op, &n);
    if (!v) {
        c->r->err = -ENOMEM;
        return;
    }
    for (size_t i = 0; i < n && i < 6; i++) {
        uint32_t name = (uint32_t)(v[i].key >> 32), op = (uint32_t)v[i].key;
        doc_row_begin(c->r, f, "by_cause");
        doc_kv_str(c->r, f, "call", lat_trace_str(c->t, name));
        doc_kv_str(c->r, f, "op", op ? lat_trace_str(c->t, op) : "(no op)");
        doc_kv_num(c->r, f, "count_per_step", (double)v[i].cnt / nst);
        doc_kv_us(c->r, f, "gpu_idle_after_us_per_step", (lat_ns)((double)v[i].val / nst));
        doc_kv_us(c->r, f, "blocked_us_per_step",
                  (lat_ns)((double)doc_acc_get(&d->sync_blocked, v[i].key) / nst));
        doc_row_end(f);
    }
    free(v);
    doc_top_emit(c, f, &d->syncs);
    doc_set(c->r, &f->recommendation,
            "Remove host syncs from the step or move them to its end. PyTorch: "
            "torch.cuda.set_sync_debug_mode(\"warn\") prints the Python line of every syncing "
            "op; avoid .item(), .cpu(), .tolist(), print(tensor), bool(tensor) and "
            "torch.nonzero/masked_select (data-dependent shapes) inside the loop; keep metrics "
            "on the GPU and read them once per N steps; use non_blocking copies into pinned "
            "memory plus a CUDA event instead of a blocking copy. TensorRT: use "
            "cudaEventSynchronize on the output event instead of cudaStreamSynchronize/"
            "cudaDeviceSynchronize, and pinned output buffers. ONNX Runtime: IOBinding with "
            "device outputs avoids the implicit copy-and-sync per run.");
    doc_set(c->r, &f->next_step,
            "nsys profile -t cuda,nvtx,osrt -o syncs <your command> && nsys analyze -r "
            "cuda_api_sync,cuda_memcpy_sync syncs.nsys-rep");
}
