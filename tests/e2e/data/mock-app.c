/*
 * mock-app.c - a "CUDA program" for t307: loads liblatscope-cupti.so and calls
 * InitializeInjection as the driver would in cuInit (libcupti is the mock, through
 * LATSCOPE_CUPTI_LIB), lets the periodic flush thread run, then ends in the way asked:
 *   mock-app LIB exit|term|_exit|fork MS
 * exit: normal exit (atexit forced flush); term: SIGTERM to itself (handler flush, default
 * action); _exit: _exit(0) (only what the periodic flush wrote survives); fork: a forked child
 * exits first (its file must not take the parent's records), then the parent exits normally.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 3;
    }
    int (*init)(void);
    *(void **)&init = dlsym(h, "InitializeInjection");
    if (!init || init() != 1) return 4;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = atoi(argv[3]) * 1000000L};
    nanosleep(&ts, NULL);
    if (strcmp(argv[2], "term") == 0) raise(SIGTERM);
    if (strcmp(argv[2], "_exit") == 0) _exit(0);
    if (strcmp(argv[2], "fork") == 0) {
        pid_t p = fork();
        if (p == 0) exit(0);
        waitpid(p, NULL, 0);
    }
    printf("mock-app done\n");
    return 0;
}
