/*
 * live.h - the live view of `latscope bench` (issue 17): what a running load point looks like
 * once per engine window (--window, default 1 s), as numbers. The point loop (bench/loop.c)
 * fills a struct bench_live per window and hands it to the command's callback; the command
 * (src/cmd-bench.c) decides whether to show it (--live auto|on|off: only on a terminal) and
 * prints the line bench_live_format() makes, redrawn in place and erased when the point ends.
 * Nothing here prints.
 */
#ifndef LAT_BENCH_LIVE_H
#define LAT_BENCH_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

struct bench_live {
    size_t point;   /* 1-based */
    size_t npoints; /* points planned; 0: a --find-max search (not known) */
    bool find_max;  /* a --find-max probe */
    double value;   /* the point's rate (open loop) or concurrency */
    bool open_loop;
    lat_ns elapsed;           /* since the point's schedule start (warmup included) */
    lat_ns target_ns;         /* the point's planned length (warmup + --duration), 0: by count */
    uint64_t target_requests; /* --requests (measured), 0: by duration */
    uint64_t done;            /* measured requests ended so far (ok + errors) */
    double rps;               /* successful requests/s over the last window */
    uint64_t inflight;
    int64_t p50, p99; /* the last window's latency from the intended send (ns), -1: none */
    uint64_t errors;  /* so far in this point, by class in errors_by */
    uint64_t errors_by[BENCH_ERR__COUNT];
    /* --target openai (a target with a live hook, bench/target.h) */
    bool llm;
    int64_t ttft_p50, ttft_p99; /* the last window's requests' TTFT (ns), -1: none */
    double tokens_s;            /* output tokens/s over the last window (the server's count) */
};

/* Adds one window w (after the --mpi reduction) to s: counts so far, the window's rate and
 * percentiles. */
void bench_live_add_window(struct bench_live *s, const struct bench_window *w);

/* The status line of s in out (NUL-terminated, at most cap - 1 bytes; no newline, no control
 * characters): "point 1/3 c=4  3.0/10.0s  812.3 req/s  p50/p99 1.23/5.68 ms  errors 3
 * (timeout 2, reset 1)" and, with llm, "  ttft p50/p99 40.1/90.3 ms  350.1 tok/s"; "-" for
 * the percentiles of a window without requests. Fields that do not fit in cap are dropped
 * whole from the end (the error classes first: the count stays). Returns the length written. */
size_t bench_live_format(const struct bench_live *s, char *out, size_t cap);

#endif
