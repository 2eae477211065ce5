/*
 * cpuprof.c - the CPU sampler behind `latscope trace --cpu` (interface: cpuprof.h).
 *
 * Capture: one software cpu-clock event per CPU for the target (pid = target, cpu = N,
 * inherit = 1: perf's layout, because an inherited per-thread event cannot be mmap'ed), with
 * frame-pointer callchains (kernel + user), a user stack copy + user registers for DWARF
 * unwinding, mmap2/comm/task records and CLOCK_MONOTONIC timestamps. Off-CPU time comes from
 * a second, per-CPU context-switch event (period 1: a sample with the stack at every switch
 * out) with context_switch = 1, whose PERF_RECORD_SWITCH "in" records close each interval.
 * Attaching to a running process opens the events for every thread in /proc/PID/task and
 * redirects them into one ring per CPU (PERF_EVENT_IOC_SET_OUTPUT).
 *
 * Processing happens while draining, not at the end: each sample is symbolized right away
 * (the mappings are current then, and the target may be gone at stop time) into an interned
 * root-first stack, so memory grows with distinct stacks, not with samples. Every event wakes
 * the collector (wakeup_events = 1) so the Python frames of the sampled thread, read from
 * outside with process_vm_readv, are taken within a poll wakeup of the native sample; they
 * replace the _PyEval_EvalFrameDefault frames of the native stack, one C-level eval call per
 * group of Python frames. Rejected: a ptrace stop per sample (~55 µs per thread, it perturbs
 * the target) and in-process signal handlers (need code in the target).
 * Threading: one thread owns a struct cpuprof (cmd-trace's loop); nothing is shared.
 */
#define PR_FMT "cpuprof"
#include "capture/cpuprof.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/cpu/perfring.h"
#include "capture/cpu/pyread.h"
#include "capture/cpu/stacks.h"
#include "capture/cpu/symtab.h"
#include "capture/cpu/unwind.h"
#include "capture/demangle.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/log.h"
#include "core/pctl.h"
#include "model/pyframe.h"

#define CP_MAX_FRAMES  256
#define CP_RING_PAGES  128 /* 512 KiB + 1 page: perf_event_mlock_kb's default per CPU */
#define CP_STACK_BYTES 8192
#define CP_IPCACHE     8192 /* per process, power of two */
#define CP_REC_BUF     (72 * 1024)
#define CP_PY_MAX      128
#define CP_STAGE_RECS  256        /* records staged per drain pass */
#define CP_STAGE_BYTES (4u << 20) /* bytes staged per drain pass */
#define CP_LAG_BUCKETS 24         /* log2 µs histogram of the Python read lag */
#define CP_MAX_LAG_NS  10000000   /* a Python read later than this is not trusted */

/* The Python frames read for one staged sample, right when it was drained (pass 1). */
struct cp_pyread {
    int np;      /* frames; 0 none (not a Python thread, no frames), < 0 read error */
    bool done;   /* a read was attempted */
    int64_t lag; /* ns from an on-CPU sample to the read; -1 for off-CPU samples */
    uint32_t id[CP_PY_MAX];
    bool gstart[CP_PY_MAX];
};

struct cp_file {
    char *path;
    struct symtab *st; /* NULL when it could not be read */
    int err;
};

struct cp_map {
    uint64_t start, end, pgoff;
    int32_t file; /* index into files, -1 for anonymous/special */
    char special[16];
};

struct cp_ipc {
    uint64_t key; /* address | 1 for kernel; 0 = empty */
    uint32_t frame;
};

struct cp_proc {
    pid_t pid;
    struct cp_map *maps;
    size_t nmaps, maps_cap;
    struct cp_ipc *ipc;
    struct symtab *jit;
    int64_t jit_checked_ns;
    struct pyreader *py;
    int py_state; /* 0 = look for it, 1 = reading, -1 = none/unsupported */
    struct unwinder *unw;
    int64_t maps_reloaded_ns;
};

struct cp_thread {
    pid_t pid, tid;
    char comm[17];
    bool out_pending;
    int64_t out_ts;
    uint32_t out_stack;
};

struct cp_sample {
    int64_t ts, dur;
    pid_t pid, tid;
    uint32_t stack;
    bool off;
};

/* What became of the Python frames of one on-CPU sample of a Python process (py_on, py_main). */
enum cp_pyout {
    CP_PY_OK = 0,  /* Python frames merged in (a cut-short native unwind too) */
    CP_PY_LATE,    /* read more than CP_MAX_LAG_NS after the sample: left out */
    CP_PY_STALE,   /* the frame chain changed between the sample and the read: left out */
    CP_PY_TORN,    /* the read failed (a chain changing under it, a thread gone) */
    CP_PY_NOFRAME, /* the thread held no Python frame (start-up, exit, a native thread) */
    CP_PY_NOTREAD, /* not read: the process's frame reader was not open (yet) */
    CP_PY_OUTS
};
static const char *const cp_pyout_key[CP_PY_OUTS] = {"with_python", "late",     "stale",
                                                     "torn",        "no_frame", "not_read"};

struct cpuprof {
    struct cpuprof_opts o;
    pid_t pid;
    int ncpu;
    struct perfring *rings;
    int *fds;
    size_t nfds, fds_cap;
    uint64_t *cs_ids;
    size_t ncs_ids, cs_ids_cap;
    uint64_t sample_type, regs_mask;
    bool kernel, offcpu, stopped, origin_set;
    int64_t origin_ns;

    struct cp_file *files;
    size_t nfiles, files_cap;
    struct cp_proc *procs;
    size_t nprocs, procs_cap;
    struct cp_thread *threads;
    size_t nthreads, threads_cap;
    struct cp_sample *samples;
    size_t nsamples, samples_cap;
    struct stackset stacks;
    struct symtab *kallsyms;
    bool kallsyms_tried;
    uint32_t eval_frame; /* frame id of _PyEval_EvalFrameDefault */

    /* frame ids that are interpreter internals (native frames of python3* / libpython3*) */
    uint8_t *interp;
    size_t interp_cap;

    /* counters */
    uint64_t n_on, n_off, lost, dwarf, py_frames, py_samples, py_reads, bad_records, filtered,
        py_stale, py_torn, py_nothread, py_truncated, py_folded, py_late;
    int64_t py_ns;
    uint64_t py_lag[CP_LAG_BUCKETS], py_lag_n;
    int64_t py_lag_max;
    uint32_t py_unsupported_version;
    /* on-CPU samples of processes whose frame reader opened, by outcome: every thread, and the
     * processes' main threads (tid == pid) */
    uint64_t py_on[CP_PY_OUTS], py_main[CP_PY_OUTS];
    /* staging of one drain pass: records copied out of the rings, Python stacks read first */
    uint8_t *stage;
    struct {
        uint32_t off, len;
    } stage_rec[CP_STAGE_RECS];
    struct cp_pyread *stage_py; /* CP_STAGE_RECS entries */
    const struct cp_pyread *cur_py;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Files and mappings ----------------------------------------------------------------------- */

static int file_get(struct cpuprof *p, const char *path)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (!strcmp(p->files[i].path, path)) return (int)i;
    if (LAT_GROW(p->files, p->files_cap, p->nfiles, 1, 16)) return -1;
    struct cp_file *f = &p->files[p->nfiles];
    f->path = strdup(path);
    if (!f->path) return -1;
    f->err = symtab_load_elf(path, &f->st);
    if (f->err) pr_dbg("%s: no symbols (%s)\n", path, lat_strerror(f->err));
    return (int)p->nfiles++;
}

static struct cp_proc *proc_find(struct cpuprof *p, pid_t pid)
{
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].pid == pid) return &p->procs[i];
    return NULL;
}

static void proc_clear(struct cp_proc *pr)
{
    free(pr->maps);
    free(pr->ipc);
    symtab_free(pr->jit);
    pyreader_free(pr->py);
    unwinder_free(pr->unw);
    pid_t pid = pr->pid;
    memset(pr, 0, sizeof(*pr));
    pr->pid = pid;
}

static int map_add(struct cpuprof *p, struct cp_proc *pr, uint64_t start, uint64_t len,
                   uint64_t pgoff, const char *path);
static bool map_bias(const struct cp_file *f, const struct cp_map *m, uint64_t *bias);

/* Loads /proc/PID/maps (executable mappings): for attach, and when an address misses. */
static void proc_load_maps(struct cpuprof *p, struct cp_proc *pr)
{
    char path[64], *text;
    size_t len;
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pr->pid);
    pr->maps_reloaded_ns = now_ns();
    if (symtab_read_file(path, 64u << 20, &text, &len)) return;
    for (char *line = text, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = '\0';
        unsigned long long s, e, off;
        char perm[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perm, &off, &pos) < 4) continue;
        if (perm[2] != 'x') continue;
        const char *name = line + pos;
        while (*name == ' ')
            name++;
        map_add(p, pr, s, e - s, off, name);
    }
    free(text);
}

static struct cp_proc *proc_get(struct cpuprof *p, pid_t pid)
{
    struct cp_proc *pr = proc_find(p, pid);
    if (pr) return pr;
    if (LAT_GROW(p->procs, p->procs_cap, p->nprocs, 1, 16)) return NULL;
    pr = &p->procs[p->nprocs++];
    memset(pr, 0, sizeof(*pr));
    pr->pid = pid;
    return pr;
}

static int map_add(struct cpuprof *p, struct cp_proc *pr, uint64_t start, uint64_t len,
                   uint64_t pgoff, const char *path)
{
    uint64_t end = start + len;
    if (!len || end < start) return 0;
    /* A new mapping replaces whatever it overlaps (munmap/mmap reuse of the range). */
    size_t w = 0;
    for (size_t i = 0; i < pr->nmaps; i++) {
        struct cp_map *m = &pr->maps[i];
        if (m->end <= start || m->start >= end) pr->maps[w++] = *m;
    }
    pr->nmaps = w;
    if (LAT_GROW(pr->maps, pr->maps_cap, pr->nmaps, 1, 16)) return -ENOMEM;
    struct cp_map *m = &pr->maps[pr->nmaps++];
    memset(m, 0, sizeof(*m));
    m->start = start;
    m->end = end;
    m->pgoff = pgoff;
    m->file = -1;
    if (path[0] == '/') {
        m->file = file_get(p, path);
        const char *b = strrchr(path, '/') + 1;
        if (p->o.python && pr->py_state == -1 &&
            (!strncmp(b, "libpython3", 10) || !strncmp(b, "python3", 7)))
            pr->py_state = 0;
    } else {
        snprintf(m->special, sizeof(m->special), "%s", path[0] ? path : "[anon]");
    }
    if (pr->ipc) memset(pr->ipc, 0, CP_IPCACHE * sizeof(*pr->ipc));
    /* Every file mapping reaches the unwinder, whether it came from an mmap record or from
     * /proc/PID/maps: the rings of different CPUs are drained one after the other, so an exec's
     * COMM record may wipe mappings whose records were already read from another ring. */
    uint64_t bias;
    if (pr->unw && m->file >= 0 && map_bias(&p->files[m->file], m, &bias)) {
        const struct symtab *st = p->files[m->file].st;
        unwinder_add_module(pr->unw, p->files[m->file].path, bias,
                            st->nsegs ? st->segs[0].vaddr : 0);
    }
    return 0;
}

static struct cp_map *map_find(struct cp_proc *pr, uint64_t addr)
{
    for (size_t i = 0; i < pr->nmaps; i++)
        if (addr >= pr->maps[i].start && addr < pr->maps[i].end) return &pr->maps[i];
    return NULL;
}

/* Load bias of mapping m: runtime address minus link-time address. */
static bool map_bias(const struct cp_file *f, const struct cp_map *m, uint64_t *bias)
{
    uint64_t v;
    if (!f->st || !symtab_off_to_vaddr(f->st, m->pgoff, &v)) return false;
    *bias = m->start - v;
    return true;
}

/* Symbolization ----------------------------------------------------------------------------- */

static int frame_str(struct cpuprof *p, const char *s, uint32_t *id)
{
    return stackset_frame(&p->stacks, s, strlen(s), id);
}

static void jit_refresh(struct cp_proc *pr)
{
    char path[64], *text;
    size_t len;
    int64_t t = now_ns();
    if (pr->jit_checked_ns && t - pr->jit_checked_ns < 200000000) return;
    pr->jit_checked_ns = t;
    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pr->pid);
    if (symtab_read_file(path, 256u << 20, &text, &len)) return;
    struct symtab *st;
    if (symtab_parse_perfmap(text, len, &st) == 0) {
        symtab_free(pr->jit);
        pr->jit = st;
    }
    free(text);
}

static uint32_t sym_user(struct cpuprof *p, struct cp_proc *pr, uint64_t addr)
{
    char buf[600];
    uint32_t id;
    struct cp_map *m = map_find(pr, addr);
    if (!m && now_ns() - pr->maps_reloaded_ns > 100000000) {
        proc_load_maps(p, pr);
        m = map_find(pr, addr);
    }
    const char *name = NULL;
    char *dm = NULL;
    bool interp = false;
    if (m && m->file >= 0) {
        struct cp_file *f = &p->files[m->file];
        uint64_t off = addr - m->start + m->pgoff, vaddr;
        const char *b = strrchr(f->path, '/');
        b = b ? b + 1 : f->path;
        interp = !strncmp(b, "libpython3", 10) || !strncmp(b, "python3", 7);
        if (f->st && symtab_off_to_vaddr(f->st, off, &vaddr))
            name = symtab_lookup(f->st, vaddr, NULL);
        if (name && name[0] == '_' && name[1] == 'Z' && (dm = lat_demangle(name, strlen(name)))) {
            /* C++: demangled, as perf and py-spy show it; very long template names cut. */
            if (strlen(dm) > 400) memcpy(dm + 396, "...", 4);
            name = dm;
        }
        if (!name) {
            snprintf(buf, sizeof(buf), "[%s]", b);
            name = buf;
        }
    } else {
        jit_refresh(pr);
        if (pr->jit) name = symtab_lookup(pr->jit, addr, NULL);
        if (!name && m) name = m->special;
        if (!name) name = "[unknown]";
    }
    int rc = frame_str(p, name, &id);
    free(dm);
    if (rc) return 0;
    if (interp && id != p->eval_frame) {
        if (id >= p->interp_cap) {
            size_t old = p->interp_cap;
            if (LAT_GROW(p->interp, p->interp_cap, id, 1, 1024)) return id;
            memset(p->interp + old, 0, p->interp_cap - old);
        }
        p->interp[id] = 1;
    }
    return id;
}

static bool is_interp(const struct cpuprof *p, uint32_t id)
{
    return id < p->interp_cap && p->interp[id];
}

static uint32_t sym_kernel(struct cpuprof *p, uint64_t addr)
{
    char buf[600];
    uint32_t id;
    if (!p->kallsyms_tried) {
        char *text;
        size_t len;
        p->kallsyms_tried = true;
        if (symtab_read_file("/proc/kallsyms", 64u << 20, &text, &len) == 0) {
            symtab_parse_kallsyms(text, len, &p->kallsyms);
            free(text);
        }
    }
    const char *name = p->kallsyms ? symtab_lookup(p->kallsyms, addr, NULL) : NULL;
    snprintf(buf, sizeof(buf), "%s_[k]", name ? name : "[kernel]");
    if (frame_str(p, buf, &id)) return 0;
    return id;
}

/* Frame id of an address, through the per-process cache. */
static uint32_t sym_cached(struct cpuprof *p, struct cp_proc *pr, uint64_t addr, bool kernel)
{
    if (!pr->ipc) pr->ipc = calloc(CP_IPCACHE, sizeof(*pr->ipc));
    uint64_t key = (addr << 1) | kernel;
    struct cp_ipc *c =
        pr->ipc ? &pr->ipc[(key * 0x9E3779B97F4A7C15ull) >> 51 & (CP_IPCACHE - 1)] : NULL;
    if (c && c->key == key) return c->frame;
    uint32_t id = kernel ? sym_kernel(p, addr) : sym_user(p, pr, addr);
    if (c) {
        c->key = key;
        c->frame = id;
    }
    return id;
}

/* Python ------------------------------------------------------------------------------------- */

static void py_setup(struct cpuprof *p, struct cp_proc *pr)
{
    pr->py_state = -1;
    for (size_t i = 0; i < pr->nmaps; i++) {
        struct cp_map *m = &pr->maps[i];
        if (m->file < 0) continue;
        struct cp_file *f = &p->files[m->file];
        const char *b = strrchr(f->path, '/') + 1;
        if (strncmp(b, "libpython3", 10) && strncmp(b, "python3", 7)) continue;
        uint64_t bias;
        if (!map_bias(f, m, &bias)) continue;
        uint32_t ver;
        int rc = pyreader_open(pr->pid, f->path, bias, &pr->py, &ver);
        if (rc == 0) {
            pr->py_state = 1;
            pr_dbg("pid %d: Python %u.%u frames from %s\n", (int)pr->pid, ver >> 24,
                   (ver >> 16) & 0xff, f->path);
            return;
        }
        if (rc == LAT_E_UNSUPPORTED) {
            if (!p->py_unsupported_version)
                pr_warn("Python %u.%u in pid %d is not supported by the frame reader (3.11-3.13 "
                        "are): native frames only\n",
                        ver >> 24, (ver >> 16) & 0xff, (int)pr->pid);
            p->py_unsupported_version = ver ? ver : 1;
            return;
        }
    }
}

/* Pass 1 of a drain: reads the Python frames of thread tid now, before the costly native
 * unwinding of this and the other pending samples, so the lag to the sample stays small. */
static void py_read(struct cpuprof *p, struct cp_proc *pr, pid_t tid, int64_t sample_ts, bool off,
                    struct cp_pyread *out)
{
    struct pyframe pf[CP_PY_MAX];
    int64_t t0 = now_ns();
    uint64_t r0 = pyreader_reads(pr->py);
    int np = pyreader_stack(pr->py, tid, pf, CP_PY_MAX);
    int64_t t1 = now_ns();
    p->py_ns += t1 - t0;
    p->py_reads += pyreader_reads(pr->py) - r0;
    /* How late the read came after an on-CPU sample (both CLOCK_MONOTONIC). */
    int64_t lag = off ? -1 : t0 - sample_ts;
    if (lag >= 0) {
        unsigned bkt = 0;
        for (int64_t us = lag / 1000; us && bkt < CP_LAG_BUCKETS - 1; us >>= 1)
            bkt++;
        p->py_lag[bkt]++;
        p->py_lag_n++;
        if (lag > p->py_lag_max) p->py_lag_max = lag;
    }
    out->done = true;
    out->np = np;
    out->lag = lag;
    if (np == -ESRCH) pr->py_state = -1;
    for (int i = 0; i < np; i++) {
        const struct pyframe *f = &pf[np - 1 - i];
        char buf[600];
        lat_py_frame_name(buf, sizeof(buf), f->func, strlen(f->func), f->file, strlen(f->file),
                          f->line);
        if (frame_str(p, buf, &out->id[i])) out->id[i] = 0;
        out->gstart[i] = i == 0 || f->entry;
    }
}

/* True when the root-first native stack reaches a thread's start (the unwind is complete). */
static bool native_complete(const struct cpuprof *p, const uint32_t *nat, uint32_t n)
{
    if (!n) return false;
    const char *r = stackset_frame_name(&p->stacks, nat[0]);
    return !strcmp(r, "_start") || !strcmp(r, "__libc_start_main") ||
           !strcmp(r, "__libc_start_call_main") || !strcmp(r, "clone") || !strcmp(r, "clone3") ||
           !strcmp(r, "start_thread") || !strcmp(r, "__clone");
}

/* Replaces the eval-loop frames of the root-first user stack `nat` (n frames) with the Python
 * frames read in pass 1 (py); writes the result into out (cap entries). Returns the count.
 * Interpreter internals between the first and the last Python frame are left out unless
 * py_internals is set (py-spy --native's view). */
static uint32_t py_merge(struct cpuprof *p, const struct cp_pyread *py, const uint32_t *nat,
                         uint32_t n, uint32_t *out, uint32_t cap, enum cp_pyout *why)
{
    int np = py ? py->np : 0;
    *why = CP_PY_OK;
    if (np > 0 && py->lag > CP_MAX_LAG_NS) {
        /* The collector got the CPU too late (a loaded machine): the thread has likely moved
         * on, so its Python frames would be a guess. Native frames only, counted. */
        p->py_late++;
        *why = CP_PY_LATE;
        np = 0;
    } else if (np < 0) {
        p->py_torn++;
        *why = CP_PY_TORN;
        np = 0;
    } else if (np == 0) {
        p->py_nothread++;
        *why = CP_PY_NOFRAME;
    }
    if (np <= 0) {
        memcpy(out, nat, n * sizeof(*out));
        return n;
    }
    const uint32_t *pyid = py->id;
    const bool *gstart = py->gstart;
    int ng = 0;
    for (int i = 0; i < np; i++)
        ng += gstart[i];
    uint32_t evals = 0, o = 0;
    for (uint32_t i = 0; i < n; i++)
        evals += nat[i] == p->eval_frame;
    int pi = 0; /* next Python frame to place */
    if (evals && evals != (uint32_t)ng) {
        if (evals < (uint32_t)ng && !native_complete(p, nat, n)) {
            /* The native unwind stopped early (an 8 KiB stack copy, code without CFI): its
             * eval calls are the innermost ones. The outer groups go first, at the root. */
            p->py_truncated++;
            for (int skip = ng - (int)evals; pi < np && o < cap; pi++) {
                if (gstart[pi] && skip-- == 0) break;
                out[o++] = pyid[pi];
            }
        } else {
            /* One group per C-level eval call: a different count means the thread moved on
             * between the sample and our read. Keep the native stack, counted. */
            p->py_stale++;
            *why = CP_PY_STALE;
            memcpy(out, nat, n * sizeof(*out));
            return n;
        }
    }
    p->py_samples++;
    p->py_frames += (uint64_t)np;
    if (!evals) { /* native unwinding did not reach the interpreter: Python frames first */
        for (; pi < np && o < cap; pi++)
            out[o++] = pyid[pi];
    }
    /* Outer groups already placed at the root (a cut-short unwind): everything up to the
     * first native eval call is between Python frames too. */
    bool lead_py = pi > 0;
    uint32_t k = 0, last_eval = 0, first_eval = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (nat[i] == p->eval_frame) {
            if (first_eval == UINT32_MAX) first_eval = i;
            last_eval = i;
        }
    for (uint32_t i = 0; i < n && o < cap; i++) {
        if (nat[i] != p->eval_frame) {
            /* interpreter plumbing between two Python frames (PyObject_Call, _PyEval_Vector,
             * method wrappers ...): folded away by default */
            if (!p->o.py_internals && evals && (lead_py || i > first_eval) && i < last_eval &&
                is_interp(p, nat[i])) {
                p->py_folded++;
                continue;
            }
            out[o++] = nat[i];
            continue;
        }
        k++;
        /* The k-th eval call gets the next group; the last one gets all that remain. */
        if (pi < np) {
            do {
                out[o++] = pyid[pi++];
            } while (pi < np && o < cap && (k == evals || !gstart[pi]));
        }
    }
    for (; pi < np && o < cap; pi++)
        out[o++] = pyid[pi];
    return o;
}

/* Samples ------------------------------------------------------------------------------------ */

static struct cp_thread *thread_get(struct cpuprof *p, pid_t pid, pid_t tid)
{
    for (size_t i = p->nthreads; i-- > 0;)
        if (p->threads[i].tid == tid) return &p->threads[i];
    if (LAT_GROW(p->threads, p->threads_cap, p->nthreads, 1, 16)) return NULL;
    struct cp_thread *t = &p->threads[p->nthreads++];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    t->tid = tid;
    return t;
}

static int add_sample(struct cpuprof *p, int64_t ts, int64_t dur, pid_t pid, pid_t tid,
                      uint32_t stack, bool off)
{
    if (LAT_GROW(p->samples, p->samples_cap, p->nsamples, 1, 16)) return -ENOMEM;
    p->samples[p->nsamples++] = (struct cp_sample){ts, dur, pid, tid, stack, off};
    return 0;
}

static bool is_cs(const struct cpuprof *p, uint64_t id)
{
    for (size_t i = 0; i < p->ncs_ids; i++)
        if (p->cs_ids[i] == id) return true;
    return false;
}

static void handle_sample(struct cpuprof *p, const void *rec, size_t len)
{
    struct perf_sample s;
    uint64_t id = 0;
    /* PERF_SAMPLE_IDENTIFIER comes first: it tells which event (and layout) this is. */
    if (len >= 16) memcpy(&id, (const uint8_t *)rec + 8, 8);
    bool off = is_cs(p, id);
    uint64_t type =
        off ? p->sample_type & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
            : p->sample_type;
    if (perf_parse_sample(rec, len, type, p->regs_mask, &s)) {
        p->bad_records++;
        return;
    }
    if (!p->o.follow_children && (pid_t)s.pid != p->pid) {
        p->filtered++;
        return;
    }
    struct cp_proc *pr = proc_get(p, (pid_t)s.pid);
    struct cp_thread *th = thread_get(p, (pid_t)s.pid, (pid_t)s.tid);
    if (!pr || !th) return;
    if (!pr->nmaps) proc_load_maps(p, pr);

    uint64_t kips[CP_MAX_FRAMES], uips[CP_MAX_FRAMES];
    uint32_t nk = 0, nu = 0;
    int ctx = 0; /* 1 kernel, 2 user */
    for (uint64_t i = 0; i < s.nr; i++) {
        uint64_t ip = s.ips[i];
        if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
            ctx = ip == (uint64_t)PERF_CONTEXT_KERNEL ? 1
                  : ip == (uint64_t)PERF_CONTEXT_USER ? 2
                                                      : 0;
            continue;
        }
        if (ctx == 1 && nk < CP_MAX_FRAMES) kips[nk++] = ip;
        if (ctx == 2 && nu < CP_MAX_FRAMES) uips[nu++] = ip;
    }
    if (!s.nr && s.ip) uips[nu++] = s.ip;
    /* A frame-pointer walk through code built without frame pointers follows whatever rbp
     * holds: cut the chain at the first address outside every executable mapping. */
    for (uint32_t i = 1; i < nu; i++) {
        if (!map_find(pr, uips[i])) {
            nu = i;
            break;
        }
    }
    /* DWARF: when the copy unwinds deeper than the frame-pointer chain, use it. */
    if (s.stack && s.stack_size && s.abi) {
        if (!pr->unw && unwinder_new(pr->pid, &pr->unw) == 0) {
            for (size_t i = 0; i < pr->nmaps; i++) {
                struct cp_map *m = &pr->maps[i];
                uint64_t bias;
                if (m->file >= 0 && map_bias(&p->files[m->file], m, &bias))
                    unwinder_add_module(
                        pr->unw, p->files[m->file].path, bias,
                        p->files[m->file].st->nsegs ? p->files[m->file].st->segs[0].vaddr : 0);
            }
        }
        if (pr->unw) {
            uint64_t dp[CP_MAX_FRAMES];
            int nd = unwinder_unwind(pr->unw, (pid_t)s.tid, s.regs, s.stack, s.stack_size, dp,
                                     CP_MAX_FRAMES);
            /* CFI gone wrong (a stale or missing module) yields addresses outside every
             * mapping: keep the frames before the first such one. */
            for (int i = 1; i < nd; i++) {
                if (!map_find(pr, dp[i])) {
                    nd = i;
                    break;
                }
            }
            if (nd > 0 && (uint32_t)nd > nu) {
                memcpy(uips, dp, (size_t)nd * sizeof(*dp));
                nu = (uint32_t)nd;
                p->dwarf++;
            }
        }
    }
    /* Root-first user frames; return addresses (all but the leaf) look up at ip - 1. */
    uint32_t user[CP_MAX_FRAMES], all[CP_MAX_FRAMES * 2];
    for (uint32_t i = 0; i < nu; i++) {
        uint64_t a = uips[nu - 1 - i];
        user[i] = sym_cached(p, pr, nu - 1 - i == 0 ? a : a - 1, false);
    }
    uint32_t n = nu;
    enum cp_pyout why = CP_PY_NOTREAD;
    if (p->cur_py && p->cur_py->done)
        n = py_merge(p, p->cur_py, user, nu, all, CP_MAX_FRAMES, &why);
    else
        memcpy(all, user, nu * sizeof(*user));
    /* on-CPU samples of a Python process (one whose frame reader opened at some point) */
    if (!off && (pr->py || why != CP_PY_NOTREAD)) {
        p->py_on[why]++;
        if (s.tid == s.pid) p->py_main[why]++;
    }
    for (uint32_t i = 0; i < nk && n < CP_MAX_FRAMES * 2; i++)
        all[n++] = sym_cached(p, pr, kips[nk - 1 - i], true);
    uint32_t stack;
    if (stackset_intern(&p->stacks, all, n, &stack)) return;
    if (off) {
        th->out_pending = true;
        th->out_ts = (int64_t)s.time;
        th->out_stack = stack;
        return;
    }
    p->stacks.stacks[stack].count++;
    p->n_on++;
    add_sample(p, (int64_t)s.time, 0, (pid_t)s.pid, (pid_t)s.tid, stack, false);
}

static void handle_record(struct cpuprof *p, const void *rec, size_t len)
{
    const struct perf_event_header *h = rec;
    const uint8_t *b = rec;
    struct perf_id id;
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        handle_sample(p, rec, len);
        break;
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_MMAP: {
        uint32_t pid;
        uint64_t addr, mlen, pgoff;
        size_t fixed = h->type == PERF_RECORD_MMAP2 ? 8 + 8 + 24 + 24 + 8 : 8 + 8 + 24;
        if (len < fixed + 1) break;
        memcpy(&pid, b + 8, 4);
        memcpy(&addr, b + 16, 8);
        memcpy(&mlen, b + 24, 8);
        memcpy(&pgoff, b + 32, 8);
        if (h->type == PERF_RECORD_MMAP2) {
            uint32_t prot;
            memcpy(&prot, b + 64, 4);
            if (!(prot & 4 /* PROT_EXEC */)) break;
        }
        char name[PATH_MAX];
        size_t nl = len - fixed;
        if (nl >= sizeof(name)) nl = sizeof(name) - 1;
        memcpy(name, b + fixed, nl);
        name[nl] = '\0';
        if (!p->o.follow_children && (pid_t)pid != p->pid) break;
        struct cp_proc *pr = proc_get(p, (pid_t)pid);
        if (pr) {
            map_add(p, pr, addr, mlen, pgoff, name);
        }
        break;
    }
    case PERF_RECORD_COMM: {
        uint32_t pid, tid;
        if (len < 16) break;
        memcpy(&pid, b + 8, 4);
        memcpy(&tid, b + 12, 4);
        struct cp_thread *t = thread_get(p, (pid_t)pid, (pid_t)tid);
        if (t) {
            size_t n = len - 16 < 16 ? len - 16 : 16;
            memcpy(t->comm, b + 16, n);
            t->comm[16] = '\0';
        }
        if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
            struct cp_proc *pr = proc_find(p, (pid_t)pid);
            if (pr) {
                proc_clear(pr);
                pr->py_state = p->o.python ? 0 : -1;
                /* the exec'd image reports its mappings next; until then read /proc */
            }
        }
        break;
    }
    case PERF_RECORD_FORK: {
        uint32_t pid, ppid, tid, ptid;
        if (len < 24) break;
        memcpy(&pid, b + 8, 4);
        memcpy(&ppid, b + 12, 4);
        memcpy(&tid, b + 16, 4);
        memcpy(&ptid, b + 20, 4);
        struct cp_thread *parent = thread_get(p, (pid_t)ppid, (pid_t)ptid);
        char comm[17] = "";
        if (parent) memcpy(comm, parent->comm, sizeof(comm));
        struct cp_thread *t = thread_get(p, (pid_t)pid, (pid_t)tid);
        if (t) memcpy(t->comm, comm, 17);
        if (pid != ppid && !proc_find(p, (pid_t)pid) && p->o.follow_children) {
            struct cp_proc *par = proc_find(p, (pid_t)ppid);
            struct cp_proc *pr = proc_get(p, (pid_t)pid);
            par = proc_find(p, (pid_t)ppid); /* proc_get may have moved the array */
            if (pr && par && par->nmaps) {
                pr->maps = malloc(par->nmaps * sizeof(*pr->maps));
                if (pr->maps) {
                    memcpy(pr->maps, par->maps, par->nmaps * sizeof(*pr->maps));
                    pr->nmaps = pr->maps_cap = par->nmaps;
                }
            }
            if (pr) pr->py_state = p->o.python ? 0 : -1;
        }
        break;
    }
    case PERF_RECORD_LOST:
        if (len >= 24) {
            uint64_t n;
            memcpy(&n, b + 16, 8);
            p->lost += n;
        }
        break;
    case PERF_RECORD_LOST_SAMPLES:
        if (len >= 16) {
            uint64_t n;
            memcpy(&n, b + 8, 8);
            p->lost += n;
        }
        break;
    case PERF_RECORD_SWITCH:
        if (perf_parse_id(rec, len, &id)) break;
        if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT)) {
            struct cp_thread *t = thread_get(p, (pid_t)id.pid, (pid_t)id.tid);
            if (t && t->out_pending && (int64_t)id.time >= t->out_ts) {
                t->out_pending = false;
                add_sample(p, t->out_ts, (int64_t)id.time - t->out_ts, (pid_t)id.pid, (pid_t)id.tid,
                           t->out_stack, true);
                p->n_off++;
            }
        }
        break;
    default:
        break;
    }
}

/* Pass 1 for one staged record: when it is a sample of a Python process, read that thread's
 * Python stack now. */
static void stage_python(struct cpuprof *p, const void *rec, size_t len, struct cp_pyread *out)
{
    const struct perf_event_header *h = rec;
    out->done = false;
    out->np = 0;
    if (h->type != PERF_RECORD_SAMPLE || !p->o.python) return;
    uint64_t id = 0;
    if (len >= 16) memcpy(&id, (const uint8_t *)rec + 8, 8);
    bool off = is_cs(p, id);
    uint64_t type =
        off ? p->sample_type & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
            : p->sample_type;
    struct perf_sample s;
    if (perf_parse_sample(rec, len, type, p->regs_mask, &s)) return;
    if (!p->o.follow_children && (pid_t)s.pid != p->pid) return;
    struct cp_proc *pr = proc_get(p, (pid_t)s.pid);
    if (!pr) return;
    if (!pr->nmaps) proc_load_maps(p, pr);
    if (pr->py_state == 0) py_setup(p, pr);
    if (pr->py_state == 1) py_read(p, pr, (pid_t)s.tid, (int64_t)s.time, off, out);
}

/* Drains every ring in passes: copy up to CP_STAGE_RECS records out (reading the Python stack
 * of each sample as it is copied), then do the costly part (native unwinding, symbols) for
 * them. Reading every pending Python stack first bounds its lag by the wake-up latency plus
 * the other Python reads, not by the DWARF unwinding of the samples before it. */
static void drain(struct cpuprof *p)
{
    for (int pass = 0; pass < 100000; pass++) {
        size_t nst = 0, used = 0;
        bool more = false;
        for (int c = 0; c < p->ncpu && !more; c++) {
            if (!p->rings[c].base) continue;
            for (;;) {
                if (nst == CP_STAGE_RECS || used + CP_REC_BUF > CP_STAGE_BYTES) {
                    more = true;
                    break;
                }
                int n = perfring_next(&p->rings[c], p->stage + used, CP_REC_BUF);
                if (n == 0) break;
                if (n < 0) {
                    p->bad_records++;
                    break;
                }
                p->stage_rec[nst].off = (uint32_t)used;
                p->stage_rec[nst].len = (uint32_t)n;
                stage_python(p, p->stage + used, (size_t)n, &p->stage_py[nst]);
                used += ((size_t)n + 7) & ~(size_t)7;
                nst++;
            }
        }
        for (size_t i = 0; i < nst; i++) {
            p->cur_py = &p->stage_py[i];
            handle_record(p, p->stage + p->stage_rec[i].off, p->stage_rec[i].len);
        }
        p->cur_py = NULL;
        if (!more) break;
    }
}

/* Start / stop ------------------------------------------------------------------------------- */

static int add_fd(struct cpuprof *p, int fd)
{
    if (LAT_GROW(p->fds, p->fds_cap, p->nfds, 1, 16)) return -ENOMEM;
    p->fds[p->nfds++] = fd;
    return 0;
}

/* Opens the events of thread/process `tid` on every CPU. */
static int open_for(struct cpuprof *p, pid_t tid, bool enable_on_exec)
{
    struct perf_event_attr a;
    for (int c = 0; c < p->ncpu; c++) {
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.freq = 1;
        a.sample_freq = p->o.freq_hz;
        a.sample_type = p->sample_type;
        a.sample_regs_user = p->regs_mask;
        a.sample_stack_user = p->regs_mask ? CP_STACK_BYTES : 0;
        a.sample_id_all = 1;
        a.mmap = a.mmap2 = a.comm = a.task = 1;
        a.comm_exec = 1;
        a.exclude_hv = 1;
        a.exclude_kernel = !p->kernel;
        a.exclude_callchain_kernel = !p->kernel;
        a.use_clockid = 1;
        a.clockid = CLOCK_MONOTONIC;
        a.inherit = 1;
        a.disabled = 1;
        a.enable_on_exec = enable_on_exec;
        a.wakeup_events = 1;
        long fd = perf_open(&a, tid, c);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && p->kernel) {
            /* perf_event_paranoid >= 2 without CAP_PERFMON: user space only. */
            p->kernel = false;
            p->offcpu = false;
            a.exclude_kernel = a.exclude_callchain_kernel = 1;
            fd = perf_open(&a, tid, c);
        }
        if (fd < 0) {
            if (errno == ENODEV) continue; /* offline CPU */
            return -errno;
        }
        int rc = add_fd(p, (int)fd);
        if (rc) {
            close((int)fd);
            return rc;
        }
        if (!p->rings[c].base) {
            /* 2 MiB when the mlock budget allows (root, CAP_IPC_LOCK): 8 KiB stack copies
             * at 1 kHz on a loaded machine overflow 512 KiB; else perf's default budget. */
            rc = perfring_map(&p->rings[c], (int)fd, CP_RING_PAGES * 4);
            if (rc) rc = perfring_map(&p->rings[c], (int)fd, CP_RING_PAGES);
            if (rc) return rc;
        } else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, p->rings[c].fd)) {
            return -errno;
        }
        if (!p->offcpu) continue;
        /* Off-CPU: a sample with the stack at every switch-out, plus switch records. */
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a.sample_period = 1;
        a.sample_type =
            p->sample_type & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
        a.sample_id_all = 1;
        a.context_switch = 1;
        a.exclude_hv = 1;
        a.use_clockid = 1;
        a.clockid = CLOCK_MONOTONIC;
        a.inherit = 1;
        a.disabled = 1;
        a.enable_on_exec = enable_on_exec;
        a.wakeup_events = 64;
        fd = perf_open(&a, tid, c);
        if (fd < 0) {
            pr_dbg("off-CPU event: %s; on-CPU samples only\n", strerror(errno));
            p->offcpu = false;
            continue;
        }
        uint64_t id = 0;
        if (add_fd(p, (int)fd) || ioctl((int)fd, PERF_EVENT_IOC_ID, &id) ||
            ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, p->rings[c].fd) ||
            LAT_GROW(p->cs_ids, p->cs_ids_cap, p->ncs_ids, 1, 16)) {
            p->offcpu = false;
            continue;
        }
        p->cs_ids[p->ncs_ids++] = id;
    }
    return 0;
}

int cpuprof_start(pid_t pid, bool enable_on_exec, const struct cpuprof_opts *opts,
                  struct cpuprof **out)
{
    *out = NULL;
    if (pid <= 0 || !opts) return LAT_E_USAGE;
    unsigned freq = opts->freq_hz ? opts->freq_hz : 99;
    if (freq > 1000) return LAT_E_USAGE;
    struct cpuprof *p = calloc(1, sizeof(*p));
    if (!p) return -ENOMEM;
    int rc = 0;
    p->o = *opts;
    p->o.freq_hz = freq;
    p->pid = pid;
    p->kernel = opts->kernel_stacks;
    p->offcpu = opts->offcpu && opts->kernel_stacks;
    p->regs_mask = unwind_regs_mask();
    p->sample_type = PERF_SAMPLE_FMT;
    if (p->regs_mask) p->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    stackset_init(&p->stacks);
    frame_str(p, "_PyEval_EvalFrameDefault", &p->eval_frame);
    p->stage = malloc(CP_STAGE_BYTES);
    p->stage_py = calloc(CP_STAGE_RECS, sizeof(*p->stage_py));
    if (!p->stage || !p->stage_py) {
        rc = -ENOMEM;
        goto out;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    p->ncpu = ncpu > 0 ? (int)ncpu : 1;
    p->rings = calloc((size_t)p->ncpu, sizeof(*p->rings));
    if (!p->rings) {
        rc = -ENOMEM;
        goto out;
    }
    if (enable_on_exec) {
        rc = open_for(p, pid, true);
    } else {
        /* A running process: every existing thread, each inheriting to its new threads. */
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d) {
            rc = errno == ENOENT ? -ESRCH : -errno;
            goto out;
        }
        struct dirent *de;
        int n = 0;
        while ((de = readdir(d)) && !rc) {
            if (de->d_name[0] == '.') continue;
            rc = open_for(p, (pid_t)atoi(de->d_name), false);
            if (rc == -ESRCH && n) rc = 0; /* that thread exited meanwhile */
            n++;
        }
        closedir(d);
        if (!rc) {
            struct cp_proc *pr = proc_get(p, pid);
            if (pr) proc_load_maps(p, pr);
        }
        for (size_t i = 0; !rc && i < p->nfds; i++)
            if (ioctl(p->fds[i], PERF_EVENT_IOC_ENABLE, 0)) rc = -errno;
    }
    if (opts->offcpu && !p->offcpu)
        pr_dbg("off-CPU time needs kernel sampling (root or CAP_PERFMON): not recorded\n");
out:
    if (rc) {
        cpuprof_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int cpuprof_poll(struct cpuprof *p, int timeout_ms)
{
    if (!p || p->stopped) return LAT_E_USAGE;
    struct pollfd pfd[256];
    int n = 0;
    for (int c = 0; c < p->ncpu && n < 256; c++)
        if (p->rings[c].base) pfd[n++] = (struct pollfd){.fd = p->rings[c].fd, .events = POLLIN};
    int r = poll(pfd, (nfds_t)n, timeout_ms);
    if (r < 0 && errno != EINTR) return -errno;
    drain(p);
    return 0;
}

int cpuprof_stop(struct cpuprof *p)
{
    if (!p) return LAT_E_USAGE;
    if (p->stopped) return 0;
    for (size_t i = 0; i < p->nfds; i++)
        ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
    drain(p);
    p->stopped = true;
    for (int c = 0; c < p->ncpu; c++)
        perfring_unmap(&p->rings[c]);
    for (size_t i = 0; i < p->nfds; i++)
        close(p->fds[i]);
    p->nfds = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        /* Release per-process readers now: the target is done. */
        pyreader_free(p->procs[i].py);
        p->procs[i].py = NULL;
        unwinder_free(p->procs[i].unw);
        p->procs[i].unw = NULL;
    }
    return 0;
}

/* Outputs ------------------------------------------------------------------------------------- */

void cpuprof_set_origin(struct cpuprof *p, int64_t origin_ns)
{
    if (!p) return;
    p->origin_ns = origin_ns;
    p->origin_set = true;
}

/* Leaf name of a sample: its last frame; for off-CPU intervals the last user-space frame (the
 * kernel frames all end in schedule()). */
static const char *leaf_name(const struct cpuprof *p, uint32_t stack, bool off)
{
    uint32_t n;
    const uint32_t *fr = stackset_frames(&p->stacks, stack, &n);
    for (uint32_t i = n; off && i-- > 0;) {
        const char *s = stackset_frame_name(&p->stacks, fr[i]);
        size_t l = strlen(s);
        if (l < 4 || strcmp(s + l - 4, "_[k]")) return s;
    }
    return n ? stackset_frame_name(&p->stacks, fr[n - 1]) : "[unknown]";
}

static void lag_percentiles(const struct cpuprof *p, int64_t *p50, int64_t *p99);

static uint64_t pyout_total(const uint64_t *c)
{
    uint64_t n = 0;
    for (int i = 0; i < CP_PY_OUTS; i++)
        n += c[i];
    return n;
}

/* {"samples": N, "with_python": n, "late": n, ...}: on-CPU samples of Python processes by what
 * became of their Python frames (enum cp_pyout). */
static void pyout_json(const uint64_t *c, char *buf, size_t len)
{
    int o = snprintf(buf, len, "{\"samples\":%" PRIu64, pyout_total(c));
    for (int i = 0; i < CP_PY_OUTS && o > 0 && (size_t)o < len; i++)
        o += snprintf(buf + o, len - (size_t)o, ",\"%s\":%" PRIu64, cp_pyout_key[i], c[i]);
    if (o > 0 && (size_t)o < len) snprintf(buf + o, len - (size_t)o, "}");
}

int cpuprof_export(struct cpuprof *p, struct lat_trace *t)
{
    if (!p || !t) return LAT_E_USAGE;
    int rc;
    /* The sampling rate (raw JSON metadata), so analyses need not estimate the period. */
    uint32_t mk, mv;
    char hz[16];
    snprintf(hz, sizeof(hz), "%u", p->o.freq_hz);
    if ((rc = lat_trace_intern(t, "latscope_cpu_sample_hz", 22, &mk)) ||
        (rc = lat_trace_intern(t, hz, strlen(hz), &mv)) || (rc = lat_trace_add_meta(t, mk, mv)))
        return rc;
    /* What happened to the samples (raw JSON metadata): nothing dropped without a count. */
    char js[1536];
    int64_t p50 = -1, p99 = -1;
    lag_percentiles(p, &p50, &p99);
    char on_js[256], main_js[256];
    pyout_json(p->py_on, on_js, sizeof(on_js));
    pyout_json(p->py_main, main_js, sizeof(main_js));
    int jn =
        snprintf(js, sizeof(js),
                 "{\"samples\":%" PRIu64 ",\"off_cpu_intervals\":%" PRIu64 ",\"lost\":%" PRIu64
                 ",\"dwarf\":%" PRIu64 ",\"python_merged\":%" PRIu64 ",\"python_late\":%" PRIu64
                 ",\"python_stale\":%" PRIu64 ",\"python_torn\":%" PRIu64
                 ",\"python_no_frames\":%" PRIu64 ",\"python_unwind_cut_short\":%" PRIu64
                 ",\"python_lag_p50_us_max\":%" PRId64 ",\"python_lag_p99_us_max\":%" PRId64
                 ",\"python_max_lag_ms\":%d,\"interpreter_frames_folded\":%s"
                 ",\"python_on_cpu\":%s,\"python_main_thread\":%s}",
                 p->n_on, p->n_off, p->lost, p->dwarf, p->py_samples, p->py_late, p->py_stale,
                 p->py_torn, p->py_nothread, p->py_truncated, p50, p99, CP_MAX_LAG_NS / 1000000,
                 p->o.py_internals ? "false" : "true", on_js, main_js);
    if (jn > 0 && (size_t)jn < sizeof(js) &&
        ((rc = lat_trace_intern(t, "latscope_cpu_stats", 18, &mk)) ||
         (rc = lat_trace_intern(t, js, (size_t)jn, &mv)) || (rc = lat_trace_add_meta(t, mk, mv))))
        return rc;
    int64_t origin = p->origin_ns;
    if (!p->origin_set && t->base_time_ns) {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        int64_t real = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
        origin = now_ns() - (real - t->base_time_ns);
    }
    struct lat_cpu_ids ids;
    if ((rc = lat_cpu_ids_init(t, &ids))) return rc;
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    uint32_t *stack_str = calloc(p->stacks.nstacks + 1, sizeof(*stack_str));
    uint32_t *leaf_str = calloc(2 * (p->stacks.nstacks + 1), sizeof(*leaf_str));
    if (!buf || !stack_str || !leaf_str) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < p->nsamples; i++) {
        const struct cp_sample *s = &p->samples[i];
        if (!stack_str[s->stack]) {
            size_t len = stackset_join(&p->stacks, s->stack, buf, cap);
            if (!len) memcpy(buf, "[unknown]", (len = 9) + 1);
            if ((rc = lat_trace_intern(t, buf, len, &stack_str[s->stack]))) goto out;
        }
        uint32_t *leaf_id = &leaf_str[2 * s->stack + s->off];
        if (!*leaf_id) {
            const char *leaf = leaf_name(p, s->stack, s->off);
            if ((rc = lat_trace_intern(t, leaf, strlen(leaf), leaf_id))) goto out;
        }
        uint32_t track;
        if ((rc = lat_trace_track(t, s->pid, s->tid, 0, 0, false, &track))) goto out;
        if (!t->tracks[track].tid_label) {
            for (size_t j = 0; j < p->nthreads; j++) {
                if (p->threads[j].tid != s->tid || !p->threads[j].comm[0]) continue;
                lat_trace_intern(t, p->threads[j].comm, strlen(p->threads[j].comm),
                                 &t->tracks[track].tid_label);
                break;
            }
        }
        struct lat_cpu_sample smp = {.ts = s->ts - origin,
                                     .dur = s->dur,
                                     .track = track,
                                     .stack = stack_str[s->stack],
                                     .leaf = *leaf_id,
                                     .off = s->off};
        if ((rc = lat_trace_add_cpu_sample(t, &ids, &smp, UINT32_MAX, NULL))) goto out;
    }
out:
    free(buf);
    free(stack_str);
    free(leaf_str);
    return rc;
}

int cpuprof_write_folded(struct cpuprof *p, FILE *f)
{
    if (!p || !f) return LAT_E_USAGE;
    return stackset_write_folded(&p->stacks, f);
}

int cpuprof_write_flamegraph(struct cpuprof *p, FILE *f, const char *title)
{
    if (!p || !f) return LAT_E_USAGE;
    return stackset_write_svg(&p->stacks, f, title);
}

/* Upper bounds (µs) of the lag percentiles from the log2 histogram; -1 when no read. */
static void lag_percentiles(const struct cpuprof *p, int64_t *p50, int64_t *p99)
{
    uint64_t acc = 0, want50 = lat_rank_nearest(50, p->py_lag_n),
             want99 = lat_rank_nearest(99, p->py_lag_n);
    *p50 = *p99 = -1;
    if (!p->py_lag_n) return;
    for (unsigned b = 0; b < CP_LAG_BUCKETS; b++) {
        acc += p->py_lag[b];
        int64_t ub = b ? (int64_t)1 << b : 1;
        if (*p50 < 0 && acc >= want50) *p50 = ub;
        if (*p99 < 0 && acc >= want99) *p99 = ub;
    }
}

void cpuprof_stats(const struct cpuprof *p, char *buf, size_t len)
{
    if (!len) return;
    if (!p) {
        buf[0] = '\0';
        return;
    }
    size_t nthr = 0;
    for (size_t i = 0; i < p->nthreads; i++) {
        bool seen = false;
        for (size_t j = 0; j < p->nsamples && !seen; j++)
            seen = p->samples[j].tid == p->threads[i].tid;
        nthr += seen;
    }
    int n = snprintf(buf, len,
                     "%" PRIu64 " samples at %u Hz (%" PRIu64 " off-CPU intervals%s), %" PRIu64
                     " lost, %" PRIu64 " unwound with DWARF, %zu threads",
                     p->n_on, p->o.freq_hz, p->n_off, p->offcpu ? "" : ": not recorded", p->lost,
                     p->dwarf, nthr);
    if (n > 0 && (size_t)n < len && p->py_samples)
        n += snprintf(buf + n, len - (size_t)n,
                      ", %" PRIu64 " Python frames in %" PRIu64
                      " samples (%.1f us, %.1f reads per sample)",
                      p->py_frames, p->py_samples, (double)p->py_ns / 1e3 / (double)p->py_samples,
                      (double)p->py_reads / (double)p->py_samples);
    if (n > 0 && (size_t)n < len && p->py_lag_n) {
        int64_t p50, p99;
        lag_percentiles(p, &p50, &p99);
        n += snprintf(buf + n, len - (size_t)n,
                      ", Python read lag after the sample p50 <= %" PRId64 " us, p99 <= %" PRId64
                      " us, max %.0f us",
                      p50, p99, (double)p->py_lag_max / 1e3);
    }
    if (n > 0 && (size_t)n < len &&
        (p->py_stale || p->py_torn || p->py_nothread || p->py_truncated || p->py_late))
        n += snprintf(buf + n, len - (size_t)n,
                      "; samples of Python processes without Python frames: %" PRIu64
                      " read more than %d ms after the sample, %" PRIu64
                      " read too late (eval calls moved on; native frames kept), %" PRIu64
                      " torn reads, %" PRIu64
                      " in threads with no Python frame (native threads, start-up, exit); %" PRIu64
                      " with a native unwind cut short (outer Python frames put at the root)",
                      p->py_late, CP_MAX_LAG_NS / 1000000, p->py_stale, p->py_torn, p->py_nothread,
                      p->py_truncated);
    uint64_t mt = pyout_total(p->py_main);
    if (n > 0 && (size_t)n < len && mt)
        n += snprintf(buf + n, len - (size_t)n,
                      "; main threads: %" PRIu64 " of %" PRIu64
                      " on-CPU samples with Python frames (%.1f %%), without: %" PRIu64
                      " late, %" PRIu64 " frame chain changed, %" PRIu64 " torn, %" PRIu64
                      " no Python frame, %" PRIu64 " not read",
                      p->py_main[CP_PY_OK], mt, 100.0 * (double)p->py_main[CP_PY_OK] / (double)mt,
                      p->py_main[CP_PY_LATE], p->py_main[CP_PY_STALE], p->py_main[CP_PY_TORN],
                      p->py_main[CP_PY_NOFRAME], p->py_main[CP_PY_NOTREAD]);
    if (n > 0 && (size_t)n < len && p->py_folded && !p->o.py_internals)
        n += snprintf(buf + n, len - (size_t)n,
                      "; %" PRIu64 " interpreter frames between Python frames folded away",
                      p->py_folded);
    if (n > 0 && (size_t)n < len && p->bad_records)
        n += snprintf(buf + n, len - (size_t)n, ", %" PRIu64 " unparsable records", p->bad_records);
    if (n > 0 && (size_t)n < len && !p->regs_mask)
        n += snprintf(buf + n, len - (size_t)n,
                      ", no DWARF unwinding in this build (libdw absent): frame-pointer chains "
                      "only, callers in code built without frame pointers are lost");
    if (n > 0 && (size_t)n < len && p->py_unsupported_version)
        snprintf(buf + n, len - (size_t)n, ", Python %u.%u unsupported: native frames only",
                 p->py_unsupported_version >> 24, (p->py_unsupported_version >> 16) & 0xff);
}

const char *cpuprof_strerror(int rc)
{
    static char msg[512];
    switch (rc) {
    case -EACCES:
    case -EPERM:
    case LAT_E_PERM: {
        int paranoid = 99;
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (f) {
            if (fscanf(f, "%d", &paranoid) != 1) paranoid = 99;
            fclose(f);
        }
        snprintf(msg, sizeof(msg),
                 "perf_event_open was denied: kernel.perf_event_paranoid is %d (sampling your own "
                 "processes needs 2 or less, kernel stacks 1 or less: sysctl "
                 "kernel.perf_event_paranoid=1), or run with CAP_PERFMON (CAP_SYS_ADMIN before "
                 "Linux 5.8); another user's process also needs CAP_SYS_PTRACE",
                 paranoid);
        return msg;
    }
    case -ESRCH:
        return "the target process exited before sampling could start";
    case -ENOENT:
    case -EOPNOTSUPP:
        return "this kernel has no cpu-clock software event (built without CONFIG_PERF_EVENTS?)";
    case -ENOSYS:
        return "perf_event_open is not available here (blocked by seccomp in a container? run "
               "with --security-opt seccomp=unconfined or --cap-add PERFMON)";
    case -EMFILE:
        return "too many open files for one event per CPU and thread: raise ulimit -n";
    case -ENOMEM:
        return "out of memory";
    case LAT_E_USAGE:
        return "bad CPU sampling option: the frequency must be 1..1000 Hz";
    default:
        return lat_strerror(rc);
    }
}

void cpuprof_free(struct cpuprof *p)
{
    if (!p) return;
    if (!p->stopped) {
        for (int c = 0; p->rings && c < p->ncpu; c++)
            perfring_unmap(&p->rings[c]);
        for (size_t i = 0; i < p->nfds; i++)
            close(p->fds[i]);
    }
    for (size_t i = 0; i < p->nprocs; i++)
        proc_clear(&p->procs[i]);
    for (size_t i = 0; i < p->nfiles; i++) {
        free(p->files[i].path);
        symtab_free(p->files[i].st);
    }
    symtab_free(p->kallsyms);
    stackset_fini(&p->stacks);
    free(p->procs);
    free(p->files);
    free(p->threads);
    free(p->samples);
    free(p->rings);
    free(p->fds);
    free(p->cs_ids);
    free(p->stage);
    free(p->stage_py);
    free(p->interp);
    free(p);
}
