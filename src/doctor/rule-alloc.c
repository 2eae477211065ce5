/*
 * rule-alloc.c - R9: device allocator calls inside steps, and device memory pressure.
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

DOC_RULE(alloc)
{
    const struct lat_trace *t = c->t;
    struct doc_acc by = {0};
    struct doc_top top;
    doc_top_init(&top, c->o->max_examples);
    lat_ns total = 0;
    uint64_t n = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!(doc_api_of_ev(c, i) & DOC_API_ALLOC) || doc_step_at(c, t->ev.ts[i]) < 0) continue;
        total += t->ev.dur[i];
        n++;
        int64_t op = doc_enclosing_op(c, i);
        uint64_t key = (uint64_t)t->ev.name[i] << 32 | (op >= 0 ? t->ev.name[op] : 0);
        if (doc_acc_add(&by, key, t->ev.dur[i], 1)) goto nomem;
        struct doc_example e;
        doc_example_from(c, i, &e);
        char note[160];
        snprintf(note, sizeof(note), "under %s", doc_op_name_or(c, op, "(no op)"));
        e.note = note;
        doc_top_add(&top, &e);
    }
    double nst = (double)c->nsteps;
    lat_ns per = (lat_ns)((double)total / nst);
    if (n && PCT(per, c->step_mean) >= c->o->th.alloc_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "allocator-churn", c->trace);
        if (!f) goto nomem;
        doc_saving(f, per, c->step_mean);
        char b1[32];
        doc_set(c->r, &f->title,
                "Device memory is allocated/freed inside the %s: %.1f calls, %s per %s",
                doc_per_step(c), (double)n / nst, doc_fmt_ns(per, b1, sizeof(b1)), doc_per_step(c));
        doc_set(c->r, &f->saving_method,
                "duration of cudaMalloc/cudaFree/cudaHostAlloc/... calls inside steps per %s "
                "(host blocked; cudaFree also synchronises the device); upper bound",
                doc_per_step(c));
        doc_kv_num(c->r, f, "calls_per_step", (double)n / nst);
        doc_kv_us(c->r, f, "us_per_step", per);
        size_t nv;
        struct doc_kvpair *v = doc_acc_sorted(&by, &nv);
        if (!v) goto nomem;
        for (size_t i = 0; i < nv && i < 6; i++) {
            uint32_t name = (uint32_t)(v[i].key >> 32), op = (uint32_t)v[i].key;
            doc_row_begin(c->r, f, "by_cause");
            doc_kv_str(c->r, f, "call", lat_trace_str(t, name));
            doc_kv_str(c->r, f, "op", op ? lat_trace_str(t, op) : "(no op)");
            doc_kv_num(c->r, f, "count_per_step", (double)v[i].cnt / nst);
            doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)v[i].val / nst));
            doc_row_end(f);
        }
        free(v);
        doc_top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "Stop allocating device memory per step. PyTorch: do not call "
                "torch.cuda.empty_cache() in the loop; keep shapes static (pad to buckets) so "
                "the caching allocator reuses blocks; PYTORCH_CUDA_ALLOC_CONF="
                "expandable_segments:True against fragmentation; pre-allocate output buffers. "
                "TensorRT: create the execution context once and reuse its device memory "
                "(setDeviceMemory), allocate I/O buffers at startup. ONNX Runtime: keep the "
                "memory arena on (arena_extend_strategy=kSameAsRequested) and use IOBinding "
                "with pre-allocated outputs.");
        doc_set(c->r, &f->next_step,
                "nsys profile -t cuda,osrt --cuda-memory-usage=true -o alloc <your command> && "
                "nsys stats -r cuda_api_sum alloc.nsys-rep");
    }
    /* memory pressure from [memory] events (tb_plugin rule 5) */
    int64_t peak = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_INSTANT) continue;
        int64_t dt = -1, res = 0;
        if (!lat_trace_arg_int(t, i, "Total Reserved", &res)) continue;
        if (lat_trace_arg_int(t, i, "Device Type", &dt) && dt != 1) continue;
        if (res > peak) peak = res;
    }
    int64_t mem = t->ndevices ? t->devices[0].total_global_mem : 0;
    if (peak > 0 && mem > 0 && (double)peak > c->o->th.mem_pressure * (double)mem) {
        struct doc_finding *f = doc_finding_add(c->r, "memory-pressure", c->trace);
        if (!f) goto nomem;
        doc_saving(f, 0, c->step_mean);
        doc_set(c->r, &f->title, "Peak reserved device memory is %.0f %% of the GPU's memory",
                100.0 * (double)peak / (double)mem);
        doc_set(c->r, &f->saving_method,
                "no time saving estimated: a risk of OOM and of "
                "allocator flushes (cudaFree + retry)");
        doc_kv_int(c->r, f, "peak_reserved_bytes", peak);
        doc_kv_int(c->r, f, "device_memory_bytes", mem);
        doc_set(c->r, &f->recommendation,
                "Reduce memory: smaller batch or sequence length, BF16/FP16 weights and "
                "activations, activation checkpointing for training, KV-cache limits for LLM "
                "serving; TensorRT: limit the workspace (--memPoolSize); ONNX Runtime: "
                "gpu_mem_limit.");
        doc_set(c->r, &f->next_step,
                "python -c \"import torch; print(torch.cuda.memory_summary())\"   # inside your "
                "program, after a step");
    }
    doc_acc_fini(&by);
    return;
nomem:
    c->r->err = -ENOMEM;
    doc_acc_fini(&by);
}
