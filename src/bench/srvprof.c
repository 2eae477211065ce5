/*
 * srvprof.c - bench --server-pid: the server's CPU samples joined to the bench records
 * (srvprof.h has the method; docs/latscope-bench.md "Server profile" its limits).
 */
#define PR_FMT "bench"
#include "bench/srvprof.h"

#include "analyze/cpu.h"
#include "capture/cpuprof.h"
#include "core/err.h"
#include "core/esc.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/sort.h"
#include "core/u64map.h"
#include "core/units.h"
#include "export/kineto_write.h"
#include "hist/samples.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { SRV_OPT_PID = 1, SRV_OPT_SLOW, SRV_OPT_SAMPLES, SRV_OPT_FREQ };

const struct bench_topt bench_srv_opts[] = {
    {NULL, 0, NULL, 0, 0,
     "Server profile: which code made the slow requests slow (one load point,\n"
     "a local server; docs/latscope-bench-server-profile.md)"},
    {"server-pid", 0, "PID", SRV_OPT_PID, 0,
     "sample this server process's CPU stacks while the load runs\n"
     "(perf_event_open, as 'trace --cpu --pid'), on the records'\n"
     "clock: slow against fast requests, function by function"},
    {"server-slow", 0, "pNN|D", SRV_OPT_SLOW, 0,
     "the slow side: requests at or above this percentile or\n"
     "latency (default p99); the fast side: at or below p50"},
    {"server-samples", 0, "FILE", SRV_OPT_SAMPLES, 0,
     "write the server's samples as a trace (Kineto JSON, ts 0 =\n"
     "the --records' 0) for latscope analyze/report"},
    {"server-freq", 0, "HZ", SRV_OPT_FREQ, 0,
     "samples per second per server thread (default 999, at most\n"
     "1000)"},
    {0},
};

int srvprof_opt(struct srvprof_cfg *c, int id, const char *val, char *why, size_t whylen)
{
    uint64_t u;
    char *e;
    switch (id) {
    case SRV_OPT_PID:
        if (units_parse_count(val, &u) < 0 || u == 0 || u > INT32_MAX) break;
        c->pid = (pid_t)u;
        return 0;
    case SRV_OPT_SLOW:
        if (val[0] == 'p') {
            double v = strtod(val + 1, &e);
            if (e == val + 1 || *e || !(v > 50 && v < 100)) break;
            c->slow_pct = v;
            return 0;
        }
        if (units_parse_duration(val, LAT_NS_PER_S, &c->slow_ns) < 0 || c->slow_ns <= 0) break;
        return 0;
    case SRV_OPT_SAMPLES:
        c->samples_path = val;
        return 0;
    case SRV_OPT_FREQ:
        if (units_parse_count(val, &u) < 0 || u == 0 || u > 1000) break;
        c->freq_hz = (unsigned)u;
        return 0;
    default:
        snprintf(why, whylen, "unknown --server option");
        return -1;
    }
    static const char *const what[][2] = {
        [SRV_OPT_PID] = {"--server-pid", "expected a process id"},
        [SRV_OPT_SLOW] = {"--server-slow",
                          "expected a percentile above p50 (p90, p99) or a latency (20ms)"},
        [SRV_OPT_SAMPLES] = {"--server-samples", "expected a file name"},
        [SRV_OPT_FREQ] = {"--server-freq", "expected samples per second, 1 to 1000"},
    };
    snprintf(why, whylen, "%s %s: %s", what[id][0], val, what[id][1]);
    return -1;
}

struct srvprof {
    struct srvprof_cfg cfg;
    struct cpuprof *cp;
    pthread_t th;
    bool th_on, stopped;
    atomic_int stop;
    int err; /* the poll thread's first error */
};

static void *poll_main(void *arg)
{
    struct srvprof *s = arg;
    while (!atomic_load(&s->stop)) {
        int rc = cpuprof_poll(s->cp, 100);
        if (rc < 0) {
            s->err = rc;
            break;
        }
    }
    return NULL;
}

const char *srvprof_strerror(int rc)
{
    return cpuprof_strerror(rc);
}

int srvprof_start(const struct srvprof_cfg *cfg, struct srvprof **out, char *why, size_t whylen)
{
    *out = NULL;
    struct srvprof *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    s->cfg = *cfg;
    if (!s->cfg.freq_hz) s->cfg.freq_hz = 999;
    if (!(s->cfg.conf > 0 && s->cfg.conf < 1)) s->cfg.conf = 0.95;
    if (!s->cfg.slow_ns && !(s->cfg.slow_pct > 0)) s->cfg.slow_pct = 99;
    struct cpuprof_opts co = {.freq_hz = s->cfg.freq_hz,
                              .kernel_stacks = true,
                              .offcpu = true,
                              .python = true,
                              .follow_children = true};
    int rc = cpuprof_start(cfg->pid, false, &co, &s->cp);
    if (rc < 0) {
        snprintf(why, whylen, "--server-pid %d: cannot sample it: %s", (int)cfg->pid,
                 cpuprof_strerror(rc));
        free(s);
        return rc;
    }
    /* The drain thread takes no signal: Ctrl-C stays the bench's (its handler, its thread). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = -pthread_create(&s->th, NULL, poll_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0) {
        snprintf(why, whylen, "--server-pid: cannot start the sampler's thread: %s", strerror(-rc));
        cpuprof_free(s->cp);
        free(s);
        return rc;
    }
    s->th_on = true;
    *out = s;
    return 0;
}

int srvprof_stop(struct srvprof *s)
{
    if (!s || s->stopped) return 0;
    if (s->th_on) {
        atomic_store(&s->stop, 1);
        pthread_join(s->th, NULL);
        s->th_on = false;
    }
    s->stopped = true;
    int rc = cpuprof_stop(s->cp);
    return s->err ? s->err : rc;
}

void srvprof_free(struct srvprof *s)
{
    if (!s) return;
    srvprof_stop(s);
    cpuprof_free(s->cp);
    free(s);
}

void srvprof_result_fini(struct srvprof_result *r)
{
    diff_trace_result_fini(&r->cmp);
    memset(r, 0, sizeof(*r));
}

/* First index of sorted v[0..n) with v[i] >= x. */
static size_t lower_bound(const lat_ns *v, size_t n, lat_ns x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m] < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* A measured request the server profile can use: completed, with its send time. */
static bool usable(const struct bench_record *q)
{
    return q->err == -1 && q->t_send > 0 && q->t_end > q->t_send;
}

/* Counts the samples of sorted ts[0..n) inside at least one window (*in) and inside more than
 * one (*amb): the windows open at t are the starts <= t minus the ends <= t. 0 or -ENOMEM. */
static int window_counts(const lat_ns *ts, size_t n, lat_ns (*win)[2], size_t nw, uint64_t *in,
                         uint64_t *amb)
{
    lat_ns *st = malloc((nw ? nw : 1) * sizeof(*st)), *en = malloc((nw ? nw : 1) * sizeof(*en));
    if (!st || !en) {
        free(st);
        free(en);
        return -ENOMEM;
    }
    for (size_t i = 0; i < nw; i++) {
        st[i] = win[i][0];
        en[i] = win[i][1];
    }
    qsort(st, nw, sizeof(*st), lat_cmp_i64);
    qsort(en, nw, sizeof(*en), lat_cmp_i64);
    size_t a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        while (a < nw && st[a] <= ts[i])
            a++;
        while (b < nw && en[b] <= ts[i])
            b++;
        if (a - b >= 1) (*in)++;
        if (a - b > 1) (*amb)++;
    }
    free(st);
    free(en);
    return 0;
}

/* What an event of the server's trace is to the analysis. */
enum sp_class { SP_NONE = 0, SP_PY, SP_NATIVE, SP_UNREAD };

static bool keep_sample(void *ud, size_t i)
{
    return ((const uint8_t *)ud)[i] != SP_UNREAD; /* off-CPU intervals are SP_NONE: kept */
}

static void side_add(struct srvprof_side *sd, const struct bench_record *q, size_t nin,
                     lat_ns first, lat_ns period)
{
    sd->requests++;
    sd->lat_mean_ms += (double)(q->t_end - q->t_sched) / 1e6;
    sd->oncpu_ms += (double)nin * (double)period / 1e6;
    if (nin) {
        sd->with_samples++;
        sd->first_sample_ms += (double)first / 1e6;
    }
}

static void side_finish(struct srvprof_side *sd)
{
    if (sd->requests) {
        sd->lat_mean_ms /= (double)sd->requests;
        sd->oncpu_ms /= (double)sd->requests;
    }
    sd->first_sample_ms = sd->with_samples ? sd->first_sample_ms / (double)sd->with_samples : NAN;
}

/* Metadata entry key = the JSON number v (raw text, as the readers keep it). */
static int meta_num(struct lat_trace *t, const char *key, int64_t v)
{
    char num[32];
    int n = snprintf(num, sizeof(num), "%lld", (long long)v);
    uint32_t k, val;
    int rc = lat_trace_intern(t, key, strlen(key), &k);
    if (!rc) rc = lat_trace_intern(t, num, (size_t)n, &val);
    if (!rc) rc = lat_trace_add_meta(t, k, val);
    return rc;
}

/* The samples as a Kineto trace, with where its ts 0 is on CLOCK_MONOTONIC and whose they are. */
static int save_trace(struct lat_trace *t, const char *path, lat_ns t0, pid_t pid)
{
    int rc = meta_num(t, "latscope_t0_monotonic_ns", t0);
    if (!rc) rc = meta_num(t, "latscope_server_pid", pid);
    if (!rc) rc = lat_trace_sort(t);
    struct kineto_write_opts wo = {.gzip = -1};
    if (!rc) rc = kineto_write_file(t, path, &wo);
    return rc;
}

int srvprof_analyze(struct srvprof *s, const struct bench_result *res, const char *trace_path,
                    struct srvprof_result *out)
{
    memset(out, 0, sizeof(*out));
    struct lat_trace *t = NULL;
    int rc = lat_trace_new(&t);
    if (rc) return rc;
    lat_trace_set_format(t, &lat_format_latscope);
    cpuprof_set_origin(s->cp, res->t_first_sched);
    rc = cpuprof_export(s->cp, t);
    if (rc < 0) {
        out->why = "the sampler's samples could not be read";
    } else if (trace_path && (rc = save_trace(t, trace_path, res->t_first_sched, s->cfg.pid)) < 0) {
        out->why = "the server trace file could not be written";
    } else {
        rc = srvprof_analyze_trace(t, &s->cfg, res, out);
        if (!rc) out->trace_path = trace_path;
    }
    cpuprof_stats(s->cp, out->stats, sizeof(out->stats));
    lat_trace_free(t);
    return rc;
}

int srvprof_analyze_trace(const struct lat_trace *t, const struct srvprof_cfg *cfg_in,
                          const struct bench_result *res, struct srvprof_result *out)
{
    struct srvprof_cfg cfg = *cfg_in, *c = &cfg;
    if (!c->freq_hz) c->freq_hz = 999;
    if (!(c->conf > 0 && c->conf < 1)) c->conf = 0.95;
    if (!c->slow_ns && !(c->slow_pct > 0)) c->slow_pct = 99;
    memset(out, 0, sizeof(*out));
    out->pid = c->pid;
    out->freq_hz = c->freq_hz;
    out->period_ns = (lat_ns)(1e9 / c->freq_hz);
    out->t0_ns = res->t_first_sched;
    out->conf = c->conf;
    if (c->slow_ns)
        snprintf(out->slow_rule, sizeof(out->slow_rule), "%.3gms", (double)c->slow_ns / 1e6);
    else
        snprintf(out->slow_rule, sizeof(out->slow_rule), "p%g", c->slow_pct);

    int rc = 0;
    /* ts: every on-CPU sample (the windows' on-CPU time, first sample, ambiguity); tsk: those
     * the function table counts (less the unread ones) */
    lat_ns *ts = NULL, *tsk = NULL, (*win)[2] = NULL, (*wside[2])[2] = {NULL, NULL};
    size_t nts = 0, tscap = 0, ntsk = 0, tskcap = 0, nw = 0, nside[2] = {0, 0};
    struct lat_samples lats = {0};
    struct lat_cpu_summary sum[2];
    memset(sum, 0, sizeof(sum));
    struct lat_u64map tracks = {0};
    uint8_t *cls = NULL; /* per event: enum sp_class */
    /* The on-CPU samples: with a Python frame or not, and the threads (bit 1: seen, bit 2: had
     * a Python frame). A sample without one in a thread that had them is a sample whose
     * Python frames the sampler could not read (too late): its native frames are the
     * interpreter's, so it is left out (SP_UNREAD, keep_sample). */
    rc = -ENOMEM;
    cls = calloc(t->ev.n ? t->ev.n : 1, 1);
    if (!cls) goto done;
    uint32_t k_state = strtab_find(&t->strs, "state", 5);
    uint32_t k_stack = strtab_find(&t->strs, "stack", 5);
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        bool off = false, py = false;
        for (uint32_t a = 0; a < t->ev.nargs[i]; a++) {
            const struct lat_arg *arg = &t->args[t->ev.args[i] + a];
            if (arg->key == k_state && arg->type == LAT_ARG_STR)
                off = !strcmp(lat_trace_str(t, arg->str), "off");
            if (arg->key == k_stack && arg->type == LAT_ARG_STR)
                py = strstr(lat_trace_str(t, arg->str), "py:") != NULL;
        }
        if (off) continue;
        cls[i] = py ? SP_PY : SP_NATIVE;
        out->samples_total++;
        out->samples_python += py;
        uint64_t *seen = lat_u64map_slot(&tracks, t->ev.track[i], NULL);
        if (!seen) goto done;
        if (!*seen) out->threads++;
        *seen |= 1 | (py ? 2 : 0);
    }
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!cls[i]) continue;
        uint64_t tv = 0;
        lat_u64map_get(&tracks, t->ev.track[i], &tv);
        if (LAT_GROW(ts, tscap, nts, 1, 4096)) goto done;
        ts[nts++] = t->ev.ts[i];
        if (cls[i] == SP_NATIVE && (tv & 2)) {
            cls[i] = SP_UNREAD;
            out->samples_unread++;
            continue;
        }
        if (LAT_GROW(tsk, tskcap, ntsk, 1, 4096)) goto done;
        tsk[ntsk++] = t->ev.ts[i];
    }
    rc = 0;
    if (nts) qsort(ts, nts, sizeof(*ts), lat_cmp_i64); /* ts is NULL without samples */
    if (ntsk) qsort(tsk, ntsk, sizeof(*tsk), lat_cmp_i64);

    /* The requests: windows [t_send, t_end) in trace ns, and the thresholds. */
    rc = -ENOMEM;
    size_t nrec = res->nrecords;
    win = malloc((nrec ? nrec : 1) * sizeof(*win));
    if (!win || samples_init(&lats, nrec ? nrec : 1) < 0) goto done;
    for (size_t i = 0; i < nrec; i++) {
        const struct bench_record *q = &res->records[i];
        if (!usable(q)) continue;
        win[nw][0] = q->t_send - out->t0_ns;
        win[nw][1] = q->t_end - out->t0_ns;
        nw++;
        samples_push(&lats, q->t_end - q->t_sched);
    }
    out->requests = nw;
    rc = 0;
    if (nw < 4) {
        out->why = "fewer than 4 completed requests: no slow/fast comparison";
        goto done;
    }
    lat_ns p50 = samples_percentile(&lats, 50);
    lat_ns slow = c->slow_ns ? c->slow_ns : samples_percentile(&lats, c->slow_pct);
    out->p50_ms = (double)p50 / 1e6;
    out->slow_ms = (double)slow / 1e6;

    /* Per request: its samples, the first one; the two sides' windows. */
    rc = -ENOMEM;
    for (int k = 0; k < 2; k++)
        if (!(wside[k] = malloc(nw * sizeof(*wside[k])))) goto done;
    rc = 0;
    size_t w = 0;
    for (size_t i = 0; i < nrec; i++) {
        const struct bench_record *q = &res->records[i];
        if (!usable(q)) continue;
        size_t a = lower_bound(ts, nts, win[w][0]), b = lower_bound(ts, nts, win[w][1]);
        lat_ns lat = q->t_end - q->t_sched, first = b > a ? ts[a] - win[w][0] : 0;
        if (lat >= slow) {
            side_add(&out->slow, q, b - a, first, out->period_ns);
            memcpy(wside[1][nside[1]++], win[w], sizeof(win[w]));
        } else if (lat <= p50) {
            side_add(&out->fast, q, b - a, first, out->period_ns);
            memcpy(wside[0][nside[0]++], win[w], sizeof(win[w]));
        }
        w++;
    }
    side_finish(&out->fast);
    side_finish(&out->slow);
    /* Samples in any window, and in more than one (time-window attribution's ambiguity). */
    if ((rc = window_counts(ts, nts, win, nw, &out->samples_in_windows, &out->samples_ambiguous)) <
        0)
        goto done;
    /* Each side's samples, each once (what lat_cpu_summarize counts below) */
    uint64_t amb_side;
    struct srvprof_side *sd[2] = {&out->fast, &out->slow};
    for (int k = 0; k < 2; k++)
        if ((rc = window_counts(tsk, ntsk, wside[k], nside[k], &sd[k]->samples, &amb_side)) < 0)
            goto done;
    if (slow <= p50) {
        out->why = "the slow threshold is not above the point's p50: no slow/fast comparison "
                   "(--server-slow sets it)";
        goto done;
    }
    if (!out->slow.requests || !out->fast.requests) {
        out->why = "no request at or above the slow threshold: no slow/fast comparison "
                   "(--server-slow sets it)";
        goto done;
    }
    struct lat_cpu_opts co = {.top_n = SIZE_MAX,
                              .tid = -1,
                              .period_ns = out->period_ns,
                              .keep = keep_sample,
                              .keep_ud = cls};
    for (int k = 0; k < 2 && !rc; k++) {
        co.windows = (const lat_ns(*)[2])wside[k];
        co.nwindows = nside[k];
        rc = lat_cpu_summarize(t, &co, &sum[k]);
    }
    if (!rc) rc = diff_cpu_rows(sum, 1, 1, out->conf, &out->cmp);
    if (!rc && (!sum[0].samples || !sum[1].samples))
        out->why = "no server CPU sample in the fast or in the slow requests' windows: is "
                   "--server-pid the process that serves them?";
    else if (!rc)
        out->have = true;
done:
    for (int k = 0; k < 2; k++) {
        lat_cpu_summary_fini(&sum[k]);
        free(wside[k]);
    }
    lat_u64map_fini(&tracks);
    free(cls);
    samples_fini(&lats);
    free(win);
    free(ts);
    free(tsk);
    return rc;
}

/* ---- output ---- */

static double pct(uint64_t k, uint64_t n)
{
    return n ? 100.0 * (double)k / (double)n : NAN;
}

int srvprof_write_text(FILE *f, const struct srvprof_result *r, size_t top)
{
    fprintf(f, "\nserver profile (pid %d, on-CPU samples at %u Hz, one clock: CLOCK_MONOTONIC)\n",
            (int)r->pid, r->freq_hz);
    if (!r->samples_total)
        fprintf(f, "  samples: 0 (the process did not run on a CPU during the point)\n");
    else if (!r->samples_in_windows)
        fprintf(f, "  samples: %llu, none in a request's window, %llu thread%s\n",
                (unsigned long long)r->samples_total, (unsigned long long)r->threads,
                r->threads == 1 ? "" : "s");
    else
        fprintf(f,
                "  samples: %llu, %llu in a request's window (%.1f %%), %llu in more than one "
                "(%.1f %%: time-window attribution), %llu thread%s\n",
                (unsigned long long)r->samples_total, (unsigned long long)r->samples_in_windows,
                pct(r->samples_in_windows, r->samples_total),
                (unsigned long long)r->samples_ambiguous,
                pct(r->samples_ambiguous, r->samples_in_windows), (unsigned long long)r->threads,
                r->threads == 1 ? "" : "s");
    if (r->stats[0]) fprintf(f, "  sampler: %s\n", r->stats);
    if (r->samples_unread)
        fprintf(f,
                "  %llu samples (%.1f %%) of Python threads came without their Python frames "
                "(read too late): left out below\n",
                (unsigned long long)r->samples_unread, pct(r->samples_unread, r->samples_total));
    if (r->trace_path) fprintf(f, "  samples saved to %s\n", r->trace_path);
    if (!r->requests) {
        fprintf(f, "  no completed request: no slow/fast comparison\n");
        return ferror(f) ? -EIO : 0;
    }
    fprintf(f, "  %-22s %9s %9s %11s %13s %15s\n", "requests", "n", "samples", "latency ms",
            "server cpu ms", "first sample ms");
    const struct srvprof_side *sd[2] = {&r->fast, &r->slow};
    char lab[2][64];
    snprintf(lab[0], sizeof(lab[0]), "fast (<= p50 %.3f ms)", r->p50_ms);
    snprintf(lab[1], sizeof(lab[1]), "slow (>= %s %.3f ms)", r->slow_rule, r->slow_ms);
    for (int k = 0; k < 2; k++) {
        char first[32] = "-";
        if (isfinite(sd[k]->first_sample_ms))
            snprintf(first, sizeof(first), "%.3f", sd[k]->first_sample_ms);
        if (!sd[k]->requests) {
            fprintf(f, "  %-22s %9d %9s %11s %13s %15s\n", lab[k], 0, "-", "-", "-", "-");
            continue;
        }
        fprintf(f, "  %-22s %9llu %9llu %11.3f %13.3f %15s\n", lab[k],
                (unsigned long long)sd[k]->requests, (unsigned long long)sd[k]->samples,
                sd[k]->lat_mean_ms, sd[k]->oncpu_ms, first);
    }
    if (!r->have) {
        fprintf(f, "  %s\n", r->why ? r->why : "no comparison");
        return ferror(f) ? -EIO : 0;
    }
    double dl = r->slow.lat_mean_ms - r->fast.lat_mean_ms;
    double dc = r->slow.oncpu_ms - r->fast.oncpu_ms;
    fprintf(f,
            "  slow requests took %.3f ms more (mean); server on-CPU time in their windows "
            "%+.3f ms (work), the rest %+.3f ms (waiting: queue, off-CPU, network)\n",
            dl, dc, dl - dc);
    fprintf(f, "  %-48s %8s %8s %9s  %-20s %s\n", "function (share of on-CPU samples, total)",
            "fast %", "slow %", "change", "interval (points)", "verdict");
    char esc[256];
    for (size_t i = 0; i < r->cmp.ncpu && i < top; i++) {
        const struct diff_cpu_func *c = &r->cmp.cpu[i];
        const struct dstat_ci *ci = &c->ci_total;
        char iv[64] = "-";
        if (ci->have) snprintf(iv, sizeof(iv), "[%+.1f, %+.1f]", 100 * ci->lo, 100 * ci->hi);
        fprintf(f, "  %-48s %8.1f %8.1f %+9.1f  %-20s %s\n",
                lat_esc_cell(esc, sizeof(esc), c->name), diff_cpu_share(&r->cmp, c->total, 0),
                diff_cpu_share(&r->cmp, c->total, 1),
                diff_cpu_share(&r->cmp, c->total, 1) - diff_cpu_share(&r->cmp, c->total, 0), iv,
                diff_cpu_verdict(ci));
    }
    return ferror(f) ? -EIO : 0;
}

static void json_num(struct jsonw *w, const char *k, double v, int dec)
{
    jsonw_key(w, k);
    jsonw_fixed(w, v, dec);
}

static void json_side(struct jsonw *w, const char *k, const struct srvprof_side *sd)
{
    jsonw_key(w, k);
    jsonw_obj_begin(w);
    jsonw_key(w, "requests");
    jsonw_u64(w, sd->requests);
    jsonw_key(w, "samples");
    jsonw_u64(w, sd->samples);
    json_num(w, "latency_mean_ms", sd->requests ? sd->lat_mean_ms : NAN, 3);
    json_num(w, "server_cpu_ms", sd->requests ? sd->oncpu_ms : NAN, 3);
    jsonw_key(w, "requests_with_samples");
    jsonw_u64(w, sd->with_samples);
    json_num(w, "first_sample_ms", sd->first_sample_ms, 3);
    jsonw_obj_end(w);
}

void srvprof_write_json(struct jsonw *w, const struct srvprof_result *r, size_t top)
{
    jsonw_key(w, "server_profile");
    jsonw_obj_begin(w);
    jsonw_key(w, "pid");
    jsonw_i64(w, r->pid);
    jsonw_key(w, "clock");
    jsonw_str(w, "CLOCK_MONOTONIC");
    jsonw_key(w, "t0_monotonic_ns");
    jsonw_i64(w, r->t0_ns);
    jsonw_key(w, "freq_hz");
    jsonw_u64(w, r->freq_hz);
    jsonw_key(w, "trace");
    if (r->trace_path)
        jsonw_str(w, r->trace_path);
    else
        jsonw_null(w);
    jsonw_key(w, "requests");
    jsonw_u64(w, r->requests);
    jsonw_key(w, "samples");
    jsonw_u64(w, r->samples_total);
    jsonw_key(w, "samples_with_python_frames");
    jsonw_u64(w, r->samples_python);
    jsonw_key(w, "samples_unread");
    jsonw_u64(w, r->samples_unread);
    jsonw_key(w, "samples_in_windows");
    jsonw_u64(w, r->samples_in_windows);
    jsonw_key(w, "samples_ambiguous");
    jsonw_u64(w, r->samples_ambiguous);
    json_num(w, "ambiguous_pct", pct(r->samples_ambiguous, r->samples_in_windows), 2);
    jsonw_key(w, "threads");
    jsonw_u64(w, r->threads);
    jsonw_key(w, "slow_rule");
    jsonw_str(w, r->slow_rule);
    json_num(w, "slow_threshold_ms", r->requests >= 4 ? r->slow_ms : NAN, 6);
    json_num(w, "fast_threshold_ms", r->requests >= 4 ? r->p50_ms : NAN, 6);
    json_side(w, "fast", &r->fast);
    json_side(w, "slow", &r->slow);
    jsonw_key(w, "comparison");
    jsonw_str(w, r->have ? "ok" : r->why ? r->why : "none");
    json_num(w, "confidence", r->conf, 3);
    jsonw_key(w, "functions");
    jsonw_arr_begin(w);
    for (size_t i = 0; r->have && i < r->cmp.ncpu && i < top; i++) {
        const struct diff_cpu_func *c = &r->cmp.cpu[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, c->name);
        jsonw_key(w, "samples_fast");
        jsonw_u64(w, c->total[0]);
        jsonw_key(w, "samples_slow");
        jsonw_u64(w, c->total[1]);
        json_num(w, "total_pct_fast", diff_cpu_share(&r->cmp, c->total, 0), 3);
        json_num(w, "total_pct_slow", diff_cpu_share(&r->cmp, c->total, 1), 3);
        json_num(w, "self_pct_fast", diff_cpu_share(&r->cmp, c->self, 0), 3);
        json_num(w, "self_pct_slow", diff_cpu_share(&r->cmp, c->self, 1), 3);
        json_num(w, "mean_depth_slow",
                 c->total[1] ? (double)c->depth_sum[1] / (double)c->total[1] : NAN, 2);
        const struct dstat_ci *ci = &c->ci_total;
        json_num(w, "change_pct_points", ci->have ? 100 * ci->est : NAN, 3);
        json_num(w, "ci_lo_pct_points", ci->have ? 100 * ci->lo : NAN, 3);
        json_num(w, "ci_hi_pct_points", ci->have ? 100 * ci->hi : NAN, 3);
        jsonw_key(w, "verdict");
        jsonw_str(w, diff_cpu_verdict(ci));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}
