/*
 * par.h - run one work function on a few threads at once: the calling thread plus up to
 * threads - 1 workers. The work function takes its own items (e.g. from an atomic counter)
 * until none are left; `caller` tells the calling thread's call apart (the one that may report
 * progress to code that is not thread-safe). A worker that cannot be started leaves its share
 * to the others, so the work is always done.
 */
#ifndef LAT_CORE_PAR_H
#define LAT_CORE_PAR_H

#include <stdbool.h>
#include <stddef.h>

#define PAR_MAX_THREADS 8

/* Threads to use for nitems items: want (0 = one per online CPU), at most PAR_MAX_THREADS and
 * nitems, at least 1. */
unsigned par_threads(unsigned want, size_t nitems);
/* Calls work(arg, true) on this thread and work(arg, false) on nthreads - 1 others; returns when
 * all have returned. */
void par_run(unsigned nthreads, void (*work)(void *arg, bool caller), void *arg);

#endif
