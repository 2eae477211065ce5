/*
 * stream.h - one OpenAI request in flight: body bytes in (with their recv() times), a
 * struct llm_record out. This is the hook the bench engine calls for `--target openai`:
 *
 *     llm_stream_begin(s, t_sched, t_send, max_tokens);     when the request is written
 *     llm_stream_body(s, p, n, t_recv);                     http1 on_body (same signature)
 *     llm_stream_end(s, http_status, transport_err, t_end); response complete or failed
 *     llm_metrics_add(m, &s->rec);                          the finished record
 *
 * Streaming responses go through the SSE framer; each event is stamped with the recv() time of
 * the bytes that completed it, before its JSON is read. Non-streaming responses are collected
 * and read at the end (TTFT = E2E then). One llm_stream per connection; storage is reused, so a
 * connection allocates only while its largest response grows.
 */
#ifndef LAT_LLM_STREAM_H
#define LAT_LLM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/clock.h"
#include "llm/metrics.h"
#include "net/sse.h"

#define LLM_STREAM_MAX_BODY (16u << 20) /* non-streaming / error bodies kept, at most */
#define LLM_RESP_ID_MAX     128         /* longest response `id` kept (raw JSON string text) */

struct llm_stream {
    struct sse_parser sse;
    struct llm_record rec;
    struct lat_buf body; /* non-streaming body, or the start of an error body */
    /* keep_text (set by the owner before a request): the content of every content chunk is
     * appended to text as sent (JSON string escapes kept; decode it as one string), so the
     * output can be tokenized after the point. At most LLM_STREAM_MAX_BODY bytes. */
    bool keep_text;
    struct lat_buf text;
    size_t content_cap, choice_cap; /* of rec's arrays (content_ts and content_tok share one) */
    int64_t last_cum_usage;
    bool streaming;
    bool saw_done, saw_finish, saw_event;
    bool overflow; /* content arrays could not grow: later chunks are not timed */
    bool id_tried; /* the response id was looked for (in the first data event only) */
    uint8_t id_len;
    char id[LLM_RESP_ID_MAX]; /* the response's `id` (raw JSON string text, no quotes) */
};

void llm_stream_init(struct llm_stream *s, bool streaming);
void llm_stream_fini(struct llm_stream *s);
/* Starts a request: clears the record (keeps storage). requested_tokens -1 when none. */
void llm_stream_begin(struct llm_stream *s, lat_ns t_sched, lat_ns t_send, int32_t requested);
/* Body bytes received at t (chunked framing already removed). Usable as http1 on_body with
 * ud = the llm_stream. Never fails: problems are recorded in s->rec.err. */
void llm_stream_body(void *ud, const char *p, size_t n, lat_ns t);
/*
 * The response completed (transport_err LLM_OK) or failed (a transport class: connect,
 * timeout, transport). Classifies the request: transport error > HTTP status >= 400 > error
 * event / malformed event > stream cut (no [DONE] and no finish_reason). Fills s->rec.
 */
void llm_stream_end(struct llm_stream *s, int http_status, enum llm_err transport_err,
                    lat_ns t_end);
/* The error message of a failed request, if the server sent one (error body or event), else
 * "". Valid until the next llm_stream_begin. */
const char *llm_stream_error_text(const struct llm_stream *s);
/* The response's `id` (OpenAI's per-response id, the same in every chunk) as raw JSON string
 * text without the quotes, ready to be written inside quotes; *len 0 when the response had none
 * (or a non-string or longer one). Read from the first data event only, after its timestamp. */
const char *llm_stream_resp_id(const struct llm_stream *s, size_t *len);

#endif
