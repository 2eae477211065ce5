/*
 * rule-comm.c - R6: communication kernels not hidden under compute.
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

DOC_RULE(comm)
{
    if (!c->comm.n) return;
    struct lat_ivl_set exposed = {0}, in = {0};
    if (lat_ivl_subtract(&c->comm, &c->kernels, &exposed) ||
        lat_ivl_intersect(&exposed, &c->steps_set, &in)) {
        c->r->err = -ENOMEM;
        goto out;
    }
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)lat_ivl_measure(&in) / nst);
    lat_ns comm = 0;
    {
        struct lat_ivl_set ci = {0};
        if (lat_ivl_intersect(&c->comm, &c->steps_set, &ci)) {
            c->r->err = -ENOMEM;
            goto out;
        }
        comm = lat_ivl_measure(&ci);
        lat_ivl_fini(&ci);
    }
    if (PCT(per, c->step_mean) >= c->o->th.comm_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "exposed-communication", c->trace);
        if (!f) goto out;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title, "Communication not hidden under compute: %s per %s (%.1f %%)",
                doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c), f->saving_pct);
        doc_set(c->r, &f->saving_method,
                "time per %s in communication kernels (nccl/rccl/hccl) with no compute kernel "
                "running; upper bound: perfect overlap hides all of it",
                doc_per_step(c));
        doc_kv_us(c->r, f, "exposed_comm_us_per_step", per);
        doc_kv_us(c->r, f, "comm_us_per_step", (lat_ns)((double)comm / nst));
        doc_kv_num(c->r, f, "overlap_pct", comm > 0 ? 100.0 - PCT(per * nst, comm) : 0);
        doc_set(c->r, &f->recommendation,
                "Overlap or shrink communication. Training: DDP bucket_cap_mb tuning, "
                "gradient accumulation with no_sync(), FSDP forward/backward prefetch, "
                "compression hooks. Inference (tensor parallel): fewer, larger all-reduces "
                "(fused QKV/MLP), NCCL on NVLink, or fewer GPUs per replica when the model "
                "fits; TensorRT-LLM/vLLM custom all-reduce kernels.");
        doc_set(c->r, &f->next_step, "latscope analyze --format json %s   # comm_comp_overlap_pct",
                doc_trace_arg(c));
    }
out:
    lat_ivl_fini(&exposed);
    lat_ivl_fini(&in);
}
