/* test-analyze.c - interval arithmetic, kernel classification and every analysis on tiny
 * hand-made traces whose answers are worked out by hand in the comments. */
#include "test.h"

#include "analyze/analysis.h"
#include "analyze/interval.h"
#include "ingest/ingest.h"

#include <string.h>

#define US(x) ((lat_ns)(x)*1000)

/* ---- a tiny trace builder ------------------------------------------------------------------ */

struct tb {
    struct lat_trace *t;
    uint32_t cpu, gpu7, gpu8;
};

static uint32_t tb_str(struct tb *b, const char *s)
{
    uint32_t id;
    ASSERT_RC(lat_trace_intern(b->t, s, strlen(s), &id));
    return id;
}

static void tb_init(struct tb *b)
{
    ASSERT_RC(lat_trace_new(&b->t));
    ASSERT_RC(lat_trace_track(b->t, 100, 1, 0, 0, false, &b->cpu));
    ASSERT_RC(lat_trace_track(b->t, 0, 7, 0, 0, true, &b->gpu7));
    ASSERT_RC(lat_trace_track(b->t, 0, 8, 0, 0, true, &b->gpu8));
    b->t->rank = 0;
}

/* Adds an X event; times in ns. bytes > 0 adds args.bytes. */
static void tb_ev(struct tb *b, enum lat_ev_kind kind, const char *cat, const char *name, lat_ns ts,
                  lat_ns dur, int64_t stream, int64_t corr, int64_t bytes)
{
    struct lat_event e = {0};
    e.ts = ts;
    e.dur = dur;
    e.name = tb_str(b, name);
    e.cat = tb_str(b, cat);
    e.kind = (uint16_t)kind;
    e.stream = stream;
    e.device = stream >= 0 ? 0 : -1;
    e.correlation = corr;
    e.external_id = -1;
    e.step = -1;
    e.ph = 'X';
    e.track = stream == 7 ? b->gpu7 : stream == 8 ? b->gpu8 : b->cpu;
    if (stream >= 0) e.flags = LAT_EVF_GPU;
    if (!strncmp(name, "ProfilerStep#", 13)) {
        e.flags |= LAT_EVF_STEP;
        e.step = (int32_t)strtol(name + 13, NULL, 10);
    }
    if (bytes > 0) {
        struct lat_arg a = {.key = tb_str(b, "bytes"), .type = LAT_ARG_INT, .v.i = bytes};
        uint32_t ai;
        ASSERT_RC(lat_trace_add_arg(b->t, &a, &ai));
        e.args = ai;
        e.nargs = 1;
    }
    ASSERT_RC(lat_trace_add_event(b->t, &e));
}

static void cpu_op(struct tb *b, const char *name, lat_ns ts, lat_ns dur)
{
    tb_ev(b, LAT_EV_CPU_OP, "cpu_op", name, US(ts), US(dur), -1, -1, 0);
}
static void launch(struct tb *b, const char *name, lat_ns ts, lat_ns dur, int64_t corr)
{
    tb_ev(b, LAT_EV_RUNTIME, "cuda_runtime", name, US(ts), US(dur), -1, corr, 0);
}
static void kernel(struct tb *b, const char *name, lat_ns ts, lat_ns dur, int64_t stream,
                   int64_t corr)
{
    tb_ev(b, LAT_EV_KERNEL, "kernel", name, US(ts), US(dur), stream, corr, 0);
}

/*
 * The reference trace (µs). Two steps, so step 2 (the last) is dropped with its launch c6 and
 * kernel k6.
 *   CPU  ProfilerStep#1 [0,100)  ProfilerStep#2 [100,200)  (user_annotation)
 *        aten::linear [5,45) > aten::mm [10,40) > cudaLaunchKernel c1 [12,17), c2 [20,24)
 *        aten::add [55,66) > cudaLaunchKernel c3 [62,64)
 *        nccl:all_reduce [66,70) > cudaLaunchKernel c4 [67,68)
 *        cudaMemcpyAsync c5 [70,72); cudaDeviceSynchronize [80,90)
 *        aten::mm [110,130) > cudaLaunchKernel c6 [111,113)
 *   GPU  s7: gemm_kernel c1 [20,50), gemm_kernel c2 [50,60), add_kernel c3 [100,110),
 *            gemm_kernel c6 [120,130)
 *        s8: ncclKernel_AllReduce c4 [68,105), Memcpy HtoD (Pageable -> Device) c5 [106,107)
 */
static struct lat_trace *ref_trace(void)
{
    struct tb b;
    tb_init(&b);
    tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#1", 0, US(100), -1, -1, 0);
    tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#2", US(100), US(100), -1, -1,
          0);
    cpu_op(&b, "aten::linear", 5, 40);
    cpu_op(&b, "aten::mm", 10, 30);
    launch(&b, "cudaLaunchKernel", 12, 5, 1);
    launch(&b, "cudaLaunchKernel", 20, 4, 2);
    cpu_op(&b, "aten::add", 55, 11);
    launch(&b, "cudaLaunchKernel", 62, 2, 3);
    cpu_op(&b, "nccl:all_reduce", 66, 4);
    launch(&b, "cudaLaunchKernel", 67, 1, 4);
    launch(&b, "cudaMemcpyAsync", 70, 2, 5);
    launch(&b, "cudaDeviceSynchronize", 80, 10, -1);
    cpu_op(&b, "aten::mm", 110, 20);
    launch(&b, "cudaLaunchKernel", 111, 2, 6);
    kernel(&b, "gemm_kernel", 20, 30, 7, 1);
    kernel(&b, "gemm_kernel", 50, 10, 7, 2);
    kernel(&b, "add_kernel", 100, 10, 7, 3);
    kernel(&b, "gemm_kernel", 120, 10, 7, 6);
    kernel(&b, "ncclKernel_AllReduce", 68, 37, 8, 4);
    tb_ev(&b, LAT_EV_MEMCPY, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", US(106), US(1), 8, 5,
          2000);
    return b.t;
}

static struct lat_analysis *run1(struct lat_trace *t, struct analysis_opts *o)
{
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, o, &a));
    ASSERT_EQ_U64(a->nranks, 1);
    return a;
}

/* ---- intervals ----------------------------------------------------------------------------- */

TEST(analyze_ivl_merge_hta_groups)
{
    /* [0,10) [5,8) [10,12) [13,20) [15,30): 10 is not > 10, so [0,12) is one group */
    struct lat_ivl v[] = {{0, 10}, {5, 8}, {10, 12}, {13, 20}, {15, 30}};
    size_t n = ivl_merge(v, 5);
    ASSERT_EQ_U64(n, 2);
    ASSERT_EQ_I64(v[0].ts, 0);
    ASSERT_EQ_I64(v[0].end, 12);
    ASSERT_EQ_I64(v[1].ts, 13);
    ASSERT_EQ_I64(v[1].end, 30);
    ASSERT_EQ_I64(ivl_sum(v, n), 29);
}

TEST(analyze_ivl_merge_negative_rows)
{
    /* HTA keeps a lone row with end < ts: it counts -1 */
    struct lat_ivl v[] = {{11, 12}, {21, 20}};
    size_t n = ivl_merge(v, 2);
    ASSERT_EQ_U64(n, 2);
    ASSERT_EQ_I64(ivl_sum(v, n), 0);
    /* a row inside a group does not extend it by its (negative) length */
    struct lat_ivl w[] = {{0, 10}, {5, 4}};
    ASSERT_EQ_U64(ivl_merge(w, 2), 1);
    ASSERT_EQ_I64(w[0].end, 10);
}

TEST(analyze_ivl_intersect_clip)
{
    struct lat_ivl a[] = {{0, 10}, {20, 30}, {40, 50}};
    struct lat_ivl b[] = {{5, 25}, {28, 45}};
    ASSERT_EQ_I64(ivl_intersect_len(a, 3, b, 2), 5 + 5 + 2 + 5);
    struct lat_ivl out[3];
    size_t n = ivl_clip(a, 3, 8, 45, out);
    ASSERT_EQ_U64(n, 3);
    ASSERT_EQ_I64(out[0].ts, 8);
    ASSERT_EQ_I64(out[2].end, 45);
    ASSERT_EQ_I64(ivl_intersect_len(a, 0, b, 2), 0);
}

TEST(analyze_ivl_sweep_buckets)
{
    /* A=[0,10) bit 1, B=[5,20) bit 2: A only 5, A|B 5, B only 10 */
    struct lat_ivl a[] = {{0, 10}}, b[] = {{5, 20}};
    struct lat_sweep_ev ev[4];
    size_t n = 0;
    ivl_sweep_add(ev, &n, a, 1, 1);
    ivl_sweep_add(ev, &n, b, 1, 2);
    lat_ns sum[4] = {0};
    ivl_sweep(ev, n, 1, sum, 4);
    ASSERT_EQ_I64(sum[1], 5);
    ASSERT_EQ_I64(sum[2], 10);
    ASSERT_EQ_I64(sum[3], 5);
    /* truncation of each piece to a quantum (HTA's int cast of µs pieces) */
    struct lat_ivl c[] = {{0, 1500}, {2000, 4999}};
    n = 0;
    ivl_sweep_add(ev, &n, c, 2, 1);
    lat_ns s2[2] = {0};
    ivl_sweep(ev, n, 1000, s2, 2);
    ASSERT_EQ_I64(s2[1], 1000 + 2000);
}

TEST(analyze_ivl_priority_split)
{
    struct lat_ivl hi[] = {{10, 20}, {30, 40}}, lo[] = {{15, 35}, {50, 60}};
    const struct lat_ivl *lists[] = {hi, lo};
    size_t counts[] = {2, 2};
    lat_ns out[3];
    ivl_priority_split(lists, counts, 2, 0, 55, out);
    ASSERT_EQ_I64(out[0], 20);      /* [10,20) [30,40) */
    ASSERT_EQ_I64(out[1], 10 + 5);  /* [20,30) [50,55) */
    ASSERT_EQ_I64(out[2], 55 - 35); /* the rest */
    ivl_priority_split(lists, counts, 2, 33, 52, out);
    ASSERT_EQ_I64(out[0], 7);
    ASSERT_EQ_I64(out[1], 2);
    ASSERT_EQ_I64(out[2], 10);
}

/* ---- kernel types (re.match semantics) ----------------------------------------------------- */

TEST(analyze_kernel_types)
{
    ASSERT_EQ_I64(analysis_kernel_type("ncclKernel_AllReduce_RING"), LAT_KT_COMMUNICATION);
    ASSERT_EQ_I64(analysis_kernel_type("ncclDevKernel_AllGather"), LAT_KT_COMMUNICATION);
    ASSERT_EQ_I64(analysis_kernel_type("void at::ncclKernel_x"), LAT_KT_COMMUNICATION);
    /* HTA quirk: ^hip is communication, even hipMemcpy */
    ASSERT_EQ_I64(analysis_kernel_type("hipMemcpyAsync"), LAT_KT_COMMUNICATION);
    ASSERT_EQ_I64(analysis_kernel_type("Memcpy HtoD (Pinned -> Device)"), LAT_KT_MEMORY);
    ASSERT_EQ_I64(analysis_kernel_type("Memset (Device)"), LAT_KT_MEMORY);
    ASSERT_EQ_I64(analysis_kernel_type("dma_copy"), LAT_KT_MEMORY);
    ASSERT_EQ_I64(analysis_kernel_type("Stream Sync"), LAT_KT_OTHER);
    ASSERT_EQ_I64(analysis_kernel_type("Stream Wait Event"), LAT_KT_OTHER);
    ASSERT_EQ_I64(analysis_kernel_type("cudaFooLaunchKernel"), LAT_KT_OTHER);
    ASSERT_EQ_I64(analysis_kernel_type("my_fused_Memcpy_kernel"), LAT_KT_OTHER);
    ASSERT_EQ_I64(analysis_kernel_type("volta_sgemm_128x64_nn"), LAT_KT_COMPUTATION);
    ASSERT_EQ_I64(analysis_kernel_type("runFunction - x"), LAT_KT_OTHER);
    /* '.' does not match a newline: "Sync" after one is not seen by re.match */
    ASSERT_EQ_I64(analysis_kernel_type("kernel\nSync"), LAT_KT_COMPUTATION);
    ASSERT_EQ_I64(analysis_kernel_type("kernelSync\n"), LAT_KT_OTHER);
    ASSERT_EQ_I64(analysis_kernel_type("x\nncclKernel"), LAT_KT_COMPUTATION);
    ASSERT_EQ_STR(analysis_ktype_name(LAT_KT_MEMORY), "MEMORY");
}

/* ---- analyses on the reference trace ------------------------------------------------------- */

TEST(analyze_prep_drops_last_step)
{
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    ASSERT_EQ_U64(a->steps_distinct, 2);
    ASSERT(a->last_step_dropped);
    /* ProfilerStep#2, aten::mm@110, c6 on the CPU; k6 on the GPU */
    ASSERT_EQ_U64(a->ranks[0].dropped_last_step, 4);
    ASSERT_EQ_U64(a->ranks[0].launch.gpu_rows, 5);
    analysis_free(a);

    struct analysis_opts o;
    analysis_opts_default(&o);
    o.include_last_step = true;
    a = run1(t, &o);
    ASSERT_EQ_U64(a->ranks[0].dropped_last_step, 0);
    ASSERT_EQ_U64(a->ranks[0].launch.gpu_rows, 6);
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_temporal_by_hand)
{
    /* GPU rows [20,50) [50,60) | [68,105) [100,110) [106,107): groups [20,60] [68,110]
     * kernel_time 90, busy 82, idle 8; compute = [20,60] + [100,110] = 50; non-compute 32 */
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_temporal *tb = &a->ranks[0].temporal;
    ASSERT(tb->valid);
    ASSERT_EQ_I64(tb->kernel_time, US(90));
    ASSERT_EQ_I64(tb->idle, US(8));
    ASSERT_EQ_I64(tb->compute, US(50));
    ASSERT_EQ_I64(tb->non_compute, US(32));
    ASSERT_NEAR(tb->idle_pct + tb->compute_pct + tb->non_compute_pct, 100.0, 1e-9);
    ASSERT_NEAR(tb->compute_pct, 5000.0 / 90, 1e-9);
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_idle_by_hand)
{
    /* s7: k2 gap 0 (launch at 20 < prev end 50: kernel_wait); k3 gap 40, its launch at 62 is
     * after the previous end 60: host_wait. s8: memcpy gap 1 < 30 µs: kernel_wait. */
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nidle, 2);
    ASSERT_EQ_I64(r->idle[0].stream, 7);
    ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_HOST_WAIT], US(40));
    ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_KERNEL_WAIT], 0);
    ASSERT_EQ_U64(r->idle[0].gaps[LAT_IDLE_KERNEL_WAIT], 1);
    ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_OTHER], 0);
    ASSERT_NEAR(r->idle[0].ratio[LAT_IDLE_HOST_WAIT], 1.0, 1e-12);
    ASSERT_EQ_I64(r->idle[1].stream, 8);
    ASSERT_EQ_I64(r->idle[1].idle[LAT_IDLE_KERNEL_WAIT], US(1));
    ASSERT_EQ_U64(r->idle[1].events, 2);
    analysis_free(a);

    /* with a 0 µs threshold the 1 µs gap is "other" */
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.consecutive_kernel_delay_ns = 0;
    a = run1(t, &o);
    ASSERT_EQ_I64(a->ranks[0].idle[1].idle[LAT_IDLE_OTHER], US(1));
    analysis_free(a);
    lat_trace_free(t);
}

/* HTA's idle join for GPU rows without a launch (issue 20): index_correlation is
 * min(correlation, 0), and the join on it reaches the row labelled 0, the input's first event,
 * when that row was kept. The trace's first event is a cpu_op that starts (500 µs) after the
 * kernels; s7: k1 [10,20) c11 launched at 5, k2 [25,30) c12 with no launch, k3 [32,40) with no
 * correlation. k2's gap 5: HTA host_wait (500 > 20), latscope kernel_wait; k3's gap 2:
 * kernel_wait in both (correlation -1 joins nothing). */
static const char idle_row0_json[] =
    "{\"traceEvents\":["
    "%s"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::late\",\"pid\":1,\"tid\":1,\"ts\":500,"
    "\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":5,\"dur\":2,\"args\":{\"correlation\":11}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,"
    "\"args\":{\"stream\":7,\"correlation\":11,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":25,\"dur\":5,"
    "\"args\":{\"stream\":7,\"correlation\":12,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":32,\"dur\":8,"
    "\"args\":{\"stream\":7,\"device\":0}}]}";

static struct lat_analysis *idle_row0_run(const char *first, bool compat)
{
    char doc[2048], err[LAT_INGEST_ERRLEN];
    int n = snprintf(doc, sizeof(doc), idle_row0_json, first);
    ASSERT(n > 0 && (size_t)n < sizeof(doc));
    struct lat_trace *t;
    if (ingest_mem(doc, (size_t)n, "idle-row0.json", NULL, &t, err, sizeof(err)))
        FAIL("ingest_mem: %s", err);
    ASSERT(t->first_elem_event == (first[0] == '\0'));
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = compat;
    struct lat_analysis *a = run1(t, &o);
    ASSERT_EQ_U64(a->ranks[0].nidle, 1);
    ASSERT_EQ_I64(a->ranks[0].idle[0].stream, 7);
    lat_trace_free(t);
    return a;
}

TEST(analyze_idle_unlaunched_row_joins_first_event_like_hta)
{
    struct lat_analysis *a = idle_row0_run("", true);
    const struct lat_an_idle_stream *s = &a->ranks[0].idle[0];
    ASSERT_EQ_I64(s->idle[LAT_IDLE_HOST_WAIT], US(5));
    ASSERT_EQ_I64(s->idle[LAT_IDLE_KERNEL_WAIT], US(2));
    ASSERT_EQ_I64(s->idle[LAT_IDLE_OTHER], 0);
    analysis_free(a);
    /* latscope's own rule: a row with no launch is never host_wait */
    a = idle_row0_run("", false);
    s = &a->ranks[0].idle[0];
    ASSERT_EQ_I64(s->idle[LAT_IDLE_HOST_WAIT], 0);
    ASSERT_EQ_I64(s->idle[LAT_IDLE_KERNEL_WAIT], US(7));
    analysis_free(a);
    /* a first element HTA drops (metadata: no dur) leaves no row 0: NaN, never host_wait */
    a = idle_row0_run("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":"
                      "\"p\"}},",
                      true);
    s = &a->ranks[0].idle[0];
    ASSERT_EQ_I64(s->idle[LAT_IDLE_HOST_WAIT], 0);
    ASSERT_EQ_I64(s->idle[LAT_IDLE_KERNEL_WAIT], US(7));
    analysis_free(a);
}

TEST(analyze_ktypes_overlap_by_hand)
{
    /* COMP [20,60] [100,110]; COMM [68,105]; MEM [106,107]:
     * COMP 40+1+3 = 44, COMM 32, COMP|COMM 5, COMP|MEM 1; total 82. Overlap 5 of 37 comm. */
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nktypes, 4);
    ASSERT_EQ_STR(r->ktypes[0].label, "COMPUTATION");
    ASSERT_EQ_I64(r->ktypes[0].sum, US(44));
    ASSERT_EQ_STR(r->ktypes[1].label, "COMMUNICATION");
    ASSERT_EQ_I64(r->ktypes[1].sum, US(32));
    ASSERT_EQ_STR(r->ktypes[2].label, "COMPUTATION overlapping COMMUNICATION");
    ASSERT_EQ_I64(r->ktypes[2].sum, US(5));
    ASSERT_EQ_STR(r->ktypes[3].label, "COMPUTATION overlapping MEMORY");
    ASSERT_EQ_I64(r->ktypes[3].sum, US(1));
    double p = 0;
    for (size_t k = 0; k < r->nktypes; k++)
        p += r->ktypes[k].percent;
    ASSERT_NEAR(p, 100.0, 1e-9);
    ASSERT(r->has_comm);
    ASSERT_EQ_I64(r->comm_time, US(37));
    ASSERT_EQ_I64(r->comm_comp_overlap, US(5));
    ASSERT_NEAR(r->comm_comp_overlap_pct, 500.0 / 37, 1e-9);
    /* per-kernel table, sorted by (type, name): COMMUNICATION < COMPUTATION < MEMORY */
    ASSERT_EQ_U64(r->nkernels_by_type, 4);
    ASSERT_EQ_STR(r->kernels_by_type[0].name, "ncclKernel_AllReduce");
    ASSERT_EQ_STR(r->kernels_by_type[1].name, "add_kernel");
    ASSERT_EQ_STR(r->kernels_by_type[2].name, "gemm_kernel");
    ASSERT_EQ_U64(r->kernels_by_type[2].count, 2);
    ASSERT_EQ_I64(r->kernels_by_type[2].sum, US(40));
    ASSERT_EQ_I64(r->kernels_by_type[2].max, US(30));
    ASSERT_EQ_I64(r->kernels_by_type[2].min, US(10));
    /* sample std of {30, 10} µs = 14.142 µs */
    ASSERT_NEAR(r->kernels_by_type[2].std_ns, 14142.1356, 0.01);
    ASSERT_EQ_STR(r->top_kernels[0].name, "gemm_kernel");
    ASSERT_EQ_STR(r->top_kernels[1].name, "ncclKernel_AllReduce");
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_launch_by_hand)
{
    /* (cpu dur, gpu dur, delay): k1 (5,30,3) k2 (4,10,26) nccl (1,37,0) k3 (2,10,36)
     * memcpy (2,1,34): one short kernel (memcpy), median delay 26 */
    struct lat_trace *t = ref_trace();
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.launch_delay_cutoff_ns = US(30);
    struct lat_analysis *a = run1(t, &o);
    const struct lat_an_launch *L = &a->ranks[0].launch;
    ASSERT_EQ_U64(L->count, 5);
    ASSERT_EQ_U64(L->short_kernels, 1);
    ASSERT_EQ_U64(L->runtime_outliers, 0);
    ASSERT_EQ_U64(L->launch_delay_outliers, 2);
    ASSERT_EQ_I64(L->median_launch_delay, US(26));
    ASSERT_EQ_I64(L->recs[0].correlation, 1);
    ASSERT_EQ_I64(L->recs[0].launch_delay, US(3));
    ASSERT_EQ_I64(L->recs[2].correlation, 4);
    ASSERT_EQ_I64(L->recs[2].gpu_dur, US(37));
    ASSERT_EQ_U64(L->correlated_gpu + L->uncorrelated_gpu, L->gpu_rows);
    ASSERT_EQ_U64(L->uncorrelated_gpu, 0);
    ASSERT_NEAR(L->cpu_dur.max, US(5), 0);
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_queue_by_hand)
{
    /* s7 samples: +1@12 -> 1, +1@20 -> 2, -1@20 -> 1, -1@50 -> 0, +1@62 -> 1, -1@100 -> 0
     * s8: +1@67 1, -1@68 0, +1@70 1, -1@106 0. Blocked at >= 1: s7 8+0+30+38 = 76, s8 1+36 */
    struct lat_trace *t = ref_trace();
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.max_queue_length = 1;
    struct lat_analysis *a = run1(t, &o);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nqueue, 2);
    ASSERT_EQ_I64(r->queue[0].stream, 7);
    ASSERT_EQ_U64(r->queue[0].len.count, 6);
    ASSERT_EQ_I64(r->queue[0].max_length, 2);
    ASSERT_NEAR(r->queue[0].len.mean, 5.0 / 6, 1e-12);
    ASSERT_NEAR(r->queue[0].len.p50, 1.0, 1e-12);
    ASSERT_EQ_I64(r->queue[0].blocked, US(76));
    /* trace duration = 106 - 0 (ts of the kept rows) */
    ASSERT_NEAR(r->queue[0].blocked_rel, 76.0 / 106, 1e-12);
    ASSERT_EQ_I64(r->queue[1].max_length, 1);
    ASSERT_NEAR(r->queue[1].len.p50, 0.5, 1e-12);
    ASSERT_EQ_I64(r->queue[1].blocked, US(37));
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_memcpy_syncs_by_hand)
{
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nmemcpy, 1);
    ASSERT_EQ_STR(r->memcpy[0].kind, "HtoD");
    ASSERT_EQ_STR(r->memcpy[0].memory, "Pageable");
    ASSERT(r->memcpy[0].pageable);
    ASSERT_EQ_U64(r->memcpy[0].bytes, 2000);
    ASSERT_EQ_I64(r->memcpy[0].time, US(1));
    ASSERT_NEAR(r->memcpy[0].gb_per_s, 2.0, 1e-12);
    ASSERT_EQ_U64(r->nsyncs, 1);
    ASSERT_EQ_STR(r->syncs[0].name, "cudaDeviceSynchronize");
    ASSERT_EQ_I64(r->sync_blocking, US(10));
    analysis_free(a);
    lat_trace_free(t);
}

static const struct lat_an_op *find_op(const struct lat_an_op *ops, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ops[i].name, name)) return &ops[i];
    FAIL("no op row %s", name);
}

TEST(analyze_ops_by_hand)
{
    /* key_averages() semantics: runtime calls and ProfilerStep* are rows and nodes of the tree.
     * Step #2 (one cpu_op, one launch, under 80 % of step #1's) is incomplete: dropped.
     * step #1 [0,100): children linear 40, add 11, nccl 4, memcpy [70,72) 2, sync 10: self 33.
     * linear [5,45) > mm [10,40) > launches 5 + 4: mm self 21, linear self 10. add [55,66) >
     * launch 2: self 9. GPU time: mm 30+10, add 10, nccl op 37 */
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT(a->last_step_dropped);
    ASSERT_EQ_U64(r->ntop_ops, 8);
    ASSERT_EQ_U64(r->nops_total, 8);
    ASSERT_EQ_STR(r->top_ops[0].name, "ProfilerStep*");
    ASSERT(r->top_ops[0].annotation);
    ASSERT_EQ_U64(r->top_ops[0].count, 1);
    ASSERT_EQ_I64(r->top_ops[0].total, US(100));
    ASSERT_EQ_I64(r->top_ops[0].self, US(33));
    ASSERT_EQ_STR(r->top_ops[1].name, "aten::linear");
    ASSERT_EQ_I64(r->top_ops[1].total, US(40));
    ASSERT_EQ_I64(r->top_ops[1].self, US(10));
    ASSERT_EQ_I64(r->top_ops[1].gpu_time, 0);
    const struct lat_an_op *mm = find_op(r->top_ops, r->ntop_ops, "aten::mm");
    ASSERT_EQ_U64(mm->count, 1); /* the one in the dropped step is not counted */
    ASSERT_EQ_I64(mm->self, US(21));
    ASSERT_EQ_I64(mm->gpu_time, US(40));
    ASSERT_EQ_U64(mm->kernels, 2);
    ASSERT_EQ_I64(find_op(r->top_ops, r->ntop_ops, "aten::add")->self, US(9));
    const struct lat_an_op *lk = find_op(r->top_ops, r->ntop_ops, "cudaLaunchKernel");
    ASSERT_EQ_U64(lk->count, 4);
    ASSERT_EQ_I64(lk->total, US(12));
    ASSERT_EQ_I64(lk->self, US(12));
    ASSERT_EQ_STR(r->top_ops_self[0].name, "ProfilerStep*");
    ASSERT_EQ_STR(r->top_ops_self[1].name, "aten::mm");
    ASSERT_EQ_STR(r->top_ops_self[2].name, "cudaLaunchKernel");
    /* Self CPU time total: everything but the step: 10+21+9+(4-1)+12+2+10 */
    ASSERT_EQ_I64(r->ops_self_total, US(67));
    ASSERT_EQ_U64(r->nop_kernels, 3);
    ASSERT_EQ_STR(r->op_kernels[0].op, "aten::mm");
    ASSERT_EQ_STR(r->op_kernels[0].kernel, "gemm_kernel");
    ASSERT_EQ_U64(r->op_kernels[0].count, 2);
    ASSERT_EQ_STR(r->op_kernels[1].op, "nccl:all_reduce");
    ASSERT_EQ_I64(r->op_kernels[1].gpu_time, US(37));
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_steps_by_hand)
{
    /* step 1 [0,100): compute [20,60) 40, comm [68,100) 32, CPU only [5,20) + [60,68) 23,
     * idle [0,5) 5 */
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nsteps, 1);
    const struct lat_an_step *s = &r->steps[0];
    ASSERT_EQ_I64(s->step, 1);
    ASSERT_EQ_I64(s->dur, US(100));
    ASSERT_EQ_I64(s->gpu_compute, US(40));
    ASSERT_EQ_I64(s->comm, US(32));
    ASSERT_EQ_I64(s->copies, 0);
    ASSERT_EQ_I64(s->cpu_only, US(23));
    ASSERT_EQ_I64(s->idle, US(5));
    ASSERT_EQ_I64(s->gpu_compute + s->comm + s->copies + s->gpu_other + s->cpu_only + s->idle,
                  s->dur);
    ASSERT_EQ_U64(s->kernels, 5);
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_ns_rounding_like_hta)
{
    /* ts 10.5 dur 2.0 -> [11,12]; ts 20.2 dur 0.5 -> [21,20] (dur -1). HTA: busy 1 + (-1) = 0,
     * kernel_time 20 - 11 = 9, idle 9, compute 0; the type sweep counts COMP 1. */
    struct tb b;
    tb_init(&b);
    b.t->frac_ts = true;
    kernel(&b, "k", 0, 0, 7, 1); /* placeholder replaced below */
    b.t->ev.n = 0;
    tb_ev(&b, LAT_EV_KERNEL, "kernel", "k", 10500, 2000, 7, 1, 0);
    tb_ev(&b, LAT_EV_KERNEL, "kernel", "k", 20200, 500, 7, 2, 0);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = true; /* HTA's rounding applies only there */
    struct lat_analysis *a = run1(b.t, &o);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_I64(r->temporal.kernel_time, US(9));
    ASSERT_EQ_I64(r->temporal.idle, US(9));
    ASSERT_EQ_I64(r->temporal.compute, 0);
    ASSERT_EQ_I64(r->temporal.non_compute, 0);
    ASSERT_EQ_U64(r->nktypes, 1);
    ASSERT_EQ_I64(r->ktypes[0].sum, US(1));
    analysis_free(a);

    o.ns_rounding = false; /* --hta-compat --no-ns-rounding: exact */
    a = run1(b.t, &o);
    ASSERT_EQ_I64(a->ranks[0].temporal.kernel_time, 20700 - 10500);
    ASSERT_EQ_I64(a->ranks[0].temporal.compute, 2500);
    analysis_free(a);
    a = run1(b.t, NULL); /* the default: exact */
    ASSERT_EQ_I64(a->ranks[0].temporal.kernel_time, 20700 - 10500);
    ASSERT_EQ_I64(a->ranks[0].temporal.compute, 2500);
    ASSERT_EQ_I64(a->ranks[0].temporal.idle, 10200 - 2500);
    analysis_free(a);
    lat_trace_free(b.t);
}

TEST(analyze_hip_launches_counted_unless_hta_compat)
{
    struct tb b;
    tb_init(&b);
    launch(&b, "hipLaunchKernel", 0, 5, 1);
    kernel(&b, "gemm", 10, 10, 7, 1);
    launch(&b, "cudaGraphLaunch", 30, 5, 2);
    kernel(&b, "g1", 40, 10, 7, 2);
    kernel(&b, "g2", 50, 10, 7, 2);
    struct lat_analysis *a = run1(b.t, NULL);
    ASSERT_EQ_U64(a->ranks[0].launch.count, 3);
    ASSERT_EQ_U64(a->ranks[0].launch.graph_launches, 1);
    analysis_free(a);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = true;
    a = run1(b.t, &o);
    ASSERT_EQ_U64(a->ranks[0].launch.count, 0);
    /* the queue uses HTA's list (hipLaunchKernel is in it) in both modes */
    ASSERT_EQ_U64(a->ranks[0].nqueue, 1);
    ASSERT_EQ_U64(a->ranks[0].queue[0].len.count, 2);
    analysis_free(a);
    lat_trace_free(b.t);
}

TEST(analyze_no_gpu_and_two_ranks)
{
    struct tb b, c;
    tb_init(&b);
    cpu_op(&b, "aten::add", 0, 10);
    struct lat_analysis *a = run1(b.t, NULL);
    ASSERT(!a->ranks[0].temporal.valid);
    ASSERT(!a->ranks[0].has_comm);
    ASSERT_EQ_U64(a->ranks[0].nidle, 0);
    ASSERT_EQ_U64(a->ranks[0].ntop_ops, 1);
    analysis_free(a);

    tb_init(&c);
    c.t->rank = 1;
    launch(&c, "cudaLaunchKernel", 1000, 5, 1);
    kernel(&c, "gemm", 1010, 10, 7, 1);
    struct lat_trace *both[] = {c.t, b.t};
    ASSERT_RC(analysis_run(both, 2, NULL, &a));
    ASSERT_EQ_U64(a->nranks, 2);
    ASSERT_EQ_I64(a->ranks[0].rank, 0);
    ASSERT_EQ_I64(a->ranks[1].rank, 1);
    ASSERT_EQ_I64(a->ranks[1].align_offset_ns, 0); /* min ts over both ranks: 0 */
    ASSERT_EQ_U64(a->whole.launch.count, 1);
    ASSERT_EQ_I64(a->whole.temporal.kernel_time, US(10));
    analysis_free(a);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.only_rank = 1;
    ASSERT_RC(analysis_run(both, 2, &o, &a));
    ASSERT_EQ_U64(a->nranks, 1);
    ASSERT_EQ_I64(a->ranks[0].align_offset_ns, US(1000));
    analysis_free(a);
    o.only_rank = 5;
    ASSERT(analysis_run(both, 2, &o, &a) < 0);
    lat_trace_free(b.t);
    lat_trace_free(c.t);
}

TEST(analyze_aten_op_delay_by_hand)
{
    /* aten::mm [10,40) encloses c1 [12,17) and c2 [20,24): one instance, sequence
     * "gemm_kernel -> gemm_kernel", first launch delay 12-10 = 2, runtime delay 20-12 = 8.
     * aten::add [55,66) > c3 [62,64) -> add_kernel at 100: delays 7 and 38. aten::linear also
     * encloses c1/c2 but starts earlier: the latest-starting enclosing op wins. The nccl op is
     * not aten::, cudaMemcpyAsync is not a launch for this analysis. */
    struct lat_trace *t = ref_trace();
    struct lat_analysis *a = run1(t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->naten_seqs, 2);
    /* equal counts: the larger average op->launch delay first */
    ASSERT_EQ_STR(r->aten_seqs[0].op, "aten::add");
    ASSERT_EQ_STR(r->aten_seqs[0].kernels, "add_kernel");
    ASSERT_NEAR(r->aten_seqs[0].avg_aten_op_launch_delay_ns, US(7), 0);
    ASSERT_NEAR(r->aten_seqs[0].avg_runtime_delay_ns, US(38), 0);
    ASSERT_EQ_STR(r->aten_seqs[1].op, "aten::mm");
    ASSERT_EQ_STR(r->aten_seqs[1].kernels, "gemm_kernel -> gemm_kernel");
    ASSERT_EQ_U64(r->aten_seqs[1].count, 1);
    ASSERT_NEAR(r->aten_seqs[1].avg_aten_op_launch_delay_ns, US(2), 0);
    ASSERT_NEAR(r->aten_seqs[1].avg_runtime_delay_ns, US(8), 0);
    analysis_free(a);
    lat_trace_free(t);
}

TEST(analyze_steps_counted_over_all_ranks)
{
    /* HTA counts distinct ProfilerStep names over all ranks: rank 0 has only #1, rank 1 only
     * #2, so |P| = 2 and each rank drops everything from its own last step on. Rank 0's kernel
     * is launched inside its step #1 (the last one): dropped. Alignment uses the min ts over
     * both ranks (rank 1 starts at 500 µs). */
    struct tb b, c;
    tb_init(&b);
    tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#1", US(1000), US(100), -1,
          -1, 0);
    launch(&b, "cudaLaunchKernel", 900, 5, 1); /* before the step: kept */
    kernel(&b, "gemm", 910, 10, 7, 1);
    launch(&b, "cudaLaunchKernel", 1010, 5, 2); /* inside the last step: dropped */
    kernel(&b, "gemm", 1020, 10, 7, 2);
    tb_init(&c);
    c.t->rank = 1;
    tb_ev(&c, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#2", US(500), US(100), -1, -1,
          0);
    launch(&c, "cudaLaunchKernel", 510, 5, 1);
    kernel(&c, "gemm", 520, 10, 7, 1);
    struct lat_trace *both[] = {b.t, c.t};
    struct lat_analysis *a;
    /* latscope's default: each rank's only step is complete (nothing to compare it with) */
    ASSERT_RC(analysis_run(both, 2, NULL, &a));
    ASSERT_EQ_U64(a->steps_distinct, 2);
    ASSERT(!a->last_step_dropped);
    ASSERT_EQ_U64(a->ranks[0].launch.count, 2);
    ASSERT_EQ_U64(a->ranks[0].dropped_last_step, 0);
    analysis_free(a);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = true;
    ASSERT_RC(analysis_run(both, 2, &o, &a));
    ASSERT_EQ_U64(a->steps_distinct, 2);
    ASSERT(a->last_step_dropped);
    ASSERT_EQ_U64(a->ranks[0].launch.count, 1);
    ASSERT_EQ_U64(a->ranks[0].dropped_last_step, 3); /* its step row, launch c2, kernel c2 */
    ASSERT_EQ_U64(a->ranks[1].launch.count, 0);
    ASSERT_EQ_I64(a->ranks[0].align_offset_ns, US(500));
    ASSERT_EQ_I64(a->ranks[1].align_offset_ns, US(500));
    analysis_free(a);
    lat_trace_free(b.t);
    lat_trace_free(c.t);
}

/* ---- latscope's last-step rule and key_averages() semantics --------------------------------- */

static void step3(struct tb *b, int n3_ops)
{
    tb_ev(b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#1", 0, US(100), -1, -1, 0);
    tb_ev(b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#2", US(100), US(100), -1, -1,
          0);
    tb_ev(b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#3", US(200), US(100), -1, -1,
          0);
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < (s == 2 ? n3_ops : 5); k++)
            cpu_op(b, "aten::add", 100 * s + 10 * k + 1, 5);
}

TEST(analyze_last_step_complete_cpu)
{
    /* a torch.profiler schedule's last step is as full as the others: kept (analyze and doctor
     * count 3); a step cut short (1 op of 5) is dropped by default and by --hta-compat */
    struct tb b;
    tb_init(&b);
    step3(&b, 5);
    ASSERT(analysis_last_step_complete(b.t));
    struct lat_analysis *a = run1(b.t, NULL);
    ASSERT(!a->last_step_dropped);
    ASSERT_EQ_U64(a->ranks[0].nsteps, 3);
    ASSERT_EQ_U64(a->ranks[0].top_ops[1].count, 15); /* aten::add, after ProfilerStep* */
    analysis_free(a);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = true;
    a = run1(b.t, &o);
    ASSERT(a->last_step_dropped); /* HTA: always */
    ASSERT_EQ_U64(a->ranks[0].nsteps, 2);
    analysis_free(a);
    lat_trace_free(b.t);

    tb_init(&b);
    step3(&b, 1);
    ASSERT(!analysis_last_step_complete(b.t));
    a = run1(b.t, NULL);
    ASSERT(a->last_step_dropped);
    ASSERT_EQ_U64(a->ranks[0].nsteps, 2);
    ASSERT(strstr(a->last_step_reason, "1 cpu_ops, under 80% of the 5 of #2"));
    analysis_free(a);
    lat_trace_free(b.t);
}

TEST(analyze_last_step_complete_gpu)
{
    /* every step has a launch without GPU row (as in real traces): not a sign; one more in the
     * last step is */
    for (int extra = 0; extra < 2; extra++) {
        struct tb b;
        tb_init(&b);
        tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#1", 0, US(100), -1, -1,
              0);
        tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#2", US(100), US(100), -1,
              -1, 0);
        for (int s = 0; s < 2; s++) {
            launch(&b, "cudaLaunchKernel", 100 * s + 10, 2, 10 * s + 1);
            kernel(&b, "k", 100 * s + 20, 5, 7, 10 * s + 1);
            launch(&b, "cudaMemsetAsync", 100 * s + 30, 2, 10 * s + 2); /* never a GPU row */
        }
        if (extra) launch(&b, "cudaLaunchKernel", 150, 2, 99);
        ASSERT(analysis_last_step_complete(b.t) == !extra);
        lat_trace_free(b.t);
    }
}

TEST(analyze_ops_key_averages_tree)
{
    /* torch's _build_tree: python_function events are nodes (they take time from their parent's
     * self) but no rows; a same-name child that is its parent's only child merges into it
     * (div_ [0,40) > div_ [5,35) > empty [10,12): one div_ call, total 40, self 38); a
     * same-name child with a sibling stays (mean [50,90) > mean [55,65) + sum [70,80)). The
     * filtered aten::is_leaf is no node: its time stays in its parent. */
    struct tb b;
    tb_init(&b);
    tb_ev(&b, LAT_EV_PYTHON, "python_function", "model.py(1): forward", 0, US(100), -1, -1, 0);
    cpu_op(&b, "aten::div_", 0, 40);
    cpu_op(&b, "aten::div_", 5, 30);
    cpu_op(&b, "aten::empty", 10, 2);
    cpu_op(&b, "aten::is_leaf", 20, 3);
    cpu_op(&b, "aten::mean", 50, 40);
    cpu_op(&b, "aten::mean", 55, 10);
    tb_ev(&b, LAT_EV_PYTHON, "python_function", "model.py(9): helper", US(70), US(10), -1, -1, 0);
    cpu_op(&b, "aten::sum", 72, 6);
    struct lat_analysis *a = run1(b.t, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nops_total, 4); /* div_, empty, mean, sum: no python rows */
    const struct lat_an_op *div = find_op(r->top_ops, r->ntop_ops, "aten::div_");
    ASSERT_EQ_U64(div->count, 1);
    ASSERT_EQ_I64(div->total, US(40));
    ASSERT_EQ_I64(div->self, US(38));
    const struct lat_an_op *mean = find_op(r->top_ops, r->ntop_ops, "aten::mean");
    ASSERT_EQ_U64(mean->count, 2);
    ASSERT_EQ_I64(mean->total, US(50));
    ASSERT_EQ_I64(mean->self, US(40 - 10 - 10 + 10)); /* outer 20 (helper is its child), inner 10 */
    ASSERT_EQ_U64(r->npy_funcs, 2);
    const struct lat_an_op *fw = find_op(r->py_funcs, r->npy_funcs, "model.py(1): forward");
    ASSERT_EQ_I64(fw->self, US(100 - 40 - 40));
    const struct lat_an_op *hp = find_op(r->py_funcs, r->npy_funcs, "model.py(9): helper");
    ASSERT_EQ_I64(hp->self, US(4));
    ASSERT(r->cpu_only);
    ASSERT_EQ_U64(r->nthreads, 1);
    ASSERT_EQ_I64(r->threads[0].busy, US(80)); /* outermost ops: div_ 40 + mean 40 */
    analysis_free(a);
    lat_trace_free(b.t);
}

TEST(analyze_steps_cpu_split)
{
    /* step [0,100): DataLoader region [0,20) holding an op [5,10); ops [30,50); python
     * [40,70) (10 of it under the op); nothing in [70,100): dataloader 20, ops 20, python 20,
     * other 40 */
    struct tb b;
    tb_init(&b);
    tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation", "ProfilerStep#1", 0, US(100), -1, -1, 0);
    tb_ev(&b, LAT_EV_USER_ANNOTATION, "user_annotation",
          "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, US(20), -1, -1, 0);
    cpu_op(&b, "aten::stack", 5, 5);
    cpu_op(&b, "aten::mm", 30, 20);
    tb_ev(&b, LAT_EV_PYTHON, "python_function", "x.py(3): post", US(40), US(30), -1, -1, 0);
    struct lat_analysis *a = run1(b.t, NULL);
    const struct lat_an_step *s = &a->ranks[0].steps[0];
    ASSERT_EQ_I64(s->cpu_dataloader, US(20));
    ASSERT_EQ_I64(s->cpu_ops, US(20));
    ASSERT_EQ_I64(s->cpu_python, US(20));
    ASSERT_EQ_I64(s->cpu_other, US(40));
    ASSERT_EQ_I64(a->ranks[0].steps_total, US(100));
    const struct lat_an_op *dl =
        find_op(a->ranks[0].top_ops, a->ranks[0].ntop_ops,
                "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    ASSERT(dl->annotation);
    ASSERT_EQ_I64(dl->self, US(15));
    analysis_free(a);
    lat_trace_free(b.t);
}

/* User annotations by hand (annot.c): on stream 7, GPU annotation "outer" [0,100) holds "inner"
 * [20,50); kernels k1 [10,15) -> outer, k2 [25,30) -> inner (the innermost wins), k3 [48,60)
 * -> inner (overlaps it), k4 [100,110) -> none ([ts, end) intervals: touching is no overlap), a
 * kernel on stream 8 [30,40) -> none (another track), a memcpy without correlation -> not a
 * GPUKernelFilter row. CPU annotations: "step" twice (10 and 30 us: mean 20, std 14.142). */
static const char annot_json[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"outer\",\"pid\":0,\"tid\":7,"
    "\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"inner\",\"pid\":0,\"tid\":7,"
    "\"ts\":20,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,"
    "\"args\":{\"stream\":7,\"correlation\":1,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":25,\"dur\":5,"
    "\"args\":{\"stream\":7,\"correlation\":2,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":48,\"dur\":12,"
    "\"args\":{\"stream\":7,\"correlation\":3,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":10,"
    "\"args\":{\"stream\":7,\"correlation\":4,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k5\",\"pid\":0,\"tid\":8,\"ts\":30,\"dur\":10,"
    "\"args\":{\"stream\":8,\"correlation\":5,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,"
    "\"ts\":60,\"dur\":5,\"args\":{\"stream\":7,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step\",\"pid\":1,\"tid\":1,"
    "\"ts\":0,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step\",\"pid\":1,\"tid\":1,"
    "\"ts\":20,\"dur\":30}]}";

TEST(analyze_user_annotations_by_hand)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(annot_json, sizeof(annot_json) - 1, "handmade-annot.json", NULL, &t, err,
                   sizeof(err)))
        FAIL("ingest_mem: %s", err);
    struct analysis_opts o;
    analysis_opts_default(&o);
    struct lat_analysis *a = run1(t, &o);
    const struct lat_an_annots *A = &a->ranks[0].annot;
    ASSERT_EQ_U64(A->gpu_rows, 5); /* k1..k5; the memcpy has no correlation */
    ASSERT_EQ_U64(A->gpu_rows_annotated, 3);
    ASSERT_EQ_U64(A->ngpu, 2);
    ASSERT_EQ_STR(A->gpu[0].s.name, "outer"); /* by sum: 100 us, then 30 */
    ASSERT_EQ_U64(A->gpu[0].kernels, 1);
    ASSERT_EQ_I64(A->gpu[0].kernel_time, US(5));
    ASSERT_EQ_STR(A->gpu[1].s.name, "inner");
    ASSERT_EQ_U64(A->gpu[1].kernels, 2);
    ASSERT_EQ_I64(A->gpu[1].kernel_time, US(17));
    ASSERT_EQ_U64(A->ncpu, 1);
    ASSERT_EQ_U64(A->cpu[0].s.count, 2);
    ASSERT_EQ_I64(A->cpu[0].s.sum, US(40));
    ASSERT_EQ_I64(A->cpu[0].s.max, US(30));
    ASSERT_EQ_I64(A->cpu[0].s.min, US(10));
    ASSERT_NEAR(A->cpu[0].s.mean_ns, 20000.0, 1e-6);
    ASSERT_NEAR(A->cpu[0].s.std_ns, 14142.1356, 1e-3);
    analysis_free(a);
    lat_trace_free(t);
}

/* Memory bandwidth series by hand (membw.c): HtoD [0,10) 2 GB/s and [10,20) 4 GB/s back to back
 * (ends before starts at one ts: the samples are 2, 0 (not counted), 4, 0: never 6), a 0-length
 * HtoD at 30 lasting 1 us with 8 GB/s, a DtoH [5,15) 1 GB/s, a Memset without the argument. */
static const char membw_json[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
    "\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10,\"args\":{\"stream\":7,\"memory bandwidth "
    "(GB/s)\":2.0}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
    "\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,\"args\":{\"stream\":7,\"memory bandwidth "
    "(GB/s)\":4.0}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\","
    "\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":0,\"args\":{\"stream\":7,\"memory bandwidth "
    "(GB/s)\":8.5}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> Pinned)\","
    "\"pid\":0,\"tid\":8,\"ts\":5,\"dur\":10,\"args\":{\"stream\":8,\"memory bandwidth "
    "(GB/s)\":1.5}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,"
    "\"tid\":7,\"ts\":40,\"dur\":5,\"args\":{\"stream\":7}}]}";

TEST(analyze_memory_bw_by_hand)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(membw_json, sizeof(membw_json) - 1, "handmade-membw.json", NULL, &t, err,
                   sizeof(err)))
        FAIL("ingest_mem: %s", err);
    struct analysis_opts o;
    analysis_opts_default(&o);
    struct lat_analysis *a = run1(t, &o);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nmembw, 2); /* DtoH, HtoD; the Memset has no bandwidth */
    ASSERT_EQ_STR(r->membw[0].name, "Memcpy DtoH");
    ASSERT_EQ_U64(r->membw[0].gbps.count, 1);
    ASSERT_NEAR(r->membw[0].gbps.max, 1.5, 1e-12);
    ASSERT_EQ_STR(r->membw[1].name, "Memcpy HtoD");
    ASSERT_EQ_U64(r->membw[1].rows, 3);
    ASSERT_EQ_U64(r->membw[1].gbps.count, 3); /* 2, 4, 8.5 */
    ASSERT_NEAR(r->membw[1].gbps.max, 8.5, 1e-12);
    ASSERT_NEAR(r->membw[1].gbps.min, 2.0, 1e-12);
    ASSERT_NEAR(r->membw[1].gbps.mean, 14.5 / 3, 1e-12);
    analysis_free(a);
    lat_trace_free(t);
}

/* CUPTI range-profiler counters by hand (cupti.c): two cuda_profiler_range rows joined by order
 * with the two cudaLaunchKernel calls; the first launch sits in outer [0,100) > inner [10,50) on
 * thread 1, the second in no op. FLOPs = fadd + fmul + 2 ffma. A third launch breaks the join. */
static const char cupti_json[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":20,\"dur\":5},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":200,\"dur\":5},"
    "%s"
    "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"k1\",\"pid\":0,\"tid\":0,"
    "\"ts\":1000,\"dur\":50,\"args\":{\"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum\":10,"
    "\"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum\":20,"
    "\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\":30}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"k2\",\"pid\":0,\"tid\":0,"
    "\"ts\":2000,\"dur\":50,\"args\":{\"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum\":1,"
    "\"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum\":0,"
    "\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\":0}}]}";

static struct lat_analysis *cupti_run(const char *extra, struct lat_trace **tp)
{
    char doc[4096], err[LAT_INGEST_ERRLEN];
    int n = snprintf(doc, sizeof(doc), cupti_json, extra);
    ASSERT(n > 0 && (size_t)n < sizeof(doc));
    if (ingest_mem(doc, (size_t)n, "handmade-cupti.json", NULL, tp, err, sizeof(err)))
        FAIL("ingest_mem: %s", err);
    struct analysis_opts o;
    analysis_opts_default(&o);
    return run1(*tp, &o);
}

TEST(analyze_cupti_counters_by_hand)
{
    struct lat_trace *t;
    struct lat_analysis *a = cupti_run("", &t);
    const struct lat_an_cupti *C = &a->ranks[0].cupti;
    ASSERT_EQ_U64(C->nranges, 2);
    ASSERT(C->joined);
    ASSERT_EQ_U64(C->ncounters, 3);
    ASSERT_EQ_STR(C->rows[0].top_op, "outer");
    ASSERT_EQ_STR(C->rows[0].bottom_op, "inner");
    ASSERT_NEAR(C->rows[0].flops[0], 10 + 20 + 2 * 30, 1e-9);
    ASSERT_EQ_STR(C->rows[1].top_op, "");
    ASSERT_EQ_U64(C->nops, 2);
    ASSERT_EQ_STR(C->ops[0].op, "outer");
    ASSERT_NEAR(C->ops[0].flops_sp, 90, 1e-9);
    analysis_free(a);
    lat_trace_free(t);
    a = cupti_run("{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                  "\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":5},",
                  &t);
    C = &a->ranks[0].cupti;
    ASSERT_EQ_U64(C->nlaunches, 3);
    ASSERT(!C->joined); /* HTA gives up when the counts differ */
    ASSERT_EQ_U64(C->nops, 0);
    analysis_free(a);
    lat_trace_free(t);
}

/* Across ranks (ranks.c): four ranks with one ProfilerStep each of 100, 102, 98 and 150 us:
 * median 101, MAD 2 (scaled 2.97); rank 3 is 49 us over: a straggler (+48.5 %); the others are
 * within 3 robust sigmas. */
TEST(analyze_cross_rank_stragglers_by_hand)
{
    static const int durs[4] = {100, 102, 98, 150};
    struct lat_trace *t[4];
    for (int r = 0; r < 4; r++) {
        char doc[1024], err[LAT_INGEST_ERRLEN];
        int n = snprintf(doc, sizeof(doc),
                         "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":["
                         "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                         "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":%d},"
                         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,"
                         "\"tid\":1,\"ts\":1,\"dur\":5}]}",
                         r, durs[r]);
        ASSERT(n > 0 && (size_t)n < sizeof(doc));
        if (ingest_mem(doc, (size_t)n, "handmade-rank.json", NULL, &t[r], err, sizeof(err)))
            FAIL("ingest_mem: %s", err);
    }
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.include_last_step = true;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(t, 4, &o, &a));
    ASSERT_EQ_U64(a->nrank_rows, 4);
    ASSERT_NEAR(a->step_median_ns, 101000.0, 1e-6);
    ASSERT_EQ_U64(a->nstragglers, 1);
    for (size_t i = 0; i < 4; i++) {
        ASSERT_EQ_U64(a->rank_rows[i].steps, 1);
        ASSERT(a->rank_rows[i].straggler == (a->rank_rows[i].rank == 3));
    }
    ASSERT_NEAR(a->rank_rows[3].excess_pct, 100.0 * 49 / 101, 1e-9);
    analysis_free(a);
    for (int r = 0; r < 4; r++)
        lat_trace_free(t[r]);
}
