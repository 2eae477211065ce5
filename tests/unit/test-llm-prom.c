/* test-llm-prom.c - Prometheus text exposition parser and the known LLM server series. */
#include "test.h"

#include "core/err.h"
#include "llm/prom.h"

#include <math.h>

static const char vllm_text[] =
    "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
    "# TYPE vllm:num_requests_running gauge\n"
    "vllm:num_requests_running{model_name=\"m\"} 3.0\n"
    "# TYPE vllm:num_preemptions_total counter\n"
    "vllm:num_preemptions_total{model_name=\"m\"} 7\n"
    "# TYPE vllm:e2e_request_latency_seconds histogram\n"
    "vllm:e2e_request_latency_seconds_bucket{le=\"0.5\",model_name=\"m\"} 4\r\n"
    "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 9\n"
    "vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} 12.5 1700000000000\n"
    "\n"
    "  # a comment\n"
    "odd{path=\"a\\\\b\\\"c\\n\",} +Inf\n"
    "nolabels -1.5e3\n"
    "nan_metric NaN\n"
    "split{a=\"1\"} 1\n"
    "split{a=\"2\"} 2\n";

TEST(prom_parse_vllm_exposition)
{
    struct prom_set s = {0};
    unsigned long line = 0;
    ASSERT_RC(prom_parse(vllm_text, strlen(vllm_text), &s, &line));
    ASSERT_EQ_U64(s.n, 10);
    double v;
    ASSERT(prom_get(&s, "vllm:num_requests_running", &v));
    ASSERT_NEAR(v, 3, 0);
    ASSERT(prom_get(&s, "vllm:num_preemptions_total{model_name=\"m\"}", &v));
    ASSERT_NEAR(v, 7, 0);
    ASSERT(prom_get(&s, "vllm:e2e_request_latency_seconds_sum", &v));
    ASSERT_NEAR(v, 12.5, 0); /* the timestamp is ignored */
    ASSERT(prom_get(&s, "nolabels", &v));
    ASSERT_NEAR(v, -1500, 0);
    ASSERT(prom_get(&s, "odd", &v));
    ASSERT(isinf(v) && v > 0);
    ASSERT(prom_get(&s, "nan_metric", &v));
    ASSERT(isnan(v));
    ASSERT(prom_get(&s, "split", &v)); /* a bare name sums its label sets */
    ASSERT_NEAR(v, 3, 0);
    ASSERT(!prom_get(&s, "absent", &v));
    /* types from # TYPE, histogram parts included */
    for (size_t i = 0; i < s.n; i++) {
        if (!strncmp(s.s[i].key, "vllm:num_requests_running", 25))
            ASSERT_EQ_I64(s.s[i].type, PROM_GAUGE);
        if (!strncmp(s.s[i].key, "vllm:num_preemptions_total", 26))
            ASSERT_EQ_I64(s.s[i].type, PROM_COUNTER);
        if (!strncmp(s.s[i].key, "vllm:e2e_request_latency_seconds_bucket", 39))
            ASSERT_EQ_I64(s.s[i].type, PROM_HISTOGRAM);
        if (!strcmp(s.s[i].key, "nolabels")) ASSERT_EQ_I64(s.s[i].type, PROM_UNTYPED);
    }
    prom_set_fini(&s);
}

TEST(prom_parse_rejects_malformed_lines)
{
    const char *bad[] = {"1abc 2\n",      "m{a=1} 2\n",       "m{a=\"x} 2\n",    "m{a=\"x\"} \n",
                         "m 2 3 4\n",     "m{a=\"\\q\"} 1\n", "m{:a=\"x\"} 1\n", "m two\n",
                         "m{a=\"x\"}2\n", "ok 1\nm 1 x\n"};
    unsigned long want_line[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct prom_set s = {0};
        unsigned long line = 0;
        int rc = prom_parse(bad[i], strlen(bad[i]), &s, &line);
        if (rc != LAT_E_USAGE) FAIL("accepted %s", bad[i]);
        ASSERT_EQ_U64(line, want_line[i]);
        prom_set_fini(&s);
    }
}

TEST(prom_known_series_cover_servers)
{
    /* every known entry names at least one metric, and running/waiting exist for all four */
    ASSERT(prom_known_count >= 6);
    for (size_t i = 0; i < prom_known_count; i++)
        ASSERT(prom_known_series[i].names[0] != NULL);
    for (int k = 0; k < 4; k++) {
        ASSERT(prom_known_series[0].names[k] != NULL);
        ASSERT(prom_known_series[1].names[k] != NULL);
    }
}
