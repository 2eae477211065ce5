/*
 * shard.c - the share of one process in a multi-host bench (see shard.h): option parsing,
 * the launcher's environment, splitting a load point, the common start time.
 */
#include "bench/shard.h"

#include "bench/target.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_u32(const char *s, size_t n, uint32_t max, uint32_t *out)
{
    if (n == 0 || n > 10) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max) return -1;
    *out = (uint32_t)v;
    return 0;
}

#define SHARD_MAX 65536u

static int env_pair(const char *(*getenv_fn)(const char *), const char *rank_var,
                    const char *size_var, uint32_t size_given, struct bench_shard *s, char *why,
                    size_t whysz, bool *found)
{
    const char *r = getenv_fn(rank_var);
    *found = false;
    if (!r || !*r) return 0;
    const char *n = size_var ? getenv_fn(size_var) : NULL;
    uint32_t k, cnt = size_given;
    if (parse_u32(r, strlen(r), SHARD_MAX - 1, &k) < 0) {
        snprintf(why, whysz, "--shard auto: %s='%s' is not a shard index", rank_var, r);
        return -1;
    }
    if (n && *n && !size_given && parse_u32(n, strlen(n), SHARD_MAX, &cnt) < 0) {
        snprintf(why, whysz, "--shard auto: %s='%s' is not a shard count", size_var, n);
        return -1;
    }
    if (!cnt) {
        snprintf(why, whysz,
                 "--shard auto: %s=%s gives the index but not the count; set %s or give "
                 "--shard auto/N",
                 rank_var, r, size_var ? size_var : "LATSCOPE_SHARDS");
        return -1;
    }
    if (k >= cnt) {
        snprintf(why, whysz, "--shard auto: index %u from %s is not below the count %u", k,
                 rank_var, cnt);
        return -1;
    }
    s->index = k;
    s->count = cnt;
    snprintf(s->source, sizeof(s->source), "%s%s%s", rank_var, size_given ? "" : "/",
             size_given ? "" : size_var);
    *found = true;
    return 0;
}

int shard_resolve(struct bench_shard *s, const char *text, const char *(*getenv_fn)(const char *),
                  char *why, size_t whysz)
{
    const char *slash = strchr(text, '/');
    if (!strncmp(text, "auto", 4) && (text[4] == '\0' || text[4] == '/')) {
        uint32_t given = 0;
        if (text[4] == '/' &&
            (parse_u32(text + 5, strlen(text + 5), SHARD_MAX, &given) < 0 || given == 0)) {
            snprintf(why, whysz, "--shard %s: expected auto/N with N a shard count", text);
            return -1;
        }
        /* Open MPI, MPICH/Hydra (PMI), Slurm, then Kubernetes indexed Jobs. */
        static const char *const pairs[][2] = {
            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
            {"PMI_RANK", "PMI_SIZE"},
            {"SLURM_PROCID", "SLURM_NTASKS"},
            {"JOB_COMPLETION_INDEX", "LATSCOPE_SHARDS"},
        };
        for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
            bool found;
            if (env_pair(getenv_fn, pairs[i][0], pairs[i][1], given, s, why, whysz, &found) < 0)
                return -1;
            if (found) return 0;
        }
        snprintf(why, whysz,
                 "--shard auto: no launcher environment found (OMPI_COMM_WORLD_RANK, PMI_RANK, "
                 "SLURM_PROCID or JOB_COMPLETION_INDEX); give --shard K/N");
        return -1;
    }
    uint32_t k, n;
    if (!slash || parse_u32(text, (size_t)(slash - text), SHARD_MAX - 1, &k) < 0 ||
        parse_u32(slash + 1, strlen(slash + 1), SHARD_MAX, &n) < 0 || n == 0) {
        snprintf(why, whysz, "--shard %s: expected K/N (shard K of N, 0 <= K < N) or auto", text);
        return -1;
    }
    if (k >= n) {
        snprintf(why, whysz, "--shard %s: K counts from 0 and must be below N", text);
        return -1;
    }
    s->index = k;
    s->count = n;
    snprintf(s->source, sizeof(s->source), "--shard");
    return 0;
}

int shard_parse_start_at(const char *text, lat_ns *unix_ns)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v > 0) || v > 4e9) return -1;
    *unix_ns = (lat_ns)llround(v * 1e9);
    return 0;
}

void shard_init(struct bench_shard *s)
{
    memset(s, 0, sizeof(*s));
    s->count = 1;
}

int shard_opt(struct bench_shard *s, int id, const char *v, char *why, size_t whysz)
{
    switch (id) {
    case SHARD_OPT_SHARD:
        s->shard_arg = v;
        s->active = true;
        return 0;
    case SHARD_OPT_START_AT:
        if (shard_parse_start_at(v, &s->start_at_unix_ns) < 0) {
            snprintf(why, whysz,
                     "--start-at %s: expected the start time in seconds since the epoch "
                     "(e.g. $(( $(date +%%s) + 10 )))",
                     v);
            return -1;
        }
        s->have_start_at = true;
        s->active = true;
        return 0;
    case SHARD_OPT_MPI:
        s->mpi = true;
        s->active = true;
        return 0;
    }
    return 1;
}

uint64_t shard_share(uint64_t x, uint32_t k, uint32_t n)
{
    if (n <= 1) return x;
    return x / n + (k < x % n ? 1 : 0);
}

int shard_split_load(const struct bench_shard *s, struct bench_load *l, char *why, size_t whysz)
{
    if (s->count <= 1) return 0;
    uint32_t k = s->index, n = s->count;
    l->shard = k;
    l->nshards = n;
    if (l->rate <= 0) {
        /* The last shard has the smallest part: every shard says the same. */
        uint64_t c = shard_share(l->concurrency ? l->concurrency : 1, k, n);
        if (!shard_share(l->concurrency ? l->concurrency : 1, n - 1, n)) {
            snprintf(why, whysz,
                     "concurrency %u split over %u shards leaves shard %u without a connection; "
                     "give at least one per shard",
                     l->concurrency, n, n - 1);
            return -1;
        }
        l->concurrency = (unsigned)c;
    }
    if (l->requests) {
        /* Global arrival j is shard j mod n's: the warmup is the first W of the sequence,
         * the measured requests the next R. */
        uint64_t w = shard_share(l->warmup_requests, k, n);
        uint64_t all = shard_share(l->requests + l->warmup_requests, k, n);
        if (l->requests < n) {
            snprintf(why, whysz,
                     "--requests %llu split over %u shards leaves shard %u without a request",
                     (unsigned long long)l->requests, n, n - 1);
            return -1;
        }
        l->requests = all - w;
        l->warmup_requests = w;
    } else if (l->warmup_requests) {
        l->warmup_requests = shard_share(l->warmup_requests, k, n);
    }
    return 0;
}

lat_ns shard_point_start(const struct bench_shard *s, size_t i, const struct bench_load *l,
                         const struct bench_opts *o)
{
    if (!s->have_start_at) return 0;
    if (i > 0 && !l->duration_ns) return 0;
    lat_ns period = l->warmup_ns + l->duration_ns + o->request_timeout_ns + LAT_NS_PER_S;
    lat_ns unix_t0 = s->start_at_unix_ns + (lat_ns)i * period;
    lat_ns mono = clock_now_ns() + (unix_t0 - clock_realtime_ns());
    return mono > 0 ? mono : 1;
}

void shard_sleep_until(lat_ns t, volatile sig_atomic_t *stop)
{
    while (!(stop && *stop)) {
        lat_ns now = clock_now_ns();
        if (now >= t) return;
        lat_ns step = t - now < 100 * LAT_NS_PER_MS ? t - now : 100 * LAT_NS_PER_MS;
        struct timespec ts = {.tv_sec = step / LAT_NS_PER_S, .tv_nsec = step % LAT_NS_PER_S};
        nanosleep(&ts, NULL);
    }
}

const struct bench_topt bench_shard_opts[] = {
    {NULL, 0, NULL, 0, 0, "Multi-host (docs/latscope-bench-distributed.md)"},
    {"shard", 0, "K/N|auto[/N]", SHARD_OPT_SHARD, 0,
     "run shard K of N of the load (open loop: arrivals j with\n"
     "j mod N == K of the one seeded schedule; closed loop: a share\n"
     "of the connections); auto reads OMPI_COMM_WORLD_RANK/SIZE,\n"
     "PMI_RANK/SIZE, SLURM_PROCID/SLURM_NTASKS or\n"
     "JOB_COMPLETION_INDEX with LATSCOPE_SHARDS (or auto/N)"},
    {"start-at", 0, "EPOCH", SHARD_OPT_START_AT, 0,
     "start the first point at this wall-clock time (seconds since\n"
     "the epoch); point i at EPOCH + i x (warmup + duration +\n"
     "timeout + 1s)"},
    {"mpi", 0, NULL, SHARD_OPT_MPI, 0,
     "run as the ranks of an MPI job (mpirun -n N latscope bench\n"
     "--mpi ...): common start, exact reduction, rank 0 reports"},
    {0},
};

const char bench_shard_usage[] =
    "  latscope bench merge RESULT.json...   merge the shards' JSON results into one\n";

static const char *shard_getenv(const char *name)
{
    return getenv(name);
}

#if !LAT_HAVE_MPI
lat_ns bench_mpi_point_start(const struct bench_shard *s, size_t i)
{
    (void)s;
    (void)i;
    return 0;
}

int bench_mpi_init(struct bench_shard *s, char *why, size_t whysz)
{
    (void)s;
    snprintf(why, whysz,
             "--mpi: this latscope was built without MPI (install libopenmpi-dev, see "
             "scripts/deps.sh, and rebuild); --shard K/N with 'latscope bench merge' works "
             "with any launcher");
    return -1;
}
#endif

int bench_shard_setup(struct bench_shard *s, char *why, size_t whysz)
{
    if (s->mpi) {
        if (s->shard_arg) {
            snprintf(why, whysz, "--mpi takes the shard from the MPI rank: drop --shard");
            return -1;
        }
        return bench_mpi_init(s, why, whysz);
    }
    if (s->shard_arg) return shard_resolve(s, s->shard_arg, shard_getenv, why, whysz);
    /* Issue 31: `mpirun -n N latscope bench URL` without --mpi ran N whole loads at once, one
     * per process, each reporting it as if alone. An MPI launcher's world of more than one
     * process (Open MPI, MPICH/Hydra and srun's PMI) without --mpi or --shard is refused.
     * Slurm's SLURM_NTASKS alone is not: a batch script runs one process with it set. */
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const char *v = shard_getenv(sizes[i]);
        uint32_t n = 0;
        if (v && parse_u32(v, strlen(v), SHARD_MAX, &n) == 0 && n > 1) {
            snprintf(why, whysz,
                     "this process is one of %u started by an MPI launcher (%s=%s), but "
                     "neither --mpi nor --shard is given: each of the %u would send the whole "
                     "load. Add --mpi (the ranks split the load; rank 0 writes one result), or "
                     "--shard auto (one result per process, then latscope bench merge); "
                     "--shard 0/1 runs the whole load in every process on purpose",
                     n, sizes[i], v, n);
            return -1;
        }
    }
    return 0;
}

int shard_prepare_point(const struct bench_shard *s, size_t i, struct bench_load *l,
                        const struct bench_opts *o, volatile sig_atomic_t *stop, char *why,
                        size_t whysz)
{
    if (shard_split_load(s, l, why, whysz) < 0) return -1;
    lat_ns t0 = s->mpi ? bench_mpi_point_start(s, i) : shard_point_start(s, i, l, o);
    if (!t0) return 0;
    lat_ns now = clock_now_ns();
    if (t0 < now) {
        snprintf(why, whysz,
                 "--start-at: point %zu was due to start %.3f s ago; give a start time far "
                 "enough ahead for every shard to be running (e.g. now + 10 s)",
                 i + 1, (double)(now - t0) / 1e9);
        return -1;
    }
    /* Connections are opened in the last moment before t0 (the engine's set-up delay). */
    shard_sleep_until(t0 - 500 * LAT_NS_PER_MS, stop);
    l->start_at_ns = t0;
    return 0;
}

#if !LAT_HAVE_MPI
#include "bench/mpi.h"

int bench_mpi_point_reduce(const struct bench_shard *s, struct bench_run *run,
                           struct bench_point *p)
{
    (void)s;
    (void)run;
    (void)p;
    return 0;
}

void bench_mpi_fini(const struct bench_shard *s)
{
    (void)s;
}

void bench_mpi_on_fail(void (*note)(int rank, int size, int status))
{
    (void)note;
}

int bench_mpi_gather_records(const struct bench_shard *s, struct bench_result *r, bool want)
{
    (void)s;
    (void)r;
    (void)want;
    return 0;
}

int bench_mpi_gather_gpu(const struct bench_shard *s, const struct bench_result *r,
                         struct gpu_point **g)
{
    (void)s;
    (void)r;
    (void)g;
    return 0;
}

int bench_mpi_window(const struct bench_shard *s, const struct bench_window *in,
                     struct bench_window *out, struct lat_hist *lat, struct lat_hist *lag)
{
    (void)s;
    (void)lat;
    (void)lag;
    *out = *in;
    return 0;
}
#endif
