/*
 * sessions.c - the virtual users of `bench --target openai --sessions` (bench/sessions.h).
 *
 * Each closed-loop connection is one user: it takes the next session of the file (one atomic
 * counter for all users, cycling; shard K of N takes sessions K, K + N, ...), sends its turns one
 * after another, each with the history so far, and pauses for the think time between turns (the
 * engine's think hook: the next turn's intended send time is the previous end plus the pause, so
 * TTFT and E2E never include it). A turn that fails abandons its session (the history would lack
 * the reply); the user starts the next one. A stale keep-alive retry (engine.c) ends the first
 * attempt unmeasured and sends the same bytes again: the turn stays pending until an attempt
 * succeeds or the next build.
 */
#include "bench/sessions.h"

#include "core/err.h"
#include "core/units.h"
#include "hist/hlog.h"
#include "stats/rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_sess_parse_history(const char *v, enum llm_sess_history *h)
{
    if (!strcmp(v, "server"))
        *h = LLM_SESS_HISTORY_SERVER;
    else if (!strcmp(v, "dataset"))
        *h = LLM_SESS_HISTORY_DATASET;
    else
        return LAT_E_USAGE;
    return 0;
}

int bench_sess_parse_think(const char *v, lat_ns *mean, lat_ns *sd)
{
    char a[64];
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    if (n == 0 || n >= sizeof(a)) return LAT_E_USAGE;
    memcpy(a, v, n);
    a[n] = '\0';
    *sd = 0;
    if (units_parse_duration(a, LAT_NS_PER_MS, mean) != 0 || *mean < 0) return LAT_E_USAGE;
    if (colon && (units_parse_duration(colon + 1, LAT_NS_PER_MS, sd) != 0 || *sd < 0))
        return LAT_E_USAGE;
    if (*mean > 3600 * LAT_NS_PER_S || *sd > 3600 * LAT_NS_PER_S) return LAT_E_USAGE;
    return 0;
}

int bench_sess_load(struct bench_sess *s, size_t max_bytes, char *why, size_t whylen)
{
    int rc = llm_sessions_load(&s->S, s->path, max_bytes, why, whylen);
    if (rc) return rc;
    if (s->history == LLM_SESS_HISTORY_DATASET && !s->S.any_reply) {
        snprintf(why, whylen,
                 "--history dataset: %s has no assistant replies (ShareGPT \"gpt\" messages); "
                 "use --history server",
                 s->path);
        llm_sessions_fini(&s->S);
        return LAT_E_USAGE;
    }
    return 0;
}

void bench_sess_fini(struct bench_sess *s)
{
    llm_sessions_fini(&s->S);
    for (unsigned i = 0; i < BENCH_SESS_MAX_THREADS; i++)
        if (s->th[i]) {
            llm_sess_stats_fini(s->th[i]);
            free(s->th[i]);
            s->th[i] = NULL;
        }
}

int bench_sess_user_new(struct llm_conn *c)
{
    struct llm_sess_user *u = calloc(1, sizeof(*u));
    if (!u) return -ENOMEM;
    c->user = u;
    c->s.keep_text = true; /* the reply joins the history */
    return 0;
}

void bench_sess_user_free(struct llm_conn *c)
{
    struct llm_sess_user *u = c ? c->user : NULL;
    if (!u) return;
    llm_sess_user_fini(u);
    free(u);
    c->user = NULL;
}

/* The connection's thread's statistics (allocated by that thread on first use), or NULL. */
static struct llm_sess_stats *stats(struct bench_sess *s, const struct llm_conn *c)
{
    unsigned t = c->thread < BENCH_SESS_MAX_THREADS ? c->thread : 0;
    if (!s->th[t]) {
        struct llm_sess_stats *st = malloc(sizeof(*st));
        if (!st) return NULL;
        if (llm_sess_stats_init(st) != 0) {
            llm_sess_stats_fini(st);
            free(st);
            return NULL;
        }
        s->th[t] = st;
    }
    return s->th[t];
}

int bench_sess_build(struct bench_sess *s, struct llm_conn *c, const char **req, size_t *len)
{
    struct llm_sess_user *u = c->user;
    const struct llm_sessions *S = &s->S;
    if (u->active && u->pending && u->failed) { /* the turn failed: abandon the session */
        struct llm_sess_stats *st = stats(s, c);
        if (st) st->failed++;
        u->active = false;
    }
    if (!u->active || u->turn >= S->s[u->sess].n) {
        uint64_t k = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (s->idx_stride > 1) k = s->idx_base + k * s->idx_stride; /* --shard K/N */
        u->sess = (size_t)(k % S->n);
        u->cycle = k;
        u->turn = 0;
        u->active = true;
        int rc = llm_sess_history_start(S, &S->s[u->sess], &u->hist);
        if (rc) return rc;
        struct llm_sess_stats *st = stats(s, c);
        if (st) st->started++;
    }
    const struct llm_session *se = &S->s[u->sess];
    buf_reset(&u->msgs);
    int rc = llm_sess_messages(S, se, u->turn, &u->hist, &u->msgs);
    if (rc) return rc;
    u->pending = true;
    u->failed = false;
    return llm_conn_build_msgs(c, u->msgs.data, u->msgs.len, S->t[se->first + u->turn].max_tokens,
                               req, len);
}

void bench_sess_begin(struct bench_sess *s, struct llm_conn *c, lat_ns t_sched)
{
    struct llm_sess_user *u = c->user;
    (void)s;
    if (u && u->pending && u->turn == 0) u->t_start = t_sched;
}

void bench_sess_end(struct bench_sess *s, struct llm_conn *c, bool measured)
{
    struct llm_sess_user *u = c->user;
    if (!u || !u->pending) return;
    const struct llm_record *r = &c->s.rec;
    const struct llm_sessions *S = &s->S;
    const struct llm_session *se = &S->s[u->sess];
    bool ok = r->err == LLM_OK;
    struct llm_sess_stats *st = stats(s, c);
    if (measured && st) {
        int64_t isl = r->prompt_tokens >= 0 ? r->prompt_tokens : r->prompt_tokens_tok;
        llm_sess_stats_turn(st, u->turn, ok, r->t_first >= 0 ? r->t_first - r->t_sched : -1,
                            r->t_end >= 0 ? r->t_end - r->t_sched : -1, isl);
    }
    if (!ok) {
        u->failed = true; /* a stale keep-alive retry may still succeed */
        return;
    }
    int rc = s->history == LLM_SESS_HISTORY_DATASET
                 ? llm_sess_history_add(S, se, u->turn, NULL, 0, &u->hist)
                 : llm_sess_history_add_buf(S, se, u->turn, c->s.text.data ? c->s.text.data : "",
                                            c->s.text.len, &u->hist, &u->lit, &u->txt);
    if (rc) {
        u->failed = true;
        return;
    }
    u->pending = false;
    u->turn++;
    if (u->turn >= se->n) {
        if (st) {
            st->completed++;
            if (r->t_end >= u->t_start) hist_record(&st->duration, r->t_end - u->t_start);
        }
        u->active = false;
    }
}

lat_ns bench_sess_think(struct bench_sess *s, struct llm_conn *c)
{
    struct llm_sess_user *u = c->user;
    if (!u || !u->active || u->pending || u->turn == 0) return 0;
    const struct llm_session *se = &s->S.s[u->sess];
    if (u->turn >= se->n) return 0;
    const struct llm_sess_turn *t = &s->S.t[se->first + u->turn];
    if (t->delay_ms >= 0) return (lat_ns)t->delay_ms * LAT_NS_PER_MS;
    if (s->think_ns <= 0 && s->think_sd_ns <= 0) return 0;
    if (s->think_sd_ns <= 0) return s->think_ns;
    /* Normal(mean, sd), seeded by (seed, session start, turn): the same run thinks the same */
    uint64_t st =
        s->seed ^ (0x9e3779b97f4a7c15ull * (u->cycle + 1)) ^ (0xd1b54a32d192ed03ull * u->turn);
    double u1 = (double)(rng_splitmix64(&st) >> 11) / 9007199254740992.0;
    double u2 = (double)(rng_splitmix64(&st) >> 11) / 9007199254740992.0;
    if (u1 < 1e-300) u1 = 1e-300;
    double v =
        (double)s->think_ns + (double)s->think_sd_ns * sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2);
    return v > 0 ? (lat_ns)v : 0;
}

/* ---- the point's report ---- */

static void stat_of(struct bench_sess_stat *o, const struct lat_hist *h)
{
    o->have = hist_count(h) > 0;
    if (!o->have) return;
    o->mean = hist_mean(h);
    o->p50 = (double)hist_value_at_percentile(h, 50);
    o->p99 = (double)hist_value_at_percentile(h, 99);
}

static void row_out(const struct llm_sess_row *r, struct bench_sess_row *o)
{
    o->n = r->n;
    o->ok = r->ok;
    if (o->hist) {
        stat_of(&o->ttft, &r->ttft);
        stat_of(&o->e2e, &r->e2e);
    }
    if (o->isl) {
        o->isl_n = r->isl_n;
        o->isl_sum = r->isl_sum;
        o->isl_mean = r->isl_n ? r->isl_sum / (double)r->isl_n : -1;
    }
}

void bench_sess_point_compute(struct bench_sess_point *p)
{
    const struct llm_sess_stats *st = p->st;
    if (!st) return;
    p->nturns = 0;
    for (unsigned k = 0; k < LLM_SESS_SHOW_TURNS; k++) {
        row_out(&st->row[k], &p->turn[k]);
        if (st->row[k].n) p->nturns = k + 1;
    }
    row_out(&st->row[LLM_SESS_SHOW_TURNS], &p->later);
    p->turns_beyond = st->turns_beyond;
    p->started = st->started;
    p->completed = st->completed;
    p->failed = st->failed;
    if (p->dur_hist) stat_of(&p->dur, &st->duration);
}

void bench_sess_point_free(struct bench_sess_point *p)
{
    if (!p) return;
    if (p->st) {
        llm_sess_stats_fini(p->st);
        free(p->st);
    }
    free(p);
}

struct bench_sess_point *bench_sess_point(struct bench_sess *s)
{
    struct llm_sess_stats *all = malloc(sizeof(*all));
    struct bench_sess_point *p = calloc(1, sizeof(*p));
    int rc = all ? llm_sess_stats_init(all) : -ENOMEM;
    for (unsigned i = 0; i < BENCH_SESS_MAX_THREADS && !rc; i++)
        if (s->th[i]) rc = llm_sess_stats_add(all, s->th[i]);
    if (p && !rc) {
        p->history = s->history == LLM_SESS_HISTORY_DATASET ? "dataset" : "server";
        p->in_file = s->S.n;
        p->st = all;
        all = NULL;
        for (unsigned k = 0; k < LLM_SESS_SHOW_TURNS; k++)
            p->turn[k].hist = p->turn[k].isl = true;
        p->later.hist = p->later.isl = true;
        p->dur_hist = true;
        bench_sess_point_compute(p);
        p->think_ns = s->think_ns;
        p->think_sd_ns = s->think_sd_ns;
    } else {
        free(p);
        p = NULL;
    }
    if (all) {
        llm_sess_stats_fini(all);
        free(all);
    }
    for (unsigned i = 0; i < BENCH_SESS_MAX_THREADS; i++)
        if (s->th[i]) llm_sess_stats_reset(s->th[i]);
    return p;
}

static void json_ms(struct jsonw *w, const char *key, double ns, bool have)
{
    jsonw_key(w, key);
    if (have)
        jsonw_fixed(w, ns / 1e6, 3);
    else
        jsonw_null(w);
}

/* NAME_mean_ms, NAME_p50_ms, NAME_p99_ms (null when unknown) */
static void json_stat(struct jsonw *w, const char *name, const struct bench_sess_stat *x)
{
    static const char *const sfx[] = {"_mean_ms", "_p50_ms", "_p99_ms"};
    const double v[] = {x->mean, x->p50, x->p99};
    char key[48];
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof(key), "%s%s", name, sfx[k]);
        json_ms(w, key, v[k], x->have);
    }
}

static void json_row(struct jsonw *w, const struct bench_sess_row *r, const struct llm_sess_row *h)
{
    jsonw_key(w, "requests");
    jsonw_u64(w, r->n);
    jsonw_key(w, "ok");
    jsonw_u64(w, r->ok);
    json_stat(w, "ttft", &r->ttft);
    json_stat(w, "e2e", &r->e2e);
    jsonw_key(w, "isl_mean");
    if (r->isl_mean >= 0)
        jsonw_fixed(w, r->isl_mean, 1);
    else
        jsonw_null(w);
    /* Additive: what `bench merge` adds exactly (absent where unknown). */
    if (r->not_mergeable) {
        jsonw_key(w, "percentiles");
        jsonw_str(w, "not mergeable");
    }
    if (r->isl) {
        jsonw_key(w, "isl_n");
        jsonw_u64(w, r->isl_n);
        jsonw_key(w, "isl_sum");
        jsonw_u64(w, r->isl_sum > 0 && r->isl_sum < 9.2e18 ? (uint64_t)r->isl_sum : 0);
    }
    if (h && r->hist) {
        jsonw_key(w, "histograms");
        jsonw_obj_begin(w);
        hlog_json_blob(w, "ttft", &h->ttft);
        hlog_json_blob(w, "e2e", &h->e2e);
        jsonw_obj_end(w);
        jsonw_key(w, "histogram_extremes_ns");
        jsonw_obj_begin(w);
        hlog_json_extremes(w, "ttft", &h->ttft);
        hlog_json_extremes(w, "e2e", &h->e2e);
        jsonw_obj_end(w);
    }
}

void bench_sess_write_json(struct jsonw *w, const struct bench_sess_point *p)
{
    if (!p) return;
    const struct llm_sess_stats *st = p->st;
    jsonw_key(w, "sessions");
    jsonw_obj_begin(w);
    jsonw_key(w, "history");
    jsonw_str(w, p->history);
    jsonw_key(w, "in_file");
    jsonw_u64(w, p->in_file);
    jsonw_key(w, "think_time_ms");
    if (p->think_ns >= 0)
        jsonw_fixed(w, (double)p->think_ns / 1e6, 3);
    else
        jsonw_null(w);
    jsonw_key(w, "think_time_sd_ms");
    jsonw_fixed(w, p->think_sd_ns > 0 ? (double)p->think_sd_ns / 1e6 : 0, 3);
    jsonw_key(w, "started");
    jsonw_u64(w, p->started);
    jsonw_key(w, "completed");
    jsonw_u64(w, p->completed);
    jsonw_key(w, "failed");
    jsonw_u64(w, p->failed);
    json_stat(w, "duration", &p->dur);
    if (p->dur_not_mergeable) {
        jsonw_key(w, "duration_percentiles");
        jsonw_str(w, "not mergeable");
    }
    jsonw_key(w, "turns");
    jsonw_arr_begin(w);
    for (unsigned k = 0; k < p->nturns; k++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "turn");
        jsonw_u64(w, k + 1);
        json_row(w, &p->turn[k], st ? &st->row[k] : NULL);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "later_turns");
    jsonw_obj_begin(w);
    json_row(w, &p->later, st ? &st->row[LLM_SESS_SHOW_TURNS] : NULL);
    jsonw_key(w, "beyond_listed");
    jsonw_u64(w, p->turns_beyond);
    jsonw_obj_end(w);
    jsonw_key(w, "later_vs_first_ttft");
    if (p->nturns && p->turn[0].ttft.have && p->later.ttft.have && p->turn[0].ttft.mean > 0)
        jsonw_fixed(w, p->later.ttft.mean / p->turn[0].ttft.mean, 3);
    else
        jsonw_null(w);
    /* Additive: the session duration's histogram (bench merge) */
    if (st && p->dur_hist) {
        jsonw_key(w, "histograms");
        jsonw_obj_begin(w);
        hlog_json_blob(w, "duration", &st->duration);
        jsonw_obj_end(w);
        jsonw_key(w, "histogram_extremes_ns");
        jsonw_obj_begin(w);
        hlog_json_extremes(w, "duration", &st->duration);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void text_row(FILE *f, const char *name, const struct bench_sess_row *r)
{
    fprintf(f, "    %-7s %8llu %8llu", name, (unsigned long long)r->n, (unsigned long long)r->ok);
    if (r->ttft.have)
        fprintf(f, " %10.3f %10.3f %10.3f", r->ttft.mean / 1e6, r->ttft.p50 / 1e6,
                r->ttft.p99 / 1e6);
    else
        fprintf(f, " %10s %10s %10s", "-", "-", "-");
    if (r->e2e.have)
        fprintf(f, " %10.3f %10.3f", r->e2e.p50 / 1e6, r->e2e.p99 / 1e6);
    else
        fprintf(f, " %10s %10s", "-", "-");
    if (r->isl_mean >= 0)
        fprintf(f, " %9.1f\n", r->isl_mean);
    else
        fprintf(f, " %9s\n", "-");
}

void bench_sess_write_text(FILE *f, const struct bench_sess_point *p)
{
    if (!p) return;
    fprintf(f, "  sessions: %llu started, %llu completed, %llu failed (history: %s)",
            (unsigned long long)p->started, (unsigned long long)p->completed,
            (unsigned long long)p->failed, p->history);
    if (p->dur.have)
        fprintf(f, "; duration mean %.3f ms p50 %.3f ms p99 %.3f ms\n", p->dur.mean / 1e6,
                p->dur.p50 / 1e6, p->dur.p99 / 1e6);
    else
        fputc('\n', f);
    fprintf(f, "    %-7s %8s %8s %10s %10s %10s %10s %10s %9s\n", "turn", "requests", "ok",
            "TTFT mean", "TTFT p50", "TTFT p99", "E2E p50", "E2E p99", "ISL mean");
    char name[16];
    for (unsigned k = 0; k < p->nturns; k++) {
        snprintf(name, sizeof(name), "%u", k + 1);
        text_row(f, name, &p->turn[k]);
    }
    if (p->later.n) text_row(f, "later", &p->later);
    if (p->nturns && p->turn[0].ttft.have && p->later.ttft.have && p->turn[0].ttft.mean > 0)
        fprintf(f, "    later turns' mean TTFT is %.2fx turn 1's (ms in the table)\n",
                p->later.ttft.mean / p->turn[0].ttft.mean);
    if (p->not_mergeable)
        fprintf(f, "    (-: not mergeable: a shard's result has requests there but no "
                   "histograms)\n");
}

void bench_sess_csv(FILE *f, const struct bench_sess_point *const *pts, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++)
        if (pts[i]) any = true;
    if (!any) return;
    fputs("\nPoint,Turn,Requests,OK,TTFT mean,TTFT p50,TTFT p99,E2E p50,E2E p99,ISL mean\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct bench_sess_point *p = pts[i];
        if (!p) continue;
        for (unsigned k = 0; k <= p->nturns; k++) {
            const struct bench_sess_row *r = k < p->nturns ? &p->turn[k] : &p->later;
            if (k == p->nturns && !r->n) break;
            fprintf(f, "%zu,", i + 1);
            if (k < p->nturns)
                fprintf(f, "%u", k + 1);
            else
                fputs("later", f);
            fprintf(f, ",%llu,%llu", (unsigned long long)r->n, (unsigned long long)r->ok);
            if (r->ttft.have)
                fprintf(f, ",%.0f,%.0f,%.0f", r->ttft.mean / 1e3, r->ttft.p50 / 1e3,
                        r->ttft.p99 / 1e3);
            else
                fputs(",,,", f);
            if (r->e2e.have)
                fprintf(f, ",%.0f,%.0f", r->e2e.p50 / 1e3, r->e2e.p99 / 1e3);
            else
                fputs(",,", f);
            if (r->isl_mean >= 0)
                fprintf(f, ",%.1f\n", r->isl_mean);
            else
                fputs(",\n", f);
        }
    }
}
