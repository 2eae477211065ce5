/*
 * target.c - the openai bench target: request bytes per request, response bytes into records.
 *
 * The request head (method, path, Host, Content-Type, Accept, Authorization, extra headers) is
 * formatted once; each request appends Content-Length and a freshly built body into the
 * connection's own buffer, so building is one memcpy plus the body (no allocation once the
 * buffer has grown). The API key is read from the named environment variable once, at setup,
 * and never printed. Response bytes go straight into the connection's llm_stream; the finished
 * record lands in the worker thread's llm_metrics. Request numbers come from one atomic
 * counter, so request i always has the same body (seeded) whichever thread sends it.
 */
#include "llm/target.h"

#include "core/err.h"
#include "core/grow.h"
#include "llm/chunk.h"
#include "json/tok.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool header_ok(const char *h)
{
    const char *colon = strchr(h, ':');
    return colon && colon > h && !strpbrk(h, "\r\n");
}

int llm_target_new(const struct llm_target_cfg *cfg, unsigned nthreads, struct llm_target **out,
                   char *why, size_t whylen)
{
    *out = NULL;
    why[0] = '\0';
    if (nthreads == 0 || !cfg->hostport) {
        snprintf(why, whylen, "internal: no threads or host");
        return LAT_E_USAGE;
    }
    struct llm_target *t = calloc(1, sizeof(*t));
    if (!t) return -ENOMEM;
    t->cfg = *cfg;
    t->nthreads = nthreads;
    int rc = llm_workload_new(&cfg->wl, &t->wl, why, whylen);
    if (rc) goto fail;
    t->metrics = calloc(nthreads, sizeof(*t->metrics));
    if (!t->metrics) {
        rc = -ENOMEM;
        goto fail;
    }
    for (unsigned i = 0; i < nthreads; i++)
        llm_metrics_init(&t->metrics[i]);
    if (cfg->wl.counter) {
        t->pending = calloc(nthreads, sizeof(*t->pending));
        if (!t->pending) {
            rc = -ENOMEM;
            goto fail;
        }
    }
    const char *path = cfg->path && *cfg->path ? cfg->path : llm_api_path(cfg->wl.api);
    rc = buf_printf(&t->head,
                    "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: latscope\r\n"
                    "Content-Type: application/json\r\nAccept: %s\r\n",
                    path, cfg->hostport, cfg->wl.stream ? "text/event-stream" : "application/json");
    if (rc) goto fail;
    if (cfg->api_key_env) {
        const char *key = getenv(cfg->api_key_env);
        if (!key || !*key) {
            snprintf(why, whylen, "--api-key-env %s: the variable is not set or empty",
                     cfg->api_key_env);
            rc = LAT_E_USAGE;
            goto fail;
        }
        if (strpbrk(key, "\r\n")) {
            snprintf(why, whylen, "--api-key-env %s: the key contains a line break",
                     cfg->api_key_env);
            rc = LAT_E_USAGE;
            goto fail;
        }
        rc = buf_printf(&t->head, "Authorization: Bearer %s\r\n", key);
        if (rc) goto fail;
    }
    for (size_t i = 0; i < cfg->nheaders; i++) {
        if (!header_ok(cfg->headers[i])) {
            snprintf(why, whylen, "header '%s': expected 'Name: value' on one line",
                     cfg->headers[i]);
            rc = LAT_E_USAGE;
            goto fail;
        }
        rc = buf_printf(&t->head, "%s\r\n", cfg->headers[i]);
        if (rc) goto fail;
    }
    *out = t;
    return 0;
fail:
    llm_target_free(t);
    return rc;
}

void llm_target_free(struct llm_target *t)
{
    if (!t) return;
    if (t->metrics)
        for (unsigned i = 0; i < t->nthreads; i++)
            llm_metrics_fini(&t->metrics[i]);
    free(t->metrics);
    if (t->pending)
        for (unsigned i = 0; i < t->nthreads; i++) {
            buf_fini(&t->pending[i].text);
            free(t->pending[i].v);
        }
    free(t->pending);
    llm_workload_free(t->wl);
    buf_fini(&t->head);
    free(t);
}

void llm_target_reset(struct llm_target *t)
{
    for (unsigned i = 0; i < t->nthreads; i++) {
        llm_metrics_reset(&t->metrics[i]);
        if (t->pending) {
            buf_reset(&t->pending[i].text);
            t->pending[i].n = 0;
            t->pending[i].lost = false;
        }
    }
}

int llm_target_count_outputs(struct llm_target *t, uint64_t *counted, char *why, size_t whylen)
{
    *counted = 0;
    if (!t->pending) return 0;
    struct lat_buf lit = LAT_BUF_INIT, txt = LAT_BUF_INIT;
    int rc = 0;
    for (unsigned th = 0; th < t->nthreads && !rc; th++) {
        struct llm_pending *p = &t->pending[th];
        struct llm_metrics *m = &t->metrics[th];
        for (size_t i = 0; i < p->n && !rc; i++) {
            const struct llm_pending_item *it = &p->v[i];
            if (it->rec >= m->n) continue;
            lit.len = txt.len = 0;
            rc = buf_putc(&lit, '"');
            rc = rc ? rc : buf_append(&lit, p->text.data + it->off, it->len);
            rc = rc ? rc : buf_putc(&lit, '"');
            if (rc) break;
            if (json_str_decode(lit.data, lit.len, &txt)) continue; /* cut mid-escape */
            int64_t n;
            rc = llm_tokcount_count(t->cfg.wl.counter, txt.data ? txt.data : "", txt.len, &n, why,
                                    whylen);
            if (rc) break;
            struct llm_rsum *r = &m->r[it->rec];
            /* the per-chunk mean (tokens_per_chunk) follows the new count */
            if (r->n_content > 0) {
                if (r->n > 0) {
                    m->approx_chunk_tokens -= (uint64_t)r->n;
                    m->approx_chunks -= r->n_content;
                }
                if (n > 0) {
                    m->approx_chunk_tokens += (uint64_t)n;
                    m->approx_chunks += r->n_content;
                }
            }
            r->n = n;
            r->src = LLM_TOK_TOKENIZER;
            (*counted)++;
        }
    }
    buf_fini(&lit);
    buf_fini(&txt);
    return rc;
}

int llm_target_summarize(struct llm_target *t, enum llm_view view, const struct llm_slo *slo,
                         struct llm_summary *out)
{
    struct llm_metrics all;
    llm_metrics_init(&all);
    int rc = 0;
    for (unsigned i = 0; i < t->nthreads && !rc; i++)
        rc = llm_metrics_merge(&all, &t->metrics[i]);
    if (!rc) rc = llm_metrics_summarize(&all, view, slo, out);
    llm_metrics_fini(&all);
    return rc;
}

struct llm_conn *llm_conn_new(struct llm_target *t, unsigned thread)
{
    struct llm_conn *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->t = t;
    c->thread = thread < t->nthreads ? thread : 0;
    llm_stream_init(&c->s, t->cfg.wl.stream);
    c->s.keep_text = t->pending != NULL;
    c->max_tokens = c->min_tokens = c->prompt_tok = -1;
    return c;
}

void llm_conn_free(struct llm_conn *c)
{
    if (!c) return;
    llm_stream_fini(&c->s);
    buf_fini(&c->req);
    buf_fini(&c->body);
    buf_fini(&c->line);
    free(c);
}

int llm_conn_build(struct llm_conn *c, const char **req, size_t *len)
{
    struct llm_target *t = c->t;
    uint64_t idx = c->seq1 ? c->seq1 - 1
                           : t->idx_base + (t->idx_stride ? t->idx_stride : 1) *
                                               atomic_fetch_add_explicit(&t->next_idx, 1,
                                                                         memory_order_relaxed);
    c->seq1 = 0;
    buf_reset(&c->req);
    buf_reset(&c->body);
    int rc = llm_workload_body_ex(t->wl, idx, &c->body, &c->max_tokens, &c->prompt_tok);
    c->min_tokens = llm_workload_demands_length(t->wl) && c->max_tokens > 0 ? c->max_tokens : -1;
    rc = rc ? rc : buf_append(&c->req, t->head.data, t->head.len);
    rc = rc ? rc : buf_printf(&c->req, "Content-Length: %zu\r\n\r\n", c->body.len);
    rc = rc ? rc : buf_append(&c->req, c->body.data, c->body.len);
    if (rc) return rc;
    *req = c->req.data;
    *len = c->req.len;
    return 0;
}

int llm_conn_build_msgs(struct llm_conn *c, const char *msgs, size_t mlen, int32_t mt,
                        const char **req, size_t *len)
{
    struct llm_target *t = c->t;
    uint64_t idx = atomic_fetch_add_explicit(&t->next_idx, 1, memory_order_relaxed);
    c->seq1 = 0;
    c->prompt_tok = -1;
    buf_reset(&c->req);
    buf_reset(&c->body);
    int rc = llm_workload_body_msgs(t->wl, idx, msgs, mlen, mt, &c->body, &c->max_tokens);
    c->min_tokens = llm_workload_demands_length(t->wl) && c->max_tokens > 0 ? c->max_tokens : -1;
    rc = rc ? rc : buf_append(&c->req, t->head.data, t->head.len);
    rc = rc ? rc : buf_printf(&c->req, "Content-Length: %zu\r\n\r\n", c->body.len);
    rc = rc ? rc : buf_append(&c->req, c->body.data, c->body.len);
    if (rc) return rc;
    *req = c->req.data;
    *len = c->req.len;
    return 0;
}

void llm_conn_begin(struct llm_conn *c, lat_ns t_sched, lat_ns t_send)
{
    llm_stream_begin(&c->s, t_sched, t_send, c->max_tokens);
    c->s.rec.min_tokens = c->min_tokens;
    c->s.rec.prompt_tokens_tok = c->prompt_tok;
}

void llm_conn_body(void *ud, const char *p, size_t n, lat_ns t)
{
    struct llm_conn *c = ud;
    llm_stream_body(&c->s, p, n, t);
}

/* The message of an OpenAI-style error body ({"error":{"message":"..."}} or
 * {"message":"..."}) as raw string text, else the whole text. */
static void error_message(const char *txt, const char **p, size_t *n)
{
    const char *e = txt + strlen(txt), *b = lj_ws(txt, e), *vb, *ve, *mb, *me;
    *p = txt;
    *n = (size_t)(e - txt);
    if (b >= e || *b != '{') return;
    if (lj_obj_get(b, e, "error", &vb, &ve) == 1 && *vb == '{' &&
        lj_obj_get(vb, ve, "message", &mb, &me) == 1 && *mb == '"' && me - mb >= 2) {
        *p = mb + 1;
        *n = (size_t)(me - mb - 2);
    } else if (lj_obj_get(b, e, "message", &mb, &me) == 1 && *mb == '"' && me - mb >= 2) {
        *p = mb + 1;
        *n = (size_t)(me - mb - 2);
    }
}

/* Keeps a response's output text for llm_target_count_outputs (after the point). */
static void pend_add(struct llm_pending *p, size_t rec, const struct lat_buf *text)
{
    if (LAT_GROW(p->v, p->cap, p->n, 1, 256)) {
        p->lost = true;
        return;
    }
    size_t off = p->text.len;
    if (text->len && buf_append(&p->text, text->data, text->len)) {
        p->lost = true;
        return;
    }
    p->v[p->n++] = (struct llm_pending_item){rec, off, text->len};
}

void llm_conn_end(struct llm_conn *c, int http_status, enum llm_err err, lat_ns t_end,
                  bool measured)
{
    llm_stream_end(&c->s, http_status, err, t_end);
    if (!measured) return;
    struct llm_metrics *m = &c->t->metrics[c->thread];
    if (c->s.rec.err != LLM_OK && !m->first_err.have) {
        const char *txt;
        size_t n;
        error_message(llm_stream_error_text(&c->s), &txt, &n);
        llm_first_err_note(&m->first_err, c->s.rec.err, http_status, txt, n);
    }
    if (llm_metrics_add(m, &c->s.rec) == 0 && c->t->pending && c->s.rec.err == LLM_OK &&
        c->s.rec.usage_tokens < 0 && c->s.rec.chunk_usage_tokens < 0)
        pend_add(&c->t->pending[c->thread], m->n - 1, &c->s.text);
}
