/*
 * launch.c - the command `latscope trace` runs: its environment, held start, wait and signals
 * (launch.h).
 */
#include "capture/launch.h"

#include "capture/cpuprof.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- the child's environment ------------------------------------------------------------------ */

int launch_env_add(struct launch_env *e, const char *name, const char *value)
{
    if (e->n == LAUNCH_ENV_MAX) return -E2BIG;
    char *v = strdup(value);
    if (!v) return -ENOMEM;
    e->names[e->n] = name;
    e->values[e->n] = v;
    e->n++;
    return 0;
}

const char *launch_env_get(const struct launch_env *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->names[i], name) == 0) return e->values[i];
    return NULL;
}

void launch_env_free(struct launch_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->values[i]);
    e->n = 0;
}

static int env_add_i64(struct launch_env *e, const char *name, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRId64, v);
    return launch_env_add(e, name, buf);
}

int launch_capture_env(struct launch_env *e, const struct launch_capture *c)
{
    int rc = 0;
    if (!rc) rc = launch_env_add(e, "LATSCOPE_TRACE_DIR", c->dir);
    if (!rc) rc = launch_env_add(e, "LATSCOPE_CUDA", c->cuda ? "1" : "0");
    if (!rc) rc = launch_env_add(e, "LATSCOPE_NVTX", c->nvtx ? "1" : "0");
    if (!rc) rc = launch_env_add(e, "LATSCOPE_DRIVER", c->driver_api ? "1" : "0");
    if (!rc) rc = launch_env_add(e, "LATSCOPE_CUDA_EVENTS", c->cuda_events ? "1" : "0");
    if (!rc) rc = launch_env_add(e, "LATSCOPE_EXTCORR", c->extcorr ? "1" : "0");
    if (!rc && c->start_ns) rc = env_add_i64(e, "LATSCOPE_START_NS", c->start_ns);
    if (!rc && c->stop_ns) rc = env_add_i64(e, "LATSCOPE_STOP_NS", c->stop_ns);
    if (!rc && c->cupti_lib) rc = launch_env_add(e, "LATSCOPE_CUPTI_LIB", c->cupti_lib);
    if (!rc && c->cuda) rc = launch_env_add(e, "CUDA_INJECTION64_PATH", c->lib);
    if (!rc && c->nvtx) rc = launch_env_add(e, "NVTX_INJECTION64_PATH", c->lib);
    return rc;
}

static bool file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

const char *launch_cupti_lib(void)
{
    static char buf[PATH_MAX];
    const char *user = getenv("LATSCOPE_CUPTI_LIB");
    if (user && *user) return NULL; /* inherited as is */
    const char *home = getenv("CUDA_HOME");
    const char *cands[] = {"/lib64/libcupti.so.13", "/lib/libcupti.so.13",
                           "/extras/CUPTI/lib64/libcupti.so.13"};
    const char *homes[] = {home, "/usr/local/cuda"};
    for (size_t h = 0; h < 2; h++) {
        if (!homes[h] || !*homes[h]) continue;
        for (size_t i = 0; i < 3; i++) {
            int w = snprintf(buf, sizeof(buf), "%s%s", homes[h], cands[i]);
            if (w > 0 && (size_t)w < sizeof(buf) && file_exists(buf)) return buf;
        }
    }
    return NULL;
}

bool launch_have_driver(char *why, size_t len)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        return true;
    }
    const char *e = dlerror();
    snprintf(why, len, "%s", e ? e : "libcuda.so.1 not found");
    return false;
}

/* --- the held child -----------------------------------------------------------------------------
 */

pid_t launch_spawn_held(char **cmd, const struct launch_env *env, bool stdout_to_err, int *go,
                        int *errfd)
{
    int gp[2], ep[2];
    if (pipe2(gp, O_CLOEXEC) < 0) return -1;
    if (pipe2(ep, O_CLOEXEC) < 0) {
        close(gp[0]);
        close(gp[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(gp[0]);
        close(gp[1]);
        close(ep[0]);
        close(ep[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        char c;
        close(gp[1]);
        close(ep[0]);
        while (read(gp[0], &c, 1) < 0 && errno == EINTR)
            ;
        close(gp[0]);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        /* -o -: the trace owns stdout; the command's output goes to stderr. */
        if (stdout_to_err && dup2(2, 1) < 0) _exit(127);
        for (size_t i = 0; env && i < env->n; i++)
            setenv(env->names[i], env->values[i], 1);
        execvp(cmd[0], cmd);
        int e = errno;
        ssize_t w = write(ep[1], &e, sizeof(e));
        (void)w;
        _exit(127);
    }
    close(gp[0]);
    close(ep[1]);
    *go = gp[1];
    *errfd = ep[0];
    return pid;
}

int launch_release(int go, int errfd)
{
    char c = 1;
    ssize_t w = write(go, &c, 1);
    (void)w;
    close(go);
    int e = 0;
    ssize_t r;
    while ((r = read(errfd, &e, sizeof(e))) < 0 && errno == EINTR)
        ;
    close(errfd);
    return r == (ssize_t)sizeof(e) ? e : 0;
}

int launch_exit_code(int status)
{
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

int launch_wait(pid_t pid, struct cpuprof *cp, lat_ns cpu_stop_at, bool *cpu_stopped, int *cpu_err)
{
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, cp && !*cpu_stopped ? WNOHANG : 0);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return 0;
        if (cp && !*cpu_stopped) {
            int rc = cpuprof_poll(cp, 100);
            if (rc < 0 && !*cpu_err) *cpu_err = rc;
            if (cpu_stop_at && clock_now_ns() >= cpu_stop_at) {
                rc = cpuprof_stop(cp);
                if (rc < 0 && !*cpu_err) *cpu_err = rc;
                *cpu_stopped = true;
            }
        }
    }
}

/* --- signals ------------------------------------------------------------------------------------
 */

static volatile sig_atomic_t g_child = -1;
static volatile sig_atomic_t g_stop;

static void on_forward(int sig)
{
    if (g_child > 0) kill((pid_t)g_child, sig);
    g_stop = 1;
}

/* SIGINT from the terminal (si_code SI_KERNEL) reached the child too: it is in our process
 * group. One sent by a process (kill, timeout, a supervisor: si_code <= 0) reached only us, so
 * it is forwarded, as SIGTERM and SIGHUP always are. */
static void on_int(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (si && si->si_code <= 0 && g_child > 0) kill((pid_t)g_child, sig);
    g_stop = 1;
}

void launch_signals_install(struct launch_signals *s, pid_t child)
{
    g_child = child;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_int;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGINT, &sa, &s->old_int);
    sa.sa_flags = 0;
    sa.sa_handler = on_forward;
    sigaction(SIGTERM, &sa, &s->old_term);
    sigaction(SIGHUP, &sa, &s->old_hup);
}

void launch_signals_restore(struct launch_signals *s)
{
    g_child = -1;
    sigaction(SIGINT, &s->old_int, NULL);
    sigaction(SIGTERM, &s->old_term, NULL);
    sigaction(SIGHUP, &s->old_hup, NULL);
}

bool launch_stop_requested(void)
{
    return g_stop != 0;
}

void launch_rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}
