/*
 * cli-mpi.c - the few MPI calls of `mpirun -n N latscope analyze DIR` (cmd-analyze.c): the
 * processes split the rank files, exchange what the job-wide parts need, and rank 0 prints.
 * With Open MPI only (LAT_HAVE_MPI; src/bench/mpi.c is bench's own); without it lat_mpi_start()
 * fails and the command says so. The command layer's: it may print.
 */
#include "core/log.h"
#include "latscope.h"

#include <stdlib.h>
#include <string.h>

int lat_mpi_env_size(int *rank)
{
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const char *s = getenv(sizes[i]), *r = getenv(ranks[i]);
        if (s && *s) {
            *rank = r ? atoi(r) : 0;
            return atoi(s);
        }
    }
    *rank = 0;
    return 1;
}

#if LAT_HAVE_MPI
#include <limits.h>
#include <mpi.h>

static bool started;

/* A process that leaves with an error while the others may wait for it in a collective ends
 * the job (MPI_Abort) instead of leaving them there forever. */
static void on_exit_abort(int status, void *arg)
{
    (void)arg;
    if (!started) return;
    started = false;
    if (status == 0) {
        MPI_Finalize();
        return;
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lat_log_printf(LAT_LOG_ERR, "mpi",
                   "rank %d of %d stops with exit status %d: aborting every rank, none waits "
                   "for it\n",
                   rank, size, status);
    MPI_Abort(MPI_COMM_WORLD, status);
}

int lat_mpi_start(int *rank, int *size)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return -1;
    started = true;
    on_exit(on_exit_abort, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void lat_mpi_stop(void)
{
    if (!started) return;
    started = false;
    MPI_Finalize();
}

int lat_mpi_max(int v)
{
    int out = v;
    if (MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) return INT_MAX;
    return out;
}

/* Every process's bytes, concatenated in rank order, on every process (all) or on rank 0. */
static int gather(const void *b, size_t n, char **out, size_t **offs, bool all)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n > INT_MAX) return -1;
    int mine = (int)n;
    int *lens = calloc((size_t)size, sizeof(*lens)), *displ = calloc((size_t)size, sizeof(*displ));
    if (!lens || !displ) {
        free(lens);
        free(displ);
        return -1;
    }
    int rc = all ? MPI_Allgather(&mine, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD)
                 : MPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    bool here = all || rank == 0;
    for (int i = 0; here && i < size; i++) {
        displ[i] = (int)total;
        total += (size_t)lens[i];
    }
    if (rc != MPI_SUCCESS || total > INT_MAX) {
        free(lens);
        free(displ);
        return -1;
    }
    *out = here ? malloc(total ? total : 1) : NULL;
    *offs = here ? calloc((size_t)size + 1, sizeof(**offs)) : NULL;
    if (here && (!*out || !*offs)) return -1; /* the others wait in the next call: abort */
    rc = all ? MPI_Allgatherv(b, mine, MPI_BYTE, *out, lens, displ, MPI_BYTE, MPI_COMM_WORLD)
             : MPI_Gatherv(b, mine, MPI_BYTE, *out, lens, displ, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; here && i < size; i++)
        (*offs)[i + 1] = (*offs)[i] + (size_t)lens[i];
    free(lens);
    free(displ);
    return rc == MPI_SUCCESS ? 0 : -1;
}

int lat_mpi_allgather(const void *b, size_t n, char **out, size_t **offs)
{
    return gather(b, n, out, offs, true);
}

int lat_mpi_gather0(const void *b, size_t n, char **out, size_t **offs)
{
    return gather(b, n, out, offs, false);
}
#else
int lat_mpi_start(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    return -1;
}
void lat_mpi_stop(void)
{
}
int lat_mpi_max(int v)
{
    return v;
}
int lat_mpi_allgather(const void *b, size_t n, char **out, size_t **offs)
{
    (void)b;
    (void)n;
    (void)out;
    (void)offs;
    return -1;
}
int lat_mpi_gather0(const void *b, size_t n, char **out, size_t **offs)
{
    return lat_mpi_allgather(b, n, out, offs);
}
#endif
