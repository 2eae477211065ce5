/*
 * rule-perfmodel.c - matrix ops (GEMM, convolution, attention) far below the device's peak,
 * from the performance model (src/analyze/perfmodel.c, docs/latscope-analyze.md).
 *
 * A row of the model fires when it is a matrix op whose device is in the peak table, its
 * roofline bound is known, and it reaches under perf_peak_pct % of the bound's peak (FLOP/s when
 * compute-bound, bandwidth when memory-bound). The saving bound is what the row's time would
 * shrink by at the bound's peak: time * (1 - pct / 100), summed over the firing rows, per step;
 * an upper bound (no kernel reaches 100 %). For GEMMs the finding names the dimensions that are
 * not multiples of the tensor-core alignment (8 elements for FP16/BF16, 16 for FP8/INT8, 4 for
 * TF32: NVIDIA "Matrix Multiplication Background User's Guide", "Tensor Core Requirements").
 */
#include "analyze/analysis.h"
#include "analyze/perfmodel.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"
#include "doctor/shell.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int align_of(const char *precision)
{
    if (!precision) return 0;
    if (!strcmp(precision, "FP16") || !strcmp(precision, "BF16")) return 8;
    if (!strcmp(precision, "FP8") || !strcmp(precision, "INT8")) return 16;
    if (!strncmp(precision, "TF32", 4)) return 4;
    return 0;
}

/* "N not a multiple of 8" / "M, K not multiples of 8" into buf; "" when aligned. */
static void misaligned(const struct lat_an_perf *p, char *buf, size_t n)
{
    int a = align_of(p->precision);
    buf[0] = 0;
    if (!a || strcmp(p->family, "gemm")) return;
    const char *names[3] = {"M", "N", "K"};
    int64_t v[3] = {p->m, p->n, p->k};
    char which[16] = "";
    int cnt = 0;
    for (int i = 0; i < 3; i++)
        if (v[i] % a) {
            size_t l = strlen(which);
            snprintf(which + l, sizeof(which) - l, "%s%s", cnt ? ", " : "", names[i]);
            cnt++;
        }
    if (cnt) snprintf(buf, n, "%s not a multiple%s of %d", which, cnt > 1 ? "s" : "", a);
}

DOC_RULE(perfmodel)
{
    const struct doc_thresholds *th = &c->o->th;
    struct lat_an_rank pm;
    if (pm_run(c->t, 50, &pm)) {
        c->r->err = -ENOMEM;
        return;
    }
    double nst = c->nsteps ? (double)c->nsteps : 1.0;
    lat_ns saving = 0;
    size_t nfire = 0, worst = SIZE_MAX;
    double worst_save = -1;
    for (size_t i = 0; i < pm.nperf; i++) {
        const struct lat_an_perf *p = &pm.perf[i];
        bool matrix = !strcmp(p->family, "gemm") || !strcmp(p->family, "conv") ||
                      !strcmp(p->family, "attention");
        if (!matrix || !p->gpu_time || isnan(p->pct_of_bound)) continue;
        if (p->pct_of_bound >= th->perf_peak_pct) continue;
        double s = (double)p->time * (1.0 - p->pct_of_bound / 100.0);
        saving += (lat_ns)s;
        nfire++;
        if (s > worst_save) {
            worst_save = s;
            worst = i;
        }
    }
    if (!nfire) {
        pm_rows_free(&pm);
        return;
    }
    const struct lat_an_perf *w = &pm.perf[worst];
    lat_ns per = (lat_ns)((double)saving / nst);
    struct doc_finding *f = doc_finding_add(c->r, "below-peak", c->trace);
    if (!f) goto out;
    doc_saving(f, per, c->step_mean);
    char mis[64], b1[32];
    misaligned(w, mis, sizeof(mis));
    if (!strcmp(w->bound, "compute"))
        doc_set(c->r, &f->title, "%s reaches %.0f %% of peak %s on %s (%s, compute-bound)%s%s%s",
                w->op, w->pct_of_bound, w->precision, w->device ? w->device : "?", w->shape,
                mis[0] ? "; " : "", mis, nfire > 1 ? " (and more ops)" : "");
    else
        doc_set(c->r, &f->title,
                "%s reaches %.0f %% of peak memory bandwidth on %s (%s %s, memory-bound)%s%s%s",
                w->op, w->pct_of_bound, w->device ? w->device : "?", w->shape, w->dtype,
                mis[0] ? "; " : "", mis, nfire > 1 ? " (and more ops)" : "");
    doc_set(c->r, &f->saving_method,
            "Σ over the GEMM/conv/attention shapes below %.0f %% of their roofline bound's peak "
            "of time x (1 - achieved/peak), per %s (%s): what their GPU time would shrink by at "
            "the datasheet peak; an upper bound",
            th->perf_peak_pct, doc_per_step(c), doc_fmt_ns(per, b1, sizeof(b1)));
    doc_kv_num(c->r, f, "shapes_below_peak", (double)nfire);
    doc_kv_num(c->r, f, "perf_peak_pct", th->perf_peak_pct);
    size_t shown = 0;
    for (size_t i = 0; i < pm.nperf && shown < c->o->max_examples; i++) {
        const struct lat_an_perf *p = &pm.perf[i];
        bool matrix = !strcmp(p->family, "gemm") || !strcmp(p->family, "conv") ||
                      !strcmp(p->family, "attention");
        if (!matrix || !p->gpu_time || isnan(p->pct_of_bound) ||
            p->pct_of_bound >= th->perf_peak_pct)
            continue;
        char m2[64];
        misaligned(p, m2, sizeof(m2));
        doc_row_begin(c->r, f, "ops");
        doc_kv_str(c->r, f, "op", p->op);
        doc_kv_str(c->r, f, "shape", p->shape);
        doc_kv_str(c->r, f, "dtype", p->dtype);
        doc_kv_str(c->r, f, "peak_precision", p->precision);
        doc_kv_int(c->r, f, "calls", (int64_t)p->count);
        doc_kv_us(c->r, f, "us_per_step", (lat_ns)((double)p->time / nst));
        doc_kv_num(c->r, f, "tflops", p->tflops);
        doc_kv_num(c->r, f, "gb_per_s", p->gbps);
        doc_kv_str(c->r, f, "bound", p->bound);
        doc_kv_num(c->r, f, "pct_of_bound_peak", p->pct_of_bound);
        doc_kv_num(c->r, f, "flops_per_byte", p->intensity);
        doc_kv_num(c->r, f, "ridge_flops_per_byte", p->ridge);
        if (m2[0]) doc_kv_str(c->r, f, "alignment", m2);
        if (p->kernel) doc_kv_str(c->r, f, "kernel", p->kernel);
        doc_row_end(f);
        shown++;
    }
    doc_set(c->r, &f->recommendation,
            "Pad or choose GEMM dimensions to multiples of 8 (FP16/BF16; 16 for FP8/INT8) so the "
            "tensor-core kernels apply without remainders; batch small GEMMs (larger M) or fuse "
            "them (torch.compile(mode=\"max-autotune\"), CUDA graphs for the launch gaps); keep "
            "FP32 matmuls on tensor cores (torch.backends.cuda.matmul.allow_tf32 = True or "
            "torch.set_float32_matmul_precision(\"high\")); memory-bound shapes gain from "
            "fusing the neighbouring elementwise ops rather than from a faster GEMM. TensorRT: "
            "build with FP16/INT8 and check the tactic per layer (trtexec --dumpProfile).");
    char base[200];
    doc_ncu_name(w->kernel ? w->kernel : ".*", base, sizeof(base));
    char *qre = doc_sh_quote(base, true);
    if (!qre) c->r->err = -ENOMEM;
    doc_set(c->r, &f->next_step,
            "latscope analyze %s (section \"performance model\"; JSON key perf_model) && ncu "
            "--kernel-name regex:%s --launch-count 1 --section SpeedOfLight <your command>",
            doc_trace_arg(c), qre ? qre : "'.*'");
    free(qre);
out:
    pm_rows_free(&pm);
}
