/*
 * test-trt.c - the TensorRT readers (ingest/trt.c, trt-log.c), analyze's TensorRT section
 * (analyze/trt.c) and the doctor's TensorRT rules, on hand-made inputs worked out by hand; the
 * shared TREx files and trtexec logs when the corpus is present.
 */
#include "analyze/trt.h"
#include "core/err.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct lat_trace *load(const char *doc, const char *name)
{
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(doc, strlen(doc), name, NULL, &t, err, sizeof(err));
    if (rc) FAIL("ingest_mem %s: %d %s", name, rc, err);
    return t;
}

/* rc and message of a load that must fail */
static int load_err(const char *doc, size_t n, const char *name, char *err, size_t errsz)
{
    struct lat_trace *t = NULL;
    int rc = ingest_mem(doc, n, name, NULL, &t, err, errsz);
    if (!rc) {
        lat_trace_free(t);
        FAIL("%s loaded", name);
    }
    ASSERT(t == NULL);
    return rc;
}

static const char profile[] =
    "[\n  { \"count\" : 4 }\n"
    ", { \"name\" : \"Reformatting CopyNode for Input Tensor 0 to conv\", \"timeMs\" : 0.4, "
    "\"averageMs\" : 0.1, \"medianMs\" : 0.1, \"percentage\" : 10 }\n"
    ", { \"name\" : \"conv\", \"timeMs\" : 2.4, \"averageMs\" : 0.6, \"medianMs\" : 0.55, "
    "\"percentage\" : 60 }\n"
    ", { \"name\" : \"q\", \"timeMs\" : 1.2, \"averageMs\" : 0.3, \"medianMs\" : 0.3, "
    "\"percentage\" : 30 }\n]\n";

static const char graph[] =
    "{\"Layers\": [{\"Name\": \"Reformatting CopyNode for Input Tensor 0 to conv\", "
    "\"LayerType\": \"Reformat\", \"Inputs\": [{\"Name\": \"in\", \"Format/Datatype\": \"Row "
    "major linear FP32\"}], \"Outputs\": [{\"Name\": \"r\", \"Format/Datatype\": \"Channel major "
    "FP16 format where channel % 8 == 0\"}], \"Origin\": \"REFORMAT\", \"TacticValue\": "
    "\"0x0\"},\n"
    "{\"Name\": \"conv\", \"LayerType\": \"CaskConvolution\", \"Inputs\": [{\"Name\": \"r\", "
    "\"Format/Datatype\": \"Channel major FP16 format where channel % 8 == 0\"}], \"Outputs\": "
    "[{\"Name\": \"c\", \"Format/Datatype\": \"Row major linear FP32\"}], \"TacticName\": "
    "\"sm80_hmma\", \"TacticValue\": \"0x1\"},\n"
    "{\"Name\": \"q\", \"LayerType\": \"Reformat\", \"Inputs\": [{\"Name\": \"c\", "
    "\"Format/Datatype\": \"Row major linear FP32\"}], \"Outputs\": [{\"Name\": \"o\", "
    "\"Format/Datatype\": \"Four wide channel vectorized row major Int8 format\"}], \"Origin\": "
    "\"QDQ\"},\n"
    "{\"Name\": \"unprofiled\", \"LayerType\": \"NoOp\"}],\n"
    "\"Bindings\": [\"in\", \"o\"]}\n";

static const char *sarg(const struct lat_trace *t, size_t i, const char *key)
{
    const struct lat_arg *a = lat_trace_arg(t, i, key);
    return a && a->type == LAT_ARG_STR ? lat_trace_str(t, a->str) : NULL;
}

TEST(trt_profile_reader_layers_and_count)
{
    struct lat_trace *t = load(profile, "e.profile.json");
    ASSERT_EQ_STR(t->format, "tensorrt");
    ASSERT_EQ_U64(t->ev.n, 3);
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.profile_count"), "4");
    /* laid out end to end: one mean inference; the exact text of the numbers kept */
    ASSERT_EQ_I64(t->ev.ts[1], 100000);
    ASSERT_EQ_I64(t->ev.dur[1], 600000);
    ASSERT_EQ_I64(t->ev.ts[2], 700000);
    const struct lat_arg *a = lat_trace_arg(t, 1, "median_ms");
    ASSERT(a && a->type == LAT_ARG_DOUBLE);
    ASSERT_EQ_STR(lat_trace_str(t, a->str), "0.55");
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[0]), "trt_layer");
    lat_trace_free(t);
}

TEST(trt_layer_info_detailed_and_names_only)
{
    struct lat_trace *t = load(graph, "e.graph.json");
    ASSERT_EQ_U64(t->ev.n, 4);
    ASSERT_EQ_STR(sarg(t, 1, "layer_type"), "CaskConvolution");
    ASSERT_EQ_STR(sarg(t, 1, "tactic"), "sm80_hmma");
    ASSERT_EQ_STR(sarg(t, 1, "precision"), "FP16"); /* its input's type, not its output's */
    ASSERT_EQ_STR(sarg(t, 2, "precision"), "FP32");
    ASSERT_EQ_STR(sarg(t, 2, "origin"), "QDQ");
    ASSERT_EQ_STR(sarg(t, 0, "outputs"), "Channel major FP16 format where channel % 8 == 0");
    ASSERT(t->ev.flags[0] & LAT_EVF_NO_DUR);
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.layer_info_names_only"), "false");
    lat_trace_free(t);
    t = load("{\"Layers\": [\"a + b\", \"c\"], \"Bindings\": [\"x\"]}", "n.graph.json");
    ASSERT_EQ_U64(t->ev.n, 2);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), "a + b");
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.layer_info_names_only"), "true");
    lat_trace_free(t);
}

/* Three queries (no options: the warm-up is unknown, all are kept): compute 0.5, 0.7, 0.6 ms,
 * H2D 0.1 and D2H 0.2 each, enqueue 0.3, 0.2, 0.1; a fourth without GPU times is left out. */
static const char times[] =
    "[\n"
    "{ \"startEnqMs\" : 0.5, \"endEnqMs\" : 0.8, \"startH2dMs\" : 1, \"endH2dMs\" : 1.1, "
    "\"startComputeMs\" : 1.1, \"endComputeMs\" : 1.6, \"startD2hMs\" : 1.6, \"endD2hMs\" : 1.8, "
    "\"h2dMs\" : 0.1, \"computeMs\" : 0.5, \"d2hMs\" : 0.2, \"latencyMs\" : 0.8 }\n"
    ", { \"startEnqMs\" : 1.5, \"endEnqMs\" : 1.7, \"startH2dMs\" : 2, \"endH2dMs\" : 2.1, "
    "\"startComputeMs\" : 2.1, \"endComputeMs\" : 2.8, \"startD2hMs\" : 2.8, \"endD2hMs\" : 3, "
    "\"h2dMs\" : 0.1, \"computeMs\" : 0.7, \"d2hMs\" : 0.2, \"latencyMs\" : 1.0 }\n"
    ", { \"startEnqMs\" : 2.5, \"endEnqMs\" : 2.6, \"startH2dMs\" : 3, \"endH2dMs\" : 3.1, "
    "\"startComputeMs\" : 3.1, \"endComputeMs\" : 3.7, \"startD2hMs\" : 3.7, \"endD2hMs\" : 3.9, "
    "\"h2dMs\" : 0.1, \"computeMs\" : 0.6, \"d2hMs\" : 0.2, \"latencyMs\" : 0.9 }\n"
    ", { \"startEnqMs\" : 4, \"endEnqMs\" : 3 }\n"
    "]\n";

TEST(trt_times_statistics_as_trtexec)
{
    struct lat_trace *t = load(times, "e.timing.json");
    ASSERT_EQ_U64(t->ev.n, 12); /* 3 queries x 4; the 4th (no GPU times, end < start) left out */
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.queries_dropped"), "1");
    struct lat_trt_summary s;
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_EQ_U64(s.nq, 3);
    ASSERT_EQ_U64(s.nq_kept, 3);
    ASSERT(s.warmup_ms < 0);
    const struct lat_trt_stats *c = &s.q[LAT_TRT_COMPUTE];
    ASSERT_NEAR(c->min, 0.5, 1e-12);
    ASSERT_NEAR(c->max, 0.7, 1e-12);
    ASSERT_NEAR(c->median, 0.6, 1e-12);
    ASSERT_NEAR(c->mean, 0.6, 1e-12);
    /* exclude = (int)((1 - 0.9f) * 3) = 0: p90 = the max */
    ASSERT_NEAR(c->pct[0], 0.7, 1e-12);
    ASSERT_NEAR(s.q[LAT_TRT_LATENCY].median, 0.9, 1e-12);
    ASSERT_NEAR(s.q[LAT_TRT_ENQUEUE].median, 0.2, 1e-12);
    ASSERT_NEAR(s.q[LAT_TRT_E2E].max, 1.0, 1e-12);
    /* walltime: 3.9 - 1 = 2.9 ms; 3 queries */
    ASSERT_NEAR(s.q_wall_ms, 2.9, 1e-12);
    ASSERT_NEAR(s.q_qps, 3 / 2.9e-3, 1e-6);
    /* population standard deviation of 0.5, 0.7, 0.6 = 0.0816 -> CoV 13.6 % */
    ASSERT_NEAR(s.q[LAT_TRT_COMPUTE].cov_pct, 100 * 0.08164965809 / 0.6, 1e-6);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);
}

TEST(trt_percentile_index_in_float)
{
    /* 10 queries: trtexec's (int)((1 - 0.9f) * 10) = 1, so p90 is the 9th value, not the max */
    char doc[4096];
    size_t o = (size_t)snprintf(doc, sizeof(doc), "[");
    for (int i = 0; i < 10; i++)
        o += (size_t)snprintf(doc + o, sizeof(doc) - o,
                              "%s{\"startEnqMs\": %d, \"endEnqMs\": %d, \"startH2dMs\": %d, "
                              "\"endH2dMs\": %d, \"startComputeMs\": %d, \"endComputeMs\": %d, "
                              "\"startD2hMs\": %d, \"endD2hMs\": %d, \"computeMs\": %d}",
                              i ? "," : "", 100 * i, 100 * i, 100 * i, 100 * i, 100 * i,
                              100 * i + i + 1, 100 * i + i + 1, 100 * i + i + 1, i + 1);
    snprintf(doc + o, sizeof(doc) - o, "]");
    struct lat_trace *t = load(doc, "ten.timing.json");
    struct lat_trt_summary s;
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_NEAR(s.q[LAT_TRT_COMPUTE].pct[0], 9.0, 1e-12);
    ASSERT_NEAR(s.q[LAT_TRT_COMPUTE].pct[2], 10.0, 1e-12);
    ASSERT_NEAR(s.q[LAT_TRT_COMPUTE].median, 5.5, 1e-12);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);
}

TEST(trt_engine_prefix_joins_profile_and_layer_info)
{
    char p[512];
    const char *dir = test_tmpdir();
    snprintf(p, sizeof(p), "%s/m.engine.profile.json", dir);
    FILE *f = fopen(p, "w");
    ASSERT(f && fputs(profile, f) >= 0 && fclose(f) == 0);
    snprintf(p, sizeof(p), "%s/m.engine.graph.json", dir);
    f = fopen(p, "w");
    ASSERT(f && fputs(graph, f) >= 0 && fclose(f) == 0);
    snprintf(p, sizeof(p), "%s/m.engine", dir);
    ASSERT(ingest_trt_engine_prefix(p));
    struct lat_ingest_set *set;
    char err[LAT_INGEST_ERRLEN];
    const char *paths[1] = {p};
    ASSERT_RC(ingest_paths(paths, 1, NULL, &set, err, sizeof(err)));
    ASSERT_EQ_U64(set->n, 1);
    ASSERT(set->files[0].trt_engine);
    struct lat_trace *t = set->files[0].trace;
    ASSERT(t != NULL);
    struct lat_trt_summary s;
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_EQ_U64(s.nlayers, 4); /* 3 profiled + the NoOp only the layer info has */
    ASSERT_EQ_U64(s.nprofiled, 3);
    ASSERT_EQ_U64(s.ninfo, 4);
    ASSERT_NEAR(s.layers_avg_sum_ms, 1.0, 1e-12);
    ASSERT_EQ_STR(s.layers[0].name, "conv");
    ASSERT_EQ_STR(s.layers[0].precision, "FP16");
    ASSERT_NEAR(s.layers[0].share_pct, 60.0, 1e-9);
    /* the copy is a reformat, the Q/DQ layer is not */
    ASSERT_EQ_U64(s.nreformat, 1);
    ASSERT_NEAR(s.reformat_pct, 10.0, 1e-9);
    ASSERT_EQ_U64(s.nqdq, 1);
    ASSERT_NEAR(s.qdq_pct, 30.0, 1e-9);
    /* precision by time: FP16 0.6 (conv), FP32 0.4 (the two FP32-input layers) */
    ASSERT_EQ_U64(s.nprecisions, 2);
    ASSERT_EQ_STR(s.precisions[0].name, "FP16");
    ASSERT_NEAR(s.precisions[1].avg_ms, 0.4, 1e-12);
    lat_trt_summary_fini(&s);
    ingest_set_free(set);
    /* the same directory: one engine entry */
    ASSERT_RC(ingest_dir(dir, NULL, &set, err, sizeof(err)));
    ASSERT_EQ_U64(set->n, 1);
    ASSERT(set->files[0].trt_engine && set->files[0].trace);
    ingest_set_free(set);
}

static const char log86[] =
    "&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=m.onnx\r\n"
    "[06/29/2023-08:24:55] [I] === Inference Options ===\n"
    "[06/29/2023-08:24:55] [I] Streams: 3\n"
    "[06/29/2023-08:24:55] [I] Duration: 3s (+ 200ms warm up)\n"
    "[06/29/2023-08:25:38] [W] [TRT] a warning\n"
    "[06/29/2023-08:25:38] [I] === Performance summary ===\n"
    "[06/29/2023-08:25:38] [I] Throughput: 1000.00 qps\n"
    "[06/29/2023-08:25:38] [I] Latency: min = 1.9 ms, max = 2.1 ms, mean = 2.0 ms, median = 2.0 "
    "ms, percentile(90%) = 2.05 ms, percentile(99%) = 2.08 ms\n"
    "[06/29/2023-08:25:38] [I] GPU Compute Time: min = 1.4 ms, max = 1.6 ms, mean = 1.5 ms, "
    "median = 1.45 ms, percentile(99%) = 1.55 ms\n"
    "[06/29/2023-08:25:38] [I] Total Host Walltime: 3.0 s";

static const char log7[] = "[11/02/2021-09:17:09] [I] Host Latency\n"
                           "[11/02/2021-09:17:09] [I] min: 0.6 ms (end to end 1.0 ms)\n"
                           "[11/02/2021-09:17:09] [I] median: 0.7 ms (end to end 1.2 ms)\n"
                           "[11/02/2021-09:17:09] [I] percentile: 0.8 ms at 99% (end to end "
                           "1.4 ms at 99%)\n"
                           "[11/02/2021-09:17:09] [I] throughput: 12 qps\n"
                           "[11/02/2021-09:17:09] [I] Enqueue Time\n"
                           "[11/02/2021-09:17:09] [I] median: 0.2 ms\n"
                           "[11/02/2021-09:17:09] [I] GPU Compute\n"
                           "[11/02/2021-09:17:09] [I] median: 0.5 ms\n"
                           "[11/02/2021-09:17:09] [I] total compute time: 2.96622 s\n"
                           "&&&& PASSED TensorRT.trtexec # trtexec --int8\n";

TEST(trt_log_summaries_both_layouts)
{
    struct lat_trace *t = load(log86, "run.log");
    ASSERT_EQ_STR(t->format, "tensorrt");
    struct lat_trt_summary s;
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT(s.summary_source != NULL);
    ASSERT(s.have_p_qps && s.p_qps == 1000.0);
    const struct lat_trt_printed *l = &s.p[LAT_TRT_LATENCY];
    ASSERT(l->have_min && l->have_median && l->npct == 2);
    ASSERT_NEAR(l->pct_at[0], 90, 0);
    ASSERT_NEAR(l->pct[1], 2.08, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_COMPUTE].median, 1.45, 1e-12);
    ASSERT(!s.p[LAT_TRT_ENQUEUE].have_median);
    ASSERT_EQ_I64(s.streams, 3);
    ASSERT_NEAR(s.warmup_ms, 200, 0);
    ASSERT_EQ_U64(s.nwarnings, 1);
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.log.warning.0"), "\"a warning\"");
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.command"), "\"trtexec --onnx=m.onnx\"");
    lat_trt_summary_fini(&s);
    lat_trace_free(t);

    t = load(log7, "old.log");
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_NEAR(s.p[LAT_TRT_LATENCY].min, 0.6, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_LATENCY].median, 0.7, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_E2E].median, 1.2, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_E2E].pct[0], 1.4, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_LATENCY].pct_at[0], 99, 0);
    ASSERT_NEAR(s.p[LAT_TRT_ENQUEUE].median, 0.2, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_COMPUTE].median, 0.5, 1e-12);
    ASSERT_NEAR(s.p_qps, 12, 0);
    ASSERT_NEAR(s.p_gpu_total_s, 2.96622, 1e-12);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);
}

/* --dumpProfile tables, the three layouts (hand-made on the layouts trtexec prints: TRT >= 8.5
 * numbers first, 8.0-8.4 name first with a median, 7 name first without one) */
static const char prof85[] =
    "[01/20/2024-20:25:39] [I] === Profile (290 iterations ) ===\n"
    "[01/20/2024-20:25:39] [I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer\n"
    "[01/20/2024-20:25:39] [I]       29.17       0.1006       0.0973       1.7   Reformatting "
    "CopyNode for Input Tensor 0 to a b\n"
    "[01/20/2024-20:25:39] [I]     1667.74       5.7508       5.7308      97.7   a b\n"
    "[01/20/2024-20:25:39] [I]     1696.91       5.8514       5.8281     100.0   Total\n"
    "[01/20/2024-20:25:39] [I] \n";
static const char prof82[] =
    "[10/21/2022-15:16:16] [I] === Profile (309 iterations ) ===\n"
    "[10/21/2022-15:16:16] [I]      Layer   Time (ms)   Avg. Time (ms)   Median Time (ms)   Time "
    "%\n"
    "[10/21/2022-15:16:16] [I]   conv 1       16.77           0.0543             0.0285     57.0\n"
    "[10/21/2022-15:16:16] [I]   conv 1       12.65           0.0409             0.0308     43.0\n"
    "[10/21/2022-15:16:16] [I]    Total       29.42           0.0952             0.0593    100.0\n";
static const char prof7[] = "=== Profile (3786 iterations ) ===\n"
                            "    Layer   Time (ms)   Avg. Time (ms)   Time %\n"
                            "   MatMul        5.56             0.00      0.2\n"
                            "     conv     2400.00             0.63     99.8\n"
                            "the table is cut here\n";

TEST(trt_log_dump_profile_layouts)
{
    struct lat_trace *t = load(prof85, "p.log");
    struct lat_trt_summary s;
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_EQ_I64(s.profile_count, 290);
    ASSERT_EQ_U64(s.nprofiled, 2);
    ASSERT_EQ_STR(s.layers[0].name, "a b"); /* by time */
    ASSERT_NEAR(s.layers[0].avg_ms, 5.7508, 1e-12);
    ASSERT_NEAR(s.layers[0].median_ms, 5.7308, 1e-12);
    ASSERT_NEAR(s.layers[0].time_ms, 1667.74, 1e-9);
    ASSERT_NEAR(s.layers[0].pct_file, 97.7, 1e-12);
    ASSERT(s.layers[1].reformat);
    ASSERT_EQ_I64(s.layers[1].index, 0);
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.profile.total_ms"), "\"1696.91\"");
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.inputs"), "\"log,profile\"");
    lat_trt_summary_fini(&s);
    lat_trace_free(t);

    /* name first; a repeated name is its own row */
    t = load(prof82, "p.log");
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_EQ_U64(s.nprofiled, 2);
    ASSERT_EQ_STR(s.layers[0].name, "conv 1");
    ASSERT_EQ_STR(s.layers[1].name, "conv 1 #1");
    ASSERT_NEAR(s.layers[1].median_ms, 0.0308, 1e-12);
    ASSERT_NEAR(s.layers[1].pct_file, 43.0, 1e-12);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);

    /* TRT 7: no median; the 2-decimal mean is time / count where it rounds to it; a cut table */
    ASSERT_EQ_STR(ingest_sniff(prof7, sizeof(prof7) - 1, "x.txt"), "trtexec-log");
    ASSERT_EQ_STR(ingest_sniff(prof85, sizeof(prof85) - 1, "x.txt"), "trtexec-log");
    t = load(prof7, "p.log");
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_EQ_U64(s.nprofiled, 2);
    ASSERT(!s.layers[0].has_median);
    ASSERT_NEAR(s.layers[0].avg_ms, 2400.0 / 3786, 1e-12);
    ASSERT_NEAR(s.layers[1].avg_ms, 5.56 / 3786, 1e-12);
    ASSERT(ingest_meta_get(t, "trt.profile.total_ms") == NULL);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);

    /* a row with a negative number ends the table: not a layer */
    static const char neg[] = "[d] [I] === Profile (2 iterations ) ===\n"
                              "[d] [I] Time(ms) Avg.(ms) Median(ms) Time(%) Layer\n"
                              "[d] [I] 1.0 0.5 0.5 100.0 ok\n"
                              "[d] [I] -1.0 0.5 0.5 100.0 bad\n";
    t = load(neg, "p.log");
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_EQ_U64(s.nprofiled, 1);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);
}

TEST(trt_sniff_names_formats)
{
    ASSERT_EQ_STR(ingest_sniff("[{\"count\": 1}]", 14, NULL), "trtexec-profile");
    ASSERT_EQ_STR(ingest_sniff("[ { \"startEnqMs\" : 1", 20, NULL), "trtexec-times");
    ASSERT_EQ_STR(ingest_sniff("{\"Layers\": [", 12, NULL), "trtexec-layers");
    ASSERT_EQ_STR(ingest_sniff("{\"performance_summary\": {", 25, NULL), "trex-metadata");
    ASSERT_EQ_STR(ingest_sniff(log7, sizeof(log7) - 1, "x.txt"), "trtexec-log");
    ASSERT_EQ_STR(ingest_sniff("", 0, "a.timing.json"), "trtexec-times");
    ASSERT_EQ_STR(ingest_sniff("", 0, "a.graph.json"), "trtexec-layers");
    ASSERT_EQ_STR(ingest_sniff("junk", 4, "a.profile.metadata.json"), "trex-metadata");
    /* a Kineto trace is still one */
    ASSERT_EQ_STR(ingest_sniff("{\"traceEvents\": []}", 19, "t.json"), "kineto");
}

TEST(trt_bad_inputs_name_the_format)
{
    char err[LAT_INGEST_ERRLEN];
    int rc = load_err(profile, 60, "p.profile.json", err, sizeof(err));
    ASSERT_EQ_I64(rc, LAT_E_TRUNCATED);
    ASSERT(strstr(err, "truncated trtexec --exportProfile JSON") &&
           strstr(err, "--exportProfile=FILE"));
    rc = load_err("", 0, "p.timing.json", err, sizeof(err));
    ASSERT(strstr(err, "empty file (0 bytes), expected trtexec --exportTimes JSON"));
    load_err("\x01\x02", 2, "g.graph.json", err, sizeof(err));
    ASSERT(strstr(err, "not valid trtexec --exportLayerInfo JSON"));
    load_err("[{\"count\": 1}, 5]", 17, "p.profile.json", err, sizeof(err));
    ASSERT(strstr(err, "element 1 is not an object"));
    const char *neg = "[{\"count\": 1}, {\"name\": \"a\", \"timeMs\": -1, \"averageMs\": 1}]";
    load_err(neg, strlen(neg), "p.profile.json", err, sizeof(err));
    ASSERT(strstr(err, "negative or impossible time"));
    const char *str = "[{\"count\": 1}, {\"name\": \"a\", \"timeMs\": \"x\"}]";
    load_err(str, strlen(str), "p.profile.json", err, sizeof(err));
    ASSERT(strstr(err, "no numeric timeMs"));
    load_err("{\"Layers\": 1}", 13, "g.graph.json", err, sizeof(err));
    ASSERT(strstr(err, "none of trtexec's exports"));
    load_err("&&&& RUNNING TensorRT.trtexec # x\n", 5, "l.log", err, sizeof(err));
    ASSERT(err[0]);
    /* a log with nothing latscope reads */
    load_err("[01/01/2026-00:00:00] [I] === Model Options ===\n", 48, "l.log", err, sizeof(err));
    ASSERT(strstr(err, "trtexec log without options"));
}

/* doctor: the rules on hand-made summaries (fire / not fire) */
static struct doc_report *doctor(const char *doc, const char *name)
{
    struct lat_trace *t = load(doc, name);
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    lat_trace_free(t);
    return r;
}

static bool has(const struct doc_report *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].id, id)) return true;
    return false;
}

static const char *summary_meta(double enq, double h2d, double comp, double d2h,
                                const char *streams)
{
    static char b[2048];
    snprintf(b, sizeof(b),
             "{\"performance_summary\": {\"Throughput\": 100, \"Latency\": [1, 2, 1.5, 1.5, "
             "1.9], \"Enqueue Time\": [%g, %g, %g, %g, %g], \"H2D Latency\": [%g, %g, %g, %g, "
             "%g], \"GPU Compute Time\": [%g, %g, %g, %g, %g], \"D2H Latency\": [%g, %g, %g, %g, "
             "%g]}, \"inference_options\": {\"Streams\": \"%s\", \"Data transfers\": "
             "\"Enabled\"}}",
             enq, enq, enq, enq, enq, h2d, h2d, h2d, h2d, h2d, comp, comp, comp, comp, comp, d2h,
             d2h, d2h, d2h, d2h, streams);
    return b;
}

TEST(trt_doctor_summary_rules_fire_and_not)
{
    /* enqueue 0.85 > 0.8 x 1.0: enqueue-bound; H2D 1.0 >= 1.0: H2D-bound; D2H 0.5: not */
    struct doc_report *r =
        doctor(summary_meta(0.85, 1.0, 1.0, 0.5, "1"), "a.profile.metadata.json");
    ASSERT(has(r, "trt-enqueue-bound"));
    ASSERT(has(r, "trt-h2d-bound"));
    ASSERT(!has(r, "trt-d2h-bound"));
    ASSERT(!has(r, "trt-multi-stream"));
    doctor_report_free(r);
    /* enqueue exactly 0.8 x compute: not (trtexec: strictly more) */
    r = doctor(summary_meta(0.8, 0.1, 1.0, 1.0, "4"), "b.profile.metadata.json");
    ASSERT(!has(r, "trt-enqueue-bound"));
    ASSERT(!has(r, "trt-h2d-bound"));
    ASSERT(has(r, "trt-d2h-bound"));
    ASSERT(has(r, "trt-multi-stream"));
    doctor_report_free(r);
}

TEST(trt_doctor_layer_rules_fire_and_not)
{
    /* the profile alone: conv is 60 % (dominant), the reformat copy 10 % (> 5 %), no FP32
     * rule without an FP16/INT8 layer or build precision, no inflation without a compute time */
    struct doc_report *r = doctor(profile, "p.profile.json");
    ASSERT(has(r, "trt-dominant-layer"));
    ASSERT(has(r, "trt-reformat-layers"));
    ASSERT(!has(r, "trt-fp32-layers"));
    ASSERT(!has(r, "trt-profile-inflation"));
    doctor_report_free(r);
}

/* ---- the shared corpus -------------------------------------------------------------------- */

TEST(trt_corpus_trex_engines_load)
{
    static const char *const eng[] = {
        "trt/trex/tests/inputs/mobilenet.qat.onnx.engine",
        "trt/trex/tests/inputs/mobilenet_v2_residuals.qat.onnx.engine",
        "trt/trex/examples/pytorch/resnet/A100/fp32/resnet.onnx.engine",
        "trt/trex/examples/pytorch/resnet/A100/qat/resnet-qat.onnx.engine"};
    static const size_t layers[] = {73, 58, 32, 37};
    for (size_t i = 0; i < sizeof(eng) / sizeof(eng[0]); i++) {
        char rel[256];
        snprintf(rel, sizeof(rel), "%s.profile.json", eng[i]);
        const char *p = test_shared_path(rel);
        char pre[1024];
        snprintf(pre, sizeof(pre), "%.*s", (int)(strlen(p) - 13), p);
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        ASSERT_RC(ingest_trt_engine_open(pre, NULL, &t, err, sizeof(err)));
        struct lat_trt_summary s;
        ASSERT_RC(lat_trt_summarize(t, &s));
        ASSERT_EQ_U64(s.nprofiled, layers[i]);
        ASSERT(s.summary_source != NULL);
        /* the per-layer shares are shares */
        double sum = 0;
        for (size_t k = 0; k < s.nlayers; k++) {
            ASSERT(s.layers[k].share_pct >= 0 && s.layers[k].share_pct <= 100);
            sum += s.layers[k].share_pct;
        }
        ASSERT_NEAR(sum, 100.0, 1e-6);
        /* where the queries are exported, their compute median is trtexec's */
        if (s.nq) ASSERT_NEAR(s.q[LAT_TRT_COMPUTE].median, s.p[LAT_TRT_COMPUTE].median, 1e-6);
        lat_trt_summary_fini(&s);
        lat_trace_free(t);
    }
}

TEST(trt_corpus_superbench_logs)
{
    const char *p = test_shared_path("trt/superbench/tensorrt_inference.2.log");
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_open(p, NULL, &t, err, sizeof(err)));
    struct lat_trt_summary s;
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_NEAR(s.p_qps, 1000.0, 0);
    ASSERT_NEAR(s.p[LAT_TRT_COMPUTE].median, 1.5, 1e-12);
    ASSERT_NEAR(s.p[LAT_TRT_D2H].pct[0], 0.03, 1e-12);
    ASSERT_NEAR(s.p_wall_s, 3.0, 0);
    lat_trt_summary_fini(&s);
    lat_trace_free(t);
    p = test_shared_path("trt/superbench/tensorrt_inference.1.log");
    ASSERT_RC(ingest_open(p, NULL, &t, err, sizeof(err)));
    ASSERT_RC(lat_trt_summarize(t, &s));
    ASSERT_NEAR(s.p[LAT_TRT_E2E].median, 1.0, 1e-12);
    ASSERT_NEAR(s.p_wall_s, 3.00142, 1e-12);
    ASSERT_EQ_STR(ingest_meta_get(t, "trt.status"), "\"PASSED\"");
    lat_trt_summary_fini(&s);
    lat_trace_free(t);
}
