/* test-bench-live.c - the live view's numbers (bench/live.h): windows added up (counts so far,
 * the last window's rate and percentiles, errors by class), and the status line: its fields,
 * "-" for a window without requests, and a narrow terminal dropping whole fields from the end
 * (the error classes before the error count). */
#include "test.h"

#include "bench/live.h"
#include "hist/hist.h"

#include <string.h>

TEST(bench_live_windows_add_up)
{
    struct lat_hist h;
    ASSERT(hist_init_default(&h) == 0);
    for (int i = 1; i <= 100; i++)
        hist_record(&h, (int64_t)i * 1000000); /* 1..100 ms */
    struct bench_live s = {
        .point = 2, .npoints = 3, .value = 4, .target_ns = 10 * LAT_NS_PER_S, .p50 = -1, .p99 = -1};
    struct bench_window w = {
        .t_start = 0, .t_end = LAT_NS_PER_S / 2, .lat = &h, .ok = 100, .errors = 3, .inflight = 4};
    w.errors_by[BENCH_ERR_TIMEOUT] = 2;
    w.errors_by[BENCH_ERR_RESET] = 1;
    bench_live_add_window(&s, &w);
    ASSERT_EQ_U64(s.done, 103);
    ASSERT(s.rps > 199.9 && s.rps < 200.1); /* 100 ok in 0.5 s */
    int64_t p50 = hist_value_at_percentile(&h, 50), p99 = hist_value_at_percentile(&h, 99);
    ASSERT(s.p50 == p50 && s.p99 == p99);
    ASSERT(p50 >= 49000000 && p50 <= 51000000);
    /* an empty second window: counts stay, the rate is 0, the percentiles none */
    hist_reset(&h);
    struct bench_window w2 = {.t_start = LAT_NS_PER_S / 2, .t_end = LAT_NS_PER_S, .lat = &h};
    w2.errors_by[BENCH_ERR_TIMEOUT] = 1;
    w2.errors = 1;
    bench_live_add_window(&s, &w2);
    ASSERT_EQ_U64(s.done, 104);
    ASSERT_EQ_U64(s.errors, 4);
    ASSERT_EQ_U64(s.errors_by[BENCH_ERR_TIMEOUT], 3);
    ASSERT(s.rps == 0 && s.p50 == -1 && s.p99 == -1);
    s.elapsed = 3 * LAT_NS_PER_S / 2;
    char line[256];
    size_t n = bench_live_format(&s, line, sizeof(line));
    ASSERT_EQ_U64(n, strlen(line));
    ASSERT_EQ_STR(line, "point 2/3 c=4  1.5/10.0s  0.0 req/s  p50/p99 -  errors 4 (timeout 3, "
                        "reset 1)");
    hist_fini(&h);
}

TEST(bench_live_line_fields)
{
    struct bench_live s = {.point = 1,
                           .npoints = 1,
                           .open_loop = true,
                           .value = 250,
                           .target_requests = 500,
                           .done = 120,
                           .rps = 249.04,
                           .p50 = 2640000,
                           .p99 = 15240000,
                           .llm = true,
                           .ttft_p50 = 740000,
                           .ttft_p99 = 123400000,
                           .tokens_s = 3001.25};
    char line[256];
    bench_live_format(&s, line, sizeof(line));
    ASSERT_EQ_STR(line, "point 1/1 250/s  120/500 req  249.0 req/s  p50/p99 2.64/15.2 ms  errors "
                        "0  ttft p50/p99 0.740/123 ms  3001.2 tok/s");
    /* a --find-max probe: no total */
    struct bench_live f = {.point = 3,
                           .find_max = true,
                           .open_loop = true,
                           .value = 40,
                           .target_ns = LAT_NS_PER_S,
                           .p50 = -1};
    bench_live_format(&f, line, sizeof(line));
    ASSERT(strncmp(line, "probe 3 40/s  0.0/1.0s", 22) == 0);
    for (const char *p = line; *p; p++)
        ASSERT(*p >= ' ' && *p < 127); /* no control characters */
}

TEST(bench_live_narrow_terminal_drops_fields_whole)
{
    struct bench_live s = {.point = 1,
                           .npoints = 2,
                           .value = 8,
                           .target_ns = 2 * LAT_NS_PER_S,
                           .elapsed = LAT_NS_PER_S,
                           .rps = 10,
                           .p50 = 1000000,
                           .p99 = 2000000,
                           .errors = 7};
    s.errors_by[BENCH_ERR_HTTP_5XX] = 7;
    char full[256], line[256];
    bench_live_format(&s, full, sizeof(full));
    ASSERT_EQ_STR(full, "point 1/2 c=8  1.0/2.0s  10.0 req/s  p50/p99 1.00/2.00 ms  errors 7 "
                        "(http_5xx 7)");
    /* one column short of the classes: the count alone */
    size_t cut = strlen("point 1/2 c=8  1.0/2.0s  10.0 req/s  p50/p99 1.00/2.00 ms  errors 7") + 5;
    bench_live_format(&s, line, cut);
    ASSERT_EQ_STR(line, "point 1/2 c=8  1.0/2.0s  10.0 req/s  p50/p99 1.00/2.00 ms  errors 7");
    /* narrower: the percentiles go, and then everything after them */
    bench_live_format(&s, line, 40);
    ASSERT_EQ_STR(line, "point 1/2 c=8  1.0/2.0s  10.0 req/s");
    ASSERT(strlen(line) < 40);
    bench_live_format(&s, line, 5);
    ASSERT_EQ_STR(line, "");
    ASSERT_EQ_U64(bench_live_format(&s, line, 0), 0);
}
