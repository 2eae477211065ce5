/*
 * mpi.c - `latscope bench --mpi` (see mpi.h). With src/cli-mpi.c (analyze's few calls) the only
 * file that includes <mpi.h>; built only when the Makefile finds Open MPI (pkg-config ompi-c).
 *
 * Clock offsets: rank 0 exchanges 8 ping-pongs with every other rank at MPI_Init time; the
 * offset is rank r's CLOCK_REALTIME minus rank 0's at the midpoint of the fastest round trip
 * (error at most half that round trip). Start: before each point a barrier, then rank 0
 * broadcasts an instant on its own wall clock; rank r starts at that instant plus its offset.
 * Reduction: MPI_Allreduce (SUM) of the counts of each histogram (same layout on every rank:
 * exact), MIN/MAX of the extremes, SUM of the counters, and MPI_Allgather of each rank's line.
 */
#include "bench/mpi.h"

#include "bench/merge.h"

#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static double clock_offset_ms_of_me = 0; /* this rank's clock minus rank 0's */
static double max_abs_offset_ms = 0;
static struct bench_dist mpi_dist;
static bool mpi_started;
static bool windows_done;        /* a rank's last window of this point was reduced */
static struct lat_hist actual_h; /* the reduced window's send-time latency */
static bool records_gathered;    /* this point's records are every rank's (rank 0 keeps them) */
static bool actual_ready;

static void measure_offsets(int rank, int size)
{
    double *offs = calloc((size_t)size, sizeof(*offs));
    if (!offs) return;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            lat_ns best_rtt = INT64_MAX;
            for (int k = 0; k < 8; k++) {
                int64_t ping = k, theirs = 0;
                lat_ns a = clock_realtime_ns();
                MPI_Send(&ping, 1, MPI_INT64_T, r, 77, MPI_COMM_WORLD);
                MPI_Recv(&theirs, 1, MPI_INT64_T, r, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                lat_ns b = clock_realtime_ns();
                if (b - a < best_rtt) {
                    best_rtt = b - a;
                    offs[r] = (double)(theirs - (a + (b - a) / 2)) / 1e6;
                }
            }
        }
    } else {
        for (int k = 0; k < 8; k++) {
            int64_t ping, now;
            MPI_Recv(&ping, 1, MPI_INT64_T, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            now = clock_realtime_ns();
            MPI_Send(&now, 1, MPI_INT64_T, 0, 78, MPI_COMM_WORLD);
        }
    }
    MPI_Bcast(offs, size, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    clock_offset_ms_of_me = offs[rank];
    for (int r = 0; r < size; r++)
        if (fabs(offs[r]) > max_abs_offset_ms) max_abs_offset_ms = fabs(offs[r]);
    free(offs);
}

static void (*fail_note)(int rank, int size, int status);
static int my_rank, world_size;

void bench_mpi_on_fail(void (*note)(int rank, int size, int status))
{
    fail_note = note;
}

/* Whatever path the command leaves by before bench_mpi_fini(): with status 0 (--help) MPI is
 * finalized; with an error (a bad option on this rank only, a connection setup error, a file
 * it cannot write) the other ranks may be waiting for this one in a collective, where they
 * would wait forever: MPI_Abort ends the whole job instead, after the command's note. */
static void finalize_on_exit(int status, void *arg)
{
    (void)arg;
    if (!mpi_started) return;
    mpi_started = false;
    if (status == 0) {
        MPI_Finalize();
        return;
    }
    if (fail_note) fail_note(my_rank, world_size, status);
    MPI_Abort(MPI_COMM_WORLD, status);
}

int bench_mpi_init(struct bench_shard *s, char *why, size_t whysz)
{
    int rank = 0, size = 1, rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS) {
        snprintf(why, whysz, "--mpi: MPI_Init failed (error %d); run under mpirun", rc);
        return -1;
    }
    mpi_started = true;
    on_exit(finalize_on_exit, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    world_size = size;
    s->mpi = true;
    s->active = true;
    s->index = (uint32_t)rank;
    s->count = (uint32_t)size;
    snprintf(s->source, sizeof(s->source), "MPI rank");
    measure_offsets(rank, size);
    mpi_dist.method = "mpi";
    mpi_dist.nshards = (uint32_t)size;
    mpi_dist.max_clock_offset_ms = max_abs_offset_ms;
    mpi_dist.max_start_skew_ms = 0;
    mpi_dist.reduce_ms = NAN;
    return 0;
}

lat_ns bench_mpi_point_start(const struct bench_shard *s, size_t i)
{
    MPI_Barrier(MPI_COMM_WORLD);
    windows_done = false;
    int64_t start = 0;
    if (s->index == 0) {
        lat_ns now = clock_realtime_ns();
        start = now + 200 * LAT_NS_PER_MS;
        if (i == 0 && s->have_start_at && s->start_at_unix_ns > start) start = s->start_at_unix_ns;
    }
    MPI_Bcast(&start, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    /* Rank 0's instant on this rank's clock. */
    lat_ns mine = start + (lat_ns)llround(clock_offset_ms_of_me * 1e6);
    lat_ns mono = clock_now_ns() + (mine - clock_realtime_ns());
    return mono > 0 ? mono : 1;
}

static int reduce_hist(struct lat_hist *h)
{
    if (!h->counts) return LAT_E_INTERNAL;
    if (MPI_Allreduce(MPI_IN_PLACE, h->counts, h->cfg.counts_len, MPI_UINT64_T, MPI_SUM,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
        return LAT_E_INTERNAL;
    uint64_t tc[2] = {h->total, h->clamped};
    int64_t mm[2] = {h->total ? h->min : INT64_MAX, h->total ? -h->max : INT64_MAX};
    if (MPI_Allreduce(MPI_IN_PLACE, tc, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return LAT_E_INTERNAL;
    h->total = tc[0];
    h->clamped = tc[1];
    h->min = tc[0] ? mm[0] : INT64_MAX;
    h->max = tc[0] ? -mm[1] : 0;
    return 0;
}

int bench_mpi_window(const struct bench_shard *s, const struct bench_window *in,
                     struct bench_window *out, struct lat_hist *lat, struct lat_hist *lag)
{
    (void)s;
    if (windows_done) return 1;
    /* the send-time latency too (--hdr-log's lat.send): held here, every rank reduces it */
    if (!actual_ready) {
        if (hist_init_default(&actual_h) < 0) return LAT_E_INTERNAL;
        actual_ready = true;
    }
    hist_reset(lat);
    hist_reset(lag);
    hist_reset(&actual_h);
    if (hist_add(lat, in->lat) < 0 || hist_add(lag, in->send_lag) < 0 ||
        (in->lat_actual && hist_add(&actual_h, in->lat_actual) < 0))
        return LAT_E_INTERNAL;
    /* The window's length is reduced too (the ranks' mean): each rank's own length differs by
     * the time it waited for the others here, and a rule that divided the summed counts by its
     * own length (--stable's throughput) would take a different decision on each rank. */
    uint64_t len = in->t_end > in->t_start ? (uint64_t)(in->t_end - in->t_start) : 0;
    uint64_t c[5] = {in->ok, in->errors, in->inflight, in->last ? 1 : 0, len};
    if (MPI_Allreduce(MPI_IN_PLACE, c, 5, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        return LAT_E_INTERNAL;
    if (c[3]) windows_done = true; /* no rank reduces a window of this point after this one */
    int rc = reduce_hist(lat);
    if (!rc) rc = reduce_hist(lag);
    if (!rc) rc = reduce_hist(&actual_h);
    if (rc) return rc;
    *out = *in;
    out->lat = lat;
    out->lat_actual = &actual_h;
    out->send_lag = lag;
    out->ok = c[0];
    out->errors = c[1];
    out->inflight = c[2];
    out->t_end = out->t_start + (lat_ns)(c[4] / mpi_dist.nshards);
    /* the errors by class too (rank 0's live view shows the whole job's) */
    if (MPI_Allreduce(MPI_IN_PLACE, out->errors_by, BENCH_ERR__COUNT, MPI_UINT64_T, MPI_SUM,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
        return LAT_E_INTERNAL;
    return 0;
}

/* --target openai: the LLM summary of the whole load: counters summed, the latency
 * statistics from the reduced LLM histograms (as bench merge does); the token-count
 * distributions are per-request values no rank has for the others: left empty. */
static int reduce_llm(struct bench_point *p)
{
    struct llm_summary *s = p->llm;
    uint64_t c[LLM_ERR__N + 15]; /* every counter below, in this order */
    size_t n = 0;
    c[n++] = s->out_tokens;
    c[n++] = s->errors;
    for (int e = 0; e < LLM_ERR__N; e++)
        c[n++] = s->err[e];
    for (int t = 0; t < 4; t++)
        c[n++] = s->src_count[t];
    c[n++] = s->osl_mismatch;
    c[n++] = s->isl_short;
    c[n++] = s->burst_streams;
    c[n++] = s->usage_chunk_mismatch;
    c[n++] = s->no_tpot;
    c[n++] = s->good;
    c[n++] = s->has_slo ? 1 : 0;
    c[n++] = s->requests;
    c[n++] = s->ok;
    double d[6] = {s->out_tok_s,          s->req_s,         s->goodput_rps, s->isl_short_usage_sum,
                   s->isl_short_sent_sum, s->burst_ttft_sum};
    int src = (int)s->tokens_source;
    if (MPI_Allreduce(MPI_IN_PLACE, c, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, d, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &src, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return LAT_E_INTERNAL;
    n = 0;
    s->out_tokens = c[n++];
    s->errors = c[n++];
    for (int e = 0; e < LLM_ERR__N; e++)
        s->err[e] = c[n++];
    for (int t = 0; t < 4; t++)
        s->src_count[t] = c[n++];
    s->osl_mismatch = c[n++];
    s->isl_short = c[n++];
    s->burst_streams = c[n++];
    s->usage_chunk_mismatch = c[n++];
    s->no_tpot = c[n++];
    s->good = c[n++];
    s->has_slo = c[n++] > 0;
    s->requests = c[n++];
    s->ok = c[n++];
    s->out_tok_s = d[0];
    s->req_s = d[1];
    s->isl_short_usage_sum = d[3];
    s->isl_short_sent_sum = d[4];
    s->burst_ttft_sum = d[5];
    s->goodput_rps = d[2];
    s->tokens_source = (enum llm_tok_src)src;
    s->goodput_fraction = s->has_slo && s->requests ? (double)s->good / (double)s->requests : 0;
    s->duration_s = p->res.duration_s;
    memset(&s->tokens_per_chunk, 0, sizeof(s->tokens_per_chunk));
    memset(&s->out_tok_s_user, 0, sizeof(s->out_tok_s_user));
    s->tokens_per_chunk_exact = false;
    bench_llm_stats_from_hists(s, p);
    return 0;
}

/* What each rank contributes to the per-rank lines and the union window. */
struct rank_info {
    struct bench_shard_line line;
    int64_t t0_unix, ws_unix; /* on rank 0's clock */
    bool have_window;
};

int bench_mpi_point_reduce(const struct bench_shard *s, struct bench_run *run,
                           struct bench_point *p)
{
    /* The reduction's own cost, not the wait for the last rank to finish its point. */
    MPI_Barrier(MPI_COMM_WORLD);
    lat_ns t_start = clock_now_ns();
    struct bench_result *r = &p->res;
    int size = (int)s->count;
    struct rank_info me = {0};
    me.line.index = s->index;
    me.line.requests = r->ok;
    me.line.errors = r->errors_total;
    me.line.achieved_rps = r->achieved_rps;
    me.line.duration_s = r->duration_s;
    me.line.send_lag_p99_ms = (double)hist_value_at_percentile(&r->send_lag, 99) / 1e6;
    me.line.clock_offset_ms = clock_offset_ms_of_me;
    me.line.valid = r->valid;
    snprintf(me.line.invalid_reason, sizeof(me.line.invalid_reason), "%s", r->invalid_reason);
    lat_ns off = (lat_ns)llround(clock_offset_ms_of_me * 1e6);
    me.t0_unix = r->t0_unix_ns - off;
    me.have_window = r->have_window;
    me.ws_unix = r->t0_unix_ns + (r->window_start_ns - r->t0_ns) - off;
    struct rank_info *all = calloc((size_t)size, sizeof(*all));
    if (!all) return -ENOMEM;
    if (MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE,
                      MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(all);
        return LAT_E_INTERNAL;
    }
    int rc = 0;
    struct lat_hist *hs[] = {&r->lat,      &r->lat_actual, &r->ttfb,
                             &r->send_lag, &r->loop_lag,   &r->client_gap};
    for (size_t k = 0; k < sizeof(hs) / sizeof(hs[0]) && !rc; k++)
        rc = reduce_hist(hs[k]);
    for (size_t k = 0; k < p->nllm_hist && !rc; k++)
        rc = reduce_hist(&p->llm_hist[k]);
    uint64_t cnt[BENCH_ERR__COUNT + 7];
    size_t nc = 0;
    cnt[nc++] = r->ok;
    for (int c = 0; c < BENCH_ERR__COUNT; c++)
        cnt[nc++] = r->errors[c];
    cnt[nc++] = r->inflight_cap_hits;
    cnt[nc++] = r->interrupted_requests;
    cnt[nc++] = r->stale_retries;
    cnt[nc++] = r->server_closes;
    cnt[nc++] = r->bytes;
    cnt[nc++] = r->interrupted || r->stopped_by_rule ? 1 : 0;
    double cpu = r->client_cpu_pct, busy = r->max_thread_busy_pct;
    if (!rc &&
        (MPI_Allreduce(MPI_IN_PLACE, cnt, (int)nc, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) !=
             MPI_SUCCESS ||
         MPI_Allreduce(MPI_IN_PLACE, &cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
         MPI_Allreduce(MPI_IN_PLACE, &busy, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS))
        rc = LAT_E_INTERNAL;
    if (rc) {
        free(all);
        return rc;
    }
    nc = 0;
    r->ok = cnt[nc++];
    r->errors_total = 0;
    for (int c = 0; c < BENCH_ERR__COUNT; c++) {
        r->errors[c] = cnt[nc++];
        r->errors_total += r->errors[c];
    }
    r->inflight_cap_hits = cnt[nc++];
    r->interrupted_requests = cnt[nc++];
    r->stale_retries = cnt[nc++];
    r->server_closes = cnt[nc++];
    r->bytes = cnt[nc++];
    uint64_t ended = cnt[nc++];
    (void)ended;
    r->client_cpu_pct = cpu;
    r->max_thread_busy_pct = busy;
    /* The per-rank exact samples are not reduced: percentiles come from the histograms. */
    samples_fini(&r->exact);
    samples_fini(&r->exact_actual);
    r->have_exact = false;
    if (!records_gathered) { /* a rank's own records (no --records): dropped */
        free(r->records);
        r->records = NULL;
        r->nrecords = 0;
    }
    records_gathered = false;
    /* Validity: INVALID when any rank's point is. */
    int64_t t0_min = INT64_MAX, t0_max = INT64_MIN, ws_min = INT64_MAX, we_max = INT64_MIN;
    size_t ninvalid = 0;
    bool valid = true, invalid_client = false;
    char reason[256] = "";
    struct bench_shard_line *lines = calloc((size_t)size, sizeof(*lines));
    if (!lines) {
        free(all);
        return -ENOMEM;
    }
    for (int k = 0; k < size; k++) {
        lines[k] = all[k].line;
        if (!lines[k].valid) {
            valid = false;
            if (!ninvalid++)
                snprintf(reason, sizeof(reason), "rank %d: %s", k, lines[k].invalid_reason);
        }
        if (all[k].t0_unix < t0_min) t0_min = all[k].t0_unix;
        if (all[k].t0_unix > t0_max) t0_max = all[k].t0_unix;
        if (all[k].have_window) {
            /* On the schedule's time axis (bench/merge.h): the single-process window. */
            int64_t rel = all[k].ws_unix - all[k].t0_unix;
            if (rel < ws_min) ws_min = rel;
            int64_t we = rel + (int64_t)llround(lines[k].duration_s * 1e9);
            if (we > we_max) we_max = we;
        }
    }
    if (!r->valid && r->invalid_client) invalid_client = true;
    int ic = invalid_client;
    MPI_Allreduce(MPI_IN_PLACE, &ic, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < size; k++)
        lines[k].t0_offset_ms = (double)(all[k].t0_unix - t0_min) / 1e6;
    if (ninvalid > 1) {
        size_t len = strlen(reason);
        snprintf(reason + len, sizeof(reason) - len, " (and %zu more ranks INVALID)", ninvalid - 1);
    }
    r->valid = valid;
    r->invalid_client = !valid && ic;
    snprintf(r->invalid_reason, sizeof(r->invalid_reason), "%s", valid ? "" : reason);
    r->t0_unix_ns = t0_min;
    r->t0_ns = 0;
    if (ws_min != INT64_MAX && we_max > ws_min) {
        r->window_start_ns = ws_min;
        r->have_window = true;
        r->duration_s = (double)(we_max - ws_min) / 1e9;
    }
    r->achieved_rps = r->duration_s > 0 ? (double)r->ok / r->duration_s : 0;
    r->offered_rps = p->load.rate;
    /* The whole load: the split parts added back. */
    unsigned conc = p->load.concurrency, infl = p->load.max_inflight;
    MPI_Allreduce(MPI_IN_PLACE, &conc, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &infl, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
    p->load.concurrency = conc;
    p->load.max_inflight = infl;
    if (p->llm && (rc = reduce_llm(p)) != 0) {
        free(lines);
        free(all);
        return rc;
    }
    free(p->shards);
    p->shards = lines;
    p->nshards = (size_t)size;
    free(all);
    double skew = (double)(t0_max - t0_min) / 1e6;
    if (skew > mpi_dist.max_start_skew_ms) mpi_dist.max_start_skew_ms = skew;
    mpi_dist.reduce_ms = (double)(clock_now_ns() - t_start) / 1e6;
    run->dist = &mpi_dist;
    return 0;
}

static int rec_cmp(const void *a, const void *b)
{
    const struct bench_record *x = a, *y = b;
    return x->t_sched < y->t_sched ? -1 : x->t_sched > y->t_sched;
}

int bench_mpi_gather_records(const struct bench_shard *s, struct bench_result *r, bool want)
{
    (void)s;
    int w = want; /* rank 0's: the others follow it, so every rank takes the same path */
    if (MPI_Bcast(&w, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return LAT_E_INTERNAL;
    if (!w) return 0;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* this rank's CLOCK_MONOTONIC -> rank 0's CLOCK_REALTIME (clock offset corrected) */
    lat_ns off = (lat_ns)llround(clock_offset_ms_of_me * 1e6);
    int64_t delta = r->t0_unix_ns - off - r->t0_ns;
    size_t bytes = r->nrecords * sizeof(*r->records);
    if (bytes > INT32_MAX) return -E2BIG;
    for (size_t i = 0; i < r->nrecords; i++) {
        struct bench_record *q = &r->records[i];
        q->t_sched += delta;
        if (q->t_send) q->t_send += delta;
        if (q->t_first) q->t_first += delta;
        q->t_end += delta;
    }
    int mine[2] = {(int)bytes, 0};
    int *lens = rank == 0 ? calloc((size_t)size * 2, sizeof(*lens)) : NULL;
    if (rank == 0 && !lens) return -ENOMEM; /* the others wait in the gather: MPI_Abort */
    if (MPI_Gather(mine, 2, MPI_INT, lens, 2, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(lens);
        return LAT_E_INTERNAL;
    }
    int *counts = NULL, *displ = NULL;
    struct bench_record *all = NULL;
    size_t total = 0;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof(*counts));
        displ = calloc((size_t)size, sizeof(*displ));
        for (int k = 0; counts && displ && k < size; k++) {
            counts[k] = lens[2 * k];
            displ[k] = (int)total;
            total += (size_t)lens[2 * k];
        }
        if (total > INT32_MAX || !counts || !displ ||
            !(all = malloc(total ? total : sizeof(*all)))) {
            free(lens);
            free(counts);
            free(displ);
            return -ENOMEM;
        }
    }
    int rc = MPI_Gatherv(r->records ? (void *)r->records : (void *)"", (int)bytes, MPI_BYTE, all,
                         counts, displ, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    free(displ);
    if (rc != MPI_SUCCESS) {
        free(lens);
        free(all);
        return LAT_E_INTERNAL;
    }
    if (rank != 0) { /* rank 0 writes them */
        free(r->records);
        r->records = NULL;
        r->nrecords = 0;
        return 0;
    }
    size_t n = total / sizeof(*all);
    lat_ns first = INT64_MAX;
    for (size_t i = 0; i < n; i++) { /* back to rank 0's monotonic clock */
        struct bench_record *q = &all[i];
        q->t_sched -= delta;
        if (q->t_send) q->t_send -= delta;
        if (q->t_first) q->t_first -= delta;
        q->t_end -= delta;
        if (q->t_sched < first) first = q->t_sched;
    }
    qsort(all, n, sizeof(*all), rec_cmp);
    free(r->records);
    r->records = all;
    r->nrecords = n;
    records_gathered = true;
    if (n) r->t_first_sched = first; /* the records' base: the job's first send */
    free(lens);
    return 0;
}

int bench_mpi_gather_gpu(const struct bench_shard *s, const struct bench_result *r,
                         struct gpu_point **g)
{
    (void)s;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* this rank's CLOCK_MONOTONIC -> rank 0's CLOCK_REALTIME, as for the records */
    lat_ns off = (lat_ns)llround(clock_offset_ms_of_me * 1e6);
    int64_t delta = r->t0_unix_ns - off - r->t0_ns;
    /* the blob: the gpu_point (its series pointer not used) and then its samples */
    struct gpu_point *mine = *g;
    size_t ns = mine ? mine->n : 0;
    size_t bytes = mine ? sizeof(*mine) + ns * sizeof(*mine->s) : 0;
    if (bytes > INT32_MAX) return -E2BIG;
    char *blob = bytes ? malloc(bytes) : NULL;
    if (bytes && !blob) return -ENOMEM; /* the others wait in the gather: MPI_Abort */
    if (mine && blob) {
        struct gpu_point hdr = *mine;
        hdr.s = NULL;
        hdr.t_begin += delta;
        hdr.t_end += delta;
        memcpy(blob, &hdr, sizeof(hdr));
        struct gpu_sample *sv = (struct gpu_sample *)(blob + sizeof(hdr));
        for (size_t i = 0; i < ns; i++) {
            sv[i] = mine->s[i];
            sv[i].t += delta;
        }
    }
    int len = (int)bytes;
    int *lens = rank == 0 ? calloc((size_t)size, sizeof(*lens)) : NULL;
    int *displ = rank == 0 ? calloc((size_t)size, sizeof(*displ)) : NULL;
    if (rank == 0 && (!lens || !displ)) {
        free(blob);
        free(lens);
        free(displ);
        return -ENOMEM;
    }
    if (MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(blob);
        free(lens);
        free(displ);
        return LAT_E_INTERNAL;
    }
    size_t total = 0;
    char *all = NULL;
    if (rank == 0) {
        for (int k = 0; k < size; k++) {
            displ[k] = (int)total;
            total += (size_t)lens[k];
        }
        if (total > INT32_MAX || !(all = malloc(total ? total : 1))) {
            free(blob);
            free(lens);
            free(displ);
            return -ENOMEM;
        }
    }
    int rc =
        MPI_Gatherv(blob ? blob : "", len, MPI_BYTE, all, lens, displ, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(blob);
    if (rc != MPI_SUCCESS) {
        free(lens);
        free(displ);
        free(all);
        return LAT_E_INTERNAL;
    }
    if (rank != 0) return 0; /* rank 0 reports the job's telemetry */
    struct gpu_point *m = calloc(1, sizeof(*m));
    size_t cap = 0;
    rc = m ? 0 : -ENOMEM;
    bool any = false;
    for (int k = 0; k < size && !rc; k++) {
        if ((size_t)lens[k] < sizeof(struct gpu_point)) continue;
        struct gpu_point hdr;
        memcpy(&hdr, all + displ[k], sizeof(hdr));
        size_t kn = ((size_t)lens[k] - sizeof(hdr)) / sizeof(struct gpu_sample);
        const struct gpu_sample *sv = (const struct gpu_sample *)(all + displ[k] + sizeof(hdr));
        if (!any) {
            m->source = mine ? mine->source : "?"; /* every rank runs the same source */
            m->t_begin = hdr.t_begin;
            m->t_end = hdr.t_end;
        }
        any = true;
        if (hdr.available) m->available = true;
        if (!hdr.available && !m->why[0])
            snprintf(m->why, sizeof(m->why), "rank %d: %.200s", k, hdr.why);
        m->scrapes += hdr.scrapes;
        m->errors += hdr.errors;
        if (hdr.t_begin < m->t_begin) m->t_begin = hdr.t_begin;
        if (hdr.t_end > m->t_end) m->t_end = hdr.t_end;
        size_t map[GPU_TELEM_MAX_GPUS];
        for (size_t j = 0; j < hdr.ndev && j < GPU_TELEM_MAX_GPUS; j++) {
            size_t d = m->ndev;
            for (size_t q = 0; hdr.dev[j].uuid[0] && q < m->ndev; q++)
                if (!strcmp(m->dev[q].uuid, hdr.dev[j].uuid)) d = q;
            if (d == m->ndev && m->ndev < GPU_TELEM_MAX_GPUS) {
                m->dev[d] = hdr.dev[j];
                if (!hdr.dev[j].uuid[0] && size > 1) {
                    char id[GPU_ID_MAX + 16];
                    snprintf(id, sizeof(id), "%d:%s", k, hdr.dev[j].id);
                    memcpy(m->dev[d].id, id, GPU_ID_MAX - 1);
                    m->dev[d].id[GPU_ID_MAX - 1] = '\0';
                }
                m->ndev++;
            }
            map[j] = d < m->ndev ? d : GPU_TELEM_MAX_GPUS;
            for (int f = 0; d < m->ndev && f < GPU_F__N; f++)
                gpu_stat_add(&m->st[d].f[f], &hdr.st[j].f[f]);
        }
        for (size_t i = 0; i < kn; i++) {
            if (sv[i].dev >= hdr.ndev || map[sv[i].dev] == GPU_TELEM_MAX_GPUS) continue;
            if (LAT_GROW(m->s, cap, m->n, 1, 64)) {
                rc = -ENOMEM;
                break;
            }
            m->s[m->n] = sv[i];
            m->s[m->n].dev = (uint16_t)map[sv[i].dev];
            m->s[m->n].t -= delta; /* back to rank 0's monotonic clock */
            m->n++;
        }
    }
    free(lens);
    free(displ);
    free(all);
    if (rc || !any) {
        gpu_point_free(m);
        return rc;
    }
    m->t_begin -= delta;
    m->t_end -= delta;
    if (m->n) qsort(m->s, m->n, sizeof(*m->s), gpu_sample_cmp);
    gpu_point_free(*g);
    *g = m;
    return 0;
}

void bench_mpi_fini(const struct bench_shard *s)
{
    if (actual_ready) {
        hist_fini(&actual_h);
        actual_ready = false;
    }
    if (s->mpi && mpi_started) {
        MPI_Finalize();
        mpi_started = false;
    }
}
