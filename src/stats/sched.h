/*
 * sched.h - open-loop arrival schedules for `latscope bench`: constant, poisson, gamma:K.
 *
 * A schedule yields absolute CLOCK_MONOTONIC intended send times (ns). The sequence depends
 * only on (spec, rate, seed, start): the same seed gives the same global schedule whatever the
 * number of threads, because thread i of T takes arrivals i, i+T, i+2T, ... of that one global
 * sequence (sched_init_slice). Latency is measured from these times (coordinated omission).
 *
 *   struct sched_spec sp;  sched_parse("gamma:4", &sp);
 *   struct lat_sched s;    sched_init_slice(&s, &sp, 2000.0, seed, t0, thread, nthreads);
 *   for (;;) { lat_ns due = sched_next(&s); sched_pace_until(due, 50000); send(); }
 */
#ifndef LAT_STATS_SCHED_H
#define LAT_STATS_SCHED_H

#include <stdint.h>

#include "core/clock.h"
#include "stats/rng.h"

enum sched_kind { SCHED_CONSTANT = 0, SCHED_POISSON, SCHED_GAMMA };

struct sched_spec {
    enum sched_kind kind;
    double gamma_k; /* shape for SCHED_GAMMA: inter-arrival CV = 1/sqrt(k) */
};

/* Parses "constant", "poisson" or "gamma:K" (K > 0, e.g. "gamma:0.5", "gamma:4").
 * Returns 0 or LAT_E_USAGE. */
int sched_parse(const char *text, struct sched_spec *out);
/* Writes the canonical name ("gamma:4") into buf; returns buf. */
const char *sched_format(const struct sched_spec *spec, char *buf, unsigned len);

struct lat_sched {
    struct sched_spec spec;
    double rate_per_s;
    lat_ns start_ns;
    double mean_gap_ns;
    double offset_ns;  /* global arrival time (from start) of the last generated arrival */
    uint64_t global_n; /* global arrivals generated so far */
    uint64_t n;        /* arrivals returned by this slice */
    uint32_t slice, nslices;
    struct lat_rng rng;
};

/* One global schedule: the first arrival is at start_ns (constant) or start_ns + one random
 * gap (poisson, gamma). rate_per_s > 0. Returns 0 or LAT_E_USAGE. */
int sched_init(struct lat_sched *s, const struct sched_spec *spec, double rate_per_s, uint64_t seed,
               lat_ns start_ns);
/* The slice'th of nslices interleaved parts of that schedule (slice < nslices). */
int sched_init_slice(struct lat_sched *s, const struct sched_spec *spec, double rate_per_s,
                     uint64_t seed, lat_ns start_ns, uint32_t slice, uint32_t nslices);
/* Next intended send time (absolute ns) of this slice. O(nslices), no allocation. */
lat_ns sched_next(struct lat_sched *s);

/*
 * Waits until CLOCK_MONOTONIC reaches deadline_ns: clock_nanosleep(TIMER_ABSTIME) to
 * deadline - spin_ns, then a busy spin (sleep wake-ups are late by tens of µs; the spin
 * absorbs that). Returns the lateness now - deadline (>= 0; > 0 when already late).
 */
lat_ns sched_pace_until(lat_ns deadline_ns, lat_ns spin_ns);

#endif
