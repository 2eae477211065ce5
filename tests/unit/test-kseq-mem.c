/* test-kseq-mem.c - frequent kernel sequences (analyze/kseq.c, analyses.md §10) and the memory
 * timeline (analyze/memtl.c: [memory] instants; torch's export_memory_timeline raw file as HTA's
 * MemoryAnalysis), on hand-worked inputs and on the corpus against HolisticTraceAnalysis
 * f4d0062c (tests/tools/hta-kseq.py; the §18 memory-timeline values). */
#include "test.h"

#include "analyze/analysis.h"
#include "analyze/memtl.h"
#include "core/err.h"
#include "ingest/ingest.h"

#include <string.h>
#include <zlib.h>

#define US(x) ((lat_ns)(x)*1000)
#define LAUNCH(ts, c)                                                                              \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"    \
    "\"ts\":" #ts ",\"dur\":1,\"args\":{\"correlation\":" #c "}},"
#define KERNEL(name, ts, dur, c)                                                                   \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts       \
    ",\"dur\":" #dur ",\"args\":{\"stream\":7,\"correlation\":" #c ",\"device\":0}},"
#define OP(name, ts, dur)                                                                          \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts       \
    ",\"dur\":" #dur "},"

/* Thread 1: two aten::linear [10,40) and [50,80), each an aten::addmm launching k1 k2 k3; an
 * aten::relu [85,95) launching one kernel; all under ProfilerStep#1 [0,100). Worked by hand:
 * outermost aten:: ops: aten::linear x2 (3 kernels each) -> 1 pattern, count 2, GPU 2*(2+3+4),
 * CPU 2*30; aten::relu launches 1 < 3. HTA's operator "aten::" picks the smallest depth among
 * names containing it (aten::linear, depth 1) -> the same; "aten::addmm" (depth 2) -> its own
 * pattern; min_pattern_len 4 -> none. */
static const char kseq_json[] = "{\"traceEvents\":[" OP("ProfilerStep#1", 0, 100)
    OP("aten::linear", 10, 30) OP("aten::addmm", 12, 26) LAUNCH(13, 1) LAUNCH(15, 2) LAUNCH(17, 3)
        OP("aten::linear", 50, 30) OP("aten::addmm", 52, 26) LAUNCH(53, 4) LAUNCH(55, 5)
            LAUNCH(57, 6) OP("aten::relu", 85, 10) LAUNCH(86, 7) KERNEL("k1", 20, 2, 1)
                KERNEL("k2", 23, 3, 2) KERNEL("k3", 27, 4, 3) KERNEL("k1", 60, 2, 4)
                    KERNEL("k2", 63, 3, 5) KERNEL("k3", 67, 4, 6)
                        KERNEL("krelu", 90, 1, 7) "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,"
                                                  "\"tid\":1,\"ts\":100,\"s\":\"t\"}]}";

static struct lat_analysis *run_kseq(struct lat_trace *t, const char *op, size_t min_len)
{
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.kseq_operator = op;
    if (min_len) o.kseq_min_len = min_len;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    return a;
}

TEST(kseq_by_hand)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(kseq_json, sizeof(kseq_json) - 1, "handmade-kseq.json", NULL, &t, err,
                   sizeof(err)))
        FAIL("ingest_mem: %s", err);
    const char *ops[] = {NULL, "aten::"};
    for (int k = 0; k < 2; k++) {
        struct lat_analysis *a = run_kseq(t, ops[k], 0);
        const struct lat_an_rank *r = &a->ranks[0];
        ASSERT(r->kseq_ran);
        ASSERT_EQ_U64(r->kseq_roots, 2);
        ASSERT_EQ_U64(r->nkseqs, 1);
        ASSERT_EQ_STR(r->kseqs[0].op, "aten::linear");
        ASSERT_EQ_STR(r->kseqs[0].pattern, "aten::linear|k1|k2|k3");
        ASSERT_EQ_STR(r->kseqs[0].kernels, "k1 -> k2 -> k3");
        ASSERT_EQ_U64(r->kseqs[0].count, 2);
        ASSERT_EQ_U64(r->kseqs[0].nkernels, 3);
        ASSERT_EQ_I64(r->kseqs[0].gpu_time, US(18));
        ASSERT_EQ_I64(r->kseqs[0].cpu_time, US(60));
        analysis_free(a);
    }
    struct lat_analysis *a = run_kseq(t, "aten::addmm", 0);
    ASSERT_EQ_U64(a->ranks[0].nkseqs, 1);
    ASSERT_EQ_STR(a->ranks[0].kseqs[0].pattern, "aten::addmm|k1|k2|k3");
    ASSERT_EQ_I64(a->ranks[0].kseqs[0].cpu_time, US(52));
    analysis_free(a);
    a = run_kseq(t, "aten::linear", 4);
    ASSERT_EQ_U64(a->ranks[0].nkseqs, 0);
    ASSERT_EQ_U64(a->ranks[0].kseq_roots, 0);
    analysis_free(a);
    a = run_kseq(t, "aten::relu", 1); /* one kernel is enough with min 1 */
    ASSERT_EQ_U64(a->ranks[0].nkseqs, 1);
    ASSERT_EQ_STR(a->ranks[0].kseqs[0].pattern, "aten::relu|krelu");
    analysis_free(a);
    a = run_kseq(t, "no such op", 0);
    ASSERT_EQ_U64(a->ranks[0].nkseqs, 0);
    analysis_free(a);
    lat_trace_free(t);
}

/* Corpus rows HolisticTraceAnalysis f4d0062c (pandas 2.3.3) gives, by tests/tools/hta-kseq.py
 * TRACE OPERATOR (HTA_DISABLE_NS_ROUNDING=1 where no_round: HTA's own call-stack sort raises
 * "Unexpected case" on the -1 us rows its ns rounding makes in these traces), vs latscope
 * --hta-compat (--no-ns-rounding): number of patterns, then the first row's count, GPU and CPU
 * duration (us) and pattern length (characters). */
struct kseq_ref {
    const char *rel, *op;
    bool no_round;
    size_t patterns;
    uint64_t count;
    double gpu_us, cpu_us;
    size_t pattern_len;
};
static const struct kseq_ref kseq_refs[] = {
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", "aten::binary_cross", false,
     1, 32, 1695, 6423, 4706},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", "aten::", false, 0, 0, 0, 0,
     0},
    {"hta/tests/data/nccl_parser_config/nccl_data.json.gz", "aten::", true, 1, 2, 35.392, 1221.049,
     1610},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     "aten::linear", true, 1, 1, 12, 61, 1537},
    {"param/example_input_files/chakra_traces/dlrm_kineto/"
     "worker0_step_12.1694128201545.pt.trace.json.gz",
     "aten::linear", false, 1, 1, 12, 61, 1537},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
     "aten::linear", true, 0, 0, 0, 0, 0},
    {"tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", "aten::linear",
     true, 0, 0, 0, 0, 0},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "aten::", true, 0, 0, 0,
     0, 0},
};

TEST_TIMEOUT(kseq_hta_corpus, 180)
{
    for (size_t k = 0; k < sizeof(kseq_refs) / sizeof(kseq_refs[0]); k++) {
        const struct kseq_ref *h = &kseq_refs[k];
        const char *p = test_shared_path(h->rel);
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        if (ingest_open(p, NULL, &t, err, sizeof(err))) FAIL("%s: %s", h->rel, err);
        struct analysis_opts o;
        analysis_opts_default(&o);
        o.hta_compat = true;
        o.ns_rounding = !h->no_round;
        o.kseq_operator = h->op;
        struct lat_analysis *a;
        ASSERT_RC(analysis_run(&t, 1, &o, &a));
        const struct lat_an_rank *r = &a->ranks[0];
        if (r->nkseqs_total != h->patterns)
            FAIL("%s %s: %zu patterns, HTA %zu", h->rel, h->op, r->nkseqs_total, h->patterns);
        if (h->patterns) {
            ASSERT_EQ_U64(r->kseqs[0].count, h->count);
            ASSERT_NEAR((double)r->kseqs[0].gpu_time / 1000, h->gpu_us, 1e-6);
            ASSERT_NEAR((double)r->kseqs[0].cpu_time / 1000, h->cpu_us, 1e-6);
            ASSERT_EQ_U64(strlen(r->kseqs[0].pattern), h->pattern_len);
        }
        analysis_free(a);
        lat_trace_free(t);
    }
}

/* [memory] instants by hand: CUDA device 0, inside aten::empty [10,20) an allocation of 1000 B
 * (Total Allocated 1000, Reserved 2048), inside aten::add [30,40) 500 B (1500, peak, at 35),
 * outside any op a free of 1000 (500); a CPU record of 64 B in aten::empty. */
#define MEM(ts, dt, did, bytes, total, res)                                                        \
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"       \
    "\"ts\":" #ts ",\"s\":\"t\",\"args\":{\"Device Type\":" #dt ",\"Device Id\":" #did             \
    ",\"Bytes\":" #bytes ",\"Total Allocated\":" #total ",\"Total Reserved\":" #res "}},"
static const char mem_json[] = "{\"traceEvents\":[" OP("aten::empty", 10, 10)
    OP("aten::add", 30, 10) MEM(12, 1, 0, 1000, 1000, 2048) MEM(13, 0, -1, 64, 64, 0)
        MEM(35, 1, 0, 500, 1500, 2048) MEM(50, 1, 0, -1000, 500, 2048)
            OP("aten::zero", 60, 1) "{\"ph\":\"X\",\"cat\":\"cpu_op\","
                                    "\"name\":\"x\",\"pid\":1,"
                                    "\"tid\":1,\"ts\":70,\"dur\":1}]}";

TEST(memtl_by_hand)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(mem_json, sizeof(mem_json) - 1, "handmade-mem.json", NULL, &t, err, sizeof(err)))
        FAIL("ingest_mem: %s", err);
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.counters = true;
    struct lat_analysis *a;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    const struct lat_an_rank *r = &a->ranks[0];
    ASSERT_EQ_U64(r->nmemdev, 2);
    ASSERT_EQ_STR(r->memdev[0].device, "CPU");
    ASSERT_EQ_U64(r->memdev[0].allocs, 1);
    ASSERT_EQ_I64(r->memdev[0].peak_allocated, 64);
    const struct lat_an_memdev *d = &r->memdev[1];
    ASSERT_EQ_STR(d->device, "CUDA");
    ASSERT_EQ_I64(d->device_id, 0);
    ASSERT_EQ_U64(d->records, 3);
    ASSERT_EQ_U64(d->allocs, 2);
    ASSERT_EQ_U64(d->frees, 1);
    ASSERT_EQ_U64(d->alloc_bytes, 1500);
    ASSERT_EQ_U64(d->freed_bytes, 1000);
    ASSERT_EQ_I64(d->peak_allocated, 1500);
    ASSERT_EQ_I64(d->peak_ts, US(35) - r->align_offset_ns);
    ASSERT_EQ_I64(d->peak_reserved, 2048);
    ASSERT_EQ_I64(d->first_allocated, 1000);
    ASSERT_EQ_I64(d->last_allocated, 500);
    /* by allocated bytes: CUDA aten::empty 1000, CUDA aten::add 500, CPU aten::empty 64 */
    ASSERT_EQ_U64(r->nmemops_total, 3);
    ASSERT_EQ_STR(r->memops[0].op, "aten::empty");
    ASSERT_EQ_I64(r->memops[0].device_type, 1);
    ASSERT_EQ_U64(r->memops[0].alloc_bytes, 1000);
    ASSERT_EQ_STR(r->memops[1].op, "aten::add");
    ASSERT_EQ_U64(r->memops[1].alloc_bytes, 500);
    ASSERT_EQ_STR(r->memops[2].op, "aten::empty");
    ASSERT_EQ_I64(r->memops[2].device_type, 0);
    ASSERT_EQ_U64(r->nmem_pts, 4); /* the Total Allocated series of both devices */
    analysis_free(a);
    lat_trace_free(t);
}

static int feed_all(struct lat_memraw *m, const char *s, size_t step)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i += step) {
        int rc = lat_memraw_feed(m, s + i, i + step <= n ? step : n - i);
        if (rc) return rc;
    }
    return lat_memraw_finish(m);
}

/* HTA's _process_raw_events by hand: t -1 rows are pre-existing (time = the smallest positive),
 * a new point per new time, each row adds its bytes to its category. */
TEST(memraw_by_hand)
{
    const char *doc = "[[-1, 1, 100, 0], [-1, 1, 50, 7],\n [20, 1, 10, 3], [10, 1, 5, 4],"
                      " [10, 4, -5, 4], [30, 1, 1, 3]]";
    for (size_t step = 1; step <= 7; step++) {
        struct lat_memraw m;
        lat_memraw_init(&m);
        ASSERT_RC(feed_all(&m, doc, step));
        ASSERT_EQ_U64(m.rows, 6);
        ASSERT_EQ_U64(m.n, 4); /* -1, 20, 10, 30 */
        ASSERT_EQ_I64(m.times[0], 10);
        ASSERT_EQ_I64(m.times[1], 20);
        ASSERT_EQ_I64(m.times[2], 10);
        ASSERT_EQ_I64(m.sizes[0][0], 100);
        ASSERT_EQ_I64(m.sizes[0][7], 50);
        ASSERT_EQ_I64(m.sizes[1][3], 10);
        ASSERT_EQ_I64(m.sizes[2][4], 0);
        ASSERT_EQ_I64(m.sizes[3][3], 11);
        ASSERT_EQ_I64(m.peak_total, 161);
        ASSERT_EQ_U64(m.peak_index, 3);
        ASSERT_EQ_I64(m.peak[4], 0);
        lat_memraw_fini(&m);
    }
    const char *bad[] = {"",
                         "{}",
                         "[[1, 2, 3]]",
                         "[[1, 2, 3, 8]]",
                         "[[1, 2, 3.5, 1]]",
                         "[[1, 2, 3, 1]",
                         "[[1, 2, null, 1]]",
                         "[1]",
                         "[[1,2,3,4]] [",
                         "[[99999999999999999999, 1, 1, 1]]"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct lat_memraw m;
        lat_memraw_init(&m);
        int rc = feed_all(&m, bad[i], 3);
        if (rc != LAT_E_NOT_TRACE) FAIL("'%s': rc %d, want LAT_E_NOT_TRACE", bad[i], rc);
        ASSERT(m.err[0]);
        lat_memraw_fini(&m);
    }
    struct lat_memraw m; /* an empty list is a timeline without points */
    lat_memraw_init(&m);
    ASSERT_RC(feed_all(&m, "[]", 1));
    ASSERT_EQ_U64(m.n, 0);
    lat_memraw_fini(&m);
}

/* §18 test_memory_analysis: len(times) == len(sizes), 8 categories, sizes[744] ==
 * [102440608, 102228128, 19395584, 0, 2618160128, 58417152, 41811968, 25494440]; also HTA's
 * point count (7721) and the peak (point 762, 3082832104 B) MemoryAnalysis gives. */
TEST_TIMEOUT(memraw_hta_memory_timeline, 60)
{
    const char *p = test_shared_path("hta/tests/data/memory_analysis/memory_timeline.raw.gz");
    gzFile gz = gzopen(p, "rb");
    ASSERT(gz != NULL);
    struct lat_memraw m;
    lat_memraw_init(&m);
    char buf[4096];
    int n;
    while ((n = gzread(gz, buf, sizeof(buf))) > 0)
        ASSERT_RC(lat_memraw_feed(&m, buf, (size_t)n));
    gzclose(gz);
    ASSERT_RC(lat_memraw_finish(&m));
    ASSERT_EQ_U64(m.rows, 16845);
    ASSERT_EQ_U64(m.n, 7721);
    const int64_t want[8] = {102440608,  102228128, 19395584, 0,
                             2618160128, 58417152,  41811968, 25494440};
    for (int c = 0; c < 8; c++)
        ASSERT_EQ_I64(m.sizes[744][c], want[c]);
    ASSERT_EQ_U64(m.peak_index, 762);
    ASSERT_EQ_I64(m.peak_total, 3082832104LL);
    ASSERT_EQ_I64(m.times[762] - m.tmin, 98424324);
    lat_memraw_fini(&m);
}
