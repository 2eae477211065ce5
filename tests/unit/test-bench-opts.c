/* test-bench-opts.c - bench option values (sweeps, arrival, warmup, inputs) and KServe helpers. */
#include "test.h"

#include "bench/kserve.h"
#include "bench/opts.h"
#include "core/err.h"
#include "json/tok.h"

static double sw[BENCH_SWEEP_MAX];

static size_t sweep(const char *s, bool integer)
{
    size_t n = 0;
    const char *why = NULL;
    int rc = bench_parse_sweep(s, integer, sw, &n, &why);
    if (rc < 0) return (size_t)-1;
    return n;
}

TEST(bench_sweep_forms)
{
    ASSERT_EQ_U64(sweep("8", true), 1);
    ASSERT_EQ_I64(sw[0], 8);
    ASSERT_EQ_U64(sweep("1,2,4,8", true), 4);
    ASSERT_EQ_I64(sw[3], 8);
    ASSERT_EQ_U64(sweep("1:64:x2", true), 7);
    ASSERT_EQ_I64(sw[0], 1);
    ASSERT_EQ_I64(sw[6], 64);
    ASSERT_EQ_U64(sweep("1:60:x2", true), 6); /* 1..32, 64 is past the end */
    ASSERT_EQ_U64(sweep("10:200:10", false), 20);
    ASSERT_NEAR(sw[19], 200, 1e-9);
    ASSERT_EQ_U64(sweep("0.5:2:0.5", false), 4);
    ASSERT_NEAR(sw[3], 2.0, 1e-9);
    ASSERT_EQ_U64(sweep("2:10:3", true), 3); /* 2, 5, 8 */
    ASSERT_EQ_I64(sw[2], 8);
}

TEST(bench_sweep_errors)
{
    const char *bad[] = {"",        "0",     "-1",     "1,,2",    "a",        "1:2",
                         "1:2:3:4", "5:1:1", "1:8:x1", "1:8:0",   "1:8:x0.5", "1.5",
                         "1,2:3:1", "nan",   "inf",    "1:2e9:1", "1e7"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (sweep(bad[i], true) != (size_t)-1) FAIL("sweep '%s' should be rejected", bad[i]);
    }
    ASSERT_EQ_U64(sweep("1.5", false), 1);
}

TEST(bench_arrival_warmup_status)
{
    enum bench_arrival a;
    double k;
    const char *why;
    ASSERT_RC(bench_parse_arrival("poisson", &a, &k, &why));
    ASSERT_EQ_I64(a, BENCH_ARRIVAL_POISSON);
    ASSERT_RC(bench_parse_arrival("gamma:0.5", &a, &k, &why));
    ASSERT_EQ_I64(a, BENCH_ARRIVAL_GAMMA);
    ASSERT_NEAR(k, 0.5, 1e-12);
    ASSERT_RC(bench_parse_arrival("gamma", &a, &k, &why));
    ASSERT_NEAR(k, 1.0, 1e-12);
    ASSERT_EQ_I64(bench_parse_arrival("gamma:0", &a, &k, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(bench_parse_arrival("gamma:x", &a, &k, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(bench_parse_arrival("uniform", &a, &k, &why), LAT_E_USAGE);

    lat_ns ns;
    uint64_t cnt;
    ASSERT_RC(bench_parse_warmup("2s", &ns, &cnt, &why));
    ASSERT_EQ_I64(ns, 2 * LAT_NS_PER_S);
    ASSERT_EQ_U64(cnt, 0);
    ASSERT_RC(bench_parse_warmup("150", &ns, &cnt, &why));
    ASSERT_EQ_I64(ns, 0);
    ASSERT_EQ_U64(cnt, 150);
    ASSERT_EQ_I64(bench_parse_warmup("abc", &ns, &cnt, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(bench_parse_warmup("", &ns, &cnt, &why), LAT_E_USAGE);

    int cls;
    ASSERT_RC(bench_parse_expect_status("2xx", &cls, &why));
    ASSERT_EQ_I64(cls, 2);
    ASSERT_RC(bench_parse_expect_status("any", &cls, &why));
    ASSERT_EQ_I64(cls, 0);
    ASSERT_EQ_I64(bench_parse_expect_status("200", &cls, &why), LAT_E_USAGE);
}

TEST(bench_input_parse)
{
    struct bench_input in;
    const char *why;
    ASSERT_RC(bench_parse_input("x:1x3x224x224:fp32", &in, &why));
    ASSERT_EQ_STR(in.name, "x");
    ASSERT_EQ_STR(in.datatype, "FP32");
    ASSERT_EQ_I64(in.ndims, 4);
    ASSERT_EQ_I64(in.shape[3], 224);
    ASSERT_EQ_I64(in.fill, BENCH_FILL_RANDOM);
    ASSERT_RC(bench_parse_input("ids:-1,16:INT64:zeros", &in, &why));
    ASSERT_EQ_I64(in.shape[0], -1);
    ASSERT_EQ_I64(in.fill, BENCH_FILL_ZEROS);
    ASSERT_RC(bench_parse_input("t:4:BYTES:@/tmp/x.json", &in, &why));
    ASSERT_EQ_I64(in.fill, BENCH_FILL_FILE);
    ASSERT_EQ_STR(in.file, "/tmp/x.json");
    const char *bad[] = {"x",          "x:1",           ":1:FP32",
                         "x:1:FLOAT",  "x::FP32",       "x:0:FP32",
                         "x:1y2:FP32", "x:1:FP32:ones", "x:1x2x3x4x5x6x7x8x9:FP32",
                         "x:-2:FP32",  "x:1:FP32:@"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (bench_parse_input(bad[i], &in, &why) != LAT_E_USAGE)
            FAIL("input '%s' should be rejected", bad[i]);
}

TEST(kserve_body_and_paths)
{
    struct bench_input in[2];
    const char *why;
    char err[256] = "";
    ASSERT_RC(bench_parse_input("a:-1x3:FP32", &in[0], &why));
    ASSERT_RC(bench_parse_input("b:2:INT32:zeros", &in[1], &why));
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(kserve_build_body(&b, in, 2, 4, 7, err, sizeof(err)));
    uint64_t off = 0;
    char msg[64];
    ASSERT_RC(json_validate(b.data, b.len, 0, &off, msg, sizeof(msg)));
    size_t cnt = 0;
    ASSERT_RC(json_get_count(b.data, b.len, "inputs/0/data", &cnt));
    ASSERT_EQ_U64(cnt, 12); /* batch 4 x 3 */
    int64_t v;
    ASSERT_RC(json_get_i64(b.data, b.len, "inputs/0/shape/0", &v));
    ASSERT_EQ_I64(v, 4);
    ASSERT_RC(json_get_i64(b.data, b.len, "inputs/1/data/1", &v));
    ASSERT_EQ_I64(v, 0);
    /* Same seed, same bytes; another seed, other bytes. */
    struct lat_buf b2 = LAT_BUF_INIT, b3 = LAT_BUF_INIT;
    ASSERT_RC(kserve_build_body(&b2, in, 2, 4, 7, err, sizeof(err)));
    ASSERT_RC(kserve_build_body(&b3, in, 2, 4, 8, err, sizeof(err)));
    ASSERT_EQ_STR(b.data, b2.data);
    ASSERT(strcmp(b.data, b3.data) != 0);
    buf_fini(&b);
    buf_fini(&b2);
    buf_fini(&b3);

    char m[64], ver[16];
    ASSERT_RC(
        kserve_path_model("/v2/models/resnet/versions/3/infer", m, sizeof(m), ver, sizeof(ver)));
    ASSERT_EQ_STR(m, "resnet");
    ASSERT_EQ_STR(ver, "3");
    ASSERT_RC(kserve_path_model("/v2/models/bert", m, sizeof(m), ver, sizeof(ver)));
    ASSERT_EQ_STR(m, "bert");
    ASSERT_EQ_STR(ver, "");
    ASSERT_EQ_I64(kserve_path_model("/v1/models/x", m, sizeof(m), ver, sizeof(ver)),
                  LAT_E_NOT_FOUND);
}

TEST(kserve_metadata_and_stats)
{
    const char *meta = "{\"name\":\"simple\",\"versions\":[\"1\"],\"platform\":\"x\","
                       "\"inputs\":[{\"name\":\"INPUT0\",\"datatype\":\"INT32\",\"shape\":[-1,16]},"
                       "{\"name\":\"INPUT1\",\"datatype\":\"FP32\",\"shape\":[1,2]}],"
                       "\"outputs\":[{\"name\":\"OUT\",\"datatype\":\"INT32\",\"shape\":[-1]}]}";
    struct bench_input in[KSERVE_MAX_INPUTS];
    size_t n = 0;
    char err[256] = "";
    ASSERT_RC(kserve_parse_metadata(meta, strlen(meta), in, &n, err, sizeof(err)));
    ASSERT_EQ_U64(n, 2);
    ASSERT_EQ_STR(in[0].name, "INPUT0");
    ASSERT_EQ_STR(in[1].datatype, "FP32");
    ASSERT_EQ_I64(in[0].shape[0], -1);
    ASSERT_EQ_I64(in[0].shape[1], 16);
    const char *bad = "{\"inputs\":[{\"name\":\"a\",\"datatype\":\"NOPE\",\"shape\":[1]}]}";
    ASSERT(kserve_parse_metadata(bad, strlen(bad), in, &n, err, sizeof(err)) < 0);
    ASSERT(strstr(err, "datatype") != NULL);
    ASSERT(kserve_parse_metadata("{}", 2, in, &n, err, sizeof(err)) < 0);

    const char *stats =
        "{\"model_stats\":[{\"name\":\"m\",\"version\":\"1\",\"inference_stats\":{"
        "\"success\":{\"count\":10,\"ns\":1000},\"queue\":{\"count\":10,\"ns\":300},"
        "\"compute_input\":{\"count\":10,\"ns\":50},\"compute_infer\":{\"count\":10,\"ns\":600},"
        "\"compute_output\":{\"count\":10,\"ns\":40}}},"
        "{\"name\":\"m\",\"version\":\"2\",\"inference_stats\":{"
        "\"success\":{\"count\":5,\"ns\":500},\"queue\":{\"count\":5,\"ns\":100}}}]}";
    struct triton_counts tc;
    ASSERT_RC(triton_parse_stats(stats, strlen(stats), NULL, &tc));
    ASSERT_EQ_U64(tc.success_count, 15);
    ASSERT_EQ_U64(tc.queue_ns, 400);
    ASSERT_EQ_U64(tc.compute_infer_ns, 600);
    ASSERT_RC(triton_parse_stats(stats, strlen(stats), "2", &tc));
    ASSERT_EQ_U64(tc.success_count, 5);
    ASSERT_EQ_U64(tc.compute_infer_ns, 0);
    ASSERT_EQ_I64(triton_parse_stats(stats, strlen(stats), "9", &tc), LAT_E_NOT_FOUND);
    ASSERT(triton_parse_stats("{\"x\":1}", 7, NULL, &tc) < 0);
}
