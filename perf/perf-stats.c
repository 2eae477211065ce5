/*
 * perf-stats.c - micro-benchmarks of src/hist and src/stats for `make perf`
 * (perf/21-benchstats.sh builds and runs it). Prints name<TAB>value<TAB>unit<TAB>note lines.
 * Never asserts; numbers go to docs/performance-benchstats.md.
 */
#include "core/buf.h"
#include "core/clock.h"
#include "hist/hist.h"
#include "hist/hlog.h"
#include "hist/samples.h"
#include "stats/earlystop.h"
#include "stats/rng.h"
#include "stats/sched.h"

#include <stdio.h>
#include <stdlib.h>

static void out(const char *name, double v, const char *unit, const char *note)
{
    printf("%s\t%.3f\t%s\t%s\n", name, v, unit, note);
}

static volatile int64_t sink;

int main(void)
{
    struct lat_rng r;
    rng_seed(&r, 1);
    enum { NV = 1 << 20 };
    int64_t *vals = malloc(NV * sizeof(int64_t));
    if (!vals) return 1;
    for (int i = 0; i < NV; i++) /* log-uniform 10 µs .. 10 s */
        vals[i] = (int64_t)(1e4 * __builtin_exp(rng_uniform(&r) * 13.8155));

    struct lat_hist h, h2;
    hist_init_default(&h);
    hist_init_default(&h2);
    const int reps = 10;
    lat_ns t0 = clock_now_ns();
    for (int k = 0; k < reps; k++)
        for (int i = 0; i < NV; i++)
            hist_record(&h, vals[i]);
    lat_ns t1 = clock_now_ns();
    out("hist.record", (double)(t1 - t0) / ((double)reps * NV), "ns/op",
        "1us..1h, 3 digits, 10M log-uniform values");

    t0 = clock_now_ns();
    for (int i = 0; i < 1000; i++)
        sink += hist_value_at_percentile(&h, 99.0);
    t1 = clock_now_ns();
    out("hist.value_at_percentile", (double)(t1 - t0) / 1000 / 1e3, "us/op", "p99, 24576 counts");

    for (int i = 0; i < NV; i += 2)
        hist_record(&h2, vals[i]);
    t0 = clock_now_ns();
    for (int i = 0; i < 200; i++)
        hist_add(&h, &h2);
    t1 = clock_now_ns();
    out("hist.add", (double)(t1 - t0) / 200 / 1e3, "us/op", "same layout, 192 KiB of counts");

    struct lat_buf b = LAT_BUF_INIT;
    t0 = clock_now_ns();
    for (int i = 0; i < 50; i++) {
        buf_reset(&b);
        hlog_encode(&h2, &b);
    }
    t1 = clock_now_ns();
    out("hlog.encode", (double)(t1 - t0) / 50 / 1e3, "us/op", "V2 zlib+base64, 512k samples");
    out("hlog.encoded_size", (double)b.len, "bytes", "base64 text of that histogram");
    struct lat_hist d;
    t0 = clock_now_ns();
    for (int i = 0; i < 50; i++) {
        hlog_decode(b.data, b.len, &d, NULL);
        hist_fini(&d);
    }
    t1 = clock_now_ns();
    out("hlog.decode", (double)(t1 - t0) / 50 / 1e3, "us/op", "same blob");
    buf_fini(&b);

    struct lat_samples s;
    samples_init(&s, NV);
    for (int i = 0; i < NV; i++)
        samples_push(&s, vals[i]);
    t0 = clock_now_ns();
    sink += samples_percentile(&s, 99);
    t1 = clock_now_ns();
    out("samples.sort_1M", (double)(t1 - t0) / 1e6, "ms", "exact order statistics, 1M values");
    samples_fini(&s);

    struct sched_spec sp;
    struct lat_sched sc;
    sched_parse("poisson", &sp);
    sched_init(&sc, &sp, 20000, 1, 0);
    t0 = clock_now_ns();
    for (int i = 0; i < 1000000; i++)
        sink += sched_next(&sc);
    t1 = clock_now_ns();
    out("sched.next_poisson", (double)(t1 - t0) / 1e6, "ns/op", "1 slice");
    sched_parse("gamma:4", &sp);
    sched_init_slice(&sc, &sp, 20000, 1, 0, 1, 4);
    t0 = clock_now_ns();
    for (int i = 0; i < 1000000; i++)
        sink += sched_next(&sc);
    t1 = clock_now_ns();
    out("sched.next_gamma4_slice4", (double)(t1 - t0) / 1e6, "ns/op", "slice 1 of 4");

    /* Pacing: 400 deadlines 1 ms apart, lateness distribution, with and without a spin. */
    const lat_ns spins[] = {0, 50000};
    for (int k = 0; k < 2; k++) {
        struct lat_hist lag;
        hist_init(&lag, 1, 3600LL * 1000000000LL, 3);
        lat_ns due = clock_now_ns() + 1000000;
        for (int i = 0; i < 400; i++, due += 1000000)
            hist_record(&lag, sched_pace_until(due, spins[k]));
        char name[64];
        snprintf(name, sizeof(name), "sched.pace_lateness_p50_spin%lldus",
                 (long long)(spins[k] / 1000));
        out(name, (double)hist_value_at_percentile(&lag, 50) / 1e3, "us", "400 deadlines, 1 ms apart");
        snprintf(name, sizeof(name), "sched.pace_lateness_p99_spin%lldus",
                 (long long)(spins[k] / 1000));
        out(name, (double)hist_value_at_percentile(&lag, 99) / 1e3, "us", "");
        hist_fini(&lag);
    }

    struct earlystop_claim c;
    t0 = clock_now_ns();
    earlystop_check(99, 0.99, 1000000, 9000, &c);
    t1 = clock_now_ns();
    out("earlystop.check_p99_t9000", (double)(t1 - t0) / 1e3, "us", "N=1M, 9000 over target");
    uint64_t t;
    t0 = clock_now_ns();
    earlystop_bound_rank(99, 0.99, 100000, &t);
    t1 = clock_now_ns();
    out("earlystop.bound_rank_100k", (double)(t1 - t0) / 1e3, "us", "p99 at 99 %, N=100k");

    hist_fini(&h);
    hist_fini(&h2);
    free(vals);
    return 0;
}
