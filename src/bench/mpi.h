/*
 * mpi.h - `latscope bench --mpi` under mpirun: every rank runs its shard of each point
 * (bench/shard.h), the ranks start each point together (barrier, common start time on rank
 * 0's clock, clock offsets measured by ping-pong) and each point's results are reduced
 * exactly over all ranks (MPI_Allreduce of every histogram's counts, counters summed, the
 * per-rank lines gathered), so every rank holds the one merged result (and --find-max decides
 * the same next probe on all ranks); rank 0 prints it. --target openai: the LLM summary is
 * rebuilt from the reduced LLM histograms and summed counters. Implemented in mpi.c, compiled only
 * with Open MPI (LAT_HAVE_MPI); without it these are no-ops and --mpi is refused
 * (bench_mpi_init).
 */
#ifndef LAT_BENCH_MPI_H
#define LAT_BENCH_MPI_H

#include "bench/report.h"
#include "bench/shard.h"

/* Replaces p's result by the reduction over all ranks (collective: every rank calls it for
 * every point, in order) and sets run->dist. Returns 0 or -ENOMEM / LAT_E_INTERNAL. */
int bench_mpi_point_reduce(const struct bench_shard *s, struct bench_run *run,
                           struct bench_point *p);
/* Finalizes MPI (after the last collective call). */
void bench_mpi_fini(const struct bench_shard *s);

#endif
