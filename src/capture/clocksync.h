/*
 * clocksync.h - convert CUPTI timestamps to CLOCK_MONOTONIC with the capture's sync pairs.
 */
#ifndef LAT_CAPTURE_CLOCKSYNC_H
#define LAT_CAPTURE_CLOCKSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capfile.h"

struct clocksync {
    struct lcap_sync *s; /* usable pairs (cupti_ns != 0), sorted by cupti_ns; not owned */
    size_t n;
    int64_t rt_offset; /* mono - realtime of the tightest pair, for captures without cupti_ns */
    bool have_rt;
    unsigned steps; /* segments whose two clocks moved apart by more than allowed (REALTIME step) */
};

/*
 * Prepares conversion from the n pairs in s (reordered in place: usable ones first, sorted).
 * Pairs without a CUPTI timestamp still give the REALTIME offset: CUPTI's default clock on
 * Linux is CLOCK_REALTIME, so that offset is the fallback when no pair has one.
 */
void clocksync_init(struct clocksync *c, struct lcap_sync *s, size_t n);

/*
 * CUPTI ns -> CLOCK_MONOTONIC ns: linear interpolation between the surrounding pairs, the
 * nearest pair's offset outside them or across a clock step, the REALTIME offset without pairs,
 * and the value unchanged when nothing is known.
 */
int64_t clocksync_to_mono(const struct clocksync *c, uint64_t cupti_ns);

#endif
