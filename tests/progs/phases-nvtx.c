/*
 * phases-nvtx.c - a before/after pair for `latscope diff` (t614): ITER iterations of three NVTX
 * ranges, "load" (1 unit), "compute" (2 x SLOW units) and "store" (1 unit), each spinning in
 * its own function (load_phase, compute_phase, store_phase) for that much CPU time of the
 * thread (a unit = 1 ms): a run with SLOW = 4 has its compute phase 4x slower than one with
 * SLOW = 1, in range durations and in CPU samples (shares 25/50/25 % become 10/80/10 %).
 * CPU time, not wall time, so the ratio holds on a loaded machine (wall time only grows).
 * Each phase's length is jittered by a fixed-seed generator to 0.5..1.5 x its mean: with
 * constant lengths an iteration of 4 ms is exactly two periods of a 499 Hz sampler, every
 * sample then lands at the same offset of the iteration, and a whole phase gets none (t614
 * saw store_phase vanish from both runs); the means, hence the shares, are unchanged.
 * Built by the test against the toolkit's NVTX3 headers. Usage: phases-nvtx ITER SLOW
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift64 from a fixed seed: the same jitter in every run. */
static unsigned long long rng = 88172645463325252ull;
static double jitter(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return 0.5 + (double)(rng >> 11) / 9007199254740992.0; /* [0.5, 1.5) */
}

/* Spins for ms milliseconds of this thread's CPU time. */
__attribute__((noinline)) static void burn(double ms)
{
    double end = cpu_s() + ms * jitter() / 1e3;
    while (cpu_s() < end)
        for (volatile int i = 0; i < 2000; i++) {
        }
}

__attribute__((noinline)) void load_phase(void)
{
    burn(1);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void compute_phase(int slow)
{
    burn(2.0 * slow);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void store_phase(void)
{
    burn(1);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int iter = argc > 1 ? atoi(argv[1]) : 100;
    int slow = argc > 2 ? atoi(argv[2]) : 1;
    if (iter < 1 || slow < 1) {
        fprintf(stderr, "usage: phases-nvtx ITER SLOW (both >= 1)\n");
        return 2;
    }
    for (int i = 0; i < iter; i++) {
        nvtxRangePushA("load");
        load_phase();
        nvtxRangePop();
        nvtxRangePushA("compute");
        compute_phase(slow);
        nvtxRangePop();
        nvtxRangePushA("store");
        store_phase();
        nvtxRangePop();
    }
    printf("phases-nvtx done %d %d\n", iter, slow);
    return 0;
}
