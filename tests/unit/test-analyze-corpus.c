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
