/*
 * loop.c - the point loop of `latscope bench` (loop.h): each point's load, the per-window
 * hook (the live view, --hdr-log intervals, --stable, --confidence early stopping, the MPI
 * window reduction), the SLO verdict and the --find-max search.
 */
#define PR_FMT "bench"
#include "bench/loop.h"

#include "bench/live.h"
#include "bench/mpi.h"
#include "bench/slices.h"
#include "bench/telemetry.h"
#include "core/err.h"
#include "core/log.h"
#include "core/pctl.h"
#include "stats/stable.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* State shared with the per-window hook: the live view and the interval log. */
struct window_ctx {
    /* the live view (bench_plan.live): the point's numbers so far; live_ttft (live_llm: the
     * target's live hook) the window's TTFT */
    void (*live)(void *ud, const struct bench_live *s);
    void *live_ud;
    struct bench_live lv;
    bool live_llm;
    struct lat_hist *live_ttft;
    lat_ns t0;
    uint64_t ok, errors;
    struct hlog_writer *hlog;
    lat_ns hlog_base;
    int hlog_err;
    /* --stable */
    struct lat_stable *stable;
    /* --slo with --confidence: cumulative histograms, early stop when every term passes. */
    const struct slo *slo;
    double confidence;
    struct lat_hist *cum;                /* [CUM__N]: one per metric a term can name */
    const struct bench_target_ops *tops; /* its window() feeds cum[CUM_TTFT], cum[CUM_TPOT] */
    void *tst;
    /* --mpi: the stop rules decide on the window reduced over all ranks (bench/mpi.h) */
    const struct bench_shard *mpi;
    struct lat_hist *mpi_h; /* [2]: the reduced window's latency and send lag */
};

/* The cumulative histograms of a point under --confidence, one per SLO metric: the engine's
 * request latency and send lag, and (--target openai) each measured request's TTFT and TPOT.
 * Every one is fed once per window and judged by the same early-stopping test. */
enum { CUM_LAT = 0, CUM_LAG, CUM_TTFT, CUM_TPOT, CUM__N };

static int slo_cum_index(const struct slo_term *t)
{
    if (!strcmp(t->metric, "send_lag")) return CUM_LAG;
    if (!strcmp(t->metric, "ttft")) return CUM_TTFT;
    if (!strcmp(t->metric, "tpot")) return CUM_TPOT;
    return CUM_LAT;
}

static const struct lat_hist *slo_hist(const struct slo_term *t, const struct lat_hist *lat,
                                       const struct lat_hist *lag)
{
    if (strcmp(t->metric, "send_lag") == 0) return lag;
    return lat;
}

/* An SLO metric measured by the LLM target (not by the engine's request-latency histograms). */
bool bench_slo_llm_metric(const char *m)
{
    return !strcmp(m, "ttft") || !strcmp(m, "tpot") || !strcmp(m, "itl") || !strcmp(m, "chunk_gap");
}

/* The value of term t on a point's LLM summary (ns); false when the summary lacks it. */
static bool slo_llm_observed(const struct slo_term *t, const struct llm_summary *s, double *obs)
{
    const struct llm_stat *st = !strcmp(t->metric, "ttft")   ? &s->ttft
                                : !strcmp(t->metric, "tpot") ? &s->tpot
                                : !strcmp(t->metric, "itl")  ? &s->itl
                                                             : &s->chunk_gap;
    if (!st->n) return false;
    if (t->stat == SLO_MEAN)
        *obs = st->mean;
    else if (t->stat == SLO_MAX)
        *obs = st->max;
    else if (t->pct == 50)
        *obs = st->p50;
    else if (t->pct == 90)
        *obs = st->p90;
    else if (t->pct == 95)
        *obs = st->p95;
    else if (t->pct == 99)
        *obs = st->p99;
    else if (t->pct == 99.9)
        *obs = st->p999;
    else
        return false;
    return true;
}

static bool on_window(void *ud, const struct bench_window *w)
{
    struct window_ctx *c = ud;
    struct bench_window mw;
    if (c->mpi) {
        int mrc = bench_mpi_window(c->mpi, w, &mw, &c->mpi_h[0], &c->mpi_h[1]);
        if (mrc) return false; /* the ranks' windows of this point are over */
        w = &mw;
    }
    c->ok += w->ok;
    c->errors += w->errors;
    if (c->live) {
        bench_live_add_window(&c->lv, w);
        c->lv.elapsed = w->t_end - c->t0;
        if (c->live_llm) {
            double len = (double)(w->t_end - w->t_start) / 1e9;
            hist_reset(c->live_ttft);
            uint64_t tok = c->tops->live(c->tst, c->live_ttft);
            bool have = hist_count(c->live_ttft) > 0;
            c->lv.ttft_p50 = have ? hist_value_at_percentile(c->live_ttft, 50) : -1;
            c->lv.ttft_p99 = have ? hist_value_at_percentile(c->live_ttft, 99) : -1;
            c->lv.tokens_s = len > 0 ? (double)tok / len : 0;
        }
        c->live(c->live_ud, &c->lv);
    }
    if (c->hlog && !c->hlog_err) {
        double s = (double)(w->t_start - c->hlog_base) / 1e9;
        double l = (double)(w->t_end - w->t_start) / 1e9;
        int rc = hlog_writer_interval(c->hlog, "lat.sched", s, l, w->lat);
        if (!rc) rc = hlog_writer_interval(c->hlog, "lat.send", s, l, w->lat_actual);
        if (!rc) rc = hlog_writer_interval(c->hlog, "send_lag", s, l, w->send_lag);
        c->hlog_err = rc;
    }
    bool stop = false;
    if (c->stable && w->ok) {
        /* Windows before the first measured request (warmup) are not fed. */
        double len = (double)(w->t_end - w->t_start) / 1e9;
        double mean = hist_mean(w->lat);
        if (len > 0 && mean > 0 &&
            stable_add(c->stable, (double)w->ok / len, mean) != STABLE_NOT_YET)
            stop = true;
    }
    if (c->slo && c->confidence > 0) {
        hist_add(&c->cum[CUM_LAT], w->lat);
        hist_add(&c->cum[CUM_LAG], w->send_lag);
        if (c->tops->window) c->tops->window(c->tst, &c->cum[CUM_TTFT], &c->cum[CUM_TPOT]);
        bool all = c->slo->n > 0;
        for (int i = 0; i < c->slo->n && all; i++) {
            const struct slo_term *t = &c->slo->t[i];
            double obs;
            uint64_t more = 0;
            if (t->stat == SLO_ERRORS) {
                all = false; /* an error budget is judged at the end */
                break;
            }
            const struct lat_hist *h = &c->cum[slo_cum_index(t)];
            if (t->stat == SLO_PCTL && hist_count(h) < lat_pctl_min_n(t->pct))
                all = false; /* a pNN from fewer samples is their maximum (core/pctl.h) */
            else if (slo_term_eval_hist(t, h, c->confidence, &obs, &more) != SLO_PASS)
                all = false;
        }
        if (all) stop = true;
    }
    return stop;
}

/* Judges the SLO terms on a finished point; marks the point INVALID when not met (unless
 * find-max, where a miss is the expected answer of a probe). */
static void judge_slo(const struct bench_plan *c, struct bench_point *p, bool mark_invalid,
                      const struct lat_hist *cum)
{
    struct bench_slo_result *r = &p->slo;
    memset(r, 0, sizeof(*r));
    if (!c->slo_text) return;
    r->have = true;
    r->pass = true;
    r->confidence = c->confidence;
    uint64_t total = p->res.ok + p->res.errors_total;
    for (int i = 0; i < c->slo->n && i < 8; i++) {
        const struct slo_term *t = &c->slo->t[i];
        struct bench_slo_term_result *o = &r->t[r->n++];
        slo_term_format(t, o->text, sizeof(o->text));
        if (t->stat == SLO_ERRORS) {
            o->is_errors = true;
            o->observed = total ? (double)p->res.errors_total / (double)total : 1.0;
            /* The LLM target also fails requests the HTTP layer saw complete (error events,
             * cut or malformed streams): count those too. */
            if (p->llm && p->llm->requests)
                o->observed = (double)p->llm->errors / (double)p->llm->requests;
            o->verdict = slo_term_holds(t, o->observed) ? SLO_PASS : SLO_FAIL;
        } else if (c->confidence > 0 && cum && slo_cum_index(t) >= CUM_TTFT) {
            /* --confidence on ttft/tpot: LoadGen's early stopping on every measured request's
             * own value (the cumulative histogram the windows fed), as for e2e. */
            o->verdict = (int)slo_term_eval_hist(t, &cum[slo_cum_index(t)], c->confidence,
                                                 &o->observed, &o->more_needed);
        } else if (bench_slo_llm_metric(t->metric)) {
            /* Exact order statistics of every request of the point (llm/metrics.h); no
             * sample (every request failed) is a miss. */
            o->verdict = p->llm && slo_llm_observed(t, p->llm, &o->observed) &&
                                 slo_term_holds(t, o->observed)
                             ? SLO_PASS
                             : SLO_FAIL;
        } else {
            o->verdict = (int)slo_term_eval_hist(t, slo_hist(t, &p->res.lat, &p->res.send_lag),
                                                 c->confidence, &o->observed, &o->more_needed);
        }
        if (o->verdict != SLO_PASS) r->pass = false;
    }
    if (!r->pass && mark_invalid && p->res.valid) {
        p->res.valid = false;
        snprintf(p->res.invalid_reason, sizeof(p->res.invalid_reason), "SLO %s not met%s",
                 c->slo_text, c->confidence > 0 ? " at the requested confidence" : "");
    }
}

/* ---- --find-max probes (docs/latscope-bench.md "--find-max") ----
 *
 * Each probe runs until every percentile term has lat_pctl_min_n(pct) samples (p99: 100). A
 * probe that misses the SLO, or passes without the claim established at the search's
 * confidence (LoadGen early stopping, stats/earlystop.h), is near the boundary: it is measured
 * again, and a third time when the two disagree (the majority is fed to the search, the rate
 * is "noisy"). The answer is the range between the highest rate met in every measurement and
 * the lowest above it missed in every one; wider than FIND_MAX_SPREAD, or with a rate below it
 * missed every time, the noise made the search inconclusive and it says so. */
#define FIND_MAX_MEASURES 3 /* measurements of a probe near the boundary, at most */
/* a send-lagged probe is a pass only when it achieved this share of its rate (lag_pass) */
#define FIND_MAX_LAG_PASS_SENT 0.97
#define FIND_MAX_SPREAD        1.5  /* a range wider than this (high / low) is inconclusive */
#define FIND_MAX_CONFIDENCE    0.95 /* the near-boundary test without --confidence */
#define FIND_MAX_SIZE_SLACK    1.25 /* a probe is sized for this many times the samples needed */

/* The samples a term needs (its pNN from fewer is their maximum); 1 for mean/max/errors. */
static uint64_t fm_term_need(const struct slo_term *t)
{
    return t->stat == SLO_PCTL ? lat_pctl_min_n(t->pct) : 1;
}

static uint64_t fm_need(const struct slo *slo)
{
    uint64_t need = 1;
    for (int i = 0; slo && i < slo->n; i++)
        if (slo->t[i].stat != SLO_ERRORS && fm_term_need(&slo->t[i]) > need)
            need = fm_term_need(&slo->t[i]);
    return need;
}

/* The samples point p holds for term t (the engine's histograms, or the LLM summary). */
static uint64_t fm_term_samples(const struct slo_term *t, const struct bench_point *p)
{
    if (bench_slo_llm_metric(t->metric)) {
        if (!p->llm) return 0;
        const struct llm_summary *s = p->llm;
        return !strcmp(t->metric, "ttft")   ? s->ttft.n
               : !strcmp(t->metric, "tpot") ? s->tpot.n
               : !strcmp(t->metric, "itl")  ? s->itl.n
                                            : s->chunk_gap.n;
    }
    return hist_count(slo_hist(t, &p->res.lat, &p->res.send_lag));
}

/* The first term of p with fewer samples than it needs, or -1; its count in *have. */
static int fm_short_term(const struct slo *slo, const struct bench_point *p, uint64_t *have)
{
    for (int i = 0; i < slo->n; i++) {
        const struct slo_term *t = &slo->t[i];
        if (t->stat == SLO_ERRORS) continue;
        *have = fm_term_samples(t, p);
        if (*have < fm_term_need(t)) return i;
    }
    return -1;
}

/* True when every upper-bound percentile term the engine measured holds at confidence c
 * (LoadGen's claim, as --confidence); mean, max and LLM terms have no such test (false: a
 * pass on them is near the boundary only through its repeat rule, see below). */
static bool fm_established(const struct slo *slo, const struct bench_point *p, double c)
{
    bool any = false;
    for (int i = 0; i < slo->n; i++) {
        const struct slo_term *t = &slo->t[i];
        if (t->stat == SLO_ERRORS) continue;
        if (t->stat != SLO_PCTL || bench_slo_llm_metric(t->metric) ||
            !(t->op == SLO_LE || t->op == SLO_LT))
            return false;
        double obs;
        uint64_t more;
        if (slo_term_eval_hist(t, slo_hist(t, &p->res.lat, &p->res.send_lag), c, &obs, &more) !=
            SLO_PASS)
            return false;
        any = true;
    }
    return any;
}

/* The measurements of the value being probed. */
struct fm_probe {
    double value;
    unsigned measures, passes, short_tries;
    double scale;  /* the probe's duration, times the plan's (too few samples last time) */
    int last_pass; /* index of the last passing measurement, -1 */
};

/* One value's final verdict, for the range. */
struct fm_final {
    double value;
    bool all_pass, all_fail;
};

static void fm_range(const struct bench_plan *pl, struct bench_run *run, const struct fm_final *f,
                     size_t nf)
{
    double lo = 0, hi = 0, fail_below = 0;
    bool any_pass = false;
    for (size_t k = 0; k < nf; k++) {
        if (!f[k].all_fail) any_pass = true;
        if (f[k].all_pass && f[k].value > lo) lo = f[k].value;
    }
    for (size_t k = 0; k < nf; k++) {
        if (!f[k].all_fail) continue;
        if (f[k].value > lo && (hi == 0 || f[k].value < hi)) hi = f[k].value;
        if (f[k].value < lo && f[k].value > fail_below) fail_below = f[k].value;
    }
    run->range_low = lo;
    run->range_high = hi;
    const char *unit = pl->find_conc ? "" : " req/s";
    char *why = run->inconclusive_reason;
    size_t wl = sizeof(run->inconclusive_reason);
    if (run->inconclusive) return; /* said already (too few samples) */
    if (run->client_limited) {
        run->inconclusive = true;
        snprintf(why, wl, "the client could not drive %g%s (%.160s)", run->client_limit, unit,
                 run->client_limit_reason);
    } else if (any_pass && lo == 0) {
        run->inconclusive = true;
        snprintf(why, wl, "no probed %s met the SLO in every measurement (%zu noisy)",
                 pl->find_conc ? "concurrency" : "rate", run->nnoisy);
    } else if (fail_below > 0) {
        run->inconclusive = true;
        snprintf(why, wl, "%g%s missed the SLO in every measurement but %g%s above it met it",
                 fail_below, unit, lo, unit);
    } else if (lo > 0 && hi > 0 && hi > FIND_MAX_SPREAD * lo) {
        run->inconclusive = true;
        snprintf(why, wl,
                 "the SLO was met and missed between %g%s and %g%s (wider than %gx: %zu noisy "
                 "probe%s)",
                 lo, unit, hi, unit, FIND_MAX_SPREAD, run->nnoisy, run->nnoisy == 1 ? "" : "s");
    } else if (lo > 0 && hi == 0 && pl->search &&
               (!pl->search->end_reason ||
                strcmp(pl->search->end_reason, "the maximum rate meets the SLO") != 0)) {
        run->inconclusive = true;
        snprintf(why, wl, "no probe above %g%s missed the SLO in every measurement", lo, unit);
    }
}

int bench_loop_run(const struct bench_plan *pl, struct bench_target *t,
                   const struct bench_target_ops *tops, void *tst, const struct bench_shard *shard,
                   volatile sig_atomic_t *stop, struct bench_run *run)
{
    int status = BENCH_LOOP_OK, rc;
    char swhy[512];
    run->points = calloc(pl->nvalues ? pl->nvalues : 1, sizeof(*run->points));
    if (!run->points) return -ENOMEM;
    run->npoints = pl->nvalues;
    lat_ns hlog_base = clock_now_ns();
    struct lat_hist cum[CUM__N];
    memset(cum, 0, sizeof(cum));
    bool cum_fail = false;
    for (int k = 0; pl->confidence > 0 && k < CUM__N; k++)
        if (hist_init_default(&cum[k]) < 0) cum_fail = true;
    if (cum_fail) {
        for (int k = 0; k < CUM__N; k++)
            hist_fini(&cum[k]);
        return -ENOMEM;
    }

    /* the live view's window TTFT (a target with a live hook; not under --mpi, where the
     * target's numbers would be this rank's only) */
    bool live_llm = pl->live && tops->live && !shard->mpi;
    struct lat_hist live_ttft = {0};
    if (live_llm && hist_init_default(&live_ttft) < 0) live_llm = false;

    struct lat_hist mpi_h[2];
    memset(mpi_h, 0, sizeof(mpi_h));
    if (shard->mpi && (hist_init_default(&mpi_h[0]) < 0 || hist_init_default(&mpi_h[1]) < 0)) {
        for (int k = 0; k < CUM__N; k++)
            hist_fini(&cum[k]);
        hist_fini(&mpi_h[0]);
        hist_fini(&mpi_h[1]);
        return -ENOMEM;
    }
    unsigned client_tries = 0; /* --find-max: client-INVALID measurements of this probe */
    struct fm_probe fp = {.value = -1, .scale = 1, .last_pass = -1};
    struct fm_final finals[SEARCH_MAX_STEPS];
    size_t nfinal = 0;
    uint64_t fm_need_n = pl->find_max ? fm_need(pl->slo) : 0;
    if (pl->find_max) {
        run->min_samples = fm_need_n;
        run->fm_confidence = pl->confidence > 0 ? pl->confidence : FIND_MAX_CONFIDENCE;
    }
    bool after_err_said = false; /* a --records-detail/--hdr-log write error was reported */
    for (size_t i = 0; i < pl->nvalues && !*stop; i++) {
        struct bench_point *p = &run->points[i];
        struct bench_load *l = &p->load;
        double value = pl->find_max ? search_next(pl->search) : pl->values[i];
        if (pl->find_max && value <= 0) break;
        if (pl->find_max && value != fp.value)
            fp = (struct fm_probe){.value = value, .scale = 1, .last_pass = -1};
        if (pl->open_loop) {
            l->rate = value;
            l->arrival = pl->arrival;
            l->gamma_shape = pl->gamma_shape;
        } else {
            l->concurrency = (unsigned)value;
        }
        l->seed = pl->seed;
        l->max_inflight = pl->max_inflight;
        l->connections = pl->connections;
        l->duration_ns = pl->duration_ns;
        l->requests = pl->requests;
        l->warmup_ns = pl->warmup_ns;
        l->warmup_requests = pl->warmup_requests;
        if (pl->offsets) {
            l->offsets = pl->offsets;
            l->noffsets = pl->noffsets;
        }
        if (pl->find_max) {
            /* a probe long enough for the samples its percentiles need (open loop: at the
             * rate; closed loop: measured after, and the probe re-run longer if short) */
            if (l->requests && l->requests < fm_need_n) l->requests = fm_need_n;
            if (!l->requests && pl->open_loop) {
                double need_s = FIND_MAX_SIZE_SLACK * (double)fm_need_n / value;
                if (need_s * 1e9 > (double)l->duration_ns) l->duration_ns = (lat_ns)(need_s * 1e9);
            }
            if (fp.scale > 1) {
                if (l->requests)
                    l->requests = (uint64_t)ceil((double)l->requests * fp.scale);
                else
                    l->duration_ns = (lat_ns)((double)l->duration_ns * fp.scale);
            }
        }
        bench_load_finish(l, pl->eng);
        if (shard_prepare_point(shard, i, l, pl->eng, stop, swhy, sizeof(swhy)) < 0) {
            pr_err("%s\n", swhy);
            status = BENCH_LOOP_USAGE;
            break;
        }
        struct bench_point_ctx pc = {i, pl->hlog, hlog_base};
        if (tops->before_point) tops->before_point(tst, &pc, t);
        struct lat_stable stable;
        stable_init_default(&stable);
        if (pl->confidence > 0) {
            for (int k = 0; k < CUM__N; k++)
                hist_reset(&cum[k]);
            if (tops->window) { /* nothing of the previous point may leak into this one */
                tops->window(tst, &cum[CUM_TTFT], &cum[CUM_TPOT]);
                hist_reset(&cum[CUM_TTFT]);
                hist_reset(&cum[CUM_TPOT]);
            }
        }
        if (live_llm) /* nothing of the previous point */
            tops->live(tst, &live_ttft);
        struct window_ctx wc = {.live = pl->live,
                                .live_ud = pl->live_ud,
                                .lv = {.point = i + 1,
                                       .npoints = pl->find_max ? 0 : pl->nvalues,
                                       .find_max = pl->find_max,
                                       .value = value,
                                       .open_loop = pl->open_loop,
                                       .target_ns = l->requests ? 0 : l->warmup_ns + l->duration_ns,
                                       .target_requests = l->requests,
                                       .p50 = -1,
                                       .p99 = -1,
                                       .llm = live_llm,
                                       .ttft_p50 = -1,
                                       .ttft_p99 = -1},
                                .live_llm = live_llm,
                                .live_ttft = &live_ttft,
                                .t0 = clock_now_ns(),
                                .hlog = pl->hlog,
                                .hlog_base = hlog_base,
                                .stable = pl->stable ? &stable : NULL,
                                .slo = pl->slo,
                                .confidence = pl->confidence,
                                .cum = cum,
                                .tops = tops,
                                .tst = tst,
                                .mpi = shard->mpi ? shard : NULL,
                                .mpi_h = mpi_h};
        struct bench_hooks hooks = {.window = on_window, .ud = &wc, .always_last = shard->mpi};
        if (pl->find_max && pl->say_probes) {
            if (pl->find_conc)
                pr_info("find-max: probing concurrency %u\n", (unsigned)value);
            else
                pr_info("find-max: probing %.1f req/s\n", value);
        }
        if (pl->gtel) gpu_telem_point_begin(pl->gtel);
        rc = bench_run_point(t, l, pl->eng, &hooks, stop, &p->res);
        if (pl->gtel) p->gpu = gpu_telem_point_end(pl->gtel);
        if (wc.live) wc.live(wc.live_ud, NULL); /* the point ended: erase the line */
        if (rc < 0) {
            pr_err("load point %zu could not run: %s\n", i + 1, lat_strerror(rc));
            bench_result_fini(&p->res);
            status = BENCH_LOOP_FAILED;
            break;
        }
        p->ran = true;
        /* before after_point: openai's reads the point's LLM requests, then resets them */
        /* (--mpi: after the records and telemetry of every rank are gathered, below) */
        if (!shard->mpi) p->slices = bench_slices_point(pl->slice_ns, &p->load, &p->res, p->gpu);
        if (p->slices && tops->slices && tops->slices(tst, p->slices) < 0) {
            bench_slices_free(p->slices); /* out of memory: no slices rather than half ones */
            p->slices = NULL;
        }
        if (tops->after_point) {
            char awhy[128] = "";
            int arc = tops->after_point(tst, t, p, awhy, sizeof(awhy));
            if (arc < 0) {
                if (status != BENCH_LOOP_FAILED || !after_err_said)
                    pr_err("%s: %s\n", awhy[0] ? awhy : tops->name, lat_strerror(arc));
                after_err_said = true;
                status = BENCH_LOOP_FAILED;
            }
        }
        /* --mpi --records: every rank's records to rank 0 (before the reduction rebases t0) */
        /* (and with --slice: rank 0 cuts the job's slices from them) */
        bool gather = pl->records_writer || (pl->slice_ns && shard->index == 0);
        if (shard->mpi && (rc = bench_mpi_gather_records(shard, &p->res, gather)) < 0) {
            pr_err("--mpi: gathering the records of point %zu: %s\n", i + 1, lat_strerror(rc));
            status = BENCH_LOOP_FAILED;
            break;
        }
        /* --mpi: every rank's GPU telemetry and time slices on rank 0, as one process's */
        if (shard->mpi && pl->gtel && pl->gtel->mode != GPU_TELEM_OFF &&
            (rc = bench_mpi_gather_gpu(shard, &p->res, &p->gpu)) < 0) {
            pr_err("--mpi: gathering the GPU telemetry of point %zu: %s\n", i + 1,
                   lat_strerror(rc));
            status = BENCH_LOOP_FAILED;
            break;
        }
        if (shard->mpi && shard->index == 0)
            p->slices = bench_slices_point(pl->slice_ns, &p->load, &p->res, p->gpu);
        lat_ns ws_mono = p->res.have_window ? p->res.window_start_ns : p->res.t_first_sched;
        if (shard->mpi && (rc = bench_mpi_point_reduce(shard, run, p)) < 0) {
            pr_err("--mpi: reducing point %zu: %s\n", i + 1, lat_strerror(rc));
            status = BENCH_LOOP_FAILED;
            break;
        }
        if (shard->mpi && p->slices) /* the counts are the job's now */
            p->slices->complete = p->slices->records_ok == p->res.ok &&
                                  p->slices->records_errors == p->res.errors_total;
        if (shard->mpi && p->gpu && p->res.have_window) {
            /* the reduction put the window on the job's time axis: the series follows it */
            lat_ns shift = p->res.window_start_ns - ws_mono;
            for (size_t k = 0; k < p->gpu->n; k++)
                p->gpu->s[k].t += shift;
            p->gpu->t_begin += shift;
            p->gpu->t_end += shift;
        }
        if (pl->stable) {
            enum stable_verdict v = stable.verdict;
            p->stability = stable_verdict_name(v); /* docs/latscope-bench.md, t776 */
            if (v == STABLE_GAVE_UP || v == STABLE_NOT_YET)
                pr_warn("point %zu: throughput/latency did not stabilize (%s)\n", i + 1,
                        p->stability);
            else if (v == STABLE_THROUGHPUT_ONLY)
                pr_warn("point %zu: latency is not stabilizing\n", i + 1);
        }
        /* a missed SLO makes the point INVALID in every mode (a find-max probe too: its miss
         * is a server verdict, invalid_client stays false, and the search takes it as one) */
        bool measured = p->res.valid; /* not INVALID before the SLO (errors, client, Ctrl-C) */
        judge_slo(pl, p, true, pl->confidence > 0 ? cum : NULL);
        /* find-max: a probe INVALID only for the client's send lag that met the SLO anyway
         * (its latency runs from the intended sends, lag included) and sent its schedule is a
         * pass: the lag can only have made it look worse. A miss stays no verdict. */
        p->res.lag_pass = pl->find_max && !measured && p->res.invalid_send_lag &&
                          !p->res.interrupted && p->slo.have && p->slo.pass &&
                          p->res.achieved_rps >= FIND_MAX_LAG_PASS_SENT * p->load.rate;
        if (p->res.lag_pass) {
            measured = true;
            pr_warn("find-max: rate %g met the SLO although the client sent late (%s); the lag "
                    "is inside the latency, taken as a pass\n",
                    value, p->res.invalid_reason);
        }
        uint64_t have = 0;
        int short_term = pl->find_max && measured ? fm_short_term(pl->slo, p, &have) : -1;
        if (p->res.interrupted) run->interrupted = true;
        if (pl->find_max && p->res.interrupted) {
            /* An interrupted probe is no verdict: the search ends without it. */
        } else if (pl->find_max && !p->res.valid && p->res.invalid_client && !p->res.lag_pass) {
            /* The client could not drive this load (send lag, a saturated worker, no fds):
             * inconclusive about the server, so measure it again; after FIND_MAX_CLIENT_TRIES
             * stop and say so rather than report it as the server's limit. */
            if (++client_tries < FIND_MAX_CLIENT_TRIES) {
                pr_warn("find-max: %s %g inconclusive (%s); measuring it again\n",
                        pl->find_conc ? "concurrency" : "rate", value, p->res.invalid_reason);
            } else {
                run->client_limited = true;
                run->client_limit = value;
                snprintf(run->client_limit_reason, sizeof(run->client_limit_reason), "%s",
                         p->res.invalid_reason);
                status = BENCH_LOOP_FAILED;
                break;
            }
        } else if (pl->find_max && short_term >= 0) {
            /* Too few samples for a percentile: no verdict (its pNN would be the maximum of a
             * few); measure it again, longer, and stop after FIND_MAX_CLIENT_TRIES. */
            const struct slo_term *st = &pl->slo->t[short_term];
            char tt[64];
            slo_term_format(st, tt, sizeof(tt));
            client_tries = 0;
            if (++fp.short_tries < FIND_MAX_CLIENT_TRIES) {
                double grow = have ? 1.25 * (double)fm_term_need(st) / (double)have : 4;
                fp.scale *= grow < 2 ? 2 : grow > 10 ? 10 : grow;
                pr_warn("find-max: %s %g: %llu samples for %s, which needs %llu; measuring it "
                        "again %.3gx longer\n",
                        pl->find_conc ? "concurrency" : "rate", value, (unsigned long long)have, tt,
                        (unsigned long long)fm_term_need(st), fp.scale);
            } else {
                run->inconclusive = true;
                snprintf(run->inconclusive_reason, sizeof(run->inconclusive_reason),
                         "%s %g had %llu samples for %s in %u measurements, which needs %llu",
                         pl->find_conc ? "concurrency" : "rate", value, (unsigned long long)have,
                         tt, fp.short_tries, (unsigned long long)fm_term_need(st));
                status = BENCH_LOOP_FAILED;
                break;
            }
        } else if (pl->find_max) {
            client_tries = 0;
            bool pass = (p->res.valid || p->res.lag_pass) && p->slo.pass;
            fp.measures++;
            if (pass) {
                fp.passes++;
                fp.last_pass = (int)i;
            }
            bool final = false, fpass = false;
            if (fp.measures == 1) {
                /* a miss, or a pass not established at the confidence: near the boundary */
                final = pass && fm_established(pl->slo, p, run->fm_confidence);
                fpass = pass;
            } else if (fp.measures == 2 && fp.passes != 1) {
                final = true;
                fpass = fp.passes == 2;
            } else if (fp.measures >= FIND_MAX_MEASURES) {
                final = true;
                fpass = 2 * fp.passes > fp.measures;
            }
            if (!final) {
                if (pl->say_probes)
                    pr_info("find-max: %s %g %s; measuring it again\n",
                            pl->find_conc ? "concurrency" : "rate", value,
                            fp.measures == 1 ? (pass ? "met the SLO without the claim "
                                                       "established: near the boundary"
                                                     : "missed the SLO")
                                             : "met the SLO once and missed it once");
                continue;
            }
            bool noisy = fp.passes > 0 && fp.passes < fp.measures;
            if (noisy && run->nnoisy < sizeof(run->noisy) / sizeof(run->noisy[0]))
                run->noisy[run->nnoisy++] = value;
            if (noisy)
                pr_warn("find-max: %s %g met the SLO in %u of %u measurements (noisy)\n",
                        pl->find_conc ? "concurrency" : "rate", value, fp.passes, fp.measures);
            if (nfinal < SEARCH_MAX_STEPS)
                finals[nfinal++] = (struct fm_final){value, !noisy && fpass, !noisy && !fpass};
            search_feed(pl->search, value, fpass);
            if (fpass && (run->best_point < 0 || value > run->max_rate)) {
                run->best_point = fp.last_pass;
                run->max_rate = value;
            }
        } else if (!p->res.valid) {
            status = BENCH_LOOP_FAILED;
        }
        /* a failed --hdr-log write stays in the writer: cmd-bench.c reports it once, at the end */
    }
    if (pl->find_max) {
        fm_range(pl, run, finals, nfinal);
        if (run->inconclusive) status = BENCH_LOOP_FAILED;
    }
    if (pl->find_max && run->best_point < 0) status = BENCH_LOOP_FAILED;
    for (int k = 0; pl->confidence > 0 && k < CUM__N; k++)
        hist_fini(&cum[k]);
    hist_fini(&mpi_h[0]);
    hist_fini(&mpi_h[1]);
    hist_fini(&live_ttft);
    if (*stop) {
        run->interrupted = true;
        status = BENCH_LOOP_FAILED;
    }
    return status;
}
