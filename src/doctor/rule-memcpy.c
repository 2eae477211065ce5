/*
 * rule-memcpy.c - R3: host<->device copies not hidden under compute.
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

static int64_t stream_of(const struct doc_ctx *c, size_t ev)
{
    return c->t->ev.stream[ev];
}

DOC_RULE(memcpy)
{
    const struct doc_idle *d = c->idle;
    const struct lat_trace *t = c->t;
    const struct doc_thresholds *th = &c->o->th;
    struct lat_ivl_set hd = {0}, exposed = {0};
    uint64_t n_h2d = 0, n_d2h = 0, pageable = 0, small = 0, same_stream = 0;
    int64_t bytes_h2d = 0, bytes_d2h = 0;
    lat_ns t_h2d = 0, t_d2h = 0;
    struct doc_top top;
    doc_top_init(&top, c->o->max_examples);
    /* streams that run compute kernels */
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_MEMCPY || g->step < 0) continue;
        const char *nm = doc_name(c, g->ev);
        bool h2d = strstr(nm, "HtoD") != NULL, d2h = strstr(nm, "DtoH") != NULL;
        if (!h2d && !d2h) continue;
        if (lat_ivl_push(&hd, g->ts, g->end)) goto nomem;
        int64_t bytes = 0;
        lat_trace_arg_int(t, g->ev, "bytes", &bytes);
        if (h2d) {
            n_h2d++;
            bytes_h2d += bytes;
            t_h2d += g->end - g->ts;
        } else {
            n_d2h++;
            bytes_d2h += bytes;
            t_d2h += g->end - g->ts;
        }
        if (strstr(nm, "Pageable")) pageable++;
        if (bytes > 0 && bytes <= th->small_copy_bytes) small++;
        lat_ns kern = lat_ivl_measure_in(&c->kernels, g->ts, g->end);
        struct doc_example e;
        doc_example_from(c, g->ev, &e);
        e.value = (g->end - g->ts) - kern;
        char note[160];
        snprintf(note, sizeof(note), "%" PRId64 " bytes%s", bytes,
                 strstr(nm, "Pageable") ? ", pageable host memory" : "");
        e.note = note;
        doc_top_add(&top, &e);
    }
    lat_ivl_merge(&hd);
    if (lat_ivl_subtract(&hd, &c->kernels, &exposed)) goto nomem;
    lat_ns exp = lat_ivl_measure(&exposed);
    /* copies that share a stream with compute kernels (serialised with compute) */
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_MEMCPY || g->step < 0) continue;
        int64_t s = stream_of(c, g->ev);
        for (size_t j = k; j < c->ng && j < k + 64; j++)
            if (c->g[j].kind == LAT_EV_KERNEL && stream_of(c, c->g[j].ev) == s) {
                same_stream++;
                break;
            }
    }
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)exp / nst);
    if (PCT(per, c->step_mean) >= th->memcpy_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "memcpy-exposed", c->trace);
        if (!f) goto nomem;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title, "Host<->device copies stall the GPU for %s per %s (%.1f %%)%s",
                doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c), f->saving_pct,
                pageable ? ", from pageable memory" : "");
        doc_set(c->r, &f->saving_method,
                "time per %s during which an HtoD/DtoH copy runs and no kernel does (copies "
                "not hidden under compute); upper bound: overlapping or removing the copies "
                "saves at most this",
                doc_per_step(c));
        doc_kv_us(c->r, f, "exposed_copy_us_per_step", per);
        doc_kv_num(c->r, f, "h2d_per_step", (double)n_h2d / nst);
        doc_kv_num(c->r, f, "h2d_bytes_per_step", (double)bytes_h2d / nst);
        doc_kv_us(c->r, f, "h2d_us_per_step", (lat_ns)((double)t_h2d / nst));
        doc_kv_num(c->r, f, "d2h_per_step", (double)n_d2h / nst);
        doc_kv_num(c->r, f, "d2h_bytes_per_step", (double)bytes_d2h / nst);
        doc_kv_us(c->r, f, "d2h_us_per_step", (lat_ns)((double)t_d2h / nst));
        doc_kv_int(c->r, f, "pageable_copies", (int64_t)pageable);
        doc_kv_int(c->r, f, "small_copies", (int64_t)small);
        doc_kv_int(c->r, f, "small_copy_bytes", th->small_copy_bytes);
        doc_kv_int(c->r, f, "copies_on_a_compute_stream", (int64_t)same_stream);
        doc_kv_int(c->r, f, "dtoh_followed_by_sync", (int64_t)d->nsync_dtoh);
        doc_top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "Take copies off the critical path. PyTorch: DataLoader(pin_memory=True) or "
                "tensor.pin_memory(), then .to(device, non_blocking=True) issued early on a "
                "side stream (torch.cuda.Stream) so it overlaps compute; keep tensors on the "
                "GPU between steps; batch many small copies into one (torch.cat, one buffer); "
                "copy results back once at the end. TensorRT: page-locked host buffers "
                "(cudaHostAlloc) and cudaMemcpyAsync on a separate stream; trtexec "
                "--noDataTransfers shows the compute-only time. ONNX Runtime: IOBinding with "
                "inputs/outputs already on the device (bind_ortvalue_input/output).");
        doc_set(c->r, &f->next_step,
                "nsys profile -t cuda,nvtx -o copies <your command> && nsys analyze -r "
                "cuda_memcpy_async,cuda_memcpy_sync copies.nsys-rep");
    }
    lat_ivl_fini(&hd);
    lat_ivl_fini(&exposed);
    return;
nomem:
    c->r->err = -ENOMEM;
    lat_ivl_fini(&hd);
    lat_ivl_fini(&exposed);
}
