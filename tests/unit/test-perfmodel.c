/* test-perfmodel.c - the performance model (src/analyze/perfmodel.c): each op family against a
 * hand computation, against TraceLens' published per-op numbers, and on real traces.
 *
 * TraceLens reference: AMD-AGI/TraceLens @ 171dd747, the per-op perf report CSVs it checks in
 * next to its test traces, tests/traces/h100/<trace>_perf_report_csvs/{GEMM,SDPA_fwd,
 * BinaryElementwise,UnaryElementwise,Normalization,Reduce_fwd,CONV_fwd}.csv, columns
 * "GFLOPS_first" and "Data Moved (MB)_first" (MB = 2^20 bytes) and "Kernel Time (µs)_sum".
 * The args strings below are the "Input Dims" / "Input type" / "Concrete Inputs" of those rows
 * ("Input Dims_first", ... in the same CSVs). Where latscope deliberately differs (conv bias,
 * reduction output size) the test says by how much. */
#include "test.h"

#include "analyze/analysis.h"
#include "analyze/perfmodel.h"
#include "ingest/ingest.h"

#include <math.h>
#include <string.h>

#define MB (1024.0 * 1024.0)

static struct pm_cost cost(const char *name, const char *dims, const char *types, const char *conc)
{
    struct pm_cost c;
    if (pm_cost(name, dims, types, conc, &c)) FAIL("pm_cost(%s, %s) failed", name, dims);
    return c;
}

/* ---- hand computations ------------------------------------------------------------------- */

TEST(perfmodel_gemm_hand)
{
    /* mm [M,K]x[K,N], fp32: 2MNK flops, (MK + KN + MN) * 4 bytes */
    struct pm_cost c = cost("aten::mm", "[[64, 32], [32, 16]]", "[\"float\", \"float\"]", NULL);
    ASSERT_NEAR(c.flops, 2.0 * 64 * 16 * 32, 0);
    ASSERT_NEAR(c.bytes, (64.0 * 32 + 32 * 16 + 64 * 16) * 4, 0);
    ASSERT_EQ_I64(c.m, 64);
    ASSERT_EQ_I64(c.n, 16);
    ASSERT_EQ_I64(c.k, 32);
    ASSERT(c.matrix);
    ASSERT_EQ_I64(c.prec, PM_FP32);
    /* bmm [B,M,K]x[B,K,N], bf16 */
    c = cost("aten::bmm", "[[3, 5, 7], [3, 7, 11]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             NULL);
    ASSERT_NEAR(c.flops, 3 * 2.0 * 5 * 11 * 7, 0);
    ASSERT_NEAR(c.bytes, 3 * (5.0 * 7 + 7 * 11 + 5 * 11) * 2, 0);
    ASSERT_EQ_I64(c.batch, 3);
    ASSERT_EQ_I64(c.prec, PM_BF16);
    /* linear: input [2, 10, K=8], weight [N=4, K], bias [N] -> M = 20 */
    c = cost("aten::linear", "[[2, 10, 8], [4, 8], [4]]",
             "[\"c10::Half\", \"c10::Half\", \"c10::Half\"]", NULL);
    ASSERT_EQ_I64(c.m, 20);
    ASSERT_EQ_I64(c.n, 4);
    ASSERT_NEAR(c.flops, 2.0 * 20 * 4 * 8 + 20 * 4, 0);
    ASSERT_NEAR(c.bytes, (20.0 * 8 + 8 * 4 + 20 * 4 + 4) * 2, 0);
    /* matmul with broadcast batch: [2,1,3,4] x [5,4,6] -> batch 2*5, M 3, N 6, K 4 */
    c = cost("aten::matmul", "[[2, 1, 3, 4], [5, 4, 6]]", "[\"float\", \"float\"]", NULL);
    ASSERT_EQ_I64(c.batch, 10);
    ASSERT_NEAR(c.flops, 10 * 2.0 * 3 * 6 * 4, 0);
    /* mismatched K: not modelled */
    struct pm_cost bad;
    ASSERT(pm_cost("aten::mm", "[[4, 3], [5, 6]]", "[\"float\", \"float\"]", NULL, &bad) != 0);
    ASSERT(pm_cost("aten::mm", "[[4, 3]", "[\"float\"]", NULL, &bad) != 0);
    ASSERT(pm_cost("aten::mm", "[[4, 3], [3, 2]]", "[\"long int\", \"long int\"]", NULL, &bad) ==
           0); /* int64 GEMM: costed, no peak class */
    ASSERT_EQ_I64(bad.prec, -1);
}

TEST(perfmodel_conv_hand)
{
    /* conv2d x [2,3,32,32], w [8,3,3,3], bias, stride 2, padding 1 -> out [2,8,16,16] */
    struct pm_cost c = cost(
        "aten::convolution", "[[2, 3, 32, 32], [8, 3, 3, 3], [8], [], [], [], [], [], []]",
        "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
        "\"Scalar\", \"ScalarList\", \"Scalar\"]",
        "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]");
    double out = 2.0 * 8 * 16 * 16;
    ASSERT_NEAR(c.flops, out * 2 * 3 * 3 * 3 + out, 0);
    ASSERT_NEAR(c.bytes, (2.0 * 3 * 32 * 32 + 8 * 27 + out + 8) * 4, 0);
    /* depthwise: groups = 8, w [8,1,3,3], no bias, stride 1 pad 1 -> out [1,8,10,10] */
    c = cost(
        "aten::convolution", "[[1, 8, 10, 10], [8, 1, 3, 3], [], [], [], [], [], [], []]",
        "[\"c10::Half\", \"c10::Half\", \"\", \"ScalarList\", \"ScalarList\", "
        "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
        "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"8\"]");
    ASSERT_NEAR(c.flops, 800.0 * 2 * 9, 0);
    /* cudnn_convolution order: padding, stride, dilation, groups */
    c = cost("aten::cudnn_convolution",
             "[[2, 3, 32, 32], [8, 3, 3, 3], [], [], [], [], [], [], []]",
             "[\"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"]",
             "[\"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[1, 1]\", \"1\"]");
    ASSERT_NEAR(c.flops, out * 2 * 27, 0);
}

TEST(perfmodel_attention_hand)
{
    /* SDPA [B,H,N,d] = [2,4,128,64], causal with N_Q == N_KV: halved */
    const char *d = "[[2, 4, 128, 64], [2, 4, 128, 64], [2, 4, 128, 64], [], [], [], [], []]";
    const char *ty = "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"\", \"Scalar\", \"Scalar\"]";
    struct pm_cost nc = cost("aten::scaled_dot_product_attention", d, ty,
                             "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]");
    struct pm_cost cc = cost("aten::scaled_dot_product_attention", d, ty,
                             "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\", \"False\"]");
    double full = 2.0 * 4 * 4 * 128 * 128 * 64;
    ASSERT_NEAR(nc.flops, full, 0);
    ASSERT_NEAR(cc.flops, full / 2, 0);
    ASSERT_NEAR(nc.bytes, 4 * 2.0 * 4 * 128 * 64 * 2, 0);
    /* flash forward [B,N,H,d] with GQA: H_KV = 2 */
    struct pm_cost f =
        cost("aten::_flash_attention_forward",
             "[[2, 128, 4, 64], [2, 256, 2, 64], [2, 256, 2, 64], [], []]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]",
             "[\"\", \"\", \"\", \"\", \"\", \"128\", \"256\", \"0.\", \"False\", \"False\"]");
    ASSERT_NEAR(f.flops, 2.0 * 4 * 4 * 128 * 256 * 64, 0);
    ASSERT_NEAR(f.bytes, (2.0 * 128 * 4 * 64 * 2 + 2 * 2.0 * 256 * 2 * 64) * 2, 0);
    ASSERT_EQ_I64(f.m, 128);
    ASSERT_EQ_I64(f.n, 256);
    /* memory-efficient forward [B,N,H,d]; custom_mask_type (concrete 9) 1 = causal: halved */
    const char *ed = "[[1, 64, 2, 32], [1, 64, 2, 32], [1, 64, 2, 32], [], [], [], [], [], [], "
                     "[], [], []]";
    const char *et = "[\"float\", \"float\", \"float\"]";
    struct pm_cost e0 = cost("aten::_efficient_attention_forward", ed, et,
                             "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", "
                             "\"0\", \"False\", \"\"]");
    struct pm_cost e1 = cost("aten::_efficient_attention_forward", ed, et,
                             "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", "
                             "\"1\", \"False\", \"\"]");
    ASSERT_NEAR(e0.flops, 4.0 * 1 * 2 * 64 * 64 * 32, 0);
    ASSERT_NEAR(e1.flops, e0.flops / 2, 0);
    ASSERT_NEAR(e0.bytes, 4.0 * 64 * 2 * 32 * 4, 0);
}

TEST(perfmodel_elementwise_reduce_hand)
{
    /* broadcast mul [4,1,8] * [3,1] -> [4,3,8] */
    struct pm_cost c = cost("aten::mul", "[[4, 1, 8], [3, 1]]", "[\"float\", \"float\"]", NULL);
    ASSERT_NEAR(c.flops, 96, 0);
    ASSERT_NEAR(c.bytes, (32.0 + 3 + 96) * 4, 0);
    ASSERT(!c.matrix);
    c = cost("aten::relu", "[[10, 10]]", "[\"c10::BFloat16\"]", NULL);
    ASSERT_NEAR(c.flops, 100, 0);
    ASSERT_NEAR(c.bytes, 400, 0);
    /* sum over dim 1 of [4, 5, 6] -> 24 outputs */
    c = cost("aten::sum", "[[4, 5, 6], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\"]",
             "[\"\", \"[1]\", \"False\", \"\"]");
    ASSERT_NEAR(c.flops, 120, 0);
    ASSERT_NEAR(c.bytes, (120.0 + 24) * 4, 0);
    /* softmax: 3n flops, 2n bytes per element size */
    c = cost("aten::_softmax", "[[8, 16], [], []]", "[\"c10::Half\", \"Scalar\", \"Scalar\"]",
             "[\"\", \"-1\", \"False\"]");
    ASSERT_NEAR(c.flops, 3 * 128.0, 0);
    ASSERT_NEAR(c.bytes, 2 * 128.0 * 2, 0);
    /* not a modelled op */
    struct pm_cost bad;
    ASSERT(pm_cost("aten::view", "[[1]]", "[\"float\"]", NULL, &bad) != 0);
    ASSERT_EQ_I64(pm_family_of("aten::index_select", NULL), PM_NONE);
    bool owner = false;
    ASSERT_EQ_I64(pm_family_of("aten::convolution", &owner), PM_CONV);
    ASSERT(owner);
}

/* ---- TraceLens' reference CSVs ----------------------------------------------------------- */

TEST(perfmodel_tracelens_bert)
{
    /* gaunernst_bert-small-uncased__1016001_perf_report_csvs */
    struct pm_cost c = cost("aten::addmm", "[[512], [141, 512], [512, 512], [], []]",
                            "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                            "\"Scalar\", \"Scalar\"]",
                            "[\"\", \"\", \"\", \"1\", \"1\"]");
    ASSERT_NEAR(c.flops, 0.0739968e9, 0.5);       /* GEMM.csv GFLOPS_first */
    ASSERT_NEAR(c.bytes, 0.7763671875 * MB, 0.5); /* Data Moved (MB)_first */
    c = cost("aten::addmm", "[[30522], [141, 512], [512, 30522], [], []]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
             NULL);
    ASSERT_NEAR(c.flops, 4.41119205e9, 1);
    ASSERT_NEAR(c.bytes, 38.211021423339844 * MB, 1);
    c = cost("aten::_scaled_dot_product_flash_attention",
             "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
             "\"Scalar\", \"Scalar\"]",
             "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"0.125\"]");
    ASSERT_NEAR(c.flops, 0.040716288e9, 0.5); /* SDPA_fwd.csv */
    ASSERT_NEAR(c.bytes, 0.55078125 * MB, 0.5);
    c = cost("aten::add", "[[1, 141, 512], [1, 141, 512], []]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", "[\"\", \"\", \"1\"]");
    ASSERT_NEAR(c.flops, 7.2192e-05 * 1e9, 0.5); /* BinaryElementwise.csv */
    ASSERT_NEAR(c.bytes, 0.4130859375 * MB, 0.5);
    c = cost("aten::native_layer_norm", "[[1, 141, 512], [], [512], [512], []]",
             "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", "
             "\"Scalar\"]",
             "[\"\", \"[512]\", \"\", \"\", \"9.9999999999999998e-13\"]");
    ASSERT_NEAR(c.flops, 0.000364032e9, 0.5); /* Normalization.csv */
    ASSERT_NEAR(c.bytes, 0.28125 * MB, 0.5);
}

TEST(perfmodel_tracelens_qwen_falconsai)
{
    /* Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs */
    struct pm_cost c = cost("aten::mm", "[[8944, 1024], [1024, 2816]]",
                            "[\"c10::BFloat16\", \"c10::BFloat16\"]", "[\"\", \"\"]");
    ASSERT_NEAR(c.flops, 51.581550592e9, 1); /* GEMM.csv */
    ASSERT_NEAR(c.bytes, 71.0078125 * MB, 1);
    c = cost("aten::_scaled_dot_product_flash_attention",
             "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
             "\"Scalar\", \"Scalar\"]",
             "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"0.125\"]");
    ASSERT_NEAR(c.flops, 10.239377408e9, 1); /* SDPA_fwd.csv (causal: halved) */
    ASSERT_NEAR(c.bytes, 69.875 * MB, 1);
    c = cost("aten::pow", "[[16, 559, 1024], []]", "[\"float\", \"Scalar\"]", "[\"\", \"2\"]");
    ASSERT_NEAR(c.flops, 0.009158656e9, 0.5); /* UnaryElementwise.csv */
    ASSERT_NEAR(c.bytes, 69.875 * MB, 0.5);
    c = cost("aten::silu", "[[16, 559, 2816]]", "[\"c10::BFloat16\"]", "[\"\"]");
    ASSERT_NEAR(c.flops, 0.025186304e9, 0.5);
    ASSERT_NEAR(c.bytes, 96.078125 * MB, 0.5);
    c = cost("aten::mul", "[[16, 559, 1024], [16, 559, 1]]", "[\"float\", \"float\"]",
             "[\"\", \"\"]");
    ASSERT_NEAR(c.flops, 0.009158656e9, 0.5); /* BinaryElementwise.csv */
    ASSERT_NEAR(c.bytes, 69.90911865234375 * MB, 0.5);
    c = cost("aten::mul", "[[16, 16, 559, 64], [1, 1, 559, 64]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]", "[\"\", \"\"]");
    ASSERT_NEAR(c.bytes, 35.0057373046875 * MB, 0.5);
    /* Reduce_fwd.csv aten::mean over dim [-1] of [16,559,1024]: TraceLens' Data Moved is
     * 34.937503814697266 MB = input + ONE output element (its parser skips the string "[-1]");
     * latscope counts the 16*559 outputs: 35 772 more elements of 4 bytes. FLOPs agree. */
    c = cost("aten::mean", "[[16, 559, 1024], [], [], []]",
             "[\"float\", \"ScalarList\", \"Scalar\", \"\"]", "[\"\", \"[-1]\", \"True\", \"\"]");
    ASSERT_NEAR(c.flops, 0.009158656e9, 0.5);
    ASSERT_NEAR(c.bytes, 34.937503814697266 * MB + (16.0 * 559 - 1) * 4, 0.5);
    /* Falconsai_nsfw_image_detection__1016002_perf_report_csvs/CONV_fwd.csv: 0.924844032 GF,
     * 3.421875 MB with "param: bias" False (TraceLens' aten_conv tests len(Input Dims) == 3,
     * never true for aten::convolution's 9 args); the op has a bias [768], which latscope
     * counts: + |out| = 4*768*14*14 FLOPs and + 768 elements of 2 bytes. */
    c = cost("aten::convolution",
             "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", "
             "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
             "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", "
             "\"1\"]");
    ASSERT_NEAR(c.flops, 0.924844032e9 + 4.0 * 768 * 14 * 14, 0.5);
    ASSERT_NEAR(c.bytes, 3.421875 * MB + 768 * 2, 0.5);
}

/* ---- peak table ------------------------------------------------------------------------ */

TEST(perfmodel_peaks)
{
    const struct pm_peak *p = pm_peak_for("NVIDIA H100 80GB HBM3");
    ASSERT(p && !strcmp(p->model, "H100 SXM"));
    ASSERT_NEAR(p->tflops[PM_BF16], 989.4, 0);
    ASSERT_NEAR(p->gbps, 3350, 0);
    ASSERT(!strcmp(pm_peak_for("NVIDIA H100 PCIe")->model, "H100 PCIe"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA B200")->model, "B200"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA A100-SXM4-40GB")->model, "A100 SXM 40GB"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA A100-SXM4-80GB")->model, "A100 SXM 80GB"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA A100 80GB PCIe")->model, "A100 PCIe 80GB"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA A100-PCIE-40GB")->model, "A100 PCIe 40GB"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA H200")->model, "H200 SXM"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA L4")->model, "L4"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA L40S")->model, "L40S"));
    ASSERT(!strcmp(pm_peak_for("NVIDIA A10")->model, "A10"));
    ASSERT(!strcmp(pm_peak_for("Tesla T4")->model, "T4"));
    ASSERT(!strcmp(pm_peak_for("Tesla V100-SXM2-32GB")->model, "V100 SXM2"));
    ASSERT(!strcmp(pm_peak_for("Tesla V100-DGXS-32GB")->model, "V100 SXM2"));
    ASSERT(!strcmp(pm_peak_for("Tesla V100-PCIE-16GB")->model, "V100 PCIe"));
    ASSERT(!strcmp(pm_peak_for("AMD Instinct MI300X")->model, "MI300X"));
    /* not in the table: no neighbour's numbers */
    ASSERT(pm_peak_for("NVIDIA A10G") == NULL);
    ASSERT(pm_peak_for("NVIDIA H100 NVL") == NULL);
    ASSERT(pm_peak_for("AMD Instinct MI250X") == NULL);
    ASSERT(pm_peak_for("NVIDIA GeForce RTX 4090") == NULL);
    ASSERT(pm_peak_for("") == NULL);
    ASSERT(pm_peak_for(NULL) == NULL);
}

/* ---- real traces --------------------------------------------------------------------------- */

static const struct lat_an_perf *find_row(const struct lat_an_rank *r, const char *op,
                                          const char *shape)
{
    for (size_t i = 0; i < r->nperf; i++)
        if (!strcmp(r->perf[i].op, op) && !strcmp(r->perf[i].shape, shape)) return &r->perf[i];
    return NULL;
}

TEST_TIMEOUT(perfmodel_bert_trace, 60)
{
    const char *p = test_shared_path("tracelens/tests/traces/h100/"
                                     "gaunernst_bert-small-uncased__1016001.json.gz");
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_open(p, NULL, &t, err, sizeof(err))) FAIL("%s", err);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.top_n = 100;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    const struct lat_an_rank *r = &a->ranks[0];
    /* GEMM.csv: aten::addmm 141x512x512, name_count 17, Kernel Time (µs)_sum 98.718017578125
     * (TraceLens' float µs; the trace's ns are exact) */
    const struct lat_an_perf *g = find_row(r, "aten::addmm", "M=141 N=512 K=512");
    ASSERT(g != NULL);
    ASSERT_EQ_U64(g->count, 17);
    ASSERT_NEAR((double)g->time / 1000.0, 98.718017578125, 0.01);
    ASSERT(g->gpu_time);
    ASSERT_EQ_STR(g->device, "NVIDIA H100 80GB HBM3");
    ASSERT_EQ_STR(g->precision, "BF16");
    /* achieved over Σ time, % of the H100 SXM BF16 peak */
    double tf = 17 * 73996800.0 / ((double)g->time * 1e-9) * 1e-12;
    ASSERT_NEAR(g->tflops, tf, 1e-9);
    ASSERT_NEAR(g->pct_peak_flops, 100 * tf / 989.4, 1e-9);
    /* intensity 90.9 FLOP/B < ridge 989.4e12 / 3350e9 = 295: memory-bound */
    ASSERT_EQ_STR(g->bound, "memory");
    ASSERT_NEAR(g->pct_of_bound, g->pct_peak_bw, 0);
    /* SDPA_fwd.csv: 4 calls, Kernel Time sum 37.408203125 µs (the innermost modelled op is
     * aten::_flash_attention_forward: same kernels, same FLOPs) */
    const struct lat_an_perf *s =
        find_row(r, "aten::_flash_attention_forward", "B=1 H=8 N=141 d=64");
    ASSERT(s != NULL);
    ASSERT_EQ_U64(s->count, 4);
    ASSERT_NEAR((double)s->time / 1000.0, 37.408203125, 0.01);
    ASSERT_NEAR(s->flops, 0.040716288e9, 0.5);
    /* Normalization.csv: native_layer_norm, 10 calls, 30.912109375 µs */
    const struct lat_an_perf *n = find_row(r, "aten::native_layer_norm", "1x141x512");
    ASSERT(n != NULL);
    ASSERT_EQ_U64(n->count, 10);
    ASSERT_NEAR((double)n->time / 1000.0, 30.912109375, 0.01);
    /* the wrappers above them are not rows (innermost modelled op only) */
    for (size_t i = 0; i < r->nperf; i++) {
        ASSERT(strcmp(r->perf[i].op, "aten::linear") != 0);
        ASSERT(strcmp(r->perf[i].op, "aten::layer_norm") != 0);
        ASSERT(strcmp(r->perf[i].op, "aten::scaled_dot_product_attention") != 0);
        ASSERT(!(r->perf[i].pct_peak_flops > 100) && !(r->perf[i].pct_peak_bw > 100));
    }
    analysis_free(a);
    lat_trace_free(t);
}

TEST_TIMEOUT(perfmodel_falconsai_conv_trace, 60)
{
    const char *p = test_shared_path("tracelens/tests/traces/h100/"
                                     "Falconsai_nsfw_image_detection__1016002.json.gz");
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_open(p, NULL, &t, err, sizeof(err))) FAIL("%s", err);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.top_n = 200;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    const struct lat_an_rank *r = &a->ranks[0];
    const struct lat_an_perf *c = NULL;
    for (size_t i = 0; i < r->nperf; i++)
        if (!strcmp(r->perf[i].op, "aten::convolution")) c = &r->perf[i];
    ASSERT(c != NULL);
    ASSERT_EQ_STR(c->family, "conv");
    /* CONV_fwd.csv: Kernel Time (µs)_sum of the row (its kernels incl. the Memset) */
    ASSERT_EQ_U64(c->count, 1);
    ASSERT_NEAR((double)c->time / 1000.0, 129.60009765625, 0.01);
    ASSERT_NEAR(c->flops, 0.924844032e9 + 4.0 * 768 * 14 * 14, 0.5);
    for (size_t i = 0; i < r->nperf; i++) {
        ASSERT(strcmp(r->perf[i].op, "aten::cudnn_convolution") != 0); /* under the owner */
        ASSERT(strcmp(r->perf[i].op, "aten::_convolution") != 0);
    }
    analysis_free(a);
    lat_trace_free(t);
}
