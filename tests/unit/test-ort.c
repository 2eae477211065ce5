/*
 * test-ort.c - the ONNX Runtime profile reader (ingest/ort.c) and analyze's ORT section
 * (analyze/ort.c) on a hand-made profile: written in end-time order as ORT does, with ORT <= 1.20
 * fences, string-valued args, two runs (the second with nodes on a second thread) and a node
 * outside any run.
 */
#include "analyze/ort.h"
#include "core/err.h"
#include "ingest/ingest.h"
#include "test.h"

#include <string.h>

/* run 0: [100, 1100) µs, nodes a (Conv, 200..500) and b (Relu, 600..700) with fences;
 * run 1: [2000, 2500) µs, node a (Conv, 2100..2400) on tid 8;
 * a stray node c (Add) at 5000 outside the runs. End-time order, as ORT writes. */
static const char prof[] =
    "[\n"
    "{\"cat\" : \"Session\",\"pid\" :7,\"tid\" :7,\"dur\" :40,\"ts\" :1,\"ph\" : \"X\",\"name\" "
    ":\"model_loading_uri\",\"args\" : {}},\n"
    "{\"cat\" : \"Session\",\"pid\" :7,\"tid\" :7,\"dur\" :50,\"ts\" :45,\"ph\" : \"X\","
    "\"name\" :\"session_initialization\",\"args\" : {}},\n"
    "{\"cat\" : \"Node\",\"pid\" :7,\"tid\" :7,\"dur\" :0,\"ts\" :199,\"ph\" : \"X\",\"name\" "
    ":\"a_fence_before\",\"args\" : {\"op_name\" : \"Conv\"}},\n"
    "{\"cat\" : \"Node\",\"pid\" :7,\"tid\" :7,\"dur\" :300,\"ts\" :200,\"ph\" : \"X\",\"name\" "
    ":\"a_kernel_time\",\"args\" : {\"op_name\" : \"Conv\",\"provider\" : "
    "\"CPUExecutionProvider\",\"node_index\" : \"3\",\"thread_scheduling_stats\" : \"\"}},\n"
    "{\"cat\" : \"Node\",\"pid\" :7,\"tid\" :7,\"dur\" :0,\"ts\" :501,\"ph\" : \"X\",\"name\" "
    ":\"a_fence_after\",\"args\" : {\"op_name\" : \"Conv\"}},\n"
    "{\"cat\" : \"Node\",\"pid\" :7,\"tid\" :7,\"dur\" :100,\"ts\" :600,\"ph\" : \"X\",\"name\" "
    ":\"b_kernel_time\",\"args\" : {\"op_name\" : \"Relu\",\"provider\" : "
    "\"CPUExecutionProvider\"}},\n"
    "{\"cat\" : \"Session\",\"pid\" :7,\"tid\" :7,\"dur\" :900,\"ts\" :150,\"ph\" : \"X\","
    "\"name\" :\"SequentialExecutor::Execute\",\"args\" : {}},\n"
    "{\"cat\" : \"Session\",\"pid\" :7,\"tid\" :7,\"dur\" :1000,\"ts\" :100,\"ph\" : \"X\","
    "\"name\" :\"model_run\",\"args\" : {}},\n"
    "{\"cat\" : \"Node\",\"pid\" :7,\"tid\" :8,\"dur\" :300,\"ts\" :2100,\"ph\" : \"X\",\"name\" "
    ":\"a_kernel_time\",\"args\" : {\"op_name\" : \"Conv\",\"provider\" : "
    "\"CPUExecutionProvider\"}},\n"
    "{\"cat\" : \"Session\",\"pid\" :7,\"tid\" :7,\"dur\" :500,\"ts\" :2000,\"ph\" : \"X\","
    "\"name\" :\"model_run\",\"args\" : {}},\n"
    "{\"cat\" : \"Node\",\"pid\" :7,\"tid\" :7,\"dur\" :10,\"ts\" :5000,\"ph\" : \"X\",\"name\" "
    ":\"c_kernel_time\",\"args\" : {\"op_name\" : \"Add\",\"provider\" : "
    "\"CPUExecutionProvider\"}}\n"
    "]\n";

static const char *name_of(const struct lat_trace *t, size_t i)
{
    return lat_trace_str(t, t->ev.name[i]);
}

TEST(ort_reader_maps_nodes_runs_fences)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(prof, sizeof(prof) - 1, "p.json", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "ort");
    ASSERT_EQ_U64(t->ev.n, 9); /* 11 events, 2 fences folded */
    ASSERT_EQ_STR(ingest_meta_get(t, "ort_fence_events_folded"), "2");
    int32_t runs = 0;
    size_t nodes = 0, tid8 = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (i) ASSERT(t->ev.ts[i - 1] <= t->ev.ts[i]); /* sorted by ts, not end time */
        const char *n = name_of(t, i);
        ASSERT(strstr(n, "_fence_") == NULL);
        if (!strcmp(n, "model_run")) {
            ASSERT(t->ev.flags[i] & LAT_EVF_STEP);
            ASSERT_EQ_I64(t->ev.step[i], runs);
            ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_USER_ANNOTATION);
            runs++;
        } else if (!strcmp(lat_trace_str(t, t->ev.cat[i]), "Node")) {
            ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_CPU_OP);
            ASSERT(strstr(n, "_kernel_time") == NULL); /* named after the node */
            nodes++;
            if (t->tracks[t->ev.track[i]].tid == 8) tid8++;
        } else {
            ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_USER_ANNOTATION);
            ASSERT(!(t->ev.flags[i] & LAT_EVF_STEP));
        }
    }
    ASSERT_EQ_I64(runs, 2);
    ASSERT_EQ_U64(nodes, 4);
    ASSERT_EQ_U64(tid8, 1);
    /* args kept: string-valued node_index reads as an integer */
    for (size_t i = 0; i < t->ev.n; i++) {
        int64_t v;
        if (!strcmp(name_of(t, i), "a") && t->ev.ts[i] == 200 * 1000) {
            ASSERT(lat_trace_arg_int(t, i, "node_index", &v));
            ASSERT_EQ_I64(v, 3);
            ASSERT_EQ_STR(lat_trace_str(t, lat_trace_arg(t, i, "provider")->str),
                          "CPUExecutionProvider");
        }
    }
    lat_trace_free(t);
}

TEST(ort_summary_numbers)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(prof, sizeof(prof) - 1, "p.json", NULL, &t, err, sizeof(err)));
    struct lat_ort_summary s;
    ASSERT_RC(lat_ort_summarize(t, 0, &s));
    ASSERT_EQ_U64(s.runs, 2);
    ASSERT_EQ_I64(s.run_total, 1500 * 1000);
    ASSERT_EQ_I64(s.run_first, 1000 * 1000);
    ASSERT_EQ_I64(s.run_p50, 500 * 1000); /* nearest rank of {500, 1000} */
    ASSERT_EQ_I64(s.run_p90, 1000 * 1000);
    ASSERT_EQ_I64(s.run_max, 1000 * 1000);
    ASSERT_NEAR(s.run_steady_mean_ns, 500e3, 1e-6);
    ASSERT_EQ_I64(s.init, 50 * 1000);
    ASSERT_EQ_I64(s.load, 40 * 1000);
    ASSERT_EQ_U64(s.nodes_outside_runs, 1);
    ASSERT_EQ_I64(s.node_total, 700 * 1000); /* a 300 + b 100 + a 300; c is outside */
    /* run 0: 1000 - 400 covered; run 1: 500 - 300 */
    ASSERT_EQ_I64(s.uncovered, 800 * 1000);
    ASSERT_EQ_I64(s.first_uncovered, 600 * 1000);
    ASSERT_NEAR(s.uncovered_pct, 100.0 * 800 / 1500, 1e-9);
    ASSERT_EQ_U64(s.op_types_total, 3);
    ASSERT_EQ_STR(s.op_types[0].name, "Conv");
    ASSERT_EQ_U64(s.op_types[0].calls, 2);
    ASSERT_EQ_I64(s.op_types[0].total, 600 * 1000);
    ASSERT_NEAR(s.op_types[0].pct, 40.0, 1e-9); /* of the 1500 µs of runs */
    ASSERT_EQ_STR(s.nodes[0].name, "a");
    ASSERT_EQ_STR(s.nodes[0].op, "Conv");
    ASSERT_EQ_STR(s.nodes[0].provider, "CPUExecutionProvider");
    ASSERT_EQ_U64(s.nproviders, 1);
    ASSERT_EQ_U64(s.providers[0].calls, 4);
    lat_ort_summary_fini(&s);
    lat_trace_free(t);
}

TEST(ort_empty_profile_error)
{
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem("", 0, "m_2026-12-01_08-46-58_358.json", NULL, &t, err, sizeof(err));
    ASSERT_EQ_I64(rc, LAT_E_NOT_TRACE);
    ASSERT(t == NULL);
    ASSERT(strstr(err, "m_2026-12-01_08-46-58_358.json: empty ONNX Runtime profile (0 bytes)"));
    ASSERT(strstr(err, "end_profiling"));
    /* truncated: the JSON reader's error, no trace */
    rc = ingest_mem(prof, 200, "p.json", NULL, &t, err, sizeof(err));
    ASSERT(rc < 0);
    ASSERT(t == NULL);
    ASSERT(strstr(err, "truncated"));
}

TEST(ort_small_first_chunk_still_mapped)
{
    /* a first chunk too short for the sniff to see "cat": the JSON row maps it the same */
    struct lat_ingest_opts o = {.chunk_bytes = 7};
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(prof, sizeof(prof) - 1, "p.json", &o, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "ort");
    ASSERT_EQ_U64(t->ev.n, 9);
    for (size_t i = 1; i < t->ev.n; i++)
        ASSERT(t->ev.ts[i - 1] <= t->ev.ts[i]);
    ASSERT_EQ_STR(ingest_meta_get(t, "ort_fence_events_folded"), "2");
    lat_trace_free(t);
}
