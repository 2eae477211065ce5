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

lat_ns clock_cpu_ns(void)
{
    return clock_read(CLOCK_PROCESS_CPUTIME_ID);
}
