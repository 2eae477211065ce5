/*
 * cpuprof-run.c - a small driver of the CPU sampler library, used by perf/30-cpuprof.sh and
 * while `latscope trace --cpu` is not wired: runs CMD under the sampler exactly as cmd-trace's
 * launch path does (fork, hold the child before exec, cpuprof_start(pid, true), release,
 * poll until it exits, stop), then writes folded stacks / an SVG and prints the stats.
 *
 *   cpuprof-run [-F HZ] [-f FOLDED] [-s SVG] [-n] [-p] -- CMD ARGS...
 *   cpuprof-run [...] -P PID [-d SECONDS]      attach to a running process
 *   cpuprof-run -O MINOR                        print the CPython 3.MINOR offset table
 *   -n: no kernel stacks, no off-CPU; -p: no Python frames; -a: print the analyze summary
 *   (analyze/cpu.h) of the samples on stdout
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/cpu.h"
#include "capture/cpu/pyread.h"
#include "capture/cpuprof.h"

#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_attach(pid_t pid, double duration, const struct cpuprof_opts *o, const char *folded)
{
    struct cpuprof *p;
    int rc = cpuprof_start(pid, false, o, &p);
    if (rc) {
        fprintf(stderr, "cpuprof-run: %s\n", cpuprof_strerror(rc));
        return 1;
    }
    double end = now_s() + (duration > 0 ? duration : 1);
    while (now_s() < end && kill(pid, 0) == 0)
        cpuprof_poll(p, 100);
    cpuprof_stop(p);
    if (folded) {
        FILE *f = fopen(folded, "w");
        if (!f || cpuprof_write_folded(p, f) || fclose(f)) return 1;
    }
    char stats[2048];
    cpuprof_stats(p, stats, sizeof(stats));
    fprintf(stderr, "cpuprof-run: %s\n", stats);
    cpuprof_free(p);
    return 0;
}

int main(int argc, char **argv)
{
    struct cpuprof_opts o = {.freq_hz = 99,
                             .kernel_stacks = true,
                             .offcpu = true,
                             .python = true,
                             .follow_children = true};
    const char *folded = NULL, *svg = NULL;
    bool summary = false;
    pid_t attach = 0;
    double duration = 0;
    int c;
    while ((c = getopt(argc, argv, "+F:f:s:npP:d:O:a")) != -1) {
        switch (c) {
        case 'P':
            attach = (pid_t)atoi(optarg);
            break;
        case 'a':
            summary = true;
            break;
        case 'd':
            duration = atof(optarg);
            break;
        case 'O': {
            char buf[2048];
            if (pyread_dump_offsets((unsigned)atoi(optarg), buf, sizeof(buf)) < 0) return 1;
            fputs(buf, stdout);
            return 0;
        }
        case 'F':
            o.freq_hz = (unsigned)atoi(optarg);
            break;
        case 'f':
            folded = optarg;
            break;
        case 's':
            svg = optarg;
            break;
        case 'n':
            o.kernel_stacks = o.offcpu = false;
            break;
        case 'p':
            o.python = false;
            break;
        default:
            return 2;
        }
    }
    if (attach) return run_attach(attach, duration, &o, folded);
    if (optind >= argc) {
        fprintf(stderr, "usage: cpuprof-run [-F HZ] [-f FOLDED] [-s SVG] [-n] [-p] -- CMD...\n");
        return 2;
    }
    int go[2];
    if (pipe(go)) return 1;
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        char ch;
        close(go[1]);
        if (read(go[0], &ch, 1) != 1) _exit(126);
        execvp(argv[optind], argv + optind);
        _exit(127);
    }
    close(go[0]);
    struct cpuprof *p;
    int rc = cpuprof_start(pid, true, &o, &p);
    if (rc) {
        fprintf(stderr, "cpuprof-run: %s\n", cpuprof_strerror(rc));
        close(go[1]);
        waitpid(pid, NULL, 0);
        return 1;
    }
    if (write(go[1], "x", 1) != 1) return 1;
    close(go[1]);
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0)
        cpuprof_poll(p, 100);
    cpuprof_stop(p);
    if (folded) {
        FILE *f = fopen(folded, "w");
        if (!f || cpuprof_write_folded(p, f) || fclose(f)) return 1;
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        if (!f || cpuprof_write_flamegraph(p, f, "cpuprof-run") || fclose(f)) return 1;
    }
    char stats[2048];
    cpuprof_stats(p, stats, sizeof(stats));
    fprintf(stderr, "cpuprof-run: %s\n", stats);
    if (summary) {
        struct lat_trace *t;
        struct lat_cpu_summary s;
        if (lat_trace_new(&t) || cpuprof_export(p, t) || lat_cpu_summarize(t, NULL, &s)) return 1;
        lat_cpu_format_text(&s, stdout);
        lat_cpu_summary_fini(&s);
        lat_trace_free(t);
    }
    cpuprof_free(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
