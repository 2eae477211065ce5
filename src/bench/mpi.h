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
#include "bench/telemetry.h"

/* Replaces p's result by the reduction over all ranks (collective: every rank calls it for
 * every point, in order) and sets run->dist. Returns 0 or -ENOMEM / LAT_E_INTERNAL. */
int bench_mpi_point_reduce(const struct bench_shard *s, struct bench_run *run,
                           struct bench_point *p);
/* --stable / --confidence under MPI: the window `in` reduced over all ranks into *out (its
 * histograms into lat and lag, counts summed), so every rank's stop rule decides on the same
 * merged data. Collective, once per engine window (bench_hooks.always_last): every rank calls
 * it until one call sees a rank's last window; from then on (until the next point) it does
 * nothing and returns 1, so no rank waits for another that has finished its point. Returns 0
 * (out filled), 1 (windows over) or LAT_E_INTERNAL. */
int bench_mpi_window(const struct bench_shard *s, const struct bench_window *in,
                     struct bench_window *out, struct lat_hist *lat, struct lat_hist *lag);

/* A rank that exits with an error before bench_mpi_fini() aborts the whole job (MPI_Abort),
 * so that no other rank waits for it forever in a collective; note (the command's) is called
 * first to say so. Without MPI a no-op. */
void bench_mpi_on_fail(void (*note)(int rank, int size, int status));
/* --records under MPI: every rank's per-request records of the point to rank 0 (want: rank 0
 * writes them; the others follow its decision, so each rank calls this after every point,
 * before bench_mpi_point_reduce). Times are put on rank 0's clock (the measured offsets), the
 * records sorted by scheduled time and t_first_sched set to the job's first. The other ranks'
 * records are dropped (a rank started without --records sends none). Returns 0, -ENOMEM,
 * -E2BIG or LAT_E_INTERNAL. */
int bench_mpi_gather_records(const struct bench_shard *s, struct bench_result *r, bool want);
/* GPU telemetry under MPI: every rank's point telemetry *g (each rank samples its own host's
 * GPUs; NULL: none) to rank 0, merged into one (as bench merge does: one device per UUID,
 * statistics combined exactly, a GPU without a UUID named "RANK:ID"; every sample kept, put on
 * rank 0's CLOCK_MONOTONIC with the measured clock offsets and sorted), replacing rank 0's *g.
 * Collective: every rank calls it after every point, before bench_mpi_point_reduce (r: the
 * point's result, for its clocks). 0, -ENOMEM, -E2BIG or LAT_E_INTERNAL. */
int bench_mpi_gather_gpu(const struct bench_shard *s, const struct bench_result *r,
                         struct gpu_point **g);
/* Finalizes MPI (after the last collective call). */
void bench_mpi_fini(const struct bench_shard *s);

#endif
