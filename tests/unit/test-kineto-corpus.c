/* test-kineto-corpus.c - the reader over every Kineto/Chrome trace in ../shared/traces: counts
 * must equal the catalogue in ../shared/traces/README.md (events = traceEvents length,
 * kernels = cat kernel/Kernel, steps = distinct CPU ProfilerStep#N, rank from distributedInfo);
 * real files cut at several offsets must fail cleanly. Skips when the corpus is absent. */
#include "core/err.h"
#include "ingest/ingest.h"
#include "test.h"

#include <zlib.h>

struct cat_row {
    const char *path;
    int64_t events, kernels, steps, rank;
};

/* From ../shared/traces/README.md (rank -1 = "–"). */
static const struct cat_row catalogue[] = {
    {"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 220, 14, 2, -1},
    {"hta/tests/data/call_stack/backward_thread.json", 7, 1, 1, 0},
    {"hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 30, 0, 1, 34},
    {"hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 1408,
     79, 0, 0},
    {"hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz", 92, 4, 1, 0},
    {"hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 149, 3,
     0, 0},
    {"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
     1348, 79, 0, 0},
    {"hta/tests/data/critical_path/end_to_end/simple_add/input/trace.json.gz", 1348, 79, 0, 0},
    {"hta/tests/data/critical_path/end_to_end/simple_add/output/"
     "overlaid_critical_path_trace.json.gz",
     1732, 79, 0, 0},
    {"hta/tests/data/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz", 4222, 0, 0,
     0},
    {"hta/tests/data/df_index_resolver/df_index_resolver.json.gz", 216092, 19370, 5, 1},
    {"hta/tests/data/distributed_info_unavailable/distributed_info_not_found.json.gz", 2467, 0, 1,
     -1},
    {"hta/tests/data/execution_trace/benchmark_simple_add_trace.json.gz", 111, 4, 0, 0},
    {"hta/tests/data/mixed_files/rank_non_gpu.json.gz", 2467, 0, 1, 0},
    {"hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 16158, 0, 0, -1},
    {"hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz", 455739, 0, 1, 0},
    {"hta/tests/data/nccl_parser_config/nccl_data.json.gz", 40573, 2700, 3, 0},
    {"hta/tests/data/negative_queue_length_values_check/rank0.json.gz", 108936, 6080, 5, 0},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 68692, 4350,
     5, 0},
    {"hta/tests/data/rank_non_gpu/rank_non_gpu.json.gz", 2467, 0, 1, 0},
    {"hta/tests/data/rank_unavailable/rank_not_found.json.gz", 2467, 0, 1, -1},
    {"hta/tests/data/timeline_analysis/sampled_rank-0.json.gz", 4855, 1154, 2, 0},
    {"hta/tests/data/trace_compare/base/base.json.gz", 33, 6, 2, 1},
    {"hta/tests/data/trace_compare/test/test.json.gz", 34, 5, 2, 1},
    {"hta/tests/data/trace_diff/control/control.json.gz", 109123, 8568, 6, 3},
    {"hta/tests/data/trace_diff/test/test.json.gz", 105167, 9876, 6, 1},
    {"hta/tests/data/trace_file_list/inference_rank_1.json.gz", 54, 4, 0, 1},
    {"hta/tests/data/trace_filter/sampled_rank-0.json.gz", 4855, 1154, 2, 0},
    {"hta/tests/data/trace_filter/sampled_rank-1.json.gz", 4720, 1104, 2, 1},
    {"hta/tests/data/triton_example/triton_example.json.gz", 71, 1, 1, -1},
    {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
     75718, 8772, 6, -1},
    {"kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
     75718, 8772, 6, -1},
    {"kineto/tb_plugin/test/gpu_metrics_input.json", 340, 30, 1, -1},
    {"kineto/tb_plugin/test/gpu_metrics_expected.json", 418, 30, 1, -1},
    {"tracelens/tests/traces/b200/eager_trace.json.gz", 24656, 768, 0, 0},
    {"tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", 2551, 60, 1, -1},
    {"tracelens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz", 5138, 154, 1,
     -1},
    {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 18221, 1465, 1, -1},
    {"tracelens/tests/traces/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", 50125,
     446, 1, -1},
};

static int64_t distinct_steps(const struct lat_trace *t)
{
    int32_t seen[256];
    int64_t n = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!(t->ev.flags[i] & LAT_EVF_STEP)) continue;
        bool dup = false;
        for (int64_t j = 0; j < n && !dup; j++)
            dup = seen[j] == t->ev.step[i];
        if (!dup && n < 256) seen[n++] = t->ev.step[i];
    }
    return n;
}

static void check_row(const struct cat_row *r, unsigned flags)
{
    const char *path = test_shared_path(r->path);
    struct lat_ingest_stats st;
    struct lat_ingest_opts o = {.flags = flags, .stats = &st};
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_open(path, &o, &t, err, sizeof(err));
    if (rc) FAIL("%s: rc %d: %s", r->path, rc, err);
    size_t kernels = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        const char *cat = lat_trace_str(t, t->ev.cat[i]);
        bool is_k = !strcmp(cat, "kernel") || !strcmp(cat, "Kernel");
        if (is_k != (t->ev.kind[i] == LAT_EV_KERNEL)) FAIL("%s: event %zu kind", r->path, i);
        kernels += is_k;
        if (t->ev.dur[i] < 0 && !(t->ev.flags[i] & LAT_EVF_BEGIN_END))
            FAIL("%s: event %zu has negative dur", r->path, i);
    }
    if ((int64_t)st.input_events != r->events || (int64_t)kernels != r->kernels ||
        distinct_steps(t) != r->steps || t->rank != r->rank || t->dropped != 0)
        FAIL("%s: events %llu kernels %zu steps %lld rank %d dropped %llu; want %lld %lld %lld "
             "%lld 0",
             r->path, (unsigned long long)st.input_events, kernels, (long long)distinct_steps(t),
             (int)t->rank, (unsigned long long)t->dropped, (long long)r->events,
             (long long)r->kernels, (long long)r->steps, (long long)r->rank);
    /* Every element is accounted for: an event, a flow, a label (M) or dropped. */
    ASSERT_EQ_U64(t->ev.n + t->nflows + st.meta_events + t->dropped, st.input_events);
    lat_trace_free(t);
}

TEST_TIMEOUT(kineto_corpus_catalogue_counts, 60)
{
    if (!test_shared_traces()) SKIP("../shared/traces absent");
    for (size_t i = 0; i < sizeof(catalogue) / sizeof(catalogue[0]); i++)
        check_row(&catalogue[i], 0);
    /* The same counts without the inflate thread and with every arg kept. */
    check_row(&catalogue[10], LAT_INGEST_NO_THREAD | LAT_INGEST_ARGS_ALL);
}

TEST(kineto_corpus_ns_timestamps_exact)
{
    const char *path = test_shared_path(
        "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_open(path, NULL, &t, err, sizeof(err)));
    ASSERT(t->frac_ts);
    /* Some ts must carry a non-zero ns part (not a multiple of 1000 ns). */
    size_t with_ns = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        with_ns += t->ev.ts[i] % 1000 != 0;
    ASSERT_OP_I64(with_ns, >, t->ev.n / 2);
    lat_trace_free(t);
    path = test_shared_path(
        "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    ASSERT_RC(ingest_open(path, NULL, &t, err, sizeof(err)));
    /* The producer's environment sits in "metadata"; secret-looking keys lose their values
     * (this file has TOKENIZERS_PARALLELISM=false: its key matches *TOKEN*). */
    const char *m = ingest_meta_get(t, "metadata");
    ASSERT(m);
    ASSERT(strstr(m, "\"TOKENIZERS_PARALLELISM\":\"REDACTED\""));
    ASSERT(strstr(m, "\"HF_TOKEN\":\"REDACTED\""));
    ASSERT(!strstr(m, "\"TOKENIZERS_PARALLELISM\":\"false\""));
    lat_trace_free(t);
}

/* Reads a whole gzip file into memory (decompressed). */
static char *gunzip_file(const char *path, size_t *n)
{
    gzFile g = gzopen(path, "rb");
    ASSERT(g);
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    int r;
    while ((r = gzread(g, buf + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)r;
        if (len == cap) buf = realloc(buf, cap *= 2);
        ASSERT(buf);
    }
    gzclose(g);
    *n = len;
    return buf;
}

TEST_TIMEOUT(kineto_corpus_truncations, 60)
{
    const char *rel = "hta/tests/data/nccl_parser_config/nccl_data.json.gz";
    const char *path = test_shared_path(rel);
    size_t n;
    char *doc = gunzip_file(path, &n);
    ASSERT_OP_I64(n, >, 100000);
    const size_t cuts[] = {1, 2, 17, 1000, n / 3, n / 2, n - 2000, n - 3};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        struct lat_trace *t = NULL;
        char err[LAT_INGEST_ERRLEN] = "";
        int rc = ingest_mem(doc, cuts[i], rel, NULL, &t, err, sizeof(err));
        if (rc != LAT_E_TRUNCATED || t || !strstr(err, "input ends"))
            FAIL("cut at %zu of %zu: rc %d: %s", cuts[i], n, rc, err);
    }
    free(doc);
    /* The compressed file cut short. */
    FILE *f = fopen(path, "rb");
    ASSERT(f);
    fseek(f, 0, SEEK_END);
    long gzn = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *gz = malloc((size_t)gzn);
    ASSERT_EQ_I64(fread(gz, 1, (size_t)gzn, f), gzn);
    fclose(f);
    const long gcuts[] = {100, gzn / 4, gzn / 2, gzn - 9};
    for (size_t i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof(name), "cut%zu.json.gz", i);
        char p[4096];
        snprintf(p, sizeof(p), "%s", test_write_file(name, gz, (size_t)gcuts[i]));
        struct lat_trace *t = NULL;
        char err[LAT_INGEST_ERRLEN] = "";
        int rc = ingest_open(p, NULL, &t, err, sizeof(err));
        if (rc != LAT_E_GZIP || t || !strstr(err, "truncated gzip"))
            FAIL("gzip cut at %ld of %ld: rc %d: %s", gcuts[i], gzn, rc, err);
    }
    free(gz);
}

TEST(kineto_corpus_rank_directory)
{
    const char *dir = test_shared_path("param/example_input_files/chakra_traces/dlrm_kineto");
    struct lat_ingest_set *s;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_dir(dir, NULL, &s, err, sizeof(err)));
    ASSERT_EQ_I64(s->n, 8);
    for (size_t i = 0; i < s->n; i++) {
        ASSERT_EQ_I64(s->files[i].status, LAT_INGEST_OK);
        ASSERT_EQ_I64(s->files[i].rank, (int64_t)i); /* worker0..7 are ranks 0..7 */
        ASSERT_EQ_I64(s->files[i].trace->world_size, 8);
    }
    ingest_set_free(s);
    dir = test_shared_path("hta/tests/data/rank_unavailable");
    ASSERT_RC(ingest_dir(dir, NULL, &s, err, sizeof(err)));
    ASSERT_EQ_I64(s->n, 1);
    ASSERT_EQ_I64(s->files[0].status, LAT_INGEST_NO_RANK);
    ASSERT_EQ_I64(s->files[0].rank, 0);
    ingest_set_free(s);
}

struct prog {
    int calls;
    uint64_t last_done, total;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct prog *p = ctx;
    if (done < p->last_done)
        FAIL("progress went backwards: %llu < %llu", (unsigned long long)done,
             (unsigned long long)p->last_done);
    p->calls++;
    p->last_done = done;
    p->total = total;
}

TEST(kineto_corpus_progress_callback)
{
    const char *path =
        test_shared_path("hta/tests/data/df_index_resolver/df_index_resolver.json.gz");
    struct prog pr = {0, 0, 0};
    struct lat_ingest_opts o = {.progress = on_progress, .progress_ctx = &pr};
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_open(path, &o, &t, err, sizeof(err)));
    /* 54 MB of JSON: a first call at the start, then about every 16 MiB. */
    ASSERT_OP_I64(pr.calls, >=, 3);
    ASSERT_OP_I64(pr.calls, <=, 6);
    ASSERT_EQ_I64(pr.total, 2992153); /* the compressed file size */
    ASSERT_OP_I64(pr.last_done, <=, pr.total);
    lat_trace_free(t);
}
