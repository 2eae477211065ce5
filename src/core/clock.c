/*
 * clock.c - thin wrappers over clock_gettime. CLOCK_MONOTONIC is the time base for every
 * latency latscope measures; CLOCK_REALTIME is used only to label files with wall time.
 */
#include "core/clock.h"

#include <time.h>

static lat_ns clock_read(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (lat_ns)ts.tv_sec * LAT_NS_PER_S + ts.tv_nsec;
}

lat_ns clock_now_ns(void)
{
    return clock_read(CLOCK_MONOTONIC);
}

lat_ns clock_realtime_ns(void)
{
    return clock_read(CLOCK_REALTIME);
}

lat_ns clock_realtime_to_mono(lat_ns rt)
{
    /* The offset between the clocks from a realtime read bracketed by two monotonic reads,
     * taken at the bracket's midpoint; the tightest of up to three tries, so an interrupt or
     * preemption between two reads does not shift the result. */
    lat_ns off = 0, best = INT64_MAX;
    for (int i = 0; i < 3; i++) {
        lat_ns m1 = clock_now_ns(), r = clock_realtime_ns(), m2 = clock_now_ns();
        if (m2 - m1 < best) {
            best = m2 - m1;
            off = r - (m1 + (m2 - m1) / 2);
        }
        if (best < 2 * LAT_NS_PER_US) break;
    }
    return rt - off;
}

lat_ns clock_cpu_ns(void)
{
    return clock_read(CLOCK_PROCESS_CPUTIME_ID);
}
