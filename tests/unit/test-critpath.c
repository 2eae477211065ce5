/* test-critpath.c - the critical-path analysis (../shared/docs/analyses.md §11).
 *
 * Hand-made traces (tests/data/handmade-critpath-*.json) with the graph and the path worked out
 * by hand, and the graph sizes and path lengths HTA itself computes on its own test traces and
 * on other corpus traces (skipped when ../shared/traces is absent).
 *
 * The HTA values come from HolisticTraceAnalysis at f4d0062c run with pandas 2.3.3 and
 * networkx 3.6.1 (/work/venv-hta) by docs/critical-path.md's script:
 *   TraceAnalysis(trace_dir=DIR).critical_path_analysis(rank, annotation, instance_id)
 *   -> g.number_of_nodes(), g.number_of_edges(), len(g.critical_path_nodes),
 *      Σ weight along critical_path_nodes
 * (the table in docs/critical-path.md has the full output, with the bound_by split). */
#include "test.h"

#include "analyze/analysis.h"
#include "core/err.h"
#include "ingest/ingest.h"

#include <string.h>
#include <unistd.h>

static struct lat_trace *load_path(const char *p)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_open(p, NULL, &t, err, sizeof(err));
    if (rc) FAIL("%s: %s", p, err);
    return t;
}

static struct lat_trace *load_data(const char *name)
{
    const char *src = getenv("LATSCOPE_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : ".", name);
    return load_path(path);
}

static struct lat_analysis *cpa(struct lat_trace *t, const char *ann, int64_t instance,
                                bool zero_launch)
{
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = true;
    o.critical_path = true;
    o.cp_annotation = ann;
    o.cp_instance = instance;
    o.cp_zero_weight_launch = zero_launch;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    return a;
}

#define US(x) ((lat_ns)(x)*LAT_NS_PER_US)

static const struct lat_an_cp_op *op_named(const struct lat_an_critpath *c, const char *name)
{
    for (size_t k = 0; k < c->nops; k++)
        if (!strcmp(c->ops[k].name, name)) return &c->ops[k];
    FAIL("no op %s on the critical path", name);
}

/* handmade-critpath-launch.json: aten::op [10,40] launches k1 (cudaLaunchKernel [15,25]), k1
 * runs [30,80] on stream 7, cudaDeviceSynchronize [50,90] waits for it (Context Sync).
 * Nodes: 4 events x 2 = 8. Edges: launch span (runtime lock), op.s->launch.s, launch.e->op.e,
 * op.e->sync.s (dependency), sync span (blocking: weight 0), k1 span, launch.s->k1.s (queue was
 * empty: launch delay 15), k1.e->sync.e (sync) = 8. Longest: op.s -5-> launch.s -15-> k1.s
 * -50-> k1.e = 70 µs (sync.e ties at 70 but comes later in topological order: 4 nodes). */
static void check_launch(const struct lat_an_critpath *c)
{
    ASSERT(c->ok);
    ASSERT_EQ_U64(c->nodes, 8);
    ASSERT_EQ_U64(c->edges, 8);
    ASSERT_EQ_U64(c->path_nodes, 4);
    ASSERT_EQ_U64(c->path_edges, 3);
    ASSERT_EQ_I64(c->length, US(70));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_CPU], US(5));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_LAUNCH], US(15));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_GPU_COMPUTE], US(50));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_KERNEL_KERNEL], 0);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_OPERATOR], 5);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_DEPENDENCY], 1);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_LAUNCH], 1);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_SYNC], 1);
    ASSERT_EQ_U64(c->nops, 2);
    ASSERT_EQ_STR(c->ops[0].name, "k1");
    ASSERT_EQ_I64(c->ops[0].time, US(50));
    ASSERT(c->ops[0].gpu);
    ASSERT_EQ_I64(op_named(c, "aten::op")->time, US(5));
    ASSERT(!op_named(c, "aten::op")->gpu);
}

TEST(critpath_handmade_launch)
{
    struct lat_trace *t = load_data("handmade-critpath-launch.json");
    /* default: one graph per ProfilerStep */
    struct lat_analysis *a = cpa(t, NULL, 0, false);
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 1);
    ASSERT_EQ_I64(a->ranks[0].critpath[0].step, 1);
    ASSERT_EQ_I64(a->ranks[0].critpath[0].dur, US(200));
    check_launch(&a->ranks[0].critpath[0]);
    analysis_free(a);
    /* the same window by annotation, and the whole trace */
    a = cpa(t, "ProfilerStep", 0, false);
    ASSERT(a->ranks[0].cp_found);
    ASSERT_EQ_U64(a->ranks[0].cp_instances, 1);
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 1);
    check_launch(&a->ranks[0].critpath[0]);
    analysis_free(a);
    a = cpa(t, "", 0, false);
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 1);
    check_launch(&a->ranks[0].critpath[0]);
    analysis_free(a);
    /* an instance that does not exist, a name no row has */
    a = cpa(t, "ProfilerStep", 1, false);
    ASSERT(a->ranks[0].cp_found);
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 0);
    analysis_free(a);
    a = cpa(t, "no such annotation", 0, false);
    ASSERT(!a->ranks[0].cp_found);
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 0);
    analysis_free(a);
    /* a window holding only aten::op: the launch is inside it, the sync is not */
    a = cpa(t, "aten::op", 0, false);
    const struct lat_an_critpath *c = &a->ranks[0].critpath[0];
    /* rows: aten::op, cudaLaunchKernel, k1 (launched inside): 6 nodes; edges: launch span,
     * op.s->launch.s, launch.e->op.e, k1 span, launch edge = 5; longest 5 + 15 + 50 = 70 */
    ASSERT_EQ_U64(c->nodes, 6);
    ASSERT_EQ_U64(c->edges, 5);
    ASSERT_EQ_I64(c->length, US(70));
    analysis_free(a);
    /* off unless asked */
    struct analysis_opts o;
    analysis_opts_default(&o);
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    ASSERT(!a->ranks[0].cp_ran);
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 0);
    analysis_free(a);
    lat_trace_free(t);
}

/* handmade-critpath-queue.json: aten::a [5,30] launches k1 ([10,15]) and k2 ([20,25]); k1 runs
 * [30,70], k2 [75,95]; cudaStreamSynchronize [30,100] waits (Stream Sync on stream 7).
 * k1: its launch saw queue 1, but k2 was queued by the time k1 started (queue 1 after it):
 * no launch edge and no previous kernel, so k1 has no incoming edge (HTA's rule). k2: queue 2
 * at launch: kernel-kernel edge k1.e -> k2.s (5). Nodes 12; edges: 2 launch spans, a.s->L1.s,
 * L1.e->L2.s, L2.e->a.e, a.e->S.s, S span, k1 span, k2 span, k1->k2, k2.e->S.e = 11.
 * Longest: k1.s -40-> k1.e -5-> k2.s -20-> k2.e = 65 (the CPU side is 25). */
TEST(critpath_handmade_queue)
{
    struct lat_trace *t = load_data("handmade-critpath-queue.json");
    struct lat_analysis *a = cpa(t, NULL, 0, false);
    const struct lat_an_critpath *c = &a->ranks[0].critpath[0];
    ASSERT(c->ok);
    ASSERT_EQ_U64(c->nodes, 12);
    ASSERT_EQ_U64(c->edges, 11);
    ASSERT_EQ_U64(c->path_nodes, 4);
    ASSERT_EQ_I64(c->length, US(65));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_GPU_COMPUTE], US(60));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_KERNEL_KERNEL], US(5));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_CPU], 0);
    ASSERT_EQ_I64(c->bound[LAT_CP_B_LAUNCH], 0);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_KERNEL_KERNEL], 1);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_LAUNCH], 0);
    ASSERT_EQ_U64(c->graph_edge_types[LAT_CP_E_SYNC], 1);
    ASSERT_EQ_I64(op_named(c, "k1")->time, US(40)); /* the gap is not k1's time */
    ASSERT_EQ_I64(op_named(c, "k2")->time, US(20));
    analysis_free(a);
    /* HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1: causal launch edges L1.s->k1.s and
     * L2.s->k2.s (weight 0). k1 now waits for its launch: a.s -5-> L1.s -0-> k1.s -40-> k1.e
     * -5-> k2.s -20-> k2.e = 70 */
    a = cpa(t, NULL, 0, true);
    c = &a->ranks[0].critpath[0];
    ASSERT_EQ_U64(c->edges, 13);
    ASSERT_EQ_I64(c->length, US(70));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_CPU], US(5));
    ASSERT_EQ_I64(c->bound[LAT_CP_B_LAUNCH], 0);
    analysis_free(a);
    lat_trace_free(t);
}

/* ---- HTA's own numbers --------------------------------------------------------------------- */

struct hta_cp {
    const char *rel, *annotation;
    int64_t instance;
    bool zero_launch;
    uint64_t nodes, edges, path_nodes;
    lat_ns length_us;
};

/* critical_path_analysis output of HTA f4d0062c (see the header) */
static const struct hta_cp hta_cases[] = {
    /* HTA test_critical_path_analysis: 315 critical-path nodes asserted by HTA's test */
    {"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
     "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, false, 414, 415, 315, 241724},
    {"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
     "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, true, 414, 440, 315, 241724},
    {"hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", "",
     0, false, 1388, 1416, 1002, 43355486},
    {"hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz", "ProfilerStep", 0,
     false, 54, 57, 40, 2411},
    {"hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", "", 0,
     false, 78, 82, 59, 1178},
    {"hta/tests/data/critical_path/end_to_end/simple_add/input/trace.json.gz", "", 0, false, 1428,
     1451, 1212, 41435012},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
     "ProfilerStep", 1, false, 11228, 11225, 2438, 95735},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
     "ProfilerStep", 0, false, 11230, 11229, 3053, 97518},
    {"param/example_input_files/chakra_traces/dlrm_kineto/worker1_step_12.1694128201556.pt.trace."
     "json.gz",
     "", 0, false, 4062, 4059, 842, 9008},
    {"param/example_input_files/chakra_traces/dlrm_kineto/worker3_step_12.1694128201557.pt.trace."
     "json.gz",
     "", 0, false, 4170, 4167, 898, 7904},
    {"hta/tests/data/trace_compare/base/base.json.gz", "ProfilerStep", 0, false, 8, 7, 7, 57182},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", "ProfilerStep", 0, false,
     14022, 14000, 5942, 178080},
    {"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "ProfilerStep", 1,
     false, 80, 79, 66, 741},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "ProfilerStep", 0,
     false, 10888, 10887, 2826, 33641},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "", 0, false, 10890,
     10889, 2826, 33641},
};

TEST_TIMEOUT(critpath_hta_values, 120)
{
    size_t ran = 0;
    for (size_t k = 0; k < sizeof(hta_cases) / sizeof(hta_cases[0]); k++) {
        const struct hta_cp *h = &hta_cases[k];
        if (!test_shared_traces()) SKIP("../shared/traces absent");
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", test_shared_traces(), h->rel);
        if (access(path, R_OK)) continue;
        struct lat_trace *t = load_path(path);
        struct lat_analysis *a = cpa(t, h->annotation, h->instance, h->zero_launch);
        if (a->ranks[0].ncritpath != 1) FAIL("%s: no critical path", h->rel);
        const struct lat_an_critpath *c = &a->ranks[0].critpath[0];
        if (!c->ok || c->nodes != h->nodes || c->edges != h->edges ||
            c->path_nodes != h->path_nodes || c->length != US(h->length_us))
            FAIL("%s '%s':%lld: nodes %llu edges %llu path nodes %llu length %lld ns; HTA %llu "
                 "%llu %llu %lld us",
                 h->rel, h->annotation, (long long)h->instance, (unsigned long long)c->nodes,
                 (unsigned long long)c->edges, (unsigned long long)c->path_nodes,
                 (long long)c->length, (unsigned long long)h->nodes, (unsigned long long)h->edges,
                 (unsigned long long)h->path_nodes, (long long)h->length_us);
        /* the bound split adds up to the length (HTA's summary() sums to 100 %) */
        lat_ns sum = 0;
        for (int b = 0; b < LAT_CP_B_COUNT; b++)
            sum += c->bound[b];
        ASSERT_EQ_I64(sum, c->length);
        analysis_free(a);
        lat_trace_free(t);
        ran++;
    }
    if (!ran) SKIP("none of the critical-path traces is in ../shared/traces");
}

/* HTA's alexnet test: sync edges exist and weigh 0; summary() has 5 entries (cpu_bound,
 * gpu_compute_bound, launch and kernel-kernel overhead, and the zero-weight "" row) */
TEST_TIMEOUT(critpath_hta_alexnet_sync, 60)
{
    struct lat_trace *t =
        load_path(test_shared_path("hta/tests/data/critical_path/alexnet/"
                                   "benchmark_result_2869224_1695835535_trace.json.gz"));
    struct lat_analysis *a = cpa(t, "", 0, false);
    const struct lat_an_critpath *c = &a->ranks[0].critpath[0];
    ASSERT(c->graph_edge_types[LAT_CP_E_SYNC] > 0);
    size_t nonzero = 0;
    for (int b = 0; b < LAT_CP_B_COUNT; b++)
        nonzero += c->bound_edges[b] > 0;
    ASSERT_EQ_U64(nonzero, 5);
    ASSERT_EQ_I64(c->bound[LAT_CP_B_DEPENDENCY], 0);
    analysis_free(a);
    lat_trace_free(t);
}

/* ---- doctor: a finding's saving is capped by its share of the critical path ---------------- */

#include "doctor/doctor.h"

static const struct doc_finding *finding(const struct doc_report *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].id, id)) return &r->f[i];
    return NULL;
}

/* HTA's cuda_event_sync test trace: the GPU kernels hold 36 µs of the step's critical path
 * (HTA: gpu_compute_bound 36.0 of 2411, see hta_cases), while doctor's under-filled-GPU rule
 * estimates 47.6 µs of SM time: the cap brings it to 36 µs. The CPU-side finding (pre/post
 * processing: time between ops, weight 0 in the graph) is not capped. */
TEST_TIMEOUT(critpath_doctor_cap, 60)
{
    struct lat_trace *t = load_path(
        test_shared_path("hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz"));
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    const struct doc_finding *f = finding(r, "underfilled-gpu");
    ASSERT(f);
    double before = f->saving_us_per_step;
    ASSERT(before > 36.0);
    const struct doc_finding *pp = finding(r, "cpu-pre-post-processing");
    ASSERT(pp);
    double pp_before = pp->saving_us_per_step;

    struct analysis_opts ao;
    analysis_opts_default(&ao);
    ao.critical_path = true;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &ao, &a));
    ASSERT_EQ_U64(a->ranks[0].ncritpath, 1);
    ASSERT_EQ_I64(a->ranks[0].critpath[0].bound[LAT_CP_B_GPU_COMPUTE], US(36));
    ASSERT_RC(doctor_cap_by_critical_path(r, 0, &a->ranks[0]));
    f = finding(r, "underfilled-gpu");
    ASSERT(f && f->saving_method);
    ASSERT_NEAR(f->saving_us_per_step, 36.0, 1e-9);
    ASSERT(strstr(f->saving_method, "capped at its time on the critical path: 36.0 us per step"));
    pp = finding(r, "cpu-pre-post-processing");
    ASSERT(pp);
    ASSERT_NEAR(pp->saving_us_per_step, pp_before, 1e-9);
    /* a second pass changes nothing (the cap never raises a saving) */
    ASSERT_RC(doctor_cap_by_critical_path(r, 0, &a->ranks[0]));
    f = finding(r, "underfilled-gpu");
    ASSERT(f);
    ASSERT_NEAR(f->saving_us_per_step, 36.0, 1e-9);
    ASSERT_EQ_I64(doctor_cap_by_critical_path(r, 5, &a->ranks[0]), LAT_E_USAGE);
    analysis_free(a);
    doctor_report_free(r);
    lat_trace_free(t);
}

/* Without cuda_sync records no finding is capped (the graph lacks the GPU -> CPU waits). */
TEST(critpath_doctor_no_sync_no_cap)
{
    struct lat_trace *t = load_data("handmade-analyze-basic.json");
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    double *before = calloc(r->n + 1, sizeof(*before));
    ASSERT(before);
    for (size_t i = 0; i < r->n; i++)
        before[i] = r->f[i].saving_us_per_step;
    struct analysis_opts ao;
    analysis_opts_default(&ao);
    ao.critical_path = true;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &ao, &a));
    ASSERT(a->ranks[0].ncritpath >= 1);
    ASSERT(!a->ranks[0].critpath[0].has_cuda_sync);
    ASSERT_RC(doctor_cap_by_critical_path(r, 0, &a->ranks[0]));
    for (size_t i = 0; i < r->n; i++)
        ASSERT_NEAR(r->f[i].saving_us_per_step, before[i], 1e-9);
    ASSERT_EQ_U64(doctor_critpath_bounds("dominant-kernels"), 1u << LAT_CP_B_GPU_COMPUTE);
    ASSERT_EQ_U64(doctor_critpath_bounds("sync-points"), 0);
    ASSERT_EQ_U64(doctor_critpath_bounds("cpu-pre-post-processing"), 0);
    free(before);
    analysis_free(a);
    doctor_report_free(r);
    lat_trace_free(t);
}

/* Every hand-made trace (hostile ones included), both modes: no crash, and the invariants the
 * output promises: the bound split adds up to the length, a path of k edges has k + 1 nodes,
 * every op's time is within the length. */
#include <dirent.h>
TEST_TIMEOUT(critpath_handmade_all_invariants, 120)
{
    const char *src = getenv("LATSCOPE_SRCDIR");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/tests/data", src ? src : ".");
    DIR *d = opendir(dir);
    if (!d) FAIL("cannot open %s", dir);
    struct dirent *e;
    size_t ran = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "handmade-", 9) || len < 5 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        if (ingest_open(path, NULL, &t, err, sizeof(err))) continue; /* a bad-input case */
        for (int compat = 0; compat < 2; compat++) {
            struct analysis_opts o;
            analysis_opts_default(&o);
            o.hta_compat = compat;
            o.critical_path = true;
            struct lat_analysis *a;
            ASSERT_RC(analysis_run(&t, 1, &o, &a));
            for (size_t k = 0; k < a->ranks[0].ncritpath; k++) {
                const struct lat_an_critpath *c = &a->ranks[0].critpath[k];
                if (!c->ok) continue;
                lat_ns sum = 0;
                for (int b = 0; b < LAT_CP_B_COUNT; b++) {
                    ASSERT(c->bound[b] >= 0);
                    sum += c->bound[b];
                }
                if (sum != c->length)
                    FAIL("%s: bounds %lld != length %lld", e->d_name, (long long)sum,
                         (long long)c->length);
                ASSERT(c->path_nodes == 0 || c->path_edges + 1 == c->path_nodes);
                ASSERT(c->nodes <= c->boundaries);
                for (size_t j = 0; j < c->nops; j++)
                    ASSERT(c->ops[j].time >= 0 && c->ops[j].time <= c->length);
            }
            analysis_free(a);
        }
        lat_trace_free(t);
        ran++;
    }
    closedir(d);
    ASSERT(ran >= 10);
}
