/*
 * launch.h - starting the command `latscope trace` captures: forked and held on a pipe before
 * exec (so the CPU sampler can attach with enable_on_exec first), its environment set up for
 * the injection library (LATSCOPE_TRACE_DIR and friends), SIGINT/SIGTERM/SIGHUP forwarded to
 * it while it runs, and the capture directory removed afterwards. Nothing here prints: errors
 * come back as -errno (or the exec errno) for the command to name.
 */
#ifndef LAT_CAPTURE_LAUNCH_H
#define LAT_CAPTURE_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/clock.h"

struct cpuprof;

#define LAUNCH_ENV_MAX 16

/* Variables set in the child before exec (over what it inherits). */
struct launch_env {
    const char *names[LAUNCH_ENV_MAX];
    char *values[LAUNCH_ENV_MAX];
    size_t n;
};

/* Adds name=value (value copied; name must outlive e). 0, -ENOMEM, or -E2BIG when full. */
int launch_env_add(struct launch_env *e, const char *name, const char *value);
/* The value set for name, or NULL. */
const char *launch_env_get(const struct launch_env *e, const char *name);
void launch_env_free(struct launch_env *e);

/* What the injection library is told to capture. */
struct launch_capture {
    const char *dir;       /* LATSCOPE_TRACE_DIR: where each process writes its file */
    const char *lib;       /* liblatscope-cupti.so: CUDA_INJECTION64_PATH / NVTX_INJECTION64_PATH */
    const char *cupti_lib; /* LATSCOPE_CUPTI_LIB to set; NULL leaves what is inherited */
    bool cuda;             /* CUDA activity (only with a driver present) */
    bool nvtx, driver_api, cuda_events, extcorr;
    lat_ns start_ns, stop_ns; /* CLOCK_MONOTONIC capture window; 0 = open */
};

/* The child's variables for c, added to e. 0 or -ENOMEM/-E2BIG (e then holds what was added). */
int launch_capture_env(struct launch_env *e, const struct launch_capture *c);

/* The CUDA toolkit's libcupti.so.13 ($CUDA_HOME, then /usr/local/cuda) when present and
 * LATSCOPE_CUPTI_LIB is not set by the user; else NULL (the library searches the usual paths).
 * Returns a static buffer. */
const char *launch_cupti_lib(void);

/* True when the NVIDIA driver library loads; *why gets the dlerror() text otherwise. */
bool launch_have_driver(char *why, size_t len);

/*
 * Forks cmd (NULL-terminated) held on a pipe, with env set (NULL: nothing) and, with
 * stdout_to_err, its stdout on stderr. Returns its pid, or -1 with errno, with *go the write end
 * that releases it (launch_release) and *errfd the read end that reports an exec failure.
 */
pid_t launch_spawn_held(char **cmd, const struct launch_env *env, bool stdout_to_err, int *go,
                        int *errfd);
/* Releases the held child; returns 0 or the errno its exec failed with. */
int launch_release(int go, int errfd);
/* Waits for pid, polling the CPU sampler cp (NULL: none) and stopping it at cpu_stop_at
 * (CLOCK_MONOTONIC, 0 = never; *cpu_stopped set). The first sampler error goes to *cpu_err.
 * Returns the wait status. */
int launch_wait(pid_t pid, struct cpuprof *cp, lat_ns cpu_stop_at, bool *cpu_stopped, int *cpu_err);
/* A wait status as a shell exit code: the exit status, 128 + N when killed by signal N, else 1. */
int launch_exit_code(int status);

/* The signal handlers of a run: SIGTERM and SIGHUP forwarded to the child, SIGINT too when a
 * process sent it (a terminal's Ctrl-C reaches the child directly: same process group). */
struct launch_signals {
    struct sigaction old_int, old_term, old_hup;
};
/* Installs the handlers; child is the pid they forward to (-1: none, only record the stop). */
void launch_signals_install(struct launch_signals *s, pid_t child);
/* Restores the handlers saved by launch_signals_install; nothing is forwarded after. */
void launch_signals_restore(struct launch_signals *s);
/* True once one of those signals arrived. */
bool launch_stop_requested(void);

/* Removes the capture directory dir and the files in it. */
void launch_rm_dir(const char *dir);

#endif
