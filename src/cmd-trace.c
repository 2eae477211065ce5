/*
 * cmd-trace.c - `latscope trace`: run a command with CUDA/NVTX capture (liblatscope-cupti.so
 * injected through CUDA_INJECTION64_PATH / NVTX_INJECTION64_PATH) and/or CPU sampling
 * (capture/cpuprof.h), merge what every process wrote, and write one Kineto-compatible trace.
 *
 * Launch: the child is forked and held on a pipe before exec, so the CPU sampler can attach
 * with enable_on_exec before the first instruction of the target; the injection library is
 * configured purely through the child's environment (LATSCOPE_TRACE_DIR and friends), so the
 * target's code is unchanged and `--off` runs the very same command with nothing set, for the
 * true latency. The command always runs, even when capture cannot (no driver, no library, CUPTI
 * busy): we say why on stderr and exit with the command's own status (128 + signal when killed),
 * so `latscope trace -- CMD` can stand in for CMD in scripts.
 * Signals: SIGTERM/SIGHUP are forwarded to the command, and SIGINT too when a process sent it
 * (a terminal's Ctrl-C reaches the command directly); latscope then still collects and writes
 * what was captured. Output paths are checked before the command runs; with `-o -` the trace
 * owns stdout and the command's stdout is redirected to stderr. Secrets on the command line are
 * REDACTED in latscope_command (capture/meta.c). The launch itself (held child, capture
 * environment, forwarded signals) is capture/launch.c; this file is the flow and its messages.
 */
#define PR_FMT "trace"
#include "capture/collect.h"
#include "capture/cpuprof.h"
#include "capture/launch.h"
#include "capture/meta.h"
#include "core/err.h"
#include "core/log.h"
#include "core/units.h"
#include "export/kineto_write.h"
#include "export/merge.h"
#include "ingest/ingest.h"
#include "latscope.h"
#include "model/events.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct trace_args {
    bool cuda, nvtx, cpu, off, keep, pretty, events, extcorr, no_driver_api;
    bool cuda_set; /* --cuda/--nvtx/--cpu given explicitly */
    bool py_internals;
    bool freq_set;
    const char *output;
    const char *folded, *flamegraph;
    const char *merge; /* --merge DIR: a kept capture directory (or the first of merge_files) */
    const char *merge_files[16]; /* --merge FILE --merge FILE...: traces merged on one clock */
    int nmerge;
    unsigned freq;
    pid_t pid;
    lat_ns delay_ns, duration_ns;
    char **cmd;             /* the command and its arguments, NULL-terminated (in args) */
    struct cli_result args; /* the positional arguments */
};

static const char usage_text[] =
    "usage: latscope trace [OPTIONS] -- CMD [ARGS...]\n"
    "       latscope trace --cpu [CPU OPTIONS] --pid PID [--duration S]\n"
    "\n"
    "Run CMD and capture a system timeline into a Kineto-compatible trace\n"
    "(open it with latscope analyze/doctor, Perfetto, HTA or TensorBoard).\n"
    "\n";

static const char footer_text[] =
    "Ctrl-C, SIGTERM and SIGHUP stop the command; the trace so far is still written.\n"
    "Secret-looking arguments (--token X, --api-key=X, password=X, Authorization:\n"
    "...) are stored as REDACTED in the trace's latscope_command.\n"
    "\n"
    "Exit status: the command's (128 + N when killed by signal N); 1 when latscope\n"
    "itself fails before the command runs; 2 on a usage error or an output path\n"
    "that cannot be written.\n";

enum {
    OPT_CUDA,
    OPT_NVTX,
    OPT_CPU,
    OPT_FREQ,
    OPT_FOLDED,
    OPT_FLAMEGRAPH,
    OPT_PID,
    OPT_PY_INTERNALS,
    OPT_CUDA_EVENTS,
    OPT_EXTCORR,
    OPT_NO_DRIVER,
    OPT_DELAY,
    OPT_DURATION,
    OPT_OUTPUT,
    OPT_PRETTY,
    OPT_KEEP,
    OPT_MERGE,
    OPT_OFF,
};

static const struct cli_opt options[] = {
    {NULL, 0, NULL, 0, 0, "What to capture (default: --cuda --nvtx)"},
    {"cuda", 0, NULL, OPT_CUDA, 0, "CUDA kernels, memcpy/memset, runtime + driver API, syncs"},
    {"nvtx", 0, NULL, OPT_NVTX, 0, "NVTX ranges and marks (torch.cuda.nvtx, TensorRT layers)"},
    {"cpu", 0, NULL, OPT_CPU, 0, "sample CPU stacks (perf_event_open)"},
    {"freq", 0, "HZ", OPT_FREQ, CLI_SUB, "samples per second (default 99, at most 1000)"},
    {"folded", 0, "FILE", OPT_FOLDED, CLI_SUB, "also write folded stacks"},
    {"flamegraph", 0, "FILE", OPT_FLAMEGRAPH, CLI_SUB, "also write an SVG flame graph"},
    {"pid", 0, "PID", OPT_PID, CLI_SUB, "sample a running process instead of launching CMD"},
    {"py-internals", 0, NULL, OPT_PY_INTERNALS, CLI_SUB,
     "keep the interpreter's own frames between Python frames\n"
     "(default: folded away, as py-spy --native shows stacks)"},
    {"cuda-events", 0, NULL, OPT_CUDA_EVENTS, 0, "also record CUDA event activity"},
    {"external-correlation", 0, NULL, OPT_EXTCORR, 0, "also record external correlation ids"},
    {"no-driver-api", 0, NULL, OPT_NO_DRIVER, 0, "skip driver API records (runtime API only)"},
    {NULL, 0, NULL, 0, 0, "When"},
    {"delay", 0, "S", OPT_DELAY, 0, "start capturing S seconds after launch"},
    {"duration", 0, "S", OPT_DURATION, 0, "capture for S seconds (the command keeps running)"},
    {NULL, 0, NULL, 0, 0, "Output"},
    {"output", 'o', "FILE", OPT_OUTPUT, 0,
     "trace file (default latscope-trace.pt.trace.json.gz;\n"
     ".gz = gzip, '-' = stdout: the command's stdout then goes\n"
     "to stderr); checked before the command runs"},
    {"pretty", 0, NULL, OPT_PRETTY, 0, "indented JSON"},
    {"keep", 0, NULL, OPT_KEEP, 0, "keep the raw per-process capture files (path printed)"},
    {"merge", 0, "DIR|FILE", OPT_MERGE, 0,
     "only merge a kept capture directory into a trace; given\n"
     "twice or more (--merge A --merge B): merge traces of one run\n"
     "on one clock (a torch.profiler trace and a trace --cpu:\n"
     "samples inside the ops)"},
    {"off", 0, NULL, OPT_OFF, 0, "run CMD with nothing loaded and report its wall time"},
    {0},
};

static int parse_secs(const char *opt, const char *s, lat_ns *out)
{
    if (!s || units_parse_duration(s, LAT_NS_PER_S, out) < 0 || *out < 0) {
        pr_err("%s: '%s' is not a duration (e.g. 5, 2.5s, 500ms)\n", opt, s ? s : "");
        return -1;
    }
    return 0;
}

static int on_opt(void *ctx, int id, const char *next)
{
    struct trace_args *a = ctx;
    char *end;
    switch (id) {
    case OPT_CUDA:
        a->cuda = a->cuda_set = true;
        return 0;
    case OPT_NVTX:
        a->nvtx = a->cuda_set = true;
        return 0;
    case OPT_CPU:
        a->cpu = a->cuda_set = true;
        return 0;
    case OPT_OFF:
        a->off = true;
        return 0;
    case OPT_PY_INTERNALS:
        a->py_internals = true;
        return 0;
    case OPT_KEEP:
        a->keep = true;
        return 0;
    case OPT_PRETTY:
        a->pretty = true;
        return 0;
    case OPT_CUDA_EVENTS:
        a->events = true;
        return 0;
    case OPT_EXTCORR:
        a->extcorr = true;
        return 0;
    case OPT_NO_DRIVER:
        a->no_driver_api = true;
        return 0;
    case OPT_OUTPUT:
        if (!*next) {
            pr_err("--output needs a file name\n");
            return -1;
        }
        a->output = next;
        return 0;
    case OPT_MERGE:
        if (!*next) {
            pr_err("--merge needs a directory (one kept with --keep)\n");
            return -1;
        }
        if (a->nmerge == 16) {
            pr_err("--merge: at most 16 traces\n");
            return -1;
        }
        if (!a->merge) a->merge = next;
        a->merge_files[a->nmerge++] = next;
        return 0;
    case OPT_FOLDED:
    case OPT_FLAMEGRAPH:
        if (!*next) {
            pr_err("--%s needs a file name\n", id == OPT_FOLDED ? "folded" : "flamegraph");
            return -1;
        }
        if (id == OPT_FOLDED)
            a->folded = next;
        else
            a->flamegraph = next;
        return 0;
    case OPT_FREQ: {
        unsigned long f = strtoul(next, &end, 10);
        if (!*next || *end || f < 1 || f > 1000) {
            pr_err("--freq: '%s' is not a rate between 1 and 1000 Hz\n", next);
            return -1;
        }
        a->freq = (unsigned)f;
        a->freq_set = true;
        return 0;
    }
    case OPT_PID: {
        long p = strtol(next, &end, 10);
        if (!*next || *end || p <= 0 || p > INT_MAX) {
            pr_err("--pid: '%s' is not a process id\n", next);
            return -1;
        }
        a->pid = (pid_t)p;
        return 0;
    }
    case OPT_DELAY:
        return parse_secs("--delay", next, &a->delay_ns);
    case OPT_DURATION:
        if (parse_secs("--duration", next, &a->duration_ns)) return -1;
        if (a->duration_ns == 0) {
            pr_err("--duration must be more than 0\n");
            return -1;
        }
        return 0;
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

/* 0, CLI_HELP or CLI_ERROR; a->cmd points into a->args. */
static int parse_args(int argc, char **argv, struct trace_args *a)
{
    memset(a, 0, sizeof(*a));
    a->output = "latscope-trace.pt.trace.json.gz";
    a->freq = 99;
    a->pid = -1;
    struct cli_spec spec = {"trace", usage_text, footer_text, options, on_opt, a, true};
    int status;
    if (!cli_run(&spec, argc, argv, &a->args, &status))
        return status == LAT_EXIT_OK ? CLI_HELP : CLI_ERROR;
    a->cmd = a->args.rest < argc ? &argv[a->args.rest] : NULL;
    if (!a->cuda_set) a->cuda = a->nvtx = true;
    if ((a->folded || a->flamegraph || a->freq_set || a->py_internals) && !a->cpu) {
        pr_err("--freq, --folded, --flamegraph and --py-internals need --cpu\n");
        return -1;
    }
    if (a->merge) {
        if (a->cmd || a->pid > 0 || a->off) {
            pr_err("--merge reads an existing capture directory: no command, --pid or --off\n");
            return -1;
        }
        return 0;
    }
    if (a->pid > 0) {
        if (a->cmd) {
            pr_err("give either --pid PID or a command after --, not both\n");
            return -1;
        }
        if (!a->cpu || a->cuda || a->nvtx || a->off) {
            pr_err("--pid attaches the CPU sampler only: use it with --cpu (CUDA capture must "
                   "be loaded at launch: latscope trace --cuda -- CMD)\n");
            return -1;
        }
        return 0;
    }
    if (!a->cmd) {
        pr_err("no command: latscope trace [OPTIONS] -- CMD [ARGS...]\n");
        return -1;
    }
    return 0;
}

/* --- small helpers --------------------------------------------------------------------------- */

static lat_ns now_ns(void)
{
    return clock_now_ns();
}

static double secs(lat_ns ns)
{
    return (double)ns / 1e9;
}

/* --- running the command ------------------------------------------------------------------- */

static int run_off(char **cmd)
{
    int go, errfd;
    pid_t pid = launch_spawn_held(cmd, NULL, false, &go, &errfd);
    if (pid < 0) {
        pr_err("cannot start '%s': %s\n", cmd[0], strerror(errno));
        return LAT_EXIT_FAILURE;
    }
    struct launch_signals sig;
    launch_signals_install(&sig, pid);
    lat_ns t0 = now_ns();
    int e = launch_release(go, errfd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    lat_ns wall = now_ns() - t0;
    launch_signals_restore(&sig);
    if (e) {
        pr_err("cannot run '%s': %s\n", cmd[0], strerror(e));
        return 127;
    }
    int code = launch_exit_code(status);
    fprintf(stderr, "latscope trace --off: wall time %.6f s (nothing loaded), exit status %d\n",
            secs(wall), code);
    return code;
}

/* --- metadata ------------------------------------------------------------------------------- */

static int add_metadata(struct lat_trace *t, const struct trace_args *a, char **cmd,
                        const struct collect_stats *st, lat_ns wall_ns, int code, bool driver,
                        const char *capture_note)
{
    struct capture_meta m = {.cmd = cmd,
                             .env = environ,
                             .output = a->output,
                             .note = capture_note,
                             .cuda = a->cuda,
                             .nvtx = a->nvtx,
                             .cpu = a->cpu,
                             .driver = driver,
                             .wall_ns = wall_ns,
                             .delay_ns = a->delay_ns,
                             .duration_ns = a->duration_ns,
                             .exit_status = code,
                             .st = st};
    return capture_meta_add(t, &m);
}

static void report_statuses(const struct collect_stats *st)
{
    for (size_t i = 0; i < st->nmsgs; i++) {
        const struct collect_msg *m = &st->msgs[i];
        if (m->code == 0 || m->code == 5) /* info, forked child */
            pr_info("pid %u: %s\n", m->pid, m->text);
        else
            pr_warn("pid %u: %s: %s\n", m->pid, collect_status_name(m->code), m->text);
    }
}

static int write_cpu_files(struct cpuprof *cp, const struct trace_args *a)
{
    int ret = 0;
    if (a->folded) {
        FILE *f = fopen(a->folded, "w");
        int rc = f ? cpuprof_write_folded(cp, f) : -errno;
        if (f && fclose(f) != 0 && !rc) rc = -errno;
        if (rc < 0) {
            pr_err("%s: %s\n", a->folded,
                   rc == LAT_E_UNSUPPORTED || rc == -EACCES ? cpuprof_strerror(rc)
                                                            : lat_strerror(rc));
            ret = -1;
        }
    }
    if (a->flamegraph) {
        FILE *f = fopen(a->flamegraph, "w");
        int rc = f ? cpuprof_write_flamegraph(cp, f, "latscope trace --cpu") : -errno;
        if (f && fclose(f) != 0 && !rc) rc = -errno;
        if (rc < 0) {
            pr_err("%s: %s\n", a->flamegraph,
                   rc == LAT_E_UNSUPPORTED || rc == -EACCES ? cpuprof_strerror(rc)
                                                            : lat_strerror(rc));
            ret = -1;
        }
    }
    return ret;
}

/* --- the traced run ------------------------------------------------------------------------ */

/* What a traced run found and collected, from the checks before the launch to the write. */
struct traced_run {
    char lib[PATH_MAX]; /* liblatscope-cupti.so, when have_lib */
    char dir[PATH_MAX]; /* the capture directory */
    bool have_lib, driver;
    const char *note; /* why CUDA/NVTX capture is off, for latscope_capture */
    lat_ns launch, start_ns, stop_ns, wall;
    struct cpuprof *cp;
    struct collect_stats st;
};

/* What CUDA/NVTX capture needs: no other injector, the library, the driver. -1 (said) when the
 * command must not run; a missing library or driver only turns capture off. */
static int capture_setup(const struct trace_args *a, struct traced_run *r)
{
    if (!a->cuda && !a->nvtx) return 0;
    const char *busy[] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(busy[i]);
        if (v && *v && (i == 0 ? a->cuda : a->nvtx)) {
            pr_err("%s is already set (%s): another tool (Nsight Systems?) injects into "
                   "this process; unset it or run without --%s\n",
                   busy[i], v, i == 0 ? "cuda" : "nvtx");
            return -1;
        }
    }
    char tried[2048];
    r->have_lib = !lat_find_installed("liblatscope-cupti.so", "LATSCOPE_CUPTI_SO", r->lib,
                                      sizeof(r->lib), tried, sizeof(tried));
    if (r->have_lib) {
        pr_info("capture library: %s\n", r->lib);
    } else {
        r->note = "capture library not found";
        pr_warn("liblatscope-cupti.so not found (looked for %s)%s; CUDA/NVTX capture is "
                "off, running the command anyway\n",
                tried,
                LAT_HAVE_CUPTI ? ": install it with `make install` or set LATSCOPE_CUPTI_SO"
                               : ": this latscope was built without the CUDA toolkit's "
                                 "cupti.h, so the library was never built (see "
                                 "docs/install.md)");
    }
    if (a->cuda) {
        char why[512] = "";
        r->driver = launch_have_driver(why, sizeof(why));
        if (!r->driver) {
            r->note = "no NVIDIA driver";
            pr_warn("no NVIDIA driver: %s; CUDA capture is off%s, running the command anyway\n",
                    why, a->nvtx && r->have_lib ? " (NVTX ranges are still recorded)" : "");
        }
    }
    return 0;
}

/* Runs the command with the capture environment, the CPU sampler attached before its first
 * instruction. 0 with *code its exit code; 1 with *code 127 when exec failed; -1 when it could
 * not start (said). */
static int run_command(const struct trace_args *a, struct traced_run *r, int *code)
{
    struct launch_env env = {.n = 0};
    if (r->have_lib) {
        struct launch_capture c = {.dir = r->dir,
                                   .lib = r->lib,
                                   .cupti_lib = launch_cupti_lib(),
                                   .cuda = a->cuda && r->driver,
                                   .nvtx = a->nvtx,
                                   .driver_api = !a->no_driver_api,
                                   .cuda_events = a->events,
                                   .extcorr = a->extcorr,
                                   .start_ns = r->start_ns,
                                   .stop_ns = r->stop_ns};
        int rc = launch_capture_env(&env, &c);
        if (rc < 0) {
            launch_env_free(&env);
            pr_err("the command's environment: %s\n", lat_strerror(rc));
            return -1;
        }
    }
    int go, errfd;
    pid_t pid = launch_spawn_held(a->cmd, &env, !strcmp(a->output, "-"), &go, &errfd);
    launch_env_free(&env);
    if (pid < 0) {
        pr_err("cannot start '%s': %s\n", a->cmd[0], strerror(errno));
        return -1;
    }
    struct launch_signals sig;
    launch_signals_install(&sig, pid);
    if (a->cpu) {
        struct cpuprof_opts co = {.freq_hz = a->freq,
                                  .kernel_stacks = true,
                                  .offcpu = true,
                                  .python = true,
                                  .follow_children = true,
                                  .py_internals = a->py_internals};
        int rc = cpuprof_start(pid, true, &co, &r->cp);
        if (rc < 0) {
            pr_warn("CPU sampling is off: %s\n", cpuprof_strerror(rc));
            r->cp = NULL;
        }
    }
    lat_ns t0 = now_ns();
    int e = launch_release(go, errfd);
    lat_ns cpu_stop_at = a->duration_ns ? t0 + a->delay_ns + a->duration_ns : 0;
    bool cpu_stopped = false;
    int cpu_err = 0;
    int status = launch_wait(pid, r->cp, cpu_stop_at, &cpu_stopped, &cpu_err);
    r->wall = now_ns() - t0;
    launch_signals_restore(&sig);
    if (e) {
        pr_err("cannot run '%s': %s\n", a->cmd[0], strerror(e));
        *code = 127;
        return 1;
    }
    *code = launch_exit_code(status);
    if (r->cp && !cpu_stopped) {
        int rc = cpuprof_stop(r->cp);
        if (rc < 0 && !cpu_err) cpu_err = rc;
    }
    if (cpu_err) pr_warn("CPU sampling: %s\n", cpuprof_strerror(cpu_err));
    return 0;
}

/* The capture files and CPU samples into t; *code fails when a --folded/--flamegraph file
 * could not be written. */
static void collect_traced(const struct trace_args *a, struct traced_run *r, struct lat_trace *t,
                           int *code)
{
    lat_trace_set_format(t, &lat_format_latscope);
    t->base_time_ns = clock_realtime_ns() - (now_ns() - r->launch);
    struct collect_opts co = {.origin_ns = r->launch,
                              .start_ns = r->start_ns,
                              .stop_ns = r->stop_ns,
                              .gpu_annotations = true,
                              .demangle = true};
    int rc = collect_dir(t, r->dir, &co, &r->st);
    if (rc < 0) pr_err("reading the capture files in %s: %s\n", r->dir, lat_strerror(rc));
    report_statuses(&r->st);
    if (r->st.bad_files) pr_warn("%u capture file(s) unreadable\n", r->st.bad_files);
    if (r->st.truncated_files)
        pr_warn("%u capture file(s) cut short (process killed?); kept what was complete\n",
                r->st.truncated_files);
    if (r->st.cupti_dropped || r->st.lost)
        pr_warn("dropped records: %" PRIu64 " by CUPTI, %" PRIu64 " by latscope\n",
                r->st.cupti_dropped, r->st.lost);
    if (r->cp) {
        /* CPU samples on the same time base as the CUDA events (ts 0 = launch). */
        cpuprof_set_origin(r->cp, r->launch);
        rc = cpuprof_export(r->cp, t);
        if (rc < 0) pr_warn("CPU samples not added: %s\n", cpuprof_strerror(rc));
        if (write_cpu_files(r->cp, a) < 0 && *code == 0) *code = LAT_EXIT_FAILURE;
        char stats[2048];
        cpuprof_stats(r->cp, stats, sizeof(stats));
        if (stats[0]) fprintf(stderr, "latscope trace: cpu: %s\n", stats);
    }
}

static void print_wrote(const char *output, const struct lat_trace *t,
                        const struct collect_stats *st)
{
    fprintf(stderr,
            "latscope trace: wrote %s: %zu events (%" PRIu64 " API calls, %" PRIu64
            " kernels, %" PRIu64 " memcpys, %" PRIu64 " memsets, %" PRIu64 " syncs, %" PRIu64
            " NVTX ranges) from %u process file(s)\n",
            output, t->ev.n, st->api, st->kernels, st->memcpys, st->memsets, st->syncs,
            st->nvtx_ranges, st->files);
}

/* Collects what the run captured and writes the trace; returns the exit code (the command's,
 * unless an output failed). */
static int write_traced(const struct trace_args *a, struct traced_run *r, int code)
{
    struct lat_trace *t = NULL;
    if (lat_trace_new(&t) < 0) {
        pr_err("out of memory\n");
        return code;
    }
    collect_traced(a, r, t, &code);
    int rc;
    if ((rc = add_metadata(t, a, a->cmd, &r->st, r->wall, code, r->driver, r->note)) < 0 ||
        (rc = lat_trace_sort(t)) < 0) {
        pr_err("building the trace: %s\n", lat_strerror(rc));
        lat_trace_free(t);
        return code;
    }
    struct kineto_write_opts wo = {.pretty = a->pretty, .gzip = -1};
    rc = kineto_write_file(t, a->output, &wo);
    if (rc < 0) {
        pr_err("%s: %s\n", a->output, lat_strerror(rc));
        if (code == 0) code = LAT_EXIT_FAILURE;
    } else {
        print_wrote(a->output, t, &r->st);
        fprintf(stderr, "latscope trace: command wall time %.6f s (traced), exit status %d\n",
                secs(r->wall), code);
    }
    lat_trace_free(t);
    return code;
}

static int run_traced(const struct trace_args *a)
{
    struct traced_run r;
    memset(&r, 0, sizeof(r));
    if (capture_setup(a, &r) < 0) return LAT_EXIT_FAILURE;
    const char *tmp = getenv("TMPDIR");
    snprintf(r.dir, sizeof(r.dir), "%s/latscope-trace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(r.dir)) {
        pr_err("cannot create a capture directory in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
               strerror(errno));
        return LAT_EXIT_FAILURE;
    }
    r.launch = now_ns();
    r.start_ns = a->delay_ns ? r.launch + a->delay_ns : 0;
    r.stop_ns = a->duration_ns ? r.launch + a->delay_ns + a->duration_ns : 0;
    int code = LAT_EXIT_FAILURE;
    int rc = run_command(a, &r, &code);
    if (rc < 0) {
        launch_rm_dir(r.dir);
        return LAT_EXIT_FAILURE;
    }
    if (rc == 0) code = write_traced(a, &r, code);
    if (a->keep)
        fprintf(stderr, "latscope trace: raw capture files kept in %s\n", r.dir);
    else
        launch_rm_dir(r.dir);
    cpuprof_free(r.cp);
    return code;
}

/* --cpu --pid PID: sample a running process until it exits, --duration passes or Ctrl-C. */
static int run_attach(const struct trace_args *a)
{
    struct cpuprof *cp = NULL;
    struct cpuprof_opts co = {.freq_hz = a->freq,
                              .kernel_stacks = true,
                              .offcpu = true,
                              .python = true,
                              .follow_children = true,
                              .py_internals = a->py_internals};
    if (kill(a->pid, 0) < 0 && errno == ESRCH) {
        pr_err("--pid %d: no such process\n", (int)a->pid);
        return LAT_EXIT_FAILURE;
    }
    int rc = cpuprof_start(a->pid, false, &co, &cp);
    if (rc < 0) {
        pr_err("cannot sample pid %d: %s\n", (int)a->pid, cpuprof_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    struct launch_signals sig;
    launch_signals_install(&sig, -1);
    lat_ns t0 = now_ns();
    while (!launch_stop_requested() && !(a->duration_ns && now_ns() - t0 >= a->duration_ns)) {
        if (kill(a->pid, 0) < 0 && errno == ESRCH) break;
        rc = cpuprof_poll(cp, 100);
        if (rc < 0) {
            pr_warn("CPU sampling: %s\n", cpuprof_strerror(rc));
            break;
        }
    }
    launch_signals_restore(&sig);
    int code = LAT_EXIT_OK;
    rc = cpuprof_stop(cp);
    if (rc < 0) pr_warn("CPU sampling: %s\n", cpuprof_strerror(rc));
    struct lat_trace *t = NULL;
    if (lat_trace_new(&t) < 0) {
        cpuprof_free(cp);
        return LAT_EXIT_FAILURE;
    }
    lat_trace_set_format(t, &lat_format_latscope);
    rc = cpuprof_export(cp, t);
    if (rc < 0) {
        pr_err("CPU samples: %s\n", cpuprof_strerror(rc));
        code = LAT_EXIT_FAILURE;
    }
    if (write_cpu_files(cp, a) < 0) code = LAT_EXIT_FAILURE;
    struct collect_stats st;
    memset(&st, 0, sizeof(st));
    char pidstr[32];
    snprintf(pidstr, sizeof(pidstr), "%d", (int)a->pid);
    char *cmd[] = {(char *)"--pid", pidstr, NULL};
    rc = add_metadata(t, a, cmd, &st, now_ns() - t0, 0, false, NULL);
    if (!rc) rc = lat_trace_sort(t);
    struct kineto_write_opts wo = {.pretty = a->pretty, .gzip = -1};
    if (!rc) rc = kineto_write_file(t, a->output, &wo);
    if (rc < 0) {
        pr_err("%s: %s\n", a->output, lat_strerror(rc));
        code = LAT_EXIT_FAILURE;
    } else {
        fprintf(stderr, "latscope trace: wrote %s: %zu events\n", a->output, t->ev.n);
    }
    lat_trace_free(t);
    cpuprof_free(cp);
    return code;
}

/* Smallest time in the trace, to start a merged directory at ts 0. */
static lat_ns trace_min_ts(const struct lat_trace *t)
{
    lat_ns m = INT64_MAX;
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.ts[i] < m) m = t->ev.ts[i];
    for (size_t i = 0; i < t->nflows; i++)
        if (t->flows[i].ts < m) m = t->flows[i].ts;
    return m == INT64_MAX ? 0 : m;
}

/* --merge DIR: the per-process files of an earlier --keep run -> one trace. */
static int run_merge(const struct trace_args *a)
{
    struct lat_trace *t = NULL;
    struct collect_stats st;
    memset(&st, 0, sizeof(st));
    if (lat_trace_new(&t) < 0) return LAT_EXIT_FAILURE;
    lat_trace_set_format(t, &lat_format_latscope);
    struct collect_opts co = {.gpu_annotations = true, .demangle = true};
    int rc = collect_dir(t, a->merge, &co, &st);
    if (rc < 0) {
        pr_err("%s: %s\n", a->merge, lat_strerror(rc));
        lat_trace_free(t);
        return LAT_EXIT_FAILURE;
    }
    if (!st.files) {
        pr_err("%s: no readable cuda.<pid>.lcap capture file\n", a->merge);
        lat_trace_free(t);
        return LAT_EXIT_FAILURE;
    }
    report_statuses(&st);
    lat_ns m = trace_min_ts(t);
    for (size_t i = 0; i < t->ev.n; i++)
        t->ev.ts[i] -= m;
    for (size_t i = 0; i < t->nflows; i++)
        t->flows[i].ts -= m;
    char mdir[PATH_MAX];
    snprintf(mdir, sizeof(mdir), "%s", a->merge);
    char *cmd[] = {(char *)"--merge", mdir, NULL};
    rc = add_metadata(t, a, cmd, &st, 0, 0, false, NULL);
    if (!rc) rc = lat_trace_sort(t);
    struct kineto_write_opts wo = {.pretty = a->pretty, .gzip = -1};
    if (!rc) rc = kineto_write_file(t, a->output, &wo);
    int code = LAT_EXIT_OK;
    if (rc < 0) {
        pr_err("%s: %s\n", a->output, lat_strerror(rc));
        code = LAT_EXIT_FAILURE;
    } else {
        print_wrote(a->output, t, &st);
    }
    lat_trace_free(t);
    return code;
}

/* Fails with the reason when `path` (given to option opt) cannot be written, before anything
 * runs: a run must not be lost to an unwritable output found at its end. Leaves the file
 * system as it was (an existing file is opened without truncation; a new one is created and
 * removed again). */
static int check_writable(const char *opt, const char *path)
{
    return lat_check_output("trace", opt, path, "nothing was run");
}

/* --merge A --merge B ...: traces of the same run (a torch.profiler trace, a latscope trace
 * --cpu) merged on the realtime clock their baseTimeNanoseconds name; the first one's ts 0 is
 * kept. */
static int run_merge_traces(const struct trace_args *a)
{
    struct lat_trace *dst = NULL;
    int code = LAT_EXIT_FAILURE, rc = 0;
    for (int i = 0; i < a->nmerge; i++) {
        struct stat sb;
        if (stat(a->merge_files[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            pr_err("--merge %s: a directory; merge a kept capture directory alone (--merge DIR), "
                   "or give trace files\n",
                   a->merge_files[i]);
            code = LAT_EXIT_USAGE;
            goto out;
        }
    }
    for (int i = 0; i < a->nmerge; i++) {
        struct lat_trace *t = NULL;
        char err[LAT_INGEST_ERRLEN] = "";
        rc = ingest_open(a->merge_files[i], NULL, &t, err, sizeof(err));
        if (rc < 0) {
            pr_err("%s: %s\n", a->merge_files[i], err[0] ? err : lat_strerror(rc));
            goto out;
        }
        if (!t->base_time_ns) {
            pr_err("%s: no baseTimeNanoseconds: its clock cannot be related to the others "
                   "(torch.profiler and latscope trace write it; an older or hand-made trace "
                   "does not)\n",
                   a->merge_files[i]);
            lat_trace_free(t);
            goto out;
        }
        if (!dst) {
            dst = t;
            continue;
        }
        lat_ns shift = 0;
        size_t before = dst->ev.n;
        rc = lat_trace_merge(dst, t, &shift);
        lat_trace_free(t);
        if (rc < 0) {
            pr_err("merging %s: %s\n", a->merge_files[i], lat_strerror(rc));
            goto out;
        }
        fprintf(stderr, "latscope trace: merged %s: %zu events, shifted by %+.6f s\n",
                a->merge_files[i], dst->ev.n - before, (double)shift / 1e9);
    }
    if ((rc = lat_trace_sort(dst)) < 0) {
        pr_err("sorting the merged trace: %s\n", lat_strerror(rc));
        goto out;
    }
    struct kineto_write_opts wo = {.pretty = a->pretty, .gzip = -1};
    rc = kineto_write_file(dst, a->output, &wo);
    if (rc < 0) {
        pr_err("%s: %s\n", a->output, lat_strerror(rc));
        goto out;
    }
    fprintf(stderr, "latscope trace: wrote %s: %zu events from %d traces\n", a->output, dst->ev.n,
            a->nmerge);
    code = LAT_EXIT_OK;
out:
    lat_trace_free(dst);
    return code;
}

static int trace_run(struct trace_args *a)
{
    if (!a->off &&
        (check_writable("--output", a->output) || check_writable("--folded", a->folded) ||
         check_writable("--flamegraph", a->flamegraph)))
        return LAT_EXIT_USAGE;
    if (a->nmerge > 1) return run_merge_traces(a);
    if (a->merge) return run_merge(a);
    if (a->pid > 0) return run_attach(a);
    if (a->off) return run_off(a->cmd);
    return run_traced(a);
}

int cmd_trace(int argc, char **argv, const struct lat_opts *opts)
{
    struct trace_args a;
    (void)opts;
    int prc = parse_args(argc, argv, &a);
    if (prc == CLI_HELP) return LAT_EXIT_OK;
    if (prc) {
        cli_result_fini(&a.args);
        return LAT_EXIT_USAGE;
    }
    int code = trace_run(&a);
    cli_result_fini(&a.args);
    return code;
}
