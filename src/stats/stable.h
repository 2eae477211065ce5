/*
 * stable.h - perf_analyzer's stability rule for `bench --stable`
 * (../shared/docs/load-testing.md §5, inference_profiler.cc DetermineStability).
 *
 * Feed one measurement window at a time (throughput and the stability latency: the mean, or
 * the chosen percentile). The level is stable when the last `need` windows (3) all have
 * non-zero throughput, max/min throughput <= 1 + tolerance (0.10) and max/min latency <=
 * 1 + tolerance. After max_windows (10) windows without that, the verdict is
 * STABLE_THROUGHPUT_ONLY when the last windows' throughput is stable but latency is not
 * (perf_analyzer's async-mode "latency is not stabilizing" acceptance), else STABLE_GAVE_UP.
 */
#ifndef LAT_STATS_STABLE_H
#define LAT_STATS_STABLE_H

#include <stdbool.h>

#define STABLE_MAX_WINDOWS 64

enum stable_verdict {
    STABLE_NOT_YET = 0,     /* measure another window */
    STABLE_YES,             /* stable: report the last `need` windows */
    STABLE_THROUGHPUT_ONLY, /* gave up; throughput stable, latency not (warn) */
    STABLE_GAVE_UP,         /* gave up; not stable */
};

struct lat_stable {
    double tolerance; /* 0.10 = 10 % */
    int need;         /* windows that must agree (3) */
    int max_windows;  /* windows to try before giving up (10) */
    int n;            /* windows seen */
    double thr[STABLE_MAX_WINDOWS], lat[STABLE_MAX_WINDOWS];
    enum stable_verdict verdict;
};

/* tolerance > 0, 1 <= need <= max_windows <= STABLE_MAX_WINDOWS. 0 or LAT_E_USAGE. */
int stable_init(struct lat_stable *s, double tolerance, int need, int max_windows);
/* perf_analyzer's defaults: 10 %, 3 windows, 10 tries. */
void stable_init_default(struct lat_stable *s);
/* Adds a window (throughput in req/s, latency in any unit > 0) and returns the verdict.
 * Once a final verdict is reached it is returned again without adding. */
enum stable_verdict stable_add(struct lat_stable *s, double throughput, double latency);
/* Averages of the last `need` windows (the values a stable level reports). */
void stable_last_means(const struct lat_stable *s, double *throughput, double *latency);
const char *stable_verdict_name(enum stable_verdict v);

#endif
