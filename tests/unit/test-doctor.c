/*
 * test-doctor.c - the doctor's rules on tiny hand-made traces, positive and negative per rule.
 *
 * Each test writes a Kineto JSON document (current layout) with a small builder, loads it with
 * the real reader (ingest_mem), runs the doctor and checks the finding it must (or must not)
 * produce, with numbers worked out by hand from the timeline in the comment above each test.
 * All times below are µs.
 */
#include "test.h"

#include "analyze/analysis.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/ivl.h"
#include "core/jsonw.h"
#include "doctor/ctx.h"
#include "doctor/doctor.h"
#include "doctor/shell.h"
#include "ingest/ingest.h"

#include <stdarg.h>

struct tj {
    struct lat_buf b;
    int n;
    char top[512];
};

static void tj_begin(struct tj *j, const char *top)
{
    memset(j, 0, sizeof(*j));
    snprintf(j->top, sizeof(j->top), "%s", top ? top : "");
}

static void tj_ev(struct tj *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tj_ev(struct tj *j, const char *fmt, ...)
{
    va_list ap;
    if (j->n++) buf_putc(&j->b, ',');
    buf_putc(&j->b, '\n');
    va_start(ap, fmt);
    buf_vprintf(&j->b, fmt, ap);
    va_end(ap);
}

static void tj_step(struct tj *j, int n, double ts, double dur)
{
    tj_ev(j,
          "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,"
          "\"tid\":1,\"ts\":%.3f,\"dur\":%.3f}",
          n, ts, dur);
}

static void tj_op(struct tj *j, const char *name, double ts, double dur)
{
    tj_ev(j,
          "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,"
          "\"dur\":%.3f}",
          name, ts, dur);
}

static void tj_rt(struct tj *j, const char *name, double ts, double dur, int corr)
{
    tj_ev(j,
          "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,"
          "\"dur\":%.3f,\"args\":{\"correlation\":%d}}",
          name, ts, dur, corr);
}

static void tj_gpu(struct tj *j, const char *cat, const char *name, double ts, double dur,
                   int stream, int corr, const char *extra)
{
    tj_ev(j,
          "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,"
          "\"dur\":%.3f,\"args\":{\"device\":0,\"stream\":%d,\"correlation\":%d%s%s}}",
          cat, name, stream, ts, dur, stream, corr, extra && *extra ? "," : "", extra ? extra : "");
}

/* A kernel launch: cudaLaunchKernel [lts, lts+ldur) and the kernel [kts, kts+kdur). */
static void tj_launch(struct tj *j, const char *kname, double lts, double ldur, double kts,
                      double kdur, int corr, const char *extra)
{
    tj_rt(j, "cudaLaunchKernel", lts, ldur, corr);
    tj_gpu(j, "kernel", kname, kts, kdur, 7, corr, extra);
}

static struct lat_trace *tj_load(struct tj *j)
{
    struct lat_buf doc = LAT_BUF_INIT;
    buf_printf(&doc, "{%s%s\"traceEvents\":[%s\n]}", j->top, j->top[0] ? "," : "",
               j->b.data ? j->b.data : "");
    struct lat_trace *t = NULL;
    char err[256] = "";
    int rc = ingest_mem(doc.data, doc.len, "handmade.json", NULL, &t, err, sizeof(err));
    if (rc) FAIL("ingest_mem: %d %s\n%s", rc, err, doc.data);
    buf_fini(&doc);
    buf_fini(&j->b);
    return t;
}

static struct doc_report *run(struct tj *j)
{
    struct lat_trace *t = tj_load(j);
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    doctor_rank(r);
    lat_trace_free(t);
    return r;
}

static const struct doc_finding *find(const struct doc_report *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->f[i].id, id) == 0) return &r->f[i];
    return NULL;
}

static const struct doc_kv *kv(const struct doc_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nkv; i++)
        if (strcmp(f->kv[i].key, key) == 0) return &f->kv[i];
    FAIL("finding %s has no evidence %s", f->id, key);
}

#define V100                                                                                       \
    "\"deviceProperties\":[{\"id\":0,\"name\":\"V100\",\"computeMajor\":7,\"computeMinor\":0,"     \
    "\"numSms\":80,\"maxThreadsPerMultiprocessor\":2048,\"totalGlobalMem\":1000000}]"

/* ---- interval helpers ---- */

TEST(doctor_ivl_ops)
{
    struct lat_ivl_set a = {0}, b = {0}, o = {0};
    ASSERT_RC(lat_ivl_push(&a, 10, 20));
    ASSERT_RC(lat_ivl_push(&a, 0, 5));
    ASSERT_RC(lat_ivl_push(&a, 15, 30));
    lat_ivl_merge(&a);
    ASSERT_EQ_U64(a.n, 2);
    ASSERT_EQ_I64(lat_ivl_measure(&a), 25);
    ASSERT_EQ_I64(lat_ivl_measure_in(&a, 3, 12), 4);
    ASSERT_RC(lat_ivl_push(&b, 4, 11));
    ASSERT_RC(lat_ivl_subtract(&a, &b, &o));
    ASSERT_EQ_I64(lat_ivl_measure(&o), 25 - 2);
    ASSERT_RC(lat_ivl_intersect(&a, &b, &o));
    ASSERT_EQ_I64(lat_ivl_measure(&o), 2);
    ASSERT_RC(lat_ivl_gaps_in(&a, 0, 40, &o));
    ASSERT_EQ_U64(o.n, 2); /* [5,10) and [30,40) */
    ASSERT_EQ_I64(lat_ivl_measure(&o), 15);
    lat_ivl_fini(&a);
    lat_ivl_fini(&b);
    lat_ivl_fini(&o);
}

/* ---- R7 DataLoader ----
 * 4 steps of 1000: DataLoader __next__ [0,300), then a launch at 300 whose kernel runs
 * [310, 1000). DataLoader share (tb_plugin) = 300 / 1000 = 30 %. */
static void build_dataloader(struct tj *j, double dl)
{
    tj_begin(j, NULL);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, 1000);
        tj_op(j, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", b, dl);
        tj_launch(j, "conv_kernel", b + dl, 5, b + dl + 10, 1000 - dl - 10, 100 + s, NULL);
    }
}

TEST(doctor_dataloader_positive)
{
    struct tj j;
    build_dataloader(&j, 300);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "dataloader");
    ASSERT(f);
    ASSERT_EQ_STR(r->f[0].id, "dataloader"); /* ranked first */
    ASSERT_NEAR(f->saving_pct, 30.0, 0.01);
    ASSERT_NEAR(f->saving_us_per_step, 300.0, 0.001);
    ASSERT_EQ_I64(f->severity, DOC_SEV_HIGH);
    ASSERT(kv(f, "single_process_loader")->i);
    ASSERT_EQ_U64(f->nex, 4);
    ASSERT_EQ_I64(f->ex[0].dur, 300000);
    ASSERT(strstr(f->recommendation, "num_workers"));
    doctor_report_free(r);
}

TEST(doctor_dataloader_negative)
{
    struct tj j;
    build_dataloader(&j, 20); /* 2 % < 5 % */
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "dataloader"));
    doctor_report_free(r);
}

/* ---- R1 host-bound idle ----
 * Step of 1000: kernel A launched at [0,5) runs [10,100); aten::cpu_work [100,700) on the
 * CPU; launch at [700,705) of kernel B running [710,1000). GPU idle [0,10) (launch ended after
 * the gap began: late) and [100,710) (late): 10 + 610 = 620 per step = 62 %. */
static void build_host(struct tj *j, bool gpu_bound)
{
    tj_begin(j, NULL);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, 1000);
        if (gpu_bound) {
            /* both launches at the start; kernels back to back fill the step */
            tj_launch(j, "kernA", b, 5, b + 6, 494, 200 + 2 * s, NULL);
            tj_launch(j, "kernB", b + 5, 5, b + 500, 500, 201 + 2 * s, NULL);
            tj_op(j, "aten::cpu_work", b + 100, 600);
        } else {
            tj_launch(j, "kernA", b, 5, b + 10, 90, 200 + 2 * s, NULL);
            tj_op(j, "aten::cpu_work", b + 100, 600);
            tj_launch(j, "kernB", b + 700, 5, b + 710, 290, 201 + 2 * s, NULL);
        }
    }
}

TEST(doctor_host_idle_positive)
{
    struct tj j;
    build_host(&j, false);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "host-bound-idle");
    ASSERT(f);
    ASSERT(!find(r, "launch-bound"));
    ASSERT_NEAR(f->saving_us_per_step, 620.0, 0.001);
    ASSERT_NEAR(f->saving_pct, 62.0, 0.01);
    /* the CPU time in the gaps is aten::cpu_work (600 of the 610 µs gap) */
    bool seen = false;
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].table && f->kv[i].type == DOC_KV_STR && strcmp(f->kv[i].key, "what") == 0 &&
            strcmp(f->kv[i].str, "aten::cpu_work") == 0) {
            ASSERT_EQ_I64(f->kv[i + 1].i, 600000);
            seen = true;
        }
    ASSERT(seen);
    ASSERT(f->nex > 0);
    ASSERT_EQ_I64(f->ex[0].dur, 610000);
    ASSERT(strstr(f->next_step, "latscope trace --cuda --cpu"));
    doctor_report_free(r);
}

TEST(doctor_host_idle_negative_gpu_bound)
{
    struct tj j;
    build_host(&j, true);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "host-bound-idle"));
    ASSERT(!find(r, "launch-bound"));
    doctor_report_free(r);
}

/* ---- R2 launch-bound and CUDA graphs ----
 * Eager: 50 launches per step, each cudaLaunchKernel 8 µs back to back from t=0, the kernel
 * (2 µs) starts as its launch returns. The GPU idles ~8 of every 10 µs, inside launch calls. */
static void build_launch(struct tj *j, bool graph, int eager_after_graph)
{
    tj_begin(j, NULL);
    int corr = 1000;
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, graph ? 120 + 10.0 * eager_after_graph : 500);
        if (graph) {
            /* one cudaGraphLaunch [b+2, b+7); its 50 kernels run back to back with 1 µs gaps
             * from b+10, all carrying the graph launch's correlation and a graph id. */
            int gc = corr++;
            tj_rt(j, "cudaGraphLaunch", b + 2, 5, gc);
            for (int k = 0; k < 50; k++)
                tj_gpu(j, "kernel", "graph_kernel", b + 10 + 3.0 * k, 2, 7, gc,
                       "\"graph id\":5,\"graph node id\":9");
            for (int k = 0; k < eager_after_graph; k++) {
                double l = b + 160 + 10.0 * k;
                tj_launch(j, "eager_kernel", l, 8, l + 8, 2, corr++, NULL);
            }
        } else {
            for (int k = 0; k < 50; k++) {
                double l = b + 10.0 * k;
                tj_launch(j, "tiny_kernel", l, 8, l + 8, 2, corr++, NULL);
            }
        }
    }
}

TEST(doctor_launch_bound_positive)
{
    struct tj j;
    build_launch(&j, false, 0);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "launch-bound");
    ASSERT(f);
    ASSERT(!find(r, "host-bound-idle"));
    ASSERT(!kv(f, "cuda_graphs_in_use")->i);
    ASSERT_NEAR(kv(f, "short_kernel_share")->num, 1.0, 1e-9);
    ASSERT(strstr(f->recommendation, "CUDA"));
    ASSERT(f->saving_pct > 50.0);
    doctor_report_free(r);
}

TEST(doctor_graph_replay_not_idle)
{
    /* Pure graph replay: gaps between graph kernels are not host time, and no finding may
     * recommend CUDA graphs. */
    struct tj j;
    build_launch(&j, true, 0);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "launch-bound"));
    ASSERT(!find(r, "host-bound-idle"));
    for (size_t i = 0; i < r->n; i++)
        ASSERT(!r->f[i].recommendation || !strstr(r->f[i].recommendation, "torch.cuda.CUDAGraph"));
    ASSERT_EQ_U64(r->traces[0].graph_launches, 4);
    /* 50 gaps of 1 µs inside each replay: none of them counts as waiting for the host */
    ASSERT_OP_I64(r->traces[0].host_idle, <, 20000);
    doctor_report_free(r);
}

TEST(doctor_graph_plus_eager_launches)
{
    /* The graph covers 50 kernels; 40 more per step are launched eagerly after it: launch-bound,
     * and the advice is to extend the graph, not to start using graphs. */
    struct tj j;
    build_launch(&j, true, 40);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "launch-bound");
    ASSERT(f);
    ASSERT(kv(f, "cuda_graphs_in_use")->i);
    ASSERT(strstr(f->recommendation, "already replays CUDA graphs"));
    ASSERT(!strstr(f->recommendation, "torch.cuda.CUDAGraph"));
    doctor_report_free(r);
}

/* ---- R3 host<->device copies ----
 * Step 1000: HtoD pageable copy [0,200) on stream 7 (launched by cudaMemcpyAsync at 0), then the
 * kernel [210,1000) on the same stream. Exposed copy = 200 per step = 20 %. Negative: the copy
 * runs on stream 9 under a kernel that covers it. */
static void build_copy(struct tj *j, bool overlapped)
{
    tj_begin(j, NULL);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, 1000);
        if (overlapped) {
            tj_launch(j, "compute", b, 5, b + 6, 994, 300 + 2 * s, NULL);
            tj_rt(j, "cudaMemcpyAsync", b + 5, 5, 301 + 2 * s);
            tj_gpu(j, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", b + 20, 200, 9, 301 + 2 * s,
                   "\"bytes\":4000000");
        } else {
            tj_rt(j, "cudaMemcpyAsync", b, 5, 300 + 2 * s);
            tj_gpu(j, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", b, 200, 7, 300 + 2 * s,
                   "\"bytes\":4000000");
            tj_launch(j, "compute", b + 5, 5, b + 210, 790, 301 + 2 * s, NULL);
        }
    }
}

TEST(doctor_memcpy_positive)
{
    struct tj j;
    build_copy(&j, false);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "memcpy-exposed");
    ASSERT(f);
    ASSERT_NEAR(f->saving_us_per_step, 200.0, 0.001);
    ASSERT_EQ_I64(kv(f, "pageable_copies")->i, 4);
    ASSERT_NEAR(kv(f, "h2d_bytes_per_step")->num, 4e6, 1);
    ASSERT(kv(f, "copies_on_a_compute_stream")->i > 0);
    ASSERT(strstr(f->recommendation, "pin_memory"));
    ASSERT(strstr(f->next_step, "cuda_memcpy_async"));
    doctor_report_free(r);
}

TEST(doctor_memcpy_negative_overlapped)
{
    struct tj j;
    build_copy(&j, true);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "memcpy-exposed"));
    doctor_report_free(r);
}

/* ---- R4 sync points ----
 * Step 1000: kernel [5,500) launched at 0; aten::item > aten::_local_scalar_dense >
 * cudaStreamSynchronize [10,500); then aten::post [500,800); launch at 800 of a kernel
 * [810,1000). The GPU idles [500,810) right after the sync returned: 310 per step. */
static void build_sync(struct tj *j, bool with_sync)
{
    tj_begin(j, NULL);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, 1000);
        tj_launch(j, "kern", b, 5, b + 5, 495, 400 + 3 * s, NULL);
        if (with_sync) {
            tj_op(j, "aten::item", b + 9, 492);
            tj_op(j, "aten::_local_scalar_dense", b + 9.5, 491);
            tj_rt(j, "cudaStreamSynchronize", b + 10, 490, 401 + 3 * s);
            tj_op(j, "aten::post", b + 500, 300);
            tj_launch(j, "kern2", b + 800, 5, b + 810, 190, 402 + 3 * s, NULL);
        } else {
            tj_launch(j, "kern2", b + 6, 5, b + 500, 500, 402 + 3 * s, NULL);
        }
    }
}

TEST(doctor_sync_positive)
{
    struct tj j;
    build_sync(&j, true);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "sync-points");
    ASSERT(f);
    ASSERT_NEAR(f->saving_us_per_step, 310.0, 0.001);
    ASSERT_NEAR(kv(f, "syncs_per_step")->num, 1.0, 1e-9);
    ASSERT_EQ_I64(kv(f, "blocked_us_per_step")->i, 490000);
    /* the causing op is named */
    bool op = false;
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].type == DOC_KV_STR && strcmp(f->kv[i].key, "op") == 0 &&
            strcmp(f->kv[i].str, "aten::_local_scalar_dense") == 0)
            op = true;
    ASSERT(op);
    ASSERT(f->nex > 0 && strstr(f->ex[0].note, "aten::_local_scalar_dense"));
    ASSERT(!find(r, "host-bound-idle")); /* the post-sync gap is not counted twice */
    doctor_report_free(r);
}

TEST(doctor_sync_negative)
{
    struct tj j;
    build_sync(&j, false);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "sync-points"));
    doctor_report_free(r);
}

/* ---- R5 dominant kernel, R5b FP32, R8 under-filled ---- */
static void build_kernels(struct tj *j, const char *big, const char *op, int grid)
{
    tj_begin(j, V100);
    char extra[200];
    snprintf(extra, sizeof(extra),
             "\"grid\":[%d,1,1],\"block\":[256,1,1],\"registers per thread\":64,"
             "\"shared memory\":0",
             grid);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, 1000);
        tj_op(j, op, b, 6); /* encloses only the first launch */
        tj_launch(j, big, b + 1, 5, b + 10, 700, 500 + 4 * s, extra);
        tj_launch(j, "small_a", b + 7, 5, b + 710, 100, 501 + 4 * s, extra);
        tj_launch(j, "small_b", b + 13, 5, b + 810, 100, 502 + 4 * s, extra);
        tj_launch(j, "small_c", b + 19, 5, b + 910, 90, 503 + 4 * s, extra);
    }
}

TEST(doctor_dominant_kernel_and_fp32)
{
    struct tj j;
    build_kernels(&j, "volta_sgemm_128x64_nn", "aten::addmm", 320);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "dominant-kernels");
    ASSERT(f);
    ASSERT_EQ_I64(f->severity, DOC_SEV_INFO);
    ASSERT(strstr(f->next_step, "ncu --kernel-name regex:'volta_sgemm_128x64_nn' --launch-skip 0"));
    ASSERT(strstr(f->title, "70.7 %")); /* 700 of 990 µs of kernel time */
    /* the big kernel is under aten::addmm (eligible) and named sgemm: FP32 */
    const struct doc_finding *g = find(r, "fp32-no-tensor-cores");
    ASSERT(g);
    ASSERT_NEAR(kv(g, "eligible_fp32_us_per_step")->i, 700000, 0);
    ASSERT_NEAR(g->saving_us_per_step, 350.0, 0.001);
    ASSERT(strstr(g->recommendation, "autocast"));
    ASSERT(!find(r, "underfilled-gpu")); /* 320 blocks on 80 SMs */
    doctor_report_free(r);
}

TEST(doctor_tensor_cores_negative)
{
    struct tj j;
    build_kernels(&j, "volta_h884gemm_128x64_nn", "aten::addmm", 320);
    struct doc_report *r = run(&j);
    ASSERT(find(r, "dominant-kernels"));
    ASSERT(!find(r, "fp32-no-tensor-cores"));
    doctor_report_free(r);
}

TEST(doctor_fp32_not_eligible_op)
{
    struct tj j;
    build_kernels(&j, "elementwise_kernel", "aten::add", 320);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "fp32-no-tensor-cores"));
    doctor_report_free(r);
}

TEST(doctor_underfilled_positive)
{
    struct tj j;
    build_kernels(&j, "volta_h884gemm_128x64_nn", "aten::addmm", 8); /* 8 blocks, 80 SMs */
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "underfilled-gpu");
    ASSERT(f);
    ASSERT_NEAR(kv(f, "underfilled_pct_of_kernel_time")->num, 100.0, 1e-9);
    /* 990 µs x (1 - 8/80) = 891 µs per step; capped at medium */
    ASSERT_NEAR(f->saving_us_per_step, 891.0, 0.001);
    ASSERT_EQ_I64(f->severity, DOC_SEV_MEDIUM);
    doctor_report_free(r);
}

/* ---- R6 exposed communication ---- */
static void build_comm(struct tj *j, bool overlap)
{
    tj_begin(j, NULL);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(j, s + 1, b, 1000);
        tj_launch(j, "compute", b, 5, b + 6, overlap ? 994 : 494, 600 + 2 * s, NULL);
        tj_rt(j, "cudaLaunchKernel", b + 6, 5, 601 + 2 * s);
        tj_gpu(j, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", b + 500, 500,
               20, 601 + 2 * s, NULL);
    }
}

TEST(doctor_comm_positive)
{
    struct tj j;
    build_comm(&j, false);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "exposed-communication");
    ASSERT(f);
    ASSERT_NEAR(f->saving_us_per_step, 500.0, 0.001);
    ASSERT(!find(r, "underfilled-gpu"));
    doctor_report_free(r);
}

TEST(doctor_comm_negative_overlapped)
{
    struct tj j;
    build_comm(&j, true);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "exposed-communication"));
    doctor_report_free(r);
}

/* ---- R9 allocator churn, memory pressure ---- */
TEST(doctor_alloc_positive)
{
    struct tj j;
    tj_begin(&j, V100);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(&j, s + 1, b, 1000);
        tj_launch(&j, "compute", b, 5, b + 6, 994, 700 + 2 * s, NULL);
        tj_op(&j, "aten::empty", b + 100, 60);
        tj_rt(&j, "cudaMalloc", b + 105, 50, 701 + 2 * s);
    }
    tj_ev(&j, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\","
              "\"pid\":1,\"tid\":1,\"ts\":200,\"args\":{\"Total Reserved\":950000,\"Device "
              "Type\":1,\"Device Id\":0,\"Bytes\":100}}");
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "allocator-churn");
    ASSERT(f);
    ASSERT_NEAR(f->saving_us_per_step, 50.0, 0.001);
    bool op = false;
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].type == DOC_KV_STR && strcmp(f->kv[i].key, "op") == 0 &&
            strcmp(f->kv[i].str, "aten::empty") == 0)
            op = true;
    ASSERT(op);
    ASSERT(find(r, "memory-pressure"));
    doctor_report_free(r);
}

TEST(doctor_alloc_negative)
{
    struct tj j;
    build_host(&j, true);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "allocator-churn"));
    ASSERT(!find(r, "memory-pressure"));
    doctor_report_free(r);
}

/* ---- R10 tail attribution ----
 * 10 GPU-bound steps of 1000 µs; step 7 lasts 3000 µs because of a 2000 µs cudaMalloc under
 * aten::empty (the kernel of that step is launched after it). */
/* 9 steps of 1 ms, step 7 of 3 ms when slow: nearest-rank p90 of 9 is the 9th (the slow one) */
static void build_tail(struct tj *j, bool slow)
{
    tj_begin(j, NULL);
    double b = 0;
    for (int s = 0; s < 9; s++) {
        bool sl = slow && s == 6;
        double len = sl ? 3000 : 1000;
        tj_step(j, s + 1, b, len);
        if (sl) {
            tj_op(j, "aten::empty", b + 1, 2002);
            tj_rt(j, "cudaMalloc", b + 2, 2000, 800 + 2 * s);
        }
        double l = sl ? b + 2004 : b;
        tj_launch(j, "compute", l, 5, l + 6, b + len - l - 6, 801 + 2 * s, NULL);
        b += len;
    }
}

TEST(doctor_tail_positive)
{
    struct tj j;
    build_tail(&j, true);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "tail-steps");
    ASSERT(f);
    ASSERT_EQ_I64(kv(f, "median_step_us")->i, 1000000);
    ASSERT_EQ_I64(kv(f, "slow_steps")->i, 1);
    ASSERT_NEAR(f->saving_us_per_step, 2000.0 / 9, 0.001); /* 2000 excess / 9 steps */
    ASSERT(strstr(f->title, "cudaMalloc (under aten::empty)"));
    /* the first component is cudaMalloc with its 2000 µs */
    bool seen = false;
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].table && strcmp(f->kv[i].table, "components") == 0 &&
            f->kv[i].type == DOC_KV_STR) {
            ASSERT_EQ_STR(f->kv[i].str, "cudaMalloc (under aten::empty)");
            ASSERT_EQ_I64(f->kv[i + 1].i, 2000000);
            seen = true;
            break;
        }
    ASSERT(seen);
    ASSERT_EQ_I64(f->ex[0].step, 7);
    doctor_report_free(r);
}

TEST(doctor_tail_negative)
{
    struct tj j;
    build_tail(&j, false);
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "tail-steps"));
    doctor_report_free(r);
}

/* 30 CPU-only runs of 1000 µs (aten::conv 800 µs, aten::relu 100 µs), 11 of them with aten::conv
 * stalled to 30 000 µs (one node stalled: the ORT shape of issue 30). The saving "<=" must be an
 * upper bound: Σ (step - median) / n = 11 x 29 200 / 30 = 10 706.67 µs >= mean - median; the p90
 * tail alone (3 steps) would give 2 920. cpu-contention counts the runs with one stalled op (its
 * extra 29 200 µs >= half the median run) and says "at least": 11 x 29 200 / 30. */
TEST(doctor_savings_bound_stalled_runs)
{
    struct tj j;
    tj_begin(&j, NULL);
    double b = 0;
    for (int s = 0; s < 30; s++) {
        bool stall = s % 3 == 1 || s == 29; /* s = 1, 4, ..., 28 and 29: 11 runs */
        double conv = stall ? 30000 : 800, len = conv + 200;
        tj_step(&j, s, b, len);
        tj_op(&j, "aten::conv", b + 50, conv);
        tj_op(&j, "aten::relu", b + 60 + conv, 100);
        b += len;
    }
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "tail-steps");
    ASSERT(f);
    ASSERT_EQ_I64(f->saving_bound, DOC_BOUND_UPPER);
    ASSERT_NEAR(f->saving_us_per_step, 11 * 29200.0 / 30, 0.01);
    ASSERT(f->saving_us_per_step >= (double)kv(f, "mean_minus_median_us")->i / 1000.0);
    const struct doc_finding *g = find(r, "cpu-contention");
    ASSERT(g);
    ASSERT_EQ_I64(g->saving_bound, DOC_BOUND_LOWER);
    ASSERT_EQ_I64(kv(g, "contended_steps")->i, 11);
    ASSERT_NEAR(g->saving_us_per_step, 11 * 29200.0 / 30, 0.01);
    doctor_report_free(r);
}

/* ---- R11 profiler overhead ---- */
TEST(doctor_overhead)
{
    struct tj j;
    build_host(&j, true);
    tj_ev(&j, "{\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"Activity Buffer Request\","
              "\"pid\":-1,\"tid\":0,\"ts\":1100,\"dur\":100}");
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "profiler-overhead");
    ASSERT(f);
    ASSERT_EQ_I64(f->severity, DOC_SEV_INFO);
    ASSERT_NEAR(f->saving_us_per_step, 25.0, 0.001); /* 100 µs over 4 steps */
    ASSERT(strstr(f->next_step, "latscope bench"));
    doctor_report_free(r);
}

/* ---- clean trace, output formats ---- */
TEST(doctor_clean_trace)
{
    struct tj j;
    build_host(&j, true);
    struct doc_report *r = run(&j);
    /* GPU-bound: at most notes (the dominant kernels to look at next), no finding */
    ASSERT_OP_I64(doctor_max_severity(r), <, DOC_SEV_LOW);
    ASSERT(!find(r, "host-bound-idle") && !find(r, "launch-bound") && !find(r, "sync-points"));
    ASSERT_EQ_U64(r->traces[0].nsteps, 4);
    ASSERT_EQ_I64(r->traces[0].step_mean, 1000000);
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(doctor_format_text(r, &b, false));
    ASSERT(strstr(b.data, "No significant finding"));
    ASSERT(strstr(b.data, "4 steps"));
    ASSERT(!strchr(b.data, '\033'));
    buf_fini(&b);
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    doctor_write_json(r, NULL, &w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT(strstr(w.buf.data, "\"verdict\":\"no significant finding\""));
    ASSERT(strstr(w.buf.data, "\"gpu_busy_pct\":"));
    jsonw_fini(&w);
    doctor_report_free(r);
}

TEST(doctor_json_and_md_shape)
{
    struct tj j;
    build_dataloader(&j, 300);
    struct doc_report *r = run(&j);
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    doctor_write_json(r, NULL, &w);
    ASSERT_RC(jsonw_finish(&w));
    const char *s = w.buf.data;
    ASSERT(strstr(s, "{\"findings\":[{\"id\":\"dataloader\",\"title\":"));
    ASSERT(strstr(s, "\"severity\":\"high\",\"saving_us_per_step\":300.000,\"saving_pct\":30.00,"
                     "\"saving_bound\":\"upper\",\"evidence\":{"));
    ASSERT(strstr(s, "\"examples\":[{\"name\":"));
    ASSERT(strstr(s, "\"recommendation\":"));
    ASSERT(strstr(s, "\"next_step\":"));
    jsonw_fini(&w);
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(doctor_format_md(r, &b));
    ASSERT(strstr(b.data, "### 1. `dataloader`"));
    ASSERT(strstr(b.data, "```sh"));
    buf_fini(&b);
    buf_reset(&b);
    ASSERT_RC(doctor_format_text(r, &b, true));
    ASSERT(strchr(b.data, '\033')); /* colour only when asked */
    buf_fini(&b);
    doctor_report_free(r);
}

TEST(doctor_severity_names)
{
    enum doc_severity s;
    ASSERT_RC(doctor_severity_parse("medium", &s));
    ASSERT_EQ_I64(s, DOC_SEV_MEDIUM);
    ASSERT_RC(doctor_severity_parse("never", &s));
    ASSERT(doctor_severity_parse("urgent", &s) != 0);
    ASSERT_EQ_STR(doctor_severity_name(DOC_SEV_HIGH), "high");
}

TEST(doctor_no_steps_cpu_only)
{
    /* No ProfilerStep and no GPU: the trace window is one step and nothing is "idle". */
    struct tj j;
    tj_begin(&j, NULL);
    tj_op(&j, "aten::conv2d", 0, 500);
    tj_op(&j, "aten::relu", 500, 100);
    struct doc_report *r = run(&j);
    ASSERT_EQ_U64(r->n, 0);
    ASSERT(!r->traces[0].steps_real);
    ASSERT_EQ_I64(r->traces[0].step_mean, 600000);
    doctor_report_free(r);
}

/* ---- corpus: the ResNet-50 num_workers=0 run is data-loading bound (tb_plugin: 33.37 %) ---- */
TEST_TIMEOUT(doctor_corpus_resnet50_dataloader, 60)
{
    const char *p = test_shared_path(
        "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
    struct lat_trace *t = NULL;
    char err[256];
    ASSERT_RC(ingest_open(p, NULL, &t, err, sizeof(err)));
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    doctor_rank(r);
    ASSERT(r->n > 0);
    ASSERT_EQ_STR(r->f[0].id, "dataloader");
    ASSERT_NEAR(r->f[0].saving_pct, 33.37, 0.005); /* tb_plugin result_check_file.txt */
    ASSERT_EQ_U64(r->traces[0].nsteps, 6);
    /* tb_plugin's average step: 177 592 µs */
    ASSERT_NEAR((double)r->traces[0].step_mean / 1000.0, 177592.0, 1.0);
    ASSERT(kv(&r->f[0], "single_process_loader")->i);
    doctor_report_free(r);
    lat_trace_free(t);
}

/* ---- R7b CPU-only pre/post-processing ----
 * Step 1000: preprocess [0,600), launch [600,605) of a kernel [610,900), postprocess
 * [900,1000). GPU idle [0,610) and [900,1000): 710 per step, all at the step's head and tail. */
TEST(doctor_pre_post_processing)
{
    struct tj j;
    tj_begin(&j, NULL);
    for (int s = 0; s < 4; s++) {
        double b = s * 1000.0;
        tj_step(&j, s + 1, b, 1000);
        tj_op(&j, "preprocess_resize_normalize", b, 600);
        tj_launch(&j, "model_kernel", b + 600, 5, b + 610, 290, 900 + s, NULL);
        tj_op(&j, "postprocess_nms", b + 900, 100);
    }
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "cpu-pre-post-processing");
    ASSERT(f);
    ASSERT(!find(r, "host-bound-idle"));
    ASSERT_NEAR(f->saving_us_per_step, 710.0, 0.001);
    ASSERT_EQ_I64(kv(f, "head_tail_idle_us_per_step")->i, 710000);
    bool pre = false;
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].type == DOC_KV_STR && strcmp(f->kv[i].key, "what") == 0 &&
            strcmp(f->kv[i].str, "preprocess_resize_normalize") == 0)
            pre = true;
    ASSERT(pre);
    doctor_report_free(r);
}

TEST(doctor_ncu_kernel_names)
{
    char b[256];
    doc_ncu_name("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add"
                 "<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>,"
                 " at::detail::Array<char*, 3>)",
                 b, sizeof(b));
    ASSERT_EQ_STR(b, "vectorized_elementwise_kernel");
    doc_ncu_name("volta_sgemm_128x64_nn", b, sizeof(b));
    ASSERT_EQ_STR(b, "volta_sgemm_128x64_nn");
    doc_ncu_name("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long)", b,
                 sizeof(b));
    ASSERT_EQ_STR(b, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
    doc_ncu_name("void cudnn::detail::dgrad_engine<float, 512, 6>(int, float const*)", b,
                 sizeof(b));
    ASSERT_EQ_STR(b, "dgrad_engine");
    doc_ncu_name("Memcpy.x(y)", b, sizeof(b));
    ASSERT_EQ_STR(b, "Memcpy\\.x"); /* regex metacharacters are escaped */
}

/* ---- R10 with many steps: components come from a sample of the steps ----
 * 3000 steps of 100 µs; every 9th lasts 300 µs because of a 200 µs cudaMalloc: 333 slow steps
 * (11 %), so the nearest-rank p90 (rank 2700) is 300 µs > median 100 + 10 %; the slow steps
 * explain 333 x 200 / 3000 = 22.2 µs per step. (With every 10th step slow, exactly 10 %, the
 * p90 is a 100 µs step and the rule stays silent: doctor_tail_ten_percent_is_not_a_tail.) */
TEST(doctor_tail_many_steps_sampled)
{
    struct tj j;
    tj_begin(&j, NULL);
    double b = 0;
    for (int s = 0; s < 3000; s++) {
        bool slow = s % 9 == 5;
        double len = slow ? 300 : 100;
        tj_step(&j, s + 1, b, len);
        if (slow) tj_rt(&j, "cudaMalloc", b + 1, 200, 100000 + s);
        double l = slow ? b + 202 : b;
        tj_launch(&j, "compute", l, 2, l + 3, b + len - l - 3, 200000 + s, NULL);
        b += len;
    }
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "tail-steps");
    ASSERT(f);
    ASSERT_EQ_I64(kv(f, "slow_steps")->i, 333);
    ASSERT_NEAR(f->saving_us_per_step, 22.2, 0.001);
    ASSERT(strstr(f->title, "cudaMalloc"));
    doctor_report_free(r);
}

TEST(doctor_tail_ten_percent_is_not_a_tail)
{
    struct tj j;
    tj_begin(&j, NULL);
    double b = 0;
    for (int s = 0; s < 100; s++) {
        bool slow = s % 10 == 5;
        double len = slow ? 300 : 100;
        tj_step(&j, s + 1, b, len);
        tj_launch(&j, "compute", b, 2, b + 3, len - 3, 200000 + s, NULL);
        b += len;
    }
    struct doc_report *r = run(&j);
    ASSERT(!find(r, "tail-steps"));
    ASSERT(r->ntraces == 1);
    ASSERT_EQ_I64(r->traces[0].step_p90, 100000); /* rank 90 of 100: a 100 µs step */
    doctor_report_free(r);
}

/* ---- the bridge to `latscope analyze`: HTA-compatible numbers copied into the summary ---- */
TEST(doctor_add_analysis_numbers)
{
    struct tj j;
    build_sync(&j, true);
    struct lat_trace *t = tj_load(&j);
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    struct analysis_opts ao;
    struct lat_analysis *a = NULL;
    analysis_opts_default(&ao);
    ASSERT_RC(analysis_run(&t, 1, &ao, &a));
    ASSERT(doctor_add_analysis(r, 1, &a->ranks[0]) != 0); /* no such trace */
    ASSERT_RC(doctor_add_analysis(r, 0, &a->ranks[0]));
    const struct doc_hta *h = &r->traces[0].hta;
    ASSERT(h->valid && h->temporal_valid);
    ASSERT_NEAR(h->idle_pct, a->ranks[0].temporal.idle_pct, 1e-12);
    lat_ns hw = 0;
    for (size_t i = 0; i < a->ranks[0].nidle; i++)
        hw += a->ranks[0].idle[i].idle[LAT_IDLE_HOST_WAIT];
    ASSERT_EQ_I64(h->host_wait, hw);
    ASSERT(hw > 0); /* the post-sync launches come after the GPU went idle */
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    doctor_write_json(r, NULL, &w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT(strstr(w.buf.data, "\"hta\":{\"idle_pct\":"));
    jsonw_fini(&w);
    analysis_free(a);
    doctor_report_free(r);
    lat_trace_free(t);
}

/* A saving under 1 % of the step (min_saving_pct) is kept as an info note: 100 µs of FP32
 * sgemm in 10 ms steps saves at most 50 µs = 0.5 %. */
TEST(doctor_tiny_saving_is_info)
{
    struct tj j;
    tj_begin(&j, V100);
    for (int s = 0; s < 4; s++) {
        double b = s * 10000.0;
        tj_step(&j, s + 1, b, 10000);
        tj_op(&j, "aten::mm", b, 6);
        tj_launch(&j, "volta_sgemm_64x64_nn", b + 1, 5, b + 10, 100, 950 + s, NULL);
    }
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "fp32-no-tensor-cores");
    ASSERT(f);
    ASSERT_NEAR(f->saving_pct, 0.5, 1e-9);
    ASSERT_EQ_I64(f->severity, DOC_SEV_INFO);
    doctor_report_free(r);
}

/* Control bytes in kernel names match any character in ncu's regex. */
TEST(doctor_ncu_name_control_bytes)
{
    char b[64];
    doc_ncu_name("k\033[31m\nx", b, sizeof(b));
    ASSERT_EQ_STR(b, "k.\\[31m.x");
}

/* Names from a trace are quoted for POSIX sh (issue 14 item 12). */
TEST(doctor_sh_quote)
{
    char *q = doc_sh_quote("/data/run 1/t.json", false);
    ASSERT_EQ_STR(q, "'/data/run 1/t.json'");
    free(q);
    q = doc_sh_quote("/data/t.json", false); /* nothing to quote: unchanged */
    ASSERT_EQ_STR(q, "/data/t.json");
    free(q);
    q = doc_sh_quote("x';id>/tmp/PWNED;'", true);
    ASSERT_EQ_STR(q, "'x'\\'';id>/tmp/PWNED;'\\'''");
    free(q);
    q = doc_sh_quote("a\nb\033c$(id)`id`", false);
    ASSERT_EQ_STR(q, "'a?b?c$(id)`id`'");
    free(q);
    q = doc_sh_quote("", false);
    ASSERT_EQ_STR(q, "''");
    free(q);
    char stem[48];
    doc_file_stem("x';id", 40, stem, sizeof(stem));
    ASSERT_EQ_STR(stem, "x");
    doc_file_stem("';rm", 40, stem, sizeof(stem));
    ASSERT_EQ_STR(stem, "kernel");
}

/* Thresholds come from one list: defaults, the option and the JSON keys agree. */
TEST(doctor_thresholds_table)
{
    struct doc_opts o;
    doctor_opts_default(&o);
    size_t n;
    const struct doc_threshold_desc *d = doctor_thresholds(&n);
    ASSERT_EQ_U64(n, sizeof(struct doc_thresholds) / 8);
    for (size_t i = 0; i < n; i++)
        ASSERT_NEAR(doctor_threshold_value(&o.th, &d[i]), d[i].def, 1e-9);
    ASSERT_EQ_I64(o.th.short_kernel_cutoff, 50000);
    ASSERT_EQ_I64(o.th.small_copy_bytes, 65536);
    ASSERT_EQ_I64(o.th.tail_min_steps, 4);
    char err[160];
    ASSERT_RC(doctor_threshold_set(&o.th, "short_kernel_cutoff_us=12.5", err, sizeof(err)));
    ASSERT_EQ_I64(o.th.short_kernel_cutoff, 12500);
    ASSERT_RC(doctor_threshold_set(&o.th, "tail_min_steps=8", err, sizeof(err)));
    ASSERT_EQ_I64(o.th.tail_min_steps, 8);
    ASSERT_EQ_I64(doctor_threshold_set(&o.th, "tail_min_steps=8.5", err, sizeof(err)), LAT_E_USAGE);
    ASSERT_EQ_I64(doctor_threshold_set(&o.th, "nope=1", err, sizeof(err)), LAT_E_USAGE);
    ASSERT(strstr(err, "unknown threshold 'nope'") != NULL);
    ASSERT_EQ_I64(doctor_threshold_set(&o.th, "fp32_speedup=0", err, sizeof(err)), LAT_E_USAGE);
    ASSERT_EQ_I64(doctor_threshold_set(&o.th, "memcpy_pct=", err, sizeof(err)), LAT_E_USAGE);
    ASSERT_EQ_I64(doctor_threshold_set(&o.th, "memcpy_pct", err, sizeof(err)), LAT_E_USAGE);
}

static bool family_ran(const struct doc_summary *s, const char *name)
{
    struct doc_family_use fu[8];
    size_t n = doctor_families(s, fu, 8);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(fu[i].name, name)) return fu[i].ran;
    return false;
}

/* CPU-only steps with operators: the CPU rules run (not the GPU ones) and the trace is judged;
 * 2 steps of 1000 µs with 100 µs of ops each: Python 90 % of the step. */
TEST(doctor_families_cpu_only)
{
    struct tj j;
    tj_begin(&j, NULL);
    tj_step(&j, 0, 0, 1000);
    tj_op(&j, "aten::add", 10, 100);
    tj_step(&j, 1, 1000, 1000);
    tj_op(&j, "aten::add", 1010, 100);
    struct doc_report *r = run(&j);
    const struct doc_summary *s = &r->traces[0];
    ASSERT(s->judged);
    ASSERT(!s->what);
    ASSERT(family_ran(s, "cpu"));
    ASSERT(!family_ran(s, "gpu"));
    ASSERT(!family_ran(s, "steps")); /* 2 < tail_min_steps */
    ASSERT(!doctor_any_unjudged(r));
    const struct doc_finding *f = find(r, "cpu-python-overhead");
    ASSERT(f != NULL);
    ASSERT_NEAR(f->saving_pct, 90.0, 1e-9);
    doctor_report_free(r);
}

/* Only events of categories no rule reads: not judged, and the summary says what it is. */
TEST(doctor_families_nothing_applies)
{
    struct tj j;
    tj_begin(&j, NULL);
    tj_ev(&j, "{\"ph\":\"X\",\"cat\":\"Node\",\"name\":\"Conv_0\",\"pid\":1,\"tid\":1,"
              "\"ts\":0,\"dur\":100}");
    struct doc_report *r = run(&j);
    const struct doc_summary *s = &r->traces[0];
    ASSERT(!s->judged);
    ASSERT(s->what && strstr(s->what, "1 event,"));
    ASSERT(!family_ran(s, "cpu") && !family_ran(s, "gpu") && !family_ran(s, "data"));
    ASSERT(doctor_any_unjudged(r));
    ASSERT_EQ_U64(r->n, 0);
    doctor_report_free(r);
}

/* A GPU trace: the GPU rules run, the CPU-inference rules do not (the GPU rules judge the host). */
TEST(doctor_families_gpu)
{
    struct tj j;
    tj_begin(&j, NULL);
    tj_step(&j, 0, 0, 1000);
    tj_op(&j, "aten::mm", 10, 20);
    tj_launch(&j, "gemm", 12, 5, 30, 900, 1, NULL);
    struct doc_report *r = run(&j);
    const struct doc_summary *s = &r->traces[0];
    ASSERT(s->judged);
    ASSERT(family_ran(s, "gpu"));
    ASSERT(!family_ran(s, "cpu"));
    for (size_t i = 0; i < r->n; i++)
        ASSERT(strncmp(r->f[i].id, "cpu-", 4) != 0 ||
               !strcmp(r->f[i].id, "cpu-pre-post-processing"));
    doctor_report_free(r);
}

/* python_function events (with_stack=True) name the Python time of cpu-python-overhead: their
 * own time in the step, without the Python functions and ops directly inside them. Steps of
 * 1000 µs: f [10, 900) holds op [100, 200) and g [300, 400): f 890 - 100 - 100 = 690 µs, g
 * 100 µs; a function that starts before the step (the caller of the profiler loop) is left out. */
TEST(doctor_cpu_python_functions)
{
    struct tj j;
    tj_begin(&j, NULL);
    tj_ev(&j, "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"main\",\"pid\":1,\"tid\":1,"
              "\"ts\":0,\"dur\":3000}");
    for (int s = 0; s < 2; s++) {
        double b = 1 + s * 1000.0;
        tj_step(&j, s, b, 1000);
        tj_ev(&j,
              "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f\",\"pid\":1,\"tid\":1,"
              "\"ts\":%.1f,\"dur\":890}",
              b + 10);
        tj_op(&j, "aten::add", b + 100, 100);
        tj_ev(&j,
              "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"g\",\"pid\":1,\"tid\":1,"
              "\"ts\":%.1f,\"dur\":100}",
              b + 300);
    }
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "cpu-python-overhead");
    ASSERT(f != NULL);
    int found = 0;
    for (size_t i = 0; i < f->nkv; i++) {
        const struct doc_kv *k = &f->kv[i];
        if (!k->table || strcmp(k->table, "python_functions_self_time") != 0) continue;
        if (strcmp(k->key, "function") == 0) {
            const struct doc_kv *v = &f->kv[i + 1];
            ASSERT_EQ_STR(v->key, "self_us_per_step");
            if (!strcmp(k->str, "f")) {
                ASSERT_EQ_I64(v->i, 690000);
                found |= 1;
            }
            if (!strcmp(k->str, "g")) {
                ASSERT_EQ_I64(v->i, 100000);
                found |= 2;
            }
            ASSERT(strcmp(k->str, "main") != 0);
        }
    }
    ASSERT_EQ_I64(found, 3);
    doctor_report_free(r);
}

/* A python_function event with its Python id and parent id (torch.profiler with_stack). */
static void tj_py(struct tj *j, const char *name, double ts, double dur, int id, int parent)
{
    tj_ev(j,
          "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
          "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"Python parent id\":%d,\"Python id\":%d}}",
          name, ts, dur, parent, id);
}

static lat_ns py_self_of(const struct doc_finding *f, const char *fn)
{
    for (size_t i = 0; i + 1 < f->nkv; i++)
        if (f->kv[i].table && !strcmp(f->kv[i].table, "python_functions_self_time") &&
            !strcmp(f->kv[i].key, "function") && !strcmp(f->kv[i].str, fn))
            return f->kv[i + 1].i;
    return -1;
}

/* A record_function range that starts inside a short Python call and ends after it returns
 * (a decode loop's sample(): it enters the range and returns). Steps of 1000 µs: step()
 * [10, 990) calls sample() [100, 150) and helper() [200, 300); the range sample_token
 * [140, 400) holds aten::add [210, 250). Uncovered by ops/regions: sample 40 µs ([100, 140)),
 * helper 0, step 980 - 260 - 40 = 680 µs. (The old stack walk made the range helper's parent,
 * so step kept helper's time: 930 µs.) */
TEST(doctor_cpu_python_self_range_outlives_call)
{
    for (int ids = 0; ids < 2; ids++) {
        struct tj j;
        tj_begin(&j, NULL);
        for (int s = 0; s < 2; s++) {
            double b = s * 1000.0;
            int id0 = 10 * s;
            tj_step(&j, s, b, 1000);
            if (ids) {
                tj_py(&j, "step", b + 10, 980, id0 + 1, 0);
                tj_py(&j, "sample", b + 100, 50, id0 + 2, id0 + 1);
                tj_py(&j, "helper", b + 200, 100, id0 + 3, id0 + 1);
            } else { /* no ids: the containing Python call is the caller */
                tj_ev(&j,
                      "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"step\",\"pid\":1,"
                      "\"tid\":1,\"ts\":%.3f,\"dur\":980}",
                      b + 10);
                tj_ev(&j,
                      "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"sample\",\"pid\":1,"
                      "\"tid\":1,\"ts\":%.3f,\"dur\":50}",
                      b + 100);
                tj_ev(&j,
                      "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"helper\",\"pid\":1,"
                      "\"tid\":1,\"ts\":%.3f,\"dur\":100}",
                      b + 200);
            }
            tj_ev(&j,
                  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"sample_token\",\"pid\":1,"
                  "\"tid\":1,\"ts\":%.3f,\"dur\":260}",
                  b + 140);
            tj_op(&j, "aten::add", b + 210, 40);
        }
        struct doc_report *r = run(&j);
        const struct doc_finding *f = find(r, "cpu-python-overhead");
        ASSERT(f != NULL);
        ASSERT_EQ_I64(py_self_of(f, "step"), 680000);
        ASSERT_EQ_I64(py_self_of(f, "sample"), 40000);
        ASSERT_EQ_I64(py_self_of(f, "helper"), -1); /* 0: not listed */
        doctor_report_free(r);
    }
}

/* A compiled model (torch.compile on CPU): Torch-Compiled Region [100, 900) holds the graph's
 * region "## Call CompiledFxGraph ... ##" [200, 800), whose self time (600 - 100 of
 * aten::addmm = 500 µs) is Inductor's generated kernels, not Python. Python is the step's own
 * 200 µs (20 %); no rule advises torch.compile. */
TEST(doctor_cpu_compiled_graph_not_python)
{
    struct tj j;
    tj_begin(&j, NULL);
    for (int s = 0; s < 3; s++) {
        double b = s * 1000.0;
        tj_step(&j, s, b, 1000);
        tj_op(&j, "Torch-Compiled Region: 0/0", b + 100, 800);
        tj_ev(&j,
              "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"## Call CompiledFxGraph "
              "fabc ##\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":600}",
              b + 200);
        tj_op(&j, "aten::addmm", b + 300, 100);
    }
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "cpu-python-overhead");
    ASSERT(f != NULL);
    ASSERT_EQ_I64(kv(f, "python_us_per_step")->i, 200000);
    ASSERT_EQ_I64(kv(f, "compiled_kernels_us_per_step")->i, 500000);
    ASSERT_EQ_I64(kv(f, "compiled_model")->i, 1);
    ASSERT(strstr(f->recommendation, "already compiled") != NULL);
    for (size_t i = 0; i < r->n; i++)
        ASSERT(!r->f[i].recommendation || !strstr(r->f[i].recommendation, "torch.compile(model)"));
    doctor_report_free(r);
}

/* An ONNX Runtime profile (hand-made, ORT's array layout) of 4 runs of 1000 µs under the
 * OpenVINO EP: the subgraph node 600 µs on OpenVINOExecutionProvider, Unique 200 µs and
 * ReduceSum 100 µs on CPUExecutionProvider: 30 % of each run fell back to the CPU. With the
 * fallback nodes on OpenVINO too (neg), or every node on the CPU EP (a CPU session), no finding. */
static struct doc_report *run_ort_fallback(const char *cpu_prov, const char *sg_prov)
{
    struct lat_buf b = LAT_BUF_INIT;
    buf_printf(&b, "[\n");
#define ORT_NODE                                                                                   \
    "{\"cat\":\"Node\",\"pid\":7,\"tid\":7,\"dur\":%d,\"ts\":%d,\"ph\":\"X\",\"name\":"            \
    "\"%s_kernel_time\",\"args\":{\"op_name\":\"%s\",\"provider\":\"%s\"}},\n"
    for (int r = 0; r < 4; r++) {
        int t0 = 100 + 2000 * r;
        buf_printf(&b, ORT_NODE, 600, t0 + 10, "sg1", "OpenVINO-EP-subgraph_1", sg_prov);
        buf_printf(&b, ORT_NODE, 200, t0 + 650, "/post/Unique", "Unique", cpu_prov);
        buf_printf(&b, ORT_NODE, 100, t0 + 880, "/post/ReduceSum", "ReduceSum", cpu_prov);
        buf_printf(&b,
                   "{\"cat\":\"Session\",\"pid\":7,\"tid\":7,\"dur\":1000,\"ts\":%d,\"ph\":\"X\","
                   "\"name\":\"model_run\",\"args\":{}}%s\n",
                   t0, r == 3 ? "" : ",");
    }
    buf_printf(&b, "]\n");
#undef ORT_NODE
    struct lat_trace *t = NULL;
    char err[256] = "";
    ASSERT_RC(ingest_mem(b.data, b.len, "handmade-ort.json", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "ort");
    buf_fini(&b);
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    doctor_rank(r);
    lat_trace_free(t);
    return r;
}

TEST(doctor_ort_cpu_fallback)
{
    struct doc_report *r = run_ort_fallback("CPUExecutionProvider", "OpenVINOExecutionProvider");
    const struct doc_finding *f = find(r, "ort-cpu-fallback");
    ASSERT(f != NULL);
    ASSERT(strstr(f->title, "Unique, ReduceSum run on CPUExecutionProvider instead of "
                            "OpenVINOExecutionProvider: 30.0 % of each model_run (300 us)"));
    ASSERT_NEAR(f->saving_us_per_step, 300.0, 0.001);
    ASSERT_NEAR(f->saving_pct, 30.0, 0.001);
    ASSERT_EQ_I64(f->saving_bound, DOC_BOUND_ESTIMATE);
    ASSERT_EQ_STR(kv(f, "provider")->str, "OpenVINOExecutionProvider");
    ASSERT_NEAR(kv(f, "fallback_pct")->num, 30.0, 1e-9);
    ASSERT(strstr(f->recommendation, "Keep the graph on OpenVINOExecutionProvider"));
    doctor_report_free(r);
    r = run_ort_fallback("OpenVINOExecutionProvider", "OpenVINOExecutionProvider");
    ASSERT(find(r, "ort-cpu-fallback") == NULL);
    doctor_report_free(r);
    r = run_ort_fallback("CPUExecutionProvider", "CPUExecutionProvider");
    ASSERT(find(r, "ort-cpu-fallback") == NULL);
    doctor_report_free(r);
}

/* CPU samples only (hand-made collapsed stacks, py-spy's raw format, 100 samples, no times):
 * preprocess() is the leaf of 45 samples, the tokenizer is on 25 stacks, imports on 12, the
 * garbage collector on 6, _PyEval_EvalFrameDefault the leaf of 12. Findings: cpu-hot-function
 * (preprocess, 45 %), cpu-hot-native (tokenizer, 25 %), cpu-startup (12 % >= 10), cpu-gc
 * (6 % >= 5); no cpu-interpreter (12 % < 20); no saving without times. */
TEST(doctor_cpu_sample_rules)
{
    static const char folded[] =
        "py:<module> (app.py:1);py:main (app.py:9);py:preprocess (app.py:20) 45\n"
        "py:<module> (app.py:1);py:main (app.py:9);py:tokenize (app.py:30);"
        "tokenizers::tokenizer::encode 25\n"
        "py:<module> (app.py:1);py:_find_and_load (<frozen importlib._bootstrap>:1);"
        "py:<module> (numpy/__init__.py:1) 12\n"
        "py:<module> (app.py:1);py:main (app.py:9);gc_collect_main 6\n"
        "py:<module> (app.py:1);py:main (app.py:9);_PyEval_EvalFrameDefault 12\n";
    struct lat_trace *t = NULL;
    char err[256] = "";
    ASSERT_RC(
        ingest_mem(folded, sizeof(folded) - 1, "handmade-cpu.folded", NULL, &t, err, sizeof(err)));
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    doctor_rank(r);
    lat_trace_free(t);
    const struct doc_finding *f = find(r, "cpu-hot-function");
    ASSERT(f != NULL);
    ASSERT(strstr(f->title, "py:preprocess (app.py) takes 45.0 % of the on-CPU samples"));
    ASSERT_NEAR(f->saving_pct, 45.0, 1e-9);
    ASSERT_EQ_I64(f->severity, DOC_SEV_HIGH);
    ASSERT(f->saving_us_per_step == 0); /* no times: not estimated */
    f = find(r, "cpu-hot-native");
    ASSERT(f != NULL);
    ASSERT(strstr(f->title, "the tokenizer is on the stack in 25.0 %"));
    ASSERT(find(r, "cpu-startup") != NULL);
    ASSERT_NEAR(kv(find(r, "cpu-startup"), "share_pct")->num, 12.0, 1e-9);
    ASSERT(find(r, "cpu-gc") != NULL);
    ASSERT(find(r, "cpu-interpreter") == NULL);
    ASSERT(r->traces[0].judged);
    doctor_report_free(r);
}

/* Oversubscription: 3 CPU-only steps of 12 000 µs, each aten::add on [8,64,128] fp32 (3 x 262 144
 * B = 786 432 B moved) taking 10 000 µs (0.079 GB/s: under cpu_min_gbps 1) and aten::mul on the
 * same shape taking 100 µs (7.86 GB/s: the trace's best). Saving estimate per step: 10 000 -
 * 786 432 B / 7.86432 GB/s = 10 000 - 100 = 9 900 µs. The same trace with the add at 100 µs:
 * no finding. */
static void build_oversub(struct tj *j, double add_us)
{
    tj_begin(j, NULL);
    for (int s = 0; s < 3; s++) {
        double b = 12000.0 * s;
        tj_step(j, s, b, 12000);
        tj_ev(j,
              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,"
              "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"Input Dims\":[[8,64,128],[8,64,128],[]],"
              "\"Input type\":[\"float\",\"float\",\"Scalar\"]}}",
              b + 100, add_us);
        tj_ev(j,
              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":1,"
              "\"ts\":%.3f,\"dur\":100,\"args\":{\"Input Dims\":[[8,64,128],[8,64,128]],"
              "\"Input type\":[\"float\",\"float\"]}}",
              b + 11000);
    }
}

TEST(doctor_cpu_oversubscription)
{
    struct tj j;
    build_oversub(&j, 10000);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "cpu-oversubscription");
    ASSERT(f != NULL);
    ASSERT(strstr(f->title, "aten::add") != NULL);
    ASSERT_EQ_I64(kv(f, "slow_ops")->i, 1);
    ASSERT_NEAR(kv(f, "best_gb_per_s")->num, 7.86432, 1e-6);
    ASSERT_NEAR(f->saving_us_per_step, 9900.0, 0.01);
    ASSERT_EQ_I64(f->saving_bound, DOC_BOUND_ESTIMATE);
    doctor_report_free(r);
    build_oversub(&j, 100);
    r = run(&j);
    ASSERT(find(r, "cpu-oversubscription") == NULL);
    doctor_report_free(r);
}

/* ---- below-peak (rule-perfmodel.c): the performance model's matrix ops under the peak ---- */

#define H100                                                                                       \
    "\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"computeMajor\":9,"       \
    "\"computeMinor\":0,\"numSms\":132,\"totalGlobalMem\":85018279936}]"

/* 3 steps of 1000 µs, each one aten::mm bf16 [m,k]x[k,n] whose kernel takes kdur µs */
static void build_gemm(struct tj *j, int m, int n, int k, double kdur)
{
    tj_begin(j, H100);
    for (int s = 0; s < 3; s++) {
        double t0 = 1000.0 * s;
        tj_step(j, s + 1, t0, 1000);
        tj_ev(j,
              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
              "\"ts\":%.3f,\"dur\":10,\"args\":{\"Input Dims\":[[%d,%d],[%d,%d]],"
              "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"],\"Concrete Inputs\":[\"\","
              "\"\"]}}",
              t0 + 1, m, k, k, n);
        tj_launch(j, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", t0 + 2, 7, t0 + 20, kdur, s + 1,
                  NULL);
    }
}

TEST(doctor_below_peak_positive)
{
    struct tj j;
    /* M=2000 N=2050 K=4096 in 300 µs: 2*2000*2050*4096 / 300e-6 = 111.96 TFLOP/s = 11.32 % of
     * the H100 SXM BF16 dense peak 989.4; 811.7 FLOP/B > ridge 295.3: compute-bound */
    build_gemm(&j, 2000, 2050, 4096, 300);
    struct doc_report *r = run(&j);
    const struct doc_finding *f = find(r, "below-peak");
    ASSERT(f != NULL);
    ASSERT(strstr(f->title, "aten::mm reaches 11 % of peak BF16") != NULL);
    ASSERT(strstr(f->title, "N not a multiple of 8") != NULL);
    /* saving per step: 300 * (1 - 0.11316) = 266.05 µs of a 1000 µs step */
    ASSERT_NEAR(f->saving_us_per_step, 300.0 * (1 - 33587200000.0 / 300e-6 / 989.4e12), 0.01);
    ASSERT_EQ_I64(f->severity, DOC_SEV_HIGH);
    const struct doc_kv *a = NULL;
    for (size_t i = 0; i < f->nkv; i++)
        if (!strcmp(f->kv[i].key, "alignment")) a = &f->kv[i];
    ASSERT(a != NULL);
    ASSERT_EQ_STR(a->str, "N not a multiple of 8");
    ASSERT(f->next_step && strstr(f->next_step, "ncu --kernel-name") != NULL);
    doctor_report_free(r);
}

TEST(doctor_below_peak_negative)
{
    struct tj j;
    /* M=N=2048 K=4096 in 50 µs: 687.2 TFLOP/s = 69.5 % of peak: above perf_peak_pct 40 */
    build_gemm(&j, 2048, 2048, 4096, 50);
    struct doc_report *r = run(&j);
    ASSERT(find(r, "below-peak") == NULL);
    doctor_report_free(r);
    /* the same GEMM on a device not in the peak table: no % of peak, so no finding */
    build_gemm(&j, 2000, 2050, 4096, 300);
    memcpy(strstr(j.top, "NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB XXXX", 21);
    r = run(&j);
    ASSERT(find(r, "below-peak") == NULL);
    doctor_report_free(r);
}
