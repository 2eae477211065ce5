/*
 * metrics.c - LLM streaming metrics in latscope's vocabulary and in peer tools' vocabularies.
 *
 * Every finished request leaves a compact summary (struct llm_rsum, ~100 bytes) and its chunk
 * gaps in pooled vectors; the views are computed at the end from the same data, so the
 * latscope, vLLM and GenAI-Perf numbers of one run differ only by definition, never by sampling.
 * Percentiles are exact order statistics (every sample is kept): core/pctl.h's nearest rank
 * r = max(1, ceil(p/100 * N)) for latscope (computed in integers, so p90 of 10 samples is rank
 * 9, not 10 as a floating-point ceil(0.9 * 10) may give), numpy's linear interpolation for the
 * compatibility views. Token-weighted ITL uses the same rank rule on
 * the cumulative weight. Memory is O(requests + chunks); a histogram-backed mode for very long
 * runs can replace the vectors without changing the summary.
 * Threading: one llm_metrics per thread, merged at the end; nothing is shared.
 */
#include "llm/metrics.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "core/units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const err_names[LLM_ERR__N] = {
    [LLM_OK] = "ok",
    [LLM_ERR_CONNECT] = "connect",
    [LLM_ERR_TIMEOUT] = "timeout",
    [LLM_ERR_HTTP] = "http",
    [LLM_ERR_EVENT] = "error_event",
    [LLM_ERR_MALFORMED] = "malformed",
    [LLM_ERR_CUT] = "stream_cut",
    [LLM_ERR_TRANSPORT] = "transport",
    [LLM_ERR_TRUNCATED] = "truncated",
};

const char *llm_err_name(enum llm_err e)
{
    return (unsigned)e < LLM_ERR__N ? err_names[e] : "unknown";
}

const char *llm_tok_src_name(enum llm_tok_src s)
{
    switch (s) {
    case LLM_TOK_USAGE:
        return "usage";
    case LLM_TOK_CHUNK_USAGE:
        return "chunk_usage";
    case LLM_TOK_CHUNKS:
        return "events";
    case LLM_TOK_TOKENIZER:
        return "tokenizer";
    default:
        return "none";
    }
}

const char *llm_view_name(enum llm_view v)
{
    switch (v) {
    case LLM_VIEW_VLLM:
        return "vllm";
    case LLM_VIEW_GENAI_PERF:
        return "genai-perf";
    case LLM_VIEW_AIPERF:
        return "aiperf";
    default:
        return "latscope";
    }
}

int llm_view_parse(const char *s, enum llm_view *v)
{
    if (!strcmp(s, "latscope"))
        *v = LLM_VIEW_LATSCOPE;
    else if (!strcmp(s, "vllm"))
        *v = LLM_VIEW_VLLM;
    else if (!strcmp(s, "genai-perf") || !strcmp(s, "gap"))
        *v = LLM_VIEW_GENAI_PERF;
    else if (!strcmp(s, "aiperf"))
        *v = LLM_VIEW_AIPERF;
    else
        return LAT_E_USAGE;
    return 0;
}

/* Order of trust for the summary's "weakest source": usage, per-chunk usage, a tokenizer's
 * count of the text, token events. */
static int src_weakness(unsigned s)
{
    static const int w[LLM_TOK__N] = {0, 1, 2, 4, 3};
    return s < LLM_TOK__N ? w[s] : 0;
}

static const char *tok_src_label(const struct llm_summary *s, enum llm_tok_src src)
{
    if (src == LLM_TOK_TOKENIZER && s->counter) return s->counter;
    return llm_tok_src_name(src);
}

static const char *isl_label(const struct llm_summary *s)
{
    uint64_t u = s->isl_count[LLM_ISL_USAGE], t = s->isl_count[LLM_ISL_TOKENIZER];
    if (!u && !t) return "none";
    if (u && t) return "mixed";
    if (u) return "usage";
    return s->counter ? s->counter : "tokenizer";
}

int64_t llm_record_tokens(const struct llm_record *r, enum llm_tok_src *src)
{
    if (r->usage_tokens >= 0) {
        *src = LLM_TOK_USAGE;
        return r->usage_tokens;
    }
    if (r->chunk_usage_tokens >= 0) {
        *src = LLM_TOK_CHUNK_USAGE;
        return r->chunk_usage_tokens;
    }
    if (r->n_content > 0 || r->n_token_events > 0 || r->err == LLM_OK) {
        *src = LLM_TOK_CHUNKS;
        return r->n_token_events > r->n_content ? r->n_token_events : r->n_content;
    }
    *src = LLM_TOK_NONE;
    return -1;
}

/* ---- SLO parsing ---- */

int llm_slo_parse(const char *s, struct llm_slo *slo, const char **why)
{
    memset(slo, 0, sizeof(*slo));
    slo->ttft_ns = slo->tpot_ns = slo->e2e_ns = -1;
    char buf[256];
    if (!s || !*s) {
        *why = "empty SLO; use e.g. 'ttft<=500ms,tpot<=50ms'";
        return LAT_E_USAGE;
    }
    if (strlen(s) >= sizeof(buf)) {
        *why = "SLO list too long";
        return LAT_E_USAGE;
    }
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        double pct = 0;
        if (tok[0] == 'p' && tok[1] >= '0' && tok[1] <= '9') {
            char *end;
            pct = strtod(tok + 1, &end);
            if ((*end != '_' && *end != ':' && *end != '.') || pct <= 0 || pct > 100) {
                *why = "bad percentile prefix; use e.g. 'p99_ttft<=500ms'";
                return LAT_E_USAGE;
            }
            tok = end + 1;
        }
        char *op = strchr(tok, '<');
        if (!op) {
            *why = "each SLO needs '<=', e.g. 'ttft<=500ms' (keys: ttft, tpot, e2e)";
            return LAT_E_USAGE;
        }
        size_t klen = (size_t)(op - tok);
        while (klen && tok[klen - 1] == ' ')
            klen--;
        const char *val = op[1] == '=' ? op + 2 : op + 1;
        while (*val == ' ')
            val++;
        lat_ns ns;
        if (units_parse_duration(val, LAT_NS_PER_MS, &ns) != 0 || ns <= 0) {
            *why = "bad SLO duration; use e.g. 500ms, 0.5s or 500 (ms)";
            return LAT_E_USAGE;
        }
        if (klen == 4 && !strncmp(tok, "ttft", 4)) {
            slo->ttft_ns = ns, slo->ttft_pct = pct;
        } else if ((klen == 4 && !strncmp(tok, "tpot", 4)) ||
                   (klen == 3 && !strncmp(tok, "itl", 3))) {
            slo->tpot_ns = ns, slo->tpot_pct = pct;
        } else if ((klen == 3 && !strncmp(tok, "e2e", 3)) ||
                   (klen == 4 && !strncmp(tok, "e2el", 4))) {
            slo->e2e_ns = ns, slo->e2e_pct = pct;
        } else {
            *why = "unknown SLO key; per-request keys are ttft, tpot (alias itl) and e2e";
            return LAT_E_USAGE;
        }
    }
    slo->set = slo->ttft_ns >= 0 || slo->tpot_ns >= 0 || slo->e2e_ns >= 0;
    if (!slo->set) {
        *why = "empty SLO; use e.g. 'ttft<=500ms,tpot<=50ms'";
        return LAT_E_USAGE;
    }
    return 0;
}

/* ---- collection ---- */

static int vec_push(struct llm_vec *v, int64_t x)
{
    int rc = LAT_GROW(v->v, v->cap, v->n, 1, 256);
    if (rc) return rc;
    v->v[v->n++] = x;
    return 0;
}

static int vec_append(struct llm_vec *d, const struct llm_vec *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (vec_push(d, s->v[i])) return -ENOMEM;
    return 0;
}

void llm_metrics_init(struct llm_metrics *m)
{
    memset(m, 0, sizeof(*m));
}

void llm_metrics_fini(struct llm_metrics *m)
{
    free(m->r);
    free(m->content_gaps.v);
    free(m->choice_gaps.v);
    free(m->chunk_tokens.v);
    memset(m, 0, sizeof(*m));
}

void llm_metrics_reset(struct llm_metrics *m)
{
    m->n = 0;
    m->content_gaps.n = m->choice_gaps.n = m->chunk_tokens.n = 0;
    m->approx_chunk_tokens = m->approx_chunks = m->usage_chunk_mismatch = 0;
    m->first_err.have = false;
}

void llm_first_err_note(struct llm_first_err *f, enum llm_err err, int status, const char *text,
                        size_t n)
{
    if (f->have) return;
    f->have = true;
    f->err = (uint8_t)err;
    f->http_status = status;
    size_t k = 0;
    for (size_t i = 0; text && i < n && k + 1 < sizeof(f->text); i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch < 0x20 || ch == 0x7f) ch = ' ';
        if (ch == ' ' && (k == 0 || f->text[k - 1] == ' ')) continue;
        f->text[k++] = (char)ch;
    }
    while (k && f->text[k - 1] == ' ')
        k--;
    f->text[k] = '\0';
}

static int push_rsum(struct llm_metrics *m, const struct llm_rsum *s)
{
    int rc = LAT_GROW(m->r, m->cap, m->n, 1, 256);
    if (rc) return rc;
    m->r[m->n++] = *s;
    return 0;
}

int llm_metrics_add(struct llm_metrics *m, const struct llm_record *rec)
{
    enum llm_tok_src src;
    struct llm_rsum s = {
        .t_sched = rec->t_sched,
        .t_send = rec->t_send,
        .t_first_event = rec->t_first_event,
        .t_last_event = rec->t_last_event,
        .t_first_choice = rec->t_first_choice,
        .t_last_choice = rec->t_last_choice,
        .t_first = rec->t_first,
        .t_last = rec->t_last,
        .t_end = rec->t_end,
        .requested = rec->requested_tokens,
        .n_content = rec->n_content,
        .err = (uint8_t)rec->err,
        .streamed = rec->n_choice > 0,
    };
    s.n = llm_record_tokens(rec, &src);
    s.src = (uint8_t)src;
    /* prompt_tokens_tok 0 is "not counted" (records filled by hand leave it zero) */
    s.isl = rec->prompt_tokens >= 0      ? rec->prompt_tokens
            : rec->prompt_tokens_tok > 0 ? rec->prompt_tokens_tok
                                         : -1;
    s.isl_src = rec->prompt_tokens >= 0      ? LLM_ISL_USAGE
                : rec->prompt_tokens_tok > 0 ? LLM_ISL_TOKENIZER
                                             : LLM_ISL_NONE;
    s.isl_sent = rec->prompt_tokens_tok > 0 ? rec->prompt_tokens_tok : -1;
    if (push_rsum(m, &s)) return -ENOMEM;
    if (rec->err != LLM_OK) return 0;

    for (uint32_t i = 1; i < rec->n_content; i++)
        if (vec_push(&m->content_gaps, rec->content_ts[i] - rec->content_ts[i - 1])) return -ENOMEM;
    for (uint32_t i = 1; i < rec->n_choice; i++)
        if (vec_push(&m->choice_gaps, rec->choice_ts[i] - rec->choice_ts[i - 1])) return -ENOMEM;
    bool exact = rec->n_content > 0 && rec->chunk_usage_every && rec->content_tok;
    for (uint32_t i = 0; exact && i < rec->n_content; i++)
        exact = rec->content_tok[i] >= 0;
    if (exact) {
        for (uint32_t i = 0; i < rec->n_content; i++)
            if (vec_push(&m->chunk_tokens, rec->content_tok[i])) return -ENOMEM;
    } else if (s.n > 0 && rec->n_content > 0) {
        m->approx_chunk_tokens += (uint64_t)s.n;
        m->approx_chunks += rec->n_content;
    }
    if (rec->usage_tokens >= 0 && rec->usage_tokens != (int64_t)rec->n_content)
        m->usage_chunk_mismatch++;
    return 0;
}

int llm_metrics_merge(struct llm_metrics *dst, const struct llm_metrics *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (push_rsum(dst, &src->r[i])) return -ENOMEM;
    if (vec_append(&dst->content_gaps, &src->content_gaps) ||
        vec_append(&dst->choice_gaps, &src->choice_gaps) ||
        vec_append(&dst->chunk_tokens, &src->chunk_tokens))
        return -ENOMEM;
    dst->approx_chunk_tokens += src->approx_chunk_tokens;
    dst->approx_chunks += src->approx_chunks;
    dst->usage_chunk_mismatch += src->usage_chunk_mismatch;
    if (!dst->first_err.have) dst->first_err = src->first_err;
    return 0;
}

/* ---- estimators ---- */

static const int pcts[5] = {500, 900, 950, 990, 999};

static void stat_set_pct(struct llm_stat *st, int i, double x)
{
    double *slot[5] = {&st->p50, &st->p90, &st->p95, &st->p99, &st->p999};
    *slot[i] = x;
}

static void stat_empty(struct llm_stat *st)
{
    st->n = 0;
    st->mean = st->p50 = st->p90 = st->p95 = st->p99 = st->p999 = st->max = NAN;
}

/* Request- (or chunk-) weighted summary of v (sorted in place). scale divides every value. */
static void stat_of(struct llm_stat *st, int64_t *v, size_t n, bool numpy, double scale)
{
    if (n == 0) {
        stat_empty(st);
        return;
    }
    qsort(v, n, sizeof(*v), lat_cmp_i64);
    long double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    st->n = n;
    st->mean = (double)(sum / n) / scale;
    st->max = (double)v[n - 1] / scale;
    for (int i = 0; i < 5; i++)
        stat_set_pct(st, i,
                     (numpy ? lat_quantile_linear_i64(v, n, pcts[i] / 1000.0)
                            : (double)lat_pctl_i64(v, n, pcts[i] / 10.0)) /
                         scale);
}

struct wsample {
    int64_t v;
    uint64_t w;
};

static int cmp_ws(const void *a, const void *b)
{
    int64_t x = ((const struct wsample *)a)->v, y = ((const struct wsample *)b)->v;
    return (x > y) - (x < y);
}

/* Weighted nearest rank: the smallest value whose cumulative weight reaches ceil(p/100 * W). */
static void wstat_of(struct llm_stat *st, struct wsample *s, size_t n)
{
    uint64_t total = 0;
    long double sum = 0;
    for (size_t i = 0; i < n; i++)
        total += s[i].w, sum += (long double)s[i].v * s[i].w;
    if (n == 0 || total == 0) {
        stat_empty(st);
        return;
    }
    qsort(s, n, sizeof(*s), cmp_ws);
    st->n = total;
    st->mean = (double)(sum / total);
    st->max = (double)s[n - 1].v;
    for (int k = 0; k < 5; k++) {
        uint64_t r = lat_rank_nearest(pcts[k] / 10.0, total), cum = 0;
        size_t i = 0;
        for (; i < n; i++) {
            cum += s[i].w;
            if (cum >= r) break;
        }
        stat_set_pct(st, k, (double)s[i < n ? i : n - 1].v);
    }
}

/* ---- views ---- */

struct view_req {
    lat_ns ttft, e2e, tpot; /* -1 when undefined */
};

static struct view_req view_values(const struct llm_rsum *r, enum llm_view view)
{
    struct view_req o = {-1, -1, -1};
    switch (view) {
    case LLM_VIEW_VLLM:
        /* TTFT: first message with non-empty choices - send; E2EL: last such message - send
         * (trailing usage chunk excluded); TPOT (E2EL - TTFT)/(n - 1) for n > 1. */
        if (r->t_first_choice >= 0) o.ttft = r->t_first_choice - r->t_send;
        o.e2e = (r->t_last_choice >= 0 ? r->t_last_choice : r->t_end) - r->t_send;
        if (o.ttft >= 0 && r->n > 1 && r->streamed) o.tpot = (o.e2e - o.ttft) / (r->n - 1);
        break;
    case LLM_VIEW_GENAI_PERF:
    case LLM_VIEW_AIPERF:
        /* TTFT: r[0] - t0 (AIPerf: the first response with non-empty content - t0); request
         * latency: r[last] - t0; ITL (= TPOT) (E2E - TTFT)/(n - 1). */
        if (view == LLM_VIEW_AIPERF) {
            if (r->t_first >= 0) o.ttft = r->t_first - r->t_send;
        } else if (r->t_first_event >= 0) {
            o.ttft = r->t_first_event - r->t_send;
        }
        o.e2e = (r->t_last_event >= 0 ? r->t_last_event : r->t_end) - r->t_send;
        if (o.ttft >= 0 && r->n > 1 && r->streamed) o.tpot = (o.e2e - o.ttft) / (r->n - 1);
        break;
    default:
        /* §4: ttft = t_first - t_sched; e2e = t_end - t_sched; tpot = (t_last - t_first)/(n-1),
         * measurable only over two or more timed content chunks (not --no-stream's one body,
         * nor one chunk that carries every token: 0 would be no measurement). */
        if (r->t_first >= 0) o.ttft = r->t_first - r->t_sched;
        o.e2e = r->t_end - r->t_sched;
        if (r->t_first >= 0 && r->t_last >= 0 && r->n >= 2 && r->n_content >= 2)
            o.tpot = (r->t_last - r->t_first) / (r->n - 1);
        break;
    }
    return o;
}

static bool meets_slo(const struct llm_slo *slo, const struct view_req *v, const struct llm_rsum *r,
                      enum llm_view view)
{
    if (r->err != LLM_OK) return false;
    if (slo->ttft_ns >= 0 && (v->ttft < 0 || v->ttft > slo->ttft_ns)) return false;
    if (slo->e2e_ns >= 0 && v->e2e > slo->e2e_ns) return false;
    /* n <= 1 has no TPOT: the condition is vacuous (vLLM sets TPOT = 0, which also passes). */
    if (slo->tpot_ns >= 0 && v->tpot >= 0 && v->tpot > slo->tpot_ns) return false;
    return true;
}

int llm_metrics_summarize(struct llm_metrics *m, enum llm_view view, const struct llm_slo *slo,
                          struct llm_summary *out)
{
    memset(out, 0, sizeof(*out));
    out->view = view;
    out->first_err = m->first_err;
    size_t n = m->n;
    int rc = -ENOMEM;
    int64_t *ttft = malloc((n + 1) * sizeof(int64_t)), *ttft_send = malloc((n + 1) * 8);
    int64_t *e2e = malloc((n + 1) * 8), *e2e_send = malloc((n + 1) * 8);
    int64_t *tpot = malloc((n + 1) * 8), *lag = malloc((n + 1) * 8), *user = malloc((n + 1) * 8);
    struct wsample *itl = malloc((n + 1) * sizeof(*itl));
    size_t nt = 0, nts = 0, ne = 0, nes = 0, np = 0, nl = 0, nu = 0, ni = 0;
    if (!ttft || !ttft_send || !e2e || !e2e_send || !tpot || !lag || !user || !itl) goto out;

    bool numpy = view != LLM_VIEW_LATSCOPE;
    lat_ns t_min = INT64_MAX, t_max = INT64_MIN;
    out->tokens_source = LLM_TOK_NONE;
    out->has_slo = slo && slo->set;
    for (size_t i = 0; i < n; i++) {
        const struct llm_rsum *r = &m->r[i];
        out->requests++;
        if (r->t_send >= 0 && r->t_sched >= 0) lag[nl++] = r->t_send - r->t_sched;
        struct view_req v = view_values(r, view);
        if (out->has_slo && meets_slo(slo, &v, r, view)) out->good++;
        /* Duration window: latscope and vLLM from the first intended send to the last end;
         * GenAI-Perf from the first send to the last response, successful requests only. */
        if (view == LLM_VIEW_GENAI_PERF || view == LLM_VIEW_AIPERF) {
            if (r->err == LLM_OK) {
                if (r->t_send < t_min) t_min = r->t_send;
                lat_ns last = r->t_last_event >= 0 ? r->t_last_event : r->t_end;
                if (last > t_max) t_max = last;
            }
        } else {
            lat_ns start = r->t_sched >= 0 ? r->t_sched : r->t_send;
            if (start < t_min) t_min = start;
            if (r->t_end > t_max) t_max = r->t_end;
        }
        if (r->err != LLM_OK) {
            out->errors++;
            out->err[r->err < LLM_ERR__N ? r->err : LLM_ERR_TRANSPORT]++;
            continue;
        }
        out->ok++;
        if (r->n > 0) out->out_tokens += (uint64_t)r->n;
        if (r->src < LLM_TOK__N) out->src_count[r->src]++;
        if (src_weakness(r->src) > src_weakness(out->tokens_source)) out->tokens_source = r->src;
        if (r->isl >= 0 && r->isl_src < 3) {
            if (!out->in_requests || r->isl < out->in_min) out->in_min = r->isl;
            if (!out->in_requests || r->isl > out->in_max) out->in_max = r->isl;
            out->in_requests++;
            out->in_tokens += (uint64_t)r->isl;
            out->isl_count[r->isl_src]++;
        }
        if (r->requested >= 0 && r->n != r->requested) out->osl_mismatch++;
        if (r->n_content >= 4 && r->t_first >= 0 && r->t_send >= 0 && r->t_last >= r->t_first &&
            r->t_last - r->t_first < LAT_NS_PER_MS &&
            (r->t_last - r->t_first) * 8 < r->t_first - r->t_send) {
            out->burst_streams++;
            out->burst_ttft_sum += (double)(r->t_first - r->t_send);
        }
        if (r->isl_src == LLM_ISL_USAGE && r->isl_sent > 0 && r->isl * 10 < r->isl_sent * 9) {
            out->isl_short++;
            out->isl_short_usage_sum += (double)r->isl;
            out->isl_short_sent_sum += (double)r->isl_sent;
        }
        if (v.ttft >= 0) ttft[nt++] = v.ttft;
        e2e[ne++] = v.e2e;
        if (view == LLM_VIEW_LATSCOPE) {
            if (r->t_first >= 0) ttft_send[nts++] = r->t_first - r->t_send;
            e2e_send[nes++] = r->t_end - r->t_send;
        }
        if (v.tpot >= 0) {
            tpot[np++] = v.tpot;
            itl[ni].v = v.tpot;
            itl[ni++].w = (uint64_t)(r->n - 1);
            if (r->t_last > r->t_first && r->n >= 2)
                user[nu++] =
                    (int64_t)((double)(r->n - 1) * 1e12 / (double)(r->t_last - r->t_first));
        } else {
            out->no_tpot++;
        }
    }

    stat_of(&out->ttft, ttft, nt, numpy, 1);
    stat_of(&out->e2e, e2e, ne, numpy, 1);
    stat_of(&out->tpot, tpot, np, numpy, 1);
    stat_of(&out->send_lag, lag, nl, numpy, 1);
    stat_of(&out->out_tok_s_user, user, nu, numpy, 1000);
    if (view == LLM_VIEW_LATSCOPE) {
        stat_of(&out->ttft_send, ttft_send, nts, false, 1);
        stat_of(&out->e2e_send, e2e_send, nes, false, 1);
        wstat_of(&out->itl, itl, ni);
    } else {
        out->ttft_send = out->ttft; /* the peers anchor at the actual send */
        out->e2e_send = out->e2e;
        if (view == LLM_VIEW_VLLM)
            stat_of(&out->itl, m->choice_gaps.v, m->choice_gaps.n, true, 1);
        else
            out->itl = out->tpot; /* GenAI-Perf's ITL is the per-request TPOT */
    }
    stat_of(&out->chunk_gap, m->content_gaps.v, m->content_gaps.n, numpy, 1);
    if (m->approx_chunks == 0) {
        stat_of(&out->tokens_per_chunk, m->chunk_tokens.v, m->chunk_tokens.n, numpy, 1);
        out->tokens_per_chunk_exact = m->chunk_tokens.n > 0;
    } else {
        /* Only per-request means are known: report the pooled mean, no percentiles. */
        long double tok = m->approx_chunk_tokens, ch = m->approx_chunks;
        for (size_t i = 0; i < m->chunk_tokens.n; i++)
            tok += m->chunk_tokens.v[i];
        ch += m->chunk_tokens.n;
        stat_empty(&out->tokens_per_chunk);
        out->tokens_per_chunk.n = (uint64_t)ch;
        out->tokens_per_chunk.mean = (double)(tok / ch);
        out->tokens_per_chunk_exact = false;
    }
    out->usage_chunk_mismatch = m->usage_chunk_mismatch;
    if (t_max > t_min) {
        out->duration_s = (double)(t_max - t_min) / 1e9;
        out->out_tok_s = (double)out->out_tokens / out->duration_s;
        out->req_s = (double)out->ok / out->duration_s;
        if (out->has_slo) out->goodput_rps = (double)out->good / out->duration_s;
    }
    if (out->has_slo && out->requests)
        out->goodput_fraction = (double)out->good / (double)out->requests;
    rc = 0;
out:
    free(ttft);
    free(ttft_send);
    free(e2e);
    free(e2e_send);
    free(tpot);
    free(lag);
    free(user);
    free(itl);
    return rc;
}

/* ---- output ---- */

static void json_stat(struct jsonw *w, const char *key, const struct llm_stat *st, double div,
                      bool latency)
{
    jsonw_key(w, key);
    jsonw_obj_begin(w);
    const char *names[] = {"mean", "p50", "p90", "p95", "p99", "p99.9", "max"};
    const double vals[] = {st->mean, st->p50, st->p90, st->p95, st->p99, st->p999, st->max};
    for (int i = 0; i < 7; i++) {
        jsonw_key(w, names[i]);
        if (st->n == 0 || isnan(vals[i]))
            jsonw_null(w);
        else
            jsonw_fixed(w, vals[i] / div, latency ? 6 : 3);
    }
    jsonw_key(w, "n");
    jsonw_u64(w, st->n);
    jsonw_obj_end(w);
}

void llm_summary_write_json(struct jsonw *w, const struct llm_summary *s)
{
    bool ls = s->view == LLM_VIEW_LATSCOPE;
    json_stat(w, "ttft_ms", &s->ttft, 1e6, true);
    json_stat(w, "tpot_ms", &s->tpot, 1e6, true);
    json_stat(w, "itl_ms", &s->itl, 1e6, true);
    json_stat(w, "e2e_ms", &s->e2e, 1e6, true);
    if (ls) {
        json_stat(w, "ttft_send_ms", &s->ttft_send, 1e6, true);
        json_stat(w, "e2e_send_ms", &s->e2e_send, 1e6, true);
    }
    json_stat(w, "chunk_gap_ms", &s->chunk_gap, 1e6, true);
    json_stat(w, "tokens_per_chunk", &s->tokens_per_chunk, 1, false);
    json_stat(w, "output_tokens_per_s_per_user", &s->out_tok_s_user, 1, false);
    jsonw_key(w, "output_tokens");
    jsonw_u64(w, s->out_tokens);
    jsonw_key(w, "output_tokens_per_s");
    jsonw_fixed(w, s->out_tok_s, 3);
    jsonw_key(w, "requests_per_s");
    jsonw_fixed(w, s->req_s, 3);
    jsonw_key(w, "goodput_rps");
    if (s->has_slo)
        jsonw_fixed(w, s->goodput_rps, 3);
    else
        jsonw_null(w);
    jsonw_key(w, "goodput_fraction");
    if (s->has_slo)
        jsonw_fixed(w, s->goodput_fraction, 6);
    else
        jsonw_null(w);
    jsonw_key(w, "good_requests");
    if (s->has_slo)
        jsonw_u64(w, s->good);
    else
        jsonw_null(w);
    jsonw_key(w, "tokens_source");
    jsonw_str(w, tok_src_label(s, s->tokens_source));
    jsonw_key(w, "tokens_source_counts");
    jsonw_obj_begin(w);
    for (int i = LLM_TOK_USAGE; i <= LLM_TOK_CHUNKS; i++) {
        jsonw_key(w, llm_tok_src_name((enum llm_tok_src)i));
        jsonw_u64(w, s->src_count[i]);
    }
    if (s->src_count[LLM_TOK_TOKENIZER] || s->counter) {
        jsonw_key(w, tok_src_label(s, LLM_TOK_TOKENIZER));
        jsonw_u64(w, s->src_count[LLM_TOK_TOKENIZER]);
    }
    jsonw_obj_end(w);
    /* ISL: usage.prompt_tokens where the server sent it, else the tokenizer's count */
    jsonw_key(w, "input_tokens");
    jsonw_u64(w, s->in_tokens);
    jsonw_key(w, "input_tokens_mean");
    if (s->in_requests)
        jsonw_fixed(w, (double)s->in_tokens / (double)s->in_requests, 3);
    else
        jsonw_null(w);
    jsonw_key(w, "input_tokens_min");
    jsonw_i64(w, s->in_min);
    jsonw_key(w, "input_tokens_max");
    jsonw_i64(w, s->in_max);
    jsonw_key(w, "input_tokens_source");
    jsonw_str(w, isl_label(s));
    if (s->tok_err[0]) {
        jsonw_key(w, "tokenizer_error");
        jsonw_str(w, s->tok_err);
    }
    jsonw_key(w, "input_tokens_source_counts");
    jsonw_obj_begin(w);
    jsonw_key(w, "usage");
    jsonw_u64(w, s->isl_count[LLM_ISL_USAGE]);
    jsonw_key(w, s->counter ? s->counter : "tokenizer");
    jsonw_u64(w, s->isl_count[LLM_ISL_TOKENIZER]);
    jsonw_key(w, "unknown");
    jsonw_u64(w, s->ok - s->in_requests);
    jsonw_obj_end(w);
    jsonw_key(w, "osl_mismatch");
    jsonw_u64(w, s->osl_mismatch);
    /* prompts the server counted below 90 % of what was sent: {requests, usage_mean,
     * sent_mean}, null when none (or nothing was counted) */
    jsonw_key(w, "isl_short");
    if (s->isl_short) {
        jsonw_obj_begin(w);
        jsonw_key(w, "requests");
        jsonw_u64(w, s->isl_short);
        jsonw_key(w, "usage_mean");
        jsonw_fixed(w, s->isl_short_usage_sum / (double)s->isl_short, 1);
        jsonw_key(w, "sent_mean");
        jsonw_fixed(w, s->isl_short_sent_sum / (double)s->isl_short, 1);
        jsonw_obj_end(w);
    } else {
        jsonw_null(w);
    }
    jsonw_key(w, "burst_streams"); /* streams that came in one burst (metrics.h) */
    jsonw_u64(w, s->burst_streams);
    jsonw_key(w, "burst_ttft_mean_ms");
    if (s->burst_streams)
        jsonw_fixed(w, s->burst_ttft_sum / (double)s->burst_streams / 1e6, 3);
    else
        jsonw_null(w);
    jsonw_key(w, "no_tpot_requests");
    jsonw_u64(w, s->no_tpot);
    jsonw_key(w, "llm_errors");
    jsonw_obj_begin(w);
    jsonw_key(w, "total");
    jsonw_u64(w, s->errors);
    for (int i = 1; i < LLM_ERR__N; i++) {
        jsonw_key(w, llm_err_name((enum llm_err)i));
        jsonw_u64(w, s->err[i]);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "first_error");
    if (!s->errors || !s->first_err.have) {
        jsonw_null(w);
    } else {
        jsonw_obj_begin(w);
        jsonw_key(w, "class");
        jsonw_str(w, llm_err_name((enum llm_err)s->first_err.err));
        jsonw_key(w, "http_status");
        jsonw_u64(w, (uint64_t)(s->first_err.http_status > 0 ? s->first_err.http_status : 0));
        jsonw_key(w, "message");
        jsonw_str(w, s->first_err.text);
        jsonw_obj_end(w);
    }
    jsonw_key(w, "server_metrics");
    if (!s->srv.have) {
        jsonw_null(w);
    } else {
        const struct llm_srv *v = &s->srv;
        jsonw_obj_begin(w);
        jsonw_key(w, "scrapes");
        jsonw_u64(w, v->scrapes);
        jsonw_key(w, "scrape_errors");
        jsonw_u64(w, v->scrape_errors);
        jsonw_key(w, "series");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < v->n; i++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "label");
            jsonw_str(w, v->s[i].label);
            jsonw_key(w, "metric");
            jsonw_str(w, v->s[i].metric);
            if (v->s[i].counter) {
                jsonw_key(w, "delta");
                jsonw_double(w, v->s[i].delta, 12);
            } else {
                jsonw_key(w, "mean");
                jsonw_double(w, v->s[i].mean, 12);
                jsonw_key(w, "max");
                jsonw_double(w, v->s[i].max, 12);
            }
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_key(w, "raw_deltas");
        jsonw_obj_begin(w);
        for (size_t i = 0; i < v->nraw; i++) {
            jsonw_key(w, v->raw[i].key);
            jsonw_double(w, v->raw[i].after - v->raw[i].before, 12);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "raw_more");
        jsonw_u64(w, v->raw_more);
        jsonw_obj_end(w);
    }
    jsonw_key(w, "llm_duration_s");
    jsonw_fixed(w, s->duration_s, 6);
    jsonw_key(w, "metrics_view");
    jsonw_str(w, llm_view_name(s->view));
    jsonw_key(w, "estimator");
    jsonw_str(w, ls ? "nearest-rank, exact" : "numpy linear, exact");
}

static int text_row(struct lat_buf *b, const char *name, const char *anchor, const char *weight,
                    const struct llm_stat *st, double div, const char *unit)
{
    if (st->n == 0) return buf_printf(b, "%-18s %-6s %8s  %s\n", name, anchor, "0", "(no samples)");
    const double v[] = {st->mean, st->p50, st->p90, st->p95, st->p99, st->p999, st->max};
    int rc = buf_printf(b, "%-18s %-6s %8llu", name, anchor, (unsigned long long)st->n);
    for (int i = 0; i < 7 && !rc; i++) {
        if (isnan(v[i]))
            rc = buf_printf(b, " %9s", "-");
        else
            rc = buf_printf(b, " %9.3f", v[i] / div);
    }
    if (!rc) rc = buf_printf(b, "  %-4s %s\n", unit, weight);
    return rc;
}

int llm_summary_format_text(struct lat_buf *b, const struct llm_summary *s)
{
    bool ls = s->view == LLM_VIEW_LATSCOPE;
    const char *a = ls ? "sched" : "send";
    int rc = buf_printf(b, "LLM metrics (%s definitions; %s percentiles over every sample)\n",
                        llm_view_name(s->view), ls ? "nearest-rank" : "numpy-linear");
    rc = rc ? rc
            : buf_printf(b, "%-18s %-6s %8s %9s %9s %9s %9s %9s %9s %9s  %-4s %s\n", "metric",
                         "anchor", "N", "mean", "p50", "p90", "p95", "p99", "p99.9", "max", "unit",
                         "weighting");
    rc = rc ? rc : text_row(b, "ttft", a, "request", &s->ttft, 1e6, "ms");
    if (ls) rc = rc ? rc : text_row(b, "ttft", "send", "request", &s->ttft_send, 1e6, "ms");
    rc = rc ? rc : text_row(b, "e2e", a, "request", &s->e2e, 1e6, "ms");
    if (ls) rc = rc ? rc : text_row(b, "e2e", "send", "request", &s->e2e_send, 1e6, "ms");
    rc = rc ? rc : text_row(b, "tpot", "-", "request", &s->tpot, 1e6, "ms");
    rc = rc ? rc
            : text_row(b, "itl", "-",
                       s->view == LLM_VIEW_VLLM       ? "chunk (pooled gaps)"
                       : s->view != LLM_VIEW_LATSCOPE ? "request (= tpot)"
                                                      : "token (n-1)",
                       &s->itl, 1e6, "ms");
    rc = rc ? rc : text_row(b, "chunk_gap", "-", "chunk", &s->chunk_gap, 1e6, "ms");
    rc =
        rc ? rc
           : text_row(b, "tokens_per_chunk", "-", s->tokens_per_chunk_exact ? "chunk" : "mean only",
                      &s->tokens_per_chunk, 1, "tok");
    rc = rc ? rc : text_row(b, "out_tok_s/user", "-", "request", &s->out_tok_s_user, 1, "tok/s");
    rc = rc ? rc
            : buf_printf(b,
                         "requests %llu ok %llu errors %llu; output tokens %llu (source %s); "
                         "%.3f tok/s, %.3f req/s over %.3f s\n",
                         (unsigned long long)s->requests, (unsigned long long)s->ok,
                         (unsigned long long)s->errors, (unsigned long long)s->out_tokens,
                         tok_src_label(s, s->tokens_source), s->out_tok_s, s->req_s, s->duration_s);
    if (s->counter && !rc)
        rc = buf_printf(
            b, "input tokens %llu (mean %.1f, source %s)\n", (unsigned long long)s->in_tokens,
            s->in_requests ? (double)s->in_tokens / (double)s->in_requests : 0.0, isl_label(s));
    if (s->errors && !rc) {
        rc = buf_puts(b, "errors:");
        for (int i = 1; i < LLM_ERR__N && !rc; i++)
            if (s->err[i])
                rc = buf_printf(b, " %s %llu", llm_err_name((enum llm_err)i),
                                (unsigned long long)s->err[i]);
        rc = rc ? rc : buf_putc(b, '\n');
    }
    if (s->errors && s->first_err.have && !rc) {
        rc = buf_printf(b, "first error: %s", llm_err_name((enum llm_err)s->first_err.err));
        if (!rc && s->first_err.http_status)
            rc = buf_printf(b, " (HTTP %d)", s->first_err.http_status);
        if (!rc && s->first_err.text[0]) rc = buf_printf(b, ": %s", s->first_err.text);
        rc = rc ? rc : buf_putc(b, '\n');
    }
    if (s->has_slo && !rc)
        rc = buf_printf(b, "goodput %.3f req/s, %llu of %llu requests (%.2f %%) met every SLO\n",
                        s->goodput_rps, (unsigned long long)s->good,
                        (unsigned long long)s->requests, 100.0 * s->goodput_fraction);
    if (s->osl_mismatch && !rc)
        rc = buf_printf(b, "OSL mismatch: %llu requests received a token count != max_tokens\n",
                        (unsigned long long)s->osl_mismatch);
    if (s->burst_streams && !rc)
        rc = buf_printf(b,
                        "note: %llu of %llu streams came in one burst (every token within 1 ms, "
                        "after a mean TTFT of %.3f ms): something buffered them (a proxy, or "
                        "Nagle's algorithm on a server without TCP_NODELAY holding small writes "
                        "until the client's delayed ACK, ~40 ms on Linux); their TTFT and ITL "
                        "measure the buffering, not the model\n",
                        (unsigned long long)s->burst_streams, (unsigned long long)s->ok,
                        s->burst_ttft_sum / (double)s->burst_streams / 1e6);
    if (s->isl_short && !rc)
        rc = buf_printf(b,
                        "ISL short: %llu requests: the server counted %.1f prompt tokens (mean) "
                        "where %.1f were sent: it cut the prompts (context length?); the load "
                        "is not the one asked for\n",
                        (unsigned long long)s->isl_short,
                        s->isl_short_usage_sum / (double)s->isl_short,
                        s->isl_short_sent_sum / (double)s->isl_short);
    if (s->srv.have && !rc) {
        rc = buf_printf(b, "server (%llu scrapes):", (unsigned long long)s->srv.scrapes);
        for (size_t i = 0; i < s->srv.n && !rc; i++) {
            const struct llm_srv_series *x = &s->srv.s[i];
            if (x->counter)
                rc = buf_printf(b, "%s %s +%.6g", i ? ";" : "", x->label, x->delta);
            else
                rc = buf_printf(b, "%s %s mean %.4g max %.4g", i ? ";" : "", x->label, x->mean,
                                x->max);
        }
        for (size_t i = 0; i < s->srv.nraw && !rc; i++)
            rc = buf_printf(b, "%s %s %+.6g", i || s->srv.n ? ";" : "", s->srv.raw[i].key,
                            s->srv.raw[i].after - s->srv.raw[i].before);
        rc = rc ? rc : buf_putc(b, '\n');
    }
    if (s->tokens_source == LLM_TOK_CHUNKS && !rc)
        rc = buf_puts(b, "note: without usage, output tokens are the server's token events "
                         "(content events, empty ones included): exact where the server sends "
                         "one per token (llama.cpp), a lower bound where an event carries "
                         "several\n");
    return rc;
}
