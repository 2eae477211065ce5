/*
 * rule-kernels.c - R5 dominant kernels (with an ncu command), R5b FP32 on tensor-core-eligible
 * ops, R8 under-filled GPU (blocks < SMs). One pass over the kernels serves all three.
 */
#include "analyze/ncu.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"
#include "doctor/shell.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool uses_tensor_cores(const char *s)
{
    /* tb_plugin tensor_core.py name patterns */
    static const char *const pat[] = {
        "h884",
        "s884",
        "h1688",
        "s1688",
        "hmma",
        "i8816",
        "16816",
        "dgrad_1x1_stride_2x2",
        "first_layer_wgrad_kernel",
        "conv1x1",
        "conv2d_c1_k1",
        "direct_group",
        "xmma_implicit_gemm",
        "xmma_sparse_conv",
        "xmma_warp_specialized_implicit_gemm",
        "xmma_gemm",
        "xmma_sparse_gemm",
        "c1688",
    };
    for (size_t i = 0; i < sizeof(pat) / sizeof(*pat); i++)
        if (strstr(s, pat[i])) return true;
    /* newer cuBLAS/CUTLASS spellings of tensor-core kernels */
    return strstr(s, "tensorop") || strstr(s, "_tc_") || strstr(s, "wgmma") || strstr(s, "gmma") ||
           strstr(s, "cutlass_80_tensorop") || strstr(s, "sm90_xmma") || strstr(s, "sm80_xmma");
}

static bool half_precision_name(const char *s)
{
    return strstr(s, "fp16") || strstr(s, "bf16") || strstr(s, "f16") || strstr(s, "half") ||
           strstr(s, "hgemm") || strstr(s, "Half") || strstr(s, "BFloat16") || strstr(s, "int8") ||
           strstr(s, "i8");
}

static bool tc_eligible_op(const char *s)
{
    static const char *const exact[] = {
        "addmm",         "matmul",     "mm",        "bmm",      "linear",
        "baddbmm",       "addbmm",     "lstm_cell", "gru_cell", "rnn_tanh_cell",
        "rnn_relu_cell", "_scaled_mm", "einsum",
    };
    static const char *const prefix[] = {
        "conv",
        "_conv",
        "cudnn_conv",
        "ConvolutionBackward",
        "CudnnConvolutionBackward",
        "AddmmBackward",
        "MmBackward",
        "BmmBackward",
        "LinearBackward",
        "MatmulBackward",
        "lstm",
        "gru",
        "rnn",
    };
    if (strncmp(s, "aten::", 6) == 0) s += 6;
    for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++)
        if (strcmp(s, exact[i]) == 0) return true;
    for (size_t i = 0; i < sizeof(prefix) / sizeof(*prefix); i++)
        if (strncmp(s, prefix[i], strlen(prefix[i])) == 0) return true;
    return false;
}

static bool eligible_kernel(const struct doc_ctx *c, const struct doc_gop *g)
{
    if (g->launch < 0) return false;
    for (int64_t p = c->parent[g->launch]; p >= 0; p = c->parent[p])
        if (c->t->ev.kind[p] == LAT_EV_CPU_OP && tc_eligible_op(doc_name(c, (size_t)p)))
            return true;
    return false;
}

/* Parses "[x, y, z]" (raw JSON) or an integer arg into the product of its integers. */
static int64_t arg_dim_product(const struct lat_trace *t, size_t ev, const char *key, char *txt,
                               size_t len)
{
    const struct lat_arg *a = lat_trace_arg(t, ev, key);
    txt[0] = 0;
    if (!a) return -1;
    if (a->type == LAT_ARG_INT) {
        snprintf(txt, len, "%" PRId64, a->v.i);
        return a->v.i;
    }
    if (a->type != LAT_ARG_RAW && a->type != LAT_ARG_STR) return -1;
    const char *s = lat_trace_str(t, a->str);
    snprintf(txt, len, "%s", s);
    int64_t prod = 1;
    bool any = false;
    while (*s) {
        if (*s >= '0' && *s <= '9') {
            int64_t v = 0;
            while (*s >= '0' && *s <= '9' && v < INT64_MAX / 10)
                v = v * 10 + (*s++ - '0');
            if (v > 0 && prod < INT64_MAX / v) prod *= v;
            any = true;
        } else {
            s++;
        }
    }
    return any ? prod : -1;
}

static const struct lat_device *device_for(const struct doc_ctx *c, size_t ev)
{
    const struct lat_trace *t = c->t;
    int32_t d = t->ev.device[ev];
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id == d) return &t->devices[i];
    return t->ndevices ? &t->devices[0] : NULL;
}

/* The function name as ncu's --kernel-name-base=function sees it: no return type, template
 * arguments or parameters; regex-escaped. */
struct kstat {
    uint32_t name;
    lat_ns total, max;
    uint64_t count;
    size_t first_ev, max_ev;
    uint64_t before_max; /* instances of the same name before the longest one */
    bool eligible, tc;
};

static int cmp_kstat(const void *x, const void *y)
{
    const struct kstat *a = x, *b = y;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

DOC_RULE(kernels)
{
    const struct lat_trace *t = c->t;
    const struct doc_thresholds *th = &c->o->th;
    struct doc_acc idx = {0};
    struct kstat *ks = NULL;
    size_t nks = 0, cap = 0;
    lat_ns ktotal = 0, elig_fp32 = 0, elig_total = 0, elig_tc = 0, tc_total = 0;
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        if (g->kind != LAT_EV_KERNEL || g->comm || g->step < 0) continue;
        uint32_t name = t->ev.name[g->ev];
        lat_ns d = g->end - g->ts;
        ktotal += d;
        lat_ns slot = doc_acc_get(&idx, name);
        struct kstat *s;
        if (!slot) {
            if (LAT_GROW(ks, cap, nks, 1, 64)) goto nomem;
            s = &ks[nks++];
            memset(s, 0, sizeof(*s));
            s->name = name;
            s->first_ev = s->max_ev = g->ev;
            s->max = -1;
            s->tc = uses_tensor_cores(lat_trace_str(t, name));
            if (doc_acc_add(&idx, name, (lat_ns)nks, 0)) goto nomem;
        } else {
            s = &ks[slot - 1];
        }
        if (d > s->max) {
            s->max = d;
            s->max_ev = g->ev;
            s->before_max = s->count;
        }
        s->count++;
        s->total += d;
        bool el = eligible_kernel(c, g);
        if (el) s->eligible = true;
        if (s->tc) tc_total += d;
        if (el) {
            elig_total += d;
            if (s->tc)
                elig_tc += d;
            else if (!half_precision_name(lat_trace_str(t, name)))
                elig_fp32 += d;
        }
    }
    if (!nks || ktotal <= 0) goto out;
    qsort(ks, nks, sizeof(*ks), cmp_kstat);
    double nst = (double)c->nsteps;
    int32_t major = -1, sms = -1;
    if (t->ndevices) {
        major = t->devices[0].compute_major;
        sms = t->devices[0].num_sms;
    }

    /* R5: dominant kernels */
    if (PCT(ks[0].total, ktotal) >= th->dominant_kernel_pct) {
        struct doc_finding *f = doc_finding_add(c->r, "dominant-kernels", c->trace);
        if (!f) goto nomem;
        doc_saving(f, 0, c->step_mean);
        size_t ndom = 0;
        const struct lat_ncu_launch *top_ncu = NULL; /* the first kernel's, from an ncu report */
        for (size_t i = 0; i < nks && i < 3; i++)
            if (PCT(ks[i].total, ktotal) >= th->dominant_kernel_pct || i == 0) ndom++;
        char base[200];
        doc_ncu_name(lat_trace_str(t, ks[0].name), base, sizeof(base));
        doc_set(c->r, &f->title, "%s takes %.1f %% of GPU kernel time%s", base,
                PCT(ks[0].total, ktotal), ndom > 1 ? " (and more dominant kernels below)" : "");
        doc_set(c->r, &f->saving_method,
                "not estimated from a trace: what a kernel can gain depends on its roofline "
                "position (measure it with Nsight Compute); its own time per %s is the ceiling",
                doc_per_step(c));
        doc_kv_us(c->r, f, "kernel_time_us_per_step", (lat_ns)((double)ktotal / nst));
        for (size_t i = 0; i < ndom; i++) {
            const struct kstat *s = &ks[i];
            const char *nm = lat_trace_str(t, s->name);
            char grid[96], block[96], ncu[1200];
            int64_t gb = arg_dim_product(t, s->max_ev, "grid", grid, sizeof(grid));
            int64_t bt = arg_dim_product(t, s->max_ev, "block", block, sizeof(block));
            int64_t regs = -1, smem = -1, occ = -1;
            lat_trace_arg_int(t, s->max_ev, "registers per thread", &regs);
            lat_trace_arg_int(t, s->max_ev, "shared memory", &smem);
            const struct lat_arg *oa = lat_trace_arg(t, s->max_ev, "est. achieved occupancy %");
            if (oa && oa->type == LAT_ARG_INT) occ = oa->v.i;
            doc_row_begin(c->r, f, "kernels");
            doc_kv_str(c->r, f, "name", nm);
            doc_kv_int(c->r, f, "count", (int64_t)s->count);
            doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)s->total / nst));
            doc_kv_num(c->r, f, "pct_of_kernel_time", PCT(s->total, ktotal));
            doc_kv_us(c->r, f, "max_us", s->max);
            if (grid[0]) doc_kv_str(c->r, f, "grid", grid);
            if (block[0]) doc_kv_str(c->r, f, "block", block);
            if (regs >= 0) doc_kv_int(c->r, f, "registers_per_thread", regs);
            if (smem >= 0) doc_kv_int(c->r, f, "shared_memory_bytes", smem);
            const struct lat_device *dev = device_for(c, s->max_ev);
            int32_t nsm = dev ? dev->num_sms : -1;
            if (gb > 0 && nsm > 0) doc_kv_num(c->r, f, "blocks_per_sm", (double)gb / nsm);
            if (occ >= 0) {
                doc_kv_int(c->r, f, "est_achieved_occupancy_pct", occ);
            } else if (gb > 0 && bt > 0 && dev && dev->max_threads_per_sm > 0 && nsm > 0) {
                /* Kineto's formula with a register/shared-memory bound for active blocks. */
                double active = (double)dev->max_threads_per_sm / (double)bt;
                if (regs > 0 && dev->regs_per_sm > 0) {
                    double r = (double)dev->regs_per_sm / (double)(regs * bt);
                    if (r < active) active = r;
                }
                if (smem > 0 && dev->shared_mem_per_sm > 0) {
                    double m = (double)dev->shared_mem_per_sm / (double)smem;
                    if (m < active) active = m;
                }
                active = (double)(int64_t)active;
                double bps = (double)gb / nsm;
                double occf =
                    100.0 * (active < bps ? active : bps) * (double)bt / dev->max_threads_per_sm;
                doc_kv_num(c->r, f, "est_occupancy_pct", occf > 100 ? 100 : occf);
            }
            doc_kv_bool(c->r, f, "tensor_cores_by_name", s->tc);
            doc_ncu_name(nm, base, sizeof(base));
            char stem[48], *qre = doc_sh_quote(base, true);
            doc_file_stem(base, 40, stem, sizeof(stem));
            snprintf(ncu, sizeof(ncu),
                     "ncu --kernel-name regex:%s --launch-skip %" PRIu64
                     " --launch-count 1 --set full -o %s <your command>",
                     qre ? qre : "'.*'", s->before_max, stem);
            if (!qre) c->r->err = -ENOMEM;
            free(qre);
            doc_kv_str(c->r, f, "ncu", ncu);
            const struct lat_ncu_launch *nl = NULL;
            const char *npath = NULL;
            for (size_t q = 0; q < c->o->nncu && !nl; q++)
                if ((nl = lat_ncu_find(c->o->ncu[q].s, nm))) npath = c->o->ncu[q].path;
            if (nl) {
                doc_kv_str(c->r, f, "ncu_report", npath ? npath : "?");
                doc_kv_str(c->r, f, "ncu_kernel", nl->kernel);
                doc_ncu_evidence(c, f, nl, "ncu_");
                if (i == 0) top_ncu = nl;
            }
            doc_row_end(f);
            struct doc_example e;
            doc_example_from(c, s->max_ev, &e);
            e.note = "longest instance";
            doc_example_add(c->r, f, &e);
            if (i == 0) doc_set(c->r, &f->next_step, "%s", ncu);
        }
        if (top_ncu) { /* ncu measured it: its bound, occupancy and top rule, not name guesses */
            const struct lat_ncu_rule *u = top_ncu->nrules ? &top_ncu->rules[0] : NULL;
            char b1[32];
            if (u && !isnan(u->speedup_pct)) {
                lat_ns per = (lat_ns)((double)ks[0].total / nst * u->speedup_pct / 100.0);
                doc_saving(f, per, c->step_mean);
                doc_set(c->r, &f->saving_method,
                        "Nsight Compute's Estimated Speedup of its rule %s (%.1f %%) times the "
                        "kernel's time per %s (%s); ncu's estimate for the profiled launch, an "
                        "upper bound",
                        u->name, u->speedup_pct, doc_per_step(c),
                        doc_fmt_ns((lat_ns)((double)ks[0].total / nst), b1, sizeof(b1)));
            }
            char sol[96] = "", occ[160] = "";
            if (!isnan(top_ncu->sm_pct) && !isnan(top_ncu->mem_pct))
                snprintf(sol, sizeof(sol), " (SM %.1f %%, memory %.1f %% of peak)", top_ncu->sm_pct,
                         top_ncu->mem_pct);
            if (!isnan(top_ncu->achieved_occ) && !isnan(top_ncu->theoretical_occ))
                snprintf(occ, sizeof(occ),
                         ", achieved occupancy %.1f %% of %.1f %% theoretical%s%s",
                         top_ncu->achieved_occ, top_ncu->theoretical_occ,
                         top_ncu->limiter[0] ? ", limited by " : "", top_ncu->limiter);
            doc_set(
                c->r, &f->recommendation,
                "Nsight Compute measured this kernel (launch %lld of the report): %s-bound%s%s. "
                "%s%s%s%s",
                (long long)top_ncu->id, top_ncu->bound ? top_ncu->bound : "?", sol, occ,
                u ? "Its largest rule, " : "No ncu rule fired.", u ? u->name : "", u ? ": " : "",
                u && u->description ? u->description : "");
            char cmd[1400];
            doc_ncu_command(c, top_ncu, cmd, sizeof(cmd));
            doc_set(c->r, &f->next_step, "%s", cmd);
        } else
            doc_set(
                c->r, &f->recommendation,
                "Drill into the kernel with Nsight Compute (command below; --launch-skip counts "
                "launches of that name from the start of the trace window, add the launches "
                "made before profiling started). If it is memory-bound, fuse it with its "
                "neighbours (torch.compile, TensorRT layer fusion); if compute-bound without "
                "tensor cores, use BF16/FP16/TF32 (PyTorch autocast, TensorRT --fp16/--bf16, "
                "ONNX Runtime float16 model); if occupancy is low, check registers and shared "
                "memory per block, or a larger batch.");
    }

    /* R5b: FP32 on tensor-core-eligible ops */
    if ((major < 0 || major >= 7) && PCT(elig_fp32, ktotal) >= th->fp32_eligible_pct &&
        elig_tc <= elig_total / 10) {
        struct doc_finding *f = doc_finding_add(c->r, "fp32-no-tensor-cores", c->trace);
        if (!f) goto nomem;
        lat_ns per = (lat_ns)((double)elig_fp32 / nst * (1.0 - 1.0 / th->fp32_speedup));
        lat_ns busy_per = (lat_ns)((double)lat_ivl_measure(&c->busy) / nst);
        if (per > busy_per) per = busy_per;
        doc_saving(f, per, c->step_mean);
        doc_set(c->r, &f->title,
                "Matmul/conv kernels run in FP32 without tensor cores: %.1f %% of kernel time",
                PCT(elig_fp32, ktotal));
        doc_set(c->r, &f->saving_method,
                "time of kernels launched by tensor-core-eligible ops (conv, mm, addmm, bmm, "
                "matmul, linear, RNN cells; tb_plugin's allowlist) whose names show no tensor "
                "core and no half precision, times (1 - 1/%.1f) for an assumed %.1fx speed-up "
                "with tensor cores, capped at the GPU busy time",
                th->fp32_speedup, th->fp32_speedup);
        doc_kv_us(c->r, f, "eligible_fp32_us_per_step", (lat_ns)((double)elig_fp32 / nst));
        doc_kv_num(c->r, f, "eligible_fp32_pct_of_kernel_time", PCT(elig_fp32, ktotal));
        doc_kv_num(c->r, f, "tensor_core_pct_of_kernel_time", PCT(tc_total, ktotal));
        doc_kv_int(c->r, f, "compute_capability_major", major);
        if (major < 0)
            doc_kv_str(c->r, f, "note", "device properties absent: GPU generation unknown");
        size_t shown = 0;
        for (size_t i = 0; i < nks && shown < 5; i++) {
            const char *nm = lat_trace_str(t, ks[i].name);
            if (!ks[i].eligible || ks[i].tc || half_precision_name(nm)) continue;
            doc_row_begin(c->r, f, "kernels");
            doc_kv_str(c->r, f, "name", nm);
            doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)ks[i].total / nst));
            doc_row_end(f);
            if (!shown) {
                struct doc_example e;
                doc_example_from(c, ks[i].max_ev, &e);
                e.note = "longest instance";
                doc_example_add(c->r, f, &e);
                char base[200];
                doc_ncu_name(nm, base, sizeof(base));
                char *qre = doc_sh_quote(base, true);
                doc_set(c->r, &f->next_step,
                        "ncu --kernel-name regex:%s --launch-skip %" PRIu64
                        " --launch-count 1 --section SpeedOfLight --section "
                        "ComputeWorkloadAnalysis <your command>",
                        qre ? qre : "'.*'", ks[i].before_max);
                if (!qre) c->r->err = -ENOMEM;
                free(qre);
            }
            shown++;
        }
        doc_set(c->r, &f->recommendation,
                "Run these ops on tensor cores. PyTorch: torch.autocast(\"cuda\", "
                "dtype=torch.bfloat16) (or float16), or model.half()/bfloat16() for inference; "
                "on Ampere and newer at least torch.backends.cuda.matmul.allow_tf32 = True and "
                "torch.backends.cudnn.allow_tf32 = True (torch.set_float32_matmul_precision("
                "\"high\")). TensorRT: build with --fp16 / --bf16 (or --best, INT8 with "
                "calibration). ONNX Runtime: convert the model to float16 "
                "(onnxconverter_common.float16) or use the TensorRT EP with trt_fp16_enable. "
                "Check accuracy after the change.");
    }

    /* R8: under-filled GPU (blocks < SMs) */
    lat_ns under = 0, lost = 0, known = 0;
    struct doc_top top;
    doc_top_init(&top, c->o->max_examples);
    for (size_t k = 0; k < c->ng; k++) {
        const struct doc_gop *g = &c->g[k];
        /* communication kernels use few blocks by design */
        if (g->kind != LAT_EV_KERNEL || g->comm || g->step < 0) continue;
        char txt[96];
        int64_t gb = arg_dim_product(t, g->ev, "grid", txt, sizeof(txt));
        const struct lat_device *dev = device_for(c, g->ev);
        double bps = -1;
        if (gb > 0 && dev && dev->num_sms > 0)
            bps = (double)gb / dev->num_sms;
        else {
            const struct lat_arg *a = lat_trace_arg(t, g->ev, "blocks per SM");
            if (a && a->type == LAT_ARG_INT)
                bps = (double)a->v.i;
            else if (a && a->type == LAT_ARG_DOUBLE)
                bps = a->v.d;
        }
        if (bps < 0) continue;
        lat_ns d = g->end - g->ts;
        known += d;
        if (bps < 1.0) {
            under += d;
            lost += (lat_ns)((double)d * (1.0 - bps));
            struct doc_example e;
            doc_example_from(c, g->ev, &e);
            e.value = d;
            char note[160];
            snprintf(note, sizeof(note), "grid %.60s = %.2f blocks per SM", txt[0] ? txt : "?",
                     bps);
            e.note = note;
            doc_top_add(&top, &e);
        }
    }
    lat_ns busyk = lat_ivl_measure_in(&c->kernels, c->steps_set.n ? c->steps_set.v[0].ts : 0,
                                      c->steps_set.n ? c->steps_set.v[c->steps_set.n - 1].end : 0);
    double util = PCT(busyk, c->step_total);
    if (known > 0 && PCT(under, known) >= th->underfilled_pct &&
        PCT((double)lost / nst, c->step_mean) >= 1.0) {
        struct doc_finding *f = doc_finding_add(c->r, "underfilled-gpu", c->trace);
        if (!f) goto nomem;
        lat_ns per = (lat_ns)((double)lost / nst);
        doc_saving(f, per, c->step_mean);
        if (f->severity == DOC_SEV_HIGH) f->severity = DOC_SEV_MEDIUM;
        doc_set(c->r, &f->title,
                "Under-filled GPU: %.0f %% of kernel time is in kernels with fewer blocks than "
                "SMs%s",
                PCT(under, known),
                util < th->gpu_util_low_pct ? ", and GPU utilization is low" : "");
        doc_set(c->r, &f->saving_method,
                "sum over under-filled kernels of duration x (1 - blocks/SMs): SM time left "
                "unused. It is recovered as throughput (more requests per kernel) by batching, "
                "not as single-request latency; capped at medium severity");
        doc_kv_num(c->r, f, "underfilled_pct_of_kernel_time", PCT(under, known));
        doc_kv_us(c->r, f, "idle_sm_time_us_per_step", per);
        doc_kv_num(c->r, f, "gpu_utilization_pct", util);
        doc_kv_int(c->r, f, "num_sms", sms);
        doc_top_emit(c, f, &top);
        doc_set(c->r, &f->recommendation,
                "The batch is too small to fill the GPU. For throughput, batch more requests "
                "per launch: dynamic batching (Triton max_queue_delay_microseconds, TorchServe "
                "batch_size/max_batch_delay, vLLM/TGI continuous batching), larger batch sizes "
                "in PyTorch; TensorRT: build with a larger optimisation profile (--maxShapes) "
                "and run several streams/contexts; ONNX Runtime: batch inputs or run several "
                "sessions concurrently. For latency at batch 1, run independent requests on "
                "several CUDA streams.");
        char base[200] = ".*";
        if (top.n) doc_ncu_name(top.names[0], base, sizeof(base));
        char *qre = doc_sh_quote(base, true);
        doc_set(c->r, &f->next_step,
                "ncu --kernel-name regex:%s --launch-count 1 --section LaunchStats --section "
                "Occupancy <your command>",
                qre ? qre : "'.*'");
        if (!qre) c->r->err = -ENOMEM;
        free(qre);
    }
out:
    free(ks);
    doc_acc_fini(&idx);
    return;
nomem:
    c->r->err = -ENOMEM;
    goto out;
}
