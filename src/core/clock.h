/*
 * clock.h - time in int64 nanoseconds. Never double for timestamps.
 */
#ifndef LAT_CORE_CLOCK_H
#define LAT_CORE_CLOCK_H

#include <stdint.h>

typedef int64_t lat_ns;

#define LAT_NS_PER_US 1000LL
#define LAT_NS_PER_MS 1000000LL
#define LAT_NS_PER_S  1000000000LL

/* CLOCK_MONOTONIC now, in ns. */
lat_ns clock_now_ns(void);
/* CLOCK_REALTIME now, in ns since the epoch. */
lat_ns clock_realtime_ns(void);
/* A CLOCK_REALTIME time (e.g. a kernel timestamp) on the CLOCK_MONOTONIC scale, with the
 * clocks' offset as of now. */
lat_ns clock_realtime_to_mono(lat_ns rt);
/* Process CPU time (user + system) in ns. */
lat_ns clock_cpu_ns(void);

#endif
