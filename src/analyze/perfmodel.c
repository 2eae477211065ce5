/*
 * perfmodel.c - the performance model (issue 20 part 3): FLOPs and bytes of shaped CPU ops,
 * achieved TFLOP/s and GB/s, fraction of the device's peak, roofline bound.
 *
 * Which instances are modelled: the CPU ops of each thread form a tree (containment, as in
 * ops.c). An op of a known family (pm_family_of) is a row instance when no op below it is
 * modelled (the innermost modelled op: aten::linear -> aten::addmm gives the addmm, the op whose
 * shapes the kernel really ran with; aten::softmax -> aten::_softmax the _softmax), except the
 * "owner" ops aten::convolution / aten::_convolution, whose cost covers their whole subtree
 * (nothing below them is modelled: cudnn_convolution has another argument order). An
 * instance's time is the Σ duration of the GPU rows (kernels, memsets, memcpys) correlated
 * with the runtime calls anywhere below it (TraceLens' "Kernel Time"); on a trace without GPU
 * rows it is the op's own CPU duration; instances of a GPU trace that launched nothing are not
 * modelled (they ran on the CPU or were views).
 *
 * Formulas (docs/latscope-analyze.md "Performance model", each with its source) follow
 * TraceLens' PerfModel (AMD-AGI/TraceLens @ 171dd747, TraceLens/PerfModel/perf_model.py),
 * which tests/unit/test-perfmodel.c checks against TraceLens' own reference CSVs of its h100
 * test traces. Peaks: pm_peaks[] below, NVIDIA/AMD datasheets, dense (no sparsity).
 *
 * Args are parsed from their raw JSON text with a small bounded scanner (no allocation, no
 * recursion deeper than two levels); anything unexpected makes the instance "unparsed".
 */
#include "analyze/perfmodel.h"
#include "analyze/internal.h"
#include "core/grow.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- peak table ------------------------------------------------------------------------------
 * Dense tensor-core peaks in TFLOP/s (TOPS for INT8), i.e. the datasheets' "with sparsity"
 * figures halved; FP32 vector = the non-tensor FP32 peak; bandwidth in GB/s. 0 = not supported
 * by the datasheet. Sources (by name):
 *   A100: NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 and PCIe columns.
 *   H100: NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM and H100 PCIe columns.
 *   H200: NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column.
 *   B200: NVIDIA HGX B200 datasheet / DGX B200 datasheet (2024), per GPU (8-GPU totals / 8).
 *   L4: NVIDIA L4 Tensor Core GPU datasheet (2023). L40S: NVIDIA L40S GPU datasheet (2023).
 *   A10: NVIDIA A10 Tensor Core GPU datasheet (2021). T4: NVIDIA T4 Tensor Core GPU datasheet
 *   (2019; FP16 = mixed precision, no TF32/BF16/FP8). V100: NVIDIA Tesla V100 datasheet (2020),
 *   SXM2 and PCIe columns (DGX Station's V100-DGXS = SXM2 figures, DGX Station datasheet).
 *   MI300X: AMD Instinct MI300X accelerator datasheet (2023).
 *                                FP32    TF32    FP16    BF16    FP8     INT8 */
static const struct pm_peak pm_peaks[] = {
    {"A100 SXM 40GB", "NVIDIA A100 datasheet", {19.5, 156, 312, 312, 0, 624}, 19.5, 1555},
    {"A100 SXM 80GB", "NVIDIA A100 datasheet", {19.5, 156, 312, 312, 0, 624}, 19.5, 2039},
    {"A100 PCIe 40GB", "NVIDIA A100 datasheet", {19.5, 156, 312, 312, 0, 624}, 19.5, 1555},
    {"A100 PCIe 80GB", "NVIDIA A100 datasheet", {19.5, 156, 312, 312, 0, 624}, 19.5, 1935},
    {"H100 SXM", "NVIDIA H100 datasheet", {67, 494.7, 989.4, 989.4, 1978.9, 1978.9}, 67, 3350},
    {"H100 PCIe", "NVIDIA H100 datasheet", {51, 378, 756, 756, 1513, 1513}, 51, 2000},
    {"H200 SXM", "NVIDIA H200 datasheet", {67, 494.7, 989.4, 989.4, 1978.9, 1978.9}, 67, 4800},
    {"B200", "NVIDIA HGX B200 datasheet", {75, 1100, 2250, 2250, 4500, 4500}, 75, 8000},
    {"L4", "NVIDIA L4 datasheet", {30.3, 60, 121, 121, 242.5, 242.5}, 30.3, 300},
    {"L40S", "NVIDIA L40S datasheet", {91.6, 183, 366, 366, 733, 733}, 91.6, 864},
    {"A10", "NVIDIA A10 datasheet", {31.2, 62.5, 125, 125, 0, 250}, 31.2, 600},
    {"T4", "NVIDIA T4 datasheet", {8.1, 0, 65, 0, 0, 130}, 8.1, 320},
    {"V100 SXM2", "NVIDIA Tesla V100 datasheet", {15.7, 0, 125, 0, 0, 0}, 15.7, 900},
    {"V100 PCIe", "NVIDIA Tesla V100 datasheet", {14, 0, 112, 0, 0, 0}, 14, 900},
    {"MI300X",
     "AMD Instinct MI300X datasheet",
     {163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9},
     163.4,
     5300},
};

/* Case-insensitive: does name hold word w (delimited by non-alphanumerics)? */
static bool has_word(const char *name, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = name; *p; p++) {
        if (p != name && isalnum((unsigned char)p[-1])) continue;
        if (strncasecmp(p, w, n)) continue;
        if (!isalnum((unsigned char)p[n])) return true;
    }
    return false;
}

static bool has_sub(const char *name, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = name; *p; p++)
        if (!strncasecmp(p, w, n)) return true;
    return false;
}

static const struct pm_peak *peak_named(const char *model)
{
    for (size_t i = 0; i < sizeof(pm_peaks) / sizeof(pm_peaks[0]); i++)
        if (!strcmp(pm_peaks[i].model, model)) return &pm_peaks[i];
    return NULL;
}

const struct pm_peak *pm_peak_for(const char *name)
{
    if (!name || !*name) return NULL;
    /* variants with other clocks/memory than the table's rows: unknown, never a neighbour's */
    if (has_word(name, "NVL") || has_word(name, "A10G") || has_word(name, "A10M")) return NULL;
    if (has_word(name, "H200")) return peak_named("H200 SXM");
    if (has_word(name, "H100")) {
        if (has_sub(name, "PCIe")) return peak_named("H100 PCIe");
        if (has_sub(name, "HBM3") || has_sub(name, "SXM")) return peak_named("H100 SXM");
        return NULL;
    }
    if (has_word(name, "B200")) return peak_named("B200");
    if (has_sub(name, "A100")) {
        bool pcie = has_sub(name, "PCIe"), g80 = has_sub(name, "80GB");
        if (pcie) return peak_named(g80 ? "A100 PCIe 80GB" : "A100 PCIe 40GB");
        if (has_sub(name, "SXM") || g80 || has_sub(name, "40GB"))
            return peak_named(g80 ? "A100 SXM 80GB" : "A100 SXM 40GB");
        return NULL;
    }
    if (has_word(name, "L40S")) return peak_named("L40S");
    if (has_word(name, "L4")) return peak_named("L4");
    if (has_word(name, "A10")) return peak_named("A10");
    if (has_word(name, "T4")) return peak_named("T4");
    if (has_sub(name, "V100")) {
        if (has_sub(name, "PCIE")) return peak_named("V100 PCIe");
        if (has_sub(name, "SXM2") || has_sub(name, "DGXS")) return peak_named("V100 SXM2");
        return NULL;
    }
    if (has_word(name, "MI300X")) return peak_named("MI300X");
    return NULL;
}

const char *pm_prec_name(int prec)
{
    static const char *const n[] = {"FP32", "TF32", "FP16", "BF16", "FP8", "INT8"};
    return prec >= 0 && prec < PM_PREC_COUNT ? n[prec] : "?";
}

/* ---- families ---------------------------------------------------------------------------- */

enum pm_kind {
    K_MM = 1,
    K_ADDMM,
    K_BMM,
    K_BADDBMM,
    K_MATMUL,
    K_LINEAR,
    K_SCALED_MM,
    K_CONV,       /* aten::convolution / _convolution argument order */
    K_CUDNN_CONV, /* input, weight, padding, stride, dilation, groups */
    K_SDPA,       /* [B, H, N, d]; is_causal at concrete index ci */
    K_FLASH_FWD,  /* [B, N, H, d]; is_causal at 8 */
    K_EFF_FWD,    /* [B, N, H, d]; custom_mask_type at 9 */
    K_UNARY,
    K_BINARY,
    K_REDUCE,
    K_SOFTMAX,
    K_LAYERNORM,
};

struct pm_op {
    const char *name;
    uint8_t kind;
    int8_t ci; /* K_SDPA: concrete index of is_causal */
    bool owner;
};

static const struct pm_op pm_ops[] = {
    {"aten::mm", K_MM, 0, false},
    {"aten::addmm", K_ADDMM, 0, false},
    {"aten::bmm", K_BMM, 0, false},
    {"aten::baddbmm", K_BADDBMM, 0, false},
    {"aten::matmul", K_MATMUL, 0, false},
    {"aten::linear", K_LINEAR, 0, false},
    {"aten::_scaled_mm", K_SCALED_MM, 0, false},
    {"aten::convolution", K_CONV, 0, true},
    {"aten::_convolution", K_CONV, 0, true},
    {"aten::cudnn_convolution", K_CUDNN_CONV, 0, false},
    {"aten::scaled_dot_product_attention", K_SDPA, 5, false},
    {"aten::_scaled_dot_product_flash_attention", K_SDPA, 4, false},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", K_SDPA, 4, false},
    {"aten::_scaled_dot_product_efficient_attention", K_SDPA, 6, false},
    {"aten::_scaled_dot_product_cudnn_attention", K_SDPA, 6, false},
    {"aten::_flash_attention_forward", K_FLASH_FWD, 8, false},
    {"aten::_efficient_attention_forward", K_EFF_FWD, 9, false},
    {"aten::relu", K_UNARY, 0, false},
    {"aten::relu_", K_UNARY, 0, false},
    {"aten::gelu", K_UNARY, 0, false},
    {"aten::gelu_", K_UNARY, 0, false},
    {"aten::silu", K_UNARY, 0, false},
    {"aten::silu_", K_UNARY, 0, false},
    {"aten::sigmoid", K_UNARY, 0, false},
    {"aten::tanh", K_UNARY, 0, false},
    {"aten::exp", K_UNARY, 0, false},
    {"aten::neg", K_UNARY, 0, false},
    {"aten::rsqrt", K_UNARY, 0, false},
    {"aten::sqrt", K_UNARY, 0, false},
    {"aten::pow", K_UNARY, 0, false},
    {"aten::clamp_min", K_UNARY, 0, false},
    {"aten::add", K_BINARY, 0, false},
    {"aten::add_", K_BINARY, 0, false},
    {"aten::sub", K_BINARY, 0, false},
    {"aten::sub_", K_BINARY, 0, false},
    {"aten::mul", K_BINARY, 0, false},
    {"aten::mul_", K_BINARY, 0, false},
    {"aten::div", K_BINARY, 0, false},
    {"aten::div_", K_BINARY, 0, false},
    {"aten::sum", K_REDUCE, 0, false},
    {"aten::mean", K_REDUCE, 0, false},
    {"aten::amax", K_REDUCE, 0, false},
    {"aten::softmax", K_SOFTMAX, 0, false},
    {"aten::_softmax", K_SOFTMAX, 0, false},
    {"aten::log_softmax", K_SOFTMAX, 0, false},
    {"aten::_log_softmax", K_SOFTMAX, 0, false},
    {"aten::layer_norm", K_LAYERNORM, 0, false},
    {"aten::native_layer_norm", K_LAYERNORM, 0, false},
};

static const struct pm_op *op_of(const char *name)
{
    if (strncmp(name, "aten::", 6)) return NULL;
    for (size_t i = 0; i < sizeof(pm_ops) / sizeof(pm_ops[0]); i++)
        if (!strcmp(pm_ops[i].name, name)) return &pm_ops[i];
    return NULL;
}

static enum pm_family family_of_kind(int k)
{
    switch (k) {
    case K_MM:
    case K_ADDMM:
    case K_BMM:
    case K_BADDBMM:
    case K_MATMUL:
    case K_LINEAR:
    case K_SCALED_MM:
        return PM_GEMM;
    case K_CONV:
    case K_CUDNN_CONV:
        return PM_CONV;
    case K_SDPA:
    case K_FLASH_FWD:
    case K_EFF_FWD:
        return PM_ATTN;
    case K_UNARY:
    case K_BINARY:
        return PM_ELEMWISE;
    default:
        return PM_REDUCE;
    }
}

enum pm_family pm_family_of(const char *name, bool *owner)
{
    const struct pm_op *o = op_of(name);
    if (owner) *owner = o && o->owner;
    return o ? family_of_kind(o->kind) : PM_NONE;
}

/* ---- arg scanner ------------------------------------------------------------------------- */

#define PM_MAXT 16 /* arguments */
#define PM_MAXD 8  /* dimensions */
/* Bound of every dimension and concrete integer: products of two and sums of a few stay far
 * inside int64 (no overflow whatever the input says). */
#define PM_MAXV (INT64_C(1) << 30)

struct pm_args {
    int nt;                      /* arguments seen (at most PM_MAXT) */
    int nd[PM_MAXT];             /* dims of each; -1: not a flat int list */
    int64_t d[PM_MAXT][PM_MAXD]; /* "Input Dims" */
    char ty[PM_MAXT][48];        /* "Input type" */
    char ci[PM_MAXT][48];        /* "Concrete Inputs" */
    int nty, nci;
};

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Skips one JSON value (bounded: strings, numbers, literals, arrays/objects by bracket count). */
static const char *skip_value(const char *p)
{
    int depth = 0;
    do {
        p = skip_ws(p);
        if (!*p) return NULL;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1]) p++;
            if (!*p) return NULL;
            p++;
        } else if (*p == '[' || *p == '{') {
            depth++;
            p++;
        } else if (*p == ']' || *p == '}') {
            if (!depth) return p;
            depth--;
            p++;
        } else if (*p == ',' || *p == ':') {
            if (!depth) return p;
            p++;
        } else {
            while (*p && *p != ',' && *p != ']' && *p != '}' && *p != ':' && *p != ' ')
                p++;
        }
    } while (depth);
    return p;
}

/* "Input Dims": [[1, 2], [], null, [[...]]] */
static int scan_dims(const char *s, struct pm_args *a)
{
    const char *p = skip_ws(s);
    a->nt = 0;
    if (*p++ != '[') return -1;
    p = skip_ws(p);
    if (*p == ']') return 0;
    for (;;) {
        p = skip_ws(p);
        int t = a->nt;
        if (t < PM_MAXT) a->nd[t] = -1;
        if (*p == '[') {
            const char *q = skip_ws(p + 1);
            int nd = 0;
            bool flat = true;
            while (*q && *q != ']') {
                char *end;
                errno = 0;
                long long x = strtoll(q, &end, 10);
                if (end == q || errno || x < 0 || x > PM_MAXV || nd >= PM_MAXD) {
                    flat = false;
                    break;
                }
                if (t < PM_MAXT) a->d[t][nd] = x;
                nd++;
                q = skip_ws(end);
                if (*q == ',') q = skip_ws(q + 1);
            }
            if (flat && *q == ']') {
                if (t < PM_MAXT) a->nd[t] = nd;
                p = q + 1;
            } else if (!(p = skip_value(p))) {
                return -1;
            }
        } else if (!(p = skip_value(p))) {
            return -1;
        }
        if (a->nt < PM_MAXT) a->nt++;
        p = skip_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        return *p == ']' ? 0 : -1;
    }
}

/* An array of strings into out[][cap] (truncated); non-strings become "". */
static int scan_strs(const char *s, char (*out)[48], size_t cap, int *n)
{
    const char *p = skip_ws(s);
    *n = 0;
    if (*p++ != '[') return -1;
    p = skip_ws(p);
    if (*p == ']') return 0;
    for (;;) {
        p = skip_ws(p);
        char buf[48];
        size_t k = 0;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) p++;
                if (k + 1 < cap && k + 1 < sizeof(buf)) buf[k++] = *p;
            }
            if (!*p) return -1;
            p++;
        } else if (!(p = skip_value(p))) {
            return -1;
        }
        buf[k] = 0;
        if (*n < PM_MAXT) memcpy(out[(*n)++], buf, k + 1);
        p = skip_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        return *p == ']' ? 0 : -1;
    }
}

/* ---- dtypes ------------------------------------------------------------------------------ */

struct pm_dtype {
    const char *torch; /* Kineto "Input type" spelling */
    const char *name;
    int bpe;
    int prec;
};

static const struct pm_dtype pm_dtypes[] = {
    {"float", "fp32", 4, PM_FP32},
    {"c10::Half", "fp16", 2, PM_FP16},
    {"c10::BFloat16", "bf16", 2, PM_BF16},
    {"c10::Float8_e4m3fn", "fp8", 1, PM_FP8},
    {"c10::Float8_e5m2", "fp8", 1, PM_FP8},
    {"c10::Float8_e4m3fnuz", "fp8", 1, PM_FP8},
    {"c10::Float8_e5m2fnuz", "fp8", 1, PM_FP8},
    {"signed char", "int8", 1, PM_INT8},
    {"unsigned char", "uint8", 1, -1},
    {"double", "fp64", 8, -1},
    {"long int", "int64", 8, -1},
    {"int", "int32", 4, -1},
    {"short int", "int16", 2, -1},
    {"bool", "bool", 1, -1},
    {"Scalar", "scalar", 4, -1}, /* TraceLens name2bpe: "scalar" = 4 bytes */
};

static const struct pm_dtype *dtype_of(const char *s)
{
    for (size_t i = 0; i < sizeof(pm_dtypes) / sizeof(pm_dtypes[0]); i++)
        if (!strcmp(pm_dtypes[i].torch, s)) return &pm_dtypes[i];
    return NULL;
}

/* ---- formulas ---------------------------------------------------------------------------- */

static double nelems(const struct pm_args *a, int t)
{
    double n = 1;
    for (int i = 0; i < a->nd[t]; i++)
        n *= (double)a->d[t][i];
    return n;
}

static bool is_tensor(const struct pm_args *a, int t, int nd_min)
{
    return t < a->nt && a->nd[t] >= nd_min;
}

/* A list argument "[16, 16]" or "1" of concrete input ci into v[0..n), broadcast to n. */
static bool concrete_list(const struct pm_args *a, int ci, int n, int64_t def, int64_t *v)
{
    for (int i = 0; i < n; i++)
        v[i] = def;
    if (ci >= a->nci || !a->ci[ci][0]) return true;
    const char *p = a->ci[ci];
    if (*p == '[') p++;
    int k = 0;
    int64_t x[PM_MAXD];
    while (*p && *p != ']') {
        char *end;
        long long y = strtoll(p, &end, 10);
        if (end == p || k >= PM_MAXD || y > PM_MAXV || y < -PM_MAXV) return false;
        x[k++] = y;
        p = end;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (k == 1)
        for (int i = 0; i < n; i++)
            v[i] = x[0];
    else if (k == n)
        memcpy(v, x, (size_t)n * sizeof(*v));
    else
        return false;
    return true;
}

static bool concrete_true(const struct pm_args *a, int ci)
{
    return ci < a->nci && (!strcmp(a->ci[ci], "True") || !strcmp(a->ci[ci], "true"));
}

static int gemm(struct pm_cost *c, int64_t b, int64_t m, int64_t n, int64_t k, bool bias, int bpe)
{
    if (b <= 0 || m <= 0 || n <= 0 || k <= 0) return -1;
    double B = (double)b, M = (double)m, N = (double)n, K = (double)k;
    c->flops = B * (2 * M * N * K + (bias ? M * N : 0));
    c->bytes = B * (M * K + K * N + M * N) * bpe + (bias ? N * bpe : 0);
    c->batch = b;
    c->m = m;
    c->n = n;
    c->k = k;
    if (b > 1)
        snprintf(c->shape, sizeof(c->shape), "B=%lld M=%lld N=%lld K=%lld", (long long)b,
                 (long long)m, (long long)n, (long long)k);
    else
        snprintf(c->shape, sizeof(c->shape), "M=%lld N=%lld K=%lld", (long long)m, (long long)n,
                 (long long)k);
    return 0;
}

static int cost_gemm(int kind, const struct pm_args *a, int bpe, struct pm_cost *c)
{
    switch (kind) {
    case K_MM:
    case K_SCALED_MM:
        if (!is_tensor(a, 0, 2) || !is_tensor(a, 1, 2) || a->nd[0] != 2 || a->nd[1] != 2) return -1;
        if (a->d[0][1] != a->d[1][0]) return -1;
        return gemm(c, 1, a->d[0][0], a->d[1][1], a->d[0][1],
                    kind == K_SCALED_MM && is_tensor(a, 4, 1), bpe);
    case K_ADDMM:
        if (!is_tensor(a, 1, 2) || !is_tensor(a, 2, 2) || a->nd[1] != 2 || a->nd[2] != 2) return -1;
        if (a->d[1][1] != a->d[2][0]) return -1;
        return gemm(c, 1, a->d[1][0], a->d[2][1], a->d[1][1], true, bpe);
    case K_BMM:
    case K_BADDBMM: {
        int o = kind == K_BADDBMM;
        if (!is_tensor(a, o, 3) || !is_tensor(a, o + 1, 3) || a->nd[o] != 3 || a->nd[o + 1] != 3)
            return -1;
        if (a->d[o][0] != a->d[o + 1][0] || a->d[o][2] != a->d[o + 1][1]) return -1;
        return gemm(c, a->d[o][0], a->d[o][1], a->d[o + 1][2], a->d[o][2], o, bpe);
    }
    case K_LINEAR: { /* input [..., K], weight [N, K], bias [N] */
        if (!is_tensor(a, 0, 1) || !is_tensor(a, 1, 2) || a->nd[1] != 2) return -1;
        int64_t k = a->d[0][a->nd[0] - 1];
        if (k != a->d[1][1]) return -1;
        double m = nelems(a, 0) / (double)k;
        if (!(m < 4e18)) return -1; /* (int64_t) of a larger double is undefined */
        return gemm(c, 1, (int64_t)m, a->d[1][0], k, is_tensor(a, 2, 1), bpe);
    }
    case K_MATMUL: { /* torch.matmul broadcasting; 1-D operands as vectors */
        if (!is_tensor(a, 0, 1) || !is_tensor(a, 1, 1)) return -1;
        int na = a->nd[0], nb = a->nd[1];
        int64_t k = a->d[0][na - 1];
        int64_t n = nb == 1 ? 1 : a->d[1][nb - 1];
        int64_t kb = nb == 1 ? a->d[1][0] : a->d[1][nb - 2];
        if (k != kb) return -1;
        if (nb <= 2) { /* folds the batch into M */
            double m = nelems(a, 0) / (double)k;
            if (!(m < 4e18)) return -1;
            return gemm(c, 1, (int64_t)m, n, k, false, bpe);
        }
        int64_t m = na == 1 ? 1 : a->d[0][na - 2];
        double batch = 1;
        int nba = na > 2 ? na - 2 : 0, nbb = nb - 2;
        int nbt = nba > nbb ? nba : nbb;
        for (int i = 0; i < nbt; i++) {
            int ia = nba - nbt + i, ib = nbb - nbt + i;
            int64_t x = ia >= 0 ? a->d[0][ia] : 1, y = ib >= 0 ? a->d[1][ib] : 1;
            if (x != y && x != 1 && y != 1) return -1;
            batch *= (double)(x > y ? x : y);
        }
        if (!(batch < 4e18)) return -1;
        return gemm(c, (int64_t)batch, m, n, k, false, bpe);
    }
    }
    return -1;
}

static int cost_conv(int kind, const struct pm_args *a, int bpe, struct pm_cost *c)
{
    if (!is_tensor(a, 0, 3) || !is_tensor(a, 1, 3) || a->nd[0] != a->nd[1]) return -1;
    int sp = a->nd[0] - 2;
    int64_t stride[PM_MAXD], pad[PM_MAXD], dil[PM_MAXD], opad[PM_MAXD], groups = 1;
    bool bias = false, transposed = false;
    if (kind == K_CONV) {
        bias = is_tensor(a, 2, 1);
        if (!concrete_list(a, 3, sp, 1, stride) || !concrete_list(a, 4, sp, 0, pad) ||
            !concrete_list(a, 5, sp, 1, dil) || !concrete_list(a, 7, sp, 0, opad))
            return -1;
        transposed = concrete_true(a, 6);
        if (!concrete_list(a, 8, 1, 1, &groups)) return -1;
    } else {
        if (!concrete_list(a, 2, sp, 0, pad) || !concrete_list(a, 3, sp, 1, stride) ||
            !concrete_list(a, 4, sp, 1, dil) || !concrete_list(a, 5, 1, 1, &groups))
            return -1;
        memset(opad, 0, sizeof(opad));
    }
    if (groups <= 0) return -1;
    const int64_t *x = a->d[0], *w = a->d[1];
    double out = (double)x[0] * (double)(transposed ? w[1] * groups : w[0]);
    for (int i = 0; i < sp; i++) {
        int64_t o;
        if (stride[i] <= 0) return -1;
        if (transposed)
            o = (x[2 + i] - 1) * stride[i] - 2 * pad[i] + dil[i] * (w[2 + i] - 1) + opad[i] + 1;
        else
            o = (x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) / stride[i] + 1;
        if (o <= 0) return -1;
        out *= (double)o;
    }
    double per = 2; /* 2 * C_in/groups * prod(kernel) = 2 * prod(w[1:]) */
    for (int i = 1; i < a->nd[1]; i++)
        per *= (double)w[i];
    double xin = nelems(a, 0), win = nelems(a, 1);
    c->flops = (transposed ? xin : out) * per + (bias ? out : 0);
    double cout = (double)(transposed ? w[1] * groups : w[0]);
    c->bytes = (xin + win + out + (bias ? cout : 0)) * bpe;
    int n = snprintf(c->shape, sizeof(c->shape), "x=%lldx%lld", (long long)x[0], (long long)x[1]);
    for (int i = 0; i < sp && n > 0 && (size_t)n < sizeof(c->shape); i++)
        n += snprintf(c->shape + n, sizeof(c->shape) - (size_t)n, "x%lld", (long long)x[2 + i]);
    if (n > 0 && (size_t)n < sizeof(c->shape))
        snprintf(c->shape + n, sizeof(c->shape) - (size_t)n, " w=%lldx%lld k=%lld g=%lld",
                 (long long)w[0], (long long)w[1], (long long)(sp ? w[2] : 1), (long long)groups);
    return 0;
}

static int cost_attn(const struct pm_op *op, const struct pm_args *a, int bpe, struct pm_cost *c)
{
    if (!is_tensor(a, 0, 4) || !is_tensor(a, 1, 4) || !is_tensor(a, 2, 4)) return -1;
    if (a->nd[0] != 4 || a->nd[1] != 4 || a->nd[2] != 4) return -1;
    bool bnhd = op->kind != K_SDPA; /* flash/efficient forward: [B, N, H, d] */
    int ih = bnhd ? 2 : 1, in = bnhd ? 1 : 2;
    int64_t b = a->d[0][0], hq = a->d[0][ih], nq = a->d[0][in], dqk = a->d[0][3];
    int64_t hkv = a->d[1][ih], nkv = a->d[1][in], dv = a->d[2][3];
    if (b <= 0 || hq <= 0 || nq <= 0 || nkv <= 0 || dqk <= 0 || dv <= 0 || hkv <= 0) return -1;
    bool causal;
    if (op->kind == K_EFF_FWD)
        causal = op->ci < a->nci && a->ci[op->ci][0] && strcmp(a->ci[op->ci], "0");
    else
        causal = concrete_true(a, op->ci);
    double B = (double)b, H = (double)hq, NQ = (double)nq, NK = (double)nkv;
    /* flash-attention's benchmark formula: QK^T and PV, softmax not counted */
    c->flops = B * H * (2 * NQ * NK * (double)dqk + 2 * NQ * NK * (double)dv);
    if (causal && nq == nkv) c->flops /= 2; /* N_Q != N_KV: counted in full (an upper bound) */
    c->bytes = (B * NQ * H * (double)dqk + B * NK * (double)hkv * (double)dqk +
                B * NK * (double)hkv * (double)dv + B * NQ * H * (double)dv) *
               bpe;
    c->m = nq;
    c->n = nkv;
    c->k = dqk;
    c->batch = b * hq;
    if (nq == nkv)
        snprintf(c->shape, sizeof(c->shape), "B=%lld H=%lld N=%lld d=%lld%s", (long long)b,
                 (long long)hq, (long long)nq, (long long)dqk, causal ? " causal" : "");
    else
        snprintf(c->shape, sizeof(c->shape), "B=%lld H=%lld N_Q=%lld N_KV=%lld d=%lld%s",
                 (long long)b, (long long)hq, (long long)nq, (long long)nkv, (long long)dqk,
                 causal ? " causal" : "");
    return 0;
}

static void shape_dims(struct pm_cost *c, const struct pm_args *a, int t)
{
    size_t n = 0;
    c->shape[0] = 0;
    for (int i = 0; i < a->nd[t] && n + 24 < sizeof(c->shape); i++)
        n += (size_t)snprintf(c->shape + n, sizeof(c->shape) - n, "%s%lld", i ? "x" : "",
                              (long long)a->d[t][i]);
}

int pm_cost(const char *name, const char *dims, const char *types, const char *concrete,
            struct pm_cost *c)
{
    const struct pm_op *op = op_of(name);
    static struct pm_args zero;
    struct pm_args a = zero;
    memset(c, 0, sizeof(*c));
    if (!op || !dims || !types) return -1;
    if (scan_dims(dims, &a) || scan_strs(types, a.ty, sizeof(a.ty[0]), &a.nty)) return -1;
    if (concrete && scan_strs(concrete, a.ci, sizeof(a.ci[0]), &a.nci)) return -1;
    c->family = family_of_kind(op->kind);
    c->matrix = c->family == PM_GEMM || c->family == PM_CONV || c->family == PM_ATTN;
    /* the dtype of the first tensor operand (addmm/baddbmm: the matrices) */
    int t0 = (op->kind == K_ADDMM || op->kind == K_BADDBMM) ? 1 : 0;
    if (t0 >= a.nty) return -1;
    const struct pm_dtype *dt = dtype_of(a.ty[t0]);
    if (!dt || !strcmp(dt->torch, "Scalar")) return -1;
    c->dtype = dt->name;
    c->prec = dt->prec;
    int bpe = dt->bpe;
    switch (c->family) {
    case PM_GEMM:
        return cost_gemm(op->kind, &a, bpe, c);
    case PM_CONV:
        return cost_conv(op->kind, &a, bpe, c);
    case PM_ATTN:
        return cost_attn(op, &a, bpe, c);
    default:
        break;
    }
    if (!is_tensor(&a, 0, 0)) return -1;
    double n = nelems(&a, 0);
    shape_dims(c, &a, 0);
    switch (op->kind) {
    case K_UNARY: { /* TraceLens UnaryElementwise: flops = n, bytes = n * (bpe_in + bpe_out) */
        int bout = bpe;
        if (is_tensor(&a, 1, 1) && a.nty > 1 && dtype_of(a.ty[1])) bout = dtype_of(a.ty[1])->bpe;
        c->flops = n;
        c->bytes = n * (bpe + bout);
        return 0;
    }
    case K_BINARY: { /* BinaryElementwise: flops = |broadcast|, bytes = n1 b1 + n2 b2 + n_out b_out
                      */
        if (!is_tensor(&a, 1, 0) || a.nty < 2) return -1;
        const struct pm_dtype *d2 = dtype_of(a.ty[1]);
        if (!d2) return -1;
        int na = a.nd[0], nb = a.nd[1], nt = na > nb ? na : nb;
        double out = 1;
        for (int i = 0; i < nt; i++) {
            int ia = na - nt + i, ib = nb - nt + i;
            int64_t x = ia >= 0 ? a.d[0][ia] : 1, y = ib >= 0 ? a.d[1][ib] : 1;
            if (x != y && x != 1 && y != 1) return -1;
            out *= (double)(x > y ? x : y);
        }
        int bout = (na > 0 && nb > 0 && d2->bpe > bpe) ? d2->bpe : bpe;
        if (nb > 0) { /* "1024 * 16x559x1024" when the operands differ */
            bool same = na == nb && !memcmp(a.d[0], a.d[1], (size_t)na * sizeof(a.d[0][0]));
            size_t l = strlen(c->shape);
            for (int i = 0; !same && i < nb && l + 24 < sizeof(c->shape); i++)
                l += (size_t)snprintf(c->shape + l, sizeof(c->shape) - l, "%s%lld", i ? "x" : " * ",
                                      (long long)a.d[1][i]);
        }
        c->flops = out;
        c->bytes = n * bpe + nelems(&a, 1) * d2->bpe + out * bout;
        return 0;
    }
    case K_REDUCE: { /* Reduce: flops = n_in, bytes = n_in b + n_out b; dims from Concrete[1] */
        int64_t dimv[PM_MAXD];
        int nd = 0;
        double out = 1;
        if (a.nci > 1 && a.ci[1][0]) {
            const char *p = a.ci[1];
            if (*p == '[') p++;
            while (*p && *p != ']' && nd < PM_MAXD) {
                char *end;
                long long y = strtoll(p, &end, 10);
                if (end == p) return -1;
                dimv[nd++] = y;
                p = end;
                while (*p == ',' || *p == ' ')
                    p++;
            }
        }
        if (nd) {
            out = n;
            for (int i = 0; i < nd; i++) {
                int64_t d = dimv[i] < 0 ? dimv[i] + a.nd[0] : dimv[i];
                if (d < 0 || d >= a.nd[0] || a.d[0][d] <= 0) return -1;
                out /= (double)a.d[0][d];
            }
        }
        c->flops = n;
        c->bytes = n * bpe + out * bpe;
        return 0;
    }
    case K_SOFTMAX: /* TraceLens Softmax: flops = 3 n, bytes = 2 n bpe */
        c->flops = 3 * n;
        c->bytes = 2 * n * bpe;
        return 0;
    case K_LAYERNORM: { /* TraceLens LayerNorm (Normalization, is_training): 5 n + 6 C flops */
        int64_t ch[PM_MAXD];
        double C = 1;
        if (a.nci < 2 || !a.ci[1][0]) return -1;
        int k = 0;
        const char *p = a.ci[1];
        if (*p == '[') p++;
        while (*p && *p != ']' && k < PM_MAXD) {
            char *end;
            long long y = strtoll(p, &end, 10);
            if (end == p || y <= 0) return -1;
            ch[k++] = y;
            p = end;
            while (*p == ',' || *p == ' ')
                p++;
        }
        for (int i = 0; i < k; i++)
            C *= (double)ch[i];
        bool affine = is_tensor(&a, 2, 1), has_bias = is_tensor(&a, 3, 1);
        int nw = 2 + (affine ? 1 + (has_bias ? 1 : 0) : 0) + 2;
        c->flops = 5 * n + 6 * C;
        c->bytes = 2 * n * bpe + nw * C * bpe;
        return 0;
    }
    }
    return -1;
}

/* ---- the analysis ------------------------------------------------------------------------ */

static int pm_kind_rank(uint16_t k)
{
    return k == LAT_EV_RUNTIME || k == LAT_EV_DRIVER ? 1 : 0;
}

static int pm_walk_cmp(const void *a, const void *b, void *ctx)
{
    const struct lat_event_cols *ev = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ev->track[x] != ev->track[y]) return ev->track[x] < ev->track[y] ? -1 : 1;
    if (ev->ts[x] != ev->ts[y]) return ev->ts[x] < ev->ts[y] ? -1 : 1;
    lat_ns ex = ev->ts[x] + ev->dur[x], ey = ev->ts[y] + ev->dur[y];
    if (ex != ey) return ex > ey ? -1 : 1;
    int kx = pm_kind_rank(ev->kind[x]), ky = pm_kind_rank(ev->kind[y]);
    if (kx != ky) return kx < ky ? -1 : 1;
    return x < y ? -1 : x > y;
}

struct pm_agg {
    uint32_t name, dims, types;
    bool gpu;
    uint64_t count;
    lat_ns time;
    uint32_t first;  /* event index of the first instance */
    uint32_t kernel; /* longest GPU row of the first instance, AN_NONE */
    struct pm_cost cost;
};

static int agg_time_desc(const void *a, const void *b)
{
    const struct pm_agg *x = a, *y = b;
    if (x->time != y->time) return x->time > y->time ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static uint32_t arg_raw(const struct lat_trace *t, size_t i, uint32_t key)
{
    if (key == UINT32_MAX) return 0;
    const struct lat_arg *ar = &t->args[t->ev.args[i]];
    for (uint32_t q = 0; q < t->ev.nargs[i]; q++)
        if (ar[q].key == key) return ar[q].str;
    return 0;
}

static const char *device_name(const struct lat_trace *t, int32_t dev)
{
    for (size_t d = 0; d < t->ndevices; d++)
        if (t->devices[d].id == dev && t->devices[d].name)
            return lat_trace_str(t, t->devices[d].name);
    if (t->ndevices == 1 && t->devices[0].name) return lat_trace_str(t, t->devices[0].name);
    return NULL;
}

static void fill_row(const struct lat_trace *t, const struct pm_agg *g, struct lat_an_perf *p)
{
    static const char *const fam[] = {"", "gemm", "conv", "attention", "elementwise", "reduction"};
    const struct pm_cost *c = &g->cost;
    memset(p, 0, sizeof(*p));
    p->op = lat_trace_str(t, g->name);
    p->family = fam[c->family];
    p->input_dims = g->dims ? lat_trace_str(t, g->dims) : NULL;
    p->dtype = c->dtype;
    p->gpu_time = g->gpu;
    p->count = g->count;
    p->m = c->m;
    p->n = c->n;
    p->k = c->k;
    p->batch = c->batch;
    p->flops = c->flops;
    p->bytes = c->bytes;
    p->intensity = c->bytes > 0 ? c->flops / c->bytes : NAN;
    p->time = g->time;
    double secs = (double)g->time * 1e-9;
    p->tflops = secs > 0 ? c->flops * (double)g->count / secs * 1e-12 : NAN;
    p->gbps = secs > 0 ? c->bytes * (double)g->count / secs * 1e-9 : NAN;
    p->peak_tflops = p->peak_gbps = p->ridge = NAN;
    p->pct_peak_flops = p->pct_peak_bw = p->pct_of_bound = NAN;
    p->bound = "unknown";
    p->kernel = g->kernel != AN_NONE ? lat_trace_str(t, t->ev.name[g->kernel]) : NULL;
    p->device =
        g->gpu ? (g->kernel != AN_NONE ? device_name(t, t->ev.device[g->kernel]) : NULL) : "CPU";
    const struct pm_peak *pk = g->gpu ? pm_peak_for(p->device) : NULL;
    if (!pk) return;
    double peak = 0;
    if (!c->matrix) {
        peak = pk->vector_fp32_tflops;
        p->precision = "FP32 vector";
    } else if (c->prec == PM_FP32) {
        /* torch: matmul FP32 runs as FP32 unless allow_tf32; cuDNN convolutions default to
         * TF32. An FP32 GEMM faster than the FP32 peak must have used TF32. */
        bool tf32 = c->family == PM_CONV || p->tflops > pk->tflops[PM_FP32];
        if (tf32 && pk->tflops[PM_TF32] > 0) {
            peak = pk->tflops[PM_TF32];
            p->precision = c->family == PM_CONV ? "TF32" : "TF32 (inferred)";
        } else {
            peak = pk->tflops[PM_FP32];
            p->precision = "FP32";
        }
    } else if (c->prec >= 0) {
        peak = pk->tflops[c->prec];
        p->precision = pm_prec_name(c->prec);
    }
    p->peak_gbps = pk->gbps;
    p->pct_peak_bw = 100.0 * p->gbps / pk->gbps;
    if (peak > 0) {
        p->peak_tflops = peak;
        p->ridge = peak * 1e12 / (pk->gbps * 1e9);
        p->pct_peak_flops = 100.0 * p->tflops / peak;
        p->bound = p->intensity >= p->ridge ? "compute" : "memory";
        p->pct_of_bound = p->intensity >= p->ridge ? p->pct_peak_flops : p->pct_peak_bw;
    } else {
        p->precision = NULL;
    }
    /* never a share above 100 %: the table's peak would be wrong for this part (or the
     * formula over-counts); say unknown rather than print it */
    if (p->pct_peak_flops > 100) p->pct_peak_flops = NAN;
    if (p->pct_peak_bw > 100) p->pct_peak_bw = NAN;
    if (!(p->pct_of_bound <= 100)) {
        p->pct_of_bound = NAN;
        if (!isnan(p->ridge)) p->bound = "unknown";
    }
}

int an_perfmodel(struct an_view *v, struct lat_an_rank *r)
{
    const struct lat_trace *t = v->t;
    const struct lat_event_cols *ev = &t->ev;
    uint32_t kdims = strtab_find(&t->strs, "Input Dims", 10);
    uint32_t ktypes = strtab_find(&t->strs, "Input type", 10);
    uint32_t kconc = strtab_find(&t->strs, "Concrete Inputs", 15);
    int rc = -ENOMEM;
    uint32_t *rows = NULL, *par = NULL, *stack = NULL, *kbest = NULL;
    uint8_t *fam = NULL, *ncache = NULL;
    lat_ns *ktime = NULL, *kbest_dur = NULL;
    struct pm_agg *agg = NULL;
    size_t nagg = 0, cagg = 0, nrows = 0;
    struct lat_u64map by_key = {0};

    if (kdims == UINT32_MAX || ktypes == UINT32_MAX) return 0; /* no record_shapes */
    size_t nstr = t->strs.count ? t->strs.count : 1;
    ncache = calloc(nstr, 1);
    if (!ncache) goto out;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || ev->ph[i] != 'X' || t->tracks[ev->track[i]].gpu) continue;
        if (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_RUNTIME ||
            ev->kind[i] == LAT_EV_DRIVER)
            nrows++;
    }
    size_t n1 = nrows ? nrows : 1;
    rows = malloc(n1 * sizeof(*rows));
    par = malloc(n1 * sizeof(*par));
    stack = malloc(n1 * sizeof(*stack));
    fam = calloc(n1, 1);
    ktime = calloc(n1, sizeof(*ktime));
    kbest = malloc(n1 * sizeof(*kbest));
    kbest_dur = calloc(n1, sizeof(*kbest_dur));
    if (!rows || !par || !stack || !fam || !ktime || !kbest || !kbest_dur) goto out;
    if ((rc = lat_u64map_init(&by_key, 64))) goto out;
    rc = -ENOMEM;
    nrows = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->keep[i] || ev->ph[i] != 'X' || t->tracks[ev->track[i]].gpu) continue;
        if (ev->kind[i] == LAT_EV_CPU_OP || ev->kind[i] == LAT_EV_RUNTIME ||
            ev->kind[i] == LAT_EV_DRIVER)
            rows[nrows++] = (uint32_t)i;
    }
    qsort_r(rows, nrows, sizeof(*rows), pm_walk_cmp, (void *)(uintptr_t)ev);

    /* fam[k]: bit 0 modelled, bit 1 owner, bit 2 has a modelled op below, bit 3 is a row */
    size_t depth = 0, owners = 0;
    for (size_t k = 0; k < nrows; k++) {
        uint32_t i = rows[k];
        lat_ns ts = ev->ts[i], end = ts + ev->dur[i];
        bool newtrack = k && ev->track[i] != ev->track[rows[k - 1]];
        while (depth) {
            uint32_t p = rows[stack[depth - 1]];
            if (!newtrack && ts < ev->ts[p] + ev->dur[p] && end <= ev->ts[p] + ev->dur[p]) break;
            if (fam[stack[depth - 1]] & 2) owners--;
            depth--;
        }
        par[k] = depth ? stack[depth - 1] : AN_NONE;
        kbest[k] = AN_NONE;
        if (ev->kind[i] == LAT_EV_CPU_OP && !owners) {
            uint8_t nc = ncache[ev->name[i]];
            if (!nc) {
                bool owner;
                enum pm_family f = pm_family_of(lat_trace_str(t, ev->name[i]), &owner);
                nc = f == PM_NONE ? 0x80 : (uint8_t)(0x80 | 1 | (owner ? 2 : 0));
                ncache[ev->name[i]] = nc;
            }
            fam[k] = nc & 3;
            if (fam[k] & 1)
                for (size_t d = depth; d > 0; d--) {
                    uint32_t q = stack[d - 1];
                    if ((fam[q] & 1) && (fam[q] & 4)) break; /* the rest is marked already */
                    if (fam[q] & 1) fam[q] |= 4;
                }
        }
        if (fam[k] & 2) owners++;
        stack[depth++] = (uint32_t)k;
    }
    for (size_t k = 0; k < nrows; k++)
        if ((fam[k] & 1) && (!(fam[k] & 4) || (fam[k] & 2))) fam[k] |= 8;
    /* kernel time of each row instance: the GPU rows of the runtime calls below it */
    bool any_gpu = v->ngpu > 0;
    for (size_t k = 0; k < nrows; k++) {
        uint32_t i = rows[k];
        if (ev->kind[i] != LAT_EV_RUNTIME && ev->kind[i] != LAT_EV_DRIVER) continue;
        uint32_t g = v->corr[i];
        if (g == AN_NONE || !t->tracks[ev->track[g]].gpu) continue;
        uint32_t p = par[k];
        while (p != AN_NONE && !(fam[p] & 8))
            p = par[p];
        if (p == AN_NONE) continue;
        ktime[p] += ev->dur[g];
        if (kbest[p] == AN_NONE || ev->dur[g] > kbest_dur[p]) {
            kbest[p] = g;
            kbest_dur[p] = ev->dur[g];
        }
    }
    for (size_t k = 0; k < nrows; k++) {
        if (!(fam[k] & 8)) continue;
        uint32_t i = rows[k];
        bool gpu = kbest[k] != AN_NONE;
        if (any_gpu && !gpu) continue; /* launched nothing on a GPU trace */
        lat_ns time = gpu ? ktime[k] : ev->dur[i];
        uint32_t dims = arg_raw(t, i, kdims), types = arg_raw(t, i, ktypes);
        int64_t key = (int64_t)(((uint64_t)ev->name[i] << 32) | dims) ^ ((int64_t)types << 17) ^
                      (gpu ? 1 : 0);
        uint32_t slot = an_row(&by_key, key);
        while (slot != AN_NONE && (agg[slot].name != ev->name[i] || agg[slot].dims != dims ||
                                   agg[slot].types != types || agg[slot].gpu != gpu))
            slot = an_row(&by_key, key = (int64_t)((uint64_t)key + 1));
        if (slot == AN_NONE) {
            struct pm_cost c;
            if (!dims || !types ||
                pm_cost(lat_trace_str(t, ev->name[i]), lat_trace_str(t, dims),
                        lat_trace_str(t, types),
                        kconc != UINT32_MAX && arg_raw(t, i, kconc)
                            ? lat_trace_str(t, arg_raw(t, i, kconc))
                            : NULL,
                        &c)) {
                r->perf_unparsed++;
                continue;
            }
            if (LAT_GROW(agg, cagg, nagg, 1, 32)) goto out;
            slot = (uint32_t)nagg++;
            agg[slot] = (struct pm_agg){.name = ev->name[i],
                                        .dims = dims,
                                        .types = types,
                                        .gpu = gpu,
                                        .first = i,
                                        .kernel = kbest[k],
                                        .cost = c};
            if ((rc = an_row_put(&by_key, key, slot))) goto out;
            rc = -ENOMEM;
        }
        agg[slot].count++;
        agg[slot].time += time;
        r->perf_instances++;
        r->perf_time += time;
    }
    if (nagg) qsort(agg, nagg, sizeof(*agg), agg_time_desc);
    size_t top = nagg < v->o->top_n ? nagg : v->o->top_n;
    r->perf = calloc(top ? top : 1, sizeof(*r->perf));
    if (!r->perf) goto out;
    for (size_t q = 0; q < top; q++) {
        fill_row(t, &agg[q], &r->perf[q]);
        char *s = strdup(agg[q].cost.shape);
        if (!s) goto out;
        r->perf[q].shape = s;
        r->nperf++;
    }
    r->nperf_total = nagg;
    rc = 0;
out:
    free(rows);
    free(par);
    free(stack);
    free(fam);
    free(ncache);
    free(ktime);
    free(kbest);
    free(kbest_dur);
    free(agg);
    lat_u64map_fini(&by_key);
    return rc;
}

/* ---- standalone (doctor) ----------------------------------------------------------------- */

int pm_run(const struct lat_trace *t, size_t top_n, struct lat_an_rank *out)
{
    struct analysis_opts o;
    struct an_view v;
    struct lat_u64map gpu = {0};
    int rc = -ENOMEM;
    analysis_opts_default(&o);
    o.top_n = top_n;
    memset(&v, 0, sizeof(v));
    memset(out, 0, sizeof(*out));
    v.t = t;
    v.o = &o;
    v.n = t->ev.n;
    size_t n1 = v.n ? v.n : 1;
    v.keep = malloc(n1);
    v.corr = malloc(n1 * sizeof(*v.corr));
    if (!v.keep || !v.corr || lat_u64map_init(&gpu, 256)) goto out;
    memset(v.keep, 1, n1);
    /* index correlation without HTA's preprocessing: GPU rows by correlation id */
    for (size_t i = 0; i < v.n; i++) {
        v.corr[i] = AN_NONE;
        if (!t->tracks[t->ev.track[i]].gpu) continue;
        v.ngpu++;
        if (t->ev.correlation[i] != -1 && an_row_put(&gpu, t->ev.correlation[i], (uint32_t)i))
            goto out;
    }
    for (size_t i = 0; i < v.n; i++)
        if (!t->tracks[t->ev.track[i]].gpu && t->ev.correlation[i] != -1)
            v.corr[i] = an_row(&gpu, t->ev.correlation[i]);
    rc = an_perfmodel(&v, out);
out:
    free(v.keep);
    free(v.corr);
    lat_u64map_fini(&gpu);
    if (rc) pm_rows_free(out);
    return rc;
}

void pm_rows_free(struct lat_an_rank *r)
{
    for (size_t i = 0; i < r->nperf; i++)
        free(r->perf[i].shape);
    free(r->perf);
    r->perf = NULL;
    r->nperf = 0;
}
