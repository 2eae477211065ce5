/*
 * stream.c - turns one OpenAI HTTP response into a struct llm_record.
 *
 * Streaming: body bytes go to the SSE framer as they arrive; each completed event carries the
 * recv() time of its last bytes, and only then is its JSON read (llm_chunk_parse), so parsing
 * cost never shifts a timestamp. Per event: any data event moves t_first_event/t_last_event
 * (GenAI-Perf's r[0]/r[last]); an event with non-empty choices is a vLLM "message"; one with
 * non-empty text is a content chunk (latscope's c_i). Usage in a chunk that has choices is
 * read as a cumulative count (vLLM's continuous_usage_stats) and gives per-chunk token counts;
 * usage in a choices-less chunk (include_usage) is the final count. The first problem wins:
 * an error event or malformed event marks the request failed, but the stream is still read to
 * its end so the connection stays usable and the counts stay honest.
 * Non-streaming: the body is kept (bounded) and read once at the end; TTFT = E2E then.
 * Threading: one stream per connection, no shared state.
 */
#include "llm/stream.h"

#include "core/grow.h"
#include "llm/chunk.h"

#include <stdlib.h>
#include <string.h>

void llm_stream_init(struct llm_stream *s, bool streaming)
{
    memset(s, 0, sizeof(*s));
    sse_init(&s->sse, 0);
    s->streaming = streaming;
    llm_stream_begin(s, -1, -1, -1);
}

void llm_stream_fini(struct llm_stream *s)
{
    sse_fini(&s->sse);
    buf_fini(&s->body);
    buf_fini(&s->text);
    free(s->rec.content_ts);
    free(s->rec.content_tok);
    free(s->rec.choice_ts);
    memset(s, 0, sizeof(*s));
}

void llm_stream_begin(struct llm_stream *s, lat_ns t_sched, lat_ns t_send, int32_t requested)
{
    struct llm_record *r = &s->rec;
    lat_ns *cts = r->content_ts, *chts = r->choice_ts;
    int32_t *ctok = r->content_tok;
    memset(r, 0, sizeof(*r));
    r->content_ts = cts;
    r->content_tok = ctok;
    r->choice_ts = chts;
    r->t_sched = t_sched;
    r->t_send = t_send;
    r->t_first_event = r->t_last_event = r->t_first_choice = r->t_last_choice = -1;
    r->t_first = r->t_last = r->t_end = -1;
    r->usage_tokens = r->chunk_usage_tokens = r->prompt_tokens = -1;
    r->requested_tokens = requested;
    r->min_tokens = -1;
    r->chunk_usage_every = true;
    r->prompt_tokens_tok = -1;
    sse_reset(&s->sse);
    buf_reset(&s->body);
    buf_reset(&s->text);
    s->last_cum_usage = 0;
    s->saw_done = s->saw_finish = s->saw_event = s->overflow = false;
    s->id_tried = false;
    s->id_len = 0;
}

static void set_err(struct llm_stream *s, enum llm_err e)
{
    if (s->rec.err == LLM_OK) s->rec.err = e;
}

static void keep_error_text(struct llm_stream *s, const char *p, size_t n)
{
    if (s->body.len == 0) buf_append(&s->body, p, n < 4096 ? n : 4096);
}

/* Room for one more content chunk. content_ts and content_tok share content_cap (checked
 * against lat_ns, the wider element): both are resized before it moves, so on failure both
 * still hold content_cap. false when they cannot grow: no memory, or n_content (a uint32_t) is
 * full. */
static bool content_grow(struct llm_stream *s)
{
    struct llm_record *r = &s->rec;
    if (r->n_content == UINT32_MAX) return false;
    size_t nc = lat_grow_cap(s->content_cap, (size_t)r->n_content + 1, sizeof(lat_ns), 64);
    if (!nc) return false;
    lat_ns *ts = realloc(r->content_ts, nc * sizeof(*ts));
    if (!ts) return false;
    r->content_ts = ts;
    int32_t *tok = realloc(r->content_tok, nc * sizeof(*tok));
    if (!tok) return false;
    r->content_tok = tok;
    s->content_cap = nc;
    return true;
}

/* The response id from the first valid data event (OpenAI sends the same id in every chunk, so
 * one look per response is enough and later events cost nothing). */
static void keep_id(struct llm_stream *s, const char *p, size_t n)
{
    s->id_tried = true;
    const char *e = p + n, *b = lj_ws(p, e), *vb, *ve;
    if (lj_obj_get(b, e, "id", &vb, &ve) != 1 || ve - vb < 3 || *vb != '"') return;
    size_t len = (size_t)(ve - vb) - 2;
    if (len >= sizeof(s->id)) return;
    memcpy(s->id, vb + 1, len);
    s->id[len] = '\0';
    s->id_len = (uint8_t)len;
}

static void on_event(struct llm_stream *s, const struct sse_event *ev)
{
    struct llm_record *r = &s->rec;
    if (ev->done) {
        s->saw_done = true;
        return;
    }
    s->saw_event = true;
    if (ev->type_len == 5 && memcmp(ev->type, "error", 5) == 0) {
        set_err(s, LLM_ERR_EVENT);
        keep_error_text(s, ev->data, ev->data_len);
        return;
    }
    struct llm_chunk c;
    if (llm_chunk_parse(ev->data, ev->data_len, &c) != 0) {
        set_err(s, LLM_ERR_MALFORMED);
        return;
    }
    if (r->t_first_event < 0) r->t_first_event = ev->ts;
    r->t_last_event = ev->ts;
    if (!s->id_tried) keep_id(s, ev->data, ev->data_len);
    if (c.error) {
        set_err(s, LLM_ERR_EVENT);
        keep_error_text(s, ev->data, ev->data_len);
        return;
    }
    if (c.has_choices) {
        if (r->t_first_choice < 0) r->t_first_choice = ev->ts;
        r->t_last_choice = ev->ts;
        if (r->n_choice == s->choice_cap &&
            (r->n_choice == UINT32_MAX ||
             LAT_GROW(r->choice_ts, s->choice_cap, r->n_choice, 1, 64)))
            s->overflow = true;
        if (r->n_choice < s->choice_cap) r->choice_ts[r->n_choice++] = ev->ts;
    }
    if (c.token_event) r->n_token_events++;
    if (c.content && s->keep_text && c.content_raw &&
        s->text.len + c.content_bytes <= LLM_STREAM_MAX_BODY)
        buf_append(&s->text, c.content_raw, c.content_bytes);
    if (c.content) {
        if (r->t_first < 0) r->t_first = ev->ts;
        r->t_last = ev->ts;
        if (r->n_content == s->content_cap && !content_grow(s)) s->overflow = true;
        int32_t tok = -1;
        if (c.completion_tokens >= 0) {
            tok = (int32_t)(c.completion_tokens - s->last_cum_usage);
            s->last_cum_usage = c.completion_tokens;
            r->chunk_usage_tokens = c.completion_tokens;
        } else {
            r->chunk_usage_every = false;
        }
        if (r->n_content < s->content_cap) {
            r->content_ts[r->n_content] = ev->ts;
            r->content_tok[r->n_content] = tok;
            r->n_content++;
        }
    }
    if (c.completion_tokens >= 0 && (!c.has_choices || (c.finish && !c.content)))
        r->usage_tokens = c.completion_tokens;
    if (c.prompt_tokens >= 0) r->prompt_tokens = c.prompt_tokens;
    if (c.finish) s->saw_finish = true;
}

void llm_stream_body(void *ud, const char *p, size_t n, lat_ns t)
{
    struct llm_stream *s = ud;
    if (!s->streaming) {
        if (s->body.len + n <= LLM_STREAM_MAX_BODY)
            buf_append(&s->body, p, n);
        else
            set_err(s, LLM_ERR_MALFORMED);
        return;
    }
    struct sse_event ev;
    int rc;
    while ((rc = sse_feed(&s->sse, &p, &n, t, &ev)) != 0) {
        if (rc < 0) {
            set_err(s, LLM_ERR_MALFORMED);
            continue;
        }
        on_event(s, &ev);
    }
}

void llm_stream_end(struct llm_stream *s, int http_status, enum llm_err transport_err, lat_ns t_end)
{
    struct llm_record *r = &s->rec;
    r->t_end = t_end;
    r->http_status = http_status;
    enum llm_err in_stream = r->err;
    if (transport_err == LLM_ERR_CONNECT || transport_err == LLM_ERR_TIMEOUT) {
        r->err = transport_err;
    } else if (http_status >= 400) {
        r->err = LLM_ERR_HTTP;
        if (!s->streaming) {
            /* keep the body as the error text (already there) */
        } else if (s->body.len == 0 && s->sse.line.len) {
            keep_error_text(s, s->sse.line.data, s->sse.line.len);
        }
    } else if (in_stream != LLM_OK) {
        r->err = in_stream;
    } else if (s->streaming) {
        /* A stream that ended without [DONE] or a finish_reason was cut, whether the
         * transport noticed (reset, truncated chunked body) or not. */
        if (!s->saw_done && !s->saw_finish)
            r->err = s->saw_event || transport_err == LLM_OK ? LLM_ERR_CUT : transport_err;
        else if (sse_pending(&s->sse) && !s->saw_done)
            r->err = LLM_ERR_CUT;
        else if (!s->saw_finish)
            /* [DONE] without any finish_reason: ended early in order (llama-cpp-python cuts a
             * running stream this way when another request arrives), whatever the transport
             * did after it. */
            r->err = LLM_ERR_TRUNCATED;
        else if (transport_err != LLM_OK)
            /* complete in content, but the HTTP response was not (no terminating chunk):
             * the engine counts this request failed, so does this view */
            r->err = transport_err;
        else
            r->err = LLM_OK;
    } else if (transport_err != LLM_OK) {
        r->err = transport_err;
    } else {
        struct llm_chunk c;
        if (llm_chunk_parse(s->body.data ? s->body.data : "", s->body.len, &c) != 0) {
            r->err = LLM_ERR_MALFORMED;
        } else if (c.error) {
            r->err = LLM_ERR_EVENT;
        } else {
            r->t_first_event = r->t_last_event = t_end;
            if (c.has_choices) {
                r->t_first_choice = r->t_last_choice = t_end;
            }
            if (c.content) {
                r->t_first = r->t_last = t_end;
                r->n_content = 1; /* one body: one "chunk", no chunk timing arrays */
                if (s->keep_text && c.content_raw)
                    buf_append(&s->text, c.content_raw, c.content_bytes);
            }
            r->usage_tokens = c.completion_tokens;
            r->prompt_tokens = c.prompt_tokens;
            r->chunk_usage_every = false;
        }
    }
    if (r->n_content == 0) r->chunk_usage_every = false;
    if (r->err == LLM_OK && r->min_tokens > 0) {
        /* ignore_eos + min_tokens demanded this length: an exact count below it is a
         * truncated response (a content-event count is no proof: an event may carry more than
         * one token). */
        enum llm_tok_src src;
        int64_t n = llm_record_tokens(r, &src);
        if ((src == LLM_TOK_USAGE || src == LLM_TOK_CHUNK_USAGE) && n < r->min_tokens)
            r->err = LLM_ERR_TRUNCATED;
    }
}

const char *llm_stream_resp_id(const struct llm_stream *s, size_t *len)
{
    *len = s->id_len;
    return s->id;
}

const char *llm_stream_error_text(const struct llm_stream *s)
{
    if (s->rec.err == LLM_OK || !s->body.data) return "";
    return s->body.data;
}
