/*
 * sse.h - incremental Server-Sent Events framer (WHATWG "event stream" interpretation).
 *
 * Feed it the response body as it arrives, each read with the CLOCK_MONOTONIC time of the recv()
 * that returned it; it hands back complete events, each stamped with the arrival time of the
 * bytes that completed it (the blank line that dispatches it), before any JSON parsing.
 *
 *     const char *p = buf; size_t n = len;
 *     struct sse_event ev;
 *     while ((rc = sse_feed(&s, &p, &n, ts, &ev)) > 0)
 *         handle(&ev);           // ev's pointers are valid until the next sse_* call
 *     if (rc < 0) ...            // LAT_E_SSE_PARSE: event larger than max_event
 */
#ifndef LAT_NET_SSE_H
#define LAT_NET_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/clock.h"

#define SSE_DEFAULT_MAX_EVENT (4u << 20) /* bytes of one event (line or data), 4 MiB */

struct sse_event {
    const char *data; /* data lines joined by '\n' (no trailing '\n'); NUL-terminated */
    size_t data_len;
    const char *type; /* the last `event:` value, "" when none (i.e. "message") */
    size_t type_len;
    lat_ns ts;           /* arrival of the bytes that completed (dispatched) the event */
    lat_ns ts_first;     /* arrival of the event's first byte */
    uint32_t comments;   /* comment lines (keep-alives) since the previous event */
    uint32_t data_lines; /* number of data: lines */
    bool done;           /* data is exactly "[DONE]" (OpenAI end-of-stream sentinel) */
    bool utf8_ok;        /* data is valid UTF-8 */
};

struct sse_parser {
    struct lat_buf line; /* a line split across reads */
    struct lat_buf data; /* data of the event being assembled */
    char type[64];       /* event type (longer values are truncated; flagged by type_long) */
    size_t type_len;
    size_t max_event;
    lat_ns ts_first;   /* first byte of the event being assembled; -1 when none */
    lat_ns line_ts;    /* arrival of the first byte of the partial line in `line` */
    uint32_t comments; /* comment lines since the previous event */
    uint32_t data_lines;
    uint64_t events, total_comments, bytes;
    bool has_data;     /* at least one data: line in the current event */
    bool after_cr;     /* the previous read ended with CR: a leading LF belongs to it */
    bool bom_checked;  /* the optional UTF-8 BOM at stream start was handled */
    bool skipping;     /* discarding an oversized line / event up to the next blank line */
    bool skip_in_line; /* while skipping: inside a non-empty line (so its end is not blank) */
};

/* max_event 0 = SSE_DEFAULT_MAX_EVENT. Allocates nothing until the first byte. */
void sse_init(struct sse_parser *s, size_t max_event);
/* Ready for a new stream; keeps the buffers' storage (no allocation in steady state). */
void sse_reset(struct sse_parser *s);
void sse_fini(struct sse_parser *s);

/*
 * Consumes bytes from *data (length *len, advancing both) until an event completes or the input is
 * used up. Returns 1 with *ev filled (valid until the next call), 0 when all input was consumed
 * without completing an event, -ENOMEM, or LAT_E_SSE_PARSE once when an event exceeded
 * max_event (it is skipped; parsing resumes after the next blank line).
 */
int sse_feed(struct sse_parser *s, const char **data, size_t *len, lat_ns ts, struct sse_event *ev);

/* True when bytes of an incomplete event are pending (the stream was cut mid-event). */
bool sse_pending(const struct sse_parser *s);

/* True when buf[0..n) is valid UTF-8 (no overlongs, surrogates or code points > U+10FFFF). */
bool sse_utf8_valid(const char *buf, size_t n);

#endif
