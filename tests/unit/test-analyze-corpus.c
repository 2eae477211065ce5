/* test-analyze-corpus.c - analyses on the shared trace corpus: invariants on every Kineto
 * trace, and the values HTA's public test suite asserts (../shared/docs/analyses.md §18). Every
 * test skips when ../shared/traces is absent. */
#include "test.h"

#include "analyze/analysis.h"
#include "ingest/ingest.h"

#include <dirent.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#define HTA "hta/tests/data/"

static struct lat_trace *load(const char *rel)
{
    const char *p = test_shared_path(rel);
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_open(p, NULL, &t, err, sizeof(err));
    if (rc) FAIL("%s: %s", rel, err);
    return t;
}

static struct lat_analysis *analyse(struct lat_trace *t, bool compat,
                                    void (*tweak)(struct analysis_opts *))
{
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = compat;
    if (tweak) tweak(&o);
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    return a;
}

/* ---- §18: mtia_trace_single_rank/mtia_rank_0.json.gz ------------------------------------- */

TEST_TIMEOUT(analyze_hta_mtia_temporal, 60)
{
    struct lat_trace *t = load(HTA "mtia_trace_single_rank/mtia_rank_0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_temporal *tb = &a->ranks[0].temporal;
    /* HTA test_mtia_temporal_breakdown, Δ0.01 */
    ASSERT_NEAR(tb->idle_pct, 42.382, 0.01);
    ASSERT_NEAR(tb->compute_pct, 54.812, 0.01);
    ASSERT_NEAR(tb->non_compute_pct, 2.805, 0.01);
    /* exact µs values HolisticTraceAnalysis (PyPI 0.5.0) prints for this file */
    ASSERT_EQ_I64(tb->kernel_time, 13328071000LL);
    ASSERT_EQ_I64(tb->idle, 5649476000LL);
    ASSERT_EQ_I64(tb->compute, 7305597000LL);
    ASSERT_EQ_I64(tb->non_compute, 372998000LL);
    /* TestMtiaAlignAndFilter: aligned ts >= 0; MTIA compute and memory kernels present */
    ASSERT_EQ_U64(a->ranks[0].nsteps, 1);
    ASSERT(a->ranks[0].steps[0].ts >= 0);
    ASSERT_EQ_U64(a->ranks[0].nktypes, 2);
    ASSERT_EQ_STR(a->ranks[0].ktypes[1].label, "MEMORY");
    analysis_free(a);
    lat_trace_free(t);
}

TEST_TIMEOUT(analyze_hta_mtia_kernel_breakdown, 60)
{
    struct lat_trace *t = load(HTA "mtia_trace_single_rank/mtia_rank_0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_STR(r->ktypes[0].label, "COMPUTATION");
    ASSERT_EQ_I64(r->ktypes[0].sum, 7305597000LL);
    ASSERT(r->nkernels_by_type > 11);
    ASSERT_EQ_I64(r->kernels_by_type[0].type, LAT_KT_COMPUTATION);
    ASSERT_EQ_I64(r->kernels_by_type[0].sum, 77283000LL);
    ASSERT_EQ_I64(r->kernels_by_type[11].type, LAT_KT_MEMORY);
    ASSERT_EQ_I64(r->kernels_by_type[11].sum, 400892000LL);
    analysis_free(a);
    lat_trace_free(t);
}

TEST_TIMEOUT(analyze_hta_mtia_launch_stats, 60)
{
    struct lat_trace *t = load(HTA "mtia_trace_single_rank/mtia_rank_0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_launch *L = &a->ranks[0].launch;
    size_t k;
    for (k = 0; k < L->count && L->recs[k].correlation != 423; k++) {
    }
    ASSERT(k < L->count);
    ASSERT_NEAR((double)L->recs[k].cpu_dur / 1000, 435.200, 2);
    ASSERT_NEAR((double)L->recs[k].gpu_dur / 1000, 124.768, 2);
    ASSERT_NEAR((double)L->recs[k].launch_delay / 1000, 0, 2);
    analysis_free(a);
    lat_trace_free(t);
}

static void queue_max_1(struct analysis_opts *o)
{
    o->max_queue_length = 1;
}

TEST_TIMEOUT(analyze_hta_mtia_queue_length, 60)
{
    struct lat_trace *t = load(HTA "mtia_trace_single_rank/mtia_rank_0.json.gz");
    struct lat_analysis *a = analyse(t, true, queue_max_1);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nqueue, 2);
    ASSERT_EQ_I64(r->queue[0].stream, 1);
    const struct lat_an_queue *q = &r->queue[1];
    ASSERT_EQ_I64(q->stream, 102);
    ASSERT_EQ_U64(q->len.count, 6);
    ASSERT_NEAR(q->len.mean, 0.5, 1e-9);
    ASSERT_NEAR(q->len.std, 0.547723, 1e-6);
    ASSERT_NEAR(q->len.min, 0, 0);
    ASSERT_NEAR(q->len.p25, 0, 0);
    ASSERT_NEAR(q->len.p50, 0.5, 1e-12);
    ASSERT_NEAR(q->len.p75, 1, 0);
    ASSERT_NEAR(q->len.max, 1, 0);
    /* HTA reports the last stream (ascending) at or above the limit: 102 */
    ASSERT_NEAR((double)q->blocked / 1000, 1060.0, 1e-9);
    ASSERT_NEAR(q->blocked_rel, 0.000079, 0.0000005);
    analysis_free(a);
    lat_trace_free(t);
}

TEST_TIMEOUT(analyze_hta_mtia_idle, 60)
{
    struct lat_trace *t = load(HTA "mtia_trace_single_rank/mtia_rank_0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nidle, 2);
    ASSERT_EQ_I64(r->idle[0].stream, 1);
    ASSERT_EQ_I64(r->idle[1].stream, 102);
    double sum = 0;
    for (size_t s = 0; s < 2; s++)
        for (int c = 0; c < LAT_IDLE_COUNT; c++) {
            ASSERT(r->idle[s].gaps[c] > 0); /* all 3 categories present */
            sum += round(r->idle[s].ratio[c] * 100) / 100;
        }
    ASSERT_NEAR(sum, 2.0, 1e-9);
    ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_HOST_WAIT], 417937000LL);
    ASSERT_NEAR(round(r->idle[0].ratio[LAT_IDLE_HOST_WAIT] * 100) / 100, 0.07, 1e-12);
    analysis_free(a);
    lat_trace_free(t);
}

/* rank_non_gpu: queue length and memory bandwidth are empty */
TEST(analyze_hta_rank_non_gpu)
{
    struct lat_trace *t = load(HTA "rank_non_gpu/rank_non_gpu.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    ASSERT_EQ_U64(a->ranks[0].nqueue, 0);
    ASSERT_EQ_U64(a->ranks[0].nmemcpy, 0);
    ASSERT(!a->ranks[0].temporal.valid);
    analysis_free(a);
    lat_trace_free(t);
}

/* negative_queue_length_values_check: no negative queue length; 6 streams with samples; 4
 * memory-copy groups (HTA: Memcpy DtoH, HtoD, DtoD, Memset) */
TEST_TIMEOUT(analyze_hta_negative_queue_length, 60)
{
    struct lat_trace *t = load(HTA "negative_queue_length_values_check/rank0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nqueue, 6);
    for (size_t s = 0; s < r->nqueue; s++)
        ASSERT(r->queue[s].len.min >= 0);
    size_t groups = 0;
    const char *seen[8];
    for (size_t m = 0; m < r->nmemcpy; m++) {
        bool dup = false;
        for (size_t g = 0; g < groups; g++)
            dup |= !strcmp(seen[g], r->memcpy[m].kind);
        if (!dup && groups < 8) seen[groups++] = r->memcpy[m].kind;
    }
    ASSERT_EQ_U64(groups, 4);
    analysis_free(a);
    lat_trace_free(t);
}

/* ---- invariants over every Kineto trace in the corpus -------------------------------------- */

static void check_invariants(const char *path, const struct lat_analysis *a)
{
    for (size_t k = 0; k < a->nranks; k++) {
        const struct lat_an_rank *r = &a->ranks[k];
        const struct lat_an_temporal *tb = &r->temporal;
        if (tb->valid) {
            if (tb->compute + tb->idle + tb->non_compute != tb->kernel_time)
                FAIL("%s: compute + idle + non-compute != kernel_time", path);
            if (tb->kernel_time > 0 &&
                fabs(tb->idle_pct + tb->compute_pct + tb->non_compute_pct - 100) > 0.01)
                FAIL("%s: temporal percentages do not sum to 100", path);
        }
        double p = 0;
        for (size_t b = 0; b < r->nktypes; b++)
            p += r->ktypes[b].percent;
        if (r->nktypes && fabs(p - 100) > 0.01) FAIL("%s: kernel-type %% sum %f", path, p);
        if (r->launch.correlated_gpu + r->launch.uncorrelated_gpu != r->launch.gpu_rows)
            FAIL("%s: GPU rows neither correlated nor uncorrelated", path);
        for (size_t s = 0; s < r->nsteps; s++) {
            const struct lat_an_step *st = &r->steps[s];
            if (st->gpu_compute + st->comm + st->copies + st->gpu_other + st->cpu_only + st->idle !=
                st->dur)
                FAIL("%s: step %d parts do not sum to its wall time", path, st->step);
        }
        for (size_t s = 0; s < r->nidle; s++) {
            double q = r->idle[s].ratio[0] + r->idle[s].ratio[1] + r->idle[s].ratio[2];
            lat_ns tot = r->idle[s].idle[0] + r->idle[s].idle[1] + r->idle[s].idle[2];
            if (tot && fabs(q - 1) > 1e-9) FAIL("%s: idle ratios sum to %f", path, q);
        }
        if (r->has_comm && (r->comm_comp_overlap_pct < 0 || r->comm_comp_overlap_pct > 100.0001))
            FAIL("%s: overlap %f%%", path, r->comm_comp_overlap_pct);
        for (size_t o = 0; o < r->ntop_ops; o++)
            if (r->top_ops[o].self > r->top_ops[o].total)
                FAIL("%s: op %s self > total", path, r->top_ops[o].name);
        /* never an impossible number: no negative operator time (HTA's ns rounding made
         * aten::empty -1 us on cpu_only before it moved under --hta-compat) */
        const struct lat_an_op *tabs[] = {r->top_ops, r->top_ops_self, r->ops_by_shape,
                                          r->py_funcs};
        const size_t ntabs[] = {r->ntop_ops, r->ntop_ops_self, r->nops_by_shape, r->npy_funcs};
        for (int q = 0; q < 4; q++)
            for (size_t o = 0; o < ntabs[q]; o++)
                if (tabs[q][o].self < 0 || tabs[q][o].total < 0 || tabs[q][o].gpu_time < 0)
                    FAIL("%s: op %s has a negative time", path, tabs[q][o].name);
        for (size_t s = 0; s < r->nsteps; s++) {
            const struct lat_an_step *st = &r->steps[s];
            lat_ns c = st->cpu_dataloader + st->cpu_ops + st->cpu_python + st->cpu_other;
            if (c != st->dur && !(c == 0 && st->dur == 0))
                FAIL("%s: step %d CPU parts %lld != wall %lld", path, st->step, (long long)c,
                     (long long)st->dur);
        }
    }
}

static size_t walk(const char *dir, int depth)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d || depth > 8) {
        if (d) closedir(d);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st)) continue;
        if (S_ISDIR(st.st_mode)) {
            n += walk(p, depth + 1);
            continue;
        }
        size_t l = strlen(p);
        bool js =
            (l > 5 && !strcmp(p + l - 5, ".json")) || (l > 8 && !strcmp(p + l - 8, ".json.gz"));
        if (!js || strstr(p, "/trt/") || strstr(p, "/ort/") || strstr(p, "execution_trace/") ||
            strstr(p, "_et.json"))
            continue;
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        if (ingest_open(p, NULL, &t, err, sizeof(err))) continue; /* not a trace: reader's job */
        for (int compat = 0; compat < 2; compat++) {
            struct analysis_opts o;
            analysis_opts_default(&o);
            o.hta_compat = compat;
            struct lat_analysis *a;
            int rc = analysis_run(&t, 1, &o, &a);
            if (rc) FAIL("%s: analysis_run %d", p, rc);
            check_invariants(p, a);
            analysis_free(a);
        }
        lat_trace_free(t);
        n++;
    }
    closedir(d);
    return n;
}

TEST_TIMEOUT(analyze_corpus_invariants, 600)
{
    const char *root = test_shared_traces();
    if (!root) SKIP("../shared/traces absent");
    size_t n = walk(root, 0);
    ASSERT(n >= 30);
}

/* ns_resolution_trace: §18 test_get_gpu_kernels_with_user_annotations counts 4876 GPU kernels
 * on rank 0 after HTA's preprocessing (ns rounding of epoch µs timestamps, last of 5 steps
 * dropped). */
TEST_TIMEOUT(analyze_hta_ns_resolution_kernels, 60)
{
    struct lat_trace *t =
        load(HTA "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    ASSERT(t->frac_ts);
    struct lat_analysis *a = analyse(t, true, NULL);
    ASSERT(a->last_step_dropped);
    ASSERT_EQ_U64(a->ranks[0].launch.gpu_rows, 4876);
    analysis_free(a);
    lat_trace_free(t);
}

/* ns_resolution_trace, user annotations (§18): HTA's test_gpu_user_annotation_breakdown gives
 * 3 GPU rows and test_cpu_user_annotation_breakdown 12 CPU rows; test_get_gpu_kernels_with_user_
 * annotations 4876 kernels with 4 distinct annotation ids (3 names and -1) and 27 kernels under
 * Optimizer.step#SGD.step (HTA f4d0062, tests/test_trace_analysis.py). */
TEST_TIMEOUT(analyze_hta_user_annotations, 60)
{
    struct lat_trace *t =
        load(HTA "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_annots *A = &a->ranks[0].annot;
    ASSERT_EQ_U64(A->ngpu, 3);
    ASSERT_EQ_U64(A->ncpu, 12);
    ASSERT_EQ_U64(A->gpu_rows, 4876);
    ASSERT(A->gpu_rows_annotated > 0 && A->gpu_rows_annotated < A->gpu_rows); /* so -1 too */
    uint64_t named = 0, under_opt = UINT64_MAX, sum = 0;
    for (size_t i = 0; i < A->ngpu; i++) {
        named += A->gpu[i].kernels > 0;
        sum += A->gpu[i].kernels;
        if (!strcmp(A->gpu[i].s.name, "Optimizer.step#SGD.step")) under_opt = A->gpu[i].kernels;
        ASSERT(A->gpu[i].kernel_time >= 0);
    }
    ASSERT_EQ_U64(named, 3);
    ASSERT_EQ_U64(sum, A->gpu_rows_annotated);
    ASSERT_EQ_U64(under_opt, 27);
    analysis_free(a);
    lat_trace_free(t);
}

/* negative_queue_length_values_check, memory bandwidth (§9, §18: "memory-bw summary 4 rows"):
 * every statistic of HTA f4d0062's get_memory_bw_summary(ranks=[0]) on the file (TraceAnalysis
 * with pandas 2.x, printed with %.6f: count mean std min 25% 50% 75% max). */
TEST_TIMEOUT(analyze_hta_memory_bw, 60)
{
    static const struct {
        const char *name;
        double v[8];
    } ref[] = {
        {"Memcpy DtoH", {24, 0.124136, 0.122813, 0.001798, 0.008286, 0.080758, 0.259122, 0.333333}},
        {"Memcpy HtoD",
         {64, 4.892028, 6.231704, 0.006309, 0.065309, 0.130279, 11.382923, 21.165501}},
        {"Memcpy DtoD",
         {912, 146.868819, 269.532964, 0.000641, 0.236601, 3.683453, 95.100990, 865.161716}},
        {"Memset", {200, 0.410212, 0.649649, 0.002688, 0.065599, 0.110392, 0.640026, 2.909091}},
    };
    struct lat_trace *t = load(HTA "negative_queue_length_values_check/rank0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nmembw, 4);
    for (size_t k = 0; k < 4; k++) {
        const struct lat_an_membw *m = NULL;
        for (size_t i = 0; i < r->nmembw; i++)
            if (!strcmp(r->membw[i].name, ref[k].name)) m = &r->membw[i];
        ASSERT(m != NULL);
        const struct lat_dist *d = &m->gbps;
        const double got[8] = {(double)d->count, d->mean, d->std, d->min,
                               d->p25,           d->p50,  d->p75, d->max};
        for (int j = 0; j < 8; j++)
            ASSERT_NEAR(got[j], ref[k].v[j], 1e-6 + 1e-6 * ref[k].v[j]);
    }
    analysis_free(a);
    lat_trace_free(t);
    t = load(HTA "rank_non_gpu/rank_non_gpu.json.gz"); /* §18: memory-bw summary None */
    a = analyse(t, true, NULL);
    ASSERT_EQ_U64(a->ranks[0].nmembw, 0);
    analysis_free(a);
    lat_trace_free(t);
}

/* cupti_profiler (§18 test_cupti_profiler): 77 rows; all 9 SASS FLOP counters present; row 5
 * (0-based, by ts): cat cuda_profiler_range, name containing fft2d_r2c_32x32,
 * smsp__sass_thread_inst_executed_op_fadd_pred_on.sum = 86114304, top-level op aten::conv2d,
 * bottom-level op aten::cudnn_convolution. */
TEST_TIMEOUT(analyze_hta_cupti_counters, 60)
{
    struct lat_trace *t =
        load(HTA "cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_cupti *C = &a->ranks[0].cupti;
    ASSERT_EQ_U64(C->nranges, 77);
    ASSERT(C->joined);
    ASSERT_EQ_U64(C->ncounters, 9);
    const char *ops[] = {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"};
    for (size_t k = 0; k < 9; k++) {
        char want[96];
        snprintf(want, sizeof(want), "smsp__sass_thread_inst_executed_op_%s_pred_on.sum", ops[k]);
        bool found = false;
        for (size_t i = 0; i < C->ncounters; i++)
            found |= !strcmp(C->counters[i], want);
        ASSERT(found);
    }
    const struct lat_an_cupti_row *r5 = &C->rows[5];
    ASSERT(strstr(r5->kernel, "fft2d_r2c_32x32") != NULL);
    int64_t fadd = 0;
    ASSERT(
        lat_trace_arg_int(t, r5->ev, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", &fadd));
    ASSERT_EQ_I64(fadd, 86114304);
    ASSERT_EQ_STR(r5->top_op, "aten::conv2d");
    ASSERT_EQ_STR(r5->bottom_op, "aten::cudnn_convolution");
    /* FLOPs of the row: fadd + fmul + 2 ffma from its own args */
    int64_t fmul = 0, ffma = 0;
    lat_trace_arg_int(t, r5->ev, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", &fmul);
    lat_trace_arg_int(t, r5->ev, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", &ffma);
    ASSERT_NEAR(r5->flops[0], (double)(fadd + fmul + 2 * ffma), 0.5);
    uint64_t kernels = 0;
    for (size_t i = 0; i < C->nops; i++)
        kernels += C->ops[i].kernels;
    ASSERT_EQ_U64(kernels, 77);
    analysis_free(a);
    lat_trace_free(t);
}

/* Cross-check against HolisticTraceAnalysis 0.5.0 (PyPI) run on the same files with
 * perf/hta/hta-analyses.py (docs/performance-analyze.md): temporal µs, kernel-type sums,
 * idle µs of the first stream, comm/comp overlap (2 dp) and launch statistics. */
struct hta_ref {
    const char *rel;
    lat_ns idle, compute, non_compute, kernel_time; /* µs */
    const char *type0;
    lat_ns type0_sum;
    int64_t stream0;
    lat_ns host_wait0, kernel_wait0, other0;
    double overlap; /* < 0: no communication */
    uint64_t launches, short_k, rt_out, ld_out;
    double median_delay;
};

static const struct hta_ref hta_refs[] = {
    {HTA "df_index_resolver/df_index_resolver.json.gz", 643612, 496485, 256572, 1396669,
     "COMPUTATION", 496485, 7, 791330, 16727, 73829, 0.0, 17832, 9686, 2, 6605, 2.0},
    {HTA "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 10113, 372150, 2371,
     384634, "COMPUTATION", 372150, 7, 1709, 8404, 0, -1, 4876, 2173, 663, 4713, 76013.0},
    {HTA "negative_queue_length_values_check/rank0.json.gz", 705853, 143836, 166865, 1016554,
     "COMPUTATION", 138794, 7, 0, 17159, 691231, 1.37, 5224, 1643, 110, 5083, 163575.5},
    {HTA "nccl_parser_config/nccl_data.json.gz", 338781, 75169, 21636, 435586, "COMPUTATION", 71696,
     7, 357247, 2155, 0, 14.31, 2516, 1347, 0, 180, 3.0},
    {HTA "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 8780, 96, 35, 8911, "COMPUTATION",
     96, 0, 8780, 0, 0, -1, 0, 0, 0, 0, 0},
};

TEST_TIMEOUT(analyze_hta_050_crosscheck, 120)
{
    for (size_t k = 0; k < sizeof(hta_refs) / sizeof(hta_refs[0]); k++) {
        const struct hta_ref *h = &hta_refs[k];
        struct lat_trace *t = load(h->rel);
        struct lat_analysis *a = analyse(t, true, NULL);
        const struct lat_an_rank *r = &a->ranks[0];
        ASSERT_EQ_I64(r->temporal.idle, h->idle * 1000);
        ASSERT_EQ_I64(r->temporal.compute, h->compute * 1000);
        ASSERT_EQ_I64(r->temporal.non_compute, h->non_compute * 1000);
        ASSERT_EQ_I64(r->temporal.kernel_time, h->kernel_time * 1000);
        ASSERT_EQ_STR(r->ktypes[0].label, h->type0);
        ASSERT_EQ_I64(r->ktypes[0].sum, h->type0_sum * 1000);
        ASSERT_EQ_I64(r->idle[0].stream, h->stream0);
        ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_HOST_WAIT], h->host_wait0 * 1000);
        ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_KERNEL_WAIT], h->kernel_wait0 * 1000);
        ASSERT_EQ_I64(r->idle[0].idle[LAT_IDLE_OTHER], h->other0 * 1000);
        if (h->overlap < 0)
            ASSERT(!r->has_comm);
        else
            ASSERT_NEAR(round(r->comm_comp_overlap_pct * 100) / 100, h->overlap, 1e-9);
        ASSERT_EQ_U64(r->launch.count, h->launches);
        ASSERT_EQ_U64(r->launch.short_kernels, h->short_k);
        ASSERT_EQ_U64(r->launch.runtime_outliers, h->rt_out);
        ASSERT_EQ_U64(r->launch.launch_delay_outliers, h->ld_out);
        if (h->launches)
            ASSERT_NEAR((double)r->launch.median_launch_delay / 1000, h->median_delay, 1e-9);
        analysis_free(a);
        lat_trace_free(t);
    }
}

/* Issue 20: idle-time splits HolisticTraceAnalysis f4d0062 gives on stream 7 (µs). These
 * traces launch kernels before the profiler's first runtime event (or not at all): their rows
 * have no correlated CPU row, and HTA joins them to the input's first event (index_correlation
 * 0), whose later ts makes their gaps host_wait. latscope's default keeps its own rule. */
struct hta_idle_ref {
    const char *rel;
    lat_ns host_wait, kernel_wait, other;         /* HTA, µs */
    lat_ns lat_host_wait, lat_kernel_wait, total; /* latscope's default, ns; < 0: not checked */
};

#define DLRM "param/example_input_files/chakra_traces/dlrm_kineto/"
static const struct hta_idle_ref hta_idle_refs[] = {
    {DLRM "worker1_step_12.1694128201556.pt.trace.json.gz", 17449, 115, 0, 17356000, 208000,
     17564000},
    {DLRM "worker3_step_12.1694128201557.pt.trace.json.gz", 17548, 109, 0, 17465000, 192000,
     17657000},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 1543, 4145, 0, -1, -1,
     -1},
};

TEST_TIMEOUT(analyze_hta_idle_unlaunched_rows, 120)
{
    for (size_t k = 0; k < sizeof(hta_idle_refs) / sizeof(hta_idle_refs[0]); k++) {
        const struct hta_idle_ref *h = &hta_idle_refs[k];
        struct lat_trace *t = load(h->rel);
        ASSERT(t->first_elem_event);
        for (int compat = 1; compat >= 0; compat--) {
            struct lat_analysis *a = analyse(t, compat, NULL);
            const struct lat_an_rank *r = &a->ranks[0];
            size_t s;
            for (s = 0; s < r->nidle && r->idle[s].stream != 7; s++) {
            }
            if (s == r->nidle) FAIL("%s: no stream 7 in the idle breakdown", h->rel);
            const lat_ns *idle = r->idle[s].idle;
            if (compat) {
                ASSERT_EQ_I64(idle[LAT_IDLE_HOST_WAIT], h->host_wait * 1000);
                ASSERT_EQ_I64(idle[LAT_IDLE_KERNEL_WAIT], h->kernel_wait * 1000);
                ASSERT_EQ_I64(idle[LAT_IDLE_OTHER], h->other * 1000);
            } else if (h->total >= 0) {
                ASSERT_EQ_I64(idle[LAT_IDLE_HOST_WAIT], h->lat_host_wait);
                ASSERT_EQ_I64(idle[LAT_IDLE_KERNEL_WAIT], h->lat_kernel_wait);
                ASSERT_EQ_I64(idle[0] + idle[1] + idle[2], h->total);
            }
            analysis_free(a);
        }
        lat_trace_free(t);
    }
}

/* Every Kineto trace of the corpus with GPU rows (41 files): HolisticTraceAnalysis f4d0062 (the
 * commit analyses.md cites, with pandas 2.x), run on each file as rank 0 with
 * get_temporal_breakdown() and get_idle_time_breakdown(ranks=[0]): temporal µs and every
 * stream's idle split (µs), which --hta-compat must equal exactly. A file absent here is skipped
 * alone. */
struct hta_f4_file {
    const char *rel;
    lat_ns idle, compute, non_compute, kernel_time; /* µs */
    bool temporal;                                  /* false: HTA's temporal breakdown raised */
};
struct hta_f4_idle {
    const char *rel;
    int64_t stream;
    lat_ns host_wait, kernel_wait, other; /* µs */
};

static const struct hta_f4_file hta_f4_files[] = {
    {"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 8780, 96, 35, 8911,
     true},
    {"hta/tests/data/call_stack/backward_thread.json", 0, 45, 0, 45, true},
    {"hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
     12929684, 10630, 55697, 12996011, true},
    {"hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz", 207, 49, 7, 263,
     true},
    {"hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 19132,
     369, 5, 19506, true},
    {"hta/tests/data/critical_path/end_to_end/simple_add/input/trace.json.gz", 16414376, 10670,
     39293, 16464339, true},
    {"hta/tests/data/critical_path/end_to_end/simple_add/output/"
     "overlaid_critical_path_trace.json.gz",
     16414376, 10670, 39293, 16464339, true},
    {"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
     16414376, 10670, 39293, 16464339, true},
    {"hta/tests/data/df_index_resolver/df_index_resolver.json.gz", 643612, 496485, 256572, 1396669,
     true},
    {"hta/tests/data/execution_trace/benchmark_simple_add_trace.json.gz", 108903, 16, 0, 108919,
     true},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 19235, 381972, 42068,
     443275, true},
    {"hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz", 5649476, 7305597, 372998,
     13328071, true},
    {"hta/tests/data/nccl_parser_config/nccl_data.json.gz", 338781, 75169, 21636, 435586, true},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 705853, 143836, 166865,
     1016554, true},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 10113,
     372150, 2371, 384634, true},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 321378, 106252, 172428, 600058,
     true},
    {"hta/tests/data/trace_compare/base/base.json.gz", 0, 4, 0, 4, true},
    {"hta/tests/data/trace_compare/test/test.json.gz", 0, 4, 0, 4, true},
    {"hta/tests/data/trace_diff/control/control.json.gz", 62119, 234760, 86525, 383404, true},
    {"hta/tests/data/trace_diff/test/test.json.gz", 46910, 429216, 152245, 628371, true},
    {"hta/tests/data/trace_file_list/inference_rank_1.json.gz", 1599, 30, 0, 1629, true},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 321378, 106252, 172428, 600058, true},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 328671, 135548, 136455, 600674, true},
    {"hta/tests/data/triton_example/triton_example.json.gz", 0, 94, 0, 94, true},
    {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
     327463, 492891, 10140, 830494, true},
    {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
     219798, 492770, 9033, 721601, true},
    {"kineto/tb_plugin/test/gpu_metrics_expected.json", 11896, 48, 2, 11946, true},
    {"kineto/tb_plugin/test/gpu_metrics_input.json", 11896, 48, 2, 11946, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     6419, 1034, 5556, 13009, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker1_step_12.1694128201556.pt.trace.json.gz",
     6428, 1246, 11075, 18749, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker2_step_12.1694128201554.pt.trace.json.gz",
     7046, 1068, 3236, 11350, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker3_step_12.1694128201557.pt.trace.json.gz",
     8145, 1240, 9468, 18853, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker4_step_12.1694128201547.pt.trace.json.gz",
     8887, 1126, 6576, 16589, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker5_step_12.1694128201549.pt.trace.json.gz",
     9121, 1041, 6230, 16392, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker6_step_12.1694128201553.pt.trace.json.gz",
     7051, 1051, 3308, 11410, true},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker7_step_12.1694128201553.pt.trace.json.gz",
     8308, 1059, 1600, 10967, true},
    {"tracelens/tests/traces/b200/eager_trace.json.gz", 73669, 10153, 664, 84486, true},
    {"tracelens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz", 6491, 1065, 3,
     7559, true},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 0, 0, 0, 0,
     false}, /* HTA: AssertionError (non_compute < 0) */
    {"tracelens/tests/traces/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", 2098,
     154407, 3486, 159991, true},
    {"tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", 3653, 252, 2,
     3907, true},
};
static const struct hta_f4_idle hta_f4_idle_rows[] = {
    {"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 0, 8780, 0, 0},
    {"hta/tests/data/call_stack/backward_thread.json", 7, 0, 0, 0},
    {"hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 7,
     12855007, 104, 0},
    {"hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 20,
     12011718, 3, 0},
    {"hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz", 7, 212, 0, 0},
    {"hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 20, 32,
     0, 0},
    {"hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 24, 0,
     15, 0},
    {"hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 28, 0,
     15, 0},
    {"hta/tests/data/critical_path/end_to_end/simple_add/input/trace.json.gz", 7, 15976739, 91, 0},
    {"hta/tests/data/critical_path/end_to_end/simple_add/input/trace.json.gz", 20, 13582776, 8, 0},
    {"hta/tests/data/critical_path/end_to_end/simple_add/output/"
     "overlaid_critical_path_trace.json.gz",
     7, 15976739, 91, 0},
    {"hta/tests/data/critical_path/end_to_end/simple_add/output/"
     "overlaid_critical_path_trace.json.gz",
     20, 13582776, 8, 0},
    {"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", 7,
     15976739, 91, 0},
    {"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", 20,
     13582776, 8, 0},
    {"hta/tests/data/df_index_resolver/df_index_resolver.json.gz", 7, 791330, 16727, 73829},
    {"hta/tests/data/df_index_resolver/df_index_resolver.json.gz", 14, 933139, 5568, 4444},
    {"hta/tests/data/execution_trace/benchmark_simple_add_trace.json.gz", 7, 108901, 2, 0},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 101, 278746, 244, 30588},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 102, 224017, 486, 154663},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 103, 262091, 167, 69166},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 104, 304943, 397, 94379},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 105, 361836, 176, 217},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 106, 314118, 352, 24672},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 107, 242303, 323, 8271},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 108, 228224, 616, 60202},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 109, 202237, 494, 17004},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 110, 232683, 400, 32123},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 111, 208072, 576, 91676},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 112, 299058, 432, 36813},
    {"hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz", 1, 417937, -10478, 5200945},
    {"hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz", 102, 445, -9, 2540592},
    {"hta/tests/data/nccl_parser_config/nccl_data.json.gz", 7, 357247, 2155, 0},
    {"hta/tests/data/nccl_parser_config/nccl_data.json.gz", 40, 381499, 0, 0},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 7, 0, 17159, 691231},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 25, 628598, 85, 0},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 27, 792592, 1000, 7135},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 84, 62901, 12, 665192},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 285, 0, 0, 675305},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 363, 0, 75, 673182},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 7, 1709,
     8404, 0},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 7, 213825, 1985, 261740},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 23, 596037, 70, 34},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 25, 0, 9, 47865},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 84, 148934, 6, 0},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 203, 0, 0, 0},
    {"hta/tests/data/trace_compare/base/base.json.gz", 7, 0, 0, 0},
    {"hta/tests/data/trace_compare/test/test.json.gz", 7, 0, 0, 0},
    {"hta/tests/data/trace_diff/control/control.json.gz", 7, 102154, 14226, 32183},
    {"hta/tests/data/trace_diff/control/control.json.gz", 20, 346996, 621, 7470},
    {"hta/tests/data/trace_diff/control/control.json.gz", 21, 237710, 71, 0},
    {"hta/tests/data/trace_diff/control/control.json.gz", 22, 271786, 1253, 0},
    {"hta/tests/data/trace_diff/test/test.json.gz", 7, 2960, 42372, 41756},
    {"hta/tests/data/trace_diff/test/test.json.gz", 14, 520794, 1087, 14536},
    {"hta/tests/data/trace_diff/test/test.json.gz", 15, 348483, 138, 38936},
    {"hta/tests/data/trace_diff/test/test.json.gz", 16, 422925, 829, 0},
    {"hta/tests/data/trace_file_list/inference_rank_1.json.gz", 7, 1599, 0, 0},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 7, 213825, 1985, 261740},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 23, 596037, 70, 34},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 25, 0, 9, 47865},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 84, 148934, 6, 0},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 203, 0, 0, 0},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 7, 156827, 1816, 281064},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 23, 596313, 100, 0},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 25, 0, 9, 53028},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 84, 251860, 0, 23247},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 203, 0, 0, 0},
    {"hta/tests/data/triton_example/triton_example.json.gz", 7, 0, 0, 0},
    {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 7,
     318934, 8529, 0},
    {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", 7,
     211365, 8433, 0},
    {"kineto/tb_plugin/test/gpu_metrics_expected.json", 7, 11896, 0, 0},
    {"kineto/tb_plugin/test/gpu_metrics_input.json", 7, 11896, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     7, 11448, 123, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     22, 145, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     24, 5906, 18, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     84, 4740, 3, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker1_step_12.1694128201556.pt.trace.json.gz",
     7, 17449, 115, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker1_step_12.1694128201556.pt.trace.json.gz",
     22, 154, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker1_step_12.1694128201556.pt.trace.json.gz",
     24, 11382, 12, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker1_step_12.1694128201556.pt.trace.json.gz",
     84, 4688, 3, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker2_step_12.1694128201554.pt.trace.json.gz",
     7, 9777, 105, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker2_step_12.1694128201554.pt.trace.json.gz",
     22, 142, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker2_step_12.1694128201554.pt.trace.json.gz",
     24, 4270, 23, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker2_step_12.1694128201554.pt.trace.json.gz",
     84, 5423, 1, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker3_step_12.1694128201557.pt.trace.json.gz",
     7, 17548, 109, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker3_step_12.1694128201557.pt.trace.json.gz",
     22, 187, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker3_step_12.1694128201557.pt.trace.json.gz",
     24, 10146, 5, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker3_step_12.1694128201557.pt.trace.json.gz",
     84, 4746, 3, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker4_step_12.1694128201547.pt.trace.json.gz",
     7, 14956, 113, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker4_step_12.1694128201547.pt.trace.json.gz",
     22, 151, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker4_step_12.1694128201547.pt.trace.json.gz",
     24, 8613, 18, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker4_step_12.1694128201547.pt.trace.json.gz",
     84, 6691, 2, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker5_step_12.1694128201549.pt.trace.json.gz",
     7, 14874, 76, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker5_step_12.1694128201549.pt.trace.json.gz",
     22, 148, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker5_step_12.1694128201549.pt.trace.json.gz",
     24, 8419, 13, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker5_step_12.1694128201549.pt.trace.json.gz",
     84, 6821, 1, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker6_step_12.1694128201553.pt.trace.json.gz",
     7, 9850, 100, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker6_step_12.1694128201553.pt.trace.json.gz",
     22, 140, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker6_step_12.1694128201553.pt.trace.json.gz",
     24, 4261, 16, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker6_step_12.1694128201553.pt.trace.json.gz",
     84, 5346, 9, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker7_step_12.1694128201553.pt.trace.json.gz",
     7, 9405, 98, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker7_step_12.1694128201553.pt.trace.json.gz",
     22, 141, 0, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker7_step_12.1694128201553.pt.trace.json.gz",
     24, 3936, 12, 0},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker7_step_12.1694128201553.pt.trace.json.gz",
     84, 6658, 0, 0},
    {"tracelens/tests/traces/b200/eager_trace.json.gz", 7, 73166, 566, 0},
    {"tracelens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz", 7, 6471, 20, 0},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 7, 1543, 4145, 0},
    {"tracelens/tests/traces/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", 7,
     729, 1369, 0},
    {"tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", 7, 3653, 0, 0},
};

TEST_TIMEOUT(analyze_hta_f4d0062_corpus, 600)
{
    const char *root = test_shared_traces();
    if (!root) SKIP("../shared/traces absent");
    size_t checked = 0;
    for (size_t k = 0; k < sizeof(hta_f4_files) / sizeof(hta_f4_files[0]); k++) {
        const struct hta_f4_file *h = &hta_f4_files[k];
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", root, h->rel);
        if (stat(path, &st) != 0) continue;
        struct lat_trace *t = load(h->rel);
        struct lat_analysis *a = analyse(t, true, NULL);
        const struct lat_an_rank *r = &a->ranks[0];
        if (h->temporal) {
            ASSERT_EQ_I64(r->temporal.idle, h->idle * 1000);
            ASSERT_EQ_I64(r->temporal.compute, h->compute * 1000);
            ASSERT_EQ_I64(r->temporal.non_compute, h->non_compute * 1000);
            ASSERT_EQ_I64(r->temporal.kernel_time, h->kernel_time * 1000);
        }
        size_t nstreams = 0;
        for (size_t j = 0; j < sizeof(hta_f4_idle_rows) / sizeof(hta_f4_idle_rows[0]); j++) {
            const struct hta_f4_idle *e = &hta_f4_idle_rows[j];
            if (strcmp(e->rel, h->rel) != 0) continue;
            nstreams++;
            size_t s;
            for (s = 0; s < r->nidle && r->idle[s].stream != e->stream; s++) {
            }
            if (s == r->nidle) FAIL("%s: stream %lld missing", h->rel, (long long)e->stream);
            if (r->idle[s].idle[LAT_IDLE_HOST_WAIT] != e->host_wait * 1000 ||
                r->idle[s].idle[LAT_IDLE_KERNEL_WAIT] != e->kernel_wait * 1000 ||
                r->idle[s].idle[LAT_IDLE_OTHER] != e->other * 1000)
                FAIL("%s stream %lld: host/kernel/other %lld/%lld/%lld ns, HTA %lld/%lld/%lld µs",
                     h->rel, (long long)e->stream, (long long)r->idle[s].idle[0],
                     (long long)r->idle[s].idle[1], (long long)r->idle[s].idle[2],
                     (long long)e->host_wait, (long long)e->kernel_wait, (long long)e->other);
        }
        ASSERT_EQ_U64(r->nidle, nstreams);
        checked++;
        analysis_free(a);
        lat_trace_free(t);
    }
    if (!checked) SKIP("none of the HTA-checked corpus traces present");
}

/* latscope's default counts the HIP launches HTA misses on the ROCm trace */
TEST(analyze_rocm_launches_latscope_mode)
{
    struct lat_trace *t = load(HTA "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
    struct lat_analysis *a = analyse(t, false, NULL);
    ASSERT(a->ranks[0].launch.count > 0);
    ASSERT_EQ_U64(a->ranks[0].launch.count, a->ranks[0].launch.correlated_gpu);
    analysis_free(a);
    lat_trace_free(t);
}

/* §18 test_get_mtia_aten_op_kernels_and_delay_inference_single_rank: sorted by
 * (occurrence_count, avg_aten_op_launch_delay), row 0 */
TEST_TIMEOUT(analyze_hta_mtia_aten_op_delay, 60)
{
    struct lat_trace *t = load(HTA "mtia_trace_single_rank/mtia_rank_0.json.gz");
    struct lat_analysis *a = analyse(t, true, NULL);
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT(r->naten_seqs > 0);
    const struct lat_an_aten_seq *q = &r->aten_seqs[0];
    ASSERT_EQ_STR(q->kernels, "customized_fba_mul_const-dtype_Float");
    ASSERT_EQ_STR(q->op, "aten::mul");
    ASSERT_EQ_U64(q->count, 822);
    ASSERT_NEAR(q->avg_aten_op_launch_delay_ns / 1000, 1092.545, 2);
    ASSERT_NEAR(q->avg_runtime_delay_ns / 1000, 293.113, 2);
    /* HolisticTraceAnalysis 0.5.0 on the same file: 65 rows; rows 0-2 exactly */
    ASSERT_EQ_U64(r->naten_seqs_total, 65);
    ASSERT_NEAR(q->avg_aten_op_launch_delay_ns / 1000, 1092.545, 0.0005);
    ASSERT_NEAR(q->avg_runtime_delay_ns / 1000, 293.133, 0.0005);
    ASSERT_EQ_STR(r->aten_seqs[1].kernels, "add-dtype_Float");
    ASSERT_EQ_U64(r->aten_seqs[1].count, 451);
    ASSERT_NEAR(r->aten_seqs[1].avg_aten_op_launch_delay_ns / 1000, 763.259, 0.0005);
    ASSERT_NEAR(r->aten_seqs[1].avg_runtime_delay_ns / 1000, 287.831, 0.0005);
    ASSERT_EQ_STR(r->aten_seqs[2].op, "aten::div");
    ASSERT_EQ_U64(r->aten_seqs[2].count, 408);
    ASSERT_NEAR(r->aten_seqs[2].avg_runtime_delay_ns / 1000, 288.490, 0.0005);
    analysis_free(a);
    lat_trace_free(t);
}
