/*
 * inject.c - liblatscope-cupti.so: CUDA activity capture inside the traced process.
 *
 * Loaded by the CUDA driver through CUDA_INJECTION64_PATH (entry InitializeInjection, called
 * in cuInit) and by NVTX through NVTX_INJECTION64_PATH (nvtx.c). It writes one capture file
 * per process, <LATSCOPE_TRACE_DIR>/cuda.<pid>.lcap (format: src/capture/capfile.h), which
 * `latscope trace` merges after the command exits.
 *
 * CUPTI is dlopen()ed (LATSCOPE_CUPTI_LIB, then libcupti.so.13): a missing libcupti, an old
 * one, a second subscriber (torch.profiler, nsys) or any failing CUPTI call turns CUDA capture
 * off with an LCAP_STATUS record saying why; the target always continues. Nothing here calls
 * exit/abort or stdio, and nothing is printed: the collector reports.
 *
 * Records: CUPTI buffers (4 MiB, at most LAT_MAX_BUFFERS outstanding, else CUPTI drops and we
 * count) are converted record by record (capture/cupti_conv.c) into one process-wide write
 * buffer under one mutex, and written with write(2) when it fills, every flush period (a
 * thread calls cuptiActivityFlushAll(0) and writes a clock-sync pair about every second), at
 * exit (atexit + destructor, forced flush), and from SIGTERM/SIGINT (chained to the previous
 * handler). os._exit() skips all exit paths: at most one flush period is lost.
 * Fork: pthread_atfork keeps the buffer consistent; the child drops the parent's unwritten
 * bytes (the parent writes them), marks CUDA capture dead (a forked child cannot use CUDA) and
 * opens its own file on its first NVTX event.
 * The CUPTI callbacks never run with the writer lock held by the same thread (no ABBA with
 * CUPTI's own locks): the lock is taken per record and released before calling CUPTI.
 */
#include "preload/inject.h"
#include "capture/cupti_conv.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if LAT_HAVE_CUPTI
#include <cupti.h>
#endif

#define LAT_WBUF_SIZE     (1u << 20)
#define LAT_CUPTI_BUF     (4u << 20)
#define LAT_MAX_BUFFERS   64
#define LAT_STR_MAX       4096
#define LAT_CBID_CACHE    4096
#define LAT_SYNC_TRIES    100
#define LAT_SYNC_EVERY_NS 1000000000LL

struct inj_str {
    uint64_t hash;
    uint32_t id, len;
    char *s;
};

static struct {
    pthread_mutex_t lock;
    int configured; /* 0 unknown, 1 on, -1 off */
    char dir[3072];
    int fd;
    pid_t pid;
    uint8_t *wbuf;
    size_t wlen;
    uint64_t bytes;
    /* strings */
    struct inj_str *slots;
    uint32_t nslots, nstrs;
    /* options */
    bool want_cuda, want_nvtx, want_driver, want_events, want_extcorr, want_signals;
    int64_t start_ns, stop_ns; /* capture window, CLOCK_MONOTONIC; 0 = open */
    unsigned flush_ms;
    /* counters (footer) */
    _Atomic uint64_t records, cupti_dropped, lost, nvtx_events, nvtx_lost, buffers, gated;
    _Atomic int64_t self_ns;
    _Atomic int outstanding;
    /* CUPTI state */
    atomic_int cuda_state; /* 0 not started, 1 running, -1 dead/disabled */
    pid_t init_pid;
    _Atomic int64_t offset_ns; /* latest mono - cupti, for gating */
    atomic_bool exiting;
    atomic_bool exit_done;
    pthread_t flusher;
    bool flusher_started;
    bool forked;                          /* this process is a fork() child of a traced one */
    uint64_t nvtx_count, nvtx_lost_count; /* under lock */
    uint32_t cbid_name[3][LAT_CBID_CACHE];
} G = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .fd = -1,
};

static __thread uint32_t tls_tid;

int64_t inj_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t inj_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

uint32_t inj_tid(void)
{
    if (!tls_tid) tls_tid = (uint32_t)syscall(SYS_gettid);
    return tls_tid;
}

static int64_t env_i64(const char *name, int64_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    return errno || *end ? dflt : (int64_t)x;
}

static bool env_on(const char *name, bool dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    return strcmp(v, "0") != 0;
}

int inj_configure(void)
{
    if (G.configured) return G.configured > 0;
    pthread_mutex_lock(&G.lock);
    if (!G.configured) {
        const char *d = getenv("LATSCOPE_TRACE_DIR");
        if (!d || !*d || strlen(d) >= sizeof(G.dir) - 64) {
            G.configured = -1;
        } else {
            strcpy(G.dir, d);
            G.want_cuda = env_on("LATSCOPE_CUDA", true);
            G.want_nvtx = env_on("LATSCOPE_NVTX", true);
            G.want_driver = env_on("LATSCOPE_DRIVER", true);
            G.want_events = env_on("LATSCOPE_CUDA_EVENTS", false);
            G.want_extcorr = env_on("LATSCOPE_EXTCORR", false);
            G.want_signals = env_on("LATSCOPE_SIGNALS", true);
            G.start_ns = env_i64("LATSCOPE_START_NS", 0);
            G.stop_ns = env_i64("LATSCOPE_STOP_NS", 0);
            int64_t ms = env_i64("LATSCOPE_FLUSH_MS", 500);
            G.flush_ms = ms < 10 ? 10 : ms > 60000 ? 60000 : (unsigned)ms;
            G.configured = 1;
        }
    }
    pthread_mutex_unlock(&G.lock);
    return G.configured > 0;
}

/* --- the write buffer (all under G.lock) ----------------------------------------------------- */

static void wr_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
        G.bytes += (uint64_t)w;
    }
}

static void wr_flush_locked(void)
{
    if (G.fd >= 0 && G.wlen) wr_all(G.fd, G.wbuf, G.wlen);
    G.wlen = 0;
}

static void emit_locked(uint16_t type, const void *p, size_t n, const void *q, size_t m);

static void read_comm(char *buf, size_t cap)
{
    int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
    if (fd >= 0) close(fd);
    if (n < 0) n = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == 0))
        n--;
    buf[n] = 0;
}

static uint32_t intern_locked(const char *s, size_t n);
static void ensure_flusher_locked(void);

/* Opens this process's file and writes magic + LCAP_PROC. False when it cannot. */
static bool open_locked(void)
{
    if (G.fd >= 0) return true;
    if (G.configured <= 0) return false;
    if (!G.wbuf) {
        G.wbuf = malloc(LAT_WBUF_SIZE);
        if (!G.wbuf) return false;
    }
    char path[sizeof(G.dir) + 64];
    pid_t pid = getpid();
    size_t dl = strlen(G.dir);
    memcpy(path, G.dir, dl);
    /* snprintf is fine here (not a signal path), but keep it minimal. */
    char num[24];
    int k = 0;
    for (unsigned v = (unsigned)pid; v || !k; v /= 10)
        num[k++] = (char)('0' + v % 10);
    memcpy(path + dl, "/cuda.", 6);
    size_t o = dl + 6;
    while (k)
        path[o++] = num[--k];
    memcpy(path + o, ".lcap", 6);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    G.fd = fd;
    G.pid = pid;
    G.wlen = 0;
    memcpy(G.wbuf, LCAP_MAGIC, LCAP_MAGIC_LEN);
    G.wlen = LCAP_MAGIC_LEN;
    char comm[64];
    read_comm(comm, sizeof(comm));
    struct lcap_proc pr = {
        .pid = (uint32_t)pid,
        .ppid = (uint32_t)getppid(),
#if LAT_HAVE_CUPTI
        .cupti_build = CUPTI_API_VERSION,
#endif
        .mono_ns = inj_now_ns(),
        .realtime_ns = inj_realtime_ns(),
    };
    pr.comm = intern_locked(comm, strlen(comm));
    emit_locked(LCAP_PROC, &pr, sizeof(pr), NULL, 0);
    if (G.forked) {
        struct lcap_status st = {.code = LCAP_ST_FORKED, .mono_ns = pr.mono_ns};
        const char *m = "forked from a traced process: NVTX only, no CUDA capture";
        st.msg = intern_locked(m, strlen(m));
        emit_locked(LCAP_STATUS, &st, sizeof(st), NULL, 0);
    }
    /* Write the header through at once: a process that ends in _exit() still leaves a valid
     * file that says it existed. */
    wr_flush_locked();
    ensure_flusher_locked();
    return true;
}

static void emit_locked(uint16_t type, const void *p, size_t n, const void *q, size_t m)
{
    if (G.fd < 0 && !open_locked()) {
        atomic_fetch_add(&G.lost, 1);
        return;
    }
    size_t need = lcap_rec_size(n + m);
    if (need > LAT_WBUF_SIZE) {
        atomic_fetch_add(&G.lost, 1);
        return;
    }
    if (G.wlen + need > LAT_WBUF_SIZE) wr_flush_locked();
    G.wlen += lcap_encode(G.wbuf + G.wlen, LAT_WBUF_SIZE - G.wlen, type, p, n, q, m);
}

void inj_emit(uint16_t type, const void *p, size_t n)
{
    if (!inj_configure()) return;
    pthread_mutex_lock(&G.lock);
    emit_locked(type, p, n, NULL, 0);
    pthread_mutex_unlock(&G.lock);
}

/* --- strings ------------------------------------------------------------------------------- */

static uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
    return h ? h : 1;
}

static bool str_grow_locked(void)
{
    uint32_t ns = G.nslots ? G.nslots * 2 : 1024;
    struct inj_str *t = calloc(ns, sizeof(*t));
    if (!t) return false;
    for (uint32_t i = 0; i < G.nslots; i++) {
        if (!G.slots[i].hash) continue;
        uint32_t j = (uint32_t)G.slots[i].hash & (ns - 1);
        while (t[j].hash)
            j = (j + 1) & (ns - 1);
        t[j] = G.slots[i];
    }
    free(G.slots);
    G.slots = t;
    G.nslots = ns;
    return true;
}

static uint32_t intern_locked(const char *s, size_t n)
{
    if (!s) return 0;
    if (n > LAT_STR_MAX) n = LAT_STR_MAX;
    if ((G.nstrs + 1) * 2 > G.nslots && !str_grow_locked()) return 0;
    uint64_t h = str_hash(s, n);
    uint32_t j = (uint32_t)h & (G.nslots - 1);
    while (G.slots[j].hash) {
        struct inj_str *e = &G.slots[j];
        if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0) return e->id;
        j = (j + 1) & (G.nslots - 1);
    }
    char *c = malloc(n + 1);
    if (!c) return 0;
    memcpy(c, s, n);
    c[n] = 0;
    struct inj_str *e = &G.slots[j];
    e->hash = h;
    e->len = (uint32_t)n;
    e->s = c;
    e->id = ++G.nstrs;
    struct lcap_str hdr = {.id = e->id, .len = (uint32_t)n};
    emit_locked(LCAP_STR, &hdr, sizeof(hdr), c, n);
    return e->id;
}

uint32_t inj_intern(const char *s, size_t n)
{
    if (!inj_configure()) return 0;
    pthread_mutex_lock(&G.lock);
    uint32_t id = (G.fd >= 0 || open_locked()) ? intern_locked(s, n) : 0;
    pthread_mutex_unlock(&G.lock);
    return id;
}

void inj_status(int code, int cupti_rc, const char *msg)
{
    if (!inj_configure()) return;
    pthread_mutex_lock(&G.lock);
    if (G.fd >= 0 || open_locked()) {
        struct lcap_status st = {.code = code, .cupti_rc = cupti_rc, .mono_ns = inj_now_ns()};
        st.msg = intern_locked(msg, strlen(msg));
        emit_locked(LCAP_STATUS, &st, sizeof(st), NULL, 0);
    }
    pthread_mutex_unlock(&G.lock);
}

int inj_nvtx_enabled(void)
{
    if (!inj_configure() || !G.want_nvtx) return 0;
    if (G.start_ns || G.stop_ns) {
        int64_t now = inj_now_ns();
        if ((G.start_ns && now < G.start_ns) || (G.stop_ns && now > G.stop_ns)) return 0;
    }
    return 1;
}

void inj_nvtx_record(uint32_t op, uint32_t domain, const char *msg, uint32_t msg_id,
                     uint64_t range_id)
{
    struct lcap_nvtx r = {.ts = inj_now_ns(),
                          .range_id = range_id,
                          .tid = inj_tid(),
                          .op = op,
                          .domain = domain,
                          .msg = msg_id};
    /* One lock for interning the message and storing the record: this is the hot path of
     * NVTX-heavy programs (one call per layer per iteration). */
    pthread_mutex_lock(&G.lock);
    if (G.fd >= 0 || open_locked()) {
        if (msg) r.msg = intern_locked(msg, strlen(msg));
        emit_locked(LCAP_NVTX, &r, sizeof(r), NULL, 0);
        G.nvtx_count++;
    } else {
        G.nvtx_lost_count++;
    }
    pthread_mutex_unlock(&G.lock);
}

int inj_nvtx_wanted(void)
{
    return inj_configure() && G.want_nvtx;
}

static void footer_locked(void)
{
    struct lcap_footer f = {
        .records = atomic_load(&G.records),
        .cupti_dropped = atomic_load(&G.cupti_dropped),
        .lost_records = atomic_load(&G.lost),
        .nvtx_events = atomic_load(&G.nvtx_events) + G.nvtx_count,
        .nvtx_lost = atomic_load(&G.nvtx_lost) + G.nvtx_lost_count,
        .buffers = atomic_load(&G.buffers),
        .gated = atomic_load(&G.gated),
        .self_ns = atomic_load(&G.self_ns),
        .mono_ns = inj_now_ns(),
        .bytes = G.bytes + G.wlen,
    };
    emit_locked(LCAP_FOOTER, &f, sizeof(f), NULL, 0);
}

/* Writes a footer and everything buffered. */
static void flush_file(void)
{
    pthread_mutex_lock(&G.lock);
    if (G.fd >= 0 && G.wlen) {
        footer_locked();
        wr_flush_locked();
    }
    pthread_mutex_unlock(&G.lock);
}

/* --- signals -------------------------------------------------------------------------------- */

static struct sigaction old_term, old_int;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    /* Only if no thread of ours holds the lock: never deadlock in a handler. */
    if (pthread_mutex_trylock(&G.lock) == 0) {
        if (G.fd >= 0 && G.pid == getpid()) {
            struct lcap_status st = {
                .code = LCAP_ST_SIGNAL, .cupti_rc = sig, .mono_ns = inj_now_ns()};
            emit_locked(LCAP_STATUS, &st, sizeof(st), NULL, 0);
            footer_locked();
            wr_flush_locked();
        }
        pthread_mutex_unlock(&G.lock);
    }
    errno = saved;
    struct sigaction *old = sig == SIGTERM ? &old_term : &old_int;
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_IGN) {
        return;
    } else if (old->sa_handler == SIG_DFL) {
        /* Restore the default and re-raise: it is delivered when this handler returns. */
        sigaction(sig, old, NULL);
        raise(sig);
    } else if (old->sa_handler) {
        old->sa_handler(sig);
    }
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGINT, &sa, &old_int);
}

/* --- fork ---------------------------------------------------------------------------------- */

static void atfork_prepare(void)
{
    pthread_mutex_lock(&G.lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&G.lock);
}

static void atfork_child(void)
{
    pthread_mutex_init(&G.lock, NULL);
    tls_tid = 0;
    if (G.fd >= 0) close(G.fd);
    G.fd = -1;
    G.wlen = 0; /* the parent writes these bytes */
    G.bytes = 0;
    for (uint32_t i = 0; i < G.nslots; i++)
        free(G.slots[i].s);
    free(G.slots);
    G.slots = NULL;
    G.nslots = G.nstrs = 0;
    memset(G.cbid_name, 0, sizeof(G.cbid_name));
    G.flusher_started = false;
    G.forked = true;
    atomic_store(&G.exit_done, false);
    atomic_store(&G.exiting, false);
    if (atomic_load(&G.cuda_state) != 0) atomic_store(&G.cuda_state, -1);
    atomic_store(&G.records, 0);
    atomic_store(&G.nvtx_events, 0);
    atomic_store(&G.nvtx_lost, 0);
    atomic_store(&G.lost, 0);
    G.nvtx_count = G.nvtx_lost_count = 0;
}

static void (*g_cuda_tick)(void); /* set once CUPTI runs: periodic flush + clock sync */

static void *flusher_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&G.exiting)) {
        struct timespec ts = {.tv_sec = G.flush_ms / 1000,
                              .tv_nsec = (long)(G.flush_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        if (atomic_load(&G.exiting)) break;
        if (g_cuda_tick && atomic_load(&G.cuda_state) == 1 && G.init_pid == getpid()) g_cuda_tick();
        flush_file();
    }
    return NULL;
}

/* One detached writer thread per process (restarted lazily in a fork child). */
static void ensure_flusher_locked(void)
{
    if (G.flusher_started) return;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    /* Block every signal in the thread so the target's handlers never run on it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&G.flusher, &at, flusher_main, NULL) == 0) G.flusher_started = true;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&at);
}

static void register_process_hooks(void)
{
    static atomic_bool done;
    if (atomic_exchange(&done, true)) return;
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    if (G.want_signals) install_signals();
}

/* NVTX-only processes still need their buffer written at exit. */
static void nvtx_exit(void)
{
    if (atomic_load(&G.cuda_state) == 1 && G.init_pid == getpid()) return; /* cuda_exit does it */
    flush_file();
}

void lat__inj_nvtx_started(void);
void lat__inj_nvtx_started(void)
{
    static atomic_bool done;
    if (atomic_exchange(&done, true)) return;
    register_process_hooks();
    atexit(nvtx_exit);
}

#if LAT_HAVE_CUPTI
/* --- CUPTI --------------------------------------------------------------------------------- */

#define CUPTI_FNS(X)                                                                               \
    X(cuptiGetVersion)                                                                             \
    X(cuptiGetResultString)                                                                        \
    X(cuptiSubscribe)                                                                              \
    X(cuptiEnableCallback)                                                                         \
    X(cuptiSetThreadIdType)                                                                        \
    X(cuptiActivityRegisterCallbacks)                                                              \
    X(cuptiActivityEnable)                                                                         \
    X(cuptiActivityEnableDriverApi)                                                                \
    X(cuptiActivityEnableRuntimeApi)                                                               \
    X(cuptiActivityFlushAll)                                                                       \
    X(cuptiActivityGetNextRecord)                                                                  \
    X(cuptiActivityGetNumDroppedRecords)                                                           \
    X(cuptiGetTimestamp)                                                                           \
    X(cuptiGetCallbackName)

#define CUPTI_PTR(name) static __typeof__(name) *p_##name;
CUPTI_FNS(CUPTI_PTR)

static const char *cupti_err(CUptiResult r)
{
    const char *s = NULL;
    if (p_cuptiGetResultString && p_cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "unknown CUPTI error";
}

static void cupti_fail(int code, const char *what, CUptiResult r)
{
    char msg[256];
    size_t n = strlen(what);
    if (n > 120) n = 120;
    memcpy(msg, what, n);
    memcpy(msg + n, ": ", 2);
    const char *e = cupti_err(r);
    size_t m = strlen(e);
    if (m > sizeof(msg) - n - 3) m = sizeof(msg) - n - 3;
    memcpy(msg + n + 2, e, m);
    msg[n + 2 + m] = 0;
    inj_status(code, (int)r, msg);
}

static bool load_cupti(void)
{
    /* A libcupti the process already loaded (PyTorch links one) comes first: two copies of
     * CUPTI in one process would both instrument the driver (wprof does the same). */
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
    const char *names[] = {getenv("LATSCOPE_CUPTI_LIB"), "libcupti.so.13", "libcupti.so"};
    for (size_t i = 0; i < 3 && !h; i++)
        if (names[i] && *names[i]) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        inj_status(LCAP_ST_NO_CUPTI, 0, e ? e : "libcupti.so.13 not found");
        return false;
    }
#define CUPTI_SYM(name)                                                                            \
    *(void **)(&p_##name) = dlsym(h, #name);                                                       \
    if (!p_##name) {                                                                               \
        inj_status(LCAP_ST_NO_CUPTI, 0, "libcupti lacks " #name);                                  \
        return false;                                                                              \
    }
    CUPTI_FNS(CUPTI_SYM)
    Dl_info di;
    if (dladdr(*(void **)&p_cuptiGetVersion, &di) && di.dli_fname) {
        char msg[600] = "libcupti: ";
        size_t n = strlen(di.dli_fname);
        if (n > sizeof(msg) - 12) n = sizeof(msg) - 12;
        memcpy(msg + 10, di.dli_fname, n);
        msg[10 + n] = 0;
        inj_status(LCAP_ST_INFO, 0, msg);
    }
    /* Never dlclose libcupti (capture.md §2: unloading it crashes 13.0-13.1 at shutdown). */
    return true;
}

static void take_sync(void)
{
    struct lcap_sync best = {0};
    int64_t best_gap = INT64_MAX;
    for (int i = 0; i < LAT_SYNC_TRIES; i++) {
        uint64_t c = 0;
        int64_t m0 = inj_now_ns();
        CUptiResult r = p_cuptiGetTimestamp(&c);
        int64_t m1 = inj_now_ns();
        if (r != CUPTI_SUCCESS) {
            c = 0;
            if (i > 2) break;
        }
        if (m1 - m0 < best_gap) {
            best_gap = m1 - m0;
            best.mono_ns = m0 + (m1 - m0) / 2;
            best.cupti_ns = c;
            best.gap_ns = m1 - m0;
        }
    }
    best.realtime_ns = inj_realtime_ns();
    if (best.cupti_ns) atomic_store(&G.offset_ns, best.mono_ns - (int64_t)best.cupti_ns);
    inj_emit(LCAP_SYNC, &best, sizeof(best));
}

static uint32_t conv_intern(void *ctx, const char *s)
{
    (void)ctx;
    return intern_locked(s, strlen(s));
}

static uint32_t conv_api_name(void *ctx, uint32_t domain, uint32_t cbid)
{
    (void)ctx;
    if (domain < 3 && cbid < LAT_CBID_CACHE && G.cbid_name[domain][cbid])
        return G.cbid_name[domain][cbid];
    const char *name = NULL;
    CUpti_CallbackDomain d = domain == LCAP_API_RUNTIME  ? CUPTI_CB_DOMAIN_RUNTIME_API
                             : domain == LCAP_API_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API
                                                         : CUPTI_CB_DOMAIN_INVALID;
    uint32_t id = 0;
    if (d != CUPTI_CB_DOMAIN_INVALID && p_cuptiGetCallbackName(d, cbid, &name) == CUPTI_SUCCESS &&
        name)
        id = intern_locked(name, cupti_conv_strip_version(name));
    if (!id) {
        char buf[32] = "cbid ";
        int k = 0;
        char num[12];
        for (uint32_t v = cbid; v || !k; v /= 10)
            num[k++] = (char)('0' + v % 10);
        size_t o = 5;
        while (k)
            buf[o++] = num[--k];
        id = intern_locked(buf, o);
    }
    if (domain < 3 && cbid < LAT_CBID_CACHE) G.cbid_name[domain][cbid] = id;
    return id;
}

static uint64_t rec_start(int type, const union lcap_any *a)
{
    switch (type) {
    case LCAP_API:
        return a->api.start;
    case LCAP_KERNEL:
        return a->kernel.start;
    case LCAP_MEMCPY:
        return a->memcpy.start;
    case LCAP_MEMSET:
        return a->memset.start;
    case LCAP_CUDASYNC:
        return a->sync.start;
    case LCAP_OVERHEAD:
        return a->overhead.start;
    default:
        return 0;
    }
}

static bool gated(uint64_t cupti_ts)
{
    if (!cupti_ts || (!G.start_ns && !G.stop_ns)) return false;
    int64_t off = atomic_load(&G.offset_ns);
    if (!off) return false;
    int64_t mono = (int64_t)cupti_ts + off;
    return (G.start_ns && mono < G.start_ns) || (G.stop_ns && mono > G.stop_ns);
}

static void CUPTIAPI buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = NULL;
    *size = 0;
    if (atomic_fetch_add(&G.outstanding, 1) >= LAT_MAX_BUFFERS) {
        atomic_fetch_sub(&G.outstanding, 1);
        return; /* CUPTI drops records and counts them (cuptiActivityGetNumDroppedRecords) */
    }
    void *p = NULL;
    if (posix_memalign(&p, 8, LAT_CUPTI_BUF) != 0) {
        atomic_fetch_sub(&G.outstanding, 1);
        return;
    }
    *buffer = p;
    *size = LAT_CUPTI_BUF;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                   size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    int64_t t0 = inj_now_ns();
    struct cupti_conv_ops ops = {.intern = conv_intern, .api_name = conv_api_name};
    CUpti_Activity *rec = NULL;
    if (buffer && valid && atomic_load(&G.cuda_state) == 1 && G.init_pid == getpid()) {
        pthread_mutex_lock(&G.lock);
        for (;;) {
            CUptiResult r = p_cuptiActivityGetNextRecord(buffer, valid, &rec);
            if (r != CUPTI_SUCCESS) break; /* MAX_LIMIT_REACHED = end of buffer */
            union lcap_any a;
            uint32_t n = 0;
            int type = cupti_conv_record(rec, &ops, &a, &n);
            if (!type) continue;
            if (gated(rec_start(type, &a))) {
                atomic_fetch_add(&G.gated, 1);
                continue;
            }
            emit_locked((uint16_t)type, &a, n, NULL, 0);
            atomic_fetch_add(&G.records, 1);
        }
        pthread_mutex_unlock(&G.lock);
    }
    free(buffer);
    atomic_fetch_sub(&G.outstanding, 1);
    atomic_fetch_add(&G.buffers, 1);
    /* Outside our lock: CUPTI may take its own locks here. */
    size_t dropped = 0;
    if (p_cuptiActivityGetNumDroppedRecords &&
        p_cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS && dropped)
        atomic_fetch_add(&G.cupti_dropped, dropped);
    atomic_fetch_add(&G.self_ns, inj_now_ns() - t0);
}

static void CUPTIAPI state_callback(void *userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_STATE && cbid == CUPTI_CBID_STATE_FATAL_ERROR) {
        const CUpti_StateData *sd = data;
        atomic_store(&G.cuda_state, -1);
        inj_status(LCAP_ST_DISABLED, sd ? (int)sd->notification.result : 0,
                   sd && sd->notification.message ? sd->notification.message : "CUPTI fatal error");
    }
}

static int64_t g_last_sync;
static int g_flush_failures;

/* Periodic CUPTI work, from the flusher thread: deliver completed buffers, resync clocks. */
static void cuda_tick(void)
{
    CUptiResult r = p_cuptiActivityFlushAll(0);
    if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_NOT_INITIALIZED && ++g_flush_failures == 10)
        cupti_fail(LCAP_ST_CUPTI_ERR, "cuptiActivityFlushAll keeps failing", r);
    if (inj_now_ns() - g_last_sync >= LAT_SYNC_EVERY_NS) {
        take_sync();
        g_last_sync = inj_now_ns();
    }
}

static void cuda_exit(void)
{
    if (atomic_exchange(&G.exit_done, true)) return;
    atomic_store(&G.exiting, true);
    if (atomic_load(&G.cuda_state) == 1 && G.init_pid == getpid()) {
        /* Forced flush without disabling kinds (disabling CONCURRENT_KERNEL can deadlock on
         * 13.0 GA, capture.md §2). */
        CUptiResult r = p_cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        if (r != CUPTI_SUCCESS) cupti_fail(LCAP_ST_CUPTI_ERR, "cuptiActivityFlushAll(forced)", r);
        take_sync();
    }
    flush_file();
}

__attribute__((destructor)) static void inj_destructor(void)
{
    if (G.init_pid && G.init_pid == getpid()) cuda_exit();
}

struct kind_req {
    CUpti_ActivityKind kind;
    const char *name;
    bool *want; /* NULL = always */
};

static bool enable_kinds(void)
{
    bool always = true;
    const struct kind_req kinds[] = {
        {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", &always},
        {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", &always},
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", &always},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", &always},
        {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", &always},
        {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", &always},
        {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", &always},
        {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", &G.want_driver},
        {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", &always},
        {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", &always},
        {CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT", &G.want_events},
        {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", &G.want_extcorr},
    };
    int ok = 0;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (!*kinds[i].want) continue;
        CUptiResult r = p_cuptiActivityEnable(kinds[i].kind);
        if (r == CUPTI_SUCCESS) {
            ok++;
        } else {
            char what[64] = "cuptiActivityEnable(";
            size_t n = strlen(what), m = strlen(kinds[i].name);
            memcpy(what + n, kinds[i].name, m);
            memcpy(what + n + m, ")", 2);
            cupti_fail(LCAP_ST_CUPTI_ERR, what, r);
        }
    }
    if (G.want_driver) {
        /* Calls that fire constantly and launch nothing (Kineto filters the same ones). */
        static const CUpti_CallbackId quiet_drv[] = {
            CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
            CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
            CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
            CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
            CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
        };
        for (size_t i = 0; i < sizeof(quiet_drv) / sizeof(quiet_drv[0]); i++)
            p_cuptiActivityEnableDriverApi(quiet_drv[i], 0);
    }
    static const CUpti_CallbackId quiet_rt[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    };
    for (size_t i = 0; i < sizeof(quiet_rt) / sizeof(quiet_rt[0]); i++)
        p_cuptiActivityEnableRuntimeApi(quiet_rt[i], 0);
    return ok > 0;
}

static int cuda_start(void)
{
    CUptiResult r;
    uint32_t ver = 0;
    CUpti_SubscriberHandle sub;

    if (!load_cupti()) return -1;
    r = p_cuptiGetVersion(&ver);
    if (r != CUPTI_SUCCESS || ver < CUPTI_API_VERSION) {
        char msg[128] = "libcupti is older than the CUPTI this library was built for (13.0)";
        inj_status(LCAP_ST_DISABLED, (int)ver, msg);
        return -1;
    }
    r = p_cuptiSubscribe(&sub, (CUpti_CallbackFunc)state_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        cupti_fail(LCAP_ST_BUSY, "CUPTI busy: another tool (torch.profiler, Nsight) holds it", r);
        return -1;
    }
    if (r != CUPTI_SUCCESS) {
        cupti_fail(LCAP_ST_DISABLED, "cuptiSubscribe", r);
        return -1;
    }
    p_cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR);
    r = p_cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (r != CUPTI_SUCCESS) cupti_fail(LCAP_ST_CUPTI_ERR, "cuptiSetThreadIdType(SYSTEM)", r);
    r = p_cuptiActivityRegisterCallbacks(buf_request, buf_completed);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(LCAP_ST_DISABLED, "cuptiActivityRegisterCallbacks", r);
        return -1;
    }
    if (!enable_kinds()) {
        inj_status(LCAP_ST_DISABLED, 0, "no CUPTI activity kind could be enabled");
        return -1;
    }
    {
        char v[64] = "cupti runtime version ";
        size_t o = strlen(v);
        char num[12];
        int k = 0;
        for (uint32_t x = ver; x || !k; x /= 10)
            num[k++] = (char)('0' + x % 10);
        while (k)
            v[o++] = num[--k];
        v[o] = 0;
        inj_status(LCAP_ST_INFO, (int)ver, v);
    }
    return 0;
}

LAT_EXPORT int InitializeInjection(void);
int InitializeInjection(void)
{
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    if (!inj_configure() || !G.want_cuda) return 1;
    pthread_mutex_lock(&once);
    if (atomic_load(&G.cuda_state) != 0) {
        pthread_mutex_unlock(&once);
        return 1;
    }
    G.init_pid = getpid();
    atomic_store(&G.cuda_state, 1);
    if (cuda_start() != 0) {
        atomic_store(&G.cuda_state, -1);
        flush_file();
        pthread_mutex_unlock(&once);
        return 1; /* the target runs on, untraced */
    }
    take_sync();
    g_last_sync = inj_now_ns();
    g_cuda_tick = cuda_tick;
    register_process_hooks();
    atexit(cuda_exit);
    pthread_mutex_lock(&G.lock);
    ensure_flusher_locked();
    bool started = G.flusher_started;
    pthread_mutex_unlock(&G.lock);
    if (!started) inj_status(LCAP_ST_CUPTI_ERR, 0, "no flush thread: records are written at exit");
    flush_file();
    pthread_mutex_unlock(&once);
    return 1;
}

#else /* !LAT_HAVE_CUPTI */

LAT_EXPORT int InitializeInjection(void);
int InitializeInjection(void)
{
    if (inj_configure()) {
        inj_status(LCAP_ST_NO_CUPTI, 0, "liblatscope-cupti.so was built without CUPTI");
        flush_file();
    }
    return 1;
}

#endif
