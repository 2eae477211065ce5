/*
 * par.c - the calling thread plus a few workers on one work function (par.h).
 */
#include "core/par.h"

#include <pthread.h>
#include <unistd.h>

unsigned par_threads(unsigned want, size_t nitems)
{
    long n = want ? (long)want : sysconf(_SC_NPROCESSORS_ONLN);
    if (n > PAR_MAX_THREADS) n = PAR_MAX_THREADS;
    if ((size_t)n > nitems) n = (long)nitems;
    return n < 1 ? 1 : (unsigned)n;
}

struct par_job {
    void (*work)(void *arg, bool caller);
    void *arg;
};

static void *par_worker(void *p)
{
    const struct par_job *j = p;
    j->work(j->arg, false);
    return NULL;
}

void par_run(unsigned nthreads, void (*work)(void *arg, bool caller), void *arg)
{
    struct par_job job = {work, arg};
    pthread_t th[PAR_MAX_THREADS];
    unsigned started = 0;
    for (unsigned k = 1; k < nthreads && k < PAR_MAX_THREADS; k++)
        if (pthread_create(&th[started], NULL, par_worker, &job) == 0) started++;
    work(arg, true);
    for (unsigned k = 0; k < started; k++)
        pthread_join(th[k], NULL);
}
