/*
 * hot.c - a CPU-bound test program with known hot functions, for the CPU sampler's tests.
 *
 *   hot [CPU_SECONDS] [MODE]     MODE: single (default), threads, fork
 *   hot ROUNDS rounds            a fixed amount of work (for overhead measurements): prints
 *                                "rounds R cpu_s S wall_s W" with its own CPU time (getrusage)
 *
 * single: the main thread repeats hot_a (6 units), hot_b (3 units), cold_c (1 unit): shares
 * 60/30/10 % of on-CPU time, whatever the clock rate. threads: two extra threads, one in
 * worker_one, one in worker_two, the main thread sleeping. fork: the child runs child_work,
 * the parent hot_a. Every function spins the same loop so time is proportional to units.
 * Shares are inclusive (hot_a's samples have spin as their leaf, hot_a under it).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A round (10 units) takes ~0.3 ms, far shorter than the tests' sampling periods (2-10 ms):
 * with rounds as long as the period, samples alias onto one phase of the round and the shares
 * drift with the machine's load (t355 once saw hot_a at 48 %). */
#define UNIT 20000L

/* CPU time of the calling thread: the durations are CPU seconds, so the number of samples a
 * run yields does not depend on how loaded the machine is. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin(long units)
{
    for (volatile long i = 0; i < units * UNIT; i++) {
    }
}

/* The three share one inner loop (spin), so their shares do not depend on how each loop
 * happens to be aligned; the barrier after the call keeps it from becoming a tail call, so
 * the caller stays on the stack. */
__attribute__((noinline)) void hot_a(void)
{
    spin(6);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void hot_b(void)
{
    spin(3);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void cold_c(void)
{
    spin(1);
    __asm__ volatile("" ::: "memory");
}

static double seconds = 2.0;

__attribute__((noinline)) void worker_one_loop(void)
{
    double end = now_s() + seconds;
    while (now_s() < end)
        spin(2);
}

__attribute__((noinline)) void worker_two_loop(void)
{
    double end = now_s() + seconds;
    while (now_s() < end)
        spin(2);
}

static void *worker_one(void *arg)
{
    worker_one_loop();
    return arg;
}

static void *worker_two(void *arg)
{
    worker_two_loop();
    return arg;
}

__attribute__((noinline)) void child_work(void)
{
    double end = now_s() + seconds;
    while (now_s() < end)
        spin(2);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[2] : "single";
    if (argc > 1) seconds = atof(argv[1]);
    if (!strcmp(mode, "threads")) {
        pthread_t a, b;
        pthread_create(&a, NULL, worker_one, NULL);
        pthread_setname_np(a, "hot-one");
        pthread_create(&b, NULL, worker_two, NULL);
        pthread_setname_np(b, "hot-two");
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        return 0;
    }
    if (!strcmp(mode, "rounds")) {
        long rounds = argc > 1 ? atol(argv[1]) : 1000;
        struct timespec w0, w1;
        clock_gettime(CLOCK_MONOTONIC, &w0);
        for (long r = 0; r < rounds; r++) {
            hot_a();
            hot_b();
            cold_c();
        }
        clock_gettime(CLOCK_MONOTONIC, &w1);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        printf("rounds %ld cpu_s %.6f wall_s %.6f\n", rounds, cpu,
               (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9);
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        if (pid == 0) {
            child_work();
            _exit(0);
        }
        double end = now_s() + seconds;
        while (now_s() < end)
            hot_a();
        waitpid(pid, NULL, 0);
        return 0;
    }
    double end = now_s() + seconds;
    while (now_s() < end) {
        hot_a();
        hot_b();
        cold_c();
    }
    return 0;
}
