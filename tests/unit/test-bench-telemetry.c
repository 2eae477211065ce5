/* test-bench-telemetry.c - GPU telemetry: DCGM exposition -> per-GPU samples and statistics,
 * Prometheus label values, the NVML loader's failure path (no driver here), and time slices
 * cut from hand-made records. */
#include "test.h"

#include "bench/slices.h"
#include "bench/telemetry.h"
#include "core/err.h"
#include "fixture/fixture.h"
#include "llm/prom.h"

#include <stdlib.h>
#include <string.h>

TEST(prom_key_label_values)
{
    char v[32];
    const char *k = "DCGM_FI_DEV_GPU_UTIL{gpu=\"3\",UUID=\"GPU-a\\\"b\",modelName=\"X\\\\Y\"}";
    ASSERT(prom_key_label(k, "gpu", v, sizeof(v)));
    ASSERT_EQ_STR(v, "3");
    ASSERT(prom_key_label(k, "UUID", v, sizeof(v)));
    ASSERT_EQ_STR(v, "GPU-a\"b");
    ASSERT(prom_key_label(k, "modelName", v, sizeof(v)));
    ASSERT_EQ_STR(v, "X\\Y");
    ASSERT(!prom_key_label(k, "gp", v, sizeof(v)));
    ASSERT(!prom_key_label("name", "gpu", v, sizeof(v)));
    ASSERT(!prom_key_label("name{gpu=\"1", "gpu", v, sizeof(v))); /* unterminated */
    char small[3];
    ASSERT(prom_key_label("n{gpu=\"12345\"}", "gpu", small, sizeof(small)));
    ASSERT_EQ_STR(small, "12"); /* cut, terminated */
}

/* The fixture's exposition (src/fixture/dcgm.c) of scrape 4, parsed as latscope parses a
 * scrape: two GPUs, every field, values by the fixture's formula. */
TEST(dcgm_fixture_exposition_to_samples)
{
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(fx_dcgm_exposition(4, &b));
    struct prom_set set = {0};
    unsigned long line = 0;
    ASSERT_RC(prom_parse(b.data, b.len, &set, &line));
    struct gpu_point p;
    memset(&p, 0, sizeof(p));
    size_t cap = 0;
    ASSERT_EQ_I64(gpu_from_prom(&set, 123, p.dev, &p.ndev, &p.s, &p.n, &cap), 2);
    ASSERT_EQ_U64(p.ndev, 2);
    ASSERT_EQ_U64(p.n, 2);
    ASSERT_EQ_STR(p.dev[1].id, "1");
    ASSERT_EQ_STR(p.dev[0].model, "NVIDIA H100 80GB HBM3");
    ASSERT_NEAR(p.s[0].v[GPU_F_UTIL], (17 * 4) % 101, 0);
    ASSERT_NEAR(p.s[1].v[GPU_F_UTIL], (17 * 4 + 31) % 101, 0);
    ASSERT_NEAR(p.s[1].v[GPU_F_POWER], 150.25 + 3.5 * 4 + 10, 1e-9);
    ASSERT_NEAR(p.s[0].v[GPU_F_FB_USED], 20400, 0);
    ASSERT(!(p.s[0].have & (1u << GPU_F_GR_ACTIVE)));
    /* a second scrape of the same GPUs adds samples, not devices */
    ASSERT_EQ_I64(gpu_from_prom(&set, 456, p.dev, &p.ndev, &p.s, &p.n, &cap), 2);
    ASSERT_EQ_U64(p.ndev, 2);
    ASSERT_EQ_U64(p.n, 4);
    gpu_point_stats(&p, 0, 0, p.st);
    ASSERT_EQ_U64(p.st[0].f[GPU_F_UTIL].n, 2);
    ASSERT_NEAR(p.st[0].f[GPU_F_UTIL].mean, 68, 0);
    /* a window holding only the second scrape */
    struct gpu_dev_stats w[2];
    gpu_point_stats(&p, 400, 500, w);
    ASSERT_EQ_U64(w[1].f[GPU_F_POWER].n, 1);
    free(p.s);
    prom_set_fini(&set);
    buf_fini(&b);
}

TEST(dcgm_mig_and_unlabelled_series)
{
    static const char text[] = "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",GPU_I_ID=\"2\"} 10\n"
                               "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",GPU_I_ID=\"3\"} 20\n"
                               "DCGM_FI_DEV_POWER_USAGE 99.5\n"
                               "other_metric{gpu=\"0\"} 5\n";
    struct prom_set set = {0};
    unsigned long line = 0;
    ASSERT_RC(prom_parse(text, strlen(text), &set, &line));
    struct gpu_point p;
    memset(&p, 0, sizeof(p));
    size_t cap = 0;
    ASSERT_EQ_I64(gpu_from_prom(&set, 1, p.dev, &p.ndev, &p.s, &p.n, &cap), 3);
    ASSERT_EQ_U64(p.ndev, 3); /* 0/2, 0/3, and "0" (no labels) */
    free(p.s);
    prom_set_fini(&set);
    /* no DCGM series at all */
    static const char none[] = "vllm:num_requests_running 3\n";
    ASSERT_RC(prom_parse(none, strlen(none), &set, &line));
    memset(&p, 0, sizeof(p));
    ASSERT_EQ_I64(gpu_from_prom(&set, 1, p.dev, &p.ndev, &p.s, &p.n, &cap), 0);
    free(p.s);
    prom_set_fini(&set);
}

/* No GPU driver on the test machines: the loader says which library it could not load. */
TEST(nvml_open_failure_says_why)
{
    struct gpu_nvml *g = (struct gpu_nvml *)1;
    char why[512] = "";
    int rc = gpu_nvml_open("/nonexistent/libnvidia-ml.so.1", &g, why, sizeof(why));
    ASSERT_EQ_I64(rc, LAT_E_NO_DRIVER);
    ASSERT(g == NULL);
    ASSERT(strstr(why, "/nonexistent/libnvidia-ml.so.1") != NULL);
    ASSERT(strstr(why, "no NVIDIA driver") != NULL);
    /* a library that is not NVML */
    why[0] = '\0';
    rc = gpu_nvml_open("libc.so.6", &g, why, sizeof(why));
    ASSERT_EQ_I64(rc, LAT_E_UNSUPPORTED);
    ASSERT(strstr(why, "nvmlInit_v2") != NULL);
}

/* The sampler with NVML unavailable: started without error, points say why. */
TEST(telemetry_nvml_unavailable_point)
{
    setenv("LATSCOPE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    struct gpu_telem g;
    char why[256];
    ASSERT_RC(gpu_telem_config(&g, NULL, "nvml", NULL, why, sizeof(why)));
    ASSERT_EQ_I64(g.mode, GPU_TELEM_NVML);
    ASSERT_RC(gpu_telem_start(&g, why, sizeof(why)));
    ASSERT(!g.available);
    ASSERT(strstr(g.unavailable_why, "/nonexistent/libnvidia-ml.so.1") != NULL);
    gpu_telem_point_begin(&g);
    struct gpu_point *p = gpu_telem_point_end(&g);
    ASSERT(p != NULL);
    ASSERT(!p->available);
    ASSERT_EQ_STR(p->source, "nvml");
    ASSERT_EQ_U64(p->n, 0);
    gpu_point_free(p);
    gpu_telem_stop(&g);
    unsetenv("LATSCOPE_NVML_LIB");
}

TEST(telemetry_args)
{
    char why[256];
    struct gpu_telem g;
    ASSERT_RC(gpu_telem_config(&g, "http://h:9400/metrics", NULL, "50ms", why, sizeof(why)));
    ASSERT_EQ_I64(g.mode, GPU_TELEM_DCGM);
    ASSERT_EQ_I64(g.interval_ns, 50 * LAT_NS_PER_MS);
    /* an interval without a source */
    ASSERT_EQ_I64(gpu_telem_config(&g, NULL, NULL, "1s", why, sizeof(why)), LAT_E_USAGE);
    ASSERT_RC(gpu_telem_config(&g, NULL, "dcgm", NULL, why, sizeof(why)));
    ASSERT_EQ_I64(g.mode, GPU_TELEM_DCGM);
    ASSERT_EQ_STR(g.url, "http://localhost:9400/metrics");
    ASSERT_EQ_I64(gpu_telem_config(&g, "http://h/", "nvml", NULL, why, sizeof(why)), LAT_E_USAGE);
    ASSERT_EQ_I64(gpu_telem_config(&g, NULL, "cuda", NULL, why, sizeof(why)), LAT_E_USAGE);
    ASSERT_EQ_I64(gpu_telem_config(&g, "http://h/", NULL, "0.1ms", why, sizeof(why)), LAT_E_USAGE);
    lat_ns w = 0;
    ASSERT_RC(bench_slices_parse("250ms", &w, why, sizeof(why)));
    ASSERT_EQ_I64(w, 250 * LAT_NS_PER_MS);
    ASSERT_EQ_I64(bench_slices_parse("0.5ms", &w, why, sizeof(why)), LAT_E_USAGE);
    ASSERT_EQ_I64(bench_slices_parse("x", &w, why, sizeof(why)), LAT_E_USAGE);
}

/* Slices from hand-made records: a 1 s window cut in 250 ms slices, counts by end time,
 * nearest-rank percentiles per slice, the tail past the window in the last slice. */
TEST(slices_from_records)
{
    struct bench_result r;
    memset(&r, 0, sizeof(r));
    const lat_ns ms = LAT_NS_PER_MS, base = 1000 * ms;
    struct bench_record rec[12];
    size_t n = 0;
    /* slice 0: latencies 1..4 ms; slice 1: one error; slice 3: 10 ms and a tail at 1002 ms */
    for (int i = 1; i <= 4; i++)
        rec[n++] = (struct bench_record){
            base + 10 * ms, base + 10 * ms, 0, base + (10 + i) * ms, 0, 200, -1, 0};
    rec[n++] = (struct bench_record){base + 300 * ms, 0, 0, base + 301 * ms, 0, 500, 4, 0};
    rec[n++] = (struct bench_record){base + 800 * ms, 0, 0, base + 810 * ms, 0, 200, -1, 0};
    rec[n++] = (struct bench_record){base + 990 * ms, 0, 0, base + 1002 * ms, 0, 200, -1, 0};
    rec[n++] = (struct bench_record){base + 995 * ms,       0, 0, base + 999 * ms, 0, 0,
                                     BENCH_REC_INTERRUPTED, 0};
    r.records = rec;
    r.nrecords = n;
    r.ok = 6;
    r.errors_total = 1;
    r.t_first_sched = base + 10 * ms;
    r.window_start_ns = base;
    r.have_window = true;
    r.duration_s = 1.0;
    struct bench_load l = {.concurrency = 1, .duration_ns = LAT_NS_PER_S};
    struct bench_slices *s = bench_slices_point(250 * ms, &l, &r, NULL);
    ASSERT(s != NULL);
    ASSERT_EQ_U64(s->n, 4);
    ASSERT(s->complete);
    ASSERT_EQ_U64(s->s[0].ok, 4);
    ASSERT_EQ_I64(s->s[0].p50, 2 * ms);
    ASSERT_EQ_I64(s->s[0].p90, 4 * ms);
    ASSERT_EQ_I64(s->s[0].max, 4 * ms);
    ASSERT_NEAR(s->s[0].rps, 16, 1e-9);
    ASSERT_EQ_U64(s->s[1].ok, 0);
    ASSERT_EQ_U64(s->s[1].errors, 1);
    ASSERT_EQ_I64(s->s[1].p50, -1);
    ASSERT_EQ_U64(s->s[2].ok, 0);
    ASSERT_EQ_U64(s->s[3].ok, 2); /* 810 ms and the tail at 1002 ms */
    ASSERT_EQ_I64(s->s[3].p99, 12 * ms);
    ASSERT_EQ_I64(s->s[3].t_end, base + 1002 * ms);
    ASSERT_EQ_I64(s->base - s->records_base, -10 * ms);
    bench_slices_free(s);
    ASSERT(bench_slices_point(0, &l, &r, NULL) == NULL);
    /* a record lost (the point counted one more error than recorded): not complete */
    r.errors_total = 2;
    s = bench_slices_point(250 * ms, &l, &r, NULL);
    ASSERT(s && !s->complete);
    bench_slices_free(s);
}
